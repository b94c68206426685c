// SPDX-License-Identifier: MIT
/*
 * The window of `camcore view` (cmd_view.c runs the command and the
 * session): the picture, the on-screen text, the keys, and the loop that
 * shows the newest frame of the view's mailbox until quit.
 *
 * SDL2 (libSDL2-2.0.so.0) and SDL2_ttf (libSDL2_ttf-2.0.so.0, for the
 * on-screen text) are loaded when `view` starts, so the tool's other
 * commands work on a machine without them; without SDL2_ttf the window has
 * no text and the title says it all. The headers come from libsdl2-dev
 * (types and constants only: every call goes through the table below).
 * Everything here runs on the main thread, push_wake_event() aside.
 *
 * Built without SDL2's headers (no CAMCORE_TOOL_SDL2) this file has only
 * stubs: `view` then says it needs SDL2, and --serve works without it.
 */
#include "camcore_tool.h"
#include "view.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CAMCORE_TOOL_SDL2

#include <SDL.h>
#include <dlfcn.h>

/* ------------------------------------------------------------------ */
/* SDL2 and SDL2_ttf, loaded at run time                              */
/* ------------------------------------------------------------------ */

typedef struct _TTF_Font TTF_Font;

/* X(return type, name, parameters, required) */
#define SDL_FUNCTIONS(X)                                                                               \
    X(int, SDL_Init, (Uint32), 1)                                                                      \
    X(void, SDL_Quit, (void), 1)                                                                       \
    X(const char *, SDL_GetError, (void), 1)                                                           \
    X(const char *, SDL_GetCurrentVideoDriver, (void), 1)                                              \
    X(SDL_bool, SDL_SetHint, (const char *, const char *), 1)                                          \
    X(SDL_Window *, SDL_CreateWindow, (const char *, int, int, int, int, Uint32), 1)                   \
    X(void, SDL_DestroyWindow, (SDL_Window *), 1)                                                      \
    X(void, SDL_SetWindowTitle, (SDL_Window *, const char *), 1)                                       \
    X(SDL_Renderer *, SDL_CreateRenderer, (SDL_Window *, int, Uint32), 1)                              \
    X(void, SDL_DestroyRenderer, (SDL_Renderer *), 1)                                                  \
    X(int, SDL_GetRendererOutputSize, (SDL_Renderer *, int *, int *), 1)                               \
    X(int, SDL_SetRenderDrawColor, (SDL_Renderer *, Uint8, Uint8, Uint8, Uint8), 1)                    \
    X(int, SDL_SetRenderDrawBlendMode, (SDL_Renderer *, SDL_BlendMode), 1)                             \
    X(int, SDL_RenderClear, (SDL_Renderer *), 1)                                                       \
    X(int, SDL_RenderFillRect, (SDL_Renderer *, const SDL_Rect *), 1)                                  \
    X(int, SDL_RenderCopyEx,                                                                           \
      (SDL_Renderer *, SDL_Texture *, const SDL_Rect *, const SDL_Rect *, double, const SDL_Point *,   \
       SDL_RendererFlip), 1)                                                                           \
    X(void, SDL_RenderPresent, (SDL_Renderer *), 1)                                                    \
    X(SDL_Texture *, SDL_CreateTexture, (SDL_Renderer *, Uint32, int, int, int), 1)                    \
    X(SDL_Texture *, SDL_CreateTextureFromSurface, (SDL_Renderer *, SDL_Surface *), 1)                 \
    X(void, SDL_DestroyTexture, (SDL_Texture *), 1)                                                    \
    X(int, SDL_UpdateTexture, (SDL_Texture *, const SDL_Rect *, const void *, int), 1)                 \
    X(int, SDL_UpdateYUVTexture,                                                                       \
      (SDL_Texture *, const SDL_Rect *, const Uint8 *, int, const Uint8 *, int, const Uint8 *, int), 1) \
    X(int, SDL_UpdateNVTexture, (SDL_Texture *, const SDL_Rect *, const Uint8 *, int, const Uint8 *, int), \
      0)                                                                                               \
    X(void, SDL_FreeSurface, (SDL_Surface *), 1)                                                       \
    X(int, SDL_WaitEventTimeout, (SDL_Event *, int), 1)                                                \
    X(int, SDL_PollEvent, (SDL_Event *), 1)                                                            \
    X(int, SDL_PushEvent, (SDL_Event *), 1)                                                            \
    X(Uint32, SDL_RegisterEvents, (int), 1)                                                            \
    X(void, SDL_SetYUVConversionMode, (SDL_YUV_CONVERSION_MODE), 1)

