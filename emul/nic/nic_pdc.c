/* PDCs and PDC groups: ids, lookup, creation and closing, and the group ready queue of the transmit scheduler. */
#include "nic_pvt.h"

#include <stdlib.h>
#include <string.h>

static inline uint32_t hash_ip_id(const struct nic *nic, uint32_t ip, uint16_t id)
{
	uint32_t h = ip * 0x9e3779b1u ^ (uint32_t)id * 0x85ebca6bu;

	return (h ^ (h >> 16)) & nic->hash_mask;
}

/*
 * The PDC and group tables start at NIC_HASH_BUCKETS_MIN buckets and double (up to NIC_HASH_BUCKETS_MAX) once the
 * PDCs open pass twice their buckets, so a lookup walks about two entries however many PDCs are open, and a NIC
 * pays for buckets only as its PDCs open (sizing them by max_pdcs up front cost fat-tree-1024 170 MiB). A doubling
 * allocates, at most log2(MAX / MIN) times in a NIC's life, when a PDC opens; if it fails the tables stay as they
 * are (lookups stay right, only longer). Lookups are by unique key, so the order in a bucket changes no result.
 */
static void hash_grow(struct nic *nic)
{
	uint32_t n = nic->hash_mask + 1, m = 2 * n;

	if (n >= NIC_HASH_BUCKETS_MAX || emu_pool_in_use(nic->pdc_pool) <= 2 * n)
		return;
	struct nic_pdc **snd = calloc(m, sizeof(*snd)), **rcv = calloc(m, sizeof(*rcv));
	struct nic_group **grp = calloc(m, sizeof(*grp));

	if (snd == NULL || rcv == NULL || grp == NULL) {
		free(snd);
		free(rcv);
		free(grp);
		return;
	}
	nic->hash_mask = m - 1;
	for (uint32_t i = 0; i < n; i++) {
		for (struct nic_pdc *p = nic->snd_hash[i], *next; p != NULL; p = next) {
			uint32_t b = hash_ip_id(nic, 0, p->id);

			next = p->hnext;
			p->hnext = snd[b];
			snd[b] = p;
		}
		for (struct nic_pdc *p = nic->rcv_hash[i], *next; p != NULL; p = next) {
			uint32_t b = hash_ip_id(nic, p->peer_ip, p->remote_id);

			next = p->hnext;
			p->hnext = rcv[b];
			rcv[b] = p;
		}
		for (struct nic_group *g = nic->grp_hash[i], *next; g != NULL; g = next) {
			uint32_t b = hash_ip_id(nic, g->peer_ip, 0);

			next = g->hnext;
			g->hnext = grp[b];
			grp[b] = g;
		}
	}
	free(nic->snd_hash);
	free(nic->rcv_hash);
	free(nic->grp_hash);
	nic->snd_hash = snd;
	nic->rcv_hash = rcv;
	nic->grp_hash = grp;
}

struct nic_pdc *nic_pdc_snd_find(const struct nic *nic, uint16_t id)
{
	for (struct nic_pdc *p = nic->snd_hash[hash_ip_id(nic, 0, id)]; p != NULL; p = p->hnext)
		if (p->id == id)
			return p;
	return NULL;
}

struct nic_pdc *nic_pdc_rcv_find(struct nic *nic, uint32_t peer_ip, uint16_t peer_id)
{
	for (struct nic_pdc *p = nic->rcv_hash[hash_ip_id(nic, peer_ip, peer_id)]; p != NULL; p = p->hnext)
		if (p->peer_ip == peer_ip && p->remote_id == peer_id)
			return p;
	return NULL;
}

static inline uint32_t closed_slot(uint32_t peer_ip, uint16_t peer_id)
{
	uint32_t h = peer_ip * 0x9e3779b1u ^ (uint32_t)peer_id * 0x85ebca6bu;

	return (h ^ (h >> 16)) & (NIC_CLOSED_SLOTS - 1);
}

const struct nic_closed *nic_pdc_closed_find(const struct nic *nic, uint32_t peer_ip, uint16_t peer_id)
{
	const struct nic_closed *c = &nic->closed[closed_slot(peer_ip, peer_id)];

	return c->used && c->peer_ip == peer_ip && c->peer_id == peer_id ? c : NULL;
}

