/* The UET 1.0 forms other than uetemu's own (docs/wire.md, What the NIC model does with them): RUD and ROD requests
 * with or without CC state and with every SES request header, RUDI, UUD, the ACK and NACK forms other than ACK_CC
 * and NACK, the NACK codes other than the trims at the sender, and the ACK form and SES response a NIC answers in.
 * uetemu's own frames (RUD_CC_REQ + standard SEND, ACK_CC, trim NACKs, PROBE) never come here (nic_rx.c). */
#include "nic_pvt.h"
#include "emu_counter.h"

#include <string.h>

EMU_COUNTER_NAMES(nic_uet_event, NIC_UET_EVENTS, NIC_UE_COUNT)

/* ACK coalescing (spec 1.7): each accepted packet adds max(its IP size, ACK_Gen_Min_Pkt_Add) to the PDC's count,
 * and an ACK goes when the count reaches ACK_Gen_Trigger, at once on AR, SYN or ECN-CE. */
#define NIC_ACK_GEN_TRIGGER 16384u
#define NIC_ACK_GEN_MIN_PKT_ADD 1024u

static inline void ev(struct nic *nic, int e)
{
	nic->uet_rx.ev[e]++;
}

bool nic_pds_takes(const struct wire_pkt *pkt)
{
	return pkt->pds.type != WIRE_PDS_TSS; /* encrypted: without keys nothing after the TSS header can be read */
}

static bool nh_is_req(uint8_t nh)
{
	return nh == WIRE_NH_REQ_SMALL || nh == WIRE_NH_REQ_MEDIUM || nh == WIRE_NH_REQ_STD;
}

/* Does the SES operation of request @p pkt deliver its payload to the host? The sends and WRITE do, whatever their
 * tags or deferral (the model keeps no match lists: every send lands); a rendezvous send delivers its eager part. */
static bool ses_delivers(const struct wire_pkt *pkt)
{
	if (!nh_is_req(pkt->pds.next_hdr))
		return false;
	switch (pkt->ses.opcode) {
	case WIRE_SES_OP_WRITE:
	case WIRE_SES_OP_SEND:
	case WIRE_SES_OP_DATAGRAM_SEND:
	case WIRE_SES_OP_DEFERRABLE_SEND:
	case WIRE_SES_OP_TAGGED_SEND:
	case WIRE_SES_OP_RENDEZVOUS_SEND:
	case WIRE_SES_OP_RENDEZVOUS_TSEND:
	case WIRE_SES_OP_DEFERRABLE_TSEND:
		return true;
	default:
		return false;
	}
}

/* The SES return code of request @p req: RC_OK for what the model runs (NO_OP included), UNSUPPORTED_OP else. */
static uint8_t ses_rc(const struct wire_pkt *req)
{
	return ses_delivers(req) || req->ses.opcode == WIRE_SES_OP_NO_OP ? WIRE_SES_RC_OK : WIRE_SES_RC_UNSUPPORTED_OP;
}

/* The 12 B SES response to request @p req (spec 1.4; as the UEC reference provider fills it: RESPONSE, the
 * request's message_id and job, modified_length = its request_length). */
static void ses_response(struct wire_pkt *p, const struct wire_pkt *req)
{
	p->pds.next_hdr = WIRE_NH_RESPONSE;
	memset(&p->rsp, 0, sizeof(p->rsp));
	p->rsp.opcode = WIRE_RSP_RESPONSE;
	p->rsp.return_code = ses_rc(req);
	p->rsp.message_id = req->ses.message_id;
	p->rsp.ri_generation = req->ses.ri_generation;
	p->rsp.job_id = req->ses.job_id;
	p->rsp.modified_length = req->ses.request_length;
}