#define TTF_FUNCTIONS(X)                                                                               \
    X(int, TTF_Init, (void), 1)                                                                        \
    X(void, TTF_Quit, (void), 1)                                                                       \
    X(TTF_Font *, TTF_OpenFont, (const char *, int), 1)                                                \
    X(void, TTF_CloseFont, (TTF_Font *), 1)                                                            \
    X(SDL_Surface *, TTF_RenderUTF8_Blended, (TTF_Font *, const char *, SDL_Color), 1)

#define DECLARE(ret, name, params, required) ret(SDLCALL *name) params;
static struct {
    void *handle;
    SDL_FUNCTIONS(DECLARE)
} sdl;
static struct {
    void *handle;
    TTF_FUNCTIONS(DECLARE)
} ttf;

/* dlopen()s a library and fills its table; on failure says why (in why)
 * and returns -1. */
#define LOAD(ret, name, params, required)                                                              \
    symbol = dlsym(table->handle, #name);                                                              \
    memcpy(&table->name, &symbol, sizeof symbol);                                                      \
    if (symbol == NULL && (required)) {                                                                \
        snprintf(why, why_size, "%s has no %s", soname, #name);                                        \
        goto missing;                                                                                  \
    }

static int load_sdl(char *why, size_t why_size)
{
    const char *soname = "libSDL2-2.0.so.0";
    __typeof__(&sdl) table = &sdl;
    void *symbol;

    if ((table->handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL)) == NULL) {
        snprintf(why, why_size, "%s", dlerror());
        return -1;
    }
    SDL_FUNCTIONS(LOAD)
    return 0;
missing:
    dlclose(table->handle);
    table->handle = NULL;
    return -1;
}

static int load_ttf(char *why, size_t why_size)
{
    const char *soname = "libSDL2_ttf-2.0.so.0";
    __typeof__(&ttf) table = &ttf;
    void *symbol;

    if ((table->handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL)) == NULL) {
        snprintf(why, why_size, "%s", dlerror());
        return -1;
    }
    TTF_FUNCTIONS(LOAD)
    return 0;
missing:
    dlclose(table->handle);
    table->handle = NULL;
    return -1;
}

/* Queues an SDL user event of this type (the view's wake, cmd_view.c);
 * from any thread. 1 when it is queued. */
int push_wake_event(uint32_t type)
{
    SDL_Event ev;

    memset(&ev, 0, sizeof ev);
    ev.type = type;
    return sdl.SDL_PushEvent(&ev) == 1;
}

/* ------------------------------------------------------------------ */
/* The window                                                         */
/* ------------------------------------------------------------------ */

/* Text drawn with SDL2_ttf: one cached texture per slot. */
enum { TEXT_STATUS, TEXT_OFF, TEXT_OFF_HINT, TEXT_MESSAGE, TEXT_SLOTS = TEXT_MESSAGE + MESSAGES };

struct window {
    SDL_Window *window;
    SDL_Renderer *renderer;
    SDL_Texture *picture;        /* the frame's texture */
    Uint32 picture_format;       /* its SDL pixel format */
    uint32_t picture_w, picture_h;
    int picture_full_range;      /* its YUV is full range (decoded from MJPEG) */
    uint8_t *converted;          /* camcore_frame_convert output, for formats SDL has no texture for */
    size_t converted_size;
    TTF_Font *font;
    struct {
        char text[256];
        SDL_Texture *texture;
        int w, h;
    } text[TEXT_SLOTS];
    int mirror;
};

/* The SDL texture format a camcore FourCC streams to with no conversion;
 * 0: none (the frame is converted by camcore first). */
static Uint32 texture_format(uint32_t fourcc, int have_nv)
{
    switch (fourcc) {
    case CAMCORE_FOURCC_YUYV: return SDL_PIXELFORMAT_YUY2;
    case CAMCORE_FOURCC('U', 'Y', 'V', 'Y'): return SDL_PIXELFORMAT_UYVY;
    case CAMCORE_FOURCC('Y', 'V', 'Y', 'U'): return SDL_PIXELFORMAT_YVYU;
    case CAMCORE_FOURCC_I420: return SDL_PIXELFORMAT_IYUV;
    case CAMCORE_FOURCC('Y', 'V', '1', '2'): return SDL_PIXELFORMAT_YV12;
    case CAMCORE_FOURCC_NV12: return have_nv ? SDL_PIXELFORMAT_NV12 : 0;
    case CAMCORE_FOURCC('N', 'V', '2', '1'): return have_nv ? SDL_PIXELFORMAT_NV21 : 0;
    default: return 0;
    }
}

