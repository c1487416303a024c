/* Frames <-> mbufs: the per-packet half of the dataplane (stage and copy out, burst send, receive and hand up). */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>
#include <rte_pause.h>
#include <rte_prefetch.h>
#include <rte_ring.h>

#include "dp.h"
#include "dp_pvt.h"

/*
 * Copy @p alen bytes at @p a then @p blen bytes at @p b into the @p nseg mbufs @p seg, @p cap bytes each (the
 * port's room) but the last, chained (ports that take chains) when there is more than one.
 */
static void dp_gather(struct rte_mbuf **seg, unsigned nseg, const uint8_t *a, size_t alen, const uint8_t *b,
		      size_t blen, size_t cap)
{
	const uint8_t *src[2] = { a, b };
	size_t left[2] = { alen, blen };
	unsigned i = 0;
	uint8_t *dst = rte_pktmbuf_mtod(seg[0], uint8_t *);
	size_t room = cap;

	for (int k = 0; k < 2; k++) {
		while (left[k] > 0) {
			if (room == 0) {
				seg[i]->next = seg[i + 1];
				i++;
				dst = rte_pktmbuf_mtod(seg[i], uint8_t *);
				room = cap;
			}
			size_t n = RTE_MIN(left[k], room);

			rte_memcpy(dst, src[k], n);
			seg[i]->data_len = (uint16_t)(seg[i]->data_len + n);
			dst += n;
			src[k] += n;
			left[k] -= n;
			room -= n;
		}
	}
	seg[0]->nb_segs = (uint16_t)nseg;
	seg[0]->pkt_len = (uint32_t)(alen + blen);
}

/*
 * The copy path: a frame of @p alen bytes at @p a then @p blen at @p b, copied into one mbuf of the pool, or into
 * a chain on a port that takes chains. NULL with the drop counted (and *@p rc set) when it cannot be.
 */
static struct rte_mbuf *dp_copy_frame(struct dp_ctx *dp, struct dp_port *p, const uint8_t *a, size_t alen,
				      const uint8_t *b, size_t blen, int *rc)
{
	struct rte_mbuf *seg[DP_TX_SEGS_MAX];
	size_t len = alen + blen;

	(void)dp; /* the port's own pool (p->pool): the shared one, or a net_af_xdp port's */
	unsigned nseg = len > 0 ? (unsigned)((len + p->room - 1) / p->room) : 1;

	/* chains only from the shared pool's mbufs: a net_af_xdp port's own (page-sized) ones carry one frame each */
	if (unlikely(len > DP_FRAME_MAX || (nseg > 1 && (!p->multi_seg || p->room != DP_MBUF_ROOM)))) {
		p->st.tx_drop_toobig++;
		*rc = DP_TX_TOOBIG;
		return NULL;
	}
	if (likely(nseg == 1)) { /* the common case, without the chain walk */
		struct rte_mbuf *m = rte_pktmbuf_alloc(p->pool);
		if (unlikely(m == NULL))
			goto nombuf;
		uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
		rte_memcpy(d, a, alen);
		if (blen > 0)
			rte_memcpy(d + alen, b, blen);
		m->data_len = (uint16_t)len;
		m->pkt_len = (uint32_t)len;
		return m;
	}
	if (unlikely(rte_pktmbuf_alloc_bulk(p->pool, seg, nseg) != 0))
		goto nombuf;
	dp_gather(seg, nseg, a, alen, b, blen, p->room);
	return seg[0];
nombuf:
	p->st.tx_drop_nombuf++;
	*rc = DP_TX_NOMBUF;
	return NULL;
}

/* Refill stash @p st (@p n mbufs in it) from @p pool, a burst's worth at once, or one when the pool is nearly empty
 * (what a frame needs). False when the pool cannot give even one. */
static bool dp_stash_fill(struct rte_mempool *pool, struct rte_mbuf **st, uint32_t *n)
{
	unsigned want = DP_BURST - *n;

	if (rte_pktmbuf_alloc_bulk(pool, st + *n, want) == 0)
		*n += want;
	else if (rte_pktmbuf_alloc_bulk(pool, st + *n, 1) == 0)
		*n += 1;
	else
		return false;
	return true;
}

