/* pprof2spaa - pprof profiles (profile.proto, gzip or plain) to SPAA.
 *
 * The story: the whole profile is read (it is one protobuf message, whose
 * fields may come in any order), then read twice in place: first the
 * dictionaries (string table, mappings, functions, locations) and the
 * profile's own fields, then the samples.  Each sample becomes a stack
 * weighted by its values, one metric per sample type, of one event; each
 * location becomes its frames (several lines: inlined functions, innermost
 * first, spaa(5)'s inline_depth), each mapping a dso.  The builder (build.h)
 * sums identical stacks and writes content-addressed ids. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "readers.h"
#include "build.h"
#include "reader.h"
#include "cli.h"
#include "several.h"
#include "idmap.h"
#include "input.h"
#include "jsonbuf.h"
#include "num.h"
#include "output.h"
#include "pb.h"
#include "sniff.h"
#include "spaa.h"
#include "stackid.h"
#include "strmap.h"
#include "util.h"

static const char help[] =
"Usage: pprof2spaa [OPTION]... [FILE]...\n"
"Convert a pprof profile (profile.proto, as Go's runtime/pprof, gperftools,\n"
"jemalloc, perf_data_converter and the continuous profilers write it; gzip,\n"
"zstd or plain) to SPAA.  With no FILE, or when FILE is -, read standard\n"
"input.\n"
"\n"
"Each sample type becomes a metric of one event: alloc_objects, alloc_space,\n"
"inuse_objects and inuse_space become SPAA's alloc_count, alloc_bytes,\n"
"live_count and live_bytes (event \"heap\", kind allocation); a CPU profile is\n"
"event \"cpu\" (kind timer) with metrics samples and cpu (nanoseconds).  Labels\n"
"are kept in each stack's context as x_labels.\n"
"\n"
"      --event=NAME     name of the event (default: from the profile)\n"
"  -m, --metric=NAME    the primary metric (default: the profile's default\n"
"                       sample type, else its last, as pprof chooses)\n"
"      --addresses      a frame per location address (its ip), not one per\n"
"                       function and line: the weight of each address, for\n"
"                       spaa-annotate --disasm\n"
"      --max-size=BYTES\n"
"                       the largest profile read, decompressed (default 1G;\n"
"                       K, M and G are powers of 1024)\n"
CLI_HELP_TAIL;

/* ---- the profile, as read ----------------------------------------------------- */

#define MAX_TYPES 64 /* sample types (the builder's metrics) */

/* profile.proto field numbers */
enum {
	P_SAMPLE_TYPE = 1, P_SAMPLE = 2, P_MAPPING = 3, P_LOCATION = 4, P_FUNCTION = 5,
	P_STRING_TABLE = 6, P_DROP_FRAMES = 7, P_KEEP_FRAMES = 8, P_TIME_NANOS = 9,
	P_DURATION_NANOS = 10, P_PERIOD_TYPE = 11, P_PERIOD = 12, P_COMMENT = 13,
	P_DEFAULT_SAMPLE_TYPE = 14,
};

struct mapping {
	uint64_t filename, build_id;  /* string indices */
	int64_t dso;                  /* builder dso, -1 not yet */
	const uint8_t *at;            /* where it was read */
};

struct function {
	uint64_t name, system_name, filename, start_line;
	const uint8_t *at;
};

struct location {
	uint64_t mapping, address;
	uint32_t lines, nlines;       /* into Q.lines */
};

/* A location's frames, once resolved: what a sample needs of it, kept apart
 * from the location so that the samples' random lookups stay in cache. */
struct locframes {
	uint32_t frames, nframes;     /* into Q.fpool; nframes 0: not resolved yet */
};

struct line { uint64_t function, line; };

/* pprof id -> index, in order of definition.  Writers number the ids 1, 2,
 * 3... as they define them (Go, gperftools, pprof itself, spaa2pprof): while
 * they do, the index is the id - 1, found without a lookup; the first id out
 * of that order moves the ids so far into a hash map. */
typedef struct ids {
	idmap map;
	uint32_t n;
	bool hashed;
} ids;

static struct {
	const char *fname;            /* for messages */
	const uint8_t *buf;           /* the whole message */
	size_t len;
	/* the string table: offset and length of each string */
	struct { uint32_t off, len; } *str;
	uint32_t nstr, strcap;
	ids map_ids, fn_ids, loc_ids; /* pprof id -> index, in order of definition */
	struct mapping *maps;
	uint32_t nmaps, mapcap;
	struct function *fns;
	uint32_t nfns, fncap;
	struct location *locs;
	uint32_t nlocs, loccap;
	struct line *lines;
	uint32_t nlines, linecap;
	struct locframes *locf;       /* [nlocs] */
	uint32_t *fpool;              /* frames of the locations, leaf first */
	uint32_t nfpool, fpcap;
	/* the profile's own fields */
	uint64_t type[MAX_TYPES], unit[MAX_TYPES];
	uint32_t ntypes;
	uint64_t period_type, period_unit, default_type;
	size_t default_type_off;      /* where default_type was read */
	bool has_period_type;
	int64_t period, time_nanos, duration_nanos;
	bool has_period, has_time;
	uint64_t drop_frames, keep_frames;
	uint64_t *comments;
	uint32_t ncomments, comcap;
	uint64_t nsamples;
	bool addresses;               /* --addresses: a frame per location address */
	uint64_t ahash;               /* the sample's location addresses, hashed */
	/* output */
	builder *b;
	uint32_t event, metric[MAX_TYPES], primary;
	bool live[MAX_TYPES];    /* live_bytes or live_count: written when 0 too */
	int64_t unknown_dso;
	uint32_t *frames;
	uint32_t nframes, frcap;
	sbuf labels, scratch, fextra;
	strmap label_ids;             /* a label's bytes -> its JSON in label_text */
	sbuf label_text;
	/* per distinct label: its key (string index), and its key and value
	 * as JSON in label_text */
	struct span { uint64_t key; size_t koff, klen, voff, vlen; } *label_span;
	uint32_t nlabel_span, label_spancap;
	uint32_t *slabels;            /* the labels of the sample at hand */
	uint32_t nslabels, slabelcap;
} Q = { .unknown_dso = -1 };

/* Damage at byte offset off of the message: every message names where. */
static noreturn void bad(size_t off, const char *what)
{
	/* text that no converter reads: say what it looks like, not which
	 * protobuf field it breaks */
	const char *looks = NULL;
	size_t n = Q.len < 65536 ? Q.len : 65536;
	if (off < 64 && !sniff_bytes(Q.buf, n, Q.len > n, &looks) && looks && !strncmp(looks, "text", 4))
		die_at(Q.fname, 0, "not a pprof profile (profile.proto, binary; or a tcmalloc or jemalloc "
		       "heap profile): %s (any2spaa recognises every format this toolbox reads)", looks);
	die_at(Q.fname, 0, "not a valid pprof profile: %s (byte %zu of the decompressed data)", what, off);
}

static size_t off_of(const uint8_t *p) { return (size_t)(p - Q.buf); }

static sstr str_of(uint64_t i)
{
	if (i >= Q.nstr) return SSTR_NULL;
	return (sstr){ (const char *)Q.buf + Q.str[i].off, Q.str[i].len };
}

