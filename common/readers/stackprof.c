/* stackprof2spaa - Ruby stackprof profiles (the results hash as JSON:
 * JSON.generate(StackProf.run(raw: true) { ... }), what speedscope reads)
 * to SPAA.
 *
 * The story: the file is read in passes over the same bytes (jscan.h), so
 * that memory does not grow with the samples whatever the order of its
 * members: the first takes the mode, the interval and the frames; then the
 * "raw" stacks are walked, and beside them, in step, the per-sample arrays
 * ("raw_timestamp_deltas", "raw_sample_timestamps") with a reader of their
 * own.  Each raw entry (a stack, root first, and its sample count) is added
 * as speedscope weighs it: cpu mode count x interval microseconds, wall mode
 * the sum of its samples' time deltas, object mode the count; a stack of the
 * one frame "(garbage collection)" is put on top of the stack before it. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "readers.h"
#include "build.h"
#include "reader.h"
#include "cli.h"
#include "input.h"
#include "jscan.h"
#include "json.h"
#include "num.h"
#include "output.h"
#include "several.h"
#include "spaa.h"
#include "strmap.h"
#include "util.h"

static const char help[] =
"Usage: stackprof2spaa [OPTION]... [FILE]...\n"
"Convert a Ruby stackprof profile (its results as JSON, with raw: true) to a\n"
"SPAA 1.0 profile; several FILEs are converted one by one and merged as\n"
"spaa-cat --merge merges them.  With no FILE, or when FILE is -, read\n"
"standard input (zstd and gzip allowed).\n"
"\n"
"Weights as speedscope gives them: mode cpu, event \"cpu\" with cpu_us (samples\n"
"x interval) and samples; mode wall, event \"wall\" with wall_us (the samples'\n"
"time deltas) and samples; mode object (and custom), event \"object\" with\n"
"alloc_count (or count).\n"
"\n"
"  -s, --samples        also write one sample record per sample, at its time\n"
"                       (raw_sample_timestamps, else the deltas added up)\n"
CLI_HELP_TAIL;

enum mode { M_CPU, M_WALL, M_OBJECT, M_CUSTOM };

static struct {
	bool samples;
	const char *fname;
	builder *b;
	enum mode mode;
	bool have_mode, have_interval, have_raw, have_deltas, have_ts;
	int64_t interval;
	strmap ids;                  /* frame id (text) -> index */
	struct sfr { char *name, *file; int64_t line; uint32_t frame; } *fr;
	uint32_t nfr, frcap;
	uint32_t gc_frame;           /* the builder frame "(garbage collection)" */
	json_doc doc;
} P = { .gc_frame = UINT32_MAX };

/* ---- pass 1: everything but the per-sample arrays -------------------------- */

static void read_frames(jscan *r)
{
	bool first = true;
	jscan_open(r, '{', "\"frames\" (an object)");
	while (jscan_more(r, &first, '}')) {
		/* the key is the frame id: kept as its text */
		sstr k = jscan_key(r);
		if (!k.n) jscan_fail(r, "a frame id that is empty or longer than 64 bytes");
		bool added;
		uint32_t i = strmap_intern(&P.ids, k.p, k.n, &added);
		if (!added) jscan_fail(r, "frame %.*s given twice", (int)k.n, k.p);
		json_doc *d = &P.doc;
		jscan_doc(r, d);
		if (d->nodes[0].type != JSON_OBJECT) jscan_fail(r, "frame %u is not an object", i);
		struct sfr *f = VEC_PUSH(P.fr, P.nfr, P.frcap);
		memset(f, 0, sizeof *f);
		f->line = -1;
		f->frame = UINT32_MAX;
		uint32_t v = json_get(d, 0, "name");
		f->name = xstrdup("(unknown)"); /* as speedscope names a frame without one */
		if (v && d->nodes[v].type == JSON_STRING) {
			free(f->name);
			f->name = xmemdup(d->nodes[v].str, d->nodes[v].count);
		}
		v = json_get(d, 0, "file");
		if (v && d->nodes[v].type == JSON_STRING && d->nodes[v].count)
			f->file = xmemdup(d->nodes[v].str, d->nodes[v].count);
		v = json_get(d, 0, "line");
		if (v && d->nodes[v].type != JSON_NULL && (!json_int64(d, v, &f->line) || f->line < 0))
			jscan_fail(r, "frame %u: \"line\" is not a whole number", i);
	}
}

