/* perfdata.c - perf.data, file and pipe mode (see perfdata.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "cli.h"
#include "idmap.h"
#include "perfdata.h"
#include "strmap.h"

/* sample_type bits (linux/perf_event.h) */
enum {
	ST_IP = 1 << 0, ST_TID = 1 << 1, ST_TIME = 1 << 2, ST_ADDR = 1 << 3, ST_READ = 1 << 4,
	ST_CALLCHAIN = 1 << 5, ST_ID = 1 << 6, ST_CPU = 1 << 7, ST_PERIOD = 1 << 8,
	ST_STREAM_ID = 1 << 9, ST_RAW = 1 << 10, ST_BRANCH_STACK = 1 << 11, ST_REGS_USER = 1 << 12,
	ST_STACK_USER = 1 << 13, ST_WEIGHT = 1 << 14, ST_DATA_SRC = 1 << 15,
	ST_IDENTIFIER = 1 << 16, ST_TRANSACTION = 1 << 17, ST_REGS_INTR = 1 << 18,
	ST_PHYS_ADDR = 1 << 19, ST_AUX = 1 << 20, ST_CGROUP = 1 << 21, ST_DATA_PAGE_SIZE = 1 << 22,
	ST_CODE_PAGE_SIZE = 1 << 23, ST_WEIGHT_STRUCT = 1 << 24
};
enum { RF_TOTAL_TIME_ENABLED = 1, RF_TOTAL_TIME_RUNNING = 2, RF_ID = 4, RF_GROUP = 8, RF_LOST = 16 };
#define BRANCH_HW_INDEX (1ULL << 17)

/* record types */
enum {
	R_MMAP = 1, R_LOST = 2, R_COMM = 3, R_EXIT = 4, R_FORK = 7, R_SAMPLE = 9, R_MMAP2 = 10,
	R_LOST_SAMPLES = 13, R_SWITCH = 14, R_SWITCH_CPU_WIDE = 15,
	R_HEADER_ATTR = 64, R_HEADER_EVENT_TYPE = 65, R_HEADER_TRACING_DATA = 66,
	R_HEADER_BUILD_ID = 67, R_FINISHED_ROUND = 68, R_AUXTRACE = 71, R_EVENT_UPDATE = 78,
	R_HEADER_FEATURE = 80, R_COMPRESSED = 81, R_COMPRESSED2 = 83
};
#define MISC_COMM_EXEC (1 << 13)
#define MISC_MMAP_DATA (1 << 13)
#define MISC_MMAP_BUILD_ID (1 << 14)
#define MISC_BUILD_ID_SIZE (1 << 15)

/* feature bits */
enum { F_BUILD_ID = 2, F_HOSTNAME = 3, F_OSRELEASE = 4, F_VERSION = 5, F_ARCH = 6, F_NRCPUS = 7,
       F_CMDLINE = 11, F_EVENT_DESC = 12, F_DIR_FORMAT = 24, F_COMPRESSED = 27 };
#define COMP_ZSTD 1

/* The most event attributes a capture may have: perf records a handful
 * (one an event of -e); a count beyond is a damaged or hostile file's,
 * refused rather than held. */
#define MAX_ATTRS 65536

#define FILE_MAGIC "PERFILE2"
#define FILE_MAGIC_SWAPPED "2ELIFREP"
#define HEADER_SIZE 104
#define PIPE_HEADER_SIZE 16

/* a queued record: perf's ordered delivery */
struct qent {
	uint64_t ts, seq;
	uint64_t where;   /* offset in the map (file mode) or in the arena */
	uint64_t offset;  /* in the input, for messages */
	uint32_t len;
	uint32_t arena;   /* its bytes are in the arena (pipe mode, decompressed), not the map */
};

/* perf record -z: the payloads of the COMPRESSED records, one after the
 * other, are one zstd stream (perf flushes it at the end of each record
 * without ending its frame); decompressed, it is records as the file
 * has them, a record possibly begun in one COMPRESSED record and ended
 * in the next.  It is decompressed a window at a time, and its records
 * taken in turn, as if they stood in the file in place of the record. */
#define ZWIN (1u << 18)   /* the window: more than a record's largest size (64 KiB) */
struct zrd {
	ZSTD_DStream *zs;
	const uint8_t *in;  /* the current COMPRESSED record's payload */
	size_t inlen, inpos;
	uint64_t off;       /* that record's offset in the input */
	uint64_t where;     /* file mode: and in the map */
	sbuf copy;          /* pipe mode: the payload, copied */
	uint8_t *out;       /* ZWIN bytes: out[head..end) decompressed, not yet taken */
	size_t head, end;
	bool full;          /* the last call filled the window: zstd may have more */
	bool active;        /* taking records from the stream */
	bool last;          /* the last raw record came from it */
};

struct perfdata {
	const char *name;
	bool pipe;
	/* file mode: the whole file mapped */
	const uint8_t *map;
	size_t mapsz;
	int fd;
	uint64_t pos, end;  /* the data section still to read */
	uint64_t dropped;   /* the mapping's pages below this are given back */
	const uint8_t *keep; /* perfdata_keep: the mapping from here on is kept */
	/* pipe mode */
	input *in;
	uint64_t spos;      /* stream offset of the next record */
	/* attributes */
	pd_attr *attrs;
	uint32_t nattrs, acap;
	idmap ids;          /* id -> attr */
	bool all_identifier;
	int id_pos;         /* u64 index of ID in a sample (no IDENTIFIER), -1 none */
	/* features */
	char *hostname, *osrelease, *version, *arch, *cmdline;
	uint32_t nr_cpus, nr_online;
	pd_buildid *bids;
	uint32_t nbids, bcap;
	uint64_t lost;
	/* ordering */
	struct qent *q, *q2;    /* q2: where a round's merge goes (qcap too) */
	uint32_t nq, qcap, q2cap;
	uint32_t nsorted;       /* q[0..nsorted) are in order: the last round's rest */
	uint32_t nready, qi;    /* q[qi..nready) are ready to deliver */
	uint64_t seq, next_flush, max_ts;
	uint64_t qbytes;        /* the bytes of the queued records */
	uint64_t qbound;        /* queue_bound(): those and their entries, at most */
	uint64_t last_flush;    /* the time of the last queued record delivered */
	uint64_t halves;        /* half flushes made at the bound */
	uint64_t unordered;     /* records queued after one, with times before the last delivered */
	sbuf arena, arena2;
	bool eof;
	/* PERF_SAMPLE_READ: the sample whose values are being delivered */
	pd_event rd_ev;
	const uint8_t *rd_v;    /* its next value */
	uint64_t rd_left;       /* values left */
	uint32_t rd_stride, rd_idoff; /* bytes from one value to the next, and to its id */
	bool rd_per_thread;
	strmap rd_keys;         /* (id, tid) -> index in rd_last */
	uint64_t *rd_last;      /* the counter's value at its last sample */
	uint32_t rd_cap;
	uint64_t rd_unknown;    /* values of ids no attribute has */
	uint32_t comp_type;     /* HEADER_COMPRESSED's: 0 absent, 1 zstd */
	struct zrd z;
	/* a perf.data directory (perf record --threads): its files */
	uint64_t dir_version;   /* HEADER_DIR_FORMAT, 0 none */
	struct pdir *dir;       /* NULL: one file */
	const char *part_name;  /* the file that messages' offsets are in, NULL: name */
};

void perfdata_die(const perfdata *d, uint64_t offset, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	die(EXIT_DATA, "%s: byte %llu: %s", d->part_name ? d->part_name : d->name, (unsigned long long)offset, msg);
}

bool perfdata_magic(const void *p, size_t n)
{
	return n >= 8 && (memcmp(p, FILE_MAGIC, 8) == 0 || memcmp(p, FILE_MAGIC_SWAPPED, 8) == 0);
}

static uint64_t get64(const uint8_t *p, size_t n, size_t off)
{
	if (off + 8 > n) return 0;
	uint64_t v;
	memcpy(&v, p + off, 8);
	return v;
}

static uint32_t get32(const uint8_t *p, size_t n, size_t off)
{
	if (off + 4 > n) return 0;
	uint32_t v;
	memcpy(&v, p + off, 4);
	return v;
}

/* ---- attributes -------------------------------------------------------- */

static const char *const hw_names[] = { "cycles", "instructions", "cache-references", "cache-misses",
	"branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
	"ref-cycles" };
static const char *const sw_names[] = { "cpu-clock", "task-clock", "page-faults", "context-switches",
	"cpu-migrations", "minor-faults", "major-faults", "alignment-faults", "emulation-faults",
	"dummy", "bpf-output", "cgroup-switches" };

/* An attribute from its bytes a[0..n) (perf_event_attr of any version),
 * the one of the header or record at input offset where. */
static uint32_t add_attr(perfdata *d, const uint8_t *a, size_t n, uint64_t where)
{
	if (d->nattrs >= MAX_ATTRS)
		perfdata_die(d, where, "more than %u event attributes: not a capture of perf's (corrupt)", MAX_ATTRS);
	pd_attr *t = VEC_PUSH(d->attrs, d->nattrs, d->acap);
	memset(t, 0, sizeof *t);
	t->type = get32(a, n, 0);
	t->config = get64(a, n, 8);
	t->period_or_freq = get64(a, n, 16);
	t->sample_type = get64(a, n, 24);
	t->read_format = get64(a, n, 32);
	t->flags = get64(a, n, 40);
	t->freq = t->flags >> 10 & 1;
	t->sample_id_all = t->flags >> 18 & 1;
	t->branch_sample_type = get64(a, n, 72);
	t->sample_regs_user = get64(a, n, 80);
	t->sample_regs_intr = get64(a, n, 96);
	return d->nattrs - 1;
}

