/* several.h - several FILEs for a converter that reads one input at a
 * time: each file is converted in a child process (fork without exec: the
 * converter's own code, from its start-up state) into a temporary SPAA
 * file, and the results are merged as "spaa-cat --merge" merges them. */
#ifndef SPAA_SEVERAL_H
#define SPAA_SEVERAL_H

#include <stdbool.h>

/* Call after the options, with the operands files[0..n).  With n < 2 it
 * returns at once and changes nothing.  Otherwise it returns once in a child
 * process per file, in turn, with *file set to that file and *outpath to a
 * temporary file (*zstd false): the caller converts *file as it would alone
 * and exits 0 (returning from main).  In the parent it does not return:
 * when every child succeeded it merges their output into *outpath as given
 * (compressed when *zstd) and exits 0; else it exits with the status of the
 * first child that failed (whose messages said why) and writes nothing. */
void several_inputs(char **files, int n, const char **file, const char **outpath, bool *zstd);

#endif
