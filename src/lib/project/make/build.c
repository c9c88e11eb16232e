/* Plain Make projects, the build: the dry run that shows how
 * the project builds (`make -nB -w`: printed, not run, so the user's
 * tree gets nothing), and a program's build from it -- its units
 * compiled into the flamegraph build folder, the in-tree archives it
 * links made again from our objects, and its link line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flamegraph/builder.h"
#include "flamegraph/error.h"
#include "lib/project/build.h"
#include "lib/project/make/make.h"
#include "util/input.h"
#include "util/banned.h"

/* make remakes the makefiles it reads for real, even under -n (and
 * -B makes every one out of date): a rule that writes an included
 * .depend would write into the user's tree. Each is named with -o
 * (taken as current): the Makefile itself and the files it includes. */
static int keep_makefiles(const fg_project *p, fg_strvec *argv)
{
	fg_strvec files = FG_STRVEC_INIT;
	char *text = NULL;
	size_t len = 0;
	int err = 0;

	if (fg_read_file(p->loc.file, &text, &len))
		fg_error_clear();
	else
		err = fg_make_included(text, len, &files);
	for (size_t i = 0; !err && i < files.n; i++)
		if (!(err = fg_strvec_push(argv, "-o")))
			err = fg_strvec_push(argv, files.v[i]);
	if (!err && !(err = fg_strvec_push(argv, "-o")))
		err = fg_strvec_push(argv, fg_path_base(p->loc.file));
	fg_strvec_clear(&files);
	free(text);
	return err;
}

int fg_make_open(fg_project *p)
{
	fg_cmd cmd = FG_CMD_INIT;
	fg_strbuf out = FG_STRBUF_INIT;
	fg_exit_status st = { 0, 0 };
	int err;

	fg_strvec_push(&cmd.argv, "make");
	fg_strvec_push(&cmd.argv, "-nB");
	fg_strvec_push(&cmd.argv, "-w");
	fg_strvec_push(&cmd.argv, "-f");
	fg_strvec_push(&cmd.argv, p->loc.file);
	if ((err = keep_makefiles(p, &cmd.argv)))
		goto done;
	/* "Entering directory" in the words the reader knows */
	fg_strvec_push(&cmd.env, "LC_ALL=C");
	if (!(err = fg_cmd_set_cwd(&cmd, p->loc.root))) {
		if (p->opts.verbose)
			fg_project_note(p, "running make -nB -w -f %s (a dry run: nothing is built)",
					p->loc.file);
		err = fg_cmd_capture(&cmd, &out, &st);
	}
	if (err == FG_ENOTFOUND)
		err = fg_error_set(FG_ENOTFOUND, "make is not installed — install it "
				   "(Debian/Ubuntu: apt-get install make)");
	if (!err)
		err = fg_make_read_dryrun(p, p->loc.root, out.buf ? out.buf : "", out.len);
	if (err == FG_EPARSE && st.code != 0)
		err = fg_error_set(FG_EPARSE, "the dry run of %s (make -nB) failed (make's message is "
				   "above) — fix the Makefile, or build the project under bear (bear -- "
				   "make) and point `opts.manifest_path` at the compile_commands.json it "
				   "writes", p->loc.file);
	else if (!err && st.code != 0)
		fg_project_note(p, "the dry run of %s stopped early (make's message is above): using the "
				"commands it showed", p->loc.file);
done:
	fg_cmd_clear(&cmd);
	fg_strbuf_release(&out);
	return err;
}

static int make_archive(fg_project *p, const fg_make_archive *a, bool *changed)
{
	fg_cmd cmd = FG_CMD_INIT;
	fg_exit_status st = { 0, 0 };
	long long made = fg_path_mtime(a->path);
	bool stale = made < 0 || *changed;
	char *dir = NULL;
	int err = 0;

	for (size_t i = 0; i < a->nunits && !stale; i++)
		stale = fg_path_mtime(p->units[a->units[i]].object) > made;
	if (!stale)
		return 0;
	if (!(dir = fg_strndup(a->path, (size_t)(fg_path_base(a->path) - a->path))) ||
	    (err = fg_mkdir_p(dir)))
		goto done;
	unlink(a->path);
	fg_project_note(p, "archiving %s", fg_path_base(a->path));
	fg_strvec_push(&cmd.argv, "ar");
	fg_strvec_push(&cmd.argv, "rcs");
	fg_strvec_push(&cmd.argv, a->path);
	for (size_t i = 0; i < a->nunits; i++)
		fg_strvec_push(&cmd.argv, p->units[a->units[i]].object);
	err = fg_build_tool_run(p, &cmd, false, &st);
	if (err == FG_ENOTFOUND)
		err = fg_error_set(FG_ENOTFOUND, "ar is not installed — install binutils");
	else if (!err && st.code != 0)
		err = fg_error_set(FG_EBUILD, "archiving %s failed (ar's output is above)", a->path);
	*changed = true;
done:
	free(dir);
	fg_cmd_clear(&cmd);
	return err;
}

int fg_make_build(fg_project *p, const struct fg_target *t, fg_build_result *res)
{
	fg_make_state *st = p->reader_data;
	size_t ti = (size_t)(t - p->targets), *all = NULL, n = 0;
	const fg_make_link *l;
	bool changed = false;
	int err = 0;

	if (!st || ti >= st->nlinks)
		return fg_error_set(FG_EINVAL, "%s: no way to build target '%s'", p->loc.file, t->name);
	l = &st->links[ti];
	if (!(all = fg_calloc(p->nunits + 1, sizeof(*all))))
		return FG_ENOMEM;
	for (size_t i = 0; i < l->nunits; i++)
		all[n++] = l->units[i];
	for (size_t k = 0; k < l->narchives; k++) {
		const fg_make_archive *a = &st->archives[l->archives[k]];
		for (size_t i = 0; i < a->nunits; i++) {
			bool dup = false;
			for (size_t j = 0; j < n && !dup; j++)
				dup = all[j] == a->units[i];
			if (!dup && n < p->nunits)
				all[n++] = a->units[i];
		}
	}
	if ((err = fg_units_compile(p, all, n, &changed)))
		goto done;
	fg_strvec_clear(&p->libs);
	for (size_t k = 0; !err && k < l->narchives; k++) {
		const fg_make_archive *a = &st->archives[l->archives[k]];
		if (!(err = make_archive(p, a, &changed)))
			err = fg_strvec_push(&p->libs, a->path);
	}
	if (!err)
		err = fg_strvec_pushv(&p->libs, (const char *const *)l->libs.v, l->libs.n);
	free(p->cc);
	if (!err && !(p->cc = fg_strdup(l->driver)))
		err = FG_ENOMEM;
	if (!err)
		err = fg_units_link(p, t, l->units, l->nunits, changed, res);
done:
	free(all);
	return err;
}
