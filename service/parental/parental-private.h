/*
 * The policy half of parental control (parental.h), inside: the state in
 * memory, its tables (parental-db.c), the PIN and its lockout
 * (parental-pin.c) and org.umms.Parental1 (parental-dbus.c).
 */
#ifndef UMMS_SERVICE_PARENTAL_PRIVATE_H
#define UMMS_SERVICE_PARENTAL_PRIVATE_H

#include <sqlite3.h>

#include "parental.h"

#define PARENTAL_MAX_THRESHOLDS 64
#define PARENTAL_MAX_LOCKED 10000
#define PARENTAL_MAX_GRANTS 256
#define PARENTAL_MAX_SCHEME 32
#define PARENTAL_MAX_AGE 99
#define PARENTAL_MAX_UNLOCK_SECONDS 86400
/* Wrong PINs in a row that start a lockout; its first length, doubled each time, capped. */
#define PARENTAL_MAX_WRONG 5
#define PARENTAL_LOCKOUT_FIRST_S 60
#define PARENTAL_LOCKOUT_MAX_S 86400
/* PIN checks waiting for the one running. */
#define PARENTAL_MAX_QUEUED 8

enum parental_scope {
	PARENTAL_SCOPE_PROGRAMME,
	PARENTAL_SCOPE_CHANNEL,
	PARENTAL_SCOPE_TIME,
};

/*
 * One player's unlock grant. Unbound until the player's next check, which
 * binds it to the programme (scope programme) or channel (scope channel)
 * shown then; without an id, to the URI.
 */
struct parental_grant {
	enum parental_scope scope;
	bool bound;
	int64_t id;             /* the programme's or channel's, 0: see uri */
	char *uri;
	int64_t until_us;       /* scope time: g_get_monotonic_time() at its end */
};

/* What the database keeps of the PIN (parental-db.c reads and writes it). */
struct parental_pin_state {
	char *hash;             /* crypto_pwhash_str's "$argon2id$…", NULL: none set */
	unsigned wrong;         /* wrong PINs in a row */
	int64_t locked_until_us; /* wall clock, 0: not locked out */
	unsigned lockouts;      /* lockouts since the last right PIN */
};

struct parental_dbus;
struct parental_pin;

struct umms_parental {
	const struct umms_config *config;
	GDBusConnection *connection;
	struct umms_parental_events events;
	sqlite3 *db;

	bool enabled;
	bool block_unrated;
	GHashTable *thresholds;  /* scheme (as set) → GINT_TO_POINTER(age + 1) */
	GHashTable *locked;      /* int64_t * channel → itself */
	GHashTable *grants;      /* player path → struct parental_grant * */
	GHashTable *ratings;     /* "SYSTEM:RATING" upper case → GINT_TO_POINTER(age + 1) */
	struct parental_pin_state pin;

	struct parental_pin *checks;
	struct parental_dbus *dbus;
};

/* parental.c */
/* Says the state changed: PropertiesChanged, Changed() and events.changed. */
void parental_changed(struct umms_parental *parental);
/* Whether @scheme is a scheme name SetThreshold accepts. */
bool parental_scheme_valid(const char *scheme);
bool parental_parse_scope(const char *text, enum parental_scope *scope);
/* Replaces @player's grant (false with @error when too many players hold one). */
bool parental_grant(struct umms_parental *parental, const char *player,
	enum parental_scope scope, unsigned seconds, GError **error);

/* parental-db.c: false with @error on failure (the database message in it). */
bool parental_db_open(struct umms_parental *parental, const char *path, GError **error);
void parental_db_close(struct umms_parental *parental);
/* Reads the settings, thresholds, locked channels and PIN state into @parental. */
bool parental_db_load(struct umms_parental *parental, GError **error);
bool parental_db_set_flag(struct umms_parental *parental, const char *key, bool value,
	GError **error);
/* @age -1: removes it. */
bool parental_db_set_threshold(struct umms_parental *parental, const char *scheme, int age,
	GError **error);
bool parental_db_lock_channel(struct umms_parental *parental, int64_t channel, bool locked,
	GError **error);
bool parental_db_save_pin(struct umms_parental *parental, GError **error);

/* parental-pin.c */
/* NULL with @error when libsodium cannot start. */
struct parental_pin *parental_pin_create(struct umms_parental *parental, GError **error);
/* Answers every check still waiting with Failed "ummsd is stopping". */
void parental_pin_destroy(struct parental_pin *pin);
/*
 * Whether @pin is 4 to 8 ASCII digits (a PIN SetPin accepts).
 */
bool parental_pin_valid(const char *pin);
/*
 * Checks @pin (and with @new_pin set, stores its hash as the new PIN), off
 * the main loop, then calls @done on the main loop with the result: true,
 * or false with the error to answer (WrongPin, LockedOut, NoResource,
 * Failed). @done owns @error. Not called when @parental is destroyed first:
 * @invocation is then answered Failed. @data is freed with @free_data.
 */
typedef void (*parental_pin_done)(struct umms_parental *parental,
	GDBusMethodInvocation *invocation, void *data, GError *error);
void parental_pin_check(struct parental_pin *pin, const char *given, const char *new_pin,
	GDBusMethodInvocation *invocation, parental_pin_done done, void *data,
	GDestroyNotify free_data);

/* parental-dbus.c */
struct parental_dbus *parental_dbus_create(struct umms_parental *parental, GError **error);
void parental_dbus_destroy(struct parental_dbus *dbus);
/* PropertiesChanged for what differs, then Changed(). */
void parental_dbus_changed(struct parental_dbus *dbus);

#endif
