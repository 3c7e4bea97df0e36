/* test_elfsym.c - unit tests of common/perf/elfsym's aids: the answers an
 * aid gives its owner (elfsym_aid_many) are the owner's own, byte for byte,
 * for every address in steps through the code of this test's executable
 * (built with -O2 -g: units with inlined calls) and of libc (with its
 * separate debug file, when installed: compressed sections, which the
 * owner's libdw decompresses and the aid's reads; skipped without), and
 * of copies of the executable with its DWARF changed: compressed, GNU's
 * .zdebug sections and a dwz link (not offered to the aid), no
 * .debug_aranges. */
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfsym.h"
#include "util.h"
#include "tap.h"

/* The file offsets of path's .text, or false. */
static bool text_of(const char *path, uint64_t *off, uint64_t *size)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0) return false;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	size_t shstrndx;
	bool found = false;
	if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0)
		for (Elf_Scn *scn = NULL; !found && (scn = elf_nextscn(elf, scn));) {
			GElf_Shdr sh;
			const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
			if (name && !strcmp(name, ".text")) {
				*off = sh.sh_offset;
				*size = sh.sh_size;
				found = true;
			}
		}
	if (elf) elf_end(elf);
	close(fd);
	return found;
}

/* One look-up as text: its status and every field of its answer. */
static void put_res(sbuf *b, int why, const elfsym_res *r)
{
	sbuf_printf(b, "%d %u", why, r->n);
	for (uint32_t k = 0; k < r->n; k++)
		sbuf_printf(b, " [%s|%s|%llu|%d|%d]", r->func[k], r->srcline[k] ? r->srcline[k] : "-",
			    (unsigned long long)r->fn[k].die, r->fn[k].plain, r->fn[k].at_sym);
	sbuf_printf(b, " %d %llu %llx %s %s %d %s %d\n", r->has_symoff, (unsigned long long)r->symoff,
		    (unsigned long long)r->vaddr, r->build_id, r->dwarf_func ? r->dwarf_func : "-", r->has_line,
		    r->sym_first ? r->sym_first : "-", r->mangled);
}

static bool always(void *ctx, uint64_t order)
{
	(void)ctx, (void)order;
	return true;
}

/* The owner's answers to the addresses of path's code, every step-th,
 * alone (a) and after an aid's (b): the same; how many the aid gave (most
 * when offered, else none).  Skipped when the owner finds no line in it
 * and lines_needed. */
static void check_file(const char *path, uint64_t step, bool offered, bool lines_needed)
{
	uint64_t off, size;
	if (!text_of(path, &off, &size)) {
		diag("%s: no .text, skipped", path);
		return;
	}
	sbuf a = { 0 }, b = { 0 };
	elfsym_res r;
	elfsym *alone = elfsym_new(NULL, NULL);
	uint32_t lines = 0;
	for (uint64_t x = off; x < off + size; x += step) {
		put_res(&a, elfsym_lookup(alone, path, x, true, &r), &r);
		lines += r.has_line;
	}
	elfsym_free(alone);
	if (!lines && lines_needed) {
		diag("%s: no DWARF, skipped", path);
		sbuf_free(&a);
		return;
	}

	elfsym *owner = elfsym_new(NULL, NULL);
	elfsym *aid = elfsym_aid_new(owner);
	/* the owner reads the file first (then offers it), the aid answers
	 * the rest, latest first */
	put_res(&b, elfsym_lookup(owner, path, off, true, &r), &r);
	uint32_t n = 0, cap = 0;
	elfsym_ask *asks = NULL;
	for (uint64_t x = off + step; x < off + size; x += step)
		*VEC_PUSH(asks, n, cap) = (elfsym_ask){ path, x, x };
	elfsym_aid_many(aid, asks, n, always, NULL);
	uint32_t given = elfsym_aid_answers(owner);
	for (uint64_t x = off + step; x < off + size; x += step) put_res(&b, elfsym_lookup(owner, path, x, true, &r), &r);
	elfsym_free(aid);
	elfsym_free(owner);
	free(asks);
	if (offered) ok(given > n / 4, "%s: the aid answered %u of %u addresses", path, given, n);
	else ok(given == 0, "%s: the aid answered none (%u): nothing for it", path, given);
	ok(a.n == b.n && !memcmp(a.p, b.p, a.n), "%s: the owner's answers with the aid's are its own", path);
	if (a.n != b.n || memcmp(a.p, b.p, a.n)) {
		size_t i = 0;
		while (i < a.n && i < b.n && a.p[i] == b.p[i]) i++;
		while (i > 0 && a.p[i - 1] != '\n') i--;
		diag("alone: %.300s", a.p + i);
		diag("aided: %.300s", b.p + i);
	}
	sbuf_free(&a);
	sbuf_free(&b);
}

int main(void)
{
	char self[4096];
	ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
	if (k <= 0) return 1;
	self[k] = 0;
	if (!elfsym_aids_work()) {
		diag("elfutils %s: no aids (they find units as elfutils 0.190 and before do)", dwfl_version(NULL));
		return done_testing();
	}
	check_file(self, 3, true, true);
	/* libc: its debug file by build id (libc6-dbg) */
	const char *libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	if (access(libc, R_OK) == 0) check_file(libc, 61, true, true);
	/* copies of this executable with its DWARF changed (objcopy): its
	 * sections compressed (the owner decompresses them, the aid reads
	 * them); GNU's .zdebug ones (not offered: libdw would decompress them
	 * in the shared handle); a dwz link (not offered: the aid's libdw
	 * would open the file it names); no .debug_aranges (no unit found by
	 * address, by the owner or the aid: the aid leaves them) */
	char dir[] = "/tmp/test_elfsym.XXXXXX";
	if (!mkdtemp(dir)) return 1;
	/* a dwz link to a file outside any root: an aid's libdw would open
	 * it itself */
	char alt[4200], altarg[4300];
	snprintf(alt, sizeof alt, "%s/altlink", dir);
	FILE *af = fopen(alt, "wb");
	if (!af) return 1;
	fwrite("/etc/passwd\0" "0123456789abcdefghij", 1, 32, af);
	fclose(af);
	snprintf(altarg, sizeof altarg, "--add-section .gnu_debugaltlink='%s'", alt);
	const struct { const char *name, *args; bool offered, lines; } v[] = {
		{ "gabi", "--compress-debug-sections=zlib-gabi", true, true },
		{ "gnu", "--compress-debug-sections=zlib-gnu", false, true },
		{ "noaranges", "--remove-section=.debug_aranges", false, false },
		{ "dwz", altarg, false, true },
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		char path[4200], cmd[9000];
		snprintf(path, sizeof path, "%s/%s", dir, v[i].name);
		snprintf(cmd, sizeof cmd, "objcopy %s '%s' '%s' 2> /dev/null", v[i].args, self, path);
		if (system(cmd) != 0) {
			diag("objcopy %s failed: %s skipped", v[i].args, v[i].name);
			continue;
		}
		check_file(path, 3, v[i].offered, v[i].lines);
		unlink(path);
	}
	unlink(alt);
	rmdir(dir);
	return done_testing();
}