/*
 * The zero-copy path: the @p hdr_len header bytes copied into a header mbuf, then (when there is a payload) a
 * payload mbuf, pinned to the pattern (dp_zc_pools_create()), holding its first @p payload_len bytes. No payload byte
 * is copied, and nothing is attached or counted: a payload mbuf goes back to its pool as a plain one. Both come
 * from the port's stashes, refilled a burst's worth at a time (one mempool call per DP_BURST frames instead of one
 * per frame). NULL with tx_drop_nombuf counted when a pool is empty.
 */
static struct rte_mbuf *dp_zc_frame(struct dp_ctx *dp, struct dp_port *p, const uint8_t *hdr, size_t hdr_len,
				    size_t payload_len)
{
	struct rte_mbuf *h, *pay;

	if (unlikely((p->n_stash == 0 && !dp_stash_fill(dp->hdr_pool, p->stash, &p->n_stash)) ||
		     (payload_len > 0 && p->n_pstash == 0 && !dp_stash_fill(dp->pay_pool, p->pstash, &p->n_pstash)))) {
		p->st.tx_drop_nombuf++;
		return NULL;
	}
	h = p->stash[--p->n_stash];
	if (hdr != NULL) /* NULL: dp_tx_hdr_commit(), the headers are in the mbuf already */
		rte_memcpy(rte_pktmbuf_mtod(h, void *), hdr, hdr_len);
	/* the next frame's mbufs: their first line (buf_addr, data_off, lengths) and the header's second (next),
	 * which this frame's writes would otherwise wait for */
	if (likely(p->n_stash > 0)) {
		struct rte_mbuf *n = p->stash[p->n_stash - 1];

		rte_prefetch0(n);
		rte_prefetch0(&n->next);
		/* and its data room, which dp_tx_hdr_reserve() hands out for the next headers to be encoded into: where
		 * a header pool's mbuf keeps it (no private area, the default headroom: dp_zc_pools_create()), so the
		 * address needs no load of buf_addr from the line just asked for */
		uint8_t *room = (uint8_t *)n + sizeof(struct rte_mbuf) + RTE_PKTMBUF_HEADROOM;

		rte_prefetch0(room);
		rte_prefetch0(room + RTE_CACHE_LINE_SIZE);
	}
	if (likely(p->n_pstash > 1))
		rte_prefetch0(p->pstash[p->n_pstash - 2]);
	h->data_len = (uint16_t)hdr_len;
	h->pkt_len = (uint32_t)(hdr_len + payload_len);
	if (payload_len == 0)
		return h;
	pay = p->pstash[--p->n_pstash];
	pay->data_len = (uint16_t)payload_len;
	h->next = pay;
	h->nb_segs = 2;
	return h;
}

/*
 * Hand a port's staged burst to its TX queue. A PMD that enforces its MTU (net_tap) stops the burst at an
 * oversized frame: that frame alone is dropped as too big and the rest offered again. Otherwise the ring is full,
 * and what it did not take is dropped as full (l2fwd's rule: no retry, so a pass never spins on a busy port). Only
 * such a PMD's refusals are read as too big: net_memif reports an MTU of 1,500 yet carries 9,216 B frames, and
 * when its ring was full its 4 KiB frames were dropped one by one as too big, the rest of the burst sent after
 * them (a gap in the middle of a burst, where a full ring drops its tail).
 */
static void dp_burst_send(struct dp_port *p, struct rte_mbuf **tx, uint16_t n, uint64_t bytes,
			  struct dp_port_stats *st)
{
	uint16_t done = 0, toobig = 0, full = 0;
	uint64_t dropped_bytes = 0;

