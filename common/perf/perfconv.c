/* perfconv.c - perf samples into a SPAA builder (see perfconv.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "perfconv.h"
#include "naming.h"
#include "perfdata.h"
#include "perfsym.h"
#include "procmap.h"
#include "spaa.h"
#include "stackid.h"
#include "strmap.h"
#include "unwind.h"
#include "uwpool.h"

/* ---- shared with the text path ------------------------------------------- */

static bool name_in(const char *s, size_t n, const char *const *list)
{
	for (; *list; list++)
		if (strlen(*list) == n && memcmp(*list, s, n) == 0) return true;
	return false;
}

/* The base name of event name ("cycles" of "cycles:u" and of
 * "cpu/cycles/"), *bn its length; NULL for a tracepoint ("a:b" with b not
 * a modifier string). */
static const char *event_base(const char *name, size_t n, size_t *bn)
{
	const char *colon = memchr(name, ':', n);
	*bn = n;
	if (colon) {
		bool mods = colon + 1 < name + n;
		for (const char *p = colon + 1; p < name + n; p++)
			if (!strchr("ukhIGHpPSDWebR", *p) || *p == 0) mods = false;
		if (!mods) return NULL;
		*bn = (size_t)(colon - name);
	}
	/* pmu/event/ -> event */
	const char *base = name;
	if (*bn > 2 && name[*bn - 1] == '/') {
		const char *sl = memchr(name, '/', *bn - 1);
		if (sl) {
			base = sl + 1;
			*bn = (size_t)(name + *bn - 1 - base);
		}
	}
	return base;
}

/* The software events that count occurrences: a sample's period is a
 * number of them (perf report's "Event count"). */
static const char *const counted[] = { "page-faults", "faults", "minor-faults", "major-faults",
	"context-switches", "cs", "cpu-migrations", "migrations", "alignment-faults", "emulation-faults",
	"cgroup-switches", NULL };

/* "cycles:u" keeps the base kind; "a:b" with b not a modifier string is a
 * tracepoint (probe). */
const char *perf_event_kind(const char *name, size_t n)
{
	static const char *const sw[] = { "cpu-clock", "task-clock", "dummy", "bpf-output", NULL };
	size_t bn;
	const char *base = event_base(name, n, &bn);
	if (!base) return "probe";
	if (name_in(base, bn, sw) || name_in(base, bn, counted)) return "software";
	return "hardware";
}

bool perf_event_counts(const char *name, size_t n)
{
	size_t bn;
	const char *base = event_base(name, n, &bn);
	return base && name_in(base, bn, counted);
}

uint32_t perfconv_count_metric(builder *b, uint32_t event)
{
	const char *nm = builder_event_name(b, event);
	return perf_event_counts(nm, strlen(nm)) ? builder_metric(b, "count", NULL) : UINT32_MAX;
}

uint32_t perfconv_event_as(builder *b, const char *name, size_t n, bool has_period)
{
	int32_t e = builder_event_find(b, name, n);
	if (e >= 0) return (uint32_t)e;
	char *nm = xmemdup(name, n);
	const char *kind = perf_event_kind(name, n);
	/* the primary metric: period; count for an event that counts
	 * occurrences (page-faults), its periods' sum, beside period; and
	 * samples for a sampled event whose first sample has no period (perf
	 * script -F without period: 1 per sample is no time nor count) */
	bool probe = strcmp(kind, "probe") == 0;
	const char *primary = perf_event_counts(name, n) ? "count" : "period";
	if (!has_period && !probe) primary = "samples";
	uint32_t i = builder_event(b, nm, kind, probe ? "event" : "period", primary, NULL);
	free(nm);
	return i;
}

uint32_t perfconv_event(builder *b, const char *name, size_t n)
{
	return perfconv_event_as(b, name, n, true);
}

bool perf_dso_is_kernel(sstr d)
{
	return naming_dso_is_kernel(d.p, d.n);
}

void perf_frame_fill(builder *b, sstr ip, sstr sym, sstr symoff, sstr dso, bool nosym, char ipbuf[static 64],
		     builder_frame *fr)
{
	memset(fr, 0, sizeof *fr);
	if (!(ip.n >= 2 && ip.p[0] == '0' && (ip.p[1] == 'x' || ip.p[1] == 'X')) && ip.n + 2 < 64) {
		ipbuf[0] = '0';
		ipbuf[1] = 'x';
		memcpy(ipbuf + 2, ip.p, ip.n);
		ip = (sstr){ ipbuf, ip.n + 2 };
	}
	fr->ip = ip;
	fr->symoff = symoff;
	fr->func_resolved = true;
	if (sym.n == 0 || sstr_eqc(sym, "[unknown]")) {
		/* an unresolved frame; one printed with no symbol at all
		 * (perf 3.x: "IP  (DSO)") is marked, as spaa-fold names it
		 * " " the way stackcollapse-perf.pl does */
		if (nosym) fr->extra_json = "\"x_perf_nosym\":true";
		fr->func = ip;
		fr->func_resolved = false;
		if (!nosym && builder_is_lean(b, BUILDER_NO_ADDRS)) {
			/* one frame a dso for a garbage frame-pointer chain's
			 * many addresses (named by an empty name, which no
			 * symbol has: not perf2spaa's own "[unknown]" frames) */
			fr->func = sstr_c("");
			fr->ip = fr->symoff = SSTR_NULL;
		}
	} else {
		fr->func = sym;
	}
	if (!dso.p) return; /* the caller's (inlined frames) */
	fr->kind = (uint8_t)naming_dso_kind(dso.p, dso.n);
	fr->dso = builder_dso(b, dso.p, dso.n, fr->kind == FK_KERNEL);
	fr->inline_depth = -1;
}

/* ---- perf.data ----------------------------------------------------------- */

#define CONTEXT_HV ((uint64_t)-32)
#define CONTEXT_KERNEL ((uint64_t)-128)
#define CONTEXT_USER ((uint64_t)-512)
#define CONTEXT_MAX ((uint64_t)-4095)
#define MAX_STACK 127  /* perf script's (PERF_MAX_STACK_DEPTH) */
#define MISC_CPUMODE_MASK 7
#define MISC_KERNEL 1
#define MISC_USER 2
#define MISC_FORK_EXEC (1 << 13)
#define TYPE_TRACEPOINT 2

/* The binary path runs in two stages: the resolver (the caller's thread)
 * reads the records in perf's order, keeps the processes and their
 * mappings, and turns each sample into its context and a list of frame
 * numbers, naming each (dso, address) the first time it is met; the
 * builder stage (a thread of its own with -j 2 or more, else the same
 * thread) takes those batches in order and makes the builder's frames and
 * stacks of them.  Frame and stack numbers are given out by the resolver
 * in the order of first sight, and the builder stage makes its frames and
 * stacks in that same order, so the profile is the same byte for byte
 * whatever the number of threads. */

/* What the resolver hands the builder stage, in batches of ops. */
enum { OP_EVENT = 1, OP_FRAMES, OP_SAMPLE, OP_OFFCPU, OP_DSO };
/* stage_frames: a new stack's frames are entries (dso, address), each
 * named and numbered by the builder stage the first time it meets it; the
 * entry ENT_RESET drops those before it (a corrupt callchain, which perf
 * drops once its frames before the corruption are named) */
#define ENT_RESET 0xfffffffeu
#define BATCH_BYTES (1u << 18)
#define NBATCH 32

struct batch { sbuf ops; };

/* A sample whose new stack is prepared (builder_stack_prepare) and not
 * yet finished: it is at the next sample or at the batch's end, so that
 * the lookup of its stack's slot waits for memory while the ops between
 * are made. */
struct spend {
	bool active;
	uint32_t stack, attr;
	uint8_t fl;
	uint64_t period, us;
	uint32_t cpu;
	const char *file;     /* its record's file and offset, for an overflow's message */
	uint64_t off;
};

/* The frame cache: (dso, address) -> dense index (fc_intern_h), open
 * addressing with the keys in the slots (one cache miss a lookup, where a
 * string map has two): the resolver's, or with stage_frames the builder
 * stage's. */
struct fcache {
	struct fcent { uint64_t addr; uint32_t dso, idx; } *fc; /* idx: the index + 1, 0 free */
	uint32_t slots, n;
};

/* The builder stage's state: touched by it alone. */
struct bstage {
	builder *b;
	const perfconv_opts *o;
	uint32_t *bidx;       /* frame number -> builder frame */
	uint32_t nbidx, bicap;
	uint32_t *sval;       /* stack number -> builder stack */
	uint32_t svcap;
	uint32_t *evmap;      /* attr -> builder event */
	uint32_t *evcount;    /* attr -> its metric "count", UINT32_MAX none (perfconv_count_metric) */
	uint32_t evcap;
	uint32_t *frames;
	uint32_t frcap;
	uint32_t nochain;
	uint64_t *faddr;      /* --addresses: frame number -> its address */
	uint32_t facap;
	struct bdso { uint32_t dso; uint8_t kind; /* resolver dso + 1 -> builder dso, */
		      uint8_t how;    /* UINT32_MAX not yet met; stage_frames: 0 its */
		      perfsym *tab;   /* addresses unnamed, 1 named from tab at the */
		      int64_t delta;  /* address less delta, 2 named by the resolver */
	} *dmap;
	uint32_t dmcap;
	/* stage_frames: the frame cache of (dso + 1, address), whose index
	 * is the frame number (one frame an address: no --inline) */
	bool stage_frames;
	struct fcache fc;
	int64_t last_tid;     /* the thread builder_thread was last told of, INT64_MIN none */
	struct spend pend;    /* the sample whose stack is prepared in bp */
	builder_pending bp;
	sbuf extra;
	sbuf dm;              /* the demangled names of its look-ups (perfsym_find_r) */
	/* off-cpu: the context and frames of each sched_switch stack (its
	 * stack number -> offset + 1 in swdata, 0 none), the off-cpu stack
	 * made of it (+ 1, 0 none), the event and its metric */
	uint32_t *swinfo, *offst;
	uint32_t swcap, offcap;
	sbuf swdata;
	uint32_t ev_off, m_off;
	bool has_off;
};

/* The queue between the stages (-j 2 and more). */
struct queue {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct batch b[NBATCH];
	uint32_t head, tail;  /* filled: [head, tail) mod NBATCH */
	bool done;
};

/* The fields are grouped by the threads that write them: a line one
 * thread writes at every sample and another reads costs both a miss each
 * time (the reader's group, and the caller's totals, kept apart). */
