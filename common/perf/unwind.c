/* unwind.c - user call stacks with libdwfl's unwinder (see unwind.h). */
#define _GNU_SOURCE /* memfd_create */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "elfsym.h"
#include "rootpath.h"
#include "unwind.h"
#include "util.h"

static const char *const why_text[UW_NWHY] = {
	"complete", "no user registers", "unusable registers (32-bit process, or no pc or stack pointer)",
	"no readable file at an address", "no unwind information further"
};

const char *unwind_why_text(int why)
{
	return why >= 0 && why < UW_NWHY ? why_text[why] : "?";
}

int unwind_arch_from_name(const char *name)
{
	if (!name) return UNWIND_ARCH_NONE;
	if (!strcmp(name, "x86_64") || !strcmp(name, "amd64")) return UNWIND_X86_64;
	if (!strcmp(name, "aarch64") || !strcmp(name, "arm64")) return UNWIND_AARCH64;
	return UNWIND_ARCH_NONE;
}

enum { UM_NEW, UM_REPORTED, UM_FAILED };

struct umap {
	uint64_t start, end, pgoff;
	char *path;
	int state;
	uint64_t bias;         /* UM_REPORTED: its module's */
	uint32_t mod;          /* UM_REPORTED: its module (index in mods) */
};

struct uproc {
	bool used;
	int64_t pid;
	uint64_t version;
	uint64_t last_use;
	struct umap *maps;     /* sorted by start */
	uint32_t nmaps, mapcap;
	Dwfl *dwfl;
	bool attached;
	/* the address ranges of the modules reported (report()); a module
	 * whose mappings are gone is stale (see carry_over()) */
	struct urange { uint64_t lo, hi; bool stale; } *mods;
	uint32_t nmods, modcap, nstale;
	/* every mapping reported this session, gone or not (path owned),
	 * sorted by start: a mapping again the same is its module again */
	struct umap *hist;
	uint32_t nhist, histcap;
	/* a report libdwfl refused: no more this session (see report()) */
	bool frozen;
};

/* The largest register file: aarch64's x0..x30 and sp. */
#define MAX_DREGS 33

struct unwind {
	int arch;
	char *root;            /* the mapped files' root (NULL: none), for debug links */
	char *debug_dir;       /* the build-id directory, a root of its own (NULL: the root's /usr/lib/debug/.build-id) */
	char *debuginfo_path;
	Dwfl_Callbacks cb;
	struct uproc procs[UNWIND_MAX_PROCS];
	uint64_t tick;
	/* the sample being unwound */
	struct uproc *cur;
	Dwarf_Word dreg[MAX_DREGS];
	bool dreg_set[MAX_DREGS];
	uint64_t pc, sp;
	const uint8_t *stack;
	uint64_t stack_size;
	uint64_t *ips;
	uint32_t n, max;
	int why;
	bool read_failed;      /* a memory read of the current step failed */
	uint64_t last_pc;      /* the last frame's pc, as looked up in the CFI */
	/* registers already restored at the sampled pc (an epilogue past its
	 * pops) whose save slots the CFI still names, below the stack pointer */
	uint64_t popped_addr[MAX_DREGS], popped_val[MAX_DREGS];
	uint32_t npopped;
	/* x86_64's rbx, which libdwfl (elfutils 0.188) loses in a frame whose
	 * CFI does not save it: its ABI defaults make rax call-saved, not
	 * rbx.  The last frame's registers, rbx carried down from the frame
	 * that had it; the unwinding starts again from them when it stopped
	 * for want of rbx (a caller whose CFA is rbx, as glibc's
	 * _dl_runtime_resolve). */
	Dwarf_Word freg[MAX_DREGS];
	bool freg_set[MAX_DREGS];
	bool rbx_carried;      /* the last frame's rbx is ours, not libdwfl's */
	bool restart;          /* the initial registers are freg */
	bool skip_first;       /* the first frame is the last one already kept */
	bool stale_stop;       /* stopped at a frame in a stale module */
	/* the debug files met: each one's verdict (see debug_verdict()) */
	struct dbgfile { char *path; int fd; } *dbg;
	uint32_t ndbg, dbgcap;
	/* the debug links followed: (file, link name) -> the debug file's
	 * host path, "" none (the search reads each candidate whole for its
	 * CRC: once, not in every session) */
	struct dbglink { char *key, *path; } *links;
	uint32_t nlinks, linkcap;
};

/* What a debug file is to the unwinder: only its .debug_frame (the CFI
 * of an address its file's .eh_frame does not cover) is read of it.
 * Debian's debug files have none (libc6-dbg's: gcc writes .eh_frame), and
 * libdw would decompress all of their DWARF to find that out (libc's:
 * 60 ms, once per new session, as a sample in clone3's first
 * instructions, where .eh_frame ends, asks for it): such a file is not
 * given to libdwfl at all (the same stacks: no CFI either way).  One with
 * a .debug_frame and compressed sections is copied once with them
 * decompressed, into a memory file the sessions read.  The verdict is
 * kept per path. */
enum { DBG_NO_FRAME = -2, DBG_AS_IS = -1 };

