// SPDX-License-Identifier: MIT
/*
 * libv4l2 and <linux/videodev2.h> for Swift.
 *
 * Swift cannot call variadic C functions nor import function-like macros,
 * so this shim gives fixed-signature wrappers for libv4l2's open/ioctl and
 * the VIDIOC_* request numbers as constants, and the few other system calls
 * of the syscall layer that Glibc does not import well (epoll, eventfd,
 * prctl for thread names; see Platform/Syscalls.swift).
 */
#ifndef CAMCORE_CV4L2_SHIM_H
#define CAMCORE_CV4L2_SHIM_H

#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/eventfd.h>
#include <sys/epoll.h>
#include <errno.h>
#include <poll.h>
#include <sys/prctl.h>
#include <linux/videodev2.h>
#include <libv4l2.h>

/* libv4l2 entry points with fixed signatures. */
static inline int cc_v4l2_fd_open_noconvert(int fd) {
    /* The driver's own formats only: no libv4lconvert emulation. */
    return v4l2_fd_open(fd, V4L2_DISABLE_CONVERSION);
}
static inline int cc_v4l2_ioctl(int fd, unsigned long request, void *arg) {
    return v4l2_ioctl(fd, request, arg);
}
static inline int cc_sys_open(const char *path, int flags) {
    return open(path, flags);
}
/* The kernel's ioctl, for a node libv4l2 does not wrap. */
static inline int cc_sys_ioctl(int fd, unsigned long request, void *arg) {
    return ioctl(fd, request, arg);
}

/*
 * The capture thread's wait (Sources/CamCore/Backends/V4L2/V4L2Capture.swift): an epoll
 * set registered once per streaming session holds the device (tag 0) and
 * the waker's eventfd (tag 1). epoll_wait does not re-register both wait
 * queues on every frame as poll() would. struct epoll_event is packed on
 * x86-64, so Swift only sees these two helpers.
 */
static inline int cc_epoll_add(int ep, int fd, uint32_t events, uint32_t tag) {
    struct epoll_event ev;
    ev.events = events;
    ev.data.u64 = tag;
    return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}
/* Names the calling thread (at most 15 bytes kept): what top -H and gdb show. */
static inline void cc_set_thread_name(const char *name) { prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0); }

static inline int cc_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }
static const uint32_t CC_EPOLLIN = EPOLLIN;
static const uint32_t CC_EPOLLERR_HUP = EPOLLERR | EPOLLHUP;
/* Waits up to timeout_ms; returns epoll_wait's result (-1: errno) and the
 * events of tag 0 and tag 1 (0 when not ready). */
static inline int cc_epoll_wait2(int ep, int timeout_ms, uint32_t *events0, uint32_t *events1) {
    struct epoll_event ev[2];
    int n = epoll_wait(ep, ev, 2, timeout_ms);
    *events0 = 0;
    *events1 = 0;
    for (int i = 0; i < n; i++) {
        if (ev[i].data.u64 == 0) *events0 = ev[i].events; else *events1 = ev[i].events;
    }
    return n;
}

