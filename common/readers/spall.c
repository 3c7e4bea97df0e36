/* spall2spaa - convert spall traces (Chrome JSON trace events, or the binary
 * .spall format versions 0, 1 and 3) to SPAA: one stack per call path,
 * weighted by the self time of its spans (wall_ns) and their count (calls).
 * The span model is common/formats/spans.h. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "readers.h"
#include "build.h"
#include "reader.h"
#include "cli.h"
#include "several.h"
#include "sniff.h"
#include "jsonbuf.h"
#include "input.h"
#include "jscan.h"
#include "json.h"
#include "output.h"
#include "spans.h"
#include "strmap.h"

static const char help_text[] =
	"Usage: spall2spaa [OPTION]... [FILE]...\n"
	"Convert a spall trace to SPAA: a Chrome JSON trace (an array of trace events\n"
	"or {\"traceEvents\":[...]}) or a binary .spall file (versions 0, 1 and 3).\n"
	"Each span's self time goes to the stack of its call path (metric wall_ns,\n"
	"nanoseconds) with calls = 1.  With no FILE, or when FILE is -, read standard\n"
	"input; gzip and zstd input is decompressed.\n"
	"\n"
	"  -s, --samples        also write one sample record per span (start time,\n"
	"                       x_dur_ns, and the event's category and args)\n"
	"      --strict         treat damaged input (unmatched or unclosed spans,\n"
	"                       overlapping spans, missing commas, truncated events)\n"
	"                       as an error instead of a warning\n"
	"      --max-depth=N    the deepest nesting of spans (default 4096): deeper\n"
	"                       is an error, since output grows with depth squared\n"
	"      --verbose        also note what is ignored by design (events of other\n"
	"                       phases than B, E and X; categories that vary)\n"
	CLI_HELP_TAIL;

/* ---- diagnostics ------------------------------------------------------------
 * Positions: binary input reports byte offsets ("FILE: byte N: ..."); JSON
 * reports the line and the byte offset ("FILE:LINE: ... (byte N)").  For JSON
 * a position is packed as line << 40 | byte. */
#define MAX_WARNINGS 50
#define POS_SHIFT 40
#define POS_MASK ((UINT64_C(1) << POS_SHIFT) - 1)

static const char *fname;
static bool strict, is_json;
static bool verbose; /* --verbose: the notes about input ignored by design */
static uint64_t nproblems;
/* Set while a binary file is read a second time (see convert_binary): its
 * problems were reported by the first reading. */
static bool quiet;

static uint64_t json_pos(uint64_t line, uint64_t byte)
{
	if (line >= (UINT64_C(1) << (64 - POS_SHIFT))) line = (UINT64_C(1) << (64 - POS_SHIFT)) - 1;
	return line << POS_SHIFT | (byte & POS_MASK);
}

static void problem(uint64_t pos, const char *msg)
{
	if (quiet) return;
	nproblems++;
	if (strict) {
		if (is_json) die_at(fname, pos >> POS_SHIFT, "%s (byte %llu)", msg, (unsigned long long)(pos & POS_MASK));
		die_at(fname, 0, "byte %llu: %s", (unsigned long long)pos, msg);
	}
	if (nproblems > MAX_WARNINGS) return;
	if (is_json) warn_at(fname, pos >> POS_SHIFT, "%s (byte %llu)", msg, (unsigned long long)(pos & POS_MASK));
	else warn_at(fname, 0, "byte %llu: %s", (unsigned long long)pos, msg);
	if (nproblems == MAX_WARNINGS) warn_at(fname, 0, "further warnings not shown");
}

static void spans_problem(void *arg, uint64_t pos, const char *msg)
{
	(void)arg;
	problem(pos, msg);
}

static noreturn void fatal(uint64_t pos, const char *msg)
{
	strict = true;
	quiet = false;
	problem(pos, msg);
	cli_exit(EXIT_DATA);
}

static void spans_fatal(void *arg, uint64_t pos, const char *msg)
{
	(void)arg;
	fatal(pos, msg);
}

static uint32_t opt_max_depth; /* --max-depth (0: the default) */

/* ---- the SPAA side ------------------------------------------------------- */

static builder *B;
static spans *S;
static bool opt_samples;
static sbuf extra;      /* sample members of the current event */
static strmap procs;    /* process names: pid (text) -> index into procname */
static char **procname;
static uint32_t procname_cap;

static void setup(enum spans_mode mode, const char *format)
{
	B = builder_new();
	builder_source_tool(B, "spall");
	builder_source_str(B, "format", format, strlen(format));
	uint32_t ev = builder_event(B, "span", "probe", "event", "wall_ns", NULL);
	spans_conf c;
	memset(&c, 0, sizeof c);
	c.b = B;
	c.event = ev;
	c.nmetrics = 1;
	c.midx[0] = builder_metric(B, "wall_ns", "nanoseconds");
	c.calls_midx = (int32_t)builder_metric(B, "calls", "count");
	c.mode = mode;
	c.samples = opt_samples;
	c.drop_unclosed = true;
	c.report = spans_problem;
	c.fatal = spans_fatal;
	c.max_depth = opt_max_depth;
	S = spans_new(&c);
}

static void process_name(int64_t pid, const char *name, size_t n)
{
	char key[24];
	size_t kn = fmt_i64(key, pid);
	bool added;
	uint32_t i = strmap_intern(&procs, key, kn, &added);
	if (added) grow_array((void **)&procname, &procname_cap, i + 1, sizeof *procname);
	else free(procname[i]);
	procname[i] = xmemdup(name, n);
}

static void finish(const char *outpath, bool zstd)
{
	spans_finish(S);
	/* a header alone (a binary file cut after it), or ends without
	 * their begins: no profile */
	if (!spans_get_stats(S)->spans) die_no_stacks(fname, "no span both begins and ends in it");
	if (procs.count) {
		sbuf j = { 0 };
		sbuf_addc(&j, '{');
		for (uint32_t i = 0; i < procs.count; i++) {
			size_t kn;
			const char *k = strmap_key(&procs, i, &kn);
			if (i) sbuf_addc(&j, ',');
			jb_str(&j, k, kn);
			sbuf_addc(&j, ':');
			jb_str(&j, procname[i], strlen(procname[i]));
		}
		sbuf_addc(&j, '}');
		sbuf_addc(&j, 0);
		builder_source_json(B, "process_names", j.p);
		sbuf_free(&j);
	}
	reader_finish(B, outpath, zstd);
}

