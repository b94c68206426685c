// SPDX-License-Identifier: MIT
/*
 * camcore.hpp — a header-only C++17 wrapper of camcore.h.
 *
 * The same library, the C++ way:
 *
 *   - RAII handles: camcore::manager, camcore::capturer, camcore::session
 *     and camcore::frame (a retained frame) are move-only and free, close
 *     or release what they hold in their destructor.
 *   - Errors are exceptions: every failed call throws camcore::error,
 *     carrying the CAMCORE_E_* status (code()), its name and the library's
 *     message for the calling thread (what()).
 *   - Frames are read through views: frame_view::plane(i) is a plane_view,
 *     a std::span-like view of the plane's bytes with its stride and rows
 *     (row(y) is one row without its padding).
 *   - Pull mode reads like a loop: capturer::frames() and
 *     session::preview_frames() are ranges of owned frames (one
 *     camcore_capturer_next_frame() or camcore_session_next_preview_frame()
 *     per step), and next_frame() / next_preview_frame() the step itself.
 *   - Callbacks are lambdas (any callable). The wrapper owns them: they
 *     live as long as the object they were given to and are destroyed
 *     only after camcore guarantees that no call of them is running or
 *     will come (after stop, close, free, or the replacing call returned).
 *     A callback must not throw through C: an exception a capturer's
 *     frame callback throws is caught, kept, and rethrown by the next
 *     capturer::stop(); the other callbacks' exceptions are caught and
 *     dropped. A callback replaced or removed from inside a callback (a
 *     preview removing itself) is kept until its session is freed, as
 *     camcore may still be running it. Closing or freeing an object from
 *     inside its own callback returns at once: camcore calls none of its
 *     callbacks after the running one and finishes the close once that
 *     callback returned, and the wrapper destroys the callbacks then. (A
 *     camcore before 0.2 refuses instead: the close throws
 *     CAMCORE_E_WOULD_DEADLOCK, and a destructor there leaves the object
 *     alive and leaks it rather than free what is running.)
 *
 * Threads: a callback runs on a camcore thread (see camcore.h for which);
 * guard what it shares with your other threads. One wrapper object is not
 * meant to be used from two threads at once (as with std containers); the
 * calls into camcore themselves are thread-safe as camcore.h says. The one
 * exception: capturer::stop() from another thread ends a pull loop
 * (frames(), next_frame()) waiting on the capturer.
 *
 *     camcore::manager m(camcore::synthetic::one);
 *     auto devices = m.devices();
 *     auto cap = m.open(devices.at(0).id);
 *     camcore_capture_config cfg = camcore::capture_config();
 *     cap.start(cfg, [](const camcore::frame_view &f) {
 *         auto y = f.plane(0);          // bytes, stride, rows
 *         use(y.row(0));                // one row, no padding
 *     });
 *     ...
 *     cap.stop();                       // rethrows a callback's exception
 *
 * Needs C++17, camcore.h next to it, and linking with -lcamcore
 * (pkg-config camcore, or CMake's camcore::camcore).
 */
#ifndef CAMCORE_HPP
#define CAMCORE_HPP

#include <camcore.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace camcore {

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

/** A failed camcore call: the status, and what camcore said about it. */
class error : public std::runtime_error {
public:
    /** call: what failed; status: its CAMCORE_E_* code; detail: the message. */
    error(const std::string &call, int status, const std::string &detail)
        : std::runtime_error(call + ": " + camcore_strerror(status) + (detail.empty() ? "" : ": " + detail)),
          status_(status), detail_(detail) {}
    /** The CAMCORE_E_* status (negative). */
    int code() const noexcept { return status_; }
    /** camcore_strerror(code()): "CAMCORE_E_BUSY: device busy". */
    const char *name() const noexcept { return camcore_strerror(status_); }
    /** camcore_last_error_message() at the time of the failure. */
    const std::string &detail() const noexcept { return detail_; }

private:
    int status_;
    std::string detail_;
};

/** Throws camcore::error for a failed status, with the thread's last message. */
inline void check(int status, const char *call) {
    if (status < 0)
        throw error(call, status, camcore_last_error_message());
}

/* ------------------------------------------------------------------ */
/* Spans and plane views                                               */
/* ------------------------------------------------------------------ */

/** A contiguous view of T (the part of std::span C++17 lacks that camcore needs). */
template <typename T>
class span {
public:
    using element_type = T;
    using value_type = std::remove_cv_t<T>;
    using size_type = std::size_t;
    using iterator = T *;

    constexpr span() noexcept = default;
    constexpr span(T *data, std::size_t size) noexcept : data_(data), size_(size) {}
    template <typename C, typename = decltype(std::declval<C &>().data())>
    constexpr span(C &c) noexcept : data_(c.data()), size_(c.size()) {}

    constexpr T *data() const noexcept { return data_; }
    constexpr std::size_t size() const noexcept { return size_; }
    constexpr std::size_t size_bytes() const noexcept { return size_ * sizeof(T); }
    constexpr bool empty() const noexcept { return size_ == 0; }
    constexpr T &operator[](std::size_t i) const noexcept { return data_[i]; }
    constexpr T *begin() const noexcept { return data_; }
    constexpr T *end() const noexcept { return data_ + size_; }
    /** Elements [offset, offset + count), clamped to the view. */
    constexpr span subspan(std::size_t offset, std::size_t count = static_cast<std::size_t>(-1)) const noexcept {
        if (offset > size_)
            offset = size_;
        if (count > size_ - offset)
            count = size_ - offset;
        return span(data_ + offset, count);
    }

private:
    T *data_ = nullptr;
    std::size_t size_ = 0;
};

/** The bytes of a frame plane. */
using bytes = span<const std::uint8_t>;

/**
 * One plane of a frame: its bytes (length() of them), the stride from row
 * to row, and, for raw formats, the rows and bytes of one row as camcore's
 * pixel-format table gives them. Valid as long as the frame it came from.
 */
class plane_view {
public:
    plane_view() = default;
    plane_view(const camcore_plane &p, std::uint32_t row_bytes, std::uint32_t rows) noexcept
        : data_(p.data), stride_(p.stride), length_(p.length), row_bytes_(row_bytes), rows_(rows) {}

    /** First byte. */
    const std::uint8_t *data() const noexcept { return data_; }
    /** Bytes of valid data (for MJPEG: this frame's JPEG). */
    std::size_t size() const noexcept { return length_; }
    std::size_t length() const noexcept { return length_; }
    /** Bytes from one row to the next (bytesperline); 0 for compressed formats. */
    std::size_t stride() const noexcept { return stride_; }
    /** Rows of the plane (4:2:0 chroma: half the image's); 0 for compressed formats. */
    std::size_t rows() const noexcept { return rows_; }
    /** Bytes of one row without padding (YUYV: 2 * width); 0 for compressed formats. */
    std::size_t row_bytes() const noexcept { return row_bytes_; }
    /** All bytes of the plane, padding included. */
    bytes all() const noexcept { return bytes(data_, length_); }
    /** Row y without its padding; empty past the last row or the data. */
    bytes row(std::size_t y) const noexcept {
        if (y >= rows_ || y * stride_ + row_bytes_ > length_)
            return bytes();
        return bytes(data_ + y * stride_, row_bytes_);
    }
    const std::uint8_t *begin() const noexcept { return data_; }
    const std::uint8_t *end() const noexcept { return data_ + length_; }
    std::uint8_t operator[](std::size_t i) const noexcept { return data_[i]; }

private:
    const std::uint8_t *data_ = nullptr;
    std::size_t stride_ = 0, length_ = 0, row_bytes_ = 0, rows_ = 0;
};

/* ------------------------------------------------------------------ */
/* FourCC and pixel formats                                            */
/* ------------------------------------------------------------------ */

/** "YUYV" -> CAMCORE_FOURCC_YUYV; shorter codes are padded with spaces as V4L2 does ("Y8" -> "Y8  "). */
inline std::uint32_t fourcc(const std::string &code) {
    if (code.empty() || code.size() > 4)
        throw std::invalid_argument("camcore::fourcc: '" + code + "' is not 1 to 4 characters");
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < 4; i++) {
        auto byte = static_cast<unsigned char>(i < code.size() ? code[i] : ' ');
        v |= static_cast<std::uint32_t>(byte) << (8 * i);
    }
    return v;
}

/**
 * The four characters of a FourCC (camcore_fourcc_to_string): "YUYV" for
 * CAMCORE_FOURCC_YUYV, so fourcc_to_string(fourcc("YUYV")) == "YUYV". Bytes
 * outside printable ASCII come out as '?' (V4L2's big-endian bit 31 too:
 * big-endian Y16 is "Y16?"; fourcc_name() gives v4l2-ctl's "Y16 -BE").
 * Always four characters; never throws but for std::bad_alloc.
 * Threads: any. \since 0.2
 */
inline std::string fourcc_to_string(std::uint32_t code) {
    char out[5] = {0, 0, 0, 0, 0};
    camcore_fourcc_to_string(code, out);
    return std::string(out, 4);
}

/** The name v4l2-ctl prints for a FourCC: "YUYV", "Y16 -BE" for big-endian ones. */
inline std::string fourcc_name(std::uint32_t code) {
    camcore_pixel_format_info info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    camcore_pixel_format_get_info(code, &info); /* fills the name even for unknown codes */
    return info.name;
}

/** camcore's table entry of a pixel format; throws CAMCORE_E_NOT_SUPPORTED for one it does not know. */
inline camcore_pixel_format_info pixel_format_info(std::uint32_t code) {
    camcore_pixel_format_info info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    check(camcore_pixel_format_get_info(code, &info), "camcore_pixel_format_get_info");
    return info;
}

/** Bytes of one tightly packed frame of a raw format (I420 640x480: 460800). */
inline std::size_t frame_size(std::uint32_t code, std::uint32_t width, std::uint32_t height) {
    std::uint32_t n = 0;
    check(camcore_pixel_format_frame_size(code, width, height, &n), "camcore_pixel_format_frame_size");
    return n;
}

