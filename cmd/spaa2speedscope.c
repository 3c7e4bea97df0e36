/* spaa2speedscope - SPAA profiles as a speedscope file
 * (https://www.speedscope.app/file-format-schema.json), which speedscope
 * opens in its time-order, left-heavy and sandwich views.
 *
 * The story: every stack of every input becomes a folded path (names as
 * spaa-fold gives them, fold.h), its names speedscope frames (shared by all
 * profiles), and it is added to the profile of its event (and, with
 * --threads, of its thread), weighted by the event's primary metric or -m.
 * With --samples the sample records also make a time-ordered profile per
 * profile: one speedscope sample per record, in timestamp order, weighted
 * by its period.  The file is written at the end: frames, then the
 * profiles in the order of the header's events (threads in order of first
 * appearance), each with its stacks in order of first appearance.
 *
 * Memory: the distinct paths and names, and with --samples 16 bytes per
 * sample record (the time order is a list of them). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "readers/open.h"
#include "cli.h"
#include "fold.h"
#include "jsonw.h"
#include "metric.h"
#include "num.h"
#include "output.h"
#include "spaa.h"
#include "strmap.h"
#include "util.h"

static const char help[] =
"Usage: spaa2speedscope [OPTION]... [FILE]...\n"
"Write SPAA profiles as one speedscope file (JSON), which speedscope opens\n"
"in its time-order, left-heavy and sandwich views.  With no FILE, or when\n"
"FILE is -, read standard input (zstd and gzip allowed).\n"
"\n"
"One sampled profile per event (per event and thread with --threads), its\n"
"stacks weighted by the event's primary metric, in that metric's unit when\n"
"speedscope knows it; frames named as spaa-fold names them.\n"
"\n"
"      --event=NAME     only event NAME (default: every event)\n"
"  -m, --metric=NAME    weight by metric NAME (default: each event's primary\n"
"                       metric); stacks without it are skipped, with a warning\n"
"      --threads        one profile per thread (pid, tid, comm) as well as event\n"
"  -s, --samples        also a time-ordered profile per profile from the\n"
"                       sample records (converters' -s), one speedscope\n"
"                       sample each, weighted by its period\n"
FOLD_HELP
"Output:\n"
READERS_HELP_HEAD READERS_HELP_FORMAT READERS_HELP_SYMFS READERS_HELP_PERF READERS_HELP_OPT
	CLI_HELP_TAIL;

enum { BY_OTHER, BY_SAMPLES, BY_PERIOD };

/* A profile: an event, or an event and a thread. */
struct prof {
	char *name;              /* "cycles", "cycles: comm 12/13" */
	char *unit;              /* speedscope's unit, "none" when it has none */
	uint32_t first_path;     /* linked list of its paths (by path index) */
	uint32_t last_path;
	uint32_t npaths;
	num total;
	bool has_samples;        /* some sample record fell in it */
	uint8_t by;              /* the metric: BY_SAMPLES, BY_PERIOD, else BY_OTHER */
	bool no_period;          /* a sample record without a period (BY_PERIOD) */
	uint32_t order;          /* for the output order */
};

struct path {
	uint32_t prof;
	uint32_t next;           /* next path of the same profile, UINT32_MAX none */
	num sum;
	num ssum;                /* with -s: its sample records' weights */
	bool sover;              /* ssum went past 64 bits */
};

struct tsample {
	double ts;
	uint64_t seq;
	uint32_t path;
	uint64_t weight;
};

static struct {
	fold_opts fo;
	const char *event, *metric;
	bool threads, samples;
	fold_cache fc;
	strmap names;            /* frame name -> speedscope frame index */
	strmap profs;            /* profile key -> index */
	struct prof *prof;
	uint32_t nprof, profcap;
	strmap paths;            /* profile index + frame indices -> path index */
	struct path *path;
	uint32_t npath, pathcap;
	strmap stack_ids;        /* per file: stack id -> path index + 1 */
	uint32_t *stack_path;
	uint32_t nsp, spcap;
	struct tsample *ts;
	uint32_t nts, tscap;
	uint64_t seq;
	uint32_t nevents_seen;
	sbuf tmp, key, fp;
} S;

/* speedscope's unit for weight w of event ev ("none" when it has no such
 * unit): the unit metric.h gives it (perf's cpu-clock and task-clock periods
 * are nanoseconds), when it is a time or bytes. */
