// SPDX-License-Identifier: MIT
/*
 * test_cpp.cpp — include/camcore.hpp, the header-only C++17 wrapper, on
 * the synthetic camera.
 *
 * What it asserts:
 *   S29  failed calls throw camcore::error carrying the status, its name
 *        and camcore's message (an unknown device: CAMCORE_E_NO_DEVICE)
 *   S2   devices() and formats() are copies that outlive camcore's lists
 *        (format copies keep their own rates)
 *   S22  a lambda gets frame_views: sizes, planes as plane_views (stride,
 *        row bytes and rows from the pixel-format table, row(y) without
 *        padding), rising sequence numbers
 *   S23  retain() gives a camcore::frame that stays readable after stop and
 *        releases itself; the lambda is destroyed only after close()
 *   S17  an exception thrown by the frame lambda is rethrown by stop()
 *   S36  pull mode: acquire() gives owned frames, nullopt on a timeout,
 *        throws CAMCORE_E_STATE once stopped
 *   S8   frame_view::convert(): RGB24 of a YUYV frame equals BT.601
 *        computed here; a scaled I420 has the packed size
 *   S14  a session preview lambda turns the camera on; completion lambdas
 *        run once with the status (CAMCORE_E_NO_DEVICE for an unknown id)
 *        and are freed even when they never run
 *   S31  a preview removing itself from its own lambda (kept alive until the
 *        session goes), reset()/close() from an object's own callback throw
 *        CAMCORE_E_WOULD_DEADLOCK and it goes on
 *        handles move; a moved-from handle is empty
 *
 * The last line is "N passed, M failed"; exit 0 only if M is 0.
 *
 * Build:  c++ -std=c++17 test_cpp.cpp testlib.o $(pkg-config --cflags --libs camcore) -pthread
 *         (testlib.c compiled as C)
 */
#include <camcore.hpp>

extern "C" {
#include "testlib.h"
}

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

const char *const SYNTH = "synthetic:0";

/* Waits until pred() holds or ms pass; returns pred(). */
template <typename Pred>
bool wait_for(std::mutex &lock, std::condition_variable &cv, unsigned ms, Pred pred) {
    std::unique_lock<std::mutex> g(lock);
    return cv.wait_for(g, std::chrono::milliseconds(ms), pred);
}

void test_S29_errors_carry_status_and_message() {
    camcore::manager m(camcore::synthetic::one);
    try {
        m.open("no-such-camera");
        CHECK(0, "open(\"no-such-camera\") did not throw");
    } catch (const camcore::error &e) {
        CHECK(e.code() == CAMCORE_E_NO_DEVICE, "code() %d, expected CAMCORE_E_NO_DEVICE", e.code());
        CHECK(std::string(e.name()).rfind("CAMCORE_E_NO_DEVICE", 0) == 0, "name() '%s'", e.name());
        CHECK(std::string(e.what()).rfind("camcore_capturer_open: CAMCORE_E_NO_DEVICE", 0) == 0, "what() '%s'",
              e.what());
        CHECK(e.detail().find("no-such-camera") != std::string::npos, "detail() '%s' names the id",
              e.detail().c_str());
        const std::runtime_error &base = e;
        CHECK(std::string(base.what()) == e.what(), "camcore::error is a std::runtime_error");
    }
    bool threw = false;
    try {
        camcore::fourcc("TOOLONG");
    } catch (const std::invalid_argument &) {
        threw = true;
    }
    CHECK(threw, "fourcc(\"TOOLONG\") throws std::invalid_argument");
    try {
        camcore::pixel_format_info(camcore::fourcc("ABCD"));
        CHECK(0, "pixel_format_info(ABCD) did not throw");
    } catch (const camcore::error &e) {
        CHECK(e.code() == CAMCORE_E_NOT_SUPPORTED, "pixel_format_info(ABCD): code %d", e.code());
    }
}

