/* pmcstat2spaa - FreeBSD pmcstat callgraphs (pmcstat -R FILE -G OUT) to SPAA.
 *
 * pmcstat prints, for each PMC, "@ EVENT [N samples]", then one tree per
 * function that samples landed in: its line ("20.86%  [7447]  func @ object")
 * and, one more space in, the lines of its callers, each with the samples of
 * its parent that came through it, recursively.  " @ object" is printed only
 * when the object differs from the line printed before.  The lines still open
 * form a chain from the sampled function out to a caller; when a line at the
 * same depth or above comes, the deepest is closed: a line without callers
 * gives its chain (leaf first, as SPAA wants) its samples, and a line with
 * callers gives its chain the samples no caller line accounts for (pmcstat
 * stops a chain at its depth limit or where no object maps the address), so
 * that each sampled function keeps pmcstat's count; --no-cut-chains reads
 * the file as speedscope does, which drops those.  Memory
 * holds the open chain, the frames and the distinct stacks. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readers.h"
#include "build.h"
#include "reader.h"
#include "cli.h"
#include "input.h"
#include "num.h"
#include "output.h"
#include "sniff.h"
#include "spaa.h"
#include "util.h"

static const char help[] =
"Usage: pmcstat2spaa [OPTION]... [FILE]...\n"
"Convert FreeBSD pmcstat callgraphs (pmcstat -R FILE -G OUT: \"@ EVENT [N\n"
"samples]\" and indented \"PCT%  [COUNT]  function @ object\" lines) to a SPAA\n"
"1.0 profile.  Several FILEs are read as one profile (identical stacks summed).\n"
"With no FILE, or when FILE is -, read standard input (zstd and gzip allowed).\n"
"\n"
"Each PMC is an event (metric samples); a function's callers are one space\n"
"further in.  Each sampled function keeps the samples pmcstat gives it: a\n"
"line without callers gives the stack from it to the sampled function its\n"
"samples, and a line with callers the samples none of them accounts for\n"
"(pmcstat cut that chain short, at its depth limit or at an address no object\n"
"maps).  Lines starting with '#' are skipped; other lines that are not\n"
"callgraph lines are skipped with a warning.\n"
"\n"
"      --cut-chains     pmcstat's figures (the default)\n"
"      --no-cut-chains  speedscope's reading: only the lines without callers\n"
"                       count, the samples of chains cut short are dropped\n"
CLI_HELP_TAIL;

#define MAX_DEPTH 4096  /* callers in a chain */
#define MAX_WARN 5      /* ignored lines told one by one */

struct level {
	uint32_t frame;
	uint64_t count, callers, line;
	bool has_callers;
};

static struct {
	builder *b;
	const char *fname;
	bool cut_chains;
	uint32_t metric, unknown_dso;
	/* the current event */
	bool have_event;
	uint32_t event;
	char *event_name;
	uint64_t header_samples, top_samples, event_line;
	/* the object named last (pmcstat prints it when it changes) */
	sbuf obj;
	bool have_obj;
	uint32_t obj_dso;
	bool obj_kernel;
	struct level *lv;
	uint32_t depth, cap;
	uint32_t *fr;
	uint32_t frcap;
	uint64_t nlines, nstacks, nignored;
} P;

/* The deepest open line is complete. */
static void close_top(uint64_t ln)
{
	struct level *l = &P.lv[P.depth - 1];
	uint64_t w = l->count;
	if (l->has_callers) {
		if (l->callers > l->count)
			die_at(P.fname, ln, "the callers of the function of line %llu count %llu samples, "
			       "more than its %llu", (unsigned long long)l->line, (unsigned long long)l->callers,
			       (unsigned long long)l->count);
		w = P.cut_chains ? l->count - l->callers : 0;
	}
	if (w) {
		for (uint32_t i = 0; i < P.depth; i++) P.fr[i] = P.lv[i].frame;
		builder_ctx c = { 0 };
		c.event = P.event;
		num v = num_u(w);
		builder_where(P.b, P.fname, ln);
		builder_stack(P.b, &c, P.fr, P.depth, &P.metric, &v, 1);
		P.nstacks++;
	}
	P.depth--;
	if (P.depth) {
		struct level *p = &P.lv[P.depth - 1];
		if (p->callers > UINT64_MAX - l->count)
			die_at(P.fname, ln, "caller samples add up beyond 64 bits");
		p->callers += l->count;
		p->has_callers = true;
	}
}

