/* Partitions and links: serialization, propagation delay, taps and external sinks. */
#include "net.h"
#include "emu_counter.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

EMU_COUNTER_NAMES(net_counter, NET_COUNTERS, NET_C_COUNT)

int net_part_init(struct net_part *np, uint32_t max_events, uint32_t max_pkts)
{
	memset(np, 0, sizeof(*np));
	np->sched = emu_sched_create(max_events);
	if (np->sched == NULL)
		return -ENOMEM;
	np->pkts = emu_pool_create(NET_PKT_STRIDE, max_pkts);
	if (np->pkts == NULL) {
		emu_sched_destroy(np->sched);
		np->sched = NULL;
		return -ENOMEM;
	}
	return 0;
}

int net_part_raw_init(struct net_part *np, uint32_t count)
{
	if (np->raw == NULL)
		np->raw = emu_pool_create(WIRE_MAX_FRAME, count);
	return np->raw != NULL ? 0 : -ENOMEM;
}

struct wire_pkt *net_pkt_raw(struct net_part *np, const uint8_t *frame, size_t len, uint16_t uet_port, int *reason)
{
	struct wire_pkt d = { 0 };

	*reason = wire_raw_take(frame, len, uet_port, &d);
	if (*reason != WIRE_R_OK)
		return NULL;
	return net_pkt_raw_copy(np, &d, frame);
}

struct wire_pkt *net_pkt_raw_copy(struct net_part *np, const struct wire_pkt *d, const uint8_t *bytes)
{
	struct wire_pkt *p;
	uint8_t *buf;
	size_t len = d->payload_len;

	if (len > WIRE_MAX_FRAME || (np->raw == NULL && net_part_raw_init(np, NET_RAW_BUFS) != 0) ||
	    (buf = emu_pool_get(np->raw)) == NULL) {
		np->counters[NET_C_RAW_POOL_FULL]++;
		return NULL;
	}
	if ((p = net_pkt_copy(np, d)) == NULL) {
		emu_pool_put(np->raw, buf);
		return NULL;
	}
	memcpy(buf, bytes, len);
	p->raw.buf = buf;
	p->raw.buf_ref = NULL; /* a copy: its bytes are the raw pool's, whoever held @p d's */
	p->raw.ref_slot = 0;
	return p;
}

/* The partition's table of port buffers, made at its first kept frame (as the raw pool is at its first frame). */
static struct net_refs *refs_get(struct net_part *np)
{
	if (np->refs == NULL && (np->refs = calloc(1, sizeof(*np->refs))) != NULL) {
		np->refs->n_free = NET_REFS_MAX;
		for (uint32_t i = 0; i < NET_REFS_MAX; i++)
			np->refs->free[i] = (uint16_t)(NET_REFS_MAX - 1 - i);
	}
	return np->refs;
}

struct wire_pkt *net_pkt_raw_keep(struct net_part *np, const struct net_bind *b, const struct net_rx_frame *f,
				  uint16_t uet_port, int *reason)
{
	struct wire_pkt d = { 0 }, *p;
	struct net_refs *t;
	uint8_t *bytes;
	void *ref;

	*reason = wire_raw_take(f->data, f->len, uet_port, &d);
	if (*reason != WIRE_R_OK)
		return NULL;
	if (b->ops->keep == NULL || (t = refs_get(np)) == NULL || t->n_free == 0)
		return net_pkt_raw_copy(np, &d, f->data);
	if ((p = net_pkt_alloc(np)) == NULL)
		return NULL;
	if ((ref = b->ops->keep(b->port, f, &bytes)) == NULL) {
		net_pkt_free(np, p);
		return net_pkt_raw_copy(np, &d, f->data);
	}
	uint16_t slot = t->free[--t->n_free];

	t->ref[slot] = ref;
	t->from[slot] = b;
	t->kept++;
	*p = d;
	p->raw.buf = bytes;
	p->raw.buf_ref = ref;
	p->raw.ref_slot = slot;
	return p;
}

/* The slot of the buffer @p p holds, when @p np's table has it there; -1 when not (taken already, released). */
static int ref_slot(const struct net_part *np, const struct wire_pkt *p)
{
	const struct net_refs *t = np->refs;
	uint16_t s = p->raw.ref_slot;

	return t != NULL && s < NET_REFS_MAX && t->ref[s] == p->raw.buf_ref ? s : -1;
}

