// SPDX-License-Identifier: MIT
/*
 * bare_capture — the reference frame path: a plain C V4L2 mmap capture
 * loop (open, S_FMT, S_PARM, REQBUFS, mmap, QBUF, STREAMON, then poll /
 * DQBUF / QBUF), written for the benchmark with nothing on top. No libv4l2,
 * no threads, no allocation per frame.
 *
 *   bare_capture --device /dev/video0 [--device /dev/video1 ...]
 *                [--fourcc YUYV] [--size 640x480] [--fps 120] [--frames 300]
 *                [--warmup 10] [--buffers 4] [--convert I420|RGB24]
 *                [--first-frame] [--libv4l2] [--eventfd] [--epoll]
 *
 * Each frame is touched (one byte read) as a receiver would. --convert
 * runs the reference libyuv / TurboJPEG call on every frame (bench_util.h).
 * The CPU (getrusage user+sys) and wall time are measured from the
 * warm-up'th frame to the last; --frames counts per device. --first-frame
 * measures open() -> first dequeued frame and exits.
 * Switches add what camcore's V4L2 loop does beyond this one, to break
 * its overhead down: --eventfd waits on an (idle) eventfd beside the
 * device, as camcore's capture thread does to be woken for stop and for
 * released buffers; --epoll waits with epoll_wait on a set registered once
 * (the device, and the eventfd with --eventfd) instead of poll(), as
 * camcore does; --libv4l2 wraps the fd with libv4l2 (v4l2_fd_open,
 * V4L2_DISABLE_CONVERSION) and makes every ioctl through v4l2_ioctl, as
 * camcore does for setting up single-planar nodes (its QBUF and DQBUF go
 * to the kernel directly).
 * Prints one JSON line.
 */
#include "bench_util.h"

#include <errno.h>
#include <fcntl.h>
#include <libv4l2.h>
#include <linux/videodev2.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_DEVS 8
#define MAX_BUFS 32

struct dev {
    const char *path;
    int fd;
    uint32_t nbufs;
    void *map[MAX_BUFS];
    size_t len[MAX_BUFS];
    uint32_t stride, width, height, fourcc, sizeimage;
    struct v4l2_fract tpf;
    uint64_t frames;
    uint32_t last_seq;
    int have_seq;
    uint64_t dropped;
};

static int use_libv4l2;

static int xioctl(int fd, unsigned long req, void *arg)
{
    int r;
    do r = use_libv4l2 ? v4l2_ioctl(fd, req, arg) : ioctl(fd, req, arg); while (r < 0 && errno == EINTR);
    return r;
}

static void die(const char *what, const char *dev)
{
    fprintf(stderr, "bare_capture: %s %s: %s\n", what, dev ? dev : "", strerror(errno));
    exit(1);
}

