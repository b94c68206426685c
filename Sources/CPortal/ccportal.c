// SPDX-License-Identifier: MIT
/* The camera portal through libdbus-1 loaded at run time (see ccportal.h).
 * Only the dbus.h types and constants are used at build time; every
 * function comes from the dlopen'ed library. */
#include "ccportal.h"

#include <dbus/dbus.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DESKTOP_NAME "org.freedesktop.portal.Desktop"
#define DESKTOP_PATH "/org/freedesktop/portal/desktop"
#define CAMERA_IFACE "org.freedesktop.portal.Camera"
#define REQUEST_IFACE "org.freedesktop.portal.Request"

#define DBUS_FUNCS(X)                         \
    X(dbus_error_init)                        \
    X(dbus_error_free)                        \
    X(dbus_error_is_set)                      \
    X(dbus_error_has_name)                    \
    X(dbus_threads_init_default)              \
    X(dbus_bus_get_private)                   \
    X(dbus_bus_get_unique_name)               \
    X(dbus_bus_add_match)                     \
    X(dbus_connection_set_exit_on_disconnect) \
    X(dbus_connection_close)                  \
    X(dbus_connection_unref)                  \
    X(dbus_connection_read_write)             \
    X(dbus_connection_pop_message)            \
    X(dbus_connection_send_with_reply_and_block) \
    X(dbus_connection_get_is_connected)       \
    X(dbus_message_new_method_call)           \
    X(dbus_message_unref)                     \
    X(dbus_message_is_signal)                 \
    X(dbus_message_get_path)                  \
    X(dbus_message_iter_init)                 \
    X(dbus_message_iter_init_append)          \
    X(dbus_message_iter_open_container)       \
    X(dbus_message_iter_close_container)      \
    X(dbus_message_iter_append_basic)         \
    X(dbus_message_iter_get_arg_type)         \
    X(dbus_message_iter_get_basic)            \
    X(dbus_message_iter_recurse)              \
    X(dbus_message_iter_next)

static struct {
#define X(name) __typeof__(name) *name;
    DBUS_FUNCS(X)
#undef X
} d;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[256];
static int loaded;

