/* Decoder of frames from a real port: Ethernet II / IPv4 / UDP or the entropy header / every UET 1.0 PDS and SES
 * header / optional CRC trailer; PFC and connection-management frames. Each step takes the bytes left for its header
 * (b, n), checks n against the header's named minimum before reading, and returns the bytes it consumed or a
 * negative enum wire_reason. */
#include "wire_pvt.h"

#include <string.h>

/* ---- below the PDS header ---- */

/*
 * The UDP checksum of datagram @p b (@p n bytes, header included) for the addresses in @p out, taken as @p mode
 * says (enum wire_csum_mode): an enum wire_csum_seen, or -1 when it is refused. RFC 768: the one's complement sum
 * over the pseudo-header (source, destination, protocol 17, UDP length) and the datagram, checksum field included,
 * is 0xffff. A checksum of 0 means "not computed" (uetemu sends 0): taken. A partial checksum (TX checksum offload
 * to a virtual device) is the pseudo-header's sum folded, not complemented: taken under WIRE_CSUM_OFFLOAD.
 */
static int udp_csum(const uint8_t *b, size_t n, const struct wire_pkt *out, uint8_t mode)
{
	uint64_t ph = (out->src_ip >> 16) + (out->src_ip & 0xffff) + (out->dst_ip >> 16) + (out->dst_ip & 0xffff) +
		      WIRE_IPPROTO_UDP + n;
	uint16_t field = get_be16(b + UDP_CSUM);
	uint64_t sum;

	if (field == 0)
		return WIRE_CSUM_SEEN_NONE;
	if (mode == WIRE_CSUM_IGNORE)
		return WIRE_CSUM_SEEN_UNVERIFIED;
	sum = ph + (uint16_t)~wire_csum(b, n);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	if (sum == 0xffff)
		return WIRE_CSUM_SEEN_GOOD;
	if (mode != WIRE_CSUM_OFFLOAD)
		return -1;
	while (ph >> 16)
		ph = (ph & 0xffff) + (ph >> 16);
	return field == ph ? WIRE_CSUM_SEEN_PARTIAL : -1;
}

/* UDP header; @p n is exactly the IP payload length. */
static int dec_udp(const uint8_t *b, size_t n, const struct wire_rx_cfg *cfg, struct wire_pkt *out, uint8_t *seen)
{
	int cs;

	if (n < WIRE_UDP_LEN)
		return -WIRE_R_SHORT_UDP;
	if (get_be16(b + UDP_LEN) != n)
		return -WIRE_R_BAD_UDP_LEN;
	if ((cs = udp_csum(b, n, out, cfg->udp_csum)) < 0)
		return -WIRE_R_BAD_UDP_CSUM;
	*seen = (uint8_t)cs;
	if (get_be16(b + UDP_DPORT) != cfg->uet_port && get_be16(b + UDP_DPORT) != WIRE_UDP_PORT_CM &&
	    get_be16(b + UDP_DPORT) != WIRE_UDP_PORT_ROCE)
		return -WIRE_R_NOT_UET_PORT;
	out->sport = get_be16(b + UDP_SPORT);
	out->dport = get_be16(b + UDP_DPORT);
	return WIRE_UDP_LEN;
}

/* The entropy header of native IPv4 encapsulation: the entropy goes where UDP's source port would. */
static int dec_entropy(const uint8_t *b, size_t n, struct wire_pkt *out)
{
	if (n < WIRE_ENTROPY_LEN)
		return -WIRE_R_SHORT_ENTROPY;
	out->encap |= WIRE_ENCAP_NATIVE;
	out->sport = get_be16(b + ENT_VALUE);
	out->dport = 0;
	return WIRE_ENTROPY_LEN;
}

/* ---- PDS headers: each reads a header whose whole length dec_uet() has checked ---- */

/* The fields at offsets 4..11 shared by the request, ACK, NACK and CP headers. */
static void dec_pds_common(const uint8_t *b, struct wire_pds *d)
{
	d->psn = get_be32(b + PDS_PSN);
	d->spdcid = get_be16(b + PDS_SPDCID);
	d->dpdcid = get_be16(b + PDS_DPDCID);
}