/* ---- JSON ------------------------------------------------------------------
 * The input is read in blocks by common/base/jscan; each event object is located
 * by jscan_value (or the fast path below), then parsed alone with
 * json_parse.  Only one event is held at a time. */

typedef jscan jreader;

static uint64_t jr_here(const jreader *r)
{
	return json_pos(r->line, r->base + r->pos);
}

static json_doc doc;
static uint64_t phase_count[128], phase_other, name_mismatch, cat_varies;
static uint64_t n_events, n_span_events, n_cpu_profile; /* JSON: all, B/E/X, Profile(Chunk) */
static uint32_t *frame_cat;     /* per frame: category index + 1 */
static uint32_t frame_cat_cap;
static strmap cats;
static strmap fnames;           /* span names -> frame (fnum) */
static uint32_t *fnum, fnum_cap;

/* A direct-mapped cache of span names (up to NC_MAX bytes) -> frame in front
 * of fnames.  a, b: the first and last 8 bytes of the name, zero-padded
 * (the whole name when it has at most 16). */
#define NC_SIZE 1024
#define NC_MAX 48
struct ncache {
	uint64_t a, b;
	uint32_t n, frame;      /* n = UINT32_MAX: empty */
	char name[NC_MAX];
};
static struct ncache ncache[NC_SIZE];

static inline struct ncache *nc_slot(const char *name, size_t n, uint64_t *a, uint64_t *b)
{
	*a = *b = 0;
	if (n >= 8) {
		memcpy(a, name, 8);
		memcpy(b, name + n - 8, 8);
	} else if (n > 0) {
		memcpy(a, name, n);
	}
	uint64_t h = (*a ^ (*b * 0x9e3779b97f4a7c15ULL) ^ n) * 0xff51afd7ed558ccdULL;
	return &ncache[(h >> 40) & (NC_SIZE - 1)];
}

/* The frame of a span name seen before, -1 if not in the cache. */
static inline int64_t nc_find(const char *name, size_t n)
{
	uint64_t a, b;
	const struct ncache *c = nc_slot(name, n, &a, &b);
	if (c->n == n && c->a == a && c->b == b && (n <= 16 || !memcmp(c->name + 8, name + 8, n - 16)))
		return c->frame;
	return -1;
}

static void nc_put(const char *name, size_t n, uint32_t frame)
{
	uint64_t a, b;
	struct ncache *c = nc_slot(name, n, &a, &b);
	if (n > NC_MAX) return;
	c->a = a;
	c->b = b;
	c->n = (uint32_t)n;
	c->frame = frame;
	memcpy(c->name, name, n);
}

/* pid/tid: absent is 0; 1 an integer from 0 to 2^32-1 (spall's range: whole
 * values, so 7.0 and 7e0 are 7); 0 not an integer; -1 out of range */
static int get_id(uint32_t k, int64_t *v)
{
	if (!k) {
		*v = 0;
		return 1;
	}
	if (!json_is_num(&doc, k)) return 0;
	if (!json_int64(&doc, k, v)) {
		const json_node *x = &doc.nodes[k];
		char t[64];
		if (x->num_len >= sizeof t) return -1;
		memcpy(t, x->str, x->num_len);
		t[x->num_len] = 0;
		double d = strtod(t, NULL);
		if (d != floor(d)) return 0;
		if (!(d >= 0 && d <= 4294967295.0)) return -1;
		*v = (int64_t)d;
	}
	return *v >= 0 && *v <= INT64_C(4294967295) ? 1 : -1;
}

static bool get_time(uint32_t k, int64_t *ns)
{
	const json_node *x = &doc.nodes[k];
	if (!k || !json_is_num(&doc, k)) return false;
	return spans_us_text_to_ns(x->str, x->num_len, ns);
}

static void span_event(char ph, int64_t pid, int64_t tid, int64_t ts, int64_t dur, const char *name,
		       size_t name_n, bool has_name, const char *cat, size_t cat_n, const char *args,
		       size_t args_n, uint64_t pos);