static const char *ss_unit(const char *ev, const spaa_weight *w)
{
	units u = metric_units(w, ev, strlen(ev));
	if (u.dim == UNITS_BYTES && u.factor == 1) return "bytes";
	if (u.dim != UNITS_TIME) return "none";
	if (u.factor == 1) return "nanoseconds";
	if (u.factor == 1e3) return "microseconds";
	if (u.factor == 1e6) return "milliseconds";
	if (u.factor == 1e9) return "seconds";
	return "none";
}

static uint32_t frame_index(const char *p, size_t n)
{
	return strmap_intern(&S.names, p, n, NULL);
}

/* The profile of stack s of event ev (index into r->events); order keeps
 * events in header order over all files, threads in order of appearance. */
static uint32_t profile_of(const spaa_reader *r, const spaa_stack *s, const char *ev_name,
			   const spaa_weight *w)
{
	sbuf *k = &S.key;
	k->n = 0;
	sbuf_add(k, ev_name, strlen(ev_name) + 1);
	sstr comm = { 0 };
	if (S.threads) {
		comm = fold_stack_comm(r, s);
		sbuf_printf(k, "%c%lld%c%lld%c", s->has_pid ? 'p' : '-', (long long)s->pid,
			    s->has_tid ? 't' : '-', (long long)s->tid, 0);
		if (comm.p) sbuf_add(k, comm.p, comm.n);
	}
	bool added;
	uint32_t i = strmap_intern(&S.profs, k->p, k->n, &added);
	if (!added) return i;
	struct prof *p = VEC_PUSH(S.prof, S.nprof, S.profcap);
	memset(p, 0, sizeof *p);
	sbuf *t = &S.tmp;
	t->n = 0;
	sbuf_add(t, ev_name, strlen(ev_name));
	if (S.threads) {
		sbuf_add(t, ": ", 2);
		if (comm.p) sbuf_printf(t, "%.*s ", (int)comm.n, comm.p);
		if (s->has_pid) sbuf_printf(t, "%lld", (long long)s->pid);
		else sbuf_addc(t, '?');
		if (s->has_tid) sbuf_printf(t, "/%lld", (long long)s->tid);
	}
	sbuf_addc(t, 0);
	p->name = xstrdup(t->p);
	p->unit = xstrdup(ss_unit(ev_name, w));
	p->first_path = p->last_path = UINT32_MAX;
	p->total = num_i(0);
	p->order = i;
	p->by = sstr_eqc(w->metric, "period") ? BY_PERIOD : sstr_eqc(w->metric, "samples") ? BY_SAMPLES : BY_OTHER;
	return i;
}

/* The path of stack s in profile prof: its folded names as frame indices. */
static uint32_t path_of(const spaa_reader *r, const spaa_stack *s, uint32_t prof)
{
	sbuf *fp = &S.fp, *k = &S.key;
	fp->n = 0;
	fold_stack_path_cached(&S.fc, r, s, &S.fo, fp);
	k->n = 0;
	sbuf_add(k, &prof, sizeof prof);
	size_t a = 0;
	for (size_t i = 0; i <= fp->n; i++) {
		if (i < fp->n && fp->p[i] != ';') continue;
		uint32_t f = frame_index(fp->p + a, i - a);
		sbuf_add(k, &f, sizeof f);
		a = i + 1;
	}
	bool added;
	uint32_t pi = strmap_intern(&S.paths, k->p, k->n, &added);
	if (added) {
		struct path *pa = VEC_PUSH(S.path, S.npath, S.pathcap);
		pa->prof = prof;
		pa->next = UINT32_MAX;
		pa->sum = pa->ssum = num_i(0);
		pa->sover = false;
		struct prof *p = &S.prof[prof];
		if (p->last_path == UINT32_MAX) p->first_path = pi;
		else S.path[p->last_path].next = pi;
		p->last_path = pi;
		p->npaths++;
	}
	return pi;
}

/* *tot += v, exactly while it can be, else as a double (a profile's total
 * is only its endValue, which speedscope shows and speedscope2spaa does not
 * read); false past the doubles. */
