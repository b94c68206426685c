// swift-tools-version:6.0
// SPDX-License-Identifier: MIT
// camcore: a camera-control core for Linux, exported as libcamcore.so.
import PackageDescription

#if arch(arm64)
let multiarch = "aarch64-linux-gnu"
#else
let multiarch = "x86_64-linux-gnu"
#endif

let package = Package(
    name: "camcore",
    products: [
        // libcamcore.so: the C ABI declared in include/camcore.h.
        .library(name: "camcore", type: .dynamic, targets: ["CamCoreCABI"]),
    ],
    targets: [
        // The hand-written public header, imported so the exports match it.
        .systemLibrary(name: "CCamCore", path: "Sources/CCamCore"),
        // libv4l2 (device access through libv4l) with a shim for ioctl macros.
        .systemLibrary(
            name: "CV4L2", path: "Sources/CV4L2", pkgConfig: "libv4l2",
            providers: [.apt(["libv4l-dev"])]),
        // libudev (enumeration and hot-plug).
        .systemLibrary(
            name: "CUdev", path: "Sources/CUdev", pkgConfig: "libudev",
            providers: [.apt(["libudev-dev"])]),
        // libyuv (pixel conversion, SPEC S8); Debian 12 ships no .pc file for it.
        .systemLibrary(
            name: "CYuv", path: "Sources/CYuv",
            providers: [.apt(["libyuv-dev"])]),
        // libjpeg-turbo's TurboJPEG API (MJPEG decoding, SPEC S8).
        .systemLibrary(
            name: "CTurboJPEG", path: "Sources/CTurboJPEG", pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev"])]),
        // A thin C shim over libpipewire-0.3 (SPEC S32-S34): the library is
        // dlopen'ed at run time, never linked, so libcamcore.so loads and
        // works without PipeWire. Built against Debian 12's headers
        // (libpipewire-0.3-dev 0.3.65), whose paths pkg-config would give.
        .target(
            name: "CPipeWire", path: "Sources/CPipeWire",
            cSettings: [.unsafeFlags(["-I/usr/include/pipewire-0.3", "-I/usr/include/spa-0.2"])],
            linkerSettings: [.linkedLibrary("dl")]),
        // The camera portal client (SPEC S35) over libdbus-1, dlopen'ed at
        // run time like libpipewire; the headers are libdbus-1-dev's (its
        // dbus-arch-deps.h sits under the multiarch libdir).
        .target(
            name: "CPortal", path: "Sources/CPortal",
            cSettings: [.unsafeFlags(["-I/usr/include/dbus-1.0", "-I/usr/lib/\(multiarch)/dbus-1.0/include"])],
            linkerSettings: [.linkedLibrary("dl")]),
        // The libcamera plugin's C interface and its loader (SPEC S41): the
        // plugin itself (plugin/, C++ against libcamera-dev) is built by the
        // Makefile and dlopen'ed at run time; libcamcore never links libcamera.
        .target(
            name: "CLibcamera", path: "Sources/CLibcamera", exclude: ["plugin"],
            linkerSettings: [.linkedLibrary("dl")]),
        // The engine: pure Swift, no C-ABI types in its API.
        // Debug (test) builds let tests replace open/ioctl/mmap (Platform/
        // Syscalls.swift) to drive errno mapping on the host; release has no hooks.
        // Release builds drop the run-time exclusivity checks (debug and
        // test builds keep them): on the frame path they were ~100 of the
        // engine's ~1,000 instructions per frame (swift_beginAccess on the
        // capture loop's captured state, bench row 1).
        .target(name: "CamCore", dependencies: ["CV4L2", "CUdev", "CYuv", "CTurboJPEG", "CPipeWire", "CPortal", "CLibcamera"],
                swiftSettings: [.define("CAMCORE_SYSCALL_HOOKS", .when(configuration: .debug)),
                                .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]),
        // Only the @_cdecl exports and handle boxing.
        .target(name: "CamCoreCABI", dependencies: ["CamCore", "CCamCore"], exclude: ["exports.map"],
                swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]),
        .testTarget(name: "CamCoreTests", dependencies: ["CamCore"]),
    ],
    swiftLanguageModes: [.v6]
)
