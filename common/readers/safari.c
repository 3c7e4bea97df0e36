/* safari2spaa - Safari (WebKit Web Inspector) timeline recordings to SPAA:
 * the JSON that the Timelines tab exports, {"version":1, "recording":{...,
 * "sampleStackTraces":[{"timestamp", "stackFrames":[leaf first]}],
 * "sampleDurations":[seconds]}}, the JavaScript samples of the "JavaScript
 * & Events" timeline, read as speedscope's Safari importer reads them.
 *
 * The story: options; the recording's members, in any order: each sample's
 * stack is interned as it streams past and spooled (common/base/spool) with its
 * time, the durations spooled apart; then the two are paired up in step,
 * each sample weighed with its duration, and the profile is written.
 * Memory grows with frames and distinct stacks, not samples. */
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
#include "json.h"
#include "num.h"
#include "output.h"
#include "several.h"
#include "sniff.h"
#include "spaa.h"
#include "spool.h"
#include "util.h"

static const char help_text[] =
	"Usage: safari2spaa [OPTION]... [FILE]...\n"
	"Convert a Safari timeline recording (Web Inspector's JSON export, with the\n"
	"JavaScript samples of its JavaScript & Events timeline) to SPAA: event cpu,\n"
	"each sample weighed with its duration (wall_ns) and counted (samples).\n"
	"With no FILE, or when FILE is -, read standard input; gzip and zstd input\n"
	"is decompressed.\n"
	"\n"
	"  -s, --samples        also write one sample record per sample, at its time\n"
	"                       (seconds, the recording's clock)\n"
	"      --max-frames=N   keep the N innermost frames of a longer stack, under a\n"
	"                       frame [truncated] (default 512)\n"
	CLI_HELP_TAIL;

static const char *fname;
static bool opt_samples;
static uint32_t opt_max_frames = 512;
static builder *B;
static json_doc doc;
static uint32_t m_wall, m_samples;

/* ---- frames --------------------------------------------------------------------
 * A frame is a function: its name, as speedscope names it ("(anonymous
 * FILE:LINE)" when it has none), its script's URL as the dso and
 * "url:line:column" as the srcline. */

static sstr node_str(uint32_t k)
{
	if (!k || doc.nodes[k].type != JSON_STRING) return SSTR_NULL;
	return (sstr){ doc.nodes[k].str, doc.nodes[k].count };
}

static int64_t node_int(uint32_t k, int64_t dflt)
{
	int64_t v;
	return k && json_int64(&doc, k, &v) ? v : dflt;
}

static uint32_t make_frame(jscan *r, uint32_t k)
{
	static sbuf name, src;
	if (doc.nodes[k].type != JSON_OBJECT) jscan_fail(r, "a stack frame that is not an object");
	static const char *const keys[] = { "name", "url", "line", "column" };
	uint32_t v[4];
	int dup = json_get_keys_once(&doc, k, keys, 4, v);
	if (dup >= 0) jscan_fail(r, "a stack frame with \"%s\" twice", keys[dup]);
	sstr fn = node_str(v[0]), url = node_str(v[1]);
	int64_t line = node_int(v[2], -1), col = node_int(v[3], -1);
	name.n = 0;
	if (fn.n) {
		sbuf_add(&name, fn.p, fn.n);
	} else if (url.n) {
		/* speedscope: the last part of the URL, and the line */
		size_t b = url.n;
		while (b && url.p[b - 1] != '/') b--;
		sbuf_adds(&name, "(anonymous ");
		sbuf_add(&name, url.p + b, url.n - b);
		sbuf_printf(&name, ":%lld)", (long long)line);
	} else {
		sbuf_adds(&name, "(anonymous)");
	}
	src.n = 0;
	if (url.n && line >= 0) {
		sbuf_add(&src, url.p, url.n);
		sbuf_printf(&src, ":%lld", (long long)line);
		if (col >= 0) sbuf_printf(&src, ":%lld", (long long)col);
	}
	builder_frame f = {
		.func = { name.p, name.n },
		.dso = url.n ? builder_dso(B, url.p, url.n, false) : builder_dso(B, "(program)", 9, false),
		.kind = FK_USER,
		.func_resolved = true,
		.inline_depth = -1,
		.srcline = src.n ? (sstr){ src.p, src.n } : SSTR_NULL,
	};
	return builder_frame_add(B, &f);
}

/* ---- the recording ---------------------------------------------------------------- */

/* made when their arrays come (a run of the fuzz target that ends early
 * makes neither) */
static spool *stacks;    /* per sample: timestamp (double), frame count, frames (leaf first) */
static spool *durations; /* per duration: seconds (double) */
static uint64_t n_stacks, n_durations;
static bool seen_stacks, seen_durations, seen_recording;
static uint32_t *frames;
static uint32_t frames_cap, cut_frame = UINT32_MAX;
static uint64_t n_cut;