static void dec_req(const uint8_t *b, size_t hl, struct wire_pds *d)
{
	d->psn_off = get_s16(b + PDS_OFF2);
	dec_pds_common(b, d);
	if (hl == WIRE_PDS_REQ_CC_LEN) {
		d->ccc_id = b[REQ_CCC_ID];
		d->credit_target = get_be24(b + REQ_CREDIT_TARGET);
	}
}

static void dec_ack(const uint8_t *b, struct wire_pds *d, struct wire_ack *a)
{
	if (d->flags & WIRE_ACK_F_P)
		d->probe_opaque = get_be16(b + PDS_OFF2);
	else
		d->psn_off = get_s16(b + PDS_OFF2);
	dec_pds_common(b, d);
	if (d->type == WIRE_PDS_ACK)
		return;
	d->cc_type = b[ACK_CC_TYPE_FLAGS] >> 4;
	d->cc_flags = b[ACK_CC_TYPE_FLAGS] & 0xf;
	d->mpr = b[ACK_MPR];
	d->sack_psn_off = get_s16(b + ACK_SACK_PSN_OFF);
	a->sack_bitmap = get_be64(b + ACK_SACK_BITMAP);
	if (d->type == WIRE_PDS_ACK_CCX || d->cc_type != ACK_CC_NSCC) { /* a state no model reads: kept as it came */
		a->cc_raw[0] = get_be64(b + ACK_CC_STATE);
		if (d->type == WIRE_PDS_ACK_CCX)
			a->cc_raw[1] = get_be64(b + ACK_CCX_STATE);
		return;
	}
	a->service_time = get_be16(b + ACK_SERVICE_TIME);
	a->rc = b[ACK_RC_PEND] >> ACK_RC_SHIFT;
	a->rcv_cwnd_pend = b[ACK_RC_PEND] & ACK_PEND_MASK;
	a->rcvd_bytes = get_be24(b + ACK_RCVD_BYTES);
	a->ooo_count = get_be16(b + ACK_OOO_COUNT);
}

static void dec_nack(const uint8_t *b, struct wire_pds *d, struct wire_ack *a)
{
	d->nack_code = b[NACK_CODE];
	d->vendor_code = b[NACK_VENDOR];
	dec_pds_common(b, d);
	d->payload = get_be32(b + NACK_PAYLOAD);
	if (d->type == WIRE_PDS_NACK_CCX) {
		a->cc_raw[0] = get_be64(b + NACK_CCX_STATE);
		a->cc_raw[1] = get_be64(b + NACK_CCX_STATE + 8);
	}
}

/* The PDS header of d->type (prologue already read), @p hl bytes; an ACK's or NACK_CCX's 8-byte fields into @p a. */
static void dec_pds_hdr(const uint8_t *b, size_t hl, struct wire_pds *d, struct wire_ack *a)
{
	switch (d->type) {
	case WIRE_PDS_RUD_REQ:
	case WIRE_PDS_ROD_REQ:
	case WIRE_PDS_RUD_CC_REQ:
	case WIRE_PDS_ROD_CC_REQ:
		dec_req(b, hl, d);
		break;
	case WIRE_PDS_RUDI_REQ:
	case WIRE_PDS_RUDI_RESP:
		d->psn = get_be32(b + PDS_PSN); /* pkt_id */
		break;
	case WIRE_PDS_UUD_REQ:
		break;
	case WIRE_PDS_ACK:
	case WIRE_PDS_ACK_CC:
	case WIRE_PDS_ACK_CCX:
		dec_ack(b, d, a);
		break;
	case WIRE_PDS_NACK:
	case WIRE_PDS_NACK_CCX:
		dec_nack(b, d, a);
		break;
	default: /* WIRE_PDS_CP */
		d->probe_opaque = get_be16(b + PDS_OFF2);
		dec_pds_common(b, d);
		d->payload = get_be32(b + CP_PAYLOAD);
		break;
	}
}

