/* spaa-heapdiff - compare two V8 heap snapshots (.heapsnapshot) and write a
 * heap-diff 0.1 report (NDJSON): a header, growth records (constructors
 * whose count or size grew) and retained records (the largest objects of
 * those constructors that are new in AFTER, with their retention paths).
 *
 * The story.  Each snapshot is one JSON text, walked in pieces
 * (common/base/jscan): "snapshot" (its meta, which gives the layout of the flat
 * integer arrays) must come first; then "nodes" and "edges"; "strings"
 * last.  Names stay string indexes until the strings come, and only the
 * strings needed are kept:
 *   - BEFORE: per class (a constructor name's string index, or a node type
 *     with a fixed name) the count and bytes, and per node its id, class
 *     and size (the ids sorted too, to tell new objects from old ones); its
 *     edges are skipped.  Of its
 *     strings, the class names are kept.
 *   - AFTER: the nodes (type, name, id, self_size, first edge) and edges
 *     (type, name_or_index, target node) as arrays of small integers, and
 *     the same per-class figures.  When its strings begin, the shortest
 *     paths from the root are found (breadth first, weak and shortcut edges
 *     skipped), and the candidates for retained records are chosen: the
 *     largest new objects of each class (the largest of the growing
 *     constructors are among them).  Of its strings, the class names and the
 *     names on the candidates' paths are kept.
 * Then the classes of both sides are merged by constructor name, the growth
 * records ranked and written, and the retained records chosen from the
 * candidates of the constructors written.
 *
 * Then the new objects (AFTER's ids not in BEFORE) and the deleted ones
 * (BEFORE's ids not in AFTER) are counted per constructor, and the report
 * written: NDJSON, or on a terminal a table as DevTools' Comparison view.
 *
 * Memory grows with the numbers of nodes and edges (about 29 bytes a node and
 * 9 an edge for AFTER, 20 a node for BEFORE), never with the JSON text. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>
#include "cli.h"
#include "heapsnap.h"
#include "idmap.h"
#include "input.h"
#include "jscan.h"
#include "json.h"
#include "jsonw.h"
#include "output.h"
#include "strmap.h"
#include "units.h"
#include "util.h"

static const char help_text[] =
	"Usage: spaa-heapdiff [OPTION]... BEFORE AFTER\n"
	"Compare two V8 heap snapshots (.heapsnapshot files, as Node's\n"
	"v8.writeHeapSnapshot() and Chrome DevTools write them) and write a\n"
	"heap-diff 0.1 report (NDJSON): a header; one growth record per constructor\n"
	"whose count or size grew, largest size growth first; then retained\n"
	"records: the largest objects of those constructors that are new in AFTER\n"
	"(their ids are not in BEFORE), each with its shortest retention path from\n"
	"the root.  Either file may be - for standard input; gzip and zstd are read\n"
	"too.\n"
	"\n"
	"On a terminal the report is a table instead, as DevTools' Comparison view:\n"
	"per constructor the objects new in AFTER, deleted since BEFORE, their sizes,\n"
	"then the largest new objects with their retention paths.\n"
	"\n"
	"  -n, --lines=N        at most N growth records, or table rows (default 0:\n"
	"                       all); retained records are of the constructors written\n"
	"      --retained=N     at most N retained records (default 20; 0: none)\n"
	"      --all-retainers  paths through V8's internals too ((system), (compiled\n"
	"                       code), hidden classes); by default a path avoids them\n"
	"                       when another one leads to the object\n"
	"  -J, --json           the NDJSON report, even on a terminal\n"
	"      --table          the table, even when not on a terminal\n"
	"      --raw-units      the table's sizes as exact integers, without units\n"
	"      --iec            its sizes in KiB, MiB, GiB instead of kB, MB, GB\n"
	CLI_HELP_TAIL;

#define NONE UINT32_MAX
enum { BEFORE, AFTER };

static uint64_t opt_lines;          /* 0: all */
static uint64_t opt_retained = 20;
static bool opt_all_retainers;
static int opt_table = -1;          /* 1 table, 0 NDJSON, -1: a table on a terminal */
static units_opts opt_units;

/* The path segments kept of a longer path: the first HEAD, "...", the last
 * TAIL (MAX_SEGS in all). */
enum { MAX_SEGS = 20, HEAD = 10, TAIL = 9 };

/* The strings of a snapshot are kept only where asked for beforehand
 * (common/formats/heapsnap); every index used was wanted and read. */
static sstr get_string(const heapsnap_strings *t, int64_t i)
{
	sstr s;
	if (!heapsnap_strings_get(t, i, &s)) abort();
	return s;
}

/* ---- one snapshot ------------------------------------------------------------- */

/* The node fields used, by role. */
enum { NF_TYPE, NF_NAME, NF_ID, NF_SIZE, NF_EDGES, N_NF };
static const char *const nf_names[N_NF] = { "type", "name", "id", "self_size", "edge_count" };
enum { EF_TYPE, EF_NAME, EF_TO, N_EF };
static const char *const ef_names[N_EF] = { "type", "name_or_index", "to_node" };

/* Edge types, by what a path does with them. */
enum { EDGE_NAMED = 0, EDGE_NUMBERED = 1, EDGE_SKIPPED = 2, EDGE_SHORTCUT = 3 };

typedef struct snap {
	int side;
	const char *name;       /* for messages */
	json_doc meta;
	bool seen_meta, seen_nodes, seen_edges, seen_strings;

	/* the layout */
	uint32_t nf, ef;              /* fields per node, per edge */
	int8_t *ncol, *ecol;          /* column -> role (NF_*, EF_*) or -1 */
	uint32_t ntypes, netypes;
	char **fixed;                 /* per node type: its constructor name, NULL when named by the node */
	uint8_t *internal;            /* per node type: V8's internals ((system), (compiled code), shapes) */
	uint8_t *eflag;               /* per edge type: EDGE_* */

	/* classes: a name's string index (>= 0), or -1 - a node type with a fixed name */
	idmap cls;                    /* key -> class */
	int64_t *ckey;
	uint64_t *ccount, *csize;
	uint32_t *cctor;              /* the constructor, once named */
	uint32_t ncls, ckey_cap, ccount_cap, csize_cap;

	/* nodes: ids (both sides), their class and size (BEFORE: to count the
	 * deleted ones), ids sorted (to tell new and deleted objects); the rest
	 * AFTER only */
	uint32_t nnodes;
	uint32_t *nid, nid_cap;
	uint32_t *sorted;
	uint32_t *bcls, bcls_cap;
	uint64_t *bsize;
	uint32_t bsize_cap;
	uint8_t *ntype;
	uint32_t *nname, *nsize, *first; /* first: n + 1 entries, edge counts until made offsets */
	uint32_t ntype_cap, nname_cap, nsize_cap, first_cap;
	idmap big;                    /* node -> index in bigv, for a self_size >= UINT32_MAX */
	uint64_t *bigv;
	uint32_t nbig, bigv_cap;
	uint64_t edge_sum;
	uint32_t node_hint, edge_hint; /* snapshot.node_count and edge_count, bounded */

	/* edges (AFTER) */
	uint32_t nedges;
	uint8_t *etype;
	uint32_t *ename, *eto;
	uint32_t etype_cap, ename_cap, eto_cap;

	heapsnap_strings strs;
} snap;

