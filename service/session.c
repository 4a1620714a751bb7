/*
 * The session devices are opened in: a libseat seat, or open() (session.h).
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_DISPLAY

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <glib-unix.h>
#include <libseat.h>

#include "error.h"
#include "log.h"
#include "session.h"
#include "socket-name.h"
#include "source.h"

/* Why libseat is not used when no seat manager runs. */
#define NO_SEAT_MANAGER "no seat manager (seatd or logind) runs, and libseat's built-in " \
	"seatd is not used (as root, display.session=direct opens devices itself)"

/* How devices are opened without a seat: as libseat opens them. */
#define DIRECT_FLAGS (O_RDWR | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)

struct session {
	struct umms_session base;
	struct libseat *seat;      /* NULL: devices are opened directly */
	char *backend;             /* libseat's backend: "seatd", "logind" */
	char *description;
	bool active;
	GHashTable *devices;       /* fd → libseat device id */
	GSource *source;
	GString *errors;           /* what libseat said went wrong while opening the seat */
};

static struct session *
session_from(struct umms_session *base)
{
	return (struct session *)base;
}

/* ---- libseat's log ---------------------------------------------------------- */

/* The session whose seat libseat_open_seat() is opening on this thread. */
static _Thread_local struct session *opening;

static void G_GNUC_PRINTF(2, 0)
seat_log(enum libseat_log_level level, const char *format, va_list args)
{
	char text[512];
	vsnprintf(text, sizeof(text), format, args);
	/* libseat starts each line with "[file:line] ". */
	const char *msg = text;
	const char *end = text[0] == '[' ? strstr(text, "] ") : NULL;
	if (end)
		msg = end + 2;
	struct session *s = opening;
	if (!s) {
		if (level == LIBSEAT_LOG_LEVEL_ERROR)
			umms_warn("session: libseat: %s", msg);
		else
			umms_debug("session: libseat: %s", msg);
		return;
	}
	/* libseat names its backend only in its log. */
	static const char opened[] = "Seat opened with backend '";
	const char *name = strstr(msg, opened);
	if (name) {
		name += strlen(opened);
		g_free(s->backend);
		s->backend = g_strndup(name, strcspn(name, "'"));
	}
	if (level == LIBSEAT_LOG_LEVEL_ERROR)
		g_string_append_printf(s->errors, "%s%s", s->errors->len ? "; " : "", msg);
	umms_debug("session: libseat: %s", msg);
}

/* ---- the seat --------------------------------------------------------------- */

static void
set_active(struct session *s, bool active)
{
	if (s->active == active)
		return;
	s->active = active;
	wl_signal_emit(&s->base.events.active, &active);
}

static void
seat_enabled(struct libseat *seat, void *data)
{
	struct session *s = data;
	/* The first time is the seat opening, and said so by the caller. */
	if (s->source)
		umms_info("session: seat %s enabled again", libseat_seat_name(seat));
	set_active(s, true);
}

static void
seat_disabled(struct libseat *seat, void *data)
{
	umms_info("session: seat %s disabled (switched away): devices pause",
		libseat_seat_name(seat));
	/* Users stop touching their devices first, then the seat manager takes them. */
	set_active(data, false);
	if (libseat_disable_seat(seat) != 0)
		umms_warn("session: cannot release seat %s: %s", libseat_seat_name(seat),
			g_strerror(errno));
}

static const struct libseat_seat_listener seat_listener = {
	.enable_seat = seat_enabled,
	.disable_seat = seat_disabled,
};

static gboolean
seat_readable(gint fd, GIOCondition condition, gpointer data)
{
	struct session *s = data;
	if (libseat_dispatch(s->seat, 0) >= 0)
		return G_SOURCE_CONTINUE;
	umms_warn("session: lost the seat manager (%s): devices stay as they are",
		g_strerror(errno));
	umms_source_forget(&s->source);
	return G_SOURCE_REMOVE;
}

/* Whether seatd answers on the socket libseat would try. */
static bool
seatd_answers(void)
{
	const char *path = umms_seatd_socket_name();
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(addr.sun_path))
		return false;
	memcpy(addr.sun_path, path, strlen(path) + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	bool answers = connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0;
	close(fd);
	return answers;
}

/* Whether a seat manager seems to run: seatd on its socket, or logind's seat0. */
static bool
seat_manager_runs(void)
{
	return seatd_answers() || g_file_test("/run/systemd/seats/seat0", G_FILE_TEST_EXISTS);
}

