/* hint.c - what to do next (see hint.h). */
#include "hint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cli.h"

/* Does s (n bytes) contain want (m bytes), ignoring ASCII case? */
static bool contains_nocase(const char *s, size_t n, const char *want, size_t m)
{
	if (m > n) return false;
	for (size_t i = 0; i + m <= n; i++)
		if (strncasecmp(s + i, want, m) == 0) return true;
	return false;
}

static const strmap *sort_map;

static int by_length(const void *a, const void *b)
{
	size_t na, nb;
	const char *pa = strmap_key(sort_map, *(const uint32_t *)a, &na);
	const char *pb = strmap_key(sort_map, *(const uint32_t *)b, &nb);
	if (na != nb) return na < nb ? -1 : 1;
	return memcmp(pa, pb, na);
}

uint32_t hint_similar(sbuf *out, const strmap *m, const char *want, const char *const *skip, uint32_t max)
{
	size_t wn = strlen(want);
	uint32_t *hit = NULL, nhit = 0, cap = 0;
	for (uint32_t i = 0; i < m->count; i++) {
		size_t n;
		const char *p = strmap_key(m, i, &n);
		if (!contains_nocase(p, n, want, wn) || (n == wn && memcmp(p, want, n) == 0)) continue;
		bool skipped = false;
		for (const char *const *s = skip; s && *s && !skipped; s++)
			skipped = strlen(*s) == n && memcmp(*s, p, n) == 0;
		if (!skipped) *VEC_PUSH(hit, nhit, cap) = i;
	}
	sort_map = m;
	if (nhit) qsort(hit, nhit, sizeof *hit, by_length);
	for (uint32_t i = 0; i < nhit && i < max; i++) {
		size_t n;
		const char *p = strmap_key(m, hit[i], &n);
		sbuf_printf(out, "%s'%.*s'", i ? ", " : "", (int)n, p);
	}
	if (nhit > max) sbuf_printf(out, ", ...");
	free(hit);
	return nhit;
}

void hint_not_found(sbuf *out, const strmap *m, const char *want, const char *const *skip,
		    const char *regex_opt)
{
	sbuf names = { 0 };
	if (hint_similar(&names, m, want, skip, 5))
		sbuf_printf(out, "; names that contain it (ignoring case): %.*s", (int)names.n, names.p);
	else
		sbuf_printf(out, "; no name contains it (ignoring case)");
	if (regex_opt) sbuf_printf(out, "; %s matches a regular expression", regex_opt);
	sbuf_free(&names);
}

void hint_samples(sbuf *out, const spaa_reader *r)
{
	static const char *const with[] = { "perf", "spall", "spx", "afperf", "chrome", NULL };
	static const char *const without[] = { "dtrace", "bpftrace", "folded", "pprof", "heaptrack", NULL };
	const char *t = r->source_tool;
	for (const char *const *s = with; t && *s; s++)
		if (!strcmp(t, *s)) {
			sbuf_printf(out, "%s2spaa -s (--samples) writes them", t);
			return;
		}
	for (const char *const *s = without; t && *s; s++)
		if (!strcmp(t, *s)) {
			sbuf_printf(out, "%s2spaa cannot write them (%s profiles have no time order)", t, t);
			return;
		}
	sbuf_printf(out, "the converters' -s (--samples) writes them");
}

bool hint_no_srclines(const spaa_reader *r)
{
	for (uint32_t i = 0; i < spaa_frame_count(r); i++)
		if (r->frames[i].srcline) return false;
	warnmsg("%s: no frame has a source line: convert a perf.data with 'perf2spaa --srcline', "
		"or record them with 'perf script -F+srcline' (before perf2spaa), or run spaa-symbolize "
		"on a profile of binaries with debug information", r->name);
	return true;
}

/* Does perf record's command line ask for call chains: -g (also among
 * other one-letter options, "-ag"), --call-graph? */
static bool asks_chains(const char *cmd)
{
	/* the one-letter options of perf record that take a value */
	static const char with_value[] = "eFcoptCmGujkDrzyIL";
	for (const char *p = cmd; *p;) {
		while (*p == ' ') p++;
		size_t n = strcspn(p, " ");
		if (n == 2 && strncmp(p, "--", 2) == 0) break; /* (the program's own arguments) */
		if (n >= 12 && strncmp(p, "--call-graph", 12) == 0) return true;
		if (n >= 2 && p[0] == '-' && p[1] != '-') {
			for (size_t i = 1; i < n && p[i] != '=' && !strchr(with_value, p[i]); i++)
				if (p[i] == 'g') return true;
		}
		p += n;
	}
	return false;
}

