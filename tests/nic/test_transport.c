/* Transport tests of issue 3 on two NICs back to back with a link fixture: trims and NACKs, the retransmission
 * timer and its backoff, SACK blocks, the maximum window, ACK-request rules. Exact numbers from the spec. */
#include <criterion/criterion.h>
#include <errno.h>

#include "net.h"
#include "nic.h"
#include "nic_pair.h"
#include "nic_params.h"

/* The pair as these tests use it: @p delay each way, @p imp / @p n_imp on host 0's direction, the defaults changed
 * by @p tune, trace rows kept. */
static struct tfx_pair *pair_new(emu_ps_t delay, const struct net_impair *imp, uint32_t n_imp,
				 void (*tune)(struct nic_params *))
{
	struct tfx_opts o = { .delay = delay, .imp = imp, .n_imp = n_imp, .tune = tune, .trace = true };

	return tfx_pair_new(&o);
}

#define US EMU_PS_PER_US

Test(nic_transport, each_trim_draws_one_nack_and_one_trimmable_rtx_retransmission)
{
	const struct net_impair imp[] = { { 3, NET_IMPAIR_TRIM, 0 }, { 7, NET_IMPAIR_TRIM, 0 },
					  { 9, NET_IMPAIR_TRIM_LASTHOP, 0 } };
	struct tfx_pair *b = pair_new(100 * EMU_PS_PER_NS, imp, 3, NULL);
	uint32_t trimmed[3], nacked[3], rtx[3];
	int nt = 0, nn = 0, nr = 0;
	uint8_t codes[3];

	tfx_pair_run(b, 64 * 4096);
	for (int i = 0; i < b->n_seen; i++) {
		const struct wire_pkt *p = &b->seen[i].p;
		if (p->kind == WIRE_KIND_TRIMMED) {
			cr_assert_lt(nt, 3);
			cr_assert_eq(wire_wire_len(p), 62, "a trimmed packet is 62 B on the wire");
			trimmed[nt++] = p->pds.psn;
		} else if (p->kind == WIRE_KIND_NACK) {
			cr_assert_lt(nn, 3);
			codes[nn] = p->pds.nack_code;
			cr_assert_eq(p->dscp, 46, "NACKs are control");
			nacked[nn++] = p->pds.psn;
		} else if (p->kind == WIRE_KIND_DATA && (p->pds.flags & WIRE_REQ_F_RETX)) {
			cr_assert_lt(nr, 3);
			cr_assert_eq(p->dscp, 10, "UseDistinctDSCPForRetransmits: TRIMMABLE_RTX");
			rtx[nr++] = p->pds.psn;
		}
	}
	cr_assert_eq(nt, 3);
	cr_assert_eq(nn, 3, "exactly one NACK per trim");
	cr_assert_eq(nr, 3, "exactly one retransmission per trim");
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(nacked[i], trimmed[i]);
		cr_assert_eq(rtx[i], trimmed[i]);
	}
	cr_assert_eq(codes[0], WIRE_NACK_TRIMMED);
	cr_assert_eq(codes[1], WIRE_NACK_TRIMMED);
	cr_assert_eq(codes[2], WIRE_NACK_TRIMMED_LASTHOP);
	const uint64_t *c = nic_counters(b->nic[0]);
	cr_assert_eq(c[NIC_C_NUM_RTX], 3);
	cr_assert_eq(c[NIC_C_NUM_RTO], 0, "a NACK, not the timer, recovers a trim");
	cr_assert_eq(c[NIC_C_NACK_PKTS_RCVD], 3);
	cr_assert_eq(nic_counters(b->nic[1])[NIC_C_TRIMS_RCVD], 3);
	cr_assert_eq(b->done, 1);
	tfx_pair_free(b);
}