static void pass1(const char *path)
{
	input *in = input_open(path);
	jscan r;
	jscan_init(&r, in, P.fname);
	int c0 = jscan_start(&r);
	if (c0 < 0) die_empty_input(P.fname);
	if (c0 != '{') jscan_fail(&r, "not a stackprof profile: it does not start with a JSON object");
	jscan_open(&r, '{', "the profile (an object)");
	bool first = true, frames = false;
	/* JSON.parse (speedscope) takes the last, the later passes the first:
	 * each at most once */
	static const char *const once[] = { "mode", "interval", "raw", "raw_timestamp_deltas", "raw_sample_timestamps", NULL };
	bool seen[5] = { false };
	while (jscan_more(&r, &first, '}')) {
		sstr k = jscan_key(&r);
		for (int i = 0; once[i]; i++)
			if (sstr_eqc(k, once[i])) {
				if (seen[i]) jscan_fail(&r, "a second \"%s\"", once[i]);
				seen[i] = true;
			}
		if (sstr_eqc(k, "mode")) {
			sstr m = jscan_str(&r, "\"mode\"");
			P.have_mode = true;
			if (sstr_eqc(m, "cpu")) P.mode = M_CPU;
			else if (sstr_eqc(m, "wall")) P.mode = M_WALL;
			else if (sstr_eqc(m, "object")) P.mode = M_OBJECT;
			else if (sstr_eqc(m, "custom")) P.mode = M_CUSTOM;
			else jscan_fail(&r, "mode \"%.*s\": stackprof's modes are cpu, wall, object and custom",
					(int)(m.n > 40 ? 40 : m.n), m.p);
		} else if (sstr_eqc(k, "interval")) {
			int64_t v;
			double d;
			if (!jscan_num(&r, &v, &d) || v <= 0) jscan_fail(&r, "\"interval\" is not a whole number above 0");
			P.interval = v;
			P.have_interval = true;
		} else if (sstr_eqc(k, "frames")) {
			if (frames) jscan_fail(&r, "a second \"frames\" object");
			frames = true;
			read_frames(&r);
		} else if (sstr_eqc(k, "raw")) {
			P.have_raw = true;
			jscan_skip(&r);
		} else if (sstr_eqc(k, "raw_timestamp_deltas")) {
			P.have_deltas = true;
			jscan_skip(&r);
		} else if (sstr_eqc(k, "raw_sample_timestamps")) {
			P.have_ts = true;
			jscan_skip(&r);
		} else {
			jscan_skip(&r); /* version, samples, gc_samples, missed_samples, metadata */
		}
	}
	if (jscan_peek(&r) >= 0) jscan_fail(&r, "more data after the profile");
	if (!P.have_mode) jscan_fail(&r, "not a stackprof profile: no \"mode\"");
	if (!frames) jscan_fail(&r, "not a stackprof profile: no \"frames\"");
	if (!P.have_raw)
		jscan_fail(&r, "no \"raw\" stacks: record with StackProf.run(raw: true) (stackprof writes "
			   "them only then)");
	if (P.mode == M_CPU && !P.have_interval) jscan_fail(&r, "a cpu profile without its \"interval\"");
	if (P.mode == M_WALL && !P.have_deltas)
		jscan_fail(&r, "a wall profile without \"raw_timestamp_deltas\" (the samples' durations)");
	jscan_free(&r);
	input_close(in);
}

/* ---- pass 2: the raw stacks, and the per-sample arrays beside them --------- */

/* A reader positioned at the array of member name (which pass 1 saw). */
static input *open_at(const char *path, jscan *r, const char *name)
{
	input *in = input_open(path);
	jscan_init(r, in, P.fname);
	jscan_start(r);
	jscan_open(r, '{', "the profile (an object)");
	bool first = true;
	while (jscan_more(r, &first, '}')) {
		sstr k = jscan_key(r);
		if (sstr_eqc(k, name)) {
			jscan_open(r, '[', name);
			return in;
		}
		jscan_skip(r);
	}
	jscan_fail(r, "no \"%s\"", name);
}

struct arr { jscan r; input *in; bool first, open; const char *name; uint64_t n; };

static bool arr_next(struct arr *a, int64_t *v, double *d, bool *is_int)
{
	if (!a->open) return false;
	if (!jscan_more(&a->r, &a->first, ']')) {
		a->open = false;
		return false;
	}
	a->n++;
	*is_int = jscan_num(&a->r, v, d);
	return true;
}

static uint32_t frame_of(jscan *r, int64_t id)
{
	char key[24];
	size_t n = fmt_i64(key, id);
	int64_t i = strmap_find(&P.ids, key, n);
	if (i < 0) jscan_fail(r, "raw stack names frame %lld, which \"frames\" does not have", (long long)id);
	struct sfr *f = &P.fr[i];
	if (f->frame != UINT32_MAX) return f->frame;
	sbuf src = { 0 };
	if (f->file) {
		sbuf_add(&src, f->file, strlen(f->file));
		if (f->line >= 0) sbuf_printf(&src, ":%lld", (long long)f->line);
	}
	const char *dso = f->file ? f->file : "[unknown]";
	builder_frame b = {
		.func = sstr_c(f->name),
		.dso = builder_dso(P.b, dso, strlen(dso), false),
		.kind = FK_USER,
		.func_resolved = true,
		.inline_depth = -1,
		.srcline = src.n ? (sstr){ src.p, src.n } : SSTR_NULL,
	};
	f->frame = builder_frame_add(P.b, &b);
	if (!strcmp(f->name, "(garbage collection)")) P.gc_frame = f->frame;
	sbuf_free(&src);
	return f->frame;
}

