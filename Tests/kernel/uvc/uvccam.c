// SPDX-License-Identifier: MIT
/*
 * uvccam: an emulated USB UVC 1.1 webcam for the kernel tests.
 *
 * This program IS the USB device. It attaches itself to the kernel's USB/IP
 * virtual host controller (vhci_hcd) through an AF_UNIX socket pair and
 * answers the URBs the kernel sends (USBIP_CMD_SUBMIT / USBIP_CMD_UNLINK,
 * Documentation/usb/usbip_protocol.rst), so the kernel's real uvcvideo
 * driver binds it like any high-speed webcam: descriptors, UVC class
 * requests on the camera terminal and processing unit, probe/commit, and
 * video payloads over a bulk or an isochronous IN endpoint.
 *
 * Run as root in the test guest after `modprobe vhci-hcd uvcvideo`:
 *
 *   uvccam [--vid 0x1d6b] [--pid 0x0102] [--serial S | --no-serial]
 *          [--product NAME] [--manufacturer NAME] [--iso] [--port N]
 *          [--ctl /path/socket] [--pts] [--jpeg-quality Q] [--ir]
 *
 * --ir adds a second video function to the same USB device, as face-login
 * laptop cameras have: interfaces 2 (VideoControl) and 3 (VideoStreaming)
 * of an infrared camera that offers only 8-bit greyscale (Y800, which
 * uvcvideo calls GREY) 640x480 on its own bulk IN endpoint 0x82, with its
 * own probe/commit state and stream (see the "IR function" parts below).
 *
 * It prints "uvccam: attached port=N devid=D" once attached. With --ctl it
 * listens on a unix stream socket for one-line text commands (answer "OK
 * ..." or "ERR ..."), see ctl_command(): status, err N, short N, stall S,
 * noeof N, nofid N, ctlstall ENTITY SEL REQ [CODE [COUNT]] | ctlstall off,
 * unplug, detach, plug [PORT], quit. SIGTERM/SIGINT detach cleanly.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <turbojpeg.h>
#include <unistd.h>

#define VHCI "/sys/devices/platform/vhci_hcd.0"

/* ---------------------------------------------------------------- options */

static struct {
    unsigned vid, pid, bcd;
    char serial[64];
    int has_serial;
    char product[64], manufacturer[64];
    int iso;
    int port;          /* -1: first free high-speed port */
    const char *ctl;
    int hl;            /* payload header length: 2, or 12 with PTS/SCR */
    int quality;
    int verbose;
    int ir;            /* --ir: a second (infrared, greyscale) video function */
} opt = { 0x1d6b, 0x0102, 0x0100, "", 0, "UVC Test Camera", "camcore tests", 0, -1, NULL, 2, 85, 0, 0 };

static void logf_(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "uvccam[%d]: ", (int)getpid());
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}
#define LOG(...) logf_(__VA_ARGS__)
#define DBG(...) do { if (opt.verbose) logf_(__VA_ARGS__); } while (0)

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------ descriptors */

/* Frame sizes and intervals (100 ns units). YUYV is bandwidth-bound like a
 * real USB 2.0 camera: 1280x720 at most 10 fps, 1920x1080 at most 5 fps. */
struct frame_desc { int w, h, n; uint32_t iv[6]; };
struct format_desc { int mjpeg; int nframes; struct frame_desc fr[3]; };
static const struct format_desc formats[2] = {
    { 0, 3, { { 640, 480, 5, { 333333, 500000, 666666, 1000000, 2000000 } },
              { 1280, 720, 2, { 1000000, 2000000 } },
              { 1920, 1080, 1, { 2000000 } } } },
    { 1, 3, { { 640, 480, 4, { 333333, 500000, 666666, 1000000 } },
              { 1280, 720, 4, { 333333, 500000, 666666, 1000000 } },
              { 1920, 1080, 4, { 333333, 500000, 666666, 1000000 } } } },
};
#define NFORMATS 2

enum { CT_ID = 1, PU_ID = 2, OT_ID = 3 };
#define EP_IN 0x81

/* The IR function (--ir): interfaces 2 and 3, its own IAD, one greyscale
 * format, bulk endpoint 0x82. Its entity ids repeat the colour function's
 * (uvcvideo makes each VideoControl interface a device of its own). */
#define IR_VC_INTF 2
#define IR_VS_INTF 3
#define IR_EP_IN 0x82
#define IR_W 640
#define IR_H 480
#define IR_FRAME_BYTES ((uint32_t)IR_W * IR_H)
#define IR_STRING 4                    /* iFunction / iInterface "IR Camera" */
static const uint32_t ir_iv[2] = { 333333, 666666 };   /* 30 and 15 fps */
#define IR_NIV 2
static const unsigned iso_maxp[3] = { 0x0400, 0x0c00, 0x1400 };  /* 1x, 2x, 3x 1024 bytes */

static uint8_t dev_desc[18];
static uint8_t cfg_desc[1024];
static size_t cfg_len;

struct buf { uint8_t *p; size_t n; };
static void b1(struct buf *b, unsigned v) { b->p[b->n++] = (uint8_t)v; }
static void b2(struct buf *b, unsigned v) { b1(b, v & 0xff); b1(b, (v >> 8) & 0xff); }
static void b4(struct buf *b, uint32_t v) { b2(b, v & 0xffff); b2(b, v >> 16); }
static void put16(uint8_t *p, unsigned v) { p[0] = v & 0xff; p[1] = (v >> 8) & 0xff; }
static void put32(uint8_t *p, uint32_t v) { put16(p, v & 0xffff); put16(p + 2, v >> 16); }
static unsigned get16(const uint8_t *p) { return p[0] | (p[1] << 8); }
static uint32_t get32(const uint8_t *p) { return get16(p) | ((uint32_t)get16(p + 2) << 16); }

static uint32_t frame_bytes(int f, int i)
{
    const struct frame_desc *fr = &formats[f].fr[i];
    return (uint32_t)fr->w * fr->h * 2;
}

