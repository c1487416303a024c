/* Criterion tests of the Scala RoCE NIC: two NICs back to back on one link, a tap on both directions. Every worked
 * example of the roce-nic pages and seed 003's "one WQE on the Scala RoCE NIC", reproduced exactly. */
#include <criterion/criterion.h>
#include <string.h>

#include "emu_sched.h"
#include "nic_pair.h"
#include "roce.h"

#define MAX_SEEN 4096
#define MAX_RATES 256

struct seen {
	uint32_t dir;
	emu_ps_t t;
	uint8_t kind, op, syndrome;
	uint32_t psn, payload;
	size_t wire_len;
	uint16_t pfc_quanta0;
};

struct pair {
	struct net_part np;
	struct roce_params p;
	struct port_neigh neigh[2];
	struct roce *nic[2];
	struct net_link link;
	struct net_impair imp[4];
	struct seen seen[MAX_SEEN];
	int n_seen;
	int done, recv, sent;
	emu_ps_t done_at, sent_at;
	uint32_t recv_qpn[8], recv_msn[8];
	uint64_t recv_bytes;
	emu_ps_t rate_t[MAX_RATES];
	uint64_t rate_bps[MAX_RATES];
	int n_rates;
	uint32_t qpn;
};

static void tap(void *arg, uint32_t dir, const struct wire_pkt *pkt, emu_ps_t now)
{
	struct pair *b = arg;

	if (b->n_seen >= MAX_SEEN)
		return;
	b->seen[b->n_seen++] = (struct seen){ .dir = dir, .t = now, .kind = pkt->kind, .op = pkt->roce.opcode,
					      .syndrome = pkt->roce.syndrome, .psn = pkt->roce.psn,
					      .payload = pkt->payload_len, .wire_len = wire_wire_len(pkt),
					      .pfc_quanta0 = pkt->pfc_quanta[0] };
}

static void on_done(void *arg, uint64_t cookie, emu_ps_t now)
{
	struct pair *b = arg;

	(void)cookie;
	b->done++;
	b->done_at = now;
}

static void on_sent(void *arg, uint64_t cookie, emu_ps_t now)
{
	struct pair *b = arg;

	(void)cookie;
	b->sent++;
	b->sent_at = now;
}

static void on_recv(void *arg, uint32_t fep, uint32_t src, uint32_t qpn, uint32_t msn, uint64_t bytes, emu_ps_t now)
{
	struct pair *b = arg;

	(void)fep, (void)src, (void)now;
	if (b->recv < 8)
		b->recv_qpn[b->recv] = qpn, b->recv_msn[b->recv] = msn;
	b->recv++;
	b->recv_bytes += bytes;
}

static void on_rate(void *arg, uint32_t fep, uint32_t qpn, uint64_t bps, emu_ps_t now)
{
	struct pair *b = arg;

	(void)fep, (void)qpn;
	if (b->n_rates < MAX_RATES) {
		b->rate_t[b->n_rates] = now;
		b->rate_bps[b->n_rates++] = bps;
	}
}

static struct pair *pair_new(void (*tune)(struct roce_params *), const struct net_impair *imp, uint32_t n_imp)
{
	struct pair *b = calloc(1, sizeof(*b));

	cr_assert_not_null(b);
	cr_assert_eq(net_part_init(&b->np, 1 << 16, 1 << 15), 0);
	roce_params_defaults(&b->p);
	if (tune != NULL)
		tune(&b->p);
	tfx_neigh_init(b->neigh, 2);
	for (uint32_t i = 0; i < 2; i++) {
		struct roce_env env = { .np = &b->np, .params = &b->p, .fep_id = i, .name = "nic", .ip = b->neigh[i].ip,
					.neigh = b->neigh, .n_neigh = 2, .data_tc = 0, .ctrl_tc = 1,
					.hooks = { .arg = b, .msg_done = on_done, .msg_sent = on_sent,
						   .msg_recv = on_recv, .rate = on_rate } };

		memcpy(env.mac, b->neigh[i].mac, 6);
		b->nic[i] = roce_create(&env);
		cr_assert_not_null(b->nic[i]);
	}
	struct net_endpoint a = { .dev = b->nic[0], .ops = &roce_dev_ops }, z = { .dev = b->nic[1], .ops = &roce_dev_ops };

