// camcore-cpp-demo — libcamcore from C++17.
//
// Shows how to hold camcore's handles in std::unique_ptr with custom
// deleters (RAII), turn status codes into exceptions, and receive frames
// in a C++ lambda through the callbacks' user_data pointer.
//
// Build:  make
// Run:    ./camcore-cpp-demo [DEVICE-ID] [FRAMES]
//         CAMCORE_SYNTHETIC_CAMERA=1 ./camcore-cpp-demo   # no camera needed

#include <camcore.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace camcore {

// A failed camcore call: the status code and the library's message.
class Error : public std::runtime_error {
public:
    Error(const char *call, int status)
        : std::runtime_error(std::string(call) + ": " + camcore_strerror(status) +
                             detail(camcore_last_error_message())),
          status_(status) {}
    int status() const noexcept { return status_; }

private:
    static std::string detail(const char *message) {
        return (message && *message) ? std::string(" (") + message + ")" : std::string();
    }
    int status_;
};

inline void check(const char *call, int status) {
    if (status != CAMCORE_OK)
        throw Error(call, status);
}

// One deleter per handle type; each free/close function accepts NULL.
struct ManagerDeleter {
    void operator()(camcore_manager *m) const noexcept { camcore_manager_free(m); }
};
struct DeviceListDeleter {
    void operator()(camcore_device_list *l) const noexcept { camcore_device_list_free(l); }
};
struct FormatListDeleter {
    void operator()(camcore_format_list *l) const noexcept { camcore_format_list_free(l); }
};
struct CapturerDeleter {
    // Close stops streaming first; after it returns no callback runs, so the
    // objects the callbacks use may be destroyed after the capturer.
    void operator()(camcore_capturer *c) const noexcept { camcore_capturer_close(c); }
};

using Manager = std::unique_ptr<camcore_manager, ManagerDeleter>;
using DeviceList = std::unique_ptr<camcore_device_list, DeviceListDeleter>;
using FormatList = std::unique_ptr<camcore_format_list, FormatListDeleter>;
using Capturer = std::unique_ptr<camcore_capturer, CapturerDeleter>;

// The default config lists the synthetic camera only when the environment
// variable CAMCORE_SYNTHETIC_CAMERA=1 is set.
inline Manager make_manager(bool include_synthetic = false) {
    camcore_manager_config config;
    camcore_manager_config_init(&config);
    config.include_synthetic = include_synthetic ? 1 : 0;
    camcore_manager *raw = nullptr;
    check("camcore_manager_new", camcore_manager_new(&config, &raw));
    return Manager(raw);
}

inline DeviceList list_devices(camcore_manager *manager) {
    camcore_device_list *raw = nullptr;
    check("camcore_manager_list_devices", camcore_manager_list_devices(manager, &raw));
    return DeviceList(raw);
}

inline FormatList list_formats(camcore_manager *manager, const char *device_id) {
    camcore_format_list *raw = nullptr;
    check("camcore_manager_list_formats", camcore_manager_list_formats(manager, device_id, &raw));
    return FormatList(raw);
}

inline Capturer open(camcore_manager *manager, const char *device_id) {
    camcore_capturer *raw = nullptr;
    check("camcore_capturer_open", camcore_capturer_open(manager, device_id, &raw));
    return Capturer(raw);
}

using FrameHandler = std::function<void(const camcore_frame &)>;

// Starts capturing, calling `handler` on the capture thread for each frame.
// The handler must outlive the capture: stop or close the capturer before
// it is destroyed.
inline void start(camcore_capturer *capturer, const camcore_capture_config &config,
                  FrameHandler &handler) {
    camcore_frame_callbacks callbacks;
    camcore_frame_callbacks_init(&callbacks);
    callbacks.user_data = &handler;
    // A lambda without captures converts to the C function pointer; the
    // real handler travels in user_data. Exceptions must not cross into C.
    callbacks.on_frame = [](void *user_data, const camcore_frame *frame) {
        try {
            (*static_cast<FrameHandler *>(user_data))(*frame);
        } catch (const std::exception &e) {
            std::fprintf(stderr, "frame handler threw: %s\n", e.what());
        }
    };
    check("camcore_capturer_start", camcore_capturer_start(capturer, &config, &callbacks));
}

