#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "util/interrupt.h"
#include "util/banned.h"

static volatile sig_atomic_t requests, last_signal, active;
static volatile long last_ms;

/* One signal delivered twice in a moment is one request: timeout(1) sends
 * its signal to the program and then to the program's process group. */
#define SAME_REQUEST_MS 200
static volatile sig_atomic_t pipe_rd = -1, pipe_wr = -1;

int fg_interrupt_init(void)
{
	int p[2];

	if (pipe_rd >= 0)
		return 0;
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0)
		return fg_error_set(FG_EIO, "cannot create a pipe: %s", "out of file descriptors");
	pipe_wr = p[1];
	pipe_rd = p[0];
	return 0;
}

int fg_interrupt_request(int sig)
{
	int saved = errno;
	struct timespec ts;
	long ms;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ms = (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	if (!requests || sig != last_signal || ms - last_ms >= SAME_REQUEST_MS)
		requests++;
	last_signal = sig;
	last_ms = ms;
	/* a full pipe means the reader is awake already */
	if (pipe_wr >= 0 && write(pipe_wr, "!", 1) < 0)
		errno = saved;
	errno = saved;
	return requests;
}

int fg_interrupt_count(void)
{
	return requests;
}

int fg_interrupt_signal(void)
{
	return last_signal;
}

int fg_interrupt_fd(void)
{
	return pipe_rd;
}

void fg_interrupt_drain(void)
{
	char buf[64];

	if (pipe_rd < 0)
		return;
	while (read(pipe_rd, buf, sizeof(buf)) > 0)
		;
}

void fg_interrupt_reset(void)
{
	fg_interrupt_drain();
	requests = 0;
	last_signal = 0;
}

void fg_interrupt_set_active(bool on)
{
	active = on;
}

bool fg_interrupt_active(void)
{
	return active;
}
