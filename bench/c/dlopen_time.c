// SPDX-License-Identifier: MIT
/*
 * dlopen_time — the cost of loading a shared library into a fresh process:
 * the time dlopen(RTLD_NOW) takes, the shared objects it brought in (and
 * their bytes on disk), and the resident memory it added.
 *
 *   dlopen_time /path/to/libcamcore.so.0
 *
 * Run it many times (one process each) and take the median. Prints one
 * JSON line.
 */
#include "bench_util.h"

#include <dlfcn.h>
#include <sys/stat.h>

#define MAX_SO 256

/* The distinct *.so* files mapped now. */
static int mapped(char paths[][512], int max)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return 0;
    char line[1024];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        char *p = strchr(line, '/');
        if (!p || !strstr(p, ".so")) continue;
        p[strcspn(p, "\n")] = 0;
        int seen = 0;
        for (int i = 0; i < n && !seen; i++) seen = !strcmp(paths[i], p);
        if (!seen && n < max) snprintf(paths[n++], 512, "%s", p);
    }
    fclose(f);
    return n;
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: dlopen_time LIBRARY\n"); return 2; }
    static char before[MAX_SO][512], after[MAX_SO][512];
    int nb = mapped(before, MAX_SO);
    long rss0 = bench_status_kb("VmRSS");
    uint64_t t0 = bench_now_ns();
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    uint64_t t1 = bench_now_ns();
    if (!h) { fprintf(stderr, "dlopen_time: %s\n", dlerror()); return 1; }
    long rss1 = bench_status_kb("VmRSS");
    int na = mapped(after, MAX_SO);
    long long bytes = 0;
    int added = 0;
    for (int i = 0; i < na; i++) {
        int old = 0;
        for (int k = 0; k < nb && !old; k++) old = !strcmp(after[i], before[k]);
        if (old) continue;
        struct stat st;
        if (stat(after[i], &st) == 0) bytes += st.st_size;
        added++;
    }
    struct stat own;
    long long own_bytes = stat(argv[1], &own) == 0 ? (long long)own.st_size : -1;
    bench_json j;
    bench_json_begin(&j);
    bench_json_addf(&j, "prog", "\"dlopen\"");
    bench_json_addf(&j, "dlopen_ms", "%.3f", (double)(t1 - t0) / 1e6);
    bench_json_addf(&j, "own_bytes", "%lld", own_bytes);
    bench_json_addf(&j, "so_added", "%d", added);
    bench_json_addf(&j, "so_added_bytes", "%lld", bytes);
    bench_json_addf(&j, "rss_added_kb", "%ld", rss1 - rss0);
    bench_json_end(&j);
    return 0;
}