/** A frame rate as a double (30000/1001 -> 29.97); 0 for 0/0. */
inline double to_double(camcore_fraction f) noexcept {
    return f.denominator ? static_cast<double>(f.numerator) / f.denominator : 0.0;
}

/** Fraction literal: camcore::fps(30), camcore::fps(30000, 1001). */
inline camcore_fraction fps(std::uint32_t numerator, std::uint32_t denominator = 1) noexcept {
    return camcore_fraction{numerator, denominator};
}

/* ------------------------------------------------------------------ */
/* Threads                                                             */
/* ------------------------------------------------------------------ */

/**
 * Hooks run on every thread camcore starts (camcore_thread_hooks): on_start
 * on the new thread before anything else, on_stop on it as the last thing
 * it does, after its last callback. Both get the thread's name (also its
 * pthread name): "camcore-capture" (frame and session callbacks),
 * "camcore-pull" (fills a pull queue, calls nothing), "camcore-queue",
 * "camcore-hotplug", "camcore-control", "camcore-pw", "camcore-portal".
 * Either may be empty. For a language runtime that attaches each thread
 * once, or to name threads or set their priority.
 */
struct thread_hooks {
    std::function<void(const std::string &name)> on_start; /**< on the new thread, first */
    std::function<void(const std::string &name)> on_stop;  /**< on the same thread, last */
};

namespace detail {
/* The hooks ever installed. camcore may call a set until every thread
 * started with it has ended, which can be after it was replaced, even at
 * exit: they are kept for the life of the process (reachable from a static
 * pointer that is never destroyed, so a leak checker does not count them). */
inline std::vector<std::unique_ptr<thread_hooks>> &installed_thread_hooks() {
    static auto *kept = new std::vector<std::unique_ptr<thread_hooks>>();
    return *kept;
}
inline std::mutex &thread_hooks_lock() {
    static auto *lock = new std::mutex();
    return *lock;
}
} // namespace detail

/**
 * Installs thread hooks for the whole process (camcore_set_thread_hooks):
 * for the threads camcore starts from now on; threads already running keep
 * the hooks they started with and end with that set's on_stop. One set per
 * process: a later call replaces it; a thread_hooks with both functions
 * empty removes them (clear_thread_hooks()). The wrapper keeps every set it
 * installed until the process ends, as camcore may still call a replaced one.
 *
 * A hook runs on a camcore thread; an exception it throws is caught and
 * dropped. It must not stop, close or free the object whose thread runs it
 * (that waits for itself forever: no CAMCORE_E_WOULD_DEADLOCK from a hook);
 * other objects and read-only calls are fine.
 *
 * Throws camcore::error (CAMCORE_E_INVALID_ARG) if camcore refuses them.
 * Threads: any; takes effect for threads started after it returns. \since 0.2
 */
inline void set_thread_hooks(thread_hooks hooks) {
    std::lock_guard<std::mutex> g(detail::thread_hooks_lock());
    if (!hooks.on_start && !hooks.on_stop) {
        check(camcore_set_thread_hooks(nullptr), "camcore_set_thread_hooks");
        return;
    }
    auto kept = std::make_unique<thread_hooks>(std::move(hooks));
    camcore_thread_hooks c;
    camcore_thread_hooks_init(&c);
    c.user_data = kept.get();
    if (kept->on_start)
        c.on_thread_start = [](void *u, const char *name) {
            try {
                static_cast<thread_hooks *>(u)->on_start(name ? name : "");
            } catch (...) {
            }
        };
    if (kept->on_stop)
        c.on_thread_stop = [](void *u, const char *name) {
            try {
                static_cast<thread_hooks *>(u)->on_stop(name ? name : "");
            } catch (...) {
            }
        };
    check(camcore_set_thread_hooks(&c), "camcore_set_thread_hooks");
    detail::installed_thread_hooks().push_back(std::move(kept));
}

/** Removes the thread hooks (camcore_set_thread_hooks(NULL)); running threads end with theirs. \since 0.2 */
inline void clear_thread_hooks() { set_thread_hooks(thread_hooks{}); }

/* ------------------------------------------------------------------ */
/* Config helpers: the C structs, filled by their _init()              */
/* ------------------------------------------------------------------ */

/** camcore_capture_config_init()'s defaults: YUYV 640x480 at 30/1, 4 buffers, native output. */
inline camcore_capture_config capture_config() noexcept {
    camcore_capture_config c;
    camcore_capture_config_init(&c);
    return c;
}
/** The same, at a format, size and rate. */
inline camcore_capture_config capture_config(std::uint32_t code, std::uint32_t width, std::uint32_t height,
                                             camcore_fraction rate = fps(30)) noexcept {
    camcore_capture_config c = capture_config();
    c.fourcc = code;
    c.width = width;
    c.height = height;
    c.fps = rate;
    return c;
}
/** camcore_preference_init()'s: 1280x720, 15-30 fps, native output. */
inline camcore_preference preference() noexcept {
    camcore_preference p;
    camcore_preference_init(&p);
    return p;
}
/** camcore_session_config_init()'s: first device, the default preference. */
inline camcore_session_config session_config() noexcept {
    camcore_session_config c;
    camcore_session_config_init(&c);
    return c;
}

/* ------------------------------------------------------------------ */
/* Frames                                                              */
/* ------------------------------------------------------------------ */

class frame;

/**
 * A frame, read-only: what frame callbacks receive. A view borrowed for
 * the callback (keep it longer with retain()), or the view of a
 * camcore::frame that owns a retain.
 */
class frame_view {
public:
    explicit frame_view(const camcore_frame *f) noexcept : f_(f) {}

    /** The C frame. */
    const camcore_frame &c() const noexcept { return *f_; }
    const camcore_frame *get() const noexcept { return f_; }

    std::uint32_t fourcc() const noexcept { return f_->fourcc; }
    /** fourcc_name(fourcc()): "YUYV", "YU12", "MJPG". */
    std::string fourcc_name() const { return camcore::fourcc_name(f_->fourcc); }
    std::uint32_t width() const noexcept { return f_->width; }
    std::uint32_t height() const noexcept { return f_->height; }
    std::uint32_t plane_count() const noexcept { return f_->plane_count; }
    /** CLOCK_MONOTONIC, nanoseconds. */
    std::uint64_t timestamp_ns() const noexcept { return f_->timestamp_ns; }
    std::uint32_t sequence() const noexcept { return f_->sequence; }
    std::uint32_t dropped_before() const noexcept { return f_->dropped_before; }
    /** The driver flagged it (do not trust the pixels). */
    bool corrupted() const noexcept { return (f_->flags & CAMCORE_FRAME_CORRUPTED) != 0; }

    /** Plane i (0 to plane_count() - 1); throws std::out_of_range past the last. */
    plane_view plane(std::uint32_t i) const {
        if (i >= f_->plane_count || i >= 3)
            throw std::out_of_range("camcore::frame_view::plane: no plane " + std::to_string(i));
        std::uint32_t row_bytes = 0, rows = 0; /* both 0 for compressed formats */
        camcore_pixel_format_plane_size(f_->fourcc, f_->width, f_->height, i, &row_bytes, &rows);
        return plane_view(f_->planes[i], row_bytes, rows);
    }
    /** Every plane. */
    std::vector<plane_view> planes() const {
        std::vector<plane_view> v;
        for (std::uint32_t i = 0; i < f_->plane_count && i < 3; i++)
            v.push_back(plane(i));
        return v;
    }

    /** Keeps the frame beyond its callback (S23: its buffer is not reused until released). */
    frame retain() const;

    /**
     * This frame in another format (and size: 0x0 keeps it), tightly
     * packed (camcore_frame_convert). For a snapshot; to convert every
     * frame, capture with an output format.
     */
    std::vector<std::uint8_t> convert(std::uint32_t to, std::uint32_t out_width = 0,
                                      std::uint32_t out_height = 0) const {
        std::uint32_t n = 0;
        if (camcore_pixel_format_frame_size(to, out_width ? out_width : f_->width,
                                            out_height ? out_height : f_->height, &n) != CAMCORE_OK) {
            // Not an output format or no such size: camcore_frame_convert's
            // own message ("output pixel format MJPG is not one of ..."),
            // not the size helper's.
            std::uint8_t one = 0;
            check(camcore_frame_convert(f_, to, out_width, out_height, &one, 0), "camcore_frame_convert");
            frame_size(to, out_width ? out_width : f_->width, out_height ? out_height : f_->height);  // throws
        }
        std::vector<std::uint8_t> buf(n);
        check(camcore_frame_convert(f_, to, out_width, out_height, buf.data(), buf.size()),
              "camcore_frame_convert");
        return buf;
    }

protected:
    const camcore_frame *f_;
};

/** A retained frame: owns one retain, released when destroyed. Move-only. */
class frame : public frame_view {
public:
    /** An empty frame (false), to be filled by capturer::next_frame(). \since 0.2 */
    frame() noexcept : frame_view(nullptr) {}
    /** Takes over a frame to release (from camcore_frame_retain() or an acquire). */
    explicit frame(const camcore_frame *retained) noexcept : frame_view(retained) {}
    frame(frame &&o) noexcept : frame_view(o.f_) { o.f_ = nullptr; }
    frame &operator=(frame &&o) noexcept {
        if (this != &o) {
            camcore_frame_release(f_);
            f_ = o.f_;
            o.f_ = nullptr;
        }
        return *this;
    }
    frame(const frame &) = delete;
    frame &operator=(const frame &) = delete;
    ~frame() { camcore_frame_release(f_); }
    /** False once moved from or released. */
    explicit operator bool() const noexcept { return f_ != nullptr; }
    /** Releases now. */
    void release() noexcept {
        camcore_frame_release(f_);
        f_ = nullptr;
    }

private:
    /* The pull loops hand the retain to camcore (which releases it) and
     * take the next frame's back. */
    friend class capturer;
    friend class session;
    friend class frame_loop;
    const camcore_frame *take() noexcept { return std::exchange(f_, nullptr); }
    void adopt(const camcore_frame *f) noexcept { f_ = f; }
};