/* The verdict on debug file in_fd: DBG_NO_FRAME, DBG_AS_IS (a
 * .debug_frame, nothing compressed, or a copy that failed), or the
 * descriptor of its plain copy. */
static int debug_verdict(int in_fd)
{
	Elf *in = elf_begin(in_fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	size_t shstrndx, nph;
	if (!in || elf_kind(in) != ELF_K_ELF || !gelf_getehdr(in, &eh) || elf_getshdrstrndx(in, &shstrndx) != 0 ||
	    shstrndx >= SHN_LORESERVE || elf_getphdrnum(in, &nph) != 0) {
		if (in) elf_end(in);
		return DBG_AS_IS;
	}
	bool frame = false, packed = false;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(in, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh)) continue;
		const char *name = elf_strptr(in, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".debug_frame") && sh.sh_type != SHT_NOBITS) frame = true;
		if (sh.sh_flags & SHF_COMPRESSED) packed = true;
	}
	if (!frame || !packed) {
		elf_end(in);
		return frame ? DBG_AS_IS : DBG_NO_FRAME;
	}
	int fd = memfd_create("spaa-debug", MFD_CLOEXEC);
	Elf *out = fd >= 0 ? elf_begin(fd, ELF_C_WRITE, NULL) : NULL;
	bool ok = out && gelf_newehdr(out, gelf_getclass(in)) && gelf_update_ehdr(out, &eh) &&
		  (nph == 0 || gelf_newphdr(out, nph));
	for (size_t k = 0; ok && k < nph; k++) {
		GElf_Phdr ph;
		ok = gelf_getphdr(in, (int)k, &ph) && gelf_update_phdr(out, (int)k, &ph);
	}
	for (Elf_Scn *scn = NULL; ok && (scn = elf_nextscn(in, scn));) {
		GElf_Shdr sh;
		ok = gelf_getshdr(scn, &sh) != NULL;
		if (ok && (sh.sh_flags & SHF_COMPRESSED))
			ok = elf_compress(scn, 0, 0) >= 0 && gelf_getshdr(scn, &sh);
		Elf_Scn *o = ok ? elf_newscn(out) : NULL;
		Elf_Data *d = o ? elf_getdata(scn, NULL) : NULL;
		ok = o != NULL;
		if (ok && d) {
			Elf_Data *od = elf_newdata(o);
			ok = od != NULL;
			if (ok) *od = *d; /* (its bytes stay in, alive until elf_end) */
		}
		ok = ok && gelf_update_shdr(o, &sh);
	}
	if (ok) {
		GElf_Ehdr oh;
		ok = gelf_getehdr(out, &oh) != NULL;
		oh.e_shstrndx = (GElf_Half)shstrndx;
		ok = ok && gelf_update_ehdr(out, &oh) && elf_update(out, ELF_C_WRITE) >= 0;
	}
	if (out) elf_end(out);
	elf_end(in);
	if (!ok && fd >= 0) close(fd);
	return ok ? fd : DBG_AS_IS;
}

/* The verdict on debug file key (dbg_key) reached before, or NULL. */
static const struct dbgfile *dbg_find(const unwind *u, const char *key)
{
	for (uint32_t i = 0; i < u->ndbg; i++)
		if (!strcmp(u->dbg[i].path, key)) return &u->dbg[i];
	return NULL;
}

/* path under root (NULL: none) as a key of dbg, in *key. */
static void dbg_key(const char *root, const char *path, sbuf *key)
{
	key->n = 0;
	if (root) {
		sbuf_adds(key, root);
		sbuf_addc(key, '\n');
	}
	sbuf_adds(key, path);
	sbuf_addc(key, 0);
}

/* The descriptor to give libdwfl for debug file path under root (rootpath.h:
 * a regular file, never outside the root), as its verdict says (judged the
 * first time): -1 for a file without .debug_frame or none there, one of its
 * plain copy, or the file's own, its host path in *name (malloc'ed).  fd:
 * the file open (closed when another is given), or -1 to open it when
 * needed.  *judged: the file was judged, now or before. */
static int dbg_use(unwind *u, const char *root, const char *path, int fd, char **name, bool *judged)
{
	sbuf key = { 0 }, full = { 0 };
	dbg_key(root, path, &key);
	const struct dbgfile *f = dbg_find(u, key.p);
	int why;
	*judged = false;
	if (!f) {
		if (fd < 0) fd = rp_open(root, path, &full, &why);
		if (fd < 0) {
			sbuf_free(&key);
			sbuf_free(&full);
			return -1;
		}
		struct dbgfile *n = VEC_PUSH(u->dbg, u->ndbg, u->dbgcap);
		n->path = key.p;
		key = (sbuf){ 0 };
		n->fd = debug_verdict(fd);
		f = n;
	}
	*judged = true;
	int out;
	if (f->fd == DBG_AS_IS) {
		out = fd >= 0 ? fd : rp_open(root, path, &full, &why);
	} else {
		if (fd >= 0) close(fd);
		out = f->fd >= 0 ? dup(f->fd) : -1;
	}
	if (out >= 0) *name = xstrdup(full.n ? full.p : path);
	sbuf_free(&key);
	sbuf_free(&full);
	return out;
}