static void attr_id(perfdata *d, uint32_t a, uint64_t id)
{
	bool added;
	idmap_put(&d->ids, (int64_t)id, a, &added);
	d->attrs[a].nids++;
}

static void attr_name(pd_attr *t, const char *s, size_t n)
{
	free(t->name);
	t->name = xmemdup(s, strnlen(s, n));
}

/* The name perf gives an event it has no description of. */
static void default_name(pd_attr *t)
{
	if (t->name) return;
	char buf[64];
	const char *s = NULL;
	if (t->type == 0 && t->config < sizeof hw_names / sizeof *hw_names) s = hw_names[t->config];
	if (t->type == 1 && t->config < sizeof sw_names / sizeof *sw_names) s = sw_names[t->config];
	if (!s) {
		snprintf(buf, sizeof buf, "raw-%u-0x%llx", t->type, (unsigned long long)t->config);
		s = buf;
	}
	t->name = xstrdup(s);
}

static void default_names(perfdata *d)
{
	for (uint32_t i = 0; i < d->nattrs; i++) default_name(&d->attrs[i]);
}

/* Attribute a is known (they are taken in order): how records find
 * theirs.  Done for each attribute as it comes, not again for all of them
 * (pipe mode has a record each: that would be quadratic). */
static void attr_known(perfdata *d, uint32_t a)
{
	bool ident = d->attrs[a].sample_type & ST_IDENTIFIER;
	d->all_identifier = a == 0 ? ident : d->all_identifier && ident;
	if (a == 0) {
		uint64_t st = d->attrs[0].sample_type;
		d->id_pos = st & ST_ID ? !!(st & ST_IP) + !!(st & ST_TID) + !!(st & ST_TIME) + !!(st & ST_ADDR) : -1;
	}
}

/* After the attributes are known (file mode, directories) */
static void attrs_done(perfdata *d)
{
	d->all_identifier = false;
	d->id_pos = -1;
	for (uint32_t i = 0; i < d->nattrs; i++) attr_known(d, i);
}

/* ---- features ---------------------------------------------------------- */

/* A perf_header_string at p[*off..n): u32 length, then the string. */
static char *feat_string(const perfdata *d, const uint8_t *p, size_t n, size_t *off, uint64_t where)
{
	if (*off + 4 > n) perfdata_die(d, where, "feature section too short for a string");
	uint32_t len = get32(p, n, *off);
	*off += 4;
	if (len > n - *off) perfdata_die(d, where, "string of %u bytes past the end of its feature section", len);
	char *s = xmemdup(p + *off, strnlen((const char *)p + *off, len));
	*off += len;
	return s;
}

static void set_str(char **dst, char *s)
{
	free(*dst);
	*dst = s;
}

static void add_buildid_rec(perfdata *d, const uint8_t *p, size_t n, uint64_t where)
{
	/* header (8), pid (4), build_id[24] (20 bytes, size, 3 reserved), filename */
	if (n < 36) perfdata_die(d, where, "build id record too short (%zu bytes)", n);
	pd_buildid *b = VEC_PUSH(d->bids, d->nbids, d->bcap);
	b->misc = (uint16_t)(get32(p, n, 4) & 0xffff);
	b->pid = (int32_t)get32(p, n, 8);
	memcpy(b->id, p + 12, 20);
	b->size = (b->misc & MISC_BUILD_ID_SIZE) && p[32] <= 20 ? p[32] : 20;
	b->filename = xmemdup(p + 36, strnlen((const char *)p + 36, n - 36));
}

/* Feature feat, its bytes p[0..n) (at input offset where). */
static void feature(perfdata *d, uint32_t feat, const uint8_t *p, size_t n, uint64_t where)
{
	size_t off = 0;
	switch (feat) {
	case F_HOSTNAME: set_str(&d->hostname, feat_string(d, p, n, &off, where)); break;
	case F_OSRELEASE: set_str(&d->osrelease, feat_string(d, p, n, &off, where)); break;
	case F_VERSION: set_str(&d->version, feat_string(d, p, n, &off, where)); break;
	case F_ARCH: set_str(&d->arch, feat_string(d, p, n, &off, where)); break;
	case F_NRCPUS:
		if (n < 8) perfdata_die(d, where, "nr_cpus feature too short");
		d->nr_cpus = get32(p, n, 0);
		d->nr_online = get32(p, n, 4);
		break;
	case F_CMDLINE: {
		if (n < 4) perfdata_die(d, where, "cmdline feature too short");
		uint32_t nr = get32(p, n, 0);
		off = 4;
		/* each argument is 4 bytes at least (its length) */
		if (nr > (n - 4) / 4)
			perfdata_die(d, where, "cmdline feature: %u arguments, more than its %zu bytes hold", nr, n);
		sbuf s = { 0 };
		for (uint32_t i = 0; i < nr; i++) {
			char *a = feat_string(d, p, n, &off, where);
			if (i) sbuf_addc(&s, ' ');
			sbuf_adds(&s, a);
			free(a);
		}
		sbuf_addc(&s, 0);
		set_str(&d->cmdline, s.p);
		break;
	}
	case F_EVENT_DESC: {
		if (n < 8) perfdata_die(d, where, "event description feature too short");
		uint32_t nre = get32(p, n, 0), sz = get32(p, n, 4);
		off = 8;
		/* each is an attribute, its number of ids and its name's length at least */
		if (nre > (n - 8) / ((uint64_t)sz + 8))
			perfdata_die(d, where, "event description feature: %u events of %u bytes each, more than its %zu bytes hold",
				     nre, sz, n);
		for (uint32_t i = 0; i < nre; i++) {
			if (sz > n - off || n - off - sz < 4)
				perfdata_die(d, where, "event description %u past the end of its section", i);
			off += sz;
			uint32_t nids = get32(p, n, off);
			off += 4;
			char *name = feat_string(d, p, n, &off, where);
			if (nids > (n - off) / 8) perfdata_die(d, where, "event description %u: %u ids past the end", i, nids);
			uint32_t a = nids ? idmap_get(&d->ids, (int64_t)get64(p, n, off)) : UINT32_MAX;
			if (a == UINT32_MAX && i < d->nattrs) a = i;
			if (a != UINT32_MAX) attr_name(&d->attrs[a], name, strlen(name));
			free(name);
			off += (size_t)nids * 8;
		}
		break;
	}
	case F_COMPRESSED: /* u32 version, type, level, ratio, mmap_len */
		if (n < 8) perfdata_die(d, where, "compression feature too short");
		d->comp_type = get32(p, n, 4);
		break;
	case F_DIR_FORMAT:
		if (n < 8) perfdata_die(d, where, "directory format feature too short");
		d->dir_version = get64(p, n, 0);
		break;
	case F_BUILD_ID:
		while (off + 8 <= n) {
			uint32_t sz = get32(p, n, off + 4) >> 16;
			if (sz < 8 || sz > n - off) perfdata_die(d, where + off, "build id entry of %u bytes in a section of %zu", sz, n - off);
			add_buildid_rec(d, p + off, sz, where + off);
			off += sz;
		}
		break;
	default: break;
	}
}

/* ---- opening ------------------------------------------------------------ */

/* Maps the whole of in (a file-mode perf.data): the file itself, by the
 * descriptor in reads, when it is a plain regular file read from its start
 * that starts with the magic, else a copy of its (decompressed) bytes in an
 * unlinked temporary file (a pipe, a FIFO, compressed data).  The path is
 * not opened again: a FIFO would block, a pipe's /dev/stdin be empty. */
static void map_input(perfdata *d, input *in)
{
	struct stat st;
	char magic[8];
	int fd = input_file_fd(in);
	if (fd >= 0) fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || pread(fd, magic, 8, 0) != 8 ||
			memcmp(magic, FILE_MAGIC, 8) != 0)) {
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		fd = tmpfile_unlinked(cli_prog);
		const void *p;
		size_t n;
		while ((n = input_window(in, &p, 1 << 17)) > 0) {
			tmpfile_write(fd, p, n);
			input_skip(in, n);
		}
		if (fstat(fd, &st) != 0) die(EXIT_DATA, "%s: %s", d->name, strerror(errno));
	}
	d->fd = fd;
	d->mapsz = (size_t)st.st_size;
	if (d->mapsz < HEADER_SIZE) perfdata_die(d, d->mapsz, "truncated: %zu bytes, shorter than the %d-byte header", d->mapsz, HEADER_SIZE);
	void *m = mmap(NULL, d->mapsz, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED) die(EXIT_DATA, "%s: cannot map: %s", d->name, strerror(errno));
	madvise(m, d->mapsz, MADV_SEQUENTIAL);
	d->map = m;
}

/* A section {offset, size} at header offset off, checked against the file. */
static void section(const perfdata *d, size_t off, const char *what, uint64_t *o, uint64_t *s)
{
	*o = get64(d->map, d->mapsz, off);
	*s = get64(d->map, d->mapsz, off + 8);
	if (*o > d->mapsz || *s > d->mapsz - *o)
		perfdata_die(d, off, "truncated: the %s section (%llu bytes at %llu) ends past the end of the file (%zu bytes)",
			     what, (unsigned long long)*s, (unsigned long long)*o, d->mapsz);
}

