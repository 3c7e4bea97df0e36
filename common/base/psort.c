/* psort.c - sorting on threads (psort.h). */
#include <pthread.h>
#include <string.h>
#include "psort.h"
#include "util.h"

/* below this many records a run, one thread sorts faster than it starts
 * another */
enum { MIN_RUN = 4096, MAX_RUNS = 64 };

struct job {
	char *a, *b, *out;        /* sort a[0..na) (b NULL), or merge a, b into out */
	size_t na, nb, size;
	int (*cmp)(const void *, const void *);
};

static void *run(void *arg)
{
	struct job *j = arg;
	if (!j->b) {
		xqsort(j->a, j->na, j->size, j->cmp);
		return NULL;
	}
	char *a = j->a, *ae = a + j->na * j->size, *b = j->b, *be = b + j->nb * j->size, *o = j->out;
	while (a < ae && b < be) {
		/* a first on a tie: the earlier run's */
		if (j->cmp(b, a) < 0) {
			memcpy(o, b, j->size);
			b += j->size;
		} else {
			memcpy(o, a, j->size);
			a += j->size;
		}
		o += j->size;
	}
	memcpy(o, a, (size_t)(ae - a));
	o += ae - a;
	memcpy(o, b, (size_t)(be - b));
	return NULL;
}

/* The jobs, the first on this thread and the others on threads of their
 * own (on this one too when none can be had). */
static void run_all(struct job *jobs, size_t n)
{
	pthread_t th[MAX_RUNS];
	bool started[MAX_RUNS] = { false };
	for (size_t i = 1; i < n; i++) started[i] = pthread_create(&th[i], NULL, run, &jobs[i]) == 0;
	run(&jobs[0]);
	for (size_t i = 1; i < n; i++) {
		if (started[i]) pthread_join(th[i], NULL);
		else run(&jobs[i]);
	}
}

void psort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *), unsigned jobs)
{
	size_t runs = jobs;
	if (runs > MAX_RUNS) runs = MAX_RUNS;
	if (runs > n / MIN_RUN) runs = n / MIN_RUN;
	if (runs < 2) {
		xqsort(base, n, size, cmp);
		return;
	}
	/* the runs' bounds: run i is [start[i], start[i + 1]) */
	size_t start[MAX_RUNS + 1];
	for (size_t i = 0; i <= runs; i++) start[i] = n * i / runs;
	struct job j[MAX_RUNS];
	for (size_t i = 0; i < runs; i++)
		j[i] = (struct job){ (char *)base + start[i] * size, NULL, NULL, start[i + 1] - start[i], 0, size, cmp };
	run_all(j, runs);
	/* pairwise merges, round by round, from one buffer into the other */
	char *from = base, *tmp = xmalloc(n * size), *to = tmp;
	while (runs > 1) {
		size_t m = 0, next[MAX_RUNS + 1];
		for (size_t i = 0; i < runs; i += 2) {
			size_t lo = start[i], mid = start[i + 1 < runs ? i + 1 : runs], hi = start[i + 2 <= runs ? i + 2 : runs];
			j[m++] = (struct job){ from + lo * size, from + mid * size, to + lo * size, mid - lo, hi - mid, size, cmp };
		}
		run_all(j, m);
		for (size_t i = 0, k = 0; i <= runs; i += 2) next[k++] = start[i < runs ? i : runs];
		next[m] = n;
		memcpy(start, next, (m + 1) * sizeof *start);
		runs = m;
		char *t = from;
		from = to;
		to = t;
	}
	if (from != base) memcpy(base, from, n * size);
	free(tmp);
}