/* The end of an event's trees: its samples against its header's. */
static void end_event(uint64_t ln)
{
	while (P.depth) close_top(ln);
	if (P.have_event && P.top_samples != P.header_samples)
		warn_at(P.fname, P.event_line, "warning: the functions of %s count %llu samples, its header %llu "
			"(a part of pmcstat's output?)", P.event_name, (unsigned long long)P.top_samples,
			(unsigned long long)P.header_samples);
	P.top_samples = 0;
}

/* "@ EVENT [N samples]" */
static bool event_line(const char *p, size_t n, uint64_t ln)
{
	if (n < 2 || p[0] != '@' || p[1] != ' ') return false;
	const char *br = NULL;
	for (size_t i = n; i-- > 2;)
		if (p[i] == '[') { br = p + i; break; }
	static const char tail[] = " samples]";
	size_t tn = sizeof tail - 1;
	if (!br || br - p < 3 || br[-1] != ' ' || n < tn || memcmp(p + n - tn, tail, tn) != 0) return false;
	const char *num_p = br + 1;
	size_t num_n = (size_t)(p + n - tn - num_p);
	uint64_t ns;
	if (!num_n || !parse_u64(num_p, num_n, &ns)) return false;
	end_event(ln);
	size_t s = 2, e = (size_t)(br - 1 - p);
	while (s < e && c_blank(p[s])) s++;
	while (e > s && c_blank(p[e - 1])) e--;
	if (s == e) die_at(P.fname, ln, "an event header without an event name");
	free(P.event_name);
	P.event_name = xmemdup(p + s, e - s);
	P.event = builder_event(P.b, P.event_name, "hardware", "period", "samples", NULL);
	P.have_event = true;
	P.header_samples = ns;
	P.event_line = ln;
	P.have_obj = false;
	return true;
}

/* An object "/boot/kernel/zfs.ko": its dso. */
static void set_object(const char *p, size_t n)
{
	if (P.have_obj && P.obj.n == n && memcmp(P.obj.p, p, n) == 0) return;
	P.obj.n = 0;
	sbuf_add(&P.obj, p, n);
	P.have_obj = true;
	/* the kernel and its modules live in /boot */
	P.obj_kernel = n > 6 && memcmp(p, "/boot/", 6) == 0;
	P.obj_dso = builder_dso(P.b, p, n, P.obj_kernel);
}

/* "  100.0%  [7447]    func @ object": false when the line is not one. */
static bool graph_line(const char *p, size_t n, uint64_t ln)
{
	size_t d = 0;
	while (d < n && p[d] == ' ') d++;
	size_t i = d, k = i;
	while (i < n && (c_digit(p[i]) || p[i] == '.')) i++;
	if (i == k || i >= n || p[i] != '%') return false;
	i++;
	while (i < n && c_blank(p[i])) i++;
	if (i >= n || p[i] != '[') return false;
	k = ++i;
	while (i < n && c_digit(p[i])) i++;
	uint64_t count;
	if (i >= n || p[i] != ']' || i == k) return false;
	if (!parse_u64(p + k, i - k, &count))
		die_at(P.fname, ln, "sample count out of range: [%.*s]", (int)(i - k), p + k);
	i++;
	while (i < n && c_blank(p[i])) i++;
	if (i == n) return false;
	/* the name, up to " @ " */
	size_t ne = i, os = n;
	for (size_t j = i; j + 3 <= n; j++)
		if (p[j] == ' ' && p[j + 1] == '@' && p[j + 2] == ' ') {
			ne = j;
			os = j + 3;
			break;
		}
	if (os == n) ne = n;
	while (ne > i && c_blank(p[ne - 1])) ne--;
	if (ne == i) return false;

	if (!P.have_event)
		die_at(P.fname, ln, "a callgraph line before the first \"@ EVENT [N samples]\" line");
	if (d > P.depth)
		die_at(P.fname, ln, "indented %zu spaces under a line of depth %u: the chain skips a caller", d,
		       P.depth ? P.depth - 1 : 0);
	if (d >= MAX_DEPTH) die_at(P.fname, ln, "deeper than %d callers", MAX_DEPTH);
	while (P.depth > d) close_top(ln);
	if (os < n) {
		while (os < n && c_blank(p[os])) os++;
		if (os < n) set_object(p + os, n - os);
	}
	builder_frame f;
	memset(&f, 0, sizeof f);
	f.func = (sstr){ p + i, ne - i };
	f.func_resolved = true;
	f.inline_depth = -1;
	if (P.have_obj) {
		f.dso = P.obj_dso;
		f.kind = P.obj_kernel ? FK_KERNEL : FK_USER;
	} else {
		if (P.unknown_dso == UINT32_MAX) P.unknown_dso = builder_dso(P.b, "[unknown]", 9, false);
		f.dso = P.unknown_dso;
		f.kind = FK_UNKNOWN;
	}
	/* no symbol: pmcstat prints the address */
	if (f.func.n > 2 && f.func.p[0] == '0' && f.func.p[1] == 'x') {
		size_t h = 2;
		while (h < f.func.n && c_hex(f.func.p[h])) h++;
		if (h == f.func.n) f.func_resolved = false, f.ip = f.func;
	}
	struct level l = { builder_frame_add(P.b, &f), count, 0, ln, false };
	grow_array((void **)&P.lv, &P.cap, P.depth + 1, sizeof *P.lv);
	grow_array((void **)&P.fr, &P.frcap, P.depth + 1, sizeof *P.fr);
	P.lv[P.depth++] = l;
	if (d == 0) {
		if (P.top_samples > UINT64_MAX - count) die_at(P.fname, ln, "samples add up beyond 64 bits");
		P.top_samples += count;
	}
	P.nlines++;
	return true;
}