/* A string index that must exist (every index is checked before use). */
static void check_str(uint64_t i, const uint8_t *at, const char *what)
{
	if (i >= Q.nstr) {
		char m[128];
		snprintf(m, sizeof m, "%s: string index %" PRIu64 " beyond the string table (%u strings)",
			 what, i, Q.nstr);
		bad(off_of(at), m);
	}
}

/* id -> index in one of the tables; UINT32_MAX when absent */
static uint32_t id_find(const ids *t, uint64_t id)
{
	if (!t->hashed) return id - 1 < t->n ? (uint32_t)(id - 1) : UINT32_MAX;
	return idmap_get(&t->map, (int64_t)id);
}

static void id_add(ids *t, uint64_t id, const uint8_t *at, const char *what)
{
	if (!t->hashed && id == (uint64_t)t->n + 1) {
		t->n++;
		return;
	}
	if (!t->hashed) {
		for (uint32_t i = 0; i < t->n; i++) idmap_put(&t->map, (int64_t)i + 1, i, NULL);
		t->hashed = true;
	}
	bool added;
	idmap_put(&t->map, (int64_t)id, t->n, &added);
	if (!added) {
		char msg[96];
		snprintf(msg, sizeof msg, "%s id %" PRIu64 " defined twice", what, id);
		bad(off_of(at), msg);
	}
	t->n++;
}

/* ---- pass 1: the dictionaries and the profile's fields ---------------------------- */

static int next(pb_reader *r, pb_field *f)
{
	int k = pb_next(r, Q.buf, f);
	if (k < 0) bad(f->off, "malformed protobuf field");
	return k;
}

static pb_reader sub(const pb_field *f)
{
	return pb_init(f->data, f->len);
}

static void read_value_type(const pb_field *f, uint64_t *type, uint64_t *unit)
{
	pb_reader r = sub(f);
	pb_field g;
	*type = *unit = 0;
	while (next(&r, &g))
		if (g.wire == PB_VARINT && g.num == 1) *type = g.v;
		else if (g.wire == PB_VARINT && g.num == 2) *unit = g.v;
}

static void read_mapping(const pb_field *f)
{
	pb_reader r = sub(f);
	pb_field g;
	uint64_t id = 0;
	struct mapping m = { 0, 0, -1, NULL };
	while (next(&r, &g)) {
		if (g.wire != PB_VARINT) continue;
		if (g.num == 1) id = g.v;
		else if (g.num == 5) m.filename = g.v;
		else if (g.num == 6) m.build_id = g.v;
	}
	if (id == 0) bad(off_of(f->data), "a mapping with id 0");
	m.at = f->data;
	id_add(&Q.map_ids, id, f->data, "mapping");
	*VEC_PUSH(Q.maps, Q.nmaps, Q.mapcap) = m;
}

static void read_function(const pb_field *f)
{
	pb_reader r = sub(f);
	pb_field g;
	uint64_t id = 0;
	struct function fn = { 0, 0, 0, 0, NULL };
	while (next(&r, &g)) {
		if (g.wire != PB_VARINT) continue;
		if (g.num == 1) id = g.v;
		else if (g.num == 2) fn.name = g.v;
		else if (g.num == 3) fn.system_name = g.v;
		else if (g.num == 4) fn.filename = g.v;
		else if (g.num == 5) fn.start_line = g.v;
	}
	if (id == 0) bad(off_of(f->data), "a function with id 0");
	fn.at = f->data;
	id_add(&Q.fn_ids, id, f->data, "function");
	*VEC_PUSH(Q.fns, Q.nfns, Q.fncap) = fn;
}

static void read_location(const pb_field *f)
{
	pb_reader r = sub(f);
	pb_field g;
	uint64_t id = 0;
	struct location l = { 0, 0, Q.nlines, 0 };
	while (next(&r, &g)) {
		if (g.wire == PB_VARINT && g.num == 1) id = g.v;
		else if (g.wire == PB_VARINT && g.num == 2) l.mapping = g.v;
		else if (g.wire == PB_VARINT && g.num == 3) l.address = g.v;
		else if (g.wire == PB_LEN && g.num == 4) {
			pb_reader lr = sub(&g);
			pb_field h;
			struct line ln = { 0, 0 };
			while (next(&lr, &h))
				if (h.wire == PB_VARINT && h.num == 1) ln.function = h.v;
				else if (h.wire == PB_VARINT && h.num == 2) ln.line = h.v;
			*VEC_PUSH(Q.lines, Q.nlines, Q.linecap) = ln;
			l.nlines++;
		}
	}
	if (id == 0) bad(off_of(f->data), "a location with id 0");
	id_add(&Q.loc_ids, id, f->data, "location");
	*VEC_PUSH(Q.locs, Q.nlocs, Q.loccap) = l;
}

static void read_dictionaries(void)
{
	pb_reader r = pb_init(Q.buf, Q.len);
	pb_field f;
	while (next(&r, &f)) {
		if (f.wire == PB_LEN) {
			switch (f.num) {
			case P_STRING_TABLE:
				if (f.len > UINT32_MAX || off_of(f.data) > UINT32_MAX)
					bad(f.off, "a string beyond 4 GiB");
				grow_array((void **)&Q.str, &Q.strcap, Q.nstr + 1, sizeof *Q.str);
				Q.str[Q.nstr].off = (uint32_t)off_of(f.data);
				Q.str[Q.nstr++].len = (uint32_t)f.len;
				break;
			case P_SAMPLE_TYPE:
				if (Q.ntypes == MAX_TYPES) bad(f.off, "more than 64 sample types");
				read_value_type(&f, &Q.type[Q.ntypes], &Q.unit[Q.ntypes]);
				Q.ntypes++;
				break;
			case P_PERIOD_TYPE:
				read_value_type(&f, &Q.period_type, &Q.period_unit);
				Q.has_period_type = true;
				break;
			case P_MAPPING: read_mapping(&f); break;
			case P_FUNCTION: read_function(&f); break;
			case P_LOCATION: read_location(&f); break;
			case P_COMMENT: {
				pb_ints it;
				uint64_t v;
				int k;
				pb_ints_init(&it, &f);
				while ((k = pb_ints_next(&it, &v)) > 0) *VEC_PUSH(Q.comments, Q.ncomments, Q.comcap) = v;
				if (k < 0) bad(f.off, "malformed comment list");
				break;
			}
			default: break; /* samples (pass 2) and fields unknown here */
			}
		} else if (f.wire == PB_VARINT) {
			switch (f.num) {
			case P_COMMENT: *VEC_PUSH(Q.comments, Q.ncomments, Q.comcap) = f.v; break;
			case P_DROP_FRAMES: Q.drop_frames = f.v; break;
			case P_KEEP_FRAMES: Q.keep_frames = f.v; break;
			case P_TIME_NANOS: Q.time_nanos = (int64_t)f.v; Q.has_time = true; break;
			/* one rule for what cannot be: refused, as a string
			 * index beyond the table is (a time range that ends
			 * before it starts, a negative period) */
			case P_DURATION_NANOS:
				Q.duration_nanos = (int64_t)f.v;
				if (Q.duration_nanos < 0) bad(f.off, "a negative duration_nanos");
				break;
			case P_PERIOD:
				Q.period = (int64_t)f.v;
				Q.has_period = true;
				if (Q.period < 0) bad(f.off, "a negative period");
				break;
			case P_DEFAULT_SAMPLE_TYPE: Q.default_type = f.v; Q.default_type_off = f.off; break;
			default: break;
			}
		}
	}
	if (Q.nstr == 0 || Q.str[0].len != 0)
		bad(0, Q.nstr ? "the string table does not start with the empty string"
			      : "no string table");
	for (uint32_t i = 0; i < Q.ntypes; i++) {
		check_str(Q.type[i], Q.buf, "sample_type");
		check_str(Q.unit[i], Q.buf, "sample_type unit");
	}
	check_str(Q.default_type, Q.buf + Q.default_type_off, "default_sample_type");
	/* every string index, used or not: one rule (as pprof's own reader) */
	for (uint32_t i = 0; i < Q.nmaps; i++) {
		check_str(Q.maps[i].filename, Q.maps[i].at, "mapping filename");
		check_str(Q.maps[i].build_id, Q.maps[i].at, "mapping build_id");
	}
	for (uint32_t i = 0; i < Q.nfns; i++) {
		check_str(Q.fns[i].name, Q.fns[i].at, "function name");
		check_str(Q.fns[i].system_name, Q.fns[i].at, "function system_name");
		check_str(Q.fns[i].filename, Q.fns[i].at, "function filename");
	}
}

