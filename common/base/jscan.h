/* jscan.h - reading one large JSON text in pieces (Chrome traces, V8
 * profiles, heap snapshots): a window of the input is kept in a buffer, and
 * the caller walks the structure a value at a time.  Only the value at hand
 * is held, so memory does not grow with the file.
 *
 * Two levels.  The scanner: jscan_peek (the next non-blank byte) and
 * jscan_value (the extent of the value at pos, kept contiguous in the
 * buffer or skipped), which spall2spaa drives itself.  The walker, for
 * readers that want strict JSON with errors "prog: file:line: what (byte
 * N)": jscan_open/jscan_more step through arrays and objects, jscan_key
 * reads a member name (names longer than 64 bytes come back empty), jscan_int/jscan_num a number, jscan_doc parses one
 * bounded value with json_parse (json.h), jscan_skip skips one. */
#ifndef SPAA_JSCAN_H
#define SPAA_JSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>
#include "input.h"
#include "json.h"
#include "num.h"
#include "util.h"

typedef struct jscan {
	input *in;
	const char *name; /* for messages */
	char *buf;        /* cap + 8 bytes: the data ends with 8 NUL bytes */
	size_t cap, pos, len;
	uint64_t base;    /* input offset of buf[0] */
	uint64_t line;    /* line number at buf[pos] */
	bool eof;
	json_doc sdoc;     /* jscan_str */
	char key[64];      /* jscan_key */
} jscan;

void jscan_init(jscan *r, input *in, const char *name);
void jscan_free(jscan *r);
/* Reads more, dropping buf[0..keep); false at the end of the input. */
bool jscan_fill(jscan *r, size_t keep);
/* The next non-blank byte (not consumed), -1 at the end of the input. */
int jscan_peek(jscan *r);
/* The extent of the value at pos: buf[pos..*end) (kept contiguous when
 * keep, else skipped over).  False if the input ends inside it. */
bool jscan_value(jscan *r, size_t *end, bool keep);
/* Moves to offset off of the input (a value's start, jscan_offset), its
 * line numbered line: within the buffer when it holds it, else through
 * input_seek (the input read through r alone); false when the input
 * cannot go there.  For a second reader of the same file, at a place the
 * first one saw. */
bool jscan_seek(jscan *r, uint64_t off, uint64_t line);
static inline uint64_t jscan_offset(const jscan *r) { return r->base + r->pos; }

/* ---- the walker (errors are fatal, exit 1) ---- */
noreturn void jscan_fail(jscan *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Skips a UTF-8 byte order mark; returns the first byte as jscan_peek. */
int jscan_start(jscan *r);
/* Consumes c ('[' or '{'), or fails naming what was expected. */
void jscan_open(jscan *r, char c, const char *what);
/* In an array or object opened with jscan_open: true when another element
 * follows (positioned at it; the comma consumed), false when the closing
 * bracket has been consumed.  *first starts true. */
bool jscan_more(jscan *r, bool *first, char close);
/* A member name and its ':' (in an object, after jscan_more): the raw bytes
 * between the quotes (escapes not decoded), valid until the next call; empty
 * for a name longer than 64 bytes. */
sstr jscan_key(jscan *r);
/* A number: true and *v when it is an integer in int64 range; false for
 * other numbers (*d then holds it); fails for anything not a number. */
bool jscan_num(jscan *r, int64_t *v, double *d);
/* A number exactly: NUM_INT in int64 range, NUM_UINT above it up to
 * 2^64-1, else NUM_DBL; fails for anything not a number. */
num jscan_numv(jscan *r);
/* An integer in int64 range, or fails naming what. */
int64_t jscan_int(jscan *r, const char *what);
/* Up to max integers of an array opened with jscan_open (first as for
 * jscan_more), into out: returns how many; *done when the array's ']' has
 * been consumed.  The fast way through long arrays of numbers (samples,
 * heap snapshot nodes); the same errors as jscan_more and jscan_int. */
size_t jscan_ints(jscan *r, bool *first, int64_t *out, size_t max, const char *what, bool *done);
/* A string value, decoded (escapes, and bad UTF-8 is an error), valid until
 * the next call. */
sstr jscan_str(jscan *r, const char *what);
/* true and consumed when the next value is null. */
bool jscan_null(jscan *r);
/* Parses the next value whole into d (its root is node 0): for values of
 * bounded size, such as one trace event or one profile node. */
void jscan_doc(jscan *r, json_doc *d);
void jscan_skip(jscan *r);

#endif