static snap S[2];

/* Member key of object k in the meta doc as an array: its index, or fails. */
static uint32_t meta_array(jscan *r, const json_doc *d, uint32_t k, const char *key)
{
	uint32_t v = d->nodes[k].type == JSON_OBJECT ? json_get(d, k, key) : 0;
	if (!v || d->nodes[v].type != JSON_ARRAY) jscan_fail(r, "snapshot.meta has no %s array", key);
	return v;
}

/* Constructor names of the node types whose nodes are not named by their
 * name string, as DevTools groups them. */
static char *fixed_name(const char *p, size_t n)
{
	static const char *const tab[][2] = {
		{ "closure", "(closure)" }, { "array", "(array)" }, { "string", "(string)" },
		{ "concatenated string", "(string)" }, { "sliced string", "(string)" },
		{ "regexp", "(regexp)" }, { "number", "(number)" }, { "code", "(compiled code)" },
		{ "hidden", "(system)" }, { "symbol", "(symbol)" }, { "bigint", "(bigint)" },
		{ "object shape", "(object shape)" },
	};
	sstr t = { p, n };
	if (sstr_eqc(t, "object") || sstr_eqc(t, "native") || sstr_eqc(t, "synthetic")) return NULL;
	for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
		if (sstr_eqc(t, tab[i][0])) return xstrdup(tab[i][1]);
	char *s = xmalloc(n + 3);
	s[0] = '(';
	memcpy(s + 1, p, n);
	s[n + 1] = ')';
	s[n + 2] = 0;
	return s;
}

static void read_meta(jscan *r, snap *s)
{
	json_doc *d = &s->meta;
	jscan_doc(r, d);
	uint32_t m = d->nodes[0].type == JSON_OBJECT ? json_get(d, 0, "meta") : 0;
	if (!m || d->nodes[m].type != JSON_OBJECT) jscan_fail(r, "\"snapshot\" has no meta object");
	uint32_t nfl = meta_array(r, d, m, "node_fields"), efl = meta_array(r, d, m, "edge_fields");
	uint32_t ntl = meta_array(r, d, m, "node_types"), etl = meta_array(r, d, m, "edge_types");
	s->nf = d->nodes[nfl].count;
	s->ef = d->nodes[efl].count;
	s->ncol = xmalloc(s->nf);
	s->ecol = xmalloc(s->ef);
	memset(s->ncol, -1, s->nf);
	memset(s->ecol, -1, s->ef);
	uint32_t ncol[N_NF], ecol[N_EF];
	for (int i = 0; i < N_NF; i++) {
		ncol[i] = heapsnap_need(r, d, nfl, "node_fields", nf_names[i]);
		s->ncol[ncol[i]] = (int8_t)i;
	}
	for (int i = 0; i < N_EF; i++) {
		ecol[i] = heapsnap_need(r, d, efl, "edge_fields", ef_names[i]);
		s->ecol[ecol[i]] = (int8_t)i;
	}
	/* node_types and edge_types: per field, the type field's entry is the array of names */
	uint32_t tk = NONE, ek = NONE, i = 0;
	for (uint32_t x = json_first(d, ntl), e = json_after(d, ntl); x < e; x = json_after(d, x), i++)
		if (i == ncol[NF_TYPE]) tk = x;
	i = 0;
	for (uint32_t x = json_first(d, etl), e = json_after(d, etl); x < e; x = json_after(d, x), i++)
		if (i == ecol[EF_TYPE]) ek = x;
	if (tk == NONE || d->nodes[tk].type != JSON_ARRAY) jscan_fail(r, "snapshot.meta.node_types does not name the node types");
	if (ek == NONE || d->nodes[ek].type != JSON_ARRAY) jscan_fail(r, "snapshot.meta.edge_types does not name the edge types");
	s->ntypes = d->nodes[tk].count;
	s->netypes = d->nodes[ek].count;
	if (s->ntypes > 256 || s->netypes > 256) jscan_fail(r, "snapshot.meta lists more than 256 node or edge types");
	s->fixed = xcalloc(s->ntypes ? s->ntypes : 1, sizeof *s->fixed);
	s->internal = xcalloc(s->ntypes ? s->ntypes : 1, 1);
	s->eflag = xcalloc(s->netypes ? s->netypes : 1, 1);
	i = 0;
	for (uint32_t x = json_first(d, tk), e = json_after(d, tk); x < e; x = json_after(d, x), i++) {
		if (d->nodes[x].type != JSON_STRING) jscan_fail(r, "snapshot.meta.node_types: a type name is not a string");
		s->fixed[i] = fixed_name(d->nodes[x].str, d->nodes[x].count);
		/* V8's internals, and the synthetic root categories ((GC roots),
		 * (Handle scope) ...): a path goes through them last */
		s->internal[i] = (s->fixed[i] && (!strcmp(s->fixed[i], "(system)") ||
						  !strcmp(s->fixed[i], "(compiled code)") ||
						  !strcmp(s->fixed[i], "(object shape)"))) ||
				 json_is_str(d, x, "synthetic", 9);
	}
	i = 0;
	for (uint32_t x = json_first(d, ek), e = json_after(d, ek); x < e; x = json_after(d, x), i++) {
		if (d->nodes[x].type != JSON_STRING) jscan_fail(r, "snapshot.meta.edge_types: a type name is not a string");
		if (json_is_str(d, x, "element", 7) || json_is_str(d, x, "hidden", 6)) s->eflag[i] = EDGE_NUMBERED;
		else if (json_is_str(d, x, "weak", 4)) s->eflag[i] = EDGE_SKIPPED;
		else if (json_is_str(d, x, "shortcut", 8)) s->eflag[i] = EDGE_SHORTCUT;
	}
	/* room for the nodes and edges announced (a hint, at most 2^26 of each:
	 * the arrays grow past it) */
	int64_t nc = 0, ec = 0;
	uint32_t k = json_get(d, 0, "node_count");
	if (k && json_int64(d, k, &nc) && nc > 0) s->node_hint = (uint32_t)(nc < (1 << 26) ? nc : (1 << 26));
	k = json_get(d, 0, "edge_count");
	if (k && json_int64(d, k, &ec) && ec > 0) s->edge_hint = (uint32_t)(ec < (1 << 26) ? ec : (1 << 26));
	s->seen_meta = true;
}

