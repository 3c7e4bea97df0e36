/* relay.c - a stack relay (relay.h): two batches, one filled by the reading
 * thread while the worker works on the other. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "relay.h"
#include "util.h"

/* One record of a batch: its strings in the batch's text, its frames in the
 * batch's frames. */
struct rec {
	num w;
	uint64_t lineno;
	uint32_t frame0, nframes;
	int32_t event;
	uint32_t comm_at, comm_n, ev_at, ev_n;
	bool has_comm, has_ev, has_pid, has_tid;
	int64_t pid, tid;
};

struct batch {
	struct rec *recs;
	uint32_t n, cap;
	uint32_t *frames;
	uint32_t nf, fcap;
	sbuf text;
};

/* Records a batch holds before it is handed on: big enough that the
 * handing costs nothing beside the work, small enough to stay in cache. */
#define BATCH_RECS 4096

static struct {
	bool on;                 /* the worker thread runs */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct batch b[2], *fill, *work;
	bool ready, quit;        /* work holds a batch not done yet; no more */
	spaa_reader *r;
	relay_work_fn fn;
	void *ctx;
} J = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

/* Hands the filled batch to the worker once it is done with the other,
 * which becomes the one to fill (J.mu held). */
static void hand_on(void)
{
	while (J.ready) pthread_cond_wait(&J.cv, &J.mu);
	struct batch *t = J.work;
	J.work = J.fill;
	J.fill = t;
	J.fill->n = J.fill->nf = 0;
	J.fill->text.n = 0;
	J.ready = true;
	pthread_cond_broadcast(&J.cv);
}

void relay_add(const spaa_stack *s, num w, uint64_t lineno)
{
	struct batch *b = J.fill;
	struct rec *x = VEC_PUSH(b->recs, b->n, b->cap);
	x->w = w;
	x->lineno = lineno;
	x->frame0 = b->nf;
	x->nframes = s->nframes;
	for (uint32_t i = 0; i < s->nframes; i++) *VEC_PUSH(b->frames, b->nf, b->fcap) = s->frames[i];
	x->event = s->event;
	x->has_comm = s->comm.p != NULL;
	x->comm_at = (uint32_t)b->text.n;
	x->comm_n = (uint32_t)s->comm.n;
	sbuf_add(&b->text, s->comm.p, s->comm.n);
	x->has_ev = s->event_name.p != NULL;
	x->ev_at = (uint32_t)b->text.n;
	x->ev_n = (uint32_t)s->event_name.n;
	sbuf_add(&b->text, s->event_name.p, s->event_name.n);
	x->has_pid = s->has_pid;
	x->pid = s->pid;
	x->has_tid = s->has_tid;
	x->tid = s->tid;
	if (b->n >= BATCH_RECS) {
		/* hand it on, without waiting for the worker to be done */
		pthread_mutex_lock(&J.mu);
		hand_on();
		pthread_mutex_unlock(&J.mu);
	}
}

static void batch_work(const struct batch *b)
{
	spaa_stack s = { 0 };
	for (uint32_t i = 0; i < b->n; i++) {
		const struct rec *x = &b->recs[i];
		s.frames = b->frames + x->frame0;
		s.nframes = x->nframes;
		s.event = x->event;
		s.comm = x->has_comm ? (sstr){ b->text.p + x->comm_at, x->comm_n } : SSTR_NULL;
		s.event_name = x->has_ev ? (sstr){ b->text.p + x->ev_at, x->ev_n } : SSTR_NULL;
		s.has_pid = x->has_pid;
		s.pid = x->pid;
		s.has_tid = x->has_tid;
		s.tid = x->tid;
		J.fn(J.ctx, &s, x->w, x->lineno);
	}
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&J.mu);
	for (;;) {
		while (!J.ready && !J.quit) pthread_cond_wait(&J.cv, &J.mu);
		if (!J.ready) break;
		pthread_mutex_unlock(&J.mu);
		batch_work(J.work);
		pthread_mutex_lock(&J.mu);
		J.ready = false;
		pthread_cond_broadcast(&J.cv);
	}
	pthread_mutex_unlock(&J.mu);
	return NULL;
}

void relay_idle(void)
{
	if (!J.on) return;
	pthread_mutex_lock(&J.mu);
	if (J.fill->n) hand_on();
	while (J.ready) pthread_cond_wait(&J.cv, &J.mu);
	pthread_mutex_unlock(&J.mu);
}

/* spaa_next() is about to take a record that may change what the worker
 * reads, or report one: the worker is to be done first. */
static void before_slow(spaa_reader *r)
{
	(void)r;
	relay_idle();
}

void relay_start(spaa_reader *r, relay_work_fn work, void *ctx)
{
	/* exits that come back to a caller (cli_exit_override: the fuzz
	 * harness runs commands in-process) would leave the worker running,
	 * or come back from the worker's thread: then no relay, the same
	 * output made on one thread */
	if (cli_exit_override) return;
	/* a profile in memory (spaa_open_builder): its records cost less to
	 * take than to hand on (the worker, its caches cold, folded in twice
	 * the time the reading thread takes: spaa-fold perf.data -j 2 took
	 * 1.06x the CPU of -j 1, 1.02x without the relay, and less time) */
	if (r->bsrc) return;
	J.r = r;
	J.fn = work;
	J.ctx = ctx;
	J.fill = &J.b[0];
	J.work = &J.b[1];
	J.ready = J.quit = false;
	int e = pthread_create(&J.thread, NULL, worker, NULL);
	if (e) die(EXIT_DATA, "cannot start a thread: %s", strerror(e));
	J.on = true;
	r->before_slow = before_slow;
}

void relay_stop(void)
{
	if (!J.on) return;
	relay_idle();
	pthread_mutex_lock(&J.mu);
	J.quit = true;
	pthread_cond_broadcast(&J.cv);
	pthread_mutex_unlock(&J.mu);
	pthread_join(J.thread, NULL);
	J.on = false;
	J.r->before_slow = NULL;
	for (int i = 0; i < 2; i++) {
		free(J.b[i].recs);
		free(J.b[i].frames);
		sbuf_free(&J.b[i].text);
		J.b[i] = (struct batch){ 0 };
	}
}

bool relay_on(void) { return J.on; }
