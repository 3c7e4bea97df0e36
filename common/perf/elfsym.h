/* elfsym.h - function names, source lines and inlined calls for addresses
 * in ELF files, through elfutils' libdwfl and libdw (no ELF or DWARF parsing
 * of our own).
 *
 * Each file is opened once, the first time it is asked about, and kept: its
 * symbol table (.symtab, else .dynsym, also from a separate debug file), its
 * program headers (to turn file offsets into addresses) and its DWARF, found
 * in the file itself, by build id under the debug directory
 * (DIR/xx/yyyy.debug), or the standard ways libdwfl knows (.gnu_debuglink
 * next to the file, /usr/lib/debug).  The answer for one address is the
 * physical function (from the symbol table, else DWARF) and, with DWARF, the
 * functions inlined at that address and the source line of each, as
 * dwarf_getscopes gives them: for a compilation unit asked about more than
 * twice, from its scopes read once and kept (memory: the units used). */
#ifndef SPAA_ELFSYM_H
#define SPAA_ELFSYM_H

#include <stdint.h>
#include <stdbool.h>
#include "util.h"

typedef struct elfsym elfsym;

/* Why an address got no name. */
enum elfsym_why {
	ES_OK = 0,
	ES_MISSING,      /* the file cannot be opened */
	ES_NOT_ELF,      /* not an ELF file libelf can read */
	ES_NO_SYMBOLS,   /* no symbol table and no DWARF: stripped */
	ES_OUTSIDE,      /* the address is in no symbol (or in no segment) */
	ES_NEEDS_MAP,    /* a run-time address of a position-independent file,
			  * and no mapping to take the load address from */
	ES_FIFO,         /* not a regular file, not opened (rootpath.h) */
	ES_DEVICE,
	ES_SOCKET,
	ES_DIRECTORY,
	ES_LOOP,         /* too many symbolic links */
	ES_NWHY
};
/* "file missing", "stripped", ... */
const char *elfsym_why_text(int why);

/* root: the directory the paths asked about are under, as after chroot(2)
 * (NULL: none; rootpath.h), the debug files too; debug_dir: the build-id
 * directory, a root of its own (NULL: the root's /usr/lib/debug/.build-id).
 * Only regular files are opened, never outside the root. */
elfsym *elfsym_new(const char *root, const char *debug_dir);
void elfsym_free(elfsym *e);

/* A frame's DWARF function, for naming it as binutils does. */
typedef struct elfsym_fn {
	uint64_t die;          /* its DIE's offset in the DWARF + 1 (0: none) */
	bool plain;            /* named by its DW_AT_name: no linkage name */
	bool at_sym;           /* it starts where the symbol holding the address does */
} elfsym_fn;

/* One resolved address: n frames, innermost first; frames 0..n-2 are
 * inlined into the next one, frame n-1 is the physical function.  The
 * strings are valid until the next lookup. */
typedef struct elfsym_res {
	uint32_t n;
	const char **func;
	const char **srcline;  /* NULL entries: no line */
	bool has_symoff;
	uint64_t symoff;       /* the address less the physical symbol's start */
	uint64_t vaddr;        /* the address in the file's own address space */
	char build_id[80];     /* lowercase hex, "" when the file has none */
	const char *dwarf_func; /* the DWARF function holding the address, as
				 * func names it (the physical frame's name
				 * from DWARF, not the symbol table), NULL: none */
	bool has_line;         /* the DWARF line table has a row for the address */
	const struct elfsym_fn *fn; /* per frame: its DWARF function (elfsym_fn) */
	const char *sym_first; /* of the symbols where the physical one starts,
				 * the first in the table (binutils' choice) */
	bool mangled;          /* the unit's language mangles names (C++): not
				 * C nor assembly, whose DW_AT_name binutils
				 * takes for the linkage name */
} elfsym_res;

/* Resolves addr in file path: a link-time virtual address, or a file
 * offset when is_offset (also when addr is below the first segment of a
 * fixed-address executable).  Returns ES_OK with *out filled in, else why not. */
int elfsym_lookup(elfsym *e, const char *path, uint64_t addr, bool is_offset, elfsym_res *out);

/* The separate debug file a .gnu_debuglink names (a file name, its CRC-32
 * checked) for file_name (a host path, under root when it begins with
 * root): next to the file, in its .debug/ and under the root's
 * /usr/lib/debug; or, crc 0, the .gnu_debugaltlink path of dwz (from
 * file_name's directory).  Every path under root (NULL: none), a regular
 * file opened without blocking (rootpath.h): its descriptor, its host path
 * in *name_out (malloc'ed); -1 when there is none.  For a libdwfl
 * find_debuginfo callback, which libdwfl's standard one is not (it opens
 * any path, FIFOs too). */
int elfsym_find_debuglink(const char *root, const char *file_name, const char *debuglink_file, uint32_t debuglink_crc,
			  char **name_out);

/* Files to open ahead on other threads, before the look-ups come to them
 * (a reader's symbol loaders): elfsym_ahead lists path (call before any
 * look-up and before the threads start); elfsym_prepare, on any thread,
 * opens the next one nobody took as its first look-up would (the module,
 * its symbols sorted, its DWARF read and decompressed), false when none is
 * left or after elfsym_ahead_stop.  A look-up in a listed file takes it
 * opened, waits for the thread opening it, or opens it itself.  The
 * answers are the same either way. */
void elfsym_ahead(elfsym *e, const char *path);
bool elfsym_prepare(elfsym *e);
void elfsym_ahead_stop(elfsym *e);

/* Look-ups on other threads, ahead of the owner's: an aid (made on the
 * owner's thread before the threads start, one a thread, freed after them
 * and before the owner) answers addresses with DWARF of its own, read
 * from the owner's decompressed sections, in the files the owner has read
 * (the others it keeps for its next call).  elfsym_aid_many takes
 * asks[0..n) (addr a file offset; order: when the owner will come to it,
 * the lower the sooner) a compilation unit at a time, but those whose
 * scopes the owner has cached, the latest first, while ahead(ctx, the
 * unit's first order) says the owner is still before it.  The owner's
 * elfsym_lookup of those addresses then takes the aid's answers, the same
 * as its own would be. */
typedef struct elfsym_ask {
	const char *path;
	uint64_t addr;
	uint64_t order;
} elfsym_ask;
elfsym *elfsym_aid_new(elfsym *owner);
/* Whether aids can be made: they find units by address as this libdwfl
 * does (elfutils before 0.191; with a later one, none are). */
bool elfsym_aids_work(void);
void elfsym_aid_many(elfsym *aid, const elfsym_ask *asks, uint32_t n, bool (*ahead)(void *ctx, uint64_t order),
		     void *ctx);
/* The number of answers the owner's aids gave. */
uint32_t elfsym_aid_answers(elfsym *owner);

/* Whether path (as given, under root) is an ELF file elfsym can read. */
bool elfsym_readable(elfsym *e, const char *path);

#endif
