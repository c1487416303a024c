/*
 * pcap-info: what a capture file holds, read with the bounded reader and each frame decoded with wire_decode():
 * per-type counts of UET packets, ECN codepoints, decode errors by reason, and per PDC its messages, their sizes
 * and completion times. A frame cut by a snap length is decoded from its headers when they were captured whole.
 */
#include "cap_pvt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A message of a PDC between its first data frame and the ACK that covers its last packet. */
struct pending {
	uint16_t msg_id;
	bool has_eom;
	uint32_t eom_psn;     /* PSN of its EOM packet */
	int64_t start_ns;     /* its first data frame */
};

/* What one pass over a file needs beside the info: the frame rebuilt from a snap-cut record. */
struct info_ctx {
	struct cap_info *ci;
	uint16_t port;
	uint8_t full[CAP_SNAPLEN_MAX + 1];
};

/* PSN order with wrap: a at or before b. */
static bool psn_le(uint32_t a, uint32_t b)
{
	return (uint32_t)(b - a) < 0x80000000u;
}

static uint64_t pdc_hash(uint32_t src, uint32_t dst, uint16_t pdc)
{
	uint64_t k = ((uint64_t)src << 32 | dst) ^ ((uint64_t)pdc * 0x9e3779b97f4a7c15ULL);

	k ^= k >> 29;
	k *= 0xbf58476d1ce4e5b9ULL;
	return k ^ (k >> 32);
}

/* Grow the hash index to @p cap slots (a power of two) and put every PDC back. 0 or -ENOMEM. */
static int rehash(struct cap_info *ci, uint32_t cap)
{
	uint32_t *idx = calloc(cap, sizeof(*idx));

	if (idx == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < ci->n_pdcs; i++) {
		const struct cap_info_pdc *p = &ci->pdcs[i];
		uint32_t h = (uint32_t)pdc_hash(p->src, p->dst, p->pdc) & (cap - 1);

		while (idx[h] != 0)
			h = (h + 1) & (cap - 1);
		idx[h] = i + 1;
	}
	free(ci->index);
	ci->index = idx;
	ci->index_cap = cap;
	return 0;
}

/* Append a new PDC; NULL when out of room (counted) or memory. */
static struct cap_info_pdc *pdc_new(struct cap_info *ci, uint32_t src, uint32_t dst, uint16_t pdc)
{
	if (ci->n_pdcs >= CAP_INFO_PDC_MAX) {
		ci->pdcs_untracked++;
		return NULL;
	}
	if (ci->n_pdcs == ci->pdcs_cap) {
		uint32_t n = ci->pdcs_cap ? ci->pdcs_cap * 2 : 16;
		struct cap_info_pdc *a = realloc(ci->pdcs, n * sizeof(*a));

		if (a == NULL)
			return NULL;
		ci->pdcs = a;
		ci->pdcs_cap = n;
	}
	if ((ci->n_pdcs + 1) * 2 > ci->index_cap && rehash(ci, ci->index_cap ? ci->index_cap * 2 : 64) < 0)
		return NULL;
	struct cap_info_pdc *p = &ci->pdcs[ci->n_pdcs++];

	*p = (struct cap_info_pdc){ .src = src, .dst = dst, .pdc = pdc, .size_min = UINT64_MAX };
	return p;
}

/* The PDC (src, dst, pdc), made when @p create and not yet seen; NULL otherwise. */
static struct cap_info_pdc *pdc_get(struct cap_info *ci, uint32_t src, uint32_t dst, uint16_t pdc, bool create)
{
	if (ci->index_cap != 0) {
		uint32_t h = (uint32_t)pdc_hash(src, dst, pdc) & (ci->index_cap - 1);

		for (; ci->index[h] != 0; h = (h + 1) & (ci->index_cap - 1)) {
			struct cap_info_pdc *p = &ci->pdcs[ci->index[h] - 1];

			if (p->src == src && p->dst == dst && p->pdc == pdc)
				return p;
		}
	}
	if (!create)
		return NULL;
	struct cap_info_pdc *p = pdc_new(ci, src, dst, pdc);

	if (p != NULL) {
		uint32_t h = (uint32_t)pdc_hash(src, dst, pdc) & (ci->index_cap - 1);

		while (ci->index[h] != 0)
			h = (h + 1) & (ci->index_cap - 1);
		ci->index[h] = (uint32_t)(p - ci->pdcs) + 1;
	}
	return p;
}

static struct pending *find_pending(struct cap_info_pdc *p, uint16_t msg_id)
{
	struct pending *q = p->pending;

	for (uint32_t i = 0; i < p->n_pending; i++)
		if (q[i].msg_id == msg_id)
			return &q[i];
	return NULL;
}

/* A message starts at a SOM frame: tracked until its ACK, unless too many are open (counted). */
static struct pending *start_msg(struct cap_info_pdc *p, const struct wire_pkt *pkt, int64_t ts)
{
	uint64_t size = pkt->ses.request_length;

