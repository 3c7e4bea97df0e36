/* spaa-window - cut a SPAA profile in time, from its sample records.
 *
 * --from/--to keep the samples with from <= timestamp < to and rewrite the
 * stacks' weights from them; --every adds window records that partition the
 * time range; --list prints one line per window instead of a profile.
 *
 * A sample's weights: its "x_weights" array when it has one (the span
 * converters write each span's own self cost there, so that the samples of a
 * stack add up to exactly its weights), else samples = 1, count = 1 and
 * period = its period.  A stack metric is rebuilt when every kept sample of
 * the stack gives it, and dropped when none does.
 *
 * Two passes over the input (stdin, pipes and other non-regular files are
 * first copied to a temporary file): the first adds up, per stack and per
 * (window, stack), the samples and their weights (a small array per sum,
 * indexed by a table of the metric names); the second writes the records in
 * input order with the new weights, then the windows.  Memory grows with
 * stacks and windows x stacks, not with samples.
 */
#include <errno.h>
#include <getopt.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "readers/open.h"
#include "cli.h"
#include "fold.h"
#include "jsonw.h"
#include "output.h"
#include "spaa.h"
#include "metric.h"
#include "strmap.h"
#include "units.h"
#include "util.h"

static const char usage[] =
	"Usage: spaa-window [OPTION]... [FILE]...\n"
	"Cut a SPAA profile in time using its sample records.\n"
	"With no FILE, or when FILE is -, read standard input (plain, gzip or zstd).\n"
	"\n"
	"Stack weights are rebuilt from the kept samples: a sample's weights are its\n"
	"x_weights array (written by the span converters with --samples) if it has\n"
	"one, else 'samples' = 1, 'count' = 1 and 'period' = its period.  Metrics\n"
	"that no sample gives are dropped.  A file without sample records, or a cut\n"
	"that keeps none, is an error (exit 1).\n"
	"\n"
	"      --from=T         keep samples with timestamp >= T\n"
	"      --to=T           keep samples with timestamp < T\n"
	"                       (T absolute; '+T' is relative to the profile's start)\n"
	"      --every=D        add window records of duration D partitioning the\n"
	"                       time range (ids w1, w2, ...; at most 100000)\n"
	"                       Times take a unit: 500ms, 2s, 1.5m, 1h, 250us, 10ns\n"
	"                       (the same whatever the profile's clock); a bare\n"
	"                       number is in the unit of the header's time_range\n"
	"                       (perf: seconds; Chrome, pprof: nanoseconds)\n"
	"      --list           print one line per window (needs --every): start and\n"
	"                       end as --from and --to take them (+500ms), weight,\n"
	"                       top_weight, top_function\n"
	"  -J, --json           with --list: one JSON object per window\n"
	"      --raw-units      with --list: weights as exact integers, no unit\n"
	"      --iec            with --list: bytes in KiB, MiB, GiB\n"
	"      --event=NAME     the event --list adds up (default: the first declared)\n"
	"      --allow-empty    write a cut that keeps no sample, or whose --from is\n"
	"                       before the start, instead of failing\n"
	FOLD_NAME_HELP
	"Output:\n"
	READERS_HELP
	CLI_HELP_TAIL;

/* The metric table: every metric name of the stack records and of the
 * samples' x_weights, at most MAX_METRICS; the first three are the metrics a
 * sample without x_weights gives. */
#define MAX_METRICS 64
enum { MI_SAMPLES, MI_COUNT, MI_PERIOD };
#define BUILTIN_MASK 7u
static strmap mnames;

static uint32_t metric_id(const char *p, size_t n)
{
	uint32_t i = strmap_intern(&mnames, p, n, NULL);
	if (i >= MAX_METRICS) die_input("more than %d distinct metrics", MAX_METRICS);
	return i;
}

/* -1: not in the table (so given by no sample). */
static int mname_find(const char *p, size_t n)
{
	return (int)strmap_find(&mnames, p, n);
}

/* What the samples of a stack (or of a stack in one window) add up to. */
typedef struct acc {
	uint64_t nsamp;
	uint64_t given, common;  /* metrics given by some, by every sample */
	num *v;                  /* sums by metric id (nv long; 0 beyond) */
	uint32_t nv;
} acc;

typedef struct stackinfo {
	bool defined, id_is_num;
	uint64_t metrics;        /* metric ids of the stack record's weights */
	int32_t event;
	uint32_t ord;            /* order of the stack records */
	uint32_t leaf_func;      /* index into funcs (for --list) */
	uint64_t first_ref;      /* line of the first sample naming it */
	acc all;                 /* samples in [from, to) */
} stackinfo;

/* (window, stack) -> acc, open addressing. */
typedef struct wentry { int64_t k; uint32_t stack; acc a; } wentry;
typedef struct wmap {
	wentry *e;
	uint32_t n, cap;
	uint32_t *slots, nslots;
} wmap;

static uint64_t wkey_hash(int64_t k, uint32_t s)
{
	uint64_t h = (uint64_t)k * 0x9E3779B97F4A7C15ULL ^ (uint64_t)s * 0xC2B2AE3D27D4EB4FULL;
	return h ^ (h >> 29);
}

static void wmap_rehash(wmap *m)
{
	m->nslots = m->nslots ? m->nslots * 2 : 1024;
	free(m->slots);
	m->slots = xcalloc(m->nslots, sizeof *m->slots);
	for (uint32_t i = 0; i < m->n; i++) {
		uint64_t j = wkey_hash(m->e[i].k, m->e[i].stack) & (m->nslots - 1);
		while (m->slots[j]) j = (j + 1) & (m->nslots - 1);
		m->slots[j] = i + 1;
	}
}

