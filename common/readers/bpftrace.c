/* bpftrace2spaa - the maps bpftrace prints (at exit, or on print(@m)) to SPAA.
 *
 * bpftrace prints a map entry as "@name[" KEY ", " KEY ... "]: " VALUE, or
 * "@name: " VALUE for a map without keys.  A stack key (kstack, ustack, in
 * any mode, with any depth) is a line break, then its frames one a line,
 * indented, innermost first; an empty stack is printed as nothing.  So the
 * lines of an entry are: the first one ("@name[" and the scalar keys before
 * the first stack, ending with ", " when a stack follows), frame lines, and
 * after each stack a line starting with "," (more keys) or "]" (the end).
 * A frame is "sym+off" or "0xADDR" (the default mode) or "ADDR sym+off
 * (dso)" (the perf mode; kernel frames have no dso).  Histograms (hist(),
 * lhist()) print an empty value and their buckets on the following lines,
 * stats() "count N, average N, total N": those are refused.
 *
 * Each map is one event, named as bpftrace prints the map.  The stacks of
 * one entry become one stack: its kernel frames, then its user frames (a
 * "unified" stack, as perf records one).  Identical stacks are summed by the
 * builder; an entry is held in memory only while it is read. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readers.h"
#include "build.h"
#include "reader.h"
#include "cli.h"
#include "sniff.h"
#include "input.h"
#include "jsonbuf.h"
#include "output.h"
#include "spaa.h"
#include "strmap.h"
#include "util.h"

static const char help[] =
	"Usage: bpftrace2spaa [OPTION]... [FILE]...\n"
	"Convert the maps bpftrace prints (@name[ustack, kstack, comm, ...]: count)\n"
	"to a SPAA 1.0 profile.\n"
	"\n"
	"Reads each FILE (or standard input when none or \"-\"), plain, gzip or zstd:\n"
	"what bpftrace printed at exit or on print(@map), in the default or the perf\n"
	"stack mode.  Each map is an event named as bpftrace prints it (\"@\",\n"
	"\"@bytes\"); the kernel and user stacks of an entry are one stack, kernel\n"
	"frames first.  Maps of count() and sum() values are read; hist(), lhist()\n"
	"and stats() maps are refused (leave them out with --map).\n"
	"\n"
	"  -F, --frequency=HZ   the maps count the samples of a profile:hz:HZ probe\n"
	"                       (event kind timer, metric \"samples\"); otherwise each\n"
	"                       value is a count of events (metric \"count\")\n"
	"  -k, --keys=[@MAP=]LIST  the keys of the maps (or of map @MAP), comma-\n"
	"                       separated, in the order of the map's key: kstack,\n"
	"                       ustack, comm, pid, tid, cpu, or any other name\n"
	"                       (context x_NAME); default: stacks told by their\n"
	"                       frames, the first text key is the comm, the first\n"
	"                       number the pid\n"
	"      --map=NAME       read only the map NAME (\"@\", \"@bytes\"; repeatable)\n"
	"  -m, --metric=[@MAP=]NAME  the metric of the values (of map @MAP), e.g.\n"
	"                       bytes for a sum(); default count (samples with -F)\n"
	"  -q, --quiet          no warnings about maps without a stack\n"
	CLI_HELP_TAIL;

enum keykind { K_GUESS, K_KSTACK, K_USTACK, K_COMM, K_PID, K_TID, K_CPU, K_OTHER };

/* A --keys list: one kind (and name) per key position. */
struct keylist {
	uint32_t n;
	enum keykind *kind;
	char **name;
};

/* A per-map option value: for @MAP (map "" for every map). */
struct mapopt {
	const char *map; /* "@..." or NULL: the default */
	const char *val;
	struct keylist keys; /* --keys only */
};

struct map {
	uint32_t event, metric;
	bool declared;              /* event and metric made */
	bool selected;
	const struct keylist *keys; /* NULL: guessed */
	char *poskind;              /* per key position: 'k', 'u' or 0, learned */
	uint32_t nposkind;
	uint64_t nentries, nflat;   /* entries, entries without a stack key */
	uint64_t first_line;
	uint64_t nopid_addrs;       /* user frames without a symbol in entries without a pid */
};

/* One key of the entry being read. */
struct key {
	bool stack;
	uint32_t off, len;  /* scalar: its text in B.sb */
	uint32_t fl0, fl1;  /* stack: its frame lines [fl0, fl1) */
	char kind;          /* stack: 'k', 'u' or '?' */
};

static struct {
	builder *b;
	/* options */
	uint64_t freq;
	bool have_freq, quiet;
	struct mapopt *metrics, *keyopts;
	uint32_t nmetrics, mcap, nkeyopts, kcap;
	char **only;
	uint32_t nonly, onlycap;
	/* maps, by name */
	strmap mapnames;
	struct map *maps;
	uint32_t mapcap;
	/* the entry being read */
	int32_t cur;                /* map index, -1 none */
	bool skip;                  /* not a selected map: read, not kept */
	struct key *keys;
	uint32_t nkeys, keycap;
	struct { uint32_t off, len; } *fl;
	uint32_t nfl, flcap;
	sbuf sb;
	uint64_t entry_line;
	/* frames: cache of (line, kind) -> frame index */
	strmap fcache;
	uint32_t *fval;
	uint32_t fvcap;
	uint32_t *fr;
	uint32_t nfr, frcap;
	uint32_t nostack;           /* the placeholder frame + 1, 0 none */
	sbuf key, extra, tmp;
	const char *fname;
	uint64_t nstacks;
} B;