/* A separate debug file by build id under the debug directory (for the
 * .debug_frame of a file whose .eh_frame does not cover an address), else
 * by the file's .gnu_debuglink (elfsym_find_debuglink: next to the file,
 * its .debug/, /usr/lib/debug); every one under the root, a regular file
 * (libdwfl's standard search opens any path, FIFOs too); as dbg_use() gives
 * it.  The module's user data is the unwinder. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name)
{
	(void)modname;
	(void)base;
	const unsigned char *bits;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(mod, &bits, &vaddr);
	unwind *u = userdata ? *userdata : NULL;
	if (!u) return -1;
	bool alt = debuglink_file && debuglink_crc == 0; /* dwz's alternate file */
	bool judged;
	if (len > 1 && !alt) {
		sbuf p = { 0 };
		if (!u->debug_dir) sbuf_adds(&p, "/usr/lib/debug/.build-id/");
		sbuf_printf(&p, "%02x/", bits[0]);
		for (int i = 1; i < len; i++) sbuf_printf(&p, "%02x", bits[i]);
		sbuf_adds(&p, ".debug");
		sbuf_addc(&p, 0);
		/* (one judged before is not opened again; one judged of no
		 * use is not sought by its debug link either) */
		int fd = dbg_use(u, u->debug_dir ? u->debug_dir : u->root, p.p, -1, debuginfo_file_name, &judged);
		sbuf_free(&p);
		if (fd >= 0 || judged) return fd;
	}
	if (!debuglink_file || !file_name) return -1;
	sbuf key = { 0 };
	sbuf_adds(&key, file_name);
	sbuf_addc(&key, '\n');
	sbuf_adds(&key, debuglink_file);
	sbuf_printf(&key, "\n%lx", (unsigned long)debuglink_crc);
	sbuf_addc(&key, 0);
	struct dbglink *l = NULL;
	for (uint32_t i = 0; i < u->nlinks && !l; i++)
		if (!strcmp(u->links[i].key, key.p)) l = &u->links[i];
	int fd = -1;
	if (l) {
		sbuf_free(&key);
		if (*l->path) fd = dbg_use(u, NULL, l->path, -1, debuginfo_file_name, &judged);
		return fd;
	}
	char *name = NULL;
	fd = elfsym_find_debuglink(u->root, file_name, debuglink_file, debuglink_crc, &name);
	l = VEC_PUSH(u->links, u->nlinks, u->linkcap);
	l->key = key.p;
	l->path = name ? name : xstrdup("");
	if (fd >= 0) fd = dbg_use(u, NULL, l->path, fd, debuginfo_file_name, &judged);
	return fd;
}

/* Every module is reported with its file, opened here: nothing to find
 * (libdwfl's own search would open files by path). */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base, char **file_name,
		    Elf **elfp)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name, (void)elfp;
	return -1;
}

unwind *unwind_new(int arch, const char *root, const char *debug_dir)
{
	static bool inited;
	if (!inited) {
		elf_version(EV_CURRENT);
		inited = true;
	}
	unwind *u = xcalloc(1, sizeof *u);
	u->arch = arch;
	u->root = root && *root ? xstrdup(root) : NULL;
	u->debug_dir = debug_dir && *debug_dir ? xstrdup(debug_dir) : NULL;
	u->debuginfo_path = xstrdup("");
	u->cb.find_elf = find_elf;
	u->cb.find_debuginfo = find_debuginfo;
	u->cb.debuginfo_path = &u->debuginfo_path;
	return u;
}

static void proc_clear(struct uproc *p)
{
	if (p->dwfl) dwfl_end(p->dwfl);
	p->dwfl = NULL;
	p->attached = false;
	p->nmods = p->nstale = 0;
	p->frozen = false;
	for (uint32_t i = 0; i < p->nmaps; i++) free(p->maps[i].path);
	p->nmaps = 0;
	for (uint32_t i = 0; i < p->nhist; i++) free(p->hist[i].path);
	p->nhist = 0;
}

void unwind_free(unwind *u)
{
	if (!u) return;
	for (int i = 0; i < UNWIND_MAX_PROCS; i++) {
		proc_clear(&u->procs[i]);
		free(u->procs[i].maps);
		free(u->procs[i].mods);
		free(u->procs[i].hist);
	}
	for (uint32_t i = 0; i < u->ndbg; i++) {
		free(u->dbg[i].path);
		if (u->dbg[i].fd >= 0) close(u->dbg[i].fd);
	}
	free(u->dbg);
	for (uint32_t i = 0; i < u->nlinks; i++) {
		free(u->links[i].key);
		free(u->links[i].path);
	}
	free(u->links);
	free(u->debug_dir);
	free(u->root);
	free(u->debuginfo_path);
	free(u);
}

/* ---- the process's mappings and modules ------------------------------------ */

