// SPDX-License-Identifier: MIT
/**
 * \file camcore.h
 * \brief camcore.h — the C ABI of libcamcore, a camera-control core for Linux.
 *
 * This is the only public header, written by hand; it is the contract.
 * It is C99 and C++ clean (C++ programs may also use camcore.hpp, a
 * header-only C++17 wrapper of it).
 *
 * Rule tags such as (S9) name the rules of camcore's behaviour contract,
 * docs/SPEC.md in the source tree; tests are named after the rule they
 * check. Every comment that cites a rule says what the rule means there,
 * so this header is complete without the SPEC.
 *
 * \since 0.1
 *
 * # Overview
 *
 * Lifecycle:
 *
 *     camcore_manager_new()            one per process is typical
 *       camcore_manager_list_devices() capture devices (S1, S2)
 *       camcore_manager_list_formats() formats of one device (S5)
 *       camcore_capturer_open()        opens one device
 *         camcore_capturer_start()     negotiates, streams, calls back
 *         camcore_capturer_stop()      no callback runs after it returns
 *       camcore_capturer_close()
 *     camcore_manager_free()
 *
 * Threading: every function may be called from any thread; each one's
 * thread-safety note says what it does when called from inside one of camcore's
 * callbacks. Frame callbacks of a capturer run on that capturer's own
 * capture thread, one frame at a time, in capture order. After
 * camcore_capturer_stop() or camcore_capturer_close() returns, no callback
 * of that capturer runs again, so the app may free its user_data. Close
 * and free never fail: called from inside one of the object's own
 * callbacks, they return at once, no other callback of the object starts
 * (the running one is the last), and the rest of the teardown (stopping
 * the stream, closing the device) runs on a camcore thread right after that
 * callback returns; the app may free its user_data once the callback
 * returned. stop from there returns CAMCORE_E_WOULD_DEADLOCK instead of
 * hanging.
 *
 * Versions: every symbol says since which camcore version it exists ("Since").
 *
 * Ownership: objects come back through out-parameters (set to NULL on
 * failure) and each has exactly one free/close function, which accepts
 * NULL. Lists the library allocates are one allocation with one free.
 * Strings the library returns are UTF-8 and live as long as the object
 * that holds them. Caller-filled structs start with `uint32_t struct_size`;
 * fill them with their `_init()` helper, then change what you need. They
 * are copied at the call, field by field up to struct_size: a struct_size
 * of an older version of the struct keeps the defaults past its end; one
 * that ends inside a field is refused (CAMCORE_E_INVALID_ARG).
 *
 * Environment: camcore reads these variables. An empty value is the same
 * as an unset one; any value not listed is refused with
 * CAMCORE_E_INVALID_ARG, naming the variable and the value, by the call
 * that reads it (camcore_manager_new() checks all of them; capture starts
 * read CAMCORE_CAPTURE_DMABUF again). Words match in any case, with no
 * surrounding spaces.
 * - CAMCORE_BACKEND: auto, both, or backend names (v4l2, pipewire,
 *   libcamera) alone or comma-separated, e.g. "v4l2,libcamera"
 *   (camcore_manager_config.backend, .backend_names).
 * - CAMCORE_PORTAL: auto, never, always (camcore_manager_config.portal).
 * - CAMCORE_SYNTHETIC_CAMERA: 0, 1, 2 (synthetic cameras), or a flag word
 *   below (on = 1).
 * - CAMCORE_CAPTURE_DMABUF, CAMCORE_LIBV4L2, CAMCORE_PIPEWIRE_DEBUG
 *   (flags): 1, true, yes, on, or 0, false, no, off.
 * - CAMCORE_PIPEWIRE_LIBRARY, CAMCORE_DBUS_LIBRARY: a library file to load
 *   instead of libpipewire-0.3.so.0 / libdbus-1.so.3, taken as it is.
 * - CAMCORE_LIBCAMERA_PLUGIN: camcore's libcamera plugin to load instead
 *   of camcore/libcamcore-libcamera.so beside libcamcore (S41).
 *
 * Errors: every status is an `int`; 0 is CAMCORE_OK, failures are the
 * negative, stable CAMCORE_E_* codes. camcore_strerror() names a code;
 * camcore_last_error_message() gives the detail of the last failure on the
 * calling thread (e.g. which device was busy). Raw errno never leaks.
 *
 * Units: sizes in pixels, strides (bytesperline) and lengths in bytes,
 * timestamps in CLOCK_MONOTONIC nanoseconds, frame rates as a fraction of
 * frames per second (30/1, 30000/1001).
 *
 * Camera gotchas worth knowing:
 * - Drivers round sizes and rates: what camcore reports after start is
 *   what the driver applied (VIDIOC_G_FMT / VIDIOC_G_PARM), never what was
 *   asked (S6).
 * - The first frames after stream-on may be dark or unstable while the
 *   sensor's auto-exposure settles (warm-up frames).
 * - MJPEG frames vary in length from frame to frame; use the plane length.
 * - Rows may be padded: always step rows by the plane's stride, never by
 *   width times bytes per pixel.
 */
#ifndef CAMCORE_H
#define CAMCORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Version                                                             */
/* ------------------------------------------------------------------ */

/** The version of this header: the major number (changes break the ABI; see CHANGELOG.md). \since 0.1 */
#define CAMCORE_VERSION_MAJOR 0
/** The minor number: new functions and struct fields (before 1.0 also ABI changes). \since 0.1 */
#define CAMCORE_VERSION_MINOR 2
/** The patch number: fixes only. \since 0.1 */
#define CAMCORE_VERSION_PATCH 0

/** Makes a string of its argument, after expanding it (for CAMCORE_VERSION_STRING). \since 0.1 */
#define CAMCORE_QUOTE(x) #x
/** Expands its argument, then quotes it (for CAMCORE_VERSION_STRING). \since 0.1 */
#define CAMCORE_EXPAND_AND_QUOTE(x) CAMCORE_QUOTE(x)

/**
 * The version of this header as a string, "major.minor.patch" (e.g.
 * "0.1.0"), spelled from the three numbers above: they are the one source
 * of the version. camcore_version_string() gives the loaded library's.
 *
 * \since 0.1
 */
#define CAMCORE_VERSION_STRING                          \
    CAMCORE_EXPAND_AND_QUOTE(CAMCORE_VERSION_MAJOR) "." \
    CAMCORE_EXPAND_AND_QUOTE(CAMCORE_VERSION_MINOR) "." \
    CAMCORE_EXPAND_AND_QUOTE(CAMCORE_VERSION_PATCH)

/** Packs a version as (major << 16) | (minor << 8) | patch. \since 0.1 */
#define CAMCORE_VERSION_NUM(major, minor, patch) \
    (((uint32_t)(major) << 16) | ((uint32_t)(minor) << 8) | (uint32_t)(patch))

/** The version of this header, packed with CAMCORE_VERSION_NUM. \since 0.1 */
#define CAMCORE_VERSION \
    CAMCORE_VERSION_NUM(CAMCORE_VERSION_MAJOR, CAMCORE_VERSION_MINOR, CAMCORE_VERSION_PATCH)

/**
 * The version of the loaded library, packed as CAMCORE_VERSION_NUM does.
 *
 * Compare with CAMCORE_VERSION to detect a header/library mismatch.
 *
 * \returns the packed version; never fails.
 * \threadsafety Safe from any thread.
 * \since 0.1
 */
uint32_t camcore_version(void);

/**
 * The version of the loaded library as a string, e.g. "0.1.0": the
 * CAMCORE_VERSION_STRING of the header it was built from.
 *
 * \returns a static string owned by the library; never NULL.
 * \threadsafety Safe from any thread.
 * \since 0.1
 */
const char *camcore_version_string(void);

/* ------------------------------------------------------------------ */
/* Status codes                                                        */
/* ------------------------------------------------------------------ */

/** Status codes. 0 is success; failures are negative and stable. \since 0.1 */
typedef enum camcore_status {
    CAMCORE_OK = 0,
    /** An argument was NULL, out of range, or a struct_size too small. */
    CAMCORE_E_INVALID_ARG = -1,
    /** No such device, or the device went away (ENODEV, ENOENT, ENXIO). */
    CAMCORE_E_NO_DEVICE = -2,
    /** The device is in use by another process or stream (EBUSY). */
    CAMCORE_E_BUSY = -3,
    /** Permission denied opening the device node (EACCES, EPERM). */
    CAMCORE_E_ACCESS = -4,
    /** The device or camcore cannot do what was asked. */
    CAMCORE_E_NOT_SUPPORTED = -5,
    /** The device did not answer in time. */
    CAMCORE_E_TIMEOUT = -6,
    /** The driver reported an I/O error (EIO, failed STREAMON, ...). */
    CAMCORE_E_IO = -7,
    /** The call is not valid in the object's current state. */
    CAMCORE_E_STATE = -8,
    /** A custom video source feeds transmission, so the session cannot
     *  select or flip to another camera now (S18); turn it off first. */
    CAMCORE_E_CUSTOM_SOURCE_ACTIVE = -9,
    /** The call was made from inside the object's own callback. */
    CAMCORE_E_WOULD_DEADLOCK = -10,
    /** Out of memory (ENOMEM, or too few buffers). */
    CAMCORE_E_NO_MEMORY = -11,
    /** A bug in camcore; the message says where. */
    CAMCORE_E_INTERNAL = -12,
    /**
     * The bus cannot carry the stream (S47): a USB camera's isochronous
     * bandwidth is taken (other cameras on the bus) or too small for the
     * setting (ENOSPC at VIDIOC_STREAMON). The message names the setting;
     * a compressed format (MJPEG) or a lower size or rate may fit. A
     * session falls back by itself. \since 0.2
     */
    CAMCORE_E_BANDWIDTH = -13
} camcore_status;

/**
 * The name of a status code, e.g. "CAMCORE_E_BUSY: device busy".
 *
 * \param status any int; unknown values give "unknown status".
 * \returns a static string owned by the library; never NULL.
 * \threadsafety Safe from any thread.
 * \since 0.1
 */
const char *camcore_strerror(int status);

/**
 * Detail of the last failed call made on the calling thread.
 *
 * Set by every function that returns a negative status; successful calls
 * leave it as it was.
 *
 * \returns a string owned by the library, valid until the next camcore
 *          call on the same thread; "" when nothing has failed; never NULL.
 * \threadsafety Per thread: each thread sees its own last message.
 * \since 0.1
 */
const char *camcore_last_error_message(void);

/* ------------------------------------------------------------------ */
/* Common types                                                        */
/* ------------------------------------------------------------------ */

/** A rational number: frame rates in frames per second (30/1). \since 0.1 */
typedef struct camcore_fraction {
    /** The numerator (frames, for a frame rate). */
    uint32_t numerator;
    /** The denominator (seconds, for a frame rate); 0 with a numerator of 0 means unknown. */
    uint32_t denominator;
} camcore_fraction;

/** Builds a V4L2 FourCC code: CAMCORE_FOURCC('Y','U','Y','V'). \since 0.1 */
#define CAMCORE_FOURCC(a, b, c, d) \
    ((uint32_t)(uint8_t)(a) | ((uint32_t)(uint8_t)(b) << 8) | \
     ((uint32_t)(uint8_t)(c) << 16) | ((uint32_t)(uint8_t)(d) << 24))

/** Packed YUV 4:2:2 (V4L2_PIX_FMT_YUYV), 1 plane. \since 0.1 */
#define CAMCORE_FOURCC_YUYV CAMCORE_FOURCC('Y', 'U', 'Y', 'V')
/** Planar YUV 4:2:0, Y then U then V (V4L2_PIX_FMT_YUV420 "YU12", I420), 3 planes. \since 0.1 */
#define CAMCORE_FOURCC_I420 CAMCORE_FOURCC('Y', 'U', '1', '2')
/** Y plane then interleaved CbCr, 4:2:0 (V4L2_PIX_FMT_NV12), 2 planes. \since 0.1 */
#define CAMCORE_FOURCC_NV12 CAMCORE_FOURCC('N', 'V', '1', '2')
/** 24-bit RGB, bytes R,G,B (V4L2_PIX_FMT_RGB24 "RGB3"), 1 plane. \since 0.1 */
#define CAMCORE_FOURCC_RGB24 CAMCORE_FOURCC('R', 'G', 'B', '3')
/** 24-bit BGR, bytes B,G,R (V4L2_PIX_FMT_BGR24 "BGR3"), 1 plane. \since 0.1 */
#define CAMCORE_FOURCC_BGR24 CAMCORE_FOURCC('B', 'G', 'R', '3')
/** Motion-JPEG (V4L2_PIX_FMT_MJPEG), 1 plane, variable length. \since 0.1 */
#define CAMCORE_FOURCC_MJPEG CAMCORE_FOURCC('M', 'J', 'P', 'G')
/** 32-bit RGBA, bytes R,G,B,A (V4L2_PIX_FMT_RGBA32 "AB24"), 1 plane. \since 0.1 */
#define CAMCORE_FOURCC_RGBA CAMCORE_FOURCC('A', 'B', '2', '4')
/** As an output format: the driver's own format, delivered without a copy (S8). \since 0.1 */
#define CAMCORE_FOURCC_NATIVE 0u

/**
 * Writes the four characters of a FourCC and a terminating NUL into out.
 * Bytes outside printable ASCII (V4L2's big-endian bit 31 included) are
 * written as '?'; the name v4l2-ctl prints ("Y16 -BE") is
 * camcore_pixel_format_info's name.
 *
 * \param fourcc the code.
 * \param out    at least 5 bytes; NULL is ignored.
 * \returns out.
 * \threadsafety Safe from any thread.
 * \since 0.1
 */
char *camcore_fourcc_to_string(uint32_t fourcc, char out[5]);

/* ------------------------------------------------------------------ */
/* Threads                                                             */
/* ------------------------------------------------------------------ */

/**
 * Hooks run on every thread camcore starts: capture and session threads
 * (they call on_frame and the session callbacks), the camera queue, the
 * hot-plug monitor, control-event threads and the PipeWire/portal
 * watchers. A language runtime attaches each thread once here instead of
 * on every callback: Python keeps one thread state per thread (without it
 * every ctypes callback creates and destroys one), Java calls
 * AttachCurrentThread/DetachCurrentThread; an app may also name threads
 * or set their priority. Fill with camcore_thread_hooks_init(). \since 0.1
 */
typedef struct camcore_thread_hooks {
    /** sizeof(camcore_thread_hooks). */
    uint32_t struct_size;
    /** Passed to both hooks. Must stay valid until every thread started
     *  with these hooks has ended (after the last capturer, session and
     *  manager is stopped and freed). */
    void *user_data;
    /**
     * Called on the new thread before anything else; NULL: nothing. `name`
     * (static, also the thread's pthread name) says what the thread does:
     * "camcore-capture" calls on_frame/session callbacks per frame (a
     * capturer started with callbacks, a session's camera); "camcore-pull"
     * fills a pull queue and calls nothing; "camcore-queue",
     * "camcore-hotplug", "camcore-control", "camcore-pw", "camcore-portal"
     * call the app rarely (state, hot-plug, control and permission events).
     */
    void (*on_thread_start)(void *user_data, const char *name);
    /** Called on the same thread as the last thing it does, after its last
     *  callback, with the same name; NULL: nothing. */
    void (*on_thread_stop)(void *user_data, const char *name);
} camcore_thread_hooks;

/**
 * Fills a hooks struct: struct_size set, all else NULL.
 *
 * \param hooks the struct; NULL is ignored.
 * \threadsafety Safe from any thread.
 * \since 0.1
 */
void camcore_thread_hooks_init(camcore_thread_hooks *hooks);

/**
 * Installs thread hooks for the whole process, for the threads camcore
 * starts from now on; NULL removes them. Threads already running keep the
 * hooks they started with and call that set's on_thread_stop when they
 * end, so replacing the hooks never leaves a thread without its stop.
 * There is one set per process: a later call replaces an earlier one.
 * The hooks must not start, stop, close or free the object whose thread
 * runs them (its capturer, session or manager): a stop hook runs while
 * that object is being stopped, and such a call waits for itself forever
 * (no CAMCORE_E_WOULD_DEADLOCK is returned from a hook). Other objects and
 * read-only calls are fine.
 *
 * \param hooks the hooks (copied), or NULL.
 * \returns CAMCORE_OK, or CAMCORE_E_INVALID_ARG for a struct_size below the
 *          first version's (message: call camcore_thread_hooks_init()).
 * \threadsafety Safe from any thread; takes effect for threads started
 *          after it returns.
 * \since 0.1
 */
int camcore_set_thread_hooks(const camcore_thread_hooks *hooks);

/* ------------------------------------------------------------------ */
/* Manager                                                             */
/* ------------------------------------------------------------------ */

/** A camera manager: owns the device list. Opaque. \since 0.1 */
typedef struct camcore_manager camcore_manager;

