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
 *   S31  a preview removing itself from its own lambda is accepted;
 *        reset()/close() from an object's own callback return, no callback
 *        follows, and the lambdas are destroyed once that callback returned
 *        handles move; a moved-from handle is empty
 *   S36  next_frame() gives owned frames with rising sequence numbers, the
 *        format and size asked, releasing the one before (five frames
 *        through a queue of two); false and an empty frame on a timeout;
 *        frames() as a range: a frame moved out outlives the loop, stop()
 *        in the body or from another thread ends it, a timeout throws
 *        CAMCORE_E_TIMEOUT, a capturer not started gives no frame
 *   S36  a pull preview's preview_fd() turns readable when a frame waits;
 *        an unknown id throws CAMCORE_E_INVALID_ARG; next_preview_frame()
 *        and preview_frames() give 160x120 frames with rising sequence
 *        numbers; removing the preview on another thread ends the range
 *   S20  set_capture_hook(): pass, drop (previews see nothing while the hook
 *        goes on), replace (previews see the app's frame), a throwing hook
 *        passes the frame, an empty function removes and destroys the hook
 *   S7   format_for() and max_frame_rate() on the synthetic camera's ranges;
 *        no such rate or format throws CAMCORE_E_NOT_SUPPORTED
 *   S35  camera_permission() and request_camera_access() without a portal:
 *        granted
 *        set_thread_hooks(): the capture thread starts and ends with the
 *        hooks, named "camcore-capture"; a throwing hook does not reach C;
 *        after clear_thread_hooks() no hook runs
 *        version_number() == CAMCORE_VERSION, version() == its string;
 *        fourcc_to_string() round trips fourcc(); devices() and devices(true)
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

#include <poll.h>

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

/* Tells when the last copy of a lambda holding a lifetime_token is destroyed. */
struct lifetime {
    std::mutex lock;
    std::condition_variable cv;
    bool gone = false;
};
struct lifetime_token {
    explicit lifetime_token(std::shared_ptr<lifetime> l) : watched(std::move(l)) {}
    lifetime_token(const lifetime_token &) = delete;
    lifetime_token &operator=(const lifetime_token &) = delete;
    ~lifetime_token() {
        std::lock_guard<std::mutex> g(watched->lock);
        watched->gone = true;
        watched->cv.notify_all();
    }
    std::shared_ptr<lifetime> watched;
};

/*
 * Closing or freeing an object from inside its own callback (S31, "close
 * cannot fail"): the call returns, no callback of the object follows the
 * running one, camcore finishes the teardown once that callback returned,
 * and the wrapper destroys the lambdas then (not while one runs: the ASan
 * run would see it).
 */
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
    int self_frames = 0, other_frames = 0, reset_code = -1;
    std::string remove_error;
    auto session_lambdas = std::make_shared<lifetime>();
    {
        auto token = std::make_shared<lifetime_token>(session_lambdas);
        /* A preview that removes itself from inside its own lambda (camcore
         * queues the removal; the wrapper must not free the running lambda),
         * then frees the session there. */
        std::uint32_t id = s.add_preview([&, token](const camcore::frame_view &) {
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
                    reset_code = 0;
                } catch (const camcore::error &e) {
                    reset_code = e.code();
                }
            }
            cv.notify_all();
        });
        self_id = id;
        s.add_preview([&, token](const camcore::frame_view &) {
            std::lock_guard<std::mutex> g(lock);
            other_frames++;
            cv.notify_all();
        });
    }
    CHECK(wait_for(lock, cv, 5000, [&] { return self_frames >= 3 && reset_code != -1; }),
          "3 frames to the self-removing preview, which then frees the session");
    CHECK(remove_error.empty(), "remove_preview from its own lambda is accepted (%s)", remove_error.c_str());
    CHECK(reset_code == 0, "session::reset() from its own callback returns (code %d)", reset_code);
    CHECK(wait_for(session_lambdas->lock, session_lambdas->cv, 5000, [&] { return session_lambdas->gone; }),
          "the session's lambdas are destroyed once that callback returned");
    {
        std::lock_guard<std::mutex> g(lock);
        CHECK(!s, "reset() from its own callback empties the session");
        CHECK(self_frames == 3, "no frame to the preview after the free (%d)", self_frames);
    }

    /* A capturer closed from its own frame lambda. */
    camcore::capturer cap = m.open(SYNTH);
    int close_code = -1, frames = 0;
    auto capturer_lambda = std::make_shared<lifetime>();
    {
        auto token = std::make_shared<lifetime_token>(capturer_lambda);
        cap.start(camcore::capture_config(CAMCORE_FOURCC_YUYV, 160, 120, camcore::fps(60)),
                  [&, token](const camcore::frame_view &) {
                      int code = -1;
                      if (frames == 2) {
                          try {
                              cap.close();
                              code = 0;
                          } catch (const camcore::error &e) {
                              code = e.code();
                          }
                      }
                      std::lock_guard<std::mutex> g(lock);
                      if (code != -1)
                          close_code = code;
                      frames++;
                      cv.notify_all();
                  });
    }
    CHECK(wait_for(lock, cv, 5000, [&] { return close_code != -1; }), "close() called in the lambda");
    CHECK(close_code == 0, "capturer::close() from its own lambda returns (code %d)", close_code);
    CHECK(wait_for(capturer_lambda->lock, capturer_lambda->cv, 5000, [&] { return capturer_lambda->gone; }),
          "the lambda is destroyed once that callback returned");
    {
        std::lock_guard<std::mutex> g(lock);
        CHECK(frames == 3, "no frame after the one that closed it (%d)", frames);
        CHECK(!cap && !cap.streaming(), "close() from its own lambda empties the capturer");
    }
    cap.close(); /* closing an empty capturer is fine */
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


