// SPDX-License-Identifier: MIT
/*
 * test_pull_race.c — pull readers racing stop/start (SPEC S31, S36),
 * through camcore.h only, on the synthetic camera.
 *
 * One thread loops camcore_capturer_stop + camcore_capturer_start_pull on
 * one capturer, stopping within a few frames of each start (where a
 * reader is most likely inside the frame path), while readers of both
 * kinds wait on it: camcore_capturer_next_frame loops and
 * camcore_capturer_acquire_frame + camcore_frame_release loops. Every one
 * of these calls is documented "safe from any thread".
 *
 * What it asserts (each scenario runs in a child process, so a crash is one
 * failed check that names the scenario, not the end of the run):
 *   S31  the process survives thousands of stop/start cycles with 1 to 3
 *        readers of each kind (before the fix: SIGSEGV/SIGILL in
 *        swift::RefCounts::incrementSlow <- Frame.pool <- FramePuller.acquire
 *        about once in four 5-second runs)
 *   S36  readers see only OK, TIMEOUT or STATE (stopped, not started, the
 *        held limit) — never another status; the frames they get are YUYV
 *        64x48 with plane 0 readable to its end; every reader got frames
 *   S36  after the storm the capturer is still usable: a last start_pull
 *        gives frames with rising sequence numbers
 *   S31  stop, and close, racing start_pull on another thread never hang
 *        (before: the capture thread of a start that had not yet recorded
 *        its pull queue was joined without being told to end)
 *   S36  get_frame_fd racing close either refuses (closed) or hands out an
 *        fd that is open (before: the fd could be closed as returned)
 *
 * The last line is "N passed, M failed"; exit 0 only if M is 0.
 *
 * Build:  cc -std=c99 test_pull_race.c testlib.c $(pkg-config --cflags --libs camcore) -pthread
 */
#define _POSIX_C_SOURCE 200809L

#include "testlib.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static camcore_manager *g_manager;
static char g_id[64];

#define WIDTH 64
#define HEIGHT 48
#define YUYV CAMCORE_FOURCC('Y', 'U', 'Y', 'V')

struct race {
    camcore_capturer *capturer;
    volatile int done; /* set by the stopper when its cycles are over */
    pthread_mutex_t lock;
    unsigned long frames[8];  /* per reader */
    int bad_status;           /* first unexpected status, 0 if none */
    char bad_message[256];
    int bad_frame;            /* a frame of the wrong shape was seen */
};

struct reader {
    struct race *race;
    int index;
    int use_next_frame;
};

static int is_done(struct race *r)
{
    int d;
    pthread_mutex_lock(&r->lock);
    d = r->done;
    pthread_mutex_unlock(&r->lock);
    return d;
}

static void note_status(struct race *r, int status)
{
    if (status == CAMCORE_OK || status == CAMCORE_E_TIMEOUT || status == CAMCORE_E_STATE)
        return;
    pthread_mutex_lock(&r->lock);
    if (r->bad_status == 0) {
        r->bad_status = status;
        snprintf(r->bad_message, sizeof r->bad_message, "%s", camcore_last_error_message());
    }
    pthread_mutex_unlock(&r->lock);
}

/* Reads the frame to its end (ASan sees a read of freed memory) and checks its shape. */
static void use_frame(struct reader *rd, const camcore_frame *f)
{
    const unsigned char *p = (const unsigned char *)f->planes[0].data;
    volatile unsigned sum = 0;
    uint32_t i;

    if (f->fourcc != YUYV || f->width != WIDTH || f->height != HEIGHT || !p ||
        f->planes[0].length < WIDTH * 2 * HEIGHT) {
        pthread_mutex_lock(&rd->race->lock);
        rd->race->bad_frame = 1;
        pthread_mutex_unlock(&rd->race->lock);
        return;
    }
    for (i = 0; i < f->planes[0].length; i += 64)
        sum += p[i];
    sum += p[f->planes[0].length - 1];
    (void)sum;
    rd->race->frames[rd->index]++;
}

static void *reader_main(void *arg)
{
    struct reader *rd = arg;
    struct race *r = rd->race;
    const camcore_frame *f = NULL;

    while (!is_done(r)) {
        int st;
        if (rd->use_next_frame) {
            st = camcore_capturer_next_frame(r->capturer, 20, &f);
            note_status(r, st);
            if (st == CAMCORE_OK && f)
                use_frame(rd, f);
        } else {
            st = camcore_capturer_acquire_frame(r->capturer, 20, &f);
            note_status(r, st);
            if (st == CAMCORE_OK && f) {
                use_frame(rd, f);
                camcore_frame_release(f);
                f = NULL;
            }
        }
        if (st == CAMCORE_E_STATE)
            sleep_ms(0); /* stopped: the stopper starts it again soon */
    }
    camcore_frame_release(f);
    return NULL;
}

