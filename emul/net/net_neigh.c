/* The neighbour table of a port: IPv4 next hops to MAC addresses by ARP, frames held while a next hop is
 * resolved, retries at a bounded rate, and every entry a remote node can make bounded and reclaimed. */
#include "net_pvt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/* Fibonacci hashing: the top bucket_bits bits of ip x 2^32 / phi. */
static uint32_t hash_ip(const struct net_port *p, uint32_t ip)
{
	return (uint32_t)(ip * 0x9e3779b1u) >> (32 - p->bucket_bits);
}

static uint32_t idx_of(const struct net_port *p, const struct net_neigh *e)
{
	return (uint32_t)(e - p->neigh);
}

struct net_neigh *net_neigh_find(const struct net_port *p, uint32_t ip)
{
	for (uint32_t i = p->bucket[hash_ip(p, ip)]; i != NET_NIL; i = p->neigh[i].hnext)
		if (p->neigh[i].ip == ip)
			return &p->neigh[i];
	return NULL;
}

/* The earliest timer of @p e joins the port's next_due. */
static void due(struct net_port *p, const struct net_neigh *e)
{
	emu_ps_t t = e->next_try;

	if (e->state == NET_NEIGH_REACHABLE) {
		emu_ps_t last = e->used > e->confirmed ? e->used : e->confirmed;
		if (last + p->cfg.expire < t)
			t = last + p->cfg.expire;
	}
	if (t < p->next_due)
		p->next_due = t;
}

/* An entry for @p ip in hash bucket and state @p state, from the free list. */
static struct net_neigh *take(struct net_port *p, uint32_t ip, uint8_t state, uint32_t slot)
{
	uint32_t i = p->neigh_free, b = hash_ip(p, ip);
	struct net_neigh *e = &p->neigh[i];

	p->neigh_free = e->hnext;
	memset(e, 0, sizeof(*e));
	e->ip = ip;
	e->state = state;
	e->slot = slot;
	e->held_head = e->held_tail = NET_NIL;
	e->next_try = EMU_PS_NEVER;
	e->hnext = p->bucket[b];
	p->bucket[b] = i;
	return e;
}

/* Drop every frame @p e holds, counted under @p counter. */
static void held_drop(struct net_port *p, struct net_neigh *e, int counter)
{
	while (e->held_head != NET_NIL) {
		uint32_t h = e->held_head;

		e->held_head = p->hold[h].next;
		p->hold[h].next = p->hold_free;
		p->hold_free = h;
		p->c[counter]++;
	}
	e->held_tail = NET_NIL;
	e->n_held = 0;
}

/* Free @p e (its held frames counted as @p counter) and return it to the free list. */
static void release(struct net_port *p, struct net_neigh *e, int counter)
{
	uint32_t i = idx_of(p, e), *pp = &p->bucket[hash_ip(p, e->ip)];

	held_drop(p, e, counter);
	while (*pp != i)
		pp = &p->neigh[*pp].hnext;
	*pp = e->hnext;
	e->state = NET_NEIGH_FREE;
	e->hnext = p->neigh_free;
	p->neigh_free = i;
	p->n_learnt--;
}

/*
 * A new learnt entry. When the table is full the least recently used resolved entry is reclaimed; entries being
 * resolved and statics are never taken, so NULL when every entry is under resolution.
 */
static struct net_neigh *alloc(struct net_port *p, uint32_t ip, uint8_t state, uint32_t slot)
{
	if (p->n_learnt >= p->cfg.neigh_max) {
		struct net_neigh *lru = NULL;
		emu_ps_t lru_t = EMU_PS_NEVER;

		for (uint32_t i = 0; i < p->n_neigh; i++) {
			struct net_neigh *e = &p->neigh[i];
			emu_ps_t t = e->used > e->confirmed ? e->used : e->confirmed;
			if (e->state == NET_NEIGH_REACHABLE && t < lru_t) {
				lru = e;
				lru_t = t;
			}
		}
		if (lru == NULL)
			return NULL;
		release(p, lru, NET_PORT_C_TX_DROP_UNRESOLVED);
		p->c[NET_PORT_C_NEIGH_EVICTED]++;
	}
	p->n_learnt++;
	return take(p, ip, state, slot);
}

/* The rate limit: a token bucket of arp_burst requests refilled one per arp_interval. */
static bool arp_token(struct net_port *p, emu_ps_t wall)
{
	if (p->arp_tokens >= p->cfg.arp_burst) {
		p->arp_refill = wall;
	} else if (wall > p->arp_refill) {
		uint64_t k = (wall - p->arp_refill) / p->cfg.arp_interval;
		if (k > 0) {
			uint64_t t = p->arp_tokens + k;
			p->arp_tokens = t >= p->cfg.arp_burst ? p->cfg.arp_burst : (uint32_t)t;
			p->arp_refill = p->arp_tokens == p->cfg.arp_burst ? wall : p->arp_refill + k * p->cfg.arp_interval;
		}
	}
	if (p->arp_tokens == 0)
		return false;
	p->arp_tokens--;
	return true;
}

