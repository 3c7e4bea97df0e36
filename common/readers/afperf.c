/* afperf2spaa - convert AFPerf v1 profiling files (AFSIM's intermediate
 * format) to SPAA.
 *
 * The story: the records of an AFPerf file may come in any order (a
 * RegionStop before its RegionStart, data before the RunInfo and the
 * MeasurementType it refers to), so the whole file is read first: runs,
 * measurement types, regions, region stops, sections, intervals and pauses
 * are kept in compact arrays, and the data records (points and aggregates,
 * whose values can only be read once their measurement type is known) are
 * spooled to a temporary file.  At the end every reference is resolved, and
 * each run becomes one thread-like context (pid = tid = the run's number, in
 * the order of the RunInfo records):
 *  - event "region": the regions of a run are nested by time and go through
 *    the span model (common/formats/spans.h): each call path of region labels gets
 *    its self time in nanoseconds (wall_ns) and calls;
 *  - event "section": one stack per section (frame = its label, context
 *    x_section_id / x_tags), with the summed and the union length of its
 *    intervals (wall_ns, union_ns) and their number (intervals);
 *  - numeric raw aggregates of a region or section are summed into metrics
 *    named after their measurement type, on that region's / section's stack;
 *  - everything else (run info, measurement types, tags, pauses, section
 *    details, per-measurement summaries of every data record) goes into
 *    header.source.
 * Interpretation rules follow the corpus notes (see afperf2spaa(1)). */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "readers.h"
#include "build.h"
#include "reader.h"
#include "cli.h"
#include "several.h"
#include "sniff.h"
#include "jsonbuf.h"
#include "input.h"
#include "output.h"
#include "spans.h"
#include "strmap.h"
#include "utf8.h"

static const char help_text[] =
	"Usage: afperf2spaa [OPTION]... [FILE]...\n"
	"Convert an AFPerf v1 profiling file (AFSIM) to SPAA.  Each run becomes a\n"
	"thread (pid = tid = run number); regions become call stacks of region\n"
	"labels under event \"region\" (self time in wall_ns, nanoseconds, and\n"
	"calls); sections become stacks of event \"section\" (wall_ns = summed\n"
	"interval lengths, union_ns, intervals); numeric raw region and section\n"
	"aggregates become metrics named after their measurement type; run info,\n"
	"tags and summaries of all data records go into header.source.\n"
	"With no FILE, or when FILE is -, read standard input (gzip and zstd are\n"
	"decompressed).\n"
	"\n"
	"  -s, --samples        also write one sample record per region and per\n"
	"                       section interval, at its start in wall-clock\n"
	"                       seconds; x_weights carry region counters, so that\n"
	"                       spaa-window can cut them in time\n"
	"      --exclude-pauses  deduct PauseResume pauses: wall_ns and union_ns\n"
	"                       leave paused time out (regions also get elapsed_ns)\n"
	"      --max-depth=N    the deepest nesting of regions (default 4096): deeper\n"
	"                       is an error, since output grows with depth squared\n"
	"      --strict         treat recoverable problems (regions or intervals\n"
	"                       that never stop, undefined measurement types) as\n"
	"                       errors instead of warnings\n"
	CLI_HELP_TAIL;

/* ---- diagnostics --------------------------------------------------------- */

static const char *fname;
static bool strict, opt_samples, opt_pauses;
static uint64_t nwarnings;

static noreturn void fail(uint64_t line, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static noreturn void fail(uint64_t line, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	die_at(fname, line, "%s", msg);
}

/* A recoverable problem: a warning, or an error with --strict. */
static void problem(uint64_t line, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(uint64_t line, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (strict) die_at(fname, line, "%s", msg);
	if (++nwarnings <= 50) warn_at(fname, line, "%s", msg);
	if (nwarnings == 50) warn_at(fname, 0, "further warnings not shown");
}

/* Field text for messages: at most 60 bytes, control bytes as '?'. */
static const char *shown(sstr s)
{
	static char buf[4][72];
	static int k;
	char *b = buf[k++ & 3];
	size_t n = s.n > 60 ? 60 : s.n, j = 0;
	for (size_t i = 0; i < n; i++) b[j++] = (unsigned char)s.p[i] < 0x20 ? '?' : s.p[i];
	if (s.n > 60) { memcpy(b + j, "...", 3); j += 3; }
	b[j] = 0;
	return b;
}

static const char *hexid(uint64_t v)
{
	static char buf[4][24];
	static int k;
	char *b = buf[k++ & 3];
	b[fmt_hex(b, v, 1)] = 0;
	return b;
}

/* ---- records: RFC 4180 fields over one or more physical lines ------------ */

#define SIGNATURE "# AFPerf v1     "

static input *IN;
static sbuf rec;                 /* unquoted field contents */
static struct fld { size_t off, n; bool quoted; } *flds;
static uint32_t nflds, fldcap;
static uint64_t rec_line;        /* physical line the record starts on */

/* The AFPerf specification: a file MUST be UTF-8.  Invalid bytes are
 * refused with their line, not replaced. */
static void check_utf8(const char *line, size_t n, uint64_t lineno)
{
	const uint8_t *p = (const uint8_t *)line, *end = p + n;
	for (;;) {
		while (p < end && *p < 0x80) p++;
		if (p >= end) return;
		int k = utf8_seq(p, end);
		if (k < 0)
			fail(lineno, "invalid UTF-8 at byte %zu (0x%02x): AFPerf files must be UTF-8",
			     (size_t)(p - (const uint8_t *)line) + 1, *p);
		p += k;
	}
}

static sstr F(uint32_t i)
{
	return (sstr){ rec.p + flds[i].off, flds[i].n };
}

/* The next line (input_line).  Every record, the signature too, ends with a
 * newline as the writer appends it: a last line without one is a record cut
 * in the middle, an error (checked after the signature, so that a file that
 * is not AFPerf is named so). */
static bool line_nl = true;

static char *next_line(size_t *n)
{
	uint64_t at = input_offset(IN);
	char *p = input_line(IN, n);
	if (p) line_nl = input_offset(IN) - at > *n;
	return p;
}

static void check_cut(void)
{
	if (!line_nl) die_cut_line(fname, input_lineno(IN));
}

/* Splits the record that starts with line p (len n); continues on the next
 * lines while a quoted field is open. */
static void split_record(char *p, size_t n)
{
	rec.n = 0;
	nflds = 0;
	struct fld *f = VEC_PUSH(flds, nflds, fldcap);
	f->off = 0;
	f->quoted = false;
	int st = 0; /* 0 field start, 1 unquoted, 2 quoted, 3 after closing quote */
	for (;;) {
		bool cr = n > 0 && p[n - 1] == '\r';
		size_t m = cr ? n - 1 : n;
		for (size_t i = 0; i < m; i++) {
			char c = p[i];
			if (st == 2) {
				if (c != '"') { sbuf_addc(&rec, c); continue; }
				if (i + 1 < m && p[i + 1] == '"') { sbuf_addc(&rec, '"'); i++; continue; }
				st = 3;
				continue;
			}
			if (c == ',') {
				f = &flds[nflds - 1];
				f->n = rec.n - f->off;
				f = VEC_PUSH(flds, nflds, fldcap);
				f->off = rec.n;
				f->quoted = false;
				st = 0;
				continue;
			}
			if (st == 3)
				fail(input_lineno(IN), "character after the closing quote of field %u (RFC 4180)", nflds);
			if (c == '"') {
				if (st == 1)
					fail(input_lineno(IN), "quote inside an unquoted field %u (RFC 4180)", nflds);
				flds[nflds - 1].quoted = true;
				st = 2;
				continue;
			}
			st = 1;
			sbuf_addc(&rec, c);
		}
		if (st != 2) break;
		/* a line break inside a quoted field */
		if (cr) sbuf_addc(&rec, '\r');
		sbuf_addc(&rec, '\n');
		p = next_line(&n);
		if (!p) fail(rec_line, "unterminated quoted field (RFC 4180)");
		check_cut();
		check_utf8(p, n, input_lineno(IN));
	}
	flds[nflds - 1].n = rec.n - flds[nflds - 1].off;
	sbuf_addc(&rec, 0);
}

/* ---- numbers ------------------------------------------------------------- */

static bool is_blank(char c) { return c == ' ' || c == '\t'; }

static sstr trim(sstr s)
{
	while (s.n && is_blank(*s.p)) { s.p++; s.n--; }
	while (s.n && is_blank(s.p[s.n - 1])) s.n--;
	return s;
}

/* Unsigned decimal or 0x hexadecimal (C99 strtoll syntax without octal: an
 * optional '+', blanks around allowed). */
static bool parse_mag(sstr s, uint64_t *out)
{
	s = trim(s);
	if (s.n > 1 && *s.p == '+' && !is_blank(s.p[1])) {
		s.p++;
		s.n--;
	}
	if (!s.n) return false;
	uint64_t v = 0;
	if (s.n > 2 && s.p[0] == '0' && (s.p[1] == 'x' || s.p[1] == 'X')) {
		for (size_t i = 2; i < s.n; i++) {
			char c = s.p[i];
			unsigned d;
			if (c >= '0' && c <= '9') d = (unsigned)(c - '0');
			else if (c >= 'a' && c <= 'f') d = (unsigned)(c - 'a' + 10);
			else if (c >= 'A' && c <= 'F') d = (unsigned)(c - 'A' + 10);
			else return false;
			if (v >> 60) return false;
			v = v << 4 | d;
		}
	} else {
		for (size_t i = 0; i < s.n; i++) {
			char c = s.p[i];
			if (c < '0' || c > '9') return false;
			if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, (uint64_t)(c - '0'), &v))
				return false;
		}
	}
	*out = v;
	return true;
}

/* A signed integer value (measurement data): [-+]magnitude. */
static bool parse_int(sstr s, int64_t *out)
{
	s = trim(s);
	bool neg = false;
	if (s.n && (*s.p == '-' || *s.p == '+')) {
		neg = *s.p == '-';
		s.p++;
		s.n--;
		if (s.n && (is_blank(*s.p) || *s.p == '+')) return false;
	}
	uint64_t m;
	if (!parse_mag(s, &m)) return false;
	if (neg ? m > (uint64_t)INT64_MAX + 1 : m > (uint64_t)INT64_MAX) return false;
	*out = neg ? (int64_t)(0 - m) : (int64_t)m;
	return true;
}

/* C99 strtod, with nothing but blanks after the number.  1: ok, 0: not a
 * number, -1: a number with a non-blank tail. */
