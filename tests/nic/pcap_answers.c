/*
 * Feed every frame of a pcap to a UET NIC and print what it answers, one line per frame:
 *   <frame> <PDS class> <answer>[,<answer>...] [done]
 * An answer is ack_cc / ack (with "+rsp" when it carries an SES response), nack:0xNN, rudi_resp, cp_<ctl_type>,
 * data[_syn][_retx]; "-" for none; "done" when the NIC's own message completed. Each frame is decoded
 * (wire_decode_cfg()) and handed, as from host 0, to host 1 of a fresh pair of NICs (tests/lib, 20 us link), whose
 * answers in the next 10 us are listed. With --open each frame first meets the state UET 1.0 gives it a use for:
 * a request carries SYN (psn_offset 0, the first packet of a PDC); an ACK, NACK, CLEAR_REQ or CLOSE_REQ names the
 * PDC and first PSN of a 4,096 B message host 1 is sending (no SACK bits); an ACK_REQ, CLEAR or CLOSE follows a SYN
 * request of its SPDCID that opened host 1's PDC. --ses-rsp: host 1's ACKs carry the SES response.
 * Used by tests/nic/test_uet_answers.sh. Usage: pcap_answers FILE.pcap [--crc] [--open] [--ses-rsp]
 */
#include "nic_pair.h"
#include "tfx_pcap.h"
#include "wire.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define US EMU_PS_PER_US
#define AT (5 * US)   /* when the frame reaches host 1 */
#define RCV_ID 32769  /* host 1's first receive PDC id */

static const char *const ctl_names[] = { "noop", "ack_req", "clear", "clear_req", "close", "close_req", "probe",
					 "credit", "credit_req", "negotiation" };
static bool ses_rsp;

static void tune(struct nic_params *p)
{
	p->ack_ses_response = ses_rsp;
}

static void inject(struct tfx_pair *b, const struct wire_pkt *tpl, emu_ps_t now)
{
	emu_sched_run_until(b->np.sched, now);
	struct wire_pkt *p = net_pkt_alloc(&b->np);

	if (p == NULL)
		exit(2);
	*p = *tpl;
	p->src_ip = b->neigh[0].ip;
	p->dst_ip = b->neigh[1].ip;
	memcpy(p->src_mac, b->neigh[0].mac, 6);
	memcpy(p->dst_mac, b->neigh[1].mac, 6);
	nic_dev_ops.receive(b->nic[1], 0, p, now);
}

static bool is_req(uint8_t t)
{
	return t == WIRE_PDS_RUD_REQ || t == WIRE_PDS_ROD_REQ || t == WIRE_PDS_RUD_CC_REQ || t == WIRE_PDS_ROD_CC_REQ;
}

static bool is_feedback(const struct wire_pkt *p)
{
	uint8_t t = p->pds.type;

	return t == WIRE_PDS_ACK || t == WIRE_PDS_ACK_CC || t == WIRE_PDS_ACK_CCX || t == WIRE_PDS_NACK ||
	       t == WIRE_PDS_NACK_CCX ||
	       (t == WIRE_PDS_CP && (p->pds.next_hdr == WIRE_CTL_CLEAR_REQ || p->pds.next_hdr == WIRE_CTL_CLOSE_REQ));
}

/* --open: give frame @p p the state it acts on; returns when it is to arrive. */
static emu_ps_t open_state(struct tfx_pair *b, struct wire_pkt *p)
{
	uint8_t ctl = p->pds.next_hdr;

	if (is_req(p->pds.type)) {
		p->pds.flags |= WIRE_REQ_F_SYN;
		p->pds.dpdcid = 0;
	} else if (is_feedback(p)) {
		uint16_t pdc;
		if (nic_post_pdc(b->nic[1], b->neigh[0].ip, 4096, 1, 0, &pdc) != 0)
			exit(2);
		emu_sched_run_until(b->np.sched, AT - US);
		uint32_t first = 0;
		for (int i = 0; i < b->n_seen; i++)
			if (b->seen[i].dir == 1 && b->seen[i].kind == WIRE_KIND_DATA) {
				first = b->seen[i].p.pds.psn;
				break;
			}
		p->pds.dpdcid = pdc;
		p->pds.psn = first;
		if (p->pds.type != WIRE_PDS_CP) {
			p->pds.psn_off = 0;
			p->pds.sack_psn_off = 0;
			p->ack.sack_bitmap = 0;
		}
	} else if (p->pds.type == WIRE_PDS_CP && (ctl == WIRE_CTL_ACK_REQ || ctl == WIRE_CTL_CLEAR ||
						  ctl == WIRE_CTL_CLOSE)) {
		struct wire_pkt r = { .kind = WIRE_KIND_UET, .payload_len = 0, .ecn = WIRE_ECN_ECT1 };
		r.pds.type = WIRE_PDS_RUD_REQ;
		r.pds.next_hdr = WIRE_NH_REQ_STD;
		r.pds.flags = WIRE_REQ_F_SYN;
		r.pds.psn = p->pds.psn - 1;
		r.pds.spdcid = p->pds.spdcid;
		r.ses.opcode = WIRE_SES_OP_SEND;
		r.ses.flags = WIRE_SES_F_SOM | WIRE_SES_F_EOM;
		inject(b, &r, AT - US);
		p->pds.dpdcid = RCV_ID;
	}
	return AT;
}

