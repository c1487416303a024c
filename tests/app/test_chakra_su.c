/* The Chakra scale-up fabric (emul/app/app_chakra_su.c) against times worked out by hand.
 *
 * Every test: ScaleUpMaxPayloadSize 4096 B, ScaleUpHeaderSize 24 B, group bandwidth 800 Gb/s (100 B per ns, so a
 * byte takes 10 ps), switch latency 100 ns per hop, cable latency 20 ns: 140 ns one way within a subgroup (one hop,
 * two cables), 380 ns between subgroups (three hops, four cables). A transfer of 10,000 B is three packets, 4096,
 * 4096 and 1808 B of data: 4120, 4120 and 1832 B with headers, 41.2, 41.2 and 18.32 ns alone on a port. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_chakra.h"
#include "emu_sched.h"

#define NS EMU_PS_PER_NS
#define PS(ns_x100) ((emu_ps_t)(ns_x100) * 10) /* hundredths of a ns to ps: PS(10072) = 100.72 ns */

static struct app_ck_node node(uint64_t id, int kind, int32_t peer, uint64_t bytes)
{
	return (struct app_ck_node){.id = id, .kind = (uint8_t)kind, .peer = peer, .root = APP_CK_NONE,
				    .pg = APP_CK_NONE, .seq = APP_CK_NONE, .coll_id = APP_CK_NONE, .bytes = bytes,
				    .tag = (int64_t)id};
}

struct rig {
	struct app_ck_set set;
	struct app_ck_prep_out prep;
	struct emu_sched *s;
	struct app_ck_run *run;
	struct app_ck_su *su;
	emu_ps_t end[4];
	uint64_t acked;
	uint32_t max_pending; /* the scheduler's pending events, at most, seen at each acknowledgment */
};

static int rig_post(void *ctx, uint32_t src, uint32_t dst, uint64_t bytes, uint64_t xfer, emu_ps_t now)
{
	return app_ck_su_post(((struct rig *)ctx)->su, src, dst, bytes, xfer, now);
}

static void rig_acked(void *ctx, const struct app_ck_xfer_done *x)
{
	struct rig *g = ctx;
	uint32_t n = emu_sched_pending(g->s);

	(void)x;
	g->acked++;
	g->max_pending = n > g->max_pending ? n : g->max_pending;
}

static void rig_end(void *ctx, uint32_t rank, const struct app_ck_rank_stats *st)
{
	((struct rig *)ctx)->end[rank] = st->end;
}

/* A send of @p bytes from @p src to @p dst with tag @p id, a METADATA node after it on the sender (it starts when
 * the send node finishes), the receive on @p dst. */
static void xfer(struct rig *g, uint32_t src, uint32_t dst, uint64_t id, uint64_t bytes)
{
	struct app_ck_node s = node(id, APP_CK_SEND, (int32_t)dst, bytes);
	struct app_ck_node m = node(id + 1000, APP_CK_METADATA, APP_CK_NONE, 0);
	struct app_ck_node r = node(id, APP_CK_RECV, (int32_t)src, bytes);

	m.deps = malloc(sizeof(*m.deps));
	m.deps[0] = id, m.n_deps = 1;
	cr_assert_eq(app_ck_trace_add(&g->set.ranks[src], &s), 0);
	cr_assert_eq(app_ck_trace_add(&g->set.ranks[src], &m), 0);
	cr_assert_eq(app_ck_trace_add(&g->set.ranks[dst], &r), 0);
}

static const int32_t GROUP[4] = {0, 0, 0, 0};

/* Ranks 0..n-1 in one group; @p sub: their subgroups. Then run the transfers xfer() added. */
static void rig_run(struct rig *g, uint32_t n, const uint32_t *sub)
{
	struct app_ck_prep_cfg cfg;
	struct app_ck_su_group grp = {.bps = 800000000000ull, .switch_lat = 100 * NS, .cable_lat = 20 * NS};
	struct app_ck_su_cfg sc = {.n_ranks = n, .group = GROUP, .subgroup = sub, .n_groups = 1, .groups = &grp,
				   .max_payload = 4096, .header = 24};
	struct app_ck_xport xp = {rig_post, g};
	struct app_ck_run_cb cb = {rig_acked, rig_end, g};
	char err[256];

	app_ck_prep_defaults(&cfg);
	cr_assert_eq(app_ck_prepare(&g->set, &cfg, &g->prep, NULL, NULL, err, sizeof(err)), 0, "%s", err);
	g->s = emu_sched_create(1 << 10);
	g->su = app_ck_su_create(&sc, g->s);
	g->run = app_ck_run_create(&g->set, g->s, 0, &xp, &cb);
	cr_assert(g->su && g->run);
	app_ck_su_bind(g->su, g->run);
	app_ck_run_start(g->run, 0);
	emu_sched_run_until(g->s, UINT64_MAX);
	cr_assert_eq(app_ck_run_post_errors(g->run), 0);
	cr_assert_eq(app_ck_su_errors(g->su), 0);
	cr_assert_eq(emu_sched_pending(g->s), 0);
}

