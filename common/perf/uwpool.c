/* uwpool.c - dwarf unwinding on threads, in file order (see uwpool.h). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "uwpool.h"

/* A batch: up to BATCH_SAMPLES samples or about BATCH_BYTES of their
 * registers and stacks (a dwarf sample's stack copy is 8 KiB by default:
 * 64 of them, about a millisecond of unwinding, one lock a batch). */
#define BATCH_SAMPLES 64
#define BATCH_BYTES (512u << 10)

/* With a taking thread of its own (uwpool_new's taker), the ring is deep:
 * the reader and the unwinding threads run ahead while the taker is
 * held up (by a file's first look-ups, which can take a tenth of a second)
 * by up to DEEP_SLOTS batches or DEEP_BYTES of them, their stacks counted
 * whether copied or lasting (those the caller keeps mapped).  A batch's
 * copies over KEEP_BYTES are freed when it is taken back, so the ring
 * keeps no more than that. */
#define DEEP_SLOTS 512
#define DEEP_BYTES (128u << 20)
#define KEEP_BYTES (64u << 10)

/* A helping thread takes up to HELP_BATCHES batches at a time (the latest
 * first), so that several share the work. */
#define HELP_BATCHES 32

enum { B_FILL, B_QUEUED, B_TAKEN, B_DONE };

/* A helping thread's asks (uwpool_help), and a sample's mappings sorted. */
struct help {
	elfsym_ask *asks;
	uint32_t n, cap;
	unwind_map *maps;
	uint32_t mapcap;
};

struct item {
	int64_t pid;
	uint64_t version, abi, regs_mask, stack_size;
	const uint8_t *regs, *stack; /* lasting: where they are */
	size_t roff, soff;      /* else: their offsets in data */
	uint32_t nregs, snap;
	bool none;              /* nothing to unwind */
	bool lasting;
	uint32_t n, at;         /* the result: n addresses at ips + at */
	int why;
};

/* The mappings of one (process, version) as of the batch's samples. */
struct snap {
	int64_t pid;
	uint64_t version;
	uint32_t off, n;        /* in maps */
};

struct uwpool_batch {
	struct item *it;
	uint32_t n, cap;
	sbuf data;
	struct snap *sn;
	uint32_t nsn, sncap;
	unwind_map *maps;
	uint32_t nmaps, mapcap;
	uint64_t *ips;
	uint32_t ipcap;
	sbuf user;
	size_t bytes;           /* what it holds, counted while it is out */
	size_t lasting;         /* the bytes of its lasting registers and stacks, */
	const uint8_t *low;     /* the lowest address of them (NULL: none) */
	int state;
	bool helped;            /* its addresses handed to the help (uwpool_help) */
};

struct uwpool {
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	pthread_cond_t room, more; /* a batch taken back; one handed out (or closed) */
	size_t outbytes, maxbytes; /* the bytes of the batches out, and their bound */
	bool closed;               /* uwpool_close: no more batches */
	struct uwpool_batch *ring;
	uint32_t slots;
	uint64_t head, next, tail; /* out: [head, tail); next: the first no thread took */
	bool stop;
	unwind **uw;               /* [0] the caller's, [1 + k] thread k's */
	unsigned nuw;
	pthread_t *th;
	unsigned nth;
	struct worker { uwpool *p; unsigned k; } *wk;
	uint32_t lastsnap;         /* uwpool_need_maps' find, for uwpool_add */
	uwpool_help_fn help;       /* uwpool_help */
	void *help_ctx;
	uint64_t progress;         /* the taker's (uwpool_progress), atomic */
};

static struct uwpool_batch *filling(uwpool *p) { return &p->ring[p->tail % p->slots]; }

static void run(unwind *uw, struct uwpool_batch *b)
{
	uint32_t used = 0;
	grow_array((void **)&b->ips, &b->ipcap, 1, sizeof *b->ips); /* (never NULL) */
	for (uint32_t i = 0; i < b->n; i++) {
		struct item *t = &b->it[i];
		t->at = used;
		if (t->none) {
			t->n = 0;
			t->why = UW_NO_REGS;
			continue;
		}
		const struct snap *s = &b->sn[t->snap];
		const uint8_t *data = (const uint8_t *)b->data.p;
		unwind_sample us = { .pid = t->pid, .maps_version = t->version, .abi = t->abi,
				     .regs_mask = t->regs_mask, .regs = t->lasting ? t->regs : data + t->roff,
				     .nregs = t->nregs, .stack = t->lasting ? t->stack : data + t->soff,
				     .stack_size = t->stack_size };
		if (unwind_need_maps(uw, t->pid, t->version)) {
			us.maps = b->maps + s->off;
			us.nmaps = s->n;
		}
		/* (the batch's addresses one sample after the other) */
		grow_array((void **)&b->ips, &b->ipcap, used + UNWIND_MAX_DEPTH, sizeof *b->ips);
		t->n = unwind_stack(uw, &us, b->ips + used, UNWIND_MAX_DEPTH, &t->why);
		used += t->n;
	}
}

