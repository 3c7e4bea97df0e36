/* perf2spaa - `perf script` text output to SPAA.
 *
 * The input is a sequence of samples: a header line (comm, pid[/tid],
 * optional [cpu], timestamp and period, the event name, and perhaps a single
 * frame or tracepoint fields), then one frame line per callchain entry, leaf
 * first ("ip sym+off (dso)"), each perhaps followed by a srcline line, then a
 * blank line.  "#" lines are perf's --header comments.  Frames are interned
 * by their raw text (a cache in front of the builder), stacks aggregated per
 * (event, pid, tid, comm) by build.h.
 *
 * With -j N (N > 1), text longer than a chunk is cut into chunks that each
 * begin with a sample header line; up to N threads parse one chunk each
 * into a builder of its own (the state P below is per thread), and the main
 * thread merges the builders into its own in input order (builder_merge),
 * so that the output is the same, byte for byte, for every N.  A chunk
 * whose thread meets an error (a line longer than the limit, a sum beyond
 * 64 bits), or whose merge would overflow, is read again on the main thread
 * as -j 1 reads it (replay_chunk): the same message, line and warnings.
 * Memory is a few chunks and their builders, and the distinct frames and
 * stacks. */
#define _GNU_SOURCE /* memrchr */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "readers.h"
#include "build.h"
#include "reader.h"
#include "cli.h"
#include "jsonbuf.h"
#include "naming.h"
#include "input.h"
#include "output.h"
#include "sniff.h"
#include "perfconv.h"
#include "perfdata.h"
#include "spaa.h"
#include "stackid.h"
#include "strmap.h"
#include "util.h"

static const char help[] =
	"Usage: perf2spaa [OPTION]... [FILE]...\n"
	"Convert perf.data, or `perf script` text output, to a SPAA 1.0 profile.\n"
	"\n"
	"Reads each FILE (or standard input when none or \"-\"): a perf.data (file or\n"
	"pipe mode, recognised by its magic, or the directory of perf record --threads),\n"
	"or perf script's text, plain, gzip or zstd;\n"
	"and writes one profile: one event per perf event, stacks aggregated per\n"
	"event, process, thread and command name with \"samples\" and \"period\" weights.\n"
	"\n"
	"Lines that cannot be read are skipped with a warning naming the line.\n"
	"\n"
	"  -s, --samples        also write one sample record per sample (timestamp,\n"
	"                       cpu, period), for spaa-window\n"
	"  -j, --jobs=N         convert on N threads (default: the online cores; the\n"
	"                       output is the same for every N)\n"
	"  -q, --quiet          no warnings about unreadable lines (or lost samples)\n"
	"      --symfs=DIR      perf.data: look for the recorded files under DIR\n"
	"      --root=DIR       the same as --symfs\n"
	"      --debug-dir=DIR  perf.data: perf's build-id cache (default ~/.debug)\n"
	"      --kallsyms=FILE  perf.data: kernel symbols from FILE (default\n"
	"                       /proc/kallsyms when the capture is of this kernel,\n"
	"                       else the copy in perf's build-id cache)\n"
	"      --inline         perf.data: add the calls inlined at every address (DWARF),\n"
	"                       frame-pointer callchains' too\n"
	"      --no-inline      perf.data: no inlined calls, not even those perf script\n"
	"                       adds by default to the user frames of dwarf captures\n"
	"      --srcline        perf.data: each frame's source line, from DWARF\n"
	"      --addresses      a frame per address (its ip and symoff), not one per\n"
	"                       function: the weight of each instruction, for\n"
	"                       spaa-annotate --disasm\n"
	CLI_HELP_TAIL;

#define MAX_WARN 20

/* A warning of a chunk, printed when the main thread merges it; event >= 0:
 * "sample without a period", printed only if that event's first sample in
 * the whole input had one (and once). */
struct warnent {
	uint64_t line;
	const char *what;
	int32_t event;
};

/* A chunk of text and, once parsed, what its thread made of it. */
struct chunk {
	pthread_t th;
	char *buf;
	size_t n, cap, max_line;
	uint64_t nlines;        /* its lines (its line numbers start at 1) */
	bool trouble;           /* a line longer than max_line, or a sum beyond
				 * 64 bits: the main thread reads it again */
	const char *fname;
	bool quiet, text;
	int fd;                 /* >= 0: the chunk is bytes [start, end) of this
				 * file, read by its thread (buf unused) */
	uint64_t start, end;
	bool pooled, done;      /* read by a thread of convert_ranges; done
				 * (under part_mu): its builder is made */
	bool active;            /* (under part_mu) being read: its back may be
				 * taken (steal_part) */
	uint64_t claimed;       /* (under part_mu) its reader takes the lines
				 * that begin before this without asking */
	uint64_t claim;         /* and claims this many bytes at a time */
	builder *b;
	bool *ev_period;        /* per event of b: its first sample had a period */
	struct warnent *w;
	uint32_t nw, wcap;
	uint64_t nwarn;         /* warnings other than the period ones */
	sbuf hdrs;              /* "# cmdline"/"# perf version" lines: length (4 bytes), text */
	uint64_t nsamples;
	bool has_time;
	uint64_t tmin_s, tmin_f, tmax_s, tmax_f;
	char tmin[48], tmax[48];
};

/* One frame line of the current sample, as offsets into the sample buffer. */
struct pline {
	uint32_t off, len;     /* the trimmed frame line */
	uint32_t src_off, src_len; /* srcline line, src_len 0: none */
	bool has_src;
	bool inlined;          /* dso is "(inlined)" */
	bool standalone;       /* "(inlined)" but not at its caller's ip: a frame of its own */
	uint32_t hash;         /* of the line, when it is the frame cache key */
};

struct sample {
	bool active;
	uint64_t lineno;
	uint32_t comm_off, comm_len;
	bool has_pid;
	int64_t pid, tid;
	bool has_cpu;
	int64_t cpu;
	bool has_ts;
	uint64_t ts_sec, ts_frac;  /* the timestamp, fraction scaled to 1e-12 s */
	const char *ts_p;          /* its text (in the line, then in P.sb) */
	uint32_t ts_off, ts_len;
	bool has_period;
	uint64_t period;
	int32_t event;
	uint32_t trace_off, trace_len;
};

static _Thread_local struct {
	builder *b;
	struct chunk *chunk;    /* a parsing thread's chunk, NULL: the main thread */
	unsigned jobs;
	bool prev_frame;        /* the last line was a frame line */
	bool want_samples, quiet;
	uint32_t m_samples, m_period;
	/* per-sample scratch */
	sbuf sb;
	struct pline *fl;
	uint32_t nfl, flcap;
	uint32_t *frames;
	uint32_t nfr, frcap;
	struct sample s;
	/* frame cache: key text -> frame index */
	strmap fcache;
	uint32_t *fval;
	uint32_t fvcap;
	sbuf key;
	bool *ev_period;        /* per event: primary metric is period */
	bool *ev_warned;
	uint32_t *ev_count;     /* per event: its metric "count", UINT32_MAX none */
	uint32_t evcap;
	/* diagnostics */
	const char *fname;
	uint64_t nwarn;
	bool got_cmdline, got_version;
	uint64_t nsamples;
	/* time range: fixed-point min and max, and their texts */
	bool has_time;
	uint64_t tmin_s, tmin_f, tmax_s, tmax_f;
	char tmin[48], tmax[48];
	sbuf extra;
	uint32_t nochain;       /* the placeholder frame of empty callchains */
	perfconv_opts po;       /* perf.data inputs */
	perfconv_totals pt;
} P = { .nochain = UINT32_MAX };

static void chunk_warn(struct chunk *c, uint64_t line, const char *what, int32_t event)
{
	/* beyond MAX_WARN + 1, they would not be printed */
	if (event < 0 && c->nwarn++ > MAX_WARN) return;
	*VEC_PUSH(c->w, c->nw, c->wcap) = (struct warnent){ line, what, event };
}

static void warn_line(uint64_t line, const char *what)
{
	if (P.chunk) {
		chunk_warn(P.chunk, line, what, -1);
		return;
	}
	P.nwarn++;
	if (P.quiet || P.nwarn > MAX_WARN) return;
	warn_at(P.fname, line, "warning: %s", what);
}


/* ---- events ------------------------------------------------------------ */

static uint32_t event_get(const char *name, size_t n, bool has_period)
{
	int32_t e = builder_event_find(P.b, name, n);
	if (e >= 0) return (uint32_t)e;
	uint32_t i = perfconv_event_as(P.b, name, n, has_period);
	grow_array((void **)&P.ev_period, &P.evcap, i + 1, sizeof *P.ev_period);
	uint32_t cap2 = 0;
	(void)cap2;
	P.ev_warned = xrealloc(P.ev_warned, P.evcap * sizeof *P.ev_warned);
	P.ev_period[i] = has_period;
	P.ev_warned[i] = false;
	P.ev_count = xrealloc(P.ev_count, P.evcap * sizeof *P.ev_count);
	P.ev_count[i] = perfconv_count_metric(P.b, i);
	return i;
}

