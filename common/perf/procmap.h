/* procmap.h - the processes of a perf capture and their mappings, replayed
 * from its records the way perf's own tools keep them (threads found or
 * made on first sight with the command name ":TID", FORK copying the
 * parent's command name and, for a new process, its mappings; a thread of
 * a process sharing its leader's; COMM renaming; MMAP and MMAP2 cutting
 * what they overlap), and the names of addresses in them: ELF symbol
 * tables through elfsym.h (files found under a symfs root, else by build id
 * in perf's build-id cache), the kernel's through a kallsyms list
 * (symtab.h), JIT code through /tmp/perf-PID.map.  Names are perf's: C++
 * and Rust symbols demangled without argument lists, as `perf script`
 * prints them. */
#ifndef SPAA_PROCMAP_H
#define SPAA_PROCMAP_H

#include <stdbool.h>
#include <stdint.h>
#include "elfsym.h"
#include "util.h"

typedef struct procmap procmap;
struct unwind_map;

typedef struct pm_opts {
	const char *symfs;     /* root the recorded paths are under, NULL none */
	const char *debug_dir; /* perf's build-id cache, NULL: $HOME/.debug */
	const char *kallsyms;  /* a kallsyms file, NULL: /proc/kallsyms when the capture is of this kernel */
	bool inlines;          /* procmap_inlined() will be asked (DWARF read through elfsym.h) */
} pm_opts;

procmap *procmap_new(const pm_opts *o);
void procmap_free(procmap *m);

/* What the capture says of the machine it ran on: the kernel's build id
 * (hex, NULL unknown) and release (NULL unknown), to decide whether
 * /proc/kallsyms describes its kernel.  Call before the first lookup. */
void procmap_machine(procmap *m, const char *kernel_build_id, const char *osrelease);
/* Starts reading, in threads of their own, the kernel's symbols (when the
 * capture names its kernel) and the symbol tables of the files it has
 * build ids for (after procmap_machine and procmap_build_id): the lookups
 * take them from there, the same tables as read at the first lookup.
 * With dwarf (a capture whose user stacks are unwound, whose addresses
 * are all looked up in DWARF), those files' DWARF too (elfsym_ahead).
 * For -j 2 and more. */
void procmap_prefetch(procmap *m, unsigned threads, bool dwarf);
/* A build id the capture recorded for a file (hex). */
void procmap_build_id(procmap *m, const char *filename, const char *build_id_hex);

/* Records */
void procmap_comm(procmap *m, int32_t pid, int32_t tid, const char *comm);
void procmap_fork(procmap *m, int32_t pid, int32_t ppid, int32_t tid, int32_t ptid, bool clone_maps);
/* prot and flags as mmap(2) has them: anonymous executable memory is
 * JIT code named by /tmp/perf-PID.map, as perf names it. */
void procmap_mmap(procmap *m, int32_t pid, bool kernel, uint64_t start, uint64_t len, uint64_t pgoff,
		  uint32_t prot, uint32_t flags, const char *filename, const uint8_t *build_id, uint32_t build_id_size);

/* The thread tid of process pid (made when new); its command name. */
uint32_t procmap_thread(procmap *m, int32_t pid, int32_t tid);
sstr procmap_comm_of(const procmap *m, uint32_t thread);
int32_t procmap_pid_of(const procmap *m, uint32_t thread);
/* What a thread's frames and context depend on, as four numbers that
 * change whenever it does: its mappings and their version, its command
 * name, the kernel's mappings' version. */
void procmap_state(const procmap *m, uint32_t thread, uint32_t out[4]);

/* The mapping of ip in thread (kernel: the kernel's mappings): the dso
 * (UINT32_MAX: no mapping) and ip as perf prints it (the address in the
 * dso: file offset for files, ip itself for the kernel and JIT code). */
uint32_t procmap_find(procmap *m, uint32_t thread, bool kernel, uint64_t ip, uint64_t *addr);
const char *procmap_dso_name(const procmap *m, uint32_t dso);
/* The symbol of addr in dso, appended to name, and its offset; false when
 * it has none. */
bool procmap_symbol(procmap *m, uint32_t dso, uint64_t addr, sbuf *name, uint64_t *off);
/* procmap_symbol in two steps, for a caller that looks the symbol up on
 * another thread: the symbol table that names addr of dso (*t, NULL when
 * it has none: no symbol) and the address to look up in it with
 * perfsym_find (*taddr), its table read here when it is the first time;
 * false when dso is not named from such a table (procmap_symbol names it).
 * The table is the caller's to look up in until procmap_free, on one
 * thread: perfsym_find is not to be called on it on another at the same
 * time. */
struct perfsym;
bool procmap_symtab(procmap *m, uint32_t dso, uint64_t addr, struct perfsym **t, uint64_t *taddr);

/* The functions inlined at addr in dso (an ELF file), innermost first,
 * from its DWARF (elfsym.h, demangled as perf shows names); *n 0 when none.
 * Valid until the next call. */
const char *const *procmap_inlined(procmap *m, uint32_t dso, uint64_t addr, uint32_t *n);
/* The functions addr2line -f -i names at addr in dso (an ELF file), as
 * perf names the frames of a dwarf-unwound address: innermost first, the
 * calls inlined there, then the function they are in as DWARF names it
 * (else as the symbol table does), demangled as perf shows names.  *n 0
 * when DWARF has no line for addr (addr2line's "??:0": perf then keeps
 * the symbol's frame).  Valid until the next call. */
const char *const *procmap_addr2line(procmap *m, uint32_t dso, uint64_t addr, uint32_t *n);
/* The source line of addr in dso (an ELF file) from its DWARF line table,
 * "FILE:LINE" with the file's base name, as perf script -F+srcline and perf
 * report --sort srcline print it: appended to out; false when none.  The
 * pointers procmap_inlined and procmap_addr2line gave are no longer valid. */
bool procmap_srcline(procmap *m, uint32_t dso, uint64_t addr, sbuf *out);

/* For unwinding dwarf captures (unwind.h): a number that changes whenever
 * the mappings of thread's process change, and those of its mappings whose
 * file can be read (perf's build-id cache copy, else the recorded path under --symfs),
 * valid until the next call. */
uint64_t procmap_maps_version(const procmap *m, uint32_t thread);
uint32_t procmap_unwind_maps(procmap *m, uint32_t thread, const struct unwind_map **maps);

/* DWARF looked up ahead on other threads (--inline): n aids of the
 * files' look-ups (elfsym_aid_new), made before the threads start
 * (false: none, no inlined calls are asked or elfsym_aids_work says no).
 * procmap_aid, on thread k, answers asks (path: an unwind_map's name;
 * addr: a file offset, as procmap_find gives it) as elfsym_aid_many does,
 * ahead of procmap_inlined, procmap_addr2line and procmap_srcline, which
 * then take the answers. */
bool procmap_aids(procmap *m, unsigned n);
void procmap_aid(procmap *m, unsigned k, const elfsym_ask *asks, uint32_t n, bool (*ahead)(void *, uint64_t),
		 void *ctx);

/* Warnings worth one line at the end (files not found ...), or NULL. */
const char *procmap_note(procmap *m);

#endif
