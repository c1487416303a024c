/* Delivery on the receiving NIC and retirement on the sender (Scala UET NIC page *Transport*, Receiving a packet,
 * Acknowledgements, Selective acknowledgements): late duplicates of a closed PDC, the ACK's own PSN, PSN ranges
 * past one SACK window. Two NICs back to back, exact numbers. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdbool.h>

#include "net.h"
#include "nic.h"
#include "nic_pair.h"
#include "nic_params.h"

#define US EMU_PS_PER_US
#define MIB (1u << 20)

/*
 * One 1 MiB message whose data frame @p frame is held back 400 us on the link. Its retransmission timer (150 us)
 * recovers it and the message completes; the workload then closes both ends, as the messages workload does. The
 * held-back copy arrives about 250 us after that. Returns the pair after the run.
 */
static struct tfx_pair *late_copy_run(uint64_t frame, uint16_t *pdc)
{
	const struct net_impair imp[] = { { frame, NET_IMPAIR_DELAY, 400 * US } };
	struct tfx_opts o = { .delay = 100 * EMU_PS_PER_NS, .imp = imp, .n_imp = 1 };
	struct tfx_pair *b = tfx_pair_new(&o);

	cr_assert_eq(nic_post_pdc(b->nic[0], b->neigh[1].ip, MIB, 1, 0, pdc), 0);
	emu_sched_run_until(b->np.sched, 200 * US);
	cr_assert_eq(b->done, 1, "the retransmission completed the message before the late copy arrives");
	cr_assert_eq(nic_close_rcv(b->nic[1], b->neigh[0].ip, *pdc, 200 * US), 0);
	emu_sched_run_until(b->np.sched, EMU_PS_NEVER - 1);
	return b;
}

/* What the late copy must not do: open a receive PDC, deliver its 4,096 B again, draw an ACK. */
static void assert_late_copy_discarded(struct tfx_pair *b)
{
	const uint64_t *rx = nic_counters(b->nic[1]), *tx = nic_counters(b->nic[0]);

	cr_assert_eq(rx[NIC_C_WRITE_PKTS_RCVD], 257, "256 packets, one retransmission, and the late copy");
	cr_assert_eq(rx[NIC_C_RX_PAYLOAD_BYTES], MIB, "1,048,576 B delivered, not %llu",
		     (unsigned long long)rx[NIC_C_RX_PAYLOAD_BYTES]);
	cr_assert_eq(rx[NIC_C_DUP_EVENTS], 1, "the late copy is a duplicate");
	cr_assert_eq(rx[NIC_C_ACK_PKTS_SENT], 257, "256 data ACKs and the probe's: none for the late copy");
	cr_assert_eq(tx[NIC_C_LATE_NO_PDC], 0);
	cr_assert_eq(b->recv, 1, "one message received");
}

Test(nic_rx, late_duplicate_without_syn_opens_no_pdc_and_delivers_nothing)
{
	uint16_t pdc;
	/* frame 100 leaves long after the first ACK named the receiver's PDC: it carries no SYN */
	struct tfx_pair *b = late_copy_run(100, &pdc);

	assert_late_copy_discarded(b);
	cr_assert_eq(nic_close_rcv(b->nic[1], b->neigh[0].ip, pdc, EMU_PS_NEVER - 1), -ENOENT,
		     "no receive PDC was opened for the late copy");
	tfx_pair_free(b);
}

Test(nic_rx, late_duplicate_with_syn_of_a_closed_pdc_delivers_nothing)
{
	uint16_t pdc;
	/* frame 2 leaves before the first ACK returns: it carries SYN and the PSN offset from the PDC's start */
	struct tfx_pair *b = late_copy_run(2, &pdc);

	assert_late_copy_discarded(b);
	cr_assert_eq(nic_close_rcv(b->nic[1], b->neigh[0].ip, pdc, EMU_PS_NEVER - 1), -ENOENT,
		     "no receive PDC was opened for the late copy");
	tfx_pair_free(b);
}

