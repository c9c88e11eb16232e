/* Unit tests of the util layer: strbuf, number parsing, hash map, word
 * splitting, the option parser, a thread's scheduling put back. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "flamegraph/error.h"
#include "cli/common/opts.h"
#include "util/hashmap.h"
#include "util/input.h"
#include "util/process.h"
#include "util/strbuf.h"
#include "util/strvec.h"

static void strbuf_grows_and_caps(void **state)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	int i;

	for (i = 0; i < 1000; i++)
		assert_int_equal(fg_strbuf_addf(&sb, "%d,", i), 0);
	assert_true(sb.len > 3000);
	assert_int_equal(sb.buf[sb.len], '\0');
	fg_strbuf_release(&sb);

	sb.cap = 4;
	assert_int_equal(fg_strbuf_addstr(&sb, "abcdef"), FG_ELIMIT);
	assert_string_equal(sb.buf, "abcd");
	fg_strbuf_release(&sb);
}

/* A failed growth is sticky: later appends do nothing, the buffer says
 * so until released, detach hands out nothing; real allocation failures
 * are counted for the programs' check. */
static void strbuf_failure_is_sticky(void **state)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	unsigned long before = fg_error_nomem_count();
	fg_strvec sv = FG_STRVEC_INIT;
	fg_cmd cmd = FG_CMD_INIT;
	fg_exit_status st;
	size_t len = 1;

	(void)state;
	assert_int_equal(fg_strbuf_addstr(&sb, "abc"), 0);
	assert_false(fg_strbuf_failed(&sb));
#ifndef __SANITIZE_ADDRESS__ /* its allocator aborts on such a size */
	/* grown to 2^63 bytes: no machine gives them */
	assert_int_equal(fg_strbuf_grow(&sb, SIZE_MAX / 4), FG_ENOMEM);
	assert_int_equal(fg_error_nomem_count(), before + 1);
	before++;
#else
	assert_int_equal(fg_strbuf_grow(&sb, SIZE_MAX), FG_ENOMEM);
#endif
	assert_true(fg_strbuf_failed(&sb));
	assert_int_equal(fg_strbuf_addstr(&sb, "def"), FG_ENOMEM);
	assert_int_equal(fg_strbuf_addf(&sb, "%d", 1), FG_ENOMEM);
	assert_string_equal(sb.buf, "abc");
	fg_strbuf_reset(&sb);
	assert_true(fg_strbuf_failed(&sb));
	assert_int_equal(fg_strbuf_check(&sb), FG_ENOMEM);
	assert_null(fg_strbuf_detach(&sb, &len));
	assert_int_equal(len, 0);
	/* released (detach releases a failed buffer): usable again */
	assert_false(fg_strbuf_failed(&sb));
	assert_int_equal(fg_strbuf_addstr(&sb, "x"), 0);
	assert_int_equal(fg_strbuf_check(&sb), 0);
	fg_strbuf_release(&sb);

	/* a size that overflows fails too, but is no allocation failure */
	assert_int_equal(fg_strbuf_addstr(&sb, "abc"), 0);
	assert_int_equal(fg_strbuf_grow(&sb, SIZE_MAX), FG_ENOMEM);
	assert_true(fg_strbuf_failed(&sb));
	assert_int_equal(fg_error_nomem_count(), before);
	fg_strbuf_release(&sb);
#ifndef __SANITIZE_ADDRESS__
	assert_null(fg_malloc(SIZE_MAX / 2));
	assert_int_equal(fg_error_nomem_count(), before + 1);
#endif

	/* a command whose argv failed is never run */
	assert_int_equal(fg_strvec_push(&cmd.argv, "true"), 0);
	cmd.argv.failed = true;
	assert_int_equal(fg_strvec_push(&cmd.argv, "x"), FG_ENOMEM);
	assert_int_equal(cmd.argv.n, 1);
	assert_int_equal(fg_cmd_run(&cmd, &st), FG_ENOMEM);
	fg_cmd_clear(&cmd);
	/* clearing forgets the failure */
	sv.failed = true;
	fg_strvec_clear(&sv);
	assert_false(fg_strvec_failed(&sv));
	assert_int_equal(fg_strvec_push(&sv, "a"), 0);
	fg_strvec_clear(&sv);
}

