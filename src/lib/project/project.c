/* The target model: a project and its targets (filled by the readers),
 * selecting a target by name, and turning a target into the command that
 * runs it. Opening a project walks its build system's table (open.c). */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "flamegraph/error.h"
#include "lib/project/project.h"
#include "lib/project/system.h"
#include "util/suggest.h"
#include "util/version.h"
#include "util/banned.h"

static const char *const kind_names[FG_TARGET_KIND_COUNT] = {
	"bin", "test", "bench", "example"
};

const char *fg_target_kind_name(fg_target_kind kind)
{
	return kind < FG_TARGET_KIND_COUNT ? kind_names[kind] : "target";
}

void fg_project_note(const fg_project *p, const char *fmt, ...)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	va_list ap;

	if (!p->opts.note)
		return;
	va_start(ap, fmt);
	fg_strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	p->opts.note(p->opts.note_ctx, sb.buf);
	fg_strbuf_release(&sb);
}

struct fg_target *fg_project_add_target(fg_project *p, const char *name, fg_target_kind kind)
{
	struct fg_target *t;

	if (p->ntargets == p->talloc) {
		size_t n = p->talloc ? 2 * p->talloc : 16;
		t = fg_realloc_array(p->targets, n, sizeof(*t));
		if (!t)
			return NULL;
		p->targets = t;
		p->talloc = n;
	}
	t = &p->targets[p->ntargets];
	memset(t, 0, sizeof(*t));
	if (!(t->name = fg_strdup(name)))
		return NULL;
	t->kind = kind;
	p->ntargets++;
	return t;
}

struct fg_unit *fg_project_add_unit(fg_project *p)
{
	struct fg_unit *u;

	if (p->nunits == p->ualloc) {
		size_t n = p->ualloc ? 2 * p->ualloc : 16;
		u = fg_realloc_array(p->units, n, sizeof(*u));
		if (!u)
			return NULL;
		p->units = u;
		p->ualloc = n;
	}
	u = &p->units[p->nunits++];
	memset(u, 0, sizeof(*u));
	return u;
}

static bool word_in(const char *s, size_t n, const char *const *words)
{
	for (; *words; words++)
		if (strlen(*words) == n && !strncasecmp(s, *words, n))
			return true;
	return false;
}

fg_target_kind fg_kind_by_name(const fg_project *p, const char *name, const char *source)
{
	static const char *const tests[] = { "test", "tests", "unittest", "unittests", NULL };
	static const char *const benches[] = { "bench", "benches", "benchmark", "benchmarks", NULL };
	static const char *const examples[] = { "example", "examples", "demo", "demos", NULL };
	size_t n = strlen(p->loc.root);
	if (!source)
		source = "";
	const char *scan[2] = { name, !strncmp(source, p->loc.root, n) ? source + n : source };
	const char *end[2] = { name + strlen(name), fg_path_base(scan[1]) };

	for (int k = 0; k < 2; k++) {
		const char *s = scan[k];
		while (s < end[k]) {
			while (s < end[k] && !isalnum((unsigned char)*s))
				s++;
			const char *w = s;
			while (s < end[k] && isalnum((unsigned char)*s))
				s++;
			if (word_in(w, (size_t)(s - w), tests))
				return FG_TARGET_TEST;
			if (word_in(w, (size_t)(s - w), benches))
				return FG_TARGET_BENCH;
			if (word_in(w, (size_t)(s - w), examples))
				return FG_TARGET_EXAMPLE;
		}
	}
	return FG_TARGET_BIN;
}

void fg_build_recipe_release(struct fg_build_recipe *r)
{
	free(r->cc);
	free(r->command);
	fg_strvec_clear(&r->cflags);
	fg_strvec_clear(&r->cppflags);
	fg_strvec_clear(&r->ldflags);
	fg_strvec_clear(&r->libs);
	fg_strvec_clear(&r->profile_cflags);
	fg_strvec_clear(&r->profile_ldflags);
}

