/* heaptrack2spaa - heaptrack's data files (as heaptrack writes them after
 * interpreting the trace: heaptrack.APP.PID.zst or .gz) to SPAA.
 *
 * The story: one pass over the lines.  Strings ('s'), instruction pointers
 * ('i': address, module, then function, file and line of the innermost
 * function and of each function it is inlined into), trace tree nodes ('t':
 * an instruction pointer and the parent node) and allocation infos ('a': a
 * size and a trace) are kept; the operations ('+' and '-' of an allocation
 * info) are replayed as they come, with the rules heaptrack_print applies:
 * the bytes live at the end are leaked, the peak is the moment the live
 * total first reaches its maximum, and a deallocation right after an
 * allocation of the same info is a temporary allocation (heaptrack's rule
 * to the letter: "the last allocation" is info 0 at the start and after
 * every deallocation, so a deallocation of info 0 that follows another
 * deallocation counts too).  Each allocation info becomes a stack of the
 * event "malloc" (identical stacks summed), walked from its trace node up
 * to the root: at most --max-frames frames, since a file of deep traces
 * with an allocation at every depth would otherwise make output quadratic
 * in its size (heaptrack itself records at most 64 calls per trace). */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "readers.h"
#include "build.h"
#include "reader.h"
#include "num.h"
#include "cli.h"
#include "several.h"
#include "sniff.h"
#include "input.h"
#include "num.h"
#include "output.h"
#include "spaa.h"
#include "util.h"

static const char help[] =
"Usage: heaptrack2spaa [OPTION]... [FILE]...\n"
"Convert a heaptrack data file (heaptrack.APP.PID.zst or .gz, as heaptrack\n"
"writes it) to SPAA.  With no FILE, or when FILE is -, read standard input.\n"
"\n"
"Each allocation site (a call stack and a size) becomes a stack of the event\n"
"malloc weighted by alloc_count, alloc_bytes, free_count, free_bytes,\n"
"live_count and live_bytes (what was never freed: heaptrack's leaked),\n"
"peak_bytes (what it held when the heap was largest) and temporary_count\n"
"(allocations freed right away), the figures heaptrack_print reports.\n"
"\n"
"  -m, --metric=NAME    the primary metric (default: alloc_bytes)\n"
"      --max-frames=N   keep the N innermost frames of a longer stack, under a\n"
"                       frame [truncated] (default 512; heaptrack records 64\n"
"                       calls)\n"
CLI_HELP_TAIL;

enum { M_ALLOC_COUNT, M_ALLOC_BYTES, M_FREE_COUNT, M_FREE_BYTES, M_LIVE_COUNT, M_LIVE_BYTES,
       M_PEAK_BYTES, M_TEMP_COUNT, NMETRICS };
static const char *const metric_names[NMETRICS] = {
	"alloc_count", "alloc_bytes", "free_count", "free_bytes", "live_count", "live_bytes",
	"peak_bytes", "temporary_count"
};

struct ip {
	uint64_t addr, module;        /* module: string index (1-based) */
	uint32_t frames, nframes;     /* (function, file, line) triples in H.triples */
	uint32_t built, nbuilt;       /* builder frames in H.fpool, nbuilt 0: not yet */
};
struct triple { uint64_t function, file, line; };
struct trace { uint64_t ip, parent; };
struct info {
	uint64_t size, trace;
	uint64_t allocs, frees, temps, live;  /* live: allocations not freed (count) */
	uint64_t peak_live;            /* live count at the peak epoch ... */
	uint64_t peak_epoch;           /* ... when stamped with it */
};

static struct {
	const char *fname;
	uint64_t lineno;
	unsigned file_version;
	bool have_version;
	/* strings, 1-based: str[i - 1] */
	char **str;
	uint32_t nstr, strcap;
	struct ip *ips;
	uint32_t nips, ipcap;
	struct triple *triples;
	uint32_t ntriples, tcap;
	struct trace *traces;
	uint32_t ntraces, trcap;
	struct info *infos;
	uint32_t ninfos, infocap;
	/* the replay */
	uint64_t live_bytes, peak_bytes, epoch, peak_epoch;
	uint64_t last_alloc;           /* info of the last '+', 0 after a '-' (heaptrack's rule) */
	uint64_t warned_free;
	/* output */
	builder *b;
	uint32_t *fpool;
	uint32_t nfpool, fpcap;
	uint32_t *frames;
	uint32_t nframes, frcap;
	char *command;
	bool in_command;               /* the last record was 'X' */
	/* the counts heaptrack writes last ("# strings: N", "# ips: N"):
	 * 0 not yet, 1 after the strings line, 2 after both */
	int trailer;
	uint32_t max_frames;           /* --max-frames */
	uint64_t ncut;                 /* stacks cut there */
} H = { .max_frames = 512 };

