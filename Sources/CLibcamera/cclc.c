/* SPDX-License-Identifier: MIT */
/*
 * Loads camcore's libcamera plugin (plugin/cclc_plugin.cpp, built by the
 * Makefile as libcamcore-libcamera.so) at run time: libcamcore never links
 * libcamera (SPEC S41), so it loads and works where libcamera is absent.
 */
#define _GNU_SOURCE
#include "cclc.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static const cclc_api *g_api;
static char g_why[512];

/* This file's own library (libcamcore.so.0), for the plugin beside it. */
static void own_dir(char *out, size_t n)
{
    Dl_info info;
    const char *slash;

    out[0] = 0;
    if (!dladdr((void *)&cclc_load, &info) || !info.dli_fname)
        return;
    slash = strrchr(info.dli_fname, '/');
    if (!slash || (size_t)(slash - info.dli_fname) + 1 >= n)
        return;
    memcpy(out, info.dli_fname, (size_t)(slash - info.dli_fname));
    out[slash - info.dli_fname] = 0;
}

static void load_once(void)
{
    const char *env = getenv("CAMCORE_LIBCAMERA_PLUGIN");
    char dir[4096], path[4200];
    void *h = NULL;
    const char *tried;
    cclc_plugin_fn entry;

    if (env && *env) {
        tried = env;
        h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
    } else {
        own_dir(dir, sizeof dir);
        snprintf(path, sizeof path, "%s/camcore/libcamcore-libcamera.so", dir[0] ? dir : ".");
        tried = path;
        h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            h = dlopen("libcamcore-libcamera.so", RTLD_NOW | RTLD_LOCAL);
            if (h)
                tried = "libcamcore-libcamera.so";
        }
    }
    if (!h) {
        const char *e = dlerror();
        snprintf(g_why, sizeof g_why, "the libcamera plugin is not available (%s: %s); build it with "
                 "libcamera-dev installed (make), or set CAMCORE_LIBCAMERA_PLUGIN", tried, e ? e : "not found");
        return;
    }
    entry = (cclc_plugin_fn)dlsym(h, "camcore_libcamera_plugin");
    g_api = entry ? entry(CCLC_API_VERSION) : NULL;
    if (!g_api) {
        snprintf(g_why, sizeof g_why, "%s is not a camcore libcamera plugin of interface version %d", tried,
                 CCLC_API_VERSION);
        dlclose(h);
    }
}

const cclc_api *cclc_load(char *err, size_t errlen)
{
    pthread_once(&g_once, load_once);
    if (!g_api && err && errlen)
        snprintf(err, errlen, "%s", g_why);
    return g_api;
}
