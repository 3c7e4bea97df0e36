/* sniff.h - what a file that is not SPAA looks like, from its first line,
 * and the command that reads it: the filters say "this is 'perf script'
 * text, not SPAA: run perf2spaa first" instead of a JSON parse error. */
#ifndef SPAA_SNIFF_H
#define SPAA_SNIFF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct sniff_result {
	const char *what;  /* "'perf script' text", ... */
	const char *run;   /* the converter to run first; NULL if there is none */
} sniff_result;

/* The format of a file whose first non-blank line is line[0..n) (without its
 * newline).  Returns 0 and fills *res when recognised; -1 when not (SPAA
 * itself, or something unknown). */
int sniff_line(const char *line, size_t n, sniff_result *res);

/* ---- by content: every format a converter of this toolbox reads ---------
 * What any2spaa dispatches on, and what the converters check to say "this
 * is X, not Y: run Z" when handed another format. */
typedef struct sniff_format {
	const char *name;  /* any2spaa --format NAME: "perf-script", ... */
	const char *what;  /* "'perf script' text", ... */
	const char *cmd;   /* the converter that reads it; NULL for SPAA */
	const char *opt;   /* an option it needs for this format, NULL none */
} sniff_format;

/* The formats, in the order any2spaa --help lists them; ends with a NULL
 * name. */
extern const sniff_format sniff_formats[];
/* The format named name, NULL when there is none. */
const sniff_format *sniff_format_named(const char *name);

/* The format of data whose first (decompressed) bytes are p[0..n); more:
 * whether the data goes on after them.  NULL when not recognised (or when
 * only more of the data could tell: a JSON trace whose first n bytes name
 * no Chrome CPU profile event; see sniff_input).  *looks (NULL allowed)
 * then says what the bytes looked like, for a message. */
const sniff_format *sniff_bytes(const void *p, size_t n, bool more, const char **looks);

/* For converter self handed p[0..n) (the first bytes; more: the data goes
 * on): when they are recognised as a format another command reads, the
 * one-line message "this is WHAT, not MINE: run CMD" (or "this is SPAA
 * already: no conversion needed") in msg, and true; false when they are
 * self's own format or not recognised (the converter then reads them and
 * says what is wrong). */
bool sniff_other(const void *p, size_t n, bool more, const char *self, const char *mine, char *msg, size_t cap);

struct input;
/* The same on an input, decompressed (see input.h): its first 64 KiB, and
 * the rest when they leave the format open (a JSON trace is Chrome's when
 * any of its events is a CPU profile chunk, else spall's).  May consume the
 * input. */
const sniff_format *sniff_input(struct input *in, const char **looks);
/* sniff_other on in's first 64 KiB (not consumed): exits 1 with
 * "prog: FILE: this is WHAT, not MINE: run CMD" when it is another format. */
void sniff_refuse_other(struct input *in, const char *self, const char *mine);

#endif
