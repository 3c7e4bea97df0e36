/* spaa-symbolize - names for the frames of a SPAA profile that have only an
 * address: kernel addresses through kallsyms, native code through the ELF
 * file's symbol table and DWARF (source lines, inlined calls), JIT code
 * through perf-PID.map files, run-time addresses of position-independent
 * code through saved /proc/PID/maps.  See spaa-symbolize(1).
 *
 * Options: the sources (--kallsyms, --maps, --root, --debug-dir, --perf-map;
 * symtab.h and elfsym.h read them, each when first needed), --verbose (per
 * dso counts, written at the end), -o and -z (output.h).
 *
 * The loop, one pass: dictionary records are kept in memory as they were
 * read (keep_dict).  A frame is resolved when the first stack that uses it
 * comes (frag_of): once, or once per process when only the process's maps
 * or perf map can name it.  A frame that gets a name may become several (the
 * functions inlined at its address, innermost first, as spaa(5) orders
 * them), and new dsos and frames are made.  The look-ups in the frames' own
 * ELF files are made ahead, for the frames read before a stack, in the
 * order of their addresses (look_ahead).  A stack with a changed frame is
 * rewritten and, with content-addressed ids, gets its content id again
 * (spaa(5), stackid.h: four stacks' path bytes hashed side by side, each
 * stack kept until then, settle_stacks); stacks that have become one are
 * summed into the first (settle_stack, the sums in wsum.h).  Stacks, samples and windows go to
 * a spool (spool.h) in their final form, the references of samples and
 * windows mapped as they come, except what only the end can settle (stacks
 * that others were merged into, references to stacks not met yet).
 *
 * The output, at the end: the dictionaries (write_dicts: frames that got a
 * name rewritten in place, new dsos before the first frame, new frames after
 * the last), then the spool played back (play_spool): a stack others were
 * summed into gets the sums, related_stacks and late references are mapped,
 * a window's entries for stacks that became one summed into one entry.
 *
 * spaa-demangle merges renamed stacks as well, but from a spool of the
 * stacks as read, their ids settled only at the end; what the two share is
 * in stackid.h and wsum.h. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "readers/open.h"
#include "cli.h"
#include "elfsym.h"
#include "fnvmemo.h"
#include "jsonbuf.h"
#include "jsonw.h"
#include "num.h"
#include "output.h"
#include "rootpath.h"
#include "spaa.h"
#include "spool.h"
#include "stackid.h"
#include "strmap.h"
#include "symtab.h"
#include "util.h"
#include "wsum.h"

static const char help_text[] =
	"Usage: spaa-symbolize [OPTION]... [FILE]...\n"
	"Give the frames of a SPAA profile that have only an address a function name,\n"
	"and with DWARF a source line and the functions inlined there.  Frames that\n"
	"cannot be resolved stay as they are.  With no FILE, or when FILE is -, read\n"
	"standard input (plain, gzip or zstd).\n"
	"\n"
	"A frame is looked at when it has an address (ip, or a name that is one) and\n"
	"no name (func_resolved false, \"[unknown]\" or an address as name).  Stacks\n"
	"that become the same stack are summed, with content ids.\n"
	"\n"
	"Sources, tried in this order (the first that knows the address wins):\n"
	"      --kallsyms=FILE  kernel symbols for kernel frames (default\n"
	"                       /proc/kallsyms when it has addresses; \"none\": no\n"
	"                       kernel symbols); module names become the dso\n"
	"      --maps=PID=FILE  the saved /proc/PID/maps of process PID: its run-time\n"
	"                       addresses are turned into file and offset, then\n"
	"                       resolved in that file; repeatable\n"
	"      --maps=DIR       the same for every process with a DIR/PID file\n"
	"                       (also DIR/PID.maps, DIR/PID/maps)\n"
	"                       ELF files: the frame's dso as recorded (or the\n"
	"                       mapped file): .symtab, else .dynsym, and DWARF\n"
	"      --root=DIR       look for ELF files under DIR\n"
	"      --debug-dir=DIR  separate debug files by build id, DIR/xx/yyyy.debug\n"
	"                       (default /usr/lib/debug/.build-id)\n"
	"      --perf-map=DIR   JIT symbols from DIR/perf-PID.map (default /tmp)\n"
	"\n"
	"      --verbose        report per dso how many addresses were resolved,\n"
	"                       and why the others were not\n"
	READERS_HELP_HEAD READERS_HELP_FORMAT READERS_HELP_SYMFS READERS_HELP_SAMPLES READERS_HELP_OPT
	CLI_HELP_TAIL;

/* ---- options ------------------------------------------------------------------ */

struct mapsopt { int64_t pid; const char *file; };

static struct {
	const char *kallsyms, *root, *debug_dir, *perf_map, *maps_dir, *out;
	struct mapsopt *maps;
	uint32_t nmaps, mapscap;
	bool verbose, zstd;
} O = { .perf_map = "/tmp" };

static void parse_options(int argc, char **argv, const char **path)
{
	enum { O_KALLSYMS = 256, O_MAPS, O_ROOT, O_DEBUG, O_PERFMAP, O_VERBOSE };
	static const struct option longopts[] = {
		{ "kallsyms", required_argument, 0, O_KALLSYMS },
		{ "maps", required_argument, 0, O_MAPS },
		{ "root", required_argument, 0, O_ROOT },
		{ "debug-dir", required_argument, 0, O_DEBUG },
		{ "perf-map", required_argument, 0, O_PERFMAP },
		{ "verbose", no_argument, 0, O_VERBOSE },
		{ "symfs", required_argument, 0, READERS_OPT_BASE + 0 },
		{ "no-inline", no_argument, 0, READERS_OPT_BASE + 4 },
		{ "format", required_argument, 0, READERS_OPT_BASE + 6 },
		{ "reader-option", required_argument, 0, READERS_OPT_BASE + 7 },
		READERS_SAMPLES_LONGOPT,
		CLI_OUT_LONGOPTS,
		CLI_STD_LONGOPTS,
		{ 0, 0, 0, 0 }
	};
	int c;
	while ((c = getopt_long(argc, argv, "so:zhV", longopts, NULL)) != -1) {
		switch (c) {
		/* the same to the readers of perf.data */
		case O_KALLSYMS: O.kallsyms = optarg; readers_option("kallsyms", optarg); break;
		case O_MAPS: {
			const char *eq = strchr(optarg, '=');
			struct stat st;
			if (!eq) {
				if (stat(optarg, &st) != 0 || !S_ISDIR(st.st_mode))
					usage_error("--maps: '%s' is not PID=FILE nor a directory", optarg);
				O.maps_dir = optarg;
				break;
			}
			char pid[24];
			size_t n = (size_t)(eq - optarg);
			int64_t v;
			if (n == 0 || n >= sizeof pid || !parse_i64(optarg, n, &v) || v < 0)
				usage_error("--maps: '%s' is not PID=FILE (PID a process id)", optarg);
			if (!eq[1]) usage_error("--maps: '%s' names no file", optarg);
			struct mapsopt *m = VEC_PUSH(O.maps, O.nmaps, O.mapscap);
			m->pid = v;
			m->file = eq + 1;
			break;
		}
		case O_ROOT: O.root = optarg; readers_option("root", optarg); break;
		case O_DEBUG: O.debug_dir = optarg; readers_option("debug-dir", optarg); break;
		case O_PERFMAP: O.perf_map = optarg; break;
		case O_VERBOSE: O.verbose = true; break;
		CLI_OUT_CASES(O.out, O.zstd);
		READERS_OPT_CASES;
		CLI_STD_CASES(help_text);
		}
	}
	*path = readers_operands(argv + optind, argc - optind);
}

/* ---- the sources ------------------------------------------------------------------- */

/* Why a frame stays unresolved (after elfsym's own reasons). */
enum {
	R_NO_KALLSYMS = ES_NWHY, R_NOT_IN_KALLSYMS, R_NO_DSO, R_NOT_MAPPED, R_NOT_IN_PERFMAP, R_NWHY
};
static const char *why_text(int why)
{
	switch (why) {
	case R_NO_KALLSYMS: return "kernel address and no kallsyms";
	case R_NOT_IN_KALLSYMS: return "kernel address outside any symbol";
	case R_NO_DSO: return "no file known for the address";
	case R_NOT_MAPPED: return "address in no mapping of the process";
	case R_NOT_IN_PERFMAP: return "JIT address not in the perf map";
	default: return elfsym_why_text(why);
	}
}

static elfsym *E;
/* perf prints the addresses of frames it could not name as offsets into
 * their file */
static bool perf_offsets;
static symtab K;
static bool have_k;

/* Per process: its maps and its perf map, loaded when first needed. */
struct proc {
	bool loaded;
	bool has_maps, has_pm;
	symtab maps, pm;
	char *pm_path;
};
static strmap procs;
static struct proc *P;
static uint32_t pcap;

/* p, a path made from the input's pids, opened if it is a regular file
 * (rootpath.h: a FIFO there is not opened in a way that blocks, nor
 * looked at and then opened by its path again): the descriptor, or -1. */
static int data_file(const char *p)
{
	int why;
	return rp_open_regular(p, &why);
}

static struct proc *proc_of(int64_t pid)
{
	bool added;
	uint32_t i = strmap_intern(&procs, &pid, sizeof pid, &added);
	if (added) {
		grow_array((void **)&P, &pcap, i + 1, sizeof *P);
		memset(&P[i], 0, sizeof P[i]);
	}
	struct proc *p = &P[i];
	if (p->loaded) return p;
	p->loaded = true;
	const char *mf = NULL;
	int mfd = -1;
	for (uint32_t k = 0; k < O.nmaps; k++)
		if (O.maps[k].pid == pid) mf = O.maps[k].file;
	sbuf b = { 0 };
	if (!mf && O.maps_dir) {
		static const char *const forms[] = { "%s/%lld", "%s/%lld.maps", "%s/%lld/maps" };
		for (int f = 0; f < 3 && !mf; f++) {
			b.n = 0;
			sbuf_printf(&b, forms[f], O.maps_dir, (long long)pid);
			sbuf_addc(&b, 0);
			if ((mfd = data_file(b.p)) >= 0) mf = b.p;
		}
	}
	if (mf) {
		symtab_read_maps_fd(&p->maps, mfd, mf);
		p->has_maps = true;
	}
	b.n = 0;
	sbuf_printf(&b, "%s/perf-%lld.map", O.perf_map, (long long)pid);
	sbuf_addc(&b, 0);
	p->pm_path = xstrdup(b.p);
	int pfd = data_file(b.p);
	if (pfd >= 0) {
		symtab_read_perfmap_fd(&p->pm, pfd, b.p);
		p->has_pm = true;
	}
	sbuf_free(&b);
	return p;
}

