// SPDX-License-Identifier: MIT
/*
 * camcore controls [DEVICE] [--set NAME=VALUE ...]: list the controls
 * with values and ranges, or set some.
 */
#include "camcore_tool.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *control_type_name(int32_t type)
{
    switch (type) {
    case CAMCORE_CONTROL_TYPE_INTEGER: return "int";
    case CAMCORE_CONTROL_TYPE_BOOLEAN: return "bool";
    case CAMCORE_CONTROL_TYPE_MENU: return "menu";
    case CAMCORE_CONTROL_TYPE_BUTTON: return "button";
    case CAMCORE_CONTROL_TYPE_INTEGER64: return "int64";
    case CAMCORE_CONTROL_TYPE_STRING: return "string";
    case CAMCORE_CONTROL_TYPE_BITMASK: return "bitmask";
    case CAMCORE_CONTROL_TYPE_INTEGER_MENU: return "intmenu";
    default: return "unknown";
    }
}

static const struct {
    uint32_t bit;
    const char *name;
} control_flags[] = {
    {CAMCORE_CONTROL_FLAG_DISABLED, "disabled"},
    {CAMCORE_CONTROL_FLAG_GRABBED, "grabbed"},
    {CAMCORE_CONTROL_FLAG_READ_ONLY, "read-only"},
    {CAMCORE_CONTROL_FLAG_UPDATE, "update"},
    {CAMCORE_CONTROL_FLAG_INACTIVE, "inactive"},
    {CAMCORE_CONTROL_FLAG_SLIDER, "slider"},
    {CAMCORE_CONTROL_FLAG_WRITE_ONLY, "write-only"},
    {CAMCORE_CONTROL_FLAG_VOLATILE, "volatile"},
    {CAMCORE_CONTROL_FLAG_HAS_PAYLOAD, "has-payload"},
    {CAMCORE_CONTROL_FLAG_EXECUTE_ON_WRITE, "execute-on-write"},
    {CAMCORE_CONTROL_FLAG_MODIFY_LAYOUT, "modify-layout"},
    {CAMCORE_CONTROL_FLAG_DYNAMIC_ARRAY, "dynamic-array"},
};

/* The short name of a control, as v4l2-ctl prints it: lower case, runs of
 * other characters as one '_' ("Gain, Automatic" -> "gain_automatic"). */
static void control_key(const char *name, char *out, size_t size)
{
    size_t n = 0;
    int pending = 0;

    for (; *name && n + 2 < size; name++) {
        unsigned char c = (unsigned char)*name;
        if (isalnum(c)) {
            if (pending && n > 0)
                out[n++] = '_';
            pending = 0;
            out[n++] = (char)tolower(c);
        } else {
            pending = 1;
        }
    }
    out[n] = 0;
}

static const camcore_control_info *find_control(const camcore_control_list *l, const char *name)
{
    char key[64], want[64];
    size_t i;
    char *end;
    unsigned long id;

    errno = 0;
    id = strtoul(name, &end, 0);
    if (*name && !*end && !errno) {
        for (i = 0; i < l->count; i++)
            if (l->controls[i].id == id)
                return &l->controls[i];
        return NULL;
    }
    control_key(name, want, sizeof want);
    for (i = 0; i < l->count; i++) {
        control_key(l->controls[i].name, key, sizeof key);
        if (strcmp(key, want) == 0 || strcasecmp(l->controls[i].name, name) == 0)
            return &l->controls[i];
    }
    return NULL;
}

/* Whether a number is written in hex: [+-]0x... */
static int hex_prefixed(const char *text)
{
    if (*text == '+' || *text == '-') text++;
    return text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
}