/* <root>/build/flamegraph/PROFILE, for the build system discovery picks
 * in the root. Another one named with --manifest-path in the same tree
 * (configure beside a CMakeLists.txt) gets a folder of its own,
 * build/flamegraph/SYSTEM/PROFILE: two build systems never configure
 * into one folder. A compile_commands.json shares the folder of the
 * Makefile beside it: both compile through the same units and stamps. */
static char *default_build_dir(const fg_project *p, const fg_manifest_loc *loc, const char *profile)
{
	fg_manifest_type first = loc->type;
	fg_strbuf sb = FG_STRBUF_INIT;

	if (fg_manifest_first_in(loc->root, &first) != 1)
		first = loc->type;
	fg_error_clear();
	fg_strbuf_addf(&sb, "%s/build/flamegraph/", loc->root);
	if (first != loc->type && !p->system->shares_build_dir) {
		const char *name = p->system->name, *other = fg_build_system_of(first)->name;
		fg_strbuf_addf(&sb, "%s/", name);
		fg_project_note(p, "%s: building with %s in build/flamegraph/%s/%s, apart from the %s "
				"build found first in %s", fg_path_base(loc->file), name, name, profile,
				other, loc->root);
	}
	fg_strbuf_addstr(&sb, profile);
	return fg_strbuf_detach(&sb, NULL);
}

FG_OPTS_INIT_FUNCTION(fg_project_opts, FG_PROJECT_OPTS_VERSION, FG_PROJECT_OPTS_INIT)

int fg_project_new(fg_project **out, const fg_manifest_loc *loc, const fg_project_opts *opts)
{
	fg_project *p = fg_calloc(1, sizeof(*p));
	const char *profile =
		opts->build_profile && *opts->build_profile ? opts->build_profile : "release";
	int err = FG_ENOMEM;

	*out = NULL;
	if (!p)
		return FG_ENOMEM;
	if (!(p->system = fg_build_system_of(loc->type))) {
		free(p);
		return fg_error_set(FG_EINVAL, "manifest type %d is not one of fg_manifest_type's",
				    (int)loc->type);
	}
	p->opts = *opts;
	p->loc.type = loc->type;
	p->loc.file = fg_strdup(loc->file);
	p->loc.root = fg_strdup(loc->root);
	p->loc.toml = loc->toml ? fg_strdup(loc->toml) : NULL;
	p->profile = fg_strdup(profile);
	p->name = fg_strdup(fg_path_base(loc->root));
	if (opts->build_dir)
		p->build_dir = fg_strdup(opts->build_dir);
	else
		p->build_dir = default_build_dir(p, loc, profile);
	if (!p->loc.file || !p->loc.root || !p->profile || !p->name || !p->build_dir ||
	    (loc->toml && !p->loc.toml))
		goto done;
	if (strchr(profile, '/') || profile[0] == '.') {
		err = fg_error_set(FG_EINVAL, "bad profile name '%s' — use letters, digits, '-' or '_'",
				   profile);
		goto done;
	}
	err = 0;
done:
	if (err) {
		fg_project_free(p);
		return err;
	}
	*out = p;
	return 0;
}

static void target_release(struct fg_target *t)
{
	free(t->name);
	free(t->alias);
	free(t->exe);
	free(t->build_name);
	free(t->filter);
	free(t->cwd);
	fg_strvec_clear(&t->argv);
	fg_strvec_clear(&t->env);
	fg_strvec_clear(&t->sources);
	fg_strvec_clear(&t->missing_features);
}