/* Send @p e's next request (broadcast while unresolved, to its MAC when refreshing), or put it off. */
static void try_arp(struct net_port *p, struct net_neigh *e, emu_ps_t wall)
{
	if (!arp_token(p, wall)) {
		p->c[NET_PORT_C_ARP_RATE_LIMITED]++;
		e->next_try = wall + p->cfg.arp_interval;
	} else {
		net_port_arp_request(p, e->slot, e->state == NET_NEIGH_INCOMPLETE ? bcast : e->mac, e->ip);
		e->tries++;
		e->next_try = wall + p->cfg.arp_retry;
	}
	due(p, e);
}

/* Hold a copy of @p pkt for @p e; past hold_per_neigh the oldest goes. */
static void hold(struct net_port *p, struct net_neigh *e, const struct wire_pkt *pkt)
{
	if (e->n_held >= p->cfg.hold_per_neigh) {
		uint32_t h = e->held_head;

		e->held_head = p->hold[h].next;
		p->hold[h].next = p->hold_free;
		p->hold_free = h;
		e->n_held--;
		if (e->held_head == NET_NIL)
			e->held_tail = NET_NIL;
		p->c[NET_PORT_C_TX_DROP_HOLD_FULL]++;
	}
	if (p->hold_free == NET_NIL) {
		p->c[NET_PORT_C_TX_DROP_HOLD_POOL]++;
		return;
	}
	uint32_t h = p->hold_free;

	p->hold_free = p->hold[h].next;
	p->hold[h].pkt = *pkt;
	p->hold[h].next = NET_NIL;
	if (e->held_tail == NET_NIL)
		e->held_head = h;
	else
		p->hold[e->held_tail].next = h;
	e->held_tail = h;
	e->n_held++;
	p->c[NET_PORT_C_TX_HELD]++;
}

/* @p e has its MAC now: send what it held, oldest first. */
static void held_flush(struct net_port *p, struct net_neigh *e)
{
	while (e->held_head != NET_NIL) {
		uint32_t h = e->held_head;

		net_port_emit_pkt(p, &p->hold[h].pkt, e->mac);
		p->c[NET_PORT_C_TX_HELD_SENT]++;
		e->held_head = p->hold[h].next;
		p->hold[h].next = p->hold_free;
		p->hold_free = h;
	}
	e->held_tail = NET_NIL;
	e->n_held = 0;
}

void net_neigh_send(struct net_port *p, uint32_t slot, uint32_t ip, const struct wire_pkt *pkt, emu_ps_t wall)
{
	struct net_neigh *e = net_neigh_find(p, ip);

	if (e == NULL && p->cfg.static_only) { /* neighbours: static: a next hop the config does not name */
		p->c[NET_PORT_C_TX_DROP_NO_STATIC]++;
		return;
	}
	if (e == NULL) {
		e = alloc(p, ip, NET_NEIGH_INCOMPLETE, slot);
		if (e == NULL) {
			p->c[NET_PORT_C_TX_DROP_NEIGH_FULL]++;
			return;
		}
		try_arp(p, e, wall);
	}
	e->used = wall;
	if (e->state == NET_NEIGH_INCOMPLETE) {
		hold(p, e, pkt);
		return;
	}
	/* a stale entry is still used, and refreshed by a request to its MAC (RFC 1122's unicast poll) */
	if (e->state == NET_NEIGH_REACHABLE && e->next_try == EMU_PS_NEVER && e->confirmed + p->cfg.reachable <= wall) {
		e->tries = 0;
		try_arp(p, e, wall);
	}
	net_port_emit_pkt(p, pkt, e->mac);
}

void net_neigh_resolve(struct net_port *p, uint32_t slot, uint32_t ip, emu_ps_t wall)
{
	struct net_neigh *e = net_neigh_find(p, ip);

	if (e != NULL || p->cfg.static_only)
		return;
	e = alloc(p, ip, NET_NEIGH_INCOMPLETE, slot);
	if (e == NULL) {
		p->c[NET_PORT_C_TX_DROP_NEIGH_FULL]++;
		return;
	}
	e->used = wall;
	try_arp(p, e, wall);
}