	net_link_init(&b->link, &b->np, b->p.data_rate_bps, b->p.delay_ps, a, z);
	if (n_imp > 0)
		memcpy(b->imp, imp, n_imp * sizeof(*imp));
	net_dir_set_impair(&b->link.dir[0], b->imp, n_imp, 16, 18);
	cr_assert_eq(net_link_add_tap(&b->link, tap, b), 0);
	roce_attach(b->nic[0], &b->link.dir[0]);
	roce_attach(b->nic[1], &b->link.dir[1]);
	cr_assert_eq(roce_qp_open(b->nic[0], b->neigh[1].ip, &b->qpn), 0);
	return b;
}

static void pair_free(struct pair *b)
{
	roce_destroy(b->nic[0]);
	roce_destroy(b->nic[1]);
	net_part_fini(&b->np);
	free(b);
}

static void run(struct pair *b)
{
	emu_sched_run_until(b->np.sched, EMU_PS_NEVER - 1);
}

/* A pair whose host 0 posts one 1 MiB WRITE (256 packets at the default MSS) at 0, run to the end. */
static struct pair *mib_write(const struct net_impair *imp, uint32_t n_imp)
{
	struct pair *b = pair_new(NULL, imp, n_imp);

	cr_assert_eq(roce_post(b->nic[0], b->qpn, ROCE_VERB_WRITE, 1048576, 1, 0), 0);
	run(b);
	return b;
}

static int count(const struct pair *b, uint32_t dir, uint8_t op)
{
	int n = 0;

	for (int i = 0; i < b->n_seen; i++)
		n += b->seen[i].dir == dir && b->seen[i].kind == WIRE_KIND_ROCE && b->seen[i].op == op;
	return n;
}

/* Seed 003, Worked example: one WQE on the Scala RoCE NIC. */
Test(roce, one_wqe_of_seed_003)
{
	struct pair *b = pair_new(NULL, NULL, 0);
	uint64_t bytes = 0;
	int full = 0;

	cr_assert_eq(roce_post(b->nic[0], b->qpn, ROCE_VERB_WRITE, 250000, 7, 0), 0);
	run(b);
	cr_expect_eq(b->done, 1);
	cr_expect_eq(b->recv_bytes, 250000);
	cr_expect_eq(count(b, 0, WIRE_ROCE_WRITE_FIRST), 1);
	cr_expect_eq(count(b, 0, WIRE_ROCE_WRITE_MIDDLE), 60);
	cr_expect_eq(count(b, 0, WIRE_ROCE_WRITE_LAST), 1);
	for (int i = 0; i < b->n_seen; i++) {
		if (b->seen[i].dir != 0 || !wire_roce_is_data(b->seen[i].op))
			continue;
		bytes += b->seen[i].wire_len;
		full += b->seen[i].payload == 4096;
		if (b->seen[i].payload == 144)
			cr_expect_eq(b->seen[i].op, WIRE_ROCE_WRITE_LAST);
	}
	cr_expect_eq(full, 61);
	cr_expect_eq(bytes, 253596); /* 250,000 + 62 x 58 */
	cr_expect_eq(emu_ser_ps(253596, 400000000000ULL), 5071920); /* 5.07 us */
	cr_expect_eq(roce_counters(b->nic[0])[ROCE_C_RDMA_WRITE_CNT], 62);
	cr_expect_eq(roce_counters(b->nic[0])[ROCE_C_WQE_COMPLETED], 1);
	pair_free(b);
}

/* Transport page, Worked example: packet sizes at MSS 4096: 4,154 B, 83.08 ns apart at the default DataRate. */
Test(roce, data_packets_are_4154_bytes_83_08_ns_apart)
{
	struct pair *b = mib_write(NULL, 0);
	emu_ps_t prev = 0;
	int n = 0;

	for (int i = 0; i < b->n_seen; i++) {
		const struct seen *s = &b->seen[i];

		if (s->dir != 0 || s->kind != WIRE_KIND_ROCE)
			continue;
		cr_expect_eq(s->wire_len, 4154);
		if (n++ > 0)
			cr_expect_eq(s->t - prev, 83080, "packet %d: %llu ps after the one before", n,
				     (unsigned long long)(s->t - prev));
		prev = s->t;
	}
	cr_expect_eq(n, 256);
	for (int i = 0; i < b->n_seen; i++)
		if (b->seen[i].dir == 1 && b->seen[i].kind == WIRE_KIND_ROCE)
			cr_expect_eq(b->seen[i].wire_len, 126);
	pair_free(b);
}