Test(nic_transport, drops_recovered_by_timeout_150_300_600_us_doubling_to_2_pow_5)
{
	/* One 4,096 B packet whose first seven transmissions are dropped: each retransmission leaves when the
	 * previous copy's timer expires, 150 us x 2^min(k-1, 5) after that copy's serialization ended. */
	const struct net_impair imp[] = { { 1, NET_IMPAIR_DROP, 0 }, { 2, NET_IMPAIR_DROP, 0 }, { 3, NET_IMPAIR_DROP, 0 },
					  { 4, NET_IMPAIR_DROP, 0 }, { 5, NET_IMPAIR_DROP, 0 }, { 6, NET_IMPAIR_DROP, 0 },
					  { 7, NET_IMPAIR_DROP, 0 } };
	const emu_ps_t rto[7] = { 150 * US, 300 * US, 600 * US, 1200 * US, 2400 * US, 4800 * US, 4800 * US };
	struct tfx_pair *b = pair_new(100 * EMU_PS_PER_NS, imp, 7, NULL);
	emu_ps_t sent[8];
	int n = 0;

	tfx_pair_run(b, 4096);
	for (int i = 0; i < b->n_tr; i++)
		if (b->tr[i].fep_id == 0 && b->tr[i].kind == WIRE_KIND_DATA && b->tr[i].dir != NIC_TR_RX) {
			cr_assert_lt(n, 8);
			cr_assert_eq(b->tr[i].dir, n == 0 ? NIC_TR_TX : NIC_TR_RETX);
			sent[n++] = b->tr[i].now; /* end of serialization */
		}
	cr_assert_eq(n, 8, "7 drops, then the 8th transmission gets through");
	for (int k = 0; k < 7; k++)
		cr_assert_eq(sent[k + 1] - sent[k], rto[k] + 84040, "retransmission %d: timeout %llu ps", k + 1,
			     (unsigned long long)rto[k]);
	cr_assert_eq(nic_counters(b->nic[0])[NIC_C_NUM_RTO], 7);
	cr_assert_eq(nic_counters(b->nic[0])[NIC_C_NUM_RTX], 7);
	cr_assert_eq(b->done, 1);
	tfx_pair_free(b);
}

static void fixed_rto(struct nic_params *p)
{
	p->fixed_rexmit_enable = true;
	p->fixed_rexmit_timeout = 40 * US;
}

Test(nic_transport, fixed_rexmit_timeout_does_not_double)
{
	const struct net_impair imp[] = { { 1, NET_IMPAIR_DROP, 0 }, { 2, NET_IMPAIR_DROP, 0 }, { 3, NET_IMPAIR_DROP, 0 } };
	struct tfx_pair *b = pair_new(100 * EMU_PS_PER_NS, imp, 3, fixed_rto);
	emu_ps_t sent[4];
	int n = 0;

	tfx_pair_run(b, 4096);
	for (int i = 0; i < b->n_tr; i++)
		if (b->tr[i].fep_id == 0 && b->tr[i].kind == WIRE_KIND_DATA && b->tr[i].dir != NIC_TR_RX && n < 4)
			sent[n++] = b->tr[i].now;
	cr_assert_eq(n, 4);
	for (int k = 0; k < 3; k++)
		cr_assert_eq(sent[k + 1] - sent[k], 40 * US + 84040);
	tfx_pair_free(b);
}

/* The PSNs an ACK's SACK bitmap lists. */
static int sack_psns(const struct wire_pkt *a, uint32_t *out)
{
	int32_t sack_off = a->pds.sack_psn_off;
	uint32_t base = a->pds.psn + (uint32_t)sack_off;
	int n = 0;

	for (int i = 0; i < 64; i++)
		if ((a->ack.sack_bitmap >> i) & 1)
			out[n++] = base + (uint32_t)i;
	return n;
}