/* Makes sure the picture texture is fmt at w x h, its YUV read as full
 * range (JPEG) or as limited range BT.601/BT.709 (SDL's automatic choice
 * by size, what cameras send). SDL takes the conversion mode when a YUV
 * texture is made (or, without YUV textures, when it is drawn). */
static int picture_texture(struct window *w, Uint32 fmt, uint32_t width, uint32_t height, int full_range)
{
    sdl.SDL_SetYUVConversionMode(full_range ? SDL_YUV_CONVERSION_JPEG : SDL_YUV_CONVERSION_AUTOMATIC);
    if (w->picture && w->picture_format == fmt && w->picture_w == width && w->picture_h == height &&
        w->picture_full_range == full_range)
        return 0;
    w->picture_full_range = full_range;
    if (w->picture)
        sdl.SDL_DestroyTexture(w->picture);
    w->picture = sdl.SDL_CreateTexture(w->renderer, fmt, SDL_TEXTUREACCESS_STREAMING, (int)width, (int)height);
    w->picture_format = fmt;
    w->picture_w = width;
    w->picture_h = height;
    return w->picture ? 0 : -1;
}

/* Uploads a frame into the picture texture: YUV formats SDL streams as
 * they are; anything else (MJPEG, RGB, grey, ...) converted by camcore to
 * I420 (compressed) or RGBA. Returns 0, or -1 with why filled. */
static int upload(struct window *w, const camcore_frame *f, char *why, size_t why_size)
{
    Uint32 fmt = texture_format(f->fourcc, sdl.SDL_UpdateNVTexture != NULL);
    camcore_pixel_format_info info;
    uint32_t out, bytes = 0;
    int st;

    if (fmt) {
        if (picture_texture(w, fmt, f->width, f->height, 0) != 0)
            goto sdl_error;
        if (fmt == SDL_PIXELFORMAT_IYUV || fmt == SDL_PIXELFORMAT_YV12)
            st = sdl.SDL_UpdateYUVTexture(w->picture, NULL, f->planes[0].data, (int)f->planes[0].stride,
                                          f->planes[fmt == SDL_PIXELFORMAT_IYUV ? 1 : 2].data,
                                          (int)f->planes[fmt == SDL_PIXELFORMAT_IYUV ? 1 : 2].stride,
                                          f->planes[fmt == SDL_PIXELFORMAT_IYUV ? 2 : 1].data,
                                          (int)f->planes[fmt == SDL_PIXELFORMAT_IYUV ? 2 : 1].stride);
        else if (fmt == SDL_PIXELFORMAT_NV12 || fmt == SDL_PIXELFORMAT_NV21)
            st = sdl.SDL_UpdateNVTexture(w->picture, NULL, f->planes[0].data, (int)f->planes[0].stride,
                                         f->planes[1].data, (int)f->planes[1].stride);
        else
            st = sdl.SDL_UpdateTexture(w->picture, NULL, f->planes[0].data, (int)f->planes[0].stride);
        if (st != 0)
            goto sdl_error;
        return 0;
    }
    info.struct_size = sizeof info;
    info.flags = 0;
    camcore_pixel_format_get_info(f->fourcc, &info);
    out = (info.flags & CAMCORE_FORMAT_COMPRESSED) ? CAMCORE_FOURCC_I420 : CAMCORE_FOURCC_RGBA;
    if (camcore_pixel_format_frame_size(out, f->width, f->height, &bytes) != CAMCORE_OK) {
        snprintf(why, why_size, "%s", camcore_last_error_message());
        return -1;
    }
    if (w->converted_size < bytes) {
        uint8_t *p = realloc(w->converted, bytes);
        if (p == NULL) {
            snprintf(why, why_size, "out of memory");
            return -1;
        }
        w->converted = p;
        w->converted_size = bytes;
    }
    if ((st = camcore_frame_convert(f, out, 0, 0, w->converted, bytes)) != CAMCORE_OK) {
        snprintf(why, why_size, "%s", camcore_last_error_message());
        return -1;
    }
    if (out == CAMCORE_FOURCC_I420) {
        uint32_t cw = (f->width + 1) / 2, ch = (f->height + 1) / 2;
        const uint8_t *y = w->converted, *u = y + (size_t)f->width * f->height, *v = u + (size_t)cw * ch;
        if (picture_texture(w, SDL_PIXELFORMAT_IYUV, f->width, f->height, 1) != 0 ||
            sdl.SDL_UpdateYUVTexture(w->picture, NULL, y, (int)f->width, u, (int)cw, v, (int)cw) != 0)
            goto sdl_error;
    } else if (picture_texture(w, SDL_PIXELFORMAT_RGBA32, f->width, f->height, 0) != 0 ||
               sdl.SDL_UpdateTexture(w->picture, NULL, w->converted, (int)f->width * 4) != 0) {
        goto sdl_error;
    }
    return 0;
sdl_error:
    snprintf(why, why_size, "SDL: %s", sdl.SDL_GetError());
    return -1;
}