	while (done < n) {
		done += rte_eth_tx_burst(p->port_id, 0, tx + done, n - done);
		if (likely(done == n))
			break;
		/* Only the unsent mbufs are still ours to read: the PMD may already have freed the sent ones. */
		if (p->tx_mtu_refuses && tx[done]->pkt_len > p->max_frame) {
			dropped_bytes += tx[done]->pkt_len;
			rte_pktmbuf_free(tx[done++]);
			toobig++;
			continue;
		}
		full = n - done;
		for (uint16_t i = done; i < n; i++)
			dropped_bytes += tx[i]->pkt_len;
		rte_pktmbuf_free_bulk(tx + done, full);
		break;
	}
	/* one writer per counter set (the lcore's, or the TX thread's): a relaxed store each */
	__atomic_store_n(&st->tx_frames, st->tx_frames + (uint64_t)(n - toobig - full), __ATOMIC_RELAXED);
	__atomic_store_n(&st->tx_bytes, st->tx_bytes + bytes - dropped_bytes, __ATOMIC_RELAXED);
	__atomic_store_n(&st->tx_drop_toobig, st->tx_drop_toobig + toobig, __ATOMIC_RELAXED);
	__atomic_store_n(&st->tx_drop_full, st->tx_drop_full + full, __ATOMIC_RELAXED);
}

/* The staged burst of @p p to its TX queue, or (a TX thread) into its ring for the thread: what the ring has no
 * room for is dropped as full, as the PMD's own full ring would. */
static void dp_port_send(struct dp_port *p)
{
	uint16_t n = (uint16_t)p->n_tx;

	if (p->txr != NULL) {
		unsigned q = rte_ring_sp_enqueue_burst(p->txr, (void **)p->tx, n, NULL);

		if (unlikely(q < n)) {
			rte_pktmbuf_free_bulk(p->tx + q, n - q);
			p->st.tx_drop_full += n - q;
		}
	} else {
		dp_burst_send(p, p->tx, n, p->tx_staged_bytes, &p->st);
	}
	p->n_tx = 0;
	p->tx_staged_bytes = 0;
}

/* ---- the TX thread (dp_tx_thread_start) ---- */

/* One burst from port @p p's ring sent: 0 when the ring was empty. */
static unsigned tx_thread_burst(struct dp_port *p)
{
	struct rte_mbuf *b[DP_BURST];
	unsigned n = rte_ring_sc_dequeue_burst(p->txr, (void **)b, DP_BURST, NULL);
	uint64_t bytes = 0;

	for (unsigned i = 0; i < n; i++)
		bytes += b[i]->pkt_len;
	if (n > 0)
		dp_burst_send(p, b, (uint16_t)n, bytes, &p->th_st);
	return n;
}

/* Poll every port's ring, busy (a sleep would add its length to every frame), until told to stop, then send
 * what is left. */
static void *tx_thread_main(void *arg)
{
	struct dp_ctx *dp = arg;

	for (;;) {
		bool stop = __atomic_load_n(&dp->tx_stop, __ATOMIC_ACQUIRE);
		unsigned sent = 0;

		for (int i = 0; i < dp->n_ports; i++)
			if (dp->port[i].txr != NULL)
				sent += tx_thread_burst(&dp->port[i]);
		if (sent == 0) {
			if (stop)
				break;
			rte_pause();
		}
	}
	return NULL;
}

