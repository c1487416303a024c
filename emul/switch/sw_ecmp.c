/* ECMP path selection (switch-packet-handling.md, ECMP path selection; Dynamic load balancing): the flow hash of
 * each EcmpHashMethod, member = hash mod set size, and flowlets that move a flow at a gap to the least-occupied
 * member, preferring members PFC has not paused. */
#include "sw_pvt.h"

/* CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), four bits at a time. */
static const uint32_t crc_nibble[16] = {
	0x00000000, 0x1DB71064, 0x3B6E20C8, 0x26D930AC, 0x76DC4190, 0x6B6B51F4, 0x4DB26158, 0x5005713C,
	0xEDB88320, 0xF00F9344, 0xD6D6A3E8, 0xCB61B38C, 0x9B64C2B0, 0x86D3D2D4, 0xA00AE278, 0xBDBDF21C,
};

#define SW_FLOW_KEY_LEN 13 /* protocol 1, source port 2, destination port 2, source address 4, destination 4 */
#define SW_DPR_MASK 0x1ffu /* dpr: the low 9 bits of (destination address - 1) */

static uint32_t crc32_run(uint32_t crc, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		crc ^= b[i];
		crc = (crc >> 4) ^ crc_nibble[crc & 15];
		crc = (crc >> 4) ^ crc_nibble[crc & 15];
	}
	return crc;
}

static void put32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

/* The 5-tuple in the order the page lists it, big-endian as on the wire. */
static void flow_key(const struct wire_pkt *p, uint8_t k[SW_FLOW_KEY_LEN])
{
	k[0] = WIRE_IPPROTO_UDP;
	k[1] = (uint8_t)(p->sport >> 8);
	k[2] = (uint8_t)p->sport;
	k[3] = (uint8_t)(p->dport >> 8);
	k[4] = (uint8_t)p->dport;
	put32(k + 5, p->src_ip);
	put32(k + 9, p->dst_ip);
}

static uint16_t fold16(uint32_t v)
{
	return (uint16_t)((v >> 16) ^ (v & 0xffff));
}

/* crc32: the standard CRC-32 of the key (initial value all ones, final inversion), folded to 16 bits. */
static uint16_t hash_crc32(const struct wire_pkt *p)
{
	uint8_t k[SW_FLOW_KEY_LEN];

	flow_key(p, k);
	return fold16(~crc32_run(0xffffffffu, k, sizeof(k)));
}

uint32_t sw_ecmp_salt(uint32_t node_id)
{
	return sw_mix32(node_id + 0x9e3779b9u);
}

uint16_t sw_flow_hash(uint8_t method, uint32_t salt, const struct wire_pkt *p, uint32_t n)
{
	uint8_t k[SW_FLOW_KEY_LEN];
	uint32_t v, d;

	if (p->kind == WIRE_KIND_NONE || p->kind == WIRE_KIND_PFC)
		return 0; /* not UDP: one shared flow identity */
	switch (method) {
	case SW_HASH_CRC32_SALT:
		/* seeded with the salt, then the non-linear finalizer mixed with the salt */
		flow_key(p, k);
		return fold16(sw_mix32(~crc32_run(salt, k, sizeof(k)) ^ salt));
	case SW_HASH_CRC32:
		return hash_crc32(p);
	case SW_HASH_HASH_SALT:
	case SW_HASH_HASH:
		v = p->src_ip ^ p->dst_ip ^ ((uint32_t)p->sport << 16 | p->dport);
		if (method == SW_HASH_HASH_SALT)
			v += salt; /* the carries make the fold only partly linear in the salt */
		return fold16(v);
	default: /* SW_HASH_DPR, SW_HASH_DPR_FALLBACK */
		d = (p->dst_ip - 1) & SW_DPR_MASK;
		if (method == SW_HASH_DPR_FALLBACK && d >= n)
			return hash_crc32(p);
		return (uint16_t)d;
	}
}

static bool member_paused(const struct sw *sw, const struct sw_set *set, uint32_t m, uint32_t tc)
{
	return sw->ports[set->ports[m]].paused_until[tc] != 0;
}

/* Member @p m is a candidate (not filtered out as paused) with the least occupancy @p min. */
static bool at_min(const struct sw *sw, const struct sw_set *set, uint32_t m, uint32_t tc, bool filter, uint64_t min)
{
	return !(filter && member_paused(sw, set, m, tc)) && sw->ports[set->ports[m]].eg_total == min;
}

