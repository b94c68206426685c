// SPDX-License-Identifier: MIT
/*
 * camcore monitor: the cameras present, then each one connected or
 * disconnected, until Ctrl-C.
 */
#include "camcore_tool.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void sleep_ms(unsigned ms)
{
    struct timespec ts;

    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (long)(ms % 1000) * 1000000L;
    nanosleep(&ts, NULL); /* a signal ends it early: callers check g_interrupted */
}

static void monitor_event(const char *event, const camcore_device_info *dev)
{
    struct timespec ts;
    struct tm tm;
    char when[32];

    clock_gettime(CLOCK_REALTIME, &ts);
    localtime_r(&ts.tv_sec, &tm);
    strftime(when, sizeof when, "%H:%M:%S", &tm);
    if (g_json) {
        int first = 1;
        char iso[40];
        strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(iso + strlen(iso), sizeof iso - strlen(iso), ".%03ld", ts.tv_nsec / 1000000L);
        putchar('{');
        json_kv_str(&first, "event", event);
        json_kv_str(&first, "time", iso);
        printf(", \"device\": ");
        json_device(dev);
        printf("}\n");
    } else {
        printf("%s.%03ld  %-12s %s  %s  %s\n", when, ts.tv_nsec / 1000000L, event, dev->node,
               dev->name, dev->id);
    }
    fflush(stdout);
}

static int in_list(const camcore_device_list *l, const char *id)
{
    size_t i;

    for (i = 0; l && i < l->count; i++)
        if (strcmp(l->devices[i].id, id) == 0)
            return 1;
    return 0;
}

/* The ids reported as present, guarded by g_monitor_lock: hot-plug events
 * come on camcore's hot-plug thread while main prints the initial list. */
static pthread_mutex_t g_monitor_lock = PTHREAD_MUTEX_INITIALIZER;
static char **g_known;
static size_t g_known_count;

static int known_index(const char *id)
{
    size_t i;

    for (i = 0; i < g_known_count; i++)
        if (strcmp(g_known[i], id) == 0)
            return (int)i;
    return -1;
}

static void known_add(const char *id)
{
    char **grown = realloc(g_known, (g_known_count + 1) * sizeof *g_known);
    char *copy = strdup(id);

    if (grown == NULL || copy == NULL) {
        free(copy);
        if (grown)
            g_known = grown;
        return;
    }
    g_known = grown;
    g_known[g_known_count++] = copy;
}

static void known_remove(int i)
{
    free(g_known[i]);
    g_known[i] = g_known[--g_known_count];
}

static void on_hotplug_connected(void *user_data, const camcore_device_info *device)
{
    (void)user_data;
    pthread_mutex_lock(&g_monitor_lock);
    if (known_index(device->id) < 0) {
        known_add(device->id);
        monitor_event("connected", device);
    }
    pthread_mutex_unlock(&g_monitor_lock);
}

static void on_hotplug_disconnected(void *user_data, const camcore_device_info *device)
{
    int i;

    (void)user_data;
    pthread_mutex_lock(&g_monitor_lock);
    if ((i = known_index(device->id)) >= 0) {
        known_remove(i);
        monitor_event("disconnected", device);
    }
    pthread_mutex_unlock(&g_monitor_lock);
}

/* The camera permission changed (S35: the camera portal's answer). */
static void on_hotplug_permission(void *user_data, int32_t state, const char *detail)
{
    static const char *const names[] = { "unknown", "pending", "granted", "denied" };
    const char *name = state >= 0 && state < 4 ? names[state] : "?";
    struct timespec ts;
    struct tm tm;
    char when[32];

    (void)user_data;
    pthread_mutex_lock(&g_monitor_lock);
    clock_gettime(CLOCK_REALTIME, &ts);
    localtime_r(&ts.tv_sec, &tm);
    strftime(when, sizeof when, "%H:%M:%S", &tm);
    if (g_json) {
        int first = 1;
        putchar('{');
        json_kv_str(&first, "event", "permission");
        json_kv_str(&first, "state", name);
        json_kv_str(&first, "detail", detail);
        printf("}\n");
    } else {
        printf("%s.%03ld  %-12s %s  (%s)\n", when, ts.tv_nsec / 1000000L, "permission", name, detail);
    }
    fflush(stdout);
    pthread_mutex_unlock(&g_monitor_lock);
}

