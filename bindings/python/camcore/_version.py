# SPDX-License-Identifier: MIT
"""The binding's version: the header version (CAMCORE_VERSION_* of include/camcore.h)
it mirrors, which is also the package version."""
VERSION_MAJOR = 0
VERSION_MINOR = 2
VERSION_PATCH = 0
__version__ = f"{VERSION_MAJOR}.{VERSION_MINOR}.{VERSION_PATCH}"
