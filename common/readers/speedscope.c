/* speedscope2spaa - speedscope's JSON file format
 * (https://www.speedscope.app/file-format-schema.json, 0.0.1 on), as written
 * by speedscope itself, py-spy, rbspy, Austin and spaa2speedscope, to SPAA.
 *
 * The story: the file is one JSON object, read in pieces (jscan.h).  Its
 * frames ("shared.frames") become frame records: the name, the file as the
 * dso, "file:line:col" as the srcline.  Each profile becomes a thread of its
 * own (pid = tid = its place in the file, 1, 2, ...; named after the profile
 * when the file has several): a sampled profile adds each sample's stack
 * (root first there, leaf first here) with its weight, in the metric of the
 * profile's unit; an evented profile's open and close events are spans, and
 * each span's self time goes to its call path, as spall2spaa does
 * (spans.h).  JSON member order is free: when "profiles" comes before
 * "shared", the file is read a second time (standard input is first copied
 * to a temporary file).
 *
 * Memory: the frames and distinct stacks; while a sampled profile is read,
 * one of its two arrays (samples or weights, whichever comes first: 4 or 16
 * bytes a sample), and with -s both. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "readers.h"
#include "build.h"
#include "reader.h"
#include "cli.h"
#include "input.h"
#include "jscan.h"
#include "sniff.h"
#include "json.h"
#include "num.h"
#include "output.h"
#include "spaa.h"
#include "spans.h"
#include "strmap.h"
#include "util.h"

static const char help[] =
"Usage: speedscope2spaa [OPTION]... [FILE]...\n"
"Convert speedscope files (JSON, as speedscope, py-spy, rbspy and Austin\n"
"write them) to one SPAA 1.0 profile.  With no FILE, or when FILE is -, read\n"
"standard input (zstd and gzip allowed).\n"
"\n"
"Each profile of the file is a thread (named after the profile when there\n"
"are several).  Sampled profiles keep their weights in the profile's unit\n"
"(metric wall_ns, wall_us, wall_ms or wall_s of event \"cpu\"; alloc_bytes\n"
"of event \"alloc\"; samples of event \"samples\" for unit none); evented\n"
"profiles become spans (event \"span\": self time in wall_ns, and calls).\n"
"\n"
"  -s, --samples        also write sample records: one per sample of a sampled\n"
"                       profile (its time: startValue plus the weights before\n"
"                       it, in a time unit) and one per span\n"
"  -q, --quiet          no warnings\n"
"      --strict         warnings are errors\n"
"      --max-depth=N    the deepest nesting of an evented profile's frames\n"
"                       (default 4096): deeper is an error, since output grows\n"
"                       with depth squared\n"
CLI_HELP_TAIL;

#define NONE UINT32_MAX

static struct {
	bool samples, quiet, strict;
	uint32_t max_depth;          /* --max-depth (0: spans' default) */
	builder *b;
	const char *fname;           /* the file being read, for messages */
	/* speedscope's frames: name, file, line, col, and the builder frame */
	struct sframe { char *name, *file; int64_t line, col; uint32_t frame; } *fr;
	uint32_t nfr, frcap;
	bool have_frames;
	uint32_t nprofiles;          /* over all files */
	uint64_t nsampled;           /* samples of sampled profiles, over all files */
	/* profile names (for the thread records at the end) and kinds */
	struct pinfo { char *name; bool evented; uint32_t unit; } *pi;
	uint32_t npi, picap;
	/* events and their metrics, per unit (see unit_*) */
	int32_t ev_sampled[6];
	uint32_t m_sampled[6];
	spans *sp[6];
	uint64_t nwarn;
	json_doc doc;
	sbuf tmp;
} G;

/* ---- units ------------------------------------------------------------------ */

enum { U_NONE, U_NS, U_US, U_MS, U_S, U_BYTES, NUNITS };
static const char *const unit_name[NUNITS] = {
	"none", "nanoseconds", "microseconds", "milliseconds", "seconds", "bytes",
};
/* the power of ten from the unit to nanoseconds */
static const int unit_pow10[NUNITS] = { 0, 0, 3, 6, 9, 0 };
static bool unit_is_time(uint32_t u) { return u >= U_NS && u <= U_S; }

