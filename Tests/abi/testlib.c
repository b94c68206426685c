// SPDX-License-Identifier: MIT
/*
 * testlib.c — the C test harness of the ABI tests; see testlib.h.
 */
#define _POSIX_C_SOURCE 200809L

#include "testlib.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int g_passed, g_failed;
static const char *g_test = "(none)";
static int g_test_failed;
static const char *g_self; /* argv[0], re-run for a child scenario */

/* ------------------------------------------------------------------ */
/* Checks                                                              */
/* ------------------------------------------------------------------ */

void check_at(int line, int ok, const char *fmt, ...)
{
    va_list ap;

    if (ok) {
        g_passed++;
        return;
    }
    g_failed++;
    g_test_failed = 1;
    printf("FAIL %s (line %d): ", g_test, line);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

void testlib_summary(void)
{
    printf("%d passed, %d failed\n", g_passed, g_failed);
    fflush(stdout);
}

/* ------------------------------------------------------------------ */
/* Watchdogs                                                           */
/* ------------------------------------------------------------------ */

static void on_watchdog(int sig)
{
    (void)sig;
    printf("FAIL %s: watchdog: the test hung (deadlock?)\n", g_test);
    g_failed++;
    testlib_summary();
    _exit(1);
}

/* In a child scenario: no summary line (the parent prints the only one). */
static void on_child_watchdog(int sig)
{
    static const char msg[] = "     child: hung (deadlock), watchdog fired\n";

    (void)sig;
    if (write(1, msg, sizeof msg - 1) < 0) {
    }
    _exit(3);
}

/* ------------------------------------------------------------------ */
/* Running tests                                                       */
/* ------------------------------------------------------------------ */

static void run_test(const char *name, void (*fn)(void))
{
    int before = g_passed;

    g_test = name;
    g_test_failed = 0;
    fn();
    printf("%s %s (%d checks passed)\n", g_test_failed ? "not ok" : "ok  ", name,
           g_passed - before);
    fflush(stdout);
}

/* Runs the child scenario `t` (this program with --child NAME), up to
 * limit_s seconds; one check: it exited 0. */
static void run_child(const struct testlib_test *t, unsigned watchdog_s, unsigned limit_s)
{
    const char *name = t->name, *what = t->what;
    pid_t pid;
    int status = 0, waited = 0;
    uint64_t end;

    g_test = name;
    g_test_failed = 0;
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        execl(g_self, g_self, "--child", name, (char *)NULL);
        _exit(127);
    }
    if (pid < 0) {
        CHECK(0, "fork: %s", strerror(errno));
        return;
    }
    end = now_ns() + (uint64_t)limit_s * 1000000000ull;
    while (now_ns() < end) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) {
            waited = 1;
            break;
        }
        sleep_ms(10);
    }
    if (!waited) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        CHECK(0, "%s: hung for %u s (deadlock), killed", what, limit_s);
    } else if (WIFSIGNALED(status)) {
        CHECK(0, "%s: the child died of signal %d (%s)", what, WTERMSIG(status),
              strsignal(WTERMSIG(status)));
    } else if (WEXITSTATUS(status) == 3) {
        CHECK(0, "%s: hung (deadlock); the child's watchdog fired after %u s", what, watchdog_s);
    } else {
        CHECK(WEXITSTATUS(status) == 0, "%s: the child exited %d", what, WEXITSTATUS(status));
    }
    printf("%s %s (child process)\n", g_test_failed ? "not ok" : "ok  ", name);
}

/* `<program> --child NAME`: runs one child scenario; exits 0 if it behaved. */
static int child_main(const char *name, const struct testlib_suite *suite)
{
    size_t i;

    signal(SIGALRM, on_child_watchdog);
    alarm(suite->child_watchdog_s);
    if (suite->setup && suite->setup() != NULL)
        return 2;
    for (i = 0; i < suite->n_tests; i++) {
        const struct testlib_test *t = &suite->tests[i];
        if (t->child && strcmp(name, t->name) == 0) {
            int rc;
            g_test = t->name;
            rc = t->child();
            _exit(rc != 0 || g_failed != 0); /* no teardown: a hung thread must not block exit */
        }
    }
    return 2;
}

int testlib_main(int argc, char **argv, const struct testlib_suite *suite)
{
    const char *why;
    size_t i;

    setvbuf(stdout, NULL, _IOLBF, 0);
    g_self = argv[0];
    signal(SIGALRM, on_watchdog);
    if (argc == 3 && strcmp(argv[1], "--child") == 0)
        return child_main(argv[2], suite);

    alarm(suite->watchdog_s);
    printf("libcamcore %s, header %d.%d.%d\n", camcore_version_string(), CAMCORE_VERSION_MAJOR,
           CAMCORE_VERSION_MINOR, CAMCORE_VERSION_PATCH);
    if (suite->setup && (why = suite->setup()) != NULL) {
        printf("FAIL setup: %s\n", why);
        g_failed++;
        testlib_summary();
        return 1;
    }
    for (i = 0; i < suite->n_tests; i++) {
        const struct testlib_test *t = &suite->tests[i];
        if (t->child)
            run_child(t, suite->child_watchdog_s, suite->child_limit_s);
        else
            run_test(t->name, t->fn);
    }
    if (suite->teardown)
        suite->teardown();
    testlib_summary();
    return g_failed == 0 ? 0 : 1;
}

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void sleep_ms(unsigned ms)
{
    struct timespec ts;

    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (long)(ms % 1000) * 1000000L;
    while (nanosleep(&ts, &ts) != 0) {
    }
}

camcore_capture_config config_for(uint32_t fourcc, uint32_t w, uint32_t h, uint32_t fps)
{
    camcore_capture_config cfg;

    camcore_capture_config_init(&cfg);
    cfg.fourcc = fourcc;
    cfg.width = w;
    cfg.height = h;
    cfg.fps.numerator = fps;
    cfg.fps.denominator = fps ? 1 : 0;
    return cfg;
}

const char *testlib_synthetic_manager(camcore_manager **manager, char *id, size_t n)
{
    static char why[256];
    camcore_manager_config cfg;
    camcore_device_list *list = NULL;
    size_t i;

    unsetenv("CAMCORE_SYNTHETIC_CAMERA");
    camcore_manager_config_init(&cfg);
    cfg.include_synthetic = 1;
    id[0] = 0;
    if (camcore_manager_new(&cfg, manager) != CAMCORE_OK ||
        camcore_manager_list_devices(*manager, &list) != CAMCORE_OK) {
        snprintf(why, sizeof why, "no manager or list: %s", camcore_last_error_message());
        return why;
    }
    for (i = 0; i < list->count; i++)
        if (list->devices[i].flags & CAMCORE_DEVICE_SYNTHETIC)
            snprintf(id, n, "%s", list->devices[i].id);
    camcore_device_list_free(list);
    return id[0] ? NULL : "no synthetic camera listed";
}
