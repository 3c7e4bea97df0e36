/* spaa-validate - check SPAA files against the SPAA 1.0 specification.
 *
 * Every file is read once, as a stream.  The reader (spaa.h) takes in the
 * header and the dictionaries and reports what it cannot make sense of
 * (bad JSON, duplicate ids, frames on unknown dsos, stacks on unknown
 * frames...) through r->on_error, which here records the problem and lets
 * it go on.  The checks it does not do are made here on the parsed record
 * (r->doc, node 0 is the record object).
 *
 * Samples are most of a big file, so a sample costs one pass over its
 * members and one map lookup for its stack_id.  Samples and windows may name
 * a stack defined further on: such ids are kept in a map of pending
 * references (bounded by the number of distinct ids) and checked at the end.
 * Nothing is kept per sample.
 *
 * Output: each problem as "prog: file:line: [warning: ]message" on stderr
 * (or one JSON object per line on stdout with --json), then per file a
 * summary line on stdout for a file that is not valid (--verbose: for every
 * file).  Exit 0 when every file is valid, 1 otherwise. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "json.h"
#include "jsonw.h"
#include "output.h"
#include "spaa.h"
#include "strmap.h"
#include "util.h"

static const char help_text[] =
"Usage: spaa-validate [OPTION]... [FILE]...\n"
"Check SPAA files (NDJSON, optionally gzip or zstd compressed) against the\n"
"SPAA 1.0 specification.  Reports every problem as FILE:LINE: MESSAGE on\n"
"standard error, then a summary line on standard output for each file that\n"
"is not valid; nothing for a valid file (--verbose: a summary for every file).\n"
"With no FILE, or when FILE is -, read standard input.\n"
"\n"
"Every file valid: exit 0; any not valid: exit 1.\n"
"\n"
"  -q, --quiet          print nothing; the exit status tells\n"
"      --verbose        a summary line for every file, valid or not (records\n"
"                       of each type, errors, warnings)\n"
"      --strict         treat warnings as errors\n"
"  -J, --json           print problems and summaries as JSON lines on stdout\n"
"      --max-errors=N   report at most N problems per file (default 100,\n"
"                       0: no limit); the rest are still counted\n"
CLI_HELP_END;

/* ---- options and output ------------------------------------------------- */

static struct {
	bool quiet, strict, json, verbose;
	uint64_t max;
} opt = { .max = 100 };

static output *out;

enum sev { SEV_ERROR, SEV_WARNING };

/* A reference to a stack not (yet) seen: where it was first made. */
typedef struct pending {
	uint64_t line, count;
	const char *what;     /* "sample", "window", "related_stacks" */
} pending;

/* Per-file state. */
typedef struct vfile {
	const char *name;
	spaa_reader *r;
	uint64_t errors, warnings, shown;
	uint64_t counts[SPAA_BAD + 1];
	strmap stacks;            /* stack ids seen */
	uint64_t *stack_line;     /* by stacks index: line of definition */
	uint32_t slcap;
	strmap pend;              /* stack ids referenced by samples/windows */
	pending *pd;
	uint32_t pdcap;
	strmap rel;               /* stack ids named in related_stacks */
	pending *rd;
	uint32_t rdcap;
	strmap once;              /* keys of warnings given once per file */
	sbuf msg, key, q;
	spaa_stack st;
	uint64_t first_line;      /* first record's line */
} vfile;

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* Reports one problem. */
static void __attribute__((format(printf, 5, 6)))
diag(vfile *v, uint64_t line, enum sev sev, const char *rule, const char *fmt, ...)
{
	if (opt.strict)
		sev = SEV_ERROR;
	if (sev == SEV_ERROR)
		v->errors++;
	else
		v->warnings++;
	if (opt.quiet)
		return;
	if (opt.max && v->shown >= opt.max) {
		if (v->shown == opt.max && !opt.json)
			warn_at(v->name, 0, "too many problems; only counting the rest (--max-errors %llu)",
				(unsigned long long)opt.max);
		v->shown = opt.max + 1;
		return;
	}
	v->shown++;
	va_list ap;
	v->msg.n = 0;
	sbuf_reserve(&v->msg, 256);
	va_start(ap, fmt);
	int k = vsnprintf(v->msg.p, v->msg.cap, fmt, ap);
	va_end(ap);
	if (k >= 0 && (size_t)k >= v->msg.cap) {
		sbuf_reserve(&v->msg, (size_t)k + 1);
		va_start(ap, fmt);
		vsnprintf(v->msg.p, v->msg.cap, fmt, ap);
		va_end(ap);
	}
	if (opt.json) {
		out_puts(out, "{\"file\":");
		jw_strc(out, v->name);
		out_puts(out, ",\"line\":");
		if (line)
			out_u64(out, line);
		else
			out_puts(out, "null");
		out_puts(out, sev == SEV_ERROR ? ",\"severity\":\"error\",\"message\":"
			 : ",\"severity\":\"warning\",\"message\":");
		jw_strc(out, v->msg.p);
		out_puts(out, ",\"rule\":");
		jw_strc(out, rule);
		out_puts(out, "}\n");
	} else {
		warn_at(v->name, line, "%s%s", sev == SEV_WARNING ? "warning: " : "", v->msg.p);
	}
}

#define ERR(v, rule, ...) diag((v), (v)->r->lineno, SEV_ERROR, (rule), __VA_ARGS__)
#define WARN(v, rule, ...) diag((v), (v)->r->lineno, SEV_WARNING, (rule), __VA_ARGS__)

/* True the first time (tag, key) is seen in this file. */
static bool first_time(vfile *v, char tag, const char *p, size_t n)
{
	v->key.n = 0;
	sbuf_addc(&v->key, tag);
	sbuf_add(&v->key, p, n);
	bool added;
	strmap_intern(&v->once, v->key.p, v->key.n, &added);
	return added;
}

