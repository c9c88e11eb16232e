/* CMake projects (src/lib/project/cmake): configured into the flamegraph
 * build folder, read from the File API replies the configure writes and
 * from `ctest --show-only`, built with cmake --build. A flamegraph.toml
 * beside the CMakeLists.txt adds features, profiles and target tables
 * (with_toml.c). */
#ifndef FG_LIB_PROJECT_CMAKE_CMAKE_H
#define FG_LIB_PROJECT_CMAKE_CMAKE_H

#include <cjson/cJSON.h>

#include "flamegraph/builder.h"
#include "lib/project/project.h"

/* A CMake File API reply file held in memory: its name in the reply
 * folder (.cmake/api/v1/reply) and its JSON text. */
typedef struct fg_cmake_reply {
	const char *name;
	const char *data;
	size_t len;
} fg_cmake_reply;

/* Reads a configured CMake project's targets from reply files in memory
 * instead of p->build_dir: the newest index-*.json, its cache-v2 reply
 * (BOOL options, p->opts.features resolved into -D switches as the
 * configure step does) and its codemodel-v2 reply with the target
 * replies it names (executables; p->opts.package applied). A file named
 * "ctest.json" stands for the output of `ctest --show-only=json-v1`
 * (tests become targets). Errors as fg_cmake_read. */
int fg_cmake_read_replies(fg_project *p, const fg_cmake_reply *files, size_t n);

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

/* Opening (system.c): fg_tomlproj_cmake_pre, before the configure, turns
 * a flamegraph.toml beside the CMakeLists.txt into -D entries
 * (p->opts.defines/features are pointed at arrays owned by
 * p->state); fg_cmake_configure (re)configures p->build_dir when
 * its arguments changed since the last configure (configure.c);
 * fg_cmake_read reads the File API replies and `ctest
 * --show-only=json-v1`; fg_tomlproj_cmake_post then applies the toml's
 * [[bin]]/[[test]]/... tables to those targets. fg_cmake_build builds a
 * target (build.c). */
int fg_tomlproj_cmake_pre(fg_project *p);
int fg_cmake_configure(fg_project *p);
int fg_cmake_read(fg_project *p);
int fg_tomlproj_cmake_post(fg_project *p);
int fg_cmake_build(fg_project *p, const struct fg_target *t, fg_build_result *res);

/* The CMake File API, for the configure step (configure.c):
 *  - fg_cmake_write_queries asks for codemodel-v2 and cache-v2 replies in
 *    p->build_dir (FG_EIO);
 *  - fg_cmake_has_reply: whether a configure has answered them yet;
 *  - fg_cmake_load_cache: the newest cache-v2 reply (cJSON_Delete it), or
 *    NULL with the error set;
 *  - fg_cmake_cache_value: the value of cache entry `name`, or NULL;
 *  - fg_cmake_cache_defaults: the cache's BOOL entries as "\nNAME=ON\n..."
 *    (malloc'd), the defaults a first configure chose;
 *  - fg_cmake_feature_args resolves p->opts' features against the cache's
 *    BOOL options (kept in p->bool_options) into -DNAME=ON|OFF entries
 *    appended to args; feature-like options not asked for get their
 *    default from `defaults`. FG_EINVAL (listing the options) for an
 *    unknown feature;
 *  - fg_cmake_features_in_cache: whether every -DNAME=VALUE of
 *    args[from..] already is the cache's value. */
struct cJSON;
int fg_cmake_write_queries(const fg_project *p);
bool fg_cmake_has_reply(const fg_project *p);
struct cJSON *fg_cmake_load_cache(const fg_project *p);
const char *fg_cmake_cache_value(const struct cJSON *cache, const char *name);
char *fg_cmake_cache_defaults(const struct cJSON *cache);
int fg_cmake_feature_args(fg_project *p, const struct cJSON *cache, const char *defaults,
			  fg_strvec *args);
bool fg_cmake_features_in_cache(const struct cJSON *cache, const fg_strvec *args, size_t from);

#endif
