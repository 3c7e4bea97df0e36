#include <string.h>
#include "registry.h"
int perf2spaa_main(int argc, char **argv) __attribute__((weak));
int folded2spaa_main(int argc, char **argv) __attribute__((weak));
int pprof2spaa_main(int argc, char **argv) __attribute__((weak));
static const struct option perf_opts[] = { { "symfs", required_argument, 0, 1 }, { "root", required_argument, 0, 1 },
	{ "kallsyms", required_argument, 0, 1 }, { "inline", no_argument, 0, 1 }, { "jobs", required_argument, 0, 'j' },
	{ "samples", no_argument, 0, 's' }, { 0, 0, 0, 0 } };
static const struct option none[] = { { "samples", no_argument, 0, 's' }, { 0, 0, 0, 0 } };
const reader_def reader_defs[] = {
	{ "perf2spaa", perf2spaa_main, perf_opts, "sj:q" },
	{ "folded2spaa", folded2spaa_main, none, "" },
	{ "pprof2spaa", pprof2spaa_main, none, "" },
	{ 0, 0, 0, 0 },
};
const reader_def *reader_named(const char *cmd)
{
	for (const reader_def *d = reader_defs; d->cmd; d++)
		if (strcmp(d->cmd, cmd) == 0) return d->read ? d : 0;
	return 0;
}
