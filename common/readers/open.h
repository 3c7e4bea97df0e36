/* open.h - every reading command reads every format: an input that is not
 * SPAA is recognised by content (sniff.h) and read in process by its
 * format's reader (registry.h) into a profile in memory, which the command
 * then reads as it reads SPAA (spaa_open_builder), without SPAA text in
 * between.  The result is the same as "any2spaa FILE | COMMAND". */
#ifndef SPAA_READERS_OPEN_H
#define SPAA_READERS_OPEN_H

#include <stdbool.h>
#include "spaa.h"

/* Opens path ("-" or NULL: standard input) of any format; each input is
 * read once (a pipe that is not SPAA is copied to a temporary file for
 * its reader).  Errors exit as the format's converter's do, under the
 * command's name. */
spaa_reader *spaa_open_any(const char *path);

/* As input_rereadable (input.h), for a command that reads its input more
 * than once: another format than SPAA is read by its reader once, and its
 * profile written as SPAA to an unlinked temporary file, named as the input
 * in messages. */
char *readers_rereadable(const char *path);
/* The reader of the command's operands files[0..n) (none: standard
 * input): one of any format, or several, each read by its reader, then
 * merged as spaa-cat --merge merges them and read as one profile (named
 * "the inputs" in messages). */
spaa_reader *readers_open_all(char **files, int n);
/* The same as a path to open (allocated): the one file itself, or the
 * merged profile of several, SPAA. */
char *readers_operands(char **files, int n);
/* Folded stacks are left to the command, which reads them itself
 * (spaa-flamegraph: flamegraph.pl's reading). */
void readers_keep_folded(void);

/* An option for the readers, given on the command line of the command:
 * "--NAME" (value NULL) or "--NAME=VALUE", passed to each reader that
 * takes an option NAME (perf2spaa's --symfs, ...), to no other. */
void readers_option(const char *name, const char *value);
/* Every input read as the format named (any2spaa --format); false when
 * there is no such format. */
bool readers_format(const char *name);

/* The long options every reading command takes for its readers, for its
 * getopt table, and their case: READERS_OPT_CASES in the switch. */
#define READERS_OPT_BASE 0x7200
#define READERS_LONGOPTS \
	READERS_LONGOPTS_NO_SAMPLES, \
	READERS_SAMPLES_LONGOPT
/* --samples alone (a command with a --samples of its own passes it on
 * with readers_option("samples", NULL)) */
#define READERS_SAMPLES_LONGOPT { "samples", no_argument, 0, 's' }
/* The others */
#define READERS_LONGOPTS_NO_SAMPLES \
	{ "symfs", required_argument, 0, READERS_OPT_BASE + 0 }, \
	{ "root", required_argument, 0, READERS_OPT_BASE + 1 }, \
	{ "kallsyms", required_argument, 0, READERS_OPT_BASE + 2 }, \
	{ "debug-dir", required_argument, 0, READERS_OPT_BASE + 3 }, \
	{ "no-inline", no_argument, 0, READERS_OPT_BASE + 4 }, \
	{ "format", required_argument, 0, READERS_OPT_BASE + 6 }, \
	{ "reader-option", required_argument, 0, READERS_OPT_BASE + 7 }
#define READERS_OPT_CASES \
	case READERS_OPT_BASE + 0: case READERS_OPT_BASE + 1: case READERS_OPT_BASE + 2: \
	case READERS_OPT_BASE + 3: case READERS_OPT_BASE + 4: case READERS_OPT_BASE + 5: \
	case READERS_OPT_BASE + 6: case READERS_OPT_BASE + 7: \
		readers_getopt(c, optarg); \
		break; \
	case 's': \
		readers_option("samples", NULL); \
		break
/* The same without -s (a command with a -s of its own) */
#define READERS_OPT_CASES_NO_SAMPLES \
	case READERS_OPT_BASE + 0: case READERS_OPT_BASE + 1: case READERS_OPT_BASE + 2: \
	case READERS_OPT_BASE + 3: case READERS_OPT_BASE + 4: \
	case READERS_OPT_BASE + 6: case READERS_OPT_BASE + 7: \
		readers_getopt(c, optarg); \
		break
void readers_getopt(int c, const char *arg);
/* The options' lines for --help: READERS_HELP all of them; the parts
 * for a command that has some of them itself. */
#define READERS_HELP_HEAD \
	"A profile of another format than SPAA is read in process, as any2spaa\n" \
	"reads it (any2spaa --help lists the formats), with these options:\n"
#define READERS_HELP_FORMAT \
	"      --format=NAME    read every input as the format NAME\n"
#define READERS_HELP_SYMFS \
	"      --symfs=DIR      perf.data: look for the recorded files under DIR\n" \
	"      --no-inline      perf.data: no inlined calls added from DWARF (faster)\n"
#define READERS_HELP_PERF \
	"      --root=DIR       perf.data: the same as --symfs\n" \
	"      --kallsyms=FILE  perf.data: kernel symbols from FILE\n" \
	"      --debug-dir=DIR  perf.data: perf's build-id cache (default ~/.debug)\n"
#define READERS_HELP_SAMPLES \
	"  -s, --samples        keep the sample records (as a converter's -s)\n"
#define READERS_HELP_OPT \
	"      --reader-option=OPT  give the format's converter its option OPT\n" \
	"                       (--reader-option=--max-depth=64)\n"
#define READERS_HELP \
	READERS_HELP_HEAD READERS_HELP_FORMAT READERS_HELP_SYMFS READERS_HELP_PERF \
	READERS_HELP_SAMPLES READERS_HELP_OPT

#endif
