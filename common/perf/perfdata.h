/* perfdata.h - reading perf's binary perf.data, file and pipe mode, with no
 * code of perf's (the layout is in the Linux tree's
 * tools/perf/Documentation/perf.data-file-format.txt and linux/perf_event.h).
 *
 * File mode ("PERFILE2"): the header, the attributes with their ids, the
 * feature sections after the data (build ids, hostname, os release, perf
 * version, nr_cpus, cmdline, event names), then the data section.  Pipe
 * mode (`perf record -o -`): a 16-byte header, then records, among them
 * HEADER_ATTR, EVENT_UPDATE and HEADER_FEATURE that carry what the file
 * header would.  Records are delivered in the order perf's own tools
 * deliver them: timed records sorted by time within perf's flush rounds
 * (FINISHED_ROUND), untimed ones at once, so that the state a sample sees
 * (command names, mappings) is the one `perf script` gives it.  Memory holds
 * at most the records of two rounds, whatever the file's size.  A capture of
 * `perf record -z` is read too: the COMPRESSED records' payloads are one
 * zstd stream, decompressed a window at a time, whose records are taken
 * as if they stood in the file in the COMPRESSED record's place.
 *
 * Every length is checked against the bytes there are: a truncated or
 * damaged file is an error "FILE: byte N: what is wrong" (exit 1).  A file
 * written on a machine of the other byte order is refused with a message. */
#ifndef SPAA_PERFDATA_H
#define SPAA_PERFDATA_H

#include <stdbool.h>
#include <stdint.h>
#include <stdnoreturn.h>
#include "input.h"
#include "util.h"

/* One event's attributes (the fields a profile needs) */
typedef struct pd_attr {
	uint32_t type;
	uint64_t config, sample_type, read_format, branch_sample_type;
	uint64_t sample_regs_user, sample_regs_intr;
	uint64_t flags;          /* the bit field word (disabled, inherit, ...) */
	bool sample_id_all, freq;
	uint64_t period_or_freq;
	char *name;              /* from HEADER_EVENT_DESC / EVENT_UPDATE, else made from type/config */
	uint32_t nids;           /* ids the header or its record gives it */
} pd_attr;

enum pd_kind {
	PD_SAMPLE = 1, PD_MMAP, PD_COMM, PD_FORK, PD_EXIT, PD_LOST, PD_OTHER,
	PD_SWITCH              /* a context switch record (misc PD_MISC_SWITCH_OUT: out) */
};
#define PD_MISC_SWITCH_OUT (1 << 13)

/* The sample_id fields of a record (samples, and others with sample_id_all). */
typedef struct pd_id {
	bool has_tid, has_time, has_cpu, has_id;
	uint32_t pid, tid, cpu;
	uint64_t time, id;
} pd_id;

typedef struct pd_sample {
	uint64_t ip, addr, stream_id;
	uint64_t period;         /* the sample's, else the attribute's (perf record -c N) */
	bool has_ip, has_callchain;
	const uint8_t *chain;    /* nchain u64s (unaligned: read with pd_u64) */
	uint64_t nchain;
	const uint8_t *raw;
	uint32_t raw_size;
	const uint8_t *branch;   /* nbranch entries of 3 u64s */
	uint64_t nbranch;
	uint64_t regs_abi;       /* REGS_USER: 0 none */
	const uint8_t *regs;     /* nregs u64s, in the order of attr.sample_regs_user's bits */
	uint32_t nregs;
	const uint8_t *stack;    /* STACK_USER: stack_size bytes, of which stack_dyn_size valid */
	uint64_t stack_size, stack_dyn_size;
	const uint8_t *read;     /* READ: the record's read_format block, of nread values */
	uint64_t nread;
} pd_sample;

typedef struct pd_event {
	enum pd_kind kind;
	uint32_t type;           /* the record type (PERF_RECORD_*) */
	uint16_t misc;
	uint64_t offset;         /* of the record in the file (or stream) */
	int32_t attr;            /* index into the reader's attrs, -1 none */
	pd_id id;
	pd_sample s;             /* PD_SAMPLE */
	/* PD_MMAP */
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	const char *filename;    /* NUL-terminated; also PD_COMM's name */
	bool has_build_id;
	uint8_t build_id[20];
	uint32_t build_id_size;
	uint32_t prot, flags;    /* as mmap(2) has them */
	/* PD_COMM */
	bool exec;
	/* PD_FORK, PD_EXIT */
	uint32_t ppid, ptid;
	/* PD_LOST: samples lost */
	uint64_t lost;
} pd_event;

