/* fg_outfile_install across file systems: a finished file or folder of
 * files made on a tmpfs (/dev/shm) and put in place on the disk of
 * TMPDIR, where rename gives EXDEV and the copy path runs; and into a
 * FIFO and /dev/null, which are written in place. */
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>

#include "flamegraph/error.h"
#include "util/outfile.h"

struct dirs {
	char disk[256]; /* under TMPDIR */
	char shm[256];  /* under /dev/shm */
};

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static int teardown(void **state)
{
	struct dirs *d = *state;

	if (d) {
		if (d->disk[0])
			nftw(d->disk, remove_one, 16, FTW_DEPTH | FTW_PHYS);
		if (d->shm[0])
			nftw(d->shm, remove_one, 16, FTW_DEPTH | FTW_PHYS);
		free(d);
	}
	return 0;
}

/* A folder on each file system; the test is skipped where they are one. */
static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");
	struct dirs *d = calloc(1, sizeof(*d));
	struct stat a, b;

	if (!d)
		return -1;
	*state = d;
	snprintf(d->disk, sizeof(d->disk), "%s/fgoutfile.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	snprintf(d->shm, sizeof(d->shm), "/dev/shm/fgoutfile.XXXXXX");
	if (!mkdtemp(d->disk))
		d->disk[0] = '\0';
	if (!mkdtemp(d->shm))
		d->shm[0] = '\0';
	if (!d->disk[0] || !d->shm[0] || stat(d->disk, &a) || stat(d->shm, &b))
		return 0;
	if (a.st_dev == b.st_dev) {
		rmdir(d->shm);
		d->shm[0] = '\0';
	}
	return 0;
}

/* The test's folders, or a skip that says why there are none. */
static const struct dirs *dirs(void **state)
{
	const struct dirs *d = *state;

	if (!d->disk[0] || !d->shm[0]) {
		print_message("skipped: needs /dev/shm and TMPDIR on two file systems\n");
		skip();
	}
	return d;
}