/* Stop/start cycles with readers of each kind; 0 when everything behaved. */
static int storm(int readers_per_kind, unsigned cycles, unsigned max_seconds)
{
    struct race r;
    struct reader rd[8];
    pthread_t th[8];
    camcore_capture_config cfg = config_for(YUYV, WIDTH, HEIGHT, 120);
    int n = 2 * readers_per_kind, i, failed = 0;
    unsigned done_cycles = 0, started = 0;
    uint64_t end = now_ns() + (uint64_t)max_seconds * 1000000000ull;

    memset(&r, 0, sizeof r);
    pthread_mutex_init(&r.lock, NULL);
    if (camcore_capturer_open(g_manager, g_id, &r.capturer) != CAMCORE_OK) {
        printf("open: %s\n", camcore_last_error_message());
        return 1;
    }
    for (i = 0; i < n; i++) {
        rd[i].race = &r;
        rd[i].index = i;
        rd[i].use_next_frame = i % 2;
        pthread_create(&th[i], NULL, reader_main, &rd[i]);
    }
    srand(12345);
    while (done_cycles < cycles && now_ns() < end) {
        int st = camcore_capturer_start_pull(r.capturer, &cfg, 1 + (unsigned)rand() % 3);
        if (st == CAMCORE_OK)
            started++;
        else
            printf("cycle %u: start_pull %d (%s)\n", done_cycles, st, camcore_last_error_message());
        /* Stop within a few frames of the start: 0 to ~2 frame periods at 120 fps. */
        if (rand() % 4)
            sleep_ms((unsigned)rand() % 17);
        st = camcore_capturer_stop(r.capturer);
        if (st != CAMCORE_OK)
            printf("cycle %u: stop %d (%s)\n", done_cycles, st, camcore_last_error_message());
        done_cycles++;
    }
    pthread_mutex_lock(&r.lock);
    r.done = 1;
    pthread_mutex_unlock(&r.lock);
    for (i = 0; i < n; i++)
        pthread_join(th[i], NULL);

    printf("%d readers: %u cycles (%u started); frames per reader:", n, done_cycles, started);
    for (i = 0; i < n; i++)
        printf(" %lu", r.frames[i]);
    printf("\n");
    if (started != done_cycles) {
        printf("FAIL: %u of %u starts failed\n", done_cycles - started, done_cycles);
        failed = 1;
    }
    if (r.bad_status) {
        printf("FAIL: a reader got status %d (%s): %s\n", r.bad_status, camcore_strerror(r.bad_status),
               r.bad_message);
        failed = 1;
    }
    if (r.bad_frame) {
        printf("FAIL: a reader got a frame that is not YUYV %dx%d with a full plane\n", WIDTH, HEIGHT);
        failed = 1;
    }
    for (i = 0; i < n; i++)
        if (r.frames[i] == 0) {
            printf("FAIL: reader %d (%s) got no frame\n", i, rd[i].use_next_frame ? "next_frame" : "acquire");
            failed = 1;
        }
    if (done_cycles < cycles / 4) {
        printf("FAIL: only %u of %u cycles in %u s\n", done_cycles, cycles, max_seconds);
        failed = 1;
    }

    /* Still usable: one more start gives rising frames. */
    if (camcore_capturer_start_pull(r.capturer, &cfg, 2) == CAMCORE_OK) {
        const camcore_frame *f = NULL;
        uint32_t last = 0;
        for (i = 0; i < 5; i++) {
            int st = camcore_capturer_next_frame(r.capturer, 2000, &f);
            if (st != CAMCORE_OK || (i > 0 && f->sequence <= last)) {
                printf("FAIL: after the storm, frame %d: status %d seq %u after %u\n", i, st, f ? f->sequence : 0,
                       last);
                failed = 1;
                break;
            }
            last = f->sequence;
        }
        camcore_frame_release(f);
    } else {
        printf("FAIL: start_pull after the storm: %s\n", camcore_last_error_message());
        failed = 1;
    }
    camcore_capturer_close(r.capturer);
    pthread_mutex_destroy(&r.lock);
    return failed;
}

static int child_one_reader_each(void) { return storm(1, 1500, 12); }

/* stop (or close) racing start_pull on another thread: before the fix the
 * pull queue was recorded after start_pull let go of the capturer's lock,
 * so a stop in that window joined a capture thread nobody told to end. */
struct starter {
    camcore_capturer *c;
    volatile int done;
    unsigned starts;
};

static void *start_loop(void *arg)
{
    struct starter *s = arg;
    camcore_capture_config cfg = config_for(YUYV, WIDTH, HEIGHT, 120);
    while (!s->done) {
        if (camcore_capturer_start_pull(s->c, &cfg, 2) == CAMCORE_OK)
            s->starts++;
    }
    return NULL;
}

