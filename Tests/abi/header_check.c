// SPDX-License-Identifier: MIT
/*
 * header_check.c — compiled by Tests/abi/run as C99 and as C++17 with
 * -Wall -Wextra -Werror -pedantic: camcore.h must be self-contained (it is
 * included first), guarded against double inclusion, and every macro and
 * type must be usable without warnings in both languages.
 */
#include <camcore.h>
#include <camcore.h> /* the include guard works */

/* Uses each public type and macro once. */
static unsigned long use_everything(void)
{
    camcore_manager_config mc;
    camcore_capture_config cc;
    camcore_frame_callbacks cb;
    camcore_capture_format cf;
    camcore_capture_stats cs;
    camcore_device_info di;
    camcore_device_list dl;
    camcore_format fm;
    camcore_format_list fl;
    camcore_frame fr;
    camcore_plane pl;
    camcore_fraction fps;
    camcore_preference pr;
    camcore_setting se;
    camcore_status st = CAMCORE_E_WOULD_DEADLOCK;
    camcore_device_type ty = CAMCORE_DEVICE_TYPE_VIRTUAL;
    camcore_position po = CAMCORE_POSITION_EXTERNAL;
    camcore_range_kind rk = CAMCORE_RANGE_UNKNOWN;
    camcore_manager *m = 0;
    camcore_capturer *c = 0;
    unsigned long sum = 0;

    sum += sizeof mc + sizeof cc + sizeof cb + sizeof cf + sizeof cs + sizeof di + sizeof dl;
    sum += sizeof fm + sizeof fl + sizeof fr + sizeof pl + sizeof fps + sizeof pr + sizeof se;
    sum += (unsigned long)(st + (int)ty + (int)po + (int)rk + CAMCORE_OK + CAMCORE_E_INVALID_ARG +
                           CAMCORE_E_NO_DEVICE + CAMCORE_E_BUSY + CAMCORE_E_ACCESS +
                           CAMCORE_E_NOT_SUPPORTED + CAMCORE_E_TIMEOUT + CAMCORE_E_IO +
                           CAMCORE_E_STATE + CAMCORE_E_CUSTOM_SOURCE_ACTIVE + CAMCORE_E_NO_MEMORY +
                           CAMCORE_E_INTERNAL + CAMCORE_DEVICE_TYPE_BUILTIN +
                           CAMCORE_DEVICE_TYPE_EXTERNAL + CAMCORE_POSITION_UNKNOWN +
                           CAMCORE_POSITION_FRONT + CAMCORE_POSITION_BACK + CAMCORE_RANGE_DISCRETE +
                           CAMCORE_RANGE_STEPWISE + CAMCORE_RANGE_CONTINUOUS);
    sum += CAMCORE_VERSION + CAMCORE_VERSION_NUM(1, 2, 3) + CAMCORE_VERSION_MAJOR +
           CAMCORE_VERSION_MINOR + CAMCORE_VERSION_PATCH;
    sum += sizeof CAMCORE_VERSION_STRING + sizeof CAMCORE_EXPAND_AND_QUOTE(CAMCORE_VERSION_MAJOR);
    sum += CAMCORE_FOURCC_YUYV + CAMCORE_FOURCC_I420 + CAMCORE_FOURCC_NV12 + CAMCORE_FOURCC_RGB24 +
           CAMCORE_FOURCC_BGR24 + CAMCORE_FOURCC_MJPEG + CAMCORE_FOURCC_RGBA + CAMCORE_FOURCC_NATIVE +
           CAMCORE_FOURCC('G', 'R', 'E', 'Y');
    sum += CAMCORE_ADJUSTED_SIZE + CAMCORE_ADJUSTED_RATE + CAMCORE_ADJUSTED_FORMAT;
    sum += CAMCORE_FORMAT_COMPRESSED + CAMCORE_FORMAT_EMULATED + CAMCORE_FRAME_CORRUPTED +
           CAMCORE_DEVICE_MULTIPLANAR + CAMCORE_DEVICE_SYNTHETIC;
    sum += (unsigned long)(m == 0) + (unsigned long)(c == 0);
    return sum;
}

/* Every function, assigned to a pointer of the exact signature the ABI
 * promises (a changed signature breaks this; not called, nothing links). */
