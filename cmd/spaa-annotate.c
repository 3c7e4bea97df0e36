/* spaa-annotate - the source lines of the functions a regex matches, with
 * the flat and cum weight of each line, as `go tool pprof -list RE` prints
 * them; with --disasm their instructions, with the weight of each address,
 * as `go tool pprof -disasm RE` and `perf annotate --stdio` show them.
 *
 * Lines come from the frames' "srcline" (file:line); addresses from their
 * "symoff" (the offset in the function) or "ip".  A node is, as in pprof's
 * graph, one (function, file, line, dso) for -list, one (function, dso,
 * address) for --disasm: its cum is the weight of the stacks it is in (once
 * per stack, recursion or not), its flat that of the stacks whose leaf it
 * is.  The instructions are objdump's (binutils), as pprof and perf take
 * them.  One pass over the stacks; memory grows with the matched nodes.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "readers/open.h"
#include "cli.h"
#include "fold.h"
#include "metric.h"
#include "output.h"
#include "rootpath.h"
#include "spaa.h"
#include "srcpath.h"
#include "units.h"

static const char usage[] =
	"Usage: spaa-annotate [OPTION]... REGEX [FILE]...\n"
	"The source lines of the functions that REGEX (a POSIX extended regex)\n"
	"matches, each line with its flat and cum weight, as go tool pprof -list\n"
	"REGEX prints them; with --disasm, their instructions.\n"
	"With no FILE, or when FILE is -, read standard input (plain, gzip or\n"
	"zstd); the stacks of several FILEs are added up.\n"
	"\n"
	"      --source-path=PATH  where to look for source files: directories\n"
	"                       separated by ':', and their parents (default: the\n"
	"                       current directory), as pprof's -source_path\n"
	"      --trim-path=PATH  prefixes (':'-separated) cut from the recorded\n"
	"                       file names, as pprof's -trim_path\n"
	"      --disasm         the instructions of each function (from objdump),\n"
	"                       with flat, cum and their share of the function's\n"
	"                       flat weight, as perf annotate shows it; the profile\n"
	"                       must keep its addresses (perf2spaa or pprof2spaa\n"
	"                       --addresses)\n"
	"      --objdump=PROG   the objdump to run (default: objdump)\n"
	"      --root=DIR       look for the profiled binaries under DIR\n"
	"      --event=NAME     the event to read (default: the first declared)\n"
	"  -m, --metric=NAME    the weight to add up (default: the event's primary\n"
	"                       metric); pprof's names too (cpu, samples ...)\n"
	"  -i, --ignore-case    REGEX matches case-insensitively\n"
	"      --raw-units      exact integers, without units\n"
	"      --iec            bytes in KiB, MiB, GiB\n"
	"\n"
	"flat = weight of the stacks whose leaf is at the line (or instruction);\n"
	"cum = weight of the stacks that pass through it, once per stack.\n"
	"Frames without a srcline get the line objdump -l gives their address,\n"
	"when the profile keeps its addresses.\n"
	"\n"
	"Output:\n"
	READERS_HELP
	CLI_HELP_TAIL;

static struct {
	const char *event, *metric, *outpath, *source_path, *trim_path, *root, *objdump;
	bool disasm, zstd, icase;
	units_opts uo;
} opt = { .objdump = "objdump" };

static regex_t re;

/* A node: a source line of a function (-list) or an address (--disasm). */
typedef struct node {
	uint32_t fn, dso, file; /* ids in A.names, A.dsos, A.files */
	int64_t line, start;    /* -list: the line, the function's first line (0: unknown) */
	uint64_t addr;          /* --disasm: the address, or the offset in fn when rel */
	bool rel;
	num flat, cum;
	uint64_t stamp;         /* the last stack that added to cum */
} node;

static struct {
	metric_pick metric;
	const char *event;      /* of the file being read; NULL: any */
	strmap names, dsos, files, keys;
	uint8_t *name_state;    /* per name: 0 not looked at, 1 matches, 2 not */
	uint32_t nscap;
	node *n;
	uint32_t nn, ncap;
	num total;
	uint64_t stamp;
	/* per frame index of the file being read: 0 not looked at, 1 no node,
	 * else node + 2 */
	uint32_t *fnode, fncap;
	uint32_t *fnode2;       /* the same for stacks that keep no addresses */
	uint64_t noaddr;        /* stacks without x_addr_id */
	int64_t *fstart;        /* per frame index: x_start_line, 0 when absent */
	uint32_t fscap;
	bool any;               /* a stack of the event had the metric */
	bool hinted, addr_lost; /* a frame without srcline had an address the stack did not keep */            /* something went wrong that the output says */
} A;