/* The frames of a capturer in pull mode, read with next_frame(). */
void test_S36_next_frame() {
    camcore::manager m(camcore::synthetic::one);
    camcore::capturer cap = m.open(SYNTH);
    camcore::frame f;
    CHECK(!f, "a default-constructed frame is empty");
    cap.start_pull(camcore::capture_config(CAMCORE_FOURCC_YUYV, 320, 240, camcore::fps(60)), 2);
    std::uint32_t last = 0;
    int got = 0;
    /* Five frames through a queue of two: each call gives the one before back. */
    for (int i = 0; i < 5; i++) {
        bool ok = cap.next_frame(f, 3000);
        CHECK(ok && static_cast<bool>(f), "next_frame(f, 3000) %d gives a frame", i);
        if (!ok)
            break;
        got++;
        CHECK(f.fourcc() == CAMCORE_FOURCC_YUYV && camcore::fourcc_to_string(f.fourcc()) == "YUYV",
              "frame %d is YUYV ('%s')", i, camcore::fourcc_to_string(f.fourcc()).c_str());
        CHECK(f.width() == 320 && f.height() == 240 && f.plane_count() == 1 && f.plane(0).row_bytes() == 640 &&
                  f.plane(0).rows() == 240,
              "frame %d: %ux%u, %u planes, row bytes %zu", i, f.width(), f.height(), f.plane_count(),
              f.plane(0).row_bytes());
        CHECK(i == 0 || f.sequence() > last, "sequence rises (%u after %u)", f.sequence(), last);
        last = f.sequence();
    }
    CHECK(got == 5, "5 frames through a queue of depth 2 (%d)", got);
    cap.stop();
    try {
        cap.next_frame(f, 0);
        CHECK(0, "next_frame after stop did not throw");
    } catch (const camcore::error &e) {
        CHECK(e.code() == CAMCORE_E_STATE, "next_frame after stop: %s", e.what());
    }
    CHECK(!f, "the frame passed to a failed next_frame was released (empty)");

    /* A timeout is false, with the frame released. At 1 fps, asking with
     * 0 ms right after a frame finds the queue empty within a few calls. */
    cap.start_pull(camcore::capture_config(CAMCORE_FOURCC_YUYV, 160, 120, camcore::fps(1)), 2);
    CHECK(cap.next_frame(f, 5000) && f.width() == 160, "a first frame at 1 fps");
    bool timed_out = false;
    for (int i = 0; i < 3 && !timed_out; i++)
        timed_out = !cap.next_frame(f, 0);
    CHECK(timed_out, "next_frame(f, 0) at 1 fps returns false");
    CHECK(!f, "and leaves f empty");
    cap.stop();
}