/* The kernel's symbols: a --kallsyms file at start (its errors at once),
 * /proc/kallsyms when the first kernel frame needs it. */
static bool k_loaded;
static void load_kallsyms(void)
{
	if (k_loaded) return;
	k_loaded = true;
	const char *k = O.kallsyms;
	if (k && strcmp(k, "none") == 0) return;
	int fd = -1;
	if (!k) {
		if ((fd = data_file("/proc/kallsyms")) < 0) return;
		k = "/proc/kallsyms";
	}
	symtab_read_kallsyms_fd(&K, fd, k);
	have_k = K.n > 0;
}

/* ---- the output dictionaries -------------------------------------------------------- */

static spaa_reader *r;
static bool content;          /* stack_id_mode content_addressable */
static sbuf S;               /* strings of new names, ids, path bytes */

static uint32_t str_add(const char *p, size_t n)
{
	uint32_t off = (uint32_t)S.n;
	sbuf_add(&S, p, n);
	sbuf_addc(&S, 0);
	return off;
}
#define STR(off) (S.p + (off))

/* Output dsos: the input's (the reader's index i) and new ones (NEW_DSO | j,
 * j into ND). */
#define NEW_DSO 0x80000000u
struct ndso { uint32_t name, bid, id; bool kernel; };
static struct ndso *ND;
static uint32_t nnd, ndcap;
static strmap dso_names;       /* name -> dso_of */
static uint32_t *dso_of;
static uint32_t docap;

static void dso_name_add(const char *name, uint32_t d)
{
	bool added;
	uint32_t i = strmap_intern(&dso_names, name, strlen(name), &added);
	if (!added) return; /* the first of that name */
	grow_array((void **)&dso_of, &docap, i + 1, sizeof *dso_of);
	dso_of[i] = d;
}

/* The dso of that name: the input's, else a new one. */
static uint32_t dso_for(const char *name, bool kernel, const char *bid)
{
	int64_t i = strmap_find(&dso_names, name, strlen(name));
	if (i >= 0) return dso_of[i];
	struct ndso *x = VEC_PUSH(ND, nnd, ndcap);
	x->name = str_add(name, strlen(name));
	x->bid = bid && *bid ? str_add(bid, strlen(bid)) : UINT32_MAX;
	x->kernel = kernel;
	x->id = UINT32_MAX;
	dso_name_add(name, NEW_DSO | (nnd - 1));
	return NEW_DSO | (nnd - 1);
}

static sstr dso_name(uint32_t d)
{
	if (d & NEW_DSO) return sstr_c(STR(ND[d & ~NEW_DSO].name));
	const spaa_dso *x = &r->dsos[d];
	return (sstr){ x->name ? x->name : "", x->name ? x->name_n : 0 };
}

/* A name and a line, in S (src UINT32_MAX: none). */
struct names { uint32_t func, fn, src, sn; };

/* Output frames. */
struct ofr {
	uint32_t in;          /* the input frame it comes from */
	bool resolved;        /* false: the input record unchanged */
	bool fresh;           /* a new record (not the input's, in place) */
	uint8_t kind;
	int32_t depth;        /* inline_depth, -1: none */
	struct names s;       /* its name and line */
	uint32_t dso;         /* odso */
	bool has_symoff;
	uint64_t symoff;
	uint32_t idj, idn;    /* the id as JSON text, in S */
};
static struct ofr *F;
static uint32_t nf, fcap;

/* What an input frame becomes in a stack (on its own, or in a process):
 * output frames start .. start + n - 1, innermost first, and what the
 * stacks that use it take from them, made once: their ids as the stack
 * record lists them (in its frame order, joined with commas), their path
 * bytes root first, whether they differ from the input frame. */
struct frag {
	uint32_t start, n;
	uint32_t ids, idsn;   /* in S */
	bool changed;
	fnvmemo *path;        /* NULL: not made yet */
	uint32_t pathsz;      /* its size in memory (to prefetch it without reading it) */
};
static struct frag *FG;
static uint32_t nfg, fgcap;

/* Per input frame. */
struct fin {
	bool done;            /* resolved without a pid (or found pid dependent) */
	bool per_pid;         /* unresolved alone: try with each stack's pid */
	bool cand;            /* has an address and no name */
	bool used_raw;        /* a stack has it unchanged */
	bool int_id;          /* its id is an integer (in its record, a number) */
	uint64_t addr;
	uint32_t start, n;    /* its frames (without a pid), innermost first */
	uint32_t frag;        /* the same as a frag */
	uint32_t idj, idn;    /* its id as JSON text, in S (made as it is read) */
	uint32_t prim;        /* the output frame holding its id */
	uint32_t kept, nkept; /* a candidate's members a resolved frame keeps, as
			       * JSON text (",key:value"...) in KT */
};
static struct fin *FI;
static sbuf KT;
static uint32_t ficap;

static strmap pid_chains;      /* (input frame, pid) -> index into pc */
static uint32_t *pc_frag;      /* its frag */
static uint32_t pccap;

/* Fresh frame ids: integers above those of the input, made in increasing
 * order (the ones made, for take_frame's check of frames that come late). */
static uint64_t *fresh;
static uint32_t nfresh, freshcap;
static uint64_t next_id;
static bool next_id_set;
static uint64_t in_max;        /* the largest integer id of the input so far */
static bool any_int;

/* The integer just above the largest integer id of a dictionary (1 when it
 * has none): where fresh ids start. */
static uint64_t above_ids(const strmap *ids)
{
	uint64_t next = 1;
	for (uint32_t k = 0; k < ids->count; k++) {
		size_t n;
		const char *key = strmap_key(ids, k, &n);
		uint64_t v;
		if (parse_u64(key, n, &v) && v < UINT64_MAX && v + 1 > next) next = v + 1;
	}
	return next;
}

static uint32_t fresh_frame_id(uint32_t *len)
{
	if (!next_id_set) {
		next_id_set = true;
		next_id = above_ids(&r->frame_ids);
	}
	char buf[24];
	size_t n;
	/* an input id at or above the next one came after the first fresh id */
	do n = fmt_u64(buf, next_id++);
	while (any_int && in_max >= next_id - 1 && strmap_find(&r->frame_ids, buf, n) >= 0);
	*VEC_PUSH(fresh, nfresh, freshcap) = next_id - 1;
	*len = (uint32_t)n;
	return str_add(buf, n);
}

/* Whether id text k/n is a fresh id already made. */
static bool is_fresh(const char *k, size_t n)
{
	uint64_t v;
	if (!nfresh || !parse_u64(k, n, &v) || (n > 1 && k[0] == '0') || v > fresh[nfresh - 1]) return false;
	uint32_t lo = 0, hi = nfresh;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (fresh[mid] < v) lo = mid + 1;
		else hi = mid;
	}
	return lo < nfresh && fresh[lo] == v;
}

/* ---- statistics (--verbose) ------------------------------------------------------- */

struct dstat { uint64_t ok, why[R_NWHY]; };
static struct dstat *ST;        /* per input dso */
static uint32_t stcap;

static void count(uint32_t dso, int why)
{
	if (dso >= stcap) {
		uint32_t old = stcap;
		grow_array((void **)&ST, &stcap, dso + 1, sizeof *ST);
		memset(ST + old, 0, (stcap - old) * sizeof *ST);
	}
	if (why == ES_OK) ST[dso].ok++;
	else ST[dso].why[why]++;
}

/* ---- resolving -------------------------------------------------------------------- */