void fg_project_free(fg_project *p)
{
	size_t i;

	if (!p)
		return;
	if (p->state_free)
		p->state_free(p->state);
	for (i = 0; i < p->ntargets; i++)
		target_release(&p->targets[i]);
	for (i = 0; i < p->nunits; i++) {
		free(p->units[i].source);
		free(p->units[i].dir);
		free(p->units[i].object);
		free(p->units[i].output);
		fg_strvec_clear(&p->units[i].argv);
		fg_strvec_clear(&p->units[i].linkflags);
	}
	free(p->targets);
	free(p->units);
	fg_manifest_loc_release(&p->loc);
	free(p->name);
	free(p->profile);
	free(p->build_dir);
	free(p->cc);
	fg_strvec_clear(&p->bool_options);
	fg_strvec_clear(&p->feature_names);
	fg_strvec_clear(&p->profile_names);
	fg_strvec_clear(&p->libs);
	fg_strvec_clear(&p->ldflags);
	fg_build_recipe_release(&p->recipe);
	free(p);
}

const char *fg_project_name(const fg_project *p) { return p->name; }
const char *fg_project_root(const fg_project *p) { return p->loc.root; }
const char *fg_project_build_dir(const fg_project *p) { return p->build_dir; }
fg_manifest_type fg_project_type(const fg_project *p) { return p->loc.type; }
size_t fg_project_target_count(const fg_project *p) { return p->ntargets; }
const fg_target *fg_project_target(const fg_project *p, size_t i)
{
	return i < p->ntargets ? &p->targets[i] : NULL;
}

const char *fg_target_name(const fg_target *t) { return t->name; }
fg_target_kind fg_target_kind_of(const fg_target *t) { return t->kind; }
const char *fg_target_exe(const fg_target *t) { return t->exe; }
const char *fg_target_build_name(const fg_target *t) { return t->build_name; }
bool fg_target_is_ctest(const fg_target *t) { return t->ctest; }
const char *fg_target_filter(const fg_target *t) { return t->filter; }
bool fg_project_declares_filters(const fg_project *p) { return p->system->filters_declared; }
fg_fix_style fg_project_fix_style(const fg_project *p) { return p->system->fix_style; }

const char *fg_target_runner_kind(const fg_project *p, const fg_target *t)
{
	if (!t->ctest)
		return NULL;
	return t->kind == FG_TARGET_BENCH ? p->system->runs_bench : p->system->runs_test;
}

/* A target's required-features that are off, as --features takes them */
static void join_features(const struct fg_target *t, fg_strbuf *sb)
{
	for (size_t i = 0; i < t->missing_features.n; i++)
		fg_strbuf_addf(sb, "%s%s", i ? "," : "", t->missing_features.v[i]);
}

/* CTest tests that run the same program, when there are many of them */
#define CTEST_GROUP_MIN 5
#define CTEST_GROUP_SHOWN 3

static const char *ctest_program(const struct fg_target *t)
{
	return t->ctest && t->argv.n ? fg_path_base(t->argv.v[0]) : NULL;
}

static size_t ctest_group_size(const fg_project *p, fg_target_kind k, const char *prog)
{
	size_t n = 0;

	for (size_t i = 0; i < p->ntargets; i++)
		if (p->targets[i].kind == k && ctest_program(&p->targets[i]) &&
		    !strcmp(ctest_program(&p->targets[i]), prog))
			n++;
	return n;
}

/* "PROG: N ctest tests (a, b, c, ...)" (or meson tests) at the first
 * test of a large group, nothing at the others: hundreds of generated
 * names stay one line */
static bool describe_ctest_group(const fg_project *p, fg_target_kind k, size_t at, fg_strbuf *sb,
				 size_t *n)
{
	const char *prog = ctest_program(&p->targets[at]);
	size_t size, shown = 0;

	if (!prog || (size = ctest_group_size(p, k, prog)) < CTEST_GROUP_MIN)
		return false;
	for (size_t i = 0; i < at; i++)
		if (p->targets[i].kind == k && ctest_program(&p->targets[i]) &&
		    !strcmp(ctest_program(&p->targets[i]), prog))
			return true; /* listed with the group's first */
	fg_strbuf_addf(sb, "%s%s: %zu %s tests (", (*n)++ ? ", " : "", prog, size, p->system->runner);
	for (size_t i = at; i < p->ntargets && shown < CTEST_GROUP_SHOWN; i++)
		if (p->targets[i].kind == k && ctest_program(&p->targets[i]) &&
		    !strcmp(ctest_program(&p->targets[i]), prog))
			fg_strbuf_addf(sb, "%s%s", shown++ ? ", " : "", p->targets[i].name);
	fg_strbuf_addstr(sb, ", ...)");
	return true;
}

