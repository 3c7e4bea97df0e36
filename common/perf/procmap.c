/* procmap.c - processes, mappings and symbols of a perf capture (see procmap.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "elfsym.h"
#include "demangle.h"
#include "perfsym.h"
#include "cli.h"
#include "idmap.h"
#include "procmap.h"
#include "rootpath.h"
#include "strmap.h"
#include "symtab.h"
#include "unwind.h"

enum { DSO_FILE, DSO_KERNEL, DSO_JIT, DSO_VDSO, DSO_NONE };

struct dso {
	char *name;
	uint8_t kind;
	bool looked;      /* path / symbols sought */
	perfsym *syms;    /* files: the symbol table, NULL none */
	char build_id[48];
	int32_t pid;      /* JIT: the process of its perf map */
	symtab jit;
};

struct map { uint64_t start, end, pgoff; uint32_t dso; bool identity; };
/* An address space's mappings, sorted and apart; shared by a forked
 * process with its parent until either changes them (a copy for each fork
 * would make memory grow with the fork records, not the mappings).  They
 * are m[off .. off + n), with room on both sides: an insert moves the
 * mappings on its shorter side, so that mappings met in falling order (as
 * mmap places them, from the top down) or in rising order (as perf lists
 * a process's) are not quadratic. */
struct mapv { uint32_t refs, n, cap, off; struct map m[]; };
struct maps { struct mapv *v; uint32_t gen, users; /* threads */
	       uint32_t hint; /* procmap_find's last mapping found (checked before use) */ };

struct thread {
	int32_t pid;
	uint32_t comm;    /* offset in strs */
	uint32_t comm_n;
	bool comm_set;
	uint32_t maps;
};

struct procmap {
	pm_opts o;
	const char *root;   /* --symfs, NULL none */
	char *debug_dir;    /* perf's build-id cache, a root of its own (NULL: none) */
	strmap dsonames;
	struct dso *dsos;
	uint32_t ndsos, dcap;
	struct maps *maps;  /* [0]: the kernel's */
	uint32_t nmaps, mcap;
	struct thread *th;
	uint32_t nth, thcap;
	idmap tids;
	sbuf strs;
	strmap bids;        /* file name -> build id (index into bidv) */
	char **bidv;
	uint32_t bidcap;
	/* kernel */
	bool kdone, kok;
	char *kbuild_id, *krelease;
	perfsym *ksyms;
	elfsym *es;           /* --inline */
	elfsym **aids;        /* es's aids (procmap_aids), naids of them */
	unsigned naids;
	bool es_ahead;        /* its files' DWARF read by the loaders */
	elfsym *es_cache;     /* --inline, the files of perf's build-id cache */
	sbuf inl;
	idmap a2l;          /* procmap_addr2line: (dso, DIE) -> 1 named, 2 renamed */
	const char **inlv;
	uint32_t inlcap;
	uint64_t ktext;     /* recorded address of _text (the kernel mmap's pgoff) */
	uint64_t kmend;     /* the kernel mmap's recorded end (_etext) */
	uint32_t kdso;      /* [kernel.kallsyms]'s dso, UINT32_MAX before its mmap */
	/* procmap_prefetch: threads read the kernel's symbols (kpath into
	 * kpre) and the symbol tables of the files the capture names (pre),
	 * each job taken once (state 0 waiting, 1 under way, 2 done), by a
	 * loader or by the lookup that needs it first */
	pthread_t *lth;
	uint32_t nlth;
	pthread_mutex_t pmu;
	pthread_cond_t pcv;
	char *kpath;
	const char *kroot;  /* kpath is under it (NULL: a host path) */
	perfsym *kpre;
	int kwhy;           /* kpre NULL: why (RP_*) */
	uint8_t kstate;
	struct pre { char *name; perfsym_file cand[8]; uint32_t ncand; perfsym *syms; int why; uint8_t state; } *pre;
	uint32_t npre, precap, pnext;
	strmap prenames;
	int64_t kdelta;     /* recorded - current */
	char note[256];
	/* the files named by the capture that were not read, not for want
	 * of them (a FIFO, a loop of links, ...): the first and the count */
	char fnote[320];
	int fwhy;
	uint64_t nrefused;
	sbuf notes;         /* procmap_note's answer */
	unwind_map *um;     /* procmap_unwind_maps' answer */
	uint32_t umcap;
	char **upath;       /* per dso: its file for unwinding, "" none, NULL not sought */
	uint32_t upcap;
	bool vdso_made;     /* own_vdso_file() tried */
	int vdso_fd;        /* its file, -1 none */
};

static uint32_t maps_n(const struct maps *s) { return s->v ? s->v->n : 0; }
static struct map *maps_at(const struct maps *s) { return s->v ? s->v->m + s->v->off : NULL; }

static void maps_release(struct maps *s)
{
	if (s->v && --s->v->refs == 0) free(s->v);
	s->v = NULL;
}

/* s's mappings its own (not shared), with room for k more on the front
 * side (front) or the back: when there is not, they are laid out again in
 * the middle of a room at least twice their number (amortized). */
static void maps_own(struct maps *s, bool front, uint32_t k)
{
	struct mapv *v = s->v;
	uint32_t n = v ? v->n : 0;
	if (v && v->refs == 1 && (front ? v->off >= k : v->cap - v->off - n >= k)) return;
	uint64_t want = 2 * ((uint64_t)n + k) + 8;
	if (want > UINT32_MAX) die(EXIT_DATA, "more than 2^31 mappings in one process");
	uint32_t cap = (uint32_t)want;
	if (v && v->refs == 1) {
		if (v->cap < cap) {
			v = s->v = xrealloc(v, sizeof *v + (size_t)cap * sizeof v->m[0]);
			v->cap = cap;
		}
		uint32_t off = (v->cap - n) / 2;
		memmove(v->m + off, v->m + v->off, (size_t)n * sizeof v->m[0]);
		v->off = off;
		return;
	}
	struct mapv *w = xmalloc(sizeof *w + (size_t)cap * sizeof w->m[0]);
	w->refs = 1;
	w->n = n;
	w->cap = cap;
	w->off = (cap - n) / 2;
	if (n) memcpy(w->m + w->off, v->m + v->off, (size_t)n * sizeof w->m[0]);
	if (v) v->refs--;
	s->v = w;
}

