/* readers.h - the converters' readers, one per format, in the library
 * (common/readers/NAME.c; the registry, registry.h, lists them).
 *
 * NAME_read(argc, argv) is the converter NAME2spaa as its command runs it:
 * argv as the command gets it (argv[0] its name, for getopt's messages),
 * its options parsed with getopt_long from NAME_longopts and
 * NAME_shortopts (optind as getopt_long wants it: 0 or 1 for a fresh
 * start), its FILEs read (several FILEs: each converted in a child process
 * and merged, several.h), and the profile it built handed to
 * reader_finish() (reader.h): written as SPAA, or kept for a command that
 * captures it.  It returns the exit status; on an error it exits, through
 * die() (cli.h).  cli_init() is the caller's: the messages name cli_prog. */
#ifndef SPAA_READERS_H
#define SPAA_READERS_H

#include <getopt.h>

#define READER_DECLARE(name) \
	int name##_read(int argc, char **argv); \
	extern const struct option name##_longopts[]; \
	extern const char name##_shortopts[];

READER_DECLARE(afperf)
READER_DECLARE(bpftrace)
READER_DECLARE(chrome)
READER_DECLARE(dtrace)
READER_DECLARE(folded)
READER_DECLARE(gecko)
READER_DECLARE(ghcprof)
READER_DECLARE(heaptrack)
READER_DECLARE(instruments)
READER_DECLARE(jfr)
READER_DECLARE(perf)
READER_DECLARE(pmcstat)
READER_DECLARE(pprof)
READER_DECLARE(pstats)
READER_DECLARE(safari)
READER_DECLARE(spall)
READER_DECLARE(speedscope)
READER_DECLARE(spx)
READER_DECLARE(stackprof)
READER_DECLARE(v8log)
READER_DECLARE(valgrind)

#endif