static uint32_t class_of(snap *s, int64_t key)
{
	bool added;
	uint32_t c = idmap_put(&s->cls, key, s->ncls, &added);
	if (added) {
		grow_array((void **)&s->ckey, &s->ckey_cap, s->ncls + 1, sizeof *s->ckey);
		grow_array((void **)&s->ccount, &s->ccount_cap, s->ncls + 1, sizeof *s->ccount);
		grow_array((void **)&s->csize, &s->csize_cap, s->ncls + 1, sizeof *s->csize);
		s->ckey[c] = key;
		s->ccount[c] = s->csize[c] = 0;
		s->ncls++;
	}
	return c;
}

static inline int64_t class_key(const snap *s, uint32_t type, uint32_t name)
{
	return s->fixed[type] ? -1 - (int64_t)type : (int64_t)name;
}

static void add_node(jscan *r, void *u, const int64_t *f)
{
	snap *s = u;
	if (f[NF_TYPE] < 0 || f[NF_TYPE] >= s->ntypes)
		jscan_fail(r, "node type %lld is not in snapshot.meta.node_types", (long long)f[NF_TYPE]);
	if (f[NF_NAME] < 0 || f[NF_NAME] > UINT32_MAX) jscan_fail(r, "a node name %lld out of range", (long long)f[NF_NAME]);
	if (f[NF_ID] < 0 || f[NF_ID] > UINT32_MAX) jscan_fail(r, "a node id %lld out of range (0 to 2^32-1)", (long long)f[NF_ID]);
	if (f[NF_SIZE] < 0) jscan_fail(r, "a negative self_size");
	if (f[NF_EDGES] < 0 || f[NF_EDGES] > UINT32_MAX) jscan_fail(r, "an edge_count %lld out of range", (long long)f[NF_EDGES]);
	if (s->nnodes == NONE - 1) jscan_fail(r, "more than 2^32-2 nodes");
	uint32_t type = (uint32_t)f[NF_TYPE], name = (uint32_t)f[NF_NAME], n = s->nnodes;
	uint32_t c = class_of(s, class_key(s, type, name));
	s->ccount[c]++;
	if (__builtin_add_overflow(s->csize[c], (uint64_t)f[NF_SIZE], &s->csize[c])) jscan_fail(r, "sizes beyond 64 bits");
	uint32_t k = n;
	*VEC_PUSH(s->nid, k, s->nid_cap) = (uint32_t)f[NF_ID];
	if (s->side == BEFORE) {
		k = n;
		*VEC_PUSH(s->bcls, k, s->bcls_cap) = c;
		k = n;
		*VEC_PUSH(s->bsize, k, s->bsize_cap) = (uint64_t)f[NF_SIZE];
	}
	if (s->side == AFTER) {
		k = n;
		*VEC_PUSH(s->ntype, k, s->ntype_cap) = (uint8_t)type;
		k = n;
		*VEC_PUSH(s->nname, k, s->nname_cap) = name;
		uint32_t sz = (uint32_t)f[NF_SIZE];
		if (f[NF_SIZE] >= UINT32_MAX) {
			sz = UINT32_MAX;
			idmap_put(&s->big, n, s->nbig, NULL);
			*VEC_PUSH(s->bigv, s->nbig, s->bigv_cap) = (uint64_t)f[NF_SIZE];
		}
		k = n;
		*VEC_PUSH(s->nsize, k, s->nsize_cap) = sz;
		k = n + 1;
		*VEC_PUSH(s->first, k, s->first_cap) = (uint32_t)f[NF_EDGES];
		s->edge_sum += (uint64_t)f[NF_EDGES];
	}
	s->nnodes = n + 1;
}

static void read_nodes(jscan *r, snap *s)
{
	if (s->seen_nodes) jscan_fail(r, "a second nodes array");
	s->seen_nodes = true;
	uint32_t h = s->node_hint;
	grow_array((void **)&s->nid, &s->nid_cap, h, sizeof *s->nid);
	if (s->side == AFTER) {
		grow_array((void **)&s->ntype, &s->ntype_cap, h, sizeof *s->ntype);
		grow_array((void **)&s->nname, &s->nname_cap, h, sizeof *s->nname);
		grow_array((void **)&s->nsize, &s->nsize_cap, h, sizeof *s->nsize);
		grow_array((void **)&s->first, &s->first_cap, h + 1, sizeof *s->first);
		s->first[0] = 0;
	}
	if (heapsnap_rows(r, "the nodes array", "a node field", s->nf, s->ncol, add_node, s))
		jscan_fail(r, "the nodes array is not a whole number of nodes (%u fields each)", s->nf);
}

/* One edge of AFTER: its type, name and target node kept. */
static void add_edge(jscan *r, void *u, const int64_t *f)
{
	snap *s = u;
	if (f[EF_TYPE] < 0 || f[EF_TYPE] >= s->netypes)
		jscan_fail(r, "edge type %lld is not in snapshot.meta.edge_types", (long long)f[EF_TYPE]);
	if (f[EF_NAME] < 0 || f[EF_NAME] > UINT32_MAX)
		jscan_fail(r, "an edge name_or_index %lld out of range", (long long)f[EF_NAME]);
	if (f[EF_TO] < 0 || f[EF_TO] % s->nf || f[EF_TO] / s->nf >= NONE)
		jscan_fail(r, "an edge to_node %lld that is not a node's place in the nodes array", (long long)f[EF_TO]);
	if (s->nedges == NONE - 1) jscan_fail(r, "more than 2^32-2 edges");
	uint32_t n = s->nedges, k = n;
	*VEC_PUSH(s->etype, k, s->etype_cap) = (uint8_t)f[EF_TYPE];
	k = n;
	*VEC_PUSH(s->ename, k, s->ename_cap) = (uint32_t)f[EF_NAME];
	k = n;
	*VEC_PUSH(s->eto, k, s->eto_cap) = (uint32_t)(f[EF_TO] / s->nf);
	s->nedges = n + 1;
}

static void read_edges(jscan *r, snap *s)
{
	if (s->seen_edges) jscan_fail(r, "a second edges array");
	s->seen_edges = true;
	if (s->side == BEFORE) {
		jscan_skip(r); /* the counts and ids are all BEFORE gives */
		return;
	}
	uint32_t h = s->edge_hint;
	grow_array((void **)&s->etype, &s->etype_cap, h, sizeof *s->etype);
	grow_array((void **)&s->ename, &s->ename_cap, h, sizeof *s->ename);
	grow_array((void **)&s->eto, &s->eto_cap, h, sizeof *s->eto);
	if (heapsnap_rows(r, "the edges array", "an edge field", s->ef, s->ecol, add_edge, s))
		jscan_fail(r, "the edges array is not a whole number of edges (%u fields each)", s->ef);
}

