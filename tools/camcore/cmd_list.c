/*
 * camcore list: the cameras, one a line, or as JSON.
 */
#include "camcore_tool.h"

#include <stdio.h>
#include <string.h>

int cmd_list(int argc, char **argv)
{
    struct devices d;
    size_t i;
    int rc, wid = 2, wname = 4, wnode = 4;

    if (argc > 0)
        return usage_error("list: unexpected argument '%s'", argv[0]);
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