static int parse_double(sstr s, double *out)
{
	char buf[128];
	if (s.n >= sizeof buf) return 0;
	memcpy(buf, s.p, s.n);
	buf[s.n] = 0;
	char *e;
	double d = strtod(buf, &e);
	if (e == buf) return 0;
	while (is_blank(*e)) e++;
	if (*e) return -1;
	*out = d;
	return 1;
}

static int64_t get_ts(uint32_t i, const char *what)
{
	sstr s = F(i);
	sstr t = trim(s);
	uint64_t v;
	if (t.n && t.p[0] == '-') {
		uint64_t m;
		if (parse_mag((sstr){ t.p + 1, t.n - 1 }, &m))
			fail(rec_line, "%s '%s' is negative; timestamps must be nonnegative", what, shown(s));
	}
	if (!parse_mag(s, &v)) fail(rec_line, "%s '%s' is not an integer", what, shown(s));
	if (v > (uint64_t)INT64_MAX) fail(rec_line, "%s '%s' is too large", what, shown(s));
	return (int64_t)v;
}

static bool blank_field(uint32_t i) { return trim(F(i)).n == 0; }

static uint64_t get_id(uint32_t i, const char *what)
{
	uint64_t v;
	if (blank_field(i)) fail(rec_line, "%s is blank", what);
	if (!parse_mag(F(i), &v)) fail(rec_line, "%s '%s' is not an unsigned 64-bit integer", what, shown(F(i)));
	return v;
}

/* ---- the model ----------------------------------------------------------- */

static strmap strs;              /* every kept string -> index */
static uint32_t str_of(sstr s) { return strmap_intern(&strs, s.p, s.n, NULL); }
static sstr str_get(uint32_t i) { size_t n; const char *p = strmap_key(&strs, i, &n); return (sstr){ p, n }; }

enum { U_S, U_MS, U_US, U_NS };
struct run {
	uint64_t id, line;
	int64_t t0;
	uint32_t units, wallclock, version, app, appver, tags; /* strings */
	int unit;
	int64_t factor;            /* ns per tick */
	int64_t wc_ns;             /* wallclock in ns */
	uint32_t minor;
	struct pause { int64_t s, e; } *pauses; /* merged at the end */
	uint32_t npauses, pcap;
	int64_t *pprefix;          /* paused time before pause k */
	uint32_t tid;
	uint64_t nkind[11];        /* data records per kind */
};
static struct run *runs;
static uint32_t nruns, runcap;
static strmap run_map;           /* run id (8 bytes) -> index */
static bool later_minor;         /* a run declares 1.x.y with x > 0 */

struct mtype {
	uint64_t run, id, line;
	uint32_t name, datatype, units, summary, desc;
	int dt;
};
enum { DT_DOUBLE, DT_INT32, DT_INT64, DT_BOOL, DT_STRING, DT_ENUM };
static const char *const dt_names[] = { "double", "int32", "int64", "bool", "string", "enum", NULL };
static struct mtype *mts;
static uint32_t nmts, mtcap;
static strmap mt_map;            /* (run id, type id) -> index */

struct region {
	uint64_t id, run, start_line, stop_line, seq;
	int64_t start, stop;
	uint32_t label, tags, ri;
	bool stopped;
};
static struct region *regs;
static uint32_t nregs, regcap;
struct rstop { uint64_t id, line, seq, cur_run; int64_t ts; bool has_cur; };
static struct rstop *rstops;
static uint32_t nrstops, rstopcap;
static strmap reg_map;           /* region id -> first region */
static uint32_t *reg_count;      /* RegionStarts per distinct id */
static uint32_t *reg_first;      /* the first region with the id */
static uint32_t reg_count_cap, reg_first_cap;

struct section {
	uint64_t id, run, line, seq;
	uint32_t label, tags, ri;
	uint64_t nint;
	int64_t first, last;
	bool has_first;
};
static struct section *secs;
static uint32_t nsecs, seccap;
struct sevent { uint64_t sid, iid, line, seq; int64_t ts; uint32_t sec; bool stop; };
static struct sevent *sevs;
static uint32_t nsevs, sevcap;

static uint64_t seq;             /* record number */
static uint64_t cur_run;         /* the last run id a record carried */
static bool has_cur_run;

/* file-level counts */
static const char *const type_names[] = {
	NULL, "MeasurementType", "PauseResume", "RegionAggregate", "RegionPoint",
	"RegionStart", "RegionStop", "RunAggregate", "RunInfo", "RunPoint",
	"SectionAggregate", "SectionInfo", "SectionPoint", "SectionStart", "SectionStop"
};
enum { T_MT = 1, T_PAUSE, T_RAGG, T_RPOINT, T_RSTART, T_RSTOP, T_RUNAGG, T_RUNINFO,
       T_RUNPOINT, T_SAGG, T_SINFO, T_SPOINT, T_SSTART, T_SSTOP, T_N };
/* fields of the fixed-layout records (type name included); 0: pairs follow */
static const uint32_t fixed_fields[T_N] = { 0, 9, 4, 0, 0, 6, 3, 0, 9, 5, 0, 6, 0, 4, 4 };
static const uint32_t min_fields[T_N] = { 0, 9, 4, 7, 5, 6, 3, 7, 9, 5, 8, 6, 6, 4, 4 };
static uint64_t by_type[T_N];
static uint64_t nrecords, nheaders, ncomments, nblanks, nnumeric, nunknown, nextra;
static uint64_t first_unknown_line, first_extra_line;
static char first_unknown_msg[256], first_extra_msg[256];
static uint64_t blank_processed[T_N];
static bool crlf, repeated_ids;

/* data records, spooled: header then fields */
static FILE *spool;
struct dhead {
	uint64_t line, recid, iid, cur_run;
	uint32_t npairs;
	uint8_t type, has_recid, has_iid, has_agg, has_cur, agg_sum;
};

static void spool_put(const void *p, size_t n)
{
	if (fwrite(p, 1, n, spool) != n) die(EXIT_DATA, "temporary file for data records: write error");
}

/* ---- reading records ----------------------------------------------------- */

static void extra_fields(uint32_t t, uint32_t want)
{
	nextra++;
	if (!first_extra_line) {
		first_extra_line = rec_line;
		snprintf(first_extra_msg, sizeof first_extra_msg,
			 "%s has %u fields (%u in format 1.0), and no run declares a later minor version, so they cannot be ignored",
			 type_names[t], nflds, want);
	}
}

static void runinfo(void)
{
	uint64_t id = get_id(5, "run id");
	struct run r;
	memset(&r, 0, sizeof r);
	r.id = id;
	r.line = rec_line;
	r.t0 = get_ts(1, "start timestamp");
	sstr u = trim(F(2));
	static const struct { const char *name; int unit; int64_t f; } units[] = {
		{ "seconds", U_S, 1000000000 }, { "s", U_S, 1000000000 },
		{ "milliseconds", U_MS, 1000000 }, { "ms", U_MS, 1000000 },
		{ "microseconds", U_US, 1000 }, { "us", U_US, 1000 },
		{ "\xc2\xb5s", U_US, 1000 }, { "\xce\xbcs", U_US, 1000 }, { "\xc3\x8e\xc2\xbcs", U_US, 1000 },
		{ "nanoseconds", U_NS, 1 }, { "ns", U_NS, 1 }, { NULL, 0, 0 }
	};
	for (int i = 0; units[i].name; i++)
		if (strlen(units[i].name) == u.n && memcmp(units[i].name, u.p, u.n) == 0) {
			r.unit = units[i].unit;
			r.factor = units[i].f;
		}
	if (!r.factor) fail(rec_line, "RunInfo timestamp units '%s' are not seconds, milliseconds, microseconds or nanoseconds", shown(F(2)));
	double wc;
	if (parse_double(F(3), &wc) != 1) fail(rec_line, "RunInfo wallclock '%s' is not a number", shown(F(3)));
	if (!isfinite(wc) || fabs(wc) > 9.2e9) fail(rec_line, "RunInfo wallclock '%s' is not a time in seconds since 1970", shown(F(3)));
	r.wc_ns = llround(wc * 1e9);
	/* the format version: three dot-separated integers */
	sstr v = F(4);
	uint64_t part[3];
	size_t i = 0;
	int k;
	for (k = 0; k < 3; k++) {
		size_t b = i;
		while (i < v.n && v.p[i] >= '0' && v.p[i] <= '9') i++;
		if (i == b || i - b > 9) break;
		parse_mag((sstr){ v.p + b, i - b }, &part[k]);
		if (k < 2) {
			if (i >= v.n || v.p[i] != '.') { k++; break; }
			i++;
		}
	}
	if (k != 3 || i != v.n) fail(rec_line, "RunInfo format version '%s' is not three dot-separated integers", shown(v));
	if (part[0] != 1) fail(rec_line, "the run declares format version %s inside a v1 container", shown(v));
	r.minor = (uint32_t)part[1];
	if (r.minor > 0) later_minor = true;
	r.units = str_of(F(2));
	r.wallclock = str_of(F(3));
	r.version = str_of(v);
	r.app = str_of(F(6));
	r.appver = str_of(F(7));
	r.tags = str_of(F(8));
	bool added;
	uint32_t ri = strmap_intern(&run_map, &id, sizeof id, &added);
	if (!added) fail(rec_line, "a second RunInfo for run %s (the first is on line %llu)", hexid(id), (unsigned long long)runs[ri].line);
	*VEC_PUSH(runs, nruns, runcap) = r;
	runs[ri].tid = ri + 1;
	cur_run = id;
	has_cur_run = true;
}

static void mtype(void)
{
	struct mtype m;
	m.run = get_id(2, "run id");
	m.id = get_id(3, "measurement type id");
	m.line = rec_line;
	m.name = str_of(F(4));
	m.datatype = str_of(F(5));
	m.units = str_of(F(6));
	m.summary = str_of(F(7));
	m.desc = str_of(F(8));
	(void)get_ts(1, "timestamp");
	sstr dt = trim(F(5));
	m.dt = -1;
	for (int i = 0; dt_names[i]; i++)
		if (strlen(dt_names[i]) == dt.n && memcmp(dt_names[i], dt.p, dt.n) == 0) m.dt = i;
	if (m.dt < 0) fail(rec_line, "MeasurementType datatype '%s' is not double, int32, int64, bool, string or enum", shown(F(5)));
	uint64_t key[2] = { m.run, m.id };
	bool added;
	uint32_t i = strmap_intern(&mt_map, key, sizeof key, &added);
	if (added) *VEC_PUSH(mts, nmts, mtcap) = m;
	else mts[i] = m; /* a later record updates the definition */
	cur_run = m.run;
	has_cur_run = true;
}