/* VALUE -> a number for this control. Returns 0 or -1 (message printed). */
static int parse_control_value(const camcore_control_info *c, const char *text, int64_t *out)
{
    char *end;
    long long v;
    uint32_t i;
    char key[64], want[64];

    if (c->type == CAMCORE_CONTROL_TYPE_BOOLEAN || c->type == CAMCORE_CONTROL_TYPE_BUTTON) {
        if (!strcasecmp(text, "true") || !strcasecmp(text, "on") || !strcasecmp(text, "yes")) {
            *out = 1;
            return 0;
        }
        if (!strcasecmp(text, "false") || !strcasecmp(text, "off") || !strcasecmp(text, "no")) {
            *out = 0;
            return 0;
        }
    }
    errno = 0;
    /* Decimal, or hex with 0x: a leading zero is not octal (010 is ten). */
    v = strtoll(text, &end, hex_prefixed(text) ? 16 : 10);
    if (*text && !*end && !errno) {
        *out = v;
        return 0;
    }
    if (c->type == CAMCORE_CONTROL_TYPE_BITMASK) {
        errno = 0;
        v = (long long)strtoull(text, &end, hex_prefixed(text) ? 16 : 10);
        if (*text && !*end && !errno) {
            *out = v;
            return 0;
        }
    }
    if (c->type == CAMCORE_CONTROL_TYPE_MENU || c->type == CAMCORE_CONTROL_TYPE_INTEGER_MENU) {
        control_key(text, want, sizeof want);
        for (i = 0; i < c->menu_count; i++) {
            control_key(c->menu[i].name, key, sizeof key);
            if (strcasecmp(c->menu[i].name, text) == 0 || (want[0] && strcmp(key, want) == 0)) {
                *out = c->menu[i].index;
                return 0;
            }
        }
        errorf("'%s' is not an item of menu '%s'; its items are:", text, c->name);
        for (i = 0; i < c->menu_count; i++)
            fprintf(stderr, "    %" PRIu32 ": %s\n", c->menu[i].index, c->menu[i].name);
        return -1;
    }
    errorf("'%s' is not a value for '%s' (%s): give a number%s", text, c->name,
        control_type_name(c->type),
        c->type == CAMCORE_CONTROL_TYPE_BOOLEAN ? ", true or false" : "");
    return -1;
}

static const char *menu_label(const camcore_control_info *c, int64_t value)
{
    uint32_t i;

    for (i = 0; i < c->menu_count; i++)
        if ((int64_t)c->menu[i].index == value)
            return c->menu[i].name;
    return NULL;
}

/* The text of a string control, malloc'd (free it); NULL if it cannot be read. */
static char *control_text(camcore_capturer *cap, const camcore_control_info *c)
{
    size_t size = (size_t)(c->maximum > 0 && c->maximum < (1 << 20) ? c->maximum : 0) + 1;
    char *text = malloc(size);
    if (text != NULL && camcore_capturer_get_control_string(cap, c->id, text, size) != CAMCORE_OK) {
        free(text);
        text = NULL;
    }
    return text;
}

static void print_control_text(camcore_capturer *cap, const camcore_control_info *c)
{
    char key[64];
    const char *label;
    size_t f;
    int any = 0;
    uint32_t i;

    control_key(c->name, key, sizeof key);
    printf("  %-30s 0x%08" PRIx32 " %-8s", key, c->id, control_type_name(c->type));
    switch (c->type) {
    case CAMCORE_CONTROL_TYPE_BUTTON:
        printf(" (button)");
        break;
    case CAMCORE_CONTROL_TYPE_STRING: {
        char *text = control_text(cap, c);
        if (text != NULL)
            printf(" value=\"%s\"", text);
        printf(" length %lld..%lld", (long long)c->minimum, (long long)c->maximum);
        free(text);
        break;
    }
    case CAMCORE_CONTROL_TYPE_BITMASK:
        printf(" value=0x%08llx mask=0x%08llx default=0x%08llx", (unsigned long long)c->value,
               (unsigned long long)c->maximum, (unsigned long long)c->default_value);
        break;
    case CAMCORE_CONTROL_TYPE_BOOLEAN:
        printf(" value=%lld default=%lld", (long long)c->value, (long long)c->default_value);
        break;
    case CAMCORE_CONTROL_TYPE_MENU:
    case CAMCORE_CONTROL_TYPE_INTEGER_MENU:
        label = menu_label(c, c->value);
        printf(" value=%lld%s%s%s min=%lld max=%lld default=%lld", (long long)c->value,
               label ? " (" : "", label ? label : "", label ? ")" : "", (long long)c->minimum,
               (long long)c->maximum, (long long)c->default_value);
        break;
    default:
        printf(" value=%lld min=%lld max=%lld step=%lld default=%lld", (long long)c->value,
               (long long)c->minimum, (long long)c->maximum, (long long)c->step,
               (long long)c->default_value);
    }
    for (f = 0; f < sizeof control_flags / sizeof control_flags[0]; f++)
        if (c->flags & control_flags[f].bit) {
            printf("%s%s", any ? "," : " flags=", control_flags[f].name);
            any = 1;
        }
    putchar('\n');
    for (i = 0; i < c->menu_count; i++)
        printf("      %" PRIu32 ": %s\n", c->menu[i].index, c->menu[i].name);
}