/** Manager settings. Fill with camcore_manager_config_init(). \since 0.1 */
typedef struct camcore_manager_config {
    /** sizeof(camcore_manager_config). */
    uint32_t struct_size;
    /**
     * 1 lists the built-in synthetic camera (S4), id "synthetic:0", after
     * the real ones; 2 lists two, a front "synthetic:0" and a back
     * "synthetic:1" (to try flipping without hardware; its colour bars run
     * the other way, black first, so a flip shows). The environment
     * variable CAMCORE_SYNTHETIC_CAMERA=1 (or =2) has the same effect (the
     * larger of the two counts). Default 0; other values are refused with
     * CAMCORE_E_INVALID_ARG.
     */
    int32_t include_synthetic;
    /**
     * Which backends cameras are listed from (S33), a camcore_backend
     * value. CAMCORE_BACKEND_AUTO (the default) defers to the environment
     * variable CAMCORE_BACKEND ("auto", "v4l2", "pipewire", "both",
     * "libcamera") when it is set, and otherwise means PipeWire inside a
     * sandbox (Flatpak, Snap) and V4L2 elsewhere, with libcamera's cameras
     * too once the V4L2 listing meets a media-pipeline node (S40, S41: so a
     * machine with plain webcams never starts libcamera). Added in 0.1: a
     * struct_size that ends before it reads as AUTO.
     */
    int32_t backend;
    /**
     * A PipeWire remote fd the app already holds (e.g. from the camera
     * portal's OpenPipeWireRemote), used instead of the default socket;
     * -1 (the default) for none. Duplicated: the app keeps its fd. An fd
     * that is not open, or not a socket, and any other negative value are
     * refused by camcore_manager_new() with CAMCORE_E_INVALID_ARG.
     */
    int32_t pipewire_fd;
    /**
     * When the PipeWire backend goes through the camera portal (S35), a
     * camcore_portal value. CAMCORE_PORTAL_AUTO (the default) defers to
     * the environment variable CAMCORE_PORTAL ("auto", "never", "always")
     * when it is set, and otherwise means: inside a sandbox. Ignored when
     * pipewire_fd is given. Added in 0.1 after pipewire_fd: a struct_size
     * that ends before it reads as AUTO.
     */
    int32_t portal;
    /**
     * Backends by name (S33: backends are named, not a closed list): a
     * comma-separated list of "v4l2", "pipewire", "libcamera" (each once,
     * any case, no spaces), or one of "auto", "both"; used instead of
     * `backend` when not NULL. A camera several of them reach is listed
     * once (S42). Anything else is refused by camcore_manager_new() with
     * CAMCORE_E_INVALID_ARG. Copied at the call. Default NULL. Added in 0.2
     * after portal: a struct_size that ends before it reads as NULL.
     * \since 0.2
     */
    const char *backend_names;
} camcore_manager_config;

/** Camera portal use (camcore_manager_config.portal, S35). \since 0.1 */
typedef enum camcore_portal {
    CAMCORE_PORTAL_AUTO = 0,   /**< inside a sandbox (Flatpak, Snap) */
    CAMCORE_PORTAL_NEVER = 1,  /**< PipeWire's own socket (or pipewire_fd) */
    CAMCORE_PORTAL_ALWAYS = 2  /**< also outside a sandbox */
} camcore_portal;

/**
 * Camera permission (S35): the camera portal's answer. Without a portal
 * in use it is CAMCORE_PERMISSION_GRANTED from the start.
 * \since 0.1
 */
typedef enum camcore_permission {
    /** Not asked yet. */
    CAMCORE_PERMISSION_UNKNOWN = 0,
    /** Asked (AccessCamera); no answer yet (the user may see a dialog). */
    CAMCORE_PERMISSION_PENDING = 1,
    /** Allowed: the PipeWire cameras are listed. */
    CAMCORE_PERMISSION_GRANTED = 2,
    /** Refused by the user, the permission store or a lockdown, or the
     * portal could not be asked; the PipeWire cameras stay hidden. */
    CAMCORE_PERMISSION_DENIED = 3
} camcore_permission;

/** Backends (camcore_manager_config.backend, S32, S33). \since 0.1 */
typedef enum camcore_backend {
    CAMCORE_BACKEND_AUTO = 0,     /**< PipeWire in a sandbox, else V4L2 (and libcamera once V4L2 meets a media-pipeline node, S40) */
    CAMCORE_BACKEND_V4L2 = 1,     /**< V4L2 device nodes only */
    CAMCORE_BACKEND_PIPEWIRE = 2, /**< PipeWire camera nodes only (libpipewire loaded at run time) */
    CAMCORE_BACKEND_BOTH = 3,     /**< every backend; a camera several reach is listed once (S42): a PipeWire node over a listed V4L2 device as that device, a UVC camera libcamera also reaches as the V4L2 device */
    /**
     * libcamera's cameras (S41): media-pipeline cameras (MIPI sensors behind
     * an ISP or CSI receiver; vimc) through camcore's libcamera plugin
     * (camcore/libcamcore-libcamera.so beside libcamcore, or
     * CAMCORE_LIBCAMERA_PLUGIN), loaded at run time: without it or
     * libcamera, listing finds nothing and opening gives
     * CAMCORE_E_NOT_SUPPORTED with the reason. \since 0.2
     */
    CAMCORE_BACKEND_LIBCAMERA = 4
} camcore_backend;

/**
 * Fills a manager config with defaults (no synthetic camera).
 *
 * \param config the struct to fill; NULL is ignored.
 * \threadsafety Safe from any thread.
 * \since 0.1
 */
void camcore_manager_config_init(camcore_manager_config *config);

/**
 * Creates a manager.
 *
 * \param config settings, or NULL for the defaults. Copied.
 * \param out    receives the manager, or NULL on failure. Free with
 *               camcore_manager_free().
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG (out NULL, struct_size too
 *          small or inside a field, a field out of range, pipewire_fd not
 *          an open socket, or a CAMCORE_* environment variable with a value
 *          camcore does not take: see "Environment" above; the message
 *          names the variable and its value), CAMCORE_E_NO_MEMORY.
 * \threadsafety Safe from any thread.
 * \since 0.1
 */
int camcore_manager_new(const camcore_manager_config *config, camcore_manager **out);

/**
 * Frees a manager, and stops and closes everything made from it: its
 * hot-plug callbacks, and every capturer (camcore_capturer_open()) and
 * session (camcore_session_new()) of it not yet closed or freed. When it
 * returns, no callback of any of them runs again and their devices are
 * closed (S31). Their handles stay valid for their own
 * camcore_capturer_close() / camcore_session_free(), which must still be
 * called to release them; every other call on them returns
 * CAMCORE_E_STATE (functions without a status return 0 or NULL, with
 * the message in camcore_last_error_message()). Retained frames stay
 * valid until released.
 *
 * \param manager the manager; NULL, freed or foreign handles are ignored.
 * \threadsafety Safe from any thread, but not concurrently with other calls on
 *               the same manager or on what was made from it. It never fails:
 *               from inside a hot-plug callback of the manager, or a callback
 *               of one of its capturers or sessions, it returns at once, no
 *               other callback of any of them starts, and the rest (closing
 *               devices, retiring the handles as above) runs on a camcore
 *               thread once that callback returned. (Before 0.2 it freed
 *               nothing there and set CAMCORE_E_WOULD_DEADLOCK.)
 * \since 0.1
 */
void camcore_manager_free(camcore_manager *manager);

/* ------------------------------------------------------------------ */
/* Devices (S1, S2, S3, S4)                                            */
/* ------------------------------------------------------------------ */

/** What kind of camera a device is (S2). \since 0.1 */
typedef enum camcore_device_type {
    /** Built into the machine (non-removable). */
    CAMCORE_DEVICE_TYPE_BUILTIN = 0,
    /** Plugged in (USB or other removable bus), or not known. */
    CAMCORE_DEVICE_TYPE_EXTERNAL = 1,
    /** Software: the synthetic camera, vivid, v4l2loopback. */
    CAMCORE_DEVICE_TYPE_VIRTUAL = 2,
    /** An infrared camera beside a colour one on the same USB device (S44:
     *  a capture node offering only greyscale or depth formats, as
     *  face-login cameras have). Listed after the colour cameras; default
     *  selection, flip, session fallback and "the first camera" never pick
     *  it; an app opens it by its id. \since 0.2 */
    CAMCORE_DEVICE_TYPE_INFRARED = 3
} camcore_device_type;

/**
 * Where a camera faces (S2): from V4L2_CID_CAMERA_ORIENTATION when the
 * driver has it; otherwise a built-in (non-removable) camera is front and
 * a removable one external.
 *
 * \since 0.1
 */
typedef enum camcore_position {
    CAMCORE_POSITION_UNKNOWN = 0,
    CAMCORE_POSITION_FRONT = 1,
    CAMCORE_POSITION_BACK = 2,
    CAMCORE_POSITION_EXTERNAL = 3
} camcore_position;

/** Device flags. \since 0.1 */
#define CAMCORE_DEVICE_MULTIPLANAR 0x1u /**< The node uses the multi-planar API. */
#define CAMCORE_DEVICE_SYNTHETIC   0x2u /**< The built-in synthetic camera. */
/**
 * The node exists but cannot be opened (see unavailable_reason); opening gives
 * CAMCORE_E_ACCESS or _BUSY.
 *
 * \since 0.1
 */
#define CAMCORE_DEVICE_UNAVAILABLE 0x4u
/**
 * Not a camera of its own (S40): a capture node of a media pipeline
 * (V4L2_CAP_IO_MC: MIPI sensors behind Intel IPU3/IPU6, Raspberry Pi,
 * Rockchip boards; the kernel's vimc), whose format is set through the
 * media controller. Listed only by camcore_manager_list_devices_with()
 * with CAMCORE_LIST_HIDDEN, always together with CAMCORE_DEVICE_UNAVAILABLE
 * and the reason in unavailable_reason; opening it gives
 * CAMCORE_E_NOT_SUPPORTED. camcore never sets its format nor streams it.
 *
 * \since 0.2
 */
#define CAMCORE_DEVICE_HIDDEN      0x8u

/** One camera (S2). All strings are owned by the list that holds it. \since 0.1 */
typedef struct camcore_device_info {
    /**
     * Stable unique id: survives re-plugging into the same port and
     * renumbering of /dev/videoN. Built from udev's ID_SERIAL or ID_PATH
     * and the capture-node index, never from N alone. Pass it to
     * camcore_capturer_open().
     */
    const char *id;
    /** Display name (V4L2 card name). */
    const char *name;
    /** Device node, e.g. "/dev/video0"; "synthetic" for the synthetic camera. */
    const char *node;
    /** V4L2 bus_info, e.g. "usb-0000:00:14.0-1" or "platform:vivid-000". */
    const char *bus_info;
    /** V4L2 driver name, e.g. "uvcvideo", "vivid", "camcore". */
    const char *driver;
    /** USB vendor id, or 0 where unknown. */
    uint16_t usb_vendor_id;
    /** USB product id, or 0 where unknown. */
    uint16_t usb_product_id;
    /** CAMCORE_DEVICE_* bits. */
    uint32_t flags;
    /** V4L2 device_caps of the node (V4L2_CAP_*); 0 for synthetic. */
    uint32_t device_caps;
    /** A camcore_device_type value. */
    int32_t type;
    /** A camcore_position value. */
    int32_t position;
    /**
     * Why the device cannot be used (CAMCORE_DEVICE_UNAVAILABLE), e.g.
     * "open /dev/video0: Permission denied"; "" otherwise. Such a device
     * is listed so the app can tell the user, instead of silently missing.
     */
    const char *unavailable_reason;
    /** The backend (S32): "v4l2", "pipewire" or "synthetic"; the id starts with it and ':'. */
    const char *backend;
    /**
     * For a PipeWire camera that wraps a V4L2 device (object.path
     * "v4l2:/dev/videoN"): that device's V4L2 id, to match the two (S32);
     * "" otherwise.
     */
    const char *v4l2_id;
} camcore_device_info;

/**
 * More of one device's description: what was added after 0.1, which
 * camcore_device_info (an array entry, so of one fixed size) cannot take.
 * Reached as camcore_device_list.details[i] for devices[i], in the list's
 * one allocation. Grows at the end only: read a field only when
 * struct_size covers it.
 * \since 0.2
 */
typedef struct camcore_device_details {
    /** sizeof the library's camcore_device_details. */
    uint32_t struct_size;
    /** Number of strings in other_ids. */
    uint32_t other_id_count;
    /**
     * The ids this camera has in the other backends (S42), so an app can
     * match them: what the entry reaches the camera through (a PipeWire
     * node's V4L2 device or libcamera camera, a libcamera UVC camera's V4L2
     * device), and the entries of other backends in use that the listing
     * folded into this one (a camera several backends reach is listed
     * once: as the V4L2 device for a UVC camera, the libcamera camera for a
     * media-pipeline one). other_id_count strings, then NULL; never NULL.
     */
    const char *const *other_ids;
    /**
     * How far the sensor is mounted rotated, clockwise, in degrees (S45:
     * V4L2_CID_CAMERA_SENSOR_ROTATION, libcamera's Rotation property): 0,
     * 90, 180 or 270; turn the picture as much the other way to show it
     * upright. -1 when the camera does not say. \since 0.2
     */
    int32_t rotation;
} camcore_device_details;

/** A device list: one allocation, freed with camcore_device_list_free(). \since 0.1 */
typedef struct camcore_device_list {
    /** Number of entries in devices. */
    size_t count;
    /** count entries; real cameras first in node order, then synthetic. */
    camcore_device_info *devices;
    /**
     * count pointers, details[i] describing devices[i] further (\since 0.2:
     * appended; a library of 0.1 has no such field, so build against the
     * minor you run with, as the ABI policy says).
     */
    const camcore_device_details *const *details;
} camcore_device_list;

/**
 * Lists the capture devices present now (S1–S4).
 *
 * Only V4L2 nodes whose device_caps have VIDEO_CAPTURE or
 * VIDEO_CAPTURE_MPLANE and that enumerate at least one pixel format are
 * listed: metadata, output, memory-to-memory, touch, radio, VBI and SDR
 * nodes never are, nor the capture nodes of a media pipeline (S40,
 * CAMCORE_DEVICE_HIDDEN). Each node is opened just long enough for its
 * queries; nothing streams (S3).
 *
 * \param manager the manager.
 * \param out     receives the list (possibly with count 0), or NULL on
 *                failure. Free with camcore_device_list_free().
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG, CAMCORE_E_NO_MEMORY.
 * \threadsafety Safe from any thread.
 * \since 0.1
 */
int camcore_manager_list_devices(camcore_manager *manager, camcore_device_list **out);

/** Listing flags of camcore_manager_list_devices_with(). \since 0.2 */
#define CAMCORE_LIST_HIDDEN 0x1u /**< also the capture nodes that are no cameras (CAMCORE_DEVICE_HIDDEN), after the cameras */

/**
 * camcore_manager_list_devices(), and with CAMCORE_LIST_HIDDEN also the
 * capture nodes camcore does not list as cameras, after the cameras, each
 * flagged CAMCORE_DEVICE_HIDDEN | CAMCORE_DEVICE_UNAVAILABLE with the
 * reason in unavailable_reason ("part of a media pipeline ...: use the
 * libcamera backend", S40): for a tool or a support page that must explain
 * why a camera the system shows is not offered.
 *
 * \param manager the manager.
 * \param flags   0 or CAMCORE_LIST_HIDDEN; other bits are refused
 *                (CAMCORE_E_INVALID_ARG).
 * \param out     as camcore_manager_list_devices().
 * \returns as camcore_manager_list_devices().
 * \threadsafety Safe from any thread.
 * \since 0.2
 */
int camcore_manager_list_devices_with(camcore_manager *manager, uint32_t flags, camcore_device_list **out);

/**
 * Frees a device list and all its strings.
 *
 * \param list the list; NULL is ignored.
 * \threadsafety Safe from any thread.
 * \since 0.1
 */
void camcore_device_list_free(camcore_device_list *list);

/**
 * Hot-plug callbacks of a manager (S24: cameras plugged in or removed,
 * from libudev's monitor). Every pointer may be NULL.
 * Copied at camcore_manager_set_hotplug_callbacks().
 *
 * \since 0.1
 */
typedef struct camcore_hotplug_callbacks {
    /** sizeof(camcore_hotplug_callbacks). */
    uint32_t struct_size;
    /** Passed first to every callback. */
    void *user_data;
    /** A capture device appeared: only nodes camcore_manager_list_devices()
     *  would list (S1: video capture, not metadata or output). Valid during the call. */
    void (*on_connected)(void *user_data, const camcore_device_info *device);
    /** A capture device went away; the info is what was known of it. */
    void (*on_disconnected)(void *user_data, const camcore_device_info *device);
    /**
     * The camera permission changed (S35): state is a camcore_permission,
     * detail says why (UTF-8, valid during the call). Runs on camcore's
     * portal thread. A grant is followed by on_connected for each camera
     * it lets in. Added in 0.1 after on_disconnected: a struct_size that
     * ends before it means NULL.
     */
    void (*on_permission)(void *user_data, int32_t state, const char *detail);
} camcore_hotplug_callbacks;