/* ---- header lines ------------------------------------------------------ */

#define MAXTOK 48
struct tok { uint32_t s, n; };

static bool tok_digits(const char *p, uint32_t n)
{
	if (!n) return false;
	for (uint32_t i = 0; i < n; i++)
		if (!c_digit(p[i])) return false;
	return true;
}

/* "123" or "123/456" */
static bool tok_pid(const char *p, uint32_t n, int64_t *pid, int64_t *tid, bool *two)
{
	const char *sl = memchr(p, '/', n);
	if (!sl) {
		*two = false;
		/* "-1": perf's pid of a task it no longer knows (comm ":-1") */
		if (n == 2 && p[0] == '-' && p[1] == '1') {
			*tid = -1;
			return true;
		}
		return tok_digits(p, n) && parse_i64(p, n, tid);
	}
	uint32_t a = (uint32_t)(sl - p);
	*two = true;
	return tok_digits(p, a) && tok_digits(sl + 1, n - a - 1) && parse_i64(p, a, pid) &&
	       parse_i64(sl + 1, n - a - 1, tid);
}

/* "[003]" */
static bool tok_cpu(const char *p, uint32_t n, int64_t *cpu)
{
	return n >= 3 && p[0] == '[' && p[n - 1] == ']' && tok_digits(p + 1, n - 2) &&
	       parse_i64(p + 1, n - 2, cpu);
}

/* "12345.678901:" */
static bool tok_time(const char *p, uint32_t n)
{
	if (n < 2 || p[n - 1] != ':') return false;
	bool dot = false;
	for (uint32_t i = 0; i + 1 < n; i++) {
		if (p[i] == '.' && !dot && i > 0) dot = true;
		else if (!c_digit(p[i])) return false;
	}
	return true;
}

/* A sample header line, fitted but not yet taken. */
struct hdr {
	struct sample s;
	const char *ev;
	uint32_t ev_n, comm_len;
	const char *rest;
	size_t rest_n;
};

/* Fits a sample header line (trailing blanks already removed): the first
 * token after the comm that is "PID" or "PID/TID" and is followed by
 * [CPU]? TIME:? PERIOD? EVENT: .  False when the line is not one. */
static bool header_fit(char *line, size_t n, struct hdr *h)
{
	struct tok t[MAXTOK];
	uint32_t nt = 0;
	size_t i = 0;
	while (i < n && nt < MAXTOK) {
		while (i < n && c_blank(line[i])) i++;
		if (i >= n) break;
		size_t s = i;
		while (i < n && !c_blank(line[i])) i++;
		t[nt].s = (uint32_t)s;
		t[nt].n = (uint32_t)(i - s);
		nt++;
	}
	if (nt < 3 || c_blank(line[0])) return false;
	for (uint32_t k = 1; k + 1 < nt; k++) {
		int64_t pid = 0, tid = 0, cpu = 0;
		bool two;
		if (!tok_pid(line + t[k].s, t[k].n, &pid, &tid, &two)) continue;
		uint32_t j = k + 1;
		bool has_cpu = false, has_ts = false, has_period = false;
		uint32_t tsj = 0, pj = 0;
		if (j < nt && tok_cpu(line + t[j].s, t[j].n, &cpu)) has_cpu = true, j++;
		if (j < nt && tok_time(line + t[j].s, t[j].n)) has_ts = true, tsj = j++;
		if (j + 1 < nt && tok_digits(line + t[j].s, t[j].n)) has_period = true, pj = j++;
		if (j >= nt) continue;
		const char *ev = line + t[j].s;
		uint32_t en = t[j].n;
		if (en < 2 || ev[en - 1] != ':' || tok_time(ev, en)) continue;
		struct sample *s = &h->s;
		memset(s, 0, sizeof *s);
		if (has_period && !parse_u64(line + t[pj].s, t[pj].n, &s->period)) continue;
		s->has_period = has_period;
		s->has_pid = two;
		s->pid = pid;
		s->tid = tid;
		s->has_cpu = has_cpu;
		s->cpu = cpu;
		if (has_ts) {
			/* kept as text (written as is) and as a fixed-point
			 * pair for the time range: no strtod per sample */
			const char *q = line + t[tsj].s;
			uint32_t qn = t[tsj].n - 1, d = 0;
			uint64_t sec = 0, frac = 0;
			while (d < qn && q[d] != '.' && d < 19) sec = sec * 10 + (uint64_t)(q[d++] - '0');
			if (d < qn && q[d] != '.') continue; /* absurd: not a time */
			uint32_t fd = 0;
			for (d++; d < qn; d++)
				if (fd < 12) frac = frac * 10 + (uint64_t)(q[d] - '0'), fd++;
			while (fd++ < 12) frac *= 10;
			s->ts_sec = sec;
			s->ts_frac = frac;
			/* no leading zeros in a JSON number, nor a trailing
			 * dot ("107.:" is 107) */
			while (qn > 1 && q[0] == '0' && q[1] != '.') q++, qn--;
			if (qn > 1 && q[qn - 1] == '.') qn--;
			s->ts_p = q;
			s->ts_len = qn;
			s->has_ts = true;
		}
		h->ev = ev;
		h->ev_n = en - 1;
		h->comm_len = t[k - 1].s + t[k - 1].n;
		size_t r = t[j].s + en;
		while (r < n && c_blank(line[r])) r++;
		h->rest = line + r;
		h->rest_n = n - r;
		return true;
	}
	return false;
}

/* ---- frame lines -------------------------------------------------------- */

/* Splits a trimmed frame line "ip sym+off (dso)" into its parts.  False if
 * it is not a frame line.  need_dso: a frame without "(dso)" is refused. */
struct fparts { sstr ip, sym, dso; };

static bool split_frame(const char *p, size_t n, bool need_dso, struct fparts *f)
{
	size_t i = 0;
	if (n >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) i = 2;
	size_t h = i;
	while (i < n && c_hex(p[i])) i++;
	if (i == h || (i < n && !c_blank(p[i]))) return false;
	f->ip = (sstr){ p, i };
	while (i < n && c_blank(p[i])) i++;
	const char *sym = p + i;
	size_t sn = n - i;
	if (sn && sym[sn - 1] == ')') {
		/* the matching '(' from the right: most often the last '(',
		 * with no ')' between it and the end */
		const char *o = memrchr(sym, '(', sn - 1);
		size_t k = o ? (size_t)(o - sym) : sn;
		int depth = 0;
		if (!o || memchr(o + 1, ')', sn - 2 - k)) {
			k = sn;
			while (k-- > 0) {
				if (sym[k] == ')') depth++;
				else if (sym[k] == '(' && --depth == 0) break;
			}
		}
		if (k < sn && depth == 0 && (k == 0 || c_blank(sym[k - 1]))) {
			f->dso = (sstr){ sym + k + 1, sn - k - 2 };
			size_t e = k;
			while (e > 0 && c_blank(sym[e - 1])) e--;
			f->sym = (sstr){ sym, e };
			return true;
		}
	}
	if (need_dso || sn == 0) return false;
	f->dso = sstr_c("[unknown]");
	f->sym = (sstr){ sym, sn };
	return true;
}

/* "file:123" (perhaps with " (discriminator N)"): a srcline line. */
static bool is_srcline(const char *p, size_t n)
{
	const char *c = NULL;
	for (size_t i = 0; i < n; i++)
		if (p[i] == ':') c = p + i;
	if (!c || c == p) return false;
	const char *q = c + 1;
	if (q >= p + n || !c_digit(*q)) return false;
	while (q < p + n && c_digit(*q)) q++;
	return q == p + n || c_blank(*q);
}

/* "DSO[hex]": the srcline line perf prints for an address it knows no
 * source line of (perf script -F+srcline: "[kernel.kallsyms][ffffffff8136]",
 * "libc.so.6[27b25]"), or ":0", one of no file. */
static bool is_nosrcline(const char *p, size_t n)
{
	/* ":0": a line of no file (perf's addr2line on ld.so's _dl_start_user) */
	if (n >= 2 && p[0] == ':') {
		for (size_t i = 1; i < n; i++)
			if (!c_digit(p[i])) return false;
		return true;
	}
	if (n < 4 || p[n - 1] != ']') return false;
	size_t i = n - 1;
	while (i > 0 && (c_digit(p[i - 1]) || (p[i - 1] >= 'a' && p[i - 1] <= 'f'))) i--;
	return i < n - 1 && i >= 2 && p[i - 1] == '[';
}

static void add_fline(const char *p, size_t n)
{
	struct pline *pl = VEC_PUSH(P.fl, P.nfl, P.flcap);
	pl->off = (uint32_t)P.sb.n;
	pl->len = (uint32_t)n;
	pl->has_src = false;
	pl->src_off = pl->src_len = 0;
	pl->inlined = n > 10 && memcmp(p + n - 10, " (inlined)", 10) == 0;
	pl->standalone = false;
	/* its frame cache slot fetched now, while the rest of the sample is
	 * read, rather than when the sample ends and the lookup waits for it */
	pl->hash = strmap_hash(p, n);
	if (!pl->inlined) strmap_prefetch(&P.fcache, pl->hash);
	sbuf_add(&P.sb, p, n);
}

