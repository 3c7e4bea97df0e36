/* elfsym.c - addresses to names in ELF files with libdwfl/libdw (see elfsym.h). */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "elfsym.h"
#include "idmap.h"
#include "rootpath.h"
#include "strmap.h"

static const char *const why_text[ES_NWHY] = {
	"resolved", "file missing", "not an ELF file", "stripped (no symbols)",
	"address outside any symbol", "run-time address and no mapping (give --maps)",
	"a FIFO, not a regular file", "a device, not a regular file", "a socket, not a regular file",
	"a directory, not a regular file", "too many symbolic links"
};

/* elfsym's reason for rootpath's */
static int why_of(int rp)
{
	switch (rp) {
	case RP_FIFO: return ES_FIFO;
	case RP_DEVICE: return ES_DEVICE;
	case RP_SOCKET: return ES_SOCKET;
	case RP_DIRECTORY: return ES_DIRECTORY;
	case RP_LOOP: return ES_LOOP;
	default: return ES_MISSING;
	}
}

const char *elfsym_why_text(int why)
{
	return why >= 0 && why < ES_NWHY ? why_text[why] : "?";
}

struct seg { uint64_t off, filesz, vaddr, memsz; };
struct dcu;
enum { CU_COUNTING, CU_CACHED, CU_UNCACHED };

struct efile {
	int status;           /* ES_OK, ES_MISSING or ES_NOT_ELF */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	bool dyn;             /* ET_DYN: position independent */
	bool symtab;          /* has a .symtab of its own */
	struct seg *segs;     /* PT_LOAD */
	uint32_t nsegs, segcap;
	uint64_t lo, hi;      /* the address range of the loadable segments */
	GElf_Addr bias;       /* module address = file address + bias */
	char build_id[80];
	/* the function symbols sorted by address, made once from libdwfl's
	 * symbol table (dwfl_module_addrinfo searches it linearly) */
	bool sorted;
	struct fsym { uint64_t start, size, secend; const char *name, *first; uint8_t rank; } *syms;
	uint32_t nsyms;
	/* the compilation units looked up in, by CU DIE offset (see "the
	 * scopes of a compilation unit" below) */
	idmap cumap;
	struct dcu *cus;
	uint32_t ncus, cucap;
	int64_t last_cu;      /* the unit of the last look-up (-1: none), cus[last_cui] */
	uint32_t last_cui;
	/* the owner's: offered to its aids (see "aids" below), as pub[pubi] */
	bool published, offered;
	uint32_t pubi;
	/* an aid's copy: the owner's tables borrowed (segs, syms), no
	 * module; its own Dwarf on the owner's debug file, whose units it
	 * finds by address as dwfl_module_addrdie does (runs) */
	bool borrowed;
	Dwarf *dw;
	Dwarf_Addr dbias;     /* module address = DWARF address + dbias */
	bool runs_read;
	struct arun { Dwarf_Addr start; Dwarf_Off cu; } *runs;
	uint32_t nruns;
	Dwarf_Addr runs_end;  /* the end of the last address range */
	Dwarf_Die cudie;
};

struct elfsym {
	char *root;
	char *debug_dir;      /* --debug-dir, NULL: the root's /usr/lib/debug/.build-id */
	char *debuginfo_path; /* for libdwfl (unused: find_debuginfo is ours) */
	Dwfl_Callbacks cb;
	strmap files;         /* path -> index into f */
	const char *last;     /* the last path asked about (a key of files) */
	uint32_t last_i;
	struct efile *f;
	uint32_t fcap;
	/* the current result */
	const char **func, **src;
	uint32_t cap, cap2;
	sbuf text;            /* the result's strings, NUL-separated */
	uint32_t *offs;       /* offsets into text: 2 per frame (func, srcline) */
	uint32_t ocap;
	elfsym_fn *fn;        /* per frame: its function's DIE (die_fn) */
	uint32_t fncap;
	elfsym_fn phys_fn;    /* the physical function's */
	Dwarf_Addr symstart;  /* the DWARF address of the symbol holding the address (UINT64_MAX: none) */
	/* the files to open ahead (elfsym_ahead), in order; state 0 nobody
	 * took it, 1 being opened, 2 open, 3 moved into f (under amu) */
	struct ahead { char *path; int state; struct efile f; } *ah;
	uint32_t nah, ahcap, ahnext;
	strmap ahmap;
	bool ahstop;
	pthread_mutex_t amu;
	pthread_cond_t acv;
	/* aids (elfsym_aid_new): an aid's owner; the owner's files offered
	 * to them (pub: path -> pubv), the units whose scopes it has cached
	 * (cached: pubi << 40 | unit offset), and the aids' answers (ans: path and
	 * address -> an offset into ablob), under hmu */
	elfsym *owner;
	bool aided;
	pthread_mutex_t hmu;
	strmap pub;
	struct pub { Elf *elf; struct efile f; } *pubv;
	uint32_t pubcap;
	idmap cached;
	strmap ans;
	size_t *ansoff;
	uint32_t anscap;
	sbuf ablob;
	sbuf key, enc;        /* scratch: an answer's key, an aid's answer */
	elfsym_ask *later;    /* an aid's asks in files the owner has not read yet */
	uint32_t group;       /* an aid's: the asks of the unit it answers */
	uint32_t nlater, latercap;
};

/* The CRC-32 of a whole file (zlib's is the one .gnu_debuglink uses). */
static bool file_crc(int fd, uint32_t *crc)
{
	unsigned char buf[65536];
	uLong c = crc32(0, Z_NULL, 0);
	ssize_t k;
	while ((k = read(fd, buf, sizeof buf)) > 0) c = crc32(c, buf, (uInt)k);
	*crc = (uint32_t)c;
	return k == 0 && lseek(fd, 0, SEEK_SET) == 0;
}

/* dir/name under root, opened if it is a regular file (and, crc nonzero,
 * if its CRC-32 is crc): the fd, its host path in *name_out. */
static int try_debug(const char *root, const char *dir, size_t dn, const char *name, GElf_Word crc,
		     char **name_out)
{
	sbuf p = { 0 }, full = { 0 };
	sbuf_add(&p, dir, dn);
	if (dn && dir[dn - 1] != '/') sbuf_addc(&p, '/');
	sbuf_adds(&p, name);
	int why, fd = rp_open(root, p.p, &full, &why);
	uint32_t c;
	if (fd >= 0 && crc && (!file_crc(fd, &c) || c != crc)) {
		close(fd);
		fd = -1;
	}
	if (fd >= 0) *name_out = xstrdup(full.p);
	sbuf_free(&p);
	sbuf_free(&full);
	return fd;
}

/* (elfsym.h) */
int elfsym_find_debuglink(const char *root, const char *file_name, const char *debuglink_file, uint32_t debuglink_crc,
			  char **name_out)
{
	if (root && !*root) root = NULL;
	if (!debuglink_file || !*debuglink_file || !file_name) return -1;
	bool alt = debuglink_crc == 0; /* dwz's alternate file */
	int fd = -1;
	/* the file's directory as seen from the root */
	size_t rn = root ? strlen(root) : 0;
	while (rn > 0 && root[rn - 1] == '/') rn--;
	const char *in_root = file_name;
	if (root && strncmp(file_name, root, rn) == 0 && file_name[rn] == '/') in_root += rn;
	const char *slash = strrchr(in_root, '/');
	size_t dn = slash ? (size_t)(slash - in_root) : 0;
	if (alt) { /* a path */
		if (debuglink_file[0] == '/') return try_debug(root, "", 0, debuglink_file, 0, name_out);
		return slash ? try_debug(root, in_root, dn, debuglink_file, 0, name_out) : -1;
	}
	if (strchr(debuglink_file, '/')) return -1; /* a debug link is a file name */
	sbuf d = { 0 };
	if (slash) sbuf_add(&d, in_root, dn);
	sbuf_adds(&d, "/.debug");
	if (slash) fd = try_debug(root, in_root, dn, debuglink_file, debuglink_crc, name_out);
	if (fd < 0 && slash) fd = try_debug(root, d.p, d.n, debuglink_file, debuglink_crc, name_out);
	if (fd < 0) {
		d.n = 0;
		sbuf_adds(&d, "/usr/lib/debug");
		if (slash && in_root[0] == '/') sbuf_add(&d, in_root, dn);
		fd = try_debug(root, d.p, d.n, debuglink_file, debuglink_crc, name_out);
	}
	sbuf_free(&d);
	return fd;
}