void nic_pds_ack_form(struct nic *nic, struct wire_pkt *ack, const struct wire_pkt *req)
{
	const struct nic_params *np = nic->p;
	/* AckSesResponse WhenAsked: a request without CC state (RUD_REQ, ROD_REQ) comes from an initiator of the
	 * reference provider's kind, which completes a send only on a plain ACK with its SES response */
	bool asked = np->ack_ses_mode == NIC_SES_RSP_WHEN_ASKED &&
		     (req->pds.type == WIRE_PDS_RUD_REQ || req->pds.type == WIRE_PDS_ROD_REQ);

	if ((np->ack_ses_response || np->ack_ses_mode == NIC_SES_RSP_ALWAYS || asked) &&
	    nic_pds_is_req(req->pds.type) && nh_is_req(req->pds.next_hdr)) {
		ses_response(ack, req);
		ev(nic, NIC_UE_ACK_SES_RSP);
	}
	if (np->ack_form == NIC_ACK_FORM_PLAIN || asked) {
		/* the 12 B ACK: CACK_PSN, ack_psn_offset (or probe_opaque) and the PDC ids; no SACK, no CC state */
		ack->kind = WIRE_KIND_UET;
		ack->pds.type = WIRE_PDS_ACK;
		ack->pds.cc_type = 0;
		ack->pds.mpr = 0;
		ack->pds.sack_psn_off = 0;
		ack->ack.sack_bitmap = 0;
		ack->ack.cc_raw[0] = ack->ack.cc_raw[1] = 0;
	}
}

struct wire_pkt *nic_pds_reply_new(struct nic *nic, uint8_t kind, const struct nic_pdc *pdc,
				   const struct wire_pkt *req)
{
	static const uint8_t zero[6];
	struct nic_pdc stand;

	if (pdc == NULL) { /* no PDC (a stranger, a RUDI request): a stand-in that knows the peer's address */
		memset(&stand, 0, sizeof(stand));
		stand.peer_ip = req->src_ip;
		pdc = &stand;
	}
	struct wire_pkt *p = nic_pkt_new(nic, kind, pdc);
	if (p == NULL)
		return NULL;
	if (memcmp(p->dst_mac, zero, 6) == 0) /* a peer seen only on a real port: answered to where it came from */
		memcpy(p->dst_mac, req->src_mac, 6);
	p->sport = req->sport; /* the entropy value goes back, as on every ACK */
	return p;
}

void nic_pds_nack(struct nic *nic, const struct nic_pdc *pdc, const struct wire_pkt *req, uint8_t code, int e,
		  emu_ps_t now)
{
	bool rudi = req->pds.type == WIRE_PDS_RUDI_REQ;
	struct wire_pkt *p = nic_pds_reply_new(nic, WIRE_KIND_NACK, pdc, req);

	ev(nic, e);
	if (p == NULL)
		return;
	p->pds.type = WIRE_PDS_NACK;
	p->pds.flags = (uint8_t)((req->ecn == WIRE_ECN_CE ? WIRE_NACK_F_M : 0) |
				 (req->pds.flags & WIRE_REQ_F_RETX ? WIRE_NACK_F_RETX : 0) | (rudi ? WIRE_NACK_F_NT : 0));
	p->pds.nack_code = code;
	p->pds.psn = req->pds.psn; /* RUDI: its pkt_id */
	if (!rudi) {               /* NT: the PDC ids are 0 */
		p->pds.spdcid = pdc != NULL ? pdc->id : 0;
		p->pds.dpdcid = req->pds.spdcid;
	}
	p->pds.payload = pdc != NULL && !pdc->sender ? pdc->rcv_next : 0; /* the next PSN the receiver expects */
	nic_trace_now(nic, p, NIC_TR_TX, pdc, EMU_PS_NEVER, now);
	nic_push_ctrl(nic, p, now);
}

/*
 * The receive PDC of request @p pkt: the open one, or one a SYN opens with the Start_PSN it gives (PSN - psn_offset,
 * whatever value the initiator chose). NULL with the NACK code to answer in *code (INV_DPDCID: no SYN and no PDC;
 * NO_PDC_AVAIL: none could be made), or 0: a late packet of a PDC this NIC closed, counted as a duplicate.
 */