static void ref_put(struct net_refs *t, int slot)
{
	t->ref[slot] = NULL;
	t->from[slot] = NULL;
	t->free[t->n_free++] = (uint16_t)slot;
}

void net_pkt_ref_free(struct net_part *np, const struct wire_pkt *p)
{
	int s = ref_slot(np, p);

	if (s < 0)
		return; /* sent on by a port, or given back at the run's end */
	np->refs->from[s]->ops->buf_free(np->refs->from[s]->port, p->raw.buf_ref);
	np->refs->freed++;
	ref_put(np->refs, s);
}

void *net_pkt_ref_take(struct net_part *np, const struct wire_pkt *p, const struct net_bind_ops *ops)
{
	int s = p->kind == WIRE_KIND_RAW && p->raw.buf_ref != NULL ? ref_slot(np, p) : -1;

	if (s < 0 || np->refs->from[s]->ops != ops)
		return NULL;
	np->refs->sent++;
	ref_put(np->refs, s);
	return p->raw.buf_ref;
}

void net_part_refs_release(struct net_part *np)
{
	struct net_refs *t = np->refs;

	for (uint32_t s = 0; t != NULL && s < NET_REFS_MAX; s++) {
		if (t->ref[s] == NULL)
			continue;
		t->from[s]->ops->buf_free(t->from[s]->port, t->ref[s]);
		t->released++;
		ref_put(t, (int)s);
	}
}

uint32_t net_part_refs_out(const struct net_part *np)
{
	return np->refs != NULL ? NET_REFS_MAX - np->refs->n_free : 0;
}

void net_part_fini(struct net_part *np)
{
	free(np->refs); /* released before the ports closed (net_part_refs_release()): their pools are gone now */
	np->refs = NULL;
	emu_pool_destroy(np->raw);
	np->raw = NULL;
	emu_pool_destroy(np->pkts);
	emu_sched_destroy(np->sched);
	np->pkts = NULL;
	np->sched = NULL;
}

void net_link_init(struct net_link *l, struct net_part *np, uint64_t bps, emu_ps_t delay, struct net_endpoint a,
		   struct net_endpoint b)
{
	memset(l, 0, sizeof(*l));
	l->np = np;
	l->bps = bps;
	l->ps_per_byte = emu_ps_per_byte(bps);
	l->delay = delay;
	for (uint32_t i = 0; i < 2; i++) {
		l->dir[i].link = l;
		l->dir[i].index = i;
		l->dir[i].np = np;
		l->dir[i].rx_np = np;
	}
	l->dir[0].from = a;
	l->dir[0].to = b;
	l->dir[1].from = b;
	l->dir[1].to = a;
}

void net_link_parts(struct net_link *l, struct net_part *a, struct net_part *b)
{
	l->dir[0].np = a;
	l->dir[0].rx_np = b;
	l->dir[1].np = b;
	l->dir[1].rx_np = a;
}

int net_link_add_tap(struct net_link *l, net_tap_fn fn, void *arg)
{
	if (l->n_taps == NET_LINK_MAX_TAPS)
		return -ENOSPC;
	l->taps[l->n_taps] = fn;
	l->tap_args[l->n_taps] = arg;
	l->n_taps++;
	return 0;
}

int net_link_add_drop_tap(struct net_link *l, net_drop_fn fn, void *arg)
{
	if (l->n_drop_taps == NET_LINK_MAX_TAPS)
		return -ENOSPC;
	l->drop_taps[l->n_drop_taps] = fn;
	l->drop_tap_args[l->n_drop_taps] = arg;
	l->n_drop_taps++;
	return 0;
}

static void ev_arrive(void *a, void *b, emu_ps_t now)
{
	struct net_dir *d = a;

	emu_sched_set_ent(d->rx_np->sched, d->to.ent); /* it runs as its receiver, whoever sent it */
	d->to.ops->receive(d->to.dev, d->to.port, b, now);
}

static void ev_tx_done(void *a, void *b, emu_ps_t now)
{
	struct net_dir *d = a;

	(void)b;
	if (d->from.ops != NULL && d->from.ops->tx_done != NULL)
		d->from.ops->tx_done(d->from.dev, d->from.port, now);
}

void net_dir_set_impair(struct net_dir *d, const struct net_impair *imp, uint32_t n, uint8_t dscp_trimmed,
			uint8_t dscp_trimmed_lasthop)
{
	d->impair = imp;
	d->n_impair = n;
	d->dscp_trimmed = dscp_trimmed;
	d->dscp_trimmed_lasthop = dscp_trimmed_lasthop;
}