static uint32_t new_maps(procmap *m)
{
	struct maps *s = VEC_PUSH(m->maps, m->nmaps, m->mcap);
	memset(s, 0, sizeof *s);
	return m->nmaps - 1;
}

procmap *procmap_new(const pm_opts *o)
{
	procmap *m = xcalloc(1, sizeof *m);
	m->o = *o;
	m->root = o->symfs && *o->symfs ? o->symfs : NULL;
	if (o->debug_dir) {
		/* (--debug-dir= : no cache, not the host's root) */
		if (*o->debug_dir) m->debug_dir = xstrdup(o->debug_dir);
	} else {
		const char *home = getenv("HOME");
		sbuf b = { 0 };
		sbuf_printf(&b, "%s/.debug", home && *home ? home : "/root");
		sbuf_addc(&b, 0);
		if (m->root) {
			/* under --symfs, as perf looks for everything there
			 * (resolved there: a link in it leads nowhere out) */
			sbuf in = { 0 };
			if (rp_resolve(m->root, b.p, &in) == RP_OK) m->debug_dir = in.p;
			else sbuf_free(&in);
			sbuf_free(&b);
		} else {
			m->debug_dir = b.p;
		}
	}
	strmap_init(&m->dsonames);
	strmap_init(&m->bids);
	new_maps(m); /* the kernel's */
	m->kdso = UINT32_MAX;
	/* perf's idle thread */
	procmap_comm(m, 0, 0, "swapper");
	return m;
}

void procmap_free(procmap *m)
{
	if (!m) return;
	for (uint32_t i = 0; i < m->ndsos; i++) {
		free(m->dsos[i].name);
		perfsym_free(m->dsos[i].syms);
		symtab_free(&m->dsos[i].jit);
	}
	free(m->dsos);
	strmap_free(&m->dsonames);
	for (uint32_t i = 0; i < m->nmaps; i++) maps_release(&m->maps[i]);
	free(m->maps);
	free(m->th);
	idmap_free(&m->tids);
	sbuf_free(&m->strs);
	for (uint32_t i = 0; i < m->bids.count; i++) free(m->bidv[i]);
	free(m->bidv);
	strmap_free(&m->bids);
	free(m->kbuild_id);
	free(m->krelease);
	if (m->es_ahead) elfsym_ahead_stop(m->es);
	for (uint32_t i = 0; i < m->nlth; i++) pthread_join(m->lth[i], NULL);
	if (m->lth) {
		pthread_mutex_destroy(&m->pmu);
		pthread_cond_destroy(&m->pcv);
	}
	free(m->lth);
	for (uint32_t i = 0; i < m->npre; i++) {
		free(m->pre[i].name);
		for (uint32_t k = 0; k < m->pre[i].ncand; k++) free((char *)m->pre[i].cand[k].path);
		perfsym_free(m->pre[i].syms);
	}
	free(m->pre);
	strmap_free(&m->prenames);
	perfsym_free(m->kpre);
	free(m->kpath);
	perfsym_free(m->ksyms);
	for (unsigned k = 0; k < m->naids; k++) elfsym_free(m->aids[k]);
	free(m->aids);
	if (m->es) elfsym_free(m->es);
	if (m->es_cache) elfsym_free(m->es_cache);
	sbuf_free(&m->inl);
	free(m->inlv);
	idmap_free(&m->a2l);
	free(m->debug_dir);
	sbuf_free(&m->notes);
	free(m->um);
	for (uint32_t i = 0; i < m->upcap; i++) free(m->upath[i]);
	if (m->vdso_made && m->vdso_fd >= 0) close(m->vdso_fd);
	free(m->upath);
	free(m);
}

void procmap_machine(procmap *m, const char *kernel_build_id, const char *osrelease)
{
	free(m->kbuild_id);
	free(m->krelease);
	m->kbuild_id = kernel_build_id ? xstrdup(kernel_build_id) : NULL;
	m->krelease = osrelease ? xstrdup(osrelease) : NULL;
}

void procmap_build_id(procmap *m, const char *filename, const char *hex)
{
	bool added;
	uint32_t i = strmap_intern(&m->bids, filename, strlen(filename), &added);
	grow_array((void **)&m->bidv, &m->bidcap, i + 1, sizeof *m->bidv);
	if (!added) free(m->bidv[i]);
	m->bidv[i] = xstrdup(hex);
}

static void maps_insert(struct maps *s, const struct map *mp);

/* ---- threads -------------------------------------------------------------- */

/* Thread t's mappings are maps[k] from now on: those it had, when no
 * thread has them any more (a process gone, its pid reused), are freed:
 * memory holds the mappings of the processes there are, not of all the
 * fork records' (the kernel's, maps[0], are never a thread's). */
static void thread_maps(procmap *m, uint32_t t, uint32_t k)
{
	uint32_t old = m->th[t].maps;
	if (old == k) return;
	m->maps[k].users++;
	m->th[t].maps = k;
	if (old && --m->maps[old].users == 0) maps_release(&m->maps[old]);
}

static void set_comm(procmap *m, struct thread *t, const char *s, size_t n)
{
	t->comm = (uint32_t)m->strs.n;
	t->comm_n = (uint32_t)n;
	sbuf_add(&m->strs, s, n);
}

uint32_t procmap_thread(procmap *m, int32_t pid, int32_t tid)
{
	uint32_t i = idmap_get(&m->tids, tid);
	if (i != UINT32_MAX) {
		struct thread *t = &m->th[i];
		if (t->pid == -1 && pid != -1 && pid != tid) {
			/* now known to be a thread of pid: its maps are the leader's */
			t->pid = pid;
			uint32_t l = procmap_thread(m, pid, pid);
			thread_maps(m, i, m->th[l].maps);
		}
		return i;
	}
	bool added;
	i = m->nth;
	idmap_put(&m->tids, tid, i, &added);
	struct thread *t = VEC_PUSH(m->th, m->nth, m->thcap);
	memset(t, 0, sizeof *t); /* (maps 0: none yet) */
	t->pid = pid;
	char buf[24];
	int n = snprintf(buf, sizeof buf, ":%d", (int)tid);
	set_comm(m, t, buf, (size_t)n);
	if (pid == tid || pid == -1) {
		uint32_t s = new_maps(m);
		thread_maps(m, i, s);
	} else {
		uint32_t l = procmap_thread(m, pid, pid);
		thread_maps(m, i, m->th[l].maps);
	}
	return i;
}

