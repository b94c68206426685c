/*
 * camcore.h — the C ABI of libcamcore, a camera-control core for Linux.
 *
 * This is the only public header, written by hand; it is the contract
 * (SPEC S29). It is C99 and C++ clean.
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
 * Threading: every function may be called from any thread. Frame
 * callbacks of a capturer run on that capturer's own capture thread, one
 * frame at a time, in capture order. After camcore_capturer_stop() or
 * camcore_capturer_close() returns, no callback of that capturer runs
 * again, so the app may free its user_data. Calling stop or close from
 * inside one of the capturer's own callbacks returns
 * CAMCORE_E_WOULD_DEADLOCK instead of hanging.
 *
 * Ownership: objects come back through out-parameters (set to NULL on
 * failure) and each has exactly one free/close function, which accepts
 * NULL. Lists the library allocates are one allocation with one free.
 * Strings the library returns are UTF-8 and live as long as the object
 * that holds them. Caller-filled structs start with `uint32_t struct_size`;
 * fill them with their `_init()` helper, then change what you need. They
 * are copied at the call.
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

#define CAMCORE_VERSION_MAJOR 0
#define CAMCORE_VERSION_MINOR 1
#define CAMCORE_VERSION_PATCH 0

/** Packs a version as (major << 16) | (minor << 8) | patch. */
#define CAMCORE_VERSION_NUM(major, minor, patch) \
    (((uint32_t)(major) << 16) | ((uint32_t)(minor) << 8) | (uint32_t)(patch))

/** The version of this header, packed with CAMCORE_VERSION_NUM. */
#define CAMCORE_VERSION \
    CAMCORE_VERSION_NUM(CAMCORE_VERSION_MAJOR, CAMCORE_VERSION_MINOR, CAMCORE_VERSION_PATCH)

/**
 * The version of the loaded library, packed as CAMCORE_VERSION_NUM does.
 *
 * Compare with CAMCORE_VERSION to detect a header/library mismatch.
 *
 * \returns the packed version; never fails.
 * \threadsafety Safe from any thread.
 */
uint32_t camcore_version(void);

/**
 * The version of the loaded library as a string, e.g. "0.1.0".
 *
 * \returns a static string owned by the library; never NULL.
 * \threadsafety Safe from any thread.
 */
const char *camcore_version_string(void);

/* ------------------------------------------------------------------ */
/* Status codes                                                        */
/* ------------------------------------------------------------------ */

/** Status codes. 0 is success; failures are negative and stable. */
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
    /** A custom video source feeds transmission (S18). */
    CAMCORE_E_CUSTOM_SOURCE_ACTIVE = -9,
    /** The call was made from inside the object's own callback. */
    CAMCORE_E_WOULD_DEADLOCK = -10,
    /** Out of memory (ENOMEM, or too few buffers). */
    CAMCORE_E_NO_MEMORY = -11,
    /** A bug in camcore; the message says where. */
    CAMCORE_E_INTERNAL = -12
} camcore_status;

/**
 * The name of a status code, e.g. "CAMCORE_E_BUSY: device busy".
 *
 * \param status any int; unknown values give "unknown status".
 * \returns a static string owned by the library; never NULL.
 * \threadsafety Safe from any thread.
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
 */
const char *camcore_last_error_message(void);

/* ------------------------------------------------------------------ */
/* Common types                                                        */
/* ------------------------------------------------------------------ */

/** A rational number: frame rates in frames per second (30/1). */
typedef struct camcore_fraction {
    uint32_t numerator;
    uint32_t denominator;
} camcore_fraction;

/** Builds a V4L2 FourCC code: CAMCORE_FOURCC('Y','U','Y','V'). */
#define CAMCORE_FOURCC(a, b, c, d) \
    ((uint32_t)(uint8_t)(a) | ((uint32_t)(uint8_t)(b) << 8) | \
     ((uint32_t)(uint8_t)(c) << 16) | ((uint32_t)(uint8_t)(d) << 24))

