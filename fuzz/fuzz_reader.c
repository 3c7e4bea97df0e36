/* fuzz_reader.c - libFuzzer target for the record reader: the input bytes
 * are written to a temporary file and read as SPAA (input.c line splitting,
 * json.c, spaa.c dictionaries, stack and sample parsing, stack identity).
 * Errors are reported through a handler that returns, as spaa-validate does,
 * so every path after an error is exercised too.  Build: make fuzz. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "spaa.h"

static void keep_going(spaa_reader *r, const char *msg)
{
	(void)r;
	(void)msg;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	/* Corrupt zstd or gzip data ends the program by design (die(), exit 1):
	 * leave compressed inputs to the bats tests. */
	if (size >= 2 && ((data[0] == 0x28 && data[1] == 0xb5) || (data[0] == 0x1f && data[1] == 0x8b)))
		return 0;
	char path[] = "/tmp/spaa-fuzz-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0) return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		unlink(path);
		return 0;
	}
	close(fd);
	spaa_reader *r = spaa_open(path);
	r->on_error = keep_going;
	spaa_stack s = { 0 };
	spaa_sample smp;
	enum spaa_rtype t;
	while ((t = spaa_next(r)) != SPAA_EOF) {
		if (t == SPAA_STACK && spaa_stack_parse(r, &s) == 0) {
			uint64_t id, path_id;
			spaa_stack_ids(r, &s, &id, &path_id);
		} else if (t == SPAA_SAMPLE) {
			spaa_sample_parse(r, &smp);
		}
	}
	spaa_stack_free(&s);
	spaa_close(r);
	unlink(path);
	return 0;
}
