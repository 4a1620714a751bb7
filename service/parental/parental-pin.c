/*
 * The PIN: an Argon2id hash (libsodium's crypto_pwhash_str, with its
 * "interactive" limits: 2 passes over 64 MiB), checked beside the main
 * loop on a GTask thread, one check after the other, so that parallel
 * calls cannot try more PINs than the count of wrong ones allows.
 *
 * Lockout: the PARENTAL_MAX_WRONG-th wrong PIN in a row locks every PIN
 * out (even the right one) for 60 s, doubled with each further lockout up
 * to a day; a right PIN resets both counts. The counts and the lockout's
 * end (the wall clock: it must outlive ummsd) are written before the
 * answer, so neither a restart nor a new connection resets them.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include <string.h>
#include <sodium.h>

#include "dbus-iface.h"
#include "error.h"
#include "log.h"
#include "parental-private.h"

struct check {
	struct parental_pin *pin;
	char *given;
	char *new_pin;          /* or NULL */
	char *hash;             /* a copy of the stored hash, for the thread */
	GDBusMethodInvocation *invocation;
	parental_pin_done done;
	void *data;
	GDestroyNotify free_data;
	/* The thread's result. */
	bool right;
	char *new_hash;
	double ms;
};

struct parental_pin {
	struct umms_parental *parental;
	GQueue waiting;         /* struct check * */
	struct check *running;
	GCancellable *cancellable;
};

static void
secret_free(char *s)
{
	if (s) {
		sodium_memzero(s, strlen(s));
		g_free(s);
	}
}

static void
check_free(struct check *check)
{
	secret_free(check->given);
	secret_free(check->new_pin);
	g_free(check->hash);
	g_free(check->new_hash);
	if (check->free_data)
		check->free_data(check->data);
	g_free(check);
}

static void
stopping(struct check *check)
{
	g_dbus_method_invocation_return_dbus_error(check->invocation,
		umms_error_dbus_name(UMMS_ERROR_FAILED), "ummsd is stopping");
	check_free(check);
}

/* Answers @check through its done callback (which owns @error) and frees it. */
static void
finish(struct check *check, GError *error)
{
	check->done(check->pin->parental, check->invocation, check->data, error);
	check_free(check);
}

bool
parental_pin_valid(const char *pin)
{
	size_t n = strlen(pin);
	if (n < 4 || n > 8)
		return false;
	for (const char *p = pin; *p; p++) {
		if (!g_ascii_isdigit(*p))
			return false;
	}
	return true;
}

static GError *
locked_out_error(int64_t until_us, int64_t now_us)
{
	int64_t left = (until_us - now_us + G_USEC_PER_SEC - 1) / G_USEC_PER_SEC;
	return g_error_new(UMMS_ERROR, UMMS_ERROR_LOCKED_OUT,
		"too many wrong PINs: locked out: %" G_GINT64_FORMAT " seconds left", left);
}

static void
save(struct umms_parental *parental)
{
	GError *error = NULL;
	if (!parental_db_save_pin(parental, &error)) {
		umms_warn("parental: %s", error->message);
		g_error_free(error);
	}
}

/* One more wrong PIN: the error to answer. */
static GError *
wrong(struct umms_parental *parental)
{
	struct parental_pin_state *state = &parental->pin;
	state->wrong++;
	if (state->wrong < PARENTAL_MAX_WRONG) {
		save(parental);
		return g_error_new(UMMS_ERROR, UMMS_ERROR_WRONG_PIN, "wrong PIN (%u of %d tries)",
			state->wrong, PARENTAL_MAX_WRONG);
	}
	int64_t seconds = PARENTAL_LOCKOUT_FIRST_S;
	for (unsigned i = 0; i < state->lockouts && seconds < PARENTAL_LOCKOUT_MAX_S; i++)
		seconds *= 2;
	seconds = MIN(seconds, PARENTAL_LOCKOUT_MAX_S);
	state->lockouts = MIN(state->lockouts + 1, 64u);
	state->locked_until_us = g_get_real_time() + seconds * G_USEC_PER_SEC;
	save(parental);
	umms_warn("parental: %u wrong PINs in a row: locked out for %" G_GINT64_FORMAT " s",
		state->wrong, seconds);
	return g_error_new(UMMS_ERROR, UMMS_ERROR_WRONG_PIN,
		"wrong PIN: %u wrong in a row, locked out for %" G_GINT64_FORMAT " seconds",
		state->wrong, seconds);
}

/*
 * The right PIN: the counts reset, and @new_hash (taken) the PIN from now
 * on. NULL, or the error to answer when the new PIN cannot be stored (the
 * old one stays).
 */
static GError *
right(struct umms_parental *parental, char *new_hash)
{
	struct parental_pin_state *state = &parental->pin;
	bool changed = state->wrong || state->lockouts || state->locked_until_us;
	state->wrong = 0;
	state->lockouts = 0;
	state->locked_until_us = 0;
	if (!new_hash) {
		if (changed)
			save(parental);
		return NULL;
	}
	char *old = state->hash;
	state->hash = new_hash;
	GError *error = NULL;
	if (!parental_db_save_pin(parental, &error)) {
		state->hash = old;
		g_free(new_hash);
		save(parental);
		return error;
	}
	g_free(old);
	return NULL;
}