/* An event parsed with json_parse (any JSON). */
static void json_event(const char *text, size_t n, uint64_t pos)
{
	if (json_parse(&doc, text, n) != 0) {
		char msg[200];
		snprintf(msg, sizeof msg, "bad event: %s at byte %llu of the event; event ignored", doc.err_msg,
			 (unsigned long long)doc.err_pos);
		problem(pos, msg);
		return;
	}
	uint32_t kph = 0, kname = 0, kcat = 0, kpid = 0, ktid = 0, kts = 0, kdur = 0, kargs = 0;
	const json_node *root = &doc.nodes[0];
	uint32_t c = 1;
	for (uint32_t i = 0; i < root->count; i++, c = doc.nodes[c + 1].next) {
		const json_node *key = &doc.nodes[c];
		const char *k = key->str;
		switch (key->count) {
		case 2:
			if (k[0] == 'p' && k[1] == 'h') kph = c + 1;
			else if (k[0] == 't' && k[1] == 's') kts = c + 1;
			break;
		case 3:
			if (!memcmp(k, "pid", 3)) kpid = c + 1;
			else if (!memcmp(k, "tid", 3)) ktid = c + 1;
			else if (!memcmp(k, "cat", 3)) kcat = c + 1;
			else if (!memcmp(k, "dur", 3)) kdur = c + 1;
			break;
		case 4:
			if (!memcmp(k, "name", 4)) kname = c + 1;
			else if (!memcmp(k, "args", 4)) kargs = c + 1;
			break;
		}
	}
	char ph = 0;
	if (kph && doc.nodes[kph].type == JSON_STRING && doc.nodes[kph].count == 1)
		ph = doc.nodes[kph].str[0];
	if (ph != 'X' && ph != 'B' && ph != 'E') {
		if (ph == 'M' && kname && kargs && doc.nodes[kargs].type == JSON_OBJECT) {
			uint32_t an = json_get(&doc, kargs, "name");
			int64_t pid, tid;
			if (an && doc.nodes[an].type == JSON_STRING && get_id(kpid, &pid) == 1 &&
			    get_id(ktid, &tid) == 1) {
				const json_node *nm = &doc.nodes[an];
				if (json_is_str(&doc, kname, "thread_name", 11)) {
					spans_thread_name(S, spans_thread(S, pid, tid), nm->str, nm->count);
					return;
				}
				if (json_is_str(&doc, kname, "process_name", 12)) {
					process_name(pid, nm->str, nm->count);
					return;
				}
			}
		}
		if (ph > 0 && (unsigned char)ph < 128 && kph && doc.nodes[kph].count == 1) phase_count[(int)ph]++;
		else phase_other++;
		if (kname && (json_is_str(&doc, kname, "Profile", 7) || json_is_str(&doc, kname, "ProfileChunk", 12)))
			n_cpu_profile++;
		return;
	}
	int64_t pid, tid, ts, dur = 0;
	int ip = get_id(kpid, &pid), it = ip == 1 ? get_id(ktid, &tid) : 1;
	if (ip != 1 || it != 1) {
		problem(pos, ip == 0 || it == 0 ? "pid or tid is not an integer; event ignored"
						: "pid or tid out of range (0 to 4294967295); event ignored");
		return;
	}
	if (!get_time(kts, &ts)) {
		problem(pos, kts ? "ts is not a number in range; event ignored" : "event without ts; ignored");
		return;
	}
	if (ph == 'X' && !get_time(kdur, &dur)) {
		problem(pos, kdur ? "dur is not a number in range; event ignored" : "complete event without dur; ignored");
		return;
	}
	const char *name = "";
	size_t name_n = 0;
	if (kname && doc.nodes[kname].type == JSON_STRING) {
		name = doc.nodes[kname].str;
		name_n = doc.nodes[kname].count;
	}
	const json_node *cat = kcat && doc.nodes[kcat].type == JSON_STRING ? &doc.nodes[kcat] : NULL;
	static sbuf args;
	args.n = 0;
	if (opt_samples && kargs) jb_node(&args, &doc, kargs);
	span_event(ph, pid, tid, ts, dur, name, name_n, kname != 0, cat ? cat->str : NULL, cat ? cat->count : 0,
		   kargs ? args.p : NULL, args.n, pos);
}

/* A B, E or X event.  has_name: the event has a name member (of any type;
 * name_n = 0 if not a string); cat: NULL if none (or not a string); args: the
 * compact JSON of the args member (only with --samples), NULL if none. */
static void span_event(char ph, int64_t pid, int64_t tid, int64_t ts, int64_t dur, const char *name,
		       size_t name_n, bool has_name, const char *cat, size_t cat_n, const char *args,
		       size_t args_n, uint64_t pos)
{
	n_span_events++;
	uint32_t thr = spans_thread(S, pid, tid);
	if (ph == 'E') {
		if (has_name && name_n) {
			int64_t top = spans_open_frame(S, thr);
			int64_t fr = nc_find(name, name_n);
			if (fr < 0) {
				int64_t f = strmap_find(&fnames, name, name_n);
				fr = f < 0 ? -1 : fnum[f];
			}
			if (top >= 0 && (fr < 0 || top != fr)) name_mismatch++;
		}
		spans_end(S, thr, &ts, pos);
		return;
	}
	/* the frame, with the category of its first event */
	uint32_t frame;
	uint32_t ci = 0;
	if (cat) {
		/* the category of the previous event, most likely the same */
		static sbuf last_cat;
		static uint32_t last_ci;
		if (last_ci && cat_n == last_cat.n && !memcmp(cat, last_cat.p, cat_n)) {
			ci = last_ci;
		} else {
			ci = last_ci = strmap_intern(&cats, cat, cat_n, NULL) + 1;
			last_cat.n = 0;
			sbuf_add(&last_cat, cat, cat_n);
		}
	}
	int64_t cached = nc_find(name, name_n);
	if (cached >= 0) {
		frame = (uint32_t)cached;
	} else {
		/* intern first without extra to learn whether the frame is new */
		bool added;
		uint32_t fi = strmap_intern(&fnames, name, name_n, &added);
		if (added) {
			static sbuf fx;
			fx.n = 0;
			if (cat) {
				sbuf_adds(&fx, "\"x_cat\":");
				jb_str(&fx, cat, cat_n);
			}
			sbuf_addc(&fx, 0);
			grow_array((void **)&fnum, &fnum_cap, fi + 1, sizeof *fnum);
			fnum[fi] = spans_frame(S, name, name_n, cat ? fx.p : NULL);
		}
		frame = fnum[fi];
		nc_put(name, name_n, frame);
	}
	{
		if (frame >= frame_cat_cap) {
			uint32_t old = frame_cat_cap;
			grow_array((void **)&frame_cat, &frame_cat_cap, frame + 1, sizeof *frame_cat);
			memset(frame_cat + old, 0xff, (frame_cat_cap - old) * sizeof *frame_cat);
		}
		if (frame_cat[frame] == UINT32_MAX) frame_cat[frame] = ci;
		else if (frame_cat[frame] != ci) cat_varies++;
	}
	extra.n = 0;
	if (opt_samples) {
		if (cat) {
			sbuf_adds(&extra, "\"x_cat\":");
			jb_str(&extra, cat, cat_n);
		}
		if (args) {
			if (extra.n) sbuf_addc(&extra, ',');
			sbuf_adds(&extra, "\"x_args\":");
			sbuf_add(&extra, args, args_n);
		}
	}
	if (ph == 'X') spans_complete(S, thr, frame, ts, dur, NULL, extra.p, extra.n, pos);
	else spans_begin(S, thr, frame, &ts, extra.p, extra.n, pos);
}

