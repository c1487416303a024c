/* The Chakra workload's model side (emul/app/app_chakra*): the execution page's worked examples (one AllReduce of
 * 1,000 B over 8 ranks with ring, tree and halving-doubling; two compute nodes, synthesized and collected), every
 * algorithm's transfer counts, the ordering options, the warnings, the errors, and a replay over a fake transport. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_chakra.h"
#include "emu_sched.h"

#define US EMU_PS_PER_US

static struct app_ck_node node(uint64_t id, int kind)
{
	return (struct app_ck_node){.id = id, .kind = (uint8_t)kind, .peer = APP_CK_NONE, .root = APP_CK_NONE,
				    .pg = APP_CK_NONE, .seq = APP_CK_NONE, .coll_id = APP_CK_NONE};
}

static void add_dep(struct app_ck_node *n, uint64_t id)
{
	n->deps = realloc(n->deps, (n->n_deps + 1) * sizeof(*n->deps));
	n->deps[n->n_deps++] = id;
}

/* @p n ranks in group "pg" (all of them, in rank order). */
static void set_make(struct app_ck_set *s, uint32_t n)
{
	uint32_t *v = malloc(n * sizeof(*v));

	cr_assert_eq(app_ck_set_init(s, n), 0);
	for (uint32_t r = 0; r < n; r++) {
		v[r] = r;
		snprintf(s->ranks[r].file, sizeof(s->ranks[r].file), "t.%u.et", r);
	}
	cr_assert_eq(app_ck_set_add_pg(s, "pg", v, n), 0);
}

/* Every rank: one collective node (id 1) of @p type and @p bytes in group 0. */
static void add_coll(struct app_ck_set *s, unsigned type, uint64_t bytes, uint64_t id, int64_t seq)
{
	for (uint32_t r = 0; r < s->n_ranks; r++) {
		struct app_ck_node c = node(id, APP_CK_COLL);

		c.coll = (uint8_t)type, c.has_coll = 1, c.has_size = 1, c.bytes = bytes, c.pg = 0, c.seq = seq;
		cr_assert_eq(app_ck_trace_add(&s->ranks[r], &c), 0);
	}
}

struct tally {
	uint64_t sends, bytes, sync_sends, recvs, min_b, max_b;
};

static struct tally count(const struct app_ck_set *s)
{
	struct tally t = {.min_b = UINT64_MAX};

	for (uint32_t r = 0; r < s->n_ranks; r++)
		for (uint32_t i = 0; i < s->ranks[r].n; i++) {
			const struct app_ck_node *n = &s->ranks[r].nodes[i];

			if (n->kind == APP_CK_RECV && !n->sync)
				t.recvs++;
			if (n->kind != APP_CK_SEND)
				continue;
			if (n->sync) {
				t.sync_sends++;
				continue;
			}
			t.sends++, t.bytes += n->bytes;
			t.min_b = n->bytes < t.min_b ? n->bytes : t.min_b;
			t.max_b = n->bytes > t.max_b ? n->bytes : t.max_b;
		}
	return t;
}

static int prep(struct app_ck_set *s, struct app_ck_prep_cfg *cfg, struct app_ck_prep_out *out, char *err)
{
	return app_ck_prepare(s, cfg, out, NULL, NULL, err, 256);
}

static struct tally expand_8(unsigned type, unsigned algo, uint64_t bytes, uint32_t n)
{
	struct app_ck_set s;
	struct app_ck_prep_cfg cfg;
	struct app_ck_prep_out out;
	char err[256] = "";
	struct tally t;

	set_make(&s, n);
	add_coll(&s, type, bytes, 1, APP_CK_NONE);
	app_ck_prep_defaults(&cfg);
	cfg.algo[type] = (uint8_t)algo;
	cr_assert_eq(prep(&s, &cfg, &out, err), 0, "%s", err);
	t = count(&s);
	cr_assert_eq(t.sends, t.recvs);
	cr_assert_eq(out.n_colls, 1);
	cr_assert_eq(out.colls[0].n_transfers, t.sends);
	cr_assert_eq(t.sync_sends, n > 1 ? 2 * (n - 1) : 0, "collective synchronization: tree barrier, 2(N-1)");
	app_ck_prep_fini(&out);
	app_ck_set_fini(&s);
	return t;
}