/**
 * Reports capture devices that are plugged in or removed from now on,
 * from libudev's monitor on camcore's own hot-plug thread (the app pumps
 * nothing). NULL stops the reports; after that returns no callback runs.
 * Sessions hear of the same changes through their device callbacks, on
 * their camera queue.
 *
 * \param manager the manager.
 * \param callbacks the callbacks (copied), or NULL to stop the reports.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG, CAMCORE_E_IO (no udev monitor).
 * \threadsafety Safe from any thread, but not from inside this manager's
 *               hot-plug callbacks (it waits for a running hot-plug callback to
 *               return, so there it would wait for itself).
 * \since 0.1
 */
int camcore_manager_set_hotplug_callbacks(camcore_manager *manager,
                                          const camcore_hotplug_callbacks *callbacks);

/**
 * The camera permission now (S35): the camera portal's answer, or
 * CAMCORE_PERMISSION_GRANTED when no portal is in use. Asks nothing.
 *
 * \param manager the manager.
 * \param state   receives a camcore_permission value.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG (NULL or stale manager, state
 *          NULL), CAMCORE_E_STATE (manager being freed).
 * \threadsafety Safe from any thread, also from a hot-plug callback.
 * \since 0.1
 */
int camcore_manager_get_camera_permission(camcore_manager *manager, int32_t *state);

/**
 * Asks the camera portal for camera access (S35: AccessCamera on
 * org.freedesktop.portal.Camera) unless a request is pending or access
 * is granted; after a denial it asks again (the portal may answer from
 * its permission store without a dialog). Then waits up to timeout_ms
 * for the answer. Listing or opening a PipeWire camera through the portal
 * also starts a request, without waiting. Changes are reported to
 * on_permission of the hot-plug callbacks.
 *
 * \param manager    the manager.
 * \param timeout_ms how long to wait: < 0 until answered, 0 not at all
 *                   (returns CAMCORE_OK with state PENDING), > 0 at most
 *                   that many milliseconds.
 * \param state      receives the camcore_permission then; may be NULL.
 * \returns CAMCORE_OK (granted, or no portal in use; or pending with
 *          timeout_ms 0), CAMCORE_E_ACCESS (denied, or no portal to ask:
 *          camcore_last_error_message() says which), CAMCORE_E_TIMEOUT
 *          (no answer within timeout_ms > 0; the request stays pending),
 *          CAMCORE_E_INVALID_ARG, CAMCORE_E_STATE, CAMCORE_E_IO.
 * \threadsafety Safe from any thread; it blocks, so not from a hot-plug
 *               callback with a timeout (CAMCORE_E_WOULD_DEADLOCK: the
 *               answer is delivered after that callback returns).
 * \since 0.1
 */
int camcore_manager_request_camera_access(camcore_manager *manager, int32_t timeout_ms, int32_t *state);

/**
 * Whether a camera is there now, without asking for the camera permission
 * (S49): for an app that wants to know before it asks (and shows no
 * camera button when there is none). Through the camera portal (S35: in a
 * sandbox, or with portal ALWAYS) the portal's IsCameraPresent, which
 * needs no permission and shows no prompt (AccessCamera is never called,
 * the permission state is untouched); elsewhere whether the listing has a
 * camera that is not synthetic. Starts no stream.
 *
 * \param manager the manager.
 * \returns 1 (a camera is present), 0 (none), CAMCORE_E_INVALID_ARG,
 *          CAMCORE_E_IO (the portal did not answer within 10 s).
 * \threadsafety Safe from any thread; it blocks (a D-Bus call, or a
 *               listing), so better not from a hot-plug callback.
 * \since 0.2
 */
int camcore_manager_camera_present(camcore_manager *manager);

/** A process that holds a camera's device node open (S46). \since 0.2 */
typedef struct camcore_holder {
    /** Its process id. */
    int32_t pid;
    /** Its command name (/proc/PID/comm), NUL-terminated. */
    char command[64];
} camcore_holder;

/**
 * The processes that hold a camera's device node open (S46), found as
 * fuser(1) does: every /proc/PID/fd whose target is the same character
 * device, this process included, within 300 ms. Where /proc does not let
 * this process look (another user's processes, without privilege), they
 * are counted in unseen. The same search names the holders in the message
 * of CAMCORE_E_BUSY when a capture cannot start ("device busy: /dev/video0
 * (...) is in use, held by v4l2-ctl (pid 1234) (...)").
 *
 * \param manager   the manager.
 * \param device_id the camera's id.
 * \param holders   receives up to max holders, in pid order; may be NULL
 *                  when max is 0.
 * \param max       entries at holders.
 * \param found     receives how many holders there are (may exceed max);
 *                  may be NULL.
 * \param unseen    receives how many processes could not be looked at
 *                  (no permission, or the time ran out); may be NULL.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG (NULL manager or id, holders
 *          NULL with max > 0), CAMCORE_E_NO_DEVICE (no such camera now),
 *          CAMCORE_E_NOT_SUPPORTED (a camera without a device node of its
 *          own: libcamera's, a PipeWire node, the synthetic one).
 * \threadsafety Safe from any thread.
 * \since 0.2
 */
int camcore_manager_get_holders(camcore_manager *manager, const char *device_id, camcore_holder *holders,
                                size_t max, size_t *found, uint32_t *unseen);

/* ------------------------------------------------------------------ */
/* Formats (S5)                                                        */
/* ------------------------------------------------------------------ */

/** How a format's sizes or rates are given (V4L2 ENUM_FRAMESIZES/INTERVALS). \since 0.1 */
typedef enum camcore_range_kind {
    /** A single size, or a list of rates. */
    CAMCORE_RANGE_DISCRETE = 0,
    /** A range with a step. */
    CAMCORE_RANGE_STEPWISE = 1,
    /** A range with any value (step 1). */
    CAMCORE_RANGE_CONTINUOUS = 2,
    /** The driver does not enumerate it (rates only). */
    CAMCORE_RANGE_UNKNOWN = 3
} camcore_range_kind;

/** Format flags. \since 0.1 */
#define CAMCORE_FORMAT_COMPRESSED 0x1u /**< V4L2_FMT_FLAG_COMPRESSED (MJPEG, H.264, ...). */
#define CAMCORE_FORMAT_EMULATED   0x2u /**< V4L2_FMT_FLAG_EMULATED. */

/**
 * One pixel format at one frame size (or size range) with its frame rates.
 *
 * A format with discrete sizes gives one entry per size. Stepwise and
 * continuous sizes give one entry holding the range; its rates are those
 * the driver gives at the largest size.
 *
 * \since 0.1
 */
typedef struct camcore_format {
    /** Pixel format FourCC (V4L2_PIX_FMT_*). */
    uint32_t fourcc;
    /** CAMCORE_FORMAT_* bits. */
    uint32_t flags;
    /** The driver's description, e.g. "YUYV 4:2:2". NUL-terminated. */
    char description[32];

    /** A camcore_range_kind for the size. */
    int32_t size_kind;
    /** Discrete: the width. Ranges: the largest width. Pixels. */
    uint32_t width;
    /** Discrete: the height. Ranges: the largest height. Pixels. */
    uint32_t height;
    /** Ranges: the smallest width; discrete: width. */
    uint32_t min_width;
    /** Ranges: the largest width; discrete: width. */
    uint32_t max_width;
    /** Ranges: the width step; discrete: 0. */
    uint32_t step_width;
    /** Ranges: the smallest height; discrete: height. */
    uint32_t min_height;
    /** Ranges: the largest height; discrete: height. */
    uint32_t max_height;
    /** Ranges: the height step; discrete: 0. */
    uint32_t step_height;

    /** A camcore_range_kind for the rates. */
    int32_t rate_kind;
    /** Discrete: the rates, highest first, in fps. Owned by the list. */
    const camcore_fraction *rates;
    /** Discrete: entries in rates; other kinds: 0. */
    size_t rate_count;
    /** All kinds but unknown: lowest and highest rate, fps. */
    camcore_fraction min_fps;
    /** All kinds but unknown: the highest rate, fps. */
    camcore_fraction max_fps;
    /** Stepwise: the step of the frame interval, in seconds; else 0/0. */
    camcore_fraction interval_step;
} camcore_format;

/** A format list: one allocation, freed with camcore_format_list_free(). \since 0.1 */
typedef struct camcore_format_list {
    /** Number of entries in formats. */
    size_t count;
    /** count entries in the driver's VIDIOC_ENUM_FMT order, then size order. */
    camcore_format *formats;
} camcore_format_list;

/**
 * Lists the formats of one device (S5) with VIDIOC_ENUM_FMT,
 * VIDIOC_ENUM_FRAMESIZES and VIDIOC_ENUM_FRAMEINTERVALS. Only the
 * driver's own formats are listed (no libv4l emulated formats).
 *
 * \param manager   the manager.
 * \param device_id an id from camcore_manager_list_devices().
 * \param out       receives the list, or NULL on failure. Free with
 *                  camcore_format_list_free().
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG, CAMCORE_E_NO_DEVICE (unknown
 *          id or the device went away), CAMCORE_E_ACCESS, CAMCORE_E_BUSY,
 *          CAMCORE_E_IO, CAMCORE_E_NO_MEMORY.
 * \threadsafety Safe from any thread.
 * \since 0.1
 */
int camcore_manager_list_formats(camcore_manager *manager, const char *device_id,
                                 camcore_format_list **out);

/**
 * Frees a format list.
 *
 * \param list the list; NULL is ignored.
 * \threadsafety Safe from any thread.
 * \since 0.1
 */
void camcore_format_list_free(camcore_format_list *list);

/* ------------------------------------------------------------------ */
/* Pixel formats                                                       */
/* ------------------------------------------------------------------ */

/*
 * camcore's table of pixel formats, keyed by FourCC: names, planes, their
 * geometry and chroma subsampling, and the size of a tightly packed frame.
 * Frames are split into planes by the same table (S22).
 *
 * Geometry is given per plane as groups of pixels: a row of plane p holds
 * ceil(width / plane_group_pixels[p]) groups of plane_group_bytes[p] bytes,
 * and the plane has ceil(height / plane_vertical_subsampling[p]) rows.
 * YUYV is one plane of 4-byte groups of 2 pixels; I420 is Y (1 byte per
 * pixel), then U and V (1 byte per 2x2 pixels); NV12 is Y, then
 * interleaved CbCr (2 bytes per 2x2 pixels). These are the tight sizes:
 * captured frames may pad their rows, so step rows by camcore_plane.stride.
 */

/** One pixel format of camcore's table. Filled by camcore_pixel_format_get_info(). \since 0.1 */
typedef struct camcore_pixel_format_info {
    /** sizeof(camcore_pixel_format_info). */
    uint32_t struct_size;
    /** The FourCC looked up. */
    uint32_t fourcc;
    /**
     * The name as v4l2-ctl prints it: the four characters, "-BE" appended
     * when bit 31 (V4L2's big-endian flag) is set: "YUYV", "Y16 -BE".
     * NUL-terminated.
     */
    char name[8];
    /** The kernel's description, e.g. "Planar YUV 4:2:0". NUL-terminated. */
    char description[32];
    /** CAMCORE_FORMAT_COMPRESSED for MJPEG, JPEG, H.264, HEVC; else 0. */
    uint32_t flags;
    /** Logical planes, as frames carry them: 1 (packed, compressed), 2 (Y, CbCr) or 3 (Y, Cb, Cr). */
    uint32_t plane_count;
    /** V4L2 memory planes: 1 for formats in one buffer (YU12, NV12), plane_count for YM12, NM12. */
    uint32_t memory_plane_count;
    /** Bytes per pixel of plane 0 (YUYV 2, I420 1, RGB3 3); 0 for compressed formats. */
    uint32_t bytes_per_pixel;
    /**
     * Chroma subsampling, horizontal and vertical: 2 and 2 for 4:2:0, 2 and
     * 1 for 4:2:2, 1 and 1 for 4:4:4 and formats without chroma (RGB, grey,
     * Bayer); 0 for compressed formats.
     */
    uint32_t horizontal_subsampling;
    /** Chroma subsampling, vertical (see horizontal_subsampling). */
    uint32_t vertical_subsampling;
    /** Per plane: bytes of one group of pixels in a row; 0 past plane_count and for compressed formats. */
    uint32_t plane_group_bytes[3];
    /** Per plane: pixels of the image's width one group covers; 0 past plane_count. */
    uint32_t plane_group_pixels[3];
    /** Per plane: image rows per row of the plane (2 for 4:2:0 chroma); 0 past plane_count. */
    uint32_t plane_vertical_subsampling[3];
} camcore_pixel_format_info;

/**
 * Looks a pixel format up in camcore's table.
 *
 * For a FourCC camcore does not know, out->fourcc and out->name are still
 * filled (the name needs no table) and every other field is 0.
 *
 * \param fourcc the code (V4L2_PIX_FMT_*, CAMCORE_FOURCC_*).
 * \param out    filled; set out->struct_size = sizeof *out first.
 * \returns CAMCORE_OK; CAMCORE_E_INVALID_ARG (out NULL or struct_size too
 *          small); CAMCORE_E_NOT_SUPPORTED (the FourCC is not in the table).
 * \threadsafety Safe from any thread.
 * \since 0.1
 * \sa camcore_pixel_format_plane_size, camcore_pixel_format_frame_size
 */
int camcore_pixel_format_get_info(uint32_t fourcc, camcore_pixel_format_info *out);

/**
 * The tight size of one plane of a raw format at a given image size: bytes
 * of one row without padding, and rows.
 *
 * \param fourcc    the code.
 * \param width     image width in pixels (0 gives 0 bytes).
 * \param height    image height in pixels (0 gives 0 rows).
 * \param plane     the plane, 0 to plane_count - 1.
 * \param row_bytes receives the bytes of one row; may be NULL.
 * \param rows      receives the rows of the plane; may be NULL.
 * \returns CAMCORE_OK; CAMCORE_E_INVALID_ARG (plane past the format's
 *          planes, or a size whose bytes do not fit in 32 bits);
 *          CAMCORE_E_NOT_SUPPORTED (the FourCC is not in the table, or it is
 *          a compressed format, whose planes have no fixed size). On failure
 *          the outputs are set to 0.
 * \threadsafety Safe from any thread.
 * \since 0.1
 * \sa camcore_pixel_format_get_info
 */
int camcore_pixel_format_plane_size(uint32_t fourcc, uint32_t width, uint32_t height, uint32_t plane,
                                    uint32_t *row_bytes, uint32_t *rows);

/**
 * The bytes of one tightly packed frame of a raw format: its planes one
 * after the other, rows without padding (I420 640x480: 460800).
 *
 * \param fourcc the code.
 * \param width  image width in pixels.
 * \param height image height in pixels.
 * \param bytes  receives the size in bytes; set to 0 on failure.
 * \returns CAMCORE_OK; CAMCORE_E_INVALID_ARG (bytes NULL, or a size that
 *          does not fit in 32 bits); CAMCORE_E_NOT_SUPPORTED (the FourCC is
 *          not in the table, or it is compressed).
 * \threadsafety Safe from any thread.
 * \since 0.1
 * \sa camcore_pixel_format_plane_size
 */
int camcore_pixel_format_frame_size(uint32_t fourcc, uint32_t width, uint32_t height, uint32_t *bytes);

/* ------------------------------------------------------------------ */
/* Negotiation (S6, S7)                                                */
/* ------------------------------------------------------------------ */

/** What an app would like to capture. Fill with camcore_preference_init(). \since 0.1 */
typedef struct camcore_preference {
    /** sizeof(camcore_preference). */
    uint32_t struct_size;
    /** Width in pixels. Default 1280. */
    uint32_t width;
    /** Height in pixels. Default 720. */
    uint32_t height;
    /** The lowest accepted rate, fps. Default 15/1. */
    camcore_fraction min_fps;
    /** The highest accepted rate, fps. Default 30/1. */
    camcore_fraction max_fps;
    /** The output format wanted (see camcore_capture_config); default CAMCORE_FOURCC_NATIVE. */
    uint32_t output_fourcc;
} camcore_preference;

/**
 * Fills a preference: 1280x720, 15–30 fps, native output (the default
 * preference of negotiation, S6).
 *
 * \param preference the struct; NULL is ignored.
 * \threadsafety Safe from any thread.
 * \since 0.1
 */
void camcore_preference_init(camcore_preference *preference);

/** Adjustment bits: what differs from what was asked. \since 0.1 */
#define CAMCORE_ADJUSTED_SIZE   0x1u /**< The size is not the one asked for. */
#define CAMCORE_ADJUSTED_RATE   0x2u /**< The rate is outside what was asked. */
#define CAMCORE_ADJUSTED_FORMAT 0x4u /**< The pixel format is not the one asked for. */