/* Apply the fixture to a data frame; returns the extra delay, or EMU_PS_NEVER when the frame is dropped. */
static emu_ps_t impair(struct net_dir *d, struct wire_pkt *pkt)
{
	uint64_t nth = ++d->data_frames;

	for (uint32_t i = 0; i < d->n_impair; i++) {
		const struct net_impair *im = &d->impair[i];
		if (im->nth != nth)
			continue;
		switch (im->action) {
		case NET_IMPAIR_TRIM:
		case NET_IMPAIR_TRIM_LASTHOP:
			d->trims++;
			/* cut to IPv4 + UDP + PDS request: the SES header and payload are gone (spec 1.6) */
			pkt->kind = WIRE_KIND_TRIMMED;
			pkt->payload_len = 0;
			pkt->dscp = im->action == NET_IMPAIR_TRIM ? d->dscp_trimmed : d->dscp_trimmed_lasthop;
			return 0;
		case NET_IMPAIR_DROP:
			return EMU_PS_NEVER;
		default:
			return im->delay;
		}
	}
	return 0;
}

/* One fault's start (@p b set) or end on a direction. Faults may meet end to end (the config refuses only
 * overlaps), so the direction is down while any holds it: a count, not a flag, whatever order same-time events
 * run in. */
static void ev_down(void *a, void *b, emu_ps_t now)
{
	struct net_dir *d = a;

	(void)now;
	if (b != NULL)
		d->down++;
	else if (d->down > 0)
		d->down--;
}

int net_link_fault_down(struct net_link *l, emu_ps_t down, emu_ps_t up)
{
	for (uint32_t i = 0; i < 2; i++) {
		struct net_dir *d = &l->dir[i];
		struct emu_sched *s = d->np->sched;
		uint32_t ent = emu_sched_ent(s);
		int rc = 0;

		emu_sched_set_ent(s, d->from.ent); /* its sender's, as if the sender had scheduled it */
		if (net_sched(d->np, down, ev_down, d, (void *)1, NULL) < 0 ||
		    (up != EMU_PS_NEVER && net_sched(d->np, up, ev_down, d, NULL, NULL) < 0))
			rc = -ENOSPC;
		emu_sched_set_ent(s, ent);
		if (rc < 0)
			return rc;
	}
	return 0;
}

void net_link_fault_loss(struct net_link *l, uint32_t ppm, uint64_t seed, uint64_t id)
{
	l->loss_ppm = ppm;
	emu_rng_init(&l->dir[0].loss_rng, seed, id);
	emu_rng_init(&l->dir[1].loss_rng, seed, id + (1ull << 62));
}

/* A fault takes the frame: counted as a drop of the direction. Returns the counter it is counted under, or 0. */
static int fault_takes(struct net_dir *d)
{
	struct net_link *l = d->link;

	if (d->down) {
		d->np->counters[NET_C_LINK_DOWN_DROP]++;
		return NET_C_LINK_DOWN_DROP;
	}
	if (l->loss_ppm != 0 && emu_rng_below(&d->loss_rng, 1000000) < l->loss_ppm) {
		d->np->counters[NET_C_LINK_LOSS_DROP]++;
		return NET_C_LINK_LOSS_DROP;
	}
	return 0;
}

emu_ps_t net_dir_xmit(struct net_dir *d, struct wire_pkt *pkt, emu_ps_t now)
{
	return net_dir_xmit_len(d, pkt, wire_wire_len(pkt), pkt->kind, now);
}