/** Packed YUV 4:2:2 (V4L2_PIX_FMT_YUYV), 1 plane. */
#define CAMCORE_FOURCC_YUYV CAMCORE_FOURCC('Y', 'U', 'Y', 'V')
/** Planar YUV 4:2:0, Y then U then V (V4L2_PIX_FMT_YUV420 "YU12", I420), 3 planes. */
#define CAMCORE_FOURCC_I420 CAMCORE_FOURCC('Y', 'U', '1', '2')
/** Y plane then interleaved CbCr, 4:2:0 (V4L2_PIX_FMT_NV12), 2 planes. */
#define CAMCORE_FOURCC_NV12 CAMCORE_FOURCC('N', 'V', '1', '2')
/** 24-bit RGB, bytes R,G,B (V4L2_PIX_FMT_RGB24 "RGB3"), 1 plane. */
#define CAMCORE_FOURCC_RGB24 CAMCORE_FOURCC('R', 'G', 'B', '3')
/** 24-bit BGR, bytes B,G,R (V4L2_PIX_FMT_BGR24 "BGR3"), 1 plane. */
#define CAMCORE_FOURCC_BGR24 CAMCORE_FOURCC('B', 'G', 'R', '3')
/** Motion-JPEG (V4L2_PIX_FMT_MJPEG), 1 plane, variable length. */
#define CAMCORE_FOURCC_MJPEG CAMCORE_FOURCC('M', 'J', 'P', 'G')
/** 32-bit RGBA, bytes R,G,B,A (V4L2_PIX_FMT_RGBA32 "AB24"), 1 plane. */
#define CAMCORE_FOURCC_RGBA CAMCORE_FOURCC('A', 'B', '2', '4')
/** As an output format: the driver's own format, delivered without a copy (S8). */
#define CAMCORE_FOURCC_NATIVE 0u

/**
 * Writes the four characters of a FourCC and a terminating NUL into out.
 *
 * \param fourcc the code.
 * \param out    at least 5 bytes; NULL is ignored.
 * \returns out.
 * \threadsafety Safe from any thread.
 */
char *camcore_fourcc_to_string(uint32_t fourcc, char out[5]);

/* ------------------------------------------------------------------ */
/* Manager                                                             */
/* ------------------------------------------------------------------ */

/** A camera manager: owns the device list. Opaque. */
typedef struct camcore_manager camcore_manager;

/** Manager settings. Fill with camcore_manager_config_init(). */
typedef struct camcore_manager_config {
    /** sizeof(camcore_manager_config). */
    uint32_t struct_size;
    /**
     * 1 lists the built-in synthetic camera (S4), id "synthetic:0", after
     * the real ones; 2 lists two, a front "synthetic:0" and a back
     * "synthetic:1" (to try flipping without hardware). The environment
     * variable CAMCORE_SYNTHETIC_CAMERA=1 (or =2) has the same effect.
     * Default 0.
     */
    int32_t include_synthetic;
} camcore_manager_config;

/**
 * Fills a manager config with defaults (no synthetic camera).
 *
 * \param config the struct to fill; NULL is ignored.
 * \threadsafety Safe from any thread.
 */
void camcore_manager_config_init(camcore_manager_config *config);

/**
 * Creates a manager.
 *
 * \param config settings, or NULL for the defaults. Copied.
 * \param out    receives the manager, or NULL on failure. Free with
 *               camcore_manager_free().
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG (out NULL, struct_size too
 *          small), CAMCORE_E_NO_MEMORY.
 * \threadsafety Safe from any thread.
 */
int camcore_manager_new(const camcore_manager_config *config, camcore_manager **out);

/**
 * Frees a manager. Capturers opened from it stay valid and must still be
 * closed with camcore_capturer_close().
 *
 * \param manager the manager; NULL is ignored.
 * \threadsafety Safe from any thread, but not concurrently with other
 *               calls on the same manager.
 */
void camcore_manager_free(camcore_manager *manager);

/* ------------------------------------------------------------------ */
/* Devices (S1, S2, S3, S4)                                            */
/* ------------------------------------------------------------------ */

/** What kind of camera a device is (S2). */
typedef enum camcore_device_type {
    /** Built into the machine (non-removable). */
    CAMCORE_DEVICE_TYPE_BUILTIN = 0,
    /** Plugged in (USB or other removable bus), or not known. */
    CAMCORE_DEVICE_TYPE_EXTERNAL = 1,
    /** Software: the synthetic camera, vivid, v4l2loopback. */
    CAMCORE_DEVICE_TYPE_VIRTUAL = 2
} camcore_device_type;

/** Where a camera faces (S2); from V4L2_CID_CAMERA_ORIENTATION if known. */
typedef enum camcore_position {
    CAMCORE_POSITION_UNKNOWN = 0,
    CAMCORE_POSITION_FRONT = 1,
    CAMCORE_POSITION_BACK = 2,
    CAMCORE_POSITION_EXTERNAL = 3
} camcore_position;