sstr procmap_comm_of(const procmap *m, uint32_t t)
{
	return (sstr){ m->strs.p + m->th[t].comm, m->th[t].comm_n };
}

int32_t procmap_pid_of(const procmap *m, uint32_t t) { return m->th[t].pid; }

void procmap_state(const procmap *m, uint32_t t, uint32_t out[4])
{
	out[0] = m->th[t].maps;
	out[1] = m->maps[m->th[t].maps].gen;
	out[2] = m->th[t].comm;
	out[3] = m->maps[0].gen;
}

void procmap_comm(procmap *m, int32_t pid, int32_t tid, const char *comm)
{
	uint32_t t = procmap_thread(m, pid, tid);
	set_comm(m, &m->th[t], comm, strlen(comm));
	m->th[t].comm_set = true;
}

void procmap_fork(procmap *m, int32_t pid, int32_t ppid, int32_t tid, int32_t ptid, bool clone_maps)
{
	uint32_t p = procmap_thread(m, ppid, ptid);
	uint32_t t = idmap_get(&m->tids, tid);
	if (t != UINT32_MAX && tid != ptid) {
		/* a thread of that id from before is gone: a new one in its place */
		uint32_t maps = pid == tid ? new_maps(m) : m->th[procmap_thread(m, pid, pid)].maps;
		thread_maps(m, t, maps);
		struct thread *o = &m->th[t];
		o->pid = pid;
		o->comm_set = false;
		char buf[24];
		int n = snprintf(buf, sizeof buf, ":%d", (int)tid);
		set_comm(m, o, buf, (size_t)n);
	} else {
		t = procmap_thread(m, pid, tid);
	}
	struct thread *pt = &m->th[p], *ct = &m->th[t];
	if (pt->comm_set) {
		ct->comm = pt->comm;
		ct->comm_n = pt->comm_n;
		ct->comm_set = true;
	}
	if (ct->pid != pt->pid && ct->maps != pt->maps && clone_maps) {
		struct maps *from = &m->maps[pt->maps], *to = &m->maps[ct->maps];
		if (!maps_n(to)) { /* the usual case: the parent's, shared */
			maps_release(to);
			to->v = from->v;
			if (to->v) to->v->refs++;
			to->gen++;
		} else {
			const struct map *fm = maps_at(from); /* (kept by from while to's change) */
			for (uint32_t i = 0; i < maps_n(from); i++) maps_insert(to, &fm[i]);
		}
	}
}

/* ---- mappings ------------------------------------------------------------- */

static uint32_t dso_get(procmap *m, const char *name, uint8_t kind)
{
	bool added;
	uint32_t i = strmap_intern(&m->dsonames, name, strlen(name), &added);
	if (!added) return i;
	grow_array((void **)&m->dsos, &m->dcap, i + 1, sizeof *m->dsos);
	struct dso *d = &m->dsos[i];
	memset(d, 0, sizeof *d);
	d->name = xstrdup(name);
	d->kind = kind;
	m->ndsos = i + 1;
	return i;
}

/* Inserts mp into s, cutting the mappings it overlaps as perf does. */
static void maps_insert(struct maps *s, const struct map *mp)
{
	s->gen++;
	/* the first that ends after mp starts (they are sorted and apart:
	 * their ends are in order too), by bisection: many mappings in
	 * one process are not a pass over them each */
	const struct map *sm = maps_at(s);
	uint32_t n = maps_n(s), i = 0, hi = n;
	while (i < hi) {
		uint32_t mid = i + (hi - i) / 2;
		if (sm[mid].end <= mp->start) i = mid + 1;
		else hi = mid;
	}
	/* sm[i..j) overlap mp: what sticks out before and after it stays */
	struct map piece[2];
	uint32_t j = i, nbefore = 0, nafter = 0;
	for (; j < n && sm[j].start < mp->end; j++) {
		const struct map *o = &sm[j];
		if (o->start < mp->start) {
			piece[0] = *o;
			piece[0].end = mp->start;
			nbefore = 1;
		}
		if (mp->end < o->end) {
			piece[1] = *o;
			piece[1].start = mp->end;
			if (!o->identity) piece[1].pgoff += mp->end - o->start;
			nafter = 1;
		}
	}
	uint32_t add = nbefore + 1 + nafter, del = j - i;
	struct map x = *mp; /* (mp may be in the shared mappings maps_own leaves) */
	/* the shorter side moves: the front one by del - add, or the back one
	 * by add - del */
	bool front = i < n - j;
	maps_own(s, front, add > del ? add - del : 0);
	struct mapv *v = s->v;
	struct map *m = v->m + v->off;
	if (front) {
		memmove(m + del - add, m, (size_t)i * sizeof *m);
		v->off = v->off + del - add;
		m = v->m + v->off;
	} else {
		memmove(m + i + add, m + j, (size_t)(n - j) * sizeof *m);
	}
	if (nbefore) m[i++] = piece[0];
	m[i++] = x;
	if (nafter) m[i] = piece[1];
	s->v->n = n - del + add;
}

static bool is_anon(const char *f)
{
	return strcmp(f, "//anon") == 0 || strncmp(f, "/dev/zero", 9) == 0 || strncmp(f, "/anon_hugepage", 14) == 0;
}

static void kernel_init(procmap *m);

static bool starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