/* The separate debug file, found by our own search (libdwfl's standard one
 * would open what a debug link names anywhere, FIFOs included): by build
 * id under the debug directory (DIR/xx/yyyy.debug, DIR a root of its own
 * when given, else the root's /usr/lib/debug/.build-id), else by the
 * .gnu_debuglink name (a file name, no directory) next to the file, in its
 * .debug/ and under the root's /usr/lib/debug, its CRC checked; also the
 * .gnu_debugaltlink file of dwz (crc 0: a path, from the debug file's
 * directory).  Every path under the root, regular files only. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name)
{
	(void)modname;
	(void)base;
	elfsym *self = userdata && *userdata ? *userdata : NULL;
	if (!self) return -1;
	const char *root = self->root;
	const unsigned char *bits;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(mod, &bits, &vaddr);
	int fd = -1;
	bool alt = debuglink_file && debuglink_crc == 0; /* dwz's alternate file */
	if (len > 1 && !alt) {
		sbuf p = { 0 };
		sbuf_printf(&p, "%02x/", bits[0]);
		for (int i = 1; i < len; i++) sbuf_printf(&p, "%02x", bits[i]);
		sbuf_adds(&p, ".debug");
		if (self->debug_dir) fd = try_debug(self->debug_dir, "", 0, p.p, 0, debuginfo_file_name);
		else fd = try_debug(root, "/usr/lib/debug/.build-id", 24, p.p, 0, debuginfo_file_name);
		sbuf_free(&p);
		if (fd >= 0) return fd;
	}
	return elfsym_find_debuglink(root, file_name, debuglink_file, debuglink_crc, debuginfo_file_name);
}

/* No module is reported without its file: nothing to find. */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base, char **file_name,
		    Elf **elfp)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name, (void)elfp;
	return -1;
}

elfsym *elfsym_new(const char *root, const char *debug_dir)
{
	static bool inited;
	if (!inited) {
		elf_version(EV_CURRENT);
		inited = true;
	}
	elfsym *e = xcalloc(1, sizeof *e);
	e->root = root && *root ? xstrdup(root) : NULL;
	e->debug_dir = debug_dir && *debug_dir ? xstrdup(debug_dir) : NULL;
	e->debuginfo_path = xstrdup("");
	e->cb.find_elf = find_elf;
	e->cb.find_debuginfo = find_debuginfo;
	e->cb.section_address = dwfl_offline_section_address;
	e->cb.debuginfo_path = &e->debuginfo_path;
	strmap_init(&e->files);
	strmap_init(&e->ahmap);
	pthread_mutex_init(&e->amu, NULL);
	pthread_cond_init(&e->acv, NULL);
	pthread_mutex_init(&e->hmu, NULL);
	strmap_init(&e->pub);
	strmap_init(&e->ans);
	return e;
}

static void cus_free(struct efile *f);
static void publish(elfsym *e, const char *path, struct efile *f);

static void efile_free(struct efile *f)
{
	cus_free(f);
	if (f->borrowed) {
		if (f->dw) dwarf_end(f->dw);
		free(f->runs);
		return;
	}
	if (f->dwfl) dwfl_end(f->dwfl);
	free(f->segs);
	free(f->syms);
}

void elfsym_free(elfsym *e)
{
	if (!e) return;
	for (uint32_t i = 0; i < e->files.count; i++) efile_free(&e->f[i]);
	free(e->f);
	for (uint32_t i = 0; i < e->nah; i++) {
		if (e->ah[i].state == 2) efile_free(&e->ah[i].f);
		free(e->ah[i].path);
	}
	free(e->ah);
	strmap_free(&e->ahmap);
	pthread_mutex_destroy(&e->amu);
	pthread_cond_destroy(&e->acv);
	pthread_mutex_destroy(&e->hmu);
	strmap_free(&e->pub);
	free(e->pubv);
	idmap_free(&e->cached);
	strmap_free(&e->ans);
	free(e->ansoff);
	sbuf_free(&e->ablob);
	sbuf_free(&e->key);
	sbuf_free(&e->enc);
	free(e->later);
	strmap_free(&e->files);
	free(e->func);
	free(e->src);
	free(e->offs);
	free(e->fn);
	sbuf_free(&e->text);
	free(e->root);
	free(e->debug_dir);
	free(e->debuginfo_path);
	free(e);
}

/* Opens path (under the root) the first time; its entry (the last one
 * asked about without a look-up). */
static void file_open(elfsym *e, const char *path, struct efile *f);
static void sort_syms(struct efile *f);
static struct efile *get_file(elfsym *e, const char *path)
{
	if (e->last && strcmp(e->last, path) == 0) return &e->f[e->last_i];
	bool added;
	uint32_t i = strmap_intern(&e->files, path, strlen(path), &added);
	size_t kn;
	e->last = strmap_key(&e->files, i, &kn);
	e->last_i = i;
	if (!added) return &e->f[i];
	grow_array((void **)&e->f, &e->fcap, i + 1, sizeof *e->f);
	struct efile *f = &e->f[i];
	/* a file to open ahead: as a thread opened it, or opened here */
	int64_t a = e->nah ? strmap_find(&e->ahmap, path, strlen(path)) : -1;
	if (a >= 0) {
		struct ahead *h = &e->ah[a];
		pthread_mutex_lock(&e->amu);
		while (h->state == 1) pthread_cond_wait(&e->acv, &e->amu);
		int was = h->state;
		h->state = 3;
		pthread_mutex_unlock(&e->amu);
		if (was == 2) {
			*f = h->f;
			return f;
		}
	}
	file_open(e, path, f);
	return f;
}

void elfsym_ahead(elfsym *e, const char *path)
{
	bool added;
	strmap_intern(&e->ahmap, path, strlen(path), &added);
	if (!added) return;
	struct ahead *h = VEC_PUSH(e->ah, e->nah, e->ahcap);
	memset(h, 0, sizeof *h);
	h->path = xstrdup(path);
}

bool elfsym_prepare(elfsym *e)
{
	pthread_mutex_lock(&e->amu);
	while (e->ahnext < e->nah && e->ah[e->ahnext].state != 0) e->ahnext++;
	if (e->ahstop || e->ahnext == e->nah) {
		pthread_mutex_unlock(&e->amu);
		return false;
	}
	struct ahead *h = &e->ah[e->ahnext++];
	h->state = 1;
	pthread_mutex_unlock(&e->amu);
	/* what the first look-up in it does first: the module, its symbols
	 * sorted, its DWARF read (decompressed) */
	file_open(e, h->path, &h->f);
	if (h->f.status == ES_OK) {
		Dwarf_Addr b;
		dwfl_module_getdwarf(h->f.mod, &b);
		sort_syms(&h->f);
		if (__atomic_load_n(&e->aided, __ATOMIC_ACQUIRE)) publish(e, h->path, &h->f);
	}
	pthread_mutex_lock(&e->amu);
	h->state = 2;
	pthread_cond_broadcast(&e->acv);
	pthread_mutex_unlock(&e->amu);
	return true;
}

void elfsym_ahead_stop(elfsym *e)
{
	pthread_mutex_lock(&e->amu);
	e->ahstop = true;
	pthread_mutex_unlock(&e->amu);
}

/* Opens path (under the root) into *f: reads only e's root and callbacks,
 * so that threads may open files side by side (elfsym_prepare). */
static void file_open(elfsym *e, const char *path, struct efile *f)
{
	memset(f, 0, sizeof *f);
	f->last_cu = -1;
	/* under the root, a regular file (a FIFO would block, a device feed
	 * endless bytes) */
	sbuf full = { 0 };
	int why, fd = rp_open(e->root, path, &full, &why);
	if (fd < 0) {
		f->status = why_of(why);
		sbuf_free(&full);
		return;
	}
	/* the program headers, with libelf */
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	GElf_Ehdr eh;
	size_t nph;
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &nph) != 0 ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)) {
		if (elf) elf_end(elf);
		close(fd);
		f->status = ES_NOT_ELF;
		sbuf_free(&full);
		return;
	}
	f->dyn = eh.e_type == ET_DYN;
	f->lo = UINT64_MAX;
	for (size_t k = 0; k < nph; k++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)k, &ph) || ph.p_type != PT_LOAD) continue;
		struct seg *s = VEC_PUSH(f->segs, f->nsegs, f->segcap);
		s->off = ph.p_offset;
		s->filesz = ph.p_filesz;
		s->vaddr = ph.p_vaddr;
		s->memsz = ph.p_memsz;
		if (ph.p_vaddr < f->lo) f->lo = ph.p_vaddr;
		if (ph.p_vaddr + ph.p_memsz > f->hi) f->hi = ph.p_vaddr + ph.p_memsz;
	}
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) f->symtab = true;
	}
	elf_end(elf);
	/* the module, with libdwfl, in its own session (files overlap), from
	 * the file opened (libdwfl takes the descriptor) */
	f->dwfl = dwfl_begin(&e->cb);
	if (f->dwfl) {
		dwfl_report_begin(f->dwfl);
		f->mod = dwfl_report_offline(f->dwfl, path, full.p, fd);
		dwfl_report_end(f->dwfl, NULL, NULL);
	} else {
		close(fd);
	}
	if (!f->mod) {
		f->status = ES_NOT_ELF;
		sbuf_free(&full);
		return;
	}
	/* our elfsym for find_debuginfo, through the module's user data */
	void **ud;
	dwfl_module_info(f->mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	if (ud) *ud = e;
	GElf_Addr bias;
	if (dwfl_module_getelf(f->mod, &bias)) f->bias = bias;
	const unsigned char *bits;
	GElf_Addr idv;
	int len = dwfl_module_build_id(f->mod, &bits, &idv);
	for (int k = 0; k < len && 2 * k + 2 < (int)sizeof f->build_id; k++)
		snprintf(f->build_id + 2 * k, 3, "%02x", bits[k]);
	sbuf_free(&full);
	return;
}