/* The header of the mapped file: attributes, features, the data section. */
static void read_header(perfdata *d)
{
	const uint8_t *h = d->map;
	uint64_t hsize = get64(h, d->mapsz, 8), attr_size = get64(h, d->mapsz, 16);
	if (hsize < HEADER_SIZE) perfdata_die(d, 8, "header size %llu, less than %d", (unsigned long long)hsize, HEADER_SIZE);
	uint64_t ao, as, dof, ds;
	section(d, 24, "attributes", &ao, &as);
	section(d, 40, "data", &dof, &ds);
	if (attr_size < 16 + 64 || attr_size > 4096)
		perfdata_die(d, 16, "attribute size %llu: not a perf_event_attr and its ids", (unsigned long long)attr_size);
	if (as % attr_size) perfdata_die(d, 24, "attribute section of %llu bytes, not a multiple of %llu", (unsigned long long)as, (unsigned long long)attr_size);
	if (as / attr_size > MAX_ATTRS)
		perfdata_die(d, 24, "%llu event attributes, more than %u: not a capture of perf's (corrupt)",
			     (unsigned long long)(as / attr_size), MAX_ATTRS);
	/* perf writes each attribute's ids apart: together they are no more
	 * than the file (ids sections made to overlap would make the ids
	 * held many times the file's size) */
	uint64_t all_ids = 0;
	for (uint64_t off = ao; off < ao + as; off += attr_size) {
		uint32_t a = add_attr(d, h + off, attr_size - 16, off);
		uint64_t io, is;
		section(d, off + attr_size - 16, "attribute ids", &io, &is);
		all_ids += is;
		if (all_ids > d->mapsz)
			perfdata_die(d, off + attr_size - 16, "attribute ids: %llu bytes in all so far, more than the file's %zu "
				     "(ids sections that overlap: corrupt)", (unsigned long long)all_ids, d->mapsz);
		for (uint64_t k = 0; k + 8 <= is; k += 8) attr_id(d, a, get64(h, d->mapsz, io + k));
	}
	if (!d->nattrs) perfdata_die(d, 24, "no event attributes");
	/* features: one section each after the data, for each bit set */
	uint64_t fo = dof + ds;
	for (uint32_t bit = 0; bit < 256; bit++) {
		uint64_t w = get64(h, d->mapsz, 72 + 8 * (bit / 64));
		if (!(w >> (bit % 64) & 1)) continue;
		uint64_t so, ss;
		if (fo + 16 > d->mapsz) perfdata_die(d, fo, "truncated: the feature sections end past the end of the file");
		section(d, fo, "feature", &so, &ss);
		feature(d, bit, h + so, ss, so);
		fo += 16;
	}
	d->pos = dof;
	d->end = dof + ds;
}

static void open_file(perfdata *d, input *in, const char *path)
{
	map_input(d, in);
	read_header(d);
	/* perf script asserts on it; its samples are not in it */
	if (d->dir_version) {
		/* the directory: the path up to its last '/', "." for none,
		 * DIR for standard input */
		const char *dir = "DIR", *sl;
		int n = 3;
		if (path && strcmp(path, "-")) {
			sl = strrchr(path, '/');
			dir = sl ? path : ".";
			n = sl && sl != path ? (int)(sl - path) : 1;
		}
		die(EXIT_DATA, "%s: the header file 'data' of a perf record --threads directory: its samples are in the "
		    "data.N files beside it; convert the directory ('%s %.*s')", d->name, cli_prog, n, dir);
	}
}

static void open_dir(perfdata *d, const char *path);
static void close_dir(perfdata *d);
static bool dir_next(perfdata *d, pd_event *e);
static bool dir_multi(const perfdata *d);

perfdata *perfdata_open(input *in, const char *path)
{
	perfdata *d = xcalloc(1, sizeof *d);
	d->name = input_name(in);
	d->fd = -1;
	if (input_is_dir(in)) {
		open_dir(d, path);
		attrs_done(d);
		default_names(d);
		return d;
	}
	const void *p;
	size_t n = input_peek(in, &p, 16);
	if (n >= 8 && memcmp(p, FILE_MAGIC_SWAPPED, 8) == 0)
		die(EXIT_DATA, "%s: a perf.data of the other byte order (big-endian machine): not supported; "
		    "convert it with 'perf script' on a machine of that order", d->name);
	if (n < 8 || !perfdata_magic(p, n)) perfdata_die(d, 0, "not a perf.data file (no PERFILE2 magic)");
	if (n >= 16 && get64(p, n, 8) == PIPE_HEADER_SIZE) {
		d->pipe = true;
		d->in = in;
		input_skip(in, PIPE_HEADER_SIZE);
		d->spos = PIPE_HEADER_SIZE;
	} else {
		open_file(d, in, path);
		attrs_done(d);
		default_names(d);
	}
	return d;
}

void perfdata_close(perfdata *d)
{
	if (!d) return;
	close_dir(d);
	if (d->map) munmap((void *)d->map, d->mapsz);
	if (d->fd >= 0) close(d->fd);
	for (uint32_t i = 0; i < d->nattrs; i++) {
		free(d->attrs[i].name);
	}
	free(d->attrs);
	idmap_free(&d->ids);
	for (uint32_t i = 0; i < d->nbids; i++) free(d->bids[i].filename);
	free(d->bids);
	free(d->hostname);
	free(d->osrelease);
	free(d->version);
	free(d->arch);
	free(d->cmdline);
	free(d->q);
	free(d->q2);
	sbuf_free(&d->arena);
	sbuf_free(&d->arena2);
	strmap_free(&d->rd_keys);
	free(d->rd_last);
	if (d->z.zs) ZSTD_freeDStream(d->z.zs);
	free(d->z.out);
	sbuf_free(&d->z.copy);
	free(d);
}

/* ---- records ------------------------------------------------------------- */

/* The attribute of a sample record p[0..n), -1 when its id is unknown. */
static int32_t sample_attr(const perfdata *d, const uint8_t *p, size_t n)
{
	if (d->nattrs == 1) return 0;
	uint64_t id;
	if (d->all_identifier) id = get64(p, n, 8);
	else if (d->id_pos >= 0) id = get64(p, n, 8 + 8 * (size_t)d->id_pos);
	else return 0;
	uint32_t a = idmap_get(&d->ids, (int64_t)id);
	return a == UINT32_MAX ? -1 : (int32_t)a;
}

/* The size of the sample_id trailer of sample_type st. */
static size_t trailer_size(uint64_t st)
{
	return 8 * (size_t)(!!(st & ST_TID) + !!(st & ST_TIME) + !!(st & ST_ID) + !!(st & ST_STREAM_ID) +
			    !!(st & ST_CPU) + !!(st & ST_IDENTIFIER));
}

/* The attribute of another record p[0..n), for its trailer; -1 none. */
static int32_t other_attr(const perfdata *d, const uint8_t *p, size_t n)
{
	if (!d->nattrs || !d->attrs[0].sample_id_all) return -1;
	if (d->nattrs == 1 || !d->all_identifier) return 0;
	if (n < 16) return -1;
	uint32_t a = idmap_get(&d->ids, (int64_t)get64(p, n, n - 8));
	return a == UINT32_MAX ? -1 : (int32_t)a;
}

/* Reads the trailer of record p[0..n) of attribute a; false when it does
 * not fit. */
static bool read_trailer(const perfdata *d, int32_t a, const uint8_t *p, size_t n, size_t body, pd_id *id)
{
	memset(id, 0, sizeof *id);
	if (a < 0) return true;
	uint64_t st = d->attrs[a].sample_type;
	size_t ts = trailer_size(st);
	if (ts > n - body) return false;
	size_t o = n - ts;
	if (st & ST_TID) id->has_tid = true, id->pid = get32(p, n, o), id->tid = get32(p, n, o + 4), o += 8;
	if (st & ST_TIME) id->has_time = true, id->time = get64(p, n, o), o += 8;
	if (st & ST_ID) id->has_id = true, id->id = get64(p, n, o), o += 8;
	if (st & ST_STREAM_ID) o += 8;
	if (st & ST_CPU) id->has_cpu = true, id->cpu = get32(p, n, o), o += 8;
	if (st & ST_IDENTIFIER) id->has_id = true, id->id = get64(p, n, o);
	return true;
}

/* The time of a record for ordering, 0 when it has none (delivered at once). */
static uint64_t record_time(const perfdata *d, const uint8_t *p, size_t n, uint32_t type)
{
	if (type >= 64) return 0;
	if (type == R_SAMPLE) {
		int32_t a = sample_attr(d, p, n);
		if (a < 0) return 0;
		uint64_t st = d->attrs[a].sample_type;
		if (!(st & ST_TIME)) return 0;
		return get64(p, n, 8 + 8 * (size_t)(!!(st & ST_IDENTIFIER) + !!(st & ST_IP) + !!(st & ST_TID)));
	}
	int32_t a = other_attr(d, p, n);
	if (a < 0) return 0;
	uint64_t st = d->attrs[a].sample_type;
	if (!(st & ST_TIME)) return 0;
	size_t ts = trailer_size(st);
	if (ts > n - 8) return 0;
	return get64(p, n, n - ts + 8 * (size_t)!!(st & ST_TID));
}

