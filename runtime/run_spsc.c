/*
 * The SPSC record ring: one byte array, a head the producer writes and a tail the consumer writes, each on its
 * own cache line. A record is an 8-byte header (its length) and its bytes padded to 8; a record never wraps:
 * where one would not fit before the end, the producer writes a pad header (length RUN_SPSC_PAD) and starts at 0.
 * Release/acquire on head and tail order the bytes against the indexes, so no lock is taken.
 */
#include "run_spsc.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define RUN_SPSC_PAD UINT32_MAX /* a header that says: the rest up to the end is unused, go to 0 */
#define RUN_SPSC_MAX (1u << 30)

struct run_spsc {
	_Alignas(64) _Atomic uint64_t head; /* bytes written in all (producer) */
	uint64_t resv_at;                   /* producer: where the reserved record starts (its header) */
	uint64_t resv_next;                 /* producer: the head once it is committed */
	_Alignas(64) _Atomic uint64_t tail; /* bytes freed in all (consumer) */
	uint64_t peek_next;                 /* consumer: the tail once the peeked record is released */
	_Alignas(64) uint32_t size, mask;
	uint8_t *buf;
};

struct run_spsc *run_spsc_create(uint32_t bytes)
{
	uint32_t size = 64;

	if (bytes > RUN_SPSC_MAX) {
		errno = EINVAL;
		return NULL;
	}
	while (size < bytes)
		size <<= 1;
	struct run_spsc *r = aligned_alloc(64, sizeof(*r));

	if (r == NULL)
		return NULL;
	memset(r, 0, sizeof(*r));
	r->buf = aligned_alloc(64, size);
	if (r->buf == NULL) {
		free(r);
		return NULL;
	}
	r->size = size;
	r->mask = size - 1;
	return r;
}

void run_spsc_destroy(struct run_spsc *r)
{
	if (r == NULL)
		return;
	free(r->buf);
	free(r);
}

uint32_t run_spsc_size(const struct run_spsc *r)
{
	return r->size;
}

static void put_hdr(struct run_spsc *r, uint64_t at, uint32_t v)
{
	memcpy(r->buf + (at & r->mask), &v, sizeof(v));
}

void *run_spsc_reserve(struct run_spsc *r, uint32_t len)
{
	uint32_t need = RUN_SPSC_REC(len);
	uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
	uint32_t off = (uint32_t)(head & r->mask), to_end = r->size - off;
	uint64_t at = head;

	if (len > r->size / 4)
		return NULL;
	if (to_end < need) /* does not fit before the end: pad the rest, start at 0 */
		at = head + to_end;
	if (at + need - tail > r->size)
		return NULL;
	if (at != head)
		put_hdr(r, head, RUN_SPSC_PAD);
	put_hdr(r, at, len);
	r->resv_at = at;
	r->resv_next = at + need;
	return r->buf + ((at + 8) & r->mask);
}

void run_spsc_commit(struct run_spsc *r)
{
	atomic_store_explicit(&r->head, r->resv_next, memory_order_release);
}

const void *run_spsc_peek(struct run_spsc *r, uint32_t *len)
{
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
	uint32_t v;

	if (tail == head)
		return NULL;
	memcpy(&v, r->buf + (tail & r->mask), sizeof(v));
	if (v == RUN_SPSC_PAD) { /* the producer went back to 0: the record is there (head > tail still) */
		tail += r->size - (uint32_t)(tail & r->mask);
		memcpy(&v, r->buf + (tail & r->mask), sizeof(v));
	}
	*len = v;
	r->peek_next = tail + RUN_SPSC_REC(v);
	return r->buf + ((tail + 8) & r->mask);
}

void run_spsc_release(struct run_spsc *r)
{
	atomic_store_explicit(&r->tail, r->peek_next, memory_order_release);
}