struct conv {
	builder *b;
	const perfconv_opts *o;
	perfconv_totals *t;   /* the caller's totals, tot while reading */
	perfdata *d;
	procmap *pm;
	/* -j 2 and more, a capture of dwarf samples: the reading thread's
	 * (file mode: the batches taken back and their samples finished on
	 * a thread of their own, fin, while this one reads on) */
	_Alignas(64) uwpool *pool;
	pthread_t fin, reader;
	bool fin_on;
	const uint8_t *keep;  /* the lowest lasting stack of the pool's samples (perfdata_keep) */
	procmap *pmr;          /* the processes as the reader is, ahead of pm: their
				* mappings for the unwinding (NULL: one procmap) */
	_Alignas(64) struct fcache fc;     /* (dso, address) -> index i: its frames are numbers fval[i]..+fcnt[i] */
	uint32_t *fval, *fcnt;
	uint32_t fvcap, fccap, nframes;
	bool multi;           /* an address has several frames (inlined calls): fval[i] is no longer i */
	uint32_t *frames;
	uint32_t frcap;
	bool *evseen;         /* attr -> its OP_EVENT is sent */
	uint32_t evcap;
	bool *dsent;          /* dso + 1 -> its name is sent (in an OP_FRAMES, or OP_DSO) */
	uint32_t dscap;
	uint8_t *dhow;        /* stage_frames: dso + 1 -> its struct bdso how */
	/* stage_frames (a lean profile read on threads, defer_names, without
	 * --addresses): this thread only finds each address's mapping, and
	 * the builder stage keeps the frame cache, names and numbers the
	 * frames (its work is the lighter, the profile having no content
	 * ids); a new stack's entries (ENT_RESET) in ents, nent of them */
	bool stage_frames;
	sbuf ents;
	uint32_t nent;
	sbuf name;
	sbuf src;             /* the source line of the address at hand */
	uint32_t nbids;       /* the capture's build ids taken (machine_info) */
	uint32_t nbids_r;     /* those taken into pmr */
	bool has_kbid;
	char kbid[48];        /* the kernel's, when has_kbid */
	/* user stacks of dwarf and LBR captures (unwind.h) */
	unwind *uw;
	uint64_t *ustack;      /* the unwound addresses of a dwarf sample */
	uint32_t ucap;
	uint64_t *lbr;         /* the stitched callchain of an LBR sample */
	uint32_t lbrcap;
	uint64_t nregs32, nnoarch;
	uint32_t nu;           /* the addresses in ustack of the sample at hand */
	/* -j 2 and more: the user stacks unwound on threads (uwpool.h), the
	 * samples queued with them and finished in file order; the sample at
	 * hand's unwound stack when pre (and its record's file) */
	bool pre;
	const uint64_t *pre_ips;
	uint32_t pre_n;
	int pre_why;
	const char *pre_file;
	perfconv_totals tot;
	strmap scache;        /* (event, pid, tid, state, raw callchain) -> stack number */
	sbuf skey;
	/* a sample whose stack cache lookup waits for the next record (its key
	 * in skey, its slot prefetched): the key's miss overlaps the reading */
	struct cpend {
		bool active;
		bool has_period, has_time, has_cpu, has_ip;
		uint8_t ipmode;       /* the sampled address's: 0 user, 1 kernel, 2 neither */
		uint32_t attr, th, h, cpu;
		int32_t pid, tid;
		uint64_t nchain, period, us, ip;
		uint64_t off;         /* the record's offset in file */
		const char *file;
		uint64_t ns;          /* its time (has_time) */
		bool swev;            /* a sample of sched:sched_switch (its stacks kept for off-cpu) */
		bool sw;              /* one whose raw data was read: */
		int32_t prev_pid, next_pid; /* the threads switched out and in */
	} pend;
	/* off-cpu: the threads switched out and not yet seen running again
	 * (tid -> the sched_switch sample's stack number and time), open
	 * addressing by tid; the last time of any record (the capture's end) */
	struct otid { int32_t tid; bool used, open, exited; uint32_t stack; uint64_t ns, off; const char *file; } *ot;
	uint32_t otslots, otn;
	uint64_t last_ns;
	bool has_last;
	/* the symbols of new addresses may be looked up by the builder stage
	 * (perfsym_find_r: a loaded table is only read) rather than here:
	 * -j 2 and more, a file of no dwarf samples, without --inline and
	 * --srcline; each time the stage is not behind (stage_behind) */
	bool defer_names;
	/* the profile names no address outside the mappings by its value
	 * (BUILDER_NO_ADDRS, without --addresses): all are one frame
	 * cache entry, address 0 (a garbage chain's many make one frame) */
	bool one_unmapped;
	/* the batch being filled, and the stages' hand-over */
	struct batch *cur;
	struct batch own;     /* -j 1: the one batch */
	uint32_t nsamp;       /* samples in cur */
	bool threaded;
	struct queue q;
	pthread_t th;
	struct bstage bs;
};

static void put(struct batch *t, const void *p, size_t n) { sbuf_add(&t->ops, p, n); }
static void put32(struct batch *t, uint32_t v) { put(t, &v, 4); }
static void put64(struct batch *t, uint64_t v) { put(t, &v, 8); }
static void putstr(struct batch *t, const char *s, size_t n)
{
	put32(t, (uint32_t)n);
	put(t, s, n);
}

/* The key's dso of a dwarf-unwound address named as perf names those
 * (frames_at): its own frames. */
#define FC_UNWOUND 0x80000000u
static inline uint32_t fc_dso(uint32_t dso, bool unwound) { return unwound ? dso ^ FC_UNWOUND : dso; }

static uint64_t fc_hash(uint32_t dso, uint64_t addr)
{
	uint64_t h = (addr ^ ((uint64_t)dso << 40 | dso)) * 0x9e3779b97f4a7c15ULL;
	return h ^ h >> 29;
}

static void fc_prefetch(const struct fcache *c, uint32_t h)
{
	if (c->slots) __builtin_prefetch(&c->fc[h & (c->slots - 1)]);
}

/* The dense index of (dso, addr) (in order of first sight), a key whose
 * fc_hash is h */
static uint32_t fc_intern_h(struct fcache *c, uint32_t dso, uint64_t addr, uint32_t h, bool *added)
{
	if (2 * (c->n + 1) > c->slots) {
		uint32_t ns = c->slots ? 2 * c->slots : 1024;
		/* written before it is read (as strmap's slots): calloc's
		 * untouched pages would fault twice, on the first probe and
		 * on the first store */
		struct fcent *t = xmalloc_table((size_t)ns * sizeof *t);
		memset(t, 0, (size_t)ns * sizeof *t);
		for (uint32_t i = 0; i < c->slots; i++) {
			struct fcent *e = &c->fc[i];
			if (!e->idx) continue;
			uint32_t j = (uint32_t)fc_hash(e->dso, e->addr) & (ns - 1);
			while (t[j].idx) j = (j + 1) & (ns - 1);
			t[j] = *e;
		}
		free(c->fc);
		c->fc = t;
		c->slots = ns;
	}
	uint32_t j = h & (c->slots - 1);
	for (;;) {
		struct fcent *e = &c->fc[j];
		if (!e->idx) {
			e->addr = addr;
			e->dso = dso;
			e->idx = ++c->n;
			*added = true;
			return e->idx - 1;
		}
		if (e->addr == addr && e->dso == dso) {
			*added = false;
			return e->idx - 1;
		}
		j = (j + 1) & (c->slots - 1);
	}
}

/* Has the builder stage STAGE_BEHIND batches or more still to make?  Then
 * this thread names new addresses itself, else the stage does (a symbol
 * look-up is the work that may go to either): the two stay busy whichever
 * has more to do of the rest, and the frames are the same either way.  (A
 * profile of content ids, perf2spaa's, gives the stage more to do than
 * the resolver; the lean one of spaa-fold, less.) */
enum { STAGE_BEHIND = NBATCH / 4 };
static bool stage_behind(struct conv *c)
{
	return c->q.tail - __atomic_load_n(&c->q.head, __ATOMIC_RELAXED) >= STAGE_BEHIND;
}

/* Is dk (dso + 1) sent to the builder stage for the first time?  Then
 * it is marked sent (its dhow slot made too). */
static bool dso_first(struct conv *c, uint32_t dk)
{
	if (dk < c->dscap && c->dsent[dk]) return false;
	if (dk >= c->dscap) {
		uint32_t old = c->dscap;
		grow_array((void **)&c->dsent, &c->dscap, dk + 1, sizeof *c->dsent);
		memset(c->dsent + old, 0, (c->dscap - old) * sizeof *c->dsent);
		c->dhow = xrealloc(c->dhow, c->dscap);
	}
	c->dsent[dk] = true;
	return true;
}

/* Appends the frame numbers of ip in thread (mode 0 user, 1 kernel, 2
 * neither: hypervisor, guest) to c->frames at *nfr: one, or with --inline
 * the calls inlined there, innermost first, then the function they are in,
 * as the text path makes them of perf script --inline's lines.  A (dso,
 * address) met for the first time is named here and sent to the builder
 * stage (OP_FRAMES), which makes its frames (frames_make). */