/* What inlined frames take from their physical frame. */
struct phys { uint32_t dso; uint8_t kind; sstr symoff; };

/* Splits "sym+0x1f" into the symbol and its offset. */
static sstr strip_symoff(sstr *sym)
{
	for (size_t i = sym->n; i-- > 0;) {
		if (sym->p[i] == '+') {
			if (sym->n - i > 3 && sym->p[i + 1] == '0' && sym->p[i + 2] == 'x') {
				size_t j = i + 3;
				while (j < sym->n && c_hex(sym->p[j])) j++;
				if (j == sym->n) {
					sstr off = { sym->p + i + 1, sym->n - i - 1 };
					sym->n = i;
					return off;
				}
			}
			break;
		}
		if (!c_hex(sym->p[i]) && sym->p[i] != 'x') break;
	}
	return SSTR_NULL;
}

/* Is line pl, alone, the frame cache key of its frame (not inlined, no
 * srcline, depth < 0)?  Most lines are. */
static bool plain_key(const struct pline *pl, int32_t depth)
{
	return !pl->has_src && !pl->inlined && depth < 0;
}

/* Prefetches the keys in the frame cache of a sample's plain frame lines
 * (their slots were prefetched as the lines were read, add_fline): the
 * lookups that follow find them in the cache instead of each waiting for
 * memory in turn. */
static void prefetch_frames(void)
{
	for (uint32_t i = 0; i < P.nfl; i++)
		if (plain_key(&P.fl[i], -1)) strmap_prefetch_key(&P.fcache, P.fl[i].hash);
}

/* Interns the frame of line pl (ph: the physical frame, for inlined ones). */
static uint32_t resolve_frame(const struct pline *pl, const struct phys *ph, int32_t depth)
{
	uint32_t phys_dso = ph ? ph->dso : 0;
	const char *p = P.sb.p + pl->off;
	sbuf *k = &P.key;
	k->n = 0;
	if (!plain_key(pl, depth)) sbuf_add(k, p, pl->len);
	if (pl->has_src) {
		sbuf_addc(k, '\x1f');
		sbuf_add(k, P.sb.p + pl->src_off, pl->src_len);
	}
	if (pl->inlined) {
		sbuf_addc(k, '\x1e');
		sbuf_add(k, &phys_dso, sizeof phys_dso);
	}
	if (depth >= 0) { /* one frame per depth: inline_depth is part of it */
		sbuf_addc(k, '\x1d');
		sbuf_add(k, &depth, sizeof depth);
	}
	bool added;
	uint32_t ci = plain_key(pl, depth) ? strmap_intern_h(&P.fcache, p, pl->len, pl->hash, &added)
					   : strmap_intern(&P.fcache, k->p, k->n, &added);
	if (!added) return P.fval[ci];
	struct fparts f;
	split_frame(p, pl->len, false, &f); /* checked when the line was read */
	if (pl->standalone) f.dso = sstr_c("[unknown]");
	builder_frame fr;
	char ipbuf[64];
	sstr sym = f.sym, symoff = strip_symoff(&sym);
	perf_frame_fill(P.b, f.ip, sym, symoff, pl->inlined ? SSTR_NULL : f.dso, f.sym.n == 0, ipbuf, &fr);
	if (pl->inlined) {
		fr.dso = phys_dso;
		fr.inlined = true;
		fr.kind = ph->kind;
		fr.symoff = ph->symoff;
	}
	fr.inline_depth = depth;
	fr.exact = depth >= 0 || P.po.addresses; /* --addresses: a frame per address */
	fr.srcline = pl->has_src ? (sstr){ P.sb.p + pl->src_off, pl->src_len } : SSTR_NULL;
	uint32_t idx = builder_frame_add(P.b, &fr);
	grow_array((void **)&P.fval, &P.fvcap, ci + 1, sizeof *P.fval);
	P.fval[ci] = idx;
	return idx;
}

/* The dso, kind and offset of a physical frame (for its inlined frames). */
static void phys_of(const struct pline *pl, struct phys *ph)
{
	struct fparts f;
	split_frame(P.sb.p + pl->off, pl->len, false, &f);
	ph->kind = (uint8_t)naming_dso_kind(f.dso.p, f.dso.n);
	ph->dso = builder_dso(P.b, f.dso.p, f.dso.n, ph->kind == FK_KERNEL);
	ph->symoff = strip_symoff(&f.sym);
}

/* Do frame lines a and b (NULL: none) start with the same ip? */
static bool same_ip(const struct pline *a, const struct pline *b)
{
	if (!b) return false;
	const char *p = P.sb.p + a->off, *q = P.sb.p + b->off;
	uint32_t i = 0;
	while (i < a->len && !c_blank(p[i])) i++;
	return i < b->len && memcmp(p, q, i) == 0 && c_blank(q[i]);
}

static void finish_sample(void)
{
	struct sample *s = &P.s;
	if (!s->active) return;
	s->active = false;
	P.nsamples++;
	P.nfr = 0;
	/* --addresses: the frames' addresses (their ips as printed) in the
	 * stack's context, so that stacks at other addresses stay apart */
	char xa[40];
	int xan = 0;
	if (P.po.addresses) {
		uint64_t ah = FNV64_BASIS;
		for (uint32_t i = 0; i < P.nfl; i++) {
			const char *p = P.sb.p + P.fl[i].off;
			uint32_t n = 0;
			while (n < P.fl[i].len && !c_blank(p[n])) n++;
			ah = fnv1a64(ah, p, n);
			ah = fnv1a64(ah, "\x1e", 1);
		}
		xan = snprintf(xa, sizeof xa, "\"x_addr_id\":\"0x%016llx\"", (unsigned long long)ah);
	}
	grow_array((void **)&P.frames, &P.frcap, P.nfl + 1, sizeof *P.frames);
	prefetch_frames();
	for (uint32_t i = 0; i < P.nfl; i++) {
		const struct pline *pl = &P.fl[i];
		if (!pl->inlined) {
			P.frames[P.nfr++] = resolve_frame(pl, NULL, -1);
			continue;
		}
		/* a run of inlined frames, then their physical frame */
		uint32_t j = i;
		while (j < P.nfl && P.fl[j].inlined) j++;
		if (!same_ip(pl, j < P.nfl ? &P.fl[j] : NULL)) {
			/* not at the ip of the frame after it (as perf prints
			 * a uprobe's own address): a frame of its own, its
			 * dso unknown */
			P.fl[i].inlined = false;
			P.fl[i].standalone = true;
			P.frames[P.nfr++] = resolve_frame(&P.fl[i], NULL, -1);
			continue;
		}
		struct phys ph = { 0, FK_UNKNOWN, SSTR_NULL };
		if (j < P.nfl) phys_of(&P.fl[j], &ph);
		else ph.dso = builder_dso(P.b, "[unknown]", 9, false);
		for (uint32_t k = i; k < j; k++) {
			uint32_t fi = resolve_frame(&P.fl[k], &ph, (int32_t)(j - k));
			P.frames[P.nfr++] = fi;
		}
		if (j < P.nfl) P.frames[P.nfr++] = resolve_frame(&P.fl[j], NULL, 0);
		i = j;
	}
	P.nfl = 0;
	if (P.nfr == 0) {
		/* perf printed no frame at all (an empty callchain): one
		 * placeholder frame, so that the stack validates; spaa-fold
		 * leaves it out, as stackcollapse-perf.pl shows only the comm */
		if (P.nochain == UINT32_MAX) {
			builder_frame fr;
			memset(&fr, 0, sizeof fr);
			fr.func = sstr_c("[unknown]");
			fr.dso = builder_dso(P.b, "[unknown]", 9, false);
			fr.kind = FK_UNKNOWN;
			fr.inline_depth = -1;
			fr.func_resolved = true;
			fr.extra_json = "\"x_perf_no_callchain\":true";
			P.nochain = builder_frame_add(P.b, &fr);
		}
		P.frames[P.nfr++] = P.nochain;
	}

	builder_ctx c;
	memset(&c, 0, sizeof c);
	c.event = (uint32_t)s->event;
	c.has_pid = s->has_pid;
	c.pid = s->pid;
	c.has_tid = true;
	c.tid = s->tid;
	c.comm = (sstr){ P.sb.p + s->comm_off, s->comm_len };
	if (xan > 0) c.extra_json = (sstr){ xa, (size_t)xan };
	if (s->has_pid) builder_thread(P.b, s->pid, s->tid, c.comm.p, c.comm.n);
	uint32_t midx[3];
	num vals[3];
	uint32_t nv = 0;
	midx[nv] = P.m_samples;
	vals[nv++] = num_i(1);
	uint64_t period = s->has_period ? s->period : 1;
	static const char noperiod[] = "sample without a period in an event with periods: counted as period 1";
	if (!s->has_period && (P.ev_period[s->event] || P.chunk) && !P.ev_warned[s->event]) {
		P.ev_warned[s->event] = true;
		if (P.chunk) chunk_warn(P.chunk, s->lineno, noperiod, s->event); /* the merge decides */
		else warn_line(s->lineno, noperiod);
	}
	midx[nv] = P.m_period;
	vals[nv++] = num_u(period);
	if (P.ev_count[s->event] != UINT32_MAX) {
		midx[nv] = P.ev_count[s->event];
		vals[nv++] = num_u(period);
	}
	builder_where(P.b, P.fname, s->lineno); /* for an overflow message */
	uint32_t si = builder_stack(P.b, &c, P.frames, P.nfr, midx, vals, nv);
	const char *ts_text = s->has_ts ? P.sb.p + s->ts_off : NULL;
	if (s->has_ts && s->ts_len < sizeof P.tmin) {
		bool lo = !P.has_time || s->ts_sec < P.tmin_s || (s->ts_sec == P.tmin_s && s->ts_frac < P.tmin_f);
		bool hi = !P.has_time || s->ts_sec > P.tmax_s || (s->ts_sec == P.tmax_s && s->ts_frac > P.tmax_f);
		P.has_time = true;
		if (lo) {
			P.tmin_s = s->ts_sec, P.tmin_f = s->ts_frac;
			memcpy(P.tmin, ts_text, s->ts_len);
			P.tmin[s->ts_len] = 0;
		}
		if (hi) {
			P.tmax_s = s->ts_sec, P.tmax_f = s->ts_frac;
			memcpy(P.tmax, ts_text, s->ts_len);
			P.tmax[s->ts_len] = 0;
		}
	}
	if (P.want_samples) {
		sbuf *e = &P.extra;
		e->n = 0;
		if (s->has_ts) {
			/* the timestamp exactly as perf printed it */
			sbuf_adds(e, "\"timestamp\":");
			sbuf_add(e, ts_text, s->ts_len);
			sbuf_addc(e, ',');
		}
		if (s->has_cpu) sbuf_printf(e, "\"cpu\":%lld,", (long long)s->cpu);
		if (s->has_period) sbuf_printf(e, "\"period\":%llu,", (unsigned long long)s->period);
		if (s->trace_len) {
			sbuf_adds(e, "\"x_trace_fields\":");
			jb_str(e, P.sb.p + s->trace_off, s->trace_len);
			sbuf_addc(e, ',');
		}
		if (e->n) e->n--; /* trailing comma */
		sbuf_addc(e, 0);
		builder_sample(P.b, si, false, 0, e->p);
	}
}