inline frame frame_view::retain() const {
    const camcore_frame *r = camcore_frame_retain(f_);
    if (r == nullptr)
        throw error("camcore_frame_retain", CAMCORE_E_INVALID_ARG, camcore_last_error_message());
    return frame(r);
}

/* ------------------------------------------------------------------ */
/* Value types: devices, formats, controls                             */
/* ------------------------------------------------------------------ */

/** One camera (a copy of camcore_device_info: outlives the list). */
struct device {
    std::string id, name, node, bus_info, driver, backend, v4l2_id, unavailable_reason;
    std::uint16_t usb_vendor_id = 0, usb_product_id = 0;
    std::uint32_t flags = 0, device_caps = 0;
    /** camcore_device_type and camcore_position values. */
    std::int32_t type = 0, position = 0;
    /** The ids this camera has in the other backends (S42; camcore_device_details.other_ids). */
    std::vector<std::string> other_ids;
    /** The sensor's mounting rotation, clockwise degrees (S45); -1 when unknown. */
    std::int32_t rotation = -1;

    device() = default;
    explicit device(const camcore_device_info &d)
        : id(str(d.id)), name(str(d.name)), node(str(d.node)), bus_info(str(d.bus_info)), driver(str(d.driver)),
          backend(str(d.backend)), v4l2_id(str(d.v4l2_id)), unavailable_reason(str(d.unavailable_reason)),
          usb_vendor_id(d.usb_vendor_id), usb_product_id(d.usb_product_id), flags(d.flags),
          device_caps(d.device_caps), type(d.type), position(d.position) {}
    device(const camcore_device_info &d, const camcore_device_details *more) : device(d) {
        for (std::uint32_t i = 0; more && i < more->other_id_count; i++)
            other_ids.emplace_back(str(more->other_ids[i]));
        if (more && more->struct_size >= offsetof(camcore_device_details, rotation) + sizeof more->rotation)
            rotation = more->rotation;
    }
    bool synthetic() const noexcept { return (flags & CAMCORE_DEVICE_SYNTHETIC) != 0; }
    bool unavailable() const noexcept { return (flags & CAMCORE_DEVICE_UNAVAILABLE) != 0; }
    /** Not a camera of its own (S40; listed by devices(true) only). */
    bool hidden() const noexcept { return (flags & CAMCORE_DEVICE_HIDDEN) != 0; }

private:
    static std::string str(const char *s) { return s ? s : ""; }
};

/** One format entry (a copy of camcore_format, rates included). */
struct format {
    camcore_format c{};               /**< the C entry; c.rates points into `rates` */
    std::vector<camcore_fraction> rates;
    std::string description;

    explicit format(const camcore_format &f)
        : c(f), rates(f.rates, f.rates + (f.rates ? f.rate_count : 0)), description(f.description) {
        c.rates = rates.empty() ? nullptr : rates.data();
    }
    format(const format &o) : c(o.c), rates(o.rates), description(o.description) {
        c.rates = rates.empty() ? nullptr : rates.data();
    }
    format &operator=(const format &o) {
        if (this != &o) {
            c = o.c;
            rates = o.rates;
            description = o.description;
            c.rates = rates.empty() ? nullptr : rates.data();
        }
        return *this;
    }
    std::uint32_t fourcc() const noexcept { return c.fourcc; }
    std::uint32_t width() const noexcept { return c.width; }
    std::uint32_t height() const noexcept { return c.height; }
    bool compressed() const noexcept { return (c.flags & CAMCORE_FORMAT_COMPRESSED) != 0; }
};

/** A menu item of a control. */
struct menu_item {
    std::uint32_t index = 0;
    std::string name;
    std::int64_t value = 0;
};

/** One control (a copy of camcore_control_info). */
struct control {
    std::uint32_t id = 0;
    std::int32_t type = 0; /**< a camcore_control_type */
    std::string name;
    std::int64_t minimum = 0, maximum = 0, step = 0, default_value = 0, value = 0;
    std::uint32_t flags = 0;
    std::vector<menu_item> menu;
};

/* ------------------------------------------------------------------ */
/* Internal: callback storage and C trampolines                        */
/* ------------------------------------------------------------------ */

namespace detail {

/** How many of camcore's callbacks (through this wrapper) the calling thread is inside. */
inline int &callback_depth() noexcept {
    static thread_local int depth = 0;
    return depth;
}

/* The callbacks of objects closed or freed from inside a callback on this
 * thread (camcore 0.2 finishes the close once that callback returned and
 * calls none of the object's callbacks after it; the running one may be
 * among them): destroyed when the thread leaves its outermost callback. */
inline std::vector<std::shared_ptr<void>> &after_callback() noexcept {
    static thread_local std::vector<std::shared_ptr<void>> kept;
    return kept;
}

/** Keeps what a callback may still be running until the thread is out of every callback. */
template <typename T>
void destroy_after_callback(std::unique_ptr<T> p) {
    if (p)
        after_callback().emplace_back(std::move(p));
}

/** Marks the thread as inside a callback while it lives; leaving the outermost one destroys after_callback(). */
struct in_callback {
    in_callback() noexcept { ++callback_depth(); }
    ~in_callback() {
        if (--callback_depth() == 0 && !after_callback().empty()) {
            std::vector<std::shared_ptr<void>> gone;
            gone.swap(after_callback());
        }
    }
    in_callback(const in_callback &) = delete;
    in_callback &operator=(const in_callback &) = delete;
};

/**
 * A close or free (close(), void) made from inside a callback: true when
 * camcore refused it, as camcore before 0.2 did (it did nothing and set
 * CAMCORE_E_WOULD_DEADLOCK as the thread's last error), false when it was
 * done (0.2: it returns at once and finishes once the callback returned).
 * Refused means the handle still answers (alive()) and the call set a
 * last error; the last error is set to a known one first, as a successful
 * call leaves it as it was.
 */
template <typename Close, typename Alive>
bool refused_inside_callback(Close &&close, Alive &&alive) {
    camcore_capturer_get_stats(nullptr, nullptr); /* CAMCORE_E_INVALID_ARG: a known last error */
    std::string before = camcore_last_error_message();
    close();
    return alive() && before != camcore_last_error_message();
}

/** Runs a callable from a C callback: exceptions stop here. */
template <typename F>
void guarded(F &&f) noexcept {
    in_callback mark;
    try {
        f();
    } catch (...) {
    }
}

struct frame_handlers {
    std::function<void(const frame_view &)> on_frame;
    std::function<void(int, const std::string &)> on_error;
    std::function<void(bool, std::uint64_t)> on_stall;
    std::function<void(bool, std::uint32_t)> on_restart;
    std::mutex lock;
    std::exception_ptr thrown; /* the first exception of on_frame, for stop() */

    void keep(std::exception_ptr e) noexcept {
        std::lock_guard<std::mutex> g(lock);
        if (!thrown)
            thrown = e;
    }
    std::exception_ptr take() noexcept {
        std::lock_guard<std::mutex> g(lock);
        std::exception_ptr e = thrown;
        thrown = nullptr;
        return e;
    }

    camcore_frame_callbacks c() noexcept {
        camcore_frame_callbacks cb;
        camcore_frame_callbacks_init(&cb);
        cb.user_data = this;
        if (on_frame)
            cb.on_frame = [](void *u, const camcore_frame *f) {
                auto *h = static_cast<frame_handlers *>(u);
                in_callback mark;
                try {
                    h->on_frame(frame_view(f));
                } catch (...) {
                    h->keep(std::current_exception());
                }
            };
        if (on_error)
            cb.on_error = [](void *u, int status, const char *message) {
                auto *h = static_cast<frame_handlers *>(u);
                guarded([&] { h->on_error(status, message ? message : ""); });
            };
        if (on_stall)
            cb.on_stall = [](void *u, int stalled, std::uint64_t since_ns) {
                auto *h = static_cast<frame_handlers *>(u);
                guarded([&] { h->on_stall(stalled != 0, since_ns); });
            };
        if (on_restart)
            cb.on_restart = [](void *u, int restarted, std::uint32_t attempt) {
                auto *h = static_cast<frame_handlers *>(u);
                guarded([&] { h->on_restart(restarted != 0, attempt); });
            };
        return cb;
    }
};

/**
 * Completions of a session's queued operations: each std::function lives
 * here until camcore calls it (exactly once) or the session is freed.
 */
struct completions {
    struct ticket {
        completions *owner;
        std::uint64_t key;
    };
    std::mutex lock;
    std::map<std::uint64_t, std::pair<std::function<void(int)>, ticket *>> pending;
    std::uint64_t next = 1;

    completions() = default;
    completions(const completions &) = delete;
    completions &operator=(const completions &) = delete;
    /* Runs after camcore_session_free returned: nothing calls these any more. */
    ~completions() {
        for (auto &p : pending)
            delete p.second.second;
    }