struct cur { const perfdata *d; const uint8_t *p; size_t n, o; uint64_t where; };

static uint64_t c64(struct cur *c, const char *what)
{
	if (c->o + 8 > c->n)
		perfdata_die(c->d, c->where, "sample record of %zu bytes too short for its %s", c->n, what);
	uint64_t v = get64(c->p, c->n, c->o);
	c->o += 8;
	return v;
}

/* n u64s at the cursor: their start */
static const uint8_t *cskip(struct cur *c, uint64_t nbytes, const char *what)
{
	if (nbytes > c->n - c->o)
		perfdata_die(c->d, c->where, "sample record of %zu bytes too short for its %s (%llu bytes)", c->n, what,
			     (unsigned long long)nbytes);
	const uint8_t *q = c->p + c->o;
	c->o += (size_t)nbytes;
	return q;
}

static unsigned popcount64(uint64_t x) { return (unsigned)__builtin_popcountll(x); }

/* The read_format block: a value (or a group's number of them), the
 * times, then the group's values {value, id, lost} or the one's id and
 * lost, the fields read_format has. */
static void read_values(struct cur *c, uint64_t rf, pd_sample *s)
{
	uint64_t per = 1 + !!(rf & RF_ID) + !!(rf & RF_LOST);
	uint64_t nr = 1;
	s->read = c->p + c->o;
	if (rf & RF_GROUP) nr = c64(c, "read values");
	else c64(c, "read value"), per--;
	if (rf & RF_TOTAL_TIME_ENABLED) c64(c, "read values");
	if (rf & RF_TOTAL_TIME_RUNNING) c64(c, "read values");
	if (nr > (c->n - c->o) / 8 / (per ? per : 1))
		perfdata_die(c->d, c->where, "sample record: %llu read values past its end", (unsigned long long)nr);
	cskip(c, nr * per * 8, "read values");
	s->nread = nr;
}

static void parse_sample(const perfdata *d, const uint8_t *p, size_t n, pd_event *e)
{
	const pd_attr *t = &d->attrs[e->attr];
	uint64_t st = t->sample_type;
	pd_sample *s = &e->s;
	memset(s, 0, sizeof *s);
	struct cur c = { d, p, n, 8, e->offset };
	if (st & ST_IDENTIFIER) e->id.has_id = true, e->id.id = c64(&c, "identifier");
	if (st & ST_IP) s->has_ip = true, s->ip = c64(&c, "ip");
	if (st & ST_TID) {
		uint64_t v = c64(&c, "pid and tid");
		e->id.has_tid = true;
		e->id.pid = (uint32_t)v;
		e->id.tid = (uint32_t)(v >> 32);
	}
	if (st & ST_TIME) e->id.has_time = true, e->id.time = c64(&c, "time");
	if (st & ST_ADDR) s->addr = c64(&c, "addr");
	if (st & ST_ID) e->id.has_id = true, e->id.id = c64(&c, "id");
	if (st & ST_STREAM_ID) s->stream_id = c64(&c, "stream id");
	if (st & ST_CPU) e->id.has_cpu = true, e->id.cpu = (uint32_t)c64(&c, "cpu");
	/* without PERIOD in the sample (perf record -c N, or an event's
	 * period=N), every sample's period is the attribute's, as perf sets it */
	s->period = st & ST_PERIOD ? c64(&c, "period") : t->period_or_freq;
	if (st & ST_READ) read_values(&c, t->read_format, s);
	if (st & ST_CALLCHAIN) {
		s->has_callchain = true;
		s->nchain = c64(&c, "callchain");
		if (s->nchain > (n - c.o) / 8)
			perfdata_die(d, e->offset, "sample record: a callchain of %llu entries past its end", (unsigned long long)s->nchain);
		s->chain = cskip(&c, s->nchain * 8, "callchain");
	}
	if (st & ST_RAW) {
		if (c.o + 4 > n) perfdata_die(d, e->offset, "sample record too short for its raw data");
		s->raw_size = get32(p, n, c.o);
		c.o += 4;
		s->raw = cskip(&c, s->raw_size, "raw data");
	}
	if (st & ST_BRANCH_STACK) {
		s->nbranch = c64(&c, "branch stack");
		if (t->branch_sample_type & BRANCH_HW_INDEX) c64(&c, "branch stack");
		if (s->nbranch > (n - c.o) / 24)
			perfdata_die(d, e->offset, "sample record: a branch stack of %llu entries past its end", (unsigned long long)s->nbranch);
		s->branch = cskip(&c, s->nbranch * 24, "branch stack");
	}
	if (st & ST_REGS_USER) {
		s->regs_abi = c64(&c, "user registers");
		if (s->regs_abi) {
			s->nregs = popcount64(t->sample_regs_user);
			s->regs = cskip(&c, (uint64_t)s->nregs * 8, "user registers");
		}
	}
	if (st & ST_STACK_USER) {
		s->stack_size = c64(&c, "user stack");
		s->stack = cskip(&c, s->stack_size, "user stack");
		if (s->stack_size) {
			s->stack_dyn_size = c64(&c, "user stack");
			if (s->stack_dyn_size > s->stack_size) s->stack_dyn_size = s->stack_size;
		}
	}
	/* the rest (weight, data_src, transaction, regs_intr, ...) is not needed */
}

static void parse_other(perfdata *d, const uint8_t *p, size_t n, pd_event *e)
{
	e->attr = other_attr(d, p, n);
	size_t body = 8;
	switch (e->type) {
	case R_MMAP:
	case R_MMAP2: {
		size_t fixed = e->type == R_MMAP ? 40 : 72;
		if (n < fixed + 1) perfdata_die(d, e->offset, "mmap record of %zu bytes, too short", n);
		e->kind = PD_MMAP;
		e->pid = get32(p, n, 8);
		e->tid = get32(p, n, 12);
		e->start = get64(p, n, 16);
		e->len = get64(p, n, 24);
		e->pgoff = get64(p, n, 32);
		if (e->type == R_MMAP2) {
			if (e->misc & MISC_MMAP_BUILD_ID) {
				e->has_build_id = true;
				e->build_id_size = p[40] <= 20 ? p[40] : 20;
				memcpy(e->build_id, p + 44, 20);
			}
			e->prot = get32(p, n, 64);
			e->flags = get32(p, n, 68);
		} else {
			/* perf record --data marks the mappings of data */
			e->prot = e->misc & MISC_MMAP_DATA ? 0 : PROT_EXEC;
			e->flags = 0;
		}
		const char *fn = (const char *)p + fixed;
		size_t fl = strnlen(fn, n - fixed);
		if (fl == n - fixed) perfdata_die(d, e->offset, "mmap record: file name without its NUL");
		e->filename = fn;
		body = fixed + ((fl + 1 + 7) & ~(size_t)7);
		if (body > n) body = n;
		break;
	}
	case R_COMM: {
		if (n < 17) perfdata_die(d, e->offset, "comm record of %zu bytes, too short", n);
		e->kind = PD_COMM;
		e->pid = get32(p, n, 8);
		e->tid = get32(p, n, 12);
		const char *s = (const char *)p + 16;
		size_t l = strnlen(s, n - 16);
		if (l == n - 16) perfdata_die(d, e->offset, "comm record: name without its NUL");
		e->filename = s;
		e->exec = e->misc & MISC_COMM_EXEC;
		body = 16 + ((l + 1 + 7) & ~(size_t)7);
		if (body > n) body = n;
		break;
	}
	case R_FORK:
	case R_EXIT:
		if (n < 32) perfdata_die(d, e->offset, "%s record of %zu bytes, too short", e->type == R_FORK ? "fork" : "exit", n);
		e->kind = e->type == R_FORK ? PD_FORK : PD_EXIT;
		e->pid = get32(p, n, 8);
		e->ppid = get32(p, n, 12);
		e->tid = get32(p, n, 16);
		e->ptid = get32(p, n, 20);
		body = 32;
		break;
	case R_LOST:
		if (n < 24) perfdata_die(d, e->offset, "lost record of %zu bytes, too short", n);
		e->kind = PD_LOST;
		e->lost = get64(p, n, 16);
		d->lost += e->lost;
		body = 24;
		break;
	case R_LOST_SAMPLES:
		if (n < 16) perfdata_die(d, e->offset, "lost samples record of %zu bytes, too short", n);
		e->kind = PD_LOST;
		e->lost = get64(p, n, 8);
		d->lost += e->lost;
		body = 16;
		break;
	case R_SWITCH:
	case R_SWITCH_CPU_WIDE:
		/* perf record --switch-events: its thread (the sample id's) in
		 * or out; the cpu-wide form names the other thread too */
		e->kind = PD_SWITCH;
		body = e->type == R_SWITCH ? 8 : 16;
		if (n < body) perfdata_die(d, e->offset, "switch record of %zu bytes, too short", n);
		break;
	default:
		e->kind = PD_OTHER;
		return;
	}
	if (!read_trailer(d, e->attr, p, n, body, &e->id))
		perfdata_die(d, e->offset, "record of type %u: %zu bytes, too short for its sample id fields", e->type, n);
}

/* Fills e from record p[0..n) (at input offset off); false when the
 * record is dropped (a sample of an unknown event). */
