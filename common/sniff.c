/* sniff.c - recognise the inputs of the converters (and a few others) by
 * their first line.  Only cheap byte tests: this runs once per file, and
 * only when that file's first record is not a SPAA header. */
#include "sniff.h"

#include <stdbool.h>
#include <string.h>

static bool has(const char *p, size_t n, const char *s)
{
	size_t k = strlen(s);
	if (k > n) return false;
	for (size_t i = 0; i + k <= n; i++)
		if (p[i] == s[0] && memcmp(p + i, s, k) == 0) return true;
	return false;
}

static bool starts(const char *p, size_t n, const char *s)
{
	size_t k = strlen(s);
	return n >= k && memcmp(p, s, k) == 0;
}

static bool digit(char c) { return c >= '0' && c <= '9'; }
static bool blank(char c) { return c == ' ' || c == '\t'; }

/* A perf script sample header: "comm  pid[/tid] [cpu] secs.usecs: ...":
 * a blank-preceded token of digits '.' digits followed by ':'. */
static bool perf_header(const char *p, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		if (!blank(p[i - 1]) || !digit(p[i])) continue;
		size_t j = i;
		while (j < n && digit(p[j])) j++;
		if (j >= n || p[j] != '.') continue;
		size_t k = ++j;
		while (j < n && digit(p[j])) j++;
		if (j > k && j < n && p[j] == ':') return true;
	}
	return false;
}

/* "a;b;c 12": a last blank-separated field of digits after a non-empty
 * stack. */
static bool folded(const char *p, size_t n)
{
	size_t j = n;
	while (j > 0 && digit(p[j - 1])) j--;
	if (j == n || j < 2 || p[j - 1] != ' ') return false;
	return !blank(p[0]);
}

int sniff_line(const char *p, size_t n, sniff_result *res)
{
	while (n && (p[n - 1] == '\r' || blank(p[n - 1]))) n--;
	if (n >= 4 && (unsigned char)p[0] == 0x0D && (unsigned char)p[1] == 0xF0 &&
	    (unsigned char)p[2] == 0xAD && (unsigned char)p[3] == 0x0B) {
		*res = (sniff_result){ "a binary spall trace", "spall2spaa" };
		return 0;
	}
	if (starts(p, n, "PERFILE2")) {
		*res = (sniff_result){ "a perf.data file", "perf script -i FILE | perf2spaa" };
		return 0;
	}
	if (starts(p, n, "# AFPerf v")) {
		*res = (sniff_result){ "an AFPerf file", "afperf2spaa" };
		return 0;
	}
	if (starts(p, n, "[events]") || starts(p, n, "[functions]")) {
		*res = (sniff_result){ "SPX profile data", "spx2spaa" };
		return 0;
	}
	size_t i = 0;
	while (i < n && blank(p[i])) i++;
	if (i < n && (p[i] == '{' || p[i] == '[')) {
		if (has(p, n, "\"type\":\"header\"") || has(p, n, "\"format\":\"spaa\""))
			return -1;
		if (has(p, n, "\"enabled_metrics\"") || has(p, n, "\"exec_ts\"")) {
			*res = (sniff_result){ "SPX metadata (the report's .json)", "spx2spaa" };
			return 0;
		}
		if (has(p, n, "\"traceEvents\"") || has(p, n, "\"ph\":")) {
			*res = (sniff_result){ "a Chrome JSON trace", "spall2spaa" };
			return 0;
		}
		if (has(p, n, "\"callFrame\"") || has(p, n, "\"timeDeltas\"")) {
			*res = (sniff_result){ "a V8 CPU or heap profile (.cpuprofile/.heapprofile)", NULL };
			return 0;
		}
		if (p[i] == '[' && n - i == 1) { /* a pretty-printed trace opens with "[" alone */
			*res = (sniff_result){ "a JSON array spread over lines (a Chrome trace?)", "spall2spaa" };
			return 0;
		}
		if (p[i] == '{' && n - i == 1) {
			*res = (sniff_result){ "a JSON object spread over lines (SPAA has one record per line: SPX metadata? a Chrome trace?)", NULL };
			return 0;
		}
		return -1;
	}
	if (starts(p, n, "# ========") || starts(p, n, "# captured on") || perf_header(p, n)) {
		*res = (sniff_result){ "'perf script' text", "perf2spaa" };
		return 0;
	}
	if ((i > 0 && has(p, n, "`")) || starts(p, n, "CPU     ID") || starts(p, n, "dtrace: ")) {
		*res = (sniff_result){ "DTrace output", "dtrace2spaa" };
		return 0;
	}
	if (folded(p, n)) {
		*res = (sniff_result){ "folded stacks", "folded2spaa" };
		return 0;
	}
	for (size_t k = 0; k < n; k++) {
		unsigned char c = (unsigned char)p[k];
		if (c == 0 || (c < 0x20 && c != '\t')) {
			*res = (sniff_result){ "binary data (a pprof profile? run pprof2spaa)", NULL };
			return 0;
		}
	}
	return -1;
}