static struct nic_pdc *req_pdc(struct nic *nic, const struct wire_pkt *pkt, emu_ps_t now, uint8_t *code)
{
	struct nic_pdc *pdc = nic_pdc_rcv_find(nic, pkt->src_ip, pkt->pds.spdcid);
	bool syn = (pkt->pds.flags & WIRE_REQ_F_SYN) != 0;
	uint32_t start = pkt->pds.psn - (syn ? (pkt->pds.dpdcid & 0x0fffu) : 0);

	*code = 0;
	if (pdc != NULL)
		return pdc;
	const struct nic_closed *gone = nic_pdc_closed_find(nic, pkt->src_ip, pkt->pds.spdcid);
	if (gone != NULL && (!syn || gone->start_psn == start)) {
		nic->c[NIC_C_DUP_EVENTS]++;
		return NULL;
	}
	if (!syn) {
		*code = WIRE_NACK_INV_DPDCID;
		return NULL;
	}
	pdc = nic_pdc_open_rcv(nic, pkt->src_ip, pkt->pds.spdcid, now);
	if (pdc == NULL) {
		*code = WIRE_NACK_NO_PDC_AVAIL;
		return NULL;
	}
	pdc->rcv_start = pdc->rcv_next = start;
	pdc->rod = pkt->pds.type == WIRE_PDS_ROD_REQ || pkt->pds.type == WIRE_PDS_ROD_CC_REQ;
	return pdc;
}

static bool is_trimmed(const struct wire_pkt *pkt)
{
	return pkt->kind == WIRE_KIND_TRIMMED || pkt->trim_len != 0;
}

/* An accepted request on @p pdc: ACK now on AR, SYN or ECN-CE, or once ACK_Gen_Trigger bytes have come. */
static void req_ack(struct nic *nic, struct nic_pdc *pdc, const struct wire_pkt *pkt, bool counted, uint64_t waiting,
		    emu_ps_t now)
{
	if (counted) {
		uint32_t add = (uint32_t)wire_ip_len(pkt);
		pdc->ack_bytes += add > NIC_ACK_GEN_MIN_PKT_ADD ? add : NIC_ACK_GEN_MIN_PKT_ADD;
	}
	if (!(pkt->pds.flags & (WIRE_REQ_F_AR | WIRE_REQ_F_SYN)) && pkt->ecn != WIRE_ECN_CE &&
	    pdc->ack_bytes < NIC_ACK_GEN_TRIGGER) {
		ev(nic, NIC_UE_ACK_COALESCED);
		return;
	}
	pdc->ack_bytes = 0;
	if (nic_ack_held(nic, pdc, pkt, waiting, now))
		ev(nic, NIC_UE_ACK_SENT);
}