static void put(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static void assert_text(const char *path, const char *text)
{
	char buf[256] = "";
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	assert_string_equal(buf, text);
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	return st.st_mode & 07777;
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* Nothing but the names expected in dir: no temporary left behind. */
static void assert_only(const char *dir, const char *const *names, size_t n)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	size_t seen = 0;

	assert_non_null(dp);
	while ((e = readdir(dp))) {
		bool known = false;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		for (size_t i = 0; i < n; i++)
			known |= !strcmp(e->d_name, names[i]);
		if (!known)
			fail_msg("%s holds %s, which nothing asked for", dir, e->d_name);
		seen++;
	}
	closedir(dp);
	assert_int_equal(seen, n);
}

#define P(buf, ...) snprintf(buf, sizeof(buf), __VA_ARGS__)

static void a_new_file_is_copied_with_its_mode(void **state)
{
	const struct dirs *d = dirs(state);
	char from[600], to[600];
	const char *names[] = { "new.data" };

	P(from, "%s/rec", d->shm);
	P(to, "%s/new.data", d->disk);
	put(from, "recorded\n", 0640);
	assert_int_equal(fg_outfile_install(to, from, false), 0);
	assert_text(to, "recorded\n");
	assert_int_equal(mode_of(to), 0640);
	assert_false(exists(from));
	assert_only(d->disk, names, 1);
}

/* The old file is replaced by a rename: whoever has it open still reads
 * the old text; its mode stays. */
static void an_existing_file_is_replaced_atomically(void **state)
{
	const struct dirs *d = dirs(state);
	char from[600], to[600], buf[16] = "";
	const char *names[] = { "old.data" };
	struct stat before, after;
	int fd;

	P(from, "%s/rec", d->shm);
	P(to, "%s/old.data", d->disk);
	put(to, "old\n", 0640);
	put(from, "new\n", 0600);
	assert_int_equal(stat(to, &before), 0);
	assert_true((fd = open(to, O_RDONLY)) >= 0);
	assert_int_equal(fg_outfile_install(to, from, false), 0);
	assert_text(to, "new\n");
	assert_int_equal(read(fd, buf, sizeof(buf) - 1), 4);
	close(fd);
	assert_string_equal(buf, "old\n");
	assert_int_equal(stat(to, &after), 0);
	assert_true(after.st_ino != before.st_ino);
	assert_int_equal(mode_of(to), 0640);
	assert_false(exists(from));
	assert_only(d->disk, names, 1);
}

/* A link is followed: its target is replaced, the link stays. */
static void a_link_target_is_replaced(void **state)
{
	const struct dirs *d = dirs(state);
	char from[600], to[600], target[600];
	const char *names[] = { "link", "target" };
	struct stat st;

	P(from, "%s/rec", d->shm);
	P(to, "%s/link", d->disk);
	P(target, "%s/target", d->disk);
	put(target, "old\n", 0640);
	assert_int_equal(symlink("target", to), 0);
	put(from, "new\n", 0600);
	assert_int_equal(fg_outfile_install(to, from, false), 0);
	assert_int_equal(lstat(to, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_text(target, "new\n");
	assert_int_equal(mode_of(target), 0640);
	assert_false(exists(from));
	assert_only(d->disk, names, 2);
}

/* A folder of recordings: its files copied into a new folder beside the
 * target, which is renamed into place; an empty folder is replaced. */
static void a_folder_is_copied(void **state)
{
	const struct dirs *d = dirs(state);
	char src[600], a[700], b[700], to[600], got[700];
	const char *names[] = { "recs" };

	for (int empty = 0; empty < 2; empty++) {
		P(src, "%s/dir", d->shm);
		P(a, "%s/alloc.1", src);
		P(b, "%s/alloc.2", src);
		P(to, "%s/recs", d->disk);
		assert_int_equal(mkdir(src, 0700), 0);
		put(a, "A\n", 0600);
		put(b, "B\n", 0644);
		if (empty)
			assert_int_equal(mkdir(to, 0755), 0);
		assert_int_equal(fg_outfile_install(to, src, true), 0);
		P(got, "%s/alloc.1", to);
		assert_text(got, "A\n");
		assert_int_equal(mode_of(got), 0600);
		P(got, "%s/alloc.2", to);
		assert_text(got, "B\n");
		assert_int_equal(mode_of(got), 0644);
		assert_false(exists(src));
		assert_only(d->disk, names, 1);
		nftw(to, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	}
}

/* A folder that holds files is not replaced: an error, the target as it
 * was, the source kept, no temporary folder left. */
static void a_full_folder_is_kept(void **state)
{
	const struct dirs *d = dirs(state);
	char src[600], a[700], to[600], mine[700];
	const char *names[] = { "recs" };

	P(src, "%s/dir", d->shm);
	P(a, "%s/alloc.1", src);
	P(to, "%s/recs", d->disk);
	P(mine, "%s/mine", to);
	assert_int_equal(mkdir(src, 0700), 0);
	put(a, "A\n", 0600);
	assert_int_equal(mkdir(to, 0755), 0);
	put(mine, "mine\n", 0644);
	assert_int_equal(fg_outfile_install(to, src, true), FG_EIO);
	assert_non_null(strstr(fg_error_last(), to));
	assert_text(mine, "mine\n");
	assert_text(a, "A\n");
	assert_only(d->disk, names, 1);
}

/* A FIFO is written in place: it stays one, the reader gets the text. */
static void a_fifo_is_written_in_place(void **state)
{
	const struct dirs *d = dirs(state);
	char from[600], to[600], buf[64] = "";
	struct stat st;
	int rfd;

	P(from, "%s/rec", d->shm);
	P(to, "%s/fifo", d->disk);
	put(from, "through\n", 0600);
	assert_int_equal(mkfifo(to, 0640), 0);
	/* a reader already there: the writer's open does not wait */
	assert_true((rfd = open(to, O_RDONLY | O_NONBLOCK)) >= 0);
	assert_int_equal(fg_outfile_install(to, from, false), 0);
	assert_int_equal(read(rfd, buf, sizeof(buf) - 1), 8);
	close(rfd);
	assert_string_equal(buf, "through\n");
	assert_int_equal(lstat(to, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_false(exists(from));
}

/* /dev/null is written, never replaced: still the device 1,3, 0666. */
static void dev_null_is_written_in_place(void **state)
{
	const struct dirs *d = dirs(state);
	char from[600];
	struct stat st;

	P(from, "%s/rec", d->shm);
	put(from, "discarded\n", 0600);
	assert_int_equal(fg_outfile_install("/dev/null", from, false), 0);
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(major(st.st_rdev), 1);
	assert_int_equal(minor(st.st_rdev), 3);
	assert_int_equal(st.st_mode & 07777, 0666);
	assert_false(exists(from));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(a_new_file_is_copied_with_its_mode, setup, teardown),
		cmocka_unit_test_setup_teardown(an_existing_file_is_replaced_atomically, setup, teardown),
		cmocka_unit_test_setup_teardown(a_link_target_is_replaced, setup, teardown),
		cmocka_unit_test_setup_teardown(a_folder_is_copied, setup, teardown),
		cmocka_unit_test_setup_teardown(a_full_folder_is_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(a_fifo_is_written_in_place, setup, teardown),
		cmocka_unit_test_setup_teardown(dev_null_is_written_in_place, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
