/* compile_commands.json projects: each entry becomes a compile
 * unit whose command is rerun into the flamegraph build directory with
 * `-g -fno-omit-frame-pointer` appended last; every unit whose object
 * defines main becomes a target. link.c compiles the units and reads
 * their symbol tables between fg_compdb_load and fg_compdb_add_targets
 * (system.c says why). */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "flamegraph/error.h"
#include "lib/project/toml/toml.h"
#include "lib/project/compdb/compdb.h"
#include "util/hashmap.h"
#include "util/input.h"
#include "util/banned.h"

/* Options whose value is the next word. */
static const char *const with_value[] = {
	"-I", "-D", "-U", "-include", "-imacros", "-isystem", "-iquote", "-idirafter",
	"-isysroot", "-iprefix", "-iwithprefix", "-iwithprefixbefore", "-x", "-Xpreprocessor",
	"-Xassembler", "-Xclang", "-arch", "-target", "-aux-info", "--param", "--sysroot",
	"-MF", "-MT", "-MQ", "-MJ", "-o", "-L", "-l", "-Xlinker", "-T", "-u", "-z", "-e", NULL
};

/* Of those, the ones dropped from our compile with their value: outputs
 * that would land in the user's tree, and link-only options. */
static const char *const dropped_with_value[] = {
	"-MF", "-MT", "-MQ", "-MJ", "-o", "-L", "-l", "-Xlinker", "-T", "-u", "-z", "-e", NULL
};

static bool is_source_ext(const char *ext)
{
	static const char *const exts[] = { "c", "cc", "cpp", "cxx", "c++", "C", "m", "mm",
					    "s", "S", "i", "ii", "cu", NULL };
	return fg_str_in_list(exts, ext);
}

static bool is_link_input(const char *path)
{
	const char *ext = fg_path_ext(path);
	return !strcmp(ext, "o") || !strcmp(ext, "a") || !strcmp(ext, "lo") || !strcmp(ext, "obj") ||
	       strstr(fg_path_base(path), ".so") != NULL;
}

/* Options that only matter when linking: kept for an entry that links. */
static bool is_link_flag(const char *a)
{
	return !strncmp(a, "-l", 2) || !strncmp(a, "-L", 2) || !strncmp(a, "-Wl,", 4) ||
	       !strcmp(a, "-static") || !strcmp(a, "-rdynamic") || !strcmp(a, "-pie") ||
	       !strcmp(a, "-no-pie") || !strncmp(a, "-fuse-ld=", 9) || !strcmp(a, "-s");
}

/* Options dropped from our compile: compile-mode switches (we add -c),
 * and dependency outputs that would write into the user's tree (the
 * compile engine adds its own -MMD). */
static bool is_dropped_flag(const char *a)
{
	return !strcmp(a, "-c") || !strcmp(a, "-S") || !strcmp(a, "-E") || !strcmp(a, "-M") ||
	       !strcmp(a, "-MM") || !strcmp(a, "-MD") || !strcmp(a, "-MMD") || !strcmp(a, "-MP") ||
	       !strncmp(a, "-Wp,-M", 6) || !strncmp(a, "-save-temps", 11) || !strcmp(a, "-shared");
}

/* An executable name, not an object: no extension, or one executables
 * carry. Entries that compile and link in one step write these. */
static bool is_exe_name(const char *path)
{
	static const char *const exts[] = { "", "exe", "out", "elf", "bin", NULL };
	return fg_str_in_list(exts, fg_path_ext(path));
}

static char *absolute_in(const char *dir, const char *path)
{
	char *joined = fg_path_join(dir, path), *real;

	if (!joined)
		return NULL;
	real = realpath(joined, NULL);
	if (real) {
		free(joined);
		return real;
	}
	return joined;
}

/* One entry, read from the JSON. */
struct entry {
	char *dir;        /* absolute, existing (after relocation) */
	char *source;     /* absolute */
	char *output;     /* as written, or NULL */
	fg_strvec argv;   /* as recorded, relocated */
	const char *old_dir; /* the recorded folder when relocated, else NULL */
};

static void entry_release(struct entry *e)
{
	free(e->dir);
	free(e->source);
	free(e->output);
	fg_strvec_clear(&e->argv);
	memset(e, 0, sizeof(*e));
}