void procmap_mmap(procmap *m, int32_t pid, bool kernel, uint64_t start, uint64_t len, uint64_t pgoff,
		  uint32_t prot, uint32_t flags, const char *filename, const uint8_t *build_id, uint32_t build_id_size)
{
	struct map mp = { start, start + len < start ? UINT64_MAX : start + len, pgoff, 0, false };
	if (kernel) {
		struct maps *k = &m->maps[0];
		if (starts(filename, "[kernel.kallsyms]")) {
			mp.dso = dso_get(m, "[kernel.kallsyms]", DSO_KERNEL);
			/* perf resolves past the recorded end (the init text) up to
			 * the next kernel mapping */
			m->kmend = mp.end;
			m->kdso = mp.dso;
			mp.end = UINT64_MAX;
			m->ktext = pgoff;
		} else {
			/* a module: "[name]" from ".../name.ko" */
			const char *b = strrchr(filename, '/');
			b = b ? b + 1 : filename;
			sbuf nm = { 0 };
			if (*b == '[') sbuf_adds(&nm, b);
			else {
				sbuf_addc(&nm, '[');
				for (const char *c = b; *c && *c != '.'; c++) sbuf_addc(&nm, *c == '-' ? '_' : *c);
				sbuf_addc(&nm, ']');
			}
			sbuf_addc(&nm, 0);
			mp.dso = dso_get(m, nm.p, DSO_KERNEL);
			sbuf_free(&nm);
		}
		mp.identity = true;
		mp.pgoff = 0;
		/* each kernel mapping ends where the next starts (perf's
		 * maps__fixup_end): the insert cuts what it overlaps */
		maps_insert(k, &mp);
		return;
	}
	uint32_t t = procmap_thread(m, pid, pid);
	/* perf's map__new(): memory of no file (anonymous, hugetlb, heap,
	 * stack, SysV shared) is named as JIT code when executable, else
	 * by its own name; either way an address there is its own offset */
	bool nofile = is_anon(filename) || flags & MAP_HUGETLB || starts(filename, "[stack") ||
		      starts(filename, "/SYSV") || strcmp(filename, "[heap]") == 0;
	if (nofile && prot & PROT_EXEC) {
		char buf[48];
		snprintf(buf, sizeof buf, "/tmp/perf-%d.map", (int)pid);
		mp.dso = dso_get(m, buf, DSO_JIT);
		m->dsos[mp.dso].pid = pid;
		mp.identity = true;
	} else if (strcmp(filename, "[vdso]") == 0) {
		mp.dso = dso_get(m, filename, DSO_VDSO);
	} else if (nofile || filename[0] == '[') {
		mp.dso = dso_get(m, filename, DSO_NONE);
		mp.identity = nofile;
	} else {
		mp.dso = dso_get(m, filename, DSO_FILE);
	}
	if (build_id && build_id_size && !m->dsos[mp.dso].build_id[0]) {
		char *o = m->dsos[mp.dso].build_id;
		for (uint32_t i = 0; i < build_id_size && i < 20; i++) sprintf(o + 2 * i, "%02x", build_id[i]);
	}
	maps_insert(&m->maps[m->th[t].maps], &mp);
}

uint32_t procmap_find(procmap *m, uint32_t thread, bool kernel, uint64_t ip, uint64_t *addr)
{
	struct maps *s = &m->maps[kernel ? 0 : m->th[thread].maps];
	const struct map *sm = maps_at(s);
	uint32_t n = maps_n(s), lo = s->hint + 1, hi = n;
	/* the last mapping with a start at or below ip: the one found last
	 * (a callchain's addresses are mostly in one), else searched */
	if (!(lo <= n && sm[lo - 1].start <= ip && (lo == n || sm[lo].start > ip))) {
		lo = 0;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (sm[mid].start <= ip) lo = mid + 1;
			else hi = mid;
		}
		if (lo) s->hint = lo - 1;
	}
	if (lo == 0 || ip >= sm[lo - 1].end) {
		*addr = ip;
		return UINT32_MAX;
	}
	const struct map *mp = &sm[lo - 1];
	*addr = mp->identity ? ip : ip - mp->start + mp->pgoff;
	if (kernel && mp->dso == m->kdso) {
		/* the kernel's mapping ends with its symbols, as perf's (from
		 * /proc/kcore) does: not in the module and BPF area above */
		if (!m->kdone) kernel_init(m);
		bool past = m->kok && perfsym_kernel_end(m->ksyms) ? ip - (uint64_t)m->kdelta >= perfsym_kernel_end(m->ksyms)
		            /* no symbols: the recorded end, as perf keeps it
		             * (the init text is then unknown) */
		                                                   : ip >= m->kmend;
		if (past) {
			*addr = ip;
			return UINT32_MAX;
		}
	}
	return mp->dso;
}

const char *procmap_dso_name(const procmap *m, uint32_t dso)
{
	return dso == UINT32_MAX ? "[unknown]" : m->dsos[dso].name;
}

/* ---- symbols -------------------------------------------------------------- */

/* Whether path under root is a regular file that can be read (rootpath.h). */
static bool is_file(const char *root, const char *path)
{
	sbuf full = { 0 };
	int why, fd = rp_open(root, path, &full, &why);
	sbuf_free(&full);
	if (fd < 0) return false;
	close(fd);
	return true;
}

/* The build id of the running kernel, from /sys/kernel/notes. */
static bool running_kernel_build_id(char *out, size_t cap)
{
	FILE *f = fopen("/sys/kernel/notes", "rb");
	if (!f) return false;
	unsigned char buf[4096];
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	size_t o = 0;
	while (o + 12 <= n) {
		uint32_t nsz, dsz, type;
		memcpy(&nsz, buf + o, 4);
		memcpy(&dsz, buf + o + 4, 4);
		memcpy(&type, buf + o + 8, 4);
		size_t no = o + 12, dof = no + ((nsz + 3) & ~3u);
		if (dof > n || dsz > n - dof) break;
		if (type == 3 && nsz == 4 && memcmp(buf + no, "GNU", 4) == 0 && dsz * 2 + 1 <= cap) {
			for (uint32_t i = 0; i < dsz; i++) sprintf(out + 2 * i, "%02x", buf[dof + i]);
			return true;
		}
		o = dof + ((dsz + 3) & ~3u);
	}
	return false;
}

/* The kallsyms list to read for the capture's kernel, under *root (NULL:
 * a host path), NULL (with the note saying why) when its kernel frames
 * stay unnamed; *must: a list that cannot be read is an error (else a
 * note).  A kernel that is not running has its list in perf's build-id
 * cache when perf record put a copy there (or perf archive brought one),
 * as perf looks for it. */
