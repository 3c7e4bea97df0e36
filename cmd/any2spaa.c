/* any2spaa - convert any profile this toolbox reads to SPAA.
 *
 * The format is recognised by content (common/spaa/sniff.c: the recognisers the
 * filters use to say "this is X, not SPAA: run Y") and the converter that
 * reads it runs with its defaults, in this process: the converter's reader
 * (common/readers/, found by its name in readers/registry.h) is the code
 * the converter itself runs, from its own main.  Nothing is executed from
 * the PATH, and any2spaa converts exactly as the converter does, byte for
 * byte.  Several FILEs: each is converted in a child process
 * (common/spaa/several.c) and the results are merged as "spaa-cat --merge"
 * merges them.  See any2spaa(1). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "cat.h"
#include "cli.h"
#include "input.h"
#include "output.h"
#include "readers/registry.h"
#include "several.h"
#include "sniff.h"

static const char help_text[] =
	"Usage: any2spaa [OPTION]... [FILE]...\n"
	"Convert a profile of any format this toolbox reads to SPAA: the format\n"
	"is recognised by content, and the converter that reads it runs with its\n"
	"defaults.  Several FILEs are converted and merged as spaa-cat --merge\n"
	"merges them.  With no FILE, or when FILE is -, read standard input;\n"
	"gzip and zstd input is decompressed.\n"
	"\n"
	"Formats (NAME: what, converter):\n"
	"  perf-script      'perf script' text, perf2spaa\n"
	"  perf-data        a perf.data file, perf2spaa\n"
	"  dtrace           DTrace stack aggregations, dtrace2spaa\n"
	"  bpftrace         bpftrace's printed maps, bpftrace2spaa\n"
	"  folded           folded stacks, folded2spaa\n"
	"  chrome-trace     a Chrome trace with CPU profile events, chrome2spaa\n"
	"  cpuprofile       a V8 .cpuprofile, chrome2spaa\n"
	"  heapprofile      a V8 .heapprofile, chrome2spaa\n"
	"  heapsnapshot     a V8 .heapsnapshot or .heaptimeline, chrome2spaa\n"
	"  pprof            a pprof profile.proto, pprof2spaa\n"
	"  pprof-heap-text  a tcmalloc or jemalloc text heap profile, pprof2spaa\n"
	"  heaptrack        a heaptrack data file, heaptrack2spaa\n"
	"  trace-json       a JSON trace of spans (B/E/X events), spall2spaa\n"
	"  spall            a binary spall trace, spall2spaa\n"
	"  spx              an SPX report (.json or .txt.gz), spx2spaa\n"
	"  afperf           an AFPerf file, afperf2spaa\n"
	"  speedscope       a speedscope file, speedscope2spaa\n"
	"  stackprof        a Ruby stackprof profile (JSON), stackprof2spaa\n"
	"  massif           valgrind massif output, valgrind2spaa\n"
	"  dhat             valgrind DHAT output, valgrind2spaa\n"
	"  callgrind        valgrind callgrind output, valgrind2spaa\n"
	"  gecko            a Firefox Profiler profile (JSON), gecko2spaa\n"
	"  instruments      an Apple Instruments deep copy, instruments2spaa\n"
	"  pmcstat          a FreeBSD pmcstat callgraph (-G), pmcstat2spaa\n"
	"  v8-log           a V8 tick log (node --prof), v8log2spaa\n"
	"  v8-log-json      the JSON of node --prof-process --preprocess, v8log2spaa\n"
	"  ghc-prof         a GHC cost-centre profile (.prof, -pj JSON), ghcprof2spaa\n"
	"  safari           a Safari timeline recording (Web Inspector), safari2spaa\n"
	"  pstats           Python cProfile statistics (cProfile -o), pstats2spaa\n"
	"  jfr              a Java Flight Recorder recording (.jfr), jfr2spaa\n"
	"  spaa             SPAA itself, copied unchanged\n"
	"\n"
	"  -s, --samples        also write the sample records (each sample at its\n"
	"                       time, for spaa-window), as the converter's -s does;\n"
	"                       a format without sample times is an error\n"
	"      --format=NAME    read every FILE as NAME (see above)\n"
	"      --verbose        say on standard error which format each FILE is\n"
	"                       and which converter reads it\n"
	CLI_HELP_TAIL;

/* What file is, by content (or as forced). */
static const sniff_format *recognise(const char *path, const char *name, const sniff_format *forced)
{
	if (forced) return forced;
	input *in = input_open(path);
	const char *looks = NULL;
	const sniff_format *f = sniff_input(in, &looks);
	input_close(in);
	if (!f && looks && strcmp(looks, "empty input") == 0) die_empty_input(name);
	if (!f)
		die_at(name, 0, "not a profile any converter here reads: it looks like %s "
		       "(--format=NAME reads it as NAME; any2spaa --help lists the formats)", looks);
	return f;
}