int dp_tx_thread_start(struct dp_ctx *dp, const bool *ports, const cpu_set_t *cpus, char *err, size_t errlen)
{
	char name[RTE_RING_NAMESIZE];
	pthread_attr_t a;
	int rc, n = 0;

	for (int i = 0; i < dp->n_ports; i++) {
		if (!ports[i])
			continue;
		snprintf(name, sizeof(name), "dp_txr%d", i);
		dp->port[i].txr = rte_ring_create(name, 1024, (int)rte_socket_id(), RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (dp->port[i].txr == NULL) {
			dp_err(err, errlen, "TX thread: no ring for port %d: %s", i, rte_strerror(rte_errno));
			dp_tx_thread_stop(dp);
			return -ENOMEM;
		}
		n++;
	}
	if (n == 0)
		return 0;
	__atomic_store_n(&dp->tx_stop, 0, __ATOMIC_RELAXED);
	pthread_attr_init(&a);
	if (cpus != NULL && CPU_COUNT(cpus) > 0)
		pthread_attr_setaffinity_np(&a, sizeof(*cpus), cpus);
	rc = pthread_create(&dp->tx_tid, &a, tx_thread_main, dp);
	pthread_attr_destroy(&a);
	if (rc != 0) {
		dp_err(err, errlen, "TX thread: %s", strerror(rc));
		dp_tx_thread_stop(dp);
		return -rc;
	}
	dp->tx_on = true;
	return n;
}

void dp_tx_thread_stop(struct dp_ctx *dp)
{
	if (dp->tx_on) {
		__atomic_store_n(&dp->tx_stop, 1, __ATOMIC_RELEASE);
		pthread_join(dp->tx_tid, NULL);
		dp->tx_on = false;
	}
	for (int i = 0; i < dp->n_ports; i++) {
		rte_ring_free(dp->port[i].txr); /* empty: the thread sent what was left */
		dp->port[i].txr = NULL;
	}
}

/* Stage @p m (@p len bytes) on port @p p, sending the burst when it is full. */
static inline void dp_stage(struct dp_port *p, struct rte_mbuf *m, size_t len)
{
	p->tx[p->n_tx++] = m;
	p->tx_staged_bytes += len;
	if (p->n_tx == DP_BURST)
		dp_port_send(p);
}

/*
 * Whether a frame of @p len bytes starting with @p hdr (at least its Ethernet header) is longer than port @p p's
 * MTU allows: MTU + 14 B, + 4 B for an 802.1Q tag (the kernel's rule for a packet socket). Counted when it is.
 */
static inline bool dp_over_mtu(struct dp_port *p, const uint8_t *hdr, size_t len)
{
	if (likely(p->tx_mtu == 0 || len <= (size_t)p->tx_mtu + RTE_ETHER_HDR_LEN))
		return false;
	if (len <= (size_t)p->tx_mtu + RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN && hdr[12] == 0x81 && hdr[13] == 0x00)
		return false;
	p->st.tx_drop_mtu++;
	return true;
}

int dp_tx(struct dp_ctx *dp, int port, const uint8_t *frame, size_t len)
{
	struct dp_port *p = &dp->port[port];
	struct rte_mbuf *m;
	int rc = DP_TX_OK;

	assert(port >= 0 && port < dp->n_ports);
	if (unlikely(len >= RTE_ETHER_HDR_LEN && dp_over_mtu(p, frame, len)))
		return DP_TX_MTU;
	m = dp_copy_frame(dp, p, frame, len, NULL, 0, &rc);
	if (unlikely(m == NULL))
		return rc;
	dp_stage(p, m, len);
	return DP_TX_OK;
}

int dp_tx_hdr(struct dp_ctx *dp, int port, const uint8_t *hdr, size_t hdr_len, size_t payload_len)
{
	struct dp_port *p = &dp->port[port];
	struct rte_mbuf *m;
	int rc = DP_TX_NOMBUF;

	assert(port >= 0 && port < dp->n_ports);
	if (unlikely(payload_len > dp->pat_len || hdr_len + payload_len > DP_FRAME_MAX)) {
		p->st.tx_drop_toobig++;
		return DP_TX_TOOBIG;
	}
	if (unlikely(hdr_len >= RTE_ETHER_HDR_LEN && dp_over_mtu(p, hdr, hdr_len + payload_len)))
		return DP_TX_MTU;
	if (likely(p->zerocopy && hdr_len <= DP_HDR_ROOM))
		m = dp_zc_frame(dp, p, hdr, hdr_len, payload_len);
	else
		m = dp_copy_frame(dp, p, hdr, hdr_len, dp->pat, payload_len, &rc);
	if (unlikely(m == NULL))
		return rc;
	dp_stage(p, m, hdr_len + payload_len);
	return DP_TX_OK;
}

uint8_t *dp_tx_hdr_reserve(struct dp_ctx *dp, int port)
{
	struct dp_port *p = &dp->port[port];

	assert(port >= 0 && port < dp->n_ports);
	if (unlikely(!p->zerocopy || (p->n_stash == 0 && !dp_stash_fill(dp->hdr_pool, p->stash, &p->n_stash))))
		return NULL;
	/* the top of the stash, taken only by the commit: a frame never committed costs nothing */
	return rte_pktmbuf_mtod(p->stash[p->n_stash - 1], uint8_t *);
}

int dp_tx_hdr_commit(struct dp_ctx *dp, int port, size_t hdr_len, size_t payload_len)
{
	struct dp_port *p = &dp->port[port];
	struct rte_mbuf *m;

	assert(port >= 0 && port < dp->n_ports && p->zerocopy && p->n_stash > 0);
	if (unlikely(payload_len > dp->pat_len || hdr_len > DP_HDR_ROOM || hdr_len + payload_len > DP_FRAME_MAX)) {
		p->st.tx_drop_toobig++;
		return DP_TX_TOOBIG;
	}
	if (unlikely(hdr_len >= RTE_ETHER_HDR_LEN &&
		     dp_over_mtu(p, rte_pktmbuf_mtod(p->stash[p->n_stash - 1], const uint8_t *), hdr_len + payload_len)))
		return DP_TX_MTU;
	m = dp_zc_frame(dp, p, NULL, hdr_len, payload_len);
	if (unlikely(m == NULL))
		return DP_TX_NOMBUF;
	dp_stage(p, m, hdr_len + payload_len);
	return DP_TX_OK;
}

void dp_flush_port(struct dp_ctx *dp, int port)
{
	if (dp->port[port].n_tx > 0)
		dp_port_send(&dp->port[port]);
}

void dp_flush(struct dp_ctx *dp)
{
	for (int i = 0; i < dp->n_ports; i++)
		if (dp->port[i].n_tx > 0)
			dp_port_send(&dp->port[i]);
}

/* Give back the mbufs of port @p p's last received burst. */
static inline void dp_rx_release(struct dp_port *p)
{
	if (p->n_rx_held > 0) {
		rte_pktmbuf_free_bulk(p->rx_held, p->n_rx_held);
		p->n_rx_held = 0;
	}
}

/*
 * One burst of up to @p n frames from port @p p into @p f, stamped @p now; their mbufs are held until
 * dp_rx_release(). A frame the port delivers as an mbuf chain is copied whole into one of the port's flat buffers
 * (one per frame of the burst). Returns the frames passed on; *@p taken gets how many the port gave.
 */
static inline unsigned dp_rx_take(struct dp_port *p, struct net_rx_frame *f, unsigned n, emu_ps_t now,
				  unsigned *taken)
{
	uint64_t bytes = 0, toobig = 0;
	unsigned out = 0;
	uint16_t got;

	dp_rx_release(p);
	got = rte_eth_rx_burst(p->port_id, 0, p->rx_held, (uint16_t)RTE_MIN(n, (unsigned)DP_BURST));
	for (uint16_t i = 0; i < got; i++) {
		/* A PMD that took the 802.1Q tag off into the mbuf puts it back in the bytes, so the port's IPv4 side
		 * (net_port_rx) sees every frame as it was on the wire (tagged frames of a vlan: port, and others).
		 * It fails only without 4 B of headroom: the frame then goes on untagged, and a vlan: port counts it. */
		if (unlikely(p->rx_held[i]->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED))
			(void)rte_vlan_insert(&p->rx_held[i]);
		const struct rte_mbuf *m = p->rx_held[i];
		const uint8_t *data;

		if (likely(m->nb_segs == 1)) {
			data = rte_pktmbuf_mtod(m, const uint8_t *);
		} else if (m->pkt_len <= DP_FRAME_MAX) {
			data = rte_pktmbuf_read(m, 0, m->pkt_len, p->rx_flat[out]);
		} else {
			toobig++;
			continue;
		}
		bytes += m->pkt_len;
		f[out++] = (struct net_rx_frame){ .data = data, .len = m->pkt_len, .held = i, .t = now };
	}
	p->n_rx_held = got;
	if (got > 0) {
		p->st.rx_frames += got - toobig;
		p->st.rx_bytes += bytes;
		p->st.rx_drop_toobig += toobig;
	}
	*taken = got;
	return out;
}

/* One burst of dp_rx(), inlined into dp_rx_drain() too. */
static inline unsigned dp_rx_burst(struct dp_ctx *dp, int port, dp_rx_fn fn, void *arg)
{
	struct dp_port *p = &dp->port[port];
	struct net_rx_frame f[DP_BURST];
	unsigned taken, n;

	assert(port >= 0 && port < dp->n_ports);
	n = dp_rx_take(p, f, DP_BURST, 0, &taken);
	for (unsigned i = 0; i < n; i++)
		fn(arg, port, f[i].data, f[i].len);
	dp_rx_release(p);
	return taken;
}

unsigned dp_rx(struct dp_ctx *dp, int port, dp_rx_fn fn, void *arg)
{
	return dp_rx_burst(dp, port, fn, arg);
}

unsigned dp_rx_drain(struct dp_ctx *dp, int port, dp_rx_fn fn, void *arg)
{
	unsigned total = 0, n = DP_BURST;

	for (int i = 0; i < DP_RX_DRAIN_BURSTS && n == DP_BURST; i++) {
		n = dp_rx_burst(dp, port, fn, arg);
		total += n;
	}
	return total;
}

/* ---- the port's binding to the models (net_bind.h) ---- */

_Static_assert(NET_BIND_BURST == DP_BURST && NET_BIND_DRAIN_BURSTS == DP_RX_DRAIN_BURSTS,
	       "a model-side burst is the dataplane's");

static unsigned dp_bind_rx(void *port, struct net_rx_frame *frames, unsigned n, emu_ps_t now)
{
	unsigned taken;

	return dp_rx_take(port, frames, n, now, &taken);
}

static unsigned dp_bind_tx(void *port, const struct net_tx_frame *frames, unsigned n)
{
	struct dp_port *p = port;
	unsigned staged = 0;

	for (unsigned i = 0; i < n; i++)
		staged += dp_tx_hdr(p->dp, p->idx, frames[i].hdr, frames[i].len, frames[i].payload) == DP_TX_OK;
	return staged;
}

static void dp_bind_flush(void *port)
{
	struct dp_port *p = port;

	if (p->n_tx > 0)
		dp_port_send(p);
	dp_rx_release(p);
}

/* Zero-copy forwarding: frame @p f's mbuf leaves the held burst (its slot NULL, which rte_pktmbuf_free_bulk()
 * skips) when it is one segment the frame's bytes are in and no one else refers to. */
static void *dp_bind_keep(void *port, const struct net_rx_frame *f, uint8_t **bytes)
{
	struct dp_port *p = port;
	struct rte_mbuf *m = f->held < p->n_rx_held ? p->rx_held[f->held] : NULL;

	if (unlikely(m == NULL || m->nb_segs != 1 || !RTE_MBUF_DIRECT(m) || rte_mbuf_refcnt_read(m) != 1 ||
		     rte_pktmbuf_mtod(m, const uint8_t *) != f->data))
		return NULL;
	p->rx_held[f->held] = NULL;
	p->st.rx_kept++;
	*bytes = rte_pktmbuf_mtod(m, uint8_t *);
	return m;
}

/* A kept mbuf staged as it is, cut to the frame (a trim shortens it), after the checks dp_tx() makes. */
static unsigned dp_bind_tx_buf(void *port, void *buf, uint32_t len)
{
	struct dp_port *p = port;
	struct rte_mbuf *m = buf;

	if (unlikely(len > m->data_len || len > DP_FRAME_MAX)) {
		p->st.tx_drop_toobig++;
		rte_pktmbuf_free(m);
		return 0;
	}
	if (unlikely(len >= RTE_ETHER_HDR_LEN && dp_over_mtu(p, rte_pktmbuf_mtod(m, const uint8_t *), len))) {
		rte_pktmbuf_free(m);
		return 0;
	}
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	m->ol_flags = 0; /* the receive offload flags (a stripped tag, checksums seen) mean nothing on the way out */
	dp_stage(p, m, len);
	return 1;
}

static void dp_bind_buf_free(void *port, void *buf)
{
	(void)port;
	rte_pktmbuf_free(buf);
}

static const struct net_bind_ops dp_bind_ops = { .rx_burst = dp_bind_rx, .tx_burst = dp_bind_tx,
						 .flush = dp_bind_flush, .keep = dp_bind_keep,
						 .tx_buf = dp_bind_tx_buf, .buf_free = dp_bind_buf_free };

void dp_port_bind(struct dp_ctx *dp, int port, struct net_bind *out)
{
	assert(port >= 0 && port < dp->n_ports);
	out->ops = &dp_bind_ops;
	out->port = &dp->port[port];
}
