/* Event scheduler: a binary min-heap on (time, seq) over a slot table with generations.
 *
 * Cancel is O(1): it bumps the slot's generation and frees the slot; the heap entry goes stale and is skipped
 * when it reaches the top. When stale entries outnumber live ones the heap is rebuilt in O(n), so the heap never
 * holds more than twice the live events and cancel stays O(1) amortized. Scheduling is O(log n).
 * End-of-instant callbacks wait in a list beside the heap, on nodes their callers own, and run when the heap's top
 * is later than now.
 */
#include "emu_sched.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

struct sched_slot {
	emu_event_fn fn;
	void *a;
	void *b;
	uint32_t gen;       /* bumped on fire and on cancel, so stale handles miss */
	uint32_t next_free; /* free-list link while free */
};

struct heap_ent {
	emu_ps_t when;
	uint64_t seq;
	uint32_t slot;
	uint32_t gen;
};

struct emu_sched {
	struct emu_sched_end *end_head, *end_tail; /* end-of-instant callbacks waiting */
	struct heap_ent *heap;
	uint32_t heap_len;
	uint32_t cap;
	uint32_t live;
	uint32_t free_head;
	struct sched_slot *slots;
	uint64_t seq;
	uint64_t run;
	emu_ps_t now;
};

#define SLOT_NONE UINT32_MAX

struct emu_sched *emu_sched_create(uint32_t capacity)
{
	uint32_t cap = 64;

	while (cap < capacity && cap < (1u << 30))
		cap <<= 1;
	struct emu_sched *s = calloc(1, sizeof(*s));
	if (s == NULL)
		goto fail;
	s->cap = cap;
	/* The heap holds live plus stale entries; compaction keeps stale <= live, so 2 x cap bounds it. */
	s->heap = malloc(sizeof(*s->heap) * 2 * (size_t)cap);
	if (s->heap == NULL)
		goto fail_s;
	s->slots = malloc(sizeof(*s->slots) * (size_t)cap);
	if (s->slots == NULL)
		goto fail_heap;
	for (uint32_t i = 0; i < cap; i++) {
		s->slots[i].gen = 1;
		s->slots[i].next_free = i + 1 < cap ? i + 1 : SLOT_NONE;
	}
	s->free_head = 0;
	return s;

fail_heap:
	free(s->heap);
fail_s:
	free(s);
fail:
	errno = ENOMEM;
	return NULL;
}

void emu_sched_destroy(struct emu_sched *s)
{
	if (s == NULL)
		return;
	free(s->slots);
	free(s->heap);
	free(s);
}

static inline bool ent_less(const struct heap_ent *x, const struct heap_ent *y)
{
	return x->when < y->when || (x->when == y->when && x->seq < y->seq);
}

static void sift_up(struct heap_ent *h, uint32_t i)
{
	struct heap_ent e = h[i];

	while (i > 0) {
		uint32_t p = (i - 1) / 2;
		if (!ent_less(&e, &h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = e;
}

static void sift_down(struct heap_ent *h, uint32_t n, uint32_t i)
{
	struct heap_ent e = h[i];

	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && ent_less(&h[c + 1], &h[c]))
			c++;
		if (!ent_less(&h[c], &e))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = e;
}

static inline bool ent_stale(const struct emu_sched *s, const struct heap_ent *e)
{
	return s->slots[e->slot].gen != e->gen;
}

/* Drop stale entries and re-heapify: O(n), run only when stale entries outnumber live ones. */
static void compact(struct emu_sched *s)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < s->heap_len; i++)
		if (!ent_stale(s, &s->heap[i]))
			s->heap[n++] = s->heap[i];
	s->heap_len = n;
	for (uint32_t i = n / 2; i-- > 0;)
		sift_down(s->heap, n, i);
}