static int signatures(void)
{
    uint32_t (*version)(void) = camcore_version;
    const char *(*version_string)(void) = camcore_version_string;
    const char *(*strerror_)(int) = camcore_strerror;
    const char *(*last_error_message)(void) = camcore_last_error_message;
    char *(*fourcc_to_string)(uint32_t, char *) = camcore_fourcc_to_string;
    void (*manager_config_init)(camcore_manager_config *) = camcore_manager_config_init;
    int (*manager_new)(const camcore_manager_config *, camcore_manager **) = camcore_manager_new;
    void (*manager_free)(camcore_manager *) = camcore_manager_free;
    int (*list_devices)(camcore_manager *, camcore_device_list **) = camcore_manager_list_devices;
    void (*device_list_free)(camcore_device_list *) = camcore_device_list_free;
    int (*set_hotplug)(camcore_manager *, const camcore_hotplug_callbacks *) =
        camcore_manager_set_hotplug_callbacks;
    camcore_hotplug_callbacks hp;
    int (*list_formats)(camcore_manager *, const char *, camcore_format_list **) =
        camcore_manager_list_formats;
    void (*format_list_free)(camcore_format_list *) = camcore_format_list_free;
    void (*preference_init)(camcore_preference *) = camcore_preference_init;
    int (*negotiate)(camcore_manager *, const char *, const camcore_preference *,
                     camcore_setting *) = camcore_manager_negotiate;
    int (*format_for)(camcore_manager *, const char *, uint32_t, uint32_t, camcore_fraction,
                      camcore_setting *) = camcore_manager_format_for;
    int (*max_frame_rate)(camcore_manager *, const char *, uint32_t, uint32_t, uint32_t,
                          camcore_fraction, camcore_fraction *) = camcore_manager_max_frame_rate;
    const camcore_frame *(*frame_retain)(const camcore_frame *) = camcore_frame_retain;
    void (*frame_release)(const camcore_frame *) = camcore_frame_release;
    void (*frame_callbacks_init)(camcore_frame_callbacks *) = camcore_frame_callbacks_init;
    void (*capture_config_init)(camcore_capture_config *) = camcore_capture_config_init;
    int (*capturer_open)(camcore_manager *, const char *, camcore_capturer **) =
        camcore_capturer_open;
    void (*capturer_close)(camcore_capturer *) = camcore_capturer_close;
    int (*capturer_start)(camcore_capturer *, const camcore_capture_config *,
                          const camcore_frame_callbacks *) = camcore_capturer_start;
    int (*capturer_stop)(camcore_capturer *) = camcore_capturer_stop;
    int (*capturer_is_streaming)(const camcore_capturer *) = camcore_capturer_is_streaming;
    int (*capturer_get_format)(const camcore_capturer *, camcore_capture_format *) =
        camcore_capturer_get_format;
    int (*capturer_get_stats)(const camcore_capturer *, camcore_capture_stats *) =
        camcore_capturer_get_stats;
    int (*capturer_fd)(const camcore_capturer *) = camcore_capturer_fd;
    const char *(*capturer_device_id)(const camcore_capturer *) = camcore_capturer_device_id;
    void (*on_frame)(void *, const camcore_frame *) = 0;
    void (*on_error)(void *, int, const char *) = 0;
    camcore_frame_callbacks cb;

    cb.on_frame = on_frame; /* the callback slots have these types */
    cb.on_error = on_error;
    return (version != 0) + (version_string != 0) + (strerror_ != 0) + (last_error_message != 0) +
           (fourcc_to_string != 0) + (manager_config_init != 0) + (manager_new != 0) +
           (manager_free != 0) + (list_devices != 0) + (device_list_free != 0) + (set_hotplug != 0) + (sizeof hp != 0) +
           (list_formats != 0) + (format_list_free != 0) + (preference_init != 0) +
           (negotiate != 0) + (format_for != 0) + (max_frame_rate != 0) + (frame_retain != 0) +
           (frame_release != 0) + (frame_callbacks_init != 0) + (capture_config_init != 0) +
           (capturer_open != 0) + (capturer_close != 0) + (capturer_start != 0) +
           (capturer_stop != 0) + (capturer_is_streaming != 0) + (capturer_get_format != 0) +
           (capturer_get_stats != 0) + (capturer_fd != 0) + (capturer_device_id != 0) +
           (cb.on_frame == 0) + (cb.on_error == 0);
}

/* The pixel formats section: its type and each function signature. */
static int pixel_formats_section(void)
{
    camcore_pixel_format_info pi;
    int (*get_info)(uint32_t, camcore_pixel_format_info *) = camcore_pixel_format_get_info;
    int (*plane_size)(uint32_t, uint32_t, uint32_t, uint32_t, uint32_t *, uint32_t *) =
        camcore_pixel_format_plane_size;
    int (*frame_size)(uint32_t, uint32_t, uint32_t, uint32_t *) = camcore_pixel_format_frame_size;
    unsigned long sum = sizeof pi + sizeof pi.name + sizeof pi.description + sizeof pi.plane_group_bytes +
                        sizeof pi.plane_group_pixels + sizeof pi.plane_vertical_subsampling;

    pi.struct_size = (uint32_t)sizeof pi;
    pi.flags = CAMCORE_FORMAT_COMPRESSED;
    sum += pi.struct_size + pi.flags;
    return (int)(sum & 1u) + (get_info != 0) + (plane_size != 0) + (frame_size != 0);
}