static void frames_at(struct conv *c, uint32_t dso, uint64_t addr, uint32_t h, bool unwound, uint32_t *nfr)
{
	bool added;
	uint32_t ci = fc_intern_h(&c->fc, fc_dso(dso, unwound), addr, h, &added);
	if (added) {
		c->name.n = 0;
		uint64_t off = 0, taddr = 0;
		perfsym *tab = NULL;
		/* the symbol looked up by the builder stage (defer_names), or
		 * here */
		bool defer = c->defer_names && !stage_behind(c) && procmap_symtab(c->pm, dso, addr, &tab, &taddr);
		bool named = !defer && procmap_symbol(c->pm, dso, addr, &c->name, &off);
		/* its source line first (the look-up reuses the inlined
		 * names' memory) */
		c->src.n = 0;
		bool has_src = c->o->srclines && named && procmap_srcline(c->pm, dso, addr, &c->src);
		uint32_t ninl = 0;
		const char *const *inl = NULL;
		if (unwound && named) {
			/* perf script names a dwarf-unwound address by
			 * addr2line's functions there (machine.c's
			 * append_inlines, srcline.c's new_inline_sym): the
			 * function holding the inlined calls by its DWARF
			 * name, which replaces the symbol's when they differ */
			inl = procmap_addr2line(c->pm, dso, addr, &ninl);
			if (ninl) {
				ninl--;
				size_t l = strlen(inl[ninl]);
				if (l != c->name.n || memcmp(inl[ninl], c->name.p, l) != 0) {
					c->name.n = 0;
					sbuf_adds(&c->name, inl[ninl]);
				}
			}
		} else if (c->o->inline_frames && named) {
			inl = procmap_inlined(c->pm, dso, addr, &ninl);
		}
		struct batch *t = c->cur;
		put(t, &(uint8_t){ OP_FRAMES }, 1);
		put64(t, addr);
		if (defer && tab) {
			put(t, &(uint8_t){ 2 }, 1);
			put(t, &tab, sizeof tab);
			put64(t, taddr);
		} else {
			put(t, &(uint8_t){ named }, 1);
			if (named) {
				put64(t, off);
				putstr(t, c->name.p, c->name.n);
			}
		}
		/* the dso: its number, and its name the first time */
		uint32_t dk = dso + 1; /* (UINT32_MAX: 0) */
		if (dso_first(c, dk)) {
			const char *dn = procmap_dso_name(c->pm, dso);
			put32(t, dk);
			put(t, &(uint8_t){ 1 }, 1);
			putstr(t, dn, strlen(dn));
		} else {
			put32(t, dk);
			put(t, &(uint8_t){ 0 }, 1);
		}
		put(t, &(uint8_t){ has_src }, 1);
		if (has_src) putstr(t, c->src.p, c->src.n);
		put32(t, ninl);
		for (uint32_t k = 0; k < ninl; k++) putstr(t, inl[k], strlen(inl[k]));
		grow_array((void **)&c->fval, &c->fvcap, ci + 1, sizeof *c->fval);
		grow_array((void **)&c->fcnt, &c->fccap, ci + 1, sizeof *c->fcnt);
		c->fval[ci] = c->nframes;
		c->fcnt[ci] = ninl + 1;
		c->nframes += ninl + 1;
		if (ninl) c->multi = true;
	}
	if (!c->multi) { /* one frame each so far: numbered as the cache */
		grow_array((void **)&c->frames, &c->frcap, *nfr + 2, sizeof *c->frames);
		c->frames[(*nfr)++] = ci;
		return;
	}
	uint32_t n = c->fcnt[ci], f0 = c->fval[ci];
	grow_array((void **)&c->frames, &c->frcap, *nfr + n + 1, sizeof *c->frames);
	for (uint32_t k = 0; k < n; k++) c->frames[*nfr + k] = f0 + k;
	*nfr += n;
}

/* stage_frames: dso made known to the builder stage the first time
 * (OP_DSO: its name, and how its addresses are named, as procmap_symtab
 * says for addr); its struct bdso how. */
static uint8_t dso_sent(struct conv *c, uint32_t dso, uint64_t addr)
{
	uint32_t dk = dso + 1; /* (UINT32_MAX: 0) */
	if (!dso_first(c, dk)) return c->dhow[dk];
	perfsym *tab = NULL;
	uint64_t taddr = addr;
	uint8_t how = !procmap_symtab(c->pm, dso, addr, &tab, &taddr) ? 2 : tab ? 1 : 0;
	c->dhow[dk] = how;
	struct batch *t = c->cur;
	const char *dn = procmap_dso_name(c->pm, dso);
	put(t, &(uint8_t){ OP_DSO }, 1);
	put32(t, dk);
	putstr(t, dn, strlen(dn));
	put(t, &how, 1);
	put(t, &tab, sizeof tab);
	put64(t, addr - taddr);
	return how;
}

/* stage_frames: the entry of ip's frame (see ENT_RESET) in c->ents */
static void entry_of(struct conv *c, uint32_t thread, int mode, uint64_t ip, uint32_t *nfr)
{
	uint64_t addr = ip;
	uint32_t dso = mode == 2 ? UINT32_MAX : procmap_find(c->pm, thread, mode == 1, ip, &addr);
	if (dso == UINT32_MAX && c->one_unmapped) addr = 0;
	uint8_t how = dso_sent(c, dso, addr);
	sbuf_add(&c->ents, &dso, 4);
	sbuf_add(&c->ents, &addr, 8);
	if (how == 2) { /* a JIT map's symbol, named here (at every entry) */
		c->name.n = 0;
		uint64_t off = 0;
		bool named = procmap_symbol(c->pm, dso, addr, &c->name, &off);
		sbuf_addc(&c->ents, (char)named);
		if (named) {
			sbuf_add(&c->ents, &off, 8);
			uint32_t n = (uint32_t)c->name.n;
			sbuf_add(&c->ents, &n, 4);
			sbuf_add(&c->ents, c->name.p, n);
		}
	}
	c->nent++;
	(*nfr)++;
}

/* unwound: an address of a dwarf-unwound user stack, with --inline */
static void frames_of(struct conv *c, uint32_t thread, int mode, uint64_t ip, bool unwound, uint32_t *nfr)
{
	if (c->stage_frames) {
		entry_of(c, thread, mode, ip, nfr);
		return;
	}
	uint64_t addr = ip;
	uint32_t dso = mode == 2 ? UINT32_MAX : procmap_find(c->pm, thread, mode == 1, ip, &addr);
	if (dso == UINT32_MAX && c->one_unmapped) addr = 0;
	frames_at(c, dso, addr, (uint32_t)fc_hash(fc_dso(dso, unwound), addr), unwound, nfr);
}

/* The next address of a callchain, from entry *i on, in *ip; perf's
 * context markers before it set *mode (0 user, 1 kernel, 2 neither).
 * 1: an address; 0: the end; -1: a marker perf takes the callchain for
 * corrupt by, and drops all of it. */
static int chain_next(const uint8_t *chain, uint64_t nchain, uint64_t *i, int *mode, uint64_t *ip)
{
	while (*i < nchain) {
		uint64_t v = pd_u64(chain, (*i)++);
		if (v < CONTEXT_MAX) {
			*ip = v;
			return 1;
		}
		if (v != CONTEXT_KERNEL && v != CONTEXT_USER && v != CONTEXT_HV) return -1;
		*mode = v == CONTEXT_KERNEL ? 1 : v == CONTEXT_USER ? 0 : 2;
	}
	return 0;
}

/* The frames of a callchain (c->frames, *nfr of them), as frames_of
 * entry by entry (MAX_STACK entries, as perf counts them: the calls
 * inlined at one are not entries of their own); none when perf drops it.
 * Without --inline (one frame an entry), its entries are first all
 * placed and their cache slots prefetched, so that their lookups wait for
 * memory together (the frames before a corrupt marker are named all the
 * same, as perf names them). */
static void chain_frames(struct conv *c, uint32_t th, const uint8_t *chain, uint64_t nchain, uint32_t *nfr)
{
	int mode = 0, k = 0;
	uint64_t i = 0, ip, n = 0;
	if (c->stage_frames) {
		while (n < MAX_STACK && (k = chain_next(chain, nchain, &i, &mode, &ip)) > 0) {
			entry_of(c, th, mode, ip, nfr);
			n++;
		}
		if (k < 0) {
			uint32_t r = ENT_RESET;
			sbuf_add(&c->ents, &r, 4);
			c->nent++;
			*nfr = 0;
		}
		return;
	}
	if (!c->o->inline_frames) {
		struct { uint64_t addr; uint32_t dso, h; } q[MAX_STACK];
		while (n < MAX_STACK && (k = chain_next(chain, nchain, &i, &mode, &ip)) > 0) {
			q[n].addr = ip;
			q[n].dso = mode == 2 ? UINT32_MAX : procmap_find(c->pm, th, mode == 1, ip, &q[n].addr);
			if (q[n].dso == UINT32_MAX && c->one_unmapped) q[n].addr = 0;
			q[n].h = (uint32_t)fc_hash(q[n].dso, q[n].addr);
			fc_prefetch(&c->fc, q[n].h);
			n++;
		}
		for (uint64_t j = 0; j < n; j++) frames_at(c, q[j].dso, q[j].addr, q[j].h, false, nfr);
		if (k < 0) *nfr = 0;
		return;
	}
	while (n < MAX_STACK && (k = chain_next(chain, nchain, &i, &mode, &ip)) > 0) {
		frames_of(c, th, mode, ip, false, nfr);
		n++;
	}
	if (k < 0) *nfr = 0;
}

/* ---- the builder stage ---------------------------------------------------- */

struct rd { const uint8_t *p, *end; };

static uint32_t get32r(struct rd *r) { uint32_t v; memcpy(&v, r->p, 4); r->p += 4; return v; }
static uint64_t get64r(struct rd *r) { uint64_t v; memcpy(&v, r->p, 8); r->p += 8; return v; }
static uint8_t get8r(struct rd *r) { return *r->p++; }
static sstr getstr(struct rd *r)
{
	uint32_t n = get32r(r);
	sstr s = { (const char *)r->p, n };
	r->p += n;
	return s;
}

static void frame_make(struct bstage *s, uint64_t addr, bool named, uint64_t off, sstr name, uint32_t dk, sstr dn,
		       sstr src, uint32_t ninl, struct rd *r);

/* The frames of one (dso, address) (an OP_FRAMES), numbered in order. */
static void frames_make(struct bstage *s, struct rd *r)
{
	uint64_t addr = get64r(r), off = 0;
	uint8_t how = get8r(r);
	bool named = how != 0;
	sstr name = sstr_c("[unknown]");
	if (how == 1) {
		off = get64r(r);
		name = getstr(r);
	} else if (how == 2) { /* looked up here (defer_names) */
		perfsym *tab;
		memcpy(&tab, r->p, sizeof tab);
		r->p += sizeof tab;
		const char *sym = perfsym_find_r(tab, get64r(r), &off, &s->dm);
		named = sym != NULL;
		if (sym) name = sstr_c(sym);
	}
	uint32_t dk = get32r(r);
	sstr dn = get8r(r) ? getstr(r) : SSTR_NULL;
	/* its source line (--srcline): the innermost frame's */
	sstr src = get8r(r) ? getstr(r) : SSTR_NULL;
	uint32_t ninl = get32r(r);
	frame_make(s, addr, named, off, name, dk, dn, src, ninl, r);
}

/* dmap room for dk */
static void dmap_reserve(struct bstage *s, uint32_t dk)
{
	if (dk < s->dmcap) return;
	uint32_t old = s->dmcap;
	grow_array((void **)&s->dmap, &s->dmcap, dk + 1, sizeof *s->dmap);
	for (uint32_t i = old; i < s->dmcap; i++) s->dmap[i] = (struct bdso){ .dso = UINT32_MAX };
}

/* The frames of (dk, addr) (named: name, at off), numbered in order: with
 * ninl, the names of the calls inlined there from r, innermost first; dn:
 * its dso's name the first time (its first frame makes the builder's dso) */