static void print_control_json(camcore_capturer *cap, const camcore_control_info *c)
{
    char key[64];
    size_t f;
    uint32_t i;
    int first = 1, any = 0;

    control_key(c->name, key, sizeof key);
    putchar('{');
    json_kv_int(&first, "id", c->id);
    json_kv_str(&first, "name", c->name);
    json_kv_str(&first, "key", key);
    json_kv_str(&first, "type", control_type_name(c->type));
    json_kv_int(&first, "minimum", c->minimum);
    json_kv_int(&first, "maximum", c->maximum);
    json_kv_int(&first, "step", c->step);
    json_kv_int(&first, "default", c->default_value);
    json_kv_int(&first, "value", c->value);
    if (c->type == CAMCORE_CONTROL_TYPE_STRING) {
        char *text = control_text(cap, c);
        if (text != NULL)
            json_kv_str(&first, "text", text);
        free(text);
    }
    json_kv_int(&first, "flags_raw", c->flags);
    printf(", \"flags\": [");
    for (f = 0; f < sizeof control_flags / sizeof control_flags[0]; f++)
        if (c->flags & control_flags[f].bit) {
            printf("%s", any ? ", " : "");
            json_str(control_flags[f].name);
            any = 1;
        }
    printf("], \"menu\": [");
    for (i = 0; i < c->menu_count; i++) {
        int one = 1;
        printf("%s{", i ? ", " : "");
        json_kv_int(&one, "index", c->menu[i].index);
        json_kv_str(&one, "name", c->menu[i].name);
        json_kv_int(&one, "value", c->menu[i].value);
        putchar('}');
    }
    printf("]}");
}

const char controls_usage[] =
    "usage: " PROGRAM " controls [DEVICE] [--set NAME=VALUE ...] [--json]\n"
    "\n"
    "Lists a camera's controls (brightness, exposure, focus, ...) with type,\n"
    "value, range, step, default, flags and menu items; or sets some.\n"
    "DEVICE: an index from `" PROGRAM " list`, an id or a node; default: the first camera.\n"
    "\n"
    "Options:\n"
    "  --set NAME=VALUE  set a control (repeatable, in order). NAME: the short name\n"
    "                shown (brightness), the full name, or the id (0x00980900).\n"
    "                VALUE: a number, 0x... hex, true/false, a menu item's name, or\n"
    "                for a string control its text. A value out of range, a\n"
    "                read-only or inactive control is an error, never a no-op.\n"
    "  --json        one JSON document\n"
    "  --backend B, --portal P   as for every command (" PROGRAM " --help)\n"
    "  -h, --help    this help\n";

