/*
 * The engine without a config (runtime/run.h): a toy model of two devices, each in a partition of its own, joined
 * by a link with a delay. Each device sends frames, answers what it receives, ticks on a timer of its own and posts
 * a generic cross-partition event to the other device; every one of those writes an output. Run in virtual time on
 * one thread (both partitions on it) and on two (the link split between them), the outputs come out the same, in
 * the same order, byte for byte. Also: the window's arithmetic, the lookahead and what gives it, an event posted
 * across threads runs at its time, and real time on two lcores (threads here) paced by the TSC.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "dp.h"
#include "run.h"

#define TOY_DELAY (500 * EMU_PS_PER_NS)   /* the link's delay: the lookahead */
#define TOY_BPS 100000000000ull           /* 100 Gb/s */
#define TOY_HOPS 6                        /* a frame is answered until its ip_id reaches this */
#define TOY_FRAMES 8                      /* frames each device starts */
#define TOY_TICK (10 * EMU_PS_PER_NS)     /* each device's timer: on the times frames arrive at */
#define TOY_TICKS 1000u
#define TOY_STOP (20 * EMU_PS_PER_US)
#define TOY_RT_STOP (50 * EMU_PS_PER_US)
#define TOY_OUT_MAX 4096

/* An output: which device, what, when, and a value. */
struct toy_out {
	uint32_t dev;
	uint32_t what;           /* 1 frame received, 2 tick, 3 cross-partition event */
	emu_ps_t now;
	uint64_t v;
};

struct toy_dev;

struct toy_run {
	struct run_engine *eng;
	struct net_part np0;
	struct net_link link;
	struct toy_dev *dev[2];
	int xev;
	struct toy_out out[TOY_OUT_MAX];
	uint32_t n_out;
};

struct toy_dev {
	struct toy_run *run;
	uint32_t id;
	uint32_t lc;             /* its lcore */
	struct net_dir *tx;      /* the direction it sends on */
	struct wire_pkt *queue[64];
	uint32_t head, n;        /* frames waiting for the link */
	bool busy;
	uint32_t ticks;
};

static volatile sig_atomic_t never;

static void emit(struct toy_dev *d, uint32_t what, emu_ps_t now, uint64_t v)
{
	struct toy_out o = { .dev = d->id, .what = what, .now = now, .v = v };

	run_out(run_lcore(d->run->eng, d->lc), &o, sizeof(o), NULL, 0);
}

static struct net_part *dev_np(struct toy_dev *d)
{
	return run_lcore(d->run->eng, d->lc)->np;
}

static void send_next(struct toy_dev *d, emu_ps_t now)
{
	if (d->busy || d->n == 0)
		return;
	struct wire_pkt *p = d->queue[d->head];

	d->head = (d->head + 1) % 64;
	d->n--;
	d->busy = true;
	net_dir_xmit(d->tx, p, now);
}

static void send(struct toy_dev *d, uint16_t ip_id, emu_ps_t now)
{
	struct wire_pkt *p = net_pkt_alloc(dev_np(d));

	cr_assert_not_null(p);
	p->kind = WIRE_KIND_DATA;
	p->payload_len = 125u * (2 + ip_id) - 106; /* (2 + ip_id) x 10 ns on the wire: ties with the ticks */
	p->ip_id = ip_id;
	p->src_ip = d->id;
	cr_assert_lt(d->n, 64u);
	d->queue[(d->head + d->n) % 64] = p;
	d->n++;
	send_next(d, now);
}

static void toy_receive(void *dev, uint32_t port, struct wire_pkt *pkt, emu_ps_t now)
{
	struct toy_dev *d = dev;
	uint16_t id = pkt->ip_id;

	(void)port;
	emit(d, 1, now, (uint64_t)id << 32 | pkt->payload_len);
	net_pkt_free(dev_np(d), pkt);
	if (id + 1u < TOY_HOPS)
		send(d, (uint16_t)(id + 1), now);
	if (id % 3 == 2) /* the other device hears of it by an event, a link's delay later */
		run_xev_post(run_lcore(d->run->eng, d->lc), d->run->dev[1 - d->id]->lc, d->run->xev,
			     (uint64_t)d->id << 16 | id, now + TOY_DELAY);
}