/* Execution page, "Worked example: one AllReduce, three algorithms". */
Test(app_chakra, allreduce_ring_112_of_125)
{
	struct tally t = expand_8(APP_CK_ALL_REDUCE, APP_CK_ALGO_RING, 1000, 8);

	cr_assert_eq(t.sends, 112);
	cr_assert_eq(t.min_b, 125);
	cr_assert_eq(t.max_b, 125);
	cr_assert_eq(t.bytes, 14000);
}

Test(app_chakra, allreduce_tree_14_of_1000)
{
	struct tally t = expand_8(APP_CK_ALL_REDUCE, APP_CK_ALGO_TREE, 1000, 8);

	cr_assert_eq(t.sends, 14);
	cr_assert_eq(t.min_b, 1000);
	cr_assert_eq(t.max_b, 1000);
	cr_assert_eq(t.bytes, 14000);
}

Test(app_chakra, allreduce_halving_doubling_48_totalling_14000)
{
	struct tally t = expand_8(APP_CK_ALL_REDUCE, APP_CK_ALGO_HALVING_DOUBLING, 1000, 8);

	cr_assert_eq(t.sends, 48);
	cr_assert_eq(t.bytes, 14000);
	cr_assert_eq(t.min_b, 125);
	cr_assert_eq(t.max_b, 500);
}

/* The algorithm table for the other types: every expansion's transfer count, total bytes and sizes, exactly. */
Test(app_chakra, every_algorithm_counts)
{
	static const struct algo_row {
		unsigned type, algo;
		uint64_t bytes;
		uint32_t n;
		uint64_t sends, total, min_b, max_b; /* transfers, their bytes, the smallest and the largest */
	} rows[] = {
		{APP_CK_ALL_REDUCE, APP_CK_ALGO_DOUBLE_TREE, 1001, 8, 28, 28 * 501, 501, 501}, /* S/2 rounded up */
		{APP_CK_REDUCE, APP_CK_ALGO_RING, 1000, 8, 7, 7000, 1000, 1000},
		{APP_CK_REDUCE, APP_CK_ALGO_TREE, 1000, 8, 7, 7000, 1000, 1000},
		{APP_CK_ALL_GATHER, APP_CK_ALGO_RING, 1000, 8, 56, 56000, 1000, 1000},
		{APP_CK_REDUCE_SCATTER, APP_CK_ALGO_RING, 1000, 8, 56, 7000, 125, 125},
		{APP_CK_REDUCE_SCATTER, APP_CK_ALGO_HALVING, 1000, 8, 24, 8 * (500 + 250 + 125), 125, 500},
		{APP_CK_REDUCE_SCATTER_BLOCK, APP_CK_ALGO_RING, 1000, 8, 56, 7000, 125, 125},
		{APP_CK_BROADCAST, APP_CK_ALGO_SEQUENTIAL, 1000, 8, 7, 7000, 1000, 1000},
		{APP_CK_BROADCAST, APP_CK_ALGO_INTERLEAVED, 1000, 8, 7, 7000, 1000, 1000},
		{APP_CK_GATHER, APP_CK_ALGO_DIRECT, 1000, 8, 7, 7000, 1000, 1000},
		{APP_CK_SCATTER, APP_CK_ALGO_DIRECT, 1000, 8, 7, 875, 125, 125},
		{APP_CK_ALL_TO_ALL, APP_CK_ALGO_SEQUENTIAL, 1000, 8, 56, 7000, 125, 125},
		{APP_CK_ALL_TO_ALL, APP_CK_ALGO_INTERLEAVED, 1000, 8, 56, 7000, 125, 125},
		{APP_CK_BARRIER, APP_CK_ALGO_RING, 1000, 8, 112, 0, 0, 0},
		{APP_CK_BARRIER, APP_CK_ALGO_HALVING_DOUBLING, 0, 8, 48, 0, 0, 0},
		{APP_CK_ALL_REDUCE, APP_CK_ALGO_TREE, 1000, 5, 8, 8000, 1000, 1000}, /* not a power of two */
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct algo_row *w = &rows[i];
		struct tally t = expand_8(w->type, w->algo, w->bytes, w->n);

		cr_assert(t.sends == w->sends && t.bytes == w->total && t.min_b == w->min_b && t.max_b == w->max_b,
			  "row %zu: %llu sends, %llu B, %llu-%llu B each; want %llu, %llu, %llu-%llu", i,
			  (unsigned long long)t.sends, (unsigned long long)t.bytes, (unsigned long long)t.min_b,
			  (unsigned long long)t.max_b, (unsigned long long)w->sends, (unsigned long long)w->total,
			  (unsigned long long)w->min_b, (unsigned long long)w->max_b);
	}
}