bool net_neigh_learn(struct net_port *p, uint32_t ip, const uint8_t mac[6], uint8_t how, bool create,
		     uint32_t slot, emu_ps_t wall)
{
	struct net_neigh *e = p->cfg.static_only ? NULL : net_neigh_find(p, ip);

	if (e == NULL && create && !p->cfg.static_only)
		e = alloc(p, ip, NET_NEIGH_REACHABLE, slot);
	if (e == NULL || e->state == NET_NEIGH_STATIC)
		return false;
	memcpy(e->mac, mac, 6);
	e->state = NET_NEIGH_REACHABLE;
	e->learnt = how;
	e->confirmed = wall;
	e->tries = 0;
	e->next_try = EMU_PS_NEVER;
	held_flush(p, e);
	due(p, e);
	return true;
}

/* One entry's timers at @p wall: a request due, the last one unanswered, or unused past the expiry time. */
static void timer(struct net_port *p, struct net_neigh *e, emu_ps_t wall)
{
	if (e->next_try <= wall) {
		if (e->tries >= p->cfg.arp_tries) {
			p->c[NET_PORT_C_NEIGH_FAILED]++;
			release(p, e, NET_PORT_C_TX_DROP_UNRESOLVED);
			return;
		}
		try_arp(p, e, wall);
		return;
	}
	emu_ps_t last = e->used > e->confirmed ? e->used : e->confirmed;

	if (e->state == NET_NEIGH_REACHABLE && e->next_try == EMU_PS_NEVER && last + p->cfg.expire <= wall) {
		p->c[NET_PORT_C_NEIGH_EXPIRED]++;
		release(p, e, NET_PORT_C_TX_DROP_UNRESOLVED);
		return;
	}
	due(p, e);
}

emu_ps_t net_port_next_due(const struct net_port *p)
{
	return p->next_due;
}

void net_port_tick(struct net_port *p, emu_ps_t wall)
{
	if (wall < p->next_due)
		return;
	p->next_due = EMU_PS_NEVER;
	for (uint32_t i = 0; i < p->n_neigh; i++) {
		struct net_neigh *e = &p->neigh[i];
		if (e->state == NET_NEIGH_INCOMPLETE || e->state == NET_NEIGH_REACHABLE)
			timer(p, e, wall);
	}
}

int net_neigh_init(struct net_port *p)
{
	uint32_t n = p->cfg.neigh_max + p->cfg.n_statics, bits = 4;

	while ((1u << bits) < 2 * n && bits < 24)
		bits++;
	p->n_neigh = n;
	p->bucket_bits = bits;
	p->neigh = calloc(n, sizeof(*p->neigh));
	p->bucket = malloc(sizeof(*p->bucket) << bits);
	p->hold = calloc(p->cfg.hold_max, sizeof(*p->hold));
	if (p->neigh == NULL || p->bucket == NULL || p->hold == NULL)
		return -ENOMEM;
	for (uint32_t b = 0; b < 1u << bits; b++)
		p->bucket[b] = NET_NIL;
	for (uint32_t i = 0; i < n; i++)
		p->neigh[i].hnext = i + 1 < n ? i + 1 : NET_NIL;
	p->neigh_free = 0;
	for (uint32_t h = 0; h < p->cfg.hold_max; h++)
		p->hold[h].next = h + 1 < p->cfg.hold_max ? h + 1 : NET_NIL;
	p->hold_free = p->cfg.hold_max > 0 ? 0 : NET_NIL;
	for (uint32_t s = 0; s < p->cfg.n_statics; s++) {
		if (net_neigh_find(p, p->cfg.statics[s].ip) != NULL)
			continue;
		struct net_neigh *e = take(p, p->cfg.statics[s].ip, NET_NEIGH_STATIC, 0);
		memcpy(e->mac, p->cfg.statics[s].mac, 6);
		e->learnt = NET_LEARNT_CONFIG;
	}
	p->next_due = EMU_PS_NEVER;
	return 0;
}

void net_neigh_fini(struct net_port *p)
{
	free(p->neigh);
	free(p->bucket);
	free(p->hold);
}

uint32_t net_port_neighbours(const struct net_port *p, emu_ps_t wall, struct net_neigh_info *out, uint32_t max)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < p->n_neigh; i++) {
		const struct net_neigh *e = &p->neigh[i];
		if (e->state == NET_NEIGH_FREE)
			continue;
		if (n < max) {
			struct net_neigh_info *o = &out[n];
			o->ip = e->ip;
			memcpy(o->mac, e->mac, 6);
			o->state = e->state;
			if (e->state == NET_NEIGH_REACHABLE && e->confirmed + p->cfg.reachable <= wall)
				o->state = NET_NEIGH_STALE;
			o->learnt = e->learnt;
			o->held = e->n_held;
		}
		n++;
	}
	return n;
}
