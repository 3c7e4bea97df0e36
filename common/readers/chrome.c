/* chrome2spaa - convert Chrome DevTools and Node.js profiles to SPAA: CPU
 * profiles (Chrome performance traces with Profile/ProfileChunk events,
 * .cpuprofile), sampling heap profiles (.heapprofile) and heap snapshots
 * with allocation traces (.heapsnapshot, .heaptimeline).  Every format is
 * one JSON text, read in pieces (common/base/jscan): memory grows with profile
 * nodes and functions, not with samples or file size.
 *
 * The story: options; the format, by content; the reader of that format,
 * which fills tables of profile nodes (each with its parent, its frame and
 * its weights); then every node with weight becomes one stack, the path up
 * to its root, and the profile is written. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "readers.h"
#include "build.h"
#include "reader.h"
#include "spaa.h"
#include "cli.h"
#include "several.h"
#include "heapsnap.h"
#include "idmap.h"
#include "input.h"
#include "jscan.h"
#include "json.h"
#include "num.h"
#include "jsonbuf.h"
#include "sniff.h"
#include "spool.h"
#include "strmap.h"

static const char help_text[] =
	"Usage: chrome2spaa [OPTION]... [FILE]...\n"
	"Convert a Chrome DevTools or Node.js profile to SPAA: a performance trace\n"
	"with CPU profile events (Profile, ProfileChunk) or samples and stackFrames\n"
	"(Hermes), a .cpuprofile, a .heapprofile, or a .heapsnapshot/.heaptimeline\n"
	"with allocation traces.\n"
	"The format is recognised by content.  CPU profiles give event cpu\n"
	"(metrics wall_us and samples), heap profiles and snapshots event\n"
	"allocation.  With no FILE, or when FILE is -, read standard input; gzip\n"
	"and zstd input is decompressed.\n"
	"\n"
	"  -s, --samples        also write one sample record per CPU sample, with its\n"
	"                       time (nanoseconds), thread and weights (x_weights:\n"
	"                       wall_us, samples); for a heap timeline,\n"
	"                       a window record per interval between its samples\n"
	"      --format=NAME    read FILE as NAME: trace, cpuprofile, heapprofile or\n"
	"                       heapsnapshot (default: recognised by content)\n"
	"      --max-depth=N    the deepest call tree (default 10000)\n"
	"      --max-size=BYTES\n"
	"                       the largest single JSON value read, decompressed\n"
	"                       (default 1G; K, M and G are powers of 1024)\n"
	"      --max-frames=N   keep the N innermost frames of a longer stack, under a\n"
	"                       frame [truncated] (default 512)\n"
	"      --verbose        also report what is ignored (negative time deltas)\n"
	CLI_HELP_TAIL;

enum format { F_AUTO, F_TRACE, F_CPUPROFILE, F_HEAPPROFILE, F_HEAPSNAPSHOT };
static const char *const format_name[] = { "auto", "trace", "cpuprofile", "heapprofile", "heapsnapshot" };

static const char *fname;
static bool opt_samples, opt_verbose;
static uint32_t opt_max_depth = 10000;
/* A profile's tree can be deep and wide at once: the stacks of its leaves
 * would make an output (and a builder) of nodes x depth.  At most this many
 * frames a stack, the innermost. */
static uint32_t opt_max_frames = 512;
static uint64_t n_cut;
static builder *B;
static json_doc doc;

#define NONE UINT32_MAX

/* ---- frames ------------------------------------------------------------------
 * A JavaScript function is its name, its script (the dso) and its position
 * ("url:line:column", 1-based); x_kind says what the frame is: js (script
 * code), native (builtins and other code without a script), or one of V8's
 * pseudo frames: root, program, idle, gc. */

static uint32_t make_frame(sstr name, sstr url, int64_t line, int64_t col, bool scripted)
{
	static sbuf src, extra;
	const char *kind = NULL;
	if (name.n > 2 && name.p[0] == '(' && name.p[name.n - 1] == ')' && !url.n) {
		if (sstr_eqc(name, "(root)")) kind = "root";
		else if (sstr_eqc(name, "(program)")) kind = "program";
		else if (sstr_eqc(name, "(idle)")) kind = "idle";
		else if (sstr_eqc(name, "(garbage collector)")) kind = "gc";
	}
	if (!kind) kind = scripted || url.n ? "js" : "native";
	if (!name.n) name = sstr_c("(anonymous)");
	sstr dso = url.n ? url : sstr_c("(program)");
	src.n = 0;
	if (url.n && line >= 1) {
		sbuf_add(&src, url.p, url.n);
		sbuf_printf(&src, ":%lld", (long long)line);
		if (col >= 1) sbuf_printf(&src, ":%lld", (long long)col);
	}
	extra.n = 0;
	sbuf_printf(&extra, "\"x_kind\":\"%s\"", kind);
	sbuf_addc(&extra, 0);
	builder_frame f = {
		.func = name,
		.dso = builder_dso(B, dso.p, dso.n, false),
		.kind = FK_USER,
		.func_resolved = true,
		.inline_depth = -1,
		.srcline = src.n ? (sstr){ src.p, src.n } : SSTR_NULL,
		.extra_json = extra.p,
	};
	return builder_frame_add(B, &f);
}

/* Member key of object node obj in doc (obj 0 is the root), NONE when obj
 * is NONE or not an object, or has no such member. */
static uint32_t member(uint32_t obj, const char *key)
{
	if (obj == NONE || doc.nodes[obj].type != JSON_OBJECT) return NONE;
	uint32_t k = json_get(&doc, obj, key);
	return k ? k : NONE;
}

static sstr doc_str(uint32_t obj, const char *key)
{
	uint32_t k = member(obj, key);
	if (k == NONE || doc.nodes[k].type != JSON_STRING) return SSTR_NULL;
	return (sstr){ doc.nodes[k].str, doc.nodes[k].count };
}

static int64_t doc_int(uint32_t obj, const char *key, int64_t dflt)
{
	uint32_t k = member(obj, key);
	int64_t v;
	if (k == NONE || !json_int64(&doc, k, &v)) return dflt;
	return v;
}

/* A DevTools callFrame (node k of doc): positions are 0-based there. */
static uint32_t callframe(uint32_t k)
{
	if (k == NONE || doc.nodes[k].type != JSON_OBJECT) die_at(fname, 0, "a profile node without a callFrame object");
	int64_t line = doc_int(k, "lineNumber", -1), col = doc_int(k, "columnNumber", -1);
	sstr sid = doc_str(k, "scriptId");
	int64_t nsid = doc_int(k, "scriptId", 0);
	bool scripted = (sid.n && !sstr_eqc(sid, "0")) || nsid > 0;
	sstr ct = doc_str(k, "codeType");
	if (ct.n) scripted = sstr_eqc(ct, "JS");
	return make_frame(doc_str(k, "functionName"), doc_str(k, "url"), line >= 0 ? line + 1 : 0,
			  col >= 0 ? col + 1 : 0, scripted);
}

/* ---- profile nodes ---------------------------------------------------------- */

enum { W_COUNT, W_TIME, W_BYTES, W_LIVE_COUNT, W_LIVE_BYTES, NW };

typedef struct pnode {
	uint32_t parent; /* index, NONE for a root */
	uint32_t frame;  /* NONE until the node itself is read */
	uint32_t stack;  /* NONE until written */
	uint64_t w[NW];
	int64_t id;
} pnode;

/* One profile: a CPU profile (per thread in a trace), a heap profile or a
 * snapshot's allocation trace tree. */
typedef struct profile {
	idmap ids;       /* node id -> index */
	uint32_t *dense; /* the same for ids below DENSE_IDS: index + 1, 0 none */
	uint32_t dense_cap;
	pnode *nodes;
	uint32_t n, cap;
	bool has_ctx;
	int64_t pid, tid;
	uint32_t idx;    /* in profs */
	/* CPU timing, microseconds: t and prev_t from start */
	bool has_start, has_prev, has_end, has_tid;
	int64_t start, t, end, prev_t;
	uint32_t prev_node;
	uint64_t prev_count;
} profile;

static profile **profs;
static uint32_t nprofs, profs_cap;
static uint64_t n_negative, n_samples;

static profile *new_profile(void)
{
	profile *p = xcalloc(1, sizeof *p);
	p->idx = nprofs;
	*VEC_PUSH(profs, nprofs, profs_cap) = p;
	return p;
}

/* The node of id, made when first named (as a node, a child or a sample).
 * V8 numbers nodes from 1 up: small ids go through an array. */