Test(nic_ack, ack_retires_its_own_psn_when_its_sack_block_leaves_it_out)
{
	/* Frame 1 arrives 40 us late, so 99 PSNs past it arrive first: more than one 64-PSN bitmap covers, and the
	 * receiver's ACKs for PSNs +64..+99 report block 0 and block 1 in turn (nic_transport
	 * sack_reports_successive_64_psn_blocks): 18 of them name a PSN their bitmap leaves out. The ACK still
	 * acknowledges it (page *Transport*, What an ACK carries: the acknowledged PSN is the packet that drew the
	 * ACK). Each packet was sent once, so each of the 100 ACKs retires its own packet and gives an RTT sample. */
	const struct net_impair imp[] = { { 1, NET_IMPAIR_DELAY, 40 * US } };
	struct tfx_opts o = { .delay = 100 * EMU_PS_PER_NS, .imp = imp, .n_imp = 1 };
	struct tfx_pair *b = tfx_pair_new(&o);
	struct nic_sample cum[NIC_S_COUNT], ivl[NIC_S_COUNT];
	int acks = 0, left_out = 0;

	tfx_pair_run(b, 100 * 4096);
	for (int i = 0; i < b->n_seen; i++) {
		const struct wire_pkt *a = &b->seen[i].p;
		if (a->kind != WIRE_KIND_ACK || (a->pds.flags & WIRE_ACK_F_P))
			continue;
		uint32_t d = (uint32_t)(int32_t)a->pds.psn_off - (uint32_t)(int32_t)a->pds.sack_psn_off;
		acks++;
		left_out += a->pds.psn_off > 0 && (d >= 64 || !((a->ack.sack_bitmap >> d) & 1));
	}
	nic_samples(b->nic[0], cum, ivl);
	cr_assert_eq(acks, 100, "one ACK per packet");
	cr_assert_eq(left_out, 18, "ACKs whose SACK block leaves their own PSN out (%d)", left_out);
	cr_assert_eq(cum[NIC_S_RTT_PS].n, 100, "every ACK retired its own packet: %llu RTT samples",
		     (unsigned long long)cum[NIC_S_RTT_PS].n);
	cr_assert_eq(b->done, 1);
	tfx_pair_free(b);
}

/* A 3 MB window: InitialBaseRTT 40 us, 1.5 x 400 Gb/s x 40 us = 3,000,000 B (717 nominal packets). */
static void window_3mb(struct nic_params *p)
{
	p->initial_base_rtt = 40 * US;
}

static void window_3mb_pass_through(struct nic_params *p)
{
	window_3mb(p);
	p->cc_pass_through = true;
}

/*
 * One 16 MiB message (4,096 packets) over a link with 20 us of delay each way. Nothing in the pages caps the PSNs a
 * PDC has in flight: the window (3 MB, above the 2 MB bandwidth-delay product) lets the sender keep the link busy,
 * so the packets leave back to back and the message completes one link-full round trip after its last packet:
 *   85.845 ns (doorbell to first frame) + 4,096 x 84.040 ns + 1.240 ns (the probe, between two data frames)
 *   + 20,000 ns + 66.371 ns (the ACK's hold) + 1.560 ns (the ACK) + 20,000 ns = 384,382.856 ns.
 */
static void long_link_run(void (*tune)(struct nic_params *))
{
	struct tfx_opts o = { .delay = 20 * US, .tune = tune };
	struct tfx_pair *b = tfx_pair_new(&o);
	struct nic_sample cum[NIC_S_COUNT], ivl[NIC_S_COUNT];

	tfx_pair_run(b, 16 * MIB);
	nic_samples(b->nic[0], cum, ivl);
	cr_assert_eq(b->done, 1);
	cr_assert_eq(b->done_at, 384382856, "the message completes at %llu ps", (unsigned long long)b->done_at);
	cr_assert_gt(cum[NIC_S_BYTES_IN_FLIGHT].max, 256 * 4184, "more than 256 packets in flight (%llu B)",
		     (unsigned long long)cum[NIC_S_BYTES_IN_FLIGHT].max);
	cr_assert_eq(nic_counters(b->nic[1])[NIC_C_DROP_PSN_OUT_OF_WINDOW], 0);
	tfx_pair_free(b);
}

