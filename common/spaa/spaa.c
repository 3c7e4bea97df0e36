/* spaa.c - the SPAA record model: a streaming reader that keeps the header
 * and the dictionaries, and parsers for stack and sample records. */
#include "spaa.h"
#include "build.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "cli.h"
#include "sniff.h"
#include "stackid.h"

const char *spaa_rtype_name(enum spaa_rtype t)
{
	static const char *names[] = { "eof", "header", "dso", "frame", "thread",
		"stack", "sample", "window", "other", "bad" };
	return t <= SPAA_BAD ? names[t] : "?";
}

static void default_error(spaa_reader *r, const char *msg)
{
	die_at(r->name, r->lineno, "%s", msg);
}

void spaa_error(spaa_reader *r, const char *fmt, ...)
{
	va_list ap;
	r->msg.n = 0;
	sbuf_reserve(&r->msg, 256);
	va_start(ap, fmt);
	int k = vsnprintf(r->msg.p, r->msg.cap, fmt, ap);
	va_end(ap);
	if (k >= 0 && (size_t)k >= r->msg.cap) {
		sbuf_reserve(&r->msg, (size_t)k + 1);
		va_start(ap, fmt);
		vsnprintf(r->msg.p, r->msg.cap, fmt, ap);
		va_end(ap);
	}
	r->on_error(r, r->msg.p);
}

spaa_reader *spaa_open(const char *path)
{
	return spaa_open_input(input_open(path));
}

spaa_reader *spaa_open_input(input *in)
{
	spaa_reader *r = xcalloc(1, sizeof *r);
	r->in = in;
	r->name = input_name(r->in);
	r->on_error = default_error;
	r->leaf_first = true;
	json_doc_init(&r->doc);
	return r;
}

spaa_reader *spaa_open_builder(struct builder *b, const char *name, char *extra, size_t extra_n)
{
	spaa_reader *r = xcalloc(1, sizeof *r);
	r->bsrc = xcalloc(1, sizeof *r->bsrc);
	builder_cursor_start(b, r->bsrc);
	r->name = name;
	r->extra = extra;
	r->extra_n = extra_n;
	r->on_error = default_error;
	r->leaf_first = true;
	json_doc_init(&r->doc);
	return r;
}

void spaa_close(spaa_reader *r)
{
	if (!r) return;
	if (r->bsrc) {
		builder *b = r->bsrc->b;
		builder_cursor_end(r->bsrc);
		builder_free(b);
		free(r->bsrc);
		free(r->extra);
	}
	if (r->in) input_close(r->in);
	json_doc_free(&r->doc);
	strmap_free(&r->dso_ids);
	strmap_free(&r->frame_ids);
	free(r->dso_direct.ix);
	free(r->frame_direct.ix);
	free(r->lazy_ids);
	strmap_free(&r->thread_ids);
	free(r->events);
	free(r->dsos);
	free(r->frames);
	free(r->threads);
	arena_free(&r->mem);
	sbuf_free(&r->msg);
	free(r);
}

/* ---- small accessors ---------------------------------------------------- */

static const json_node *node(const spaa_reader *r, uint32_t k)
{
	return &r->doc.nodes[k];
}

/* String member or NULL-pointer sstr. */
static sstr get_str(const spaa_reader *r, uint32_t obj, const char *key)
{
	uint32_t k = json_get(&r->doc, obj, key);
	if (k && node(r, k)->type == JSON_STRING) return (sstr){ node(r, k)->str, node(r, k)->count };
	return SSTR_NULL;
}

static char *dup_str(spaa_reader *r, uint32_t obj, const char *key)
{
	sstr s = get_str(r, obj, key);
	return s.p ? arena_strdup(&r->mem, s.p, s.n) : NULL;
}

static bool get_bool(const spaa_reader *r, uint32_t obj, const char *key, bool dflt)
{
	uint32_t k = json_get(&r->doc, obj, key);
	if (!k) return dflt;
	if (node(r, k)->type == JSON_TRUE) return true;
	if (node(r, k)->type == JSON_FALSE) return false;
	return dflt;
}

static bool get_i64(const spaa_reader *r, uint32_t obj, const char *key, int64_t *out)
{
	uint32_t k = json_get(&r->doc, obj, key);
	return k && json_int64(&r->doc, k, out);
}

/* Is number x representable: a finite double, and for an integer literal
 * (no fraction, no exponent) one of -2^63 .. 2^64-1? */
static bool num_in_range(const json_node *x)
{
	if (x->type != JSON_DOUBLE) return true;
	if (!isfinite(x->v.d)) return false;
	for (uint32_t i = 0; i < x->num_len; i++)
		if (x->str[i] == '.' || x->str[i] == 'e' || x->str[i] == 'E') return true;
	return false;
}

/* Reports a number out of range (spaa_error) and returns false. */
static bool check_range(spaa_reader *r, uint32_t k, const char *what)
{
	const json_node *x = node(r, k);
	if (json_is_num(&r->doc, k) && !num_in_range(x)) {
		spaa_error(r, "%s %.*s is out of range (integers from -2^63 to 2^64-1, finite numbers)",
			   what, (int)x->num_len, x->str);
		return false;
	}
	return true;
}

/* A number node (checked) as it was written: integers exact. */
static num exact_num(const json_node *x)
{
	return x->type == JSON_INT ? num_i(x->v.i) : x->type == JSON_UINT ? num_u(x->v.u) : num_d(x->v.d);
}

static bool get_double(spaa_reader *r, uint32_t obj, const char *key, double *out)
{
	uint32_t k = json_get(&r->doc, obj, key);
	if (!k || !check_range(r, k, key)) return false;
	const json_node *x = node(r, k);
	switch (x->type) {
	case JSON_INT: *out = (double)x->v.i; return true;
	case JSON_UINT: *out = (double)x->v.u; return true;
	case JSON_DOUBLE: *out = x->v.d; return true;
	default: return false;
	}
}

bool spaa_id_key(spaa_reader *r, uint32_t k, sstr *out)
{
	return spaa_id_text(&r->doc, k, out);
}

bool spaa_id_text(const json_doc *d, uint32_t k, sstr *out)
{
	const json_node *x = &d->nodes[k];
	if (x->type == JSON_STRING) {
		*out = (sstr){ x->str, x->count };
		return true;
	}
	if (x->type == JSON_INT || x->type == JSON_UINT) {
		*out = (sstr){ x->str, x->num_len };
		return true;
	}
	return false;
}

/* Printable form of an id node for messages. */
static sstr id_text(spaa_reader *r, uint32_t k)
{
	sstr s;
	if (k && spaa_id_key(r, k, &s)) return s;
	return sstr_c("(invalid)");
}

