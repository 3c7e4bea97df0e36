/* registry.c - every format's reader, by the name of its converter. */
#include <stddef.h>
#include <string.h>
#include "readers.h"
#include "registry.h"

#define READER(name) { #name "2spaa", name##_read, name##_longopts, name##_shortopts }

const reader_def reader_defs[] = {
	READER(perf),
	READER(dtrace),
	READER(bpftrace),
	READER(folded),
	READER(chrome),
	READER(pprof),
	READER(heaptrack),
	READER(spall),
	READER(spx),
	READER(afperf),
	READER(speedscope),
	READER(stackprof),
	READER(valgrind),
	READER(gecko),
	READER(instruments),
	READER(pmcstat),
	READER(v8log),
	READER(ghcprof),
	READER(safari),
	READER(pstats),
	READER(jfr),
	{ NULL, NULL, NULL, NULL }
};

const reader_def *reader_named(const char *cmd)
{
	for (const reader_def *r = reader_defs; r->cmd; r++)
		if (strcmp(r->cmd, cmd) == 0) return r;
	return NULL;
}
