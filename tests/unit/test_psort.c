/* test_psort.c - psort (psort.h) gives qsort's order whatever the threads:
 * records of 4, 12 and 24 bytes with keys of few values (ties broken by
 * the rest of the record, as distinct lines are), at sizes around the runs'
 * bounds (none, one record, a run's least and odd counts), with 1 to 70
 * threads. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psort.h"
#include "tap.h"
#include "util.h"

static uint64_t x = 0x243f6a8885a308d3ULL;

/* compare by the first 4 bytes, then the whole record (of size rec) */
static size_t rec;
static int cmp_rec(const void *a, const void *b)
{
	uint32_t p, q;
	memcpy(&p, a, 4);
	memcpy(&q, b, 4);
	if (p != q) return p < q ? -1 : 1;
	return memcmp(a, b, rec);
}

int main(void)
{
	static const size_t sizes[] = { 4, 12, 24 };
	static const size_t counts[] = { 0, 1, 2, 4095, 8192, 8193, 20001, 100003 };
	static const unsigned jobs[] = { 1, 2, 3, 7, 70 };
	for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
		rec = sizes[si];
		for (size_t ci = 0; ci < sizeof counts / sizeof *counts; ci++) {
			size_t n = counts[ci];
			unsigned char *a = xmalloc(n * rec + 1), *want = xmalloc(n * rec + 1), *got = xmalloc(n * rec + 1);
			for (size_t i = 0; i < n * rec; i++) a[i] = (unsigned char)rand64(&x);
			/* few key values: many ties on the key */
			for (size_t i = 0; i < n; i++) {
				uint32_t k = (uint32_t)(rand64(&x) % 97);
				memcpy(a + i * rec, &k, 4);
			}
			memcpy(want, a, n * rec);
			xqsort(want, n, rec, cmp_rec);
			for (size_t ji = 0; ji < sizeof jobs / sizeof *jobs; ji++) {
				memcpy(got, a, n * rec);
				psort(got, n, rec, cmp_rec, jobs[ji]);
				ok(memcmp(got, want, n * rec) == 0, "%zu records of %zu bytes, %u threads: qsort's order",
				   n, rec, jobs[ji]);
			}
			free(a);
			free(want);
			free(got);
		}
	}
	return done_testing();
}
