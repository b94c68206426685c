// SPDX-License-Identifier: MIT
/*
 * v4l2_fmt_filter.so — an LD_PRELOAD library for the GStreamer rows of the
 * benchmark (row 10): capture nodes list only the pixel formats named in
 * BENCH_V4L2_FORMATS (FourCCs, comma-separated, e.g. "YUYV"), as a webcam
 * that sends raw frames only as YUYV does. vivid offers nearly every raw
 * format, I420 (YU12) among them, so asked for I420 camcore's negotiation
 * captures vivid's own I420 and converts nothing; with only YUYV listed,
 * camcore (and v4l2src) capture YUYV and convert, which is the work the
 * converting row compares.
 *
 * Both ways a program reaches the driver are wrapped: libc's ioctl() (what
 * v4l2src calls, and camcore for QBUF/DQBUF) and libv4l2's v4l2_ioctl()
 * (camcore's other ioctls; libv4l2 passes them to the kernel through
 * syscall(), which no ioctl() wrapper sees). Only VIDIOC_ENUM_FMT of
 * capture buffer types is changed: index i answers the i-th listed format
 * the driver has, in the driver's order, and EINVAL past the last. Every
 * other ioctl goes on unchanged (a call through a cached pointer: a few
 * instructions, paid alike by every pipeline run under it).
 *
 *   cc -shared -fPIC -O2 -o v4l2_fmt_filter.so v4l2_fmt_filter.c -ldl
 *   BENCH_V4L2_FORMATS=YUYV LD_PRELOAD=$PWD/v4l2_fmt_filter.so v4l2-ctl --list-formats
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <linux/videodev2.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

typedef int (*ioctl_fn)(int, unsigned long, ...);

static ioctl_fn real_ioctl, real_v4l2_ioctl;
static unsigned allowed[32];
static int n_allowed = -1;   /* -1: not read yet; 0: no filter */

static void init(void)
{
    real_ioctl = (ioctl_fn)dlsym(RTLD_NEXT, "ioctl");
    n_allowed = 0;
    const char *s = getenv("BENCH_V4L2_FORMATS");
    while (s && *s && n_allowed < 32) {
        size_t n = strcspn(s, ",");
        if (n == 4)
            allowed[n_allowed++] = v4l2_fourcc(s[0], s[1], s[2], s[3]);
        s += n;
        if (*s == ',') s++;
    }
}

static int is_allowed(unsigned fourcc)
{
    for (int i = 0; i < n_allowed; i++)
        if (allowed[i] == fourcc) return 1;
    return 0;
}

/* ENUM_FMT of a capture type through `real`, filtered; anything else unchanged. */
static int filtered(ioctl_fn real, int fd, unsigned long request, void *arg)
{
    if (request != VIDIOC_ENUM_FMT || n_allowed == 0)
        return real(fd, request, arg);
    struct v4l2_fmtdesc *want = arg;
    if (want->type != V4L2_BUF_TYPE_VIDEO_CAPTURE && want->type != V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE)
        return real(fd, request, arg);
    unsigned index = want->index, seen = 0;
    for (unsigned k = 0; k < 1024; k++) {
        struct v4l2_fmtdesc d = *want;
        d.index = k;
        int rc = real(fd, request, &d);
        if (rc != 0) return rc;   /* EINVAL past the driver's last format */
        if (!is_allowed(d.pixelformat)) continue;
        if (seen++ == index) {
            d.index = index;
            *want = d;
            return 0;
        }
    }
    errno = EINVAL;
    return -1;
}

int ioctl(int fd, unsigned long request, ...)
{
    va_list ap;
    va_start(ap, request);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    if (__builtin_expect(n_allowed < 0, 0)) init();
    return filtered(real_ioctl, fd, request, arg);
}

int v4l2_ioctl(int fd, unsigned long request, ...)
{
    va_list ap;
    va_start(ap, request);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    if (__builtin_expect(n_allowed < 0, 0)) init();
    if (!real_v4l2_ioctl) {
        /* libv4l2 may sit in a library's local scope (a GStreamer plugin
         * dlopen()ed with RTLD_LOCAL), which RTLD_NEXT does not search. */
        real_v4l2_ioctl = (ioctl_fn)dlsym(RTLD_NEXT, "v4l2_ioctl");
        void *h = real_v4l2_ioctl ? NULL : dlopen("libv4l2.so.0", RTLD_NOW | RTLD_NOLOAD);
        if (h) real_v4l2_ioctl = (ioctl_fn)dlsym(h, "v4l2_ioctl");
        if (!real_v4l2_ioctl) { errno = ENOSYS; return -1; }
    }
    return filtered(real_v4l2_ioctl, fd, request, arg);
}
