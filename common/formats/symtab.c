/* symtab.c - kallsyms, perf maps and /proc/PID/maps as sorted address
 * tables (see symtab.h). */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "input.h"
#include "symtab.h"

static uint32_t add_str(symtab *t, const char *p, size_t n)
{
	if (t->str.n == 0) sbuf_addc(&t->str, 0); /* offset 0: "" */
	if (n == 0) return 0;
	uint32_t off = (uint32_t)t->str.n;
	sbuf_add(&t->str, p, n);
	sbuf_addc(&t->str, 0);
	return off;
}



/* A hex number at *p (optional 0x), at most 16 digits; advances *p. */
static bool hex_at(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2;
	uint64_t v = 0;
	int nd = 0;
	while (s < end && c_hexval(*s) >= 0) {
		if (++nd > 16) return false;
		v = v << 4 | (uint64_t)c_hexval(*s++);
	}
	if (nd == 0) return false;
	*p = s;
	*out = v;
	return true;
}

static void skip_sp(const char **p, const char *end)
{
	while (*p < end && c_blank(**p)) (*p)++;
}

/* The next blank-separated word. */
static size_t word(const char **p, const char *end, const char **w)
{
	skip_sp(p, end);
	*w = *p;
	while (*p < end && !c_blank(**p)) (*p)++;
	return (size_t)(*p - *w);
}

static void add_ent(symtab *t, uint64_t start, uint64_t end, uint64_t off, uint32_t name, uint32_t mod)
{
	*VEC_PUSH(t->e, t->n, t->cap) = (symtab_ent){ start, end, off, name, mod };
}

static int by_start(const void *a, const void *b)
{
	const symtab_ent *x = a, *y = b;
	if (x->start != y->start) return x->start < y->start ? -1 : 1;
	/* the same start: the earlier line first (stable), by name offset */
	return x->name < y->name ? -1 : x->name > y->name;
}

typedef void (*line_fn)(symtab *t, const char *name, uint64_t ln, const char *p, const char *end, void *u);

/* path, or (fd >= 0) the file open as fd, named path */
static void read_lines(symtab *t, int fd, const char *path, line_fn fn, void *u)
{
	input *in = t->in = fd >= 0 ? input_open_fd(fd, path) : input_open(path);
	char *line;
	size_t len;
	while ((line = input_line(in, &len))) {
		if (len && line[len - 1] == '\r') len--;
		const char *p = line, *end = line + len;
		skip_sp(&p, end);
		if (p == end || *p == '#') continue;
		fn(t, input_name(in), input_lineno(in), p, end, u);
	}
	input_close(in);
	t->in = NULL;
}

/* ---- kallsyms ------------------------------------------------------------------- */

struct ksym { uint64_t addr; uint32_t name, mod; bool text; };
struct kread { struct ksym *s; uint32_t n, cap; };