static uint32_t sampled_event(uint32_t u)
{
	if (G.ev_sampled[u] >= 0) return (uint32_t)G.ev_sampled[u];
	static const char *const metric[NUNITS] = {
		"samples", "wall_ns", "wall_us", "wall_ms", "wall_s", "alloc_bytes",
	};
	/* profiles in two time units (milliseconds, then seconds) are two
	 * events: an event's stacks all have its primary metric */
	static const char *const cpu_ev[NUNITS] = { NULL, "cpu-ns", "cpu-us", "cpu-ms", "cpu-s", NULL };
	bool other_time = false;
	for (uint32_t k = U_NS; k <= U_S; k++) other_time |= k != u && G.ev_sampled[k] >= 0;
	const char *ev = u == U_NONE ? "samples" : u == U_BYTES ? "alloc" : other_time ? cpu_ev[u] : "cpu";
	G.ev_sampled[u] = (int32_t)builder_event(G.b, ev, u == U_BYTES ? "allocation" : "timer",
						 u == U_BYTES ? "event" : "period", metric[u], NULL);
	G.m_sampled[u] = builder_metric(G.b, metric[u], u == U_NONE ? NULL : unit_name[u]);
	return (uint32_t)G.ev_sampled[u];
}

static void spans_report(void *arg, uint64_t pos, const char *msg)
{
	(void)arg;
	if (G.strict) die_at(G.fname, pos, "%s", msg);
	G.nwarn++;
	if (!G.quiet) warn_at(G.fname, pos, "%s", msg);
}

static noreturn void spans_fatal(void *arg, uint64_t pos, const char *msg)
{
	(void)arg;
	die_at(G.fname, pos, "%s", msg);
}

/* The spans of evented profiles in unit u: time units share one (in ns). */
static spans *evented_spans(uint32_t u)
{
	uint32_t k = unit_is_time(u) ? U_NS : u;
	if (G.sp[k]) return G.sp[k];
	const char *ev = k == U_NS ? "span" : k == U_BYTES ? "span-bytes" : "span-none";
	const char *metric = k == U_NS ? "wall_ns" : k == U_BYTES ? "bytes" : "value";
	spans_conf c;
	memset(&c, 0, sizeof c);
	c.b = G.b;
	c.event = builder_event(G.b, ev, "probe", "event", metric, NULL);
	c.nmetrics = 1;
	c.midx[0] = builder_metric(G.b, metric, k == U_NONE ? NULL : unit_name[k]);
	c.calls_midx = (int32_t)builder_metric(G.b, "calls", "count");
	c.mode = SPANS_STACK;
	c.max_depth = G.max_depth;
	c.samples = G.samples;
	c.report = spans_report;
	c.fatal = spans_fatal;
	G.sp[k] = spans_new(&c);
	return G.sp[k];
}

/* ---- frames ----------------------------------------------------------------- */