bool elfsym_readable(elfsym *e, const char *path)
{
	return get_file(e, path)->status == ES_OK;
}

/* ---- the result ------------------------------------------------------------ */

static void res_reset(elfsym *e)
{
	e->text.n = 0;
}

static uint32_t res_str(elfsym *e, const char *s)
{
	uint32_t off = (uint32_t)e->text.n;
	sbuf_adds(&e->text, s ? s : "");
	sbuf_addc(&e->text, 0);
	return off;
}

/* Appends frame k (func, srcline or NULL). */
static void res_add(elfsym *e, uint32_t k, const char *func, const char *src)
{
	grow_array((void **)&e->offs, &e->ocap, 2 * k + 2, sizeof *e->offs);
	e->offs[2 * k] = res_str(e, func);
	e->offs[2 * k + 1] = src ? res_str(e, src) : UINT32_MAX;
	grow_array((void **)&e->fn, &e->fncap, k + 1, sizeof *e->fn);
	memset(&e->fn[k], 0, sizeof e->fn[k]);
}

/* The n frames added, into *out. */
static void res_done(elfsym *e, uint32_t n, elfsym_res *out)
{
	grow_array((void **)&e->func, &e->cap, n, sizeof *e->func);
	grow_array((void **)&e->src, &e->cap2, n, sizeof *e->src);
	for (uint32_t k = 0; k < n; k++) {
		e->func[k] = e->text.p + e->offs[2 * k];
		e->src[k] = e->offs[2 * k + 1] == UINT32_MAX ? NULL : e->text.p + e->offs[2 * k + 1];
	}
	out->n = n;
	out->func = e->func;
	out->srcline = e->src;
	out->fn = e->fn;
}

/* A compilation unit looked up in (see "the scopes of a compilation unit"
 * below for the scopes; its line table and file names are kept from the
 * first look-up). */
struct dcu {
	int64_t off;          /* its DIE's offset */
	int state;
	uint32_t lookups;
	struct dnode *nodes;
	uint32_t nnodes, nodecap;
	struct dspan *spans;
	uint32_t nspans, spancap;
	uint32_t root0, nroot; /* the ranges of the unit's children */
	/* its line table: the address of each row, for the binary search */
	bool lines_read;
	Dwarf_Lines *lines;
	size_t nlines;
	Dwarf_Addr *laddr;
	/* each row's answer, read once: its line and file index (in the file
	 * table lfiles), UINT32_MAX as the file when it gives none (a
	 * sequence's end, a row libdw cannot read); lrow NULL: the rows
	 * have several file tables, each look-up asks libdw */
	struct lrow { int line; uint32_t file; } *lrow;
	Dwarf_Files *lfiles;
	/* its file names as addr2line prints them, joined with DW_AT_comp_dir
	 * once each: fname[i] an offset into fnames + 1 (0: not yet) */
	bool files_read;
	Dwarf_Files *files;
	size_t nfiles;
	const char *comp_dir;
	uint32_t *fname;
	sbuf fnames;
};

/* Appends to b the path of file idx of files, a relative one joined with
 * the unit's DW_AT_comp_dir as addr2line prints it ("../lib/x.h" compiled
 * in /src/build: "/src/build/../lib/x.h"), made once per file of the unit
 * (the unit's own file table; another one, if any, each time). */
static bool add_path(sbuf *b, struct dcu *c, Dwarf_Die *cu, Dwarf_Files *files, size_t idx)
{
	if (!c->files_read) {
		c->files_read = true;
		Dwarf_Attribute a;
		c->comp_dir = dwarf_attr(cu, DW_AT_comp_dir, &a) ? dwarf_formstring(&a) : NULL;
		if (dwarf_getsrcfiles(cu, &c->files, &c->nfiles) != 0) c->files = NULL, c->nfiles = 0;
		if (c->nfiles) c->fname = xcalloc(c->nfiles, sizeof *c->fname);
	}
	bool mine = files == c->files && idx < c->nfiles;
	if (mine && c->fname[idx]) {
		const char *p = c->fnames.p + c->fname[idx] - 1;
		sbuf_add(b, p, strlen(p));
		return true;
	}
	const char *file = dwarf_filesrc(files, idx, NULL, NULL);
	if (!file) return false;
	size_t start = b->n;
	const char *dir = file[0] != '/' ? c->comp_dir : NULL;
	if (dir && *dir) {
		size_t dn = strlen(dir);
		sbuf_add(b, dir, dn);
		if (dir[dn - 1] != '/') sbuf_addc(b, '/');
	}
	sbuf_add(b, file, strlen(file));
	if (mine) {
		c->fname[idx] = (uint32_t)c->fnames.n + 1;
		sbuf_add(&c->fnames, b->p + start, b->n - start);
		sbuf_addc(&c->fnames, 0);
	}
	return true;
}

/* "file:line" of file idx of files into tmp (emptied first; nothing when
 * the file has no name). */
static void src_line(sbuf *tmp, struct dcu *c, Dwarf_Die *cu, Dwarf_Files *files, size_t idx, uint64_t line)
{
	tmp->n = 0;
	if (!add_path(tmp, c, cu, files, idx)) return;
	char nb[24];
	sbuf_addc(tmp, ':');
	sbuf_add(tmp, nb, fmt_u64(nb, line));
}

/* The row of the unit's line table for DWARF address pc, as
 * dwfl_module_getsrc chooses it: the last row at or below pc unless that
 * ends a sequence.  Its file and line into *files, *idx, *line. */
static bool line_at(struct dcu *c, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Files **files, size_t *idx, int *line)
{
	if (!c->lines_read) {
		c->lines_read = true;
		if (dwarf_getsrclines(cu, &c->lines, &c->nlines) != 0) c->nlines = 0;
		if (c->nlines) {
			c->laddr = xmalloc(c->nlines * sizeof *c->laddr);
			c->lrow = xmalloc(c->nlines * sizeof *c->lrow);
		}
		for (size_t k = 0; k < c->nlines; k++) {
			Dwarf_Line *l = dwarf_onesrcline(c->lines, k);
			if (!l || dwarf_lineaddr(l, &c->laddr[k]) != 0) {
				free(c->laddr);
				free(c->lrow);
				c->laddr = NULL;
				c->lrow = NULL;
				c->nlines = 0;
				break;
			}
			/* what the look-up below would ask libdw for this row */
			struct lrow *w = c->lrow ? &c->lrow[k] : NULL;
			if (!w) continue;
			bool end;
			Dwarf_Files *lf;
			size_t li;
			w->file = UINT32_MAX;
			if (dwarf_lineendsequence(l, &end) != 0 || end || dwarf_lineno(l, &w->line) != 0 ||
			    dwarf_line_file(l, &lf, &li) != 0)
				continue;
			if (!c->lfiles) c->lfiles = lf;
			if (lf != c->lfiles || li >= UINT32_MAX) {
				free(c->lrow);
				c->lrow = NULL;
				continue;
			}
			w->file = (uint32_t)li;
		}
	}
	if (c->nlines == 0) return false;
	size_t lo = 0, hi = c->nlines - 1;
	while (lo < hi) {
		size_t mid = hi - (hi - lo) / 2;
		if (pc < c->laddr[mid]) hi = mid - 1;
		else lo = mid;
	}
	if (c->laddr[lo] > pc) return false;
	if (c->lrow) {
		if (c->lrow[lo].file == UINT32_MAX) return false;
		*files = c->lfiles;
		*idx = c->lrow[lo].file;
		*line = c->lrow[lo].line;
		return true;
	}
	Dwarf_Line *l = dwarf_onesrcline(c->lines, lo);
	bool end;
	if (!l || dwarf_lineendsequence(l, &end) != 0 || end) return false;
	return dwarf_lineno(l, line) == 0 && dwarf_line_file(l, files, idx) == 0;
}

/* The name of a DWARF function or inlined call: its linkage name when it has
 * one (as the symbol table has it), else its name. */
static const char *die_func(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	const char *s = NULL;
	if (dwarf_attr_integrate(d, DW_AT_linkage_name, &a)) s = dwarf_formstring(&a);
	if (!s && dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &a)) s = dwarf_formstring(&a);
	if (!s && dwarf_attr_integrate(d, DW_AT_name, &a)) s = dwarf_formstring(&a);
	return s;
}