/* Transport page, Worked example: ACK cadence at the defaults: 16 ACKs for a 1 MiB WRITE. */
Test(roce, a_mib_write_draws_16_acks_15_by_count_1_by_the_last_packet)
{
	struct pair *b = mib_write(NULL, 0);
	int acks = 0;

	for (int i = 0; i < b->n_seen; i++) {
		const struct seen *s = &b->seen[i];

		if (s->dir != 1 || s->op != WIRE_ROCE_ACK)
			continue;
		/* packets 17, 34, ..., 255 by the count (PSNs 16, 33, ..., 254), then 256 (PSN 255) by its flag */
		cr_expect_eq(s->psn, acks < 15 ? 17u * (uint32_t)(acks + 1) - 1 : 255u, "ACK %d names PSN %u", acks,
			     s->psn);
		acks++;
	}
	cr_expect_eq(acks, 16);
	cr_expect_eq(roce_counters(b->nic[1])[ROCE_C_ACKS_SENT], 16);
	cr_expect_eq(b->done, 1);
	pair_free(b);
}

/* Transport page, Worked example: a lost last packet, recovered by the 64 ms transport timer. */
Test(roce, a_lost_last_packet_is_resent_when_the_64_ms_timer_expires)
{
	const struct net_impair drop = { .nth = 256, .action = NET_IMPAIR_DROP };
	struct pair *b = mib_write(&drop, 1);
	emu_ps_t ack255 = 0;
	const uint64_t *c;

	for (int i = 0; i < b->n_seen; i++)
		if (b->seen[i].dir == 1 && b->seen[i].op == WIRE_ROCE_ACK && b->seen[i].psn == 254 && ack255 == 0)
			ack255 = b->seen[i].t + emu_ser_ps(126, 400000000000ULL) + 100000; /* reached the sender */
	c = roce_counters(b->nic[0]);
	cr_expect_eq(b->done, 1);
	cr_expect_eq(c[ROCE_C_RTO], 1);
	cr_expect_eq(c[ROCE_C_RTX], 1);
	cr_expect_eq(c[ROCE_C_RDMA_WRITE_CNT], 257);
	cr_expect_eq(roce_counters(b->nic[1])[ROCE_C_NACKS_SENT], 0);
	/* the timer restarted with 64 ms at the ACK of packet 255; the WRITE completes about one RetransmitTimeout
	 * later: the fetch again, the resent packet and its ACK take under 2 us */
	cr_expect_geq(b->done_at, ack255 + 64 * EMU_PS_PER_MS);
	cr_expect_lt(b->done_at, ack255 + 64 * EMU_PS_PER_MS + 2 * EMU_PS_PER_US);
	pair_free(b);
}

/* hooks.msg_sent (the Chakra workload's send completion): once, when the message's last packet first left the NIC,
 * not again when the timer resends it 64 ms later. */
Test(roce, last_byte_sent_reported_once_at_the_first_transmission_of_the_last_packet)
{
	const struct net_impair drop = { .nth = 256, .action = NET_IMPAIR_DROP };
	struct pair *b = mib_write(&drop, 1);
	emu_ps_t psn254 = 0, resent = 0;

	/* the tap sees a frame as its serialization starts, and not the dropped first copy of PSN 255 */
	for (int i = 0; i < b->n_seen; i++) {
		if (b->seen[i].dir == 0 && b->seen[i].op == WIRE_ROCE_WRITE_MIDDLE && b->seen[i].psn == 254)
			psn254 = b->seen[i].t;
		if (b->seen[i].dir == 0 && b->seen[i].op == WIRE_ROCE_WRITE_LAST)
			resent = b->seen[i].t;
	}
	cr_expect_eq(b->done, 1);
	cr_expect_eq(b->sent, 1);
	/* PSN 255 started 83.08 ns after PSN 254 and took 83.08 ns */
	cr_expect_eq(b->sent_at, psn254 + 2 * 83080, "reported at %llu ps, PSN 254 started at %llu ps",
		     (unsigned long long)b->sent_at, (unsigned long long)psn254);
	cr_expect_gt(resent, b->sent_at + 60 * EMU_PS_PER_MS, "resent after the 64 ms timer, not reported again");
	pair_free(b);
}

/* msg_recv names each message by the sender's queue pair and its number on it: 1, 2, 3 on one queue pair; a
 * second queue pair's first message is 1 again. */