static void pause_rec(void)
{
	int64_t e = get_ts(1, "end timestamp"), s = get_ts(2, "start timestamp");
	uint64_t run = get_id(3, "run id");
	if (e < s) fail(rec_line, "pause ends (%lld) before it starts (%lld)", (long long)e, (long long)s);
	/* kept in the region stops' array's sibling: runs may come later */
	struct rstop *p = VEC_PUSH(rstops, nrstops, rstopcap);
	/* a pause is a stop-like record with id = run, marked by seq's top bit */
	p->id = run;
	p->line = rec_line;
	p->seq = seq | (UINT64_C(1) << 63);
	p->ts = s;
	p->cur_run = (uint64_t)e;
	p->has_cur = false;
	cur_run = run;
	has_cur_run = true;
}

static void region_start(void)
{
	struct region r;
	memset(&r, 0, sizeof r);
	r.start = get_ts(1, "timestamp");
	r.run = get_id(2, "run id");
	r.id = get_id(3, "region id");
	r.label = str_of(F(4));
	r.tags = str_of(F(5));
	r.start_line = rec_line;
	r.seq = seq;
	bool added;
	uint32_t k = strmap_intern(&reg_map, &r.id, sizeof r.id, &added);
	if (added) {
		grow_array((void **)&reg_count, &reg_count_cap, k + 1, sizeof *reg_count);
		grow_array((void **)&reg_first, &reg_first_cap, k + 1, sizeof *reg_first);
		reg_count[k] = 0;
		reg_first[k] = nregs;
	}
	if (++reg_count[k] > 1) repeated_ids = true;
	*VEC_PUSH(regs, nregs, regcap) = r;
	cur_run = r.run;
	has_cur_run = true;
}

static void region_stop(void)
{
	struct rstop s;
	s.ts = get_ts(1, "timestamp");
	s.id = get_id(2, "region id");
	s.line = rec_line;
	s.seq = seq;
	s.cur_run = cur_run;
	s.has_cur = has_cur_run;
	*VEC_PUSH(rstops, nrstops, rstopcap) = s;
}

static void section_info(void)
{
	struct section x;
	memset(&x, 0, sizeof x);
	if (!blank_field(1)) (void)get_ts(1, "timestamp");
	x.run = get_id(2, "run id");
	x.id = get_id(3, "section id");
	x.label = str_of(F(4));
	x.tags = str_of(F(5));
	x.line = rec_line;
	x.seq = seq;
	*VEC_PUSH(secs, nsecs, seccap) = x;
	cur_run = x.run;
	has_cur_run = true;
}

static void section_event(bool stop)
{
	struct sevent e;
	e.ts = get_ts(1, "timestamp");
	e.sid = get_id(2, "section id");
	e.iid = get_id(3, "section interval id");
	e.line = rec_line;
	e.seq = seq;
	e.stop = stop;
	e.sec = UINT32_MAX;
	*VEC_PUSH(sevs, nsevs, sevcap) = e;
}

/* Points and aggregates: checked as far as possible now, values later. */
static void data_rec(uint32_t t)
{
	struct dhead h;
	memset(&h, 0, sizeof h);
	h.type = (uint8_t)t;
	h.line = rec_line;
	h.cur_run = cur_run;
	h.has_cur = has_cur_run;
	uint32_t first; /* first pair field */
	switch (t) {
	case T_RUNPOINT: case T_RPOINT:
		(void)get_ts(1, "timestamp");
		h.recid = get_id(2, t == T_RUNPOINT ? "run id" : "region id");
		h.has_recid = 1;
		first = 3;
		break;
	case T_SPOINT:
		(void)get_ts(1, "timestamp");
		h.recid = get_id(2, "section id");
		h.iid = get_id(3, "section interval id");
		h.has_recid = h.has_iid = 1;
		first = 4;
		break;
	default: { /* aggregates: end, start, record id, [interval id,] type */
		int64_t e = get_ts(1, "end timestamp"), s = get_ts(2, "start timestamp");
		if (e < s) fail(rec_line, "%s ends (%lld) before it starts (%lld)", type_names[t], (long long)e, (long long)s);
		uint32_t ai = t == T_SAGG ? 5 : 4;
		h.has_agg = !blank_field(ai);
		sstr at = trim(F(ai));
		h.agg_sum = (at.n == 5 && memcmp(at.p, "total", 5) == 0) || (at.n == 3 && memcmp(at.p, "sum", 3) == 0) ||
			    (at.n == 9 && memcmp(at.p, "summation", 9) == 0);
		if (!blank_field(3)) {
			h.recid = get_id(3, "record id");
			h.has_recid = 1;
		} else if (!h.has_agg) {
			fail(rec_line, "raw %s (no aggregation type) with a blank record id", type_names[t]);
		}
		if (t == T_SAGG && !blank_field(4)) {
			h.iid = get_id(4, "section interval id");
			h.has_iid = 1;
		}
		first = ai + 1;
		if (!h.has_recid) blank_processed[t]++;
		if (t == T_RUNAGG && h.has_recid) {
			cur_run = h.recid;
			has_cur_run = true;
		}
	}
	}
	uint32_t np = (nflds - first) / 2;
	if (t == T_RUNPOINT && np > 1) np = 1;
	if (first + 2 * np != nflds) extra_fields(t, first + 2 * np);
	if (np == 0) fail(rec_line, "%s has no measurement (type id, value pair)", type_names[t]);
	if (t == T_RUNPOINT) {
		cur_run = h.recid;
		has_cur_run = true;
	}
	h.npairs = np;
	if (!h.has_recid) return; /* processed, tied to no run: counted only */
	if (!spool) {
		spool = tmpfile();
		if (!spool) die(EXIT_DATA, "temporary file for data records: %s", strerror(errno));
	}
	spool_put(&h, sizeof h);
	for (uint32_t i = 0; i < np; i++) {
		uint64_t mt = get_id(first + 2 * i, "measurement type id");
		sstr v = F(first + 2 * i + 1);
		uint32_t n = (uint32_t)v.n;
		spool_put(&mt, sizeof mt);
		spool_put(&n, sizeof n);
		spool_put(v.p, v.n);
	}
}

static int record_type(sstr s)
{
	s = trim(s);
	uint64_t v;
	if (s.n && s.p[0] >= '0' && s.p[0] <= '9') {
		if (parse_mag(s, &v) && v >= 1 && v < T_N) {
			nnumeric++;
			return (int)v;
		}
		return -1;
	}
	for (int t = 1; t < T_N; t++)
		if (strlen(type_names[t]) == s.n && memcmp(type_names[t], s.p, s.n) == 0) return t;
	return -1;
}

static void record(void)
{
	nrecords++;
	seq++;
	int t = record_type(F(0));
	if (t < 0) {
		nunknown++;
		if (!first_unknown_line) {
			first_unknown_line = rec_line;
			sstr s = trim(F(0));
			if (s.n && s.p[0] >= '0' && s.p[0] <= '9')
				snprintf(first_unknown_msg, sizeof first_unknown_msg,
					 "unknown record type %s (record types 1..14 are defined in 1.0; 0 is reserved), and no run declares a later minor version, so it cannot be skipped",
					 shown(s));
			else
				snprintf(first_unknown_msg, sizeof first_unknown_msg,
					 "unknown record type '%s', and no run declares a later minor version, so it cannot be skipped",
					 shown(s));
		}
		return;
	}
	by_type[t]++;
	if (nflds < min_fields[t])
		fail(rec_line, "%s has %u fields, needs %u", type_names[t], nflds, min_fields[t]);
	if (fixed_fields[t] && nflds > fixed_fields[t]) extra_fields((uint32_t)t, fixed_fields[t]);
	switch (t) {
	case T_RUNINFO: runinfo(); break;
	case T_MT: mtype(); break;
	case T_PAUSE: pause_rec(); break;
	case T_RSTART: region_start(); break;
	case T_RSTOP: region_stop(); break;
	case T_SINFO: section_info(); break;
	case T_SSTART: section_event(false); break;
	case T_SSTOP: section_event(true); break;
	default: data_rec((uint32_t)t); break;
	}
}

static void check_signature(char *p, size_t n)
{
	if (!p) fail(1, "empty file: no signature");
	if (n && p[n - 1] == '\r') { crlf = true; n--; }
	if (n == 16 && memcmp(p, SIGNATURE, 16) == 0) return;
	if (n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		fail(1, "file starts with a UTF-8 byte order mark; the signature must be the first 16 bytes");
	if (n > 10 && memcmp(p, "# AFPerf v", 10) == 0 && p[10] >= '0' && p[10] <= '9') {
		size_t i = 10;
		uint64_t major = 0;
		while (i < n && p[i] >= '0' && p[i] <= '9' && major < 100000) major = major * 10 + (uint64_t)(p[i++] - '0');
		if (major != 1) fail(1, "unsupported major version %llu (only v1 is known)", (unsigned long long)major);
		fail(1, "bad file signature: the header must be the 16 bytes '# AFPerf v1' + 5 spaces; here it is %zu bytes", n);
	}
	fail(1, "bad file signature: the file must start with the 16 bytes '# AFPerf v1' + 5 spaces (found '%s')",
	     shown((sstr){ p, n > 16 ? 16 : n }));
}

static void read_all(void)
{
	size_t n;
	char *p = next_line(&n);
	check_signature(p, n);
	check_cut();
	nheaders = 1;
	while ((p = next_line(&n))) {
		rec_line = input_lineno(IN);
		check_cut();
		check_utf8(p, n, rec_line);
		size_t m = n && p[n - 1] == '\r' ? n - 1 : n;
		if (m >= 8 && memcmp(p, "# AFPerf", 8) == 0) {
			if (m != 16 || memcmp(p, SIGNATURE, 16) != 0) {
				while (m && is_blank(p[m - 1])) m--;
				fail(rec_line, "a repeated version header must be identical to the first one ('%s' found)",
				     shown((sstr){ p, m }));
			}
			nheaders++;
			continue;
		}
		if (m && p[0] == '#') { ncomments++; continue; }
		size_t i = 0;
		while (i < m && is_blank(p[i])) i++;
		if (i == m) { nblanks++; continue; }
		split_record(p, n);
		record();
	}
}

/* ---- resolving ----------------------------------------------------------- */

static uint32_t run_index(uint64_t id, uint64_t line, const char *what)
{
	int64_t i = strmap_find(&run_map, &id, sizeof id);
	if (i < 0) fail(line, "%s refers to run %s, for which the file has no RunInfo", what, hexid(id));
	return (uint32_t)i;
}

static int64_t to_ns(const struct run *r, int64_t t, uint64_t line)
{
	int64_t d, v;
	if (__builtin_sub_overflow(t, r->t0, &d) || __builtin_mul_overflow(d, r->factor, &v) ||
	    __builtin_add_overflow(v, r->wc_ns, &v))
		fail(line, "timestamp %lld does not fit in 64-bit nanoseconds", (long long)t);
	return v;
}

/* Paused time of run r before t (in run units). */
static int64_t paused_before(const struct run *r, int64_t t)
{
	uint32_t lo = 0, hi = r->npauses; /* first pause with s >= t */
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (r->pauses[mid].s < t) lo = mid + 1;
		else hi = mid;
	}
	if (lo == 0) return 0;
	const struct pause *p = &r->pauses[lo - 1];
	int64_t in = (t < p->e ? t : p->e) - p->s;
	return r->pprefix[lo - 1] + in;
}

