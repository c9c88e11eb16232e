/* The pieces of a bounded, lossless recording that need no perf: ring
 * buffer sizing, sizes read and shown, the record command line of an
 * attached recording, perf's stderr sorted, lost samples counted from a
 * perf.data written here record by record. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "flamegraph/error.h"
#include "flamegraph/perfdata.h"
#include "flamegraph/record.h"
#include "lib/record/capture_msgs.h"
#include "util/strbuf.h"

#define KiB (1024ull)
#define MiB (1024ull * 1024)
#define GiB (1024ull * 1024 * 1024)

/* --- ring buffer --------------------------------------------------------- */

static void buffer_fits_a_quarter_second(void **state)
{
	(void)state;
	/* dwarf at 997 Hz: ~66 KB a sample, 16 MB holds a quarter second */
	assert_int_equal(fg_record_buffer_size(FG_CALL_GRAPH_DWARF, 997, 2, 24 * GiB, 0), 16 * MiB);
	/* frame pointers: the smallest buffer is plenty */
	assert_int_equal(fg_record_buffer_size(FG_CALL_GRAPH_FP, 997, 2, 24 * GiB, 0), 512 * KiB);
	/* a high rate is capped at 64 MB */
	assert_int_equal(fg_record_buffer_size(FG_CALL_GRAPH_DWARF, 20000, 2, 24 * GiB, 0), 64 * MiB);
	/* the buffer grows with the rate */
	assert_true(fg_record_buffer_size(FG_CALL_GRAPH_DWARF, 99, 2, 24 * GiB, 0) <
		    fg_record_buffer_size(FG_CALL_GRAPH_DWARF, 997, 2, 24 * GiB, 0));
	/* 0 Hz means perf's default rate */
	assert_int_equal(fg_record_buffer_size(FG_CALL_GRAPH_DWARF, 0, 2, 24 * GiB, 0), 16 * MiB);
}

static void buffer_bounded_by_ram_and_mlock(void **state)
{
	(void)state;
	/* all buffers together at most 1/32 of the memory */
	assert_int_equal(fg_record_buffer_size(FG_CALL_GRAPH_DWARF, 4000, 2, 1 * GiB, 0), 16 * MiB);
	assert_int_equal(fg_record_buffer_size(FG_CALL_GRAPH_DWARF, 4000, 64, 1 * GiB, 0), 512 * KiB);
	/* an unprivileged user's lock limit (kernel default 516 KB) */
	assert_int_equal(fg_record_buffer_size(FG_CALL_GRAPH_DWARF, 997, 2, 24 * GiB, 516 * KiB), 512 * KiB);
	/* never below what perf needs */
	assert_int_equal(fg_record_buffer_size(FG_CALL_GRAPH_DWARF, 997, 2, 24 * GiB, 4 * KiB), 16 * KiB);
}

static void buffer_within_a_cap(void **state)
{
	(void)state;
	/* all buffers together a quarter of the cap at most */
	assert_int_equal(fg_record_buffer_within(16 * MiB, 1 * MiB, 2), 128 * KiB);
	assert_int_equal(fg_record_buffer_within(16 * MiB, 20 * MiB, 2), 2 * MiB);
	/* a buffer already small enough, and no cap, stay */
	assert_int_equal(fg_record_buffer_within(512 * KiB, 20 * MiB, 2), 512 * KiB);
	assert_int_equal(fg_record_buffer_within(16 * MiB, 0, 2), 16 * MiB);
	assert_int_equal(fg_record_buffer_within(16 * MiB, UINT64_MAX, 2), 16 * MiB);
	/* never below what perf needs */
	assert_int_equal(fg_record_buffer_within(16 * MiB, 64 * KiB, 8), 16 * KiB);
}

static void bytes_per_sample_by_mode(void **state)
{
	(void)state;
	assert_true(fg_record_bytes_per_sample(FG_CALL_GRAPH_DWARF) > 64 * KiB);
	assert_true(fg_record_bytes_per_sample(FG_CALL_GRAPH_FP) < 1 * KiB);
	assert_true(fg_record_bytes_per_sample(FG_CALL_GRAPH_LBR) > fg_record_bytes_per_sample(FG_CALL_GRAPH_FP));
}