/* Sorts a[0..n) (radix, 16 bits a pass). */
static void sort_u32(uint32_t *a, uint32_t n)
{
	uint32_t *t = xmalloc((n ? n : 1) * sizeof *t);
	uint32_t *cnt = xmalloc(65536 * sizeof *cnt);
	for (int sh = 0; sh < 32; sh += 16) {
		memset(cnt, 0, 65536 * sizeof *cnt);
		for (uint32_t i = 0; i < n; i++) cnt[a[i] >> sh & 0xffff]++;
		uint32_t sum = 0;
		for (uint32_t j = 0; j < 65536; j++) {
			uint32_t c = cnt[j];
			cnt[j] = sum;
			sum += c;
		}
		for (uint32_t i = 0; i < n; i++) t[cnt[a[i] >> sh & 0xffff]++] = a[i];
		memcpy(a, t, (size_t)n * sizeof *a);
	}
	free(cnt);
	free(t);
}

/* A node id given to two nodes is refused: the ids tell new objects from
 * old ones, and a retained record names its object by id. */
static void check_ids(jscan *r, snap *s)
{
	uint32_t n = s->nnodes, *a = xmalloc((n ? n : 1) * sizeof *a);
	memcpy(a, s->nid, (size_t)n * sizeof *a);
	sort_u32(a, n);
	for (uint32_t i = 1; i < n; i++) {
		if (a[i] != a[i - 1]) continue;
		uint32_t first = NONE, second = NONE;
		for (uint32_t k = 0; k < n && second == NONE; k++)
			if (s->nid[k] == a[i]) *(first == NONE ? &first : &second) = k;
		jscan_fail(r, "node id %u is given to two nodes (nodes %u and %u)", a[i], first, second);
	}
	free(a);
}

/* Whether snapshot s has an object of that id. */
static bool has_id(const snap *s, uint32_t id)
{
	const uint32_t *a = s->sorted;
	uint32_t lo = 0, hi = s->nnodes;
	if (!hi || id > a[hi - 1] || id < a[0]) return false;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (a[mid] < id) lo = mid + 1;
		else hi = mid;
	}
	return lo < s->nnodes && a[lo] == id;
}

static bool in_before(uint32_t id) { return has_id(&S[BEFORE], id); }

/* ---- AFTER: paths and candidates ------------------------------------------------ */

static uint32_t *parent;           /* per node: the parent on a shortest path, NONE if unreached */
typedef struct heap { uint32_t *v; uint32_t n, cap; } heap;
static heap *cand;                 /* per AFTER class: its largest new objects, the smallest first */

static inline uint64_t node_size(const snap *s, uint32_t i)
{
	uint32_t v = s->nsize[i];
	return v != UINT32_MAX ? v : s->bigv[idmap_get(&s->big, i)];
}

/* a ranks before b: larger, or as large with a smaller id */
static inline bool ranks_before(const snap *s, uint32_t a, uint32_t b)
{
	uint64_t x = node_size(s, a), y = node_size(s, b);
	return x != y ? x > y : s->nid[a] < s->nid[b];
}

/* Keeps i among the opt_retained best of h (a heap with the worst at its top). */
static void heap_offer(const snap *s, heap *h, uint32_t i)
{
	uint32_t k;
	if (h->n < opt_retained) {
		k = h->n;
		*VEC_PUSH(h->v, h->n, h->cap) = i;
		while (k > 0 && ranks_before(s, h->v[(k - 1) / 2], i)) {
			h->v[k] = h->v[(k - 1) / 2];
			k = (k - 1) / 2;
		}
		h->v[k] = i;
		return;
	}
	if (!ranks_before(s, i, h->v[0])) return;
	k = 0;
	for (;;) {
		uint32_t c = 2 * k + 1;
		if (c >= h->n) break;
		if (c + 1 < h->n && ranks_before(s, h->v[c], h->v[c + 1])) c++;
		if (!ranks_before(s, i, h->v[c])) break;
		h->v[k] = h->v[c];
		k = c;
	}
	h->v[k] = i;
}

/* Whether a path may take edge e out of node u: not a weak edge, and a
 * shortcut only from the root (to the global objects, as DevTools' paths
 * start) and not with --all-retainers. */
static inline bool followed(const snap *s, uint32_t u, uint32_t e)
{
	uint8_t f = s->eflag[s->etype[e]];
	return f == EDGE_SHORTCUT ? u == 0 && !opt_all_retainers : f != EDGE_SKIPPED;
}

static void find_parents(snap *s)
{
	uint32_t n = s->nnodes;
	parent = xmalloc((n ? n : 1) * sizeof *parent);
	for (uint32_t i = 0; i < n; i++) parent[i] = NONE;
	if (!n) return;
	/* breadth first; V8's internals are reached but not gone through,
	 * unless --all-retainers, until every other node was: then the
	 * search goes on from them, so that a path avoids them when it can */
	uint32_t *queue = xmalloc((size_t)n * sizeof *queue), head = 0, tail = 0;
	uint32_t *later = NULL, nlater = 0, later_cap = 0, next_later = 0;
	parent[0] = 0;
	queue[tail++] = 0;
	for (;;) {
		uint32_t u;
		if (head < tail) {
			u = queue[head++];
			if (u != 0 && !opt_all_retainers && s->internal[s->ntype[u]]) {
				*VEC_PUSH(later, nlater, later_cap) = u;
				continue;
			}
		} else if (next_later < nlater) {
			u = later[next_later++];
		} else {
			break;
		}
		for (uint32_t e = s->first[u], end = s->first[u + 1]; e < end; e++) {
			uint32_t v = s->eto[e];
			if (parent[v] != NONE || !followed(s, u, e)) continue;
			parent[v] = u;
			queue[tail++] = v;
		}
	}
	free(later);
	free(queue);
}

/* The edge by which the search first reached v (from parent[v]). */
static uint32_t parent_edge(const snap *s, uint32_t v)
{
	uint32_t u = parent[v];
	for (uint32_t e = s->first[u], end = s->first[u + 1]; e < end; e++)
		if (s->eto[e] == v && followed(s, u, e)) return e;
	abort();
}

/* The edges of v's path from the root, in order, into *p (its length);
 * 0 for the root and nodes the search did not reach. */