/* "# cmdline : ..." and "# perf version : ..." */
static void header_comment(const char *p, size_t n)
{
	const char *key = NULL;
	bool *got = NULL;
	if (n > 12 && memcmp(p, "# cmdline : ", 12) == 0) key = "command", got = &P.got_cmdline, p += 12, n -= 12;
	else if (n > 17 && memcmp(p, "# perf version : ", 17) == 0) key = "tool_version", got = &P.got_version, p += 17, n -= 17;
	if (!key || *got) return;
	*got = true;
	if (P.chunk) { /* for the merge, in input order */
		sbuf *h = &P.chunk->hdrs;
		uint32_t len = (uint32_t)(n + (key[0] == 'c' ? 12 : 17));
		sbuf_add(h, &len, sizeof len);
		sbuf_add(h, p - (len - n), len);
		return;
	}
	builder_source_str(P.b, key, p, n);
}

/* Starts the sample of a fitted header line (the previous one is done). */
static void start_sample(char *line, struct hdr *h, uint64_t lineno)
{
	P.s = h->s;
	P.s.active = true;
	P.s.lineno = lineno;
	P.s.event = (int32_t)event_get(h->ev, h->ev_n, h->s.has_period);
	P.sb.n = 0;
	P.s.comm_off = 0;
	P.s.comm_len = h->comm_len;
	sbuf_add(&P.sb, line, h->comm_len);
	if (P.s.has_ts) {
		P.s.ts_off = (uint32_t)P.sb.n;
		sbuf_add(&P.sb, h->s.ts_p, P.s.ts_len);
	}
	if (!h->rest_n) return;
	struct fparts f;
	if (split_frame(h->rest, h->rest_n, true, &f)) {
		add_fline(h->rest, h->rest_n);
		return;
	}
	P.s.trace_off = (uint32_t)P.sb.n;
	P.s.trace_len = (uint32_t)h->rest_n;
	sbuf_add(&P.sb, h->rest, h->rest_n);
}

/* ": " somewhere in p[0..n), or a ':' at its end. */
static bool has_colon_blank(const char *p, size_t n)
{
	for (const char *c = p, *e = p + n; (c = memchr(c, ':', (size_t)(e - c))) != NULL; c++)
		if (c + 1 == e || c[1] == ' ') return true;
	return false;
}

/* One line of text (line[n] may be written), line lineno of P.fname. */
static void text_line(char *line, size_t n, uint64_t lineno)
{
	while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r')) n--;
	line[n] = 0;
	size_t i = 0;
	while (i < n && c_blank(line[i])) i++;
	if (i == n) { /* blank: end of sample */
		finish_sample();
		P.prev_frame = false;
		return;
	}
	if (line[0] == '#') {
		header_comment(line, n);
		return;
	}
	if (memchr(line, 0, n)) {
		/* perf script never prints one: binary damage; names would
		 * be cut at it */
		warn_line(lineno, "NUL byte in the line: ignored");
		P.prev_frame = false;
		return;
	}
	/* a header; without -g (one line per sample: "comm pid time:
	 * period event: ip sym+off (dso)") perf right-aligns the comm */
	struct hdr h;
	/* (an indented line is a frame unless it has the ": " of a time;
	 * tested first, as frame lines are most lines) */
	if ((i == 0 || has_colon_blank(line + i, n - i)) && header_fit(line + i, n - i, &h)) {
		finish_sample();
		start_sample(line + i, &h, lineno);
		P.prev_frame = P.nfl > 0;
		return;
	}
	const char *p = line + i;
	size_t pn = n - i;
	struct fparts f;
	if (P.s.active) {
		/* frame lines are not indented in some files */
		if (split_frame(p, pn, i == 0, &f)) {
			add_fline(p, pn);
			P.prev_frame = true;
			return;
		}
		if (P.prev_frame && is_srcline(p, pn)) {
			struct pline *pl = &P.fl[P.nfl - 1];
			pl->has_src = true;
			pl->src_off = (uint32_t)P.sb.n;
			pl->src_len = (uint32_t)pn;
			sbuf_add(&P.sb, p, pn);
			P.prev_frame = false;
			return;
		}
		if (P.prev_frame && is_nosrcline(p, pn)) {
			/* no source line: the frame has none */
			P.prev_frame = false;
			return;
		}
	}
	warn_line(lineno, P.s.active ? "cannot read this line (not a frame): ignored"
				     : "cannot read this line (not a sample header): ignored");
	P.prev_frame = false;
}

/* ---- chunks (-j) -------------------------------------------------------- */

/* Does text_line() take p[0..n) for a sample header (which ends the sample
 * before it whatever came before: a chunk may begin there)? */
static bool is_header_line(const char *p, size_t n)
{
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r')) n--;
	size_t i = 0;
	while (i < n && c_blank(p[i])) i++;
	if (i == n || p[0] == '#' || memchr(p, 0, n)) return false;
	struct hdr h;
	return (i == 0 || has_colon_blank(p + i, n - i)) && header_fit((char *)p + i, n - i, &h);
}

/* Where a chunk of p[0..n) may end: at the start of its last complete line
 * that is a sample header (not its first line) no longer than max (the
 * chunk before it then ends as with -j 1, where that line ends the sample
 * before it); 0 when there is none. */
static size_t chunk_cut(const char *p, size_t n, size_t max)
{
	size_t e = n;
	while (e > 0 && p[e - 1] != '\n') e--;
	while (e > 0) { /* p[s..e) is a line with its newline */
		size_t s = e - 1;
		while (s > 0 && p[s - 1] != '\n') s--;
		if (s > 0 && e - 1 - s <= max && is_header_line(p + s, e - 1 - s)) return s;
		e = s;
	}
	return 0;
}

/* Is a line of p[0..n) (the last one perhaps without its end) longer than
 * max? */
static bool has_long_line(const char *p, size_t n, size_t max)
{
	for (const char *e = p + n, *nl; p < e; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(e - p));
		if (!nl) return (size_t)(e - p) > max;
		if ((size_t)(nl - p) > max) return true;
	}
	return false;
}

static size_t chunk_size(void)
{
	/* SPAA_CHUNK: the tests' small chunks */
	const char *e = getenv("SPAA_CHUNK");
	char *end;
	unsigned long long v = e ? strtoull(e, &end, 10) : 0;
	return e && *e && !*end && v >= 1 && v < ((size_t)1 << 40) ? (size_t)v : (size_t)8 << 20;
}