/* ---- the header: event, metrics, source ----------------------------------------- */

/* pprof's heap sample types and the names spaa(5) gives them */
static const char *const heap_names[][2] = {
	{ "alloc_objects", "alloc_count" }, { "alloc_space", "alloc_bytes" },
	{ "inuse_objects", "live_count" }, { "inuse_space", "live_bytes" },
};

static const char *metric_name(sstr type, bool *heap)
{
	for (size_t i = 0; i < sizeof heap_names / sizeof *heap_names; i++)
		if (sstr_eqc(type, heap_names[i][0])) {
			*heap = true;
			return heap_names[i][1];
		}
	return NULL;
}

static char *cstr(sstr s)
{
	char *c = xmalloc(s.n + 1);
	memcpy(c, s.p, s.n);
	c[s.n] = 0;
	return c;
}

/* spaa2pprof's comment "spaa event=NAME kind=KIND mode=MODE
 * metric.TYPE=METRIC...": the SPAA names of what it wrote, given back (spec
 * section 8: a round trip loses nothing).  The comment's index, -1 none. */
static int32_t spaa_note(void)
{
	for (uint32_t i = 0; i < Q.ncomments; i++) {
		check_str(Q.comments[i], Q.buf, "comment");
		sstr c = str_of(Q.comments[i]);
		if (c.n > 11 && memcmp(c.p, "spaa event=", 11) == 0) return (int32_t)i;
	}
	return -1;
}

/* The value of KEY= in the note (allocated), NULL when absent. */
static char *note_get(sstr note, const char *key)
{
	size_t k = strlen(key);
	for (size_t i = 0; i < note.n;) {
		size_t j = i;
		while (j < note.n && note.p[j] != ' ') j++;
		if (j - i > k && memcmp(note.p + i, key, k) == 0 && note.p[i + k] == '=') {
			sstr v = { note.p + i + k + 1, j - i - k - 1 };
			return v.n ? cstr(v) : NULL;
		}
		i = j + 1;
	}
	return NULL;
}

static void declare(const char *event_opt, const char *metric_opt)
{
	if (Q.ntypes == 0) bad(0, "no sample types");
	bool heap = false;
	char *names[MAX_TYPES];
	for (uint32_t i = 0; i < Q.ntypes; i++) {
		const char *m = metric_name(str_of(Q.type[i]), &heap);
		names[i] = m ? cstr(sstr_c(m)) : cstr(str_of(Q.type[i]));
		if (!*names[i]) bad(0, "a sample type with an empty name");
		for (uint32_t j = 0; j < i; j++)
			if (!strcmp(names[i], names[j]))
				die_at(Q.fname, 0, "sample type '%s' appears twice: not one event's metrics", names[i]);
	}
	int32_t note_i = spaa_note();
	sstr note = note_i >= 0 ? str_of(Q.comments[note_i]) : SSTR_NULL;
	if (note.p)
		for (uint32_t i = 0; i < Q.ntypes; i++) {
			sbuf *k = &Q.scratch;
			k->n = 0;
			sbuf_printf(k, "metric.%.*s", (int)str_of(Q.type[i]).n, str_of(Q.type[i]).p);
			sbuf_addc(k, 0);
			char *orig = note_get(note, k->p);
			/* a name the note gives twice is not taken (the file is input) */
			bool dup = false;
			for (uint32_t j = 0; orig && j < Q.ntypes; j++) dup |= j != i && !strcmp(orig, names[j]);
			if (orig && !dup) free(names[i]), names[i] = orig;
			else free(orig);
		}
	/* the primary metric: -m, else pprof's choice */
	uint32_t primary = Q.ntypes - 1;
	if (metric_opt) {
		uint32_t i;
		for (i = 0; i < Q.ntypes; i++)
			if (!strcmp(names[i], metric_opt) || sstr_eqc(str_of(Q.type[i]), metric_opt)) break;
		if (i == Q.ntypes) {
			sbuf all = { 0 };
			for (uint32_t j = 0; j < Q.ntypes; j++) sbuf_printf(&all, "%s%s", j ? ", " : "", names[j]);
			sbuf_addc(&all, 0);
			usage_error("--metric: the profile has no sample type '%s' (it has %s)", metric_opt, all.p);
		}
		primary = i;
	} else if (Q.default_type) {
		for (uint32_t i = 0; i < Q.ntypes; i++)
			if (Q.type[i] == Q.default_type) primary = i;
	}
	sstr pt = Q.has_period_type ? str_of(Q.period_type) : SSTR_NULL;
	const char *event, *kind, *mode;
	if (heap) {
		event = "heap", kind = "allocation", mode = Q.has_period && Q.period > 1 ? "period" : "event";
	} else if (pt.p && sstr_eqc(pt, "cpu")) {
		event = "cpu", kind = "timer", mode = "period";
	} else {
		/* goroutine, mutex, block, threadcreate, ...: counted events */
		event = pt.p && pt.n ? cstr(pt) : names[0];
		kind = "probe", mode = "event";
	}
	char *note_event = note.p ? note_get(note, "event") : NULL;
	char *note_kind = note.p ? note_get(note, "kind") : NULL;
	char *note_mode = note.p ? note_get(note, "mode") : NULL;
	/* the note is input like the rest: only a kind and a mode SPAA has */
	static const char *const kinds[] = { "hardware", "software", "allocation", "deallocation", "timer", "probe" };
	static const char *const modes[] = { "period", "frequency", "event" };
	bool kind_ok = false, mode_ok = false;
	for (size_t i = 0; note_kind && i < sizeof kinds / sizeof *kinds; i++) kind_ok |= !strcmp(note_kind, kinds[i]);
	for (size_t i = 0; note_mode && i < sizeof modes / sizeof *modes; i++) mode_ok |= !strcmp(note_mode, modes[i]);
	if (note_event) event = note_event;
	if (kind_ok) kind = note_kind;
	if (mode_ok) mode = note_mode;
	if (event_opt) event = event_opt;
	sbuf *x = &Q.scratch;
	x->n = 0;
	if (Q.has_period) sbuf_printf(x, "\"sample_period\":%" PRId64 ",", Q.period);
	if (Q.has_period_type) {
		check_str(Q.period_type, Q.buf, "period_type");
		check_str(Q.period_unit, Q.buf, "period_type unit");
		sbuf_adds(x, "\"x_period_type\":{\"type\":");
		jb_str(x, str_of(Q.period_type).p, str_of(Q.period_type).n);
		sbuf_adds(x, ",\"unit\":");
		jb_str(x, str_of(Q.period_unit).p, str_of(Q.period_unit).n);
		sbuf_adds(x, "},");
	}
	/* the metrics in the profile's order (a stack lists only those it has) */
	sbuf_adds(x, "\"x_metrics\":[");
	for (uint32_t i = 0; i < Q.ntypes; i++) {
		if (i) sbuf_addc(x, ',');
		jb_str(x, names[i], strlen(names[i]));
	}
	sbuf_adds(x, "]");
	sbuf_addc(x, 0);
	Q.event = builder_event(Q.b, event, kind, mode, names[primary], x->n > 1 ? x->p : NULL);
	Q.primary = primary;
	for (uint32_t i = 0; i < Q.ntypes; i++) {
		sstr u = str_of(Q.unit[i]);
		char *unit = u.n && !sstr_eqc(u, "count") ? cstr(u) : NULL;
		Q.metric[i] = builder_metric(Q.b, names[i], unit);
		Q.live[i] = !strcmp(names[i], "live_bytes") || !strcmp(names[i], "live_count");
		free(unit);
		free(names[i]);
	}
	if (Q.has_time) {
		int64_t end;
		if (ckd_add(&end, Q.time_nanos, Q.duration_nanos))
			bad(0, "time_nanos + duration_nanos beyond 64 bits");
		builder_time_range_ns(Q.b, Q.time_nanos, end);
	}
	if (Q.duration_nanos) {
		char d[32];
		snprintf(d, sizeof d, "%" PRId64, Q.duration_nanos);
		builder_source_json(Q.b, "x_duration_nanos", d);
	}
	if (Q.ncomments > (note_i >= 0)) { /* the others than spaa2pprof's note */
		x->n = 0;
		sbuf_addc(x, '[');
		for (uint32_t i = 0; i < Q.ncomments; i++) {
			check_str(Q.comments[i], Q.buf, "comment");
			if ((int32_t)i == note_i) continue;
			if (x->n > 1) sbuf_addc(x, ',');
			jb_str(x, str_of(Q.comments[i]).p, str_of(Q.comments[i]).n);
		}
		sbuf_adds(x, "]");
		sbuf_addc(x, 0);
		builder_source_json(Q.b, "x_comments", x->p);
	}
	if (Q.drop_frames) {
		check_str(Q.drop_frames, Q.buf, "drop_frames");
		builder_source_str(Q.b, "x_drop_frames", str_of(Q.drop_frames).p, str_of(Q.drop_frames).n);
	}
	if (Q.keep_frames) {
		check_str(Q.keep_frames, Q.buf, "keep_frames");
		builder_source_str(Q.b, "x_keep_frames", str_of(Q.keep_frames).p, str_of(Q.keep_frames).n);
	}
}