static noreturn void bad(const char *what)
{
	die_at(H.fname, H.lineno, "%s", what);
}

/* ---- reading the lines ------------------------------------------------------------ */

/* the next hex field of *p (space separated) */
static bool hex_field(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	while (s < end && *s == ' ') s++;
	uint64_t x = 0;
	const char *d = s;
	for (; s < end && *s != ' '; s++) {
		int c = *s >= '0' && *s <= '9' ? *s - '0' : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10 : -1;
		if (c < 0 || x >> 60) return false;
		x = x << 4 | (uint64_t)c;
	}
	if (s == d) return false;
	*p = s;
	*v = x;
	return true;
}

static uint64_t need_hex(const char **p, const char *end, const char *what)
{
	uint64_t v;
	if (!hex_field(p, end, &v)) {
		char m[96];
		snprintf(m, sizeof m, "%s: not a hexadecimal number", what);
		bad(m);
	}
	return v;
}

static void at_end(const char *p, const char *end)
{
	while (p < end && *p == ' ') p++;
	if (p != end) bad("unexpected text at the end of the line");
}

static void check_index(uint64_t i, uint64_t n, const char *what)
{
	if (i >= n) {
		char m[128];
		snprintf(m, sizeof m, "%s %" PRIu64 " is not defined (yet)", what, i);
		bad(m);
	}
}

static void take_string(const char *p, const char *end)
{
	/* file version 3 and later: "s LEN TEXT"; before: "s TEXT" */
	size_t n = (size_t)(end - p);
	if (H.file_version >= 3) {
		uint64_t len = need_hex(&p, end, "string length");
		if (p < end && *p == ' ') p++;
		n = (size_t)(end - p);
		if (len != n) bad("string length does not match the text");
	}
	char *s = xmalloc(n + 1);
	memcpy(s, p, n);
	s[n] = 0;
	*VEC_PUSH(H.str, H.nstr, H.strcap) = s;
}

static void take_ip(const char *p, const char *end)
{
	struct ip ip = { 0, 0, H.ntriples, 0, 0, 0 };
	ip.addr = need_hex(&p, end, "instruction pointer");
	ip.module = need_hex(&p, end, "module");
	check_index(ip.module, (uint64_t)H.nstr + 1, "module string");
	/* [function [file line]] then (function file line) per inlining
	 * function: a frame with no debug information has its function only */
	uint64_t f;
	while (hex_field(&p, end, &f)) {
		struct triple t = { f, 0, 0 };
		if (hex_field(&p, end, &t.file)) t.line = need_hex(&p, end, "line");
		else if (ip.nframes) bad("an inlining frame without a file and line");
		check_index(t.function, (uint64_t)H.nstr + 1, "function string");
		check_index(t.file, (uint64_t)H.nstr + 1, "file string");
		*VEC_PUSH(H.triples, H.ntriples, H.tcap) = t;
		ip.nframes++;
	}
	at_end(p, end);
	*VEC_PUSH(H.ips, H.nips, H.ipcap) = ip;
}

static void take_trace(const char *p, const char *end)
{
	struct trace t;
	t.ip = need_hex(&p, end, "trace instruction pointer");
	t.parent = need_hex(&p, end, "trace parent");
	at_end(p, end);
	if (t.ip == 0 || t.ip > H.nips) bad("a trace node refers to an instruction pointer not defined");
	if (t.parent > H.ntraces) bad("a trace node refers to a parent not defined");
	*VEC_PUSH(H.traces, H.ntraces, H.trcap) = t;
}

static void take_info(const char *p, const char *end)
{
	struct info a;
	memset(&a, 0, sizeof a);
	a.size = need_hex(&p, end, "allocation size");
	a.trace = need_hex(&p, end, "allocation trace");
	at_end(p, end);
	if (a.trace > H.ntraces) bad("an allocation refers to a trace not defined");
	*VEC_PUSH(H.infos, H.ninfos, H.infocap) = a;
}