#define DENSE_IDS (1u << 22)
static uint32_t node_of(profile *p, int64_t id)
{
	if (id >= 0 && id < (int64_t)p->dense_cap && p->dense[id]) return p->dense[id] - 1;
	bool added;
	uint32_t i = idmap_put(&p->ids, id, p->n, &added);
	if (added) {
		if (p->n == UINT32_MAX - 1) die_at(fname, 0, "too many profile nodes");
		pnode *x = VEC_PUSH(p->nodes, p->n, p->cap);
		memset(x, 0, sizeof *x);
		x->parent = x->frame = x->stack = NONE;
		x->id = id;
	}
	if (id >= 0 && id < DENSE_IDS) {
		if (id >= p->dense_cap) {
			uint32_t old = p->dense_cap;
			grow_array((void **)&p->dense, &p->dense_cap, (uint32_t)id + 1, sizeof *p->dense);
			memset(p->dense + old, 0, (p->dense_cap - old) * sizeof *p->dense);
		}
		p->dense[id] = i + 1;
	}
	return i;
}

static void set_parent(profile *p, uint32_t child, uint32_t parent, jscan *r)
{
	pnode *c = &p->nodes[child];
	if (c->parent != NONE && c->parent != parent)
		jscan_fail(r, "profile node with two parents");
	c->parent = parent;
}

static void add_w(uint64_t *w, uint64_t v)
{
	if (ckd_add(w, *w, v)) die_at(fname, 0, "a weight overflows 64 bits");
}

/* Times are microseconds, written as nanoseconds: a time read from the
 * input must have a nanosecond value, and every sum or difference of times
 * is checked (an error, never undefined behaviour or a wrapped value). */
#define MAX_US (INT64_MAX / 1000)
static int64_t time_us(jscan *r, int64_t v, const char *what)
{
	if (v < -MAX_US || v > MAX_US)
		jscan_fail(r, "%s %lld is beyond the nanosecond range of 64 bits", what, (long long)v);
	return v;
}

static int64_t time_add(int64_t a, int64_t b, const char *what)
{
	int64_t t;
	if (ckd_add(&t, a, b)) die_at(fname, 0, "%s overflows 64 bits", what);
	return t;
}

static int64_t time_sub(int64_t a, int64_t b, const char *what)
{
	int64_t t;
	if (ckd_sub(&t, a, b)) die_at(fname, 0, "%s overflows 64 bits", what);
	return t;
}

/* Records of integers waiting in a temporary file (common/base/spool): one of
 * them read back, false at the end. */
static bool spool_ints(spool *s, int64_t *v, size_t n)
{
	size_t got = spool_read(s, v, n * sizeof *v);
	if (got && got != n * sizeof *v) die(EXIT_DATA, "temporary file: read error: a record cut short");
	return got != 0;
}

/* ---- CPU samples -------------------------------------------------------------
 * A sample's time is the time to the next sample (DevTools and speedscope
 * read it so: the stack sampled runs until the next sample is taken); the
 * last sample of a profile runs to the profile's endTime. */

static spool *sample_spool; /* --samples: (profile, node, time, duration, count) */

static void credit(profile *p, uint32_t node, int64_t t, int64_t dur, uint64_t count)
{
	pnode *x = &p->nodes[node];
	add_w(&x->w[W_COUNT], count);
	if (dur < 0) {
		n_negative++;
		dur = 0;
	}
	add_w(&x->w[W_TIME], (uint64_t)dur);
	if (opt_samples) {
		/* the sample's own weights go with it, so that spaa-window can
		 * rebuild a cut's wall_us */
		int64_t rec[5] = { p->idx, node, t, dur, (int64_t)count };
		spool_write(sample_spool, rec, sizeof rec);
	}
}

/* A sample of node id, delta after the one before, counting count samples
 * (a trace's samples have a weight, 1 elsewhere). */
static void cpu_sample_n(jscan *r, profile *p, int64_t id, int64_t delta, uint64_t count)
{
	uint32_t node = node_of(p, id);
	int64_t t;
	if (ckd_add(&t, p->t, delta)) jscan_fail(r, "the sum of the timeDeltas so far overflows 64 bits");
	p->t = time_us(r, t, "a sample time (the sum of the timeDeltas so far)");
	if (p->has_prev) credit(p, p->prev_node, p->prev_t, time_sub(p->t, p->prev_t, "a sample's time delta"), p->prev_count);
	p->has_prev = true;
	p->prev_count = count;
	p->prev_node = node;
	p->prev_t = p->t;
	n_samples++;
}

static void cpu_sample(jscan *r, profile *p, int64_t id, int64_t delta)
{
	cpu_sample_n(r, p, id, delta, 1);
}

static void cpu_finish(profile *p)
{
	if (!p->has_prev) return;
	int64_t dur = 0;
	if (p->has_end) {
		int64_t end = time_sub(p->end, p->start, "endTime minus startTime"); /* from start, as prev_t */
		if (end > p->prev_t) dur = time_sub(end, p->prev_t, "endTime minus the last sample's time");
	}
	credit(p, p->prev_node, p->prev_t, dur, p->prev_count);
	p->has_prev = false;
}

/* ---- .cpuprofile -------------------------------------------------------------
 * {"nodes":[{"id","callFrame","children":[ids],...}], "startTime", "endTime",
 * "samples":[node ids], "timeDeltas":[microseconds]}, members in any order.
 * samples and timeDeltas pair up by position: the first of the two arrays
 * to arrive waits in a temporary file until the other streams past. */

static spool *pending;
static char pending_kind; /* 's' samples, 'd' timeDeltas, 0 none */
static bool paired;       /* both arrays read */
static bool seen_samples, seen_deltas;

/* samples or timeDeltas (kind 's' or 'd') of profile p */
static void sample_array(jscan *r, profile *p, char kind)
{
	const char *what = kind == 's' ? "a sample (node id)" : "a time delta (microseconds)";
	if (kind == 's' ? seen_samples : seen_deltas) jscan_fail(r, "a second %s array", kind == 's' ? "samples" : "timeDeltas");
	*(kind == 's' ? &seen_samples : &seen_deltas) = true;
	bool first = true;
	jscan_open(r, '[', kind == 's' ? "the samples array" : "the timeDeltas array");
	static int64_t v[4096];
	bool done = false;
	if (!pending_kind) {
		/* the first of the two: keep it for the other */
		pending_kind = kind;
		pending = spool_new();
		while (!done) {
			size_t n = jscan_ints(r, &first, v, 4096, what, &done);
			spool_write(pending, v, n * sizeof *v);
		}
		spool_rewind(pending);
		return;
	}
	static int64_t o[4096];
	uint64_t i = 0, count = spool_size(pending) / sizeof *o;
	while (!done) {
		size_t n = jscan_ints(r, &first, v, 4096, what, &done);
		size_t got = spool_read(pending, o, n * sizeof *o) / sizeof *o;
		for (size_t k = 0; k < got; k++) cpu_sample(r, p, kind == 's' ? v[k] : o[k], kind == 's' ? o[k] : v[k]);
		if (got < n)
			jscan_fail(r, "%s samples than timeDeltas (%llu)", kind == 's' ? "more" : "fewer",
				   (unsigned long long)count);
		i += n;
	}
	if (i != count)
		jscan_fail(r, "%llu samples but %llu timeDeltas", (unsigned long long)(kind == 's' ? i : count),
			   (unsigned long long)(kind == 's' ? count : i));
	spool_free(pending);
	pending = NULL;
	paired = true;
}

/* A node object of a CPU profile (cpuprofile or ProfileChunk), in doc. */
static void cpu_node(jscan *r, profile *p, uint32_t k)
{
	int64_t id;
	uint32_t ik = member(k, "id");
	if (ik == NONE || !json_int64(&doc, ik, &id))
		jscan_fail(r, "a profile node without an integer id");
	uint32_t me = node_of(p, id);
	if (p->nodes[me].frame != NONE) jscan_fail(r, "profile node %lld defined twice", (long long)id);
	p->nodes[me].frame = callframe(member(k, "callFrame"));
	uint32_t ch = member(k, "children");
	if (ch != NONE && doc.nodes[ch].type == JSON_ARRAY) {
		for (uint32_t c = json_first(&doc, ch), e = json_after(&doc, ch); c < e; c = json_after(&doc, c)) {
			int64_t cid;
			if (!json_int64(&doc, c, &cid)) jscan_fail(r, "a child id that is not an integer");
			set_parent(p, node_of(p, cid), me, r);
		}
	}
	int64_t par = doc_int(k, "parent", INT64_MIN);
	if (par != INT64_MIN) set_parent(p, me, node_of(p, par), r);
}