static void open_dev(struct dev *d, uint32_t fourcc, uint32_t w, uint32_t h, uint32_t fps, uint32_t nbufs)
{
    d->fd = open(d->path, O_RDWR | O_NONBLOCK);
    if (d->fd < 0) die("open", d->path);
    if (use_libv4l2) {
        int wrapped = v4l2_fd_open(d->fd, V4L2_DISABLE_CONVERSION);
        if (wrapped < 0) die("v4l2_fd_open", d->path);
        d->fd = wrapped;
    }
    struct v4l2_format f;
    memset(&f, 0, sizeof f);
    f.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    f.fmt.pix.width = w;
    f.fmt.pix.height = h;
    f.fmt.pix.pixelformat = fourcc;
    f.fmt.pix.field = V4L2_FIELD_NONE;
    if (xioctl(d->fd, VIDIOC_S_FMT, &f) < 0) die("VIDIOC_S_FMT", d->path);
    d->width = f.fmt.pix.width; d->height = f.fmt.pix.height;
    d->stride = f.fmt.pix.bytesperline; d->fourcc = f.fmt.pix.pixelformat;
    d->sizeimage = f.fmt.pix.sizeimage;
    struct v4l2_streamparm p;
    memset(&p, 0, sizeof p);
    p.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    if (fps) {
        p.parm.capture.timeperframe.numerator = 1;
        p.parm.capture.timeperframe.denominator = fps;
        xioctl(d->fd, VIDIOC_S_PARM, &p);  /* best effort, like a plain app */
    }
    memset(&p, 0, sizeof p);
    p.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    if (xioctl(d->fd, VIDIOC_G_PARM, &p) == 0) d->tpf = p.parm.capture.timeperframe;
    struct v4l2_requestbuffers rb;
    memset(&rb, 0, sizeof rb);
    rb.count = nbufs;
    rb.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    rb.memory = V4L2_MEMORY_MMAP;
    if (xioctl(d->fd, VIDIOC_REQBUFS, &rb) < 0) die("VIDIOC_REQBUFS", d->path);
    d->nbufs = rb.count < MAX_BUFS ? rb.count : MAX_BUFS;
    for (uint32_t i = 0; i < d->nbufs; i++) {
        struct v4l2_buffer b;
        memset(&b, 0, sizeof b);
        b.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        b.memory = V4L2_MEMORY_MMAP;
        b.index = i;
        if (xioctl(d->fd, VIDIOC_QUERYBUF, &b) < 0) die("VIDIOC_QUERYBUF", d->path);
        d->len[i] = b.length;
        d->map[i] = use_libv4l2 ? v4l2_mmap(NULL, b.length, PROT_READ | PROT_WRITE, MAP_SHARED, d->fd, b.m.offset)
                                : mmap(NULL, b.length, PROT_READ | PROT_WRITE, MAP_SHARED, d->fd, b.m.offset);
        if (d->map[i] == MAP_FAILED) die("mmap", d->path);
        if (xioctl(d->fd, VIDIOC_QBUF, &b) < 0) die("VIDIOC_QBUF", d->path);
    }
    int t = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    if (xioctl(d->fd, VIDIOC_STREAMON, &t) < 0) die("VIDIOC_STREAMON", d->path);
}

static void close_dev(struct dev *d)
{
    int t = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    xioctl(d->fd, VIDIOC_STREAMOFF, &t);
    for (uint32_t i = 0; i < d->nbufs; i++) use_libv4l2 ? v4l2_munmap(d->map[i], d->len[i]) : munmap(d->map[i], d->len[i]);
    struct v4l2_requestbuffers rb;
    memset(&rb, 0, sizeof rb);
    rb.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    rb.memory = V4L2_MEMORY_MMAP;
    xioctl(d->fd, VIDIOC_REQBUFS, &rb);
    use_libv4l2 ? v4l2_close(d->fd) : close(d->fd);
}