/* Whether die_func names d by its DW_AT_name (it has no linkage name). */
static bool die_plain(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	return !dwarf_attr_integrate(d, DW_AT_linkage_name, &a) && !dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &a);
}

/* The first address of function d (its DW_AT_low_pc, else its first range). */
static bool die_low(Dwarf_Die *d, Dwarf_Addr *low)
{
	if (dwarf_lowpc(d, low) == 0) return true;
	Dwarf_Addr base, hi;
	return dwarf_ranges(d, 0, &base, low, &hi) > 0;
}

/* What elfsym_fn tells of function d (at_sym against e->symstart). */
static elfsym_fn die_fn(elfsym *e, Dwarf_Die *d)
{
	Dwarf_Addr low;
	elfsym_fn f = { dwarf_dieoffset(d) + 1, die_plain(d), false };
	f.at_sym = e->symstart != UINT64_MAX && die_low(d, &low) && low == e->symstart;
	return f;
}

/* Whether the names of a unit of language lang are not mangled: binutils
 * (dwarf2.c) takes their DW_AT_name for the linkage name. */
static bool lang_unmangled(int lang)
{
	switch (lang) {
	case DW_LANG_C89: case DW_LANG_C: case DW_LANG_Ada83: case DW_LANG_Cobol74: case DW_LANG_Cobol85:
	case DW_LANG_Fortran77: case DW_LANG_Pascal83: case DW_LANG_C99: case DW_LANG_Ada95: case DW_LANG_PLI:
	case DW_LANG_UPC: case DW_LANG_C11: case DW_LANG_Mips_Assembler:
		return true;
	default:
		return false;
	}
}

/* "file:line" of an inlined call's call site, into tmp ("" when unknown). */
static void call_site(struct dcu *c, Dwarf_Die *cu, Dwarf_Die *d, sbuf *tmp)
{
	tmp->n = 0;
	Dwarf_Attribute a;
	Dwarf_Word fileno, line;
	if (!dwarf_attr(d, DW_AT_call_file, &a) || dwarf_formudata(&a, &fileno) != 0) return;
	if (!dwarf_attr(d, DW_AT_call_line, &a) || dwarf_formudata(&a, &line) != 0) return;
	Dwarf_Files *files;
	size_t nfiles;
	if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0 || fileno >= nfiles) return;
	src_line(tmp, c, cu, files, fileno, line);
}

/* Sorts x[0..n) by start, keeping the table's order among equal starts:
 * LSD radix, 8 bits a pass, skipping the digits all starts share (qsort
 * with a comparison function took a fifth of the time of the bench's
 * 10,000 look-ups, on the large tables of node and libLLVM). */
static void sort_by_start(struct fsym *x, uint32_t n)
{
	radix_sort_u64(x, n, sizeof *x, offsetof(struct fsym, start));
}

/* Whether a goes before b among symbols at one address: global, weak,
 * local, then by name's place in the string table (any fixed order). */
static bool fsym_before(const struct fsym *a, const struct fsym *b)
{
	if (a->rank != b->rank) return a->rank < b->rank;
	return a->name < b->name;
}

/* The function symbols of the module (.symtab, else .dynsym, from the
 * file or its debug file, as libdwfl chooses), sorted by address; of
 * several at one address the global one first, then weak, then local. */
static void sort_syms(struct efile *f)
{
	f->sorted = true;
	int n = dwfl_module_getsymtab(f->mod);
	if (n <= 0) return;
	f->syms = xmalloc((size_t)n * sizeof *f->syms);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr a;
		const char *name = dwfl_module_getsym_info(f->mod, i, &sym, &a, NULL, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);
		if (!name || !*name || sym.st_shndx == SHN_UNDEF || (type != STT_FUNC && type != STT_GNU_IFUNC))
			continue;
		int bind = GELF_ST_BIND(sym.st_info);
		struct fsym *x = &f->syms[f->nsyms++];
		x->start = a;
		x->size = sym.st_size;
		x->secend = UINT64_MAX;
		x->name = name;
		/* a symbol of no size ends with its section at the latest (_init
		 * is not the PLT after it) */
		Dwarf_Addr in = a, sbias;
		Elf_Scn *scn = !x->size ? dwfl_module_address_section(f->mod, &in, &sbias) : NULL;
		GElf_Shdr sh;
		if (scn && gelf_getshdr(scn, &sh) && in <= sh.sh_size) x->secend = a - in + sh.sh_size;
		x->rank = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
	}
	sort_by_start(f->syms, f->nsyms);
	/* one entry per address: the first of each run by fsym_before (the
	 * earlier in the table of two equal) */
	uint32_t k = 0;
	for (uint32_t i = 0; i < f->nsyms; i++) {
		if (k == 0 || f->syms[k - 1].start != f->syms[i].start) {
			f->syms[k++] = f->syms[i];
			f->syms[k - 1].first = f->syms[i].name; /* binutils' choice */
		} else if (fsym_before(&f->syms[i], &f->syms[k - 1])) {
			const char *first = f->syms[k - 1].first;
			f->syms[k - 1] = f->syms[i];
			f->syms[k - 1].first = first;
		}
	}
	f->nsyms = k;
}

/* The function symbol holding module address a: the greatest start at or
 * below it, if a is below its end (or, for a symbol of no size, below the
 * next symbol and the end of its section). */
static const char *find_sym(struct efile *f, Dwarf_Addr a, GElf_Off *off, const char **first)
{
	if (!f->sorted) sort_syms(f);
	uint32_t lo = 0, hi = f->nsyms;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (f->syms[mid].start <= a) lo = mid + 1;
		else hi = mid;
	}
	if (lo == 0) return NULL;
	const struct fsym *x = &f->syms[lo - 1];
	uint64_t end = x->size ? x->start + x->size : lo < f->nsyms ? f->syms[lo].start : x->start + 1;
	if (!x->size && x->secend < end) end = x->secend;
	if (a >= end) return NULL;
	*off = a - x->start;
	*first = x->first;
	return x->name;
}

/* ---- the inlined calls at an address, as dwarf_getscopes finds them ------- */

/* The frames the scopes at module DWARF address pc of compilation unit cu
 * give: the inlined calls, innermost first, appended from frame n on (the
 * first gets the line in *tmp, each the next its call site), and the
 * physical function into *phys when it is still NULL.  Returns the new n.
 * dwarf_getscopes walks the whole unit for each address: the way for the
 * units with few look-ups (see cached_frames). */
static uint32_t walk_frames(elfsym *e, struct dcu *c, Dwarf_Die *cu, Dwarf_Addr pc, uint32_t n, sbuf *tmp,
			    const char **phys)
{
	Dwarf_Die *scopes = NULL;
	int ns = dwarf_getscopes(cu, pc, &scopes);
	/* dwarf_getscopes follows an inlined call into the abstract
	 * definition of what it inlines; its callers are the scopes
	 * around the call's own DIE (dwarf_getscopes_die), so each
	 * inlined call restarts the walk there */
	for (int i = 0; i < ns; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag == DW_TAG_inlined_subroutine) {
			res_add(e, n, die_func(&scopes[i]), tmp->n ? (sbuf_addc(tmp, 0), tmp->p) : NULL);
			e->fn[n++] = die_fn(e, &scopes[i]);
			call_site(c, cu, &scopes[i], tmp);
			Dwarf_Die *outer = NULL;
			int no = dwarf_getscopes_die(&scopes[i], &outer);
			free(scopes);
			scopes = outer;
			ns = no;
			i = 0; /* outer[0] is the inlined call itself */
		} else if (tag == DW_TAG_subprogram) {
			e->phys_fn = die_fn(e, &scopes[i]);
			if (!*phys) *phys = die_func(&scopes[i]);
			break;
		}
	}
	free(scopes);
	return n;
}

/* The function addr2line (binutils) names at pc when GNU as wrote the
 * unit: one DW_TAG_subprogram for each alias of an assembly function, all
 * with the same range, of which binutils takes the one of the smallest
 * range holding pc, the last of equals (dwarf_getscopes the first).  NULL:
 * no such unit, or none holds pc. */
static const char *asm_func(Dwarf_Die *cu, Dwarf_Addr pc)
{
	Dwarf_Attribute a;
	Dwarf_Word lang;
	if (!dwarf_attr(cu, DW_AT_language, &a) || dwarf_formudata(&a, &lang) != 0 || lang != DW_LANG_Mips_Assembler)
		return NULL;
	Dwarf_Die d;
	const char *best = NULL;
	Dwarf_Addr bestlen = 0;
	for (int r = dwarf_child(cu, &d); r == 0; r = dwarf_siblingof(&d, &d)) {
		if (dwarf_tag(&d) != DW_TAG_subprogram) continue;
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;
		while ((off = dwarf_ranges(&d, off, &base, &lo, &hi)) > 0) {
			if (pc < lo || pc >= hi) continue;
			const char *name = die_func(&d);
			if (name && (!best || hi - lo <= bestlen)) best = name, bestlen = hi - lo;
		}
	}
	return best;
}