static void pass2(const char *path)
{
	bool timed = P.mode == M_WALL || (P.samples && (P.have_ts || P.have_deltas));
	const char *ev = P.mode == M_CPU ? "cpu" : P.mode == M_WALL ? "wall" : P.mode == M_OBJECT ? "object" : "custom";
	const char *primary = P.mode == M_CPU ? "cpu_us" : P.mode == M_WALL ? "wall_us" : P.mode == M_OBJECT ? "alloc_count" : "count";
	bool alloc = P.mode == M_OBJECT;
	builder_event(P.b, ev, alloc ? "allocation" : P.mode == M_CUSTOM ? "probe" : "timer",
		      P.mode == M_CPU || P.mode == M_WALL ? "period" : "event", primary, NULL);
	uint32_t midx[2];
	uint32_t nm = 1;
	midx[0] = builder_metric(P.b, primary, P.mode == M_CPU || P.mode == M_WALL ? "microseconds" : NULL);
	if (P.mode == M_CPU || P.mode == M_WALL) midx[nm++] = builder_metric(P.b, "samples", NULL);
	if (P.mode == M_CPU) {
		char nb[32];
		nb[fmt_i64(nb, P.interval)] = 0;
		builder_source_json(P.b, "interval_us", nb);
	}

	struct arr raw = { .first = true, .open = true, .name = "raw" };
	raw.in = open_at(path, &raw.r, "raw");
	struct arr dl = { .first = true }, ts = { .first = true };
	bool use_ts = P.samples && P.have_ts;
	if (timed && P.have_deltas) {
		dl.in = open_at(path, &dl.r, "raw_timestamp_deltas");
		dl.open = true;
		dl.name = "raw_timestamp_deltas";
	}
	if (use_ts) {
		ts.in = open_at(path, &ts.r, "raw_sample_timestamps");
		ts.open = true;
		ts.name = "raw_sample_timestamps";
	}
	uint32_t *stack = NULL, *prev = NULL;
	uint32_t scap = 0, pcap = 0, nprev = 0;
	builder_ctx ctx = { .event = 0 };
	int64_t clock_us = 0;
	uint64_t nsamples = 0;
	for (;;) {
		int64_t h, v;
		double d;
		bool is_int;
		if (!arr_next(&raw, &h, &d, &is_int)) break;
		if (!is_int || h < 0 || h > 100000)
			jscan_fail(&raw.r, "a raw stack height that is not a whole number from 0 to 100000");
		uint32_t n = (uint32_t)h;
		grow_array((void **)&stack, &scap, n + nprev + 1, sizeof *stack);
		/* root first in the file, leaf first here */
		for (uint32_t i = 0; i < n; i++) {
			if (!arr_next(&raw, &v, &d, &is_int) || !is_int) jscan_fail(&raw.r, "a raw stack cut short");
			stack[n - 1 - i] = frame_of(&raw.r, v);
		}
		int64_t count;
		if (!arr_next(&raw, &count, &d, &is_int) || !is_int || count < 0)
			jscan_fail(&raw.r, "a raw stack without its sample count");
		/* garbage collection alone: on top of the stack before it, once
		 * (speedscope piles them up: GC entries in a row would make
		 * stacks one frame deeper each, an output of their number
		 * squared) */
		uint32_t nf = n;
		if (n == 1 && stack[0] == P.gc_frame) {
			bool on_gc = nprev && prev[0] == P.gc_frame;
			memcpy(stack + !on_gc, prev, nprev * sizeof *stack);
			nf = !on_gc + nprev;
		}
		/* a stack of height 0 (speedscope counts it under no frame): SPAA's
		 * stacks have one, "(no frames)", as safari2spaa names it */
		uint32_t nreal = nf; /* the stack a garbage collection after it goes on */
		if (!nf) {
			builder_frame bf = { .func = sstr_c("(no frames)"), .dso = builder_dso(P.b, "[unknown]", 9, false),
					     .kind = FK_USER, .func_resolved = true, .inline_depth = -1 };
			stack[nf++] = builder_frame_add(P.b, &bf);
		}
		num w[2];
		if (P.mode == M_CPU) {
			int64_t x;
			if (__builtin_mul_overflow(count, P.interval, &x))
				jscan_fail(&raw.r, "samples x interval beyond 64 bits");
			w[0] = num_i(x);
		} else if (P.mode == M_WALL) {
			w[0] = num_i(0);
		} else {
			w[0] = num_i(count);
		}
		w[1] = num_i(count);
		/* the samples' deltas (and times), in step */
		int64_t sum = 0;
		uint32_t st = UINT32_MAX;
		if (P.samples) {
			w[0] = num_i(0);
			w[1] = num_i(0);
			st = builder_stack(P.b, &ctx, stack, nf, midx, w, nm);
		}
		for (int64_t k = 0; k < count && (dl.open || ts.open || P.samples); k++) {
			int64_t delta = 0, t = 0;
			if (dl.open) {
				if (!arr_next(&dl, &delta, &d, &is_int))
					jscan_fail(&dl.r, "fewer raw_timestamp_deltas (%llu) than samples", (unsigned long long)dl.n);
				if (!is_int || delta < 0) jscan_fail(&dl.r, "a time delta that is not a whole number of microseconds");
				if (__builtin_add_overflow(sum, delta, &sum) || __builtin_add_overflow(clock_us, delta, &clock_us))
					jscan_fail(&dl.r, "time deltas beyond 64 bits");
			}
			if (ts.open) {
				if (!arr_next(&ts, &t, &d, &is_int))
					jscan_fail(&ts.r, "fewer raw_sample_timestamps (%llu) than samples", (unsigned long long)ts.n);
				if (!is_int) jscan_fail(&ts.r, "a sample time that is not a whole number of microseconds");
			}
			if (P.samples) {
				num one[2];
				one[0] = P.mode == M_CPU ? num_i(P.interval) : P.mode == M_WALL ? num_i(delta) : num_i(1);
				one[1] = num_i(1);
				builder_add(P.b, st, midx, one, nm);
				bool has_t = use_ts || P.have_deltas;
				builder_sample(P.b, st, has_t, (double)(use_ts ? t : clock_us) / 1e6, NULL);
			}
		}
		if (!P.samples) {
			if (P.mode == M_WALL) w[0] = num_i(sum);
			builder_stack(P.b, &ctx, stack, nf, midx, w, nm);
		}
		if (__builtin_add_overflow(nsamples, (uint64_t)count, &nsamples)) jscan_fail(&raw.r, "too many samples");
		grow_array((void **)&prev, &pcap, nreal + 1, sizeof *prev);
		memcpy(prev, stack, nreal * sizeof *stack);
		nprev = nreal;
	}
	int64_t extra, x;
	double d;
	bool is_int;
	if (dl.open && arr_next(&dl, &extra, &d, &is_int))
		jscan_fail(&dl.r, "more raw_timestamp_deltas than the %llu samples of the raw stacks",
			   (unsigned long long)nsamples);
	if (ts.open && arr_next(&ts, &x, &d, &is_int))
		jscan_fail(&ts.r, "more raw_sample_timestamps than the %llu samples of the raw stacks",
			   (unsigned long long)nsamples);
	if (!nsamples) die_no_stacks(P.fname, "the raw stacks hold no sample");
	for (struct arr *a = &raw; a; a = a == &raw ? &dl : a == &dl ? &ts : NULL)
		if (a->in) {
			jscan_free(&a->r);
			input_close(a->in);
		}
	free(stack);
	free(prev);
}

