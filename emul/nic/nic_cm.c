/* Connection-management messages: the RDMA application's connection setup frames, sent and received by the NIC
 * for its host (seed 003, Connection setup; the format is uetemu's, docs/wire.md). */
#include "nic_pvt.h"

#include <errno.h>

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
	if (nic_txq_push(nic, NIC_TC_CTRL, p, now) < 0) {
		nic->c[NIC_C_DROP_TX_CTL_POOL_FULL]++;
		net_pkt_free(nic->env.np, p);
		return -ENOBUFS;
	}
	nic->c[NIC_C_CM_SENT]++;
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
