/* XMLTV guide files for the tests (xmltv.h). */
#include "xmltv.h"

#include "harness.h"

static char *
xmltv_time(int64_t us)
{
	g_autoptr(GDateTime) t = g_date_time_new_from_unix_utc(us / G_USEC_PER_SEC);
	return g_date_time_format(t, "%Y%m%d%H%M%S +0000");
}

GString *
umms_test_xmltv_begin(const char *const *channels)
{
	GString *xml = g_string_new("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<tv>\n");
	for (const char *const *c = channels; c[0] && c[1]; c += 2)
		g_string_append_printf(xml, "<channel id=\"%s\"><display-name>%s</display-name>"
			"</channel>\n", c[0], c[1]);
	return xml;
}

void
umms_test_xmltv_programme(GString *xml, const char *channel, int64_t start_us, int64_t stop_us,
	const char *title, const char *inner)
{
	g_autofree char *start = xmltv_time(start_us);
	g_autofree char *stop = xmltv_time(stop_us);
	g_string_append_printf(xml, "<programme channel=\"%s\" start=\"%s\" stop=\"%s\">"
		"<title>%s</title>%s</programme>\n", channel, start, stop, title, inner ? inner : "");
}

char *
umms_test_xmltv_finish(GString *xml, const char *name)
{
	g_string_append(xml, "</tv>\n");
	char *file = g_strdup_printf("%s/%s.xml", umms_test_tmpdir(), name);
	g_assert_true(g_file_set_contents(file, xml->str, -1, NULL));
	g_string_free(xml, TRUE);
	return file;
}