Test(app_chakra, halving_doubling_needs_power_of_two)
{
	struct app_ck_set s;
	struct app_ck_prep_cfg cfg;
	struct app_ck_prep_out out;
	char err[256] = "";

	set_make(&s, 6);
	add_coll(&s, APP_CK_ALL_REDUCE, 1000, 1, APP_CK_NONE);
	app_ck_prep_defaults(&cfg);
	cfg.algo[APP_CK_ALL_REDUCE] = APP_CK_ALGO_HALVING_DOUBLING;
	cr_assert_eq(prep(&s, &cfg, &out, err), -EINVAL);
	cr_assert(strstr(err, "t.0.et: node 1") && strstr(err, "power-of-two"), "%s", err);
	app_ck_prep_fini(&out);
	app_ck_set_fini(&s);
}

Test(app_chakra, defaults_and_allowed_values)
{
	struct app_ck_prep_cfg cfg;

	app_ck_prep_defaults(&cfg);
	cr_assert_eq(cfg.algo[APP_CK_ALL_REDUCE], APP_CK_ALGO_RING);
	cr_assert_eq(cfg.algo[APP_CK_BROADCAST], APP_CK_ALGO_INTERLEAVED);
	cr_assert_eq(cfg.algo[APP_CK_ALL_TO_ALL], APP_CK_ALGO_INTERLEAVED);
	cr_assert_eq(cfg.algo[APP_CK_GATHER], APP_CK_ALGO_DIRECT);
	cr_assert_eq(cfg.algo[APP_CK_BARRIER], APP_CK_ALGO_RING);
	cr_assert(cfg.pg_serialization && cfg.coll_sync && !cfg.abort_on_warning && cfg.max_log_lines == 30000);
	cr_assert(!app_ck_algo_allowed(APP_CK_ALL_GATHER, APP_CK_ALGO_TREE));
	cr_assert(app_ck_algo_allowed(APP_CK_REDUCE_SCATTER, APP_CK_ALGO_HALVING));
	cr_assert_eq(app_ck_algo_parse("double-tree"), APP_CK_ALGO_DOUBLE_TREE);
	cr_assert_eq(app_ck_algo_parse("butterfly"), APP_CK_NONE);
}

/* A rank's position in a process group: its index in the group's rank list, APP_CK_NONE outside it. */
Test(app_chakra, process_group_position)
{
	struct app_ck_set s;
	uint32_t *v = malloc(3 * sizeof(*v));

	cr_assert_eq(app_ck_set_init(&s, 4), 0);
	v[0] = 3, v[1] = 0, v[2] = 2;
	cr_assert_eq(app_ck_set_add_pg(&s, "odd-order", v, 3), 0);
	cr_assert_eq(app_ck_pg_pos(&s.pgs[0], 3), 0);
	cr_assert_eq(app_ck_pg_pos(&s.pgs[0], 0), 1);
	cr_assert_eq(app_ck_pg_pos(&s.pgs[0], 2), 2);
	cr_assert_eq(app_ck_pg_pos(&s.pgs[0], 1), APP_CK_NONE);
	app_ck_set_fini(&s);
}