/* One entry of HEADER_BUILD_ID */
typedef struct pd_buildid {
	int32_t pid;
	uint16_t misc;
	uint8_t id[20];
	uint32_t size;
	char *filename;
} pd_buildid;

typedef struct perfdata perfdata;

/* Is p[0..n) the start of a perf.data (file or pipe mode, either byte
 * order)? */
bool perfdata_magic(const void *p, size_t n);

/* Reads the header of in (whose first bytes perfdata_magic() accepted):
 * path is the operand, for opening a regular file a second time to map it
 * (NULL or "-": standard input).  When in is a directory (input_is_dir()),
 * path is a perf.data directory (perf record --threads: the header in
 * path/data, the records in it and in path/data.N), read in perf's order
 * too; one that is not is an error (exit 1). */
perfdata *perfdata_open(input *in, const char *path);
/* The next record, in delivery order; false at the end.  The pointers in
 * *e stay valid until the next call.  A sample of an event that reads
 * counters (PERF_SAMPLE_READ, with their ids) is delivered as perf's
 * tools deliver it: one sample for each value read, in the record's order,
 * as the event of the value's id, its period the growth of that counter
 * since the last sample that read it (per thread too when the event is
 * inherited), none when it has not grown or its id is unknown. */
bool perfdata_next(perfdata *d, pd_event *e);
void perfdata_close(perfdata *d);

const char *perfdata_name(const perfdata *d);
/* The file the offset of the record last delivered is in: the name, or
 * in a perf.data directory the file of it (valid until perfdata_close). */
const char *perfdata_where(const perfdata *d);
bool perfdata_pipe(const perfdata *d);
/* Whether p[0..n) (a record's bytes perfdata_next gave) lies in the
 * file's own mapping, where it stays, unchanged, until perfdata_close
 * (else it is in a buffer the next records reuse: a pipe's, a
 * decompressed round's, a perf.data directory's part). */
bool perfdata_lasting(const perfdata *d, const void *p, size_t n);
/* The file's mapping from p on (a lasting record's bytes, or NULL: none)
 * is kept: no page of it is given back while the records are read (the
 * caller still reads there, as the unwinding threads read their samples'
 * stacks), so that what it reads again does not stay in memory. */
void perfdata_keep(perfdata *d, const void *p);
uint32_t perfdata_nattrs(const perfdata *d);
const pd_attr *perfdata_attr(const perfdata *d, uint32_t i);
/* Feature strings (NULL when absent); in pipe mode they come with the
 * records, so ask after the records that carry them (or at the end). */
const char *perfdata_hostname(const perfdata *d);
const char *perfdata_osrelease(const perfdata *d);
const char *perfdata_version(const perfdata *d);
const char *perfdata_arch(const perfdata *d);
const char *perfdata_cmdline(const perfdata *d); /* arguments joined by ' ' */
/* nr_cpus available and online, 0 when absent */
uint32_t perfdata_nr_cpus(const perfdata *d, uint32_t *online);
uint32_t perfdata_nbuildids(const perfdata *d);
const pd_buildid *perfdata_buildid(const perfdata *d, uint32_t i);
/* Lost samples (LOST and LOST_SAMPLES records) so far. */
uint64_t perfdata_lost(const perfdata *d);
/* Counter values read by samples (PERF_SAMPLE_READ) whose ids no event
 * has, so far: their samples are not delivered. */
uint64_t perfdata_read_unknown(const perfdata *d);
/* Records delivered after records of later times, so far, because the
 * records waiting to be sorted reached their bound (*bound bytes, their
 * entries counted) with no FINISHED_ROUND: the earlier half of them was
 * delivered then, as perf does when its queue is full.  0 when the bound
 * was not reached or the rest came in order. */
uint64_t perfdata_unordered(const perfdata *d, uint64_t *bound);

/* An unaligned little-endian (native) u64 of a record. */
static inline uint64_t pd_u64(const uint8_t *p, uint64_t i)
{
	uint64_t v;
	memcpy(&v, p + 8 * i, 8);
	return v;
}

/* Dies with "FILE: byte N: what" (exit 1), as the other binary readers. */
noreturn void perfdata_die(const perfdata *d, uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
