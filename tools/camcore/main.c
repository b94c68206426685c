// SPDX-License-Identifier: MIT
/*
 * camcore — the command-line tool of libcamcore.
 *
 *   camcore list                      cameras: index, id, name, type, position, node
 *   camcore formats [DEVICE]          pixel formats, sizes and frame rates
 *   camcore capture [DEVICE] [...]    capture with a live progress line
 *   camcore monitor                   print cameras as they come and go
 *   camcore controls [DEVICE] [--set NAME=VALUE ...]
 *   camcore view [DEVICE]             a live camera window (SDL2, loaded at run time)
 *
 * Written only against the public C API (include/camcore.h): it is
 * libcamcore's first user. `camcore --help` and `camcore COMMAND --help`
 * say everything (the man page camcore(1), camcore.1 here, says it too);
 * exit codes are listed there.
 *
 * This file: usage, the global options and the command dispatch; each
 * command is in cmd_<name>.c with its getopt_long table and --help text,
 * JSON output in json.c, what they share in tool.c (declared in
 * camcore_tool.h).
 *
 * Build: make (pkg-config finds camcore and libpng).
 */
#include "camcore_tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int g_json;
int g_backend; /* CAMCORE_BACKEND_AUTO */
const char *g_backend_names; /* --backend v4l2,libcamera; NULL: g_backend */
int g_portal;  /* CAMCORE_PORTAL_AUTO */

static const struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *usage;
} commands[] = {
    {"list", cmd_list, list_usage},
    {"formats", cmd_formats, formats_usage},
    {"capture", cmd_capture, capture_usage},
    {"monitor", cmd_monitor, monitor_usage},
    {"controls", cmd_controls, controls_usage},
    {"view", cmd_view, view_usage},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static const char main_usage[] =
    "usage: " PROGRAM " [OPTIONS] COMMAND [ARGS]\n"
    "\n"
    "Commands (" PROGRAM " COMMAND --help for each one's options):\n"
    "  list                       cameras: index, id, name, type, position, node\n"
    "  formats [DEVICE]           pixel formats, frame sizes and frame rates\n"
    "  capture [DEVICE] [--size WxH] [--fps N[/D]] [--format FOURCC]\n"
    "          [--frames N | --seconds S] [--snapshot FILE.png]\n"
    "          [--output FILE|-] [--container raw|y4m] [--output-size WxH]\n"
    "                             capture frames with a live progress line and a\n"
    "                             summary; write them raw or as Y4M (--output -:\n"
    "                             to stdout, e.g. | ffplay -), the last as PNG\n"
    "  monitor                    print the cameras present, then each camera\n"
    "                             connected or disconnected, until Ctrl-C\n"
    "  controls [DEVICE] [--set NAME=VALUE ...]\n"
    "                             list the controls with values and ranges, or set\n"
    "                             some\n"
    "  view [DEVICE]              the camera live in a window, through a video\n"
    "                             session: keys pause, hold, flip, switch camera,\n"
    "                             change size and rate, save a PNG (view --help)\n"
    "\n"
    "DEVICE is a camera id, a device node (/dev/video0) or an index from `list`.\n"
    "Default: the first camera, or camcore's synthetic camera (a test pattern)\n"
    "when there is none.\n"
    "\n"
    "Options (before or after the command):\n"
    "  --backend B  where cameras come from (S33): auto (PipeWire in a sandbox, else\n"
    "               V4L2, and libcamera for media-pipeline cameras; CAMCORE_BACKEND\n"
    "               overrides it), v4l2, pipewire, libcamera, both (every one), or\n"
    "               names comma-separated: v4l2,libcamera\n"
    "  --portal P   when PipeWire is reached through the camera portal (S35): auto\n"
    "               (in a sandbox; CAMCORE_PORTAL overrides it), never, always. The\n"
    "               tool then asks for camera access first and waits up to 120 s\n"
    "               for the answer (exit code 4 when it is refused)\n"
    "  --json       machine-readable output (one JSON document; `monitor` prints\n"
    "               one JSON object per line); frame rates as a number and, beside\n"
    "               it, the exact fraction: \"fps\": 29.97, \"fps_exact\": {\"num\":\n"
    "               30000, \"den\": 1001}\n"
    "  -h, --help   this help\n"
    "  --version    the tool's and the library's version\n"
    "\n"
    "Options take their value as --frames 10 or --frames=10; -- ends the options.\n"
    "FourCCs are written as v4l2-ctl writes them (YUYV, YU12, MJPG, 'Y16 -BE').\n"
    "\n"
    "Exit codes: 0 ok, 1 operation failed, 2 bad command line or value,\n"
    "            3 no such camera (or it went away), 4 camera busy or no permission,\n"
    "            5 not enough USB bandwidth for the setting.\n"
    "\n"
    "See camcore(1).\n";

static const struct command *find_command(const char *name)
{
    size_t i;

    for (i = 0; i < N_COMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

int main(int argc, char **argv)
{
    static const struct option options[] = {
        {"version", no_argument, NULL, OPT_VERSION},
        COMMON_OPTIONS,
        {0, 0, 0, 0},
    };
    const struct command *cmd;
    int c, rc;

    /* Global options up to the command ("+": stop at the first word that
     * is not an option); each command scans the rest with its own table. */
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+" COMMON_SHORT, options, NULL)) != -1) {
        if (c == OPT_VERSION) {
            printf(PROGRAM " %d.%d.%d, libcamcore %s\n", CAMCORE_VERSION_MAJOR, CAMCORE_VERSION_MINOR,
                   CAMCORE_VERSION_PATCH, camcore_version_string());
            return EXIT_OK;
        }
        rc = common_option(NULL, main_usage, c, argv);
        if (rc == OPTION_MINE)
            rc = usage_error("unknown option '%s'", argv[optind - 1]);
        if (rc != OPTION_NEXT)
            return rc;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (optind >= argc) {
        command_usage(main_usage, stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[optind], "help") == 0) {
        /* `camcore help` and `camcore help COMMAND` */
        if (optind + 1 >= argc) {
            command_usage(main_usage, stdout);
            return EXIT_OK;
        }
        if ((cmd = find_command(argv[optind + 1])) == NULL)
            return usage_error("unknown command '%s' (list, formats, capture, monitor, controls, view)", argv[optind + 1]);
        command_usage(cmd->usage, stdout);
        return EXIT_OK;
    }
    if ((cmd = find_command(argv[optind])) == NULL)
        return usage_error("unknown command '%s' (list, formats, capture, monitor, controls, view)", argv[optind]);
    g_command = cmd->name;
    /* The command sees argv[0] = its name, as getopt expects. */
    argc -= optind;
    argv += optind;
    optind = 0; /* glibc: start a new scan */
    return cmd->run(argc, argv);
}
