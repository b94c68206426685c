/*
 * camcore — the command-line tool of libcamcore.
 *
 *   camcore list                      cameras: index, id, name, type, position, node
 *   camcore formats [DEVICE]          pixel formats, sizes and frame rates
 *   camcore capture [DEVICE] [...]    capture with a live progress line
 *   camcore monitor                   print cameras as they come and go
 *   camcore controls [DEVICE] [--set NAME=VALUE ...]
 *
 * Written only against the public C API (include/camcore.h): it is
 * libcamcore's first user. `camcore --help` says everything; exit codes
 * are listed there too.
 *
 * This file: usage, the global options and the command dispatch; each
 * command is in cmd_<name>.c, JSON output in json.c, what they share in
 * tool.c (declared in camcore_tool.h).
 *
 * Build: make (pkg-config finds camcore and libpng).
 */
#include "camcore_tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int g_json;
int g_backend; /* CAMCORE_BACKEND_AUTO */
int g_portal;  /* CAMCORE_PORTAL_AUTO */

static void usage(FILE *out)
{
    fprintf(out,
        "usage: " PROGRAM " [--json] COMMAND [ARGS]\n"
        "\n"
        "Commands:\n"
        "  list                       cameras: index, id, name, type, position, node\n"
        "  formats [DEVICE]           pixel formats, frame sizes and frame rates\n"
        "  capture [DEVICE] [--size WxH] [--fps N] [--format FOURCC]\n"
        "          [--frames N | --seconds S] [--snapshot FILE.png] [--output FILE]\n"
        "          [--output-size WxH]\n"
        "                             capture frames with a live progress line on a\n"
        "                             terminal and a summary at the end. Without\n"
        "                             --frames/--seconds it runs until Ctrl-C (30 frames\n"
        "                             when only --snapshot is given). Unset settings are\n"
        "                             negotiated (1280x720, 15-30 fps by default).\n"
        "                             --output-size has camcore scale the frames (S38;\n"
        "                             in the captured format, I420 from MJPEG).\n"
        "                             --snapshot writes the last frame as PNG (an MJPEG\n"
        "                             camera's frames are decoded for it unless --output\n"
        "                             is given); --output writes the raw frames, rows\n"
        "                             unpadded.\n"
        "  monitor                    print the cameras present, then each camera\n"
        "                             connected or disconnected (udev hot-plug events;\n"
        "                             polling every 500 ms where udev has no monitor),\n"
        "                             until Ctrl-C\n"
        "  controls [DEVICE] [--set NAME=VALUE ...]\n"
        "                             list the controls with values and ranges, or set\n"
        "                             some. NAME: the short name shown (brightness), the\n"
        "                             full name, or the id (0x00980900). VALUE: a number,\n"
        "                             0x... hex, true/false, a menu item's name, or for\n"
        "                             a string control its text.\n"
        "\n"
        "DEVICE is a camera id, a device node (/dev/video0) or an index from `list`.\n"
        "Default: the first camera, or camcore's synthetic camera (a test pattern)\n"
        "when there is none.\n"
        "\n"
        "Options:\n"
        "  --backend B  where cameras come from (S33): auto (PipeWire in a sandbox, else\n"
        "               V4L2; CAMCORE_BACKEND overrides it), v4l2, pipewire, both\n"
        "  --portal P   when PipeWire is reached through the camera portal (S35): auto\n"
        "               (in a sandbox; CAMCORE_PORTAL overrides it), never, always. The\n"
        "               tool then asks for camera access first and waits up to 120 s\n"
        "               for the answer (exit code 4 when it is refused)\n"
        "  --json       machine-readable output (one JSON document; `monitor` prints\n"
        "               one JSON object per line)\n"
        "  -h, --help   this help\n"
        "  --version    the tool's and the library's version\n"
        "\n"
        "Exit codes: 0 ok, 1 operation failed, 2 bad command line or value,\n"
        "            3 no such camera (or it went away), 4 camera busy or no permission.\n");
}

int main(int argc, char **argv)
{
    const char *command = NULL;
    char **args;
    int nargs = 0, i, rc;

    args = calloc((size_t)argc + 1, sizeof *args);
    if (args == NULL)
        return EXIT_FAILED;
    /* Global options may come anywhere; the first other word is the command. */
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) {
            g_json = 1;
        } else if (!strcmp(argv[i], "--backend") || !strncmp(argv[i], "--backend=", 10)) {
            static const char *const names[] = { "auto", "v4l2", "pipewire", "both" };
            const char *v = argv[i][9] == '=' ? argv[i] + 10 : (i + 1 < argc ? argv[++i] : "");
            int k;
            for (k = 0; k < 4 && strcmp(v, names[k]) != 0; k++)
                ;
            if (k == 4) {
                free(args);
                return usage_error("--backend '%s': one of auto, v4l2, pipewire, both", v);
            }
            g_backend = k;
        } else if (!strcmp(argv[i], "--portal") || !strncmp(argv[i], "--portal=", 9)) {
            static const char *const names[] = { "auto", "never", "always" };
            const char *v = argv[i][8] == '=' ? argv[i] + 9 : (i + 1 < argc ? argv[++i] : "");
            int k;
            for (k = 0; k < 3 && strcmp(v, names[k]) != 0; k++)
                ;
            if (k == 3) {
                free(args);
                return usage_error("--portal '%s': one of auto, never, always", v);
            }
            g_portal = k;
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help") || !strcmp(argv[i], "help")) {
            usage(stdout);
            free(args);
            return EXIT_OK;
        } else if (!strcmp(argv[i], "--version")) {
            printf(PROGRAM " %d.%d.%d, libcamcore %s\n", CAMCORE_VERSION_MAJOR, CAMCORE_VERSION_MINOR,
                   CAMCORE_VERSION_PATCH, camcore_version_string());
            free(args);
            return EXIT_OK;
        } else if (command == NULL && argv[i][0] != '-') {
            command = argv[i];
        } else if (command == NULL) {
            free(args);
            return usage_error("unknown option '%s' (a COMMAND comes first)", argv[i]);
        } else {
            args[nargs++] = argv[i];
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (command == NULL) {
        usage(stderr);
        rc = EXIT_USAGE;
    } else if (!strcmp(command, "list")) {
        rc = cmd_list(nargs, args);
    } else if (!strcmp(command, "formats")) {
        rc = cmd_formats(nargs, args);
    } else if (!strcmp(command, "capture")) {
        rc = cmd_capture(nargs, args);
    } else if (!strcmp(command, "monitor")) {
        rc = cmd_monitor(nargs, args);
    } else if (!strcmp(command, "controls")) {
        rc = cmd_controls(nargs, args);
    } else {
        rc = usage_error("unknown command '%s' (list, formats, capture, monitor, controls)", command);
    }
    free(args);
    return rc;
}