/* The reader's own messages, with the rule they belong to. */
static const struct { const char *needle, *rule; } reader_rules[] = {
	{ "invalid JSON", "json" },
	{ "not a JSON object", "json-object" },
	{ "no \"type\"", "record-type" },
	{ "not the header", "header-first" },
	{ "second header", "header-once" },
	{ "weights", "weights" },
	{ "exclusive has no frame", "exclusive-frame" },
	{ "exclusive.frame", "exclusive-frame" },
	{ "related_stacks", "related-stacks" },
	{ "window entry", "window-stack" },
	{ "by_stack", "window" },
	{ "unknown frame", "stack-frame" },
	{ "unknown dso", "frame-dso" },
	{ "has no dso", "frame-dso" },
	{ "dso record", "dso-id" }, { "dso id", "dso-id" }, { "duplicate dso", "dso-id" },
	{ "frame record", "frame-id" }, { "frame id", "frame-id" }, { "duplicate frame", "frame-id" },
	{ "thread", "thread-tid" },
	{ "stack record has no valid", "stack-id" },
	{ "\"frames\"", "stack-frames" },
	{ "context", "stack-context" },
};

static void on_reader_error(spaa_reader *r, const char *msg)
{
	vfile *v = r->user;
	const char *rule = "reader";
	for (size_t i = 0; i < sizeof reader_rules / sizeof *reader_rules; i++)
		if (strstr(msg, reader_rules[i].needle)) {
			rule = reader_rules[i].rule;
			break;
		}
	diag(v, r->lineno, SEV_ERROR, rule, "%s", msg);
}

/* ---- small helpers on the current record --------------------------------- */

static const json_node *N(const vfile *v, uint32_t k)
{
	return &v->r->doc.nodes[k];
}

static uint32_t get(const vfile *v, uint32_t obj, const char *key)
{
	return json_get(&v->r->doc, obj, key);
}

static bool is_int(const vfile *v, uint32_t k)
{
	return N(v, k)->type == JSON_INT || N(v, k)->type == JSON_UINT;
}

static bool is_bool(const vfile *v, uint32_t k)
{
	return N(v, k)->type == JSON_TRUE || N(v, k)->type == JSON_FALSE;
}

/* Node k as a printable (possibly truncated) text: for messages. */
static sstr text_of(const vfile *v, uint32_t k)
{
	const json_node *x = N(v, k);
	switch (x->type) {
	case JSON_STRING: return (sstr){ x->str, x->count > 200 ? 200 : x->count };
	case JSON_INT: case JSON_UINT: case JSON_DOUBLE: return (sstr){ x->str, x->num_len };
	case JSON_NULL: return sstr_c("null");
	case JSON_TRUE: return sstr_c("true");
	case JSON_FALSE: return sstr_c("false");
	case JSON_ARRAY: return sstr_c("(an array)");
	default: return sstr_c("(an object)");
	}
}
#define PS(s) (int)(s).n, (s).p

/* Node k as it would be written in JSON (strings quoted, unescaped): for
 * messages about a value of the wrong kind.  Valid until the next call. */
static const char *qtext(vfile *v, uint32_t k)
{
	sstr t = text_of(v, k);
	v->q.n = 0;
	if (N(v, k)->type == JSON_STRING) sbuf_addc(&v->q, '"');
	sbuf_add(&v->q, t.p, t.n);
	if (N(v, k)->type == JSON_STRING) sbuf_addc(&v->q, '"');
	sbuf_addc(&v->q, 0);
	return v->q.p;
}

/* The record's id member (key) for messages. */
static sstr id_of(const vfile *v, const char *key)
{
	uint32_t k = get(v, 0, key);
	return k ? text_of(v, k) : sstr_c("(no id)");
}

static bool in_list(sstr s, const char *const *list)
{
	for (; *list; list++)
		if (sstr_eqc(s, *list))
			return true;
	return false;
}

static bool is_hex(const char *p, size_t n, bool lower_only)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = p[i];
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (!lower_only && c >= 'A' && c <= 'F')))
			return false;
	}
	return true;
}

/* "0x" followed by hex digits. */
static bool is_0xhex(sstr s)
{
	return s.n > 2 && s.p[0] == '0' && (s.p[1] == 'x' || s.p[1] == 'X') && is_hex(s.p + 2, s.n - 2, false);
}

/* A string member: its node, or 0 with an error when present and not a
 * string. */
static uint32_t str_member(vfile *v, uint32_t obj, const char *key, const char *what, const char *rule)
{
	uint32_t k = get(v, obj, key);
	if (k && N(v, k)->type != JSON_STRING) {
		ERR(v, rule, "%s%s must be a string", what, key);
		return 0;
	}
	return k;
}

/* ---- header ------------------------------------------------------------- */

static const char *const known_tools[] = {
	"perf", "dtrace", "bpftrace", "ebpf", "chrome", "v8", "heaptrack", "pprof",
	"folded", "spall", "spx", "afperf", "speedscope", "massif", "dhat", "callgrind", "stackprof",
	"gecko",
	"instruments", "pmcstat", "v8-prof", "ghc", "safari", "cProfile", "jfr",
	NULL
};
static const char *const event_kinds[] = {
	"hardware", "software", "allocation", "deallocation", "timer", "probe", NULL
};
static const char *const sampling_modes[] = { "period", "frequency", "event", NULL };
static const char *const frame_orders[] = { "leaf_to_root", "root_to_leaf", NULL };
static const char *const id_modes[] = { "content_addressable", "local", NULL };