static void build_descriptors(void)
{
    struct buf d = { dev_desc, 0 };
    b1(&d, 18); b1(&d, 1); b2(&d, 0x0200);
    b1(&d, 0xef); b1(&d, 0x02); b1(&d, 0x01);   /* misc / IAD */
    b1(&d, 64); b2(&d, opt.vid); b2(&d, opt.pid); b2(&d, opt.bcd);
    b1(&d, 1); b1(&d, 2); b1(&d, opt.has_serial ? 3 : 0); b1(&d, 1);

    struct buf c = { cfg_desc, 0 };
    /* configuration */
    b1(&c, 9); b1(&c, 2); b2(&c, 0); b1(&c, opt.ir ? 4 : 2); b1(&c, 1); b1(&c, 0); b1(&c, 0x80); b1(&c, 250);
    /* interface association */
    b1(&c, 8); b1(&c, 0x0b); b1(&c, 0); b1(&c, 2); b1(&c, 0x0e); b1(&c, 0x03); b1(&c, 0); b1(&c, 2);
    /* VideoControl interface */
    b1(&c, 9); b1(&c, 4); b1(&c, 0); b1(&c, 0); b1(&c, 0); b1(&c, 0x0e); b1(&c, 0x01); b1(&c, 0); b1(&c, 2);
    size_t vc = c.n;
    /* VC header, UVC 1.1, one streaming interface */
    b1(&c, 13); b1(&c, 0x24); b1(&c, 0x01); b2(&c, 0x0110); b2(&c, 0); b4(&c, 48000000);
    b1(&c, 1); b1(&c, 1);
    /* camera terminal: AE mode (D1), exposure time absolute (D3), focus
     * absolute (D5), focus auto (D17) */
    b1(&c, 18); b1(&c, 0x24); b1(&c, 0x02); b1(&c, CT_ID); b2(&c, 0x0201); b1(&c, 0); b1(&c, 0);
    b2(&c, 0); b2(&c, 0); b2(&c, 0); b1(&c, 3); b1(&c, 0x2a); b1(&c, 0x00); b1(&c, 0x02);
    /* processing unit: brightness D0, contrast D1, saturation D3, WB
     * temperature D6, gain D9, power line frequency D10, WB temperature auto D12 */
    b1(&c, 12); b1(&c, 0x24); b1(&c, 0x05); b1(&c, PU_ID); b1(&c, CT_ID); b2(&c, 0); b1(&c, 2);
    b1(&c, 0x4b); b1(&c, 0x16); b1(&c, 0); b1(&c, 0);
    /* output terminal (USB streaming) */
    b1(&c, 9); b1(&c, 0x24); b1(&c, 0x03); b1(&c, OT_ID); b2(&c, 0x0101); b1(&c, 0); b1(&c, PU_ID); b1(&c, 0);
    put16(cfg_desc + vc + 5, (unsigned)(c.n - vc));

    /* VideoStreaming interface, alternate setting 0 */
    b1(&c, 9); b1(&c, 4); b1(&c, 1); b1(&c, 0); b1(&c, opt.iso ? 0 : 1); b1(&c, 0x0e); b1(&c, 0x02); b1(&c, 0); b1(&c, 0);
    size_t vs = c.n;
    b1(&c, 13 + NFORMATS); b1(&c, 0x24); b1(&c, 0x01); b1(&c, NFORMATS); b2(&c, 0); b1(&c, EP_IN);
    b1(&c, 0); b1(&c, OT_ID); b1(&c, 0); b1(&c, 0); b1(&c, 0); b1(&c, 1);
    for (int f = 0; f < NFORMATS; f++) b1(&c, 0);
    for (int f = 0; f < NFORMATS; f++) {
        const struct format_desc *fd = &formats[f];
        if (!fd->mjpeg) {
            static const uint8_t yuy2[16] = { 'Y', 'U', 'Y', '2', 0x00, 0x00, 0x10, 0x00,
                                              0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71 };
            b1(&c, 27); b1(&c, 0x24); b1(&c, 0x04); b1(&c, f + 1); b1(&c, fd->nframes);
            for (int i = 0; i < 16; i++) b1(&c, yuy2[i]);
            b1(&c, 16); b1(&c, 1); b1(&c, 0); b1(&c, 0); b1(&c, 0); b1(&c, 0);
        } else {
            b1(&c, 11); b1(&c, 0x24); b1(&c, 0x06); b1(&c, f + 1); b1(&c, fd->nframes);
            b1(&c, 1); b1(&c, 1); b1(&c, 0); b1(&c, 0); b1(&c, 0); b1(&c, 0);
        }
        for (int i = 0; i < fd->nframes; i++) {
            const struct frame_desc *fr = &fd->fr[i];
            uint32_t fb = frame_bytes(f, i);
            b1(&c, 26 + 4 * fr->n); b1(&c, 0x24); b1(&c, fd->mjpeg ? 0x07 : 0x05); b1(&c, i + 1);
            b1(&c, 0); b2(&c, fr->w); b2(&c, fr->h);
            b4(&c, (uint32_t)((uint64_t)fb * 8 * 10000000 / fr->iv[fr->n - 1] / (fd->mjpeg ? 10 : 1)));
            b4(&c, (uint32_t)((uint64_t)fb * 8 * 10000000 / fr->iv[0] / (fd->mjpeg ? 10 : 1)));
            b4(&c, fb); b4(&c, fr->iv[0]); b1(&c, fr->n);
            for (int k = 0; k < fr->n; k++) b4(&c, fr->iv[k]);
        }
        /* colour matching: BT.709 primaries, BT.709 transfer, SMPTE 170M matrix */
        b1(&c, 6); b1(&c, 0x24); b1(&c, 0x0d); b1(&c, 1); b1(&c, 1); b1(&c, 4);
    }
    put16(cfg_desc + vs + 4, (unsigned)(c.n - vs));
    if (!opt.iso) {
        b1(&c, 7); b1(&c, 5); b1(&c, EP_IN); b1(&c, 0x02); b2(&c, 512); b1(&c, 0);
    } else {
        for (int a = 0; a < 3; a++) {
            b1(&c, 9); b1(&c, 4); b1(&c, 1); b1(&c, a + 1); b1(&c, 1); b1(&c, 0x0e); b1(&c, 0x02); b1(&c, 0); b1(&c, 0);
            b1(&c, 7); b1(&c, 5); b1(&c, EP_IN); b1(&c, 0x05); b2(&c, iso_maxp[a]); b1(&c, 1);
        }
    }
    if (opt.ir) {
        /* interface association: interfaces 2..3, "IR Camera" */
        b1(&c, 8); b1(&c, 0x0b); b1(&c, IR_VC_INTF); b1(&c, 2); b1(&c, 0x0e); b1(&c, 0x03); b1(&c, 0);
        b1(&c, IR_STRING);
        /* VideoControl interface 2 */
        b1(&c, 9); b1(&c, 4); b1(&c, IR_VC_INTF); b1(&c, 0); b1(&c, 0); b1(&c, 0x0e); b1(&c, 0x01); b1(&c, 0);
        b1(&c, IR_STRING);
        size_t ivc = c.n;
        /* VC header, UVC 1.1, one streaming interface: 3 */
        b1(&c, 13); b1(&c, 0x24); b1(&c, 0x01); b2(&c, 0x0110); b2(&c, 0); b4(&c, 48000000);
        b1(&c, 1); b1(&c, IR_VS_INTF);
        /* camera terminal without controls */
        b1(&c, 18); b1(&c, 0x24); b1(&c, 0x02); b1(&c, CT_ID); b2(&c, 0x0201); b1(&c, 0); b1(&c, 0);
        b2(&c, 0); b2(&c, 0); b2(&c, 0); b1(&c, 3); b1(&c, 0); b1(&c, 0); b1(&c, 0);
        /* output terminal (USB streaming), fed by the camera terminal */
        b1(&c, 9); b1(&c, 0x24); b1(&c, 0x03); b1(&c, OT_ID); b2(&c, 0x0101); b1(&c, 0); b1(&c, CT_ID); b1(&c, 0);
        put16(cfg_desc + ivc + 5, (unsigned)(c.n - ivc));
        /* VideoStreaming interface 3, bulk in every mode */
        b1(&c, 9); b1(&c, 4); b1(&c, IR_VS_INTF); b1(&c, 0); b1(&c, 1); b1(&c, 0x0e); b1(&c, 0x02); b1(&c, 0); b1(&c, 0);
        size_t ivs = c.n;
        b1(&c, 14); b1(&c, 0x24); b1(&c, 0x01); b1(&c, 1); b2(&c, 0); b1(&c, IR_EP_IN);
        b1(&c, 0); b1(&c, OT_ID); b1(&c, 0); b1(&c, 0); b1(&c, 0); b1(&c, 1); b1(&c, 0);
        static const uint8_t y800[16] = { 'Y', '8', '0', '0', 0x00, 0x00, 0x10, 0x00,
                                          0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71 };
        b1(&c, 27); b1(&c, 0x24); b1(&c, 0x04); b1(&c, 1); b1(&c, 1);
        for (int i = 0; i < 16; i++) b1(&c, y800[i]);
        b1(&c, 8); b1(&c, 1); b1(&c, 0); b1(&c, 0); b1(&c, 0); b1(&c, 0);
        b1(&c, 26 + 4 * IR_NIV); b1(&c, 0x24); b1(&c, 0x05); b1(&c, 1);
        b1(&c, 0); b2(&c, IR_W); b2(&c, IR_H);
        b4(&c, (uint32_t)((uint64_t)IR_FRAME_BYTES * 8 * 10000000 / ir_iv[IR_NIV - 1]));
        b4(&c, (uint32_t)((uint64_t)IR_FRAME_BYTES * 8 * 10000000 / ir_iv[0]));
        b4(&c, IR_FRAME_BYTES); b4(&c, ir_iv[0]); b1(&c, IR_NIV);
        for (int k = 0; k < IR_NIV; k++) b4(&c, ir_iv[k]);
        put16(cfg_desc + ivs + 4, (unsigned)(c.n - ivs));
        b1(&c, 7); b1(&c, 5); b1(&c, IR_EP_IN); b1(&c, 0x02); b2(&c, 512); b1(&c, 0);
    }
    put16(cfg_desc + 2, (unsigned)c.n);
    cfg_len = c.n;
}

static size_t string_desc(int idx, uint8_t *out)
{
    const char *s;
    if (idx == 0) { out[0] = 4; out[1] = 3; put16(out + 2, 0x0409); return 4; }
    if (idx == 1) s = opt.manufacturer;
    else if (idx == 2) s = opt.product;
    else if (idx == 3 && opt.has_serial) s = opt.serial;
    else if (idx == IR_STRING && opt.ir) s = "IR Camera";
    else return 0;
    size_t n = strlen(s);
    if (n > 126) n = 126;
    out[0] = (uint8_t)(2 + 2 * n); out[1] = 3;
    for (size_t i = 0; i < n; i++) { out[2 + 2 * i] = (uint8_t)s[i]; out[3 + 2 * i] = 0; }
    return 2 + 2 * n;
}

/* --------------------------------------------------------------- controls */

enum { SET_CUR = 0x01, GET_CUR = 0x81, GET_MIN = 0x82, GET_MAX = 0x83, GET_RES = 0x84,
       GET_LEN = 0x85, GET_INFO = 0x86, GET_DEF = 0x87 };