static int umap_cmp(const void *a, const void *b)
{
	const struct umap *x = a, *y = b;
	if (x->start != y->start) return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* Whether path names no file to read (an anonymous or special mapping:
 * "//anon", "[heap]", "[vdso]"...). */
static bool no_file(const char *path)
{
	return !path || !*path || path[0] == '[' || (path[0] == '/' && path[1] == '/');
}

/* The reported mapping of the session's history the same as m (start, end,
 * file offset and file), or NULL. */
static const struct umap *hist_find(const struct uproc *p, const struct umap *m)
{
	uint32_t lo = 0, hi = p->nhist;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (p->hist[mid].start < m->start) lo = mid + 1;
		else hi = mid;
	}
	for (; lo < p->nhist && p->hist[lo].start == m->start; lo++) {
		const struct umap *h = &p->hist[lo];
		if (h->end == m->end && h->pgoff == m->pgoff && !strcmp(h->path, m->path)) return h;
	}
	return NULL;
}

/* Notes reported mapping m in the history (once). */
static void hist_add(struct uproc *p, const struct umap *m)
{
	if (hist_find(p, m)) return;
	uint32_t at = p->nhist;
	while (at > 0 && p->hist[at - 1].start > m->start) at--;
	VEC_PUSH(p->hist, p->nhist, p->histcap);
	memmove(p->hist + at + 1, p->hist + at, (p->nhist - 1 - at) * sizeof *p->hist);
	p->hist[at] = *m;
	p->hist[at].path = xstrdup(m->path);
}

/* The session kept across a change of the process's mappings (p->maps now
 * the new ones, all UM_NEW or UM_FAILED), as dlopen and dlclose change
 * them: each mapping the same as one reported before is its module's
 * again; a module none of whose mappings is left is stale (libdwfl cannot
 * drop one module): report() takes its addresses for no module's, and a
 * frame there makes a new session (unwind_stack()), in which libdwfl finds
 * no module there, as in a process without the mapping.  False, and the
 * session is to be rebuilt, when a file's mapping that is not one of
 * before lies in a module's addresses (another file mapped where a gone
 * one was), or libdwfl refused a report (p->frozen: a new session may
 * take the files it could not). */
static bool carry_over(struct uproc *p)
{
	if (p->frozen) return false;
	for (uint32_t j = 0; j < p->nmods; j++) p->mods[j].stale = true;
	for (uint32_t i = 0; i < p->nmaps; i++) {
		struct umap *m = &p->maps[i];
		if (m->state != UM_NEW) continue;
		const struct umap *h = hist_find(p, m);
		if (h) {
			m->state = UM_REPORTED;
			m->bias = h->bias;
			m->mod = h->mod;
			p->mods[h->mod].stale = false;
			continue;
		}
		if (no_file(m->path)) continue;
		for (uint32_t j = 0; j < p->nmods; j++)
			if (m->start < p->mods[j].hi && p->mods[j].lo < m->end) return false;
	}
	p->nstale = 0;
	for (uint32_t j = 0; j < p->nmods; j++) p->nstale += p->mods[j].stale;
	return true;
}

/* A new session for p, with its mappings as they are. */
static void fresh_session(unwind *u, struct uproc *p)
{
	struct umap *maps = p->maps;
	uint32_t n = p->nmaps, cap = p->mapcap;
	p->maps = NULL;
	p->nmaps = p->mapcap = 0;
	proc_clear(p);
	p->maps = maps, p->nmaps = n, p->mapcap = cap;
	for (uint32_t i = 0; i < n; i++) maps[i].state = maps[i].path ? UM_NEW : UM_FAILED;
	p->dwfl = dwfl_begin(&u->cb);
}

/* The session of process pid, its mappings those of s (kept when
 * carry_over() can, else a new session); the least recently used one
 * makes room. */
static struct uproc *get_proc(unwind *u, const unwind_sample *s)
{
	struct uproc *p = NULL, *lru = NULL;
	for (int i = 0; i < UNWIND_MAX_PROCS; i++) {
		struct uproc *q = &u->procs[i];
		if (q->used && q->pid == s->pid) {
			p = q;
			break;
		}
		if (!lru || !q->used || (lru->used && q->last_use < lru->last_use)) lru = q;
	}
	if (p && p->version == s->maps_version) {
		p->last_use = ++u->tick;
		return p;
	}
	bool keep = p && p->dwfl;
	if (!p) p = lru;
	if (keep) {
		for (uint32_t i = 0; i < p->nmaps; i++) free(p->maps[i].path);
		p->nmaps = 0;
	} else {
		proc_clear(p);
	}
	p->used = true;
	p->pid = s->pid;
	p->version = s->maps_version;
	p->last_use = ++u->tick;
	for (uint32_t i = 0; i < s->nmaps; i++) {
		const unwind_map *m = &s->maps[i];
		if (m->end <= m->start) continue;
		struct umap *x = VEC_PUSH(p->maps, p->nmaps, p->mapcap);
		x->start = m->start;
		x->end = m->end;
		x->pgoff = m->pgoff;
		x->path = m->path && *m->path ? xstrdup(m->path) : NULL;
		x->state = x->path ? UM_NEW : UM_FAILED;
	}
	xqsort(p->maps, p->nmaps, sizeof *p->maps, umap_cmp);
	if (keep && !carry_over(p)) fresh_session(u, p);
	else if (!keep) p->dwfl = dwfl_begin(&u->cb);
	return p;
}

