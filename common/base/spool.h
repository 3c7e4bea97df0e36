/* spool.h - a temporary file for records that must wait: written once in
 * order, then read back as lines (or as raw bytes).  The file is unlinked as soon as it is
 * made (in $TMPDIR, else /tmp), so nothing is left behind on any exit.
 * Write and read errors are fatal ("prog: temporary file: write error: ..."). */
#ifndef SPAA_SPOOL_H
#define SPAA_SPOOL_H

#include <stddef.h>
#include <stdint.h>

typedef struct spool spool;

spool *spool_new(void);
void spool_write(spool *s, const void *p, size_t n);
static inline void spool_putc(spool *s, char c) { spool_write(s, &c, 1); }
/* Bytes written so far. */
uint64_t spool_size(const spool *s);
/* Ends writing and starts reading from the beginning. */
void spool_rewind(spool *s);
/* Next line without its '\n', NUL-terminated, writable, valid until the next
 * call; NULL at the end. */
char *spool_line(spool *s, size_t *len);
/* Or, after spool_rewind(), the bytes as written (records of a fixed
 * size): up to n of them into p; returns how many, fewer only at the end. */
size_t spool_read(spool *s, void *p, size_t n);
void spool_free(spool *s);

#endif