static void read_frames(jscan *r)
{
	jscan_open(r, '{', "\"shared\" (an object)");
	bool first = true;
	while (jscan_more(r, &first, '}')) {
		sstr k = jscan_key(r);
		if (!sstr_eqc(k, "frames")) {
			jscan_skip(r);
			continue;
		}
		if (G.have_frames) jscan_fail(r, "a second \"frames\" array");
		G.have_frames = true;
		bool ffirst = true;
		jscan_open(r, '[', "\"frames\" (an array)");
		while (jscan_more(r, &ffirst, ']')) {
			json_doc *d = &G.doc;
			jscan_doc(r, d);
			if (d->nodes[0].type != JSON_OBJECT) jscan_fail(r, "frame %u is not an object", G.nfr);
			static const char *const keys[] = { "name", "file", "line", "col" };
			uint32_t v[4];
			int dup = json_get_keys_once(d, 0, keys, 4, v);
			if (dup >= 0) jscan_fail(r, "frame %u has \"%s\" twice", G.nfr, keys[dup]);
			if (!v[0] || d->nodes[v[0]].type != JSON_STRING)
				jscan_fail(r, "frame %u has no \"name\" string", G.nfr);
			struct sframe *f = VEC_PUSH(G.fr, G.nfr, G.frcap);
			f->name = xmemdup(d->nodes[v[0]].str, d->nodes[v[0]].count);
			f->file = NULL;
			if (v[1] && d->nodes[v[1]].type == JSON_STRING && d->nodes[v[1]].count)
				f->file = xmemdup(d->nodes[v[1]].str, d->nodes[v[1]].count);
			else if (v[1] && d->nodes[v[1]].type != JSON_NULL && d->nodes[v[1]].type != JSON_STRING)
				jscan_fail(r, "frame %u: \"file\" is not a string", G.nfr - 1);
			f->line = f->col = -1;
			for (int i = 2; i < 4; i++) {
				if (!v[i] || d->nodes[v[i]].type == JSON_NULL) continue;
				int64_t x;
				if (!json_int64(d, v[i], &x) || x < 0)
					jscan_fail(r, "frame %u: \"%s\" is not a whole number", G.nfr - 1, keys[i]);
				if (i == 2) f->line = x;
				else f->col = x;
			}
			f->frame = NONE;
		}
	}
}

/* The builder frame of speedscope frame i. */
static uint32_t frame_of(jscan *r, int64_t i)
{
	if (i < 0 || (uint64_t)i >= G.nfr)
		jscan_fail(r, "frame index %lld: the file has %u frames", (long long)i, G.nfr);
	struct sframe *f = &G.fr[i];
	if (f->frame != NONE) return f->frame;
	sbuf *src = &G.tmp;
	src->n = 0;
	if (f->file) {
		sbuf_add(src, f->file, strlen(f->file));
		if (f->line >= 0) sbuf_printf(src, ":%lld", (long long)f->line);
		if (f->line >= 0 && f->col >= 0) sbuf_printf(src, ":%lld", (long long)f->col);
	}
	const char *dso = f->file ? f->file : "[unknown]";
	builder_frame bf = {
		.func = sstr_c(f->name),
		.dso = builder_dso(G.b, dso, strlen(dso), false),
		.kind = FK_USER,
		.func_resolved = true,
		.inline_depth = -1,
		.srcline = src->n ? (sstr){ src->p, src->n } : SSTR_NULL,
	};
	f->frame = builder_frame_add(G.b, &bf);
	return f->frame;
}

/* ---- profiles ---------------------------------------------------------------- */

/* What one profile object holds, in whatever order its members come. */
struct prof {
	char type;                /* 'S' sampled, 'E' evented, 0 not yet known */
	bool has_unit;
	uint32_t unit;
	uint32_t index;           /* 1-based, over all files: pid and tid */
	bool has_start;
	num start;
	/* sampled: distinct stacks (speedscope frame indices, root first) */
	strmap stacks;
	num *sum;
	uint32_t nsum, sumcap;
	bool have_samples, have_weights;
	uint32_t *sidx;           /* per sample: its stack, when kept */
	uint32_t nsidx, sidxcap;
	num *w;                   /* per sample: its weight, when kept */
	uint32_t nw, wcap;
	uint32_t nsamples, nweights;
	/* evented: events kept until the unit is known */
	struct ev { int64_t frame; char type; uint64_t line; uint32_t at_off, at_len; } *ev;
	uint32_t nev, evcap;
	sbuf at_text;
	bool events_done;
};

static void add_weight(jscan *r, struct prof *p, uint32_t s, num w)
{
	if (!num_add(&p->sum[s], w)) jscan_fail(r, "a stack's weights add up beyond 64 bits");
}