static bool is_hex_addr(const char *s, uint64_t *v)
{
	if (!(s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) || !s[2]) return false;
	uint64_t x = 0;
	int nd0 = 0;
	for (const char *p = s + 2; *p; p++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
			: *p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;
		if (d < 0 || ++nd0 > 16) return false;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return true;
}

#define KERNEL_START 0xffff800000000000ULL

static bool is_kernel(const spaa_frame *fr, uint64_t addr)
{
	const spaa_dso *d = &r->dsos[fr->dso];
	if (d->is_kernel || fr->kind == FK_KERNEL) return true;
	return (!d->name || !d->name[0] || strcmp(d->name, "[unknown]") == 0) && addr >= KERNEL_START;
}

/* A chain being built: innermost first. */
struct link { struct names s; uint32_t dso; uint8_t kind; bool has_symoff; uint64_t symoff; };
static struct link *L;
static uint32_t nl, lcap;
static sbuf LT;                /* its strings */

/* The names of frame k of res added to S. */
static struct names res_names(const elfsym_res *res, uint32_t k)
{
	struct names x;
	x.fn = (uint32_t)strlen(res->func[k]);
	x.func = str_add(res->func[k], x.fn);
	x.sn = res->srcline[k] ? (uint32_t)strlen(res->srcline[k]) : 0;
	x.src = res->srcline[k] ? str_add(res->srcline[k], x.sn) : UINT32_MAX;
	return x;
}

static void chain_elf(const elfsym_res *res, uint32_t dso)
{
	nl = 0;
	for (uint32_t k = 0; k < res->n; k++) {
		struct link *l = VEC_PUSH(L, nl, lcap);
		l->s = res_names(res, k);
		l->dso = dso;
		l->kind = FK_USER;
		l->has_symoff = res->has_symoff;
		l->symoff = res->symoff;
	}
}

static void chain_one(const char *func, uint32_t dso, uint8_t kind, uint64_t symoff)
{
	nl = 0;
	struct link *l = VEC_PUSH(L, nl, lcap);
	l->s.fn = (uint32_t)strlen(func);
	l->s.func = str_add(func, l->s.fn);
	l->s.src = UINT32_MAX;
	l->s.sn = 0;
	l->dso = dso;
	l->kind = kind;
	l->has_symoff = true;
	l->symoff = symoff;
}

/* The dso a perf map gives its frames: the map's own path. */
static uint32_t perfmap_dso(struct proc *p)
{
	return dso_for(p->pm_path, false, NULL);
}

/* The look-ups in the ELF file of the frame's own dso, made ahead for the
 * frames read so far in the order of their addresses (look_ahead): the
 * file's tables are then met in order, not at random as the stacks meet
 * them (half the look-up's time).  Per input frame, its answer: why not,
 * or its frames' names (AN[at .. at + n), their strings in S already) and
 * the symbol offset. */
struct ahead { int32_t w; uint32_t n, at, dso, pathsz; bool has_symoff; uint64_t symoff; fnvmemo *path; };
static struct ahead *AH;       /* by input frame; w < 0: not looked up ahead */
static uint32_t ahcap, nahead; /* nahead: the frames looked at so far */
static struct names *AN;
static uint32_t n_an, ancap;

/* Whether input dso d is a perf map (.../perf-PID.map), its pid into
 * *pid; found once per dso. */
static int8_t *dso_pm;         /* 0: not known yet, 1: a perf map, -1: not */
static int64_t *dso_pmpid;
static uint32_t dpcap, dpcap2;
static bool perf_map_dso(uint32_t d, int64_t *pid)
{
	if (d >= dpcap || !dso_pm[d]) {
		uint32_t old = dpcap;
		grow_array((void **)&dso_pm, &dpcap, d + 1, sizeof *dso_pm);
		grow_array((void **)&dso_pmpid, &dpcap2, d + 1, sizeof *dso_pmpid);
		memset(dso_pm + old, 0, dpcap - old);
		const char *base = r->dsos[d].name ? strrchr(r->dsos[d].name, '/') : NULL;
		long long mpid;
		char tail;
		dso_pm[d] = base && sscanf(base, "/perf-%lld.ma%c", &mpid, &tail) == 2 && tail == 'p' ? 1 : -1;
		dso_pmpid[d] = dso_pm[d] > 0 ? mpid : 0;
	}
	*pid = dso_pmpid[d];
	return dso_pm[d] > 0;
}

/* The file of input frame fi's own ELF look-up (without a pid), or NULL
 * when it has none: a kernel frame, a perf map, no path. */
static const char *own_elf(uint32_t fi)
{
	const spaa_frame *fr = &r->frames[fi];
	const char *dname = r->dsos[fr->dso].name ? r->dsos[fr->dso].name : "";
	int64_t mpid;
	if (is_kernel(fr, FI[fi].addr) || dname[0] != '/' || perf_map_dso(fr->dso, &mpid)) return NULL;
	return dname;
}

struct ahead_key { uint32_t dso; uint32_t fi; uint64_t addr; };

/* The path bytes (spaa(5), STACK IDENTITY) of frames nm[0 .. n) (the names
 * of a look-up, innermost first, in S), in input dso d, root first, as
 * frag_path makes them from the frames made of it: made here, while the
 * names are in the cache, straight into the memo. */
static fnvmemo *ahead_path(const struct names *nm, uint32_t n, uint32_t d)
{
	const spaa_dso *x = &r->dsos[d];
	size_t dn = x->name ? x->name_n : 0, len = 0;
	for (uint32_t k = 0; k < n; k++)
		len += nm[k].fn + dn + 4 + (nm[k].src != UINT32_MAX ? 1 + (size_t)nm[k].sn : 0);
	fnvmemo *m = fnvmemo_alloc(len);
	unsigned char *w = m->s;
	for (uint32_t k = n; k-- > 0;) {
		memcpy(w, STR(nm[k].func), nm[k].fn);
		w += nm[k].fn;
		*w++ = 0x1f;
		if (dn) memcpy(w, x->name, dn);
		w += dn;
		*w++ = 0x1f;
		*w++ = k + 1 < n ? 'i' : 'p';
		if (nm[k].src != UINT32_MAX) {
			*w++ = 0x1f;
			memcpy(w, STR(nm[k].src), nm[k].sn);
			w += nm[k].sn;
		}
		*w++ = 0x1e;
	}
	return m;
}

/* Sorts *k[0..n) by address (by_dso: by dso), keeping the order of equal
 * ones: LSD radix, 8 bits a pass, skipping the digits all share (*t: room
 * for n, swapped with *k as the passes go). */
static void radix_keys(struct ahead_key **k, struct ahead_key **t, uint32_t n, bool by_dso)
{
	for (unsigned sh = 0; sh < (by_dso ? 32u : 64u); sh += 8) {
		uint32_t cnt[256] = { 0 };
		for (uint32_t i = 0; i < n; i++) cnt[((by_dso ? (*k)[i].dso : (*k)[i].addr) >> sh) & 0xff]++;
		bool same = false;
		for (unsigned b = 0; b < 256 && !same; b++) same = cnt[b] == n;
		if (same) continue;
		for (uint32_t b = 0, sum = 0; b < 256; b++) {
			uint32_t c = cnt[b];
			cnt[b] = sum;
			sum += c;
		}
		for (uint32_t i = 0; i < n; i++)
			(*t)[cnt[((by_dso ? (*k)[i].dso : (*k)[i].addr) >> sh) & 0xff]++] = (*k)[i];
		struct ahead_key *x = *k;
		*k = *t;
		*t = x;
	}
}

/* Looks up ahead the candidates among the frames read since the last call
 * that are not resolved yet: when there are enough of them, or when all
 * is set (frames that come a few at a time between the stacks are left to
 * the stacks that use them). */
static uint32_t ncand;          /* candidates read since */
static void look_ahead(bool all)
{
	uint32_t end = r->frame_ids.count;
	if (nahead >= end || (!all && ncand < 256)) return;
	ncand = 0;
	grow_array((void **)&AH, &ahcap, end, sizeof *AH);
	struct ahead_key *k = NULL;
	uint32_t nk = 0, kcap = 0;
	for (uint32_t fi = nahead; fi < end; fi++) {
		AH[fi].w = -1;
		if (!FI[fi].cand || FI[fi].done || !own_elf(fi)) continue;
		struct ahead_key *x = VEC_PUSH(k, nk, kcap);
		x->dso = r->frames[fi].dso;
		x->fi = fi;
		x->addr = FI[fi].addr;
	}
	nahead = end;
	/* by dso, then address, then input order */
	struct ahead_key *t = xmalloc((nk ? nk : 1) * sizeof *t);
	radix_keys(&k, &t, nk, false);
	radix_keys(&k, &t, nk, true);
	free(t);
	for (uint32_t i = 0; i < nk; i++) {
		struct ahead *a = &AH[k[i].fi];
		elfsym_res res;
		a->dso = k[i].dso;
		a->path = NULL;
		a->w = elfsym_lookup(E, r->dsos[a->dso].name, k[i].addr, perf_offsets, &res);
		if (a->w != ES_OK) continue;
		a->n = res.n;
		a->at = n_an;
		a->has_symoff = res.has_symoff;
		a->symoff = res.symoff;
		for (uint32_t j = 0; j < res.n; j++) *VEC_PUSH(AN, n_an, ancap) = res_names(&res, j);
		a->path = content ? ahead_path(AN + a->at, res.n, a->dso) : NULL;
		a->pathsz = a->path ? (uint32_t)(sizeof *a->path + a->path->n) : 0;
	}
	free(k);
}

/* Input frame fi's look-up made ahead, NULL if none. */
static const struct ahead *ahead_of(uint32_t fi)
{
	return fi < nahead && AH[fi].w >= 0 ? &AH[fi] : NULL;
}

/* A look-up made ahead into L. */
static int chain_ahead(const struct ahead *a)
{
	if (a->w != ES_OK) return a->w;
	nl = 0;
	for (uint32_t k = 0; k < a->n; k++) {
		struct link *l = VEC_PUSH(L, nl, lcap);
		l->s = AN[a->at + k];
		l->dso = a->dso;
		l->kind = FK_USER;
		l->has_symoff = a->has_symoff;
		l->symoff = a->symoff;
	}
	return ES_OK;
}

/* Resolves input frame fi (with pid, or without when pid < 0) into L;
 * returns ES_OK or why not. */
static int resolve(uint32_t fi, int64_t pid)
{
	const spaa_frame *fr = &r->frames[fi];
	uint64_t addr = FI[fi].addr;
	const char *dname = r->dsos[fr->dso].name ? r->dsos[fr->dso].name : "";
	if (is_kernel(fr, addr)) {
		load_kallsyms();
		if (!have_k) return R_NO_KALLSYMS;
		const symtab_ent *e = symtab_find(&K, addr);
		if (!e) return R_NOT_IN_KALLSYMS;
		const char *mod = symtab_str(&K, e->mod);
		uint32_t dso;
		if (*mod) {
			LT.n = 0;
			sbuf_printf(&LT, "[%s]", mod);
			sbuf_addc(&LT, 0);
			dso = dso_for(LT.p, true, NULL);
		} else {
			dso = r->dsos[fr->dso].is_kernel ? fr->dso : dso_for("[kernel.kallsyms]", true, NULL);
		}
		chain_one(symtab_str(&K, e->name), dso, FK_KERNEL, addr - e->start);
		return ES_OK;
	}
	elfsym_res res;
	if (pid >= 0) {
		struct proc *p = proc_of(pid);
		if (p->has_maps) {
			const symtab_ent *m = symtab_find(&p->maps, addr);
			const char *path = m ? symtab_str(&p->maps, m->name) : NULL;
			if (path && path[0] == '/' && !(p->has_pm && strcmp(path, p->pm_path) == 0)) {
				int w = elfsym_lookup(E, path, addr - m->start + m->off, true, &res);
				if (w != ES_OK) return w;
				chain_elf(&res, dso_for(path, false, res.build_id));
				return ES_OK;
			}
			if (!p->has_pm) return R_NOT_MAPPED;
		}
		if (!p->has_pm) return R_NO_DSO;
		const symtab_ent *e = symtab_find(&p->pm, addr);
		if (!e) return R_NOT_IN_PERFMAP;
		chain_one(symtab_str(&p->pm, e->name), perfmap_dso(p), FK_USER, addr - e->start);
		return ES_OK;
	}
	/* the dso as recorded */
	int64_t mpid;
	if (perf_map_dso(fr->dso, &mpid)) {
		struct proc *p = proc_of(mpid);
		if (!p->has_pm) return ES_MISSING;
		const symtab_ent *e = symtab_find(&p->pm, addr);
		if (!e) return R_NOT_IN_PERFMAP;
		chain_one(symtab_str(&p->pm, e->name), fr->dso, FK_USER, addr - e->start);
		return ES_OK;
	}
	if (dname[0] != '/') return R_NO_DSO;
	const struct ahead *a = ahead_of(fi);
	if (a) return chain_ahead(a);
	int w = elfsym_lookup(E, dname, addr, perf_offsets, &res);
	if (w == ES_OK) chain_elf(&res, fr->dso);
	return w;
}

/* The id text of input frame fi as it is in its record (number or string). */
static void input_id(uint32_t fi, sbuf *b)
{
	size_t n;
	const char *k = strmap_key(&r->frame_ids, fi, &n);
	if (FI[fi].int_id) sbuf_add(b, k, n);
	else jb_str(b, k, n);
}

/* Input frame fi's id text added to S: its offset, its length in *n. */
static uint32_t id_add(uint32_t fi, uint32_t *n)
{
	uint32_t off = (uint32_t)S.n;
	input_id(fi, &S);
	*n = (uint32_t)(S.n - off);
	sbuf_addc(&S, 0);
	return off;
}

/* Turns chain L into output frames; the physical one takes input frame
 * fi's id when take_id.  Returns the first. */
static uint32_t make_frames(uint32_t fi, bool take_id)
{
	uint32_t first = nf;
	for (uint32_t k = 0; k < nl; k++) {
		struct ofr *o = VEC_PUSH(F, nf, fcap);
		memset(o, 0, sizeof *o);
		o->in = fi;
		o->resolved = true;
		o->kind = L[k].kind;
		o->depth = nl > 1 ? (int32_t)(nl - 1 - k) : -1;
		o->s = L[k].s;
		o->dso = L[k].dso;
		o->has_symoff = L[k].has_symoff;
		o->symoff = L[k].symoff;
		bool own = take_id && k == nl - 1;
		o->fresh = !own;
		if (own) {
			o->idj = FI[fi].idj;
			o->idn = FI[fi].idn;
		} else {
			o->idj = fresh_frame_id(&o->idn);
		}
	}
	return first;
}

/* The unchanged output frame of input frame fi. */
static uint32_t raw_frame(uint32_t fi)
{
	struct ofr *o = VEC_PUSH(F, nf, fcap);
	memset(o, 0, sizeof *o);
	o->in = fi;
	o->dso = r->frames[fi].dso;
	o->depth = -1;
	o->idj = FI[fi].idj;
	o->idn = FI[fi].idn;
	return nf - 1;
}

static bool stacks_done;      /* settling the frames no stack used */
static fnvmemo *frag_path(uint32_t g);

/* The frag of output frames start .. start + n - 1 (with content ids, its
 * path bytes made now, while its new names are still in the cache). */
static uint32_t new_frag(uint32_t start, uint32_t n, fnvmemo *path, uint32_t pathsz)
{
	struct frag *g = VEC_PUSH(FG, nfg, fgcap);
	g->start = start;
	g->n = n;
	g->changed = F[start].resolved || n > 1;
	g->path = path;
	g->pathsz = pathsz;
	if (content && !stacks_done) frag_path(nfg - 1);
	if (n == 1) { /* the frame's own id text */
		g->ids = F[start].idj;
		g->idsn = F[start].idn;
		return nfg - 1;
	}
	static sbuf b;
	b.n = 0;
	for (uint32_t k = 0; k < n; k++) { /* innermost first when leaf first */
		const struct ofr *o = &F[r->leaf_first ? start + k : start + n - 1 - k];
		if (k) sbuf_addc(&b, ',');
		sbuf_add(&b, STR(o->idj), o->idn);
	}
	g->ids = str_add(b.p, b.n);
	g->idsn = (uint32_t)b.n;
	return nfg - 1;
}

static bool have_pid_sources(void)
{
	return O.nmaps || O.maps_dir || O.perf_map;
}

/* Input frame fi on its own (without a pid). */
static void settle_frame(uint32_t fi)
{
	struct fin *x = &FI[fi];
	if (x->done) return;
	x->done = true;
	if (!x->cand) {
		x->start = x->prim = raw_frame(fi);
		x->n = 1;
		x->frag = new_frag(x->start, 1, NULL, 0);
		return;
	}
	/* a look-up made ahead: not kernel, not a perf map, its own file */
	const struct ahead *a = ahead_of(fi);
	int w = a ? chain_ahead(a) : resolve(fi, -1);
	if (w == ES_OK) {
		count(a ? a->dso : r->frames[fi].dso, w);
		x->start = make_frames(fi, true);
		x->n = nl;
		x->prim = x->start + nl - 1;
		x->frag = new_frag(x->start, x->n, a ? a->path : NULL, a ? a->pathsz : 0);
		return;
	}
	const spaa_frame *fr = &r->frames[fi];
	bool retry = !is_kernel(fr, x->addr) && have_pid_sources() &&
		     (w == R_NO_DSO || w == ES_NEEDS_MAP || w == ES_MISSING);
	x->start = x->prim = raw_frame(fi);
	x->n = 1;
	x->frag = new_frag(x->start, 1, NULL, 0);
	if (retry) x->per_pid = true; /* counted with each pid */
	else count(fr->dso, w);
}

/* The frag of input frame fi in a stack of process pid (-1: none). */
static uint32_t frag_of(uint32_t fi, int64_t pid)
{
	settle_frame(fi);
	struct fin *x = &FI[fi];
	if (!x->per_pid) {
		x->used_raw = true;
		return x->frag;
	}
	char key[12];
	memcpy(key, &fi, 4);
	memcpy(key + 4, &pid, 8);
	bool added;
	uint32_t i = strmap_intern(&pid_chains, key, sizeof key, &added);
	if (added) {
		grow_array((void **)&pc_frag, &pccap, i + 1, sizeof *pc_frag);
		int w = pid < 0 ? R_NO_DSO : resolve(fi, pid);
		count(r->frames[fi].dso, w);
		if (w == ES_OK) {
			uint32_t s = make_frames(fi, false);
			pc_frag[i] = new_frag(s, nl, NULL, 0);
		} else {
			pc_frag[i] = x->frag;
			x->used_raw = true;
		}
	}
	return pc_frag[i];
}

/* The members of a frame record that a resolved frame replaces. */
static const char *const replaced[] = { "type", "id", "func", "func_resolved", "dso", "srcline", "srcline_resolved",
					"symoff", "inlined", "inline_depth", "kind", "x_perf_nosym", NULL };

/* The other members of candidate x's record (just read), as text: what
 * write_frame copies into each frame it becomes. */
static void keep_members(struct fin *x)
{
	static size_t rlen[sizeof replaced / sizeof *replaced];
	if (!rlen[0])
		for (int j = 0; replaced[j]; j++) rlen[j] = strlen(replaced[j]);
	const json_doc *d = &r->doc;
	x->kept = (uint32_t)KT.n;
	for (uint32_t k = 1, i = 0; i < d->nodes[0].count; i++, k = json_after(d, k + 1)) {
		bool skip = false;
		for (int j = 0; replaced[j] && !skip; j++)
			skip = d->nodes[k].count == rlen[j] && json_is_str(d, k, replaced[j], rlen[j]);
		if (skip) continue;
		sbuf_addc(&KT, ',');
		jb_str(&KT, d->nodes[k].str, d->nodes[k].count);
		sbuf_addc(&KT, ':');
		jb_node(&KT, d, k + 1);
	}
	x->nkept = (uint32_t)(KT.n - x->kept);
}

/* A frame record as it is read: is it one to resolve? */
static void take_frame(void)
{
	uint32_t fi = r->frame_ids.count - 1;
	grow_array((void **)&FI, &ficap, fi + 1, sizeof *FI);
	struct fin *x = &FI[fi];
	memset(x, 0, sizeof *x);
	const spaa_frame *fr = &r->frames[fi];
	uint64_t a;
	bool has_addr = (fr->ip && is_hex_addr(fr->ip, &a)) || is_hex_addr(fr->func, &a);
	bool named = fr->func_resolved && !fr->perf_nosym && fr->func[0] && strcmp(fr->func, "[unknown]") != 0 &&
		     !is_hex_addr(fr->func, &(uint64_t){ 0 });
	x->cand = has_addr && !named && !fr->perf_nochain;
	ncand += x->cand;
	x->addr = a;
	/* an id given to a new frame already: this one gets another */
	size_t n;
	const char *k = strmap_key(&r->frame_ids, fi, &n);
	uint64_t v;
	bool is_int = parse_u64(k, n, &v);
	if (is_int && (!any_int || v > in_max)) {
		in_max = v;
		any_int = true;
	}
	x->int_id = is_int && (n == 1 || k[0] != '0');
	x->idj = id_add(fi, &x->idn);
	if (x->cand) keep_members(x);
	if (is_fresh(k, n))
		die_at(r->name, r->lineno, "frame id %.*s comes after the stacks and collides with a new frame's id: "
		       "put the dictionaries first (spaa-cat does)", (int)n, k);
}

/* ---- stacks ---------------------------------------------------------------------------- */

static wsums W;               /* the sums of merged stacks and window entries */

struct mst {                  /* one output stack */
	uint32_t id, idn;     /* its id text (JSON), in S */
	uint64_t ctx;         /* hash of its context */
	uint64_t line;        /* where it first came */
	uint32_t count;
	uint32_t w, xw;       /* the sums of the stacks merged into it */
	bool rel;             /* has related_stacks */
};
static struct mst *M;
static uint32_t nm, mcap;
static strmap out_ids;        /* output id text -> mst */
static strmap in_ids;         /* input stack id key -> mst */
static uint32_t *in_m;
static uint32_t imcap;

static spool *sp;
static sbuf rec, tmp;
static spaa_stack st;
static uint32_t *sfrag;        /* the frags of the stack's frames */
static uint32_t nsfrag, sfcap;

static bool key_is(const json_doc *d, uint32_t k, const char *s)
{
	return json_is_str(d, k, s, strlen(s));
}

static void member(sbuf *b, const json_doc *d, uint32_t k, bool first)
{
	if (!first) sbuf_addc(b, ',');
	jb_str(b, d->nodes[k].str, d->nodes[k].count);
	sbuf_addc(b, ':');
}

/* The path bytes of output frame o (spaa(5), STACK IDENTITY) added to tmp:
 * func US dso US p|i [US srcline] RS. */
static void path_bytes(uint32_t o)
{
	struct ofr *f = &F[o];
	sstr func, dso, src;
	bool inl;
	if (!f->resolved) {
		const spaa_frame *x = &r->frames[f->in];
		const spaa_dso *d = &r->dsos[x->dso];
		func = (sstr){ x->func, x->func_n };
		dso = (sstr){ d->name ? d->name : "", d->name ? d->name_n : 0 };
		src = (sstr){ x->srcline, x->srcline ? x->srcline_n : 0 };
		inl = x->inlined;
	} else {
		func = (sstr){ STR(f->s.func), f->s.fn };
		dso = dso_name(f->dso);
		src = f->s.src == UINT32_MAX ? SSTR_NULL : (sstr){ STR(f->s.src), f->s.sn };
		inl = f->depth > 0;
	}
	sbuf_add(&tmp, func.p, func.n);
	sbuf_addc(&tmp, 0x1f);
	sbuf_add(&tmp, dso.p, dso.n);
	sbuf_addc(&tmp, 0x1f);
	sbuf_addc(&tmp, inl ? 'i' : 'p');
	if (src.p) {
		sbuf_addc(&tmp, 0x1f);
		sbuf_add(&tmp, src.p, src.n);
	}
	sbuf_addc(&tmp, 0x1e);
}

/* The path bytes of frag g, root first, made once. */
static fnvmemo *frag_path(uint32_t g)
{
	struct frag *x = &FG[g];
	if (x->path) return x->path;
	tmp.n = 0;
	for (uint32_t k = x->n; k-- > 0;) path_bytes(x->start + k);
	x->pathsz = (uint32_t)(sizeof *x->path + tmp.n);
	return x->path = fnvmemo_new(tmp.p, tmp.n);
}

/* The process of the current stack: context pid, else its thread's. */
static int64_t stack_pid(void)
{
	if (st.has_pid) return st.pid;
	if (st.has_tid) {
		char nb[24];
		size_t n = fmt_i64(nb, st.tid);
		int64_t t = strmap_find(&r->thread_ids, nb, n);
		if (t >= 0 && r->threads[t].pid >= 0) return r->threads[t].pid;
	}
	return -1;
}

static void spool_tagged(char tag, uint64_t num1, const char *p, size_t n)
{
	char nb[24];
	spool_putc(sp, tag);
	spool_write(sp, nb, fmt_u64(nb, num1));
	spool_putc(sp, ' ');
	spool_write(sp, p, n);
	spool_putc(sp, '\n');
}

/* Input stack ids: the content ids ("0x" and 16 hex digits) also by value
 * in an open-addressing table, which a sample's look-up reaches with one
 * memory access where the string map needs several. */
static struct idslot {
	uint64_t id, out;     /* the input id, the output id when it is a content id too */
	uint32_t in;          /* the input stack's index + 1, 0: empty */
	bool same, out_content;
} *IT;
static uint32_t itn, itcount;
static bool *in_same;         /* input stack: its id is its output id */
static uint32_t iscap;

static uint32_t id_slot(uint64_t v)
{
	uint64_t h = v * 0x9e3779b97f4a7c15ULL;
	return (uint32_t)(h >> 32) & (itn - 1);
}

static struct idslot *it_add(uint64_t v, uint32_t in)
{
	if ((itcount + 1) * 2 > itn) {
		struct idslot *old = IT;
		uint32_t on = itn;
		itn = itn ? itn * 2 : 1024;
		IT = xcalloc(itn, sizeof *IT);
		for (uint32_t i = 0; i < on; i++)
			if (old[i].in) {
				uint32_t j = id_slot(old[i].id);
				while (IT[j].in) j = (j + 1) & (itn - 1);
				IT[j] = old[i];
			}
		free(old);
	}
	uint32_t j = id_slot(v);
	while (IT[j].in) j = (j + 1) & (itn - 1);
	memset(&IT[j], 0, sizeof IT[j]);
	IT[j].id = v;
	IT[j].in = in + 1;
	itcount++;
	return &IT[j];
}

/* The slot of a content id string, NULL if it is none or not there. */
static const struct idslot *it_find(const json_node *x)
{
	uint64_t v;
	if (x->type != JSON_STRING || !itn || !stackid_parse(x->str, x->count, &v)) return NULL;
	for (uint32_t j = id_slot(v); IT[j].in; j = (j + 1) & (itn - 1))
		if (IT[j].id == v) return &IT[j];
	return NULL;
}

/* The input stack of id node k, -1 if it has not come (yet). */
static int64_t in_of(const json_doc *d, uint32_t k)
{
	sstr id;
	if (!spaa_id_text(d, k, &id)) return -1;
	uint64_t v;
	if (d->nodes[k].type == JSON_STRING && stackid_parse(id.p, id.n, &v)) {
		if (!itn) return -1;
		for (uint32_t j = id_slot(v); IT[j].in; j = (j + 1) & (itn - 1))
			if (IT[j].id == v) return IT[j].in - 1;
		return -1;
	}
	return strmap_find(&in_ids, id.p, id.n);
}

/* The output stack of input stack id node k, or -1 if the stack has not
 * come yet. */
static int64_t out_of(const json_doc *d, uint32_t k)
{
	int64_t i = in_of(d, k);
	return i < 0 ? -1 : (int64_t)in_m[i];
}

/* Does id node k of d already read as its output stack's id? */
static bool same_id(const json_doc *d, uint32_t k)
{
	int64_t i = in_of(d, k);
	return i >= 0 && in_same[i];
}

/* The stacks read whose ids are not made yet (with content ids, a batch of
 * FNVMEMO_CHAINS, their path bytes hashed side by side: one stack's hash is
 * a chain of multiplies each waiting on the last): what the rest of
 * take_stack needs, copied out of the record, strings in PT (offsets,
 * UINT32_MAX: none).  Settled in order (settle_stacks) when the batch is
 * full and before any record that refers to stacks. */
struct pend {
	uint32_t p0, np;          /* its path bytes: PP[p0 .. p0 + np), root first */
	bool changed, rel, has_pid, has_tid, has_excl, istr;
	uint64_t ctxh, lineno;
	int64_t pid, tid;
	uint32_t ctx, ctxn;       /* the context object's text */
	uint32_t ev, evn, sty, styn, comm, commn;
	uint32_t sid, sidn;       /* the input id's key (st.id) */
	uint32_t iraw, irawn;     /* the input id's JSON text (quotes left out) */
	uint32_t idt, idtn;       /* without a new id: the id's JSON text */
	uint32_t ii;              /* its index in in_ids */
	uint32_t w0, nw, xw0, nxw; /* its weights in PW */
	uint32_t rec, recn;       /* the record to spool (with placeholders) */
	uint32_t idat, pathat;    /* where its id and x_path_id go in it (UINT32_MAX: nowhere) */
};
static struct pend *PD;
static uint32_t npd, pdcap;
static fnvmemo **PP;
static uint32_t npp, ppcap;
static sbuf PT;
struct pw { uint32_t metric, mn, unit, un; num value; };
static struct pw *PW;
static uint32_t npw, pwcap;

static uint32_t pt_add(const char *p, size_t n)
{
	uint32_t off = (uint32_t)PT.n;
	sbuf_add(&PT, p, n);
	return off;
}

static uint32_t pt_sstr(sstr x, uint32_t *n)
{
	*n = (uint32_t)x.n;
	return x.p ? pt_add(x.p, x.n) : UINT32_MAX;
}

static sstr pt_get(uint32_t off, uint32_t n)
{
	return off == UINT32_MAX ? SSTR_NULL : (sstr){ PT.p ? PT.p + off : "", n };
}

static uint32_t pw_add(const spaa_weight *w, uint32_t n)
{
	uint32_t at = npw;
	for (uint32_t i = 0; i < n; i++) {
		struct pw *x = VEC_PUSH(PW, npw, pwcap);
		x->metric = pt_sstr(w[i].metric, &x->mn);
		x->unit = pt_sstr(w[i].unit, &x->un);
		x->value = w[i].value;
	}
	return at;
}

static void add_weights(uint32_t *head, const struct pend *p, uint32_t w0, uint32_t n)
{
	static spaa_weight *ws;
	static uint32_t wcap;
	grow_array((void **)&ws, &wcap, n, sizeof *ws);
	for (uint32_t i = 0; i < n; i++) {
		const struct pw *x = &PW[w0 + i];
		ws[i] = (spaa_weight){ pt_get(x->metric, x->mn), pt_get(x->unit, x->un), x->value };
	}
	uint32_t i;
	if (!wsums_add_weights(&W, head, ws, n, &i))
		die_at(r->name, p->lineno, "stack %.*s: summed with the stacks it became, metric %.*s overflows 64 bits",
		       (int)p->sidn, PT.p + p->sid, (int)ws[i].metric.n, ws[i].metric.p);
}

static void settle_stacks(void);

static void take_stack(void)
{
	if (spaa_stack_parse(r, &st) < 0) return;
	int64_t pid = stack_pid();
	bool changed = false;
	grow_array((void **)&sfrag, &sfcap, st.nframes, sizeof *sfrag);
	nsfrag = st.nframes;
	for (uint32_t j = 0; j < st.nframes; j++) {
		/* the records are at random in memory: asked for ahead */
		if (j + 4 < st.nframes) {
			uint32_t f = st.frames[j + 4];
			__builtin_prefetch(&FI[f]);
			if (f < nahead) __builtin_prefetch(&AH[f]);
		}
		/* and its frag, or the names of a frame looked up ahead on its
		 * first stack */
		if (j + 2 < st.nframes) {
			uint32_t f = st.frames[j + 2];
			if (FI[f].done) __builtin_prefetch(&FG[FI[f].frag]);
			else if (f < nahead && AH[f].w == ES_OK) __builtin_prefetch(&AN[AH[f].at]);
		}
		uint32_t g = frag_of(st.frames[j], pid);
		const struct frag *x = &FG[g];
		changed |= x->changed;
		sfrag[j] = g;
		__builtin_prefetch(STR(x->ids));
		if (x->path) /* all its lines: hashed in a few stacks' time */
			for (uint32_t q = 0; q < x->pathsz; q += 64)
				__builtin_prefetch((const char *)x->path + q);
	}
	json_doc *d = &r->doc;
	struct pend *p = VEC_PUSH(PD, npd, pdcap);
	memset(p, 0, sizeof *p);
	p->changed = changed;
	p->lineno = r->lineno;
	p->rel = st.related != 0;
	/* the path bytes, root first */
	p->p0 = npp;
	if (changed && content) {
		p->np = nsfrag;
		for (uint32_t i = 0; i < nsfrag; i++)
			*VEC_PUSH(PP, npp, ppcap) = frag_path(sfrag[r->leaf_first ? nsfrag - 1 - i : i]);
	}
	tmp.n = 0;
	uint32_t ck = json_get(d, 0, "context");
	if (ck) jb_node(&tmp, d, ck);
	p->ctxh = hash_bytes(tmp.p, tmp.n);
	p->ctx = pt_add(tmp.p, tmp.n);
	p->ctxn = (uint32_t)tmp.n;
	p->ev = pt_sstr(st.event_name, &p->evn);
	p->sty = pt_sstr(st.stack_type, &p->styn);
	p->comm = pt_sstr(st.comm, &p->commn);
	p->has_pid = st.has_pid;
	p->has_tid = st.has_tid;
	p->pid = st.pid;
	p->tid = st.tid;
	p->sid = pt_sstr(st.id, &p->sidn);
	uint32_t ik = json_get(d, 0, "id");
	const json_node *x = &d->nodes[ik];
	p->istr = x->type == JSON_STRING;
	p->iraw = pt_add(x->str, p->istr ? x->count : x->num_len);
	p->irawn = p->istr ? x->count : x->num_len;
	if (!(changed && content)) {
		rec.n = 0;
		jb_node(&rec, d, ik);
		p->idt = pt_add(rec.p, rec.n);
		p->idtn = (uint32_t)rec.n;
	}
	/* a duplicate input id found as the record is read */
	bool added;
	p->ii = strmap_intern(&in_ids, st.id.p, st.id.n, &added);
	if (!added) die_at(r->name, r->lineno, "duplicate stack id %.*s", (int)st.id.n, st.id.p);
	p->w0 = pw_add(st.w, st.nw);
	p->nw = st.nw;
	p->has_excl = st.has_excl;
	if (st.has_excl) {
		p->xw0 = pw_add(st.xw, st.nxw);
		p->nxw = st.nxw;
	}
	p->idat = p->pathat = UINT32_MAX;
	if (!changed) {
		p->rec = pt_add(r->line, r->len);
		p->recn = (uint32_t)r->len;
	} else {
		/* the record with its new frames, exclusive frame, and room
		 * for its id and path id */
		p->rec = (uint32_t)PT.n;
		sbuf_addc(&PT, '{');
		for (uint32_t k = 1, i = 0; i < d->nodes[0].count; i++, k = json_after(d, k + 1)) {
			member(&PT, d, k, i == 0);
			uint32_t v = k + 1;
			if (key_is(d, k, "id") && content) {
				p->idat = (uint32_t)PT.n - p->rec;
				sbuf_add(&PT, "\"0x0000000000000000\"", 20);
			} else if (key_is(d, k, "frames")) {
				sbuf_addc(&PT, '[');
				for (uint32_t j = 0; j < nsfrag; j++) {
					if (j) sbuf_addc(&PT, ',');
					sbuf_add(&PT, STR(FG[sfrag[j]].ids), FG[sfrag[j]].idsn);
				}
				sbuf_addc(&PT, ']');
			} else if (key_is(d, k, "exclusive") && d->nodes[v].type == JSON_OBJECT && nsfrag) {
				/* the innermost frame of the leaf's frag */
				uint32_t leaf = FG[sfrag[r->leaf_first ? 0 : nsfrag - 1]].start;
				sbuf_addc(&PT, '{');
				for (uint32_t c = v + 1, e = 0; e < d->nodes[v].count; e++, c = json_after(d, c + 1)) {
					member(&PT, d, c, e == 0);
					if (key_is(d, c, "frame")) sbuf_add(&PT, STR(F[leaf].idj), F[leaf].idn);
					else jb_node(&PT, d, c + 1);
				}
				sbuf_addc(&PT, '}');
			} else if (key_is(d, k, "x_path_id") && content) {
				p->pathat = (uint32_t)PT.n - p->rec;
				sbuf_add(&PT, "\"0x0000000000000000\"", 20);
			} else {
				jb_node(&PT, d, v);
			}
		}
		sbuf_addc(&PT, '}');
		p->recn = (uint32_t)PT.n - p->rec;
	}
	if (!content || npd == FNVMEMO_CHAINS) settle_stacks();
}

/* The rest of take_stack for pending stack p, its path hash h. */
static void settle_stack(struct pend *p, uint64_t h)
{
	char idb[24];
	const char *idtext;
	size_t idn;
	uint64_t pathid = 0;
	sstr ctx = { PT.p + p->ctx, p->ctxn };
	if (p->changed && content) {
		pathid = h;
		stackid_ctx c = { pt_get(p->ev, p->evn), pt_get(p->sty, p->styn), pt_get(p->comm, p->commn),
				  p->has_pid, p->has_tid, p->pid, p->tid };
		uint64_t id = stackid_add_ctx(h, &c);
		idb[0] = '"';
		stackid_fmt(idb + 1, id);
		idb[19] = '"';
		idtext = idb;
		idn = 20;
		int64_t m = strmap_find(&out_ids, idtext, idn);
		if (m >= 0 && M[m].ctx != p->ctxh) {
			/* the same content in another context: fold it in, as
			 * spaa-cat does */
			id = fnv1a64(id, ctx.p, ctx.n);
			stackid_fmt(idb + 1, id);
			idb[19] = '"';
			m = strmap_find(&out_ids, idtext, idn);
			if (m >= 0 && M[m].ctx != p->ctxh)
				die_at(r->name, p->lineno, "stack %.*s: stack id collision (%.18s)", (int)p->sidn,
				       PT.p + p->sid, idb + 1);
		}
	} else {
		idtext = PT.p + p->idt;
		idn = p->idtn;
	}
	bool added;
	uint32_t m = strmap_intern(&out_ids, idtext, idn, &added);
	if (added) {
		struct mst *x = VEC_PUSH(M, nm, mcap);
		memset(x, 0, sizeof *x);
		size_t n;
		const char *k = strmap_key(&out_ids, m, &n);
		x->id = str_add(k, n);
		x->idn = (uint32_t)n;
		x->ctx = p->ctxh;
		x->line = p->lineno;
	} else if (!content || M[m].ctx != p->ctxh) {
		die_at(r->name, p->lineno, "duplicate stack id %.*s", (int)p->sidn, PT.p + p->sid);
	}
	M[m].count++;
	if (M[m].count == 1) M[m].rel = p->rel;
	uint32_t ii = p->ii;
	grow_array((void **)&in_m, &imcap, ii + 1, sizeof *in_m);
	in_m[ii] = m;
	grow_array((void **)&in_same, &iscap, ii + 1, sizeof *in_same);
	{
		const char *o = STR(M[m].id);
		size_t on = M[m].idn;
		const char *is = PT.p + p->iraw;
		in_same[ii] = p->istr ? on == p->irawn + 2 && o[0] == '"' && memcmp(o + 1, is, p->irawn) == 0
				      : on == p->irawn && memcmp(o, is, on) == 0;
		uint64_t v, ov;
		if (p->istr && stackid_parse(is, p->irawn, &v)) {
			struct idslot *t = it_add(v, ii);
			t->same = in_same[ii];
			t->out_content = on == 20 && stackid_parse(o + 1, 18, &ov);
			t->out = t->out_content ? ov : 0;
		}
	}
	if (M[m].count > 1) { /* summed into the first, which is written at the end */
		add_weights(&M[m].w, p, p->w0, p->nw);
		if (p->has_excl) add_weights(&M[m].xw, p, p->xw0, p->nxw);
		return;
	}
	char *rp = PT.p + p->rec;
	if (p->idat != UINT32_MAX) memcpy(rp + p->idat, idtext == idb ? idb : STR(M[m].id), 20);
	if (p->pathat != UINT32_MAX) {
		rp[p->pathat] = '"';
		stackid_fmt(rp + p->pathat + 1, pathid);
		rp[p->pathat + 19] = '"';
	}
	spool_tagged('F', m, rp, p->recn);
}

/* The pending stacks' ids made, side by side, and the stacks settled in
 * the order they came. */
static void settle_stacks(void)
{
	if (!npd) return;
	uint64_t h[FNVMEMO_CHAINS];
	size_t at[FNVMEMO_CHAINS] = { 0 }, k[FNVMEMO_CHAINS] = { 0 };
	uint32_t who[FNVMEMO_CHAINS], nc = 0;
	for (uint32_t i = 0; i < npd; i++)
		if (PD[i].np) {
			h[nc] = FNV64_BASIS;
			at[nc] = PD[i].p0;
			k[nc] = PD[i].np;
			who[nc++] = i;
		}
	uint64_t ph[FNVMEMO_CHAINS];
	for (uint32_t i = 0; i < npd; i++) ph[i] = FNV64_BASIS;
	fnvmemo_chains(h, PP, at, k, nc);
	for (uint32_t c = 0; c < nc; c++) ph[who[c]] = h[c];
	for (uint32_t i = 0; i < npd; i++) settle_stack(&PD[i], ph[i]);
	npd = npp = npw = 0;
	PT.n = 0;
}

static void add_id(sbuf *b, int64_t m)
{
	sbuf_add(b, STR(M[m].id), M[m].idn);
}

/* A window's by_stack entry (object node e): its output stack, -1 if none. */
static int64_t entry_stack(const json_doc *d, uint32_t e)
{
	uint32_t k = d->nodes[e].type == JSON_OBJECT ? json_get(d, e, "stack_id") : 0;
	return k ? out_of(d, k) : -1;
}

/* Adds the weights array w of d to the list at *head (metrics in order). */
static void sum_weights(const json_doc *d, uint32_t w, uint32_t *head, uint64_t line)
{
	sstr bad;
	if (!wsums_add_json(&W, head, d, w, &bad))
		die_at(r->name, line, "window: the weights of stacks that became one overflow 64 bits (metric %.*s)",
		       (int)bad.n, bad.p);
}

/* A window's by_stack array (node bs) into rec, its stack ids mapped; the
 * entries of stacks that became one are summed into the first of them. */
static void by_stack(const json_doc *d, uint32_t bs, uint64_t line)
{
	static strmap groups;         /* output stack -> group */
	static uint32_t *first, *head, *count;
	static uint32_t c1, c2, c3;
	strmap_free(&groups);
	strmap_init(&groups);
	bool merge = false;
	for (uint32_t e = bs + 1, j = 0; j < d->nodes[bs].count; j++, e = json_after(d, e)) {
		int64_t m = entry_stack(d, e);
		if (m < 0) continue;
		uint32_t mm = (uint32_t)m;
		bool added;
		uint32_t g = strmap_intern(&groups, &mm, sizeof mm, &added);
		grow_array((void **)&first, &c1, g + 1, sizeof *first);
		grow_array((void **)&head, &c2, g + 1, sizeof *head);
		grow_array((void **)&count, &c3, g + 1, sizeof *count);
		if (added) {
			first[g] = e;
			head[g] = count[g] = 0;
		}
		merge |= ++count[g] > 1;
	}
	if (merge) /* the sums, for the groups of several entries */
		for (uint32_t e = bs + 1, j = 0; j < d->nodes[bs].count; j++, e = json_after(d, e)) {
			int64_t m = entry_stack(d, e);
			if (m < 0) continue;
			uint32_t mm = (uint32_t)m;
			uint32_t g = (uint32_t)strmap_find(&groups, &mm, sizeof mm);
			if (count[g] > 1) sum_weights(d, json_get(d, e, "weights"), &head[g], line);
		}
	sbuf_addc(&rec, '[');
	bool any = false;
	for (uint32_t e = bs + 1, j = 0; j < d->nodes[bs].count; j++, e = json_after(d, e)) {
		int64_t m = entry_stack(d, e);
		uint32_t g = 0;
		if (m >= 0) {
			uint32_t mm = (uint32_t)m;
			g = (uint32_t)strmap_find(&groups, &mm, sizeof mm);
			if (first[g] != e) continue; /* summed into the first */
		}
		if (any) sbuf_addc(&rec, ',');
		any = true;
		if (m < 0) {
			jb_node(&rec, d, e);
			continue;
		}
		sbuf_addc(&rec, '{');
		for (uint32_t c = e + 1, y = 0; y < d->nodes[e].count; y++, c = json_after(d, c + 1)) {
			member(&rec, d, c, y == 0);
			if (key_is(d, c, "stack_id")) {
				add_id(&rec, m);
			} else if (key_is(d, c, "weights") && count[g] > 1 && d->nodes[c + 1].type == JSON_ARRAY) {
				/* the summed metrics, in the order they came */
				sbuf_addc(&rec, '[');
				for (uint32_t w = head[g]; w; w = wsums_at(&W, w)->next) {
					if (w != head[g]) sbuf_addc(&rec, ',');
					wsums_json(&W, w, &rec);
				}
				sbuf_addc(&rec, ']');
			} else {
				jb_node(&rec, d, c + 1);
			}
		}
		sbuf_addc(&rec, '}');
	}
	sbuf_addc(&rec, ']');
}

/* A sample or window (doc d, text p/n) with its stack ids mapped into rec;
 * false if one of them has not come (yet). */
static bool map_refs(const json_doc *d, const char *text, size_t tn, uint64_t line, bool *same)
{
	*same = true;
	uint32_t sk = json_get(d, 0, "stack_id");
	uint32_t bs = json_get(d, 0, "by_stack");
	int64_t sm = -1;
	if (sk && !bs) { /* a sample: one look-up, its id spliced in */
		const json_node *x = &d->nodes[sk];
		const struct idslot *t = it_find(x);
		if (t && t->same) return true;
		if (t && t->out_content && x->str > text && x->str + x->count < text + tn &&
		    x->str[-1] == '"' && x->str[x->count] == '"') {
			*same = false;
			size_t a = (size_t)(x->str - text), b = a + x->count;
			char idb[20];
			stackid_fmt(idb, t->out);
			rec.n = 0;
			sbuf_add(&rec, text, a);
			sbuf_add(&rec, idb, 18);
			sbuf_add(&rec, text + b, tn - b);
			return true;
		}
	}
	if (sk) {
		sm = out_of(d, sk);
		if (sm < 0) return false;
		*same = same_id(d, sk);
	}
	if (bs && d->nodes[bs].type == JSON_ARRAY) {
		for (uint32_t e = bs + 1, i = 0; i < d->nodes[bs].count; i++, e = json_after(d, e)) {
			uint32_t k = d->nodes[e].type == JSON_OBJECT ? json_get(d, e, "stack_id") : 0;
			if (!k) continue;
			int64_t o = out_of(d, k);
			if (o < 0) return false;
			*same &= same_id(d, k);
		}
	}
	if (*same) return true;
	rec.n = 0;
	const json_node *x = sk ? &d->nodes[sk] : NULL;
	if (x && !bs && x->type == JSON_STRING && x->str > text && x->str + x->count < text + tn &&
	    x->str[-1] == '"' && x->str[x->count] == '"') {
		/* a sample: the new id spliced into the text as it is */
		size_t a = (size_t)(x->str - 1 - text), b = a + x->count + 2;
		sbuf_add(&rec, text, a);
		add_id(&rec, sm);
		sbuf_add(&rec, text + b, tn - b);
		return true;
	}
	sbuf_addc(&rec, '{');
	for (uint32_t k = 1, i = 0; i < d->nodes[0].count; i++, k = json_after(d, k + 1)) {
		member(&rec, d, k, i == 0);
		uint32_t v = k + 1;
		if (v == sk) {
			add_id(&rec, sm);
		} else if (v == bs && d->nodes[bs].type == JSON_ARRAY) {
			by_stack(d, bs, line);
		} else {
			jb_node(&rec, d, v);
		}
	}
	sbuf_addc(&rec, '}');
	return true;
}

/* A sample or window checked as the reader checks them (a bad one stops the
 * command, as in spaa-cat and spaa-demangle), then passed on. */
static void check_ref_record(enum spaa_rtype t)
{
	if (t == SPAA_SAMPLE) {
		spaa_sample smp;
		spaa_sample_parse(r, &smp);
		return;
	}
	static spaa_weight *w;
	static uint32_t nw, wcap;
	spaa_window win;
	if (spaa_window_parse(r, &win) == 0 && win.by_stack) {
		const json_doc *d = &r->doc;
		for (uint32_t e = win.by_stack + 1, i = 0; i < d->nodes[win.by_stack].count; i++, e = json_after(d, e)) {
			sstr id;
			spaa_window_entry(r, e, &id, &w, &nw, &wcap);
		}
	}
}

static void take_ref_record(void)
{
	bool same;
	if (!content) {
		spool_tagged('K', 0, r->line, r->len);
	} else if (!map_refs(&r->doc, r->line, r->len, r->lineno, &same)) {
		spool_tagged('P', r->lineno, r->line, r->len);
	} else if (same) {
		spool_tagged('K', 0, r->line, r->len);
	} else {
		spool_tagged('K', 0, rec.p, rec.n);
	}
}

/* ---- the end: dictionaries, then the spool ----------------------------------------------- */

static output *out;

/* Dictionary records as read. */
struct drec { uint64_t off; uint32_t len, index; uint8_t type; };
static sbuf dtext;
static sbuf wtext;               /* a summed weight's text */
static struct drec *DR;
static uint32_t ndr, drcap;

static void write_dso(uint32_t j)
{
	/* a fresh integer id above the input's */
	static uint64_t next = 0;
	if (!next) next = above_ids(&r->dso_ids);
	char nb[24];
	size_t n;
	do n = fmt_u64(nb, next++);
	while (strmap_find(&r->dso_ids, nb, n) >= 0);
	struct ndso *x = &ND[j];
	x->id = str_add(nb, n);
	out_puts(out, "{\"type\":\"dso\",\"id\":");
	out_write(out, nb, n);
	out_puts(out, ",\"name\":");
	jw_strc(out, STR(x->name));
	if (x->bid != UINT32_MAX) {
		out_puts(out, ",\"build_id\":");
		jw_strc(out, STR(x->bid));
	}
	out_puts(out, x->kernel ? ",\"is_kernel\":true}\n" : ",\"is_kernel\":false}\n");
}

/* The id of output dso d as JSON text. */
static void dso_id(uint32_t d)
{
	if (d & NEW_DSO) {
		out_puts(out, STR(ND[d & ~NEW_DSO].id));
		return;
	}
	size_t n;
	const char *k = strmap_key(&r->dso_ids, d, &n);
	uint64_t v;
	if (parse_u64(k, n, &v) && (n == 1 || k[0] != '0')) out_write(out, k, n);
	else jw_str(out, k, n);
}

static const char *const kinds[] = { "user", "kernel", "unknown" };

/* A resolved frame: the input record with its name, dso, line, offset,
 * kind and inline members replaced, the others kept (keep_members). */
static void write_frame(const struct ofr *o)
{
	const struct fin *x = &FI[o->in];
	char nb[24];
	out_puts(out, "{\"type\":\"frame\",\"id\":");
	out_write(out, STR(o->idj), o->idn);
	out_puts(out, ",\"func\":");
	jw_str(out, STR(o->s.func), o->s.fn);
	out_puts(out, ",\"dso\":");
	dso_id(o->dso);
	out_write(out, KT.p + x->kept, x->nkept);
	if (o->has_symoff) {
		out_puts(out, ",\"symoff\":\"");
		out_write(out, nb, fmt_hex(nb, o->symoff, 1));
		out_putc(out, '"');
	}
	if (o->s.src != UINT32_MAX) {
		out_puts(out, ",\"srcline\":");
		jw_str(out, STR(o->s.src), o->s.sn);
	}
	if (o->depth > 0) {
		out_puts(out, ",\"inlined\":true,\"inline_depth\":");
		out_write(out, nb, fmt_u64(nb, (uint64_t)o->depth));
	} else if (o->depth == 0) {
		out_puts(out, ",\"inline_depth\":0");
	}
	out_puts(out, ",\"kind\":\"");
	out_puts(out, kinds[o->kind < 3 ? o->kind : 2]);
	out_puts(out, "\"}\n");
}

static json_doc fdoc;

static void write_ofr(uint32_t i)
{
	const struct ofr *o = &F[i];
	if (o->resolved) {
		write_frame(o);
		return;
	}
	/* the input record of its frame */
	static uint32_t *rec_of;
	static uint32_t rcap;
	if (!rec_of) {
		grow_array((void **)&rec_of, &rcap, r->frame_ids.count + 1, sizeof *rec_of);
		for (uint32_t k = 0; k < ndr; k++)
			if (DR[k].type == SPAA_FRAME) rec_of[DR[k].index] = k;
	}
	const struct drec *x = &DR[rec_of[o->in]];
	out_write(out, dtext.p + x->off, x->len);
	out_putc(out, '\n');
}

static void write_dicts(void)
{
	int64_t first_frame = -1, last_frame = -1;
	for (uint32_t k = 0; k < ndr; k++) {
		if (DR[k].type != SPAA_FRAME) continue;
		if (first_frame < 0) first_frame = k;
		last_frame = k;
	}
	bool new_dsos = false;
	for (uint32_t k = 0; k < ndr; k++) {
		const struct drec *x = &DR[k];
		if (x->type == SPAA_FRAME) {
			if ((int64_t)k == first_frame) {
				for (uint32_t i = 0; i < nnd; i++) write_dso(i);
				new_dsos = true;
			}
			/* the output frames of the next input frames, made
			 * in the order the stacks met them, asked for ahead */
			uint32_t nfi = r->frame_ids.count;
			if (x->index + 8 < nfi) __builtin_prefetch(&F[FI[x->index + 8].prim]);
			if (x->index + 4 < nfi) {
				const struct ofr *o = &F[FI[x->index + 4].prim];
				__builtin_prefetch(STR(o->idj));
				if (o->resolved) {
					__builtin_prefetch(STR(o->s.func));
					if (o->s.src != UINT32_MAX) __builtin_prefetch(STR(o->s.src));
				}
			}
			/* a frame that has only become others (one per
			 * process) is left out */
			if (!FI[x->index].per_pid || FI[x->index].used_raw) write_ofr(FI[x->index].prim);
			if ((int64_t)k == last_frame)
				for (uint32_t i = 0; i < nf; i++)
					if (F[i].fresh) write_ofr(i);
			continue;
		}
		out_write(out, dtext.p + x->off, x->len);
		out_putc(out, '\n');
	}
	if (!new_dsos && nnd) die(EXIT_DATA, "internal error: new dsos without frames");
}

/* Does weights array arr of d have a weight of metric p/n? */
static bool has_metric(const json_doc *d, uint32_t arr, const char *p, size_t n)
{
	for (uint32_t k = arr + 1, i = 0; i < d->nodes[arr].count; i++, k = json_after(d, k)) {
		uint32_t mk = d->nodes[k].type == JSON_OBJECT ? json_get(d, k, "metric") : 0;
		if (mk && json_is_str(d, mk, p, n)) return true;
	}
	return false;
}

static void write_weights(const json_doc *d, uint32_t arr, uint32_t head)
{
	out_putc(out, '[');
	for (uint32_t k = arr + 1, i = 0; i < d->nodes[arr].count; i++, k = json_after(d, k)) {
		if (i) out_putc(out, ',');
		uint32_t mk = d->nodes[k].type == JSON_OBJECT ? json_get(d, k, "metric") : 0;
		uint32_t vk = d->nodes[k].type == JSON_OBJECT ? json_get(d, k, "value") : 0;
		uint32_t x = mk && vk && d->nodes[mk].type == JSON_STRING
			? wsums_find(&W, head, d->nodes[mk].str, d->nodes[mk].count) : 0;
		if (!x) {
			jw_node(out, d, k);
			continue;
		}
		num v;
		const json_node *vn = &d->nodes[vk];
		v = vn->type == JSON_INT ? num_i(vn->v.i) : vn->type == JSON_UINT ? num_u(vn->v.u) : num_d(vn->v.d);
		if (!json_is_num(d, vk) || !num_add(&v, wsums_at(&W, x)->v))
			die_at(r->name, 0, "summing stacks: metric %.*s overflows 64 bits", (int)d->nodes[mk].count,
			       d->nodes[mk].str);
		out_putc(out, '{');
		for (uint32_t c = k + 1, j = 0; j < d->nodes[k].count; j++, c = json_after(d, c + 1)) {
			if (j) out_putc(out, ',');
			jw_str(out, d->nodes[c].str, d->nodes[c].count);
			out_putc(out, ':');
			if (c + 1 == vk) jw_num(out, v);
			else jw_node(out, d, c + 1);
		}
		out_putc(out, '}');
	}
	/* the metrics that only the stacks summed into this one had */
	for (uint32_t w = head, n = d->nodes[arr].count; w; w = wsums_at(&W, w)->next) {
		const wsum *x = wsums_at(&W, w);
		size_t mn;
		const char *mname = strmap_key(&W.names, x->metric, &mn);
		if (has_metric(d, arr, mname, mn)) continue;
		if (n++) out_putc(out, ',');
		wtext.n = 0;
		wsums_json(&W, w, &wtext);
		out_write(out, wtext.p, wtext.n);
	}
	out_putc(out, ']');
}

/* A stack others were summed into, or with related stacks to map. */
static void write_first(const struct mst *m, const char *p, size_t n)
{
	json_doc *d = &fdoc;
	if (json_parse(d, p, n) != 0) die(EXIT_DATA, "internal error: spooled stack");
	uint32_t rel = json_get(d, 0, "related_stacks");
	if (m->count == 1 && !rel) {
		out_write(out, p, n);
		out_putc(out, '\n');
		return;
	}
	out_putc(out, '{');
	for (uint32_t k = 1, i = 0; i < d->nodes[0].count; i++, k = json_after(d, k + 1)) {
		if (i) out_putc(out, ',');
		jw_str(out, d->nodes[k].str, d->nodes[k].count);
		out_putc(out, ':');
		uint32_t v = k + 1;
		if (key_is(d, k, "weights") && d->nodes[v].type == JSON_ARRAY) {
			write_weights(d, v, m->w);
		} else if (key_is(d, k, "exclusive") && d->nodes[v].type == JSON_OBJECT) {
			out_putc(out, '{');
			for (uint32_t c = v + 1, j = 0; j < d->nodes[v].count; j++, c = json_after(d, c + 1)) {
				if (j) out_putc(out, ',');
				jw_str(out, d->nodes[c].str, d->nodes[c].count);
				out_putc(out, ':');
				if (key_is(d, c, "weights") && d->nodes[c + 1].type == JSON_ARRAY)
					write_weights(d, c + 1, m->xw);
				else jw_node(out, d, c + 1);
			}
			out_putc(out, '}');
		} else if (v == rel && d->nodes[v].type == JSON_ARRAY && content) {
			out_putc(out, '[');
			for (uint32_t e = v + 1, j = 0; j < d->nodes[v].count; j++, e = json_after(d, e)) {
				if (j) out_putc(out, ',');
				int64_t o = out_of(d, e);
				if (o >= 0) out_write(out, STR(M[o].id), M[o].idn);
				else jw_node(out, d, e);
			}
			out_putc(out, ']');
		} else {
			jw_node(out, d, v);
		}
	}
	out_puts(out, "}\n");
}

static void play_spool(void)
{
	json_doc doc;
	json_doc_init(&doc);
	spool_rewind(sp);
	char *line;
	size_t len;
	while ((line = spool_line(sp, &len))) {
		char tag = line[0];
		char *end;
		uint64_t v = strtoull(line + 1, &end, 10);
		const char *text = end + 1;
		size_t tn = len - (size_t)(text - line);
		if (tag == 'F') {
			const struct mst *m = &M[v];
			if (m->count == 1 && !m->rel) {
				out_write(out, text, tn);
				out_putc(out, '\n');
			} else {
				write_first(m, text, tn);
			}
		} else if (tag == 'K') {
			out_write(out, text, tn);
			out_putc(out, '\n');
		} else { /* 'P': a sample or window met before its stack */
			bool same;
			if (json_parse(&doc, text, tn) != 0) die_at(r->name, v, "internal error: spooled record");
			if (!map_refs(&doc, text, tn, v, &same))
				die_at(r->name, v, "refers to a stack that is not in the file");
			if (same) out_write(out, text, tn);
			else out_write(out, rec.p, rec.n);
			out_putc(out, '\n');
		}
	}
	json_doc_free(&doc);
}

static void report(void)
{
	for (uint32_t i = 0; i < stcap && i < r->dso_ids.count; i++) {
		const struct dstat *s = &ST[i];
		uint64_t bad = 0;
		for (int w = 0; w < R_NWHY; w++) bad += s->why[w];
		if (!s->ok && !bad) continue;
		sbuf b = { 0 };
		sstr dn = dso_name(i);
		sbuf_printf(&b, "%.*s: %llu resolved", (int)dn.n, dn.p, (unsigned long long)s->ok);
		for (int w = 1; w < R_NWHY; w++)
			if (s->why[w]) sbuf_printf(&b, ", %llu %s", (unsigned long long)s->why[w], why_text(w));
		sbuf_addc(&b, 0);
		warnmsg("%s", b.p);
		sbuf_free(&b);
	}
}

/* ---- main ---------------------------------------------------------------------------------- */

static void keep_dict(enum spaa_rtype t)
{
	struct drec *x = VEC_PUSH(DR, ndr, drcap);
	x->off = dtext.n;
	x->len = (uint32_t)r->len;
	x->type = (uint8_t)t;
	x->index = t == SPAA_DSO ? r->dso_ids.count - 1 : t == SPAA_FRAME ? r->frame_ids.count - 1 : 0;
	sbuf_add(&dtext, r->line, r->len);
}

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	const char *path;
	parse_options(argc, argv, &path);
	unsetenv("DEBUGINFOD_URLS"); /* local files only */

	if (O.kallsyms) load_kallsyms();
	E = elfsym_new(O.root, O.debug_dir);
	strmap_init(&procs);
	strmap_init(&dso_names);
	strmap_init(&pid_chains);
	wsums_init(&W);
	strmap_init(&out_ids);
	strmap_init(&in_ids);
	json_doc_init(&fdoc);
	r = spaa_open_any(path);
	out = output_open(O.out, O.zstd);
	sp = spool_new();
	bool payload = false;
	enum spaa_rtype t;
	while ((t = spaa_next(r)) != SPAA_EOF) {
		switch (t) {
		case SPAA_HEADER:
			content = r->content_ids;
			perf_offsets = r->source_tool && strcmp(r->source_tool, "perf") == 0;
			keep_dict(t);
			break;
		case SPAA_DSO:
			dso_name_add(r->dsos[r->dso_ids.count - 1].name ? r->dsos[r->dso_ids.count - 1].name : "",
				     r->dso_ids.count - 1);
			keep_dict(t);
			break;
		case SPAA_FRAME:
			take_frame();
			keep_dict(t);
			break;
		case SPAA_THREAD:
			keep_dict(t);
			break;
		case SPAA_STACK:
			look_ahead(false); /* the frames read since the last stack */
			payload = true;
			take_stack();
			break;
		case SPAA_SAMPLE:
		case SPAA_WINDOW:
			settle_stacks(); /* the stacks it may refer to */
			payload = true;
			check_ref_record(t);
			take_ref_record();
			break;
		case SPAA_OTHER:
			settle_stacks(); /* spooled in order */
			if (payload) spool_tagged('K', 0, r->line, r->len);
			else keep_dict(t);
			break;
		default:
			break;
		}
	}
	settle_stacks();
	spaa_need_header(r);
	look_ahead(true);
	stacks_done = true;
	for (uint32_t i = 0; i < r->frame_ids.count; i++) settle_frame(i);
	write_dicts();
	play_spool();
	output_close(out);
	if (O.verbose) report();
	spool_free(sp);
	wsums_free(&W);
	spaa_close(r);
	elfsym_free(E);
	return EXIT_OK;
}