static void describe_kind(const fg_project *p, fg_target_kind k, fg_strbuf *sb)
{
	size_t i, n = 0;

	for (i = 0; i < p->ntargets; i++) {
		const struct fg_target *t = &p->targets[i];
		if (t->kind != k)
			continue;
		if (describe_ctest_group(p, k, i, sb, &n))
			continue;
		fg_strbuf_addf(sb, "%s%s", n++ ? ", " : "", t->name);
		if (t->exe && strcmp(fg_path_base(t->exe), t->name) && !t->ctest)
			fg_strbuf_addf(sb, " (%s)", fg_path_base(t->exe));
		if (t->ctest)
			fg_strbuf_addstr(sb, k == FG_TARGET_BENCH ? p->system->listed_bench :
					 p->system->listed_test);
		if (t->missing_features.n) {
			fg_strbuf_addstr(sb, " (needs `opts.features` ");
			join_features(t, sb);
			fg_strbuf_addch(sb, ')');
		}
	}
	if (!n)
		fg_strbuf_addstr(sb, "(none)");
}

char *fg_project_describe(const fg_project *p)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	int k;

	for (k = 0; k < FG_TARGET_KIND_COUNT; k++) {
		fg_strbuf_addf(&sb, "%-8s ", kind_names[k]);
		describe_kind(p, (fg_target_kind)k, &sb);
		fg_strbuf_addch(&sb, '\n');
	}
	return fg_strbuf_detach(&sb, NULL);
}

static void add_unique(fg_strbuf *sb, fg_strvec *seen, const char *name)
{
	for (size_t i = 0; i < seen->n; i++)
		if (!strcmp(seen->v[i], name))
			return;
	fg_strvec_push(seen, name);
	fg_strbuf_addf(sb, "%s\n", name);
}

char *fg_project_names(const fg_project *p, const char *what)
{
	static const char *const builtin_profiles[] = { "release", "dev" };
	fg_strbuf sb = FG_STRBUF_INIT;
	fg_strvec seen = FG_STRVEC_INIT;
	int kind = -1;

	for (int k = 0; k < FG_TARGET_KIND_COUNT; k++)
		if (!strcmp(what, kind_names[k]))
			kind = k;
	bool unit_bench = !strcmp(what, "unit-bench");

	if (kind >= 0 || unit_bench || !strcmp(what, "unit-test")) {
		for (size_t i = 0; i < p->ntargets; i++) {
			const struct fg_target *t = &p->targets[i];
			fg_target_kind unit_kind = unit_bench ? FG_TARGET_BENCH : FG_TARGET_TEST;
			if (kind >= 0 ? (int)t->kind == kind : (t->kind == unit_kind && !t->ctest))
				add_unique(&sb, &seen, t->name);
		}
	} else if (!strcmp(what, "feature")) {
		for (size_t i = 0; i < p->feature_names.n; i++)
			add_unique(&sb, &seen, p->feature_names.v[i]);
		for (size_t i = 0; i < p->bool_options.n; i++)
			add_unique(&sb, &seen, p->bool_options.v[i]);
	} else if (!strcmp(what, "profile")) {
		for (size_t i = 0; i < 2; i++)
			add_unique(&sb, &seen, builtin_profiles[i]);
		for (size_t i = 0; i < p->profile_names.n; i++)
			add_unique(&sb, &seen, p->profile_names.v[i]);
	} else {
		fg_strvec_clear(&seen);
		fg_strbuf_release(&sb);
		fg_error_set(FG_EINVAL, "no such list '%s' — bin, test, bench, example, unit-test, unit-bench, "
			     "feature or profile", what);
		return NULL;
	}
	fg_strvec_clear(&seen);
	return fg_strbuf_detach(&sb, NULL);
}

