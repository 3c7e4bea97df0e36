/* spx2spaa - convert an SPX (PHP profiler) full report to SPAA.
 *
 * A report is two files: NAME.json (metadata: host, command, enabled
 * metrics, ...) and NAME.txt.gz (events: "[events]", one "FUNC 1|0 VALUE..."
 * line per function entry/exit, then "[functions]", one name per line).
 * Every call is a span (common/formats/spans.h); each distinct call path becomes one
 * stack weighted by the SELF cost of that path for every enabled metric, plus
 * "calls".  The function names come after the events, so the events are read
 * twice: once for the names, once to convert (standard input, a pipe or a
 * FIFO is copied to a temporary file for that, input_rereadable). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "readers.h"
#include "build.h"
#include "reader.h"
#include "cli.h"
#include "several.h"
#include "jsonbuf.h"
#include "input.h"
#include "json.h"
#include "output.h"
#include "spans.h"

static const char help_text[] =
	"Usage: spx2spaa [OPTION]... [FILE]...\n"
	"Convert an SPX (PHP profiler) full report to SPAA.  FILE is the report's\n"
	".json metadata or its .txt.gz events file; the other one is found beside it.\n"
	"With --metadata, FILE (or standard input, with no FILE or -) is the\n"
	"events file.  gzip and zstd input is decompressed.\n"
	"\n"
	"Each call path becomes one stack weighted by its self cost for every\n"
	"enabled SPX metric (wt, ct, zm, ... in the file's order; times in\n"
	"nanoseconds, memory in bytes, the rest counts) and by its calls.\n"
	"\n"
	"      --metadata=FILE  the report's .json metadata (events from FILE or\n"
	"                       standard input)\n"
	"  -s, --samples        also write one sample record per call (start time,\n"
	"                       x_dur_ns); needs the wt metric\n"
	"      --strict         treat damaged input (an exit with no entry, a bad\n"
	"                       line) as an error\n"
	"      --max-depth=N    the deepest nesting of calls (default 4096): deeper\n"
	"                       is an error, since output grows with depth squared\n"
	CLI_HELP_TAIL;

/* ---- diagnostics ------------------------------------------------------------ */

#define MAX_WARNINGS 50

static const char *fname;       /* the events file, for messages */
static bool strict;
static uint64_t nproblems;