static void check_event(vfile *v, uint32_t e, uint32_t i)
{
	char where[64];
	/* an event that is not an object with a name string: reported by the
	 * reader (spaa.c), with the message every command gives */
	if (N(v, e)->type != JSON_OBJECT) return;
	uint32_t k = get(v, e, "name");
	if (!k || N(v, k)->type != JSON_STRING) {
		snprintf(where, sizeof where, "header events[%u]", i);
	} else {
		sstr name = text_of(v, k);
		snprintf(where, sizeof where, "event %.*s", name.n > 40 ? 40 : (int)name.n, name.p);
		/* earlier events with the same name */
		uint32_t x = json_first(&v->r->doc, get(v, 0, "events"));
		for (uint32_t j = 0; j < i; j++, x = json_after(&v->r->doc, x)) {
			uint32_t xn = get(v, x, "name");
			if (xn && json_is_str(&v->r->doc, xn, N(v, k)->str, N(v, k)->count)) {
				ERR(v, "event", "header events[%u]: duplicate event name \"%.*s\"", i, PS(name));
				break;
			}
		}
	}
	k = get(v, e, "kind");
	if (!k)
		ERR(v, "event-kind", "%s has no \"kind\"", where);
	else if (N(v, k)->type != JSON_STRING || !in_list(text_of(v, k), event_kinds))
		ERR(v, "event-kind", "%s: kind %s is not hardware, software, allocation, deallocation, timer or probe",
		    where, qtext(v, k));
	uint32_t s = get(v, e, "sampling");
	if (!s || N(v, s)->type != JSON_OBJECT) {
		ERR(v, "sampling", "%s has no \"sampling\" object", where);
		return;
	}
	k = get(v, s, "mode");
	if (!k)
		ERR(v, "sampling", "%s has no sampling.mode", where);
	else if (N(v, k)->type != JSON_STRING || !in_list(text_of(v, k), sampling_modes))
		ERR(v, "sampling", "%s: sampling.mode %s is not period, frequency or event", where, qtext(v, k));
	k = get(v, s, "primary_metric");
	if (!k || N(v, k)->type != JSON_STRING || N(v, k)->count == 0)
		ERR(v, "sampling", "%s has no sampling.primary_metric string", where);
}

static void check_header(vfile *v)
{
	uint32_t k = get(v, 0, "format");
	if (!k)
		ERR(v, "header-format", "header has no \"format\" (must be \"spaa\")");
	else if (!json_is_str(&v->r->doc, k, "spaa", 4))
		ERR(v, "header-format", "header format is %s, not \"spaa\"", qtext(v, k));

	k = get(v, 0, "version");
	if (!k)
		ERR(v, "header-version", "header has no \"version\" (must be \"1.0\")");
	else if (N(v, k)->type != JSON_STRING)
		ERR(v, "header-version", "header version must be a string (\"1.0\")");
	else if (!json_is_str(&v->r->doc, k, "1.0", 3)) {
		sstr ver = text_of(v, k);
		/* other major versions are refused by the reader (spaa.c) */
		if (ver.n > 2 && memcmp(ver.p, "1.", 2) == 0)
			WARN(v, "header-version", "header version \"%.*s\" is not 1.0: checked as 1.0", PS(ver));
	}

	k = get(v, 0, "source_tool");
	if (!k)
		WARN(v, "source-tool", "header has no \"source_tool\"");
	else if (N(v, k)->type != JSON_STRING)
		ERR(v, "source-tool", "header source_tool must be a string");
	else if (!in_list(text_of(v, k), known_tools) &&
		 !(N(v, k)->count > 2 && memcmp(N(v, k)->str, "x_", 2) == 0))
		WARN(v, "source-tool", "unknown source_tool \"%.*s\"", PS(text_of(v, k)));

	k = get(v, 0, "frame_order");
	if (!k)
		ERR(v, "frame-order", "header has no \"frame_order\" (leaf_to_root or root_to_leaf)");
	else if (N(v, k)->type != JSON_STRING || !in_list(text_of(v, k), frame_orders))
		ERR(v, "frame-order", "header frame_order %s is not leaf_to_root or root_to_leaf", qtext(v, k));

	k = get(v, 0, "stack_id_mode");
	if (!k)
		WARN(v, "stack-id-mode", "header has no \"stack_id_mode\" (taken as \"local\")");
	else if (N(v, k)->type != JSON_STRING || !in_list(text_of(v, k), id_modes))
		ERR(v, "stack-id-mode", "header stack_id_mode %s is not content_addressable or local",
		    qtext(v, k));

	uint32_t ev = get(v, 0, "events");
	if (!ev || N(v, ev)->type != JSON_ARRAY) {
		ERR(v, "events", "header has no \"events\" array");
	} else if (N(v, ev)->count == 0) {
		WARN(v, "events", "header declares no events");
	} else {
		uint32_t e = json_first(&v->r->doc, ev);
		for (uint32_t i = 0; i < N(v, ev)->count; i++, e = json_after(&v->r->doc, e))
			check_event(v, e, i);
	}

	uint32_t tr = get(v, 0, "time_range");
	if (tr) {
		uint32_t s = N(v, tr)->type == JSON_OBJECT ? get(v, tr, "start") : 0;
		uint32_t e = N(v, tr)->type == JSON_OBJECT ? get(v, tr, "end") : 0;
		if (!s || !e || !json_is_num(&v->r->doc, s) || !json_is_num(&v->r->doc, e))
			ERR(v, "time-range", "header time_range must be an object with numeric \"start\" and \"end\"");
		else if (v->r->tr_end < v->r->tr_start)
			WARN(v, "time-range", "header time_range ends (%.*s) before it starts (%.*s)",
			     PS(text_of(v, e)), PS(text_of(v, s)));
		if (N(v, tr)->type == JSON_OBJECT)
			str_member(v, tr, "unit", "header time_range.", "time-range");
	}
	k = get(v, 0, "source");
	if (k && N(v, k)->type != JSON_OBJECT)
		ERR(v, "header-source", "header source must be an object");
}

/* ---- dictionaries -------------------------------------------------------- */

static bool kernel_looking(const char *name)
{
	size_t n = strlen(name);
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	if (strstr(name, "kernel.kallsyms") || strncmp(base, "vmlinux", 7) == 0)
		return true;
	if (!strcmp(name, "kernel") || !strcmp(name, "genunix") || !strcmp(name, "unix"))
		return true;
	static const char *const ko[] = { ".ko", ".ko.gz", ".ko.xz", ".ko.zst" };
	for (size_t i = 0; i < 4; i++) {
		size_t m = strlen(ko[i]);
		if (n > m && !strcmp(name + n - m, ko[i]))
			return true;
	}
	return false;
}

