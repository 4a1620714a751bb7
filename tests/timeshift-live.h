/*
 * The time-shift tests' live source and screen (test-timeshift.c): a UDP
 * stream whose frames paint their own time, ummsd on a headless screen
 * with time-shift in files of 1 s, and the players the tests make of them.
 */
#ifndef UMMS_TESTS_TIMESHIFT_LIVE_H
#define UMMS_TESTS_TIMESHIFT_LIVE_H

#include <stdbool.h>
#include <stdint.h>
#include <gst/gst.h>

#include "harness.h"

#define DISPLAY "/org/umms/display/0"
#define DISPLAY1 "org.umms.Display1"
#define W 320
#define H 240
/* The ring: files of 1 s, 12 s kept (about 9 s of them playable). */
#define WINDOW_S 12

/* ---- the live source --------------------------------------------------------- */

struct live {
	GstElement *pipeline;
	int port;
};

void live_start(struct live *live);

/* The source's present, in half seconds (as painted now). */
int live_now(struct live *live);

void live_stop(struct live *live);

/* ummsd on a headless screen, time-shift in files of 1 s (@extra: one more setting). */
void start_with(struct umms_test *t, const char *extra);

void start(struct umms_test *t);

/* The moment of the source on screen now, in half seconds (mod 256). */
int shown(struct umms_test *t, const char *what);

/* Half seconds from @from to @to, in the painted code's cycle of 256. */
int ticks(int from, int to);

void window(struct umms_test *t, const char *player, int64_t *start_us, int64_t *end_us);

void wait_frames(struct umms_test *t, const char *player);

void set_timeshift(struct umms_test *t, const char *player, bool on);

/* `ummsctl -p @player @command @arg`: its output; its exit status in @status. */
char * ummsctl(const char *player, const char *command, const char *arg, int *status);

/* A player of the live source, playing it on the screen, time-shift off. */
char * live_source_player(struct umms_test *t, struct live *live);

/* Waits for the ring to be played, in @state; seconds since @begun. */
double wait_ring(struct umms_test *t, const char *player, const char *state, gint64 begun);

/* A live player playing from its ring, shown on the screen (@ctl: ummsctl turns it on). */
char * live_player(struct umms_test *t, struct live *live, bool ctl);

#endif