    ticket *add(std::function<void(int)> fn) {
        std::lock_guard<std::mutex> g(lock);
        auto *t = new ticket{this, next++};
        pending.emplace(t->key, std::make_pair(std::move(fn), t));
        return t;
    }
    /** A call that failed at once: camcore will not call the completion. */
    void cancel(ticket *t) noexcept {
        std::lock_guard<std::mutex> g(lock);
        pending.erase(t->key);
        delete t;
    }
    static void trampoline(void *u, int status) noexcept {
        auto *t = static_cast<ticket *>(u);
        completions *owner = t->owner;
        std::function<void(int)> fn;
        {
            std::lock_guard<std::mutex> g(owner->lock);
            auto it = owner->pending.find(t->key);
            if (it != owner->pending.end()) {
                fn = std::move(it->second.first);
                owner->pending.erase(it);
            }
            delete t;
        }
        if (fn)
            guarded([&] { fn(status); });
    }
};

/** The text of a getter in snprintf style: asked for its length, then read. */
template <typename Fn, typename Handle>
std::string text_out(Fn fn, Handle h, const char *call) {
    int n = fn(h, nullptr, 0);
    if (n < 0)
        check(n, call);
    std::string s(static_cast<std::size_t>(n) + 1, '\0');
    n = fn(h, &s[0], s.size());
    if (n < 0)
        check(n, call);
    s.resize(std::min(static_cast<std::size_t>(n), s.size() - 1));
    return s;
}

inline std::vector<device> copy_devices(const camcore_device_list *l) {
    std::vector<device> v;
    for (std::size_t i = 0; l && i < l->count; i++)
        v.emplace_back(l->devices[i], l->details ? l->details[i] : nullptr);
    return v;
}

} // namespace detail

/* ------------------------------------------------------------------ */
/* Pull loops                                                          */
/* ------------------------------------------------------------------ */

/**
 * An input range of owned frames, each step one call of a pull loop
 * (camcore_capturer_next_frame(), camcore_session_next_preview_frame()):
 * what capturer::frames() and session::preview_frames() return. It holds
 * the current frame, which the next step gives back to camcore (or the
 * range when it goes), and refers to the capturer or session, which must
 * outlive it. Neither copied nor moved: use it where it is returned.
 * begin() waits for the first frame; call it once. \since 0.2
 */
class frame_loop {
public:
    /** An input iterator over the frames; the end iterator is default-constructed. */
    class iterator {
    public:
        using iterator_category = std::input_iterator_tag;
        using value_type = frame;
        using difference_type = std::ptrdiff_t;
        using pointer = frame *;
        using reference = frame &;

        iterator() noexcept = default;
        /** The current frame: valid until the next step; it may be moved out to keep it. */
        reference operator*() const noexcept { return loop_->current_; }
        pointer operator->() const noexcept { return &loop_->current_; }
        /** The next frame: waits for it; throws as the function that made the range says. */
        iterator &operator++() {
            if (!loop_->advance())
                loop_ = nullptr;
            return *this;
        }
        void operator++(int) { ++*this; }
        friend bool operator==(const iterator &a, const iterator &b) noexcept { return a.loop_ == b.loop_; }
        friend bool operator!=(const iterator &a, const iterator &b) noexcept { return a.loop_ != b.loop_; }

    private:
        friend class frame_loop;
        explicit iterator(frame_loop *loop) noexcept : loop_(loop) {}
        frame_loop *loop_ = nullptr;
    };

    frame_loop(const frame_loop &) = delete;
    frame_loop &operator=(const frame_loop &) = delete;

    /** Waits for the first frame (the end at once when there is nothing to pull). */
    iterator begin() { return advance() ? iterator(this) : iterator(); }
    iterator end() noexcept { return iterator(); }

private:
    friend class capturer;
    friend class session;
    /* next(timeout_ms, &frame): the C pull-loop call; ended(status,
     * message): whether a failure is the loop's end rather than an error. */
    using next_fn = std::function<int(std::int32_t, const camcore_frame **)>;
    using ended_fn = std::function<bool(int, const std::string &)>;

    frame_loop(next_fn next, ended_fn ended, std::int32_t timeout_ms, const char *call)
        : next_(std::move(next)), ended_(std::move(ended)), timeout_ms_(timeout_ms), call_(call) {}

    /* The next frame into current_ (whose frame the call gives back): true;
     * false at the end; throws camcore::error for anything else. */
    bool advance() {
        const camcore_frame *p = current_.take();
        int st = next_(timeout_ms_, &p);
        current_.adopt(p); /* the next frame; NULL; or, refused, the one passed in */
        if (st == CAMCORE_OK)
            return true;
        std::string message = camcore_last_error_message();
        if (ended_(st, message))
            return false;
        throw error(call_, st, message);
    }

    /* A CAMCORE_E_STATE that ends a loop rather than fails it: the capture
     * was stopped or closed, or the preview removed ("stopped", "closed",
     * as camcore.h words it at camcore_capturer_get_frame_fd()); a waiting
     * step wakes with it before a stop on another thread has finished. */
    static bool nothing_more(int status, const std::string &message) {
        return status == CAMCORE_E_STATE &&
               (message.find("stopped") != std::string::npos || message.find("closed") != std::string::npos ||
                message.find("removed") != std::string::npos);
    }

    next_fn next_;
    ended_fn ended_;
    std::int32_t timeout_ms_;
    const char *call_;
    frame current_;
};

/* ------------------------------------------------------------------ */
/* Capturer                                                            */
/* ------------------------------------------------------------------ */

/** The capture counters (camcore_capture_stats). */
inline camcore_capture_stats empty_stats() noexcept {
    camcore_capture_stats s;
    std::memset(&s, 0, sizeof s);
    s.struct_size = sizeof s;
    return s;
}

/**
 * One open camera (camcore_capturer). Move-only; the destructor closes it
 * (stopping first), after which no callback runs, and only then are the
 * callbacks destroyed.
 */
class capturer {
public:
    capturer() = default;
    /** Takes over an open C capturer. */
    explicit capturer(camcore_capturer *c) noexcept : c_(c) {}
    capturer(capturer &&o) noexcept
        : c_(std::exchange(o.c_, nullptr)), frames_(std::move(o.frames_)), controls_(std::move(o.controls_)) {}
    capturer &operator=(capturer &&o) noexcept {
        if (this != &o) {
            if (!release_handle()) { /* inside its own callback: leave it open, leaked */
                c_ = nullptr;
                (void)frames_.release();
                (void)controls_.release();
            }
            c_ = std::exchange(o.c_, nullptr);
            frames_ = std::move(o.frames_);
            controls_ = std::move(o.controls_);
        }
        return *this;
    }
    capturer(const capturer &) = delete;
    capturer &operator=(const capturer &) = delete;
    /** Closes the capturer (see close()); where camcore refuses that (inside its own callback, before 0.2) it is left open and leaked. */
    ~capturer() {
        if (!release_handle()) {
            (void)frames_.release();
            (void)controls_.release();
        }
    }

    camcore_capturer *get() const noexcept { return c_; }
    explicit operator bool() const noexcept { return c_ != nullptr; }

    /**
     * Closes now (stops first); the callbacks are destroyed after that.
     * From inside one of this capturer's own callbacks it returns at once:
     * no callback of it starts after the running one, camcore stops and
     * closes the device right after that callback returns, and the wrapper
     * destroys the callbacks then. A camcore before 0.2 cannot close it
     * there (it would wait for that very callback): this then throws
     * CAMCORE_E_WOULD_DEADLOCK and the capturer stays as it was.
     */
    void close() {
        if (!release_handle())
            throw error("camcore_capturer_close", CAMCORE_E_WOULD_DEADLOCK,
                        "called from inside the capturer's own callback");
    }

    /**
     * Starts streaming; on_frame(frame_view) runs on the capture thread for
     * each frame (the view is borrowed for the call: retain() keeps it).
     * on_error(status, message) when streaming ends on its own; on_stall(stalled,
     * since_ns) when frames stop and come back; on_restart(restarted, attempt)
     * around S48's restart of a stall (config.stall_restart_ms). Throws
     * camcore::error.
     */
    template <typename OnFrame>
    void start(const camcore_capture_config &config, OnFrame &&on_frame,
               std::function<void(int, const std::string &)> on_error = {},
               std::function<void(bool, std::uint64_t)> on_stall = {},
               std::function<void(bool, std::uint32_t)> on_restart = {}) {
        auto h = std::make_unique<detail::frame_handlers>();
        h->on_frame = std::forward<OnFrame>(on_frame);
        h->on_error = std::move(on_error);
        h->on_stall = std::move(on_stall);
        h->on_restart = std::move(on_restart);
        camcore_frame_callbacks cb = h->c();
        check(camcore_capturer_start(c_, &config, &cb), "camcore_capturer_start");
        /* Started: the previous handlers' stream had stopped (start refuses
         * a streaming capturer), so nothing calls them any more. */
        frames_ = std::move(h);
    }

    /** Starts in pull mode (S36: frames wait in a queue of depth for acquire()). */
    void start_pull(const camcore_capture_config &config, std::uint32_t depth = 2) {
        check(camcore_capturer_start_pull(c_, &config, depth), "camcore_capturer_start_pull");
    }

    /**
     * The oldest queued frame (pull mode), waiting up to timeout_ms (< 0:
     * no limit); std::nullopt when none came in time. Throws for anything else.
     */
    std::optional<frame> acquire(std::int32_t timeout_ms = -1) {
        const camcore_frame *f = nullptr;
        int st = camcore_capturer_acquire_frame(c_, timeout_ms, &f);
        if (st == CAMCORE_E_TIMEOUT)
            return std::nullopt;
        check(st, "camcore_capturer_acquire_frame");
        return frame(f);
    }

    /** An eventfd readable while a frame waits (pull mode); camcore's, do not close it. */
    int frame_fd() const {
        std::int32_t fd = -1;
        check(camcore_capturer_get_frame_fd(c_, &fd), "camcore_capturer_get_frame_fd");
        return fd;
    }

