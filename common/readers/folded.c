/* folded2spaa - folded stacks ("root;...;leaf COUNT") to SPAA.
 *
 * Each line is split at its last run of blanks: the count after it, the
 * ';'-separated frames (root first) before it.  Every distinct name becomes
 * one frame of a single "[unknown]" dso; identical stacks are summed by the
 * builder (build.h), which writes the SPAA file with content-addressed ids.
 * With --addrs, frames that are hex addresses become unresolved frames with
 * that ip (in --binary's dso), for spaa-symbolize. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "readers.h"
#include "build.h"
#include "reader.h"
#include "cli.h"
#include "folded.h"
#include "input.h"
#include "num.h"
#include "output.h"
#include "sniff.h"
#include "strmap.h"
#include "spaa.h"

static const char help[] =
"Usage: folded2spaa [OPTION]... [FILE]...\n"
"Convert folded stacks (\"root;...;leaf COUNT\" lines, as made by the FlameGraph\n"
"stackcollapse scripts, inferno and spaa-fold) to a SPAA profile.  Several FILEs\n"
"are read as one profile (identical stacks summed).  With no FILE, or when FILE\n"
"is -, read standard input (zstd and gzip allowed).  Blank lines and lines\n"
"starting with '#' are skipped; counts may be integers (exact, signed 64-bit\n"
"or up to 18446744073709551615) or decimals, negative too (memory that is\n"
"given back).\n"
"\n"
"Each line is read as flamegraph.pl does: the count is the last word, the\n"
"frames everything before the blank before it.  A line without a count or\n"
"frames, a file with two counts on every line (the differential form), and\n"
"counts beyond 64 bits (below -9223372036854775808, above\n"
"18446744073709551615) or sums beyond them are errors.\n"
"\n"
"      --event=NAME     event name (default: cpu)\n"
"      --kind=KIND      event kind: hardware, software (default), allocation,\n"
"                       deallocation, timer or probe\n"
"  -m, --metric=NAME    metric of the counts (default: samples)\n"
"  -u, --unit=UNIT      unit of that metric (default: none)\n"
"      --addrs          frames that are hex addresses (0x401a2b) are addresses\n"
"                       to resolve (spaa-symbolize): frames with that ip and no\n"
"                       name; those at 0xffff800000000000 and above are kernel\n"
"                       frames ([kernel.kallsyms])\n"
"      --binary=PATH    with --addrs: the ELF file of the user-space addresses\n"
"      --pid=N          the process the stacks come from (context pid N)\n"
CLI_HELP_TAIL;

static const char *const kinds[] = { "hardware", "software", "allocation", "deallocation",
				     "timer", "probe", NULL };

/* The paths met (the text before the count) -> their stack: a line seen
 * before costs one lookup. */
static strmap paths;
static uint32_t *path_stack, path_cap;

/* --addrs, --binary, --pid */
static struct {
	bool on, has_pid;
	int64_t pid;
	uint32_t user_dso, kernel_dso;
	bool user_known;
} A;