struct ctrl {
    const char *name;
    uint8_t unit, sel, size, is_signed;
    int32_t min, max, res, def, cur;
};
static struct ctrl ctrls[] = {
    { "ae_mode", CT_ID, 0x02, 1, 0, 1, 8, 0x09, 8, 8 },        /* manual | aperture priority */
    { "exposure_time_absolute", CT_ID, 0x04, 4, 0, 3, 2047, 1, 250, 250 },
    { "focus_absolute", CT_ID, 0x06, 2, 0, 0, 250, 5, 100, 100 },
    { "focus_auto", CT_ID, 0x08, 1, 0, 0, 1, 1, 1, 1 },
    { "brightness", PU_ID, 0x02, 2, 1, -64, 64, 1, 0, 0 },
    { "contrast", PU_ID, 0x03, 2, 0, 0, 95, 1, 32, 32 },
    { "gain", PU_ID, 0x04, 2, 0, 0, 100, 1, 0, 0 },
    { "power_line_frequency", PU_ID, 0x05, 1, 0, 0, 2, 1, 1, 1 },
    { "saturation", PU_ID, 0x07, 2, 0, 0, 100, 1, 64, 64 },
    { "white_balance_temperature", PU_ID, 0x0a, 2, 0, 2800, 6500, 10, 4600, 4600 },
    { "white_balance_temperature_auto", PU_ID, 0x0b, 1, 0, 0, 1, 1, 1, 1 },
};
#define NCTRLS (sizeof ctrls / sizeof ctrls[0])

static struct ctrl *find_ctrl(unsigned unit, unsigned sel)
{
    for (size_t i = 0; i < NCTRLS; i++)
        if (ctrls[i].unit == unit && ctrls[i].sel == sel) return &ctrls[i];
    return NULL;
}
static int32_t ctrl_cur(const char *name)
{
    for (size_t i = 0; i < NCTRLS; i++)
        if (!strcmp(ctrls[i].name, name)) return ctrls[i].cur;
    return 0;
}

/* Disabled while its automatic mode runs, as real cameras do. */
static int ctrl_locked(const struct ctrl *c)
{
    if (c->unit == PU_ID && c->sel == 0x0a) return ctrl_cur("white_balance_temperature_auto") != 0;
    if (c->unit == CT_ID && c->sel == 0x06) return ctrl_cur("focus_auto") != 0;
    if (c->unit == CT_ID && c->sel == 0x04) {
        int32_t m = ctrl_cur("ae_mode");
        return !(m == 1 || m == 4);
    }
    return 0;
}

/* Fault: STALL a given control request. entity 255 = the VS interface. */
static struct { int on; unsigned entity, sel, req, code; int count; } ctl_stall;
static uint8_t request_error = 0;   /* VC_REQUEST_ERROR_CODE_CONTROL */

/* ---------------------------------------------------------- probe/commit */

static uint8_t probe[34], commit_[34];

static int nearest_interval(const struct frame_desc *fr, uint32_t want)
{
    int best = 0;
    uint64_t bd = UINT64_MAX;
    for (int k = 0; k < fr->n; k++) {
        uint64_t d = fr->iv[k] > want ? fr->iv[k] - want : want - fr->iv[k];
        if (d < bd) { bd = d; best = k; }
    }
    return best;
}

/* Fills a probe structure for (format, frame, interval) the way a camera
 * answers: valid indices, a supported interval, sizes and payload size. */
static void fill_probe(uint8_t *p, int fmt, int frm, uint32_t iv)
{
    if (fmt < 1 || fmt > NFORMATS) fmt = 1;
    const struct format_desc *fd = &formats[fmt - 1];
    if (frm < 1 || frm > fd->nframes) frm = 1;
    const struct frame_desc *fr = &fd->fr[frm - 1];
    if (iv == 0) iv = fr->iv[0];
    iv = fr->iv[nearest_interval(fr, iv)];
    uint32_t fb = frame_bytes(fmt - 1, frm - 1);
    uint32_t payload = 16384;
    if (opt.iso) {
        uint64_t need = (uint64_t)fb * 10000000 / iv / 8000 + (uint64_t)opt.hl;
        if (fd->mjpeg) need /= 2;
        payload = 3072;
        for (int a = 0; a < 3; a++) {
            unsigned m = iso_maxp[a];
            unsigned psize = (m & 0x7ff) * (1 + ((m >> 11) & 3));
            if (psize >= need) { payload = psize; break; }
        }
    }
    memset(p, 0, 34);
    put16(p + 0, 1);              /* bmHint: dwFrameInterval fixed */
    p[2] = (uint8_t)fmt; p[3] = (uint8_t)frm;
    put32(p + 4, iv);
    put16(p + 8, 0); put16(p + 10, 0); put16(p + 12, fd->mjpeg ? 5000 : 0); put16(p + 14, 0);
    put16(p + 16, 0);
    put32(p + 18, fb);
    put32(p + 22, payload);
    put32(p + 26, 48000000);
    p[30] = 0x03; p[31] = 1; p[32] = 1; p[33] = 1;
}

/* The IR function's probe/commit state, apart from the colour function's:
 * always format 1 frame 1 (GREY 640x480), the nearest of its intervals. */
static uint8_t ir_probe[34], ir_commit[34];
static uint8_t ir_request_error = 0;    /* interface 2's VC_REQUEST_ERROR_CODE_CONTROL */

static void fill_ir_probe(uint8_t *p, uint32_t iv)
{
    int best = 0;
    uint64_t bd = UINT64_MAX;
    if (iv == 0) iv = ir_iv[0];
    for (int k = 0; k < IR_NIV; k++) {
        uint64_t d = ir_iv[k] > iv ? ir_iv[k] - iv : iv - ir_iv[k];
        if (d < bd) { bd = d; best = k; }
    }
    memset(p, 0, 34);
    put16(p + 0, 1);              /* bmHint: dwFrameInterval fixed */
    p[2] = 1; p[3] = 1;
    put32(p + 4, ir_iv[best]);
    put32(p + 18, IR_FRAME_BYTES);
    put32(p + 22, 16384);         /* dwMaxPayloadTransferSize, as the colour function's bulk */
    put32(p + 26, 48000000);
    p[30] = 0x03; p[31] = 1; p[32] = 1; p[33] = 1;
}

/* ------------------------------------------------------------------ frames */

static const uint8_t BAR_RGB[8][3] = {
    { 191, 191, 191 }, { 191, 191, 0 }, { 0, 191, 191 }, { 0, 191, 0 },
    { 191, 0, 191 }, { 191, 0, 0 }, { 0, 0, 191 }, { 0, 0, 0 },
};
static void rgb2yuv(const uint8_t *rgb, uint8_t *y, uint8_t *u, uint8_t *v)
{
    double r = rgb[0], g = rgb[1], b = rgb[2];
    *y = (uint8_t)(16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255.0 + 0.5);
    *u = (uint8_t)(128 + (-37.797 * r - 74.203 * g + 112.0 * b) / 255.0 + 0.5);
    *v = (uint8_t)(128 + (112.0 * r - 93.786 * g - 18.214 * b) / 255.0 + 0.5);
}

/* The frame counter: 32 bits, MSB first, as 16x16 blocks in rows 16..31
 * from x = 0; white (luma 235) for 1, black (16) for 0. */
#define CNT_Y0 16
#define CNT_H 16
#define CNT_W 16

static void draw_yuyv(uint8_t *img, int w, int h, uint32_t counter, int full)
{
    if (full) {
        for (int x = 0; x < w; x += 2) {
            uint8_t y, u, v;
            rgb2yuv(BAR_RGB[x * 8 / w], &y, &u, &v);
            uint8_t *p = img + 2 * x;
            p[0] = y; p[1] = u; p[2] = y; p[3] = v;
        }
        for (int r = 1; r < h; r++) memcpy(img + (size_t)r * w * 2, img, (size_t)w * 2);
    }
    for (int r = CNT_Y0; r < CNT_Y0 + CNT_H && r < h; r++) {
        uint8_t *row = img + (size_t)r * w * 2;
        for (int bit = 0; bit < 32 && (bit + 1) * CNT_W <= w; bit++) {
            uint8_t yv = (counter >> (31 - bit)) & 1 ? 235 : 16;
            for (int x = bit * CNT_W; x < (bit + 1) * CNT_W; x++) {
                row[2 * x] = yv; row[2 * x + 1] = 128;
            }
        }
    }
}

/* The IR picture (GREY, one byte a pixel): the luma of the colour bars, with
 * the same counter blocks (235 for 1, 16 for 0) in rows 16..31. */
static void draw_grey(uint8_t *img, int w, int h, uint32_t counter, int full)
{
    if (full) {
        for (int x = 0; x < w; x++) {
            uint8_t y, u, v;
            rgb2yuv(BAR_RGB[x * 8 / w], &y, &u, &v);
            img[x] = y;
        }
        for (int r = 1; r < h; r++) memcpy(img + (size_t)r * w, img, (size_t)w);
    }
    for (int r = CNT_Y0; r < CNT_Y0 + CNT_H && r < h; r++)
        for (int bit = 0; bit < 32 && (bit + 1) * CNT_W <= w; bit++)
            memset(img + (size_t)r * w + bit * CNT_W, (counter >> (31 - bit)) & 1 ? 235 : 16, CNT_W);
}

#define JPEG_VARIANTS 4
struct frames_cache {
    uint8_t *yuyv;      /* the current YUYV frame (bars drawn once) */
    uint8_t *jpeg[JPEG_VARIANTS];
    unsigned long jpeg_len[JPEG_VARIANTS];
};
static struct frames_cache cache[NFORMATS][3];