void test_S2_devices_and_formats_are_copies() {
    std::vector<camcore::device> devices;
    std::vector<camcore::format> formats;
    {
        camcore::manager m(camcore::synthetic::one);
        devices = m.devices();
        formats = m.formats(SYNTH);
    } /* the manager and its lists are gone */
    auto it = std::find_if(devices.begin(), devices.end(), [](const camcore::device &d) { return d.id == SYNTH; });
    CHECK(it != devices.end(), "devices() lists synthetic:0 (%zu devices)", devices.size());
    if (it != devices.end()) {
        CHECK(it->node == "synthetic" && it->backend == "synthetic" && it->driver == "camcore",
              "synthetic:0: node '%s', backend '%s', driver '%s'", it->node.c_str(), it->backend.c_str(),
              it->driver.c_str());
        CHECK(it->synthetic() && !it->unavailable() && it->type == CAMCORE_DEVICE_TYPE_VIRTUAL,
              "synthetic:0: flags 0x%x type %d", it->flags, it->type);
    }
    CHECK(formats.size() == 3, "formats(synthetic:0): %zu entries, expected 3", formats.size());
    if (formats.size() == 3) {
        CHECK(camcore::fourcc_name(formats[0].fourcc()) == "YUYV" && camcore::fourcc_name(formats[1].fourcc()) == "YU12" &&
                  camcore::fourcc_name(formats[2].fourcc()) == "NV12",
              "formats are YUYV, YU12, NV12");
        const camcore::format copy = formats[0];
        CHECK(copy.c.size_kind == CAMCORE_RANGE_STEPWISE && copy.c.min_width == 16 && copy.c.max_width == 3840 &&
                  copy.c.max_height == 2160,
              "YUYV: stepwise 16..3840 x ..2160 (kind %d, %u..%u x ..%u)", copy.c.size_kind, copy.c.min_width,
              copy.c.max_width, copy.c.max_height);
        CHECK(copy.c.rate_kind == CAMCORE_RANGE_CONTINUOUS && camcore::to_double(copy.c.max_fps) == 120.0 &&
                  camcore::to_double(copy.c.min_fps) == 1.0,
              "YUYV: continuous 1..120 fps (kind %d, %g..%g)", copy.c.rate_kind, camcore::to_double(copy.c.min_fps),
              camcore::to_double(copy.c.max_fps));
        CHECK(copy.c.rates == (copy.rates.empty() ? nullptr : copy.rates.data()) && !copy.compressed() &&
                  copy.description == formats[0].description && !copy.description.empty(),
              "a format copy points at its own rates and keeps its description");
    }
    CHECK(camcore::fourcc("YUYV") == CAMCORE_FOURCC_YUYV && camcore::fourcc("Y8") == CAMCORE_FOURCC('Y', '8', ' ', ' '),
          "fourcc(\"YUYV\"), fourcc(\"Y8\") pad as V4L2 does");
    CHECK(camcore::fourcc_name(CAMCORE_FOURCC('Y', '1', '6', ' ') | (1u << 31)) == "Y16 -BE",
          "fourcc_name of big-endian Y16 is v4l2-ctl's 'Y16 -BE' (got '%s')",
          camcore::fourcc_name(CAMCORE_FOURCC('Y', '1', '6', ' ') | (1u << 31)).c_str());
    CHECK(camcore::frame_size(CAMCORE_FOURCC_I420, 640, 480) == 460800, "frame_size(I420, 640x480) = 460800");
}

struct seen_frame {
    std::uint32_t sequence, width, height, planes;
    std::size_t stride, row_bytes, rows, row0, row_last, row_past;
    bool plane1_throws;
};