/** Device flags. */
#define CAMCORE_DEVICE_MULTIPLANAR 0x1u /**< The node uses the multi-planar API. */
#define CAMCORE_DEVICE_SYNTHETIC   0x2u /**< The built-in synthetic camera. */

/** One camera (S2). All strings are owned by the list that holds it. */
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
} camcore_device_info;

/** A device list: one allocation, freed with camcore_device_list_free(). */
typedef struct camcore_device_list {
    /** Number of entries in devices. */
    size_t count;
    /** count entries; real cameras first in node order, then synthetic. */
    camcore_device_info *devices;
} camcore_device_list;

/**
 * Lists the capture devices present now (S1–S4).
 *
 * Only V4L2 nodes whose device_caps have VIDEO_CAPTURE or
 * VIDEO_CAPTURE_MPLANE and that enumerate at least one pixel format are
 * listed: metadata, output, memory-to-memory, touch, radio, VBI and SDR
 * nodes never are. Each node is opened just long enough for its queries;
 * nothing streams (S3).
 *
 * \param manager the manager.
 * \param out     receives the list (possibly with count 0), or NULL on
 *                failure. Free with camcore_device_list_free().
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG, CAMCORE_E_NO_MEMORY.
 * \threadsafety Safe from any thread.
 */
int camcore_manager_list_devices(camcore_manager *manager, camcore_device_list **out);

/**
 * Frees a device list and all its strings.
 *
 * \param list the list; NULL is ignored.
 */
void camcore_device_list_free(camcore_device_list *list);

/* ------------------------------------------------------------------ */
/* Formats (S5)                                                        */
/* ------------------------------------------------------------------ */

/** How a format's sizes or rates are given (V4L2 ENUM_FRAMESIZES/INTERVALS). */
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

/** Format flags. */
#define CAMCORE_FORMAT_COMPRESSED 0x1u /**< V4L2_FMT_FLAG_COMPRESSED (MJPEG, H.264, ...). */
#define CAMCORE_FORMAT_EMULATED   0x2u /**< V4L2_FMT_FLAG_EMULATED. */

/**
 * One pixel format at one frame size (or size range) with its frame rates.
 *
 * A format with discrete sizes gives one entry per size. Stepwise and
 * continuous sizes give one entry holding the range; its rates are those
 * the driver gives at the largest size.
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
    /** Discrete: the size. Ranges: the largest size. Pixels. */
    uint32_t width, height;
    /** Ranges: bounds and step; discrete: all equal to width/height, step 0. */
    uint32_t min_width, max_width, step_width;
    uint32_t min_height, max_height, step_height;

    /** A camcore_range_kind for the rates. */
    int32_t rate_kind;
    /** Discrete: the rates, highest first, in fps. Owned by the list. */
    const camcore_fraction *rates;
    /** Discrete: entries in rates; other kinds: 0. */
    size_t rate_count;
    /** All kinds but unknown: lowest and highest rate, fps. */
    camcore_fraction min_fps, max_fps;
    /** Stepwise: the step of the frame interval, in seconds; else 0/0. */
    camcore_fraction interval_step;
} camcore_format;