static void sample_stacks(jscan *r)
{
	if (seen_stacks) jscan_fail(r, "a second sampleStackTraces array");
	seen_stacks = true;
	stacks = spool_new();
	bool first = true;
	jscan_open(r, '[', "the sampleStackTraces array");
	while (jscan_more(r, &first, ']')) {
		jscan_doc(r, &doc);
		if (doc.nodes[0].type != JSON_OBJECT) jscan_fail(r, "a sample that is not an object");
		static const char *const keys[] = { "timestamp", "stackFrames" };
		uint32_t v[2];
		int dup = json_get_keys_once(&doc, 0, keys, 2, v);
		if (dup >= 0) jscan_fail(r, "a sample with \"%s\" twice", keys[dup]);
		uint32_t ts = v[0], sf = v[1];
		if (!ts || !json_is_num(&doc, ts)) jscan_fail(r, "a sample without a timestamp (a number)");
		if (!sf || doc.nodes[sf].type != JSON_ARRAY) jscan_fail(r, "a sample without stackFrames (an array)");
		double t = doc.nodes[ts].type == JSON_DOUBLE ? doc.nodes[ts].v.d
			   : doc.nodes[ts].type == JSON_INT ? (double)doc.nodes[ts].v.i : (double)doc.nodes[ts].v.u;
		if (!isfinite(t)) jscan_fail(r, "a sample timestamp that is not a finite number");
		uint32_t n = doc.nodes[sf].count, keep = n < opt_max_frames ? n : opt_max_frames, depth = 0;
		grow_array((void **)&frames, &frames_cap, keep + 1, sizeof *frames);
		for (uint32_t k = json_first(&doc, sf), e = json_after(&doc, sf); k < e && depth < keep; k = json_after(&doc, k))
			frames[depth++] = make_frame(r, k);
		if (n > keep) {
			if (cut_frame == UINT32_MAX) {
				builder_frame f = { .func = sstr_c("[truncated]"), .dso = builder_dso(B, "(program)", 9, false),
						    .kind = FK_USER, .func_resolved = true, .inline_depth = -1 };
				cut_frame = builder_frame_add(B, &f);
			}
			frames[depth++] = cut_frame;
			n_cut++;
		}
		spool_write(stacks, &t, sizeof t);
		spool_write(stacks, &depth, sizeof depth);
		spool_write(stacks, frames, depth * sizeof *frames);
		n_stacks++;
	}
}

static void sample_durations(jscan *r)
{
	if (seen_durations) jscan_fail(r, "a second sampleDurations array");
	seen_durations = true;
	durations = spool_new();
	bool first = true;
	jscan_open(r, '[', "the sampleDurations array");
	while (jscan_more(r, &first, ']')) {
		int64_t i;
		double d;
		if (jscan_num(r, &i, &d)) d = (double)i;
		if (!(d >= 0) || d > 9e9) jscan_fail(r, "a sample duration that is not a number of seconds from 0 to 9e9");
		spool_write(durations, &d, sizeof d);
		n_durations++;
	}
}

static double start_time, end_time;
static bool has_start, has_end;

static double seconds(jscan *r, const char *what)
{
	int64_t i;
	double d;
	if (jscan_num(r, &i, &d)) d = (double)i;
	if (!isfinite(d)) jscan_fail(r, "%s is not a finite number", what);
	return d;
}

static void recording(jscan *r)
{
	if (seen_recording) jscan_fail(r, "a second recording");
	seen_recording = true;
	bool first = true, seen_name = false;
	jscan_open(r, '{', "the recording (an object)");
	while (jscan_more(r, &first, '}')) {
		sstr key = jscan_key(r);
		if (sstr_eqc(key, "sampleStackTraces")) sample_stacks(r);
		else if (sstr_eqc(key, "sampleDurations")) sample_durations(r);
		else if (sstr_eqc(key, "displayName")) {
			if (seen_name) jscan_fail(r, "a second displayName");
			seen_name = true;
			sstr s = jscan_str(r, "displayName");
			builder_source_str(B, "name", s.p, s.n);
		} else if (sstr_eqc(key, "startTime")) {
			start_time = seconds(r, "startTime");
			has_start = true;
		} else if (sstr_eqc(key, "endTime")) {
			end_time = seconds(r, "endTime");
			has_end = true;
		} else {
			jscan_skip(r);
		}
	}
}

static void read_file(jscan *r)
{
	int c = jscan_start(r);
	if (c < 0) die_empty_input(fname);
	if (c != '{') jscan_fail(r, "not a Safari timeline recording: expected a JSON object");
	bool first = true;
	int64_t version = -1;
	jscan_open(r, '{', "'{'");
	while (jscan_more(r, &first, '}')) {
		sstr key = jscan_key(r);
		if (sstr_eqc(key, "recording")) recording(r);
		else if (sstr_eqc(key, "version")) version = jscan_int(r, "version");
		else jscan_skip(r);
	}
	if (jscan_peek(r) >= 0) jscan_fail(r, "data after the JSON text");
	if (!seen_recording) die_at(fname, 0, "not a Safari timeline recording: no \"recording\"");
	if (version != 1)
		warn_at(fname, 0, "a recording of version %lld, not 1: read as version 1", (long long)version);
}