/* ---- SES headers ---- */

/* The first 12 bytes of a request header; message_id (standard) or request_length (small, medium) at 2. */
static void dec_ses_head(const uint8_t *b, bool std, struct wire_ses *s)
{
	s->opcode = b[SES_OPCODE] & SES_OPCODE_MASK;
	s->ver = (b[SES_VER_FLAGS] >> SES_VER_SHIFT) & SES_VER_MASK;
	s->flags = b[SES_VER_FLAGS] & SES_FLAGS_MASK;
	if (std)
		s->message_id = get_be16(b + SES_MESSAGE_ID);
	else
		s->request_length = get_be16(b + SES_REQ_LEN14) & SES_U14_MASK;
	s->ri_generation = b[SES_RI_GEN];
	s->job_id = get_be24(b + SES_JOB_ID);
	s->pid_on_fep = get_be16(b + SES_PID_ON_FEP) & SES_U12_MASK;
	s->resource_index = get_be16(b + SES_RESOURCE_INDEX) & SES_U12_MASK;
}

/* Standard request, WIRE_SES_STD_LEN bytes; payload_length (without SOM) is checked by the caller. */
static void dec_ses_std(const uint8_t *b, struct wire_ses *s)
{
	dec_ses_head(b, true, s);
	s->buffer_offset = get_be64(b + SES_BUFFER_OFFSET);
	s->initiator = get_be32(b + SES_INITIATOR);
	s->memory_key = get_be64(b + SES_MEMORY_KEY);
	s->request_length = get_be32(b + SES_REQUEST_LENGTH);
	if (s->flags & WIRE_SES_F_SOM) {
		s->header_data = get_be64(b + SES_HEADER_DATA);
	} else {
		s->payload_length = (uint16_t)(get_be32(b + SES_PAYLOAD_LENGTH) & SES_PAYLOAD_LENGTH_MASK);
		s->message_offset = get_be32(b + SES_MESSAGE_OFFSET);
	}
}

static void dec_ses_med_small(const uint8_t *b, bool medium, struct wire_ses *s)
{
	dec_ses_head(b, false, s);
	if (!medium) {
		s->buffer_offset = get_be64(b + SES_SMALL_BUFFER_OFFSET);
		return;
	}
	if (s->flags & WIRE_SES_F_HD)
		s->header_data = get_be64(b + SES_MED_HD_OR_BUF);
	else
		s->buffer_offset = get_be64(b + SES_MED_HD_OR_BUF);
	s->initiator = get_be32(b + SES_MED_INITIATOR);
	s->memory_key = get_be64(b + SES_MED_MEMORY_KEY);
}

static void dec_rsp(const uint8_t *b, uint8_t nh, struct wire_rsp *r)
{
	r->list = b[RSP_LIST_OPCODE] >> RSP_LIST_SHIFT;
	r->opcode = b[RSP_LIST_OPCODE] & RSP_LOW6_MASK;
	r->ver = b[RSP_VER_RC] >> RSP_LIST_SHIFT;
	r->return_code = b[RSP_VER_RC] & RSP_LOW6_MASK;
	r->job_id = get_be24(b + RSP_JOB_ID);
	switch (nh) {
	case WIRE_NH_RESPONSE:
		r->message_id = get_be16(b + RSP_MESSAGE_ID);
		r->ri_generation = b[RSP_RI_GEN];
		r->modified_length = get_be32(b + RSP_MODIFIED_LENGTH);
		break;
	case WIRE_NH_RESPONSE_DATA:
		r->message_id = get_be16(b + RSP_MESSAGE_ID);
		r->read_req_message_id = get_be16(b + RSP_READ_REQ_MID);
		r->payload_length = get_be16(b + RSP_DATA_PLEN) & SES_U14_MASK;
		r->modified_length = get_be32(b + RSP_DATA_MODIFIED);
		r->message_offset = get_be32(b + RSP_DATA_MSG_OFFSET);
		break;
	default: /* WIRE_NH_RESPONSE_DATA_SMALL */
		r->payload_length = get_be16(b + RSP_SMALL_PLEN) & SES_U14_MASK;
		r->original_request_psn = get_be32(b + RSP_SMALL_ORIG_PSN);
		break;
	}
}

