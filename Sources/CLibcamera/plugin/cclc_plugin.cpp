// SPDX-License-Identifier: MIT
//
// camcore's libcamera plugin (SPEC S41): libcamera's C++ API behind the C
// table of ../include/cclc.h. Built by the Makefile against the system's
// libcamera (pkg-config libcamera) as libcamcore-libcamera.so; loaded by
// libcamcore at run time (cclc.c). Nothing here is camera policy: listing,
// configuring, the request loop and controls, as libcamera gives them.
#include "cclc.h"

#include <libcamera/libcamera.h>

#include <libudev.h>
#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace libcamera;

struct cclc_ctx;
struct cclc_cam;

namespace {

void say(char *err, size_t n, const std::string &s)
{
    if (err && n)
        std::snprintf(err, n, "%s", s.c_str());
}

// One CameraManager per process (libcamera allows no second one): shared by
// every camcore manager, started on first use, stopped with the last.
struct Shared {
    std::mutex lock;
    std::unique_ptr<CameraManager> cm;
    int users = 0;
    // The open contexts (their hot-plug callbacks move to a restarted
    // CameraManager) and cameras (told when their device goes away).
    std::set<cclc_ctx *> ctxs;
    std::set<cclc_cam *> cams;
    // Cameras whose media device went away (listed no more until the
    // CameraManager is made anew), and those whose removal was told.
    std::set<std::string> gone;
    // Under its own lock: read by hot-plug callbacks on libcamera's thread,
    // which a CameraManager's destruction (under `lock`) waits for.
    std::mutex toldLock;
    std::set<std::string> told;
    bool watching = false;
};
Shared &shared()
{
    static Shared *s = new Shared;   // never destroyed: libcamera's threads may outlive exit handlers
    return *s;
}

} // namespace

struct cclc_ctx {
    std::mutex lock;
    cclc_hotplug_fn hotplug = nullptr;
    void *hotplug_ud = nullptr;
};

struct cclc_maps {
    struct Map {
        void *addr = MAP_FAILED;
        size_t len = 0;
    };
    std::vector<Map> maps;   // one per distinct (fd, mapping)
    ~cclc_maps()
    {
        for (auto &m : maps)
            if (m.addr != MAP_FAILED)
                munmap(m.addr, m.len);
    }
};

struct cclc_cam {
    std::shared_ptr<Camera> camera;
    std::unique_ptr<CameraConfiguration> config;
    std::unique_ptr<FrameBufferAllocator> allocator;
    std::vector<std::unique_ptr<Request>> requests;
    // Per slot: each plane's address.
    std::vector<std::vector<const uint8_t *>> planes;
    Stream *stream = nullptr;
    std::mutex lock;
    std::deque<Request *> done;
    ControlList pending;   // set before start / between requests
    bool pendingSet = false;
    bool running = false;
    bool gone = false;
    int event_fd = -1;

    void completed(Request *r)
    {
        {
            std::lock_guard<std::mutex> g(lock);
            if (!running)
                return;
            done.push_back(r);
        }
        uint64_t one = 1;
        if (event_fd >= 0)
            (void)!write(event_fd, &one, sizeof one);
    }
    void disconnected()
    {
        {
            std::lock_guard<std::mutex> g(lock);
            gone = true;
        }
        uint64_t one = 1;
        if (event_fd >= 0)
            (void)!write(event_fd, &one, sizeof one);
    }
};