static bool decode(perfdata *d, const uint8_t *p, size_t n, uint64_t off, pd_event *e)
{
	memset(e, 0, sizeof *e);
	e->type = get32(p, n, 0);
	e->misc = (uint16_t)(get32(p, n, 4) & 0xffff);
	e->offset = off;
	e->attr = -1;
	if (e->type == R_SAMPLE) {
		e->attr = sample_attr(d, p, n);
		if (e->attr < 0) return false;
		e->kind = PD_SAMPLE;
		parse_sample(d, p, n, e);
		return true;
	}
	parse_other(d, p, n, e);
	return true;
}

/* The next sample of the values of the sample in d->rd_ev (perf's
 * deliver_sample_value): the event of the value's id, as the sample of
 * that event, its period what the counter grew by since its last sample
 * (by thread when the sampling event is inherited: a counter of each
 * thread), taken modulo 2^64 as perf takes it; a value of an unknown id,
 * or that has not grown, gives none.  False when no value is left. */
static bool read_next(perfdata *d, pd_event *e)
{
	while (d->rd_left) {
		const uint8_t *v = d->rd_v;
		d->rd_v += d->rd_stride;
		d->rd_left--;
		uint64_t value = pd_u64(v, 0), id = pd_u64(v + d->rd_idoff, 0);
		uint32_t a = idmap_get(&d->ids, (int64_t)id);
		if (a == UINT32_MAX) {
			d->rd_unknown++;
			continue;
		}
		struct { uint64_t id; uint32_t tid; } key;
		memset(&key, 0, sizeof key);
		key.id = id;
		key.tid = d->rd_per_thread ? d->rd_ev.id.tid : 0;
		bool added;
		uint32_t k = strmap_intern(&d->rd_keys, &key, sizeof key, &added);
		if (added) {
			grow_array((void **)&d->rd_last, &d->rd_cap, k + 1, sizeof *d->rd_last);
			d->rd_last[k] = 0;
		}
		uint64_t period = value - d->rd_last[k];
		d->rd_last[k] = value;
		if (!period) continue;
		*e = d->rd_ev;
		e->attr = (int32_t)a;
		e->id.has_id = true;
		e->id.id = id;
		e->s.period = period;
		return true;
	}
	return false;
}

/* Fills e from record p[0..n) as decode(), a sample that reads counters
 * as its first value's sample (read_next); false when there is none. */
static bool deliver(perfdata *d, const uint8_t *p, size_t n, uint64_t off, pd_event *e)
{
	if (!decode(d, p, n, off, e)) return false;
	if (e->kind != PD_SAMPLE) return true;
	const pd_attr *t = &d->attrs[e->attr];
	uint64_t rf = t->read_format;
	/* (perf's tools make every event that samples with READ read its id) */
	if (!(t->sample_type & ST_READ) || !(rf & RF_ID)) return true;
	uint32_t times = !!(rf & RF_TOTAL_TIME_ENABLED) + !!(rf & RF_TOTAL_TIME_RUNNING);
	d->rd_ev = *e;
	d->rd_left = e->s.nread;
	if (rf & RF_GROUP) { /* nr, times, then {value, id, [lost]} */
		d->rd_v = e->s.read + 8 * (1 + times);
		d->rd_stride = 8 * (2 + !!(rf & RF_LOST));
		d->rd_idoff = 8;
	} else { /* value, times, id, [lost] */
		d->rd_v = e->s.read;
		d->rd_stride = 0;
		d->rd_idoff = 8 * (1 + times);
	}
	d->rd_per_thread = (t->sample_type & ST_TID) && (t->flags >> 1 & 1); /* inherit */
	return read_next(d, e);
}

/* Records of perf's own (pipe mode, and some in the file's data). */
static void user_record(perfdata *d, const uint8_t *p, size_t n, uint32_t type, uint64_t off)
{
	switch (type) {
	case R_HEADER_ATTR: {
		if (n < 8 + 64) perfdata_die(d, off, "attribute record of %zu bytes, too short", n);
		uint32_t asz = get32(p, n, 12);
		if (asz == 0) asz = 64;
		if (asz > n - 8) perfdata_die(d, off, "attribute record: attribute of %u bytes in a record of %zu", asz, n);
		uint32_t a = add_attr(d, p + 8, asz, off);
		for (size_t k = 8 + asz; k + 8 <= n; k += 8) attr_id(d, a, get64(p, n, k));
		attr_known(d, a);
		default_name(&d->attrs[a]);
		break;
	}
	case R_EVENT_UPDATE:
		if (n >= 24 && get64(p, n, 8) == 2) { /* PERF_EVENT_UPDATE__NAME (0 unit, 1 scale, 3 cpus) */
			uint32_t a = idmap_get(&d->ids, (int64_t)get64(p, n, 16));
			if (a != UINT32_MAX) attr_name(&d->attrs[a], (const char *)p + 24, n - 24);
		}
		break;
	case R_HEADER_FEATURE:
		if (n < 16) perfdata_die(d, off, "feature record of %zu bytes, too short", n);
		feature(d, (uint32_t)get64(p, n, 8), p + 16, n - 16, off + 16);
		break;
	case R_HEADER_BUILD_ID:
		add_buildid_rec(d, p, n, off);
		break;
	default: break;
	}
}

static int qent_cmp(const void *a, const void *b)
{
	const struct qent *x = a, *y = b;
	if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* perf's round flush: the queued records up to limit become ready (all:
 * every one; half: the earlier half of them, in time order). */
static void flush(perfdata *d, uint64_t limit, bool all, bool half)
{
	/* by (ts, seq): the records left from the last round, q[0..nsorted),
	 * are in that order already; those after them came in seq order with
	 * larger seqs, so a stable sort of them by ts alone gives theirs (the
	 * radix sort: a third of qsort's time on a round of thousands), and
	 * a merge that takes the older record on equal times gives the
	 * queue's: each record is sorted once, not again in the next round */
	struct qent *fresh = d->q + d->nsorted;
	uint32_t nfresh = d->nq - d->nsorted;
	if (nfresh > 256) radix_sort_u64(fresh, nfresh, sizeof *fresh, offsetof(struct qent, ts));
	else xqsort(fresh, nfresh, sizeof *fresh, qent_cmp);
	if (d->nsorted && nfresh && fresh[0].ts < d->q[d->nsorted - 1].ts) {
		if (d->q2cap < d->qcap) {
			free(d->q2);
			d->q2 = xmalloc((size_t)d->qcap * sizeof *d->q2);
			d->q2cap = d->qcap;
		}
		const struct qent *a = d->q, *ae = d->q + d->nsorted, *b = fresh, *be = d->q + d->nq;
		struct qent *o = d->q2;
		while (a < ae && b < be) *o++ = b->ts < a->ts ? *b++ : *a++;
		while (a < ae) *o++ = *a++;
		while (b < be) *o++ = *b++;
		struct qent *t = d->q;
		d->q = d->q2;
		d->q2 = t;
		uint32_t c = d->qcap;
		d->qcap = d->q2cap;
		d->q2cap = c;
	}
	d->nsorted = d->nq;
	uint32_t k = 0;
	if (half) k = d->nq - d->nq / 2;
	else while (k < d->nq && (all || d->q[k].ts <= limit)) k++;
	if (k) d->last_flush = d->q[k - 1].ts;
	d->nready = k;
	d->qi = 0;
}

/* The most the records waiting to be sorted take, their entries counted:
 * 32 MiB (SPAA_PERF_QUEUE=bytes sets it, for the tests). */
#define QUEUE_BOUND_DEFAULT ((uint64_t)32 << 20)
static uint64_t queue_bound(perfdata *d)
{
	if (d->qbound) return d->qbound;
	d->qbound = QUEUE_BOUND_DEFAULT;
	const char *e = getenv("SPAA_PERF_QUEUE");
	if (e && *e) {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(e, &end, 10);
		if (errno || *end || v == 0 || *e < '0' || *e > '9')
			die(EXIT_DATA, "SPAA_PERF_QUEUE: not a positive number of bytes: %s", e);
		d->qbound = v;
	}
	return d->qbound;
}

/* File mode: gives back the pages of the mapping that no queued record
 * needs any more, so that what the file takes in memory stays bounded by
 * the records of a round or two, not its size. */
static void release(perfdata *d)
{
	uint64_t low = d->pos;
	for (uint32_t i = 0; i < d->nq; i++)
		if (!d->q[i].arena && d->q[i].where < low) low = d->q[i].where;
	if (d->z.active && d->z.where < low) low = d->z.where;
	if (d->keep && (uint64_t)(d->keep - d->map) < low) low = (uint64_t)(d->keep - d->map);
	uint64_t page = 4096, from = d->dropped & ~(page - 1), to = low & ~(page - 1);
	if (to <= from || to - from < (16u << 20)) return;
	madvise((void *)(d->map + from), to - from, MADV_DONTNEED);
	d->dropped = to;
}

/* Drops the delivered records from the queue (and, in pipe mode or for
 * decompressed records, their bytes from the arena). */