/*
 * The local UDP port of PDC @p id. Multipath, None: the group's one entropy value is "the local UDP port of the PDC
 * that created the group, which the application sets"; uetemu's workloads set none, so each PDC has one from the
 * dynamic port range, 49,152 + (id mod 16,384), as a host stack gives a socket an ephemeral port (docs/multipath.md).
 */
static uint16_t pdc_local_port(uint16_t id)
{
	return (uint16_t)(NIC_LPORT_BASE + (id & (NIC_LPORT_COUNT - 1)));
}

/* The group of PDCs to @p peer_ip, created for the PDC @p id when there is none (or without PDC groups). */
static struct nic_group *group_get(struct nic *nic, uint32_t peer_ip, uint16_t id, emu_ps_t now)
{
	uint32_t b = hash_ip_id(nic, peer_ip, 0);

	if (nic->p->pdc_groups_enabled)
		for (struct nic_group *g = nic->grp_hash[b]; g != NULL; g = g->hnext)
			if (g->peer_ip == peer_ip)
				return g;
	struct nic_group *g = emu_pool_get(nic->grp_pool);
	if (g == NULL)
		return NULL;
	memset(g, 0, sizeof(*g));
	g->peer_ip = peer_ip;
	nic_cc_init(&g->cc, &nic->cc_k, now); /* a new group starts at its maximum window and InitialBaseRTT */
	nic_lb_init_ext(&g->lb, nic->p, nic->link_bps, nic_lb_storage_bytes(nic->p) ? (uint16_t *)(g + 1) : NULL);
	nic_lb_set_fixed(&g->lb, pdc_local_port(id)); /* None: the creating PDC's local port */
	const uint8_t *mac = nic_neigh_mac(nic, peer_ip);
	if (mac != NULL) /* a peer seen only on a real port, with no neighbour entry, is answered to 00:..:00 */
		memcpy(g->peer_mac, mac, 6);
	g->hnext = nic->grp_hash[b];
	nic->grp_hash[b] = g;
	return g;
}

static void group_free_if_unused(struct nic *nic, struct nic_group *g)
{
	if (g->n_pdcs > 0 || g->in_ready)
		return;
	struct nic_group **pp = &nic->grp_hash[hash_ip_id(nic, g->peer_ip, 0)];

	while (*pp != g)
		pp = &(*pp)->hnext;
	*pp = g->hnext;
	emu_pool_put(nic->grp_pool, g);
}

static void group_put(struct nic *nic, struct nic_group *g)
{
	g->n_pdcs--;
	group_free_if_unused(nic, g);
}

/* Take the group at the head of the ready queue off it (it has nothing it can send now). */
void nic_group_unready(struct nic *nic, struct nic_group *g)
{
	nic->ready_head = g->ready_next;
	if (nic->ready_head == NULL)
		nic->ready_tail = NULL;
	g->ready_next = NULL;
	g->in_ready = false;
	group_free_if_unused(nic, g);
}

/* Next free id in [lo, hi], cycling, skipping ids in use; 0 when all are taken. */
static uint16_t alloc_snd_id(struct nic *nic)
{
	if (nic->n_snd > NIC_SND_ID_MAX - NIC_SND_ID_MIN)
		return 0; /* every id taken: no scan of 32,767 ids per refused post */
	for (uint32_t tries = 0; tries <= NIC_SND_ID_MAX - NIC_SND_ID_MIN; tries++) {
		uint16_t id = nic->next_snd_id;
		nic->next_snd_id = id == NIC_SND_ID_MAX ? NIC_SND_ID_MIN : id + 1;
		if (nic_pdc_snd_find(nic, id) == NULL)
			return id;
	}
	return 0;
}

static struct nic_pdc *pdc_new(struct nic *nic, uint32_t peer_ip, uint16_t id, emu_ps_t now)
{
	struct nic_pdc *pdc = emu_pool_get(nic->pdc_pool);