static void
check_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
	(void)source;
	(void)cancellable;
	struct check *check = data;
	int64_t start = g_get_monotonic_time();
	check->right = !check->hash ||
		crypto_pwhash_str_verify(check->hash, check->given, strlen(check->given)) == 0;
	if (check->right && check->new_pin) {
		char out[crypto_pwhash_STRBYTES];
		if (crypto_pwhash_argon2id_str(out, check->new_pin, strlen(check->new_pin),
				crypto_pwhash_argon2id_OPSLIMIT_INTERACTIVE,
				crypto_pwhash_argon2id_MEMLIMIT_INTERACTIVE) == 0)
			check->new_hash = g_strdup(out);
	}
	check->ms = (g_get_monotonic_time() - start) / 1000.0;
	g_task_return_boolean(task, true);
}

static void run_next(struct parental_pin *pin);

static void
checked_cb(GObject *source, GAsyncResult *result, gpointer data)
{
	(void)source;
	(void)result;
	struct check *check = data;
	struct parental_pin *pin = check->pin;
	if (!pin) {
		/* The service went while it ran. */
		stopping(check);
		return;
	}
	pin->running = NULL;
	struct umms_parental *parental = pin->parental;
	umms_debug("parental: PIN checked in %.0f ms", check->ms);
	GError *error = NULL;
	if (!check->right) {
		error = wrong(parental);
	} else if (check->new_pin && !check->new_hash) {
		error = g_error_new(UMMS_ERROR, UMMS_ERROR_NO_RESOURCE,
			"cannot hash the new PIN (out of memory)");
	} else {
		error = right(parental, g_steal_pointer(&check->new_hash));
	}
	finish(check, error);
	run_next(pin);
}

/* Starts the next waiting check; those answered without Argon2 are answered here. */
static void
run_next(struct parental_pin *pin)
{
	struct umms_parental *parental = pin->parental;
	struct check *check;
	while (!pin->running && (check = g_queue_pop_head(&pin->waiting))) {
		struct parental_pin_state *state = &parental->pin;
		int64_t now = g_get_real_time();
		if (state->locked_until_us - now > (int64_t)PARENTAL_LOCKOUT_MAX_S * G_USEC_PER_SEC) {
			/* The clock went back: no lockout lasts longer than the longest. */
			state->locked_until_us = now + (int64_t)PARENTAL_LOCKOUT_MAX_S * G_USEC_PER_SEC;
			save(parental);
		}
		if (state->hash && state->locked_until_us > now) {
			finish(check, locked_out_error(state->locked_until_us, now));
			continue;
		}
		if (state->locked_until_us) {
			/* A lockout that ended: another PARENTAL_MAX_WRONG tries. */
			state->locked_until_us = 0;
			state->wrong = 0;
			save(parental);
		}
		if (state->hash && !parental_pin_valid(check->given)) {
			/* Never the right one: counted without hashing it. */
			finish(check, wrong(parental));
			continue;
		}
		if (!state->hash && !check->new_pin) {
			finish(check, NULL);
			continue;
		}
		check->hash = g_strdup(state->hash);
		pin->running = check;
		GTask *task = g_task_new(NULL, pin->cancellable, checked_cb, check);
		g_task_set_task_data(task, check, NULL);
		g_task_set_return_on_cancel(task, false);
		g_task_run_in_thread(task, check_thread);
		g_object_unref(task);
	}
}

void
parental_pin_check(struct parental_pin *pin, const char *given, const char *new_pin,
	GDBusMethodInvocation *invocation, parental_pin_done done, void *data,
	GDestroyNotify free_data)
{
	struct check *check = g_new0(struct check, 1);
	check->pin = pin;
	check->given = g_strdup(given);
	check->new_pin = g_strdup(new_pin);
	check->invocation = invocation;
	check->done = done;
	check->data = data;
	check->free_data = free_data;
	if (g_queue_get_length(&pin->waiting) >= PARENTAL_MAX_QUEUED) {
		finish(check, g_error_new(UMMS_ERROR, UMMS_ERROR_NO_RESOURCE,
			"%d PIN checks are waiting already: try again", PARENTAL_MAX_QUEUED));
		return;
	}
	g_queue_push_tail(&pin->waiting, check);
	run_next(pin);
}

struct parental_pin *
parental_pin_create(struct umms_parental *parental, GError **error)
{
	if (sodium_init() < 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "libsodium cannot start");
		return NULL;
	}
	struct parental_pin *pin = g_new0(struct parental_pin, 1);
	pin->parental = parental;
	g_queue_init(&pin->waiting);
	pin->cancellable = g_cancellable_new();
	return pin;
}

void
parental_pin_destroy(struct parental_pin *pin)
{
	if (!pin)
		return;
	g_cancellable_cancel(pin->cancellable);
	g_object_unref(pin->cancellable);
	if (pin->running)
		pin->running->pin = NULL;
	struct check *check;
	while ((check = g_queue_pop_head(&pin->waiting)))
		stopping(check);
	g_free(pin);
}
