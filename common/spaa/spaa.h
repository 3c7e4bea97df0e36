/* spaa.h - the SPAA 1.0 record model and a streaming reader.
 *
 * spaa_next() reads the next non-blank line, parses it (json.h) and tells its
 * type.  Header, dso, frame and thread records are taken into the reader's
 * dictionaries as they come (ids may be numbers or strings; each gets a dense
 * index), so that a stack's frames can be resolved to names at once.  The raw
 * line (r->line, r->len) is left intact for commands that pass records
 * through unchanged.
 *
 * Errors in the data go to r->on_error (default: die_at(), exit 1), with the
 * file name and line number.  A handler that returns lets the reader go on
 * (spaa-validate does that); the function that hit the error then returns -1.
 */
#ifndef SPAA_SPAA_H
#define SPAA_SPAA_H

#include <stdint.h>
#include <stdbool.h>
#include "util.h"
#include "num.h"
#include "json.h"
#include "input.h"
#include "strmap.h"

enum spaa_rtype {
	SPAA_EOF = 0, SPAA_HEADER, SPAA_DSO, SPAA_FRAME, SPAA_THREAD,
	SPAA_STACK, SPAA_SAMPLE, SPAA_WINDOW,
	SPAA_OTHER,   /* a valid object with an unknown "type" */
	SPAA_BAD      /* not a JSON object, or no "type" string (already reported) */
};
const char *spaa_rtype_name(enum spaa_rtype t);

enum spaa_fkind { FK_USER, FK_KERNEL, FK_UNKNOWN };

typedef struct spaa_event {
	char *name, *kind, *mode, *primary_metric; /* NULL when missing */
	size_t name_n;        /* strlen(name) */
} spaa_event;

typedef struct spaa_dso {
	char *name;
	uint32_t name_n;
	bool is_kernel;
} spaa_dso;

typedef struct spaa_frame {
	char *func;           /* "" when missing */
	uint32_t func_n, srcline_n;
	uint32_t dso;         /* index into r->dsos */
	uint8_t kind;         /* enum spaa_fkind */
	bool inlined, func_resolved;
	bool perf_nosym;      /* "x_perf_nosym": perf printed no symbol at all */
	bool perf_nochain;    /* "x_perf_no_callchain": the placeholder of a sample
			       * perf printed without frames */
	int32_t inline_depth; /* -1 when absent */
	char *srcline, *ip, *symoff; /* NULL when absent */
	uint64_t line;        /* where it was defined */
} spaa_frame;

typedef struct spaa_thread {
	int64_t pid, tid;
	char *comm;           /* NULL when absent */
} spaa_thread;

typedef struct spaa_weight {
	sstr metric, unit;    /* unit.p NULL when absent */
	num value;
} spaa_weight;

/* A parsed stack record; the arrays are reused between calls. Strings point
 * into the current line or the json_doc: valid until the next spaa_next(). */
typedef struct spaa_stack {
	sstr id;              /* the id as a key: decimal text for numbers, the string otherwise */
	uint32_t *frames;     /* indices into r->frames, in file order */
	uint32_t nframes, fcap;
	int32_t event;        /* index into r->events, -1 if not declared */
	sstr event_name, stack_type, comm; /* .p NULL when absent */
	uint32_t context;     /* json node of the context object */
	bool has_pid, has_tid, has_cpu;
	int64_t pid, tid, cpu;
	spaa_weight *w;
	uint32_t nw, wcap;
	uint32_t related;     /* json node of related_stacks (array of ids), 0 if none */
	bool has_excl;
	uint32_t excl_frame;  /* index into r->frames */
	spaa_weight *xw;
	uint32_t nxw, xwcap;
} spaa_stack;

typedef struct spaa_sample {
	sstr stack_id, event;
	bool has_ts, has_pid, has_tid, has_cpu, has_period;
	double timestamp;
	int64_t pid, tid, cpu;
	num period;
} spaa_sample;

