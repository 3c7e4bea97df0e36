/* util.c - checked allocation, growable arrays, buffers, arena, integers. */
#include "util.h"
#include "utf8.h"
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <math.h>
#include <unistd.h>
#include <sys/mman.h>

static void oom(void)
{
	die_input("out of memory"); /* the input that made it grow */
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) oom();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p) oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) oom();
	return p;
}

void *xmalloc_table(size_t n)
{
#if defined(MADV_HUGEPAGE)
	enum { HUGE = 2 << 20 };
	if (n >= HUGE) {
		/* whole huge pages, asked for: a fault and a TLB entry for 2 MiB
		 * rather than for 4 KiB (the tables are probed at random) */
		size_t r = (n + HUGE - 1) & ~(size_t)(HUGE - 1);
		void *p = aligned_alloc(HUGE, r);
		if (!p) oom();
		madvise(p, r, MADV_HUGEPAGE);
		return p;
	}
#endif
	return xmalloc(n);
}

char *xstrdup(const char *s)
{
	return xmemdup(s, strlen(s));
}

char *xmemdup(const void *p, size_t n)
{
	char *d = xmalloc(n + 1);
	if (n) memcpy(d, p, n);
	d[n] = 0;
	return d;
}

void grow_array(void **pp, uint32_t *cap, uint32_t need, size_t es)
{
	if (need <= *cap) return;
	uint64_t c = *cap ? *cap : 8;
	while (c < need) c *= 2;
	if (c > UINT32_MAX) die_input("too many items");
	*pp = xrealloc(*pp, (size_t)c * es);
	*cap = (uint32_t)c;
}

void sbuf_reserve(sbuf *b, size_t extra)
{
	if (b->n + extra <= b->cap) return;
	size_t c = b->cap ? b->cap : 64;
	while (c < b->n + extra) c *= 2;
	b->p = xrealloc(b->p, c);
	b->cap = c;
}

void sbuf_add_utf8(sbuf *b, uint32_t cp)
{
	char u[4];
	sbuf_add(b, u, (size_t)(utf8_put(u, cp) - u));
}

void sbuf_printf(sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (k < 0) return;
	sbuf_reserve(b, (size_t)k + 1);
	va_start(ap, fmt);
	vsnprintf(b->p + b->n, (size_t)k + 1, fmt, ap);
	va_end(ap);
	b->n += (size_t)k;
}

void sbuf_free(sbuf *b)
{
	free(b->p);
	b->p = NULL;
	b->n = b->cap = 0;
}

struct arena_blk {
	struct arena_blk *next;
	size_t used, size;
	_Alignas(16) char data[];
};

void *arena_alloc(arena *a, size_t n)
{
	return arena_alloc_aligned(a, n, 16);
}

void *arena_alloc_aligned(arena *a, size_t n, size_t align)
{
	struct arena_blk *b = a->head;
	if (b) b->used = (b->used + align - 1) & ~(align - 1);
	if (n > SIZE_MAX - 16) die_input("out of memory");
	n = (n + align - 1) & ~(align - 1);
	if (!b || b->used > b->size || b->size - b->used < n) {
		size_t size = n > 65536 - sizeof *b ? n : 65536 - sizeof *b;
		b = xmalloc(sizeof *b + size);
		b->size = size;
		b->used = 0;
		b->next = a->head;
		a->head = b;
	}
	void *p = b->data + b->used;
	b->used += n;
	return p;
}

char *arena_strdup(arena *a, const void *p, size_t n)
{
	char *d = arena_alloc(a, n + 1);
	if (n) memcpy(d, p, n);
	d[n] = 0;
	return d;
}

void arena_free(arena *a)
{
	struct arena_blk *b = a->head;
	while (b) {
		struct arena_blk *nx = b->next;
		free(b);
		b = nx;
	}
	a->head = NULL;
}