/* Replaces `from` (a folder, as a whole path prefix) with `to` inside s. */
static char *replace_dir(const char *s, const char *from, const char *to)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	size_t n = strlen(from);
	const char *hit;

	while ((hit = strstr(s, from))) {
		if (hit[n] != '/' && hit[n] != '\0') {
			fg_strbuf_add(&sb, s, (size_t)(hit - s) + 1);
			s = hit + 1;
			continue;
		}
		fg_strbuf_add(&sb, s, (size_t)(hit - s));
		fg_strbuf_addstr(&sb, to);
		s = hit + n;
	}
	fg_strbuf_addstr(&sb, s);
	return fg_strbuf_detach(&sb, NULL);
}

/* A recorded folder that does not exist here (a database checked in from
 * another machine): the longest tail of it that exists under the json's
 * own folder and holds the entry's file (the json's folder itself being
 * the shortest tail); NULL when none does. */
static char *relocate(const char *json_dir, const char *recorded, const char *file)
{
	size_t n = strlen(recorded);
	const char *tail = recorded, *rel = file;

	if (file[0] == '/')
		rel = !strncmp(file, recorded, n) && file[n] == '/' ? file + n + 1 : fg_path_base(file);
	for (;;) {
		while (*tail == '/')
			tail++;
		char *cand = fg_path_join(json_dir, tail);
		char *src = cand ? fg_path_join(cand, rel) : NULL;
		bool ok = src && fg_path_is_file(src) && fg_path_is_dir(cand);
		free(src);
		if (ok)
			return cand;
		free(cand);
		if (!*tail)
			return NULL;
		tail = strchr(tail, '/');
		if (!tail)
			tail = "";
	}
}

static int entry_error(const fg_project *p, size_t i, const char *what)
{
	return fg_error_set(FG_EPARSE, "%s: entry %zu %s — regenerate the file (bear -- make, "
			    "cmake -DCMAKE_EXPORT_COMPILE_COMMANDS=ON, meson) or fix the entry",
			    p->loc.file, i + 1, what);
}

static int read_argv(fg_strvec *argv, const cJSON *j, const fg_project *p, size_t i)
{
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(j, "arguments");
	const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(j, "command");
	const cJSON *a;

	if (cJSON_IsArray(args)) {
		cJSON_ArrayForEach(a, args) {
			if (!cJSON_IsString(a))
				return entry_error(p, i, "has a non-string in \"arguments\"");
			if (fg_strvec_push(argv, a->valuestring))
				return FG_ENOMEM;
		}
	} else if (cJSON_IsString(cmd)) {
		if (fg_strvec_split(argv, cmd->valuestring))
			return entry_error(p, i, "has an unterminated quote in \"command\"");
	} else
		return entry_error(p, i, "has neither \"arguments\" nor \"command\"");
	if (!argv->n)
		return entry_error(p, i, "has an empty command");
	return 0;
}

static const char *jstr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Reads entry idx; a relocation is said once per recorded folder. */
static int parse_entry(struct entry *e, const cJSON *j, fg_project *p, size_t idx,
		       const char *json_dir, fg_strmap *said)
{
	const char *dir = jstr(j, "directory"), *file = jstr(j, "file"), *out = jstr(j, "output");
	int err;

	if (!cJSON_IsObject(j))
		return entry_error(p, idx, "is not an object");
	if (!dir || !file)
		return entry_error(p, idx, dir ? "has no \"file\"" : "has no \"directory\"");
	if ((err = read_argv(&e->argv, j, p, idx)))
		return err;
	if (dir[0] != '/')
		e->dir = absolute_in(json_dir, dir);
	else if (fg_path_is_dir(dir))
		e->dir = fg_strdup(dir);
	else if ((e->dir = relocate(json_dir, dir, file))) {
		fg_strmap_entry *s = fg_strmap_put(said, dir, strlen(dir));
		if (!s)
			return FG_ENOMEM;
		if (!s->value.u++)
			fg_project_note(p, "%s records folder %s, which does not exist here: using %s "
					"(relative to the file's own folder)", fg_path_base(p->loc.file),
					dir, e->dir);
		e->old_dir = s->key;
	} else
		return fg_error_set(FG_ENOTFOUND, "%s: entry %zu: folder %s does not exist, and nothing "
				    "matching it was found under %s — regenerate the file here "
				    "(bear -- make)", p->loc.file, idx + 1, dir, json_dir);
	if (!e->dir)
		return FG_ENOMEM;
	if (e->old_dir) {
		for (size_t k = 0; k < e->argv.n; k++) {
			char *r = replace_dir(e->argv.v[k], e->old_dir, e->dir);
			if (!r)
				return FG_ENOMEM;
			free(e->argv.v[k]);
			e->argv.v[k] = r;
		}
	}
	char *f = e->old_dir ? replace_dir(file, e->old_dir, e->dir) : fg_strdup(file);
	if (!f)
		return FG_ENOMEM;
	e->source = absolute_in(e->dir, f);
	free(f);
	if (out && !(e->output = e->old_dir ? replace_dir(out, e->old_dir, e->dir) : fg_strdup(out)))
		return FG_ENOMEM;
	return e->source ? 0 : FG_ENOMEM;
}