/* capturer::frames(): the pull loop as a range. */
void test_S36_frames_range() {
    camcore::manager m(camcore::synthetic::one);
    camcore::capturer cap = m.open(SYNTH);
    int n = 0;
    for (camcore::frame &f : cap.frames(1000)) {
        (void)f;
        n++;
    }
    CHECK(n == 0, "frames() of a capturer not started gives no frame (%d)", n);

    /* stop() in the body ends the loop; a frame moved out outlives it. */
    cap.start_pull(camcore::capture_config(CAMCORE_FOURCC_NV12, 320, 240, camcore::fps(60)), 2);
    camcore::frame kept;
    std::uint32_t last = 0, kept_sequence = 0;
    bool rising = true, shaped = true;
    n = 0;
    std::string thrown;
    try {
        for (camcore::frame &f : cap.frames(3000)) {
            shaped = shaped && f.fourcc() == CAMCORE_FOURCC_NV12 && f.width() == 320 && f.height() == 240 &&
                     f.plane_count() == 2;
            rising = rising && (n == 0 || f.sequence() > last);
            last = f.sequence();
            if (++n == 3) {
                kept_sequence = f.sequence();
                kept = std::move(f);
            }
            if (n == 6)
                cap.stop();
            if (n > 6)
                break;
        }
    } catch (const std::exception &e) {
        thrown = e.what();
    }
    CHECK(thrown.empty(), "the loop ends without an exception (%s)", thrown.c_str());
    CHECK(n == 6, "stop() in the body ends the loop after that frame (%d frames)", n);
    CHECK(shaped && rising, "NV12 320x240 frames, 2 planes, rising sequence numbers");
    CHECK(static_cast<bool>(kept) && kept.sequence() == kept_sequence && kept.width() == 320 &&
              kept.plane(1).rows() == 120,
          "the frame moved out of the loop outlives it and the stop");
    kept.release();

    /* stop() from another thread ends a loop waiting for a frame. */
    cap.start_pull(camcore::capture_config(CAMCORE_FOURCC_YUYV, 160, 120, camcore::fps(30)), 2);
    std::atomic<int> seen{0};
    std::mutex lock;
    std::condition_variable cv;
    std::thread stopper([&] {
        {
            std::unique_lock<std::mutex> g(lock);
            cv.wait_for(g, std::chrono::seconds(10), [&] { return seen.load() >= 3; });
        }
        cap.stop();
    });
    thrown.clear();
    try {
        for (camcore::frame &f : cap.frames(10000)) {
            (void)f;
            std::lock_guard<std::mutex> g(lock);
            seen++;
            cv.notify_all();
        }
    } catch (const std::exception &e) {
        thrown = e.what();
    }
    stopper.join();
    CHECK(thrown.empty() && seen.load() >= 3, "stop() from another thread ends the loop (%d frames; %s)",
          seen.load(), thrown.c_str());
    CHECK(!cap.streaming(), "not streaming after that stop");

    /* A step that waits longer than its timeout throws CAMCORE_E_TIMEOUT. */
    cap.start_pull(camcore::capture_config(CAMCORE_FOURCC_YUYV, 160, 120, camcore::fps(1)), 2);
    int code = 0;
    n = 0;
    try {
        for (camcore::frame &f : cap.frames(0)) {
            (void)f;
            if (++n > 3)
                break;
        }
    } catch (const camcore::error &e) {
        code = e.code();
    }
    CHECK(code == CAMCORE_E_TIMEOUT, "frames(0) at 1 fps throws CAMCORE_E_TIMEOUT within a few steps (code %d, %d frames)",
          code, n);
    cap.stop();
}

