/*
 * libFuzzer target for wire_decode_cfg (with and without a required CRC trailer, RoCE ICRC and RETH) with a
 * decode(encode(x)) check,
 * plus a replay driver built with -DWIRE_FUZZ_REPLAY that replays files, directories of files (a corpus such as
 * tests/wire/corpus/) or deterministic pseudo-random inputs.
 */
#include "wire.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_OFF_IP 14
#define FUZZ_OFF_UDP 34
#define FUZZ_OFF_PDS 42

/* The RoCE headers, field by field. */
static int roce_equal(const struct wire_roce *x, const struct wire_roce *y)
{
	return x->opcode == y->opcode && x->se == y->se && x->pkey == y->pkey && x->dqpn == y->dqpn &&
	       x->ack_req == y->ack_req && x->psn == y->psn && x->va == y->va && x->rkey == y->rkey &&
	       x->dma_len == y->dma_len && x->syndrome == y->syndrome && x->msn == y->msn;
}

/* Field-by-field equality (struct padding makes memcmp unreliable). */
static int pkt_equal(const struct wire_pkt *a, const struct wire_pkt *b)
{
	if (a->kind == WIRE_KIND_ROCE && (b->kind != WIRE_KIND_ROCE || !roce_equal(&a->roce, &b->roce)))
		return 0;
	const struct wire_pds *x = &a->pds, *y = &b->pds;
	const struct wire_ses *s = &a->ses, *t = &b->ses;
	const struct wire_cm *c = &a->cm, *d = &b->cm;
	const struct wire_rsp *r = &a->rsp, *q = &b->rsp;
	const struct wire_ack *g = &a->ack, *h = &b->ack;

	if (a->encap != b->encap || a->trim_len != b->trim_len || g->cc_raw[0] != h->cc_raw[0] ||
	    g->cc_raw[1] != h->cc_raw[1] || s->amo_opcode != t->amo_opcode || s->amo_datatype != t->amo_datatype ||
	    s->amo_sem_ctl != t->amo_sem_ctl || memcmp(s->amo_compare, t->amo_compare, sizeof(s->amo_compare)) != 0 ||
	    memcmp(s->amo_swap, t->amo_swap, sizeof(s->amo_swap)) != 0 || s->rdv_eager_len != t->rdv_eager_len ||
	    s->rdv_pid_on_fep != t->rdv_pid_on_fep || s->rdv_resource_index != t->rdv_resource_index ||
	    s->rdv_offset != t->rdv_offset || s->rdv_match_bits != t->rdv_match_bits || r->list != q->list ||
	    r->opcode != q->opcode || r->ver != q->ver || r->return_code != q->return_code ||
	    r->message_id != q->message_id || r->ri_generation != q->ri_generation || r->job_id != q->job_id ||
	    r->modified_length != q->modified_length || r->read_req_message_id != q->read_req_message_id ||
	    r->payload_length != q->payload_length || r->message_offset != q->message_offset ||
	    r->original_request_psn != q->original_request_psn || a->tss.sp != b->tss.sp || a->tss.an != b->tss.an ||
	    a->tss.sdi != b->tss.sdi || a->tss.ssi != b->tss.ssi || a->tss.tsc != b->tss.tsc)
		return 0;
	return a->kind == b->kind && memcmp(a->dst_mac, b->dst_mac, 6) == 0 &&
	       memcmp(a->src_mac, b->src_mac, 6) == 0 && a->src_ip == b->src_ip && a->dst_ip == b->dst_ip &&
	       a->dscp == b->dscp && a->ecn == b->ecn && a->ttl == b->ttl && a->ip_id == b->ip_id &&
	       a->sport == b->sport && a->dport == b->dport && a->payload_len == b->payload_len &&
	       x->type == y->type && x->next_hdr == y->next_hdr && x->flags == y->flags && x->psn_off == y->psn_off &&
	       x->probe_opaque == y->probe_opaque && x->psn == y->psn && x->spdcid == y->spdcid &&
	       x->dpdcid == y->dpdcid && x->ccc_id == y->ccc_id && x->credit_target == y->credit_target &&
	       x->cc_type == y->cc_type && x->cc_flags == y->cc_flags && x->mpr == y->mpr &&
	       x->sack_psn_off == y->sack_psn_off && g->sack_bitmap == h->sack_bitmap &&
	       g->service_time == h->service_time && g->rc == h->rc && g->rcv_cwnd_pend == h->rcv_cwnd_pend &&
	       g->rcvd_bytes == h->rcvd_bytes && g->ooo_count == h->ooo_count && x->nack_code == y->nack_code &&
	       x->vendor_code == y->vendor_code && x->payload == y->payload && s->opcode == t->opcode &&
	       s->ver == t->ver && s->flags == t->flags && s->message_id == t->message_id &&
	       s->ri_generation == t->ri_generation && s->job_id == t->job_id && s->pid_on_fep == t->pid_on_fep &&
	       s->resource_index == t->resource_index && s->buffer_offset == t->buffer_offset &&
	       s->initiator == t->initiator && s->memory_key == t->memory_key && s->header_data == t->header_data &&
	       s->payload_length == t->payload_length && s->message_offset == t->message_offset &&
	       s->request_length == t->request_length && a->pfc_enable == b->pfc_enable &&
	       memcmp(a->pfc_quanta, b->pfc_quanta, sizeof(a->pfc_quanta)) == 0 && c->type == d->type &&
	       c->connection == d->connection && c->local_id == d->local_id && c->remote_id == d->remote_id &&
	       c->qpn == d->qpn;
}