int32_t spaa_event_find(const spaa_reader *r, const char *name, size_t n)
{
	for (uint32_t i = 0; i < r->nevents; i++)
		if (r->events[i].name && r->events[i].name_n == n && memcmp(r->events[i].name, name, n) == 0)
			return (int32_t)i;
	return -1;
}

const spaa_weight *spaa_weight_find(const spaa_weight *ws, uint32_t n, const char *metric)
{
	for (uint32_t i = 0; i < n; i++)
		if (sstr_eqc(ws[i].metric, metric)) return &ws[i];
	return NULL;
}

/* ---- dictionaries -------------------------------------------------------- */

static void take_header(spaa_reader *r)
{
	r->have_header = true;
	r->header_line = r->lineno;
	/* a later major version may mean other things by the same fields */
	sstr ver = get_str(r, 0, "version");
	if (ver.p && !(ver.n >= 2 && memcmp(ver.p, "1.", 2) == 0))
		spaa_error(r, "header: unsupported SPAA version \"%.*s\" (this program reads 1.x)",
			   (int)ver.n, ver.p);
	sstr fo = get_str(r, 0, "frame_order");
	r->leaf_first = !fo.p || !sstr_eqc(fo, "root_to_leaf");
	sstr mode = get_str(r, 0, "stack_id_mode");
	r->content_ids = mode.p && sstr_eqc(mode, "content_addressable");
	uint32_t ev = json_get(&r->doc, 0, "events");
	if (ev && node(r, ev)->type == JSON_ARRAY) {
		for (uint32_t k = json_first(&r->doc, ev), i = 0; i < node(r, ev)->count;
		     i++, k = json_after(&r->doc, k)) {
			if (node(r, k)->type != JSON_OBJECT || !get_str(r, k, "name").p) {
				/* every command names events: one without a name is
				 * refused here, not met as NULL later */
				spaa_error(r, "header: events[%u] is not an object with a \"name\" string", i);
				continue;
			}
			spaa_event *e = VEC_PUSH(r->events, r->nevents, r->evcap);
			e->name = dup_str(r, k, "name");
			e->name_n = strlen(e->name);
			e->kind = dup_str(r, k, "kind");
			e->mode = e->primary_metric = NULL;
			uint32_t s = json_get(&r->doc, k, "sampling");
			if (s && node(r, s)->type == JSON_OBJECT) {
				e->mode = dup_str(r, s, "mode");
				e->primary_metric = dup_str(r, s, "primary_metric");
			}
		}
	}
	r->source_tool = dup_str(r, 0, "source_tool");
	uint32_t src = json_get(&r->doc, 0, "source");
	if (src && node(r, src)->type == JSON_OBJECT) r->command = dup_str(r, src, "command");
	uint32_t tr = json_get(&r->doc, 0, "time_range");
	if (tr && node(r, tr)->type == JSON_OBJECT) {
		r->has_time_range = get_double(r, tr, "start", &r->tr_start) &&
				    get_double(r, tr, "end", &r->tr_end);
		if (r->has_time_range) {
			r->tr_start_n = exact_num(node(r, json_get(&r->doc, tr, "start")));
			r->tr_end_n = exact_num(node(r, json_get(&r->doc, tr, "end")));
		}
	}
}

/* Is x an integer written without a sign (its key text is then the decimal
 * form of *v; "-0" is not)? */
static inline bool unsigned_id(const json_node *x, uint64_t *v)
{
	if (x->type == JSON_UINT) *v = x->v.u;
	else if (x->type == JSON_INT && x->str[0] != '-') *v = (uint64_t)x->v.i;
	else return false;
	return true;
}

/* Looks up id node k in map (through its direct cache); returns index or -1
 * (unknown or not an id). */
static int64_t find_id(spaa_reader *r, const strmap *m, const struct spaa_direct *dc, uint32_t k)
{
	uint64_t v;
	if (unsigned_id(node(r, k), &v) && v < dc->n && dc->ix[v]) return dc->ix[v] - 1;
	sstr key;
	if (!spaa_id_key(r, k, &key)) return -1;
	return strmap_find(m, key.p, key.n);
}

/* Would cache_id() cache the id v with count ids? */
static inline bool cacheable_id(uint64_t v, uint32_t count)
{
	return v < 8 * (uint64_t)count + 4096;
}

/* Caches index i of the unsigned integer id v, when v is small for the
 * number of ids (so that the cache stays within a few times the map);
 * false when it did not. */
static bool cache_id(struct spaa_direct *dc, uint64_t v, uint32_t i, uint32_t count)
{
	if (!cacheable_id(v, count)) return false;
	if (v >= dc->n) {
		uint32_t n = dc->n ? dc->n : 4096;
		while (n <= v) n *= 2;
		dc->ix = xrealloc(dc->ix, (size_t)n * sizeof *dc->ix);
		memset(dc->ix + dc->n, 0, (size_t)(n - dc->n) * sizeof *dc->ix);
		dc->n = n;
	}
	dc->ix[v] = i + 1;
	if (i == dc->dense && (i == 0 ? (dc->base = v, true) : v == dc->base + i)) dc->dense++;
	return true;
}

/* The index of the cached id v, or -1. */
static inline int64_t direct_find(const struct spaa_direct *dc, uint64_t v)
{
	if (v - dc->base < dc->dense) return (int64_t)(v - dc->base);
	return v < dc->n && dc->ix[v] ? (int64_t)dc->ix[v] - 1 : -1;
}

/* Adds the current record's "id" to map; returns the new index or -1. */
static int64_t add_id(spaa_reader *r, strmap *m, struct spaa_direct *dc, const char *what, const char *idkey)
{
	uint32_t k = json_get(&r->doc, 0, idkey);
	sstr key;
	if (!k) {
		spaa_error(r, "%s record has no %s", what, idkey);
		return -1;
	}
	if (!spaa_id_key(r, k, &key)) {
		spaa_error(r, "%s %s must be an integer or a string", what, idkey);
		return -1;
	}
	bool added;
	uint32_t i = strmap_intern(m, key.p, key.n, &added);
	if (!added) {
		spaa_error(r, "duplicate %s %s %.*s", what, idkey, (int)key.n, key.p);
		return -1;
	}
	uint64_t v;
	if (dc && !(unsigned_id(node(r, k), &v) && cache_id(dc, v, i, m->count))) dc->missed++;
	return i;
}