static bool all_hex(const char *p, size_t n)
{
	if (!n) return false;
	for (size_t i = 0; i < n; i++)
		if (!c_hex(p[i])) return false;
	return true;
}

static bool all_digits(const char *p, size_t n)
{
	if (n > 1 && p[0] == '-') p++, n--;
	if (!n) return false;
	for (size_t i = 0; i < n; i++)
		if (!c_digit(p[i])) return false;
	return true;
}

static bool has_text(const char *p, size_t n, const char *t)
{
	size_t tn = strlen(t);
	for (size_t i = 0; i + tn <= n; i++)
		if (!memcmp(p + i, t, tn)) return true;
	return false;
}

/* ---- options ------------------------------------------------------------ */

static void parse_keylist(const char *arg, const char *list, struct keylist *kl)
{
	const char *s = list;
	for (;;) {
		const char *e = strchr(s, ',');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		if (n == 0) usage_error("--keys: empty key name in '%s'", arg);
		char *name = xmemdup(s, n);
		for (size_t i = 0; i < n; i++)
			if (!(c_digit(name[i]) || (name[i] >= 'a' && name[i] <= 'z') ||
			      (name[i] >= 'A' && name[i] <= 'Z') || name[i] == '_'))
				usage_error("--keys: bad key name '%s'", name);
		enum keykind k = K_OTHER;
		if (!strcmp(name, "kstack")) k = K_KSTACK;
		else if (!strcmp(name, "ustack")) k = K_USTACK;
		else if (!strcmp(name, "comm")) k = K_COMM;
		else if (!strcmp(name, "pid")) k = K_PID;
		else if (!strcmp(name, "tid")) k = K_TID;
		else if (!strcmp(name, "cpu")) k = K_CPU;
		uint32_t cap = kl->n;
		grow_array((void **)&kl->kind, &cap, kl->n + 1, sizeof *kl->kind);
		cap = kl->n;
		grow_array((void **)&kl->name, &cap, kl->n + 1, sizeof *kl->name);
		kl->kind[kl->n] = k;
		kl->name[kl->n] = name;
		kl->n++;
		if (!e) break;
		s = e + 1;
	}
}

/* "[@MAP=]VALUE": the map part is a map name as bpftrace prints it. */
static void add_mapopt(struct mapopt **arr, uint32_t *n, uint32_t *cap, const char *opt,
		       const char *arg)
{
	struct mapopt *m = VEC_PUSH(*arr, *n, *cap);
	memset(m, 0, sizeof *m);
	m->val = arg;
	if (arg[0] == '@') {
		const char *eq = strchr(arg, '=');
		if (!eq) usage_error("%s: '%s': write @MAP=VALUE for one map, or VALUE for all", opt, arg);
		m->map = xmemdup(arg, (size_t)(eq - arg));
		m->val = eq + 1;
	}
	if (!*m->val) usage_error("%s: empty value in '%s'", opt, arg);
}

/* The option value for map name (NUL-terminated), or NULL. */
static struct mapopt *find_mapopt(struct mapopt *arr, uint32_t n, const char *name)
{
	struct mapopt *dflt = NULL;
	for (uint32_t i = n; i-- > 0;) {
		if (arr[i].map && !strcmp(arr[i].map, name)) return &arr[i];
		if (!arr[i].map && !dflt) dflt = &arr[i];
	}
	return dflt;
}

/* ---- maps --------------------------------------------------------------- */

static int32_t map_of(const char *name, size_t n)
{
	bool added;
	uint32_t i = strmap_intern(&B.mapnames, name, n, &added);
	if (!added) return (int32_t)i;
	grow_array((void **)&B.maps, &B.mapcap, i + 1, sizeof *B.maps);
	struct map *m = &B.maps[i];
	memset(m, 0, sizeof *m);
	const char *nm = strmap_key(&B.mapnames, i, NULL);
	m->selected = B.nonly == 0;
	for (uint32_t k = 0; k < B.nonly; k++)
		if (!strcmp(B.only[k], nm)) m->selected = true;
	struct mapopt *ko = find_mapopt(B.keyopts, B.nkeyopts, nm);
	m->keys = ko ? &ko->keys : NULL;
	return (int32_t)i;
}

/* The event and metric of map i, declared when it first has a stack (so
 * that maps left out make no event). */
static void declare(uint32_t i)
{
	struct map *m = &B.maps[i];
	if (m->declared) return;
	m->declared = true;
	const char *nm = strmap_key(&B.mapnames, i, NULL);
	struct mapopt *mo = find_mapopt(B.metrics, B.nmetrics, nm);
	const char *metric = mo ? mo->val : B.have_freq ? "samples" : "count";
	char extra[48];
	if (B.have_freq) snprintf(extra, sizeof extra, "\"frequency_hz\":%llu", (unsigned long long)B.freq);
	m->event = builder_event(B.b, nm, B.have_freq ? "timer" : "probe",
				 B.have_freq ? "frequency" : "event", metric,
				 B.have_freq ? extra : NULL);
	m->metric = builder_metric(B.b, metric, NULL);
}

