#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "flamegraph/error.h"
#include "util/input.h"
#include "util/strbuf.h"
#include "util/banned.h"

#define RAW_CHUNK (256 * 1024)

struct fg_input {
	int fd;
	bool is_stdin, gzip, eof, started, in_member;
	char *name;
	z_stream z;
	unsigned char *raw;  /* compressed bytes (gzip) or the peeked prefix */
	size_t raw_len, raw_pos;
};

static int open_error(const char *path)
{
	if (errno == ENOENT)
		return fg_error_set(FG_ENOTFOUND, "%s: no such file", path);
	return fg_error_set(FG_EIO, "%s: %s", path, strerror(errno));
}

int fg_input_open(fg_input **out, const char *path)
{
	fg_input *in = fg_calloc(1, sizeof(*in));

	*out = NULL;
	if (!in)
		return FG_ENOMEM;
	in->is_stdin = !path || !strcmp(path, "-");
	in->name = fg_strdup(in->is_stdin ? "<stdin>" : path);
	in->raw = fg_malloc(RAW_CHUNK);
	if (!in->name || !in->raw) {
		fg_input_close(in);
		return FG_ENOMEM;
	}
	in->fd = in->is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (in->fd < 0) {
		int err = open_error(path);
		fg_input_close(in);
		return err;
	}
	*out = in;
	return 0;
}

static ssize_t read_fd(fg_input *in, void *buf, size_t cap)
{
	ssize_t n;

	do
		n = read(in->fd, buf, cap);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return fg_error_set(FG_EIO, "%s: %s", in->name, strerror(errno));
	return n;
}

/* Reads the first bytes to tell gzip from text; keeps them for later. */
static int start(fg_input *in)
{
	ssize_t n;

	in->started = true;
	while (in->raw_len < 2) {
		n = read_fd(in, in->raw + in->raw_len, RAW_CHUNK - in->raw_len);
		if (n < 0)
			return (int)n;
		if (n == 0)
			break;
		in->raw_len += (size_t)n;
	}
	if (in->raw_len >= 2 && in->raw[0] == 0x1f && in->raw[1] == 0x8b) {
		in->gzip = true;
		if (inflateInit2(&in->z, 16 + MAX_WBITS) != Z_OK)
			return fg_error_set(FG_ENOMEM, "%s: cannot start gzip decoder", in->name);
		in->z.next_in = in->raw;
		in->z.avail_in = (uInt)in->raw_len;
		in->in_member = true;
	}
	return 0;
}

static ssize_t read_gzip(fg_input *in, void *buf, size_t cap)
{
	int rc;

	in->z.next_out = buf;
	in->z.avail_out = (uInt)(cap > (1u << 30) ? (1u << 30) : cap);
	while (in->z.avail_out > 0) {
		if (in->z.avail_in == 0) {
			ssize_t n = in->eof ? 0 : read_fd(in, in->raw, RAW_CHUNK);
			if (n < 0)
				return n;
			if (n == 0) {
				in->eof = true;
				if (in->in_member)
					return fg_error_set(FG_EIO, "%s: truncated gzip data", in->name);
				break;
			}
			in->z.next_in = in->raw;
			in->z.avail_in = (uInt)n;
		}
		if (!in->in_member) {
			/* a further member of a concatenated gzip file */
			if (inflateReset(&in->z) != Z_OK)
				return fg_error_set(FG_EIO, "%s: corrupt gzip data", in->name);
			in->in_member = true;
		}
		rc = inflate(&in->z, Z_NO_FLUSH);
		if (rc == Z_STREAM_END)
			in->in_member = false;
		else if (rc != Z_OK && rc != Z_BUF_ERROR)
			return fg_error_set(FG_EIO, "%s: corrupt gzip data", in->name);
	}
	return (unsigned char *)in->z.next_out - (unsigned char *)buf;
}

ssize_t fg_input_read(fg_input *in, void *buf, size_t cap)
{
	int err;

	if (!in->started && (err = start(in)))
		return err;
	if (in->gzip)
		return read_gzip(in, buf, cap);
	if (in->raw_pos < in->raw_len) {
		size_t n = in->raw_len - in->raw_pos;
		if (n > cap)
			n = cap;
		memcpy(buf, in->raw + in->raw_pos, n);
		in->raw_pos += n;
		return (ssize_t)n;
	}
	return read_fd(in, buf, cap);
}

const char *fg_input_name(const fg_input *in)
{
	return in->name;
}

void fg_input_close(fg_input *in)
{
	if (!in)
		return;
	if (in->gzip)
		inflateEnd(&in->z);
	if (!in->is_stdin && in->fd >= 0)
		close(in->fd);
	free(in->raw);
	free(in->name);
	free(in);
}

