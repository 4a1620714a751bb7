/*
 * Inside the seat: what seat.c (the wl_seat, keyboard and pointer state)
 * and seat-input.c (libinput devices) share.
 */
#ifndef UMMS_SERVICE_SEAT_PRIVATE_H
#define UMMS_SERVICE_SEAT_PRIVATE_H

#include <stdarg.h>
#include <stdbool.h>

#include "seat.h"

struct umms_session;
struct seat_input;

/* Libraries' messages: errors as warnings, the rest as debug. */
void seat_library_log(const char *library, bool error, const char *format, va_list args)
	G_GNUC_PRINTF(3, 0);
/* The output size absolute pointer positions are scaled to. */
void seat_get_output_size(struct umms_seat *seat, int *width, int *height);

/* The devices of seat @name, opened in @session; NULL (and a warning) if none can be had. */
struct seat_input *seat_input_start(struct umms_seat *seat, const char *name,
	struct umms_session *session);
void seat_input_stop(struct seat_input *input);

#endif
