/* Delivery on the receiving NIC and retirement on the sender (Scala UET NIC page *Transport*, Receiving a packet,
 * Acknowledgements, Selective acknowledgements): late duplicates of a closed PDC, the ACK's own PSN, PSN ranges
 * past one SACK window. Two NICs back to back, exact numbers. */
#include <criterion/criterion.h>
#include <errno.h>

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
		left_out += a->pds.psn_off > 0 && (d >= 64 || !((a->pds.sack_bitmap >> d) & 1));
	}
	nic_samples(b->nic[0], cum, ivl);
	cr_assert_eq(acks, 100, "one ACK per packet");
	cr_assert_eq(left_out, 18, "ACKs whose SACK block leaves their own PSN out (%d)", left_out);
	cr_assert_eq(cum[NIC_S_RTT_PS].n, 100, "every ACK retired its own packet: %llu RTT samples",
		     (unsigned long long)cum[NIC_S_RTT_PS].n);
	cr_assert_eq(b->done, 1);
	tfx_pair_free(b);
}
