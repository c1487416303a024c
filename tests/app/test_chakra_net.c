/* The Chakra replay's transports over real NICs (emul/app/app_chakra_net.c, app_chakra_qp.c) on libemul alone: two
 * ranks on two hosts of one link, a send and its receive, over Scala UET NICs and over Scala RoCE NICs; the
 * transfer takes exactly the time of the same WRITE posted to the bare NIC; queue pairs reused on RoCE; reports
 * naming no transfer counted, never trusted. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "app_chakra.h"
#include "app_chakra_net.h"
#include "app_rig.h"

#define BYTES 1000000u

struct ck_fx {
	struct app_rig g;
	struct app_ck_set set;
	struct app_ck_prep_out prep;
	struct app_ck_net *net;
	struct app_ck_run *run;
	uint32_t rank_host[2];
	uint64_t acked;
	emu_ps_t acked_at;
	emu_ps_t end[2];
	uint32_t n_rr, rr_qpn[4], rr_msn[4]; /* the RoCE receiver's reports */
};

static void h_done(void *ctx, uint64_t cookie, emu_ps_t now)
{
	app_ck_net_done(((struct ck_fx *)ctx)->net, cookie, now);
}

static void h_sent(void *ctx, uint64_t cookie, emu_ps_t now)
{
	app_ck_net_sent(((struct ck_fx *)ctx)->net, cookie, now);
}

static void h_recv(void *ctx, uint32_t host, uint32_t src_ip, uint64_t msg_id, uint64_t bytes, emu_ps_t now)
{
	app_ck_net_recv(((struct ck_fx *)ctx)->net, host, src_ip, msg_id, bytes, now);
}

static void h_roce_recv(void *ctx, uint32_t host, uint32_t src_ip, uint32_t qpn, uint32_t msn, uint64_t bytes,
			emu_ps_t now)
{
	struct ck_fx *f = ctx;

	if (f->n_rr < 4)
		f->rr_qpn[f->n_rr] = qpn, f->rr_msn[f->n_rr++] = msn;
	app_ck_net_recv_qp(f->net, host, src_ip, qpn, msn, bytes, now);
}

static void on_acked(void *ctx, const struct app_ck_xfer_done *x)
{
	struct ck_fx *f = ctx;

	cr_assert_eq(x->src, 0);
	cr_assert_eq(x->dst, 1);
	cr_assert_eq(x->bytes, BYTES);
	f->acked++;
	f->acked_at = x->acked;
}

static void on_end(void *ctx, uint32_t rank, const struct app_ck_rank_stats *st)
{
	((struct ck_fx *)ctx)->end[rank] = st->end;
}

static struct app_ck_node node(uint64_t id, int kind, int32_t peer)
{
	return (struct app_ck_node){.id = id, .kind = (uint8_t)kind, .peer = peer, .root = APP_CK_NONE,
				    .pg = APP_CK_NONE, .seq = APP_CK_NONE, .coll_id = APP_CK_NONE, .bytes = BYTES,
				    .has_size = 1};
}

/* Rank 0 on host 0 sends @p n transfers of BYTES to rank 1 on host 1, each 10 us after the previous one's last byte
 * (by when its acknowledgment is back). */