/* ---- the fast path -----------------------------------------------------------
 * Most events are small flat objects without escapes.  fast_event() parses
 * such an event in one pass straight from the read buffer, validating it as
 * json_parse would, and takes the members it needs on the way.  Anything it
 * does not handle (escapes, "M" events, integers too long for pid/tid, times
 * that do not convert, nesting deeper than FX_DEPTH, an event that runs past
 * the buffered input) makes it give up without side effects, and the event
 * goes the general way (jr_value + json_parse), which also makes the
 * diagnostics.  The buffer ends with a NUL sentinel (and 8 bytes of padding)
 * so the scanners need no bounds checks: NUL is never valid there. */

#define FX_DEPTH 32

static inline const uint8_t *fx_ws(const uint8_t *p, uint64_t *lines)
{
	for (;;) {
		uint8_t c = *p;
		if (c == ' ' || c == '\t' || c == '\r') p++;
		else if (c == '\n') (*lines)++, p++;
		else return p;
	}
}

/* The rest of a string after its opening quote: returns the position of the
 * closing quote; NULL for escapes, control bytes or invalid UTF-8. */
static const uint8_t *fx_str(const uint8_t *p)
{
	const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
	for (;;) {
		uint64_t x;
		memcpy(&x, p, 8);
		uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');
		/* flags bytes equal to '"' or '\\', below 0x20, or >= 0x80; the
		 * lowest flag is exact (borrows only reach later bytes) */
		uint64_t m = (((q - ones) & ~q) | ((b - ones) & ~b) | ((x - ones * 0x20) & ~x) | x) & high;
		if (!m) {
			p += 8;
			continue;
		}
		p += __builtin_ctzll(m) >> 3;
		uint8_t c = *p;
		if (c == '"') return p;
		if (c < 0x80) return NULL;
		/* a UTF-8 sequence: well-formed per RFC 3629 */
		uint8_t lo = 0x80, hi = 0xbf;
		int n;
		if (c < 0xc2) return NULL;
		if (c < 0xe0) {
			n = 2;
		} else if (c < 0xf0) {
			n = 3;
			if (c == 0xe0) lo = 0xa0;
			else if (c == 0xed) hi = 0x9f;
		} else if (c < 0xf5) {
			n = 4;
			if (c == 0xf0) lo = 0x90;
			else if (c == 0xf4) hi = 0x8f;
		} else {
			return NULL;
		}
		if (p[1] < lo || p[1] > hi) return NULL;
		if (n >= 3 && (p[2] & 0xc0) != 0x80) return NULL;
		if (n == 4 && (p[3] & 0xc0) != 0x80) return NULL;
		p += n;
	}
}

static inline bool is_digit(uint8_t c) { return (unsigned)(c - '0') <= 9; }

/* A number (JSON grammar) at p: the position after it, NULL if malformed;
 * *is_int: no fraction or exponent. */
static const uint8_t *fx_num(const uint8_t *p, bool *is_int)
{
	*is_int = true;
	if (*p == '-') p++;
	if (*p == '0') p++;
	else if (is_digit(*p)) while (is_digit(*p)) p++;
	else return NULL;
	if (*p == '.') {
		p++;
		if (!is_digit(*p)) return NULL;
		while (is_digit(*p)) p++;
		*is_int = false;
	}
	if ((*p | 0x20) == 'e') {
		p++;
		if (*p == '+' || *p == '-') p++;
		if (!is_digit(*p)) return NULL;
		while (is_digit(*p)) p++;
		*is_int = false;
	}
	return p;
}

/* Any value at p (not blank): the position after it, NULL if not handled.
 * out: the value written compactly (as jb_node would), or NULL. */
static const uint8_t *fx_value(const uint8_t *p, int depth, uint64_t *lines, sbuf *out)
{
	const uint8_t *s = p, *q;
	bool is_int;
	switch (*p) {
	case '"':
		if (!(q = fx_str(p + 1))) return NULL;
		p = q + 1;
		break;
	case 't':
		if (memcmp(p, "true", 4)) return NULL;
		p += 4;
		break;
	case 'f':
		if (memcmp(p, "false", 5)) return NULL;
		p += 5;
		break;
	case 'n':
		if (memcmp(p, "null", 4)) return NULL;
		p += 4;
		break;
	case '{': case '[': {
		char close = *p == '{' ? '}' : ']';
		if (depth >= FX_DEPTH) return NULL;
		if (out) sbuf_addc(out, (char)*p);
		p = fx_ws(p + 1, lines);
		if (*p == close) {
			if (out) sbuf_addc(out, close);
			return p + 1;
		}
		for (;;) {
			if (close == '}') {
				if (*p != '"' || !(q = fx_str(p + 1))) return NULL;
				if (out) sbuf_add(out, (const char *)p, (size_t)(q + 1 - p));
				p = fx_ws(q + 1, lines);
				if (*p != ':') return NULL;
				if (out) sbuf_addc(out, ':');
				p = fx_ws(p + 1, lines);
			}
			if (!(p = fx_value(p, depth + 1, lines, out))) return NULL;
			p = fx_ws(p, lines);
			if (*p == close) {
				if (out) sbuf_addc(out, close);
				return p + 1;
			}
			if (*p != ',') return NULL;
			if (out) sbuf_addc(out, ',');
			p = fx_ws(p + 1, lines);
		}
	}
	default:
		if (!(p = fx_num(p, &is_int))) return NULL;
		break;
	}
	if (out) sbuf_add(out, (const char *)s, (size_t)(p - s));
	return p;
}

/* A member value: kind 0 absent, 's' string (p, n: its bytes), 'i' integer,
 * 'n' other number (p, n: its text), 'o' anything else (p, n: its text). */
typedef struct fx_val {
	const uint8_t *p;
	size_t n;
	char kind;
} fx_val;

/* pid/tid: absent is 0; false unless a short integer from 0 to 2^32-1 (the
 * slow path reports the others) */
static bool fx_id(const fx_val *v, int64_t *id)
{
	if (!v->kind) {
		*id = 0;
		return true;
	}
	if (v->kind != 'i' || v->n > 10 || *v->p == '-') return false;
	const uint8_t *p = v->p, *e = p + v->n;
	int64_t x = 0;
	for (; p < e; p++) x = x * 10 + (*p - '0');
	*id = x;
	return x <= INT64_C(4294967295);
}