static void read_samples(jscan *r, struct prof *p)
{
	if (p->have_samples) jscan_fail(r, "a second \"samples\" array");
	p->have_samples = true;
	bool first = true;
	jscan_open(r, '[', "\"samples\" (an array of arrays)");
	sbuf key = { 0 };
	while (jscan_more(r, &first, ']')) {
		key.n = 0;
		bool f2 = true, done = false;
		jscan_open(r, '[', "a sample (an array of frame indices)");
		int64_t v[256];
		while (!done) {
			size_t n = jscan_ints(r, &f2, v, 256, "a frame index", &done);
			for (size_t i = 0; i < n; i++) {
				if (v[i] < 0 || (uint64_t)v[i] >= G.nfr)
					jscan_fail(r, "frame index %lld: the file has %u frames", (long long)v[i], G.nfr);
				uint32_t x = (uint32_t)v[i];
				sbuf_add(&key, &x, sizeof x);
			}
		}
		bool added;
		uint32_t s = strmap_intern(&p->stacks, key.p ? key.p : "", key.n, &added);
		if (added) *VEC_PUSH(p->sum, p->nsum, p->sumcap) = num_i(0);
		uint32_t i = p->nsamples;
		if (p->nsamples == UINT32_MAX - 1) jscan_fail(r, "more than %u samples in one profile", UINT32_MAX - 2);
		p->nsamples++;
		if (p->have_weights) {
			if (i >= p->nweights) jscan_fail(r, "more samples than weights (%u)", p->nweights);
			add_weight(r, p, s, p->w[i]);
			if (G.samples) *VEC_PUSH(p->sidx, p->nsidx, p->sidxcap) = s;
		} else {
			*VEC_PUSH(p->sidx, p->nsidx, p->sidxcap) = s;
		}
	}
	sbuf_free(&key);
	if (p->have_weights && p->nsamples != p->nweights)
		jscan_fail(r, "%u samples but %u weights", p->nsamples, p->nweights);
}

static void read_weights(jscan *r, struct prof *p)
{
	if (p->have_weights) jscan_fail(r, "a second \"weights\" array");
	p->have_weights = true;
	bool first = true;
	jscan_open(r, '[', "\"weights\" (an array of numbers)");
	while (jscan_more(r, &first, ']')) {
		/* exactly: integers up to 2^64-1 (as spaa2speedscope writes
		 * them), any finite decimal */
		num w = jscan_numv(r);
		if (w.kind == NUM_DBL && w.d < 0) jscan_fail(r, "a negative weight (%.17g)", w.d);
		if (w.kind == NUM_DBL && !isfinite(w.d)) jscan_fail(r, "a weight out of range");
		if (w.kind == NUM_INT && w.i < 0) jscan_fail(r, "a negative weight (%lld)", (long long)w.i);
		uint32_t i = p->nweights;
		if (p->nweights == UINT32_MAX - 1) jscan_fail(r, "more than %u weights in one profile", UINT32_MAX - 2);
		p->nweights++;
		if (p->have_samples) {
			if (i >= p->nsamples) jscan_fail(r, "more weights than samples (%u)", p->nsamples);
			add_weight(r, p, p->sidx[i], w);
			if (G.samples) *VEC_PUSH(p->w, p->nw, p->wcap) = w;
		} else {
			*VEC_PUSH(p->w, p->nw, p->wcap) = w;
		}
	}
	if (p->have_samples && p->nsamples != p->nweights)
		jscan_fail(r, "%u samples but %u weights", p->nsamples, p->nweights);
}

