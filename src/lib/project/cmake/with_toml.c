/* A flamegraph.toml beside a CMakeLists.txt augments the CMake project:
 * configure arguments and feature -> option names before CMake
 * runs, target kinds and run settings after it has listed the targets. */
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "lib/project/toml/tomlproj.h"
#include "util/banned.h"

/* "-DNAME=VALUE" or "NAME=VALUE" as opts.defines wants it. */
static const char *strip_d(const char *arg)
{
	return !strncmp(arg, "-D", 2) ? arg + 2 : arg;
}

static const char **pointers(const fg_strvec *v)
{
	const char **out = fg_calloc(v->n + 1, sizeof(*out));

	for (size_t i = 0; out && i < v->n; i++)
		out[i] = v->v[i];
	return out;
}

static void free_tomlproj(void *data)
{
	fg_tomlproj_free(data);
}

int fg_tomlproj_cmake_pre(fg_project *p)
{
	struct fg_tomlproj *tp = NULL;
	size_t i;
	int err = fg_tomlproj_read(p, p->loc.toml, true, &tp);

	if (err)
		return err;
	p->state = tp;
	p->state_free = free_tomlproj;
	/* later entries win in CMake: the manifest's, then the features', then
	 * the user's own -D */
	for (i = 0; !err && i < tp->cmake_args.n; i++) {
		if (strncmp(tp->cmake_args.v[i], "-D", 2))
			return fg_error_set(FG_EINVAL, "%s: [cmake] args entry '%s' is not a cache entry "
					    "— write \"-DNAME=VALUE\"", p->loc.toml, tp->cmake_args.v[i]);
		err = fg_strvec_push(&tp->defines, strip_d(tp->cmake_args.v[i]));
	}
	for (i = 0; !err && i < tp->cmake_options.n; i++)
		err = fg_strvec_push(&tp->defines, strip_d(tp->cmake_options.v[i]));
	for (i = 0; !err && i < p->opts.ndefines; i++)
		err = fg_strvec_push(&tp->defines, p->opts.defines[i]);
	if (err)
		return err;
	if (!(tp->define_ptrs = pointers(&tp->defines)) ||
	    !(tp->feature_ptrs = pointers(&tp->cmake_features)))
		return FG_ENOMEM;
	p->opts.defines = tp->define_ptrs;
	p->opts.ndefines = tp->defines.n;
	/* features the manifest maps are settled; CMake matches the rest */
	p->opts.features = tp->feature_ptrs;
	p->opts.nfeatures = tp->cmake_features.n;
	return 0;
}

static struct fg_target *find_cmake_target(fg_project *p, const char *name)
{
	struct fg_target *exe_match = NULL;

	for (size_t i = 0; i < p->ntargets; i++) {
		struct fg_target *t = &p->targets[i];
		if (!strcmp(t->name, name) && !t->ctest)
			return t;
		if (!exe_match && t->exe && !t->ctest && !strcmp(fg_path_base(t->exe), name))
			exe_match = t;
	}
	return exe_match;
}

static int copy_vec(fg_strvec *to, const fg_strvec *from)
{
	fg_strvec_clear(to);
	return fg_strvec_pushv(to, (const char *const *)from->v, from->n);
}

int fg_tomlproj_cmake_post(fg_project *p)
{
	struct fg_tomlproj *tp = p->state;
	int err = 0;

	if (!tp || !tp->overrides)
		return 0;
	for (size_t i = 0; !err && i < tp->overrides->ntargets; i++) {
		const struct fg_target *o = &tp->overrides->targets[i];
		struct fg_target *t = find_cmake_target(p, o->name);
		if (!t)
			return fg_error_set(FG_ENOTFOUND, "%s names %s '%s', but the CMake project has no "
					    "executable target of that name — fix the name or remove the "
					    "entry", p->loc.toml, fg_target_kind_name(o->kind), o->name);
		t->kind = o->kind;
		if (o->argv.n)
			err = copy_vec(&t->argv, &o->argv);
		if (!err && o->env.n)
			err = copy_vec(&t->env, &o->env);
		if (!err && o->cwd) {
			free(t->cwd);
			err = (t->cwd = fg_strdup(o->cwd)) ? 0 : FG_ENOMEM;
		}
		if (!err && o->missing_features.n)
			err = copy_vec(&t->missing_features, &o->missing_features);
		if (!err && o->filter) {
			free(t->filter);
			err = (t->filter = fg_strdup(o->filter)) ? 0 : FG_ENOMEM;
		}
	}
	return err;
}