void test_S22_lambda_gets_frame_views() {
    camcore::manager m(camcore::synthetic::one);
    std::mutex lock;
    std::condition_variable cv;
    std::vector<seen_frame> seen;
    std::vector<camcore::frame> kept;
    std::vector<std::uint8_t> first_row;
    auto alive = std::make_shared<int>(1);
    std::weak_ptr<int> watch = alive;
    {
        camcore::capturer cap = m.open(SYNTH);
        CHECK(cap.device_id() == SYNTH, "device_id() '%s'", cap.device_id().c_str());
        cap.start(camcore::capture_config(CAMCORE_FOURCC_YUYV, 320, 240, camcore::fps(60)),
                  [&, alive](const camcore::frame_view &f) {
                      camcore::plane_view p = f.plane(0);
                      seen_frame s{f.sequence(), f.width(), f.height(), f.plane_count(), p.stride(), p.row_bytes(),
                                   p.rows(), p.row(0).size(), p.row(239).size(), p.row(240).size(), false};
                      try {
                          f.plane(1);
                      } catch (const std::out_of_range &) {
                          s.plane1_throws = true;
                      }
                      std::lock_guard<std::mutex> g(lock);
                      if (seen.size() < 5) {
                          seen.push_back(s);
                          if (seen.size() == 5) {
                              auto row = p.row(120);
                              first_row.assign(row.begin(), row.end());
                              kept.push_back(f.retain());
                          }
                          cv.notify_all();
                      }
                  });
        CHECK(cap.streaming(), "streaming() after start");
        camcore_capture_format fmt = cap.format();
        CHECK(fmt.width == 320 && fmt.height == 240 && fmt.fourcc == CAMCORE_FOURCC_YUYV && fmt.fps.numerator == 60 &&
                  fmt.fps.denominator == 1,
              "format(): %ux%u at %u/%u", fmt.width, fmt.height, fmt.fps.numerator, fmt.fps.denominator);
        CHECK(wait_for(lock, cv, 5000, [&] { return seen.size() == 5; }), "5 frames within 5 s (%zu)", seen.size());
        cap.stop();
        CHECK(!cap.streaming(), "not streaming() after stop");
        camcore_capture_stats st = cap.stats();
        CHECK(st.frames_delivered >= 5, "stats(): %llu delivered", (unsigned long long)st.frames_delivered);
        CHECK(!watch.expired(), "the lambda lives while the capturer is open");
    } /* closed */
    alive.reset();
    CHECK(watch.expired(), "the lambda is destroyed once the capturer is closed");
    for (std::size_t i = 0; i < seen.size(); i++) {
        const seen_frame &s = seen[i];
        CHECK(s.width == 320 && s.height == 240 && s.planes == 1, "frame %zu: %ux%u, %u planes", i, s.width, s.height,
              s.planes);
        CHECK(s.stride >= 640 && s.row_bytes == 640 && s.rows == 240, "frame %zu: stride %zu, row bytes %zu, rows %zu",
              i, s.stride, s.row_bytes, s.rows);
        CHECK(s.row0 == 640 && s.row_last == 640 && s.row_past == 0, "frame %zu: row(0) %zu, row(239) %zu, row(240) %zu",
              i, s.row0, s.row_last, s.row_past);
        CHECK(s.plane1_throws, "frame %zu: plane(1) of YUYV throws std::out_of_range", i);
        if (i > 0)
            CHECK(s.sequence > seen[i - 1].sequence, "sequence rises: %u after %u", s.sequence, seen[i - 1].sequence);
    }
    CHECK(kept.size() == 1, "one retained frame");
    if (kept.size() == 1) {
        camcore::frame &f = kept[0];
        CHECK(static_cast<bool>(f) && f.width() == 320 && f.fourcc_name() == "YUYV", "the retained frame outlives close");
        auto row = f.plane(0).row(120);
        CHECK(row.size() == first_row.size() && std::equal(row.begin(), row.end(), first_row.begin()),
              "its pixels are those seen in the callback");
        camcore::frame moved = std::move(f);
        CHECK(!f && static_cast<bool>(moved), "a moved frame leaves an empty one");
        moved.release();
        CHECK(!moved, "release() empties it");
    }
}

void test_S17_callback_exception_rethrown_by_stop() {
    camcore::manager m(camcore::synthetic::one);
    camcore::capturer cap = m.open(SYNTH);
    std::mutex lock;
    std::condition_variable cv;
    int calls = 0;
    cap.start(camcore::capture_config(CAMCORE_FOURCC_YUYV, 160, 120, camcore::fps(60)),
              [&](const camcore::frame_view &) {
                  std::lock_guard<std::mutex> g(lock);
                  if (++calls == 3) {
                      cv.notify_all();
                      throw std::runtime_error("boom in frame 3");
                  }
              });
    CHECK(wait_for(lock, cv, 5000, [&] { return calls >= 3; }), "3 frames within 5 s");
    std::string caught;
    try {
        cap.stop();
    } catch (const std::runtime_error &e) {
        caught = e.what();
    }
    CHECK(caught == "boom in frame 3", "stop() rethrows the lambda's exception (got '%s')", caught.c_str());
    bool again = false;
    try {
        cap.stop();
    } catch (...) {
        again = true;
    }
    CHECK(!again, "a second stop() does not throw it again");
    CHECK(calls >= 4 || calls == 3, "frames went on after the exception (%d calls)", calls);
}