/*
 * The extension header after a request header, if its opcode calls for one: the bytes it took, or
 * -WIRE_R_SHORT_SES_EXT. The atomic part is read first, since its atomic opcode says whether compare and swap
 * values follow.
 */
static int dec_ext(const uint8_t *b, size_t n, uint8_t nh, struct wire_ses *s)
{
	if (wire_ses_ext(nh, s) == WIRE_EXT_NONE)
		return 0;
	if (wire_ses_ext(nh, s) == WIRE_EXT_RDV) {
		if (n < WIRE_SES_RDV_LEN)
			return -WIRE_R_SHORT_SES_EXT;
		s->rdv_eager_len = get_be32(b + RDV_EAGER_LEN);
		s->rdv_pid_on_fep = get_be16(b + RDV_PID_ON_FEP) & SES_U12_MASK;
		s->rdv_resource_index = get_be16(b + RDV_RESOURCE_INDEX) & SES_U12_MASK;
		s->rdv_offset = get_be64(b + RDV_OFFSET);
		s->rdv_match_bits = get_be64(b + RDV_MATCH_BITS);
		return WIRE_SES_RDV_LEN;
	}
	if (n < WIRE_SES_ATOMIC_LEN)
		return -WIRE_R_SHORT_SES_EXT;
	s->amo_opcode = b[AMO_OPCODE];
	s->amo_datatype = b[AMO_DATATYPE];
	s->amo_sem_ctl = b[AMO_SEM_CTL];
	if (wire_ses_ext(nh, s) != WIRE_EXT_CAS)
		return WIRE_SES_ATOMIC_LEN;
	if (n < WIRE_SES_CAS_LEN)
		return -WIRE_R_SHORT_SES_EXT;
	s->amo_compare[0] = get_be64(b + AMO_COMPARE);
	s->amo_compare[1] = get_be64(b + AMO_COMPARE + 8);
	s->amo_swap[0] = get_be64(b + AMO_SWAP);
	s->amo_swap[1] = get_be64(b + AMO_SWAP + 8);
	return WIRE_SES_CAS_LEN;
}

/* Whether SES header @p nh carries a payload_length to check against the payload. */
static bool nh_has_rsp_len(uint8_t nh)
{
	return nh == WIRE_NH_RESPONSE_DATA || nh == WIRE_NH_RESPONSE_DATA_SMALL;
}

/*
 * The SES header next_hdr names (with its extension), then the payload: @p b and @p n are every byte after the PDS
 * header (trailer cut). Returns @p n, or a negative reason.
 */
static int dec_ses(const uint8_t *b, size_t n, struct wire_pkt *out)
{
	uint8_t nh = out->pds.next_hdr;
	size_t sl = wire_ses_hdr_len(nh);
	int ext;

	if (n < sl)
		return -WIRE_R_SHORT_SES;
	switch (nh) {
	case WIRE_NH_NONE:
		break;
	case WIRE_NH_REQ_STD:
		dec_ses_std(b, &out->ses);
		break;
	case WIRE_NH_REQ_MEDIUM:
	case WIRE_NH_REQ_SMALL:
		dec_ses_med_small(b, nh == WIRE_NH_REQ_MEDIUM, &out->ses);
		break;
	default:
		dec_rsp(b, nh, &out->rsp);
		break;
	}
	ext = dec_ext(b + sl, n - sl, nh, &out->ses);
	if (ext < 0)
		return ext;

	size_t rest = n - sl - (size_t)ext;

	if (!wire_nh_has_payload(nh))
		return rest == 0 ? (int)n : -WIRE_R_TRAILING;
	out->payload_len = (uint32_t)rest; /* n <= WIRE_MAX_FRAME */
	if (nh == WIRE_NH_REQ_STD && !(out->ses.flags & WIRE_SES_F_SOM) && out->ses.payload_length != rest)
		return -WIRE_R_BAD_SES_LEN;
	if (nh_has_rsp_len(nh) && out->rsp.payload_length != rest)
		return -WIRE_R_BAD_SES_LEN;
	return (int)n;
}