static void toy_tx_done(void *dev, uint32_t port, emu_ps_t now)
{
	struct toy_dev *d = dev;

	(void)port;
	d->busy = false;
	send_next(d, now);
}

static const struct net_dev_ops toy_ops = { .receive = toy_receive, .tx_done = toy_tx_done };

static void ev_tick(void *a, void *b, emu_ps_t now)
{
	struct toy_dev *d = a;

	(void)b;
	emit(d, 2, now, d->ticks++);
	if (d->ticks < TOY_TICKS)
		emu_sched_at(dev_np(d)->sched, now + TOY_TICK, ev_tick, d, NULL, NULL);
}

static void ev_start(void *a, void *b, emu_ps_t now)
{
	struct toy_dev *d = a;

	(void)b;
	send(d, 0, now);
}

/* The cross-partition event: on the lcore it was posted to, at its time. */
static void ev_heard(void *ctx, struct run_lcore *lc, uint64_t arg, emu_ps_t now)
{
	struct toy_run *t = ctx;
	struct toy_dev *d = t->dev[1 - (arg >> 16)];

	cr_assert_eq(lc->idx, d->lc, "the event runs on the lcore it was posted to");
	emu_sched_set_ent(lc->np->sched, d->id + 1);
	emit(d, 3, now, arg);
}

static void write_out(void *ctx, const void *rec, uint32_t len)
{
	struct toy_run *t = ctx;

	cr_assert_eq(len, sizeof(struct toy_out));
	cr_assert_lt(t->n_out, TOY_OUT_MAX);
	memcpy(&t->out[t->n_out++], rec, len);
}

static emu_ps_t hook_limit(void *ctx)
{
	(void)ctx;
	return TOY_STOP;
}

static emu_ps_t hook_due(void *ctx)
{
	(void)ctx;
	return EMU_PS_NEVER;
}

static void hook_work(void *ctx, emu_ps_t t)
{
	(void)ctx;
	(void)t;
}

/* Build the toy on @p n_lcores (1: both devices on lcore 0; 2: one each) with @p clock, its link split. */
static void toy_build(struct toy_run *t, struct toy_dev d[2], uint32_t n_lcores, enum run_clock_kind clock)
{
	char err[256];

	memset(t, 0, sizeof(*t));
	cr_assert_eq(net_part_init(&t->np0, 1 << 14, 1 << 12), 0);
	struct run_params p = { .clock = clock, .sync = n_lcores > 1 ? RUN_SYNC_THREADS : RUN_SYNC_NONE,
				.n_lcores = n_lcores, .main_np = &t->np0, .max_events = 1 << 14, .max_pkts = 1 << 12,
				.quit = &never, .write = write_out, .write_ctx = t };

	cr_assert_eq(run_create(&t->eng, &p, err, sizeof(err)), 0, "%s", err);
	t->xev = run_xev_kind(t->eng, ev_heard, t);
	cr_assert_geq(t->xev, 0);
	for (uint32_t i = 0; i < 2; i++) {
		d[i] = (struct toy_dev){ .run = t, .id = i, .lc = n_lcores > 1 ? i : 0 };
		t->dev[i] = &d[i];
	}
	net_link_init(&t->link, &t->np0, TOY_BPS, TOY_DELAY,
		      (struct net_endpoint){ .dev = &d[0], .ops = &toy_ops, .ent = 1 },
		      (struct net_endpoint){ .dev = &d[1], .ops = &toy_ops, .ent = 2 });
	run_split_link(t->eng, &t->link, d[0].lc, d[1].lc, "link a-b");
	d[0].tx = &t->link.dir[0];
	d[1].tx = &t->link.dir[1];
	if (clock == RUN_VIRTUAL)
		cr_assert_eq(run_entities(t->eng, 3), 0);
	for (uint32_t i = 0; i < 2; i++) { /* each device's start, as its own entity */
		struct emu_sched *s = dev_np(&d[i])->sched;

		emu_sched_set_ent(s, i + 1);
		for (uint32_t k = 0; k < TOY_FRAMES; k++)
			cr_assert_eq(emu_sched_at(s, k * 300 * EMU_PS_PER_NS + i * 50 * EMU_PS_PER_NS, ev_start, &d[i],
						  NULL, NULL), 0);
		cr_assert_eq(emu_sched_at(s, TOY_TICK, ev_tick, &d[i], NULL, NULL), 0);
		emu_sched_set_ent(s, 0);
	}
}