static bool name_matches(const struct fg_target *t, const char *name)
{
	return !strcmp(t->name, name) || (t->alias && !strcmp(t->alias, name)) ||
	       (t->exe && !t->ctest && !strcmp(fg_path_base(t->exe), name));
}

/* "an example", "a bin" */
static const char *kind_article(fg_target_kind kind)
{
	return kind == FG_TARGET_EXAMPLE ? "an" : "a";
}

/* A target of another kind by that name (true: that is the whole
 * answer, in hint), or a name near it (a "did you mean" in hint). */
static bool near_name(const fg_project *p, fg_target_kind kind, const char *name, fg_strbuf *hint)
{
	const char **names = fg_calloc(p->ntargets + 1, sizeof(*names));
	const struct fg_target *near = NULL;
	const char *best;

	for (size_t i = 0; i < p->ntargets; i++) {
		const struct fg_target *t = &p->targets[i];
		if (name_matches(t, name) && t->kind != kind) {
			fg_strbuf_addf(hint, "'%s' is %s %s, not %s %s: use --%s %s", name,
				       kind_article(t->kind), fg_target_kind_name(t->kind),
				       kind_article(kind), fg_target_kind_name(kind),
				       fg_target_kind_name(t->kind), name);
			free(names);
			return true;
		}
		if (names)
			names[i] = t->name;
	}
	if (names && (best = fg_suggest(name, names, p->ntargets)))
		for (size_t i = 0; i < p->ntargets && !near; i++)
			if (p->targets[i].name == best)
				near = &p->targets[i];
	if (near && near->kind == kind)
		fg_strbuf_addf(hint, "did you mean '%s'? Otherwise ", near->name);
	else if (near)
		fg_strbuf_addf(hint, "did you mean the %s '%s' (--%s %s)? Otherwise ", fg_target_kind_name(near->kind),
			       near->name, fg_target_kind_name(near->kind), near->name);
	free(names);
	return false;
}

static int not_found(const fg_project *p, fg_target_kind kind, const char *name)
{
	char *all = fg_project_describe(p);
	fg_strbuf where = FG_STRBUF_INIT, hint = FG_STRBUF_INIT;
	int err;

	if (name && kind != FG_TARGET_KIND_COUNT && near_name(p, kind, name, &hint)) {
		err = fg_error_set(FG_ENOTFOUND, "%s", hint.buf);
		fg_strbuf_release(&hint);
		free(all);
		return err;
	}

	/* with -p the list below is the package's only: say so */
	if (p->opts.package)
		fg_strbuf_addf(&where, "package %s of ", p->name);
	fg_strbuf_addstr(&where, p->loc.file);
	if (name)
		err = fg_error_set(FG_ENOTFOUND, "no %s target named '%s' in %s — %spick one of these%s:\n%s",
				   fg_target_kind_name(kind), name, where.buf, hint.len ? hint.buf : "",
				   p->opts.package ? " (or drop -p)" : "", all ? all : "");
	else
		err = fg_error_set(FG_ENOTFOUND, "%s has no %s target — pick one of these%s:\n%s",
				   where.buf, fg_target_kind_name(kind),
				   p->opts.package ? " (or drop -p)" : "", all ? all : "");
	fg_strbuf_release(&where);
	fg_strbuf_release(&hint);
	free(all);
	return err;
}

