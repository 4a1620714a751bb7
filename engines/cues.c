#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <string.h>
#include <ass/ass.h>
#include <pango/pangocairo.h>

#include "bitmap-subs.h"
#include "cues.h"
#include "cues-text.h"
#include "error.h"
#include "log.h"

struct entry {
	struct umms_cue cue;
	uint64_t id;            /* unique in the list: what the cache compares */
	struct umms_bitmap *bitmap;     /* a bitmap cue's image */
};

struct umms_cues {
	gint refs;
	GMutex lock;
	GArray *entries;        /* struct entry, by start */
	uint64_t next_id;
	struct umms_cue_style style;

	/* SSA/ASS: the script and libass's renderer (fonts set up at the first render). */
	ASS_Library *library;
	ASS_Track *track;
	ASS_Renderer *renderer;
	bool fonts_ready;
	bool bitmaps;           /* bitmap cues (umms_cues_add_bitmap) */

	/* The last rendering and what it showed. */
	struct umms_subpicture *cached;
	GArray *cached_ids;     /* uint64_t, text cues */
	int cached_width, cached_height;

	/* Text: the next change drawn ahead on a worker (prefetch_job). */
	struct umms_subpicture *prefetched;
	GArray *prefetched_ids;
	int prefetched_width, prefetched_height;
	int64_t prefetch_time;  /* asked for, -1 none */
	int prefetch_width, prefetch_height;
	bool prefetch_pending;
	unsigned style_serial;  /* a drawing for another style is not used */
};

struct prefetch {
	struct umms_cues *cues; /* a reference */
	int64_t position;
	int width, height;
};

void
umms_cue_style_init(struct umms_cue_style *style)
{
	style->size_permille = 50;
	style->margin_permille = 50;
}

void
umms_cue_clear(struct umms_cue *cue)
{
	g_clear_pointer(&cue->markup, g_free);
	g_clear_pointer(&cue->plain, g_free);
}

static void
entry_clear(gpointer data)
{
	struct entry *entry = data;
	umms_cue_clear(&entry->cue);
	g_clear_pointer(&entry->bitmap, umms_bitmap_unref);
}

static struct umms_cues *
cues_new(void)
{
	struct umms_cues *cues = g_new0(struct umms_cues, 1);
	cues->refs = 1;
	g_mutex_init(&cues->lock);
	cues->entries = g_array_new(FALSE, TRUE, sizeof(struct entry));
	g_array_set_clear_func(cues->entries, entry_clear);
	cues->cached_ids = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	cues->prefetched_ids = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	cues->prefetch_time = -1;
	cues->next_id = 1;
	umms_cue_style_init(&cues->style);
	return cues;
}

struct umms_cues *
umms_cues_create_text(void)
{
	return cues_new();
}

static void
forget_rendering(struct umms_cues *cues)
{
	g_clear_pointer(&cues->cached, umms_subpicture_unref);
	g_array_set_size(cues->cached_ids, 0);
}

/* Sorted insertion: cues mostly come in order, so from the end. */
static void
insert_entry(struct umms_cues *cues, struct entry *entry)
{
	guint i = cues->entries->len;
	while (i > 0 && g_array_index(cues->entries, struct entry, i - 1).cue.start >
			entry->cue.start)
		i--;
	entry->id = cues->next_id++;
	g_array_insert_val(cues->entries, i, *entry);
}

/* SSA/ASS event text without its override blocks; \N, \n → newline, \h → space. */
static char *
ass_plain(const char *text)
{
	GString *out = g_string_new(NULL);
	for (const char *p = text; *p; p++) {
		if (*p == '{') {
			const char *close = strchr(p, '}');
			if (close) {
				p = close;
				continue;
			}
		}
		if (*p == '\\' && (p[1] == 'N' || p[1] == 'n')) {
			g_string_append_c(out, '\n');
			p++;
		} else if (*p == '\\' && p[1] == 'h') {
			g_string_append_c(out, ' ');
			p++;
		} else {
			g_string_append_c(out, *p);
		}
	}
	return g_string_free(out, FALSE);
}

static void
ass_message(int level, const char *format, va_list args, void *data)
{
	/* libass is chatty (fonts found, styles used); its errors only are ours. */
	if (level > 1)
		return;
	g_autofree char *text = g_strdup_vprintf(format, args);
	umms_warn("libass: %s", text);
}

