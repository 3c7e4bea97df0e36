/* util.h - checked allocation, growable arrays and small string helpers. */
#ifndef SPAA_UTIL_H
#define SPAA_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
/* xmalloc for a large hash table (freed with free()): backed by huge pages
 * where the system gives them on request. */
void *xmalloc_table(size_t n);
char *xstrdup(const char *s);
char *xmemdup(const void *p, size_t n); /* copies n bytes and adds a NUL */

/* Grow *pp (element size es) so that it holds at least need elements. */
void grow_array(void **pp, uint32_t *cap, uint32_t need, size_t es);
#define VEC_PUSH(arr, n, cap) \
	(((n) >= (cap) ? grow_array((void **)&(arr), &(cap), (n) + 1, sizeof *(arr)) : (void)0), &(arr)[(n)++])

/* qsort() that accepts an empty (possibly NULL) array, which qsort itself
 * must not be given. */
#include <stdlib.h>
static inline void xqsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1) qsort(base, n, size, cmp);
}

/* Sorts the n records of size bytes at base by the uint64_t at byte offset
 * key of each, stably: LSD radix, 8 bits a pass, skipping the digits all
 * keys share (symbol tables by address: a fifth of qsort's time). */
void radix_sort_u64(void *base, uint32_t n, size_t size, size_t key);

/* A byte string that does not own its bytes. */
typedef struct sstr { const char *p; size_t n; } sstr;
#define SSTR_NULL ((sstr){ NULL, 0 })
/* Character classes of the text formats read here (ASCII, no locale). */
static inline bool c_blank(char c) { return c == ' ' || c == '\t'; }
static inline bool c_digit(char c) { return c >= '0' && c <= '9'; }
/* The value of hex digit c, or -1 (a table of the values plus one:
 * addresses are read digit by digit on hot paths). */
extern const unsigned char c_hextab[256];
static inline int c_hexval(char c) { return c_hextab[(unsigned char)c] - 1; }
static inline bool c_hex(char c) { return c_hexval(c) >= 0; }

static inline sstr sstr_c(const char *s) { return (sstr){ s, s ? strlen(s) : 0 }; }
static inline bool sstr_eq(sstr a, sstr b) { return a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0); }
static inline bool sstr_eqc(sstr a, const char *b) { return sstr_eq(a, sstr_c(b)); }

/* xorshift64*: the next of a fixed sequence of pseudo-random values from
 * state *s (not 0), for the generators of bench/ and the tests. */
static inline uint64_t rand64(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/* A growable byte buffer. */
typedef struct sbuf { char *p; size_t n, cap; } sbuf;
void sbuf_reserve(sbuf *b, size_t extra);
/* Appends p[0..n), keeping a NUL after the bytes.  Inline: the hot loops
 * of the readers call it per field. */
static inline void sbuf_add(sbuf *b, const void *p, size_t n)
{
	if (b->n + n + 1 > b->cap) sbuf_reserve(b, n + 1);
	if (n) memcpy(b->p + b->n, p, n);
	b->n += n;
	b->p[b->n] = 0;
}
/* Appends code point cp (at most 0x10FFFF) as UTF-8. */
void sbuf_add_utf8(sbuf *b, uint32_t cp);
static inline void sbuf_addc(sbuf *b, char c) { if (b->n + 1 > b->cap) sbuf_reserve(b, 1); b->p[b->n++] = c; }
static inline void sbuf_adds(sbuf *b, const char *s) { sbuf_add(b, s, strlen(s)); }
void sbuf_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sbuf_free(sbuf *b);

/* Bump allocator for data that lives as long as the program (interned
 * strings, dictionary entries).  Never freed piecemeal. */
typedef struct arena { struct arena_blk *head; } arena;
void *arena_alloc(arena *a, size_t n);
/* The same aligned to align bytes only (a power of two, at most 16), for
 * many small strings: strmap's keys, 4-byte aligned, would lose a quarter
 * of their room to 16-byte rounding. */
void *arena_alloc_aligned(arena *a, size_t n, size_t align);
char *arena_strdup(arena *a, const void *p, size_t n); /* adds NUL */
void arena_free(arena *a);

/* An unlinked temporary file in $TMPDIR (default /tmp), open for reading
 * and writing, its name made from tag; dies (exit 1) when none can be
 * made.  Returns the descriptor. */
int tmpfile_unlinked(const char *tag);
/* Writes all of p[0..n) to such a file; dies (exit 1) on a write error. */
void tmpfile_write(int fd, const void *p, size_t n);

/* Decimal formatting of 64-bit integers; returns length written (no NUL).
 * buf needs 21 bytes. */
size_t fmt_u64(char *buf, uint64_t v);
/* "0x" and v in lower-case hex, at least width digits (zero-padded): as
 * printf's "0x%llx" (width 1) or "0x%016llx" (width 16) write it; returns
 * the length written (no NUL).  buf needs 19 bytes. */
size_t fmt_hex(char *buf, uint64_t v, unsigned width);
size_t fmt_i64(char *buf, int64_t v);
/* A double as printf's "%.*f" (prec 0 to 2) and "%g" write it, with a NUL;
 * returns the length.  buf needs FMT_DBL_MAX bytes ("%.2f" of the largest
 * double).  Fast for the numbers of an SVG (printf's exact expansion of a
 * double is slow); printf itself for the rest. */
#define FMT_DBL_MAX 330
size_t fmt_fixed(char *buf, double v, int prec);
size_t fmt_g(char *buf, double v);

/* Strict decimal parsing of a whole string: no sign for u64, optional '-'
 * for i64, no spaces; false on overflow or junk. */
bool parse_u64(const char *s, size_t n, uint64_t *out);
bool parse_i64(const char *s, size_t n, int64_t *out);

#endif
