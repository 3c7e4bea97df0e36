/* registry.h - every format's reader, by the converter's name (TEMPORARY
 * in this branch: the readers' move supplies the real one). */
#ifndef SPAA_REGISTRY_H
#define SPAA_REGISTRY_H
#include <getopt.h>
typedef int reader_fn(int argc, char **argv);
typedef struct reader_def {
	const char *cmd;
	reader_fn *read;
	const struct option *longopts;
	const char *shortopts;
} reader_def;
extern const reader_def reader_defs[];
const reader_def *reader_named(const char *cmd);
#endif