static void take_dso(spaa_reader *r)
{
	int64_t i = add_id(r, &r->dso_ids, &r->dso_direct, "dso", "id");
	if (i < 0) return;
	grow_array((void **)&r->dsos, &r->dcap, (uint32_t)i + 1, sizeof *r->dsos);
	spaa_dso *d = &r->dsos[i];
	d->name = dup_str(r, 0, "name");
	if (!d->name) d->name = arena_strdup(&r->mem, "", 0);
	d->name_n = (uint32_t)strlen(d->name);
	d->is_kernel = get_bool(r, 0, "is_kernel", false);
}

/* Value node k as a string, a copy of it, or a boolean (dflt when k is 0
 * or not one). */
static sstr str_at(const spaa_reader *r, uint32_t k)
{
	if (k && node(r, k)->type == JSON_STRING) return (sstr){ node(r, k)->str, node(r, k)->count };
	return SSTR_NULL;
}

static char *dup_at(spaa_reader *r, uint32_t k)
{
	sstr s = str_at(r, k);
	return s.p ? arena_strdup(&r->mem, s.p, s.n) : NULL;
}

static bool bool_at(const spaa_reader *r, uint32_t k, bool dflt)
{
	if (k && node(r, k)->type == JSON_TRUE) return true;
	if (k && node(r, k)->type == JSON_FALSE) return false;
	return dflt;
}

/* The members of a frame record, looked up in one pass. */
enum { FM_ID, FM_DSO, FM_FUNC, FM_KIND, FM_INLINED, FM_RESOLVED, FM_NOSYM, FM_NOCHAIN,
       FM_DEPTH, FM_SRCLINE, FM_IP, FM_SYMOFF, FM_NKEYS };
static const char *const frame_keys[FM_NKEYS] = {
	"id", "dso", "func", "kind", "inlined", "func_resolved", "x_perf_nosym",
	"x_perf_no_callchain", "inline_depth", "srcline", "ip", "symoff"
};

static void take_frame(spaa_reader *r)
{
	uint32_t m[FM_NKEYS];
	json_get_keys(&r->doc, 0, frame_keys, FM_NKEYS, m);
	uint32_t dk = m[FM_DSO];
	int64_t dso = -1;
	if (!dk) {
		sstr id = id_text(r, m[FM_ID]);
		spaa_error(r, "frame %.*s has no dso", (int)id.n, id.p);
	} else if ((dso = find_id(r, &r->dso_ids, &r->dso_direct, dk)) < 0) {
		sstr id = id_text(r, m[FM_ID]);
		sstr d = id_text(r, dk);
		spaa_error(r, "frame %.*s refers to unknown dso %.*s", (int)id.n, id.p, (int)d.n, d.p);
	}
	int64_t i = add_id(r, &r->frame_ids, &r->frame_direct, "frame", "id");
	if (i < 0) return;
	grow_array((void **)&r->frames, &r->fcap, (uint32_t)i + 1, sizeof *r->frames);
	spaa_frame *f = &r->frames[i];
	f->func = dup_at(r, m[FM_FUNC]);
	if (!f->func) f->func = arena_strdup(&r->mem, "", 0);
	if (dso < 0) { /* keep going (validation mode): a placeholder dso */
		if (r->dso_ids.count == 0 || strmap_find(&r->dso_ids, "\x01?", 2) < 0) {
			uint32_t j = strmap_intern(&r->dso_ids, "\x01?", 2, NULL);
			grow_array((void **)&r->dsos, &r->dcap, j + 1, sizeof *r->dsos);
			r->dsos[j].name = arena_strdup(&r->mem, "[unknown]", 9);
			r->dsos[j].name_n = 9;
			r->dsos[j].is_kernel = false;
		}
		dso = strmap_find(&r->dso_ids, "\x01?", 2);
	}
	f->dso = (uint32_t)dso;
	sstr kind = str_at(r, m[FM_KIND]);
	f->kind = !kind.p ? FK_UNKNOWN : sstr_eqc(kind, "user") ? FK_USER
		: sstr_eqc(kind, "kernel") ? FK_KERNEL : FK_UNKNOWN;
	if (!kind.p && r->dsos[dso].is_kernel) f->kind = FK_KERNEL;
	f->inlined = bool_at(r, m[FM_INLINED], false);
	f->func_resolved = bool_at(r, m[FM_RESOLVED], true);
	f->perf_nosym = bool_at(r, m[FM_NOSYM], false);
	f->perf_nochain = bool_at(r, m[FM_NOCHAIN], false);
	int64_t depth;
	f->inline_depth = m[FM_DEPTH] && json_int64(&r->doc, m[FM_DEPTH], &depth) && depth >= 0 && depth < INT32_MAX
		? (int32_t)depth : -1;
	f->srcline = dup_at(r, m[FM_SRCLINE]);
	f->func_n = (uint32_t)strlen(f->func);
	f->srcline_n = f->srcline ? (uint32_t)strlen(f->srcline) : 0;
	f->ip = dup_at(r, m[FM_IP]);
	f->symoff = dup_at(r, m[FM_SYMOFF]);
	f->line = r->lineno;
}

static void take_thread(spaa_reader *r)
{
	int64_t i = add_id(r, &r->thread_ids, NULL, "thread", "tid");
	if (i < 0) return;
	grow_array((void **)&r->threads, &r->tcap, (uint32_t)i + 1, sizeof *r->threads);
	spaa_thread *t = &r->threads[i];
	if (!get_i64(r, 0, "tid", &t->tid)) t->tid = -1;
	if (!get_i64(r, 0, "pid", &t->pid)) t->pid = -1;
	t->comm = dup_str(r, 0, "comm");
}

/* ---- the record loop ------------------------------------------------------ */

static enum spaa_rtype classify(sstr t)
{
	if (sstr_eqc(t, "stack")) return SPAA_STACK;
	if (sstr_eqc(t, "sample")) return SPAA_SAMPLE;
	if (sstr_eqc(t, "frame")) return SPAA_FRAME;
	if (sstr_eqc(t, "dso")) return SPAA_DSO;
	if (sstr_eqc(t, "thread")) return SPAA_THREAD;
	if (sstr_eqc(t, "header")) return SPAA_HEADER;
	if (sstr_eqc(t, "window")) return SPAA_WINDOW;
	return SPAA_OTHER;
}

/* The first line is not a SPAA record: if it looks like a converter's
 * input, say so (once) and what to run.  True when it did. */
static bool not_spaa(spaa_reader *r)
{
	sniff_result what;
	if (r->have_header || r->header_missing_said || sniff_line(r->line, r->len, &what) != 0)
		return false;
	r->header_missing_said = true;
	r->not_spaa = true;
	if (what.run)
		spaa_error(r, "this is %s, not SPAA: run %s first", what.what, what.run);
	else
		spaa_error(r, "this is %s, not SPAA", what.what);
	return true;
}