/* A pull preview's eventfd, for the app's own poll loop. */
void test_S36_preview_fd() {
    camcore::manager m(camcore::synthetic::one);
    camcore_session_config sc = camcore::session_config();
    sc.device_id = SYNTH;
    sc.preference.width = 160;
    sc.preference.height = 120;
    camcore::session s = m.make_session(sc);
    std::uint32_t id = s.add_preview_pull(2);
    int fd = s.preview_fd(id);
    CHECK(fd >= 0, "preview_fd(%u) = %d", id, fd);
    struct pollfd p = {fd, POLLIN, 0};
    int r = poll(&p, 1, 5000);
    CHECK(r == 1 && (p.revents & POLLIN), "the preview fd turns readable within 5 s (poll %d, revents 0x%x)", r,
          static_cast<unsigned>(p.revents));
    std::optional<camcore::frame> f = s.acquire_preview(id, 0);
    CHECK(f.has_value() && f->width() == 160 && f->height() == 120, "then acquire_preview(id, 0) has a 160x120 frame");
    CHECK(s.preview_fd(id) == fd, "one fd for the preview's life");
    try {
        s.preview_fd(id + 100);
        CHECK(0, "preview_fd of an unknown id did not throw");
    } catch (const camcore::error &e) {
        CHECK(e.code() == CAMCORE_E_INVALID_ARG, "preview_fd(unknown id): %s", e.what());
    }
}

/* A pull preview read in a loop: next_preview_frame() and preview_frames(). */
void test_S36_preview_loop() {
    camcore::manager m(camcore::synthetic::one);
    camcore_session_config sc = camcore::session_config();
    sc.device_id = SYNTH;
    sc.preference.width = 160;
    sc.preference.height = 120;
    camcore::session s = m.make_session(sc);
    std::uint32_t id = s.add_preview_pull(2);
    camcore::frame f;
    std::uint32_t last = 0;
    int got = 0;
    for (int i = 0; i < 4; i++) {
        if (!s.next_preview_frame(id, f, 5000))
            break;
        CHECK(f.width() == 160 && f.height() == 120 && (i == 0 || f.sequence() > last),
              "next_preview_frame %d: %ux%u, sequence %u after %u", i, f.width(), f.height(), f.sequence(), last);
        last = f.sequence();
        got++;
    }
    CHECK(got == 4, "4 frames through a preview queue of depth 2 (%d)", got);
    f.release();
    try {
        s.next_preview_frame(id + 100, f, 0);
        CHECK(0, "next_preview_frame of an unknown id did not throw");
    } catch (const camcore::error &e) {
        CHECK(e.code() == CAMCORE_E_INVALID_ARG, "next_preview_frame(unknown id): %s", e.what());
    }

    /* The range; removing the preview on another thread ends it. */
    std::atomic<int> seen{0};
    std::mutex lock;
    std::condition_variable cv;
    std::thread remover([&] {
        {
            std::unique_lock<std::mutex> g(lock);
            cv.wait_for(g, std::chrono::seconds(10), [&] { return seen.load() >= 3; });
        }
        s.remove_preview(id);
    });
    bool rising = true;
    std::string thrown;
    try {
        for (camcore::frame &pf : s.preview_frames(id, 10000)) {
            rising = rising && pf.sequence() > last && pf.width() == 160;
            last = pf.sequence();
            std::lock_guard<std::mutex> g(lock);
            seen++;
            cv.notify_all();
        }
    } catch (const std::exception &e) {
        thrown = e.what();
    }
    remover.join();
    CHECK(thrown.empty() && seen.load() >= 3, "removing the preview on another thread ends the loop (%d frames; %s)",
          seen.load(), thrown.c_str());
    CHECK(rising, "the range's frames are 160x120 with rising sequence numbers, after next_preview_frame's");
    CHECK(s.state().preview_count == 0, "the preview is gone (%u previews)", s.state().preview_count);
}