static bool add_total(num *tot, num v)
{
	if (num_add(tot, v)) return true;
	double d = num_to_double(*tot) + num_to_double(v);
	*tot = num_d(d);
	return isfinite(d);
}

static void take_stack(spaa_reader *r, spaa_stack *s, uint64_t *skipped)
{
	if (s->event < 0) return;            /* reported by the reader's checks */
	const spaa_event *e = &r->events[s->event];
	if (S.event && strcmp(e->name, S.event)) return;
	const char *m = S.metric ? S.metric : fold_pick_metric(r, s->event, NULL);
	const spaa_weight *w = spaa_weight_find(s->w, s->nw, m);
	if (!w) {
		(*skipped)++;
		return;
	}
	/* speedscope adds weights up as times: it has no negative ones
	 * (a heap delta), and speedscope2spaa refuses them */
	if (num_cmp(w->value, num_i(0)) < 0) {
		char nb[32];
		nb[num_fmt(nb, w->value)] = 0;
		die_at(r->name, r->lineno, "stack %.*s: weight %s of metric %s is negative: speedscope has no negative "
		       "weights", (int)s->id.n, s->id.p, nb, m);
	}
	uint32_t prof = profile_of(r, s, e->name, w);
	uint32_t pi = path_of(r, s, prof);
	if (!num_add(&S.path[pi].sum, w->value))
		die_at(r->name, r->lineno, "weight overflow: the stacks of one path of profile %s add up beyond 64 bits",
		       S.prof[prof].name);
	/* the total is only the endValue, which speedscope shows and
	 * speedscope2spaa does not read: past 64 bits, a double */
	if (!add_total(&S.prof[prof].total, w->value))
		die_at(r->name, r->lineno, "weight overflow: the total of profile %s is not a finite number",
		       S.prof[prof].name);
	if (S.samples) {
		bool added;
		strmap_intern(&S.stack_ids, s->id.p, s->id.n, &added);
		if (added) *VEC_PUSH(S.stack_path, S.nsp, S.spcap) = pi + 1;
	}
}

static void take_sample(spaa_reader *r, const spaa_sample *sm)
{
	int64_t i = strmap_find(&S.stack_ids, sm->stack_id.p, sm->stack_id.n);
	if (i < 0) return;                   /* another event, or no weight */
	uint32_t pi = S.stack_path[i] - 1;
	struct prof *p = &S.prof[S.path[pi].prof];
	uint64_t w = 1;
	if (p->by == BY_OTHER) return;       /* sample records carry no such weight */
	if (p->by == BY_PERIOD && !sm->has_period) p->no_period = true;
	if (p->by == BY_PERIOD && sm->has_period) {
		num v = sm->period;
		if (v.kind == NUM_DBL || (v.kind == NUM_INT && v.i < 0))
			die_at(r->name, r->lineno, "a sample's period is not a whole number");
		w = v.kind == NUM_INT ? (uint64_t)v.i : v.u;
	}
	p->has_samples = true;
	if (S.nts == UINT32_MAX - 1)
		die_at(r->name, r->lineno, "more than %u sample records: too many for one file",
		       UINT32_MAX - 2);
	struct tsample *t = VEC_PUSH(S.ts, S.nts, S.tscap);
	t->ts = sm->has_ts ? sm->timestamp : 0;
	t->seq = S.seq++;
	t->path = pi;
	t->weight = w;
	if (!num_add(&S.path[pi].ssum, num_u(w))) S.path[pi].sover = true;
}

static void read_file(const char *path)
{
	spaa_reader *r = spaa_open_any(path);
	fold_opts fo = S.fo;
	spaa_stack s = { 0 };
	spaa_sample sm = { 0 };
	uint64_t skipped = 0;
	bool first = true;
	fold_cache_reset(&S.fc);
	strmap_free(&S.stack_ids);
	strmap_init(&S.stack_ids);
	S.nsp = 0;
	enum spaa_rtype t;
	while ((t = spaa_next(r)) != SPAA_EOF) {
		if (t == SPAA_HEADER && first) {
			first = false;
			S.fo = fo;
			fold_opts_header(&S.fo, r);
			if (S.event && spaa_event_find(r, S.event, strlen(S.event)) < 0)
				(void)fold_pick_event(r, S.event, false); /* exits, listing them */
		} else if (t == SPAA_STACK) {
			if (spaa_stack_parse(r, &s) < 0) cli_exit(EXIT_DATA);
			take_stack(r, &s, &skipped);
		} else if (t == SPAA_SAMPLE && S.samples) {
			if (spaa_sample_parse(r, &sm) < 0) cli_exit(EXIT_DATA);
			take_sample(r, &sm);
		}
	}
	if (skipped)
		warn_at(r->name, 0, "%llu stack%s without %s%s skipped", (unsigned long long)skipped,
			skipped == 1 ? "" : "s", S.metric ? "metric " : "its event's primary metric",
			S.metric ? S.metric : "");
	spaa_need_header(r);
	S.fo = fo;
	spaa_stack_free(&s);
	spaa_close(r);
}

