/* registry.h - every format's reader, by the name of its converter.
 * What a file is, by content, is common/spaa/sniff.c's to say (sniff_format's
 * cmd names the converter); the reader of that name reads it. */
#ifndef SPAA_REGISTRY_H
#define SPAA_REGISTRY_H

#include <getopt.h>

/* the converter's code: argv as the converter gets it (argv[0] its name);
 * it parses the converter's options, reads, and ends in reader_finish()
 * (reader.h); it returns the exit status (readers.h) */
typedef int reader_fn(int argc, char **argv);

typedef struct reader_def {
	const char *cmd;                /* "perf2spaa" */
	reader_fn *read;
	const struct option *longopts;  /* the options it takes (getopt_long's table, ends with a zero entry) */
	const char *shortopts;          /* its getopt short-option string */
} reader_def;

/* every reader, in the order of any2spaa --help; ends with a NULL cmd */
extern const reader_def reader_defs[];

/* The reader of the converter named cmd ("perf2spaa"), NULL if none. */
const reader_def *reader_named(const char *cmd);

#endif
