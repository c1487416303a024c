/* Event scheduler: a calendar of time buckets (a one-level timing wheel over picoseconds) with two small heaps.
 *
 * Time is cut into buckets of 2^shift ps; bucket index = when >> shift. Three places hold pending events:
 *  - the near heap: every event whose bucket is the open one (index <= cur) or earlier, ordered by (time, seq);
 *  - the wheel: nb = 2^nb_log bucket lists for the indexes cur + 1 .. cur + nb - 1, one slot list per bucket
 *    (the slots are the list nodes: doubly linked, so a cancel unlinks in O(1)), a bitmap of the non-empty ones;
 *  - the far heap: events past the wheel's horizon when they were scheduled (timeouts, later starts).
 * When the near heap runs dry the cursor moves to the next non-empty bucket (found in the bitmap) or to the far
 * heap's earliest bucket, whichever comes first; that bucket's list and every far event of it or earlier move to
 * the near heap. Every event runs from the near heap, which orders by (time, seq), so the order is exactly that
 * of one heap over everything: events at one picosecond run in the order they were scheduled, whatever the
 * bucket width. A bucket holds a handful of events, so a push and a pop cost O(1) on average, not O(log pending).
 *
 * The bucket width adapts: every SCHED_ADAPT_OPENS bucket openings, if they moved more than SCHED_OPEN_HIGH
 * events on average the width halves (the bucket count doubles, to keep the horizon); if many events just missed
 * the horizon, the bucket count doubles. Both rebuild the wheel in O(pending + buckets), which is rare. The
 * decision depends on the events only, so a run still repeats exactly (docs/design-notes.md, Scheduler).
 *
 * Cancel is O(1): a wheel event is unlinked; a heap entry goes stale (its slot's generation moves on) and is
 * skipped when it surfaces; a heap whose stale entries outnumber its live ones is compacted in O(n).
 * Memory grows with use: the slot table and the heaps double when full (never past the capacity given at
 * creation, which stays a hard cap: -ENOSPC, a counted drop).
 */
#include "emu_sched.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define SLOT_NONE UINT32_MAX

enum slot_where { SLOT_FREE = 0, SLOT_WHEEL, SLOT_NEAR, SLOT_FAR };

/* One event, or a free slot. 64 B: one cache line. */
struct sched_slot {
	emu_event_fn fn;
	void *a;
	void *b;
	emu_ps_t when;
	uint64_t seq;
	uint32_t gen;  /* bumped on fire and on cancel, so stale handles and heap entries miss */
	uint32_t next; /* bucket list, or free list while free */
	uint32_t prev; /* bucket list */
	uint8_t where; /* enum slot_where */
	uint8_t pad[11];
};

struct heap_ent {
	emu_ps_t when;
	uint64_t seq;
	uint32_t slot;
	uint32_t gen;
};

/* A binary min-heap on (when, seq) with stale entries; live counts the entries whose slot still matches. */
struct sched_heap {
	struct heap_ent *e;
	uint32_t len, cap, live;
};

#define SCHED_SLOTS_MIN 256u      /* slots at creation (or the capacity, if smaller) */
#define SCHED_SHIFT_INIT 10u      /* 1,024 ps buckets at creation */
#define SCHED_SHIFT_MIN 4u        /* 16 ps: below the shortest serialization of any frame */
#define SCHED_NB_LOG_INIT 12u     /* 4,096 buckets: a 4.2 us horizon at creation */
#define SCHED_NB_LOG_MAX 18u      /* 2^18 buckets: 1 MiB of list heads */
#define SCHED_ADAPT_OPENS 1024u   /* bucket openings between two looks at the width */
#define SCHED_OPEN_HIGH 8u        /* events per opening above which buckets are too wide */

struct emu_sched {
	struct emu_sched_end *end_head, *end_tail; /* end-of-instant callbacks waiting */
	struct sched_heap near;  /* the open bucket and anything earlier */
	struct sched_heap far;   /* past the horizon when scheduled */
	uint32_t *head;          /* nb list heads, SLOT_NONE when empty */
	uint64_t *map;           /* a bit per bucket: non-empty */
	uint64_t *sum;           /* a bit per map word: non-zero */
	uint32_t shift, nb_log;
	uint64_t cur;            /* index of the open bucket */
	uint32_t wheel_n;        /* events in the wheel */
	struct sched_slot *slots;
	uint32_t n_slots, cap, live, free_head;
	uint64_t seq;
	uint64_t run;
	emu_ps_t now;
	/* width adaptation: openings, events they moved, near misses of the horizon, since the last look */
	uint32_t opens;
	uint32_t near_miss;
	uint64_t opened;
};