/* its options, for getopt_long and the registry (readers/registry.h) */
const struct option stackprof_longopts[] = {
	{ "samples", no_argument, 0, 's' },
	CLI_OUT_LONGOPTS,
	CLI_STD_LONGOPTS,
	{ 0, 0, 0, 0 }
};
const char stackprof_shortopts[] = "so:zhV";

/* the converter stackprof2spaa: argv as it gets it (argv[0] its name); the
 * exit status (readers/readers.h) */
int stackprof_read(int argc, char **argv)
{
	const char *outpath = NULL;
	bool zstd = false;
	int c;
	while ((c = getopt_long(argc, argv, stackprof_shortopts, stackprof_longopts, NULL)) != -1) {
		switch (c) {
		case 's': P.samples = true; break;
		CLI_OUT_CASES(outpath, zstd);
		CLI_STD_CASES(help);
		}
	}
	const char *path = optind < argc ? argv[optind] : "-";
	several_inputs(argv + optind, argc - optind, &path, &outpath, &zstd);
	P.fname = strcmp(path, "-") ? path : "-";
	strmap_init(&P.ids);
	json_doc_init(&P.doc);
	P.b = builder_new();
	builder_source_tool(P.b, "stackprof");
	/* read more than once: standard input is first copied */
	char *again = input_rereadable(path);
	pass1(again);
	pass2(again);
	free(again);
	reader_finish(P.b, outpath, zstd);
	return EXIT_OK;
}