Test(roce, received_messages_name_their_queue_pair_and_number)
{
	struct pair *b = pair_new(NULL, NULL, 0);
	uint32_t qp2;

	cr_assert_eq(roce_qp_open(b->nic[0], b->neigh[1].ip, &qp2), 0);
	cr_assert_neq(qp2, b->qpn);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(roce_post(b->nic[0], b->qpn, ROCE_VERB_WRITE, 10000, (uint64_t)i, 0), 0);
	run(b);
	cr_assert_eq(roce_post(b->nic[0], qp2, ROCE_VERB_WRITE, 0, 9, b->done_at), 0);
	run(b);
	cr_assert_eq(b->recv, 4);
	cr_expect_eq(b->sent, 4);
	for (uint32_t i = 0; i < 3; i++) {
		cr_expect_eq(b->recv_qpn[i], b->qpn);
		cr_expect_eq(b->recv_msn[i], i + 1);
	}
	cr_expect_eq(b->recv_qpn[3], qp2);
	cr_expect_eq(b->recv_msn[3], 1);
	pair_free(b);
}

/* Transport page, Loss recovery: a packet lost from the middle is recovered by one NAK in about a round trip. */
Test(roce, a_lost_middle_packet_draws_one_nak_and_go_back_n)
{
	const struct net_impair drop = { .nth = 100, .action = NET_IMPAIR_DROP };
	struct pair *b = mib_write(&drop, 1);
	const uint64_t *rx, *tx;

	rx = roce_counters(b->nic[1]);
	tx = roce_counters(b->nic[0]);
	cr_expect_eq(b->done, 1);
	cr_expect_eq(b->recv_bytes, 1048576);
	cr_expect_eq(rx[ROCE_C_NACKS_SENT], 1);
	cr_expect_eq(rx[ROCE_C_SEQ_OUT_OF_ORDER], 1);
	cr_expect_gt(rx[ROCE_C_RX_DROPS_AFTER_NAK], 0);
	/* go-back-N: every packet after the lost one that arrived before the resend was discarded, and is sent again
	 * with the lost one: 256 first copies, the lost one's second and one more per discard */
	cr_expect_eq(tx[ROCE_C_RDMA_WRITE_CNT], 257 + rx[ROCE_C_RX_DROPS_AFTER_NAK], "%llu packets sent, %llu discarded",
		     (unsigned long long)tx[ROCE_C_RDMA_WRITE_CNT], (unsigned long long)rx[ROCE_C_RX_DROPS_AFTER_NAK]);
	cr_expect_eq(rx[ROCE_C_DUPLICATE], 0);
	cr_expect_eq(tx[ROCE_C_NACKS_RECVD], 1);
	cr_expect_eq(tx[ROCE_C_RTX], 1);
	cr_expect_eq(tx[ROCE_C_RTO], 0);
	cr_expect_lt(b->done_at, 100 * EMU_PS_PER_US);
	pair_free(b);
}

/* Buffers page, Worked example: the default configuration's pools and thresholds. */
Test(roce, default_pools_and_pause_time)
{
	struct pair *b = pair_new(NULL, NULL, 0);
	uint64_t size, occ;

	roce_pool(b->nic[0], true, 0, &size, &occ);
	cr_expect_eq(size, 230400);
	cr_expect_eq(size / 4154, 55);
	roce_pool(b->nic[0], true, 1, &size, &occ);
	cr_expect_eq(size, 25600);
	roce_pool(b->nic[0], false, 0, &size, &occ);
	cr_expect_eq(size, 3600000);
	cr_expect_eq(size * b->p.ingress.pfc_xoff_ppm[0] / 1000000, 2880000);
	cr_expect_eq(size * b->p.ingress.pfc_xon_ppm[0] / 1000000, 1440000);
	roce_pool(b->nic[0], false, 1, &size, &occ);
	cr_expect_eq(size, 400000);
	cr_expect_eq(size * b->p.ingress.pfc_xoff_ppm[1] / 1000000, 320000);
	cr_expect_eq(size * b->p.ingress.pfc_xon_ppm[1] / 1000000, 160000);
	roce_pool(b->nic[0], false, 2, &size, &occ);
	cr_expect_eq(size, 0);
	cr_expect_eq(b->p.ingress.pfc_enable[0] + b->p.ingress.pfc_enable[1], 2);
	cr_expect_eq(net_pfc_pause_time(65535, 400000000000ULL, 100000), 83984800); /* 83.985 us */
	cr_expect_eq(net_pfc_pause_time(65535, 400000000000ULL, 100000) / 2, 41992400); /* refresh 41.99 us */
	pair_free(b);
}