int main(int argc, char **argv)
{
    struct dev devs[MAX_DEVS];
    int ndev = 0;
    uint32_t fourcc = BENCH_YUYV, w = 640, h = 480, fps = 120, frames = 300, warmup = 10, nbufs = 4;
    uint32_t convert = 0;
    int first_frame = 0, with_eventfd = 0, with_epoll = 0;
    memset(devs, 0, sizeof devs);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--device") && v && ndev < MAX_DEVS) { devs[ndev++].path = v; i++; }
        else if (!strcmp(a, "--fourcc") && v) { fourcc = bench_parse_fourcc(v); i++; }
        else if (!strcmp(a, "--size") && v) { if (bench_parse_size(v, &w, &h)) return 2; i++; }
        else if (!strcmp(a, "--fps") && v) { fps = (uint32_t)atoi(v); i++; }
        else if (!strcmp(a, "--frames") && v) { frames = (uint32_t)atoi(v); i++; }
        else if (!strcmp(a, "--warmup") && v) { warmup = (uint32_t)atoi(v); i++; }
        else if (!strcmp(a, "--buffers") && v) { nbufs = (uint32_t)atoi(v); i++; }
        else if (!strcmp(a, "--convert") && v) { convert = bench_parse_fourcc(v); i++; }
        else if (!strcmp(a, "--first-frame")) first_frame = 1;
        else if (!strcmp(a, "--libv4l2")) use_libv4l2 = 1;
        else if (!strcmp(a, "--eventfd")) with_eventfd = 1;
        else if (!strcmp(a, "--epoll")) with_epoll = 1;
        else { fprintf(stderr, "bare_capture: bad argument %s\n", a); return 2; }
    }
    if (!ndev || !fourcc || !frames) { fprintf(stderr, "bare_capture: need --device\n"); return 2; }

    if (first_frame) {
        uint64_t t0 = bench_now_ns(), c0 = bench_cpu_ns();
        long f0 = bench_minflt();
        open_dev(&devs[0], fourcc, w, h, fps, nbufs);
        struct pollfd pfd = {devs[0].fd, POLLIN, 0};
        for (;;) {
            if (poll(&pfd, 1, 5000) <= 0) die("poll (no frame)", devs[0].path);
            struct v4l2_buffer b;
            memset(&b, 0, sizeof b);
            b.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
            b.memory = V4L2_MEMORY_MMAP;
            if (xioctl(devs[0].fd, VIDIOC_DQBUF, &b) == 0) break;
            if (errno != EAGAIN) die("VIDIOC_DQBUF", devs[0].path);
        }
        uint64_t t1 = bench_now_ns(), c1 = bench_cpu_ns();
        close_dev(&devs[0]);
        bench_json j;
        bench_json_begin(&j);
        bench_json_addf(&j, "prog", "\"bare\"");
        bench_json_addf(&j, "open_to_first_frame_ms", "%.3f", (double)(t1 - t0) / 1e6);
        bench_json_addf(&j, "open_to_first_frame_cpu_ms", "%.3f", (double)(c1 - c0) / 1e6);
        bench_json_addf(&j, "to_first_frame_minflt", "%ld", bench_minflt() - f0);
        bench_json_end(&j);
        return 0;
    }

    for (int i = 0; i < ndev; i++) open_dev(&devs[i], fourcc, w, h, fps, nbufs);
    bench_refconv conv;
    if (convert && bench_refconv_init(&conv, devs[0].fourcc, convert, (int)devs[0].width, (int)devs[0].height, NULL)) {
        fprintf(stderr, "bare_capture: no reference conversion for that pair\n");
        return 2;
    }
    struct pollfd pfd[MAX_DEVS + 1];
    for (int i = 0; i < ndev; i++) pfd[i] = (struct pollfd){devs[i].fd, POLLIN, 0};
    nfds_t npfd = (nfds_t)ndev;
    int efd = -1, ep = -1;
    if (with_eventfd) {
        efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (efd < 0) die("eventfd", NULL);
        pfd[npfd++] = (struct pollfd){efd, POLLIN, 0};
    }
    if (with_epoll) {
        ep = epoll_create1(EPOLL_CLOEXEC);
        if (ep < 0) die("epoll_create1", NULL);
        for (nfds_t i = 0; i < npfd; i++) {
            struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
            if (epoll_ctl(ep, EPOLL_CTL_ADD, pfd[i].fd, &ev) < 0) die("epoll_ctl", NULL);
        }
    }
    uint64_t total = 0, want = (uint64_t)frames * (uint64_t)ndev, start_at = (uint64_t)warmup * (uint64_t)ndev;
    uint64_t cpu0 = 0, wall0 = 0, cpu1 = 0, wall1 = 0, dropped0 = 0;
    volatile uint32_t sink = 0;
    uint64_t deadline = bench_now_ns() + 120ull * 1000000000ull;
    while (total < start_at + want) {
        if (with_epoll) {
            struct epoll_event evs[MAX_DEVS + 1];
            int r = epoll_wait(ep, evs, (int)npfd, 5000);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) die("epoll_wait (no frame in 5 s)", devs[0].path);
            for (nfds_t i = 0; i < npfd; i++) pfd[i].revents = 0;
            for (int k = 0; k < r; k++) pfd[evs[k].data.u32].revents = (short)evs[k].events;
        } else {
            int r = poll(pfd, npfd, 5000);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) die("poll (no frame in 5 s)", devs[0].path);
        }
        for (int i = 0; i < ndev; i++) {
            if (!(pfd[i].revents & POLLIN)) continue;
            struct dev *d = &devs[i];
            struct v4l2_buffer b;
            memset(&b, 0, sizeof b);
            b.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
            b.memory = V4L2_MEMORY_MMAP;
            if (xioctl(d->fd, VIDIOC_DQBUF, &b) < 0) {
                if (errno == EAGAIN) continue;
                die("VIDIOC_DQBUF", d->path);
            }
            const uint8_t *data = d->map[b.index];
            sink += data[0];
            if (d->have_seq && b.sequence != d->last_seq + 1) d->dropped += b.sequence - d->last_seq - 1;
            d->last_seq = b.sequence; d->have_seq = 1;
            if (convert) {
                const uint8_t *p1 = data + (size_t)d->stride * d->height;
                bench_refconv_run(&conv, data, (int)d->stride, p1, (int)d->stride, b.bytesused);
            }
            if (xioctl(d->fd, VIDIOC_QBUF, &b) < 0) die("VIDIOC_QBUF", d->path);
            d->frames++;
            total++;
            if (total == start_at) {
                cpu0 = bench_cpu_ns(); wall0 = bench_now_ns();
                for (int k = 0; k < ndev; k++) dropped0 += devs[k].dropped;
            }
        }
        if (bench_now_ns() > deadline) { fprintf(stderr, "bare_capture: too slow, giving up\n"); return 1; }
    }
    cpu1 = bench_cpu_ns(); wall1 = bench_now_ns();
    if (start_at == 0) { cpu0 = cpu1; wall0 = wall1; }  /* warmup 0: unsupported, keep sane */
    uint64_t dropped = 0;
    for (int k = 0; k < ndev; k++) dropped += devs[k].dropped;
    long hwm = bench_status_kb("VmHWM"), rss = bench_status_kb("VmRSS");
    for (int i = 0; i < ndev; i++) close_dev(&devs[i]);

    char f4[5];
    bench_json j;
    bench_json_begin(&j);
    bench_json_addf(&j, "prog", "\"bare\"");
    bench_json_addf(&j, "devices", "%d", ndev);
    bench_json_addf(&j, "fourcc", "\"%s\"", bench_fourcc_str(devs[0].fourcc, f4));
    bench_json_addf(&j, "width", "%u", devs[0].width);
    bench_json_addf(&j, "height", "%u", devs[0].height);
    bench_json_addf(&j, "fps", "%.3f", devs[0].tpf.numerator ? (double)devs[0].tpf.denominator / devs[0].tpf.numerator : 0.0);
    bench_json_addf(&j, "buffers", "%u", devs[0].nbufs);
    bench_json_addf(&j, "convert", "\"%s\"", convert ? bench_fourcc_str(convert, f4) : "");
    bench_json_addf(&j, "libv4l2", "%d", use_libv4l2);
    bench_json_addf(&j, "eventfd", "%d", with_eventfd);
    bench_json_addf(&j, "epoll", "%d", with_epoll);
    bench_json_addf(&j, "frames", "%llu", (unsigned long long)want);
    bench_json_addf(&j, "cpu_ns_per_frame", "%.1f", (double)(cpu1 - cpu0) / (double)want);
    bench_json_addf(&j, "wall_s", "%.3f", (double)(wall1 - wall0) / 1e9);
    bench_json_addf(&j, "measured_fps", "%.2f", (double)want * 1e9 / (double)(wall1 - wall0 + 1));
    bench_json_addf(&j, "dropped", "%llu", (unsigned long long)(dropped - dropped0));
    bench_json_addf(&j, "converted", "%llu", (unsigned long long)(convert ? conv.converted : 0));
    bench_json_addf(&j, "convert_failed", "%llu", (unsigned long long)(convert ? conv.failed : 0));
    bench_json_addf(&j, "vm_hwm_kb", "%ld", hwm);
    bench_json_addf(&j, "vm_rss_kb", "%ld", rss);
    bench_json_end(&j);
    if (convert) bench_refconv_free(&conv);
    (void)sink;
    return 0;
}
