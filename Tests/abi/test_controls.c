// SPDX-License-Identifier: MIT
/*
 * test_controls.c — the controls section of the C ABI (S27, S28) as a C
 * user meets it, against the synthetic camera (which has no controls):
 * the constants equal V4L2's (checked at compile time against
 * <linux/videodev2.h>), the list is empty, get and set give
 * CAMCORE_E_NOT_SUPPORTED, callbacks are accepted and never called, and bad
 * input gives CAMCORE_E_INVALID_ARG (S31). The same calls against vivid's
 * real controls are in Tests/kernel/test_controls.py.
 *
 * Every check prints on failure; the last line is "N passed, M failed".
 *
 * Build:  cc -std=c99 test_controls.c testlib.c $(pkg-config --cflags --libs camcore) -pthread
 */
#define _DEFAULT_SOURCE /* usleep */
#define _POSIX_C_SOURCE 200809L

#include "testlib.h"

#include <linux/videodev2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Compile-time: camcore's values are V4L2's (S27). */
#define SAME(a, b) typedef char same_##a[((uint64_t)(a) == (uint64_t)(b)) ? 1 : -1]
SAME(CAMCORE_CID_BRIGHTNESS, V4L2_CID_BRIGHTNESS);
SAME(CAMCORE_CID_CONTRAST, V4L2_CID_CONTRAST);
SAME(CAMCORE_CID_SATURATION, V4L2_CID_SATURATION);
SAME(CAMCORE_CID_SHARPNESS, V4L2_CID_SHARPNESS);
SAME(CAMCORE_CID_GAIN, V4L2_CID_GAIN);
SAME(CAMCORE_CID_AUTOGAIN, V4L2_CID_AUTOGAIN);
SAME(CAMCORE_CID_POWER_LINE_FREQUENCY, V4L2_CID_POWER_LINE_FREQUENCY);
SAME(CAMCORE_CID_BACKLIGHT_COMPENSATION, V4L2_CID_BACKLIGHT_COMPENSATION);
SAME(CAMCORE_CID_WHITE_BALANCE_AUTO, V4L2_CID_AUTO_WHITE_BALANCE);
SAME(CAMCORE_CID_WHITE_BALANCE_TEMPERATURE, V4L2_CID_WHITE_BALANCE_TEMPERATURE);
SAME(CAMCORE_CID_EXPOSURE_AUTO, V4L2_CID_EXPOSURE_AUTO);
SAME(CAMCORE_CID_EXPOSURE_ABSOLUTE, V4L2_CID_EXPOSURE_ABSOLUTE);
SAME(CAMCORE_CID_FOCUS_AUTO, V4L2_CID_FOCUS_AUTO);
SAME(CAMCORE_CID_FOCUS_ABSOLUTE, V4L2_CID_FOCUS_ABSOLUTE);
SAME(CAMCORE_CID_ZOOM_ABSOLUTE, V4L2_CID_ZOOM_ABSOLUTE);
SAME(CAMCORE_CID_PAN_ABSOLUTE, V4L2_CID_PAN_ABSOLUTE);
SAME(CAMCORE_CID_TILT_ABSOLUTE, V4L2_CID_TILT_ABSOLUTE);
SAME(CAMCORE_CONTROL_TYPE_INTEGER, V4L2_CTRL_TYPE_INTEGER);
SAME(CAMCORE_CONTROL_TYPE_BOOLEAN, V4L2_CTRL_TYPE_BOOLEAN);
SAME(CAMCORE_CONTROL_TYPE_MENU, V4L2_CTRL_TYPE_MENU);
SAME(CAMCORE_CONTROL_TYPE_BUTTON, V4L2_CTRL_TYPE_BUTTON);
SAME(CAMCORE_CONTROL_TYPE_INTEGER64, V4L2_CTRL_TYPE_INTEGER64);
SAME(CAMCORE_CONTROL_TYPE_STRING, V4L2_CTRL_TYPE_STRING);
SAME(CAMCORE_CONTROL_TYPE_BITMASK, V4L2_CTRL_TYPE_BITMASK);
SAME(CAMCORE_CONTROL_TYPE_INTEGER_MENU, V4L2_CTRL_TYPE_INTEGER_MENU);
SAME(CAMCORE_CONTROL_FLAG_DISABLED, V4L2_CTRL_FLAG_DISABLED);
SAME(CAMCORE_CONTROL_FLAG_GRABBED, V4L2_CTRL_FLAG_GRABBED);
SAME(CAMCORE_CONTROL_FLAG_READ_ONLY, V4L2_CTRL_FLAG_READ_ONLY);
SAME(CAMCORE_CONTROL_FLAG_UPDATE, V4L2_CTRL_FLAG_UPDATE);
SAME(CAMCORE_CONTROL_FLAG_INACTIVE, V4L2_CTRL_FLAG_INACTIVE);
SAME(CAMCORE_CONTROL_FLAG_SLIDER, V4L2_CTRL_FLAG_SLIDER);
SAME(CAMCORE_CONTROL_FLAG_WRITE_ONLY, V4L2_CTRL_FLAG_WRITE_ONLY);
SAME(CAMCORE_CONTROL_FLAG_VOLATILE, V4L2_CTRL_FLAG_VOLATILE);
SAME(CAMCORE_CONTROL_FLAG_HAS_PAYLOAD, V4L2_CTRL_FLAG_HAS_PAYLOAD);
SAME(CAMCORE_CONTROL_FLAG_EXECUTE_ON_WRITE, V4L2_CTRL_FLAG_EXECUTE_ON_WRITE);
SAME(CAMCORE_CONTROL_FLAG_MODIFY_LAYOUT, V4L2_CTRL_FLAG_MODIFY_LAYOUT);
SAME(CAMCORE_CONTROL_CHANGED_VALUE, V4L2_EVENT_CTRL_CH_VALUE);
SAME(CAMCORE_CONTROL_CHANGED_FLAGS, V4L2_EVENT_CTRL_CH_FLAGS);
SAME(CAMCORE_CONTROL_CHANGED_RANGE, V4L2_EVENT_CTRL_CH_RANGE);
#ifdef V4L2_CTRL_FLAG_DYNAMIC_ARRAY
SAME(CAMCORE_CONTROL_FLAG_DYNAMIC_ARRAY, V4L2_CTRL_FLAG_DYNAMIC_ARRAY);
#endif

