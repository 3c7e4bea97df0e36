/* psort.h - sorting on threads: the array cut into runs, each sorted by
 * qsort on a thread of its own, then the runs merged pairwise (the merges
 * of one round side by side).  For a total order (cmp never 0 for two
 * different records, as of distinct output lines) the result is the one
 * qsort gives, whatever the threads; cmp must only read shared state. */
#ifndef SPAA_PSORT_H
#define SPAA_PSORT_H

#include <stddef.h>

void psort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *), unsigned jobs);

#endif