static void cpuprofile_member(jscan *r, sstr key)
{
	profile *p = nprofs ? profs[0] : new_profile();
	if (sstr_eqc(key, "nodes")) {
		bool first = true;
		jscan_open(r, '[', "the nodes array");
		while (jscan_more(r, &first, ']')) {
			jscan_doc(r, &doc);
			cpu_node(r, p, 0);
		}
	} else if (sstr_eqc(key, "startTime")) {
		p->start = time_us(r, jscan_int(r, "startTime"), "startTime");
		p->has_start = true;
	} else if (sstr_eqc(key, "endTime")) {
		p->end = time_us(r, jscan_int(r, "endTime"), "endTime");
		p->has_end = true;
	} else if (sstr_eqc(key, "samples")) {
		sample_array(r, p, 's');
	} else if (sstr_eqc(key, "timeDeltas")) {
		sample_array(r, p, 'd');
	} else {
		jscan_skip(r);
	}
}

/* ---- Chrome traces -------------------------------------------------------------
 * Events one at a time: Profile (startTime) and ProfileChunk (nodes with
 * their parent, samples and timeDeltas in step) per profile id and process;
 * thread_name metadata names the threads. */

static strmap prof_keys;      /* "pid/id" -> profile index */
static strmap thread_keys;    /* "pid/tid" -> name index */
static char **thread_names;
static uint32_t thread_names_cap;
static uint64_t n_events;

/* An event's pid or tid: dflt when it has none; one that is not an
 * integer in 64-bit range (a string, 2^64) is an error, never 0. */
static int64_t doc_thread_id(jscan *r, uint32_t ev, const char *key, int64_t dflt)
{
	uint32_t k = member(ev, key);
	int64_t v;
	if (k == NONE) return dflt;
	/* Hermes writes them as strings of digits */
	bool ok = doc.nodes[k].type == JSON_STRING ? parse_i64(doc.nodes[k].str, doc.nodes[k].count, &v)
						   : json_int64(&doc, k, &v);
	if (!ok) jscan_fail(r, "a trace event whose %s is not an integer in 64-bit range", key);
	return v;
}

/* The profile of a Profile or ProfileChunk event: its thread is the one
 * the Profile event names (chunks come from V8's profiler thread). */
static profile *trace_profile(jscan *r, uint32_t ev, bool is_start)
{
	uint32_t idk = member(ev, "id");
	int64_t pid = doc_thread_id(r, ev, "pid", 0);
	char key[80];
	int n;
	if (idk != NONE && doc.nodes[idk].type == JSON_STRING)
		n = snprintf(key, sizeof key, "%lld/%.*s", (long long)pid, (int)(doc.nodes[idk].count > 40 ? 40 : doc.nodes[idk].count), doc.nodes[idk].str);
	else if (idk != NONE && json_is_num(&doc, idk))
		n = snprintf(key, sizeof key, "%lld/%.*s", (long long)pid, (int)doc.nodes[idk].num_len, doc.nodes[idk].str);
	else /* no id: one profile per process */
		n = snprintf(key, sizeof key, "%lld/", (long long)pid);
	bool added;
	strmap_intern(&prof_keys, key, (size_t)n, &added);
	profile *p = added ? new_profile() : profs[strmap_find(&prof_keys, key, (size_t)n)];
	if (added) {
		p->has_ctx = true;
		p->pid = pid;
	}
	int64_t tid = doc_thread_id(r, ev, "tid", INT64_MIN);
	if (member(ev, "tid") != NONE && (is_start || !p->has_tid)) {
		p->tid = tid;
		p->has_tid = is_start;
	}
	return p;
}

static void trace_event(jscan *r)
{
	jscan_doc(r, &doc);
	n_events++;
	if (doc.nodes[0].type != JSON_OBJECT) jscan_fail(r, "a trace event that is not an object");
	sstr name = doc_str(0, "name");
	uint32_t data = member(member(0, "args"), "data");
	if (sstr_eqc(name, "Profile")) {
		profile *p = trace_profile(r, 0, true);
		int64_t st = doc_int(data, "startTime", INT64_MIN);
		if (st != INT64_MIN && !p->has_start) {
			p->start = time_us(r, st, "startTime");
			p->has_start = true;
		}
	} else if (sstr_eqc(name, "ProfileChunk")) {
		profile *p = trace_profile(r, 0, false);
		uint32_t cp = member(data, "cpuProfile");
		uint32_t nodes = member(cp, "nodes");
		if (nodes != NONE && doc.nodes[nodes].type == JSON_ARRAY)
			for (uint32_t k = json_first(&doc, nodes), e = json_after(&doc, nodes); k < e; k = json_after(&doc, k))
				cpu_node(r, p, k);
		uint32_t sm = member(cp, "samples"), td = member(data, "timeDeltas");
		uint32_t ns = sm != NONE && doc.nodes[sm].type == JSON_ARRAY ? doc.nodes[sm].count : 0;
		uint32_t nd = td != NONE && doc.nodes[td].type == JSON_ARRAY ? doc.nodes[td].count : 0;
		if (ns != nd) jscan_fail(r, "a ProfileChunk with %u samples but %u timeDeltas", ns, nd);
		for (uint32_t a = sm + 1, b = td + 1, i = 0; i < ns; i++, a = json_after(&doc, a), b = json_after(&doc, b)) {
			int64_t id, dt;
			if (!json_int64(&doc, a, &id) || !json_int64(&doc, b, &dt))
				jscan_fail(r, "a ProfileChunk sample or time delta that is not an integer");
			cpu_sample(r, p, id, dt);
		}
		int64_t end = doc_int(data, "endTime", INT64_MIN);
		if (end != INT64_MIN) {
			p->end = time_us(r, end, "endTime");
			p->has_end = true;
		}
	} else if (sstr_eqc(name, "thread_name") && sstr_eqc(doc_str(0, "ph"), "M")) {
		sstr tn = doc_str(member(0, "args"), "name");
		if (!tn.p) return;
		char key[48];
		int n = snprintf(key, sizeof key, "%lld/%lld", (long long)doc_thread_id(r, 0, "pid", 0),
			     (long long)doc_thread_id(r, 0, "tid", 0));
		bool added;
		uint32_t i = strmap_intern(&thread_keys, key, (size_t)n, &added);
		grow_array((void **)&thread_names, &thread_names_cap, i + 1, sizeof *thread_names);
		if (added) thread_names[i] = xmemdup(tn.p, tn.n);
	}
}

static void trace_events(jscan *r)
{
	bool first = true;
	jscan_open(r, '[', "the traceEvents array");
	while (jscan_more(r, &first, ']')) trace_event(r);
}

/* ---- a trace's samples and stackFrames (Hermes) ---------------------------------
 * The trace event format's own CPU samples, which Hermes (React Native's
 * JavaScript engine) writes: {"traceEvents":[...], "samples":[{"ts", "pid",
 * "tid", "sf", "weight", ...}], "stackFrames":{"id":{"name", "category",
 * "parent"}}}.  Ids, pids, tids, times and weights are integers or strings
 * of digits.  The samples name frames that stackFrames may define only
 * later: they wait in a temporary file (pid, tid, frame, ts, weight) until
 * the whole text has been read.  Each thread's samples are a profile, in
 * the order written; a sample lasts until the thread's next sample, as in
 * a CPU profile (the last one: no time). */

static strmap sf_keys; /* stackFrames id, as written -> index */
static struct sframe { uint32_t parent, frame; } *sframes; /* index or NONE; frame NONE until defined */
static uint32_t sframes_cap;
static spool *ts_spool;
static bool seen_trace_samples;
static strmap thread_profs;   /* "pid/tid" -> index in thread_prof */
static uint32_t *thread_prof; /* profile index */
static uint32_t thread_prof_cap;

static uint32_t sf_index(jscan *r, sstr id)
{
	if (!id.n) jscan_fail(r, "a stack frame id that is empty or longer than 64 bytes");
	bool added;
	uint32_t i = strmap_intern(&sf_keys, id.p, id.n, &added);
	if (added) {
		grow_array((void **)&sframes, &sframes_cap, i + 1, sizeof *sframes);
		sframes[i].parent = sframes[i].frame = NONE;
	}
	return i;
}

/* The id in member key of obj (an integer or a string), false when there
 * is none (or null). */
static bool doc_id(jscan *r, uint32_t obj, const char *key, sstr *id)
{
	uint32_t k = member(obj, key);
	if (k == NONE || doc.nodes[k].type == JSON_NULL) return false;
	if (doc.nodes[k].type == JSON_STRING) *id = (sstr){ doc.nodes[k].str, doc.nodes[k].count };
	else if (json_is_num(&doc, k)) *id = (sstr){ doc.nodes[k].str, doc.nodes[k].num_len };
	else jscan_fail(r, "a stack frame id (%s) that is neither a number nor a string", key);
	if (id->n > 64) jscan_fail(r, "a stack frame id (%s) longer than 64 bytes", key);
	return true;
}