/* The capture hook (S20). */
struct hook_seen {
    std::mutex lock;
    std::condition_variable cv;
    unsigned hook_calls = 0, preview_frames = 0, replaced = 0;
    std::uint32_t last_width = 0;
};

void test_S20_capture_hook() {
    camcore::manager m(camcore::synthetic::one);
    camcore_session_config sc = camcore::session_config();
    sc.device_id = SYNTH;
    sc.preference.width = 160;
    sc.preference.height = 120;
    camcore::session s = m.make_session(sc);
    auto seen = std::make_shared<hook_seen>();
    /* The replacement: 32x16 YUYV of the app's, valid while the hook is set. */
    static std::vector<std::uint8_t> pixels(32 * 2 * 16);
    for (std::size_t i = 0; i < pixels.size(); i++)
        pixels[i] = static_cast<std::uint8_t>(i * 7);
    std::atomic<int> mode{static_cast<int>(camcore::hook_result::pass)};
    std::atomic<bool> throw_now{false};
    std::weak_ptr<hook_seen> watch;
    {
        auto held = std::make_shared<hook_seen>(); /* only the hook holds it: destroyed with the hook */
        watch = held;
        s.set_capture_hook([seen, held, &mode, &throw_now](const camcore::frame_view &f, camcore_frame &rep) {
            {
                std::lock_guard<std::mutex> g(seen->lock);
                seen->hook_calls++;
                seen->cv.notify_all();
            }
            if (throw_now)
                throw std::runtime_error("hook throws");
            auto r = static_cast<camcore::hook_result>(mode.load());
            if (r == camcore::hook_result::replace) {
                rep.fourcc = CAMCORE_FOURCC_YUYV;
                rep.width = 32;
                rep.height = 16;
                rep.plane_count = 1;
                rep.planes[0].data = pixels.data();
                rep.planes[0].stride = 64;
                rep.planes[0].length = static_cast<std::uint32_t>(pixels.size());
                rep.sequence = f.sequence();
                rep.timestamp_ns = f.timestamp_ns();
            }
            return r;
        });
    }
    CHECK(!watch.expired(), "the wrapper keeps the hook");
    s.add_preview([seen](const camcore::frame_view &f) {
        std::lock_guard<std::mutex> g(seen->lock);
        seen->preview_frames++;
        seen->last_width = f.width();
        if (f.width() == 32 && f.plane(0)[1] == pixels[1] && f.plane(0).row(15)[63] == pixels[15 * 64 + 63])
            seen->replaced++;
        seen->cv.notify_all();
    });
    auto counts = [&] {
        std::lock_guard<std::mutex> g(seen->lock);
        return std::make_pair(seen->hook_calls, seen->preview_frames);
    };
    /* Waits until the hook has run `more` more times; false after 5 s. */
    auto hook_runs = [&](unsigned more) {
        unsigned from = counts().first;
        return wait_for(seen->lock, seen->cv, 5000, [&] { return seen->hook_calls >= from + more; });
    };

    /* pass */
    CHECK(wait_for(seen->lock, seen->cv, 5000, [&] { return seen->preview_frames >= 3 && seen->hook_calls >= 3; }),
          "pass: the hook runs and the preview gets frames");
    CHECK(counts().second > 0 && seen->last_width == 160, "pass: the camera's 160x120 frames (width %u)",
          seen->last_width);

    /* drop: the hook goes on, the preview gets nothing. Frames already past
     * the hook when the mode changed are let through first. */
    mode = static_cast<int>(camcore::hook_result::drop);
    CHECK(hook_runs(2), "drop: the hook runs on");
    unsigned previews = counts().second;
    CHECK(hook_runs(5), "drop: the hook runs 5 more times");
    CHECK(counts().second == previews, "drop: no frame reaches the preview (%u -> %u)", previews, counts().second);

    /* replace: the preview gets the app's 32x16 frame. */
    mode = static_cast<int>(camcore::hook_result::replace);
    CHECK(wait_for(seen->lock, seen->cv, 5000, [&] { return seen->replaced >= 3; }),
          "replace: the preview gets the app's 32x16 frame, its bytes (%u)", seen->replaced);

    /* A hook that throws: caught in the wrapper, the frame passes. */
    throw_now = true;
    CHECK(hook_runs(2), "a throwing hook runs on");
    CHECK(wait_for(seen->lock, seen->cv, 5000, [&] { return seen->last_width == 160; }),
          "a throwing hook passes the camera's frame (width %u)", seen->last_width);

    /* An empty function removes the hook; the wrapper destroys it then. */
    s.set_capture_hook({});
    CHECK(watch.expired(), "the removed hook is destroyed when set_capture_hook returns");
    unsigned calls = counts().first;
    previews = counts().second;
    CHECK(wait_for(seen->lock, seen->cv, 5000, [&] { return seen->preview_frames >= previews + 3; }),
          "frames flow after the removal");
    CHECK(counts().first == calls, "the removed hook is not called (%u -> %u)", calls, counts().first);
}

