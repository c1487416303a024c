/* The UET 1.0 forms other than uetemu's own (docs/wire.md, What the NIC model does with them): hand-built
 * descriptors of each form handed to host 1's receive entry point as the decoder would, and the exact frame it
 * answers with (type, flags, PSNs, PDC ids, NACK code, SES response). Two NICs back to back (tests/lib). */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <string.h>

#include "net.h"
#include "nic.h"
#include "nic_pair.h"
#include "nic_params.h"
#include "wire.h"

#define US EMU_PS_PER_US
#define START 0x00010000u  /* the initiator's Start_PSN: any value (here not one uetemu would draw) */
#define RCV_ID 32769       /* the first receive PDC id a NIC gives (uet-nic-records, Identifying a PDC) */

/* Hand NIC @p to a packet as if from host @p from (addresses filled in, the rest from @p tpl) at @p now, once
 * everything before @p now has run. */
static void inject(struct tfx_pair *b, int to, int from, const struct wire_pkt *tpl, emu_ps_t now)
{
	emu_sched_run_until(b->np.sched, now);
	struct wire_pkt *p = net_pkt_alloc(&b->np);

	cr_assert_not_null(p);
	*p = *tpl;
	p->src_ip = b->neigh[from].ip;
	p->dst_ip = b->neigh[to].ip;
	memcpy(p->src_mac, b->neigh[from].mac, 6);
	memcpy(p->dst_mac, b->neigh[to].mac, 6);
	nic_dev_ops.receive(b->nic[to], 0, p, now);
}

/* A single-packet RUD-family request of @p payload bytes: SES standard, SEND, SOM + EOM, job 1, index 15. */
static struct wire_pkt req(uint8_t type, uint8_t flags, uint32_t psn, uint16_t spdcid, uint16_t dpdcid,
			   uint32_t payload)
{
	struct wire_pkt p = { .kind = WIRE_KIND_UET, .payload_len = payload, .ecn = WIRE_ECN_ECT1, .sport = 300 };

	p.pds.type = type;
	p.pds.next_hdr = WIRE_NH_REQ_STD;
	p.pds.flags = flags;
	p.pds.psn = psn;
	p.pds.spdcid = spdcid;
	p.pds.dpdcid = dpdcid;
	p.ses.opcode = WIRE_SES_OP_SEND;
	p.ses.flags = WIRE_SES_F_SOM | WIRE_SES_F_EOM;
	p.ses.message_id = 0x42;
	p.ses.job_id = 1;
	p.ses.resource_index = 15;
	p.ses.request_length = payload;
	return p;
}

/* Run until nothing is left; the frames host 1 sent from index @p from on, in @p out (at most @p max); how many. */
static int answers(struct tfx_pair *b, int from, const struct wire_pkt **out, int max)
{
	int n = 0;

	emu_sched_run_until(b->np.sched, EMU_PS_NEVER - 1);
	for (int i = from; i < b->n_seen && n < max; i++)
		if (b->seen[i].dir == 1)
			out[n++] = &b->seen[i].p;
	return n;
}

static const uint64_t *uev(const struct tfx_pair *b, int i)
{
	return nic_uet_rx(b->nic[i])->ev;
}

/* The frame @p p encodes and decodes back as the same UET 1.0 form: a legal frame a real peer can read. */
static void assert_legal(const struct wire_pkt *p, uint8_t type, uint8_t nh)
{
	uint8_t buf[WIRE_MAX_FRAME];
	struct wire_pkt d;
	int n = wire_encode(p, buf, sizeof(buf));

	cr_assert_gt(n, 0, "encodes (%d)", n);
	cr_assert_eq(wire_decode(buf, (size_t)n, WIRE_UDP_PORT_UET, &d), WIRE_R_OK);
	cr_assert_eq(d.pds.type, type, "PDS type %u", d.pds.type);
	cr_assert_eq(d.pds.next_hdr, nh, "next_hdr %u", d.pds.next_hdr);
}