/* Does the converter cmd take -s (--samples): has its format sample times? */
static bool takes_samples(const char *cmd)
{
	const reader_def *r = reader_named(cmd);
	for (const struct option *o = r ? r->longopts : NULL; o && o->name; o++)
		if (strcmp(o->name, "samples") == 0) return true;
	return false;
}

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	static const struct option longopts[] = {
		{ "format", required_argument, 0, 'F' + 256 },
		{ "verbose", no_argument, 0, 'v' + 256 },
		{ "samples", no_argument, 0, 's' },
		CLI_OUT_LONGOPTS,
		CLI_STD_LONGOPTS,
		{ 0, 0, 0, 0 }
	};
	const char *outpath = NULL;
	const sniff_format *forced = NULL;
	bool zstd = false, verbose = false, samples = false;
	int c;
	while ((c = getopt_long(argc, argv, "so:zhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'F' + 256:
			forced = sniff_format_named(optarg);
			if (!forced) usage_error("--format: unknown format '%s' (any2spaa --help lists them)", optarg);
			break;
		case 'v' + 256: verbose = true; break;
		case 's': samples = true; break;
		CLI_OUT_CASES(outpath, zstd);
		CLI_STD_CASES(help_text);
		}
	}
	const char *name = optind < argc ? argv[optind] : "-";
	several_inputs(argv + optind, argc - optind, &name, &outpath, &zstd);

	/* read twice, once to recognise it: what is not a regular file
	 * (standard input, a pipe, a FIFO, <(...)) is copied to a file first;
	 * as forced, the converter reads it once, as it comes */
	char *path = forced ? (char *)name : input_rereadable(name);
	const sniff_format *f = recognise(path, name, forced);
	if (verbose) warn_at(name, 0, "%s: %s", f->what, f->cmd ? f->cmd : "copied (SPAA)");
	/* spx2spaa finds the other file of the two beside the one named */
	if (f->cmd && strcmp(f->cmd, "spx2spaa") == 0 && strcmp(path, name) != 0)
		die_at(name, 0, "an SPX report read from a pipe: its events and its metadata are two files; "
		       "name the .json or .txt.gz file, or run spx2spaa --metadata=FILE");
	if (samples && f->cmd && !takes_samples(f->cmd))
		die_at(name, 0, "%s has no sample times: -s writes sample records only for the "
		       "formats whose converter takes -s (any2spaa(1) lists them)", f->what);
	if (!f->cmd) { /* SPAA: copied, checked by the reader as it goes */
		output *o = output_open(outpath, zstd);
		spaa_cat(&path, &name, 1, false, NULL, o);
		output_close(o);
		return EXIT_OK;
	}
	char *args[10];
	int n = 0;
	args[n++] = (char *)f->cmd;
	if (f->opt) args[n++] = (char *)f->opt;
	if (outpath) args[n++] = "-o", args[n++] = (char *)outpath;
	if (zstd) args[n++] = "-z";
	if (samples) args[n++] = "-s";
	args[n++] = "--";
	args[n++] = path;
	args[n] = NULL;
	optind = 0; /* glibc: getopt starts afresh for the converter */
	const reader_def *r = reader_named(f->cmd);
	if (!r) die_at(name, 0, "no reader named %s", f->cmd); /* sniff.c and the registry disagree */
	cli_init(n, args); /* its messages name the converter, as when it runs alone */
	return r->read(n, args);
}