/* cargo's answer to a target whose required-features are off */
static int missing_features(const struct fg_target *t)
{
	fg_strbuf list = FG_STRBUF_INIT;
	int err;

	join_features(t, &list);
	err = fg_error_set(FG_EINVAL, "%s '%s' requires the features %s, which are not enabled — "
			   "add `opts.features` %s (or `opts.all_features`)", fg_target_kind_name(t->kind),
			   t->name, list.buf, list.buf);
	fg_strbuf_release(&list);
	return err;
}

static int select_kind(const fg_target **out, const fg_project *p, fg_target_kind kind,
		       const char *name, bool no_ctest)
{
	const struct fg_target *found = NULL;
	fg_strbuf names = FG_STRBUF_INIT;
	size_t i, n = 0, nctest = 0;
	int err = 0;

	*out = NULL;
	for (i = 0; i < p->ntargets; i++) {
		const struct fg_target *t = &p->targets[i];
		if (kind != FG_TARGET_KIND_COUNT && t->kind != kind)
			continue;
		if (name && !name_matches(t, name))
			continue;
		if (no_ctest && t->ctest)
			continue;
		/* a CTest test and the executable it runs may share a name:
		 * the test wins: a test target runs the exact command CTest runs */
		if (found && t->ctest != found->ctest && name) {
			if (t->ctest)
				found = t;
			nctest++;
			continue;
		}
		fg_strbuf_addf(&names, "%s%s %s", n ? ", " : "", fg_target_kind_name(t->kind), t->name);
		found = t;
		n++;
	}
	/* a compile database declares no kinds: the guessed one is a hint, and
	 * any program answers to its name */
	if (!n && name && kind != FG_TARGET_KIND_COUNT && p->system->kinds_guessed) {
		fg_strbuf_release(&names);
		err = select_kind(out, p, FG_TARGET_KIND_COUNT, name, no_ctest);
		return err == FG_ENOTFOUND ? not_found(p, kind, name) : err;
	}
	/* a kind guessed from the name (automake's noinst_PROGRAMS) is no
	 * reason to refuse: say what was guessed and take it */
	if (!n && name && kind != FG_TARGET_KIND_COUNT) {
		const fg_target *any = NULL;
		if (!select_kind(&any, p, FG_TARGET_KIND_COUNT, name, no_ctest) && any->kind_guessed) {
			fg_project_note(p, "%s is listed as %s %s (a guess from its name and how it is "
					"built); profiling it as asked", any->name,
					kind_article(any->kind), fg_target_kind_name(any->kind));
			fg_strbuf_release(&names);
			*out = any;
			return 0;
		}
		fg_error_clear();
	}
	if (!n)
		err = not_found(p, kind, name);
	else if (n > 1 && name)
		err = fg_error_set(FG_EAMBIGUOUS, "'%s' matches several targets (%s) — name one with "
				   "`opts.target=bin`, `opts.target=test`, `opts.target=bench` or `opts.target=example`", name, names.buf);
	else if (n > 1)
		err = fg_error_set(FG_EAMBIGUOUS, "several %s targets (%s) — choose one with `opts.target=%s` NAME",
				   fg_target_kind_name(kind), names.buf, fg_target_kind_name(kind));
	else if (found->missing_features.n)
		err = missing_features(found);
	else
		*out = found;
	(void)nctest;
	fg_strbuf_release(&names);
	return err;
}

int fg_project_select(const fg_target **out, const fg_project *p, fg_target_kind kind,
		      const char *name)
{
	return select_kind(out, p, kind, name, false);
}

int fg_project_select_unit(const fg_target **out, const fg_project *p, const char *name)
{
	int err = select_kind(out, p, FG_TARGET_TEST, name, true);
	if (err == FG_EAMBIGUOUS && !name)
		err = fg_error_set(FG_EAMBIGUOUS, "several test executables — name one: `opts.unit_test` NAME");
	return err;
}

int fg_project_select_unit_bench(const fg_target **out, const fg_project *p, const char *name)
{
	int err = select_kind(out, p, FG_TARGET_BENCH, name, true);
	if (err == FG_EAMBIGUOUS && !name)
		err = fg_error_set(FG_EAMBIGUOUS, "several bench executables — name one: `opts.unit_bench` NAME");
	return err;
}