/* S7 on the synthetic camera: YUYV/I420/NV12, 16..3840 x ..2160, 1..120 fps. */
void test_S7_format_for_and_max_frame_rate() {
    camcore::manager m(camcore::synthetic::one);
    camcore_setting s = m.format_for(SYNTH, 640, 480, camcore::fps(30));
    std::string name = camcore::fourcc_to_string(s.fourcc);
    CHECK((name == "YUYV" || name == "YU12" || name == "NV12") && s.width == 640 && s.height == 480 &&
              s.fps.numerator == 30 && s.fps.denominator == 1,
          "format_for(640, 480, 30): %s %ux%u %u/%u", name.c_str(), s.width, s.height, s.fps.numerator,
          s.fps.denominator);
    try {
        m.format_for(SYNTH, 640, 480, camcore::fps(200));
        CHECK(0, "format_for at 200 fps did not throw");
    } catch (const camcore::error &e) {
        CHECK(e.code() == CAMCORE_E_NOT_SUPPORTED, "format_for at 200 fps: %s", e.what());
    }
    camcore_fraction r = m.max_frame_rate(SYNTH, CAMCORE_FOURCC_YUYV, 640, 480, camcore::fps(40));
    CHECK(camcore::to_double(r) == 40.0, "max_frame_rate(YUYV 640x480, 40) = %u/%u", r.numerator, r.denominator);
    r = m.max_frame_rate(SYNTH, CAMCORE_FOURCC_NV12, 320, 240, camcore::fps(200));
    CHECK(camcore::to_double(r) == 120.0, "max_frame_rate(NV12 320x240, 200) = %u/%u, expected 120", r.numerator,
          r.denominator);
    try {
        m.max_frame_rate(SYNTH, CAMCORE_FOURCC_MJPEG, 640, 480, camcore::fps(30));
        CHECK(0, "max_frame_rate of MJPG did not throw");
    } catch (const camcore::error &e) {
        CHECK(e.code() == CAMCORE_E_NOT_SUPPORTED, "max_frame_rate(MJPG): %s", e.what());
    }
    try {
        m.format_for("no-such-camera", 640, 480, camcore::fps(30));
        CHECK(0, "format_for of an unknown camera did not throw");
    } catch (const camcore::error &e) {
        CHECK(e.code() == CAMCORE_E_NO_DEVICE && e.detail().find("no-such-camera") != std::string::npos,
              "format_for(unknown id): %s", e.what());
    }
}