void nic_pds_rx_req(struct nic *nic, struct wire_pkt *pkt, emu_ps_t now)
{
	uint64_t waiting = nic->in_pool_used[NIC_TC_DATA];
	bool rod = pkt->pds.type == WIRE_PDS_ROD_REQ || pkt->pds.type == WIRE_PDS_ROD_CC_REQ;
	uint8_t code;

	nic->c[NIC_C_WRITE_PKTS_RCVD]++;
	if (pkt->ecn == WIRE_ECN_CE)
		nic->c[NIC_C_ECN_CE_RCVD]++;
	ev(nic, NIC_UE_REQ_RCVD);
	struct nic_pdc *pdc = req_pdc(nic, pkt, now, &code);
	if (pdc == NULL) {
		if (code != 0)
			nic_pds_nack(nic, NULL, pkt, code, code == WIRE_NACK_INV_DPDCID ? NIC_UE_NACK_INV_DPDCID
											 : NIC_UE_NACK_NO_PDC_AVAIL, now);
		return;
	}
	if (pdc->rod != rod) { /* a PDC is RUD or ROD from its SYN on */
		nic_pds_nack(nic, pdc, pkt, WIRE_NACK_PDC_MODE_MISMATCH, NIC_UE_NACK_MODE_MISMATCH, now);
		return;
	}
	nic_pdc_rcv_touch(nic, pdc, now);
	nic_trace_now(nic, pkt, NIC_TR_RX, pdc, EMU_PS_NEVER, now);
	if (is_trimmed(pkt)) {
		ev(nic, NIC_UE_NACK_TRIMMED);
		nic_rx_trimmed(nic, pdc, pkt, now);
		return;
	}
	int32_t d = (int32_t)(pkt->pds.psn - pdc->rcv_next);
	if (d >= NIC_RCV_WIN) {
		nic_pds_nack(nic, pdc, pkt, WIRE_NACK_PSN_OOR_WINDOW, NIC_UE_NACK_PSN_OOR, now);
		return;
	}
	if (rod && d > 0) { /* go-back-N: only the next expected PSN is taken */
		nic_pds_nack(nic, pdc, pkt, WIRE_NACK_ROD_OOO, NIC_UE_NACK_ROD_OOO, now);
		return;
	}
	bool delivers = ses_delivers(pkt);
	if (d >= 0 && delivers && !nic_rx_fits(nic, pdc, pkt)) {
		nic->c[NIC_C_DROP_BEYOND_MESSAGE]++;
		return;
	}
	int tr = nic_rcv_track(nic, pdc, pkt->pds.psn);
	if (tr == NIC_TRACK_NO_ROOM) {
		nic->c[NIC_C_DROP_OOO_POOL_EMPTY]++;
		nic_pds_nack(nic, pdc, pkt, WIRE_NACK_NO_BITMAP, NIC_UE_NACK_NO_BITMAP, now);
		return;
	}
	if (tr == NIC_TRACK_NEW && delivers) {
		nic_rx_new(nic, pdc, pkt, now);
		ev(nic, NIC_UE_REQ_DELIVERED);
	} else if (tr == NIC_TRACK_NEW) {
		ev(nic, NIC_UE_REQ_NO_DELIVERY);
	}
	req_ack(nic, pdc, pkt, tr == NIC_TRACK_NEW, waiting, now);
}

/* RUDI (spec 1.7: at-least-once, no PDC, NACK-driven): delivered and answered by a RUDI_RESP carrying the SES
 * response; a trimmed one is NACKed with NT set and its pkt_id. */
static void rx_rudi(struct nic *nic, struct wire_pkt *pkt, emu_ps_t now)
{
	nic->c[NIC_C_WRITE_PKTS_RCVD]++;
	if (pkt->ecn == WIRE_ECN_CE)
		nic->c[NIC_C_ECN_CE_RCVD]++;
	if (is_trimmed(pkt)) {
		nic->c[NIC_C_TRIMS_RCVD]++;
		nic_pds_nack(nic, NULL, pkt,
			     pkt->dscp == nic->p->dscp.dscp[WIRE_ROLE_TRIMMED_LASTHOP] ? WIRE_NACK_TRIMMED_LASTHOP
										    : WIRE_NACK_TRIMMED,
			     NIC_UE_NACK_TRIMMED, now);
		return;
	}
	struct nic_pdc stand;
	memset(&stand, 0, sizeof(stand));
	stand.peer_ip = pkt->src_ip;
	if (ses_delivers(pkt) && !nic_rx_deliver(nic, &stand, pkt, now))
		return;
	struct wire_pkt *p = nic_pds_reply_new(nic, WIRE_KIND_UET, NULL, pkt);
	if (p == NULL)
		return;
	p->pds.type = WIRE_PDS_RUDI_RESP;
	p->pds.flags = (uint8_t)((pkt->ecn == WIRE_ECN_CE ? WIRE_RUDI_F_M : 0) |
				 (pkt->pds.flags & WIRE_RUDI_F_RETX ? WIRE_RUDI_F_RETX : 0));
	p->pds.psn = pkt->pds.psn; /* pkt_id */
	if (nh_is_req(pkt->pds.next_hdr))
		ses_response(p, pkt);
	ev(nic, NIC_UE_RUDI_RESP_SENT);
	nic_push_ctrl(nic, p, now);
}