/* ---- the scopes of a compilation unit, cached ------------------------------
 *
 * A unit with more than a few look-ups gets its scopes read once, with the
 * same libdw walk dwarf_getscopes makes (dwarf_child, dwarf_siblingof,
 * dwarf_ranges), into a tree of the DIEs that have address ranges, each
 * node's children's ranges sorted by address.  cached_frames then answers
 * an address as walk_frames does, from that tree:
 *
 * - dwarf_getscopes goes down from the unit, at each level into the first
 *   child (in DIE order) whose ranges hold the address, looking into the
 *   children of the DIEs of the tags may_have_scopes lists only; the last
 *   DIE it reaches is the innermost scope;
 * - when an inlined call is on that path, it then looks for the abstract
 *   origin of the innermost one among all the DIEs of that walk of the
 *   unit, and gives no scopes when it is not there (in another unit, say);
 * - walk_frames takes, from the innermost scope out, each inlined call
 *   (dwarf_getscopes_die gives the same parents as the tree) up to the
 *   first function.
 *
 * A unit whose walk meets anything unusual (an error of libdw, an imported
 * unit, DIEs nested absurdly deep) is not cached: walk_frames answers for
 * it.  Memory: a few words per DIE with ranges, for the units looked up. */

/* The look-ups of a unit made with walk_frames before its scopes are
 * cached.  Caching costs about two walk_frames of an address with no
 * inlined call (a large unit of libasan: 27 ms against 14) and about one
 * with inlined calls (each goes round the unit again): a unit asked about once or twice costs what it did, three times
 * at worst about a quarter more (two walks and the cache against three
 * walks), more times less and less (libasan's 500 addresses of the bench:
 * 0.25 s before the cache, 0.047 s with it).  Tests set it to 0 (cache from
 * the first look-up) to compare both ways. */
#ifndef ELFSYM_CACHE_AFTER
#define ELFSYM_CACHE_AFTER 2
#endif
#define NO_NODE UINT32_MAX
#define MAX_DEPTH 1000

struct dnode {
	uint32_t parent;      /* a node, or NO_NODE for a child of the unit */
	uint32_t kid0, nkids; /* its children's ranges: spans[kid0 .. kid0 + nkids) */
	int tag;
	bool descend;         /* dwarf_getscopes looks into its children */
	bool origin_ok;       /* inlined call: dwarf_getscopes finds its abstract origin */
	bool call_ok;         /* inlined call: has DW_AT_call_file and DW_AT_call_line */
	const char *name;     /* inlined calls and functions: die_func */
	bool plain;           /* die_plain */
	bool has_low;         /* die_low: low */
	Dwarf_Off off;        /* the DIE's offset */
	Dwarf_Addr low;
	Dwarf_Word call_file, call_line;
};

struct dspan {
	Dwarf_Addr lo, hi;
	Dwarf_Addr maxhi;     /* the greatest hi of the spans of the group up to this one */
	uint32_t parent, node;
};


/* The tags whose children dwarf_getscopes (libdw's __libdw_visit_scopes)
 * looks into. */
static bool may_have_scopes(int tag)
{
	switch (tag) {
	case DW_TAG_compile_unit: case DW_TAG_module: case DW_TAG_lexical_block:
	case DW_TAG_with_stmt: case DW_TAG_catch_block: case DW_TAG_try_block:
	case DW_TAG_entry_point: case DW_TAG_inlined_subroutine: case DW_TAG_subprogram:
	case DW_TAG_namespace: case DW_TAG_class_type: case DW_TAG_structure_type:
		return true;
	default:
		return false;
	}
}

struct build {
	struct dcu *c;
	uintptr_t *seen;      /* the DIEs walked, by address: where origins are found */
	uint32_t nseen, seencap;
	struct origin { uint32_t node; uintptr_t die; } *orig;
	uint32_t norig, origcap;
	bool fail;
};

/* A node for DIE d, child of node parent. */
static uint32_t add_node(struct build *b, Dwarf_Die *d, int tag, uint32_t parent)
{
	struct dcu *c = b->c;
	uint32_t k = c->nnodes;
	struct dnode *x = VEC_PUSH(c->nodes, c->nnodes, c->nodecap);
	memset(x, 0, sizeof *x);
	x->parent = parent;
	x->tag = tag;
	x->descend = may_have_scopes(tag);
	if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram) {
		x->name = die_func(d);
		x->plain = die_plain(d);
		x->off = dwarf_dieoffset(d);
		x->has_low = die_low(d, &x->low);
	}
	if (tag == DW_TAG_inlined_subroutine) {
		Dwarf_Attribute a;
		x->call_ok = dwarf_attr(d, DW_AT_call_file, &a) && dwarf_formudata(&a, &x->call_file) == 0 &&
			     dwarf_attr(d, DW_AT_call_line, &a) && dwarf_formudata(&a, &x->call_line) == 0;
		/* no origin, or one libdw cannot read: dwarf_getscopes fails,
		 * which is the same as not finding it */
		Dwarf_Die o;
		if (dwarf_formref_die(dwarf_attr(d, DW_AT_abstract_origin, &a), &o)) {
			struct origin *r = VEC_PUSH(b->orig, b->norig, b->origcap);
			r->node = k;
			r->die = (uintptr_t)o.addr;
		}
	}
	return k;
}

/* Walks the children of die (of node parent; NO_NODE: the unit; UNREACHED:
 * a DIE the address walk never enters) as __libdw_visit_scopes does. */
#define UNREACHED (UINT32_MAX - 1)
static void walk_cu(struct build *b, Dwarf_Die *die, uint32_t parent, int depth)
{
	if (depth > MAX_DEPTH) {
		b->fail = true;
		return;
	}
	Dwarf_Die d;
	int r = dwarf_child(die, &d);
	while (r == 0 && !b->fail) {
		int tag = dwarf_tag(&d);
		if (tag == DW_TAG_imported_unit || tag < 0) {
			b->fail = true;
			return;
		}
		*VEC_PUSH(b->seen, b->nseen, b->seencap) = (uintptr_t)d.addr;
		uint32_t me = UNREACHED;
		if (parent != UNREACHED) {
			/* dwarf_haspc's ranges; an error: not cached (dwarf_haspc
			 * ignores some, which walk_frames gets right) */
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;
			while ((off = dwarf_ranges(&d, off, &base, &lo, &hi)) > 0) {
				if (lo >= hi) continue;
				if (me == UNREACHED) me = add_node(b, &d, tag, parent);
				struct dspan *s = VEC_PUSH(b->c->spans, b->c->nspans, b->c->spancap);
				s->lo = lo;
				s->hi = hi;
				s->parent = parent;
				s->node = me;
			}
			if (off < 0) {
				b->fail = true;
				return;
			}
		}
		int kids = may_have_scopes(tag) ? dwarf_haschildren(&d) : 0;
		if (kids < 0) {
			b->fail = true;
			return;
		}
		if (kids) walk_cu(b, &d, me, depth + 1);
		r = dwarf_siblingof(&d, &d);
	}
	if (r < 0) b->fail = true;
}

static int uptr_cmp(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
	return x < y ? -1 : x > y;
}

/* Groups the spans by parent (the unit's children last), each by address. */
static int span_cmp(const void *a, const void *b)
{
	const struct dspan *x = a, *y = b;
	if (x->parent != y->parent) return x->parent < y->parent ? -1 : 1;
	if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

static void dcu_clear(struct dcu *c)
{
	free(c->nodes);
	free(c->spans);
	c->nodes = NULL;
	c->spans = NULL;
	c->nnodes = c->nodecap = c->nspans = c->spancap = 0;
}

static void dcu_free(struct dcu *c)
{
	dcu_clear(c);
	free(c->laddr);
	free(c->lrow);
	free(c->fname);
	sbuf_free(&c->fnames);
}

/* Reads the scopes of unit cu into c; c->state tells whether it could. */
static void build_cu(struct dcu *c, Dwarf_Die *cu)
{
	struct build b = { .c = c };
	walk_cu(&b, cu, NO_NODE, 0);
	if (!b.fail) {
		/* the origins found where dwarf_getscopes looks for them */
		bool sorted = true;
		for (uint32_t i = 1; i < b.nseen; i++)
			if (b.seen[i - 1] > b.seen[i]) sorted = false;
		if (!sorted) xqsort(b.seen, b.nseen, sizeof *b.seen, uptr_cmp);
		for (uint32_t i = 0; i < b.norig; i++)
			c->nodes[b.orig[i].node].origin_ok =
				bsearch(&b.orig[i].die, b.seen, b.nseen, sizeof *b.seen, uptr_cmp) != NULL;
		xqsort(c->spans, c->nspans, sizeof *c->spans, span_cmp);
		for (uint32_t i = 0; i < c->nspans;) {
			uint32_t j = i;
			Dwarf_Addr maxhi = 0;
			for (; j < c->nspans && c->spans[j].parent == c->spans[i].parent; j++) {
				if (c->spans[j].hi > maxhi) maxhi = c->spans[j].hi;
				c->spans[j].maxhi = maxhi;
			}
			if (c->spans[i].parent == NO_NODE) {
				c->root0 = i;
				c->nroot = j - i;
			} else {
				c->nodes[c->spans[i].parent].kid0 = i;
				c->nodes[c->spans[i].parent].nkids = j - i;
			}
			i = j;
		}
	}
	free(b.seen);
	free(b.orig);
	if (b.fail) dcu_clear(c);
	c->state = b.fail ? CU_UNCACHED : CU_CACHED;
}

/* The first node in DIE order among spans[i0 .. i0 + n) that holds pc, or
 * NO_NODE.  The spans before the last one starting at or below pc are
 * looked at back to where none reaches pc (maxhi). */
static uint32_t find_kid(const struct dcu *c, uint32_t i0, uint32_t n, Dwarf_Addr pc)
{
	const struct dspan *s = c->spans + i0;
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (s[mid].lo <= pc) lo = mid + 1;
		else hi = mid;
	}
	uint32_t best = NO_NODE;
	for (uint32_t k = lo; k-- > 0 && s[k].maxhi > pc;)
		if (pc < s[k].hi && (best == NO_NODE || s[k].node < best)) best = s[k].node;
	return best;
}

