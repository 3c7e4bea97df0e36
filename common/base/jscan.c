/* jscan.c - reading one large JSON text in pieces (see jscan.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "jscan.h"

/* Bytes that matter inside strings, and outside them. */
static bool str_special[256], struct_special[256];

void jscan_init(jscan *r, input *in, const char *name)
{
	str_special['"'] = str_special['\\'] = true;
	struct_special['"'] = struct_special['{'] = struct_special['}'] = true;
	struct_special['['] = struct_special[']'] = struct_special['\n'] = true;
	memset(r, 0, sizeof *r);
	r->in = in;
	r->name = name;
	r->cap = 1 << 20;
	r->line = 1;
	r->buf = xcalloc(r->cap + 8, 1);
	json_doc_init(&r->sdoc);
}

void jscan_free(jscan *r)
{
	free(r->buf);
	json_doc_free(&r->sdoc);
	r->buf = NULL;
}

bool jscan_fill(jscan *r, size_t keep)
{
	if (r->eof) return false;
	if (keep > 0) {
		memmove(r->buf, r->buf + keep, r->len - keep);
		r->base += keep;
		r->len -= keep;
		r->pos -= keep;
	}
	if (r->len == r->cap) {
		/* one value is kept whole: it is bounded as a whole input is */
		if (r->cap >= input_max_size()) input_too_big(r->name, "a JSON value of");
		r->cap *= 2;
		r->buf = xrealloc(r->buf, r->cap + 8);
	}
	size_t n = input_read(r->in, r->buf + r->len, r->cap - r->len);
	if (n == 0) {
		r->eof = true;
		memset(r->buf + r->len, 0, 8);
		return false;
	}
	r->len += n;
	memset(r->buf + r->len, 0, 8); /* the sentinel of fast scanners */
	return true;
}

bool jscan_seek(jscan *r, uint64_t off, uint64_t line)
{
	if (off >= r->base && off - r->base <= r->len) {
		r->pos = (size_t)(off - r->base);
		r->line = line;
		return true;
	}
	if (!input_seek(r->in, off)) return false;
	r->base = off;
	r->pos = r->len = 0;
	r->eof = false;
	r->line = line;
	memset(r->buf, 0, 8);
	return true;
}

int jscan_peek(jscan *r)
{
	for (;;) {
		while (r->pos < r->len) {
			char c = r->buf[r->pos];
			if (c == '\n') r->line++;
			else if (c != ' ' && c != '\t' && c != '\r') return (unsigned char)c;
			r->pos++;
		}
		if (!jscan_fill(r, r->pos)) return -1;
	}
}

bool jscan_value(jscan *r, size_t *end, bool keep)
{
	size_t i = r->pos;
	int depth = 0;
	bool in_str = false, esc = false;
	uint64_t lines = 0;
	char first = r->buf[i];
	if (first != '{' && first != '[' && first != '"') {
		/* a scalar: up to a delimiter */
		for (;;) {
			while (i < r->len) {
				char c = r->buf[i];
				if (c == ',' || c == ']' || c == '}' || c == ':' || c == ' ' || c == '\n' ||
				    c == '\t' || c == '\r')
					goto done;
				i++;
			}
			size_t off = r->pos;
			if (!jscan_fill(r, off)) goto done;
			i -= off;
		}
	}
	for (;;) {
		const unsigned char *b = (const unsigned char *)r->buf;
		size_t n = r->len;
		while (i < n) {
			if (in_str) {
				if (esc) {
					esc = false;
					i++;
					continue;
				}
				while (i < n && !str_special[b[i]]) i++;
				if (i == n) break;
				if (b[i++] == '\\') {
					esc = true;
					continue;
				}
				in_str = false;
				if (depth == 0) goto done;
				continue;
			}
			while (i < n && !struct_special[b[i]]) i++;
			if (i == n) break;
			switch (b[i++]) {
			case '"': in_str = true; break;
			case '{': case '[': depth++; break;
			case '}': case ']':
				if (--depth == 0) goto done;
				break;
			case '\n': lines++; break;
			}
		}
		size_t off = keep ? r->pos : i;
		if (!keep) r->pos = i;
		if (!jscan_fill(r, off)) {
			r->line += lines;
			*end = r->len;
			return false;
		}
		i -= off;
	}
done:
	r->line += lines;
	*end = i;
	return true;
}

