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
#endif