/* ---- Replay over a fake transport: sent after bytes ps + 1 ns, delivered 1 us later, acknowledged 1 us later. */

struct fake {
	struct emu_sched *s;
	struct app_ck_run *run;
	uint64_t acked, sync_acked;
	emu_ps_t end[16];
};

static void ev_sent(void *a, void *b, emu_ps_t now)
{
	app_ck_sent(((struct fake *)a)->run, (uint64_t)(uintptr_t)b, now);
}

static void ev_delivered(void *a, void *b, emu_ps_t now)
{
	app_ck_delivered(((struct fake *)a)->run, (uint64_t)(uintptr_t)b, now);
}

static void ev_acked(void *a, void *b, emu_ps_t now)
{
	app_ck_acked(((struct fake *)a)->run, (uint64_t)(uintptr_t)b, now);
}

static int fake_post(void *ctx, uint32_t src, uint32_t dst, uint64_t bytes, uint64_t xfer, emu_ps_t now)
{
	struct fake *f = ctx;
	emu_ps_t t = now + 1000 + bytes;

	(void)src, (void)dst;
	emu_sched_at(f->s, t, ev_sent, f, (void *)(uintptr_t)xfer, NULL);
	emu_sched_at(f->s, t + US, ev_delivered, f, (void *)(uintptr_t)xfer, NULL);
	emu_sched_at(f->s, t + 2 * US, ev_acked, f, (void *)(uintptr_t)xfer, NULL);
	return 0;
}

static void on_acked(void *ctx, const struct app_ck_xfer_done *x)
{
	struct fake *f = ctx;

	f->acked += !x->sync;
	f->sync_acked += x->sync;
}

static void on_end(void *ctx, uint32_t rank, const struct app_ck_rank_stats *st)
{
	((struct fake *)ctx)->end[rank] = st->end;
}

static void replay(struct fake *f, const struct app_ck_set *s, int collected)
{
	struct app_ck_xport xp = {fake_post, f};
	struct app_ck_run_cb cb = {on_acked, on_end, f};

	memset(f, 0, sizeof(*f));
	f->s = emu_sched_create(1 << 16);
	f->run = app_ck_run_create(s, f->s, collected, &xp, &cb);
	cr_assert_not_null(f->run);
	app_ck_run_start(f->run, 0);
	emu_sched_run_until(f->s, UINT64_MAX);
}

static void replay_done(struct fake *f)
{
	app_ck_run_destroy(f->run);
	emu_sched_destroy(f->s);
}

/* Execution page, "Worked example: two compute nodes": 20 us synthesized, 10 us collected. */
static void two_comp(int collected, emu_ps_t want)
{
	struct app_ck_set s;
	struct app_ck_prep_cfg cfg;
	struct app_ck_prep_out out;
	struct fake f;
	char err[256];
	emu_ps_t ts, te;

	set_make(&s, 1);
	for (uint64_t id = 1; id <= 2; id++) {
		struct app_ck_node c = node(id, APP_CK_COMP);

		c.dur_us = 10;
		cr_assert_eq(app_ck_trace_add(&s.ranks[0], &c), 0);
	}
	app_ck_prep_defaults(&cfg);
	cr_assert_eq(prep(&s, &cfg, &out, err), 0);
	replay(&f, &s, collected);
	for (uint32_t i = 0; i < 2; i++) {
		app_ck_run_node_times(f.run, 0, i, &ts, &te);
		cr_assert_eq(ts, 0);
		cr_assert_eq(te, want, "node %u ends at %llu ps", i, (unsigned long long)te);
	}
	cr_assert_eq(f.end[0], want);
	cr_assert_eq(app_ck_run_rank(f.run, 0)->comp_time_us, 20, "trace durations, not the shared time");
	replay_done(&f);
	app_ck_prep_fini(&out);
	app_ck_set_fini(&s);
}

