// SPDX-License-Identifier: MIT
/* libudev for Swift: the library's header as it is. */
#ifndef CAMCORE_CUDEV_SHIM_H
#define CAMCORE_CUDEV_SHIM_H
#include <libudev.h>
#endif