/* Options naming files or folders, which are made absolute: the
 * compiler then writes absolute paths into the -MMD dependency list, and
 * the up-to-date check does not depend on the folder it runs from. */
static const char *const path_opts[] = { "-I", "-isystem", "-iquote", "-idirafter",
					 "-include", "-imacros", NULL };

/* The path option a joined argument ("-Isrc") starts with, or NULL. */
static const char *path_prefix(const char *a)
{
	static const char *const joined[] = { "-isystem", "-iquote", "-idirafter", "-I", NULL };
	for (size_t i = 0; joined[i]; i++)
		if (!strncmp(a, joined[i], strlen(joined[i])) && a[strlen(joined[i])])
			return joined[i];
	return NULL;
}

/* Pushes prefix + path, the path made absolute in `dir` unless dir is
 * NULL or the path already is. */
static int push_path(fg_strvec *out, const char *prefix, const char *dir, const char *path)
{
	if (!dir || path[0] == '/')
		return fg_strvec_pushf(out, "%s%s", prefix, path);
	return fg_strvec_pushf(out, "%s%s%s%s", prefix, dir,
			       dir[strlen(dir) - 1] == '/' ? "" : "/", path);
}

/* Splits the recorded command into our compile (into `object`, debug info
 * and frame pointers last) and, for an entry that links, its link flags.
 * The -o output is returned in *output unless the entry gave one. */
static int rewrite(const struct entry *e, fg_strvec *compile, fg_strvec *link, char **output)
{
	const fg_strvec *in = &e->argv;
	bool have_source = false;
	const char *pfx;
	int err = fg_strvec_push(compile, in->v[0]);

	for (size_t i = 1; !err && i < in->n; i++) {
		const char *a = in->v[i];
		if (a[0] == '-' && fg_str_in_list(with_value, a) && i + 1 < in->n) {
			const char *v = in->v[++i];
			if (!strcmp(a, "-o")) {
				if (!*output && !(*output = fg_strdup(v)))
					err = FG_ENOMEM;
			} else if (!strcmp(a, "-l") || !strcmp(a, "-L") || !strcmp(a, "-Xlinker")) {
				if (!(err = fg_strvec_push(link, a)))
					err = fg_strvec_push(link, v);
			} else if (!fg_str_in_list(dropped_with_value, a)) {
				if (!(err = fg_strvec_push(compile, a)))
					err = push_path(compile, "", fg_str_in_list(path_opts, a) ? e->dir : NULL, v);
			}
		} else if (a[0] == '-' && !strncmp(a, "-o", 2) && a[2]) {
			if (!*output && !(*output = fg_strdup(a + 2)))
				err = FG_ENOMEM;
		} else if (a[0] == '-' && (pfx = path_prefix(a))) {
			err = push_path(compile, pfx, e->dir, a + strlen(pfx));
		} else if (a[0] == '-' && is_link_flag(a)) {
			err = fg_strvec_push(link, a);
		} else if (a[0] == '-') {
			if (!strcmp(a, "-pthread"))
				err = fg_strvec_push(link, a);
			if (!err && !is_dropped_flag(a))
				err = fg_strvec_push(compile, a);
		} else if (is_source_ext(fg_path_ext(a))) {
			/* the entry's own source stays; the other sources of a
			 * multi-file command have entries of their own */
			char *abs = absolute_in(e->dir, a);
			if (abs && !strcmp(abs, e->source) && !have_source) {
				have_source = true;
				err = fg_strvec_push(compile, e->source);
			}
			free(abs);
		} else if (is_link_input(a)) {
			char *abs = absolute_in(e->dir, a);
			err = abs ? fg_strvec_push(link, abs) : FG_ENOMEM;
			free(abs);
		} else
			err = fg_strvec_push(compile, a);
	}
	if (!err && !have_source)
		err = fg_strvec_push(compile, e->source);
	return err;
}

