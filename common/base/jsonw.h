/* jsonw.h - writing compact JSON to an output: escaped strings, exact
 * numbers, and whole parsed subtrees (for fields kept unchanged). */
#ifndef SPAA_JSONW_H
#define SPAA_JSONW_H

#include "json.h"
#include "num.h"
#include "output.h"

/* A JSON string with quotes: '"' '\\' and control characters escaped
 * (\n \r \t \b \f, others \u00XX); other bytes, UTF-8 included, as they are.
 * Bytes that are not valid UTF-8, and NUL (utf8.h), are written as U+FFFD. */
void jw_str(output *o, const char *s, size_t n);
static inline void jw_strc(output *o, const char *s) { jw_str(o, s, strlen(s)); }
/* "key": (with the comma before it unless first) */
void jw_key(output *o, const char *key, bool first);
void jw_num(output *o, num v);
/* Re-serialises node k of d (and its subtree) compactly; numbers are written
 * with their original text. */
void jw_node(output *o, const json_doc *d, uint32_t k);

#endif