/* Member key of obj, an integer or a string of one: false when absent. */
static bool doc_int_or_str(jscan *r, uint32_t obj, const char *key, int64_t *v, const char *bad)
{
	uint32_t k = member(obj, key);
	if (k == NONE) return false;
	bool ok = doc.nodes[k].type == JSON_STRING ? parse_i64(doc.nodes[k].str, doc.nodes[k].count, v)
						   : json_int64(&doc, k, v);
	if (!ok) jscan_fail(r, "%s", bad);
	return true;
}

/* A stack frame: its category is its dso (the format's own example names
 * a library there; Hermes writes JavaScript, Native, root, Metadata). */
static uint32_t trace_frame(sstr name, sstr cat)
{
	const char *kind = sstr_eqc(cat, "root") ? "root"
			   : name.n >= 3 && !memcmp(name.p, "[GC", 3) ? "gc"
			   : sstr_eqc(cat, "JavaScript") ? "js" : "native";
	static sbuf extra;
	extra.n = 0;
	sbuf_printf(&extra, "\"x_kind\":\"%s\"", kind);
	sbuf_addc(&extra, 0);
	if (!name.n) name = sstr_c("(anonymous)");
	if (!cat.n) cat = sstr_c("(unknown)");
	builder_frame f = {
		.func = name,
		.dso = builder_dso(B, cat.p, cat.n, false),
		.kind = FK_USER,
		.func_resolved = true,
		.inline_depth = -1,
		.extra_json = extra.p,
	};
	return builder_frame_add(B, &f);
}

static void trace_stack_frames(jscan *r)
{
	bool first = true;
	jscan_open(r, '{', "the stackFrames object");
	while (jscan_more(r, &first, '}')) {
		uint32_t i = sf_index(r, jscan_key(r));
		jscan_doc(r, &doc);
		if (doc.nodes[0].type != JSON_OBJECT) jscan_fail(r, "a stack frame that is not an object");
		if (sframes[i].frame != NONE)
			jscan_fail(r, "stack frame %.*s defined twice", (int)sf_keys.keys[i].n, sf_keys.keys[i].p);
		sstr par;
		if (doc_id(r, 0, "parent", &par)) {
			uint32_t pi = sf_index(r, par);
			sframes[i].parent = pi;
		}
		sframes[i].frame = trace_frame(doc_str(0, "name"), doc_str(0, "category"));
	}
}

static void trace_samples(jscan *r)
{
	if (seen_trace_samples) jscan_fail(r, "a second samples array");
	seen_trace_samples = true;
	ts_spool = spool_new();
	bool first = true;
	jscan_open(r, '[', "the samples array");
	while (jscan_more(r, &first, ']')) {
		jscan_doc(r, &doc);
		if (doc.nodes[0].type != JSON_OBJECT) jscan_fail(r, "a sample that is not an object");
		int64_t rec[5] = { 0, 0, 0, 0, 1 }; /* pid, tid, frame, ts, weight */
		doc_int_or_str(r, 0, "pid", &rec[0], "a sample whose pid is not an integer in 64-bit range");
		doc_int_or_str(r, 0, "tid", &rec[1], "a sample whose tid is not an integer in 64-bit range");
		sstr sf;
		if (!doc_id(r, 0, "sf", &sf)) jscan_fail(r, "a sample without a stack frame (sf)");
		rec[2] = sf_index(r, sf);
		if (!doc_int_or_str(r, 0, "ts", &rec[3], "a sample whose ts is not a whole number of microseconds"))
			jscan_fail(r, "a sample without a time (ts)");
		time_us(r, rec[3], "a sample's ts");
		doc_int_or_str(r, 0, "weight", &rec[4], "a sample whose weight is not an integer in 64-bit range");
		if (rec[4] < 0) jscan_fail(r, "a sample with a negative weight");
		spool_write(ts_spool, rec, sizeof rec);
	}
}

/* The samples, once the whole text is read: each thread's a profile whose
 * nodes are the stack frames its samples name, and their ancestors. */
static void trace_samples_finish(jscan *r)
{
	uint32_t first_prof = nprofs;
	spool_rewind(ts_spool);
	int64_t rec[5];
	while (spool_ints(ts_spool, rec, 5)) {
		char key[80];
		int n = snprintf(key, sizeof key, "%lld/%lld", (long long)rec[0], (long long)rec[1]);
		bool added;
		uint32_t k = strmap_intern(&thread_profs, key, (size_t)n, &added);
		profile *p;
		if (added) {
			p = new_profile();
			grow_array((void **)&thread_prof, &thread_prof_cap, k + 1, sizeof *thread_prof);
			thread_prof[k] = p->idx;
			p->has_ctx = p->has_start = true;
			p->pid = rec[0];
			p->tid = rec[1];
			p->start = rec[3];
		} else {
			p = profs[thread_prof[k]];
		}
		int64_t at = time_sub(rec[3], p->start, "a sample's ts minus its thread's first");
		cpu_sample_n(r, p, rec[2], time_sub(at, p->t, "a sample's time from the one before"), (uint64_t)rec[4]);
	}
	for (uint32_t q = first_prof; q < nprofs; q++) {
		profile *p = profs[q];
		for (uint32_t i = 0; i < p->n; i++) { /* p->n grows with the ancestors */
			uint32_t s = (uint32_t)p->nodes[i].id;
			if (sframes[s].frame == NONE)
				die_at(fname, 0, "a sample of stack frame %.*s, which stackFrames does not define",
				       (int)sf_keys.keys[s].n, sf_keys.keys[s].p);
			p->nodes[i].frame = sframes[s].frame;
			if (sframes[s].parent != NONE) {
				uint32_t par = node_of(p, sframes[s].parent);
				p->nodes[i].parent = par;
			}
			/* messages name the node by its stack frame id */
			int64_t id;
			if (parse_i64(sf_keys.keys[s].p, sf_keys.keys[s].n, &id)) p->nodes[i].id = id;
		}
	}
}

static void trace_member(jscan *r, sstr key)
{
	if (sstr_eqc(key, "traceEvents")) trace_events(r);
	else if (sstr_eqc(key, "samples")) trace_samples(r);
	else if (sstr_eqc(key, "stackFrames")) trace_stack_frames(r);
	else jscan_skip(r);
}

/* ---- .heapprofile ------------------------------------------------------------
 * {"head": a tree of {"callFrame","selfSize","id","children":[...]},
 *  "samples":[{"size","nodeId","ordinal"}]}.  The tree is walked as it
 * streams (its depth is the call depth); sample counts wait by node id. */

static idmap sample_ids;    /* node id -> index into scount */
static uint64_t *scount;
static uint32_t nscount, scount_cap;

/* The tree is read with a stack of its open nodes, not by recursion, so
 * that --max-depth, not the C stack, bounds its depth. */
struct hlevel { uint32_t me; bool first, in_children, cfirst; };
static struct hlevel *hstack;
static uint32_t hstack_cap;

/* Opens the node at r, a child of parent, on the stack of n levels. */
static void heap_open(jscan *r, profile *p, uint32_t parent, uint32_t *n)
{
	if (*n > opt_max_depth) jscan_fail(r, "the call tree is deeper than %u (--max-depth)", opt_max_depth);
	uint32_t me = p->n;
	pnode *x = VEC_PUSH(p->nodes, p->n, p->cap);
	memset(x, 0, sizeof *x);
	x->parent = parent;
	x->frame = x->stack = NONE;
	x->id = INT64_MIN;
	jscan_open(r, '{', "a heap profile node (an object)");
	grow_array((void **)&hstack, &hstack_cap, *n + 1, sizeof *hstack);
	hstack[(*n)++] = (struct hlevel){ me, true, false, true };
}