static const char *kernel_path(procmap *m, char *buf, size_t n, bool *must, const char **root)
{
	*must = true;
	*root = NULL;
	if (m->o.kallsyms) return m->o.kallsyms;
	char bid[128];
	if (m->kbuild_id && running_kernel_build_id(bid, sizeof bid)) {
		if (strcmp(bid, m->kbuild_id) != 0) {
			if (!m->root && m->debug_dir) {
				snprintf(buf, n, "/[kernel.kallsyms]/%s/kallsyms", m->kbuild_id);
				*root = m->debug_dir;
				if (is_file(*root, buf)) return buf; /* (all zeros: kernel_init's note) */
				*root = NULL;
			}
			snprintf(m->note, sizeof m->note, "kernel frames left unnamed: the capture's kernel (build id %.40s) is not this one, and perf's build-id cache has no copy of its symbols (give --kallsyms)", m->kbuild_id);
			return NULL;
		}
	} else {
		struct utsname u;
		if (m->krelease && uname(&u) == 0 && strcmp(u.release, m->krelease) != 0) {
			snprintf(m->note, sizeof m->note, "kernel frames left unnamed: the capture's kernel (%.64s) is not this one (give --kallsyms)", m->krelease);
			return NULL;
		}
	}
	if (!m->root) return "/proc/kallsyms";
	/* as perf: the list under the root too */
	*must = false;
	*root = m->root;
	snprintf(buf, n, "/proc/kallsyms");
	return buf;
}

static uint32_t sym_candidates(const procmap *m, const char *name, uint8_t kind, const char *build_id, perfsym_file cand[8]);

static bool pre_help(procmap *m);

/* A loader thread: the kernel's symbols first, then the files' tables. */
static void *loader(void *arg)
{
	procmap *m = arg;
	pthread_mutex_lock(&m->pmu);
	for (;;) {
		if (m->kpath && m->kstate == 0) {
			m->kstate = 1;
			pthread_mutex_unlock(&m->pmu);
			int why;
			perfsym *k = perfsym_kallsyms(m->kroot, m->kpath, &why);
			pthread_mutex_lock(&m->pmu);
			m->kpre = k;
			m->kwhy = why;
			m->kstate = 2;
			pthread_cond_broadcast(&m->pcv);
			continue;
		}
		if (!pre_help(m)) break;
	}
	pthread_mutex_unlock(&m->pmu);
	/* then the DWARF of the files, as their first look-ups read it */
	if (m->es_ahead)
		while (elfsym_prepare(m->es))
			;
	return NULL;
}

void procmap_prefetch(procmap *m, unsigned threads, bool dwarf)
{
	if (m->lth || !threads) return;
	if (!m->kdone && m->kbuild_id) {
		bool must;
		char buf[4096];
		const char *p = kernel_path(m, buf, sizeof buf, &must, &m->kroot);
		m->note[0] = 0;
		if (p) m->kpath = xstrdup(p);
	}
	/* the files the capture has build ids for (those it has samples in) */
	strmap_init(&m->prenames);
	for (uint32_t i = 0; i < m->bids.count; i++) {
		size_t n;
		const char *name = strmap_key(&m->bids, i, &n);
		if (name[0] != '/' || is_anon(name) || starts(name, "/SYSV")) continue;
		bool added;
		strmap_intern(&m->prenames, name, n, &added);
		struct pre *p = VEC_PUSH(m->pre, m->npre, m->precap);
		memset(p, 0, sizeof *p);
		p->name = xmemdup(name, n);
		p->ncand = sym_candidates(m, p->name, DSO_FILE, m->bidv[i], p->cand);
		/* (a kernel module's addresses are not unwound) */
		const char *ko = strstr(p->name, ".ko");
		if (dwarf && m->o.inlines && !(ko && (!ko[3] || ko[3] == '.'))) {
			if (!m->es) m->es = elfsym_new(m->root, NULL);
			elfsym_ahead(m->es, p->name);
			m->es_ahead = true;
		}
	}
	if (!m->kpath && !m->npre) return;
	perfsym_init();
	pthread_mutex_init(&m->pmu, NULL);
	pthread_cond_init(&m->pcv, NULL);
	m->lth = xcalloc(threads, sizeof *m->lth);
	for (unsigned i = 0; i < threads; i++)
		if (pthread_create(&m->lth[m->nlth], NULL, loader, m) == 0) m->nlth++;
}

/* Called with pmu held, instead of waiting for a loader: takes a table no
 * loader has taken yet and reads it (false when there is none), so that
 * this thread works while the one it waits for does. */
static bool pre_help(procmap *m)
{
	while (m->pnext < m->npre && m->pre[m->pnext].state != 0) m->pnext++;
	if (m->pnext == m->npre) return false;
	struct pre *p = &m->pre[m->pnext++];
	p->state = 1;
	pthread_mutex_unlock(&m->pmu);
	int why = RP_OK;
	perfsym *t = perfsym_load(p->cand, p->ncand, &why);
	pthread_mutex_lock(&m->pmu);
	p->syms = t;
	p->why = why;
	p->state = 2;
	pthread_cond_broadcast(&m->pcv);
	return true;
}

/* The table of file name with these candidates, from the loaders (or
 * loaded here when none took it yet): false when they had no such job. */
static bool pre_take(procmap *m, const char *name, const perfsym_file *cand, uint32_t n, perfsym **out, int *why)
{
	if (!m->lth) return false;
	int64_t i = strmap_find(&m->prenames, name, strlen(name));
	if (i < 0) return false;
	struct pre *p = &m->pre[i];
	if (p->ncand != n) return false;
	for (uint32_t k = 0; k < n; k++)
		if (p->cand[k].root != cand[k].root || strcmp(p->cand[k].path, cand[k].path) != 0) return false;
	pthread_mutex_lock(&m->pmu);
	while (p->state == 1)
		if (!pre_help(m)) pthread_cond_wait(&m->pcv, &m->pmu);
	if (p->state == 0) {
		p->state = 1;
		pthread_mutex_unlock(&m->pmu);
		*out = perfsym_load(cand, n, why);
		pthread_mutex_lock(&m->pmu);
		p->state = 2;
	} else {
		*out = p->syms;
		*why = p->why;
		p->syms = NULL;
	}
	pthread_mutex_unlock(&m->pmu);
	return true;
}