static void check_dso(vfile *v)
{
	sstr id = id_of(v, "id");
	uint32_t k = get(v, 0, "name");
	if (!k)
		WARN(v, "dso-name", "dso %.*s has no name", PS(id));
	else if (N(v, k)->type != JSON_STRING)
		ERR(v, "dso-name", "dso %.*s: name must be a string", PS(id));
	uint32_t kk = get(v, 0, "is_kernel");
	if (kk && !is_bool(v, kk))
		ERR(v, "dso-kernel", "dso %.*s: is_kernel must be true or false", PS(id));
	if (k && N(v, k)->type == JSON_STRING && (!kk || N(v, kk)->type != JSON_TRUE)) {
		char *name = xmemdup(N(v, k)->str, N(v, k)->count);
		if (kernel_looking(name))
			WARN(v, "dso-kernel", "dso %.*s \"%s\" looks like a kernel image but is_kernel is not true",
			     PS(id), name);
		free(name);
	}
	k = get(v, 0, "build_id");
	if (k) {
		if (N(v, k)->type != JSON_STRING)
			ERR(v, "build-id", "dso %.*s: build_id must be a string", PS(id));
		else if (!is_hex(N(v, k)->str, N(v, k)->count, true))
			WARN(v, "build-id", "dso %.*s: build_id \"%.*s\" is not lowercase hex without separators",
			     PS(id), PS(text_of(v, k)));
	}
}

static void check_frame(vfile *v)
{
	spaa_reader *r = v->r;
	sstr id = id_of(v, "id");
	uint32_t k = get(v, 0, "kind");
	bool kernel_kind = false;
	if (k) {
		if (N(v, k)->type != JSON_STRING || !in_list(text_of(v, k), (const char *const[]){ "user", "kernel", "unknown", NULL }))
			ERR(v, "frame-kind", "frame %.*s: kind %s is not user, kernel or unknown",
			    PS(id), qtext(v, k));
		else
			kernel_kind = json_is_str(&r->doc, k, "kernel", 6);
	}
	uint32_t fk = get(v, 0, "func");
	if (!fk)
		WARN(v, "frame-func", "frame %.*s has no func", PS(id));
	else if (N(v, fk)->type != JSON_STRING)
		ERR(v, "frame-func", "frame %.*s: func must be a string", PS(id));
	static const char *const bools[] = { "func_resolved", "srcline_resolved", "inlined", NULL };
	for (const char *const *b = bools; *b; b++) {
		k = get(v, 0, *b);
		if (k && !is_bool(v, k))
			ERR(v, "frame-field", "frame %.*s: %s must be true or false", PS(id), *b);
	}
	k = get(v, 0, "func_resolved");
	if (k && N(v, k)->type == JSON_FALSE && fk && N(v, fk)->type == JSON_STRING &&
	    !is_0xhex(text_of(v, fk)))
		WARN(v, "frame-func", "frame %.*s: func_resolved is false but func \"%.*s\" is not a hex address",
		     PS(id), PS(text_of(v, fk)));
	static const char *const strs[] = { "srcline", "ip", "symoff", NULL };
	for (const char *const *s = strs; *s; s++) {
		k = get(v, 0, *s);
		if (k && N(v, k)->type != JSON_STRING)
			ERR(v, "frame-field", "frame %.*s: %s must be a string", PS(id), *s);
	}
	static const char *const hexes[] = { "ip", "symoff", NULL };
	for (const char *const *s = hexes; *s; s++) {
		k = get(v, 0, *s);
		if (k && N(v, k)->type == JSON_STRING && !is_0xhex(text_of(v, k)))
			WARN(v, "frame-hex", "frame %.*s: %s \"%.*s\" is not a hex string (0x...)",
			     PS(id), *s, PS(text_of(v, k)));
	}
	k = get(v, 0, "inline_depth");
	if (k) {
		if (N(v, k)->type != JSON_INT || N(v, k)->v.i < 0)
			ERR(v, "inline-depth", "frame %.*s: inline_depth must be a non-negative integer", PS(id));
		else {
			uint32_t in = get(v, 0, "inlined");
			bool inl = in && N(v, in)->type == JSON_TRUE;
			if (inl != (N(v, k)->v.i > 0))
				WARN(v, "inline-depth", "frame %.*s: inlined is %s but inline_depth is %lld",
				     PS(id), inl ? "true" : "false", (long long)N(v, k)->v.i);
		}
	}
	/* a kernel frame in a dso that is not a kernel one */
	uint32_t dk = get(v, 0, "dso");
	sstr dkey;
	if (kernel_kind && dk && spaa_id_key(r, dk, &dkey)) {
		int64_t d = strmap_find(&r->dso_ids, dkey.p, dkey.n);
		if (d >= 0 && !r->dsos[d].is_kernel)
			WARN(v, "frame-kind", "frame %.*s is a kernel frame but dso %.*s is not is_kernel",
			     PS(id), PS(dkey));
	}
}

static void check_thread(vfile *v)
{
	uint32_t k = get(v, 0, "tid");
	if (k && !is_int(v, k))
		ERR(v, "thread-tid", "thread tid must be an integer");
	k = get(v, 0, "pid");
	if (!k)
		ERR(v, "thread-pid", "thread %.*s has no pid", PS(id_of(v, "tid")));
	else if (!is_int(v, k))
		ERR(v, "thread-pid", "thread %.*s: pid must be an integer", PS(id_of(v, "tid")));
	k = get(v, 0, "comm");
	if (k && N(v, k)->type != JSON_STRING)
		ERR(v, "thread-comm", "thread %.*s: comm must be a string", PS(id_of(v, "tid")));
}

