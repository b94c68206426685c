// SPDX-License-Identifier: MIT
/* A consumer of an installed camcore (CMake find_package, Meson dependency):
 * prints the library version, then pulls 3 frames of the synthetic camera
 * and prints their size: "camcore 0.2.0" / "3 frames 320x240 YUYV". */
#include <camcore.h>
#include <stdio.h>

int main(void)
{
    camcore_manager_config mc;
    camcore_manager *m = NULL;
    camcore_capturer *cap = NULL;
    camcore_capture_config cfg;
    const camcore_frame *f = NULL;
    char code[5];
    int n = 0, w = 0, h = 0, rc = 1;

    printf("camcore %s\n", camcore_version_string());
    camcore_manager_config_init(&mc);
    mc.include_synthetic = 1;
    camcore_capture_config_init(&cfg);
    cfg.width = 320;
    cfg.height = 240;
    if (camcore_manager_new(&mc, &m) == CAMCORE_OK && camcore_capturer_open(m, "synthetic:0", &cap) == CAMCORE_OK &&
        camcore_capturer_start_pull(cap, &cfg, 2) == CAMCORE_OK) {
        for (; n < 3 && camcore_capturer_acquire_frame(cap, 3000, &f) == CAMCORE_OK; n++) {
            w = (int)f->width;
            h = (int)f->height;
            camcore_frame_release(f);
        }
        printf("%d frames %dx%d %s\n", n, w, h, camcore_fourcc_to_string(cfg.fourcc, code));
        rc = n == 3 ? 0 : 1;
    } else {
        fprintf(stderr, "%s\n", camcore_last_error_message());
    }
    camcore_capturer_close(cap);
    camcore_manager_free(m);
    return rc;
}