/* One event of an evented profile whose unit is known. */
static void event(jscan *r, struct prof *p, int64_t frame, char type, const char *at, size_t at_n,
		  uint64_t line)
{
	spans *sp = evented_spans(p->unit);
	uint32_t thr = spans_thread(sp, p->index, p->index);
	int64_t v;
	if (unit_is_time(p->unit)) {
		if (!spans_text_to_ns(at, at_n, unit_pow10[p->unit], &v))
			die_at(G.fname, line, "event time %.*s is not a time in range", (int)at_n, at);
	} else {
		json_doc *d = &G.doc;
		if (json_parse(d, at, at_n) || !json_int64(d, 0, &v))
			die_at(G.fname, line, "event value %.*s is not a whole number (unit %s)", (int)at_n, at,
			       unit_name[p->unit]);
	}
	uint32_t f = frame_of(r, frame);
	if (type == 'O') {
		spans_begin(sp, thr, f, &v, NULL, 0, line);
		return;
	}
	int64_t top = spans_open_frame(sp, thr);
	if (top < 0)
		die_at(G.fname, line, "a close event of frame %lld (%s) with no frame open", (long long)frame,
		       G.fr[frame].name);
	if ((uint32_t)top != f)
		die_at(G.fname, line, "a close event of frame %lld (%s) while another frame is open: "
		       "events must nest", (long long)frame, G.fr[frame].name);
	spans_end(sp, thr, &v, line);
}

static void read_events(jscan *r, struct prof *p)
{
	if (p->events_done) jscan_fail(r, "a second \"events\" array");
	p->events_done = true;
	bool first = true;
	jscan_open(r, '[', "\"events\" (an array)");
	while (jscan_more(r, &first, ']')) {
		uint64_t line = r->line;
		json_doc *d = &G.doc;
		jscan_doc(r, d);
		if (d->nodes[0].type != JSON_OBJECT) jscan_fail(r, "an event that is not an object");
		static const char *const keys[] = { "type", "frame", "at" };
		uint32_t v[3];
		int dup = json_get_keys_once(d, 0, keys, 3, v);
		if (dup >= 0) jscan_fail(r, "an event with \"%s\" twice", keys[dup]);
		char type = 0;
		if (v[0] && json_is_str(d, v[0], "O", 1)) type = 'O';
		else if (v[0] && json_is_str(d, v[0], "C", 1)) type = 'C';
		else jscan_fail(r, "an event whose \"type\" is not \"O\" or \"C\"");
		int64_t frame;
		if (!v[1] || !json_int64(d, v[1], &frame)) jscan_fail(r, "an event without a whole \"frame\" index");
		if (frame < 0 || (uint64_t)frame >= G.nfr)
			jscan_fail(r, "frame index %lld: the file has %u frames", (long long)frame, G.nfr);
		if (!v[2] || !json_is_num(d, v[2])) jscan_fail(r, "an event without an \"at\" number");
		const char *at = d->nodes[v[2]].str;
		uint32_t at_n = d->nodes[v[2]].num_len;
		if (p->has_unit) {
			/* the text is in the scan buffer: copy it, the doc is reused */
			char buf[64];
			if (at_n >= sizeof buf) jscan_fail(r, "an event time of more than 63 characters");
			memcpy(buf, at, at_n);
			event(r, p, frame, type, buf, at_n, line);
		} else {
			struct ev *e = VEC_PUSH(p->ev, p->nev, p->evcap);
			e->frame = frame;
			e->type = type;
			e->line = line;
			e->at_off = (uint32_t)p->at_text.n;
			e->at_len = at_n;
			sbuf_add(&p->at_text, at, at_n);
		}
	}
}

