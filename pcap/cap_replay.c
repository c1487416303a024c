/*
 * A replay source: a capture's frames read once with the bounded reader, filtered, rewritten, and given absolute
 * deadlines from the first frame (never summed gaps), so a long replay does not drift. docs/replay.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cap.h"

#define ETH_HDR 14u
#define ETH_VLAN 0x8100u
#define ETH_IPV4 0x0800u
#define IPV4_MIN 20u
#define IP_UDP 17u
#define IP_TCP 6u
#define UDP_CSUM_OFF 6u
#define TCP_CSUM_OFF 16u
#define WIRE_EXTRA 24u /* bytes a frame takes on the wire beyond its capture: FCS 4, preamble 8, gap 12 */
#define ONE_FRAME_GAP_PS EMU_PS_PER_US /* the loop period of a one-frame capture at its own timing */

struct cap_replay {
	uint8_t *bytes;          /* every frame, back to back, rewritten */
	size_t *off;             /* frame i at bytes + off[i] ... */
	uint32_t *len;           /* ... of len[i] bytes */
	emu_ps_t *dl;            /* its deadline from the start of a loop */
	uint32_t n;
	emu_ps_t period;         /* from one loop's first frame to the next's */
	struct cap_replay_cfg cfg;
	struct cap_replay_info info;
};

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* RFC 1624 eqn. 3: the checksum @p hc after a 16-bit word changed from @p m to @p m2. */
static uint16_t csum_adjust(uint16_t hc, uint16_t m, uint16_t m2)
{
	uint32_t s = (uint32_t)(uint16_t)~hc + (uint16_t)~m + m2;

	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static bool map_mac(const struct cap_replay_cfg *c, uint8_t *mac)
{
	for (uint32_t i = 0; i < c->n_mac; i++)
		if (memcmp(mac, c->mac_from[i], 6) == 0) {
			memcpy(mac, c->mac_to[i], 6);
			return true;
		}
	return false;
}

/* Address at @p p mapped by the ip rewrite; the L3 (@p ip_csum) and L4 (@p l4, may be NULL) checksums follow. */
static bool map_ip(const struct cap_replay_cfg *c, uint8_t *p, uint8_t *ip_csum, uint8_t *l4)
{
	uint32_t a = (uint32_t)be16(p) << 16 | be16(p + 2);

	for (uint32_t i = 0; i < c->n_ip; i++) {
		if (a != c->ip_from[i])
			continue;
		uint16_t hi = (uint16_t)(c->ip_to[i] >> 16), lo = (uint16_t)c->ip_to[i];

		put16(ip_csum, csum_adjust(csum_adjust(be16(ip_csum), be16(p), hi), be16(p + 2), lo));
		if (l4 != NULL && be16(l4) != 0) /* a zero UDP checksum means none (UET's): left at zero */
			put16(l4, csum_adjust(csum_adjust(be16(l4), be16(p), hi), be16(p + 2), lo));
		put16(p, hi);
		put16(p + 2, lo);
		return true;
	}
	return false;
}

/*
 * Apply the rewrite maps to the @p len bytes at @p f: the Ethernet addresses, then (IPv4, after at most one VLAN
 * tag) the IPv4 addresses with the header checksum and, for the first fragment of UDP or TCP, the pseudo-header's
 * share of their checksum, updated incrementally (RFC 1624) so a frame that was right stays right. Lengths are
 * checked before each header; a header cut short is left as it is.
 */
static void rewrite(struct cap_replay *rp, uint8_t *f, uint32_t len)
{
	const struct cap_replay_cfg *c = &rp->cfg;
	uint32_t l3 = ETH_HDR;
	bool hit = false;

	if (len < ETH_HDR)
		return;
	hit |= map_mac(c, f);
	hit |= map_mac(c, f + 6);
	uint16_t type = be16(f + 12);

	if (type == ETH_VLAN && len >= ETH_HDR + 4) {
		type = be16(f + 16);
		l3 += 4;
	}
	if (c->n_ip > 0 && type == ETH_IPV4 && len >= l3 + IPV4_MIN && (f[l3] >> 4) == 4) {
		uint32_t ihl = (f[l3] & 15u) * 4u, l4 = l3 + ihl;
		bool first = (be16(f + l3 + 6) & 0x1fff) == 0;
		uint8_t *csum = NULL;

		if (ihl >= IPV4_MIN && first && f[l3 + 9] == IP_UDP && len >= l4 + UDP_CSUM_OFF + 2)
			csum = f + l4 + UDP_CSUM_OFF;
		else if (ihl >= IPV4_MIN && first && f[l3 + 9] == IP_TCP && len >= l4 + TCP_CSUM_OFF + 2)
			csum = f + l4 + TCP_CSUM_OFF;
		if (ihl >= IPV4_MIN && len >= l3 + ihl) {
			hit |= map_ip(c, f + l3 + 12, f + l3 + 10, csum);
			hit |= map_ip(c, f + l3 + 16, f + l3 + 10, csum);
		}
	}
	rp->info.rewritten += hit;
}

/* Room for one more frame of @p caplen bytes: the arrays double, the byte buffer grows to fit. 0 or -ENOMEM. */
static int grow(struct cap_replay *rp, uint32_t *cap, size_t *bcap, size_t used, uint32_t caplen)
{
	if (rp->n == *cap) {
		uint32_t nc = *cap ? *cap * 2 : 1024;
		size_t *off = realloc(rp->off, nc * sizeof(*off));
		uint32_t *len = off ? realloc(rp->len, nc * sizeof(*len)) : NULL;
		emu_ps_t *dl = len ? realloc(rp->dl, nc * sizeof(*dl)) : NULL;

		rp->off = off ? off : rp->off;
		rp->len = len ? len : rp->len;
		rp->dl = dl ? dl : rp->dl;
		if (dl == NULL)
			return -ENOMEM;
		*cap = nc;
	}
	if (used + caplen > *bcap) {
		size_t nb = *bcap ? *bcap * 2 : 1 << 20;
		while (nb < used + caplen)
			nb *= 2;
		uint8_t *b = realloc(rp->bytes, nb);
		if (b == NULL)
			return -ENOMEM;
		rp->bytes = b;
		*bcap = nb;
	}
	return 0;
}

/*
 * Whether frame @p rec is played: whole (a snap-cut frame cannot be played as it was), within the size a frame
 * may have, and through the filter. Each refusal is counted.
 */
static bool take(struct cap_replay *rp, const struct cap_bpf *f, const struct cap_rec *rec)
{
	if (rec->caplen < rec->len) {
		rp->info.snap_cut++;
		return false;
	}
	if (rec->caplen > rp->cfg.max_len || rec->caplen < ETH_HDR) {
		rp->info.bad_len++;
		return false;
	}
	if (f != NULL && !cap_bpf_match(f, rec->data, rec->caplen, rec->len)) {
		rp->info.filtered_out++;
		return false;
	}
	return true;
}

/* Read every frame of the file into @p rp, stamped in ns relative to the first (never going back). 0 or -errno. */
static int load(struct cap_replay *rp, struct cap_reader *rd, const struct cap_bpf *f, char *err, size_t errlen)
{
	uint32_t cap = 0;
	size_t bcap = 0, used = 0;
	int64_t first = 0, last = 0;
	struct cap_rec rec;
	int rc;

	while ((rc = cap_read_next(rd, &rec, err, errlen)) == 1) {
		rp->info.read++;
		if (!take(rp, f, &rec))
			continue;
		int64_t base = rp->n == 0 ? rec.ts_ns : first, at = rp->n == 0 || rec.ts_ns >= last ? rec.ts_ns : last;
		uint64_t d_ns;
		emu_ps_t d_ps;

		/* (stamp - first) ns in ps, checked: a stamp 2^63 ns later must not wrap into an early deadline */
		if (__builtin_sub_overflow(at, base, &d_ns) || (int64_t)d_ns < 0 ||
		    emu_ps_mul_checked(d_ns, EMU_PS_PER_NS, &d_ps) < 0) {
			rp->info.time_range++;
			continue;
		}
		if (grow(rp, &cap, &bcap, used, rec.caplen) < 0) {
			snprintf(err, errlen, "%s: out of memory for %u frames", rp->cfg.path, rp->n + 1);
			return -ENOMEM;
		}
		if (rp->n == 0)
			first = last = rec.ts_ns;
		if (rec.ts_ns < last) /* out of order: played at the latest stamp so far, so deadlines never go back */
			rp->info.out_of_order++;
		else
			last = rec.ts_ns;
		memcpy(rp->bytes + used, rec.data, rec.caplen);
		rewrite(rp, rp->bytes + used, rec.caplen);
		rp->off[rp->n] = used;
		rp->len[rp->n] = rec.caplen;
		rp->dl[rp->n] = d_ps; /* at its own timing for now: paced in pace() */
		used += rec.caplen;
		rp->n++;
	}
	memcpy(rp->info.skips, cap_read_info(rd)->skips, sizeof(rp->info.skips));
	return rc;
}

/* @p v as a deadline: 0 when it stays inside the emulated time range, else -ERANGE. */
static int in_range(unsigned __int128 v, emu_ps_t *out)
{
	if (v >= EMU_PS_MAX)
		return -ERANGE;
	*out = (emu_ps_t)v;
	return 0;
}

/* The pace's name and value for a message: "speed 0.000001", "rate 1 frames/s". */
static void pace_name(const struct cap_replay_cfg *c, char *b, size_t n)
{
	if (c->pace == CAP_PACE_TIMING)
		snprintf(b, n, "speed %.6f", (double)c->speed_ppm / 1e6);
	else
		snprintf(b, n, "rate %llu %s", (unsigned long long)c->rate, c->pace == CAP_PACE_FPS ? "frames/s" : "bit/s");
}

/*
 * The deadlines of one loop and the loop period, for the configured pace; then the last deadline of the last loop
 * (start + (loop - 1) x period + the last frame's), every sum and product checked against the emulated time range.
 * 0, or -ERANGE with a message naming the field (speed, rate, loop, start) that takes the replay past it.
 */
static int pace(struct cap_replay *rp, char *err, size_t errlen)
{
	const struct cap_replay_cfg *c = &rp->cfg;
	unsigned __int128 bits = 0;
	char pn[64];

	pace_name(c, pn, sizeof(pn));
	for (uint32_t i = 0; i < rp->n; i++) {
		unsigned __int128 v;

		if (c->pace == CAP_PACE_TIMING)
			v = (unsigned __int128)rp->dl[i] * 1000000u / c->speed_ppm;
		else if (c->pace == CAP_PACE_FPS)
			v = (unsigned __int128)i * EMU_PS_PER_S / c->rate;
		else
			v = bits * EMU_PS_PER_S / c->rate;
		if (in_range(v, &rp->dl[i]) < 0) {
			snprintf(err, errlen, "%s: at %s, frame %u would play %.3e s after the first, past the emulated "
				 "time range (%.3e s, 2^63 ps)", c->path, pn, i + 1, (double)v / 1e12,
				 (double)EMU_PS_MAX / 1e12);
			return -ERANGE;
		}
		bits += ((unsigned __int128)rp->len[i] + WIRE_EXTRA) * 8u;
	}
	emu_ps_t span = rp->dl[rp->n - 1], gap;

	if (c->pace == CAP_PACE_TIMING)
		gap = rp->n > 1 ? span / (rp->n - 1) : (emu_ps_t)((unsigned __int128)ONE_FRAME_GAP_PS * 1000000u /
								   c->speed_ppm);
	else if (c->pace == CAP_PACE_FPS)
		gap = (emu_ps_t)((unsigned __int128)rp->n * EMU_PS_PER_S / c->rate) - span;
	else
		gap = (emu_ps_t)(bits * EMU_PS_PER_S / c->rate) - span;
	rp->period = span + (gap > 0 ? gap : 1);
	/* the replay's last deadline: FPS one progression over every frame, else loop - 1 periods and a loop's span */
	unsigned __int128 end = c->pace == CAP_PACE_FPS ?
		(unsigned __int128)rp->n * c->loop * EMU_PS_PER_S / c->rate :
		(unsigned __int128)(c->loop - 1) * rp->period + span;
	emu_ps_t e;

	if (in_range(end, &e) < 0 || emu_ps_add_checked(c->start, e, &e) < 0) {
		snprintf(err, errlen, "%s: start %llu ps + loop %llu x %llu ps (%u frames at %s) would end %.3e s into the "
			 "run, past the emulated time range (%.3e s, 2^63 ps): fewer loops, an earlier start or a higher speed", c->path,
			 (unsigned long long)c->start, (unsigned long long)c->loop, (unsigned long long)rp->period, rp->n,
			 pn, ((double)end + (double)c->start) / 1e12, (double)EMU_PS_MAX / 1e12);
		return -ERANGE;
	}
	return 0;
}

struct cap_replay *cap_replay_load(const struct cap_replay_cfg *cfg, char *err, size_t errlen)
{
	struct cap_replay *rp = calloc(1, sizeof(*rp));
	struct cap_reader *rd = NULL;
	struct cap_bpf *f = NULL;
	int rc;

	if (rp == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	rp->cfg = *cfg;
	rp->cfg.max_len = cfg->max_len ? cfg->max_len : CAP_READ_CAPLEN_MAX;
	rp->cfg.loop = cfg->loop ? cfg->loop : 1;
	rp->cfg.speed_ppm = cfg->speed_ppm ? cfg->speed_ppm : 1000000u;
	rc = cfg->filter != NULL && cfg->filter[0] ? cap_bpf_compile(cfg->filter, &f, err, errlen) : 0;
	if (rc == 0)
		rc = cap_read_open(cfg->path, &rd, err, errlen);
	if (rc == 0) {
		cap_read_set_halt(rd, cfg->halt);
		rc = load(rp, rd, f, err, errlen);
	}
	if (rc == 0 && rp->n == 0) {
		snprintf(err, errlen, "%s: no frame to replay (%llu read: %llu filtered out, %llu cut by the snap length, "
			 "%llu too long or short)", cfg->path, (unsigned long long)rp->info.read,
			 (unsigned long long)rp->info.filtered_out, (unsigned long long)rp->info.snap_cut,
			 (unsigned long long)rp->info.bad_len);
		rc = -EINVAL;
	}
	cap_read_close(rd);
	cap_bpf_free(f);
	if (rc == 0)
		rc = pace(rp, err, errlen);
	if (rc < 0) {
		cap_replay_free(rp);
		errno = -rc;
		return NULL;
	}
	rp->info.frames = rp->n;
	rp->info.total = (uint64_t)rp->n * rp->cfg.loop;
	rp->info.span = cap_replay_deadline(rp, rp->info.total - 1) - rp->cfg.start;
	return rp;
}

void cap_replay_free(struct cap_replay *rp)
{
	if (rp == NULL)
		return;
	free(rp->bytes);
	free(rp->off);
	free(rp->len);
	free(rp->dl);
	free(rp);
}

const struct cap_replay_info *cap_replay_info(const struct cap_replay *rp)
{
	return &rp->info;
}

emu_ps_t cap_replay_deadline(const struct cap_replay *rp, uint64_t k)
{
	uint64_t loop = k / rp->n;
	uint32_t i = (uint32_t)(k % rp->n);

	if (rp->cfg.pace == CAP_PACE_FPS) /* one arithmetic progression across the loops */
		return rp->cfg.start + (emu_ps_t)((unsigned __int128)k * EMU_PS_PER_S / rp->cfg.rate);
	return rp->cfg.start + loop * rp->period + rp->dl[i];
}

const uint8_t *cap_replay_frame(const struct cap_replay *rp, uint64_t k, uint32_t *len)
{
	uint32_t i = (uint32_t)(k % rp->n);

	*len = rp->len[i];
	return rp->bytes + rp->off[i];
}