/* "0x" and 1 to 16 hex digits: an address. */
static bool hex_addr(const char *p, size_t n, uint64_t *v)
{
	if (n < 3 || n > 18 || p[0] != '0' || (p[1] != 'x' && p[1] != 'X')) return false;
	uint64_t x = 0;
	for (size_t i = 2; i < n; i++) {
		char c = p[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0) return false;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return true;
}

/* With --addrs, a frame that is an address: its ip, no name, its dso. */
static void addr_frame(builder *b, builder_frame *f, char *ipbuf)
{
	uint64_t v;
	if (!A.on || !hex_addr(f->func.p, f->func.n, &v)) return;
	f->ip = (sstr){ ipbuf, fmt_hex(ipbuf, v, 1) };
	f->func = f->ip;
	f->func_resolved = false;
	if (v >= 0xffff800000000000ULL) {
		if (A.kernel_dso == UINT32_MAX) A.kernel_dso = builder_dso(b, "[kernel.kallsyms]", 17, true);
		f->dso = A.kernel_dso;
		f->kind = FK_KERNEL;
	} else if (A.user_known) {
		f->dso = A.user_dso;
		f->kind = FK_USER;
	}
}

/* Converts one input into the builder. */
static void read_folded(builder *b, const char *path, uint32_t ev, uint32_t metric,
			uint32_t dso, uint64_t *lines_read, uint64_t *stack_lines)
{
	input *in = input_open(path);
	const char *name = input_name(in);
	sniff_refuse_other(in, "folded2spaa", "folded stacks");
	uint32_t *fr = NULL, nfr = 0, frcap = 0;
	uint64_t nlines = 0, ntwo = 0, two_line = 0; /* lines, lines with two counts */
	uint64_t nread = 0; /* all lines, blank and comments too */
	char *line;
	size_t len;
	bool nl = true;
	for (;;) {
		uint64_t at = input_offset(in);
		if (!(line = input_line(in, &len))) break;
		/* every tool that writes folded stacks ends each line with a
		 * newline: a last line without one is a file cut short, its
		 * count perhaps cut too ("1" of "14") */
		nl = input_offset(in) - at > len;
		uint64_t ln = input_lineno(in);
		nread++;
		folded_line fl;
		int pc = folded_split(line, len, &fl);
		if (pc == FOLDED_SKIP) continue;
		if (pc == FOLDED_NONE)
			die_at(name, ln, "no count at the end of the line (expected \"frame;frame;... COUNT\")");
		if (pc == FOLDED_RANGE)
			die_at(name, ln, "count %.*s out of range (-9223372036854775808 to 18446744073709551615)",
			       (int)fl.count_n, line + fl.count_at);
		num v = fl.count;
		size_t se = fl.path_n;
		/* a last word that is a number belongs to the path ("foo 12 1"
		 * is frame "foo 12", count 1), unless every line has two counts:
		 * then it is the differential form (checked at the end) */
		nlines++;
		if (fl.two) {
			if (!ntwo) two_line = ln;
			ntwo++;
		}
		/* a path met before: its stack, no frame interned again */
		bool fresh;
		uint32_t pi = strmap_intern(&paths, line, se, &fresh);
		if (!fresh) {
			builder_where(b, name, ln);
			builder_add(b, path_stack[pi], &metric, &v, 1);
			continue;
		}
		/* frames, root first in the text; the builder wants leaf first */
		nfr = 0;
		size_t i = 0;
		while (i < se) {
			size_t j = i;
			while (j < se && line[j] != ';') j++;
			builder_frame f = { 0 };
			f.func = (sstr){ line + i, j - i };
			f.dso = dso;
			f.kind = FK_UNKNOWN;
			f.func_resolved = true;
			f.inline_depth = -1;
			char ipbuf[24];
			addr_frame(b, &f, ipbuf);
			*VEC_PUSH(fr, nfr, frcap) = builder_frame_add(b, &f);
			if (j == se) break;
			i = j + 1;
			if (i == se) { /* trailing ';': an empty leaf name */
				f.func = (sstr){ line + i, 0 };
				*VEC_PUSH(fr, nfr, frcap) = builder_frame_add(b, &f);
			}
		}
		for (uint32_t a = 0, z = nfr ? nfr - 1 : 0; a < z; a++, z--) {
			uint32_t t = fr[a];
			fr[a] = fr[z];
			fr[z] = t;
		}
		builder_ctx c = { 0 };
		c.event = ev;
		c.has_pid = A.has_pid;
		c.pid = A.pid;
		builder_where(b, name, ln);
		grow_array((void **)&path_stack, &path_cap, pi + 1, sizeof *path_stack);
		path_stack[pi] = builder_stack(b, &c, fr, nfr, &metric, &v, 1);
	}
	if (!nl) die_cut_line(name, input_lineno(in));
	*lines_read += nread;
	*stack_lines += nlines;
	if (nlines > 0 && ntwo == nlines)
		die_at(name, two_line, "two counts on every line: differential folded stacks "
		       "(\"stack COUNT1 COUNT2\") are not a profile; convert each side separately");
	builder_where(b, NULL, 0);
	free(fr);
	input_close(in);
}

/* its options, for getopt_long and the registry (readers/registry.h) */
const struct option folded_longopts[] = {
	{ "event", required_argument, 0, 'e' },
	{ "kind", required_argument, 0, 'k' },
	{ "metric", required_argument, 0, 'm' },
	{ "unit", required_argument, 0, 'u' },
	{ "addrs", no_argument, 0, 'A' },
	{ "binary", required_argument, 0, 'B' },
	{ "pid", required_argument, 0, 'P' },
	CLI_OUT_LONGOPTS,
	CLI_STD_LONGOPTS,
	{ 0, 0, 0, 0 }
};
const char folded_shortopts[] = "m:u:o:zhV";

/* the converter folded2spaa: argv as it gets it (argv[0] its name); the
 * exit status (readers/readers.h) */
int folded_read(int argc, char **argv)
{
	const char *event = "cpu", *kind = "software", *metric = "samples", *unit = NULL;
	const char *outpath = NULL, *binary = NULL;
	bool zstd = false;
	int c;
	while ((c = getopt_long(argc, argv, folded_shortopts, folded_longopts, NULL)) != -1) {
		switch (c) {
		case 'e': event = optarg; break;
		case 'k': kind = optarg; break;
		case 'm': metric = optarg; break;
		case 'u': unit = optarg; break;
		case 'A': A.on = true; break;
		case 'B': binary = optarg; break;
		case 'P':
			A.has_pid = true;
			A.pid = opt_i64("--pid", optarg);
			if (A.pid < 0) usage_error("--pid: '%s' is not a process id", optarg);
			break;
		CLI_OUT_CASES(outpath, zstd);
		CLI_STD_CASES(help);
		}
	}
	bool kind_ok = false;
	for (int i = 0; kinds[i]; i++) kind_ok |= strcmp(kind, kinds[i]) == 0;
	if (!kind_ok)
		usage_error("--kind: unknown kind '%s' (hardware, software, allocation, "
			    "deallocation, timer or probe)", kind);
	if (!*event) usage_error("--event: empty name");
	if (!*metric) usage_error("--metric: empty name");
	if (binary && !A.on) usage_error("--binary needs --addrs");
	if (binary && !*binary) usage_error("--binary: empty path");

	builder *b = builder_new();
	builder_source_tool(b, "folded");
	/* counts of CPU-like events are samples at some frequency; the
	 * others count occurrences */
	bool freq = !strcmp(kind, "hardware") || !strcmp(kind, "software") || !strcmp(kind, "timer");
	uint32_t ev = builder_event(b, event, kind, freq ? "frequency" : "event", metric, NULL);
	uint32_t m = builder_metric(b, metric, unit);
	uint32_t dso = builder_dso(b, "[unknown]", 9, false);
	A.kernel_dso = UINT32_MAX;
	if (binary) {
		A.user_dso = builder_dso(b, binary, strlen(binary), false);
		A.user_known = true;
	}
	int nstdin = 0;
	for (int i = optind; i < argc; i++) nstdin += strcmp(argv[i], "-") == 0;
	if (nstdin > 1) usage_error("standard input (-) can be read only once");
	uint64_t nread = 0, nstacks = 0;
	if (optind == argc) read_folded(b, "-", ev, m, dso, &nread, &nstacks);
	for (int i = optind; i < argc; i++) read_folded(b, argv[i], ev, m, dso, &nread, &nstacks);
	/* nothing to write: the converters' two messages */
	const char *what = optind == argc ? "-" : argc - optind == 1 ? argv[optind] : "the inputs";
	/* only comments and blank lines: empty too, as spaa(7) says */
	if (nread == 0 || nstacks == 0) die_empty_input(what);

	reader_finish(b, outpath, zstd);
	return EXIT_OK;
}
