/* pb.h - the protocol buffers wire format (pprof's profile.proto): reading
 * the fields of a message in place, in whatever order they come.
 *
 * A message is a run of fields, each a key varint (field number << 3 | wire
 * type) and a value: a varint (type 0), 8 bytes (1), a length-delimited
 * byte string (2: strings, nested messages, packed repeated scalars) or 4
 * bytes (5).  Groups (3, 4) are obsolete and refused. */
#ifndef SPAA_PB_H
#define SPAA_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pb_reader {
	const uint8_t *p, *end;
} pb_reader;

enum { PB_VARINT = 0, PB_I64 = 1, PB_LEN = 2, PB_I32 = 5 };

typedef struct pb_field {
	uint32_t num;          /* field number */
	uint8_t wire;          /* wire type */
	uint64_t v;            /* PB_VARINT, PB_I64, PB_I32: the value */
	const uint8_t *data;   /* PB_LEN: the bytes */
	size_t len;
	size_t off;            /* offset of the field's key in the message */
} pb_field;

static inline pb_reader pb_init(const void *p, size_t n)
{
	return (pb_reader){ (const uint8_t *)p, (const uint8_t *)p + n };
}

/* The next field of the message: 1, 0 at its end, -1 when it is malformed
 * (a varint longer than 10 bytes, a length beyond the end, a group or an
 * unknown wire type, field number 0).  base: the start of the message, for
 * f->off. */
int pb_next(pb_reader *r, const uint8_t *base, pb_field *f);

/* Reading a varint: false when malformed or cut short.  Inline for the
 * one-byte varints (below 128) that most of a message's keys, lengths, ids
 * and counts are; longer ones call pb_varint_long. */
bool pb_varint_long(pb_reader *r, uint64_t *v);
static inline bool pb_varint(pb_reader *r, uint64_t *v)
{
	if (r->p < r->end && *r->p < 0x80) {
		*v = *r->p++;
		return true;
	}
	return pb_varint_long(r, v);
}

/* The values of a repeated integer field, packed (one PB_LEN field of
 * varints) or not (one PB_VARINT field): call with the field, then
 * pb_ints_next until it returns 0 (-1: malformed). */
typedef struct pb_ints {
	pb_reader r;
	bool single, done;
	uint64_t v;
} pb_ints;
static inline bool pb_ints_init(pb_ints *it, const pb_field *f)
{
	it->done = false;
	it->single = f->wire == PB_VARINT;
	it->v = f->v;
	if (it->single) return true;
	if (f->wire != PB_LEN) return false;
	it->r = pb_init(f->data, f->len);
	return true;
}

static inline int pb_ints_next(pb_ints *it, uint64_t *v)
{
	if (it->single) {
		if (it->done) return 0;
		it->done = true;
		*v = it->v;
		return 1;
	}
	if (it->r.p >= it->r.end) return 0;
	return pb_varint(&it->r, v) ? 1 : -1;
}

/* Writing: fields appended to an sbuf (util.h).  A nested message is
 * written into its own sbuf first, then added with pb_put_bytes. */
#include "util.h"
void pb_put_varint(sbuf *b, uint64_t v);
void pb_put_uint(sbuf *b, uint32_t num, uint64_t v);   /* varint field */
void pb_put_int(sbuf *b, uint32_t num, int64_t v);     /* int64 field (two's complement) */
void pb_put_bytes(sbuf *b, uint32_t num, const void *p, size_t n);

#endif