void test_S36_pull() {
    camcore::manager m(camcore::synthetic::one);
    camcore::capturer cap = m.open(SYNTH);
    cap.start_pull(camcore::capture_config(CAMCORE_FOURCC_I420, 160, 120, camcore::fps(60)), 2);
    CHECK(cap.frame_fd() >= 0, "frame_fd() %d", cap.frame_fd());
    std::uint32_t last = 0;
    for (int i = 0; i < 3; i++) {
        std::optional<camcore::frame> f = cap.acquire(2000);
        CHECK(f.has_value(), "acquire(2000) %d gives a frame", i);
        if (!f)
            continue;
        CHECK(f->width() == 160 && f->height() == 120 && f->plane_count() == 3, "pulled I420 160x120, %u planes",
              f->plane_count());
        camcore::plane_view u = f->plane(1);
        CHECK(u.row_bytes() == 80 && u.rows() == 60 && u.row(59).size() == 80, "U plane: %zu bytes x %zu rows",
              u.row_bytes(), u.rows());
        CHECK(i == 0 || f->sequence() > last, "sequence rises (%u after %u)", f->sequence(), last);
        last = f->sequence();
    }
    cap.stop();
    try {
        cap.acquire(0);
        CHECK(0, "acquire after stop did not throw");
    } catch (const camcore::error &e) {
        CHECK(e.code() == CAMCORE_E_STATE, "acquire after stop: %s", e.what());
    }
}

/* BT.601 limited range, as camcore.h documents the conversion. */
int clamp255(double v) { return v < 0 ? 0 : v > 255 ? 255 : static_cast<int>(v + 0.5); }

void test_S8_convert() {
    camcore::manager m(camcore::synthetic::one);
    camcore::capturer cap = m.open(SYNTH);
    cap.start_pull(camcore::capture_config(CAMCORE_FOURCC_YUYV, 320, 240, camcore::fps(30)), 2);
    std::optional<camcore::frame> f = cap.acquire(3000);
    CHECK(f.has_value(), "a frame to convert");
    if (!f)
        return;
    std::vector<std::uint8_t> rgb = f->convert(CAMCORE_FOURCC_RGB24);
    CHECK(rgb.size() == 320u * 240u * 3u, "RGB24 320x240: %zu bytes", rgb.size());
    camcore::plane_view p = f->plane(0);
    int worst = 0;
    for (std::size_t y = 0; y < 240; y += 37)
        for (std::size_t x = 0; x < 320; x += 29) {
            auto row = p.row(y);
            int Y = row[x * 2], U = row[(x / 2) * 4 + 1], V = row[(x / 2) * 4 + 3];
            double c = 1.164 * (Y - 16);
            int want[3] = {clamp255(c + 1.596 * (V - 128)), clamp255(c - 0.391 * (U - 128) - 0.813 * (V - 128)),
                           clamp255(c + 2.018 * (U - 128))};
            for (int k = 0; k < 3; k++)
                worst = std::max(worst, std::abs(want[k] - rgb[(y * 320 + x) * 3 + static_cast<std::size_t>(k)]));
        }
    CHECK(worst <= 3, "RGB24 equals BT.601 of the YUYV pixels within 3 (worst %d)", worst);
    std::vector<std::uint8_t> small = f->convert(CAMCORE_FOURCC_I420, 160, 120);
    CHECK(small.size() == 160u * 120u * 3u / 2u, "I420 160x120: %zu bytes", small.size());
    try {
        f->convert(CAMCORE_FOURCC_I420, 161, 120);
        CHECK(0, "an odd I420 width did not throw");
    } catch (const camcore::error &e) {
        CHECK(e.code() == CAMCORE_E_INVALID_ARG, "an odd I420 width: %s", e.what());
    }
    cap.stop();
}

