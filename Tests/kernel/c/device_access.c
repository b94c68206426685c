// SPDX-License-Identifier: MIT
/*
 * device_access — lists the cameras and tries to open each one, for the
 * kernel permission test (Tests/kernel/test_faults.py). The test runs it as
 * an unprivileged user (root bypasses file modes), so it is a C program:
 * the test's own Python lives where that user cannot read.
 *
 * Output, one line each:
 *   DEV <flags> <node> <id> | <unavailable_reason>
 *   OPEN <status> <node> | <camcore_last_error_message()>
 *   LIST <status>            when listing failed
 */
#define _GNU_SOURCE

#include <camcore.h>

#include <stdio.h>

int main(void)
{
    camcore_manager *m = NULL;
    int rc = camcore_manager_new(NULL, &m);
    if (rc != CAMCORE_OK) {
        printf("LIST %d manager: %s\n", rc, camcore_last_error_message());
        return 1;
    }
    camcore_device_list *list = NULL;
    rc = camcore_manager_list_devices(m, &list);
    if (rc != CAMCORE_OK) {
        printf("LIST %d %s\n", rc, camcore_last_error_message());
        camcore_manager_free(m);
        return 1;
    }
    for (size_t i = 0; i < list->count; i++) {
        const camcore_device_info *d = &list->devices[i];
        printf("DEV %u %s %s | %s\n", d->flags, d->node, d->id,
               d->unavailable_reason ? d->unavailable_reason : "");
    }
    for (size_t i = 0; i < list->count; i++) {
        const camcore_device_info *d = &list->devices[i];
        camcore_capturer *c = NULL;
        rc = camcore_capturer_open(m, d->id, &c);
        printf("OPEN %d %s | %s\n", rc, d->node, rc ? camcore_last_error_message() : "ok");
        camcore_capturer_close(c);
    }
    camcore_device_list_free(list);
    camcore_manager_free(m);
    return 0;
}