/* '+' and '-': the live count of the info, the live total, the peak */
static void take_op(bool alloc, const char *p, const char *end)
{
	uint64_t i = need_hex(&p, end, "allocation index");
	at_end(p, end);
	check_index(i, H.ninfos, "allocation");
	struct info *a = &H.infos[i];
	H.epoch++;
	/* the info's count at the last peak, kept before it changes */
	if (a->peak_epoch != H.peak_epoch) {
		a->peak_live = a->live;
		a->peak_epoch = H.peak_epoch;
	}
	if (alloc) {
		a->allocs++;
		a->live++;
		if (ckd_add(&H.live_bytes, H.live_bytes, a->size)) bad("the live bytes overflow 64 bits");
		H.last_alloc = i;
		if (H.live_bytes > H.peak_bytes) {
			/* a new peak: every info's count now is its count at it */
			H.peak_bytes = H.live_bytes;
			H.peak_epoch = H.epoch;
		}
		return;
	}
	if (a->live == 0) {
		/* heaptrack attached to a running process sees frees of memory
		 * allocated before: it does not count them, nor does this */
		if (!H.warned_free++)
			warn_at(H.fname, H.lineno, "a deallocation with no live allocation of its kind: ignored "
				"(memory allocated before heaptrack attached?)");
		H.last_alloc = 0;
		return;
	}
	a->live--;
	a->frees++;
	H.live_bytes -= a->size; /* a->size was added when a->live was counted up */
	if (H.last_alloc == i) a->temps++;
	H.last_alloc = 0;
}

static void read_data(const char *path)
{
	input *in = input_open(path);
	sniff_refuse_other(in, "heaptrack2spaa", "a heaptrack data file");
	H.fname = path;
	char *line;
	size_t n;
	uint64_t nlines = 0;
	while ((line = input_line(in, &n)) != NULL) {
		H.lineno = input_lineno(in);
		while (n && line[n - 1] == '\r') n--;
		if (n == 0) continue;
		nlines++;
		const char *p = line + 1, *end = line + n;
		bool record = strchr("vXIsita+-cRA#m", line[0]) && (n == 1 || *p == ' ');
		if (!record && (H.in_command || n == 1 || *p != ' ')) {
			/* the command line ('X') is written as it was, newlines
			 * included: its next lines belong to it */
			if (H.in_command) {
				size_t k = strlen(H.command);
				H.command = xrealloc(H.command, k + n + 2);
				H.command[k] = '\n';
				memcpy(H.command + k + 1, line, n);
				H.command[k + 1 + n] = 0;
				continue;
			}
			bad("not a heaptrack record (a letter and a space)");
		}
		H.in_command = false;
		if (H.trailer == 2 && line[0] != '#') bad("a record after the '# ips:' line heaptrack writes last");
		if (!H.have_version && line[0] != 'v' && line[0] != '#')
			bad("no 'v' version line first: not a heaptrack data file (or one written before "
			    "heaptrack 1.0; run heaptrack --analyze on the raw trace)");
		switch (line[0]) {
		case 'v': {
			uint64_t heaptrack_version = need_hex(&p, end, "heaptrack version");
			uint64_t fv = 0;
			hex_field(&p, end, &fv);
			(void)heaptrack_version;
			if (fv < 2 || fv > 3) {
				char m[160];
				snprintf(m, sizeof m, "heaptrack file version %" PRIu64 ": versions 2 and 3 are read "
					 "(heaptrack 1.1 and later)", fv);
				bad(m);
			}
			H.file_version = (unsigned)fv;
			H.have_version = true;
			break;
		}
		case 's': take_string(p + (p < end), end); break;
		case 'i': take_ip(p, end); break;
		case 't': take_trace(p, end); break;
		case 'a': take_info(p, end); break;
		case '+': take_op(true, p, end); break;
		case '-': take_op(false, p, end); break;
		case 'X':
			if (!H.command) {
				size_t k = (size_t)(end - p) - (p < end);
				H.command = xmalloc(k + 1);
				memcpy(H.command, p + (p < end), k);
				H.command[k] = 0;
				H.in_command = true;
			}
			break;
		case '#': {
			/* the counts of strings and ips, written last: a file
			 * cut short has not got them, or other counts */
			bool strs = n > 11 && !memcmp(line, "# strings: ", 11), ips = n > 7 && !memcmp(line, "# ips: ", 7);
			if (!strs && !ips) break;
			const char *q = line + (strs ? 11 : 7);
			uint64_t v = 0;
			for (; q < end && *q >= '0' && *q <= '9'; q++)
				if (ckd_mul(&v, v, 10) || ckd_add(&v, v, (uint64_t)(*q - '0'))) bad("a count beyond 64 bits");
			if (q != end || q == line + (strs ? 11 : 7)) bad("a '# strings:' or '# ips:' line without its count");
			uint64_t have = strs ? H.nstr : H.nips;
			if (v != have) {
				char m[160];
				snprintf(m, sizeof m, "the file says %" PRIu64 " %s, it has %" PRIu64 ": a file cut short?", v,
					 strs ? "strings" : "ips", have);
				bad(m);
			}
			if (strs ? H.trailer != 0 : H.trailer != 1)
				bad(strs ? "a second '# strings:' line" : "'# ips:' not right after '# strings:'");
			H.trailer++;
			break;
		}
		default:
			/* timestamps (c), RSS (R), page size (I), attach (A),
			 * and records added later: not weights */
			break;
		}
	}
	input_close(in);
	if (nlines == 0) die_empty_input(path);
	if (H.trailer < 2)
		die_at(path, H.lineno, "no '# %s:' line, which heaptrack writes last: the file is cut short",
		       H.trailer ? "ips" : "strings");
}