static void rig_init(struct rig *g, uint32_t n)
{
	memset(g, 0, sizeof(*g));
	cr_assert_eq(app_ck_set_init(&g->set, n), 0);
}

static void rig_fini(struct rig *g)
{
	app_ck_run_destroy(g->run);
	app_ck_su_destroy(g->su);
	emu_sched_destroy(g->s);
	app_ck_prep_fini(&g->prep);
	app_ck_set_fini(&g->set);
}

/* Node of trace id @p id on @p rank: its start and end. */
static void times(struct rig *g, uint32_t rank, uint64_t id, emu_ps_t *s, emu_ps_t *e)
{
	for (uint32_t i = 0; i < g->set.ranks[rank].n; i++)
		if (g->set.ranks[rank].nodes[i].id == id) {
			app_ck_run_node_times(g->run, rank, i, s, e);
			return;
		}
	cr_assert_fail("rank %u has no node %llu", rank, (unsigned long long)id);
}

/* The send node's end (its dependent's start), the receive node's end, the acknowledgment (the send's e). */
static void expect(struct rig *g, uint32_t src, uint32_t dst, uint64_t id, emu_ps_t sent, emu_ps_t recv,
		   emu_ps_t ack)
{
	emu_ps_t s, e;

	times(g, src, id + 1000, &s, &e);
	cr_assert_eq(s, sent, "transfer %llu sent at %llu ps, want %llu", (unsigned long long)id,
		     (unsigned long long)s, (unsigned long long)sent);
	times(g, dst, id, &s, &e);
	cr_assert_eq(e, recv, "transfer %llu received at %llu ps, want %llu", (unsigned long long)id,
		     (unsigned long long)e, (unsigned long long)recv);
	times(g, src, id, &s, &e);
	cr_assert_eq(e, ack, "transfer %llu acknowledged at %llu ps, want %llu", (unsigned long long)id,
		     (unsigned long long)e, (unsigned long long)ack);
}

/* One 10,000 B transfer within a subgroup. Sent: 41.2 + 41.2 + 18.32 = 100.72 ns. The receiver takes each packet
 * for its own time after it arrives 140 ns after it left: 181.2-222.4, 222.4-263.6, then the last (arrived at
 * 240.72) 263.6-281.92 ns. Acknowledged one round trip, 280 ns, after it was sent: 380.72 ns. The receiving rank
 * ends with its receive: it does not wait for the sender's acknowledgment. */
Test(app_chakra_su, one_transfer_within_a_subgroup)
{
	static const uint32_t sub[2] = {0, 0};
	struct rig g;

	rig_init(&g, 2);
	xfer(&g, 0, 1, 1, 10000);
	rig_run(&g, 2, sub);
	expect(&g, 0, 1, 1, PS(10072), PS(28192), PS(38072));
	cr_assert_eq(g.end[1], PS(28192));
	cr_assert_eq(g.end[0], PS(38072));
	const struct app_ck_su_stats *a = app_ck_su_stats(g.su, 0), *b = app_ck_su_stats(g.su, 1);

	cr_assert(a->pkts_tx == 3 && a->bytes_tx == 10072 && a->pkts_rx == 0);
	cr_assert(b->pkts_rx == 3 && b->bytes_rx == 10072 && b->pkts_tx == 0);
	cr_assert_eq(g.acked, 1);
	rig_fini(&g);
}

/* The same transfer between subgroups: 380 ns one way. Packets arrive at 421.2, 462.4 and 480.72 ns, received
 * 421.2-462.4, 462.4-503.6, 503.6-521.92; acknowledged at 100.72 + 760 = 860.72 ns. */
Test(app_chakra_su, one_transfer_between_subgroups)
{
	static const uint32_t sub[2] = {0, 1};
	struct rig g;

	rig_init(&g, 2);
	xfer(&g, 0, 1, 1, 10000);
	rig_run(&g, 2, sub);
	expect(&g, 0, 1, 1, PS(10072), PS(52192), PS(86072));
	rig_fini(&g);
}

/* Rank 0 sends 10,000 B to rank 1 and to rank 2 at once: the packets alternate (rank 1 first: the turn starts
 * after the sender), each taking twice its time while both queues have data: A1 0-82.4, B1 -164.8, A2 -247.2,
 * B2 -329.6, A3 (1832 B) -366.24; then rank 2's queue alone: B3 -384.56 ns. Sent at 366.24 and 384.56, acknowledged
 * 280 ns later. Each receiver has one sender: A's packets arrive at 222.4, 387.2, 506.24 (received by 524.56), B's
 * at 304.8, 469.6, 524.56 (received by 542.88). */
