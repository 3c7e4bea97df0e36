/* output.h - buffered, checked output to stdout or a file.  With a file
 * name the data goes to a temporary file in the same directory, renamed over
 * the target only by output_close() after everything was written; on any
 * failure (or die()) the temporary file is removed.  zstd or gzip
 * compression is optional.  Every write error is fatal: "prog: FILE: write error: ...". */
#ifndef SPAA_OUTPUT_H
#define SPAA_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>

typedef struct output {
	char *buf;
	size_t n, cap;
	struct output_priv *priv;
} output;

/* path NULL or "-": stdout.  zstd: compress (also implied by a path ending in
 * ".zst"); a path ending in ".gz" is gzip-compressed.  A file replaced keeps
 * its mode; a symbolic link stays one (the file it names is replaced). */
output *output_open(const char *path, bool zstd);
/* The same, always gzip-compressed (formats that are gzip by convention,
 * as pprof's), whatever the name. */
output *output_open_gzip(const char *path);
/* An output kept in memory (records a reader adds after its profile's,
 * read in the same process); output_close_mem() gives its text
 * (NUL-terminated, n bytes; the caller frees it) and frees o. */
output *output_open_mem(void);
char *output_close_mem(output *o, size_t *n);
/* Flushes, finishes compression, closes and renames; exits 1 on error. */
void output_close(output *o);

void output_flush_buf(output *o); /* internal: drains buf */
static inline void out_write(output *o, const void *p, size_t n)
{
	if (o->n + n > o->cap) {
		output_flush_buf(o);
		if (n > o->cap - o->n) { /* huge: write directly */
			extern void output_write_direct(output *, const void *, size_t);
			output_write_direct(o, p, n);
			return;
		}
	}
	memcpy(o->buf + o->n, p, n);
	o->n += n;
}
static inline void out_putc(output *o, char c)
{
	if (o->n >= o->cap) output_flush_buf(o);
	o->buf[o->n++] = c;
}
static inline void out_puts(output *o, const char *s) { out_write(o, s, strlen(s)); }
/* For records formatted straight into the buffer: room for n more bytes
 * (n at most 64 KB, the buffer's size), flushing first when needed.  Write
 * at out_room()'s pointer, then out_commit() the new end.  OUT_LIT copies a
 * string literal there and returns the end (its length is known when
 * compiling). */
static inline char *out_room(output *o, size_t n)
{
	if (o->cap - o->n < n) output_flush_buf(o);
	return o->buf + o->n;
}
static inline void out_commit(output *o, char *end) { o->n = (size_t)(end - o->buf); }
#define OUT_LIT(w, lit) (memcpy((w), (lit), sizeof(lit) - 1), (w) + sizeof(lit) - 1)
void out_printf(output *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void out_u64(output *o, uint64_t v);
void out_i64(output *o, int64_t v);

#endif