/* Is the text of in long enough for threads?  Below 1.5 chunks (12 MiB),
 * starting them and merging their builders costs more time than they save
 * (measured on perf script text of a build, on 2 idle cores: at 9 MB -j 2
 * took 0.14 s, -j 1 0.10 s; even at 12 MB; 14 MB 0.16 s against 0.18 s).
 * The size of a plain file is known; of a pipe or compressed data, it is
 * read that far (then kept for the chunks). */
static bool worth_threads(input *in)
{
	uint64_t min = (uint64_t)chunk_size() + chunk_size() / 2, left;
	if (input_left(in, &left)) return left >= min;
	const void *w;
	return input_peek(in, &w, min) >= min;
}

/* The lines of bytes [off, end) of a file, read with pread, so that
 * threads read their parts of one file side by side. */
struct rread {
	int fd;
	uint64_t off, end;     /* the next byte to read; the part's end */
	char *buf;
	size_t cap, pos, len;  /* buf[pos..len): read, not yet taken */
	int err;               /* errno of a failed read */
};

/* The next line of r, as input_line gives it (without its '\n',
 * NUL-terminated, writable; a last line without '\n' too), NULL at the
 * end; NULL with *toolong for a line longer than max, or with r->err set
 * on a read error. */
static char *rread_line(struct rread *r, size_t *n, size_t max, bool *toolong)
{
	*toolong = false;
	size_t scan = r->pos;
	for (;;) {
		char *nl = r->len > scan ? memchr(r->buf + scan, '\n', r->len - scan) : NULL;
		size_t s = r->pos;
		if (nl || (r->off >= r->end && r->len > s)) {
			char *e = nl ? nl : r->buf + r->len;
			*n = (size_t)(e - (r->buf + s));
			if (*n > max) {
				*toolong = true;
				return NULL;
			}
			*e = 0;
			r->pos = (size_t)(e - r->buf) + (nl != NULL);
			return r->buf + s;
		}
		if (r->off >= r->end) return NULL;
		if (r->len - s > max) {
			*toolong = true;
			return NULL;
		}
		if (s) {
			memmove(r->buf, r->buf + s, r->len - s);
			r->len -= s;
			r->pos = 0;
		}
		scan = r->len;
		size_t step = (size_t)1 << 20;
		if (r->cap - r->len < step + 1) {
			r->cap = r->cap * 2 > r->len + step + 1 ? r->cap * 2 : r->len + step + 1;
			r->buf = xrealloc(r->buf, r->cap);
		}
		size_t want = r->cap - r->len - 1;
		if (want > r->end - r->off) want = (size_t)(r->end - r->off);
		ssize_t k = pread(r->fd, r->buf + r->len, want, (off_t)r->off);
		if (k < 0 && errno == EINTR) continue;
		if (k < 0) {
			r->err = errno;
			return NULL;
		}
		if (k == 0) r->end = r->off; /* the file is shorter than it was */
		r->off += (uint64_t)k;
		r->len += (size_t)k;
	}
}

/* The file offset of line (from rread_line) of r. */
static uint64_t rread_where(const struct rread *r, const char *line)
{
	return r->off - r->len + (uint64_t)(line - r->buf);
}

/* The file offset of the line r is at (where rread_line stopped on a line
 * too long). */
static uint64_t rread_at(const struct rread *r)
{
	return r->off - r->len + r->pos;
}

/* The parts of a file (convert_ranges) are handed out, taken back and
 * cut under part_mu. */
static pthread_mutex_t part_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t part_cv = PTHREAD_COND_INITIALIZER;

/* Whether the line at byte at is part c's to read: a thread that has
 * nothing left may take the back of a part being read (steal_part), which
 * then ends earlier (c->end).  Its reader takes the lines before
 * c->claimed without asking (it alone moves it); further on, it claims
 * the next c->claim bytes (CLAIM; less for the tests' small parts), at
 * most to c->end, under part_mu, and a part is cut only where no line is
 * claimed yet.  So every line is read once, by one part. */
enum { CLAIM = 256 << 10 };

static bool part_owns(struct chunk *c, uint64_t at)
{
	if (at < c->claimed) return true;
	pthread_mutex_lock(&part_mu);
	bool mine = at < c->end;
	if (mine) c->claimed = c->end - at > c->claim ? at + c->claim : c->end;
	pthread_mutex_unlock(&part_mu);
	return mine;
}

/* Part c is read to its end: nothing of it is left to take. */
static void part_ended(struct chunk *c)
{
	pthread_mutex_lock(&part_mu);
	c->active = false;
	pthread_mutex_unlock(&part_mu);
}

/* One line of a chunk, line ln of it, on its thread: false when the thread
 * stops there (trouble). */
static bool chunk_take_line(struct chunk *c, char *p, size_t n, uint64_t ln)
{
	if (n > c->max_line) {
		c->trouble = true;
		return false;
	}
	if (!c->text)
		for (size_t i = 0; i < n && !c->text; i++) c->text = !c_blank(p[i]) && p[i] != '\r';
	text_line(p, n, ln);
	c->trouble = builder_overflowed(P.b);
	return !c->trouble;
}

/* A parsing thread: chunk c into a builder of its own. */
static void *parse_chunk(void *arg)
{
	struct chunk *c = arg;
	/* a fresh state (a thread of convert_ranges reads several parts;
	 * what the last one made was freed or handed on below) */
	memset(&P, 0, sizeof P);
	P.chunk = c;
	P.fname = c->fname;
	P.quiet = c->quiet;
	P.nochain = UINT32_MAX;
	P.b = builder_new();
	builder_keep_overflow(P.b);
	builder_part(P.b);
	P.m_samples = builder_metric(P.b, "samples", NULL);
	P.m_period = builder_metric(P.b, "period", NULL);
	uint64_t ln = 0;
	if (c->fd >= 0) { /* a part of a file, read here */
		struct rread r = { .fd = c->fd, .off = c->start, .end = c->end };
		char *line;
		size_t n;
		bool toolong;
		while ((line = rread_line(&r, &n, c->max_line, &toolong)) != NULL) {
			if (c->pooled && !part_owns(c, rread_where(&r, line))) break;
			if (!chunk_take_line(c, line, n, ++ln)) break;
		}
		/* (a line too long that is another part's is that part's) */
		if ((toolong && (!c->pooled || part_owns(c, rread_at(&r)))) || r.err)
			c->trouble = true; /* the main thread says it */
		if (c->pooled) part_ended(c);
		free(r.buf);
	} else {
		char *p = c->buf, *e = p + c->n;
		while (p < e) {
			char *nl = memchr(p, '\n', (size_t)(e - p));
			size_t n = nl ? (size_t)(nl - p) : (size_t)(e - p);
			/* the text as it was, for replay_chunk: text_line writes a
			 * NUL where the line ends once its trailing blanks are cut */
			size_t t = n;
			while (t > 0 && (p[t - 1] == ' ' || p[t - 1] == '\t' || p[t - 1] == '\r')) t--;
			char end = p[t];
			bool go = chunk_take_line(c, p, n, ++ln);
			p[t] = end;
			if (!go) break;
			p += n + 1;
		}
	}
	if (!c->trouble) {
		finish_sample();
		c->trouble = builder_overflowed(P.b);
	}
	c->nlines = ln;
	c->b = P.b;
	c->ev_period = P.ev_period;
	c->nsamples = P.nsamples;
	c->has_time = P.has_time;
	c->tmin_s = P.tmin_s, c->tmin_f = P.tmin_f, c->tmax_s = P.tmax_s, c->tmax_f = P.tmax_f;
	memcpy(c->tmin, P.tmin, sizeof c->tmin);
	memcpy(c->tmax, P.tmax, sizeof c->tmax);
	sbuf_free(&P.sb);
	free(P.fl);
	free(P.frames);
	strmap_free(&P.fcache);
	free(P.fval);
	sbuf_free(&P.key);
	free(P.ev_warned);
	free(P.ev_count);
	sbuf_free(&P.extra);
	return NULL;
}

/* The main thread, on a chunk whose thread met an error (a line too long, a
 * sum beyond 64 bits) or whose merge would overflow: reads it again, line by
 * line into P.b, as it would have with -j 1, so that the error names the
 * same line, after the same warnings.  P.b's weights are those of the
 * chunks before it. */