static int prepare_frames(int f, int i)
{
    const struct frame_desc *fr = &formats[f].fr[i];
    struct frames_cache *fc = &cache[f][i];
    if (!formats[f].mjpeg) {
        if (!fc->yuyv) {
            fc->yuyv = malloc(frame_bytes(f, i));
            if (!fc->yuyv) return -1;
            draw_yuyv(fc->yuyv, fr->w, fr->h, 0, 1);
        }
        return 0;
    }
    if (fc->jpeg[0]) return 0;
    uint64_t t0 = now_ns();
    size_t n = (size_t)fr->w * fr->h * 3;
    uint8_t *rgb = malloc(n);
    tjhandle tj = tjInitCompress();
    if (!rgb || !tj) { free(rgb); return -1; }
    for (int x = 0; x < fr->w; x++) memcpy(rgb + 3 * x, BAR_RGB[x * 8 / fr->w], 3);
    for (int r = 1; r < fr->h; r++) memcpy(rgb + (size_t)r * fr->w * 3, rgb, (size_t)fr->w * 3);
    for (int k = 0; k < JPEG_VARIANTS; k++) {
        for (int r = CNT_Y0; r < CNT_Y0 + CNT_H; r++)
            for (int bit = 0; bit < 32; bit++) {
                uint8_t c = ((uint32_t)k >> (31 - bit)) & 1 ? 255 : 0;
                memset(rgb + ((size_t)r * fr->w + bit * CNT_W) * 3, c, CNT_W * 3);
            }
        fc->jpeg[k] = NULL;
        fc->jpeg_len[k] = 0;
        if (tjCompress2(tj, rgb, fr->w, 0, fr->h, TJPF_RGB, &fc->jpeg[k], &fc->jpeg_len[k],
                        TJSAMP_422, opt.quality, 0) != 0) {
            LOG("tjCompress2: %s", tjGetErrorStr());
            tjDestroy(tj); free(rgb);
            return -1;
        }
    }
    tjDestroy(tj);
    free(rgb);
    LOG("encoded %d JPEG frames %dx%d (%lu bytes) in %.0f ms", JPEG_VARIANTS, fr->w, fr->h,
        fc->jpeg_len[0], (now_ns() - t0) / 1e6);
    return 0;
}

/* ------------------------------------------------------------- the device */

static int usb_fd = -1;       /* our end of the USB/IP connection */
static int cur_port = -1;
static uint32_t devid;
static int configured, vs_alt;

struct isod { uint32_t offset, length, actual, status; };
struct pend { uint32_t seq, len, np; struct isod *iso; };
#define QMAX 64
static struct pend q[QMAX];
static int qhead, qcount;
static uint32_t max_submit_seq;                          /* see send_ret_unlink() */
static struct { uint32_t seq, victim; } deferred[16];   /* unlinks awaiting their submit */
static int ndeferred;

static struct {
    int on;
    int fmt, frm;            /* 0-based */
    uint64_t interval_ns;
    uint64_t next_ns;
    uint8_t fid;
    const uint8_t *data;
    size_t len, off;
    int active;
    int eof, err;            /* flags of the current frame */
    uint32_t count;          /* frames started since the program began */
    uint32_t payload;        /* dwMaxPayloadTransferSize */
} st;

/* faults, armed by the control socket */
static struct { int err, shortf, noeof, nofid; uint64_t stall_until; } fault;

/* The IR function's stream (--ir): bulk IN 0x82, its own URB queue, no faults. */
static struct {
    int on;
    uint64_t interval_ns;
    uint64_t next_ns;
    uint8_t fid;
    int active;
    size_t off;
    uint32_t count;          /* IR frames started since the program began */
    uint32_t payload;
    uint8_t *img;
} ir;
static struct pend ir_q[QMAX];
static int ir_qhead, ir_qcount;

static void ir_stream_stop(const char *why)
{
    if (ir.on) DBG("IR stream off (%s) after %u frames", why, ir.count);
    ir.on = 0;
    ir.active = 0;
}

static void ir_stream_start(const uint8_t *c)
{
    uint32_t iv = get32(c + 4);
    if (!iv) iv = ir_iv[0];
    ir.interval_ns = (uint64_t)iv * 100;
    ir.payload = get32(c + 22);
    if (!ir.img) {
        ir.img = malloc(IR_FRAME_BYTES);
        if (!ir.img) { LOG("cannot prepare IR frames"); return; }
        draw_grey(ir.img, IR_W, IR_H, 0, 1);
    }
    ir.on = 1;
    ir.active = 0;
    ir.next_ns = 0;
    DBG("IR stream on: GREY %dx%d interval %u payload %u", IR_W, IR_H, iv, ir.payload);
}

static void stream_stop(const char *why)
{
    if (st.on) DBG("stream off (%s) after %u frames", why, st.count);
    st.on = 0;
    st.active = 0;
}

static void stream_start(const uint8_t *c)
{
    int fmt = c[2], frm = c[3];
    if (fmt < 1 || fmt > NFORMATS) fmt = 1;
    if (frm < 1 || frm > formats[fmt - 1].nframes) frm = 1;
    st.fmt = fmt - 1;
    st.frm = frm - 1;
    uint32_t iv = get32(c + 4);
    if (!iv) iv = formats[st.fmt].fr[st.frm].iv[0];
    st.interval_ns = (uint64_t)iv * 100;
    st.payload = get32(c + 22);
    if (prepare_frames(st.fmt, st.frm) != 0) { LOG("cannot prepare frames"); return; }
    st.on = 1;
    st.active = 0;
    st.next_ns = 0;
    DBG("stream on: format %d frame %d interval %u payload %u", fmt, frm, iv, st.payload);
}