static void problem(uint64_t line, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(uint64_t line, const char *fmt, ...)
{
	char msg[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	nproblems++;
	if (strict) die_at(fname, line, "%s", msg);
	if (nproblems > MAX_WARNINGS) return;
	warn_at(fname, line, "%s", msg);
	if (nproblems == MAX_WARNINGS) warn_at(fname, 0, "further warnings not shown");
}

static bool finishing;          /* unclosed calls were reported already */

static void spans_problem(void *arg, uint64_t pos, const char *msg)
{
	(void)arg;
	if (finishing && strncmp(msg, "span never ends", 15) == 0) return;
	problem(pos, "%s", msg);
}

static uint32_t opt_max_depth; /* --max-depth (0: the default) */

static void spans_fatal(void *arg, uint64_t pos, const char *msg)
{
	(void)arg;
	die_at(fname, pos, "%s", msg);
}

/* ---- SPX metrics -------------------------------------------------------------
 * SPX's own keys, in its internal order (the order of the value columns). */
static const struct spx_metric { const char *key, *unit; } spx_metrics[] = {
	{ "wt", "nanoseconds" },  { "ct", "nanoseconds" }, { "it", "nanoseconds" },
	{ "zm", "bytes" },        { "zmac", "count" },     { "zmab", "bytes" },
	{ "zmfc", "count" },      { "zmfb", "bytes" },     { "zgr", "count" },
	{ "zgb", "count" },       { "zgc", "count" },      { "zif", "count" },
	{ "zil", "count" },       { "zuc", "count" },      { "zuf", "count" },
	{ "zuo", "count" },       { "zo", "count" },       { "ze", "count" },
	{ "mor", "bytes" },       { "io", "bytes" },       { "ior", "bytes" },
	{ "iow", "bytes" },
};

static const char *metric_unit(const char *key, size_t n)
{
	for (size_t i = 0; i < sizeof spx_metrics / sizeof *spx_metrics; i++)
		if (strlen(spx_metrics[i].key) == n && memcmp(spx_metrics[i].key, key, n) == 0)
			return spx_metrics[i].unit;
	return NULL; /* a key this version does not know: no unit */
}

/* ---- the metadata (.json) ------------------------------------------------------ */

static json_doc meta;
static sbuf meta_text;
static const char *meta_path;
static uint32_t ncols;          /* value columns = enabled metrics */
static char *col_name[SPANS_MAX_METRICS];

static uint64_t line_of(const char *p, size_t off)
{
	uint64_t line = 1;
	for (size_t i = 0; i < off; i++) line += p[i] == '\n';
	return line;
}

static void read_metadata(const char *path)
{
	input *in = input_open(path);
	char buf[65536];
	size_t n;
	while ((n = input_read(in, buf, sizeof buf)) > 0) {
		sbuf_add(&meta_text, buf, n);
		if (meta_text.n > (64u << 20)) die_at(path, 0, "metadata larger than 64 MiB: not an SPX report's .json");
	}
	input_close(in);
	json_doc_init(&meta);
	if (meta_text.n == 0) die_at(path, 0, "empty metadata file");
	if (json_parse(&meta, meta_text.p, meta_text.n) != 0)
		die_at(path, line_of(meta_text.p, meta.err_pos), "bad JSON in the metadata: %s", meta.err_msg);
	if (meta.nodes[0].type != JSON_OBJECT) die_at(path, 1, "the metadata is not a JSON object");
	/* the keys read (json_get takes the first of a key, JSON.parse the last) */
	static const char *const keys[] = { "enabled_metrics", "cli", "cli_command_line", "host_name", "key",
					    "exec_ts", "process_pid", "process_tid", "wall_time_ms" };
	uint32_t v[sizeof keys / sizeof *keys];
	int dup = json_get_keys_once(&meta, 0, keys, sizeof keys / sizeof *keys, v);
	if (dup >= 0) die_at(path, 0, "\"%s\" given twice in the metadata", keys[dup]);
	uint32_t k = json_get(&meta, 0, "enabled_metrics");
	if (!k || meta.nodes[k].type != JSON_ARRAY)
		die_at(path, 0, "no \"enabled_metrics\" array: not the metadata of an SPX full report");
	if (meta.nodes[k].count >= SPANS_MAX_METRICS)
		die_at(path, 0, "%u enabled metrics: at most %d are supported", meta.nodes[k].count,
		       SPANS_MAX_METRICS - 1);
	uint32_t c = json_first(&meta, k);
	for (uint32_t i = 0; i < meta.nodes[k].count; i++, c = json_after(&meta, c)) {
		const json_node *x = &meta.nodes[c];
		if (x->type != JSON_STRING || x->count == 0)
			die_at(path, 0, "enabled_metrics[%u] is not a metric key", i);
		for (uint32_t j = 0; j < ncols; j++)
			if (strlen(col_name[j]) == x->count && memcmp(col_name[j], x->str, x->count) == 0)
				die_at(path, 0, "metric %s enabled twice", col_name[j]);
		if (x->count == 5 && memcmp(x->str, "calls", 5) == 0)
			die_at(path, 0, "a metric named \"calls\" clashes with the call count");
		col_name[ncols++] = xmemdup(x->str, x->count);
	}
}

/* Member key of the metadata as a string (NULL if absent or not a string). */
static const json_node *meta_str(const char *key)
{
	uint32_t k = json_get(&meta, 0, key);
	return k && meta.nodes[k].type == JSON_STRING ? &meta.nodes[k] : NULL;
}

static bool meta_int(const char *key, int64_t *v)
{
	uint32_t k = json_get(&meta, 0, key);
	return k && json_int64(&meta, k, v);
}

/* ---- finding the two files ------------------------------------------------------ */

static bool ends_with(const char *s, const char *suf, size_t *stem)
{
	size_t n = strlen(s), m = strlen(suf);
	if (n <= m || strcmp(s + n - m, suf) != 0) return false;
	*stem = n - m;
	return true;
}

static char *with_suffix(const char *s, size_t stem, const char *suf)
{
	size_t m = strlen(suf);
	char *r = xmalloc(stem + m + 1);
	memcpy(r, s, stem);
	memcpy(r + stem, suf, m + 1);
	return r;
}

static const char *const events_suffixes[] = { ".txt.gz", ".txt.zst", ".txt" };

/* Sets meta_path and returns the events path ("-": stdin). */
static const char *locate(const char *arg, const char *opt_meta)
{
	size_t stem;
	if (opt_meta) {
		meta_path = opt_meta;
		return arg ? arg : "-";
	}
	if (!arg || strcmp(arg, "-") == 0)
		usage_error("reading the events from standard input needs --metadata FILE");
	if (ends_with(arg, ".json", &stem)) {
		meta_path = arg;
		for (size_t i = 0; i < sizeof events_suffixes / sizeof *events_suffixes; i++) {
			char *e = with_suffix(arg, stem, events_suffixes[i]);
			if (access(e, F_OK) == 0) return e;
			free(e);
		}
		die(EXIT_DATA, "%s: no events file beside it (%.*s.txt.gz)", arg, (int)stem, arg);
	}
	for (size_t i = 0; i < sizeof events_suffixes / sizeof *events_suffixes; i++) {
		if (ends_with(arg, events_suffixes[i], &stem)) {
			meta_path = with_suffix(arg, stem, ".json");
			return arg;
		}
	}
	die(EXIT_DATA, "%s: not named like an SPX report (NAME.json or NAME.txt.gz); give its metadata with --metadata",
	    arg);
}

/* ---- pass 1: the function names -------------------------------------------------- */

static char **func_name;
static size_t *func_len;
static uint32_t nfuncs, funcs_cap;
static bool have_functions;     /* a [functions] line was seen */

/* Reads every line of in; collects the names after "[functions]".  A whole
 * events file begins with [events], has a [functions] section and ends with
 * a newline, its compressed data sound: anything else is a file cut short
 * (or not an events file), an error. */
static void read_names(input *in)
{
	char *line;
	size_t n;
	bool nl = true;
	uint64_t at = input_offset(in);
	while ((line = input_line(in, &n)) != NULL) {
		nl = input_offset(in) - at > n;
		at = input_offset(in);
		if (n && line[n - 1] == '\r') line[--n] = 0;
		if (input_lineno(in) == 1 && strcmp(line, "[events]") != 0)
			die_at(fname, 1, "not an SPX events file (the first line is not [events])");
		if (have_functions) {
			grow_array((void **)&func_name, &funcs_cap, nfuncs + 1, sizeof *func_name);
			func_len = xrealloc(func_len, (size_t)funcs_cap * sizeof *func_len);
			func_name[nfuncs] = xmemdup(line, n);
			func_len[nfuncs++] = n;
		} else if (n == 11 && memcmp(line, "[functions]", 11) == 0) {
			have_functions = true;
		}
	}
	uint64_t last = input_lineno(in);
	const char *damage = input_damage(in);
	if (damage)
		die_at(fname, last + 1, "%s compressed data after line %llu: the file is cut short", damage,
		       (unsigned long long)last);
	if (last == 0) die_empty_input(fname);
	if (!nl) die_cut_line(fname, last);
	if (!have_functions)
		die_at(fname, last + 1, "no [functions] section: the file is cut short (a whole report ends with the "
		       "function names)");
}

/* ---- pass 2: the events ------------------------------------------------------------ */

static builder *B;
static spans *S;
static uint32_t thr;
static uint32_t *frame_of;      /* function index -> frame + 1 (0: not yet) */
static uint32_t frame_cap;
static bool opt_samples;
/* The open calls (as spans has them), for messages: frame and line. */
static struct open_call { uint32_t frame; uint64_t line; } *open_calls;
static uint32_t nopen, open_cap;

static const char **frame_name; /* frame -> function name (messages) */
static uint32_t frame_name_cap;

static const char *frame_label(uint32_t frame)
{
	return frame < frame_name_cap && frame_name[frame] ? frame_name[frame] : "an unknown function";
}

static void name_frame(uint32_t frame, const char *name)
{
	if (frame >= frame_name_cap) {
		uint32_t old = frame_name_cap;
		grow_array((void **)&frame_name, &frame_name_cap, frame + 1, sizeof *frame_name);
		memset(frame_name + old, 0, (frame_name_cap - old) * sizeof *frame_name);
	}
	if (!frame_name[frame]) frame_name[frame] = name;
}

static uint32_t func_frame(uint64_t idx, uint64_t line)
{
	if (idx < nfuncs) {
		if (idx >= frame_cap) {
			uint32_t old = frame_cap;
			grow_array((void **)&frame_of, &frame_cap, (uint32_t)idx + 1, sizeof *frame_of);
			memset(frame_of + old, 0, (frame_cap - old) * sizeof *frame_of);
		}
		if (!frame_of[idx]) {
			frame_of[idx] = spans_frame(S, func_name[idx], func_len[idx], NULL) + 1;
			name_frame(frame_of[idx] - 1, func_name[idx]);
		}
		return frame_of[idx] - 1;
	}
	die_at(fname, line, "function index %llu is not in the [functions] list (%u name%s): the list is cut short, "
	       "or the index is wrong", (unsigned long long)idx, nfuncs, nfuncs == 1 ? "" : "s");
}

/* One value as SPX writes it: an integer, or a decimal with up to 4 digits
 * after the point (rounded to the nearest integer, halves away from zero:
 * SPX writes -1024 as -1023.9999).  *pp is advanced past it. */
static bool parse_value(const char **pp, int64_t *out)
{
	const char *p = *pp, *start = p;
	bool neg = false;
	if (*p == '-') {
		neg = true;
		p++;
	}
	uint64_t v = 0;
	bool digits = false;
	while (*p >= '0' && *p <= '9') {
		if (v > (UINT64_MAX - 9) / 10) return false;
		v = v * 10 + (uint64_t)(*p++ - '0');
		digits = true;
	}
	if (*p == '.') {
		p++;
		bool up = *p >= '5' && *p <= '9';
		while (*p >= '0' && *p <= '9') {
			p++;
			digits = true;
		}
		v += up;
	}
	if (*p == 'e' || *p == 'E') {
		/* not SPX's spelling, but a number all the same */
		char *end;
		errno = 0;
		double d = strtod(start, &end);
		if (end == start || errno || !isfinite(d) || fabs(d) >= 9.2e18) return false;
		*out = llround(d);
		*pp = end;
		return *end == ' ' || *end == 0;
	}
	if (!digits || (*p != ' ' && *p != 0)) return false;
	if (neg ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX) return false;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	*pp = p;
	return true;
}

/* Spans metric k reads value column scol[k] (-1: the constant 0 time when
 * wt is not recorded); offset_ns is added to spans metric 0. */
static int32_t scol[SPANS_MAX_METRICS];
static uint64_t nentries;       /* entry events read */
static uint32_t nsm;
static int64_t offset_ns;

static void convert_events(input *in)
{
	char *line;
	size_t n;
	int64_t col[SPANS_MAX_METRICS], sv[SPANS_MAX_METRICS];
	uint64_t last_line = 0, nread = 0, nbad = 0;
	line = input_line(in, &n);
	if (!line) die_at(fname, 0, "the input changed between its two readings");
	bool at_functions = false;
	while ((line = input_line(in, &n)) != NULL) {
		uint64_t ln = input_lineno(in);
		last_line = ln;
		if (n && line[n - 1] == '\r') line[--n] = 0;
		if (line[0] == '[') {
			if (strcmp(line, "[functions]") == 0) {
				at_functions = true;
				break;
			}
			problem(ln, "unknown section %s; ignored up to [functions]", line);
			continue;
		}
		/* FUNC FLAG VALUE... */
		const char *p = line;
		uint64_t idx = 0;
		if (!(*p >= '0' && *p <= '9')) goto bad;
		while (*p >= '0' && *p <= '9') {
			if (idx > UINT32_MAX) goto bad;
			idx = idx * 10 + (uint64_t)(*p++ - '0');
		}
		if (idx > UINT32_MAX || *p++ != ' ') goto bad;
		if ((*p != '0' && *p != '1') || (p[1] != ' ' && p[1] != 0)) goto bad;
		bool entry = *p++ == '1';
		uint32_t nv = 0;
		while (*p == ' ') {
			p++;
			if (nv == ncols) {
				nv++;
				break;
			}
			if (!parse_value(&p, &col[nv])) {
				problem(ln, "bad value in column %u (%s); event ignored", nv + 3,
					col_name[nv]);
				goto next;
			}
			nv++;
		}
		if (*p != 0 && nv <= ncols) goto bad;
		if (nv != ncols) {
			problem(ln, "%s %u value%s where the metadata enables %u metric%s; event ignored",
				nv > ncols ? "more than" : "only", nv > ncols ? ncols : nv,
				(nv > ncols ? ncols : nv) == 1 ? "" : "s", ncols, ncols == 1 ? "" : "s");
			goto next;
		}
		for (uint32_t k = 0; k < nsm; k++) sv[k] = scol[k] < 0 ? 0 : col[scol[k]];
		if (__builtin_add_overflow(sv[0], offset_ns, &sv[0])) {
			problem(ln, "time out of range; event ignored");
			goto next;
		}
		uint32_t frame = func_frame(idx, ln);
		nread++;
		if (entry) {
			nentries++;
			spans_begin(S, thr, frame, sv, NULL, 0, ln);
			*VEC_PUSH(open_calls, nopen, open_cap) = (struct open_call){ frame, ln };
		} else {
			int64_t top = spans_open_frame(S, thr);
			if (top >= 0 && (uint32_t)top != frame)
				problem(ln, "exit of %s while the open call is of %s; taken as its exit",
					frame_label(frame), frame_label((uint32_t)top));
			spans_end(S, thr, sv, ln);
			if (nopen) nopen--;
		}
		continue;
	bad:
		problem(ln, "bad event line (expected FUNCTION 0|1 and %u value%s); ignored", ncols,
			ncols == 1 ? "" : "s");
	next:
		nbad++;
	}
	if (nread == 0 && nbad > 0)
		die_at(fname, 0, "none of the %llu event lines could be read: is %s the metadata of this report?",
		       (unsigned long long)nbad, meta_path);
	const char *damage = input_damage(in);
	if (damage)
		die_at(fname, last_line + 1, "%s compressed data after line %llu: the file is cut short", damage,
		       (unsigned long long)last_line);
	if (!at_functions || !have_functions) die_at(fname, 0, "the input changed between its two readings");
	if (nopen) {
		struct open_call *oc = &open_calls[nopen - 1];
		die_at(fname, oc->line, "call of %s never returns: the events are cut short (a whole report "
		       "closes every call)", frame_label(oc->frame));
	}
	finishing = true;
	free(open_calls);
}

/* ---- header and output ---------------------------------------------------------- */

static void add_source(void)
{
	builder_source_tool(B, "spx");
	builder_source_str(B, "format", "spx-full", 8);
	int64_t cli = 0;
	const json_node *s;
	if (meta_int("cli", &cli) && cli && (s = meta_str("cli_command_line")))
		builder_source_str(B, "command", s->str, s->count);
	if ((s = meta_str("host_name"))) builder_source_str(B, "host", s->str, s->count);
	if ((s = meta_str("key"))) builder_source_str(B, "report_key", s->str, s->count);
	sbuf j = { 0 };
	jb_node(&j, &meta, 0);
	sbuf_addc(&j, 0);
	builder_source_json(B, "x_spx", j.p);
	sbuf_free(&j);
}

/* its options, for getopt_long and the registry (readers/registry.h) */
const struct option spx_longopts[] = {
	{ "metadata", required_argument, 0, 'm' },
	CLI_OUT_LONGOPTS,
	{ "samples", no_argument, 0, 's' },
	{ "strict", no_argument, 0, 'S' },
	{ "max-depth", required_argument, 0, 'D' },
	CLI_STD_LONGOPTS,
	{ 0, 0, 0, 0 }
};
const char spx_shortopts[] = "o:zshV";

/* the converter spx2spaa: argv as it gets it (argv[0] its name); the
 * exit status (readers/readers.h) */
int spx_read(int argc, char **argv)
{
	const char *outpath = NULL, *opt_meta = NULL;
	bool zstd = false;
	int c;
	while ((c = getopt_long(argc, argv, spx_shortopts, spx_longopts, NULL)) != -1) {
		switch (c) {
		case 'm': opt_meta = optarg; break;
		CLI_OUT_CASES(outpath, zstd);
		case 's': opt_samples = true; break;
		case 'S': strict = true; break;
		case 'D': opt_max_depth = spans_max_depth_arg(optarg); break;
		CLI_STD_CASES(help_text);
		}
	}
	const char *path = optind < argc ? argv[optind] : NULL;
	several_inputs(argv + optind, argc - optind, &path, &outpath, &zstd);
	const char *events = locate(path, opt_meta);
	read_metadata(meta_path);

	/* metrics: the builder's in column order, then calls; spans metric 0 is
	 * wt (or a constant when wt is not recorded) */
	int32_t wt = -1;
	for (uint32_t i = 0; i < ncols; i++)
		if (strcmp(col_name[i], "wt") == 0) wt = (int32_t)i;
	if (opt_samples && wt < 0)
		die_at(meta_path, 0, "--samples needs the wt metric (call start times), which this report does not record");
	B = builder_new();
	add_source();
	const char *primary = wt >= 0 ? "wt" : ncols ? col_name[0] : "calls";
	uint32_t ev = builder_event(B, "spx", "probe", "event", primary, NULL);
	for (uint32_t i = 0; i < ncols; i++) {
		const char *u = metric_unit(col_name[i], strlen(col_name[i]));
		builder_metric(B, col_name[i], u);
	}
	uint32_t calls = builder_metric(B, "calls", "count");
	spans_conf sc;
	memset(&sc, 0, sizeof sc);
	sc.b = B;
	sc.event = ev;
	sc.calls_midx = (int32_t)calls;
	sc.mode = SPANS_STACK;
	sc.samples = opt_samples;
	sc.report = spans_problem;
	sc.fatal = spans_fatal;
	sc.max_depth = opt_max_depth;
	nsm = 0;
	scol[nsm] = wt;
	sc.midx[nsm++] = wt >= 0 ? (uint32_t)wt : calls; /* a constant 0 adds nothing */
	for (uint32_t i = 0; i < ncols; i++) {
		if ((int32_t)i == wt) continue;
		scol[nsm] = (int32_t)i;
		sc.midx[nsm++] = i;
	}
	sc.nmetrics = nsm;
	int64_t exec_ts = 0, pid = 0, tid = 0;
	bool has_ts = meta_int("exec_ts", &exec_ts) && exec_ts >= 0 && exec_ts < INT64_MAX / 1000000000;
	if (has_ts) offset_ns = exec_ts * 1000000000;
	meta_int("process_pid", &pid);
	if (!meta_int("process_tid", &tid)) tid = pid;
	S = spans_new(&sc);
	thr = spans_thread(S, pid, tid);
	spans_thread_name(S, thr, "php", 3);

	/* read twice: what is not a regular file (standard input, a pipe, a
	 * FIFO) is copied to a file as it comes, compressed or not, and read
	 * from there as the file would be */
	fname = events;
	char *again = input_rereadable(events);
	/* pass 1: the names */
	input *in = input_open(again);
	input_keep_truncated(in);
	read_names(in);
	input_close(in);
	/* pass 2: the events */
	in = input_open(again);
	input_keep_truncated(in);
	convert_events(in);
	/* the metadata's counts, where given, are the events' (SPX counts the
	 * functions it names and the calls it records) */
	int64_t cnt;
	if (meta_int("called_function_count", &cnt) && (cnt < 0 || (uint64_t)cnt != nfuncs))
		die_at(fname, 0, "%u function names, where the metadata's called_function_count is %lld: "
		       "the file is cut short, or the metadata is another report's", nfuncs, (long long)cnt);
	if (meta_int("recorded_call_count", &cnt) && (cnt < 0 || (uint64_t)cnt != nentries))
		die_at(fname, 0, "%llu calls read, where the metadata's recorded_call_count is %lld: "
		       "the file is cut short or damaged, or the metadata is another report's",
		       (unsigned long long)nentries, (long long)cnt);
	input_close(in);
	free(again);
	spans_finish(S);
	if (wt < 0 && has_ts) {
		int64_t wall_us = 0;
		meta_int("wall_time_ms", &wall_us); /* microseconds, despite the name */
		builder_time_range(B, (double)exec_ts, (double)exec_ts + (double)wall_us / 1e6);
	}
	reader_finish(B, outpath, zstd);
	if (nproblems > MAX_WARNINGS) warn_at(fname, 0, "%llu problems in all", (unsigned long long)nproblems);
	spans_free(S);
	json_doc_free(&meta);
	sbuf_free(&meta_text);
	for (uint32_t i = 0; i < ncols; i++) free(col_name[i]);
	for (uint32_t i = 0; i < nfuncs; i++) free(func_name[i]);
	free(func_name);
	free(func_len);
	free(frame_of);
	free(frame_name);
	return EXIT_OK;
}
