// SPDX-License-Identifier: MIT
/*
 * `camcore view`: what its two files share. cmd_view.c is the command
 * (options, the session and its callbacks, the keys' actions) and keeps
 * the state below; view_window.c is the SDL2 window and its loop.
 */
#ifndef CAMCORE_TOOL_VIEW_H
#define CAMCORE_TOOL_VIEW_H

#include "camcore_tool.h"

#include <pthread.h>
#include <stdint.h>

/* ------------------------------------------------------------------ */
/* State shared with the camera's threads                             */
/* ------------------------------------------------------------------ */

#define MESSAGES 4

struct view {
    pthread_mutex_t lock;
    uint32_t wake_event;         /* SDL user event: a frame or a message waits */
    int wake_posted;             /* one wake event is in SDL's queue (or the eventfd) */
    int wake_fd;                 /* --serve: an eventfd instead of SDL events; else -1 */
    const camcore_frame *pending; /* the newest frame, retained; NULL: none */
    uint64_t frames;             /* frames the sink received */
    uint64_t dropped;            /* frames the driver dropped (sequence gaps) */
    uint64_t corrupted;          /* frames flagged CAMCORE_FRAME_CORRUPTED */
    uint64_t last_ts;            /* capture time of the newest frame, ns */
    struct {
        char text[256];
        double until;            /* CLOCK_MONOTONIC seconds */
    } messages[MESSAGES];
    int message_next;
    int messages_changed;
    int quiet;                   /* --quiet: no messages on stderr */
};

/* cmd_view.c: CLOCK_MONOTONIC seconds. */
double now_s(void);
/* cmd_view.c: a message shown in the window for a few seconds and printed
 * on stderr; from any thread. */
void post(struct view *v, const char *fmt, ...);

/* cmd_view.c: the keys' actions (a tool built with SDL2's headers only).
 * completion() makes what on_done() takes for flip, select and change. */
struct completion;
struct completion *completion(struct view *v, const char *what);
void on_done(void *user_data, int status);
/* 'z' (what_size 1) and 'r' (0): the next size or rate (S17 change). */
void change_setting(struct view *v, camcore_manager *m, camcore_session *s, int what_size);
/* 'n': the next listed camera (S18 select). */
void next_camera(struct view *v, camcore_manager *m, camcore_session *s);
/* 's': the frame on screen as a PNG in dir (camcore-view-NNN.png). */
void snapshot(struct view *v, const camcore_frame *shown, const char *dir, unsigned *count);

/* view_window.c (without SDL2's headers: stubs that say so). */
/* Loads SDL2 (and SDL2_ttf) and opens the video subsystem; first, so that
 * without it, or without a display, no camera is opened. Returns an exit code. */
int open_sdl(struct view *v);
void close_sdl(void);
/* Queues the view's wake event (v->wake_event); from any thread. 1 when queued. */
int push_wake_event(uint32_t type);
/* The window on the running session until quit, Escape, closing it or
 * --seconds. Returns an exit code. */
int run_window(struct view *v, struct devices *d, camcore_session *session, int mirror, const char *snapdir,
               double seconds);

#endif