Test(nic_tx, psns_in_flight_not_capped_at_256_with_a_3mb_window)
{
	long_link_run(window_3mb);
}

Test(nic_tx, psns_in_flight_not_capped_at_256_with_pass_through)
{
	long_link_run(window_3mb_pass_through);
}

Test(nic_rx, out_of_order_psns_tracked_past_256_and_every_sack_block_reported)
{
	/* Frame 1 of a 2,000-packet message arrives 100 us late: frames 2..1,190 overtake it (frame 1 + k leaves
	 * k x 84.04 ns after it: k <= floor(100,000,000 / 84,040) = 1,189), far more than 256 PSNs past CACK_PSN. The
	 * receiver tracks them all, and its ACKs report every non-empty 64-PSN block, 0 to 18 (1,189 / 64), in turn. */
	const struct net_impair imp[] = { { 1, NET_IMPAIR_DELAY, 100 * US } };
	struct tfx_opts o = { .delay = 100 * EMU_PS_PER_NS, .imp = imp, .n_imp = 1 };
	struct tfx_pair *b = tfx_pair_new(&o);
	uint32_t blocks = 0;

	tfx_pair_run(b, 2000 * 4096);
	for (int i = 0; i < b->n_seen; i++) {
		const struct wire_pkt *a = &b->seen[i].p;
		if (a->kind != WIRE_KIND_ACK || (a->pds.flags & WIRE_ACK_F_P) || a->ack.sack_bitmap == 0)
			continue;
		cr_assert_eq((a->pds.sack_psn_off - 1) % 64, 0, "SACK base CACK_PSN + 1 + 64 k");
		cr_assert_lt(a->pds.sack_psn_off, 1 + 64 * 19, "no block past the last out-of-order PSN");
		blocks |= 1u << ((a->pds.sack_psn_off - 1) / 64);
	}
	const uint64_t *c = nic_counters(b->nic[1]);
	cr_assert_eq(blocks, (1u << 19) - 1, "blocks 0..18 each reported (%#x)", blocks);
	cr_assert_eq(c[NIC_C_OOO_EVENTS], 1189);
	cr_assert_eq(c[NIC_C_DUP_EVENTS], 0);
	cr_assert_eq(c[NIC_C_DROP_PSN_OUT_OF_WINDOW] + c[NIC_C_DROP_OOO_POOL_EMPTY], 0);
	cr_assert_eq(c[NIC_C_RX_PAYLOAD_BYTES], 2000 * 4096);
	cr_assert_eq(nic_counters(b->nic[0])[NIC_C_NUM_RTX], 0, "the late frame arrives before its 150 us timer");
	cr_assert_eq(b->done, 1);
	tfx_pair_free(b);
}

static bool mark_trim, mark_distinct;

static void marking(struct nic_params *p)
{
	p->trimming_enabled = mark_trim;
	p->use_distinct_dscp_rtx = mark_distinct;
}

/* The codepoints of the first transmission and of the retransmission of a packet whose first copy is lost. */
static void marks(bool trim, bool distinct, uint8_t *first, uint8_t *rtx)
{
	const struct net_impair imp[] = { { 1, NET_IMPAIR_DROP, 0 } };
	struct tfx_opts o = { .delay = 100 * EMU_PS_PER_NS, .imp = imp, .n_imp = 1, .tune = marking };
	struct tfx_pair *b;

	mark_trim = trim;
	mark_distinct = distinct;
	b = tfx_pair_new(&o);
	tfx_pair_run(b, 2 * 4096);
	*first = *rtx = 0xff;
	for (int i = 0; i < b->n_seen; i++)
		if (b->seen[i].kind == WIRE_KIND_DATA && b->seen[i].dir == 0)
			*((b->seen[i].flags & WIRE_REQ_F_RETX) ? rtx : first) = b->seen[i].p.dscp;
	cr_assert_eq(b->done, 1);
	tfx_pair_free(b);
}