    /**
     * A pull loop's one call per frame (camcore_capturer_next_frame, S36):
     * releases the frame f holds, if any, then takes the oldest queued frame
     * into f, waiting up to timeout_ms (< 0: no limit; 0: only a frame that
     * is ready). So
     *
     *     camcore::frame f;
     *     while (cap.next_frame(f, 1000)) use(f);
     *
     * holds one frame at a time. While the app keeps up, the frame is
     * dequeued on the calling thread itself (no hand-over from camcore's
     * capture thread), so such a loop costs about what a frame callback
     * does. f's old frame is released whatever the outcome.
     *
     * Returns true with the next frame in f; false, f empty, when none came
     * in time. Throws camcore::error: CAMCORE_E_STATE (not started with
     * start_pull(), stopped, closed, or as many frames unreleased as the
     * queue depth: frames kept with retain() or moved out of f count),
     * CAMCORE_E_WOULD_DEADLOCK (from the capturer's own callback), or what
     * ended streaming (CAMCORE_E_NO_DEVICE, CAMCORE_E_IO, ...).
     * Threads: any; frames come out in capture order. \since 0.2
     */
    bool next_frame(frame &f, std::int32_t timeout_ms = -1) {
        int st = pull_next(f, timeout_ms);
        if (st == CAMCORE_E_TIMEOUT)
            return false;
        check(st, "camcore_capturer_next_frame");
        return true;
    }

    /**
     * The frames of this pull capture (start it with start_pull() first) as
     * a range, one next_frame() per step:
     *
     *     cap.start_pull(camcore::capture_config(), 2);
     *     for (camcore::frame &f : cap.frames(1000)) {
     *         use(f.plane(0));
     *         if (enough)
     *             break;
     *     }
     *
     * Each frame is valid until the next step (its buffer then goes back)
     * or the end of the loop; std::move() it out of the loop, or retain()
     * it, to keep it longer (a kept frame counts against the queue depth
     * until destroyed). The loop ends when the capture is stopped: stop()
     * from the loop's body, or from another thread while the loop waits
     * (camcore wakes the waiting step). A step throws camcore::error
     * CAMCORE_E_TIMEOUT when no frame came within timeout_ms (< 0: no
     * limit), and what next_frame() throws. The range neither starts nor
     * stops the capture; this capturer must outlive it. \since 0.2
     */
    frame_loop frames(std::int32_t timeout_ms = -1) {
        camcore_capturer *c = c_;
        return frame_loop([c](std::int32_t ms, const camcore_frame **f) { return camcore_capturer_next_frame(c, ms, f); },
                          [c](int st, const std::string &message) {
                              /* not streaming: never started, or stopped */
                              return st == CAMCORE_E_STATE &&
                                     (camcore_capturer_is_streaming(c) == 0 || frame_loop::nothing_more(st, message));
                          },
                          timeout_ms, "camcore_capturer_next_frame");
    }

    /**
     * Stops streaming; after it returns no callback runs. Rethrows the
     * first exception on_frame threw since the start, if any.
     */
    void stop() {
        check(camcore_capturer_stop(c_), "camcore_capturer_stop");
        if (frames_)
            if (std::exception_ptr e = frames_->take())
                std::rethrow_exception(e);
    }

    bool streaming() const noexcept { return camcore_capturer_is_streaming(c_) != 0; }

    /** What the driver applied (camcore_capturer_get_format). */
    camcore_capture_format format() const {
        camcore_capture_format f;
        std::memset(&f, 0, sizeof f);
        f.struct_size = sizeof f;
        check(camcore_capturer_get_format(c_, &f), "camcore_capturer_get_format");
        return f;
    }

    camcore_capture_stats stats() const {
        camcore_capture_stats s = empty_stats();
        check(camcore_capturer_get_stats(c_, &s), "camcore_capturer_get_stats");
        return s;
    }

    /** What camcore last found of the frames' geometry (S43); "" while every frame fits. */
    std::string frame_note() const {
        return detail::text_out(camcore_capturer_get_frame_note, c_, "camcore_capturer_get_frame_note");
    }

    /** The device's fd (not for the synthetic camera: CAMCORE_E_NOT_SUPPORTED). */
    int fd() const {
        int fd = camcore_capturer_fd(c_);
        check(fd, "camcore_capturer_fd");
        return fd;
    }

    std::string device_id() const {
        const char *id = camcore_capturer_device_id(c_);
        return id ? id : "";
    }

    /* Controls (S27) */

    std::vector<control> controls() const {
        camcore_control_list *l = nullptr;
        check(camcore_capturer_list_controls(c_, &l), "camcore_capturer_list_controls");
        std::unique_ptr<camcore_control_list, void (*)(camcore_control_list *)> owned(l, camcore_control_list_free);
        std::vector<control> v;
        for (std::size_t i = 0; i < l->count; i++) {
            const camcore_control_info &ci = l->controls[i];
            control c;
            c.id = ci.id;
            c.type = ci.type;
            c.name = ci.name ? ci.name : "";
            c.minimum = ci.minimum;
            c.maximum = ci.maximum;
            c.step = ci.step;
            c.default_value = ci.default_value;
            c.value = ci.value;
            c.flags = ci.flags;
            for (std::uint32_t m = 0; m < ci.menu_count; m++)
                c.menu.push_back({ci.menu[m].index, ci.menu[m].name ? ci.menu[m].name : "", ci.menu[m].value});
            v.push_back(std::move(c));
        }
        return v;
    }
    std::int64_t get_control(std::uint32_t id) const {
        std::int64_t v = 0;
        check(camcore_capturer_get_control(c_, id, &v), "camcore_capturer_get_control");
        return v;
    }
    /** Sets a control; returns the value the driver applied. */
    std::int64_t set_control(std::uint32_t id, std::int64_t value) {
        std::int64_t applied = 0;
        check(camcore_capturer_set_control(c_, id, value, &applied), "camcore_capturer_set_control");
        return applied;
    }
    std::string get_control_string(std::uint32_t id, std::size_t max_length = 4096) const {
        std::vector<char> buf(max_length + 1);
        check(camcore_capturer_get_control_string(c_, id, buf.data(), buf.size()),
              "camcore_capturer_get_control_string");
        return buf.data();
    }
    void set_control_string(std::uint32_t id, const std::string &value) {
        check(camcore_capturer_set_control_string(c_, id, value.c_str()), "camcore_capturer_set_control_string");
    }
    /**
     * on_changed(id, value, flags, changes) on the control-event thread;
     * an empty function removes the callback.
     */
    void on_control_changed(std::function<void(std::uint32_t, std::int64_t, std::uint32_t, std::uint32_t)> fn) {
        if (!fn) {
            check(camcore_capturer_set_control_callbacks(c_, nullptr), "camcore_capturer_set_control_callbacks");
            controls_.reset();
            return;
        }
        auto h = std::make_unique<control_fn>(std::move(fn));
        camcore_control_callbacks cb;
        camcore_control_callbacks_init(&cb);
        cb.user_data = h.get();
        cb.on_control_changed = [](void *u, std::uint32_t id, std::int64_t value, std::uint32_t flags,
                                   std::uint32_t changes) {
            detail::guarded([&] { (*static_cast<control_fn *>(u))(id, value, flags, changes); });
        };
        check(camcore_capturer_set_control_callbacks(c_, &cb), "camcore_capturer_set_control_callbacks");
        controls_ = std::move(h); /* the old callbacks are not called after the call returned */
    }

private:
    using control_fn = std::function<void(std::uint32_t, std::int64_t, std::uint32_t, std::uint32_t)>;

    /* camcore_capturer_next_frame with f's retain: f then holds the next
     * frame, or nothing, or (camcore refused a pointer that is no retained
     * frame of its own, releasing nothing) what it held. */
    int pull_next(frame &f, std::int32_t timeout_ms) noexcept {
        const camcore_frame *p = f.take();
        int st = camcore_capturer_next_frame(c_, timeout_ms, &p);
        f.adopt(p);
        return st;
    }

    /* Closes the C capturer and frees the callbacks; false (nothing freed)
     * when camcore refused, being inside the capturer's own callback. Done
     * from inside a callback, the callbacks are freed once it returned. */
    bool release_handle() noexcept {
        if (c_ == nullptr)
            return true;
        if (detail::callback_depth() == 0) {
            camcore_capturer_close(c_);
        } else {
            camcore_capturer *c = c_;
            if (detail::refused_inside_callback([c] { camcore_capturer_close(c); },
                                                [c] {
                                                    camcore_capture_stats s = empty_stats();
                                                    return camcore_capturer_get_stats(c, &s) == CAMCORE_OK;
                                                }))
                return false; /* still open, the callbacks run on: the destructor leaks them with it */
            detail::destroy_after_callback(std::move(frames_));
            detail::destroy_after_callback(std::move(controls_));
        }
        c_ = nullptr;
        frames_.reset();
        controls_.reset();
        return true;
    }

    camcore_capturer *c_ = nullptr;
    std::unique_ptr<detail::frame_handlers> frames_;
    std::unique_ptr<control_fn> controls_;
};

/* ------------------------------------------------------------------ */
/* Session                                                             */
/* ------------------------------------------------------------------ */

/** Device events of a session (S24), on its camera queue. Any may be empty. */
struct device_events {
    std::function<void(const device &)> on_connected, on_disconnected;
    std::function<void(const device &, const camcore_capture_format &)> on_selected;
    std::function<void(const device &, int, const std::string &)> on_error;
    std::function<void(const device &, bool, std::uint64_t)> on_stall;
    /** S48: (device, restarted, attempt) around the restart of a stalled camera. */
    std::function<void(const device &, bool, std::uint32_t)> on_restart;
};

/** What a capture hook does with a camera frame (S20; CAMCORE_HOOK_*). \since 0.2 */
enum class hook_result : int {
    pass = CAMCORE_HOOK_PASS,       /**< hand the frame on unchanged */
    drop = CAMCORE_HOOK_DROP,       /**< drop it: transmission and previews do not see it */
    replace = CAMCORE_HOOK_REPLACE, /**< hand on the replacement the hook filled instead */
};

/**
 * A capture hook (S20): hook(frame, replacement) sees each camera frame
 * before transmission and previews. replacement is a camcore_frame with
 * struct_size set and all else zero, to fill for hook_result::replace.
 * \since 0.2
 */
using capture_hook = std::function<hook_result(const frame_view &frame, camcore_frame &replacement)>;

/**
 * A video session (camcore_session, S9-S21): the camera is on exactly
 * while video is transmitted or a preview is active. Move-only; the
 * destructor frees it, and only then are its callbacks destroyed.
 */
