/* Counting what a perf.data holds: samples, and the samples the kernel
 * dropped when perf's ring buffer was full. Only record headers are read
 * (and the LOST payloads), through a small window that jumps over the big
 * dwarf samples, so a 400 MB recording costs a few thousand reads. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "flamegraph/perfdata.h"
#include "lib/perfdata/file_header.h"
#include "util/banned.h"

/* The kernel's record header (linux/perf_event.h layout). */
struct record_header {
	uint32_t type;
	uint16_t misc, size;
};

enum {
	REC_LOST = 2,
	REC_SAMPLE = 9,
	REC_LOST_SAMPLES = 13,
	REC_COMPRESSED = 81,
};

#define WINDOW (16u * 1024u)

typedef struct reader {
	int fd;
	uint64_t lost_in_lost, lost_in_lost_samples;
	uint64_t end;             /* end of the data section */
	unsigned char buf[WINDOW];
	uint64_t buf_off;         /* file offset of buf[0] */
	size_t buf_len;
} reader;

/* Makes [off, off + len) available in the window; false past the end or
 * on a read error. */
static bool window(reader *r, uint64_t off, size_t len)
{
	ssize_t n;

	if (off >= r->buf_off && off + len <= r->buf_off + r->buf_len)
		return true;
	if (len > WINDOW || off + len > r->end)
		return false;
	do
		n = pread(r->fd, r->buf, WINDOW, (off_t)off);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return false;
	r->buf_off = off;
	r->buf_len = (size_t)n;
	return off + len <= r->buf_off + r->buf_len;
}

static uint64_t u64_at(const reader *r, uint64_t off)
{
	uint64_t v;

	memcpy(&v, r->buf + (off - r->buf_off), sizeof(v));
	return v;
}

static void count_record(reader *r, uint64_t off, const struct record_header *h,
			 fg_perfdata_counts *out)
{
	switch (h->type) {
	case REC_SAMPLE:
		out->samples++;
		break;
	case REC_LOST:
		/* { header; u64 id; u64 lost; ... } */
		out->lost_records++;
		if (h->size >= 24 && window(r, off + 16, 8))
			r->lost_in_lost += u64_at(r, off + 16);
		break;
	case REC_LOST_SAMPLES:
		/* { header; u64 lost; ... } */
		if (h->size >= 16 && window(r, off + 8, 8))
			r->lost_in_lost_samples += u64_at(r, off + 8);
		break;
	case REC_COMPRESSED:
		/* zstd frames of further records: not opened here */
		out->complete = false;
		break;
	default:
		break;
	}
}

static int read_header(int fd, struct pd_file_header *fh, const char *path)
{
	unsigned char buf[PD_FILE_HEADER_SIZE];
	ssize_t n;

	do
		n = pread(fd, buf, sizeof(buf), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return fg_error_set(FG_EIO, "cannot read %s: %s", path, strerror(errno));
	switch (pd_file_header_read(fh, buf, (size_t)n)) {
	case PD_FORM_NONE:
	case PD_FORM_SWAPPED:
		return fg_error_set(FG_EPARSE, "%s is not a perf.data file (no PERFILE2 header)", path);
	case PD_FORM_PIPE:
		return fg_error_set(FG_EINVAL, "%s is a perf.data in pipe form; only files are counted",
				    path);
	case PD_FORM_ODD_SIZE:
		return fg_error_set(FG_EPARSE, "%s: the perf.data header's size is unknown (%llu bytes)",
				    path, (unsigned long long)fh->size);
	case PD_FORM_SHORT:
		return fg_error_set(FG_EPARSE, "%s: the perf.data header is truncated", path);
	case PD_FORM_FILE:
		break;
	}
	return 0;
}

int fg_perfdata_count(const char *path, fg_perfdata_counts *out)
{
	static reader r; /* the window is big; counting is not re-entrant */
	struct pd_file_header fh;
	struct stat st;
	uint64_t off;
	int err;

	memset(out, 0, sizeof(*out));
	out->complete = true;
	r.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r.fd < 0)
		return fg_error_set(FG_EIO, "cannot open %s: %s", path, strerror(errno));
	if ((err = read_header(r.fd, &fh, path)) || (err = fstat(r.fd, &st) ? FG_EIO : 0))
		goto done;
	r.buf_off = r.buf_len = 0;
	r.lost_in_lost = r.lost_in_lost_samples = 0;
	off = fh.data.offset;
	/* a recording that was cut short has no data size yet: read to EOF */
	r.end = fh.data.size ? fh.data.offset + fh.data.size : (uint64_t)st.st_size;
	if (r.end > (uint64_t)st.st_size) {
		r.end = (uint64_t)st.st_size;
		out->complete = false;
	}
	while (off + sizeof(struct record_header) <= r.end) {
		struct record_header h;
		if (!window(&r, off, sizeof(h)))
			break;
		memcpy(&h, r.buf + (off - r.buf_off), sizeof(h));
		if (h.size < sizeof(h)) {
			out->complete = false;
			break;
		}
		count_record(&r, off, &h, out);
		off += h.size;
	}
	if (off < r.end)
		out->complete = false;
	/* perf (6.0 and later) ends a recording with one LOST_SAMPLES per event
	 * that totals the drops its LOST records already told of: the larger
	 * sum, not both */
	out->lost = r.lost_in_lost > r.lost_in_lost_samples ? r.lost_in_lost : r.lost_in_lost_samples;
done:
	close(r.fd);
	return err;
}
