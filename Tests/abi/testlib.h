// SPDX-License-Identifier: MIT
/*
 * testlib.h — the one C test harness of the ABI tests (Tests/abi/test_*.c).
 *
 * A test file holds its tests and one table; the harness counts the checks,
 * runs the table, guards the run with a watchdog and prints the summary:
 *
 *     static const struct testlib_test tests[] = {
 *         TESTLIB_TEST(test_S27_struct_layout),
 *         ...
 *     };
 *     static const struct testlib_suite suite = {
 *         tests, TESTLIB_COUNT(tests), 60, setup, teardown, 0, 0,
 *     };
 *     int main(int argc, char **argv) { return testlib_main(argc, argv, &suite); }
 *
 * Output: one "FAIL <test> (line N): ..." line per failed check, one
 * "ok   <test> (K checks passed)" or "not ok <test> ..." line per test, and
 * last "N passed, M failed" (Tests/abi/run and Tests/run-all read it). The
 * exit status is 0 only if M is 0.
 *
 * A scenario that might hang (TESTLIB_CHILD) runs in a child process — this
 * program re-run as `<program> --child NAME` — under a time limit, so a
 * deadlock is one failed check and the other tests still run.
 *
 * Model: libusb's tests/libusb_testlib.h + testlib.c. Build each test with
 * testlib.c:
 *
 *     cc -std=c99 test_x.c testlib.c $(pkg-config --cflags --libs camcore) -pthread
 *
 * A test file defines its feature-test macros (_POSIX_C_SOURCE ...) before
 * it includes any header, this one included.
 */
#ifndef CAMCORE_TESTLIB_H
#define CAMCORE_TESTLIB_H

#include <camcore.h>

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------ */
/* Checks                                                              */
/* ------------------------------------------------------------------ */

/* Counts one check; when ok is 0, prints "FAIL <test> (line N): <message>". */
void check_at(int line, int ok, const char *fmt, ...);

/* CHECK(condition, "printf format", args...): the message says what was
 * expected and what happened. */
#define CHECK(cond, ...) check_at(__LINE__, (cond) ? 1 : 0, __VA_ARGS__)

/* CHECK_STATUS(call, CAMCORE_..., "what"): the status equals the expected
 * one; on failure it prints both, with camcore_last_error_message(). */
#define CHECK_STATUS(got, want, what)                                                        \
    do {                                                                                     \
        int got_ = (got);                                                                    \
        CHECK(got_ == (want), "%s: expected %s, got %d (%s) [%s]", what, #want, got_,        \
              camcore_strerror(got_), camcore_last_error_message());                         \
    } while (0)

/* Prints the "N passed, M failed" line (for a test that has to end the run
 * early; testlib_main prints it at the end). */
void testlib_summary(void);

/* ------------------------------------------------------------------ */
/* The table and the run                                               */
/* ------------------------------------------------------------------ */

struct testlib_test {
    const char *name;
    /* A test in this process, or NULL for a child scenario. */
    void (*fn)(void);
    /* A child scenario: runs in `<program> --child <name>`; returns 0 when
     * it behaved. NULL for a test in this process. */
    int (*child)(void);
    /* For a child scenario: what it checks, in its failure messages. */
    const char *what;
};

#define TESTLIB_TEST(fn) { #fn, fn, NULL, NULL }
#define TESTLIB_CHILD(name, fn, what) { name, NULL, fn, what }
#define TESTLIB_COUNT(array) (sizeof(array) / sizeof((array)[0]))

struct testlib_suite {
    const struct testlib_test *tests; /* run in this order */
    size_t n_tests;
    /* The watchdog: after this many seconds the run ends with a FAIL line,
     * the summary and exit 1. */
    unsigned watchdog_s;
    /* Before the tests (also in a child): NULL when ready, else why not
     * (printed as "FAIL setup: <why>"; the run ends with 1 failure). May be
     * NULL. */
    const char *(*setup)(void);
    /* After the tests (not in a child). May be NULL. */
    void (*teardown)(void);
    /* Child scenarios: the child's own watchdog (it exits 3, no summary),
     * and the time after which the parent kills it. */
    unsigned child_watchdog_s;
    unsigned child_limit_s;
};

/* Runs the suite: `<program>` runs every test in order and prints the
 * summary; `<program> --child NAME` runs the child scenario NAME alone and
 * exits 0 if it behaved. Returns the exit status. */
int testlib_main(int argc, char **argv, const struct testlib_suite *suite);

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

/* CLOCK_MONOTONIC in nanoseconds (the clock of camcore_frame timestamps). */
uint64_t now_ns(void);

/* Sleeps ms milliseconds, resuming after a signal. */
void sleep_ms(unsigned ms);

/* A capture config: fourcc at w x h and fps frames per second (fps 0:
 * the fraction 0/0, "any rate"). */
camcore_capture_config config_for(uint32_t fourcc, uint32_t w, uint32_t h, uint32_t fps);

/* A manager listing the synthetic camera (CAMCORE_SYNTHETIC_CAMERA unset,
 * include_synthetic 1) in *manager, and that camera's id in id (n bytes).
 * Returns NULL, or why not (static text): a suite's setup. */
const char *testlib_synthetic_manager(camcore_manager **manager, char *id, size_t n);

#endif