Test(app_chakra, two_compute_nodes_synthesized_20us)
{
	two_comp(0, 20 * US);
}

Test(app_chakra, two_compute_nodes_collected_10us)
{
	two_comp(1, 10 * US);
}

/* Sharing is recomputed when a node joins: 10 us alone, a second 10 us node at 5 us: the first has 5 us of work
 * left, shared by two: it ends at 15 us; the second then runs alone with 5 us left: ends at 20 us. */
Test(app_chakra, npu_sharing_recomputed_on_start)
{
	struct app_ck_set s;
	struct app_ck_prep_cfg cfg;
	struct app_ck_prep_out out;
	struct fake f;
	char err[256];
	struct app_ck_node a = node(1, APP_CK_COMP), m = node(2, APP_CK_MEM_LOAD), b = node(3, APP_CK_COMP);
	emu_ps_t ts, te;

	set_make(&s, 1);
	a.dur_us = 10, m.dur_us = 5, b.dur_us = 10;
	add_dep(&b, 2);
	app_ck_trace_add(&s.ranks[0], &a);
	app_ck_trace_add(&s.ranks[0], &m);
	app_ck_trace_add(&s.ranks[0], &b);
	app_ck_prep_defaults(&cfg);
	cr_assert_eq(prep(&s, &cfg, &out, err), 0);
	replay(&f, &s, 0);
	app_ck_run_node_times(f.run, 0, 0, &ts, &te);
	cr_assert_eq(te, 15 * US);
	app_ck_run_node_times(f.run, 0, 2, &ts, &te);
	cr_assert_eq(ts, 5 * US);
	cr_assert_eq(te, 20 * US);
	replay_done(&f);
	app_ck_prep_fini(&out);
	app_ck_set_fini(&s);
}

/* 1,000 compute nodes of 1 .. 1,000 us started together share the NPU: the k-th shortest ends when every node has
 * had k us of work, at the sum over i <= k of (1000 - i + 1) us, to the picosecond (the jobs are a heap; a list
 * scanned at every start and end cost the square of their number). */
Test(app_chakra, npu_sharing_of_1000_nodes_exact)
{
	struct app_ck_set s;
	struct app_ck_prep_cfg cfg;
	struct app_ck_prep_out out;
	struct fake f;
	char err[256];
	const uint32_t n = 1000;
	emu_ps_t ts, te, want = 0;

	set_make(&s, 1);
	for (uint32_t i = 0; i < n; i++) { /* longest first: the heap, not the trace order, decides */
		struct app_ck_node c = node(i + 1, APP_CK_COMP);

		c.dur_us = n - i;
		cr_assert_eq(app_ck_trace_add(&s.ranks[0], &c), 0);
	}
	app_ck_prep_defaults(&cfg);
	cr_assert_eq(prep(&s, &cfg, &out, err), 0);
	replay(&f, &s, 0);
	for (uint32_t k = 1; k <= n; k++) {
		want += (emu_ps_t)(n - k + 1) * US;
		app_ck_run_node_times(f.run, 0, n - k, &ts, &te); /* the node of k us */
		cr_assert_eq(te, want, "the %u us node ends at %llu ps, not %llu", k, (unsigned long long)te,
			     (unsigned long long)want);
	}
	cr_assert_eq(f.end[0], want);
	replay_done(&f);
	app_ck_prep_fini(&out);
	app_ck_set_fini(&s);
}

/* A data-parallel step on 8 ranks: compute, AllReduce (ring), compute. Every rank ends; every transfer is
 * acknowledged; each rank ends after its last send's acknowledgment. */
