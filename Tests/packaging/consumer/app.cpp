// SPDX-License-Identifier: MIT
// The same consumer in C++ on camcore.hpp: "camcore 0.2.0" / "3 frames 320x240 YUYV".
#include <camcore.hpp>

#include <cstdio>

int main() {
    try {
        std::printf("camcore %s\n", camcore::version().c_str());
        camcore::manager m(camcore::synthetic::one);
        camcore::capturer cap = m.open("synthetic:0");
        cap.start_pull(camcore::capture_config(CAMCORE_FOURCC_YUYV, 320, 240));
        int n = 0;
        std::uint32_t w = 0, h = 0;
        std::string name;
        for (; n < 3; n++) {
            std::optional<camcore::frame> f = cap.acquire(3000);
            if (!f)
                break;
            w = f->width();
            h = f->height();
            name = f->fourcc_name();
        }
        std::printf("%d frames %ux%u %s\n", n, w, h, name.c_str());
        return n == 3 ? 0 : 1;
    } catch (const camcore::error &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}
