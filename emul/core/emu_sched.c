/* Event scheduler: a calendar of time buckets (a one-level timing wheel over picoseconds), a sorted run for the
 * open bucket and a small heap for far events.
 *
 * Time is cut into buckets of 2^shift ps; bucket index = when >> shift. Three places hold pending events:
 *  - the run: every event whose bucket is the open one (index <= cur) or earlier, sorted by its order and taken
 *    from the front;
 *  - the wheel: nb = 2^nb_log bucket lists for the indexes cur + 1 .. cur + nb - 1, one slot list per bucket
 *    (the slots are the list nodes: doubly linked, so a cancel unlinks in O(1)), a bitmap of the non-empty ones;
 *  - the far heap: events past the wheel's horizon when they were scheduled (timeouts, later starts).
 * When the run is used up the cursor moves to the next non-empty bucket (found in the bitmap) or to the far heap's
 * earliest bucket, whichever comes first; that bucket's list is sorted into the run, and every far event of it or
 * earlier merged in. Every event runs from the run, in order, so the order is exactly that of one heap over
 * everything, whatever the bucket width. An event's order is (time, the time it was scheduled, its creator, the
 * creator's count): events at one picosecond run in the order they were scheduled, and those scheduled at one
 * picosecond by two entities (devices) in the entities' order. Nothing in it depends on which scheduler holds the
 * event, so a fabric cut into partitions, each with its scheduler, runs every device's events in one order
 * however it is cut (docs/parallel.md).
 * A bucket holds a handful of events, so scheduling and running an event cost O(1), not O(log pending).
 *
 * The bucket width adapts: every SCHED_ADAPT_OPENS bucket openings, if the run took more than SCHED_OPEN_HIGH
 * events per opening on average (sorted in, merged from the far heap, or scheduled into the open bucket) the width
 * halves (the bucket count doubles, to keep the horizon); under SCHED_OPEN_LOW it doubles (fewer openings of one
 * event); if many events just missed the horizon the bucket count doubles. Each change rebuilds the wheel in
 * O(pending + buckets), which is rare. The decisions depend on the events only, so a run still repeats exactly
 * (docs/design-notes.md, Scheduler).
 *
 * Cancel is O(1) for a wheel event (unlinked) and a far one (its heap entry goes stale: the slot's generation moves
 * on, and it is skipped when it surfaces; a heap whose stale entries outnumber its live ones is compacted), O(run)
 * for an event of the open bucket (taken out of the run, which holds a handful).
 * Memory grows with use: the slot table, the run and the heap double when full (never past the capacity given at
 * creation, which stays a hard cap: -ENOSPC, a counted drop).
 */
#include "emu_sched.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define SLOT_NONE UINT32_MAX

/*
 * Where a slot's event waits. SLOT_CAL: in the wheel or in the run, told apart by its bucket (the run holds the open
 * bucket and earlier ones, the wheel later ones), so opening a bucket writes nothing to its slots.
 */
enum slot_where { SLOT_FREE = 0, SLOT_CAL, SLOT_FAR };

/*
 * A slot is an event or a free slot, in two arrays indexed alike: its node (key and bucket links, 24 B), which the
 * calendar walks when it opens a bucket, and its callback (32 B), which only scheduling and running touch. Opening a
 * bucket so reads a dense array, not one line per event.
 */
struct sched_node {
	emu_ps_t when;
	emu_ps_t ctime; /* when it was scheduled */
	uint64_t key;   /* creator << EMU_SCHED_ENT_SHIFT | the creator's count */
	uint32_t next;  /* bucket list, or free list while free */
	uint32_t prev;  /* bucket list */
};

struct sched_slot {
	emu_event_fn fn;
	void *a;
	void *b;
	uint32_t gen;  /* bumped on fire and on cancel, so stale handles and heap entries miss */
	uint8_t where; /* enum slot_where */
};

/* An event's order (when, ctime, key) and slot, in the run and in the far heap. */
struct sched_ent {
	emu_ps_t when;
	emu_ps_t ctime;
	uint64_t key;
	uint32_t slot;
	uint32_t gen;
};