void spaa_need_header(spaa_reader *r)
{
	if (!r->have_header) die_at(r->name, 0, "no header record (empty input)");
}

/* ---- the fast path for stack records ---------------------------------- */

void spaa_fast_stacks(spaa_reader *r, spaa_stack *s)
{
	r->fast_stack = s;
}

/* Each step takes what it matches from *p (the line up to e) and returns
 * true, or returns false: the record is then left to the JSON parser. */
/* Are the n bytes at p those of literal s?  Compared a word at a time
 * (the last word overlapping), which, n being a constant, compiles to a
 * few loads and compares where memcmp stays a call. */
static inline __attribute__((always_inline)) bool lit_eq(const char *p, const char *s, size_t n)
{
	uint64_t a, b;
	if (n >= 8) {
		size_t i = 0;
		for (; i + 8 <= n; i += 8) {
			memcpy(&a, p + i, 8);
			memcpy(&b, s + i, 8);
			if (a != b) return false;
		}
		if (i == n) return true;
		memcpy(&a, p + n - 8, 8);
		memcpy(&b, s + n - 8, 8);
		return a == b;
	}
	uint32_t c, d;
	if (n >= 4) {
		memcpy(&c, p, 4);
		memcpy(&d, s, 4);
		if (c != d) return false;
		memcpy(&c, p + n - 4, 4);
		memcpy(&d, s + n - 4, 4);
		return c == d;
	}
	for (size_t i = 0; i < n; i++)
		if (p[i] != s[i]) return false;
	return true;
}

static inline __attribute__((always_inline)) bool f_lit(const char **p, const char *e, const char *s, size_t n)
{
	if ((size_t)(e - *p) < n || !lit_eq(*p, s, n)) return false;
	*p += n;
	return true;
}
#define F_LIT(p, e, s) f_lit(p, e, s, sizeof s - 1)

/* The rest of a string whose opening quote is taken, when it is plain
 * (printable ASCII without '"' or '\\': its text is its value). */
static inline uint64_t f_special8(uint64_t x)
{
	/* the high bit of each byte below 0x20, above 0x7e, '"' or '\\': a
	 * byte after a flagged one may be flagged wrongly (a borrow or carry
	 * moves up), so the lowest flag is exact, and none means none */
	const uint64_t one = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
	uint64_t q = x ^ (one * '"'), b = x ^ (one * '\\');
	uint64_t low = (x - one * 0x20) & ~x & high;
	uint64_t over = ((x + one * (0x7f - 0x7e)) | x) & high;
	uint64_t quote = (q - one) & ~q & high, bslash = (b - one) & ~b & high;
	return low | over | quote | bslash;
}

static bool f_str(const char **p, const char *e, sstr *out)
{
	const char *q = *p;
	uint64_t w;
#ifdef __SSE2__
	/* sixteen bytes at a time where SSE2 is (every x86-64): a byte is
	 * flagged when it is '"', '\\', 0x7f, or below 0x20 as a signed
	 * byte (so also 0x80 and above); the first flag ends the string if it
	 * is its '"' */
	while (e - q >= 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)q);
		__m128i bad = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
							_mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))),
					   _mm_or_si128(_mm_cmplt_epi8(x, _mm_set1_epi8(0x20)),
							_mm_cmpeq_epi8(x, _mm_set1_epi8(0x7f))));
		unsigned m = (unsigned)_mm_movemask_epi8(bad);
		if (m) {
			q += __builtin_ctz(m);
			if (*q != '"') return false;
			*out = (sstr){ *p, (size_t)(q - *p) };
			*p = q + 1;
			return true;
		}
		q += 16;
	}
#endif
	/* eight bytes at a time: the first that is not plain ends the string
	 * if it is its '"' (little-endian: the lowest flag is the first byte);
	 * the last few bytes of the line one by one */
	while (e - q >= 8) {
		memcpy(&w, q, 8);
		uint64_t m = f_special8(w);
		if (m) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			q += __builtin_ctzll(m) / 8;
			if (*q != '"') return false;
			*out = (sstr){ *p, (size_t)(q - *p) };
			*p = q + 1;
			return true;
#else
			break;
#endif
		}
		q += 8;
	}
	while (q < e && (unsigned char)*q >= 0x20 && (unsigned char)*q < 0x7f && *q != '"' && *q != '\\') q++;
	if (q == e || *q != '"') return false;
	*out = (sstr){ *p, (size_t)(q - *p) };
	*p = q + 1;
	return true;
}

/* A JSON integer of at most 18 digits (so in range), perhaps negative
 * (not "-0"). */
static bool f_int(const char **p, const char *e, int64_t *v, bool sign)
{
	const char *q = *p;
	bool neg = sign && q < e && *q == '-';
	if (neg) q++;
	const char *d = q;
	uint64_t x = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (e - q >= 8) {
		/* the first eight bytes at once: how many are digits (the
		 * lowest flag of "byte ^ '0' above 9" is exact, a carry only
		 * moving up from a flagged byte), and their value (the digits
		 * moved to the top of the word, zeros before them, then
		 * combined in pairs, fours and eights) */
		const uint64_t one = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
		uint64_t w;
		memcpy(&w, q, 8);
		uint64_t a = w ^ (one * '0');
		uint64_t m = ((a + one * (127 - 9)) | a) & high;
		unsigned k = m ? (unsigned)__builtin_ctzll(m) / 8 : 8;
		if (k) {
			a <<= 8 * (8 - k);
			a = a * 10 + (a >> 8);
			a = ((a & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32)) +
			     ((a >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32))) >> 32;
			x = a;
			q += k;
		}
		if (k < 8) goto done;
	}
#endif
	while (q < e && c_digit(*q) && q - d < 19) x = x * 10 + (uint64_t)(*q++ - '0');
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
done:;
#endif
	size_t n = (size_t)(q - d);
	if (n == 0 || n > 18 || (*d == '0' && (n > 1 || neg))) return false;
	*v = neg ? -(int64_t)x : (int64_t)x;
	*p = q;
	return true;
}

/* A frame id: a small integer in the direct cache. */
static bool f_frame(const spaa_reader *r, const char **p, const char *e, uint32_t *out)
{
	int64_t v, i;
	if (!f_int(p, e, &v, false) || (i = direct_find(&r->frame_direct, (uint64_t)v)) < 0) return false;
	*out = (uint32_t)i;
	return true;
}

