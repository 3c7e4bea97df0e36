/* jsonbuf.c - compact JSON into an sbuf (see jsonbuf.h). */
#include "jsonbuf.h"
#include "utf8.h"

void jb_str(sbuf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const uint8_t *p = (const uint8_t *)s, *end = p + n;
	sbuf_reserve(b, n + 2);
	sbuf_addc(b, '"');
	while (p < end) {
		const uint8_t *run = p;
		p = utf8_skip_plain(p, end);
		sbuf_add(b, run, (size_t)(p - run));
		if (p == end) break;
		uint8_t c = *p;
		if (c >= 0x80) {
			int l = utf8_seq(p, end);
			if (l > 0) {
				sbuf_add(b, p, (size_t)l);
				p += l;
			} else { /* not UTF-8: U+FFFD, as jw_str() writes it */
				sbuf_add(b, "\xef\xbf\xbd", 3);
				p += -l;
			}
			continue;
		}
		if (c == 0) { /* never a NUL in a string (utf8.h) */
			sbuf_add(b, UTF8_NUL_AS_BYTES, 3);
			p++;
			continue;
		}
		sbuf_addc(b, '\\');
		switch (c) {
		case '"': sbuf_addc(b, '"'); break;
		case '\\': sbuf_addc(b, '\\'); break;
		case '\n': sbuf_addc(b, 'n'); break;
		case '\r': sbuf_addc(b, 'r'); break;
		case '\t': sbuf_addc(b, 't'); break;
		case '\b': sbuf_addc(b, 'b'); break;
		case '\f': sbuf_addc(b, 'f'); break;
		default:
			sbuf_add(b, "u00", 3);
			sbuf_addc(b, hex[c >> 4]);
			sbuf_addc(b, hex[c & 15]);
		}
		p++;
	}
	sbuf_addc(b, '"');
}

void jb_node(sbuf *b, const json_doc *d, uint32_t k)
{
	const json_node *x = &d->nodes[k];
	uint32_t c, end;

	switch (x->type) {
	case JSON_NULL: sbuf_add(b, "null", 4); break;
	case JSON_FALSE: sbuf_add(b, "false", 5); break;
	case JSON_TRUE: sbuf_add(b, "true", 4); break;
	case JSON_INT:
	case JSON_UINT:
	case JSON_DOUBLE: sbuf_add(b, x->str, x->num_len); break;
	case JSON_STRING: jb_str(b, x->str, x->count); break;
	case JSON_ARRAY:
		sbuf_addc(b, '[');
		end = x->next;
		for (c = k + 1; c < end; c = d->nodes[c].next) {
			if (c != k + 1) sbuf_addc(b, ',');
			jb_node(b, d, c);
		}
		sbuf_addc(b, ']');
		break;
	case JSON_OBJECT:
		sbuf_addc(b, '{');
		end = x->next;
		for (c = k + 1; c < end; c = d->nodes[c + 1].next) {
			if (c != k + 1) sbuf_addc(b, ',');
			jb_str(b, d->nodes[c].str, d->nodes[c].count);
			sbuf_addc(b, ':');
			jb_node(b, d, c + 1);
		}
		sbuf_addc(b, '}');
		break;
	}
}
