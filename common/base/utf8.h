/* utf8.h - the byte scanning shared by the JSON parser and writers: a
 * word-at-a-time skip over plain string bytes, and UTF-8 sequence checks;
 * code points written as UTF-8, and the four hex digits of a \u escape. */
#ifndef SPAA_UTF8_H
#define SPAA_UTF8_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* NUL in names, one rule for every reader and writer (spaa(5)): a string in
 * SPAA never holds U+0000, which C strings would cut.  A writer writes a NUL
 * byte of a name read from its input as U+FFFD (as it writes bytes that are
 * not UTF-8), and hashes it so into content ids (build.c's as_written); a
 * reader reads the escape \u0000 as U+FFFD (json.c, heapsnap.c), and
 * spaa-validate warns about it. */
#define UTF8_NUL_AS 0xFFFDu
#define UTF8_NUL_AS_BYTES "\xef\xbf\xbd"

/* Writes code point cp (at most 0x10FFFF) at o as UTF-8: returns the end. */
static inline char *utf8_put(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		*o++ = (char)cp;
	} else if (cp < 0x800) {
		*o++ = (char)(0xC0 | (cp >> 6));
		*o++ = (char)(0x80 | (cp & 0x3F));
	} else if (cp < 0x10000) {
		*o++ = (char)(0xE0 | (cp >> 12));
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
		*o++ = (char)(0x80 | (cp & 0x3F));
	} else {
		*o++ = (char)(0xF0 | (cp >> 18));
		*o++ = (char)(0x80 | ((cp >> 12) & 0x3F));
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
		*o++ = (char)(0x80 | (cp & 0x3F));
	}
	return o;
}

static inline int utf8_hexval(uint8_t c)
{
	if (c >= '0' && c <= '9') return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	return -1;
}

/* Four hex digits at p (the caller checked 4 bytes are there), or -1. */
static inline int32_t utf8_hex4(const void *v)
{
	const uint8_t *p = v;
	int a = utf8_hexval(p[0]), b = utf8_hexval(p[1]), c = utf8_hexval(p[2]), e = utf8_hexval(p[3]);
	if ((a | b | c | e) < 0) return -1;
	return (a << 12) | (b << 8) | (c << 4) | e;
}

/* Advance p over plain string bytes: printable ASCII other than '"' and
 * '\\'.  Returns the first other byte ('"', '\\', < 0x20 or >= 0x80) or end.
 * Eight bytes at a time: a byte is flagged when it is zero after xor with '"'
 * or '\\', below 0x20, or has its high bit set; borrows can only flag bytes
 * after a real match, so the lowest flag is exact. */
static inline const uint8_t *utf8_skip_plain(const uint8_t *p, const uint8_t *end)
{
	const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
	while (end - p >= 8) {
		uint64_t x, q, b, m;
		memcpy(&x, p, 8);
		q = x ^ (ones * '"');
		b = x ^ (ones * '\\');
		m = (((q - ones) & ~q) | ((b - ones) & ~b) |
		     ((x - ones * 0x20) & ~x) | x) & high;
		if (m) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
			return p + (__builtin_clzll(m) >> 3);
#else
			return p + (__builtin_ctzll(m) >> 3);
#endif
		}
		p += 8;
	}
	while (p < end && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
		p++;
	return p;
}

/* For a byte c >= 0x80 at p: length of the valid UTF-8 sequence there (2..4),
 * or minus the length of the maximal invalid subpart (-1..-3), which is
 * replaced by a single U+FFFD (the Unicode "maximal subpart" practice). */
static inline int utf8_seq(const uint8_t *p, const uint8_t *end)
{
	uint8_t c = p[0], lo = 0x80, hi = 0xBF;
	size_t avail = (size_t)(end - p);
	int n;

	if (c < 0xC2)
		return -1;
	if (c < 0xE0)
		return avail >= 2 && (p[1] & 0xC0) == 0x80 ? 2 : -1;
	if (c < 0xF0) {
		n = 3;
		if (c == 0xE0) lo = 0xA0;
		else if (c == 0xED) hi = 0x9F;
	} else if (c < 0xF5) {
		n = 4;
		if (c == 0xF0) lo = 0x90;
		else if (c == 0xF4) hi = 0x8F;
	} else {
		return -1;
	}
	if (avail < 2 || p[1] < lo || p[1] > hi)
		return -1;
	if (avail < 3 || (p[2] & 0xC0) != 0x80)
		return -2;
	if (n == 3)
		return 3;
	if (avail < 4 || (p[3] & 0xC0) != 0x80)
		return -3;
	return 4;
}

/* The length of the longest valid UTF-8 prefix of [p, end): end - p when
 * all of it is UTF-8.  ASCII goes eight bytes at a time. */
static inline size_t utf8_valid_len(const uint8_t *p, const uint8_t *end)
{
	const uint8_t *q = p;
	while (q < end) {
		while (end - q >= 8) {
			uint64_t x;
			memcpy(&x, q, 8);
			if (x & 0x8080808080808080ULL) break;
			q += 8;
		}
		while (q < end && *q < 0x80) q++;
		if (q == end) break;
		int l = utf8_seq(q, end);
		if (l < 0) break;
		q += l;
	}
	return (size_t)(q - p);
}

#endif