static void convert(input *in)
{
	P.fname = input_name(in);
	sniff_refuse_other(in, "pmcstat2spaa", "a pmcstat callgraph");
	P.have_event = false;
	P.have_obj = false;
	P.depth = 0;
	char *line;
	size_t n;
	uint64_t ln = 0;
	bool nl = true;
	for (;;) {
		uint64_t at = input_offset(in);
		if (!(line = input_line(in, &n))) break;
		/* pmcstat ends every line with a newline: a last line without
		 * one is a file cut short (a count "[4" of "[40]", a name) */
		nl = input_offset(in) - at > n;
		ln = input_lineno(in);
		while (n && (line[n - 1] == '\r' || c_blank(line[n - 1]))) n--;
		size_t i = 0;
		while (i < n && c_blank(line[i])) i++;
		if (i == n || line[i] == '#') continue;
		if (event_line(line, n, ln) || graph_line(line, n, ln)) continue;
		if (++P.nignored <= MAX_WARN)
			warn_at(P.fname, ln, "warning: not a callgraph line, ignored: '%.*s'", (int)(n > 60 ? 60 : n), line);
	}
	if (!nl) die_cut_line(P.fname, ln);
	end_event(ln);
	if (P.nignored > MAX_WARN)
		warn_at(P.fname, 0, "warning: %llu more lines ignored", (unsigned long long)(P.nignored - MAX_WARN));
	P.nignored = 0;
}

/* its options, for getopt_long and the registry (readers/registry.h) */
enum { OPT_CUT = 256, OPT_NOCUT };
const struct option pmcstat_longopts[] = {
	{ "cut-chains", no_argument, 0, OPT_CUT },
	{ "no-cut-chains", no_argument, 0, OPT_NOCUT },
	CLI_OUT_LONGOPTS,
	CLI_STD_LONGOPTS,
	{ 0, 0, 0, 0 }
};
const char pmcstat_shortopts[] = "o:zhV";

/* the converter pmcstat2spaa: argv as it gets it (argv[0] its name); the
 * exit status (readers/readers.h) */
int pmcstat_read(int argc, char **argv)
{
	/* a fresh state: the fuzz target (fuzz/fuzz_cmd.c) calls pmcstat_read again */
	memset(&P, 0, sizeof P);
	const char *outpath = NULL;
	bool zstd = false;
	int c;
	P.cut_chains = true; /* pmcstat's own figures */
	while ((c = getopt_long(argc, argv, pmcstat_shortopts, pmcstat_longopts, NULL)) != -1) {
		switch (c) {
		case OPT_CUT: P.cut_chains = true; break;
		case OPT_NOCUT: P.cut_chains = false; break;
		CLI_OUT_CASES(outpath, zstd);
		CLI_STD_CASES(help);
		}
	}
	P.b = builder_new();
	builder_source_tool(P.b, "pmcstat");
	P.metric = builder_metric(P.b, "samples", NULL);
	P.unknown_dso = UINT32_MAX;

	const char *what;
	uint64_t nlines = input_each(argv + optind, argc - optind, convert, &what);
	if (!nlines) die_empty_input(what);
	if (!P.nlines) die_no_stacks(what, "no callgraph line (\"PCT%%  [COUNT]  function @ object\")");
	if (!P.nstacks) die_no_stacks(what, "callgraph lines of 0 samples only");
	reader_finish(P.b, outpath, zstd);
	free(P.lv);
	free(P.fr);
	free(P.event_name);
	sbuf_free(&P.obj);
	return EXIT_OK;
}