namespace {

std::shared_ptr<Camera> find(const char *id)
{
    auto &s = shared();
    std::lock_guard<std::mutex> g(s.lock);
    if (!s.cm || !id || s.gone.count(id))
        return nullptr;
    return s.cm->get(id);
}

const char *lc_version() { return CameraManager::version().c_str(); }

// A context's hot-plug callback (runs on libcamera's thread, or the media
// watch's), unless the context is closing.
void tell(cclc_ctx *ctx, int added, const std::string &id)
{
    std::lock_guard<std::mutex> g(ctx->lock);
    if (ctx->hotplug)
        ctx->hotplug(ctx->hotplug_ud, added, id.c_str());
}

// Connects a context's hot-plug callbacks to the CameraManager (s.lock held).
void connect_hotplug(Shared &s, cclc_ctx *ctx, bool on)
{
    if (!s.cm)
        return;
    s.cm->cameraAdded.disconnect(ctx);
    s.cm->cameraRemoved.disconnect(ctx);
    if (!on)
        return;
    s.cm->cameraAdded.connect(ctx, [ctx](std::shared_ptr<Camera> c) {
        {
            auto &sh = shared();
            std::lock_guard<std::mutex> g(sh.toldLock);
            sh.told.erase(c->id());
        }
        tell(ctx, 1, c->id());
    });
    s.cm->cameraRemoved.connect(ctx, [ctx](std::shared_ptr<Camera> c) {
        {
            auto &sh = shared();
            std::lock_guard<std::mutex> g(sh.toldLock);
            if (sh.told.count(c->id()))
                return;   // the media watch told it already
        }
        tell(ctx, 0, c->id());
    });
}

int start_cm(Shared &s, char *err, size_t n)
{
    // libcamera logs INFO lines to stderr by default, inside the app's
    // own output: quiet unless the user asks for its log.
    if (!std::getenv("LIBCAMERA_LOG_LEVELS") && !std::getenv("LIBCAMERA_LOG_FILE"))
        logSetTarget(LoggingTargetNone);
    auto cm = std::make_unique<CameraManager>();
    int r = cm->start();
    if (r < 0) {
        say(err, n, std::string("libcamera's CameraManager did not start: ") + std::strerror(-r));
        return r;
    }
    s.cm = std::move(cm);
    s.gone.clear();
    for (cclc_ctx *ctx : s.ctxs)
        connect_hotplug(s, ctx, ctx->hotplug != nullptr);
    return 0;
}

// After a camera's media device went away, libcamera 0.0.3 keeps its
// Camera (pipeline handlers without hot-unplug, vimc's among them, never
// disconnect it), and the device's return is fatal to the process
// ("a camera with a duplicated ID"). Once no camera in use is left, the
// CameraManager is made anew, which lists what is there now and reports
// the return as an arrival (s.lock held).
void restart_if_idle(Shared &s)
{
    if (s.gone.empty() || !s.cm)
        return;
    for (cclc_cam *c : s.cams)
        if (!c->gone)
            return;
    for (cclc_ctx *ctx : s.ctxs)
        connect_hotplug(s, ctx, false);
    s.cm.reset();
    char err[256];
    (void)start_cm(s, err, sizeof err);
}

// Does camera id `id` sit under device path `parent` ("platform/vimc.0"
// for "platform/vimc.0 Sensor B")?
bool under(const std::string &id, const std::string &parent)
{
    if (parent.empty() || id.compare(0, parent.size(), parent) != 0)
        return false;
    return id.size() == parent.size() || id[parent.size()] == ' ' || id[parent.size()] == '/';
}

// A media device went away (the media watch's thread): its cameras are gone.
void media_removed(const std::string &parent)
{
    auto &s = shared();
    std::vector<std::string> gone;
    std::vector<cclc_ctx *> ctxs;
    {
        std::lock_guard<std::mutex> g(s.lock);
        if (!s.cm)
            return;
        for (auto &c : s.cm->cameras())
            if (under(c->id(), parent) && !s.gone.count(c->id()))
                gone.push_back(c->id());
        if (gone.empty())
            return;
        for (auto &id : gone) {
            s.gone.insert(id);
            std::lock_guard<std::mutex> t(s.toldLock);
            s.told.insert(id);
        }
        for (cclc_cam *c : s.cams)
            if (std::find(gone.begin(), gone.end(), c->camera->id()) != gone.end())
                c->disconnected();
        ctxs.assign(s.ctxs.begin(), s.ctxs.end());
        restart_if_idle(s);
    }
    for (auto &id : gone)
        for (cclc_ctx *ctx : ctxs)
            tell(ctx, 0, id);
}

// Watches udev for media devices that go away (for as long as the process
// runs: one thread, started with the first context).
void media_watch()
{
    struct udev *u = udev_new();
    struct udev_monitor *mon = u ? udev_monitor_new_from_netlink(u, "udev") : nullptr;
    if (!mon || udev_monitor_filter_add_match_subsystem_devtype(mon, "media", nullptr) < 0 ||
        udev_monitor_enable_receiving(mon) < 0)
        return;
    struct pollfd p = { udev_monitor_get_fd(mon), POLLIN, 0 };
    for (;;) {
        if (poll(&p, 1, -1) <= 0)
            continue;
        struct udev_device *d = udev_monitor_receive_device(mon);
        if (!d)
            continue;
        const char *action = udev_device_get_action(d);
        const char *sys = udev_device_get_syspath(d);
        if (action && sys && std::strcmp(action, "remove") == 0) {
            // "/sys/devices/platform/vimc.0/media0" -> "platform/vimc.0"
            std::string path(sys);
            const std::string root = "/sys/devices/";
            if (path.compare(0, root.size(), root) == 0)
                path = path.substr(root.size());
            auto slash = path.rfind('/');
            if (slash != std::string::npos)
                media_removed(path.substr(0, slash));
        }
        udev_device_unref(d);
    }
}

cclc_ctx *ctx_open(char *err, size_t n)
{
    auto &s = shared();
    std::lock_guard<std::mutex> g(s.lock);
    if (!s.cm && start_cm(s, err, n) < 0)
        return nullptr;
    if (!s.watching) {
        s.watching = true;
        std::thread(media_watch).detach();
    }
    s.users++;
    auto *ctx = new cclc_ctx;
    s.ctxs.insert(ctx);
    return ctx;
}

void ctx_close(cclc_ctx *ctx)
{
    if (!ctx)
        return;
    {
        // Waits for a running hot-plug callback of this context.
        std::lock_guard<std::mutex> g(ctx->lock);
        ctx->hotplug = nullptr;
    }
    auto &s = shared();
    {
        std::lock_guard<std::mutex> g(s.lock);
        connect_hotplug(s, ctx, false);
        s.ctxs.erase(ctx);
        // The last user gone: the CameraManager stops, closing the media
        // devices it holds (S3: nothing stays open; a driver can unload).
        if (--s.users == 0)
            s.cm.reset();
    }
    delete ctx;
}

int cameras(cclc_ctx *, cclc_camera_desc *out, int max)
{
    auto &s = shared();
    std::vector<std::shared_ptr<Camera>> list;
    {
        std::lock_guard<std::mutex> g(s.lock);
        if (!s.cm)
            return 0;
        for (auto &c : s.cm->cameras())
            if (!s.gone.count(c->id()))
                list.push_back(c);
    }
    int i = 0;
    for (auto &c : list) {
        if (i < max && out) {
            cclc_camera_desc &d = out[i];
            std::memset(&d, 0, sizeof d);
            std::snprintf(d.id, sizeof d.id, "%s", c->id().c_str());
            const ControlList &p = c->properties();
            auto model = p.get(properties::Model);
            std::snprintf(d.model, sizeof d.model, "%s", model ? model->c_str() : c->id().c_str());
            auto loc = p.get(properties::Location);
            d.location = loc ? *loc : -1;
            auto rot = p.get(properties::Rotation);
            d.rotation = rot ? *rot : -1;
        }
        i++;
    }
    return i;
}

int formats(cclc_ctx *, const char *id, cclc_format *out, int max, int64_t *min_ns, int64_t *max_ns, char *err,
            size_t n)
{
    auto cam = find(id);
    if (!cam) {
        say(err, n, std::string("libcamera lists no camera '") + (id ? id : "") + "'");
        return -1;
    }
    if (min_ns)
        *min_ns = 0;
    if (max_ns)
        *max_ns = 0;
    auto limits = cam->controls().find(&controls::FrameDurationLimits);
    if (limits != cam->controls().end()) {
        if (min_ns)
            *min_ns = limits->second.min().get<int64_t>();
        if (max_ns)
            *max_ns = limits->second.max().get<int64_t>();
    }
    auto config = cam->generateConfiguration({ StreamRole::VideoRecording });
    if (!config || config->empty()) {
        say(err, n, "libcamera gives no video configuration for this camera");
        return -1;
    }
    const StreamFormats &f = config->at(0).formats();
    int i = 0;
    for (const PixelFormat &pf : f.pixelformats()) {
        if (i < max && out) {
            cclc_format &o = out[i];
            std::memset(&o, 0, sizeof o);
            o.drm_fourcc = pf.fourcc();
            o.modifier = pf.modifier();
            std::vector<Size> sizes = f.sizes(pf);
            for (const Size &s : sizes) {
                if (o.n_sizes >= CCLC_MAX_SIZES)
                    break;
                o.sizes[o.n_sizes][0] = s.width;
                o.sizes[o.n_sizes][1] = s.height;
                o.n_sizes++;
            }
            SizeRange r = f.range(pf);
            o.min_w = r.min.width;
            o.min_h = r.min.height;
            o.max_w = r.max.width;
            o.max_h = r.max.height;
            o.step_w = r.hStep;
            o.step_h = r.vStep;
        }
        i++;
    }
    return i;
}

void set_hotplug(cclc_ctx *ctx, cclc_hotplug_fn fn, void *ud)
{
    if (!ctx)
        return;
    {
        std::lock_guard<std::mutex> g(ctx->lock);
        ctx->hotplug = fn;
        ctx->hotplug_ud = ud;
    }
    auto &s = shared();
    std::lock_guard<std::mutex> g(s.lock);
    connect_hotplug(s, ctx, fn != nullptr);
}

cclc_cam *acquire(cclc_ctx *, const char *id, int *busy, char *err, size_t n)
{
    if (busy)
        *busy = 0;
    auto cam = find(id);
    if (!cam) {
        say(err, n, std::string("libcamera lists no camera '") + (id ? id : "") + "' now");
        return nullptr;
    }
    int r = cam->acquire();
    if (r < 0) {
        if (busy)
            *busy = r == -EBUSY;
        say(err, n, std::string("libcamera could not acquire the camera: ") + std::strerror(-r));
        return nullptr;
    }
    auto *c = new cclc_cam;
    c->camera = cam;
    cam->requestCompleted.connect(c, [c](Request *rq) { c->completed(rq); });
    cam->disconnected.connect(c, [c]() { c->disconnected(); });
    auto &s = shared();
    std::lock_guard<std::mutex> g(s.lock);
    s.cams.insert(c);
    return c;
}

int configure(cclc_cam *c, uint32_t fourcc, uint32_t w, uint32_t h, uint32_t buffers, cclc_stream *out, char *err,
              size_t n)
{
    auto config = c->camera->generateConfiguration({ StreamRole::VideoRecording });
    if (!config || config->empty()) {
        say(err, n, "libcamera gives no video configuration for this camera");
        return -1;
    }
    StreamConfiguration &sc = config->at(0);
    sc.pixelFormat = PixelFormat(fourcc);
    sc.size = Size(w, h);
    if (buffers)
        sc.bufferCount = buffers;
    CameraConfiguration::Status st = config->validate();
    if (st == CameraConfiguration::Invalid) {
        say(err, n, "libcamera refuses the configuration " + sc.toString());
        return -1;
    }
    int r = c->camera->configure(config.get());
    if (r < 0) {
        say(err, n, "libcamera could not apply " + sc.toString() + ": " + std::strerror(-r));
        return -1;
    }
    std::memset(out, 0, sizeof *out);
    out->drm_fourcc = sc.pixelFormat.fourcc();
    out->width = sc.size.width;
    out->height = sc.size.height;
    out->stride = sc.stride;
    out->frame_size = sc.frameSize;
    out->buffer_count = sc.bufferCount;
    out->adjusted = st == CameraConfiguration::Adjusted;
    c->stream = sc.stream();
    c->config = std::move(config);
    return 0;
}

cclc_maps *start(cclc_cam *c, int64_t frame_ns, int event_fd, char *err, size_t n)
{
    if (!c->stream) {
        say(err, n, "not configured");
        return nullptr;
    }
    c->allocator = std::make_unique<FrameBufferAllocator>(c->camera);
    if (c->allocator->allocate(c->stream) < 0) {
        say(err, n, "libcamera could not allocate frame buffers");
        c->allocator.reset();
        return nullptr;
    }
    auto maps = std::make_unique<cclc_maps>();
    // One mapping per dmabuf fd (planes of one buffer often share it).
    std::map<int, const uint8_t *> mapped;
    const auto &bufs = c->allocator->buffers(c->stream);
    c->planes.assign(bufs.size(), {});
    c->requests.clear();
    for (size_t i = 0; i < bufs.size(); i++) {
        FrameBuffer *b = bufs[i].get();
        for (const FrameBuffer::Plane &p : b->planes()) {
            int fd = p.fd.get();
            auto it = mapped.find(fd);
            if (it == mapped.end()) {
                size_t len = 0;
                for (const FrameBuffer::Plane &q : b->planes())
                    if (q.fd.get() == fd)
                        len = std::max<size_t>(len, q.offset + q.length);
                void *a = mmap(nullptr, len, PROT_READ, MAP_SHARED, fd, 0);
                if (a == MAP_FAILED) {
                    say(err, n, std::string("mmap of a libcamera buffer failed: ") + std::strerror(errno));
                    c->requests.clear();
                    c->allocator.reset();
                    return nullptr;
                }
                maps->maps.push_back({ a, len });
                it = mapped.emplace(fd, static_cast<const uint8_t *>(a)).first;
            }
            c->planes[i].push_back(it->second + p.offset);
        }
        std::unique_ptr<Request> rq = c->camera->createRequest(i);
        if (!rq || rq->addBuffer(c->stream, b) < 0) {
            say(err, n, "libcamera could not make a request");
            c->requests.clear();
            c->allocator.reset();
            return nullptr;
        }
        c->requests.push_back(std::move(rq));
    }
    c->event_fd = event_fd;
    {
        std::lock_guard<std::mutex> g(c->lock);
        c->done.clear();
        c->running = true;
    }
    ControlList startControls(c->camera->controls());
    if (c->pendingSet)
        startControls.merge(c->pending);
    if (frame_ns > 0 && c->camera->controls().count(&controls::FrameDurationLimits))
        startControls.set(controls::FrameDurationLimits, Span<const int64_t, 2>({ frame_ns, frame_ns }));
    int r = c->camera->start(&startControls);
    if (r < 0) {
        {
            std::lock_guard<std::mutex> g(c->lock);
            c->running = false;
        }
        say(err, n, std::string("libcamera could not start the camera: ") + std::strerror(-r));
        c->requests.clear();
        c->allocator.reset();
        return nullptr;
    }
    // Pipeline handlers may ignore start()'s list (vimc does): the controls
    // set before start also go with the first request.
    {
        std::lock_guard<std::mutex> g(c->lock);
        if (c->pendingSet && !c->requests.empty())
            c->requests.front()->controls().merge(c->pending);
        c->pending.clear();
        c->pendingSet = false;
    }
    for (auto &rq : c->requests) {
        if (c->camera->queueRequest(rq.get()) < 0) {
            say(err, n, "libcamera refused a request");
            c->camera->stop();
            {
                std::lock_guard<std::mutex> g(c->lock);
                c->running = false;
            }
            c->requests.clear();
            c->allocator.reset();
            return nullptr;
        }
    }
    return maps.release();
}

int next(cclc_cam *c, cclc_buffer *out)
{
    Request *rq;
    {
        std::lock_guard<std::mutex> g(c->lock);
        if (c->done.empty())
            return c->gone ? -1 : 0;
        rq = c->done.front();
        c->done.pop_front();
    }
    std::memset(out, 0, sizeof *out);
    out->slot = static_cast<int32_t>(rq->cookie());
    FrameBuffer *b = rq->findBuffer(c->stream);
    if (!b || out->slot < 0 || static_cast<size_t>(out->slot) >= c->planes.size()) {
        out->status = 2;
        return 1;
    }
    const FrameMetadata &m = b->metadata();
    out->status = rq->status() == Request::RequestCancelled ? 2
                  : m.status == FrameMetadata::FrameSuccess  ? 0
                  : m.status == FrameMetadata::FrameCancelled ? 2
                                                              : 1;
    out->timestamp_ns = m.timestamp;
    out->sequence = m.sequence;
    const auto &planes = c->planes[out->slot];
    out->n_planes = static_cast<uint32_t>(std::min<size_t>(planes.size(), CCLC_MAX_PLANES));
    auto used = m.planes();
    for (uint32_t i = 0; i < out->n_planes; i++) {
        out->data[i] = planes[i];
        out->length[i] = b->planes()[i].length;
        out->bytesused[i] = i < used.size() ? used[i].bytesused : b->planes()[i].length;
    }
    return 1;
}

int requeue(cclc_cam *c, int slot)
{
    if (slot < 0 || static_cast<size_t>(slot) >= c->requests.size())
        return -1;
    {
        std::lock_guard<std::mutex> g(c->lock);
        if (!c->running)
            return 0;
    }
    Request *rq = c->requests[slot].get();
    rq->reuse(Request::ReuseBuffers);
    {
        std::lock_guard<std::mutex> g(c->lock);
        if (c->pendingSet) {
            rq->controls().merge(c->pending);
            c->pending.clear();
            c->pendingSet = false;
        }
    }
    return c->camera->queueRequest(rq) < 0 ? -1 : 0;
}

void stop(cclc_cam *c)
{
    bool was, gone;
    {
        std::lock_guard<std::mutex> g(c->lock);
        was = c->running;
        gone = c->gone;
        c->running = false;
    }
    // A camera that went away is not stopped: libcamera 0.0.3 aborts the
    // process (an ASSERT on pending requests in PipelineHandler::stop) when
    // asked to stop a pipeline whose devices were unbound mid-stream. Its
    // requests and buffers stay with the pipeline, which may still point
    // at them: they are left, never freed.
    if (was && !gone)
        c->camera->stop();
    if (was && gone) {
        for (auto &rq : c->requests)
            (void)rq.release();
        (void)c->allocator.release();
    }
    {
        std::lock_guard<std::mutex> g(c->lock);
        c->done.clear();
    }
    c->requests.clear();
    if (c->allocator && c->stream)
        c->allocator->free(c->stream);
    c->allocator.reset();
    c->event_fd = -1;
}

void release(cclc_cam *c)
{
    if (!c)
        return;
    stop(c);
    c->camera->requestCompleted.disconnect(c);
    c->camera->disconnected.disconnect(c);
    bool gone;
    {
        std::lock_guard<std::mutex> g(c->lock);
        gone = c->gone;
    }
    auto &s = shared();
    {
        std::lock_guard<std::mutex> g(s.lock);
        s.cams.erase(c);
    }
    if (gone) {
        // Not released, and kept: releasing waits on a CameraManager that
        // may be gone, and its pipeline may still use the Camera (the
        // device's fds stay open until the process ends: libcamera 0.0.3
        // cannot stop a pipeline whose device vanished).
        (void)new std::shared_ptr<Camera>(std::move(c->camera));
    } else {
        c->camera->release();
    }
    delete c;
    std::lock_guard<std::mutex> g(s.lock);
    restart_if_idle(s);
}

void maps_free(cclc_maps *m) { delete m; }

int list_controls(cclc_ctx *, const char *id, cclc_control *out, int max)
{
    auto cam = find(id);
    if (!cam)
        return 0;
    int i = 0;
    for (const auto &[cid, info] : cam->controls()) {
        int type;
        switch (cid->type()) {
        case ControlTypeBool: type = 1; break;
        case ControlTypeInteger32: type = 2; break;
        case ControlTypeInteger64: type = 3; break;
        case ControlTypeFloat: type = 4; break;
        default: continue;
        }
        if (cid->id() == controls::FrameDurationLimits.id())
            continue;
        auto num = [type](const ControlValue &v) -> double {
            if (v.isNone() || v.isArray())
                return 0;
            switch (type) {
            case 1: return v.get<bool>() ? 1 : 0;
            case 2: return v.get<int32_t>();
            case 3: return static_cast<double>(v.get<int64_t>());
            default: return v.get<float>();
            }
        };
        if (info.min().isArray())
            continue;
        if (i < max && out) {
            cclc_control &o = out[i];
            std::memset(&o, 0, sizeof o);
            o.id = cid->id();
            std::snprintf(o.name, sizeof o.name, "%s", cid->name().c_str());
            o.type = type;
            o.min = num(info.min());
            o.max = num(info.max());
            o.def = info.def().isNone() ? (o.min + o.max) / 2 : num(info.def());
        }
        i++;
    }
    return i;
}

int set_control(cclc_cam *c, uint32_t id, double value, char *err, size_t n)
{
    const ControlInfoMap &infos = c->camera->controls();
    auto it = infos.find(id);
    if (it == infos.end()) {
        say(err, n, "libcamera: the camera has no control " + std::to_string(id));
        return -1;
    }
    const ControlId *cid = it->first;
    ControlValue v;
    switch (cid->type()) {
    case ControlTypeBool: v = ControlValue(value != 0); break;
    case ControlTypeInteger32: v = ControlValue(static_cast<int32_t>(std::lround(value))); break;
    case ControlTypeInteger64: v = ControlValue(static_cast<int64_t>(std::llround(value))); break;
    case ControlTypeFloat: v = ControlValue(static_cast<float>(value)); break;
    default:
        say(err, n, "libcamera: control " + cid->name() + " is not a scalar");
        return -1;
    }
    std::lock_guard<std::mutex> g(c->lock);
    if (!c->pendingSet) {
        c->pending = ControlList(infos);
        c->pendingSet = true;
    }
    c->pending.set(id, v);
    return 0;
}

const cclc_api api_v1 = {
    CCLC_API_VERSION, lc_version, ctx_open, ctx_close, cameras, formats, set_hotplug, acquire, configure, start,
    next, requeue, stop, release, maps_free, list_controls, set_control,
};

} // namespace

extern "C" __attribute__((visibility("default"))) const cclc_api *camcore_libcamera_plugin(uint32_t version)
{
    return version == CCLC_API_VERSION ? &api_v1 : nullptr;
}
