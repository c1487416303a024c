/* The conformance cases: each a short exchange with the device under test, as a peer initiator would have it, and
 * the answers UET 1.0 prescribes (docs/conform.md has the table). Every case opens a PDC of its own. */
#include "ctl_conform_pvt.h"

#include <stdio.h>

static bool is_ack(const struct wire_pkt *p)
{
	return p->pds.type == WIRE_PDS_ACK || p->pds.type == WIRE_PDS_ACK_CC || p->pds.type == WIRE_PDS_ACK_CCX;
}

static bool is_nack(const struct wire_pkt *p)
{
	return p->pds.type == WIRE_PDS_NACK || p->pds.type == WIRE_PDS_NACK_CCX;
}

/* Exactly one answer came: 0 with it in *out, else the reason. @p step says what was sent. */
static int one(struct cf *c, const char *step, const struct wire_pkt **out)
{
	char d[160];
	unsigned n = cf_collect(c, 1);

	if (n == 0)
		return cf_fail(c, "%s: no answer", step);
	if (n > 1)
		return cf_fail(c, "%s: %u answers, one expected (the first: %s)", step, n, cf_desc(&c->ans[0], d, sizeof(d)));
	*out = &c->ans[0];
	return 0;
}

/* One ACK with CACK_PSN Start_PSN + @p cack, naming the case's PDC as its DPDCID. */
static int want_ack(struct cf *c, const char *step, uint32_t cack, const struct wire_pkt **out)
{
	char d[160];
	const struct wire_pkt *a = NULL;

	if (one(c, step, &a) < 0)
		return -1;
	if (!is_ack(a))
		return cf_fail(c, "%s: an ACK expected, got %s", step, cf_desc(a, d, sizeof(d)));
	if (a->pds.psn != c->start_psn + cack)
		return cf_fail(c, "%s: CACK_PSN %u expected (Start_PSN + %u), got %s", step, c->start_psn + cack, cack,
			       cf_desc(a, d, sizeof(d)));
	if (a->pds.dpdcid != c->spdcid)
		return cf_fail(c, "%s: the ACK's DPDCID is %u, not the initiator's SPDCID %u", step, a->pds.dpdcid,
			       c->spdcid);
	if (out != NULL)
		*out = a;
	return 0;
}

/* One NACK with code @p code and NACK_PSN Start_PSN + @p psn. */
static int want_nack(struct cf *c, const char *step, uint8_t code, uint32_t psn, const struct wire_pkt **out)
{
	char d[160];
	const struct wire_pkt *a = NULL;

	if (one(c, step, &a) < 0)
		return -1;
	if (!is_nack(a))
		return cf_fail(c, "%s: a NACK expected, got %s", step, cf_desc(a, d, sizeof(d)));
	if (a->pds.nack_code != code)
		return cf_fail(c, "%s: NACK code 0x%02x expected, got %s", step, code, cf_desc(a, d, sizeof(d)));
	if (a->pds.psn != c->start_psn + psn)
		return cf_fail(c, "%s: NACK_PSN %u expected, got %s", step, c->start_psn + psn, cf_desc(a, d, sizeof(d)));
	if (out != NULL)
		*out = a;
	return 0;
}

/* Send request @p idx of the case's PDC with @p flags (ECN @p ecn) to the DUT's PDC @p dpdcid. */
static int send_req(struct cf *c, uint8_t type, uint8_t flags, uint32_t idx, uint16_t dpdcid, uint8_t ecn)
{
	struct wire_pkt p;

	cf_req(c, &p, type, flags, idx, dpdcid);
	p.ecn = ecn;
	return cf_send(c, &p);
}