/*
 * Re-encode a decoded packet into an exact-size buffer and decode it again with the same receiver settings: every
 * field must survive.
 */
static void check_round_trip(const struct wire_pkt *p, const struct wire_rx_cfg *cfg)
{
	size_t n = wire_frame_len(p);
	uint8_t *buf = malloc(n);
	struct wire_pkt q, want = *p;

	if (n == 0 || buf == NULL || wire_encode(p, buf, n) != (int)n)
		abort();
	/* The UET port decode_one() used: with the packet's own dport a CM frame (4794) would be read as UET. */
	if (wire_decode_cfg(buf, n, cfg, &q) != WIRE_R_OK)
		abort();
	/* The encoder sends PFC to 01:80:C2:00:00:01 (wire.h); the decoder takes a pause to any address. */
	if (want.kind == WIRE_KIND_PFC)
		memcpy(want.dst_mac, (const uint8_t[6]){ 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 }, 6);
	if (!pkt_equal(&want, &q))
		abort();
	free(buf);
}

/* The ARP and ICMP decoders on the same bytes: a decoded ARP message re-encodes to what it was read from, and
 * an ICMP message's data lies inside the input. */
static void decode_arp_icmp(const uint8_t *data, size_t size)
{
	struct wire_arp a, b;
	struct wire_icmp m;
	uint8_t buf[WIRE_ETH_MIN_FRAME];
	int r = wire_arp_decode(data, size, &a);

	if (r < 0 || r >= WIRE_R_COUNT)
		abort();
	if (r == WIRE_R_OK && (wire_arp_encode(&a, buf, sizeof(buf)) != WIRE_ETH_MIN_FRAME ||
			       memcmp(buf, data, WIRE_ETH_LEN + WIRE_ARP_LEN) != 0 ||
			       wire_arp_decode(buf, sizeof(buf), &b) != WIRE_R_OK))
		abort();
	r = wire_icmp_decode(data, size, &m);
	if (r < 0 || r >= WIRE_R_COUNT)
		abort();
	if (r == WIRE_R_OK && (m.data < data || m.data + m.data_len > data + size))
		abort();
}

/* The 802.1Q tag decoder on the same bytes: a tag read is pushed back to the same 4 bytes, and the frame without
 * it is 4 bytes shorter with the same MACs and what followed the tag. */
