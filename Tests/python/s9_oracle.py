# SPDX-License-Identifier: MIT
"""The S9 oracle of the Python suites: what camera_on should be.

The rule lives in the engine once (Sources/CamCore/Session/SessionPolicy.swift);
the binding reports S9's output (SessionState.camera_on) and does not restate
it. The tests check the output against this independent statement of SPEC
S9: on exactly when video is transmitted (a transmission, not paused, held
or hard-muted, fed by the camera rather than a custom source) or at least
one preview is active; never after the app stopped the capturer (S17) or
without a device.

Shared by the host suite (Tests/python) and the guest suite (Tests/kernel,
whose conftest puts this folder on sys.path).
"""


def s9_wants_camera(st) -> bool:
    """What S9 says camera_on should be, from the other fields of a SessionState."""
    tx = (st.transmitting and not st.paused and not st.held and not st.hard_muted
          and not st.custom_source)
    return (tx or st.preview_count > 0) and not st.stopped_by_app and bool(st.device_id)