	if (pdc == NULL)
		return NULL;
	memset(pdc, 0, sizeof(*pdc));
	pdc->group = group_get(nic, peer_ip, id, now);
	if (pdc->group == NULL) {
		emu_pool_put(nic->pdc_pool, pdc);
		return NULL;
	}
	pdc->group->n_pdcs++;
	pdc->peer_ip = peer_ip;
	pdc->id = id;
	return pdc;
}

struct nic_pdc *nic_pdc_open_snd(struct nic *nic, uint32_t peer_ip, emu_ps_t now)
{
	uint16_t id = alloc_snd_id(nic);
	struct nic_pdc *pdc = id != 0 ? pdc_new(nic, peer_ip, id, now) : NULL;

	if (pdc == NULL) {
		nic->c[NIC_C_DROP_NO_PDC]++;
		return NULL;
	}
	pdc->sender = true;
	/* UET starts each PDC at a random PSN; drawn from the NIC's own stream, so runs stay reproducible. */
	pdc->start_psn = (uint32_t)emu_rng_next(&nic->rng);
	if (nic->p->start_psn == NIC_START_PSN_REFPROV) /* in [2^16, 2^31), as the reference provider draws it */
		pdc->start_psn = NIC_START_PSN_LO + pdc->start_psn % (NIC_START_PSN_HI - NIC_START_PSN_LO);
	pdc->next_psn = pdc->start_psn;
	uint32_t b = hash_ip_id(nic, 0, id);
	pdc->hnext = nic->snd_hash[b];
	nic->snd_hash[b] = pdc;
	nic->n_snd++;
	hash_grow(nic);
	nic_event(nic, pdc, NIC_EV_PDC_CREATED, now);
	return pdc;
}

/* Intrusive lists of receive PDCs (half-open, least recently active): the links of @p pdc in list @p half. */
static struct nic_pdc **link_prev(struct nic_pdc *pdc, bool half)
{
	return half ? &pdc->ho_prev : &pdc->lru_prev;
}

static struct nic_pdc **link_next(struct nic_pdc *pdc, bool half)
{
	return half ? &pdc->ho_next : &pdc->lru_next;
}

static void list_push(struct nic *nic, struct nic_pdc *pdc, bool half)
{
	struct nic_pdc **head = half ? &nic->ho_head : &nic->lru_head, **tail = half ? &nic->ho_tail : &nic->lru_tail;

	*link_prev(pdc, half) = *tail;
	*link_next(pdc, half) = NULL;
	if (*tail != NULL)
		*link_next(*tail, half) = pdc;
	else
		*head = pdc;
	*tail = pdc;
}

static void list_unlink(struct nic *nic, struct nic_pdc *pdc, bool half)
{
	struct nic_pdc **head = half ? &nic->ho_head : &nic->lru_head, **tail = half ? &nic->ho_tail : &nic->lru_tail;
	struct nic_pdc *prev = *link_prev(pdc, half), *next = *link_next(pdc, half);

	if (prev != NULL)
		*link_next(prev, half) = next;
	else
		*head = next;
	if (next != NULL)
		*link_prev(next, half) = prev;
	else
		*tail = prev;
	*link_prev(pdc, half) = *link_next(pdc, half) = NULL;
}

void nic_pdc_rcv_touch(struct nic *nic, struct nic_pdc *pdc, emu_ps_t now)
{
	pdc->rcv_last = now;
	if (pdc->rcv_pkts < 2)
		pdc->rcv_pkts++;
	if (pdc->half_open && pdc->rcv_pkts >= 2) {
		pdc->half_open = false;
		list_unlink(nic, pdc, true);
	}
	if (nic->lru_tail != pdc) {
		list_unlink(nic, pdc, false);
		list_push(nic, pdc, false);
	}
}

/* Receive PDCs @p peer_ip holds: over its groups (one with PDC groups, one per PDC without). */
static uint32_t rcv_of_peer(const struct nic *nic, uint32_t peer_ip)
{
	uint32_t n = 0;

	for (const struct nic_group *g = nic->grp_hash[hash_ip_id(nic, peer_ip, 0)]; g != NULL; g = g->hnext)
		if (g->peer_ip == peer_ip)
			n += g->n_rcv;
	return n;
}

/*
 * The pool is full: make room for a new SYN. The oldest half-open receive PDC (one packet seen) goes first, then
 * the least recently active one if idle for rcv_idle. It is not remembered as closed: a real sender's next SYN
 * opens it again. False when neither exists.
 */