Test(nic_transport, sack_bitmaps_match_the_arrival_pattern)
{
	/* Data frame 5 arrives 2 us late: the frames after it arrive first, and each ACK until it lands lists every
	 * PSN that has arrived beyond it, exactly. */
	const struct net_impair imp[] = { { 5, NET_IMPAIR_DELAY, 2 * US } };
	struct tfx_pair *b = pair_new(100 * EMU_PS_PER_NS, imp, 1, NULL);
	uint32_t start = 0, got[64];
	int checked = 0;

	tfx_pair_run(b, 32 * 4096);
	for (int i = 0; i < b->n_seen; i++)
		if (b->seen[i].p.kind == WIRE_KIND_DATA && b->seen[i].p.ses.flags & WIRE_SES_F_SOM)
			start = b->seen[i].p.pds.psn;
	uint32_t late = start + 4;
	for (int i = 0; i < b->n_seen; i++) {
		const struct wire_pkt *a = &b->seen[i].p;
		if (a->kind != WIRE_KIND_ACK || (a->pds.flags & WIRE_ACK_F_P))
			continue;
		int32_t off = a->pds.psn_off;
		uint32_t acked = a->pds.psn + (uint32_t)off; /* the PSN that asked for it */
		if ((int32_t)(acked - late) <= 0 || a->pds.psn != late - 1)
			continue;
		/* while PSN late is missing: CACK = late - 1 and the bitmap lists late+1 .. acked */
		int n = sack_psns(a, got);
		cr_assert_eq(n, (int)(acked - late), "ACK for PSN +%u lists %d PSNs", acked - start, n);
		for (int k = 0; k < n; k++)
			cr_assert_eq(got[k], late + 1 + (uint32_t)k);
		checked++;
	}
	/* frame 5 + k leaves k x 84.04 ns after frame 5 and overtakes it when that is under 2 us: k = 1 .. 23
	 * (floor(2,000,000 / 84,040) = 23), each drawing one ACK while PSN late is missing */
	cr_assert_eq(checked, 23, "saw ACKs while the late packet was missing (%d)", checked);
	cr_assert_eq(nic_counters(b->nic[1])[NIC_C_OOO_EVENTS], (uint64_t)checked);
	cr_assert_eq(nic_counters(b->nic[0])[NIC_C_NUM_RTX], 0, "SACK never triggers a retransmission");
	cr_assert_eq(b->done, 1);
	tfx_pair_free(b);
}

Test(nic_transport, sack_reports_successive_64_psn_blocks)
{
	/* Frame 1 arrives 40 us late: 99 PSNs beyond it arrive first, more than one 64-PSN bitmap covers. The
	 * receiver then reports block 0 (PSNs +1..+63) and block 1 (+64..+127) in turn. */
	const struct net_impair imp[] = { { 1, NET_IMPAIR_DELAY, 40 * US } };
	struct tfx_pair *b = pair_new(100 * EMU_PS_PER_NS, imp, 1, NULL);
	int blk0 = 0, blk1 = 0;

	tfx_pair_run(b, 100 * 4096);
	for (int i = 0; i < b->n_seen; i++) {
		const struct wire_pkt *a = &b->seen[i].p;
		if (a->kind != WIRE_KIND_ACK || (a->pds.flags & WIRE_ACK_F_P) || a->ack.sack_bitmap == 0)
			continue;
		if (a->pds.sack_psn_off == 1)
			blk0++;
		else if (a->pds.sack_psn_off == 65)
			blk1++;
		else
			cr_assert_fail("unexpected SACK offset %d", a->pds.sack_psn_off);
	}
	/* PSNs +1..+63 fit block 0 (base +0, the late PSN): 63 ACKs report it alone. Each of +64..+99 puts
	 * packets in both blocks, and those 36 ACKs alternate, block 0 first: 18 each (uet-nic-transport.md,
	 * Selective acknowledgements). */
	cr_assert_eq(blk0, 63 + 18, "block 0 (%d)", blk0);
	cr_assert_eq(blk1, 18, "the second block is reported too (%d)", blk1);
	cr_assert_eq(b->done, 1);
	tfx_pair_free(b);
}

Test(nic_transport, maximum_window_450000_bytes_bounds_bytes_in_flight)
{
	/* 20 us of propagation each way: far more than 450,000 B of bandwidth-delay product, so the window binds.
	 * At the defaults the window is 1.5 x 400 Gb/s x 6 us / 8 = 450,000 B, counted at 4,184 B per packet:
	 * 107 packets (447,688 B) fit, the 108th does not. */
	struct tfx_pair *b = pair_new(20 * US, NULL, 0, NULL);
	uint64_t max_flight = 0;

	cr_assert_eq(nic_max_cwnd(&b->p, 400000000000ULL), 450000);
	tfx_pair_run(b, 1048576);
	for (int i = 0; i < b->n_tr; i++)
		if (b->tr[i].fep_id == 0 && b->tr[i].has_sender_state && b->tr[i].bytes_in_flight > max_flight)
			max_flight = b->tr[i].bytes_in_flight;
	cr_assert_eq(max_flight, 107 * 4184, "in flight peaks at 107 nominal packets (%llu)",
		     (unsigned long long)max_flight);
	cr_assert_eq(b->done, 1);
	tfx_pair_free(b);
}

static void ar_every_4(struct nic_params *p)
{
	p->ack_req_every_nth = 4;
}

