/* folded.c - one line of folded stacks (see folded.h). */
#include "folded.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"


int folded_count(const char *p, size_t n, num *out)
{
	size_t i = 0;
	bool neg = n > 0 && p[0] == '-';
	if (neg) i++;
	size_t d0 = i;
	while (i < n && p[i] >= '0' && p[i] <= '9') i++;
	size_t intdigits = i - d0, fracdigits = 0;
	bool isint = true;
	if (i < n && p[i] == '.') {
		isint = false;
		size_t f0 = ++i;
		while (i < n && p[i] >= '0' && p[i] <= '9') i++;
		fracdigits = i - f0;
	}
	if (intdigits + fracdigits == 0) return FOLDED_NONE;
	if (i < n && (p[i] == 'e' || p[i] == 'E')) {
		isint = false;
		i++;
		if (i < n && (p[i] == '+' || p[i] == '-')) i++;
		size_t e0 = i;
		while (i < n && p[i] >= '0' && p[i] <= '9') i++;
		if (i == e0) return FOLDED_NONE;
	}
	if (i != n) return FOLDED_NONE;
	if (isint) {
		uint64_t u;
		int64_t v;
		if (neg) {
			if (!parse_i64(p, n, &v)) return FOLDED_RANGE;
			*out = v == 0 ? num_u(0) : num_i(v);
		} else {
			if (!parse_u64(p, n, &u)) return FOLDED_RANGE;
			*out = num_u(u);
		}
		return FOLDED_OK;
	}
	char buf[64];
	if (n >= sizeof buf) return FOLDED_RANGE;
	memcpy(buf, p, n);
	buf[n] = 0;
	double d = strtod(buf, NULL);
	if (!isfinite(d)) return FOLDED_RANGE;
	*out = num_d(d == 0 ? 0.0 : d);
	return FOLDED_OK;
}

int folded_split(const char *line, size_t len, folded_line *f)
{
	if (len && line[len - 1] == '\r') len--;
	size_t start = 0;
	while (start < len && c_blank(line[start])) start++;
	if (start == len || line[0] == '#') return FOLDED_SKIP;
	/* the count: after the last run of blanks */
	size_t end = len;
	while (end > 0 && c_blank(line[end - 1])) end--;
	size_t cs = end;
	while (cs > 0 && !c_blank(line[cs - 1])) cs--;
	f->count_at = cs;
	f->count_n = end - cs;
	int pc = cs == 0 ? FOLDED_NONE : folded_count(line + cs, end - cs, &f->count);
	if (pc != FOLDED_OK) return pc;
	/* the path: everything before the one blank before the count, as
	 * flamegraph.pl reads it, so that a last frame " " (written by
	 * stackcollapse-perf.pl for a frame with no symbol) stays one; 0 is
	 * an empty path (" 5"), a stack of no frame */
	size_t se = cs - 1;
	f->path_n = se;
	/* a last word that is a number: the differential form, or part of
	 * the path ("foo 12 1" is frame "foo 12", count 1): the caller
	 * decides */
	size_t ps = se;
	while (ps > 0 && !c_blank(line[ps - 1])) ps--;
	f->two = ps < se && ps > 0 && folded_count(line + ps, se - ps, &f->count1) == FOLDED_OK;
	f->path2_n = f->two ? ps - 1 : se;
	return FOLDED_OK;
}