/*
 * A flowlet decision for a flow whose slot is empty or past its gap. Candidates: with PFCAware, the members PFC
 * has not paused for @p tc, unless all are; else every member. Stay on the current member if it is a candidate
 * at the least egress occupancy, else take one of the candidates at the least occupancy, a draw breaking ties.
 */
static void flowlet_select(struct sw *sw, struct sw_set *set, struct sw_flow_slot *slot, uint32_t tc,
			   struct sw_choice *ch)
{
	uint32_t n = set->n, npaused = 0, nmin = 0, pick;
	uint64_t min = UINT64_MAX;
	bool filter;

	for (uint32_t m = 0; m < n; m++)
		npaused += member_paused(sw, set, m, tc);
	filter = sw->p->flowlet_pfc_aware && npaused > 0 && npaused < n;
	for (uint32_t m = 0; m < n; m++) {
		uint64_t occ = sw->ports[set->ports[m]].eg_total;

		if (filter && member_paused(sw, set, m, tc)) {
			set->st[m].paused_skips++;
			continue;
		}
		if (occ < min) {
			min = occ;
			nmin = 0;
		}
		nmin += occ == min;
	}
	ch->slot = slot;
	ch->from = slot->member;
	if (slot->used && at_min(sw, set, slot->member, tc, filter, min)) {
		ch->member = slot->member;
		ch->kind = SW_CH_KEEP;
	} else {
		pick = nmin > 1 ? (uint32_t)emu_rng_below(&sw->rng, nmin) : 0;
		for (uint32_t m = 0; m < n; m++) {
			if (at_min(sw, set, m, tc, filter, min) && pick-- == 0) {
				ch->member = m;
				break;
			}
		}
		ch->kind = slot->used ? SW_CH_MOVE : SW_CH_ASSIGN;
	}
	if (member_paused(sw, set, ch->member, tc))
		set->st[ch->member].paused_selections++;
}

/* The first packet of a set: note when it formed and, under flowlet, give it a flow table if one is left. */
static void set_first_seen(struct sw *sw, struct sw_set *set, emu_ps_t now)
{
	set->seen = true;
	set->formed = now;
	if (sw->flow_mem != NULL && set->n > 1 && sw->n_flow_sets < SW_FLOW_SETS)
		set->slots = sw->flow_mem + (size_t)sw->n_flow_sets++ * SW_FLOW_SLOTS;
}

bool sw_ecmp_choose(struct sw *sw, const struct wire_pkt *pkt, uint32_t tc, emu_ps_t now, struct sw_choice *ch)
{
	const struct sw_route *r = sw_route_find(sw, pkt->dst_ip);

	if (r == NULL)
		return false;
	struct sw_set *set = &sw->sets[r->set];

	if (!set->seen)
		set_first_seen(sw, set, now);
	ch->set = r->set;
	ch->slot = NULL;
	ch->kind = SW_CH_KEEP;
	ch->member = 0;
	if (set->n > 1) {
		uint16_t h = sw_flow_hash(sw->p->ecmp_hash, sw->salt, pkt, set->n);
		struct sw_flow_slot *slot = set->slots != NULL ? &set->slots[h % SW_FLOW_SLOTS] : NULL;

		if (slot == NULL) {
			ch->member = h % set->n;
		} else if (slot->used && now - slot->last < sw->p->flowlet_gap) {
			ch->member = slot->member; /* inside the gap: keep, and refresh the slot's time */
			ch->slot = slot;
		} else {
			flowlet_select(sw, set, slot, tc, ch);
		}
	}
	ch->port = set->ports[ch->member];
	return true;
}

void sw_ecmp_commit(struct sw *sw, const struct sw_choice *ch, uint32_t bytes, emu_ps_t now)
{
	struct sw_set *set = &sw->sets[ch->set];
	struct sw_ecmp_member_stats *st = &set->st[ch->member];

	st->bytes += bytes;
	st->packets++;
	if (ch->slot == NULL)
		return;
	if (ch->kind == SW_CH_ASSIGN) {
		st->assignments++;
		sw->c[SW_C_FLOWLET_ASSIGNMENTS]++;
	} else if (ch->kind == SW_CH_MOVE) {
		st->movements_in++;
		set->st[ch->from].movements_out++;
		sw->c[SW_C_FLOWLET_MOVES]++;
	}
	ch->slot->used = 1;
	ch->slot->member = (uint16_t)ch->member;
	ch->slot->last = now;
}