/* ---- frames ------------------------------------------------------------- */

/* Functions that only a Linux kernel stack holds, and the entry points of
 * a user stack (its outermost frames): what tells a stack's kind when it has
 * no address to tell it. */
static const char *const kernel_names[] = {
	"entry_SYSCALL_64", "entry_SYSENTER_", "entry_INT80_", "do_syscall_64",
	"x64_sys_call", "__x64_sys_", "__ia32_sys_", "__arm64_sys_", "__se_sys_",
	"__do_sys_", "ret_from_fork", "asm_exc_", "asm_sysvec_", "asm_common_interrupt",
	"sysvec_", "secondary_startup_64", "common_startup_64", "start_kernel",
	"x86_64_start_", "cpu_startup_entry", "el0t_64_", "el0_svc", "el1h_64_",
	"invoke_syscall", "do_el0_svc", "handle_softirqs", "__do_softirq", "irq_exit_rcu",
	"__irq_exit_rcu", "default_idle", "cpuidle_enter", NULL
};
static const char *const user_names[] = {
	"_start", "__libc_start_main", "__libc_start_call_main", "start_thread",
	"__clone", "clone3", "__clone3", "thread_start", "main", "__GI_", "__libc_", NULL
};

/* sym without its "+off". */
static bool name_in(const char *p, size_t n, const char *const *list, bool prefix_ok)
{
	for (const char *const *s = list; *s; s++) {
		size_t sn = strlen(*s);
		if (n < sn || memcmp(p, *s, sn) != 0) continue;
		if (n == sn) return true;
		/* a list entry ending with '_' is a prefix */
		if (prefix_ok && (*s)[sn - 1] == '_') return true;
		/* "entry_SYSCALL_64_after_hwframe", "ret_from_fork_asm" */
		if (prefix_ok && p[sn] == '_') return true;
	}
	return false;
}

/* The parts of a frame line. */
struct fparts {
	sstr ip;     /* "0x..."-less hex digits (perf mode) or "0x..." (bare) */
	sstr sym;    /* without "+off" */
	sstr off;    /* decimal digits after '+' */
	sstr dso;    /* perf mode, inside the parentheses */
	bool perf, bare;
};

static sstr split_symoff(sstr s, sstr *off)
{
	*off = SSTR_NULL;
	size_t i = s.n;
	while (i > 0 && c_digit(s.p[i - 1])) i--;
	if (i > 1 && i < s.n && s.p[i - 1] == '+') {
		*off = (sstr){ s.p + i, s.n - i };
		s.n = i - 1;
	}
	return s;
}

static void split_frame(const char *p, size_t n, struct fparts *f)
{
	memset(f, 0, sizeof *f);
	size_t w = 0;
	while (w < n && !c_blank(p[w])) w++;
	if (w < n && w <= 16 && all_hex(p, w)) {
		/* perf mode: "ADDR sym+off (dso)" */
		f->perf = true;
		f->ip = (sstr){ p, w };
		size_t s = w;
		while (s < n && c_blank(p[s])) s++;
		size_t e = n;
		if (e > s && p[e - 1] == ')') {
			/* the last " (" opens the dso */
			size_t o = e - 1;
			while (o > s && !(p[o] == '(' && c_blank(p[o - 1]))) o--;
			if (o > s) {
				f->dso = (sstr){ p + o + 1, e - 1 - (o + 1) };
				e = o - 1;
				while (e > s && c_blank(p[e - 1])) e--;
			}
		}
		f->sym = split_symoff((sstr){ p + s, e - s }, &f->off);
		return;
	}
	if (n > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && all_hex(p + 2, n - 2)) {
		f->bare = true;
		f->ip = (sstr){ p, n };
		f->sym = f->ip;
		return;
	}
	f->sym = split_symoff((sstr){ p, n }, &f->off);
}

/* Does the address (hex digits, maybe with 0x) lie in the kernel half of a
 * 64-bit address space?  1 kernel, 0 user, -1 cannot tell. */
static int addr_kernel(sstr a)
{
	if (a.n > 2 && a.p[0] == '0' && (a.p[1] == 'x' || a.p[1] == 'X')) a.p += 2, a.n -= 2;
	while (a.n > 0 && a.p[0] == '0') a.p++, a.n--;
	if (a.n > 16) return -1;
	if (a.n < 16) return 0;
	return a.p[0] >= '8' || (a.p[0] >= 'a' && a.p[0] <= 'f') || (a.p[0] >= 'A' && a.p[0] <= 'F');
}

/* What the frame lines [l0, l1) say of their stack's kind: 'k', 'u' or
 * 0.  An address tells; else a kernel function anywhere (start_thread is a
 * kernel function too), else a user one. */