static int write_all(int fd, struct iovec *iov, int n)
{
    while (n > 0) {
        ssize_t w = writev(fd, iov, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        while (n > 0 && (size_t)w >= iov->iov_len) { w -= (ssize_t)iov->iov_len; iov++; n--; }
        if (n > 0) { iov->iov_base = (uint8_t *)iov->iov_base + w; iov->iov_len -= (size_t)w; }
    }
    return 0;
}

static int read_all(int fd, void *p, size_t n)
{
    uint8_t *b = p;
    while (n > 0) {
        ssize_t r = read(fd, b, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        b += r; n -= (size_t)r;
    }
    return 0;
}

static void be32w(uint8_t *p, uint32_t v) { p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v; }
static uint32_t be32r(const uint8_t *p) { return ((uint32_t)p[0] << 24) | (p[1] << 16) | (p[2] << 8) | p[3]; }

static void device_gone(void);

/* `len` bytes of IN data follow the header; `actual` is the URB's
 * actual_length (an OUT transfer sends no data back). */
static int send_ret_submit2(uint32_t seq, int32_t status, const uint8_t *data, uint32_t len,
                            uint32_t actual, uint32_t np, struct isod *iso)
{
    uint8_t h[48] = { 0 };
    be32w(h, 3); be32w(h + 4, seq);
    be32w(h + 20, (uint32_t)status); be32w(h + 24, actual);
    be32w(h + 32, np);
    struct iovec iov[3];
    int n = 0;
    iov[n++] = (struct iovec){ h, 48 };
    if (len) iov[n++] = (struct iovec){ (void *)data, len };
    uint8_t *isob = NULL;
    if (np) {
        isob = malloc(16 * (size_t)np);
        for (uint32_t i = 0; i < np; i++) {
            be32w(isob + 16 * i, iso[i].offset); be32w(isob + 16 * i + 4, iso[i].length);
            be32w(isob + 16 * i + 8, iso[i].actual); be32w(isob + 16 * i + 12, iso[i].status);
        }
        iov[n++] = (struct iovec){ isob, 16 * (size_t)np };
    }
    int r = write_all(usb_fd, iov, n);
    free(isob);
    if (r < 0) { LOG("write to vhci: %s", strerror(errno)); device_gone(); }
    return r;
}

static int send_ret_submit(uint32_t seq, int32_t status, const uint8_t *data, uint32_t len,
                           uint32_t np, struct isod *iso)
{
    return send_ret_submit2(seq, status, data, len, len, np, iso);
}

/* A class request to the IR function's interfaces (2 VideoControl, 3
 * VideoStreaming). Returns the number of IN bytes in `in`, or -1 for a STALL. */
static int ir_control(unsigned req, unsigned intf, unsigned entity, unsigned sel, unsigned wlen,
                      const uint8_t *out, uint8_t *in)
{
    int n;
    if (intf == IR_VC_INTF && entity == 0) {   /* the VideoControl interface itself */
        if (sel == 0x02 && req == GET_CUR) { in[0] = ir_request_error; return 1; }
        if (sel == 0x01 && req == GET_CUR) { in[0] = 0; ir_request_error = 0; return 1; }
        if (req == GET_INFO) { in[0] = 0x01; return 1; }
        ir_request_error = 6;
        return -1;
    }
    if (intf == IR_VC_INTF) {                   /* its terminals have no controls */
        ir_request_error = entity == CT_ID || entity == OT_ID ? 6 : 5;
        return -1;
    }
    if (intf != IR_VS_INTF || entity != 0) return -1;
    if (sel != 1 && sel != 2) { ir_request_error = 6; return -1; }
    uint8_t *cur = sel == 1 ? ir_probe : ir_commit;
    uint8_t tmp[34];
    n = (int)(wlen < 34 ? wlen : 34);
    switch (req) {
    case SET_CUR:
        if (wlen < 26) { ir_request_error = 8; return -1; }
        memset(tmp, 0, sizeof tmp);
        memcpy(tmp, out, n);
        fill_ir_probe(cur, get32(tmp + 4));
        DBG("IR SET_CUR %s: format %u frame %u interval %u", sel == 1 ? "probe" : "commit",
            cur[2], cur[3], get32(cur + 4));
        if (sel == 2) ir_stream_start(ir_commit);
        ir_request_error = 0;
        return 0;
    case GET_CUR: memcpy(in, cur, n); break;
    case GET_DEF: fill_ir_probe(tmp, 0); memcpy(in, tmp, n); break;
    case GET_MIN: case GET_MAX:
        fill_ir_probe(tmp, req == GET_MIN ? ir_iv[0] : ir_iv[IR_NIV - 1]);
        memcpy(in, tmp, n);
        break;
    case GET_RES: memset(in, 0, n); break;
    case GET_LEN: put16(in, 34); n = 2; break;
    case GET_INFO: in[0] = 0x03; n = 1; break;
    default: ir_request_error = 7; return -1;
    }
    ir_request_error = 0;
    return n;
}

/* Handles one control transfer. Returns the number of IN bytes in `in`,
 * or -1 for a STALL. */
static int control(const uint8_t *s, const uint8_t *out, uint8_t *in)
{
    unsigned rt = s[0], req = s[1], val = get16(s + 2), idx = get16(s + 4), wlen = get16(s + 6);
    int n;
    if ((rt & 0x60) == 0x00) {          /* standard */
        switch (req) {
        case 0x06:                      /* GET_DESCRIPTOR */
            switch (val >> 8) {
            case 1: memcpy(in, dev_desc, 18); n = 18; break;
            case 2: memcpy(in, cfg_desc, cfg_len); n = (int)cfg_len; break;
            case 3: n = (int)string_desc(val & 0xff, in); if (!n) return -1; break;
            default: return -1;
            }
            return n < (int)wlen ? n : (int)wlen;
        case 0x09: configured = val; DBG("SET_CONFIGURATION %u", val); return 0;
        case 0x08: in[0] = (uint8_t)configured; return 1;
        case 0x00: in[0] = 0; in[1] = 0; return wlen < 2 ? (int)wlen : 2;
        case 0x0b:                      /* SET_INTERFACE */
            DBG("SET_INTERFACE %u alt %u", idx, val);
            if (idx == 1) {
                if (val > (opt.iso ? 3u : 0u)) return -1;
                vs_alt = (int)val;
                if (opt.iso) {
                    if (val) stream_start(commit_); else stream_stop("alt 0");
                }
            } else if (val != 0) {
                return -1;
            }
            return 0;
        case 0x0a: in[0] = (uint8_t)(idx == 1 ? vs_alt : 0); return 1;
        case 0x01:                      /* CLEAR_FEATURE */
            if ((rt & 0x1f) == 2 && val == 0 && (idx & 0xff) == EP_IN) {
                DBG("CLEAR_FEATURE(HALT) ep 0x%02x", idx);
                if (!opt.iso) stream_stop("clear halt");
            } else if (opt.ir && (rt & 0x1f) == 2 && val == 0 && (idx & 0xff) == IR_EP_IN) {
                DBG("CLEAR_FEATURE(HALT) ep 0x%02x", idx);
                ir_stream_stop("clear halt");
            }
            return 0;
        case 0x03: return 0;            /* SET_FEATURE */
        default: return -1;
        }
    }
    if ((rt & 0x60) != 0x20 || (rt & 0x1f) != 1) return -1;  /* class, to an interface */
    unsigned intf = idx & 0xff, entity = idx >> 8, sel = val >> 8;
    if (opt.ir && (intf == IR_VC_INTF || intf == IR_VS_INTF))
        return ir_control(req, intf, entity, sel, wlen, out, in);
    unsigned ent_key = intf == 1 ? 255 : entity;
    if (ctl_stall.on && ctl_stall.entity == ent_key && ctl_stall.sel == sel &&
        (ctl_stall.req == 0 || ctl_stall.req == req)) {
        DBG("fault: STALL request 0x%02x to entity %u selector %u", req, ent_key, sel);
        request_error = (uint8_t)ctl_stall.code;
        if (ctl_stall.count > 0 && --ctl_stall.count == 0) ctl_stall.on = 0;
        return -1;
    }
    if (intf == 0 && entity == 0) {     /* the VideoControl interface itself */
        if (sel == 0x02 && req == GET_CUR) { in[0] = request_error; return 1; }
        if (sel == 0x01 && req == GET_CUR) { in[0] = 0; request_error = 0; return 1; }
        if (req == GET_INFO) { in[0] = 0x01; return 1; }
        request_error = 6;
        return -1;
    }
    if (intf == 1 && entity == 0) {     /* probe / commit */
        if (sel != 1 && sel != 2) { request_error = 6; return -1; }
        uint8_t *cur = sel == 1 ? probe : commit_;
        uint8_t tmp[34];
        n = (int)(wlen < 34 ? wlen : 34);
        switch (req) {
        case SET_CUR:
            if (wlen < 26) { request_error = 8; return -1; }
            memset(tmp, 0, sizeof tmp);
            memcpy(tmp, out, n);
            fill_probe(cur, tmp[2], tmp[3], get32(tmp + 4));
            DBG("SET_CUR %s: format %u frame %u interval %u", sel == 1 ? "probe" : "commit",
                cur[2], cur[3], get32(cur + 4));
            if (sel == 2 && !opt.iso) stream_start(commit_);
            request_error = 0;
            return 0;
        case GET_CUR: memcpy(in, cur, n); break;
        case GET_DEF: fill_probe(tmp, 1, 1, 0); memcpy(in, tmp, n); break;
        case GET_MIN: case GET_MAX: {
            const struct frame_desc *fr = &formats[(probe[2] ? probe[2] : 1) - 1].fr[(probe[3] ? probe[3] : 1) - 1];
            fill_probe(tmp, probe[2], probe[3], req == GET_MIN ? fr->iv[0] : fr->iv[fr->n - 1]);
            memcpy(in, tmp, n);
            break;
        }
        case GET_RES: memset(in, 0, n); break;
        case GET_LEN: put16(in, 34); n = 2; break;
        case GET_INFO: in[0] = 0x03; n = 1; break;
        default: request_error = 7; return -1;
        }
        request_error = 0;
        return n;
    }
    if (intf != 0) return -1;
    struct ctrl *c = find_ctrl(entity, sel);
    if (!c) { request_error = entity == CT_ID || entity == PU_ID ? 6 : 5; return -1; }
    int32_t v;
    switch (req) {
    case SET_CUR:
        if (wlen != c->size) { request_error = 8; return -1; }
        v = 0;
        for (int i = 0; i < c->size; i++) v |= (int32_t)((uint32_t)out[i] << (8 * i));
        if (c->is_signed && c->size == 2) v = (int16_t)v;
        if (ctrl_locked(c)) {
            DBG("SET_CUR %s=%d refused: its auto mode is on", c->name, v);
            request_error = 2;          /* wrong state */
            return -1;
        }
        if (c->sel == 0x02 && c->unit == CT_ID ? !(v & c->res) || (v & (v - 1))
                                              : (v < c->min || v > c->max)) {
            request_error = 4;          /* out of range */
            return -1;
        }
        c->cur = v;
        DBG("SET_CUR %s=%d", c->name, v);
        request_error = 0;
        return 0;
    case GET_CUR: v = c->cur; break;
    case GET_MIN: v = c->min; break;
    case GET_MAX: v = c->max; break;
    case GET_RES: v = c->res; break;
    case GET_DEF: v = c->def; break;
    case GET_INFO: in[0] = 0x03 | (ctrl_locked(c) ? 0x04 : 0); request_error = 0; return 1;
    case GET_LEN: put16(in, c->size); request_error = 0; return 2;
    default: request_error = 7; return -1;
    }
    for (int i = 0; i < c->size; i++) in[i] = (uint8_t)((uint32_t)v >> (8 * i));
    request_error = 0;
    return c->size < (int)wlen ? c->size : (int)wlen;
}

/* Video payloads into the pending IN URBs. */
static size_t put_header_flags(uint8_t *p, uint8_t flags)
{
    p[0] = (uint8_t)opt.hl;
    p[1] = 0x80 | flags;
    if (opt.hl == 12) {
        uint64_t t = now_ns();
        uint32_t stc = (uint32_t)(t / 1000 * 48);
        p[1] |= 0x0c;
        put32(p + 2, stc); put32(p + 6, stc); put16(p + 10, (unsigned)((t / 1000000) & 0x7ff));
    }
    return (size_t)opt.hl;
}

static size_t put_header(uint8_t *p, int last)
{
    return put_header_flags(p, (uint8_t)(st.fid | (last && st.eof ? 0x02 : 0) | (st.err ? 0x40 : 0)));
}

static void start_frame(uint64_t now)
{
    const struct format_desc *fd = &formats[st.fmt];
    const struct frame_desc *fr = &fd->fr[st.frm];
    struct frames_cache *fc = &cache[st.fmt][st.frm];
    if (!fd->mjpeg) {
        draw_yuyv(fc->yuyv, fr->w, fr->h, st.count, 0);
        st.data = fc->yuyv;
        st.len = frame_bytes(st.fmt, st.frm);
    } else {
        int k = (int)(st.count % JPEG_VARIANTS);
        st.data = fc->jpeg[k];
        st.len = fc->jpeg_len[k];
    }
    st.eof = 1;
    st.err = 0;
    if (fault.shortf > 0) { fault.shortf--; st.len /= 2; }
    if (fault.err > 0) { fault.err--; st.err = 1; }
    if (fault.noeof > 0) { fault.noeof--; st.eof = 0; }
    if (fault.nofid > 0) fault.nofid--; else st.fid ^= 1;
    st.off = 0;
    st.active = 1;
    st.count++;
    if (st.next_ns == 0 || now > st.next_ns + st.interval_ns) st.next_ns = now;
    st.next_ns += st.interval_ns;
}

static uint8_t *xbuf;
static size_t xcap;

static void fill_urb(struct pend *u)
{
    if (xcap < u->len + 64) { xcap = u->len + 64; xbuf = realloc(xbuf, xcap); }
    size_t n = 0;
    if (u->np == 0) {                   /* bulk: one payload per URB */
        size_t room = u->len;
        if (st.payload && room > st.payload) room = st.payload;
        size_t hl = (size_t)opt.hl;
        size_t data = st.len - st.off;
        if (data > room - hl) data = room - hl;
        int last = st.off + data >= st.len;
        n = put_header(xbuf, last);
        memcpy(xbuf + n, st.data + st.off, data);
        n += data;
        st.off += data;
        if (last) st.active = 0;
        send_ret_submit(u->seq, 0, xbuf, (uint32_t)n, 0, NULL);
        return;
    }
    for (uint32_t i = 0; i < u->np; i++) {  /* iso: one payload per packet */
        struct isod *d = &u->iso[i];
        d->actual = 0;
        d->status = 0;
        if (!st.active || d->length <= (uint32_t)opt.hl) continue;
        size_t data = st.len - st.off;
        if (data > d->length - (size_t)opt.hl) data = d->length - (size_t)opt.hl;
        int last = st.off + data >= st.len;
        size_t h = put_header(xbuf + n, last);
        memcpy(xbuf + n + h, st.data + st.off, data);
        st.off += data;
        d->actual = (uint32_t)(h + data);
        n += h + data;
        if (last) st.active = 0;
    }
    send_ret_submit(u->seq, 0, xbuf, (uint32_t)n, u->np, u->iso);
}

static void pump_colour(void)
{
    while (usb_fd >= 0 && st.on && qcount > 0) {
        uint64_t now = now_ns();
        if (!st.active) {
            if (now < st.next_ns || now < fault.stall_until) return;
            start_frame(now);
        }
        struct pend u = q[qhead];
        qhead = (qhead + 1) % QMAX;
        qcount--;
        fill_urb(&u);
        free(u.iso);
    }
}

static int colour_timeout_ms(void)
{
    if (usb_fd < 0 || !st.on || qcount == 0 || st.active) return -1;
    uint64_t due = st.next_ns > fault.stall_until ? st.next_ns : fault.stall_until;
    uint64_t now = now_ns();
    if (due <= now) return 0;
    return (int)((due - now) / 1000000) + 1;
}

/* The IR stream: one payload per bulk URB, GREY frames paced by the
 * committed interval, the frame counter in the picture. */
static void ir_fill_urb(struct pend *u)
{
    if (xcap < u->len + 64) { xcap = u->len + 64; xbuf = realloc(xbuf, xcap); }
    size_t room = u->len;
    if (ir.payload && room > ir.payload) room = ir.payload;
    size_t hl = (size_t)opt.hl;
    size_t data = IR_FRAME_BYTES - ir.off;
    if (room < hl + 1) data = 0;
    else if (data > room - hl) data = room - hl;
    int last = ir.off + data >= IR_FRAME_BYTES;
    size_t n = put_header_flags(xbuf, (uint8_t)(ir.fid | (last ? 0x02 : 0)));
    memcpy(xbuf + n, ir.img + ir.off, data);
    n += data;
    ir.off += data;
    if (last) ir.active = 0;
    send_ret_submit(u->seq, 0, xbuf, (uint32_t)n, 0, NULL);
}

static void pump_ir(void)
{
    while (usb_fd >= 0 && ir.on && ir_qcount > 0) {
        uint64_t now = now_ns();
        if (!ir.active) {
            if (now < ir.next_ns) return;
            draw_grey(ir.img, IR_W, IR_H, ir.count, 0);
            ir.fid ^= 1;
            ir.off = 0;
            ir.active = 1;
            ir.count++;
            if (ir.next_ns == 0 || now > ir.next_ns + ir.interval_ns) ir.next_ns = now;
            ir.next_ns += ir.interval_ns;
        }
        struct pend u = ir_q[ir_qhead];
        ir_qhead = (ir_qhead + 1) % QMAX;
        ir_qcount--;
        ir_fill_urb(&u);
        free(u.iso);
    }
}

static int ir_timeout_ms(void)
{
    if (usb_fd < 0 || !ir.on || ir_qcount == 0 || ir.active) return -1;
    uint64_t now = now_ns();
    if (ir.next_ns <= now) return 0;
    return (int)((ir.next_ns - now) / 1000000) + 1;
}

static void pump(void)
{
    pump_colour();
    if (opt.ir) pump_ir();
}

static int pump_timeout_ms(void)
{
    int a = colour_timeout_ms(), b = opt.ir ? ir_timeout_ms() : -1;
    if (a < 0) return b;
    if (b < 0) return a;
    return a < b ? a : b;
}

static void clear_queue(void)
{
    while (qcount > 0) { free(q[qhead].iso); qhead = (qhead + 1) % QMAX; qcount--; }
    qhead = 0;
    while (ir_qcount > 0) { free(ir_q[ir_qhead].iso); ir_qhead = (ir_qhead + 1) % QMAX; ir_qcount--; }
    ir_qhead = 0;
}

static void device_reset_state(void)
{
    clear_queue();
    max_submit_seq = 0;
    ndeferred = 0;
    stream_stop("unplugged");
    configured = 0;
    vs_alt = 0;
    request_error = 0;
    fill_probe(probe, 1, 1, 0);
    memcpy(commit_, probe, sizeof probe);
    ir_stream_stop("unplugged");
    ir_request_error = 0;
    fill_ir_probe(ir_probe, 0);
    memcpy(ir_commit, ir_probe, sizeof ir_probe);
}

static void device_gone(void)
{
    if (usb_fd >= 0) { close(usb_fd); usb_fd = -1; }
    device_reset_state();
    LOG("disconnected from port %d", cur_port);
}

static uint8_t *obuf;
static size_t ocap;

/* vhci_hcd can send CMD_UNLINK for an URB before that URB's CMD_SUBMIT: its
 * tx thread sends all queued submits, then all queued unlinks, and an URB
 * submitted and killed in between (uvcvideo's completion handler resubmits
 * while streaming stops) has its unlink go out first. Answering "not
 * pending" (0) then makes vhci give the URB back as completed, and the
 * RET_SUBMIT we send later for it is for an URB vhci no longer knows: it
 * drops the connection ("cannot find a urb of seqnum"). So an unlink of a
 * seqnum not seen yet waits for that submit, which is then cancelled and
 * answered by RET_UNLINK(-ECONNRESET) alone. */
static int send_ret_unlink(uint32_t seq, int32_t status)
{
    uint8_t r[48] = { 0 };
    be32w(r, 4); be32w(r + 4, seq); be32w(r + 20, (uint32_t)status);
    struct iovec iov = { r, 48 };
    if (write_all(usb_fd, &iov, 1) < 0) { device_gone(); return -1; }
    return 0;
}

/* One message from vhci. Returns -1 when the connection is gone. */
static int usb_message(void)
{
    uint8_t h[48];
    if (read_all(usb_fd, h, 48) < 0) { device_gone(); return -1; }
    uint32_t cmd = be32r(h), seq = be32r(h + 4), dir = be32r(h + 12), ep = be32r(h + 16);
    if (cmd == 2) {                     /* CMD_UNLINK */
        uint32_t victim = be32r(h + 20);
        int32_t status = 0;
        for (int i = 0; i < qcount; i++) {
            int k = (qhead + i) % QMAX;
            if (q[k].seq != victim) continue;
            free(q[k].iso);
            for (int j = i; j < qcount - 1; j++) q[(qhead + j) % QMAX] = q[(qhead + j + 1) % QMAX];
            qcount--;
            status = -ECONNRESET;
            break;
        }
        for (int i = 0; status == 0 && i < ir_qcount; i++) {
            int k = (ir_qhead + i) % QMAX;
            if (ir_q[k].seq != victim) continue;
            free(ir_q[k].iso);
            for (int j = i; j < ir_qcount - 1; j++) ir_q[(ir_qhead + j) % QMAX] = ir_q[(ir_qhead + j + 1) % QMAX];
            ir_qcount--;
            status = -ECONNRESET;
        }
        if (status == 0 && (int32_t)(victim - max_submit_seq) > 0 && ndeferred < 16) {
            DBG("unlink %u of seqnum %u before its submit: deferred", seq, victim);
            deferred[ndeferred].seq = seq;
            deferred[ndeferred].victim = victim;
            ndeferred++;
            return 0;
        }
        return send_ret_unlink(seq, status);
    }
    if (cmd != 1) { LOG("unknown USB/IP command %u", cmd); device_gone(); return -1; }
    uint32_t len = be32r(h + 24), np = be32r(h + 32);
    if (np == 0xffffffff) np = 0;
    if (dir == 0 && len) {
        if (ocap < len) { ocap = len; obuf = realloc(obuf, ocap); }
        if (read_all(usb_fd, obuf, len) < 0) { device_gone(); return -1; }
    }
    struct isod *iso = NULL;
    if (np) {
        uint8_t *raw = malloc(16 * (size_t)np);
        iso = malloc(sizeof *iso * np);
        if (read_all(usb_fd, raw, 16 * (size_t)np) < 0) { free(raw); free(iso); device_gone(); return -1; }
        for (uint32_t i = 0; i < np; i++) {
            iso[i].offset = be32r(raw + 16 * i); iso[i].length = be32r(raw + 16 * i + 4);
            iso[i].actual = 0; iso[i].status = 0;
        }
        free(raw);
    }
    if ((int32_t)(seq - max_submit_seq) > 0) max_submit_seq = seq;
    for (int i = 0; i < ndeferred; i++) {
        if (deferred[i].victim != seq) continue;
        uint32_t useq = deferred[i].seq;
        deferred[i] = deferred[--ndeferred];
        free(iso);
        return send_ret_unlink(useq, -ECONNRESET);
    }
    if (ep == 0) {
        static uint8_t in[1100];
        int n = control(h + 40, obuf, in);
        if (n < 0) return send_ret_submit(seq, -EPIPE, NULL, 0, 0, NULL);
        if (dir == 0) return send_ret_submit2(seq, 0, NULL, 0, len, 0, NULL);
        if ((uint32_t)n > len) n = (int)len;
        return send_ret_submit(seq, 0, in, (uint32_t)n, 0, NULL);
    }
    if (ep == (EP_IN & 0x0f) && dir == 1) {
        if (qcount == QMAX) { free(iso); return send_ret_submit(seq, -EPIPE, NULL, 0, 0, NULL); }
        q[(qhead + qcount) % QMAX] = (struct pend){ seq, len, np, iso };
        qcount++;
        return 0;
    }
    if (opt.ir && ep == (IR_EP_IN & 0x0f) && dir == 1) {
        if (ir_qcount == QMAX) { free(iso); return send_ret_submit(seq, -EPIPE, NULL, 0, 0, NULL); }
        ir_q[(ir_qhead + ir_qcount) % QMAX] = (struct pend){ seq, len, np, iso };
        ir_qcount++;
        return 0;
    }
    free(iso);
    return send_ret_submit(seq, -EPIPE, NULL, 0, 0, NULL);
}

/* ----------------------------------------------------------- vhci ports */

/* Status of a high-speed vhci port (4 = free), or -1. */
static int port_status(int port)
{
    FILE *f = fopen(VHCI "/status", "r");
    if (!f) return -1;
    char line[256];
    int st_ = -1;
    while (fgets(line, sizeof line, f)) {
        char hub[8];
        int p, s;
        if (sscanf(line, "%7s %d %d", hub, &p, &s) == 3 && !strcmp(hub, "hs") && p == port) st_ = s;
    }
    fclose(f);
    return st_;
}

static int attach_port(int port)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) { LOG("socketpair: %s", strerror(errno)); return -1; }
    devid = 0x00010000u | (uint32_t)(port + 2);
    char cmd[64];
    int n = snprintf(cmd, sizeof cmd, "%d %d %u %d", port, sv[1], devid, 3);
    int fd = open(VHCI "/attach", O_WRONLY);
    if (fd < 0) { LOG("open %s/attach: %s", VHCI, strerror(errno)); close(sv[0]); close(sv[1]); return -1; }
    ssize_t w = write(fd, cmd, (size_t)n);
    int e = errno;
    close(fd);
    close(sv[1]);                       /* vhci holds its own reference */
    if (w != n) { DBG("attach port %d: %s", port, strerror(e)); close(sv[0]); return -1; }
    device_reset_state();
    usb_fd = sv[0];
    cur_port = port;
    printf("uvccam: attached port=%d devid=%u\n", port, devid);
    fflush(stdout);
    LOG("attached to vhci port %d", port);
    return 0;
}