/* Whether addr is in a stale module of p's session (see carry_over()). */
static bool in_stale(const struct uproc *p, uint64_t addr)
{
	if (!p->nstale) return false;
	for (uint32_t j = 0; j < p->nmods; j++)
		if (p->mods[j].stale && addr >= p->mods[j].lo && addr < p->mods[j].hi) return true;
	return false;
}

bool unwind_need_maps(const unwind *u, int64_t pid, uint64_t maps_version)
{
	for (int i = 0; i < UNWIND_MAX_PROCS; i++)
		if (u->procs[i].used && u->procs[i].pid == pid) return u->procs[i].version != maps_version;
	return true;
}

/* The mapping holding addr (the last one starting at or below it), or NULL. */
static struct umap *find_map(struct uproc *p, uint64_t addr)
{
	uint32_t lo = 0, hi = p->nmaps;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (p->maps[mid].start <= addr) lo = mid + 1;
		else hi = mid;
	}
	if (lo == 0 || addr >= p->maps[lo - 1].end) return NULL;
	return &p->maps[lo - 1];
}

/* The load bias of mapping m of file elf (process address = file virtual
 * address + bias): from the loadable segment holding file offset pgoff,
 * an executable one first.  False when no segment holds it. */
static bool map_bias(Elf *elf, const struct umap *m, uint64_t *bias)
{
	size_t nph;
	if (elf_getphdrnum(elf, &nph) != 0) return false;
	bool found = false;
	for (int pass = 0; pass < 2 && !found; pass++)
		for (size_t k = 0; k < nph; k++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(elf, (int)k, &ph) || ph.p_type != PT_LOAD) continue;
			if (pass == 0 && !(ph.p_flags & PF_X)) continue;
			/* the segment's pages: from its offset rounded down to
			 * the page the mapping starts at */
			uint64_t pg = ph.p_offset & ~(uint64_t)0xfff;
			if (m->pgoff < pg || m->pgoff >= ph.p_offset + (ph.p_filesz ? ph.p_filesz : 1)) continue;
			/* the address of file offset pgoff is start */
			*bias = m->start - (ph.p_vaddr - (ph.p_offset - m->pgoff));
			found = true;
			break;
		}
	return found;
}

/* The addresses a module of elf at bias covers, as libdwfl counts them:
 * from the first loadable segment's start (aligned down) to the end of
 * the last one.  False when it has none. */
static bool load_range(Elf *elf, uint64_t bias, struct urange *r)
{
	size_t nph;
	if (elf_getphdrnum(elf, &nph) != 0) return false;
	bool any = false;
	for (size_t k = 0; k < nph; k++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)k, &ph) || ph.p_type != PT_LOAD) continue;
		uint64_t lo = ph.p_vaddr & -(ph.p_align ? ph.p_align : 1), hi = ph.p_vaddr + ph.p_memsz;
		if (!any || lo < r->lo) r->lo = lo;
		if (!any || hi > r->hi) r->hi = hi;
		any = true;
	}
	r->lo += bias;
	r->hi += bias;
	return any;
}

/* Reports the module of the mapping holding addr, the first time; whether
 * addr is in a reported module. */
static bool report(unwind *u, struct uproc *p, uint64_t addr)
{
	if (!p->dwfl) return false;
	if (dwfl_addrmodule(p->dwfl, addr)) return !in_stale(p, addr);
	if (p->frozen) return false;
	struct umap *m = find_map(p, addr);
	if (!m || m->state != UM_NEW) return false;
	m->state = UM_FAILED;
	/* a regular file only (the caller resolved the path under its
	 * root: rootpath.h) */
	int why, fd = rp_open_regular(m->path, &why);
	if (fd < 0) return false;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	uint64_t bias = 0;
	bool ok = elf && elf_kind(elf) == ELF_K_ELF && gelf_getehdr(elf, &eh) &&
		  (eh.e_type == ET_EXEC || eh.e_type == ET_DYN) && map_bias(elf, m, &bias);
	/* libdwfl refuses a module whose addresses overlap another's (a
	 * program, whose addresses are its own, mapped a second time
	 * elsewhere, as node does with its text); so is it here, before
	 * libdwfl is asked */
	struct urange r;
	ok = ok && load_range(elf, eh.e_type == ET_EXEC ? 0 : bias, &r);
	for (uint32_t i = 0; ok && i < p->nmods; i++)
		if (r.lo < p->mods[i].hi && p->mods[i].lo < r.hi) ok = false;
	if (elf) elf_end(elf);
	/* a mapping of a file already reported at the same bias, outside the
	 * module's addresses: reported again (with another descriptor),
	 * libdwfl would take it for an overlap and free the first module,
	 * which the session may use (its architecture's backend) */
	for (uint32_t i = 0; ok && i < p->nmaps; i++)
		if (p->maps[i].state == UM_REPORTED && p->maps[i].bias == bias && !strcmp(p->maps[i].path, m->path))
			ok = false;
	if (!ok) {
		close(fd);
		return false;
	}
	/* the fd is the module's from here on */
	dwfl_report_begin_add(p->dwfl);
	Dwfl_Module *mod = dwfl_report_elf(p->dwfl, m->path, m->path, fd, bias, true);
	if (!mod) {
		/* not an ELF file libdwfl reads, or an overlap seen otherwise
		 * than above.  On an overlap libdwfl marks the module it
		 * matched for removal, and dwfl_report_end would free it,
		 * though the session uses it (its unwinding tables, and the
		 * architecture backend dwfl_attach_state took from it): so no
		 * dwfl_report_end, and no more reports this session */
		close(fd);
		p->frozen = true;
		return false;
	}
	dwfl_report_end(p->dwfl, NULL, NULL);
	r.stale = false;
	uint32_t mi = p->nmods;
	*VEC_PUSH(p->mods, p->nmods, p->modcap) = r;
	void **ud;
	dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	if (ud) *ud = u;
	/* the other mappings of the file at the same bias are this module */
	for (uint32_t i = 0; i < p->nmaps; i++)
		if (p->maps[i].state == UM_NEW && !strcmp(p->maps[i].path, m->path) &&
		    dwfl_addrmodule(p->dwfl, p->maps[i].start) == mod) {
			p->maps[i].state = UM_REPORTED, p->maps[i].bias = bias, p->maps[i].mod = mi;
			hist_add(p, &p->maps[i]);
		}
	m->state = UM_REPORTED;
	m->bias = bias;
	m->mod = mi;
	hist_add(p, m);
	return dwfl_addrmodule(p->dwfl, addr) != NULL;
}