static char stack_evidence(uint32_t l0, uint32_t l1)
{
	char byname = 0;
	for (uint32_t l = l0; l < l1; l++) {
		struct fparts f;
		split_frame(B.sb.p + B.fl[l].off, B.fl[l].len, &f);
		if (f.perf || f.bare) {
			int k = addr_kernel(f.ip);
			if (k >= 0) return k ? 'k' : 'u';
		}
		if (name_in(f.sym.p, f.sym.n, kernel_names, true)) byname = 'k';
		else if (byname != 'k' && (name_in(f.sym.p, f.sym.n, user_names, true) ||
					   has_text(f.sym.p, f.sym.n, "::")))
			byname = 'u';
	}
	return byname;
}

/* The frame of one frame line of a stack of kind ('k', 'u', '?'). */
/* bpftrace found no symbol for the frame: a bare address, or perf mode's
 * "[unknown]" (or an address as its symbol). */
static bool frame_unresolved(const struct fparts *f)
{
	return f->bare || (f->perf && (f->sym.n == 0 || sstr_eqc(f->sym, "[unknown]") ||
				       (f->sym.n > 2 && f->sym.p[0] == '0' && f->sym.p[1] == 'x' &&
					all_hex(f->sym.p + 2, f->sym.n - 2))));
}

/* The frames of the entry's user stacks (and those of unknown kind) that
 * have no symbol. */
static uint64_t user_addrs(void)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < B.nkeys; i++) {
		struct key *k = &B.keys[i];
		if (!k->stack || k->kind == 'k') continue;
		for (uint32_t l = k->fl0; l < k->fl1; l++) {
			struct fparts f;
			split_frame(B.sb.p + B.fl[l].off, B.fl[l].len, &f);
			n += frame_unresolved(&f);
		}
	}
	return n;
}

static uint32_t frame_of(const char *p, size_t n, char kind)
{
	sbuf *k = &B.key;
	k->n = 0;
	sbuf_add(k, p, n);
	sbuf_addc(k, kind);
	bool added;
	uint32_t ci = strmap_intern(&B.fcache, k->p, k->n, &added);
	if (!added) return B.fval[ci];
	struct fparts f;
	split_frame(p, n, &f);
	builder_frame fr;
	memset(&fr, 0, sizeof fr);
	fr.inline_depth = -1;
	fr.kind = kind == 'k' ? FK_KERNEL : kind == 'u' ? FK_USER : FK_UNKNOWN;
	char ipbuf[40], offbuf[24];
	if (f.perf) {
		ipbuf[0] = '0';
		ipbuf[1] = 'x';
		memcpy(ipbuf + 2, f.ip.p, f.ip.n);
		fr.ip = (sstr){ ipbuf, f.ip.n + 2 };
	} else if (f.bare) {
		fr.ip = f.ip;
	}
	bool unresolved = frame_unresolved(&f);
	fr.func_resolved = !unresolved;
	fr.func = unresolved ? fr.ip : f.sym;
	if (!unresolved && f.off.n) {
		uint64_t v;
		if (!parse_u64(f.off.p, f.off.n, &v)) {
			/* too long for an offset: part of the name */
			fr.func.n = (size_t)(f.off.p + f.off.n - fr.func.p);
		} else {
			offbuf[fmt_hex(offbuf, v, 1)] = 0;
			fr.symoff = sstr_c(offbuf);
		}
	}
	/* the dso: perf mode's, else the kernel's or unknown */
	sstr dso = f.dso;
	if (dso.n == 0 || (dso.n && kind == 'k'))
		dso = kind == 'k' ? sstr_c("[kernel.kallsyms]") : sstr_c("[unknown]");
	fr.dso = builder_dso(B.b, dso.p, dso.n, kind == 'k');
	uint32_t idx = builder_frame_add(B.b, &fr);
	grow_array((void **)&B.fval, &B.fvcap, ci + 1, sizeof *B.fval);
	B.fval[ci] = idx;
	return idx;
}

/* ---- entries ------------------------------------------------------------ */

static void reset_entry(void)
{
	B.cur = -1;
	B.skip = false;
	B.nkeys = 0;
	B.nfl = 0;
	B.sb.n = 0;
}

static struct key *new_key(bool stack)
{
	struct key *k = VEC_PUSH(B.keys, B.nkeys, B.keycap);
	memset(k, 0, sizeof *k);
	k->stack = stack;
	k->fl0 = k->fl1 = B.nfl;
	k->kind = '?';
	return k;
}

/* The scalar keys in p[0..n), separated by ", " (an empty one is an empty
 * stack, as bpftrace prints one). */
static void add_scalars(const char *p, size_t n)
{
	size_t s = 0;
	for (;;) {
		size_t e = s;
		while (e < n && !(p[e] == ',' && e + 1 < n && p[e + 1] == ' ')) e++;
		if (e == s) {
			new_key(true);
		} else {
			struct key *k = new_key(false);
			k->off = (uint32_t)B.sb.n;
			k->len = (uint32_t)(e - s);
			sbuf_add(&B.sb, p + s, e - s);
		}
		if (e >= n) break;
		s = e + 2;
	}
}