/* ---- resolving locations into frames ------------------------------------------------ */

static bool is_kernel_name(sstr s)
{
	return s.n >= 7 && memcmp(s.p, "[kernel", 7) == 0;
}

static uint32_t dso_of(uint64_t mapping_id, const uint8_t *at)
{
	if (mapping_id == 0) {
		if (Q.unknown_dso < 0) Q.unknown_dso = builder_dso(Q.b, "[unknown]", 9, false);
		return (uint32_t)Q.unknown_dso;
	}
	uint32_t mi = id_find(&Q.map_ids, mapping_id);
	if (mi == UINT32_MAX) {
		char m[80];
		snprintf(m, sizeof m, "a location refers to mapping %" PRIu64 ", which is not defined", mapping_id);
		bad(off_of(at), m);
	}
	struct mapping *m = &Q.maps[mi];
	if (m->dso >= 0) return (uint32_t)m->dso;
	check_str(m->filename, at, "mapping filename");
	check_str(m->build_id, at, "mapping build_id");
	sstr name = str_of(m->filename);
	if (!name.n) name = sstr_c("[unknown]");
	uint32_t d = builder_dso(Q.b, name.p, name.n, is_kernel_name(name));
	m->dso = d;
	sstr bid = str_of(m->build_id);
	if (bid.n) {
		sbuf *x = &Q.scratch;
		x->n = 0;
		sbuf_adds(x, "\"build_id\":");
		jb_str(x, bid.p, bid.n);
		sbuf_addc(x, 0);
		builder_dso_extra(Q.b, d, x->p);
	}
	return d;
}

/* The frames of location li, leaf first: its lines (line[0] the innermost
 * inlined function, the last the function it sits in), or its address. */
static void resolve_location(uint32_t li, const uint8_t *at)
{
	const struct location *l = &Q.locs[li];
	uint32_t dso = dso_of(l->mapping, at);
	char ip[24];
	size_t ipn = fmt_hex(ip, l->address, 1);
	Q.locf[li].frames = Q.nfpool;
	Q.locf[li].nframes = l->nlines ? l->nlines : 1;
	grow_array((void **)&Q.fpool, &Q.fpcap, Q.nfpool + Q.locf[li].nframes, sizeof *Q.fpool);
	bool kernel = false;
	if (l->mapping) {
		uint32_t mi = id_find(&Q.map_ids, l->mapping);
		kernel = is_kernel_name(str_of(Q.maps[mi].filename));
	}
	if (l->nlines == 0) {
		builder_frame f;
		memset(&f, 0, sizeof f);
		f.func = (sstr){ ip, ipn };
		f.func_resolved = false;
		f.dso = dso;
		f.kind = kernel ? FK_KERNEL : l->mapping ? FK_USER : FK_UNKNOWN;
		f.inline_depth = -1;
		f.ip = (sstr){ ip, ipn };
		Q.fpool[Q.nfpool++] = builder_frame_add(Q.b, &f);
		return;
	}
	for (uint32_t k = 0; k < l->nlines; k++) {
		const struct line *ln = &Q.lines[l->lines + k];
		uint32_t fi = id_find(&Q.fn_ids, ln->function);
		if (fi == UINT32_MAX) {
			char m[80];
			snprintf(m, sizeof m, "a location line refers to function %" PRIu64 ", which is not defined",
				 ln->function);
			bad(off_of(at), m);
		}
		const struct function *fn = &Q.fns[fi];
		check_str(fn->name, at, "function name");
		check_str(fn->system_name, at, "function system_name");
		check_str(fn->filename, at, "function filename");
		builder_frame f;
		memset(&f, 0, sizeof f);
		f.func = str_of(fn->name);
		if (!f.func.n) f.func = str_of(fn->system_name);
		f.func_resolved = f.func.n > 0;
		if (!f.func.n) f.func = (sstr){ ip, ipn };
		f.dso = dso;
		f.kind = kernel ? FK_KERNEL : l->mapping ? FK_USER : FK_UNKNOWN;
		f.inlined = k + 1 < l->nlines;
		f.inline_depth = l->nlines > 1 ? (int32_t)(l->nlines - 1 - k) : -1;
		f.exact = l->nlines > 1 || Q.addresses; /* inlined frames belong to their address */
		if (l->address) f.ip = (sstr){ ip, ipn };
		char src[64];
		sbuf *x = &Q.scratch;
		x->n = 0;
		sstr file = str_of(fn->filename);
		if (file.n) {
			sbuf_add(x, file.p, file.n);
			if (ln->line) {
				int sn = snprintf(src, sizeof src, ":%" PRIu64, ln->line);
				sbuf_add(x, src, (size_t)sn);
			}
			f.srcline = (sstr){ x->p, x->n };
		}
		sbuf *e = &Q.fextra; /* (not Q.labels: a sample's labels may come before its locations) */
		e->n = 0;
		sstr sys = str_of(fn->system_name);
		if (sys.n && !sstr_eq(sys, str_of(fn->name))) {
			sbuf_adds(e, "\"x_system_name\":");
			jb_str(e, sys.p, sys.n);
			sbuf_addc(e, ',');
		}
		if (fn->start_line) {
			char d[21];
			sbuf_adds(e, "\"x_start_line\":");
			sbuf_add(e, d, fmt_u64(d, fn->start_line));
			sbuf_addc(e, ',');
		}
		if (e->n) {
			e->p[e->n - 1] = 0;
			f.extra_json = e->p;
		}
		Q.fpool[Q.nfpool++] = builder_frame_add(Q.b, &f);
	}
}