static bool fast_event(jreader *r, uint64_t pos)
{
	const uint8_t *p = (const uint8_t *)r->buf + r->pos + 1, *q;
	uint64_t lines = 0;
	fx_val ph = { 0 }, name = { 0 }, cat = { 0 }, pid = { 0 }, tid = { 0 }, ts = { 0 }, dur = { 0 }, args = { 0 };
	p = fx_ws(p, &lines);
	if (*p != '}') {
		for (;;) {
			if (*p != '"' || !(q = fx_str(p + 1))) return false;
			const uint8_t *k = p + 1;
			size_t kn = (size_t)(q - k);
			p = fx_ws(q + 1, &lines);
			if (*p != ':') return false;
			p = fx_ws(p + 1, &lines);
			fx_val *v = NULL;
			switch (kn) {
			case 2:
				if (k[0] == 'p' && k[1] == 'h') v = &ph;
				else if (k[0] == 't' && k[1] == 's') v = &ts;
				break;
			case 3:
				if (!memcmp(k, "pid", 3)) v = &pid;
				else if (!memcmp(k, "tid", 3)) v = &tid;
				else if (!memcmp(k, "cat", 3)) v = &cat;
				else if (!memcmp(k, "dur", 3)) v = &dur;
				break;
			case 4:
				if (!memcmp(k, "name", 4)) v = &name;
				else if (!memcmp(k, "args", 4)) v = &args;
				break;
			}
			const uint8_t *s = p;
			char kind;
			if (*p == '"') {
				if (!(q = fx_str(p + 1))) return false;
				s = p + 1;
				p = q + 1;
				kind = 's';
			} else if (*p == '-' || is_digit(*p)) {
				bool is_int;
				if (!(q = fx_num(p, &is_int))) return false;
				p = q;
				kind = is_int ? 'i' : 'n';
			} else {
				if (!(q = fx_value(p, 1, &lines, NULL))) return false;
				p = q;
				kind = 'o';
			}
			if (v) {
				v->p = s;
				v->n = (size_t)((kind == 's' ? p - 1 : p) - s);
				v->kind = kind;
			}
			p = fx_ws(p, &lines);
			if (*p == '}') break;
			if (*p != ',') return false;
			p = fx_ws(p + 1, &lines);
		}
	}
	p++;
	char c = ph.kind == 's' && ph.n == 1 ? (char)ph.p[0] : 0;
	if (c == 'M') return false;
	if (c != 'X' && c != 'B' && c != 'E') {
		if (c > 0) phase_count[(int)c]++;
		else phase_other++;
		if (name.kind == 's' && ((name.n == 7 && !memcmp(name.p, "Profile", 7)) ||
					 (name.n == 12 && !memcmp(name.p, "ProfileChunk", 12))))
			n_cpu_profile++;
	} else {
		int64_t ipid, itid, its, idur = 0;
		if (!fx_id(&pid, &ipid) || !fx_id(&tid, &itid)) return false;
		if (ts.kind != 'i' && ts.kind != 'n') return false;
		if (!spans_us_text_to_ns((const char *)ts.p, ts.n, &its)) return false;
		if (c == 'X') {
			if (dur.kind != 'i' && dur.kind != 'n') return false;
			if (!spans_us_text_to_ns((const char *)dur.p, dur.n, &idur)) return false;
		}
		static sbuf abuf;
		const char *a = NULL;
		if (args.kind && opt_samples) {
			uint64_t ignore = 0;
			abuf.n = 0;
			const uint8_t *as = args.kind == 's' ? args.p - 1 : args.p;
			fx_value(as, 1, &ignore, &abuf);
			a = abuf.p;
		}
		span_event(c, ipid, itid, its, idur, name.kind == 's' ? (const char *)name.p : "",
			   name.kind == 's' ? name.n : 0, name.kind != 0, cat.kind == 's' ? (const char *)cat.p : NULL,
			   cat.kind == 's' ? cat.n : 0, a, abuf.n, pos);
	}
	r->line += lines;
	r->pos = (size_t)(p - (const uint8_t *)r->buf);
	return true;
}

static void json_events(jreader *r)
{
	bool need_sep = false;
	for (;;) {
		int c = jscan_peek(r);
		if (c < 0 || c == ']') {
			if (c == ']') r->pos++;
			return;
		}
		if (c == ',') {
			if (!need_sep) problem(jr_here(r), "empty array element (extra comma) ignored");
			need_sep = false;
			r->pos++;
			continue;
		}
		if (c != '{') fatal(jr_here(r), "expected a trace event object");
		uint64_t pos = jr_here(r);
		if (need_sep) problem(pos, "missing comma between events");
		need_sep = true;
		n_events++;
		if (fast_event(r, pos)) continue;
		size_t end;
		if (!jscan_value(r, &end, true)) {
			problem(pos, "event truncated at end of input; ignored");
			r->pos = r->len;
			return;
		}
		json_event(r->buf + r->pos, end - r->pos, pos);
		r->pos = end;
	}
}