static void compact(perfdata *d)
{
	if (!d->nready) return;
	uint32_t rest = d->nq - d->nready;
	if (d->arena.n) {
		d->arena2.n = 0;
		for (uint32_t i = d->nready; i < d->nq; i++) {
			struct qent *q = &d->q[i];
			if (!q->arena) continue;
			uint64_t w = d->arena2.n;
			sbuf_add(&d->arena2, d->arena.p + q->where, q->len);
			q->where = w;
		}
		sbuf t = d->arena;
		d->arena = d->arena2;
		d->arena2 = t;
	}
	for (uint32_t i = 0; i < d->nready; i++) d->qbytes -= d->q[i].len;
	memmove(d->q, d->q + d->nready, (size_t)rest * sizeof *d->q);
	d->nq = rest;
	d->nsorted -= d->nready; /* (a record queued after a half flush is not) */
	d->nready = d->qi = 0;
	if (!d->pipe) release(d);
}

/* The next record of the input itself: false at its end. */
static bool input_record(perfdata *d, const uint8_t **p, size_t *n, uint64_t *off)
{
	if (!d->pipe) {
		if (d->pos >= d->end) return false;
		if (d->end - d->pos < 8) perfdata_die(d, d->pos, "truncated: %llu bytes left, less than a record header", (unsigned long long)(d->end - d->pos));
		const uint8_t *q = d->map + d->pos;
		uint32_t sz = get32(q, 8, 4) >> 16;
		if (sz < 8) perfdata_die(d, d->pos, "record of type %u with size %u (corrupt)", get32(q, 8, 0), sz);
		if (sz > d->end - d->pos)
			perfdata_die(d, d->pos, "truncated: a record of %u bytes, %llu left in the data section", sz,
				     (unsigned long long)(d->end - d->pos));
		*p = q;
		*n = sz;
		*off = d->pos;
		d->pos += sz;
		return true;
	}
	const void *w;
	size_t have = input_window(d->in, &w, 8);
	if (have == 0) return false;
	if (have < 8) perfdata_die(d, d->spos, "truncated: %zu bytes left, less than a record header", have);
	uint32_t sz = get32(w, 8, 4) >> 16;
	if (sz < 8) perfdata_die(d, d->spos, "record of type %u with size %u (corrupt)", get32(w, 8, 0), sz);
	have = input_window(d->in, &w, sz);
	if (have < sz) perfdata_die(d, d->spos, "truncated: a record of %u bytes, %zu left", sz, have);
	*p = w;
	*n = sz;
	*off = d->spos;
	input_skip(d->in, sz);
	d->spos += sz;
	return true;
}

/* A COMPRESSED record p[0..n) at offset off: its payload becomes the
 * stream's next input. */
static void z_start(perfdata *d, const uint8_t *p, size_t n, uint32_t type, uint64_t off)
{
	struct zrd *z = &d->z;
	if (d->comp_type && d->comp_type != COMP_ZSTD)
		perfdata_die(d, off, "compressed record of compression type %u: only zstd (1) is known", d->comp_type);
	size_t hdr = 8, len = n - 8;
	if (type == R_COMPRESSED2) { /* u64 data_size, then the data padded to 8 bytes */
		if (n < 16) perfdata_die(d, off, "compressed record of %zu bytes, too short", n);
		uint64_t ds = get64(p, n, 8);
		if (ds > n - 16)
			perfdata_die(d, off, "compressed record: %llu bytes of data in a record of %zu",
				     (unsigned long long)ds, n);
		hdr = 16;
		len = (size_t)ds;
	}
	if (!z->zs) {
		z->zs = ZSTD_createDStream();
		z->out = xmalloc(ZWIN);
		if (!z->zs) die(EXIT_DATA, "%s: out of memory", d->name);
		ZSTD_initDStream(z->zs);
	}
	if (d->pipe) {
		z->copy.n = 0;
		sbuf_add(&z->copy, p + hdr, len);
		z->in = (const uint8_t *)z->copy.p;
	} else {
		z->in = p + hdr;
		z->where = (uint64_t)(p - d->map);
	}
	z->inlen = len;
	z->inpos = 0;
	z->off = off;
	z->active = true;
}

/* More of the stream into the window, after what is left there (less
 * than a record); false when the current payload has given all it has. */
static bool z_fill(perfdata *d)
{
	struct zrd *z = &d->z;
	if (z->inpos == z->inlen && !z->full) return false;
	if (z->head) {
		memmove(z->out, z->out + z->head, z->end - z->head);
		z->end -= z->head;
		z->head = 0;
	}
	ZSTD_inBuffer ib = { z->in, z->inlen, z->inpos };
	ZSTD_outBuffer ob = { z->out, ZWIN, z->end };
	size_t r = ZSTD_decompressStream(z->zs, &ob, &ib);
	if (ZSTD_isError(r)) perfdata_die(d, z->off, "compressed record: corrupt zstd data: %s", ZSTD_getErrorName(r));
	z->inpos = ib.pos;
	z->end = ob.pos;
	z->full = ob.pos == ob.size;
	return true;
}

/* The next record of the decompressed stream, if the window has a whole
 * one; its offset is that of the COMPRESSED record that completed it. */
static bool z_record(perfdata *d, const uint8_t **p, size_t *n, uint64_t *off)
{
	struct zrd *z = &d->z;
	size_t have = z->end - z->head;
	if (have < 8) return false;
	const uint8_t *q = z->out + z->head;
	uint32_t sz = get32(q, 8, 4) >> 16;
	if (sz < 8) perfdata_die(d, z->off, "compressed data: record of type %u with size %u (corrupt)", get32(q, 8, 0), sz);
	if (sz > have) return false;
	uint32_t type = get32(q, 8, 0);
	if (type == R_COMPRESSED || type == R_COMPRESSED2)
		perfdata_die(d, z->off, "compressed data: a compressed record inside it (corrupt)");
	*p = q;
	*n = sz;
	*off = z->off;
	z->head += sz;
	return true;
}

/* The next raw record: the input's, or, after a COMPRESSED record, those
 * decompressed from it; false at the end. */
static bool raw_record(perfdata *d, const uint8_t **p, size_t *n, uint64_t *off)
{
	struct zrd *z = &d->z;
	for (;;) {
		while (z->active) {
			if (z_record(d, p, n, off)) {
				z->last = true;
				return true;
			}
			if (!z_fill(d)) z->active = false;
		}
		z->last = false;
		if (!input_record(d, p, n, off)) {
			if (z->end > z->head)
				perfdata_die(d, z->off, "truncated: the compressed data ends inside a record (%zu bytes of it)",
					     z->end - z->head);
			return false;
		}
		uint32_t type = get32(*p, *n, 0);
		if (type != R_COMPRESSED && type != R_COMPRESSED2) return true;
		z_start(d, *p, *n, type, *off);
	}
}

/* Bytes that follow some records outside their size (pipe mode). */
static void skip_payload(perfdata *d, uint64_t nbytes, uint64_t off)
{
	if (!d->pipe) {
		if (nbytes > d->end - d->pos) perfdata_die(d, off, "truncated: %llu bytes of data after the record", (unsigned long long)nbytes);
		d->pos += nbytes;
		return;
	}
	while (nbytes) {
		const void *w;
		size_t want = nbytes > (1 << 16) ? 1 << 16 : (size_t)nbytes;
		size_t have = input_window(d->in, &w, want);
		if (have == 0) perfdata_die(d, off, "truncated: %llu bytes of data after the record missing", (unsigned long long)nbytes);
		if (have > want) have = want;
		input_skip(d->in, have);
		d->spos += have;
		nbytes -= have;
	}
}

bool perfdata_next(perfdata *d, pd_event *e)
{
	if (dir_multi(d)) return dir_next(d, e);
	for (;;) {
		/* the rest of a sample's values first: its record's bytes are
		 * where they were at the last call */
		if (read_next(d, e)) return true;
		while (d->qi < d->nready) {
			struct qent *q = &d->q[d->qi++];
			const uint8_t *p = q->arena ? (const uint8_t *)d->arena.p + q->where : d->map + q->where;
			if (deliver(d, p, q->len, q->offset, e)) return true;
		}
		compact(d);
		if (d->eof) return false;
		const uint8_t *p;
		size_t n;
		uint64_t off;
		if (!raw_record(d, &p, &n, &off)) {
			d->eof = true;
			flush(d, 0, true, false);
			continue;
		}
		uint32_t type = get32(p, n, 0);
		if (type == R_FINISHED_ROUND) {
			flush(d, d->next_flush, false, false);
			d->next_flush = d->max_ts;
			continue;
		}
		if (type >= 64) {
			uint64_t extra = 0;
			if (type == R_HEADER_TRACING_DATA && n >= 12) extra = get32(p, n, 8);
			if (type == R_AUXTRACE && n >= 16) extra = get64(p, n, 8);
			if (extra && d->z.last)
				perfdata_die(d, off, "compressed data: a record of type %u with data after it (not written so by perf)", type);
			user_record(d, p, n, type, off);
			if (extra) skip_payload(d, extra, off);
			continue;
		}
		if (!d->nattrs) perfdata_die(d, off, "a record before any event attribute");
		uint64_t ts = record_time(d, p, n, type);
		if (ts == 0 || ts == UINT64_MAX) {
			if (deliver(d, p, n, off, e)) return true;
			continue;
		}
		/* the queue full (no FINISHED_ROUND for too long: a capture of
		 * millions of samples without one, or a few kilobytes of zstd
		 * making gigabytes of records): its earlier half delivered, as
		 * perf does at its queue's limit (ordered_events' OE_FLUSH__HALF),
		 * this record queued after them; one queued later with a time
		 * before theirs comes out of time order (perf's "out of order
		 * events"), counted for the warning */
		if (d->nq && d->qbytes + n + (uint64_t)(d->nq + 1) * sizeof *d->q > queue_bound(d)) {
			flush(d, 0, false, true);
			d->next_flush = d->last_flush;
			d->halves++;
		}
		if (d->halves && ts < d->last_flush) d->unordered++;
		struct qent *q = VEC_PUSH(d->q, d->nq, d->qcap);
		q->ts = ts;
		q->seq = d->seq++;
		q->offset = off;
		q->len = (uint32_t)n;
		q->arena = d->pipe || d->z.last;
		d->qbytes += n;
		if (q->arena) {
			q->where = d->arena.n;
			sbuf_add(&d->arena, p, n);
		} else {
			q->where = (uint64_t)(p - d->map);
		}
		if (ts > d->max_ts) d->max_ts = ts;
	}
}

