/* Connection-management messages: the RDMA application's connection setup frames, sent and received by the NIC
 * for its host (seed 003, Connection setup; the format is uetemu's, docs/wire.md). */
#include "nic_pvt.h"

#include <errno.h>

/* Whether the control class's egress pool (and its queue) can take @p p now. */
static bool ctl_room(const struct nic *nic, const struct wire_pkt *p)
{
	const struct nic_txq *q = &nic->txq[NIC_TC_CTRL];

	return q->reserved + wire_wire_len(p) <= q->pool_size && q->n < q->max;
}

static void cm_push(struct nic *nic, struct wire_pkt *p, emu_ps_t now)
{
	p->ctx = NULL;
	nic->c[NIC_C_CM_SENT]++;
	(void)nic_txq_push(nic, NIC_TC_CTRL, p, now); /* ctl_room() said it fits */
}

void nic_cm_drain(struct nic *nic, emu_ps_t now)
{
	while (nic->cm_head != NULL && ctl_room(nic, nic->cm_head)) {
		struct wire_pkt *p = nic->cm_head;
		nic->cm_head = p->ctx;
		if (nic->cm_head == NULL)
			nic->cm_tail = NULL;
		cm_push(nic, p, now);
	}
}

int nic_cm_send(struct nic *nic, uint32_t dst_ip, const struct wire_cm *cm, emu_ps_t now)
{
	/* No PDC carries these: a stand-in gives nic_pkt_new() the peer to address, as for a late probe. */
	struct nic_pdc peer = { .peer_ip = dst_ip };

	if (nic_neigh_mac(nic, dst_ip) == NULL)
		return -EHOSTUNREACH;
	struct wire_pkt *p = nic_pkt_new(nic, WIRE_KIND_CM, &peer);
	if (p == NULL)
		return -ENOBUFS;
	p->ecn = WIRE_ECN_NOT_ECT;
	p->dport = WIRE_UDP_PORT_CM;
	p->sport = (uint16_t)(0xc000u | (cm->local_id & 0x3fffu));
	p->cm = *cm;
	if (nic->cm_head == NULL && ctl_room(nic, p)) {
		cm_push(nic, p, now);
		return 0;
	}
	/* the host's message waits for room in the pool, behind those already waiting */
	nic->c[NIC_C_CM_DEFERRED]++;
	p->ctx = NULL;
	if (nic->cm_tail != NULL)
		nic->cm_tail->ctx = p;
	else
		nic->cm_head = p;
	nic->cm_tail = p;
	return 0;
}

void nic_rx_cm(struct nic *nic, struct wire_pkt *pkt, emu_ps_t now)
{
	if (nic->env.hooks.cm_recv == NULL) {
		nic->c[NIC_C_DROP_BAD_KIND]++;
		return;
	}
	nic->c[NIC_C_CM_RCVD]++;
	nic->env.hooks.cm_recv(nic->env.hooks.arg, nic->env.fep_id, pkt->src_ip, &pkt->cm, now);
}
