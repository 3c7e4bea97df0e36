/* cat.h - concatenating SPAA files into one valid SPAA stream, or merging
 * them (summing the stacks of the same identity): spaa-cat(1)'s engine, which
 * the converters and any2spaa use to merge several inputs as
 * "spaa-cat --merge" does. */
#ifndef SPAA_CAT_H
#define SPAA_CAT_H

#include <stdbool.h>
#include <stdint.h>
#include "output.h"

/* Writes the n files (paths; "-" is standard input, once at most) to o as
 * one SPAA stream: merge sums the stacks of the same identity; metric (NULL
 * none) becomes the primary metric of every event.  names[i] (names NULL:
 * the paths) is what messages call file i.  Errors are fatal (exit 1).
 * Once per process: its state is static. */
void spaa_cat(char **files, const char *const *names, uint32_t n, bool merge, const char *metric, output *o);

/* For a command that reads one profile (spaa-top, spaa-grep): the n files
 * merged as "spaa-cat --merge" merges them, written to an unlinked temporary
 * file (in TMPDIR, else /tmp), and a path that reads it ("/dev/fd/N");
 * with one file, that file's path as it is.  Errors are fatal (exit 1,
 * nothing left behind). */
char *spaa_cat_merged(char **files, uint32_t n);

#endif