/* [{"metric":"m","value":N(,"unit":"u")?}, ...] after its '['. */
static bool f_weights(const char **p, const char *e, spaa_weight **ws, uint32_t *nw, uint32_t *cap)
{
	*nw = 0;
	if (F_LIT(p, e, "]")) return true;
	do {
		spaa_weight w;
		int64_t v;
		if (!F_LIT(p, e, "{\"metric\":\"") || !f_str(p, e, &w.metric) || !F_LIT(p, e, ",\"value\":") ||
		    !f_int(p, e, &v, true))
			return false;
		w.value = num_i(v);
		w.unit = SSTR_NULL;
		if (F_LIT(p, e, ",\"unit\":\"") && !f_str(p, e, &w.unit)) return false;
		if (!F_LIT(p, e, "}")) return false;
		*VEC_PUSH(*ws, *nw, *cap) = w;
	} while (F_LIT(p, e, ","));
	return F_LIT(p, e, "]");
}

/* *s emptied: no frames, weights, context or members. */
static void stack_clear(spaa_stack *s)
{
	s->nframes = s->nw = s->nxw = 0;
	s->related = 0;
	s->has_pid = s->has_tid = s->has_cpu = s->has_excl = false;
	s->event = -1;
	s->event_name = s->stack_type = s->comm = SSTR_NULL;
	s->context = 0;
}

/* The record after its {"type":"stack", into *s. */
static bool stack_fast(const spaa_reader *r, spaa_stack *s, const char *p, const char *e)
{
	stack_clear(s);
	if (!F_LIT(&p, e, "\"id\":\"") || !f_str(&p, e, &s->id) || !F_LIT(&p, e, ",\"frames\":[")) return false;
	if (!F_LIT(&p, e, "]")) {
		/* the ids first, their cache entries asked for as they come,
		 * then the indices: the entries of a deep stack's frames are
		 * scattered, and the waits for them now overlap */
		const struct spaa_direct *dc = &r->frame_direct;
		do {
			int64_t v;
			if (!f_int(&p, e, &v, false) || (uint64_t)v >= dc->n) return false;
			if ((uint64_t)v - dc->base >= dc->dense) __builtin_prefetch(&dc->ix[v]);
			*VEC_PUSH(s->frames, s->nframes, s->fcap) = (uint32_t)v;
		} while (F_LIT(&p, e, ","));
		if (!F_LIT(&p, e, "]")) return false;
		for (uint32_t i = 0; i < s->nframes; i++) {
			int64_t x = direct_find(dc, s->frames[i]);
			if (x < 0) return false;
			s->frames[i] = (uint32_t)x;
		}
	}
	if (F_LIT(&p, e, ",\"stack_type\":\"") && !f_str(&p, e, &s->stack_type)) return false;
	if (!F_LIT(&p, e, ",\"context\":{\"event\":\"") || !f_str(&p, e, &s->event_name)) return false;
	if (F_LIT(&p, e, ",\"pid\":")) {
		if (!f_int(&p, e, &s->pid, true)) return false;
		s->has_pid = true;
	}
	if (F_LIT(&p, e, ",\"tid\":")) {
		if (!f_int(&p, e, &s->tid, true)) return false;
		s->has_tid = true;
	}
	if (F_LIT(&p, e, ",\"comm\":\"") && !f_str(&p, e, &s->comm)) return false;
	if (!F_LIT(&p, e, "},\"weights\":[") || !f_weights(&p, e, &s->w, &s->nw, &s->wcap)) return false;
	if (F_LIT(&p, e, ",\"exclusive\":{\"frame\":")) {
		if (!f_frame(r, &p, e, &s->excl_frame) || !F_LIT(&p, e, ",\"weights\":[") ||
		    !f_weights(&p, e, &s->xw, &s->nxw, &s->xwcap) || !F_LIT(&p, e, "}"))
			return false;
		s->has_excl = true;
	}
	if (F_LIT(&p, e, ",\"x_path_id\":\"")) {
		sstr x;
		if (!f_str(&p, e, &x)) return false;
	}
	if (!F_LIT(&p, e, "}")) return false;
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++;
	if (p != e) return false;
	s->event = spaa_event_find(r, s->event_name.p, s->event_name.n);
	return true;
}

bool spaa_stack_fast_line(const spaa_reader *r, spaa_stack *s, const char *line, size_t len)
{
	return r->have_header && len > 16 && memcmp(line, "{\"type\":\"stack\",", 16) == 0 &&
	       stack_fast(r, s, line + 16, line + len);
}

bool spaa_resume_at(spaa_reader *r, uint64_t off, uint64_t lines)
{
	if (r->bsrc || !input_seek(r->in, off)) return false;
	input_count_lines(r->in, lines, true);
	r->lineno = input_lineno(r->in);
	return true;
}

/* s copied to *m with a NUL, *m moved past it; the copy. */
static char *put_str(char **m, sstr s)
{
	char *d = *m;
	if (s.n) memcpy(d, s.p, s.n);
	d[s.n] = 0;
	*m = d + s.n + 1;
	return d;
}

/* A frame record's members as the fast path takes them (frame_fast, or a
 * profile in memory: builder_frame_rec), into the frame dictionary: the
 * frame, or NULL when the record is not to be taken so (its dso unknown,
 * its id seen before: the JSON path then says what is wrong).  idp, idn:
 * the id's text (idp NULL: x->id's digits, made when needed). */