static void decode_vlan(const uint8_t *data, size_t size)
{
	struct wire_vlan v;
	int r = wire_vlan_decode(data, size, &v);

	if (r < 0 || r >= WIRE_R_COUNT)
		abort();
	if (r != WIRE_R_OK)
		return;
	uint8_t *out = malloc(size + WIRE_VLAN_LEN);
	if (out == NULL)
		return;
	int n = wire_vlan_strip(data, size, out + WIRE_VLAN_LEN, size);
	if (n != (int)size - WIRE_VLAN_LEN || memcmp(out + WIRE_VLAN_LEN, data, 12) != 0 ||
	    memcmp(out + WIRE_VLAN_LEN + 12, data + 16, size - 16) != 0)
		abort();
	if (v.dei == 0 && (wire_vlan_push(out, (size_t)n, v.vid, v.pcp) != size || memcmp(out, data, size) != 0))
		abort();
	free(out);
}

/* Decode @p data as a receiver without and with a required CRC trailer (UET), ICRC and RETH (RoCE); each success
 * must round-trip. */
static void decode_one(const uint8_t *data, size_t size)
{
	for (int v = 0; v < 4; v++) {
		const struct wire_rx_cfg cfg = { .uet_port = WIRE_UDP_PORT_UET, .crc = v & 1, .roce_icrc = (v >> 1) & 1,
						 .roce_reth = (v >> 1) & 1 };
		struct wire_pkt p;
		int r = wire_decode_cfg(data, size, &cfg, &p);

		if (r < 0 || r >= WIRE_R_COUNT)
			abort();
		if (r == WIRE_R_OK)
			check_round_trip(&p, &cfg);
	}
	decode_arp_icmp(data, size);
	decode_vlan(data, size);
}

/*
 * Random bytes almost never carry a right IPv4 checksum, so a second pass decodes a copy whose IP and UDP lengths
 * and checksum are made to fit the input: that lets the fuzzer reach the PDS and SES parsers.
 */
static void decode_fixed(const uint8_t *data, size_t size)
{
	if (size < FUZZ_OFF_PDS || size - FUZZ_OFF_IP > 0xffff)
		return;

	uint8_t *c = malloc(size);
	size_t dgram = size - FUZZ_OFF_IP;

	if (c == NULL)
		return;
	memcpy(c, data, size);
	c[FUZZ_OFF_IP + 2] = (uint8_t)(dgram >> 8);
	c[FUZZ_OFF_IP + 3] = (uint8_t)dgram;
	c[FUZZ_OFF_UDP + 4] = (uint8_t)((dgram - 20) >> 8);
	c[FUZZ_OFF_UDP + 5] = (uint8_t)(dgram - 20);
	c[FUZZ_OFF_IP + 10] = 0;
	c[FUZZ_OFF_IP + 11] = 0;

	uint16_t sum = wire_csum(c + FUZZ_OFF_IP, 20);

	c[FUZZ_OFF_IP + 10] = (uint8_t)(sum >> 8);
	c[FUZZ_OFF_IP + 11] = (uint8_t)sum;
	decode_one(c, size);
	free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	decode_one(data, size);
	decode_fixed(data, size);
	return 0;
}

#ifdef WIRE_FUZZ_REPLAY

#define REPLAY_COUNT 10000