static void convert_json(input *in, const char *outpath, bool zstd)
{
	is_json = true;
	for (uint32_t i = 0; i < NC_SIZE; i++) ncache[i].n = UINT32_MAX;
	jreader r;
	jscan_init(&r, in, fname);
	json_doc_init(&doc);
	setup(SPANS_SORT, "chrome-json");
	int c = jscan_peek(&r);
	if (c == 0xef && r.len - r.pos >= 3 && !memcmp(r.buf + r.pos, "\xef\xbb\xbf", 3)) {
		r.pos += 3;
		c = jscan_peek(&r);
	}
	if (c == '[') {
		r.pos++;
		json_events(&r);
	} else if (c == '{') {
		/* {"traceEvents":[...], other members skipped} */
		r.pos++;
		bool found = false;
		for (;;) {
			c = jscan_peek(&r);
			if (c < 0 || c == '}') break;
			if (c == ',') {
				r.pos++;
				continue;
			}
			if (c != '"') fatal(jr_here(&r), "expected a member name in the trace object");
			size_t end;
			uint64_t kpos = jr_here(&r);
			if (!jscan_value(&r, &end, true)) fatal(kpos, "input ends inside a member name");
			bool is_events = end - r.pos == 13 && !memcmp(r.buf + r.pos, "\"traceEvents\"", 13);
			r.pos = end;
			c = jscan_peek(&r);
			if (c != ':') fatal(jr_here(&r), "expected ':' after a member name");
			r.pos++;
			c = jscan_peek(&r);
			if (c < 0) break;
			if (is_events && c == '[') {
				/* JSON.parse keeps the last: both would be one trace */
				if (found) fatal(kpos, "a second traceEvents array");
				found = true;
				r.pos++;
				json_events(&r);
			} else {
				if (!jscan_value(&r, &end, false)) break;
				r.pos = end;
			}
		}
		if (!found) fatal(jr_here(&r), "no traceEvents array in the trace object");
		if (c == '}') r.pos++;
	} else if (c < 0) {
		die_empty_input(fname);
	} else {
		fatal(jr_here(&r), "not a trace: expected '[' or '{' (or a binary .spall file)");
	}
	c = jscan_peek(&r);
	if (c >= 0) problem(jr_here(&r), "data after the trace ignored");
	/* summaries */
	uint64_t other = phase_other;
	sbuf w = { 0 };
	for (int i = 0; i < 128; i++) {
		if (!phase_count[i]) continue;
		other += phase_count[i];
		sbuf_printf(&w, "%s%c: %llu", w.n ? ", " : "", i, (unsigned long long)phase_count[i]);
	}
	if (phase_other) sbuf_printf(&w, "%sother: %llu", w.n ? ", " : "", (unsigned long long)phase_other);
	if (other && verbose)
		warn_at(fname, 0, "ignored %llu event%s of other phases than B, E and X (%.*s)",
			(unsigned long long)other, other == 1 ? "" : "s", (int)w.n, w.p);
	sbuf_free(&w);
	if (name_mismatch)
		warn_at(fname, 0, "%llu end event%s named differently from the span they close",
			(unsigned long long)name_mismatch, name_mismatch == 1 ? "" : "s");
	if (n_span_events == 0 && n_cpu_profile)
		die_no_stacks(fname, "a Chrome trace whose CPU profile is in %llu Profile/ProfileChunk "
			      "event%s (sampled stacks), which spall2spaa does not read; it converts "
			      "trace events of phases B, E and X", (unsigned long long)n_cpu_profile,
			      n_cpu_profile == 1 ? "" : "s");
	if (n_span_events == 0)
		die_no_stacks(fname, "%llu trace event%s, none of phase B, E or X", (unsigned long long)n_events,
			      n_events == 1 ? "" : "s");
	if (cat_varies && verbose)
		warn_at(fname, 0, "%llu event%s with another category than the first of their name (frame x_cat keeps the first; --samples keeps each)",
			(unsigned long long)cat_varies, cat_varies == 1 ? "" : "s");
	finish(outpath, zstd);
	json_doc_free(&doc);
	jscan_free(&r);
}

/* ---- binary .spall ---------------------------------------------------------- */

/* Reads straight from the input's buffer (input_window): buf[pos..len) is
 * the unread part of the current window, base the input offset of buf[0].
 * spool >= 0: a file that receives a copy of the bytes read (so that input
 * that cannot be opened again can be read again); limit: the input is taken
 * to end there. */
typedef struct breader {
	input *in;
	const uint8_t *buf;
	size_t pos, len;
	uint64_t base, limit;
	int spool;
} breader;

/* Makes n bytes available at pos; false if the input ends first. */
static bool br_more(breader *r, size_t n)
{
	if (r->spool >= 0) tmpfile_write(r->spool, r->buf, r->pos);
	input_skip(r->in, r->pos);
	r->base += r->pos;
	const void *p;
	r->len = input_window(r->in, &p, n);
	if (r->len > r->limit - r->base) r->len = (size_t)(r->limit - r->base);
	r->buf = p;
	r->pos = 0;
	return r->len >= n;
}

static inline bool br_need(breader *r, size_t n)
{
	if (r->len - r->pos >= n) return true;
	return br_more(r, n);
}

static inline uint64_t br_off(const breader *r) { return r->base + r->pos; }
static inline uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline double rdf64(const uint8_t *p) { double v; memcpy(&v, p, 8); return v; }

static double unit_us;   /* v0/v1: file time * unit_us = microseconds */
static double unit_ns;   /* v3: ticks * unit_ns = nanoseconds */

static int64_t us_to_ns(double t, uint64_t pos)
{
	double ns = t * unit_us * 1000.0;
	if (!(ns > -9.2e18 && ns < 9.2e18)) fatal(pos, "time out of range");
	return llround(ns);
}

static int64_t ticks_to_ns_slow(uint64_t t, uint64_t pos)
{
	if (unit_ns == 1.0) {
		if (t > INT64_MAX) fatal(pos, "time out of range");
		return (int64_t)t;
	}
	double ns = (double)t * unit_ns;
	if (!(ns < 9.2e18)) fatal(pos, "time out of range");
	return llround(ns);
}

static inline int64_t ticks_to_ns(uint64_t t, uint64_t pos)
{
	if (unit_ns == 1.0 && t <= INT64_MAX) return (int64_t)t;
	return ticks_to_ns_slow(t, pos);
}

static void bin_truncated(uint64_t pos)
{
	problem(pos, "event truncated at end of input; ignored");
}

static uint32_t bin_frame(const uint8_t *name, size_t n)
{
	return spans_frame(S, (const char *)name, n, NULL);
}

/* v1 Begin args / v3 args: free text kept for samples */
static void bin_extra(const uint8_t *args, size_t n)
{
	extra.n = 0;
	if (!opt_samples || !n) return;
	sbuf_adds(&extra, "\"x_args\":");
	jb_str(&extra, (const char *)args, n);
}