/* ---- the walker ------------------------------------------------------------ */

void jscan_fail(jscan *r, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	die_at(r->name, r->line, "%s (byte %llu)", msg, (unsigned long long)jscan_offset(r));
}

static int need(jscan *r)
{
	int c = jscan_peek(r);
	if (c < 0) jscan_fail(r, "input ends inside the JSON text (truncated file?)");
	return c;
}

int jscan_start(jscan *r)
{
	int c = jscan_peek(r);
	if (c == 0xef && r->len - r->pos >= 3 && !memcmp(r->buf + r->pos, "\xef\xbb\xbf", 3)) {
		r->pos += 3;
		c = jscan_peek(r);
	}
	return c;
}

void jscan_open(jscan *r, char c, const char *what)
{
	if (need(r) != c) jscan_fail(r, "expected %s", what);
	r->pos++;
}

bool jscan_more(jscan *r, bool *first, char close)
{
	int c = need(r);
	if (c == close) {
		r->pos++;
		return false;
	}
	if (!*first) {
		if (c != ',') jscan_fail(r, "expected ',' or '%c'", close);
		r->pos++;
		c = need(r);
		if (c == close) jscan_fail(r, "trailing comma before '%c'", close);
	}
	*first = false;
	return true;
}

/* The string at pos (not decoded), its bytes kept contiguous: returns the
 * bytes between the quotes and consumes the string. */
static sstr raw_string(jscan *r, const char *what)
{
	if (need(r) != '"') jscan_fail(r, "expected %s (a string)", what);
	size_t end;
	if (!jscan_value(r, &end, true)) jscan_fail(r, "input ends inside a string");
	sstr s = { r->buf + r->pos + 1, end - r->pos - 2 };
	r->pos = end;
	return s;
}

sstr jscan_key(jscan *r)
{
	sstr k = raw_string(r, "a member name");
	/* copied: reading on to the ':' may move the buffer */
	size_t n = k.n < sizeof r->key ? k.n : sizeof r->key;
	memcpy(r->key, k.p, n);
	if (need(r) != ':') jscan_fail(r, "expected ':' after a member name");
	r->pos++;
	/* a longer name than any the readers look for: matches none of them */
	return (sstr){ r->key, k.n < sizeof r->key ? n : 0 };
}

static inline bool is_digit(unsigned char c) { return (unsigned)(c - '0') <= 9; }

bool jscan_num(jscan *r, int64_t *v, double *d)
{
	num x = jscan_numv(r);
	if (x.kind == NUM_INT) *v = x.i;
	else *d = num_to_double(x);
	return x.kind == NUM_INT;
}

num jscan_numv(jscan *r)
{
	int c = need(r);
	if (c != '-' && !is_digit((unsigned char)c)) jscan_fail(r, "expected a number");
	/* fast path: a short integer wholly in the buffer */
	const char *p = r->buf + r->pos, *e = r->buf + r->len;
	bool neg = *p == '-';
	const char *q = p + neg;
	uint64_t x = 0;
	int nd = 0;
	while (q < e && is_digit((unsigned char)*q) && nd < 18) x = x * 10 + (uint64_t)(*q++ - '0'), nd++;
	if (q < e && nd > 0 && nd < 18 && (*q == ',' || *q == ']' || *q == '}' || *q == ' ' || *q == '\n' || *q == '\r' || *q == '\t') &&
	    !(p[neg] == '0' && nd > 1)) {
		r->pos = (size_t)(q - r->buf);
		return num_i(neg ? -(int64_t)x : (int64_t)x);
	}
	size_t end;
	jscan_value(r, &end, true);
	size_t n = end - r->pos;
	json_doc *doc = &r->sdoc;
	if (json_parse(doc, r->buf + r->pos, n) || !json_is_num(doc, 0)) jscan_fail(r, "expected a number");
	r->pos = end;
	if (doc->nodes[0].type == JSON_INT) return num_i(doc->nodes[0].v.i);
	if (doc->nodes[0].type == JSON_UINT) return num_u(doc->nodes[0].v.u);
	return num_d(doc->nodes[0].v.d);
}