static const char *map_name(void)
{
	return strmap_key(&B.mapnames, (uint32_t)B.cur, NULL);
}

/* Decides the kind of each stack key of the entry. */
static void stack_kinds(struct map *m)
{
	const struct keylist *kl = m->keys;
	for (uint32_t i = 0; i < B.nkeys; i++) {
		struct key *k = &B.keys[i];
		if (!k->stack) continue;
		if (kl && (kl->kind[i] == K_KSTACK || kl->kind[i] == K_USTACK)) {
			k->kind = kl->kind[i] == K_KSTACK ? 'k' : 'u';
			continue;
		}
		/* the frames, then what the map's other entries said */
		char ev = stack_evidence(k->fl0, k->fl1);
		if (ev) {
			k->kind = ev;
			if (i >= m->nposkind) {
				uint32_t cap = m->nposkind;
				grow_array((void **)&m->poskind, &cap, i + 1, 1);
				memset(m->poskind + m->nposkind, 0, i + 1 - m->nposkind);
				m->nposkind = i + 1;
			}
			m->poskind[i] = ev;
		} else if (i < m->nposkind && m->poskind[i]) {
			k->kind = m->poskind[i];
		}
	}
	/* two stacks, one of them known: the other is the other kind */
	uint32_t nst = 0, known = 0;
	for (uint32_t i = 0; i < B.nkeys; i++)
		if (B.keys[i].stack) nst++, known += B.keys[i].kind != '?';
	if (nst == 2 && known == 1) {
		char other = 0;
		for (uint32_t i = 0; i < B.nkeys; i++)
			if (B.keys[i].stack && B.keys[i].kind != '?') other = B.keys[i].kind == 'k' ? 'u' : 'k';
		for (uint32_t i = 0; i < B.nkeys; i++)
			if (B.keys[i].stack && B.keys[i].kind == '?') B.keys[i].kind = other;
	}
}

/* Appends the frames of the stacks of kind want ('k', '?', 'u'). */
static void add_frames(char want)
{
	for (uint32_t i = 0; i < B.nkeys; i++) {
		struct key *k = &B.keys[i];
		if (!k->stack || k->kind != want) continue;
		for (uint32_t l = k->fl0; l < k->fl1; l++) {
			uint32_t fi = frame_of(B.sb.p + B.fl[l].off, B.fl[l].len, k->kind);
			*VEC_PUSH(B.fr, B.nfr, B.frcap) = fi;
		}
	}
}

/* The context of the entry's scalar keys, into c (and B.extra). */
static void scalar_context(struct map *m, builder_ctx *c, uint64_t lineno)
{
	const struct keylist *kl = m->keys;
	sbuf *e = &B.extra;
	e->n = 0;
	bool comm_done = false, pid_done = false;
	for (uint32_t i = 0; i < B.nkeys; i++) {
		struct key *k = &B.keys[i];
		if (k->stack) continue;
		size_t tn = k->len;
		const char *t = tn ? B.sb.p + k->off : "";
		enum keykind kk = kl ? kl->kind[i] : K_GUESS;
		int64_t iv = 0;
		bool num_ok = all_digits(t, tn) && parse_i64(t, tn, &iv);
		if (kk == K_GUESS) {
			if (!num_ok && !comm_done) kk = K_COMM;
			else if (num_ok && !pid_done) kk = K_PID;
			else kk = K_OTHER;
		}
		if ((kk == K_PID || kk == K_TID || kk == K_CPU) && !num_ok)
			die_at(B.fname, lineno, "map %s: key %u (%s) is not a number: '%.*s' "
			       "(name the keys in the order of the map's key with --keys)",
			       map_name(), i + 1, kl ? kl->name[i] : "pid", (int)tn, t);
		switch (kk) {
		case K_COMM:
			if (comm_done) break;
			c->comm = (sstr){ t, tn };
			comm_done = true;
			continue;
		case K_PID:
			if (pid_done) break;
			c->has_pid = true;
			c->pid = iv;
			pid_done = true;
			continue;
		case K_TID:
			if (c->has_tid) break;
			c->has_tid = true;
			c->tid = iv;
			continue;
		case K_CPU:
			if (e->n) sbuf_addc(e, ',');
			sbuf_printf(e, "\"cpu\":%lld", (long long)iv);
			continue;
		default: break;
		}
		if (e->n) sbuf_addc(e, ',');
		if (kl) sbuf_printf(e, "\"x_%s\":", kl->name[i]);
		else sbuf_printf(e, "\"x_key%u\":", i + 1);
		if (num_ok) sbuf_printf(e, "%lld", (long long)iv);
		else jb_str(e, t, tn);
	}
	c->extra_json = e->n ? (sstr){ e->p, e->n } : SSTR_NULL;
	if (c->has_pid && !c->has_tid) {
		c->has_tid = true;
		c->tid = c->pid;
	}
}