/* ---- perf.data directories (perf record --threads) ----------------------
 *
 * perf record --threads writes a directory: the file "data" holds the
 * header, the features (HEADER_DIR_FORMAT among them) and the records perf
 * makes itself (the processes and mappings there were, ids, event names);
 * each of its threads writes the records of the ring buffers it reads to a
 * file "data.N" of its own: records alone, no header, the whole file their
 * data, and no FINISHED_ROUND anywhere (perf writes none in this mode).
 * perf reads the files in turns, 2 MiB of records from each (the "data"
 * file's data section first, then the data.N files in the directory's
 * order, those of 0 bytes left out); a record without a time it delivers
 * at once, the others it queues, and with no round to flush them before,
 * delivers them all at the end, sorted by time, on equal times the one
 * that came first first.
 *
 * Here the same order without holding the records.  A first pass reads the
 * files in perf's turns, delivers the untimed records (and reads perf's own),
 * and notes where each file's turns end and where its times go back: its
 * runs (the kernel writes a cpu's records in time order, so a data.N file
 * of one cpu is one run; one of several cpus a run for each read of perf's
 * from a cpu's buffer).  Then a merge of the runs, on a heap keyed by
 * (time, turn, file, offset), perf's order, delivers the timed ones.
 * Memory: the runs and turns, not the records; the mappings' pages behind
 * the reading are given back as in one file. */

#define TURN_BYTES (2u << 20)   /* perf's READER_MAX_SIZE */
#define RELEASE_EVERY 4096      /* records between two looks at what the merge still needs */

struct part {
	char *name;              /* "DIR/data", "DIR/data.N": for messages */
	int fd;                  /* -1: the "data" file (perfdata's own fd and map) */
	const uint8_t *map;
	size_t mapsz;
	uint64_t pos, end;       /* the first pass's place, the end of the records */
	uint64_t dropped;        /* the pages below were given back */
	uint64_t turn_bytes;     /* read in the current turn */
	uint64_t *turns;         /* where each turn ends */
	uint32_t nturns, tcap;
	uint64_t last_ts;        /* of the last timed record read */
	uint32_t run;            /* the run being read (index into runs), UINT32_MAX none */
	bool done;
};

struct run {
	uint64_t ts;             /* of its next record, at pos */
	uint32_t turn, part;
	uint64_t pos, end;
};

struct pdir {
	struct part *parts;
	uint32_t nparts, pcap;
	bool multi;              /* data.N files to merge (else the "data" file alone) */
	uint32_t cur, left;      /* first pass: the file in turn, the files not at their end */
	bool merging;
	struct run *runs;        /* the merge's heap */
	uint32_t nruns, rcap;
	uint64_t *low;           /* per file: the lowest offset the merge still reads */
	uint32_t since_release;
};

static void part_release(struct part *p, uint64_t low)
{
	uint64_t page = 4096, from = p->dropped & ~(page - 1), to = low & ~(page - 1);
	if (to <= from || to - from < (16u << 20)) return;
	madvise((void *)(p->map + from), to - from, MADV_DONTNEED);
	p->dropped = to;
}

/* Opens and maps DIR/NAME (a regular file of size bytes) as a part. */
static void add_part(struct pdir *r, const char *path, const char *name, uint64_t size)
{
	struct part *p = VEC_PUSH(r->parts, r->nparts, r->pcap);
	memset(p, 0, sizeof *p);
	sbuf nm = { 0 };
	sbuf_printf(&nm, "%s/%s", path, name);
	p->name = nm.p;
	p->run = UINT32_MAX;
	p->fd = open(p->name, O_RDONLY | O_CLOEXEC);
	if (p->fd < 0) die(EXIT_DATA, "%s: %s", p->name, strerror(errno));
	void *m = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, p->fd, 0);
	if (m == MAP_FAILED) die(EXIT_DATA, "%s: cannot map: %s", p->name, strerror(errno));
	madvise(m, (size_t)size, MADV_SEQUENTIAL);
	p->map = m;
	p->mapsz = (size_t)size;
	p->end = size;
}

static void open_dir(perfdata *d, const char *path)
{
	struct pdir *r = xcalloc(1, sizeof *r);
	d->dir = r;
	struct part *p0 = VEC_PUSH(r->parts, r->nparts, r->pcap);
	memset(p0, 0, sizeof *p0);
	sbuf nm = { 0 };
	sbuf_printf(&nm, "%s/data", path);
	p0->name = nm.p;
	p0->fd = -1;
	p0->run = UINT32_MAX;
	d->part_name = p0->name;
	/* the "data" file: a perf.data file of its own */
	struct stat st;
	unsigned char h[16];
	/* (not blocking: a FIFO named data is no perf.data) */
	int fd = open(p0->name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		die(EXIT_DATA, "%s: a directory, but not a perf.data directory (perf record --threads): no file 'data' in it",
		    d->name);
	d->fd = fd;
	if (pread(fd, h, sizeof h, 0) != (ssize_t)sizeof h || !perfdata_magic(h, 8))
		die(EXIT_DATA, "%s: a directory, but not a perf.data directory: its file 'data' is not a perf.data file "
		    "(no PERFILE2 magic)", d->name);
	if (memcmp(h, FILE_MAGIC_SWAPPED, 8) == 0)
		die(EXIT_DATA, "%s: a perf.data of the other byte order (big-endian machine): not supported; "
		    "convert it with 'perf script' on a machine of that order", d->name);
	d->mapsz = (size_t)st.st_size;
	if (get64(h, 16, 8) == PIPE_HEADER_SIZE || d->mapsz < HEADER_SIZE)
		perfdata_die(d, 0, "not the header of a perf.data directory (a pipe-mode or truncated file)");
	void *m = mmap(NULL, d->mapsz, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED) die(EXIT_DATA, "%s: cannot map: %s", p0->name, strerror(errno));
	madvise(m, d->mapsz, MADV_SEQUENTIAL);
	d->map = m;
	read_header(d);
	p0->map = d->map;
	p0->mapsz = d->mapsz;
	p0->pos = d->pos;
	p0->end = d->end;
	/* without HEADER_DIR_FORMAT perf reads the "data" file alone */
	if (d->dir_version == 0) return;
	if (d->dir_version != 1)
		die(EXIT_DATA, "%s: a perf.data directory of format version %llu: not supported (version 1 is); "
		    "convert it with 'perf script -i %s | %s'", d->name, (unsigned long long)d->dir_version, d->name, cli_prog);
	/* its data.N files, in the directory's order as perf takes them */
	DIR *dp = opendir(path);
	if (!dp) die(EXIT_DATA, "%s: %s", d->name, strerror(errno));
	bool any = false;
	struct dirent *de;
	while ((de = readdir(dp)) != NULL) {
		if (strncmp(de->d_name, "data.", 5) != 0) continue;
		sbuf fn = { 0 };
		sbuf_printf(&fn, "%s/%s", path, de->d_name);
		bool reg = stat(fn.p, &st) == 0 && S_ISREG(st.st_mode);
		sbuf_free(&fn);
		if (!reg) continue;
		any = true;
		if (st.st_size > 0) add_part(r, path, de->d_name, (uint64_t)st.st_size);
	}
	closedir(dp);
	if (!any)
		die(EXIT_DATA, "%s: a perf.data directory (perf record --threads) without its data.N files, "
		    "which hold the samples", d->name);
	/* all of them empty: the "data" file alone, as perf reads it */
	r->multi = r->nparts > 1;
	r->left = r->nparts;
	d->part_name = r->multi ? NULL : r->parts[0].name;
}

static void close_dir(perfdata *d)
{
	struct pdir *r = d->dir;
	if (!r) return;
	for (uint32_t i = 0; i < r->nparts; i++) {
		struct part *p = &r->parts[i];
		if (p->fd >= 0) {
			munmap((void *)p->map, p->mapsz);
			close(p->fd);
		}
		free(p->name);
		free(p->turns);
	}
	free(r->parts);
	free(r->runs);
	free(r->low);
	free(r);
	d->dir = NULL;
	d->part_name = NULL;
}

/* The record at p's offset off (checked by the first pass, or checked
 * here): its size, and *extra the bytes after it that belong to it. */
static uint32_t part_record(perfdata *d, const struct part *p, uint64_t off, uint64_t *extra)
{
	d->part_name = p->name;
	if (p->end - off < 8)
		perfdata_die(d, off, "truncated: %llu bytes left, less than a record header", (unsigned long long)(p->end - off));
	const uint8_t *q = p->map + off;
	uint32_t type = get32(q, 8, 0), sz = get32(q, 8, 4) >> 16;
	if (sz < 8) perfdata_die(d, off, "record of type %u with size %u (corrupt)", type, sz);
	if (sz > p->end - off)
		perfdata_die(d, off, "truncated: a record of %u bytes, %llu left in the file", sz, (unsigned long long)(p->end - off));
	*extra = 0;
	if (type == R_HEADER_TRACING_DATA && sz >= 12) *extra = get32(q, sz, 8);
	if (type == R_AUXTRACE && sz >= 16) *extra = get64(q, sz, 8);
	if (*extra > p->end - off - sz)
		perfdata_die(d, off, "truncated: %llu bytes of data after the record", (unsigned long long)*extra);
	return sz;
}

static void turn_end(struct part *p, uint64_t at)
{
	*(uint64_t *)VEC_PUSH(p->turns, p->nturns, p->tcap) = at;
	p->turn_bytes = 0;
}

/* A timed record of p at off: it continues p's run, or starts one. */
static void part_timed(struct pdir *r, struct part *p, uint64_t off, uint64_t ts)
{
	if (p->run == UINT32_MAX || ts < p->last_ts) {
		if (p->run != UINT32_MAX) r->runs[p->run].end = off;
		struct run *u = VEC_PUSH(r->runs, r->nruns, r->rcap);
		u->ts = ts;
		u->turn = 0;
		u->part = (uint32_t)(p - r->parts);
		u->pos = off;
		u->end = p->end;
		p->run = r->nruns - 1;
	}
	p->last_ts = ts;
}

static bool run_before(const struct run *a, const struct run *b)
{
	if (a->ts != b->ts) return a->ts < b->ts;
	if (a->turn != b->turn) return a->turn < b->turn;
	if (a->part != b->part) return a->part < b->part;
	return a->pos < b->pos;
}

static void heap_down(struct run *h, uint32_t n, uint32_t i)
{
	struct run x = h[i];
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n) break;
		if (c + 1 < n && run_before(&h[c + 1], &h[c])) c++;
		if (!run_before(&h[c], &x)) break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

/* The turn of p that offset off is read in. */
static uint32_t turn_of(const struct part *p, uint64_t off)
{
	uint32_t lo = 0, hi = p->nturns;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (p->turns[mid] <= off) lo = mid + 1;
		else hi = mid;
	}
	return lo;
}