/* The far heap: a binary min-heap on the order with stale entries; live counts those whose slot still matches. */
struct sched_heap {
	struct sched_ent *e;
	uint32_t len, cap, live;
};

/* The run: e[head .. len) sorted by the order, every one live. */
struct sched_run {
	struct sched_ent *e;
	uint32_t head, len, cap;
};

#define SCHED_SLOTS_MIN 256u      /* slots at creation (or the capacity, if smaller) */
#define SCHED_SHIFT_INIT 10u      /* 1,024 ps buckets at creation */
#define SCHED_SHIFT_MIN 4u        /* 16 ps: below the shortest serialization of any frame */
#define SCHED_SHIFT_MAX 24u       /* 16.8 us */
#define SCHED_NB_LOG_INIT 12u     /* 4,096 buckets: a 4.2 us horizon at creation */
#define SCHED_NB_LOG_MIN 10u
#define SCHED_NB_LOG_MAX 18u      /* 2^18 buckets: 1 MiB of list heads */
#define SCHED_ADAPT_OPENS 1024u   /* bucket openings between two looks at the width */
#define SCHED_OPEN_HIGH 16u       /* events per opening above which buckets are too wide */
#define SCHED_OPEN_LOW 2u         /* and below which they are too narrow (openings cost more than sorting) */
#define SCHED_SORT_MOVES 8u       /* insertion sort's moves per entry before qsort takes over */
#define SCHED_WNEXT_UNKNOWN 0     /* no later bucket is bucket 0 */

struct emu_sched {
	struct emu_sched_end *end_head, *end_tail; /* end-of-instant callbacks waiting */
	struct sched_run run;    /* the open bucket and anything earlier */
	struct sched_heap far;   /* past the horizon when scheduled */
	uint32_t *head;          /* nb list heads, SLOT_NONE when empty */
	uint64_t *map;           /* a bit per bucket: non-empty */
	uint64_t *sum;           /* a bit per map word: non-zero */
	uint32_t shift, nb_log, mask;
	uint64_t cur;            /* index of the open bucket */
	uint32_t wheel_n;        /* events in the wheel */
	uint32_t pf;             /* the next bucket's list is prefetched down to this slot (a hint only) */
	uint64_t wnext;          /* the wheel's first non-empty bucket, when known; else SCHED_WNEXT_UNKNOWN */
	struct sched_slot *slots;
	struct sched_node *nodes;
	uint32_t n_slots, cap, live, free_head;
	uint32_t ent;            /* the entity whose code runs now: it creates the events scheduled */
	uint32_t n_ent;          /* entities counted (ctr) */
	uint64_t *ctr;           /* events each entity has created (their keys' counts) */
	uint64_t ctr0;           /* ctr's storage while only entity 0 exists */
	emu_ps_t run_ctime;      /* the order of what runs now (an event, or an end-of-instant callback) */
	uint64_t run_key;
	uint32_t emit;           /* tags handed out since it began (emu_sched_tag) */
	uint64_t ends;           /* end-of-instant callbacks run: their tags' order within their entity */
	uint64_t ran;
	const volatile sig_atomic_t *stop; /* the run's stop flag: emu_sched_run_until() returns early once set */
	emu_ps_t now;
	/* width adaptation: openings, events the run took, near misses of the horizon, since the last look */
	uint32_t opens;
	uint32_t near_miss;
	uint64_t opened;
};

static inline bool ent_less(const struct sched_ent *x, const struct sched_ent *y)
{
	if (x->when != y->when)
		return x->when < y->when;
	if (x->ctime != y->ctime)
		return x->ctime < y->ctime;
	return x->key < y->key;
}

static inline void slot_ent(const struct emu_sched *s, uint32_t slot, struct sched_ent *e)
{
	const struct sched_node *nd = &s->nodes[slot];

	e->when = nd->when; /* field by field: a compound literal made the compiler go through the stack */
	e->ctime = nd->ctime;
	e->key = nd->key;
	e->slot = slot;
}