typedef struct spaa_window {
	sstr id;
	bool has_start, has_end;
	double start, end;
	uint32_t by_stack;    /* json node of the by_stack array, 0 if none */
} spaa_window;

typedef struct spaa_reader spaa_reader;
typedef void (*spaa_error_fn)(spaa_reader *r, const char *msg);

struct spaa_reader {
	input *in;
	const char *name;     /* for messages */
	uint64_t lineno;
	char *line;
	size_t len;
	json_doc doc;
	enum spaa_rtype type;
	spaa_error_fn on_error;
	void *user;

	/* header */
	bool have_header, header_missing_said;
	bool not_spaa;        /* the first line is another format's (said once) */
	uint64_t header_line;
	bool leaf_first;      /* frame_order == "leaf_to_root" (the default when missing) */
	bool content_ids;     /* stack_id_mode == "content_addressable" */
	spaa_event *events;
	uint32_t nevents, evcap;
	bool has_time_range;
	double tr_start, tr_end;
	num tr_start_n, tr_end_n;  /* the same, integers exact */
	char *source_tool;    /* header.source_tool, NULL if absent */
	char *command;        /* header.source.command, NULL if absent */

	/* dictionaries: id key -> dense index */
	strmap dso_ids, frame_ids, thread_ids;
	/* a cache in front of dso_ids and frame_ids for ids that are small
	 * unsigned integers: direct[id] = index + 1, 0 when not cached */
	struct spaa_direct {
		uint32_t *ix, n;
		uint32_t missed; /* ids in the map that are not cached */
		/* indices 0..dense-1 have the ids base..base+dense-1 (ids
		 * written in order, as converters do): found without ix */
		uint32_t dense;
		uint64_t base;
	} dso_direct, frame_direct;
	/* the frame records the fast path took (spaa_fast_stacks) whose ids
	 * frame_direct holds, not in frame_ids yet: their ids, in order (their
	 * indices follow frame_ids.count); spaa_settle_frames() adds them */
	uint64_t *lazy_ids;
	uint32_t nlazy, lazycap;
	spaa_dso *dsos;
	spaa_frame *frames;
	spaa_thread *threads;
	uint32_t dcap, fcap, tcap;

	/* spaa_fast_stacks(): stack records in the builders' own layout are
	 * read into *fast_stack without the JSON parser; fast says the
	 * current record was (r->doc is then not filled) */
	struct spaa_stack *fast_stack;
	bool fast;
	/* when set, called by spaa_next() before it takes a record any other
	 * way than as a stack record on the fast path (a record that may change
	 * the header or the dictionaries, or be reported as wrong): a command
	 * that reads them from another thread waits for that thread there */
	void (*before_slow)(spaa_reader *r);

	/* spaa_open_builder: the records come from a profile in memory
	 * (NULL: from in), then the lines of extra */
	struct builder_cursor *bsrc;
	char *extra;
	size_t extra_n, extra_at;

	arena mem;            /* dictionary strings */
	sbuf msg;             /* scratch for messages */
};

/* Opens path ("-" for stdin). */
spaa_reader *spaa_open(const char *path);
/* A reader of the profile b (a format's reader filled it in process:
 * spaa_open_any), named name in messages, with extra[0..extra_n) (NULL
 * none: window records) after its records; takes b and extra.  Its records
 * are those builder_write would write, line numbers included; stack and
 * frame records go to a command that reads them on the fast path
 * (spaa_fast_stacks) without text (builder_cursor_next). */
/* A reader of an input already open (spaa_open_any looked at it). */
spaa_reader *spaa_open_input(input *in);
struct builder;
spaa_reader *spaa_open_builder(struct builder *b, const char *name, char *extra, size_t extra_n);
void spaa_close(spaa_reader *r);

/* Next record: its type, SPAA_EOF at the end.  Dictionaries and the header
 * are taken in automatically. */
enum spaa_rtype spaa_next(spaa_reader *r);

/* After the records: exits 1 with "FILE: no header record (empty input)"
 * if the input held none. */
