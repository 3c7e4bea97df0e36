/* dtrace2spaa - the printa output of DTrace stack aggregations to SPAA.
 *
 * Each aggregation entry is printed as its keys in the order of the key
 * tuple, then its value.  A stack key (ustack(), stack()) is a newline, then
 * one frame per line ("module`func+0xoff", leaf first) indented by the
 * stackindent option (14); a scalar key (execname, pid, ...) is printed
 * without a newline, blank-padded ("  %-50s" for strings, " %8d" for 32-bit
 * numbers), and the value " %16lld" ends the entry's last line.  So keys
 * before the first stack share a short indented line; keys after the last
 * stack share the value's line ("  sshd      3"); keys between two stacks
 * are a short line right before the second stack's frames.  A value alone
 * on its line and keys on lines of their own (one per line) are accepted
 * too.  Lines before the first entry (the banner "CPU ID FUNCTION:NAME",
 * "dtrace: description ... matched N probes") are skipped. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readers.h"
#include "build.h"
#include "reader.h"
#include "cli.h"
#include "sniff.h"
#include "jsonbuf.h"
#include "input.h"
#include "output.h"
#include "spaa.h"
#include "strmap.h"
#include "util.h"

static const char help[] =
	"Usage: dtrace2spaa [OPTION]... [FILE]...\n"
	"Convert the printa output of DTrace stack aggregations to a SPAA 1.0 profile.\n"
	"\n"
	"Reads each FILE (or standard input when none or \"-\"), plain, gzip or zstd:\n"
	"entries of @[ustack()], @[stack()], @[ustack(), stack()] or\n"
	"@[execname, ustack()] or @[ustack(), execname] style aggregations: each\n"
	"entry its stacks (leaf first), scalar keys before, between or after them,\n"
	"and a count.\n"
	"\n"
	"      --event=NAME     the probe that fired (default profile-997): profile-N\n"
	"                       and tick-N are timers sampling at N Hz (metric\n"
	"                       \"samples\"), any other name a probe (metric \"count\")\n"
	"  -F, --frequency=HZ   the sampling frequency (default: from the event name)\n"
	"  -k, --keys=LIST      the aggregation keys, comma-separated, in the order\n"
	"                       of the D program's key tuple (as DTrace prints them):\n"
	"                       ustack, jstack (user stacks), stack (kernel stack),\n"
	"                       execname (context comm), pid, tid, or any other name\n"
	"                       (context x_NAME); default: scalar keys guessed (the\n"
	"                       first text key is the comm), two stacks are user\n"
	"                       then kernel\n"
	CLI_HELP_TAIL;

#define MAXKEYS 16
#define MAXSTACKS 4
#define FRAME_INDENT 8 /* frames are indented more than this, scalar keys less */

enum keykind { K_USTACK, K_KSTACK, K_COMM, K_PID, K_TID, K_OTHER };

static struct {
	builder *b;
	uint32_t event, metric;
	/* --keys */
	bool have_keys;
	struct { enum keykind kind; char *name; uint32_t nst; } keys[MAXKEYS + MAXSTACKS];
	uint32_t nkeys;                  /* nst: stacks before the key */
	/* current entry */
	sbuf sb;                         /* scalar key texts */
	struct { uint32_t off, len, nst; } sk[MAXKEYS]; /* nst: stacks before it */
	uint32_t nsk;
	uint32_t ntrail;                 /* keys since the last stack began */
	bool trail_open;                 /* keys after a stack, no value yet */
	size_t fr_indent;                /* indentation of the stack's frames */
	uint32_t *fr;                    /* frames of all stacks, leaf first */
	uint32_t nfr, frcap;
	struct { uint32_t off, len; } *fl; /* frame lines of the entry, in D.sb */
	uint32_t nfl, flcap;
	uint32_t st_start[MAXSTACKS + 1]; /* first frame line of each stack */
	uint32_t nst;                    /* stacks begun */
	bool seg_open;                   /* frames since the last blank line */
	uint64_t entry_line;
	/* frame cache: trimmed line + stack kind -> frames */
	strmap fcache;
	struct { uint32_t first, n; } *fval;
	uint32_t fvcap;
	uint32_t *fpool;
	uint32_t fpn, fpcap;
	sbuf key, tmp, extra;
	const char *fname;
	uint64_t nentries;
} D;


static bool all_digits(const char *p, size_t n, bool sign)
{
	if (sign && n > 1 && p[0] == '-') p++, n--;
	if (!n) return false;
	for (size_t i = 0; i < n; i++)
		if (!c_digit(p[i])) return false;
	return true;
}