static void pcie3(struct roce_params *p)
{
	p->pcie_nic.lane_bps = 7880000000ULL; /* the PCIe 3.0 lane rate: received data backs up into the pools */
}

/* Buffers page, PFC: with a slow host link the receive pool reaches Xoff; the NIC pauses the switch (here the
 * sender) on the packet that takes it to 2,880,000 B, refreshes or resumes, and drops nothing. */
Test(roce, a_slow_host_link_fills_the_pool_and_pauses_the_sender)
{
	struct pair *b = pair_new(pcie3, NULL, 0);
	struct port_pfc_stats rx, tx;

	for (int i = 0; i < 8; i++)
		cr_assert_eq(roce_post(b->nic[0], b->qpn, ROCE_VERB_WRITE, 4 * 1048576, (uint64_t)i, 0), 0);
	run(b);
	roce_pfc_stats(b->nic[1], &rx, EMU_PS_NEVER - 1);
	roce_pfc_stats(b->nic[0], &tx, EMU_PS_NEVER - 1);
	cr_expect_eq(b->done, 8);
	cr_expect_gt(rx.xoff_tx[0], 0);
	cr_expect_gt(rx.xon_tx[0], 0);
	cr_expect_eq(tx.xoff_rx[0], rx.xoff_tx[0]);
	cr_expect_eq(tx.xon_rx[0], rx.xon_tx[0]);
	/* the host link drains the pool below Xoff (not to Xon) within half a pause time: each pause is ended by the
	 * XON of its refresh, 41.9924 us after it (buffers page, PFC sent), and the sender is held exactly that long */
	cr_expect_eq(rx.xon_tx[0], rx.xoff_tx[0]);
	cr_expect_eq(tx.paused_ps[0], tx.xoff_rx[0] * 41992400, "paused %llu ps by %llu pauses",
		     (unsigned long long)tx.paused_ps[0], (unsigned long long)tx.xoff_rx[0]);
	cr_expect_eq(rx.xoff_tx[1], 0); /* the receiver takes nothing in the control class: its ACKs go the other way */
	cr_expect_eq(roce_counters(b->nic[1])[ROCE_C_RX_DROPS], 0);
	pair_free(b);
}

static struct wire_pkt *cnp_to(struct pair *b, uint32_t qpn)
{
	struct wire_pkt *p = net_pkt_alloc(&b->np);

	p->kind = WIRE_KIND_ROCE;
	p->src_ip = b->neigh[1].ip;
	p->dst_ip = b->neigh[0].ip;
	p->dscp = 8;
	p->dport = WIRE_UDP_PORT_ROCE;
	p->roce.opcode = WIRE_ROCE_CNP;
	p->roce.dqpn = qpn;
	return p;
}

static void ev_cnp(void *a, void *bb, emu_ps_t now)
{
	struct pair *b = a;

	(void)bb;
	roce_dev_ops.receive(b->nic[0], 0, cnp_to(b, b->qpn), now);
}

/* Congestion-control page, Worked example: the loop's timing and steps at the defaults. One CNP at 10 us to a queue
 * pair at line rate: the cut to half (the estimate starts at 1), three fast-recovery increases every 45 us, each
 * halving the gap to the 400 Gb/s target, then additive increase (step 4 Gb/s, the target capped at line rate)
 * until the rate is within 0.1 Gb/s of 400 Gb/s. */
Test(roce, the_rate_control_loop_at_the_defaults)
{
	struct pair *b = pair_new(NULL, NULL, 0);
	const emu_ps_t t0 = 10 * EMU_PS_PER_US, half = 22500 * 1000ULL;
	uint64_t want = 200000000000ULL;

	cr_assert_eq(net_sched(&b->np, t0, ev_cnp, b, NULL, NULL), 0);
	run(b);
	cr_assert_eq(b->n_rates, 12);
	cr_expect_eq(b->rate_t[0], t0);
	cr_expect_eq(b->rate_bps[0], want);
	for (int i = 1; i < b->n_rates; i++) {
		/* increases come in the increase halves, 22.5 us after the start and every 45 us after */
		cr_expect_eq(b->rate_t[i], t0 + half + (emu_ps_t)(i - 1) * 2 * half, "increase %d at %llu", i,
			     (unsigned long long)b->rate_t[i]);
		want = (want + 400000000000ULL) / 2;
		if (i < b->n_rates - 1)
			cr_expect_eq(b->rate_bps[i], want, "increase %d: %llu", i, (unsigned long long)b->rate_bps[i]);
	}
	cr_expect_eq(b->rate_bps[3], 375000000000ULL); /* seven eighths of the cut recovered after three */
	cr_expect_eq(b->rate_bps[b->n_rates - 1], 400000000000ULL); /* the episode ended: line rate */
	cr_expect_eq(roce_counters(b->nic[0])[ROCE_C_RATE_EPISODES], 1);
	cr_expect_eq(roce_counters(b->nic[0])[ROCE_C_RATE_CUTS], 1);
	cr_expect_eq(roce_qp_rate(b->nic[0], b->qpn), 400000000000ULL);
	pair_free(b);
}