Test(nic_pds, rud_req_syn_opens_pdc_at_initiators_start_psn_and_ack_names_target_pdc)
{
	struct tfx_pair *b = tfx_pair_new(NULL);
	const struct wire_pkt *a[4];
	/* the second packet of a message whose Start_PSN is START arrives first: psn_offset 1 in the DPDCID slot */
	struct wire_pkt r = req(WIRE_PDS_RUD_REQ, WIRE_REQ_F_SYN | WIRE_REQ_F_AR, START + 1, 7, 1, 64);

	r.ses.flags = WIRE_SES_F_EOM;
	r.ses.message_offset = 64;
	r.ses.payload_length = 64;
	r.ses.request_length = 128;
	inject(b, 1, 0, &r, 0);
	cr_assert_eq(answers(b, 0, a, 4), 1);
	cr_assert_eq(a[0]->kind, WIRE_KIND_ACK, "ACK_CC, the NIC's ACK form");
	cr_assert_eq(a[0]->pds.psn, START - 1, "CACK_PSN = Start_PSN - 1: nothing in order yet (%#x)", a[0]->pds.psn);
	cr_assert_eq(a[0]->pds.psn_off, 2, "ack_psn_offset to the PSN that asked");
	cr_assert_eq(a[0]->pds.sack_psn_off, 1);
	cr_assert_eq(a[0]->ack.sack_bitmap, 2, "SACK bit 1: START + 1");
	cr_assert_eq(a[0]->pds.spdcid, RCV_ID, "the target's PDC id in SPDCID");
	cr_assert_eq(a[0]->pds.dpdcid, 7);
	/* the first packet, SYN and psn_offset 0: in order, the message whole */
	r = req(WIRE_PDS_RUD_REQ, WIRE_REQ_F_SYN | WIRE_REQ_F_AR, START, 7, 0, 64);
	r.ses.request_length = 128;
	r.ses.flags = WIRE_SES_F_SOM;
	int seen = b->n_seen;
	inject(b, 1, 0, &r, 10 * US);
	cr_assert_eq(answers(b, seen, a, 4), 1);
	cr_assert_eq(a[0]->pds.psn, START + 1, "CACK_PSN past both");
	cr_assert_eq(a[0]->pds.psn_off, -1);
	cr_assert_eq(b->recv, 1, "the message reached the host");
	cr_assert_eq(b->recv_bytes, 128);
	cr_assert_eq(uev(b, 1)[NIC_UE_REQ_DELIVERED], 2);
	cr_assert_eq(nic_uet_rx(b->nic[1])->not_used[WIRE_PC_RUD_REQ], 0, "no longer not_used");
	tfx_pair_free(b);
}

Test(nic_pds, request_without_syn_for_no_pdc_nacked_inv_dpdcid)
{
	struct tfx_pair *b = tfx_pair_new(NULL);
	const struct wire_pkt *a[4];
	struct wire_pkt r = req(WIRE_PDS_RUD_REQ, WIRE_REQ_F_AR | WIRE_REQ_F_RETX, START, 9, 0x1234, 64);

	inject(b, 1, 0, &r, 0);
	cr_assert_eq(answers(b, 0, a, 4), 1);
	cr_assert_eq(a[0]->kind, WIRE_KIND_NACK);
	cr_assert_eq(a[0]->pds.nack_code, WIRE_NACK_INV_DPDCID);
	cr_assert_eq(a[0]->pds.flags, WIRE_NACK_F_RETX, "RETX echoed");
	cr_assert_eq(a[0]->pds.psn, START);
	cr_assert_eq(a[0]->pds.spdcid, 0, "no PDC of the target's");
	cr_assert_eq(a[0]->pds.dpdcid, 9);
	cr_assert_eq(uev(b, 1)[NIC_UE_NACK_INV_DPDCID], 1);
	cr_assert_eq(nic_counters(b->nic[1])[NIC_C_RX_PAYLOAD_BYTES], 0);
	tfx_pair_free(b);
}

Test(nic_pds, rod_takes_only_the_next_psn_and_nacks_rod_ooo)
{
	struct tfx_pair *b = tfx_pair_new(NULL);
	const struct wire_pkt *a[4];
	struct wire_pkt r = req(WIRE_PDS_ROD_REQ, WIRE_REQ_F_SYN | WIRE_REQ_F_AR, START + 2, 11, 2, 64);

	/* PSN START + 2 before START: a ROD target NACKs it ROD_OOO with the PSN it expects, and opens the PDC */
	inject(b, 1, 0, &r, 0);
	cr_assert_eq(answers(b, 0, a, 4), 1);
	cr_assert_eq(a[0]->kind, WIRE_KIND_NACK);
	cr_assert_eq(a[0]->pds.nack_code, WIRE_NACK_ROD_OOO);
	cr_assert_eq(a[0]->pds.psn, START + 2);
	cr_assert_eq(a[0]->pds.payload, START, "the next expected PSN");
	cr_assert_eq(a[0]->pds.spdcid, RCV_ID);
	cr_assert_eq(a[0]->pds.dpdcid, 11);
	cr_assert_eq(nic_counters(b->nic[1])[NIC_C_RX_PAYLOAD_BYTES], 0, "nothing delivered out of order");
	/* then START in order: taken and ACKed */
	r = req(WIRE_PDS_ROD_REQ, WIRE_REQ_F_SYN | WIRE_REQ_F_AR, START, 11, 0, 64);
	int seen = b->n_seen;
	inject(b, 1, 0, &r, 10 * US);
	cr_assert_eq(answers(b, seen, a, 4), 1);
	cr_assert_eq(a[0]->kind, WIRE_KIND_ACK);
	cr_assert_eq(a[0]->pds.psn, START);
	cr_assert_eq(b->recv, 1);
	/* a RUD request on the ROD PDC: PDC_MODE_MISMATCH */
	r = req(WIRE_PDS_RUD_REQ, WIRE_REQ_F_AR, START + 1, 11, RCV_ID, 64);
	seen = b->n_seen;
	inject(b, 1, 0, &r, 20 * US);
	cr_assert_eq(answers(b, seen, a, 4), 1);
	cr_assert_eq(a[0]->pds.nack_code, WIRE_NACK_PDC_MODE_MISMATCH);
	cr_assert_eq(uev(b, 1)[NIC_UE_NACK_ROD_OOO], 1);
	tfx_pair_free(b);
}