/* The profile is read: its stacks (and samples) go to the builder. */
static void finish_sampled(jscan *r, struct prof *p, const char *name)
{
	if (!p->have_samples || !p->have_weights)
		jscan_fail(r, "sampled profile %s has no \"%s\" array", name, p->have_samples ? "weights" : "samples");
	uint32_t ev = sampled_event(p->unit), m = G.m_sampled[p->unit];
	G.nsampled += p->nsamples;
	builder_ctx ctx = { .event = ev, .has_pid = true, .has_tid = true, .pid = p->index, .tid = p->index };
	uint32_t *bs = xmalloc((p->stacks.count ? p->stacks.count : 1) * sizeof *bs);
	uint32_t *fr = NULL, frcap = 0;
	for (uint32_t s = 0; s < p->stacks.count; s++) {
		size_t n;
		const char *k = strmap_key(&p->stacks, s, &n);
		uint32_t nf = (uint32_t)(n / sizeof(uint32_t));
		grow_array((void **)&fr, &frcap, nf + 1, sizeof *fr);
		for (uint32_t i = 0; i < nf; i++) {
			uint32_t x;
			memcpy(&x, k + (size_t)(nf - 1 - i) * sizeof x, sizeof x);
			fr[i] = frame_of(r, x);
		}
		/* a sample without frames (speedscope counts it in the total,
		 * under no frame): SPAA's stacks have one, "(no frames)", as
		 * safari2spaa names it */
		if (!nf) {
			builder_frame bf = { .func = sstr_c("(no frames)"), .dso = builder_dso(G.b, "[unknown]", 9, false),
					     .kind = FK_USER, .func_resolved = true, .inline_depth = -1 };
			fr[nf++] = builder_frame_add(G.b, &bf);
		}
		bs[s] = builder_stack(G.b, &ctx, fr, nf, &m, &p->sum[s], 1);
	}
	if (G.samples) {
		/* time: startValue plus the weights before, in a time unit */
		bool timed = unit_is_time(p->unit);
		double scale = 1;
		for (int i = 0; i < unit_pow10[p->unit]; i++) scale *= 10;
		double t = p->has_start ? num_to_double(p->start) : 0;
		for (uint32_t i = 0; i < p->nsamples; i++) {
			builder_sample(G.b, bs[p->sidx[i]], timed, t * scale / 1e9, NULL);
			t += num_to_double(p->w[i]);
		}
	}
	free(fr);
	free(bs);
}

static void finish_evented(jscan *r, struct prof *p, const char *name)
{
	if (!p->events_done) jscan_fail(r, "evented profile without an \"events\" array");
	for (uint32_t i = 0; i < p->nev; i++) {
		struct ev *e = &p->ev[i];
		char buf[64];
		if (e->at_len >= sizeof buf) die_at(G.fname, e->line, "an event time of more than 63 characters");
		memcpy(buf, p->at_text.p + e->at_off, e->at_len);
		event(r, p, e->frame, e->type, buf, e->at_len, e->line);
	}
	/* as speedscope: every frame opened is closed (no guessing when) */
	spans *sp = evented_spans(p->unit);
	int64_t top = spans_open_frame(sp, spans_thread(sp, p->index, p->index));
	if (top >= 0) {
		const char *nm = "?";
		for (uint32_t i = 0; i < G.nfr; i++)
			if (G.fr[i].frame == (uint32_t)top) nm = G.fr[i].name;
		jscan_fail(r, "evented profile %s ends with frame %s still open: every open event needs "
			   "its close event", name, nm);
	}
}

