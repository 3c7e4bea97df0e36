/* perfsym.c - ELF function symbols the way perf chooses them (see perfsym.h). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "demangle.h"
#include "perfsym.h"
#include "rootpath.h"

struct psym {
	uint64_t start, end;
	uint32_t name;  /* offset in names: the name as the table has it */
	uint32_t seq;   /* order in the table */
	uint8_t bind;
};

struct perfsym {
	struct psym *s;
	uint32_t n, cap;
	sbuf names;
	uint64_t text;  /* kallsyms: the address of _text */
	uint64_t kend;  /* kallsyms: the end of the kernel's own symbols */
	bool demangle;  /* ELF names are demangled (when compared and when found) */
	sbuf dm[2];     /* scratch for demangled names */
};

struct efile {
	int fd;
	Elf *elf;
	GElf_Ehdr eh;
	Elf_Scn *symtab, *dynsym;
	GElf_Phdr *load;  /* the PT_LOAD headers */
	size_t nload;
};

/* path under root (rootpath.h: a regular file, never outside the root) */
static bool efile_open(const char *root, const char *path, struct efile *f, int *why)
{
	memset(f, 0, sizeof *f);
	sbuf full = { 0 };
	f->fd = rp_open(root, path, &full, why);
	sbuf_free(&full);
	if (f->fd < 0) return false;
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF || !gelf_getehdr(f->elf, &f->eh)) {
		if (f->elf) elf_end(f->elf);
		close(f->fd);
		f->fd = -1;
		return false;
	}
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(f->elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh)) continue;
		if (sh.sh_type == SHT_SYMTAB && !f->symtab) f->symtab = scn;
		if (sh.sh_type == SHT_DYNSYM && !f->dynsym) f->dynsym = scn;
	}
	return true;
}

static void efile_close(struct efile *f)
{
	free(f->load);
	f->load = NULL;
	if (f->fd < 0) return;
	elf_end(f->elf);
	close(f->fd);
	f->fd = -1;
}

static Elf_Scn *section_named(struct efile *f, const char *name, GElf_Shdr *out)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(f->elf, &shstrndx) != 0) return NULL;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(f->elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, out)) continue;
		const char *n = elf_strptr(f->elf, shstrndx, out->sh_name);
		if (n && strcmp(n, name) == 0) return scn;
	}
	return NULL;
}

/* A virtual address of the runtime file as a file offset. */
static bool vaddr_to_off(struct efile *rt, uint64_t v, uint64_t *off)
{
	if (!rt->load) {
		size_t n;
		if (elf_getphdrnum(rt->elf, &n) != 0) n = 0;
		rt->load = xcalloc(n + 1, sizeof *rt->load);
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(rt->elf, (int)i, &ph) && ph.p_type == PT_LOAD) rt->load[rt->nload++] = ph;
		}
	}
	for (size_t i = 0; i < rt->nload; i++) {
		const GElf_Phdr *ph = &rt->load[i];
		if (v >= ph->p_vaddr && v < ph->p_vaddr + ph->p_memsz) {
			*off = v - ph->p_vaddr + ph->p_offset;
			return true;
		}
	}
	return false;
}

static void add_sym(perfsym *s, uint64_t start, uint64_t size, uint8_t bind, const char *name)
{
	struct psym *p = VEC_PUSH(s->s, s->n, s->cap);
	p->start = start;
	p->end = start + size;
	p->bind = bind;
	p->seq = s->n - 1;
	p->name = (uint32_t)s->names.n;
	sbuf_adds(&s->names, name);
	sbuf_addc(&s->names, 0);
}