/* The entry is complete, its value text v. */
static void finish_entry(const char *v, size_t vn, uint64_t lineno)
{
	struct map *m = &B.maps[B.cur];
	m->nentries++;
	if (B.skip) {
		reset_entry();
		return;
	}
	const struct keylist *kl = m->keys;
	if (kl && kl->n != B.nkeys)
		die_at(B.fname, B.entry_line, "map %s: --keys names %u key%s, the entry has %u",
		       map_name(), kl->n, kl->n == 1 ? "" : "s", B.nkeys);
	bool any_stack = false;
	for (uint32_t i = 0; i < B.nkeys; i++) {
		struct key *k = &B.keys[i];
		bool want = kl && (kl->kind[i] == K_KSTACK || kl->kind[i] == K_USTACK);
		if (kl && k->stack && k->fl1 > k->fl0 && !want)
			die_at(B.fname, B.entry_line, "map %s: --keys says key %u is %s, but it is a stack",
			       map_name(), i + 1, kl->name[i]);
		if (kl && !k->stack && want)
			die_at(B.fname, B.entry_line, "map %s: --keys says key %u is %s, but it is '%.*s'",
			       map_name(), i + 1, kl->name[i], (int)k->len, B.sb.p + k->off);
		if (kl ? want : k->stack) any_stack = true;
		if (kl && !want) k->stack = false; /* an empty text key */
	}
	if (!any_stack) {
		m->nflat++;
		reset_entry();
		return;
	}
	int64_t iv;
	uint64_t uv;
	num val;
	if (parse_i64(v, vn, &iv)) val = num_i(iv);
	else if (parse_u64(v, vn, &uv)) val = num_u(uv);
	else if (all_digits(v, vn)) die_at(B.fname, lineno, "map %s: value out of range: %.*s", map_name(), (int)vn, v);
	else die_at(B.fname, lineno, "map %s: the value '%.*s' is not a number: bpftrace2spaa reads "
		    "maps of count() and sum()", map_name(), (int)vn, v);
	declare((uint32_t)B.cur);

	builder_ctx c;
	memset(&c, 0, sizeof c);
	c.event = m->event;
	stack_kinds(m);
	scalar_context(m, &c, lineno);
	B.nfr = 0;
	add_frames('k');
	add_frames('?');
	add_frames('u');
	bool hask = false, hasu = false, hasq = false;
	for (uint32_t i = 0; i < B.nkeys; i++) {
		struct key *k = &B.keys[i];
		if (!k->stack || k->fl1 == k->fl0) continue;
		hask |= k->kind == 'k', hasu |= k->kind == 'u', hasq |= k->kind == '?';
	}
	c.stack_type = hask && !hasu && !hasq ? "kernel" : hasu && !hask && !hasq ? "user" : NULL;
	if (B.nfr == 0) {
		/* all stacks empty (a kernel thread's ustack): one placeholder
		 * frame, which spaa-fold leaves out as it does perf's */
		if (!B.nostack) {
			builder_frame fr;
			memset(&fr, 0, sizeof fr);
			fr.func = sstr_c("[unknown]");
			fr.dso = builder_dso(B.b, "[unknown]", 9, false);
			fr.kind = FK_UNKNOWN;
			fr.inline_depth = -1;
			fr.func_resolved = true;
			fr.extra_json = "\"x_perf_no_callchain\":true";
			B.nostack = builder_frame_add(B.b, &fr) + 1;
		}
		*VEC_PUSH(B.fr, B.nfr, B.frcap) = B.nostack - 1;
	}
	if (c.has_pid) builder_thread(B.b, c.pid, c.tid, c.comm.p, c.comm.n);
	else m->nopid_addrs += user_addrs();
	builder_where(B.b, B.fname, lineno);
	builder_stack(B.b, &c, B.fr, B.nfr, &m->metric, &val, 1);
	B.nstacks++;
	reset_entry();
}

/* The rest of a line r[0..n): from a key's start (key_starts: after "[" or
 * ","), or from the "]" after a stack.  Keys, then either the end "]: VALUE"
 * (true) or ", " and a stack on the next lines (false). */
static bool key_text(const char *r, size_t n, bool key_starts, uint64_t lineno, bool *hist)
{
	*hist = false;
	if (n == 0 && key_starts) {
		new_key(true); /* a stack's frames follow */
		return false;
	}
	/* the end: the last "]:" followed by a blank or nothing */
	size_t end = n;
	for (size_t j = n; j-- > 1;) {
		if (r[j - 1] == ']' && r[j] == ':' && (j + 1 == n || r[j + 1] == ' ')) {
			end = j - 1;
			break;
		}
	}
	if (end < n) {
		if (key_starts) add_scalars(r, end);
		else if (end > 0)
			die_at(B.fname, lineno, "map %s: text after the stack: '%.*s'", map_name(), (int)end, r);
		const char *v = r + end + 2;
		size_t vn = n - end - 2;
		while (vn && c_blank(*v)) v++, vn--;
		while (vn && c_blank(v[vn - 1])) vn--;
		if (vn == 0) {
			*hist = true;
			return true;
		}
		if (vn > 6 && !memcmp(v, "count ", 6) && has_text(v, vn, ", average ")) {
			if (!B.skip)
				die_at(B.fname, lineno, "map %s holds stats(), not counts: bpftrace2spaa reads maps "
				       "of count() and sum(); leave it out with --map naming the others", map_name());
			finish_entry("0", 1, lineno);
			return true;
		}
		finish_entry(v, vn, lineno);
		return true;
	}
	/* ", " at the end: a stack follows */
	size_t kn = n;
	if (kn && r[kn - 1] == ' ') kn--;
	if (!key_starts || !kn || r[kn - 1] != ',')
		die_at(B.fname, lineno, "map %s: expected ']: VALUE' or ', ' at the end of the line", map_name());
	kn--;
	add_scalars(r, kn);
	new_key(true);
	return false;
}