static void heap_tree(jscan *r, profile *p)
{
	uint32_t n = 0;
	heap_open(r, p, NONE, &n);
	while (n) {
		struct hlevel *l = &hstack[n - 1];
		uint32_t me = l->me;
		if (l->in_children) {
			if (jscan_more(r, &l->cfirst, ']')) heap_open(r, p, me, &n);
			else l->in_children = false;
			continue;
		}
		if (!jscan_more(r, &l->first, '}')) {
			if (p->nodes[me].frame == NONE) jscan_fail(r, "a heap profile node without a callFrame");
			n--;
			continue;
		}
		sstr key = jscan_key(r);
		if (sstr_eqc(key, "callFrame")) {
			jscan_doc(r, &doc);
			p->nodes[me].frame = callframe(0);
		} else if (sstr_eqc(key, "selfSize")) {
			int64_t v = jscan_int(r, "selfSize");
			if (v < 0) jscan_fail(r, "a negative selfSize");
			p->nodes[me].w[W_BYTES] = (uint64_t)v;
		} else if (sstr_eqc(key, "id")) {
			int64_t id = jscan_int(r, "a node id");
			bool added;
			p->nodes[me].id = id;
			idmap_put(&p->ids, id, me, &added);
			if (!added) jscan_fail(r, "heap profile node %lld defined twice", (long long)id);
		} else if (sstr_eqc(key, "children")) {
			jscan_open(r, '[', "the children array");
			l->in_children = true;
		} else {
			jscan_skip(r);
		}
	}
}

static void heapprofile_member(jscan *r, sstr key)
{
	profile *p = nprofs ? profs[0] : new_profile();
	if (sstr_eqc(key, "head")) {
		if (p->n) jscan_fail(r, "a second head");
		heap_tree(r, p);
	} else if (sstr_eqc(key, "samples")) {
		bool first = true;
		jscan_open(r, '[', "the samples array");
		while (jscan_more(r, &first, ']')) {
			jscan_doc(r, &doc);
			int64_t id = doc_int(0, "nodeId", INT64_MIN);
			if (doc.nodes[0].type != JSON_OBJECT || id == INT64_MIN) jscan_fail(r, "a sample without an integer nodeId");
			bool added;
			uint32_t i = idmap_put(&sample_ids, id, nscount, &added);
			if (added) *VEC_PUSH(scount, nscount, scount_cap) = 0;
			scount[i]++;
		}
	} else {
		jscan_skip(r);
	}
}

static void heapprofile_finish(void)
{
	profile *p = profs[0];
	uint64_t lost = 0;
	for (uint32_t i = 0; i < sample_ids.cap; i++) {
		if (sample_ids.vals[i] == UINT32_MAX) continue;
		uint32_t n = idmap_get(&p->ids, sample_ids.keys[i]);
		if (n == NONE) lost += scount[sample_ids.vals[i]];
		else add_w(&p->nodes[n].w[W_COUNT], scount[sample_ids.vals[i]]);
	}
	/* V8 leaves out of the tree the nodes whose sampled objects were all
	 * collected, but not always their samples */
	if (lost && opt_verbose)
		warn_at(fname, 0, "%llu sample%s of nodes the tree does not have (not counted)",
			(unsigned long long)lost, lost == 1 ? "" : "s");
}

/* ---- .heapsnapshot / .heaptimeline ----------------------------------------------
 * The allocation traces: trace_function_infos (functions, by string
 * index), trace_tree (nested [id, function, count, size, [children]]), and
 * the objects still live in "nodes" (each with its trace_node_id).  Every
 * layout is read from snapshot.meta.  Strings come last: only those the
 * functions name are kept. */

static struct {
	bool seen;
	uint32_t nf, self_col, trace_col;        /* node_fields */
	uint32_t nff, ff_name, ff_script, ff_line, ff_col; /* trace_function_info_fields */
	uint32_t ntf, tf_id, tf_fi, tf_count, tf_size, tf_children; /* trace_node_fields */
	uint32_t id_col;                         /* node_fields: the object id */
	uint32_t nsf, sf_ts, sf_id;              /* sample_fields (timelines) */
	int8_t *nrole, *frole, *srole;           /* per column of nodes, functions, samples:
						  * its role in the rows read (heapsnap_rows) */
} meta;
static int64_t *finfo;       /* 4 per function: name, script, line, column */
static uint32_t nfinfo, finfo_cap;
static bool have_finfo;
static heapsnap_strings strs; /* the names of the functions */

/* Column name of meta list arr (NONE: absent), required or not. */
static uint32_t field_index(jscan *r, uint32_t arr, const char *list, const char *name, bool required)
{
	if (required) return heapsnap_need(r, &doc, arr, list, name);
	return arr != NONE ? heapsnap_field(&doc, arr, name) : NONE;
}

static uint32_t field_count(uint32_t arr)
{
	return arr != NONE && doc.nodes[arr].type == JSON_ARRAY ? doc.nodes[arr].count : 0;
}

/* The roles of n columns: cols[k] has role k (NONE: not there). */
static int8_t *roles(uint32_t n, const uint32_t *cols, int k)
{
	int8_t *role = xmalloc(n ? n : 1);
	memset(role, -1, n ? n : 1);
	for (int i = 0; i < k; i++)
		if (cols[i] != NONE) role[cols[i]] = (int8_t)i;
	return role;
}

static void snapshot_meta(jscan *r)
{
	jscan_doc(r, &doc);
	uint32_t m = member(0, "meta");
	if (m == NONE || doc.nodes[m].type != JSON_OBJECT) jscan_fail(r, "a snapshot without meta");
	uint32_t nfl = member(m, "node_fields"), ffl = member(m, "trace_function_info_fields"),
		 tfl = member(m, "trace_node_fields");
	meta.nf = field_count(nfl);
	if (!meta.nf) jscan_fail(r, "snapshot.meta has no node_fields array");
	meta.self_col = field_index(r, nfl, "node_fields", "self_size", true);
	meta.trace_col = field_index(r, nfl, "node_fields", "trace_node_id", false);
	meta.id_col = field_index(r, nfl, "node_fields", "id", false);
	uint32_t sfl = member(m, "sample_fields");
	meta.nsf = field_count(sfl);
	if (meta.nsf) {
		meta.sf_ts = field_index(r, sfl, "sample_fields", "timestamp_us", true);
		meta.sf_id = field_index(r, sfl, "sample_fields", "last_assigned_id", true);
	}
	meta.nff = field_count(ffl);
	meta.ntf = field_count(tfl);
	if (meta.nff && meta.ntf) {
		meta.ff_name = field_index(r, ffl, "trace_function_info_fields", "name", true);
		meta.ff_script = field_index(r, ffl, "trace_function_info_fields", "script_name", true);
		meta.ff_line = field_index(r, ffl, "trace_function_info_fields", "line", true);
		meta.ff_col = field_index(r, ffl, "trace_function_info_fields", "column", true);
		meta.tf_id = field_index(r, tfl, "trace_node_fields", "id", true);
		meta.tf_fi = field_index(r, tfl, "trace_node_fields", "function_info_index", true);
		meta.tf_count = field_index(r, tfl, "trace_node_fields", "count", true);
		meta.tf_size = field_index(r, tfl, "trace_node_fields", "size", true);
		meta.tf_children = field_index(r, tfl, "trace_node_fields", "children", true);
		if (meta.tf_children < meta.tf_id) jscan_fail(r, "trace_node_fields list children before id");
	}
	meta.nrole = roles(meta.nf, (const uint32_t[]){ meta.self_col, meta.trace_col, meta.id_col }, 3);
	if (meta.nff && meta.ntf)
		meta.frole = roles(meta.nff, (const uint32_t[]){ meta.ff_name, meta.ff_script, meta.ff_line, meta.ff_col }, 4);
	else
		meta.frole = roles(meta.nff, NULL, 0);
	meta.srole = roles(meta.nsf, (const uint32_t[]){ meta.sf_ts, meta.sf_id }, meta.nsf ? 2 : 0);
	meta.seen = true;
}

static void need_meta(jscan *r)
{
	if (!meta.seen) jscan_fail(r, "the snapshot's arrays come before its meta (\"snapshot\")");
}

static int64_t to_ns(int64_t us)
{
	int64_t ns;
	if (ckd_mul(&ns, us, 1000)) die_at(fname, 0, "a time of %lld microseconds overflows nanoseconds", (long long)us);
	return ns;
}

/* A window's entry: (window << 32 | stack), live bytes, live count. */
struct tl_entry { uint64_t key, bytes, count; };

static int cmp_entry(const void *a, const void *b)
{
	uint64_t x = ((const struct tl_entry *)a)->key, y = ((const struct tl_entry *)b)->key;
	return x < y ? -1 : x > y;
}

/* A heap timeline's samples: at timestamp_us, the last object id assigned
 * so far.  With --samples, the live objects with a trace (id, trace node,
 * size) wait in a temporary file until the samples come (after the nodes),
 * and each interval between two samples becomes a window record of what
 * was allocated in it and is still live. */
static int64_t *tl_ts, *tl_id;
static uint32_t n_tl, tl_ts_cap, tl_id_cap;
static spool *live_spool;