/* The controls section (S27, S28): each type, macro and function signature. */
static int controls_section(void)
{
    camcore_control_info ci;
    camcore_menu_item mi;
    camcore_control_list cl;
    camcore_control_callbacks ccb;
    camcore_control_type ct = CAMCORE_CONTROL_TYPE_INTEGER_MENU;
    unsigned long sum = sizeof ci + sizeof mi + sizeof cl + sizeof ccb;
    int (*list_controls)(camcore_capturer *, camcore_control_list **) =
        camcore_capturer_list_controls;
    void (*control_list_free)(camcore_control_list *) = camcore_control_list_free;
    int (*get_control)(camcore_capturer *, uint32_t, int64_t *) = camcore_capturer_get_control;
    int (*set_control)(camcore_capturer *, uint32_t, int64_t, int64_t *) =
        camcore_capturer_set_control;
    int (*get_control_string)(camcore_capturer *, uint32_t, char *, size_t) =
        camcore_capturer_get_control_string;
    int (*set_control_string)(camcore_capturer *, uint32_t, const char *) =
        camcore_capturer_set_control_string;
    void (*control_callbacks_init)(camcore_control_callbacks *) = camcore_control_callbacks_init;
    int (*set_control_callbacks)(camcore_capturer *, const camcore_control_callbacks *) =
        camcore_capturer_set_control_callbacks;
    void (*on_control_changed)(void *, uint32_t, int64_t, uint32_t, uint32_t) = 0;

    ccb.on_control_changed = on_control_changed;
    sum += (unsigned long)((int)ct + CAMCORE_CONTROL_TYPE_INTEGER + CAMCORE_CONTROL_TYPE_BOOLEAN +
                           CAMCORE_CONTROL_TYPE_MENU + CAMCORE_CONTROL_TYPE_BUTTON +
                           CAMCORE_CONTROL_TYPE_INTEGER64 + CAMCORE_CONTROL_TYPE_STRING +
                           CAMCORE_CONTROL_TYPE_BITMASK);
    sum += CAMCORE_CONTROL_FLAG_DISABLED + CAMCORE_CONTROL_FLAG_GRABBED +
           CAMCORE_CONTROL_FLAG_READ_ONLY + CAMCORE_CONTROL_FLAG_UPDATE +
           CAMCORE_CONTROL_FLAG_INACTIVE + CAMCORE_CONTROL_FLAG_SLIDER +
           CAMCORE_CONTROL_FLAG_WRITE_ONLY + CAMCORE_CONTROL_FLAG_VOLATILE +
           CAMCORE_CONTROL_FLAG_HAS_PAYLOAD + CAMCORE_CONTROL_FLAG_EXECUTE_ON_WRITE +
           CAMCORE_CONTROL_FLAG_MODIFY_LAYOUT + CAMCORE_CONTROL_FLAG_DYNAMIC_ARRAY;
    sum += CAMCORE_CONTROL_CHANGED_VALUE + CAMCORE_CONTROL_CHANGED_FLAGS +
           CAMCORE_CONTROL_CHANGED_RANGE;
    sum += CAMCORE_CID_BRIGHTNESS + CAMCORE_CID_CONTRAST + CAMCORE_CID_SATURATION +
           CAMCORE_CID_SHARPNESS + CAMCORE_CID_GAIN + CAMCORE_CID_AUTOGAIN +
           CAMCORE_CID_POWER_LINE_FREQUENCY + CAMCORE_CID_BACKLIGHT_COMPENSATION +
           CAMCORE_CID_WHITE_BALANCE_AUTO + CAMCORE_CID_WHITE_BALANCE_TEMPERATURE +
           CAMCORE_CID_EXPOSURE_AUTO + CAMCORE_CID_EXPOSURE_ABSOLUTE + CAMCORE_CID_FOCUS_AUTO +
           CAMCORE_CID_FOCUS_ABSOLUTE + CAMCORE_CID_ZOOM_ABSOLUTE + CAMCORE_CID_PAN_ABSOLUTE +
           CAMCORE_CID_TILT_ABSOLUTE;
    return (int)(sum & 1u) + (list_controls != 0) + (control_list_free != 0) +
           (get_control != 0) + (set_control != 0) + (control_callbacks_init != 0) +
           (get_control_string != 0) + (set_control_string != 0) +
           (set_control_callbacks != 0) + (ccb.on_control_changed == 0);
}