/* ---- pass 2: the samples ---------------------------------------------------------- */

/* A label as JSON: its key ("key") and then its value ("str", num or
 * {"num":N,"unit":"u"}) appended to t, the key's string index in *keyp
 * and the length of the key's JSON in *klen. */
static void label_json(const pb_field *f, sbuf *t, uint64_t *keyp, size_t *klen)
{
	pb_reader r = sub(f);
	pb_field g;
	uint64_t key = 0, str = 0, unit = 0;
	int64_t numv = 0;
	bool has_num = false;
	while (next(&r, &g)) {
		if (g.wire != PB_VARINT) continue;
		if (g.num == 1) key = g.v;
		else if (g.num == 2) str = g.v;
		else if (g.num == 3) numv = (int64_t)g.v, has_num = true;
		else if (g.num == 4) unit = g.v;
	}
	check_str(key, f->data, "label key");
	check_str(str, f->data, "label str");
	check_str(unit, f->data, "label num_unit");
	size_t k0 = t->n;
	jb_str(t, str_of(key).p, str_of(key).n);
	*keyp = key;
	*klen = t->n - k0;
	if (str || !has_num) {
		jb_str(t, str_of(str).p, str_of(str).n);
		return;
	}
	if (unit) sbuf_adds(t, "{\"num\":");
	char d[21];
	sbuf_add(t, d, fmt_i64(d, numv));
	if (unit) {
		sbuf_adds(t, ",\"unit\":");
		jb_str(t, str_of(unit).p, str_of(unit).n);
		sbuf_addc(t, '}');
	}
}

/* A sample's label, kept for its "x_labels".  A profile has few distinct
 * labels (a thread, a goroutine's labels) on many samples: each is made
 * into JSON once, found again by its bytes. */
static void read_label(const pb_field *f)
{
	bool added;
	uint32_t i = strmap_intern(&Q.label_ids, f->data, f->len, &added);
	if (added) {
		struct span *sp = VEC_PUSH(Q.label_span, Q.nlabel_span, Q.label_spancap);
		sp->koff = Q.label_text.n;
		label_json(f, &Q.label_text, &sp->key, &sp->klen);
		sp->voff = sp->koff + sp->klen;
		sp->vlen = Q.label_text.n - sp->voff;
	}
	*VEC_PUSH(Q.slabels, Q.nslabels, Q.slabelcap) = i;
}

/* Labels by key (its bytes), then by value (its JSON): one order, whatever
 * the order of the sample's labels. */
static int cmp_bytes(const char *a, size_t an, const char *b, size_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);
	return c ? c : (an > bn) - (an < bn);
}

static int cmp_label(const void *x, const void *y)
{
	const struct span *a = &Q.label_span[*(const uint32_t *)x], *b = &Q.label_span[*(const uint32_t *)y];
	sstr ka = str_of(a->key), kb = str_of(b->key);
	int c = cmp_bytes(ka.p, ka.n, kb.p, kb.n);
	if (c) return c;
	return cmp_bytes(Q.label_text.p + a->voff, a->vlen, Q.label_text.p + b->voff, b->vlen);
}

/* "x_labels":{"key":value,...} of the sample's labels, keys sorted; a key
 * given several values (pprof's labels are a multimap) has them as an
 * array, sorted: never a key twice. */
static void labels_json(sbuf *e)
{
	xqsort(Q.slabels, Q.nslabels, sizeof *Q.slabels, cmp_label);
	sbuf_adds(e, "\"x_labels\":{");
	for (uint32_t i = 0, j; i < Q.nslabels; i = j) {
		const struct span *a = &Q.label_span[Q.slabels[i]];
		/* (keys by their bytes: a string table may hold one twice) */
		for (j = i + 1; j < Q.nslabels && sstr_eq(str_of(Q.label_span[Q.slabels[j]].key), str_of(a->key)); j++) {}
		if (i) sbuf_addc(e, ',');
		sbuf_add(e, Q.label_text.p + a->koff, a->klen);
		sbuf_addc(e, ':');
		if (j - i > 1) sbuf_addc(e, '[');
		for (uint32_t k = i; k < j; k++) {
			const struct span *v = &Q.label_span[Q.slabels[k]];
			if (k > i) sbuf_addc(e, ',');
			sbuf_add(e, Q.label_text.p + v->voff, v->vlen);
		}
		if (j - i > 1) sbuf_addc(e, ']');
	}
	sbuf_addc(e, '}');
}

/* The frames of location id (resolved at its first use) added to the
 * sample's, Q.frames. */
static void add_location(uint64_t id, const uint8_t *at)
{
	uint32_t li = id_find(&Q.loc_ids, id);
	if (li == UINT32_MAX) {
		char m[80];
		snprintf(m, sizeof m, "a sample refers to location %" PRIu64 ", which is not defined", id);
		bad(off_of(at), m);
	}
	if (Q.locf[li].nframes == 0) resolve_location(li, at);
	if (Q.addresses) Q.ahash = fnv1a64(Q.ahash, &Q.locs[li].address, sizeof Q.locs[li].address);
	const struct locframes *l = &Q.locf[li];
	if (l->nframes > Q.frcap - Q.nframes) {
		if (l->nframes > UINT32_MAX - Q.nframes) bad(off_of(at), "a sample of more than 2^32-1 frames");
		grow_array((void **)&Q.frames, &Q.frcap, Q.nframes + l->nframes, sizeof *Q.frames);
	}
	const uint32_t *from = Q.fpool + l->frames;
	for (uint32_t k = 0; k < l->nframes; k++) Q.frames[Q.nframes + k] = from[k];
	Q.nframes += l->nframes;
}

