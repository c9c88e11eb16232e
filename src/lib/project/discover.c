/* Manifest discovery: each folder from the start one up to / is offered
 * to the build systems in the order of fg_build_systems (systems.c), and
 * the first that recognises a manifest there names the project. What a
 * kind recognises, and where its project's top is, is the kind's own
 * (its detect operation); here are the walk and the helpers they share. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/project/project.h"
#include "lib/project/system.h"
#include "util/input.h"
#include "util/banned.h"

void fg_manifest_loc_release(fg_manifest_loc *loc)
{
	free(loc->file);
	free(loc->root);
	free(loc->toml);
	loc->file = loc->root = loc->toml = NULL;
}

int fg_manifest_loc_set(fg_manifest_loc *out, fg_manifest_type type, const char *dir,
			const char *file)
{
	out->type = type;
	out->root = fg_strdup(dir);
	out->file = fg_path_join(dir, file);
	return out->root && out->file ? 0 : FG_ENOMEM;
}

int fg_manifest_detect_names(fg_manifest_loc *out, fg_manifest_type type, const char *dir,
			     const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fg_dir_has_file(dir, names[i]))
			return fg_manifest_loc_set(out, type, dir, names[i]) ? FG_ENOMEM : 1;
	return 0;
}

int fg_manifest_detect_base(fg_manifest_loc *out, fg_manifest_type type, const char *dir,
			    const char *base, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(base, names[i]))
			return fg_manifest_loc_set(out, type, dir, base) ? FG_ENOMEM : 1;
	return 0;
}

bool fg_dir_has_file(const char *dir, const char *name)
{
	char *path = fg_path_join(dir, name);
	bool ok = path && fg_path_is_file(path);

	free(path);
	return ok;
}

char *fg_dir_parent(const char *dir)
{
	const char *s = strrchr(dir, '/');
	if (!s || s == dir)
		return s && dir[1] ? fg_strdup("/") : NULL;
	return fg_strndup(dir, (size_t)(s - dir));
}

char *fg_manifest_top(const char *dir, const char *file, bool (*calls)(const char *dir))
{
	char *best = fg_strdup(dir), *cur = fg_strdup(dir);

	while (cur) {
		if (!fg_dir_has_file(cur, file))
			break;
		if (calls(cur)) {
			free(best);
			best = fg_strdup(cur);
		}
		char *up = fg_dir_parent(cur);
		free(cur);
		cur = up;
	}
	free(cur);
	return best;
}

/* The manifests of dir, tried kind by kind. 1 when found. */
static int try_dir(fg_manifest_loc *out, const char *dir, bool climb, fg_strbuf *looked)
{
	for (size_t i = 0; fg_build_systems[i]; i++) {
		int r = fg_build_systems[i]->detect(out, dir, climb);
		if (r)
			return r;
	}
	fg_strbuf_addf(looked, "\n  %s", dir);
	return 0;
}

static int from_file(fg_manifest_loc *out, const char *path)
{
	const char *base = fg_path_base(path);
	char *dir = fg_dir_parent(path);
	int r = 0;

	if (!dir)
		return FG_ENOMEM;
	for (size_t i = 0; !r && fg_build_systems[i]; i++)
		if (fg_build_systems[i]->detect_file)
			r = fg_build_systems[i]->detect_file(out, dir, base);
	free(dir);
	if (r == 1)
		return 0;
	if (r)
		return r;
	fg_strbuf names = FG_STRBUF_INIT;
	fg_build_systems_manifests(&names);
	if (!(r = fg_strbuf_check(&names)))
		r = fg_error_set(FG_EINVAL, "%s is not a manifest — `opts.manifest_path` takes a %s, "
				 "or a folder holding one (a Meson build folder too)", path, names.buf);
	fg_strbuf_release(&names);
	return r;
}

static int none_found(const fg_strbuf *looked)
{
	fg_strbuf names = FG_STRBUF_INIT;
	int err;

	fg_build_systems_manifests(&names);
	if (!(err = fg_strbuf_check(&names)))
		err = fg_error_set(FG_ENOTFOUND, "no %s found; looked in:%s\n— run it inside a C "
				   "project or point `opts.manifest_path` at one", names.buf, looked->buf);
	fg_strbuf_release(&names);
	return err;
}

int fg_manifest_first_in(const char *dir, fg_manifest_type *type)
{
	fg_manifest_loc loc = FG_MANIFEST_LOC_INIT;
	fg_strbuf looked = FG_STRBUF_INIT;
	int r = try_dir(&loc, dir, false, &looked);

	if (r == 1)
		*type = loc.type;
	fg_manifest_loc_release(&loc);
	fg_strbuf_release(&looked);
	return r;
}

int fg_manifest_find(fg_manifest_loc *out, const char *path, bool explicit_path)
{
	fg_strbuf looked = FG_STRBUF_INIT;
	char *dir = NULL;
	int r = 0;

	memset(out, 0, sizeof(*out));
	dir = realpath(path && *path ? path : ".", NULL);
	if (!dir) {
		r = fg_error_set(FG_ENOTFOUND, "%s does not exist — check the `opts.manifest_path`", path);
		goto done;
	}
	if (explicit_path && fg_path_is_file(dir)) {
		r = from_file(out, dir);
		goto done;
	}
	while (dir) {
		if ((r = try_dir(out, dir, !explicit_path, &looked)) != 0)
			break;
		char *up = explicit_path ? NULL : fg_dir_parent(dir);
		free(dir);
		dir = up;
	}
	if (r == 1)
		r = 0;
	else if (!r)
		r = none_found(&looked);
done:
	if (r)
		fg_manifest_loc_release(out);
	free(dir);
	fg_strbuf_release(&looked);
	return r;
}
