// SPDX-License-Identifier: MIT
/*
 * camcore formats [DEVICE]: pixel formats, frame sizes and frame rates.
 */
#include "camcore_tool.h"

#include <inttypes.h>
#include <stdio.h>

static const char *range_name(int32_t kind)
{
    switch (kind) {
    case CAMCORE_RANGE_DISCRETE: return "discrete";
    case CAMCORE_RANGE_STEPWISE: return "stepwise";
    case CAMCORE_RANGE_CONTINUOUS: return "continuous";
    default: return "unknown";
    }
}

static void print_rates(const camcore_format *f)
{
    char a[32], b[32];
    uint32_t i;

    switch (f->rate_kind) {
    case CAMCORE_RANGE_DISCRETE:
        for (i = 0; i < f->rate_count; i++)
            printf("%s%s", i ? ", " : "", fps_text(f->rates[i], a, sizeof a));
        printf(" fps");
        break;
    case CAMCORE_RANGE_STEPWISE:
        printf("%s - %s fps (stepwise)", fps_text(f->min_fps, a, sizeof a),
               fps_text(f->max_fps, b, sizeof b));
        break;
    case CAMCORE_RANGE_CONTINUOUS:
        printf("%s - %s fps (continuous)", fps_text(f->min_fps, a, sizeof a),
               fps_text(f->max_fps, b, sizeof b));
        break;
    default:
        printf("rates not listed by the driver");
    }
}

const char formats_usage[] =
    "usage: " PROGRAM " formats [DEVICE] [--json]\n"
    "\n"
    "Lists a camera's pixel formats (FourCCs as v4l2-ctl writes them: YUYV, MJPG,\n"
    "'Y16 -BE' for a big-endian one), frame sizes and frame rates, as the driver\n"
    "enumerates them; stepwise and continuous ranges stay ranges.\n"
    "DEVICE: an index from `" PROGRAM " list`, an id or a node; default: the first camera.\n"
    "\n"
    "Options:\n"
    "  --json        one JSON document; each rate as a number and an exact fraction\n"
    "                (\"fps\": [29.97], \"fps_exact\": [{\"num\": 30000, \"den\": 1001}])\n"
    "  --backend B, --portal P   as for every command (" PROGRAM " --help)\n"
    "  -h, --help    this help\n";

int cmd_formats(int argc, char **argv)
{
    static const struct option options[] = {COMMON_OPTIONS, {0, 0, 0, 0}};
    struct devices d;
    const camcore_device_info *dev;
    camcore_format_list *fl = NULL;
    const char *spec = NULL;
    size_t i;
    uint32_t j;
    int rc, st, c;
    char code[8];

    while ((c = getopt_long(argc, argv, COMMON_SHORT, options, NULL)) != -1)
        if ((rc = common_option("formats", formats_usage, c, argv)) != OPTION_NEXT)
            return rc == OPTION_MINE ? EXIT_USAGE : rc;
    for (; optind < argc; optind++) {
        if (spec)
            return usage_error("formats: more than one DEVICE ('%s', '%s')", spec, argv[optind]);
        spec = argv[optind];
    }
    if ((rc = load_devices(&d, 1)) != EXIT_OK)
        return rc;
    if ((dev = resolve_device(&d, spec)) == NULL) {
        free_devices(&d);
        return EXIT_NO_DEVICE;
    }
    st = camcore_manager_list_formats(d.manager, dev->id, &fl);
    if (st != CAMCORE_OK) {
        rc = fail(st, "listing the formats", dev);
        free_devices(&d);
        return rc;
    }
    if (g_json) {
        printf("{\"device\": ");
        json_device(dev);
        printf(", \"formats\": [");
        for (i = 0; i < fl->count; i++) {
            const camcore_format *f = &fl->formats[i];
            int first = 1;
            printf("%s{", i ? ", " : "");
            json_kv_str(&first, "fourcc", fourcc_text(f->fourcc, code));
            json_kv_str(&first, "description", f->description);
            json_kv_bool(&first, "compressed", (f->flags & CAMCORE_FORMAT_COMPRESSED) != 0);
            json_kv_str(&first, "size_kind", range_name(f->size_kind));
            json_kv_int(&first, "width", f->width);
            json_kv_int(&first, "height", f->height);
            json_kv_int(&first, "min_width", f->min_width);
            json_kv_int(&first, "max_width", f->max_width);
            json_kv_int(&first, "step_width", f->step_width);
            json_kv_int(&first, "min_height", f->min_height);
            json_kv_int(&first, "max_height", f->max_height);
            json_kv_int(&first, "step_height", f->step_height);
            json_kv_str(&first, "rate_kind", range_name(f->rate_kind));
            printf(", \"fps\": [");
            for (j = 0; j < f->rate_count; j++) {
                printf("%s", j ? ", " : "");
                json_fps_number(f->rates[j]);
            }
            printf("], \"fps_exact\": [");
            for (j = 0; j < f->rate_count; j++) {
                printf("%s", j ? ", " : "");
                json_fraction(f->rates[j]);
            }
            printf("]");
            json_kv_fps(&first, "min_fps", f->min_fps);
            json_kv_fps(&first, "max_fps", f->max_fps);
            putchar('}');
        }
        printf("]}\n");
    } else {
        uint32_t last = 0;
        printf("Formats of %s (%s, id %s):\n", dev->name, dev->node, dev->id);
        for (i = 0; i < fl->count; i++) {
            const camcore_format *f = &fl->formats[i];
            if (i == 0 || f->fourcc != last) {
                printf("  %s  %s%s\n", fourcc_text(f->fourcc, code), f->description,
                       (f->flags & CAMCORE_FORMAT_COMPRESSED) ? " (compressed)" : "");
                last = f->fourcc;
            }
            if (f->size_kind == CAMCORE_RANGE_DISCRETE)
                printf("        %" PRIu32 "x%" PRIu32 "  ", f->width, f->height);
            else
                printf("        %" PRIu32 "x%" PRIu32 " - %" PRIu32 "x%" PRIu32
                       " (step %" PRIu32 "x%" PRIu32 ")  ",
                       f->min_width, f->min_height, f->max_width, f->max_height, f->step_width,
                       f->step_height);
            print_rates(f);
            putchar('\n');
        }
        if (fl->count == 0)
            printf("  (none)\n");
    }
    camcore_format_list_free(fl);
    free_devices(&d);
    return EXIT_OK;
}
