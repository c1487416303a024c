/* The Chakra transports' shared part (the map, the transfer slots, the NICs' reports) and the APP_CK_NET_MSG_ID
 * transport (the Scala UET NIC's): one RDMA WRITE per transfer on a connection of its own (a new PDC), known to the
 * receiver by its message id. The APP_CK_NET_CONN_MSN transport is app_chakra_qp.c. */
#include <errno.h>
#include <stdlib.h>

#include "app_chakra_net_pvt.h"

/* The emulated hosts by IP, for the receive hooks of both transports (a sender is known by its address). */
static int hosts_by_ip(struct app_ck_net *t)
{
	for (uint32_t h = 0; h < t->p.n_hosts; h++)
		if (!(t->p.external && t->p.external[h]) &&
		    app_ck_map_put(t, APP_CK_KEY_IP | t->p.host_ip[h], h) == -ENOMEM)
			return -ENOMEM;
	return 0;
}

struct app_ck_net *app_ck_net_create(const struct app_ck_net_params *p, const struct port_nic *hosts)
{
	struct app_ck_net *t;

	if (p->kind != APP_CK_NET_MSG_ID && p->kind != APP_CK_NET_CONN_MSN) {
		errno = EINVAL;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->p = *p, t->hosts = hosts;
	t->posts = calloc(p->n_hosts + 1, sizeof(*t->posts));
	if (!t->posts || hosts_by_ip(t)) {
		app_ck_net_destroy(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

void app_ck_net_destroy(struct app_ck_net *t)
{
	if (!t)
		return;
	free(t->posts), free(t->slots), free(t->free_slots), free(t->mkeys), free(t->mvals), free(t->qps);
	free(t);
}

void app_ck_net_bind(struct app_ck_net *t, struct app_ck_run *run, struct app_ck_su *su)
{
	t->run = run, t->su = su;
}

uint64_t app_ck_net_recv_unmatched(const struct app_ck_net *t)
{
	return t ? t->recv_unknown : 0;
}

uint64_t app_ck_net_id_clashes(const struct app_ck_net *t)
{
	return t ? t->id_clashes : 0;
}

/* ---- The map: (sending host, 16-bit message id) -> slot and the APP_CK_KEY_* kinds; linear probing,
 * backward-shift delete. */

static uint32_t mhash(uint64_t key, uint32_t cap)
{
	return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 40) & (cap - 1);
}

static int map_grow(struct app_ck_net *t)
{
	uint32_t cap = t->mcap ? t->mcap * 2 : 1024;
	uint64_t *keys = calloc(cap, sizeof(*keys));
	uint32_t *vals = calloc(cap, sizeof(*vals));

	if (!keys || !vals) {
		free(keys), free(vals);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < t->mcap; i++)
		if (t->mkeys[i]) {
			uint32_t j = mhash(t->mkeys[i], cap);

			while (keys[j])
				j = (j + 1) & (cap - 1);
			keys[j] = t->mkeys[i], vals[j] = t->mvals[i];
		}
	free(t->mkeys), free(t->mvals);
	t->mkeys = keys, t->mvals = vals, t->mcap = cap;
	return 0;
}

long app_ck_map_find(const struct app_ck_net *t, uint64_t key)
{
	for (uint32_t j = t->mcap ? mhash(key, t->mcap) : 0; t->mcap && t->mkeys[j]; j = (j + 1) & (t->mcap - 1))
		if (t->mkeys[j] == key)
			return j;
	return -1;
}

int app_ck_map_put(struct app_ck_net *t, uint64_t key, uint32_t val)
{
	uint32_t j;

	if (app_ck_map_find(t, key) >= 0)
		return -EEXIST;
	if (2 * (t->mn + 1) > t->mcap && map_grow(t))
		return -ENOMEM;
	for (j = mhash(key, t->mcap); t->mkeys[j]; j = (j + 1) & (t->mcap - 1))
		;
	t->mkeys[j] = key, t->mvals[j] = val, t->mn++;
	return 0;
}

void app_ck_map_del(struct app_ck_net *t, uint32_t j)
{
	uint32_t i = j;

	t->mkeys[j] = 0, t->mn--;
	for (;;) { /* shift back every entry the hole would cut off from its home slot */
		i = (i + 1) & (t->mcap - 1);
		if (!t->mkeys[i])
			return;
		uint32_t h = mhash(t->mkeys[i], t->mcap);

		if ((j < i) ? (h <= j || h > i) : (h <= j && h > i)) {
			t->mkeys[j] = t->mkeys[i], t->mvals[j] = t->mvals[i];
			t->mkeys[i] = 0;
			j = i;
		}
	}
}

long app_ck_host_by_ip(const struct app_ck_net *t, uint32_t ip)
{
	long j = app_ck_map_find(t, APP_CK_KEY_IP | ip);

	return j < 0 ? -1 : (long)t->mvals[j];
}

long app_ck_slot_new(struct app_ck_net *t)
{
	if (t->n_free)
		return t->free_slots[--t->n_free];
	if (t->n_slots == t->cap_slots) {
		uint32_t cap = t->cap_slots ? t->cap_slots * 2 : 256;
		struct app_ck_slot *s = realloc(t->slots, cap * sizeof(*s));
		uint32_t *f = realloc(t->free_slots, cap * sizeof(*f));

		if (s)
			t->slots = s;
		if (f)
			t->free_slots = f;
		if (!s || !f)
			return -ENOMEM;
		t->cap_slots = cap;
	}
	return t->n_slots++;
}

void app_ck_slot_free(struct app_ck_net *t, uint32_t s)
{
	t->slots[s].used = 0;
	t->free_slots[t->n_free++] = s;
}

/* ---- APP_CK_NET_MSG_ID: a connection per transfer */

/* app_ck_xport.post: one RDMA WRITE of @p bytes from rank @p src to rank @p dst, on a connection of its own. */
static int msg_post(void *ctx, uint32_t src, uint32_t dst, uint64_t bytes, uint64_t xfer, emu_ps_t now)
{
	struct app_ck_net *t = ctx;
	uint32_t hs = t->p.rank_host[src], hd = t->p.rank_host[dst];
	const struct port_nic *h = &t->hosts[hs];
	long s;
	uint32_t conn;
	int rc;

	if (app_ck_su_same(t->su, src, dst)) /* a scale-up group's transfer: over its fabric, not the NIC */
		return app_ck_su_post(t->su, src, dst, bytes, xfer, now);
	s = app_ck_slot_new(t);
	if (s < 0)
		return (int)s;
	rc = h->ops->post_msg(h->dev, t->p.host_ip[hd], bytes, APP_CK_COOKIE | (uint64_t)s, now, &conn);
	if (rc) {
		app_ck_slot_free(t, (uint32_t)s);
		return rc;
	}
	/* the NIC numbers its messages 1, 2, ... in posting order; the receiver sees the low 16 bits */
	t->slots[s] = (struct app_ck_slot){.xfer = xfer, .src = hs, .dst = hd, .conn = conn,
					   .msg_id = (uint16_t)++t->posts[hs], .used = 1};
	if (app_ck_map_put(t, ((uint64_t)hs << 16 | t->slots[s].msg_id) + 1, (uint32_t)s))
		t->id_clashes++; /* 65,536 messages of one sender outstanding: this one's receive cannot be matched */
	return 0;
}

struct app_ck_xport app_ck_net_xport(struct app_ck_net *t)
{
	return (struct app_ck_xport){t->p.kind == APP_CK_NET_CONN_MSN ? app_ck_qp_post : msg_post, t};
}

/* The NIC acknowledged transfer @p s: the receiver's end of its connection closes (a model that keeps its
 * receiving ends has no close_rcv), the replay hears of it. */
static void msg_done(struct app_ck_net *t, uint32_t s, emu_ps_t now)
{
	struct app_ck_slot *sl = &t->slots[s];
	const struct port_nic *rcv = &t->hosts[sl->dst];
	long j = app_ck_map_find(t, ((uint64_t)sl->src << 16 | sl->msg_id) + 1);

	if (j >= 0 && t->mvals[j] == s)
		app_ck_map_del(t, (uint32_t)j);
	if (rcv->ops->close_rcv != NULL)
		rcv->ops->close_rcv(rcv->dev, t->p.host_ip[sl->src], sl->conn, now);
	uint64_t xfer = sl->xfer; /* the slot is free from here: the replay may post into it at once */

	app_ck_slot_free(t, s);
	/* The send node finished when the NIC reported its last byte sent (app_ck_net_sent); should that report
	 * never have come (its last packet lost before its first serialization ended), the acknowledgment ends it. */
	app_ck_acked(t->run, xfer, now);
	app_ck_sent(t->run, xfer, now);
}

void app_ck_net_done(struct app_ck_net *t, uint64_t cookie, emu_ps_t now)
{
	uint64_t s = cookie & ~APP_CK_COOKIE;

	if (!t || !(cookie & APP_CK_COOKIE) || s >= t->n_slots || !t->slots[s].used)
		return;
	if (t->p.kind == APP_CK_NET_CONN_MSN)
		app_ck_qp_done(t, (uint32_t)s, now);
	else
		msg_done(t, (uint32_t)s, now);
}

void app_ck_net_sent(struct app_ck_net *t, uint64_t cookie, emu_ps_t now)
{
	uint64_t s = cookie & ~APP_CK_COOKIE;

	if (!t || !(cookie & APP_CK_COOKIE) || s >= t->n_slots || !t->slots[s].used)
		return;
	app_ck_sent(t->run, t->slots[s].xfer, now);
}

void app_ck_net_recv(struct app_ck_net *t, uint32_t host, uint32_t src_ip, uint64_t msg_id, uint64_t bytes,
		     emu_ps_t now)
{
	long src, j;

	(void)bytes;
	if (!t || t->p.kind != APP_CK_NET_MSG_ID || host >= t->p.n_hosts)
		return;
	src = app_ck_host_by_ip(t, src_ip);
	j = src < 0 ? -1 : app_ck_map_find(t, ((uint64_t)src << 16 | (uint16_t)msg_id) + 1);
	if (j < 0 || t->slots[t->mvals[j]].dst != host) {
		t->recv_unknown++;
		return;
	}
	t->slots[t->mvals[j]].recvd = 1;
	app_ck_delivered(t->run, t->slots[t->mvals[j]].xfer, now);
}