static void read_table(perfsym *s, struct efile *f, Elf_Scn *tab, struct efile *rt)
{
	GElf_Shdr sh;
	if (!gelf_getshdr(tab, &sh) || !sh.sh_entsize) return;
	Elf_Data *data = elf_getdata(tab, NULL);
	if (!data) return;
	size_t shstrndx;
	if (elf_getshdrstrndx(f->elf, &shstrndx) != 0) return;
	size_t nsyms = sh.sh_size / sh.sh_entsize;
	for (size_t i = 0; i < nsyms; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym)) continue;
		int type = GELF_ST_TYPE(sym.st_info);
		if (sym.st_name == 0 || sym.st_shndx == SHN_UNDEF) continue;
		bool label = type == STT_NOTYPE && sym.st_shndx != SHN_ABS &&
			     GELF_ST_VISIBILITY(sym.st_other) != STV_HIDDEN && GELF_ST_VISIBILITY(sym.st_other) != STV_INTERNAL;
		if (!label && type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT) continue;
		if (sym.st_shndx >= SHN_LORESERVE) continue;
		Elf_Scn *sec = elf_getscn(f->elf, sym.st_shndx);
		GElf_Shdr ssh;
		if (!sec || !gelf_getshdr(sec, &ssh)) continue;
		if (label) {
			const char *sn = elf_strptr(f->elf, shstrndx, ssh.sh_name);
			if (!sn || !strstr(sn, "text")) continue;
		}
		const char *name = elf_strptr(f->elf, sh.sh_link, sym.st_name);
		if (!name || !*name) continue;
		uint64_t off;
		if (!vaddr_to_off(rt, sym.st_value, &off)) off = sym.st_value - (ssh.sh_addr - ssh.sh_offset);
		add_sym(s, off, sym.st_size, (uint8_t)GELF_ST_BIND(sym.st_info), name);
	}
}

/* NAME@plt for each .rela.plt entry, at the PLT's file offsets. */
static void plt_syms(perfsym *s, struct efile *rt)
{
	if (!rt->dynsym) return;
	GElf_Shdr rel, plt, dsh;
	Elf_Scn *rs = section_named(rt, ".rela.plt", &rel);
	if (!rs || rel.sh_type != SHT_RELA || elf_ndxscn(rt->dynsym) != rel.sh_link) return;
	uint64_t off, entsz;
	GElf_Shdr sec;
	if (section_named(rt, ".plt.sec", &sec)) {
		off = sec.sh_offset;
		entsz = sec.sh_entsize ? sec.sh_entsize : 16;
	} else if (section_named(rt, ".plt", &plt) && plt.sh_entsize) {
		/* (perf makes none when the PLT does not say its entry size, as lld's do not) */
		entsz = plt.sh_entsize;
		off = plt.sh_offset + entsz; /* the PLT's header */
	} else {
		return;
	}
	Elf_Data *rd = elf_getdata(rs, NULL), *dd = elf_getdata(rt->dynsym, NULL);
	if (!rd || !dd || !gelf_getshdr(rt->dynsym, &dsh) || !rel.sh_entsize) return;
	size_t nrel = rel.sh_size / rel.sh_entsize;
	sbuf nm = { 0 };
	for (size_t i = 0; i < nrel; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		if (!gelf_getrela(rd, (int)i, &r) || !gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &sym)) continue;
		const char *name = elf_strptr(rt->elf, dsh.sh_link, sym.st_name);
		nm.n = 0;
		sbuf_adds(&nm, name ? name : "");
		sbuf_adds(&nm, "@plt");
		sbuf_addc(&nm, 0);
		add_sym(s, off, entsz, STB_GLOBAL, nm.p);
		off += entsz;
	}
	sbuf_free(&nm);
}

static void elf_start(void) { elf_version(EV_CURRENT); }

void perfsym_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, elf_start);
}

/* The name as perf shows it (demangled for ELF symbols), made in b. */
static const char *shown_in(const perfsym *s, uint32_t name, sbuf *b)
{
	const char *raw = s->names.p + name;
	if (!s->demangle) return raw;
	b->n = 0;
	if (!demangle_name(raw, strlen(raw), DEMANGLE_NO_PARAMS | DEMANGLE_NO_HASH | DEMANGLE_NM, b)) return raw;
	sbuf_addc(b, 0);
	return b->p;
}

/* The same in the table's scratch k. */
static const char *shown(perfsym *s, uint32_t name, int k) { return shown_in(s, name, &s->dm[k]); }

static unsigned underscores(const char *s)
{
	unsigned n = 0;
	while (s[n] == '_') n++;
	return n;
}

/* perf's choose_best_symbol: true when b is better than a */
static bool better(perfsym *s, const struct psym *a, const struct psym *b)
{
	uint64_t sa = a->end - a->start, sb = b->end - b->start;
	if (sa && !sb) return false;
	if (!sa && sb) return true;
	bool wa = a->bind == STB_WEAK, wb = b->bind == STB_WEAK;
	if (wb && !wa) return false;
	if (wa && !wb) return true;
	bool ga = a->bind == STB_GLOBAL, gb = b->bind == STB_GLOBAL;
	if (ga && !gb) return false;
	if (gb && !ga) return true;
	const char *na = shown(s, a->name, 0), *nb = shown(s, b->name, 1);
	unsigned ua = underscores(na), ub = underscores(nb);
	if (ub > ua) return false;
	if (ua > ub) return true;
	size_t la = strlen(na), lb = strlen(nb);
	return lb > la;
}