static void numbers_parse_with_overflow_checks(void **state)
{
	unsigned long long u;
	long long i;
	double d;

	assert_int_equal(fg_parse_u64(fg_view_cstr("18446744073709551615"), &u), 0);
	assert_true(u == 18446744073709551615ULL);
	assert_int_equal(fg_parse_u64(fg_view_cstr("18446744073709551616"), &u), FG_ELIMIT);
	assert_int_equal(fg_parse_u64(fg_view_cstr("12a"), &u), FG_EPARSE);
	assert_int_equal(fg_parse_u64(fg_view_cstr(""), &u), FG_EPARSE);
	assert_int_equal(fg_parse_i64(fg_view_cstr("-9223372036854775808"), &i), 0);
	assert_true(i == INT64_MIN);
	assert_int_equal(fg_parse_double(fg_view_cstr("2.5"), &d), 0);
	assert_true(d == 2.5);
	assert_int_equal(fg_parse_double(fg_view_cstr("2.5x"), &d), FG_EPARSE);
}

static void strmap_counts_and_sorts(void **state)
{
	fg_strmap m = FG_STRMAP_INIT;
	fg_strmap_entry **sorted;
	char key[32];
	int i;

	for (i = 0; i < 10000; i++) {
		int n = snprintf(key, sizeof(key), "k%05d", i % 5000);
		fg_strmap_put(&m, key, (size_t)n)->value.u++;
	}
	assert_int_equal(m.count, 5000);
	assert_int_equal(fg_strmap_get(&m, "k04999", 6)->value.u, 2);
	assert_null(fg_strmap_get(&m, "k05000", 6));
	sorted = fg_strmap_sorted(&m);
	assert_string_equal(sorted[0]->key, "k00000");
	assert_string_equal(sorted[4999]->key, "k04999");
	free(sorted);
	assert_ptr_equal(fg_strmap_intern(&m, "k00001", 6), fg_strmap_intern(&m, "k00001", 6));
	fg_strmap_release(&m);
}

/* fg_hash_long: fg_hash_bytes below 64 bytes; from there on every byte
 * counts (the last block overlaps the ones before), and a map filled
 * with it finds every key (fg_strmap_put_hashed, fg_strmap_find_stored). */
static void long_keys_hash_every_byte(void **state)
{
	fg_strmap m = FG_STRMAP_INIT;
	char key[300];
	size_t n, i;

	memset(key, 'a', sizeof(key));
	for (n = 0; n < 64; n++)
		assert_true(fg_hash_long(key, n) == fg_hash_bytes(key, n));
	for (n = 64; n <= sizeof(key); n += 7) {
		uint64_t h = fg_hash_long(key, n);
		for (i = 0; i < n; i += 13) {
			key[i] = 'b';
			assert_true(fg_hash_long(key, n) != h);
			key[i] = 'a';
		}
		key[n - 1] = 'b';
		assert_true(fg_hash_long(key, n) != h);
		key[n - 1] = 'a';
		assert_true(fg_hash_long(key, n) != fg_hash_long(key, n - 1));
	}
	for (n = 1; n <= sizeof(key); n++) {
		fg_strmap_entry *e = fg_strmap_put_hashed(&m, key, n, fg_hash_long(key, n));
		assert_non_null(e);
		e->value.u = n;
	}
	assert_int_equal(m.count, sizeof(key));
	for (n = 1; n <= sizeof(key); n++) {
		fg_strmap_entry *e = fg_strmap_put_hashed(&m, key, n, fg_hash_long(key, n));
		assert_int_equal(e->value.u, n);
		assert_ptr_equal(fg_strmap_find_stored(&m, e->key, e->hash), e);
	}
	assert_null(fg_strmap_find_stored(&m, key, fg_hash_long(key, 5)));
	assert_int_equal(m.count, sizeof(key));
	fg_strmap_release(&m);
}

static void split_like_a_shell(void **state)
{
	fg_strvec sv = FG_STRVEC_INIT;
	fg_strbuf sb = FG_STRBUF_INIT;

	assert_int_equal(fg_strvec_split(&sv, "sed -e 's/a b/c/' \"x \\\"y\\\"\" z\\ w"), 0);
	assert_int_equal(sv.n, 5);
	assert_string_equal(sv.v[2], "s/a b/c/");
	assert_string_equal(sv.v[3], "x \"y\"");
	assert_string_equal(sv.v[4], "z w");
	fg_strvec_join_quoted(&sv, &sb);
	assert_string_equal(sb.buf, "sed -e 's/a b/c/' 'x \"y\"' 'z w'");
	fg_strvec_clear(&sv);
	assert_int_equal(fg_strvec_split(&sv, "a 'b"), FG_EPARSE);
	fg_strvec_clear(&sv);
	fg_strbuf_release(&sb);
}

