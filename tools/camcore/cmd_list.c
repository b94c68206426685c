// SPDX-License-Identifier: MIT
/*
 * camcore list: the cameras, one a line, or as JSON.
 */
#include "camcore_tool.h"

#include <stdio.h>
#include <string.h>

const char list_usage[] =
    "usage: " PROGRAM " list [--json]\n"
    "\n"
    "Lists the cameras: index, id, name, type (builtin, external, virtual),\n"
    "position (front, back, external, unknown), node and backend. Only video\n"
    "capture nodes are cameras (no metadata, output or codec nodes). With no\n"
    "camera, camcore's synthetic camera (a test pattern) is listed as index 0.\n"
    "The index, the id or the node names a camera for the other commands.\n"
    "\n"
    "Options:\n"
    "  --json        one JSON document: {\"devices\": [{\"index\": 0, \"id\": ...}]}\n"
    "  --backend B, --portal P   as for every command (" PROGRAM " --help)\n"
    "  -h, --help    this help\n";

int cmd_list(int argc, char **argv)
{
    static const struct option options[] = {COMMON_OPTIONS, {0, 0, 0, 0}};
    struct devices d;
    size_t i;
    int rc, c, wid = 2, wname = 4, wnode = 4;

    while ((c = getopt_long(argc, argv, COMMON_SHORT, options, NULL)) != -1)
        if ((rc = common_option("list", list_usage, c, argv)) != OPTION_NEXT)
            return rc == OPTION_MINE ? EXIT_USAGE : rc;
    if (optind < argc)
        return usage_error("list: unexpected argument '%s'", argv[optind]);
    if ((rc = load_devices(&d, 1)) != EXIT_OK)
        return rc;
    if (g_json) {
        printf("{\"devices\": [");
        for (i = 0; i < d.count; i++) {
            int first = 1;
            printf("%s{", i ? ", " : "");
            json_kv_int(&first, "index", (long long)i);
            json_device_fields(&first, d.shown[i]);
            putchar('}');
        }
        printf("]}\n");
    } else {
        for (i = 0; i < d.count; i++) {
            int a = (int)strlen(d.shown[i]->id), b = (int)strlen(d.shown[i]->name),
                c = (int)strlen(d.shown[i]->node);
            wid = a > wid ? a : wid;
            wname = b > wname ? b : wname;
            wnode = c > wnode ? c : wnode;
        }
        if (d.synthetic_only && d.count > 0)
            printf("No camera found; camcore's synthetic camera stands in for one.\n");
        printf("%-3s %-*s  %-*s  %-8s  %-8s  %-*s  %s\n", "#", wid, "ID", wname, "NAME", "TYPE",
               "POSITION", wnode, "NODE", "BACKEND");
        for (i = 0; i < d.count; i++) {
            printf("%-3zu %-*s  %-*s  %-8s  %-8s  %-*s  %s\n", i, wid, d.shown[i]->id, wname,
                   d.shown[i]->name, type_name(d.shown[i]->type),
                   position_name(d.shown[i]->position), wnode, d.shown[i]->node, d.shown[i]->backend);
            if (d.shown[i]->flags & CAMCORE_DEVICE_UNAVAILABLE)
                printf("    unavailable: %s\n", d.shown[i]->unavailable_reason);
        }
    }
    free_devices(&d);
    return EXIT_OK;
}