/* Attaches to `port`, or to the first free high-speed port (-1). Waits up
 * to 15 s for a port that is still being released. */
static int plug(int port)
{
    uint64_t deadline = now_ns() + 15000000000ull;
    for (;;) {
        if (port >= 0) {
            if (port_status(port) == 4 && attach_port(port) == 0) return 0;
        } else {
            for (int p = 0; p < 64; p++) {
                int s = port_status(p);
                if (s == 4 && attach_port(p) == 0) return 0;
            }
        }
        if (now_ns() > deadline) { LOG("no free vhci port%s", port >= 0 ? " (the one asked)" : ""); return -1; }
        usleep(50000);
    }
}

static int detach(void)
{
    if (usb_fd < 0) return -1;
    char cmd[16];
    int n = snprintf(cmd, sizeof cmd, "%d", cur_port);
    int fd = open(VHCI "/detach", O_WRONLY);
    int ok = fd >= 0 && write(fd, cmd, (size_t)n) == n;
    if (fd >= 0) close(fd);
    if (!ok) LOG("detach port %d: %s", cur_port, strerror(errno));
    /* vhci closes its end: drain until EOF so nothing is left half-done. */
    uint64_t deadline = now_ns() + 5000000000ull;
    while (usb_fd >= 0 && now_ns() < deadline) {
        struct pollfd p = { usb_fd, POLLIN, 0 };
        if (poll(&p, 1, 200) > 0) usb_message();
    }
    if (usb_fd >= 0) device_gone();
    return ok ? 0 : -1;
}