enum state { S_TOP, S_FRAMES, S_HIST };

static void convert(input *in)
{
	B.fname = input_name(in);
	sniff_refuse_other(in, "bpftrace2spaa", "bpftrace's printed maps");
	reset_entry();
	enum state st = S_TOP;
	char *line;
	size_t n;
	bool nl = true;
	for (;;) {
		uint64_t at = input_offset(in);
		if (!(line = input_line(in, &n))) break;
		/* bpftrace ends every line with a newline: a last line without
		 * one is a file cut short (a value "12" of "1234") */
		nl = input_offset(in) - at > n;
		uint64_t lineno = input_lineno(in);
		while (n > 0 && line[n - 1] == '\r') n--;
		bool hist = false, done;
		/* bpftrace writes no NUL byte (its names are C strings): in a map
		 * entry one is damage, said where, not read as a cut name */
		const char *nul = (st == S_FRAMES || (n > 0 && line[0] == '@')) ? memchr(line, 0, n) : NULL;
		if (nul)
			die_at(B.fname, lineno, "a NUL byte in %s (column %zu): not bpftrace's text output",
			       st == S_FRAMES ? "a map entry's line" : "a map line", (size_t)(nul - line) + 1);
		if (st == S_FRAMES) {
			if (n > 0 && c_blank(line[0])) {
				size_t b = 0, e = n;
				while (b < e && c_blank(line[b])) b++;
				while (e > b && c_blank(line[e - 1])) e--;
				if (b == e) continue;
				grow_array((void **)&B.fl, &B.flcap, B.nfl + 1, sizeof *B.fl);
				B.fl[B.nfl].off = (uint32_t)B.sb.n;
				B.fl[B.nfl].len = (uint32_t)(e - b);
				B.nfl++;
				sbuf_add(&B.sb, line + b, e - b);
				B.keys[B.nkeys - 1].fl1 = B.nfl;
				continue;
			}
			if (n > 0 && line[0] == ']') {
				done = key_text(line, n, false, lineno, &hist);
			} else if (n > 0 && line[0] == ',') {
				size_t s = 1;
				if (s < n && line[s] == ' ') s++;
				done = key_text(line + s, n - s, true, lineno, &hist);
			} else {
				die_at(B.fname, lineno, "map %s: expected a frame, ', ' or ']: VALUE' in the entry "
				       "begun at line %llu", map_name(), (unsigned long long)B.entry_line);
			}
			if (done) st = hist ? S_HIST : S_TOP;
			if (hist) goto histogram;
			continue;
		}
		if (st == S_HIST) {
			if (n == 0) {
				st = S_TOP;
				continue;
			}
			if (line[0] == '[' || line[0] == '(') continue;
			st = S_TOP;
		}
		if (n > 9 && !memcmp(line, "{\"type\": ", 9))
			die_at(B.fname, lineno, "this is bpftrace's JSON output (-f json), not its text: "
			       "run bpftrace without -f json");
		if (n == 0 || line[0] != '@') continue; /* "Attaching N probes...", printf text */
		/* "@name[" or "@name: " */
		size_t i = 1;
		while (i < n && (c_digit(line[i]) || (line[i] >= 'a' && line[i] <= 'z') ||
				 (line[i] >= 'A' && line[i] <= 'Z') || line[i] == '_'))
			i++;
		if (i < n && line[i] == '[') {
			B.cur = map_of(line, i);
			B.skip = !B.maps[B.cur].selected;
			B.entry_line = lineno;
			if (!B.maps[B.cur].first_line) B.maps[B.cur].first_line = lineno;
			done = key_text(line + i + 1, n - i - 1, true, lineno, &hist);
			st = done ? (hist ? S_HIST : S_TOP) : S_FRAMES;
			if (hist) goto histogram;
			continue;
		}
		if (i < n && line[i] == ':') {
			/* a map without keys: no stack */
			B.cur = map_of(line, i);
			B.skip = !B.maps[B.cur].selected;
			size_t s = i + 1;
			while (s < n && c_blank(line[s])) s++;
			if (s == n) {
				hist = true;
				st = S_HIST;
				goto histogram;
			}
			B.maps[B.cur].nentries++;
			B.maps[B.cur].nflat++;
			reset_entry();
			continue;
		}
		continue; /* text that starts with '@' */
	histogram:
		if (!B.skip)
			die_at(B.fname, lineno, "map %s holds a histogram (hist() or lhist()), not counts: "
			       "bpftrace2spaa reads maps of count() and sum(); leave it out with --map naming the others",
			       map_name());
		B.maps[B.cur].nentries++;
		reset_entry();
	}
	if (!nl) die_cut_line(B.fname, input_lineno(in));
	if (st == S_FRAMES)
		die_at(B.fname, B.entry_line, "truncated entry of map %s: no ']: VALUE' at the end of the input",
		       map_name());
}