static void load(void)
{
    const char *name = getenv("CAMCORE_DBUS_LIBRARY");
    void *h = dlopen(name && *name ? name : "libdbus-1.so.3", RTLD_NOW | RTLD_LOCAL);

    if (!h) {
        snprintf(load_error, sizeof load_error, "libdbus-1 is not installed (%s)", dlerror());
        return;
    }
#define X(fn)                                                                          \
    if (!(d.fn = (__typeof__(fn) *)dlsym(h, #fn))) {                                   \
        snprintf(load_error, sizeof load_error, "libdbus-1 lacks %s", #fn);            \
        return;                                                                        \
    }
    DBUS_FUNCS(X)
#undef X
    d.dbus_threads_init_default();
    loaded = 1;
}

struct ccportal {
    DBusConnection *conn;
    unsigned token;
    atomic_int cancelled;
};

static void say(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;

    if (!err || !n)
        return;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

ccportal *ccportal_open(char *err, size_t errlen)
{
    DBusError e;
    ccportal *p;

    pthread_once(&load_once, load);
    if (!loaded) {
        say(err, errlen, "%s", load_error);
        return NULL;
    }
    p = calloc(1, sizeof *p);
    if (!p) {
        say(err, errlen, "out of memory");
        return NULL;
    }
    d.dbus_error_init(&e);
    p->conn = d.dbus_bus_get_private(DBUS_BUS_SESSION, &e);
    if (!p->conn) {
        say(err, errlen, "cannot reach the session bus: %s", d.dbus_error_is_set(&e) ? e.message : "unknown error");
        d.dbus_error_free(&e);
        free(p);
        return NULL;
    }
    d.dbus_connection_set_exit_on_disconnect(p->conn, FALSE);
    return p;
}

void ccportal_close(ccportal *p)
{
    if (!p)
        return;
    d.dbus_connection_close(p->conn);
    d.dbus_connection_unref(p->conn);
    free(p);
}

void ccportal_cancel(ccportal *p)
{
    if (p)
        atomic_store(&p->cancelled, 1);
}

/* Appends an a{sv} with at most one string entry (key NULL: empty). */
static void append_options(DBusMessage *m, const char *key, const char *value)
{
    DBusMessageIter it, dict, entry, var;

    d.dbus_message_iter_init_append(m, &it);
    d.dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{sv}", &dict);
    if (key) {
        d.dbus_message_iter_open_container(&dict, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
        d.dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key);
        d.dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, "s", &var);
        d.dbus_message_iter_append_basic(&var, DBUS_TYPE_STRING, &value);
        d.dbus_message_iter_close_container(&entry, &var);
        d.dbus_message_iter_close_container(&dict, &entry);
    }
    d.dbus_message_iter_close_container(&it, &dict);
}

/* Sends m (consumed) and waits for the reply; NULL on error, with
 * *not_allowed set for the portal's NotAllowed error. */
static DBusMessage *call(ccportal *p, DBusMessage *m, int timeout_ms, const char *what, int *not_allowed, char *err,
                         size_t errlen)
{
    DBusError e;
    DBusMessage *r;

    d.dbus_error_init(&e);
    r = d.dbus_connection_send_with_reply_and_block(p->conn, m, timeout_ms, &e);
    d.dbus_message_unref(m);
    if (!r) {
        if (not_allowed)
            *not_allowed = d.dbus_error_has_name(&e, "org.freedesktop.portal.Error.NotAllowed");
        if (d.dbus_error_has_name(&e, DBUS_ERROR_SERVICE_UNKNOWN) || d.dbus_error_has_name(&e, DBUS_ERROR_NAME_HAS_NO_OWNER))
            say(err, errlen, "%s: no desktop portal on the session bus (%s)", what, e.message);
        else if (d.dbus_error_has_name(&e, DBUS_ERROR_UNKNOWN_METHOD) ||
                 d.dbus_error_has_name(&e, DBUS_ERROR_UNKNOWN_INTERFACE) ||
                 d.dbus_error_has_name(&e, DBUS_ERROR_INVALID_ARGS))
            say(err, errlen, "%s: the desktop portal has no camera portal (%s)", what, e.message);
        else
            say(err, errlen, "%s: %s (%s)", what, e.message ? e.message : "no reply", e.name ? e.name : "");
        d.dbus_error_free(&e);
    }
    return r;
}

int ccportal_camera_present(ccportal *p, int timeout_ms, char *err, size_t errlen)
{
    const char *iface = CAMERA_IFACE, *prop = "IsCameraPresent";
    DBusMessage *m, *r;
    DBusMessageIter it, var;
    dbus_bool_t present = 0;

    m = d.dbus_message_new_method_call(DESKTOP_NAME, DESKTOP_PATH, DBUS_INTERFACE_PROPERTIES, "Get");
    if (!m) {
        say(err, errlen, "out of memory");
        return -1;
    }
    d.dbus_message_iter_init_append(m, &it);
    d.dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &iface);
    d.dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &prop);
    r = call(p, m, timeout_ms, "IsCameraPresent", NULL, err, errlen);
    if (!r)
        return -1;
    if (!d.dbus_message_iter_init(r, &it) || d.dbus_message_iter_get_arg_type(&it) != DBUS_TYPE_VARIANT) {
        d.dbus_message_unref(r);
        say(err, errlen, "IsCameraPresent: unexpected reply");
        return -1;
    }
    d.dbus_message_iter_recurse(&it, &var);
    if (d.dbus_message_iter_get_arg_type(&var) == DBUS_TYPE_BOOLEAN)
        d.dbus_message_iter_get_basic(&var, &present);
    d.dbus_message_unref(r);
    return present ? 1 : 0;
}

/* The Request object path the portal will use for this token. */
static void request_path(ccportal *p, const char *token, char *out, size_t n)
{
    const char *u = d.dbus_bus_get_unique_name(p->conn);
    char sender[128];
    size_t i, k = 0;

    for (i = (u && u[0] == ':') ? 1 : 0; u && u[i] && k + 1 < sizeof sender; i++)
        sender[k++] = u[i] == '.' ? '_' : u[i];
    sender[k] = 0;
    snprintf(out, n, DESKTOP_PATH "/request/%s/%s", sender, token);
}

static void add_match(ccportal *p, const char *path)
{
    char rule[512];
    DBusError e;

    snprintf(rule, sizeof rule, "type='signal',interface='" REQUEST_IFACE "',member='Response',path='%s'", path);
    d.dbus_error_init(&e);
    d.dbus_bus_add_match(p->conn, rule, &e);
    d.dbus_error_free(&e);
}

int ccportal_access_camera(ccportal *p, int timeout_ms, char *err, size_t errlen)
{
    char token[64], expected[256], handle[256];
    const char *returned = NULL;
    DBusMessage *m, *r;
    DBusMessageIter it;
    long long deadline;
    int not_allowed = 0;

    atomic_store(&p->cancelled, 0);
    snprintf(token, sizeof token, "camcore%d_%u", (int)getpid(), ++p->token);
    request_path(p, token, expected, sizeof expected);
    add_match(p, expected); /* before the call: the Response may come at once */
    m = d.dbus_message_new_method_call(DESKTOP_NAME, DESKTOP_PATH, CAMERA_IFACE, "AccessCamera");
    if (!m) {
        say(err, errlen, "out of memory");
        return -1;
    }
    append_options(m, "handle_token", token);
    r = call(p, m, timeout_ms < 25000 ? 25000 : timeout_ms, "AccessCamera", &not_allowed, err, errlen);
    if (!r)
        return not_allowed ? 2 : -1;
    snprintf(handle, sizeof handle, "%s", expected);
    if (d.dbus_message_iter_init(r, &it) && d.dbus_message_iter_get_arg_type(&it) == DBUS_TYPE_OBJECT_PATH) {
        d.dbus_message_iter_get_basic(&it, &returned);
        if (returned && strcmp(returned, expected) != 0) { /* an older portal picks its own path */
            snprintf(handle, sizeof handle, "%s", returned);
            add_match(p, handle);
        }
    }
    d.dbus_message_unref(r);

    deadline = now_ms() + (timeout_ms < 0 ? 0 : timeout_ms);
    for (;;) {
        DBusMessage *msg;
        long long left;

        while ((msg = d.dbus_connection_pop_message(p->conn)) != NULL) {
            if (d.dbus_message_is_signal(msg, REQUEST_IFACE, "Response") && d.dbus_message_get_path(msg) &&
                strcmp(d.dbus_message_get_path(msg), handle) == 0) {
                dbus_uint32_t response = 2;
                if (d.dbus_message_iter_init(msg, &it) && d.dbus_message_iter_get_arg_type(&it) == DBUS_TYPE_UINT32)
                    d.dbus_message_iter_get_basic(&it, &response);
                d.dbus_message_unref(msg);
                if (response == 1)
                    say(err, errlen, "the user did not allow camera access (portal response 1)");
                else if (response != 0)
                    say(err, errlen, "camera access refused by the portal (response %u)", (unsigned)response);
                return response > 2 ? 2 : (int)response;
            }
            d.dbus_message_unref(msg);
        }
        if (atomic_load(&p->cancelled)) {
            say(err, errlen, "the camera access request was cancelled");
            return -3;
        }
        left = deadline - now_ms();
        if (left <= 0) {
            say(err, errlen, "no answer to the camera access request within %d ms", timeout_ms);
            return -2;
        }
        if (!d.dbus_connection_read_write(p->conn, (int)(left < 100 ? left : 100))) {
            say(err, errlen, "the session bus went away");
            return -1;
        }
    }
}

int ccportal_open_pipewire_remote(ccportal *p, int timeout_ms, int *not_allowed, char *err, size_t errlen)
{
    DBusMessage *m, *r;
    DBusMessageIter it;
    int fd = -1;

    if (not_allowed)
        *not_allowed = 0;
    m = d.dbus_message_new_method_call(DESKTOP_NAME, DESKTOP_PATH, CAMERA_IFACE, "OpenPipeWireRemote");
    if (!m) {
        say(err, errlen, "out of memory");
        return -1;
    }
    append_options(m, NULL, NULL);
    r = call(p, m, timeout_ms, "OpenPipeWireRemote", not_allowed, err, errlen);
    if (!r)
        return -1;
    if (d.dbus_message_iter_init(r, &it) && d.dbus_message_iter_get_arg_type(&it) == DBUS_TYPE_UNIX_FD)
        d.dbus_message_iter_get_basic(&it, &fd); /* a new fd, ours */
    d.dbus_message_unref(r);
    if (fd < 0)
        say(err, errlen, "OpenPipeWireRemote: the reply carried no fd");
    return fd;
}