struct umms_cues *
umms_cues_create_ass(const char *data, size_t size, GError **error)
{
	if (size == 0 || size > UMMS_CUES_MAX_FILE) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"an SSA/ASS script of %zu bytes is not 1 byte to %d MiB", size,
			UMMS_CUES_MAX_FILE >> 20);
		return NULL;
	}
	struct umms_cues *cues = cues_new();
	cues->library = ass_library_init();
	ass_set_message_cb(cues->library, ass_message, NULL);
	/* libass parses in place: a copy of its own. */
	char *copy = g_memdup2(data, size);
	cues->track = ass_read_memory(cues->library, copy, size, NULL);
	g_free(copy);
	if (!cues->track || cues->track->n_events < 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"not an SSA/ASS script");
		umms_cues_unref(cues);
		return NULL;
	}
	for (int i = 0; i < cues->track->n_events; i++) {
		const ASS_Event *event = &cues->track->events[i];
		if (!event->Text || event->Start < 0 || event->Duration < 0 ||
				event->Start > G_MAXINT64 / 1000 - event->Duration)
			continue;
		struct entry entry = {
			.cue = {
				.start = (int64_t)event->Start * 1000,
				.end = ((int64_t)event->Start + (int64_t)event->Duration) * 1000,
				.markup = g_utf8_make_valid(event->Text, -1),
			},
		};
		entry.cue.plain = ass_plain(entry.cue.markup);
		insert_entry(cues, &entry);
	}
	cues->renderer = ass_renderer_init(cues->library);
	if (!cues->renderer) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "libass cannot render");
		umms_cues_unref(cues);
		return NULL;
	}
	return cues;
}

struct umms_cues *
umms_cues_ref(struct umms_cues *cues)
{
	g_atomic_int_inc(&cues->refs);
	return cues;
}

void
umms_cues_unref(struct umms_cues *cues)
{
	if (!cues || !g_atomic_int_dec_and_test(&cues->refs))
		return;
	forget_rendering(cues);
	g_array_unref(cues->cached_ids);
	umms_subpicture_unref(cues->prefetched);
	g_array_unref(cues->prefetched_ids);
	g_array_unref(cues->entries);
	if (cues->renderer)
		ass_renderer_done(cues->renderer);
	if (cues->track)
		ass_free_track(cues->track);
	if (cues->library)
		ass_library_done(cues->library);
	g_mutex_clear(&cues->lock);
	g_free(cues);
}

bool
umms_cues_is_ass(struct umms_cues *cues)
{
	return cues->track != NULL;
}

/* @place (NULL none) as kept: zeroed but what is used, in its ranges. */
static void
place_normalize(struct umms_cue_place *out, const struct umms_cue_place *place)
{
	memset(out, 0, sizeof(*out));
	if (!place || !place->rows || !place->columns)
		return;
	out->rows = place->rows;
	out->columns = place->columns;
	out->centred = place->centred;
	out->lines = MIN(place->lines, UMMS_CUE_PLACE_LINES);
	for (unsigned i = 0; i < out->lines; i++) {
		out->row[i] = MIN(place->row[i], out->rows - 1);
		out->column[i] = out->centred ? 0 : MIN(place->column[i], out->columns - 1);
	}
}