static void answer_str(const struct wire_pkt *a, char *s, size_t n)
{
	const char *rsp = a->pds.next_hdr == WIRE_NH_RESPONSE ? "+rsp" : "";

	switch (a->kind) {
	case WIRE_KIND_ACK:
		snprintf(s, n, "ack_cc%s", rsp);
		return;
	case WIRE_KIND_NACK:
		snprintf(s, n, "nack:0x%02x", a->pds.nack_code);
		return;
	case WIRE_KIND_CP:
		snprintf(s, n, "cp_probe");
		return;
	case WIRE_KIND_DATA:
		snprintf(s, n, "data%s%s", a->pds.flags & WIRE_REQ_F_SYN ? "_syn" : "",
			 a->pds.flags & WIRE_REQ_F_RETX ? "_retx" : "");
		return;
	default:
		break;
	}
	if (a->pds.type == WIRE_PDS_ACK)
		snprintf(s, n, "ack%s", rsp);
	else if (a->pds.type == WIRE_PDS_RUDI_RESP)
		snprintf(s, n, "rudi_resp%s", rsp);
	else if (a->pds.type == WIRE_PDS_CP && a->pds.next_hdr < 10)
		snprintf(s, n, "cp_%s", ctl_names[a->pds.next_hdr]);
	else
		snprintf(s, n, "uet:%u", a->pds.type);
}

static void one(unsigned n, const uint8_t *f, size_t len, const struct wire_rx_cfg *cfg, bool open)
{
	struct wire_pkt p;
	int r = wire_decode_cfg(f, len, cfg, &p);

	if (r != WIRE_R_OK) {
		printf("%u %s -\n", n, wire_reason_key(r));
		return;
	}
	struct tfx_opts o = { .delay = 20 * US, .tune = tune };
	struct tfx_pair *b = tfx_pair_new(&o);
	emu_ps_t at = open ? open_state(b, &p) : AT;
	emu_sched_run_until(b->np.sched, at);
	int from = b->n_seen, k = 0;
	inject(b, &p, at);
	emu_sched_run_until(b->np.sched, at + 10 * US);
	int pc = wire_pds_class(&p);
	printf("%u %s ", n, pc >= 0 ? wire_pds_class_key(pc) : "-");
	for (int i = from; i < b->n_seen; i++) {
		char s[32];
		if (b->seen[i].dir != 1)
			continue;
		answer_str(&b->seen[i].p, s, sizeof(s));
		printf("%s%s", k++ ? "," : "", s);
	}
	printf("%s%s\n", k ? "" : "-", b->done ? " done" : "");
	tfx_pair_free(b);
}

/* What each frame is taken with: the decode settings and --open. */
struct opts {
	struct wire_rx_cfg cfg;
	bool open;
};

static void each(void *ctx, unsigned n, const uint8_t *f, size_t len)
{
	const struct opts *o = ctx;

	one(n, f, len, &o->cfg, o->open);
}

int main(int argc, char **argv)
{
	struct opts o = { .cfg = { .uet_port = WIRE_UDP_PORT_UET, .crc = false }, .open = false };

	if (argc < 2) {
		fprintf(stderr, "usage: pcap_answers FILE.pcap [--crc] [--open] [--ses-rsp]\n");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--crc") == 0)
			o.cfg.crc = true;
		else if (strcmp(argv[i], "--open") == 0)
			o.open = true;
		else if (strcmp(argv[i], "--ses-rsp") == 0)
			ses_rsp = true;
	}
	return tfx_pcap_each("pcap_answers", argv[1], each, &o);
}