/** A format list: one allocation, freed with camcore_format_list_free(). */
typedef struct camcore_format_list {
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
 */
int camcore_manager_list_formats(camcore_manager *manager, const char *device_id,
                                 camcore_format_list **out);

/**
 * Frees a format list.
 *
 * \param list the list; NULL is ignored.
 */
void camcore_format_list_free(camcore_format_list *list);

/* ------------------------------------------------------------------ */
/* Negotiation (S6, S7)                                                */
/* ------------------------------------------------------------------ */

/** What an app would like to capture. Fill with camcore_preference_init(). */
typedef struct camcore_preference {
    /** sizeof(camcore_preference). */
    uint32_t struct_size;
    /** Size in pixels. Default 1280x720. */
    uint32_t width, height;
    /** Accepted rates, fps. Default 15/1 to 30/1. */
    camcore_fraction min_fps, max_fps;
    /** The output format wanted (see camcore_capture_config); default CAMCORE_FOURCC_NATIVE. */
    uint32_t output_fourcc;
} camcore_preference;

/**
 * Fills a preference: 1280x720, 15–30 fps, native output (S6's default).
 *
 * \param preference the struct; NULL is ignored.
 */
void camcore_preference_init(camcore_preference *preference);

/** Adjustment bits: what differs from what was asked. */
#define CAMCORE_ADJUSTED_SIZE   0x1u /**< The size is not the one asked for. */
#define CAMCORE_ADJUSTED_RATE   0x2u /**< The rate is outside what was asked. */
#define CAMCORE_ADJUSTED_FORMAT 0x4u /**< The pixel format is not the one asked for. */

/** A capture setting a device can do, as chosen by negotiation. */
typedef struct camcore_setting {
    /** sizeof(camcore_setting). */
    uint32_t struct_size;
    /** The driver's pixel format to capture. */
    uint32_t fourcc;
    /** Size in pixels. */
    uint32_t width, height;
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
 */
int camcore_manager_negotiate(camcore_manager *manager, const char *device_id,
                              const camcore_preference *preference, camcore_setting *out);

/**
 * S7 format_for(width, height, fps): the format nearest to width x height
 * (by S6's aspect and size rules) among those supporting fps exactly.
 *
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG, CAMCORE_E_NO_DEVICE,
 *          CAMCORE_E_NOT_SUPPORTED (no format supports fps), CAMCORE_E_IO.
 * \threadsafety Safe from any thread.
 */
int camcore_manager_format_for(camcore_manager *manager, const char *device_id, uint32_t width,
                               uint32_t height, camcore_fraction fps, camcore_setting *out);

/**
 * S7 max_frame_rate(format, fps): fps itself if the format at this size
 * supports it, else the supported rate closest to it (ask 40 of a 30 fps
 * format: 30).
 *
 * \param out receives the rate, fps.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG, CAMCORE_E_NO_DEVICE,
 *          CAMCORE_E_NOT_SUPPORTED (no such format, or rates unknown), CAMCORE_E_IO.
 * \threadsafety Safe from any thread.
 */
int camcore_manager_max_frame_rate(camcore_manager *manager, const char *device_id, uint32_t fourcc,
                                   uint32_t width, uint32_t height, camcore_fraction fps,
                                   camcore_fraction *out);

/* ------------------------------------------------------------------ */
/* Frames (S22, S23)                                                   */
/* ------------------------------------------------------------------ */

/** Frame flags. */
#define CAMCORE_FRAME_CORRUPTED 0x1u /**< V4L2_BUF_FLAG_ERROR or a short buffer: do not trust the pixels. */

/** One plane of a frame. */
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
 */
typedef struct camcore_frame {
    /** sizeof(camcore_frame) as the library knows it. */
    uint32_t struct_size;
    /** Pixel format FourCC of the data. */
    uint32_t fourcc;
    /** Size in pixels. */
    uint32_t width, height;
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
 * \param frame a frame received in a frame callback (call this during the
 *              callback), or a retained frame.
 * \returns a retained frame to release with camcore_frame_release(); NULL
 *          if frame is NULL, not a camcore frame, or a borrowed frame whose
 *          callback has returned.
 * \threadsafety Safe from any thread.
 */
const camcore_frame *camcore_frame_retain(const camcore_frame *frame);

/**
 * Releases a retained frame. The pointer must not be used afterwards.
 * It may be called after the capturer was stopped or closed.
 *
 * \param frame a pointer returned by camcore_frame_retain(); NULL and
 *              borrowed frames are ignored (the latter sets the thread's
 *              last error message).
 * \threadsafety Safe from any thread.
 */
void camcore_frame_release(const camcore_frame *frame);

/* ------------------------------------------------------------------ */
/* Capturer (S16, S17, S26, S28)                                       */
/* ------------------------------------------------------------------ */

/** One open camera device. Opaque. */
typedef struct camcore_capturer camcore_capturer;

/**
 * Frame delivery callbacks. Every pointer may be NULL.
 * Copied at camcore_capturer_start().
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
} camcore_frame_callbacks;

/**
 * Fills a callbacks struct: struct_size set, all else NULL.
 *
 * \param callbacks the struct; NULL is ignored.
 */
void camcore_frame_callbacks_init(camcore_frame_callbacks *callbacks);

/** Capture settings. Fill with camcore_capture_config_init(). */
typedef struct camcore_capture_config {
    /** sizeof(camcore_capture_config). */
    uint32_t struct_size;
    /** Pixel format FourCC to capture, e.g. CAMCORE_FOURCC_YUYV. */
    uint32_t fourcc;
    /** Size in pixels. Default 640x480. */
    uint32_t width, height;
    /** Frame rate in fps. Default 30/1. 0/0 keeps the driver's rate. */
    camcore_fraction fps;
    /** mmap buffers to request, 2..32. Default 4. */
    uint32_t buffer_count;
    /**
     * The pixel format frames are delivered in (S8): CAMCORE_FOURCC_I420,
     * _NV12, _YUYV, _RGB24, _BGR24, _RGBA, or CAMCORE_FOURCC_NATIVE (the
     * default) for the driver's buffers as they are, zero-copy. Conversion
     * (and MJPEG decoding) uses libyuv and libjpeg-turbo, BT.601 limited
     * range, on the capture thread, into camcore's own buffers.
     * Added in 0.1: a struct_size that ends before it means native.
     */
    uint32_t output_fourcc;
} camcore_capture_config;

/**
 * Fills a capture config: YUYV 640x480 at 30/1 fps, 4 buffers, native output.
 *
 * \param config the struct; NULL is ignored.
 */
void camcore_capture_config_init(camcore_capture_config *config);

/** What a started capturer really uses (read back from the driver). */
typedef struct camcore_capture_format {
    /** sizeof(camcore_capture_format). */
    uint32_t struct_size;
    /** Pixel format FourCC applied by the driver. */
    uint32_t fourcc;
    /** Size in pixels applied by the driver. */
    uint32_t width, height;
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

/** Running counters of a capturer. */
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
 */
int camcore_capturer_open(camcore_manager *manager, const char *device_id,
                          camcore_capturer **out);

/**
 * Stops (if streaming) and closes a capturer. When it returns, no
 * callback runs again and the device's file descriptor is closed.
 * Retained frames stay valid until released.
 *
 * \param capturer the capturer; NULL is ignored. Called from inside the
 *                 capturer's own callback it does nothing (the capturer
 *                 stays open) and sets CAMCORE_E_WOULD_DEADLOCK as the
 *                 thread's last error.
 * \threadsafety Safe from any thread.
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
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG (bad struct_size, zero size,
 *          buffer_count out of range), CAMCORE_E_STATE (already streaming),
 *          CAMCORE_E_NOT_SUPPORTED (the driver has no such pixel format, or
 *          no conversion to output_fourcc),
 *          CAMCORE_E_BUSY, CAMCORE_E_NO_DEVICE, CAMCORE_E_IO,
 *          CAMCORE_E_NO_MEMORY, CAMCORE_E_WOULD_DEADLOCK.
 * \threadsafety Safe from any thread.
 */
int camcore_capturer_start(camcore_capturer *capturer, const camcore_capture_config *config,
                           const camcore_frame_callbacks *callbacks);

/**
 * Stops streaming. When it returns, no callback runs again and the
 * driver's queue is released. Stopping a stopped capturer is OK.
 *
 * \param capturer the capturer.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG, CAMCORE_E_WOULD_DEADLOCK
 *          (called from the capturer's own callback).
 * \threadsafety Safe from any thread.
 */
int camcore_capturer_stop(camcore_capturer *capturer);

/**
 * Non-zero while the capturer streams.
 *
 * \param capturer the capturer; NULL gives 0.
 * \threadsafety Safe from any thread.
 */
int camcore_capturer_is_streaming(const camcore_capturer *capturer);

/**
 * The format, strides and rate in use, as the driver applied them.
 *
 * \param capturer a started capturer.
 * \param out      filled; set out->struct_size first.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG, CAMCORE_E_STATE (never
 *          started).
 * \threadsafety Safe from any thread.
 */
int camcore_capturer_get_format(const camcore_capturer *capturer, camcore_capture_format *out);

/**
 * Counters since the last start (S22).
 *
 * \param capturer the capturer.
 * \param out      filled; set out->struct_size first.
 * \returns CAMCORE_OK, CAMCORE_E_INVALID_ARG.
 * \threadsafety Safe from any thread.
 */
int camcore_capturer_get_stats(const camcore_capturer *capturer, camcore_capture_stats *out);

/**
 * The device's native file descriptor (S28), for what camcore does not
 * wrap (e.g. ioctls of your own). Borrowed: do not close it; it is valid
 * until the capturer is closed.
 *
 * \param capturer the capturer.
 * \returns the fd (>= 0), or CAMCORE_E_INVALID_ARG, or
 *          CAMCORE_E_NOT_SUPPORTED for the synthetic camera.
 * \threadsafety Safe from any thread.
 */
int camcore_capturer_fd(const camcore_capturer *capturer);

/**
 * The device this capturer was opened on.
 *
 * \param capturer the capturer.
 * \returns its id (as in camcore_device_info), owned by the capturer; NULL
 *          if capturer is NULL.
 */
const char *camcore_capturer_device_id(const camcore_capturer *capturer);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CAMCORE_H */