Test(nic_tx, marking_table_retransmissions_trimmable_rtx_whatever_trimming_enabled)
{
	/* Page *Transport*, Packet marking: a first transmission is trimmable (8) with TrimmingEnabled, no-trim (0)
	 * without; a retransmission is trimmable-retransmission (10) with UseDistinctDSCPForRetransmits, "whatever
	 * TrimmingEnabled is", otherwise the same as its first transmission. */
	static const struct { bool trim, distinct; uint8_t first, rtx; } want[] = {
		{ false, true, 0, 10 }, { true, true, 8, 10 }, { false, false, 0, 0 }, { true, false, 8, 8 },
	};

	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		uint8_t first, rtx;
		marks(want[i].trim, want[i].distinct, &first, &rtx);
		cr_assert_eq(first, want[i].first, "TrimmingEnabled %d, distinct %d: first transmission DSCP %u",
			     want[i].trim, want[i].distinct, first);
		cr_assert_eq(rtx, want[i].rtx, "TrimmingEnabled %d, distinct %d: retransmission DSCP %u", want[i].trim,
			     want[i].distinct, rtx);
	}
}

/* hooks.msg_sent (the Chakra workload's send completion, docs/chakra.md): once per message, when its last packet's
 * first serialization ends, before the acknowledgment. */
Test(nic_tx, last_byte_sent_reported_once_after_the_last_data_frame_and_before_the_ack)
{
	struct tfx_pair *b = tfx_pair_new(NULL);
	emu_ps_t last = 0;

	tfx_pair_run(b, MIB);
	for (int i = 0; i < b->n_seen; i++)
		if (b->seen[i].dir == 0 && b->seen[i].kind == WIRE_KIND_DATA)
			last = b->seen[i].t;
	cr_assert_eq(b->done, 1);
	cr_expect_eq(b->sent, 1);
	cr_expect_gt(b->sent_at, last, "reported at %llu ps, the last data frame went at %llu ps",
		     (unsigned long long)b->sent_at, (unsigned long long)last);
	cr_expect_lt(b->sent_at, b->done_at);
	tfx_pair_free(b);
}

/* A lost last packet: reported at its first transmission, not again when the retransmission goes. */
Test(nic_tx, last_byte_sent_not_reported_again_by_a_retransmission)
{
	const struct net_impair imp[] = { { 1, NET_IMPAIR_DROP, 0 } };
	struct tfx_opts o = { .imp = imp, .n_imp = 1 };
	struct tfx_pair *b = tfx_pair_new(&o);
	emu_ps_t resent = 0;
	int n = 0;

	tfx_pair_run(b, 4096);
	/* the tap sees a frame as its serialization starts, and not the dropped first copy */
	for (int i = 0; i < b->n_seen; i++)
		if (b->seen[i].dir == 0 && b->seen[i].kind == WIRE_KIND_DATA)
			resent = b->seen[i].t, n++;
	cr_assert_eq(b->done, 1);
	cr_assert_eq(n, 1, "only the retransmission reached the tap");
	cr_expect_eq(nic_counters(b->nic[0])[NIC_C_WRITE_PKTS_SENT], 2, "the one packet was sent twice");
	cr_expect_eq(b->sent, 1);
	cr_expect_gt(b->sent_at, 0);
	cr_expect_lt(b->sent_at, resent, "reported at %llu ps, the retransmission went at %llu ps",
		     (unsigned long long)b->sent_at, (unsigned long long)resent);
	tfx_pair_free(b);
}