Test(app_chakra, replay_dp_step_every_rank_ends)
{
	struct app_ck_set s;
	struct app_ck_prep_cfg cfg;
	struct app_ck_prep_out out;
	struct fake f;
	char err[256];

	set_make(&s, 8);
	for (uint32_t r = 0; r < 8; r++) {
		struct app_ck_node fwd = node(1, APP_CK_COMP), bwd = node(3, APP_CK_COMP);

		fwd.dur_us = 10 + r;
		bwd.dur_us = 5;
		add_dep(&bwd, 2);
		app_ck_trace_add(&s.ranks[r], &fwd);
		app_ck_trace_add(&s.ranks[r], &bwd);
	}
	add_coll(&s, APP_CK_ALL_REDUCE, 1000, 2, APP_CK_NONE);
	for (uint32_t r = 0; r < 8; r++)
		add_dep(&s.ranks[r].nodes[2], 1);
	app_ck_prep_defaults(&cfg);
	cr_assert_eq(prep(&s, &cfg, &out, err), 0, "%s", err);
	replay(&f, &s, 0);
	cr_assert_eq(app_ck_run_ended(f.run), 8);
	cr_assert_eq(f.acked, 112);
	cr_assert_eq(f.sync_acked, 14);
	for (uint32_t r = 0; r < 8; r++) {
		const struct app_ck_rank_stats *st = app_ck_run_rank(f.run, r);

		cr_assert_eq(st->sends_completed, 14);
		cr_assert_eq(st->receives_completed, 14);
		cr_assert_eq(st->sends_acked, 14);
		cr_assert_eq(st->bytes_sent, 1750);
		cr_assert_eq(st->comps_completed, 2);
		cr_assert_gt(f.end[r], 17 * US + 5 * US, "the barrier waits for the slowest rank (17 us)");
	}
	cr_assert_eq(app_ck_run_post_errors(f.run), 0);
	replay_done(&f);
	app_ck_prep_fini(&out);
	app_ck_set_fini(&s);
}

/* Process group serialization: with issue orders, the second collective depends on the first. */
/* Execution page, Communication: a send finishes, and releases its dependents, when every byte has been sent; its
 * acknowledgment comes later and is its e (and its chakra-perf row); the rank ends after both. Over the fake
 * transport: 1,000 B sent at 2 ns, acknowledged at 2 ns + 2 us. */
Test(app_chakra, a_send_releases_its_dependents_at_its_last_byte_and_ends_at_its_ack)
{
	struct app_ck_set s;
	struct app_ck_prep_cfg cfg;
	struct app_ck_prep_out out;
	struct app_ck_node snd = node(1, APP_CK_SEND), c = node(2, APP_CK_COMP), rcv = node(1, APP_CK_RECV);
	struct fake f;
	char err[256];
	emu_ps_t ts, te;

	set_make(&s, 2);
	snd.peer = 1, snd.tag = 3, snd.bytes = 1000, snd.has_size = 1;
	c.dur_us = 1;
	add_dep(&c, 1);
	rcv.peer = 0, rcv.tag = 3, rcv.bytes = 1000, rcv.has_size = 1;
	cr_assert_eq(app_ck_trace_add(&s.ranks[0], &snd), 0);
	cr_assert_eq(app_ck_trace_add(&s.ranks[0], &c), 0);
	cr_assert_eq(app_ck_trace_add(&s.ranks[1], &rcv), 0);
	app_ck_prep_defaults(&cfg);
	cr_assert_eq(prep(&s, &cfg, &out, err), 0, "%s", err);
	replay(&f, &s, 0);
	app_ck_run_node_times(f.run, 0, 0, &ts, &te);
	cr_assert_eq(ts, 0);
	cr_assert_eq(te, 2000 + 2 * US, "the send's e is its acknowledgment");
	app_ck_run_node_times(f.run, 0, 1, &ts, &te);
	cr_assert_eq(ts, 2000, "the compute starts when the send's last byte is sent");
	cr_assert_eq(te, 2000 + US);
	app_ck_run_node_times(f.run, 1, 0, &ts, &te);
	cr_assert_eq(te, 2000 + US, "the receive ends on delivery");
	cr_assert_eq(f.acked, 1);
	cr_assert_eq(f.end[0], 2000 + 2 * US, "rank 0 ends at the acknowledgment, after its compute");
	cr_assert_eq(f.end[1], 2000 + 2 * US, "rank 1 waits for the sender's acknowledgment");
	replay_done(&f);
	app_ck_prep_fini(&out);
	app_ck_set_fini(&s);
}

