/* Building the chosen target, and the link-layout fix: executables linked
 * by lld or mold get -Wl,--no-rosegment (SPEC 5), added here because
 * flamegraph-build controls the link. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gelf.h>
#include <libelf.h>

#include "flamegraph/error.h"
#include "lib/manifest/project.h"
#include "util/banned.h"

#define ROSEGMENT_FILE "flamegraph-no-rosegment"

int fg_build_linker_of(const char *elf_path, char *buf, size_t size)
{
	Elf *e = NULL;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int fd, err = 0;

	if (size)
		buf[0] = '\0';
	if (elf_version(EV_CURRENT) == EV_NONE)
		return fg_error_set(FG_EIO, "libelf is unusable");
	if ((fd = open(elf_path, O_RDONLY | O_CLOEXEC)) < 0)
		return fg_error_set(FG_EIO, "cannot open %s", elf_path);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &shstrndx)) {
		err = fg_error_set(FG_EIO, "%s is not an ELF file", elf_path);
		goto done;
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstrndx, sh.sh_name)) ||
		    strcmp(name, ".comment") || !(d = elf_getdata(scn, NULL)))
			continue;
		/* .comment is a list of NUL-separated producer strings */
		const char *s = d->d_buf, *end = s + d->d_size;
		for (; s < end;) {
			size_t n = strnlen(s, (size_t)(end - s));
			const char *hit = memmem(s, n, "LLD", 3) ? "LLD" : memmem(s, n, "mold", 4) ? "mold" : NULL;
			if (hit) {
				snprintf(buf, size, "%s", hit);
				break;
			}
			s += n + 1;
		}
	}
done:
	if (e)
		elf_end(e);
	close(fd);
	return err;
}

static int cmake_build_once(fg_project *p, const struct fg_target *t, bool *failed)
{
	fg_cmd cmd = FG_CMD_INIT;
	fg_exit_status st = { 0, 0 };
	long jobs = p->opts.jobs > 0 ? p->opts.jobs : sysconf(_SC_NPROCESSORS_ONLN);
	int err;

	fg_strvec_push(&cmd.argv, "cmake");
	fg_strvec_push(&cmd.argv, "--build");
	fg_strvec_push(&cmd.argv, p->build_dir);
	if (t->build_name) {
		fg_strvec_push(&cmd.argv, "--target");
		fg_strvec_push(&cmd.argv, t->build_name);
	}
	fg_strvec_push(&cmd.argv, "--parallel");
	err = fg_strvec_pushf(&cmd.argv, "%ld", jobs > 0 ? jobs : 1);
	if (!err)
		err = fg_run_checked(p, &cmd, false, &st);
	*failed = !err && st.code != 0;
	fg_cmd_clear(&cmd);
	return err;
}

int fg_cmake_build(fg_project *p, const struct fg_target *t, fg_build_result *res)
{
	const char *exe = t->build_name ? t->exe : NULL;
	long long before = exe ? fg_path_mtime(exe) : -1;
	bool failed = false;
	int err;

	if ((err = cmake_build_once(p, t, &failed)))
		return err;
	if (failed)
		return fg_error_set(FG_EBUILD, "building %s failed (the compiler's output is above) — "
				    "fix the error and run again", t->build_name ? t->build_name : p->name);
	res->rebuilt = !exe || fg_path_mtime(exe) != before;
	if (!exe || fg_build_linker_of(exe, res->linker, sizeof(res->linker))) {
		fg_error_clear();
		return 0;
	}
	if ((!strcmp(res->linker, "LLD") || !strcmp(res->linker, "mold")) && !p->no_rosegment) {
		/* remember the choice, so every later configure keeps the flag */
		char *marker = fg_path_join(p->build_dir, ROSEGMENT_FILE);
		FILE *f = marker ? fopen(marker, "w") : NULL;
		if (f)
			fclose(f);
		free(marker);
		fg_project_note(p, "%s is linked by %s: adding -Wl,--no-rosegment to "
				"CMAKE_EXE_LINKER_FLAGS so perf maps its code correctly", t->build_name,
				res->linker);
		unlink(exe);
		if ((err = fg_cmake_configure(p)) || (err = cmake_build_once(p, t, &failed)))
			return err;
		if (failed)
			return fg_error_set(FG_EBUILD, "building %s failed — fix the error and run again",
					    t->build_name);
		res->rebuilt = true;
	}
	if (p->no_rosegment && (!strcmp(res->linker, "LLD") || !strcmp(res->linker, "mold"))) {
		res->no_rosegment = true;
		if (res->rebuilt)
			fg_project_note(p, "linked with %s: -Wl,--no-rosegment added", res->linker);
	}
	return 0;
}

int fg_project_build(fg_project *p, const fg_target *t, fg_build_result *res)
{
	fg_build_result empty = FG_BUILD_RESULT_INIT;
	int err;

	*res = empty;
	if (p->loc.type == FG_MANIFEST_CMAKE)
		err = fg_cmake_build(p, t, res);
	else
		err = fg_units_build(p, t, res);
	if (!err && !res->rebuilt)
		fg_project_note(p, "%s is up to date", t->build_name ? t->build_name : t->name);
	return err;
}