/* --- sizes ------------------------------------------------------------------ */

static void expect_size(const char *text, uint64_t want)
{
	uint64_t got = 0;

	assert_int_equal(fg_record_parse_size(&got, text), 0);
	assert_int_equal(got, want);
}

static void expect_bad_size(const char *text)
{
	uint64_t got = 42;

	assert_int_equal(fg_record_parse_size(&got, text), FG_EINVAL);
	assert_int_equal(got, 42);
	assert_non_null(strstr(fg_error_last(), "is not a size"));
	assert_non_null(strstr(fg_error_last(), "500M"));
}

static void sizes_parsed(void **state)
{
	(void)state;
	expect_size("7", 7);
	expect_size("64k", 64 * KiB);
	expect_size("1KiB", 1 * KiB);
	expect_size("500M", 500 * MiB);
	expect_size("500mb", 500 * MiB);
	expect_size("2G", 2 * GiB);
	expect_size("3T", 3 * 1024 * GiB);
	expect_bad_size("12Q");
	expect_bad_size("");
	expect_bad_size("M");
	expect_bad_size("-1");
	expect_bad_size("1.5G");
	expect_bad_size("99999999999999999999");
	expect_bad_size("20000000T"); /* past 2^64 once scaled */
	expect_bad_size(NULL);
}

static void expect_shown(uint64_t bytes, const char *want)
{
	char buf[32];

	fg_record_format_size(buf, sizeof(buf), bytes);
	assert_string_equal(buf, want);
}

static void sizes_shown(void **state)
{
	(void)state;
	expect_shown(0, "0 bytes");
	expect_shown(999, "999 bytes");
	expect_shown(1000, "1.0 KB");
	expect_shown(980 * KiB, "980 KB");
	expect_shown(8 * MiB, "8.0 MB");
	expect_shown(417 * MiB, "417 MB");
	expect_shown(5 * GiB / 2, "2.5 GB");
}

/* --- the command line of an attached, bounded recording ---------------------- */

static char *joined(char **argv)
{
	fg_strbuf sb = FG_STRBUF_INIT;

	for (size_t i = 0; argv[i]; i++)
		fg_strbuf_addf(&sb, "%s[%s]", i ? " " : "", argv[i]);
	return fg_strbuf_detach(&sb, NULL);
}

static void attached_command(void **state)
{
	static const char *const prog[] = { "./work", "1" };
	fg_record_opts o = FG_RECORD_OPTS_INIT;
	char **argv = NULL, *got;

	(void)state;
	o.argv = prog;
	o.argc = 2;
	o.output = "/t/p.data";
	o.buffer_bytes = 16 * MiB;
	o.max_size = 8 * MiB + 1; /* rounded up to whole KiB */
	o.attach_pid = 1234;
	o.control_ctl = "/t/ctl";
	o.control_ack = "/t/ack";
	assert_int_equal(fg_record_command(&argv, &o), 0);
	got = joined(argv);
	assert_string_equal(got, "[perf] [record] [-F] [997] [--call-graph] [dwarf,65528] [-g] [-m] "
				 "[16384K] [--max-size=8193K] [-o] [/t/p.data] [-D] [-1] "
				 "[--control=fifo:/t/ctl,/t/ack] [-p] [1234]");
	free(got);
	fg_argv_free(argv);

	/* a held process is only recorded through the control fifos */
	o.control_ack = NULL;
	argv = NULL;
	assert_int_equal(fg_record_command(&argv, &o), FG_EINVAL);
	assert_null(argv);
}

/* --- perf's stderr --------------------------------------------------------- */

typedef struct warnings {
	char lines[8][128];
	int n;
} warnings;