/* ---- heaps ---- */

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
static void heap_compact(const struct emu_sched *s, struct sched_heap *h)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < h->len; i++)
		if (!ent_stale(s, &h->e[i]))
			h->e[n++] = h->e[i];
	h->len = n;
	for (uint32_t i = n / 2; i-- > 0;)
		sift_down(h->e, n, i);
}

/*
 * Room for one more entry. Each heap is given room for twice the slots (slots_grow()), so a full heap is at least
 * half stale and compacting it makes room: no allocation here.
 */
static inline void heap_room(const struct emu_sched *s, struct sched_heap *h)
{
	if (h->len == h->cap)
		heap_compact(s, h);
}

/* Make room for 2 x @p n entries in @p h. Returns 0 or -ENOMEM. */
static int heap_reserve(struct sched_heap *h, uint32_t n)
{
	struct heap_ent *e = realloc(h->e, sizeof(*e) * 2 * (size_t)n);

	if (e == NULL)
		return -ENOMEM;
	h->e = e;
	h->cap = 2 * n;
	return 0;
}

/* Push the live event in @p slot; the caller made room. */
static inline void heap_push(struct emu_sched *s, struct sched_heap *h, uint32_t slot)
{
	const struct sched_slot *sl = &s->slots[slot];

	h->e[h->len] = (struct heap_ent){ .when = sl->when, .seq = sl->seq, .slot = slot, .gen = sl->gen };
	sift_up(h->e, h->len);
	h->len++;
	h->live++;
}

static inline void heap_pop(struct sched_heap *h)
{
	h->e[0] = h->e[--h->len];
	if (h->len > 0)
		sift_down(h->e, h->len, 0);
}

/* Pop stale entries off the top; leaves a live top or an empty heap. */
static inline void heap_skip_stale(const struct emu_sched *s, struct sched_heap *h)
{
	while (h->len > 0 && ent_stale(s, &h->e[0]))
		heap_pop(h);
}

/* ---- the wheel ---- */

static inline uint32_t wheel_pos(const struct emu_sched *s, uint64_t idx)
{
	return (uint32_t)idx & ((1u << s->nb_log) - 1);
}

static inline void map_set(struct emu_sched *s, uint32_t pos)
{
	s->map[pos >> 6] |= 1ull << (pos & 63);
	s->sum[pos >> 12] |= 1ull << ((pos >> 6) & 63);
}

static inline void map_clear(struct emu_sched *s, uint32_t pos)
{
	s->map[pos >> 6] &= ~(1ull << (pos & 63));
	if (s->map[pos >> 6] == 0)
		s->sum[pos >> 12] &= ~(1ull << ((pos >> 6) & 63));
}

static inline void wheel_link(struct emu_sched *s, uint32_t slot, uint64_t idx)
{
	uint32_t pos = wheel_pos(s, idx), h = s->head[pos];
	struct sched_slot *sl = &s->slots[slot];

	sl->where = SLOT_WHEEL;
	sl->prev = SLOT_NONE;
	sl->next = h;
	if (h != SLOT_NONE)
		s->slots[h].prev = slot;
	else
		map_set(s, pos);
	s->head[pos] = slot;
	s->wheel_n++;
}

static void wheel_unlink(struct emu_sched *s, uint32_t slot)
{
	struct sched_slot *sl = &s->slots[slot];
	uint32_t pos = wheel_pos(s, sl->when >> s->shift);

	if (sl->prev != SLOT_NONE)
		s->slots[sl->prev].next = sl->next;
	else
		s->head[pos] = sl->next;
	if (sl->next != SLOT_NONE)
		s->slots[sl->next].prev = sl->prev;
	if (s->head[pos] == SLOT_NONE)
		map_clear(s, pos);
	s->wheel_n--;
}