static void read_profile(jscan *r)
{
	struct prof p;
	memset(&p, 0, sizeof p);
	strmap_init(&p.stacks);
	p.index = ++G.nprofiles;
	struct pinfo *pi = VEC_PUSH(G.pi, G.npi, G.picap);
	pi->name = NULL;
	jscan_open(r, '{', "a profile (an object)");
	bool first = true;
	static const char *const once[] = { "type", "name", "unit", "startValue", NULL };
	bool seen[4] = { false };
	while (jscan_more(r, &first, '}')) {
		sstr k = jscan_key(r);
		for (int i = 0; once[i]; i++)
			if (sstr_eqc(k, once[i])) {
				if (seen[i]) jscan_fail(r, "a profile with \"%s\" twice", once[i]);
				seen[i] = true;
			}
		if (sstr_eqc(k, "type")) {
			sstr t = jscan_str(r, "the profile's \"type\"");
			if (sstr_eqc(t, "sampled")) p.type = 'S';
			else if (sstr_eqc(t, "evented")) p.type = 'E';
			else jscan_fail(r, "profile type \"%.*s\": speedscope knows \"sampled\" and \"evented\"",
					(int)(t.n > 40 ? 40 : t.n), t.p);
		} else if (sstr_eqc(k, "name")) {
			sstr t = jscan_str(r, "the profile's \"name\"");
			free(pi->name);
			pi->name = xmemdup(t.p, t.n);
		} else if (sstr_eqc(k, "unit")) {
			sstr t = jscan_str(r, "the profile's \"unit\"");
			uint32_t u = 0;
			while (u < NUNITS && !sstr_eqc(t, unit_name[u])) u++;
			if (u == NUNITS)
				jscan_fail(r, "unit \"%.*s\": speedscope's units are none, nanoseconds, "
					   "microseconds, milliseconds, seconds and bytes", (int)(t.n > 40 ? 40 : t.n), t.p);
			p.unit = u;
			p.has_unit = true;
		} else if (sstr_eqc(k, "startValue")) {
			int64_t iv;
			double dv;
			p.start = jscan_num(r, &iv, &dv) ? num_i(iv) : num_d(dv);
			if (p.start.kind == NUM_DBL && !isfinite(dv)) jscan_fail(r, "startValue is not a finite number");
			p.has_start = true;
		} else if (sstr_eqc(k, "samples")) {
			read_samples(r, &p);
		} else if (sstr_eqc(k, "weights")) {
			read_weights(r, &p);
		} else if (sstr_eqc(k, "events")) {
			read_events(r, &p);
		} else {
			jscan_skip(r); /* endValue, and what later versions add */
		}
	}
	const char *name = pi->name ? pi->name : "(unnamed)";
	if (!p.type) jscan_fail(r, "profile %s has no \"type\"", name);
	if (!p.has_unit) jscan_fail(r, "profile %s has no \"unit\"", name);
	if (p.type == 'S' && p.events_done) jscan_fail(r, "sampled profile %s has \"events\"", name);
	if (p.type == 'E' && (p.have_samples || p.have_weights))
		jscan_fail(r, "evented profile %s has \"samples\" or \"weights\"", name);
	pi->evented = p.type == 'E';
	pi->unit = p.unit;
	if (p.type == 'S') finish_sampled(r, &p, name);
	else finish_evented(r, &p, name);
	strmap_free(&p.stacks);
	free(p.sum);
	free(p.sidx);
	free(p.w);
	free(p.ev);
	sbuf_free(&p.at_text);
}

static void read_profiles(jscan *r)
{
	bool first = true;
	jscan_open(r, '[', "\"profiles\" (an array)");
	while (jscan_more(r, &first, ']')) read_profile(r);
}

/* ---- the file ------------------------------------------------------------------- */

/* One pass over the top object; profiles read only when the frames are
 * known.  Returns true when the profiles were skipped for want of them. */
static bool pass(const char *path, bool profiles_only)
{
	input *in = input_open(path);
	if (!profiles_only) sniff_refuse_other(in, "speedscope2spaa", "a speedscope file");
	jscan r;
	jscan_init(&r, in, G.fname);
	if (jscan_start(&r) != '{')
		jscan_fail(&r, "not a speedscope file: it does not start with a JSON object");
	jscan_open(&r, '{', "the file (an object)");
	bool first = true, skipped = false, saw_profiles = false, saw_name = false, saw_exporter = false;
	while (jscan_more(&r, &first, '}')) {
		sstr k = jscan_key(&r);
		if (sstr_eqc(k, "profiles") && saw_profiles) jscan_fail(&r, "a second \"profiles\" array");
		if (sstr_eqc(k, "name") || sstr_eqc(k, "exporter")) {
			bool *saw = sstr_eqc(k, "name") ? &saw_name : &saw_exporter;
			if (*saw) jscan_fail(&r, "a second \"%.*s\"", (int)k.n, k.p);
			*saw = true;
		}
		if (sstr_eqc(k, "shared") && !profiles_only) {
			read_frames(&r);
		} else if (sstr_eqc(k, "profiles")) {
			saw_profiles = true;
			if (G.have_frames) read_profiles(&r);
			else {
				skipped = true;
				jscan_skip(&r);
			}
		} else if ((sstr_eqc(k, "name") || sstr_eqc(k, "exporter")) && !profiles_only) {
			char key[16];
			snprintf(key, sizeof key, "%.*s", (int)k.n, k.p);
			if (jscan_null(&r)) continue;
			sstr v = jscan_str(&r, key);
			builder_source_str(G.b, key, v.p, v.n);
		} else {
			jscan_skip(&r); /* $schema, activeProfileIndex, later additions */
		}
	}
	if (jscan_peek(&r) >= 0) jscan_fail(&r, "more data after the speedscope object");
	if (!saw_profiles) jscan_fail(&r, "not a speedscope file: no \"profiles\" array");
	jscan_free(&r);
	input_close(in);
	return skipped;
}