/* The kernel's symbols (once, at the first kernel address): read here, or
 * taken from the thread procmap_prefetch() started. */
static void kernel_init(procmap *m)
{
	m->kdone = true;
	bool must;
	char buf[4096];
	const char *root;
	const char *path = kernel_path(m, buf, sizeof buf, &must, &root);
	if (!path) return;
	int why = RP_MISSING;
	if (m->lth && m->kpath && m->kroot == root && strcmp(m->kpath, path) == 0) {
		pthread_mutex_lock(&m->pmu);
		while (m->kstate == 1) {
			if (pre_help(m)) continue;
			/* a file's DWARF read ahead meanwhile: the kernel's
			 * symbols take a loader tens of milliseconds, which
			 * the first sample would wait for doing nothing */
			pthread_mutex_unlock(&m->pmu);
			bool prepared = m->es_ahead && elfsym_prepare(m->es);
			pthread_mutex_lock(&m->pmu);
			if (!prepared && m->kstate == 1) pthread_cond_wait(&m->pcv, &m->pmu);
		}
		if (m->kstate == 0) {
			m->kstate = 2; /* no loader took it: read here */
			pthread_mutex_unlock(&m->pmu);
			m->ksyms = perfsym_kallsyms(root, path, &why);
		} else {
			m->ksyms = m->kpre;
			why = m->kwhy;
			m->kpre = NULL;
			pthread_mutex_unlock(&m->pmu);
		}
	} else {
		m->ksyms = perfsym_kallsyms(root, path, &why);
	}
	/* the path as messages give it */
	char shown[4200];
	snprintf(shown, sizeof shown, "%s%s", root ? root : "", path);
	if (!m->ksyms && !must) {
		if (why == RP_MISSING)
			snprintf(m->note, sizeof m->note, "kernel frames left unnamed: no %.128s (give --kallsyms)", shown);
		else
			snprintf(m->note, sizeof m->note, "kernel frames left unnamed: %.128s is %s (give --kallsyms)", shown, rp_why_text(why));
		return;
	}
	if (!m->ksyms && why != RP_MISSING && why != RP_OK)
		die(EXIT_DATA, "%s: cannot read the kernel's symbols: %s", shown, rp_why_text(why));
	if (!m->ksyms) die(EXIT_DATA, "%s: cannot read the kernel's symbols", shown);
	if (!perfsym_count(m->ksyms)) {
		snprintf(m->note, sizeof m->note, "kernel frames left unnamed: %.128s has no addresses (kptr_restrict?)", shown);
		return;
	}
	m->kok = true;
	/* KASLR: the recorded address of _text against the list's */
	if (m->ktext && perfsym_text(m->ksyms)) m->kdelta = (int64_t)(m->ktext - perfsym_text(m->ksyms));
}

static bool own_vdso_file(procmap *m);

/* The symbols of this process's vdso (own_vdso_file()). */
static perfsym *own_vdso(procmap *m)
{
	if (!own_vdso_file(m)) return NULL;
	char path[32];
	snprintf(path, sizeof path, "/dev/fd/%d", m->vdso_fd);
	const perfsym_file c[1] = { { NULL, path } };
	return perfsym_load(c, 1, NULL);
}

/* The files perf would look in for the symbols of a dso, in its order:
 * perf's build-id cache (the copy, then a debug file; under the cache as a
 * root), the debug file by build id, then the recorded path (both under
 * --symfs, as after chroot(2)).  The paths are malloc'ed. */
static uint32_t sym_candidates(const procmap *m, const char *name, uint8_t kind, const char *b, perfsym_file cand[8])
{
	uint32_t n = 0;
	if (strlen(b) > 2) {
		sbuf x = { 0 };
		if (m->debug_dir) {
			sbuf_printf(&x, "/.build-id/%.2s/%s/%s", b, b + 2, kind == DSO_VDSO ? "vdso" : "elf");
			cand[n++] = (perfsym_file){ m->debug_dir, x.p };
			x = (sbuf){ 0 };
			sbuf_printf(&x, "/.build-id/%.2s/%s/debug", b, b + 2);
			cand[n++] = (perfsym_file){ m->debug_dir, x.p };
			x = (sbuf){ 0 };
		}
		sbuf_printf(&x, "/usr/lib/debug/.build-id/%.2s/%s.debug", b, b + 2);
		cand[n++] = (perfsym_file){ m->root, x.p };
	}
	if (kind == DSO_FILE) cand[n++] = (perfsym_file){ m->root, xstrdup(name) };
	return n;
}

/* A file the capture names (under the root) was not read for why: noted
 * unless it is missing (many are: a capture made elsewhere). */
static void refused(procmap *m, const char *name, int why)
{
	if (why == RP_OK || why == RP_MISSING) return;
	if (!m->nrefused++) {
		snprintf(m->fnote, sizeof m->fnote, "%s%s", m->root ? m->root : "", name);
		m->fwhy = why;
	}
}

/* The symbol table of d (sym_candidates), from a loader when one has it. */
static void load_syms(procmap *m, struct dso *d)
{
	d->looked = true;
	if (!d->build_id[0]) {
		int64_t b = strmap_find(&m->bids, d->name, strlen(d->name));
		if (b >= 0) snprintf(d->build_id, sizeof d->build_id, "%s", m->bidv[b]);
	}
	if (!d->build_id[0] && d->kind == DSO_FILE) perfsym_build_id(m->root, d->name, d->build_id);
	perfsym_file cand[8];
	uint32_t n = sym_candidates(m, d->name, d->kind, d->build_id, cand);
	int why = RP_OK;
	if (d->kind != DSO_FILE || !pre_take(m, d->name, cand, n, &d->syms, &why))
		d->syms = perfsym_load(cand, n, &why);
	for (uint32_t i = 0; i < n; i++) free((char *)cand[i].path);
	if (!d->syms && d->kind == DSO_FILE) refused(m, d->name, why);
	/* a vdso of no build id (perf record -B): this process's, as perf
	 * takes its own; one the capture names a build id for is only found
	 * in the build-id cache, as perf finds it (perf record -N with an
	 * empty cache: unnamed, as perf script's [[vdso]]) */
	if (!d->syms && d->kind == DSO_VDSO && !d->build_id[0] && !m->root) d->syms = own_vdso(m);
}

