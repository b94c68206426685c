// SPDX-License-Identifier: MIT
/* The camera portal (org.freedesktop.portal.Camera, SPEC S35) through
 * libdbus-1, which is loaded at run time (dlopen of libdbus-1.so.3;
 * CAMCORE_DBUS_LIBRARY overrides the name) so libcamcore.so loads without
 * it. Blocking calls on a private session-bus connection; one thread at a
 * time per ccportal (camcore's portal thread), except ccportal_cancel. */
#ifndef CCPORTAL_H
#define CCPORTAL_H

#include <stddef.h>
#include <stdint.h>

typedef struct ccportal ccportal;

/* Loads libdbus-1 and connects to the session bus
 * ($DBUS_SESSION_BUS_ADDRESS). NULL on failure, err says why. */
ccportal *ccportal_open(char *err, size_t errlen);

/* Closes the connection and frees. */
void ccportal_close(ccportal *p);

/* Makes a wait in ccportal_access_camera return early (-3); from any thread. */
void ccportal_cancel(ccportal *p);

/* The portal's IsCameraPresent property: 1 or 0; -1 when there is no
 * portal or no camera portal (err says which). */
int ccportal_camera_present(ccportal *p, int timeout_ms, char *err, size_t errlen);

/* AccessCamera, then waits up to timeout_ms for the request's Response:
 * returns the response (0 granted, 1 cancelled by the user, 2 refused or
 * failed), -1 on a D-Bus error (no portal...), -2 on timeout, -3 when
 * cancelled; err says why for everything but 0. A NotAllowed error (camera
 * locked down) is returned as 2. */
int ccportal_access_camera(ccportal *p, int timeout_ms, char *err, size_t errlen);

/* OpenPipeWireRemote: a PipeWire remote fd the caller owns, or -1 (err
 * says why; *not_allowed is set to 1 when the portal refused). */
int ccportal_open_pipewire_remote(ccportal *p, int timeout_ms, int *not_allowed, char *err, size_t errlen);

#endif