static acc *wmap_get(wmap *m, int64_t k, uint32_t s)
{
	if ((uint64_t)(m->n + 1) * 2 > m->nslots) wmap_rehash(m);
	uint64_t j = wkey_hash(k, s) & (m->nslots - 1);
	while (m->slots[j]) {
		wentry *e = &m->e[m->slots[j] - 1];
		if (e->k == k && e->stack == s) return &e->a;
		j = (j + 1) & (m->nslots - 1);
	}
	wentry *e = VEC_PUSH(m->e, m->n, m->cap);
	memset(e, 0, sizeof *e);
	e->k = k;
	e->stack = s;
	m->slots[j] = m->n;
	return &e->a;
}

/* ---- options and state ---------------------------------------------------- */

static struct {
	const char *from_s, *to_s, *event_name, *every_s;
	double every;
	bool has_every, list, json, allow_empty;
	units_opts uo;
} opt;

/* At most this many windows (--every), so that a tiny duration is refused
 * before anything is written. */
#define MAX_WINDOWS 100000

static const char *path, *name;   /* the file read twice, the name for messages */
static double from = -INFINITY, to = INFINITY;
static bool cut;                  /* --from or --to: stacks are rewritten */
static double origin, range_end;  /* of the windows */
static double base;               /* what '+' times are relative to */
static int64_t nwin;              /* windows 0..nwin-1 within the range */
static int64_t kmin, kmax;        /* windows holding samples, possibly beyond */
static char *tr_unit;

static strmap stack_ids, funcs;
static stackinfo *stacks;
static uint32_t stacks_cap, nstack_records;
static wmap wins;
static uint64_t nsamples, nkept; /* sample records; those in [from, to) */
static uint64_t given_any;        /* metrics given by some kept sample */

/* The current sample's weights (metric id, value). */
static uint32_t *sw_id, nsw, sw_cap;
static num *sw_v;
static uint32_t sw_vcap;

static spaa_reader *open_input(void)
{
	spaa_reader *r = spaa_open(path);
	r->name = name;
	return r;
}

/* A time option's value: [+]NUMBER[UNIT]; unit_ns 0 when it has no unit
 * (the header's time_range unit). */
typedef struct tval { double v, unit_ns; bool rel; } tval;