/* S35 without a portal (portal never): the permission is granted. */
void test_S35_permission_without_portal() {
    camcore_manager_config c;
    camcore_manager_config_init(&c);
    c.include_synthetic = 1;
    c.portal = CAMCORE_PORTAL_NEVER;
    camcore::manager m(c);
    CHECK(m.camera_permission() == CAMCORE_PERMISSION_GRANTED, "camera_permission() %d", m.camera_permission());
    CHECK(m.request_camera_access(0) == CAMCORE_PERMISSION_GRANTED, "request_camera_access(0) without a portal");
    CHECK(m.request_camera_access(1000) == CAMCORE_PERMISSION_GRANTED, "request_camera_access(1000) without a portal");
    std::vector<camcore::device> all = m.devices(true), cameras = m.devices();
    auto synth = [](const std::vector<camcore::device> &v) {
        return std::count_if(v.begin(), v.end(), [](const camcore::device &d) { return d.id == SYNTH; });
    };
    CHECK(synth(cameras) == 1 && synth(all) == 1 && all.size() >= cameras.size(),
          "devices() and devices(true) list synthetic:0 once (%zu, %zu entries)", cameras.size(), all.size());
    CHECK(std::none_of(cameras.begin(), cameras.end(), [](const camcore::device &d) { return d.hidden(); }),
          "devices() lists no hidden node");
}

/* What the thread hooks saw; kept by the hooks (which live for the process). */
struct threads_seen {
    std::mutex lock;
    std::condition_variable cv;
    std::vector<std::string> started, stopped;
    std::vector<std::string> own_names;
    int frames_on_hooked_thread = 0;
    std::thread::id capture_thread;
};

void test_thread_hooks() {
    auto seen = std::make_shared<threads_seen>();
    auto count = [&](const std::vector<std::string> &v, const char *name) {
        std::lock_guard<std::mutex> g(seen->lock);
        return std::count(v.begin(), v.end(), name);
    };
    camcore::set_thread_hooks({[seen](const std::string &name) {
                                   {
                                       std::lock_guard<std::mutex> g(seen->lock);
                                       seen->started.push_back(name);
                                       if (name == "camcore-capture")
                                           seen->capture_thread = std::this_thread::get_id();
                                       seen->cv.notify_all();
                                   }
                                   throw std::runtime_error("a hook that throws"); /* must not reach C */
                               },
                               [seen](const std::string &name) {
                                   std::lock_guard<std::mutex> g(seen->lock);
                                   seen->stopped.push_back(name);
                                   seen->cv.notify_all();
                               }});
    camcore::manager m(camcore::synthetic::one);
    {
        camcore::capturer cap = m.open(SYNTH);
        int frames = 0;
        cap.start(camcore::capture_config(CAMCORE_FOURCC_YUYV, 160, 120, camcore::fps(60)),
                  [&](const camcore::frame_view &) {
                      std::lock_guard<std::mutex> g(seen->lock);
                      frames++;
                      if (std::this_thread::get_id() == seen->capture_thread)
                          seen->frames_on_hooked_thread++;
                      seen->cv.notify_all();
                  });
        CHECK(wait_for(seen->lock, seen->cv, 5000, [&] { return frames >= 3; }), "frames flow (%d)", frames);
        cap.stop();
        CHECK(wait_for(seen->lock, seen->cv, 5000,
                       [&] { return std::count(seen->stopped.begin(), seen->stopped.end(), "camcore-capture") == 1; }),
              "on_stop(\"camcore-capture\") once the capture stopped");
        std::lock_guard<std::mutex> g(seen->lock);
        CHECK(std::count(seen->started.begin(), seen->started.end(), "camcore-capture") == 1,
              "on_start(\"camcore-capture\") once");
        CHECK(seen->frames_on_hooked_thread == frames, "every frame on the thread on_start ran on (%d of %d)",
              seen->frames_on_hooked_thread, frames);
    }
    camcore::clear_thread_hooks();
    auto starts = count(seen->started, "camcore-capture");
    {
        camcore::capturer cap = m.open(SYNTH);
        cap.start_pull(camcore::capture_config(CAMCORE_FOURCC_YUYV, 160, 120, camcore::fps(60)), 2);
        camcore::frame f;
        CHECK(cap.next_frame(f, 3000), "a capture after clear_thread_hooks()");
        cap.stop();
    }
    CHECK(count(seen->started, "camcore-capture") == starts && count(seen->started, "camcore-pull") == 0,
          "no hook runs after clear_thread_hooks()");
}