class session {
public:
    session() = default;
    explicit session(camcore_session *s) : s_(s), state_(std::make_unique<callbacks>()) {}
    session(session &&o) noexcept : s_(std::exchange(o.s_, nullptr)), state_(std::move(o.state_)) {}
    session &operator=(session &&o) noexcept {
        if (this != &o) {
            if (!release_handle())
                (void)state_.release(); /* inside its own callback: left alive, leaked */
            s_ = std::exchange(o.s_, nullptr);
            state_ = std::move(o.state_);
        }
        return *this;
    }
    session(const session &) = delete;
    session &operator=(const session &) = delete;
    /** Frees the session (see reset()); where camcore refuses that (inside its own callback, before 0.2) it is left alive and leaked. */
    ~session() {
        if (!release_handle())
            (void)state_.release();
    }

    camcore_session *get() const noexcept { return s_; }
    explicit operator bool() const noexcept { return s_ != nullptr; }

    /**
     * Frees the session (camera off); its callbacks are destroyed after
     * that. From inside one of the session's own callbacks it returns at
     * once: no callback of the session starts after the running one (not
     * even the rest of that frame's previews), camcore turns the camera off
     * right after that callback returns, and the wrapper destroys the
     * callbacks then. A camcore before 0.2 cannot free it there: this then
     * throws CAMCORE_E_WOULD_DEADLOCK and nothing changes.
     */
    void reset() {
        if (!release_handle())
            throw error("camcore_session_free", CAMCORE_E_WOULD_DEADLOCK,
                        "called from inside one of the session's own callbacks");
    }

    /* Transmission (S10-S15) */
    void start_transmission(bool paused = false, bool preparing = false) {
        check(camcore_session_start_transmission(s_, paused ? CAMCORE_VIDEO_PAUSE : CAMCORE_VIDEO_RESUME,
                                                 preparing ? 1 : 0),
              "camcore_session_start_transmission");
    }
    void end_preparation() { check(camcore_session_end_preparation(s_), "camcore_session_end_preparation"); }
    void pause_video() { check(camcore_session_pause_video(s_), "camcore_session_pause_video"); }
    void resume_video() { check(camcore_session_resume_video(s_), "camcore_session_resume_video"); }
    void hold() { check(camcore_session_hold(s_), "camcore_session_hold"); }
    void unhold() { check(camcore_session_unhold(s_), "camcore_session_unhold"); }
    void set_hard_mute(bool muted) { check(camcore_session_set_hard_mute(s_, muted ? 1 : 0), "camcore_session_set_hard_mute"); }
    void end_transmission() { check(camcore_session_end_transmission(s_), "camcore_session_end_transmission"); }

    /** Where transmitted frames go (on the capture thread); an empty function drops them. */
    void set_transmission_sink(std::function<void(const frame_view &)> on_frame) {
        if (!on_frame) {
            check(camcore_session_set_transmission_sink(s_, nullptr), "camcore_session_set_transmission_sink");
            retire(std::move(state_->sink));
            return;
        }
        auto h = std::make_unique<detail::frame_handlers>();
        h->on_frame = std::move(on_frame);
        camcore_frame_callbacks cb = h->c();
        check(camcore_session_set_transmission_sink(s_, &cb), "camcore_session_set_transmission_sink");
        retire(std::exchange(state_->sink, std::move(h)));
    }

    /** Adds a preview (S14) receiving every camera frame; returns its id. */
    std::uint32_t add_preview(std::function<void(const frame_view &)> on_frame) {
        auto h = std::make_unique<detail::frame_handlers>();
        h->on_frame = std::move(on_frame);
        camcore_frame_callbacks cb = h->c();
        std::uint32_t id = 0;
        int st = camcore_session_add_preview(s_, &cb, &id);
        if (id != 0) /* added, even when turning the camera on failed */
            state_->previews[id] = std::move(h);
        check(st, "camcore_session_add_preview");
        return id;
    }
    /** Removes a preview; its callback is destroyed once camcore no longer calls it. */
    void remove_preview(std::uint32_t id) {
        check(camcore_session_remove_preview(s_, id), "camcore_session_remove_preview");
        auto it = state_->previews.find(id);
        if (it != state_->previews.end()) {
            retire(std::move(it->second));
            state_->previews.erase(it);
        }
    }
    /** Adds a pull preview (S36); read it with acquire_preview(). */
    std::uint32_t add_preview_pull(std::uint32_t depth = 2) {
        std::uint32_t id = 0;
        check(camcore_session_add_preview_pull(s_, depth, &id), "camcore_session_add_preview_pull");
        return id;
    }
    std::optional<frame> acquire_preview(std::uint32_t id, std::int32_t timeout_ms = -1) {
        const camcore_frame *f = nullptr;
        int st = camcore_session_acquire_preview_frame(s_, id, timeout_ms, &f);
        if (st == CAMCORE_E_TIMEOUT)
            return std::nullopt;
        check(st, "camcore_session_acquire_preview_frame");
        return frame(f);
    }

    /**
     * A pull preview's loop step (camcore_session_next_preview_frame, S36),
     * as capturer::next_frame() is for a capturer: releases the frame f
     * holds, if any, then takes the oldest queued frame of preview id into
     * f, waiting up to timeout_ms (< 0: no limit; 0: only a ready one):
     *
     *     camcore::frame f;
     *     while (s.next_preview_frame(id, f, 1000)) show(f);
     *
     * f's old frame is released whatever the outcome. Returns true with the
     * next frame in f; false, f empty, when none came in time. Throws
     * camcore::error: CAMCORE_E_INVALID_ARG (no pull preview with that id),
     * CAMCORE_E_STATE (as many frames unreleased as the queue depth, or the
     * preview was removed), CAMCORE_E_WOULD_DEADLOCK (with a timeout from the
     * session's own callbacks while no frame is queued). Threads: any.
     * \since 0.2
     */
    bool next_preview_frame(std::uint32_t id, frame &f, std::int32_t timeout_ms = -1) {
        const camcore_frame *p = f.take();
        int st = camcore_session_next_preview_frame(s_, id, timeout_ms, &p);
        f.adopt(p); /* the next frame; NULL; or, refused, the one passed in */
        if (st == CAMCORE_E_TIMEOUT)
            return false;
        check(st, "camcore_session_next_preview_frame");
        return true;
    }

    /**
     * The frames of pull preview id (add_preview_pull()) as a range, one
     * next_preview_frame() per step, as capturer::frames() is for a
     * capturer:
     *
     *     for (camcore::frame &f : s.preview_frames(id, 1000))
     *         show(f);
     *
     * Each frame is valid until the next step; std::move() it out, or
     * retain() it, to keep it longer (it counts against the queue depth).
     * The loop ends when the preview is removed while a step waits
     * (remove_preview() on another thread); one removed from the loop's
     * body is gone for the next step, which throws CAMCORE_E_INVALID_ARG
     * (no such preview): break out after removing it. A step throws
     * camcore::error CAMCORE_E_TIMEOUT when no frame came within timeout_ms
     * (< 0: no limit; the camera may be off: the session stopped), and what
     * next_preview_frame() throws. This session must outlive the range.
     * \since 0.2
     */
    frame_loop preview_frames(std::uint32_t id, std::int32_t timeout_ms = -1) {
        camcore_session *s = s_;
        return frame_loop([s, id](std::int32_t ms,
                                  const camcore_frame **f) { return camcore_session_next_preview_frame(s, id, ms, f); },
                          &frame_loop::nothing_more, timeout_ms, "camcore_session_next_preview_frame");
    }

    /**
     * An eventfd readable exactly while a frame of the pull preview id is
     * queued (camcore_session_get_preview_fd, S36), for the app's own
     * poll/epoll loop: when it is readable, acquire_preview(id, 0) takes the
     * frame. camcore's: never read, write or close it; valid until the
     * preview is removed or the session freed. Throws camcore::error
     * CAMCORE_E_INVALID_ARG (no pull preview with that id). Threads: any.
     * \since 0.2
     */
    int preview_fd(std::uint32_t id) const {
        std::int32_t fd = -1;
        check(camcore_session_get_preview_fd(s_, id, &fd), "camcore_session_get_preview_fd");
        return fd;
    }

    /** Why the camera runs another setting than negotiated (S47, S43); "" when it does not. */
    std::string note() const { return detail::text_out(camcore_session_get_note, s_, "camcore_session_get_note"); }

    /** The state now (camcore_session_get_state). */
    camcore_session_state state() const {
        camcore_session_state st;
        std::memset(&st, 0, sizeof st);
        st.struct_size = sizeof st;
        check(camcore_session_get_state(s_, &st), "camcore_session_get_state");
        return st;
    }

    /* Capturer operations (S17-S19): queued; done(status) runs once on the camera queue. */
    using completion = std::function<void(int)>;
    void start(const camcore_capture_config &config, completion done = {}) {
        queue(done, [&](camcore_completion_fn fn, void *u) { return camcore_session_start(s_, &config, fn, u); },
              "camcore_session_start");
    }
    void stop(completion done = {}) {
        queue(done, [&](camcore_completion_fn fn, void *u) { return camcore_session_stop(s_, fn, u); },
              "camcore_session_stop");
    }
    void restart(completion done = {}) {
        queue(done, [&](camcore_completion_fn fn, void *u) { return camcore_session_restart(s_, fn, u); },
              "camcore_session_restart");
    }
    void change(const camcore_capture_config &config, completion done = {}) {
        queue(done, [&](camcore_completion_fn fn, void *u) { return camcore_session_change(s_, &config, fn, u); },
              "camcore_session_change");
    }
    void select(const std::string &device_id, completion done = {}) {
        queue(done,
              [&](camcore_completion_fn fn, void *u) { return camcore_session_select(s_, device_id.c_str(), fn, u); },
              "camcore_session_select");
    }
    void flip(completion done = {}) {
        queue(done, [&](camcore_completion_fn fn, void *u) { return camcore_session_flip(s_, fn, u); },
              "camcore_session_flip");
    }
    void set_preference(const camcore_preference &p, completion done = {}) {
        queue(done,
              [&](camcore_completion_fn fn, void *u) { return camcore_session_set_preference(s_, &p, fn, u); },
              "camcore_session_set_preference");
    }