static bool rcv_reclaim(struct nic *nic, emu_ps_t now)
{
	struct nic_pdc *victim = nic->ho_head;

	if (victim != NULL) {
		nic->c[NIC_C_RCV_PDC_EVICTED_HALF_OPEN]++;
	} else if (nic->lru_head != NULL && now - nic->lru_head->rcv_last >= nic->rcv_idle) {
		victim = nic->lru_head;
		nic->c[NIC_C_RCV_PDC_IDLE_RECLAIMED]++;
	} else {
		return false;
	}
	victim->reclaimed = true;
	nic_pdc_close(nic, victim, now);
	return true;
}

struct nic_pdc *nic_pdc_open_rcv(struct nic *nic, uint32_t peer_ip, uint16_t peer_id, emu_ps_t now)
{
	if (rcv_of_peer(nic, peer_ip) >= nic->rcv_per_peer_max) {
		nic->c[NIC_C_DROP_RCV_PEER_CAP]++;
		return NULL;
	}
	struct nic_pdc *pdc = pdc_new(nic, peer_ip, nic->next_rcv_id, now);

	if (pdc == NULL && rcv_reclaim(nic, now))
		pdc = pdc_new(nic, peer_ip, nic->next_rcv_id, now);
	if (pdc == NULL) {
		nic->c[NIC_C_DROP_NO_PDC]++;
		return NULL;
	}
	nic->next_rcv_id = pdc->id == NIC_RCV_ID_MAX ? NIC_RCV_ID_MIN : pdc->id + 1;
	pdc->remote_id = peer_id;
	pdc->group->n_rcv++;
	pdc->half_open = true;
	pdc->rcv_last = now;
	list_push(nic, pdc, true);
	list_push(nic, pdc, false);
	uint32_t b = hash_ip_id(nic, peer_ip, peer_id);
	pdc->hnext = nic->rcv_hash[b];
	nic->rcv_hash[b] = pdc;
	hash_grow(nic);
	nic_event(nic, pdc, NIC_EV_PDC_CREATED, now);
	return pdc;
}

static void idle_unlink(struct nic_group *g, struct nic_pdc *pdc)
{
	if (!pdc->in_idle)
		return;
	if (pdc->idle_prev != NULL)
		pdc->idle_prev->idle_next = pdc->idle_next;
	else
		g->idle = pdc->idle_next;
	if (pdc->idle_next != NULL)
		pdc->idle_next->idle_prev = pdc->idle_prev;
	pdc->idle_next = pdc->idle_prev = NULL;
	pdc->in_idle = false;
}

void nic_pdc_idle_note(struct nic_pdc *pdc)
{
	struct nic_group *g = pdc->group;

	if (!pdc->in_rr || pdc->in_idle)
		return;
	pdc->in_idle = true;
	pdc->idle_prev = NULL;
	pdc->idle_next = g->idle;
	if (g->idle != NULL)
		g->idle->idle_prev = pdc;
	g->idle = pdc;
}

void nic_pdc_rr_unlink(struct nic_pdc *pdc)
{
	struct nic_group *g = pdc->group;
	struct nic_pdc *prev = pdc->rr_prev;

	if (prev == pdc) {
		g->rr = NULL;
	} else {
		prev->rr_next = pdc->rr_next;
		pdc->rr_next->rr_prev = prev;
		if (g->rr == pdc)
			g->rr = pdc->rr_next;
	}
	if (pdc->rr_lp == g->rr_lp_min && g->rr_lp_n > 0)
		g->rr_lp_n--;
	idle_unlink(g, pdc);
	pdc->in_rr = false;
	pdc->rr_prev = NULL;
	pdc->rr_next = NULL;
}

void nic_group_idle_sweep(struct nic_group *g)
{
	while (g->idle != NULL) {
		struct nic_pdc *pdc = g->idle;

		idle_unlink(g, pdc);
		if (!nic_pdc_has_work(pdc))
			nic_pdc_rr_unlink(pdc);
	}
}

