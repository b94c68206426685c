// SPDX-License-Identifier: MIT
/*
 * camcore view [DEVICE]: a live camera window (SDL2) that runs a video
 * session (S9–S19), so the camera switch is seen at work: pause and hold
 * turn the camera off (its LED goes out, the window shows a "camera off"
 * frame), flip and next switch cameras, size and rate change the capture
 * (S17), hot-plug is told in the window (S24, S25).
 *
 * SDL2 (libSDL2-2.0.so.0) and SDL2_ttf (libSDL2_ttf-2.0.so.0, for the
 * on-screen text) are loaded when `view` starts, so the tool's other
 * commands work on a machine without them; without SDL2_ttf the window has
 * no text and the title says it all. The headers come from libsdl2-dev
 * (types and constants only: every call goes through the table below).
 *
 * Threads: the session's transmission sink runs on the capture thread; it
 * keeps the newest frame (retained) in a one-frame mailbox and wakes the
 * main thread with an SDL user event. Device callbacks and completions run
 * on the session's camera queue; they post text messages the same way.
 * Everything SDL happens on the main thread.
 *
 * --serve PORT: no window and no SDL; the mailbox wakes the HTTP server
 * (serve.c) through an eventfd instead. A tool built without SDL2's headers
 * has this part only: the window then says it needs SDL2.
 */
#include "camcore_tool.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

#endif /* CAMCORE_TOOL_SDL2 */

/* ------------------------------------------------------------------ */
/* State shared with the camera's threads                             */
/* ------------------------------------------------------------------ */

#define MESSAGES 4
#define MESSAGE_SECONDS 5.0

struct view {
    pthread_mutex_t lock;
    uint32_t wake_event;         /* SDL user event: a frame or a message waits */
    int wake_posted;             /* one wake event is in SDL's queue (or the eventfd) */
    int wake_fd;                 /* --serve: an eventfd instead of SDL events; else -1 */
    const camcore_frame *pending; /* the newest frame, retained; NULL: none */
    uint64_t frames;             /* frames the sink received */
    uint64_t dropped;            /* frames the driver dropped (sequence gaps) */
    uint64_t corrupted;          /* frames flagged CAMCORE_FRAME_CORRUPTED */
    uint64_t last_ts;            /* capture time of the newest frame, ns */
    struct {
        char text[256];
        double until;            /* CLOCK_MONOTONIC seconds */
    } messages[MESSAGES];
    int message_next;
    int messages_changed;
    int quiet;                   /* --quiet: no messages on stderr */
};

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* With the lock held: wakes the main thread (once until it takes the wake). */
static void wake(struct view *v)
{
    if (v->wake_posted)
        return;
    if (v->wake_fd >= 0) {
        uint64_t one = 1;
        if (write(v->wake_fd, &one, sizeof one) == (ssize_t)sizeof one)
            v->wake_posted = 1;
        return;
    }
#ifdef CAMCORE_TOOL_SDL2
    {
        SDL_Event ev;
        memset(&ev, 0, sizeof ev);
        ev.type = v->wake_event;
        if (sdl.SDL_PushEvent(&ev) == 1)
            v->wake_posted = 1;
    }
#endif
}

/* A message shown in the window for a few seconds and printed on stderr
 * ("camcore: view: ..."); from any thread. */