static void fx_init(struct ck_fx *f, bool roce, uint32_t n)
{
	struct app_ck_prep_cfg cfg;
	char err[256] = "";
	uint32_t *pg = malloc(2 * sizeof(*pg));

	memset(f, 0, sizeof(*f));
	app_rig_init(&f->g, roce, &(struct app_rig_hooks){ .done = h_done, .sent = h_sent, .recv = h_recv,
							    .roce_recv = h_roce_recv, .ctx = f });
	cr_assert_eq(app_ck_set_init(&f->set, 2), 0);
	pg[0] = 0, pg[1] = 1;
	cr_assert_eq(app_ck_set_add_pg(&f->set, "pg", pg, 2), 0);
	for (uint32_t i = 0; i < n; i++) {
		struct app_ck_node s = node(i + 1, APP_CK_SEND, 1), r = node(i + 1, APP_CK_RECV, 0);

		if (i > 0) { /* the send after a 10 us compute that follows the previous send's last byte */
			struct app_ck_node c = node(100 + i, APP_CK_COMP, APP_CK_NONE);

			c.dur_us = 10, c.bytes = 0, c.has_size = 0;
			c.deps = malloc(sizeof(*c.deps)), c.deps[0] = i, c.n_deps = 1;
			cr_assert_eq(app_ck_trace_add(&f->set.ranks[0], &c), 0);
			s.deps = malloc(sizeof(*s.deps)), s.deps[0] = 100 + i, s.n_deps = 1;
			r.deps = malloc(sizeof(*r.deps)), r.deps[0] = i, r.n_deps = 1;
		}
		cr_assert_eq(app_ck_trace_add(&f->set.ranks[0], &s), 0);
		cr_assert_eq(app_ck_trace_add(&f->set.ranks[1], &r), 0);
	}
	app_ck_prep_defaults(&cfg);
	cr_assert_eq(app_ck_prepare(&f->set, &cfg, &f->prep, NULL, NULL, err, sizeof(err)), 0, "%s", err);
	f->rank_host[0] = 0, f->rank_host[1] = 1;
	struct app_ck_net_params p = {.kind = roce ? APP_CK_NET_CONN_MSN : APP_CK_NET_MSG_ID, .n_hosts = 2,
				      .host_ip = f->g.ip, .n_ranks = 2, .rank_host = f->rank_host};

	f->net = app_ck_net_create(&p, f->g.hosts);
	cr_assert_not_null(f->net);
	struct app_ck_xport xp = app_ck_net_xport(f->net);
	struct app_ck_run_cb cb = {on_acked, on_end, f};

	f->run = app_ck_run_create(&f->set, f->g.np.sched, 0, &xp, &cb);
	cr_assert_not_null(f->run);
	app_ck_net_bind(f->net, f->run, NULL);
}

static void fx_fini(struct ck_fx *f)
{
	app_ck_run_destroy(f->run);
	app_ck_net_destroy(f->net);
	app_ck_prep_fini(&f->prep);
	app_ck_set_fini(&f->set);
	app_rig_fini(&f->g);
}

static emu_ps_t bare_done_at;

static void bare_done(void *ctx, uint64_t cookie, emu_ps_t now)
{
	(void)ctx, (void)cookie;
	bare_done_at = now;
}

/* When the same WRITE of BYTES, posted at 0 from host 0 to host 1 on a rig of its own, is acknowledged. */
static emu_ps_t bare_write(bool roce)
{
	struct app_rig g;
	uint16_t pdc;
	uint32_t qpn;

	bare_done_at = 0;
	app_rig_init(&g, roce, &(struct app_rig_hooks){ .done = bare_done });
	if (roce) {
		cr_assert_eq(roce_qp_open(g.roce[0], g.ip[1], &qpn), 0);
		cr_assert_eq(roce_post(g.roce[0], qpn, ROCE_VERB_WRITE, BYTES, 1, 0), 0);
	} else {
		cr_assert_eq(nic_post_pdc(g.nic[0], g.ip[1], BYTES, 1, 0, &pdc), 0);
	}
	app_rig_run(&g, EMU_PS_NEVER - 1);
	app_rig_fini(&g);
	cr_assert_gt(bare_done_at, 0);
	return bare_done_at;
}

static void send_recv(bool roce)
{
	struct ck_fx f;
	emu_ps_t want = bare_write(roce), ts, te;

	fx_init(&f, roce, 1);
	app_ck_run_start(f.run, 0);
	app_rig_run(&f.g, EMU_PS_NEVER - 1);
	cr_assert_eq(app_ck_run_ended(f.run), 2, "both ranks end");
	cr_assert_eq(f.acked, 1);
	cr_assert_eq(f.acked_at, want, "acknowledged at %llu ps, the bare NIC at %llu", (unsigned long long)f.acked_at,
		     (unsigned long long)want);
	cr_assert_eq(f.end[0], want, "the sender ends at the acknowledgment");
	cr_assert_eq(f.end[1], want, "the receiver waits for the sender's acknowledgment");
	app_ck_run_node_times(f.run, 1, 0, &ts, &te);
	cr_assert_gt(te, 0, "the receive finished: the NIC's report matched the transfer");
	cr_assert_lt(te, want);
	cr_assert_eq(app_ck_run_rank(f.run, 1)->bytes_received, BYTES);
	cr_assert_eq(app_ck_net_recv_unmatched(f.net), 0);
	cr_assert_eq(app_ck_net_id_clashes(f.net), 0);
	cr_assert_eq(app_ck_run_post_errors(f.run), 0);
	fx_fini(&f);
}