/* ---- writing ------------------------------------------------------------- */

static void write_stack(output *o, uint32_t pi)
{
	size_t n;
	const char *k = strmap_key(&S.paths, pi, &n);
	out_putc(o, '[');
	for (size_t i = sizeof(uint32_t); i < n; i += sizeof(uint32_t)) {
		uint32_t f;
		memcpy(&f, k + i, sizeof f);
		if (i > sizeof(uint32_t)) out_putc(o, ',');
		out_u64(o, f);
	}
	out_putc(o, ']');
}

static void write_head(output *o, const struct prof *p, num end)
{
	out_puts(o, "{\"type\":\"sampled\",\"name\":");
	jw_strc(o, p->name);
	out_puts(o, ",\"unit\":");
	jw_strc(o, p->unit);
	out_puts(o, ",\"startValue\":0,\"endValue\":");
	jw_num(o, end);
}

static void write_profile(output *o, const struct prof *p)
{
	write_head(o, p, p->total);
	out_puts(o, ",\"samples\":[");
	bool first = true;
	for (uint32_t pi = p->first_path; pi != UINT32_MAX; pi = S.path[pi].next) {
		if (num_is_zero(S.path[pi].sum)) continue;
		if (!first) out_putc(o, ',');
		first = false;
		write_stack(o, pi);
	}
	out_puts(o, "],\"weights\":[");
	first = true;
	for (uint32_t pi = p->first_path; pi != UINT32_MAX; pi = S.path[pi].next) {
		if (num_is_zero(S.path[pi].sum)) continue;
		if (!first) out_putc(o, ',');
		first = false;
		jw_num(o, S.path[pi].sum);
	}
	out_puts(o, "]}");
}