static void read_sample(const pb_field *f)
{
	pb_reader r = sub(f);
	pb_field g;
	num vals[MAX_TYPES];
	uint32_t nvals = 0;
	Q.nframes = 0;
	Q.labels.n = 0;
	Q.nslabels = 0;
	Q.ahash = FNV64_BASIS;
	while (next(&r, &g)) {
		if (g.num == 1 || g.num == 2) {
			pb_ints it;
			uint64_t v;
			int k;
			if (!pb_ints_init(&it, &g)) bad(g.off, "a sample field of the wrong wire type");
			while ((k = pb_ints_next(&it, &v)) > 0) {
				if (g.num == 2) {
					if (nvals == Q.ntypes) bad(off_of(f->data), "a sample with more values than sample types");
					vals[nvals++] = num_i((int64_t)v);
					continue;
				}
				add_location(v, f->data);
			}
			if (k < 0) bad(g.off, "malformed packed integers");
		} else if (g.num == 3 && g.wire == PB_LEN) {
			read_label(&g);
		}
	}
	if (nvals != Q.ntypes) {
		char m[96];
		snprintf(m, sizeof m, "a sample with %u values for %u sample types", nvals, Q.ntypes);
		bad(off_of(f->data), m);
	}
	if (Q.nframes == 0) {
		/* pprof shows such a sample under no function; SPAA needs a frame */
		builder_frame fr;
		memset(&fr, 0, sizeof fr);
		fr.func = sstr_c("[unknown]");
		fr.dso = dso_of(0, f->data);
		fr.kind = FK_UNKNOWN;
		fr.inline_depth = -1;
		fr.func_resolved = true;
		Q.frames[0] = builder_frame_add(Q.b, &fr);
		Q.nframes = 1;
	}
	builder_ctx c;
	memset(&c, 0, sizeof c);
	c.event = Q.event;
	sbuf *e = &Q.labels;
	if (Q.nslabels) {
		labels_json(e);
		c.extra_json = (sstr){ e->p, e->n };
	}
	if (Q.addresses) {
		/* the locations' addresses (not part of a stack's content id)
		 * in its context: samples at other addresses are stacks of
		 * their own, which spaa-annotate --disasm weighs address by
		 * address */
		if (e->n && Q.nslabels) sbuf_addc(e, ',');
		else e->n = 0;
		sbuf_printf(e, "\"x_addr_id\":\"0x%016llx\"", (unsigned long long)Q.ahash);
		c.extra_json = (sstr){ e->p, e->n };
	}
	/* a zero live figure is written (an allocation site whose objects are
	 * all freed has live_bytes 0 and live_count 0, not "no live_count"), as
	 * is the primary metric's; other zero values (counts of what happened,
	 * which spaa(5) calls suspicious at 0) are left out */
	uint32_t midx[MAX_TYPES], nv = 0;
	for (uint32_t i = 0; i < nvals; i++)
		if (!num_is_zero(vals[i]) || i == Q.primary || Q.live[i]) {
			midx[nv] = Q.metric[i];
			vals[nv++] = vals[i];
		}
	builder_stack(Q.b, &c, Q.frames, Q.nframes, midx, vals, nv);
	Q.nsamples++;
}

static void read_samples(void)
{
	pb_reader r = pb_init(Q.buf, Q.len);
	pb_field f;
	grow_array((void **)&Q.frames, &Q.frcap, 1, sizeof *Q.frames);
	Q.locf = xcalloc(Q.nlocs ? Q.nlocs : 1, sizeof *Q.locf);
	strmap_init(&Q.label_ids);
	while (next(&r, &f))
		if (f.num == P_SAMPLE && f.wire == PB_LEN) read_sample(&f);
}


/* ---- legacy text heap profiles (gperftools' tcmalloc, jemalloc) ---------------------- */

/* tcmalloc (HEAPPROFILE, MallocExtension::GetHeapSample):
 *   heap profile:   300:  1228800 [   300:  1228800] @ heapprofile
 *      300:  1228800 [   300:  1228800] @ 0x562b0ea0615b 0x562b0ea06194 ...
 * jemalloc (prof:true):
 *   heap_v2/524288
 *     t*: 28106: 56637512 [0: 0]
 *   @ 0x7f... 0x7f...
 *     t*: 13: 6688 [0: 0]
 * then both: MAPPED_LIBRARIES: (or "--- Memory map: ---") and /proc/PID/maps
 * lines.  A sample is "live objects: live bytes [allocated objects:
 * allocated bytes]" and its stack, leaf first, as return addresses. */

struct lmap { uint64_t start, limit; sstr path; int64_t dso; /* -1 until used */ };

static bool is_legacy_heap(void)
{
	return (Q.len >= 13 && memcmp(Q.buf, "heap profile:", 13) == 0) ||
	       (Q.len >= 8 && memcmp(Q.buf, "heap_v2/", 8) == 0);
}

/* the next line of the text at *pos: [*p, *p + *n), false at the end */
static bool text_line(size_t *pos, const char **p, size_t *n, uint64_t *lineno)
{
	if (*pos >= Q.len) return false;
	const char *s = (const char *)Q.buf + *pos;
	const char *e = memchr(s, '\n', Q.len - *pos);
	size_t len = e ? (size_t)(e - s) : Q.len - *pos;
	*pos += len + (e != NULL);
	while (len && (s[len - 1] == '\r' || s[len - 1] == ' ' || s[len - 1] == '\t')) len--;
	*p = s;
	*n = len;
	(*lineno)++;
	return true;
}

static bool scan_u64(const char **p, const char *end, uint64_t *v, int base)
{
	const char *s = *p;
	while (s < end && (*s == ' ' || *s == '\t')) s++;
	uint64_t x = 0;
	const char *d = s;
	for (; s < end; s++) {
		int c = *s >= '0' && *s <= '9' ? *s - '0' : base == 16 && *s >= 'a' && *s <= 'f' ? *s - 'a' + 10 :
			base == 16 && *s >= 'A' && *s <= 'F' ? *s - 'A' + 10 : -1;
		if (c < 0) break;
		if (x > (UINT64_MAX - (uint64_t)c) / (uint64_t)base) return false;
		x = x * (uint64_t)base + (uint64_t)c;
	}
	if (s == d) return false;
	*p = s;
	*v = x;
	return true;
}

static bool expect(const char **p, const char *end, char c)
{
	while (*p < end && (**p == ' ' || **p == '\t')) (*p)++;
	if (*p < end && **p == c) {
		(*p)++;
		return true;
	}
	return false;
}

/* "A: B [C: D]": live objects, live bytes, allocated objects and bytes */
static bool parse_counts(const char **p, const char *end, uint64_t v[4])
{
	return scan_u64(p, end, &v[0], 10) && expect(p, end, ':') && scan_u64(p, end, &v[1], 10) &&
	       expect(p, end, '[') && scan_u64(p, end, &v[2], 10) && expect(p, end, ':') &&
	       scan_u64(p, end, &v[3], 10) && expect(p, end, ']');
}

static struct lmap *lmaps;
static uint32_t nlmaps, lmcap;

/* the executable mappings of the maps section: address ranges -> dsos */
static void read_maps(size_t pos, uint64_t lineno)
{
	const char *p;
	size_t n;
	while (text_line(&pos, &p, &n, &lineno)) {
		const char *e = p + n, *q = p;
		uint64_t start, limit;
		if (!scan_u64(&q, e, &start, 16) || !expect(&q, e, '-') || !scan_u64(&q, e, &limit, 16))
			continue;
		while (q < e && *q == ' ') q++;
		if (e - q < 4 || q[2] != 'x') continue; /* not executable */
		/* perms offset dev inode path */
		int field = 0;
		while (q < e && field < 4) {
			while (q < e && *q != ' ') q++;
			while (q < e && *q == ' ') q++;
			field++;
		}
		sstr path = { q, (size_t)(e - q) };
		if (!path.n) continue;
		struct lmap *m = VEC_PUSH(lmaps, nlmaps, lmcap);
		m->start = start;
		m->limit = limit;
		m->path = path;
		m->dso = -1; /* a dso when a frame is in it */
	}
}