bool procmap_symbol(procmap *m, uint32_t dso, uint64_t addr, sbuf *name, uint64_t *off)
{
	perfsym *t;
	uint64_t taddr;
	if (procmap_symtab(m, dso, addr, &t, &taddr)) {
		const char *s = t ? perfsym_find(t, taddr, off) : NULL;
		if (!s) return false;
		sbuf_adds(name, s);
		return true;
	}
	/* a JIT map (perf-PID.map) */
	struct dso *d = &m->dsos[dso];
	if (!d->looked) {
		d->looked = true;
		/* under --symfs, a regular file only (rootpath.h) */
		sbuf p = { 0 };
		int why, fd = rp_open(m->root, d->name, &p, &why);
		if (fd >= 0) symtab_read_perfmap_fd(&d->jit, fd, p.p);
		else refused(m, d->name, why);
		sbuf_free(&p);
	}
	const symtab_ent *e = symtab_find(&d->jit, addr);
	if (!e) return false;
	sbuf_adds(name, symtab_str(&d->jit, e->name));
	*off = addr - e->start;
	return true;
}

bool procmap_symtab(procmap *m, uint32_t dso, uint64_t addr, perfsym **t, uint64_t *taddr)
{
	*t = NULL;
	*taddr = addr;
	if (dso == UINT32_MAX) return true;
	struct dso *d = &m->dsos[dso];
	switch (d->kind) {
	case DSO_KERNEL:
		if (!m->kdone) kernel_init(m);
		if (!m->kok) return true;
		*t = m->ksyms;
		*taddr = addr - (uint64_t)m->kdelta;
		return true;
	case DSO_JIT:
		return false;
	case DSO_FILE:
	case DSO_VDSO:
		if (!d->looked) load_syms(m, d);
		*t = d->syms;
		return true;
	default:
		return true;
	}
}

/* elfsym_lookup of addr in file dso (NULL elfsym: none, or not an ELF file). */
static bool dwarf_lookup(procmap *m, uint32_t dso, uint64_t addr, elfsym_res *r)
{
	if (dso == UINT32_MAX || !m->o.inlines) return false;
	struct dso *d = &m->dsos[dso];
	if (d->kind != DSO_FILE) return false;
	/* (the root's /usr/lib/debug/.build-id for debug files by build id) */
	if (!m->es) m->es = elfsym_new(m->root, NULL);
	int why = elfsym_lookup(m->es, d->name, addr, true, r);
	if (why == ES_MISSING && !m->root && m->debug_dir && strlen(d->build_id) > 2) {
		/* a file gone since the capture: perf's build-id cache copy,
		 * which perf's addr2line reads as well (under the cache as a
		 * root, its debug files too) */
		if (!m->es_cache) m->es_cache = elfsym_new(m->debug_dir, NULL);
		sbuf x = { 0 };
		sbuf_printf(&x, "/.build-id/%.2s/%s/elf", d->build_id, d->build_id + 2);
		why = elfsym_lookup(m->es_cache, x.p, addr, true, r);
		sbuf_free(&x);
	}
	return why == ES_OK;
}

bool procmap_aids(procmap *m, unsigned n)
{
	if (!m->o.inlines || m->aids || !n || !elfsym_aids_work()) return false;
	if (!m->es) m->es = elfsym_new(m->root, NULL);
	m->aids = xcalloc(n, sizeof *m->aids);
	for (unsigned k = 0; k < n; k++) m->aids[k] = elfsym_aid_new(m->es);
	m->naids = n;
	return true;
}

void procmap_aid(procmap *m, unsigned k, const elfsym_ask *asks, uint32_t n, bool (*ahead)(void *, uint64_t),
		 void *ctx)
{
	if (k < m->naids) elfsym_aid_many(m->aids[k], asks, n, ahead, ctx);
}

/* Names f[0..nf) (NULL ones skipped, or "??" when unknown is), demangled
 * as perf shows them, into m->inlv (64 at most): their number. */
static uint32_t put_names(procmap *m, const char *const *f, uint32_t nf, const char *unknown)
{
	m->inl.n = 0;
	uint32_t offs[64], k = 0;
	for (uint32_t i = 0; i < nf && k < 64; i++) {
		const char *s = f[i] ? f[i] : unknown;
		if (!s) continue;
		offs[k++] = (uint32_t)m->inl.n;
		size_t l = strlen(s);
		if (!demangle_name(s, l, DEMANGLE_NO_PARAMS | DEMANGLE_NO_HASH | DEMANGLE_NM, &m->inl)) sbuf_add(&m->inl, s, l);
		sbuf_addc(&m->inl, 0);
	}
	grow_array((void **)&m->inlv, &m->inlcap, k + 1, sizeof *m->inlv);
	for (uint32_t i = 0; i < k; i++) m->inlv[i] = m->inl.p + offs[i];
	return k;
}

const char *const *procmap_inlined(procmap *m, uint32_t dso, uint64_t addr, uint32_t *n)
{
	*n = 0;
	elfsym_res r;
	if (!dwarf_lookup(m, dso, addr, &r) || r.n < 2) return NULL;
	*n = put_names(m, r.func, r.n - 1, NULL);
	return m->inlv;
}

bool procmap_srcline(procmap *m, uint32_t dso, uint64_t addr, sbuf *out)
{
	elfsym_res r;
	if (!dwarf_lookup(m, dso, addr, &r) || !r.has_line || !r.n || !r.srcline[0]) return false;
	/* the file's base name, as perf prints it (srcline_full_filename off) */
	const char *s = r.srcline[0], *b = strrchr(s, '/');
	sbuf_adds(out, b ? b + 1 : s);
	return true;
}

