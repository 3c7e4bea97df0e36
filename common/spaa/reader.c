/* reader.c - the end of a format's reader: written, or kept for the
 * command that reads the format in process (reader.h). */
#include <stdlib.h>
#include "reader.h"

static struct {
	bool on;
	builder *b;
	reader_extra_fn *extra;
	void *extra_ctx;
	char *text;
	size_t text_n;
} R;

void reader_extra(reader_extra_fn *fn, void *ctx)
{
	R.extra = fn;
	R.extra_ctx = ctx;
}

void reader_finish(builder *b, const char *outpath, bool zstd)
{
	if (R.on) {
		R.b = b;
		if (R.extra) {
			output *o = output_open_mem();
			R.extra(o, R.extra_ctx);
			R.text = output_close_mem(o, &R.text_n);
		}
		R.extra = NULL;
		return;
	}
	output *o = output_open(outpath, zstd);
	builder_write(b, o);
	if (R.extra) R.extra(o, R.extra_ctx);
	R.extra = NULL;
	output_close(o);
	builder_free(b);
}

void reader_capture(void)
{
	R.on = true;
	R.b = NULL;
	R.text = NULL;
	R.text_n = 0;
}

builder *reader_captured(char **extra, size_t *extra_n)
{
	builder *b = R.b;
	*extra = R.text;
	*extra_n = R.text_n;
	R.on = false;
	R.b = NULL;
	R.text = NULL;
	return b;
}