Test(nic_pds, psn_past_the_window_nacked_psn_oor_window)
{
	struct tfx_pair *b = tfx_pair_new(NULL);
	const struct wire_pkt *a[4];
	struct wire_pkt r = req(WIRE_PDS_RUD_CC_REQ, WIRE_REQ_F_SYN | WIRE_REQ_F_AR, START, 12, 0, 64);

	r.pds.next_hdr = WIRE_NH_REQ_SMALL; /* a RUD_CC request of another SES form: not uetemu's own */
	inject(b, 1, 0, &r, 0);
	r = req(WIRE_PDS_RUD_CC_REQ, WIRE_REQ_F_AR, START + 40000, 12, RCV_ID, 64);
	r.pds.next_hdr = WIRE_NH_REQ_SMALL;
	inject(b, 1, 0, &r, 1 * US);
	cr_assert_eq(answers(b, 0, a, 4), 2);
	cr_assert_eq(a[0]->kind, WIRE_KIND_ACK, "the SYN's");
	cr_assert_eq(a[1]->kind, WIRE_KIND_NACK);
	cr_assert_eq(a[1]->pds.nack_code, WIRE_NACK_PSN_OOR_WINDOW);
	cr_assert_eq(a[1]->pds.psn, START + 40000);
	cr_assert_eq(a[1]->pds.payload, START + 1);
	tfx_pair_free(b);
}

Test(nic_pds, acks_coalesce_to_ack_gen_trigger_and_go_at_once_on_ecn_ce)
{
	struct tfx_pair *b = tfx_pair_new(NULL);
	const struct wire_pkt *a[8];
	struct wire_pkt r = req(WIRE_PDS_RUD_REQ, WIRE_REQ_F_SYN, START, 13, 0, 1000);

	/* 20 packets of one message, SYN on the first only, no AR: the SYN is ACKed; then each adds its IP size,
	 * 1,084 B (20 + 8 + 12 + 44 + 1,000): 16 x 1,084 = 17,344 >= 16,384 after the 16th (spec 1.7) */
	r.ses.flags = WIRE_SES_F_SOM;
	r.ses.request_length = 20000;
	inject(b, 1, 0, &r, 0);
	for (uint32_t i = 1; i < 20; i++) {
		r = req(WIRE_PDS_RUD_REQ, 0, START + i, 13, RCV_ID, 1000);
		r.ses.flags = i == 19 ? WIRE_SES_F_EOM : 0;
		r.ses.request_length = 20000;
		r.ses.message_offset = 1000 * i;
		r.ses.payload_length = 1000;
		if (i == 18)
			r.ecn = WIRE_ECN_CE;
		inject(b, 1, 0, &r, i * US);
	}
	int n = answers(b, 0, a, 8);
	cr_assert_eq(n, 3, "the SYN's, the 16th's, the ECN-CE one's (%d)", n);
	cr_assert_eq(a[0]->pds.psn, START);
	cr_assert_eq(a[1]->pds.psn, START + 16, "ACK after 16 packets past the SYN's (CACK %#x)", a[1]->pds.psn);
	cr_assert_eq(a[2]->pds.psn, START + 18);
	cr_assert_eq(a[2]->pds.flags & WIRE_ACK_F_M, WIRE_ACK_F_M, "M: the acked packet was CE");
	cr_assert_eq(uev(b, 1)[NIC_UE_ACK_COALESCED], 17);
	cr_assert_eq(b->recv, 1);
	cr_assert_eq(b->recv_bytes, 20000);
	tfx_pair_free(b);
}

