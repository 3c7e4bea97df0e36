/* json.c - strict RFC 8259 parser producing a flat tape (see json.h).
 *
 * One pass, no recursion, no allocation per value.  The parser is a small
 * state machine driven by gotos (value / key / after-value) with an explicit
 * stack of open containers, bounded by JSON_MAX_DEPTH.
 *
 * Strings: bytes that need no attention (printable ASCII other than '"' and
 * '\\') are skipped eight at a time with word-wide bit tricks; multi-byte
 * UTF-8 is validated inline.  A string without escapes points into the
 * input.  A string with escapes is decoded into d->scratch.  The scratch
 * buffer is made at least as large as the whole text the first time an escape
 * is met in a parse (decoding never makes a string longer than its source),
 * so it is never reallocated after the first decoded string of a parse and the
 * pointers into it stay valid: no fix-up pass is needed.
 *
 * Numbers: parsed inline; integers exactly (int64 / uint64), other numbers
 * with the exact "fast path" (mantissa <= 2^53, power of ten <= 22, one
 * correctly rounded IEEE operation) or with strtod() on a copy of the text.
 */
#include "json.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>
#include "utf8.h"
#include "util.h"

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

void json_doc_init(json_doc *d)
{
	memset(d, 0, sizeof *d);
}

void json_doc_free(json_doc *d)
{
	free(d->nodes);
	free(d->scratch);
	memset(d, 0, sizeof *d);
}

/* ---- byte classes ---------------------------------------------------- */


