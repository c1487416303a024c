/*
 * The records' writer thread (rec.h, rec_writer_start): the bytes a record's stream flushes go into a ring, and
 * a thread of its own makes the write(2) calls, so a real-time run's poll loop makes none (docs/realtime.md,
 * Lateness). One producer (the run's main thread, where every record is written) and one consumer (the thread).
 */
#include "rec_pvt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A chunk in the ring: its sink and length, then the bytes, the next one 8-aligned. */
struct chunk {
	struct rec_sink *k;
	uint64_t len;
};

struct rec_writer {
	uint8_t *ring;
	uint64_t size;       /* a power of two */
	uint64_t head;       /* bytes ever produced (producer; atomic) */
	uint64_t tail;       /* bytes ever consumed (consumer; atomic) */
	int stop;            /* the producer says: drain and end (atomic) */
	pthread_t tid;
	struct rec_writer_stats st;
};

#define ALIGN8(n) (((n) + 7u) & ~(uint64_t)7u)

/* Copy @p n bytes at ring offset @p off (any position: it wraps). */
static void ring_put(struct rec_writer *w, uint64_t off, const void *src, uint64_t n)
{
	uint64_t at = off & (w->size - 1), first = w->size - at < n ? w->size - at : n;

	memcpy(w->ring + at, src, first);
	memcpy(w->ring, (const uint8_t *)src + first, n - first);
}

static void ring_get(const struct rec_writer *w, uint64_t off, void *dst, uint64_t n)
{
	uint64_t at = off & (w->size - 1), first = w->size - at < n ? w->size - at : n;

	memcpy(dst, w->ring + at, first);
	memcpy((uint8_t *)dst + first, w->ring, n - first);
}

/* The writes of one chunk to its sink's descriptor: all of it, or the first failure noted in the sink. */
static void write_out(struct rec_sink *k, const uint8_t *buf, uint64_t n)
{
	uint64_t done = 0;

	if (__atomic_load_n(&k->async_err, __ATOMIC_ACQUIRE) != 0)
		return;
	while (done < n) {
		ssize_t r = write(k->fd, buf + done, n - done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			__atomic_store_n(&k->async_err, r < 0 ? errno : EIO, __ATOMIC_RELEASE);
			return;
		}
		done += (uint64_t)r;
	}
}

static void pause_us(long us)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = us * 1000 };

	nanosleep(&ts, NULL);
}

/* The thread: chunk by chunk (each copied out of the ring into @p buf first, since it may wrap), until told to
 * stop with the ring empty. It sleeps 200 us when the ring is empty: the producer never wakes it (no system
 * call on its side). */
static void *writer_main(void *arg)
{
	struct rec_writer *w = arg;
	uint64_t cap = 0;
	uint8_t *buf = NULL;

	for (;;) {
		uint64_t head = __atomic_load_n(&w->head, __ATOMIC_ACQUIRE), tail = w->tail;

		if (head == tail) {
			if (__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE))
				break;
			pause_us(200);
			continue;
		}
		struct chunk c;

		ring_get(w, tail, &c, sizeof(c));
		if (c.len > cap) {
			uint8_t *nb = realloc(buf, c.len);

			if (nb != NULL) {
				buf = nb;
				cap = c.len;
			}
		}
		if (c.len <= cap) {
			ring_get(w, tail + sizeof(c), buf, c.len);
			write_out(c.k, buf, c.len);
		} else {
			__atomic_store_n(&c.k->async_err, ENOMEM, __ATOMIC_RELEASE);
		}
		__atomic_store_n(&w->tail, tail + sizeof(c) + ALIGN8(c.len), __ATOMIC_RELEASE);
	}
	free(buf);
	return NULL;
}

int rec_writer_start(struct rec_writer **out, uint64_t bytes, const cpu_set_t *cpus)
{
	struct rec_writer *w = calloc(1, sizeof(*w));
	uint64_t size = 4096;
	int rc;

	if (w == NULL)
		return -ENOMEM;
	while (size < bytes && size < (1ull << 30))
		size <<= 1;
	w->size = size;
	if ((w->ring = malloc(size)) == NULL) {
		free(w);
		return -ENOMEM;
	}
	memset(w->ring, 0, size); /* its pages faulted in now, not by the loop's first pass over them */
	pthread_attr_t a;

	pthread_attr_init(&a);
	if (cpus != NULL && CPU_COUNT(cpus) > 0)
		pthread_attr_setaffinity_np(&a, sizeof(*cpus), cpus);
	rc = pthread_create(&w->tid, &a, writer_main, w);
	pthread_attr_destroy(&a);
	if (rc != 0) {
		free(w->ring);
		free(w);
		return -rc;
	}
	*out = w;
	return 0;
}

void rec_writer_put(struct rec_writer *w, struct rec_sink *k, const void *buf, uint64_t n)
{
	const uint64_t room = w->size / 2; /* a chunk's most: a larger write goes in pieces */

	while (n > 0) {
		uint64_t len = n < room - sizeof(struct chunk) ? n : room - sizeof(struct chunk);
		uint64_t need = sizeof(struct chunk) + ALIGN8(len), head = w->head;
		bool waited = false;

		while (w->size - (head - __atomic_load_n(&w->tail, __ATOMIC_ACQUIRE)) < need) {
			waited = true; /* the thread is behind: wait for it, as a blocking write would */
			pause_us(50);
		}
		w->st.waits += waited;
		struct chunk c = { .k = k, .len = len };

		ring_put(w, head, &c, sizeof(c));
		ring_put(w, head + sizeof(c), buf, len);
		__atomic_store_n(&w->head, head + need, __ATOMIC_RELEASE);
		w->st.chunks++;
		w->st.bytes += len;
		buf = (const uint8_t *)buf + len;
		n -= len;
	}
}

void rec_writer_sync(struct rec_writer *w)
{
	if (w == NULL)
		return;
	while (__atomic_load_n(&w->tail, __ATOMIC_ACQUIRE) != w->head)
		pause_us(100);
}

void rec_writer_stop(struct rec_writer *w, struct rec_writer_stats *st)
{
	if (w == NULL)
		return;
	cpu_set_t all;
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	/* what is left may go out on any CPU: the caller only waits now, and the thread's own CPU may be busy */
	CPU_ZERO(&all);
	for (size_t c = 0; (long)c < n && c < CPU_SETSIZE; c++)
		CPU_SET(c, &all);
	pthread_setaffinity_np(w->tid, sizeof(all), &all);
	__atomic_store_n(&w->stop, 1, __ATOMIC_RELEASE);
	pthread_join(w->tid, NULL);
	if (st != NULL)
		*st = w->st;
	free(w->ring);
	free(w);
}