static void sort_stable(perfsym *s);

static void dedup(perfsym *s)
{
	struct psym *x = s->s;
	uint32_t k = 0;
	for (uint32_t i = 0; i < s->n; i++) {
		if (k && x[k - 1].start == x[i].start) {
			if (better(s, &x[k - 1], &x[i])) x[k - 1] = x[i];
		} else {
			x[k++] = x[i];
		}
	}
	s->n = k;
}

static void fixup_end(perfsym *s)
{
	struct psym *x = s->s;
	for (uint32_t i = 0; i + 1 < s->n; i++)
		if (x[i].end == x[i].start) x[i].end = x[i + 1].start;
	if (s->n && x[s->n - 1].end == x[s->n - 1].start) x[s->n - 1].end = ((x[s->n - 1].start + 4095) & ~4095ULL) + 4096;
}

/* One line of a kallsyms list (NUL-terminated, without its newline):
 * "ADDRESS TYPE NAME[\t[MODULE]]". */
static void kallsyms_line(perfsym *s, char *line)
{
	char *end;
	unsigned long long a = 0;
	/* the usual form, 16 hex digits or fewer and a space, read here;
	 * anything else as strtoull reads it */
	unsigned k = 0;
	for (int d; k <= 16 && (d = c_hexval(line[k])) >= 0; k++) a = a << 4 | (unsigned)d;
	if (k && k <= 16 && line[k] == ' ') end = line + k;
	else a = strtoull(line, &end, 16);
	if (end == line || *end != ' ' || !end[1] || end[2] != ' ') return;
	char type = end[1];
	char *name = end + 3;
	size_t nl = strcspn(name, "\t\n");
	bool module = name[nl] == '\t';
	name[nl] = 0;
	if (!*name) return;
	char t = (char)(type >= 'a' && type <= 'z' ? type - 32 : type);
	if (t != 'T' && t != 'W' && t != 'D' && t != 'B') return;
	/* the kernel's own symbols end a page past the last one */
	if (!module && a >= s->kend) s->kend = ((a + 4095) & ~4095ULL) + 4096;
	if (!s->text && strcmp(name, "_text") == 0) s->text = a;
	uint8_t bind = type == 'W' ? STB_WEAK : type >= 'A' && type <= 'Z' ? STB_GLOBAL : STB_LOCAL;
	struct psym *p = VEC_PUSH(s->s, s->n, s->cap);
	p->seq = s->n - 1;
	p->start = p->end = a;
	p->bind = bind;
	p->name = (uint32_t)s->names.n;
	sbuf_add(&s->names, name, nl);
	sbuf_addc(&s->names, 0);
}

perfsym *perfsym_kallsyms(const char *root, const char *path, int *why)
{
	sbuf full = { 0 };
	int fd = rp_open(root, path, &full, why);
	sbuf_free(&full);
	if (fd < 0) return NULL;
	perfsym *s = xcalloc(1, sizeof *s);
	/* read in large blocks and split here (/proc/kallsyms is 5 MB of
	 * short lines: getline and strtoull were a third of the reading) */
	size_t cap = 1 << 20, have = 0;
	char *buf = xmalloc(cap);
	for (;;) {
		if (cap - have < 2) buf = xrealloc(buf, cap *= 2); /* a line longer than the buffer */
		ssize_t k = read(fd, buf + have, cap - have - 1);
		if (k < 0 && errno == EINTR) continue;
		if (k <= 0) {
			if (k == 0 && have) { /* a last line without its newline */
				buf[have] = 0;
				kallsyms_line(s, buf);
			}
			break;
		}
		char *p = buf, *e = buf + have + k, *nl;
		while ((nl = memchr(p, '\n', (size_t)(e - p))) != NULL) {
			*nl = 0;
			kallsyms_line(s, p);
			p = nl + 1;
		}
		have = (size_t)(e - p);
		memmove(buf, p, have);
	}
	free(buf);
	close(fd);
	bool any = false;
	for (uint32_t i = 0; i < s->n && !any; i++) any = s->s[i].start != 0;
	if (!any) s->n = 0; /* kptr_restrict: all zero */
	sort_stable(s);
	fixup_end(s);
	dedup(s);
	return s;
}

