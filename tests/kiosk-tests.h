/*
 * What test-kiosk.c and its parts (kiosk-guide.c: umms-kiosk on a channel
 * of the programme guide) share.
 */
#ifndef UMMS_TESTS_KIOSK_TESTS_H
#define UMMS_TESTS_KIOSK_TESTS_H

#include <stdint.h>
#include <gio/gio.h>

#include "harness.h"
#include "image.h"

/* vkms's preferred mode, and the margins the tests set. */
#define W 1024
#define H 768
#define M 32

#define UI 0x3c5a78
#define RED 0xff0000
#define GREEN 0x00ff00
#define BLACK 0x000000

/* ummsd restarted as the screen's compositor (headless or vkms), margins M. */
void kiosk_test_start(struct umms_test *t);
/* The screen, W x H, read back through Display1.Capture. */
struct umms_test_image *kiosk_test_capture(struct umms_test *t, const char *what);
/* demo/umms-kiosk @args on ummsd's screen (umms-0); its stdout read from @out. */
GSubprocess *kiosk_test_demo_spawn(const char *const *args, GDataInputStream **out);
/* A line umms-kiosk prints, split in words; fails if its output ends. */
char **kiosk_test_demo_line(GDataInputStream *out);
/* Fails unless (@x, @y) shows one of colors.mkv's colours. */
void kiosk_test_assert_video(const struct umms_test_image *image, int x, int y,
	const char *what);

/* The cases in files of their own. */
void kiosk_test_guide(struct umms_test *t, gconstpointer data);
void kiosk_test_parental(struct umms_test *t, gconstpointer data);

#endif