/* UUD (spec 1.7: no ACKs, no CC): delivered; a trimmed one is lost. */
static void rx_uud(struct nic *nic, struct wire_pkt *pkt, emu_ps_t now)
{
	nic->c[NIC_C_WRITE_PKTS_RCVD]++;
	if (is_trimmed(pkt)) {
		nic->c[NIC_C_TRIMS_RCVD]++;
		ev(nic, NIC_UE_UUD_TRIMMED);
		return;
	}
	struct nic_pdc stand;
	memset(&stand, 0, sizeof(stand));
	stand.peer_ip = pkt->src_ip;
	if (!ses_delivers(pkt)) {
		ev(nic, NIC_UE_REQ_NO_DELIVERY);
		return;
	}
	if (nic_rx_deliver(nic, &stand, pkt, now))
		ev(nic, NIC_UE_UUD_DELIVERED);
}

/* An SES response on an ACK or NACK: an error return code is counted (the PDS part is acted on all the same). */
static void ses_rsp_check(struct nic *nic, const struct wire_pkt *pkt)
{
	uint8_t nh = pkt->pds.next_hdr;

	if ((nh == WIRE_NH_RESPONSE || nh == WIRE_NH_RESPONSE_DATA || nh == WIRE_NH_RESPONSE_DATA_SMALL) &&
	    pkt->rsp.return_code != WIRE_SES_RC_NULL && pkt->rsp.return_code != WIRE_SES_RC_OK)
		ev(nic, NIC_UE_SES_RSP_ERROR);
}

/* ACK, ACK_CC with a CC type other than NSCC, ACK_CCX: matched as an ACK_CC is (nic_ack.c: the PDC, the PSNs it
 * names within what was sent), with its SACK bitmap where it has one and no NSCC state (no penalty, no hold). */
static void rx_ack_form(struct nic *nic, const struct wire_pkt *pkt, emu_ps_t now)
{
	struct wire_pkt a = *pkt;

	a.kind = WIRE_KIND_ACK;
	a.ack.cc_raw[0] = a.ack.cc_raw[1] = 0;
	ev(nic, NIC_UE_ACK_FORM_RCVD);
	ses_rsp_check(nic, pkt);
	nic_rx_ack(nic, &a, now);
}

/* NACK_CCX, or a NACK with an SES header: matched as a NACK is. */
static void rx_nack_form(struct nic *nic, const struct wire_pkt *pkt, emu_ps_t now)
{
	struct wire_pkt a = *pkt;

	a.kind = WIRE_KIND_NACK;
	a.ack.cc_raw[0] = a.ack.cc_raw[1] = 0;
	ev(nic, NIC_UE_NACK_FORM_RCVD);
	ses_rsp_check(nic, pkt);
	nic_rx_nack(nic, &a, now);
}

/* Queue every outstanding packet of @p pdc at or after @p from (all with @p all) again; how many. */
static uint32_t requeue_from(struct nic_pdc *pdc, uint32_t from, bool all)
{
	uint32_t n = 0;

	for (struct nic_rec *r = pdc->out_head; r != NULL; r = r->next)
		if ((all || (int32_t)(r->psn - from) >= 0) && nic_rec_requeue(pdc, r))
			n++;
	return n;
}