/* The kind of stack number i (0-based) of an entry: 'u', 'k' or '?'. */
static char stack_kind(uint32_t i, uint32_t nstacks)
{
	if (D.have_keys) {
		uint32_t s = 0;
		for (uint32_t k = 0; k < D.nkeys; k++) {
			if (D.keys[k].kind != K_USTACK && D.keys[k].kind != K_KSTACK) continue;
			if (s++ == i) return D.keys[k].kind == K_USTACK ? 'u' : 'k';
		}
		return '?';
	}
	if (nstacks == 2) return i == 0 ? 'u' : 'k';
	return '?';
}

/* "+0x1f" or "+31" at the end of s: its length, else 0. */
static size_t offset_len(const char *p, size_t n)
{
	size_t i = n;
	while (i > 0 && (c_hex(p[i - 1]) || p[i - 1] == 'x')) i--;
	if (i == 0 || i == n || p[i - 1] != '+') return 0;
	const char *o = p + i;
	size_t on = n - i;
	if (on > 2 && o[0] == '0' && o[1] == 'x') {
		for (size_t k = 2; k < on; k++)
			if (!c_hex(o[k])) return 0;
	} else if (!all_digits(o, on, false)) {
		return 0;
	}
	return on + 1;
}

/* Interns the frames of one trimmed frame line (an inline chain "a->b->c"
 * gives three: a physical, b and c inlined), appended leaf first to D.fr. */
static void add_frame_line(const char *p, size_t n, char kind)
{
	sbuf *k = &D.key;
	k->n = 0;
	sbuf_add(k, p, n);
	sbuf_addc(k, kind);
	bool added;
	uint32_t ci = strmap_intern(&D.fcache, k->p, k->n, &added);
	if (added) {
		grow_array((void **)&D.fval, &D.fvcap, ci + 1, sizeof *D.fval);
		D.fval[ci].first = D.fpn;
		/* split at "->"; each part may have its "+0x..." offset */
		uint32_t nparts = 0;
		sstr parts[64];
		size_t s = 0;
		for (size_t i = 0; i + 1 < n && nparts < 63; i++) {
			if (p[i] == '-' && p[i + 1] == '>') {
				parts[nparts++] = (sstr){ p + s, i - s };
				s = i + 2;
				i++;
			}
		}
		parts[nparts++] = (sstr){ p + s, n - s };
		sstr symoff = SSTR_NULL;
		for (uint32_t j = 0; j < nparts; j++) {
			size_t ol = offset_len(parts[j].p, parts[j].n);
			/* one address: the offset, wherever printed, is every part's */
			if (ol && !symoff.p) symoff = (sstr){ parts[j].p + parts[j].n - ol + 1, ol - 1 };
			parts[j].n -= ol;
		}
		/* the module of the physical frame is every part's dso */
		sstr mod = SSTR_NULL;
		const char *bt = memchr(parts[0].p, '`', parts[0].n);
		if (bt) mod = (sstr){ parts[0].p, (size_t)(bt - parts[0].p) };
		bool kern = kind == 'k';
		uint32_t dso = mod.n ? builder_dso(D.b, mod.p, mod.n, kern)
				     : builder_dso(D.b, "[unknown]", 9, false);
		/* leaf first: the last part is the deepest inlined one */
		for (uint32_t j = nparts; j-- > 0;) {
			builder_frame f;
			memset(&f, 0, sizeof f);
			f.func = parts[j];
			if (f.func.n == 0) f.func = sstr_c("-");
			f.dso = dso;
			f.kind = kind == 'u' ? FK_USER : kind == 'k' ? FK_KERNEL : FK_UNKNOWN;
			f.inlined = j > 0;
			f.inline_depth = nparts > 1 ? (int32_t)j : -1;
			/* hex-only: an unresolved address */
			const char *q = f.func.p;
			size_t qn = f.func.n;
			f.func_resolved = true;
			if (qn > 2 && q[0] == '0' && q[1] == 'x') {
				size_t h = 2;
				while (h < qn && c_hex(q[h])) h++;
				if (h == qn) {
					f.func_resolved = false;
					f.ip = f.func;
				}
			}
			f.symoff = symoff;
			/* in a chain, a frame is one depth at one address */
			f.exact = nparts > 1;
			uint32_t fi = builder_frame_add(D.b, &f);
			uint32_t *slot = VEC_PUSH(D.fpool, D.fpn, D.fpcap);
			*slot = fi;
		}
		D.fval[ci].n = D.fpn - D.fval[ci].first;
	}
	uint32_t first = D.fval[ci].first, cnt = D.fval[ci].n;
	grow_array((void **)&D.fr, &D.frcap, D.nfr + cnt, sizeof *D.fr);
	memcpy(D.fr + D.nfr, D.fpool + first, cnt * sizeof *D.fr);
	D.nfr += cnt;
}

