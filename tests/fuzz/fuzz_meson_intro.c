/* Fuzz target: the Meson introspection reader (fg_meson_read_intro) and
 * the configure arguments made from the options it reads
 * (fg_meson_setup_args). One input holds several files, each starting
 * with a line
 *
 *     >>> NAME
 *
 * (intro-targets.json, intro-tests.json, intro-benchmarks.json,
 * intro-buildoptions.json, intro-projectinfo.json), as a configure of
 * examples/meson writes them into meson-info/. Which -p package and
 * --features are asked for comes from a hash of the input.
 *
 * Checks beyond "no crash": targets have names and a known kind,
 * executables a path and a build name, tests and benchmarks a command
 * and a folder; every error has a message. */
#include "fuzz_project.h"
#include "lib/project/meson/meson.h"
#include "util/strvec.h"

#define FZ_MAX_FILES 16

static size_t split_files(const char *data, size_t size, fg_meson_file *files, fg_strvec *names)
{
	const char *end = data + size, *s = data;
	size_t n = 0;

	while (s < end && n < FZ_MAX_FILES) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *line_end = nl ? nl : end;
		if ((size_t)(line_end - s) >= 4 && !memcmp(s, ">>> ", 4)) {
			char *name = fg_strndup(s + 4, (size_t)(line_end - s - 4));
			if (!name || fg_strvec_push(names, name)) {
				free(name);
				break;
			}
			free(name);
			files[n].data = nl ? nl + 1 : end;
			files[n].len = 0;
			n++;
		} else if (n) {
			files[n - 1].len = (size_t)((nl ? nl + 1 : end) - files[n - 1].data);
		}
		s = nl ? nl + 1 : end;
	}
	for (size_t i = 0; i < n; i++)
		files[i].name = names->v[i];
	return n;
}

static const char *file_text(const fg_meson_file *files, size_t n, const char *name, fg_strbuf *sb)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(files[i].name, name))
			continue;
		fg_strbuf_reset(sb);
		fg_strbuf_add(sb, files[i].data, files[i].len);
		return sb->buf ? sb->buf : "";
	}
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const packages[] = { "wordstat", "sub", "zz", "" };
	static const char *const features[] = { "fast-hash", "checksum", "FAST_HASH", "nope" };
	static const char *const profiles[] = { "release", "dev", "minsize", "fast" };
	fg_project_opts opts = FG_PROJECT_OPTS_INIT;
	fg_meson_file files[FZ_MAX_FILES];
	fg_strvec names = FG_STRVEC_INIT, args = FG_STRVEC_INIT;
	fg_strbuf text = FG_STRBUF_INIT;
	fz_rng rng = fz_rng_of(data, size);
	uint64_t r = fz_next(&rng);
	size_t n = split_files((const char *)data, size, files, &names);
	fg_project *p;
	int err;

	if (r & 1)
		opts.package = packages[(r >> 1) % 4];
	if (r & 8) {
		opts.features = features + (r >> 4) % 4;
		opts.nfeatures = 1;
	}
	opts.all_features = (r & 0x300) == 0x100;
	opts.no_default_features = (r & 0x300) == 0x200;
	if (!(p = fz_project("meson.build", &opts)))
		goto done;
	free(p->profile);
	p->profile = fg_strdup(profiles[(r >> 10) % 4]);
	err = p->profile ? fg_meson_read_intro(p, files, n) : FG_ENOMEM;
	fz_check_error(err);
	fz_check_targets(p, false);
	for (size_t i = 0; !err && i < p->ntargets; i++) {
		const struct fg_target *t = &p->targets[i];
		if (t->ctest && (!t->argv.n || !t->exe || !t->cwd))
			fz_fail("a Meson test without a command or folder");
		if (!t->ctest && (!t->exe || !t->build_name))
			fz_fail("an executable target without a path or build name");
	}
	if (!err) {
		const char *options = file_text(files, n, "intro-buildoptions.json", &text);
		err = fg_meson_setup_args(p, "-fno-omit-frame-pointer", options, options, NULL, &args);
		fz_check_error(err);
	}
	fg_project_free(p);
done:
	fg_strvec_clear(&args);
	fg_strvec_clear(&names);
	fg_strbuf_release(&text);
	fg_error_clear();
	return 0;
}