/* ---- UET: TSS, PDS, trim, trailer, kind ---- */

/* A TSS header (12 B, 16 B with SSI), then opaque bytes ending in the ICV; @p n is every UET byte. */
static int dec_tss(const uint8_t *b, size_t n, struct wire_pkt *out)
{
	size_t hl = wire_tss_hdr_len(b[0]);

	if (n < hl + WIRE_TSS_ICV_LEN)
		return -WIRE_R_SHORT_TSS;

	uint32_t w = get_be32(b);
	struct wire_tss *t = &out->tss;

	out->pds.type = WIRE_PDS_TSS;
	t->sp = (w >> TSS_SP_BIT) & 1;
	t->an = (w >> TSS_AN_BIT) & 1;
	t->sdi = w & U24_MASK;
	if (t->sp)
		t->ssi = get_be32(b + TSS_SSI);
	t->tsc = get_be64(b + hl - 8);
	out->payload_len = (uint32_t)(n - hl);
	out->kind = WIRE_KIND_UET;
	return (int)n;
}

/*
 * Whether a request of PDS header length @p hl whose UET bytes are @p n was trimmed: it ends right after its PDS
 * header, or at MIN_TRIM (WIRE_MIN_TRIM_LEN) inside its SES header (spec 1.6).
 */
static bool is_trimmed(const struct wire_pds *d, size_t hl, size_t n)
{
	if (!wire_pds_is_request(d->type))
		return false;
	return n == hl || (n == WIRE_MIN_TRIM_LEN && hl + wire_ses_hdr_len(d->next_hdr) > n);
}

/* The kind the models see in a whole (untrimmed) decoded UET frame (enum wire_kind). */
static uint8_t kind_of(const struct wire_pkt *p)
{
	const struct wire_pds *d = &p->pds;

	switch (d->type) {
	case WIRE_PDS_RUD_CC_REQ:
	case WIRE_PDS_ROD_CC_REQ:
		if (d->next_hdr == WIRE_NH_REQ_STD && wire_ses_ext(d->next_hdr, &p->ses) == WIRE_EXT_NONE &&
		    (p->ses.opcode == WIRE_SES_OP_SEND || p->ses.opcode == WIRE_SES_OP_WRITE))
			return WIRE_KIND_DATA;
		break;
	case WIRE_PDS_ACK_CC:
		if (d->cc_type == ACK_CC_NSCC && (d->next_hdr == WIRE_NH_NONE || d->next_hdr == WIRE_NH_RESPONSE))
			return WIRE_KIND_ACK;
		break;
	case WIRE_PDS_NACK:
		if (d->next_hdr == WIRE_NH_NONE)
			return WIRE_KIND_NACK;
		break;
	case WIRE_PDS_CP:
		if (d->next_hdr == WIRE_CTL_PROBE)
			return WIRE_KIND_CP;
		break;
	default:
		break;
	}
	return WIRE_KIND_UET;
}

/*
 * Every UET byte from the PDS (or TSS) header on, @p n of them (trailer included); @p crc says a trailer must end
 * every frame but a trimmed request. Returns @p n or a negative reason.
 */
