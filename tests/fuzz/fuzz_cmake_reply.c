/* Fuzz target: the CMake File API reply reader (fg_cmake_read_replies).
 * One input holds several reply files, each starting with a line
 *
 *     >>> NAME
 *
 * (index-*.json, the codemodel-v2, cache-v2 and target replies, and
 * "ctest.json" for `ctest --show-only=json-v1`), the form
 * collect-seeds.sh packs a real configure of examples/cmake into. Which
 * -p package and --features are asked for comes from a hash of the input.
 *
 * Checks beyond "no crash": targets have names and a known kind,
 * executables an absolute path, CTest targets a command; every error has
 * a message. */
#include "lib/project/cmake/cmake.h"
#include "fuzz_project.h"
#include "util/strvec.h"

#define FZ_MAX_FILES 64

/* Splits the input at ">>> NAME" lines; returns the number of files.
 * Names are copied into `names` (NUL-terminated); data points into the
 * input. */
static size_t split_files(const char *data, size_t size, fg_cmake_reply *files, fg_strvec *names)
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
			files[n].name = names->v[names->n - 1];
			files[n].data = nl ? nl + 1 : end;
			files[n].len = 0;
			n++;
		} else if (n) {
			files[n - 1].len = (size_t)((nl ? nl + 1 : end) - files[n - 1].data);
		}
		s = nl ? nl + 1 : end;
	}
	/* fg_strvec_push may move its array: point the names again */
	for (size_t i = 0; i < n; i++)
		files[i].name = names->v[i];
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const packages[] = { "stress", "sub", "./tests/", "." };
	static const char *const features[] = { "fast-hash", "checksum", "ENABLE_FAST_HASH", "nope" };
	fg_project_opts opts = FG_PROJECT_OPTS_INIT;
	fg_cmake_reply files[FZ_MAX_FILES];
	fg_strvec names = FG_STRVEC_INIT;
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
	if (!(p = fz_project("CMakeLists.txt", &opts)))
		goto done;
	err = fg_cmake_read_replies(p, files, n);
	fz_check_error(err);
	fz_check_targets(p, false);
	for (size_t i = 0; !err && i < p->ntargets; i++) {
		const struct fg_target *t = &p->targets[i];
		if (t->ctest && (!t->argv.n || !t->exe || !t->cwd))
			fz_fail("a CTest target without a command or folder");
		if (!t->ctest && (!t->exe || t->exe[0] != '/' || !t->build_name))
			fz_fail("an executable target without an absolute path or build name");
	}
	fg_project_free(p);
done:
	fg_strvec_clear(&names);
	fg_error_clear();
	return 0;
}
