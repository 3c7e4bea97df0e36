/* filter.c - pprof's frame filters (see filter.h). */
#include "filter.h"

#include <stdlib.h>
#include <string.h>
#include "cli.h"

static const char *const opt_names[FILTER_N] = {
	"--focus", "--ignore", "--hide", "--show", "--show-from", "--prune-from"
};

bool filter_take(frame_filter *f, int c, const char *arg)
{
	if (c < FILTER_OPT_FOCUS || c >= FILTER_OPT_END) return false;
	f->src[c - FILTER_OPT_FOCUS] = arg;
	return true;
}

void filter_compile(frame_filter *f, const fold_opts *fo)
{
	f->fo = fo;
	for (int i = 0; i < FILTER_N; i++) {
		if (!f->src[i]) continue;
		int rc = regcomp(&f->re[i], f->src[i], REG_EXTENDED | REG_NOSUB);
		if (rc != 0) {
			char msg[256];
			regerror(rc, &f->re[i], msg, sizeof msg);
			usage_error("%s '%s': %s", opt_names[i], f->src[i], msg);
		}
	}
	f->compiled = true;
}

bool filter_active(const frame_filter *f)
{
	for (int i = 0; i < FILTER_N; i++)
		if (f->src[i]) return true;
	return false;
}

bool filter_rewrites(const frame_filter *f)
{
	return f->src[FILTER_HIDE] || f->src[FILTER_SHOW] || f->src[FILTER_SHOW_FROM] ||
	       f->src[FILTER_PRUNE_FROM];
}

void filter_reset(frame_filter *f)
{
	if (f->memo) memset(f->memo, 0, f->memo_cap);
}

/* pprof's simplifyFunc: a leading '.' left out, and the name cut at its
 * first '(' that does not belong to "(anonymous namespace)" or
 * "operator()". */
static void simplify(const char *s, sbuf *out)
{
	static const char anon[] = "(anonymous namespace)", op[] = "operator()";
	if (*s == '.') s++;
	size_t n = strlen(s), i = 0;
	while (i < n) {
		if (!strncmp(s + i, anon, sizeof anon - 1)) i += sizeof anon - 1;
		else if (!strncmp(s + i, op, sizeof op - 1)) i += sizeof op - 1;
		else if (s[i] == '(') break;
		else i++;
	}
	out->n = 0;
	sbuf_add(out, s, i);
	sbuf_addc(out, 0);
}

/* Which filters frame fi matches (bit i: filter i), decided once. */
static uint8_t matches(frame_filter *f, const spaa_reader *r, uint32_t fi)
{
	if (fi >= f->memo_cap) {
		uint32_t old = f->memo_cap;
		grow_array((void **)&f->memo, &f->memo_cap, fi + 1, 1);
		memset(f->memo + old, 0, f->memo_cap - old);
	}
	if (f->memo[fi] & 0x80) return f->memo[fi] & 0x7f;
	f->name.n = 0;
	fold_frame_name(r, fi, NULL, 0, f->fo, &f->name);
	sbuf_addc(&f->name, 0);
	uint8_t m = 0;
	for (int i = 0; i < FILTER_N; i++) {
		if (!f->src[i]) continue;
		const char *s = f->name.p;
		if (i == FILTER_PRUNE_FROM) {
			simplify(s, &f->simple);
			s = f->simple.p;
		}
		if (regexec(&f->re[i], s, 0, NULL, 0) == 0) m |= (uint8_t)(1u << i);
	}
	f->memo[fi] = 0x80 | m;
	return m;
}

/* The frame at root position i of s. */
static uint32_t at(const spaa_reader *r, const spaa_stack *s, uint32_t i)
{
	return spaa_stack_root_frame(r, s, i);
}

const spaa_stack *filter_stack(frame_filter *f, const spaa_reader *r, const spaa_stack *s)
{
	uint32_t n = s->nframes;
	grow_array((void **)&f->keep, &f->kcap, n + 1, sizeof *f->keep);
	grow_array((void **)&f->locstart, &f->lcap, n + 1, sizeof *f->locstart);
	grow_array((void **)&f->inl, &f->icap, n + 1, 1);
	grow_array((void **)&f->pos, &f->pcap, n + 1, sizeof *f->pos);
	/* focus and ignore, on the whole stack */
	bool focus = !f->src[FILTER_FOCUS];
	for (uint32_t i = 0; i < n; i++) {
		uint8_t m = matches(f, r, s->frames[i]);
		if (m & (1u << FILTER_IGNORE)) return NULL;
		if (m & (1u << FILTER_FOCUS)) focus = true;
	}
	if (!focus) return NULL;
	/* hide and show; the locations (a frame and the frames inlined in it) */
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t fi = at(r, s, i);
		f->locstart[i] = i && r->frames[fi].inlined ? f->locstart[i - 1] : i;
		uint8_t m = matches(f, r, fi);
		if (f->src[FILTER_HIDE] && (m & (1u << FILTER_HIDE))) continue;
		if (f->src[FILTER_SHOW] && !(m & (1u << FILTER_SHOW))) continue;
		f->keep[k++] = i;
	}
	if (!k && (f->src[FILTER_HIDE] || f->src[FILTER_SHOW])) return NULL;
	/* show-from: from the root-most match on */
	uint32_t from = 0, to = k;
	if (f->src[FILTER_SHOW_FROM]) {
		while (from < k && !(matches(f, r, at(r, s, f->keep[from])) & (1u << FILTER_SHOW_FROM))) from++;
		if (from == k) return NULL;
	}
	/* prune-from: up to the leaf-most match */
	if (f->src[FILTER_PRUNE_FROM]) {
		uint32_t j = to;
		while (j > from && !(matches(f, r, at(r, s, f->keep[j - 1])) & (1u << FILTER_PRUNE_FROM))) j--;
		if (j > from) to = j;
	}
	uint32_t nk = to - from;
	/* an inlined frame is inlined here when a frame of its location stays
	 * root-ward of it (pprof's lines of one location) */
	for (uint32_t j = 0; j < nk; j++) {
		uint32_t p = f->keep[from + j];
		bool in = r->frames[at(r, s, p)].inlined && j > 0 && f->keep[from + j - 1] >= f->locstart[p];
		f->inl[r->leaf_first ? nk - 1 - j : j] = in;
		f->pos[r->leaf_first ? nk - 1 - j : j] = r->leaf_first ? n - 1 - p : p;
	}
	if (nk == n) return s;
	spaa_stack *o = &f->out;
	uint32_t *frames = o->frames, fcap = o->fcap;
	*o = *s;
	o->frames = frames;
	o->fcap = fcap;
	grow_array((void **)&o->frames, &o->fcap, nk + 1, sizeof *o->frames);
	for (uint32_t j = 0; j < nk; j++)
		o->frames[r->leaf_first ? nk - 1 - j : j] = at(r, s, f->keep[from + j]);
	o->nframes = nk;
	if (s->has_excl) o->excl_frame = o->frames[r->leaf_first ? 0 : nk - 1];
	return o;
}

void filter_free(frame_filter *f)
{
	if (f->compiled)
		for (int i = 0; i < FILTER_N; i++)
			if (f->src[i]) regfree(&f->re[i]);
	free(f->memo);
	sbuf_free(&f->name);
	sbuf_free(&f->simple);
	free(f->keep);
	free(f->locstart);
	free(f->inl);
	free(f->pos);
	free(f->out.frames);
	memset(f, 0, sizeof *f);
}
