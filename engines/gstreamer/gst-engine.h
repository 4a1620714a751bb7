/*
 * The GStreamer engine: playbin with our own sinks. See engine.h for the
 * contract it implements and gst-private.h for how it is built.
 */
#ifndef UMMS_SERVICE_GST_ENGINE_H
#define UMMS_SERVICE_GST_ENGINE_H

#include "engine.h"

extern const struct umms_engine_impl umms_gst_engine_impl;

#endif
