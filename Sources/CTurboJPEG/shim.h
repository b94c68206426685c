// SPDX-License-Identifier: MIT
/*
 * libjpeg-turbo's TurboJPEG API for Swift: the library's header as it is,
 * plus the TJFLAG_* bit values (macros) as typed constants.
 */
#ifndef CAMCORE_CTURBOJPEG_SHIM_H
#define CAMCORE_CTURBOJPEG_SHIM_H
#include <stddef.h>
#include <turbojpeg.h>

static const int CC_TJFLAG_LIMITSCANS = TJFLAG_LIMITSCANS;
static const int CC_TJFLAG_STOPONWARNING = TJFLAG_STOPONWARNING;

/* TJSCALED (a macro): `dimension` scaled by `factor`, rounded up, as the
 * decompressor sizes its scaled output (SPEC S38). */
static inline int cc_tjscaled(int dimension, tjscalingfactor factor) {
    return TJSCALED(dimension, factor);
}
#endif