/* --- mapped files cut short ---------------------------------------------
 *
 * A page of a mapping that lies past the end of its file, because the file
 * shrank after it was mapped, raises SIGBUS when touched, in whichever
 * thread touches it, and at any time while the mapping lives: the folded
 * reader keeps its keys in the mapping until the graph is written, and
 * the collapser's worker threads parse it. Jumping out of the handler
 * (siglongjmp) would leave a parser, its allocations and its locks half
 * way, in threads that set no jump point, and would not cover the pages
 * read after the parse. Reading the file instead of mapping it would
 * cost the copy the mapping exists to avoid. So the handler puts zero
 * pages (anonymous memory) in place of the mapping's rest, the faulting
 * instruction runs again and reads zeros, and the mapping is marked cut:
 * the readers ask (fg_input_map_check) after each block and before their
 * result is used, and report the file instead of using the zeros.
 *
 * The handler cannot take locks, so the mappings are in a list that only
 * grows, each slot claimed and let go by an atomic state. It calls stat,
 * signal and raise, which are async-signal-safe, and mmap, which POSIX
 * does not list as such but which on Linux is one system call that
 * touches no library state. */
enum { SLOT_FREE, SLOT_BUSY, SLOT_LIVE };

struct guard {
	atomic_int state;
	uintptr_t start;
	size_t len;
	char *path;
	off_t size;         /* when mapped */
	atomic_int cut;     /* set by the handler */
	off_t size_then;    /* at the first fault; -1: unknown */
	size_t cut_at;      /* the offset of the first fault's page */
	struct guard *next; /* never changes once in the list */
};

static _Atomic(struct guard *) guards;
static struct sigaction sigbus_before;
static pthread_once_t sigbus_once = PTHREAD_ONCE_INIT;
static bool sigbus_ours;
static uintptr_t page_size; /* sysconf is not for a handler */

static struct guard *guard_at(uintptr_t addr)
{
	struct guard *g;

	for (g = atomic_load(&guards); g; g = g->next)
		if (atomic_load_explicit(&g->state, memory_order_acquire) == SLOT_LIVE &&
		    addr - g->start < g->len)
			return g;
	return NULL;
}

/* Not a fault of ours: what would have happened without us. */
static void sigbus_pass(int sig, siginfo_t *si, void *ctx)
{
	bool fault = si->si_code > 0;

	if (sigbus_before.sa_flags & SA_SIGINFO) {
		sigbus_before.sa_sigaction(sig, si, ctx);
		return;
	}
	if (sigbus_before.sa_handler != SIG_DFL && sigbus_before.sa_handler != SIG_IGN) {
		sigbus_before.sa_handler(sig);
		return;
	}
	if (sigbus_before.sa_handler == SIG_IGN && !fault)
		return;
	/* a fault comes again when the handler returns; a kill does not */
	signal(sig, SIG_DFL);
	if (!fault)
		raise(sig);
}

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
	uintptr_t at = (uintptr_t)si->si_addr, lo = at & ~(page_size - 1);
	int saved = errno;
	struct guard *g = si->si_code > 0 ? guard_at(at) : NULL;
	struct stat st;

	if (!g || mmap((void *)lo, g->start + g->len - lo, PROT_READ,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
		sigbus_pass(sig, si, ctx);
		errno = saved;
		return;
	}
	if (!atomic_load(&g->cut)) {
		g->size_then = stat(g->path, &st) == 0 ? st.st_size : -1;
		g->cut_at = lo - g->start;
		atomic_store(&g->cut, 1);
	}
	errno = saved;
}

static void sigbus_install(void)
{
	struct sigaction sa;

	page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sigbus_ours = sigaction(SIGBUS, &sa, &sigbus_before) == 0;
}

/* Claims a slot for a mapping: 1, 0 when no handler could be installed
 * (the file is then read rather than mapped), or FG_ENOMEM. */
static int guard_add(void *p, size_t len, const char *path, off_t size)
{
	struct guard *g;
	char *name;

	pthread_once(&sigbus_once, sigbus_install);
	if (!sigbus_ours)
		return 0;
	if (!(name = fg_strdup(path)))
		return FG_ENOMEM;
	for (g = atomic_load(&guards); g; g = g->next) {
		int free_slot = SLOT_FREE;
		if (atomic_compare_exchange_strong(&g->state, &free_slot, SLOT_BUSY))
			break;
	}
	if (!g) {
		if (!(g = fg_calloc(1, sizeof(*g)))) {
			free(name);
			return FG_ENOMEM;
		}
		atomic_init(&g->state, SLOT_BUSY);
		g->next = atomic_load(&guards);
		while (!atomic_compare_exchange_weak(&guards, &g->next, g))
			;
	}
	g->start = (uintptr_t)p;
	g->len = len;
	g->path = name;
	g->size = size;
	g->size_then = -1;
	atomic_store(&g->cut, 0);
	atomic_store_explicit(&g->state, SLOT_LIVE, memory_order_release);
	return 1;
}

static struct guard *guard_of(const char *data)
{
	struct guard *g;

	for (g = atomic_load(&guards); g; g = g->next)
		if (atomic_load(&g->state) == SLOT_LIVE && g->start == (uintptr_t)data)
			return g;
	return NULL;
}