/* The next key of the entity running now. */
static inline uint64_t key_draw(struct emu_sched *s)
{
	return (uint64_t)s->ent << EMU_SCHED_ENT_SHIFT | s->ctr[s->ent]++;
}

/* ---- the far heap ---- */

static void sift_up(struct sched_ent *h, uint32_t i)
{
	struct sched_ent e = h[i];

	while (i > 0) {
		uint32_t p = (i - 1) / 2;
		if (!ent_less(&e, &h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = e;
}

static void sift_down(struct sched_ent *h, uint32_t n, uint32_t i)
{
	struct sched_ent e = h[i];

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

static inline bool ent_stale(const struct emu_sched *s, const struct sched_ent *e)
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

/* Push the live event of @p slot. The heap has room for twice the slots (slots_grow()), so a full heap is at least
 * half stale and compacting it makes room: no allocation here. */
static __attribute__((noinline)) void heap_push(struct emu_sched *s, struct sched_heap *h, uint32_t slot)
{
	if (h->len == h->cap)
		heap_compact(s, h);
	slot_ent(s, slot, &h->e[h->len]);
	h->e[h->len].gen = s->slots[slot].gen;
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

/* ---- the run ---- */

/* Insert the live event of @p slot in order, searching from the back: a new event usually goes last. Out of line:
 * most events go to the wheel, whose path stays light. */
static __attribute__((noinline)) void run_insert(struct emu_sched *s, uint32_t slot)
{
	struct sched_run *r = &s->run;
	struct sched_ent e;

	slot_ent(s, slot, &e);
	uint32_t i = r->len;

	if (r->len == r->cap) { /* the run holds at most every slot, and has room for them all: slide it down */
		memmove(r->e, r->e + r->head, sizeof(*r->e) * (r->len - r->head));
		r->len -= r->head;
		r->head = 0;
		i = r->len;
	}
	for (; i > r->head && ent_less(&e, &r->e[i - 1]); i--)
		r->e[i] = r->e[i - 1];
	r->e[i] = e;
	r->len++;
	s->slots[slot].where = SLOT_CAL;
	s->opened++; /* the open bucket's events, however they came in */
}

/* Take the event of @p slot out of the run. */
static void run_remove(struct sched_run *r, uint32_t slot)
{
	uint32_t i = r->head;

	while (r->e[i].slot != slot)
		i++;
	memmove(r->e + i, r->e + i + 1, sizeof(*r->e) * (r->len - i - 1));
	r->len--;
}

static int ent_cmp(const void *x, const void *y)
{
	return ent_less(x, y) ? -1 : ent_less(y, x) ? 1 : 0;
}

/*
 * Sort e[0 .. n). Insertion sort, which is linear on the usual bucket (a handful, or many at one time, which come
 * in order already); past SCHED_SORT_MOVES moves per entry the input is not nearly sorted and qsort finishes
 * (the orders are unique: (creator, count) alone is).
 */
static void run_sort(struct sched_ent *e, uint32_t n)
{
	uint64_t budget = (uint64_t)SCHED_SORT_MOVES * n;

	for (uint32_t i = 1; i < n; i++) {
		struct sched_ent x = e[i];
		uint32_t j = i;

		for (; j > 0 && ent_less(&x, &e[j - 1]); j--)
			e[j] = e[j - 1];
		e[j] = x;
		if (i - j > budget) {
			qsort(e, n, sizeof(*e), ent_cmp);
			return;
		}
		budget -= i - j;
	}
}

/* ---- the wheel ---- */

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
	uint32_t pos = (uint32_t)idx & s->mask, h = s->head[pos];
	struct sched_node *nd = &s->nodes[slot];

	s->slots[slot].where = SLOT_CAL;
	nd->prev = SLOT_NONE;
	nd->next = h;
	if (h != SLOT_NONE)
		s->nodes[h].prev = slot;
	else
		map_set(s, pos);
	s->head[pos] = slot;
	s->wheel_n++;
	if (idx < s->wnext)
		s->wnext = idx;
}

static void wheel_unlink(struct emu_sched *s, uint32_t slot)
{
	const struct sched_node *nd = &s->nodes[slot];
	uint32_t pos = (uint32_t)(nd->when >> s->shift) & s->mask;

	if (nd->prev != SLOT_NONE)
		s->nodes[nd->prev].next = nd->next;
	else
		s->head[pos] = nd->next;
	if (nd->next != SLOT_NONE)
		s->nodes[nd->next].prev = nd->prev;
	if (s->head[pos] == SLOT_NONE) {
		map_clear(s, pos);
		if (nd->when >> s->shift == s->wnext)
			s->wnext = SCHED_WNEXT_UNKNOWN;
	}
	s->wheel_n--;
}

/* First non-empty bucket position at or after @p p, or SLOT_NONE. */
static uint32_t map_find(const struct emu_sched *s, uint32_t p)
{
	uint32_t w = p >> 6, nwords = (s->mask + 1) >> 6, si;
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
	uint32_t p = (uint32_t)(s->cur + 1) & s->mask, pos = map_find(s, p);

	if (pos == SLOT_NONE)
		pos = map_find(s, 0);
	return s->cur + 1 + ((pos - p) & s->mask);
}

/*
 * Sort bucket @p idx's list into the empty run. The list is newest first (pushed at the head), so it fills the
 * run's buffer from its end backwards: oldest first, and equal times are in order already. Returns how many.
 */
static uint32_t wheel_open(struct emu_sched *s, uint64_t idx)
{
	uint32_t pos = (uint32_t)idx & s->mask, slot = s->head[pos], n = 0;
	struct sched_ent *end = s->run.e + s->run.cap;

	while (slot != SLOT_NONE) {
		__builtin_prefetch(&s->slots[slot]); /* its callback is read when it runs, a few events on: a hint */
		slot_ent(s, slot, --end);
		slot = s->nodes[slot].next;
		n++;
	}
	run_sort(end, n);
	s->run.head = s->run.cap - n;
	s->run.len = s->run.cap;
	s->head[pos] = SLOT_NONE;
	if (n > 0)
		map_clear(s, pos);
	s->wheel_n -= n;
	return n;
}

/* ---- placing events ---- */

/* Put the live event of @p slot where its time belongs. */
static inline void place(struct emu_sched *s, uint32_t slot)
{
	uint64_t idx = s->nodes[slot].when >> s->shift;

	if (idx <= s->cur) {
		run_insert(s, slot);
	} else if (idx - s->cur <= s->mask) {
		wheel_link(s, slot, idx);
	} else {
		if (idx - s->cur <= 4ull * s->mask)
			s->near_miss++;
		s->slots[slot].where = SLOT_FAR;
		heap_push(s, &s->far, slot);
	}
}

/* Move every far event of the open bucket or earlier into the run. */
static void far_pull(struct emu_sched *s)
{
	for (;;) {
		heap_skip_stale(s, &s->far);
		if (s->far.len == 0 || s->far.e[0].when >> s->shift > s->cur)
			return;
		uint32_t slot = s->far.e[0].slot;

		heap_pop(&s->far);
		s->far.live--;
		run_insert(s, slot);
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
	s->mask = nb - 1;
	return 0;
}

/*
 * Re-cut the wheel into 2^@p nb_log buckets of 2^@p shift ps, with the run empty: the wheel's events are placed
 * again from the bucket of now. O(pending + buckets); left as it was when memory is short.
 */
static void rebuild(struct emu_sched *s, uint32_t shift, uint32_t nb_log)
{
	uint32_t n = 0, *keep = malloc(sizeof(*keep) * (s->wheel_n ? s->wheel_n : 1));
	uint32_t old_nb = s->mask + 1;

	if (keep == NULL)
		return;
	for (uint32_t pos = 0; pos < old_nb && n < s->wheel_n; pos++)
		for (uint32_t slot = s->head[pos]; slot != SLOT_NONE; slot = s->nodes[slot].next)
			keep[n++] = slot;
	if (wheel_alloc(s, nb_log) != 0) {
		free(keep);
		return;
	}
	s->wheel_n = 0;
	s->wnext = SCHED_WNEXT_UNKNOWN;
	s->shift = shift;
	s->run.head = s->run.len = 0;
	s->cur = s->now >> shift;
	for (uint32_t i = 0; i < n; i++)
		place(s, keep[i]);
	free(keep);
	far_pull(s);
}

/* Every SCHED_ADAPT_OPENS openings: narrower buckets if they were crowded, wider if nearly empty, more of them if
 * events missed the horizon. */
static __attribute__((noinline)) void adapt(struct emu_sched *s)
{
	uint32_t shift = s->shift, nb_log = s->nb_log;

	if (s->opened > (uint64_t)SCHED_OPEN_HIGH * s->opens && shift > SCHED_SHIFT_MIN) {
		shift--;
		if (nb_log < SCHED_NB_LOG_MAX)
			nb_log++;
	} else if (s->near_miss > s->opened / 8 && nb_log < SCHED_NB_LOG_MAX) {
		nb_log++;
	} else if (s->opened < (uint64_t)SCHED_OPEN_LOW * s->opens && shift < SCHED_SHIFT_MAX) {
		shift++;
		if (nb_log > SCHED_NB_LOG_MIN)
			nb_log--;
	}
	s->opens = 0;
	s->opened = 0;
	s->near_miss = 0;
	if (shift != s->shift || nb_log != s->nb_log)
		rebuild(s, shift, nb_log);
}

/* The run is used up: open the next bucket that holds an event. Returns false when nothing is pending. */
static bool advance(struct emu_sched *s)
{
	uint64_t idx = UINT64_MAX;
	uint32_t n = 0;

	if (s->opens >= SCHED_ADAPT_OPENS)
		adapt(s);
	if (s->run.head < s->run.len) /* the rebuild found events of the open bucket */
		return true;
	heap_skip_stale(s, &s->far);
	if (s->wheel_n > 0)
		idx = s->wnext != SCHED_WNEXT_UNKNOWN ? s->wnext : wheel_next(s);
	if (s->far.len > 0 && s->far.e[0].when >> s->shift < idx)
		idx = s->far.e[0].when >> s->shift;
	if (idx == UINT64_MAX)
		return false;
	s->cur = idx;
	s->run.head = s->run.len = 0;
	if (s->wheel_n > 0)
		n = wheel_open(s, idx);
	s->wnext = SCHED_WNEXT_UNKNOWN;
	s->pf = SLOT_NONE;
	if (s->wheel_n > 0) { /* the next bucket's first event is read while this one's run: a cache hint only */
		s->wnext = wheel_next(s);
		s->pf = s->head[(uint32_t)s->wnext & s->mask];
		__builtin_prefetch(&s->nodes[s->pf]);
	}
	if (s->far.len > 0 && s->far.e[0].when >> s->shift <= s->cur)
		far_pull(s); /* counted in run_insert() */
	s->opens++;
	s->opened += n;
	return true;
}

/* The earliest pending event, at the run's front; NULL when none is pending. */
static inline const struct sched_ent *sched_top(struct emu_sched *s)
{
	if (s->run.head == s->run.len && !advance(s))
		return NULL;
	return &s->run.e[s->run.head];
}

/* ---- slots ---- */

/* Chain slots [@p from, @p to) into the free list, lowest first. */
static void slots_free_range(struct emu_sched *s, uint32_t from, uint32_t to)
{
	for (uint32_t i = from; i < to; i++) {
		s->slots[i] = (struct sched_slot){ .gen = 1 };
		s->nodes[i] = (struct sched_node){ .next = i + 1 < to ? i + 1 : s->free_head, .prev = SLOT_NONE };
	}
	s->free_head = from;
}

/* Move an array of @p old elements of @p size bytes to a 64-byte aligned one of @p n. NULL without memory. */
static void *aligned_grow(void *p, size_t size, uint32_t old, uint32_t n)
{
	void *q = aligned_alloc(64, (size * n + 63) & ~(size_t)63);

	if (q != NULL && p != NULL)
		memcpy(q, p, size * old);
	if (q != NULL)
		free(p);
	return q;
}

/* The slot arrays for @p n slots, the first n_slots kept. Returns 0 or -ENOMEM (what moved stays moved). */
static int slot_arrays(struct emu_sched *s, uint32_t n)
{
	struct sched_slot *sl = aligned_grow(s->slots, sizeof(*sl), s->n_slots, n);
	struct sched_node *nd;

	if (sl == NULL)
		return -ENOMEM;
	s->slots = sl;
	nd = aligned_grow(s->nodes, sizeof(*nd), s->n_slots, n);
	if (nd == NULL)
		return -ENOMEM;
	s->nodes = nd;
	return 0;
}

/* Room in the run for @p n entries and in the far heap for 2 x @p n. Returns 0 or -ENOMEM. */
static int ents_reserve(struct emu_sched *s, uint32_t n)
{
	struct sched_ent *r = realloc(s->run.e, sizeof(*r) * (size_t)n), *h;

	if (r == NULL)
		return -ENOMEM;
	s->run.e = r;
	s->run.cap = n;
	h = realloc(s->far.e, sizeof(*h) * 2 * (size_t)n);
	if (h == NULL)
		return -ENOMEM;
	s->far.e = h;
	s->far.cap = 2 * n;
	return 0;
}

/*
 * Double the slot table, up to the capacity, and the run and the heap with it. Returns 0, or -ENOSPC at the
 * capacity or without memory. Rare (log2 of the most events ever pending), so off the common path.
 */
static __attribute__((cold, noinline)) int slots_grow(struct emu_sched *s)
{
	uint32_t n = s->n_slots * 2 < s->cap ? s->n_slots * 2 : s->cap;

	if (n <= s->n_slots || ents_reserve(s, n) != 0 || slot_arrays(s, n) != 0)
		return -ENOSPC;
	slots_free_range(s, s->n_slots, n);
	s->n_slots = n;
	return 0;
}

static inline void slot_release(struct emu_sched *s, uint32_t slot)
{
	struct sched_slot *sl = &s->slots[slot];

	sl->gen++;
	if (sl->gen == 0) /* generation 0 would let a zero handle match */
		sl->gen = 1;
	sl->where = SLOT_FREE;
	s->nodes[slot].next = s->free_head;
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
	s->shift = SCHED_SHIFT_INIT;
	if (slot_arrays(s, cap < SCHED_SLOTS_MIN ? cap : SCHED_SLOTS_MIN) != 0)
		goto fail_s;
	s->n_slots = cap < SCHED_SLOTS_MIN ? cap : SCHED_SLOTS_MIN;
	if (wheel_alloc(s, SCHED_NB_LOG_INIT) != 0 || ents_reserve(s, s->n_slots) != 0)
		goto fail_s;
	s->free_head = SLOT_NONE;
	s->pf = SLOT_NONE;
	s->ctr = &s->ctr0;
	s->n_ent = 1;
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
	if (s->ctr != &s->ctr0)
		free(s->ctr);
	free(s->slots);
	free(s->nodes);
	free(s->run.e);
	free(s->far.e);
	free(s->head);
	free(s->map);
	free(s->sum);
	free(s);
}

/* The slow paths of emu_sched_at(): a slot table to grow, or an event for the run or the far heap. Out of line and
 * reached by tail calls, so the common path (a wheel bucket) saves no register. */
static __attribute__((noinline)) int sched_at_slow(struct emu_sched *s, emu_ps_t when, emu_ps_t ctime, uint64_t key,
						   emu_event_fn fn, void *a, void *b, emu_timer_t *h)
{
	if (s->free_head == SLOT_NONE && slots_grow(s) != 0)
		return -ENOSPC;
	uint32_t slot = s->free_head;
	struct sched_slot *sl = &s->slots[slot];

	s->free_head = s->nodes[slot].next;
	sl->fn = fn;
	sl->a = a;
	sl->b = b;
	s->nodes[slot].when = when < s->now ? s->now : when;
	s->nodes[slot].ctime = ctime;
	s->nodes[slot].key = key;
	place(s, slot);
	s->live++;
	if (h != NULL)
		*h = ((uint64_t)sl->gen << 32) | slot;
	return 0;
}

int emu_sched_at(struct emu_sched *s, emu_ps_t when, emu_event_fn fn, void *a, void *b, emu_timer_t *h)
{
	uint32_t slot = s->free_head;

	if (when < s->now)
		when = s->now;
	uint64_t idx = when >> s->shift;

	if (slot == SLOT_NONE || idx <= s->cur || idx - s->cur > s->mask)
		return sched_at_slow(s, when, s->now, key_draw(s), fn, a, b, h);
	struct sched_slot *sl = &s->slots[slot];
	struct sched_node *nd = &s->nodes[slot];

	s->free_head = nd->next;
	sl->fn = fn;
	sl->a = a;
	sl->b = b;
	nd->when = when;
	nd->ctime = s->now;
	nd->key = key_draw(s);
	wheel_link(s, slot, idx);
	s->live++;
	if (h != NULL)
		*h = ((uint64_t)sl->gen << 32) | slot;
	return 0;
}

int emu_sched_at2(struct emu_sched *s, emu_ps_t when1, emu_event_fn fn1, void *a1, void *b1, emu_ps_t when2,
		  emu_event_fn fn2, void *a2, void *b2)
{
	uint32_t s1 = s->free_head, s2 = s1 != SLOT_NONE ? s->nodes[s1].next : SLOT_NONE;

	when1 = when1 < s->now ? s->now : when1;
	when2 = when2 < s->now ? s->now : when2;
	uint64_t i1 = when1 >> s->shift, i2 = when2 >> s->shift;

	if (s2 == SLOT_NONE || i1 <= s->cur || i1 - s->cur > s->mask || i2 <= s->cur || i2 - s->cur > s->mask) {
		int rc = emu_sched_at(s, when1, fn1, a1, b1, NULL) < 0 ? 1 : 0;

		return rc | (emu_sched_at(s, when2, fn2, a2, b2, NULL) < 0 ? 2 : 0);
	}
	s->free_head = s->nodes[s2].next;
	s->slots[s1].fn = fn1;
	s->slots[s1].a = a1;
	s->slots[s1].b = b1;
	s->nodes[s1].when = when1;
	s->nodes[s1].ctime = s->now;
	s->nodes[s1].key = key_draw(s);
	s->slots[s2].fn = fn2;
	s->slots[s2].a = a2;
	s->slots[s2].b = b2;
	s->nodes[s2].when = when2;
	s->nodes[s2].ctime = s->now;
	s->nodes[s2].key = key_draw(s);
	wheel_link(s, s1, i1);
	wheel_link(s, s2, i2);
	s->live += 2;
	return 0;
}

void emu_sched_key_draw(struct emu_sched *s, struct emu_sched_key *k)
{
	k->ctime = s->now;
	k->key = key_draw(s);
}

int emu_sched_at_key(struct emu_sched *s, emu_ps_t when, const struct emu_sched_key *k, emu_event_fn fn, void *a,
		     void *b)
{
	return sched_at_slow(s, when < s->now ? s->now : when, k->ctime, k->key, fn, a, b, NULL);
}

int emu_sched_entities(struct emu_sched *s, uint32_t n)
{
	uint64_t *c = calloc(n > 0 ? n : 1, sizeof(*c));

	if (c == NULL)
		return -ENOMEM;
	c[0] = s->ctr[0];
	if (s->ctr != &s->ctr0)
		free(s->ctr);
	s->ctr = c;
	s->n_ent = n > 0 ? n : 1;
	s->ent = 0;
	return 0;
}

void emu_sched_set_ent(struct emu_sched *s, uint32_t ent)
{
	s->ent = ent < s->n_ent ? ent : 0;
}

uint32_t emu_sched_ent(const struct emu_sched *s)
{
	return s->ent;
}

void emu_sched_tag(struct emu_sched *s, struct emu_sched_tag *t)
{
	t->when = s->now;
	t->ctime = s->run_ctime;
	t->key = s->run_key;
	t->idx = s->emit++;
}

uint64_t emu_sched_created(const struct emu_sched *s, uint32_t ent)
{
	return ent < s->n_ent ? s->ctr[ent] : 0;
}

int emu_sched_cancel(struct emu_sched *s, emu_timer_t h)
{
	uint32_t slot = (uint32_t)h;
	uint32_t gen = (uint32_t)(h >> 32);

	if (h == 0 || slot >= s->n_slots || s->slots[slot].gen != gen || s->slots[slot].where == SLOT_FREE)
		return -ENOENT;
	uint8_t where = s->slots[slot].where;

	if (where == SLOT_CAL && s->nodes[slot].when >> s->shift > s->cur)
		wheel_unlink(s, slot);
	else if (where == SLOT_CAL)
		run_remove(&s->run, slot);
	slot_release(s, slot);
	if (where == SLOT_FAR) {
		s->far.live--;
		if (s->far.len > 64 && s->far.len - s->far.live > s->far.live)
			heap_compact(s, &s->far);
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
	e->ent = s->ent;
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

		/* it runs as the entity that asked for it; its tags come after the instant's events' */
		s->ent = e->ent;
		s->run_ctime = EMU_PS_NEVER;
		s->run_key = (uint64_t)s->ent << EMU_SCHED_ENT_SHIFT | (s->ends++ & ((1ull << EMU_SCHED_ENT_SHIFT) - 1));
		s->emit = 0;
		e->fn(e->a, e->b, s->now);
		e = next;
	}
}

emu_ps_t emu_sched_next(struct emu_sched *s)
{
	if (s->end_head != NULL)
		return s->now;
	const struct sched_ent *t = sched_top(s);

	return t != NULL ? t->when : EMU_PS_NEVER;
}

void emu_sched_stop_on(struct emu_sched *s, const volatile sig_atomic_t *stop)
{
	s->stop = stop;
}

/* Events run between two looks at the stop flag: a few microseconds of work. */
#define SCHED_STOP_EVERY 1024u

uint64_t emu_sched_run_until(struct emu_sched *s, emu_ps_t limit)
{
	uint64_t n = 0;

	for (;;) {
		const struct sched_ent *t = sched_top(s);

		if ((n & (SCHED_STOP_EVERY - 1)) == SCHED_STOP_EVERY - 1 && s->stop != NULL && *s->stop)
			break;

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

		if (++s->run.head < s->run.len) { /* cache hints: the next event's objects, the slot after it */
			const struct sched_slot *nx = &s->slots[s->run.e[s->run.head].slot];

			__builtin_prefetch(nx->a);
			__builtin_prefetch(nx->b);
		}

		if (s->pf != SLOT_NONE) { /* one more of the next bucket's list (a hint: the list may change) */
			s->pf = s->nodes[s->pf].next;
			if (s->pf < s->n_slots)
				__builtin_prefetch(&s->nodes[s->pf]);
		}
		s->run_ctime = s->nodes[slot].ctime;
		s->run_key = s->nodes[slot].key;
		s->ent = (uint32_t)(s->run_key >> EMU_SCHED_ENT_SHIFT); /* its creator, unless it says otherwise */
		s->emit = 0;
		slot_release(s, slot); /* before the call, so the callback may reuse the slot */
		s->now = when;
		fn(a, b, when);
		n++;
	}
	s->ran += n;
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
	return s->ran;
}

uint32_t emu_sched_pending(const struct emu_sched *s)
{
	return s->live;
}