/** A capture setting a device can do, as chosen by negotiation. \since 0.1 */
typedef struct camcore_setting {
    /** sizeof(camcore_setting). */
    uint32_t struct_size;
    /** The driver's pixel format to capture. */
    uint32_t fourcc;
    /** Width in pixels. */
    uint32_t width;
    /** Height in pixels. */
    uint32_t height;
    /** Frame rate, fps; 0/0 when the driver does not enumerate rates. */
    camcore_fraction fps;
    /** CAMCORE_ADJUSTED_* bits; 0 means the preference is met exactly ("valid"). */
    uint32_t adjusted;
} camcore_setting;

/**
 * Chooses the setting nearest to a preference (S6): (1) only formats whose
 * rates reach min_fps, if any do; (2) nearest aspect ratio; (3) the
 * smallest size at or above the request, else the largest below; (4) the
 * format needing least work (the output format, then raw, then MJPEG);
 * (5) the highest rate not above max_fps. Deterministic; stepwise and
 * continuous ranges are snapped to their step, never expanded.
 *
 * Pass the result's fourcc, size and fps to camcore_capturer_start(); what
 * the driver then applies is read back by camcore_capturer_get_format().
 *
 * \param manager    the manager.
 * \param device_id  the device.
 * \param preference the wish, or NULL for camcore_preference_init()'s.
 * \param out        filled; set out->struct_size first.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG, CAMCORE_E_NO_DEVICE,
 *          CAMCORE_E_ACCESS, CAMCORE_E_IO, CAMCORE_E_NOT_SUPPORTED (no formats).
 * \threadsafety Safe from any thread.
 * \since 0.1
 */
int camcore_manager_negotiate(camcore_manager *manager, const char *device_id,
                              const camcore_preference *preference, camcore_setting *out);

/**
 * S7 format_for(width, height, fps): the format nearest to width x height
 * among those supporting fps exactly; nearest as camcore_manager_negotiate()
 * rules (2) and (3) say: the closest aspect ratio, then the smallest size
 * at or above the one asked, else the largest below.
 *
 * \param manager the manager.
 * \param device_id the device.
 * \param width the wanted width in pixels.
 * \param height the wanted height in pixels.
 * \param fps the rate the format must support exactly, fps.
 * \param out filled; set out->struct_size first.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG, CAMCORE_E_NO_DEVICE,
 *          CAMCORE_E_NOT_SUPPORTED (no format supports fps), CAMCORE_E_IO.
 * \threadsafety Safe from any thread.
 * \since 0.1
 */
int camcore_manager_format_for(camcore_manager *manager, const char *device_id, uint32_t width,
                               uint32_t height, camcore_fraction fps, camcore_setting *out);

/**
 * S7 max_frame_rate(format, fps): fps itself if the format at this size
 * supports it, else the supported rate closest to it (ask 40 of a 30 fps
 * format: 30).
 *
 * \param manager the manager.
 * \param device_id the device.
 * \param fourcc the pixel format.
 * \param width the frame width in pixels.
 * \param height the frame height in pixels.
 * \param fps the rate wanted, fps.
 * \param out receives the rate, fps.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG, CAMCORE_E_NO_DEVICE,
 *          CAMCORE_E_NOT_SUPPORTED (no such format, or rates unknown), CAMCORE_E_IO.
 * \threadsafety Safe from any thread.
 * \since 0.1
 */
int camcore_manager_max_frame_rate(camcore_manager *manager, const char *device_id, uint32_t fourcc,
                                   uint32_t width, uint32_t height, camcore_fraction fps,
                                   camcore_fraction *out);

/* ------------------------------------------------------------------ */
/* Frames (S22, S23)                                                   */
/* ------------------------------------------------------------------ */

/** Frame flags. \since 0.1 */
#define CAMCORE_FRAME_CORRUPTED 0x1u /**< V4L2_BUF_FLAG_ERROR or a short buffer: do not trust the pixels. */

/** One plane of a frame. \since 0.1 */
typedef struct camcore_plane {
    /** First byte of the plane (after V4L2's data_offset). Borrowed. */
    uint8_t *data;
    /** Bytes from one row to the next (bytesperline); 0 for compressed. */
    uint32_t stride;
    /** Bytes of valid data in this plane. */
    uint32_t length;
} camcore_plane;

/**
 * A captured frame (S22). Borrowed: valid only during the callback that
 * receives it, unless retained with camcore_frame_retain() (S23).
 *
 * Formats stored in one buffer with several logical planes (I420, NV12,
 * ...) are split into their planes here, so planes[1] of an I420 frame is
 * its U plane whatever the driver's memory layout.
 *
 * \since 0.1
 */
typedef struct camcore_frame {
    /** sizeof(camcore_frame) as the library knows it. */
    uint32_t struct_size;
    /** Pixel format FourCC of the data. */
    uint32_t fourcc;
    /** Width in pixels. */
    uint32_t width;
    /** Height in pixels. */
    uint32_t height;
    /** Planes used, 1 to 3. */
    uint32_t plane_count;
    /** CAMCORE_FRAME_* bits. */
    uint32_t flags;
    /** The planes; entries past plane_count are zero. */
    camcore_plane planes[3];
    /** Capture time, CLOCK_MONOTONIC, nanoseconds. */
    uint64_t timestamp_ns;
    /** The driver's sequence number (V4L2 buffer sequence). */
    uint32_t sequence;
    /** Frames the driver dropped just before this one (sequence gap). */
    uint32_t dropped_before;
    /**
     * Per plane (S37): a DMA-BUF fd of the buffer holding it, and the
     * plane's byte offset in that buffer; -1 and 0 unless the capture was
     * started with camcore_capture_config.dmabuf (entries past plane_count
     * are -1). The fd is camcore's: valid as long as the frame (retain it
     * to keep it), never to be closed by the app; dup() it to keep it
     * longer. Planes of a one-buffer format (NV12, I420 on single-planar
     * V4L2) share one fd at different offsets. Added in 0.1 after
     * dropped_before.
     */
    int32_t dmabuf_fd[3];
    /** Per plane (S37): the byte offset of the plane in the DMA-BUF of dmabuf_fd; 0 without one. */
    uint32_t dmabuf_offset[3];
} camcore_frame;

/**
 * Keeps a frame beyond its callback (S23). The frame's buffer is not
 * reused until every retain is matched by camcore_frame_release(). Each
 * retained frame takes one buffer away from the capture queue; when all
 * are retained the driver drops frames (counted in the statistics) rather
 * than camcore blocking.
 *
 * Each call returns its own pointer (a copy of the frame description
 * pointing at the same pixels), to be released exactly once; the borrowed
 * frame passed in stays borrowed. Retaining a retained frame is allowed
 * and gives another pointer with its own release.
 *
 * camcore recognises its own frame pointers by address in a table it
 * owns and reads nothing through a pointer before it knows it is live, so
 * a borrowed pointer kept after its callback, a released one, or a
 * camcore_frame the app built itself (for camcore_session_push_frame())
 * is refused without a crash. (A borrowed pointer kept past its callback
 * names a box camcore reuses round-robin for later frames; if that box is
 * in a callback again at the time, the retain keeps that later frame. A
 * released retained or acquired pointer likewise names a box a later
 * retained or acquired frame may get: until then it is refused, afterwards
 * it is that frame, and releasing it releases that frame. Do not rely on
 * stale pointers.)
 *
 * \param frame a frame received in a frame callback (call this during the
 *              callback), or a retained frame.
 * \returns a retained frame to release with camcore_frame_release(); NULL,
 *          with camcore_last_error_message() saying why (the
 *          CAMCORE_E_INVALID_ARG cases): frame is NULL, not a frame from
 *          camcore (one the app built), a borrowed frame whose callback has
 *          returned, a released frame, or a frame the app pushed (custom
 *          source, hook replacement), whose memory camcore does not own;
 *          also when 16384 retained frames are held already.
 * \threadsafety Safe from any thread.
 * \since 0.1
 */
const camcore_frame *camcore_frame_retain(const camcore_frame *frame);

/**
 * Releases a retained frame. The pointer must not be used afterwards.
 * It may be called after the capturer was stopped or closed.
 *
 * \param frame a pointer returned by camcore_frame_retain(); NULL is
 *              ignored. Borrowed frames, frames released already (until
 *              camcore hands the same address out for a later frame, see
 *              camcore_frame_retain()) and pointers camcore did not hand out
 *              (an app-built frame) are ignored too and set the thread's last
 *              error message (camcore_last_error_message()); nothing is read
 *              through such a pointer.
 * \threadsafety Safe from any thread.
 * \since 0.1
 */
void camcore_frame_release(const camcore_frame *frame);

/**
 * Converts one frame into another pixel format, and optionally another
 * size, in a buffer of the caller's: e.g. a YUYV, I420, NV12 or MJPEG
 * frame to RGB24 for a snapshot. The conversion is the one an output
 * format does (see camcore_capture_config.output_fourcc: libyuv, BT.601
 * limited range; MJPEG decoded with TurboJPEG), and scaling follows the
 * rules of camcore_capture_config.output_width. The planes are written
 * tightly packed one after the other, as camcore_pixel_format_plane_size()
 * gives them (I420: Y, then U, then V; RGB24: width * 3 bytes per row).
 *
 * Each call sets up its converter and frees it again: for a snapshot or
 * an occasional frame. To convert every frame of a stream, capture with
 * camcore_capture_config.output_fourcc instead, which keeps its converter.
 *
 * \param frame  a frame received in a frame callback (during the
 *               callback), an acquired or retained frame, or a frame the
 *               app describes itself (checked as camcore_session_push_frame()
 *               checks one).
 * \param fourcc the output format: CAMCORE_FOURCC_I420, _NV12, _YUYV,
 *               _RGB24, _BGR24 or _RGBA.
 * \param width  the output width in pixels, or 0 (with height 0) for the
 *               frame's own size.
 * \param height the output height in pixels, or 0 (with width 0).
 * \param buffer receives the converted frame; owned by the caller.
 * \param size   bytes in buffer: at least what
 *               camcore_pixel_format_frame_size(fourcc, width, height)
 *               gives (RGB24 640x480: 921600).
 * \returns CAMCORE_OK; CAMCORE_E_INVALID_ARG (frame or buffer NULL, a
 *          stale or released frame, a frame whose planes do not hold its
 *          format and size, only one side of the size 0, an output size
 *          the output-size rules refuse, size too small, or pixels that
 *          cannot be decoded such as a truncated JPEG: the message says
 *          which); CAMCORE_E_NOT_SUPPORTED (no conversion from the frame's
 *          format to fourcc); CAMCORE_E_NO_MEMORY.
 * \threadsafety Safe from any thread, including frame callbacks; calls do
 *               not share state.
 * \since 0.2
 * \sa camcore_pixel_format_frame_size, camcore_capture_config
 */
int camcore_frame_convert(const camcore_frame *frame, uint32_t fourcc, uint32_t width, uint32_t height,
                          void *buffer, size_t size);

/* ------------------------------------------------------------------ */
/* Capturer (S16, S17, S26, S28)                                       */
/* ------------------------------------------------------------------ */

/** One open camera device. Opaque. \since 0.1 */
typedef struct camcore_capturer camcore_capturer;

/**
 * Frame delivery callbacks. Every pointer may be NULL.
 * Copied at camcore_capturer_start().
 *
 * \since 0.1
 */
typedef struct camcore_frame_callbacks {
    /** sizeof(camcore_frame_callbacks). */
    uint32_t struct_size;
    /** Passed first to every callback. */
    void *user_data;
    /**
     * Called for each frame, on the capturer's capture thread. The frame
     * is borrowed for the call (S23).
     */
    void (*on_frame)(void *user_data, const camcore_frame *frame);
    /**
     * Called once when streaming ends on its own because of an error
     * (the device vanished, EIO, ...), on the capture thread, with the
     * status and a message. No frame follows it.
     */
    void (*on_error)(void *user_data, int status, const char *message);
    /**
     * Called on the capture thread when frames stop and when they come
     * back; this call itself touches nothing (S48's restart of a stall that
     * lasts camcore_capture_config.stall_restart_ms is told by on_restart;
     * a camera that recovers
     * goes on). `stalled` is 1 when no frame came for longer than
     * max(1 s, 5 frame intervals of the applied rate) — told within about
     * a second after that, and counted in camcore_capture_stats.stalls —
     * and 0 just before the next frame is delivered. `since_ns` is, in both calls, the
     * CLOCK_MONOTONIC time (ns) of the last frame before the stall (of the
     * start, if none came yet). The check costs nothing per frame: it runs
     * when the capture thread's wait ends without a frame.
     * Added in 0.1: a struct_size that ends before it means NULL.
     */
    void (*on_stall)(void *user_data, int stalled, uint64_t since_ns);
    /**
     * S48: a stalled stream is restarted (camcore_capture_config
     * .stall_restart_ms): called on the capture thread with `restarted` 0
     * just before the stream goes off and on again, and 1 once it is on
     * again (frames may follow; on_stall(0) tells the first), `attempt`
     * 1, 2, ... since the last frame. Counted in
     * camcore_capture_stats.restarts. \since 0.2: a struct_size that ends
     * before it means NULL.
     */
    void (*on_restart)(void *user_data, int restarted, uint32_t attempt);
} camcore_frame_callbacks;

/**
 * Fills a callbacks struct: struct_size set, all else NULL.
 *
 * \param callbacks the struct; NULL is ignored.
 * \threadsafety Safe from any thread.
 * \since 0.1
 */
void camcore_frame_callbacks_init(camcore_frame_callbacks *callbacks);

/** Capture settings. Fill with camcore_capture_config_init(). \since 0.1 */
typedef struct camcore_capture_config {
    /** sizeof(camcore_capture_config). */
    uint32_t struct_size;
    /** Pixel format FourCC to capture, e.g. CAMCORE_FOURCC_YUYV. */
    uint32_t fourcc;
    /** Width in pixels. Default 640. */
    uint32_t width;
    /** Height in pixels. Default 480. */
    uint32_t height;
    /**
     * Frame rate in fps, a fraction with both parts non-zero. Default
     * 30/1. 0/0 keeps the driver's rate; any other fraction with a zero
     * part (0/1, 30/0) is refused with CAMCORE_E_INVALID_ARG.
     */
    camcore_fraction fps;
    /** mmap buffers to request, 2..32. Default 4. */
    uint32_t buffer_count;
    /**
     * The pixel format frames are delivered in (S8): CAMCORE_FOURCC_I420,
     * _NV12, _YUYV, _RGB24, _BGR24, _RGBA, or CAMCORE_FOURCC_NATIVE (the
     * default) for the driver's buffers as they are, zero-copy. Conversion
     * (and MJPEG decoding) uses libyuv and libjpeg-turbo, BT.601 limited
     * range, on the capture thread, into camcore's own buffers (one per
     * capture buffer; the driver's buffer is requeued at once). YUV output
     * decoded from MJPEG keeps the JPEG's full-range (JFIF) values, as
     * libyuv's MJPGToI420 does; RGB output from MJPEG uses the JPEG colour
     * formula. A frame that cannot be converted (corrupt or truncated JPEG)
     * is dropped and counted in frames_corrupted.
     * Added in 0.1: a struct_size that ends before it means native.
     */
    uint32_t output_fourcc;
    /**
     * 1: export every capture buffer as DMA-BUF (S37, VIDIOC_EXPBUF) so each
     * plane of a frame carries a dmabuf fd and offset (camcore_frame
     * dmabuf_fd, dmabuf_offset) for zero-copy import by a GPU or encoder.
     * V4L2 devices and native output only: with a converting output_fourcc,
     * or on the synthetic or a PipeWire camera, starting fails with
     * CAMCORE_E_NOT_SUPPORTED; so does a driver without VIDIOC_EXPBUF. The
     * environment variable CAMCORE_CAPTURE_DMABUF=1 (or true, yes, on) turns
     * it on too for capturers, and the refusal then names the variable.
     * Sessions refuse 1 (camcore_session_start()). Default 0. Added in 0.1
     * after output_fourcc: a struct_size that ends before it means 0.
     */
    int32_t dmabuf;
    /**
     * The size frames are delivered at, in pixels (S38); 0x0 (the default)
     * keeps the negotiated size. camcore scales with libyuv (box filter;
     * libyuv uses bilinear on an axis shrunk by less than 2) to exactly this
     * size — stretched, never cropped, when the aspect ratio differs — on
     * the capture thread, into its own buffers. MJPEG is decoded at the
     * smallest DCT scale of 1/2, 1/4, 1/8 (TurboJPEG) that is at or above
     * this size in both dimensions, and only the rest is scaled.
     * Delivered frames (width, height, plane strides and lengths) and
     * camcore_capturer_get_format() (width, height, strides, frame_bytes)
     * describe the output size; the device's format list and negotiation
     * stay the camera's. A scaled frame has no
     * dmabuf. Needs output_fourcc (also when it is the driver's own
     * format). Refused with CAMCORE_E_INVALID_ARG (and a message in
     * camcore_last_error_message()): one side 0, no output_fourcc, a side
     * above 16384 or more than 4 times the captured side, or an odd
     * width for I420, NV12 and YUYV (odd height for I420 and NV12).
     * Added in 0.1 after dmabuf: a struct_size that ends before it means 0x0.
     */
    uint32_t output_width;
    /** The output height in pixels (see output_width); 0 with output_width 0. */
    uint32_t output_height;
    /**
     * S48: a stream that stalls this long (ms: no frame) is restarted,
     * stream off and on again, on the capture thread (on_restart tells
     * it); 0 never restarts. Up to 600000. camcore_capture_config_init()
     * sets 3000. \since 0.2: a struct_size that ends before it means 3000.
     */
    uint32_t stall_restart_ms;
    /**
     * S48: restarts tried before a stall that goes on ends the stream with
     * CAMCORE_E_TIMEOUT (on_error); a frame resets the count. 0...100;
     * camcore_capture_config_init() sets 3. \since 0.2: a struct_size that
     * ends before it means 3.
     */
    uint32_t stall_restart_tries;
    /**
     * S45: turn the converted output by 0, 90, 180 or 270 degrees
     * clockwise (libyuv, after conversion and output_width/height), e.g.
     * by camcore_device_details.rotation to show a sensor mounted rotated
     * upright; 90 and 270 swap the delivered width and height (and
     * camcore_capturer_get_format()'s). Needs output_fourcc: I420, NV12,
     * RGB24, BGR24 or RGBA (YUYV cannot be turned: CAMCORE_E_INVALID_ARG, as
     * is another angle). Default 0. \since 0.2: a
     * struct_size that ends before it means 0.
     */
    uint32_t output_rotation;
} camcore_capture_config;