static void ar_every_4_not_first(struct nic_params *p)
{
	p->ack_req_every_nth = 4;
	p->ack_req_first = false;
}

static void ar_every_4_not_first_not_last(struct nic_params *p)
{
	p->ack_req_every_nth = 5;
	p->ack_req_first = false;
	p->ack_req_last = false;
}

/* Which of a 256-packet message's packets carry AR, as a count and the first few indexes. */
static int ar_pattern(void (*tune)(struct nic_params *), int *first_idx, int *last_idx)
{
	struct tfx_pair *b = pair_new(100 * EMU_PS_PER_NS, NULL, 0, tune);
	int n = 0, idx = 0;

	*first_idx = -1;
	tfx_pair_run(b, 256 * 4096);
	for (int i = 0; i < b->n_seen; i++) {
		const struct wire_pkt *p = &b->seen[i].p;
		if (p->kind != WIRE_KIND_DATA || (p->pds.flags & WIRE_REQ_F_RETX))
			continue; /* first transmissions only */
		idx++;
		if (p->pds.flags & WIRE_REQ_F_AR) {
			n++;
			if (*first_idx < 0)
				*first_idx = idx;
			*last_idx = idx;
		}
	}
	cr_assert_eq(b->done, 1);
	tfx_pair_free(b);
	return n;
}

Test(nic_transport, ack_request_rules_on_a_256_packet_message)
{
	int f, l;

	cr_assert_eq(ar_pattern(NULL, &f, &l), 256, "N = 1: every packet");
	/* N = 4, first: 1st, 5th, ..., 253rd (64 packets), plus the last (256th) */
	cr_assert_eq(ar_pattern(ar_every_4, &f, &l), 65);
	cr_assert_eq(f, 1);
	cr_assert_eq(l, 256);
	/* N = 4, not first: 4th, 8th, ..., 256th (64 packets; the last is one of them) */
	cr_assert_eq(ar_pattern(ar_every_4_not_first, &f, &l), 64);
	cr_assert_eq(f, 4);
	/* N = 5, neither first nor last: 5th, 10th, ..., 255th (51 packets). The 256th asks nothing, so nothing
	 * acknowledges it: its timer recovers it, and its retransmissions count on until the 260th asks. */
	cr_assert_eq(ar_pattern(ar_every_4_not_first_not_last, &f, &l), 51);
	cr_assert_eq(f, 5);
	cr_assert_eq(l, 255);
}

static void prefetch_on(struct nic_params *p)
{
	p->prefetch_enable = true;
}

/* The largest bytes fetched for host 1 and not yet acknowledged that host 0's trace rows show, at nominal size:
 * in flight, plus the payloads in the prefetch buffer (4,202 B on the wire, 4,184 B nominal: full packets). */
static uint64_t fetched_unacked_peak(const struct tfx_pair *b, uint64_t *cwnd_at_peak)
{
	uint64_t peak = 0;

	for (int i = 0; i < b->n_tr; i++) {
		const struct nic_trace *t = &b->tr[i];
		if (t->fep_id != 0 || !t->has_sender_state)
			continue;
		cr_assert_eq(t->pdc_prefetched % 4202, 0, "full packets only");
		uint64_t f = t->bytes_in_flight + t->pdc_prefetched / 4202 * 4184;
		if (f > peak) {
			peak = f;
			*cwnd_at_peak = t->cwnd;
		}
	}
	return peak;
}

Test(nic_transport, prefetch_buffer_holds_62_packets_and_window_applies_at_commit)
{
	/* 60 us each way: the window binds. With PrefetchBufferEnable the default 262,144 B buffer holds 62 full
	 * packets of 4,202 B (uet-nic-configuration.md, PrefetchBufferSize): the first pass fetches exactly that
	 * many at once (62 of the 107 nominal packets the 450,000 B window holds), the window (checked at commit)
	 * peaks at 107 packets in flight, and bytes in flight plus those in the buffer never pass it. */
	struct tfx_pair *b = pair_new(60 * US, NULL, 0, prefetch_on);
	uint64_t max_pf = 0, max_flight = 0, cwnd = 0;

	tfx_pair_run(b, 1048576);
	for (int i = 0; i < b->n_tr; i++) {
		if (b->tr[i].fep_id != 0 || !b->tr[i].has_sender_state)
			continue;
		max_pf = b->tr[i].nic_prefetched > max_pf ? b->tr[i].nic_prefetched : max_pf;
		max_flight = b->tr[i].bytes_in_flight > max_flight ? b->tr[i].bytes_in_flight : max_flight;
		cr_assert_eq(b->tr[i].pdc_prefetched, b->tr[i].nic_prefetched, "one PDC: its share is the whole buffer");
	}
	cr_assert_eq(max_pf, 62 * 4202, "prefetch peak %llu", (unsigned long long)max_pf);
	cr_assert_eq(max_flight, 107 * 4184, "in flight peak %llu", (unsigned long long)max_flight);
	cr_assert_eq(fetched_unacked_peak(b, &cwnd), 107 * 4184);
	cr_assert_eq(b->done, 1);
	tfx_pair_free(b);
}