static int dec_uet(const uint8_t *b, size_t n, bool crc, const uint8_t *crc_from, struct wire_pkt *out)
{
	struct wire_pds *d = &out->pds;

	if (n < WIRE_PDS_PROLOGUE_LEN)
		return -WIRE_R_SHORT_PDS;
	if ((b[0] >> 3) == WIRE_PDS_TSS) /* its ICV protects it: no CRC trailer */
		return dec_tss(b, n, out);

	uint16_t pro = get_be16(b);
	size_t hl;

	d->type = (pro >> PDS_TYPE_SHIFT) & PDS_TYPE_MASK;
	d->next_hdr = (pro >> PDS_NH_SHIFT) & PDS_NH_MASK;
	d->flags = pro & PDS_FLAGS_MASK;
	hl = wire_pds_hdr_len(d->type);
	if (hl == 0)
		return -WIRE_R_BAD_PDS_TYPE;
	if (d->type == WIRE_PDS_CP ? d->next_hdr > PDS_CTL_MAX : !wire_pds_nh_ok(d->type, d->next_hdr))
		return d->type == WIRE_PDS_CP ? -WIRE_R_BAD_CTL_TYPE : -WIRE_R_BAD_NEXT_HDR;
	if (n < hl)
		return -WIRE_R_SHORT_PDS;
	dec_pds_hdr(b, hl, d, &out->ack);
	if (is_trimmed(d, hl, n)) { /* a switch cut the SES header, the payload and any trailer */
		bool cc = d->type == WIRE_PDS_RUD_CC_REQ || d->type == WIRE_PDS_ROD_CC_REQ;
		out->kind = cc ? WIRE_KIND_TRIMMED : WIRE_KIND_UET;
		out->trim_len = cc ? 0 : (uint8_t)n;
		return (int)n;
	}

	size_t end = n;

	if (crc) {
		size_t before = (size_t)(b - crc_from); /* bytes covered ahead of the PDS header (refprov coverage) */

		if (n < hl + WIRE_CRC_LEN ||
		    wire_crc32c(crc_from, before + n - WIRE_CRC_LEN) != get_be32(b + n - WIRE_CRC_LEN))
			return -WIRE_R_BAD_CRC;
		end -= WIRE_CRC_LEN;
		out->encap |= WIRE_ENCAP_CRC | (before != 0 ? WIRE_ENCAP_CRC_IP : 0);
	}
	if (d->type == WIRE_PDS_CP) {
		if (end > hl)
			return -WIRE_R_TRAILING;
	} else {
		int rc = dec_ses(b + hl, end - hl, out);
		if (rc < 0)
			return rc;
	}
	out->kind = kind_of(out);
	return (int)n;
}

/* A connection-management message: exactly its header, a known type and our version. */
static int dec_cm(const uint8_t *b, size_t n, struct wire_pkt *out)
{
	if (n < WIRE_CM_LEN)
		return -WIRE_R_SHORT_CM;
	if (n > WIRE_CM_LEN)
		return -WIRE_R_TRAILING;
	if (b[CM_VERSION] != WIRE_CM_VERSION || b[CM_TYPE] < WIRE_CM_REQ || b[CM_TYPE] > WIRE_CM_RTU)
		return -WIRE_R_BAD_CM;
	out->kind = WIRE_KIND_CM;
	out->cm.type = b[CM_TYPE];
	out->cm.connection = get_be16(b + CM_CONNECTION);
	out->cm.local_id = get_be32(b + CM_LOCAL_ID);
	out->cm.remote_id = get_be32(b + CM_REMOTE_ID);
	out->cm.qpn = get_be32(b + CM_QPN);
	return (int)n;
}

/*
 * A MAC control frame: only PFC is taken, in 802.1Qbb's format: a whole minimum Ethernet frame (60 bytes without
 * the FCS), opcode 0x0101, to the MAC control group 01:80:C2:00:00:01 (a pause to a unicast MAC is refused).
 */