static void read_file(const char *path)
{
	G.fname = strcmp(path, "-") ? path : "-";
	for (uint32_t i = 0; i < G.nfr; i++) {
		free(G.fr[i].name);
		free(G.fr[i].file);
	}
	G.nfr = 0;
	G.have_frames = false;
	/* a second pass needs the file again: standard input is copied */
	char *again = input_rereadable(path);
	if (pass(again, false)) {
		if (!G.have_frames) die_at(G.fname, 0, "not a speedscope file: no \"shared\" object with \"frames\"");
		pass(again, true);
	}
	free(again);
}

/* its options, for getopt_long and the registry (readers/registry.h) */
enum { OPT_STRICT = 256, OPT_MAX_DEPTH };
const struct option speedscope_longopts[] = {
	{ "samples", no_argument, 0, 's' },
	{ "quiet", no_argument, 0, 'q' },
	{ "strict", no_argument, 0, OPT_STRICT },
	{ "max-depth", required_argument, 0, OPT_MAX_DEPTH },
	CLI_OUT_LONGOPTS,
	CLI_STD_LONGOPTS,
	{ 0, 0, 0, 0 }
};
const char speedscope_shortopts[] = "sqo:zhV";

/* the converter speedscope2spaa: argv as it gets it (argv[0] its name); the
 * exit status (readers/readers.h) */
int speedscope_read(int argc, char **argv)
{
	const char *outpath = NULL;
	bool zstd = false;
	int c;
	while ((c = getopt_long(argc, argv, speedscope_shortopts, speedscope_longopts, NULL)) != -1) {
		switch (c) {
		case 's': G.samples = true; break;
		case 'q': G.quiet = true; break;
		case OPT_STRICT: G.strict = true; break;
		case OPT_MAX_DEPTH: G.max_depth = spans_max_depth_arg(optarg); break;
		CLI_OUT_CASES(outpath, zstd);
		CLI_STD_CASES(help);
		}
	}
	for (int u = 0; u < NUNITS; u++) G.ev_sampled[u] = -1;
	json_doc_init(&G.doc);
	G.b = builder_new();
	builder_source_tool(G.b, "speedscope");
	cli_stdin_once(argv + optind, argc - optind);
	if (optind == argc) read_file("-");
	for (int i = optind; i < argc; i++) read_file(argv[i]);

	/* several profiles: each thread is named after its profile */
	if (G.npi > 1)
		for (uint32_t i = 0; i < G.npi; i++) {
			const char *nm = G.pi[i].name ? G.pi[i].name : "(unnamed)";
			if (G.pi[i].evented) {
				spans *sp = evented_spans(G.pi[i].unit);
				spans_thread_name(sp, spans_thread(sp, i + 1, i + 1), nm, strlen(nm));
			} else {
				builder_thread(G.b, i + 1, i + 1, nm, strlen(nm));
			}
		}
	for (int u = 0; u < NUNITS; u++)
		if (G.sp[u]) spans_finish(G.sp[u]);
	const char *nm = optind + 1 == argc ? argv[optind] : "-";
	if (G.nprofiles == 0) die_no_stacks(nm, "the file has no profiles");
	uint64_t nstacks = G.nsampled;
	for (int u = 0; u < NUNITS; u++)
		if (G.sp[u]) nstacks += spans_get_stats(G.sp[u])->spans;
	if (!nstacks) die_no_stacks(nm, "no profile has a sample or an event");
	reader_finish(G.b, outpath, zstd);
	return EXIT_OK;
}
