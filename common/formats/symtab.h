/* symtab.h - address tables read from text: the kernel's symbol list
 * (/proc/kallsyms), a JIT's perf map (/tmp/perf-PID.map) and a process's
 * mappings (/proc/PID/maps, saved).  Each is sorted once and searched by
 * address: the entry whose range holds it. */
#ifndef SPAA_SYMTAB_H
#define SPAA_SYMTAB_H

#include <stdint.h>
#include <stdbool.h>
#include "util.h"

typedef struct symtab_ent {
	uint64_t start, end;  /* [start, end) */
	uint64_t off;         /* maps: the file offset of start */
	uint32_t name;        /* symbol name, or the mapped file's path (maps) */
	uint32_t mod;         /* kallsyms: module name ("" for the kernel itself) */
} symtab_ent;

typedef struct symtab {
	symtab_ent *e;
	uint32_t n, cap;
	sbuf str;             /* the strings, NUL-terminated, at offsets */
	/* while a reader runs: the file and the reader's scratch array, which
	 * symtab_free() releases when a bad line ended the read (in a caller
	 * that comes back from die(), as the fuzz target does) */
	struct input *in;
	void *scratch;
} symtab;

/* Each reader adds the file's entries to an empty table and sorts it.  A
 * line it cannot read is an error naming file and line (exit 1).
 * kallsyms: "ADDR TYPE NAME [MODULE]" lines; text symbols (t, T, w, W) only,
 * each ending where the next symbol of any type starts (the last one, which
 * has no end, is left out); all-zero addresses (kptr_restrict) give an empty
 * table.  perf map: "START SIZE NAME" in hex.  maps: "START-END PERMS OFFSET
 * DEV INODE [PATH]". */
void symtab_read_kallsyms(symtab *t, const char *path);
void symtab_read_perfmap(symtab *t, const char *path);
void symtab_read_maps(symtab *t, const char *path);
/* The same of a file open as fd (closed here), named path in messages:
 * for a file named by input data, opened by rootpath.h as a regular file. */
void symtab_read_kallsyms_fd(symtab *t, int fd, const char *path);
void symtab_read_perfmap_fd(symtab *t, int fd, const char *path);
void symtab_read_maps_fd(symtab *t, int fd, const char *path);

/* The entry whose range holds addr, or NULL. */
const symtab_ent *symtab_find(const symtab *t, uint64_t addr);
static inline const char *symtab_str(const symtab *t, uint32_t off) { return t->str.p + off; }
void symtab_free(symtab *t);

#endif