/* ---------------------------------------------------------- control socket */

#define MAXCLI 4
static int ctl_listen = -1;
static int cli[MAXCLI] = { -1, -1, -1, -1 };
static char clibuf[MAXCLI][512];
static size_t clilen[MAXCLI];
static volatile sig_atomic_t quit_now;

static unsigned parse_req(const char *s)
{
    static const struct { const char *n; unsigned v; } t[] = {
        { "any", 0 }, { "SET_CUR", SET_CUR }, { "GET_CUR", GET_CUR }, { "GET_MIN", GET_MIN },
        { "GET_MAX", GET_MAX }, { "GET_RES", GET_RES }, { "GET_LEN", GET_LEN },
        { "GET_INFO", GET_INFO }, { "GET_DEF", GET_DEF } };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcasecmp(s, t[i].n)) return t[i].v;
    return (unsigned)strtoul(s, NULL, 0);
}

static void ctl_command(char *line, char *out, size_t cap)
{
    char a[6][64] = { "" };
    int n = sscanf(line, "%63s %63s %63s %63s %63s %63s", a[0], a[1], a[2], a[3], a[4], a[5]);
    if (n < 1) { snprintf(out, cap, "ERR empty"); return; }
    const char *c = a[0];
    if (!strcmp(c, "status")) {
        snprintf(out, cap, "OK attached=%d port=%d configured=%d alt=%d streaming=%d format=%d frame=%d "
                 "frames=%u pending=%d", usb_fd >= 0, cur_port, configured, vs_alt, st.on,
                 st.fmt + 1, st.frm + 1, st.count, qcount);
        if (opt.ir) {
            size_t l = strlen(out);
            snprintf(out + l, cap - l, " ir_streaming=%d ir_frames=%u ir_pending=%d", ir.on, ir.count, ir_qcount);
        }
    } else if (!strcmp(c, "err") || !strcmp(c, "short") || !strcmp(c, "noeof") || !strcmp(c, "nofid")) {
        int v = n > 1 ? atoi(a[1]) : 1;
        if (!strcmp(c, "err")) fault.err = v;
        else if (!strcmp(c, "short")) fault.shortf = v;
        else if (!strcmp(c, "noeof")) fault.noeof = v;
        else fault.nofid = v;
        snprintf(out, cap, "OK %s %d from frame %u", c, v, st.count);
    } else if (!strcmp(c, "stall")) {
        double s = n > 1 ? atof(a[1]) : 1.0;
        fault.stall_until = now_ns() + (uint64_t)(s * 1e9);
        snprintf(out, cap, "OK stall %.3f s after frame %u", s, st.count);
    } else if (!strcmp(c, "ctlstall")) {
        if (n >= 2 && !strcmp(a[1], "off")) { ctl_stall.on = 0; snprintf(out, cap, "OK"); return; }
        if (n < 4) { snprintf(out, cap, "ERR usage: ctlstall ENTITY|vs SEL REQ [CODE [COUNT]]"); return; }
        ctl_stall.entity = !strcmp(a[1], "vs") ? 255 : (unsigned)strtoul(a[1], NULL, 0);
        ctl_stall.sel = (unsigned)strtoul(a[2], NULL, 0);
        ctl_stall.req = parse_req(a[3]);
        ctl_stall.code = n > 4 ? (unsigned)strtoul(a[4], NULL, 0) : 7;
        ctl_stall.count = n > 5 ? atoi(a[5]) : 0;
        ctl_stall.on = 1;
        snprintf(out, cap, "OK ctlstall entity=%u sel=%u req=0x%02x code=%u count=%d", ctl_stall.entity,
                 ctl_stall.sel, ctl_stall.req, ctl_stall.code, ctl_stall.count);
    } else if (!strcmp(c, "unplug")) {
        if (usb_fd < 0) { snprintf(out, cap, "ERR not attached"); return; }
        shutdown(usb_fd, SHUT_RDWR);
        device_gone();
        snprintf(out, cap, "OK unplugged port=%d", cur_port);
    } else if (!strcmp(c, "detach")) {
        if (usb_fd < 0) { snprintf(out, cap, "ERR not attached"); return; }
        int r = detach();
        snprintf(out, cap, r == 0 ? "OK detached port=%d" : "ERR detach port=%d", cur_port);
    } else if (!strcmp(c, "plug")) {
        if (usb_fd >= 0) { snprintf(out, cap, "ERR already attached port=%d", cur_port); return; }
        int p = n > 1 ? (strcmp(a[1], "any") ? atoi(a[1]) : -1) : cur_port;
        if (plug(p) != 0) { snprintf(out, cap, "ERR no port"); return; }
        snprintf(out, cap, "OK attached port=%d", cur_port);
    } else if (!strcmp(c, "quit")) {
        quit_now = 1;
        snprintf(out, cap, "OK bye");
    } else {
        snprintf(out, cap, "ERR unknown command %s", c);
    }
}