static spaa_frame *frame_take(spaa_reader *r, int64_t id, const char *idp, size_t idn, const builder_frame_rec *x)
{
	if (x->dso >= r->dso_direct.n || !r->dso_direct.ix[x->dso]) return NULL;
	uint32_t i = spaa_frame_count(r);
	struct spaa_direct *dc = &r->frame_direct;
	if (!dc->missed && cacheable_id((uint64_t)id, i + 1)) {
		/* every id so far is in the cache, so a duplicate is found
		 * there: frame_ids gets it later (spaa_settle_frames) */
		if ((uint64_t)id < dc->n && dc->ix[id]) return NULL; /* the JSON path says so */
		*VEC_PUSH(r->lazy_ids, r->nlazy, r->lazycap) = (uint64_t)id;
		cache_id(dc, (uint64_t)id, i, i + 1);
	} else {
		spaa_settle_frames(r);
		char t[24];
		if (!idp) {
			idn = fmt_u64(t, (uint64_t)id);
			idp = t;
		}
		bool added;
		i = strmap_intern(&r->frame_ids, idp, idn, &added);
		if (!added) return NULL; /* a duplicate: the JSON path says so */
		if (!cache_id(dc, (uint64_t)id, i, r->frame_ids.count)) dc->missed++;
	}
	grow_array((void **)&r->frames, &r->fcap, i + 1, sizeof *r->frames);
	spaa_frame *f = &r->frames[i];
	/* the strings in one piece of the arena, byte-aligned (arena_strdup
	 * rounds each up to 16 bytes: half the memory of a perf frame) */
	char *m = arena_alloc_aligned(&r->mem, x->func.n + 1 + (x->srcline.p ? x->srcline.n + 1 : 0) +
					       (x->ip.p ? x->ip.n + 1 : 0) + (x->symoff.p ? x->symoff.n + 1 : 0), 1);
	f->func = put_str(&m, x->func);
	f->func_n = (uint32_t)x->func.n;
	f->dso = r->dso_direct.ix[x->dso] - 1;
	f->kind = x->kind;
	f->inlined = x->inlined;
	f->func_resolved = x->resolved;
	f->perf_nosym = false;
	f->perf_nochain = false;
	f->inline_depth = x->inline_depth;
	f->srcline = x->srcline.p ? put_str(&m, x->srcline) : NULL;
	f->srcline_n = (uint32_t)x->srcline.n;
	f->ip = x->ip.p ? put_str(&m, x->ip) : NULL;
	f->symoff = x->symoff.p ? put_str(&m, x->symoff) : NULL;
	f->line = r->lineno;
	return f;
}

/* A frame record after its {"type":"frame", in the builders' layout (id,
 * func, func_resolved, dso, ip, symoff, srcline, inlined, inline_depth,
 * kind, x_perf_nosym or x_perf_no_callchain), taken as take_frame() would. */
static bool frame_fast(spaa_reader *r, const char *p, const char *e)
{
	int64_t id, dso, depth = -1;
	sstr kind;
	builder_frame_rec x = { .resolved = true };
	bool nosym = false, nochain = false;
	if (!F_LIT(&p, e, "\"id\":")) return false;
	const char *idp = p;
	if (!f_int(&p, e, &id, false)) return false;
	size_t idn = (size_t)(p - idp);
	if (!F_LIT(&p, e, ",\"func\":\"") || !f_str(&p, e, &x.func)) return false;
	if (F_LIT(&p, e, ",\"func_resolved\":false")) x.resolved = false;
	if (!F_LIT(&p, e, ",\"dso\":") || !f_int(&p, e, &dso, false)) return false;
	if (F_LIT(&p, e, ",\"ip\":\"") && !f_str(&p, e, &x.ip)) return false;
	if (F_LIT(&p, e, ",\"symoff\":\"") && !f_str(&p, e, &x.symoff)) return false;
	if (F_LIT(&p, e, ",\"srcline\":\"") && !f_str(&p, e, &x.srcline)) return false;
	if (F_LIT(&p, e, ",\"inlined\":true")) x.inlined = true;
	if (F_LIT(&p, e, ",\"inline_depth\":") && (!f_int(&p, e, &depth, false) || depth >= INT32_MAX)) return false;
	if (!F_LIT(&p, e, ",\"kind\":\"") || !f_str(&p, e, &kind)) return false;
	if (F_LIT(&p, e, ",\"x_perf_nosym\":true")) nosym = true;
	else if (F_LIT(&p, e, ",\"x_perf_no_callchain\":true")) nochain = true;
	if (!F_LIT(&p, e, "}")) return false;
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++;
	if (p != e) return false;
	x.dso = (uint64_t)dso;
	x.inline_depth = (int32_t)depth;
	x.kind = sstr_eqc(kind, "user") ? FK_USER : sstr_eqc(kind, "kernel") ? FK_KERNEL : FK_UNKNOWN;
	spaa_frame *f = frame_take(r, id, idp, idn, &x);
	if (!f) return false;
	f->perf_nosym = nosym;
	f->perf_nochain = nochain;
	return true;
}

void spaa_settle_frames(spaa_reader *r)
{
	for (uint32_t k = 0; k < r->nlazy; k++) {
		char t[24];
		int n = snprintf(t, sizeof t, "%llu", (unsigned long long)r->lazy_ids[k]);
		strmap_intern(&r->frame_ids, t, (size_t)n, NULL);
	}
	r->nlazy = 0;
}

/* The next line of a profile in memory (spaa_open_builder): BUILDER_STACK
 * when it was a stack put into r->fast_stack, BUILDER_FRAME a frame taken
 * into the dictionary (the fast path's: no text), else the line's text. */
static int builder_line(spaa_reader *r)
{
	const char *line;
	size_t n;
	int k = r->bsrc->b ? builder_cursor_next(r->bsrc, r->have_header ? r->fast_stack : NULL, &line, &n)
			   : BUILDER_END;
	r->lineno++;
	if (k == BUILDER_STACK) return k;
	if (k == BUILDER_FRAME) {
		/* (a dictionary change: as before any record off the stack
		 * path) */
		if (r->before_slow) r->before_slow(r);
		if (frame_take(r, (int64_t)r->bsrc->frame.id, NULL, 0, &r->bsrc->frame)) return k;
		/* turned down: its text, for the JSON path to say why */
		builder_cursor_frame_text(r->bsrc, &line, &n);
		k = BUILDER_TEXT;
	}
	if (k == BUILDER_TEXT) {
		r->line = (char *)line;
		r->len = n;
		return false;
	}
	if (r->extra_at < r->extra_n) {
		char *p = r->extra + r->extra_at, *e = memchr(p, '\n', r->extra_n - r->extra_at);
		if (!e) e = r->extra + r->extra_n;
		*e = 0;
		r->line = p;
		r->len = (size_t)(e - p);
		r->extra_at = (size_t)(e - r->extra) + 1;
		return false;
	}
	r->line = NULL;
	r->len = 0;
	return false;
}

