#include <gio/gio.h>

#include "error.h"

static const GDBusErrorEntry error_entries[] = {
	{ UMMS_ERROR_INVALID_ARGUMENT, "org.umms.Error.InvalidArgument" },
	{ UMMS_ERROR_INVALID_STATE, "org.umms.Error.InvalidState" },
	{ UMMS_ERROR_NOT_FOUND, "org.umms.Error.NotFound" },
	{ UMMS_ERROR_NOT_SUPPORTED, "org.umms.Error.NotSupported" },
	{ UMMS_ERROR_NO_RESOURCE, "org.umms.Error.NoResource" },
	{ UMMS_ERROR_FAILED, "org.umms.Error.Failed" },
	{ UMMS_ERROR_ACCESS_DENIED, "org.umms.Error.AccessDenied" },
	{ UMMS_ERROR_ENGINE_CRASHED, "org.umms.Error.EngineCrashed" },
	{ UMMS_ERROR_ENGINE_HUNG, "org.umms.Error.EngineHung" },
	{ UMMS_ERROR_WRONG_PIN, "org.umms.Error.WrongPin" },
	{ UMMS_ERROR_LOCKED_OUT, "org.umms.Error.LockedOut" },
	{ UMMS_ERROR_NOT_ENTITLED, "org.umms.Error.NotEntitled" },
};

G_STATIC_ASSERT(G_N_ELEMENTS(error_entries) == UMMS_ERROR_N_CODES);

GQuark
umms_error_quark(void)
{
	static gsize quark;
	g_dbus_error_register_error_domain("umms-error-quark", &quark,
		error_entries, G_N_ELEMENTS(error_entries));
	return (GQuark)quark;
}

const char *
umms_error_dbus_name(enum umms_error_code code)
{
	if ((unsigned)code >= UMMS_ERROR_N_CODES)
		code = UMMS_ERROR_FAILED;
	return error_entries[code].dbus_error_name;
}

const char *
umms_error_dbus_name_of(const GError *error)
{
	if (error && error->domain == UMMS_ERROR)
		return umms_error_dbus_name((enum umms_error_code)error->code);
	return umms_error_dbus_name(UMMS_ERROR_FAILED);
}