/* Moves run u on to its next timed record; false when it has none. */
static bool run_advance(perfdata *d, struct pdir *r, struct run *u)
{
	const struct part *p = &r->parts[u->part];
	uint64_t extra, o = u->pos;
	o += part_record(d, p, o, &extra) + extra;
	while (o < u->end) {
		uint32_t sz = part_record(d, p, o, &extra);
		const uint8_t *q = p->map + o;
		uint32_t type = get32(q, sz, 0);
		if (type < 64) {
			uint64_t ts = record_time(d, q, sz, type);
			if (ts != 0 && ts != UINT64_MAX) {
				u->pos = o;
				u->ts = ts;
				while (u->turn < p->nturns && p->turns[u->turn] <= o) u->turn++;
				return true;
			}
		}
		o += sz + extra;
	}
	return false;
}

static void merge_start(struct pdir *r)
{
	for (uint32_t i = 0; i < r->nruns; i++) r->runs[i].turn = turn_of(&r->parts[r->runs[i].part], r->runs[i].pos);
	for (uint32_t i = r->nruns / 2; i-- > 0;) heap_down(r->runs, r->nruns, i);
	/* the first pass's pages: read again from here on as the merge needs them */
	for (uint32_t i = 0; i < r->nparts; i++) {
		struct part *p = &r->parts[i];
		uint64_t page = 4096, from = p->dropped & ~(page - 1), to = (p->mapsz + page - 1) & ~(page - 1);
		if (to > from) madvise((void *)(p->map + from), to - from, MADV_DONTNEED);
		p->dropped = 0;
	}
	r->low = xcalloc(r->nparts, sizeof *r->low);
	r->merging = true;
}

/* Gives back the pages of each file below the lowest place the merge reads. */
static void merge_release(struct pdir *r)
{
	for (uint32_t i = 0; i < r->nparts; i++) r->low[i] = UINT64_MAX;
	for (uint32_t i = 0; i < r->nruns; i++)
		if (r->runs[i].pos < r->low[r->runs[i].part]) r->low[r->runs[i].part] = r->runs[i].pos;
	for (uint32_t i = 0; i < r->nparts; i++)
		part_release(&r->parts[i], r->low[i] == UINT64_MAX ? r->parts[i].end : r->low[i]);
}

static bool dir_multi(const perfdata *d)
{
	return d->dir && d->dir->multi;
}

static bool dir_next(perfdata *d, pd_event *e)
{
	struct pdir *r = d->dir;
	/* the rest of a sample's values first (PERF_SAMPLE_READ) */
	if (read_next(d, e)) return true;
	while (!r->merging) {
		if (!r->left) {
			merge_start(r);
			break;
		}
		struct part *p = &r->parts[r->cur];
		if (p->done) {
			r->cur = (r->cur + 1) % r->nparts;
			continue;
		}
		part_release(p, p->pos);
		if (p->pos >= p->end) { /* perf's turn goes on to the next file without a read */
			p->done = true;
			if (p->turn_bytes || !p->nturns) turn_end(p, p->end);
			r->left--;
			continue;
		}
		uint64_t extra, off = p->pos;
		uint32_t sz = part_record(d, p, off, &extra);
		const uint8_t *q = p->map + off;
		uint32_t type = get32(q, sz, 0);
		p->pos += sz + extra;
		p->turn_bytes += sz + extra;
		bool got = false;
		if (type == R_FINISHED_ROUND) {
			perfdata_die(d, off, "a FINISHED_ROUND record in a perf.data directory, which perf record --threads "
				     "does not write: not supported; convert it with 'perf script -i %s | %s'", d->name, cli_prog);
		} else if (type == R_COMPRESSED || type == R_COMPRESSED2) {
			perfdata_die(d, off, "compressed records (perf record -z) in a perf.data directory: not supported; "
				     "record without -z, or convert it with 'perf script -i %s | %s'", d->name, cli_prog);
		} else if (type >= 64) {
			user_record(d, q, sz, type, off);
		} else {
			if (!d->nattrs) perfdata_die(d, off, "a record before any event attribute");
			uint64_t ts = record_time(d, q, sz, type);
			if (ts == 0 || ts == UINT64_MAX) got = deliver(d, q, sz, off, e);
			else part_timed(r, p, off, ts);
		}
		if (p->turn_bytes >= TURN_BYTES) {
			turn_end(p, p->pos);
			r->cur = (r->cur + 1) % r->nparts;
		}
		if (got) return true;
	}
	while (r->nruns) {
		if (++r->since_release >= RELEASE_EVERY) {
			merge_release(r);
			r->since_release = 0;
		}
		struct run *u = &r->runs[0];
		const struct part *p = &r->parts[u->part];
		uint64_t extra;
		uint32_t sz = part_record(d, p, u->pos, &extra);
		bool got = deliver(d, p->map + u->pos, sz, u->pos, e);
		if (!run_advance(d, r, u)) r->runs[0] = r->runs[--r->nruns];
		if (r->nruns) heap_down(r->runs, r->nruns, 0);
		d->part_name = p->name;
		if (got) return true;
	}
	d->part_name = NULL;
	return false;
}

const char *perfdata_name(const perfdata *d) { return d->name; }
const char *perfdata_where(const perfdata *d) { return d->part_name ? d->part_name : d->name; }

uint64_t perfdata_unordered(const perfdata *d, uint64_t *bound)
{
	*bound = d->qbound;
	return d->unordered;
}
bool perfdata_pipe(const perfdata *d) { return d->pipe; }
void perfdata_keep(perfdata *d, const void *p) { d->keep = p && perfdata_lasting(d, p, 0) ? p : NULL; }
bool perfdata_lasting(const perfdata *d, const void *p, size_t n)
{
	/* (pages given back by release() are read again from the file) */
	const uint8_t *q = p;
	return d->map && q >= d->map && n <= d->mapsz && (size_t)(q - d->map) <= d->mapsz - n;
}
uint32_t perfdata_nattrs(const perfdata *d) { return d->nattrs; }
const pd_attr *perfdata_attr(const perfdata *d, uint32_t i) { return &d->attrs[i]; }
const char *perfdata_hostname(const perfdata *d) { return d->hostname; }
const char *perfdata_osrelease(const perfdata *d) { return d->osrelease; }
const char *perfdata_version(const perfdata *d) { return d->version; }
const char *perfdata_arch(const perfdata *d) { return d->arch; }
const char *perfdata_cmdline(const perfdata *d) { return d->cmdline; }
uint32_t perfdata_nr_cpus(const perfdata *d, uint32_t *online)
{
	if (online) *online = d->nr_online;
	return d->nr_cpus;
}
uint32_t perfdata_nbuildids(const perfdata *d) { return d->nbids; }
const pd_buildid *perfdata_buildid(const perfdata *d, uint32_t i) { return &d->bids[i]; }
uint64_t perfdata_lost(const perfdata *d) { return d->lost; }
uint64_t perfdata_read_unknown(const perfdata *d) { return d->rd_unknown; }
