// SPDX-License-Identifier: MIT
/*
 * conv_routes — finds the honest reference of a conversion row: every libyuv
 * route the benchmark knows for a pair (bench_util.h bench_routes) run on
 * the very frame camcore converted, each checked byte for byte against
 * camcore's output and costed.
 *
 *   conv_routes --fourcc YUYV|NV12 --output I420|RGB24 --size 640x480
 *               [--callgrind] [--reps 5] [--time-rounds 15]
 *
 * camcore's side: the synthetic camera draws frame k the same way every time
 * (its pattern is a function of the sequence number), so the native frame
 * with sequence k from one capture and the converted frame with sequence k
 * from a second capture (output_fourcc set) are the same picture before and
 * after camcore's converter.
 *
 * Then each route converts the native frame: "same_bytes" says whether its
 * output equals camcore's; "same_bytes_noise" whether, on random bytes, it
 * equals the pair's first route (see below); "cpu_ns_per_frame" is the median of
 * --time-rounds interleaved rounds of thread CPU time (noisy on a busy
 * host). With --callgrind (run under valgrind --tool=callgrind
 * --callgrind-out-file=F) the counters are zeroed before and dumped after
 * --reps conversions of each route, as "route NAME" (bench/run reads the
 * dumps' totals: instructions per frame = totals / reps); timing is skipped.
 * Prints one JSON line per route.
 */
#define _GNU_SOURCE
#include "bench_util.h"

#include <camcore.h>

#include <pthread.h>
#include <valgrind/callgrind.h>

#define WANT_SEQ 3

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done;
    uint32_t want;      /* sequence to keep; UINT32_MAX: the first at or after WANT_SEQ */
    uint32_t got_seq;
    uint8_t *p[3];
    uint32_t stride[3], length[3], planes;
} g = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

static void on_frame(void *user_data, const camcore_frame *f)
{
    (void)user_data;
    pthread_mutex_lock(&g.lock);
    int take = !g.done && (g.want == UINT32_MAX ? f->sequence >= WANT_SEQ : f->sequence >= g.want);
    if (take) {
        g.got_seq = f->sequence;
        g.planes = f->plane_count > 3 ? 3 : f->plane_count;
        for (uint32_t i = 0; i < g.planes; i++) {
            free(g.p[i]);
            g.p[i] = malloc(f->planes[i].length ? f->planes[i].length : 1);
            memcpy(g.p[i], f->planes[i].data, f->planes[i].length);
            g.stride[i] = f->planes[i].stride;
            g.length[i] = f->planes[i].length;
        }
        g.done = 1;
        pthread_cond_broadcast(&g.cond);
    }
    pthread_mutex_unlock(&g.lock);
}

/* One frame (sequence `want`, or the first >= WANT_SEQ) from the synthetic camera. */
static int grab(camcore_manager *m, const char *id, uint32_t fourcc, uint32_t w, uint32_t h, uint32_t output,
                uint32_t want)
{
    camcore_capturer *c = NULL;
    if (camcore_capturer_open(m, id, &c)) return -1;
    camcore_capture_config cfg;
    camcore_capture_config_init(&cfg);
    cfg.fourcc = fourcc; cfg.width = w; cfg.height = h;
    cfg.fps.numerator = 30; cfg.fps.denominator = 1;
    cfg.output_fourcc = output;
    camcore_frame_callbacks cb;
    camcore_frame_callbacks_init(&cb);
    cb.on_frame = on_frame;
    g.done = 0; g.want = want;
    int rc = camcore_capturer_start(c, &cfg, &cb);
    if (rc == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 60;
        pthread_mutex_lock(&g.lock);
        while (!g.done && pthread_cond_timedwait(&g.cond, &g.lock, &ts) == 0) {}
        rc = g.done ? 0 : -1;
        pthread_mutex_unlock(&g.lock);
        camcore_capturer_stop(c);
    }
    camcore_capturer_close(c);
    return rc;
}