static uint32_t path_edges(const snap *s, uint32_t v, uint32_t **p, uint32_t *cap)
{
	uint32_t n = 0;
	if (v == 0 || parent[v] == NONE) return 0;
	for (uint32_t x = v; x != 0; x = parent[x]) *VEC_PUSH(*p, n, *cap) = parent_edge(s, x);
	for (uint32_t i = 0, j = n - 1; i < j; i++, j--) {
		uint32_t t = (*p)[i];
		(*p)[i] = (*p)[j];
		(*p)[j] = t;
	}
	return n;
}

/* Whether the root's edge e is replaced by the name of the node it reaches:
 * an element index, or no name. */
static bool root_edge_unnamed(const snap *s, uint32_t e)
{
	return s->eflag[s->etype[e]] == EDGE_NUMBERED || s->eflag[s->etype[e]] == EDGE_SHORTCUT ||
	       get_string(&s->strs, s->ename[e]).n == 0;
}

static uint32_t *pbuf, pbuf_cap;

/* Before AFTER's strings: the structure is complete; check it, find the
 * paths, choose the candidates and ask for the strings they need. */
static void before_after_strings(jscan *r, snap *s)
{
	uint64_t sum = 0;
	for (uint32_t i = 1; i <= s->nnodes; i++) {
		sum += s->first[i];
		s->first[i] = (uint32_t)(sum <= UINT32_MAX ? sum : UINT32_MAX);
	}
	if (s->edge_sum != s->nedges)
		jscan_fail(r, "the nodes' edge counts add up to %llu, but the edges array has %u edges",
			   (unsigned long long)s->edge_sum, s->nedges);
	for (uint32_t e = 0; e < s->nedges; e++)
		if (s->eto[e] >= s->nnodes)
			jscan_fail(r, "edge %u leads to node %u, of %u nodes", e, s->eto[e], s->nnodes);
	for (uint32_t c = 0; c < s->ncls; c++)
		if (s->ckey[c] >= 0) heapsnap_strings_want(&s->strs, s->ckey[c]);
	if (!opt_retained) return;
	cand = xcalloc(s->ncls ? s->ncls : 1, sizeof *cand);
	for (uint32_t i = 0; i < s->nnodes; i++) {
		if (in_before(s->nid[i])) continue;
		uint32_t c = idmap_get(&s->cls, class_key(s, s->ntype[i], s->nname[i]));
		heap_offer(s, &cand[c], i);
	}
	find_parents(s);
	for (uint32_t c = 0; c < s->ncls; c++)
		for (uint32_t k = 0; k < cand[c].n; k++) {
			uint32_t n = path_edges(s, cand[c].v[k], &pbuf, &pbuf_cap);
			for (uint32_t j = 0; j < n; j++) {
				uint32_t e = pbuf[j];
				if (n > MAX_SEGS && j >= HEAD && j < n - TAIL) continue;
				if (s->eflag[s->etype[e]] != EDGE_NUMBERED) heapsnap_strings_want(&s->strs, s->ename[e]);
				if (j == 0) heapsnap_strings_want(&s->strs, s->nname[s->eto[e]]);
			}
		}
}

/* ---- reading ------------------------------------------------------------------ */

static void read_snapshot(snap *s, int side, const char *path)
{
	s->side = side;
	heapsnap_strings_init(&s->strs);
	json_doc_init(&s->meta);
	input *in = input_open(path);
	s->name = input_name(in);
	jscan r;
	jscan_init(&r, in, s->name);
	int c = jscan_start(&r);
	if (c < 0) jscan_fail(&r, "empty input, not a V8 heap snapshot");
	if (c != '{') jscan_fail(&r, "not a V8 heap snapshot (.heapsnapshot): expected a JSON object");
	bool first = true;
	jscan_open(&r, '{', "'{'");
	while (jscan_more(&r, &first, '}')) {
		sstr key = jscan_key(&r);
		bool nodes = sstr_eqc(key, "nodes"), edges = sstr_eqc(key, "edges"), strings = sstr_eqc(key, "strings");
		if (!s->seen_meta) {
			if (nodes || edges || strings)
				jscan_fail(&r, "the %.*s array comes before \"snapshot\", the meta that gives its layout", (int)key.n, key.p);
			if (!sstr_eqc(key, "snapshot"))
				jscan_fail(&r, "not a V8 heap snapshot (.heapsnapshot): the first member is \"%.*s\", not \"snapshot\"",
					   (int)key.n, key.p);
			read_meta(&r, s);
		} else if (nodes) {
			if (s->seen_strings) jscan_fail(&r, "the nodes array comes after the strings");
			read_nodes(&r, s);
			check_ids(&r, s);
		} else if (edges) {
			if (s->seen_strings) jscan_fail(&r, "the edges array comes after the strings");
			read_edges(&r, s);
		} else if (strings) {
			if (s->seen_strings) jscan_fail(&r, "a second strings array");
			if (!s->seen_nodes || !s->seen_edges)
				jscan_fail(&r, "the strings come before the %s array", s->seen_nodes ? "edges" : "nodes");
			s->seen_strings = true;
			if (side == AFTER) {
				before_after_strings(&r, s);
			} else {
				for (uint32_t k = 0; k < s->ncls; k++)
					if (s->ckey[k] >= 0) heapsnap_strings_want(&s->strs, s->ckey[k]);
			}
			heapsnap_strings_read(&r, &s->strs);
		} else if (sstr_eqc(key, "snapshot")) {
			jscan_fail(&r, "a second \"snapshot\"");
		} else {
			jscan_skip(&r); /* trace_function_infos, trace_tree, samples, locations */
		}
	}
	if (jscan_peek(&r) >= 0) jscan_fail(&r, "data after the JSON text");
	if (!s->seen_meta) jscan_fail(&r, "not a V8 heap snapshot (.heapsnapshot): no \"snapshot\" member");
	if (!s->seen_strings)
		jscan_fail(&r, "a heap snapshot without a %s array",
			   !s->seen_nodes ? "nodes" : !s->seen_edges ? "edges" : "strings");
	jscan_free(&r);
	input_close(in);
	json_doc_free(&s->meta);
	s->sorted = xmalloc((s->nnodes ? s->nnodes : 1) * sizeof *s->sorted);
	memcpy(s->sorted, s->nid, (size_t)s->nnodes * sizeof *s->sorted);
	sort_u32(s->sorted, s->nnodes);
}

/* ---- constructors ----------------------------------------------------------- */

static strmap ctors;
static uint64_t (*cfig)[2][2];     /* per constructor: [side][count, size] */
static uint32_t cfig_cap;
static uint32_t *ctor_written;     /* per constructor: written as growth (1) or not (0) */