/* PSN Start_PSN with SYN and AR: the DUT opens a PDC and ACKs it; its id (the ACK's SPDCID) in *dut. */
static int open_pdc(struct cf *c, uint8_t type, uint16_t *dut)
{
	const struct wire_pkt *a = NULL;

	if (send_req(c, type, WIRE_REQ_F_SYN | WIRE_REQ_F_AR, 0, 0, WIRE_ECN_ECT0) < 0 ||
	    want_ack(c, "SYN request at Start_PSN", 0, &a) < 0)
		return -1;
	if (a->pds.spdcid == 0)
		return cf_fail(c, "the ACK of the SYN names no PDC of the target (SPDCID 0)");
	*dut = a->pds.spdcid;
	return 0;
}

static int c_pdc_establish(struct cf *c)
{
	uint16_t dut = 0;

	return open_pdc(c, WIRE_PDS_RUD_REQ, &dut);
}

static int c_sack(struct cf *c)
{
	const struct wire_pkt *a = NULL;
	uint16_t dut = 0;

	if (open_pdc(c, WIRE_PDS_RUD_REQ, &dut) < 0 || send_req(c, WIRE_PDS_RUD_REQ, WIRE_REQ_F_AR, 2, dut, WIRE_ECN_ECT0) < 0 ||
	    want_ack(c, "PSN +2 before +1", 0, &a) < 0)
		return -1;
	/* SACK_base = CACK_PSN + sack_psn_offset; PSN +2 is bit (+2 - base) */
	int32_t bit = 2 - a->pds.sack_psn_off;
	if (bit < 0 || bit > 63 || !((a->ack.sack_bitmap >> bit) & 1))
		return cf_fail(c, "PSN +2 before +1: the ACK's SACK bitmap does not hold PSN +2 (base +%d, bitmap "
				  "0x%016llx)", a->pds.sack_psn_off, (unsigned long long)a->ack.sack_bitmap);
	if (send_req(c, WIRE_PDS_RUD_REQ, WIRE_REQ_F_AR, 1, dut, WIRE_ECN_ECT0) < 0 ||
	    want_ack(c, "PSN +1 filling the gap", 2, NULL) < 0)
		return -1;
	return 0;
}

static int c_duplicate(struct cf *c)
{
	uint16_t dut = 0;

	if (open_pdc(c, WIRE_PDS_RUD_REQ, &dut) < 0 ||
	    send_req(c, WIRE_PDS_RUD_REQ, WIRE_REQ_F_AR, 0, dut, WIRE_ECN_ECT0) < 0 ||
	    want_ack(c, "the same PSN again", 0, NULL) < 0)
		return -1;
	return 0;
}

static int c_rod_gap(struct cf *c)
{
	const struct wire_pkt *a = NULL;
	uint16_t dut = 0;

	if (open_pdc(c, WIRE_PDS_ROD_REQ, &dut) < 0 ||
	    send_req(c, WIRE_PDS_ROD_REQ, WIRE_REQ_F_AR, 2, dut, WIRE_ECN_ECT0) < 0 ||
	    want_nack(c, "ROD PSN +2 before +1", WIRE_NACK_ROD_OOO, 2, &a) < 0)
		return -1;
	if (a->pds.payload != c->start_psn + 1)
		return cf_fail(c, "ROD PSN +2 before +1: the NACK's payload (the next expected PSN) is %u, not %u",
			       a->pds.payload, c->start_psn + 1);
	return 0;
}

static int c_trimmed(struct cf *c)
{
	struct wire_pkt p;
	uint16_t dut = 0;

	if (open_pdc(c, WIRE_PDS_RUD_REQ, &dut) < 0)
		return -1;
	cf_req(c, &p, WIRE_PDS_RUD_REQ, WIRE_REQ_F_AR, 1, dut);
	p.trim_len = WIRE_PDS_REQ_LEN; /* cut after its PDS header, as a switch trims (spec 1.6) */
	p.dscp = 16;                   /* TRIMMED's codepoint */
	p.payload_len = 0;
	if (cf_send(c, &p) < 0 || want_nack(c, "PSN +1 trimmed", WIRE_NACK_TRIMMED, 1, NULL) < 0)
		return -1;
	return 0;
}