static void convert_v0_v1(breader *r, int version)
{
	for (;;) {
		if (!br_need(r, 1)) return;
		uint64_t pos = br_off(r);
		uint8_t type = r->buf[r->pos];
		const uint8_t *p;
		if (type == 4) { /* End */
			if (!br_need(r, 17)) return bin_truncated(pos);
			p = r->buf + r->pos;
			int64_t ts = us_to_ns(rdf64(p + 9), pos);
			spans_end(S, spans_thread(S, rd32(p + 1), rd32(p + 5)), &ts, pos);
			r->pos += 17;
		} else if (type == 3 && version == 0) {
			if (!br_need(r, 18)) return bin_truncated(pos);
			size_t nl = r->buf[r->pos + 17];
			if (!br_need(r, 18 + nl)) return bin_truncated(pos);
			p = r->buf + r->pos;
			int64_t ts = us_to_ns(rdf64(p + 9), pos);
			uint32_t thr = spans_thread(S, rd32(p + 1), rd32(p + 5));
			spans_begin_name(S, thr, (const char *)p + 18, nl, &ts, NULL, 0, pos);
			r->pos += 18 + nl;
		} else if (type == 3) {
			if (!br_need(r, 20)) return bin_truncated(pos);
			size_t nl = r->buf[r->pos + 18], al = r->buf[r->pos + 19];
			if (!br_need(r, 20 + nl + al)) return bin_truncated(pos);
			p = r->buf + r->pos;
			int64_t ts = us_to_ns(rdf64(p + 10), pos);
			uint32_t thr = spans_thread(S, rd32(p + 2), rd32(p + 6));
			bin_extra(p + 20 + nl, al);
			spans_begin_name(S, thr, (const char *)p + 20, nl, &ts, extra.p, extra.n, pos);
			r->pos += 20 + nl + al;
		} else if (type == 2 && version == 0) { /* Complete */
			if (!br_need(r, 26)) return bin_truncated(pos);
			size_t nl = r->buf[r->pos + 25];
			if (!br_need(r, 26 + nl)) return bin_truncated(pos);
			p = r->buf + r->pos;
			double t = rdf64(p + 9), d = rdf64(p + 17);
			int64_t ts = us_to_ns(t, pos), dur = us_to_ns(d, pos);
			uint32_t thr = spans_thread(S, rd32(p + 1), rd32(p + 5));
			spans_complete(S, thr, bin_frame(p + 26, nl), ts, dur, NULL, NULL, 0, pos);
			r->pos += 26 + nl;
		} else {
			char msg[100];
			snprintf(msg, sizeof msg, "unknown or unsupported event type %u in a version %d file", type, version);
			fatal(pos, msg);
		}
	}
}

static void convert_v3(breader *r)
{
	for (;;) {
		if (!br_need(r, 1)) return;
		uint64_t hpos = br_off(r);
		if (!br_need(r, 20)) {
			problem(hpos, "buffer header truncated at end of input; ignored");
			return;
		}
		const uint8_t *h = r->buf + r->pos;
		uint64_t size = rd32(h);
		int64_t tid = rd32(h + 4), pid = rd32(h + 8);
		r->pos += 20;
		uint32_t thr = spans_thread(S, pid, tid);
		uint64_t left = size;
		/* The usual case: the whole buffer is at hand, and its begin and
		 * end events are read without checks on the input per event.
		 * Anything else (other events, an event running past the buffer)
		 * is left to the general loop below, from where this one stops. */
		if (size <= (UINT32_C(1) << 20) && br_need(r, size)) {
			const uint8_t *b0 = r->buf + r->pos, *p = b0, *e = b0 + size;
			for (;;) {
				size_t avail = (size_t)(e - p);
				if (avail >= 9 && *p == 4) {
					uint64_t pos = r->base + (uint64_t)(p - r->buf);
					int64_t ts = ticks_to_ns(rd64(p + 1), pos);
					spans_end(S, thr, &ts, pos);
					p += 9;
				} else if (avail >= 11 && *p == 3 && avail - 11 >= (size_t)p[9] + p[10]) {
					uint64_t pos = r->base + (uint64_t)(p - r->buf);
					size_t nl = p[9], al = p[10];
					int64_t ts = ticks_to_ns(rd64(p + 1), pos);
					bin_extra(p + 11 + nl, al);
					spans_begin_name(S, thr, (const char *)p + 11, nl, &ts, extra.p, extra.n, pos);
					p += 11 + nl + al;
				} else {
					break;
				}
			}
			r->pos += (size_t)(p - b0);
			left -= (uint64_t)(p - b0);
		}
		while (left > 0) {
			uint64_t pos = br_off(r);
			if (!br_need(r, 1)) {
				problem(hpos, "buffer extends past the end of input (truncated file); read what is there");
				return;
			}
			uint8_t type = r->buf[r->pos];
			size_t n;
			if (type == 4) n = 9;
			else if (type == 3) n = 11;
			else if (type == 8 || type == 9) n = 2;
			else {
				char msg[100];
				snprintf(msg, sizeof msg, "unknown or unsupported event type %u in a version 3 file", type);
				fatal(pos, msg);
			}
			if (n > left) fatal(pos, "event runs past the end of its buffer");
			if (!br_need(r, n)) return bin_truncated(pos);
			const uint8_t *p = r->buf + r->pos;
			size_t nl = 0, al = 0;
			if (type == 3) {
				nl = p[9];
				al = p[10];
			} else if (type != 4) {
				nl = p[1];
			}
			if (n + nl + al > left) fatal(pos, "event runs past the end of its buffer");
			if (!br_need(r, n + nl + al)) return bin_truncated(pos);
			p = r->buf + r->pos;
			if (type == 4) {
				int64_t ts = ticks_to_ns(rd64(p + 1), pos);
				spans_end(S, thr, &ts, pos);
			} else if (type == 3) {
				int64_t ts = ticks_to_ns(rd64(p + 1), pos);
				bin_extra(p + 11 + nl, al);
				spans_begin_name(S, thr, (const char *)p + 11, nl, &ts, extra.p, extra.n, pos);
			} else if (type == 9) {
				spans_thread_name(S, thr, (const char *)p + 2, nl);
			} else {
				process_name(pid, (const char *)p + 2, nl);
			}
			r->pos += n + nl + al;
			left -= n + nl + al;
		}
	}
}

/* The header, then the events, into a new B and S (nesting with mode);
 * returns the version. */