/* ---- stacks --------------------------------------------------------------- */

/* Notes a reference to stack id `key` made by `what` on the current line. */
static void ref_stack(vfile *v, strmap *m, pending **arr, uint32_t *cap, sstr key, const char *what)
{
	if (strmap_find(&v->stacks, key.p, key.n) >= 0)
		return;
	bool added;
	uint32_t i = strmap_intern(m, key.p, key.n, &added);
	if (added) {
		grow_array((void **)arr, cap, i + 1, sizeof **arr);
		(*arr)[i] = (pending){ v->r->lineno, 1, what };
	} else {
		(*arr)[i].count++;
	}
}

static const char *const context_keys[] = {
	"event", "pid", "tid", "cpu", "comm", "probe", "execname", "uid", "zonename", "trace_fields", NULL
};

static void check_context(vfile *v, sstr id, uint32_t ctx)
{
	const json_doc *d = &v->r->doc;
	uint32_t k = json_first(d, ctx);
	for (uint32_t i = 0; i < N(v, ctx)->count; i++, k = json_after(d, k + 1)) {
		sstr key = { N(v, k)->str, N(v, k)->count };
		uint32_t val = k + 1;
		uint8_t t = N(v, val)->type;
		const char *want = NULL;
		if (sstr_eqc(key, "pid") || sstr_eqc(key, "tid") || sstr_eqc(key, "cpu") || sstr_eqc(key, "uid")) {
			if (t != JSON_INT && t != JSON_UINT) want = "an integer";
		} else if (sstr_eqc(key, "comm") || sstr_eqc(key, "execname") || sstr_eqc(key, "zonename")) {
			if (t != JSON_STRING) want = "a string";
		} else if (sstr_eqc(key, "probe") || sstr_eqc(key, "trace_fields")) {
			if (t != JSON_OBJECT) want = "an object";
		} else if (!in_list(key, context_keys) && !(key.n > 2 && memcmp(key.p, "x_", 2) == 0)) {
			if (first_time(v, 'k', key.p, key.n))
				WARN(v, "context-key", "unknown context key \"%.*s\" (custom keys should start with \"x_\")",
				     PS(key));
		}
		if (want)
			ERR(v, "context-field", "stack %.*s: context.%.*s must be %s", PS(id), PS(key), want);
	}
}

/* Metrics that count events, so that zero or a negative value is suspicious;
 * other metrics (self times, memory deltas) can be 0 or negative. */
static bool is_count_metric(sstr m)
{
	static const char *const counts[] = { "samples", "period", "count", "calls", "alloc_bytes",
		"alloc_count", "free_bytes", "free_count" };
	for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
		if (sstr_eqc(m, counts[i])) return true;
	return false;
}

/* Weight arrays: duplicate metrics and suspicious values. */
static void check_weight_values(vfile *v, sstr id, const spaa_weight *w, uint32_t n, const char *what)
{
	for (uint32_t i = 0; i < n; i++) {
		for (uint32_t j = 0; j < i; j++)
			if (sstr_eq(w[j].metric, w[i].metric)) {
				const char *what_arr = *what ? "exclusive.weights" : "weights";
				WARN(v, "weight-duplicate", "stack %.*s: metric \"%.*s\" appears twice in %s",
				     PS(id), PS(w[i].metric), what_arr);
				break;
			}
		num x = w[i].value;
		if (!is_count_metric(w[i].metric)) continue;
		bool neg = x.kind == NUM_INT ? x.i < 0 : x.kind == NUM_DBL ? x.d < 0 : false;
		if (num_is_zero(x))
			WARN(v, "weight-value", "stack %.*s: %s%.*s weight is 0", PS(id), what, PS(w[i].metric));
		else if (neg)
			WARN(v, "weight-value", "stack %.*s: %s%.*s weight is negative", PS(id), what, PS(w[i].metric));
	}
}

/* Frame id (as written) of frame index f. */
static sstr frame_id(const vfile *v, uint32_t f)
{
	size_t n;
	const char *p = strmap_key(&v->r->frame_ids, f, &n);
	return (sstr){ p, n };
}