static int c_retransmit(struct cf *c)
{
	char d[160];
	const struct wire_pkt *a = NULL;
	uint16_t dut = 0;

	if (open_pdc(c, WIRE_PDS_RUD_REQ, &dut) < 0 ||
	    send_req(c, WIRE_PDS_RUD_REQ, WIRE_REQ_F_AR, 2, dut, WIRE_ECN_ECT0) < 0 ||
	    want_ack(c, "PSN +2 (+1 lost)", 0, NULL) < 0 ||
	    send_req(c, WIRE_PDS_RUD_REQ, WIRE_REQ_F_AR | WIRE_REQ_F_RETX, 1, dut, WIRE_ECN_ECT0) < 0 ||
	    want_ack(c, "PSN +1 retransmitted", 2, &a) < 0)
		return -1;
	if (!(a->pds.flags & WIRE_ACK_F_RETX))
		return cf_fail(c, "PSN +1 retransmitted: the ACK does not echo RETX (%s)", cf_desc(a, d, sizeof(d)));
	return 0;
}

static int c_ecn(struct cf *c)
{
	char d[160];
	const struct wire_pkt *a = NULL;
	uint16_t dut = 0;

	if (open_pdc(c, WIRE_PDS_RUD_REQ, &dut) < 0)
		return -1;
	if (c->ans[0].pds.flags & WIRE_ACK_F_M)
		return cf_fail(c, "the ACK of a request without CE has M set");
	if (send_req(c, WIRE_PDS_RUD_REQ, WIRE_REQ_F_AR, 1, dut, WIRE_ECN_CE) < 0 ||
	    want_ack(c, "PSN +1 with ECN CE", 1, &a) < 0)
		return -1;
	if (!(a->pds.flags & WIRE_ACK_F_M))
		return cf_fail(c, "PSN +1 with ECN CE: the ACK does not set M (%s)", cf_desc(a, d, sizeof(d)));
	return 0;
}

static int c_inv_dpdcid(struct cf *c)
{
	if (send_req(c, WIRE_PDS_RUD_REQ, WIRE_REQ_F_AR, 0, 0x0abc, WIRE_ECN_ECT0) < 0 ||
	    want_nack(c, "request without SYN for no PDC", WIRE_NACK_INV_DPDCID, 0, NULL) < 0)
		return -1;
	return 0;
}

/* A RUDI request (a standard SES WRITE of one packet, pkt_id Start_PSN): 0 with its answer checked as a RUDI
 * response with that pkt_id, in *out. */
static int rudi(struct cf *c, const char *step, const struct wire_pkt **out)
{
	char d[160];
	struct wire_pkt p;
	const struct wire_pkt *a = NULL;

	cf_req(c, &p, WIRE_PDS_RUDI_REQ, 0, 0, 0);
	p.ses.flags = WIRE_SES_F_SOM | WIRE_SES_F_EOM;
	p.ses.request_length = CF_PAYLOAD;
	if (cf_send(c, &p) < 0 || one(c, step, &a) < 0)
		return -1;
	if (a->pds.type != WIRE_PDS_RUDI_RESP || a->pds.psn != c->start_psn)
		return cf_fail(c, "%s: a RUDI response with pkt_id %u expected, got %s", step, c->start_psn,
			       cf_desc(a, d, sizeof(d)));
	*out = a;
	return 0;
}

static int c_ses_response(struct cf *c)
{
	const struct wire_pkt *a = NULL;

	if (rudi(c, "RUDI WRITE", &a) < 0)
		return -1;
	if (a->pds.next_hdr != WIRE_NH_RESPONSE)
		return cf_fail(c, "RUDI WRITE: the RUDI response carries no SES response (next_hdr %u)", a->pds.next_hdr);
	if (a->rsp.return_code != WIRE_SES_RC_OK)
		return cf_fail(c, "RUDI WRITE: SES return code 0x%02x, RC_OK (0x01) expected", a->rsp.return_code);
	if (a->rsp.message_id != (uint16_t)(c->spdcid ^ 0x5a5a))
		return cf_fail(c, "RUDI WRITE: the SES response's message_id %u is not the request's %u",
			       a->rsp.message_id, (uint16_t)(c->spdcid ^ 0x5a5a));
	return 0;
}