/* Does a line read as a frame whatever its indentation: its first word
 * "module`function", or an address "0x..." alone?  (stackcollapse.pl takes
 * every line that is not a count as a frame; indentation is how DTrace tells
 * scalar keys from frames, but a file may have lost it.) */
static bool frame_shaped(const char *p, size_t n)
{
	for (size_t i = 0; i < n && !c_blank(p[i]); i++)
		if (p[i] == '`') return i > 0;
	if (n > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		for (size_t i = 2; i < n; i++)
			if (!c_hex(p[i])) return false;
		return true;
	}
	return false;
}

static void reset_entry(void)
{
	D.nsk = 0;
	D.ntrail = 0;
	D.trail_open = false;
	D.sb.n = 0;
	D.nfr = 0;
	D.nfl = 0;
	D.nst = 0;
	D.seg_open = false;
}

/* Without --keys, a lone stack is a kernel stack when one of its frames is
 * from the kernel proper: module "unix" or "genunix" (illumos, Solaris) or
 * "kernel" (FreeBSD, macOS). */
static bool kernel_guess(uint32_t from, uint32_t to)
{
	static const char *const mods[] = { "unix`", "genunix`", "kernel`", NULL };
	for (uint32_t l = from; l < to; l++) {
		const char *t = D.sb.p + D.fl[l].off;
		for (const char *const *m = mods; *m; m++) {
			size_t mn = strlen(*m);
			if (D.fl[l].len > mn && memcmp(t, *m, mn) == 0) return true;
		}
	}
	return false;
}

/* The entry is complete: its value is v. */
static void finish_entry(num v, uint64_t lineno)
{
	builder_ctx c;
	memset(&c, 0, sizeof c);
	c.event = D.event;
	/* scalar keys */
	sbuf *e = &D.extra;
	e->n = 0;
	bool comm_done = false;
	for (uint32_t i = 0; i < D.nsk; i++) {
		const char *t = D.sb.p + D.sk[i].off;
		size_t tn = D.sk[i].len;
		enum keykind kk = K_OTHER;
		const char *name = NULL;
		char nbuf[32];
		if (D.have_keys) {
			uint32_t s = 0;
			for (uint32_t k = 0; k < D.nkeys; k++) {
				if (D.keys[k].kind == K_USTACK || D.keys[k].kind == K_KSTACK) continue;
				if (s++ == i) {
					kk = D.keys[k].kind;
					name = D.keys[k].name;
					if (D.keys[k].nst != D.sk[i].nst)
						die_at(D.fname, lineno,
						       "--keys: key '%s' is printed after %u stack(s), not %u: "
						       "list the keys in the order of the aggregation's key tuple",
						       name, D.sk[i].nst, D.keys[k].nst);
					break;
				}
			}
		} else if (!comm_done && !all_digits(t, tn, true)) {
			kk = K_COMM;
		}
		bool num_ok = all_digits(t, tn, true);
		int64_t iv = 0;
		if (num_ok && !parse_i64(t, tn, &iv)) num_ok = false;
		if (kk == K_COMM && !comm_done) {
			c.comm = (sstr){ t, tn };
			comm_done = true;
			continue;
		}
		if ((kk == K_PID || kk == K_TID) && !num_ok)
			die_at(D.fname, lineno, "--keys: key '%s' is not a number: '%.*s' "
			       "(list the keys in the order of the aggregation's key tuple)",
			       name, (int)tn, t);
		if (kk == K_PID && num_ok) {
			c.has_pid = true;
			c.pid = iv;
			continue;
		}
		if (kk == K_TID && num_ok) {
			c.has_tid = true;
			c.tid = iv;
			continue;
		}
		if (!name) {
			snprintf(nbuf, sizeof nbuf, "key%u", i + 1);
			name = nbuf;
		}
		if (e->n) sbuf_addc(e, ',');
		sbuf_adds(e, "\"x_");
		sbuf_adds(e, name);
		sbuf_adds(e, "\":");
		if (num_ok) sbuf_printf(e, "%lld", (long long)iv);
		else jb_str(e, t, tn);
	}
	c.extra_json = e->n ? (sstr){ e->p, e->n } : SSTR_NULL;
	if (c.has_pid && !c.has_tid) {
		c.has_tid = true;
		c.tid = c.pid;
	}
	if (c.has_tid && c.has_pid) builder_thread(D.b, c.pid, c.tid, c.comm.p, c.comm.n);

	uint32_t nst = D.nst ? D.nst : 1;
	if (!D.nst) D.st_start[0] = 0;
	D.st_start[nst] = D.nfl;
	uint32_t ids[MAXSTACKS];
	for (uint32_t s = 0; s < nst; s++) {
		char kind = stack_kind(s, nst);
		if (kind == '?' && kernel_guess(D.st_start[s], D.st_start[s + 1])) kind = 'k';
		c.stack_type = kind == 'u' ? "user" : kind == 'k' ? "kernel" : NULL;
		D.nfr = 0;
		for (uint32_t l = D.st_start[s]; l < D.st_start[s + 1]; l++)
			add_frame_line(D.sb.p + D.fl[l].off, D.fl[l].len, kind);
		builder_where(D.b, D.fname, lineno); /* for an overflow message */
		ids[s] = builder_stack(D.b, &c, D.fr, D.nfr, &D.metric, &v, 1);
	}
	for (uint32_t s = 1; s < nst; s++) builder_relate(D.b, ids[0], ids[s]);
	D.nentries++;
	reset_entry();
}