void test_S14_session_preview_and_completions() {
    camcore::manager m(camcore::synthetic::one);
    camcore_session_config sc = camcore::session_config();
    sc.device_id = SYNTH;
    sc.preference.width = 320;
    sc.preference.height = 240;
    camcore::session s = m.make_session(sc);
    CHECK(!s.state().camera_on, "a new session's camera is off");
    std::mutex lock;
    std::condition_variable cv;
    int frames = 0;
    std::vector<int> statuses;
    std::uint32_t id = s.add_preview([&](const camcore::frame_view &f) {
        std::lock_guard<std::mutex> g(lock);
        if (f.width() == 320)
            frames++;
        cv.notify_all();
    });
    CHECK(id != 0, "add_preview gives an id");
    CHECK(wait_for(lock, cv, 5000, [&] { return frames >= 3; }), "the preview lambda gets 320x240 frames (%d)", frames);
    CHECK(s.state().camera_on, "camera on with a preview (S9)");
    s.select("no-such-camera", [&](int st) {
        std::lock_guard<std::mutex> g(lock);
        statuses.push_back(st);
        cv.notify_all();
    });
    s.stop([&](int st) {
        std::lock_guard<std::mutex> g(lock);
        statuses.push_back(st);
        cv.notify_all();
    });
    CHECK(wait_for(lock, cv, 5000, [&] { return statuses.size() == 2; }), "both completions ran (%zu)", statuses.size());
    if (statuses.size() == 2)
        CHECK(statuses[0] == CAMCORE_E_NO_DEVICE && statuses[1] == CAMCORE_OK,
              "select(unknown) completes with CAMCORE_E_NO_DEVICE, stop with CAMCORE_OK (%d, %d)", statuses[0],
              statuses[1]);
    CHECK(!s.state().camera_on, "camera off after stop (S17)");
    s.remove_preview(id);
    try {
        s.remove_preview(id);
        CHECK(0, "removing a removed preview did not throw");
    } catch (const camcore::error &e) {
        CHECK(e.code() == CAMCORE_E_INVALID_ARG, "removing it again: %s", e.what());
    }
    /* A completion still queued when the session goes: freed, not leaked (ASan run). */
    s.restart([](int) {});
    s.reset();
    CHECK(!s, "reset() empties the session");
}

void test_S31_calls_from_inside_own_callbacks() {
    camcore::manager m(camcore::synthetic::one);
    camcore_session_config sc = camcore::session_config();
    sc.device_id = SYNTH;
    sc.preference.width = 160;
    sc.preference.height = 120;
    camcore::session s = m.make_session(sc);
    std::mutex lock;
    std::condition_variable cv;
    std::atomic<std::uint32_t> self_id{0};
    int self_frames = 0, other_frames = 0, reset_code = 0;
    std::string remove_error;
    /* A preview that removes itself from inside its own lambda (camcore
     * queues the removal; the wrapper must not free the running lambda). */
    std::uint32_t id = s.add_preview([&](const camcore::frame_view &) {
        std::uint32_t me = self_id.load();
        std::lock_guard<std::mutex> g(lock);
        if (me == 0)
            return;
        if (++self_frames == 3) {
            try {
                s.remove_preview(me);
            } catch (const std::exception &e) {
                remove_error = e.what();
            }
            try {
                s.reset(); /* freeing the session from its own callback */
            } catch (const camcore::error &e) {
                reset_code = e.code();
            }
        }
        cv.notify_all();
    });
    self_id = id;
    s.add_preview([&](const camcore::frame_view &) {
        std::lock_guard<std::mutex> g(lock);
        other_frames++;
        cv.notify_all();
    });
    CHECK(wait_for(lock, cv, 5000, [&] { return self_frames >= 3; }), "3 frames to the self-removing preview");
    CHECK(remove_error.empty(), "remove_preview from its own lambda is accepted (%s)", remove_error.c_str());
    CHECK(reset_code == CAMCORE_E_WOULD_DEADLOCK, "session::reset() from its own callback: code %d", reset_code);
    int others;
    {
        std::lock_guard<std::mutex> g(lock);
        others = other_frames;
    }
    CHECK(wait_for(lock, cv, 5000, [&] { return other_frames >= others + 5; }),
          "the other preview goes on (%d -> %d frames)", others, other_frames);
    {
        std::lock_guard<std::mutex> g(lock);
        CHECK(self_frames == 3, "the removed preview got no frame after its removal (%d)", self_frames);
    }
    CHECK(static_cast<bool>(s) && s.state().preview_count == 1, "the session lives on with 1 preview");

    /* A capturer closed from its own frame lambda: refused, and it goes on. */
    camcore::capturer cap = m.open(SYNTH);
    int close_code = 0, frames = 0;
    cap.start(camcore::capture_config(CAMCORE_FOURCC_YUYV, 160, 120, camcore::fps(60)), [&](const camcore::frame_view &) {
        int code = 0;
        if (frames == 2) {
            try {
                cap.close();
            } catch (const camcore::error &e) {
                code = e.code();
            }
        }
        std::lock_guard<std::mutex> g(lock);
        if (code)
            close_code = code;
        frames++;
        cv.notify_all();
    });
    CHECK(wait_for(lock, cv, 5000, [&] { return frames >= 6; }), "frames go on after close() in the lambda (%d)", frames);
    CHECK(close_code == CAMCORE_E_WOULD_DEADLOCK, "capturer::close() from its own lambda: code %d", close_code);
    CHECK(cap.streaming(), "the capturer still streams");
    cap.close();
    CHECK(!cap, "close() from outside closes it");
}