Test(app_chakra_su, two_receivers_share_the_sender)
{
	static const uint32_t sub[3] = {0, 0, 0};
	struct rig g;

	rig_init(&g, 3);
	xfer(&g, 0, 1, 1, 10000);
	xfer(&g, 0, 2, 2, 10000);
	rig_run(&g, 3, sub);
	expect(&g, 0, 1, 1, PS(36624), PS(52456), PS(64624));
	expect(&g, 0, 2, 2, PS(38456), PS(54288), PS(66456));
	rig_fini(&g);
}

/* Ranks 1 and 2 each send 10,000 B to rank 0 at once. Each sender is alone (packets leave at 41.2, 82.4, 100.72 ns
 * and arrive 140 ns later), so both first packets arrive at 181.2 ns; rank 0 takes them in turn (rank 1 first)
 * at half its bandwidth while both have packets waiting: R1p1 181.2-263.6, R2p1 -346, R1p2 -428.4, R2p2 -510.8,
 * R1p3 (1832 B, shared) -547.44: rank 1's transfer received; R2p3 alone -565.76: rank 2's. */
Test(app_chakra_su, two_senders_share_the_receiver)
{
	static const uint32_t sub[3] = {0, 0, 0};
	struct rig g;

	rig_init(&g, 3);
	xfer(&g, 1, 0, 1, 10000);
	xfer(&g, 2, 0, 2, 10000);
	rig_run(&g, 3, sub);
	expect(&g, 1, 0, 1, PS(10072), PS(54744), PS(38072));
	expect(&g, 2, 0, 2, PS(10072), PS(56576), PS(38072));
	cr_assert_eq(app_ck_su_stats(g.su, 0)->pkts_rx, 6);
	rig_fini(&g);
}

/* A transfer of 0 B is one packet of header only: 24 B, 0.24 ns. */
Test(app_chakra_su, zero_bytes_is_one_header_packet)
{
	static const uint32_t sub[2] = {0, 0};
	struct rig g;

	rig_init(&g, 2);
	xfer(&g, 0, 1, 1, 0);
	rig_run(&g, 2, sub);
	expect(&g, 0, 1, 1, PS(24), PS(24 + 14000 + 24), PS(24 + 28000));
	cr_assert_eq(app_ck_su_stats(g.su, 1)->bytes_rx, 24);
	rig_fini(&g);
}

/* Four ranks each sending 1 MB to each of the three others at once (12 transfers of 245 packets): every transfer
 * completes, and the events pending never exceed three per rank (sender, receiver, acknowledgments), whatever the
 * packets in flight. */
Test(app_chakra_su, pending_events_stay_bounded)
{
	static const uint32_t sub[4] = {0, 0, 1, 1};
	struct rig g;
	uint64_t id = 1;

	rig_init(&g, 4);
	for (uint32_t a = 0; a < 4; a++)
		for (uint32_t b = 0; b < 4; b++)
			if (a != b)
				xfer(&g, a, b, id++, 1000000);
	rig_run(&g, 4, sub);
	cr_assert_eq(g.acked, 12);
	cr_assert(g.max_pending > 0 && g.max_pending <= 3 * 4, "%u events pending", g.max_pending);
	for (uint32_t r = 0; r < 4; r++)
		cr_assert_eq(app_ck_su_stats(g.su, r)->pkts_rx, 3 * 245);
	rig_fini(&g);
}

/* A transfer outside the group is refused (the driver sends it through the NIC instead). */
Test(app_chakra_su, outside_the_group_is_refused)
{
	static const int32_t group[3] = {0, 0, APP_CK_NONE};
	static const uint32_t sub[3] = {0, 0, 0};
	struct app_ck_su_group grp = {.bps = 1000000000ull};
	struct app_ck_su_cfg sc = {.n_ranks = 3, .group = group, .subgroup = sub, .n_groups = 1, .groups = &grp,
				   .max_payload = 4096, .header = 24};
	struct emu_sched *s = emu_sched_create(64);
	struct app_ck_su *su = app_ck_su_create(&sc, s);

	cr_assert_not_null(su);
	cr_assert(app_ck_su_same(su, 0, 1) && !app_ck_su_same(su, 0, 2) && !app_ck_su_same(su, 2, 2));
	cr_assert_eq(app_ck_su_post(su, 0, 2, 100, 0, 0), -EINVAL);
	cr_assert_eq(app_ck_su_latency(&grp, 1), 0);
	app_ck_su_destroy(su);
	emu_sched_destroy(s);
}