/* Versions and FourCC strings. */
void test_version_and_fourcc_strings() {
    std::uint32_t v = camcore::version_number();
    CHECK(v == CAMCORE_VERSION, "version_number() 0x%06x == CAMCORE_VERSION 0x%06x", v,
          static_cast<unsigned>(CAMCORE_VERSION));
    CHECK((v >> 16) == CAMCORE_VERSION_MAJOR && ((v >> 8) & 0xffu) == CAMCORE_VERSION_MINOR &&
              (v & 0xffu) == CAMCORE_VERSION_PATCH,
          "version_number() unpacks to the header's macros");
    std::string text = camcore::version();
    CHECK(!text.empty() && text == CAMCORE_VERSION_STRING, "version() '%s' == CAMCORE_VERSION_STRING", text.c_str());
    CHECK(text == std::to_string(v >> 16) + "." + std::to_string((v >> 8) & 0xffu) + "." + std::to_string(v & 0xffu),
          "version() spells version_number()");
    for (const char *code : {"YUYV", "YU12", "NV12", "MJPG", "RGB3", "AB24"})
        CHECK(camcore::fourcc_to_string(camcore::fourcc(code)) == code, "fourcc_to_string(fourcc(\"%s\")) = '%s'",
              code, camcore::fourcc_to_string(camcore::fourcc(code)).c_str());
    CHECK(camcore::fourcc_to_string(CAMCORE_FOURCC_YUYV) == "YUYV", "fourcc_to_string(CAMCORE_FOURCC_YUYV)");
    CHECK(camcore::fourcc_to_string(camcore::fourcc("Y8")) == "Y8  ", "fourcc_to_string(fourcc(\"Y8\")) keeps the padding");
    std::string be = camcore::fourcc_to_string(CAMCORE_FOURCC('Y', '1', '6', ' ') | (1u << 31));
    CHECK(be == "Y16?", "big-endian Y16: '%s', expected 'Y16?' (bit 31 is not ASCII)", be.c_str());
    std::string zero = camcore::fourcc_to_string(0);
    CHECK(zero == "????" && zero.size() == 4, "fourcc_to_string(0): '%s'", zero.c_str());
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
    TESTLIB_TEST(test_S36_next_frame),
    TESTLIB_TEST(test_S36_frames_range),
    TESTLIB_TEST(test_S36_preview_fd),
    TESTLIB_TEST(test_S36_preview_loop),
    TESTLIB_TEST(test_S20_capture_hook),
    TESTLIB_TEST(test_S7_format_for_and_max_frame_rate),
    TESTLIB_TEST(test_S35_permission_without_portal),
    TESTLIB_TEST(test_thread_hooks),
    TESTLIB_TEST(test_version_and_fourcc_strings),
};

const char *setup() {
    unsetenv("CAMCORE_SYNTHETIC_CAMERA");
    return nullptr;
}

const testlib_suite suite = {tests, TESTLIB_COUNT(tests), 120, setup, nullptr, 0, 0};

} // namespace

int main(int argc, char **argv) { return testlib_main(argc, argv, &suite); }