/* die_fn of the DIE of node x. */
static elfsym_fn node_fn(const elfsym *e, const struct dnode *x)
{
	elfsym_fn f = { x->off + 1, x->plain, e->symstart != UINT64_MAX && x->has_low && x->low == e->symstart };
	return f;
}

/* walk_frames, from the cache. */
static uint32_t cached_frames(elfsym *e, struct dcu *c, Dwarf_Die *cu, Dwarf_Addr pc, uint32_t n, sbuf *tmp,
			      const char **phys)
{
	/* the innermost scope */
	uint32_t in = NO_NODE;
	for (uint32_t k = find_kid(c, c->root0, c->nroot, pc); k != NO_NODE;) {
		in = k;
		if (!c->nodes[k].descend) break;
		k = find_kid(c, c->nodes[k].kid0, c->nodes[k].nkids, pc);
	}
	/* with an inlined call on the path, no scopes unless the innermost
	 * call's origin is found */
	for (uint32_t k = in; k != NO_NODE; k = c->nodes[k].parent)
		if (c->nodes[k].tag == DW_TAG_inlined_subroutine) {
			if (!c->nodes[k].origin_ok) return n;
			break;
		}
	for (uint32_t k = in; k != NO_NODE; k = c->nodes[k].parent) {
		const struct dnode *x = &c->nodes[k];
		if (x->tag == DW_TAG_inlined_subroutine) {
			res_add(e, n, x->name, tmp->n ? (sbuf_addc(tmp, 0), tmp->p) : NULL);
			e->fn[n++] = node_fn(e, x);
			/* call_site's "file:line" */
			tmp->n = 0;
			Dwarf_Files *files;
			size_t nfiles;
			if (x->call_ok && dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && x->call_file < nfiles)
				src_line(tmp, c, cu, files, x->call_file, x->call_line);
		} else if (x->tag == DW_TAG_subprogram) {
			e->phys_fn = node_fn(e, x);
			if (!*phys) *phys = x->name;
			break;
		}
	}
	return n;
}

/* The cache entry of unit cu, counting this look-up; built on the look-up
 * after ELFSYM_CACHE_AFTER (an aid's at once when it has more addresses of
 * the unit to answer than that, as it answers them together). */
static void cached_cu(elfsym *e, const struct efile *f, int64_t off);
static struct dcu *get_cu(elfsym *e, struct efile *f, Dwarf_Die *cu)
{
	/* look-ups in address order meet a unit many times in a row */
	int64_t off = (int64_t)dwarf_dieoffset(cu);
	uint32_t i = f->last_cui;
	if (off != f->last_cu) {
		bool added;
		i = idmap_put(&f->cumap, off, f->ncus, &added);
		if (added) {
			struct dcu *c = VEC_PUSH(f->cus, f->ncus, f->cucap);
			memset(c, 0, sizeof *c);
			c->off = off;
		}
		f->last_cu = off;
		f->last_cui = i;
	}
	struct dcu *c = &f->cus[i];
	if (c->state == CU_COUNTING && (e->owner ? e->group > ELFSYM_CACHE_AFTER : ++c->lookups > ELFSYM_CACHE_AFTER)) {
		build_cu(c, cu);
		if (c->state == CU_CACHED && f->offered && !e->owner) cached_cu(e, f, off);
	}
	return c;
}

static void cus_free(struct efile *f)
{
	for (uint32_t i = 0; i < f->ncus; i++) dcu_free(&f->cus[i]);
	free(f->cus);
	idmap_free(&f->cumap);
}

/* The link-time virtual address of addr in f (see elfsym_lookup) into
 * *vaddr: ES_OK, else why there is none. */
static int to_vaddr(const struct efile *f, uint64_t addr, bool is_offset, uint64_t *vaddr)
{
	*vaddr = addr;
	/* below the first segment of a fixed-address executable: an offset
	 * into the file, as perf prints the addresses of files it could not
	 * read */
	if (!is_offset && !f->dyn && addr < f->lo) is_offset = true;
	if (is_offset) {
		uint32_t k;
		for (k = 0; k < f->nsegs; k++)
			if (addr >= f->segs[k].off && addr - f->segs[k].off < f->segs[k].filesz) break;
		if (k == f->nsegs) return ES_OUTSIDE;
		*vaddr = addr - f->segs[k].off + f->segs[k].vaddr;
	} else if (f->dyn && (addr < f->lo || addr >= f->hi)) {
		return ES_NEEDS_MAP;
	}
	return ES_OK;
}

/* ---- the units by address, without libdwfl -------------------------------
 *
 * An aid's copy of a file has no module: it finds the unit holding an
 * address as dwfl_module_addrdie does (libdwfl 0.188), from libdw's
 * address ranges (.debug_aranges), sorted by address: each run of ranges
 * of one unit counts as one range from its first start to the next run's,
 * gaps included, the last up to and with the end of the last range; a
 * binary search of the runs' starts, whose first probe meeting an equal
 * start takes it (so ties between units go as libdwfl's). */
static void read_runs(struct efile *f)
{
	f->runs_read = true;
	Dwarf_Aranges *ar;
	size_t n;
	if (!f->dw || dwarf_getaranges(f->dw, &ar, &n) != 0 || n == 0) return;
	f->runs = xmalloc(n * sizeof *f->runs);
	for (size_t i = 0; i < n; i++) {
		Dwarf_Addr start;
		Dwarf_Word len;
		Dwarf_Off cu;
		if (dwarf_getarangeinfo(dwarf_onearange(ar, i), &start, &len, &cu) != 0) {
			f->nruns = 0; /* (libdwfl: no unit either) */
			return;
		}
		if (i + 1 == n) f->runs_end = start + len;
		if (f->nruns && f->runs[f->nruns - 1].cu == cu) continue;
		f->runs[f->nruns++] = (struct arun){ start, cu };
	}
}

/* The run holding module address a, or NULL. */
static const struct arun *find_run(struct efile *f, Dwarf_Addr a)
{
	if (!f->runs_read) read_runs(f);
	Dwarf_Addr x = a - f->dbias;
	size_t lo = 0, hi = f->nruns;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct arun *r = &f->runs[mid];
		if (x < r->start) {
			hi = mid;
		} else if (x > r->start && mid + 1 < f->nruns && x >= r[1].start) {
			lo = mid + 1;
		} else {
			if (x > r->start && mid + 1 == f->nruns && x > f->runs_end) return NULL;
			return r;
		}
	}
	return NULL;
}

static Dwarf_Die *aid_addrdie(struct efile *f, Dwarf_Addr a, Dwarf_Addr *dbias)
{
	*dbias = f->dbias;
	const struct arun *r = find_run(f, a);
	return r ? dwarf_offdie(f->dw, r->cu, &f->cudie) : NULL;
}