    /** Device events; a default-constructed device_events removes them. */
    void set_device_events(device_events events) {
        bool any = events.on_connected || events.on_disconnected || events.on_selected || events.on_error ||
                   events.on_stall || events.on_restart;
        if (!any) {
            check(camcore_session_set_device_callbacks(s_, nullptr), "camcore_session_set_device_callbacks");
            retire(std::move(state_->events));
            return;
        }
        auto h = std::make_unique<device_events>(std::move(events));
        camcore_device_callbacks cb;
        std::memset(&cb, 0, sizeof cb);
        cb.struct_size = sizeof cb;
        cb.user_data = h.get();
        if (h->on_connected)
            cb.on_connected = [](void *u, const camcore_device_info *d) {
                detail::guarded([&] { static_cast<device_events *>(u)->on_connected(device(*d)); });
            };
        if (h->on_disconnected)
            cb.on_disconnected = [](void *u, const camcore_device_info *d) {
                detail::guarded([&] { static_cast<device_events *>(u)->on_disconnected(device(*d)); });
            };
        if (h->on_selected)
            cb.on_selected = [](void *u, const camcore_device_info *d, const camcore_capture_format *f) {
                detail::guarded([&] { static_cast<device_events *>(u)->on_selected(device(*d), *f); });
            };
        if (h->on_error)
            cb.on_error = [](void *u, const camcore_device_info *d, int status, const char *m) {
                detail::guarded([&] { static_cast<device_events *>(u)->on_error(device(*d), status, m ? m : ""); });
            };
        if (h->on_stall)
            cb.on_stall = [](void *u, const camcore_device_info *d, int stalled, std::uint64_t since) {
                detail::guarded([&] { static_cast<device_events *>(u)->on_stall(device(*d), stalled != 0, since); });
            };
        if (h->on_restart)
            cb.on_restart = [](void *u, const camcore_device_info *d, int restarted, std::uint32_t attempt) {
                detail::guarded([&] { static_cast<device_events *>(u)->on_restart(device(*d), restarted != 0, attempt); });
            };
        check(camcore_session_set_device_callbacks(s_, &cb), "camcore_session_set_device_callbacks");
        retire(std::exchange(state_->events, std::move(h)));
    }

    /**
     * The capture hook (camcore_session_set_capture_hook, S20):
     * hook(frame, replacement) runs for each camera frame before
     * transmission and previews, on the capture thread (the frame is
     * borrowed for the call), and returns hook_result::pass,
     * hook_result::drop, or hook_result::replace after filling replacement:
     * fourcc, width, height, plane_count and planes (pointing at memory of
     * yours that stays valid until the hook is next called or removed),
     * sequence and timestamp_ns as you like. A replacement that does not fit
     * its format is dropped (never the camera's frame in its place); why is
     * then the capture thread's camcore_last_error_message(). An exception
     * the hook throws is caught, and the frame passes unchanged. An empty
     * function removes the hook. After this returns the old hook is not
     * called again, and the wrapper destroys it; from inside one of the
     * session's own callbacks camcore applies the change after that
     * callback, and the old hook is kept until the session is freed.
     * Throws camcore::error (CAMCORE_E_INVALID_ARG). Threads: any, also the
     * session's callbacks. \since 0.2
     */
    void set_capture_hook(capture_hook hook) {
        if (!hook) {
            check(camcore_session_set_capture_hook(s_, nullptr), "camcore_session_set_capture_hook");
            retire(std::move(state_->hook));
            return;
        }
        auto h = std::make_unique<capture_hook>(std::move(hook));
        camcore_capture_hook c;
        std::memset(&c, 0, sizeof c);
        c.struct_size = sizeof c;
        c.user_data = h.get();
        c.on_capture = [](void *u, const camcore_frame *f, camcore_frame *replacement) -> int {
            detail::in_callback mark;
            try {
                return static_cast<int>((*static_cast<capture_hook *>(u))(frame_view(f), *replacement));
            } catch (...) {
                return CAMCORE_HOOK_PASS;
            }
        };
        check(camcore_session_set_capture_hook(s_, &c), "camcore_session_set_capture_hook");
        retire(std::exchange(state_->hook, std::move(h)));
    }

    /* Custom source (S21) */
    void set_custom_source(bool active) {
        check(camcore_session_set_custom_source(s_, active ? 1 : 0), "camcore_session_set_custom_source");
    }
    void push_frame(const camcore_frame &f) { check(camcore_session_push_frame(s_, &f), "camcore_session_push_frame"); }

private:
    struct callbacks {
        std::unique_ptr<detail::frame_handlers> sink;
        std::map<std::uint32_t, std::unique_ptr<detail::frame_handlers>> previews;
        std::unique_ptr<device_events> events;
        std::unique_ptr<capture_hook> hook;
        std::vector<std::shared_ptr<void>> retired;
        detail::completions done;
    };

    /* Frees the C session, then the callbacks; false (nothing freed) when
     * camcore refused, being inside one of the session's own callbacks. Done
     * from inside a callback, the callbacks are freed once it returned. */
    bool release_handle() noexcept {
        if (s_ == nullptr)
            return true;
        if (detail::callback_depth() == 0) {
            camcore_session_free(s_);
        } else {
            camcore_session *s = s_;
            if (detail::refused_inside_callback([s] { camcore_session_free(s); },
                                                [s] {
                                                    camcore_session_state st;
                                                    std::memset(&st, 0, sizeof st);
                                                    st.struct_size = sizeof st;
                                                    return camcore_session_get_state(s, &st) == CAMCORE_OK;
                                                }))
                return false;
            detail::destroy_after_callback(std::move(state_));
        }
        s_ = nullptr;
        state_.reset();
        return true;
    }

    /* A replaced or removed callback: freed now, or, when the change was
     * made from inside a callback (camcore then applies it after that
     * callback returns, and the old one may still be running), kept until
     * the session is freed. */
    template <typename T>
    void retire(std::unique_ptr<T> old) {
        if (old && detail::callback_depth() > 0)
            state_->retired.emplace_back(std::move(old));
    }

    template <typename Call>
    void queue(completion &done, Call &&call, const char *name) {
        if (!done) {
            check(call(nullptr, nullptr), name);
            return;
        }
        detail::completions::ticket *t = state_->done.add(std::move(done));
        int st = call(&detail::completions::trampoline, t);
        if (st < 0) {
            std::string message = camcore_last_error_message();
            state_->done.cancel(t); /* camcore will not call it */
            throw error(name, st, message);
        }
    }

    camcore_session *s_ = nullptr;
    /* Declared after s_ and destroyed in reset() only after camcore_session_free returned. */
    std::unique_ptr<callbacks> state_;
};

/* ------------------------------------------------------------------ */
/* Manager                                                             */
/* ------------------------------------------------------------------ */

/** Whether a manager lists camcore's synthetic camera (S4). */
enum class synthetic {
    no = 0,  /**< only when CAMCORE_SYNTHETIC_CAMERA=1 is set */
    one = 1, /**< "synthetic:0", after the real cameras */
    two = 2, /**< a front "synthetic:0" and a back "synthetic:1" */
};

/** A camera manager (camcore_manager). Move-only; the destructor frees it. */
class manager {
public:
    /** A manager with the default config, listing the synthetic camera as asked. */
    explicit manager(synthetic s = synthetic::no) {
        camcore_manager_config c;
        camcore_manager_config_init(&c);
        c.include_synthetic = static_cast<std::int32_t>(s);
        create(c);
    }
    /** A manager with a config filled by camcore_manager_config_init(). */
    explicit manager(const camcore_manager_config &config) { create(config); }
    manager(manager &&o) noexcept : m_(std::exchange(o.m_, nullptr)), hotplug_(std::move(o.hotplug_)) {}
    manager &operator=(manager &&o) noexcept {
        if (this != &o) {
            if (!release_handle())
                (void)hotplug_.release(); /* inside a callback of its own: left alive, leaked */
            m_ = std::exchange(o.m_, nullptr);
            hotplug_ = std::move(o.hotplug_);
        }
        return *this;
    }
    manager(const manager &) = delete;
    manager &operator=(const manager &) = delete;
    /** Frees the manager (see reset()); where camcore refuses that (inside a callback of its own, before 0.2) it is left alive and leaked. */
    ~manager() {
        if (!release_handle())
            (void)hotplug_.release();
    }

    camcore_manager *get() const noexcept { return m_; }

    /**
     * Frees the manager; every capturer and session made from it is
     * stopped (their objects stay valid to destroy). Callbacks are
     * destroyed after that. From inside a callback of the manager or of
     * what was made from it, it returns at once: none of their callbacks
     * starts after the running one, camcore finishes the free once that
     * callback returned, and the wrapper destroys the hot-plug callbacks
     * then. A camcore before 0.2 cannot free it there: this then throws
     * CAMCORE_E_WOULD_DEADLOCK and nothing changes.
     */
    void reset() {
        if (!release_handle())
            throw error("camcore_manager_free", CAMCORE_E_WOULD_DEADLOCK,
                        "called from inside a callback of the manager or of what was made from it");
    }

    /** The cameras present now (S1-S4, camcore_manager_list_devices); with
     *  hidden, also the capture nodes that are no cameras of their own (S40,
     *  camcore_manager_list_devices_with and CAMCORE_LIST_HIDDEN). */
    std::vector<device> devices(bool hidden = false) const {
        camcore_device_list *l = nullptr;
        if (hidden)
            check(camcore_manager_list_devices_with(m_, CAMCORE_LIST_HIDDEN, &l), "camcore_manager_list_devices_with");
        else
            check(camcore_manager_list_devices(m_, &l), "camcore_manager_list_devices");
        std::unique_ptr<camcore_device_list, void (*)(camcore_device_list *)> owned(l, camcore_device_list_free);
        return detail::copy_devices(l);
    }

