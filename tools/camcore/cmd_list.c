// SPDX-License-Identifier: MIT
/*
 * camcore list: the cameras, one a line, or as JSON.
 */
#include "camcore_tool.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char list_usage[] =
    "usage: " PROGRAM " list [--all | --present] [--json]\n"
    "\n"
    "Lists the cameras: index, id, name, type (builtin, external, virtual,\n"
    "infrared: an IR camera beside a colour one, listed after them),\n"
    "position (front, back, external, unknown), node and backend, and the ids\n"
    "the camera also has in other backends (\"also:\"); a camera another program\n"
    "holds is marked \"busy: held by COMMAND (pid N)\". Only video\n"
    "capture nodes are cameras (no metadata, output or codec nodes). With no\n"
    "camera, camcore's synthetic camera (a test pattern) is listed as index 0.\n"
    "The index, the id or the node names a camera for the other commands.\n"
    "\n"
    "Options:\n"
    "  --all         also the capture nodes that are no cameras of their own, with\n"
    "                why: the nodes of a media pipeline (MIPI sensors behind Intel\n"
    "                IPU3/IPU6, Raspberry Pi, vimc), which camcore never streams\n"
    "  --present     only whether a camera is there (S49), without asking for the\n"
    "                camera permission: through the camera portal its\n"
    "                IsCameraPresent (no prompt), else the listing; prints\n"
    "                \"present\" (exit 0) or \"absent\" (exit 3)\n"
    "  --json        one JSON document: {\"devices\": [{\"index\": 0, \"id\": ...}]}\n"
    "                (with --present {\"present\": true})\n"
    "                (with --all also \"hidden\": [...], without indices)\n"
    "  --backend B, --portal P   as for every command (" PROGRAM " --help)\n"
    "  -h, --help    this help\n";

/* S46: the other processes that hold a camera's node (this one never does
 * while listing); n of them into h. */
static size_t other_holders(camcore_manager *m, const camcore_device_info *dev, camcore_holder *h, size_t max)
{
    size_t found = 0, i, n = 0;

    if (strncmp(dev->node, "/dev/", 5) != 0 ||
        camcore_manager_get_holders(m, dev->id, h, max, &found, NULL) != CAMCORE_OK)
        return 0;
    for (i = 0; i < found && i < max; i++)
        if (h[i].pid != (int32_t)getpid())
            h[n++] = h[i];
    return n;
}

static void print_holders(camcore_manager *m, const camcore_device_info *dev)
{
    camcore_holder h[8];
    size_t n = other_holders(m, dev, h, 8), i;

    if (n == 0)
        return;
    printf("    busy: held by");
    for (i = 0; i < n; i++)
        printf("%s %s (pid %d)", i == 0 ? "" : (i + 1 == n ? " and" : ","), h[i].command, (int)h[i].pid);
    putchar('\n');
}

static void json_holders(int *first, camcore_manager *m, const camcore_device_info *dev)
{
    camcore_holder h[8];
    size_t n = other_holders(m, dev, h, 8), i;

    if (n == 0)
        return;
    printf("%s\"holders\": [", *first ? "" : ", ");
    for (i = 0; i < n; i++) {
        printf("%s{\"pid\": %d, \"command\": ", i ? ", " : "", (int)h[i].pid);
        json_str(h[i].command);
        putchar('}');
    }
    putchar(']');
    *first = 0;
}

/* list --present: the manager alone, no listing shown, no permission asked. */
static int list_present(void)
{
    camcore_manager_config cfg;
    camcore_manager *m = NULL;
    int st;

    camcore_manager_config_init(&cfg);
    cfg.backend = g_backend;
    cfg.backend_names = g_backend_names;
    cfg.portal = g_portal;
    st = camcore_manager_new(&cfg, &m);
    if (st != CAMCORE_OK)
        return fail(st, "creating the manager", NULL);
    st = camcore_manager_camera_present(m);
    camcore_manager_free(m);
    if (st < 0)
        return fail(st, "asking whether a camera is present", NULL);
    if (g_json)
        printf("{\"present\": %s}\n", st ? "true" : "false");
    else
        printf("%s\n", st ? "present" : "absent");
    return st ? EXIT_OK : EXIT_NO_DEVICE;
}