/* First non-empty bucket position at or after @p p, or SLOT_NONE. */
static uint32_t map_find(const struct emu_sched *s, uint32_t p)
{
	uint32_t w = p >> 6, nwords = (1u << s->nb_log) >> 6, si;
	uint64_t bits = s->map[w] & (~0ull << (p & 63)), sb;

	if (bits != 0)
		return (w << 6) | (uint32_t)__builtin_ctzll(bits);
	if (++w >= nwords)
		return SLOT_NONE;
	si = w >> 6;
	sb = s->sum[si] & (~0ull << (w & 63));
	while (sb == 0) {
		if (++si >= (nwords + 63) / 64)
			return SLOT_NONE;
		sb = s->sum[si];
	}
	w = si * 64 + (uint32_t)__builtin_ctzll(sb);
	return (w << 6) | (uint32_t)__builtin_ctzll(s->map[w]);
}

/* Index of the first non-empty bucket after the open one; the wheel must hold an event. */
static uint64_t wheel_next(const struct emu_sched *s)
{
	uint32_t mask = (1u << s->nb_log) - 1, p = (uint32_t)(s->cur + 1) & mask, pos = map_find(s, p);

	if (pos == SLOT_NONE)
		pos = map_find(s, 0);
	return s->cur + 1 + ((pos - p) & mask);
}

/* Move bucket @p idx's list to the near heap. Returns how many moved. */
static uint32_t wheel_open(struct emu_sched *s, uint64_t idx)
{
	uint32_t pos = wheel_pos(s, idx), slot = s->head[pos], n = 0;

	while (slot != SLOT_NONE) {
		uint32_t next = s->slots[slot].next;

		heap_room(s, &s->near);
		s->slots[slot].where = SLOT_NEAR;
		heap_push(s, &s->near, slot);
		slot = next;
		n++;
	}
	s->head[pos] = SLOT_NONE;
	if (n > 0)
		map_clear(s, pos);
	s->wheel_n -= n;
	return n;
}

/* ---- placing events ---- */

/* Put the live event of @p slot where its time belongs. */
static void place(struct emu_sched *s, uint32_t slot)
{
	struct sched_slot *sl = &s->slots[slot];
	uint64_t idx = sl->when >> s->shift;
	uint64_t nb = 1ull << s->nb_log;

	if (idx <= s->cur) {
		heap_room(s, &s->near);
		sl->where = SLOT_NEAR;
		heap_push(s, &s->near, slot);
	} else if (idx - s->cur < nb) {
		wheel_link(s, slot, idx);
	} else {
		heap_room(s, &s->far);
		if (idx - s->cur < 4 * nb)
			s->near_miss++;
		sl->where = SLOT_FAR;
		heap_push(s, &s->far, slot);
	}
}

/* Move every far event of the open bucket or earlier to the near heap. Returns how many moved. */
static uint32_t far_pull(struct emu_sched *s)
{
	uint32_t n = 0;

	for (;;) {
		heap_skip_stale(s, &s->far);
		if (s->far.len == 0 || s->far.e[0].when >> s->shift > s->cur)
			return n;
		uint32_t slot = s->far.e[0].slot;

		heap_pop(&s->far);
		s->far.live--;
		heap_room(s, &s->near);
		s->slots[slot].where = SLOT_NEAR;
		heap_push(s, &s->near, slot);
		n++;
	}
}

/* The wheel's arrays for 2^@p nb_log buckets, all empty. */
static int wheel_alloc(struct emu_sched *s, uint32_t nb_log)
{
	uint32_t nb = 1u << nb_log, nwords = nb / 64, nsum = (nwords + 63) / 64;
	uint32_t *head = malloc(sizeof(*head) * nb);
	uint64_t *map = calloc(nwords, sizeof(*map)), *sum = calloc(nsum, sizeof(*sum));

	if (head == NULL || map == NULL || sum == NULL) {
		free(head);
		free(map);
		free(sum);
		return -ENOMEM;
	}
	memset(head, 0xff, sizeof(*head) * nb); /* SLOT_NONE */
	free(s->head);
	free(s->map);
	free(s->sum);
	s->head = head;
	s->map = map;
	s->sum = sum;
	s->nb_log = nb_log;
	return 0;
}

/*
 * Re-cut the wheel into 2^@p nb_log buckets of 2^@p shift ps, with the near heap empty of live events: the wheel's
 * events are placed again from the bucket of now. O(pending + buckets); left as it was when memory is short.
 */