static void tune_refprov_acks(struct nic_params *p)
{
	p->ack_form = NIC_ACK_FORM_PLAIN;
	p->ack_ses_response = true;
}

Test(nic_pds, plain_ack_with_ses_response_as_the_reference_provider_sends)
{
	struct tfx_opts o = { .tune = tune_refprov_acks };
	struct tfx_pair *b = tfx_pair_new(&o);
	const struct wire_pkt *a[4];
	struct wire_pkt r = req(WIRE_PDS_RUD_REQ, WIRE_REQ_F_SYN | WIRE_REQ_F_AR, START, 14, 0, 64);

	r.ses.message_id = 0x77;
	r.ses.ri_generation = 3;
	inject(b, 1, 0, &r, 0);
	cr_assert_eq(answers(b, 0, a, 4), 1);
	cr_assert_eq(a[0]->kind, WIRE_KIND_UET);
	cr_assert_eq(a[0]->pds.type, WIRE_PDS_ACK, "the 12 B ACK");
	cr_assert_eq(a[0]->pds.next_hdr, WIRE_NH_RESPONSE);
	cr_assert_eq(a[0]->pds.psn, START);
	cr_assert_eq(a[0]->pds.spdcid, RCV_ID);
	cr_assert_eq(a[0]->pds.dpdcid, 14);
	cr_assert_eq(a[0]->rsp.opcode, WIRE_RSP_RESPONSE);
	cr_assert_eq(a[0]->rsp.return_code, WIRE_SES_RC_OK);
	cr_assert_eq(a[0]->rsp.message_id, 0x77);
	cr_assert_eq(a[0]->rsp.ri_generation, 3);
	cr_assert_eq(a[0]->rsp.job_id, 1);
	cr_assert_eq(a[0]->rsp.modified_length, 64);
	cr_assert_eq(wire_frame_len(a[0]), 14 + 20 + 8 + 12 + 12, "Eth + IPv4 + UDP + ACK 12 + response 12");
	assert_legal(a[0], WIRE_PDS_ACK, WIRE_NH_RESPONSE);
	/* an operation the model does not run: acknowledged, RC UNSUPPORTED_OP, nothing delivered */
	r = req(WIRE_PDS_RUD_REQ, WIRE_REQ_F_AR, START + 1, 14, RCV_ID, 0);
	r.ses.opcode = WIRE_SES_OP_READ;
	int seen = b->n_seen;
	inject(b, 1, 0, &r, 10 * US);
	cr_assert_eq(answers(b, seen, a, 4), 1);
	cr_assert_eq(a[0]->rsp.return_code, WIRE_SES_RC_UNSUPPORTED_OP);
	cr_assert_eq(a[0]->pds.psn, START + 1);
	cr_assert_eq(uev(b, 1)[NIC_UE_REQ_NO_DELIVERY], 1);
	tfx_pair_free(b);
}

Test(nic_pds, rudi_answered_by_rudi_resp_and_uud_delivered_unanswered)
{
	struct tfx_pair *b = tfx_pair_new(NULL);
	const struct wire_pkt *a[4];
	struct wire_pkt r = req(WIRE_PDS_RUDI_REQ, WIRE_RUDI_F_RETX, 0x99887766, 0, 0, 64);

	r.ecn = WIRE_ECN_CE;
	inject(b, 1, 0, &r, 0);
	cr_assert_eq(answers(b, 0, a, 4), 1);
	cr_assert_eq(a[0]->kind, WIRE_KIND_UET);
	cr_assert_eq(a[0]->pds.type, WIRE_PDS_RUDI_RESP);
	cr_assert_eq(a[0]->pds.psn, 0x99887766, "the request's pkt_id");
	cr_assert_eq(a[0]->pds.flags, WIRE_RUDI_F_M | WIRE_RUDI_F_RETX);
	cr_assert_eq(a[0]->pds.next_hdr, WIRE_NH_RESPONSE);
	cr_assert_eq(a[0]->rsp.return_code, WIRE_SES_RC_OK);
	assert_legal(a[0], WIRE_PDS_RUDI_RESP, WIRE_NH_RESPONSE);
	r = req(WIRE_PDS_UUD_REQ, 0, 0, 0, 0, 64);
	r.ses.opcode = WIRE_SES_OP_DATAGRAM_SEND;
	int seen = b->n_seen;
	inject(b, 1, 0, &r, 10 * US);
	cr_assert_eq(answers(b, seen, a, 4), 0, "UUD: no answer");
	cr_assert_eq(nic_counters(b->nic[1])[NIC_C_RX_PAYLOAD_BYTES], 128, "both payloads delivered");
	cr_assert_eq(uev(b, 1)[NIC_UE_UUD_DELIVERED], 1);
	/* a trimmed RUDI request: NACK with NT, its pkt_id, PDC ids 0 */
	r = req(WIRE_PDS_RUDI_REQ, 0, 5, 0, 0, 0);
	r.trim_len = 8;
	r.dscp = b->p.dscp.dscp[WIRE_ROLE_TRIMMED];
	seen = b->n_seen;
	inject(b, 1, 0, &r, 20 * US);
	cr_assert_eq(answers(b, seen, a, 4), 1);
	cr_assert_eq(a[0]->kind, WIRE_KIND_NACK);
	cr_assert_eq(a[0]->pds.flags, WIRE_NACK_F_NT);
	cr_assert_eq(a[0]->pds.nack_code, WIRE_NACK_TRIMMED);
	cr_assert_eq(a[0]->pds.psn, 5);
	tfx_pair_free(b);
}