static uint64_t replay_rng(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

/* Make the random UET packet @p p a shape of UET 1.0: a type, a next_hdr it takes, no trim or a valid one. */
static void replay_uet_shape(uint64_t *s, struct wire_pkt *p)
{
	static const uint8_t types[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14 };
	static const uint8_t req_nh[] = { 1, 2, 3, 5, 6 }, rsp_nh[] = { 0, 4, 5, 6 };
	uint8_t t = types[replay_rng(s) % sizeof(types)];
	bool req = t == 2 || t == 3 || t == 4 || t == 6 || t == 13 || t == 14;

	p->pds.type = t;
	if (t == WIRE_PDS_CP)
		p->pds.next_hdr = (uint8_t)(replay_rng(s) % 10);
	else
		p->pds.next_hdr = req ? req_nh[replay_rng(s) % 5] : rsp_nh[replay_rng(s) % 4];
	p->trim_len = 0;
	if (req && replay_rng(s) % 8 == 0) /* a trim right after the PDS header: 4, 8, 12 or 16 B */
		p->trim_len = t == 6 ? 4 : t == 4 ? 8 : t >= 13 ? 16 : 12;
	p->tss.sp &= 1;
	if (t == WIRE_PDS_TSS && p->payload_len < WIRE_TSS_ICV_LEN)
		p->payload_len = WIRE_TSS_ICV_LEN;
}

/* A valid frame of a random kind with random fields, then a few random byte flips and maybe a cut. */
static size_t replay_input(uint64_t *s, uint8_t *buf, size_t cap)
{
	struct wire_pkt p;
	uint8_t *raw = (uint8_t *)&p;

	for (size_t i = 0; i < sizeof(p); i++)
		raw[i] = (uint8_t)replay_rng(s);
	p.kind = (uint8_t)(1 + replay_rng(s) % WIRE_KIND_UET); /* every kind, WIRE_KIND_DATA .. WIRE_KIND_UET */
	p.dport = p.kind == WIRE_KIND_CM ? WIRE_UDP_PORT_CM : WIRE_UDP_PORT_UET;
	p.encap &= WIRE_ENCAP_NATIVE | WIRE_ENCAP_CRC;
	if (p.kind == WIRE_KIND_CM && replay_rng(s) % 8 != 0) /* mostly a type the decoder takes */
		p.cm.type = (uint8_t)(WIRE_CM_REQ + replay_rng(s) % 3);
	p.payload_len = (uint32_t)(replay_rng(s) % 1500);
	if (p.kind == WIRE_KIND_UET)
		replay_uet_shape(s, &p);
	if (replay_rng(s) % 8 == 0) { /* raw random bytes */
		size_t n = (size_t)(replay_rng(s) % 200);

		for (size_t i = 0; i < n; i++)
			buf[i] = (uint8_t)replay_rng(s);
		return n;
	}

	int n = wire_encode(&p, buf, cap);

	if (n <= 0)
		abort();
	for (uint64_t k = replay_rng(s) % 3; k > 0; k--)
		buf[replay_rng(s) % (uint64_t)n] ^= (uint8_t)replay_rng(s);
	if (replay_rng(s) % 4 == 0)
		n = (int)(replay_rng(s) % (uint64_t)n);
	return (size_t)n;
}

static int replay_file(const char *path);

/* Every regular file of directory @p path (a corpus); 0, or 1 when one could not be read. */
static int replay_dir(DIR *d, const char *path)
{
	struct dirent *e;
	char name[4096];
	int bad = 0, n = 0;

	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(name, sizeof(name), "%s/%s", path, e->d_name);
		bad |= replay_file(name);
		n++;
	}
	closedir(d);
	printf("fuzz_wire_replay: %d corpus files from %s\n", n, path);
	return bad;
}

static int replay_file(const char *path)
{
	DIR *d = opendir(path);

	if (d != NULL)
		return replay_dir(d, path);

	FILE *f = fopen(path, "rb");
	uint8_t *buf = malloc(1 << 20);
	size_t n;

	if (f == NULL || buf == NULL) {
		fprintf(stderr, "fuzz_wire_replay: cannot read %s\n", path);
		if (f)
			fclose(f);
		free(buf);
		return 1;
	}
	n = fread(buf, 1, 1 << 20, f);
	fclose(f);

	uint8_t *exact = malloc(n ? n : 1); /* exact size, so ASan sees over-reads */

	if (exact == NULL) {
		free(buf);
		return 1;
	}
	memcpy(exact, buf, n);
	LLVMFuzzerTestOneInput(exact, n);
	free(exact);
	free(buf);
	return 0;
}

/* Replay the files (or directories of files) named on the command line, or REPLAY_COUNT pseudo-random inputs. */
int main(int argc, char **argv)
{
	static uint8_t buf[WIRE_MAX_FRAME];
	uint64_t s = 0x77697265u; /* "wire" */
	int bad = 0;

	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			bad |= replay_file(argv[i]);
		return bad;
	}
	for (int i = 0; i < REPLAY_COUNT; i++) {
		size_t n = replay_input(&s, buf, sizeof(buf));
		uint8_t *exact = malloc(n ? n : 1);

		if (exact == NULL)
			return 1;
		memcpy(exact, buf, n);
		LLVMFuzzerTestOneInput(exact, n);
		free(exact);
	}
	printf("fuzz_wire_replay: %d inputs\n", REPLAY_COUNT);
	return 0;
}

#endif /* WIRE_FUZZ_REPLAY */