emu_ps_t net_dir_xmit_len(struct net_dir *d, struct wire_pkt *pkt, size_t wl, uint8_t kind, emu_ps_t now)
{
	struct net_link *l = d->link;
	struct net_part *np = d->np;
	emu_ps_t end = now + (l->ps_per_byte ? wl * l->ps_per_byte : emu_ser_ps(wl, l->bps));
	emu_ps_t extra = 0;
	int why = 0;

	assert(now >= d->busy_until);
	d->busy_until = end;
	d->frames++;
	d->bytes += wl;
	if (kind == WIRE_KIND_PFC)
		for (int c = 0; c < 8; c++)
			if ((pkt->pfc_enable >> c & 1) && pkt->pfc_quanta[c]) {
				d->pauses++;
				break;
			}
	/* a fixture: looks at the packet itself */
	if (d->n_impair != 0 && (pkt->kind == WIRE_KIND_DATA ||
				 (pkt->kind == WIRE_KIND_ROCE && wire_roce_is_data(pkt->roce.opcode))))
		extra = impair(d, pkt);
	if (extra == EMU_PS_NEVER)
		np->counters[why = NET_C_IMPAIR_DROP]++;
	else if ((d->down || l->loss_ppm) && (why = fault_takes(d)) != 0)
		extra = EMU_PS_NEVER;
	if (extra == EMU_PS_NEVER) {
		d->drops++;
		for (uint32_t i = 0; i < l->n_drop_taps; i++) /* capture points note the loss (pcapng) */
			l->drop_taps[i](l->drop_tap_args[i], d->index, pkt, now, why);
		net_pkt_free(np, pkt);
		net_sched(np, end, ev_tx_done, d, NULL, NULL);
		return end;
	}
	for (uint32_t i = 0; i < l->n_taps; i++)
		l->taps[i](l->tap_args[i], d->index, pkt, now);
	if (d->ext == NULL && d->to.ops != NULL && d->cross == NULL && d->rx_np == np) {
		/* the arrival and the end of serialization, in that order, in one call */
		int refused = emu_sched_at2(np->sched, end + l->delay + extra, ev_arrive, d, pkt, end, ev_tx_done, d, NULL);

		if (refused & 1) {
			np->counters[NET_C_SCHED_FULL]++;
			net_pkt_free(np, pkt);
		}
		if (refused & 2)
			np->counters[NET_C_SCHED_FULL]++;
		return end;
	}
	if (d->ext != NULL) {
		d->ext(d->ext_arg, pkt, now);
		net_pkt_free(np, pkt);
	} else if (d->to.ops == NULL) {
		np->counters[NET_C_LINK_UNCONNECTED]++;
		net_pkt_free(np, pkt);
	} else if (d->cross != NULL) { /* a RAW one's bytes go with it (net_pkt_raw_copy() on the other side) */
		struct emu_sched_key k;

		emu_sched_key_draw(np->sched, &k); /* the arrival's, before the end of serialization's, as above */
		d->cross(d->cross_arg, d, pkt, end + l->delay + extra, &k);
		net_pkt_free(np, pkt);
	} else if (net_sched(d->rx_np, end + l->delay + extra, ev_arrive, d, pkt, NULL) < 0) {
		net_pkt_free(np, pkt);
	}
	net_sched(np, end, ev_tx_done, d, NULL, NULL);
	return end;
}

int net_dir_arrive(struct net_dir *d, struct wire_pkt *pkt, emu_ps_t at)
{
	int rc = net_sched(d->rx_np, at, ev_arrive, d, pkt, NULL);

	if (rc < 0)
		net_pkt_free(d->rx_np, pkt);
	return rc;
}

int net_dir_arrive_key(struct net_dir *d, struct wire_pkt *pkt, emu_ps_t at, const struct emu_sched_key *k)
{
	int rc = emu_sched_at_key(d->rx_np->sched, at, k, ev_arrive, d, pkt);

	if (rc < 0) {
		d->rx_np->counters[NET_C_SCHED_FULL]++;
		net_pkt_free(d->rx_np, pkt);
	}
	return rc;
}

/*
 * A frame a real port brought in crossed direction @p d too: counted as a frame sent on it and shown to its taps.
 * False when nothing is at its receiving end (counted, @p pkt freed).
 */
static bool inject_seen(struct net_dir *d, struct wire_pkt *pkt, size_t wl, emu_ps_t now)
{
	struct net_link *l = d->link;

	d->frames++;
	d->bytes += wl;
	for (uint32_t i = 0; i < l->n_taps; i++)
		l->taps[i](l->tap_args[i], d->index, pkt, now);
	if (d->to.ops == NULL) {
		d->rx_np->counters[NET_C_EXT_RX_NO_DEVICE]++;
		net_pkt_free(d->rx_np, pkt);
		return false;
	}
	return true;
}

void net_dir_inject(struct net_dir *d, struct wire_pkt *pkt, emu_ps_t now)
{
	if (inject_seen(d, pkt, wire_wire_len(pkt), now))
		d->to.ops->receive(d->to.dev, d->to.port, pkt, now);
}

void net_dir_inject_link(struct net_dir *d, struct wire_pkt *pkt, emu_ps_t now)
{
	size_t wl = wire_wire_len(pkt);

	if (inject_seen(d, pkt, wl, now))
		net_dir_arrive(d, pkt, now + emu_ser_ps(wl, d->link->bps) + d->link->delay);
}