int emu_sched_at(struct emu_sched *s, emu_ps_t when, emu_event_fn fn, void *a, void *b, emu_timer_t *h)
{
	if (s->free_head == SLOT_NONE)
		return -ENOSPC;
	if (s->heap_len == 2 * s->cap)
		compact(s);
	uint32_t slot = s->free_head;
	struct sched_slot *sl = &s->slots[slot];

	s->free_head = sl->next_free;
	sl->fn = fn;
	sl->a = a;
	sl->b = b;
	if (when < s->now)
		when = s->now;
	s->heap[s->heap_len] = (struct heap_ent){ .when = when, .seq = s->seq++, .slot = slot, .gen = sl->gen };
	sift_up(s->heap, s->heap_len);
	s->heap_len++;
	s->live++;
	if (h != NULL)
		*h = ((uint64_t)sl->gen << 32) | slot;
	return 0;
}

static void slot_release(struct emu_sched *s, uint32_t slot)
{
	struct sched_slot *sl = &s->slots[slot];

	sl->gen++;
	if (sl->gen == 0) /* generation 0 would let a zero handle match */
		sl->gen = 1;
	sl->next_free = s->free_head;
	s->free_head = slot;
	s->live--;
}

int emu_sched_cancel(struct emu_sched *s, emu_timer_t h)
{
	uint32_t slot = (uint32_t)h;
	uint32_t gen = (uint32_t)(h >> 32);

	if (h == 0 || slot >= s->cap || s->slots[slot].gen != gen)
		return -ENOENT;
	slot_release(s, slot);
	if (s->heap_len > 64 && s->heap_len - s->live > s->live)
		compact(s);
	return 0;
}

emu_ps_t emu_sched_now(const struct emu_sched *s)
{
	return s->now;
}

/* Pop stale entries off the top; leaves a live top or an empty heap. */
static void skip_stale(struct emu_sched *s)
{
	while (s->heap_len > 0 && ent_stale(s, &s->heap[0])) {
		s->heap[0] = s->heap[--s->heap_len];
		if (s->heap_len > 0)
			sift_down(s->heap, s->heap_len, 0);
	}
}

void emu_sched_at_end(struct emu_sched *s, struct emu_sched_end *e)
{
	e->next = NULL;
	if (s->end_tail == NULL)
		s->end_head = e;
	else
		s->end_tail->next = e;
	s->end_tail = e;
}

/* Run the end-of-instant callbacks waiting now; those they add wait for the instant's next end. */
static void run_end(struct emu_sched *s)
{
	struct emu_sched_end *e = s->end_head;

	s->end_head = s->end_tail = NULL;
	while (e != NULL) {
		struct emu_sched_end *next = e->next; /* read first: the callback may add e again */

		e->fn(e->a, e->b, s->now);
		e = next;
	}
}

emu_ps_t emu_sched_next(struct emu_sched *s)
{
	if (s->end_head != NULL)
		return s->now;
	skip_stale(s);
	return s->heap_len > 0 ? s->heap[0].when : EMU_PS_NEVER;
}

uint64_t emu_sched_run_until(struct emu_sched *s, emu_ps_t limit)
{
	uint64_t n = 0;

	for (;;) {
		skip_stale(s);
		if (s->end_head != NULL && (s->heap_len == 0 || s->heap[0].when > s->now)) {
			run_end(s);
			continue;
		}
		if (s->heap_len == 0 || s->heap[0].when > limit)
			break;
		struct heap_ent e = s->heap[0];
		s->heap[0] = s->heap[--s->heap_len];
		if (s->heap_len > 0)
			sift_down(s->heap, s->heap_len, 0);
		struct sched_slot sl = s->slots[e.slot];
		slot_release(s, e.slot); /* before the call, so the callback may reuse the slot */
		s->now = e.when;
		sl.fn(sl.a, sl.b, e.when);
		n++;
	}
	s->run += n;
	return n;
}

void emu_sched_advance(struct emu_sched *s, emu_ps_t t)
{
	if (t > s->now) {
		if (s->end_head != NULL)
			run_end(s);
		s->now = t;
	}
}

uint64_t emu_sched_events_run(const struct emu_sched *s)
{
	return s->run;
}

uint32_t emu_sched_pending(const struct emu_sched *s)
{
	return s->live;
}