uint64_t perfsym_text(const perfsym *s) { return s->text; }
uint64_t perfsym_kernel_end(const perfsym *s) { return s->kend; }
uint32_t perfsym_count(const perfsym *s) { return s->n; }

static void finish(perfsym *s)
{
	sort_stable(s);
	fixup_end(s);
	dedup(s);
}

/* sorted by start; symbols at one address keep the table's order (LSD
 * radix on the start, 8 bits a pass, skipping the digits all share: stable,
 * and a fifth of qsort's time on the large tables of rustc's libraries) */
static void sort_stable(perfsym *s)
{
	radix_sort_u64(s->s, s->n, sizeof *s->s, offsetof(struct psym, start));
}

perfsym *perfsym_load(const perfsym_file *paths, uint32_t n, int *why_last)
{
	perfsym_init();
	/* syms: the first with a .symtab; rt: the file mapped at run time, the
	 * last candidate (the recorded path), else the first with program
	 * headers that is not a debug file (a debug file's headers describe
	 * sections it does not hold) */
	struct efile syms = { .fd = -1 }, rt = { .fd = -1 }, f;
	bool rt_is_syms = false; /* the runtime file is the one with the .symtab */
	for (uint32_t i = 0; i < n; i++) {
		int why;
		bool opened = efile_open(paths[i].root, paths[i].path, &f, &why);
		if (why_last && i + 1 == n) *why_last = why;
		if (!opened) continue;
		bool runtime = f.eh.e_phnum && (i + 1 == n || f.dynsym);
		if (syms.fd < 0 && f.symtab) {
			syms = f;
			if (runtime && rt.fd < 0) rt_is_syms = true;
			continue;
		}
		if (runtime && rt.fd < 0 && !rt_is_syms) {
			rt = f;
			continue;
		}
		efile_close(&f);
	}
	if (syms.fd < 0 && rt.fd < 0) return NULL;
	perfsym *s = xcalloc(1, sizeof *s);
	s->demangle = true;
	struct efile *rtf = rt.fd >= 0 ? &rt : &syms;
	if (syms.fd >= 0) read_table(s, &syms, syms.symtab, rtf);
	else if (rt.dynsym) read_table(s, &rt, rt.dynsym, &rt);
	finish(s);
	/* perf makes the PLT's symbols only when the table gave some: a
	 * stripped executable exporting nothing (binutils' addr2line) has its
	 * PLT unnamed, [unknown] */
	uint32_t before = s->n;
	if (before) plt_syms(s, rtf);
	if (s->n != before) sort_stable(s); /* the PLT's symbols among the others */
	if (syms.fd >= 0) efile_close(&syms);
	if (rt.fd >= 0) efile_close(&rt);
	return s;
}

void perfsym_free(perfsym *s)
{
	if (!s) return;
	free(s->s);
	sbuf_free(&s->names);
	sbuf_free(&s->dm[0]);
	sbuf_free(&s->dm[1]);
	free(s);
}

const char *perfsym_find(perfsym *s, uint64_t off, uint64_t *symoff)
{
	return perfsym_find_r(s, off, symoff, &s->dm[0]);
}

const char *perfsym_find_r(const perfsym *s, uint64_t off, uint64_t *symoff, sbuf *dm)
{
	uint32_t lo = 0, hi = s->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (s->s[mid].start <= off) lo = mid + 1;
		else hi = mid;
	}
	if (lo == 0) return NULL;
	const struct psym *p = &s->s[lo - 1];
	if (off >= p->end && !(off == p->start)) return NULL;
	*symoff = off - p->start;
	return shown_in(s, p->name, dm);
}

bool perfsym_build_id(const char *root, const char *path, char *out)
{
	perfsym_init();
	struct efile f;
	int why;
	if (!efile_open(root, path, &f, &why)) return false;
	bool found = false;
	Elf_Scn *scn = NULL;
	while (!found && (scn = elf_nextscn(f.elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE) continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d) continue;
		size_t off = 0, no, dof;
		GElf_Nhdr nh;
		while ((off = gelf_getnote(d, off, &nh, &no, &dof)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && memcmp((char *)d->d_buf + no, "GNU", 4) == 0 &&
			    nh.n_descsz <= 20) {
				const unsigned char *b = (const unsigned char *)d->d_buf + dof;
				for (size_t i = 0; i < nh.n_descsz; i++) sprintf(out + 2 * i, "%02x", b[i]);
				out[2 * nh.n_descsz] = 0;
				found = true;
				break;
			}
		}
	}
	efile_close(&f);
	return found;
}