static void post(struct view *v, const char *fmt, ...)
{
    char text[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (!v->quiet)
        fprintf(stderr, PROGRAM ": view: %s\n", text);
    pthread_mutex_lock(&v->lock);
    snprintf(v->messages[v->message_next].text, sizeof v->messages[0].text, "%s", text);
    v->messages[v->message_next].until = now_s() + MESSAGE_SECONDS;
    v->message_next = (v->message_next + 1) % MESSAGES;
    v->messages_changed = 1;
    wake(v);
    pthread_mutex_unlock(&v->lock);
}

/* The transmission sink, on the capture thread: count, keep the newest. */
static void on_frame(void *user_data, const camcore_frame *frame)
{
    struct view *v = user_data;
    const camcore_frame *kept = camcore_frame_retain(frame);

    pthread_mutex_lock(&v->lock);
    v->frames++;
    v->last_ts = frame->timestamp_ns;
    v->dropped += frame->dropped_before;
    if (frame->flags & CAMCORE_FRAME_CORRUPTED)
        v->corrupted++;
    if (kept) {
        camcore_frame_release(v->pending); /* not shown: the main thread was busy */
        v->pending = kept;
        wake(v);
    }
    pthread_mutex_unlock(&v->lock);
}

static const char *format_text(const camcore_capture_format *f, char *buf, size_t size)
{
    char code[8], rate[16];

    snprintf(buf, size, "%s %" PRIu32 "x%" PRIu32 " @ %s fps", fourcc_text(f->fourcc, code), f->width,
             f->height, fps_text(f->fps, rate, sizeof rate));
    return buf;
}

static void on_connected(void *user_data, const camcore_device_info *dev)
{
    post(user_data, "camera connected: %s (%s)", dev->name, dev->node);
}

static void on_disconnected(void *user_data, const camcore_device_info *dev)
{
    post(user_data, "camera disconnected: %s (%s)", dev->name, dev->node);
}

static void on_selected(void *user_data, const camcore_device_info *dev, const camcore_capture_format *format)
{
    char text[64];

    if (format && format->width)
        post(user_data, "showing %s (%s), %s", dev->name, dev->node, format_text(format, text, sizeof text));
    else
        post(user_data, "showing %s (%s)", dev->name, dev->node);
}

static void on_device_error(void *user_data, const camcore_device_info *dev, int status, const char *message)
{
    post(user_data, "%s: %s (%s)", dev ? dev->name : "camera", camcore_strerror(status), message ? message : "");
}

static void on_stall(void *user_data, const camcore_device_info *dev, int stalled, uint64_t since_ns)
{
    (void)since_ns;
    post(user_data, stalled ? "%s sends no frames (stalled)" : "%s sends frames again", dev->name);
}

/* --serve: the newest frame for the server (serve.c), retained; NULL: none. */
static const camcore_frame *take_frame(void *user_data)
{
    struct view *v = user_data;
    const camcore_frame *f;
    uint64_t count;

    (void)!read(v->wake_fd, &count, sizeof count);
    pthread_mutex_lock(&v->lock);
    v->wake_posted = 0;
    f = v->pending;
    v->pending = NULL;
    pthread_mutex_unlock(&v->lock);
    return f;
}

#ifdef CAMCORE_TOOL_SDL2

struct completion {
    struct view *view;
    char what[64];
};

/* Completion of flip, select and change: tells a failure. */
static void on_done(void *user_data, int status)
{
    struct completion *c = user_data;

    if (status == CAMCORE_E_NO_DEVICE && strcmp(c->what, "flip") == 0)
        post(c->view, "flip: no other camera");
    else if (status != CAMCORE_OK)
        post(c->view, "%s failed: %s", c->what, camcore_strerror(status));
    free(c);
}

static struct completion *completion(struct view *v, const char *what)
{
    struct completion *c = calloc(1, sizeof *c);

    if (c) {
        c->view = v;
        snprintf(c->what, sizeof c->what, "%s", what);
    }
    return c;
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
/* Keys: size and rate ladders (S17 change)                           */
/* ------------------------------------------------------------------ */

/* Sizes offered for stepwise and continuous formats (the synthetic camera). */
static const uint32_t ladder_sizes[][2] = {{320, 240}, {640, 360}, {640, 480}, {1280, 720}, {1920, 1080}};
/* Rates offered for continuous rate ranges, fps, highest first. */
static const uint32_t ladder_rates[] = {60, 30, 25, 15, 10, 5};

static int size_fits(const camcore_format *f, uint32_t w, uint32_t h)
{
    if (f->size_kind == CAMCORE_RANGE_DISCRETE)
        return f->width == w && f->height == h;
    return w >= f->min_width && w <= f->max_width && h >= f->min_height && h <= f->max_height &&
           (!f->step_width || (w - f->min_width) % f->step_width == 0) &&
           (!f->step_height || (h - f->min_height) % f->step_height == 0);
}

static int rate_fits(const camcore_format *f, camcore_fraction r)
{
    size_t i;
    double x = (double)r.numerator / r.denominator;

    if (f->rate_kind == CAMCORE_RANGE_DISCRETE) {
        for (i = 0; i < f->rate_count; i++)
            if ((uint64_t)f->rates[i].numerator * r.denominator == (uint64_t)r.numerator * f->rates[i].denominator)
                return 1;
        return 0;
    }
    if (f->rate_kind == CAMCORE_RANGE_UNKNOWN || !f->min_fps.denominator || !f->max_fps.denominator)
        return 1;
    return x >= (double)f->min_fps.numerator / f->min_fps.denominator - 1e-9 &&
           x <= (double)f->max_fps.numerator / f->max_fps.denominator + 1e-9;
}

/* The highest rate of f that is not above want (want itself when f takes
 * it and exact is set; for rate ranges else the ladder's); else f's highest. */
static camcore_fraction best_rate(const camcore_format *f, camcore_fraction want, int exact)
{
    camcore_fraction none = {0, 0};
    size_t i;
    double w = want.denominator ? (double)want.numerator / want.denominator : 1e9;

    if (f->rate_kind == CAMCORE_RANGE_DISCRETE) {
        for (i = 0; i < f->rate_count; i++) /* highest first */
            if ((double)f->rates[i].numerator / f->rates[i].denominator <= w + 1e-9)
                return f->rates[i];
        return f->rate_count ? f->rates[0] : none;
    }
    if (exact && want.denominator && rate_fits(f, want))
        return want;
    for (i = 0; i < sizeof ladder_rates / sizeof ladder_rates[0]; i++) {
        camcore_fraction r = {ladder_rates[i], 1};
        if (ladder_rates[i] <= w + 1e-9 && rate_fits(f, r))
            return r;
    }
    return f->max_fps.denominator ? f->max_fps : none;
}

/* Sizes of the current pixel format, in list order; returns the count. */
static size_t sizes_of(const camcore_format_list *list, uint32_t fourcc, uint32_t out[][2], size_t max)
{
    size_t i, j, n = 0;

    for (i = 0; i < list->count && n < max; i++) {
        const camcore_format *f = &list->formats[i];
        if (f->fourcc != fourcc)
            continue;
        if (f->size_kind == CAMCORE_RANGE_DISCRETE) {
            out[n][0] = f->width, out[n][1] = f->height, n++;
            continue;
        }
        for (j = 0; j < sizeof ladder_sizes / sizeof ladder_sizes[0] && n < max; j++)
            if (size_fits(f, ladder_sizes[j][0], ladder_sizes[j][1]))
                out[n][0] = ladder_sizes[j][0], out[n][1] = ladder_sizes[j][1], n++;
    }
    return n;
}

static const camcore_format *format_entry(const camcore_format_list *list, uint32_t fourcc, uint32_t w,
                                          uint32_t h)
{
    size_t i;

    for (i = 0; i < list->count; i++)
        if (list->formats[i].fourcc == fourcc && size_fits(&list->formats[i], w, h))
            return &list->formats[i];
    return NULL;
}

/* 'z' (next size) and 'r' (next lower rate, then the highest again):
 * camcore_session_change() with the current pixel format (S17). */
static void change_setting(struct view *v, camcore_manager *m, camcore_session *s, int what_size)
{
    camcore_session_state st;
    camcore_format_list *list = NULL;
    camcore_capture_config cfg;
    const camcore_format *f;
    uint32_t sizes[64][2], w, h;
    camcore_fraction rate;
    size_t n, i;
    char code[8], text[32];

    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    if (camcore_session_get_state(s, &st) != CAMCORE_OK || !st.camera_on) {
        post(v, "the camera is off: resume first to change its %s", what_size ? "size" : "rate");
        return;
    }
    if (camcore_manager_list_formats(m, st.device_id, &list) != CAMCORE_OK) {
        post(v, "cannot list the formats: %s", camcore_last_error_message());
        return;
    }
    w = st.format.width, h = st.format.height, rate = st.format.fps;
    if (what_size) {
        n = sizes_of(list, st.format.fourcc, sizes, 64);
        for (i = 0; i < n && !(sizes[i][0] == w && sizes[i][1] == h); i++)
            ;
        if (n < 2) {
            post(v, "%s has no other size", fourcc_text(st.format.fourcc, code));
            goto out;
        }
        i = i < n ? (i + 1) % n : 0;
        w = sizes[i][0], h = sizes[i][1];
        f = format_entry(list, st.format.fourcc, w, h);
        rate = f ? best_rate(f, rate, 1) : rate;
    } else {
        camcore_fraction lower = rate;
        f = format_entry(list, st.format.fourcc, w, h);
        if (f == NULL) {
            post(v, "no rates listed for %s %ux%u", fourcc_text(st.format.fourcc, code), w, h);
            goto out;
        }
        /* Just below the current rate; from the lowest back to the highest. */
        if (rate.numerator && rate.denominator) {
            lower.numerator = rate.numerator * 1000u / rate.denominator;
            lower.denominator = 1000u;
            lower.numerator = lower.numerator > 1 ? lower.numerator - 1 : 1;
        }
        rate = best_rate(f, lower, 0);
        if (rate.numerator == 0 || (uint64_t)rate.numerator * st.format.fps.denominator >=
                                       (uint64_t)st.format.fps.numerator * rate.denominator) {
            camcore_fraction top = {1000000, 1};
            rate = best_rate(f, top, 0);
        }
        if ((uint64_t)rate.numerator * st.format.fps.denominator ==
            (uint64_t)st.format.fps.numerator * rate.denominator) {
            post(v, "%s %ux%u has no other rate", fourcc_text(st.format.fourcc, code), w, h);
            goto out;
        }
    }
    camcore_capture_config_init(&cfg);
    cfg.fourcc = st.format.fourcc;
    cfg.width = w;
    cfg.height = h;
    cfg.fps = rate;
    post(v, "changing to %s %ux%u @ %s fps", fourcc_text(cfg.fourcc, code), w, h,
         fps_text(rate, text, sizeof text));
    {
        struct completion *c = completion(v, what_size ? "size change" : "rate change");
        if (camcore_session_change(s, &cfg, c ? on_done : NULL, c) != CAMCORE_OK) {
            post(v, "cannot change: %s", camcore_last_error_message());
            free(c);
        }
    }
out:
    camcore_format_list_free(list);
}

/* 'n': the next listed camera after the one in use (S18 select). */
static void next_camera(struct view *v, camcore_manager *m, camcore_session *s)
{
    camcore_session_state st;
    camcore_device_list *list = NULL;
    size_t i;

    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    camcore_session_get_state(s, &st);
    if (camcore_manager_list_devices(m, &list) != CAMCORE_OK || list->count == 0) {
        post(v, "no camera to switch to");
        camcore_device_list_free(list);
        return;
    }
    for (i = 0; i < list->count && strcmp(list->devices[i].id, st.device_id) != 0; i++)
        ;
    i = i < list->count ? (i + 1) % list->count : 0;
    if (strcmp(list->devices[i].id, st.device_id) == 0) {
        post(v, "no other camera");
    } else {
        struct completion *c = completion(v, "switching cameras");
        post(v, "switching to %s", list->devices[i].name);
        if (camcore_session_select(s, list->devices[i].id, c ? on_done : NULL, c) != CAMCORE_OK) {
            post(v, "cannot switch: %s", camcore_last_error_message());
            free(c);
        }
    }
    camcore_device_list_free(list);
}

/* 's': the frame on screen as a PNG in the snapshot directory. */
static void snapshot(struct view *v, const camcore_frame *shown, const char *dir, unsigned *count)
{
    char path[4096];
    struct stat sb;

    if (shown == NULL) {
        post(v, "no frame to save");
        return;
    }
    do
        snprintf(path, sizeof path, "%s/camcore-view-%03u.png", dir, ++*count);
    while (lstat(path, &sb) == 0 && *count < 100000); /* any name there, links too, is skipped */
    if (write_snapshot(shown, path) == 0)
        post(v, "snapshot saved: %s (%ux%u)", path, shown->width, shown->height);
    else
        post(v, "snapshot failed: %s", path);
}

/* ------------------------------------------------------------------ */
/* SDL and the window's loop                                          */
/* ------------------------------------------------------------------ */

/* SDL first: without it, or without a display, no camera is opened.
 * Returns an exit code. */
static int open_sdl(struct view *v)
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

static void close_sdl(void)
{
    if (ttf.handle)
        ttf.TTF_Quit();
    if (sdl.handle)
        sdl.SDL_Quit();
}

/* The window on the running session until quit, Escape, closing it or
 * --seconds. Returns an exit code. */
static int run_window(struct view *v, struct devices *d, camcore_session *session, int mirror, const char *snapdir,
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

static int open_sdl(struct view *v)
{
    (void)v;
    errorf("view: this " PROGRAM " was built without SDL2, so it has no window; install libsdl2-dev and rebuild "
           "it, or serve the video with --serve PORT");
    return EXIT_FAILED;
}

static void close_sdl(void)
{
}

static int run_window(struct view *v, struct devices *d, camcore_session *session, int mirror, const char *snapdir,
                      double seconds)
{
    (void)v, (void)d, (void)session, (void)mirror, (void)snapdir, (void)seconds;
    return EXIT_FAILED;
}

#endif /* CAMCORE_TOOL_SDL2 */

/* ------------------------------------------------------------------ */
/* The command                                                        */
/* ------------------------------------------------------------------ */

const char view_usage[] =
    "usage: " PROGRAM " view [DEVICE] [OPTIONS]\n"
    "\n"
    "Shows the camera live in a window (SDL2) through a video session: the\n"
    "camera is on while the video runs and off (LED off) while it is paused or\n"
    "held, as in a video call. Cameras that come and go are told in the window;\n"
    "when the camera in use goes away the session switches to another one (or\n"
    "camcore's synthetic camera) and back when it returns.\n"
    "DEVICE: an index from `" PROGRAM " list`, an id or a node; default: the first camera\n"
    "(camcore's synthetic camera when there is none).\n"
    "\n"
    "Keys:\n"
    "  space, p    pause / resume the video (the camera turns off / on)\n"
    "  h           hold / unhold (camera off while held)\n"
    "  f           flip: the camera facing the other way, or the next one\n"
    "  n           next camera\n"
    "  z           next frame size of the pixel format in use\n"
    "  r           next lower frame rate (after the lowest: the highest)\n"
    "  m           mirror the picture (left-right)\n"
    "  s           save the picture as a PNG (camcore-view-NNN.png)\n"
    "  q, Escape   quit (so does closing the window)\n"
    "\n"
    "The title shows the camera, its pixel format, size and the measured rate;\n"
    "the line at the bottom the frames the camera dropped and the corrupted ones.\n"
    "\n"
    "Options:\n"
    "  --size WxH          the preferred frame size (default: nearest to 1280x720)\n"
    "  --fps N[/D]         the preferred frame rate\n"
    "  --format FOURCC     capture this pixel format (with --size and --fps)\n"
    "  --seconds S         close the window after S seconds\n"
    "  --snapshot-dir DIR  where 's' saves pictures (default: the current directory)\n"
    "  --mirror            start mirrored\n"
    "  --quiet             no messages on stderr\n"
    "  --serve PORT        no window: serve the video as MJPEG over HTTP instead, for a\n"
    "                      browser: http://127.0.0.1:PORT/ (the page), /stream (the\n"
    "                      multipart MJPEG stream), /snapshot.jpg (one frame); PORT 0\n"
    "                      takes a free port (the URL is printed on stderr). GET and\n"
    "                      HEAD; idle connections and requests not complete within\n"
    "                      10 s are closed, requests over 8 KiB answered 431; up to\n"
    "                      512 clients at once. Runs until Ctrl-C or --seconds;\n"
    "                      needs libmicrohttpd, no SDL2 and no display\n"
    "  --bind ADDR         the IPv4 address to serve on (default 127.0.0.1: this\n"
    "                      machine only)\n"
    "  --backend B, --portal P   as for every command (" PROGRAM " --help)\n"
    "  -h, --help          this help\n"
    "\n"
    "Needs SDL2 (Debian: libsdl2-2.0-0) and a display; the on-screen text needs\n"
    "SDL2_ttf (libsdl2-ttf-2.0-0) and DejaVu Sans Mono (fonts-dejavu-core) or\n"
    "the font file in CAMCORE_VIEW_FONT. Exit codes as for every command: 3 no\n"
    "such camera, 4 camera busy or no permission, 1 no display or no SDL2.\n"
#ifndef CAMCORE_TOOL_SDL2
    "\nThis " PROGRAM " was built without SDL2 (libsdl2-dev): it has no window, only --serve.\n"
#endif
    ;

int cmd_view(int argc, char **argv)
{
    enum { OPT_SIZE = OPT_COMMAND, OPT_FPS, OPT_FORMAT, OPT_SECONDS, OPT_SNAPDIR, OPT_MIRROR, OPT_QUIET, OPT_SERVE,
           OPT_BIND };
    static const struct option options[] = {
        {"serve", required_argument, NULL, OPT_SERVE},
        {"bind", required_argument, NULL, OPT_BIND},
        {"size", required_argument, NULL, OPT_SIZE},
        {"fps", required_argument, NULL, OPT_FPS},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"seconds", required_argument, NULL, OPT_SECONDS},
        {"snapshot-dir", required_argument, NULL, OPT_SNAPDIR},
        {"mirror", no_argument, NULL, OPT_MIRROR},
        {"quiet", no_argument, NULL, OPT_QUIET},
        COMMON_OPTIONS,
        {0, 0, 0, 0},
    };
    struct devices d;
    const camcore_device_info *dev;
    camcore_session *session = NULL;
    camcore_session_config scfg;
    camcore_frame_callbacks sink;
    camcore_device_callbacks dcb;
    struct view v;
    const char *spec = NULL, *snapdir = ".";
    uint32_t width = 0, height = 0, fourcc = 0;
    camcore_fraction fps = {0, 0};
    double seconds = 0;
    int opt, rc = EXIT_OK, status, mirror = 0, quiet = 0, serve_port = -1;
    const char *bind_addr = "127.0.0.1";

    while ((opt = getopt_long(argc, argv, COMMON_SHORT, options, NULL)) != -1) {
        const char *val = optarg;
        switch (opt) {
        case OPT_SIZE:
            if (parse_size(val, &width, &height))
                return usage_error("view: --size '%s' is not WIDTHxHEIGHT (e.g. 640x480)", val);
            break;
        case OPT_FPS:
            if (parse_fps(val, &fps))
                return usage_error("view: --fps '%s' is not a frame rate (30, 30000/1001)", val);
            break;
        case OPT_FORMAT:
            if (parse_fourcc(val, &fourcc) || fourcc == 0)
                return usage_error("view: --format '%s' is not a FourCC (YUYV, MJPG, ...)", val);
            break;
        case OPT_SECONDS: {
            char *end;
            errno = 0;
            seconds = strtod(val, &end);
            if (errno || *end || !(seconds > 0) || seconds > 1e7)
                return usage_error("view: --seconds '%s' is not a positive number of seconds", val);
            break;
        }
        case OPT_SNAPDIR: {
            struct stat sb;
            if (stat(val, &sb) != 0 || !S_ISDIR(sb.st_mode))
                return usage_error("view: --snapshot-dir '%s' is not a directory", val);
            snapdir = val;
            break;
        }
        case OPT_MIRROR:
            mirror = 1;
            break;
        case OPT_SERVE: {
            uint32_t p;
            if (parse_u32(val, &p) || p > 65535)
                return usage_error("view: --serve '%s' is not a TCP port (0-65535; 0: any free one)", val);
            serve_port = (int)p;
            break;
        }
        case OPT_BIND: {
            struct in_addr a;
            if (inet_pton(AF_INET, val, &a) != 1)
                return usage_error("view: --bind '%s' is not an IPv4 address (e.g. 127.0.0.1)", val);
            bind_addr = val;
            break;
        }
        case OPT_QUIET:
            quiet = 1;
            break;
        default: {
            int r = common_option("view", view_usage, opt, argv);
            if (r == OPTION_MINE)
                r = usage_error("view: unknown option '%s'", argv[optind - 1]);
            if (r != OPTION_NEXT)
                return r;
        }
        }
    }
    if (optind < argc)
        spec = argv[optind++];
    if (optind < argc)
        return usage_error("view: unexpected argument '%s'", argv[optind]);
    if (g_json)
        return usage_error("view: --json has no meaning for a window");

    memset(&v, 0, sizeof v);
    v.quiet = quiet;
    v.wake_fd = -1;
    if (serve_port >= 0) {
        /* --serve: no window, no SDL; frames wake the server through an eventfd. */
        if (!serve_available()) {
            errorf("view: --serve: this " PROGRAM " was built without libmicrohttpd; install libmicrohttpd-dev "
                   "and rebuild it");
            return EXIT_FAILED;
        }
        if ((v.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
            errorf("view: eventfd: %s", strerror(errno));
            return EXIT_FAILED;
        }
    } else if ((rc = open_sdl(&v)) != EXIT_OK) {
        return rc;
    }
    pthread_mutex_init(&v.lock, NULL);

    if ((rc = load_devices(&d, 1)) != EXIT_OK)
        goto out_sdl;
    if ((dev = resolve_device(&d, spec)) == NULL) {
        rc = EXIT_NO_DEVICE;
        goto out_devices;
    }

    /* The session: the window is its transmission sink. */
    camcore_session_config_init(&scfg);
    scfg.device_id = dev->id;
    if (width)
        scfg.preference.width = width, scfg.preference.height = height;
    if (fps.denominator)
        scfg.preference.min_fps = fps, scfg.preference.max_fps = fps;
    if ((status = camcore_session_new(d.manager, &scfg, &session)) != CAMCORE_OK) {
        rc = fail(status, "starting the session", dev);
        goto out_devices;
    }
    memset(&dcb, 0, sizeof dcb);
    dcb.struct_size = sizeof dcb;
    dcb.user_data = &v;
    dcb.on_connected = on_connected;
    dcb.on_disconnected = on_disconnected;
    dcb.on_selected = on_selected;
    dcb.on_error = on_device_error;
    dcb.on_stall = on_stall;
    camcore_session_set_device_callbacks(session, &dcb);
    memset(&sink, 0, sizeof sink);
    sink.struct_size = sizeof sink;
    sink.user_data = &v;
    sink.on_frame = on_frame;
    camcore_session_set_transmission_sink(session, &sink);
    if (fourcc) {
        camcore_capture_config cfg;
        camcore_capture_config_init(&cfg);
        cfg.fourcc = fourcc;
        /* Without --size: the preference's size (1280x720), as --help says. */
        cfg.width = width ? width : scfg.preference.width;
        cfg.height = width ? height : scfg.preference.height;
        cfg.fps = fps;
        if ((status = camcore_session_start(session, &cfg, NULL, NULL)) != CAMCORE_OK) {
            rc = fail(status, "setting the capture format", dev);
            goto out_session;
        }
    }
    if ((status = camcore_session_start_transmission(session, CAMCORE_VIDEO_RESUME, 0)) != CAMCORE_OK) {
        rc = fail(status, "turning the camera on", dev);
        goto out_session;
    }

    if (serve_port >= 0) {
        struct serve_source src;
        src.wake_fd = v.wake_fd;
        src.take = take_frame;
        src.user = &v;
        src.quiet = quiet;
        catch_signals();
        rc = serve_http(&src, dev->name, bind_addr, (uint32_t)serve_port, seconds);
    } else {
        rc = run_window(&v, &d, session, mirror, snapdir, seconds);
    }

out_session:
    camcore_session_free(session); /* the camera off; no callback after this */
    camcore_frame_release(v.pending);
out_devices:
    free_devices(&d);
out_sdl:
    close_sdl();
    if (v.wake_fd >= 0)
        close(v.wake_fd);
    pthread_mutex_destroy(&v.lock);
    return rc;
}