static uint32_t intern(strmap *m, const char *p, size_t n)
{
	bool added;
	return strmap_intern(m, p, n, &added);
}

static const char *key_of(const strmap *m, uint32_t i)
{
	size_t n;
	return strmap_key(m, i, &n);
}

static bool name_matches(uint32_t id)
{
	if (id >= A.nscap) {
		uint32_t old = A.nscap;
		grow_array((void **)&A.name_state, &A.nscap, id + 1, 1);
		memset(A.name_state + old, 0, A.nscap - old);
	}
	if (!A.name_state[id])
		A.name_state[id] = regexec(&re, key_of(&A.names, id), 0, NULL, 0) == 0 ? 1 : 2;
	return A.name_state[id] == 1;
}

static bool parse_hex(const char *s, uint64_t *v)
{
	if (!s || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !c_hex(s[2])) return false;
	uint64_t x = 0;
	for (const char *p = s + 2; *p; p++) {
		int d = c_hexval(*p);
		if (d < 0 || x >> 60) return false;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return true;
}

/* "file:line" split at its last ':' before digits; no such ':': the whole
 * as the file, line 0. */
static void split_srcline(const char *s, size_t n, size_t *fn, int64_t *line)
{
	size_t i = n;
	while (i > 0 && c_digit(s[i - 1])) i--;
	*fn = n;
	*line = 0;
	if (i == n || i == 0 || s[i - 1] != ':' || n - i > 18) return;
	int64_t v = 0;
	for (size_t k = i; k < n; k++) v = v * 10 + (s[k] - '0');
	*fn = i - 1;
	*line = v;
}

/* ---- --disasm ---------------------------------------------------------- */

typedef struct insn {
	uint64_t addr;
	char *text, *loc;       /* the instruction; "func file:line" where it changed, or NULL */
	uint32_t src;           /* its source file (an id in A.srcs), UINT32_MAX none */
	int64_t line;           /* and line, as objdump -l prints them */
	num flat, cum;
} insn;

/* The disassembly of one function of one dso, made once. */
typedef struct dis {
	insn *in;
	uint32_t nin;
	uint64_t start;         /* where the function starts */
	char *err;              /* why there is none */
} dis;

static struct {
	strmap keys, srcs;      /* (function, dso) -> index; objdump's file names */
	dis *d;
	uint32_t n, cap;
} D;

/* Runs argv with file descriptor fd as its descriptor 3, its standard
 * output into *out; 0, or -1 with the reason in *err. */
static int run(char *const argv[], int fd, sbuf *out, sbuf *err)
{
	int p[2];
	if (pipe(p) < 0) {
		sbuf_printf(err, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		sbuf_printf(err, "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		/* (the file opened under --root, a regular file: objdump reads
		 * that one, not whatever the path names by now) */
		if (fd == 3) fcntl(3, F_SETFD, 0);
		else if (dup2(fd, 3) < 0) _exit(127);
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		FILE *dn = freopen("/dev/null", "w", stderr);
		(void)dn;
		execvp(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	char buf[65536];
	for (;;) {
		ssize_t k = read(p[0], buf, sizeof buf);
		if (k < 0 && errno == EINTR) continue;
		if (k <= 0) break;
		sbuf_add(out, buf, (size_t)k);
	}
	close(p[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			sbuf_printf(err, "waitpid: %s", strerror(errno));
			return -1;
		}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		sbuf_printf(err, "cannot run %s", argv[0]);
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		sbuf_printf(err, "%s failed (status %d)", argv[0], WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
		return -1;
	}
	return 0;
}

/* objdump -d -l of function fn in the file open as fd (named path):
 * its instructions, the address where fn starts in *start. */
static int disassemble(int fd, const char *path, const char *fn, insn **out, uint32_t *nout, uint64_t *start, sbuf *err)
{
	sbuf text = { 0 }, sel = { 0 };
	sbuf_printf(&sel, "--disassemble=%s", fn);
	char *argv[] = { (char *)opt.objdump, (char *)"-d", (char *)"-l", (char *)"--no-show-raw-insn",
			 (char *)"-w", sel.p, (char *)"--", (char *)"/dev/fd/3", NULL };
	int rc = run(argv, fd, &text, err);
	sbuf_free(&sel);
	if (rc < 0) {
		sbuf_free(&text);
		return -1;
	}
	uint32_t cap = 0;
	bool have_start = false, in = false;
	char *func = NULL, *src = NULL;
	bool changed = false;
	uint32_t sfile = UINT32_MAX;
	int64_t sline = 0;
	sbuf_add(&text, "", 0);
	for (char *l = text.p, *e; l && *l; l = e) {
		e = strchr(l, '\n');
		if (e) *e++ = 0;
		size_t n = strlen(l);
		uint64_t a = 0;
		char *p = l;
		if (c_hex(*p)) { /* "0000000000001139 <mix>:" */
			char *q = p;
			while (c_hex(*q)) a = a << 4 | (uint64_t)c_hexval(*q++);
			if (q[0] == ' ' && q[1] == '<' && n >= 3 && !strcmp(l + n - 2, ">:")) {
				in = !strncmp(q + 2, fn, strlen(fn)) && q + 2 + strlen(fn) == l + n - 2;
				if (in && !have_start) *start = a, have_start = true;
				continue;
			}
		}
		if (!in) continue;
		if (*p == ' ') {
			while (*p == ' ') p++;
			char *q = p;
			a = 0;
			while (c_hex(*q)) a = a << 4 | (uint64_t)c_hexval(*q++);
			if (q > p && q[0] == ':' && q[1] == '\t') {
				insn *x = VEC_PUSH(*out, *nout, cap);
				x->addr = a;
				x->text = xstrdup(q + 2);
				x->flat = x->cum = num_i(0);
				x->loc = NULL;
				x->src = sfile;
				x->line = sline;
				if (changed) {
					sbuf s = { 0 };
					if (func) sbuf_printf(&s, "%s", func);
					if (src) sbuf_printf(&s, "%s%s", func ? " " : "", src);
					x->loc = s.p ? s.p : xstrdup("");
					changed = false;
				}
				continue;
			}
		}
		if (n > 3 && !strcmp(l + n - 3, "():") && !strchr(l, ' ')) { /* "mix():" */
			free(func);
			func = xmemdup(l, n - 3);
			changed = true;
		} else if (*l == '/' || (strchr(l, ':') && !strchr(l, '\t'))) { /* "/src/hot.c:17 (discriminator 1)" */
			char *d = strstr(l, " (discriminator");
			if (d) *d = 0;
			if (!src || strcmp(src, l)) {
				free(src);
				src = xstrdup(l);
				changed = true;
				size_t fl;
				split_srcline(l, strlen(l), &fl, &sline);
				sfile = intern(&D.srcs, l, fl);
			}
		}
	}
	free(func);
	free(src);
	sbuf_free(&text);
	if (!have_start) {
		sbuf_printf(err, "objdump shows no function %s in %s", fn, path);
		return -1;
	}
	return 0;
}

/* The disassembly of function fn (an id in A.names) of dso (in A.dsos). */
static dis *get_dis(uint32_t fn, uint32_t dso)
{
	uint32_t kb[2] = { fn, dso };
	bool added;
	uint32_t i = strmap_intern(&D.keys, kb, sizeof kb, &added);
	if (!added) return &D.d[i];
	grow_array((void **)&D.d, &D.cap, i + 1, sizeof *D.d);
	D.n = i + 1;
	dis *d = &D.d[i];
	memset(d, 0, sizeof *d);
	const char *dn = key_of(&A.dsos, dso), *fname = key_of(&A.names, fn);
	sbuf host = { 0 }, err = { 0 };
	int why = 0;
	int fd = *dn ? rp_open(opt.root, dn, &host, &why) : -1;
	if (fd < 0) {
		sbuf_printf(&err, "%s: %s", *dn ? dn : "(no dso)", *dn ? rp_why_text(why) : "no file to disassemble");
	} else {
		disassemble(fd, dn, fname, &d->in, &d->nin, &d->start, &err);
		close(fd);
	}
	if (err.n) d->err = xstrdup(err.p);
	sbuf_free(&host);
	sbuf_free(&err);
	return d;
}

/* The instruction address a (an offset from the start when rel) is in, as
 * pprof's annotateAssembly puts it: the last that starts at or before it
 * (the first for an address before them all); UINT32_MAX when none. */
static uint32_t insn_at(const dis *d, uint64_t a, bool rel)
{
	if (!d->nin) return UINT32_MAX;
	if (rel) a += d->start;
	uint32_t b = 0, e = d->nin;
	while (b < e) {
		uint32_t mid = b + (e - b) / 2;
		if (d->in[mid].addr <= a) b = mid + 1;
		else e = mid;
	}
	return b ? b - 1 : 0;
}

static void dis_free(void)
{
	for (uint32_t i = 0; i < D.n; i++) {
		for (uint32_t k = 0; k < D.d[i].nin; k++) {
			free(D.d[i].in[k].text);
			free(D.d[i].in[k].loc);
		}
		free(D.d[i].in);
		free(D.d[i].err);
	}
	free(D.d);
	strmap_free(&D.keys);
	strmap_free(&D.srcs);
}

/* The node of frame f of reader r (an index into r->frames), or UINT32_MAX. */
static uint32_t frame_node(spaa_reader *r, uint32_t f, bool addr_ok)
{
	if (f >= A.fncap) {
		uint32_t old = A.fncap;
		grow_array((void **)&A.fnode, &A.fncap, f + 1, sizeof *A.fnode);
		memset(A.fnode + old, 0, (A.fncap - old) * sizeof *A.fnode);
		A.fnode2 = xrealloc(A.fnode2, (size_t)A.fncap * sizeof *A.fnode2);
		memset(A.fnode2 + old, 0, (A.fncap - old) * sizeof *A.fnode2);
	}
	uint32_t *cache = addr_ok ? &A.fnode[f] : &A.fnode2[f];
	if (*cache) return *cache == 1 ? UINT32_MAX : *cache - 2;
	*cache = 1;
	const spaa_frame *fr = &r->frames[f];
	if (!fr->func_resolved || !fr->func_n) return UINT32_MAX;
	uint32_t fn = intern(&A.names, fr->func, fr->func_n);
	if (!name_matches(fn)) return UINT32_MAX;
	const char *dn = fr->dso < r->dso_ids.count ? r->dsos[fr->dso].name : "";
	node k = { 0 };
	k.fn = fn;
	k.dso = intern(&A.dsos, dn ? dn : "", dn ? strlen(dn) : 0);
	if (opt.disasm) {
		/* inlined frames share their physical frame's address: the
		 * instructions are the physical function's (pprof's -disasm
		 * takes no inlined functions either) */
		if (fr->inlined) return UINT32_MAX;
		uint64_t v;
		if (parse_hex(fr->symoff, &v)) k.rel = true, k.addr = v;
		else if (parse_hex(fr->ip, &v)) k.addr = v;
		else return UINT32_MAX;
	} else {
		sbuf t = { 0 }, c = { 0 };
		const char *sl = fr->srcline;
		size_t sn = fr->srcline_n;
		uint64_t v;
		bool rel = false;
		if ((!sl || !sn) && !addr_ok && (fr->symoff || fr->ip)) A.addr_lost = true;
		if ((!sl || !sn) && addr_ok && !fr->inlined &&
		    ((rel = parse_hex(fr->symoff, &v)) || parse_hex(fr->ip, &v))) {
			/* no srcline: objdump -l's line at the frame's address */
			dis *d = get_dis(k.fn, k.dso);
			uint32_t at = d->err ? UINT32_MAX : insn_at(d, v, rel);
			if (at != UINT32_MAX && d->in[at].src != UINT32_MAX) {
				sl = strmap_key(&D.srcs, d->in[at].src, &sn);
				k.line = d->in[at].line;
				sn = strlen(sl);
			} else {
				sl = NULL;
			}
			if (sl) {
				char *raw = xmemdup(sl, sn);
				sp_trim(raw, opt.trim_path, opt.source_path, &t);
				sp_clean(t.p, t.n, &c);
				free(raw);
			} else {
				sbuf_add(&c, "", 0);
			}
		} else if (sl && sn) {
			size_t fl;
			split_srcline(fr->srcline, fr->srcline_n, &fl, &k.line);
			char *raw = xmemdup(fr->srcline, fl);
			/* as pprof's report: the name trimmed, then cleaned */
			sp_trim(raw, opt.trim_path, opt.source_path, &t);
			sp_clean(t.p, t.n, &c);
			free(raw);
		} else {
			sbuf_add(&c, "", 0);
		}
		k.file = intern(&A.files, c.p, c.n);
		sbuf_free(&t);
		sbuf_free(&c);
		k.start = f < A.fscap ? A.fstart[f] : 0;
	}
	uint64_t kb[6] = { k.fn, k.dso, k.file, (uint64_t)k.line, (uint64_t)k.start, k.addr * 2 + k.rel };
	bool added;
	uint32_t i = strmap_intern(&A.keys, kb, sizeof kb, &added);
	if (added) {
		grow_array((void **)&A.n, &A.ncap, i + 1, sizeof *A.n);
		k.flat = k.cum = num_i(0);
		A.n[i] = k;
		A.nn = i + 1;
	}
	*cache = i + 2;
	return i;
}

/* A frame record: its x_start_line (pprof's Function.start_line), which
 * pprof begins a function's listing with. */
static void take_frame(spaa_reader *r)
{
	if (opt.disasm || r->fast) return;
	uint32_t k = json_get(&r->doc, 0, "x_start_line");
	if (!k || r->doc.nodes[k].type != JSON_INT || r->doc.nodes[k].v.i <= 0) return;
	sstr id;
	uint32_t idn = json_get(&r->doc, 0, "id");
	if (!idn || !spaa_id_key(r, idn, &id)) return;
	int64_t f = strmap_find(&r->frame_ids, id.p, id.n);
	if (f < 0) return;
	if ((uint64_t)f >= A.fscap) {
		uint32_t old = A.fscap;
		grow_array((void **)&A.fstart, &A.fscap, (uint32_t)f + 1, sizeof *A.fstart);
		memset(A.fstart + old, 0, (A.fscap - old) * sizeof *A.fstart);
	}
	A.fstart[f] = r->doc.nodes[k].v.i;
}

static bool is_negative(num v)
{
	return v.kind == NUM_INT ? v.i < 0 : v.kind == NUM_DBL ? v.d < 0 : false;
}

static void add_stack(spaa_reader *r, const spaa_stack *st, num w)
{
	/* the stack keeps its frames' addresses (perf2spaa and pprof2spaa
	 * --addresses): without, a frame's ip is that of one of the addresses
	 * of its function (or line) */
	bool addr_ok = !r->fast && st->context && json_get(&r->doc, st->context, "x_addr_id");
	if (!addr_ok) A.noaddr++;
	/* pprof's total: the magnitudes of all samples */
	if (!(is_negative(w) ? num_sub(&A.total, w) : num_add(&A.total, w)))
		spaa_error(r, "weights add up beyond 64 bits");
	if (num_is_zero(w) || !st->nframes) return;
	A.stamp++;
	for (uint32_t i = 0; i < st->nframes; i++) {
		uint32_t k = frame_node(r, st->frames[i], addr_ok);
		if (k == UINT32_MAX || A.n[k].stamp == A.stamp) continue;
		A.n[k].stamp = A.stamp;
		if (!num_add(&A.n[k].cum, w)) spaa_error(r, "weights add up beyond 64 bits");
	}
	/* the leaf: for --disasm the innermost physical frame */
	uint32_t leaf = UINT32_MAX;
	for (uint32_t j = 0; j < st->nframes; j++) {
		uint32_t f = r->leaf_first ? st->frames[j] : st->frames[st->nframes - 1 - j];
		if (opt.disasm && r->frames[f].inlined) continue;
		leaf = f;
		break;
	}
	if (leaf == UINT32_MAX) return;
	uint32_t k = frame_node(r, leaf, addr_ok);
	if (k != UINT32_MAX && !num_add(&A.n[k].flat, w)) spaa_error(r, "weights add up beyond 64 bits");
}

static void take_header(spaa_reader *r)
{
	int32_t event = fold_pick_event(r, opt.event, true);
	if (!opt.event && r->nevents > 1)
		warn_at(r->name, r->lineno, "%u events; annotating only %s (use --event)",
			r->nevents, r->events[0].name ? r->events[0].name : "the first");
	A.event = event >= 0 ? r->events[event].name : NULL;
	if (!A.metric.want) metric_pick_init(&A.metric, fold_pick_metric(r, event, opt.metric), A.event);
}

/* The readers, closed at the end: the event and metric names point into
 * the first one's dictionaries. */
static spaa_reader **readers;
static uint32_t nreaders, rcap;

static void load(const char *path)
{
	spaa_reader *r = spaa_open_any(path);
	spaa_stack st = { 0 };
	enum spaa_rtype t;
	A.stamp++;
	if (A.fnode) memset(A.fnode, 0, A.fncap * sizeof *A.fnode);
	if (A.fnode2) memset(A.fnode2, 0, A.fncap * sizeof *A.fnode2);
	if (A.fstart) memset(A.fstart, 0, A.fscap * sizeof *A.fstart);
	while ((t = spaa_next(r)) != SPAA_EOF) {
		if (t == SPAA_HEADER) take_header(r);
		if (t == SPAA_FRAME) take_frame(r);
		if (t != SPAA_STACK || spaa_stack_parse(r, &st) < 0) continue;
		if (A.event && !sstr_eqc(st.event_name, A.event)) continue;
		const spaa_weight *w = metric_find(&A.metric, st.w, st.nw);
		if (!w) continue;
		units u = metric_units(w, A.event, A.event ? strlen(A.event) : 0);
		if (u.dim != A.metric.unit.dim || u.factor != A.metric.unit.factor)
			spaa_error(r, "metric '%s' is in %s here but in %s in the stacks before: not added up",
				   metric_pick_name(&A.metric), u.name, A.metric.unit.name);
		A.any = true;
		add_stack(r, &st, w->value);
	}
	spaa_stack_free(&st);
	spaa_need_header(r);
	metric_check(&A.metric, r->name, A.event);
	*VEC_PUSH(readers, nreaders, rcap) = r;
}

/* ---- output ---------------------------------------------------------- */

/* *acc += v, or exit 1: the sums of a listing never wrap */
static void sum(num *acc, num v)
{
	if (!num_add(acc, v)) die_input("weights add up beyond 64 bits");
}

static long double ld(num v)
{
	return v.kind == NUM_INT ? (long double)v.i : v.kind == NUM_UINT ? (long double)v.u : (long double)v.d;
}

/* A figure as pprof's ScaledLabel prints it: each in its own unit ("10ms",
 * "1.36s"), counts as plain numbers ("136"); exact with --raw-units. */
static const char *fig(num v, char *b)
{
	if (A.metric.unit.dim == UNITS_COUNT && !opt.uo.raw) {
		long double x = ld(v);
		if (x == (long double)(int64_t)x && x < 9.2e18L && x > -9.2e18L) {
			snprintf(b, UNITS_BUF, "%lld", (long long)(int64_t)x);
		} else {
			snprintf(b, UNITS_BUF, "%.2Lf", x);
			size_t n = strlen(b);
			if (n > 3 && !strcmp(b + n - 3, ".00")) b[n - 3] = 0;
		}
		if (!strcmp(b, "-0")) strcpy(b, "0");
		return b;
	}
	units_scale sc = units_auto(&A.metric.unit, &opt.uo, ld(v) < 0 ? -ld(v) : ld(v));
	units_fmt(b, ld(v), &sc);
	return b;
}

static const char *fig_dot(num v, char *b)
{
	return num_is_zero(v) ? "." : fig(v, b);
}

static void put_head(output *o, num flat, num cum)
{
	char b1[UNITS_BUF], b2[UNITS_BUF], p[16];
	units_pct(p, ld(cum), ld(A.total));
	out_printf(o, "%10s %10s (flat, cum) %s of Total\n", fig(flat, b1), fig(cum, b2), p);
}

static uint32_t *order;      /* node indices */
static int cmp_fn(const void *a, const void *b)
{
	const node *x = &A.n[*(const uint32_t *)a], *y = &A.n[*(const uint32_t *)b];
	int c = strcmp(key_of(&A.names, x->fn), key_of(&A.names, y->fn));
	if (!c && opt.disasm) c = strcmp(key_of(&A.dsos, x->dso), key_of(&A.dsos, y->dso));
	if (!c && !opt.disasm) c = strcmp(key_of(&A.files, x->file), key_of(&A.files, y->file));
	if (!c) c = *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1; /* first seen first */
	return c;
}

/* The nodes to show, by function (then dso or file), each group's in the
 * order first seen; pprof leaves out the nodes with no weight. */
static uint32_t sorted_nodes(void)
{
	uint32_t m = 0;
	order = xmalloc(((size_t)A.nn + 1) * sizeof *order);
	for (uint32_t i = 0; i < A.nn; i++)
		if (!num_is_zero(A.n[i].flat) || !num_is_zero(A.n[i].cum)) order[m++] = i;
	xqsort(order, m, sizeof *order, cmp_fn);
	return m;
}

/* The figures of each ROUTINE added up before anything is written: a sum
 * beyond 64 bits is an error (exit 1), not a listing cut short. */
static void check_sums(uint32_t m)
{
	num flat = num_i(0), cum = num_i(0);
	for (uint32_t i = 0; i < m; i++) {
		const node *n = &A.n[order[i]], *p = i ? &A.n[order[i - 1]] : NULL;
		if (p && (p->fn != n->fn || (opt.disasm ? p->dso != n->dso : p->file != n->file)))
			flat = cum = num_i(0);
		sum(&flat, n->flat);
		sum(&cum, n->cum);
	}
}

/* The source of one function in one file: order[lo..hi). */
static void list_file(output *o, uint32_t lo, uint32_t hi)
{
	const node *n0 = &A.n[order[lo]];
	const char *fname = key_of(&A.names, n0->fn), *file = key_of(&A.files, n0->file);
	num flat = num_i(0), cum = num_i(0);
	/* the range as pprof's getSourceFromFile makes it: 5 lines around
	 * the first node's line (or from its function's first line), widened
	 * by each node in turn */
	const int64_t margin = 5;
	int64_t start = n0->start ? n0->start : n0->line - margin, end = n0->line + margin;
	for (uint32_t j = lo; j < hi; j++) {
		const node *n = &A.n[order[j]];
		sum(&flat, n->flat);
		sum(&cum, n->cum);
		int64_t ns = n->start ? n->start : n->line - margin, ne = n->line + margin;
		if (ns < start) start = ns;
		else if (ne > end) end = ne;
	}
	if (start < 1) start = 1;
	sp_file sf;
	sp_read(&sf, file, opt.source_path, opt.trim_path);
	out_printf(o, "ROUTINE ======================== %s in %s\n", fname, file);
	put_head(o, flat, cum);
	if (sf.err) {
		out_printf(o, " Error: %s\n", sf.err); /* (as pprof: in the listing only) */
		sp_free(&sf);
		return;
	}
	for (int64_t l = start; l <= end && l <= (int64_t)sf.nlines; l++) {
		num lf = num_i(0), lc = num_i(0);
		for (uint32_t j = lo; j < hi; j++) {
			const node *n = &A.n[order[j]];
			if (n->line != l) continue;
			sum(&lf, n->flat);
			sum(&lc, n->cum);
		}
		char b1[UNITS_BUF], b2[UNITS_BUF];
		out_printf(o, "%10s %10s %6lld:%s\n", fig_dot(lf, b1), fig_dot(lc, b2), (long long)l,
			   sf.text + sf.line[l - 1]);
	}
	sp_free(&sf);
}

static void put_list(output *o, uint32_t m)
{
	for (uint32_t i = 0; i < m;) {
		uint32_t fn = A.n[order[i]].fn, e = i;
		bool any_file = false;
		while (e < m && A.n[order[e]].fn == fn) {
			if (*key_of(&A.files, A.n[order[e]].file)) any_file = true;
			e++;
		}
		if (!any_file) {
			out_printf(o, "No source information for %s\n", key_of(&A.names, fn));
			if (A.addr_lost && !A.hinted) {
				warnmsg("%s: no source lines: its frames have no srcline, and the stacks keep no addresses "
					"to find them at (convert with perf2spaa --addresses)", key_of(&A.names, fn));
				A.hinted = true;
			}
			i = e;
			continue;
		}
		for (uint32_t j = i; j < e;) {
			uint32_t file = A.n[order[j]].file, k = j;
			while (k < e && A.n[order[k]].file == file) k++;
			if (*key_of(&A.files, file)) list_file(o, j, k);
			j = k;
		}
		i = e;
	}
}

static void put_disasm_group(output *o, uint32_t lo, uint32_t hi)
{
	const node *n0 = &A.n[order[lo]];
	const char *fname = key_of(&A.names, n0->fn), *dso = key_of(&A.dsos, n0->dso);
	num flat = num_i(0), cum = num_i(0);
	for (uint32_t j = lo; j < hi; j++) {
		sum(&flat, A.n[order[j]].flat);
		sum(&cum, A.n[order[j]].cum);
	}
	out_printf(o, "ROUTINE ======================== %s in %s\n", fname, dso);
	put_head(o, flat, cum);
	dis *d = get_dis(n0->fn, n0->dso);
	if (d->err) {
		out_printf(o, " Error: %s\n", d->err); /* (in the listing only, as -list's) */
		return;
	}
	for (uint32_t i = 0; i < d->nin; i++) d->in[i].flat = d->in[i].cum = num_i(0);
	for (uint32_t j = lo; j < hi; j++) {
		const node *n = &A.n[order[j]];
		uint32_t at = insn_at(d, n->addr, n->rel);
		if (at == UINT32_MAX) continue;
		sum(&d->in[at].flat, n->flat);
		sum(&d->in[at].cum, n->cum);
	}
	long double fl = ld(flat);
	for (uint32_t i = 0; i < d->nin; i++) {
		const insn *x = &d->in[i];
		char b1[UNITS_BUF], b2[UNITS_BUF];
		double pct = fl != 0 ? (double)(ld(x->flat) / fl * 100) : 0;
		out_printf(o, "%10s %10s %7.2f %10llx: ", fig_dot(x->flat, b1), fig_dot(x->cum, b2), pct,
			   (unsigned long long)x->addr);
		if (!x->loc) out_printf(o, "%s\n", x->text);
		else if (strlen(x->text) < 40) out_printf(o, "%-40s;%s\n", x->text, x->loc);
		else out_printf(o, "%s\n%64s;%s\n", x->text, "", x->loc);
	}
}

static void put_disasm(output *o, uint32_t m)
{
	for (uint32_t i = 0; i < m;) {
		uint32_t fn = A.n[order[i]].fn, dso = A.n[order[i]].dso, e = i;
		while (e < m && A.n[order[e]].fn == fn && A.n[order[e]].dso == dso) e++;
		put_disasm_group(o, i, e);
		i = e;
	}
}

/* ---- main -------------------------------------------------------------- */

enum { OPT_SOURCE_PATH = 600, OPT_TRIM_PATH, OPT_DISASM, OPT_OBJDUMP, OPT_ROOT, OPT_EVENT };

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "source-path", required_argument, 0, OPT_SOURCE_PATH },
		{ "trim-path", required_argument, 0, OPT_TRIM_PATH },
		{ "disasm", no_argument, 0, OPT_DISASM },
		{ "objdump", required_argument, 0, OPT_OBJDUMP },
		{ "root", required_argument, 0, OPT_ROOT },
		{ "event", required_argument, 0, OPT_EVENT },
		{ "metric", required_argument, 0, 'm' },
		{ "ignore-case", no_argument, 0, 'i' },
		CLI_OUT_LONGOPTS,
		{ "raw-units", no_argument, 0, UNITS_OPT_RAW },
		{ "iec", no_argument, 0, UNITS_OPT_IEC },
		READERS_LONGOPTS,
		CLI_STD_LONGOPTS,
		{ 0, 0, 0, 0 }
	};
	cli_init(argc, argv);
	int c;
	while ((c = getopt_long(argc, argv, "m:iso:zhV", longopts, NULL)) != -1) {
		if (units_opts_take(&opt.uo, c)) continue;
		switch (c) {
		case OPT_SOURCE_PATH: opt.source_path = optarg; break;
		case OPT_TRIM_PATH: opt.trim_path = optarg; break;
		case OPT_DISASM: opt.disasm = true; break;
		case OPT_OBJDUMP:
			if (!*optarg) usage_error("--objdump: an empty name");
			opt.objdump = optarg;
			break;
		case OPT_ROOT: opt.root = optarg; break;
		case OPT_EVENT: opt.event = optarg; break;
		case 'm': opt.metric = optarg; break;
		case 'i': opt.icase = true; break;
		CLI_OUT_CASES(opt.outpath, opt.zstd);
		READERS_OPT_CASES;
		CLI_STD_CASES(usage);
		}
	}
	if (optind >= argc) usage_error("a REGEX is needed: the functions to annotate");
	const char *pattern = argv[optind++];
	int rc = regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB | (opt.icase ? REG_ICASE : 0));
	if (rc != 0) {
		char msg[256];
		regerror(rc, &re, msg, sizeof msg);
		usage_error("'%s': %s", pattern, msg);
	}
	static char stdin_name[] = "-";
	static char *dash[] = { stdin_name };
	char **files = optind < argc ? argv + optind : dash;
	int nfiles = optind < argc ? argc - optind : 1;
	cli_stdin_once(files, nfiles);

	strmap_init(&A.names);
	strmap_init(&A.dsos);
	strmap_init(&A.files);
	strmap_init(&A.keys);
	strmap_init(&D.keys);
	strmap_init(&D.srcs);
	A.total = num_i(0);
	for (int i = 0; i < nfiles; i++) load(files[i]);

	if (opt.disasm && A.noaddr)
		die(EXIT_DATA, "%s: %llu stack%s without their addresses (no x_addr_id): --disasm needs a profile "
		    "converted with perf2spaa --addresses or pprof2spaa --addresses", nfiles == 1 ? files[0] : "the profiles",
		    (unsigned long long)A.noaddr, A.noaddr == 1 ? "" : "s");
	uint32_t m = sorted_nodes();
	if (!m)
		die(EXIT_DATA, "%s: no function matching '%s' in the stacks of event %s%s", nfiles == 1 ? files[0] : "the profiles",
		    pattern, A.event ? A.event : "(any)",
		    opt.disasm ? " with an address (ip or symoff)" : "");

	check_sums(m);
	output *o = output_open(opt.outpath, opt.zstd);
	char b[UNITS_BUF];
	out_printf(o, "Total: %s\n", fig(A.total, b));
	if (opt.disasm) put_disasm(o, m);
	else put_list(o, m);
	output_close(o);

	free(order);
	free(A.n);
	free(A.fnode);
	free(A.fnode2);
	free(A.fstart);
	free(A.name_state);
	strmap_free(&A.names);
	strmap_free(&A.dsos);
	strmap_free(&A.files);
	strmap_free(&A.keys);
	metric_pick_free(&A.metric);
	dis_free();
	for (uint32_t i = 0; i < nreaders; i++) spaa_close(readers[i]);
	free(readers);
	regfree(&re);
	return EXIT_OK;
}
