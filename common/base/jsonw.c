/* jsonw.c - compact JSON writer (see jsonw.h). */
#include "jsonw.h"
#include "utf8.h"

#include <stdint.h>
#include <string.h>

void jw_str(output *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const uint8_t *p = (const uint8_t *)s, *end = p + n, *run = p;

	/* the common case: nothing to escape, and room in the buffer */
	p = utf8_skip_plain(p, end);
	if (__builtin_expect(p == end, 1) && o->cap - o->n >= n + 2) {
		char *w = o->buf + o->n;
		w[0] = '"';
		memcpy(w + 1, s, n);
		w[n + 1] = '"';
		o->n += n + 2;
		return;
	}
	out_putc(o, '"');
	while (p < end) {
		uint8_t c = *p;
		if (c >= 0x80) {
			int l = utf8_seq(p, end);
			if (l > 0) {
				p = utf8_skip_plain(p + l, end);
				continue;
			}
			out_write(o, run, (size_t)(p - run));
			out_write(o, "\xEF\xBF\xBD", 3);
			p += -l;
			run = p;
			p = utf8_skip_plain(p, end);
			continue;
		}
		out_write(o, run, (size_t)(p - run));
		if (c == 0) { /* never a NUL in a string (utf8.h) */
			out_write(o, UTF8_NUL_AS_BYTES, 3);
			run = ++p;
			p = utf8_skip_plain(p, end);
			continue;
		}
		char esc[6] = { '\\', 0, '0', '0', 0, 0 };
		size_t el = 2;
		switch (c) {
		case '"': esc[1] = '"'; break;
		case '\\': esc[1] = '\\'; break;
		case '\n': esc[1] = 'n'; break;
		case '\r': esc[1] = 'r'; break;
		case '\t': esc[1] = 't'; break;
		case '\b': esc[1] = 'b'; break;
		case '\f': esc[1] = 'f'; break;
		default:
			esc[1] = 'u';
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			el = 6;
			break;
		}
		out_write(o, esc, el);
		p++;
		run = p;
		p = utf8_skip_plain(p, end);
	}
	out_write(o, run, (size_t)(p - run));
	out_putc(o, '"');
}

void jw_key(output *o, const char *key, bool first)
{
	if (!first)
		out_putc(o, ',');
	jw_str(o, key, strlen(key));
	out_putc(o, ':');
}

void jw_num(output *o, num v)
{
	char buf[32];
	switch (v.kind) {
	case NUM_INT:
		out_i64(o, v.i);
		break;
	case NUM_UINT:
		out_u64(o, v.u);
		break;
	default:
		out_write(o, buf, num_fmt(buf, v));
		break;
	}
}

void jw_node(output *o, const json_doc *d, uint32_t k)
{
	const json_node *x = &d->nodes[k];
	uint32_t c, end;

	switch (x->type) {
	case JSON_NULL:
		out_write(o, "null", 4);
		break;
	case JSON_FALSE:
		out_write(o, "false", 5);
		break;
	case JSON_TRUE:
		out_write(o, "true", 4);
		break;
	case JSON_INT:
	case JSON_UINT:
	case JSON_DOUBLE:
		out_write(o, x->str, x->num_len);
		break;
	case JSON_STRING:
		jw_str(o, x->str, x->count);
		break;
	case JSON_ARRAY:
		out_putc(o, '[');
		end = x->next;
		for (c = k + 1; c < end; c = d->nodes[c].next) {
			if (c != k + 1)
				out_putc(o, ',');
			jw_node(o, d, c);
		}
		out_putc(o, ']');
		break;
	case JSON_OBJECT:
		out_putc(o, '{');
		end = x->next;
		for (c = k + 1; c < end; c = d->nodes[c + 1].next) {
			if (c != k + 1)
				out_putc(o, ',');
			jw_str(o, d->nodes[c].str, d->nodes[c].count);
			out_putc(o, ':');
			jw_node(o, d, c + 1);
		}
		out_putc(o, '}');
		break;
	}
}