static void collect(void *ctx, const char *line)
{
	warnings *w = ctx;

	if (w->n < 8)
		snprintf(w->lines[w->n++], sizeof(w->lines[0]), "%s", line);
}

static void feed(fg_capture_msgs *m, const char *text)
{
	/* in two pieces, split inside a line, as reads from a pipe come */
	size_t n = strlen(text), half = n / 2;

	fg_capture_msgs_feed(m, text, half);
	fg_capture_msgs_feed(m, text + half, n - half);
}

static void banners_dropped_warnings_kept_once(void **state)
{
	fg_capture_msgs m;
	warnings w = { 0 };

	(void)state;
	fg_capture_msgs_init(&m, collect, &w);
	feed(&m, "Events enabled\n"
		 "Warning:\n"
		 "Processed 5230 events and lost 16 chunks!\n"
		 "\n"
		 "Check IO/CPU overload!\n"
		 "Warning: something perf wants said\n"
		 "[ perf record: Woken up 31 times to write data ]\n"
		 "Warning:\n"
		 "Processed 5230 events and lost 16 chunks!\n"
		 "Warning: something perf wants said\n"
		 "[ perf record: Captured and wrote 417.5 MB /tmp/.flamegraph-rec.abc/perf.data (6674 samples) ]\n"
		 "  a last line without newline  ");
	fg_capture_msgs_feed(&m, NULL, 0);
	fg_capture_msgs_flush(&m);
	assert_int_equal(w.n, 2);
	assert_string_equal(w.lines[0], "Warning: something perf wants said");
	assert_string_equal(w.lines[1], "a last line without newline");
	assert_false(m.capped);
	/* the file was finished: a signal perf then dies of is a clean end */
	assert_true(m.wrote);
	/* flushed lines are handed over once */
	fg_capture_msgs_flush(&m);
	assert_int_equal(w.n, 2);
	fg_capture_msgs_release(&m);
}

static void size_limit_noted(void **state)
{
	fg_capture_msgs m;
	warnings w = { 0 };

	(void)state;
	fg_capture_msgs_init(&m, collect, &w);
	feed(&m, "[ perf record: perf size limit reached (8193 KB), stopping session ]\n");
	fg_capture_msgs_flush(&m);
	assert_true(m.capped);
	assert_false(m.wrote);
	assert_int_equal(w.n, 0);
	fg_capture_msgs_release(&m);
}

static const char *failure_for(const char *said, int code, uint64_t buffer)
{
	fg_record_opts o = FG_RECORD_OPTS_INIT;
	fg_exit_status st = { 0 };
	fg_capture_msgs m;

	o.buffer_bytes = buffer;
	st.code = code;
	fg_capture_msgs_init(&m, NULL, NULL);
	feed(&m, said);
	fg_capture_msgs_feed(&m, NULL, 0);
	assert_int_equal(fg_capture_msgs_failure(&m, &o, &st), FG_ERECORD);
	fg_capture_msgs_release(&m);
	return fg_error_last();
}