static bool
open_seat(struct session *s, GError **error)
{
	static gsize log_set = 0;
	if (g_once_init_enter(&log_set)) {
		libseat_set_log_handler(seat_log);
		libseat_set_log_level(LIBSEAT_LOG_LEVEL_INFO);
		g_once_init_leave(&log_set, 1);
	}
	/*
	 * Left to choose with no seat manager, libseat's last resort as root
	 * is a seatd of its own, forked off this process: refused (direct
	 * opening does what it would), and before it forks, as a fork of a
	 * process with threads may hang in the child.
	 */
	const char *chosen = umms_libseat_backend();
	if (chosen ? strcmp(chosen, "builtin") == 0 : !seat_manager_runs()) {
		g_set_error_literal(error, UMMS_ERROR, UMMS_ERROR_NOT_FOUND, NO_SEAT_MANAGER);
		goto fail;
	}
	s->errors = g_string_new(NULL);
	s->active = false;
	opening = s;
	s->seat = libseat_open_seat(&seat_listener, s);
	opening = NULL;
	if (!s->seat) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_FOUND,
			"no seat to open devices in (is seatd or logind running?)%s%s",
			s->errors->len ? ": " : "", s->errors->str);
		goto fail;
	}
	if (!s->backend || strcmp(s->backend, "builtin") == 0) {
		/* A seat manager seemed to run, but libseat came to its last resort. */
		g_set_error_literal(error, UMMS_ERROR, UMMS_ERROR_NOT_FOUND, NO_SEAT_MANAGER);
		g_clear_pointer(&s->seat, libseat_close_seat);
		goto fail;
	}
	/* The seat is enabled by an event of its own: give it a moment to come. */
	for (int i = 0; i < 20 && !s->active; i++) {
		if (libseat_dispatch(s->seat, 50) < 0)
			break;
	}
	s->source = g_unix_fd_source_new(libseat_get_fd(s->seat), G_IO_IN | G_IO_HUP | G_IO_ERR);
	g_source_set_callback(s->source, G_SOURCE_FUNC(seat_readable), s, NULL);
	g_source_attach(s->source, g_main_context_get_thread_default());
	return true;
fail:
	s->active = true;
	return false;
}

/* ---- the session ------------------------------------------------------------ */

struct umms_session *
umms_session_create(const struct umms_session_config *config, GError **error)
{
	const char *mode = config && config->mode && *config->mode ? config->mode : "auto";
	bool libseat = strcmp(mode, "libseat") == 0, automatic = strcmp(mode, "auto") == 0;
	if (!libseat && !automatic && strcmp(mode, "direct") != 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"display.session: unknown \"%s\" (auto, libseat or direct)", mode);
		return NULL;
	}
	struct session *s = g_new0(struct session, 1);
	wl_signal_init(&s->base.events.active);
	s->active = true;
	s->devices = g_hash_table_new(NULL, NULL);
	if (libseat || (automatic && seat_manager_runs())) {
		GError *why = NULL;
		if (!open_seat(s, &why)) {
			if (libseat) {
				g_propagate_prefixed_error(error, why, "display.session=libseat: ");
				goto fail;
			}
			umms_info("session: %s", why->message);
			g_error_free(why);
		}
	}
	if (s->seat) {
		s->description = g_strdup_printf("libseat (%s)", s->backend);
		umms_info("session: seat %s through libseat (%s)%s", libseat_seat_name(s->seat),
			s->backend, s->active ? "" : ", not enabled yet");
	} else {
		s->description = g_strdup("direct");
		umms_info("session: opening devices directly");
	}
	return &s->base;
fail:
	umms_session_destroy(&s->base);
	return NULL;
}

void
umms_session_destroy(struct umms_session *base)
{
	if (!base)
		return;
	struct session *s = session_from(base);
	GHashTableIter iter;
	gpointer fd, id;
	g_hash_table_iter_init(&iter, s->devices);
	while (g_hash_table_iter_next(&iter, &fd, &id)) {
		umms_debug("session: device fd %d left open: closed", GPOINTER_TO_INT(fd));
		libseat_close_device(s->seat, GPOINTER_TO_INT(id));
		close(GPOINTER_TO_INT(fd));
	}
	g_hash_table_destroy(s->devices);
	umms_source_clear(&s->source);
	if (s->seat)
		libseat_close_seat(s->seat);
	if (s->errors)
		g_string_free(s->errors, TRUE);
	g_free(s->backend);
	g_free(s->description);
	g_free(s);
}

int
umms_session_open_device(struct umms_session *base, const char *path, GError **error)
{
	struct session *s = base ? session_from(base) : NULL;
	int fd = -1;
	if (s && s->seat) {
		int id = libseat_open_device(s->seat, path, &fd);
		if (id < 0) {
			int err = errno;
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE, "%s: %s (libseat, %s%s)",
				path, g_strerror(err), s->backend,
				s->active ? "" : "; another session holds the seat");
			errno = err;
			return -1;
		}
		g_hash_table_insert(s->devices, GINT_TO_POINTER(fd), GINT_TO_POINTER(id));
		return fd;
	}
	fd = open(path, DIRECT_FLAGS);
	if (fd < 0) {
		int err = errno;
		g_set_error(error, UMMS_ERROR, err == EACCES || err == EPERM ?
			UMMS_ERROR_ACCESS_DENIED : UMMS_ERROR_NOT_FOUND, "%s: %s", path,
			g_strerror(err));
		errno = err;
	}
	return fd;
}

void
umms_session_close_device(struct umms_session *base, int fd)
{
	if (fd < 0)
		return;
	struct session *s = base ? session_from(base) : NULL;
	gpointer id;
	if (s && s->seat && g_hash_table_lookup_extended(s->devices, GINT_TO_POINTER(fd), NULL,
			&id)) {
		if (libseat_close_device(s->seat, GPOINTER_TO_INT(id)) != 0)
			umms_debug("session: libseat cannot close device %d: %s",
				GPOINTER_TO_INT(id), g_strerror(errno));
		g_hash_table_remove(s->devices, GINT_TO_POINTER(fd));
	}
	close(fd);
}

bool
umms_session_is_active(struct umms_session *base)
{
	return !base || session_from(base)->active;
}

const char *
umms_session_describe(struct umms_session *base)
{
	return base ? session_from(base)->description : "direct";
}