static void ctl_read(int i)
{
    ssize_t r = read(cli[i], clibuf[i] + clilen[i], sizeof clibuf[i] - 1 - clilen[i]);
    if (r <= 0) { close(cli[i]); cli[i] = -1; clilen[i] = 0; return; }
    clilen[i] += (size_t)r;
    char *nl;
    while ((nl = memchr(clibuf[i], '\n', clilen[i]))) {
        *nl = 0;
        char out[512];
        ctl_command(clibuf[i], out, sizeof out - 1);
        DBG("ctl: %s -> %s", clibuf[i], out);
        strcat(out, "\n");
        if (write(cli[i], out, strlen(out)) < 0) { /* client gone */ }
        size_t used = (size_t)(nl + 1 - clibuf[i]);
        memmove(clibuf[i], nl + 1, clilen[i] - used);
        clilen[i] -= used;
    }
    if (clilen[i] >= sizeof clibuf[i] - 1) clilen[i] = 0;
}

/* -------------------------------------------------------------------- main */

static void on_signal(int sig) { (void)sig; quit_now = 1; }

static void usage(void)
{
    fprintf(stderr, "usage: uvccam [--vid N] [--pid N] [--bcd N] [--serial S|--no-serial] [--product S]\n"
                    "              [--manufacturer S] [--iso] [--port N] [--ctl PATH] [--pts]\n"
                    "              [--jpeg-quality Q] [--ir] [--verbose]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEEDV do { if (!v) usage(); i++; } while (0)
        if (!strcmp(a, "--vid")) { NEEDV; opt.vid = (unsigned)strtoul(v, NULL, 0); }
        else if (!strcmp(a, "--pid")) { NEEDV; opt.pid = (unsigned)strtoul(v, NULL, 0); }
        else if (!strcmp(a, "--bcd")) { NEEDV; opt.bcd = (unsigned)strtoul(v, NULL, 0); }
        else if (!strcmp(a, "--serial")) { NEEDV; snprintf(opt.serial, sizeof opt.serial, "%s", v); opt.has_serial = 1; }
        else if (!strcmp(a, "--no-serial")) opt.has_serial = 0;
        else if (!strcmp(a, "--product")) { NEEDV; snprintf(opt.product, sizeof opt.product, "%s", v); }
        else if (!strcmp(a, "--manufacturer")) { NEEDV; snprintf(opt.manufacturer, sizeof opt.manufacturer, "%s", v); }
        else if (!strcmp(a, "--iso")) opt.iso = 1;
        else if (!strcmp(a, "--bulk")) opt.iso = 0;
        else if (!strcmp(a, "--port")) { NEEDV; opt.port = atoi(v); }
        else if (!strcmp(a, "--ctl")) { NEEDV; opt.ctl = v; }
        else if (!strcmp(a, "--pts")) opt.hl = 12;
        else if (!strcmp(a, "--jpeg-quality")) { NEEDV; opt.quality = atoi(v); }
        else if (!strcmp(a, "--ir")) opt.ir = 1;
        else if (!strcmp(a, "--verbose") || !strcmp(a, "-v")) opt.verbose = 1;
        else usage();
    }
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    build_descriptors();
    fill_probe(probe, 1, 1, 0);
    memcpy(commit_, probe, sizeof probe);
    fill_ir_probe(ir_probe, 0);
    memcpy(ir_commit, ir_probe, sizeof ir_probe);

    if (opt.ctl) {
        ctl_listen = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_un sun = { .sun_family = AF_UNIX };
        snprintf(sun.sun_path, sizeof sun.sun_path, "%s", opt.ctl);
        unlink(opt.ctl);
        if (bind(ctl_listen, (struct sockaddr *)&sun, sizeof sun) < 0 || listen(ctl_listen, 4) < 0) {
            LOG("control socket %s: %s", opt.ctl, strerror(errno));
            return 1;
        }
    }
    if (plug(opt.port) != 0) return 1;

    while (!quit_now) {
        struct pollfd p[2 + MAXCLI];
        int np_ = 0, iu = -1, il = -1, ic[MAXCLI];
        if (usb_fd >= 0) { iu = np_; p[np_++] = (struct pollfd){ usb_fd, POLLIN, 0 }; }
        if (ctl_listen >= 0) { il = np_; p[np_++] = (struct pollfd){ ctl_listen, POLLIN, 0 }; }
        for (int i = 0; i < MAXCLI; i++) {
            ic[i] = -1;
            if (cli[i] >= 0) { ic[i] = np_; p[np_++] = (struct pollfd){ cli[i], POLLIN, 0 }; }
        }
        if (usb_fd < 0 && ctl_listen < 0) break;   /* unplugged and nobody can replug */
        int r = poll(p, (nfds_t)np_, pump_timeout_ms());
        if (r < 0 && errno != EINTR) { LOG("poll: %s", strerror(errno)); break; }
        if (r > 0) {
            if (iu >= 0 && (p[iu].revents & (POLLIN | POLLHUP | POLLERR))) {
                /* several messages may be waiting: read them all before pumping */
                do {
                    if (usb_message() < 0) break;
                    struct pollfd again = { usb_fd, POLLIN, 0 };
                    if (poll(&again, 1, 0) <= 0) break;
                } while (usb_fd >= 0);
            }
            if (il >= 0 && (p[il].revents & POLLIN)) {
                int fd = accept4(ctl_listen, NULL, NULL, SOCK_CLOEXEC);
                int slot = -1;
                for (int i = 0; i < MAXCLI; i++) if (cli[i] < 0) { slot = i; break; }
                if (fd >= 0 && slot >= 0) { cli[slot] = fd; clilen[slot] = 0; }
                else if (fd >= 0) close(fd);
            }
            for (int i = 0; i < MAXCLI; i++)
                if (ic[i] >= 0 && cli[i] >= 0 && (p[ic[i]].revents & (POLLIN | POLLHUP | POLLERR))) ctl_read(i);
        }
        pump();
    }
    if (usb_fd >= 0) detach();
    if (opt.ctl) unlink(opt.ctl);
    LOG("exit");
    return 0;
}