int64_t jscan_int(jscan *r, const char *what)
{
	int64_t v;
	double d;
	int c = need(r);
	if (c != '-' && !is_digit((unsigned char)c)) jscan_fail(r, "expected %s (an integer)", what);
	if (!jscan_num(r, &v, &d)) jscan_fail(r, "%s is not an integer in 64-bit range", what);
	return v;
}

static inline bool is_blank(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

size_t jscan_ints(jscan *r, bool *first, int64_t *out, size_t max, const char *what, bool *done)
{
	size_t n = 0;
	*done = false;
	while (n < max) {
		/* the fast way: an element wholly inside the buffer, blanks,
		 * comma, an integer of at most 18 digits, then a delimiter */
		if (r->len - r->pos >= 64) {
			const char *p = r->buf + r->pos, *e = r->buf + r->len - 24;
			uint64_t lines = 0;
			while (p < e && is_blank(*p)) lines += *p++ == '\n';
			if (p < e && (*first || *p == ',')) {
				if (!*first) {
					p++;
					while (p < e && is_blank(*p)) lines += *p++ == '\n';
				}
				bool neg = *p == '-';
				const char *q = p + neg;
				uint64_t x = 0;
				int nd = 0;
				while (nd < 19 && is_digit((unsigned char)*q)) x = x * 10 + (uint64_t)(*q++ - '0'), nd++;
				char c = *q;
				if (p < e && nd > 0 && nd <= 18 && !(nd > 1 && p[neg] == '0') &&
				    (c == ',' || c == ']' || is_blank(c))) {
					out[n++] = neg ? -(int64_t)x : (int64_t)x;
					r->line += lines;
					r->pos = (size_t)(q - r->buf);
					*first = false;
					continue;
				}
			}
		}
		if (!jscan_more(r, first, ']')) {
			*done = true;
			return n;
		}
		out[n++] = jscan_int(r, what);
	}
	return n;
}

sstr jscan_str(jscan *r, const char *what)
{
	if (need(r) != '"') jscan_fail(r, "expected %s (a string)", what);
	size_t end;
	if (!jscan_value(r, &end, true)) jscan_fail(r, "input ends inside a string");
	json_doc *doc = &r->sdoc;
	if (json_parse(doc, r->buf + r->pos, end - r->pos))
		jscan_fail(r, "%s: %s", what, doc->err_msg);
	r->pos = end;
	return (sstr){ doc->nodes[0].str, doc->nodes[0].count };
}

bool jscan_null(jscan *r)
{
	if (need(r) != 'n') return false;
	if (r->len - r->pos < 4) jscan_fill(r, r->pos);
	if (r->len - r->pos < 4 || memcmp(r->buf + r->pos, "null", 4)) jscan_fail(r, "expected null");
	r->pos += 4;
	return true;
}

void jscan_doc(jscan *r, json_doc *d)
{
	need(r);
	size_t end;
	uint64_t line = r->line;
	if (!jscan_value(r, &end, true)) jscan_fail(r, "input ends inside a value (truncated file?)");
	if (json_parse(d, r->buf + r->pos, end - r->pos)) {
		/* the line of the error: count newlines up to it */
		uint64_t l = line;
		for (size_t i = 0; i < d->err_pos && r->pos + i < end; i++) l += r->buf[r->pos + i] == '\n';
		die_at(r->name, l, "%s (byte %llu)", d->err_msg, (unsigned long long)(jscan_offset(r) + d->err_pos));
	}
	r->pos = end;
}

void jscan_skip(jscan *r)
{
	need(r);
	size_t end;
	if (!jscan_value(r, &end, false)) jscan_fail(r, "input ends inside a value (truncated file?)");
	r->pos = end;
}