static void kallsyms_line(symtab *t, const char *name, uint64_t ln, const char *p, const char *end, void *u)
{
	struct kread *k = u;
	uint64_t addr;
	const char *w;
	if (!hex_at(&p, end, &addr) || p == end || !c_blank(*p))
		die_at(name, ln, "not a kallsyms line (expected \"ADDRESS TYPE NAME [MODULE]\")");
	size_t tn = word(&p, end, &w);
	const char *nm;
	size_t nn = word(&p, end, &nm);
	if (tn != 1 || nn == 0)
		die_at(name, ln, "not a kallsyms line (expected \"ADDRESS TYPE NAME [MODULE]\")");
	const char *mod;
	size_t mn = word(&p, end, &mod);
	if (mn >= 2 && mod[0] == '[' && mod[mn - 1] == ']') {
		mod++;
		mn -= 2;
	} else if (mn) {
		die_at(name, ln, "not a kallsyms line: \"%.*s\" after the name is not a [module]", (int)mn, mod);
	}
	struct ksym *s = VEC_PUSH(k->s, k->n, k->cap);
	t->scratch = k->s; /* freed by symtab_free() if a later line is bad */
	s->addr = addr;
	s->text = strchr("tTwW", *w) != NULL;
	s->name = s->text ? add_str(t, nm, nn) : 0;
	s->mod = s->text ? add_str(t, mod, mn) : 0;
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	if (x->addr != y->addr) return x->addr < y->addr ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

void symtab_read_kallsyms(symtab *t, const char *path)
{
	symtab_read_kallsyms_fd(t, -1, path);
}

void symtab_read_kallsyms_fd(symtab *t, int fd, const char *path)
{
	struct kread k = { 0 };
	read_lines(t, fd, path, kallsyms_line, &k);
	bool any = false;
	for (uint32_t i = 0; i < k.n && !any; i++) any = k.s[i].addr != 0;
	if (any) {
		xqsort(k.s, k.n, sizeof *k.s, ksym_cmp);
		for (uint32_t i = 0; i < k.n; i++) {
			if (!k.s[i].text) continue;
			uint32_t j = i + 1;
			while (j < k.n && k.s[j].addr == k.s[i].addr) j++;
			if (j == k.n) break; /* the last symbol: no end */
			/* of several names at one address, the first read */
			if (i > 0 && k.s[i - 1].addr == k.s[i].addr && k.s[i - 1].text) continue;
			add_ent(t, k.s[i].addr, k.s[j].addr, 0, k.s[i].name, k.s[i].mod);
		}
	}
	free(k.s);
	t->scratch = NULL;
}

/* ---- perf maps -------------------------------------------------------------------- */

static void perfmap_line(symtab *t, const char *name, uint64_t ln, const char *p, const char *end, void *u)
{
	(void)u;
	uint64_t start, size;
	if (!hex_at(&p, end, &start) || p == end || !c_blank(*p)) goto bad;
	skip_sp(&p, end);
	if (!hex_at(&p, end, &size) || p == end || !c_blank(*p)) goto bad;
	skip_sp(&p, end);
	if (p == end || start + size < start) goto bad;
	add_ent(t, start, start + size, 0, add_str(t, p, (size_t)(end - p)), 0); /* the rest: names may hold blanks */
	return;
bad:
	die_at(name, ln, "not a perf map line (expected \"START SIZE NAME\" in hex)");
}

void symtab_read_perfmap(symtab *t, const char *path)
{
	symtab_read_perfmap_fd(t, -1, path);
}

void symtab_read_perfmap_fd(symtab *t, int fd, const char *path)
{
	read_lines(t, fd, path, perfmap_line, NULL);
	xqsort(t->e, t->n, sizeof *t->e, by_start);
}

/* ---- /proc/PID/maps ------------------------------------------------------------------ */

static void maps_line(symtab *t, const char *name, uint64_t ln, const char *p, const char *end, void *u)
{
	(void)u;
	uint64_t start, stop, off;
	const char *w;
	if (!hex_at(&p, end, &start) || p == end || *p++ != '-') goto bad;
	if (!hex_at(&p, end, &stop) || stop < start) goto bad;
	if (word(&p, end, &w) == 0) goto bad;          /* perms */
	skip_sp(&p, end);
	if (!hex_at(&p, end, &off)) goto bad;
	if (word(&p, end, &w) == 0) goto bad;          /* dev */
	if (word(&p, end, &w) == 0) goto bad;          /* inode */
	skip_sp(&p, end);
	add_ent(t, start, stop, off, add_str(t, p, (size_t)(end - p)), 0); /* the path, blanks and all */
	return;
bad:
	die_at(name, ln, "not a /proc/PID/maps line (expected \"START-END PERMS OFFSET DEV INODE [PATH]\")");
}

void symtab_read_maps(symtab *t, const char *path)
{
	symtab_read_maps_fd(t, -1, path);
}

void symtab_read_maps_fd(symtab *t, int fd, const char *path)
{
	read_lines(t, fd, path, maps_line, NULL);
	xqsort(t->e, t->n, sizeof *t->e, by_start);
}

/* ---- search ----------------------------------------------------------------------------- */

const symtab_ent *symtab_find(const symtab *t, uint64_t addr)
{
	uint32_t lo = 0, hi = t->n; /* the first entry with start > addr */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (t->e[mid].start <= addr) lo = mid + 1;
		else hi = mid;
	}
	if (lo == 0) return NULL;
	const symtab_ent *e = &t->e[lo - 1];
	return addr < e->end ? e : NULL;
}

void symtab_free(symtab *t)
{
	if (t->in) input_close(t->in);
	free(t->scratch);
	free(t->e);
	sbuf_free(&t->str);
	memset(t, 0, sizeof *t);
}