static void toy_free(struct toy_run *t)
{
	run_destroy(t->eng);
	net_part_fini(&t->np0);
}

/* Run the toy in virtual time on @p n threads: its outputs in t->out. */
static void toy_vt(struct toy_run *t, uint32_t n)
{
	struct toy_dev d[2];
	struct run_hooks h = { .ctx = t, .limit = hook_limit, .due = hook_due, .sample = hook_work };
	enum run_end why;
	emu_ps_t end;

	toy_build(t, d, n, RUN_VIRTUAL);
	cr_assert_eq(run_go(t->eng, &h, &why, &end), 0);
	cr_assert_eq(why, RUN_END_DONE);
	run_out_drain(t->eng);
	struct run_vt_info in;

	run_vt_info(t->eng, &in);
	cr_assert_eq(in.n, n);
	if (n > 1) {
		cr_assert_eq(in.lookahead, TOY_DELAY, "the lookahead is the split link's delay");
		cr_assert_str_eq(in.la_what, "link a-b");
		cr_assert_gt(in.windows, 10);
		cr_assert_gt(run_lcore(t->eng, 0)->x_sent, 0);
		cr_assert_eq(run_lcore(t->eng, 0)->x_sent, run_lcore(t->eng, 1)->x_recv);
		cr_assert_eq(run_lcore(t->eng, 1)->x_sent, run_lcore(t->eng, 0)->x_recv);
		cr_assert_eq(run_lcore(t->eng, 0)->x_late + run_lcore(t->eng, 1)->x_late, 0);
	}
	toy_free(t);
}

static struct toy_run one, two;

Test(run_toy, one_thread_and_two_give_the_same_outputs_in_the_same_order)
{
	uint32_t kinds[4] = { 0 };

	toy_vt(&one, 1);
	toy_vt(&two, 2);
	for (uint32_t i = 0; i < one.n_out; i++)
		kinds[one.out[i].what]++;
	cr_assert_eq(kinds[1], 2u * TOY_FRAMES * TOY_HOPS, "every frame of every hop received once: %u", kinds[1]);
	cr_assert_eq(kinds[2], 2 * TOY_TICKS, "both devices' ticks");
	cr_assert_eq(kinds[3], 2u * TOY_FRAMES * (TOY_HOPS / 3), "the events: %u", kinds[3]);
	cr_assert_eq(one.n_out, two.n_out);
	for (uint32_t i = 1; i < one.n_out; i++)
		cr_assert_leq(one.out[i - 1].now, one.out[i].now, "outputs come out in time order");
	cr_assert_eq(memcmp(one.out, two.out, sizeof(one.out[0]) * one.n_out), 0,
		     "two threads write what one writes, in its order");
}

Test(run_toy, a_cross_partition_event_runs_at_its_time)
{
	toy_vt(&two, 2);
	/* each event was posted when a frame with ip_id % 3 == 2 arrived, for a delay later: find that arrival */
	uint32_t seen = 0;

	for (uint32_t i = 0; i < two.n_out; i++) {
		const struct toy_out *e = &two.out[i];

		if (e->what != 3)
			continue;
		uint32_t from = (uint32_t)(e->v >> 16), id = (uint32_t)(e->v & 0xffff);
		bool found = false;

		cr_assert_eq(e->dev, 1 - from, "it runs at the other device");
		for (uint32_t k = 0; k < i && !found; k++)
			found = two.out[k].what == 1 && two.out[k].dev == from && two.out[k].v >> 32 == id &&
				two.out[k].now + TOY_DELAY == e->now;
		cr_assert(found, "event %u ran at %llu ps, a delay after an arrival", i, (unsigned long long)e->now);
		seen++;
	}
	cr_assert_gt(seen, 0);
}

