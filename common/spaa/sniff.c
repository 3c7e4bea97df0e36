/* sniff.c - recognise the inputs of the converters (and a few others) by
 * their first line.  Only cheap byte tests: this runs once per file, and
 * only when that file's first record is not a SPAA header. */
#include "sniff.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "input.h"
#include "util.h"

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

static bool pprof_tag(unsigned char c);
static bool gecko(const char *p, size_t n);
static bool hexdigit(char c);
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

/* An Instruments deep copy's header: tab-separated columns, among them
 * "Symbol Name(s)" and the weight ("Weight", "Running Time", "Bytes Used"). */
static bool instruments_header(const char *p, size_t n)
{
	if (starts(p, n, "\xef\xbb\xbf")) p += 3, n -= 3; /* a byte order mark */
	return has(p, n, "\t") && has(p, n, "Symbol Name") &&
	       (starts(p, n, "Weight\t") || starts(p, n, "Running Time\t") || starts(p, n, "Bytes Used\t") ||
		has(p, n, "\tWeight\t") || has(p, n, "\tBytes Used\t"));
}

/* pmcstat -G: "@ EVENT [N samples]", or a line "  12.50%  [3]  func..." */
static bool pmcstat_line(const char *p, size_t n)
{
	if (starts(p, n, "@ ")) return n > 12 && memcmp(p + n - 9, " samples]", 9) == 0;
	size_t i = 0;
	while (i < n && p[i] == ' ') i++;
	size_t k = i;
	while (i < n && (digit(p[i]) || p[i] == '.')) i++;
	if (i == k || i + 4 > n || p[i] != '%' || p[i + 1] != ' ' || p[i + 2] != ' ' || p[i + 3] != '[') return false;
	for (k = i += 4; i < n && digit(p[i]); i++) {}
	return i > k && i < n && p[i] == ']';
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
		*res = (sniff_result){ "a perf.data file", "perf2spaa" };
		return 0;
	}
	if (starts(p, n, "# AFPerf v")) {
		*res = (sniff_result){ "an AFPerf file", "afperf2spaa" };
		return 0;
	}
	if (starts(p, n, "heap profile:") || starts(p, n, "heap_v2/")) {
		*res = (sniff_result){ "a tcmalloc/jemalloc heap profile (text)", "pprof2spaa" };
		return 0;
	}
	if (n >= 5 && p[0] == 'v' && p[1] == ' ') { /* heaptrack's "v 10400 3" */
		size_t k = 2;
		while (k < n && hexdigit(p[k])) k++;
		if (k > 2 && k < n && p[k] == ' ' && k + 1 < n) {
			size_t j = k + 1;
			while (j < n && hexdigit(p[j])) j++;
			if (j == n) {
				*res = (sniff_result){ "a heaptrack data file", "heaptrack2spaa" };
				return 0;
			}
		}
	}
	if (starts(p, n, "[events]") || starts(p, n, "[functions]")) {
		*res = (sniff_result){ "SPX profile data", "spx2spaa" };
		return 0;
	}
	if (starts(p, n, "v8-version,") || starts(p, n, "shared-library,") || starts(p, n, "code-creation,")) {
		*res = (sniff_result){ "a V8 tick log (node --prof)", "v8log2spaa" };
		return 0;
	}
	if (has(p, n, "Time and Allocation Profiling Report") || has(p, n, "Time Profiling Report")) {
		*res = (sniff_result){ "a GHC cost-centre profile", "ghcprof2spaa" };
		return 0;
	}
	size_t i = 0;
	while (i < n && blank(p[i])) i++;
	if (i < n && (p[i] == '{' || p[i] == '[')) {
		if (has(p, n, "\"type\":\"header\"") || has(p, n, "\"format\":\"spaa\""))
			return -1;
		if (has(p, n, "speedscope.app/file-format-schema")) {
			*res = (sniff_result){ "a speedscope file", "speedscope2spaa" };
			return 0;
		}
		if (gecko(p, n)) {
			*res = (sniff_result){ "a Firefox Profiler profile (JSON)", "gecko2spaa" };
			return 0;
		}
		if (has(p, n, "\"enabled_metrics\"") || has(p, n, "\"exec_ts\"")) {
			*res = (sniff_result){ "SPX metadata (the report's .json)", "spx2spaa" };
			return 0;
		}
		if (has(p, n, "\"recording\"") && (has(p, n, "\"sampleStackTraces\"") || has(p, n, "\"instrumentTypes\""))) {
			*res = (sniff_result){ "a Safari timeline recording", "safari2spaa" };
			return 0;
		}
		if (has(p, n, "\"ProfileChunk\"")) {
			*res = (sniff_result){ "a Chrome trace with CPU profile events", "chrome2spaa" };
			return 0;
		}
		if (has(p, n, "\"traceEvents\"") || has(p, n, "\"ph\":")) {
			/* the whole trace on this line, and no CPU profile in it: spans */
			bool whole = p[n - 1] == ']' || p[n - 1] == '}';
			*res = (sniff_result){ "a Chrome JSON trace", whole ? "spall2spaa" : "any2spaa" };
			return 0;
		}
		if (has(p, n, "\"callFrame\"") || has(p, n, "\"timeDeltas\"")) {
			*res = (sniff_result){ "a V8 CPU or heap profile (.cpuprofile/.heapprofile)", "chrome2spaa" };
			return 0;
		}
		if (p[i] == '[' && n - i == 1) { /* a pretty-printed trace opens with "[" alone */
			*res = (sniff_result){ "a JSON array spread over lines (a Chrome trace?)", "any2spaa" };
			return 0;
		}
		if (p[i] == '{' && n - i == 1) {
			*res = (sniff_result){ "a JSON object spread over lines (SPAA has one record per line)", "any2spaa" };
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
	if (instruments_header(p, n)) {
		*res = (sniff_result){ "an Apple Instruments deep copy", "instruments2spaa" };
		return 0;
	}
	if (pmcstat_line(p, n)) {
		*res = (sniff_result){ "a pmcstat callgraph", "pmcstat2spaa" };
		return 0;
	}
	if (folded(p, n)) {
		*res = (sniff_result){ "folded stacks", "folded2spaa" };
		return 0;
	}
	for (size_t k = 0; k < n; k++) {
		unsigned char c = (unsigned char)p[k];
		if (c == 0 || (c < 0x20 && c != '\t')) {
			if (pprof_tag((unsigned char)p[0]))
				*res = (sniff_result){ "binary data (a pprof profile?)", "pprof2spaa" };
			else
				*res = (sniff_result){ "binary data", "any2spaa" };
			return 0;
		}
	}
	return -1;
}

/* ---- by content ---------------------------------------------------------- */

enum {
	F_SPAA, F_PERF_SCRIPT, F_PERF_DATA, F_DTRACE, F_BPFTRACE, F_FOLDED, F_CHROME_TRACE,
	F_CPUPROFILE, F_HEAPPROFILE, F_HEAPSNAPSHOT, F_PPROF, F_PPROF_TEXT, F_HEAPTRACK,
	F_TRACE_JSON, F_SPALL, F_SPX, F_AFPERF,
	F_SPEEDSCOPE, F_STACKPROF, F_MASSIF, F_DHAT, F_CALLGRIND,
	F_GECKO,
	F_INSTRUMENTS, F_PMCSTAT,
	F_V8LOG, F_V8LOG_JSON,
	F_GHCPROF,
	F_SAFARI,
	F_PSTATS,
	F_JFR
};

const sniff_format sniff_formats[] = {
	[F_SPAA] = { "spaa", "SPAA", NULL, NULL },
	[F_PERF_SCRIPT] = { "perf-script", "'perf script' text", "perf2spaa", NULL },
	[F_PERF_DATA] = { "perf-data", "a perf.data file", "perf2spaa", NULL },
	[F_DTRACE] = { "dtrace", "DTrace output", "dtrace2spaa", NULL },
	[F_BPFTRACE] = { "bpftrace", "bpftrace's printed maps", "bpftrace2spaa", NULL },
	[F_FOLDED] = { "folded", "folded stacks", "folded2spaa", NULL },
	[F_CHROME_TRACE] = { "chrome-trace", "a Chrome performance trace with CPU profile events", "chrome2spaa", "--format=trace" },
	[F_CPUPROFILE] = { "cpuprofile", "a V8 CPU profile (.cpuprofile)", "chrome2spaa", "--format=cpuprofile" },
	[F_HEAPPROFILE] = { "heapprofile", "a V8 sampling heap profile (.heapprofile)", "chrome2spaa", "--format=heapprofile" },
	[F_HEAPSNAPSHOT] = { "heapsnapshot", "a V8 heap snapshot (.heapsnapshot/.heaptimeline)", "chrome2spaa", "--format=heapsnapshot" },
	[F_PPROF] = { "pprof", "a pprof profile (profile.proto)", "pprof2spaa", NULL },
	[F_PPROF_TEXT] = { "pprof-heap-text", "a tcmalloc/jemalloc heap profile (text)", "pprof2spaa", NULL },
	[F_HEAPTRACK] = { "heaptrack", "a heaptrack data file", "heaptrack2spaa", NULL },
	[F_TRACE_JSON] = { "trace-json", "a JSON trace of spans (Chrome trace event format)", "spall2spaa", NULL },
	[F_SPALL] = { "spall", "a binary spall trace", "spall2spaa", NULL },
	[F_SPX] = { "spx", "an SPX report", "spx2spaa", NULL },
	[F_AFPERF] = { "afperf", "an AFPerf file", "afperf2spaa", NULL },
	[F_SPEEDSCOPE] = { "speedscope", "a speedscope file", "speedscope2spaa", NULL },
	[F_STACKPROF] = { "stackprof", "a Ruby stackprof profile (JSON)", "stackprof2spaa", NULL },
	[F_MASSIF] = { "massif", "valgrind massif output", "valgrind2spaa", NULL },
	[F_DHAT] = { "dhat", "valgrind DHAT output", "valgrind2spaa", NULL },
	[F_CALLGRIND] = { "callgrind", "valgrind callgrind output", "valgrind2spaa", NULL },
	[F_GECKO] = { "gecko", "a Firefox Profiler profile (JSON)", "gecko2spaa", NULL },
	[F_INSTRUMENTS] = { "instruments", "an Apple Instruments deep copy", "instruments2spaa", NULL },
	[F_PMCSTAT] = { "pmcstat", "a pmcstat callgraph", "pmcstat2spaa", NULL },
	[F_V8LOG] = { "v8-log", "a V8 tick log (node --prof)", "v8log2spaa", NULL },
	[F_V8LOG_JSON] = { "v8-log-json", "the JSON of node --prof-process --preprocess", "v8log2spaa", NULL },
	[F_GHCPROF] = { "ghc-prof", "a GHC cost-centre profile", "ghcprof2spaa", NULL },
	[F_SAFARI] = { "safari", "a Safari timeline recording", "safari2spaa", NULL },
	[F_PSTATS] = { "pstats", "Python cProfile statistics (pstats)", "pstats2spaa", NULL },
	[F_JFR] = { "jfr", "a Java Flight Recorder recording", "jfr2spaa", NULL },
	{ NULL, NULL, NULL, NULL }
};

const sniff_format *sniff_format_named(const char *name)
{
	for (const sniff_format *f = sniff_formats; f->name; f++)
		if (strcmp(f->name, name) == 0) return f;
	return NULL;
}

static bool hexdigit(char c) { return digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

/* Line k of the text (0-based, blank lines skipped): its start and length,
 * false when there is none in p[0..n) (a line cut at n still counts). */
static bool nth_line(const char *p, size_t n, int k, const char **l, size_t *len)
{
	size_t i = 0;
	for (;;) {
		size_t j = i;
		while (j < n && p[j] != '\n') j++;
		size_t e = j;
		while (e > i && (p[e - 1] == '\r' || blank(p[e - 1]))) e--;
		if (e > i) {
			if (k-- == 0) {
				*l = p + i;
				*len = e - i;
				return true;
			}
		}
		if (j >= n) return false;
		i = j + 1;
	}
}

/* "  ffffffff8103d0ca native_write_msr (/lib/...)": a perf script frame */
static bool perf_frame(const char *p, size_t n)
{
	size_t i = 0, k;
	while (i < n && blank(p[i])) i++;
	for (k = i; k < n && hexdigit(p[k]); k++) {}
	return k - i >= 4 && k < n && blank(p[k]) && p[n - 1] == ')';
}

/* "@name[" or "@name: 12" or "@[": a bpftrace map line */
static bool bpftrace_map(const char *p, size_t n)
{
	if (n < 2 || p[0] != '@') return false;
	size_t i = 1;
	while (i < n && (p[i] == '_' || digit(p[i]) || (p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z'))) i++;
	return i < n && (p[i] == '[' || p[i] == ':');
}

/* The first key of a JSON object at p[i] == '{' (into key, at most cap-1
 * bytes), empty when there is none. */
static void first_key(const char *p, size_t n, size_t i, char *key, size_t cap)
{
	key[0] = 0;
	for (i++; i < n && (blank(p[i]) || p[i] == '\n' || p[i] == '\r'); i++) {}
	if (i >= n || p[i] != '"') return;
	size_t k = 0;
	for (i++; i < n && p[i] != '"' && k + 1 < cap; i++) key[k++] = p[i];
	key[k] = 0;
}

/* Firefox Profiler JSON: a processed profile's meta has its version; a
 * Gecko profile's meta says how it walked the stacks; either has tables */
static bool gecko(const char *p, size_t n)
{
	if (has(p, n, "\"preprocessedProfileVersion\"")) return true;
	return has(p, n, "\"meta\"") && (has(p, n, "\"stackwalk\"") || has(p, n, "\"stackTable\"") ||
					  has(p, n, "\"frameTable\""));
}

/* protobuf: a Profile message opens with a field 1-14 of wire type 0 or 2 */
static bool pprof_tag(unsigned char c)
{
	unsigned field = c >> 3, wire = c & 7;
	return field >= 1 && field <= 14 && (wire == 0 || wire == 2);
}

/* The first fields of a Profile message parse: two or more, or all the
 * data, each a tag of field 1-14 with wire type 0 (a varint) or 2 (bytes
 * within the data) */
static bool pprof_fields(const unsigned char *u, size_t n)
{
	size_t i = 0;
	int f;
	for (f = 0; f < 4 && i < n; f++) {
		if (!pprof_tag(u[i])) return false;
		unsigned wire = u[i++] & 7;
		uint64_t v = 0;
		int sh = 0;
		while (i < n && (u[i] & 0x80) && sh < 63) v |= (uint64_t)(u[i++] & 0x7f) << sh, sh += 7;
		if (i >= n || (u[i] & 0x80)) return false;
		v |= (uint64_t)u[i++] << sh;
		if (wire == 2) {
			if (v > (uint64_t)(n - i)) return false;
			i += (size_t)v;
		}
	}
	return f >= 2 || i == n;
}

static const sniff_format *json(const char *p, size_t n, size_t i, bool more, const char **looks)
{
	size_t l1n;
	const char *l1;
	nth_line(p, n, 0, &l1, &l1n);
	if (has(l1, l1n, "\"type\":\"header\"") || has(l1, l1n, "\"format\":\"spaa\""))
		return &sniff_formats[F_SPAA];
	char key[32];
	if (p[i] == '{' && has(p, n, "\"dhatFileVersion\"")) return &sniff_formats[F_DHAT];
	if (p[i] == '{' && has(p, n, "\"cost_centres\"") && has(p, n, "\"total_ticks\""))
		return &sniff_formats[F_GHCPROF];
	if (p[i] == '{' && has(p, n, "\"recording\"") &&
	    (has(p, n, "\"sampleStackTraces\"") || has(p, n, "\"instrumentTypes\"") || has(p, n, "\"timeline-record-type-")))
		return &sniff_formats[F_SAFARI];
	if (p[i] == '{' && (has(p, n, "speedscope.app/file-format-schema.json") ||
			    (has(p, n, "\"profiles\"") && has(p, n, "\"shared\"") && has(p, n, "\"frames\""))))
		return &sniff_formats[F_SPEEDSCOPE];
	if (p[i] == '{' && has(p, n, "\"mode\"") && has(p, n, "\"frames\"") &&
	    (has(p, n, "\"raw\"") || has(p, n, "\"interval\"") || has(p, n, "\"gc_samples\"")))
		return &sniff_formats[F_STACKPROF];
	if (p[i] == '{') {
		first_key(p, n, i, key, sizeof key);
		/* node --prof-process --preprocess: "code" first, its types */
		if (!strcmp(key, "code") && (has(p, n, "\"SHARED_LIB\"") || has(p, n, "\"CPP\"") ||
					     has(p, n, "\"ticks\"")))
			return &sniff_formats[F_V8LOG_JSON];
		if (!strcmp(key, "snapshot")) return &sniff_formats[F_HEAPSNAPSHOT];
		if (!strcmp(key, "head") && has(p, n, "\"callFrame\"")) return &sniff_formats[F_HEAPPROFILE];
		if (!strcmp(key, "nodes") && has(p, n, "\"callFrame\"")) return &sniff_formats[F_CPUPROFILE];
		/* the Firefox devtools wrapper: its "profile" comes after the markers */
		if (!strcmp(key, "label") && has(p, n, "\"duration\"") && has(p, n, "\"markers\""))
			return &sniff_formats[F_GECKO];
		if (gecko(p, n)) return &sniff_formats[F_GECKO];
	}
	if (has(p, n, "\"enabled_metrics\"") || has(p, n, "\"exec_ts\""))
		return &sniff_formats[F_SPX];
	if (has(p, n, "\"traceEvents\"") || has(p, n, "\"ph\":") || has(p, n, "\"ph\": ")) {
		if (has(p, n, "\"ProfileChunk\"") || has(p, n, "\"cpuProfile\""))
			return &sniff_formats[F_CHROME_TRACE];
		/* the trace's own CPU samples (Hermes) */
		if (has(p, n, "\"stackFrames\"") && has(p, n, "\"samples\""))
			return &sniff_formats[F_CHROME_TRACE];
		if (more) {
			if (looks) *looks = "a JSON trace (whole content needed)";
			return NULL;
		}
		return &sniff_formats[F_TRACE_JSON];
	}
	if (p[i] == '{') {
		if (has(p, n, "\"selfSize\"")) return &sniff_formats[F_HEAPPROFILE];
		if (has(p, n, "\"timeDeltas\"") || has(p, n, "\"callFrame\"")) return &sniff_formats[F_CPUPROFILE];
		if (has(p, n, "\"snapshot\"") && has(p, n, "\"meta\"")) return &sniff_formats[F_HEAPSNAPSHOT];
	}
	if (looks) *looks = p[i] == '{' ? "JSON: an object with none of the keys of a profile (nodes, head, "
					  "snapshot, traceEvents, enabled_metrics)"
					: "JSON: an array of no trace events";
	return NULL;
}

const sniff_format *sniff_bytes(const void *data, size_t n, bool more, const char **looks)
{
	const char *p = data;
	const unsigned char *u = data;
	if (looks) *looks = "empty input";
	if (n == 0) return NULL;
	if (starts(p, n, "PERFILE2")) return &sniff_formats[F_PERF_DATA];
	if (n >= 4 && u[0] == 0x0D && u[1] == 0xF0 && u[2] == 0xAD && u[3] == 0x0B) return &sniff_formats[F_SPALL];
	if (starts(p, n, "# AFPerf v")) return &sniff_formats[F_AFPERF];
	if (starts(p, n, "[events]") || starts(p, n, "[functions]")) return &sniff_formats[F_SPX];
	if (starts(p, n, "heap profile:") || starts(p, n, "heap_v2/")) return &sniff_formats[F_PPROF_TEXT];
	/* the length of the text at the start: no control bytes (bytes that are
	 * not UTF-8 are text all the same: perf prints names as they are) */
	size_t text = 0;
	while (text < n && (u[text] >= 0x20 || u[text] == '\n' || u[text] == '\t' || u[text] == '\r')) text++;
	if (text < n && text < 64) { /* binary */
		/* a JFR chunk: "FLR\0" and a version 1 or 2 */
		if (n >= 6 && memcmp(u, "FLR", 4) == 0 && !u[4] && (u[5] == 1 || u[5] == 2))
			return &sniff_formats[F_JFR];
		/* Python's marshal of cProfile's dictionary: '{' (0x80: a
		 * reference to it may follow), its first key a tuple of 3 */
		if (n >= 3 && (u[0] & 0x7f) == '{' &&
		    (((u[1] & 0x7f) == ')' && u[2] == 3) ||
		     (n >= 6 && (u[1] & 0x7f) == '(' && u[2] == 3 && !u[3] && !u[4] && !u[5])))
			return &sniff_formats[F_PSTATS];
		if (text < 16 && pprof_fields(u, n)) return &sniff_formats[F_PPROF];
		if (looks) {
			static char buf[64];
			int k = snprintf(buf, sizeof buf, "binary data (first bytes");
			for (size_t j = 0; j < n && j < 8; j++) k += snprintf(buf + k, sizeof buf - k, " %02x", u[j]);
			snprintf(buf + k, sizeof buf - k, ")");
			*looks = buf;
		}
		return NULL;
	}
	size_t i = 0;
	while (i < n && (blank(p[i]) || p[i] == '\n' || p[i] == '\r')) i++;
	if (i < n && (p[i] == '{' || p[i] == '[')) return json(p, n, i, more, looks);

	const char *l0, *l1;
	size_t n0, n1;
	if (!nth_line(p, n, 0, &l0, &n0)) {
		if (looks) *looks = "blank text";
		return NULL;
	}
	bool has1 = nth_line(p, n, 1, &l1, &n1);
	if ((starts(l0, n0, "desc:") || starts(l0, n0, "cmd:")) && has(p, n, "\ntime_unit:") && has(p, n, "\nsnapshot="))
		return &sniff_formats[F_MASSIF];
	if (has(l0, n0, "Profiling Report") && has(p, n, "COST CENTRE"))
		return &sniff_formats[F_GHCPROF];
	if (starts(l0, n0, "# callgrind format") ||
	    ((has(p, n, "\nevents:") || starts(l0, n0, "events:")) && (has(p, n, "\nfn=") || has(p, n, "\nfl="))))
		return &sniff_formats[F_CALLGRIND];
	if (n0 >= 4 && l0[0] == 'v' && l0[1] == ' ' && hexdigit(l0[2]) && has1 && n1 >= 2 && l1[1] == ' ' &&
	    (l1[0] == 'X' || l1[0] == 'I' || l1[0] == 's' || l1[0] == 'v'))
		return &sniff_formats[F_HEAPTRACK];
	/* V8's tick log opens with its version (older V8s: a library) */
	if (starts(l0, n0, "v8-version,") || starts(l0, n0, "shared-library,") || starts(l0, n0, "code-creation,") ||
	    (starts(l0, n0, "v8-platform,") && has(p, n, "\ncode-creation,")))
		return &sniff_formats[F_V8LOG];
	if (starts(l0, n0, "# ========") || starts(l0, n0, "# captured on"))
		return &sniff_formats[F_PERF_SCRIPT];
	if (starts(l0, n0, "dtrace: ") || starts(l0, n0, "CPU     ID"))
		return &sniff_formats[F_DTRACE];
	if (instruments_header(l0, n0)) return &sniff_formats[F_INSTRUMENTS];
	if (pmcstat_line(l0, n0)) return &sniff_formats[F_PMCSTAT];
	/* the first lines of a record */
	bool dtrace = false, perf = false, bpf = false, fold = true;
	int k;
	const char *l, *prev = NULL;
	size_t ln, prevn = 0;
	for (k = 0; k < 64 && nth_line(p, n, k, &l, &ln); k++) {
		if (starts(l, ln, "Attaching ") || bpftrace_map(l, ln)) bpf = true;
		if (blank(l[0]) && has(l, ln, "`")) dtrace = true;
		if (prev && !blank(prev[0]) && perf_frame(l, ln) && (perf_header(prev, prevn) || prev[prevn - 1] == ':'))
			perf = true;
		const char *nx;
		size_t nxn;
		bool last = k == 63 || !nth_line(p, n, k + 1, &nx, &nxn);
		if (!folded(l, ln) && !(last && more)) fold = false; /* a last line may be cut short */
		prev = l;
		prevn = ln;
	}
	if (bpf) return &sniff_formats[F_BPFTRACE];
	if (perf) return &sniff_formats[F_PERF_SCRIPT];
	if (dtrace) return &sniff_formats[F_DTRACE];
	if (fold && folded(l0, n0)) return &sniff_formats[F_FOLDED];
	if (perf_header(l0, n0)) return &sniff_formats[F_PERF_SCRIPT];
	if (looks) {
		static char buf[120];
		snprintf(buf, sizeof buf, "text whose first line is \"%.*s%s\"", (int)(n0 > 60 ? 60 : n0), l0,
			 n0 > 60 ? "..." : "");
		*looks = buf;
	}
	return NULL;
}

/* Is directory dir one perf record --threads wrote (its header in
 * DIR/data)? */
static bool perf_dir(const char *dir)
{
	sbuf path = { 0 };
	sbuf_printf(&path, "%s/data", dir);
	/* a regular file: opening a FIFO named data must not wait */
	int fd = open(path.p, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	sbuf_free(&path);
	struct stat st;
	char m[8];
	bool yes = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && pread(fd, m, sizeof m, 0) == (ssize_t)sizeof m &&
		   (memcmp(m, "PERFILE2", 8) == 0 || memcmp(m, "2ELIFREP", 8) == 0);
	if (fd >= 0) close(fd);
	return yes;
}

const sniff_format *sniff_input(input *in, const char **looks)
{
	if (input_is_dir(in)) {
		if (perf_dir(input_name(in))) return &sniff_formats[F_PERF_DATA];
		if (looks) *looks = "a directory";
		return NULL;
	}
	const void *p;
	size_t n = input_peek(in, &p, 65536);
	const void *q;
	bool more = input_peek(in, &q, n + 1) > n;
	const sniff_format *f = sniff_bytes(p, n, more, looks);
	if (f || !more || !looks || strcmp(*looks, "a JSON trace (whole content needed)") != 0) return f;
	/* a JSON trace: Chrome's when one of its events is a CPU profile, or
	 * when it has samples and stackFrames (Hermes) */
	static const char *const marks[] = { "\"ProfileChunk\"", "\"cpuProfile\"" };
	static const char *const hermes[] = { "\"stackFrames\"", "\"samples\"" };
	bool seen[2] = { has(p, n, hermes[0]), has(p, n, hermes[1]) };
	enum { TAIL = 15, CHUNK = 65536 };
	static char buf[TAIL + CHUNK];
	size_t nt = 0; /* the last bytes of the previous chunk: a mark across two */
	for (;;) {
		const void *w;
		size_t m = input_window(in, &w, CHUNK);
		if (m == 0) break;
		if (m > CHUNK) m = CHUNK;
		memcpy(buf + nt, w, m);
		for (size_t j = 0; j < 2; j++)
			if (has(buf, nt + m, marks[j])) return &sniff_formats[F_CHROME_TRACE];
		for (size_t j = 0; j < 2; j++) seen[j] |= has(buf, nt + m, hermes[j]);
		if (seen[0] && seen[1]) return &sniff_formats[F_CHROME_TRACE];
		size_t keep = nt + m < TAIL ? nt + m : TAIL;
		memmove(buf, buf + nt + m - keep, keep);
		nt = keep;
		input_skip(in, m);
	}
	return &sniff_formats[F_TRACE_JSON];
}

bool sniff_other(const void *p, size_t n, bool more, const char *self, const char *mine, char *msg, size_t cap)
{
	const sniff_format *f = sniff_bytes(p, n, more, NULL);
	if (!f || (f->cmd && strcmp(f->cmd, self) == 0)) return false;
	/* chrome2spaa reads traces too, and says itself what one without CPU
	 * profile events lacks */
	if (f == &sniff_formats[F_TRACE_JSON] && strcmp(self, "chrome2spaa") == 0) return false;
	/* and spall2spaa reads the spans of a Chrome trace */
	if (f == &sniff_formats[F_CHROME_TRACE] && strcmp(self, "spall2spaa") == 0) return false;
	if (!f->cmd) snprintf(msg, cap, "this is SPAA already, not %s: no conversion needed", mine);
	else snprintf(msg, cap, "this is %s, not %s: run %s", f->what, mine, f->cmd);
	return true;
}

void sniff_refuse_other(input *in, const char *self, const char *mine)
{
	const void *p, *q;
	size_t n = input_peek(in, &p, 65536);
	bool more = input_peek(in, &q, n + 1) > n;
	char msg[256];
	if (sniff_other(q, n, more, self, mine, msg, sizeof msg)) die_at(input_name(in), 0, "%s", msg);
}
