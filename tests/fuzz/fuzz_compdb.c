/* Fuzz target: the compile_commands.json reader. The input is the text of
 * <scratch>/compile_commands.json (fuzz_project.h); fg_compdb_parse_memory
 * reads its entries into compile units without compiling anything, then a
 * hash of the input picks which units "define main" and
 * fg_compdb_add_targets names a target after each.
 *
 * Checks beyond "no crash": every unit compiles into the flamegraph build
 * folder (its command ends "-c -o OBJECT -g -fno-omit-frame-pointer", then
 * "-grecord-command-line" exactly when the compiler is a clang, the
 * object under <build>/obj/ with no "/../" climbing out of it: a recorded
 * path must never make us write into the user's tree); target names are
 * distinct; every error has a message. */
#include "lib/project/compdb/compdb.h"
#include "fuzz_project.h"

static void check_unit(const fg_project *p, const struct fg_unit *u)
{
	static const char *const tail[] = { "-c", "-o", NULL, "-g", "-fno-omit-frame-pointer" };
	size_t n = u->argv.n, blen = strlen(p->build_dir);
	const char *base;

	if (!u->source || u->source[0] != '/' || !u->dir || !u->object)
		fz_fail("a unit without an absolute source, folder or object");
	/* clang is asked to record its flags (for the frame-pointer check) */
	base = strrchr(u->argv.v[0], '/');
	if (!strncmp(base ? base + 1 : u->argv.v[0], "clang", 5)) {
		if (n < 7 || strcmp(u->argv.v[n - 1], "-grecord-command-line"))
			fz_fail("a clang unit without -grecord-command-line last");
		n--;
	}
	if (n < 6)
		fz_fail("a unit command shorter than compiler, source and our five arguments");
	for (size_t i = 0; i < 5; i++)
		if (tail[i] && strcmp(u->argv.v[n - 5 + i], tail[i]))
			fz_fail("a unit command that does not end in -c -o OBJECT -g -fno-omit-frame-pointer");
	if (strcmp(u->argv.v[n - 3], u->object))
		fz_fail("a unit compiling into another object than its own");
	if (strncmp(u->object, p->build_dir, blen) || strncmp(u->object + blen, "/obj/", 5) ||
	    strstr(u->object + blen, "/../"))
		fz_fail("an object outside <build>/obj/");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fg_project_opts opts = FG_PROJECT_OPTS_INIT;
	fz_rng rng = fz_rng_of(data, size);
	fg_project *p = fz_project("compile_commands.json", &opts);
	int err;

	if (!p)
		return 0;
	err = fg_compdb_parse_memory(p, (const char *)data, size);
	fz_check_error(err);
	if (!err) {
		uint64_t mains = fz_next(&rng);
		for (size_t i = 0; i < p->nunits; i++) {
			check_unit(p, &p->units[i]);
			/* mostly one or two mains, sometimes all of them */
			p->units[i].has_main = (mains & 3) == 0 || ((mains >> (2 + i % 60)) & 1);
		}
		err = fg_compdb_add_targets(p);
		fz_check_error(err);
		fz_check_targets(p, true);
		for (size_t i = 0; !err && i < p->ntargets; i++)
			if (!p->targets[i].exe || p->targets[i].unit >= p->nunits ||
			    !p->units[p->targets[i].unit].has_main)
				fz_fail("a target without an executable or a main unit");
	}
	fg_project_free(p);
	fg_error_clear();
	return 0;
}