static int64_t unpaused(const struct run *r, int64_t t) { return t - paused_before(r, t); }

static int cmp_pause(const void *a, const void *b)
{
	const struct pause *x = a, *y = b;
	return x->s < y->s ? -1 : x->s > y->s ? 1 : (x->e < y->e ? -1 : x->e > y->e);
}

static void resolve_pauses(void)
{
	for (uint32_t i = 0; i < nrstops; i++) {
		struct rstop *s = &rstops[i];
		if (!(s->seq >> 63)) continue;
		struct run *r = &runs[run_index(s->id, s->line, "PauseResume")];
		struct pause *p = VEC_PUSH(r->pauses, r->npauses, r->pcap);
		p->s = s->ts;
		p->e = (int64_t)s->cur_run;
	}
	for (uint32_t k = 0; k < nruns; k++) {
		struct run *r = &runs[k];
		xqsort(r->pauses, r->npauses, sizeof *r->pauses, cmp_pause);
		uint32_t m = 0;
		for (uint32_t i = 0; i < r->npauses; i++) {
			if (m && r->pauses[i].s <= r->pauses[m - 1].e) {
				if (r->pauses[i].e > r->pauses[m - 1].e) r->pauses[m - 1].e = r->pauses[i].e;
			} else {
				r->pauses[m++] = r->pauses[i];
			}
		}
		r->npauses = m;
		r->pprefix = xcalloc(m + 1, sizeof *r->pprefix);
		for (uint32_t i = 1; i < m; i++)
			r->pprefix[i] = r->pprefix[i - 1] + (r->pauses[i - 1].e - r->pauses[i - 1].s);
	}
}

/* Open regions with repeated ids, per (run, id). */
struct ostack { uint32_t *v, n, cap; };

static void resolve_regions(void)
{
	strmap open_map;
	memset(&open_map, 0, sizeof open_map);
	struct ostack *open = NULL;
	uint32_t nopen = 0, opencap = 0;
	uint32_t si = 0;
	/* walk starts and stops in file order together */
	for (uint32_t ri = 0; ri <= nregs; ri++) {
		uint64_t upto = ri < nregs ? regs[ri].seq : UINT64_MAX;
		for (; si < nrstops && (rstops[si].seq & ~(UINT64_C(1) << 63)) < upto; si++) {
			const struct rstop *s = &rstops[si];
			if (s->seq >> 63) continue; /* a pause */
			int64_t k = strmap_find(&reg_map, &s->id, sizeof s->id);
			if (k < 0)
				fail(s->line, "RegionStop for region id %s, which no RegionStart (anywhere in the file) opens", hexid(s->id));
			struct region *r = NULL;
			if (reg_count[k] == 1) {
				/* unique id: matched wherever its start is */
				r = &regs[reg_first[k]];
			} else {
				if (!s->has_cur) fail(s->line, "RegionStop for repeated region id %s before any record names a run", hexid(s->id));
				uint64_t key[2] = { s->cur_run, s->id };
				int64_t o = strmap_find(&open_map, key, sizeof key);
				if (o < 0 || open[o].n == 0)
					fail(s->line, "RegionStop for region id %s with no open RegionStart of run %s before it",
					     hexid(s->id), hexid(s->cur_run));
				r = &regs[open[o].v[--open[o].n]];
			}
			if (r->stopped)
				fail(s->line, "a second RegionStop for region %s (the first is on line %llu)", hexid(s->id),
				     (unsigned long long)r->stop_line);
			r->stopped = true;
			r->stop = s->ts;
			r->stop_line = s->line;
		}
		if (ri == nregs) break;
		struct region *r = &regs[ri];
		r->ri = run_index(r->run, r->start_line, "RegionStart");
		int64_t k = strmap_find(&reg_map, &r->id, sizeof r->id);
		if (reg_count[k] > 1) {
			uint64_t key[2] = { r->run, r->id };
			bool added;
			uint32_t o = strmap_intern(&open_map, key, sizeof key, &added);
			if (added) {
				grow_array((void **)&open, &opencap, o + 1, sizeof *open);
				memset(&open[o], 0, sizeof open[o]);
				nopen = o + 1;
			}
			*VEC_PUSH(open[o].v, open[o].n, open[o].cap) = ri;
		}
	}
	for (uint32_t i = 0; i < nopen; i++) free(open[i].v);
	free(open);
	strmap_free(&open_map);
	for (uint32_t i = 0; i < nregs; i++) {
		struct region *r = &regs[i];
		if (!r->stopped) {
			problem(r->start_line, "region %s (%s) never stops; left out", hexid(r->id), shown(str_get(r->label)));
			continue;
		}
		if (r->stop < r->start)
			fail(r->stop_line, "region %s stops (%lld) before it starts (%lld)", hexid(r->id),
			     (long long)r->stop, (long long)r->start);
	}
}

/* The section a reference (id, seq) means: the closest preceding
 * SectionInfo with that id, else the first following one. */
static strmap sec_map;           /* section id -> list index */
static struct ostack *sec_lists;
static uint32_t nsec_lists, sec_list_cap;

static int64_t section_ref(uint64_t id, uint64_t at)
{
	int64_t k = strmap_find(&sec_map, &id, sizeof id);
	if (k < 0) return -1;
	const struct ostack *l = &sec_lists[k];
	uint32_t best = l->v[0];
	for (uint32_t i = 0; i < l->n && secs[l->v[i]].seq < at; i++) best = l->v[i];
	return best;
}

struct ival { int64_t s, e; uint64_t iid; };
static struct ival *ivals;       /* per section after matching */
static uint32_t nivals, ivalcap;
static uint32_t *ival_sec;

