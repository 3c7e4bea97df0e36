/* jsonbuf.h - compact JSON text of a parsed node into a memory buffer (the
 * same text jw_node() writes to an output), for keys and for records that
 * are kept in memory. */
#ifndef SPAA_JSONBUF_H
#define SPAA_JSONBUF_H

#include "json.h"
#include "util.h"

/* A JSON string with quotes, escaped as jw_str() does; bytes that are not
 * valid UTF-8 become U+FFFD. */
void jb_str(sbuf *b, const char *s, size_t n);
/* Node k of d and its subtree, compactly; numbers with their original text. */
void jb_node(sbuf *b, const json_doc *d, uint32_t k);

#endif
