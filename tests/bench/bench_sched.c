/*
 * The scheduler against the binary heap it replaced, on a hold model: N events pending; each event run schedules
 * one more at now + a delay drawn like a fabric's (serialization and propagation, 10 ps .. 1 us, most of them; a
 * retransmission timeout, 150 us, one in 1,024), and one event in 16 cancels and re-arms a timer. Prints
 * nanoseconds per event (run + schedule) for N from 1,000 to 1,000,000 (a 1,024-host fat tree holds about 30,000,
 * an 8,192-host one about 250,000). Figures only, no assertion:
 *
 *   meson test -C build --benchmark --suite bench sched --verbose
 *
 * The heap below is emul/core/emu_sched.c as it was before the calendar (a binary min-heap on (time, seq) over a
 * slot table with generations, stale entries compacted), reduced to what the hold model calls.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "emu_rng.h"
#include "emu_sched.h"

/* ---- the reference heap ---- */

struct ref_slot {
	emu_event_fn fn;
	void *a, *b;
	uint32_t gen, next_free;
};

struct ref_ent {
	emu_ps_t when;
	uint64_t seq;
	uint32_t slot, gen;
};

struct ref_sched {
	struct ref_ent *heap;
	struct ref_slot *slots;
	uint32_t len, cap, live, free_head;
	uint64_t seq;
	emu_ps_t now;
};

static bool ref_less(const struct ref_ent *x, const struct ref_ent *y)
{
	return x->when < y->when || (x->when == y->when && x->seq < y->seq);
}

static void ref_up(struct ref_ent *h, uint32_t i)
{
	struct ref_ent e = h[i];

	while (i > 0 && ref_less(&e, &h[(i - 1) / 2])) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = e;
}

static void ref_down(struct ref_ent *h, uint32_t n, uint32_t i)
{
	struct ref_ent e = h[i];

	for (uint32_t c; (c = 2 * i + 1) < n; i = c) {
		if (c + 1 < n && ref_less(&h[c + 1], &h[c]))
			c++;
		if (!ref_less(&h[c], &e))
			break;
		h[i] = h[c];
	}
	h[i] = e;
}

static bool ref_stale(const struct ref_sched *s, const struct ref_ent *e)
{
	return s->slots[e->slot].gen != e->gen;
}

static void ref_compact(struct ref_sched *s)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < s->len; i++)
		if (!ref_stale(s, &s->heap[i]))
			s->heap[n++] = s->heap[i];
	s->len = n;
	for (uint32_t i = n / 2; i-- > 0;)
		ref_down(s->heap, n, i);
}

static struct ref_sched *ref_create(uint32_t cap)
{
	struct ref_sched *s = calloc(1, sizeof(*s));

	s->cap = cap;
	s->heap = malloc(sizeof(*s->heap) * 2 * (size_t)cap);
	s->slots = malloc(sizeof(*s->slots) * (size_t)cap);
	for (uint32_t i = 0; i < cap; i++)
		s->slots[i] = (struct ref_slot){ .gen = 1, .next_free = i + 1 };
	return s;
}

static uint64_t ref_at(struct ref_sched *s, emu_ps_t when, emu_event_fn fn, void *a, void *b)
{
	if (s->len == 2 * s->cap)
		ref_compact(s);
	uint32_t slot = s->free_head;
	struct ref_slot *sl = &s->slots[slot];

	s->free_head = sl->next_free;
	sl->fn = fn;
	sl->a = a;
	sl->b = b;
	s->heap[s->len] = (struct ref_ent){ .when = when < s->now ? s->now : when, .seq = s->seq++, .slot = slot,
					    .gen = sl->gen };
	ref_up(s->heap, s->len++);
	s->live++;
	return (uint64_t)sl->gen << 32 | slot;
}

static void ref_release(struct ref_sched *s, uint32_t slot)
{
	s->slots[slot].gen++;
	s->slots[slot].next_free = s->free_head;
	s->free_head = slot;
	s->live--;
}

static void ref_cancel(struct ref_sched *s, uint64_t h)
{
	uint32_t slot = (uint32_t)h;

	if (h == 0 || s->slots[slot].gen != (uint32_t)(h >> 32))
		return;
	ref_release(s, slot);
	if (s->len > 64 && s->len - s->live > s->live)
		ref_compact(s);
}