static int c_pdc_close(struct cf *c)
{
	struct wire_pkt p;
	uint16_t dut = 0;

	if (open_pdc(c, WIRE_PDS_RUD_REQ, &dut) < 0)
		return -1;
	cf_cp(c, &p, WIRE_CTL_ACK_REQ, 1, dut);
	if (cf_send(c, &p) < 0 || want_ack(c, "CP ACK_REQ", 0, NULL) < 0)
		return -1;
	cf_cp(c, &p, WIRE_CTL_CLOSE, 1, dut);
	if (cf_send(c, &p) < 0 || want_ack(c, "CP CLOSE", 0, NULL) < 0)
		return -1;
	/* closed: a control packet for it names no PDC now */
	cf_cp(c, &p, WIRE_CTL_ACK_REQ, 1, dut);
	if (cf_send(c, &p) < 0 || want_nack(c, "CP ACK_REQ after CLOSE", WIRE_NACK_INV_DPDCID, 1, NULL) < 0)
		return -1;
	return 0;
}

static int c_bad_frames(struct cf *c)
{
	static const char *const what[] = { "IPv4 header checksum wrong", "reserved PDS type 0",
					    "cut inside the PDS header", "UDP length one too long" };
	uint8_t buf[WIRE_MAX_FRAME];
	struct wire_pkt p;
	const struct wire_pkt *a = NULL;
	size_t pds = WIRE_ETH_LEN + WIRE_IPV4_LEN + (c->encap & WIRE_ENCAP_NATIVE ? WIRE_ENTROPY_LEN : WIRE_UDP_LEN);
	unsigned n_bad = c->encap & WIRE_ENCAP_NATIVE ? 3 : 4; /* native IPv4 has no UDP length */

	for (unsigned i = 0; i < n_bad; i++) {
		cf_req(c, &p, WIRE_PDS_RUDI_REQ, 0, 0, 0);
		p.pds.psn = c->start_psn + 100 + i;
		int n = wire_encode(&p, buf, sizeof(buf));
		if (n < 0)
			return cf_fail(c, "the encoder refused a RUDI request: a bug of the suite");
		size_t len = (size_t)n;
		if (i == 0) {
			buf[WIRE_ETH_LEN + 10] ^= 0x5a; /* the IPv4 header checksum */
		} else if (i == 1) {
			buf[pds] &= 0x07; /* the prologue's 5-bit type: 0 */
		} else if (i == 2) {
			len = pds + 4; /* and the IPv4 total length says so: a well-formed datagram, a short PDS header */
			uint16_t ip_len = (uint16_t)(len - WIRE_ETH_LEN);
			buf[WIRE_ETH_LEN + 2] = (uint8_t)(ip_len >> 8);
			buf[WIRE_ETH_LEN + 3] = (uint8_t)ip_len;
			buf[WIRE_ETH_LEN + 10] = buf[WIRE_ETH_LEN + 11] = 0;
			uint16_t cs = wire_csum(buf + WIRE_ETH_LEN, WIRE_IPV4_LEN);
			buf[WIRE_ETH_LEN + 10] = (uint8_t)(cs >> 8);
			buf[WIRE_ETH_LEN + 11] = (uint8_t)cs;
			if (!(c->encap & WIRE_ENCAP_NATIVE)) {
				uint16_t udp_len = (uint16_t)(len - WIRE_ETH_LEN - WIRE_IPV4_LEN);
				buf[WIRE_ETH_LEN + WIRE_IPV4_LEN + 4] = (uint8_t)(udp_len >> 8);
				buf[WIRE_ETH_LEN + WIRE_IPV4_LEN + 5] = (uint8_t)udp_len;
			}
		} else {
			size_t u = WIRE_ETH_LEN + WIRE_IPV4_LEN + 4;
			uint16_t udp_len = (uint16_t)(((unsigned)buf[u] << 8 | buf[u + 1]) + 1u);
			buf[u] = (uint8_t)(udp_len >> 8);
			buf[u + 1] = (uint8_t)udp_len;
		}
		if (cf_send_raw(c, buf, len) < 0)
			return -1;
		unsigned got = cf_collect(c, 0);
		if (got != 0) {
			char d[160];
			return cf_fail(c, "a frame with %s was answered (%s); it must be refused", what[i],
				       cf_desc(&c->ans[0], d, sizeof(d)));
		}
	}
	if (rudi(c, "a good RUDI request after the bad frames", &a) < 0)
		return -1;
	return 0;
}

