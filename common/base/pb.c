/* pb.c - the protocol buffers wire format (see pb.h). */
#include "pb.h"

bool pb_varint_long(pb_reader *r, uint64_t *v)
{
	uint64_t x = 0;
	for (int shift = 0; shift < 70; shift += 7) {
		if (r->p >= r->end) return false;
		uint8_t c = *r->p++;
		if (shift == 63 && c > 1) return false; /* beyond 64 bits */
		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

int pb_next(pb_reader *r, const uint8_t *base, pb_field *f)
{
	if (r->p >= r->end) return 0;
	f->off = (size_t)(r->p - base);
	uint64_t key;
	if (!pb_varint(r, &key)) return -1;
	f->wire = (uint8_t)(key & 7);
	if (key >> 3 == 0 || key >> 3 > 0x1fffffff) return -1;
	f->num = (uint32_t)(key >> 3);
	f->data = NULL;
	f->len = 0;
	f->v = 0;
	switch (f->wire) {
	case PB_VARINT:
		return pb_varint(r, &f->v) ? 1 : -1;
	case PB_I64:
	case PB_I32: {
		size_t n = f->wire == PB_I64 ? 8 : 4;
		if ((size_t)(r->end - r->p) < n) return -1;
		for (size_t i = 0; i < n; i++) f->v |= (uint64_t)r->p[i] << (8 * i);
		r->p += n;
		return 1;
	}
	case PB_LEN: {
		uint64_t n;
		if (!pb_varint(r, &n) || n > (uint64_t)(r->end - r->p)) return -1;
		f->data = r->p;
		f->len = (size_t)n;
		r->p += n;
		return 1;
	}
	default:
		return -1;
	}
}

void pb_put_varint(sbuf *b, uint64_t v)
{
	uint8_t t[10];
	size_t n = 0;
	do {
		t[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	sbuf_add(b, t, n);
}

void pb_put_uint(sbuf *b, uint32_t num, uint64_t v)
{
	pb_put_varint(b, (uint64_t)num << 3 | PB_VARINT);
	pb_put_varint(b, v);
}

void pb_put_int(sbuf *b, uint32_t num, int64_t v)
{
	pb_put_uint(b, num, (uint64_t)v);
}

void pb_put_bytes(sbuf *b, uint32_t num, const void *p, size_t n)
{
	pb_put_varint(b, (uint64_t)num << 3 | PB_LEN);
	pb_put_varint(b, n);
	sbuf_add(b, p, n);
}