/* Records a scalar key of the entry. */
static void add_key(const char *p, size_t n, uint64_t lineno)
{
	if (D.nsk == MAXKEYS) die_at(D.fname, lineno, "more than %d scalar keys in an entry", MAXKEYS);
	D.sk[D.nsk].off = (uint32_t)D.sb.n;
	D.sk[D.nsk].len = (uint32_t)n;
	D.sk[D.nsk].nst = D.nst;
	D.nsk++;
	sbuf_add(&D.sb, p, n);
	if (D.nst) D.ntrail++;
}

/* The value at the end of an entry. */
static num parse_count(const char *p, size_t pn, uint64_t lineno)
{
	int64_t iv;
	uint64_t uv;
	if (parse_i64(p, pn, &iv)) return num_i(iv);
	if (parse_u64(p, pn, &uv)) return num_u(uv);
	die_at(D.fname, lineno, "count out of range: %.*s", (int)pn, p);
}

/* With --keys: how many scalar keys follow stack number nst (1-based). */
static uint32_t keys_after(uint32_t nst)
{
	uint32_t n = 0;
	for (uint32_t k = 0; k < D.nkeys; k++)
		n += D.keys[k].kind != K_USTACK && D.keys[k].kind != K_KSTACK && D.keys[k].nst == nst;
	return n;
}

/* A line after the frames of a stack that holds scalar keys, maybe ending
 * with the entry's value: handled (true), or a frame line (false). */
static bool after_stack_line(const char *p, size_t pn, size_t indent, uint64_t lineno)
{
	/* blank-separated tokens: all numbers?  the last one? */
	uint32_t ntok = 0;
	bool allnum = true;
	size_t lastoff = 0;
	for (size_t k = 0; k < pn;) {
		size_t e = k;
		while (e < pn && !c_blank(p[e])) e++;
		if (!all_digits(p + k, e - k, true)) allnum = false;
		ntok++;
		lastoff = k;
		while (e < pn && c_blank(p[e])) e++;
		k = e;
	}
	uint32_t want = D.have_keys ? keys_after(D.nst) : 0;
	if (ntok == 1 && allnum) {
		/* the value alone, or (on a line of its own after other keys, at
		 * most 8 blanks in as DTrace prints a 32-bit number) a key */
		bool key = D.have_keys ? D.ntrail < want : D.ntrail > 0 && indent <= FRAME_INDENT;
		if (!key) {
			finish_entry(parse_count(p, pn, lineno), lineno);
			return true;
		}
	} else if (indent >= D.fr_indent && !allnum) {
		/* a frame: less indented lines are keys.  Frames indented less
		 * than DTrace does (its stackindent is 14) leave keys no room
		 * to the left: there, words ending with a number are keys and
		 * the count */
		bool keys_count = D.fr_indent < FRAME_INDENT && ntok >= 2 &&
				  all_digits(p + lastoff, pn - lastoff, true) && !frame_shaped(p, pn);
		if (!keys_count) return false;
	}
	const char *last = p + lastoff;
	size_t lastn = pn - lastoff;
	bool value_here = ntok >= 2 && all_digits(last, lastn, true) &&
			  !(D.have_keys && D.ntrail + ntok <= want);
	size_t keysn = value_here ? lastoff : pn;
	for (size_t k = 0; k < keysn;) {
		size_t e = k;
		while (e < keysn && !c_blank(p[e])) e++;
		add_key(p + k, e - k, lineno);
		while (e < keysn && c_blank(p[e])) e++;
		k = e;
	}
	if (value_here) {
		finish_entry(parse_count(last, lastn, lineno), lineno);
	} else {
		D.seg_open = false; /* the next frame line begins another stack */
		D.trail_open = true;
	}
	return true;
}

