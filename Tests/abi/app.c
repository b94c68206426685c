// SPDX-License-Identifier: MIT
/*
 * app.c — the smallest program a user writes against an installed
 * libcamcore; Tests/abi/run builds it with nothing but
 *     cc app.c $(pkg-config --cflags --libs camcore)
 * against a fresh `make install PREFIX=...` and runs it.
 * Prints "app ok" and exits 0 when the library works.
 */
#define _POSIX_C_SOURCE 200809L

#include <camcore.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

/* Counts frames; read only after stop, when no callback runs any more. */
static void on_frame(void *user_data, const camcore_frame *frame)
{
    if (frame->width == 640 && frame->height == 480 && frame->fourcc == CAMCORE_FOURCC_YUYV)
        ++*(unsigned long *)user_data;
}

static int fail(const char *what, int status)
{
    fprintf(stderr, "app: %s: %s: %s\n", what, camcore_strerror(status),
            camcore_last_error_message());
    return 1;
}

int main(void)
{
    camcore_manager_config mcfg;
    camcore_manager *manager = NULL;
    camcore_device_list *list = NULL;
    camcore_capturer *cap = NULL;
    camcore_capture_stats stats;
    camcore_frame_callbacks callbacks;
    unsigned long frames = 0;
    struct timespec pause = { 0, 300000000L };
    size_t i;
    int rc;

    printf("libcamcore %s\n", camcore_version_string());
    if (camcore_version() != CAMCORE_VERSION) {
        fprintf(stderr, "app: library version does not match the installed header\n");
        return 1;
    }
    camcore_manager_config_init(&mcfg);
    mcfg.include_synthetic = 1;
    if ((rc = camcore_manager_new(&mcfg, &manager)) != CAMCORE_OK)
        return fail("camcore_manager_new", rc);
    if ((rc = camcore_manager_list_devices(manager, &list)) != CAMCORE_OK)
        return fail("camcore_manager_list_devices", rc);
    for (i = 0; i < list->count; i++)
        if (list->devices[i].flags & CAMCORE_DEVICE_SYNTHETIC)
            break;
    if (i == list->count) {
        fprintf(stderr, "app: no synthetic camera listed\n");
        return 1;
    }
    if ((rc = camcore_capturer_open(manager, list->devices[i].id, &cap)) != CAMCORE_OK)
        return fail("camcore_capturer_open", rc);
    camcore_frame_callbacks_init(&callbacks);
    callbacks.user_data = &frames;
    callbacks.on_frame = on_frame;
    /* NULL config: YUYV 640x480 at 30 fps. */
    if ((rc = camcore_capturer_start(cap, NULL, &callbacks)) != CAMCORE_OK)
        return fail("camcore_capturer_start", rc);
    nanosleep(&pause, NULL);
    if ((rc = camcore_capturer_stop(cap)) != CAMCORE_OK)
        return fail("camcore_capturer_stop", rc);
    memset(&stats, 0, sizeof stats);
    stats.struct_size = sizeof stats;
    if ((rc = camcore_capturer_get_stats(cap, &stats)) != CAMCORE_OK)
        return fail("camcore_capturer_get_stats", rc);
    camcore_capturer_close(cap);
    camcore_device_list_free(list);
    camcore_manager_free(manager);
    if (frames == 0 || stats.frames_delivered != frames) {
        fprintf(stderr, "app: %lu 640x480 YUYV frames in 300 ms, stats say %lu\n", frames,
                (unsigned long)stats.frames_delivered);
        return 1;
    }
    printf("app ok: %lu frames delivered\n", frames);
    return 0;
}