static void prefetch_window_10(struct nic_params *p)
{
	p->prefetch_enable = true;
	p->override_max_cwnd = true;
	p->max_cwnd_pkts = 10;
}

Test(nic_transport, prefetch_fetches_only_while_the_fetched_bytes_fit_the_window)
{
	/* Congestion control, The congestion window: "A new segment's payload is fetched from the host only while
	 * the bytes fetched for the destination and not yet acknowledged are at most the window", with the prefetch
	 * buffer on too. MaxCongestionWindow 10 with OverrideUetSpecMaxCWind: a 41,840 B window (10 x 4,184 B);
	 * 60 us each way, so the window binds. The 262,144 B buffer would hold 62 packets: it must not fill. */
	struct tfx_pair *b = pair_new(60 * US, NULL, 0, prefetch_window_10);
	uint64_t cwnd = 0, peak;

	tfx_pair_run(b, 1048576);
	peak = fetched_unacked_peak(b, &cwnd);
	cr_assert_eq(cwnd, 41840);
	cr_assert_eq(peak, 10 * 4184, "fetched and unacknowledged peak %llu against a 41,840 B window",
		     (unsigned long long)peak);
	cr_assert_eq(b->done, 1);
	tfx_pair_free(b);
}

Test(nic_transport, prefetch_first_frame_timing_unchanged)
{
	struct tfx_pair *b = pair_new(100 * EMU_PS_PER_NS, NULL, 0, prefetch_on);

	tfx_pair_run(b, 65536);
	cr_assert_eq(b->seen[0].p.kind, WIRE_KIND_DATA);
	cr_assert_eq(b->seen[0].t, 15000 + 1555 + 69290, "fetched into the buffer, committed at once: 85.845 ns");
	cr_assert_eq(b->done, 1);
	tfx_pair_free(b);
}

static void one_lane(struct nic_params *p)
{
	p->pcie_nic.lane_count = 1;
}

static void one_lane_tiny_headers(struct nic_params *p)
{
	p->pcie_nic.lane_count = 1;
	p->pcie_nic.tx_header_buffer = 8 * 16; /* 8 transfers: 4,368 B of writes may wait */
}

static uint64_t rx_pool_peak(void (*tune)(struct nic_params *))
{
	struct tfx_pair *b = pair_new(100 * EMU_PS_PER_NS, NULL, 0, tune);
	struct port_pool_stats s;

	tfx_pair_run(b, 64 * 4096);
	nic_pool_stats(b->nic[1], false, 0, &s);
	cr_assert_eq(b->done, 1);
	cr_assert_eq(s.num_enq, s.num_deq, "everything released in the end");
	tfx_pair_free(b);
	return s.max_occupancy;
}

Test(nic_transport, pcie_transmit_buffers_bound_what_waits_outside_the_receive_pool)
{
	/* One NIC-side lane (31.52 Gb/s) writes slower than 400 Gb/s arrives. With the default 256 KB data and
	 * 16 KB header buffers, a 256 KiB message's writes all fit in the PCIe transmit buffer: the receive pool
	 * only ever holds the packet being admitted. With room for 8 transfer headers, writes back up into the pool. */
	uint64_t dflt = rx_pool_peak(one_lane), tiny = rx_pool_peak(one_lane_tiny_headers);

	cr_assert_eq(dflt, 4184, "default buffers: the pool peaks at one packet (%llu)", (unsigned long long)dflt);
	/* 8 headers: received data waits in the pool. The buffer holds one packet's write (4,368 B), so packet i is
	 * accepted when write i - 1 ends: writes take 1,108.63 ns each (4,368 B at 31.52 Gb/s). The sender puts 54
	 * frames back to back (84.04 ns apart; NSCC's window, cut by the delay of the held ACKs, then stops it, as
	 * measured on this fixture); when the 54th arrives (4,455.36 ns after the first, a probe's 1.24 ns
	 * included) writes 0..4 have been accepted (4 x 1,108.63 = 4,434.52 ns), so 49 packets of 4,184 B wait. */
	cr_assert_eq(tiny, 49 * 4184, "8 headers: received data waits in the pool (%llu)", (unsigned long long)tiny);
}