/* ---- the frames of a trace ----------------------------------------------------------- */

static const char *str_at(uint64_t i) { return i ? H.str[i - 1] : ""; }

/* The builder frames of instruction pointer k (1-based), leaf first: the
 * innermost function (inlined when others follow), then the functions it
 * is inlined into; or the bare address. */
static void ip_frames(uint64_t k)
{
	struct ip *ip = &H.ips[k - 1];
	if (!ip->nbuilt) {
		const char *mod = str_at(ip->module);
		uint32_t dso = builder_dso(H.b, *mod ? mod : "[unknown]", *mod ? strlen(mod) : 9, false);
		char addr[24];
		size_t an = fmt_hex(addr, ip->addr, 1);
		ip->built = H.nfpool;
		ip->nbuilt = ip->nframes ? ip->nframes : 1;
		grow_array((void **)&H.fpool, &H.fpcap, H.nfpool + ip->nbuilt, sizeof *H.fpool);
		for (uint32_t t = 0; t < ip->nbuilt; t++) {
			builder_frame f;
			memset(&f, 0, sizeof f);
			f.dso = dso;
			f.kind = FK_USER;
			f.ip = (sstr){ addr, (size_t)an };
			f.inline_depth = -1;
			char src[64];
			sbuf srcline = { 0 };
			if (ip->nframes == 0 || !*str_at(H.triples[ip->frames + t].function)) {
				f.func = f.ip;
				f.func_resolved = false;
			} else {
				const struct triple *tr = &H.triples[ip->frames + t];
				f.func = sstr_c(str_at(tr->function));
				f.func_resolved = true;
				if (*str_at(tr->file)) {
					sbuf_adds(&srcline, str_at(tr->file));
					if (tr->line) {
						int sn = snprintf(src, sizeof src, ":%" PRIu64, tr->line);
						sbuf_add(&srcline, src, (size_t)sn);
					}
					f.srcline = (sstr){ srcline.p, srcline.n };
				}
				if (ip->nframes > 1) {
					f.inlined = t + 1 < ip->nframes;
					f.inline_depth = (int32_t)(ip->nframes - 1 - t);
					f.exact = true;
				}
			}
			H.fpool[H.nfpool++] = builder_frame_add(H.b, &f);
			sbuf_free(&srcline);
		}
	}
	grow_array((void **)&H.frames, &H.frcap, H.nframes + ip->nbuilt, sizeof *H.frames);
	memcpy(H.frames + H.nframes, H.fpool + ip->built, ip->nbuilt * sizeof *H.frames);
	H.nframes += ip->nbuilt;
}