static const struct { const char *name; double ns; } time_units[] = {
	{ "ns", 1 }, { "us", 1e3 }, { "\xce\xbcs", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	{ "m", 60e9 }, { "min", 60e9 }, { "h", 3600e9 },
};

static tval parse_time(const char *o, const char *s)
{
	tval t = { 0, 0, s[0] == '+' };
	const char *p = t.rel ? s + 1 : s;
	size_t n = strlen(p), k = n;
	while (k > 0 && ((p[k - 1] >= 'a' && p[k - 1] <= 'z') || (unsigned char)p[k - 1] >= 0x80)) k--;
	/* an exponent's 'e' is the number's (1e3), not a unit */
	if (k < n && (p[k] == 'e' || p[k] == 'E') && k + 1 < n) k = n;
	if (k < n) {
		size_t i;
		for (i = 0; i < sizeof time_units / sizeof *time_units; i++)
			if (strcmp(p + k, time_units[i].name) == 0) break;
		if (i == sizeof time_units / sizeof *time_units || k == 0)
			usage_error("%s: '%s' is not a time (a number with a unit: 500ms, 2s, 1.5m, "
				    "1h, 250us, 10ns; a bare number is in the unit of the header's time_range)", o, s);
		t.unit_ns = time_units[i].ns;
	}
	char *digits = xmemdup(p, k);
	t.v = opt_double(o, digits);
	free(digits);
	return t;
}

/* t in the unit of the header's time_range. */
static double in_tr_unit(const char *o, const char *s, tval t)
{
	if (!t.unit_ns) return t.v;
	units u = units_of(NULL, 0, tr_unit, strlen(tr_unit));
	if (u.dim != UNITS_TIME)
		die(EXIT_DATA, "%s: %s %s: the header's time_range unit '%s' is not a time: give a bare number",
		    name, o, s, tr_unit);
	double v = t.v * t.unit_ns / u.factor;
	if (!isfinite(v)) usage_error("%s: '%s' is out of range", o, s);
	return v;
}

static stackinfo *stack_at(const char *id, size_t n, uint32_t *idx)
{
	*idx = strmap_intern(&stack_ids, id, n, NULL);
	if (*idx >= stacks_cap) {
		uint32_t old = stacks_cap;
		grow_array((void **)&stacks, &stacks_cap, *idx + 1, sizeof *stacks);
		memset(stacks + old, 0, (stacks_cap - old) * sizeof *stacks);
	}
	return &stacks[*idx];
}

static void sw_push(uint32_t id, num v)
{
	*VEC_PUSH(sw_id, nsw, sw_cap) = id;
	if (sw_cap > sw_vcap) {
		sw_v = xrealloc(sw_v, (size_t)sw_cap * sizeof *sw_v);
		sw_vcap = sw_cap;
	}
	sw_v[nsw - 1] = v;
}

/* The weights of the current sample into sw_*; returns the mask of their
 * metrics. */
static uint64_t sample_weights(spaa_reader *r, const spaa_sample *s)
{
	const json_doc *d = &r->doc;
	uint64_t mask = 0;
	nsw = 0;
	uint32_t xw = json_get(d, 0, "x_weights");
	if (!xw) {
		sw_push(MI_SAMPLES, num_i(1));
		sw_push(MI_COUNT, num_i(1));
		mask = 1u << MI_SAMPLES | 1u << MI_COUNT;
		if (s->has_period) {
			sw_push(MI_PERIOD, s->period);
			mask |= 1u << MI_PERIOD;
		}
		return mask;
	}
	if (d->nodes[xw].type != JSON_ARRAY)
		spaa_error(r, "sample: x_weights must be an array");
	uint32_t k = json_first(d, xw);
	for (uint32_t i = 0; i < d->nodes[xw].count; i++, k = json_after(d, k)) {
		uint32_t m = d->nodes[k].type == JSON_OBJECT ? json_get(d, k, "metric") : 0;
		uint32_t v = d->nodes[k].type == JSON_OBJECT ? json_get(d, k, "value") : 0;
		if (!m || d->nodes[m].type != JSON_STRING || !v || !json_is_num(d, v))
			spaa_error(r, "sample: x_weights[%u] needs a \"metric\" string and a numeric \"value\"", i);
		uint32_t id = metric_id(d->nodes[m].str, d->nodes[m].count);
		const json_node *x = &d->nodes[v];
		sw_push(id, x->type == JSON_INT ? num_i(x->v.i) : x->type == JSON_UINT ? num_u(x->v.u) : num_d(x->v.d));
		mask |= (uint64_t)1 << id;
	}
	return mask;
}

/* Adds the current sample's weights (sw_*, metrics mask) to a. */
static void acc_add(spaa_reader *r, acc *a, const spaa_sample *s, uint64_t mask)
{
	a->common = a->nsamp ? a->common & mask : mask;
	a->given |= mask;
	a->nsamp++;
	for (uint32_t i = 0; i < nsw; i++) {
		uint32_t id = sw_id[i];
		if (id >= a->nv) {
			uint32_t nv = mnames.count > id ? mnames.count : id + 1;
			a->v = xrealloc(a->v, nv * sizeof *a->v);
			for (uint32_t j = a->nv; j < nv; j++) a->v[j] = num_i(0);
			a->nv = nv;
		}
		if (!num_add(&a->v[id], sw_v[i])) {
			if (id == MI_PERIOD)
				spaa_error(r, "the periods of stack %.*s add up beyond 64 bits",
					   (int)s->stack_id.n, s->stack_id.p);
			else
				spaa_error(r, "the %s weights of stack %.*s add up beyond 64 bits",
					   strmap_key(&mnames, id, NULL), (int)s->stack_id.n, s->stack_id.p);
		}
	}
}

static inline bool acc_has(const acc *a, uint32_t id) { return a->common >> id & 1; }
static inline num acc_val(const acc *a, uint32_t id) { return id < a->nv ? a->v[id] : num_i(0); }

/* ---- pass 1: add up the samples ------------------------------------------ */

static void time_bounds(double *lo, double *hi, uint64_t *n)
{
	spaa_reader *r = open_input();
	spaa_sample s;
	*lo = INFINITY, *hi = -INFINITY, *n = 0;
	enum spaa_rtype t;
	while ((t = spaa_next(r)) != SPAA_EOF) {
		if (t != SPAA_SAMPLE || spaa_sample_parse(r, &s) < 0) continue;
		if (!s.has_ts) spaa_error(r, "sample has no timestamp");
		if (s.timestamp < *lo) *lo = s.timestamp;
		if (s.timestamp > *hi) *hi = s.timestamp;
		(*n)++;
	}
	spaa_close(r);
}

static void no_samples(void)
{
	die(EXIT_DATA, "%s: no sample records: spaa-window needs samples (perf2spaa --samples)", name);
}

/* Reads the header, then works out from, to and the windows. */
static void resolve_times(void)
{
	spaa_reader *r = open_input();
	enum spaa_rtype t = spaa_next(r);
	if (t == SPAA_EOF) die_at(name, 0, "no header record (empty input)");
	double start = r->tr_start, end = r->tr_end;
	bool have = r->has_time_range;
	uint32_t tr = json_get(&r->doc, 0, "time_range");
	uint32_t u = tr ? json_get(&r->doc, tr, "unit") : 0;
	if (u && r->doc.nodes[u].type == JSON_STRING)
		tr_unit = xmemdup(r->doc.nodes[u].str, r->doc.nodes[u].count);
	else
		tr_unit = xstrdup("seconds");
	spaa_close(r);

	bool from_rel = false, to_rel = false;
	tval tf = { 0, 0, false }, tt = tf;
	if (opt.from_s) {
		tf = parse_time("--from", opt.from_s);
		from = in_tr_unit("--from", opt.from_s, tf);
		from_rel = tf.rel;
	}
	if (opt.to_s) {
		tt = parse_time("--to", opt.to_s);
		to = in_tr_unit("--to", opt.to_s, tt);
		to_rel = tt.rel;
	}
	if (opt.has_every) {
		opt.every = in_tr_unit("--every", opt.every_s, parse_time("--every", opt.every_s));
		if (!(opt.every > 0)) usage_error("--every: '%s' is not a positive duration", opt.every_s);
	}
	bool need_bounds = !have && (from_rel || to_rel || opt.list || (opt.has_every && (!opt.from_s || !opt.to_s)));
	if (need_bounds) { /* no time_range in the header: the samples' span */
		uint64_t n;
		time_bounds(&start, &end, &n);
		if (n == 0) no_samples();
	}
	base = start;
	if (from_rel) from += start;
	if (to_rel) to += start;
	if (opt.from_s && opt.to_s && !(from < to))
		die(EXIT_USAGE, "--from (%s) must be before --to (%s)", opt.from_s, opt.to_s);
	if (opt.from_s && !from_rel && have && from < start && !opt.allow_empty) {
		if (tf.unit_ns)
			die(EXIT_DATA, "%s: --from %s is before the profile's start (%.17g %s): times are "
			    "absolute; write --from +%s for %s after the start (or give --allow-empty)",
			    name, opt.from_s, start, tr_unit, opt.from_s, opt.from_s);
		die(EXIT_DATA, "%s: --from %s is before the profile's start (%.17g %s): times are "
		    "absolute; write --from +%s for %s %s after the start (or give --allow-empty)",
		    name, opt.from_s, start, tr_unit, opt.from_s, opt.from_s, tr_unit);
	}
	if (opt.has_every) {
		origin = opt.from_s ? from : start;
		range_end = opt.to_s ? to : end;
		if (!opt.to_s && opt.from_s && !(range_end > origin)) range_end = origin;
		/* the difference of two absolute times is off by a few ulps of
		 * their magnitude: 52310.005 - 52310.003 is 2.0000000000036 ms,
		 * which must make 2 windows of 1 ms, not 3 (never more than half a
		 * window: a tiny --every makes an infinite count, not NaN) */
		double slack = fmin(0.5, 8 * DBL_EPSILON * fmax(fabs(origin), fabs(range_end)) / opt.every);
		double w = ceil((range_end - origin) / opt.every - slack);
		if (!(w <= MAX_WINDOWS) && !parse_time("--every", opt.every_s).unit_ns && strcmp(tr_unit, "seconds") != 0)
			usage_error("--every %s makes %.0f windows of the %g %s range (at most %d; a bare "
				    "number is in %s, the unit of the header's time_range: write a unit, as in %ss)",
				    opt.every_s, w, range_end - origin, tr_unit, MAX_WINDOWS, tr_unit, opt.every_s);
		if (!(w <= MAX_WINDOWS))
			usage_error("--every %s makes %.0f windows of the %g %s range (at most %d)",
				    opt.every_s, w, range_end - origin, tr_unit, MAX_WINDOWS);
		nwin = w < 1 ? 1 : (int64_t)w;
		kmin = 0;
		kmax = nwin - 1;
	}
}

static void note_list_units(spaa_reader *r, const spaa_stack *st, int32_t event);
static int32_t list_ev = -1;

/* --list names the top function as spaa-fold would (fold.h) */
static fold_opts names_fo = { .inline_mode = -1 };
static sbuf leaf_name;

static void pass1(void)
{
	spaa_reader *r = open_input();
	spaa_stack st = { 0 };
	spaa_sample s;
	enum spaa_rtype t;
	while ((t = spaa_next(r)) != SPAA_EOF) {
		if (t == SPAA_HEADER && r->header_line == r->lineno) {
			fold_opts_header(&names_fo, r);
			list_ev = opt.event_name ? spaa_event_find(r, opt.event_name, strlen(opt.event_name)) : 0;
		}
		if (t == SPAA_STACK) {
			if (spaa_stack_parse(r, &st) < 0) continue;
			uint32_t i;
			stackinfo *si = stack_at(st.id.p, st.id.n, &i);
			if (si->defined)
				spaa_error(r, "duplicate stack id %.*s", (int)st.id.n, st.id.p);
			si->defined = true;
			si->id_is_num = r->doc.nodes[json_get(&r->doc, 0, "id")].type != JSON_STRING;
			si->ord = nstack_records++;
			si->event = st.event;
			for (uint32_t j = 0; j < st.nw; j++)
				si->metrics |= (uint64_t)1 << metric_id(st.w[j].metric.p, st.w[j].metric.n);
			leaf_name.n = 0;
			if (st.nframes) fold_frame_name(r, spaa_stack_leaf(r, &st), NULL, 0, &names_fo, &leaf_name);
			else sbuf_add(&leaf_name, "[unknown]", 9);
			si->leaf_func = strmap_intern(&funcs, leaf_name.p, leaf_name.n, NULL);
			if (opt.list) note_list_units(r, &st, list_ev);
		} else if (t == SPAA_SAMPLE) {
			if (spaa_sample_parse(r, &s) < 0) continue;
			if (!s.has_ts) {
				spaa_error(r, "sample has no timestamp");
				continue;
			}
			nsamples++;
			uint32_t i;
			stackinfo *si = stack_at(s.stack_id.p, s.stack_id.n, &i);
			if (!si->first_ref) si->first_ref = r->lineno;
			if (!(s.timestamp >= from && s.timestamp < to)) continue;
			nkept++;
			uint64_t mask = sample_weights(r, &s);
			given_any |= mask;
			acc_add(r, &si->all, &s, mask);
			if (opt.has_every) {
				double q = floor((s.timestamp - origin) / opt.every);
				if (!(fabs(q) < 1e15)) spaa_error(r, "timestamp too far from the time range");
				int64_t k = (int64_t)q;
				if (k == nwin && s.timestamp <= range_end) k = nwin - 1;
				if (k < kmin) kmin = k;
				if (k > kmax) kmax = k;
				if (kmax - kmin >= MAX_WINDOWS)
					spaa_error(r, "sample timestamp too far out of the time range");
				acc_add(r, wmap_get(&wins, k, i), &s, mask);
			}
		} else if (t == SPAA_HEADER && opt.event_name &&
			   spaa_event_find(r, opt.event_name, strlen(opt.event_name)) < 0) {
			die(EXIT_DATA, "%s: event '%s' is not declared in the header", name, opt.event_name);
		}
	}
	if (nsamples == 0) no_samples();
	if (nkept == 0 && !opt.allow_empty)
		die(EXIT_DATA, "%s: no sample between %s and %s: the cut would be empty "
		    "(times are absolute, '+T' relative to the start; --allow-empty writes it anyway)",
		    name, opt.from_s ? opt.from_s : "the start", opt.to_s ? opt.to_s : "the end");
	for (uint32_t i = 0; i < stack_ids.count; i++)
		if (!stacks[i].defined) {
			size_t n;
			const char *id = strmap_key(&stack_ids, i, &n);
			die_at(name, stacks[i].first_ref, "sample refers to unknown stack %.*s", (int)n, id);
		}
	spaa_stack_free(&st);
	spaa_close(r);
}

/* ---- pass 2: writing ------------------------------------------------------- */

static void put_key(output *o, const json_node *k, bool first)
{
	if (!first) out_putc(o, ',');
	jw_str(o, k->str, k->count);
	out_putc(o, ':');
}

/* The weights array at node arr with derivable metrics rewritten from a and
 * the others left out. */
static void put_weights(output *o, spaa_reader *r, uint32_t arr, const acc *a)
{
	const json_doc *d = &r->doc;
	out_putc(o, '[');
	bool firstw = true;
	uint32_t k = json_first(d, arr);
	for (uint32_t i = 0; i < d->nodes[arr].count; i++, k = json_after(d, k)) {
		uint32_t m = json_get(d, k, "metric");
		int id = mname_find(d->nodes[m].str, d->nodes[m].count);
		if (id < 0 || !acc_has(a, (uint32_t)id)) continue;
		if (!firstw) out_putc(o, ',');
		firstw = false;
		out_putc(o, '{');
		uint32_t key = json_first(d, k);
		for (uint32_t j = 0; j < d->nodes[k].count; j++, key = json_after(d, key + 1)) {
			put_key(o, &d->nodes[key], j == 0);
			if (json_is_str(d, key, "value", 5))
				jw_num(o, acc_val(a, (uint32_t)id));
			else
				jw_node(o, d, key + 1);
		}
		out_putc(o, '}');
	}
	out_putc(o, ']');
}

/* The line of the first kept sample of stack sid that does not give metric
 * id (only looked for to report it: a third pass). */
static uint64_t missing_line(const spaa_stack *st, uint32_t id)
{
	spaa_reader *r = open_input();
	spaa_sample s;
	uint64_t line = 0;
	enum spaa_rtype t;
	while (!line && (t = spaa_next(r)) != SPAA_EOF) {
		if (t != SPAA_SAMPLE || spaa_sample_parse(r, &s) < 0 || !s.has_ts) continue;
		if (!(s.timestamp >= from && s.timestamp < to) || !sstr_eq(s.stack_id, st->id)) continue;
		if (!(sample_weights(r, &s) >> id & 1)) line = r->lineno;
	}
	spaa_close(r);
	return line;
}

/* A metric some but not all kept samples of the stack give (or a period that
 * not all give) cannot be rebuilt; nor can a primary metric no sample gives. */
static void check_stack(spaa_reader *r, const spaa_stack *st, const stackinfo *si)
{
	uint64_t bad = si->metrics & ~si->all.common & (si->all.given | (uint64_t)1 << MI_PERIOD);
	if (bad) {
		uint32_t id = (uint32_t)__builtin_ctzll(bad);
		const char *m = strmap_key(&mnames, id, NULL);
		die_at(name, missing_line(st, id),
		       "sample has no %s: the %s weight of stack %.*s cannot be rebuilt",
		       m, m, (int)st->id.n, st->id.p);
	}
	if (st->event >= 0) {
		const char *pm = r->events[st->event].primary_metric;
		int id = pm ? mname_find(pm, strlen(pm)) : MI_SAMPLES;
		if (id < 0 || (id > MI_PERIOD && !acc_has(&si->all, (uint32_t)id)))
			die_at(name, r->lineno, "stack %.*s: the primary metric '%s' of event '%s' "
			       "cannot be rebuilt from samples (only samples, count, period "
			       "and the metrics of their x_weights)",
			       (int)st->id.n, st->id.p, pm, r->events[st->event].name);
	}
}

static void put_stack(output *o, spaa_reader *r, const stackinfo *si)
{
	const json_doc *d = &r->doc;
	out_putc(o, '{');
	uint32_t key = json_first(d, 0);
	for (uint32_t j = 0; j < d->nodes[0].count; j++, key = json_after(d, key + 1)) {
		put_key(o, &d->nodes[key], j == 0);
		uint32_t v = key + 1;
		if (json_is_str(d, key, "weights", 7)) {
			put_weights(o, r, v, &si->all);
		} else if (json_is_str(d, key, "exclusive", 9) && d->nodes[v].type == JSON_OBJECT) {
			out_putc(o, '{');
			uint32_t xk = json_first(d, v);
			for (uint32_t i = 0; i < d->nodes[v].count; i++, xk = json_after(d, xk + 1)) {
				put_key(o, &d->nodes[xk], i == 0);
				if (json_is_str(d, xk, "weights", 7) && d->nodes[xk + 1].type == JSON_ARRAY)
					put_weights(o, r, xk + 1, &si->all);
				else
					jw_node(o, d, xk + 1);
			}
			out_putc(o, '}');
		} else {
			jw_node(o, d, v);
		}
	}
	out_puts(o, "}\n");
}

static void put_time(output *o, double t)
{
	char buf[32];
	out_write(o, buf, num_fmt(buf, num_d(t)));
}

static void put_header(output *o, spaa_reader *r)
{
	const json_doc *d = &r->doc;
	double s = r->has_time_range && r->tr_start > from ? r->tr_start : from;
	double e = r->has_time_range && r->tr_end < to ? r->tr_end : to;
	if (!isfinite(s) || !isfinite(e)) { /* open-ended, no time_range: the samples' span */
		double lo, hi;
		uint64_t n;
		time_bounds(&lo, &hi, &n);
		if (!isfinite(s)) s = lo;
		if (!isfinite(e)) e = hi;
	}
	if (e < s) e = s; /* a cut outside the range: empty, not reversed */
	bool done = false;
	out_putc(o, '{');
	uint32_t key = json_first(d, 0);
	for (uint32_t j = 0; j < d->nodes[0].count; j++, key = json_after(d, key + 1)) {
		uint32_t v = key + 1;
		put_key(o, &d->nodes[key], j == 0);
		if (!json_is_str(d, key, "time_range", 10) || d->nodes[v].type != JSON_OBJECT) {
			jw_node(o, d, v);
			continue;
		}
		done = true;
		out_putc(o, '{');
		uint32_t k = json_first(d, v);
		for (uint32_t i = 0; i < d->nodes[v].count; i++, k = json_after(d, k + 1)) {
			put_key(o, &d->nodes[k], i == 0);
			if (json_is_str(d, k, "start", 5)) put_time(o, s);
			else if (json_is_str(d, k, "end", 3)) put_time(o, e);
			else jw_node(o, d, k + 1);
		}
		out_putc(o, '}');
	}
	if (!done) {
		out_puts(o, ",\"time_range\":{\"start\":");
		put_time(o, s);
		out_puts(o, ",\"end\":");
		put_time(o, e);
		out_puts(o, ",\"unit\":\"seconds\"}");
	}
	out_puts(o, "}\n");
}

static int cmp_entry(const void *a, const void *b)
{
	const wentry *x = a, *y = b;
	if (x->k != y->k) return x->k < y->k ? -1 : 1;
	uint32_t ox = stacks[x->stack].ord, oy = stacks[y->stack].ord;
	return ox < oy ? -1 : ox > oy;
}

static double win_start(int64_t k) { return origin + (double)k * opt.every; }
static double win_end(int64_t k)
{
	double e = origin + (double)(k + 1) * opt.every;
	return k == nwin - 1 && range_end < e && range_end > win_start(k) ? range_end : e;
}

/* The stack's metrics that all the window's samples give, in metric table
 * order; the sample count if none. */
static void put_window_weights(output *o, const stackinfo *si, const acc *a)
{
	uint64_t m = si->metrics & a->common;
	out_putc(o, '[');
	if (!m) {
		out_puts(o, "{\"metric\":\"samples\",\"value\":");
		jw_num(o, num_u(a->nsamp));
		out_putc(o, '}');
	}
	for (bool first = true; m; m &= m - 1, first = false) {
		uint32_t id = (uint32_t)__builtin_ctzll(m);
		out_puts(o, first ? "{\"metric\":" : ",{\"metric\":");
		jw_strc(o, strmap_key(&mnames, id, NULL));
		out_puts(o, ",\"value\":");
		jw_num(o, acc_val(a, id));
		out_putc(o, '}');
	}
	out_putc(o, ']');
}

static void put_windows(output *o)
{
	xqsort(wins.e, wins.n, sizeof *wins.e, cmp_entry);
	uint32_t j = 0, id = 0;
	for (int64_t k = kmin; k <= kmax; k++) {
		out_printf(o, "{\"type\":\"window\",\"id\":\"w%u\",\"start\":", ++id);
		put_time(o, win_start(k));
		out_puts(o, ",\"end\":");
		put_time(o, win_end(k));
		out_puts(o, ",\"unit\":");
		jw_strc(o, tr_unit);
		out_puts(o, ",\"by_stack\":[");
		for (bool first = true; j < wins.n && wins.e[j].k == k; j++, first = false) {
			const wentry *e = &wins.e[j];
			const stackinfo *si = &stacks[e->stack];
			size_t n;
			const char *sid = strmap_key(&stack_ids, e->stack, &n);
			out_puts(o, first ? "{\"stack_id\":" : ",{\"stack_id\":");
			if (si->id_is_num) out_write(o, sid, n);
			else jw_str(o, sid, n);
			out_puts(o, ",\"weights\":");
			put_window_weights(o, si, &e->a);
			out_putc(o, '}');
		}
		out_puts(o, "]}\n");
	}
}

/* The unit --list prints its times in: the one pprof would choose for the
 * windows' duration and the range (ns, us, ms or s: a power of ten away from
 * the header's unit, so that the figures stay exact); none when the
 * header's unit is not a time. */
static units_scale list_time_scale(void)
{
	units u = units_of(NULL, 0, tr_unit, strlen(tr_unit));
	units_scale sc = { UNITS_COUNT, true, false, 1, "" };
	if (u.dim != UNITS_TIME) return sc;
	sc = units_pick(&u, NULL, opt.every, fmax(fabs(range_end - base), opt.every));
	if (strcmp(sc.suffix, "hrs") == 0 || sc.div * u.factor > 1e9) {
		sc.div = 1e9 / u.factor;
		sc.suffix = "s";
	}
	return sc;
}

/* A time of --list as --from and --to take it: relative to the profile's
 * start ("+"), in the unit of sc, rounded to a nanosecond of the header's
 * unit (so that 0.1 + 0.2 prints as 0.3), with no trailing zeros. */
static void put_rel_time(output *o, double rel, const units_scale *sc)
{
	int dec = 9; /* seconds, and units we do not know */
	if (!strcmp(tr_unit, "milliseconds") || !strcmp(tr_unit, "ms")) dec = 6;
	else if (!strcmp(tr_unit, "microseconds") || !strcmp(tr_unit, "us")) dec = 3;
	else if (!strcmp(tr_unit, "nanoseconds") || !strcmp(tr_unit, "ns")) dec = 0;
	/* no more decimals than the absolute times hold (the 16 significant
	 * digits a double holds): 1700000000.005 - 1700000000 is 0.005, not
	 * 0.005000114 */
	double big = fmax(fabs(origin), fabs(range_end));
	if (big >= 1) {
		int sig = 16 - 1 - (int)floor(log10(big));
		if (sig < dec) dec = sig < 0 ? 0 : sig;
	}
	int shift = (int)lround(log10(sc->div));
	dec += shift;
	if (dec < 0) dec = 0;
	char buf[64];
	int n = snprintf(buf, sizeof buf, "%.*Lf", dec, (long double)rel / (long double)sc->div);
	if (dec > 0) {
		while (n > 0 && buf[n - 1] == '0') n--;
		if (n > 0 && buf[n - 1] == '.') n--;
	}
	if (n == 2 && buf[0] == '-' && buf[1] == '0') { buf[0] = '0'; n = 1; }
	if (!opt.json && buf[0] != '-') out_putc(o, '+');
	out_write(o, buf, (size_t)n);
	if (!opt.json) out_puts(o, sc->suffix);
}

static long double num_ldbl(num a)
{
	return a.kind == NUM_DBL ? (long double)a.d : a.kind == NUM_INT ? (long double)a.i : (long double)a.u;
}

/* The unit of --list's weights: that of the primary metric of the event's
 * stacks (the first stack of the event that has it), a count when the
 * weight is the number of samples. */
static units list_units;
static bool have_list_units;

static void note_list_units(spaa_reader *r, const spaa_stack *st, int32_t event)
{
	if (have_list_units || st->event != event || event < 0 || event >= (int32_t)r->nevents) return;
	const char *pm = r->events[event].primary_metric;
	const spaa_weight *w = pm ? spaa_weight_find(st->w, st->nw, pm) : NULL;
	if (!w) return;
	const char *en = r->events[event].name;
	list_units = metric_units(w, en, en ? strlen(en) : 0);
	have_list_units = true;
}

/* --list: one line per window for one event: its primary metric when the
 * samples give it, else the sample count; start and end relative to the
 * profile's start.  With --json, one object per window. */
static void put_list(output *o, int32_t event, const char *pm)
{
	int pid = pm ? mname_find(pm, strlen(pm)) : -1;
	if (pid >= 0 && !(given_any >> pid & 1)) pid = -1;
	units wu = pid >= 0 && have_list_units ? list_units : units_of(NULL, 0, NULL, 0);
	xqsort(wins.e, wins.n, sizeof *wins.e, cmp_entry);
	num *byf = xcalloc(funcs.count ? funcs.count : 1, sizeof *byf);
	uint32_t *touched = xmalloc((funcs.count ? funcs.count : 1) * sizeof *touched);
	bool *seen = xcalloc(funcs.count ? funcs.count : 1, sizeof *seen);
	/* the rows first: one unit for the whole table */
	size_t nrows = (size_t)(kmax - kmin + 1);
	num *tot = xcalloc(nrows, sizeof *tot), *topw = xcalloc(nrows, sizeof *topw);
	int64_t *top = xmalloc(nrows * sizeof *top);
	long double wmin = 0, wmax = 0;
	uint32_t j = 0;
	for (int64_t k = kmin; k <= kmax; k++) {
		size_t row = (size_t)(k - kmin);
		num total = num_i(0);
		uint32_t nt = 0;
		for (; j < wins.n && wins.e[j].k == k; j++) {
			const wentry *e = &wins.e[j];
			const stackinfo *si = &stacks[e->stack];
			if (si->event != event) continue;
			num v = pid >= 0 ? acc_val(&e->a, (uint32_t)pid) : num_u(e->a.nsamp);
			num *f = &byf[si->leaf_func];
			if (!seen[si->leaf_func]) {
				seen[si->leaf_func] = true;
				touched[nt++] = si->leaf_func;
			}
			if (!num_add(f, v) || !num_add(&total, v))
				die(EXIT_DATA, "%s: weights add up beyond 64 bits", name);
		}
		/* the top function: most weight, then the smaller name */
		int64_t best = -1;
		for (uint32_t i = 0; i < nt; i++) {
			uint32_t fi = touched[i];
			if (best < 0) { best = fi; continue; }
			int c = num_cmp(byf[fi], byf[best]);
			if (c > 0 || (c == 0 && strcmp(strmap_key(&funcs, fi, NULL), strmap_key(&funcs, (uint32_t)best, NULL)) < 0))
				best = fi;
		}
		bool has_top = best >= 0 && !num_is_zero(byf[best]);
		tot[row] = total;
		topw[row] = has_top ? byf[best] : num_i(0);
		top[row] = has_top ? best : -1;
		long double a = fabsl(num_ldbl(total)), b = fabsl(num_ldbl(topw[row]));
		if (a > wmax) wmax = a;
		if (a > 0 && (wmin == 0 || a < wmin)) wmin = a;
		if (b > 0 && (wmin == 0 || b < wmin)) wmin = b;
		for (uint32_t i = 0; i < nt; i++) {
			byf[touched[i]] = num_i(0);
			seen[touched[i]] = false;
		}
	}
	units_scale ws = units_pick(&wu, &opt.uo, wmin, wmax);
	units_scale ts = list_time_scale();
	if (opt.json) ts = (units_scale){ UNITS_COUNT, true, false, 1, "" };
	if (!opt.json) out_puts(o, "start\tend\tweight\ttop_weight\ttop_function\n");
	char buf[UNITS_BUF];
	for (int64_t k = kmin; k <= kmax; k++) {
		size_t row = (size_t)(k - kmin);
		double s0 = origin - base;
		const char *sep = opt.json ? "," : "\t";
		if (opt.json) out_puts(o, "{\"start\":");
		put_rel_time(o, s0 + (double)k * opt.every, &ts);
		out_puts(o, opt.json ? ",\"end\":" : sep);
		put_rel_time(o, win_end(k) == range_end ? range_end - base : s0 + (double)(k + 1) * opt.every, &ts);
		if (opt.json) {
			out_puts(o, ",\"unit\":");
			jw_strc(o, tr_unit);
		}
		out_puts(o, opt.json ? ",\"weight\":" : sep);
		if (opt.json) out_write(o, buf, num_fmt(buf, tot[row]));
		else out_write(o, buf, units_fmt(buf, num_ldbl(tot[row]), &ws));
		out_puts(o, opt.json ? ",\"top_weight\":" : sep);
		if (opt.json) out_write(o, buf, num_fmt(buf, topw[row]));
		else out_write(o, buf, units_fmt(buf, num_ldbl(topw[row]), &ws));
		const char *fn = top[row] >= 0 ? strmap_key(&funcs, (uint32_t)top[row], NULL) : NULL;
		if (opt.json) {
			out_puts(o, ",\"weight_unit\":");
			jw_strc(o, wu.name);
			out_puts(o, ",\"top_function\":");
			if (fn) jw_str(o, fn, strlen(fn));
			else out_puts(o, "null");
			out_putc(o, '}');
		} else {
			out_puts(o, sep);
			out_puts(o, fn ? fn : "-");
		}
		out_putc(o, '\n');
	}
	free(tot);
	free(topw);
	free(top);
	free(byf);
	free(touched);
	free(seen);
}

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	/* windows are made of the samples: a profile of another format is
	 * read with them (-s) */
	readers_option("samples", NULL);
	static const struct option longopts[] = {
		{ "from", required_argument, 0, 'F' },
		{ "to", required_argument, 0, 'T' },
		{ "every", required_argument, 0, 'E' },
		{ "list", no_argument, 0, 'L' },
		{ "json", no_argument, 0, 'J' },
		{ "allow-empty", no_argument, 0, 'A' },
		{ "event", required_argument, 0, 'e' },
		{ "raw-units", no_argument, 0, UNITS_OPT_RAW },
		{ "iec", no_argument, 0, UNITS_OPT_IEC },
		CLI_OUT_LONGOPTS,
		FOLD_NAME_LONGOPTS,
		READERS_LONGOPTS,
		CLI_STD_LONGOPTS,
		{ 0, 0, 0, 0 }
	};
	const char *outpath = NULL;
	bool zstd = false;
	int c;
	while ((c = getopt_long(argc, argv, "so:zJhV", longopts, NULL)) != -1) {
		if (fold_opts_take(&names_fo, c, optarg)) continue;
		switch (c) {
		case 'F': opt.from_s = optarg; break;
		case 'T': opt.to_s = optarg; break;
		case 'E':
			opt.every_s = optarg;
			if (!(parse_time("--every", optarg).v > 0))
				usage_error("--every: '%s' is not a positive duration", optarg);
			opt.has_every = true;
			break;
		case 'L': opt.list = true; break;
		case 'J': opt.json = true; break;
		case 'A': opt.allow_empty = true; break;
		case 'e': opt.event_name = optarg; break;
		case UNITS_OPT_RAW: opt.uo.raw = true; break;
		case UNITS_OPT_IEC: opt.uo.iec = true; break;
		CLI_OUT_CASES(outpath, zstd);
		READERS_OPT_CASES;
		CLI_STD_CASES(usage);
		}
	}
	if (opt.list && !opt.has_every) usage_error("--list needs --every");
	if (!opt.from_s && !opt.to_s && !opt.has_every)
		usage_error("nothing to do: give --from, --to or --every");
	if (opt.event_name && !opt.list) usage_error("--event goes with --list");
	if (opt.json && !opt.list) usage_error("--json goes with --list");
	if (opt.from_s) (void)parse_time("--from", opt.from_s);
	if (opt.to_s) (void)parse_time("--to", opt.to_s);
	if ((opt.uo.raw || opt.uo.iec) && !opt.list) usage_error("--raw-units and --iec go with --list");
	cut = opt.from_s || opt.to_s;

	/* read more than once: another format is read by its reader once,
	 * standard input copied, several files merged first */
	const char *arg = optind < argc ? argv[optind] : "-";
	name = argc - optind > 1 ? "the inputs" : arg;
	char *one = readers_operands(argv + optind, argc - optind);
	path = readers_rereadable(one);
	free(one);
	strmap_init(&stack_ids);
	strmap_init(&funcs);
	strmap_init(&mnames);
	metric_id("samples", 7);
	metric_id("count", 5);
	metric_id("period", 6);
	resolve_times();
	pass1();

	output *o = output_open(outpath, zstd);
	spaa_reader *r = open_input();
	spaa_stack st = { 0 };
	spaa_sample s;
	int32_t list_event = -1;
	const char *list_pm = NULL;
	enum spaa_rtype t;
	while ((t = spaa_next(r)) != SPAA_EOF) {
		size_t n = r->len;
		if (n && r->line[n - 1] == '\r') n--;
		switch (t) {
		case SPAA_HEADER:
			if (opt.list) {
				list_event = opt.event_name ? spaa_event_find(r, opt.event_name, strlen(opt.event_name)) : 0;
				if (r->nevents == 0) die(EXIT_DATA, "%s: the header declares no events", name);
				list_pm = r->events[list_event].primary_metric;
				goto done;
			}
			if (cut) put_header(o, r);
			else { out_write(o, r->line, n); out_putc(o, '\n'); }
			continue;
		case SPAA_STACK:
			if (!cut) break;
			if (spaa_stack_parse(r, &st) < 0) continue;
			{
				int64_t i = strmap_find(&stack_ids, st.id.p, st.id.n);
				const stackinfo *si = &stacks[i];
				if (si->all.nsamp == 0) continue;
				check_stack(r, &st, si);
				put_stack(o, r, si);
			}
			continue;
		case SPAA_SAMPLE:
			if (!cut) break;
			if (spaa_sample_parse(r, &s) < 0) continue;
			if (!(s.timestamp >= from && s.timestamp < to)) continue;
			break;
		case SPAA_WINDOW:
			if (cut) continue; /* their figures are for the whole profile */
			break;
		default:
			break;
		}
		out_write(o, r->line, n);
		out_putc(o, '\n');
	}
done:
	if (opt.list) {
		put_list(o, list_event, list_pm);
	} else if (opt.has_every) {
		put_windows(o);
	}
	output_close(o);
	spaa_stack_free(&st);
	spaa_close(r);
	return EXIT_OK;
}