static uint64_t ref_run(struct ref_sched *s, uint64_t n)
{
	uint64_t ran = 0;

	while (ran < n && s->len > 0) {
		struct ref_ent e = s->heap[0];

		s->heap[0] = s->heap[--s->len];
		if (s->len > 0)
			ref_down(s->heap, s->len, 0);
		if (ref_stale(s, &e))
			continue;
		struct ref_slot sl = s->slots[e.slot];

		ref_release(s, e.slot);
		s->now = e.when;
		sl.fn(sl.a, sl.b, e.when);
		ran++;
	}
	return ran;
}

/* ---- the hold model ---- */

struct hold {
	struct emu_rng rng;
	struct emu_sched *cal;   /* one of the two */
	struct ref_sched *ref;
	uint64_t timer;          /* the re-armed timer's handle */
};

static emu_ps_t draw_delay(struct emu_rng *r)
{
	uint64_t x = emu_rng_next(r);

	if ((x & 1023) == 0)
		return 150 * EMU_PS_PER_US;                        /* a retransmission timeout */
	return 10 + (x >> 16) % EMU_PS_PER_US;                  /* serialization, propagation, PCIe */
}

static void ev_hold(void *a, void *b, emu_ps_t now);

static void hold_at(struct hold *h, emu_ps_t when, emu_event_fn fn)
{
	if (h->cal != NULL)
		emu_sched_at(h->cal, when, fn, h, NULL, NULL);
	else
		ref_at(h->ref, when, fn, h, NULL);
}

static void ev_timer(void *a, void *b, emu_ps_t now)
{
	struct hold *h = a;

	(void)b;
	(void)now;
	h->timer = 0;
}

static void ev_hold(void *a, void *b, emu_ps_t now)
{
	struct hold *h = a;

	(void)b;
	hold_at(h, now + draw_delay(&h->rng), ev_hold);
	if ((emu_rng_next(&h->rng) & 15) != 0)
		return;
	if (h->cal != NULL) { /* re-arm the timer: cancel and schedule, as a retransmission timer does */
		emu_sched_cancel(h->cal, h->timer);
		emu_sched_at(h->cal, now + 150 * EMU_PS_PER_US, ev_timer, h, NULL, &h->timer);
	} else {
		ref_cancel(h->ref, h->timer);
		h->timer = ref_at(h->ref, now + 150 * EMU_PS_PER_US, ev_timer, h, NULL);
	}
}

static double wall(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ns per event of one implementation with @p n pending, over @p runs events after a warm-up of as many. */
static double measure(bool calendar, uint32_t n, uint64_t runs)
{
	struct hold h = { 0 };

	emu_rng_init(&h.rng, 18760, n);
	if (calendar)
		h.cal = emu_sched_create(4 * n + 1024);
	else
		h.ref = ref_create(4 * n + 1024);
	for (uint32_t i = 0; i < n; i++)
		hold_at(&h, draw_delay(&h.rng), ev_hold);
	double t0 = 0;
	uint64_t done = 0;

	for (int pass = 0; pass < 2; pass++) {
		t0 = wall();
		done = 0;
		while (done < runs) { /* the calendar runs until a time: step in slices of 1 us */
			if (calendar)
				done += emu_sched_run_until(h.cal, emu_sched_now(h.cal) + EMU_PS_PER_US);
			else
				done += ref_run(h.ref, runs - done);
		}
	}
	double ns = (wall() - t0) * 1e9 / (double)done;

	if (calendar) {
		emu_sched_destroy(h.cal);
	} else {
		free(h.ref->heap);
		free(h.ref->slots);
		free(h.ref);
	}
	return ns;
}

int main(void)
{
	static const uint32_t sizes[] = { 1000, 10000, 30000, 100000, 300000, 1000000 };

	printf("bench_sched: hold model, ns per event (run + schedule; 1 in 16 also re-arms a timer)\n");
	printf("  %10s %12s %12s %8s\n", "pending", "binary heap", "calendar", "ratio");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint64_t runs = sizes[i] < 100000 ? 4000000 : 2 * (uint64_t)sizes[i];
		double heap = measure(false, sizes[i], runs), cal = measure(true, sizes[i], runs);

		printf("  %10u %12.1f %12.1f %7.2fx\n", sizes[i], heap, cal, cal / heap);
	}
	return 0;
}