/* The video session section (S9–S21): each type, macro and function signature. */
static int session_section(void)
{
    camcore_session_config sc;
    camcore_session_state ss;
    camcore_capture_hook ch;
    camcore_device_callbacks dc;
    camcore_session *s = 0;
    unsigned long sum = sizeof sc + sizeof ss + sizeof ch + sizeof dc;
    void (*session_config_init)(camcore_session_config *) = camcore_session_config_init;
    int (*session_new)(camcore_manager *, const camcore_session_config *, camcore_session **) =
        camcore_session_new;
    void (*session_free)(camcore_session *) = camcore_session_free;
    int (*start_transmission)(camcore_session *, int, int) = camcore_session_start_transmission;
    int (*end_preparation)(camcore_session *) = camcore_session_end_preparation;
    int (*pause_video)(camcore_session *) = camcore_session_pause_video;
    int (*resume_video)(camcore_session *) = camcore_session_resume_video;
    int (*hold)(camcore_session *) = camcore_session_hold;
    int (*unhold)(camcore_session *) = camcore_session_unhold;
    int (*set_hard_mute)(camcore_session *, int) = camcore_session_set_hard_mute;
    int (*end_transmission)(camcore_session *) = camcore_session_end_transmission;
    int (*set_transmission_sink)(camcore_session *, const camcore_frame_callbacks *) =
        camcore_session_set_transmission_sink;
    int (*add_preview)(camcore_session *, const camcore_frame_callbacks *, uint32_t *) =
        camcore_session_add_preview;
    int (*remove_preview)(camcore_session *, uint32_t) = camcore_session_remove_preview;
    int (*get_state)(camcore_session *, camcore_session_state *) = camcore_session_get_state;
    int (*start)(camcore_session *, const camcore_capture_config *, camcore_completion_fn,
                 void *) = camcore_session_start;
    int (*stop)(camcore_session *, camcore_completion_fn, void *) = camcore_session_stop;
    int (*restart)(camcore_session *, camcore_completion_fn, void *) = camcore_session_restart;
    int (*change)(camcore_session *, const camcore_capture_config *, camcore_completion_fn,
                  void *) = camcore_session_change;
    int (*select_)(camcore_session *, const char *, camcore_completion_fn, void *) =
        camcore_session_select;
    int (*flip)(camcore_session *, camcore_completion_fn, void *) = camcore_session_flip;
    int (*set_preference)(camcore_session *, const camcore_preference *, camcore_completion_fn,
                          void *) = camcore_session_set_preference;
    int (*set_capture_hook)(camcore_session *, const camcore_capture_hook *) =
        camcore_session_set_capture_hook;
    int (*set_custom_source)(camcore_session *, int) = camcore_session_set_custom_source;
    int (*push_frame)(camcore_session *, const camcore_frame *) = camcore_session_push_frame;
    int (*set_device_callbacks)(camcore_session *, const camcore_device_callbacks *) =
        camcore_session_set_device_callbacks;
    void (*completion)(void *, int) = 0;
    camcore_completion_fn completion_fn = completion; /* the typedef has this type */
    int (*on_capture)(void *, const camcore_frame *, camcore_frame *) = 0;
    void (*on_connected)(void *, const camcore_device_info *) = 0;
    void (*on_disconnected)(void *, const camcore_device_info *) = 0;
    void (*on_selected)(void *, const camcore_device_info *, const camcore_capture_format *) = 0;
    void (*on_error)(void *, const camcore_device_info *, int, const char *) = 0;

    ch.on_capture = on_capture;
    dc.on_connected = on_connected;
    dc.on_disconnected = on_disconnected;
    dc.on_selected = on_selected;
    dc.on_error = on_error;
    ss.format.struct_size = (uint32_t)sizeof ss.format;
    sum += (unsigned long)(CAMCORE_VIDEO_RESUME + CAMCORE_VIDEO_PAUSE + CAMCORE_HOOK_PASS +
                           CAMCORE_HOOK_DROP + CAMCORE_HOOK_REPLACE) +
           sizeof ss.device_id + ss.format.struct_size + (unsigned long)(s == 0);
    return (int)(sum & 1u) + (session_config_init != 0) + (session_new != 0) +
           (session_free != 0) + (start_transmission != 0) + (end_preparation != 0) +
           (pause_video != 0) + (resume_video != 0) + (hold != 0) + (unhold != 0) +
           (set_hard_mute != 0) + (end_transmission != 0) + (set_transmission_sink != 0) +
           (add_preview != 0) + (remove_preview != 0) + (get_state != 0) + (start != 0) +
           (stop != 0) + (restart != 0) + (change != 0) + (select_ != 0) + (flip != 0) +
           (set_preference != 0) + (set_capture_hook != 0) + (set_custom_source != 0) +
           (push_frame != 0) + (set_device_callbacks != 0) + (completion_fn == 0) +
           (ch.on_capture == 0) + (dc.on_connected == 0) + (dc.on_disconnected == 0) +
           (dc.on_selected == 0) + (dc.on_error == 0);
}

int header_check(void);
int header_check(void)
{
    return (int)(use_everything() & 1u) + signatures() + pixel_formats_section() + controls_section() +
           session_section();
}
