/* Frames from a remote peer are untrusted (docs/security.md): what a peer claims is believed only when it matches
 * what this NIC sent, and the state a peer can create is bounded and reclaimed. Two NICs back to back; forged
 * packets are handed straight to a NIC's receive entry point, as the decoder would. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <string.h>

#include "net.h"
#include "nic.h"
#include "nic_pair.h"
#include "nic_params.h"

#define US EMU_PS_PER_US
#define KIB 1024u

/* Hand NIC @p to of @p b a packet as if it came from host @p from: its addresses filled in, the rest from @p tpl. */
static void inject(struct tfx_pair *b, int to, int from, const struct wire_pkt *tpl, emu_ps_t now)
{
	struct wire_pkt *p = net_pkt_alloc(&b->np);

	cr_assert_not_null(p);
	*p = *tpl;
	p->src_ip = b->neigh[from].ip;
	p->dst_ip = b->neigh[to].ip;
	memcpy(p->src_mac, b->neigh[from].mac, 6);
	memcpy(p->dst_mac, b->neigh[to].mac, 6);
	nic_dev_ops.receive(b->nic[to], 0, p, now);
}

/* The first data frame host 0 sent: its PSN is the message's start PSN. */
static const struct wire_pkt *first_data(const struct tfx_pair *b)
{
	for (int i = 0; i < b->n_seen; i++)
		if (b->seen[i].dir == 0 && b->seen[i].kind == WIRE_KIND_DATA)
			return &b->seen[i].p;
	cr_assert_fail("no data frame sent");
	return NULL;
}

/* 16 packets of a 64 KiB message are on a 20 us link; host 1 has received none when the forgery arrives. */
static struct tfx_pair *forged_feedback(uint8_t kind, uint32_t psn_past_start)
{
	struct tfx_opts o = { .delay = 20 * US };
	struct tfx_pair *b = tfx_pair_new(&o);
	uint16_t pdc;

	cr_assert_eq(nic_post_pdc(b->nic[0], b->neigh[1].ip, 64 * KIB, 1, 0, &pdc), 0);
	emu_sched_run_until(b->np.sched, 5 * US);
	const struct wire_pkt *d = first_data(b);
	struct wire_pkt f = { .kind = kind, .sport = d->sport };

	f.pds.type = kind == WIRE_KIND_ACK ? WIRE_PDS_ACK_CC : WIRE_PDS_NACK;
	f.pds.psn = d->pds.psn + psn_past_start;
	f.pds.sack_psn_off = 1;
	f.pds.dpdcid = pdc;
	f.pds.spdcid = 1;
	inject(b, 0, 1, &f, 5 * US);
	return b;
}

Test(nic_peer, ack_beyond_sent_refused_and_counted)
{
	struct tfx_pair *b = forged_feedback(WIRE_KIND_ACK, 1000);

	emu_sched_run_until(b->np.sched, 10 * US);
	cr_assert_eq(b->done, 0, "a forged ACK for PSN start + 1000 must not complete the message");
	cr_assert_eq(nic_counters(b->nic[0])[NIC_C_DROP_ACK_BEYOND_SENT], 1);
	emu_sched_run_until(b->np.sched, EMU_PS_NEVER - 1);
	cr_assert_eq(b->done, 1);
	cr_assert_eq(b->recv, 1, "the real transfer still completes");
	tfx_pair_free(b);
}

Test(nic_peer, sack_beyond_sent_refused_and_counted)
{
	struct tfx_pair *b = forged_feedback(WIRE_KIND_ACK, 0);

	/* a cumulative PSN within what was sent, a bitmap reaching 60 PSNs past the 16 sent */
	cr_assert_eq(nic_counters(b->nic[0])[NIC_C_DROP_ACK_BEYOND_SENT], 0);
	struct wire_pkt f = { .kind = WIRE_KIND_ACK };
	f.pds.type = WIRE_PDS_ACK_CC;
	f.pds.psn = first_data(b)->pds.psn + 1;
	f.pds.sack_psn_off = 1;
	f.ack.sack_bitmap = ~0ull;
	f.pds.dpdcid = first_data(b)->pds.spdcid;
	inject(b, 0, 1, &f, 5 * US);
	cr_assert_eq(nic_counters(b->nic[0])[NIC_C_DROP_ACK_BEYOND_SENT], 1);
	emu_sched_run_until(b->np.sched, EMU_PS_NEVER - 1);
	cr_assert_eq(b->done, 1);
	cr_assert_eq(b->recv, 1);
	tfx_pair_free(b);
}

