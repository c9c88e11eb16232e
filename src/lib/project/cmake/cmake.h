/* The CMake reader's own internals (src/lib/manifest/cmake*.c). */
#ifndef FG_LIB_MANIFEST_CMAKE_IMPL_H
#define FG_LIB_MANIFEST_CMAKE_IMPL_H

#include <cjson/cJSON.h>

#include "lib/project/project.h"

/* Reply files held in memory (fg_cmake_read_replies); NULL everywhere
 * else, where they are read from the build folder's reply folder. */
struct fg_cmake_replies {
	const fg_cmake_reply *files;
	size_t n;
};

static inline const char *jstr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The reply file `name` (as another reply names it), or NULL with the
 * error set. */
cJSON *fg_cmake_reply_json(const fg_project *p, const struct fg_cmake_replies *mem,
			   const char *name);
/* The in-memory file `name`, or NULL with the error set (FG_ENOTFOUND). */
cJSON *fg_cmake_mem_json(const struct fg_cmake_replies *mem, const char *name);
/* The newest index's reply of `kind` ("codemodel", "cache"), or NULL with
 * the error set (FG_EPARSE: no reply). */
cJSON *fg_cmake_load_reply(const fg_project *p, const struct fg_cmake_replies *mem,
			   const char *kind);

#endif
