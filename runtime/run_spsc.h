/*
 * A single-producer single-consumer ring of variable-size records, for what one thread hands another without a
 * lock: frames crossing partitions, capture frames and record rows going to the writer. C11 atomics only (no
 * DPDK), so the models and their tests use it without an EAL.
 */
#ifndef RUN_SPSC_H
#define RUN_SPSC_H

#include <stddef.h>
#include <stdint.h>

struct run_spsc;

/** Bytes of ring a record of @p len bytes takes: an 8-byte header and the record, rounded up to 8. */
#define RUN_SPSC_REC(len) (8u + (((uint32_t)(len) + 7u) & ~7u))

/**
 * Create a ring of @p bytes bytes (rounded up to a power of two, at least 64). A record is at most a quarter of
 * the ring. Returns NULL with errno EINVAL (@p bytes above 2^30) or ENOMEM.
 */
struct run_spsc *run_spsc_create(uint32_t bytes);

/** Free @p r. Accepts NULL. */
void run_spsc_destroy(struct run_spsc *r);

/**
 * Producer: room for a record of @p len bytes (8-byte aligned), or NULL when the ring has not that much free (the
 * caller counts the loss) or @p len is above a quarter of the ring. Fill it, then run_spsc_commit(); reserving
 * again without a commit replaces the reservation.
 */
void *run_spsc_reserve(struct run_spsc *r, uint32_t len);

/** Producer: publish the record reserved last; the consumer may read it from now on. */
void run_spsc_commit(struct run_spsc *r);

/** Consumer: the oldest record and its length in *@p len, or NULL when the ring is empty. */
const void *run_spsc_peek(struct run_spsc *r, uint32_t *len);

/** Consumer: free the record run_spsc_peek() gave, for the producer to reuse. */
void run_spsc_release(struct run_spsc *r);

/** Bytes the ring holds (its size as created). */
uint32_t run_spsc_size(const struct run_spsc *r);

#endif /* RUN_SPSC_H */
