/* Frames <-> mbufs: the per-packet half of the dataplane (stage and copy out, burst send, receive and hand up). */
#include <assert.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>

#include "dp.h"
#include "dp_pvt.h"

/* Copy a frame longer than one mbuf into a chain of @p nseg mbufs (ports with RTE_ETH_TX_OFFLOAD_MULTI_SEGS). */
static struct rte_mbuf *dp_chain_from(struct rte_mempool *mp, const uint8_t *frame, size_t len, unsigned nseg,
				      size_t room)
{
	struct rte_mbuf *seg[DP_TX_SEGS_MAX];
	size_t off = 0;

	if (rte_pktmbuf_alloc_bulk(mp, seg, nseg) != 0)
		return NULL;
	for (unsigned i = 0; i < nseg; i++) {
		size_t chunk = RTE_MIN(len - off, room);

		rte_memcpy(rte_pktmbuf_mtod(seg[i], void *), frame + off, chunk);
		seg[i]->data_len = (uint16_t)chunk;
		if (i > 0)
			seg[i - 1]->next = seg[i];
		off += chunk;
	}
	seg[0]->nb_segs = (uint16_t)nseg;
	seg[0]->pkt_len = (uint32_t)len;
	return seg[0];
}

/*
 * Hand a port's staged burst to its TX queue. A PMD that enforces its MTU (net_tap) stops the burst at an
 * oversized frame: that frame alone is dropped as too big and the rest offered again. Otherwise the ring is full,
 * and what it did not take is dropped as full (l2fwd's rule: no retry, so a pass never spins on a busy port).
 */
static void dp_port_send(struct dp_port *p)
{
	uint16_t n = (uint16_t)p->n_tx, done = 0, toobig = 0, full = 0;
	uint64_t dropped_bytes = 0;

	while (done < n) {
		done += rte_eth_tx_burst(p->port_id, 0, p->tx + done, n - done);
		if (likely(done == n))
			break;
		/* Only the unsent mbufs are still ours to read: the PMD may already have freed the sent ones. */
		if (p->tx[done]->pkt_len > p->max_frame) {
			dropped_bytes += p->tx[done]->pkt_len;
			rte_pktmbuf_free(p->tx[done++]);
			toobig++;
			continue;
		}
		full = n - done;
		for (uint16_t i = done; i < n; i++)
			dropped_bytes += p->tx[i]->pkt_len;
		rte_pktmbuf_free_bulk(p->tx + done, full);
		break;
	}
	p->st.tx_frames += n - toobig - full;
	p->st.tx_bytes += p->tx_staged_bytes - dropped_bytes;
	p->st.tx_drop_toobig += toobig;
	p->st.tx_drop_full += full;
	p->n_tx = 0;
	p->tx_staged_bytes = 0;
}

int dp_tx(struct dp_ctx *dp, int port, const uint8_t *frame, size_t len)
{
	struct dp_port *p = &dp->port[port];
	struct rte_mbuf *m;

	assert(port >= 0 && port < dp->n_ports);
	if (likely(len <= p->room)) {
		m = rte_pktmbuf_alloc(p->pool);
		if (unlikely(m == NULL)) {
			p->st.tx_drop_nombuf++;
			return DP_TX_NOMBUF;
		}
		rte_memcpy(rte_pktmbuf_mtod(m, void *), frame, len);
		m->data_len = (uint16_t)len;
		m->pkt_len = (uint32_t)len;
	} else if (p->multi_seg && len <= DP_FRAME_MAX && p->room == DP_MBUF_ROOM) {
		m = dp_chain_from(p->pool, frame, len, (unsigned)((len + p->room - 1) / p->room), p->room);
		if (unlikely(m == NULL)) {
			p->st.tx_drop_nombuf++;
			return DP_TX_NOMBUF;
		}
	} else {
		p->st.tx_drop_toobig++;
		return DP_TX_TOOBIG;
	}
	p->tx[p->n_tx++] = m;
	p->tx_staged_bytes += len;
	if (p->n_tx == DP_BURST)
		dp_port_send(p);
	return DP_TX_OK;
}

void dp_flush(struct dp_ctx *dp)
{
	for (int i = 0; i < dp->n_ports; i++)
		if (dp->port[i].n_tx > 0)
			dp_port_send(&dp->port[i]);
}

unsigned dp_rx(struct dp_ctx *dp, int port, dp_rx_fn fn, void *arg)
{
	struct dp_port *p = &dp->port[port];
	struct rte_mbuf *pkts[DP_BURST];
	uint8_t flat[DP_FRAME_MAX]; /* a chained frame is copied here; only touched when one arrives */
	uint64_t bytes = 0, toobig = 0;
	uint16_t n;

	assert(port >= 0 && port < dp->n_ports);
	n = rte_eth_rx_burst(p->port_id, 0, pkts, DP_BURST);
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const uint8_t *data;

		if (likely(m->nb_segs == 1)) {
			data = rte_pktmbuf_mtod(m, const uint8_t *);
		} else if (m->pkt_len <= sizeof(flat)) {
			data = rte_pktmbuf_read(m, 0, m->pkt_len, flat);
		} else {
			toobig++;
			continue;
		}
		bytes += m->pkt_len;
		fn(arg, port, data, m->pkt_len);
	}
	if (n > 0) {
		rte_pktmbuf_free_bulk(pkts, n);
		p->st.rx_frames += n - toobig;
		p->st.rx_bytes += bytes;
		p->st.rx_drop_toobig += toobig;
	}
	return n;
}
