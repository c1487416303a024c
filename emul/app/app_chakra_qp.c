/* The Chakra transport APP_CK_NET_CONN_MSN, the Scala RoCE NIC's (docs/chakra.md, Execution): each transfer is one
 * RDMA WRITE on a connection (a queue pair) from the sending host to the receiving one. A connection carries one
 * message at a time (the RoCE transport page), so transfers in flight between two hosts at once take a connection
 * each; one whose transfer is acknowledged goes back to its pair's idle list for the next. The receiving NIC names
 * each message it completes by the sender's connection number and the message's number on it (msn 1, 2, ...); the
 * workload posted the msn-th work request of that connection, so the match is exact. */
#include <errno.h>
#include <stdlib.h>

#include "app_chakra_net_pvt.h"

#define APP_CK_QPN_MASK 0xffffffu   /* queue pair numbers are 24 bits on the wire (BTH DestQP) */
#define APP_CK_HOST_MAX (1u << 30)  /* hosts a pair key holds */

/* An idle connection from host @p hs to @p hd, or a new one: its index in @p out. 0 or a negative errno. */
static int qp_take(struct app_ck_net *t, uint32_t hs, uint32_t hd, uint32_t *out, emu_ps_t now)
{
	const struct port_nic *h = &t->hosts[hs];
	uint64_t pk = APP_CK_KEY_PAIR | (uint64_t)hs << 30 | hd;
	long j = app_ck_map_find(t, pk);
	uint32_t qpn;
	int rc;

	if (j >= 0) {
		uint32_t q = t->mvals[j];

		if (t->qps[q].next_idle == APP_CK_NET_NONE)
			app_ck_map_del(t, (uint32_t)j);
		else
			t->mvals[j] = t->qps[q].next_idle;
		*out = q;
		return 0;
	}
	if (t->n_qps == t->cap_qps) {
		uint32_t cap = t->cap_qps ? t->cap_qps * 2 : 64;
		struct app_ck_qp *v = realloc(t->qps, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->qps = v, t->cap_qps = cap;
	}
	rc = h->ops->conn_open(h->dev, t->p.host_ip[hd], &qpn, now);
	if (rc)
		return rc;
	if (qpn > APP_CK_QPN_MASK)
		return -ENOSPC; /* the receiver could not name it */
	rc = app_ck_map_put(t, APP_CK_KEY_QP | (uint64_t)hs << 24 | qpn, t->n_qps);
	if (rc)
		return rc;
	t->qps[t->n_qps] = (struct app_ck_qp){.src = hs, .dst = hd, .qpn = qpn, .slot = APP_CK_NET_NONE,
					      .next_idle = APP_CK_NET_NONE};
	*out = t->n_qps++;
	return 0;
}

/* Connection @p q is idle again: the head of its pair's idle list. */
static void qp_give(struct app_ck_net *t, uint32_t q)
{
	struct app_ck_qp *qp = &t->qps[q];
	uint64_t pk = APP_CK_KEY_PAIR | (uint64_t)qp->src << 30 | qp->dst;
	long j = app_ck_map_find(t, pk);

	qp->slot = APP_CK_NET_NONE;
	qp->next_idle = j >= 0 ? t->mvals[j] : APP_CK_NET_NONE;
	if (j >= 0)
		t->mvals[j] = q;
	else if (app_ck_map_put(t, pk, q))
		qp->next_idle = APP_CK_NET_NONE; /* out of memory: the queue pair stays unused, the next transfer opens one */
}

/* app_ck_xport.post: one RDMA WRITE of @p bytes from rank @p src to rank @p dst, on an idle connection. */
int app_ck_qp_post(void *ctx, uint32_t src, uint32_t dst, uint64_t bytes, uint64_t xfer, emu_ps_t now)
{
	struct app_ck_net *t = ctx;
	uint32_t hs = t->p.rank_host[src], hd = t->p.rank_host[dst], q;
	const struct port_nic *h = &t->hosts[hs];
	long s;
	int rc;

	if (app_ck_su_same(t->su, src, dst)) /* a scale-up group's transfer: over its fabric, not the NIC */
		return app_ck_su_post(t->su, src, dst, bytes, xfer, now);
	if (hs >= APP_CK_HOST_MAX || hd >= APP_CK_HOST_MAX)
		return -ERANGE;
	s = app_ck_slot_new(t);
	if (s < 0)
		return (int)s;
	rc = qp_take(t, hs, hd, &q, now);
	if (rc) {
		app_ck_slot_free(t, (uint32_t)s);
		return rc;
	}
	rc = h->ops->conn_post(h->dev, t->qps[q].qpn, bytes, APP_CK_COOKIE | (uint64_t)s, now);
	if (rc) {
		qp_give(t, q); /* it exists and carries nothing */
		app_ck_slot_free(t, (uint32_t)s);
		return rc;
	}
	t->qps[q].msgs++;
	t->qps[q].slot = (uint32_t)s;
	t->slots[s] = (struct app_ck_slot){.xfer = xfer, .src = hs, .dst = hd, .qp = q, .used = 1};
	return 0;
}

/* The ACK of transfer @p s's last PSN reached its sender: its connection is free for the next. */
void app_ck_qp_done(struct app_ck_net *t, uint32_t s, emu_ps_t now)
{
	uint64_t xfer = t->slots[s].xfer;

	if (t->qps[t->slots[s].qp].slot == s)
		qp_give(t, t->slots[s].qp);
	app_ck_slot_free(t, s);
	app_ck_acked(t->run, xfer, now); /* first, so the rank's own end sees it */
	app_ck_sent(t->run, xfer, now);  /* nothing if the last byte was reported sent (app_ck_net_sent) */
}

void app_ck_net_recv_qp(struct app_ck_net *t, uint32_t host, uint32_t src_ip, uint32_t qpn, uint32_t msn,
			  uint64_t bytes, emu_ps_t now)
{
	const struct app_ck_qp *qp = NULL;
	long src, j = -1;

	(void)bytes;
	if (!t || t->p.kind != APP_CK_NET_CONN_MSN)
		return;
	src = app_ck_host_by_ip(t, src_ip);
	if (src >= 0 && qpn <= APP_CK_QPN_MASK)
		j = app_ck_map_find(t, APP_CK_KEY_QP | (uint64_t)src << 24 | qpn);
	if (j >= 0)
		qp = &t->qps[t->mvals[j]];
	/* exact: this host's connection, a transfer in flight on it, and that transfer's message number */
	if (!qp || qp->dst != host || qp->slot == APP_CK_NET_NONE || qp->msgs != msn || t->slots[qp->slot].recvd) {
		t->recv_unknown++;
		return;
	}
	t->slots[qp->slot].recvd = 1;
	app_ck_delivered(t->run, t->slots[qp->slot].xfer, now);
}