static int dec_pfc(const uint8_t *b, size_t n, struct wire_pkt *out)
{
	static const uint8_t pfc_group[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };

	if (n < WIRE_PFC_FRAME_LEN)
		return WIRE_R_SHORT_PFC;
	if (get_be16(b + WIRE_ETH_LEN) != WIRE_PFC_OPCODE)
		return WIRE_R_NOT_PFC;
	if (memcmp(b + ETH_DST, pfc_group, 6) != 0)
		return WIRE_R_BAD_PFC_DST;
	out->kind = WIRE_KIND_PFC;
	memcpy(out->dst_mac, b + ETH_DST, 6);
	memcpy(out->src_mac, b + ETH_SRC, 6);
	out->pfc_enable = get_be16(b + WIRE_ETH_LEN + 2) & 0xff;
	for (int c = 0; c < 8; c++)
		out->pfc_quanta[c] = get_be16(b + WIRE_ETH_LEN + 4 + 2 * c);
	return WIRE_R_OK;
}

/*
 * Everything above the IPv4 header of a frame whose Ethernet and IPv4 headers wire_ipv4_decode() read into @p ip:
 * UDP (or UET's entropy header), then UET, a connection-management message or RoCE. @p out is zeroed already;
 * *@p seen gets what the UDP checksum was (enum wire_csum_seen), when the frame is taken.
 */
static int dec_above_ipv4(const uint8_t *buf, const struct wire_ipv4 *ip, const struct wire_rx_cfg *cfg,
			  struct wire_pkt *out, uint8_t *seen)
{
	/* wire_ipv4_decode() checked that the datagram lies inside the frame: anything after it is Ethernet padding */
	size_t off = ip->l4_off, end = ip->l4_off + ip->l4_len;
	int rc;

	if (ip->proto != WIRE_IPPROTO_UDP && ip->proto != WIRE_IPPROTO_UET)
		return WIRE_R_NOT_UDP;
	memcpy(out->dst_mac, ip->dst_mac, 6);
	memcpy(out->src_mac, ip->src_mac, 6);
	out->dscp = ip->dscp;
	out->ecn = ip->ecn;
	out->ip_id = ip->ip_id;
	out->ttl = ip->ttl;
	out->src_ip = ip->src_ip;
	out->dst_ip = ip->dst_ip;
	if (ip->proto == WIRE_IPPROTO_UET)
		rc = dec_entropy(buf + off, end - off, out);
	else
		rc = dec_udp(buf + off, end - off, cfg, out, seen);
	if (rc < 0)
		return -rc;
	off += (size_t)rc;
	if (ip->proto == WIRE_IPPROTO_UDP && out->dport == WIRE_UDP_PORT_CM && out->dport != cfg->uet_port)
		rc = dec_cm(buf + off, end - off, out);
	else if (ip->proto == WIRE_IPPROTO_UDP && out->dport == WIRE_UDP_PORT_ROCE && out->dport != cfg->uet_port)
		rc = wire_roce_dec(buf, end, off, cfg, out);
	else
		rc = dec_uet(buf + off, end - off, cfg->crc,
			     cfg->crc_ip ? buf + ip->l4_off - WIRE_IPV4_LEN + WIRE_IPV4_CRC_FROM : buf + off, out);
	return rc < 0 ? -rc : WIRE_R_OK;
}

/* dec_above_ipv4(), and what it saw of the UDP checksum into @p info (may be NULL) when the frame is taken. */
static int dec_above_ipv4_info(const uint8_t *buf, const struct wire_ipv4 *ip, const struct wire_rx_cfg *cfg,
			       struct wire_pkt *out, struct wire_rx_info *info)
{
	uint8_t seen = WIRE_CSUM_SEEN_NONE;
	int rc = dec_above_ipv4(buf, ip, cfg, out, &seen);

	if (info != NULL && rc == WIRE_R_OK)
		info->udp_csum = seen;
	return rc;
}

int wire_decode_cfg(const uint8_t *buf, size_t len, const struct wire_rx_cfg *cfg, struct wire_pkt *out)
{
	return wire_decode_rx(buf, len, cfg, out, NULL);
}

int wire_decode_rx(const uint8_t *buf, size_t len, const struct wire_rx_cfg *cfg, struct wire_pkt *out,
		   struct wire_rx_info *info)
{
	struct wire_ipv4 ip;
	int rc;

