/* Fuzz target: the flamegraph.toml schema reader (fg_tomlproj_read), on
 * top of the TOML reader that fuzz_toml.c covers alone. The reader takes a
 * file name, so the input is written to <scratch>/flamegraph-PID.toml first
 * (fuzz_project.h). A hash of the input picks the profile, the
 * --features, --all-features / --no-default-features, and whether the
 * manifest augments a CMake project.
 *
 * Checks beyond "no crash": a schema or TOML mistake is reported at
 * FILE:LINE:COL of the manifest; every error has a message; a manifest
 * that reads gives targets with names, known kinds and absolute paths. */
#include "lib/project/toml/tomlproj.h"
#include "fuzz_project.h"

static int write_manifest(const char *path, const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		fz_fail("cannot write the manifest into the scratch folder");
	if (size && fwrite(data, 1, size, f) != size)
		fz_fail("cannot write the manifest into the scratch folder");
	return fclose(f);
}

/* --list and choosing each target by name: a chosen target never lacks a
 * required feature, a refusal always says why. */
static void check_selection(const fg_project *p)
{
	free(fg_project_describe(p));
	for (size_t i = 0; i < p->ntargets; i++) {
		const fg_target *t = NULL;
		int err = fg_project_select(&t, p, p->targets[i].kind, p->targets[i].name);
		fz_check_error(err);
		if (!err && (!t || t->missing_features.n))
			fz_fail("a target chosen without its required features");
		if (err && t)
			fz_fail("a refused selection still chose a target");
	}
	fg_error_clear();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const profiles[] = { "release", "dev", "bench", "fast" };
	static const char *const features[] = { "simd", "fast-hash", "logging", "nope" };
	fg_project_opts opts = FG_PROJECT_OPTS_INIT;
	struct fg_tomlproj *tp = NULL;
	fz_rng rng = fz_rng_of(data, size);
	uint64_t r = fz_next(&rng);
	bool augment = (r & 7) == 0;
	char name[64];
	fg_project *p;
	int err;

	if (r & 8) {
		opts.features = features + (r >> 4) % 3;
		opts.nfeatures = 1 + (r >> 6) % 2;
	}
	opts.all_features = (r & 0x300) == 0x100;
	opts.no_default_features = (r & 0x300) == 0x200;
	/* per process: the scratch folder is shared (fuzz_project.h) */
	snprintf(name, sizeof(name), "flamegraph-%ld.toml", (long)getpid());
	if (!(p = fz_project(name, &opts)))
		return 0;
	free(p->profile);
	if (!(p->profile = fg_strdup(profiles[(r >> 10) % 4])) || write_manifest(p->loc.file, data, size))
		goto done;
	err = fg_tomlproj_read(p, p->loc.file, augment, &tp);
	fz_check_error(err);
	if (err == FG_EPARSE && (strncmp(fg_error_last(), p->loc.file, strlen(p->loc.file)) ||
				 fg_error_last()[strlen(p->loc.file)] != ':'))
		fz_fail("a manifest error not at FILE:LINE:COL");
	if (!err) {
		const fg_project *tg = augment ? tp->overrides : p;
		fz_check_targets(tg, false);
		for (size_t i = 0; tg && i < tg->ntargets; i++)
			if (tg->targets[i].exe && tg->targets[i].exe[0] != '/')
				fz_fail("a target executable that is not an absolute path");
	}
	if (!err && !augment)
		check_selection(p);
done:
	if (p)
		unlink(p->loc.file);
	fg_tomlproj_free(tp);
	fg_project_free(p);
	fg_error_clear();
	return 0;
}