static bool
same_place(const struct umms_cue_place *a, const struct umms_cue_place *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

/* @entry (taken) unless the same cue is there: the same start, markup and place. */
static void
add_entry(struct umms_cues *cues, struct entry *entry)
{
	int64_t start = entry->cue.start, end = entry->cue.end;
	g_mutex_lock(&cues->lock);
	bool known = false;
	for (guint i = cues->entries->len; i > 0 && !known; i--) {
		const struct entry *other = &g_array_index(cues->entries, struct entry, i - 1);
		if (other->cue.start < start)
			break;
		/* Without an end, it is the one known with its end too. */
		known = other->cue.start == start && (other->cue.end == end || end < 0) &&
			strcmp(other->cue.markup, entry->cue.markup) == 0 &&
			same_place(&other->cue.place, &entry->cue.place);
	}
	if (known)
		entry_clear(entry);
	else
		insert_entry(cues, entry);
	g_mutex_unlock(&cues->lock);
}

void
umms_cues_add(struct umms_cues *cues, int64_t start, int64_t end, const char *markup)
{
	umms_cues_add_placed(cues, start, end, markup, NULL);
}

void
umms_cues_add_placed(struct umms_cues *cues, int64_t start, int64_t end, const char *markup,
	const struct umms_cue_place *place)
{
	g_autofree char *valid = g_utf8_make_valid(markup, -1);
	char *plain = NULL;
	struct entry entry = { .cue = { .start = start, .end = end } };
	place_normalize(&entry.cue.place, place);
	if (pango_parse_markup(valid, -1, 0, NULL, &plain, NULL, NULL)) {
		entry.cue.markup = g_steal_pointer(&valid);
		entry.cue.plain = plain;
	} else {
		/* Not markup: shown as it is. */
		entry.cue.markup = g_markup_escape_text(valid, -1);
		entry.cue.plain = g_steal_pointer(&valid);
	}
	g_strchomp(entry.cue.plain);
	add_entry(cues, &entry);
}

void
umms_cues_add_bitmap(struct umms_cues *cues, int64_t start, int64_t end,
	struct umms_bitmap *bitmap)
{
	struct entry entry = {
		.cue = { .start = start, .end = end, .markup = g_strdup(bitmap->key),
			.plain = g_strdup(""), .bitmap = bitmap->n_rects > 0 },
		.bitmap = umms_bitmap_ref(bitmap),
	};
	g_mutex_lock(&cues->lock);
	cues->bitmaps = true;
	g_mutex_unlock(&cues->lock);
	add_entry(cues, &entry);
}

bool
umms_cues_is_bitmap(struct umms_cues *cues)
{
	g_mutex_lock(&cues->lock);
	bool bitmaps = cues->bitmaps;
	g_mutex_unlock(&cues->lock);
	return bitmaps;
}

void
umms_cues_end(struct umms_cues *cues, int64_t start, const char *markup, int64_t end)
{
	umms_cues_end_placed(cues, start, markup, NULL, end);
}

void
umms_cues_end_placed(struct umms_cues *cues, int64_t start, const char *markup,
	const struct umms_cue_place *place, int64_t end)
{
	struct umms_cue_place kept;
	place_normalize(&kept, place);
	g_mutex_lock(&cues->lock);
	for (guint i = cues->entries->len; i > 0; i--) {
		struct entry *entry = &g_array_index(cues->entries, struct entry, i - 1);
		if (entry->cue.start < start)
			break;
		if (entry->cue.start != start || strcmp(entry->cue.markup, markup) != 0 ||
				!same_place(&entry->cue.place, &kept))
			continue;
		if (end <= start)
			g_array_remove_index(cues->entries, i - 1);
		else if (entry->cue.end < 0 || end > entry->cue.end)
			entry->cue.end = end;
	}
	g_mutex_unlock(&cues->lock);
}

void
umms_cues_reach(struct umms_cues *cues, int64_t start, const char *markup, int64_t until)
{
	umms_cues_reach_placed(cues, start, markup, NULL, until);
}

void
umms_cues_reach_placed(struct umms_cues *cues, int64_t start, const char *markup,
	const struct umms_cue_place *place, int64_t until)
{
	struct umms_cue_place kept;
	place_normalize(&kept, place);
	g_mutex_lock(&cues->lock);
	for (guint i = cues->entries->len; i > 0; i--) {
		struct entry *entry = &g_array_index(cues->entries, struct entry, i - 1);
		if (entry->cue.start < start)
			break;
		if (entry->cue.start == start && entry->cue.end >= 0 && until > entry->cue.end &&
				strcmp(entry->cue.markup, markup) == 0 &&
				same_place(&entry->cue.place, &kept))
			entry->cue.end = until;
	}
	g_mutex_unlock(&cues->lock);
}

/* A cue without an end lasts until the next one starts (or for ever). */
static int64_t
entry_end(struct umms_cues *cues, guint i)
{
	const struct entry *entry = &g_array_index(cues->entries, struct entry, i);
	if (entry->cue.end >= 0)
		return entry->cue.end;
	for (guint j = i + 1; j < cues->entries->len; j++) {
		int64_t start = g_array_index(cues->entries, struct entry, j).cue.start;
		if (start > entry->cue.start)
			return start;
	}
	return G_MAXINT64;
}

void
umms_cues_forget_before(struct umms_cues *cues, int64_t position)
{
	g_mutex_lock(&cues->lock);
	for (guint i = cues->entries->len; i > 0; i--) {
		if (entry_end(cues, i - 1) < position)
			g_array_remove_index(cues->entries, i - 1);
	}
	g_mutex_unlock(&cues->lock);
}

unsigned
umms_cues_count(struct umms_cues *cues)
{
	g_mutex_lock(&cues->lock);
	unsigned n = cues->entries->len;
	g_mutex_unlock(&cues->lock);
	return n;
}

static bool
entry_active(struct umms_cues *cues, guint i, int64_t position)
{
	const struct entry *entry = &g_array_index(cues->entries, struct entry, i);
	return entry->cue.start <= position && position < entry_end(cues, i);
}

void
umms_cues_active(struct umms_cues *cues, int64_t position, GArray *out)
{
	umms_cues_passed(cues, -1, position, out);
}

void
umms_cues_passed(struct umms_cues *cues, int64_t since, int64_t position, GArray *out)
{
	g_mutex_lock(&cues->lock);
	for (guint i = 0; i < cues->entries->len; i++) {
		const struct entry *entry = &g_array_index(cues->entries, struct entry, i);
		if (entry->cue.start > position)
			break;
		bool passed = since >= 0 && entry->cue.start > since;
		if (!passed && !entry_active(cues, i, position))
			continue;
		struct umms_cue copy = {
			.start = entry->cue.start,
			.end = entry_end(cues, i) == G_MAXINT64 ? -1 : entry_end(cues, i),
			.markup = g_strdup(entry->cue.markup),
			.plain = g_strdup(entry->cue.plain),
			.place = entry->cue.place,
			.bitmap = entry->cue.bitmap,
		};
		g_array_append_val(out, copy);
	}
	g_mutex_unlock(&cues->lock);
}

void
umms_cues_set_style(struct umms_cues *cues, const struct umms_cue_style *style)
{
	g_mutex_lock(&cues->lock);
	cues->style.size_permille = CLAMP(style->size_permille, 1, 500);
	cues->style.margin_permille = CLAMP(style->margin_permille, 0, 900);
	cues->style_serial++;
	forget_rendering(cues);
	g_clear_pointer(&cues->prefetched, umms_subpicture_unref);
	cues->prefetch_time = -1;
	g_mutex_unlock(&cues->lock);
}

/* ---- rendering ------------------------------------------------------------ */

static struct umms_subpicture *
finish_subpicture(struct umms_subpicture *subpicture)
{
	GError *error = NULL;
	if (!umms_subpicture_seal(subpicture, &error)) {
		umms_warn("%s", error->message);
		g_error_free(error);
		umms_subpicture_unref(subpicture);
		return NULL;
	}
	return subpicture;
}

/* The cues active at @position: their ids, and copies of their markup and place. */
static void
collect_active(struct umms_cues *cues, int64_t position, GArray *ids, GArray *active)
{
	for (guint i = 0; i < cues->entries->len; i++) {
		const struct entry *entry = &g_array_index(cues->entries, struct entry, i);
		if (entry->cue.start > position)
			break;
		if (!entry_active(cues, i, position))
			continue;
		g_array_append_val(ids, entry->id);
		struct umms_cue copy = {
			.markup = g_strdup(entry->cue.markup),
			.place = entry->cue.place,
		};
		g_array_append_val(active, copy);
	}
}

static GArray *
cue_array_new(void)
{
	GArray *array = g_array_new(FALSE, TRUE, sizeof(struct umms_cue));
	g_array_set_clear_func(array, (GDestroyNotify)umms_cue_clear);
	return array;
}

/* When the active cues change next after @position; -1 never. */
static int64_t
next_change(struct umms_cues *cues, int64_t position)
{
	int64_t next = G_MAXINT64;
	for (guint i = 0; i < cues->entries->len; i++) {
		const struct entry *entry = &g_array_index(cues->entries, struct entry, i);
		if (entry->cue.start > position) {
			next = MIN(next, entry->cue.start);
			break;
		}
		if (entry_active(cues, i, position))
			next = MIN(next, entry_end(cues, i));
	}
	return next == G_MAXINT64 ? -1 : next;
}

static bool
same_ids(GArray *a, GArray *b)
{
	return a->len == b->len && memcmp(a->data, b->data, a->len * sizeof(uint64_t)) == 0;
}

/*
 * A worker: the cues of the next change drawn ahead, so the thread that
 * needs them (the video's, at the frame they become due) finds them
 * drawn. A drawing takes milliseconds (the outline at 1080 lines); made
 * there, it would make that frame late.
 */
static void
prefetch_job(gpointer data, gpointer unused)
{
	struct prefetch *job = data;
	struct umms_cues *cues = job->cues;
	GArray *ids = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	GArray *active = cue_array_new();
	g_mutex_lock(&cues->lock);
	collect_active(cues, job->position, ids, active);
	struct umms_cue_style style = cues->style;
	unsigned style_serial = cues->style_serial;
	g_mutex_unlock(&cues->lock);
	struct umms_subpicture *subpicture = umms_cues_text_draw(&style,
		(const struct umms_cue *)active->data, active->len, job->width, job->height);
	g_mutex_lock(&cues->lock);
	cues->prefetch_pending = false;
	if (subpicture && style_serial == cues->style_serial) {
		umms_subpicture_unref(cues->prefetched);
		cues->prefetched = g_steal_pointer(&subpicture);
		g_array_set_size(cues->prefetched_ids, 0);
		g_array_append_vals(cues->prefetched_ids, ids->data, ids->len);
		cues->prefetched_width = job->width;
		cues->prefetched_height = job->height;
	}
	g_mutex_unlock(&cues->lock);
	umms_subpicture_unref(subpicture);
	g_array_unref(active);
	g_array_unref(ids);
	umms_cues_unref(cues);
	g_free(job);
}

/* One worker for every cue list in the process: drawings ahead are rare. */
static GThreadPool *
prefetch_pool(void)
{
	static GThreadPool *pool;
	if (g_once_init_enter(&pool))
		g_once_init_leave(&pool, g_thread_pool_new(prefetch_job, NULL, 1, FALSE, NULL));
	return pool;
}

static struct umms_subpicture *
render_text_cues(struct umms_cues *cues, int64_t position, int width, int height)
{
	g_autoptr(GArray) ids = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	g_autoptr(GArray) active = cue_array_new();
	collect_active(cues, position, ids, active);
	struct umms_subpicture *subpicture = NULL;
	if (cues->cached && cues->cached_width == width && cues->cached_height == height &&
			same_ids(ids, cues->cached_ids)) {
		subpicture = umms_subpicture_ref(cues->cached);
	} else if (active->len) {
		forget_rendering(cues);
		if (cues->prefetched && cues->prefetched_width == width &&
				cues->prefetched_height == height &&
				same_ids(ids, cues->prefetched_ids))
			subpicture = g_steal_pointer(&cues->prefetched);
		else
			subpicture = umms_cues_text_draw(&cues->style,
				(const struct umms_cue *)active->data, active->len, width, height);
		if (subpicture) {
			cues->cached = umms_subpicture_ref(subpicture);
			g_array_append_vals(cues->cached_ids, ids->data, ids->len);
			cues->cached_width = width;
			cues->cached_height = height;
		}
	} else {
		forget_rendering(cues);
	}

	int64_t next = next_change(cues, position);
	if (next >= 0 && !cues->prefetch_pending && (next != cues->prefetch_time ||
			width != cues->prefetch_width || height != cues->prefetch_height)) {
		cues->prefetch_time = next;
		cues->prefetch_width = width;
		cues->prefetch_height = height;
		cues->prefetch_pending = true;
		struct prefetch *job = g_new0(struct prefetch, 1);
		job->cues = umms_cues_ref(cues);
		job->position = next;
		job->width = width;
		job->height = height;
		g_thread_pool_push(prefetch_pool(), job, NULL);
	}
	return subpicture;
}

/* libass's images (an alpha mask and a colour each) over transparency, premultiplied. */
static void
blend_ass(struct umms_subpicture *subpicture, const ASS_Image *images)
{
	for (const ASS_Image *image = images; image; image = image->next) {
		uint32_t color = image->color;
		uint32_t opacity = 255 - (color & 0xff);
		uint32_t r = color >> 24, g = (color >> 16) & 0xff, b = (color >> 8) & 0xff;
		for (int y = 0; y < image->h; y++) {
			int py = image->dst_y + y - subpicture->y;
			if (py < 0 || py >= subpicture->height)
				continue;
			const uint8_t *mask = image->bitmap + (size_t)y * (size_t)image->stride;
			uint8_t *row = (uint8_t *)subpicture->data + (size_t)py * subpicture->stride;
			for (int x = 0; x < image->w; x++) {
				int px = image->dst_x + x - subpicture->x;
				if (px < 0 || px >= subpicture->width || !mask[x])
					continue;
				uint32_t a = mask[x] * opacity / 255;
				uint8_t *pixel = row + (size_t)px * 4;
				uint32_t keep = 255 - a;
				pixel[0] = (uint8_t)((b * a + pixel[0] * keep) / 255);
				pixel[1] = (uint8_t)((g * a + pixel[1] * keep) / 255);
				pixel[2] = (uint8_t)((r * a + pixel[2] * keep) / 255);
				pixel[3] = (uint8_t)(a + pixel[3] * keep / 255);
			}
		}
	}
}

static struct umms_subpicture *
render_ass(struct umms_cues *cues, int64_t position, int width, int height)
{
	if (!cues->fonts_ready) {
		ass_set_fonts(cues->renderer, NULL, "Sans", ASS_FONTPROVIDER_AUTODETECT, NULL, 1);
		cues->fonts_ready = true;
	}
	ass_set_frame_size(cues->renderer, width, height);
	ass_set_storage_size(cues->renderer, width, height);
	int change = 0;
	ASS_Image *images = ass_render_frame(cues->renderer, cues->track, position / 1000, &change);
	if (!images) {
		forget_rendering(cues);
		return NULL;
	}
	if (cues->cached && change == 0 && cues->cached_width == width &&
			cues->cached_height == height)
		return umms_subpicture_ref(cues->cached);

	int x0 = width, y0 = height, x1 = 0, y1 = 0;
	for (const ASS_Image *image = images; image; image = image->next) {
		x0 = MIN(x0, MAX(image->dst_x, 0));
		y0 = MIN(y0, MAX(image->dst_y, 0));
		x1 = MAX(x1, MIN(image->dst_x + image->w, width));
		y1 = MAX(y1, MIN(image->dst_y + image->h, height));
	}
	forget_rendering(cues);
	if (x1 <= x0 || y1 <= y0)
		return NULL;
	GError *error = NULL;
	struct umms_subpicture *subpicture = umms_subpicture_create(x1 - x0, y1 - y0, width,
		height, &error);
	if (!subpicture) {
		umms_warn("%s", error->message);
		g_error_free(error);
		return NULL;
	}
	subpicture->x = x0;
	subpicture->y = y0;
	blend_ass(subpicture, images);
	subpicture = finish_subpicture(subpicture);
	if (subpicture) {
		cues->cached = umms_subpicture_ref(subpicture);
		cues->cached_width = width;
		cues->cached_height = height;
	}
	return subpicture;
}

/* The active bitmap cues' images, drawn once per change like text. */
static struct umms_subpicture *
render_bitmap_cues(struct umms_cues *cues, int64_t position, int width, int height)
{
	g_autoptr(GArray) ids = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	g_autoptr(GPtrArray) images = g_ptr_array_new();
	for (guint i = 0; i < cues->entries->len; i++) {
		const struct entry *entry = &g_array_index(cues->entries, struct entry, i);
		if (entry->cue.start > position)
			break;
		if (!entry->bitmap || !entry_active(cues, i, position))
			continue;
		g_array_append_val(ids, entry->id);
		g_ptr_array_add(images, entry->bitmap);
	}
	if (cues->cached && cues->cached_width == width && cues->cached_height == height &&
			same_ids(ids, cues->cached_ids))
		return umms_subpicture_ref(cues->cached);
	forget_rendering(cues);
	struct umms_subpicture *subpicture = umms_bitmap_render(
		(struct umms_bitmap *const *)images->pdata, images->len, width, height);
	if (subpicture) {
		cues->cached = umms_subpicture_ref(subpicture);
		g_array_append_vals(cues->cached_ids, ids->data, ids->len);
		cues->cached_width = width;
		cues->cached_height = height;
	}
	return subpicture;
}

struct umms_subpicture *
umms_cues_render(struct umms_cues *cues, int64_t position, int width, int height)
{
	if (width < 1 || height < 1 || width > UMMS_SUBPICTURE_MAX_SIDE ||
			height > UMMS_SUBPICTURE_MAX_SIDE)
		return NULL;
	g_mutex_lock(&cues->lock);
	struct umms_subpicture *subpicture = cues->track ?
		render_ass(cues, position, width, height) : cues->bitmaps ?
		render_bitmap_cues(cues, position, width, height) :
		render_text_cues(cues, position, width, height);
	g_mutex_unlock(&cues->lock);
	return subpicture;
}