static const uint8_t ws_byte[256] = {
	[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1,
};




/* ---- tape ------------------------------------------------------------ */

static __attribute__((noinline)) void grow_nodes(json_doc *d)
{
	uint32_t cap = d->cap ? d->cap : 32;
	if (cap >= UINT32_MAX / 2)
		cap = UINT32_MAX;
	else
		cap *= 2;
	d->nodes = xrealloc(d->nodes, (size_t)cap * sizeof *d->nodes);
	d->cap = cap;
}

static __attribute__((noinline)) void grow_scratch(json_doc *d, size_t need)
{
	size_t cap = d->scratch_cap * 2;
	if (cap < need) cap = need;
	if (cap < 256) cap = 256;
	/* nothing decoded yet in this parse: no need to keep the contents */
	free(d->scratch);
	d->scratch = xmalloc(cap);
	d->scratch_cap = cap;
}

/* Records an error at byte `at` and returns NULL (the scanners' failure). */
static __attribute__((noinline, cold)) const uint8_t *
fail_at(json_doc *d, const uint8_t *text, const uint8_t *at, const char *msg)
{
	d->err_pos = (size_t)(at - text);
	d->err_msg = msg;
	return NULL;
}

/* ---- strings --------------------------------------------------------- */

/* The slow part of a string: from the first backslash on, decode into
 * scratch.  s: first byte of the string's contents; p: the backslash.  On
 * success fills nd and returns the position after the closing quote; on
 * error returns NULL with the error recorded. */
static __attribute__((noinline)) const uint8_t *
decode_str(json_doc *d, const uint8_t *text, const uint8_t *p, const uint8_t *s,
	   const uint8_t *end, json_node *nd)
{
	size_t textlen = (size_t)(end - text);
	const uint8_t *r;
	char *o, *start;

	/* Decoded text is never longer than its source, so a scratch buffer
	 * of the whole text's size holds every string decoded in this parse.
	 * This can only be false at the first escape of a parse (scratch_len
	 * is still 0), so no earlier pointer into scratch is invalidated. */
	if (d->scratch_cap < textlen)
		grow_scratch(d, textlen);
	start = o = d->scratch + d->scratch_len;
	memcpy(o, s, (size_t)(p - s));
	o += p - s;

	for (;;) {
		uint8_t c = *p;
		if (c == '\\') {
			int32_t cp;
			if (end - p < 2)
				goto eol;
			switch (p[1]) {
			case '"': *o++ = '"'; p += 2; break;
			case '\\': *o++ = '\\'; p += 2; break;
			case '/': *o++ = '/'; p += 2; break;
			case 'b': *o++ = '\b'; p += 2; break;
			case 'f': *o++ = '\f'; p += 2; break;
			case 'n': *o++ = '\n'; p += 2; break;
			case 'r': *o++ = '\r'; p += 2; break;
			case 't': *o++ = '\t'; p += 2; break;
			case 'u':
				if (end - p < 6)
					goto eol_or_hex;
				if ((cp = utf8_hex4(p + 2)) < 0) {
					return fail_at(d, text, p, "invalid \\u escape");
				}
				if (cp >= 0xD800 && cp <= 0xDBFF) {
					int32_t lo;
					if (end - p < 12 || p[6] != '\\' || p[7] != 'u' ||
					    (lo = utf8_hex4(p + 8)) < 0xDC00 || lo > 0xDFFF) {
						return fail_at(d, text, p, "lone surrogate in \\u escape");
					}
					cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
					p += 6;
				} else if (cp >= 0xDC00 && cp <= 0xDFFF) {
					return fail_at(d, text, p, "lone surrogate in \\u escape");
				}
				if (cp == 0) { /* never a NUL in a string (utf8.h) */
					cp = UTF8_NUL_AS;
					d->nuls++;
				}
				o = utf8_put(o, (uint32_t)cp);
				p += 6;
				break;
			default:
				return fail_at(d, text, p, "invalid escape");
			}
		} else if (c == '"') {
			break;
		} else if (c < 0x20) {
			return fail_at(d, text, p, "control character in string");
		} else { /* >= 0x80 */
			int n = utf8_seq(p, end);
			if (n <= 0) {
				return fail_at(d, text, p, "invalid UTF-8 in string");
			}
			memcpy(o, p, (size_t)n);
			o += n;
			p += n;
		}
		r = p;
		p = utf8_skip_plain(p, end);
		memcpy(o, r, (size_t)(p - r));
		o += p - r;
		if (p == end)
			goto eol;
	}
	nd->type = JSON_STRING;
	nd->str = start;
	nd->count = (uint32_t)(o - start);
	d->scratch_len += (size_t)(o - start);
	return p + 1;
eol_or_hex:
	/* fewer than 4 characters left after "\u": bad hex, or end of line */
	for (r = p + 2; r < end; r++) {
		if (utf8_hexval(*r) < 0) {
			return fail_at(d, text, p, "invalid \\u escape");
		}
	}
eol:
	return fail_at(d, text, end, "unexpected end of line");
}

/* A string whose opening quote is just before p: returns the position after
 * the closing quote, or NULL on error. */
static inline const uint8_t *parse_str(json_doc *d, const uint8_t *text, const uint8_t *p,
				       const uint8_t *end, json_node *nd)
{
	const uint8_t *s = p;
	for (;;) {
		p = utf8_skip_plain(p, end);
		if (unlikely(p == end)) {
			return fail_at(d, text, p, "unexpected end of line");
		}
		uint8_t c = *p;
		if (likely(c == '"'))
			break;
		if (c == '\\')
			return decode_str(d, text, p, s, end, nd);
		if (c < 0x20) {
			return fail_at(d, text, p, "control character in string");
		}
		int n = utf8_seq(p, end);
		if (n <= 0) {
			return fail_at(d, text, p, "invalid UTF-8 in string");
		}
		p += n;
	}
	nd->type = JSON_STRING;
	nd->str = (const char *)s;
	nd->count = (uint32_t)(p - s);
	return p + 1;
}

/* ---- numbers --------------------------------------------------------- */

static const double pow10_exact[23] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

static __attribute__((noinline)) double slow_strtod(const uint8_t *s, size_t n)
{
	char buf[128], *tmp = buf;
	double v;
	if (n >= sizeof buf)
		tmp = xmalloc(n + 1);
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	v = strtod(tmp, NULL); /* the C locale: nothing here calls setlocale() */
	if (tmp != buf)
		free(tmp);
	return v;
}

/* A number starting at p (a '-' or a digit): returns the position after it,
 * or NULL on error. */
static inline const uint8_t *parse_num(json_doc *d, const uint8_t *text, const uint8_t *p,
				       const uint8_t *end, json_node *nd)
{
	const uint8_t *s = p;
	uint64_t m = 0;
	int nd_digits = 0;      /* digits accumulated into m */
	bool neg = false, ovf = false, isfloat = false;
	int64_t e10 = 0;

	if (*p == '-') {
		neg = true;
		p++;
		if (p == end || (unsigned)(*p - '0') > 9) {
			return fail_at(d, text, p, "invalid number");
		}
	}
	if (*p == '0') {
		p++;
		if (p < end && (unsigned)(*p - '0') <= 9) {
			return fail_at(d, text, p, "invalid number"); /* leading zero */
		}
	} else {
		unsigned dg;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		/* Up to 7 digits without a branch per digit: find where the
		 * digits end in an 8-byte word, then combine them pairwise. */
		if (likely(end - p >= 8)) {
			uint64_t x, a, b, nz, f;
			memcpy(&x, p, 8);
			a = (x & 0xF0F0F0F0F0F0F0F0ULL) ^ 0x3030303030303030ULL;
			b = ((x + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) ^ 0x3030303030303030ULL;
			nz = a | b; /* zero bytes: digits (exact up to the first non-digit) */
			f = ((nz + 0x7F7F7F7F7F7F7F7FULL) | nz) & 0x8080808080808080ULL;
			if (likely(f)) {
				unsigned l = (unsigned)__builtin_ctzll(f) >> 3; /* 1..7 digits */
				uint64_t v = (x - 0x3030303030303030ULL) << (64 - 8 * l);
				v = (v * 10 + (v >> 8)) & 0x00FF00FF00FF00FFULL;
				v = (v * 100 + (v >> 16)) & 0x0000FFFF0000FFFFULL;
				v = (v * 10000 + (v >> 32)) & 0xFFFFFFFFULL;
				m = v;
				nd_digits = (int)l;
				p += l;
				goto int_done;
			}
		}
#endif
		while (p < end && (dg = (unsigned)(*p - '0')) <= 9) {
			if (likely(nd_digits < 19)) {
				m = m * 10 + dg;
			} else if (__builtin_mul_overflow(m, 10, &m) ||
				   __builtin_add_overflow(m, dg, &m)) {
				ovf = true;
			}
			nd_digits++;
			p++;
		}
	}
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
int_done:
#endif
	if (p < end && *p == '.') {
		unsigned dg;
		isfloat = true;
		p++;
		if (p == end || (unsigned)(*p - '0') > 9) {
			return fail_at(d, text, p, "invalid number");
		}
		while (p < end && (dg = (unsigned)(*p - '0')) <= 9) {
			if (nd_digits < 19) {
				m = m * 10 + dg;
				e10--;
				nd_digits++;
			} else {
				ovf = true; /* inexact: leave it to strtod */
			}
			p++;
		}
	}
	if (p < end && (*p | 0x20) == 'e') {
		bool eneg = false;
		int64_t ev = 0;
		unsigned dg;
		isfloat = true;
		p++;
		if (p < end && (*p == '+' || *p == '-')) {
			eneg = *p == '-';
			p++;
		}
		if (p == end || (unsigned)(*p - '0') > 9) {
			return fail_at(d, text, p, "invalid number");
		}
		while (p < end && (dg = (unsigned)(*p - '0')) <= 9) {
			if (ev < 100000)
				ev = ev * 10 + dg;
			p++;
		}
		e10 += eneg ? -ev : ev;
	}
	nd->str = (const char *)s;
	nd->num_len = (uint32_t)(p - s);
	if (likely(!isfloat && !ovf)) {
		if (!neg) {
			if (m <= (uint64_t)INT64_MAX) {
				nd->type = JSON_INT;
				nd->v.i = (int64_t)m;
			} else {
				nd->type = JSON_UINT;
				nd->v.u = m;
			}
			return p;
		}
		if (m <= (uint64_t)INT64_MAX + 1) {
			nd->type = JSON_INT;
			nd->v.i = (int64_t)(0 - m);
			return p;
		}
	}
	nd->type = JSON_DOUBLE;
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
	if (!ovf && m <= (1ULL << 53) && e10 >= -22 && e10 <= 22) {
		double v = (double)m;
		v = e10 < 0 ? v / pow10_exact[-e10] : v * pow10_exact[e10];
		nd->v.d = neg ? -v : v;
		return p;
	}
#endif
	nd->v.d = slow_strtod(s, (size_t)(p - s));
	return p;
}

/* ---- the parser ------------------------------------------------------ */

#define SKIP_WS() do { while (p < end && *p <= ' ' && ws_byte[*p]) p++; } while (0)
#define FAIL(at, msg) do { err_at = (at); err = (msg); goto fail; } while (0)

/* Appends a node (locals n, cap, nodes of json_parse). */
#define NEW_NODE() do { \
		if (unlikely(n == cap)) { \
			d->n = n; \
			grow_nodes(d); \
			nodes = d->nodes; \
			cap = d->cap; \
		} \
		k = n++; \
		nd = &nodes[k]; \
	} while (0)

int json_parse(json_doc *d, const char *text, size_t len)
{
	const uint8_t *text8 = (const uint8_t *)text, *p = text8, *end = p + len, *err_at;
	const char *err;
	/* The open containers: the innermost one is kept in locals (cur: its
	 * node, cnt: its elements so far, in_obj: is it an object), the outer
	 * ones on a stack. */
	uint32_t stk_node[JSON_MAX_DEPTH], stk_cnt[JSON_MAX_DEPTH];
	unsigned depth = 0;
	uint32_t cur = 0, cnt = 0;
	bool in_obj = false;
	json_node *nodes = d->nodes, *nd;
	uint32_t n = 0, cap = d->cap, k;

	d->scratch_len = 0;
	d->nuls = 0;
	d->err_pos = 0;
	d->err_msg = NULL;
	/* every node starts at a byte of its own, so with len < UINT32_MAX
	 * neither node indexes nor string lengths can overflow */
	if (unlikely(len >= UINT32_MAX))
		FAIL(p, "text too long");

value:
	SKIP_WS();
	if (unlikely(p == end))
		FAIL(p, "unexpected end of line");
	NEW_NODE();
	switch (*p) {
	case '"':
		if (unlikely(!(p = parse_str(d, text8, p + 1, end, nd))))
			goto failed;
		break;
	case '{':
	case '[':
		if (unlikely(depth == JSON_MAX_DEPTH))
			FAIL(p, "nesting too deep");
		in_obj = *p == '{';
		nd->type = in_obj ? JSON_OBJECT : JSON_ARRAY;
		nd->str = NULL;
		if (depth) {
			stk_node[depth - 1] = cur;
			stk_cnt[depth - 1] = cnt;
		}
		depth++;
		cur = k;
		cnt = 0;
		p++;
		SKIP_WS();
		if (p < end && *p == (in_obj ? '}' : ']')) {
			p++;
			goto close;
		}
		if (in_obj)
			goto key;
		goto value;
	case '-': case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		nd->count = 0;
		if (unlikely(!(p = parse_num(d, text8, p, end, nd))))
			goto failed;
		break;
	case 't':
		if (end - p < 4 || memcmp(p, "true", 4) != 0)
			FAIL(p, "invalid literal");
		nd->type = JSON_TRUE;
		goto literal;
	case 'f':
		if (end - p < 5 || memcmp(p, "false", 5) != 0)
			FAIL(p, "invalid literal");
		nd->type = JSON_FALSE;
		p++;
		goto literal;
	case 'n':
		if (end - p < 4 || memcmp(p, "null", 4) != 0)
			FAIL(p, "invalid literal");
		nd->type = JSON_NULL;
	literal:
		p += 4;
		nd->count = 0;
		nd->str = NULL;
		break;
	default:
		FAIL(p, "expected a value");
	}
	nd->next = k + 1;

after:
	/* a value is complete; what follows depends on the open container */
	if (unlikely(depth == 0))
		goto done;
	cnt++;
	SKIP_WS();
	if (unlikely(p == end))
		FAIL(p, "unexpected end of line");
	if (in_obj) {
		if (likely(*p == ',')) {
			p++;
			SKIP_WS();
			goto key;
		}
		if (likely(*p == '}')) {
			p++;
			goto close;
		}
		FAIL(p, "expected ',' or '}'");
	} else {
		if (likely(*p == ',')) {
			p++;
			goto value;
		}
		if (likely(*p == ']')) {
			p++;
			goto close;
		}
		FAIL(p, "expected ',' or ']'");
	}

close:
	/* the innermost container ends: complete its node, reopen the parent */
	nodes[cur].count = cnt;
	nodes[cur].next = n;
	if (--depth) {
		cur = stk_node[depth - 1];
		cnt = stk_cnt[depth - 1];
		in_obj = nodes[cur].type == JSON_OBJECT;
	}
	goto after;

key:
	/* p is at the expected opening quote of a member name */
	if (unlikely(p == end))
		FAIL(p, "unexpected end of line");
	if (unlikely(*p != '"'))
		FAIL(p, "expected string key");
	NEW_NODE();
	if (unlikely(!(p = parse_str(d, text8, p + 1, end, nd))))
		goto failed;
	nd->next = k + 1;
	SKIP_WS();
	if (unlikely(p == end))
		FAIL(p, "unexpected end of line");
	if (unlikely(*p != ':'))
		FAIL(p, "expected ':'");
	p++;
	goto value;

done:
	SKIP_WS();
	if (unlikely(p != end))
		FAIL(p, "trailing characters after value");
	d->n = n;
	return 0;

fail:
	d->err_pos = (size_t)(err_at - text8);
	d->err_msg = err;
failed:
	d->n = n;
	return -1;
}

/* ---- access ---------------------------------------------------------- */

uint32_t json_get(const json_doc *d, uint32_t obj, const char *key)
{
	const json_node *nodes = d->nodes;
	size_t kl = strlen(key);
	uint32_t k, end;

	if (obj >= d->n || nodes[obj].type != JSON_OBJECT)
		return 0;
	end = nodes[obj].next;
	for (k = obj + 1; k < end; k = nodes[k + 1].next) {
		if (nodes[k].count == kl && memcmp(nodes[k].str, key, kl) == 0)
			return k + 1;
	}
	return 0;
}

void json_get_keys(const json_doc *d, uint32_t obj, const char *const *keys, uint32_t nkeys, uint32_t *out)
{
	const json_node *nodes = d->nodes;
	memset(out, 0, nkeys * sizeof *out);
	if (obj >= d->n || nodes[obj].type != JSON_OBJECT) return;
	uint32_t end = nodes[obj].next;
	for (uint32_t k = obj + 1; k < end; k = nodes[k + 1].next) {
		const json_node *key = &nodes[k];
		for (uint32_t i = 0; i < nkeys; i++) {
			/* (the first byte first: most keys differ there) */
			if (out[i] || !key->count || key->str[0] != keys[i][0] ||
			    strlen(keys[i]) != key->count || memcmp(key->str, keys[i], key->count) != 0)
				continue;
			out[i] = k + 1;
			break;
		}
	}
}

int json_get_keys_once(const json_doc *d, uint32_t obj, const char *const *keys, uint32_t nkeys, uint32_t *out)
{
	const json_node *nodes = d->nodes;
	memset(out, 0, nkeys * sizeof *out);
	if (obj >= d->n || nodes[obj].type != JSON_OBJECT) return -1;
	uint32_t end = nodes[obj].next;
	for (uint32_t k = obj + 1; k < end; k = nodes[k + 1].next) {
		const json_node *key = &nodes[k];
		for (uint32_t i = 0; i < nkeys; i++) {
			if (!key->count || key->str[0] != keys[i][0] || strlen(keys[i]) != key->count ||
			    memcmp(key->str, keys[i], key->count) != 0)
				continue;
			if (out[i]) return (int)i;
			out[i] = k + 1;
			break;
		}
	}
	return -1;
}

uint32_t json_dup_key(const json_doc *d, uint32_t obj)
{
	const json_node *nodes = d->nodes;
	if (obj >= d->n || nodes[obj].type != JSON_OBJECT) return 0;
	uint32_t end = nodes[obj].next;
	for (uint32_t k = obj + 1; k < end; k = nodes[k + 1].next)
		for (uint32_t j = obj + 1; j < k; j = nodes[j + 1].next)
			if (nodes[j].count == nodes[k].count && memcmp(nodes[j].str, nodes[k].str, nodes[k].count) == 0)
				return k;
	return 0;
}

bool json_int64(const json_doc *d, uint32_t k, int64_t *out)
{
	if (k >= d->n || d->nodes[k].type != JSON_INT)
		return false;
	*out = d->nodes[k].v.i;
	return true;
}