static int umap_start_cmp(const void *a, const void *b)
{
	const unwind_map *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* A sample's place in the order of the taker's work: its batch's number
 * and its own in the batch. */
static uint64_t place(uint64_t batch, uint32_t i) { return batch << 20 | i; }

/* The files and offsets of the addresses unwound in batch b (done, number
 * batch), appended to h: each through the mappings of its sample, as of
 * that sample (the caller's names, for the file's look-ups). */
static void batch_asks(const struct uwpool_batch *b, uint64_t batch, struct help *h)
{
	uint32_t last = UINT32_MAX, nm = 0;
	for (uint32_t i = 0; i < b->n; i++) {
		const struct item *t = &b->it[i];
		if (t->none || !t->n) continue;
		if (t->snap != last) {
			/* (a sample's mappings come in any order) */
			const struct snap *s = &b->sn[t->snap];
			last = t->snap;
			nm = s->n;
			grow_array((void **)&h->maps, &h->mapcap, nm + 1, sizeof *h->maps);
			if (nm) memcpy(h->maps, b->maps + s->off, (size_t)nm * sizeof *h->maps);
			xqsort(h->maps, nm, sizeof *h->maps, umap_start_cmp);
		}
		for (uint32_t j = 0; j < t->n; j++) {
			uint64_t ip = b->ips[t->at + j];
			uint32_t lo = 0, hi = nm;
			while (lo < hi) {
				uint32_t mid = lo + (hi - lo) / 2;
				if (h->maps[mid].start <= ip) lo = mid + 1;
				else hi = mid;
			}
			const unwind_map *m = lo ? &h->maps[lo - 1] : NULL;
			if (!m || ip >= m->end || !m->name) continue;
			*VEC_PUSH(h->asks, h->n, h->cap) = (elfsym_ask){ m->name, ip - m->start + m->pgoff, place(batch, i) };
		}
	}
}

/* With mu held: hands the help the addresses of the batches unwound and
 * not taken back (the one the taker works on too) that nobody helped with
 * (then true). */
static bool help(uwpool *p, unsigned k, struct help *h)
{
	if (!p->help) return false;
	h->n = 0;
	uint32_t taken = 0;
	for (uint64_t i = p->tail; i-- > p->head && taken < HELP_BATCHES;) {
		struct uwpool_batch *b = &p->ring[i % p->slots];
		if (b->state != B_DONE || b->helped) continue;
		b->helped = true;
		batch_asks(b, i, h);
		taken++;
	}
	if (!h->n) return false;
	pthread_mutex_unlock(&p->mu);
	p->help(p->help_ctx, k, h->asks, h->n);
	pthread_mutex_lock(&p->mu);
	return true;
}

bool uwpool_ahead(uwpool *p, uint64_t order)
{
	return order > __atomic_load_n(&p->progress, __ATOMIC_RELAXED) + 1;
}

void uwpool_progress(uwpool *p, uint32_t i)
{
	/* (head: changed by this thread only) */
	__atomic_store_n(&p->progress, place(p->head, i), __ATOMIC_RELAXED);
}

static void *worker(void *arg)
{
	struct worker *w = arg;
	uwpool *p = w->p;
	unwind *uw = p->uw[1 + w->k];
	struct help h = { 0 };
	pthread_mutex_lock(&p->mu);
	for (;;) {
		if (p->next < p->tail) {
			struct uwpool_batch *b = &p->ring[p->next++ % p->slots];
			b->state = B_TAKEN;
			pthread_mutex_unlock(&p->mu);
			run(uw, b);
			pthread_mutex_lock(&p->mu);
			b->state = B_DONE;
			pthread_cond_broadcast(&p->done);
			continue;
		}
		if (p->stop) break;
		if (help(p, w->k, &h)) continue;
		pthread_cond_wait(&p->work, &p->mu);
	}
	pthread_mutex_unlock(&p->mu);
	free(h.asks);
	free(h.maps);
	return NULL;
}

void uwpool_help(uwpool *p, uwpool_help_fn fn, void *ctx)
{
	pthread_mutex_lock(&p->mu);
	p->help = fn;
	p->help_ctx = ctx;
	pthread_mutex_unlock(&p->mu);
}

unsigned uwpool_threads(const uwpool *p) { return p->nth; }

uwpool *uwpool_new(unsigned threads, int arch, const char *root, const char *debug_dir, bool taker)
{
	uwpool *p = xcalloc(1, sizeof *p);
	/* room for two batches a thread, and the one being filled; with a
	 * taker of its own, the deep ring */
	p->slots = taker ? DEEP_SLOTS : 2 * (threads + 1) + 1;
	p->maxbytes = taker ? DEEP_BYTES : SIZE_MAX;
	p->ring = xcalloc(p->slots, sizeof *p->ring);
	p->uw = xcalloc(threads + 1, sizeof *p->uw);
	/* (made here, one after the other: unwind_new starts libelf once) */
	for (unsigned k = 0; k <= threads; k++) p->uw[k] = unwind_new(arch, root, debug_dir);
	p->nuw = threads + 1;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	pthread_cond_init(&p->room, NULL);
	pthread_cond_init(&p->more, NULL);
	p->th = xcalloc(threads ? threads : 1, sizeof *p->th);
	p->wk = xcalloc(threads ? threads : 1, sizeof *p->wk);
	for (unsigned k = 0; k < threads; k++) {
		p->wk[k] = (struct worker){ p, k };
		if (pthread_create(&p->th[k], NULL, worker, &p->wk[k]) != 0) break; /* fewer, or the caller alone */
		p->nth++;
	}
	return p;
}

void uwpool_free(uwpool *p)
{
	if (!p) return;
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
	for (unsigned k = 0; k < p->nth; k++) pthread_join(p->th[k], NULL);
	for (uint32_t i = 0; i < p->slots; i++) {
		struct uwpool_batch *b = &p->ring[i];
		free(b->it);
		sbuf_free(&b->data);
		free(b->sn);
		free(b->maps);
		free(b->ips);
		sbuf_free(&b->user);
	}
	free(p->ring);
	/* every unwinder, the threads' too (the threads are gone) */
	for (unsigned k = 0; k < p->nuw; k++) unwind_free(p->uw[k]);
	free(p->uw);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	pthread_cond_destroy(&p->room);
	pthread_cond_destroy(&p->more);
	free(p->th);
	free(p->wk);
	free(p);
}

bool uwpool_need_maps(uwpool *p, int64_t pid, uint64_t maps_version)
{
	const struct uwpool_batch *b = filling(p);
	for (uint32_t i = b->nsn; i-- > 0;)
		if (b->sn[i].pid == pid && b->sn[i].version == maps_version) {
			p->lastsnap = i;
			return false;
		}
	return true;
}

void uwpool_add(uwpool *p, const unwind_sample *s, bool lasting)
{
	struct uwpool_batch *b = filling(p);
	struct item *t = VEC_PUSH(b->it, b->n, b->cap);
	memset(t, 0, sizeof *t);
	if (!s) {
		t->none = true;
		return;
	}
	if (uwpool_need_maps(p, s->pid, s->maps_version)) {
		struct snap *n = VEC_PUSH(b->sn, b->nsn, b->sncap);
		n->pid = s->pid;
		n->version = s->maps_version;
		n->off = b->nmaps;
		n->n = s->nmaps;
		grow_array((void **)&b->maps, &b->mapcap, b->nmaps + s->nmaps + 1, sizeof *b->maps);
		if (s->nmaps) memcpy(b->maps + b->nmaps, s->maps, (size_t)s->nmaps * sizeof *s->maps);
		b->nmaps += s->nmaps;
		p->lastsnap = b->nsn - 1;
	}
	t->snap = p->lastsnap;
	t->pid = s->pid;
	t->version = s->maps_version;
	t->abi = s->abi;
	t->regs_mask = s->regs_mask;
	t->nregs = s->nregs;
	t->stack_size = s->stack_size;
	t->lasting = lasting;
	if (lasting) {
		t->regs = s->regs;
		t->stack = s->stack;
		b->lasting += (size_t)s->nregs * 8 + (size_t)s->stack_size;
		const uint8_t *lo = s->regs < s->stack ? s->regs : s->stack;
		if (!b->low || lo < b->low) b->low = lo;
		return;
	}
	t->roff = b->data.n;
	sbuf_add(&b->data, s->regs, (size_t)s->nregs * 8);
	t->soff = b->data.n;
	sbuf_add(&b->data, s->stack, (size_t)s->stack_size);
}

sbuf *uwpool_user(uwpool *p) { return &filling(p)->user; }

bool uwpool_full(const uwpool *p)
{
	const struct uwpool_batch *b = &p->ring[p->tail % p->slots];
	return b->n >= BATCH_SAMPLES || b->data.n + b->user.n >= BATCH_BYTES;
}

uint32_t uwpool_out(const uwpool *p) { return (uint32_t)(p->tail - p->head); }

/* Whether as many batches, or bytes of them, are out as the pool holds
 * (with mu held). */
static bool ring_full(const uwpool *p) { return p->tail - p->head >= p->slots || p->outbytes >= p->maxbytes; }

bool uwpool_submit(uwpool *p)
{
	struct uwpool_batch *b = filling(p);
	pthread_mutex_lock(&p->mu);
	if (b->n || b->user.n) {
		b->state = B_QUEUED;
		b->bytes = b->data.n + b->lasting + b->user.n + (size_t)b->n * (sizeof *b->it + 8 * 16) +
			   (size_t)b->nmaps * sizeof *b->maps;
		p->outbytes += b->bytes;
		p->tail++;
		pthread_cond_signal(&p->work);
		pthread_cond_broadcast(&p->more);
	}
	bool full = ring_full(p);
	pthread_mutex_unlock(&p->mu);
	return full;
}

void uwpool_wait_room(uwpool *p)
{
	pthread_mutex_lock(&p->mu);
	while (ring_full(p)) pthread_cond_wait(&p->room, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

bool uwpool_wait_out(uwpool *p)
{
	pthread_mutex_lock(&p->mu);
	while (p->head == p->tail && !p->closed) pthread_cond_wait(&p->more, &p->mu);
	bool any = p->head != p->tail;
	pthread_mutex_unlock(&p->mu);
	return any;
}

const void *uwpool_lasting_low(uwpool *p)
{
	const uint8_t *low = filling(p)->low;
	pthread_mutex_lock(&p->mu);
	for (uint64_t i = p->head; i < p->tail; i++) {
		const uint8_t *l = p->ring[i % p->slots].low;
		if (l && (!low || l < low)) low = l;
	}
	pthread_mutex_unlock(&p->mu);
	return low;
}

void uwpool_close(uwpool *p)
{
	pthread_mutex_lock(&p->mu);
	p->closed = true;
	pthread_cond_broadcast(&p->more);
	pthread_mutex_unlock(&p->mu);
}

const uwpool_batch *uwpool_take(uwpool *p, uint32_t *n, const sbuf **user)
{
	struct uwpool_batch *b = &p->ring[p->head % p->slots];
	pthread_mutex_lock(&p->mu);
	/* until it is done: the batches no thread took yet, unwound here
	 * (the oldest first: it is the one waited for) */
	while (b->state != B_DONE) {
		if (p->next < p->tail) {
			struct uwpool_batch *o = &p->ring[p->next++ % p->slots];
			o->state = B_TAKEN;
			pthread_mutex_unlock(&p->mu);
			run(p->uw[0], o);
			pthread_mutex_lock(&p->mu);
			o->state = B_DONE;
			continue;
		}
		pthread_cond_wait(&p->done, &p->mu);
	}
	pthread_mutex_unlock(&p->mu);
	*n = b->n;
	*user = &b->user;
	return b;
}

const uint64_t *uwpool_result(const uwpool_batch *b, uint32_t i, uint32_t *n, int *why)
{
	*n = b->it[i].n;
	*why = b->it[i].why;
	return b->ips + b->it[i].at;
}

void uwpool_release(uwpool *p)
{
	struct uwpool_batch *b = &p->ring[p->head % p->slots];
	/* (under the lock: a helping thread reads the batches out) */
	pthread_mutex_lock(&p->mu);
	b->n = 0;
	b->lasting = 0;
	if (b->data.cap > KEEP_BYTES) sbuf_free(&b->data);
	b->data.n = 0;
	b->nsn = 0;
	b->nmaps = 0;
	b->user.n = 0;
	b->state = B_FILL;
	b->low = NULL;
	b->helped = false;
	p->outbytes -= b->bytes;
	p->head++;
	pthread_cond_broadcast(&p->room);
	pthread_mutex_unlock(&p->mu);
}