static void live_object(int64_t id, uint32_t node, int64_t self)
{
	if (!live_spool) live_spool = spool_new();
	int64_t rec[3] = { id, node, self };
	spool_write(live_spool, rec, sizeof rec);
}

static void sample_row(jscan *r, void *u, const int64_t *f)
{
	(void)u;
	int64_t ts = f[0], id = f[1];
	if (n_tl && (ts < tl_ts[n_tl - 1] || id < tl_id[n_tl - 1]))
		jscan_fail(r, "a timeline sample before the one it follows (time or last id goes back)");
	if (ts < 0) jscan_fail(r, "a timeline sample at a negative time");
	grow_array((void **)&tl_ts, &tl_ts_cap, n_tl + 1, sizeof *tl_ts);
	grow_array((void **)&tl_id, &tl_id_cap, n_tl + 1, sizeof *tl_id);
	tl_ts[n_tl] = ts;
	tl_id[n_tl++] = id;
}

static void snapshot_samples(jscan *r)
{
	need_meta(r);
	if (!meta.nsf) {
		jscan_skip(r);
		return;
	}
	if (heapsnap_rows(r, "the samples array", "a sample field", meta.nsf, meta.srole, sample_row, NULL))
		jscan_fail(r, "the samples array is not a whole number of samples (%u fields each)", meta.nsf);
}

/* The window records of a timeline (after the builder wrote the stacks):
 * window i covers the objects with ids after the last id of sample i - 1,
 * up to that of sample i, and the time between the two samples; those of
 * before the first sample (the heap as the recording found it) and after
 * the last are in no window. */
static void timeline_windows(output *o, void *ctx)
{
	(void)ctx;
	idmap at = { 0 };           /* entry key -> index in ent */
	struct tl_entry *ent = NULL;
	uint32_t n = 0, cap = 0;
	profile *p = profs[0];
	int64_t rec[3];
	if (live_spool) spool_rewind(live_spool);
	while (live_spool && spool_ints(live_spool, rec, 3)) {
		/* the first sample whose last id is >= the object's id */
		uint32_t lo = 0, hi = n_tl;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (tl_id[mid] < rec[0]) lo = mid + 1;
			else hi = mid;
		}
		if (lo == 0 || lo == n_tl) continue;
		uint64_t k = (uint64_t)lo << 32 | p->nodes[rec[1]].stack;
		bool added;
		uint32_t e = idmap_put(&at, (int64_t)k, n, &added);
		if (added) {
			grow_array((void **)&ent, &cap, n + 1, sizeof *ent);
			ent[n++] = (struct tl_entry){ k, 0, 0 };
		}
		add_w(&ent[e].bytes, (uint64_t)rec[2]);
		add_w(&ent[e].count, 1);
	}
	idmap_free(&at);
	if (n) qsort(ent, n, sizeof *ent, cmp_entry); /* by window, then by stack (none: ent is NULL) */
	uint32_t j = 0;
	for (uint32_t i = 1; i < n_tl; i++) {
		out_puts(o, "{\"type\":\"window\",\"id\":\"w");
		out_u64(o, i);
		out_puts(o, "\",\"start\":");
		out_i64(o, to_ns(tl_ts[i - 1]));
		out_puts(o, ",\"end\":");
		out_i64(o, to_ns(tl_ts[i]));
		out_puts(o, ",\"unit\":\"nanoseconds\",\"by_stack\":[");
		for (bool first = true; j < n && ent[j].key >> 32 == i; j++, first = false) {
			out_puts(o, first ? "{\"stack_id\":\"" : ",{\"stack_id\":\"");
			out_puts(o, builder_stack_id(B, (uint32_t)ent[j].key));
			out_puts(o, "\",\"weights\":[{\"metric\":\"live_bytes\",\"value\":");
			out_u64(o, ent[j].bytes);
			out_puts(o, "},{\"metric\":\"live_count\",\"value\":");
			out_u64(o, ent[j].count);
			out_puts(o, "}]}");
		}
		out_puts(o, "]}\n");
	}
	free(ent);
}

/* A node of the snapshot: an object still live, counted to its trace node. */
static void node_row(jscan *r, void *u, const int64_t *f)
{
	profile *p = u;
	int64_t self = f[0], tid = f[1], id = f[2];
	if (tid == 0 || meta.trace_col == NONE) return;
	if (self < 0) jscan_fail(r, "a negative self_size");
	uint32_t k = node_of(p, tid);
	pnode *x = &p->nodes[k];
	add_w(&x->w[W_LIVE_COUNT], 1);
	add_w(&x->w[W_LIVE_BYTES], (uint64_t)self);
	if (opt_samples && meta.id_col != NONE) live_object(id, k, self);
}

static void snapshot_nodes(jscan *r, profile *p)
{
	need_meta(r);
	if (heapsnap_rows(r, "the nodes array", "a node field", meta.nf, meta.nrole, node_row, p))
		jscan_fail(r, "the nodes array is not a whole number of nodes (%u fields each)", meta.nf);
}

static void function_row(jscan *r, void *u, const int64_t *f)
{
	(void)u;
	if (nfinfo + 4 < nfinfo) jscan_fail(r, "too many functions");
	grow_array((void **)&finfo, &finfo_cap, nfinfo + 4, sizeof *finfo);
	memcpy(finfo + nfinfo, f, 4 * sizeof *f);
	nfinfo += 4;
	heapsnap_strings_want(&strs, f[0]);
	heapsnap_strings_want(&strs, f[1]);
}

static void snapshot_functions(jscan *r)
{
	need_meta(r);
	if (heapsnap_rows(r, "the trace_function_infos array", "a function info field", meta.nff, meta.frole,
			  function_row, NULL))
		jscan_fail(r, meta.nff ? "trace_function_infos is not a whole number of functions"
			   : "trace_function_infos without trace_function_info_fields in meta");
	have_finfo = true;
}

/* trace_tree: a flat list of trace nodes' fields, the children field of
 * each a nested list.  Read with a stack of the open lists (not by
 * recursion, so that --max-depth, not the C stack, bounds the depth). */
struct tlevel { uint32_t parent, me, col; int64_t fi, count, size; bool first; };
static struct tlevel *tstack;
static uint32_t tstack_cap;

static void trace_open(jscan *r, uint32_t parent, uint32_t *n)
{
	if (*n > opt_max_depth) jscan_fail(r, "the allocation trace tree is deeper than %u (--max-depth)", opt_max_depth);
	jscan_open(r, '[', "a trace_tree array");
	grow_array((void **)&tstack, &tstack_cap, *n + 1, sizeof *tstack);
	tstack[(*n)++] = (struct tlevel){ .parent = parent, .me = NONE, .first = true };
}

/* A field of t's current trace node was read: the node is whole after its last. */
static void trace_field_done(jscan *r, profile *p, struct tlevel *t)
{
	if (++t->col < meta.ntf) return;
	t->col = 0;
	if (t->fi < 0 || t->fi > UINT32_MAX - 1 || t->count < 0 || t->size < 0)
		jscan_fail(r, "a trace node with a bad function index, count or size");
	pnode *x = &p->nodes[t->me];
	x->frame = (uint32_t)t->fi; /* a function index until frames are made */
	add_w(&x->w[W_COUNT], (uint64_t)t->count);
	add_w(&x->w[W_BYTES], (uint64_t)t->size);
	t->fi = t->count = t->size = 0;
}

static void trace_tree(jscan *r, profile *p)
{
	uint32_t n = 0;
	trace_open(r, NONE, &n);
	while (n) {
		struct tlevel *t = &tstack[n - 1];
		if (!jscan_more(r, &t->first, ']')) {
			if (t->col) jscan_fail(r, "a trace_tree array is not a whole number of trace nodes");
			if (--n) trace_field_done(r, p, &tstack[n - 1]); /* the parent's children field */
			continue;
		}
		if (!meta.ntf) jscan_fail(r, "trace_tree without trace_node_fields in meta");
		if (t->col == meta.tf_children) {
			trace_open(r, t->me, &n);
			continue;
		}
		int64_t v = jscan_int(r, "a trace node field");
		if (t->col == meta.tf_id) {
			t->me = node_of(p, v);
			if (p->nodes[t->me].frame != NONE) jscan_fail(r, "trace node %lld defined twice", (long long)v);
			if (t->parent != NONE) set_parent(p, t->me, t->parent, r);
		} else if (t->col == meta.tf_fi) t->fi = v;
		else if (t->col == meta.tf_count) t->count = v;
		else if (t->col == meta.tf_size) t->size = v;
		trace_field_done(r, p, t);
	}
}