int cmd_controls(int argc, char **argv)
{
    enum { OPT_SET = OPT_COMMAND };
    static const struct option options[] = {
        {"set", required_argument, NULL, OPT_SET},
        COMMON_OPTIONS,
        {0, 0, 0, 0},
    };
    struct devices d;
    const camcore_device_info *dev;
    camcore_capturer *cap = NULL;
    camcore_control_list *list = NULL;
    const char *spec = NULL;
    const char **sets = NULL;
    int nsets = 0, i, rc = EXIT_OK, st, c;
    size_t k;

    sets = calloc((size_t)argc + 1, sizeof *sets);
    if (sets == NULL) {
        errorf("out of memory");
        return EXIT_FAILED;
    }
    while ((c = getopt_long(argc, argv, COMMON_SHORT, options, NULL)) != -1) {
        if (c == OPT_SET) {
            if (!strchr(optarg, '=')) {
                free(sets);
                return usage_error("controls: --set needs NAME=VALUE (e.g. --set brightness=200)");
            }
            sets[nsets++] = optarg;
            continue;
        }
        if (c == ':' && argv[optind - 1] && strncmp(argv[optind - 1], "--set", 5) == 0) {
            free(sets);
            return usage_error("controls: --set needs NAME=VALUE (e.g. --set brightness=200)");
        }
        if ((rc = common_option("controls", controls_usage, c, argv)) != OPTION_NEXT) {
            free(sets);
            return rc == OPTION_MINE ? EXIT_USAGE : rc;
        }
    }
    rc = EXIT_OK;
    for (; optind < argc; optind++) {
        if (spec) {
            free(sets);
            return usage_error("controls: more than one DEVICE ('%s', '%s')", spec, argv[optind]);
        }
        spec = argv[optind];
    }
    if ((rc = load_devices(&d, 1)) != EXIT_OK) {
        free(sets);
        return rc;
    }
    if ((dev = resolve_device(&d, spec)) == NULL) {
        free(sets);
        free_devices(&d);
        return EXIT_NO_DEVICE;
    }
    st = camcore_capturer_open(d.manager, dev->id, &cap);
    if (st == CAMCORE_OK)
        st = camcore_capturer_list_controls(cap, &list);
    if (st != CAMCORE_OK) {
        rc = fail(st, "reading the controls", dev);
        goto out;
    }

    if (nsets == 0) {
        if (g_json) {
            printf("{\"device\": ");
            json_device(dev);
            printf(", \"controls\": [");
            for (k = 0; k < list->count; k++) {
                printf("%s", k ? ", " : "");
                print_control_json(cap, &list->controls[k]);
            }
            printf("]}\n");
        } else {
            printf("Controls of %s (%s):\n", dev->name, dev->node);
            for (k = 0; k < list->count; k++)
                print_control_text(cap, &list->controls[k]);
            if (list->count == 0)
                printf("  (none)\n");
        }
        goto out;
    }

    if (g_json)
        printf("{\"device\": "), json_device(dev), printf(", \"set\": [");
    for (i = 0; i < nsets; i++) {
        const char *eq = strchr(sets[i], '=');
        char name[128];
        const camcore_control_info *c;
        int64_t value = 0, applied = 0;
        size_t n = (size_t)(eq - sets[i]);

        if (n >= sizeof name)
            n = sizeof name - 1;
        memcpy(name, sets[i], n);
        name[n] = 0;
        c = find_control(list, name);
        if (c == NULL && list->count == 0) {
            errorf("%s (%s) has no controls", dev->name, dev->node);
            rc = EXIT_USAGE;
            break;
        }
        if (c == NULL) {
            errorf("%s has no control '%s'; see " PROGRAM " controls%s%s", dev->node, name,
                spec ? " " : "", spec ? spec : "");
            rc = EXIT_USAGE;
            break;
        }
        if (c->type == CAMCORE_CONTROL_TYPE_STRING) {
            char *text;
            char key[64];
            st = camcore_capturer_set_control_string(cap, c->id, eq + 1);
            if (st != CAMCORE_OK) {
                errorf("cannot set %s to \"%s\": %s", c->name, eq + 1, camcore_last_error_message());
                rc = exit_code(st);
                break;
            }
            text = control_text(cap, c);
            control_key(c->name, key, sizeof key);
            if (g_json) {
                int first = 1;
                printf("%s{", i ? ", " : "");
                json_kv_int(&first, "id", c->id);
                json_kv_str(&first, "name", c->name);
                json_kv_str(&first, "key", key);
                json_kv_str(&first, "requested", eq + 1);
                json_kv_str(&first, "applied", text ? text : eq + 1);
                putchar('}');
            } else {
                printf("%s: \"%s\"\n", key, text ? text : eq + 1);
            }
            free(text);
            continue;
        }
        if (parse_control_value(c, eq + 1, &value) != 0) {
            rc = EXIT_USAGE;
            break;
        }
        st = camcore_capturer_set_control(cap, c->id, value, &applied);
        if (st != CAMCORE_OK) {
            errorf("cannot set %s to %s: %s", c->name, eq + 1, camcore_last_error_message());
            rc = exit_code(st);
            break;
        }
        if (g_json) {
            int first = 1;
            char key[64];
            control_key(c->name, key, sizeof key);
            printf("%s{", i ? ", " : "");
            json_kv_int(&first, "id", c->id);
            json_kv_str(&first, "name", c->name);
            json_kv_str(&first, "key", key);
            json_kv_int(&first, "requested", value);
            json_kv_int(&first, "applied", applied);
            putchar('}');
        } else {
            char key[64];
            const char *label = menu_label(c, applied);
            control_key(c->name, key, sizeof key);
            if (c->type == CAMCORE_CONTROL_TYPE_BUTTON)
                printf("%s: pressed\n", key);
            else if (applied != value)
                printf("%s: %lld (asked %lld; the driver rounded it to its step of %lld)\n", key,
                       (long long)applied, (long long)value, (long long)c->step);
            else
                printf("%s: %lld%s%s%s\n", key, (long long)applied, label ? " (" : "",
                       label ? label : "", label ? ")" : "");
        }
    }
    if (g_json) {
        int first = 0;
        printf("]");
        json_kv_int(&first, "exit_code", rc);
        printf("}\n");
    }
out:
    camcore_control_list_free(list);
    camcore_capturer_close(cap);
    free_devices(&d);
    free(sets);
    return rc;
}