static void ev_cnp_train(void *a, void *bb, emu_ps_t now)
{
	struct pair *b = a;
	uintptr_t left = (uintptr_t)bb;

	roce_dev_ops.receive(b->nic[0], 0, cnp_to(b, b->qpn), now);
	if (left > 1)
		net_sched(&b->np, now + 10 * EMU_PS_PER_US, ev_cnp_train, b, (void *)(left - 1), NULL);
}

/* While CNPs keep arriving the rate is raised at most once every 6 x 45 us = 270 us, and never falls below the
 * floor, 10 % of line rate. */
Test(roce, cnps_that_keep_coming_hold_the_rate_at_or_above_the_floor)
{
	struct pair *b = pair_new(NULL, NULL, 0);
	emu_ps_t last_up = 0;

	cr_assert_eq(net_sched(&b->np, EMU_PS_PER_US, ev_cnp_train, b, (void *)(uintptr_t)200, NULL), 0);
	run(b);
	for (int i = 1; i < b->n_rates && b->rate_t[i] < 2000 * EMU_PS_PER_US; i++) {
		cr_expect_geq(b->rate_bps[i], 40000000000ULL);
		if (b->rate_bps[i] > b->rate_bps[i - 1]) {
			if (last_up != 0)
				cr_expect_geq(b->rate_t[i] - last_up, 270 * EMU_PS_PER_US);
			last_up = b->rate_t[i];
		}
	}
	/* one episode; a cut in every reduction half that saw a CNP: the halves at 1 + 45 k us, k = 0..45 (the last,
	 * at 2,026 us, counts the CNP of 1,991 us); then the rate climbs back to line rate and the episode ends */
	cr_expect_eq(roce_counters(b->nic[0])[ROCE_C_RATE_EPISODES], 1);
	cr_expect_eq(roce_counters(b->nic[0])[ROCE_C_RATE_CUTS], 46);
	cr_expect_eq(b->rate_bps[b->n_rates - 1], 400000000000ULL);
	pair_free(b);
}

static void icrc_on(struct roce_params *p)
{
	p->icrc = true;
}

/* Transport page, Packets on the wire, with RoCEEncapsulation.ICRC: a 1,001 B WRITE is one packet of 1,001 B, 3 pad
 * bytes (PadCnt) and the 4 B ICRC: 58 + 1,001 + 3 + 4 = 1,066 B on the wire. The egress data pool charges what
 * leaves: once the WRITE completes it holds nothing. */
Test(roce, an_icrc_frame_with_pad_bytes_leaves_the_egress_pool_empty)
{
	struct pair *b = pair_new(icrc_on, NULL, 0);
	struct port_pool_stats s;
	uint64_t size, occ;

	cr_assert_eq(roce_post(b->nic[0], b->qpn, ROCE_VERB_WRITE, 1001, 1, 0), 0);
	run(b);
	cr_expect_eq(b->done, 1);
	cr_expect_eq(b->recv_bytes, 1001);
	cr_assert_eq(count(b, 0, WIRE_ROCE_WRITE_ONLY), 1);
	for (int i = 0; i < b->n_seen; i++)
		if (b->seen[i].dir == 0 && b->seen[i].op == WIRE_ROCE_WRITE_ONLY)
			cr_expect_eq(b->seen[i].wire_len, 1066);
	roce_pool(b->nic[0], true, 0, &size, &occ);
	cr_expect_eq(occ, 0, "egress data pool holds %llu B after the WRITE completed", (unsigned long long)occ);
	roce_pool_stats(b->nic[0], true, 0, &s);
	cr_expect_eq(s.enq_bytes, 1066);
	cr_expect_eq(s.deq_bytes, 1066);
	pair_free(b);
}