/* ---- libdwfl's callbacks ------------------------------------------------------ */

/* The one thread of a session, id 1 (the sample's own thread: each
 * dwfl_getthread_frames starts again from set_initial_registers). */
static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	if (*thread_argp) return 0;
	*thread_argp = arg;
	return 1;
}

/* A word of the process's memory: from the saved stack, else from the
 * file mapped there, else 0, as perf reads it.  Like perf script as Debian
 * builds it (unwinding with libunwind, whose memory reader takes a word
 * only when it ends before the end of the copy), the last word of the
 * copy is not read: a stack cut there ends one frame earlier, the same as
 * perf script's. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	unwind *u = arg;
	if (addr < u->sp)
		for (uint32_t i = 0; i < u->npopped; i++)
			if (u->popped_addr[i] == addr) {
				*result = u->popped_val[i];
				return true;
			}
	if (addr >= u->sp && addr - u->sp < u->stack_size && u->stack_size - (addr - u->sp) > 8) {
		uint64_t v;
		memcpy(&v, u->stack + (addr - u->sp), 8);
		*result = v;
		return true;
	}
	struct umap *m = find_map(u->cur, addr);
	if (m && report(u, u->cur, addr)) {
		Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
		GElf_Addr bias;
		Elf *elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
		size_t size;
		const char *raw = elf ? elf_rawfile(elf, &size) : NULL;
		uint64_t off = addr - m->start + m->pgoff;
		if (raw && off < size && size - off >= 8) {
			uint64_t v;
			memcpy(&v, raw + off, 8);
			*result = v;
			return true;
		}
	}
	/* (the stack ends here: noted for unwind_stack's why) */
	u->read_failed = true;
	*result = 0;
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	unwind *u = arg;
	const Dwarf_Word *reg = u->restart ? u->freg : u->dreg;
	const bool *set = u->restart ? u->freg_set : u->dreg_set;
	for (int r = 0; r < MAX_DREGS; r++)
		if (set[r] && !dwfl_thread_state_registers(thread, r, 1, &reg[r])) return false;
	/* aarch64: the pc is no DWARF register of its own */
	if (u->arch == UNWIND_AARCH64) dwfl_thread_state_register_pc(thread, u->pc);
	return true;
}

static const Dwfl_Thread_Callbacks thread_cb = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* ---- registers ------------------------------------------------------------------- */

/* perf register number -> value, from the mask and the values of its bits. */
static bool perf_reg(const unwind_sample *s, int r, uint64_t *v)
{
	if (r > 63 || !(s->regs_mask >> r & 1)) return false;
	uint64_t below = r ? s->regs_mask & ((UINT64_C(1) << r) - 1) : 0;
	int k = __builtin_popcountll(below);
	if ((uint32_t)k >= s->nregs) return false;
	memcpy(v, s->regs + 8 * k, 8);
	return true;
}

/* The DWARF registers of the sample, its pc and stack pointer. */
static bool load_regs(unwind *u, const unwind_sample *s)
{
	memset(u->dreg_set, 0, sizeof u->dreg_set);
	int pc_reg, sp_reg;
	if (u->arch == UNWIND_X86_64) {
		/* DWARF rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip (0..16),
		 * perf AX=0 BX CX DX SI DI BP SP IP=8 ... R8=16..R15=23 */
		static const int perf_of_dwarf[17] = { 0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8 };
		for (int d = 0; d < 17; d++) {
			uint64_t v;
			if (perf_reg(s, perf_of_dwarf[d], &v)) {
				u->dreg[d] = v;
				u->dreg_set[d] = true;
			}
		}
		pc_reg = 8;
		sp_reg = 7;
	} else if (u->arch == UNWIND_AARCH64) {
		/* x0..x30 and sp (DWARF 0..31) are perf's 0..31; pc is 32 */
		for (int d = 0; d < 32; d++) {
			uint64_t v;
			if (perf_reg(s, d, &v)) {
				u->dreg[d] = v;
				u->dreg_set[d] = true;
			}
		}
		pc_reg = 32;
		sp_reg = 31;
	} else {
		return false;
	}
	return perf_reg(s, pc_reg, &u->pc) && perf_reg(s, sp_reg, &u->sp);
}

