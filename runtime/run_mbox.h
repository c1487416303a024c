/*
 * A mailbox: fixed-size records that any thread posts (the producers take turns under a mutex, off the packet
 * path) and one thread takes without a lock: commands from outside the poll loop, such as telemetry's control
 * commands, to the main lcore. A bounded SPSC ring (run_spsc.h) underneath: a full mailbox refuses a post.
 */
#ifndef RUN_MBOX_H
#define RUN_MBOX_H

#include <stdbool.h>
#include <stdint.h>

struct run_mbox;

/** A mailbox of records of @p rec_len bytes (at most 1 KiB) in a ring of @p bytes. NULL with errno (EINVAL,
 *  ENOMEM). */
struct run_mbox *run_mbox_create(uint32_t rec_len, uint32_t bytes);

/** Free @p m. Accepts NULL. */
void run_mbox_destroy(struct run_mbox *m);

/** The producers' turn: while it is held, run_mbox_post() may be called and nothing else posts. */
void run_mbox_lock(struct run_mbox *m);
void run_mbox_unlock(struct run_mbox *m);

/** Post @p rec (rec_len bytes) with the turn held. 0, or -ENOSPC when the mailbox is full. */
int run_mbox_post(struct run_mbox *m, const void *rec);

/** The consumer: the oldest record copied into @p rec and freed; false when the mailbox is empty. */
bool run_mbox_take(struct run_mbox *m, void *rec);

#endif /* RUN_MBOX_H */