static int32_t depth_of(const spaa_frame *f)
{
	return f->inline_depth >= 0 ? f->inline_depth : f->inlined ? -1 : 0;
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Inlined frames: each frame at inline_depth d > 0 must sit right next to
 * (on the root side of the array order) its caller at depth d - 1. */
static void check_inline_order(vfile *v, sstr id, const spaa_stack *s)
{
	spaa_reader *r = v->r;
	for (uint32_t i = 0; i < s->nframes; i++) {
		const spaa_frame *f = &r->frames[spaa_stack_root_frame(r, s, i)];
		if (f->inline_depth <= 0)
			continue;
		uint32_t fi = spaa_stack_root_frame(r, s, i);
		const spaa_frame *caller = i > 0 ? &r->frames[spaa_stack_root_frame(r, s, i - 1)] : NULL;
		if (!caller || depth_of(caller) != f->inline_depth - 1) {
			ERR(v, "inline-order", "stack %.*s: inlined frame %.*s (inline_depth %d) does not %s its caller at "
			    "inline_depth %d (frames must be ordered by inline depth, deepest %s for %s)",
			    PS(id), PS(frame_id(v, fi)), (int)f->inline_depth, r->leaf_first ? "precede" : "follow",
			    (int)f->inline_depth - 1, r->leaf_first ? "first" : "last",
			    r->leaf_first ? "leaf_to_root" : "root_to_leaf");
			return;
		}
		if ((caller->dso != f->dso || !same_str(caller->ip, f->ip) || !same_str(caller->symoff, f->symoff))) {
			uint32_t ci = spaa_stack_root_frame(r, s, i - 1);
			uint32_t pair[2] = { fi, ci };
			if (first_time(v, 'i', (const char *)pair, sizeof pair))
				WARN(v, "inline-share", "stack %.*s: inlined frame %.*s and its caller frame %.*s do not share dso, ip and symoff",
				     PS(id), PS(frame_id(v, fi)), PS(frame_id(v, ci)));
		}
	}
}

static const char *const stack_types[] = { "unified", "user", "kernel", NULL };

static void check_stack(vfile *v)
{
	spaa_reader *r = v->r;
	spaa_stack *s = &v->st;
	int rc = spaa_stack_parse(r, s);
	uint32_t idk = get(v, 0, "id");
	sstr key;
	if (!idk || !spaa_id_key(r, idk, &key))
		return; /* reported by the reader */
	bool added;
	uint32_t si = strmap_intern(&v->stacks, key.p, key.n, &added);
	if (!added) {
		ERR(v, "stack-id", "duplicate stack id %.*s (first at line %llu)", PS(key),
		    (unsigned long long)v->stack_line[si]);
	} else {
		grow_array((void **)&v->stack_line, &v->slcap, si + 1, sizeof *v->stack_line);
		v->stack_line[si] = r->lineno;
	}
	sstr id = s->id;
	uint32_t fr = get(v, 0, "frames");
	bool frames_ok = fr && N(v, fr)->type == JSON_ARRAY && s->nframes == N(v, fr)->count;
	if (frames_ok && s->nframes == 0)
		WARN(v, "stack-frames", "stack %.*s has no frames", PS(id));

	uint32_t k = get(v, 0, "stack_type");
	if (k && (N(v, k)->type != JSON_STRING || !in_list(text_of(v, k), stack_types)))
		ERR(v, "stack-type", "stack %.*s: stack_type %s is not unified, user or kernel", PS(id), qtext(v, k));
	else if (k && frames_ok && !json_is_str(&r->doc, k, "unified", 7)) {
		uint8_t other = json_is_str(&r->doc, k, "user", 4) ? FK_KERNEL : FK_USER;
		for (uint32_t i = 0; i < s->nframes; i++)
			if (r->frames[s->frames[i]].kind == other) {
				WARN(v, "stack-type", "stack %.*s: a %.*s stack has %s frame %.*s", PS(id),
				     PS(text_of(v, k)), other == FK_KERNEL ? "kernel" : "user", PS(frame_id(v, s->frames[i])));
				break;
			}
	}

	if (s->context) {
		if (s->event_name.p && s->event < 0 && r->have_header)
			ERR(v, "stack-event", "stack %.*s: context.event \"%.*s\" is not declared in the header",
			    PS(id), PS(s->event_name));
		check_context(v, id, s->context);
	}

	uint32_t wk = get(v, 0, "weights");
	bool weights_ok = wk && N(v, wk)->type == JSON_ARRAY && s->nw == N(v, wk)->count;
	if (weights_ok) {
		if (s->event >= 0) {
			const char *pm = r->events[s->event].primary_metric;
			if (pm && !spaa_weight_find(s->w, s->nw, pm))
				ERR(v, "primary-metric", "stack %.*s: weights lack the primary metric \"%s\" of event \"%.*s\"",
				    PS(id), pm, PS(s->event_name));
		}
		check_weight_values(v, id, s->w, s->nw, "");
	}

	uint32_t ex = get(v, 0, "exclusive");
	if (ex && N(v, ex)->type != JSON_OBJECT) {
		ERR(v, "exclusive", "stack %.*s: exclusive must be an object", PS(id));
	} else if (s->has_excl) {
		if (frames_ok && s->nframes > 0) {
			uint32_t leaf = spaa_stack_leaf(r, s);
			uint32_t root = spaa_stack_root_frame(r, s, 0);
			if (s->excl_frame != leaf) {
				if (s->excl_frame == root)
					ERR(v, "exclusive-frame", "stack %.*s: exclusive.frame %.*s is the root frame, not the leaf frame %.*s (frame_order %s)",
					    PS(id), PS(frame_id(v, s->excl_frame)), PS(frame_id(v, leaf)),
					    r->leaf_first ? "leaf_to_root" : "root_to_leaf");
				else
					ERR(v, "exclusive-frame", "stack %.*s: exclusive.frame %.*s is not the leaf frame %.*s (frame_order %s)",
					    PS(id), PS(frame_id(v, s->excl_frame)), PS(frame_id(v, leaf)),
					    r->leaf_first ? "leaf_to_root" : "root_to_leaf");
			}
		} else if (frames_ok) {
			ERR(v, "exclusive-frame", "stack %.*s: exclusive.frame in a stack without frames", PS(id));
		}
		uint32_t xw = get(v, ex, "weights");
		if (!xw) {
			WARN(v, "exclusive-weights", "stack %.*s: exclusive has no weights", PS(id));
		} else if (N(v, xw)->type == JSON_ARRAY && s->nxw == N(v, xw)->count) {
			check_weight_values(v, id, s->xw, s->nxw, "exclusive ");
			if (weights_ok) {
				sbuf *m = &v->key;
				m->n = 0;
				for (uint32_t i = 0; i < s->nw; i++) {
					bool found = false;
					for (uint32_t j = 0; j < s->nxw; j++) {
						if (!sstr_eq(s->xw[j].metric, s->w[i].metric))
							continue;
						found = true;
						if (num_cmp(s->xw[j].value, s->w[i].value) > 0)
							WARN(v, "exclusive-weights", "stack %.*s: exclusive %.*s exceeds the stack's %.*s",
							     PS(id), PS(s->w[i].metric), PS(s->w[i].metric));
						break;
					}
					if (!found) {
						bool dup = false;
						for (uint32_t j = 0; j < i; j++)
							dup |= sstr_eq(s->w[j].metric, s->w[i].metric);
						if (dup)
							continue;
						if (m->n) sbuf_adds(m, ", ");
						sbuf_add(m, s->w[i].metric.p, s->w[i].metric.n);
					}
				}
				if (m->n) {
					sbuf_addc(m, 0);
					WARN(v, "exclusive-weights", "stack %.*s: exclusive.weights lack metrics of weights: %s",
					     PS(id), m->p);
				}
			}
		}
	}

	if (s->related) {
		uint32_t e = json_first(&r->doc, s->related);
		for (uint32_t i = 0; i < N(v, s->related)->count; i++, e = json_after(&r->doc, e)) {
			sstr rk;
			if (!spaa_id_key(r, e, &rk))
				ERR(v, "related-stacks", "stack %.*s: related_stacks[%u] is not a stack id", PS(id), i);
			else
				ref_stack(v, &v->rel, &v->rd, &v->rdcap, rk, "related_stacks");
		}
	}

	if (frames_ok && rc == 0)
		check_inline_order(v, id, s);
}

/* ---- samples and windows --------------------------------------------------- */

static void check_sample(vfile *v)
{
	spaa_reader *r = v->r;
	const json_doc *d = &r->doc;
	const json_node *nd = d->nodes;
	bool have_stack = false;
	uint32_t k = 1;
	for (uint32_t i = 0; i < nd[0].count; i++, k = nd[k + 1].next) {
		const json_node *key = &nd[k], *val = &nd[k + 1];
		switch (key->count) {
		case 8:
			if (memcmp(key->str, "stack_id", 8) == 0) {
				sstr id;
				if (!spaa_id_key(r, k + 1, &id)) {
					ERR(v, "sample-stack", "sample stack_id must be an integer or a string");
				} else {
					have_stack = true;
					ref_stack(v, &v->pend, &v->pd, &v->pdcap, id, "sample");
				}
			}
			break;
		case 6:
			if (memcmp(key->str, "period", 6) == 0) {
				if (val->type != JSON_INT && val->type != JSON_UINT && val->type != JSON_DOUBLE)
					ERR(v, "sample-field", "sample period must be a number");
				else if ((val->type == JSON_INT && val->v.i <= 0) || (val->type == JSON_DOUBLE && val->v.d <= 0)) {
					if (first_time(v, 'p', "", 0))
						WARN(v, "weight-value", "sample period is %.*s (reported once per file)",
						     PS(text_of(v, k + 1)));
				}
			}
			break;
		case 5:
			if (memcmp(key->str, "event", 5) == 0) {
				if (val->type != JSON_STRING)
					ERR(v, "sample-event", "sample event must be a string");
				else if (r->have_header && spaa_event_find(r, val->str, val->count) < 0)
					ERR(v, "sample-event", "sample event \"%.*s\" is not declared in the header",
					    PS(text_of(v, k + 1)));
			}
			break;
		case 9:
			if (memcmp(key->str, "timestamp", 9) == 0) {
				if (val->type != JSON_INT && val->type != JSON_UINT && val->type != JSON_DOUBLE) {
					ERR(v, "sample-field", "sample timestamp must be a number");
				} else if (r->has_time_range) {
					double t = val->type == JSON_INT ? (double)val->v.i
						 : val->type == JSON_UINT ? (double)val->v.u : val->v.d;
					if ((t < r->tr_start || t > r->tr_end) && first_time(v, 't', "", 0))
						WARN(v, "sample-time", "sample timestamp %.*s is outside the header time_range (reported once per file)",
						     PS(text_of(v, k + 1)));
				}
			}
			break;
		case 3:
			if ((memcmp(key->str, "pid", 3) == 0 || memcmp(key->str, "tid", 3) == 0 ||
			     memcmp(key->str, "cpu", 3) == 0) && val->type != JSON_INT && val->type != JSON_UINT)
				ERR(v, "sample-field", "sample %.3s must be an integer", key->str);
			break;
		case 7:
			if (memcmp(key->str, "context", 7) == 0 && val->type != JSON_OBJECT)
				ERR(v, "sample-field", "sample context must be an object");
			break;
		}
	}
	if (!have_stack && !get(v, 0, "stack_id"))
		ERR(v, "sample-stack", "sample has no stack_id");
}

static num num_of(const json_node *x)
{
	return x->type == JSON_INT ? num_i(x->v.i) : x->type == JSON_UINT ? num_u(x->v.u) : num_d(x->v.d);
}

static void check_window(vfile *v)
{
	spaa_reader *r = v->r;
	const json_doc *d = &r->doc;
	spaa_window w;
	uint32_t s = get(v, 0, "start"), e = get(v, 0, "end");
	if ((s && !json_is_num(d, s)) || (e && !json_is_num(d, e)))
		ERR(v, "window", "window start and end must be numbers");
	else if (s && e && num_cmp(num_of(N(v, s)), num_of(N(v, e))) > 0)
		WARN(v, "window", "window ends (%.*s) before it starts (%.*s)", PS(text_of(v, e)), PS(text_of(v, s)));
	if (spaa_window_parse(r, &w) < 0)
		return;
	if (!w.by_stack) {
		ERR(v, "window", "window %.*s has no \"by_stack\" array", PS(w.id));
		return;
	}
	uint32_t x = json_first(d, w.by_stack);
	for (uint32_t i = 0; i < N(v, w.by_stack)->count; i++, x = json_after(d, x)) {
		sstr id = SSTR_NULL;
		if (spaa_window_entry(r, x, &id, &v->st.w, &v->st.nw, &v->st.wcap) < 0 && !id.p)
			continue;
		if (id.p)
			ref_stack(v, &v->pend, &v->pd, &v->pdcap, id, "window");
	}
}

/* ---- one file ------------------------------------------------------------- */

static void report_pending(vfile *v, strmap *m, pending *pd, enum sev sev, const char *rule)
{
	for (uint32_t i = 0; i < m->count; i++) {
		size_t n;
		const char *key = strmap_key(m, i, &n);
		if (strmap_find(&v->stacks, key, n) >= 0)
			continue;
		if (pd[i].count > 1)
			diag(v, pd[i].line, sev, rule, "%s refers to unknown stack %.*s (and %llu more %s)",
			     pd[i].what, (int)n, key, (unsigned long long)(pd[i].count - 1),
			     plural(pd[i].count - 1, "reference", "references"));
		else
			diag(v, pd[i].line, sev, rule, "%s refers to unknown stack %.*s", pd[i].what, (int)n, key);
	}
}

static void summary(vfile *v)
{
	static const enum spaa_rtype order[] = { SPAA_HEADER, SPAA_DSO, SPAA_FRAME, SPAA_THREAD,
		SPAA_STACK, SPAA_SAMPLE, SPAA_WINDOW, SPAA_OTHER };
	bool valid = v->errors == 0;
	if (opt.quiet || (valid && !opt.verbose && !opt.json))
		return; /* silent on success */
	if (opt.json) {
		out_puts(out, "{\"file\":");
		jw_strc(out, v->name);
		out_puts(out, valid ? ",\"valid\":true" : ",\"valid\":false");
		out_puts(out, ",\"errors\":");
		out_u64(out, v->errors);
		out_puts(out, ",\"warnings\":");
		out_u64(out, v->warnings);
		out_puts(out, ",\"records\":{");
		for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
			if (i) out_putc(out, ',');
			out_putc(out, '"');
			out_puts(out, spaa_rtype_name(order[i]));
			out_puts(out, "\":");
			out_u64(out, v->counts[order[i]]);
		}
		out_puts(out, "}}\n");
	} else {
		out_puts(out, v->name);
		out_puts(out, valid ? ": valid: " : ": invalid: ");
		for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
			if (i) out_puts(out, ", ");
			out_u64(out, v->counts[order[i]]);
			out_putc(out, ' ');
			out_puts(out, spaa_rtype_name(order[i]));
		}
		out_puts(out, "; ");
		out_u64(out, v->errors);
		out_puts(out, plural(v->errors, " error, ", " errors, "));
		out_u64(out, v->warnings);
		out_puts(out, plural(v->warnings, " warning\n", " warnings\n"));
	}
	output_flush_buf(out);
}