/* Draws text at x, y (top-left) over a dark band; slot caches the texture. */
static void draw_text(struct window *w, int slot, const char *text, int x, int y, int centre)
{
    SDL_Color white = {240, 240, 240, 255};
    SDL_Rect r;

    if (w->font == NULL || *text == 0)
        return;
    if (w->text[slot].texture == NULL || strcmp(w->text[slot].text, text) != 0) {
        SDL_Surface *s = ttf.TTF_RenderUTF8_Blended(w->font, text, white);
        if (w->text[slot].texture)
            sdl.SDL_DestroyTexture(w->text[slot].texture);
        w->text[slot].texture = NULL;
        if (s == NULL)
            return;
        w->text[slot].texture = sdl.SDL_CreateTextureFromSurface(w->renderer, s);
        w->text[slot].w = s->w;
        w->text[slot].h = s->h;
        sdl.SDL_FreeSurface(s);
        snprintf(w->text[slot].text, sizeof w->text[slot].text, "%s", text);
        if (w->text[slot].texture == NULL)
            return;
    }
    r.w = w->text[slot].w;
    r.h = w->text[slot].h;
    r.x = centre ? x - r.w / 2 : x;
    r.y = y;
    {
        SDL_Rect band = {r.x - 4, r.y - 1, r.w + 8, r.h + 2};
        sdl.SDL_SetRenderDrawBlendMode(w->renderer, SDL_BLENDMODE_BLEND);
        sdl.SDL_SetRenderDrawColor(w->renderer, 0, 0, 0, 160);
        sdl.SDL_RenderFillRect(w->renderer, &band);
    }
    sdl.SDL_RenderCopyEx(w->renderer, w->text[slot].texture, NULL, &r, 0, NULL, SDL_FLIP_NONE);
}

/* The picture's place in the window: the largest rectangle of the
 * frame's aspect ratio, centred (letter- or pillar-boxed). */
static SDL_Rect fit(int win_w, int win_h, uint32_t pic_w, uint32_t pic_h)
{
    SDL_Rect r;

    if (pic_w == 0 || pic_h == 0)
        pic_w = 4, pic_h = 3;
    if ((uint64_t)win_w * pic_h <= (uint64_t)win_h * pic_w) {
        r.w = win_w;
        r.h = (int)((uint64_t)win_w * pic_h / pic_w);
    } else {
        r.h = win_h;
        r.w = (int)((uint64_t)win_h * pic_w / pic_h);
    }
    r.x = (win_w - r.w) / 2;
    r.y = (win_h - r.h) / 2;
    return r;
}

static void close_window(struct window *w)
{
    int i;

    for (i = 0; i < TEXT_SLOTS; i++)
        if (w->text[i].texture)
            sdl.SDL_DestroyTexture(w->text[i].texture);
    if (w->picture)
        sdl.SDL_DestroyTexture(w->picture);
    if (w->renderer)
        sdl.SDL_DestroyRenderer(w->renderer);
    if (w->window)
        sdl.SDL_DestroyWindow(w->window);
    if (w->font)
        ttf.TTF_CloseFont(w->font);
    free(w->converted);
    memset(w, 0, sizeof *w);
}

/* The font for the on-screen text: $CAMCORE_VIEW_FONT, else DejaVu Sans
 * Mono (Debian's fonts-dejavu-core). NULL: no text. */