static void convert(input *in)
{
	D.fname = input_name(in);
	sniff_refuse_other(in, "dtrace2spaa", "DTrace output");
	reset_entry();
	char *line;
	size_t n;
	bool nl = true;
	for (;;) {
		uint64_t at = input_offset(in);
		if (!(line = input_line(in, &n))) break;
		/* DTrace ends every line with a newline: a last line without
		 * one is a file cut short */
		nl = input_offset(in) - at > n;
		while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r')) n--;
		/* i: the indentation in columns, a tab to the next multiple of
		 * 8 (a file whose blanks became tabs) */
		size_t i = 0, b = 0;
		for (; b < n && c_blank(line[b]); b++) i = line[b] == '\t' ? (i / 8 + 1) * 8 : i + 1;
		const char *p = line + b;
		size_t pn = n - b;
		if (pn == 0) {
			if (D.trail_open)
				die_at(D.fname, input_lineno(in),
				       "blank line after the keys of the entry at line %llu: its count is missing",
				       (unsigned long long)D.entry_line);
			if (D.seg_open) D.seg_open = false; /* a second stack may follow */
			else if (D.nst == 0) reset_entry(); /* keys without a stack: banner text */
			continue;
		}
		bool frames_yet = D.nst > 0;
		if (frames_yet) {
			if (after_stack_line(p, pn, i, input_lineno(in))) continue;
		} else if (all_digits(p, pn, true) && i >= FRAME_INDENT) {
			finish_entry(parse_count(p, pn, input_lineno(in)), input_lineno(in));
			continue;
		}
		if (!frames_yet && i < FRAME_INDENT && !frame_shaped(p, pn)) {
			/* a scalar key, or banner text (dropped at the next blank line) */
			/* several scalar keys share a line, blank-separated */
			for (size_t k = 0; k < pn;) {
				size_t e = k;
				while (e < pn && !c_blank(p[e])) e++;
				if (D.nsk == MAXKEYS) {
					/* text, not keys (a printf before the entries) */
					warn_at(D.fname, input_lineno(in), "warning: more than %d keys: line ignored", MAXKEYS);
					D.nsk = 0;
					D.sb.n = 0;
					break;
				}
				D.sk[D.nsk].off = (uint32_t)D.sb.n;
				D.sk[D.nsk].len = (uint32_t)(e - k);
				D.sk[D.nsk].nst = 0;
				D.nsk++;
				sbuf_add(&D.sb, p + k, e - k);
				while (e < pn && c_blank(p[e])) e++;
				k = e;
			}
			continue;
		}
		/* a frame line */
		if (!D.seg_open) {
			if (D.nst == MAXSTACKS)
				die_at(D.fname, input_lineno(in), "more than %d stacks in an entry", MAXSTACKS);
			D.st_start[D.nst++] = D.nfl;
			D.seg_open = true;
			D.trail_open = false;
			D.ntrail = 0;
			D.fr_indent = i;
			if (D.nst == 1) D.entry_line = input_lineno(in);
		}
		/* interned at the end of the entry, when the kinds are known */
		VEC_PUSH(D.fl, D.nfl, D.flcap);
		D.fl[D.nfl - 1].off = (uint32_t)D.sb.n;
		D.fl[D.nfl - 1].len = (uint32_t)pn;
		sbuf_add(&D.sb, p, pn);
	}
	if (!nl) die_cut_line(D.fname, input_lineno(in));
	if (D.nst)
		die_at(D.fname, D.entry_line, "truncated entry: stack without a count at the end of the input");
	if (D.nsk)
		die_at(D.fname, input_lineno(in), "keys without a stack or count at the end of the input: the file is cut short");
}