static void snapshot_strings(jscan *r)
{
	if (!have_finfo) heapsnap_strings_want_all(&strs); /* the functions come after */
	heapsnap_strings_read(r, &strs);
}

static void snapshot_member(jscan *r, sstr key)
{
	profile *p = nprofs ? profs[0] : new_profile();
	if (sstr_eqc(key, "snapshot")) snapshot_meta(r);
	else if (sstr_eqc(key, "nodes")) snapshot_nodes(r, p);
	else if (sstr_eqc(key, "trace_function_infos")) snapshot_functions(r);
	else if (sstr_eqc(key, "trace_tree")) {
		need_meta(r);
		trace_tree(r, p);
	} else if (sstr_eqc(key, "samples")) snapshot_samples(r);
	else if (sstr_eqc(key, "strings")) snapshot_strings(r);
	else jscan_skip(r);
}

static sstr snap_string(int64_t i)
{
	sstr s;
	if (!heapsnap_strings_get(&strs, i, &s)) die_at(fname, 0, "string %lld of the snapshot is missing", (long long)i);
	return s;
}

static void snapshot_finish(void)
{
	profile *p = profs[0];
	bool traced = false;
	for (uint32_t i = 0; i < p->n; i++) traced |= p->nodes[i].w[W_COUNT] != 0;
	if (!traced)
		die_no_stacks(fname, "a heap snapshot without allocation traces; record one with "
			      "'node --track-heap-objects' or DevTools' \"Allocation instrumentation on timeline\", "
			      "or compare two snapshots with spaa-heapdiff");
	uint32_t nf = nfinfo / 4;
	uint32_t *fr = xmalloc((nf ? nf : 1) * sizeof *fr);
	for (uint32_t f = 0; f < nf; f++) {
		const int64_t *x = finfo + 4 * f;
		sstr script = snap_string(x[1]);
		fr[f] = make_frame(snap_string(x[0]), script, x[2], x[3], script.n > 0);
	}
	for (uint32_t i = 0; i < p->n; i++) {
		pnode *x = &p->nodes[i];
		if (x->frame == NONE) die_at(fname, 0, "objects of trace node %lld, which trace_tree does not have", (long long)x->id);
		if (x->frame >= nf) die_at(fname, 0, "a trace node of function %u, of %u functions", x->frame, nf);
		x->frame = fr[x->frame];
	}
	free(fr);
}

/* ---- stacks and output ----------------------------------------------------------- */

static enum format format;
static uint32_t *path;
static uint32_t path_cap;
static uint32_t n_metrics, midx[NW], wcol[NW];

static void declare_event(void)
{
	if (format == F_TRACE || format == F_CPUPROFILE) {
		builder_event(B, "cpu", "timer", "period", "wall_us", NULL);
		midx[n_metrics] = builder_metric(B, "wall_us", "microseconds"), wcol[n_metrics++] = W_TIME;
		midx[n_metrics] = builder_metric(B, "samples", NULL), wcol[n_metrics++] = W_COUNT;
		return;
	}
	builder_event(B, "allocation", "allocation", "event", "alloc_bytes", NULL);
	midx[n_metrics] = builder_metric(B, "alloc_bytes", "bytes"), wcol[n_metrics++] = W_BYTES;
	midx[n_metrics] = builder_metric(B, "alloc_count", NULL), wcol[n_metrics++] = W_COUNT;
	if (format == F_HEAPSNAPSHOT && meta.trace_col != NONE) {
		midx[n_metrics] = builder_metric(B, "live_bytes", "bytes"), wcol[n_metrics++] = W_LIVE_BYTES;
		midx[n_metrics] = builder_metric(B, "live_count", NULL), wcol[n_metrics++] = W_LIVE_COUNT;
	}
}

static const char *thread_name(const profile *p, size_t *n)
{
	char key[48];
	int k = snprintf(key, sizeof key, "%lld/%lld", (long long)p->pid, (long long)p->tid);
	int64_t i = strmap_find(&thread_keys, key, (size_t)k);
	if (i < 0) return NULL;
	*n = strlen(thread_names[i]);
	return thread_names[i];
}

/* The path length of node i (1 for a root), from the lengths known
 * (len[k], 0 unknown): every node is walked once, whatever the depth. */
#define WALKING UINT32_MAX
static uint32_t *plen, *walk;
static uint32_t plen_cap, walk_cap;

static uint32_t path_len(profile *p, uint32_t i)
{
	uint32_t n = 0, k = i;
	while (k != NONE && plen[k] == 0) {
		if (p->nodes[k].frame == NONE)
			die_at(fname, 0, "profile node %lld is used but never defined", (long long)p->nodes[k].id);
		plen[k] = WALKING;
		grow_array((void **)&walk, &walk_cap, n + 1, sizeof *walk);
		walk[n++] = k;
		k = p->nodes[k].parent;
	}
	if (k != NONE && plen[k] == WALKING)
		die_at(fname, 0, "profile node %lld is its own ancestor (a cycle of parents)", (long long)p->nodes[i].id);
	uint32_t len = k == NONE ? 0 : plen[k];
	while (n) plen[walk[--n]] = ++len;
	return plen[i];
}

static uint64_t n_written; /* stacks written: none is no profile */

static void write_stacks(profile *p)
{
	builder_ctx c = { .event = 0 };
	if (p->has_ctx) {
		size_t n = 0;
		const char *comm = thread_name(p, &n);
		c.has_pid = c.has_tid = true;
		c.pid = p->pid;
		c.tid = p->tid;
		if (comm) c.comm = (sstr){ comm, n };
		builder_thread(B, p->pid, p->tid, comm, n);
	}
	grow_array((void **)&plen, &plen_cap, p->n, sizeof *plen);
	memset(plen, 0, (size_t)p->n * sizeof *plen);
	uint32_t cut = NONE;
	for (uint32_t i = 0; i < p->n; i++) {
		pnode *x = &p->nodes[i];
		bool any = false;
		for (uint32_t m = 0; m < n_metrics; m++) any |= x->w[wcol[m]] != 0;
		if (!any && !(x->w[W_COUNT])) continue;
		uint32_t len = path_len(p, i);
		if (len > opt_max_depth)
			die_at(fname, 0, "the path of profile node %lld is deeper than %u (--max-depth)",
			       (long long)x->id, opt_max_depth);
		uint32_t depth = 0, keep = len < opt_max_frames ? len : opt_max_frames;
		grow_array((void **)&path, &path_cap, keep + 1, sizeof *path);
		for (uint32_t k = i; depth < keep; k = p->nodes[k].parent) path[depth++] = p->nodes[k].frame;
		if (len > keep) {
			if (cut == NONE) cut = make_frame(sstr_c("[truncated]"), SSTR_NULL, 0, 0, false);
			path[depth++] = cut;
			n_cut++;
		}
		num vals[NW];
		for (uint32_t m = 0; m < n_metrics; m++) vals[m] = num_u(x->w[wcol[m]]);
		x->stack = builder_stack(B, &c, path, depth, midx, vals, n_metrics);
		n_written++;
	}
}