void nic_pds_nack_code(struct nic *nic, struct nic_pdc *pdc, const struct wire_pkt *pkt, emu_ps_t now)
{
	uint32_t psn = pkt->pds.psn, n = 0;

	switch (pkt->pds.nack_code) {
	case WIRE_NACK_NO_PDC_AVAIL:
	case WIRE_NACK_NO_CCC_AVAIL:
	case WIRE_NACK_NO_BITMAP:
	case WIRE_NACK_NO_PKT_BUFFER:
	case WIRE_NACK_NO_GTD_DEL_AVAIL:
	case WIRE_NACK_NO_SES_MSG_AVAIL:
	case WIRE_NACK_NO_RESOURCE:
	case WIRE_NACK_PSN_OOR_WINDOW:
	case WIRE_NACK_PKT_NOT_RCVD:
	case WIRE_NACK_ACK_WITH_DATA:
	case WIRE_NACK_RCVD_SES_PROCG:
	case WIRE_NACK_RCVR_INFER_LOSS:
		/* NORMAL class, "retransmit" / "retry": the PSN goes again, no congestion reaction (not a trim) */
		for (struct nic_rec *r = pdc->out_head; r != NULL; r = r->next)
			if (r->psn == psn) {
				n = nic_rec_requeue(pdc, r);
				break;
			}
		if (n > 0)
			ev(nic, NIC_UE_NACK_RTX);
		break;
	case WIRE_NACK_ROD_OOO: /* go-back-N from the PSN the receiver expected */
		n = requeue_from(pdc, psn, false);
		ev(nic, NIC_UE_NACK_GO_BACK_N);
		break;
	case WIRE_NACK_INV_DPDCID:
	case WIRE_NACK_PDC_HDR_MISMATCH:
	case WIRE_NACK_CLOSING:
	case WIRE_NACK_CLOSING_IN_ERR:
	case WIRE_NACK_GTD_RESP_UNAVAIL:
	case WIRE_NACK_INVALID_SYN:
	case WIRE_NACK_PDC_MODE_MISMATCH:
	case WIRE_NACK_NEW_START_PSN:
	case WIRE_NACK_UNEXP_EVENT:
		/* PDC_FATAL ("close the PDC, retry"): the receiver's PDC is gone; this end starts it again, SYN on
		 * every packet until an ACK names the new one, everything outstanding sent again */
		pdc->remote_id = 0;
		n = requeue_from(pdc, psn, true);
		ev(nic, NIC_UE_NACK_PDC_RESTART);
		break;
	default:
		ev(nic, NIC_UE_NACK_CODE_IGNORED);
		break;
	}
	if (n > 0)
		nic_pdc_wake(nic, pdc, now);
}

void nic_pds_no_buffer(struct nic *nic, const struct wire_pkt *pkt, emu_ps_t now)
{
	switch (pkt->pds.type) {
	case WIRE_PDS_RUD_REQ:
	case WIRE_PDS_ROD_REQ:
	case WIRE_PDS_RUD_CC_REQ:
	case WIRE_PDS_ROD_CC_REQ:
		nic_pds_nack(nic, nic_pdc_rcv_find(nic, pkt->src_ip, pkt->pds.spdcid), pkt, WIRE_NACK_NO_PKT_BUFFER,
			     NIC_UE_NACK_NO_PKT_BUFFER, now);
		break;
	case WIRE_PDS_RUDI_REQ:
		nic_pds_nack(nic, NULL, pkt, WIRE_NACK_NO_PKT_BUFFER, NIC_UE_NACK_NO_PKT_BUFFER, now);
		break;
	default: /* UUD: lost, no NACK; the others are control frames */
		break;
	}
}

void nic_rx_uet(struct nic *nic, struct wire_pkt *pkt, emu_ps_t now)
{
	switch (pkt->pds.type) {
	case WIRE_PDS_RUD_REQ:
	case WIRE_PDS_ROD_REQ:
	case WIRE_PDS_RUD_CC_REQ:
	case WIRE_PDS_ROD_CC_REQ:
		nic_pds_rx_req(nic, pkt, now);
		break;
	case WIRE_PDS_RUDI_REQ:
		rx_rudi(nic, pkt, now);
		break;
	case WIRE_PDS_UUD_REQ:
		rx_uud(nic, pkt, now);
		break;
	case WIRE_PDS_RUDI_RESP:
		ev(nic, NIC_UE_RUDI_RESP_UNMATCHED);
		break;
	case WIRE_PDS_ACK:
	case WIRE_PDS_ACK_CC:
	case WIRE_PDS_ACK_CCX:
		rx_ack_form(nic, pkt, now);
		break;
	case WIRE_PDS_NACK:
	case WIRE_PDS_NACK_CCX:
		rx_nack_form(nic, pkt, now);
		break;
	case WIRE_PDS_CP:
		nic_ctl_rx(nic, pkt, now);
		break;
	default:
		nic->c[NIC_C_DROP_BAD_KIND]++;
		break;
	}
}