void hint_stacks_header(hint_stacks *h, const spaa_reader *r)
{
	h->perf = r->source_tool && strcmp(r->source_tool, "perf") == 0;
	h->asked = h->perf && r->command && asks_chains(r->command);
}

/* Where the call chain of a thread starts: a walk that got there is whole. */
static bool is_entry(const spaa_frame *f)
{
	static const char *const entry[] = {
		"main", "_start", "__libc_start_main", "__libc_start_call_main", "start_thread",
		"clone", "clone3", "__clone", "__clone3", "thread_start", "runtime.goexit",
		"runtime.main", "runtime.rt0_go", "runtime.mstart", "_dl_start", "_dl_start_user", NULL
	};
	for (const char *const *e = entry; *e; e++)
		if (strlen(*e) == f->func_n && memcmp(*e, f->func, f->func_n) == 0) return true;
	return false;
}

/* A frame perf could not name in a file it knows (not a JIT's perf map nor
 * perf's "[unknown]"): a file without symbols. */
static bool unnamed_in_file(const spaa_reader *r, const spaa_frame *f)
{
	if (f->func_resolved) return false;
	const spaa_dso *d = &r->dsos[f->dso];
	if (!d->name || d->name[0] != '/') return false;
	const char *b = strrchr(d->name, '/') + 1;
	return !(strncmp(b, "perf-", 5) == 0 && d->name_n > 4 && !strcmp(d->name + d->name_n - 4, ".map"));
}

/* Sorts each stack by what is wrong with it, if anything: no call chain
 * at all (one frame), frames in a file without symbols (the first such
 * file kept for the message), or a frame-pointer walk that broke: its
 * outermost user frame has no name (perf's "[unknown]"), or it has one
 * or two frames of user code and does not start where threads start. */
void hint_stacks_add(hint_stacks *h, const spaa_reader *r, const spaa_stack *s, num w)
{
	if (!h->perf) return;
	double v = num_to_double(w);
	uint32_t user = 0, outer = UINT32_MAX, stripped = UINT32_MAX, n = 0;
	for (uint32_t i = 0; i < s->nframes; i++) {
		uint32_t f = spaa_stack_root_frame(r, s, i);
		if (r->frames[f].perf_nochain) continue;
		n++;
		if (r->frames[f].kind == FK_KERNEL) continue;
		if (!user) outer = f;
		if (stripped == UINT32_MAX && unnamed_in_file(r, &r->frames[f])) stripped = f;
		user++;
	}
	h->all += v;
	if (n > 1) h->chains = true;
	if (stripped != UINT32_MAX) {
		h->stripped += v;
		if (!h->dso[0]) {
			const spaa_dso *d = &r->dsos[r->frames[stripped].dso];
			snprintf(h->dso, sizeof h->dso, "%s", d->name);
		}
	} else if (user && (!r->frames[outer].func_resolved || (user <= 2 && !is_entry(&r->frames[outer])))) {
		h->broken += v;
	}
}

void hint_stacks_say(const hint_stacks *h, const char *file)
{
	if (!(h->all > 0)) return;
	if (!h->chains && h->asked) {
		warnmsg("%s: no stack has more than one frame, though the capture was recorded with call "
			"chains: they look broken, as in code built without frame pointers; record with "
			"'perf record --call-graph dwarf', or build with -fno-omit-frame-pointer", file);
		return;
	}
	if (!h->chains) {
		warnmsg("%s: no stack has more than one frame: the capture has no call chains; record them "
			"with 'perf record -g' (or --call-graph dwarf for code without frame pointers)", file);
		return;
	}
	if (h->stripped > h->broken && h->stripped / h->all > 0.5) {
		warnmsg("%s: %.0f%% of the weight is in stacks through frames without a name in %s (and "
			"perhaps other files): it has no symbols (stripped); install its debug symbols (perf "
			"finds them by build id), or give perf2spaa --symfs/--debug-dir where they are",
			file, 100 * h->stripped / h->all, h->dso);
		return;
	}
	if (h->broken / h->all <= 0.5) return;
	warnmsg("%s: %.0f%% of the weight is in stacks that stop short of main (after one or two "
		"user frames, or at an address without a name): the call chains look broken, as in "
		"code built without frame pointers; record with 'perf record --call-graph dwarf', "
		"or build with -fno-omit-frame-pointer", file, 100 * h->broken / h->all);
}