	p->messages++;
	p->bytes += size;
	p->size_min = size < p->size_min ? size : p->size_min;
	p->size_max = size > p->size_max ? size : p->size_max;
	if (p->n_pending == p->pending_cap) {
		uint32_t n = p->pending_cap ? p->pending_cap * 2 : 8;
		struct pending *a = n <= CAP_INFO_PENDING_MAX ? realloc(p->pending, n * sizeof(*a)) : NULL;

		if (a == NULL) {
			p->untracked++;
			return NULL;
		}
		p->pending = a;
		p->pending_cap = n;
	}
	struct pending *q = (struct pending *)p->pending + p->n_pending++;

	*q = (struct pending){ .msg_id = pkt->ses.message_id, .start_ns = ts };
	return q;
}

static void on_data(struct cap_info *ci, const struct wire_pkt *pkt, int64_t ts)
{
	struct cap_info_pdc *p = pdc_get(ci, pkt->src_ip, pkt->dst_ip, pkt->pds.spdcid, true);
	bool retx = pkt->pds.flags & WIRE_REQ_F_RETX;

	ci->data++;
	ci->retx += retx;
	if (p == NULL)
		return;
	p->data++;
	p->retx += retx;
	if (p->has_cack && psn_le(pkt->pds.psn, p->cack))
		return; /* acknowledged already: a late copy of a message's packet */
	struct pending *q = find_pending(p, pkt->ses.message_id);

	if (q == NULL && (pkt->ses.flags & WIRE_SES_F_SOM))
		q = start_msg(p, pkt, ts);
	if (q != NULL && !q->has_eom && (pkt->ses.flags & WIRE_SES_F_EOM)) {
		q->has_eom = true;
		q->eom_psn = pkt->pds.psn;
	}
}

/* Record a completion time, keeping the PDC's array. */
static void push_fct(struct cap_info_pdc *p, int64_t fct)
{
	if (p->completed == p->fct_cap) {
		uint32_t n = p->fct_cap ? p->fct_cap * 2 : 8;
		int64_t *a = realloc(p->fct_ns, n * sizeof(*a));

		if (a == NULL)
			return;
		p->fct_ns = a;
		p->fct_cap = n;
	}
	p->fct_ns[p->completed++] = fct;
}

/* An ACK from the receiver: its CACK_PSN completes every open message whose last packet it covers. */
static void on_ack(struct cap_info *ci, const struct wire_pkt *pkt, int64_t ts)
{
	struct cap_info_pdc *p = pdc_get(ci, pkt->dst_ip, pkt->src_ip, pkt->pds.dpdcid, false);
	uint32_t cack = pkt->pds.psn;

	if (pkt->pds.flags & WIRE_ACK_F_P)
		ci->probe_acks++;
	else
		ci->acks++;
	if (p == NULL)
		return;
	p->acks++;
	if (!p->has_cack || !psn_le(cack, p->cack)) {
		p->cack = cack;
		p->has_cack = true;
	}
	struct pending *q = p->pending;

	for (uint32_t i = 0; i < p->n_pending;) {
		if (q[i].has_eom && psn_le(q[i].eom_psn, p->cack)) {
			push_fct(p, ts - q[i].start_ns);
			q[i] = q[--p->n_pending];
		} else {
			i++;
		}
	}
}

static void on_other(struct cap_info *ci, const struct wire_pkt *pkt)
{
	struct cap_info_pdc *p;

	switch (pkt->kind) {
	case WIRE_KIND_TRIMMED:
		ci->trimmed++;
		if ((p = pdc_get(ci, pkt->src_ip, pkt->dst_ip, pkt->pds.spdcid, true)) != NULL)
			p->trimmed++;
		break;
	case WIRE_KIND_NACK:
		ci->nacks++;
		ci->nack_codes[pkt->pds.nack_code]++;
		if ((p = pdc_get(ci, pkt->dst_ip, pkt->src_ip, pkt->pds.dpdcid, false)) != NULL)
			p->nacks++;
		break;
	case WIRE_KIND_CP:
		if (pkt->pds.next_hdr == WIRE_CTL_PROBE)
			ci->probes++;
		else
			ci->cp_other++;
		break;
	case WIRE_KIND_CM:
		ci->cm[pkt->cm.type & 3]++;
		break;
	default:
		break;
	}
}

static void on_pfc(struct cap_info *ci, const struct wire_pkt *pkt)
{
	bool pause = false;

	for (int c = 0; c < 8; c++)
		pause |= (pkt->pfc_enable >> c & 1) && pkt->pfc_quanta[c] != 0;
	ci->pfc++;
	ci->pfc_pauses += pause;
	ci->pfc_resumes += !pause;
}

/*
 * Decode a record: whole, or cut by a snap length, rebuilt to its original length with zeros, then kept only when
 * its headers were all captured. WIRE_R_OK, a wire reason, or -1 for a frame cut inside its headers (counted).
 */
