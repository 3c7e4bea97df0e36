/* heapsnap.c - the meta field lookup and the wanted strings of V8 heap
 * snapshots (see heapsnap.h). */
#include <stdlib.h>
#include <string.h>
#include "heapsnap.h"
#include "utf8.h"

uint32_t heapsnap_field(const json_doc *d, uint32_t arr, const char *name)
{
	if (d->nodes[arr].type != JSON_ARRAY) return HEAPSNAP_NONE;
	uint32_t i = 0;
	size_t n = strlen(name);
	for (uint32_t x = json_first(d, arr), e = json_after(d, arr); x < e; x = json_after(d, x), i++)
		if (json_is_str(d, x, name, n)) return i;
	return HEAPSNAP_NONE;
}

uint32_t heapsnap_need(jscan *r, const json_doc *d, uint32_t arr, const char *list, const char *name)
{
	uint32_t i = arr != HEAPSNAP_NONE ? heapsnap_field(d, arr, name) : HEAPSNAP_NONE;
	if (i == HEAPSNAP_NONE) jscan_fail(r, "snapshot.meta.%s has no %s", list, name);
	return i;
}

void heapsnap_strings_init(heapsnap_strings *t)
{
	memset(t, 0, sizeof *t);
}

static uint32_t add_slot(heapsnap_strings *t, int64_t i)
{
	bool added;
	uint32_t k = idmap_put(&t->want, i, t->n, &added);
	if (!added) return k;
	grow_array((void **)&t->s, &t->cap, t->n + 1, sizeof *t->s);
	grow_array((void **)&t->len, &t->lcap, t->n + 1, sizeof *t->len);
	t->s[t->n] = NULL;
	t->len[t->n] = 0;
	return t->n++;
}

void heapsnap_strings_want(heapsnap_strings *t, int64_t i)
{
	if (i < 0) return;
	add_slot(t, i);
	if ((uint64_t)i >= t->need) t->need = (uint64_t)i + 1;
}

void heapsnap_strings_want_all(heapsnap_strings *t)
{
	t->all = true;
}

/* The string value at r, decoded leniently into b (bad escapes and lone
 * surrogates as U+FFFD; bytes that are not UTF-8 stay, for the writer to
 * replace). */
static sstr lenient_string(jscan *r, sbuf *b)
{
	if (jscan_peek(r) != '"') jscan_fail(r, "expected a string in the strings array");
	size_t end;
	if (!jscan_value(r, &end, true)) jscan_fail(r, "input ends inside a string (truncated file?)");
	const char *p = r->buf + r->pos + 1, *e = r->buf + end - 1;
	b->n = 0;
	while (p < e) {
		if (*p != '\\') {
			const char *q = memchr(p, '\\', (size_t)(e - p));
			if (!q) q = e;
			sbuf_add(b, p, (size_t)(q - p));
			p = q;
			continue;
		}
		if (e - p < 2) break;
		char c = p[1];
		p += 2;
		switch (c) {
		case 'b': sbuf_addc(b, '\b'); break;
		case 'f': sbuf_addc(b, '\f'); break;
		case 'n': sbuf_addc(b, '\n'); break;
		case 'r': sbuf_addc(b, '\r'); break;
		case 't': sbuf_addc(b, '\t'); break;
		case 'u': {
			int32_t u = e - p >= 4 ? utf8_hex4(p) : -1;
			if (u < 0) {
				sbuf_add_utf8(b, 0xfffd);
				break;
			}
			p += 4;
			if (u >= 0xd800 && u < 0xdc00 && e - p >= 6 && p[0] == '\\' && p[1] == 'u') {
				int32_t lo = utf8_hex4(p + 2);
				if (lo >= 0xdc00 && lo < 0xe000) {
					u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
					p += 6;
				}
			}
			/* surrogates left alone, and NUL (utf8.h), as U+FFFD */
			sbuf_add_utf8(b, (u >= 0xd800 && u < 0xe000) || u == 0 ? 0xfffd : (uint32_t)u);
			break;
		}
		default: sbuf_addc(b, c); break; /* \" \\ \/ (and anything else as itself) */
		}
	}
	r->pos = end;
	return (sstr){ b->p ? b->p : "", b->n };
}

void heapsnap_strings_read(jscan *r, heapsnap_strings *t)
{
	sbuf b = { 0 };
	bool first = true;
	jscan_open(r, '[', "the strings array");
	while (jscan_more(r, &first, ']')) {
		int64_t i = (int64_t)t->count;
		uint32_t k = t->all ? add_slot(t, i) : (uint64_t)i < t->need ? idmap_get(&t->want, i) : HEAPSNAP_NONE;
		if (k != HEAPSNAP_NONE) {
			sstr s = lenient_string(r, &b);
			if (s.n > UINT32_MAX) jscan_fail(r, "a string longer than 4 GiB");
			t->s[k] = xmemdup(s.p, s.n);
			t->len[k] = (uint32_t)s.n;
		} else {
			jscan_skip(r);
		}
		t->count++;
	}
	sbuf_free(&b);
	if (t->need > t->count)
		jscan_fail(r, "string %llu is used but the strings array has %llu", (unsigned long long)(t->need - 1),
			   (unsigned long long)t->count);
}

bool heapsnap_strings_get(const heapsnap_strings *t, int64_t i, sstr *s)
{
	uint32_t k = i >= 0 ? idmap_get(&t->want, i) : HEAPSNAP_NONE;
	if (k == HEAPSNAP_NONE || !t->s[k]) return false;
	*s = (sstr){ t->s[k], t->len[k] };
	return true;
}

void heapsnap_strings_free(heapsnap_strings *t)
{
	for (uint32_t k = 0; k < t->n; k++) free(t->s[k]);
	free(t->s);
	free(t->len);
	idmap_free(&t->want);
	heapsnap_strings_init(t);
}