static void options_parse_from_the_table(void **state)
{
	bool flag = false;
	const char *out = NULL;
	long long n = 0;
	fg_strlist list = FG_STRLIST_INIT;
	const fg_option options[] = {
		FG_OPT_BOOL('i', "inverted", &flag, "icicle"),
		FG_OPT_STRING('o', "output", &out, "FILE", "output"),
		FG_OPT_INT('n', "nthreads", &n, "N", "threads"),
		FG_OPT_LIST(0, "base", &list, "SYM", "base"),
		FG_OPT_END(),
	};
	fg_cli cli = { "prog", "[OPTIONS]", NULL, NULL, options, false, false };
	char *argv[] = { "prog", "-in4", "a", "--output=x.svg", "--base", "b1",
			 "--base", "b2", "--", "-z", NULL };
	int npos, dd;

	assert_int_equal(fg_opts_parse(&cli, 10, argv, &npos, &dd), FG_OPTS_OK);
	assert_true(flag);
	assert_int_equal(n, 4);
	assert_string_equal(out, "x.svg");
	assert_int_equal(list.count, 2);
	assert_string_equal(list.items[1], "b2");
	assert_int_equal(npos, 2);
	assert_int_equal(dd, 1);
	assert_string_equal(argv[0], "a");
	assert_string_equal(argv[1], "-z");
	fg_strlist_release(&list);
}

static const char *optnum_seen[8];
static int optnum_n;

static int optnum_cb(const fg_option *opt, const char *arg, void *target)
{
	(void)opt;
	(void)target;
	optnum_seen[optnum_n++ & 7] = arg ? arg : "(none)";
	return 0;
}

/* -z, -zN, -z N, --level, --level=N, --level N: the number is taken from
 * the next argument only when it is all digits, so -z ./prog stays a
 * program */
static void optional_numbers_follow_or_not(void **state)
{
	bool flag = false;
	const fg_option options[] = {
		{ FG_OPT_CALLBACK_, 'z', "level", NULL, "N", "level", FG_OPTF_OPTARG | FG_OPTF_OPTNUM,
		  optnum_cb, NULL, NULL },
		FG_OPT_BOOL('i', "inverted", &flag, "icicle"),
		FG_OPT_END(),
	};
	fg_cli cli = { "prog", "[OPTIONS]", NULL, NULL, options, false, false };
	char *argv[] = { "prog", "-z", "-z3", "-z", "5", "--level", "--level=7", "--level", "9",
			 "-z", "./prog", "-iz", "12", NULL };
	int npos, dd;

	(void)state;
	optnum_n = 0;
	assert_int_equal(fg_opts_parse(&cli, 13, argv, &npos, &dd), FG_OPTS_OK);
	assert_int_equal(optnum_n, 8);
	assert_string_equal(optnum_seen[0], "(none)");
	assert_string_equal(optnum_seen[1], "3");
	assert_string_equal(optnum_seen[2], "5");
	assert_string_equal(optnum_seen[3], "(none)");
	assert_string_equal(optnum_seen[4], "7");
	assert_string_equal(optnum_seen[5], "9");
	assert_string_equal(optnum_seen[6], "(none)");
	assert_string_equal(optnum_seen[7], "12");
	assert_true(flag);
	assert_int_equal(npos, 1);
	assert_string_equal(argv[0], "./prog");
}

static void arrays_grow_by_doubling(void **state)
{
	int *v = NULL;
	size_t n = 0, alloc = 0;

	for (n = 0; n < 1000; n++) {
		assert_int_equal(FG_ALLOC_GROW(v, n + 1, alloc, 16), 0);
		v[n] = (int)n;
	}
	assert_true(alloc >= 1000 && alloc <= 2048);
	assert_int_equal(v[999], 999);
	assert_int_equal(FG_ALLOC_GROW(v, (size_t)-1, alloc, 16), FG_ENOMEM);
	assert_int_equal(v[999], 999);
	free(v);
}

static void same_file_by_inode(void **state)
{
	assert_true(fg_same_file("/proc/self/exe", "/proc/self/exe"));
	assert_true(fg_same_file("/etc/passwd", "/etc/../etc/passwd"));
	assert_false(fg_same_file("/etc/passwd", "/etc/group"));
	assert_false(fg_same_file("/nonexistent/a", "/nonexistent/a"));
}

/* Adding context to a callee's message passes the message buffer itself
 * as an argument: it must come out once, prefixed once. */