/**
 * Fills a capture config: YUYV 640x480 at 30/1 fps, 4 buffers, native output.
 *
 * \param config the struct; NULL is ignored.
 * \threadsafety Safe from any thread.
 * \since 0.1
 */
void camcore_capture_config_init(camcore_capture_config *config);

/** What a started capturer really uses (read back from the driver). \since 0.1 */
typedef struct camcore_capture_format {
    /** sizeof(camcore_capture_format). */
    uint32_t struct_size;
    /** Pixel format FourCC applied by the driver. */
    uint32_t fourcc;
    /**
     * Size in pixels applied by the driver; with an output size (S38,
     * camcore_capture_config.output_width) the size frames are delivered
     * at, like fourcc, strides and frame_bytes (the adjusted bits still
     * compare the driver's size with the request).
     */
    uint32_t width;
    /** Height in pixels, as width says. */
    uint32_t height;
    /** Planes per frame (as in camcore_frame). */
    uint32_t plane_count;
    /** Stride (bytesperline) of each plane in bytes; 0 past plane_count. */
    uint32_t strides[3];
    /** Bytes needed for one whole frame (sizeimage). */
    uint32_t frame_bytes;
    /** Frame rate applied by the driver (VIDIOC_G_PARM), fps. 0/0 if unknown. */
    camcore_fraction fps;
    /** Buffers the driver granted. */
    uint32_t buffer_count;
    /** The driver's pixel format (differs from fourcc when converting). */
    uint32_t source_fourcc;
    /** CAMCORE_ADJUSTED_* bits: how the applied setting differs from the request. */
    uint32_t adjusted;
} camcore_capture_format;

/** Running counters of a capturer. \since 0.1 */
typedef struct camcore_capture_stats {
    /** sizeof(camcore_capture_stats). */
    uint32_t struct_size;
    /** Frames handed to on_frame since the last start. */
    uint64_t frames_delivered;
    /** Frames the driver dropped (sequence gaps) since the last start. */
    uint64_t frames_dropped;
    /** Buffers flagged corrupted since the last start. */
    uint64_t frames_corrupted;
    /** Frame rate measured from the timestamps of the last (up to 32) frames, fps; 0 before two frames. */
    double measured_fps;
    /**
     * Stalls since the last start: times no frame came for longer than
     * max(1 s, 5 frame intervals) (see camcore_frame_callbacks.on_stall).
     * Added in 0.1: a struct_size that ends before it is not written.
     */
    uint64_t stalls;
    /** Stream restarts made because of stalls (S48). \since 0.2: not written for a struct_size that ends before it. */
    uint64_t restarts;
} camcore_capture_stats;

/**
 * Opens a device. Opening queries the device but does not stream.
 *
 * \param manager   the manager the id came from.
 * \param device_id an id from camcore_manager_list_devices().
 * \param out       receives the capturer, or NULL on failure. Close with
 *                  camcore_capturer_close().
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG, CAMCORE_E_NO_DEVICE (unknown
 *          id, or gone), CAMCORE_E_ACCESS, CAMCORE_E_BUSY, CAMCORE_E_IO,
 *          CAMCORE_E_NO_MEMORY.
 * \threadsafety Safe from any thread.
 * \since 0.1
 */
int camcore_capturer_open(camcore_manager *manager, const char *device_id,
                          camcore_capturer **out);

/**
 * Stops (if streaming) and closes a capturer. When it returns, no
 * callback runs again and the device's file descriptor is closed.
 * Retained frames stay valid until released.
 *
 * A waiter on the frame fd (camcore_capturer_get_frame_fd()) in another
 * thread learns of the close: the fd turns readable, and a pull reader
 * blocked in camcore_capturer_acquire_frame() returns CAMCORE_E_STATE
 * ("closed"). When the frame fd was handed out, the fd stays open and
 * readable, and the handle known as closed, until the next call that
 * reaches the handle (a call refused for a NULL argument does not): that
 * call returns CAMCORE_E_STATE ("closed") and the handle is forgotten
 * (later calls: CAMCORE_E_INVALID_ARG); the fd is closed then, or once the
 * last frame acquired from the capturer is released.
 * So an epoll or asyncio loop, which forgets an fd the moment it is
 * closed, still wakes. A second camcore_capturer_close() or
 * camcore_manager_free() also ends it, and at most 16 such closed handles
 * are kept (the oldest is forgotten first).
 *
 * \param capturer the capturer; NULL is ignored.
 * \threadsafety Safe from any thread; it never fails. From inside the
 *               capturer's own callbacks (frame, error, stall, restart,
 *               control change) it returns at once: no other callback starts
 *               (the running one is the last), and streaming stops and the
 *               device closes on a camcore thread right after that callback
 *               returns. (Before 0.2 it did nothing there and set
 *               CAMCORE_E_WOULD_DEADLOCK.)
 * \since 0.1
 */
void camcore_capturer_close(camcore_capturer *capturer);

/**
 * Sets the format and rate and starts streaming (mmap, V4L2 streaming
 * I/O). The rate is set with VIDIOC_S_PARM after VIDIOC_S_FMT and read
 * back; a rate above what the format offers at that size is clamped to the
 * nearest supported one (S7). camcore_capturer_get_format() tells what was
 * applied and, in `adjusted`, what differs from the request.
 *
 * \param capturer  an open, stopped capturer.
 * \param config    settings, or NULL for camcore_capture_config_init()'s.
 * \param callbacks frame and error callbacks; NULL delivers nowhere. Copied.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG (bad struct_size, size outside
 *          1...65536, fps with one zero part, buffer_count outside 2...32),
 *          CAMCORE_E_STATE (already streaming),
 *          CAMCORE_E_INVALID_ARG also for an output size the rules of
 *          camcore_capture_config.output_width refuse (S38),
 *          CAMCORE_E_NOT_SUPPORTED (the driver has no such pixel format, or
 *          no conversion to output_fourcc),
 *          CAMCORE_E_BUSY, CAMCORE_E_NO_DEVICE, CAMCORE_E_IO,
 *          CAMCORE_E_NO_MEMORY, CAMCORE_E_WOULD_DEADLOCK.
 * \threadsafety Safe from any thread. From inside the capturer's own frame, stall or
 *               error callback it returns CAMCORE_E_WOULD_DEADLOCK.
 * \since 0.1
 */
int camcore_capturer_start(camcore_capturer *capturer, const camcore_capture_config *config,
                           const camcore_frame_callbacks *callbacks);

/** The smallest queue depth camcore_capturer_start_pull() accepts (frames kept ready). \since 0.1 */
#define CAMCORE_PULL_DEPTH_MIN 1
/** The largest queue depth camcore_capturer_start_pull() accepts. \since 0.1 */
#define CAMCORE_PULL_DEPTH_MAX 8

/**
 * Starts streaming in pull mode (S36): instead of calling back, camcore
 * keeps the newest frames in a queue of queue_depth for
 * camcore_capturer_acquire_frame(). A full queue gives up its oldest
 * frame, counted in camcore_capture_stats.frames_dropped (not in
 * frames_delivered), so a slow reader loses old frames and never stalls
 * the driver: the driver gets at least 2 x queue_depth + 2 buffers (more
 * than config->buffer_count asks if needed). Frames, output conversion
 * (output_fourcc), the output size (output_width/output_height, S38) and
 * retain/release are as with callbacks.
 *
 * \param capturer    an open, stopped capturer.
 * \param config      settings, or NULL for camcore_capture_config_init()'s.
 * \param queue_depth frames kept ready, CAMCORE_PULL_DEPTH_MIN...MAX (2 is
 *                    a good default); also the most frames the app may hold
 *                    acquired at once.
 * \returns as camcore_capturer_start(); CAMCORE_E_INVALID_ARG also for a
 *          queue_depth out of range.
 * \threadsafety As camcore_capturer_start().
 * \since 0.1
 */
int camcore_capturer_start_pull(camcore_capturer *capturer, const camcore_capture_config *config,
                                uint32_t queue_depth);

/**
 * Takes the oldest queued frame of a capturer started with
 * camcore_capturer_start_pull() (S36), waiting up to timeout_ms for one.
 * The frame is the app's until camcore_frame_release(); it may also be
 * retained (camcore_frame_retain) like any frame. At most queue_depth
 * acquired frames may be unreleased at once.
 *
 * \param capturer   a capturer streaming in pull mode.
 * \param timeout_ms 0: only a frame that is ready now; < 0: wait without
 *                   limit; > 0: at most that many milliseconds.
 * \param frame      receives the frame (NULL on failure).
 * \returns CAMCORE_OK, CAMCORE_E_TIMEOUT (no frame in time; with 0: none
 *          ready), CAMCORE_E_STATE (started with callbacks, not started,
 *          stopped, or queue_depth frames still unreleased),
 *          CAMCORE_E_INVALID_ARG, CAMCORE_E_WOULD_DEADLOCK (from the
 *          capturer's own callback), or what ended streaming
 *          (CAMCORE_E_NO_DEVICE, CAMCORE_E_IO, ...).
 * \threadsafety Safe from any thread; frames come out in capture order.
 * \since 0.1
 */
int camcore_capturer_acquire_frame(camcore_capturer *capturer, int32_t timeout_ms, const camcore_frame **frame);

/**
 * A pull loop's one call per frame (S36): releases the frame in *frame, if
 * any, then takes the next one into *frame as
 * camcore_capturer_acquire_frame() does. So `const camcore_frame *f = NULL;
 * while (camcore_capturer_next_frame(cap, 1000, &f) == CAMCORE_OK) use(f);`
 * holds one frame at a time; release the last one with
 * camcore_frame_release() (or pass it back once more). While the app keeps
 * up, the frame is dequeued on the calling thread itself (no hand-over
 * from camcore's capture thread), which is why a loop that calls this as
 * soon as it is done with a frame costs about what a frame callback does.
 *
 * \param capturer   a capturer streaming in pull mode.
 * \param timeout_ms as camcore_capturer_acquire_frame().
 * \param frame      in: NULL, or a frame to release first (acquired or
 *                   retained, the app's to give back); out: the next frame,
 *                   NULL on failure. The frame passed in is released
 *                   whatever the outcome, except that a pointer that is no
 *                   retained frame of camcore's is refused
 *                   (CAMCORE_E_INVALID_ARG) with nothing released or taken and
 *                   *frame left as it was.
 * \returns as camcore_capturer_acquire_frame().
 * \threadsafety As camcore_capturer_acquire_frame().
 * \since 0.2
 */
int camcore_capturer_next_frame(camcore_capturer *capturer, int32_t timeout_ms, const camcore_frame **frame);

/**
 * An eventfd that is readable exactly while a frame is queued for
 * camcore_capturer_acquire_frame(), so an app can wait for frames in its
 * own poll/epoll/event loop. Owned by camcore: do not read, write or close
 * it. At camcore_capturer_stop(), at camcore_capturer_close() and when
 * streaming ends on its own it turns readable and stays so; acquire then
 * returns CAMCORE_E_STATE ("stopped" or "closed") or the error that ended
 * streaming. It is one fd for the capturer's whole life: a new
 * camcore_capturer_start_pull() keeps it (a wake left from the earlier
 * capture is cleared by the first acquire that finds nothing), and after
 * camcore_capturer_close() it stays open until the next call on the handle
 * (see there): a waiter in another thread always wakes to learn of a stop
 * or a close. Asked for after the close began, it is refused
 * (CAMCORE_E_STATE).
 *
 * \param capturer a capturer started with camcore_capturer_start_pull().
 * \param fd       receives the fd.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG, CAMCORE_E_STATE (not started in
 *          pull mode, or closed).
 * \threadsafety Safe from any thread.
 * \since 0.1
 */
int camcore_capturer_get_frame_fd(camcore_capturer *capturer, int32_t *fd);

/**
 * Stops streaming. When it returns, no callback runs again and the
 * driver's queue is released. Stopping a stopped capturer is OK.
 *
 * \param capturer the capturer.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG, CAMCORE_E_WOULD_DEADLOCK
 *          (called from the capturer's own callback).
 * \threadsafety Safe from any thread. From inside the capturer's own frame, stall or
 *               error callback it returns CAMCORE_E_WOULD_DEADLOCK.
 * \since 0.1
 */
int camcore_capturer_stop(camcore_capturer *capturer);

/**
 * Non-zero while the capturer streams.
 *
 * \param capturer the capturer; NULL gives 0.
 * \returns 1 while streaming (started and not stopped, nor ended on its
 *          own), else 0.
 * \threadsafety Safe from any thread, including the capturer's own callbacks.
 * \since 0.1
 */
int camcore_capturer_is_streaming(const camcore_capturer *capturer);

/**
 * The format, strides and rate in use, as the driver applied them.
 *
 * \param capturer a started capturer.
 * \param out      filled; set out->struct_size first.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG, CAMCORE_E_STATE (never
 *          started).
 * \threadsafety Safe from any thread, including the capturer's own callbacks.
 * \since 0.1
 */
int camcore_capturer_get_format(const camcore_capturer *capturer, camcore_capture_format *out);

/**
 * Counters since the last start (S22): frames delivered, frames the
 * driver dropped (counted from gaps in the sequence numbers), corrupted
 * buffers, stalls and the measured rate.
 *
 * \param capturer the capturer.
 * \param out      filled; set out->struct_size first.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG.
 * \threadsafety Safe from any thread, including the capturer's own callbacks.
 * \since 0.1
 */
int camcore_capturer_get_stats(const camcore_capturer *capturer, camcore_capture_stats *out);

/**
 * What camcore last found of the geometry of this capture's frames (S43):
 * every frame's size, strides and lengths are checked against the format
 * in use before delivery. A frame whose own description is consistent but
 * differs (PipeWire's libcamera node announces 640x480 and delivers 636x480
 * at stride 1908) is delivered with its true size, and the capture's format
 * (camcore_capturer_get_format()) follows it, CAMCORE_ADJUSTED_SIZE set; a
 * session re-reports it through on_selected. A frame that fits no geometry
 * is delivered flagged CAMCORE_FRAME_CORRUPTED. Either way this text says
 * what and why; it is empty while every frame fits. Cleared at start, kept
 * after stop.
 *
 * \param capturer the capturer.
 * \param buffer   receives the text, NUL-terminated, cut to size - 1
 *                 bytes; may be NULL when size is 0 (to ask the length).
 * \param size     bytes at buffer.
 * \returns the text's full length in bytes (0: nothing to say; as
 *          snprintf: a result >= size means it was cut), or
 *          CAMCORE_E_INVALID_ARG (NULL or closed capturer, buffer NULL with
 *          size > 0).
 * \threadsafety Safe from any thread, including the capturer's own callbacks.
 * \since 0.2
 */
int camcore_capturer_get_frame_note(const camcore_capturer *capturer, char *buffer, size_t size);