Test(app_chakra, serialization_orders_a_groups_collectives)
{
	struct app_ck_set s;
	struct app_ck_prep_cfg cfg;
	struct app_ck_prep_out out;
	char err[256];

	set_make(&s, 2);
	add_coll(&s, APP_CK_ALL_REDUCE, 100, 1, 7);
	add_coll(&s, APP_CK_ALL_GATHER, 100, 2, 3); /* issued first */
	app_ck_prep_defaults(&cfg);
	cr_assert_eq(prep(&s, &cfg, &out, err), 0, "%s", err);
	cr_assert_eq(out.colls[0].type, APP_CK_ALL_GATHER, "matched and expanded in issue order");
	const struct app_ck_node *ar = &s.ranks[0].nodes[0];
	int found = 0;

	for (uint32_t d = 0; d < ar->n_deps; d++)
		found |= ar->deps[d] == 1;
	cr_assert(found, "the AllReduce (seq 7) waits for the AllGather (seq 3)");
	app_ck_prep_fini(&out);
	app_ck_set_fini(&s);

	set_make(&s, 2);
	add_coll(&s, APP_CK_ALL_REDUCE, 100, 1, 7);
	add_coll(&s, APP_CK_ALL_GATHER, 100, 2, 3);
	cfg.pg_serialization = 0;
	cfg.coll_sync = 0;
	cr_assert_eq(prep(&s, &cfg, &out, err), 0, "%s", err);
	cr_assert_eq(out.n_sync_transfers, 0);
	cr_assert_eq(s.ranks[0].nodes[1].n_deps, 2, "the AllGather joins its own send and receive only");
	app_ck_prep_fini(&out);
	app_ck_set_fini(&s);
}

static void expect_error(struct app_ck_set *s, const char *want)
{
	struct app_ck_prep_cfg cfg;
	struct app_ck_prep_out out;
	char err[256] = "";

	app_ck_prep_defaults(&cfg);
	cr_assert_eq(prep(s, &cfg, &out, err), -EINVAL, "expected: %s", want);
	cr_assert(strstr(err, want), "got: %s; expected: %s", err, want);
	app_ck_prep_fini(&out);
	app_ck_set_fini(s);
}

Test(app_chakra, cycle_is_an_error_naming_file_and_node)
{
	struct app_ck_set s;
	struct app_ck_node a = node(1, APP_CK_COMP), b = node(2, APP_CK_COMP), c = node(3, APP_CK_COMP);

	set_make(&s, 1);
	add_dep(&a, 2), add_dep(&b, 1);
	app_ck_trace_add(&s.ranks[0], &a);
	app_ck_trace_add(&s.ranks[0], &b);
	app_ck_trace_add(&s.ranks[0], &c);
	expect_error(&s, "t.0.et: node 1 is on a dependency cycle (2 of 3 nodes");
}