/* ---- unwinding ------------------------------------------------------------------- */

/* Whether the CFI of a reported module covers pc. */
static bool has_cfi(Dwfl *dwfl, uint64_t pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
	if (!mod) return false;
	for (int k = 0; k < 2; k++) {
		Dwarf_Addr bias;
		Dwarf_CFI *cfi = k == 0 ? dwfl_module_eh_cfi(mod, &bias) : dwfl_module_dwarf_cfi(mod, &bias);
		Dwarf_Frame *fr;
		if (cfi && dwarf_cfi_addrframe(cfi, pc - bias, &fr) == 0) {
			free(fr);
			return true;
		}
	}
	return false;
}

/* The save slots below the stack pointer of the sampled frame: in an
 * epilogue past its pops, the CFI still says where each register was
 * saved, below the stack pointer and so outside the saved stack; the
 * register holds that value again, so it is read from the register (not
 * as 0, which made the caller's frame pointer 0 and the stack garbage). */
static void note_popped(unwind *u, Dwfl *dwfl)
{
	u->npopped = 0;
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, u->pc);
	if (!mod) return;
	for (int k = 0; k < 2; k++) {
		Dwarf_Addr bias;
		Dwarf_CFI *cfi = k == 0 ? dwfl_module_eh_cfi(mod, &bias) : dwfl_module_dwarf_cfi(mod, &bias);
		Dwarf_Frame *fr;
		if (!cfi || dwarf_cfi_addrframe(cfi, u->pc - bias, &fr) != 0) continue;
		Dwarf_Op *ops;
		size_t nops;
		/* the CFA: a register plus an offset (libdw gives DW_OP_bregx) */
		uint64_t reg = MAX_DREGS, off = 0;
		if (dwarf_frame_cfa(fr, &ops, &nops) == 0 && nops == 1) {
			if (ops[0].atom == DW_OP_bregx) {
				reg = ops[0].number;
				off = ops[0].number2;
			} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
				reg = ops[0].atom - DW_OP_breg0;
				off = ops[0].number;
			}
		}
		if (reg < MAX_DREGS && u->dreg_set[reg]) {
			uint64_t cfa = u->dreg[reg] + off;
			for (int r = 0; r < MAX_DREGS; r++) {
				Dwarf_Op mem[3];
				if (!u->dreg_set[r] || dwarf_frame_register(fr, r, mem, &ops, &nops) != 0 || nops < 1 ||
				    nops > 2 || ops[0].atom != DW_OP_call_frame_cfa)
					continue;
				if (nops == 2 && ops[1].atom != DW_OP_plus_uconst) continue;
				uint64_t addr = cfa + (nops == 2 ? ops[1].number : 0);
				if (addr >= u->sp || u->sp - addr > 256) continue;
				u->popped_addr[u->npopped] = addr;
				u->popped_val[u->npopped++] = u->dreg[r];
			}
		}
		free(fr);
		return;
	}
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	unwind *u = arg;
	Dwarf_Addr pc;
	bool activation;
	if (!dwfl_frame_pc(state, &pc, NULL)) return DWARF_CB_ABORT;
	/* its module, for the CFI of the step to its caller, which libdwfl
	 * takes now (to tell whether the caller is a signal frame) */
	if (!report(u, u->cur, pc)) u->why = UW_NO_MODULE;
	else u->why = UW_OK;
	/* in a module whose mappings are gone: no step with its CFI (libdwfl
	 * would take it), the unwinding done again in a new session */
	bool stale = in_stale(u->cur, pc);
	u->read_failed = false;
	if (!dwfl_frame_pc(state, &pc, &activation)) return DWARF_CB_ABORT;
	/* a return address: the call is the byte before it */
	if (!activation) pc--;
	if (u->arch == UNWIND_X86_64) {
		/* the frame's registers, rbx carried when libdwfl lost it */
		Dwarf_Word rbx = u->freg[3];
		bool had_rbx = u->n > 0 && u->freg_set[3];
		for (int r = 0; r < 17; r++) u->freg_set[r] = dwfl_frame_reg(state, (unsigned)r, &u->freg[r]) == 0;
		u->rbx_carried = !u->freg_set[3] && had_rbx;
		if (u->rbx_carried) {
			u->freg[3] = rbx;
			u->freg_set[3] = true;
		}
		u->freg[16] = pc;
		u->freg_set[16] = true;
	}
	if (u->skip_first) {
		u->skip_first = false;
		return DWARF_CB_OK;
	}
	u->ips[u->n++] = pc;
	u->last_pc = pc;
	if (stale) {
		u->stale_stop = true;
		return DWARF_CB_ABORT;
	}
	return u->n < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* The stack of sample s (its registers loaded) in session p; u->stale_stop
 * when it stopped at a frame in a stale module. */
