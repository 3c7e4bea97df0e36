/* any2spaa - convert any profile this toolbox reads to SPAA.
 *
 * The format is recognised by content (common/sniff.c: the recognisers the
 * filters use to say "this is X, not SPAA: run Y") and the converter that
 * reads it runs with its defaults, in this process: each converter's own
 * main is linked in under another name (cmd/linked/NAME.c compiles
 * cmd/NAME.c with main renamed NAME_main), as fuzz/fuzz_cmd.c runs them.
 * Nothing is executed from the PATH, and any2spaa converts exactly as the
 * converter does, byte for byte.  Several FILEs: each is converted in a
 * child process (common/several.c) and the results are merged as
 * "spaa-cat --merge" merges them.  See any2spaa(1). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "cat.h"
#include "cli.h"
#include "input.h"
#include "output.h"
#include "several.h"
#include "sniff.h"

int perf2spaa_main(int argc, char **argv);
int dtrace2spaa_main(int argc, char **argv);
int bpftrace2spaa_main(int argc, char **argv);
int folded2spaa_main(int argc, char **argv);
int chrome2spaa_main(int argc, char **argv);
int pprof2spaa_main(int argc, char **argv);
int heaptrack2spaa_main(int argc, char **argv);
int spall2spaa_main(int argc, char **argv);
int spx2spaa_main(int argc, char **argv);
int afperf2spaa_main(int argc, char **argv);
int speedscope2spaa_main(int argc, char **argv);
int stackprof2spaa_main(int argc, char **argv);
int valgrind2spaa_main(int argc, char **argv);
int gecko2spaa_main(int argc, char **argv);
int instruments2spaa_main(int argc, char **argv);
int pmcstat2spaa_main(int argc, char **argv);
int v8log2spaa_main(int argc, char **argv);
int ghcprof2spaa_main(int argc, char **argv);
int safari2spaa_main(int argc, char **argv);
int pstats2spaa_main(int argc, char **argv);
int jfr2spaa_main(int argc, char **argv);

static const struct {
	const char *name;
	int (*main)(int, char **);
} converters[] = {
	{ "perf2spaa", perf2spaa_main },
	{ "dtrace2spaa", dtrace2spaa_main },
	{ "bpftrace2spaa", bpftrace2spaa_main },
	{ "folded2spaa", folded2spaa_main },
	{ "chrome2spaa", chrome2spaa_main },
	{ "pprof2spaa", pprof2spaa_main },
	{ "heaptrack2spaa", heaptrack2spaa_main },
	{ "spall2spaa", spall2spaa_main },
	{ "spx2spaa", spx2spaa_main },
	{ "afperf2spaa", afperf2spaa_main },
	{ "speedscope2spaa", speedscope2spaa_main },
	{ "stackprof2spaa", stackprof2spaa_main },
	{ "valgrind2spaa", valgrind2spaa_main },
	{ "gecko2spaa", gecko2spaa_main },
	{ "instruments2spaa", instruments2spaa_main },
	{ "pmcstat2spaa", pmcstat2spaa_main },
	{ "v8log2spaa", v8log2spaa_main },
	{ "ghcprof2spaa", ghcprof2spaa_main },
	{ "safari2spaa", safari2spaa_main },
	{ "pstats2spaa", pstats2spaa_main },
	{ "jfr2spaa", jfr2spaa_main },
};

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
	"      --format=NAME    read every FILE as NAME (see above)\n"
	"      --verbose        say on standard error which format each FILE is\n"
	"                       and which converter reads it\n"
	CLI_HELP_TAIL;

static int (*converter_main(const char *name))(int, char **)
{
	for (size_t i = 0; i < sizeof converters / sizeof *converters; i++)
		if (strcmp(converters[i].name, name) == 0) return converters[i].main;
	return NULL;
}

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

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	static const struct option longopts[] = {
		{ "format", required_argument, 0, 'F' + 256 },
		{ "verbose", no_argument, 0, 'v' + 256 },
		CLI_OUT_LONGOPTS,
		CLI_STD_LONGOPTS,
		{ 0, 0, 0, 0 }
	};
	const char *outpath = NULL;
	const sniff_format *forced = NULL;
	bool zstd = false, verbose = false;
	int c;
	while ((c = getopt_long(argc, argv, "o:zhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'F' + 256:
			forced = sniff_format_named(optarg);
			if (!forced) usage_error("--format: unknown format '%s' (any2spaa --help lists them)", optarg);
			break;
		case 'v' + 256: verbose = true; break;
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
	if (!f->cmd) { /* SPAA: copied, checked by the reader as it goes */
		output *o = output_open(outpath, zstd);
		spaa_cat(&path, &name, 1, false, NULL, o);
		output_close(o);
		return EXIT_OK;
	}
	char *args[8];
	int n = 0;
	args[n++] = (char *)f->cmd;
	if (f->opt) args[n++] = (char *)f->opt;
	if (outpath) args[n++] = "-o", args[n++] = (char *)outpath;
	if (zstd) args[n++] = "-z";
	args[n++] = "--";
	args[n++] = path;
	args[n] = NULL;
	optind = 0; /* glibc: getopt starts afresh for the converter */
	return converter_main(f->cmd)(n, args);
}