Test(nic_peer, nack_beyond_sent_refused_and_counted)
{
	struct tfx_pair *b = forged_feedback(WIRE_KIND_NACK, 16);

	cr_assert_eq(nic_counters(b->nic[0])[NIC_C_DROP_ACK_BEYOND_SENT], 1, "PSN start + 16 was never sent");
	emu_sched_run_until(b->np.sched, EMU_PS_NEVER - 1);
	cr_assert_eq(b->done, 1);
	tfx_pair_free(b);
}

/* A SYN data packet, the first of a message, from forged source @p ip with sending PDC @p id. */
static void forged_syn(struct tfx_pair *b, uint32_t ip, uint16_t id, emu_ps_t now)
{
	struct wire_pkt f = { .kind = WIRE_KIND_DATA, .sport = 256, .payload_len = 64 };
	struct wire_pkt *p = net_pkt_alloc(&b->np);

	cr_assert_not_null(p);
	f.pds.type = WIRE_PDS_RUD_CC_REQ;
	f.pds.next_hdr = WIRE_NH_REQ_STD;
	f.pds.flags = WIRE_REQ_F_SYN;
	f.pds.psn = 1000;
	f.pds.spdcid = id;
	f.ses.flags = WIRE_SES_F_SOM;
	f.src_ip = ip;
	f.dst_ip = b->neigh[1].ip;
	memcpy(f.dst_mac, b->neigh[1].mac, 6);
	*p = f;
	nic_dev_ops.receive(b->nic[1], 0, p, now);
}

/*
 * 9,000 SYNs from 9,000 forged sources (172.16.x.y, none a neighbour) fill host 1's 4,096 PDCs with half-open
 * receive PDCs; host 0's 64 KiB message then still completes: its SYN evicts the oldest half-open one.
 */
Test(nic_peer, syn_flood_from_many_sources_leaves_room_for_a_real_transfer)
{
	struct tfx_pair *b = tfx_pair_new(NULL);

	for (uint32_t s = 0; s < 9000; s++)
		forged_syn(b, 0xac100000u + s, 1, (emu_ps_t)s * EMU_PS_PER_NS);
	emu_sched_run_until(b->np.sched, 20 * US);
	const uint64_t *c = nic_counters(b->nic[1]);
	cr_assert_eq(c[NIC_C_RCV_PDC_EVICTED_HALF_OPEN], 9000 - 4096, "%llu",
		     (unsigned long long)c[NIC_C_RCV_PDC_EVICTED_HALF_OPEN]);
	cr_assert_eq(nic_post(b->nic[0], b->neigh[1].ip, 64 * KIB, 1, 20 * US), 0);
	emu_sched_run_until(b->np.sched, EMU_PS_NEVER - 1);
	cr_assert_eq(b->done, 1, "the real message completes");
	cr_assert_eq(b->recv, 1);
	tfx_pair_free(b);
}

/* One forged source opening PDC after PDC is held to a quarter of the pool (1,024 of 4,096). */
Test(nic_peer, syn_flood_from_one_source_capped_per_peer)
{
	struct tfx_pair *b = tfx_pair_new(NULL);

	for (uint32_t s = 0; s < 2000; s++)
		forged_syn(b, 0xac100001u, (uint16_t)(1 + s), (emu_ps_t)s * EMU_PS_PER_NS);
	emu_sched_run_until(b->np.sched, 20 * US);
	const uint64_t *c = nic_counters(b->nic[1]);
	cr_assert_eq(c[NIC_C_DROP_RCV_PEER_CAP], 2000 - 1024);
	cr_assert_eq(nic_post(b->nic[0], b->neigh[1].ip, 64 * KIB, 1, 20 * US), 0);
	emu_sched_run_until(b->np.sched, EMU_PS_NEVER - 1);
	cr_assert_eq(b->done, 1);
	tfx_pair_free(b);
}

/*
 * 4,096 forged sources each send two packets, filling host 1's pool with receive PDCs that are no longer half-open.
 * A new SYN soon after finds no room (drop_no_pdc); once they have been idle for 4 x the longest RTO, a real message
 * reclaims one of them (the least recently active) and completes.
 */