/* elfsym_lookup's answer in file f (opened), an aid's too. */
static int lookup_file(elfsym *e, struct efile *f, uint64_t addr, bool is_offset, elfsym_res *out)
{
	uint64_t vaddr;
	int why = to_vaddr(f, addr, is_offset, &vaddr);
	if (why != ES_OK) return why;
	Dwarf_Addr a = vaddr + f->bias;
	GElf_Off off = 0;
	const char *first = NULL;
	const char *name = find_sym(f, a, &off, &first);
	Dwarf_Addr dbias = 0;
	Dwarf_Die *cu = f->mod ? dwfl_module_addrdie(f->mod, a, &dbias) : aid_addrdie(f, a, &dbias);
	res_reset(e);
	sbuf tmp = { 0 }, tmp2 = { 0 };
	uint32_t n = 0;
	const char *phys = name, *dphys = NULL;
	bool has_line = false;
	memset(&e->phys_fn, 0, sizeof e->phys_fn);
	e->symstart = name ? a - off - dbias : UINT64_MAX;
	if (cu) {
		/* the line of the address itself, for the innermost frame */
		struct dcu *c = get_cu(e, f, cu);
		Dwarf_Files *files;
		size_t idx;
		int line;
		has_line = line_at(c, cu, a - dbias, &files, &idx, &line);
		if (has_line) src_line(&tmp, c, cu, files, idx, (uint64_t)line);
		if (c->state == CU_CACHED) n = cached_frames(e, c, cu, a - dbias, n, &tmp, &dphys);
		else n = walk_frames(e, c, cu, a - dbias, n, &tmp, &dphys);
		if (!phys) phys = dphys;
		if (!phys) {
			free(tmp.p);
			free(tmp2.p);
			return ES_OUTSIDE;
		}
		res_add(e, n, phys, tmp.n ? (sbuf_addc(&tmp, 0), tmp.p) : NULL);
		if (dphys) e->fn[n] = e->phys_fn;
		n++;
	} else if (name) {
		res_add(e, n++, name, NULL);
	}
	free(tmp.p);
	free(tmp2.p);
	if (n == 0) {
		/* no .symtab here nor in a debug file: stripped (an aid's copy
		 * of a file says no more) */
		Dwarf_Addr b;
		if (!f->mod) return ES_OUTSIDE;
		return !f->symtab && !dwfl_module_getdwarf(f->mod, &b) ? ES_NO_SYMBOLS : ES_OUTSIDE;
	}
	res_done(e, n, out);
	out->vaddr = vaddr;
	if (name) {
		out->has_symoff = true;
		out->symoff = off;
	}
	memcpy(out->build_id, f->build_id, sizeof out->build_id);
	out->dwarf_func = dphys;
	out->sym_first = first;
	out->mangled = dphys && !lang_unmangled(dwarf_srclang(cu));
	if (dphys && cu) {
		const char *af = asm_func(cu, a - dbias);
		if (af) out->dwarf_func = af;
	}
	out->has_line = has_line;
	return ES_OK;
}

/* ---- aids: look-ups on other threads ----------------------------------------
 *
 * libdw is not thread-safe, but its Dwarf handles share nothing: an aid
 * (one a thread) opens a Dwarf of its own on the ELF handle of the debug
 * file its owner read, whose sections the owner's libdw decompressed once,
 * and which neither changes after that.  The owner offers a file once it
 * has read it (its symbols sorted, its DWARF read: at its first look-up
 * there, or ahead on a loader thread, elfsym_prepare); an aid then answers
 * addresses of it with the owner's code, on its own units' caches, into
 * its owner's answers, which the owner's look-ups take as they come.  A file is not offered when an aid's libdw would still write
 * to its ELF handle (a section left compressed, GNU's .zdebug ones) or
 * read another file (dwz's .gnu_debugaltlink), nor when libdwfl adjusts
 * its DWARF addresses apart from its symbols' (a prelinked file).
 *
 * Most of a look-up's time goes to its unit (its line table, its scopes),
 * read once by each Dwarf that looks into it: so an aid takes whole units,
 * but those whose scopes the owner has cached, the latest the owner will
 * come to first. */

/* Whether libdw reads the debug sections of elf without changing it. */
static bool plain_debug(Elf *elf)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0) return false;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh)) return false;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name) return false;
		if (!strncmp(name, ".zdebug", 7) || !strcmp(name, ".gnu_debugaltlink")) return false;
		if (!strncmp(name, ".debug", 6) && (sh.sh_flags & SHF_COMPRESSED)) return false;
	}
	return true;
}

static int64_t cached_key(uint32_t pubi, int64_t off) { return (int64_t)((uint64_t)pubi << 40 ^ (uint64_t)off); }

/* The owner has the scopes of unit off of file f (offered) cached: its
 * look-ups there are quick, the aids leave it. */
static void cached_cu(elfsym *e, const struct efile *f, int64_t off)
{
	bool added;
	pthread_mutex_lock(&e->hmu);
	idmap_put(&e->cached, cached_key(f->pubi, off), 1, &added);
	pthread_mutex_unlock(&e->hmu);
}

/* The owner's file f at path offered to its aids (once), or declined
 * (no ELF handle: the aids leave its addresses). */
static void publish(elfsym *e, const char *path, struct efile *f)
{
	f->published = true;
	if (!f->sorted) sort_syms(f);
	Dwarf_Addr dbias;
	Dwarf *dw = dwfl_module_getdwarf(f->mod, &dbias);
	Elf *elf = dw ? dwarf_getelf(dw) : NULL;
	if (elf && (dbias != f->bias || !plain_debug(elf))) elf = NULL;
	pthread_mutex_lock(&e->hmu);
	bool added;
	uint32_t i = strmap_intern(&e->pub, path, strlen(path), &added);
	f->offered = elf != NULL;
	f->pubi = i;
	struct efile c = *f;
	c.dwfl = NULL;
	c.mod = NULL;
	memset(&c.cumap, 0, sizeof c.cumap);
	c.cus = NULL;
	c.ncus = c.cucap = 0;
	c.last_cu = -1;
	c.borrowed = true;
	c.dbias = dbias;
	grow_array((void **)&e->pubv, &e->pubcap, i + 1, sizeof *e->pubv);
	e->pubv[i] = (struct pub){ elf, c };
	for (uint32_t k = 0; k < f->ncus; k++)
		if (f->cus[k].state == CU_CACHED) idmap_put(&e->cached, cached_key(i, f->cus[k].off), 1, &added);
	pthread_mutex_unlock(&e->hmu);
}

/* The key of the answer for addr (a file offset) in path, into e->key. */
static void answer_key(elfsym *e, const char *path, uint64_t addr)
{
	e->key.n = 0;
	sbuf_adds(&e->key, path);
	sbuf_addc(&e->key, 0);
	sbuf_add(&e->key, &addr, sizeof addr);
}

static void put_u64(sbuf *b, uint64_t v) { sbuf_add(b, &v, sizeof v); }

static void put_opt(sbuf *b, const char *s)
{
	sbuf_addc(b, s != NULL);
	if (s) sbuf_add(b, s, strlen(s) + 1);
}

static uint64_t get_u64(const char **p)
{
	uint64_t v;
	memcpy(&v, *p, sizeof v);
	*p += sizeof v;
	return v;
}

static const char *get_opt(const char **p)
{
	if (!*(*p)++) return NULL;
	const char *s = *p;
	*p += strlen(s) + 1;
	return s;
}

/* Answer r as bytes, for the owner (answered). */
static void encode(sbuf *b, const elfsym_res *r)
{
	put_u64(b, r->n);
	for (uint32_t k = 0; k < r->n; k++) {
		put_opt(b, r->func[k]);
		put_opt(b, r->srcline[k]);
		put_u64(b, r->fn[k].die);
		sbuf_addc(b, r->fn[k].plain);
		sbuf_addc(b, r->fn[k].at_sym);
	}
	sbuf_addc(b, r->has_symoff);
	put_u64(b, r->symoff);
	put_u64(b, r->vaddr);
	put_opt(b, r->dwarf_func);
	put_opt(b, r->sym_first);
	sbuf_addc(b, r->mangled);
	sbuf_addc(b, r->has_line);
}

/* An aid's answer for addr in path (file f), into *out as the look-up
 * would give it: false when there is none. */
static bool answered(elfsym *e, const char *path, const struct efile *f, uint64_t addr, elfsym_res *out)
{
	answer_key(e, path, addr);
	pthread_mutex_lock(&e->hmu);
	int64_t i = strmap_find(&e->ans, e->key.p, e->key.n);
	if (i < 0) {
		pthread_mutex_unlock(&e->hmu);
		return false;
	}
	const char *p = e->ablob.p + e->ansoff[i];
	res_reset(e);
	uint32_t n = (uint32_t)get_u64(&p);
	for (uint32_t k = 0; k < n; k++) {
		const char *func = get_opt(&p);
		res_add(e, k, func, get_opt(&p));
		e->fn[k].die = get_u64(&p);
		e->fn[k].plain = *p++;
		e->fn[k].at_sym = *p++;
	}
	out->has_symoff = *p++;
	out->symoff = get_u64(&p);
	out->vaddr = get_u64(&p);
	const char *df = get_opt(&p), *sf = get_opt(&p);
	uint32_t dfo = df ? res_str(e, df) : UINT32_MAX, sfo = sf ? res_str(e, sf) : UINT32_MAX;
	out->mangled = *p++;
	out->has_line = *p++;
	pthread_mutex_unlock(&e->hmu);
	res_done(e, n, out);
	out->dwarf_func = dfo == UINT32_MAX ? NULL : e->text.p + dfo;
	out->sym_first = sfo == UINT32_MAX ? NULL : e->text.p + sfo;
	memcpy(out->build_id, f->build_id, sizeof out->build_id);
	return true;
}

