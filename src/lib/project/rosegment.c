/* The link-layout fix (-Wl,--no-rosegment) where flamegraph-build controls the link:
 * executables linked by lld or mold get -Wl,--no-rosegment (see
 * builder.h). What linked a file is read by the ELF check
 * (flamegraph/elfcheck.h), the one reader of `.comment`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flamegraph/elfcheck.h"
#include "flamegraph/error.h"
#include "lib/project/build.h"
#include "util/input.h"
#include "util/banned.h"

/* In the build folder: lld or mold linked this project before. */
#define ROSEGMENT_MARKER "flamegraph-no-rosegment"

int fg_build_linker_of(const char *elf_path, char *buf, size_t size)
{
	fg_elfcheck_report r;
	const char *family = "";
	int err;

	if (size)
		buf[0] = '\0';
	if ((err = fg_elfcheck_file(elf_path, &r)))
		return err;
	if (!r.is_elf)
		return fg_error_set(FG_EIO, "%s is not an ELF file", elf_path);
	/* the check keeps the version ("LLD 14.0.6", "mold 1.10.1 (...)") */
	if (strstr(r.linker, "LLD"))
		family = "LLD";
	else if (strstr(r.linker, "mold"))
		family = "mold";
	else if (!strcmp(r.linker, "GNU ld"))
		family = "GNU ld";
	if (size)
		snprintf(buf, size, "%s", family);
	return 0;
}

static bool is_lld_or_mold(const char *linker)
{
	return !strcmp(linker, "LLD") || !strcmp(linker, "mold");
}

/* What decides which linker runs: the compiler and the flags given to
 * this run, the -D entries (CMAKE_EXE_LINKER_FLAGS, c_link_args...) and
 * the manifest's own. */
static void link_key(const fg_project *p, fg_strbuf *key)
{
	const fg_project_opts *o = &p->opts;

	fg_strbuf_addf(key, "cc=%s\ncflags=%s\nldflags=%s\n", o->cc ? o->cc : "",
		       o->cflags ? o->cflags : "", o->ldflags ? o->ldflags : "");
	for (size_t i = 0; i < o->ndefines; i++)
		fg_strbuf_addf(key, "D=%s\n", o->defines[i]);
	fg_strbuf_addf(key, "link-cc=%s\nrecipe-cc=%s\n", p->cc ? p->cc : "",
		       p->recipe.cc ? p->recipe.cc : "");
	for (size_t i = 0; i < p->ldflags.n; i++)
		fg_strbuf_addf(key, "link=%s\n", p->ldflags.v[i]);
	for (size_t i = 0; i < p->recipe.ldflags.n; i++)
		fg_strbuf_addf(key, "recipe-ldflags=%s\n", p->recipe.ldflags.v[i]);
	for (size_t i = 0; i < p->recipe.profile_ldflags.n; i++)
		fg_strbuf_addf(key, "profile-ldflags=%s\n", p->recipe.profile_ldflags.v[i]);
}

void fg_rosegment_load(fg_project *p)
{
	char *marker = fg_path_join(p->build_dir, ROSEGMENT_MARKER), *data = NULL;
	fg_strbuf key = FG_STRBUF_INIT;
	size_t len;

	if (!marker || !fg_path_is_file(marker))
		goto done;
	if (fg_read_file(marker, &data, &len)) {
		fg_error_clear();
		goto done;
	}
	link_key(p, &key);
	if (key.buf && len == key.len && !memcmp(data, key.buf, len))
		p->no_rosegment = true;
	else
		unlink(marker); /* made for other options: they may pick another linker */
done:
	fg_strbuf_release(&key);
	free(data);
	free(marker);
}

void fg_rosegment_mark(const fg_project *p)
{
	char *marker = fg_path_join(p->build_dir, ROSEGMENT_MARKER);
	fg_strbuf key = FG_STRBUF_INIT;
	FILE *f = marker ? fopen(marker, "w") : NULL;

	link_key(p, &key);
	if (f) {
		if (key.buf)
			fputs(key.buf, f);
		fclose(f);
	}
	fg_strbuf_release(&key);
	free(marker);
}

void fg_rosegment_after_link(fg_project *p, const char *exe, const char *name, const char *where,
			     fg_build_result *res, bool *relink)
{
	*relink = false;
	if (fg_build_linker_of(exe, res->linker, sizeof(res->linker))) {
		fg_error_clear();
		return;
	}
	if (is_lld_or_mold(res->linker) && !p->no_rosegment) {
		fg_rosegment_mark(p);
		p->no_rosegment = true;
		fg_project_note(p, "%s is linked by %s: adding -Wl,--no-rosegment%s so perf maps its "
				"code correctly", name, res->linker, where);
		*relink = true;
	}
	res->no_rosegment = p->no_rosegment && is_lld_or_mold(res->linker);
}

/* Whether the user asked for lld or mold (in CFLAGS, LDFLAGS or a -D
 * definition), whose default layout needs --no-rosegment. */
bool fg_wants_lld(const fg_project *p)
{
	const char *s[2] = { p->opts.cflags, p->opts.ldflags };
	for (size_t i = 0; i < 2; i++)
		if (s[i] && (strstr(s[i], "-fuse-ld=lld") || strstr(s[i], "-fuse-ld=mold")))
			return true;
	for (size_t i = 0; i < p->opts.ndefines; i++)
		if (strstr(p->opts.defines[i], "-fuse-ld=lld") || strstr(p->opts.defines[i], "-fuse-ld=mold"))
			return true;
	return false;
}