enum spaa_rtype spaa_next(spaa_reader *r)
{
	for (;;) {
		if (r->bsrc) {
			int k = builder_line(r);
			if (k == BUILDER_STACK) {
				r->fast = true;
				r->fast_stack->event = spaa_event_find(r, r->fast_stack->event_name.p,
								       r->fast_stack->event_name.n);
				return r->type = SPAA_STACK;
			}
			if (k == BUILDER_FRAME) {
				r->fast = true;
				return r->type = SPAA_FRAME;
			}
		} else {
			r->line = input_line(r->in, &r->len);
			r->lineno = input_lineno(r->in);
		}
		if (!r->line) return r->type = SPAA_EOF;
		size_t n = r->len;
		if (n && r->line[n - 1] == '\r') n--;
		if (n == 0) continue;
		break;
	}
	r->fast = false;
	if (r->fast_stack && r->have_header && r->len > 16 && memcmp(r->line, "{\"type\":\"stack\",", 16) == 0 &&
	    stack_fast(r, r->fast_stack, r->line + 16, r->line + r->len)) {
		r->fast = true;
		return r->type = SPAA_STACK;
	}
	if (r->before_slow) r->before_slow(r);
	if (r->fast_stack && r->have_header && r->len > 16 && memcmp(r->line, "{\"type\":\"frame\",", 16) == 0 &&
	    frame_fast(r, r->line + 16, r->line + r->len)) {
		r->fast = true;
		return r->type = SPAA_FRAME;
	}
	bool first = !r->have_header && !r->header_missing_said;
	if (json_parse(&r->doc, r->line, r->len) != 0) {
		if (first && not_spaa(r)) return r->type = SPAA_BAD;
		spaa_error(r, "invalid JSON at byte %zu: %s", r->doc.err_pos + 1, r->doc.err_msg);
		return r->type = SPAA_BAD;
	}
	if (node(r, 0)->type != JSON_OBJECT) {
		if (first && not_spaa(r)) return r->type = SPAA_BAD;
		spaa_error(r, "record is not a JSON object");
		return r->type = SPAA_BAD;
	}
	uint32_t dup = json_dup_key(&r->doc, 0);
	if (dup) {
		/* tools differ on which one counts (jq takes the last, this
		 * reader the first): refused */
		spaa_error(r, "key \"%.*s\" appears twice in the record", (int)node(r, dup)->count, node(r, dup)->str);
		return r->type = SPAA_BAD;
	}
	sstr t = get_str(r, 0, "type");
	if (!t.p) {
		if (first && not_spaa(r)) return r->type = SPAA_BAD;
		spaa_error(r, "record has no \"type\" string");
		return r->type = SPAA_BAD;
	}
	enum spaa_rtype type = classify(t);
	if (type == SPAA_FRAME || type == SPAA_STACK) spaa_settle_frames(r);
	if (type == SPAA_HEADER) {
		if (r->have_header)
			spaa_error(r, "second header record (the first is at line %llu)",
				   (unsigned long long)r->header_line);
		else
			take_header(r);
	} else if (!r->have_header && !r->header_missing_said) {
		r->header_missing_said = true;
		spaa_error(r, "the first record is a %.*s, not the header", (int)t.n, t.p);
	}
	switch (type) {
	case SPAA_DSO: take_dso(r); break;
	case SPAA_FRAME: take_frame(r); break;
	case SPAA_THREAD: take_thread(r); break;
	default: break;
	}
	return r->type = type;
}

/* ---- stacks and samples --------------------------------------------------- */

/* A weights array: [{"metric":..,"value":..,"unit":..}, ...]. owner and id
 * name the record in messages ("stack 0x1f", "window w1"). */
static int parse_weights(spaa_reader *r, uint32_t arr, const char *owner, sstr id,
			 const char *what, spaa_weight **ws, uint32_t *nw, uint32_t *cap)
{
	*nw = 0;
	if (node(r, arr)->type != JSON_ARRAY) {
		spaa_error(r, "%s %.*s: %s must be an array", owner, (int)id.n, id.p, what);
		return -1;
	}
	uint32_t k = json_first(&r->doc, arr);
	for (uint32_t i = 0; i < node(r, arr)->count; i++, k = json_after(&r->doc, k)) {
		if (node(r, k)->type != JSON_OBJECT) {
			spaa_error(r, "%s %.*s: %s[%u] is not an object", owner, (int)id.n, id.p, what, i);
			return -1;
		}
		sstr metric = get_str(r, k, "metric");
		uint32_t v = json_get(&r->doc, k, "value");
		if (!metric.p || !v || !json_is_num(&r->doc, v)) {
			spaa_error(r, "%s %.*s: %s[%u] needs a \"metric\" string and a numeric \"value\"",
				   owner, (int)id.n, id.p, what, i);
			return -1;
		}
		if (!num_in_range(node(r, v))) {
			spaa_error(r, "%s %.*s: %s[%u]: value %.*s is out of range (integers from -2^63 to 2^64-1, finite numbers)",
				   owner, (int)id.n, id.p, what, i, (int)node(r, v)->num_len, node(r, v)->str);
			return -1;
		}
		spaa_weight *w = VEC_PUSH(*ws, *nw, *cap);
		w->metric = metric;
		w->unit = get_str(r, k, "unit");
		const json_node *x = node(r, v);
		w->value = x->type == JSON_INT ? num_i(x->v.i) : x->type == JSON_UINT ? num_u(x->v.u) : num_d(x->v.d);
	}
	return 0;
}

/* The members of a stack record and of its context, looked up in one pass. */
enum { SM_ID, SM_FRAMES, SM_TYPE, SM_RELATED, SM_CONTEXT, SM_WEIGHTS, SM_EXCLUSIVE, SM_NKEYS };
static const char *const stack_keys[SM_NKEYS] = {
	"id", "frames", "stack_type", "related_stacks", "context", "weights", "exclusive"
};
enum { CM_EVENT, CM_PID, CM_TID, CM_CPU, CM_COMM, CM_NKEYS };
static const char *const context_keys[CM_NKEYS] = { "event", "pid", "tid", "cpu", "comm" };

