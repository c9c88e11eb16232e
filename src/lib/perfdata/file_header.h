/* perf.data's fixed header (perf's struct perf_file_header) and what the
 * start of a file says it is: the one reading of it, for the reader
 * (header.c) and the counter (count.c). */
#ifndef FG_LIB_PERFDATA_FILE_HEADER_H
#define FG_LIB_PERFDATA_FILE_HEADER_H

#include <stddef.h>
#include <stdint.h>

/* The header's size in the file form; the pipe form's is 16 (the magic
 * and that size). */
#define PD_FILE_HEADER_SIZE 104
#define PD_PIPE_HEADER_SIZE 16

struct pd_file_section {
	uint64_t offset, size;
};

/* In the byte order of the machine that wrote it (refused when it is not
 * ours). */
struct pd_file_header {
	char magic[8];            /* fg_perfdata_magic */
	uint64_t size;            /* of this header */
	uint64_t attr_size;       /* of one entry of attrs */
	struct pd_file_section attrs, data, event_types;
	unsigned char features[32]; /* a bit per feature section after data */
};

_Static_assert(sizeof(struct pd_file_header) == PD_FILE_HEADER_SIZE,
	       "perf.data's file header is 104 bytes");

/* What the first bytes of a file are. */
enum pd_file_form {
	PD_FORM_NONE,      /* not a perf.data: no magic */
	PD_FORM_SWAPPED,   /* a perf.data of the other byte order */
	PD_FORM_PIPE,      /* the pipe form: magic and size 16 */
	PD_FORM_FILE,      /* the file form: its whole header read */
	PD_FORM_SHORT,     /* the file form's size, the header cut short */
	PD_FORM_ODD_SIZE,  /* the magic with a header size of neither form */
};

/* Decodes the first len bytes of a file into *h (as many of its bytes as
 * len holds; the rest zero) and says what they are. */
enum pd_file_form pd_file_header_read(struct pd_file_header *h, const void *buf, size_t len);

#endif