static TTF_Font *open_font(int size)
{
    static const char *const fonts[] = {
        "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/TTF/DejaVuSansMono.ttf",
    };
    const char *env = getenv("CAMCORE_VIEW_FONT");
    TTF_Font *font = NULL;
    size_t i;

    if (ttf.handle == NULL)
        return NULL;
    if (env && *env && (font = ttf.TTF_OpenFont(env, size)) == NULL)
        fprintf(stderr, PROGRAM ": view: cannot use the font CAMCORE_VIEW_FONT=%s; using DejaVu Sans Mono\n", env);
    for (i = 0; i < sizeof fonts / sizeof fonts[0] && font == NULL; i++)
        font = ttf.TTF_OpenFont(fonts[i], size);
    return font;
}

/* ------------------------------------------------------------------ */
/* SDL and the window's loop                                          */
/* ------------------------------------------------------------------ */

/* SDL first: without it, or without a display, no camera is opened.
 * Returns an exit code. */
int open_sdl(struct view *v)
{
    char why[512];

    if (load_sdl(why, sizeof why) != 0) {
        errorf("view needs SDL2 (Debian: apt-get install libsdl2-2.0-0): %s", why);
        return EXIT_FAILED;
    }
    if (sdl.SDL_Init(SDL_INIT_VIDEO | SDL_INIT_EVENTS) != 0) {
        errorf("view cannot open a window: %s (is DISPLAY or WAYLAND_DISPLAY set?)", sdl.SDL_GetError());
        return EXIT_FAILED;
    }
    {
        /* With no display SDL falls back to a window nobody sees; unless
         * that was asked for (SDL_VIDEODRIVER), say so instead. */
        const char *driver = sdl.SDL_GetCurrentVideoDriver(), *asked = getenv("SDL_VIDEODRIVER");
        if (driver && (strcmp(driver, "offscreen") == 0 || strcmp(driver, "dummy") == 0) && !(asked && *asked)) {
            errorf("view cannot open a window: no display (is DISPLAY or WAYLAND_DISPLAY set?)");
            sdl.SDL_Quit();
            return EXIT_FAILED;
        }
    }
    if (load_ttf(why, sizeof why) != 0 || ttf.TTF_Init() != 0) {
        if (!v->quiet)
            fprintf(stderr, PROGRAM ": view: no on-screen text (SDL2_ttf: %s)\n", ttf.handle ? "TTF_Init failed" : why);
        if (ttf.handle)
            dlclose(ttf.handle);
        ttf.handle = NULL;
    }
    v->wake_event = sdl.SDL_RegisterEvents(1);
    return EXIT_OK;
}

void close_sdl(void)
{
    if (ttf.handle)
        ttf.TTF_Quit();
    if (sdl.handle)
        sdl.SDL_Quit();
}

/* The window on the running session until quit, Escape, closing it or
 * --seconds. Returns an exit code. */