static void rebuild(struct emu_sched *s, uint32_t shift, uint32_t nb_log)
{
	uint32_t n = 0, *keep = malloc(sizeof(*keep) * (s->wheel_n ? s->wheel_n : 1));
	uint32_t old_nb = 1u << s->nb_log;

	if (keep == NULL)
		return;
	for (uint32_t pos = 0; pos < old_nb && n < s->wheel_n; pos++)
		for (uint32_t slot = s->head[pos]; slot != SLOT_NONE; slot = s->slots[slot].next)
			keep[n++] = slot;
	if (wheel_alloc(s, nb_log) != 0) {
		free(keep);
		return;
	}
	s->wheel_n = 0;
	s->shift = shift;
	s->near.len = 0; /* only stale entries are left in it */
	s->cur = s->now >> shift;
	for (uint32_t i = 0; i < n; i++)
		place(s, keep[i]);
	free(keep);
	far_pull(s);
}

/* Every SCHED_ADAPT_OPENS openings: narrower buckets if they were crowded, more of them if events missed. */
static void adapt(struct emu_sched *s)
{
	uint32_t shift = s->shift, nb_log = s->nb_log;

	if (s->opened > (uint64_t)SCHED_OPEN_HIGH * s->opens && shift > SCHED_SHIFT_MIN) {
		shift--;
		if (nb_log < SCHED_NB_LOG_MAX)
			nb_log++;
	} else if (s->near_miss > s->opened / 8 && nb_log < SCHED_NB_LOG_MAX) {
		nb_log++;
	}
	s->opens = 0;
	s->opened = 0;
	s->near_miss = 0;
	if (shift != s->shift || nb_log != s->nb_log)
		rebuild(s, shift, nb_log);
}

/* The near heap has no live event: open the next bucket that holds one. Returns false when nothing is pending. */
static bool advance(struct emu_sched *s)
{
	uint64_t idx = UINT64_MAX;
	uint32_t n = 0;

	if (s->opens >= SCHED_ADAPT_OPENS)
		adapt(s);
	s->near.len = 0; /* stale entries only */
	heap_skip_stale(s, &s->far);
	if (s->wheel_n > 0)
		idx = wheel_next(s);
	if (s->far.len > 0 && s->far.e[0].when >> s->shift < idx)
		idx = s->far.e[0].when >> s->shift;
	if (idx == UINT64_MAX)
		return false;
	s->cur = idx;
	if (s->wheel_n > 0)
		n = wheel_open(s, idx);
	n += far_pull(s);
	s->opens++;
	s->opened += n;
	return true;
}

/* The earliest pending event, in the near heap; NULL when none is pending. */
static inline const struct heap_ent *sched_top(struct emu_sched *s)
{
	for (;;) {
		heap_skip_stale(s, &s->near);
		if (s->near.len > 0)
			return &s->near.e[0];
		if (!advance(s))
			return NULL;
	}
}

/* ---- slots ---- */

/* Chain slots [@p from, @p to) into the free list, lowest first. */
static void slots_free_range(struct emu_sched *s, uint32_t from, uint32_t to)
{
	for (uint32_t i = from; i < to; i++) {
		s->slots[i] = (struct sched_slot){ .gen = 1, .next = i + 1 < to ? i + 1 : s->free_head };
	}
	s->free_head = from;
}

/*
 * Double the slot table, up to the capacity, and the heaps with it. Returns 0, or -ENOSPC at the capacity or
 * without memory. Rare (log2 of the most events ever pending), so off the common path.
 */
static int slots_grow(struct emu_sched *s)
{
	uint32_t n = s->n_slots * 2 < s->cap ? s->n_slots * 2 : s->cap;
	struct sched_slot *sl;

	if (n <= s->n_slots || heap_reserve(&s->near, n) != 0 || heap_reserve(&s->far, n) != 0)
		return -ENOSPC;
	sl = aligned_alloc(64, sizeof(*sl) * (size_t)n);
	if (sl == NULL)
		return -ENOSPC;
	memcpy(sl, s->slots, sizeof(*sl) * (size_t)s->n_slots);
	free(s->slots);
	s->slots = sl;
	slots_free_range(s, s->n_slots, n);
	s->n_slots = n;
	return 0;
}

static void slot_release(struct emu_sched *s, uint32_t slot)
{
	struct sched_slot *sl = &s->slots[slot];

	sl->gen++;
	if (sl->gen == 0) /* generation 0 would let a zero handle match */
		sl->gen = 1;
	sl->where = SLOT_FREE;
	sl->next = s->free_head;
	s->free_head = slot;
	s->live--;
}