int spaa_stack_parse(spaa_reader *r, spaa_stack *s)
{
	stack_clear(s);
	uint32_t m[SM_NKEYS];
	json_get_keys(&r->doc, 0, stack_keys, SM_NKEYS, m);
	uint32_t idk = m[SM_ID];
	if (!idk || !spaa_id_key(r, idk, &s->id)) {
		s->id = sstr_c("(no id)");
		spaa_error(r, "stack record has no valid \"id\" (an integer or a string)");
		return -1;
	}
	sstr id = s->id;
	uint32_t fr = m[SM_FRAMES];
	if (!fr || node(r, fr)->type != JSON_ARRAY) {
		spaa_error(r, "stack %.*s has no \"frames\" array", (int)id.n, id.p);
		return -1;
	}
	int rc = 0;
	grow_array((void **)&s->frames, &s->fcap, node(r, fr)->count, sizeof *s->frames);
	uint32_t k = json_first(&r->doc, fr);
	for (uint32_t i = 0; i < node(r, fr)->count; i++, k = json_after(&r->doc, k)) {
		int64_t f = find_id(r, &r->frame_ids, &r->frame_direct, k);
		if (f < 0) {
			sstr t = id_text(r, k);
			spaa_error(r, "stack %.*s refers to unknown frame %.*s", (int)id.n, id.p, (int)t.n, t.p);
			rc = -1;
			continue;
		}
		s->frames[s->nframes++] = (uint32_t)f;
	}
	s->stack_type = str_at(r, m[SM_TYPE]);
	s->related = m[SM_RELATED];
	if (s->related && node(r, s->related)->type != JSON_ARRAY) {
		spaa_error(r, "stack %.*s: related_stacks must be an array", (int)id.n, id.p);
		s->related = 0;
		rc = -1;
	}
	uint32_t ctx = m[SM_CONTEXT];
	if (!ctx || node(r, ctx)->type != JSON_OBJECT) {
		spaa_error(r, "stack %.*s has no \"context\" object", (int)id.n, id.p);
		rc = -1;
	} else {
		s->context = ctx;
		uint32_t cm[CM_NKEYS];
		json_get_keys(&r->doc, ctx, context_keys, CM_NKEYS, cm);
		s->event_name = str_at(r, cm[CM_EVENT]);
		if (!s->event_name.p) {
			spaa_error(r, "stack %.*s has no context.event", (int)id.n, id.p);
			rc = -1;
		} else {
			s->event = spaa_event_find(r, s->event_name.p, s->event_name.n);
		}
		s->has_pid = cm[CM_PID] && json_int64(&r->doc, cm[CM_PID], &s->pid);
		s->has_tid = cm[CM_TID] && json_int64(&r->doc, cm[CM_TID], &s->tid);
		s->has_cpu = cm[CM_CPU] && json_int64(&r->doc, cm[CM_CPU], &s->cpu);
		s->comm = str_at(r, cm[CM_COMM]);
	}
	uint32_t w = m[SM_WEIGHTS];
	if (!w) {
		spaa_error(r, "stack %.*s has no \"weights\"", (int)id.n, id.p);
		rc = -1;
	} else if (parse_weights(r, w, "stack", id, "weights", &s->w, &s->nw, &s->wcap) < 0) {
		rc = -1;
	}
	uint32_t ex = m[SM_EXCLUSIVE];
	if (ex && node(r, ex)->type == JSON_OBJECT) {
		uint32_t ef = json_get(&r->doc, ex, "frame");
		int64_t f = ef ? find_id(r, &r->frame_ids, &r->frame_direct, ef) : -1;
		if (!ef) {
			spaa_error(r, "stack %.*s: exclusive has no frame", (int)id.n, id.p);
			rc = -1;
		} else if (f < 0) {
			sstr t = id_text(r, ef);
			spaa_error(r, "stack %.*s: exclusive.frame refers to unknown frame %.*s",
				   (int)id.n, id.p, (int)t.n, t.p);
			rc = -1;
		} else {
			s->has_excl = true;
			s->excl_frame = (uint32_t)f;
			uint32_t xw = json_get(&r->doc, ex, "weights");
			if (xw && parse_weights(r, xw, "stack", id, "exclusive.weights", &s->xw, &s->nxw, &s->xwcap) < 0)
				rc = -1;
		}
	}
	return rc;
}

void spaa_stack_free(spaa_stack *s)
{
	free(s->frames);
	free(s->w);
	free(s->xw);
	memset(s, 0, sizeof *s);
}

int spaa_sample_parse(spaa_reader *r, spaa_sample *s)
{
	memset(s, 0, sizeof *s);
	uint32_t k = json_get(&r->doc, 0, "stack_id");
	if (!k || !spaa_id_key(r, k, &s->stack_id)) {
		spaa_error(r, "sample has no valid \"stack_id\"");
		return -1;
	}
	s->has_ts = get_double(r, 0, "timestamp", &s->timestamp);
	s->has_pid = get_i64(r, 0, "pid", &s->pid);
	s->has_tid = get_i64(r, 0, "tid", &s->tid);
	s->has_cpu = get_i64(r, 0, "cpu", &s->cpu);
	s->event = get_str(r, 0, "event");
	uint32_t p = json_get(&r->doc, 0, "period");
	if (p && json_is_num(&r->doc, p)) {
		const json_node *x = node(r, p);
		s->has_period = true;
		s->period = x->type == JSON_INT ? num_i(x->v.i) : x->type == JSON_UINT ? num_u(x->v.u) : num_d(x->v.d);
	}
	return 0;
}

int spaa_window_parse(spaa_reader *r, spaa_window *w)
{
	memset(w, 0, sizeof *w);
	uint32_t k = json_get(&r->doc, 0, "id");
	if (!k || !spaa_id_key(r, k, &w->id)) w->id = sstr_c("(no id)");
	w->has_start = get_double(r, 0, "start", &w->start);
	w->has_end = get_double(r, 0, "end", &w->end);
	w->by_stack = json_get(&r->doc, 0, "by_stack");
	if (w->by_stack && node(r, w->by_stack)->type != JSON_ARRAY) {
		spaa_error(r, "window %.*s: by_stack must be an array", (int)w->id.n, w->id.p);
		w->by_stack = 0;
		return -1;
	}
	return 0;
}

int spaa_window_entry(spaa_reader *r, uint32_t k, sstr *stack_id, spaa_weight **ws,
		      uint32_t *nw, uint32_t *cap)
{
	*nw = 0;
	uint32_t sid = node(r, k)->type == JSON_OBJECT ? json_get(&r->doc, k, "stack_id") : 0;
	if (!sid || !spaa_id_key(r, sid, stack_id)) {
		spaa_error(r, "window entry has no valid \"stack_id\"");
		return -1;
	}
	uint32_t w = json_get(&r->doc, k, "weights");
	if (!w) return 0;
	return parse_weights(r, w, "window entry for stack", *stack_id, "weights", ws, nw, cap);
}

void spaa_stack_ids(const spaa_reader *r, const spaa_stack *s, uint64_t *id, uint64_t *path_id)
{
	uint64_t h = FNV64_BASIS;
	for (uint32_t i = 0; i < s->nframes; i++) {
		const spaa_frame *f = &r->frames[spaa_stack_root_frame(r, s, i)];
		const spaa_dso *d = &r->dsos[f->dso];
		stackid_frame sf = { { f->func, f->func_n }, { d->name, d->name_n },
				     { f->srcline, f->srcline_n }, f->inlined };
		h = stackid_add_frame(h, &sf);
	}
	if (path_id) *path_id = h;
	stackid_ctx c = { s->event_name, s->stack_type, s->comm, s->has_pid, s->has_tid, s->pid, s->tid };
	if (id) *id = stackid_add_ctx(h, &c);
}