static camcore_manager *g_manager;
static char g_synth_id[128];
static int g_calls;

static void on_changed(void *user_data, uint32_t id, int64_t value, uint32_t flags,
                       uint32_t changes)
{
    (void)id, (void)value, (void)flags, (void)changes;
    ++*(int *)user_data;
}

static camcore_capturer *open_synthetic(void)
{
    camcore_capturer *cap = NULL;
    CHECK_STATUS(camcore_capturer_open(g_manager, g_synth_id, &cap), CAMCORE_OK, "open synthetic");
    return cap;
}

static void test_S27_synthetic_lists_no_controls(void)
{
    camcore_capturer *cap = open_synthetic();
    camcore_control_list *list = (camcore_control_list *)1;

    CHECK_STATUS(camcore_capturer_list_controls(cap, &list), CAMCORE_OK, "list_controls");
    CHECK(list != NULL && list->count == 0 && list->controls == NULL,
          "an empty list (count 0, controls NULL), got %p count %zu", (void *)list,
          list ? list->count : (size_t)0);
    camcore_control_list_free(list);
    camcore_control_list_free(NULL);
    camcore_capturer_close(cap);
}

static void test_S27_synthetic_get_set_not_supported(void)
{
    camcore_capturer *cap = open_synthetic();
    int64_t v = 77, applied = 77;

    CHECK_STATUS(camcore_capturer_get_control(cap, CAMCORE_CID_BRIGHTNESS, &v),
                 CAMCORE_E_NOT_SUPPORTED, "get brightness");
    CHECK(v == 77, "value untouched on failure, got %lld", (long long)v);
    CHECK(strstr(camcore_last_error_message(), "no controls") != NULL,
          "message says the device has no controls: \"%s\"", camcore_last_error_message());
    CHECK_STATUS(camcore_capturer_set_control(cap, CAMCORE_CID_BRIGHTNESS, 10, &applied),
                 CAMCORE_E_NOT_SUPPORTED, "set brightness");
    CHECK(applied == 77, "applied untouched on failure, got %lld", (long long)applied);
    CHECK_STATUS(camcore_capturer_set_control(cap, 0x12345678u, 0, NULL), CAMCORE_E_NOT_SUPPORTED,
                 "set an unknown id, applied NULL");
    {
        char text[8] = "keep";
        CHECK_STATUS(camcore_capturer_get_control_string(cap, 0x00980905u, text, sizeof text),
                     CAMCORE_E_NOT_SUPPORTED, "get a string control");
        CHECK(strcmp(text, "keep") == 0, "buffer untouched on failure, got \"%s\"", text);
        CHECK_STATUS(camcore_capturer_set_control_string(cap, 0x00980905u, "abc"), CAMCORE_E_NOT_SUPPORTED,
                     "set a string control");
    }
    camcore_capturer_close(cap);
}