static uint32_t walk(unwind *u, struct uproc *p, const unwind_sample *s, uint64_t *ips, uint32_t max, int *why)
{
	*why = UW_OK;
	u->cur = p;
	u->stack = s->stack;
	u->stack_size = s->stack ? s->stack_size : 0;
	u->ips = ips;
	u->n = 0;
	u->max = max;
	u->why = UW_OK;
	u->read_failed = false;
	u->npopped = 0;
	u->stale_stop = false;
	bool have_mod = report(u, p, u->pc);
	if (p->dwfl && !p->attached) {
		/* libdwfl takes the architecture from a module's ELF: any one
		 * will do when the pc is in none */
		for (uint32_t i = 0; !have_mod && i < p->nmaps; i++) have_mod = report(u, p, p->maps[i].start);
		if (have_mod)
			p->attached = dwfl_attach_state(p->dwfl, NULL, (pid_t)(p->pid > 0 ? p->pid : 1), &thread_cb, u);
	}
	if (!p->attached) {
		/* no module at all: the pc alone */
		ips[0] = u->pc;
		*why = UW_NO_MODULE;
		return 1;
	}
	note_popped(u, p->dwfl);
	u->restart = u->skip_first = u->rbx_carried = false;
	memset(u->freg_set, 0, sizeof u->freg_set);
	int r = dwfl_getthread_frames(p->dwfl, 1, frame_cb, u);
	/* stopped for want of the rbx libdwfl lost: again from the last
	 * frame, as an initial frame at the address kept (the return address
	 * less one, where libdwfl looked up its CFI) */
	for (int again = 0; again < 8 && u->rbx_carried && u->n < max && u->freg_set[7]; again++) {
		uint32_t n = u->n;
		u->restart = u->skip_first = true;
		u->rbx_carried = false;
		u->read_failed = false;
		r = dwfl_getthread_frames(p->dwfl, 1, frame_cb, u);
		u->restart = u->skip_first = false;
		if (u->n == n) break;
	}
	if (u->n == 0) {
		ips[0] = u->pc;
		u->n = 1;
	}
	if ((r == -1 || u->read_failed) && u->n < max) *why = u->why != UW_OK ? u->why : UW_STOPPED;
	/* A return address past the saved stack reads as 0, where libdwfl
	 * ends the stack; perf script (Debian's unwinds with libunwind) shows
	 * one more frame there, at 0 less one, when the CFI said where to read
	 * it (not when libdwfl guessed from the frame pointer): so does this. */
	if (u->read_failed && u->n < max && has_cfi(p->dwfl, u->last_pc)) ips[u->n++] = UINT64_MAX;
	return u->n;
}

uint32_t unwind_stack(unwind *u, const unwind_sample *s, uint64_t *ips, uint32_t max, int *why)
{
	int dummy;
	if (!why) why = &dummy;
	*why = UW_OK;
	if (max == 0) return 0;
	if (s->abi == UNWIND_ABI_NONE || !s->regs) {
		*why = UW_NO_REGS;
		return 0;
	}
	bool regs_ok = load_regs(u, s);
	if (s->abi != UNWIND_ABI_64 || !regs_ok) {
		/* a 32-bit process (its registers are not unwound here): the
		 * sampled pc alone */
		*why = UW_BAD_REGS;
		if (s->abi == UNWIND_ABI_32 && regs_ok) {
			ips[0] = u->pc;
			return 1;
		}
		return 0;
	}
	struct uproc *p = get_proc(u, s);
	/* a frame in a stale module: the session afresh, where libdwfl finds
	 * no module there (and tries the frame pointer), and again */
	if (in_stale(p, u->pc)) fresh_session(u, p);
	uint32_t n = walk(u, p, s, ips, max, why);
	if (u->stale_stop) {
		fresh_session(u, p);
		n = walk(u, p, s, ips, max, why);
	}
	return n;
}

/* ---- LBR call stacks --------------------------------------------------------------- */

static uint64_t u64_at(const uint8_t *p, uint64_t i)
{
	uint64_t v;
	memcpy(&v, p + 8 * i, 8);
	return v;
}

uint32_t unwind_lbr(const uint8_t *chain, uint64_t nchain, const uint8_t *branch, uint64_t nbranch, uint64_t *out,
		    uint32_t max)
{
	uint64_t user = nchain, look = nchain < UNWIND_MAX_DEPTH ? nchain : UNWIND_MAX_DEPTH;
	for (uint64_t i = 0; i < look; i++)
		if (u64_at(chain, i) == UNWIND_CONTEXT_USER) {
			user = i;
			break;
		}
	uint32_t n = 0;
	if (user == nchain || nbranch == 0) {
		for (uint64_t i = 0; i < nchain && n < max; i++) out[n++] = u64_at(chain, i);
		return n;
	}
	for (uint64_t i = 0; i <= user && n < max; i++) out[n++] = u64_at(chain, i);
	/* entry 0's target, then each entry's source */
	if (n < max) out[n++] = u64_at(branch, 1);
	for (uint64_t i = 0; i < nbranch && n < max; i++) out[n++] = u64_at(branch, 3 * i);
	return n;
}