Test(nic_pds, trimmed_rud_req_nacked_trimmed_with_its_psn)
{
	struct tfx_pair *b = tfx_pair_new(NULL);
	const struct wire_pkt *a[4];
	struct wire_pkt r = req(WIRE_PDS_RUD_REQ, WIRE_REQ_F_SYN | WIRE_REQ_F_AR, START, 15, 0, 0);

	r.trim_len = WIRE_PDS_REQ_LEN;
	r.dscp = b->p.dscp.dscp[WIRE_ROLE_TRIMMED_LASTHOP];
	inject(b, 1, 0, &r, 0);
	cr_assert_eq(answers(b, 0, a, 4), 1);
	cr_assert_eq(a[0]->kind, WIRE_KIND_NACK);
	cr_assert_eq(a[0]->pds.nack_code, WIRE_NACK_TRIMMED_LASTHOP);
	cr_assert_eq(a[0]->pds.psn, START);
	cr_assert_eq(a[0]->pds.spdcid, RCV_ID);
	cr_assert_eq(a[0]->pds.dpdcid, 15);
	tfx_pair_free(b);
}

/* Host 0 sends one 4,096 B message on a 20 us link; at 5 us, before host 1 has it, feedback @p f (PSNs relative to
 * the message's first, PDC ids filled in) reaches host 0. */
static struct tfx_pair *feedback_run(struct wire_pkt *f, uint32_t psn_past)
{
	struct tfx_opts o = { .delay = 20 * US };
	struct tfx_pair *b = tfx_pair_new(&o);
	uint16_t pdc;

	cr_assert_eq(nic_post_pdc(b->nic[0], b->neigh[1].ip, 4096, 1, 0, &pdc), 0);
	emu_sched_run_until(b->np.sched, 5 * US);
	cr_assert_eq(b->seen[0].kind, WIRE_KIND_DATA);
	f->pds.psn = b->seen[0].p.pds.psn + psn_past;
	f->pds.dpdcid = pdc;
	f->pds.spdcid = 0x55;
	f->sport = b->seen[0].p.sport;
	inject(b, 0, 1, f, 5 * US);
	return b;
}

Test(nic_pds, plain_ack_matching_the_outstanding_pdc_completes_the_message)
{
	struct wire_pkt f = { .kind = WIRE_KIND_UET };

	f.pds.type = WIRE_PDS_ACK;
	f.pds.next_hdr = WIRE_NH_RESPONSE;
	f.rsp.opcode = WIRE_RSP_RESPONSE;
	f.rsp.return_code = WIRE_SES_RC_OK;
	struct tfx_pair *b = feedback_run(&f, 0);
	cr_assert_eq(b->done, 1, "the plain ACK acknowledged the message's only PSN");
	cr_assert_eq(uev(b, 0)[NIC_UE_ACK_FORM_RCVD], 1);
	tfx_pair_free(b);
	/* one naming a PSN not sent is believed in nothing */
	f.pds.type = WIRE_PDS_ACK_CCX;
	b = feedback_run(&f, 1);
	cr_assert_eq(b->done, 0);
	cr_assert_eq(nic_counters(b->nic[0])[NIC_C_DROP_ACK_BEYOND_SENT], 1);
	emu_sched_run_until(b->np.sched, EMU_PS_NEVER - 1);
	cr_assert_eq(b->done, 1, "the real ACK still completes it");
	tfx_pair_free(b);
}