static int cmp_sev(const void *a, const void *b)
{
	const struct sevent *x = a, *y = b;
	if (x->sec != y->sec) return x->sec < y->sec ? -1 : 1;
	if (x->iid != y->iid) return x->iid < y->iid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void resolve_sections(void)
{
	for (uint32_t i = 0; i < nsecs; i++) {
		secs[i].ri = run_index(secs[i].run, secs[i].line, "SectionInfo");
		bool added;
		uint32_t k = strmap_intern(&sec_map, &secs[i].id, sizeof secs[i].id, &added);
		if (added) {
			grow_array((void **)&sec_lists, &sec_list_cap, k + 1, sizeof *sec_lists);
			memset(&sec_lists[k], 0, sizeof sec_lists[k]);
			nsec_lists = k + 1;
		}
		*VEC_PUSH(sec_lists[k].v, sec_lists[k].n, sec_lists[k].cap) = i;
	}
	for (uint32_t i = 0; i < nsevs; i++) {
		int64_t s = section_ref(sevs[i].sid, sevs[i].seq);
		if (s < 0)
			fail(sevs[i].line, "%s for section %s, which no SectionInfo declares",
			     sevs[i].stop ? "SectionStop" : "SectionStart", hexid(sevs[i].sid));
		sevs[i].sec = (uint32_t)s;
	}
	xqsort(sevs, nsevs, sizeof *sevs, cmp_sev);
	/* per (section, interval id): start then stop, in file order */
	ival_sec = NULL;
	uint32_t iscap = 0;
	for (uint32_t i = 0; i < nsevs;) {
		uint32_t j = i;
		while (j < nsevs && sevs[j].sec == sevs[i].sec && sevs[j].iid == sevs[i].iid) j++;
		const struct sevent *st = NULL, *sp = NULL;
		for (uint32_t k = i; k < j; k++) {
			const struct sevent *e = &sevs[k];
			if (e->stop) {
				if (sp) fail(e->line, "a second SectionStop for interval %llu of section %s", (unsigned long long)e->iid, hexid(e->sid));
				sp = e;
			} else {
				if (st) fail(e->line, "a second SectionStart for interval %llu of section %s", (unsigned long long)e->iid, hexid(e->sid));
				st = e;
			}
		}
		if (sp && !st)
			fail(sp->line, "SectionStop for interval %llu of section %s, never started", (unsigned long long)sp->iid, hexid(sp->sid));
		if (st && !sp) {
			problem(st->line, "interval %llu of section %s never stops; left out", (unsigned long long)st->iid, hexid(st->sid));
		} else {
			if (sp->ts < st->ts)
				fail(sp->line, "interval %llu of section %s stops (%lld) before it starts (%lld)", (unsigned long long)sp->iid,
				     hexid(sp->sid), (long long)sp->ts, (long long)st->ts);
			struct ival *v = VEC_PUSH(ivals, nivals, ivalcap);
			v->s = st->ts;
			v->e = sp->ts;
			v->iid = st->iid;
			grow_array((void **)&ival_sec, &iscap, nivals, sizeof *ival_sec);
			ival_sec[nivals - 1] = st->sec;
			struct section *x = &secs[st->sec];
			x->nint++;
			if (!x->has_first || st->ts < x->first) x->first = st->ts;
			if (!x->has_first || sp->ts > x->last) x->last = sp->ts;
			x->has_first = true;
		}
		i = j;
	}
}

/* ---- data records: summaries and metrics ---------------------------------- */

/* Kinds of data, in EXPECTED's names. */
static const char *const kind_names[] = {
	"RunPoint", "RegionPoint", "SectionPoint", "RunAggregate raw", "RunAggregate processed",
	"RegionAggregate raw", "RegionAggregate processed", "RegionAggregate raw with aggregation type",
	"SectionAggregate raw", "SectionAggregate processed", "SectionAggregate raw with aggregation type"
};
enum { K_RUNPOINT, K_RPOINT, K_SPOINT, K_RUNAGG_RAW, K_RUNAGG_PROC, K_RAGG_RAW, K_RAGG_PROC,
       K_RAGG_RAWT, K_SAGG_RAW, K_SAGG_PROC, K_SAGG_RAWT };

struct bucket {
	uint32_t run, kind;
	uint64_t mt;
	int32_t mti;               /* measurement type, -1 undefined */
	uint64_t n, pinf, ninf, nan;
	__int128 isum;
	int64_t imin, imax;
	double dsum, dcomp, dmin, dmax;
	uint32_t *strs, nstrs, strcap; /* distinct values, first seen first */
};
static struct bucket *bks;
static uint32_t nbks, bkcap;
static strmap bk_map, bk_strs;

/* metric values for a region or section stack */
struct mval { uint32_t owner, metric; num v; };
static struct mval *rvals, *svals;
static uint32_t nrvals, rvcap, nsvals, svcap;
static strmap metric_names;      /* "name\x1funit" -> index into mnames */
static uint32_t *metric_idx;     /* builder metric per metric_names index */
static char **mnames, **munits;
static uint32_t nmnames, mncap, mucap;

static uint32_t metric_for(const struct mtype *m)
{
	static const char *const reserved[] = { "wall_ns", "calls", "elapsed_ns", "union_ns", "intervals", "", NULL };
	sstr name = str_get(m->name), unit = str_get(m->units);
	sbuf k = { 0 };
	sbuf_add(&k, name.p, name.n);
	sbuf_addc(&k, 0x1f);
	sbuf_add(&k, unit.p, unit.n);
	bool added;
	uint32_t i = strmap_intern(&metric_names, k.p, k.n, &added);
	sbuf_free(&k);
	if (!added) return i;
	/* a name taken (by ours, or by the same name with another unit) gets
	 * the unit in it: "NAME [UNIT]" */
	char *nm = xmemdup(name.p, name.n);
	bool clash = false;
	for (int r = 0; reserved[r]; r++) clash |= strcmp(nm, reserved[r]) == 0;
	for (uint32_t j = 0; j < nmnames; j++) clash |= strcmp(mnames[j], nm) == 0;
	if (clash) {
		free(nm);
		nm = xmalloc(name.n + unit.n + 4);
		sprintf(nm, "%.*s [%.*s]", (int)name.n, name.p, (int)unit.n, unit.p);
	}
	grow_array((void **)&munits, &mucap, nmnames + 1, sizeof *munits);
	munits[nmnames] = unit.n ? xmemdup(unit.p, unit.n) : NULL;
	*VEC_PUSH(mnames, nmnames, mncap) = nm;
	return i;
}

static struct bucket *bucket(uint32_t run, uint32_t kind, uint64_t mt)
{
	uint64_t key[3] = { run, kind, mt };
	bool added;
	uint32_t i = strmap_intern(&bk_map, key, sizeof key, &added);
	if (added) {
		struct bucket *b = VEC_PUSH(bks, nbks, bkcap);
		memset(b, 0, sizeof *b);
		b->run = run;
		b->kind = kind;
		b->mt = mt;
		uint64_t mk[2] = { runs[run].id, mt };
		int64_t m = strmap_find(&mt_map, mk, sizeof mk);
		b->mti = (int32_t)m;
	}
	return &bks[i];
}

/* One value: checked against its datatype, summarised, and returned as a
 * metric value when it is a finite number (*ok). */
static num value(struct bucket *b, sstr v, uint64_t line, bool *ok)
{
	*ok = false;
	b->n++;
	if (b->mti < 0) return num_i(0);
	const struct mtype *m = &mts[b->mti];
	int64_t iv;
	double d;
	switch (m->dt) {
	case DT_INT32: case DT_INT64: case DT_BOOL:
		if (!parse_int(v, &iv)) {
			double x;
			if (parse_double(v, &x) == -1 || (trim(v).n && parse_double(v, &x) == 0 &&
			    trim(v).p[0] >= '0' && trim(v).p[0] <= '9'))
				fail(line, "value '%s' is not an integer (%s, measurement type %llu)", shown(v),
				     dt_names[m->dt], (unsigned long long)m->id);
			fail(line, "value '%s' is not an integer (%s, measurement type %llu)", shown(v),
			     dt_names[m->dt], (unsigned long long)m->id);
		}
		if (m->dt == DT_INT32 && (iv < INT32_MIN || iv > INT32_MAX))
			fail(line, "value '%s' is out of the int32 range", shown(v));
		if (m->dt == DT_BOOL && iv != 0 && iv != 1)
			fail(line, "bool value '%s' is not 0 or 1", shown(v));
		if (b->n == 1 || iv < b->imin) b->imin = iv;
		if (b->n == 1 || iv > b->imax) b->imax = iv;
		b->isum += iv;
		*ok = m->dt != DT_BOOL;
		return num_i(iv);
	case DT_DOUBLE: {
		int r = parse_double(v, &d);
		if (r == -1) fail(line, "value '%s' has a non-whitespace tail after the number", shown(v));
		if (r == 0) fail(line, "value '%s' is not a number (double, measurement type %llu)", shown(v), (unsigned long long)m->id);
		if (isnan(d)) { b->nan++; return num_i(0); }
		if (isinf(d)) { if (d > 0) b->pinf++; else b->ninf++; return num_i(0); }
		uint64_t nf = b->n - b->nan - b->pinf - b->ninf;
		if (nf == 1 || d < b->dmin) b->dmin = d;
		if (nf == 1 || d > b->dmax) b->dmax = d;
		/* Neumaier's compensated sum */
		double t = b->dsum + d;
		if (fabs(b->dsum) >= fabs(d)) b->dcomp += (b->dsum - t) + d;
		else b->dcomp += (d - t) + b->dsum;
		b->dsum = t;
		*ok = true;
		return num_d(d);
	}
	default: {
		uint64_t bi = (uint64_t)(b - bks);
		sbuf k = { 0 };
		sbuf_add(&k, &bi, sizeof bi);
		sbuf_add(&k, v.p, v.n);
		bool added;
		strmap_intern(&bk_strs, k.p, k.n, &added);
		sbuf_free(&k);
		if (added) *VEC_PUSH(b->strs, b->nstrs, b->strcap) = str_of(v);
		return num_i(0);
	}
	}
}

static void spool_get(void *p, size_t n)
{
	if (fread(p, 1, n, spool) != n) die(EXIT_DATA, "temporary file for data records: read error");
}

static void replay_data(void)
{
	if (!spool) return;
	if (fflush(spool) != 0) die(EXIT_DATA, "temporary file for data records: write error");
	rewind(spool);
	/* region id -> region (first with the id; repeated ids: the closest
	 * preceding start is not known here, so the first one) */
	struct dhead h;
	sbuf val = { 0 };
	while (fread(&h, sizeof h, 1, spool) == 1) {
		uint32_t run, kind;
		int64_t owner = -1; /* region or section index */
		bool region = false;
		switch (h.type) {
		case T_RUNPOINT:
			run = run_index(h.recid, h.line, "RunPoint");
			kind = K_RUNPOINT;
			break;
		case T_RUNAGG:
			run = run_index(h.recid, h.line, "RunAggregate");
			kind = h.has_agg ? K_RUNAGG_PROC : K_RUNAGG_RAW;
			break;
		case T_RPOINT: case T_RAGG: {
			int64_t k = -1;
			if (h.type == T_RAGG && h.has_agg && strmap_find(&run_map, &h.recid, sizeof h.recid) >= 0) {
				run = run_index(h.recid, h.line, "RegionAggregate");
				kind = K_RAGG_PROC;
				break;
			}
			k = strmap_find(&reg_map, &h.recid, sizeof h.recid);
			if (k < 0)
				fail(h.line, "%s for region id %s, which no RegionStart opens", type_names[h.type], hexid(h.recid));
			owner = reg_first[k];
			run = regs[owner].ri;
			kind = h.type == T_RPOINT ? K_RPOINT : h.has_agg ? K_RAGG_RAWT : K_RAGG_RAW;
			region = true;
			break;
		}
		default: { /* section point or aggregate */
			if (h.type == T_SAGG && h.has_agg && strmap_find(&run_map, &h.recid, sizeof h.recid) >= 0) {
				run = run_index(h.recid, h.line, "SectionAggregate");
				kind = K_SAGG_PROC;
				break;
			}
			/* the section closest before the record (by line: seq is
			 * not spooled, lines grow with it) */
			int64_t k = strmap_find(&sec_map, &h.recid, sizeof h.recid);
			if (k < 0)
				fail(h.line, "%s for section %s, which no SectionInfo declares", type_names[h.type], hexid(h.recid));
			const struct ostack *l = &sec_lists[k];
			owner = l->v[0];
			for (uint32_t i = 0; i < l->n && secs[l->v[i]].line < h.line; i++) owner = l->v[i];
			run = secs[owner].ri;
			kind = h.type == T_SPOINT ? K_SPOINT : h.has_agg ? K_SAGG_RAWT : K_SAGG_RAW;
		}
		}
		runs[run].nkind[kind]++;
		for (uint32_t i = 0; i < h.npairs; i++) {
			uint64_t mt;
			uint32_t n;
			spool_get(&mt, sizeof mt);
			spool_get(&n, sizeof n);
			val.n = 0;
			sbuf_reserve(&val, n + 1);
			spool_get(val.p, n);
			val.n = n;
			struct bucket *b = bucket(run, kind, mt);
			if (b->mti < 0 && b->n == 0)
				problem(h.line, "%s: measurement type %llu is not defined for run %s; its values are only counted",
					type_names[h.type], (unsigned long long)mt, hexid(runs[run].id));
			bool ok;
			num v = value(b, (sstr){ val.p, val.n }, h.line, &ok);
			if (!ok || owner < 0) continue;
			/* raw aggregates of a region or section become metrics */
			bool summable = kind == K_RAGG_RAW || kind == K_SAGG_RAW;
			/* with an aggregation type ("total" per section in AFSIM's
			 * writer): only sums add up */
			if (kind == K_SAGG_RAWT || kind == K_RAGG_RAWT) summable = h.agg_sum;
			if (!summable) continue;
			struct mval *x = region ? VEC_PUSH(rvals, nrvals, rvcap) : VEC_PUSH(svals, nsvals, svcap);
			x->owner = (uint32_t)owner;
			x->metric = metric_for(&mts[b->mti]);
			x->v = v;
		}
	}
	if (ferror(spool)) die(EXIT_DATA, "temporary file for data records: read error");
	sbuf_free(&val);
	fclose(spool);
	spool = NULL;
}

/* ---- output -------------------------------------------------------------- */

static builder *B;
static spans *S;
static uint32_t m_wall, m_calls, m_elapsed, m_union, m_intervals;
static uint32_t ev_region, ev_section;

static uint32_t opt_max_depth; /* --max-depth (0: the default) */

static void spans_problem(void *arg, uint64_t pos, const char *msg)
{
	(void)arg;
	fail(pos, "%s", msg);
}

static void json_sstr(sbuf *b, sstr s) { jb_str(b, s.p, s.n); }

/* Tags "a=b;c=d" as [["a","b"],["c","d"]]. */
static void json_tags(sbuf *b, sstr t)
{
	sbuf_addc(b, '[');
	bool first = true;
	size_t i = 0;
	while (i < t.n) {
		size_t j = i;
		while (j < t.n && t.p[j] != ';') j++;
		if (j > i) {
			size_t e = i;
			while (e < j && t.p[e] != '=') e++;
			if (!first) sbuf_addc(b, ',');
			first = false;
			sbuf_addc(b, '[');
			jb_str(b, t.p + i, e - i);
			sbuf_addc(b, ',');
			if (e < j) jb_str(b, t.p + e + 1, j - e - 1);
			else sbuf_adds(b, "null");
			sbuf_addc(b, ']');
		}
		i = j + 1;
	}
	sbuf_addc(b, ']');
}

static int cmp_region(const void *a, const void *b)
{
	const struct region *x = *(struct region *const *)a, *y = *(struct region *const *)b;
	if (x->ri != y->ri) return x->ri < y->ri ? -1 : 1;
	if (x->start != y->start) return x->start < y->start ? -1 : 1;
	int64_t dx = x->stop - x->start, dy = y->stop - y->start;
	if (dx != dy) return dx > dy ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_mval(const void *a, const void *b)
{
	const struct mval *x = a, *y = b;
	return x->owner < y->owner ? -1 : x->owner > y->owner;
}

static void readings(const struct region *r, int64_t t, uint64_t line, int64_t *v)
{
	const struct run *run = &runs[r->ri];
	v[0] = to_ns(run, t, line);
	if (opt_pauses) v[1] = to_ns(run, unpaused(run, t) + paused_before(run, run->t0), line);
}

static uint32_t *rv_first; /* first rvals entry of each region, UINT32_MAX none */

static void add_region_metrics(const struct region *r, const uint32_t *frames, uint32_t nframes)
{
	uint32_t i = rv_first[r - regs];
	if (i == UINT32_MAX) return;
	builder_ctx ctx;
	memset(&ctx, 0, sizeof ctx);
	ctx.event = ev_region;
	ctx.has_pid = ctx.has_tid = true;
	ctx.pid = ctx.tid = runs[r->ri].tid;
	for (; i < nrvals && rvals[i].owner == (uint32_t)(r - regs); i++) {
		uint32_t mi = metric_idx[rvals[i].metric];
		builder_stack(B, &ctx, frames, nframes, &mi, &rvals[i].v, 1);
	}
}

/* With --samples, a region's counters go into its sample's x_weights too, so
 * that a time cut (spaa-window) can rebuild them.  spaa-window rebuilds a
 * stack metric only when every sample of the stack gives it, so the sample
 * of each region gives every counter metric of its call path: its own value
 * (the sum of its raw aggregates of that metric) or 0.  The call paths are
 * found by a first nesting walk over the regions (the same as the second). */
struct pmetric { uint32_t path, metric; };
static uint32_t *reg_path;          /* call path of each region */
static struct pmetric *pmetrics;    /* (path, metric) pairs, sorted, unique */
static uint32_t npmetrics, *pm_first; /* first pair of each path, UINT32_MAX none */

static int cmp_pmetric(const void *a, const void *b)
{
	const struct pmetric *x = a, *y = b;
	if (x->path != y->path) return x->path < y->path ? -1 : 1;
	return x->metric < y->metric ? -1 : x->metric > y->metric;
}

static void region_paths(struct region **order, uint32_t n)
{
	strmap paths;
	strmap_init(&paths);
	struct region **stk = xmalloc((n + 1) * sizeof *stk);
	uint32_t *pid = xmalloc((n + 1) * sizeof *pid);
	uint32_t depth = 0;
	reg_path = xmalloc((nregs + 1) * sizeof *reg_path);
	for (uint32_t i = 0; i < n; i++) {
		struct region *cur = order[i];
		while (depth && (cur->ri != stk[depth - 1]->ri || cur->stop > stk[depth - 1]->stop)) depth--;
		uint32_t key[3] = { depth ? pid[depth - 1] : UINT32_MAX, cur->label, cur->ri };
		uint32_t p = strmap_intern(&paths, (const char *)key, sizeof key, NULL);
		reg_path[cur - regs] = p;
		stk[depth] = cur;
		pid[depth++] = p;
	}
	uint32_t np = paths.count;
	strmap_free(&paths);
	free(stk);
	free(pid);
	pmetrics = xmalloc((nrvals + 1) * sizeof *pmetrics);
	npmetrics = 0;
	for (uint32_t i = 0; i < nrvals; i++) {
		struct region *r = &regs[rvals[i].owner];
		if (!r->stopped) continue;
		pmetrics[npmetrics].path = reg_path[rvals[i].owner];
		pmetrics[npmetrics++].metric = rvals[i].metric;
	}
	xqsort(pmetrics, npmetrics, sizeof *pmetrics, cmp_pmetric);
	uint32_t k = 0;
	for (uint32_t i = 0; i < npmetrics; i++)
		if (!k || cmp_pmetric(&pmetrics[i], &pmetrics[k - 1])) pmetrics[k++] = pmetrics[i];
	npmetrics = k;
	pm_first = xmalloc((np + 1) * sizeof *pm_first);
	for (uint32_t i = 0; i < np; i++) pm_first[i] = UINT32_MAX;
	for (uint32_t i = npmetrics; i-- > 0;) pm_first[pmetrics[i].path] = i;
}

/* The x_weights elements of region r's sample: every counter metric of its
 * call path, with r's own value or 0. */
static void region_weights(sbuf *w, const struct region *r)
{
	w->n = 0;
	uint32_t ri = (uint32_t)(r - regs), i = pm_first[reg_path[ri]];
	if (i == UINT32_MAX) return;
	for (; i < npmetrics && pmetrics[i].path == reg_path[ri]; i++) {
		num v = num_i(0);
		for (uint32_t j = rv_first[ri]; j < nrvals && rvals[j].owner == ri; j++)
			if (rvals[j].metric == pmetrics[i].metric && !num_add(&v, rvals[j].v))
				fail(r->stop_line, "region %s: %s overflows", hexid(r->id), mnames[pmetrics[i].metric]);
		const char *mn = builder_metric_name(B, metric_idx[pmetrics[i].metric]);
		char nb[32];
		if (w->n) sbuf_addc(w, ',');
		sbuf_adds(w, "{\"metric\":");
		jb_str(w, mn, strlen(mn));
		sbuf_adds(w, ",\"value\":");
		sbuf_add(w, nb, num_fmt(nb, v));
		sbuf_addc(w, '}');
	}
}

static void write_regions(void)
{
	struct region **order = xmalloc((nregs + 1) * sizeof *order);
	uint32_t n = 0;
	for (uint32_t i = 0; i < nregs; i++)
		if (regs[i].stopped) order[n++] = &regs[i];
	xqsort(order, n, sizeof *order, cmp_region);
	xqsort(rvals, nrvals, sizeof *rvals, cmp_mval);
	rv_first = xmalloc((nregs + 1) * sizeof *rv_first);
	for (uint32_t i = 0; i < nregs; i++) rv_first[i] = UINT32_MAX;
	for (uint32_t i = nrvals; i-- > 0;) rv_first[rvals[i].owner] = i;
	if (opt_samples) region_paths(order, n);
	struct region **stk = xmalloc((n + 1) * sizeof *stk);
	uint32_t *path = xmalloc((n + 1) * sizeof *path), *leaf = xmalloc((n + 1) * sizeof *leaf);
	uint32_t depth = 0;
	int64_t v[2];
	sbuf x = { 0 }, w = { 0 };
	for (uint32_t i = 0; i <= n; i++) {
		struct region *cur = i < n ? order[i] : NULL;
		while (depth && (!cur || cur->ri != stk[depth - 1]->ri || cur->stop > stk[depth - 1]->stop)) {
			struct region *top = stk[depth - 1];
			if (cur && cur->ri == top->ri && top->stop > cur->start)
				fail(cur->stop_line, "regions %s [%lld,%lld] and %s [%lld,%lld] overlap without nesting (regions of one run must be disjoint or strictly nested)",
				     hexid(top->id), (long long)top->start, (long long)top->stop,
				     hexid(cur->id), (long long)cur->start, (long long)cur->stop);
			readings(top, top->stop, top->stop_line, v);
			if (opt_samples) region_weights(&w, top);
			spans_end_weights(S, runs[top->ri].tid - 1, v, w.p, w.n, top->stop_line);
			depth--;
		}
		if (!cur) break;
		const struct run *run = &runs[cur->ri];
		uint32_t thr = spans_thread(S, run->tid, run->tid);
		sstr label = str_get(cur->label);
		uint32_t fr = spans_frame(S, label.p, label.n, NULL);
		readings(cur, cur->start, cur->start_line, v);
		x.n = 0;
		if (opt_samples) {
			sbuf_adds(&x, "\"x_region_id\":\"");
			sbuf_adds(&x, hexid(cur->id));
			sbuf_addc(&x, '"');
			sstr tags = str_get(cur->tags);
			if (trim(tags).n) {
				sbuf_adds(&x, ",\"x_tags\":");
				json_tags(&x, tags);
			}
		}
		spans_begin(S, thr, fr, v, x.p, x.n, cur->start_line);
		stk[depth] = cur;
		path[depth++] = fr;
		for (uint32_t j = 0; j < depth; j++) leaf[j] = path[depth - 1 - j];
		add_region_metrics(cur, leaf, depth);
	}
	sbuf_free(&x);
	sbuf_free(&w);
	free(reg_path);
	free(pmetrics);
	free(pm_first);
	reg_path = pm_first = NULL;
	pmetrics = NULL;
	free(order);
	free(stk);
	free(path);
	free(leaf);
	free(rv_first);
}

/* Length of the union of iv[0..n) (sorted in place), with or without pauses. */
static int cmp_ival(const void *a, const void *b)
{
	const struct ival *x = a, *y = b;
	return x->s < y->s ? -1 : x->s > y->s ? 1 : (x->e < y->e ? -1 : x->e > y->e);
}

static int64_t span_len(const struct run *r, int64_t s, int64_t e)
{
	return opt_pauses ? unpaused(r, e) - unpaused(r, s) : e - s;
}

static num mul_factor(const struct run *r, int64_t v, uint64_t line)
{
	int64_t x;
	if (__builtin_mul_overflow(v, r->factor, &x)) fail(line, "section total does not fit in 64-bit nanoseconds");
	return num_i(x);
}

static void write_sections(sbuf *src_secs)
{
	/* intervals grouped by section */
	uint32_t *cnt = xcalloc(nsecs + 1, sizeof *cnt);
	for (uint32_t i = 0; i < nivals; i++) cnt[ival_sec[i] + 1]++;
	for (uint32_t i = 0; i < nsecs; i++) cnt[i + 1] += cnt[i];
	struct ival *by = xmalloc((nivals + 1) * sizeof *by);
	uint32_t *pos = xmalloc((nsecs + 1) * sizeof *pos);
	memcpy(pos, cnt, (nsecs + 1) * sizeof *pos);
	for (uint32_t i = 0; i < nivals; i++) by[pos[ival_sec[i]]++] = ivals[i];
	xqsort(svals, nsvals, sizeof *svals, cmp_mval);
	uint32_t sv = 0;
	sbuf ctx_x = { 0 }, smp = { 0 };
	for (uint32_t si = 0; si < nsecs; si++) {
		struct section *x = &secs[si];
		const struct run *r = &runs[x->ri];
		struct ival *iv = by + cnt[si];
		uint32_t n = cnt[si + 1] - cnt[si];
		xqsort(iv, n, sizeof *iv, cmp_ival);
		int64_t sum = 0, uni = 0, uni_np = 0, cs = 0, ce = 0;
		bool open = false;
		for (uint32_t i = 0; i < n; i++) {
			if (__builtin_add_overflow(sum, span_len(r, iv[i].s, iv[i].e), &sum))
				fail(x->line, "section %s: total overflows", hexid(x->id));
			if (open && iv[i].s <= ce) {
				if (iv[i].e > ce) ce = iv[i].e;
				continue;
			}
			if (open) { uni += ce - cs; uni_np += unpaused(r, ce) - unpaused(r, cs); }
			cs = iv[i].s;
			ce = iv[i].e;
			open = true;
		}
		if (open) { uni += ce - cs; uni_np += unpaused(r, ce) - unpaused(r, cs); }
		sstr label = str_get(x->label), tags = str_get(x->tags);
		builder_ctx c;
		memset(&c, 0, sizeof c);
		c.event = ev_section;
		c.has_pid = c.has_tid = true;
		c.pid = c.tid = r->tid;
		ctx_x.n = 0;
		sbuf_adds(&ctx_x, "\"x_section_id\":\"");
		sbuf_adds(&ctx_x, hexid(x->id));
		sbuf_addc(&ctx_x, '"');
		if (trim(tags).n) {
			sbuf_adds(&ctx_x, ",\"x_tags\":");
			json_tags(&ctx_x, tags);
		}
		c.extra_json = (sstr){ ctx_x.p, ctx_x.n };
		uint32_t fr = spans_frame(S, label.p, label.n, NULL);
		uint32_t midx[3] = { m_wall, m_union, m_intervals };
		num vals[3] = { mul_factor(r, sum, x->line), mul_factor(r, opt_pauses ? uni_np : uni, x->line), num_u(x->nint) };
		uint32_t stk = builder_stack(B, &c, &fr, 1, midx, vals, 3);
		/* one sample per interval (start order): its wall_ns and
		 * intervals = 1; union_ns and the section counters belong to
		 * no interval, so no sample gives them */
		for (uint32_t i = 0; opt_samples && i < n; i++) {
			num len = mul_factor(r, span_len(r, iv[i].s, iv[i].e), x->line);
			char nb[32];
			smp.n = 0;
			sbuf_adds(&smp, "\"x_dur_ns\":");
			sbuf_add(&smp, nb, fmt_i64(nb, to_ns(r, iv[i].e, x->line) - to_ns(r, iv[i].s, x->line)));
			sbuf_adds(&smp, ",\"x_weights\":[{\"metric\":\"wall_ns\",\"value\":");
			sbuf_add(&smp, nb, num_fmt(nb, len));
			sbuf_adds(&smp, "},{\"metric\":\"intervals\",\"value\":1}],\"x_section_id\":\"");
			sbuf_adds(&smp, hexid(x->id));
			sbuf_adds(&smp, "\",\"x_interval_id\":");
			sbuf_add(&smp, nb, fmt_u64(nb, iv[i].iid));
			sbuf_addc(&smp, 0);
			builder_sample(B, stk, true, (double)to_ns(r, iv[i].s, x->line) / 1e9, smp.p);
		}
		while (sv < nsvals && svals[sv].owner < si) sv++;
		for (; sv < nsvals && svals[sv].owner == si; sv++) {
			uint32_t mi = metric_idx[svals[sv].metric];
			builder_stack(B, &c, &fr, 1, &mi, &svals[sv].v, 1);
		}
		/* details for the header */
		sbuf *s = &src_secs[x->ri];
		if (s->n) sbuf_addc(s, ',');
		sbuf_printf(s, "{\"id\":\"%llu\",\"id_hex\":\"%s\",\"line\":%llu,\"label\":", (unsigned long long)x->id,
			    hexid(x->id), (unsigned long long)x->line);
		json_sstr(s, label);
		sbuf_adds(s, ",\"tags\":");
		json_tags(s, tags);
		sbuf_printf(s, ",\"intervals\":%llu,\"sum\":%lld,\"union\":%lld,\"union_minus_pauses\":%lld",
			    (unsigned long long)x->nint, (long long)sum, (long long)uni, (long long)uni_np);
		if (x->has_first) sbuf_printf(s, ",\"first_start\":%lld,\"last_stop\":%lld", (long long)x->first, (long long)x->last);
		sbuf_addc(s, '}');
	}
	sbuf_free(&ctx_x);
	sbuf_free(&smp);
	free(cnt);
	free(by);
	free(pos);
}

static void json_i128(sbuf *b, __int128 v)
{
	char buf[48];
	int i = 47;
	buf[i] = 0;
	bool neg = v < 0;
	unsigned __int128 u = neg ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
	do { buf[--i] = (char)('0' + (int)(u % 10)); u /= 10; } while (u);
	if (neg) buf[--i] = '-';
	sbuf_adds(b, buf + i);
}

static void json_double(sbuf *b, double d)
{
	char buf[40];
	size_t n = num_fmt(buf, num_d(d));
	sbuf_add(b, buf, n);
}

static int cmp_bucket(const void *a, const void *b)
{
	const struct bucket *x = a, *y = b;
	if (x->run != y->run) return x->run < y->run ? -1 : 1;
	if (x->mt != y->mt) return x->mt < y->mt ? -1 : 1;
	return strcmp(kind_names[x->kind], kind_names[y->kind]);
}

static int cmp_mt(const void *a, const void *b)
{
	const struct mtype *const *x = a, *const *y = b;
	return (*x)->id < (*y)->id ? -1 : (*x)->id > (*y)->id;
}

/* header.source.runs and the file summary */
static void write_source(sbuf *src_secs)
{
	sbuf j = { 0 };
	/* region label + tags pairs per run, in order of first appearance */
	strmap lt;
	memset(&lt, 0, sizeof lt);
	uint64_t *ltcount = NULL;
	uint32_t ltcap = 0;
	sbuf *rtags = xcalloc(nruns + 1, sizeof *rtags);
	uint32_t **ltlist = xcalloc(nruns + 1, sizeof *ltlist);
	uint32_t *ltn = xcalloc(nruns + 1, sizeof *ltn), *ltc = xcalloc(nruns + 1, sizeof *ltc);
	struct { uint32_t label, tags; } *ltk = NULL;
	uint32_t ltkcap = 0;
	for (uint32_t i = 0; i < nregs; i++) {
		const struct region *r = &regs[i];
		if (!trim(str_get(r->tags)).n) continue;
		uint32_t key[3] = { r->ri, r->label, r->tags };
		bool added;
		uint32_t k = strmap_intern(&lt, key, sizeof key, &added);
		if (added) {
			grow_array((void **)&ltcount, &ltcap, k + 1, sizeof *ltcount);
			ltcount[k] = 0;
			grow_array((void **)&ltk, &ltkcap, k + 1, sizeof *ltk);
			ltk[k].label = r->label;
			ltk[k].tags = r->tags;
			*VEC_PUSH(ltlist[r->ri], ltn[r->ri], ltc[r->ri]) = k;
		}
		ltcount[k]++;
	}
	xqsort(bks, nbks, sizeof *bks, cmp_bucket);
	uint32_t bi = 0;
	const struct mtype **mtl = xmalloc((nmts + 1) * sizeof *mtl);
	sbuf_addc(&j, '[');
	for (uint32_t ri = 0; ri < nruns; ri++) {
		const struct run *r = &runs[ri];
		if (ri) sbuf_addc(&j, ',');
		sbuf_printf(&j, "{\"run\":%u,\"run_id\":\"%llu\",\"run_id_hex\":\"%s\",\"line\":%llu,\"start_timestamp\":%lld,\"units\":",
			    r->tid, (unsigned long long)r->id, hexid(r->id), (unsigned long long)r->line, (long long)r->t0);
		json_sstr(&j, str_get(r->units));
		static const char *const un[] = { "s", "ms", "us", "ns" };
		sbuf_printf(&j, ",\"unit\":\"%s\",\"wallclock\":", un[r->unit]);
		json_sstr(&j, str_get(r->wallclock));
		sbuf_adds(&j, ",\"format_version\":");
		json_sstr(&j, str_get(r->version));
		sbuf_adds(&j, ",\"application\":");
		json_sstr(&j, str_get(r->app));
		sbuf_adds(&j, ",\"application_version\":");
		json_sstr(&j, str_get(r->appver));
		sbuf_adds(&j, ",\"tags\":");
		json_tags(&j, str_get(r->tags));
		/* measurement types by id */
		uint32_t nm = 0;
		for (uint32_t i = 0; i < nmts; i++)
			if (mts[i].run == r->id) mtl[nm++] = &mts[i];
		xqsort(mtl, nm, sizeof *mtl, cmp_mt);
		sbuf_adds(&j, ",\"measurement_types\":[");
		for (uint32_t i = 0; i < nm; i++) {
			const struct mtype *m = mtl[i];
			if (i) sbuf_addc(&j, ',');
			sbuf_printf(&j, "{\"id\":\"%llu\",\"name\":", (unsigned long long)m->id);
			json_sstr(&j, str_get(m->name));
			sbuf_printf(&j, ",\"datatype\":\"%s\",\"units\":", dt_names[m->dt]);
			json_sstr(&j, str_get(m->units));
			sbuf_adds(&j, ",\"summary\":");
			json_sstr(&j, str_get(m->summary));
			sbuf_adds(&j, ",\"description\":");
			json_sstr(&j, str_get(m->desc));
			sbuf_addc(&j, '}');
		}
		int64_t pu = 0;
		for (uint32_t i = 0; i < r->npauses; i++) pu += r->pauses[i].e - r->pauses[i].s;
		uint64_t praw = 0;
		for (uint32_t i = 0; i < nrstops; i++)
			if (rstops[i].seq >> 63 && rstops[i].id == r->id) praw++;
		sbuf_printf(&j, "],\"pauses\":{\"count\":%llu,\"union\":%lld,\"list\":[", (unsigned long long)praw, (long long)pu);
		for (uint32_t i = 0; i < r->npauses; i++)
			sbuf_printf(&j, "%s[%lld,%lld]", i ? "," : "", (long long)r->pauses[i].s, (long long)r->pauses[i].e);
		sbuf_adds(&j, "]},\"sections\":[");
		sbuf_add(&j, src_secs[ri].p, src_secs[ri].n);
		sbuf_adds(&j, "],\"region_tags\":[");
		for (uint32_t i = 0; i < ltn[ri]; i++) {
			uint32_t k = ltlist[ri][i];
			if (i) sbuf_addc(&j, ',');
			sbuf_adds(&j, "{\"label\":");
			json_sstr(&j, str_get(ltk[k].label));
			sbuf_adds(&j, ",\"tags\":");
			json_tags(&j, str_get(ltk[k].tags));
			sbuf_printf(&j, ",\"regions\":%llu}", (unsigned long long)ltcount[k]);
		}
		sbuf_adds(&j, "],\"data_records\":{");
		bool firstk = true;
		for (uint32_t kk = 0; kk < 11; kk++) {
			if (!r->nkind[kk]) continue;
			sbuf_printf(&j, "%s\"%s\":%llu", firstk ? "" : ",", kind_names[kk], (unsigned long long)r->nkind[kk]);
			firstk = false;
		}
		sbuf_adds(&j, "},\"data\":[");
		bool first = true;
		for (; bi < nbks && bks[bi].run == ri; bi++) {
			const struct bucket *b = &bks[bi];
			if (!first) sbuf_addc(&j, ',');
			first = false;
			sbuf_printf(&j, "{\"type\":\"%llu\",\"kind\":\"%s\",\"n\":%llu", (unsigned long long)b->mt,
				    kind_names[b->kind], (unsigned long long)b->n);
			int dt = b->mti >= 0 ? mts[b->mti].dt : -1;
			if (dt == DT_STRING || dt == DT_ENUM) {
				sbuf_adds(&j, ",\"distinct\":[");
				for (uint32_t i = 0; i < b->nstrs; i++) {
					if (i) sbuf_addc(&j, ',');
					json_sstr(&j, str_get(b->strs[i]));
				}
				sbuf_addc(&j, ']');
			} else if (dt == DT_DOUBLE) {
				sbuf_printf(&j, ",\"n_pos_inf\":%llu,\"n_neg_inf\":%llu,\"n_nan\":%llu", (unsigned long long)b->pinf,
					    (unsigned long long)b->ninf, (unsigned long long)b->nan);
				if (b->n > b->pinf + b->ninf + b->nan) {
					sbuf_adds(&j, ",\"sum\":");
					json_double(&j, b->dsum + b->dcomp);
					sbuf_adds(&j, ",\"min\":");
					json_double(&j, b->dmin);
					sbuf_adds(&j, ",\"max\":");
					json_double(&j, b->dmax);
				}
			} else if (dt >= 0) {
				sbuf_adds(&j, ",\"sum\":");
				json_i128(&j, b->isum);
				sbuf_printf(&j, ",\"min\":%lld,\"max\":%lld", (long long)b->imin, (long long)b->imax);
			}
			sbuf_addc(&j, '}');
		}
		sbuf_adds(&j, "]}");
	}
	sbuf_addc(&j, ']');
	sbuf_addc(&j, 0);
	builder_source_json(B, "runs", j.p);
	/* the file */
	j.n = 0;
	sbuf_printf(&j, "{\"line_ending\":\"%s\",\"version_header_lines\":%llu,\"comment_lines\":%llu,\"blank_lines\":%llu,"
		    "\"records\":%llu,\"records_by_type\":{", crlf ? "CRLF" : "LF", (unsigned long long)nheaders,
		    (unsigned long long)ncomments, (unsigned long long)nblanks, (unsigned long long)nrecords);
	bool first = true;
	for (int t = 1; t < T_N; t++) {
		if (!by_type[t]) continue;
		sbuf_printf(&j, "%s\"%s\":%llu", first ? "" : ",", type_names[t], (unsigned long long)by_type[t]);
		first = false;
	}
	sbuf_printf(&j, "},\"record_types_written_as_numbers\":%llu,\"ignored_unknown_type_records\":%llu,"
		    "\"ignored_extra_fields_records\":%llu,\"region_stop_matching\":\"%s\","
		    "\"processed_aggregates_with_blank_record_id\":{",
		    (unsigned long long)nnumeric, (unsigned long long)nunknown, (unsigned long long)nextra,
		    repeated_ids ? "file order, last opened first (region ids repeat)" : "by region id");
	first = true;
	for (int t = 1; t < T_N; t++) {
		if (!blank_processed[t]) continue;
		sbuf_printf(&j, "%s\"%s\":%llu", first ? "" : ",", type_names[t], (unsigned long long)blank_processed[t]);
		first = false;
	}
	sbuf_printf(&j, "},\"runs\":%u}", nruns);
	sbuf_addc(&j, 0);
	builder_source_json(B, "file", j.p);
	builder_source_str(B, "format", "AFPerf v1", 9);
	sbuf_free(&j);
	for (uint32_t i = 0; i < nruns; i++) { sbuf_free(&rtags[i]); free(ltlist[i]); }
	free(rtags);
	free(ltlist);
	free(ltn);
	free(ltc);
	free(ltk);
	free(ltcount);
	free(mtl);
	strmap_free(&lt);
}

static void convert(const char *outpath, bool zstd)
{
	read_all();
	if (nunknown && !later_minor) fail(first_unknown_line, "%s", first_unknown_msg);
	if (nextra && !later_minor) fail(first_extra_line, "%s", first_extra_msg);
	resolve_pauses();
	for (uint32_t i = 0; i < nmts; i++) (void)run_index(mts[i].run, mts[i].line, "MeasurementType");
	resolve_regions();
	resolve_sections();
	replay_data();

	B = builder_new();
	builder_source_tool(B, "afperf");
	ev_region = builder_event(B, "region", "probe", "event", "wall_ns", NULL);
	ev_section = builder_event(B, "section", "probe", "event", "wall_ns", NULL);
	m_wall = builder_metric(B, "wall_ns", "nanoseconds");
	m_calls = builder_metric(B, "calls", "count");
	if (opt_pauses) m_elapsed = builder_metric(B, "elapsed_ns", "nanoseconds");
	m_union = builder_metric(B, "union_ns", "nanoseconds");
	m_intervals = builder_metric(B, "intervals", "count");
	metric_idx = xmalloc((nmnames + 1) * sizeof *metric_idx);
	for (uint32_t i = 0; i < nmnames; i++) metric_idx[i] = builder_metric(B, mnames[i], munits[i]);

	spans_conf c;
	memset(&c, 0, sizeof c);
	c.b = B;
	c.event = ev_region;
	c.nmetrics = opt_pauses ? 2 : 1;
	c.midx[0] = opt_pauses ? m_elapsed : m_wall;
	c.midx[1] = m_wall;
	c.calls_midx = (int32_t)m_calls;
	c.mode = SPANS_STACK;
	c.samples = opt_samples;
	c.report = spans_problem;
	c.fatal = spans_problem; /* fail() does not return */
	c.max_depth = opt_max_depth;
	S = spans_new(&c);
	for (uint32_t i = 0; i < nruns; i++) {
		uint32_t t = spans_thread(S, runs[i].tid, runs[i].tid);
		sstr app = str_get(runs[i].app);
		spans_thread_name(S, t, app.p, app.n);
	}
	write_regions();
	sbuf *src_secs = xcalloc(nruns + 1, sizeof *src_secs);
	write_sections(src_secs);
	spans_finish(S);
	write_source(src_secs);
	for (uint32_t i = 0; i < nruns; i++) sbuf_free(&src_secs[i]);
	free(src_secs);

	reader_finish(B, outpath, zstd);
	spans_free(S);
}

/* its options, for getopt_long and the registry (readers/registry.h) */
const struct option afperf_longopts[] = {
	CLI_OUT_LONGOPTS,
	{ "samples", no_argument, 0, 's' },
	{ "exclude-pauses", no_argument, 0, 'p' },
	{ "max-depth", required_argument, 0, 'D' },
	{ "strict", no_argument, 0, 'S' },
	CLI_STD_LONGOPTS,
	{ 0, 0, 0, 0 }
};
const char afperf_shortopts[] = "o:zshV";

/* the converter afperf2spaa: argv as it gets it (argv[0] its name); the
 * exit status (readers/readers.h) */
int afperf_read(int argc, char **argv)
{
	const char *outpath = NULL;
	bool zstd = false;
	int c;
	while ((c = getopt_long(argc, argv, afperf_shortopts, afperf_longopts, NULL)) != -1) {
		switch (c) {
		CLI_OUT_CASES(outpath, zstd);
		case 's': opt_samples = true; break;
		case 'p': opt_pauses = true; break;
		case 'D': opt_max_depth = spans_max_depth_arg(optarg); break;
		case 'S': strict = true; break;
		CLI_STD_CASES(help_text);
		}
	}
	const char *path = optind < argc ? argv[optind] : "-";
	several_inputs(argv + optind, argc - optind, &path, &outpath, &zstd);
	IN = input_open(path);
	sniff_refuse_other(IN, "afperf2spaa", "an AFPerf file");
	fname = input_name(IN);
	convert(outpath, zstd);
	input_close(IN);
	return EXIT_OK;
}