/* its options, for getopt_long and the registry (readers/registry.h) */
enum { OPT_MAP = 256 };
const struct option bpftrace_longopts[] = {
	{ "frequency", required_argument, 0, 'F' },
	{ "keys", required_argument, 0, 'k' },
	{ "map", required_argument, 0, OPT_MAP },
	{ "metric", required_argument, 0, 'm' },
	CLI_OUT_LONGOPTS,
	{ "quiet", no_argument, 0, 'q' },
	CLI_STD_LONGOPTS,
	{ 0, 0, 0, 0 }
};
const char bpftrace_shortopts[] = "F:k:m:o:zqhV";

/* the converter bpftrace2spaa: argv as it gets it (argv[0] its name); the
 * exit status (readers/readers.h) */
int bpftrace_read(int argc, char **argv)
{
	/* a fresh state: the fuzz target (fuzz/fuzz_cmd.c) calls bpftrace_read again */
	memset(&B, 0, sizeof B);
	const char *outpath = NULL;
	bool zstd = false;
	int c;
	while ((c = getopt_long(argc, argv, bpftrace_shortopts, bpftrace_longopts, NULL)) != -1) {
		switch (c) {
		case 'F':
			B.freq = opt_u64("--frequency", optarg);
			if (!B.freq) usage_error("--frequency: must be at least 1");
			B.have_freq = true;
			break;
		case 'k':
			add_mapopt(&B.keyopts, &B.nkeyopts, &B.kcap, "--keys", optarg);
			parse_keylist(optarg, B.keyopts[B.nkeyopts - 1].val, &B.keyopts[B.nkeyopts - 1].keys);
			break;
		case OPT_MAP:
			if (optarg[0] != '@') usage_error("--map: '%s': a map name starts with '@' (\"@\", \"@bytes\")", optarg);
			*VEC_PUSH(B.only, B.nonly, B.onlycap) = optarg;
			break;
		case 'm': add_mapopt(&B.metrics, &B.nmetrics, &B.mcap, "--metric", optarg); break;
		CLI_OUT_CASES(outpath, zstd);
		case 'q': B.quiet = true; break;
		CLI_STD_CASES(help);
		}
	}
	cli_stdin_once(argv + optind, argc - optind);

	B.b = builder_new();
	builder_source_tool(B.b, "bpftrace");
	/* every metric before the first stack, as the builder wants; only
	 * those of maps with stacks are written */
	builder_metric(B.b, B.have_freq ? "samples" : "count", NULL);
	for (uint32_t i = 0; i < B.nmetrics; i++) builder_metric(B.b, B.metrics[i].val, NULL);
	const char *what;
	uint64_t nlines = input_each(argv + optind, argc - optind, convert, &what); /* for the message when nothing is found */

	uint32_t nmaps = B.mapnames.count;
	for (uint32_t i = 0; i < nmaps; i++) {
		struct map *m = &B.maps[i];
		if (m->selected && m->nflat && !B.quiet)
			warnmsg("%s: warning: map %s has no stack key: its %llu entr%s left out", what,
				strmap_key(&B.mapnames, i, NULL), (unsigned long long)m->nflat,
				m->nflat == 1 ? "y is" : "ies are");
	}
	/* addresses that spaa-symbolize could name, but not without the pid:
	 * said once, for the first such map */
	for (uint32_t i = 0; i < nmaps && !B.quiet; i++) {
		const struct map *m = &B.maps[i];
		if (!m->selected || !m->nopid_addrs) continue;
		warnmsg("%s: %llu user frame%s of map %s %s no symbol, and the map's key has no pid, "
			"so spaa-symbolize cannot tell whose address%s %s: add pid to the key "
			"(@[ustack, comm, pid]) and save /proc/PID/maps while the program runs, for "
			"spaa-symbolize --maps=PID=FILE", what, (unsigned long long)m->nopid_addrs,
			m->nopid_addrs == 1 ? "" : "s", strmap_key(&B.mapnames, i, NULL),
			m->nopid_addrs == 1 ? "has" : "have", m->nopid_addrs == 1 ? "" : "es",
			m->nopid_addrs == 1 ? "it is" : "they are");
		break;
	}
	for (uint32_t k = 0; k < B.nonly; k++)
		if (strmap_find(&B.mapnames, B.only[k], strlen(B.only[k])) < 0)
			die(EXIT_DATA, "%s: --map %s: no such map in the input", what, B.only[k]);
	if (!B.nstacks && !nlines) die_empty_input(what);
	if (!B.nstacks) {
		if (!nmaps)
			die_no_stacks(what, "%llu line%s, no bpftrace map (@name[...]: value)",
				      (unsigned long long)nlines, nlines == 1 ? "" : "s");
		die_no_stacks(what, "%u map%s, no entry with a stack key (kstack, ustack)",
			      nmaps, nmaps == 1 ? "" : "s");
	}
	reader_finish(B.b, outpath, zstd);
	return EXIT_OK;
}