static emu_ps_t conn_done[4];
static uint64_t conn_cookie[4];
static int conn_n;

static void conn_on_done(void *arg, uint64_t cookie, emu_ps_t now)
{
	(void)arg;
	if (conn_n < 4) {
		conn_cookie[conn_n] = cookie;
		conn_done[conn_n++] = now;
	}
}

Test(nic_transport, connection_pdc_sends_one_message_at_a_time_in_order)
{
	/* The RDMA application's queue pair: three 64 KiB WQEs posted at once on one long-lived PDC. The NIC sends
	 * them one at a time, in order: each starts 15 ns + a fetch after the one ahead completes; PSNs continue
	 * across them; the PDC stays open (seed 003, WQEs: "The NIC sends one WQE of a connection at a time"). */
	struct tfx_pair *b = pair_new(100 * EMU_PS_PER_NS, NULL, 0, NULL);
	uint16_t id;
	uint32_t first_psn[3], last_psn[3];
	emu_ps_t first_t[3];
	int msg = -1;

	conn_n = 0;
	nic_destroy(b->nic[0]);
	struct nic_env env = { .np = &b->np, .params = &b->p, .fep_id = 0, .name = "nic", .ip = b->neigh[0].ip,
			       .seed = 18760, .neigh = b->neigh, .n_neigh = 2, .hooks = { .msg_done = conn_on_done } };
	b->nic[0] = nic_create(&env);
	b->link.dir[0].from.dev = b->nic[0];
	b->link.dir[1].to.dev = b->nic[0];
	nic_attach(b->nic[0], &b->link.dir[0]);
	cr_assert_eq(nic_conn_open(b->nic[0], b->neigh[1].ip, &id, 0), 0);
	for (uint64_t k = 0; k < 3; k++)
		cr_assert_eq(nic_post_conn(b->nic[0], id, 65536, 100 + k, 0), 0);
	emu_sched_run_until(b->np.sched, EMU_PS_NEVER - 1);
	for (int i = 0; i < b->n_seen; i++) {
		const struct wire_pkt *p = &b->seen[i].p;
		if (p->kind != WIRE_KIND_DATA || b->seen[i].dir != 0)
			continue;
		if (p->ses.flags & WIRE_SES_F_SOM) {
			msg++;
			cr_assert_lt(msg, 3);
			first_psn[msg] = p->pds.psn;
			first_t[msg] = b->seen[i].t;
		}
		last_psn[msg] = p->pds.psn;
	}
	cr_assert_eq(msg, 2, "three messages on the wire");
	cr_assert_eq(conn_n, 3);
	for (int k = 0; k < 3; k++) {
		cr_assert_eq(conn_cookie[k], 100 + (uint64_t)k, "completions in posting order");
		cr_assert_eq(last_psn[k] - first_psn[k], 15, "16 packets of 4,096 B");
	}
	for (int k = 1; k < 3; k++) {
		cr_assert_eq(first_psn[k], last_psn[k - 1] + 1, "PSNs continue on the PDC");
		/* the next message starts 15 ns after the completion, then its fetch: 1.555 + 69.290 ns */
		cr_assert_eq(first_t[k], conn_done[k - 1] + 15000 + 1555 + 69290);
	}
	cr_assert_eq(nic_conn_close(b->nic[0], id, conn_done[2]), 0, "the connection's PDC stayed open");
	cr_assert_eq(nic_post_conn(b->nic[0], id, 1, 1, conn_done[2]), -ENOENT);
	tfx_pair_free(b);
}

