// SPDX-License-Identifier: MIT
/*
 * loop_writer — feeds a v4l2loopback device with one fixed MJPEG frame at
 * a steady rate, so that camcore and the reference decode byte-identical
 * JPEGs (vivid has no MJPEG).
 *
 *   loop_writer --device /dev/video10 --size 1280x720 [--fps 30]
 *               [--seconds 600] [--quality 85] [--subsamp 420|422]
 *
 * The picture is a camera-like test image (colour bars, a gradient and
 * mild deterministic noise, so the JPEG has real entropy), compressed once
 * with TurboJPEG at 4:2:0 (--subsamp 422: 4:2:2, as UVC webcams send). Prints the JPEG size as one JSON line on stderr,
 * then writes the frame every 1/fps s until killed or --seconds pass.
 */
#include "bench_util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <sys/ioctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *dev = NULL;
    uint32_t w = 640, h = 480, fps = 30, seconds = 600, quality = 85;
    int subsamp = TJSAMP_420;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--device") && v) { dev = v; i++; }
        else if (!strcmp(a, "--size") && v) { if (bench_parse_size(v, &w, &h)) return 2; i++; }
        else if (!strcmp(a, "--fps") && v) { fps = (uint32_t)atoi(v); i++; }
        else if (!strcmp(a, "--seconds") && v) { seconds = (uint32_t)atoi(v); i++; }
        else if (!strcmp(a, "--quality") && v) { quality = (uint32_t)atoi(v); i++; }
        else if (!strcmp(a, "--subsamp") && v) { subsamp = !strcmp(v, "422") ? TJSAMP_422 : TJSAMP_420; i++; }
        else { fprintf(stderr, "loop_writer: bad argument %s\n", a); return 2; }
    }
    if (!dev || !fps) { fprintf(stderr, "loop_writer: need --device\n"); return 2; }

    /* The picture: 8 bars, a vertical gradient, noise of +-6 levels. */
    static const uint8_t bars[8][3] = {{235, 235, 235}, {235, 235, 16}, {16, 235, 235}, {16, 235, 16},
                                       {235, 16, 235}, {235, 16, 16}, {16, 16, 235}, {16, 16, 16}};
    uint8_t *rgb = malloc((size_t)w * h * 3);
    if (!rgb) return 1;
    uint32_t seed = 12345;
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            const uint8_t *b = bars[x * 8 / w];
            for (int c = 0; c < 3; c++) {
                seed = seed * 1103515245u + 12345u;
                int noise = (int)((seed >> 16) % 13) - 6;
                int v = b[c] * 3 / 4 + (int)(y * 60 / h) + noise;
                rgb[((size_t)y * w + x) * 3 + c] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
        }
    }
    tjhandle tj = tjInitCompress();
    unsigned char *jpeg = NULL;
    unsigned long jpeg_size = 0;
    if (!tj || tjCompress2(tj, rgb, (int)w, 0, (int)h, TJPF_RGB, &jpeg, &jpeg_size, subsamp, (int)quality, 0)) {
        fprintf(stderr, "loop_writer: tjCompress2: %s\n", tjGetErrorStr2(tj));
        return 1;
    }
    free(rgb);

    int fd = open(dev, O_RDWR);
    if (fd < 0) { fprintf(stderr, "loop_writer: open %s: %s\n", dev, strerror(errno)); return 1; }
    struct v4l2_format f;
    memset(&f, 0, sizeof f);
    f.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
    f.fmt.pix.width = w;
    f.fmt.pix.height = h;
    f.fmt.pix.pixelformat = V4L2_PIX_FMT_MJPEG;
    f.fmt.pix.field = V4L2_FIELD_NONE;
    f.fmt.pix.sizeimage = (uint32_t)tjBufSize((int)w, (int)h, TJSAMP_420);
    if (ioctl(fd, VIDIOC_S_FMT, &f) < 0) { fprintf(stderr, "loop_writer: VIDIOC_S_FMT: %s\n", strerror(errno)); return 1; }
    struct v4l2_streamparm p;
    memset(&p, 0, sizeof p);
    p.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
    p.parm.output.timeperframe.numerator = 1;
    p.parm.output.timeperframe.denominator = fps;
    ioctl(fd, VIDIOC_S_PARM, &p);
    fprintf(stderr, "{\"jpeg_bytes\": %lu, \"width\": %u, \"height\": %u, \"sizeimage\": %u}\n", jpeg_size, w, h,
            f.fmt.pix.sizeimage);

    uint64_t period = 1000000000ull / fps, next = bench_now_ns();
    uint64_t end = next + (uint64_t)seconds * 1000000000ull;
    while (bench_now_ns() < end) {
        if (write(fd, jpeg, jpeg_size) < 0 && errno != EINTR) {
            fprintf(stderr, "loop_writer: write: %s\n", strerror(errno));
            return 1;
        }
        next += period;
        uint64_t now = bench_now_ns();
        if (next > now) {
            struct timespec ts = {(time_t)((next - now) / 1000000000ull), (long)((next - now) % 1000000000ull)};
            nanosleep(&ts, NULL);
        } else {
            next = now;
        }
    }
    tjFree(jpeg);
    tjDestroy(tj);
    close(fd);
    return 0;
}
