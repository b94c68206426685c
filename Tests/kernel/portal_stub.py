#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The camera-portal test bed's helpers (S35), run with Debian's python3
and dbus-python (.ci/setup --kernel installs python3-dbus, python3-gi).

  portal_stub.py serve DIR   an access backend (org.freedesktop.impl.portal.Access)
                             for xdg-desktop-portal: AccessDialog answers what
                             DIR/answer says ("grant" or "deny", optionally
                             followed by a delay in seconds) and appends each
                             call to DIR/calls.log as one JSON line
  portal_stub.py set APP yes|no   the permission store's devices/camera entry for APP
  portal_stub.py unset APP        deletes the devices/camera entry
  portal_stub.py wait SECONDS     until org.freedesktop.portal.Camera answers
  portal_stub.py owner NAME SECONDS   until NAME has an owner on the bus
"""
import json
import os
import sys
import time

import dbus
import dbus.service

NAME = "org.freedesktop.impl.portal.desktop.camcoretest"
PATH = "/org/freedesktop/portal/desktop"
ACCESS = "org.freedesktop.impl.portal.Access"


def serve(d):
    from dbus.mainloop.glib import DBusGMainLoop
    from gi.repository import GLib

    DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()

    class Access(dbus.service.Object):
        @dbus.service.method(ACCESS, in_signature="osssssa{sv}", out_signature="ua{sv}",
                             async_callbacks=("reply", "error"))
        def AccessDialog(self, handle, app_id, parent, title, subtitle, body, options, reply, error):
            try:
                with open(os.path.join(d, "answer")) as f:
                    words = f.read().split()
            except OSError:
                words = ["deny"]
            answer = words[0] if words else "deny"
            delay = float(words[1]) if len(words) > 1 else 0.0
            with open(os.path.join(d, "calls.log"), "a") as f:
                f.write(json.dumps({"app_id": str(app_id), "title": str(title), "answer": answer,
                                    "delay": delay, "t": time.monotonic()}) + "\n")
            response = dbus.UInt32(0 if answer == "grant" else 1)
            GLib.timeout_add(int(delay * 1000), lambda: (reply(response, dbus.Dictionary({}, signature="sv")), False)[1])

    obj = Access(bus, PATH)
    name = dbus.service.BusName(NAME, bus)  # released when collected: kept until the loop ends
    with open(os.path.join(d, "ready"), "w") as f:
        f.write("1")
    GLib.MainLoop().run()
    del obj, name


def store():
    bus = dbus.SessionBus()
    obj = bus.get_object("org.freedesktop.impl.portal.PermissionStore", "/org/freedesktop/impl/portal/PermissionStore")
    return dbus.Interface(obj, "org.freedesktop.impl.portal.PermissionStore")


def main(argv):
    cmd = argv[1]
    if cmd == "serve":
        serve(argv[2])
    elif cmd == "set":
        store().SetPermission("devices", True, "camera", argv[2], [argv[3]])
    elif cmd == "unset":
        try:
            store().Delete("devices", "camera")  # the whole entry (this test bed has one app)
        except dbus.DBusException as e:
            if "NotFound" not in e.get_dbus_name():
                raise
    elif cmd == "owner":
        end = time.monotonic() + float(argv[3])
        bus = dbus.SessionBus()
        while not bus.name_has_owner(argv[2]):
            if time.monotonic() > end:
                print(f"{argv[2]} has no owner", file=sys.stderr)
                return 1
            time.sleep(0.1)
    elif cmd == "wait":
        end = time.monotonic() + float(argv[2])
        bus = dbus.SessionBus()
        while True:
            try:
                obj = bus.get_object("org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop")
                v = obj.Get("org.freedesktop.portal.Camera", "IsCameraPresent",
                            dbus_interface="org.freedesktop.DBus.Properties")
                print("IsCameraPresent", bool(v))
                return 0
            except dbus.DBusException as e:
                if time.monotonic() > end:
                    print("no camera portal:", e, file=sys.stderr)
                    return 1
                time.sleep(0.3)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