/* The last data packet host 0 handed down: its uet-monitor row's prefetch columns. */
static const struct nic_trace *last_data_tx(const struct tfx_pair *b)
{
	const struct nic_trace *last = NULL;

	for (int i = 0; i < b->n_tr; i++)
		if (b->tr[i].fep_id == 0 && b->tr[i].kind == WIRE_KIND_DATA && b->tr[i].dir != NIC_TR_RX)
			last = &b->tr[i];
	return last;
}

Test(nic_transport, conn_close_with_prefetch_fetches_pending_releases_buffer_and_records, .timeout = 20)
{
	/* A connection closed 3 us into a 4 MiB message with PrefetchBufferEnable: fetches into the prefetch
	 * buffer are still on PCIe. Their records must outlive the PDC until the fetch lands, and the buffer room
	 * the PDC held is released at once: a 1 MiB message posted on a new PDC then completes, and once its last
	 * payload is committed the buffer is empty (uet-nic-configuration.md, PrefetchBufferSize). */
	struct tfx_pair *b = pair_new(100 * EMU_PS_PER_NS, NULL, 0, prefetch_on);
	uint16_t id;

	cr_assert_eq(nic_conn_open(b->nic[0], b->neigh[1].ip, &id, 0), 0);
	cr_assert_eq(nic_post_conn(b->nic[0], id, 4 << 20, 1, 0), 0);
	emu_sched_run_until(b->np.sched, 3 * US);
	const struct nic_trace *t = last_data_tx(b);
	cr_assert_not_null(t);
	cr_assert_gt(t->nic_prefetched, 0, "fetches into the buffer are outstanding when the connection closes");
	cr_assert_eq(nic_conn_close(b->nic[0], id, 3 * US), 0);
	cr_assert_eq(nic_post(b->nic[0], b->neigh[1].ip, 1 << 20, 2, 3 * US), 0);
	emu_sched_run_until(b->np.sched, EMU_PS_NEVER - 1);
	cr_assert_eq(b->done, 1, "the 1 MiB message completes");
	t = last_data_tx(b);
	cr_assert_eq(t->pdc_prefetched, 0);
	cr_assert_eq(t->nic_prefetched, 0, "nothing of the closed PDC stays in the buffer (%llu)",
		     (unsigned long long)t->nic_prefetched);
	tfx_pair_free(b);
}

static void empty_pool_run(void (*tune)(struct nic_params *))
{
	/* 16 descriptors for the whole partition: both NICs and the link share them, so the sender finds the pool
	 * empty many times. The transmit pass stops, as on a full egress pool, and resumes when its own frames
	 * finish serializing or a packet comes in; the message completes. */
	struct tfx_opts o = { .delay = 100 * EMU_PS_PER_NS, .tune = tune, .max_pkts = 16, .trace = true };
	struct tfx_pair *b = tfx_pair_new(&o);

	tfx_pair_run(b, 1 << 20);
	cr_assert_gt(b->np.counters[NET_C_PKT_POOL_EMPTY], 0, "the pool ran empty");
	cr_assert_eq(b->done, 1, "the 1 MiB message completes");
	cr_assert_eq(nic_counters(b->nic[1])[NIC_C_RX_PAYLOAD_BYTES], 1 << 20);
	tfx_pair_free(b);
}

Test(nic_transport, empty_packet_pool_holds_back_sending_and_the_message_completes, .timeout = 20)
{
	empty_pool_run(NULL);
}

Test(nic_transport, empty_packet_pool_with_prefetch_buffer_completes, .timeout = 20)
{
	empty_pool_run(prefetch_on);
}

