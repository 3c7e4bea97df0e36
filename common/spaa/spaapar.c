/* spaapar.c - the stack records of a large SPAA file read on N threads
 * (spaapar.h).
 *
 * The rest of the file, [at, end), is cut into chunks of equal size; a
 * chunk holds the lines that begin in it (a chunk after the first starts
 * after the first newline at or past its start - 1).  Worker threads take
 * the chunks in order and read each with pread(), a block at a time; the
 * calling thread waits for them in order and merges them.  A chunk that
 * stops early (a line the fast path does not take) makes the workers leave
 * the chunks after it. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "input.h"
#include "spaapar.h"
#include "util.h"

enum { BLOCK = 1 << 20 };

struct chunk {
	uint64_t a, b;          /* its bytes (file offsets) */
	void *st;               /* chunk_new()'s state */
	uint64_t first;         /* the file offset of its first line */
	uint64_t lines;         /* the lines read, up to where it stopped */
	bool stopped;           /* at a line not taken, at offset stop */
	uint64_t stop;
	bool done, read;        /* finished; read (not left) */
};

struct par {
	const spaa_reader *r;
	const spaa_par_ops *ops;
	int fd;
	uint64_t end;
	size_t max;             /* input_max_line() */
	struct chunk *c;
	uint32_t n;
	uint32_t next;          /* the next chunk to take (under mu) */
	uint32_t stop_at;       /* chunks after this one are left */
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

bool spaa_par_possible(const spaa_reader *r, unsigned jobs)
{
	int fd;
	uint64_t at, end;
	return jobs >= 2 && !r->bsrc && !cli_exit_override && r->in && input_plain_rest(r->in, &fd, &at, &end);
}

/* Reads more of the file into *buf (moving its bytes from keep on to its
 * start first, *off their file offset): the count read, 0 at the end or
 * on an error (*err set: the reader meets it again, and says it). */
static size_t more(struct par *P, sbuf *buf, size_t keep, uint64_t *off, bool *err)
{
	size_t have = buf->n - keep;
	memmove(buf->p, buf->p + keep, have);
	*off += keep;
	buf->n = have;
	sbuf_reserve(buf, BLOCK);
	uint64_t at = *off + have;
	if (at >= P->end) return 0;
	size_t want = buf->cap - buf->n;
	if (want > P->end - at) want = (size_t)(P->end - at);
	ssize_t k;
	do k = pread(P->fd, buf->p + buf->n, want, (off_t)at);
	while (k < 0 && errno == EINTR);
	if (k < 0) {
		*err = true;
		return 0;
	}
	buf->n += (size_t)k;
	return (size_t)k;
}

static bool left(struct par *P, uint32_t k)
{
	pthread_mutex_lock(&P->mu);
	bool l = k > P->stop_at;
	pthread_mutex_unlock(&P->mu);
	return l;
}

static void read_chunk(struct par *P, uint32_t k, spaa_stack *s, sbuf *buf)
{
	struct chunk *c = &P->c[k];
	c->st = xcalloc(1, P->ops->chunk_size);
	spaa_par_sums_init(c->st);
	c->read = true;
	uint64_t off = c->a;   /* the file offset of buf->p[0] */
	size_t at = 0;         /* the next line's start in buf */
	bool err = false;
	uint64_t lines = 0;    /* (c->lines: see below) */
	buf->n = 0;
	if (k > 0) {
		/* the lines that begin in the chunk: after the first newline
		 * at or past a - 1 (none within the longest line the reader
		 * takes: the chunk that line begins in stops at it, and this
		 * one is left unread) */
		off = c->a - 1;
		for (;;) {
			char *nl = memchr(buf->p + at, '\n', buf->n - at);
			if (nl) {
				at = (size_t)(nl - buf->p) + 1;
				break;
			}
			if (off + buf->n - (c->a - 1) > P->max || left(P, k)) {
				/* (its offsets are never used: a chunk before
				 * this one stops) */
				c->first = c->a;
				goto stop;
			}
			bool got = more(P, buf, buf->n, &off, &err) > 0;
			at = 0;
			if (!got) break;
		}
	}
	c->first = off + at;
	size_t max = P->max;
	/* (the chunks are side by side in memory: what changes at each line
	 * is kept here, not written to the chunk, whose memory the other
	 * threads' chunks share) */
	const uint64_t b = c->b;
	for (uint32_t since = 0;;) {
		uint64_t start = off + at;
		if (start >= b) break;
		char *line = buf->p + at, *nl = memchr(line, '\n', buf->n - at);
		if (!nl) {
			if (buf->n - at > max) goto stop; /* too long: the reader says so */
			size_t got = more(P, buf, at, &off, &err);
			at = 0;
			if (got) continue;
			if (err) goto stop;
			if (!buf->n) break;   /* the end of the file */
			nl = buf->p + buf->n; /* the last line, without a newline */
			line = buf->p;
		}
		size_t n = (size_t)(nl - line);
		if (n > max) goto stop;
		size_t t = n && line[n - 1] == '\r' ? n - 1 : n;
		if (t && (!spaa_stack_fast_line(P->r, s, line, n) || !P->ops->stack(P->ops->ctx, c->st, s)))
			goto stop;
		lines++;
		at += n + (nl < buf->p + buf->n);
		/* now and then: has a chunk before this one stopped? */
		if (++since == 4096) {
			since = 0;
			if (left(P, k)) break;
		}
	}
	c->lines = lines;
	return;
stop:
	c->lines = lines;
	c->stopped = true;
	c->stop = off + at;
	pthread_mutex_lock(&P->mu);
	if (k < P->stop_at) P->stop_at = k;
	pthread_mutex_unlock(&P->mu);
}

static void *worker(void *arg)
{
	struct par *P = arg;
	spaa_stack s = { 0 };
	sbuf buf = { 0 };
	sbuf_reserve(&buf, BLOCK);
	for (;;) {
		pthread_mutex_lock(&P->mu);
		uint32_t k = P->next < P->n ? P->next++ : P->n;
		bool skip = k < P->n && k > P->stop_at;
		pthread_mutex_unlock(&P->mu);
		if (k == P->n) break;
		if (!skip) read_chunk(P, k, &s, &buf);
		pthread_mutex_lock(&P->mu);
		P->c[k].done = true;
		pthread_cond_broadcast(&P->cv);
		pthread_mutex_unlock(&P->mu);
	}
	sbuf_free(&buf);
	spaa_stack_free(&s);
	return NULL;
}

uint64_t spaa_par_stacks(spaa_reader *r, unsigned jobs, uint64_t min_bytes, const spaa_par_ops *ops)
{
	int fd;
	uint64_t at, end, least = BLOCK;
	/* (the tests' small files: SPAA_PAR_MIN=BYTES, chunks of any size) */
	const char *e = getenv("SPAA_PAR_MIN");
	if (e && *e) {
		min_bytes = strtoull(e, NULL, 10);
		least = 1;
	}
	if (!spaa_par_possible(r, jobs) || !input_plain_rest(r->in, &fd, &at, &end) || end < at ||
	    end - at < min_bytes || end - at < 2)
		return 0;
	uint64_t base = at - input_offset(r->in); /* file offset - input offset */
	struct par P = { .r = r, .ops = ops, .fd = fd, .end = end, .stop_at = UINT32_MAX,
			.max = input_max_line() };
	/* two chunks a thread (a thread that finds its share slow to read
	 * leaves the others more), each at least a block: no more, as each
	 * chunk sums the stacks it meets by key, and the merge takes its keys
	 * again: a file whose stacks repeat throughout has most of its keys
	 * in every chunk (a 342 MB one of 977,000 records, on 2 threads:
	 * spaa-top took 1.07x the CPU of one thread in 4 chunks, 1.21x in 8;
	 * spaa-fold 1.10x and 1.16x) */
	uint64_t rest = end - at;
	uint64_t n = (uint64_t)jobs * 2;
	if (n > rest / least) n = rest / least ? rest / least : 1;
	P.n = (uint32_t)n;
	P.c = xcalloc(P.n, sizeof *P.c);
	for (uint32_t k = 0; k < P.n; k++) {
		P.c[k].a = at + rest * k / P.n;
		P.c[k].b = at + rest * (k + 1) / P.n;
	}
	pthread_mutex_init(&P.mu, NULL);
	pthread_cond_init(&P.cv, NULL);
	pthread_t *th = xcalloc(jobs, sizeof *th);
	unsigned started = 0;
	for (unsigned i = 0; i < jobs; i++)
		if (pthread_create(&th[i], NULL, worker, &P) == 0) started++;
		else break;
	if (!started) worker(&P); /* no thread to be had: here */
	/* the chunks in order: merged up to the first that stopped */
	uint64_t lines = 0, resume = end;
	bool stopped = false;
	for (uint32_t k = 0; k < P.n; k++) {
		struct chunk *c = &P.c[k];
		pthread_mutex_lock(&P.mu);
		while (!c->done) pthread_cond_wait(&P.cv, &P.mu);
		pthread_mutex_unlock(&P.mu);
		if (!stopped && c->read && !ops->merge(ops->ctx, c->st)) {
			resume = c->first;
			stopped = true;
			pthread_mutex_lock(&P.mu);
			if (k < P.stop_at) P.stop_at = k;
			pthread_mutex_unlock(&P.mu);
		} else if (!stopped) {
			lines += c->lines;
			if (c->stopped) {
				resume = c->stop;
				stopped = true;
			}
		}
		if (c->read) {
			if (ops->chunk_free) ops->chunk_free(c->st);
			spaa_par_sums_free(c->st);
			free(c->st);
		}
	}
	for (unsigned i = 0; i < started; i++) pthread_join(th[i], NULL);
	free(th);
	free(P.c);
	pthread_mutex_destroy(&P.mu);
	pthread_cond_destroy(&P.cv);
	/* a read error is the reader's to say, where it meets it */
	if (!spaa_resume_at(r, resume - base, lines)) die(EXIT_DATA, "%s: cannot read on at byte %llu", r->name,
							    (unsigned long long)(resume - base));
	return resume - at;
}

/* ---- sums by stack ---------------------------------------------------- */

static void key_put(sbuf *k, const void *p, size_t n) { sbuf_add(k, p, n); }

static void key_str(sbuf *k, sstr s)
{
	uint32_t n = (uint32_t)s.n;
	key_put(k, &n, sizeof n);
	key_put(k, s.p, s.n);
}

void spaa_par_key(const spaa_stack *s, unsigned what, sbuf *k)
{
	unsigned has = (what & SPAA_KEY_EVENT) | (s->comm.p ? what & SPAA_KEY_COMM : 0) |
		       (s->has_pid ? what & SPAA_KEY_PID : 0) | (s->has_tid ? what & SPAA_KEY_TID : 0);
	k->n = 0;
	sbuf_addc(k, (char)has);
	if (has & SPAA_KEY_EVENT) key_str(k, s->event_name);
	if (has & SPAA_KEY_COMM) key_str(k, s->comm);
	if (has & SPAA_KEY_PID) key_put(k, &s->pid, sizeof s->pid);
	if (has & SPAA_KEY_TID) key_put(k, &s->tid, sizeof s->tid);
	key_put(k, s->frames, (size_t)s->nframes * sizeof *s->frames);
}

static sstr key_get_str(const char **p)
{
	uint32_t n;
	memcpy(&n, *p, sizeof n);
	sstr s = { *p + sizeof n, n };
	*p += sizeof n + n;
	return s;
}

const spaa_stack *spaa_par_unkey(spaa_stack *s, const char *p, size_t n)
{
	const char *e = p + n;
	unsigned has = (uint8_t)*p++;
	s->event = -1;
	s->event_name = has & SPAA_KEY_EVENT ? key_get_str(&p) : SSTR_NULL;
	s->comm = has & SPAA_KEY_COMM ? key_get_str(&p) : SSTR_NULL;
	s->has_pid = has & SPAA_KEY_PID;
	if (s->has_pid) {
		memcpy(&s->pid, p, sizeof s->pid);
		p += sizeof s->pid;
	}
	s->has_tid = has & SPAA_KEY_TID;
	if (s->has_tid) {
		memcpy(&s->tid, p, sizeof s->tid);
		p += sizeof s->tid;
	}
	s->nframes = 0;
	for (; p < e; p += sizeof(uint32_t)) {
		uint32_t f;
		memcpy(&f, p, sizeof f);
		*VEC_PUSH(s->frames, s->nframes, s->fcap) = f;
	}
	return s;
}

void spaa_par_sums_init(spaa_par_sums *t)
{
	memset(t, 0, sizeof *t);
	strmap_init(&t->keys);
}

void spaa_par_sums_free(spaa_par_sums *t)
{
	strmap_free(&t->keys);
	free(t->sum);
	sbuf_free(&t->key);
}

bool spaa_par_sums_add(spaa_par_sums *t, const char *key, size_t n, num w)
{
	bool added;
	uint32_t i = strmap_intern(&t->keys, key, n, &added);
	if (added) *VEC_PUSH(t->sum, t->nsum, t->cap) = num_i(0);
	num x = t->sum[i];
	if (!num_add(&x, w)) return false;
	t->sum[i] = x;
	t->abs = spaa_abs_add(t->abs, w);
	return true;
}

uint64_t spaa_abs_add(uint64_t a, num v)
{
	uint64_t m = v.kind == NUM_INT ? (v.i < 0 ? 0 - (uint64_t)v.i : (uint64_t)v.i)
		   : v.kind == NUM_UINT ? v.u : UINT64_MAX;
	return a > UINT64_MAX - m ? UINT64_MAX : a + m;
}