Test(nic_peer, idle_receive_pdcs_reclaimed_for_a_new_syn_when_the_pool_is_full)
{
	struct tfx_pair *b = tfx_pair_new(NULL);
	emu_ps_t max_rto = b->p.initial_rto << b->p.max_rto_backoff;

	for (uint32_t s = 0; s < 4096; s++) {
		forged_syn(b, 0xac100000u + s, 1, (emu_ps_t)s * EMU_PS_PER_NS);
		forged_syn(b, 0xac100000u + s, 1, (emu_ps_t)s * EMU_PS_PER_NS + 1);
	}
	emu_sched_run_until(b->np.sched, 20 * US);
	const uint64_t *c = nic_counters(b->nic[1]);
	forged_syn(b, 0xac200000u, 1, 20 * US);
	cr_assert_eq(c[NIC_C_DROP_NO_PDC], 1, "not idle long enough: nothing reclaimed");
	cr_assert_eq(c[NIC_C_RCV_PDC_EVICTED_HALF_OPEN] + c[NIC_C_RCV_PDC_IDLE_RECLAIMED], 0);
	emu_ps_t later = 4 * max_rto + 10 * US;
	emu_sched_run_until(b->np.sched, later);
	cr_assert_eq(nic_post(b->nic[0], b->neigh[1].ip, 64 * KIB, 1, later), 0);
	emu_sched_run_until(b->np.sched, later + 1000 * US); /* bounded: without room the sender retries for ever */
	cr_assert_geq(c[NIC_C_RCV_PDC_IDLE_RECLAIMED], 1);
	cr_assert_eq(b->done, 1, "the real message completes");
	cr_assert_eq(b->recv, 1);
	tfx_pair_free(b);
}

/*
 * Host 0 sends a 64 KiB message (16 packets of 4 KiB) on a 20 us link; once host 1 has its first packet, @p n copies
 * of that packet are forged from host 0's address at PSN start + @p psn_past_start onwards, naming @p req_len and
 * @p offset: host 1 must deliver exactly the message's bytes, each extra counted as data beyond the message.
 */
static struct tfx_pair *forged_data(uint32_t psn_past_start, uint32_t req_len, uint32_t offset, int n)
{
	struct tfx_opts o = { .delay = 20 * US };
	struct tfx_pair *b = tfx_pair_new(&o);
	const uint64_t *c = nic_counters(b->nic[1]);
	emu_ps_t t = 0;

	cr_assert_eq(nic_post(b->nic[0], b->neigh[1].ip, 64 * KIB, 1, 0), 0);
	while (c[NIC_C_WRITE_PKTS_RCVD] == 0 && t < 100 * US)
		emu_sched_run_until(b->np.sched, t += 10 * EMU_PS_PER_NS);
	cr_assert_eq(c[NIC_C_WRITE_PKTS_RCVD], 1, "one packet in when the forgeries come");
	struct wire_pkt f = *first_data(b);

	f.pds.flags &= (uint8_t)~WIRE_REQ_F_SYN;
	f.ses.flags = 0;
	f.ses.request_length = req_len;
	f.ses.message_offset = offset;
	for (int i = 0; i < n; i++) {
		f.pds.psn = first_data(b)->pds.psn + psn_past_start + (uint32_t)i;
		inject(b, 1, 0, &f, t);
	}
	emu_sched_run_until(b->np.sched, 5000 * US); /* bounded: a sender refusing every ACK retries for ever */
	cr_assert_eq(b->done, 1, "the real message completes");
	cr_assert_eq(b->recv, 1);
	cr_assert_eq(c[NIC_C_RX_PAYLOAD_BYTES], 64 * KIB, "forged data must not inflate the payload bytes: %llu",
		     (unsigned long long)c[NIC_C_RX_PAYLOAD_BYTES]);
	cr_assert_eq(b->recv_bytes, 64 * KIB);
	return b;
}

/*
 * Past the message's last PSN, fields consistent, before its EOM came: forgotten when the EOM comes (so the
 * cumulative ACK never names a PSN the sender did not send), and the two real packets whose bytes the forgeries had
 * taken are not delivered again: 2 + 2 counted.
 */
Test(nic_peer, forged_data_past_the_message_adds_no_bytes)
{
	struct tfx_pair *b = forged_data(16, 64 * KIB, 0, 2);

	cr_assert_eq(nic_counters(b->nic[1])[NIC_C_DROP_BEYOND_MESSAGE], 4);
	tfx_pair_free(b);
}

/* Another request_length than the message's, or an offset past its end: refused at once. */
Test(nic_peer, forged_data_naming_another_length_or_offset_refused)
{
	struct tfx_pair *b = forged_data(16, 128 * KIB, 0, 3);

	cr_assert_eq(nic_counters(b->nic[1])[NIC_C_DROP_BEYOND_MESSAGE], 3);
	tfx_pair_free(b);
	b = forged_data(16, 64 * KIB, 64 * KIB - 100, 1);
	cr_assert_eq(nic_counters(b->nic[1])[NIC_C_DROP_BEYOND_MESSAGE], 1);
	tfx_pair_free(b);
}
