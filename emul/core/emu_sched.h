/* The deterministic event scheduler of one partition: a total order that does not depend on the partitioning (time,
 * time scheduled, creator, the creator's count), O(1) per event whatever the number pending (a calendar of
 * picosecond buckets, emu_sched.c), O(1) cancellable timers. */
#ifndef EMU_SCHED_H
#define EMU_SCHED_H

#include <signal.h>
#include <stdint.h>

#include "emu_time.h"

struct emu_sched;

/** Event callback. @p a and @p b are the two arguments given when it was scheduled; @p now is its time. */
typedef void (*emu_event_fn)(void *a, void *b, emu_ps_t now);

/** Timer handle: slot plus generation. 0 never names a live event, so a zeroed handle is "not armed". */
typedef uint64_t emu_timer_t;

/**
 * Create a scheduler able to hold up to @p capacity pending events (rounded up to a power of two). Its storage
 * starts small and doubles as events pend (off the common path), so the capacity is a cap, not an allocation.
 * Returns NULL with errno ENOMEM.
 */
struct emu_sched *emu_sched_create(uint32_t capacity);

/** Free the scheduler and every pending event. Accepts NULL. */
void emu_sched_destroy(struct emu_sched *s);

/* An event's creator (an entity: a device, or 0 for the run itself) sits above this bit of its key. */
#define EMU_SCHED_ENT_SHIFT 40

/**
 * Schedule @p fn(@p a, @p b, @p when), created by the entity running now (emu_sched_set_ent()). Events at one time
 * run in the order they were scheduled; two scheduled at one time by two entities, in the entities' order.
 * @p when earlier than the current time runs at the current time (never in the past).
 * @p h, if not NULL, receives a handle for emu_sched_cancel().
 * Returns 0, or -ENOSPC when capacity pending events already exist, or the storage could not grow (the caller
 * counts the drop).
 */
int emu_sched_at(struct emu_sched *s, emu_ps_t when, emu_event_fn fn, void *a, void *b, emu_timer_t *h);

/**
 * emu_sched_at() twice, with no handles: @p fn1 at @p when1 then @p fn2 at @p when2, in that order (a link's
 * arrival and end of serialization, scheduled together for every frame). Returns 0, or a bitmask of the ones
 * refused for lack of room (1: the first, 2: the second), as emu_sched_at() would have.
 */
int emu_sched_at2(struct emu_sched *s, emu_ps_t when1, emu_event_fn fn1, void *a1, void *b1, emu_ps_t when2,
		  emu_event_fn fn2, void *a2, void *b2);

/**
 * Cancel a pending event in O(1). Returns 0, or -ENOENT if @p h already fired, was cancelled, or is 0.
 * Safe from inside any callback, including the cancelled event's own.
 */
int emu_sched_cancel(struct emu_sched *s, emu_timer_t h);

/** An end-of-instant callback. Its caller owns the node (inside its own state), so waiting never fails. */
struct emu_sched_end {
	emu_event_fn fn;
	void *a;
	void *b;
	struct emu_sched_end *next; /* the scheduler's */
	uint32_t ent;               /* the scheduler's: the entity that asked, which it runs as */
};

/** An event's place in the order, drawn where it is created, given where it is scheduled (another partition's). */
struct emu_sched_key {
	emu_ps_t ctime;
	uint64_t key;
};

/** Draw the order of an event the running entity creates now (it counts as one it created). */
void emu_sched_key_draw(struct emu_sched *s, struct emu_sched_key *k);

/**
 * Schedule @p fn(@p a, @p b, @p when) with the order @p k drawn by emu_sched_key_draw() (here or on another
 * partition's scheduler): a frame or a message that crossed partitions. 0 or -ENOSPC.
 */
int emu_sched_at_key(struct emu_sched *s, emu_ps_t when, const struct emu_sched_key *k, emu_event_fn fn, void *a,
		     void *b);

/**
 * Count the creations of @p n entities (0 .. n - 1; 0 is the run itself, at set-up). Until called only entity 0
 * exists. Resets the running entity to 0. 0 or -ENOMEM.
 */
int emu_sched_entities(struct emu_sched *s, uint32_t n);

/**
 * The entity whose code runs from now on: an event runs as its creator unless its callback says otherwise (a
 * frame's arrival runs as its receiver). Out of range: 0.
 */
void emu_sched_set_ent(struct emu_sched *s, uint32_t ent);
uint32_t emu_sched_ent(const struct emu_sched *s);

/** Events entity @p ent has created (0 out of range). */
uint64_t emu_sched_created(const struct emu_sched *s, uint32_t ent);

/**
 * Where an output (a record row, a captured frame) falls in the run's order: the order of the event running now
 * (an end-of-instant callback comes after the instant's events) and the outputs it gave before. Outputs of several
 * partitions sorted by tag come out as one scheduler would have given them.
 */
struct emu_sched_tag {
	emu_ps_t when;
	emu_ps_t ctime;
	uint64_t key;
	uint64_t idx;
};

/** The tag of an output given now. */
void emu_sched_tag(struct emu_sched *s, struct emu_sched_tag *t);

/** Compare two tags: < 0, 0, > 0. */
static inline int emu_sched_tag_cmp(const struct emu_sched_tag *x, const struct emu_sched_tag *y)
{
	if (x->when != y->when)
		return x->when < y->when ? -1 : 1;
	if (x->ctime != y->ctime)
		return x->ctime < y->ctime ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/**
 * Run @p e->fn(e->a, e->b, now) once every event due at the current time has run, before time moves on: after the
 * events scheduled for this instant, including those added during it. Callbacks run in the order they were added;
 * one may add events, or callbacks (its own node included), for the same instant. They are not counted as events.
 * @p e must not be waiting already.
 */
void emu_sched_at_end(struct emu_sched *s, struct emu_sched_end *e);

/** Time of the event running now, or of the last one run. */
emu_ps_t emu_sched_now(const struct emu_sched *s);

/** Time of the earliest pending event (the current time while an end-of-instant callback waits), or
 * EMU_PS_NEVER when none is pending. */
emu_ps_t emu_sched_next(struct emu_sched *s);

/**
 * Run every event whose time is <= @p limit, in (time, seq) order, including events the callbacks add within
 * the limit. Returns how many ran.
 */
uint64_t emu_sched_run_until(struct emu_sched *s, emu_ps_t limit);

/**
 * Make emu_sched_run_until() return early, its limit not reached, once *@p stop is non-zero (looked at every 1,024
 * events): a signal ends a run whose events never run out. NULL: never.
 */
void emu_sched_stop_on(struct emu_sched *s, const volatile sig_atomic_t *stop);

/** Advance the current time to @p t if it is later (real time: the clock moved with no event). */
void emu_sched_advance(struct emu_sched *s, emu_ps_t t);

/** Events run so far, and events pending now. */
uint64_t emu_sched_events_run(const struct emu_sched *s);
uint32_t emu_sched_pending(const struct emu_sched *s);

#endif /* EMU_SCHED_H */