/* VIDIOC_* request numbers. */
static const unsigned long CC_VIDIOC_QUERYCAP = VIDIOC_QUERYCAP;
static const unsigned long CC_VIDIOC_ENUM_FMT = VIDIOC_ENUM_FMT;
static const unsigned long CC_VIDIOC_ENUM_FRAMESIZES = VIDIOC_ENUM_FRAMESIZES;
static const unsigned long CC_VIDIOC_ENUM_FRAMEINTERVALS = VIDIOC_ENUM_FRAMEINTERVALS;
static const unsigned long CC_VIDIOC_G_FMT = VIDIOC_G_FMT;
static const unsigned long CC_VIDIOC_S_FMT = VIDIOC_S_FMT;
static const unsigned long CC_VIDIOC_TRY_FMT = VIDIOC_TRY_FMT;
static const unsigned long CC_VIDIOC_G_PARM = VIDIOC_G_PARM;
static const unsigned long CC_VIDIOC_S_PARM = VIDIOC_S_PARM;
static const unsigned long CC_VIDIOC_REQBUFS = VIDIOC_REQBUFS;
static const unsigned long CC_VIDIOC_QUERYBUF = VIDIOC_QUERYBUF;
static const unsigned long CC_VIDIOC_QBUF = VIDIOC_QBUF;
static const unsigned long CC_VIDIOC_EXPBUF = VIDIOC_EXPBUF;
static const unsigned long CC_VIDIOC_DQBUF = VIDIOC_DQBUF;
static const unsigned long CC_VIDIOC_STREAMON = VIDIOC_STREAMON;
static const unsigned long CC_VIDIOC_STREAMOFF = VIDIOC_STREAMOFF;
static const unsigned long CC_VIDIOC_G_CTRL = VIDIOC_G_CTRL;
static const unsigned long CC_VIDIOC_S_CTRL = VIDIOC_S_CTRL;
static const unsigned long CC_VIDIOC_QUERYCTRL = VIDIOC_QUERYCTRL;
/* Controls and control events (SPEC S27; Sources/CamCore/Controls/ControlDevice.swift). */
static const unsigned long CC_VIDIOC_QUERY_EXT_CTRL = VIDIOC_QUERY_EXT_CTRL;
static const unsigned long CC_VIDIOC_QUERYMENU = VIDIOC_QUERYMENU;
static const unsigned long CC_VIDIOC_G_EXT_CTRLS = VIDIOC_G_EXT_CTRLS;
static const unsigned long CC_VIDIOC_S_EXT_CTRLS = VIDIOC_S_EXT_CTRLS;
static const unsigned long CC_VIDIOC_SUBSCRIBE_EVENT = VIDIOC_SUBSCRIBE_EVENT;
static const unsigned long CC_VIDIOC_UNSUBSCRIBE_EVENT = VIDIOC_UNSUBSCRIBE_EVENT;
static const unsigned long CC_VIDIOC_DQEVENT = VIDIOC_DQEVENT;

/* Control ids built from class bases (function-like in the header). */
static const uint32_t CC_V4L2_CID_CAMERA_ORIENTATION = V4L2_CID_CAMERA_ORIENTATION;
static const uint32_t CC_V4L2_CID_CAMERA_SENSOR_ROTATION = V4L2_CID_CAMERA_SENSOR_ROTATION;
/* Manual controls and the automatic ones that make them inactive (CameraControls.autoControl). */
static const uint32_t CC_V4L2_CID_AUTO_WHITE_BALANCE = V4L2_CID_AUTO_WHITE_BALANCE;
static const uint32_t CC_V4L2_CID_WHITE_BALANCE_TEMPERATURE = V4L2_CID_WHITE_BALANCE_TEMPERATURE;
static const uint32_t CC_V4L2_CID_RED_BALANCE = V4L2_CID_RED_BALANCE;
static const uint32_t CC_V4L2_CID_BLUE_BALANCE = V4L2_CID_BLUE_BALANCE;
static const uint32_t CC_V4L2_CID_EXPOSURE_AUTO = V4L2_CID_EXPOSURE_AUTO;
static const uint32_t CC_V4L2_CID_EXPOSURE_ABSOLUTE = V4L2_CID_EXPOSURE_ABSOLUTE;
static const uint32_t CC_V4L2_CID_EXPOSURE = V4L2_CID_EXPOSURE;
static const uint32_t CC_V4L2_CID_AUTOGAIN = V4L2_CID_AUTOGAIN;
static const uint32_t CC_V4L2_CID_GAIN = V4L2_CID_GAIN;
static const uint32_t CC_V4L2_CID_FOCUS_AUTO = V4L2_CID_FOCUS_AUTO;
static const uint32_t CC_V4L2_CID_FOCUS_ABSOLUTE = V4L2_CID_FOCUS_ABSOLUTE;
static const uint32_t CC_V4L2_CID_FOCUS_RELATIVE = V4L2_CID_FOCUS_RELATIVE;
static const uint32_t CC_V4L2_CID_HUE_AUTO = V4L2_CID_HUE_AUTO;
static const uint32_t CC_V4L2_CID_HUE = V4L2_CID_HUE;

#endif