static void write_profile(const char *outpath, bool zstd, const char *metric)
{
	H.b = builder_new();
	builder_source_tool(H.b, "heaptrack");
	if (H.command) builder_source_str(H.b, "command", H.command, strlen(H.command));
	uint32_t ev = builder_event(H.b, "malloc", "allocation", "event", metric, NULL);
	builder_event_extra(H.b, ev, "\"allocation_tracking\":{\"tracks_frees\":true,\"has_timestamps\":false}");
	uint32_t m[NMETRICS];
	for (int i = 0; i < NMETRICS; i++)
		m[i] = builder_metric(H.b, metric_names[i], i == M_ALLOC_BYTES || i == M_LIVE_BYTES ||
							      i == M_PEAK_BYTES || i == M_FREE_BYTES ? "bytes" : NULL);
	uint64_t nstacks = 0;
	for (uint32_t k = 0; k < H.ninfos; k++) {
		struct info *a = &H.infos[k];
		if (!a->allocs) continue;
		if (a->peak_epoch != H.peak_epoch) a->peak_live = a->live; /* unchanged since the peak */
		H.nframes = 0;
		/* parents are defined before their children (take_trace), so
		 * the walk ends; at --max-frames it stops */
		uint64_t t = a->trace;
		for (; t && H.nframes < H.max_frames; t = H.traces[t - 1].parent) ip_frames(H.traces[t - 1].ip);
		if (t || H.nframes > H.max_frames) {
			H.nframes = H.max_frames;
			builder_frame f;
			memset(&f, 0, sizeof f);
			f.func = sstr_c("[truncated]");
			f.dso = builder_dso(H.b, "[unknown]", 9, false);
			f.kind = FK_UNKNOWN;
			f.inline_depth = -1;
			f.func_resolved = true;
			grow_array((void **)&H.frames, &H.frcap, H.nframes + 1, sizeof *H.frames);
			H.frames[H.nframes++] = builder_frame_add(H.b, &f);
			H.ncut++;
		}
		if (H.nframes == 0) {
			/* an allocation heaptrack could not unwind at all */
			builder_frame f;
			memset(&f, 0, sizeof f);
			f.func = sstr_c("[unknown]");
			f.dso = builder_dso(H.b, "[unknown]", 9, false);
			f.kind = FK_UNKNOWN;
			f.inline_depth = -1;
			f.func_resolved = true;
			grow_array((void **)&H.frames, &H.frcap, 1, sizeof *H.frames);
			H.frames[H.nframes++] = builder_frame_add(H.b, &f);
		}
		uint64_t v[NMETRICS] = { a->allocs, 0, a->frees, 0, a->live, 0, 0, a->temps };
		num vals[NMETRICS];
		uint32_t midx[NMETRICS], nv = 0;
		if (ckd_mul(&v[M_ALLOC_BYTES], a->allocs, a->size) ||
		    ckd_mul(&v[M_FREE_BYTES], a->frees, a->size) ||
		    ckd_mul(&v[M_LIVE_BYTES], a->live, a->size) ||
		    ckd_mul(&v[M_PEAK_BYTES], a->peak_live, a->size))
			die_at(H.fname, 0, "allocation %u: bytes beyond 64 bits", k);
		for (int i = 0; i < NMETRICS; i++)
			if (v[i] || !strcmp(metric_names[i], metric)) {
				midx[nv] = m[i];
				vals[nv++] = num_u(v[i]);
			}
		builder_ctx c;
		memset(&c, 0, sizeof c);
		c.event = ev;
		builder_stack(H.b, &c, H.frames, H.nframes, midx, vals, nv);
		nstacks++;
	}
	if (!nstacks) die_no_stacks(H.fname, "%" PRIu64 " lines, no allocation", H.lineno);
	if (H.ncut)
		warn_at(H.fname, 0, "%" PRIu64 " stack%s of more than %u frames: cut to the %u innermost "
			"under [truncated] (--max-frames)", H.ncut, H.ncut == 1 ? "" : "s", H.max_frames, H.max_frames);
	reader_finish(H.b, outpath, zstd);
}

/* its options, for getopt_long and the registry (readers/registry.h) */
const struct option heaptrack_longopts[] = {
	{ "metric", required_argument, 0, 'm' },
	{ "max-frames", required_argument, 0, 'F' + 256 },
	CLI_OUT_LONGOPTS,
	CLI_STD_LONGOPTS,
	{ 0, 0, 0, 0 }
};
const char heaptrack_shortopts[] = "m:o:zhV";

/* the converter heaptrack2spaa: argv as it gets it (argv[0] its name); the
 * exit status (readers/readers.h) */
int heaptrack_read(int argc, char **argv)
{
	const char *metric = "alloc_bytes", *outpath = NULL;
	bool zstd = false;
	int c;
	while ((c = getopt_long(argc, argv, heaptrack_shortopts, heaptrack_longopts, NULL)) != -1) {
		switch (c) {
		case 'm': metric = optarg; break;
		case 'F' + 256: H.max_frames = (uint32_t)opt_range("--max-frames", optarg, 1, 1000000); break;
		CLI_OUT_CASES(outpath, zstd);
		CLI_STD_CASES(help);
		}
	}
	int k;
	for (k = 0; k < NMETRICS && strcmp(metric, metric_names[k]); k++) {}
	if (k == NMETRICS)
		usage_error("--metric: '%s' is none of alloc_count, alloc_bytes, free_count, free_bytes, "
			    "live_count, live_bytes, peak_bytes, temporary_count", metric);
	const char *path = optind < argc ? argv[optind] : "-";
	several_inputs(argv + optind, argc - optind, &path, &outpath, &zstd);
	read_data(path);
	write_profile(outpath, zstd, metric);
	return EXIT_OK;
}