static sstr class_name(const snap *s, uint32_t c)
{
	int64_t k = s->ckey[c];
	return k >= 0 ? get_string(&s->strs, k) : sstr_c(s->fixed[-1 - k]);
}

/* A constructor's name (for a node of s: its name string or its type's name). */
static sstr node_ctor(const snap *s, uint32_t i)
{
	return class_name(s, idmap_get(&s->cls, class_key(s, s->ntype[i], s->nname[i])));
}

static void name_classes(snap *s)
{
	s->cctor = xmalloc((s->ncls ? s->ncls : 1) * sizeof *s->cctor);
	for (uint32_t c = 0; c < s->ncls; c++) {
		sstr n = class_name(s, c);
		bool added;
		uint32_t k = strmap_intern(&ctors, n.p, n.n, &added);
		if (added) {
			grow_array((void **)&cfig, &cfig_cap, k + 1, sizeof *cfig);
			memset(cfig[k], 0, sizeof cfig[k]);
		}
		s->cctor[c] = k;
		uint64_t *f = cfig[k][s->side];
		if (__builtin_add_overflow(f[0], s->ccount[c], &f[0]) || __builtin_add_overflow(f[1], s->csize[c], &f[1]))
			die_at(s->name, 0, "sizes beyond 64 bits");
	}
}

typedef struct growth { uint32_t ctor; int64_t dcount, dsize; } growth;

static int cmp_growth(const void *a, const void *b)
{
	const growth *x = a, *y = b;
	if (x->dsize != y->dsize) return x->dsize > y->dsize ? -1 : 1;
	if (x->dcount != y->dcount) return x->dcount > y->dcount ? -1 : 1;
	size_t n1, n2;
	const char *p1 = strmap_key(&ctors, x->ctor, &n1), *p2 = strmap_key(&ctors, y->ctor, &n2);
	int c = memcmp(p1, p2, n1 < n2 ? n1 : n2);
	return c ? c : (n1 > n2) - (n1 < n2);
}

static int64_t delta(uint64_t before, uint64_t after)
{
	if (before > INT64_MAX || after > INT64_MAX) die(EXIT_DATA, "%s: sizes beyond 63 bits", S[AFTER].name);
	return (int64_t)after - (int64_t)before;
}

/* ---- output ------------------------------------------------------------------- */

static int cmp_nodes(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x == y ? 0 : ranks_before(&S[AFTER], x, y) ? -1 : 1;
}

static void write_segment(output *o, const snap *s, uint32_t e, bool root_edge)
{
	if (root_edge && root_edge_unnamed(s, e)) {
		uint32_t v = s->eto[e];
		sstr n = get_string(&s->strs, s->nname[v]);
		if (!n.n) n = node_ctor(s, v);
		jw_str(o, n.p, n.n);
	} else if (s->eflag[s->etype[e]] == EDGE_NUMBERED) {
		out_puts(o, "\"[");
		out_u64(o, s->ename[e]);
		out_puts(o, "]\"");
	} else {
		sstr n = get_string(&s->strs, s->ename[e]);
		jw_str(o, n.p, n.n);
	}
}

static void write_retained(output *o, const snap *s, uint32_t i)
{
	out_puts(o, "{\"type\":\"retained\",\"constructor\":");
	sstr c = node_ctor(s, i);
	jw_str(o, c.p, c.n);
	out_puts(o, ",\"size\":");
	out_u64(o, node_size(s, i));
	out_puts(o, ",\"id\":");
	out_u64(o, s->nid[i]);
	out_puts(o, ",\"retention_path\":[");
	uint32_t n = path_edges(s, i, &pbuf, &pbuf_cap);
	for (uint32_t j = 0; j < n; j++) {
		if (n > MAX_SEGS && j >= HEAD && j < n - TAIL) {
			if (j == HEAD) out_puts(o, ",\"...\"");
			continue;
		}
		if (j) out_putc(o, ',');
		write_segment(o, s, pbuf[j], j == 0);
	}
	out_puts(o, "]}\n");
}

/* ---- the comparison: new and deleted objects ------------------------------------ */

/* per constructor: new objects (in AFTER, not in BEFORE) and their bytes,
 * deleted objects (in BEFORE, not in AFTER) and their bytes */
enum { NEW_COUNT, NEW_SIZE, DEL_COUNT, DEL_SIZE };
static uint64_t (*cmp)[4];

static void add_to(uint64_t *x, uint64_t v, const char *name)
{
	if (__builtin_add_overflow(*x, v, x)) die_at(name, 0, "sizes beyond 64 bits");
}

static void count_new_deleted(void)
{
	cmp = xcalloc(ctors.count ? ctors.count : 1, sizeof *cmp);
	const snap *a = &S[AFTER], *b = &S[BEFORE];
	for (uint32_t i = 0; i < a->nnodes; i++) {
		if (in_before(a->nid[i])) continue;
		uint32_t k = a->cctor[idmap_get(&a->cls, class_key(a, a->ntype[i], a->nname[i]))];
		cmp[k][NEW_COUNT]++;
		add_to(&cmp[k][NEW_SIZE], node_size(a, i), a->name);
	}
	for (uint32_t i = 0; i < b->nnodes; i++) {
		if (has_id(a, b->nid[i])) continue;
		uint32_t k = b->cctor[b->bcls[i]];
		cmp[k][DEL_COUNT]++;
		add_to(&cmp[k][DEL_SIZE], b->bsize[i], b->name);
	}
}

/* ---- the NDJSON report ---------------------------------------------------------- */

/* The retained records: the largest new objects of the constructors
 * written (at most --retained), largest first; into *n. */
static uint32_t *pick_retained(uint32_t *n)
{
	const snap *s = &S[AFTER];
	uint32_t *pick = NULL, np = 0, pcap = 0;
	if (cand)
		for (uint32_t c = 0; c < s->ncls; c++)
			if (ctor_written[s->cctor[c]])
				for (uint32_t k = 0; k < cand[c].n; k++) *VEC_PUSH(pick, np, pcap) = cand[c].v[k];
	xqsort(pick, np, sizeof *pick, cmp_nodes);
	if (np > opt_retained) np = (uint32_t)opt_retained;
	*n = np;
	return pick;
}