Test(nic_pds, nack_codes_retransmit_or_restart_the_pdc)
{
	struct wire_pkt f = { .kind = WIRE_KIND_NACK };

	f.pds.type = WIRE_PDS_NACK;
	f.pds.nack_code = WIRE_NACK_NO_PKT_BUFFER;
	struct tfx_pair *b = feedback_run(&f, 0);
	emu_sched_run_until(b->np.sched, EMU_PS_NEVER - 1);
	cr_assert_eq(uev(b, 0)[NIC_UE_NACK_RTX], 1);
	cr_assert_eq(nic_counters(b->nic[0])[NIC_C_NUM_RTX], 1, "the PSN went again");
	cr_assert_eq(b->done, 1);
	tfx_pair_free(b);
	f.pds.nack_code = WIRE_NACK_INV_DPDCID; /* PDC_FATAL: start again with SYN */
	b = feedback_run(&f, 0);
	emu_sched_run_until(b->np.sched, EMU_PS_NEVER - 1);
	cr_assert_eq(uev(b, 0)[NIC_UE_NACK_PDC_RESTART], 1);
	int syn = 0;
	for (int i = 0; i < b->n_seen; i++)
		syn += b->seen[i].dir == 0 && b->seen[i].kind == WIRE_KIND_DATA && (b->seen[i].flags & WIRE_REQ_F_SYN);
	cr_assert_eq(syn, 2, "the first copy and the retransmission both carry SYN (%d)", syn);
	cr_assert_eq(b->done, 1);
	tfx_pair_free(b);
	f.pds.nack_code = 0xfd; /* experimental: ignored */
	b = feedback_run(&f, 0);
	cr_assert_eq(uev(b, 0)[NIC_UE_NACK_CODE_IGNORED], 1);
	tfx_pair_free(b);
}

static struct wire_pkt cp(uint8_t ctl, uint32_t psn, uint16_t spdcid, uint16_t dpdcid)
{
	struct wire_pkt p = { .kind = WIRE_KIND_UET, .sport = 301 };

	p.pds.type = WIRE_PDS_CP;
	p.pds.next_hdr = ctl;
	p.pds.flags = WIRE_CP_F_AR;
	p.pds.psn = psn;
	p.pds.spdcid = spdcid;
	p.pds.dpdcid = dpdcid;
	return p;
}

Test(nic_pds, control_packets_ack_req_clear_close_and_unsupported_ones)
{
	struct tfx_pair *b = tfx_pair_new(NULL);
	const struct wire_pkt *a[8];
	struct wire_pkt r = req(WIRE_PDS_RUD_REQ, WIRE_REQ_F_SYN, START, 16, 0, 64);

	inject(b, 1, 0, &r, 0); /* opens the PDC; its SYN is ACKed */
	struct wire_pkt c = cp(WIRE_CTL_ACK_REQ, START + 1, 16, RCV_ID);
	inject(b, 1, 0, &c, 1 * US);
	c = cp(WIRE_CTL_CLEAR, START + 1, 16, RCV_ID);
	c.pds.payload = START;
	inject(b, 1, 0, &c, 2 * US);
	c = cp(WIRE_CTL_NOOP, 0, 16, RCV_ID);
	inject(b, 1, 0, &c, 3 * US);
	c = cp(WIRE_CTL_CREDIT_REQ, START + 1, 16, RCV_ID);
	inject(b, 1, 0, &c, 4 * US);
	c = cp(WIRE_CTL_CLOSE, START + 1, 16, RCV_ID);
	inject(b, 1, 0, &c, 5 * US);
	c = cp(WIRE_CTL_ACK_REQ, START + 1, 16, RCV_ID); /* after CLOSE: no such PDC */
	inject(b, 1, 0, &c, 6 * US);
	int n = answers(b, 0, a, 8);
	cr_assert_eq(n, 6, "SYN ACK, ACK_REQ ACK, CLEAR ACK, CREDIT_REQ NACK, CLOSE ACK, INV_DPDCID (%d)", n);
	for (int i = 1; i <= 2; i++) {
		cr_assert_eq(a[i]->kind, WIRE_KIND_ACK);
		cr_assert_eq(a[i]->pds.psn, START, "CACK_PSN");
		cr_assert_eq(a[i]->pds.psn_off, 0, "no PSN of the CP's acknowledged");
		cr_assert_eq(a[i]->pds.spdcid, RCV_ID);
		cr_assert_eq(a[i]->pds.dpdcid, 16);
	}
	cr_assert_eq(a[3]->kind, WIRE_KIND_NACK);
	cr_assert_eq(a[3]->pds.nack_code, WIRE_NACK_UNEXP_EVENT);
	cr_assert_eq(a[4]->kind, WIRE_KIND_ACK);
	cr_assert_eq(a[5]->pds.nack_code, WIRE_NACK_INV_DPDCID);
	cr_assert_eq(uev(b, 1)[NIC_UE_CP_NOOP], 1);
	cr_assert_eq(uev(b, 1)[NIC_UE_CP_CLOSE], 1);
	tfx_pair_free(b);
}