static void frame_make(struct bstage *s, uint64_t addr, bool named, uint64_t off, sstr name, uint32_t dk, sstr dn,
		       sstr src, uint32_t ninl, struct rd *r)
{
	char iptext[24], offtext[24], ipbuf[64];
	size_t in = fmt_hex(iptext, addr, 1), on = fmt_hex(offtext, off, 1); /* "0x%llx" */
	sstr symoff = named ? (sstr){ offtext, on } : SSTR_NULL;
	builder_frame fr;
	/* the frame, then its dso as perf_frame_fill makes it (the builder's
	 * dso looked up once a dso) */
	perf_frame_fill(s->b, (sstr){ iptext, in }, name, symoff, SSTR_NULL, false, ipbuf, &fr);
	dmap_reserve(s, dk);
	if (s->dmap[dk].dso == UINT32_MAX) {
		s->dmap[dk].kind = (uint8_t)naming_dso_kind(dn.p, dn.n);
		s->dmap[dk].dso = builder_dso(s->b, dn.p, dn.n, s->dmap[dk].kind == FK_KERNEL);
	}
	fr.kind = s->dmap[dk].kind;
	fr.dso = s->dmap[dk].dso;
	fr.inline_depth = -1;
	grow_array((void **)&s->bidx, &s->bicap, s->nbidx + ninl + 1, sizeof *s->bidx);
	if (s->o->addresses) {
		grow_array((void **)&s->faddr, &s->facap, s->nbidx + ninl + 1, sizeof *s->faddr);
		for (uint32_t k = 0; k <= ninl; k++) s->faddr[s->nbidx + k] = addr;
	}
	for (uint32_t k = 0; k < ninl; k++) {
		/* as the text path makes "IP NAME (inlined)" lines: the
		 * physical frame's dso, kind and offset, one frame per depth */
		builder_frame f2 = fr;
		f2.func = getstr(r);
		f2.func_resolved = true;
		f2.inlined = true;
		f2.inline_depth = (int32_t)(ninl - k);
		f2.exact = true;
		f2.srcline = k == 0 ? src : SSTR_NULL;
		s->bidx[s->nbidx++] = builder_frame_add(s->b, &f2);
	}
	if (ninl) {
		fr.inline_depth = 0;
		fr.exact = true;
	} else {
		fr.srcline = src;
	}
	if (s->o->addresses) fr.exact = true; /* one frame per address, for spaa-annotate --disasm */
	s->bidx[s->nbidx++] = builder_frame_add(s->b, &fr);
}

/* stage_frames: a dso's name and how its addresses are named (OP_DSO); its
 * builder dso (as the first frame in it made it: no other is made between) */
static void dso_make(struct bstage *s, struct rd *r)
{
	uint32_t dk = get32r(r);
	sstr dn = getstr(r);
	dmap_reserve(s, dk);
	struct bdso *d = &s->dmap[dk];
	d->how = get8r(r);
	memcpy(&d->tab, r->p, sizeof d->tab);
	r->p += sizeof d->tab;
	d->delta = (int64_t)get64r(r);
	if (d->dso == UINT32_MAX) {
		d->kind = (uint8_t)naming_dso_kind(dn.p, dn.n);
		d->dso = builder_dso(s->b, dn.p, dn.n, d->kind == FK_KERNEL);
	}
}

/* stage_frames: a new stack's n entries (the resolver's entry_of) into
 * s->frames, its frames made the first time each is met; their number */
static uint32_t entries_make(struct bstage *s, struct rd *r, uint32_t n)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t dso = get32r(r);
		if (dso == ENT_RESET) {
			k = 0;
			continue;
		}
		uint64_t addr = get64r(r), off = 0;
		uint32_t dk = dso + 1;
		const struct bdso *d = &s->dmap[dk];
		bool named = false;
		sstr name = sstr_c("[unknown]");
		if (d->how == 2 && (named = get8r(r))) {
			off = get64r(r);
			name = getstr(r);
		}
		bool added;
		uint32_t fi = fc_intern_h(&s->fc, dk, addr, (uint32_t)fc_hash(dk, addr), &added);
		if (added) {
			if (d->how == 1) {
				const char *sym = perfsym_find_r(d->tab, addr - (uint64_t)d->delta, &off, &s->dm);
				named = sym != NULL;
				if (sym) name = sstr_c(sym);
			}
			frame_make(s, addr, named, off, name, dk, SSTR_NULL, SSTR_NULL, 0, NULL); /* frame fi */
		}
		s->frames[k++] = s->bidx[fi];
	}
	return k;
}

static uint32_t no_chain_frame(struct bstage *s)
{
	if (s->nochain != UINT32_MAX) return s->nochain;
	builder_frame fr;
	memset(&fr, 0, sizeof fr);
	fr.func = sstr_c("[unknown]");
	fr.dso = builder_dso(s->b, "[unknown]", 9, false);
	fr.kind = FK_UNKNOWN;
	fr.inline_depth = -1;
	fr.func_resolved = true;
	fr.extra_json = "\"x_perf_no_callchain\":true";
	s->nochain = builder_frame_add(s->b, &fr);
	return s->nochain;
}

/* Sample flags (OP_SAMPLE) */
enum { SF_PERIOD = 1, SF_TIME = 2, SF_CPU = 4, SF_NEW = 8, SF_SWITCH = 16 };

/* Its -s sample record. */
static void sample_record(struct bstage *s, uint32_t si, uint8_t fl, uint64_t period, uint64_t us, uint32_t cpu)
{
	sbuf *x = &s->extra;
	x->n = 0;
	if (fl & SF_TIME)
		sbuf_printf(x, "\"timestamp\":%llu.%06llu,", (unsigned long long)(us / 1000000), (unsigned long long)(us % 1000000));
	if (fl & SF_CPU) sbuf_printf(x, "\"cpu\":%u,", cpu);
	if (fl & SF_PERIOD) sbuf_printf(x, "\"period\":%llu,", (unsigned long long)period);
	if (x->n) x->n--;
	sbuf_addc(x, 0);
	builder_sample(s->b, si, false, 0, x->p);
}

/* A sample's weights: samples, period, and count for an event that
 * counts (the same as period); their number. */
static uint32_t sample_weights(const struct bstage *s, uint32_t attr, uint8_t fl, uint64_t period, uint32_t midx[3],
			       num vals[3])
{
	midx[0] = s->o->m_samples;
	midx[1] = s->o->m_period;
	vals[0] = num_i(1);
	vals[1] = num_u(fl & SF_PERIOD ? period : 1);
	if (s->evcount[attr] == UINT32_MAX) return 2;
	midx[2] = s->evcount[attr];
	vals[2] = vals[1];
	return 3;
}

/* The prepared sample, if any, finished. */
static void pending_finish(struct bstage *s)
{
	struct spend *q = &s->pend;
	if (!q->active) return;
	q->active = false;
	uint32_t midx[3];
	num vals[3];
	uint32_t nv = sample_weights(s, q->attr, q->fl, q->period, midx, vals);
	builder_where_byte(s->b, q->file, q->off);
	uint32_t si = builder_stack_finish(s->b, &s->bp, midx, vals, nv);
	grow_array((void **)&s->sval, &s->svcap, q->stack + 1, sizeof *s->sval);
	s->sval[q->stack] = si;
	if (s->o->want_samples) sample_record(s, si, q->fl, q->period, q->us, q->cpu);
}

/* One sample: its stack (made the first time its stack number is seen),
 * its weights, and its sample record with -s. */
static void sample_make(struct bstage *s, struct rd *r)
{
	uint32_t attr = get32r(r), stack = get32r(r);
	uint8_t fl = get8r(r);
	uint64_t period = get64r(r), off = get64r(r);
	const char *file;
	memcpy(&file, r->p, sizeof file);
	r->p += sizeof file;
	pending_finish(s);
	if (fl & SF_NEW) {
		builder_ctx ctx;
		memset(&ctx, 0, sizeof ctx);
		ctx.event = s->evmap[attr];
		ctx.has_pid = true;
		ctx.pid = (int32_t)get32r(r);
		ctx.has_tid = true;
		ctx.tid = (int32_t)get32r(r);
		ctx.comm = getstr(r);
		uint32_t nfr = get32r(r);
		grow_array((void **)&s->frames, &s->frcap, nfr + 1, sizeof *s->frames);
		char xa[40];
		uint64_t ah = FNV64_BASIS;
		if (s->stage_frames) nfr = entries_make(s, r, nfr);
		else
			for (uint32_t i = 0; i < nfr; i++) {
				uint32_t fi = get32r(r);
				s->frames[i] = s->bidx[fi];
				if (s->o->addresses) ah = fnv1a64(ah, &s->faddr[fi], sizeof s->faddr[fi]);
			}
		if (!nfr) s->frames[nfr++] = no_chain_frame(s);
		if (s->o->addresses) {
			/* the frames' addresses (not part of a stack's content
			 * id) in its context: stacks at other addresses are
			 * stacks of their own, which spaa-annotate --disasm
			 * weighs instruction by instruction */
			int n = snprintf(xa, sizeof xa, "\"x_addr_id\":\"0x%016llx\"", (unsigned long long)ah);
			ctx.extra_json = (sstr){ xa, (size_t)n };
		}
		if (fl & SF_SWITCH) { /* kept for its off-cpu stack (offcpu_make) */
			uint32_t old = s->swcap;
			grow_array((void **)&s->swinfo, &s->swcap, stack + 1, sizeof *s->swinfo);
			memset(s->swinfo + old, 0, (s->swcap - old) * sizeof *s->swinfo);
			if (s->swdata.n >= UINT32_MAX - 1) die(1, "off-cpu: the sched_switch stacks exceed 4 GiB");
			s->swinfo[stack] = (uint32_t)s->swdata.n + 1;
			int64_t ids[2] = { ctx.pid, ctx.tid };
			sbuf_add(&s->swdata, ids, sizeof ids);
			sbuf_add(&s->swdata, &(uint32_t){ (uint32_t)ctx.comm.n }, 4);
			sbuf_add(&s->swdata, ctx.comm.p, ctx.comm.n);
			sbuf_add(&s->swdata, &nfr, 4);
			sbuf_add(&s->swdata, s->frames, (size_t)nfr * sizeof *s->frames);
		}
		if (ctx.tid != s->last_tid) { /* (a thread is kept once, by its tid) */
			builder_thread(s->b, ctx.pid, ctx.tid, ctx.comm.p, ctx.comm.n);
			s->last_tid = ctx.tid;
		}
		builder_stack_prepare(s->b, &ctx, s->frames, nfr, &s->bp);
		struct spend *q = &s->pend;
		q->active = true;
		q->stack = stack;
		q->attr = attr;
		q->fl = fl;
		q->period = period;
		q->file = file;
		q->off = off;
		if (s->o->want_samples) {
			q->us = get64r(r);
			q->cpu = get32r(r);
		}
		return;
	}
	uint32_t midx[3];
	num vals[3];
	uint32_t nv = sample_weights(s, attr, fl, period, midx, vals);
	uint32_t si = s->sval[stack];
	builder_where_byte(s->b, file, off);
	builder_add(s->b, si, midx, vals, nv);
	if (!s->o->want_samples) return;
	uint64_t us = get64r(r);
	uint32_t cpu = get32r(r);
	sample_record(s, si, fl, period, us, cpu);
}