/* <build>/obj/<source relative to the root>.o, and -N before .o for the
 * same source compiled again with other flags. */
static char *object_path(const fg_project *p, const char *source, fg_strmap *seen)
{
	size_t n = strlen(p->loc.root);
	const char *rel = !strncmp(source, p->loc.root, n) && source[n] == '/' ? source + n + 1 : source;
	fg_strmap_entry *s = fg_strmap_put(seen, source, strlen(source));
	fg_strbuf sb = FG_STRBUF_INIT;

	if (!s)
		return NULL;
	while (*rel == '/')
		rel++;
	fg_strbuf_addf(&sb, "%s/obj/%s%s", p->build_dir, rel[0] == '.' ? "_" : "", rel);
	/* a relative path climbing out of the root must stay inside obj/ */
	for (char *c = sb.buf + strlen(p->build_dir); (c = strstr(c, "/../")); )
		memcpy(c, "/__/", 4);
	if (s->value.u++)
		fg_strbuf_addf(&sb, "-%llu", (unsigned long long)s->value.u);
	fg_strbuf_addstr(&sb, ".o");
	return fg_strbuf_detach(&sb, NULL);
}

static bool same_unit(const struct fg_unit *u, const char *source, const fg_strvec *argv)
{
	if (strcmp(u->source, source) || u->argv.n != argv->n + 5)
		return false;
	for (size_t i = 1; i < argv->n; i++)
		if (strcmp(u->argv.v[i], argv->v[i]))
			return false;
	return true;
}

/* clang records its command line in the debug info (for the link check's
 * frame-pointer verdict) only when asked; GCC rejects the flag. The
 * database names its compiler, so the name decides. */
static bool is_clang(const char *compiler)
{
	const char *base = strrchr(compiler, '/');

	return !strncmp(base ? base + 1 : compiler, "clang", 5);
}

/* Turns an entry into a unit (skipping exact duplicates, which tools like
 * bear record when a file is built twice the same way). */
static int add_unit(fg_project *p, struct entry *e, fg_strmap *seen)
{
	fg_strvec compile = FG_STRVEC_INIT, link = FG_STRVEC_INIT;
	char *output = e->output ? fg_strdup(e->output) : NULL;
	struct fg_unit *u;
	int err = (e->output && !output) ? FG_ENOMEM : rewrite(e, &compile, &link, &output);

	for (size_t i = 0; !err && i < p->nunits; i++)
		if (same_unit(&p->units[i], e->source, &compile))
			goto done;
	if (err)
		goto done;
	if (!(u = fg_project_add_unit(p))) {
		err = FG_ENOMEM;
		goto done;
	}
	u->source = e->source;
	u->dir = e->dir;
	u->output = output;
	e->source = e->dir = NULL;
	output = NULL;
	u->argv = compile;
	compile.v = NULL;
	compile.n = compile.alloc = 0;
	if (!(u->object = object_path(p, u->source, seen)) || fg_strvec_push(&u->argv, "-c") ||
	    fg_strvec_push(&u->argv, "-o") || fg_strvec_push(&u->argv, u->object) ||
	    fg_strvec_push(&u->argv, "-g") || fg_strvec_push(&u->argv, "-fno-omit-frame-pointer") ||
	    (is_clang(u->argv.v[0]) && fg_strvec_push(&u->argv, "-grecord-command-line"))) {
		err = FG_ENOMEM;
		goto done;
	}
	/* only an entry that writes an executable links; its link flags
	 * then belong to the program */
	if (u->output && is_exe_name(u->output)) {
		u->linkflags = link;
		link.v = NULL;
		link.n = link.alloc = 0;
	}
done:
	fg_strvec_clear(&compile);
	fg_strvec_clear(&link);
	free(output);
	return err;
}