/**
 * The device's native file descriptor (S28), for what camcore does not
 * wrap (e.g. ioctls of your own). Borrowed: do not close it; it is valid
 * until the capturer is closed.
 *
 * \param capturer the capturer.
 * \returns the fd (>= 0), or CAMCORE_E_INVALID_ARG, or
 *          CAMCORE_E_NOT_SUPPORTED for the synthetic camera.
 * \threadsafety Safe from any thread, including the capturer's own callbacks.
 * \since 0.1
 */
int camcore_capturer_fd(const camcore_capturer *capturer);

/**
 * The device this capturer was opened on.
 *
 * \param capturer the capturer.
 * \returns its id (as in camcore_device_info), owned by the capturer; NULL
 *          if capturer is NULL.
 * \threadsafety Safe from any thread, including the capturer's own callbacks.
 * \since 0.1
 */
const char *camcore_capturer_device_id(const camcore_capturer *capturer);

/* ------------------------------------------------------------------ */
/* Video session: the camera switch (S9–S21)                           */
/* ------------------------------------------------------------------ */

/*
 * A session is what a video call needs of the camera: it owns the selected
 * device, the preferred setting, the transmission state and the previews,
 * and keeps the camera ON (open and streaming) exactly when video is being
 * transmitted or at least one preview is active (S9); OFF means streaming
 * stopped and the device's fd closed, so the camera's LED goes out.
 *
 *     transmission:  start_transmission(RESUME | PAUSE, preparing)
 *                    pause_video / resume_video      (S12)
 *                    hold / unhold                   (S11; unhold restores the
 *                                                      state before the hold)
 *                    end_preparation                 (S13)
 *                    set_hard_mute(1 / 0)            (S15)
 *                    end_transmission
 *     camera on  <=> (transmitting and not paused, held or hard-muted and no
 *                     custom source) or previews >= 1, unless the app called
 *                     camcore_session_stop()
 *
 * Threads: every session operation runs on the session's own camera queue,
 * in call order (S16). The state calls (transmission, previews, sinks,
 * hook, custom source, device callbacks) wait until the change took effect
 * and return its status; on the camera queue itself (from a device
 * callback or a completion) they take effect at once; called from inside
 * one of the session's frame callbacks they are queued instead, take
 * effect right after the callback returns, and return CAMCORE_OK. The
 * capturer operations (start, stop, restart, change, select, flip,
 * set_preference) return at once and call their completion exactly once,
 * on the camera queue, after the operation took effect. Device callbacks run
 * on the camera queue; frame callbacks on the capture thread (or, for a
 * custom source, on the thread that pushes the frame). After a sink or
 * preview is replaced or removed, or the session freed, that callback is
 * not called again.
 */

/** A video session. Opaque. \since 0.1 */
typedef struct camcore_session camcore_session;

/** Session settings. Fill with camcore_session_config_init(). \since 0.1 */
typedef struct camcore_session_config {
    /** sizeof(camcore_session_config). */
    uint32_t struct_size;
    /** The device to use (copied), or NULL for the first listed device that is not an infrared camera (S44). */
    const char *device_id;
    /** The preferred setting; when the camera turns on, negotiation (S6, see
     *  camcore_manager_negotiate()) picks the device's format nearest to
     *  it. camcore_preference_init()'s by default. */
    camcore_preference preference;
    /**
     * Non-zero (the default): when the device in use disappears and later
     * returns (same id), switch back to it and resume (S25). 0 stays on
     * the device selected in its place.
     */
    int32_t return_to_reconnected_device;
    /**
     * The size every frame of the session is delivered at, in pixels (S38):
     * transmission and previews alike, scaled as camcore_capture_config's
     * output_width/output_height say. 0x0 (the default) keeps the
     * negotiated size. Needs preference.output_fourcc; the rules of
     * camcore_capture_config apply (camcore_session_new() refuses a bad
     * size with CAMCORE_E_INVALID_ARG; one too large for the captured size
     * fails when the camera turns on). Fixed for the session's life:
     * camcore_session_set_preference() keeps it. Added in 0.1 after
     * return_to_reconnected_device: a struct_size that ends before
     * output_height means 0x0.
     */
    uint32_t output_width;
    /** The output height in pixels (see output_width); 0 with output_width 0. */
    uint32_t output_height;
    /**
     * S48 for the session's camera: as camcore_capture_config's
     * stall_restart_ms (default 3000; 0 never restarts). A stall that the
     * restarts do not end is a disconnect: the session falls back (S25).
     * \since 0.2: a struct_size that ends before stall_restart_tries means
     * the defaults.
     */
    uint32_t stall_restart_ms;
    /** S48: as camcore_capture_config's stall_restart_tries (default 3). \since 0.2 */
    uint32_t stall_restart_tries;
} camcore_session_config;

/**
 * Fills a session config: first device, 1280x720 at 15–30 fps, native output.
 *
 * \param config the struct; NULL is ignored.
 * \threadsafety Safe from any thread.
 * \since 0.1
 */
void camcore_session_config_init(camcore_session_config *config);

/**
 * Creates a session. The camera stays off until something needs it.
 *
 * \param manager the manager whose devices the session uses; it must
 *                outlive the session.
 * \param config  settings, or NULL for camcore_session_config_init()'s.
 * \param out     receives the session, or NULL on failure; free with
 *                camcore_session_free().
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG, CAMCORE_E_NO_DEVICE (unknown
 *          device_id; with NULL and no camera the session starts without a
 *          device and turning the camera on gives CAMCORE_E_NO_DEVICE),
 *          CAMCORE_E_NO_MEMORY.
 * \threadsafety Safe from any thread.
 * \since 0.1
 */
int camcore_session_new(camcore_manager *manager, const camcore_session_config *config,
                        camcore_session **out);

/**
 * Turns the camera off and frees the session. When it returns no callback
 * of the session runs again.
 *
 * \param session the session; NULL is ignored.
 * \threadsafety Safe from any thread; it never fails. From inside one of the
 *               session's own callbacks (frame, capture hook, device,
 *               completion) it returns at once: no other callback of the
 *               session starts (not even the rest of that frame's previews),
 *               and the camera is turned off on a camcore thread right after
 *               that callback returns. (Before 0.2 it did nothing there and
 *               set CAMCORE_E_WOULD_DEADLOCK.)
 * \since 0.1
 */
void camcore_session_free(camcore_session *session);

/** Initial video state of a transmission (S10). \since 0.1 */
#define CAMCORE_VIDEO_RESUME 0 /**< Video starts active: the camera turns on at once. */
#define CAMCORE_VIDEO_PAUSE  1 /**< Video starts paused: the camera stays off until resume. */

/**
 * Starts transmission (S10, S13). With CAMCORE_VIDEO_RESUME the camera
 * turns on at once (unless the call is held, hard-muted or fed by a
 * custom source); with CAMCORE_VIDEO_PAUSE it stays off until
 * camcore_session_resume_video(). Previews keep it on either way (S9).
 *
 * \param session       the session.
 * \param initial_state CAMCORE_VIDEO_RESUME or CAMCORE_VIDEO_PAUSE.
 * \param preparing     non-zero: responder preparation (S13): the camera may
 *                      run but no frame reaches the transmission sink until
 *                      camcore_session_end_preparation().
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG, CAMCORE_E_STATE (already
 *          transmitting), or the camera's error when it had to turn on
 *          (CAMCORE_E_BUSY, _NO_DEVICE, ...; the state is kept and the
 *          next change retries).
 * \threadsafety Safe from any thread and from the session's callbacks. It waits
 *               until the change took effect; from inside one of the session's
 *               frame callbacks it is queued instead and returns CAMCORE_OK
 *               (see Threads above).
 * \since 0.1
 */
int camcore_session_start_transmission(camcore_session *session, int initial_state, int preparing);

/**
 * Ends responder preparation: frames reach the transmission sink from now (S13).
 * \param session the session.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG, CAMCORE_E_STATE (no transmission).
 * \threadsafety Safe from any thread and from the session's callbacks. It waits
 *               until the change took effect; from inside one of the session's
 *               frame callbacks it is queued instead and returns CAMCORE_OK
 *               (see Threads above).
 * \since 0.1
 */
int camcore_session_end_preparation(camcore_session *session);

/**
 * Stops transmitting video; the camera turns off unless a preview is active (S12).
 * \param session the session.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG, CAMCORE_E_STATE (no transmission).
 * \threadsafety Safe from any thread and from the session's callbacks. It waits
 *               until the change took effect; from inside one of the session's
 *               frame callbacks it is queued instead and returns CAMCORE_OK
 *               (see Threads above).
 * \since 0.1
 */
int camcore_session_pause_video(camcore_session *session);

/**
 * Transmits video again; the camera turns back on (S12).
 * \param session the session.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG, CAMCORE_E_STATE, or the camera's error.
 * \threadsafety Safe from any thread and from the session's callbacks. It waits
 *               until the change took effect; from inside one of the session's
 *               frame callbacks it is queued instead and returns CAMCORE_OK
 *               (see Threads above).
 * \since 0.1
 */
int camcore_session_resume_video(camcore_session *session);

/**
 * Holds the call: no transmission; camera off unless a preview is active (S11).
 * \param session the session.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG, CAMCORE_E_STATE (no transmission).
 * \threadsafety Safe from any thread and from the session's callbacks. It waits
 *               until the change took effect; from inside one of the session's
 *               frame callbacks it is queued instead and returns CAMCORE_OK
 *               (see Threads above).
 * \since 0.1
 */
int camcore_session_hold(camcore_session *session);

/**
 * Unholds: transmission and camera as before the hold (a paused video stays paused) (S11).
 * \param session the session.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG, CAMCORE_E_STATE, or the camera's error.
 * \threadsafety Safe from any thread and from the session's callbacks. It waits
 *               until the change took effect; from inside one of the session's
 *               frame callbacks it is queued instead and returns CAMCORE_OK
 *               (see Threads above).
 * \since 0.1
 */
int camcore_session_unhold(camcore_session *session);

/**
 * Hard mute (S15): non-zero turns the transmission's camera off, keeping
 * the other transmission state (previews keep it on); 0 restores it.
 * \param session the session.
 * \param muted non-zero mutes, 0 unmutes.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG, CAMCORE_E_STATE, or the camera's error.
 * \threadsafety Safe from any thread and from the session's callbacks. It waits
 *               until the change took effect; from inside one of the session's
 *               frame callbacks it is queued instead and returns CAMCORE_OK
 *               (see Threads above).
 * \since 0.1
 */
int camcore_session_set_hard_mute(camcore_session *session, int muted);

/**
 * Ends transmission; the camera turns off unless a preview is active.
 * Ending when not transmitting is OK.
 * \param session the session.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG.
 * \threadsafety Safe from any thread and from the session's callbacks. It waits
 *               until the change took effect; from inside one of the session's
 *               frame callbacks it is queued instead and returns CAMCORE_OK
 *               (see Threads above).
 * \since 0.1
 */
int camcore_session_end_transmission(camcore_session *session);

/**
 * Sets where transmitted frames go (S15). NULL (or a NULL on_frame) leaves
 * the camera on or off as before (S9: on while transmitting or previewing)
 * and drops the frames. After it returns the old
 * sink is not called again. on_error and on_stall are not used here
 * (stalls come as camcore_device_callbacks.on_stall).
 *
 * \param session the session.
 * \param callbacks copied; frames arrive on the capture thread.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG (bad struct_size).
 * \threadsafety Safe from any thread and from the session's callbacks. It waits
 *               until the change took effect; from inside one of the session's
 *               frame callbacks it is queued instead and returns CAMCORE_OK
 *               (see Threads above).
 * \since 0.1
 */
int camcore_session_set_transmission_sink(camcore_session *session,
                                          const camcore_frame_callbacks *callbacks);

/** The most previews one session takes (camcore_session_add_preview()). \since 0.1 */
#define CAMCORE_MAX_PREVIEWS 64

/**
 * Adds a preview receiver (S14): it gets every camera frame (after the
 * capture hook) on the capture thread; the camera turns on if it was off.
 * A session takes at most CAMCORE_MAX_PREVIEWS previews at once (counted
 * from the call; a removal frees its place).
 *
 * \param session the session.
 * \param callbacks copied; on_frame receives the frames (on_error and on_stall
 *                  are not used: see camcore_device_callbacks).
 * \param preview_id receives an id for camcore_session_remove_preview().
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG, CAMCORE_E_NO_MEMORY (the
 *          session already has CAMCORE_MAX_PREVIEWS previews; *preview_id is
 *          0 and nothing is added), or the camera's error (the preview stays
 *          added and *preview_id is set).
 * \threadsafety Safe from any thread and from the session's callbacks. It waits
 *               until the change took effect; from inside one of the session's
 *               frame callbacks it is queued instead and returns CAMCORE_OK
 *               (see Threads above).
 * \since 0.1
 */
int camcore_session_add_preview(camcore_session *session, const camcore_frame_callbacks *callbacks,
                                uint32_t *preview_id);

/**
 * Removes a preview: after it returns its callbacks are not called again;
 * the camera turns off if nothing else needs it.
 * \param session the session.
 * \param preview_id an id from camcore_session_add_preview() or camcore_session_add_preview_pull().
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG (unknown id).
 * \threadsafety Safe from any thread and from the session's callbacks. It waits
 *               until the change took effect; from inside one of the session's
 *               frame callbacks it is queued instead and returns CAMCORE_OK
 *               (see Threads above).
 * \since 0.1
 */
int camcore_session_remove_preview(camcore_session *session, uint32_t preview_id);

/**
 * Adds a preview that is read by pulling (S36) instead of called back: it
 * counts as a preview for the camera switch (S9: the camera is on while any
 * preview is active, so it turns on), and its frames wait in
 * a queue of queue_depth for camcore_session_acquire_preview_frame(); a
 * full queue gives up its oldest frame. Frames pushed by the app (custom
 * source) are not queued (they live in the app's memory). Remove it with
 * camcore_session_remove_preview(); frames acquired before stay valid
 * until released.
 *
 * \param session     the session.
 * \param queue_depth CAMCORE_PULL_DEPTH_MIN...MAX; also the most frames
 *                    the app may hold acquired at once.
 * \param preview_id  receives the preview's id (0 on failure; also set
 *                    when only turning the camera on failed).
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG (NULL preview_id, depth out
 *          of range), CAMCORE_E_NO_MEMORY (CAMCORE_MAX_PREVIEWS reached),
 *          or the camera's error when turning it on failed.
 * \threadsafety Safe from any thread.
 * \since 0.1
 */
int camcore_session_add_preview_pull(camcore_session *session, uint32_t queue_depth, uint32_t *preview_id);

/**
 * Takes the oldest queued frame of a pull preview (S36), waiting up to
 * timeout_ms (0: only a ready one; < 0: no limit). Release it with
 * camcore_frame_release().
 *
 * \param session the session.
 * \param preview_id a pull preview's id.
 * \param timeout_ms 0: only a frame that is ready; < 0: wait without limit; > 0: at most that many milliseconds.
 * \param frame receives the frame (NULL on failure).
 * \returns CAMCORE_OK, CAMCORE_E_TIMEOUT, CAMCORE_E_INVALID_ARG (NULL frame,
 *          no pull preview with that id), CAMCORE_E_STATE (queue_depth
 *          frames unreleased, or the preview was removed),
 *          CAMCORE_E_WOULD_DEADLOCK (called with a timeout from the
 *          session's own callbacks when no frame is queued: frames come
 *          on the thread that is waiting, so none could arrive).
 * \threadsafety Safe from any thread. From the session's own callbacks
 *               it never waits: a queued frame is returned, otherwise
 *               CAMCORE_E_TIMEOUT (timeout_ms 0) or CAMCORE_E_WOULD_DEADLOCK.
 * \since 0.1
 */
int camcore_session_acquire_preview_frame(camcore_session *session, uint32_t preview_id, int32_t timeout_ms,
                                          const camcore_frame **frame);

/**
 * The pull loop's one call for a pull preview, as
 * camcore_capturer_next_frame() is for a capturer: gives back the frame
 * at *frame (if any), then takes the next one, as
 * camcore_session_acquire_preview_frame() would. One library call per
 * frame; `for (f = NULL; camcore_session_next_preview_frame(s, id, -1,
 * &f) == CAMCORE_OK;) use(f);` is the whole loop, and the frame the loop
 * still holds when it ends goes back with camcore_frame_release().
 *
 * \param session    the session.
 * \param preview_id a pull preview's id (camcore_session_add_preview_pull()).
 * \param timeout_ms as camcore_session_acquire_preview_frame().
 * \param frame      in: NULL, or a frame to release first (acquired or
 *                   retained, the app's to give back); out: the next frame,
 *                   NULL on failure. The frame passed in is released
 *                   whatever the outcome, except that a pointer that is no
 *                   retained frame of camcore's is refused
 *                   (CAMCORE_E_INVALID_ARG) with nothing released or taken and
 *                   *frame left as it was.
 * \returns as camcore_session_acquire_preview_frame().
 * \threadsafety As camcore_session_acquire_preview_frame().
 * \since 0.2
 */