static uint32_t legacy_frame(uint64_t addr)
{
	uint32_t dso = UINT32_MAX;
	for (uint32_t i = 0; i < nlmaps && dso == UINT32_MAX; i++) {
		struct lmap *m = &lmaps[i];
		if (addr < m->start || addr >= m->limit) continue;
		if (m->dso < 0) m->dso = builder_dso(Q.b, m->path.p, m->path.n, is_kernel_name(m->path));
		dso = (uint32_t)m->dso;
	}
	if (dso == UINT32_MAX) dso = dso_of(0, Q.buf);
	char ip[24];
	builder_frame f;
	memset(&f, 0, sizeof f);
	f.func = (sstr){ ip, fmt_hex(ip, addr, 1) };
	f.ip = f.func;
	f.func_resolved = false;
	f.dso = dso;
	f.kind = dso == (uint32_t)Q.unknown_dso ? FK_UNKNOWN : FK_USER;
	f.inline_depth = -1;
	return builder_frame_add(Q.b, &f);
}

/* the samples' counts added up, the live ones against tcmalloc's header
 * (jemalloc's first t*: line may count more than its samples) */
static uint64_t legacy_sum[4];

static void legacy_sample(const uint64_t v[4], const char *p, const char *e, uint64_t lineno)
{
	for (int i = 0; i < 4; i++)
		if (__builtin_add_overflow(legacy_sum[i], v[i], &legacy_sum[i]))
			die_at(Q.fname, lineno, "the samples' counts add up beyond 64 bits");
	Q.nframes = 0;
	uint64_t addr;
	while (expect(&p, e, '0') && expect(&p, e, 'x') && scan_u64(&p, e, &addr, 16)) {
		grow_array((void **)&Q.frames, &Q.frcap, Q.nframes + 1, sizeof *Q.frames);
		Q.frames[Q.nframes++] = legacy_frame(addr);
	}
	while (p < e && (*p == ' ' || *p == '\t')) p++;
	if (p != e) die_at(Q.fname, lineno, "not an address: '%.*s'", (int)(e - p), p);
	if (Q.nframes == 0) die_at(Q.fname, lineno, "a sample with no address");
	builder_ctx c;
	memset(&c, 0, sizeof c);
	c.event = Q.event;
	num vals[4];
	uint32_t midx[4], nv = 0;
	for (int i = 0; i < 4; i++) {
		if (v[i] > INT64_MAX) die_at(Q.fname, lineno, "a count beyond 2^63-1");
		/* live_count and live_bytes (the primary metric) always, the
		 * others when not 0 */
		if (v[i] || i < 2) {
			midx[nv] = Q.metric[i];
			vals[nv++] = num_i((int64_t)v[i]);
		}
	}
	builder_where(Q.b, Q.fname, lineno);
	builder_stack(Q.b, &c, Q.frames, Q.nframes, midx, vals, nv);
	Q.nsamples++;
}

static void read_legacy_heap(const char *event_opt)
{
	size_t pos = 0;
	uint64_t lineno = 0, period = 0;
	const char *p, *e;
	size_t n;
	text_line(&pos, &p, &n, &lineno);
	e = p + n;
	bool jemalloc = n >= 8 && memcmp(p, "heap_v2/", 8) == 0;
	const char *at = jemalloc ? p : memchr(p, '@', n);
	if (!at) die_at(Q.fname, 1, "a heap profile header without '@ heapprofile' or '@ heap_v2/RATE'");
	const char *kind = jemalloc ? at : at + 1;
	while (kind < e && *kind == ' ') kind++;
	if ((size_t)(e - kind) > 8 && memcmp(kind, "heap_v2/", 8) == 0) {
		const char *r = kind + 8;
		if (!scan_u64(&r, e, &period, 10) || r != e) die_at(Q.fname, 1, "heap_v2/RATE: not a rate");
	} else if (!((size_t)(e - kind) == 11 && memcmp(kind, "heapprofile", 11) == 0)) {
		die_at(Q.fname, 1, "a heap profile of kind '%.*s' (heapprofile and heap_v2/RATE are read)",
		       (int)(e - kind), kind);
	}
	/* the whole profile's counts: tcmalloc's header */
	uint64_t total[4];
	if (!jemalloc) {
		const char *q = p + 13;
		if (!parse_counts(&q, e, total) || !expect(&q, e, '@'))
			die_at(Q.fname, 1, "a heap profile header without its counts ('heap profile: A: B [C: D] @ heapprofile')");
	}
	/* tcmalloc and jemalloc end every line with a newline: a last line
	 * without one is a file cut short */
	if (Q.len && Q.buf[Q.len - 1] != '\n') {
		uint64_t lines = 1;
		for (size_t i = 0; i < Q.len; i++) lines += Q.buf[i] == '\n';
		die_cut_line(Q.fname, lines);
	}
	/* the header */
	sbuf *x = &Q.scratch;
	x->n = 0;
	if (period) sbuf_printf(x, "\"sample_period\":%" PRIu64 ",\"x_sampled_counts\":true,", period);
	sbuf_adds(x, "\"x_metrics\":[\"live_count\",\"live_bytes\",\"alloc_count\",\"alloc_bytes\"]");
	sbuf_addc(x, 0);
	Q.event = builder_event(Q.b, event_opt ? event_opt : "heap", "allocation", period ? "period" : "event",
				"live_bytes", x->p);
	static const char *const names[4] = { "live_count", "live_bytes", "alloc_count", "alloc_bytes" };
	for (int i = 0; i < 4; i++) Q.metric[i] = builder_metric(Q.b, names[i], i & 1 ? "bytes" : NULL);
	builder_source_json(Q.b, "x_format", jemalloc ? "\"jemalloc heap_v2\"" : "\"gperftools heap profile\"");
	/* the maps first: every frame needs its dso */
	size_t mpos = pos;
	uint64_t mline = lineno;
	bool have_maps = false;
	while (text_line(&mpos, &p, &n, &mline))
		if ((n == 17 && memcmp(p, "MAPPED_LIBRARIES:", 17) == 0) ||
		    (n >= 18 && memcmp(p, "--- Memory map: ---", 18) == 0)) {
			read_maps(mpos, mline);
			have_maps = true;
			break;
		}
	/* the samples */
	const char *stack = NULL, *stack_end = NULL;
	uint64_t stack_line = 0;
	while (text_line(&pos, &p, &n, &lineno)) {
		e = p + n;
		if ((n == 17 && memcmp(p, "MAPPED_LIBRARIES:", 17) == 0) ||
		    (n >= 18 && memcmp(p, "--- Memory map: ---", 18) == 0))
			break;
		const char *q = p;
		while (q < e && (*q == ' ' || *q == '\t')) q++;
		if (q == e) continue;
		uint64_t v[4];
		if (jemalloc) {
			if (*q == '@') {
				stack = q + 1, stack_end = e, stack_line = lineno;
			} else if (e - q > 3 && memcmp(q, "t*:", 3) == 0) {
				q += 3;
				if (!parse_counts(&q, e, v) || q != e) die_at(Q.fname, lineno, "not 'A: B [C: D]' counts");
				if (stack) {
					legacy_sample(v, stack, stack_end, stack_line);
				} else if (!Q.nsamples) {
					/* the whole profile's */
				} else {
					die_at(Q.fname, lineno, "'t*: A: B [C: D]' counts without a stack ('@ ADDRESS...') before them");
				}
				stack = NULL;
			} else if (*q != 't') {
				die_at(Q.fname, lineno, "neither '@ ADDRESS...' nor 't*: A: B [C: D]'");
			}
			continue;
		}
		if (!parse_counts(&q, e, v) || !expect(&q, e, '@'))
			die_at(Q.fname, lineno, "not 'A: B [C: D] @ ADDRESS...'");
		legacy_sample(v, q, e, lineno);
	}
	if (jemalloc && stack) die_at(Q.fname, stack_line, "a stack without its counts ('t*: A: B [C: D]')");
	static const char *const what[2] = { "live objects", "live bytes" };
	for (int i = 0; !jemalloc && Q.nsamples && i < 2; i++)
		if (legacy_sum[i] != total[i])
			die_at(Q.fname, 1, "the samples count %" PRIu64 " %s, the header %" PRIu64 ": a file cut short?",
			       legacy_sum[i], what[i], total[i]);
	if (Q.nsamples && !have_maps)
		die_at(Q.fname, lineno, "no MAPPED_LIBRARIES: section, which %s writes after the samples: the file is cut short",
		       jemalloc ? "jemalloc" : "tcmalloc");
	builder_where(Q.b, NULL, 0);
}