const unsigned char c_hextab[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

size_t fmt_u64(char *buf, uint64_t v)
{
	/* the digits counted, then written in place from the last, two per
	 * division (no copy: most numbers written are short ids) */
	static const char pairs[201] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	static const uint64_t p10[20] = {
		UINT64_C(1), UINT64_C(10), UINT64_C(100), UINT64_C(1000), UINT64_C(10000), UINT64_C(100000),
		UINT64_C(1000000), UINT64_C(10000000), UINT64_C(100000000), UINT64_C(1000000000),
		UINT64_C(10000000000), UINT64_C(100000000000), UINT64_C(1000000000000),
		UINT64_C(10000000000000), UINT64_C(100000000000000), UINT64_C(1000000000000000),
		UINT64_C(10000000000000000), UINT64_C(100000000000000000), UINT64_C(1000000000000000000),
		UINT64_C(10000000000000000000) };
	/* the digits counted from the bit length: 1233 / 4096 is just over
	 * log10(2), so n is the count or one less (v | 1: 0 has a digit) */
	size_t n = ((size_t)(64 - __builtin_clzll(v | 1)) * 1233) >> 12;
	n += (v | 1) >= p10[n];
	char *p = buf + n;
	while (v >= 100) {
		unsigned d = (unsigned)(v % 100);
		v /= 100;
		p -= 2;
		p[0] = pairs[2 * d];
		p[1] = pairs[2 * d + 1];
	}
	if (v >= 10) {
		p[-2] = pairs[2 * v];
		p[-1] = pairs[2 * v + 1];
	} else {
		p[-1] = (char)('0' + v);
	}
	return n;
}

/* The 8 hex digits of x as 8 bytes, the first digit in the first byte
 * (lower-case): each nibble spread to a byte of its own, then turned into
 * its digit, all 8 at once ('0' + d, and 39 more where d >= 10). */
static uint64_t hex8(uint32_t x)
{
	uint64_t y = x;
	y = (y | y << 16) & 0x0000ffff0000ffffULL;
	y = (y | y << 8) & 0x00ff00ff00ff00ffULL;
	y = (y | y << 4) & 0x0f0f0f0f0f0f0f0fULL; /* byte i: nibble i */
	uint64_t letter = ((y + 0x0606060606060606ULL) >> 4) & 0x0101010101010101ULL;
	y += 0x3030303030303030ULL + letter * ('a' - '0' - 10);
	/* stored by memcpy: the most significant digit must come first */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return y;
#else
	return __builtin_bswap64(y);
#endif
}

size_t fmt_hex(char *buf, uint64_t v, unsigned width)
{
	static const char hex[] = "0123456789abcdef";
	unsigned n = v ? (unsigned)(64 - __builtin_clzll(v) + 3) / 4 : 1; /* digits */
	if (n < width) n = width > 16 ? 16 : width;
	buf[0] = '0', buf[1] = 'x';
	if (n == 16) { /* stack ids, always 16 digits: 8 at a time */
		uint64_t hi = hex8((uint32_t)(v >> 32)), lo = hex8((uint32_t)v);
		memcpy(buf + 2, &hi, 8);
		memcpy(buf + 10, &lo, 8);
		return 18;
	}
	for (unsigned i = 0; i < n; i++) buf[2 + i] = hex[(v >> (4 * (n - 1 - i))) & 15];
	return n + 2;
}

size_t fmt_i64(char *buf, int64_t v)
{
	if (v >= 0) return fmt_u64(buf, (uint64_t)v);
	buf[0] = '-';
	return 1 + fmt_u64(buf + 1, (uint64_t)0 - (uint64_t)v);
}

/* fmt_fixed: the exact binary value v = m * 2^-s times 10^prec, rounded half
 * to even as glibc rounds it (m < 2^53, so m * 100 fits 64 bits). */
size_t fmt_fixed(char *b, double v, int prec)
{
	static const uint64_t p10[] = { 1, 10, 100 };
	double a = fabs(v);
	if (!(a < 9007199254740992.0) || prec < 0 || prec > 2)
		return (size_t)snprintf(b, FMT_DBL_MAX, "%.*f", prec, v);
	int e;
	uint64_t m = (uint64_t)ldexp(frexp(a, &e), 53); /* a = m * 2^(e - 53), e <= 53 */
	uint64_t x = m * p10[prec], q;
	int sh = 53 - e;
	if (sh == 0) {
		q = x;
	} else if (sh >= 62) {
		q = 0; /* x < 2^60: below half of 2^sh */
	} else {
		uint64_t rem = x & ((UINT64_C(1) << sh) - 1), half = UINT64_C(1) << (sh - 1);
		q = x >> sh;
		if (rem > half || (rem == half && (q & 1))) q++;
	}
	size_t n = 0;
	if (signbit(v)) b[n++] = '-';
	n += fmt_u64(b + n, q / p10[prec]);
	if (prec) {
		uint64_t f = q % p10[prec];
		b[n++] = '.';
		if (prec == 2) b[n++] = (char)('0' + f / 10);
		b[n++] = (char)('0' + f % 10);
	}
	b[n] = 0;
	return n;
}

size_t fmt_g(char *b, double v)
{
	double a = fabs(v);
	if (a < 1e5 && !(v == 0 && signbit(v)) && v * 2 == floor(v * 2)) {
		/* an integer or a half, 6 digits at most: as "%g" writes it */
		size_t n = 0;
		if (v < 0) b[n++] = '-';
		n += fmt_u64(b + n, (uint64_t)a);
		if (a != floor(a)) b[n++] = '.', b[n++] = '5';
		b[n] = 0;
		return n;
	}
	return (size_t)snprintf(b, FMT_DBL_MAX, "%g", v);
}

bool parse_u64(const char *s, size_t n, uint64_t *out)
{
	if (n == 0) return false;
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned char)s[i] - '0';
		if (d > 9) return false;
		if (v > (UINT64_MAX - d) / 10) return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

bool parse_i64(const char *s, size_t n, int64_t *out)
{
	bool neg = n > 0 && s[0] == '-';
	uint64_t u;
	if (!parse_u64(s + neg, n - neg, &u)) return false;
	if (neg) {
		if (u > (uint64_t)INT64_MAX + 1) return false;
		*out = (int64_t)(0 - u);
	} else {
		if (u > (uint64_t)INT64_MAX) return false;
		*out = (int64_t)u;
	}
	return true;
}

int tmpfile_unlinked(const char *tag)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir) dir = "/tmp";
	sbuf path = { 0 };
	sbuf_printf(&path, "%s/%s.XXXXXX", dir, tag);
	int fd = mkstemp(path.p);
	if (fd < 0) die(EXIT_DATA, "%s: cannot make a temporary file: %s", dir, strerror(errno));
	unlink(path.p);
	sbuf_free(&path);
	return fd;
}