/* One off-cpu interval (an OP_OFFCPU): its nanoseconds on the off-cpu
 * stack of the sched_switch stack that opened it (the same context and
 * frames, in the event off-cpu), made the first time. */
static void offcpu_make(struct bstage *s, struct rd *r)
{
	uint32_t stack = get32r(r);
	uint64_t ns = get64r(r), off = get64r(r);
	const char *file;
	memcpy(&file, r->p, sizeof file);
	r->p += sizeof file;
	pending_finish(s);
	if (!s->has_off) {
		s->ev_off = builder_event(s->b, "off-cpu", "software", "event", "offcpu_ns", NULL);
		s->m_off = builder_metric(s->b, "offcpu_ns", "nanoseconds");
		s->has_off = true;
	}
	num v = num_u(ns);
	builder_where_byte(s->b, file, off);
	if (stack < s->offcap && s->offst[stack]) {
		builder_add(s->b, s->offst[stack] - 1, &s->m_off, &v, 1);
		return;
	}
	if (stack >= s->swcap || !s->swinfo[stack]) abort();
	const uint8_t *p = (const uint8_t *)s->swdata.p + s->swinfo[stack] - 1;
	builder_ctx ctx;
	memset(&ctx, 0, sizeof ctx);
	ctx.event = s->ev_off;
	int64_t ids[2];
	memcpy(ids, p, sizeof ids);
	p += sizeof ids;
	ctx.has_pid = ctx.has_tid = true;
	ctx.pid = ids[0];
	ctx.tid = ids[1];
	uint32_t cn, nfr;
	memcpy(&cn, p, 4);
	ctx.comm = (sstr){ (const char *)p + 4, cn };
	p += 4 + cn;
	memcpy(&nfr, p, 4);
	grow_array((void **)&s->frames, &s->frcap, nfr + 1, sizeof *s->frames);
	memcpy(s->frames, p + 4, (size_t)nfr * sizeof *s->frames);
	uint32_t si = builder_stack(s->b, &ctx, s->frames, nfr, &s->m_off, &v, 1);
	uint32_t old = s->offcap;
	grow_array((void **)&s->offst, &s->offcap, stack + 1, sizeof *s->offst);
	memset(s->offst + old, 0, (s->offcap - old) * sizeof *s->offst);
	s->offst[stack] = si + 1;
}

/* Makes the builder's records of one batch. */
static void stage_run(struct bstage *s, const struct batch *t)
{
	struct rd r = { (const uint8_t *)t->ops.p, (const uint8_t *)t->ops.p + t->ops.n };
	while (r.p < r.end) {
		switch (get8r(&r)) {
		case OP_EVENT: {
			uint32_t a = get32r(&r);
			sstr nm = getstr(&r);
			uint32_t old = s->evcap;
			grow_array((void **)&s->evmap, &s->evcap, a + 1, sizeof *s->evmap);
			s->evcount = xrealloc(s->evcount, s->evcap * sizeof *s->evcount);
			(void)old;
			s->evmap[a] = perfconv_event(s->b, nm.p, nm.n);
			s->evcount[a] = perfconv_count_metric(s->b, s->evmap[a]);
			break;
		}
		case OP_FRAMES: frames_make(s, &r); break;
		case OP_SAMPLE: sample_make(s, &r); break;
		case OP_OFFCPU: offcpu_make(s, &r); break;
		case OP_DSO: dso_make(s, &r); break;
		default: abort();
		}
	}
	pending_finish(s);
}