static uint64_t thread_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    uint32_t fourcc = BENCH_YUYV, output = BENCH_I420, w = 640, h = 480;
    int callgrind = 0, reps = 5, rounds = 15;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--fourcc") && v) { fourcc = bench_parse_fourcc(v); i++; }
        else if (!strcmp(a, "--output") && v) { output = bench_parse_fourcc(v); i++; }
        else if (!strcmp(a, "--size") && v) { if (bench_parse_size(v, &w, &h)) return 2; i++; }
        else if (!strcmp(a, "--callgrind")) callgrind = 1;
        else if (!strcmp(a, "--reps") && v) { reps = atoi(v); i++; }
        else if (!strcmp(a, "--time-rounds") && v) { rounds = atoi(v); i++; }
        else { fprintf(stderr, "conv_routes: bad argument %s\n", a); return 2; }
    }
    if (reps < 1 || rounds < 1 || rounds > 1000) return 2;

    camcore_manager_config mc;
    camcore_manager_config_init(&mc);
    mc.include_synthetic = 1;
    camcore_manager *m = NULL;
    camcore_device_list *list = NULL;
    if (camcore_manager_new(&mc, &m) || camcore_manager_list_devices(m, &list)) {
        fprintf(stderr, "conv_routes: camcore: %s\n", camcore_last_error_message());
        return 1;
    }
    const char *id = NULL;
    for (size_t i = 0; i < list->count; i++)
        if (list->devices[i].flags & CAMCORE_DEVICE_SYNTHETIC) { id = list->devices[i].id; break; }
    if (!id) { fprintf(stderr, "conv_routes: no synthetic camera\n"); return 1; }

    /* The native frame, then camcore's conversion of the same sequence. */
    uint8_t *src[2] = {NULL, NULL};
    int sstride[2] = {0, 0};
    uint8_t *cam = NULL;
    size_t out_bytes = bench_out_bytes(output, (int)w, (int)h);
    uint32_t seq = 0;
    for (int attempt = 0; attempt < 5 && !cam; attempt++) {
        if (grab(m, id, fourcc, w, h, CAMCORE_FOURCC_NATIVE, UINT32_MAX)) continue;
        seq = g.got_seq;
        for (int i = 0; i < 2; i++) { free(src[i]); src[i] = g.p[i]; sstride[i] = (int)g.stride[i]; g.p[i] = NULL; }
        free(g.p[2]); g.p[2] = NULL;
        if (grab(m, id, fourcc, w, h, output, seq) || g.got_seq != seq || g.planes < 1) continue;
        size_t total = 0;
        for (uint32_t i = 0; i < g.planes; i++) total += g.length[i];
        if (total != out_bytes) { fprintf(stderr, "conv_routes: camcore gave %zu bytes, want %zu\n", total, out_bytes); return 1; }
        cam = malloc(out_bytes);
        size_t off = 0;
        for (uint32_t i = 0; i < g.planes; i++) { memcpy(cam + off, g.p[i], g.length[i]); off += g.length[i]; }
    }
    camcore_device_list_free(list);
    camcore_manager_free(m);
    if (!cam) { fprintf(stderr, "conv_routes: no matching native and converted frame\n"); return 1; }

    const bench_route *routes[BENCH_NROUTES];
    int n = 0;
    for (size_t i = 0; i < BENCH_NROUTES; i++)
        if (bench_routes[i].src == fourcc && bench_routes[i].dst == output) routes[n++] = &bench_routes[i];
    if (!n) { fprintf(stderr, "conv_routes: no routes for that pair\n"); return 2; }

    bench_src s = {src[0], sstride[0], src[1], sstride[1]};
    uint8_t *out, *scratch;
    if (posix_memalign((void **)&out, 64, out_bytes) || posix_memalign((void **)&scratch, 64, 4u * w * h + 64)) return 1;
    memset(scratch, 0, 4u * w * h + 64);
    int same[BENCH_NROUTES], same_noise[BENCH_NROUTES];
    long first_diff[BENCH_NROUTES];
    for (int r = 0; r < n; r++) {
        memset(out, 0xEE, out_bytes);
        int rc = routes[r]->fn(&s, out, scratch, (int)w, (int)h);
        first_diff[r] = -1;
        for (size_t i = 0; i < out_bytes; i++) if (out[i] != cam[i]) { first_diff[r] = (long)i; break; }
        same[r] = rc == 0 && first_diff[r] < 0;
    }
    /* The synthetic picture is smooth (bars; chroma constant over each 2x2
     * block), so it cannot tell a route that drops chroma rows from one
     * that keeps them. Noise can: every route also converts random bytes
     * and must give what the pair's first route (libyuv's one call, or for
     * YUYV->RGB3 the chain through I422 that keeps every chroma sample)
     * gives. */
    {
        size_t n0 = (size_t)sstride[0] * h, n1 = src[1] ? (size_t)sstride[1] * ((h + 1) / 2) : 0;
        uint8_t *z0 = malloc(n0), *z1 = n1 ? malloc(n1) : NULL, *want = malloc(out_bytes);
        uint64_t x = 0x9E3779B97F4A7C15ull;
        for (size_t i = 0; i < n0; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; z0[i] = (uint8_t)(x >> 24); }
        for (size_t i = 0; i < n1; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; z1[i] = (uint8_t)(x >> 24); }
        bench_src zs = {z0, sstride[0], z1, sstride[1]};
        memset(want, 0xEE, out_bytes);
        routes[0]->fn(&zs, want, scratch, (int)w, (int)h);
        for (int r = 0; r < n; r++) {
            memset(out, 0xEE, out_bytes);
            same_noise[r] = routes[r]->fn(&zs, out, scratch, (int)w, (int)h) == 0 && !memcmp(out, want, out_bytes);
        }
        free(z0); free(z1); free(want);
    }
    static uint64_t t[BENCH_NROUTES][1000];
    if (callgrind) {
        for (int r = 0; r < n; r++) {
            char desc[128];
            snprintf(desc, sizeof desc, "route %s", routes[r]->name);
            routes[r]->fn(&s, out, scratch, (int)w, (int)h);   /* warm */
            CALLGRIND_ZERO_STATS;
            for (int k = 0; k < reps; k++) routes[r]->fn(&s, out, scratch, (int)w, (int)h);
            CALLGRIND_DUMP_STATS_AT(desc);
        }
    } else {
        for (int r = 0; r < n; r++) routes[r]->fn(&s, out, scratch, (int)w, (int)h);
        for (int k = 0; k < rounds; k++)
            for (int r = 0; r < n; r++) {
                uint64_t t0 = thread_ns();
                routes[r]->fn(&s, out, scratch, (int)w, (int)h);
                t[r][k] = thread_ns() - t0;
            }
        for (int r = 0; r < n; r++) qsort(t[r], (size_t)rounds, sizeof t[r][0], cmp_u64);
    }
    char f1[5], f2[5];
    for (int r = 0; r < n; r++) {
        bench_json j;
        bench_json_begin(&j);
        bench_json_addf(&j, "route", "\"%s\"", routes[r]->name);
        bench_json_addf(&j, "source", "\"%s\"", bench_fourcc_str(fourcc, f1));
        bench_json_addf(&j, "output", "\"%s\"", bench_fourcc_str(output, f2));
        bench_json_addf(&j, "width", "%u", w);
        bench_json_addf(&j, "height", "%u", h);
        bench_json_addf(&j, "sequence", "%u", seq);
        bench_json_addf(&j, "same_bytes", "%s", same[r] ? "true" : "false");
        bench_json_addf(&j, "first_diff", "%ld", first_diff[r]);
        bench_json_addf(&j, "same_bytes_noise", "%s", same_noise[r] ? "true" : "false");
        bench_json_addf(&j, "reps", "%d", reps);
        if (!callgrind) bench_json_addf(&j, "cpu_ns_per_frame", "%.1f", (double)t[r][rounds / 2]);
        bench_json_end(&j);
    }
    return 0;
}