inline std::string fourcc_string(uint32_t code) {
    char text[5];
    return camcore_fourcc_to_string(code, text);
}

} // namespace camcore

int main(int argc, char **argv) {
    try {
        const int frames_arg = argc > 2 ? std::atoi(argv[2]) : 10;
        const size_t wanted = frames_arg > 0 ? static_cast<size_t>(frames_arg) : 1u;

        std::printf("camcore %s\n", camcore_version_string());
        auto manager = camcore::make_manager();
        auto devices = camcore::list_devices(manager.get());

        std::printf("%zu camera(s)\n", devices->count);
        for (size_t i = 0; i < devices->count; i++) {
            const camcore_device_info &d = devices->devices[i];
            auto formats = camcore::list_formats(manager.get(), d.id);
            std::printf("  %s  [%s]  %s, %zu format entries\n", d.name, d.id, d.node,
                        formats->count);
        }
        if (devices->count == 0) {
            std::fprintf(stderr, "no camera (set CAMCORE_SYNTHETIC_CAMERA=1 for a test pattern)\n");
            return 1;
        }
        const std::string device_id = argc > 1 ? argv[1] : devices->devices[0].id;

        // Frames arrive on the capture thread; the lambda keeps the first
        // `wanted` ones' metadata and wakes main up.
        struct Seen {
            uint32_t sequence, width, height, fourcc, stride;
            uint64_t timestamp_ns;
            unsigned luma_mean;
        };
        std::mutex lock;
        std::condition_variable done;
        std::vector<Seen> seen;

        camcore::FrameHandler handler = [&](const camcore_frame &frame) {
            // The mean of the first row's luma (byte 0, 2, 4.. of YUYV).
            const camcore_plane &p = frame.planes[0];
            unsigned long sum = 0;
            for (uint32_t x = 0; x < frame.width && 2 * x < p.length; x++)
                sum += p.data[2 * x];
            std::lock_guard<std::mutex> guard(lock);
            if (seen.size() < wanted) {
                seen.push_back({frame.sequence, frame.width, frame.height, frame.fourcc,
                                p.stride, frame.timestamp_ns,
                                frame.width ? static_cast<unsigned>(sum / frame.width) : 0u});
                if (seen.size() == wanted)
                    done.notify_one();
            }
        };

        // Declared after the state the handler uses, so it is closed (and its
        // callbacks finished) before that state is destroyed.
        auto capturer = camcore::open(manager.get(), device_id.c_str());

        camcore_capture_config config;
        camcore_capture_config_init(&config); // YUYV 640x480 at 30 fps
        camcore::start(capturer.get(), config, handler);

        {
            std::unique_lock<std::mutex> guard(lock);
            if (!done.wait_for(guard, std::chrono::seconds(10),
                               [&] { return seen.size() >= wanted; })) {
                std::fprintf(stderr, "timed out: %zu of %zu frames\n", seen.size(), wanted);
                return 1;
            }
        }
        camcore::check("camcore_capturer_stop", camcore_capturer_stop(capturer.get()));

        for (const Seen &s : seen)
            std::printf("frame seq %u  %ux%u %s  stride %u  t=%.6f s  row0 luma %u\n",
                        s.sequence, s.width, s.height, camcore::fourcc_string(s.fourcc).c_str(),
                        s.stride, static_cast<double>(s.timestamp_ns) / 1e9, s.luma_mean);
        std::printf("%zu frames from %s\n", seen.size(), device_id.c_str());
        return 0;
        // capturer, devices, manager are released here, in reverse order.
    } catch (const camcore::Error &e) {
        std::fprintf(stderr, "camcore-cpp-demo: %s\n", e.what());
        return 1;
    }
}
