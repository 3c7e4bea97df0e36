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

/* Loads the table from the first readable of the n candidate paths that
 * has a .symtab (else from the first with a .dynsym); runtime is the file
 * mapped at run time (program headers, PLT), NULL: the first readable.
 * Returns NULL when none is readable. */
perfsym *perfsym_load(const char *const *paths, uint32_t n);
void perfsym_free(perfsym *s);

/* The kernel's symbols from a kallsyms list, the way perf reads one
 * (text, weak, data and bss symbols; of several at one address the global
 * one; each ending where the next starts).  NULL when unreadable; no
 * symbols when its addresses are all zero (kptr_restrict). */
perfsym *perfsym_kallsyms(const char *path);
/* kallsyms: the address of _text there, 0 unknown. */
uint64_t perfsym_text(const perfsym *s);
/* kallsyms: where the kernel's own symbols end (the last one, not of a
 * module, ends a page on), 0 unknown. */
uint64_t perfsym_kernel_end(const perfsym *s);
uint32_t perfsym_count(const perfsym *s);

/* The symbol holding file offset off: its name (valid until the next
 * call) and the offset from its start; NULL when none. */
const char *perfsym_find(perfsym *s, uint64_t off, uint64_t *symoff);

/* libelf's start (elf_version), before threads call perfsym_load. */
void perfsym_init(void);

/* The GNU build id of ELF file path, in hex, into out (>= 41 bytes); false
 * when it has none or is not ELF. */
bool perfsym_build_id(const char *path, char *out);

#endif