Test(app_chakra_net, uet_send_recv_completes_in_the_bare_nics_time)
{
	send_recv(false);
}

Test(app_chakra_net, roce_send_recv_completes_in_the_bare_nics_time)
{
	send_recv(true);
}

/* Three transfers one after another between the same hosts, each posted once the previous one is acknowledged: on
 * RoCE one queue pair carries them all (messages 1, 2, 3 of it), on UET each has a PDC and message id of its own;
 * every receive matches. */
static void three_in_a_row(bool roce)
{
	struct ck_fx f;

	fx_init(&f, roce, 3);
	app_ck_run_start(f.run, 0);
	app_rig_run(&f.g, EMU_PS_NEVER - 1);
	cr_assert_eq(app_ck_run_ended(f.run), 2);
	cr_assert_eq(f.acked, 3);
	cr_assert_eq(app_ck_run_rank(f.run, 1)->receives_completed, 3);
	cr_assert_eq(app_ck_net_recv_unmatched(f.net), 0);
	if (roce) {
		cr_assert_eq(f.n_rr, 3);
		for (uint32_t i = 0; i < 3; i++) {
			cr_assert_eq(f.rr_qpn[i], f.rr_qpn[0], "one queue pair, reused");
			cr_assert_eq(f.rr_msn[i], i + 1);
		}
	}
	fx_fini(&f);
}

Test(app_chakra_net, uet_transfers_in_a_row)
{
	three_in_a_row(false);
}

Test(app_chakra_net, roce_transfers_reuse_one_queue_pair)
{
	three_in_a_row(true);
}

/* Reports naming no transfer: a sender that is no host, a message id or queue pair never posted, a host the rig does
 * not have, a cookie of no slot; each counted or ignored, none delivered. */
Test(app_chakra_net, reports_naming_no_transfer_are_counted_never_trusted)
{
	struct ck_fx u, r;

	fx_init(&u, false, 1);
	app_ck_net_recv(u.net, 1, 0x0b000001, 1, 100, 10);
	app_ck_net_recv(u.net, 1, u.g.ip[0], 1, 100, 10);
	app_ck_net_recv(u.net, 99, u.g.ip[0], 1, 100, 10);
	app_ck_net_recv_qp(u.net, 1, u.g.ip[0], 1, 1, 100, 10); /* the other kind's report: nothing */
	app_ck_net_done(u.net, APP_CK_COOKIE | 12345, 10);
	app_ck_net_sent(u.net, APP_CK_COOKIE | 12345, 10);
	app_ck_net_done(u.net, 12345, 10); /* not the workload's */
	cr_assert_eq(app_ck_net_recv_unmatched(u.net), 2);
	fx_fini(&u);

	fx_init(&r, true, 1);
	app_ck_net_recv_qp(r.net, 1, 0x0b000001, 1, 1, 100, 10);
	app_ck_net_recv_qp(r.net, 1, r.g.ip[0], 1, 1, 100, 10);
	app_ck_net_recv_qp(r.net, 1, r.g.ip[0], 0x1000001, 1, 0, 10);
	app_ck_net_done(r.net, APP_CK_COOKIE | 12345, 10);
	cr_assert_eq(app_ck_net_recv_unmatched(r.net), 3);
	app_ck_run_start(r.run, 0);
	app_rig_run(&r.g, EMU_PS_NEVER - 1);
	cr_assert_eq(app_ck_run_ended(r.run), 2, "the real transfer still completes");
	cr_assert_eq(app_ck_net_recv_unmatched(r.net), 3);
	fx_fini(&r);
}
