/* fuzz_symtab.c - libFuzzer target for spaa-symbolize's text tables
 * (common/formats/symtab.c): the first byte picks the reader (0: kallsyms, 1: perf
 * map, 2: /proc/PID/maps, by its value mod 3), the rest is the file.  A bad
 * line ends in die(), which comes back here through cli_exit_override; a
 * table that was read is searched at the addresses of its own entries and
 * around them, and what it finds must hold the address.  Build: make fuzz. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"
#include "symtab.h"

static jmp_buf back;

static void come_back(int code)
{
	longjmp(back, code + 1);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	if (size < 1) return 0;
	/* compressed data is the input module's business (and fatal by design) */
	if (size >= 3 && ((data[1] == 0x28 && data[2] == 0xb5) || (data[1] == 0x1f && data[2] == 0x8b)))
		return 0;
	char path[] = "/tmp/spaa-fuzz-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0) return 0;
	if (write(fd, data + 1, size - 1) != (ssize_t)(size - 1)) {
		close(fd);
		unlink(path);
		return 0;
	}
	close(fd);
	static symtab t; /* static: a die() leaves it to the next run */
	symtab_free(&t);
	FILE *err = stderr;
	stderr = fopen("/dev/null", "w");
	cli_exit_override = come_back;
	if (!setjmp(back)) {
		switch (data[0] % 3) {
		case 0: symtab_read_kallsyms(&t, path); break;
		case 1: symtab_read_perfmap(&t, path); break;
		default: symtab_read_maps(&t, path); break;
		}
		/* what is found holds the address (entries may be empty or
		 * overlap: then nothing, or the one that starts last) */
		for (uint32_t i = 0; i < t.n; i++) {
			uint64_t at[3] = { t.e[i].start, t.e[i].start - 1, t.e[i].end };
			for (int k = 0; k < 3; k++) {
				const symtab_ent *e = symtab_find(&t, at[k]);
				if (e && (e->start > at[k] || at[k] >= e->end)) abort();
				if (e) (void)symtab_str(&t, e->name);
			}
		}
	}
	cli_exit_override = NULL;
	fclose(stderr);
	stderr = err;
	for (int f = 3; f < 64; f++) close(f); /* what a die() left open */
	unlink(path);
	return 0;
}