/* Without udev's monitor: compare the device list every 500 ms. */
static void monitor_by_polling(camcore_manager *m, camcore_device_list *prev)
{
    camcore_device_list *cur = NULL;
    size_t i;

    while (!g_interrupted) {
        sleep_ms(500);
        if (g_interrupted || camcore_manager_list_devices(m, &cur) != CAMCORE_OK)
            continue;
        for (i = 0; i < prev->count; i++)
            if (!in_list(cur, prev->devices[i].id))
                monitor_event("disconnected", &prev->devices[i]);
        for (i = 0; i < cur->count; i++)
            if (!in_list(prev, cur->devices[i].id))
                monitor_event("connected", &cur->devices[i]);
        camcore_device_list_free(prev);
        prev = cur;
        cur = NULL;
    }
    camcore_device_list_free(prev);
}

const char monitor_usage[] =
    "usage: " PROGRAM " monitor [--json]\n"
    "\n"
    "Prints the cameras present, then each camera connected or disconnected\n"
    "(udev hot-plug events; polling every 500 ms where udev has no monitor),\n"
    "and camera-portal permission changes, until Ctrl-C. Lines: time, event\n"
    "(present, connected, disconnected), type, name, id.\n"
    "\n"
    "Options:\n"
    "  --json        one JSON object per event and line\n"
    "  --backend B, --portal P   as for every command (" PROGRAM " --help)\n"
    "  -h, --help    this help\n";

int cmd_monitor(int argc, char **argv)
{
    static const struct option options[] = {COMMON_OPTIONS, {0, 0, 0, 0}};
    camcore_manager *m = NULL;
    camcore_device_list *list = NULL;
    camcore_hotplug_callbacks cb;
    size_t i;
    int st, hotplug, c, rc;

    while ((c = getopt_long(argc, argv, COMMON_SHORT, options, NULL)) != -1)
        if ((rc = common_option("monitor", monitor_usage, c, argv)) != OPTION_NEXT)
            return rc == OPTION_MINE ? EXIT_USAGE : rc;
    if (optind < argc)
        return usage_error("monitor: unexpected argument '%s'", argv[optind]);
    catch_signals();
    camcore_manager_config mcfg;
    camcore_manager_config_init(&mcfg);
    mcfg.backend = g_backend;
    mcfg.backend_names = g_backend_names;
    mcfg.portal = g_portal;
    st = camcore_manager_new(&mcfg, &m); /* real cameras (the synthetic one only if the env asks) */
    if (st != CAMCORE_OK)
        return fail(st, "creating a manager", NULL);
    /* Events first (held back by the lock), then the list: nothing falls between. */
    memset(&cb, 0, sizeof cb);
    cb.struct_size = sizeof cb;
    cb.on_connected = on_hotplug_connected;
    cb.on_disconnected = on_hotplug_disconnected;
    cb.on_permission = on_hotplug_permission;
    pthread_mutex_lock(&g_monitor_lock);
    hotplug = camcore_manager_set_hotplug_callbacks(m, &cb) == CAMCORE_OK;
    st = camcore_manager_list_devices(m, &list);
    if (st != CAMCORE_OK) {
        pthread_mutex_unlock(&g_monitor_lock);
        camcore_manager_free(m);
        return fail(st, "listing the cameras", NULL);
    }
    for (i = 0; i < list->count; i++) {
        known_add(list->devices[i].id);
        monitor_event("present", &list->devices[i]);
    }
    if (!g_json) {
        fprintf(stderr, "Watching for cameras (%s; Ctrl-C to stop)...\n",
                hotplug ? "udev hot-plug events" : "polling every 500 ms");
        if (list->count == 0)
            fprintf(stderr, "No camera present.\n");
    }
    pthread_mutex_unlock(&g_monitor_lock);
    if (hotplug) {
        camcore_device_list_free(list);
        while (!g_interrupted)
            sleep_ms(200);
        camcore_manager_set_hotplug_callbacks(m, NULL);
    } else {
        monitor_by_polling(m, list);
    }
    camcore_manager_free(m);
    while (g_known_count)
        known_remove(0);
    free(g_known);
    return EXIT_OK;
}