/* Validates one file; returns true when it is valid. */
static bool validate(const char *path)
{
	vfile v;
	memset(&v, 0, sizeof v);
	if (strcmp(path, "-") != 0) {
		/* input_open() exits on failure: check first, so that the other
		 * files are still validated (without opening it: a FIFO opened
		 * twice waits for a second writer) */
		if (access(path, R_OK) != 0) {
			int e = errno;
			v.name = path;
			if (opt.json && !opt.quiet) {
				v.r = NULL;
				diag(&v, 0, SEV_ERROR, "file", "%s", strerror(e));
				summary(&v);
				sbuf_free(&v.msg);
			} else if (!opt.quiet) {
				warn_at(path, 0, "%s", strerror(e));
			}
			return false;
		}
	}
	spaa_reader *r = spaa_open(path);
	v.r = r;
	v.name = r->name;
	r->on_error = on_reader_error;
	r->user = &v;

	enum spaa_rtype t;
	while ((t = spaa_next(r)) != SPAA_EOF && !r->not_spaa) {
		if (t != SPAA_BAD)
			v.counts[t]++;
		if (r->doc.nuls && first_time(&v, 'z', "", 0)) /* utf8.h: no NUL in a string */
			WARN(&v, "string-nul", "a string holds \\u0000, read as U+FFFD: SPAA strings hold no NUL "
			     "(reported once per file)");
		switch (t) {
		case SPAA_SAMPLE: check_sample(&v); break;
		case SPAA_STACK: check_stack(&v); break;
		case SPAA_HEADER:
			if (r->header_line == r->lineno) check_header(&v);
			break;
		case SPAA_DSO: check_dso(&v); break;
		case SPAA_FRAME: check_frame(&v); break;
		case SPAA_THREAD: check_thread(&v); break;
		case SPAA_WINDOW: check_window(&v); break;
		case SPAA_OTHER: {
			uint32_t k = get(&v, 0, "type");
			if (first_time(&v, 'r', N(&v, k)->str, N(&v, k)->count))
				WARN(&v, "record-type", "unknown record type \"%.*s\"", PS(text_of(&v, k)));
			break;
		}
		default: break;
		}
	}
	if (!r->have_header && !r->header_missing_said)
		diag(&v, 0, SEV_ERROR, "header-missing", "no header record");
	report_pending(&v, &v.pend, v.pd, SEV_ERROR, "stack-ref");
	report_pending(&v, &v.rel, v.rd, SEV_WARNING, "related-stacks");
	summary(&v);

	bool valid = v.errors == 0;
	spaa_stack_free(&v.st);
	strmap_free(&v.stacks);
	strmap_free(&v.pend);
	strmap_free(&v.rel);
	strmap_free(&v.once);
	free(v.stack_line);
	free(v.pd);
	free(v.rd);
	sbuf_free(&v.msg);
	sbuf_free(&v.key);
	sbuf_free(&v.q);
	spaa_close(r);
	return valid;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "quiet", no_argument, 0, 'q' },
		{ "strict", no_argument, 0, 's' },
		{ "json", no_argument, 0, 'J' },
		{ "max-errors", required_argument, 0, 'm' },
		{ "verbose", no_argument, 0, 'v' + 256 },
		CLI_STD_LONGOPTS,
		{ 0, 0, 0, 0 }
	};
	int c;

	cli_init(argc, argv);
	while ((c = getopt_long(argc, argv, "qJhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'q': opt.quiet = true; break;
		case 's': opt.strict = true; break;
		case 'J': opt.json = true; break;
		case 'v' + 256: opt.verbose = true; break;
		case 'm': opt.max = opt_u64("--max-errors", optarg); break;
		CLI_STD_CASES(help_text);
		}
	}

	cli_stdin_once(argv + optind, argc - optind);
	out = output_open(NULL, false);
	bool ok = true;
	if (optind == argc) {
		ok = validate("-");
	} else {
		for (int i = optind; i < argc; i++)
			ok &= validate(argv[i]);
	}
	output_close(out);
	return ok ? EXIT_OK : EXIT_DATA;
}
