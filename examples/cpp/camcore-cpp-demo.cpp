// SPDX-License-Identifier: MIT
// camcore-cpp-demo — libcamcore from C++17, through camcore.hpp.
//
// camcore.hpp (installed next to camcore.h) wraps the C API: the manager
// and capturer are RAII objects, failures throw camcore::error (status and
// message), frames arrive in a lambda as frame_views whose planes are
// span-like plane_views, and the wrapper keeps the lambda alive exactly as
// long as camcore may call it.
//
// Build:  make
// Run:    ./camcore-cpp-demo [DEVICE-ID] [FRAMES]
//         CAMCORE_SYNTHETIC_CAMERA=1 ./camcore-cpp-demo   # no camera needed

#include <camcore.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <numeric>
#include <string>
#include <vector>

int main(int argc, char **argv) {
    try {
        const int frames_arg = argc > 2 ? std::atoi(argv[2]) : 10;
        const std::size_t wanted = frames_arg > 0 ? static_cast<std::size_t>(frames_arg) : 1u;

        std::printf("camcore %s\n", camcore::version().c_str());
        // The synthetic camera is listed only when CAMCORE_SYNTHETIC_CAMERA=1 is set.
        camcore::manager manager;
        std::vector<camcore::device> devices = manager.devices();

        std::printf("%zu camera(s)\n", devices.size());
        for (const camcore::device &d : devices)
            std::printf("  %s  [%s]  %s, %zu format entries\n", d.name.c_str(), d.id.c_str(), d.node.c_str(),
                        manager.formats(d.id).size());
        if (devices.empty()) {
            std::fprintf(stderr, "no camera (set CAMCORE_SYNTHETIC_CAMERA=1 for a test pattern)\n");
            return 1;
        }
        const std::string device_id = argc > 1 ? argv[1] : devices.front().id;

        // Frames arrive on the capture thread; the lambda keeps the first
        // `wanted` ones' metadata and wakes main up.
        struct Seen {
            std::uint32_t sequence, width, height, fourcc;
            std::size_t stride;
            std::uint64_t timestamp_ns;
            unsigned luma_mean;
        };
        std::mutex lock;
        std::condition_variable done;
        std::vector<Seen> seen;

        camcore::capturer capturer = manager.open(device_id); // throws CAMCORE_E_NO_DEVICE for an unknown id
        capturer.start(camcore::capture_config(), // YUYV 640x480 at 30 fps
                       [&](const camcore::frame_view &frame) {
                           // The mean luma of the first row: bytes 0, 2, 4, ... of YUYV.
                           camcore::bytes row = frame.plane(0).row(0);
                           unsigned long sum = 0;
                           for (std::size_t x = 0; x < row.size(); x += 2)
                               sum += row[x];
                           std::lock_guard<std::mutex> guard(lock);
                           if (seen.size() < wanted) {
                               seen.push_back({frame.sequence(), frame.width(), frame.height(), frame.fourcc(),
                                               frame.plane(0).stride(), frame.timestamp_ns(),
                                               row.empty() ? 0u : static_cast<unsigned>(sum / (row.size() / 2))});
                               if (seen.size() == wanted)
                                   done.notify_one();
                           }
                       });

        {
            std::unique_lock<std::mutex> guard(lock);
            if (!done.wait_for(guard, std::chrono::seconds(10), [&] { return seen.size() >= wanted; })) {
                std::fprintf(stderr, "timed out: %zu of %zu frames\n", seen.size(), wanted);
                return 1;
            }
        }
        capturer.stop(); // no callback runs after this (and a throw of the lambda comes out here)

        for (const Seen &s : seen)
            std::printf("frame seq %u  %ux%u %s  stride %zu  t=%.6f s  row0 luma %u\n", s.sequence, s.width,
                        s.height, camcore::fourcc_name(s.fourcc).c_str(), s.stride,
                        static_cast<double>(s.timestamp_ns) / 1e9, s.luma_mean);
        std::printf("%zu frames from %s\n", seen.size(), device_id.c_str());
        return 0;
        // capturer, then manager, are closed and freed here, in reverse order.
    } catch (const camcore::error &e) {
        std::fprintf(stderr, "camcore-cpp-demo: %s\n", e.what());
        return 1;
    }
}