void tmpfile_write(int fd, const void *p, size_t n)
{
	const char *s = p;
	while (n > 0) {
		ssize_t k = write(fd, s, n);
		if (k < 0) {
			if (errno == EINTR) continue;
			die(EXIT_DATA, "temporary file: write error: %s", strerror(errno));
		}
		s += k;
		n -= (size_t)k;
	}
}

static inline uint64_t rec_key(const char *rec, size_t key)
{
	uint64_t k;
	memcpy(&k, rec + key, sizeof k);
	return k;
}

/* One pass of the radix sort: src's records to their places in dst by the
 * digit at shift (inlined with size a constant). */
static inline __attribute__((always_inline)) void scatter(char *dst, const char *src, uint32_t n, size_t size,
							 size_t key, int shift, uint32_t *pos)
{
	for (uint32_t i = 0; i < n; i++) {
		const char *r = src + (size_t)i * size;
		memcpy(dst + (size_t)pos[(rec_key(r, key) >> shift) & 255]++ * size, r, size);
	}
}

void radix_sort_u64(void *base, uint32_t n, size_t size, size_t key)
{
	if (n < 2) return;
	char *x = base;
	/* already in order (as /proc/kallsyms is): a stable sort leaves it */
	uint32_t s = 1;
	while (s < n && rec_key(x + (size_t)(s - 1) * size, key) <= rec_key(x + (size_t)s * size, key)) s++;
	if (s == n) return;
	uint32_t (*count)[256] = xcalloc(8, sizeof *count);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t k = rec_key(x + (size_t)i * size, key);
		for (int d = 0; d < 8; d++) count[d][(k >> (8 * d)) & 255]++;
	}
	char *tmp = xmalloc((size_t)n * size), *src = x, *dst = tmp;
	uint64_t k0 = rec_key(x, key);
	for (int d = 0; d < 8; d++) {
		if (count[d][(k0 >> (8 * d)) & 255] == n) continue; /* a digit all share */
		uint32_t pos[256], sum = 0;
		for (int k = 0; k < 256; k++) {
			pos[k] = sum;
			sum += count[d][k];
		}
		/* the usual record sizes copied inline, not by a call to memcpy a record */
		switch (size) {
		case 24: scatter(dst, src, n, 24, key, 8 * d, pos); break;
		case 32: scatter(dst, src, n, 32, key, 8 * d, pos); break;
		case 40: scatter(dst, src, n, 40, key, 8 * d, pos); break;
		default: scatter(dst, src, n, size, key, 8 * d, pos); break;
		}
		char *t = src;
		src = dst;
		dst = t;
	}
	if (src != x) memcpy(x, src, (size_t)n * size);
	free(tmp);
	free(count);
}