static int cmp_ts(const void *a, const void *b)
{
	const struct tsample *x = a, *y = b;
	if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Profile prof from its sample records, in time order: one speedscope
 * sample each, weighted by its period (or 1 for the samples metric). */
static void write_time_order(output *o, uint32_t prof, const char *fname)
{
	struct prof *p = &S.prof[prof];
	num total = num_i(0);
	for (uint32_t i = 0; i < S.nts; i++)
		if (S.path[S.ts[i].path].prof == prof && !add_total(&total, num_u(S.ts[i].weight)))
			die_at(fname, 0, "weight overflow: the sample records of %s add up beyond the doubles",
			       p->name);
	write_head(o, p, total);
	out_puts(o, ",\"samples\":[");
	bool first = true;
	for (uint32_t i = 0; i < S.nts; i++) {
		if (S.path[S.ts[i].path].prof != prof) continue;
		if (!first) out_putc(o, ',');
		first = false;
		write_stack(o, S.ts[i].path);
	}
	out_puts(o, "],\"weights\":[");
	first = true;
	for (uint32_t i = 0; i < S.nts; i++) {
		if (S.path[S.ts[i].path].prof != prof) continue;
		if (!first) out_putc(o, ',');
		first = false;
		out_u64(o, S.ts[i].weight);
	}
	out_puts(o, "]}");
}

/* True when each path of profile p has sample records that add up to its
 * stacks' weight: the time order then has the stacks' totals. */
static bool samples_agree(const struct prof *p)
{
	for (uint32_t pi = p->first_path; pi != UINT32_MAX; pi = S.path[pi].next)
		if (S.path[pi].sover || num_cmp(S.path[pi].ssum, S.path[pi].sum)) return false;
	return true;
}

/* name: the file's name in speedscope (the first input's base name);
 * path: the first input as given, for messages. */
static void write_file(output *o, const char *name, const char *path)
{
	out_puts(o, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
		 "\"shared\":{\"frames\":[");
	for (uint32_t i = 0; i < S.names.count; i++) {
		size_t n;
		const char *k = strmap_key(&S.names, i, &n);
		out_puts(o, i ? ",{\"name\":" : "{\"name\":");
		jw_str(o, k, n);
		out_putc(o, '}');
	}
	out_puts(o, "]},\"profiles\":[");
	if (S.samples && S.nts) qsort(S.ts, S.nts, sizeof *S.ts, cmp_ts); /* none: S.ts is NULL */
	bool first = true;
	for (uint32_t i = 0; i < S.nprof; i++) {
		struct prof *p = &S.prof[i];
		if (num_is_zero(p->total)) continue;
		if (!first) out_putc(o, ',');
		first = false;
		if (p->has_samples && p->no_period)
			warn_at(path, 0, "profile %s: sample records without a period; written from its stacks, "
				"not in time order", p->name);
		bool agree = p->has_samples && !p->no_period && samples_agree(p);
		if (p->has_samples && !p->no_period && !agree)
			warn_at(path, 0, "profile %s: its sample records do not add up to its stacks; written from "
				"its stacks, not in time order", p->name);
		if (agree) write_time_order(o, i, path);
		else write_profile(o, p);
	}
	out_puts(o, "],\"name\":");
	jw_strc(o, name);
	out_puts(o, ",\"activeProfileIndex\":0,\"exporter\":\"spaa-tools@" SPAA_VERSION "\"}\n");
}

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	enum { OPT_EVENT = FOLD_OPT_END, OPT_THREADS };
	static const struct option longopts[] = {
		{ "event", required_argument, 0, OPT_EVENT },
		{ "metric", required_argument, 0, 'm' },
		{ "threads", no_argument, 0, OPT_THREADS },
		{ "samples", no_argument, 0, 's' },
		CLI_OUT_LONGOPTS,
		FOLD_NAME_LONGOPTS,
		{ "no-comm", no_argument, 0, FOLD_OPT_NO_COMM },
		{ "pid", no_argument, 0, FOLD_OPT_PID },
		{ "tid", no_argument, 0, FOLD_OPT_TID },
		READERS_LONGOPTS_NO_SAMPLES,
		CLI_STD_LONGOPTS,
		{ 0, 0, 0, 0 }
	};
	S.fo.inline_mode = -1;
	const char *outpath = NULL;
	bool zstd = false;
	int c;
	while ((c = getopt_long(argc, argv, "m:so:zhV", longopts, NULL)) != -1) {
		if (fold_opts_take(&S.fo, c, optarg)) continue;
		switch (c) {
		case OPT_EVENT: S.event = optarg; break;
		case 'm': S.metric = optarg; break;
		case OPT_THREADS: S.threads = true; break;
		case 's': S.samples = true; readers_option("samples", NULL); break;
		CLI_OUT_CASES(outpath, zstd);
		READERS_OPT_CASES_NO_SAMPLES;
		CLI_STD_CASES(help);
		}
	}
	/* a thread's profile names its process: no process root frame */
	if (S.threads) S.fo.no_comm = true;

	strmap_init(&S.names);
	strmap_init(&S.profs);
	strmap_init(&S.paths);
	strmap_init(&S.stack_ids);
	fold_cache_init(&S.fc);
	cli_stdin_once(argv + optind, argc - optind);
	output *o = output_open(outpath, zstd);
	if (optind == argc) read_file("-");
	for (int i = optind; i < argc; i++) read_file(argv[i]);
	/* a file of no profile is an empty speedscope file: none */
	bool any = false;
	for (uint32_t i = 0; i < S.nprof && !any; i++) any = !num_is_zero(S.prof[i].total);
	if (!any)
		die_no_stacks(optind == argc ? "-" : argv[optind], "%s",
			      S.nprof ? "every stack weighs 0" : S.metric ? "no stack has the metric asked for"
			      : "no stack has its event's primary metric");
	const char *name = optind == argc || !strcmp(argv[optind], "-") ? "profile" : argv[optind];
	const char *slash = strrchr(name, '/');
	write_file(o, slash ? slash + 1 : name, optind == argc ? "-" : argv[optind]);
	output_close(o);
	return EXIT_OK;
}
