/* The link-layout fix of SPEC 5 where flamegraph-build controls the link:
 * executables linked by lld or mold get -Wl,--no-rosegment (see
 * builder.h). What linked a file is read by the ELF check
 * (flamegraph/elfcheck.h), the one reader of `.comment`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph/elfcheck.h"
#include "flamegraph/error.h"
#include "lib/builder/builder.h"
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

void fg_rosegment_load(fg_project *p)
{
	char *marker = fg_path_join(p->build_dir, ROSEGMENT_MARKER);

	if (marker && fg_path_is_file(marker))
		p->no_rosegment = true;
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
		char *marker = fg_path_join(p->build_dir, ROSEGMENT_MARKER);
		FILE *f = marker ? fopen(marker, "w") : NULL;
		if (f)
			fclose(f);
		free(marker);
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
