/* num.h - exact metric values: 64-bit integers with checked arithmetic,
 * doubles only when the input itself was not an integer. */
#ifndef SPAA_NUM_H
#define SPAA_NUM_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

enum num_kind { NUM_INT, NUM_UINT, NUM_DBL };
/* NUM_INT holds any int64; NUM_UINT is only used for values > INT64_MAX. */
typedef struct num {
	uint8_t kind;
	union { int64_t i; uint64_t u; double d; };
} num;

static inline num num_i(int64_t v) { num x; x.kind = NUM_INT; x.i = v; return x; }
num num_u(uint64_t v);
static inline num num_d(double v) { num x; x.kind = NUM_DBL; x.d = v; return x; }
static inline bool num_is_zero(num a) { return a.kind == NUM_DBL ? a.d == 0 : a.kind == NUM_INT ? a.i == 0 : a.u == 0; }
double num_to_double(num a);

/* *acc += v exactly.  Integers stay integers; overflow beyond the range
 * [INT64_MIN, UINT64_MAX] returns false and leaves *acc unchanged.  If either
 * side is a double the result is a double. */
bool num_add(num *acc, num v);
bool num_sub(num *acc, num v);
/* Checked integer arithmetic, as C23's <stdckdint.h>: *r = a + b (a - b,
 * a * b) and true when the exact result does not fit in *r (which then
 * holds it wrapped).  Every sum or difference of times, sizes or counts read
 * from input goes through these, so that none wraps silently or is
 * undefined behaviour. */
#ifndef ckd_add
#define ckd_add(r, a, b) __builtin_add_overflow((a), (b), (r))
#define ckd_sub(r, a, b) __builtin_sub_overflow((a), (b), (r))
#define ckd_mul(r, a, b) __builtin_mul_overflow((a), (b), (r))
#endif

/* Compare: <0, 0, >0. Exact for integers. */
int num_cmp(num a, num b);

/* Text: integers in decimal, doubles with the shortest form that reads back
 * the same ("%.17g" trimmed), never in a form JSON or flamegraph.pl rejects
 * (no "inf"/"nan": those are written as 0 and should be rejected earlier);
 * an integral double beyond -2^63 .. 2^64-1 with ".0", so that it never
 * reads back as an integer out of range.
 * buf needs 32 bytes; returns length. */
size_t num_fmt(char *buf, num a);

#endif