int fg_input_map_check(const char *data)
{
	struct guard *g = data ? guard_of(data) : NULL;

	if (!g || !atomic_load(&g->cut))
		return 0;
	if (g->size_then >= 0 && g->size_then < g->size)
		return fg_error_set(FG_EIO, "%s was cut short while it was read (it shrank "
				    "from %jd to %jd bytes) — read it again when whatever "
				    "writes it is done", g->path, (intmax_t)g->size,
				    (intmax_t)g->size_then);
	return fg_error_set(FG_EIO, "%s changed while it was read (its bytes from %zu on "
			    "could not be read: it was cut short and written again, or the disk "
			    "failed) — read it again when whatever writes it is done", g->path,
			    g->cut_at);
}

int fg_input_maps_check(void)
{
	struct guard *g;

	for (g = atomic_load(&guards); g; g = g->next)
		if (atomic_load(&g->state) == SLOT_LIVE && atomic_load(&g->cut))
			return fg_input_map_check((const char *)g->start);
	return 0;
}

int fg_input_map(const char *path, size_t min_len, unsigned flags, const char **data,
		 size_t *len)
{
	unsigned char magic[2];
	struct stat st;
	void *p;
	int fd, rc = 0;

	*data = NULL;
	*len = 0;
	if (!path || !strcmp(path, "-"))
		return 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return open_error(path);
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 2 ||
	    (uintmax_t)st.st_size < min_len || (uintmax_t)st.st_size > SIZE_MAX)
		goto done;
	if (pread(fd, magic, 2, 0) != 2 || (magic[0] == 0x1f && magic[1] == 0x8b))
		goto done; /* gzip: decompressed by fg_input_read */
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		goto done;
	if ((rc = guard_add(p, (size_t)st.st_size, path, st.st_size)) != 1) {
		munmap(p, (size_t)st.st_size);
		goto done;
	}
	/* read ahead of the parser (pages stay: callers may keep pointers) */
	madvise(p, (size_t)st.st_size,
		flags & FG_INPUT_MAP_SEQUENTIAL ? MADV_SEQUENTIAL : MADV_WILLNEED);
	*data = p;
	*len = (size_t)st.st_size;
	rc = 1;
done:
	close(fd);
	return rc;
}

void fg_input_prefault(const char *data, size_t len)
{
#ifdef MADV_POPULATE_READ
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = (uintptr_t)data & ~(page - 1);

	/* an older kernel says EINVAL: the pages then fault in as read */
	madvise((void *)lo, (uintptr_t)data + len - lo, MADV_POPULATE_READ);
#else
	(void)data;
	(void)len;
#endif
}

void fg_input_release(const char *data, size_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)data + page - 1) & ~(page - 1);
	uintptr_t hi = ((uintptr_t)data + len) & ~(page - 1);

	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

void fg_input_unmap(const char *data, size_t len)
{
	struct guard *g;

	if (!data)
		return;
	g = guard_of(data);
	/* the handler no longer looks at it before it goes */
	if (g)
		atomic_store(&g->state, SLOT_BUSY);
	munmap((void *)data, len);
	if (g) {
		free(g->path);
		g->path = NULL;
		atomic_store(&g->state, SLOT_FREE);
	}
}

int fg_read_file(const char *path, char **data, size_t *len)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	fg_input *in = NULL;
	ssize_t n;
	int err;

	*data = NULL;
	if ((err = fg_input_open(&in, path)))
		return err;
	for (;;) {
		if ((err = fg_strbuf_grow(&sb, 64 * 1024)))
			goto done;
		n = fg_input_read(in, sb.buf + sb.len, sb.alloc - sb.len - 1);
		if (n < 0) {
			err = (int)n;
			goto done;
		}
		if (n == 0)
			break;
		sb.len += (size_t)n;
		sb.buf[sb.len] = '\0';
	}
	if (!(*data = fg_strbuf_detach(&sb, len)))
		err = FG_ENOMEM;
done:
	fg_strbuf_release(&sb);
	fg_input_close(in);
	return err;
}

bool fg_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (!a || !b || stat(a, &sa) != 0 || stat(b, &sb) != 0)
		return false;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The folder of path resolved (symlinks, "..") plus its last name, or NULL
 * when the folder does not exist. */
static char *resolved_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	fg_strbuf dir = FG_STRBUF_INIT;
	char *real, *out = NULL;

	if (!slash)
		fg_strbuf_addstr(&dir, ".");
	else
		fg_strbuf_add(&dir, path, slash == path ? 1 : (size_t)(slash - path));
	real = dir.buf ? realpath(dir.buf, NULL) : NULL;
	fg_strbuf_release(&dir);
	if (real) {
		fg_strbuf sb = FG_STRBUF_INIT;
		fg_strbuf_addf(&sb, "%s/%s", real, slash ? slash + 1 : path);
		out = fg_strbuf_detach(&sb, NULL);
		free(real);
	}
	return out;
}

bool fg_same_path(const char *a, const char *b)
{
	char *ra, *rb;
	bool same;

	if (!a || !b)
		return false;
	if (fg_same_file(a, b) || !strcmp(a, b))
		return true;
	ra = resolved_name(a);
	rb = resolved_name(b);
	same = ra && rb && !strcmp(ra, rb);
	free(ra);
	free(rb);
	return same;
}
