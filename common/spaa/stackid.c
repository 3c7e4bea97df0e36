/* stackid.c - content identity of stacks (algorithm in stackid.h, spaa.5). */
#include "stackid.h"

#include <inttypes.h>
#include <stdio.h>

static const char US = 0x1f, RS = 0x1e;

uint64_t stackid_add_frame(uint64_t h, const stackid_frame *f)
{
	h = fnv1a64(h, f->func.p, f->func.n);
	h = fnv1a64(h, &US, 1);
	h = fnv1a64(h, f->dso.p, f->dso.n);
	h = fnv1a64(h, &US, 1);
	h = fnv1a64(h, f->inlined ? "i" : "p", 1);
	if (f->srcline.p) {
		h = fnv1a64(h, &US, 1);
		h = fnv1a64(h, f->srcline.p, f->srcline.n);
	}
	return fnv1a64(h, &RS, 1);
}

static uint64_t add_field(uint64_t h, const char *name, const char *p, size_t n)
{
	h = fnv1a64(h, name, strlen(name));
	h = fnv1a64(h, p, n);
	return fnv1a64(h, &RS, 1);
}

uint64_t stackid_add_ctx(uint64_t h, const stackid_ctx *c)
{
	char num[24];
	h = add_field(h, "event=", c->event.p, c->event.n);
	if (c->stack_type.p && !sstr_eqc(c->stack_type, "unified"))
		h = add_field(h, "stack_type=", c->stack_type.p, c->stack_type.n);
	if (c->comm.p) h = add_field(h, "comm=", c->comm.p, c->comm.n);
	if (c->has_pid) h = add_field(h, "pid=", num, fmt_i64(num, c->pid));
	if (c->has_tid) h = add_field(h, "tid=", num, fmt_i64(num, c->tid));
	return h;
}

size_t stackid_fmt(char *buf, uint64_t h)
{
	size_t n = fmt_hex(buf, h, 16);
	buf[n] = 0;
	return n;
}