static void *stage_thread(void *arg)
{
	struct conv *c = arg;
	struct queue *q = &c->q;
	pthread_mutex_lock(&q->mu);
	for (;;) {
		while (q->head == q->tail && !q->done) pthread_cond_wait(&q->cv, &q->mu);
		if (q->head == q->tail) break;
		struct batch *t = &q->b[q->head % NBATCH];
		pthread_mutex_unlock(&q->mu);
		stage_run(&c->bs, t);
		pthread_mutex_lock(&q->mu);
		/* (read without the lock by stage_behind) */
		__atomic_store_n(&q->head, q->head + 1, __ATOMIC_RELAXED);
		pthread_cond_broadcast(&q->cv);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

/* The batch being filled is complete: to the builder stage. */
static void batch_send(struct conv *c)
{
	c->nsamp = 0;
	if (!c->threaded) {
		stage_run(&c->bs, c->cur);
		c->cur->ops.n = 0;
		return;
	}
	struct queue *q = &c->q;
	pthread_mutex_lock(&q->mu);
	q->tail++;
	pthread_cond_broadcast(&q->cv);
	while (q->tail - q->head >= NBATCH) pthread_cond_wait(&q->cv, &q->mu);
	c->cur = &q->b[q->tail % NBATCH];
	pthread_mutex_unlock(&q->mu);
	c->cur->ops.n = 0;
}

/* The end: the last batch made, the builder stage's thread joined. */
static void stages_finish(struct conv *c)
{
	if (!c->threaded) {
		stage_run(&c->bs, c->cur);
		return;
	}
	struct queue *q = &c->q;
	pthread_mutex_lock(&q->mu);
	q->tail++;
	q->done = true;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
	pthread_join(c->th, NULL);
}

static void stages_start(struct conv *c, unsigned jobs)
{
	c->bs.b = c->b;
	c->bs.o = c->o;
	c->bs.nochain = UINT32_MAX;
	c->bs.last_tid = INT64_MIN;
	c->cur = &c->own;
	if (jobs < 2) return;
	pthread_mutex_init(&c->q.mu, NULL);
	pthread_cond_init(&c->q.cv, NULL);
	c->cur = &c->q.b[0];
	if (pthread_create(&c->th, NULL, stage_thread, c) != 0) {
		c->cur = &c->own; /* no thread to be had: all in this one */
		return;
	}
	c->threaded = true;
}

static void stages_free(struct conv *c)
{
	if (c->threaded) {
		for (uint32_t i = 0; i < NBATCH; i++) sbuf_free(&c->q.b[i].ops);
		pthread_mutex_destroy(&c->q.mu);
		pthread_cond_destroy(&c->q.cv);
	}
	sbuf_free(&c->own.ops);
	struct bstage *s = &c->bs;
	free(s->bidx);
	free(s->sval);
	free(s->evmap);
	free(s->evcount);
	free(s->dmap);
	builder_pending_free(&s->bp);
	free(s->faddr);
	free(s->frames);
	sbuf_free(&s->extra);
	sbuf_free(&s->dm);
	free(s->fc.fc);
	free(s->swinfo);
	free(s->offst);
	sbuf_free(&s->swdata);
}

/* ---- user stacks of dwarf and LBR captures (unwind.h) --------------------- */

#define ST_BRANCH_STACK (1u << 11)
#define ST_REGS_USER (1u << 12)
#define ST_STACK_USER (1u << 13)

/* Is s an LBR call-stack sample? */
static bool is_lbr(const pd_attr *a, const pd_sample *s)
{
	return (a->sample_type & ST_BRANCH_STACK) && (a->branch_sample_type & UNWIND_BRANCH_CALL_STACK) && s->branch;
}

/* An LBR call-stack sample's callchain as perf script stitches it (into
 * c->lbr), else the sample's own. */
static const uint8_t *lbr_chain(struct conv *c, const pd_attr *a, const pd_sample *s, uint64_t *n)
{
	*n = s->nchain;
	if (!is_lbr(a, s)) return s->chain;
	uint64_t need = s->nchain + s->nbranch + 2;
	uint32_t cap = need > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uint32_t)need;
	grow_array((void **)&c->lbr, &c->lbrcap, cap, sizeof *c->lbr);
	*n = unwind_lbr(s->chain, s->nchain, s->branch, s->nbranch, c->lbr, cap);
	return (const uint8_t *)c->lbr;
}

/* The unwinder's architecture: the capture's (its header's arch), else
 * this machine's. */
static int capture_arch(const struct conv *c)
{
	const char *arch = perfdata_arch(c->d);
	int ua = unwind_arch_from_name(arch);
#if defined(__x86_64__)
	if (!arch) ua = UNWIND_X86_64;
#elif defined(__aarch64__)
	if (!arch) ua = UNWIND_AARCH64;
#endif
	return ua;
}

/* Is a an attribute of dwarf samples (user registers and stack)? */
static bool dwarf_attr(const pd_attr *a)
{
	return (a->sample_type & (ST_REGS_USER | ST_STACK_USER)) == (ST_REGS_USER | ST_STACK_USER);
}

/* What unwinding a sample takes (its mappings left out): false when it is
 * not a dwarf sample. */
static bool dwarf_input(procmap *pm, const pd_event *e, const pd_attr *a, uint32_t th, unwind_sample *us)
{
	const pd_sample *s = &e->s;
	uint64_t size = s->stack_dyn_size < s->stack_size ? s->stack_dyn_size : s->stack_size;
	if (!dwarf_attr(a) || !s->regs_abi || !s->regs || !size) return false;
	*us = (unwind_sample){ .pid = procmap_pid_of(pm, th), .abi = s->regs_abi, .regs_mask = a->sample_regs_user,
			       .regs = s->regs, .nregs = s->nregs, .stack = s->stack, .stack_size = size };
	if (us->pid == -1) us->pid = (int32_t)e->id.pid;
	us->maps_version = procmap_maps_version(pm, th);
	return true;
}

/* A dwarf sample's user stack, unwound from its registers and stack copy
 * into c->ustack (or, with the pool, as the pool unwound it): its number
 * of addresses (0: not a dwarf sample).  perf script adds their frames
 * after the callchain (which has no user part in these captures). */
static uint32_t dwarf_unwind(struct conv *c, const pd_event *e, const pd_attr *a, uint32_t th)
{
	const pd_sample *s = &e->s;
	int why;
	uint32_t n;
	grow_array((void **)&c->ustack, &c->ucap, UNWIND_MAX_DEPTH, sizeof *c->ustack);
	if (c->pre) {
		n = c->pre_n;
		why = c->pre_why;
		memcpy(c->ustack, c->pre_ips, (size_t)n * sizeof *c->ustack);
	} else {
		unwind_sample us;
		if (!dwarf_input(c->pm, e, a, th, &us)) return 0;
		if (!c->uw) c->uw = unwind_new(capture_arch(c), c->o->symfs, NULL);
		if (unwind_need_maps(c->uw, us.pid, us.maps_version)) us.nmaps = procmap_unwind_maps(c->pm, th, &us.maps);
		n = unwind_stack(c->uw, &us, c->ustack, UNWIND_MAX_DEPTH, &why);
	}
	if (why == UW_BAD_REGS) {
		if (s->regs_abi != UNWIND_ABI_64) c->nregs32++;
		else c->nnoarch++;
	}
	return n;
}

/* ---- off-cpu time --------------------------------------------------------
 *
 * A thread switched out (a sched_switch sample whose prev_pid is its own
 * tid: its callchain is the thread's stack as it leaves the CPU) is off
 * the CPU until it runs again: until the sched_switch whose next_pid is
 * its tid (a capture of all CPUs), a switch-in record (perf record
 * --switch-events), or, failing those (a per-thread capture records no
 * switch-in), its next record of any kind: a sample, its next switch-out,
 * its exit.  That interval's nanoseconds go to the event off-cpu, on the
 * sched_switch sample's stack (OP_OFFCPU).  An interval still open at the
 * end is closed at the capture's last time; the switch-out of a thread
 * after its exit record opens none. */

static struct otid *ot_find(struct conv *c, int32_t tid, bool add)
{
	if (add && 2 * (c->otn + 1) > c->otslots) {
		uint32_t ns = c->otslots ? 2 * c->otslots : 64;
		struct otid *t = xcalloc(ns, sizeof *t);
		for (uint32_t i = 0; i < c->otslots; i++) {
			if (!c->ot[i].used) continue;
			uint32_t j = ((uint32_t)c->ot[i].tid * 0x9e3779b1u) & (ns - 1);
			while (t[j].used) j = (j + 1) & (ns - 1);
			t[j] = c->ot[i];
		}
		free(c->ot);
		c->ot = t;
		c->otslots = ns;
	}
	if (!c->otslots) return NULL;
	uint32_t j = ((uint32_t)tid * 0x9e3779b1u) & (c->otslots - 1);
	while (c->ot[j].used) {
		if (c->ot[j].tid == tid) return &c->ot[j];
		j = (j + 1) & (c->otslots - 1);
	}
	if (!add) return NULL;
	c->otn++;
	c->ot[j] = (struct otid){ .tid = tid, .used = true };
	return &c->ot[j];
}

/* The thread's open interval, if any, closed at time ns. */
static void offcpu_close(struct conv *c, int32_t tid, uint64_t ns)
{
	struct otid *o = ot_find(c, tid, false);
	if (!o || !o->open) return;
	o->open = false;
	struct batch *t = c->cur;
	put(t, &(uint8_t){ OP_OFFCPU }, 1);
	put32(t, o->stack);
	put64(t, ns > o->ns ? ns - o->ns : 0);
	put64(t, o->off);
	put(t, &o->file, sizeof o->file);
}

static void offcpu_time(struct conv *c, uint64_t ns)
{
	if (!c->has_last || ns > c->last_ns) c->last_ns = ns;
	c->has_last = true;
}

/* A sample (its stack number sci) ended: the intervals it closes, the one
 * it opens. */
static void offcpu_sample(struct conv *c, const struct cpend *p, uint32_t sci)
{
	offcpu_time(c, p->ns);
	if (p->tid > 0) offcpu_close(c, p->tid, p->ns);
	if (!p->sw) return;
	if (p->next_pid > 0 && p->next_pid != p->tid) offcpu_close(c, p->next_pid, p->ns);
	if (p->prev_pid != p->tid || p->tid <= 0) return;
	struct otid *o = ot_find(c, p->tid, true);
	if (o->exited) return;
	o->open = true;
	o->stack = sci;
	o->ns = p->ns;
	o->off = p->off;
	o->file = p->file;
}

/* A record other than a sample, in order: an exit ends its thread's
 * interval, a switch-in record too; a fork's thread is a new one. */
static void offcpu_record(struct conv *c, const pd_event *e)
{
	if (!c->otslots) {
		if (e->id.has_time) offcpu_time(c, e->id.time);
		return;
	}
	if (!e->id.has_time) return;
	offcpu_time(c, e->id.time);
	if (e->kind == PD_EXIT && (int32_t)e->tid > 0) {
		offcpu_close(c, (int32_t)e->tid, e->id.time);
		struct otid *o = ot_find(c, (int32_t)e->tid, true);
		o->exited = true;
	} else if (e->kind == PD_FORK && (int32_t)e->tid > 0) {
		struct otid *o = ot_find(c, (int32_t)e->tid, false);
		if (o) o->exited = o->open = false;
	} else if (e->kind == PD_SWITCH && e->id.has_tid && !(e->misc & PD_MISC_SWITCH_OUT) && (int32_t)e->id.tid > 0) {
		offcpu_close(c, (int32_t)e->id.tid, e->id.time);
	}
}

/* At the end: the intervals still open closed at the capture's end. */
static void offcpu_end(struct conv *c)
{
	for (uint32_t i = 0; i < c->otslots; i++)
		if (c->ot[i].used && c->ot[i].open) offcpu_close(c, c->ot[i].tid, c->last_ns);
}

/* A stack cache key's bytes before the callchain: event, pid, tid, state */
enum { SKEY_HEAD = 3 * sizeof(int32_t) + 4 * sizeof(uint32_t) };

/* The end of a sample (its key in c->skey): its stack number from the
 * stack cache, its frames the first time, its OP_SAMPLE.  e is the sample
 * when it is still at hand, NULL for a sample of a plain callchain left
 * waiting, whose chain is then read from the key (the same bytes). */
static void sample_end(struct conv *c, const struct cpend *p, const pd_event *e)
{
	struct batch *t = c->cur;
	sbuf *k = &c->skey;
	bool fresh;
	uint32_t sci = strmap_intern_h(&c->scache, k->p, k->n, p->h, &fresh);
	uint32_t nfr = 0;
	if (fresh) {
		/* the callchain: the waiting sample's from its key, an LBR
		 * sample's stitched; without one, the sample's ip */
		const uint8_t *chain = NULL;
		uint64_t nchain = 0;
		if (!e) {
			chain = (const uint8_t *)k->p + SKEY_HEAD;
			nchain = p->nchain;
		} else if (e->s.has_callchain) {
			chain = lbr_chain(c, perfdata_attr(c->d, p->attr), &e->s, &nchain);
		}
		/* (room for one frame: c->frames is never NULL when put below) */
		grow_array((void **)&c->frames, &c->frcap, 1, sizeof *c->frames);
		c->ents.n = 0;
		c->nent = 0;
		if (chain) {
			chain_frames(c, p->th, chain, nchain, &nfr);
		}
		/* a dwarf sample's unwound user stack (none for a waiting one) */
		for (uint32_t i = 0; i < c->nu; i++) frames_of(c, p->th, 0, c->ustack[i], !c->o->no_inline, &nfr);
		/* no callchain, an empty one, or one perf drops (an unknown
		 * context marker: perf script prints no frame): the sampled
		 * address, to which perf report credits the sample */
		if (!nfr && p->has_ip) frames_of(c, p->th, p->ipmode, p->ip, false, &nfr);
	}
	put(t, &(uint8_t){ OP_SAMPLE }, 1);
	put32(t, p->attr);
	put32(t, sci);
	put(t, &(uint8_t){ (uint8_t)((p->has_period ? SF_PERIOD : 0) | (p->has_time ? SF_TIME : 0) |
				      (p->has_cpu ? SF_CPU : 0) | (fresh ? SF_NEW : 0) | (p->swev ? SF_SWITCH : 0)) }, 1);
	put64(t, p->period);
	put64(t, p->off);
	put(t, &p->file, sizeof p->file);
	if (fresh) {
		put32(t, (uint32_t)p->pid);
		put32(t, (uint32_t)p->tid);
		sstr comm = procmap_comm_of(c->pm, p->th);
		putstr(t, comm.p, comm.n);
		if (c->stage_frames) {
			put32(t, c->nent);
			put(t, c->ents.p, c->ents.n);
		} else {
			put32(t, nfr);
			put(t, c->frames, (size_t)nfr * sizeof *c->frames);
		}
	}
	c->t->nsamples++;
	if (c->o->want_samples) {
		put64(t, p->us);
		put32(t, p->cpu);
	}
	if (p->has_time) offcpu_sample(c, p, sci);
	if (++c->nsamp >= 1024 || t->ops.n >= BATCH_BYTES) batch_send(c);
}

/* The waiting sample, if any, ended: before any other record is taken in
 * (it may change the mappings its frames are resolved in). */
static void sample_flush(struct conv *c)
{
	if (!c->pend.active) return;
	c->pend.active = false;
	sample_end(c, &c->pend, NULL);
}

static void sample(struct conv *c, const pd_event *e)
{
	const pd_sample *s = &e->s;
	uint32_t attr = (uint32_t)e->attr;
	const pd_attr *a = perfdata_attr(c->d, attr);
	struct batch *t = c->cur;
	if (attr >= c->evcap || !c->evseen[attr]) {
		uint32_t old = c->evcap;
		grow_array((void **)&c->evseen, &c->evcap, attr + 1, sizeof *c->evseen);
		memset(c->evseen + old, 0, (c->evcap - old) * sizeof *c->evseen);
		c->evseen[attr] = true;
		put(t, &(uint8_t){ OP_EVENT }, 1);
		put32(t, attr);
		putstr(t, a->name, strlen(a->name));
	}
	int32_t pid = (int32_t)e->id.pid, tid = (int32_t)e->id.tid;
	uint32_t th = procmap_thread(c->pm, pid, tid);
	/* the stack cache: a sample whose raw callchain, thread and event were
	 * seen, with its mappings and command name unchanged since, has that
	 * sample's stack (nothing resolved or hashed frame by frame again) */
	sbuf *k = &c->skey;
	k->n = 0;
	uint32_t st[4];
	procmap_state(c->pm, th, st);
	int32_t head[3] = { (int32_t)attr, pid, tid };
	sbuf_add(k, head, sizeof head);
	sbuf_add(k, st, sizeof st);
	uint64_t ipm[2] = { s->has_ip ? s->ip : 0, (uint64_t)e->misc & MISC_CPUMODE_MASK };
	if (s->has_callchain) {
		sbuf_add(k, s->chain, (size_t)s->nchain * 8);
		/* a chain that does not open with the sampled address (empty,
		 * or a marker perf drops it for) may be the address alone
		 * (sample_end): the address is part of its key */
		if (!(s->nchain >= 2 && s->has_ip && pd_u64(s->chain, 1) == s->ip)) sbuf_add(k, ipm, sizeof ipm);
	} else {
		sbuf_add(k, ipm, sizeof ipm);
	}
	/* dwarf and LBR samples: their user stacks too (the unwinding is done
	 * for each sample, the frames resolved once), after the lengths */
	uint32_t nu = dwarf_unwind(c, e, a, th);
	c->nu = nu;
	uint64_t lens[3] = { s->has_callchain ? s->nchain : 0, nu, is_lbr(a, s) ? s->nbranch : 0 };
	if (lens[1] || lens[2]) {
		sbuf_add(k, lens, sizeof lens);
		sbuf_add(k, c->ustack, (size_t)nu * 8);
		if (lens[2]) sbuf_add(k, s->branch, (size_t)s->nbranch * 24);
	}
	/* perf script prints times in microseconds */
	uint64_t us = e->id.time / 1000;
	if (e->id.has_time) {
		if (!c->t->has_time || us < c->t->tmin) c->t->tmin = us;
		if (!c->t->has_time || us > c->t->tmax) c->t->tmax = us;
		c->t->has_time = true;
	}
	struct cpend *p = &c->pend;
	*p = (struct cpend){ .has_period = a->type != TYPE_TRACEPOINT, .has_time = e->id.has_time,
			     .has_cpu = e->id.has_cpu, .attr = attr, .th = th, .h = strmap_hash(k->p, k->n),
			     .cpu = e->id.cpu, .pid = pid, .tid = tid, .nchain = s->nchain, .period = s->period,
			     .us = us, .off = e->offset, .file = c->pre ? c->pre_file : perfdata_where(c->d), .has_ip = s->has_ip, .ip = s->ip };
	int cm = e->misc & MISC_CPUMODE_MASK;
	p->ipmode = cm == MISC_KERNEL ? 1 : cm == MISC_USER ? 0 : 2;
	p->ns = e->id.time;
	/* sched:sched_switch's raw data, in the layout of a 64-bit kernel's
	 * tracepoint (prev_pid at 24, next_pid at 56, 64 bytes) */
	p->swev = a->type == TYPE_TRACEPOINT && strcmp(a->name, "sched:sched_switch") == 0;
	if (p->swev && s->raw && s->raw_size >= 64) {
		p->sw = true;
		memcpy(&p->prev_pid, s->raw + 24, 4);
		memcpy(&p->next_pid, s->raw + 56, 4);
	}
	strmap_prefetch(&c->scache, p->h);
	if (s->has_callchain && !lens[1] && !lens[2]) {
		p->active = true; /* ended by the next record (sample_flush) */
		return;
	}
	sample_end(c, p, e);
}

/* ---- dwarf unwinding on threads (-j 2 and more; uwpool.h) ------------------
 *
 * The processes are kept twice: pmr as the records are read, pm as the
 * samples are finished.  Each sample, as it is read, is queued in the
 * pool's batch being filled: its registers, stack copy and the mappings
 * of its process in pmr (a dwarf sample) go to the unwinding threads; the
 * sample itself (the record's fields, its callchain and branch stack, its
 * file) is kept beside them.  A record that changes the processes (mmap,
 * comm, fork) is applied to pmr at once and queued too.  The oldest batch
 * is taken back (from a file, by a finishing thread of its own as soon as
 * it is unwound; from a pipe, by the reader when the pool is full, all of
 * them at the end and before a build id is taken): its records are
 * applied to pm and its samples finished in file order, each exactly as
 * -j 1 finishes it with its stack unwound in place, against the processes
 * as they were then; symbols and frames are named there, on one thread,
 * once a (dso, address).  So no record waits for the unwinding, the
 * threads are kept busy across the records of short processes, and from
 * a file the reading, the unwinding and the naming run side by side. */

/* A record that changes the processes (comm, fork, mmap) applied to m. */
static void apply_record(procmap *m, const pd_event *e)
{
	switch (e->kind) {
	case PD_COMM:
		procmap_comm(m, (int32_t)e->pid, (int32_t)e->tid, e->filename);
		break;
	case PD_FORK:
		procmap_fork(m, (int32_t)e->pid, (int32_t)e->ppid, (int32_t)e->tid, (int32_t)e->ptid,
			     !(e->misc & MISC_FORK_EXEC));
		break;
	case PD_MMAP: {
		bool kern = (e->misc & MISC_CPUMODE_MASK) == MISC_KERNEL;
		procmap_mmap(m, (int32_t)e->pid, kern, e->start, e->len, e->pgoff, e->prot, e->flags, e->filename,
			     e->has_build_id ? e->build_id : NULL, e->build_id_size);
		break;
	}
	default: break;
	}
}

/* Has the capture an attribute of dwarf samples (file mode: all are known)? */
static bool any_dwarf(const struct conv *c)
{
	for (uint32_t i = 0; i < perfdata_nattrs(c->d); i++)
		if (dwarf_attr(perfdata_attr(c->d, i))) return true;
	return false;
}

/* What the pool's batches hold for the reader, in read order: a sample
 * (QS), or a record that changes the processes (QR: its fields, then its
 * file or command name's nlen bytes and a NUL). */
enum { QS = 1, QR };

/* A queued sample, then its callchain's nch and branch stack's nbr bytes. */
struct qsample {
	pd_event e;
	const char *file;
	size_t nch, nbr, nraw;  /* nraw: sched_switch's raw data, for off-cpu */
};

/* The oldest batch back from the pool: its samples finished in order. */
static void pool_take(struct conv *c)
{
	uint32_t n;
	const sbuf *u;
	const uwpool_batch *b = uwpool_take(c->pool, &n, &u);
	const char *p = u->p, *end = u->p + u->n;
	for (uint32_t i = 0; p < end;) {
		if (*p++ == QR) {
			pd_event r;
			memcpy(&r, p, sizeof r);
			p += sizeof r;
			r.filename = p;
			p += strlen(p) + 1;
			sample_flush(c);
			apply_record(c->pm, &r);
			offcpu_record(c, &r);
			continue;
		}
		struct qsample q;
		memcpy(&q, p, sizeof q);
		p += sizeof q;
		q.e.s.chain = (const uint8_t *)p;
		p += q.nch;
		q.e.s.branch = (const uint8_t *)p;
		p += q.nbr;
		q.e.s.raw = q.nraw ? (const uint8_t *)p : NULL;
		p += q.nraw;
		uwpool_progress(c->pool, i);
		c->pre_ips = uwpool_result(b, i++, &c->pre_n, &c->pre_why);
		c->pre_file = q.file;
		c->pre = true;
		sample_flush(c);
		sample(c, &q.e);
		c->pre = false;
	}
	(void)n;
	uwpool_release(c->pool);
}

/* The batch being filled handed out when it is full; then, when as many
 * are out as the pool holds, the oldest taken back (here, or by the
 * finishing thread: waited for). */
static void pool_hand_out(struct conv *c)
{
	if (!uwpool_full(c->pool)) return;
	bool full = uwpool_submit(c->pool);
	if (c->fin_on) uwpool_wait_room(c->pool);
	else if (full) pool_take(c);
	/* the file's pages the unwinding will read kept (not given back and
	 * read again, to stay) */
	perfdata_keep(c->d, c->keep = uwpool_lasting_low(c->pool));
}

/* The finishing thread: the batches taken back as they come, until the
 * reader says there are no more. */
static void *finisher(void *arg)
{
	struct conv *c = arg;
	while (uwpool_wait_out(c->pool)) pool_take(c);
	return NULL;
}

/* Every sample queued finished (the last one too: before the record
 * that comes next is applied), the finishing thread ended. */
static void pool_drain(struct conv *c)
{
	if (!c->pool) return;
	uwpool_submit(c->pool);
	if (c->fin_on) {
		uwpool_close(c->pool);
		pthread_join(c->fin, NULL);
		c->fin_on = false;
		cli_before_die = NULL;
	}
	while (uwpool_out(c->pool)) pool_take(c);
	perfdata_keep(c->d, c->keep = NULL);
	sample_flush(c);
}

/* A message that ends the run, from the reading thread while samples read
 * before it are being finished: those finished first (their own messages
 * come first, as with one thread). */
static struct conv *fin_conv;
static void finish_before_die(void)
{
	struct conv *c = fin_conv;
	if (c && c->fin_on && pthread_equal(pthread_self(), c->reader)) pool_drain(c);
}

/* The unwinding threads' help, once they run out of stacks: they name
 * addresses ahead of the finishing thread (procmap_aid). */
static bool aid_ahead(void *pool, uint64_t order) { return uwpool_ahead(pool, order); }
static void aid_help(void *conv, unsigned k, const elfsym_ask *asks, uint32_t n)
{
	struct conv *c = conv;
	procmap_aid(c->pm, k, asks, n, aid_ahead, c->pool);
}

/* The pool made (at the first dwarf sample), and in file mode the thread
 * that finishes its batches: then this one only reads and hands them out
 * (a pipe's attributes and build ids may come between samples: it keeps
 * one thread, which finishes the batches as they come back). */
static void pool_start(struct conv *c)
{
	bool taker = !perfdata_pipe(c->d);
	c->pool = uwpool_new(c->o->jobs - 1, capture_arch(c), c->o->symfs, NULL, taker);
	if (!taker) return;
	if (procmap_aids(c->pm, uwpool_threads(c->pool))) uwpool_help(c->pool, aid_help, c);
	c->reader = pthread_self();
	if (pthread_create(&c->fin, NULL, finisher, c) != 0) return; /* the reader finishes them */
	c->fin_on = true;
	fin_conv = c;
	cli_before_die = finish_before_die;
}

/* Sample e queued. */
static void pool_sample(struct conv *c, const pd_event *e)
{
	const pd_attr *a = perfdata_attr(c->d, (uint32_t)e->attr);
	uint32_t th = procmap_thread(c->pmr, (int32_t)e->id.pid, (int32_t)e->id.tid);
	unwind_sample us;
	if (dwarf_input(c->pmr, e, a, th, &us)) {
		if (uwpool_need_maps(c->pool, us.pid, us.maps_version))
			us.nmaps = procmap_unwind_maps(c->pmr, th, &us.maps);
		/* the registers and stack in the mapped file are read there,
		 * others (a pipe's, a decompressed round's) copied */
		bool lasting = perfdata_lasting(c->d, us.regs, (size_t)us.nregs * 8) &&
			       perfdata_lasting(c->d, us.stack, (size_t)us.stack_size);
		uwpool_add(c->pool, &us, lasting);
		/* (kept mapped from the first of them on: pool_hand_out) */
		const uint8_t *lo = us.regs < us.stack ? us.regs : us.stack;
		if (lasting && (!c->keep || lo < c->keep)) perfdata_keep(c->d, c->keep = lo);
	} else {
		uwpool_add(c->pool, NULL, false);
	}
	struct qsample q;
	memset(&q, 0, sizeof q);
	q.e = *e;
	q.e.s.regs = q.e.s.stack = NULL; /* (unwound in the pool) */
	q.e.s.raw = q.e.s.read = NULL;
	q.file = perfdata_where(c->d);
	q.nch = e->s.has_callchain ? (size_t)e->s.nchain * 8 : 0;
	q.nbr = e->s.branch ? (size_t)e->s.nbranch * 24 : 0;
	q.nraw = e->s.raw && a->type == TYPE_TRACEPOINT && strcmp(a->name, "sched:sched_switch") == 0 ? e->s.raw_size : 0;
	sbuf *u = uwpool_user(c->pool);
	sbuf_addc(u, QS);
	sbuf_add(u, &q, sizeof q);
	if (q.nch) sbuf_add(u, e->s.chain, q.nch);
	if (q.nbr) sbuf_add(u, e->s.branch, q.nbr);
	if (q.nraw) sbuf_add(u, e->s.raw, q.nraw);
	pool_hand_out(c);
}

/* A record that changes the processes, queued (the reader's processes
 * have it already). */
static void pool_record(struct conv *c, const pd_event *e)
{
	sbuf *u = uwpool_user(c->pool);
	pd_event r = *e;
	r.filename = NULL;
	memset(&r.s, 0, sizeof r.s);
	sbuf_addc(u, QR);
	sbuf_add(u, &r, sizeof r);
	const char *fn = (e->kind == PD_COMM || e->kind == PD_MMAP) && e->filename ? e->filename : "";
	sbuf_add(u, fn, strlen(fn) + 1);
	pool_hand_out(c);
}

/* Sample e: queued in the pool, made when it is the first dwarf sample at
 * -j 2 or more (the reader's processes, pmr, kept since the first record),
 * else taken in now. */
static void take_sample(struct conv *c, const pd_event *e)
{
	if (!c->pool && c->pmr && dwarf_attr(perfdata_attr(c->d, (uint32_t)e->attr))) pool_start(c);
	if (c->pool) pool_sample(c, e);
	else sample(c, e);
}

static void hex(const uint8_t *p, uint32_t n, char *out)
{
	for (uint32_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", p[i]);
	out[2 * n] = 0;
}

/* What the capture says of its machine and files (file mode: all of it
 * before the records; pipe mode: as it comes): the build ids not taken
 * yet (c->nbids of them are; pipe mode has them a record each, between
 * samples: taking all of them again each time would be quadratic), the
 * kernel's the last of them. */
static void machine_info_to(struct conv *c, procmap *pm, uint32_t *nbids)
{
	uint32_t n = perfdata_nbuildids(c->d);
	for (; *nbids < n; (*nbids)++) {
		const pd_buildid *b = perfdata_buildid(c->d, *nbids);
		char buf[48];
		hex(b->id, b->size, buf);
		procmap_build_id(pm, b->filename, buf);
		if (strcmp(b->filename, "[kernel.kallsyms]") == 0) {
			memcpy(c->kbid, buf, sizeof buf);
			c->has_kbid = true;
		}
	}
	procmap_machine(pm, c->has_kbid ? c->kbid : NULL, perfdata_osrelease(c->d));
}

static void machine_info(struct conv *c) { machine_info_to(c, c->pm, &c->nbids); }

static void source_info(struct conv *c)
{
	if (c->t->got_source) return;
	c->t->got_source = true;
	const char *s;
	if ((s = perfdata_cmdline(c->d))) builder_source_str(c->b, "command", s, strlen(s));
	if ((s = perfdata_version(c->d))) builder_source_str(c->b, "tool_version", s, strlen(s));
	if ((s = perfdata_hostname(c->d))) builder_source_str(c->b, "hostname", s, strlen(s));
	if ((s = perfdata_osrelease(c->d))) builder_source_str(c->b, "os_release", s, strlen(s));
	if ((s = perfdata_arch(c->d))) builder_source_str(c->b, "arch", s, strlen(s));
	uint32_t online;
	uint32_t nc = perfdata_nr_cpus(c->d, &online);
	if (nc) {
		char j[64];
		snprintf(j, sizeof j, "{\"available\":%u,\"online\":%u}", nc, online);
		builder_source_json(c->b, "nr_cpus", j);
	}
}

/* The events of this file (builder events nev0 and up) in the order of
 * their attributes, perf's order (perf report's), not that of their first
 * samples: the first is the one a reader takes by default. */
static void events_in_perf_order(struct conv *c, uint32_t nev0)
{
	uint32_t nev = builder_nevents(c->b);
	if (nev - nev0 < 2) return;
	uint32_t *pos = xmalloc((size_t)nev * sizeof *pos);
	for (uint32_t e = 0; e < nev; e++) pos[e] = e < nev0 ? e : UINT32_MAX;
	uint32_t next = nev0;
	for (uint32_t a = 0; a < c->evcap; a++) {
		if (!c->evseen[a]) continue;
		uint32_t e = c->bs.evmap[a];
		if (e >= nev0 && pos[e] == UINT32_MAX) pos[e] = next++;
	}
	/* then those made of them (off-cpu) */
	for (uint32_t e = nev0; e < nev; e++)
		if (pos[e] == UINT32_MAX) pos[e] = next++;
	if (next == nev) builder_event_order(c->b, pos);
	free(pos);
}

void perfconv_data(builder *b, input *in, const char *path, const perfconv_opts *o, perfconv_totals *t)
{
	uint32_t nev0 = builder_nevents(b);
	struct conv c;
	memset(&c, 0, sizeof c);
	c.b = b;
	c.o = o;
	t->nfiles++;
	c.tot = *t;
	c.t = &c.tot;
	c.d = perfdata_open(in, path);
	pm_opts po = { o->symfs, o->debug_dir, o->kallsyms, o->inline_frames || !o->no_inline || o->srclines };
	c.pm = procmap_new(&po);
	strmap_init(&c.scache);
	bool pipe = perfdata_pipe(c.d);
	if (!pipe) machine_info(&c);
	/* symbol tables read by jobs - 2 threads (one at least), beside this
	 * one and the builder stage's */
	if (!pipe && o->jobs >= 2) procmap_prefetch(c.pm, o->jobs > 3 ? o->jobs - 2 : 1, any_dwarf(&c));
	stages_start(&c, o->jobs);
	c.defer_names = c.threaded && !pipe && !o->inline_frames && !o->srclines && !any_dwarf(&c);
	c.one_unmapped = builder_is_lean(b, BUILDER_NO_ADDRS) && !o->addresses;
	c.stage_frames = c.bs.stage_frames = c.defer_names && builder_is_lean(b, BUILDER_NO_IDS) && !o->addresses;
	pd_event e;
	bool decided = false;
	while (perfdata_next(c.d, &e)) {
		if (!c.pool) sample_flush(&c);
		if (!decided && (e.kind == PD_SAMPLE || e.kind == PD_COMM || e.kind == PD_FORK || e.kind == PD_MMAP)) {
			/* -j 2 and more, a capture of dwarf samples (its
			 * attributes are all known by its first record of
			 * these, pipe mode too): the processes kept twice, pmr
			 * as they are read, for the unwinding on threads (the
			 * pool is made at the first dwarf sample) */
			decided = true;
			if (o->jobs >= 2 && any_dwarf(&c)) {
				c.pmr = procmap_new(&po);
				machine_info_to(&c, c.pmr, &c.nbids_r);
			}
		}
		switch (e.kind) {
		case PD_SAMPLE:
			if (pipe && perfdata_nbuildids(c.d) != c.nbids) {
				pool_drain(&c);
				machine_info(&c);
				if (c.pmr) machine_info_to(&c, c.pmr, &c.nbids_r);
			}
			take_sample(&c, &e);
			break;
		case PD_COMM:
		case PD_FORK:
		case PD_MMAP:
			/* to the reader's processes now; to pm, in order with
			 * the samples queued before it, when they are taken back */
			if (c.pmr) apply_record(c.pmr, &e);
			if (c.pool) pool_record(&c, &e);
			else apply_record(c.pm, &e);
			if (!c.pool) offcpu_record(&c, &e);
			break;
		case PD_EXIT:
		case PD_SWITCH:
			/* (off-cpu's: in order with the samples queued before) */
			if (c.pool) pool_record(&c, &e);
			else offcpu_record(&c, &e);
			break;
		default:
			if (!c.pool) offcpu_record(&c, &e);
			break;
		}
	}
	pool_drain(&c);
	sample_flush(&c);
	offcpu_end(&c);
	stages_finish(&c);
	*t = c.tot;
	c.t = t;
	events_in_perf_order(&c, nev0);
	uwpool_free(c.pool);
	c.pool = NULL;
	procmap_free(c.pmr);
	builder_where(b, NULL, 0); /* (the file names are freed with the reader) */
	source_info(&c);
	const char *name = perfdata_name(c.d);
	uint64_t lost = perfdata_lost(c.d);
	if (lost && !o->quiet)
		warn_at(name, 0, "warning: %llu samples lost (perf's LOST records): the profile lacks them",
			(unsigned long long)lost);
	uint64_t unknown = perfdata_read_unknown(c.d);
	if (unknown && !o->quiet)
		warn_at(name, 0, "warning: %llu counter values read by samples have ids of no event in the header: "
			"their samples are not in the profile", (unsigned long long)unknown);
	if (c.nregs32 && !o->quiet)
		warn_at(name, 0, "warning: %llu samples of 32-bit processes: their user stacks are the sampled address alone",
			(unsigned long long)c.nregs32);
	if (c.nnoarch && !o->quiet)
		warn_at(name, 0, "warning: %llu samples' user stacks not unwound: registers of %s (x86_64 and aarch64 are known)",
			(unsigned long long)c.nnoarch, perfdata_arch(c.d) ? perfdata_arch(c.d) : "an unknown architecture");
	uint64_t qbound, unordered = perfdata_unordered(c.d, &qbound);
	if (unordered && !o->quiet)
		warn_at(name, 0, "warning: %llu records taken out of time order: with no FINISHED_ROUND record, "
			"the records waiting to be sorted by time reached %llu bytes, and the earlier half of them "
			"was taken (as perf does when its queue is full); these came after, with earlier times",
			(unsigned long long)unordered, (unsigned long long)qbound);
	const char *note = procmap_note(c.pm);
	if (note && !o->quiet) warn_at(name, 0, "warning: %s", note);
	procmap_free(c.pm);
	perfdata_close(c.d);
	free(c.fc.fc);
	strmap_free(&c.scache);
	sbuf_free(&c.skey);
	free(c.fval);
	free(c.fcnt);
	free(c.frames);
	free(c.evseen);
	free(c.dsent);
	free(c.dhow);
	sbuf_free(&c.ents);
	free(c.ot);
	stages_free(&c);
	unwind_free(c.uw);
	free(c.ustack);
	free(c.lbr);
	sbuf_free(&c.name);
	sbuf_free(&c.src);
}