static void error_set_may_quote_the_last_error(void **state)
{
	char longer[900];
	int i;

	fg_error_set(FG_EPARSE, "unterminated quote");
	assert_int_equal(fg_error_set(FG_EINVAL, "-c/--cmd: %s", fg_error_last()), FG_EINVAL);
	assert_string_equal(fg_error_last(), "-c/--cmd: unterminated quote");
	assert_int_equal(fg_error_last_code(), FG_EINVAL);
	fg_error_set(FG_EINVAL, "%s; %s", fg_error_last(), fg_error_last());
	assert_string_equal(fg_error_last(),
			    "-c/--cmd: unterminated quote; -c/--cmd: unterminated quote");

	/* near the buffer's size: cut, still NUL-terminated, no overrun */
	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	fg_error_set(FG_EIO, "%s", longer);
	for (i = 0; i < 3; i++)
		fg_error_set(FG_EIO, "again: %s", fg_error_last());
	assert_true(strlen(fg_error_last()) < 1024);
	assert_memory_equal(fg_error_last(), "again: again: again: xxx", 24);
	fg_error_clear();
	assert_string_equal(fg_error_last(), "");
}

static volatile sig_atomic_t their_sigbus;

static void count_sigbus(int sig)
{
	their_sigbus++;
}

static void *read_byte(void *p)
{
	return (void *)(uintptr_t)*(volatile const char *)p;
}

/* A mapped file cut short reads as zeros past the cut, in any thread,
 * and says so; a SIGBUS that is not a fault in a mapping still goes to
 * the handler that was there before. */
static void mapped_file_cut_short_is_reported(void **state)
{
	char path[] = "/tmp/fg-test-map.XXXXXX", block[65536];
	const char *data;
	size_t len;
	void *got;
	pthread_t t;
	int fd;

	signal(SIGBUS, count_sigbus);
	assert_true((fd = mkstemp(path)) >= 0);
	memset(block, 'a', sizeof(block));
	assert_int_equal(write(fd, block, sizeof(block)), (ssize_t)sizeof(block));
	close(fd);
	assert_int_equal(fg_input_map(path, 0, 0, &data, &len), 1);
	assert_int_equal(len, sizeof(block));
	assert_int_equal(fg_input_map_check(data), 0);
	raise(SIGBUS);
	assert_int_equal(their_sigbus, 1);

	assert_int_equal(truncate(path, 5000), 0);
	assert_int_equal(pthread_create(&t, NULL, read_byte, (void *)(data + 40000)), 0);
	assert_int_equal(pthread_join(t, &got), 0);
	assert_int_equal((uintptr_t)got, 0);
	assert_int_equal(data[100], 'a');
	assert_int_equal(data[len - 1], 0);
	assert_int_equal(their_sigbus, 1);
	assert_int_equal(fg_input_map_check(data), FG_EIO);
	assert_non_null(strstr(fg_error_last(), "was cut short while it was read (it shrank "
						"from 65536 to 5000 bytes)"));
	assert_int_equal(fg_input_maps_check(), FG_EIO);
	fg_input_unmap(data, len);
	assert_int_equal(fg_input_maps_check(), 0);
	unlink(path);
	signal(SIGBUS, SIG_DFL);
}

/* fg_sched_ahead, then fg_sched_restore: the thread's policy, real-time
 * priority and nice are again those fg_sched_save saw. (Where the
 * system allows no change, there is nothing to put back: skipped.) */
static void sched_ahead_is_put_back(void **state)
{
	fg_sched_saved before, ahead, after;

	(void)state;
	fg_sched_save(&before);
	assert_true(before.have_policy && before.have_nice);
	fg_sched_ahead();
	fg_sched_save(&ahead);
	fg_sched_restore(&before);
	fg_sched_save(&after);
	assert_int_equal(after.policy, before.policy);
	assert_int_equal(after.priority, before.priority);
	assert_int_equal(after.nice, before.nice);
	if (ahead.policy == before.policy && ahead.priority == before.priority &&
	    ahead.nice == before.nice)
		skip();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(strbuf_grows_and_caps),
		cmocka_unit_test(strbuf_failure_is_sticky),
		cmocka_unit_test(numbers_parse_with_overflow_checks),
		cmocka_unit_test(strmap_counts_and_sorts),
		cmocka_unit_test(long_keys_hash_every_byte),
		cmocka_unit_test(split_like_a_shell),
		cmocka_unit_test(options_parse_from_the_table),
		cmocka_unit_test(optional_numbers_follow_or_not),
		cmocka_unit_test(arrays_grow_by_doubling),
		cmocka_unit_test(same_file_by_inode),
		cmocka_unit_test(error_set_may_quote_the_last_error),
		cmocka_unit_test(mapped_file_cut_short_is_reported),
		cmocka_unit_test(sched_ahead_is_put_back),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