void nic_pdc_close(struct nic *nic, struct nic_pdc *pdc, emu_ps_t now)
{
	struct nic_pdc **pp = pdc->sender ? &nic->snd_hash[hash_ip_id(nic, 0, pdc->id)]
					  : &nic->rcv_hash[hash_ip_id(nic, pdc->peer_ip, pdc->remote_id)];

	nic_event(nic, pdc, NIC_EV_PDC_TERMINATED, now);
	if (!pdc->sender) { /* its late duplicates must not open it again (nic_rx.c); a newer one takes the slot */
		if (!pdc->reclaimed)
			nic->closed[closed_slot(pdc->peer_ip, pdc->remote_id)] = (struct nic_closed){
				.peer_ip = pdc->peer_ip, .start_psn = pdc->rcv_start, .peer_id = pdc->remote_id,
				.used = true };
		nic_rcv_free(nic, pdc);
		if (pdc->half_open)
			list_unlink(nic, pdc, true);
		list_unlink(nic, pdc, false);
		pdc->group->n_rcv--;
	}
	while (*pp != pdc)
		pp = &(*pp)->hnext;
	*pp = pdc->hnext;
	if (pdc->sender)
		nic->n_snd--;
	/* A finished PDC leaves its group's ring lazily (group_pick); one closed before that must leave now. */
	if (pdc->in_rr)
		nic_pdc_rr_unlink(pdc);
	group_put(nic, pdc->group);
	emu_pool_put(nic->pdc_pool, pdc);
}

void nic_group_ready(struct nic *nic, struct nic_group *g, bool at_head)
{
	if (g->in_ready)
		return;
	g->in_ready = true;
	if (nic->ready_head == NULL) {
		g->ready_next = NULL;
		nic->ready_head = nic->ready_tail = g;
	} else if (at_head) {
		g->ready_next = nic->ready_head;
		nic->ready_head = g;
	} else {
		g->ready_next = NULL;
		nic->ready_tail->ready_next = g;
		nic->ready_tail = g;
	}
}

/* The smallest payload of the message on @p pdc: its last segment's (every other one is a full MSS). */
static uint32_t pdc_lp(const struct nic *nic, const struct nic_pdc *pdc)
{
	uint32_t mss = nic->p->rdma_data_mss;

	if (pdc->n_pkts == 0)
		return 0;
	uint64_t left = pdc->bytes - (uint64_t)(pdc->n_pkts - 1) * mss;
	return (uint32_t)(left < mss ? left : mss);
}

static void lp_count(struct nic_group *g, uint32_t lp)
{
	if (lp < g->rr_lp_min) {
		g->rr_lp_min = lp;
		g->rr_lp_n = 1;
	} else if (lp == g->rr_lp_min) {
		g->rr_lp_n++;
	}
}

/* Put @p pdc in its group's ring of PDCs with data to send, behind the PDC whose turn it is (a PDC already on it
 * keeps its place; its smallest payload is counted again, a connection's next message may have another). */
void nic_pdc_rr_add(struct nic *nic, struct nic_pdc *pdc)
{
	struct nic_group *g = pdc->group;
	uint32_t lp = pdc_lp(nic, pdc);

	if (pdc->in_rr) {
		if (lp != pdc->rr_lp) {
			if (pdc->rr_lp == g->rr_lp_min && g->rr_lp_n > 0)
				g->rr_lp_n--;
			pdc->rr_lp = lp;
			lp_count(g, lp);
		}
		if (!nic_pdc_has_work(pdc))
			nic_pdc_idle_note(pdc);
		return;
	}
	pdc->in_rr = true;
	pdc->rr_lp = lp;
	if (g->rr == NULL) {
		pdc->rr_next = pdc->rr_prev = pdc;
		g->rr = pdc;
		g->rr_lp_min = lp;
		g->rr_lp_n = 1;
	} else {
		/* insert just before g->rr, i.e. at the tail of the turn order */
		struct nic_pdc *last = g->rr->rr_prev;
		last->rr_next = pdc;
		pdc->rr_prev = last;
		pdc->rr_next = g->rr;
		g->rr->rr_prev = pdc;
		lp_count(g, lp);
	}
	if (!nic_pdc_has_work(pdc))
		nic_pdc_idle_note(pdc);
}