/* ---- samples and output -------------------------------------------------------------- */

static void pair_up(void)
{
	if (!n_stacks)
		die_no_stacks(fname, "a recording without JavaScript samples (sampleStackTraces); record with the "
			      "JavaScript & Events timeline on");
	if (n_stacks != n_durations)
		die_at(fname, 0, "%llu samples (sampleStackTraces) but %llu sampleDurations",
		       (unsigned long long)n_stacks, (unsigned long long)n_durations);
	spool_rewind(stacks);
	spool_rewind(durations);
	builder_event(B, "cpu", "timer", "period", "wall_ns", NULL);
	m_wall = builder_metric(B, "wall_ns", "nanoseconds");
	m_samples = builder_metric(B, "samples", NULL);
	builder_ctx c = { .event = 0 };
	uint32_t midx[2] = { m_wall, m_samples };
	for (uint64_t i = 0; i < n_stacks; i++) {
		double t, d;
		uint32_t depth;
		if (spool_read(stacks, &t, sizeof t) != sizeof t || spool_read(stacks, &depth, sizeof depth) != sizeof depth ||
		    spool_read(durations, &d, sizeof d) != sizeof d)
			die(EXIT_DATA, "temporary file: read error: a record cut short");
		grow_array((void **)&frames, &frames_cap, depth + 1, sizeof *frames);
		if (spool_read(stacks, frames, depth * sizeof *frames) != depth * sizeof *frames)
			die(EXIT_DATA, "temporary file: read error: a record cut short");
		/* a sample without frames: no JavaScript was running (speedscope
		 * draws it empty); its frame "(no frames)" keeps its time */
		if (!depth) {
			builder_frame f = { .func = sstr_c("(no frames)"), .dso = builder_dso(B, "(program)", 9, false),
					    .kind = FK_USER, .func_resolved = true, .inline_depth = -1 };
			frames[depth++] = builder_frame_add(B, &f);
		}
		uint64_t ns = (uint64_t)llround(d * 1e9);
		num vals[2] = { num_u(ns), num_u(1) };
		uint32_t s = builder_stack(B, &c, frames, depth, midx, vals, 2);
		if (opt_samples) {
			/* its weights, for spaa-window */
			char extra[96];
			snprintf(extra, sizeof extra, "\"x_weights\":[{\"metric\":\"wall_ns\",\"value\":%llu},"
				 "{\"metric\":\"samples\",\"value\":1}]", (unsigned long long)ns);
			builder_sample(B, s, true, t, extra);
		}
	}
	spool_free(stacks);
	spool_free(durations);
	if (has_start && has_end && end_time >= start_time) builder_time_range(B, start_time, end_time);
	if (n_cut)
		warn_at(fname, 0, "%llu sample%s of more than %u frames: cut to the %u innermost under [truncated] (--max-frames)",
			(unsigned long long)n_cut, n_cut == 1 ? "" : "s", opt_max_frames, opt_max_frames);
}

/* its options, for getopt_long and the registry (readers/registry.h) */
const struct option safari_longopts[] = {
	CLI_OUT_LONGOPTS,
	{ "samples", no_argument, 0, 's' },
	{ "max-frames", required_argument, 0, 'f' + 256 },
	CLI_STD_LONGOPTS,
	{ 0, 0, 0, 0 }
};
const char safari_shortopts[] = "o:zshV";

/* the converter safari2spaa: argv as it gets it (argv[0] its name); the
 * exit status (readers/readers.h) */
int safari_read(int argc, char **argv)
{
	const char *outpath = NULL;
	bool zstd = false;
	int c;
	while ((c = getopt_long(argc, argv, safari_shortopts, safari_longopts, NULL)) != -1) {
		switch (c) {
		CLI_OUT_CASES(outpath, zstd);
		case 's': opt_samples = true; break;
		case 'f' + 256: opt_max_frames = (uint32_t)opt_range("--max-frames", optarg, 1, 1000000); break;
		CLI_STD_CASES(help_text);
		}
	}
	const char *file = optind < argc ? argv[optind] : "-";
	several_inputs(argv + optind, argc - optind, &file, &outpath, &zstd);
	input *in = input_open(file);
	sniff_refuse_other(in, "safari2spaa", "a Safari timeline recording");
	fname = input_name(in);
	B = builder_new();
	builder_source_tool(B, "safari");
	json_doc_init(&doc);
	jscan r;
	jscan_init(&r, in, fname);
	read_file(&r);
	pair_up();
	reader_finish(B, outpath, zstd);
	jscan_free(&r);
	input_close(in);
	return 0;
}