const char *const *procmap_addr2line(procmap *m, uint32_t dso, uint64_t addr, uint32_t *n)
{
	*n = 0;
	elfsym_res r;
	/* addr2line answers "??:0" for an address with no line: perf
	 * then keeps the symbol's frame */
	if (!dwarf_lookup(m, dso, addr, &r) || !r.has_line) return NULL;
	/* the function: DWARF's, else (code without DWARF functions, as
	 * assembly) the symbol table's */
	const char *sym = r.has_symoff ? r.sym_first : NULL;
	if (r.dwarf_func) r.func[r.n - 1] = r.dwarf_func;
	/* A C++ function without a linkage name, binutils (dwarf2.c) names
	 * by the symbol holding the address the first time it is the
	 * innermost, by its DWARF name afterwards; when it starts where
	 * that symbol does, by the symbol's name from then on, also as a
	 * caller.  The addresses are asked about in perf's order: each the
	 * first time a sample has it. */
	if (r.mangled && sym) {
		for (uint32_t k = 0; k < r.n; k++) {
			const elfsym_fn *f = &r.fn[k];
			if (!f->die || !f->plain) continue;
			int64_t key = (int64_t)(f->die ^ (uint64_t)dso << 40);
			if (k == 0) {
				bool added;
				if (idmap_put(&m->a2l, key, f->at_sym ? 2 : 1, &added) == 2 || added) r.func[0] = sym;
			} else if (idmap_get(&m->a2l, key) == 2) {
				r.func[k] = sym;
			}
		}
	}
	*n = put_names(m, r.func, r.n, "??");
	return m->inlv;
}

const char *procmap_note(procmap *m)
{
	m->notes.n = 0;
	if (m->note[0]) sbuf_adds(&m->notes, m->note);
	if (m->nrefused) {
		if (m->notes.n) sbuf_adds(&m->notes, "; ");
		sbuf_printf(&m->notes, "frames in %s left unnamed: %s", m->fnote, rp_why_text(m->fwhy));
		if (m->nrefused > 1)
			sbuf_printf(&m->notes, " (and in %llu more files not read: only regular files are)",
				    (unsigned long long)(m->nrefused - 1));
	}
	sbuf_addc(&m->notes, 0);
	return m->notes.n > 1 ? m->notes.p : NULL;
}

/* ---- mappings for unwinding (unwind.h) ------------------------------------ */

uint64_t procmap_maps_version(const procmap *m, uint32_t thread)
{
	uint32_t k = m->th[thread].maps;
	return (uint64_t)k << 32 | m->maps[k].gen;
}

/* This process's vdso in a temporary file (kept open): for the symbols of
 * a vdso of no build id (own_vdso()), and to unwind through a vdso perf's
 * build-id cache lacks when its build id is this one's. */
static bool own_vdso_file(procmap *m)
{
	if (m->vdso_made) return m->vdso_fd >= 0;
	m->vdso_made = true;
	m->vdso_fd = -1;
	const unsigned char *base = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	if (!base || memcmp(base, ELFMAG, SELFMAG) != 0 || base[EI_CLASS] != ELFCLASS64) return false;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
	size_t size = (size_t)eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	if (size > (1 << 20)) return false;
	m->vdso_fd = tmpfile_unlinked(cli_prog);
	tmpfile_write(m->vdso_fd, base, size);
	return true;
}

/* The file of dso k to unwind with (its .eh_frame, at run-time addresses):
 * the copy in perf's build-id cache, else the recorded path under --symfs;
 * NULL when neither is there.  Sought once. */
static const char *unwind_file(procmap *m, uint32_t k)
{
	if (k >= m->upcap) {
		uint32_t old = m->upcap;
		grow_array((void **)&m->upath, &m->upcap, k + 1, sizeof *m->upath);
		memset(m->upath + old, 0, (m->upcap - old) * sizeof *m->upath);
	}
	if (m->upath[k]) return *m->upath[k] ? m->upath[k] : NULL;
	struct dso *d = &m->dsos[k];
	const char *bid = d->build_id;
	if (!*bid) {
		int64_t b = strmap_find(&m->bids, d->name, strlen(d->name));
		if (b >= 0) bid = m->bidv[b];
	}
	/* the file's host path, resolved under its root (rootpath.h), which
	 * the unwinder opens if it is a regular file */
	sbuf p = { 0 }, rel = { 0 };
	bool found = false;
	if (strlen(bid) > 2 && m->debug_dir) {
		sbuf_printf(&rel, "/.build-id/%.2s/%s/%s", bid, bid + 2, d->kind == DSO_VDSO ? "vdso" : "elf");
		sbuf_addc(&rel, 0);
		found = is_file(m->debug_dir, rel.p) && rp_resolve(m->debug_dir, rel.p, &p) == RP_OK;
	}
	if (!found) {
		p.n = 0;
		if (d->kind == DSO_FILE) {
			found = is_file(m->root, d->name) && rp_resolve(m->root, d->name, &p) == RP_OK;
		} else if (!m->root && own_vdso_file(m)) {
			/* ours, when the capture's is unknown or the same */
			char own[48];
			sbuf_printf(&p, "/dev/fd/%d", m->vdso_fd);
			sbuf_addc(&p, 0);
			found = !*bid || (perfsym_build_id(NULL, p.p, own) && strcmp(own, bid) == 0);
		}
		if (!found) p.n = 0;
		sbuf_addc(&p, 0); /* "": sought, none */
	}
	sbuf_free(&rel);
	m->upath[k] = p.p;
	return *p.p ? p.p : NULL;
}

uint32_t procmap_unwind_maps(procmap *m, uint32_t thread, const unwind_map **out)
{
	const struct maps *s = &m->maps[m->th[thread].maps];
	const struct map *sm = maps_at(s);
	uint32_t n = 0;
	for (uint32_t i = 0; i < maps_n(s); i++) {
		uint32_t k = sm[i].dso;
		if (m->dsos[k].kind != DSO_FILE && m->dsos[k].kind != DSO_VDSO) continue;
		const char *path = unwind_file(m, k);
		if (!path) continue;
		grow_array((void **)&m->um, &m->umcap, n + 1, sizeof *m->um);
		m->um[n++] = (unwind_map){ sm[i].start, sm[i].end, sm[i].pgoff, path,
					   m->dsos[k].kind == DSO_FILE ? m->dsos[k].name : NULL };
	}
	*out = m->um;
	return n;
}