Test(nic_pds, clear_req_answered_with_clear_and_close_req_for_no_pdc_nacked)
{
	struct tfx_opts o = { .delay = 20 * US };
	struct tfx_pair *b = tfx_pair_new(&o);
	const struct wire_pkt *a[64];
	uint16_t pdc;

	cr_assert_eq(nic_post_pdc(b->nic[0], b->neigh[1].ip, 4096, 1, 0, &pdc), 0);
	emu_sched_run_until(b->np.sched, 5 * US);
	uint32_t psn = b->seen[0].p.pds.psn;
	struct wire_pkt c = cp(WIRE_CTL_CLEAR_REQ, 0, 0x55, pdc);
	inject(b, 0, 1, &c, 5 * US);
	c = cp(WIRE_CTL_CLOSE_REQ, 0, 0x55, pdc); /* message in flight: CLOSE goes when it completes */
	inject(b, 0, 1, &c, 6 * US);
	c = cp(WIRE_CTL_CLOSE_REQ, 0, 0x55, 999);
	inject(b, 0, 1, &c, 7 * US);
	emu_sched_run_until(b->np.sched, EMU_PS_NEVER - 1);
	int clear = 0, close = 0, inv = 0;
	for (int i = 0; i < b->n_seen; i++) {
		const struct wire_pkt *p = &b->seen[i].p;
		if (b->seen[i].dir != 0)
			continue;
		if (p->kind == WIRE_KIND_UET && p->pds.type == WIRE_PDS_CP && p->pds.next_hdr == WIRE_CTL_CLEAR) {
			clear++;
			cr_assert_eq(p->pds.payload, psn - 1, "CLEAR: every PSN before the outstanding one");
			cr_assert_eq(p->pds.spdcid, pdc);
			cr_assert_eq(p->pds.dpdcid, 0x55, "the target's id, from its CLEAR_REQ");
			assert_legal(p, WIRE_PDS_CP, WIRE_CTL_CLEAR);
		}
		close += p->kind == WIRE_KIND_UET && p->pds.type == WIRE_PDS_CP && p->pds.next_hdr == WIRE_CTL_CLOSE;
		inv += p->kind == WIRE_KIND_NACK && p->pds.nack_code == WIRE_NACK_INV_DPDCID;
	}
	(void)a;
	cr_assert_eq(clear, 1);
	cr_assert_eq(close, 1, "CLOSE once the message completed");
	cr_assert_eq(inv, 1);
	cr_assert_eq(b->done, 1);
	tfx_pair_free(b);
}

Test(nic_pds, default_forms_leave_the_new_counts_at_zero)
{
	struct tfx_pair *b = tfx_pair_new(NULL);

	tfx_pair_run(b, 256 * 1024);
	for (int i = 0; i < 2; i++)
		for (int e = 1; e < NIC_UE_COUNT; e++)
			cr_assert_eq(uev(b, i)[e], 0, "%s on NIC %d", nic_uet_event_name(e), i);
	cr_assert_eq(b->done, 1);
	tfx_pair_free(b);
}

Test(nic_pds, default_sender_completes_with_a_receiver_answering_in_plain_acks_with_ses_responses)
{
	/* host 1 answers as the UEC reference provider does (plain 12 B ACKs, each with an SES response); host 0 is a
	 * default NIC: a 256 KiB message (64 packets) completes on those ACKs alone */
	struct tfx_pair *b = tfx_pair_new(NULL);
	static struct nic_params p1;
	p1 = b->p;
	p1.ack_form = NIC_ACK_FORM_PLAIN;
	p1.ack_ses_response = true;
	struct nic_env env = tfx_nic_env(&b->np, &p1, b->neigh, 2, 1);

	nic_destroy(b->nic[1]);
	b->nic[1] = nic_create(&env);
	cr_assert_not_null(b->nic[1]);
	b->link.dir[1].from.dev = b->nic[1];
	b->link.dir[0].to.dev = b->nic[1];
	nic_attach(b->nic[1], &b->link.dir[1]);
	tfx_pair_run(b, 256 * 1024);
	cr_assert_eq(b->done, 1);
	cr_assert_eq(nic_counters(b->nic[1])[NIC_C_RX_PAYLOAD_BYTES], 256 * 1024);
	int acks = 0;
	for (int i = 0; i < b->n_seen; i++) {
		const struct wire_pkt *p = &b->seen[i].p;
		if (b->seen[i].dir != 1)
			continue;
		cr_assert_eq(p->kind, WIRE_KIND_UET, "every answer a plain ACK");
		cr_assert_eq(p->pds.type, WIRE_PDS_ACK);
		if (p->pds.flags & WIRE_ACK_F_P)
			continue; /* the probe's ACK */
		acks++;
		cr_assert_eq(p->pds.next_hdr, WIRE_NH_RESPONSE);
		cr_assert_eq(p->rsp.return_code, WIRE_SES_RC_OK);
		cr_assert_eq(p->rsp.modified_length, 256 * 1024, "the request_length of the message");
	}
	cr_assert_gt(acks, 0);
	cr_assert_eq(uev(b, 0)[NIC_UE_ACK_FORM_RCVD], (uint64_t)acks + 1, "every one matched as an ACK (probe's too)");
	cr_assert_eq(uev(b, 1)[NIC_UE_ACK_SES_RSP], (uint64_t)acks);
	tfx_pair_free(b);
}