int fg_compdb_add_command(fg_project *p, const char *dir, const fg_strvec *argv, const char *source,
			  const char *output, fg_strmap *seen, size_t *index)
{
	struct entry e = { 0 };
	size_t before = p->nunits;
	int err;

	*index = (size_t)-1;
	if (!(e.dir = fg_strdup(dir)) || !(e.source = fg_strdup(source)) ||
	    (output && !(e.output = fg_strdup(output))) ||
	    fg_strvec_pushv(&e.argv, (const char *const *)argv->v, argv->n)) {
		entry_release(&e);
		return FG_ENOMEM;
	}
	err = add_unit(p, &e, seen);
	entry_release(&e);
	if (err)
		return err;
	if (p->nunits > before) {
		*index = p->nunits - 1;
		return 0;
	}
	/* an exact duplicate: the unit made before */
	for (size_t i = 0; i < p->nunits; i++)
		if (!strcmp(p->units[i].source, source) && (!output || !p->units[i].output ||
							    !strcmp(p->units[i].output, output)))
			*index = i;
	return 0;
}

/* Reads the entries of the database text (of p->loc.file) into units. */
static int parse_entries(fg_project *p, const char *data, size_t len)
{
	char *json_dir = NULL;
	fg_strbuf missing = FG_STRBUF_INIT;
	fg_strmap said = FG_STRMAP_INIT, seen = FG_STRMAP_INIT;
	size_t idx = 0, nmissing = 0;
	cJSON *root = NULL, *j;
	int err = 0;

	json_dir = fg_strndup(p->loc.file, (size_t)(fg_path_base(p->loc.file) - p->loc.file));
	if (!json_dir) {
		err = FG_ENOMEM;
		goto done;
	}
	if (!(root = cJSON_ParseWithLength(data, len)) || !cJSON_IsArray(root)) {
		err = fg_error_set(FG_EPARSE, "%s: %s — regenerate it (bear -- make, or cmake "
				   "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON)", p->loc.file,
				   root ? "not a JSON array of compile commands" : "not valid JSON");
		goto done;
	}
	cJSON_ArrayForEach(j, root) {
		struct entry e = { 0 };
		err = parse_entry(&e, j, p, idx++, json_dir, &said);
		if (!err && !fg_path_is_file(e.source)) {
			if (nmissing++ < 10)
				fg_strbuf_addf(&missing, "\n  %s", e.source);
		} else if (!err)
			err = add_unit(p, &e, &seen);
		entry_release(&e);
		if (err)
			goto done;
	}
	if (nmissing)
		err = fg_error_set(FG_ENOTFOUND, "%s names %zu source file%s that do%s not exist:%s%s\n"
				   "— restore them, or regenerate the file (bear -- make)", p->loc.file,
				   nmissing, nmissing > 1 ? "s" : "", nmissing > 1 ? "" : "es",
				   missing.buf, nmissing > 10 ? "\n  ..." : "");
	else if (!p->nunits)
		err = fg_error_set(FG_ENOTFOUND, "%s lists no compile commands — build the project "
				   "under bear (bear -- make) to fill it", p->loc.file);
done:
	cJSON_Delete(root);
	free(json_dir);
	fg_strbuf_release(&missing);
	fg_strmap_release(&said);
	fg_strmap_release(&seen);
	return err;
}

static int load_entries(fg_project *p)
{
	char *data = NULL;
	size_t len = 0;
	int err = fg_read_file(p->loc.file, &data, &len);

	if (!err)
		err = parse_entries(p, data, len);
	free(data);
	return err;
}

static char *stem_of(const char *path)
{
	const char *base = fg_path_base(path), *dot = strrchr(base, '.');
	return fg_strndup(base, dot && dot != base ? (size_t)(dot - base) : strlen(base));
}

/* The name a main unit gives its program: the executable a one-step
 * entry writes, else the source's stem. */
static char *first_name(const struct fg_unit *u)
{
	/* an output naming a folder ("bin/", "") names no program */
	if (u->output && is_exe_name(u->output) && *fg_path_base(u->output))
		return fg_strdup(fg_path_base(u->output));
	return stem_of(u->source);
}

static bool name_taken(const fg_project *p, const char *name)
{
	for (size_t i = 0; i < p->ntargets; i++)
		if (!strcmp(p->targets[i].name, name))
			return true;
	return false;
}

/* The same source compiled twice (different flags) gives two targets:
 * the second is named after its own output object when that differs
 * ("primes-fast" for primes-fast.o), else numbered ("primes-2"). */