static void test_S27_synthetic_accepts_callbacks_never_calls(void)
{
    camcore_capturer *cap = open_synthetic();
    camcore_control_callbacks cb;
    camcore_capture_config cfg;

    camcore_control_callbacks_init(&cb);
    CHECK(cb.struct_size == sizeof cb && cb.user_data == NULL && cb.on_control_changed == NULL,
          "init fills struct_size and NULLs");
    camcore_control_callbacks_init(NULL);
    cb.user_data = &g_calls;
    cb.on_control_changed = on_changed;
    CHECK_STATUS(camcore_capturer_set_control_callbacks(cap, &cb), CAMCORE_OK, "set callbacks");
    camcore_capture_config_init(&cfg);
    cfg.width = 160;
    cfg.height = 120;
    cfg.fps.numerator = 60;
    CHECK_STATUS(camcore_capturer_start(cap, &cfg, NULL), CAMCORE_OK, "start");
    usleep(200 * 1000);
    CHECK_STATUS(camcore_capturer_stop(cap), CAMCORE_OK, "stop");
    CHECK_STATUS(camcore_capturer_set_control_callbacks(cap, NULL), CAMCORE_OK, "remove callbacks");
    CHECK(g_calls == 0, "no control change reported, got %d", g_calls);
    cb.struct_size = 4;
    CHECK_STATUS(camcore_capturer_set_control_callbacks(cap, &cb), CAMCORE_E_INVALID_ARG,
                 "struct_size too small");
    CHECK(strstr(camcore_last_error_message(), "camcore_control_callbacks_init") != NULL,
          "message names the init function: \"%s\"", camcore_last_error_message());
    camcore_capturer_close(cap);
}