static void tune_identity(struct nic_params *p)
{
	p->ses_job_id = 1;
	p->ses_resource_index = 15;
}

Test(nic_pds, ses_identity_of_the_requests_sent)
{
	struct tfx_opts o = { .tune = tune_identity };
	struct tfx_pair *b = tfx_pair_new(&o);

	tfx_pair_run(b, 4096);
	cr_assert_eq(b->seen[0].kind, WIRE_KIND_DATA);
	cr_assert_eq(b->seen[0].p.ses.job_id, 1);
	cr_assert_eq(b->seen[0].p.ses.pid_on_fep, 0);
	cr_assert_eq(b->seen[0].p.ses.resource_index, 15);
	cr_assert_eq(b->done, 1);
	tfx_pair_free(b);
}

static void tune_tiny_ingress(struct nic_params *p)
{
	p->ingress.total_buffer_size = 100; /* no class's pool holds a 64 B request's 148 B IP datagram */
}

Test(nic_pds, request_into_a_full_receive_pool_nacked_no_pkt_buffer)
{
	struct tfx_opts o = { .tune = tune_tiny_ingress };
	struct tfx_pair *b = tfx_pair_new(&o);
	const struct wire_pkt *a[4];
	struct wire_pkt r = req(WIRE_PDS_RUD_REQ, WIRE_REQ_F_SYN | WIRE_REQ_F_AR, START, 17, 0, 64);

	cr_assert_lt(nic_pool_size(b->nic[1], false, 0), 148);
	inject(b, 1, 0, &r, 0);
	cr_assert_eq(answers(b, 0, a, 4), 1);
	cr_assert_eq(a[0]->kind, WIRE_KIND_NACK);
	cr_assert_eq(a[0]->pds.nack_code, WIRE_NACK_NO_PKT_BUFFER);
	cr_assert_eq(a[0]->pds.psn, START);
	cr_assert_eq(a[0]->pds.dpdcid, 17);
	cr_assert_eq(nic_counters(b->nic[1])[NIC_C_DROP_RX_POOL_FULL], 1);
	cr_assert_eq(uev(b, 1)[NIC_UE_NACK_NO_PKT_BUFFER], 1);
	tfx_pair_free(b);
}

Test(nic_pds, syn_past_the_peers_receive_pdc_cap_nacked_no_pdc_avail)
{
	/* a NIC of 4,096 PDCs lets one peer hold 1,024 receive PDCs (nic_env.rcv_per_peer_max's default) */
	struct tfx_pair *b = tfx_pair_new(NULL);
	const struct wire_pkt *a[4];

	for (uint16_t id = 1; id <= 1024; id++) {
		struct wire_pkt r = req(WIRE_PDS_RUD_REQ, WIRE_REQ_F_SYN, START, id, 0, 0);
		inject(b, 1, 0, &r, 0);
	}
	emu_sched_run_until(b->np.sched, 100 * US); /* their ACKs gone (those the control pool held) */
	int seen = b->n_seen;
	struct wire_pkt r = req(WIRE_PDS_RUD_REQ, WIRE_REQ_F_SYN | WIRE_REQ_F_AR, START, 1025, 0, 0);
	inject(b, 1, 0, &r, 100 * US);
	cr_assert_eq(answers(b, seen, a, 4), 1);
	cr_assert_eq(a[0]->kind, WIRE_KIND_NACK);
	cr_assert_eq(a[0]->pds.nack_code, WIRE_NACK_NO_PDC_AVAIL);
	cr_assert_eq(a[0]->pds.spdcid, 0);
	cr_assert_eq(a[0]->pds.dpdcid, 1025);
	cr_assert_eq(nic_counters(b->nic[1])[NIC_C_DROP_RCV_PEER_CAP], 1);
	tfx_pair_free(b);
}