	memset(out, 0, sizeof(*out));
	if (info != NULL)
		info->udp_csum = WIRE_CSUM_SEEN_NONE;
	if (len >= WIRE_ETH_LEN && get_be16(buf + ETH_TYPE) == WIRE_ETHERTYPE_MAC_CTRL)
		return dec_pfc(buf, len, out);
	if ((rc = wire_ipv4_decode(buf, len, &ip)) != WIRE_R_OK)
		return rc;
	return dec_above_ipv4_info(buf, &ip, cfg, out, info);
}

int wire_decode_ipv4(const uint8_t *buf, size_t len, const struct wire_ipv4 *ip, const struct wire_rx_cfg *cfg,
		     struct wire_pkt *out, struct wire_rx_info *info)
{
	memset(out, 0, sizeof(*out));
	if (info != NULL)
		info->udp_csum = WIRE_CSUM_SEEN_NONE;
	if (ip->l4_off > len || ip->l4_len > len - ip->l4_off) /* not this frame's decode: a caller's mistake */
		return WIRE_R_BAD_IP_LEN;
	return dec_above_ipv4_info(buf, ip, cfg, out, info);
}

int wire_decode(const uint8_t *buf, size_t len, uint16_t uet_port, struct wire_pkt *out)
{
	const struct wire_rx_cfg cfg = { .uet_port = uet_port, .crc = false };

	return wire_decode_cfg(buf, len, &cfg, out);
}

int wire_dec_ipv4_hdr(const uint8_t *b, size_t n, struct wire_ipv4 *out, size_t *dgram)
{
	if (n < WIRE_IPV4_LEN)
		return -WIRE_R_SHORT_IP;
	if (b[IP_VER_IHL] >> 4 != 4)
		return -WIRE_R_BAD_IP_VERSION;
	if ((b[IP_VER_IHL] & 0xf) != WIRE_IPV4_LEN / 4)
		return -WIRE_R_BAD_IHL;

	size_t tot = get_be16(b + IP_TOT_LEN);

	/* The frame cap counts too: a datagram we could not re-encode is not accepted. */
	if (tot < WIRE_IPV4_LEN || tot > n || tot > WIRE_MAX_FRAME - WIRE_ETH_LEN)
		return -WIRE_R_BAD_IP_LEN;
	if (wire_csum(b, WIRE_IPV4_LEN) != 0)
		return -WIRE_R_BAD_IP_CSUM;

	uint16_t frag = get_be16(b + IP_FRAG);

	if ((frag & IP_F_MF) || (frag & IP_FRAG_OFF_MASK) != 0)
		return -WIRE_R_IP_FRAGMENT;
	/* Any TTL is taken: a frame that crossed routers arrives with less than the 255 uetemu sends. */
	out->proto = b[IP_PROTO];
	out->ttl = b[IP_TTL];
	out->dscp = b[IP_TOS] >> 2;
	out->ecn = b[IP_TOS] & 0x3;
	out->ip_id = get_be16(b + IP_ID);
	out->src_ip = get_be32(b + IP_SRC);
	out->dst_ip = get_be32(b + IP_DST);
	out->l4_len = tot - WIRE_IPV4_LEN;
	*dgram = tot;
	return WIRE_IPV4_LEN;
}

int wire_ipv4_decode(const uint8_t *buf, size_t len, struct wire_ipv4 *out)
{
	size_t dgram = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (len < WIRE_ETH_LEN)
		return WIRE_R_SHORT_ETH;
	if (get_be16(buf + ETH_TYPE) != WIRE_ETHERTYPE_IPV4)
		return WIRE_R_NOT_IPV4;
	memcpy(out->dst_mac, buf + ETH_DST, 6);
	memcpy(out->src_mac, buf + ETH_SRC, 6);
	rc = wire_dec_ipv4_hdr(buf + WIRE_ETH_LEN, len - WIRE_ETH_LEN, out, &dgram);
	if (rc < 0)
		return -rc;
	out->l4_off = WIRE_ETH_LEN + (size_t)rc;
	return WIRE_R_OK;
}
