/* folded.h - reading one line of folded stacks ("root;...;leaf COUNT"), as
 * flamegraph.pl reads it: the count is the last blank-separated word, the
 * path everything before the one blank before it.  Shared by folded2spaa and
 * spaa-flamegraph (which also reads the differential form "PATH BEFORE
 * AFTER" that spaa-diff and difffolded.pl write). */
#ifndef SPAA_FOLDED_H
#define SPAA_FOLDED_H

#include <stdbool.h>
#include <stddef.h>
#include "num.h"

/* A count: [-]digits[.digits][e[+-]digits] or [-].digits...  Integers are
 * exact (64-bit, signed or unsigned); others become doubles.  Returns
 * FOLDED_OK, FOLDED_NONE (not a number) or FOLDED_RANGE (beyond 64 bits, or
 * not finite). */
enum { FOLDED_OK, FOLDED_NONE, FOLDED_RANGE, FOLDED_SKIP };
int folded_count(const char *p, size_t n, num *out);

typedef struct folded_line {
	size_t path_n;          /* the path is line[0..path_n) */
	num count;              /* the last word */
	size_t count_at, count_n; /* where it is in the line (for messages) */
	bool two;               /* the word before it is a number too: the
				 * differential form, if every line has one */
	size_t path2_n;         /* then: the path without that word */
	num count1;             /* and that number */
} folded_line;

/* Splits line[0..len) (a trailing '\r' allowed).  FOLDED_SKIP for a blank
 * line or a comment ('#' first); FOLDED_NONE when there is no count at the
 * end; FOLDED_RANGE when it is out of range; FOLDED_OK otherwise. */
int folded_split(const char *line, size_t len, folded_line *f);

#endif
