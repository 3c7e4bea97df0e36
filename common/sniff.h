/* sniff.h - what a file that is not SPAA looks like, from its first line,
 * and the command that reads it: the filters say "this is 'perf script'
 * text, not SPAA: run perf2spaa first" instead of a JSON parse error. */
#ifndef SPAA_SNIFF_H
#define SPAA_SNIFF_H

#include <stddef.h>

typedef struct sniff_result {
	const char *what;  /* "'perf script' text", ... */
	const char *run;   /* the converter to run first; NULL if there is none */
} sniff_result;

/* The format of a file whose first non-blank line is line[0..n) (without its
 * newline).  Returns 0 and fills *res when recognised; -1 when not (SPAA
 * itself, or something unknown). */
int sniff_line(const char *line, size_t n, sniff_result *res);

#endif