int camcore_session_next_preview_frame(camcore_session *session, uint32_t preview_id, int32_t timeout_ms,
                                       const camcore_frame **frame);

/**
 * An eventfd readable exactly while a frame of the pull preview is
 * queued, for the app's own poll/epoll loop. camcore's: never read, write
 * or close it; valid until the preview is removed or the session freed.
 *
 * \param session the session.
 * \param preview_id a pull preview's id.
 * \param fd receives the eventfd.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG (NULL fd, no pull preview with
 *          that id).
 * \threadsafety Safe from any thread.
 * \since 0.1
 */
int camcore_session_get_preview_fd(camcore_session *session, uint32_t preview_id, int32_t *fd);

/** A snapshot of a session's state. \since 0.1 */
typedef struct camcore_session_state {
    /** sizeof(camcore_session_state). */
    uint32_t struct_size;
    /** The camera is open and streaming (S9). */
    int32_t camera_on;
    /** Transmission started (camcore_session_start_transmission()) and not ended. */
    int32_t transmitting;
    /** The video is paused (camcore_session_pause_video(), or started with CAMCORE_VIDEO_PAUSE). */
    int32_t paused;
    /** The call is held (camcore_session_hold()). */
    int32_t held;
    /** Responder preparation: the camera may run, no frame reaches the transmission sink yet. */
    int32_t preparing;
    /** Hard mute is on (camcore_session_set_hard_mute()). */
    int32_t hard_muted;
    /** A custom video source feeds transmission (S21). */
    int32_t custom_source;
    /** camcore_session_stop() holds the camera off. */
    int32_t stopped_by_app;
    /** Previews added and not removed (callback and pull previews). */
    uint32_t preview_count;
    /** The selected device's id, "" when none; NUL-terminated. */
    char device_id[256];
    /**
     * While on: the format in use (as camcore_capturer_get_format()); else
     * zeros. Its `adjusted` bits compare it with what the session asked for:
     * the preference (S6: the negotiation's adjustments and the driver's) or
     * the setting of camcore_session_start() / _change().
     */
    camcore_capture_format format;
    /**
     * CAMCORE_ADJUSTED_* bits (S6: negotiation tells when it could not meet
     * the preference exactly): how the setting
     * in use differs from what the session asked for; format.adjusted.
     * 0 while the camera is off. Added in 0.1: a struct_size that ends
     * before it is not written.
     */
    uint32_t adjusted;
} camcore_session_state;

/**
 * Reads the session's state; safe from callbacks.
 *
 * \param session the session.
 * \param out filled whole, format included; set out->struct_size to
 *            sizeof(camcore_session_state) first (out->format.struct_size
 *            is not read: it comes back as sizeof(camcore_capture_format)
 *            while the camera is on, else 0 with the rest of format).
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG.
 * \threadsafety Safe from any thread, including the session's own callbacks. It
 *               reads the state as last published by the camera queue: a change
 *               queued from a frame callback shows once it took effect.
 * \since 0.1
 */
int camcore_session_get_state(camcore_session *session, camcore_session_state *out);

/**
 * Why the camera runs another setting than the one negotiated (beyond
 * S6's adjustments, which camcore_session_state.adjusted gives): S47's
 * fallback when the USB bus could not carry the negotiated setting ("not
 * enough USB bandwidth for YUYV 1280x720 at 1/10 fps: fell back to MJPG
 * 1280x720 at 1/30 fps (S47)"; the state's format and adjusted say what
 * runs), or S43's note on the frames' true geometry. Empty when the camera
 * runs what was negotiated; set anew each time the camera turns on.
 *
 * \param session the session.
 * \param buffer  receives the text, NUL-terminated, cut to size - 1 bytes;
 *                may be NULL when size is 0.
 * \param size    bytes at buffer.
 * \returns the text's full length in bytes (0: nothing to say; as
 *          snprintf), or CAMCORE_E_INVALID_ARG.
 * \threadsafety Safe from any thread, including the session's own callbacks.
 * \since 0.2
 */
int camcore_session_get_note(camcore_session *session, char *buffer, size_t size);

/** Called once when a capturer operation has taken effect, on the camera queue. \since 0.1 */
typedef void (*camcore_completion_fn)(void *user_data, int status);

/**
 * S17 start: capture with this setting whenever the camera switch turns
 * the camera on (S9: while video is transmitted or a preview is active);
 * it clears a camcore_session_stop(). The output format stays the preference's.
 *
 * \param session the session.
 * \param config     fourcc, size, fps and buffer count (output_fourcc and
 *                   the output size are ignored). dmabuf must be 0: a
 *                   session's frames (previews, the transmission sink, the
 *                   capture hook) carry no DMA-BUF fd (S37 is for
 *                   capturers), and CAMCORE_CAPTURE_DMABUF does not apply.
 * \param completion called once with the status (NULL: none); not called when
 *                   the call itself fails.
 * \param user_data passed to completion.
 * \returns CAMCORE_OK (queued), CAMCORE_E_NOT_SUPPORTED (dmabuf 1) or
 *          CAMCORE_E_INVALID_ARG (bad handle or struct,
 *          or a config no camera takes, checked at the call as
 *          camcore_capturer_start() does: size outside 1...65536, fps with
 *          one zero part, buffer_count outside 2...32).
 * \threadsafety Safe from any thread and from the session's callbacks: it
 *               queues the operation and returns at once; the completion runs
 *               on the camera queue.
 * \since 0.1
 */
int camcore_session_start(camcore_session *session, const camcore_capture_config *config,
                          camcore_completion_fn completion, void *user_data);

/**
 * S17 stop: the camera turns off and stays off until start or restart.
 *
 * \param session the session.
 * \param completion called once on the camera queue with the status; NULL: none; not called when this call fails.
 * \param user_data passed to completion.
 * \returns CAMCORE_OK (queued) or CAMCORE_E_INVALID_ARG (bad handle).
 * \threadsafety Safe from any thread and from the session's callbacks: it
 *               queues the operation and returns at once; the completion runs
 *               on the camera queue.
 * \since 0.1
 */
int camcore_session_stop(camcore_session *session, camcore_completion_fn completion, void *user_data);

/**
 * S17 restart: the camera back on (if transmission or a preview needs it,
 * S9) with the same settings as
 * before the stop.
 *
 * \param session the session.
 * \param completion called once on the camera queue with the status; NULL: none; not called when this call fails.
 * \param user_data passed to completion.
 * \returns CAMCORE_OK (queued) or CAMCORE_E_INVALID_ARG (bad handle).
 * \threadsafety Safe from any thread and from the session's callbacks: it
 *               queues the operation and returns at once; the completion runs
 *               on the camera queue.
 * \since 0.1
 */
int camcore_session_restart(camcore_session *session, camcore_completion_fn completion, void *user_data);

/**
 * S17 change: new settings; the camera restarts with them if it is on.
 *
 * \param session the session.
 * \param config as for camcore_session_start().
 * \param completion called once on the camera queue with the status; NULL: none; not called when this call fails.
 * \param user_data passed to completion.
 * \returns CAMCORE_OK (queued) or CAMCORE_E_INVALID_ARG (as for
 *          camcore_session_start(); the completion is then not called).
 * \threadsafety Safe from any thread and from the session's callbacks: it
 *               queues the operation and returns at once; the completion runs
 *               on the camera queue.
 * \since 0.1
 */
int camcore_session_change(camcore_session *session, const camcore_capture_config *config,
                           camcore_completion_fn completion, void *user_data);

/**
 * S18 select: switches to another device, keeping the preferred setting
 * (its nearest format on the new device); on_selected reports the format.
 * The completion gets CAMCORE_E_CUSTOM_SOURCE_ACTIVE while a custom
 * source feeds transmission, CAMCORE_E_NO_DEVICE for an unknown id.
 *
 * \param session the session.
 * \param device_id the device to switch to (copied).
 * \param completion called once on the camera queue with the status; NULL: none; not called when this call fails.
 * \param user_data passed to completion.
 * \returns CAMCORE_OK (queued) or CAMCORE_E_INVALID_ARG (bad handle,
 *          device_id NULL).
 * \threadsafety Safe from any thread and from the session's callbacks: it
 *               queues the operation and returns at once; the completion runs
 *               on the camera queue.
 * \since 0.1
 */
int camcore_session_select(camcore_session *session, const char *device_id,
                           camcore_completion_fn completion, void *user_data);

/**
 * S19 flip: switches to the camera facing the other way (front <-> back),
 * or with no positions known the next camera, at the format and rate
 * nearest to the current ones. Completion errors: CAMCORE_E_NO_DEVICE (no
 * other camera), CAMCORE_E_CUSTOM_SOURCE_ACTIVE.
 *
 * \param session the session.
 * \param completion called once on the camera queue with the status; NULL: none; not called when this call fails.
 * \param user_data passed to completion.
 * \returns CAMCORE_OK (queued) or CAMCORE_E_INVALID_ARG (bad handle).
 * \threadsafety Safe from any thread and from the session's callbacks: it
 *               queues the operation and returns at once; the completion runs
 *               on the camera queue.
 * \since 0.1
 */
int camcore_session_flip(camcore_session *session, camcore_completion_fn completion, void *user_data);

/**
 * Sets the preferred setting (S6) used when the camera turns on; applied
 * now if the camera is on with the preference (not after an explicit start).
 *
 * \param session the session.
 * \param preference the new preference (copied).
 * \param completion called once on the camera queue with the status; NULL: none; not called when this call fails.
 * \param user_data passed to completion.
 * \returns CAMCORE_OK (queued) or CAMCORE_E_INVALID_ARG (bad handle,
 *          preference NULL or invalid).
 * \threadsafety Safe from any thread and from the session's callbacks: it
 *               queues the operation and returns at once; the completion runs
 *               on the camera queue.
 * \since 0.1
 */
int camcore_session_set_preference(camcore_session *session, const camcore_preference *preference,
                                   camcore_completion_fn completion, void *user_data);

/** Capture hook results (S20). \since 0.1 */
#define CAMCORE_HOOK_PASS    0 /**< Hand the frame on unchanged. */
#define CAMCORE_HOOK_DROP    1 /**< Drop it: transmission and previews do not see it. */
#define CAMCORE_HOOK_REPLACE 2 /**< Hand on *replacement instead. */

/** A capture hook (S20). Copied at camcore_session_set_capture_hook(). \since 0.1 */
typedef struct camcore_capture_hook {
    /** sizeof(camcore_capture_hook). */
    uint32_t struct_size;
    /** Passed first to every callback. */
    void *user_data;
    /**
     * Called for each camera frame before transmission and previews, on
     * the capture thread. To replace the frame, fill *replacement (its
     * planes point at memory of yours that stays valid until the hook is
     * next called or removed) and return CAMCORE_HOOK_REPLACE. The
     * replacement is checked as camcore_session_push_frame() checks a
     * frame; one that fails is dropped (the camera's frame is not handed
     * on in its place) and the reason is the capture thread's
     * camcore_last_error_message(), readable in the next hook call.
     */
    int (*on_capture)(void *user_data, const camcore_frame *frame, camcore_frame *replacement);
} camcore_capture_hook;

/**
 * Sets the capture hook, or removes it with NULL. After it returns the old
 * hook is not called again.
 * \param session the session.
 * \param hook the hook (copied), or NULL to remove it.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG.
 * \threadsafety Safe from any thread and from the session's callbacks. It waits
 *               until the change took effect; from inside one of the session's
 *               frame callbacks it is queued instead and returns CAMCORE_OK
 *               (see Threads above).
 * \since 0.1
 */
int camcore_session_set_capture_hook(camcore_session *session, const camcore_capture_hook *hook);

/**
 * Turns the custom video source on or off (S21). While on, transmission
 * takes the frames the app pushes instead of the camera's; the camera runs
 * only for previews; select and flip fail with CAMCORE_E_CUSTOM_SOURCE_ACTIVE.
 * \param session the session.
 * \param active non-zero turns it on, 0 off.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG, or the camera's error.
 * \threadsafety Safe from any thread and from the session's callbacks. It waits
 *               until the change took effect; from inside one of the session's
 *               frame callbacks it is queued instead and returns CAMCORE_OK
 *               (see Threads above).
 * \since 0.1
 */
int camcore_session_set_custom_source(camcore_session *session, int active);

/**
 * Pushes an app frame into transmission (S21): delivered to the
 * transmission sink on the calling thread when transmission takes frames
 * (otherwise dropped). The frame's memory is only read during the call.
 *
 * The frame is checked against its FourCC and size as the pixel-format
 * table describes them (camcore_pixel_format_info()): the FourCC must be
 * one camcore knows (an unknown one has no geometry to check and is
 * refused); plane_count must be the format's (1 for packed and compressed
 * formats, 2 for NV12, 3 for I420; NV24/NV42 may also come as the one
 * plane camcore itself delivers them in); every plane needs data; for a
 * raw format each plane's stride must be at least its row bytes and its
 * length at least stride * (rows - 1) + row bytes; a compressed plane must
 * not be empty. camcore reads sizeof(camcore_frame) bytes of the struct at
 * most.
 *
 * \param session the session.
 * \param frame fourcc, width, height, plane_count and planes set.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG (bad frame: the message names
 *          the plane and the sizes), CAMCORE_E_STATE (no custom source
 *          active).
 * \threadsafety Safe from any thread, including the session's own callbacks.
 *               The transmission sink runs on the calling thread, before this
 *               returns.
 * \since 0.1
 */
int camcore_session_push_frame(camcore_session *session, const camcore_frame *frame);

/**
 * Device events (S24), on the camera queue. Every pointer may be NULL.
 * The device and format passed are valid during the call.
 *
 * \since 0.1
 */
typedef struct camcore_device_callbacks {
    /** sizeof(camcore_device_callbacks). */
    uint32_t struct_size;
    /** Passed first to every callback. */
    void *user_data;
    /** A capture device appeared. */
    void (*on_connected)(void *user_data, const camcore_device_info *device);
    /** A capture device went away. */
    void (*on_disconnected)(void *user_data, const camcore_device_info *device);
    /**
     * The device in use changed; format is the one it captures (or will).
     * format->adjusted says how it differs from the preference (S6).
     */
    void (*on_selected)(void *user_data, const camcore_device_info *device,
                        const camcore_capture_format *format);
    /** Capture stopped on its own (the device vanished, a driver error). */
    void (*on_error)(void *user_data, const camcore_device_info *device, int status,
                     const char *message);
    /**
     * The camera in use stopped delivering frames (`stalled` 1: none for
     * longer than max(1 s, 5 frame intervals)) or delivers again (0), as
     * camcore_frame_callbacks.on_stall tells it: `since_ns` is the
     * CLOCK_MONOTONIC time (ns) of the last frame before the stall. The
     * camera stays on; S48's restart of a lasting stall is on_restart.
     * Added in 0.1: a struct_size that ends before it means NULL.
     */
    void (*on_stall)(void *user_data, const camcore_device_info *device, int stalled,
                     uint64_t since_ns);
    /**
     * S48: the camera in use stalled for camcore_session_config
     * .stall_restart_ms and is being restarted (`restarted` 0: stream off
     * and on again now) or was (1), `attempt` 1, 2, ... since its last
     * frame, as camcore_frame_callbacks.on_restart tells it. A stall the
     * restarts do not end is a disconnect (on_disconnected, then S25's
     * fallback). \since 0.2: a struct_size that ends before it means NULL.
     */
    void (*on_restart)(void *user_data, const camcore_device_info *device, int restarted, uint32_t attempt);
} camcore_device_callbacks;

/**
 * Sets the device callbacks, or removes them with NULL.
 * \param session the session.
 * \param callbacks the callbacks (copied), or NULL to remove them.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG.
 * \threadsafety Safe from any thread and from the session's callbacks. It waits
 *               until the change took effect; from inside one of the session's
 *               frame callbacks it is queued instead and returns CAMCORE_OK
 *               (see Threads above).
 * \since 0.1
 */
int camcore_session_set_device_callbacks(camcore_session *session,
                                         const camcore_device_callbacks *callbacks);

/* ------------------------------------------------------------------ */
/* Controls (S27, S28)                                                 */
/* ------------------------------------------------------------------ */

/*
 * Controls (brightness, gain, focus, ...) belong to an open capturer and
 * work on its file descriptor (S28), streaming or not. They are listed with
 * VIDIOC_QUERY_EXT_CTRL, read and written with VIDIOC_G/S_EXT_CTRLS, and
 * their changes are reported with V4L2_EVENT_CTRL. Ids are V4L2 control ids
 * (V4L2_CID_*): the common camera controls have CAMCORE_CID_* names below,
 * any other id works as a number. The synthetic camera has no controls.
 *
 * Control gotchas:
 * - An "auto" control rules its manual partner: while CAMCORE_CID_AUTOGAIN
 *   is 1, CAMCORE_CID_GAIN is INACTIVE (and often VOLATILE: its value moves
 *   by itself); setting it fails with CAMCORE_E_STATE until auto is off.
 *   The same holds for exposure, white balance and focus.
 * - V4L2 drivers silently clamp an out-of-range value; camcore refuses it
 *   instead, with the valid range in camcore_last_error_message().
 * - Menus may skip indices: use the items listed, not minimum..maximum.
 */