static uint64_t convert_bin_pass(breader *r, bool sort)
{
	if (!br_need(r, 32)) fatal(0, "truncated .spall header (fewer than 32 bytes)");
	const uint8_t *h = r->buf;
	uint64_t version = rd64(h + 8);
	double unit = rdf64(h + 16);
	if (version != 0 && version != 1 && version != 3) {
		char msg[120];
		snprintf(msg, sizeof msg, "unsupported .spall version %llu (versions 0, 1 and 3 are read)",
			 (unsigned long long)version);
		fatal(8, msg);
	}
	if (!(unit > 0) || !isfinite(unit)) fatal(16, "bad timestamp_unit in the header");
	if (rd64(h + 24) != 0) problem(24, "header field must_be_0 is not 0");
	r->pos = 32;
	char fmt[32];
	snprintf(fmt, sizeof fmt, "spall-binary-v%llu", (unsigned long long)version);
	setup(version == 0 || sort ? SPANS_SORT : SPANS_STACK, fmt);
	char ubuf[40];
	ubuf[num_fmt(ubuf, num_d(unit))] = 0;
	builder_source_json(B, "timestamp_unit", ubuf);
	if (version == 3) {
		unit_ns = unit;
		builder_source_str(B, "time", "ticks * timestamp_unit = nanoseconds", 36);
		convert_v3(r);
	} else {
		unit_us = unit;
		builder_source_str(B, "time", "time * timestamp_unit = microseconds", 36);
		convert_v0_v1(r, (int)version);
	}
	return version;
}

/* Versions 1 and 3 are nested in SPANS_STACK mode, streaming (fast, little
 * memory), which gives the spans of the rule (nesting by containment, see
 * spans.h) unless a begin is still open at the end: the rule drops it, and
 * the spans it contained nest in the others, which only SPANS_SORT does.
 * Then the input is converted again, from the start, in SPANS_SORT mode
 * with new B and S; the problems met on the way are those of the first
 * reading (already reported), those of spans_finish() are SPANS_SORT's.
 * reopen: a name to open the input again by (a regular file), or NULL: the
 * bytes read are kept in an unlinked temporary file as they are read. */
static void convert_binary(input *in, const char *reopen, const char *outpath, bool zstd)
{
	breader r = { .in = in, .limit = UINT64_MAX, .spool = -1 };
	if (br_need(&r, 16) && rd64(r.buf + 8) != 0 && !reopen) r.spool = tmpfile_unlinked(cli_prog);
	uint64_t version = convert_bin_pass(&r, false);
	if (version != 0 && spans_open_count(S) > 0) {
		uint64_t end = r.base + r.len;  /* all the first reading saw */
		input *again;
		if (r.spool >= 0) {
			tmpfile_write(r.spool, r.buf, r.len);
			if (lseek(r.spool, 0, SEEK_SET) != 0)
				die(EXIT_DATA, "temporary file: seek error: %s", strerror(errno));
			char path[32];
			snprintf(path, sizeof path, "/dev/fd/%d", r.spool);
			again = input_open(path);
		} else {
			again = input_open(reopen);
		}
		spans_free(S);
		builder_free(B);
		for (uint32_t i = 0; i < procs.count; i++) free(procname[i]);
		strmap_free(&procs);
		strmap_init(&procs);
		quiet = true;
		breader r2 = { .in = again, .limit = end, .spool = -1 };
		convert_bin_pass(&r2, true);
		quiet = false;
		input_close(again);
	}
	if (r.spool >= 0) close(r.spool);
	finish(outpath, zstd);
}

/* its options, for getopt_long and the registry (readers/registry.h) */
const struct option spall_longopts[] = {
	CLI_OUT_LONGOPTS,
	{ "samples", no_argument, 0, 's' },
	{ "strict", no_argument, 0, 'S' },
	{ "verbose", no_argument, 0, 'v' },
	{ "max-depth", required_argument, 0, 'D' },
	CLI_STD_LONGOPTS,
	{ 0, 0, 0, 0 }
};
const char spall_shortopts[] = "o:zshV";

/* the converter spall2spaa: argv as it gets it (argv[0] its name); the
 * exit status (readers/readers.h) */
int spall_read(int argc, char **argv)
{
	const char *outpath = NULL;
	bool zstd = false;
	int c;
	while ((c = getopt_long(argc, argv, spall_shortopts, spall_longopts, NULL)) != -1) {
		switch (c) {
		CLI_OUT_CASES(outpath, zstd);
		case 's': opt_samples = true; break;
		case 'S': strict = true; break;
		case 'v': verbose = true; break;
		case 'D': opt_max_depth = spans_max_depth_arg(optarg); break;
		CLI_STD_CASES(help_text);
		}
	}
	const char *path = optind < argc ? argv[optind] : "-";
	several_inputs(argv + optind, argc - optind, &path, &outpath, &zstd);
	input *in = input_open(path);
	sniff_refuse_other(in, "spall2spaa", "a spall or JSON trace");
	fname = input_name(in);
	const void *magic;
	size_t n = input_peek(in, &magic, 8);
	uint64_t m = 0;
	static const unsigned char spall_magic[8] = { 0x0D, 0xF0, 0xAD, 0x0B, 0, 0, 0, 0 };
	for (size_t i = 0; i < n && i < 8; i++) m |= (uint64_t)((const unsigned char *)magic)[i] << (8 * i);
	if (n < 8) {
		if (n >= 2 && !memcmp(magic, spall_magic, n))
			fatal(0, "truncated .spall header (fewer than 32 bytes)");
		m = 0;
	}
	if (m == 0x0BADF00D) {
		/* a regular file can be opened again; anything else is copied
		 * as it is read, when it may have to be read again */
		struct stat st;
		bool reg = strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode);
		convert_binary(in, reg ? path : NULL, outpath, zstd);
	}
	else if (m == 0xABADF00D) fatal(0, "the spall auto-tracing format (magic 0xABADF00D) is not supported");
	else convert_json(in, outpath, zstd);
	if (nproblems > MAX_WARNINGS)
		warn_at(fname, 0, "%llu problems in all", (unsigned long long)nproblems);
	input_close(in);
	return EXIT_OK;
}