static void failures_in_our_words(void **state)
{
	(void)state;
	assert_non_null(strstr(failure_for("Error:\nAccess to performance monitoring and observability "
					   "operations is limited.\nConsider adjusting "
					   "/proc/sys/kernel/perf_event_paranoid setting\n", 255, 0),
			       "sudo sysctl kernel.perf_event_paranoid=1"));
	assert_non_null(strstr(failure_for("Permission error mapping pages.\nConsider increasing "
					   "/proc/sys/kernel/perf_event_mlock_kb,\n", 255, 16 * MiB),
			       "ring buffer of 16384 KB per CPU"));
	assert_non_null(strstr(failure_for("  Error: unknown option `control'\n", 129, 0),
			       "this perf is too old"));
	assert_int_equal(fg_error_last_reason(), FG_REASON_PERF_TOO_OLD);
	/* Ubuntu's wrapper without linux-tools-KERNEL: named, with the
	 * kernel's package it lists (not linux-tools-generic) */
	assert_string_equal(failure_for("WARNING: perf not found for kernel 6.8.0-45\n\n  You may need to "
					"install the following packages for this specific kernel:\n"
					"    linux-tools-6.8.0-45-generic\n\n  You may also want to "
					"install one of the following packages to keep up to date:\n"
					"    linux-tools-generic\n", 2, 0),
			    "perf cannot run: it is a wrapper that found no perf for the running kernel "
			    "(it says \"WARNING: perf not found for kernel 6.8.0-45\" and names "
			    "linux-tools-6.8.0-45-generic) — install the perf of the running kernel "
			    "(Ubuntu: linux-tools-common and linux-tools-KERNEL, KERNEL being what "
			    "`uname -r` prints)");
	assert_int_equal(fg_error_last_reason(), FG_REASON_PERF_NO_KERNEL);
	/* Debian 11's (linux-base) without linux-perf-X.Y */
	assert_non_null(strstr(failure_for("E: linux-perf-5.10 is not installed.\n", 1, 0),
			       "(it says \"E: linux-perf-5.10 is not installed.\" and names linux-perf-5.10)"));
	assert_int_equal(fg_error_last_reason(), FG_REASON_PERF_NO_KERNEL);
	/* anything else: perf's own first reason, with how it ended, and no
	 * word of paranoia */
	const char *other = failure_for("Error:\nfailed to mmap with 12 (Cannot allocate memory)\n", 255, 0);
	assert_string_equal(other, "perf record exited with status 255: failed to mmap with 12 "
				   "(Cannot allocate memory)");
	assert_string_equal(failure_for("", 1, 0), "perf record exited with status 1 and wrote no data");
	assert_int_equal(fg_error_last_reason(), FG_REASON_NONE);
}

/* --- lost samples counted from a perf.data --------------------------------- */

static void put_u16(fg_strbuf *b, uint16_t v) { fg_strbuf_add(b, (const char *)&v, sizeof(v)); }
static void put_u32(fg_strbuf *b, uint32_t v) { fg_strbuf_add(b, (const char *)&v, sizeof(v)); }
static void put_u64(fg_strbuf *b, uint64_t v) { fg_strbuf_add(b, (const char *)&v, sizeof(v)); }

static void record(fg_strbuf *b, uint32_t type, uint16_t size, uint64_t a, uint64_t c)
{
	put_u32(b, type);
	put_u16(b, 0);
	put_u16(b, size);
	/* the payload: two words the counter may read, then padding */
	put_u64(b, a);
	put_u64(b, c);
	for (uint16_t n = 24; n < size; n += 8)
		put_u64(b, 0);
}

/* Writes header + data; data_size 0 leaves the size unset, as in a
 * recording that was cut short. */
static char *write_perfdata(const fg_strbuf *data, uint64_t data_size, const char *magic)
{
	char *path = strdup("/tmp/fg-unit-perfdata.XXXXXX");
	fg_strbuf f = FG_STRBUF_INIT;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	fg_strbuf_add(&f, magic, 8);
	put_u64(&f, 104);            /* header size */
	put_u64(&f, 136);            /* attr size */
	put_u64(&f, 0), put_u64(&f, 0); /* attrs */
	put_u64(&f, 104), put_u64(&f, data_size);
	put_u64(&f, 0), put_u64(&f, 0); /* event types */
	for (int i = 0; i < 4; i++)
		put_u64(&f, 0);      /* feature bits */
	fg_strbuf_add(&f, data->buf, data->len);
	assert_int_equal(write(fd, f.buf, f.len), (ssize_t)f.len);
	close(fd);
	fg_strbuf_release(&f);
	return path;
}

