/* num.c - exact metric arithmetic. */
#include "num.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

num num_u(uint64_t v)
{
	num x;
	if (v <= (uint64_t)INT64_MAX) {
		x.kind = NUM_INT;
		x.i = (int64_t)v;
	} else {
		x.kind = NUM_UINT;
		x.u = v;
	}
	return x;
}

double num_to_double(num a)
{
	switch (a.kind) {
	case NUM_INT: return (double)a.i;
	case NUM_UINT: return (double)a.u;
	default: return a.d;
	}
}

/* Exact sum via 128-bit integers, then back into range. */
static bool from_i128(__int128 s, num *out)
{
	if (s > (__int128)UINT64_MAX || s < (__int128)INT64_MIN) return false;
	if (s > (__int128)INT64_MAX) {
		out->kind = NUM_UINT;
		out->u = (uint64_t)s;
	} else {
		out->kind = NUM_INT;
		out->i = (int64_t)s;
	}
	return true;
}

static __int128 to_i128(num a)
{
	return a.kind == NUM_UINT ? (__int128)a.u : (__int128)a.i;
}

bool num_add(num *acc, num v)
{
	if (acc->kind == NUM_DBL || v.kind == NUM_DBL) {
		/* a sum beyond the doubles is refused like one beyond 64 bits,
		 * never written as 0 */
		double d = num_to_double(*acc) + num_to_double(v);
		if (!isfinite(d)) return false;
		*acc = num_d(d);
		return true;
	}
	return from_i128(to_i128(*acc) + to_i128(v), acc);
}

bool num_sub(num *acc, num v)
{
	if (acc->kind == NUM_DBL || v.kind == NUM_DBL) {
		double d = num_to_double(*acc) - num_to_double(v);
		if (!isfinite(d)) return false;
		*acc = num_d(d);
		return true;
	}
	return from_i128(to_i128(*acc) - to_i128(v), acc);
}

int num_cmp(num a, num b)
{
	if (a.kind == NUM_DBL || b.kind == NUM_DBL) {
		double x = num_to_double(a), y = num_to_double(b);
		return x < y ? -1 : x > y;
	}
	__int128 x = to_i128(a), y = to_i128(b);
	return x < y ? -1 : x > y;
}

size_t num_fmt(char *buf, num a)
{
	switch (a.kind) {
	case NUM_INT: return fmt_i64(buf, a.i);
	case NUM_UINT: return fmt_u64(buf, a.u);
	default: break;
	}
	double d = a.d;
	if (!isfinite(d)) d = 0;
	if (d == floor(d) && fabs(d) < 9.007199254740992e15)
		return fmt_i64(buf, (int64_t)d);
	/* integral: plain digits; beyond the integers a reader takes as
	 * integers (-2^63 .. 2^64-1) with ".0", so that it reads back as the
	 * double it is and not as an integer out of range */
	if (d == floor(d) && fabs(d) < 1e21)
		return (size_t)snprintf(buf, 32, d >= 18446744073709551616.0 || d < -9223372036854775808.0 ? "%.1f" : "%.0f", d);
	/* shortest %.Ng that reads back exactly; plain decimals (no exponent)
	 * where the magnitude allows, since flamegraph.pl wants them */
	/* %.15g is the shortest form for any value with at most 15 significant
	 * digits (trailing zeros go); otherwise 16, else 17 digits round-trip */
	int k = 0;
	for (int prec = 15; prec <= 17; prec++) {
		k = snprintf(buf, 32, "%.*g", prec, d);
		if (prec == 17 || strtod(buf, NULL) == d) break;
	}
	if (!memchr(buf, 'e', (size_t)k) || fabs(d) >= 1e15 || fabs(d) < 1e-9)
		return (size_t)k;
	for (int prec = 1; prec <= 20; prec++) {
		k = snprintf(buf, 32, "%.*f", prec, d);
		if (strtod(buf, NULL) == d) break;
	}
	return (size_t)k;
}