int cmd_list(int argc, char **argv)
{
    enum { OPT_ALL = OPT_COMMAND, OPT_PRESENT };
    static const struct option options[] = {{"all", no_argument, NULL, OPT_ALL},
                                            {"present", no_argument, NULL, OPT_PRESENT}, COMMON_OPTIONS, {0, 0, 0, 0}};
    struct devices d;
    camcore_device_list *with_hidden = NULL;
    size_t i, nhidden = 0;
    int rc, c, wid = 2, wname = 4, wnode = 4, all = 0, present = 0;

    while ((c = getopt_long(argc, argv, COMMON_SHORT, options, NULL)) != -1) {
        if (c == OPT_ALL) {
            all = 1;
            continue;
        }
        if (c == OPT_PRESENT) {
            present = 1;
            continue;
        }
        if ((rc = common_option("list", list_usage, c, argv)) != OPTION_NEXT)
            return rc == OPTION_MINE ? EXIT_USAGE : rc;
    }
    if (optind < argc)
        return usage_error("list: unexpected argument '%s'", argv[optind]);
    if (present && all)
        return usage_error("list: --present and --all do not go together");
    if (present)
        return list_present();
    if ((rc = load_devices(&d, 1)) != EXIT_OK)
        return rc;
    if (all) {
        /* S40: the nodes that are no cameras come after the cameras. */
        int st = camcore_manager_list_devices_with(d.manager, CAMCORE_LIST_HIDDEN, &with_hidden);
        if (st != CAMCORE_OK) {
            free_devices(&d);
            return fail(st, "listing the hidden capture nodes", NULL);
        }
        for (i = 0; i < with_hidden->count; i++)
            nhidden += (with_hidden->devices[i].flags & CAMCORE_DEVICE_HIDDEN) != 0;
    }
    if (g_json) {
        printf("{\"devices\": [");
        for (i = 0; i < d.count; i++) {
            int first = 1;
            printf("%s{", i ? ", " : "");
            json_kv_int(&first, "index", (long long)i);
            json_device_fields(&first, d.shown[i]);
            json_details(&first, device_details(d.all, d.shown[i]));
            json_holders(&first, d.manager, d.shown[i]);
            putchar('}');
        }
        printf("]");
        if (all) {
            size_t n = 0;
            printf(", \"hidden\": [");
            for (i = 0; with_hidden && i < with_hidden->count; i++)
                if (with_hidden->devices[i].flags & CAMCORE_DEVICE_HIDDEN) {
                    printf("%s", n++ ? ", " : "");
                    json_device(&with_hidden->devices[i]);
                }
            printf("]");
        }
        printf("}\n");
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
            const camcore_device_details *more = device_details(d.all, d.shown[i]);
            if (d.shown[i]->flags & CAMCORE_DEVICE_UNAVAILABLE)
                printf("    unavailable: %s\n", d.shown[i]->unavailable_reason);
            /* S46: a camera another process holds. */
            print_holders(d.manager, d.shown[i]);
            /* S45: a sensor mounted rotated. */
            if (more && more->rotation > 0)
                printf("    rotated: %d degrees clockwise (the sensor's mounting)\n", (int)more->rotation);
            /* S42: the same camera in the other backends. */
            for (uint32_t k = 0; more && k < more->other_id_count; k++)
                printf("    %s %s\n", k ? "    " : "also:", more->other_ids[k]);
        }
        if (all) {
            printf("\n%zu capture node%s that %s no camera%s of %s own (--all):\n", nhidden, nhidden == 1 ? "" : "s",
                   nhidden == 1 ? "is" : "are", nhidden == 1 ? "" : "s", nhidden == 1 ? "its" : "their");
            for (i = 0; with_hidden && i < with_hidden->count; i++) {
                const camcore_device_info *h = &with_hidden->devices[i];
                if (!(h->flags & CAMCORE_DEVICE_HIDDEN))
                    continue;
                printf("-   %s  %s  %s  %s\n    hidden: %s\n", h->id, h->name, h->node, h->backend,
                       h->unavailable_reason);
            }
        }
    }
    camcore_device_list_free(with_hidden);
    free_devices(&d);
    return EXIT_OK;
}