static void finish(const char *outpath, bool zstd)
{
	if (format == F_TRACE || format == F_CPUPROFILE) {
		if (format == F_CPUPROFILE && pending_kind && !paired)
			die_at(fname, 0, pending_kind == 's' ? "samples without timeDeltas: the sample times are unknown"
				   : "timeDeltas without samples");
		if (!n_samples) {
			if (format == F_TRACE && !nprofs)
				die_no_stacks(fname, "%llu trace event%s, none of them a CPU profile (Profile, ProfileChunk) and no samples; record with "
					      "the disabled-by-default-v8.cpu_profiler category, or convert spans (B, E, X) with spall2spaa",
					      (unsigned long long)n_events, n_events == 1 ? "" : "s");
			die_no_stacks(fname, "a CPU profile without samples");
		}
		bool has_range = false;
		int64_t lo = 0, hi = 0;
		for (uint32_t i = 0; i < nprofs; i++) {
			profile *p = profs[i];
			cpu_finish(p);
			if (!p->has_start) continue;
			int64_t last = time_add(p->start, p->t, "startTime plus the sample times");
			int64_t a = p->start, b = p->has_end && p->end > last ? p->end : last;
			if (!has_range || a < lo) lo = a;
			if (!has_range || b > hi) hi = b;
			has_range = true;
		}
		if (has_range) builder_time_range_ns(B, to_ns(lo), to_ns(hi));
		if (n_negative && opt_verbose)
			warn_at(fname, 0, "%llu sample%s followed by a negative time delta (out of order) got no time",
				(unsigned long long)n_negative, n_negative == 1 ? "" : "s");
	} else if (format == F_HEAPPROFILE) {
		if (!nprofs || !profs[0]->n) die_no_stacks(fname, "a heap profile without a head node");
		heapprofile_finish();
	} else {
		if (!nprofs) die_no_stacks(fname, "a heap snapshot without allocation traces");
		snapshot_finish();
		if (opt_samples && n_tl > 1) builder_time_range_ns(B, to_ns(tl_ts[0]), to_ns(tl_ts[n_tl - 1]));
	}
	declare_event();
	for (uint32_t i = 0; i < nprofs; i++) write_stacks(profs[i]);
	if (!n_written) die_no_stacks(fname, "every node's weights are 0 (no allocation, no sample)");
	if (n_cut)
		warn_at(fname, 0, "%llu stack%s of more than %u frames: cut to the %u innermost under [truncated] (--max-frames)",
			(unsigned long long)n_cut, n_cut == 1 ? "" : "s", opt_max_frames, opt_max_frames);
	if (opt_samples) {
		spool_rewind(sample_spool);
		int64_t rec[5];
		char xw[128];
		for (;;) {
			if (!spool_ints(sample_spool, rec, 5)) break;
			profile *p = profs[rec[0]];
			int64_t t;
			if (ckd_add(&t, p->start, rec[2])) die_at(fname, 0, "sample time overflows");
			snprintf(xw, sizeof xw, "\"x_weights\":[{\"metric\":\"wall_us\",\"value\":%lld},"
				 "{\"metric\":\"samples\",\"value\":%llu}]", (long long)rec[3], (unsigned long long)(uint64_t)rec[4]);
			builder_sample_ns(B, p->nodes[rec[1]].stack, to_ns(t), xw);
		}
	}
	if (format == F_HEAPSNAPSHOT && opt_samples && n_tl > 1) reader_extra(timeline_windows, NULL);
	reader_finish(B, outpath, zstd);
}

/* ---- the format, by content -------------------------------------------------- */

static enum format by_key(jscan *r, sstr key)
{
	if (sstr_eqc(key, "traceEvents") || sstr_eqc(key, "metadata") || sstr_eqc(key, "stackFrames")) return F_TRACE;
	if (sstr_eqc(key, "head")) return F_HEAPPROFILE;
	/* member order is free: a snapshot's own members name it too */
	if (sstr_eqc(key, "snapshot") || sstr_eqc(key, "strings") || sstr_eqc(key, "edges") ||
	    sstr_eqc(key, "trace_function_infos") || sstr_eqc(key, "trace_tree") || sstr_eqc(key, "locations"))
		return F_HEAPSNAPSHOT;
	if (sstr_eqc(key, "startTime") || sstr_eqc(key, "endTime") || sstr_eqc(key, "timeDeltas"))
		return F_CPUPROFILE;
	if (sstr_eqc(key, "samples") || sstr_eqc(key, "nodes")) {
		/* samples: objects in a heap profile, numbers in a CPU profile;
		 * nodes: objects in a CPU profile, numbers in a heap snapshot */
		bool samples = sstr_eqc(key, "samples");
		jscan_peek(r);
		for (size_t i = r->pos + 1; i < r->len; i++) {
			char c = r->buf[i];
			if (c == ' ' || c == '\n' || c == '\t' || c == '\r') continue;
			if (samples && c == '{') {
				/* a trace's samples (Hermes) have a stack frame, sf */
				for (size_t j = i; j < r->len && r->buf[j] != '}'; j++)
					if (r->buf[j] == '"' && !memcmp(r->buf + j, "\"sf\"", 4)) return F_TRACE;
				return F_HEAPPROFILE;
			}
			if (samples) return F_CPUPROFILE;
			return c == '-' || c_digit(c) ? F_HEAPSNAPSHOT : F_CPUPROFILE;
		}
		return F_CPUPROFILE;
	}
	return F_AUTO;
}

static void read_profile(jscan *r)
{
	int c = jscan_start(r);
	if (c < 0) die_empty_input(fname);
	if (c == '[') {
		if (format != F_AUTO && format != F_TRACE)
			jscan_fail(r, "a JSON array, which is a trace, not a %s", format_name[format]);
		format = F_TRACE;
		trace_events(r);
	} else if (c == '{') {
		bool first = true;
		/* the members read, each once: JSON.parse keeps the last of a
		 * key, and both would be read here (samples, timeDeltas and a
		 * cpuprofile's or trace's samples say so themselves) */
		static const char *const once[] = { "traceEvents", "stackFrames", "nodes", "snapshot",
						    "trace_function_infos", "trace_tree", "strings", "samples", NULL };
		bool seen[8] = { false };
		jscan_open(r, '{', "'{'");
		while (jscan_more(r, &first, '}')) {
			sstr key = jscan_key(r);
			for (int i = 0; once[i]; i++)
				if (sstr_eqc(key, once[i]) && (i < 7 || format == F_HEAPPROFILE || format == F_HEAPSNAPSHOT)) {
					if (seen[i]) jscan_fail(r, "a second \"%s\"", once[i]);
					seen[i] = true;
				}
			if (format == F_AUTO) format = by_key(r, key);
			switch (format) {
			case F_AUTO: jscan_skip(r); break;
			case F_TRACE: trace_member(r, key); break;
			case F_CPUPROFILE: cpuprofile_member(r, key); break;
			case F_HEAPPROFILE: heapprofile_member(r, key); break;
			case F_HEAPSNAPSHOT: snapshot_member(r, key); break;
			}
		}
		if (format == F_TRACE && ts_spool) trace_samples_finish(r);
		if (format == F_AUTO)
			die_at(fname, 0, "not a Chrome or Node.js profile: none of traceEvents, nodes, head or snapshot "
			       "(--format names the format)");
	} else {
		jscan_fail(r, "not a Chrome or Node.js profile: expected a JSON object or array");
	}
	if (jscan_peek(r) >= 0) jscan_fail(r, "data after the JSON text");
}

/* its options, for getopt_long and the registry (readers/registry.h) */
const struct option chrome_longopts[] = {
	CLI_OUT_LONGOPTS,
	{ "samples", no_argument, 0, 's' },
	{ "format", required_argument, 0, 'F' + 256 },
	{ "max-depth", required_argument, 0, 'D' + 256 },
	{ "max-frames", required_argument, 0, 'f' + 256 },
	{ "max-size", required_argument, 0, 'S' + 256 },
	{ "verbose", no_argument, 0, 'v' + 256 },
	CLI_STD_LONGOPTS,
	{ 0, 0, 0, 0 }
};
const char chrome_shortopts[] = "o:zshV";

/* the converter chrome2spaa: argv as it gets it (argv[0] its name); the
 * exit status (readers/readers.h) */
int chrome_read(int argc, char **argv)
{
	const char *outpath = NULL;
	bool zstd = false;
	int c;
	while ((c = getopt_long(argc, argv, chrome_shortopts, chrome_longopts, NULL)) != -1) {
		switch (c) {
		CLI_OUT_CASES(outpath, zstd);
		case 's': opt_samples = true; break;
		case 'F' + 256:
			for (format = F_TRACE; format <= F_HEAPSNAPSHOT; format++)
				if (!strcmp(optarg, format_name[format])) break;
			if (format > F_HEAPSNAPSHOT)
				usage_error("--format: unknown format '%s' (trace, cpuprofile, heapprofile or heapsnapshot)", optarg);
			break;
		case 'D' + 256: opt_max_depth = (uint32_t)opt_range("--max-depth", optarg, 1, 1000000); break;
		case 'S' + 256: input_max_size_option(optarg); break;
		case 'f' + 256: opt_max_frames = (uint32_t)opt_range("--max-frames", optarg, 1, 1000000); break;
		case 'v' + 256: opt_verbose = true; break;
		CLI_STD_CASES(help_text);
		}
	}
	const char *file = optind < argc ? argv[optind] : "-";
	several_inputs(argv + optind, argc - optind, &file, &outpath, &zstd);
	input *in = input_open(file);
	if (format == F_AUTO) sniff_refuse_other(in, "chrome2spaa", "a Chrome or Node.js profile");
	fname = input_name(in);
	B = builder_new();
	builder_source_tool(B, "chrome");
	json_doc_init(&doc);
	strmap_init(&prof_keys);
	strmap_init(&thread_keys);
	strmap_init(&thread_profs);
	strmap_init(&sf_keys);
	if (opt_samples) sample_spool = spool_new();
	jscan r;
	jscan_init(&r, in, fname);
	read_profile(&r);
	builder_source_str(B, "format", format_name[format], strlen(format_name[format]));
	finish(outpath, zstd);
	jscan_free(&r);
	input_close(in);
	return 0;
}