static void write_ndjson(output *o, const char *before, const char *after, const growth *g, uint32_t ng)
{
	out_puts(o, "{\"type\":\"header\",\"format\":\"heap-diff\",\"version\":\"0.1\",\"baseline\":");
	jw_strc(o, before);
	out_puts(o, ",\"target\":");
	jw_strc(o, after);
	out_puts(o, "}\n");
	for (uint32_t j = 0; j < ng; j++) {
		uint32_t k = g[j].ctor;
		size_t n;
		const char *p = strmap_key(&ctors, k, &n);
		ctor_written[k] = 1;
		out_puts(o, "{\"type\":\"growth\",\"constructor\":");
		jw_str(o, p, n);
		out_puts(o, ",\"count_before\":");
		out_u64(o, cfig[k][BEFORE][0]);
		out_puts(o, ",\"count_after\":");
		out_u64(o, cfig[k][AFTER][0]);
		out_puts(o, ",\"count_delta\":");
		out_i64(o, g[j].dcount);
		out_puts(o, ",\"size_before\":");
		out_u64(o, cfig[k][BEFORE][1]);
		out_puts(o, ",\"size_after\":");
		out_u64(o, cfig[k][AFTER][1]);
		out_puts(o, ",\"size_delta\":");
		out_i64(o, g[j].dsize);
		out_puts(o, ",\"new_count\":");
		out_u64(o, cmp[k][NEW_COUNT]);
		out_puts(o, ",\"deleted_count\":");
		out_u64(o, cmp[k][DEL_COUNT]);
		out_puts(o, ",\"alloc_size\":");
		out_u64(o, cmp[k][NEW_SIZE]);
		out_puts(o, ",\"freed_size\":");
		out_u64(o, cmp[k][DEL_SIZE]);
		out_puts(o, "}\n");
	}
	uint32_t np;
	uint32_t *pick = pick_retained(&np);
	for (uint32_t j = 0; j < np; j++) write_retained(o, &S[AFTER], pick[j]);
	free(pick);
}

/* ---- the table ---------------------------------------------------------------- */

typedef struct row { uint32_t ctor; int64_t dcount, dsize; } row;

/* Size delta (alloc - freed) descending, then # delta, then name. */
static int cmp_rows(const void *a, const void *b)
{
	growth x = { ((const row *)a)->ctor, ((const row *)a)->dcount, ((const row *)a)->dsize };
	growth y = { ((const row *)b)->ctor, ((const row *)b)->dcount, ((const row *)b)->dsize };
	return cmp_growth(&x, &y);
}

static long double ld(uint64_t v) { return (long double)v; }

/* "Window.app.cache.items[42]": the segments of a retention path, element
 * indexes in brackets. */
static void put_path(output *o, const snap *s, uint32_t i)
{
	uint32_t n = path_edges(s, i, &pbuf, &pbuf_cap);
	if (!n) {
		out_puts(o, "(no path from the GC roots)");
		return;
	}
	for (uint32_t j = 0; j < n; j++) {
		if (n > MAX_SEGS && j >= HEAD && j < n - TAIL) {
			if (j == HEAD) out_puts(o, ".....");
			continue;
		}
		uint32_t e = pbuf[j];
		if (j == 0 && root_edge_unnamed(s, e)) {
			uint32_t v = s->eto[e];
			sstr nm = get_string(&s->strs, s->nname[v]);
			if (!nm.n) nm = node_ctor(s, v);
			out_write(o, nm.p, nm.n);
		} else if (s->eflag[s->etype[e]] == EDGE_NUMBERED) {
			out_putc(o, '[');
			out_u64(o, s->ename[e]);
			out_putc(o, ']');
		} else {
			sstr nm = get_string(&s->strs, s->ename[e]);
			if (j) out_putc(o, '.');
			out_write(o, nm.p, nm.n);
		}
	}
}

static void put_cells(output *o, char (*cell)[UNITS_BUF], const int *w, int ncol)
{
	for (int c = 0; c < ncol; c++) {
		for (int k = (int)strlen(cell[c]); k < w[c]; k++) out_putc(o, ' ');
		out_puts(o, cell[c]);
		out_puts(o, "  ");
	}
}

/* The Comparison view: a line of totals, a row per constructor with new or
 * deleted objects, then the largest new objects and their paths. */