    /** Whether a camera is there now, without asking for the permission (S49). */
    bool camera_present() const {
        int r = camcore_manager_camera_present(m_);
        if (r < 0)
            check(r, "camcore_manager_camera_present");
        return r == 1;
    }

    /** The processes that hold a camera's device node open (S46), in pid order. */
    std::vector<camcore_holder> holders(const std::string &device_id) const {
        std::size_t found = 0;
        check(camcore_manager_get_holders(m_, device_id.c_str(), nullptr, 0, &found, nullptr),
              "camcore_manager_get_holders");
        std::vector<camcore_holder> v(found + 4);
        check(camcore_manager_get_holders(m_, device_id.c_str(), v.data(), v.size(), &found, nullptr),
              "camcore_manager_get_holders");
        v.resize(std::min(found, v.size()));
        return v;
    }

    /** The formats of one camera (S5). */
    std::vector<format> formats(const std::string &device_id) const {
        camcore_format_list *l = nullptr;
        check(camcore_manager_list_formats(m_, device_id.c_str(), &l), "camcore_manager_list_formats");
        std::unique_ptr<camcore_format_list, void (*)(camcore_format_list *)> owned(l, camcore_format_list_free);
        std::vector<format> v;
        for (std::size_t i = 0; i < l->count; i++)
            v.emplace_back(l->formats[i]);
        return v;
    }

    /** The setting nearest to a preference (S6). */
    camcore_setting negotiate(const std::string &device_id, const camcore_preference &p = preference()) const {
        camcore_setting s;
        std::memset(&s, 0, sizeof s);
        s.struct_size = sizeof s;
        check(camcore_manager_negotiate(m_, device_id.c_str(), &p, &s), "camcore_manager_negotiate");
        return s;
    }

    /**
     * S7 format_for (camcore_manager_format_for): the format nearest to
     * width x height (pixels) among those that support rate exactly, nearest
     * as negotiate()'s rules (2) and (3) say: the closest aspect ratio, then
     * the smallest size at or above the one asked, else the largest below.
     * The setting's fourcc, width, height and fps go to capture_config().
     * Throws camcore::error: CAMCORE_E_NOT_SUPPORTED (no format supports
     * rate), CAMCORE_E_NO_DEVICE, CAMCORE_E_INVALID_ARG, CAMCORE_E_IO.
     * Threads: any. \since 0.2
     */
    camcore_setting format_for(const std::string &device_id, std::uint32_t width, std::uint32_t height,
                               camcore_fraction rate) const {
        camcore_setting s;
        std::memset(&s, 0, sizeof s);
        s.struct_size = sizeof s;
        check(camcore_manager_format_for(m_, device_id.c_str(), width, height, rate, &s),
              "camcore_manager_format_for");
        return s;
    }

    /**
     * S7 max_frame_rate (camcore_manager_max_frame_rate): rate itself if
     * the format `code` at width x height (pixels) supports it, else the
     * supported rate closest to it (40 of a 1-30 fps format: 30/1); rates in
     * frames per second as fractions. Throws camcore::error:
     * CAMCORE_E_NOT_SUPPORTED (no such format, or its rates unknown),
     * CAMCORE_E_NO_DEVICE, CAMCORE_E_INVALID_ARG, CAMCORE_E_IO.
     * Threads: any. \since 0.2
     */
    camcore_fraction max_frame_rate(const std::string &device_id, std::uint32_t code, std::uint32_t width,
                                    std::uint32_t height, camcore_fraction rate) const {
        camcore_fraction out{0, 0};
        check(camcore_manager_max_frame_rate(m_, device_id.c_str(), code, width, height, rate, &out),
              "camcore_manager_max_frame_rate");
        return out;
    }

    /**
     * The camera permission now (camcore_manager_get_camera_permission,
     * S35): the camera portal's answer, or CAMCORE_PERMISSION_GRANTED when
     * no portal is in use. Asks nothing. Throws camcore::error
     * (CAMCORE_E_STATE: the manager is being freed). Threads: any, also a
     * hot-plug callback. \since 0.2
     */
    camcore_permission camera_permission() const {
        std::int32_t state = CAMCORE_PERMISSION_UNKNOWN;
        check(camcore_manager_get_camera_permission(m_, &state), "camcore_manager_get_camera_permission");
        return static_cast<camcore_permission>(state);
    }

    /**
     * Asks the camera portal for camera access
     * (camcore_manager_request_camera_access, S35: AccessCamera), unless a
     * request is pending or access is granted, and waits up to timeout_ms
     * for the answer (< 0: until answered; 0: not at all). Returns the
     * permission then: CAMCORE_PERMISSION_GRANTED (also when no portal is in
     * use), or CAMCORE_PERMISSION_PENDING when no answer came in time (the
     * request stays pending; the answer comes to on_hotplug()'s permission
     * function). Throws camcore::error: CAMCORE_E_ACCESS (denied, or no
     * portal to ask: detail() says which), CAMCORE_E_WOULD_DEADLOCK (from a
     * hot-plug callback with a timeout), CAMCORE_E_STATE, CAMCORE_E_IO.
     * Threads: any; it blocks up to timeout_ms. \since 0.2
     */
    camcore_permission request_camera_access(std::int32_t timeout_ms = -1) {
        std::int32_t state = CAMCORE_PERMISSION_UNKNOWN;
        int st = camcore_manager_request_camera_access(m_, timeout_ms, &state);
        if (st == CAMCORE_E_TIMEOUT)
            return CAMCORE_PERMISSION_PENDING;
        check(st, "camcore_manager_request_camera_access");
        return static_cast<camcore_permission>(state);
    }

    /** Opens a camera. */
    capturer open(const std::string &device_id) const {
        camcore_capturer *c = nullptr;
        check(camcore_capturer_open(m_, device_id.c_str(), &c), "camcore_capturer_open");
        return capturer(c);
    }

    /** A video session on this manager's cameras; the manager must outlive it. */
    session make_session(const camcore_session_config &config = session_config()) const {
        camcore_session *s = nullptr;
        check(camcore_session_new(m_, &config, &s), "camcore_session_new");
        return session(s);
    }

    /**
     * Hot-plug reports (S24) on camcore's hot-plug thread; all functions
     * empty stop them. permission(state, detail) (S35, \since 0.2) runs on
     * camcore's portal thread when the camera permission changes (a
     * camcore_permission, and why).
     */
    void on_hotplug(std::function<void(const device &)> connected, std::function<void(const device &)> disconnected,
                    std::function<void(camcore_permission, const std::string &)> permission = {}) {
        if (!connected && !disconnected && !permission) {
            check(camcore_manager_set_hotplug_callbacks(m_, nullptr), "camcore_manager_set_hotplug_callbacks");
            hotplug_.reset();
            return;
        }
        auto h = std::make_unique<hotplug>(hotplug{std::move(connected), std::move(disconnected), std::move(permission)});
        camcore_hotplug_callbacks cb;
        std::memset(&cb, 0, sizeof cb);
        cb.struct_size = sizeof cb;
        cb.user_data = h.get();
        if (h->connected)
            cb.on_connected = [](void *u, const camcore_device_info *d) {
                detail::guarded([&] { static_cast<hotplug *>(u)->connected(device(*d)); });
            };
        if (h->disconnected)
            cb.on_disconnected = [](void *u, const camcore_device_info *d) {
                detail::guarded([&] { static_cast<hotplug *>(u)->disconnected(device(*d)); });
            };
        if (h->permission)
            cb.on_permission = [](void *u, std::int32_t state, const char *why) {
                detail::guarded(
                    [&] { static_cast<hotplug *>(u)->permission(static_cast<camcore_permission>(state), why ? why : ""); });
            };
        check(camcore_manager_set_hotplug_callbacks(m_, &cb), "camcore_manager_set_hotplug_callbacks");
        hotplug_ = std::move(h);
    }

private:
    struct hotplug {
        std::function<void(const device &)> connected, disconnected;
        std::function<void(camcore_permission, const std::string &)> permission;
    };
    /* Frees the C manager, then the hot-plug callbacks; false (nothing
     * freed) when camcore refused: inside a callback of its own. Done from
     * inside a callback, the callbacks are freed once it returned. */
    bool release_handle() noexcept {
        if (m_ == nullptr)
            return true;
        if (detail::callback_depth() == 0) {
            camcore_manager_free(m_);
        } else {
            camcore_manager *m = m_;
            if (detail::refused_inside_callback([m] { camcore_manager_free(m); },
                                                [m] {
                                                    std::int32_t permission = 0;
                                                    return camcore_manager_get_camera_permission(m, &permission) ==
                                                           CAMCORE_OK;
                                                }))
                return false;
            detail::destroy_after_callback(std::move(hotplug_));
        }
        m_ = nullptr;
        hotplug_.reset();
        return true;
    }
    void create(const camcore_manager_config &c) {
        check(camcore_manager_new(&c, &m_), "camcore_manager_new");
    }
    camcore_manager *m_ = nullptr;
    std::unique_ptr<hotplug> hotplug_;
};

/** The loaded library's version as a string, "major.minor.patch" ("0.2.0"; camcore_version_string()). */
inline std::string version() { return camcore_version_string(); }

/**
 * The loaded library's version, packed as CAMCORE_VERSION_NUM does
 * (camcore_version): (major << 16) | (minor << 8) | patch. Compare it with
 * CAMCORE_VERSION, the version of the camcore.h this was compiled with, to
 * find a header/library mismatch. Never fails. Threads: any. \since 0.2
 */
inline std::uint32_t version_number() noexcept { return camcore_version(); }

} // namespace camcore

#endif /* CAMCORE_HPP */
