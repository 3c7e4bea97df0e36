/* unwind.h - user call stacks from a sample's registers and a copy of its
 * stack (`perf record --call-graph dwarf`: PERF_SAMPLE_REGS_USER and
 * PERF_SAMPLE_STACK_USER), unwound with elfutils' libdwfl (the CFI of
 * .eh_frame or .debug_frame, dwfl_attach_state and dwfl_getthread_frames),
 * as perf itself does (tools/perf/util/unwind-libdw.c).
 *
 * The caller gives, with each sample, the process's executable mappings
 * (start, end, file offset and the local file to read: the caller has
 * already applied --root/--symfs and the build-id lookup) and a version
 * number that changes whenever they change.  Per process, the unwinder keeps
 * one libdwfl session (Dwfl) with the modules unwinding went through,
 * reported the first time a frame's address falls in them, kept when the
 * version changes (a mapping the same as one gone: its module's again),
 * made afresh only when another file is mapped where a module was, or a
 * frame is in a module whose mappings are gone.  A separate debug file is
 * given to libdwfl only when it has a .debug_frame (decompressed once,
 * into a memory file, when its sections are compressed).  At most
 * UNWIND_MAX_PROCS sessions are kept, the
 * least recently used one closed first, so memory and open files are
 * bounded by that many processes' modules, never by the number of samples.
 *
 * An unwinder is used by one thread at a time (a thread decoding samples in
 * parallel needs one of its own).
 *
 * Registers: x86_64 (perf's register numbers of
 * arch/x86/include/uapi/asm/perf_regs.h) and aarch64
 * (arch/arm64/include/uapi/asm/perf_regs.h), 64-bit processes only. */
#ifndef SPAA_UNWIND_H
#define SPAA_UNWIND_H

#include <stdbool.h>
#include <stdint.h>

/* The deepest user stack unwound: perf's own default (PERF_MAX_STACK_DEPTH,
 * `perf script --max-stack`), so the two give the same depth. */
#define UNWIND_MAX_DEPTH 127
/* libdwfl sessions kept (one per process). */
#define UNWIND_MAX_PROCS 32

enum unwind_arch { UNWIND_ARCH_NONE = 0, UNWIND_X86_64, UNWIND_AARCH64 };

/* The architecture of perf's HEADER_ARCH text ("x86_64", "aarch64"), or
 * UNWIND_ARCH_NONE when the unwinder does not know its registers. */
int unwind_arch_from_name(const char *name);

/* PERF_SAMPLE_REGS_ABI_* */
enum { UNWIND_ABI_NONE = 0, UNWIND_ABI_32 = 1, UNWIND_ABI_64 = 2 };

typedef struct unwind_map {
	uint64_t start, end;   /* [start, end) in the process */
	uint64_t pgoff;        /* the file offset mapped at start */
	const char *path;      /* the file to read, NULL or "" when there is none:
				* a host path (already resolved under the
				* root), opened only if a regular file */
	const char *name;      /* the file as its look-ups name it (procmap_aid),
				* NULL: not a file's; kept by the caller while
				* the mapping is in use */
} unwind_map;

typedef struct unwind_sample {
	int64_t pid;
	/* the process's mappings (the executable ones at least), any order,
	 * and a number that changes whenever they change: they are copied
	 * when it differs from the last sample of the process */
	const unwind_map *maps;
	uint32_t nmaps;
	uint64_t maps_version;
	/* PERF_SAMPLE_REGS_USER: the abi, the attribute's sample_regs_user
	 * mask and nregs 64-bit values (native byte order, perhaps unaligned),
	 * one per bit set in the mask, lowest bit first */
	uint64_t abi;
	uint64_t regs_mask;
	const uint8_t *regs;
	uint32_t nregs;
	/* PERF_SAMPLE_STACK_USER: the dyn_size bytes saved from the stack
	 * pointer up */
	const uint8_t *stack;
	uint64_t stack_size;
} unwind_sample;

typedef struct unwind unwind;

/* root: the directory the mapped files are under (--symfs; NULL: none),
 * their separate debug files (.debug_frame of stripped files) sought there
 * as after chroot(2) (rootpath.h), by build id in debug_dir (a root of its
 * own; NULL: the root's /usr/lib/debug/.build-id) and by .gnu_debuglink.
 * Only regular files are opened, never blocking, nothing outside. */
unwind *unwind_new(int arch, const char *root, const char *debug_dir);
void unwind_free(unwind *u);

/* Why a stack ended before its outermost frame. */
enum unwind_why {
	UW_OK = 0,       /* the outermost frame, or the depth limit */
	UW_NO_REGS,      /* no user registers (abi none): no user stack */
	UW_BAD_REGS,     /* a 32-bit process (the pc alone), or no pc or
			  * stack pointer (no frames) */
	UW_NO_MODULE,    /* no readable file at an address */
	UW_STOPPED,      /* libdwfl could not go further (no CFI, memory
			  * outside the saved stack, ...) */
	UW_NWHY
};
const char *unwind_why_text(int why);

/* Whether unwind_stack needs the mappings of process pid at version
 * maps_version (false: it has them from an earlier sample, the caller may
 * pass none). */
bool unwind_need_maps(const unwind *u, int64_t pid, uint64_t maps_version);

/* Unwinds sample s: the addresses of its user frames into ips[0..n), leaf
 * first, n <= max (at most UNWIND_MAX_DEPTH is useful): the sampled pc, then
 * each caller's return address less one (the call instruction, as perf
 * script prints them; signal frames' addresses as they are).  A stack that
 * runs past the saved copy ends with UINT64_MAX (a return address read as
 * 0, less one), as perf script ends it; the copy's last word is not read,
 * as perf script (with libunwind) does not.  A 32-bit process gives its pc
 * alone.  Returns n; *why (may be NULL) tells why the stack ended. */
uint32_t unwind_stack(unwind *u, const unwind_sample *s, uint64_t *ips, uint32_t max, int *why);

/* ---- LBR call stacks ----------------------------------------------------------
 *
 * `perf record --call-graph lbr` samples carry the kernel's callchain and the
 * last branch records of the call stack (PERF_SAMPLE_BRANCH_STACK, the
 * attribute's branch_sample_type with PERF_SAMPLE_BRANCH_CALL_STACK), most
 * recent call first.  perf script (without --stitch-lbr) makes the stack:
 * the callchain's entries before its PERF_CONTEXT_USER marker (the kernel
 * part), then the target of the most recent call (the leaf function's
 * entry), then the source of each call, innermost first.  unwind_lbr does
 * the same: out gets the callchain's entries up to the marker, the marker,
 * then the branch addresses; at most max entries.  A callchain with no
 * PERF_CONTEXT_USER among its first UNWIND_MAX_DEPTH entries, or an empty
 * branch stack, is copied as it is (perf too keeps the callchain when there
 * is no user part).  chain: nchain u64s; branch: nbranch entries of three
 * u64s (from, to, flags); native byte order, perhaps unaligned. */
#define UNWIND_CONTEXT_USER ((uint64_t)-512)
#define UNWIND_CONTEXT_MAX ((uint64_t)-4095)
#define UNWIND_BRANCH_CALL_STACK (UINT64_C(1) << 11)
uint32_t unwind_lbr(const uint8_t *chain, uint64_t nchain, const uint8_t *branch, uint64_t nbranch, uint64_t *out,
		    uint32_t max);

#endif