const struct cf_case cf_cases[] = {
	{ "pdc_establish", "RUD request, SYN + AR, PSN = Start_PSN (psn_offset 0), a new SPDCID",
	  "an ACK: CACK_PSN = Start_PSN, DPDCID = the initiator's SPDCID, SPDCID = the new PDC (not 0)",
	  "1.3, 1.7", c_pdc_establish },
	{ "sack_out_of_order", "PDC open at S; S+2 (AR), then S+1 (AR)",
	  "ACK CACK_PSN S with S+2's bit set in the SACK bitmap (SACK_base = CACK_PSN + sack_psn_offset); then ACK "
	  "CACK_PSN S+2", "1.3, 1.7", c_sack },
	{ "duplicate", "PDC open at S; S again (AR)", "an ACK CACK_PSN S (a duplicate is acknowledged, not NACKed)",
	  "1.7", c_duplicate },
	{ "rod_gap_nack", "ROD PDC open at S; S+2 (AR)",
	  "NACK ROD_OOO (0x0D), NACK_PSN S+2, payload S+1 (the next expected PSN)", "1.3, 1.7", c_rod_gap },
	{ "trimmed_nack", "PDC open at S; S+1 trimmed after its PDS header, DSCP TRIMMED",
	  "NACK UET_TRIMMED (0x01), NACK_PSN S+1", "1.3, 1.6", c_trimmed },
	{ "retransmit_after_loss", "PDC open at S; S+2 (S+1 lost); S+1 again with RETX",
	  "ACK CACK_PSN S; then ACK CACK_PSN S+2 with RETX echoed", "1.3, 1.7", c_retransmit },
	{ "ecn_echo", "PDC open at S (ECT0); S+1 with ECN CE (AR)",
	  "the first ACK without M; the ACK of S+1 with M set", "1.3, 1.7", c_ecn },
	{ "invalid_dpdcid", "RUD request without SYN to a DPDCID the DUT never gave",
	  "NACK INV_DPDCID (0x0E), NACK_PSN the request's", "1.3", c_inv_dpdcid },
	{ "ses_response", "RUDI request, standard SES WRITE of one packet",
	  "RUDI response with its pkt_id, carrying an SES response: RC_OK, the request's message_id", "1.3, 1.4, 1.7",
	  c_ses_response },
	{ "pdc_close", "PDC open at S; CP ACK_REQ; CP CLOSE; CP ACK_REQ again",
	  "ACK CACK_PSN S to each of the first two; NACK INV_DPDCID to the third (the PDC is closed)", "1.3, 1.7",
	  c_pdc_close },
	{ "bad_frames", "IPv4 checksum wrong; reserved PDS type; PDS header cut; UDP length wrong; then a good RUDI request",
	  "no answer to any bad frame; the good request answered (the DUT still works)", "1.1, 1.2, 1.3",
	  c_bad_frames },
};

const unsigned cf_n_cases = sizeof(cf_cases) / sizeof(cf_cases[0]);
