/*
 * The org.umms.Error.* D-Bus errors as a GError domain.
 *
 * Functions that can fail take a GError ** and set an UMMS_ERROR with a
 * message a person understands ("no such file: /x.mp4"). Returning such a
 * GError from a D-Bus method (g_dbus_method_invocation_return_gerror) sends
 * the error name org.umms.Error.<Name> with that message.
 */
#ifndef UMMS_SERVICE_ERROR_H
#define UMMS_SERVICE_ERROR_H

#include <glib.h>

#define UMMS_ERROR (umms_error_quark())

enum umms_error_code {
	UMMS_ERROR_INVALID_ARGUMENT,
	UMMS_ERROR_INVALID_STATE,
	UMMS_ERROR_NOT_FOUND,
	UMMS_ERROR_NOT_SUPPORTED,
	UMMS_ERROR_NO_RESOURCE,
	UMMS_ERROR_FAILED,
	UMMS_ERROR_ACCESS_DENIED,
	UMMS_ERROR_ENGINE_CRASHED, /* the engine's worker process died or passed its memory limit */
	UMMS_ERROR_ENGINE_HUNG,    /* the engine's worker process stopped answering */
	UMMS_ERROR_WRONG_PIN,      /* parental control: the PIN given is not the one set */
	UMMS_ERROR_LOCKED_OUT,     /* parental control: too many wrong PINs; the message says
	                            * how many seconds are left */
	UMMS_ERROR_NOT_ENTITLED,   /* no valid entitlement for the item; the message says why */
	UMMS_ERROR_N_CODES,
};

/* Also registers the D-Bus error names; safe to call from any thread. */
GQuark umms_error_quark(void);

/* "org.umms.Error.NotFound" for UMMS_ERROR_NOT_FOUND. */
const char *umms_error_dbus_name(enum umms_error_code code);

/*
 * The D-Bus name of any GError: UMMS_ERROR codes map to org.umms.Error.*,
 * anything else to org.umms.Error.Failed.
 */
const char *umms_error_dbus_name_of(const GError *error);

#endif