void spaa_need_header(spaa_reader *r);

/* Reports an error at the current line through r->on_error. */
void spaa_error(spaa_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The id of node k as a map key ("12" for 12, "0xab" for "0xab"); false if
 * k is neither an integer nor a string. */
bool spaa_id_key(spaa_reader *r, uint32_t k, sstr *out);
/* The same for node k of any document (a filter's own parse of a line). */
bool spaa_id_text(const json_doc *d, uint32_t k, sstr *out);

/* From now on, spaa_next() reads the stack records written in the layout
 * the converters write (build.h: "type", "id", "frames", "stack_type",
 * "context" of event, pid, tid, comm, "weights", "exclusive", "x_path_id",
 * in that order, plain strings, integer weights) straight into *s, as
 * spaa_stack_parse() would, and their frame records as the JSON path takes
 * them in, and sets r->fast; any other record (or any
 * doubt) goes through the JSON parser as before, with r->fast false.  The
 * same records are accepted with the same meaning either way. */
void spaa_fast_stacks(spaa_reader *r, struct spaa_stack *s);
/* On the fast path, a frame record with a small integer id goes into
 * r->frames and frame_direct only, not into frame_ids (hashing a key per
 * frame was most of the cost of frame records): the reader adds them
 * before a record that needs frame_ids (a frame or stack record off the
 * fast path), and a command that reads frame_ids after spaa_fast_stacks()
 * calls this first.  The number of frames is spaa_frame_count() meanwhile. */
void spaa_settle_frames(spaa_reader *r);
static inline uint32_t spaa_frame_count(const spaa_reader *r)
{
	return r->frame_ids.count + r->nlazy;
}

/* For commands that read the stack records of a file on threads
 * (spaapar.h): is line[0..len) (its newline off, a CR may end it) a stack
 * record the fast path takes?  If so it is parsed into *s as spaa_next()
 * would.  It reads r's header and dictionaries, and changes nothing in r. */
bool spaa_stack_fast_line(const spaa_reader *r, spaa_stack *s, const char *line, size_t len);
/* Goes on reading at input offset off (input_offset), lines lines after
 * where the last record was read (the records between were read another
 * way); false when the input cannot go there. */
bool spaa_resume_at(spaa_reader *r, uint64_t off, uint64_t lines);

/* Parse the current stack/sample record.  0 ok, -1 on error (reported). */
int spaa_stack_parse(spaa_reader *r, spaa_stack *s);
int spaa_sample_parse(spaa_reader *r, spaa_sample *s);
int spaa_window_parse(spaa_reader *r, spaa_window *w);
/* One entry of a window's by_stack array (node k): its stack id and weights
 * (into *ws, grown as needed).  0 ok, -1 on error (reported). */
int spaa_window_entry(spaa_reader *r, uint32_t k, sstr *stack_id, spaa_weight **ws,
		      uint32_t *nw, uint32_t *cap);
void spaa_stack_free(spaa_stack *s);

/* Event index by name, -1 if absent. */
int32_t spaa_event_find(const spaa_reader *r, const char *name, size_t n);
/* The weight of metric in ws[0..n), NULL if absent. */
const spaa_weight *spaa_weight_find(const spaa_weight *ws, uint32_t n, const char *metric);
/* Frame index of the i-th frame counted from the root (0 = root). */
static inline uint32_t spaa_stack_root_frame(const spaa_reader *r, const spaa_stack *s, uint32_t i)
{
	return r->leaf_first ? s->frames[s->nframes - 1 - i] : s->frames[i];
}
static inline uint32_t spaa_stack_leaf(const spaa_reader *r, const spaa_stack *s)
{
	return r->leaf_first ? s->frames[0] : s->frames[s->nframes - 1];
}
/* The content ids (stackid.h) of a parsed stack. */
void spaa_stack_ids(const spaa_reader *r, const spaa_stack *s, uint64_t *id, uint64_t *path_id);

#endif