Test(run_toy, the_window_ends_a_lookahead_after_the_next_event)
{
	cr_assert_eq(run_window_end(1000, 500, 2, EMU_PS_NEVER, EMU_PS_NEVER), 1499, "next + lookahead - 1");
	cr_assert_eq(run_window_end(1000, 500, 2, 1200, EMU_PS_NEVER), 1200, "no later than the caller's work");
	cr_assert_eq(run_window_end(1000, 500, 2, EMU_PS_NEVER, 1100), 1100, "no later than the limit");
	cr_assert_eq(run_window_end(1000, EMU_PS_NEVER, 2, EMU_PS_NEVER, EMU_PS_NEVER), EMU_PS_NEVER - 1,
		     "no lookahead: no overflow");
	cr_assert_eq(run_window_end(EMU_PS_NEVER - 10, 500, 2, EMU_PS_NEVER, EMU_PS_NEVER), EMU_PS_NEVER - 1);
	cr_assert_eq(run_window_end(1000, 500, 1, EMU_PS_NEVER, EMU_PS_NEVER), 1000 + 10 * EMU_PS_PER_US,
		     "one thread: a slice");
}

Test(run_toy, the_lookahead_is_the_smallest_bound)
{
	struct toy_run *t = &one;
	struct toy_dev d[2];
	struct run_vt_info in;

	toy_build(t, d, 2, RUN_VIRTUAL);
	run_lookahead_bound(t->eng, TOY_DELAY + 1, "larger");
	run_vt_info(t->eng, &in);
	cr_assert_eq(in.lookahead, TOY_DELAY);
	cr_assert_str_eq(in.la_what, "link a-b");
	run_lookahead_bound(t->eng, 7, "an event");
	run_vt_info(t->eng, &in);
	cr_assert_eq(in.lookahead, 7);
	cr_assert_str_eq(in.la_what, "an event");
	toy_free(t);
}

/* ---- real time: two lcores as threads, paced by the TSC ---- */

struct toy_port {
	uint64_t rx, flush;
};

static void port_rx(void *arg)
{
	((struct toy_port *)arg)->rx++;
}

static void port_flush(void *arg)
{
	struct toy_port *p = arg;

	cr_assert_eq(p->rx, p->flush + 1, "a pass receives, then flushes");
	p->flush++;
}

static emu_ps_t rt_stop(void *ctx)
{
	(void)ctx;
	return TOY_RT_STOP;
}

static void rt_nothing(void *ctx)
{
	(void)ctx;
}

static bool rt_pass_end(void *ctx, emu_ps_t now)
{
	(void)ctx;
	(void)now;
	return false;
}

static void rt_tick(void *ctx, uint64_t tsc, uint64_t dt)
{
	(void)ctx;
	(void)tsc;
	(void)dt;
}

static emu_ps_t rt_due(void *ctx)
{
	(void)ctx;
	return EMU_PS_NEVER;
}

static void rt_sample(void *ctx, emu_ps_t now)
{
	(void)ctx;
	(void)now;
}

struct launched {
	pthread_t tid;
	int (*fn)(void *);
	void *arg;
};

static void *thread_main(void *arg)
{
	struct launched *l = arg;

	l->fn(l->arg);
	return NULL;
}

static struct launched workers[2];

static int launch(void *ctx, unsigned lcore_id, int (*fn)(void *), void *arg)
{
	(void)ctx;
	workers[lcore_id] = (struct launched){ .fn = fn, .arg = arg };
	return -pthread_create(&workers[lcore_id].tid, NULL, thread_main, &workers[lcore_id]);
}

static void join(void *ctx, unsigned lcore_id)
{
	(void)ctx;
	pthread_join(workers[lcore_id].tid, NULL);
}