/* ---- input --------------------------------------------------------------------------- */

static sbuf whole;

/* The top-level fields of the message so far, from *scan: false at one that
 * cannot be (field number 0, a group or unknown wire type), which the
 * parser then reports, so that reading stops there: 336 KB of zstd that
 * decompresses to 10 GB of zeros is refused at its first byte, not after
 * --max-size bytes.  A field longer than the limit is refused at once. */
static bool fields_plausible(size_t *scan)
{
	while (*scan < whole.n) {
		pb_reader r = pb_init(whole.p + *scan, whole.n - *scan);
		uint64_t key, len = 0;
		if (!pb_varint(&r, &key)) return whole.n - *scan < 10; /* cut short: more to come */
		unsigned wire = key & 7;
		if (key >> 3 == 0 || (wire != PB_VARINT && wire != PB_I64 && wire != PB_LEN && wire != PB_I32))
			return false;
		if (wire == PB_VARINT) {
			if (!pb_varint(&r, &len)) return (size_t)(r.end - r.p) < 10;
			len = 0;
		} else if (wire == PB_LEN) {
			if (!pb_varint(&r, &len)) return (size_t)(r.end - r.p) < 10;
			if (len > input_max_size()) input_too_big(Q.fname, "a field of the profile is");
		} else {
			len = wire == PB_I64 ? 8 : 4;
		}
		size_t head = (size_t)(r.p - (const uint8_t *)whole.p - *scan);
		if (len > whole.n - *scan - head) {
			/* the field's value is still to come: skip over it as it does */
			return true;
		}
		*scan += head + (size_t)len;
	}
	return true;
}

static void read_input(const char *path)
{
	input *in = input_open(path);
	Q.fname = path; /* input_name(in) lives as long as in */
	sniff_refuse_other(in, "pprof2spaa", "a pprof profile");
	/* at most --max-size bytes; the protobuf's fields checked as they come */
	size_t scan = 0;
	bool text = false;
	for (;;) {
		if (whole.n >= input_max_size()) {
			char c;
			if (input_read(in, &c, 1) == 0) break;
			input_too_big(Q.fname, "the input is");
		}
		size_t want = whole.n < 65536 ? 65536 : whole.n;
		if (want > input_max_size() - whole.n) want = (size_t)(input_max_size() - whole.n);
		sbuf_reserve(&whole, want);
		size_t got = input_read(in, whole.p + whole.n, want);
		if (got == 0) break;
		whole.n += got;
		if (scan == 0 && whole.n == got) /* the legacy text forms (below) are not fields */
			text = (whole.n >= 4 && (!memcmp(whole.p, "heap", 4) || !memcmp(whole.p, "--- ", 4) ||
						 !memcmp(whole.p, "%%% ", 4)));
		if (!text && !fields_plausible(&scan)) break;
	}
	input_close(in);
	Q.buf = (const uint8_t *)whole.p;
	Q.len = whole.n;
	if (Q.len == 0) die_empty_input(Q.fname);
	/* the text forms pprof also reads: heap profiles are read (legacy.c
	 * below), the others are not profile.proto */
	static const char *const legacy[] = { "--- heapz", "--- contention", "--- threadz", "%%% ", NULL };
	for (int i = 0; legacy[i]; i++) {
		size_t n = strlen(legacy[i]);
		if (Q.len >= n && memcmp(Q.buf, legacy[i], n) == 0)
			die_at(Q.fname, 1, "a legacy text profile ('%s'), not profile.proto: not read", legacy[i]);
	}
}

/* its options, for getopt_long and the registry (readers/registry.h) */
const struct option pprof_longopts[] = {
	{ "event", required_argument, 0, 'e' },
	{ "metric", required_argument, 0, 'm' },
	{ "max-size", required_argument, 0, 'S' + 256 },
	{ "addresses", no_argument, 0, 'A' + 256 },
	CLI_OUT_LONGOPTS,
	CLI_STD_LONGOPTS,
	{ 0, 0, 0, 0 }
};
const char pprof_shortopts[] = "m:o:zhV";

/* the converter pprof2spaa: argv as it gets it (argv[0] its name); the
 * exit status (readers/readers.h) */
int pprof_read(int argc, char **argv)
{
	const char *event = NULL, *metric = NULL, *outpath = NULL;
	bool zstd = false;
	int c;
	while ((c = getopt_long(argc, argv, pprof_shortopts, pprof_longopts, NULL)) != -1) {
		switch (c) {
		case 'e': event = optarg; break;
		case 'm': metric = optarg; break;
		case 'S' + 256: input_max_size_option(optarg); break;
		case 'A' + 256: Q.addresses = true; break;
		CLI_OUT_CASES(outpath, zstd);
		CLI_STD_CASES(help);
		}
	}
	const char *path = optind < argc ? argv[optind] : "-";
	several_inputs(argv + optind, argc - optind, &path, &outpath, &zstd);
	if (event && !*event) usage_error("--event: empty name");
	read_input(path);

	Q.b = builder_new();
	builder_source_tool(Q.b, "pprof");
	bool legacy = is_legacy_heap();
	if (legacy) {
		if (metric) usage_error("--metric: a legacy heap profile's primary metric is live_bytes");
		read_legacy_heap(event);
	} else {
		read_dictionaries();
		declare(event, metric);
		read_samples();
	}
	if (Q.nsamples == 0 && legacy) die_no_stacks(Q.fname, "a heap profile with no sample");
	if (Q.nsamples == 0) die_no_stacks(Q.fname, "a profile of %u sample types with no sample", Q.ntypes);

	reader_finish(Q.b, outpath, zstd);
	return EXIT_OK;
}
