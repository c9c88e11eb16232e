/* Runs a fuzz target's LLVMFuzzerTestOneInput over files, without
 * libFuzzer: the CTest replay of every seed corpus and every crash
 * reproducer, in any build (gcc, ASan/UBSan, plain).
 *
 *   replay-NAME [--min N] PATH...
 *
 * PATH is a file or a folder (walked recursively, in sorted order, dot
 * files skipped); a missing PATH is skipped, so an empty crash folder need
 * not exist. Each input is read into a buffer of exactly its size, so that
 * a sanitizer catches any read past the end. Fails when fewer than N
 * inputs (default 1) were found: a replay that ran nothing proves nothing. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Optional in a target, as with libFuzzer. */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static unsigned long ninputs;

static int run_file(const char *path, off_t size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t n = (size_t)size;
	int rc = 1;

	if (!f) {
		fprintf(stderr, "replay: cannot open %s: %s\n", path, strerror(errno));
		return 1;
	}
	/* malloc(0) may return NULL; keep a real (empty) allocation */
	if (!(buf = malloc(n ? n : 1))) {
		fprintf(stderr, "replay: out of memory reading %s\n", path);
		goto done;
	}
	if (fread(buf, 1, n, f) != n) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		goto done;
	}
	fprintf(stderr, "replay: %s (%zu bytes)\n", path, n);
	LLVMFuzzerTestOneInput(buf, n);
	ninputs++;
	rc = 0;
done:
	free(buf);
	fclose(f);
	return rc;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_path(const char *path);

static int run_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, alloc = 0, i, len;
	int rc = 0;

	if (!d) {
		fprintf(stderr, "replay: cannot open folder %s: %s\n", path, strerror(errno));
		return 1;
	}
	while ((e = readdir(d))) {
		char **grown;
		if (e->d_name[0] == '.')
			continue;
		if (n == alloc) {
			alloc = alloc ? alloc * 2 : 64;
			if (!(grown = realloc(names, alloc * sizeof(*names)))) {
				rc = 1;
				break;
			}
			names = grown;
		}
		len = strlen(path) + strlen(e->d_name) + 2;
		if (!(names[n] = malloc(len))) {
			rc = 1;
			break;
		}
		snprintf(names[n], len, "%s/%s", path, e->d_name);
		n++;
	}
	closedir(d);
	if (!rc)
		qsort(names, n, sizeof(*names), by_name);
	for (i = 0; i < n; i++) {
		if (!rc)
			rc = run_path(names[i]);
		free(names[i]);
	}
	free(names);
	return rc;
}

static int run_path(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return errno == ENOENT ? 0 : 1;
	if (S_ISDIR(st.st_mode))
		return run_dir(path);
	if (S_ISREG(st.st_mode))
		return run_file(path, st.st_size);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long min = 1;
	int i = 1;

	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	if (i + 1 < argc && !strcmp(argv[i], "--min")) {
		min = strtoul(argv[i + 1], NULL, 10);
		i += 2;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: %s [--min N] FILE-OR-FOLDER...\n", argv[0]);
		return 2;
	}
	for (; i < argc; i++)
		if (run_path(argv[i]))
			return 1;
	fprintf(stderr, "replay: %lu inputs ran without a crash\n", ninputs);
	if (ninputs < min) {
		fprintf(stderr, "replay: expected at least %lu inputs — are the seed folders there?\n", min);
		return 1;
	}
	return 0;
}
