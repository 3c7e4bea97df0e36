/* perfsym.h - the function symbols of an ELF file as perf's own tools
 * choose them, so that a perf.data read here names frames as `perf script`
 * does.  Through libelf: the table is .symtab from the first of the
 * candidate files that has one (a debug file by build id, the file
 * itself), else .dynsym; functions, objects and text labels, at file
 * offsets; of several at one address the one with a size, then not weak,
 * then global, then with fewer leading '_', then the longest name, then
 * the first; a symbol of no size ends where the next starts; PLT entries
 * get "NAME@plt" symbols from .rela.plt.  Names are demangled as perf does
 * (no argument lists). */
#ifndef SPAA_PERFSYM_H
#define SPAA_PERFSYM_H

#include <stdbool.h>
#include <stdint.h>
#include "util.h"

typedef struct perfsym perfsym;

/* A file to read: path under root, as a process chrooted there would see
 * it (root NULL or "": none).  Only regular files are opened, never
 * blocking, and nothing outside the root (rootpath.h). */
typedef struct perfsym_file { const char *root, *path; } perfsym_file;

/* Loads the table from the first readable of the n candidate files that
 * has a .symtab (else from the first with a .dynsym); the file mapped at
 * run time (program headers, PLT) is the last candidate, else the first
 * readable with program headers that is not a debug file.  Returns NULL
 * when none is readable.  *why_last (unless NULL): why the last candidate
 * was not opened (rootpath.h's RP_*; RP_OK: it was). */
perfsym *perfsym_load(const perfsym_file *paths, uint32_t n, int *why_last);
void perfsym_free(perfsym *s);

/* The kernel's symbols from a kallsyms list, the way perf reads one
 * (text, weak, data and bss symbols; of several at one address the global
 * one; each ending where the next starts), path under root (perfsym_file).
 * NULL when it is not a regular file that can be read, with *why (rootpath.h's
 * RP_*); no symbols when its addresses are all zero (kptr_restrict). */
perfsym *perfsym_kallsyms(const char *root, const char *path, int *why);
/* kallsyms: the address of _text there, 0 unknown. */
uint64_t perfsym_text(const perfsym *s);
/* kallsyms: where the kernel's own symbols end (the last one, not of a
 * module, ends a page on), 0 unknown. */
uint64_t perfsym_kernel_end(const perfsym *s);
uint32_t perfsym_count(const perfsym *s);

/* The symbol holding file offset off: its name (valid until the next
 * call) and the offset from its start; NULL when none. */
const char *perfsym_find(perfsym *s, uint64_t off, uint64_t *symoff);
/* The same with the demangled name made in the caller's dm (valid until
 * dm's next use): a loaded table is only read, so threads may look up
 * in it at once, each with a dm of its own. */
const char *perfsym_find_r(const perfsym *s, uint64_t off, uint64_t *symoff, sbuf *dm);

/* libelf's start (elf_version), before threads call perfsym_load. */
void perfsym_init(void);

/* The GNU build id of ELF file path under root (perfsym_file), in hex,
 * into out (>= 41 bytes); false when it has none or is not ELF. */
bool perfsym_build_id(const char *root, const char *path, char *out);

#endif