void test_handles_move() {
    camcore::manager m(camcore::synthetic::one);
    camcore::manager m2 = std::move(m);
    CHECK(m.get() == nullptr && m2.get() != nullptr, "a moved manager is empty");
    camcore::capturer a = m2.open(SYNTH);
    std::mutex lock;
    std::condition_variable cv;
    int frames = 0;
    a.start(camcore::capture_config(CAMCORE_FOURCC_NV12, 160, 120, camcore::fps(60)), [&](const camcore::frame_view &f) {
        std::lock_guard<std::mutex> g(lock);
        frames += f.plane_count() == 2 ? 1 : 0;
        cv.notify_all();
    });
    camcore::capturer b = std::move(a);
    CHECK(!a && static_cast<bool>(b), "a moved capturer is empty");
    int before;
    {
        std::lock_guard<std::mutex> g(lock);
        before = frames;
    }
    CHECK(wait_for(lock, cv, 5000, [&] { return frames >= before + 3; }),
          "frames keep coming to the lambda after the move (%d -> %d)", before, frames);
    b.stop();
    CHECK(b.controls().empty(), "the synthetic camera has no controls");
    try {
        b.get_control(CAMCORE_CID_BRIGHTNESS);
        CHECK(0, "get_control on the synthetic camera did not throw");
    } catch (const camcore::error &e) {
        CHECK(e.code() == CAMCORE_E_NOT_SUPPORTED, "get_control: %s", e.what());
    }
    CHECK(camcore::version() == CAMCORE_VERSION_STRING, "version() '%s'", camcore::version().c_str());
}

const testlib_test tests[] = {
    TESTLIB_TEST(test_S29_errors_carry_status_and_message),
    TESTLIB_TEST(test_S2_devices_and_formats_are_copies),
    TESTLIB_TEST(test_S22_lambda_gets_frame_views),
    TESTLIB_TEST(test_S17_callback_exception_rethrown_by_stop),
    TESTLIB_TEST(test_S36_pull),
    TESTLIB_TEST(test_S8_convert),
    TESTLIB_TEST(test_S14_session_preview_and_completions),
    TESTLIB_TEST(test_S31_calls_from_inside_own_callbacks),
    TESTLIB_TEST(test_handles_move),
};

const char *setup() {
    unsetenv("CAMCORE_SYNTHETIC_CAMERA");
    return nullptr;
}

const testlib_suite suite = {tests, TESTLIB_COUNT(tests), 120, setup, nullptr, 0, 0};

} // namespace

int main(int argc, char **argv) { return testlib_main(argc, argv, &suite); }