int elfsym_lookup(elfsym *e, const char *path, uint64_t addr, bool is_offset, elfsym_res *out)
{
	struct efile *f = get_file(e, path);
	memset(out, 0, sizeof *out);
	if (f->status != ES_OK) return f->status;
	if (!f->published && __atomic_load_n(&e->aided, __ATOMIC_RELAXED)) publish(e, path, f);
	if (f->offered && is_offset && answered(e, path, f, addr, out)) return ES_OK;
	return lookup_file(e, f, addr, is_offset, out);
}

bool elfsym_aids_work(void)
{
	/* elfutils 0.191 and later find units by ranges read from the units
	 * themselves (.debug_aranges may be missing), where find_run reads
	 * libdw's .debug_aranges as 0.190 and before do */
	unsigned major = 0, minor = 0;
	const char *v = dwfl_version(NULL);
	return v && sscanf(v, "%u.%u", &major, &minor) == 2 && major == 0 && minor < 191;
}

elfsym *elfsym_aid_new(elfsym *owner)
{
	elfsym *a = elfsym_new(owner->root, owner->debug_dir);
	a->owner = owner;
	__atomic_store_n(&owner->aided, true, __ATOMIC_RELEASE);
	return a;
}

/* The aid's copy of the file at path, once its owner offered or declined
 * it (NULL before), as a->f[*fi]. */
static struct efile *aid_file(elfsym *a, const char *path, uint32_t *fi)
{
	size_t pn = strlen(path);
	int64_t i = strmap_find(&a->files, path, pn);
	if (i >= 0) {
		*fi = (uint32_t)i;
		return &a->f[i];
	}
	elfsym *o = a->owner;
	struct pub p;
	pthread_mutex_lock(&o->hmu);
	int64_t k = strmap_find(&o->pub, path, pn);
	if (k >= 0) p = o->pubv[k];
	pthread_mutex_unlock(&o->hmu);
	if (k < 0) return NULL;
	bool added;
	uint32_t j = strmap_intern(&a->files, path, pn, &added);
	grow_array((void **)&a->f, &a->fcap, j + 1, sizeof *a->f);
	struct efile *f = &a->f[j];
	*f = p.f;
	f->dw = p.elf ? dwarf_begin_elf(p.elf, DWARF_C_READ, NULL) : NULL;
	if (!f->dw) f->status = ES_NOT_ELF; /* (declined: its asks dropped) */
	*fi = j;
	return f;
}

/* The aid's answer for addr in path (file f), for the owner. */
static void aid_answer(elfsym *a, const char *path, struct efile *f, uint64_t addr)
{
	elfsym *o = a->owner;
	answer_key(a, path, addr);
	pthread_mutex_lock(&o->hmu);
	bool known = strmap_find(&o->ans, a->key.p, a->key.n) >= 0;
	pthread_mutex_unlock(&o->hmu);
	elfsym_res r;
	if (known || lookup_file(a, f, addr, true, &r) != ES_OK) return;
	a->enc.n = 0;
	encode(&a->enc, &r);
	pthread_mutex_lock(&o->hmu);
	bool added;
	uint32_t i = strmap_intern(&o->ans, a->key.p, a->key.n, &added);
	if (added) {
		grow_array((void **)&o->ansoff, &o->anscap, i + 1, sizeof *o->ansoff);
		o->ansoff[i] = o->ablob.n;
		sbuf_add(&o->ablob, a->enc.p, a->enc.n);
	}
	pthread_mutex_unlock(&o->hmu);
}

/* An ask in a unit: the aid's file, the unit's offset. */
struct uask { uint32_t ask, file; Dwarf_Off cu; uint64_t order; };
struct ugroup { uint32_t from, to; uint64_t order; };

static int uask_cmp(const void *x, const void *y)
{
	const struct uask *a = x, *b = y;
	if (a->file != b->file) return a->file < b->file ? -1 : 1;
	if (a->cu != b->cu) return a->cu < b->cu ? -1 : 1;
	if (a->order != b->order) return a->order < b->order ? -1 : 1;
	return a->ask < b->ask ? -1 : a->ask > b->ask;
}

static int ugroup_cmp(const void *x, const void *y)
{
	const struct ugroup *a = x, *b = y;
	if (a->order != b->order) return a->order > b->order ? -1 : 1;
	return a->from < b->from ? -1 : a->from > b->from;
}

/* asks[0..n) with one ask an address (path and addr; paths compared as
 * pointers), the least order of its asks, in the order of their first:
 * their number. */
static uint32_t dedupe_asks(elfsym_ask *asks, uint32_t n)
{
	uint32_t cap = 16;
	while (cap < 2 * (uint64_t)n) cap *= 2;
	uint32_t *slot = xmalloc((size_t)cap * sizeof *slot);
	memset(slot, 0xff, (size_t)cap * sizeof *slot);
	uint32_t nd = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t h = (uint64_t)(uintptr_t)asks[i].path * 0x9e3779b97f4a7c15u ^ asks[i].addr * 0xc2b2ae3d27d4eb4fu;
		uint32_t j = (uint32_t)(h ^ h >> 29) & (cap - 1);
		for (; slot[j] != UINT32_MAX; j = (j + 1) & (cap - 1)) {
			elfsym_ask *d = &asks[slot[j]];
			if (d->path == asks[i].path && d->addr == asks[i].addr) break;
		}
		if (slot[j] != UINT32_MAX) {
			elfsym_ask *d = &asks[slot[j]];
			if (asks[i].order < d->order) d->order = asks[i].order;
			continue;
		}
		slot[j] = nd;
		asks[nd++] = asks[i];
	}
	free(slot);
	return nd;
}

void elfsym_aid_many(elfsym *a, const elfsym_ask *new_asks, uint32_t n_new,
		     bool (*ahead)(void *ctx, uint64_t order), void *ctx)
{
	elfsym *o = a->owner;
	/* the asks kept from before (in files the owner had not read yet),
	 * then these */
	for (uint32_t i = 0; i < n_new; i++) *VEC_PUSH(a->later, a->nlater, a->latercap) = new_asks[i];
	elfsym_ask *asks = a->later;
	uint32_t n = dedupe_asks(asks, a->nlater);
	a->later = NULL;
	a->nlater = a->latercap = 0;
	struct uask *q = NULL;
	uint32_t nq = 0, qcap = 0;
	const char *last = NULL;
	uint32_t fi = 0;
	bool have = false;
	for (uint32_t i = 0; i < n; i++) {
		/* (the asks of a file come in runs) */
		if (asks[i].path != last) {
			last = asks[i].path;
			have = aid_file(a, last, &fi) != NULL;
		}
		if (!have) {
			if (ahead(ctx, asks[i].order)) *VEC_PUSH(a->later, a->nlater, a->latercap) = asks[i];
			continue;
		}
		struct efile *file = &a->f[fi];
		uint64_t vaddr;
		if (file->status != ES_OK || to_vaddr(file, asks[i].addr, true, &vaddr) != ES_OK) continue;
		const struct arun *r = find_run(file, vaddr + file->bias);
		if (r) *VEC_PUSH(q, nq, qcap) = (struct uask){ i, fi, r->cu, asks[i].order };
	}
	xqsort(q, nq, sizeof *q, uask_cmp);
	struct ugroup *g = NULL;
	uint32_t ng = 0, gcap = 0;
	for (uint32_t i = 0; i < nq; i++)
		if (!i || q[i].file != q[i - 1].file || q[i].cu != q[i - 1].cu)
			*VEC_PUSH(g, ng, gcap) = (struct ugroup){ i, i, q[i].order };
	for (uint32_t k = 0; k < ng; k++) g[k].to = k + 1 < ng ? g[k + 1].from : nq;
	xqsort(g, ng, sizeof *g, ugroup_cmp);
	for (uint32_t k = 0; k < ng && ahead(ctx, g[k].order); k++) {
		struct efile *f = &a->f[q[g[k].from].file];
		pthread_mutex_lock(&o->hmu);
		bool cached = idmap_get(&o->cached, cached_key(f->pubi, (int64_t)q[g[k].from].cu)) != UINT32_MAX;
		pthread_mutex_unlock(&o->hmu);
		if (cached) continue;
		a->group = g[k].to - g[k].from;
		for (uint32_t i = g[k].from; i < g[k].to; i++)
			if (ahead(ctx, q[i].order)) aid_answer(a, asks[q[i].ask].path, f, asks[q[i].ask].addr);
	}
	free(q);
	free(g);
	free(asks);
}

uint32_t elfsym_aid_answers(elfsym *owner)
{
	pthread_mutex_lock(&owner->hmu);
	uint32_t n = owner->ans.count;
	pthread_mutex_unlock(&owner->hmu);
	return n;
}