int run_window(struct view *v, struct devices *d, camcore_session *session, int mirror, const char *snapdir,
               double seconds)
{
    camcore_session_state st;
    struct window w;
    const camcore_frame *shown = NULL;
    double start, last_title = 0, rate = 0, rate_t0;
    uint64_t rate_frames0 = 0, rate_ts0 = 0;
    unsigned snapshots = 0;
    int rc = EXIT_OK, status, quit = 0, font_px = 16;
    char why[512], title[512], line[256], code[8];

    memset(&w, 0, sizeof w);
    w.mirror = mirror;

    /* The window, at the frame's size (at most 1280 wide, 720 high). */
    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    camcore_session_get_state(session, &st);
    {
        SDL_Rect r = fit(1280, 720, st.format.width ? st.format.width : 640, st.format.height ? st.format.height : 480);
        int ww = st.format.width && st.format.width <= 1280 && st.format.height <= 720 ? (int)st.format.width : r.w;
        int wh = st.format.width && st.format.width <= 1280 && st.format.height <= 720 ? (int)st.format.height : r.h;
        if (ww < 160 || wh < 120)
            ww = 320, wh = 240;
        w.window = sdl.SDL_CreateWindow("camcore view", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, ww, wh,
                                        SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
        font_px = wh >= 480 ? 16 : 12;
    }
    if (w.window)
        w.renderer = sdl.SDL_CreateRenderer(w.window, -1, 0);
    if (w.window == NULL || w.renderer == NULL) {
        errorf("view cannot open a window: %s", sdl.SDL_GetError());
        rc = EXIT_FAILED;
        goto out_window;
    }
    w.font = open_font(font_px);

    start = now_s();
    rate_t0 = start;
    while (!quit) {
        SDL_Event ev;
        const camcore_frame *next = NULL;
        double t;
        int got = sdl.SDL_WaitEventTimeout(&ev, 100);

        while (got) {
            if (ev.type == SDL_QUIT ||
                (ev.type == SDL_WINDOWEVENT && ev.window.event == SDL_WINDOWEVENT_CLOSE)) {
                quit = 1;
            } else if (ev.type == SDL_KEYDOWN && !ev.key.repeat) {
                SDL_Keycode k = ev.key.keysym.sym;
                memset(&st, 0, sizeof st);
                st.struct_size = sizeof st;
                camcore_session_get_state(session, &st);
                if (k == SDLK_ESCAPE || k == SDLK_q) {
                    quit = 1;
                } else if (k == SDLK_SPACE || k == SDLK_p) {
                    status = st.paused ? camcore_session_resume_video(session) : camcore_session_pause_video(session);
                    if (status != CAMCORE_OK)
                        post(v, "%s failed: %s", st.paused ? "resume" : "pause", camcore_last_error_message());
                    else
                        post(v, st.paused ? "video resumed: camera on" : "video paused: camera off");
                } else if (k == SDLK_h) {
                    status = st.held ? camcore_session_unhold(session) : camcore_session_hold(session);
                    if (status != CAMCORE_OK)
                        post(v, "%s failed: %s", st.held ? "unhold" : "hold", camcore_last_error_message());
                    else
                        post(v, st.held ? "call resumed from hold" : "call on hold: camera off");
                } else if (k == SDLK_f) {
                    struct completion *c = completion(v, "flip");
                    if (camcore_session_flip(session, c ? on_done : NULL, c) != CAMCORE_OK)
                        free(c);
                } else if (k == SDLK_n) {
                    next_camera(v, d->manager, session);
                } else if (k == SDLK_z) {
                    change_setting(v, d->manager, session, 1);
                } else if (k == SDLK_r) {
                    change_setting(v, d->manager, session, 0);
                } else if (k == SDLK_m) {
                    w.mirror = !w.mirror;
                } else if (k == SDLK_s) {
                    snapshot(v, shown, snapdir, &snapshots);
                }
            } else if (ev.type == v->wake_event) {
                pthread_mutex_lock(&v->lock);
                v->wake_posted = 0;
                pthread_mutex_unlock(&v->lock);
            }
            got = sdl.SDL_PollEvent(&ev);
        }
        if (g_interrupted)
            quit = 1;

        pthread_mutex_lock(&v->lock);
        next = v->pending;
        v->pending = NULL;
        pthread_mutex_unlock(&v->lock);
        memset(&st, 0, sizeof st);
        st.struct_size = sizeof st;
        camcore_session_get_state(session, &st);
        if (next && st.camera_on && !(next->flags & CAMCORE_FRAME_CORRUPTED)) {
            if (upload(&w, next, why, sizeof why) == 0) {
                camcore_frame_release(shown);
                shown = next;
                next = NULL;
            } else {
                static char last_why[512];
                if (strcmp(last_why, why) != 0) {
                    snprintf(last_why, sizeof last_why, "%s", why);
                    post(v, "cannot show a %s frame: %s", fourcc_text(next->fourcc, code), why);
                }
            }
        }
        camcore_frame_release(next);
        if (!st.camera_on && shown) {
            camcore_frame_release(shown); /* the camera is off: nothing of it stays on screen */
            shown = NULL;
        }

        t = now_s();
        if (t - last_title >= 0.5) {
            uint64_t frames, ts;
            pthread_mutex_lock(&v->lock);
            frames = v->frames;
            ts = v->last_ts;
            pthread_mutex_unlock(&v->lock);
            /* The measured rate: frames over their capture times, about once a second. */
            if (t - rate_t0 >= 1.0 || !st.camera_on) {
                if (!st.camera_on)
                    rate = 0;
                else if (rate_ts0 && ts > rate_ts0 && frames > rate_frames0)
                    rate = (double)(frames - rate_frames0) * 1e9 / (double)(ts - rate_ts0);
                rate_t0 = t;
                rate_frames0 = frames;
                rate_ts0 = st.camera_on ? ts : 0;
            }
            {
                const char *name = "no camera";
                size_t i;
                for (i = 0; i < d->all->count; i++)
                    if (strcmp(d->all->devices[i].id, st.device_id) == 0) {
                        name = d->all->devices[i].name;
                        break;
                    }
                if (i == d->all->count && st.device_id[0])
                    name = st.device_id;
                char measured[32];
                if (rate > 0)
                    snprintf(measured, sizeof measured, "%.1f fps", rate);
                else
                    snprintf(measured, sizeof measured, "measuring fps");
                if (st.camera_on)
                    snprintf(title, sizeof title, "camcore view: %s - %s %" PRIu32 "x%" PRIu32 " - %s", name,
                             fourcc_text(st.format.source_fourcc ? st.format.source_fourcc : st.format.fourcc, code),
                             st.format.width, st.format.height, measured);
                else
                    snprintf(title, sizeof title, "camcore view: %s - camera off (%s)", name,
                             st.held ? "on hold" : st.paused ? "paused" : "stopped");
            }
            sdl.SDL_SetWindowTitle(w.window, title);
            last_title = t;
        }
        if (seconds > 0 && t - start >= seconds)
            quit = 1;

        /* Draw: the picture (or the camera-off frame), then the text. */
        {
            int ww = 0, wh = 0, i, y;
            SDL_Rect pic;
            sdl.SDL_GetRendererOutputSize(w.renderer, &ww, &wh);
            sdl.SDL_SetRenderDrawBlendMode(w.renderer, SDL_BLENDMODE_NONE);
            sdl.SDL_SetRenderDrawColor(w.renderer, 0, 0, 0, 255);
            sdl.SDL_RenderClear(w.renderer);
            if (shown && w.picture) {
                pic = fit(ww, wh, w.picture_w, w.picture_h);
                sdl.SDL_RenderCopyEx(w.renderer, w.picture, NULL, &pic, 0, NULL,
                                     w.mirror ? SDL_FLIP_HORIZONTAL : SDL_FLIP_NONE);
            } else {
                /* The camera-off frame: dark grey where the picture was. */
                pic = fit(ww, wh, w.picture_w, w.picture_h);
                sdl.SDL_SetRenderDrawColor(w.renderer, 40, 40, 48, 255);
                sdl.SDL_RenderFillRect(w.renderer, &pic);
                draw_text(&w, TEXT_OFF, st.camera_on ? "waiting for the camera" : "camera off", ww / 2,
                          wh / 2 - font_px, 1);
                draw_text(&w, TEXT_OFF_HINT,
                          st.camera_on ? "" : st.held ? "on hold: h unholds" : st.paused ? "paused: space resumes" : "",
                          ww / 2, wh / 2 + font_px / 2, 1);
            }
            pthread_mutex_lock(&v->lock);
            snprintf(line, sizeof line, "dropped %" PRIu64 "  corrupted %" PRIu64 "%s", v->dropped, v->corrupted,
                     w.mirror ? "  (mirrored)" : "");
            y = 4;
            for (i = 0; i < MESSAGES; i++) {
                int k = (v->message_next + i) % MESSAGES;
                if (v->messages[k].text[0] && v->messages[k].until > t) {
                    char text[256];
                    snprintf(text, sizeof text, "%s", v->messages[k].text);
                    pthread_mutex_unlock(&v->lock);
                    draw_text(&w, TEXT_MESSAGE + i, text, 6, y, 0);
                    y += font_px + 6;
                    pthread_mutex_lock(&v->lock);
                }
            }
            pthread_mutex_unlock(&v->lock);
            draw_text(&w, TEXT_STATUS, line, 6, wh - font_px - 8, 0);
            sdl.SDL_RenderPresent(w.renderer);
        }
    }

out_window:
    close_window(&w);
    camcore_frame_release(shown);
    return rc;
}

#else /* no SDL2 headers at build time */

int open_sdl(struct view *v)
{
    (void)v;
    errorf("view: this " PROGRAM " was built without SDL2, so it has no window; install libsdl2-dev and rebuild "
           "it, or serve the video with --serve PORT");
    return EXIT_FAILED;
}

void close_sdl(void)
{
}

int run_window(struct view *v, struct devices *d, camcore_session *session, int mirror, const char *snapdir,
               double seconds)
{
    (void)v, (void)d, (void)session, (void)mirror, (void)snapdir, (void)seconds;
    return EXIT_FAILED;
}

int push_wake_event(uint32_t type)
{
    (void)type;
    return 0;
}

#endif /* CAMCORE_TOOL_SDL2 */