Test(app_chakra, unknown_dependency_and_unmatched_send_are_errors)
{
	struct app_ck_set s;
	struct app_ck_node a = node(1, APP_CK_COMP), snd = node(1, APP_CK_SEND);

	set_make(&s, 1);
	add_dep(&a, 9);
	app_ck_trace_add(&s.ranks[0], &a);
	expect_error(&s, "t.0.et: node 1 depends on node 9, which the trace does not have");

	set_make(&s, 2);
	snd.peer = 1, snd.tag = 4, snd.bytes = 10;
	app_ck_trace_add(&s.ranks[0], &snd);
	expect_error(&s, "t.0.et: node 1: send to rank 1 with tag 4 has no matching receive in t.1.et");

	set_make(&s, 2);
	snd = node(1, APP_CK_SEND), snd.peer = 5;
	app_ck_trace_add(&s.ranks[0], &snd);
	expect_error(&s, "partner rank 5 is not another rank of the 2-rank traceset");
}

Test(app_chakra, ranks_disagreeing_on_a_collective_are_an_error)
{
	struct app_ck_set s;

	set_make(&s, 2);
	add_coll(&s, APP_CK_ALL_REDUCE, 100, 1, APP_CK_NONE);
	s.ranks[1].nodes[0].bytes = 200;
	expect_error(&s, "t.1.et: node 1: collective 0 of process group pg is a AllReduce of 200 B");

	set_make(&s, 2);
	add_coll(&s, APP_CK_ALL_REDUCE, 100, 1, APP_CK_NONE);
	s.ranks[1].n = 0;
	free(s.ranks[1].nodes[0].deps);
	expect_error(&s, "t.1.et: process group pg: 0 collectives here, 1 in t.0.et");
}

static void log_line(void *ctx, const char *line)
{
	(*(int *)ctx)++;
	cr_assert(strstr(line, "warning: t."), "%s", line);
}

/* A collective without a size is not expanded: a warning; AbortOnChakraWarning makes it an error; lines past
 * MaxCountWarningsLoggedPerInstance are held back and not counted. */
Test(app_chakra, warnings_and_abort_on_warning)
{
	struct app_ck_set s;
	struct app_ck_prep_cfg cfg;
	struct app_ck_prep_out out;
	char err[256] = "";
	int lines = 0;

	for (int pass = 0; pass < 3; pass++) {
		set_make(&s, 2);
		add_coll(&s, APP_CK_ALL_REDUCE, 100, 1, APP_CK_NONE);
		s.ranks[0].nodes[0].has_size = 0;
		s.ranks[1].nodes[0].has_size = 0;
		app_ck_prep_defaults(&cfg);
		cfg.abort_on_warning = pass > 0;
		cfg.max_log_lines = pass == 2 ? 0 : 30000;
		lines = 0;
		int rc = app_ck_prepare(&s, &cfg, &out, log_line, &lines, err, sizeof(err));

		if (pass == 0)
			cr_assert(rc == 0 && out.warnings == 2 && lines == 2 && out.n_colls == 0);
		if (pass == 1)
			cr_assert(rc == -EINVAL && strstr(err, "AbortOnChakraWarning"), "%s", err);
		if (pass == 2)
			cr_assert(rc == 0 && out.dropped == 2 && out.warnings == 0 && lines == 0);
		app_ck_prep_fini(&out);
		app_ck_set_fini(&s);
	}
}

/* Scaling: sizes and durations multiplied and truncated. */
Test(app_chakra, scaling_truncates)
{
	struct app_ck_set s;
	struct app_ck_prep_cfg cfg;
	struct app_ck_prep_out out;
	char err[256];
	struct app_ck_node c = node(1, APP_CK_COMP);

	set_make(&s, 2);
	c.dur_us = 1;
	app_ck_trace_add(&s.ranks[0], &c);
	add_coll(&s, APP_CK_ALL_REDUCE, 1001, 2, APP_CK_NONE);
	app_ck_prep_defaults(&cfg);
	cfg.scaling = 1, cfg.scaling_factor = 0.5;
	cr_assert_eq(prep(&s, &cfg, &out, err), 0);
	cr_assert_eq(s.ranks[0].nodes[0].dur_us, 0, "a 1 us node becomes 0 us");
	cr_assert_eq(out.colls[0].bytes, 500);
	app_ck_prep_fini(&out);
	app_ck_set_fini(&s);
}