static int push_filter(fg_strvec *argv, const char *tmpl, const char *arg)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	const char *s;
	int err;

	for (s = tmpl; *s; s++) {
		if (s[0] == '{' && s[1] == '}') {
			fg_strbuf_addstr(&sb, arg);
			s++;
		} else
			fg_strbuf_addch(&sb, *s);
	}
	err = fg_strvec_push(argv, sb.buf);
	fg_strbuf_release(&sb);
	return err;
}

int fg_target_run_spec(fg_run_spec *out, const fg_target *t, const char *const *extra,
		       size_t nextra, bool as_filter)
{
	fg_strvec argv = FG_STRVEC_INIT, env = FG_STRVEC_INIT;
	size_t i;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (!t->ctest)
		err = fg_strvec_push(&argv, t->exe);
	/* a CTest test's argv is its whole command; a target's are its default
	 * arguments, which arguments given after -- replace (as cargo run's
	 * do), except test filters, which select within them */
	for (i = 0; !err && (t->ctest || !nextra || as_filter) && i < t->argv.n; i++)
		err = fg_strvec_push(&argv, t->argv.v[i]);
	for (i = 0; !err && i < nextra; i++) {
		if (as_filter && t->filter)
			err = push_filter(&argv, t->filter, extra[i]);
		else
			err = fg_strvec_push(&argv, extra[i]);
	}
	for (i = 0; !err && i < t->env.n; i++)
		err = fg_strvec_push(&env, t->env.v[i]);
	if (!err && t->cwd && !(out->cwd = fg_strdup(t->cwd)))
		err = FG_ENOMEM;
	if (err || !argv.n) {
		fg_strvec_clear(&argv);
		fg_strvec_clear(&env);
		free(out->cwd);
		out->cwd = NULL;
		return err ? err : fg_error_set(FG_EINVAL, "target '%s' has no command", t->name);
	}
	out->argv = argv.v;
	out->argc = argv.n;
	out->env = env.v;
	out->nenv = env.n;
	return 0;
}

void fg_run_spec_release(fg_run_spec *spec)
{
	fg_strvec v = FG_STRVEC_INIT;

	v.v = spec->argv;
	v.n = spec->argc;
	fg_strvec_clear(&v);
	v.v = spec->env;
	v.n = spec->nenv;
	fg_strvec_clear(&v);
	free(spec->cwd);
	memset(spec, 0, sizeof(*spec));
}

int fg_feature_unknown(const char *feature, const char *near, const char *near_as,
		       const fg_strvec *known, const char *whose_fmt, ...)
{
	fg_strbuf hint = FG_STRBUF_INIT, whose = FG_STRBUF_INIT, list = FG_STRBUF_INIT;
	va_list ap;
	int err;

	if (near && near_as)
		fg_strbuf_addf(&hint, "did you mean '%s' (%s)? ", near_as, near);
	else if (near)
		fg_strbuf_addf(&hint, "did you mean '%s'? ", near);
	va_start(ap, whose_fmt);
	fg_strbuf_vaddf(&whose, whose_fmt, ap);
	va_end(ap);
	for (size_t k = 0; k < known->n; k++)
		fg_strbuf_addf(&list, "%s%s", k ? ", " : "", known->v[k]);
	if ((err = fg_strbuf_check(&hint)) || (err = fg_strbuf_check(&whose)) ||
	    (err = fg_strbuf_check(&list)))
		goto done;
	err = fg_error_set(FG_EINVAL, "unknown feature '%s' — %s%s: %s", feature, hint.buf, whose.buf,
			   list.len ? list.buf : "(none)");
done:
	fg_strbuf_release(&hint);
	fg_strbuf_release(&whose);
	fg_strbuf_release(&list);
	return err;
}
