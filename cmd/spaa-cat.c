/* spaa-cat - concatenate SPAA files into one valid SPAA stream, or merge
 * them (the engine is common/spaa/cat.c).
 * See spaa-cat(1). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "readers/open.h"
#include "input.h"
#include "util.h"
#include <string.h>
#include "cat.h"
#include "cli.h"
#include "metric.h"
#include "output.h"

static const char help_text[] =
	"Usage: spaa-cat [OPTION]... [FILE]...\n"
	"Concatenate SPAA files (plain, zstd or gzip) into one SPAA stream.\n"
	"With no FILE, or when FILE is -, read standard input.\n"
	"\n"
	"One header is written: the first input's, with the events of all inputs\n"
	"and the widest time range.  Equal dso and frame records are shared and\n"
	"ids are renumbered where they collide.  Without --merge a stack id found\n"
	"in two inputs is an error.  A single input is copied unchanged.\n"
	"\n"
	"      --merge          sum the stacks of the same identity (content id and\n"
	"                       context) across and within the inputs; stack ids\n"
	"                       become content ids\n"
	"  -m, --metric=NAME    make NAME the primary metric of every event (needed\n"
	"                       when the inputs' primary metrics differ); pprof's,\n"
	"                       heaptrack's and V8's names too (inuse_space ...)\n"
	READERS_HELP
	CLI_HELP_TAIL;

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "merge", no_argument, 0, 'M' },
		{ "metric", required_argument, 0, 'm' },
		CLI_OUT_LONGOPTS,
		READERS_LONGOPTS,
		CLI_STD_LONGOPTS,
		{ 0, 0, 0, 0 }
	};
	const char *outpath = NULL, *metric = NULL;
	bool zstd = false, merge = false;
	int c;

	cli_init(argc, argv);
	while ((c = getopt_long(argc, argv, "m:so:zhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'M': merge = true; break;
		case 'm': metric = metric_resolve(optarg, NULL); break; /* pprof's names too */
		CLI_OUT_CASES(outpath, zstd);
		READERS_OPT_CASES;
		CLI_STD_CASES(help_text);
		}
	}
	static char stdin_name[] = "-";
	static char *dash[] = { stdin_name };
	char **files = optind < argc ? argv + optind : dash;
	uint32_t nsrc = optind < argc ? (uint32_t)(argc - optind) : 1;
	cli_stdin_once(files, (int)nsrc);

	/* another format than SPAA: read by its reader, as SPAA */
	char **paths = xcalloc(nsrc, sizeof *paths);
	const char **names = xcalloc(nsrc, sizeof *names);
	for (uint32_t i = 0; i < nsrc; i++) {
		names[i] = strcmp(files[i], "-") == 0 ? "-" : input_display_name(files[i]);
		paths[i] = readers_rereadable(files[i]);
	}
	output *o = output_open(outpath, zstd);
	spaa_cat(paths, names, nsrc, merge, metric, o);
	output_close(o);
	return EXIT_OK;
}