/** Control types; values equal V4L2's V4L2_CTRL_TYPE_*. \since 0.1 */
typedef enum camcore_control_type {
    /** 32-bit integer in minimum..maximum, a multiple of step above minimum. */
    CAMCORE_CONTROL_TYPE_INTEGER = 1,
    /** 0 or 1. */
    CAMCORE_CONTROL_TYPE_BOOLEAN = 2,
    /** An item index; the items are in camcore_control_info.menu. */
    CAMCORE_CONTROL_TYPE_MENU = 3,
    /** An action: setting any value performs it; it has no value. */
    CAMCORE_CONTROL_TYPE_BUTTON = 4,
    /** 64-bit integer in minimum..maximum. */
    CAMCORE_CONTROL_TYPE_INTEGER64 = 5,
    /**
     * A string (minimum/maximum are lengths): read with
     * camcore_capturer_get_control_string(), set with
     * camcore_capturer_set_control_string().
     */
    CAMCORE_CONTROL_TYPE_STRING = 7,
    /** 32 bits, unsigned; only the bits set in maximum may be set. */
    CAMCORE_CONTROL_TYPE_BITMASK = 8,
    /** An item index; each item stands for a 64-bit number (menu[i].value). */
    CAMCORE_CONTROL_TYPE_INTEGER_MENU = 9
} camcore_control_type;

/** Control flags; values equal V4L2's V4L2_CTRL_FLAG_*. \since 0.1 */
#define CAMCORE_CONTROL_FLAG_DISABLED         0x0001u /**< Never listed by camcore. */
#define CAMCORE_CONTROL_FLAG_GRABBED          0x0002u /**< Locked while streaming; setting gives CAMCORE_E_STATE. */
#define CAMCORE_CONTROL_FLAG_READ_ONLY        0x0004u /**< Setting gives CAMCORE_E_NOT_SUPPORTED. */
#define CAMCORE_CONTROL_FLAG_UPDATE           0x0008u /**< Changing it may change other controls. */
#define CAMCORE_CONTROL_FLAG_INACTIVE         0x0010u /**< Another control rules it now; setting gives CAMCORE_E_STATE. */
#define CAMCORE_CONTROL_FLAG_SLIDER           0x0020u /**< Best shown as a slider. */
#define CAMCORE_CONTROL_FLAG_WRITE_ONLY       0x0040u /**< No value to read (buttons, relative moves). */
#define CAMCORE_CONTROL_FLAG_VOLATILE         0x0080u /**< The value changes by itself (e.g. gain under autogain). */
#define CAMCORE_CONTROL_FLAG_HAS_PAYLOAD      0x0100u /**< The value is a payload (strings). */
#define CAMCORE_CONTROL_FLAG_EXECUTE_ON_WRITE 0x0200u /**< Setting acts even when the value does not change. */
#define CAMCORE_CONTROL_FLAG_MODIFY_LAYOUT    0x0400u /**< Changing it may change the buffer layout. */
#define CAMCORE_CONTROL_FLAG_DYNAMIC_ARRAY    0x0800u /**< A dynamic array (not listed by camcore). */

/** Control ids of common camera controls; values equal V4L2's V4L2_CID_*. \since 0.1 */
#define CAMCORE_CID_BRIGHTNESS                0x00980900u /**< V4L2_CID_BRIGHTNESS, integer. */
#define CAMCORE_CID_CONTRAST                  0x00980901u /**< V4L2_CID_CONTRAST, integer. */
#define CAMCORE_CID_SATURATION                0x00980902u /**< V4L2_CID_SATURATION, integer. */
#define CAMCORE_CID_WHITE_BALANCE_AUTO        0x0098090cu /**< V4L2_CID_AUTO_WHITE_BALANCE, boolean. */
#define CAMCORE_CID_AUTOGAIN                  0x00980912u /**< V4L2_CID_AUTOGAIN, boolean. */
#define CAMCORE_CID_GAIN                      0x00980913u /**< V4L2_CID_GAIN, integer; inactive while autogain is on. */
#define CAMCORE_CID_POWER_LINE_FREQUENCY      0x00980918u /**< V4L2_CID_POWER_LINE_FREQUENCY, menu: 0 off, 1 50 Hz, 2 60 Hz, 3 auto. */
#define CAMCORE_CID_WHITE_BALANCE_TEMPERATURE 0x0098091au /**< V4L2_CID_WHITE_BALANCE_TEMPERATURE, integer, kelvin. */
#define CAMCORE_CID_SHARPNESS                 0x0098091bu /**< V4L2_CID_SHARPNESS, integer. */
#define CAMCORE_CID_BACKLIGHT_COMPENSATION    0x0098091cu /**< V4L2_CID_BACKLIGHT_COMPENSATION, integer. */
#define CAMCORE_CID_EXPOSURE_AUTO             0x009a0901u /**< V4L2_CID_EXPOSURE_AUTO, menu: 0 auto, 1 manual, 2 shutter priority, 3 aperture priority. */
#define CAMCORE_CID_EXPOSURE_ABSOLUTE         0x009a0902u /**< V4L2_CID_EXPOSURE_ABSOLUTE, integer, units of 100 microseconds. */
#define CAMCORE_CID_PAN_ABSOLUTE              0x009a0908u /**< V4L2_CID_PAN_ABSOLUTE, integer, arc seconds. */
#define CAMCORE_CID_TILT_ABSOLUTE             0x009a0909u /**< V4L2_CID_TILT_ABSOLUTE, integer, arc seconds. */
#define CAMCORE_CID_FOCUS_ABSOLUTE            0x009a090au /**< V4L2_CID_FOCUS_ABSOLUTE, integer, driver units. */
#define CAMCORE_CID_FOCUS_AUTO                0x009a090cu /**< V4L2_CID_FOCUS_AUTO, boolean. */
#define CAMCORE_CID_ZOOM_ABSOLUTE             0x009a090du /**< V4L2_CID_ZOOM_ABSOLUTE, integer, driver units. */

/** One item of a menu or integer-menu control. Owned by its control list. \since 0.1 */
typedef struct camcore_menu_item {
    /** The value to set to choose this item. */
    uint32_t index;
    /** The item's label (UTF-8); for integer menus, its number in decimal. */
    const char *name;
    /** Integer menus: the number the item stands for; menus: equal to index. */
    int64_t value;
} camcore_menu_item;

/** One control (S27). Strings and menus are owned by the list that holds it. \since 0.1 */
typedef struct camcore_control_info {
    /** The control id (V4L2_CID_*; CAMCORE_CID_* for the common ones). */
    uint32_t id;
    /** A camcore_control_type value. */
    int32_t type;
    /** The driver's name for it, e.g. "Brightness" (UTF-8). */
    const char *name;
    /**
     * The range: the value is minimum..maximum, a multiple of step above
     * minimum. Bitmask: maximum holds the bits that may be set. Menus:
     * indices. String: lengths in bytes, without the NUL.
     */
    int64_t minimum;
    /** The largest value (see minimum). */
    int64_t maximum;
    /** The step between values (see minimum); strings: of the length. */
    int64_t step;
    /** The driver's default value. */
    int64_t default_value;
    /**
     * The value when the list was made (bitmasks unsigned, menus an index);
     * 0 for write-only controls, buttons and strings.
     */
    int64_t value;
    /** CAMCORE_CONTROL_FLAG_* bits. */
    uint32_t flags;
    /** Entries in menu (menu and integer-menu controls), else 0. */
    uint32_t menu_count;
    /** menu_count items in index order; indices the driver skips are absent. NULL if none. */
    const camcore_menu_item *menu;
} camcore_control_info;

/** A control list: one allocation, freed with camcore_control_list_free(). \since 0.1 */
typedef struct camcore_control_list {
    /** Number of entries in controls. */
    size_t count;
    /** count entries in the driver's order; NULL when count is 0. */
    camcore_control_info *controls;
} camcore_control_list;

/**
 * Lists the controls of an open device with their current values (S27).
 *
 * Every control the driver enumerates is listed (VIDIOC_QUERY_EXT_CTRL
 * with NEXT_CTRL | NEXT_COMPOUND) except class headings, disabled controls
 * and array/compound controls other than strings, which camcore does not
 * wrap (use camcore_capturer_fd()). The synthetic camera gives an empty
 * list.
 *
 * \param capturer an open capturer, streaming or not.
 * \param out      receives the list (possibly with count 0), or NULL on
 *                 failure. Free with camcore_control_list_free().
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG (NULL or closed capturer, out
 *          NULL), CAMCORE_E_NO_MEMORY.
 * \threadsafety Safe from any thread, including the control callback.
 * \since 0.1
 */
int camcore_capturer_list_controls(camcore_capturer *capturer, camcore_control_list **out);

/**
 * Frees a control list, its strings and its menus.
 *
 * \param list the list; NULL is ignored.
 * \threadsafety Safe from any thread.
 * \since 0.1
 */
void camcore_control_list_free(camcore_control_list *list);

/**
 * Reads the current value of one control (VIDIOC_G_EXT_CTRLS).
 *
 * Bitmasks come as unsigned 32-bit numbers, menus as the item index,
 * booleans as 0 or 1. A volatile control gives the value of this moment.
 *
 * \param capturer an open capturer.
 * \param id       the control id (CAMCORE_CID_* or any V4L2 id).
 * \param value    receives the value; untouched on failure.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG (NULL or closed capturer,
 *          value NULL), CAMCORE_E_NOT_SUPPORTED (the device has no such
 *          control, it is write-only, a button or a string — read strings
 *          with camcore_capturer_get_control_string(); the synthetic
 *          camera), CAMCORE_E_NO_DEVICE, CAMCORE_E_IO.
 * \threadsafety Safe from any thread, including the control callback.
 * \since 0.1
 */
int camcore_capturer_get_control(camcore_capturer *capturer, uint32_t id, int64_t *value);

/**
 * Sets one control (VIDIOC_S_EXT_CTRLS) and tells the value applied.
 *
 * Never a silent no-op (S27): a value out of minimum..maximum (the driver
 * would clamp it), a skipped or out-of-range menu index, or bitmask bits
 * outside maximum give CAMCORE_E_INVALID_ARG, with the valid range or
 * items in camcore_last_error_message(). An in-range value off the step
 * is rounded the way the driver does (the kernel: to the nearest step,
 * halves up) and the result is returned in applied. Setting a button
 * presses it, whatever value is given (applied 0).
 *
 * \param capturer an open capturer, streaming or not.
 * \param id       the control id (CAMCORE_CID_* or any V4L2 id).
 * \param value    the value (bitmasks as unsigned 32-bit, menus an index).
 * \param applied  receives the value the driver applied; may be NULL.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG (out of range, see above;
 *          NULL or closed capturer), CAMCORE_E_NOT_SUPPORTED (no such
 *          control, read-only, a string — see
 *          camcore_capturer_set_control_string(); the synthetic camera),
 *          CAMCORE_E_STATE (inactive: an automatic mode rules it; or
 *          grabbed while streaming), CAMCORE_E_BUSY, CAMCORE_E_NO_DEVICE,
 *          CAMCORE_E_IO.
 * \threadsafety Safe from any thread, including the control callback.
 * \since 0.1
 */
int camcore_capturer_set_control(camcore_capturer *capturer, uint32_t id, int64_t value,
                                 int64_t *applied);

/**
 * Reads a string control (CAMCORE_CONTROL_TYPE_STRING, V4L2_CTRL_TYPE_STRING)
 * with VIDIOC_G_EXT_CTRLS.
 *
 * \param capturer an open capturer.
 * \param id       the control id.
 * \param buffer   receives the bytes the driver holds (usually UTF-8, not
 *                 checked) and a NUL; owned by the caller. Untouched on
 *                 failure.
 * \param size     bytes in buffer. The control's maximum (its longest
 *                 length, in bytes, from camcore_control_info) + 1 always
 *                 suffices.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG (NULL or closed capturer,
 *          buffer NULL, size 0, or too small: the message gives the size
 *          needed), CAMCORE_E_NOT_SUPPORTED (no such control, not a string
 *          control, write-only; the synthetic camera), CAMCORE_E_NO_DEVICE,
 *          CAMCORE_E_IO.
 * \threadsafety Safe from any thread, including the control callback.
 * \since 0.1
 */
int camcore_capturer_get_control_string(camcore_capturer *capturer, uint32_t id, char *buffer,
                                        size_t size);

/**
 * Sets a string control (VIDIOC_S_EXT_CTRLS).
 *
 * Never cut short (S27): the length of value in bytes must lie within the
 * control's minimum..maximum (and be minimum plus a multiple of step),
 * else CAMCORE_E_INVALID_ARG with the valid lengths in
 * camcore_last_error_message(). Read the text back with
 * camcore_capturer_get_control_string() to see what the driver holds.
 *
 * \param capturer an open capturer, streaming or not.
 * \param id       the control id.
 * \param value    the text, NUL-terminated; its bytes are sent as they are
 *                 (no re-encoding); borrowed for the call.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG (length, see above; value
 *          NULL; NULL or closed capturer), CAMCORE_E_NOT_SUPPORTED (no such
 *          control, not a string control, read-only; the synthetic camera),
 *          CAMCORE_E_STATE (inactive or grabbed), CAMCORE_E_BUSY,
 *          CAMCORE_E_NO_DEVICE, CAMCORE_E_IO.
 * \threadsafety Safe from any thread, including the control callback.
 * \since 0.1
 */
int camcore_capturer_set_control_string(camcore_capturer *capturer, uint32_t id, const char *value);

/** What changed, in a control-change callback; values equal V4L2_EVENT_CTRL_CH_*. \since 0.1 */
#define CAMCORE_CONTROL_CHANGED_VALUE 0x1u /**< The value changed. */
#define CAMCORE_CONTROL_CHANGED_FLAGS 0x2u /**< The flags changed (e.g. INACTIVE cleared). */
#define CAMCORE_CONTROL_CHANGED_RANGE 0x4u /**< minimum, maximum, step or default changed. */

/** Control-change callbacks. Every pointer may be NULL. Copied at the call. \since 0.1 */
typedef struct camcore_control_callbacks {
    /** sizeof(camcore_control_callbacks). */
    uint32_t struct_size;
    /** Passed first to every callback. */
    void *user_data;
    /**
     * A control changed (V4L2_EVENT_CTRL), by the driver, another process
     * or this one (camcore_capturer_set_control() included). Runs on the
     * capturer's control-event thread (not the capture thread), one event
     * at a time. It may get, set and list controls; calling
     * camcore_capturer_set_control_callbacks() from it returns
     * CAMCORE_E_WOULD_DEADLOCK; camcore_capturer_close() from it closes
     * the capturer once the handler returned (no callback follows).
     *
     * \param id      the control id.
     * \param value   its value after the change (as camcore_capturer_get_control()
     *                gives it; 0 for buttons and strings).
     * \param flags   its CAMCORE_CONTROL_FLAG_* bits after the change.
     * \param changes CAMCORE_CONTROL_CHANGED_* bits. For a new range, list
     *                the controls again.
     */
    void (*on_control_changed)(void *user_data, uint32_t id, int64_t value, uint32_t flags,
                               uint32_t changes);
} camcore_control_callbacks;

/**
 * Fills a control callbacks struct: struct_size set, all else NULL.
 *
 * \param callbacks the struct; NULL is ignored.
 * \threadsafety Safe from any thread.
 * \since 0.1
 */
void camcore_control_callbacks_init(camcore_control_callbacks *callbacks);

/**
 * Sets the control-change callbacks of a capturer, or removes them.
 *
 * Subscribes to V4L2_EVENT_CTRL for every listed control and starts a
 * control-event thread that waits for the events (poll, POLLPRI) and calls
 * on_control_changed. Setting new callbacks replaces the old ones. When
 * this function returns after removing or replacing callbacks, or when
 * camcore_capturer_close() returns, the old callbacks are never called
 * again, so their user_data may be freed. The synthetic camera accepts
 * callbacks and never calls them.
 *
 * \param capturer  an open capturer.
 * \param callbacks the callbacks, or NULL to remove them. Copied.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG (NULL or closed capturer,
 *          struct_size too small), CAMCORE_E_NOT_SUPPORTED (the driver
 *          reports no control events), CAMCORE_E_WOULD_DEADLOCK (called
 *          from on_control_changed), CAMCORE_E_NO_MEMORY.
 * \threadsafety Safe from any thread but the control callback itself, where it
 *               returns CAMCORE_E_WOULD_DEADLOCK.
 * \since 0.1
 */
int camcore_capturer_set_control_callbacks(camcore_capturer *capturer,
                                           const camcore_control_callbacks *callbacks);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CAMCORE_H */