static void write_table(output *o, const char *before, const char *after)
{
	uint32_t nc = ctors.count, nr = 0;
	row *r = xmalloc((nc ? nc : 1) * sizeof *r);
	uint64_t tot[2][2] = { { 0, 0 }, { 0, 0 } };
	long double min = 0, max = 0;
	for (uint32_t k = 0; k < nc; k++) {
		for (int side = 0; side < 2; side++)
			for (int f = 0; f < 2; f++) add_to(&tot[side][f], cfig[k][side][f], S[side].name);
		if (!cmp[k][NEW_COUNT] && !cmp[k][DEL_COUNT]) continue;
		r[nr++] = (row){ k, delta(cmp[k][DEL_COUNT], cmp[k][NEW_COUNT]), delta(cmp[k][DEL_SIZE], cmp[k][NEW_SIZE]) };
	}
	xqsort(r, nr, sizeof *r, cmp_rows);
	if (opt_lines && opt_lines < nr) nr = (uint32_t)opt_lines;
	for (uint32_t j = 0; j < nr; j++) {
		uint64_t *x = cmp[r[j].ctor];
		long double v[3] = { ld(x[NEW_SIZE]), ld(x[DEL_SIZE]), fabsl((long double)r[j].dsize) };
		for (int c = 0; c < 3; c++) {
			if (v[c] > 0 && (min == 0 || v[c] < min)) min = v[c];
			if (v[c] > max) max = v[c];
		}
	}
	units bytes = units_of("bytes", 5, "bytes", 5), count = units_of("count", 5, NULL, 0);
	units_scale sz = units_pick(&bytes, &opt_units, min, max);
	units_scale ct = units_pick(&count, &opt_units, 0, 0);
	char b[UNITS_BUF];
	/* the totals */
	out_printf(o, "%s: ", before);
	out_write(o, b, units_fmt(b, ld(tot[BEFORE][1]), &sz));
	out_puts(o, " in ");
	out_write(o, b, units_fmt(b, ld(tot[BEFORE][0]), &ct));
	out_printf(o, " objects; %s: ", after);
	out_write(o, b, units_fmt(b, ld(tot[AFTER][1]), &sz));
	out_puts(o, " in ");
	out_write(o, b, units_fmt(b, ld(tot[AFTER][0]), &ct));
	out_puts(o, " objects; delta ");
	out_write(o, b, units_fmt_signed(b, (long double)delta(tot[BEFORE][1], tot[AFTER][1]), &sz));
	out_puts(o, ", ");
	out_write(o, b, units_fmt_signed(b, (long double)delta(tot[BEFORE][0], tot[AFTER][0]), &ct));
	out_puts(o, " objects\n");
	/* the rows */
	enum { NCOL = 6 };
	static const char *const head[NCOL] = { "# New", "# Deleted", "# Delta", "Alloc. Size", "Freed Size", "Size Delta" };
	char (*cell)[NCOL][UNITS_BUF] = xmalloc(((size_t)nr + 1) * sizeof *cell);
	int w[NCOL];
	for (int c = 0; c < NCOL; c++) {
		snprintf(cell[nr][c], UNITS_BUF, "%s", head[c]);
		w[c] = (int)strlen(head[c]);
	}
	for (uint32_t j = 0; j < nr; j++) {
		uint64_t *x = cmp[r[j].ctor];
		units_fmt(cell[j][0], ld(x[NEW_COUNT]), &ct);
		units_fmt(cell[j][1], ld(x[DEL_COUNT]), &ct);
		units_fmt_signed(cell[j][2], (long double)r[j].dcount, &ct);
		units_fmt(cell[j][3], ld(x[NEW_SIZE]), &sz);
		units_fmt(cell[j][4], ld(x[DEL_SIZE]), &sz);
		units_fmt_signed(cell[j][5], (long double)r[j].dsize, &sz);
		for (int c = 0; c < NCOL; c++)
			if ((int)strlen(cell[j][c]) > w[c]) w[c] = (int)strlen(cell[j][c]);
	}
	put_cells(o, cell[nr], w, NCOL);
	out_puts(o, "Constructor\n");
	for (uint32_t j = 0; j < nr; j++) {
		put_cells(o, cell[j], w, NCOL);
		size_t n;
		const char *p = strmap_key(&ctors, r[j].ctor, &n);
		out_write(o, p, n);
		out_putc(o, '\n');
	}
	/* the largest new object of each constructor, in the table's order */
	const snap *sa = &S[AFTER];
	uint32_t *best = xmalloc((nc ? nc : 1) * sizeof *best), np = 0;
	for (uint32_t k = 0; k < nc; k++) best[k] = NONE;
	for (uint32_t c = 0; cand && c < sa->ncls; c++)
		for (uint32_t k = 0; k < cand[c].n; k++) {
			uint32_t *b0 = &best[sa->cctor[c]];
			if (*b0 == NONE || ranks_before(sa, cand[c].v[k], *b0)) *b0 = cand[c].v[k];
		}
	uint32_t *pick = xmalloc(((size_t)nr + 1) * sizeof *pick);
	for (uint32_t j = 0; j < nr && np < opt_retained; j++)
		if (best[r[j].ctor] != NONE) pick[np++] = best[r[j].ctor];
	free(best);
	if (np) out_puts(o, "\nThe largest new object of each, retained by (from the GC roots):\n");
	int ws = 4;
	for (uint32_t j = 0; j < np; j++) {
		int a = (int)units_fmt(b, ld(node_size(&S[AFTER], pick[j])), &sz);
		if (a > ws) ws = a;
	}
	for (uint32_t j = 0; j < np; j++) {
		const snap *s = &S[AFTER];
		int a = (int)units_fmt(b, ld(node_size(s, pick[j])), &sz);
		for (int k = a; k < ws; k++) out_putc(o, ' ');
		out_write(o, b, (size_t)a);
		out_puts(o, "  ");
		sstr c = node_ctor(s, pick[j]);
		out_write(o, c.p, c.n);
		out_puts(o, " @");
		out_u64(o, s->nid[pick[j]]);
		out_puts(o, "  ");
		put_path(o, s, pick[j]);
		out_putc(o, '\n');
	}
	free(pick);
	free(cell);
	free(r);
}

static void write_report(const char *before, const char *after, const char *outpath, bool zstd)
{
	uint32_t nc = ctors.count, ng = 0;
	growth *g = xmalloc((nc ? nc : 1) * sizeof *g);
	for (uint32_t k = 0; k < nc; k++) {
		uint64_t(*f)[2] = cfig[k];
		if (f[AFTER][0] > f[BEFORE][0] || f[AFTER][1] > f[BEFORE][1])
			g[ng++] = (growth){ k, delta(f[BEFORE][0], f[AFTER][0]), delta(f[BEFORE][1], f[AFTER][1]) };
	}
	xqsort(g, ng, sizeof *g, cmp_growth);
	if (opt_lines && opt_lines < ng) ng = (uint32_t)opt_lines;
	ctor_written = xcalloc(nc ? nc : 1, sizeof *ctor_written);
	count_new_deleted();
	output *o = output_open(outpath, zstd);
	if (opt_table) write_table(o, before, after);
	else write_ndjson(o, before, after, g, ng);
	output_close(o);
	free(g);
	free(cmp);
}

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	enum { O_RETAINED = 256, O_ALL_RETAINERS, O_TABLE };
	static const struct option longopts[] = {
		{ "lines", required_argument, 0, 'n' },
		{ "retained", required_argument, 0, O_RETAINED },
		{ "all-retainers", no_argument, 0, O_ALL_RETAINERS },
		{ "json", no_argument, 0, 'J' },
		{ "table", no_argument, 0, O_TABLE },
		{ "raw-units", no_argument, 0, UNITS_OPT_RAW },
		{ "iec", no_argument, 0, UNITS_OPT_IEC },
		CLI_OUT_LONGOPTS,
		CLI_STD_LONGOPTS,
		{ 0, 0, 0, 0 }
	};
	const char *outpath = NULL;
	bool zstd = false;
	int c;
	while ((c = getopt_long(argc, argv, "n:o:zJhV", longopts, NULL)) != -1) {
		if (units_opts_take(&opt_units, c)) continue;
		switch (c) {
		case O_ALL_RETAINERS: opt_all_retainers = true; break;
		case 'J': opt_table = 0; break;
		case O_TABLE: opt_table = 1; break;
		case 'n': opt_lines = opt_u64("--lines", optarg); break;
		case O_RETAINED:
			opt_retained = opt_u64("--retained", optarg);
			if (opt_retained > UINT32_MAX) opt_retained = UINT32_MAX;
			break;
		CLI_OUT_CASES(outpath, zstd);
		CLI_STD_CASES(help_text);
		}
	}
	if (argc - optind != 2)
		usage_error(argc - optind < 2 ? "two snapshots needed: BEFORE AFTER"
					     : "too many arguments (two snapshots: BEFORE AFTER)");
	cli_stdin_once(argv + optind, 2);
	/* a table for a person at a terminal, NDJSON for a program */
	if (opt_table < 0) opt_table = !outpath && !zstd && isatty(STDOUT_FILENO);
	strmap_init(&ctors);
	read_snapshot(&S[BEFORE], BEFORE, argv[optind]);
	name_classes(&S[BEFORE]);
	heapsnap_strings_free(&S[BEFORE].strs);
	read_snapshot(&S[AFTER], AFTER, argv[optind + 1]);
	name_classes(&S[AFTER]);
	write_report(argv[optind], argv[optind + 1], outpath, zstd);
	return EXIT_OK;
}