/* The TSC's rate, measured over 50 ms (no EAL here). */
static uint64_t tsc_hz(void)
{
	struct timespec a, b;
	uint64_t t0 = dp_tsc();

	clock_gettime(CLOCK_MONOTONIC, &a);
	nanosleep(&(struct timespec){ .tv_nsec = 50000000 }, NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	uint64_t ns = (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000ull + (uint64_t)(b.tv_nsec - a.tv_nsec);

	return (uint64_t)((unsigned __int128)(dp_tsc() - t0) * 1000000000ull / ns);
}

Test(run_toy, real_time_on_two_lcores_runs_to_its_stop_with_every_frame_crossed)
{
	struct toy_run *t = &two;
	struct toy_dev d[2];
	struct toy_port ports[2] = { 0 };
	const unsigned ids[2] = { 0, 1 };
	emu_ps_t end;
	bool lagged;

	toy_build(t, d, 2, RUN_REALTIME);
	for (uint32_t i = 0; i < 2; i++)
		run_lcore(t->eng, i)->lcore_id = ids[i];
	cr_assert_eq(run_rings(t->eng), 0);
	for (uint32_t i = 0; i < 2; i++)
		cr_assert_eq(run_port_add(t->eng, &(struct run_port){ .lc = i, .rx = port_rx, .flush = port_flush,
								      .arg = &ports[i] }), 0);
	/* slowed 1000 times: 50 us of emulated time take 50 ms */
	struct run_hooks h = { .ctx = t, .t0 = dp_tsc(), .hz = tsc_hz(), .scale = 1000, .lag_limit = EMU_PS_NEVER,
			       .launch = launch, .join = join, .stop = rt_stop, .due = rt_due, .sample = rt_sample,
			       .after_rx = rt_nothing, .pass_end = rt_pass_end, .tick = rt_tick, .sum = rt_nothing };
	enum run_end why;

	h.t0 = dp_tsc();
	cr_assert_eq(run_go(t->eng, &h, &why, &end), 0);
	lagged = why == RUN_END_LAG;
	cr_assert_eq(end, TOY_RT_STOP, "the run ends at its stop time exactly");
	cr_assert(!lagged);
	uint32_t rx = 0;

	for (uint32_t i = 0; i < t->n_out; i++)
		rx += t->out[i].what == 1;
	const struct run_lcore *l0 = run_lcore(t->eng, 0), *l1 = run_lcore(t->eng, 1);

	/* every frame taken from a ring arrived (the traffic ends well before the stop), and no lcore took more than
	 * the other sent; on a machine that let both threads keep up, every frame crossed and was answered */
	cr_assert_eq(rx, l0->x_recv + l1->x_recv, "%u frames arrived, %llu taken", rx,
		     (unsigned long long)(l0->x_recv + l1->x_recv));
	cr_assert_leq(l1->x_recv, l0->x_sent);
	cr_assert_leq(l0->x_recv, l1->x_sent);
	cr_assert_gt(rx, 0);
	if (l0->x_late + l1->x_late == 0)
		cr_assert_eq(rx, 2u * TOY_FRAMES * TOY_HOPS, "every frame crossed and was answered: %u", rx);
	for (uint32_t i = 0; i < 2; i++) {
		cr_assert_gt(ports[i].rx, 10, "each lcore polled its port every pass");
		/* at the top of every pass, and a last turn at the end */
		cr_assert_eq(ports[i].rx, run_lcore(t->eng, i)->rt.polls + 1);
		cr_assert_eq(ports[i].flush, ports[i].rx);
		cr_assert_eq(run_lcore(t->eng, i)->x_full + run_lcore(t->eng, i)->wr_full, 0);
	}
	toy_free(t);
}

/*
 * A port with an ACK that arrives while the loop is off the CPU, and the retransmission timer it stops: emulated
 * time (TimeScale 1000) from the TSC, as the loop computes it, counted from the port's first turn (base), where the
 * timers are armed. The loop loses the CPU at the end of its first pass, from before the ACK comes until after the
 * timer's time, so however long the machine keeps it off the CPU besides, the order of the next pass decides.
 */
#define ACK_LATE_TIMER (30 * EMU_PS_PER_US)  /* a timer due during the stall: it runs late */
#define ACK_AT (40 * EMU_PS_PER_US)          /* the ACK arrives meanwhile */
#define ACK_RTO (50 * EMU_PS_PER_US)         /* the timer it stops */
#define ACK_STALL_TO (70 * EMU_PS_PER_US)    /* the loop is back */
#define ACK_LAST_TIMER (80 * EMU_PS_PER_US)  /* a timer due after it */
#define ACK_STOP (100 * EMU_PS_PER_US)

struct ack_port {
	uint64_t t0, hz;
	struct emu_sched *s;
	emu_ps_t base;
	emu_timer_t rto, late, last;
	bool armed, stalled, taken;
	int cancel_rc;
	uint32_t fired_rto, fired;
	uint64_t rx, flush;
};

static emu_ps_t ack_now(const struct ack_port *p)
{
	return (emu_ps_t)((unsigned __int128)(dp_tsc() - p->t0) * EMU_PS_PER_S / ((unsigned __int128)p->hz * 1000));
}

static void ev_rto(void *a, void *b, emu_ps_t now)
{
	(void)b;
	(void)now;
	((struct ack_port *)a)->fired_rto++;
}

static void ev_timer(void *a, void *b, emu_ps_t now)
{
	(void)b;
	(void)now;
	((struct ack_port *)a)->fired++;
}

static void ack_rx(void *arg)
{
	struct ack_port *p = arg;

	p->rx++;
	if (!p->armed) { /* the first turn: the timers, from now */
		p->armed = true;
		p->base = ack_now(p);
		cr_assert_eq(emu_sched_at(p->s, p->base + ACK_RTO, ev_rto, p, NULL, &p->rto), 0);
		cr_assert_eq(emu_sched_at(p->s, p->base + ACK_LATE_TIMER, ev_timer, p, NULL, &p->late), 0);
		cr_assert_eq(emu_sched_at(p->s, p->base + ACK_LAST_TIMER, ev_timer, p, NULL, &p->last), 0);
		return;
	}
	if (p->stalled && !p->taken && ack_now(p) >= p->base + ACK_AT) { /* the ACK waits on the port */
		p->taken = true;
		p->cancel_rc = emu_sched_cancel(p->s, p->rto);
	}
}

static void ack_flush(void *arg)
{
	struct ack_port *p = arg;

	p->flush++;
	if (!p->stalled) { /* off the CPU from here until after the timer's time */
		p->stalled = true;
		while (ack_now(p) < p->base + ACK_STALL_TO)
			;
	}
}

static emu_ps_t ack_stop(void *ctx)
{
	const struct ack_port *p = ctx;

	return p->armed ? p->base + ACK_STOP : EMU_PS_NEVER;
}

Test(run_toy, real_time_takes_what_waits_on_a_port_before_the_timers_of_the_pass)
{
	struct toy_run *t = &one;
	struct toy_dev d[2];
	struct ack_port p = { .hz = tsc_hz(), .cancel_rc = 1 };
	emu_ps_t end;
	enum run_end why;

	toy_build(t, d, 1, RUN_REALTIME);
	p.s = run_lcore(t->eng, 0)->np->sched;
	cr_assert_eq(run_port_add(t->eng, &(struct run_port){ .lc = 0, .rx = ack_rx, .flush = ack_flush, .arg = &p }),
		     0);
	struct run_hooks h = { .ctx = &p, .hz = p.hz, .scale = 1000, .lag_limit = EMU_PS_NEVER, .launch = launch,
			       .join = join, .stop = ack_stop, .due = rt_due, .sample = rt_sample,
			       .after_rx = rt_nothing, .pass_end = rt_pass_end, .tick = rt_tick, .sum = rt_nothing };

	h.t0 = p.t0 = dp_tsc();
	cr_assert_eq(run_go(t->eng, &h, &why, &end), 0);
	cr_assert_eq(end, p.base + ACK_STOP);
	const struct run_rt_stats *rt = &run_lcore(t->eng, 0)->rt;

	cr_assert(p.stalled && p.taken, "the loop stalled and then took the ACK");
	cr_assert_eq(p.cancel_rc, 0, "the ACK stopped the timer: taken before the pass that ran past its time ran it");
	cr_assert_eq(p.fired_rto, 0, "the timer the ACK answered did not fire");
	cr_assert_eq(p.fired, 2);
	cr_assert_eq(rt->timers, 2, "timers run: %llu", (unsigned long long)rt->timers);
	cr_assert_geq(rt->timers_late, 1, "the timer due in the stall ran more than %llu ps late",
		      (unsigned long long)RUN_TIMER_LATE_MARGIN);
	cr_assert_leq(rt->timers_late, rt->timers);
	cr_assert_geq(rt->late_max, ACK_STALL_TO - ACK_LATE_TIMER, "the stall is in the lateness");
	cr_assert_eq(p.rx, rt->polls + 1);
	cr_assert_eq(p.flush, p.rx);
	toy_free(t);
}
