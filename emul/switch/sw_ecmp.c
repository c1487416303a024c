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
#define SW_SPREAD_BITS 7  /* crc32WithSalt spreads 2^7 consecutive source ports evenly (EntropyMaskBits' default) */

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

/*
 * crc32WithSalt's salted part (docs/switch.md). A linear map over GF(2) that the salt chooses, an invertible
 * xorshift triple, then a 16-bit fold: different switches read different combinations of the CRC's bits, which
 * de-correlates adjacent tiers. Then the non-linear finalizer: times an odd multiplier plus an offset, both from
 * the salt, mod 2^16. Its carries only run upwards, so the low k bits of the result are a bijection of the low k
 * bits of the fold: whatever spreads evenly over 2^k members before it still does after it.
 */
static uint16_t salt_lin(uint32_t salt, uint32_t c)
{
	c ^= c >> (1 + (salt & 15));
	c ^= c << (1 + ((salt >> 4) & 15));
	c ^= c >> (1 + ((salt >> 8) & 15));
	return fold16(c);
}

static uint16_t salt_mix(uint32_t salt, uint32_t c)
{
	return (uint16_t)(salt_lin(salt, c) * (uint16_t)((salt >> 12) | 1) + (uint16_t)(salt >> 20));
}

/* Rank over GF(2) of the @p n low-@p n-bit vectors @p v (n <= 16); the vectors are reduced in place. */
static uint32_t rank_low(uint16_t *v, uint32_t n)
{
	uint32_t r = 0;

	for (uint32_t bit = 0; bit < n && r < n; bit++) {
		uint32_t piv = r;
		while (piv < n && !((v[piv] >> bit) & 1u))
			piv++;
		if (piv == n)
			continue;
		uint16_t t = v[piv];
		v[piv] = v[r];
		v[r] = t;
		for (uint32_t i = 0; i < n; i++)
			if (i != r && ((v[i] >> bit) & 1u))
				v[i] ^= v[r];
		r++;
	}
	return r;
}

/*
 * Does @p salt spread consecutive entropy values evenly? For every m <= SW_SPREAD_BITS, the low m bits of the
 * hash must be a full-rank (so exactly balanced) function of the low m bits of the UDP source port: then 2^m
 * consecutive aligned source ports (a Default Packet Spraying cycle: 256..383 at EntropyMaskBits 7) land evenly
 * on any set of 2^j <= 2^m members. The CRC's linear part maps source-port bit i to the CRC of a key holding only
 * that bit (initial value 0, no inversion); the affine constants do not change ranks.
 */
static bool salt_spreads(uint32_t salt)
{
	uint16_t g[SW_SPREAD_BITS], v[SW_SPREAD_BITS];

	for (uint32_t i = 0; i < SW_SPREAD_BITS; i++) {
		uint8_t k[SW_FLOW_KEY_LEN] = { 0 };
		uint16_t sp = (uint16_t)(1u << i);

		k[1] = (uint8_t)(sp >> 8);
		k[2] = (uint8_t)sp;
		g[i] = salt_lin(salt, crc32_run(0, k, sizeof(k)));
	}
	for (uint32_t m = 1; m <= SW_SPREAD_BITS; m++) {
		for (uint32_t i = 0; i < m; i++)
			v[i] = (uint16_t)(g[i] & ((1u << m) - 1));
		if (rank_low(v, m) < m)
			return false;
	}
	return true;
}

/* Tag of the flowlet streams ("FL" in the top 16 bits), the run number in bits 32..47, the node id below. */
#define SW_FLOWLET_STREAM 0x464c000000000000ULL

uint64_t sw_flowlet_stream(uint64_t run, uint32_t node_id)
{
	return SW_FLOWLET_STREAM ^ ((run & 0xffffu) << 32) ^ node_id;
}

uint32_t sw_ecmp_salt(uint32_t node_id)
{
	uint32_t salt = 0;

	/* The first of a fixed sequence of candidates from the node id that spreads evenly: about 1 in 60 does, so
	 * this ends within a few hundred tries; the bound only keeps it finite. */
	for (uint32_t k = 0; k < (1u << 16); k++) {
		salt = sw_mix32(node_id + 0x9e3779b9u + k * 0x632be5abu);
		if (salt_spreads(salt))
			break;
	}
	return salt;
}

uint16_t sw_flow_hash(uint8_t method, uint32_t salt, const struct wire_pkt *p, uint32_t n)
{
	uint8_t k[SW_FLOW_KEY_LEN];
	uint32_t v, d;

	if (p->kind == WIRE_KIND_NONE || p->kind == WIRE_KIND_PFC)
		return 0; /* not UDP: one shared flow identity */
	switch (method) {
	case SW_HASH_CRC32_SALT:
		/* seeded with the salt, then the salt's linear mix and the non-linear finalizer */
		flow_key(p, k);
		return salt_mix(salt, ~crc32_run(salt, k, sizeof(k)));
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
		pick = nmin > 1 ? (uint32_t)emu_rng_below(&sw->fl_rng, nmin) : 0; /* (seed, run, node id) */
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
	uint32_t si = sw_route_set(sw, pkt->dst_ip);

	if (si == SW_NIL)
		return false;
	struct sw_set *set = &sw->sets[si];

	if (!set->seen)
		set_first_seen(sw, set, now);
	ch->set = si;
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
