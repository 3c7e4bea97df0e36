/* reader.h - the end of a format's reader: the profile it built in memory
 * (build.h), written as SPAA by the converter, or handed to the command
 * that reads the format in process (every reading command takes every
 * format: see readers/registry.h).  Extra records a reader adds after the
 * builder's own (windows) go through reader_extra(). */
#ifndef SPAA_READER_H
#define SPAA_READER_H

#include <stdbool.h>
#include "build.h"
#include "output.h"

/* Takes b: in a converter, writes it to outpath (NULL or "-": standard
 * output; zstd: compressed) and frees it; while a command captures
 * (reader_capture), keeps it for that command. */
void reader_finish(builder *b, const char *outpath, bool zstd);

/* Writes records that follow the builder's (window records): called by a
 * reader between reader_begin_extra() and reader_finish() with the output
 * it gets; while a command captures they are kept in memory and read after
 * the builder's records. */
typedef void reader_extra_fn(output *o, void *ctx);
void reader_extra(reader_extra_fn *fn, void *ctx);

/* From now on reader_finish() keeps the builder instead of writing it:
 * reader_captured() then gives it (NULL if none was finished) and the
 * extra records' text (NUL-terminated, NULL if none; the caller frees
 * both), and ends the capture. */
void reader_capture(void);
builder *reader_captured(char **extra, size_t *extra_n);

#endif