static int decode(struct info_ctx *x, const struct cap_rec *rec, struct wire_pkt *pkt)
{
	if (rec->caplen == rec->len)
		return wire_decode(rec->data, rec->len, x->port, pkt);
	if (rec->len > sizeof(x->full)) {
		x->ci->cut_in_headers++;
		return -1;
	}
	memcpy(x->full, rec->data, rec->caplen);
	memset(x->full + rec->caplen, 0, rec->len - rec->caplen);
	int rc = wire_decode(x->full, rec->len, x->port, pkt);
	size_t hdrs = rc == WIRE_R_OK ? wire_frame_len(pkt) - (pkt->kind == WIRE_KIND_DATA ? pkt->payload_len : 0) : 0;

	if (rc != WIRE_R_OK || rec->caplen < hdrs) {
		x->ci->cut_in_headers++;
		return -1;
	}
	x->ci->cut++;
	return WIRE_R_OK;
}

/* One frame into the counts. */
static void account(struct info_ctx *x, const struct cap_rec *rec, const struct cap_read_info *fi)
{
	struct cap_info *ci = x->ci;
	struct wire_pkt pkt;

	ci->first_ns = ci->frames == 0 || rec->ts_ns < ci->first_ns ? rec->ts_ns : ci->first_ns;
	ci->last_ns = ci->frames == 0 || rec->ts_ns > ci->last_ns ? rec->ts_ns : ci->last_ns;
	ci->frames++;
	ci->bytes += rec->caplen;
	ci->orig_bytes += rec->len;
	if (fi->ifaces[rec->iface].linktype != CAP_LINKTYPE_ETHERNET) {
		ci->file.skips[CAP_SKIP_NOT_ETHERNET]++;
		return;
	}
	int rc = decode(x, rec, &pkt);

	if (rc < 0)
		return;
	if (rc != WIRE_R_OK) {
		ci->decode_errors[rc < WIRE_R_COUNT ? rc : 0]++;
		return;
	}
	if (pkt.kind != WIRE_KIND_PFC)
		ci->ecn[pkt.ecn & 3]++;
	if (pkt.kind == WIRE_KIND_DATA)
		on_data(ci, &pkt, rec->ts_ns);
	else if (pkt.kind == WIRE_KIND_ACK)
		on_ack(ci, &pkt, rec->ts_ns);
	else if (pkt.kind == WIRE_KIND_PFC)
		on_pfc(ci, &pkt);
	else
		on_other(ci, &pkt);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Keep what the reader read about the file (its interfaces copied), sort completion times, drop the trackers. */
static int finish(struct cap_info *ci, const struct cap_read_info *fi)
{
	uint64_t not_eth = ci->file.skips[CAP_SKIP_NOT_ETHERNET];

	ci->file = *fi;
	ci->file.skips[CAP_SKIP_NOT_ETHERNET] += not_eth;
	ci->file.ifaces = NULL;
	if (fi->n_ifaces > 0) {
		ci->file.ifaces = malloc(fi->n_ifaces * sizeof(*fi->ifaces));
		if (ci->file.ifaces == NULL) {
			ci->file.n_ifaces = 0;
			return -ENOMEM;
		}
		memcpy(ci->file.ifaces, fi->ifaces, fi->n_ifaces * sizeof(*fi->ifaces));
	}
	for (uint32_t i = 0; i < ci->n_pdcs; i++) {
		struct cap_info_pdc *p = &ci->pdcs[i];

		if (p->completed > 1) /* qsort takes no NULL array, even empty */
			qsort(p->fct_ns, p->completed, sizeof(*p->fct_ns), cmp_i64);
		if (p->size_min == UINT64_MAX)
			p->size_min = 0;
		free(p->pending);
		p->pending = NULL;
		p->n_pending = p->pending_cap = 0;
	}
	return 0;
}

int cap_info_read(const char *path, uint16_t uet_port, struct cap_info *out, char *err, size_t errlen)
{
	struct info_ctx *x = malloc(sizeof(*x));
	struct cap_reader *r = NULL;
	struct cap_rec rec;
	int rc;

	memset(out, 0, sizeof(*out));
	if (x == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	x->ci = out;
	x->port = uet_port;
	rc = cap_read_open(path, &r, err, errlen);
	while (rc == 0 && (rc = cap_read_next(r, &rec, err, errlen)) == 1) {
		account(x, &rec, cap_read_info(r));
		rc = 0;
	}
	if (r != NULL) {
		int e = finish(out, cap_read_info(r));

		rc = rc < 0 ? rc : e;
	}
	cap_read_close(r);
	free(x);
	return rc;
}

void cap_info_free(struct cap_info *ci)
{
	for (uint32_t i = 0; ci->pdcs != NULL && i < ci->n_pdcs; i++) {
		free(ci->pdcs[i].fct_ns);
		free(ci->pdcs[i].pending);
	}
	free(ci->pdcs);
	free(ci->index);
	free(ci->file.ifaces);
	memset(ci, 0, sizeof(*ci));
}

int64_t cap_info_pct(const int64_t *v, uint32_t n, unsigned p)
{
	if (n == 0)
		return 0;
	uint64_t rank = ((uint64_t)p * n + 99) / 100;

	return v[rank == 0 ? 0 : rank - 1];
}