static void lost_counted(void **state)
{
	fg_strbuf d = FG_STRBUF_INIT;
	fg_perfdata_counts c;
	char *path;

	(void)state;
	for (int i = 0; i < 5; i++)
		record(&d, 9, 1024, 0, 0);       /* SAMPLE, big like a dwarf one */
	record(&d, 2, 24, 7, 3);                  /* LOST: id 7, 3 lost */
	record(&d, 9, 48, 0, 0);
	record(&d, 2, 24, 7, 4);                  /* LOST: 4 more */
	record(&d, 3, 32, 0, 0);                  /* COMM: not counted */
	record(&d, 13, 24, 6, 0);                 /* LOST_SAMPLES: 6 (repeats the 7) */
	path = write_perfdata(&d, d.len, "PERFILE2");
	assert_int_equal(fg_perfdata_count(path, &c), 0);
	assert_int_equal(c.samples, 6);
	assert_int_equal(c.lost_records, 2);
	assert_int_equal(c.lost, 7); /* the larger of the two sums, not both */
	assert_true(c.complete);
	unlink(path);
	free(path);

	/* cut short: no data size, read to the end of the file */
	path = write_perfdata(&d, 0, "PERFILE2");
	assert_int_equal(fg_perfdata_count(path, &c), 0);
	assert_int_equal(c.samples, 6);
	unlink(path);
	free(path);

	/* compressed records are not opened: the count says it is partial */
	record(&d, 81, 64, 0, 0);
	path = write_perfdata(&d, d.len, "PERFILE2");
	assert_int_equal(fg_perfdata_count(path, &c), 0);
	assert_false(c.complete);
	unlink(path);
	free(path);
	fg_strbuf_release(&d);
}

static void not_a_perfdata(void **state)
{
	fg_strbuf d = FG_STRBUF_INIT;
	fg_perfdata_counts c;
	char *path;

	(void)state;
	record(&d, 9, 24, 0, 0);
	path = write_perfdata(&d, d.len, "NOTPERF!");
	assert_int_equal(fg_perfdata_count(path, &c), FG_EPARSE);
	assert_non_null(strstr(fg_error_last(), "is not a perf.data file"));
	unlink(path);
	free(path);
	assert_int_equal(fg_perfdata_count("/nonexistent/perf.data", &c), FG_EIO);
	fg_strbuf_release(&d);
}

/* The count of a file that starts as magic, then a header size, then
 * rest bytes of zeros: err, with want in the message. */
static void check_header(const char *magic, uint64_t size, size_t rest, int err, const char *want)
{
	char path[] = "/tmp/fg-unit-perfdata.XXXXXX";
	fg_strbuf f = FG_STRBUF_INIT;
	fg_perfdata_counts c;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	fg_strbuf_add(&f, magic, 8);
	put_u64(&f, size);
	for (size_t i = 0; i < rest; i++)
		fg_strbuf_addch(&f, 0);
	assert_int_equal(write(fd, f.buf, f.len), (ssize_t)f.len);
	close(fd);
	assert_int_equal(fg_perfdata_count(path, &c), err);
	assert_non_null(strstr(fg_error_last(), want));
	unlink(path);
	fg_strbuf_release(&f);
}

static void headers_of_other_forms(void **state)
{
	(void)state;
	check_header("PERFILE2", 16, 64, FG_EINVAL, "in pipe form; only files are counted");
	check_header("2ELIFREP", 104, 88, FG_EPARSE, "is not a perf.data file");
	check_header("PERFILE2", 104, 40, FG_EPARSE, "the perf.data header is truncated");
	check_header("PERFILE2", 96, 88, FG_EPARSE, "header's size is unknown (96 bytes)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(buffer_fits_a_quarter_second),
		cmocka_unit_test(buffer_bounded_by_ram_and_mlock),
		cmocka_unit_test(buffer_within_a_cap),
		cmocka_unit_test(bytes_per_sample_by_mode),
		cmocka_unit_test(sizes_parsed),
		cmocka_unit_test(sizes_shown),
		cmocka_unit_test(attached_command),
		cmocka_unit_test(banners_dropped_warnings_kept_once),
		cmocka_unit_test(size_limit_noted),
		cmocka_unit_test(failures_in_our_words),
		cmocka_unit_test(lost_counted),
		cmocka_unit_test(not_a_perfdata),
		cmocka_unit_test(headers_of_other_forms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
