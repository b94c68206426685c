// SPDX-License-Identifier: MIT
/*
 * libyuv for Swift: the library's umbrella header as it is.
 * Debian 12's libyuv-dev ships no pkg-config file, so the module map links
 * "yuv" directly. Built as C: the functions are the plain extern "C" API.
 */
#ifndef CAMCORE_CYUV_SHIM_H
#define CAMCORE_CYUV_SHIM_H
#include <stdint.h>
#include <libyuv.h>
#endif
