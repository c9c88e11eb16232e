/* A vector of owned strings: argv and environments of child processes
 * (util/process.h), word lists. */
#ifndef FG_UTIL_STRVEC_H
#define FG_UTIL_STRVEC_H

#include <stdbool.h>
#include <stddef.h>

#include "util/strbuf.h"

/* A list of owned strings, NULL-terminated for execvp. A failed push is
 * sticky, as in fg_strbuf: later pushes do nothing and return FG_ENOMEM,
 * fg_strvec_failed() says so, and fg_cmd_run/_spawn (util/process.h)
 * refuse such a command with FG_ENOMEM; so a command may be built without
 * checking each push. */
typedef struct fg_strvec {
	char **v;
	size_t n, alloc;
	bool failed;
} fg_strvec;
#define FG_STRVEC_INIT { NULL, 0, 0, false }
static inline bool fg_strvec_failed(const fg_strvec *sv) { return sv->failed; }
int fg_strvec_push(fg_strvec *sv, const char *s);
int fg_strvec_pushf(fg_strvec *sv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int fg_strvec_pushv(fg_strvec *sv, const char *const *items, size_t n);
void fg_strvec_clear(fg_strvec *sv);
/* Splits s into words the way a shell would (quotes and backslashes), with
 * no expansion of any kind. FG_EPARSE for an unterminated quote. */
int fg_strvec_split(fg_strvec *sv, const char *s);
/* Appends argv quoted for display ("perf record -F 997 -- ./a 'x y'"). */
void fg_strvec_join_quoted(const fg_strvec *sv, fg_strbuf *out);

#endif
