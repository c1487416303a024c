/* The Chakra workload's transport over the Scala RoCE NICs (docs/chakra.md, "On RoCE NICs"): each transfer is one
 * RDMA WRITE on a queue pair from the sending host to the receiving one. A queue pair carries one message at a time
 * (the RoCE transport page), so transfers in flight between two hosts at once take a queue pair each; one whose
 * transfer is acknowledged goes back to its pair's idle list for the next. The receiving NIC names each message it
 * completes by the sender's queue pair number and the message's number on it (msn 1, 2, ...); the workload posted
 * the msn-th work request of that queue pair, so the match is exact. */
#include <errno.h>
#include <stdlib.h>

#include "ctl_chakra_pvt.h"
#include "roce.h"

#define CK_QPN_MASK 0xffffffu   /* queue pair numbers are 24 bits on the wire (BTH DestQP) */
#define CK_HOST_MAX (1u << 30)  /* hosts a pair key holds */

/* An idle queue pair from host @p hs to @p hd, or a new one: its index in @p out. 0 or a negative errno. */
static int qp_take(struct ctl_chakra_run *k, uint32_t hs, uint32_t hd, uint32_t *out)
{
	uint64_t pk = CK_KEY_PAIR | (uint64_t)hs << 30 | hd;
	long j = ck_map_find(k, pk);
	uint32_t qpn;
	int rc;

	if (j >= 0) {
		uint32_t q = k->mvals[j];

		if (k->qps[q].next_idle == CK_NONE)
			ck_map_del(k, (uint32_t)j);
		else
			k->mvals[j] = k->qps[q].next_idle;
		*out = q;
		return 0;
	}
	if (k->n_qps == k->cap_qps) {
		uint32_t cap = k->cap_qps ? k->cap_qps * 2 : 64;
		struct ck_qp *v = realloc(k->qps, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		k->qps = v, k->cap_qps = cap;
	}
	rc = roce_qp_open(k->roces[hs], k->cfg->hosts[hd].ip, &qpn);
	if (rc)
		return rc;
	if (qpn > CK_QPN_MASK)
		return -ENOSPC; /* the receiver could not name it */
	rc = ck_map_put(k, CK_KEY_QP | (uint64_t)hs << 24 | qpn, k->n_qps);
	if (rc)
		return rc;
	k->qps[k->n_qps] = (struct ck_qp){.src = hs, .dst = hd, .qpn = qpn, .slot = CK_NONE, .next_idle = CK_NONE};
	*out = k->n_qps++;
	return 0;
}

/* Queue pair @p q is idle again: the head of its pair's idle list. */
static void qp_give(struct ctl_chakra_run *k, uint32_t q)
{
	struct ck_qp *qp = &k->qps[q];
	uint64_t pk = CK_KEY_PAIR | (uint64_t)qp->src << 30 | qp->dst;
	long j = ck_map_find(k, pk);

	qp->slot = CK_NONE;
	qp->next_idle = j >= 0 ? k->mvals[j] : CK_NONE;
	if (j >= 0)
		k->mvals[j] = q;
	else if (ck_map_put(k, pk, q))
		qp->next_idle = CK_NONE; /* out of memory: the queue pair stays unused, the next transfer opens one */
}

/* app_ck_xport.post over RoCE: one RDMA WRITE of @p bytes from rank @p src to rank @p dst. */
int ck_roce_post(void *ctx, uint32_t src, uint32_t dst, uint64_t bytes, uint64_t xfer, emu_ps_t now)
{
	struct ctl_chakra_run *k = ctx;
	uint32_t hs = k->rank_host[src], hd = k->rank_host[dst], q;
	long s;
	int rc;

	if (app_ck_su_same(k->su, src, dst)) /* a scale-up group's transfer: over its fabric, not the NIC */
		return app_ck_su_post(k->su, src, dst, bytes, xfer, now);
	if (hs >= CK_HOST_MAX || hd >= CK_HOST_MAX)
		return -ERANGE;
	s = ck_slot_new(k);
	if (s < 0)
		return (int)s;
	rc = qp_take(k, hs, hd, &q);
	if (rc) {
		ck_slot_free(k, (uint32_t)s);
		return rc;
	}
	rc = roce_post(k->roces[hs], k->qps[q].qpn, ROCE_VERB_WRITE, bytes, CTL_CHAKRA_COOKIE | (uint64_t)s, now);
	if (rc) {
		qp_give(k, q); /* it exists and carries nothing */
		ck_slot_free(k, (uint32_t)s);
		return rc;
	}
	k->qps[q].msgs++;
	k->qps[q].slot = (uint32_t)s;
	k->slots[s] = (struct ck_slot){.xfer = xfer, .src = hs, .dst = hd, .qp = q, .used = 1};
	return 0;
}

/* The ACK of transfer @p s's last PSN reached its sender: its queue pair is free for the next. */
void ck_roce_done(struct ctl_chakra_run *k, uint32_t s, emu_ps_t now)
{
	uint64_t xfer = k->slots[s].xfer;

	if (k->qps[k->slots[s].qp].slot == s)
		qp_give(k, k->slots[s].qp);
	ck_slot_free(k, s);
	app_ck_acked(k->run, xfer, now); /* first, so the rank's own end sees it */
	app_ck_sent(k->run, xfer, now);  /* nothing if the last byte was reported sent (ctl_chakra_sent) */
}

void ctl_chakra_roce_recv(struct ctl_chakra_run *k, uint32_t host, uint32_t src_ip, uint32_t qpn, uint32_t msn,
			  uint64_t bytes, emu_ps_t now)
{
	const struct ck_qp *qp = NULL;
	long src, j = -1;

	(void)bytes;
	if (!k || !k->roces)
		return;
	src = ck_host_by_ip(k, src_ip);
	if (src >= 0 && qpn <= CK_QPN_MASK)
		j = ck_map_find(k, CK_KEY_QP | (uint64_t)src << 24 | qpn);
	if (j >= 0)
		qp = &k->qps[k->mvals[j]];
	/* exact: this host's queue pair, a transfer in flight on it, and that transfer's message number */
	if (!qp || qp->dst != host || qp->slot == CK_NONE || qp->msgs != msn || k->slots[qp->slot].recvd) {
		k->recv_unknown++;
		return;
	}
	k->slots[qp->slot].recvd = 1;
	app_ck_delivered(k->run, k->slots[qp->slot].xfer, now);
}