static int child_stop_races_start_pull(void)
{
    struct starter s;
    pthread_t th;
    unsigned i;
    int failed = 0;

    memset(&s, 0, sizeof s);
    if (camcore_capturer_open(g_manager, g_id, &s.c) != CAMCORE_OK)
        return 1;
    pthread_create(&th, NULL, start_loop, &s);
    /* At least 2000 stops and (a slow ASan build starts slowly) 200 starts,
     * for at most 25 s. */
    {
        uint64_t end = now_ns() + 25000000000ull;
        for (i = 0; (i < 2000 || s.starts < 200) && now_ns() < end; i++) {
            int st = camcore_capturer_stop(s.c);
            if (st != CAMCORE_OK) {
                printf("stop %u: %d %s\n", i, st, camcore_last_error_message());
                failed = 1;
            }
        }
    }
    s.done = 1;
    pthread_join(th, NULL);
    camcore_capturer_close(s.c);
    printf("%u stops against %u starts\n", i, s.starts);
    return failed || s.starts == 0;
}

static void *start_once(void *arg)
{
    struct starter *s = arg;
    camcore_capture_config cfg = config_for(YUYV, WIDTH, HEIGHT, 120);
    if (camcore_capturer_start_pull(s->c, &cfg, 2) == CAMCORE_OK)
        s->starts++;
    return NULL;
}

static int child_close_races_start_pull(void)
{
    unsigned i, starts = 0;

    for (i = 0; i < 300; i++) {
        struct starter s;
        pthread_t th;
        memset(&s, 0, sizeof s);
        if (camcore_capturer_open(g_manager, g_id, &s.c) != CAMCORE_OK)
            return 1;
        pthread_create(&th, NULL, start_once, &s);
        if (i % 3)
            sleep_ms(i % 2);
        camcore_capturer_close(s.c);
        pthread_join(th, NULL);
        starts += s.starts;
    }
    printf("300 closes racing start_pull (%u starts got in first)\n", starts);
    return 0;
}

/* get_frame_fd racing close: an fd handed out is open when it is handed out
 * (before: the close could forget the handle between its check and the
 * hand-out, and the fd was closed as it was returned). */
struct fdgrab {
    camcore_capturer *c;
    int32_t fd;
    int status;
    int open_then;
};

static void *grab_fd(void *arg)
{
    struct fdgrab *g = arg;
    g->status = camcore_capturer_get_frame_fd(g->c, &g->fd);
    g->open_then = g->status == CAMCORE_OK && (fcntl(g->fd, F_GETFD) != -1);
    return NULL;
}

static int child_get_frame_fd_races_close(void)
{
    camcore_capture_config cfg = config_for(YUYV, WIDTH, HEIGHT, 120);
    unsigned i, handed = 0, refused = 0, bad = 0;

    for (i = 0; i < 1500; i++) {
        struct fdgrab g;
        pthread_t th;
        const camcore_frame *f = NULL;
        memset(&g, 0, sizeof g);
        if (camcore_capturer_open(g_manager, g_id, &g.c) != CAMCORE_OK ||
            camcore_capturer_start_pull(g.c, &cfg, 2) != CAMCORE_OK)
            return 1;
        pthread_create(&th, NULL, grab_fd, &g);
        camcore_capturer_close(g.c);
        pthread_join(th, NULL);
        if (g.status == CAMCORE_OK) {
            handed++;
            if (!g.open_then)
                bad++;
            /* the next call learns of the close and lets the fd go */
            camcore_capturer_acquire_frame(g.c, 0, &f);
        } else if (g.status == CAMCORE_E_STATE || g.status == CAMCORE_E_INVALID_ARG) {
            refused++;
        } else {
            printf("get_frame_fd: %d\n", g.status);
            bad++;
        }
    }
    printf("1500 get_frame_fd racing close: %u handed out, %u refused, %u bad\n", handed, refused, bad);
    return bad != 0;
}
static int child_three_readers_each(void) { return storm(3, 1500, 12); }

static const char *setup(void)
{
    return testlib_synthetic_manager(&g_manager, g_id, sizeof g_id);
}

static void teardown(void)
{
    camcore_manager_free(g_manager);
}

static const struct testlib_test tests[] = {
    TESTLIB_CHILD("test_S36_readers_race_stop_start_1_each", child_one_reader_each,
                  "a next_frame and an acquire reader race 1500 stop/start cycles, no crash, only OK/TIMEOUT/STATE"),
    TESTLIB_CHILD("test_S36_readers_race_stop_start_3_each", child_three_readers_each,
                  "3 next_frame and 3 acquire readers race 1500 stop/start cycles, no crash, only OK/TIMEOUT/STATE"),
    TESTLIB_CHILD("test_S31_stop_races_start_pull", child_stop_races_start_pull,
                  "2000 stops racing start_pull on another thread: no hang"),
    TESTLIB_CHILD("test_S31_close_races_start_pull", child_close_races_start_pull,
                  "300 closes racing start_pull on another thread: no hang"),
    TESTLIB_CHILD("test_S36_get_frame_fd_races_close", child_get_frame_fd_races_close,
                  "an fd get_frame_fd hands out while a close runs is open when handed out"),
};

static const struct testlib_suite suite = {
    tests, TESTLIB_COUNT(tests), 200, setup, teardown, 50, 55,
};

int main(int argc, char **argv)
{
    return testlib_main(argc, argv, &suite);
}