static char *unique_name(const fg_project *p, const struct fg_unit *u)
{
	char *name = first_name(u), *alt;
	fg_strbuf sb = FG_STRBUF_INIT;

	if (!name || !name_taken(p, name))
		return name;
	if (u->output && (alt = stem_of(u->output))) {
		if (*alt && !name_taken(p, alt)) {
			free(name);
			return alt;
		}
		free(alt);
	}
	for (unsigned k = 2;; k++) {
		fg_strbuf_reset(&sb);
		fg_strbuf_addf(&sb, "%s-%u", name, k);
		if (!name_taken(p, sb.buf))
			break;
	}
	free(name);
	return fg_strbuf_detach(&sb, NULL);
}

int fg_compdb_add_targets(fg_project *p)
{
	for (size_t i = 0; i < p->nunits; i++) {
		const struct fg_unit *u = &p->units[i];
		char *name;
		struct fg_target *t;

		if (!u->has_main)
			continue;
		if (!(name = unique_name(p, u)))
			return FG_ENOMEM;
		t = fg_project_add_target(p, name, fg_kind_by_name(p, name, u->source));
		if (t) {
			t->unit = i;
			t->exe = fg_path_join(p->build_dir, name);
		}
		free(name);
		if (!t || !t->exe || fg_strvec_push(&t->sources, u->source))
			return FG_ENOMEM;
	}
	if (!p->ntargets)
		return fg_error_set(FG_ENOTFOUND, "no target found: no translation unit in %s defines "
				    "main (%zu compiled) — point `opts.manifest_path` at the database of a "
				    "project that builds programs", p->loc.file, p->nunits);
	return fg_compdb_real_names(p);
}

/* [build] libs and ldflags of a flamegraph.toml beside the project, for
 * libraries the compile commands cannot tell about. */
static int push_toml_list(fg_strvec *out, const fg_toml *doc, const fg_toml_value *arr,
			  bool libs)
{
	for (size_t i = 0; arr && i < fg_toml_array_len(arr); i++) {
		const char *s = fg_toml_string(fg_toml_array_at(arr, i), NULL);
		int err;
		if (!s)
			return fg_toml_error(doc, fg_toml_array_at(arr, i), "expected a string");
		if (libs && s[0] != '-' && !strchr(s, '/'))
			err = fg_strvec_pushf(out, "-l%s", s);
		else
			err = fg_strvec_push(out, s);
		if (err)
			return err;
	}
	return 0;
}

static int read_toml(fg_project *p)
{
	char *path = fg_path_join(p->loc.root, "flamegraph.toml"), *data = NULL;
	fg_toml *doc = NULL;
	size_t len = 0;
	int err = 0;

	if (!path)
		return FG_ENOMEM;
	if (!fg_path_is_file(path))
		goto done;
	if ((err = fg_read_file(path, &data, &len)) || (err = fg_toml_parse(&doc, data, len, path)))
		goto done;
	const fg_toml_value *build = fg_toml_get(fg_toml_root(doc), "build");
	if (build) {
		err = push_toml_list(&p->libs, doc, fg_toml_get(build, "libs"), true);
		if (!err)
			err = push_toml_list(&p->ldflags, doc, fg_toml_get(build, "ldflags"), false);
	}
done:
	fg_toml_free(doc);
	free(data);
	free(path);
	return err;
}

int fg_compdb_parse_memory(fg_project *p, const char *data, size_t len)
{
	return parse_entries(p, data, len);
}

/* A compile database describes one build of the project: features and
 * profiles have nothing to act on, so they are refused, never ignored. */
static int refuse_variants(const fg_project *p)
{
	const fg_project_opts *o = &p->opts;
	const char *bp = o->build_profile;
	const char *what = o->nfeatures ? "`opts.features`" : o->all_features ? "`opts.all_features`" :
			   o->no_default_features ? "`opts.no_default_features`" :
			   bp && !strcmp(bp, "dev") ? "`opts.build_profile=dev`" :
			   bp && strcmp(bp, "release") ? "`opts.build_profile`" : NULL;

	if (!what)
		return 0;
	return fg_error_set(FG_EINVAL, "%s cannot apply to %s: a compile database fixes every "
			    "compile command — regenerate it with the flags you want (e.g. `bear -- "
			    "make CFLAGS=\"-O1 -DFEATURE\"`), or describe the project in a "
			    "flamegraph.toml, which has features and profiles", what, p->loc.file);
}

int fg_compdb_load(fg_project *p)
{
	int err;

	if ((err = refuse_variants(p)) || (err = load_entries(p)))
		return err;
	return read_toml(p);
}