/* ---- the interface ---- */

struct emu_sched *emu_sched_create(uint32_t capacity)
{
	uint32_t cap = 64;

	while (cap < capacity && cap < (1u << 30))
		cap <<= 1;
	struct emu_sched *s = calloc(1, sizeof(*s));

	if (s == NULL)
		goto fail;
	s->cap = cap;
	s->n_slots = cap < SCHED_SLOTS_MIN ? cap : SCHED_SLOTS_MIN;
	s->slots = aligned_alloc(64, sizeof(*s->slots) * s->n_slots);
	s->shift = SCHED_SHIFT_INIT;
	if (s->slots == NULL || wheel_alloc(s, SCHED_NB_LOG_INIT) != 0 || heap_reserve(&s->near, s->n_slots) != 0 ||
	    heap_reserve(&s->far, s->n_slots) != 0)
		goto fail_s;
	s->free_head = SLOT_NONE;
	slots_free_range(s, 0, s->n_slots);
	return s;

fail_s:
	emu_sched_destroy(s);
fail:
	errno = ENOMEM;
	return NULL;
}

void emu_sched_destroy(struct emu_sched *s)
{
	if (s == NULL)
		return;
	free(s->slots);
	free(s->near.e);
	free(s->far.e);
	free(s->head);
	free(s->map);
	free(s->sum);
	free(s);
}

int emu_sched_at(struct emu_sched *s, emu_ps_t when, emu_event_fn fn, void *a, void *b, emu_timer_t *h)
{
	if (s->free_head == SLOT_NONE && slots_grow(s) != 0)
		return -ENOSPC;
	uint32_t slot = s->free_head;
	struct sched_slot *sl = &s->slots[slot];

	if (when < s->now)
		when = s->now;
	sl->fn = fn;
	sl->a = a;
	sl->b = b;
	sl->when = when;
	sl->seq = s->seq;
	s->free_head = sl->next;
	place(s, slot);
	s->seq++;
	s->live++;
	if (h != NULL)
		*h = ((uint64_t)sl->gen << 32) | slot;
	return 0;
}

int emu_sched_cancel(struct emu_sched *s, emu_timer_t h)
{
	uint32_t slot = (uint32_t)h;
	uint32_t gen = (uint32_t)(h >> 32);

	if (h == 0 || slot >= s->n_slots || s->slots[slot].gen != gen || s->slots[slot].where == SLOT_FREE)
		return -ENOENT;
	struct sched_heap *hp = NULL;

	switch (s->slots[slot].where) {
	case SLOT_WHEEL:
		wheel_unlink(s, slot);
		break;
	case SLOT_NEAR:
		hp = &s->near;
		break;
	default:
		hp = &s->far;
		break;
	}
	slot_release(s, slot);
	if (hp != NULL) {
		hp->live--;
		if (hp->len > 64 && hp->len - hp->live > hp->live)
			heap_compact(s, hp);
	}
	return 0;
}

emu_ps_t emu_sched_now(const struct emu_sched *s)
{
	return s->now;
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
	const struct heap_ent *t = sched_top(s);

	return t != NULL ? t->when : EMU_PS_NEVER;
}

uint64_t emu_sched_run_until(struct emu_sched *s, emu_ps_t limit)
{
	uint64_t n = 0;

	for (;;) {
		const struct heap_ent *t = sched_top(s);

		if (s->end_head != NULL && (t == NULL || t->when > s->now)) {
			run_end(s);
			continue;
		}
		if (t == NULL || t->when > limit)
			break;
		uint32_t slot = t->slot;
		emu_ps_t when = t->when;
		struct sched_slot *sl = &s->slots[slot];
		emu_event_fn fn = sl->fn;
		void *a = sl->a, *b = sl->b;

		heap_pop(&s->near);
		s->near.live--;
		if (s->near.len > 0) { /* the next event's objects are fetched while this one runs: a cache hint only */
			const struct sched_slot *nx = &s->slots[s->near.e[0].slot];

			__builtin_prefetch(nx->a);
			__builtin_prefetch(nx->b);
		}
		slot_release(s, slot); /* before the call, so the callback may reuse the slot */
		s->now = when;
		fn(a, b, when);
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