static void parse_keys(const char *arg)
{
	D.have_keys = true;
	uint32_t nst = 0; /* stacks so far */
	const char *s = arg;
	while (*s) {
		const char *e = strchr(s, ',');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		if (D.nkeys == MAXKEYS + MAXSTACKS) usage_error("--keys: too many keys");
		if (n == 0) usage_error("--keys: empty key name in '%s'", arg);
		char *name = xmemdup(s, n);
		for (size_t i = 0; i < n; i++)
			if (!(c_digit(name[i]) || (name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') || name[i] == '_'))
				usage_error("--keys: bad key name '%s'", name);
		enum keykind k = K_OTHER;
		if (!strcmp(name, "ustack") || !strcmp(name, "jstack")) k = K_USTACK;
		else if (!strcmp(name, "stack") || !strcmp(name, "kstack")) k = K_KSTACK;
		else if (!strcmp(name, "execname") || !strcmp(name, "comm")) k = K_COMM;
		else if (!strcmp(name, "pid")) k = K_PID;
		else if (!strcmp(name, "tid")) k = K_TID;
		D.keys[D.nkeys].kind = k;
		D.keys[D.nkeys].name = name;
		D.keys[D.nkeys].nst = nst;
		nst += k == K_USTACK || k == K_KSTACK;
		D.nkeys++;
		if (!e) break;
		s = e + 1;
	}
	if (nst > MAXSTACKS) usage_error("--keys: at most %d stacks", MAXSTACKS);
}

/* its options, for getopt_long and the registry (readers/registry.h) */
const struct option dtrace_longopts[] = {
	{ "event", required_argument, 0, 'e' },
	{ "frequency", required_argument, 0, 'F' },
	{ "keys", required_argument, 0, 'k' },
	CLI_OUT_LONGOPTS,
	CLI_STD_LONGOPTS,
	{ 0, 0, 0, 0 }
};
const char dtrace_shortopts[] = "F:k:o:zhV";

/* the converter dtrace2spaa: argv as it gets it (argv[0] its name); the
 * exit status (readers/readers.h) */
int dtrace_read(int argc, char **argv)
{
	/* a fresh state: the fuzz target (fuzz/fuzz_cmd.c) calls dtrace_read again */
	memset(&D, 0, sizeof D);
	const char *outpath = NULL, *event = "profile-997";
	bool zstd = false, have_freq = false;
	uint64_t freq = 0;
	int c;
	while ((c = getopt_long(argc, argv, dtrace_shortopts, dtrace_longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (!*optarg) usage_error("--event: empty name");
			event = optarg;
			break;
		case 'F':
			freq = opt_u64("--frequency", optarg);
			if (!freq) usage_error("--frequency: must be at least 1");
			have_freq = true;
			break;
		case 'k': parse_keys(optarg); break;
		CLI_OUT_CASES(outpath, zstd);
		CLI_STD_CASES(help);
		}
	}

	D.b = builder_new();
	builder_source_tool(D.b, "dtrace");
	/* profile-N / tick-N (optionally with a unit suffix: profile-1ms is not
	 * a rate, so only plain numbers and "hz" give frequency_hz) */
	bool timer = false;
	const char *rate = NULL;
	const char *colon = strrchr(event, ':');
	const char *base = colon ? colon + 1 : event;
	if (!strncmp(base, "profile-", 8)) rate = base + 8, timer = true;
	else if (!strncmp(base, "tick-", 5)) rate = base + 5, timer = true;
	if (timer && !have_freq && rate) {
		size_t nn = strlen(rate);
		if (nn > 2 && !strcmp(rate + nn - 2, "hz")) nn -= 2;
		uint64_t v;
		if (all_digits(rate, nn, false) && parse_u64(rate, nn, &v) && v > 0) freq = v, have_freq = true;
	}
	char extra[48];
	if (have_freq) snprintf(extra, sizeof extra, "\"frequency_hz\":%llu", (unsigned long long)freq);
	D.event = builder_event(D.b, event, timer ? "timer" : "probe", timer ? "frequency" : "event",
				timer ? "samples" : "count", have_freq ? extra : NULL);
	D.metric = builder_metric(D.b, timer ? "samples" : "count", NULL);

	const char *what;
	uint64_t nlines = input_each(argv + optind, argc - optind, convert, &what); /* for the message when nothing is found */

	if (!D.nentries && !nlines) die_empty_input(what);
	if (!D.nentries)
		die_no_stacks(what, "%llu line%s, no stack aggregation entry (printa output of @[...] = count())",
			      (unsigned long long)nlines, nlines == 1 ? "" : "s");
	reader_finish(D.b, outpath, zstd);
	return EXIT_OK;
}