static void test_S31_control_bad_input(void)
{
    camcore_capturer *cap = open_synthetic();
    camcore_control_list *list = (camcore_control_list *)1;
    int64_t v = 0;

    CHECK_STATUS(camcore_capturer_list_controls(NULL, &list), CAMCORE_E_INVALID_ARG, "list NULL cap");
    CHECK(list == NULL, "out set to NULL on failure");
    CHECK_STATUS(camcore_capturer_list_controls(cap, NULL), CAMCORE_E_INVALID_ARG, "list out NULL");
    CHECK_STATUS(camcore_capturer_get_control(NULL, CAMCORE_CID_GAIN, &v), CAMCORE_E_INVALID_ARG,
                 "get NULL cap");
    CHECK_STATUS(camcore_capturer_get_control(cap, CAMCORE_CID_GAIN, NULL), CAMCORE_E_INVALID_ARG,
                 "get value NULL");
    CHECK_STATUS(camcore_capturer_set_control(NULL, CAMCORE_CID_GAIN, 1, NULL),
                 CAMCORE_E_INVALID_ARG, "set NULL cap");
    CHECK_STATUS(camcore_capturer_set_control_callbacks(NULL, NULL), CAMCORE_E_INVALID_ARG,
                 "callbacks NULL cap");
    {
        char text[4];
        CHECK_STATUS(camcore_capturer_get_control_string(NULL, 1, text, sizeof text), CAMCORE_E_INVALID_ARG,
                     "get string NULL cap");
        CHECK_STATUS(camcore_capturer_get_control_string(cap, 1, NULL, 4), CAMCORE_E_INVALID_ARG,
                     "get string buffer NULL");
        CHECK_STATUS(camcore_capturer_get_control_string(cap, 1, text, 0), CAMCORE_E_INVALID_ARG,
                     "get string size 0");
        CHECK_STATUS(camcore_capturer_set_control_string(cap, 1, NULL), CAMCORE_E_INVALID_ARG,
                     "set string NULL value");
        CHECK_STATUS(camcore_capturer_set_control_string(NULL, 1, "x"), CAMCORE_E_INVALID_ARG,
                     "set string NULL cap");
    }
    camcore_capturer_close(cap);
    /* A closed (freed) handle is refused, not dereferenced. */
    CHECK_STATUS(camcore_capturer_list_controls(cap, &list), CAMCORE_E_INVALID_ARG, "list closed");
    CHECK_STATUS(camcore_capturer_get_control(cap, CAMCORE_CID_GAIN, &v), CAMCORE_E_INVALID_ARG,
                 "get closed");
    CHECK_STATUS(camcore_capturer_set_control(cap, CAMCORE_CID_GAIN, 1, NULL),
                 CAMCORE_E_INVALID_ARG, "set closed");
    CHECK_STATUS(camcore_capturer_set_control_callbacks(cap, NULL), CAMCORE_E_INVALID_ARG,
                 "callbacks closed");
}

static void test_S27_struct_layout(void)
{
    camcore_control_info info;
    camcore_menu_item item;

    memset(&info, 0, sizeof info);
    memset(&item, 0, sizeof item);
    CHECK(sizeof(info.minimum) == 8 && sizeof(info.value) == 8 && sizeof(item.value) == 8,
          "64-bit values");
    CHECK(sizeof(camcore_control_info) == 72, "camcore_control_info is 72 bytes on LP64, got %zu",
          sizeof(camcore_control_info));
    CHECK(sizeof(camcore_menu_item) == 24, "camcore_menu_item is 24 bytes on LP64, got %zu",
          sizeof(camcore_menu_item));
}

static const char *setup(void)
{
    static char why[512];
    camcore_manager_config mcfg;
    camcore_device_list *list = NULL;
    size_t i;

    camcore_manager_config_init(&mcfg);
    mcfg.include_synthetic = 1;
    if (camcore_manager_new(&mcfg, &g_manager) != CAMCORE_OK ||
        camcore_manager_list_devices(g_manager, &list) != CAMCORE_OK) {
        snprintf(why, sizeof why, "%s", camcore_last_error_message());
        return why;
    }
    for (i = 0; i < list->count; i++)
        if (list->devices[i].flags & CAMCORE_DEVICE_SYNTHETIC)
            snprintf(g_synth_id, sizeof g_synth_id, "%s", list->devices[i].id);
    camcore_device_list_free(list);
    if (!g_synth_id[0])
        return "no synthetic camera listed";
    return NULL;
}

static void teardown(void)
{
    camcore_manager_free(g_manager);
}

static const struct testlib_test tests[] = {
    TESTLIB_TEST(test_S27_struct_layout),
    TESTLIB_TEST(test_S27_synthetic_lists_no_controls),
    TESTLIB_TEST(test_S27_synthetic_get_set_not_supported),
    TESTLIB_TEST(test_S27_synthetic_accepts_callbacks_never_calls),
    TESTLIB_TEST(test_S31_control_bad_input),
};

static const struct testlib_suite suite = {
    tests, TESTLIB_COUNT(tests), 60, setup, teardown, 0, 0,
};

int main(int argc, char **argv)
{
    return testlib_main(argc, argv, &suite);
}