Test(nic_transport, packet_pool_emptied_elsewhere_retried_each_frame_time_while_port_idle, .timeout = 20)
{
	/* Another device holds every descriptor of the partition when the message is posted, and gives them back at
	 * 5 us without telling the NIC. With its port idle and nothing of its own outstanding, the NIC retries every
	 * full frame time (4,202 B at 400 Gb/s: 84.04 ns) from its first pass at 15 ns: the retry at or after 5 us is
	 * the 60th, at 15 ns + 60 x 84.04 ns; then the fetch (1.555 + 69.290 ns) puts the first frame on the wire. */
	struct tfx_opts o = { .delay = 100 * EMU_PS_PER_NS, .max_pkts = 16, .trace = true };
	struct tfx_pair *b = tfx_pair_new(&o);
	struct wire_pkt *held[16];

	for (int i = 0; i < 16; i++)
		cr_assert_not_null(held[i] = net_pkt_alloc(&b->np));
	cr_assert_eq(nic_post(b->nic[0], b->neigh[1].ip, 65536, 1, 0), 0);
	emu_sched_run_until(b->np.sched, 5 * US);
	cr_assert_eq(b->n_seen, 0, "nothing sent while the pool is empty");
	for (int i = 0; i < 16; i++)
		net_pkt_free(&b->np, held[i]);
	emu_sched_run_until(b->np.sched, EMU_PS_NEVER - 1);
	cr_assert_eq(b->seen[0].p.kind, WIRE_KIND_DATA);
	cr_assert_eq(b->seen[0].t, 15000 + 60 * 84040 + 1555 + 69290, "first frame at %llu ps",
		     (unsigned long long)b->seen[0].t);
	cr_assert_eq(b->done, 1);
	tfx_pair_free(b);
}

Test(nic_transport, ack_wakes_window_blocked_sibling_pdc_of_its_group, .timeout = 20)
{
	/* A 1 MiB message, then a 4 KiB message to the same peer at 20 us: both PDCs are in one group. An ACK
	 * brings the group back at the head of the ready queue (uet-nic-transport.md, PDC groups and the transmit
	 * scheduler), whichever of its PDCs has work, so the second message is sent and completes. */
	struct tfx_pair *b = pair_new(100 * EMU_PS_PER_NS, NULL, 0, NULL);

	cr_assert_eq(nic_post(b->nic[0], b->neigh[1].ip, 1 << 20, 1, 0), 0);
	emu_sched_run_until(b->np.sched, 20 * US);
	cr_assert_eq(nic_post(b->nic[0], b->neigh[1].ip, 4096, 2, 20 * US), 0);
	emu_sched_run_until(b->np.sched, EMU_PS_NEVER - 1);
	cr_assert_eq(b->done, 2, "both messages complete");
	tfx_pair_free(b);
}

/* Congestion-control page, Loss reactions: a trim NACK's RTT sample (no hold) is offered to the base RTT. The first
 * packet is trimmed, so its NACK is the first feedback: its sample lowers the base to sample + 1 us and the max
 * window to 1.5 x BDP at that base, and the trim then takes one nominal packet off. */
Test(nic_transport, trim_nack_rtt_sample_lowers_the_base_rtt)
{
	const struct net_impair imp[] = { { 1, NET_IMPAIR_TRIM, 0 } };
	struct tfx_pair *b = pair_new(100 * EMU_PS_PER_NS, imp, 1, NULL);
	emu_ps_t sent = 0, nack = 0;
	uint64_t cwnd = 0;

	tfx_pair_run(b, 16 * 4096);
	for (int i = 0; i < b->n_tr && cwnd == 0; i++) {
		const struct nic_trace *t = &b->tr[i];

		if (t->fep_id != 0)
			continue;
		if (t->dir == NIC_TR_TX && t->kind == WIRE_KIND_DATA && sent == 0)
			sent = t->now; /* the first packet's serialization ended */
		else if (t->dir == NIC_TR_RX && t->kind == WIRE_KIND_NACK)
			nack = t->now;
		else if (nack != 0 && t->dir == NIC_TR_RX)
			break; /* any other feedback after the NACK: the window is no longer the NACK's alone */
		else if (nack != 0 && t->dir == NIC_TR_TX && t->kind == WIRE_KIND_DATA && t->now - 84040 > nack)
			cwnd = t->cwnd; /* a row's state is the one its frame started with, 84.04 ns before the row */
	}
	cr_assert(sent != 0 && nack != 0 && cwnd != 0, "a data packet sent between the NACK and the next feedback");
	uint64_t bdp = (uint64_t)((unsigned __int128)400000000000ULL * (nack - sent + EMU_PS_PER_US) /
				  (8 * EMU_PS_PER_S));

	cr_assert_eq(nack - sent, 201240, "the NACK's sample: 100 ns out, the 62 B NACK's 1.24 ns, 100 ns back");
	cr_assert_eq(cwnd, bdp * 3 / 2 - (4096 + 88), "window %lu, want 1.5 x %lu - 4,184", (unsigned long)cwnd,
		     (unsigned long)bdp);
	tfx_pair_free(b);
}