static noreturn void replay_chunk(struct chunk *c, uint64_t line0)
{
	char *p = c->buf, *e = p + c->n;
	uint64_t ln = line0;
	P.prev_frame = false;
	if (c->fd >= 0) {
		struct rread r = { .fd = c->fd, .off = c->start, .end = c->end };
		char *line;
		size_t n;
		bool toolong;
		while ((line = rread_line(&r, &n, c->max_line, &toolong)) != NULL) text_line(line, n, ++ln);
		if (toolong) input_long_line(P.fname, ln + 1);
		if (r.err) die(EXIT_DATA, "%s: read error: %s", P.fname, strerror(r.err));
		e = p; /* (nothing in buf) */
	}
	while (p < e) {
		char *nl = memchr(p, '\n', (size_t)(e - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(e - p);
		ln++;
		if (n > c->max_line) input_long_line(P.fname, ln);
		text_line(p, n, ln);
		p += n + 1;
	}
	finish_sample();
	die(EXIT_DATA, "internal error: the chunk at line %llu of %s has no error when read again",
	    (unsigned long long)line0 + 1, P.fname);
}

/* The main thread: waits for chunk c and takes in what its thread found,
 * as if it had read the chunk itself. */
static void merge_chunk(struct chunk *c, uint64_t line0)
{
	if (c->pooled) { /* a part of a file: its thread goes on to its next */
		pthread_mutex_lock(&part_mu);
		while (!c->done) pthread_cond_wait(&part_cv, &part_mu);
		pthread_mutex_unlock(&part_mu);
	} else {
		int err = pthread_join(c->th, NULL);
		if (err) die(EXIT_DATA, "cannot wait for a thread: %s", strerror(err));
	}
	if (c->trouble) replay_chunk(c, line0);
	uint32_t nev = builder_nevents(c->b);
	uint32_t *ev = xmalloc(((size_t)nev + 1) * sizeof *ev);
	for (uint32_t e = 0; e < nev; e++) {
		const char *name = builder_event_name(c->b, e);
		ev[e] = event_get(name, strlen(name), c->ev_period[e]);
	}
	if (!builder_merge(P.b, c->b)) replay_chunk(c, line0);
	for (size_t i = 0; i < c->hdrs.n;) {
		uint32_t len;
		memcpy(&len, c->hdrs.p + i, sizeof len);
		header_comment(c->hdrs.p + i + sizeof len, len);
		i += sizeof len + len;
	}
	for (uint32_t i = 0; i < c->nw; i++) {
		const struct warnent *w = &c->w[i];
		if (w->event >= 0) {
			uint32_t g = ev[w->event];
			if (!P.ev_period[g] || P.ev_warned[g]) continue;
			P.ev_warned[g] = true;
		}
		warn_line(line0 + w->line, w->what);
	}
	if (c->nwarn > MAX_WARN + 1) P.nwarn += c->nwarn - (MAX_WARN + 1);
	P.nsamples += c->nsamples;
	if (c->has_time) {
		bool lo = !P.has_time || c->tmin_s < P.tmin_s || (c->tmin_s == P.tmin_s && c->tmin_f < P.tmin_f);
		bool hi = !P.has_time || c->tmax_s > P.tmax_s || (c->tmax_s == P.tmax_s && c->tmax_f > P.tmax_f);
		P.has_time = true;
		if (lo) {
			P.tmin_s = c->tmin_s, P.tmin_f = c->tmin_f;
			memcpy(P.tmin, c->tmin, sizeof P.tmin);
		}
		if (hi) {
			P.tmax_s = c->tmax_s, P.tmax_f = c->tmax_f;
			memcpy(P.tmax, c->tmax, sizeof P.tmax);
		}
	}
	free(ev);
	builder_free(c->b);
	c->b = NULL;
	free(c->ev_period);
	c->ev_period = NULL;
	c->nw = 0;
	c->nwarn = 0;
	c->hdrs.n = 0;
}

/* The text of in cut into chunks, parsed on P.jobs threads, merged in
 * order. */
static void convert_chunks(input *in)
{
	unsigned jobs = P.jobs;
	struct chunk *ring = xcalloc(jobs, sizeof *ring);
	unsigned head = 0, nfly = 0;
	uint64_t lines = 0;
	bool text = false;
	size_t size = chunk_size(), want = size, max_line = input_max_line();
	for (;;) {
		const void *w;
		size_t avail = input_window(in, &w, want);
		if (avail == 0) break;
		/* (avail < want: the end of the input) */
		size_t cut = avail < want ? avail : chunk_cut(w, want, max_line);
		if (cut == 0 && has_long_line(w, avail, max_line))
			cut = avail; /* its thread stops at that line, the merge reads it again */
		if (cut == 0) { /* one sample longer than the chunk */
			want *= 2;
			continue;
		}
		want = size;
		if (nfly == jobs) {
			merge_chunk(&ring[head], lines);
			lines += ring[head].nlines;
			text |= ring[head].text;
			head = (head + 1) % jobs;
			nfly--;
		}
		struct chunk *c = &ring[(head + nfly) % jobs];
		if (cut + 1 > c->cap) {
			free(c->buf);
			c->cap = cut + 1;
			c->buf = xmalloc(c->cap);
		}
		memcpy(c->buf, w, cut);
		c->buf[cut] = 0;
		c->n = cut;
		input_skip(in, cut);
		c->trouble = false;
		c->fname = P.fname;
		c->quiet = P.quiet;
		c->max_line = max_line;
		c->fd = -1;
		c->text = false;
		int err = pthread_create(&c->th, NULL, parse_chunk, c);
		if (err) die(EXIT_DATA, "cannot start a thread: %s", strerror(err));
		nfly++;
	}
	while (nfly) {
		merge_chunk(&ring[head], lines);
		lines += ring[head].nlines;
		text |= ring[head].text;
		head = (head + 1) % jobs;
		nfly--;
	}
	for (unsigned i = 0; i < jobs; i++) {
		free(ring[i].buf);
		free(ring[i].w);
		sbuf_free(&ring[i].hdrs);
	}
	free(ring);
	input_count_lines(in, lines, text);
}

/* The first line at or after byte from of the file that is a sample header
 * (text_line() ends the sample before it whatever came before: a part
 * may begin there) no longer than max; size when there is none. */
static uint64_t next_header(int fd, uint64_t from, uint64_t size, size_t max)
{
	/* from the byte before: the rest of the line it is in comes first */
	struct rread r = { .fd = fd, .off = from - 1, .end = size };
	char *line;
	size_t n;
	bool toolong, first = true;
	uint64_t at = size;
	while ((line = rread_line(&r, &n, max, &toolong)) != NULL) {
		if (!first && is_header_line(line, n)) {
			at = rread_where(&r, line);
			break;
		}
		first = false;
	}
	free(r.buf);
	return at;
}

/* The parts of a file (convert_ranges), each taken once (taken[k], under
 * part_mu): those of mine[k] are the main thread's own, read in order
 * into the profile itself, which the other threads take only when no
 * other is left.  A part cut by steal_part is followed by the new one
 * (next[k]: the order in the file, NONE after the last). */
#define NONE UINT64_MAX
struct parts {
	struct chunk **ring;
	uint64_t np, cap;       /* parts made, room for */
	uint64_t *next;
	bool *taken, *mine;
	int fd;
	uint64_t size;          /* of the file when the parts were made */
	uint64_t steal_min;     /* the least a part must have left to be cut */
	uint64_t claim;         /* the bytes a reader claims at a time (part_owns) */
	size_t max_line;
	const char *fname;
	bool quiet;
};

/* The first part of w (in file order) that nobody has taken, of the
 * others' first when others (not the main thread's own); NONE none.
 * Under part_mu. */
static uint64_t first_free(const struct parts *w, bool others)
{
	for (uint64_t k = 0; k != NONE; k = w->next[k])
		if (!w->taken[k] && !(others && w->mine[k])) return k;
	return NONE;
}

/* Takes the next part of w for a thread (its index, else NONE): one that
 * is not the main thread's own, else any. */
static uint64_t take_part(struct parts *w)
{
	pthread_mutex_lock(&part_mu);
	uint64_t k = first_free(w, true);
	if (k == NONE) k = first_free(w, false);
	if (k != NONE) w->taken[k] = w->ring[k]->active = true;
	pthread_mutex_unlock(&part_mu);
	return k;
}

/* A thread with nothing left to take cuts the part with the most left to
 * read (steal_min at least) at the first sample header past the middle of
 * what is left: the part ends there, and a new part from there to its old
 * end, taken by the caller (its index; NONE: none was cut), comes next
 * in file order.  So the threads end together, whatever the plan's
 * guess of their speeds was worth. */
static uint64_t steal_part(struct parts *w)
{
	for (;;) {
		pthread_mutex_lock(&part_mu);
		uint64_t v = NONE, most = 0;
		for (uint64_t k = 0; k != NONE; k = w->next[k]) {
			const struct chunk *c = w->ring[k];
			uint64_t end = c->end < w->size ? c->end : w->size;
			uint64_t left = c->active && end > c->claimed ? end - c->claimed : 0;
			if (left > most) {
				most = left;
				v = k;
			}
		}
		if (v == NONE || most < w->steal_min || w->np == w->cap) {
			pthread_mutex_unlock(&part_mu);
			return NONE;
		}
		struct chunk *c = w->ring[v];
		uint64_t end0 = c->end, from = c->claimed + most / 2;
		pthread_mutex_unlock(&part_mu);
		uint64_t lim = end0 < w->size ? end0 : w->size;
		uint64_t mid = next_header(w->fd, from, lim, w->max_line);
		pthread_mutex_lock(&part_mu);
		/* (another thread may have cut one meanwhile: room checked again) */
		bool cut = c->active && c->end == end0 && mid >= c->claimed && mid < lim && w->np < w->cap;
		uint64_t k = NONE;
		if (cut) {
			k = w->np++;
			struct chunk *t = w->ring[k] = xcalloc(1, sizeof *t);
			t->fd = w->fd;
			t->start = t->claimed = mid;
			t->end = end0;
			t->fname = w->fname;
			t->quiet = w->quiet;
			t->max_line = w->max_line;
			t->claim = w->claim;
			t->pooled = t->active = true;
			w->taken[k] = true;
			w->next[k] = w->next[v];
			w->next[v] = k;
			c->end = mid;
		}
		/* not cut: its reader got past the middle meanwhile, it ended,
		 * or another thread cut it: the parts are looked at again;
		 * else there was no header to cut at */
		bool again = !cut && (mid < lim || !c->active || c->end != end0);
		pthread_mutex_unlock(&part_mu);
		if (cut || !again) return k;
	}
}

/* Part k of w into a builder of its own (parse_chunk), then done. */
static void read_part(struct parts *w, uint64_t k)
{
	struct chunk *c = w->ring[k];
	parse_chunk(c);
	pthread_mutex_lock(&part_mu);
	c->done = true;
	pthread_cond_broadcast(&part_cv);
	pthread_mutex_unlock(&part_mu);
}

/* A thread of convert_ranges: the parts nobody has taken, one at a time;
 * then the backs of those still being read. */
static void *read_parts(void *arg)
{
	struct parts *w = arg;
	for (uint64_t k; (k = take_part(w)) != NONE;) read_part(w, k);
	for (uint64_t k; (k = steal_part(w)) != NONE;) read_part(w, k);
	return NULL;
}

/* The main thread's own part c, read into P.b as -j 1 reads it (line0:
 * the lines before it; *text: a line of it holds more than blanks). */
static uint64_t read_own_part(struct chunk *c, uint64_t line0, bool *text)
{
	struct rread r = { .fd = c->fd, .off = c->start, .end = c->end };
	char *line;
	size_t n;
	bool toolong;
	uint64_t ln = line0;
	P.prev_frame = false;
	while ((line = rread_line(&r, &n, c->max_line, &toolong)) != NULL) {
		if (!part_owns(c, rread_where(&r, line))) break;
		for (size_t i = 0; i < n && !*text; i++) *text = !c_blank(line[i]) && line[i] != '\r';
		text_line(line, n, ++ln);
	}
	if (toolong && part_owns(c, rread_at(&r))) input_long_line(P.fname, ln + 1);
	if (r.err) die(EXIT_DATA, "%s: read error: %s", P.fname, strerror(r.err));
	part_ended(c);
	free(r.buf);
	finish_sample(); /* (the next part begins with a header, which ends it) */
	return ln - line0;
}

/* The parts of a file on jobs threads, as fractions of it (sizes, summing
 * to 1) and whose they are (mine: the main thread's own), in rounds: the
 * main thread reads a part into the profile itself while the others read
 * one each into builders of their own; then it merges those (their
 * stacks into the profile) and reads its next part while the others
 * read their next.  So that the threads end a round together, the main
 * thread's part is as long as the others' take less what the merges
 * take: by the times measured on 2 cores (25 pid-shifted copies of a
 * build capture, 977,000 distinct stacks), a thread reads a part into a
 * builder of its own in 0.9 of the time the main thread takes for it
 * (no content ids made unique, smaller tables), and merges it in 0.2;
 * the first round has no merges.  Two rounds: more parts cost more (each
 * names its frames again). */
enum { ROUNDS = 2 };
/* the least a part must have left for an idle thread to take its back
 * (steal_part): less costs more than it saves (each part names its
 * frames again, and is merged) */
#define STEAL_MIN ((uint64_t)4 << 20)
#define PART_READ 0.9
#define PART_MERGE 0.2

static uint64_t plan_parts(unsigned jobs, double *size, bool *mine)
{
	double own = PART_READ - (jobs - 1) * PART_MERGE, sum = 0;
	uint64_t np = 0;
	for (unsigned r = 0; r < ROUNDS; r++) {
		double a = r == 0 ? PART_READ : own;
		if (a > 0) {
			size[np] = a;
			mine[np++] = true;
		}
		for (unsigned t = 1; t < jobs; t++) {
			size[np] = 1;
			mine[np++] = false;
		}
	}
	for (uint64_t k = 0; k < np; k++) sum += size[k];
	for (uint64_t k = 0; k < np; k++) size[k] /= sum;
	return np;
}

/* A plain file of size bytes (fd) on P.jobs threads: cut into parts
 * (plan_parts; with SPAA_CHUNK, the tests' small parts, of that size,
 * every P.jobs-th the main thread's own) that each begin with a sample
 * header, each read where it is in the file (pread).  The main thread
 * goes through the parts in order: its own, and any other nobody has
 * taken yet, it reads itself into P.b, as -j 1 would; one a thread has
 * read it merges into P.b; while a thread is still on one, it takes and
 * reads a later part that is not its own as the threads do (into a
 * builder of its own), when the threads have more than one left, else
 * the back of a part still being read (steal_part), or waits.  The
 * threads take the parts that are not the main thread's own in order,
 * then (none left) its own, then the backs of parts being read.  So the
 * work is shared whatever the data and the speed of each thread, the
 * merges are done while the others read, and what the main thread reads
 * in order needs no merge.  Each part is read once, and the merges cost
 * the parts' distinct stacks: not the chunks of convert_chunks (each
 * 8 MiB, with its frames and stacks again), nor their copies. */
static void convert_ranges(input *in, int fd, uint64_t size)
{
	unsigned jobs = P.jobs;
	size_t max_line = input_max_line();
	uint64_t nr = (uint64_t)jobs * ROUNDS;
	bool small = getenv("SPAA_CHUNK") && size / chunk_size() > (uint64_t)jobs * 2;
	if (small) nr = size / chunk_size();
	double *frac = xmalloc((nr + 1) * sizeof *frac);
	bool *mine = xcalloc(nr + 1, sizeof *mine);
	if (small) {
		for (uint64_t k = 0; k < nr; k++) {
			frac[k] = 1.0 / (double)nr;
			mine[k] = k % jobs == 0;
		}
	} else {
		nr = plan_parts(jobs, frac, mine);
	}
	/* room for the planned parts, and for as many cut from them again */
	uint64_t cap = nr * 2 + 1;
	struct parts w = { .ring = xcalloc(cap, sizeof *w.ring), .cap = cap,
			   .next = xmalloc(cap * sizeof *w.next), .taken = xcalloc(cap, sizeof *w.taken),
			   .mine = xcalloc(cap, sizeof *w.mine), .fd = fd, .size = size,
			   /* (the tests' small parts are cut too) */
			   .steal_min = getenv("SPAA_CHUNK") ? chunk_size() / 2 + 1 : STEAL_MIN,
			   .claim = getenv("SPAA_CHUNK") ? chunk_size() / 8 + 1 : CLAIM,
			   .max_line = max_line, .fname = P.fname, .quiet = P.quiet };
	uint64_t *cut = xmalloc((nr + 1) * sizeof *cut);
	uint64_t np = 1;
	double at_f = 0;
	cut[0] = 0;
	w.mine[0] = true;
	for (uint64_t k = 1; k < nr; k++) {
		at_f += frac[k - 1];
		uint64_t at = (uint64_t)((double)size * at_f);
		if (at <= cut[np - 1]) at = cut[np - 1] + 1;
		if (at >= size) break;
		at = next_header(fd, at, size, max_line);
		if (at >= size) break;
		/* (a part that came to nothing: the next one's owner takes it) */
		if (at == cut[np - 1]) {
			w.mine[np - 1] = mine[k];
			continue;
		}
		w.mine[np] = mine[k];
		cut[np++] = at;
	}
	free(frac);
	free(mine);
	/* the last part runs to the end of the file, wherever that is by
	 * then, as -j 1 reads it: a file that grows while it is read is not
	 * cut at the size it had (perhaps in a line) */
	cut[np] = UINT64_MAX;
	for (uint64_t k = 0; k < np; k++) {
		struct chunk *c = w.ring[k] = xcalloc(1, sizeof *c);
		c->fd = fd;
		c->start = c->claimed = cut[k];
		c->end = cut[k + 1];
		c->fname = P.fname;
		c->quiet = P.quiet;
		c->max_line = max_line;
		c->claim = w.claim;
		c->pooled = true;
		w.next[k] = k + 1 < np ? k + 1 : NONE;
	}
	free(cut);
	w.np = np;
	w.taken[0] = w.ring[0]->active = true; /* part 0: the main thread's */
	unsigned nth = 0;
	for (uint64_t k = 1; k < np; k++) nth += !w.mine[k];
	if (nth > jobs - 1) nth = jobs - 1;
	if (!nth) nth = np > 1 && jobs > 1; /* (a thread for the main thread's own parts) */
	pthread_t *th = xcalloc(nth + 1, sizeof *th);
	for (unsigned t = 0; t < nth; t++) {
		int err = pthread_create(&th[t], NULL, read_parts, &w);
		if (err) die(EXIT_DATA, "cannot start a thread: %s", strerror(err));
	}
	uint64_t lines = 0;
	bool text = false;
	void *mine_p = xmalloc(sizeof P);
	for (uint64_t k = 0; k != NONE;) {
		pthread_mutex_lock(&part_mu);
		struct chunk *c = w.ring[k];
		bool read_own = k == 0 || !w.taken[k];
		if (k && read_own) w.taken[k] = c->active = true;
		pthread_mutex_unlock(&part_mu);
		if (read_own) {
			lines += read_own_part(c, lines, &text);
		} else {
			for (;;) { /* part k is a thread's: help until it is done */
				pthread_mutex_lock(&part_mu);
				bool done = c->done;
				uint64_t j = NONE;
				if (!done) {
					/* a later part that is not its own, when the
					 * threads have another left */
					j = first_free(&w, true);
					uint64_t j2 = NONE;
					for (uint64_t i = j != NONE ? w.next[j] : NONE; i != NONE && j2 == NONE; i = w.next[i])
						if (!w.taken[i] && !w.mine[i]) j2 = i;
					if (j2 == NONE) j = NONE;
					if (j != NONE) w.taken[j] = w.ring[j]->active = true;
				}
				pthread_mutex_unlock(&part_mu);
				if (done) break;
				if (j == NONE) j = steal_part(&w);
				if (j != NONE) { /* parse_chunk takes this thread's P */
					memcpy(mine_p, &P, sizeof P);
					read_part(&w, j);
					memcpy(&P, mine_p, sizeof P);
					continue;
				}
				pthread_mutex_lock(&part_mu);
				if (!c->done) pthread_cond_wait(&part_cv, &part_mu);
				pthread_mutex_unlock(&part_mu);
			}
			merge_chunk(c, lines);
			lines += c->nlines;
			text |= c->text;
			free(c->w);
			sbuf_free(&c->hdrs);
		}
		pthread_mutex_lock(&part_mu);
		k = w.next[k];
		pthread_mutex_unlock(&part_mu);
	}
	free(mine_p);
	for (unsigned t = 0; t < nth; t++) {
		int err = pthread_join(th[t], NULL);
		if (err) die(EXIT_DATA, "cannot wait for a thread: %s", strerror(err));
	}
	free(th);
	for (uint64_t k = 0; k < w.np; k++) free(w.ring[k]);
	free(w.ring);
	free(w.next);
	free(w.taken);
	free(w.mine);
	input_count_lines(in, lines, text);
}

static void convert(input *in)
{
	P.fname = input_name(in);
	const void *magic = NULL;
	size_t mn = input_is_dir(in) ? 0 : input_peek(in, &magic, 8);
	/* perf.data, or a perf.data directory (perf record --threads): read
	 * it, not perf script's text */
	if (input_is_dir(in) || perfdata_magic(magic, mn)) {
		P.po.want_samples = P.want_samples;
		P.po.quiet = P.quiet;
		perfconv_data(P.b, in, P.fname, &P.po, &P.pt);
		return;
	}
	sniff_refuse_other(in, "perf2spaa", "'perf script' text");
	/* on threads unless the text is short (or sample records are
	 * wanted: they are written in input order as they come) */
	uint64_t size;
	int fd = input_file_fd(in);
	if (P.jobs > 1 && !P.want_samples && worth_threads(in)) {
		if (fd >= 0 && input_offset(in) == 0 && input_left(in, &size)) convert_ranges(in, fd, size);
		else convert_chunks(in);
	} else {
		char *line;
		size_t n;
		P.prev_frame = false;
		while ((line = input_line(in, &n)) != NULL) text_line(line, n, input_lineno(in));
		finish_sample();
	}
	if (P.nwarn > MAX_WARN && !P.quiet)
		warn_at(P.fname, 0, "warning: %llu unreadable lines in all",
			(unsigned long long)P.nwarn);
	P.nwarn = 0;
}

enum { O_SYMFS = 256, O_DEBUG_DIR, O_KALLSYMS, O_INLINE, O_ADDRESSES, O_NO_INLINE, O_SRCLINE };

/* its options, for getopt_long and the registry (readers/registry.h) */
const struct option perf_longopts[] = {
	{ "samples", no_argument, 0, 's' },
	CLI_OUT_LONGOPTS,
	{ "jobs", required_argument, 0, 'j' },
	{ "quiet", no_argument, 0, 'q' },
	{ "symfs", required_argument, 0, O_SYMFS },
	{ "root", required_argument, 0, O_SYMFS },
	{ "debug-dir", required_argument, 0, O_DEBUG_DIR },
	{ "kallsyms", required_argument, 0, O_KALLSYMS },
	{ "inline", no_argument, 0, O_INLINE },
	{ "no-inline", no_argument, 0, O_NO_INLINE },
	{ "srcline", no_argument, 0, O_SRCLINE },
	{ "addresses", no_argument, 0, O_ADDRESSES },
	CLI_STD_LONGOPTS,
	{ 0, 0, 0, 0 }
};
const char perf_shortopts[] = "so:zj:qhV";

/* the converter perf2spaa: argv as it gets it (argv[0] its name); the
 * exit status (readers/readers.h) */
int perf_read(int argc, char **argv)
{
	/* a fresh state: the fuzz target (fuzz/fuzz_cmd.c) calls perf_read again */
	memset(&P, 0, sizeof P);
	P.nochain = UINT32_MAX;
	const char *outpath = NULL;
	bool zstd = false;
	unsigned jobs = 0;
	int c;
	while ((c = getopt_long(argc, argv, perf_shortopts, perf_longopts, NULL)) != -1) {
		switch (c) {
		case 's': P.want_samples = true; break;
		CLI_OUT_CASES(outpath, zstd);
		case 'j': jobs = opt_jobs("-j", optarg); break;
		case 'q': P.quiet = true; break;
		case O_SYMFS: P.po.symfs = optarg; break;
		case O_DEBUG_DIR: P.po.debug_dir = optarg; break;
		case O_KALLSYMS: P.po.kallsyms = optarg; break;
		case O_INLINE: P.po.inline_frames = true, P.po.no_inline = false; break;
		case O_NO_INLINE: P.po.no_inline = true, P.po.inline_frames = false; break;
		case O_SRCLINE: P.po.srclines = true; break;
		case O_ADDRESSES: P.po.addresses = true; break;
		CLI_STD_CASES(help);
		}
	}

	/* in-process runs (the fuzz target) come back from die() by longjmp:
	 * one thread */
	P.jobs = P.po.jobs = cli_exit_override ? 1 : jobs ? jobs : cli_jobs();
	builder_jobs(P.jobs); /* the stack records rendered on as many */

	P.b = builder_new();
	builder_source_tool(P.b, "perf");
	P.m_samples = builder_metric(P.b, "samples", NULL);
	P.m_period = builder_metric(P.b, "period", NULL);
	P.po.m_samples = P.m_samples;
	P.po.m_period = P.m_period;

	const char *what;
	uint64_t nlines = input_each(argv + optind, argc - optind, convert, &what); /* for the message when nothing is found */

	if (P.pt.has_time) { /* perf.data inputs: microseconds, as perf script prints them */
		double lo, hi;
		char t[48];
		snprintf(t, sizeof t, "%llu.%06llu", (unsigned long long)(P.pt.tmin / 1000000), (unsigned long long)(P.pt.tmin % 1000000));
		lo = strtod(t, NULL);
		snprintf(t, sizeof t, "%llu.%06llu", (unsigned long long)(P.pt.tmax / 1000000), (unsigned long long)(P.pt.tmax % 1000000));
		hi = strtod(t, NULL);
		if (P.has_time) {
			double a = strtod(P.tmin, NULL), z = strtod(P.tmax, NULL);
			if (a < lo) lo = a;
			if (z > hi) hi = z;
		}
		builder_time_range(P.b, lo, hi);
	} else if (P.has_time) builder_time_range(P.b, strtod(P.tmin, NULL), strtod(P.tmax, NULL));
	P.nsamples += P.pt.nsamples;
	/* (a perf.data has no lines: one without samples is no empty input) */
	if (!P.nsamples && !nlines && P.pt.nfiles) die_no_stacks(what, "no sample record in the perf.data");
	if (!P.nsamples && !nlines) die_empty_input(what);
	if (!P.nsamples)
		die_no_stacks(what, "%llu line%s, none of them a perf sample header (is it 'perf script' output?)",
			      (unsigned long long)nlines, nlines == 1 ? "" : "s");
	reader_finish(P.b, outpath, zstd);
	return EXIT_OK;
}
