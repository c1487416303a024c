/* The switch in small scenarios: fake endpoints on every port (or two UET NICs), exact times and counts from the
 * Scala switch pages. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"
#include "nic.h"
#include "nic_pair.h"
#include "sw.h"
#include "sw_pvt.h"

#define MAX_PORTS 20
#define MAX_FRAMES 1024
#define BPS 400000000000ULL
#define DELAY (500 * EMU_PS_PER_NS)
#define SER_4000 80360 /* a 4,000 B datagram is 4,018 B on the wire: 80.36 ns at 400 Gb/s */

struct frame {
	emu_ps_t t;        /* arrival at the endpoint */
	uint8_t kind, dscp, ecn;
	size_t wire;
	uint16_t pfc_enable;
	uint16_t quanta[8];
	uint64_t uid;
	uint8_t src_mac[6], dst_mac[6];
	size_t raw_len;    /* RAW: the emitted frame's length (wire_raw_encode()), its first bytes in raw */
	uint8_t raw[64];
};

struct rig;

struct sink {
	struct rig *r;
	struct frame f[MAX_FRAMES];
	int n;
};

struct rig {
	struct net_part np;
	struct sw_params p;
	struct wire_dscp_map dscp;
	uint64_t run;           /* simulation.RunNumber given to the switch (rig_alloc(): 1, the default) */
	struct sw *sw;
	uint32_t n;
	struct net_link link[MAX_PORTS];
	struct sink sink[MAX_PORTS];
};

static void sink_rx(void *dev, uint32_t port, struct wire_pkt *pkt, emu_ps_t now)
{
	struct sink *s = dev;

	(void)port;
	if (s->n < MAX_FRAMES) {
		struct frame *f = &s->f[s->n++];

		*f = (struct frame){ .t = now, .kind = pkt->kind, .dscp = pkt->dscp, .ecn = pkt->ecn,
				     .wire = wire_wire_len(pkt), .pfc_enable = pkt->pfc_enable, .uid = pkt->uid };
		memcpy(f->quanta, pkt->pfc_quanta, sizeof(f->quanta));
		memcpy(f->src_mac, pkt->src_mac, 6);
		memcpy(f->dst_mac, pkt->dst_mac, 6);
		if (pkt->kind == WIRE_KIND_RAW) {
			uint8_t b[WIRE_MAX_FRAME];
			int n = wire_raw_encode(pkt, b, sizeof(b));

			cr_assert_gt(n, 0);
			f->raw_len = (size_t)n;
			memcpy(f->raw, b, (size_t)n < sizeof(f->raw) ? (size_t)n : sizeof(f->raw));
		}
	}
	net_pkt_free(&s->r->np, pkt);
}

static const struct net_dev_ops sink_ops = { .receive = sink_rx };

static uint32_t host_ip(uint32_t i)
{
	return 0x0a000001u + i; /* 10.0.0.(i+1) sits behind port i */
}

static struct rig *rig_alloc(void)
{
	struct rig *r = calloc(1, sizeof(*r));

	cr_assert_not_null(r);
	sw_params_defaults(&r->p);
	wire_dscp_defaults(&r->dscp);
	r->run = 1;
	return r;
}

/* Create the switch with @p n ports, each linked to a sink at 400 Gb/s and 500 ns; host i routed to port i. */
static void rig_start(struct rig *r, uint32_t n, uint32_t nic_mask, uint32_t node_id)
{
	cr_assert_eq(net_part_init(&r->np, 1 << 16, 1 << 14), 0);
	struct sw_env env = { .np = &r->np, .params = &r->p, .node_id = node_id, .name = "sw0", .n_ports = n,
			      .seed = 18760, .run = r->run, .dscp = &r->dscp };

	r->n = n;
	r->sw = sw_create(&env);
	cr_assert_not_null(r->sw);
	for (uint32_t i = 0; i < n; i++) {
		struct net_endpoint a = { r->sw, &sw_dev_ops, i, 0 }, b = { &r->sink[i], &sink_ops, 0, 0 };

		r->sink[i].r = r;
		net_link_init(&r->link[i], &r->np, BPS, DELAY, a, b);
		sw_attach(r->sw, i, &r->link[i].dir[0], (nic_mask >> i) & 1);
		cr_assert_eq(sw_route_add(r->sw, host_ip(i), &i, 1), 0);
	}
}

static struct rig *rig_new(uint32_t n)
{
	struct rig *r = rig_alloc();

	rig_start(r, n, 0, 1);
	return r;
}

static void rig_free(struct rig *r)
{
	sw_destroy(r->sw);
	net_part_fini(&r->np);
	free(r);
}

static void setp(struct rig *r, const char *parent, const char *name, const char *text)
{
	char err[256];
	const struct sw_param_def *d = sw_param_find(parent, name);

	cr_assert_not_null(d, "%s", name);
	cr_assert_eq(sw_param_set(&r->p, d, text, err, sizeof(err)), 0, "%s: %s", name, err);
}

/* A UET data packet whose IP datagram is @p ip_len bytes (payload + 88). */
static struct wire_pkt *data(struct rig *r, uint32_t dst, uint8_t dscp, uint8_t ecn, uint32_t ip_len, uint16_t sport,
			     uint64_t uid)
{
	struct wire_pkt *p = net_pkt_alloc(&r->np);

	cr_assert_not_null(p);
	p->kind = WIRE_KIND_DATA;
	p->src_ip = 0x0a0000feu;
	p->dst_ip = dst;
	p->dscp = dscp;
	p->ecn = ecn;
	p->ttl = WIRE_TTL;
	p->sport = sport;
	p->dport = WIRE_UDP_PORT_UET;
	p->payload_len = ip_len - WIRE_DATA_IP_OVERHEAD;
	p->uid = uid;
	return p;
}

static struct wire_pkt *pfc(struct rig *r, uint32_t tc, uint16_t quanta)
{
	struct wire_pkt *p = net_pkt_alloc(&r->np);

	p->kind = WIRE_KIND_PFC;
	p->pfc_enable = (uint16_t)(1u << tc);
	p->pfc_quanta[tc] = quanta;
	return p;
}

static void rx(struct rig *r, uint32_t port, struct wire_pkt *p, emu_ps_t now)
{
	emu_sched_run_until(r->np.sched, now);
	sw_dev_ops.receive(r->sw, port, p, now);
}

static void run(struct rig *r)
{
	emu_sched_run_until(r->np.sched, EMU_PS_NEVER - 1);
}

static const uint64_t *C(struct rig *r)
{
	return sw_counters(r->sw);
}

static struct sw_port_occ occ(struct rig *r, uint32_t port)
{
	struct sw_port_occ o;

	sw_port_occ(r->sw, port, &o);
	return o;
}

static struct sw_port_stats pst(struct rig *r, uint32_t port)
{
	struct sw_port_stats s;

	sw_port_stats(r->sw, port, &s, emu_sched_now(r->np.sched));
	return s;
}

static void assert_empty(struct rig *r)
{
	for (uint32_t pool = 0; pool < SW_POOL_COUNT; pool++) {
		struct sw_pool_occ o;

		sw_pool_occ(r->sw, pool, &o);
		cr_assert_eq(o.ingress + o.headroom + o.egress, 0, "pool %u still holds bytes", pool);
		for (uint32_t i = 0; i < r->n; i++) {
			struct sw_port_occ po = occ(r, i);

			cr_assert_eq(po.ingress[pool] + po.headroom[pool] + po.egress[pool], 0);
		}
	}
}

/* ---- classification and scheduling ---- */

Test(sw_classify, dscp_divided_by_8_picks_the_class_and_strict_priority_orders_them)
{
	struct rig *r = rig_alloc();

	/* one pool per class, so the pool a packet is charged to names its class */
	setp(r, "SharedBufferManager", "PoolAllocationMap", "[0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125]");
	setp(r, "SharedBufferManager", "TrafficClassPoolMapping", "[0, 1, 2, 3, 4, 5, 6, 7]");
	setp(r, "SharedBufferManager", "EnablePFC", "[0, 0, 0, 0, 0, 0, 0, 0]");
	rig_start(r, 2, 0, 1);
	for (uint32_t d = 0; d < 64; d++) {
		struct sw_port_occ before = occ(r, 0);

		rx(r, 0, data(r, host_ip(1), (uint8_t)d, WIRE_ECN_NOT_ECT, 1000, 7, d), 0);
		struct sw_port_occ after = occ(r, 0);

		cr_assert_eq(after.ingress[d / 8] - before.ingress[d / 8], 1000, "DSCP %u is TC%u", d, d / 8);
	}
	run(r);
	/* DSCP 0 went out at once; then TC7 first, each class in arrival order, down to TC0 */
	struct sink *s = &r->sink[1];

	cr_assert_eq(s->n, 64);
	cr_assert_eq(s->f[0].uid, 0);
	int k = 1;

	for (int tc = 7; tc >= 0; tc--)
		for (uint32_t d = (uint32_t)tc * 8; d < (uint32_t)tc * 8 + 8; d++)
			if (d != 0)
				cr_assert_eq(s->f[k++].uid, d, "frame %d", k);
	assert_empty(r);
	rig_free(r);
}

Test(sw_classify, uet_policy_classes_by_codepoint)
{
	struct rig *r = rig_alloc();

	setp(r, "SharedBufferManager", "UETPolicyEnabled", "true");
	rig_start(r, 2, 0, 1);
	/* CONTROL 46 -> TC2 (pool 2); TRIMMED 16 and TRIMMED_LASTHOP 18 -> TC1; TRIMMABLE 8, RTX 10, 0, 56 -> TC0 */
	static const uint8_t dscp[] = { 46, 16, 18, 8, 10, 0, 56 };
	static const uint32_t pool[] = { 2, 1, 1, 0, 0, 0, 0 };

	for (unsigned i = 0; i < sizeof(dscp); i++) {
		struct sw_port_occ before = occ(r, 0);

		rx(r, 0, data(r, host_ip(1), dscp[i], WIRE_ECN_ECT1, 1000, 7, i), 0);
		cr_assert_eq(occ(r, 0).ingress[pool[i]] - before.ingress[pool[i]], 1000, "DSCP %u", dscp[i]);
	}
	run(r);
	assert_empty(r);
	rig_free(r);

	/* the codepoints are the NICs' (env->dscp): CONTROL at 48 is TC2, and 46 is then ordinary data */
	r = rig_alloc();
	setp(r, "SharedBufferManager", "UETPolicyEnabled", "true");
	r->dscp.dscp[WIRE_ROLE_CONTROL] = 48;
	rig_start(r, 2, 0, 1);
	rx(r, 0, data(r, host_ip(1), 48, WIRE_ECN_ECT1, 1000, 7, 1), 0);
	cr_assert_eq(occ(r, 0).ingress[2], 1000);
	rx(r, 0, data(r, host_ip(1), 46, WIRE_ECN_ECT1, 1000, 7, 2), 0);
	cr_assert_eq(occ(r, 0).ingress[0], 1000);
	run(r);
	rig_free(r);
}

Test(sw_tx, store_and_forward_back_to_back_with_no_gap)
{
	struct rig *r = rig_new(2);

	for (int i = 0; i < 3; i++)
		rx(r, 0, data(r, host_ip(1), 0, WIRE_ECN_ECT1, 4000, 7, (uint64_t)i), 1000);
	run(r);
	struct sink *s = &r->sink[1];

	cr_assert_eq(s->n, 3);
	for (int i = 0; i < 3; i++) {
		/* starts the moment it is received (its last bit); 80.36 ns each, zero interframe gap; 500 ns delay */
		cr_assert_eq(s->f[i].t, 1000 + (emu_ps_t)(i + 1) * SER_4000 + DELAY);
		cr_assert_eq(s->f[i].wire, 4018);
	}
	struct sw_port_stats st = pst(r, 1);

	cr_assert_eq(st.tx_frames, 3);
	cr_assert_eq(st.tx_bytes, 3 * 4018);
	cr_assert_eq(pst(r, 0).rx_frames, 3);
	cr_assert_eq(C(r)[SW_C_FORWARDED], 3);
	assert_empty(r);
	rig_free(r);
}

/* A frame reaching the switch from a link: delivered by an event, as the link's far end does. */
struct arrival {
	struct rig *r;
	uint32_t port;
	struct wire_pkt *pkt;
};

static void arrive(void *a, void *b, emu_ps_t now)
{
	struct arrival *v = a;

	(void)b;
	sw_dev_ops.receive(v->r->sw, v->port, v->pkt, now);
}

Test(sw_arbiter, frames_arriving_together_take_turns_round_robin)
{
	enum { ROUNDS = 6, SENDERS = 4 };
	struct rig *r = rig_new(SENDERS + 1);
	struct arrival v[ROUNDS][SENDERS];

	/* each round, ports 1-4 deliver a frame for port 0 in the same picosecond; rounds 1 us apart, so the queue
	 * empties between them and port 0 sends the frames in the order they were admitted */
	for (uint32_t k = 0; k < ROUNDS; k++)
		for (uint32_t i = 0; i < SENDERS; i++) {
			v[k][i] = (struct arrival){ r, i + 1, data(r, host_ip(0), 0, WIRE_ECN_ECT1, 4000, 7,
								    100 * k + i + 1) };
			cr_assert_eq(net_sched(&r->np, k * EMU_PS_PER_US, arrive, &v[k][i], NULL, NULL), 0);
		}
	run(r);
	struct sink *s = &r->sink[0];

	cr_assert_eq(s->n, ROUNDS * SENDERS);
	for (uint32_t k = 0; k < ROUNDS; k++)
		for (uint32_t j = 0; j < SENDERS; j++) {
			/* round k starts with the port after the one that started round k - 1: 1, 2, 3, 4, 1, 2 */
			uint64_t want = 100 * k + (k + j) % SENDERS + 1;

			cr_assert_eq(s->f[k * SENDERS + j].uid, want, "round %u, place %u: uid %lu, want %lu", k, j,
				     (unsigned long)s->f[k * SENDERS + j].uid, (unsigned long)want);
		}
	/* the rounds' first frames leave as soon as they are in: the arbiter runs in the same picosecond */
	cr_assert_eq(s->f[SENDERS].t, EMU_PS_PER_US + SER_4000 + DELAY);
	assert_empty(r);
	rig_free(r);
}

Test(sw_arbiter, a_frame_alone_in_its_picosecond_is_forwarded_at_once)
{
	struct rig *r = rig_new(3);

	rx(r, 1, data(r, host_ip(0), 0, WIRE_ECN_ECT1, 4000, 7, 1), 1000);
	cr_assert_eq(C(r)[SW_C_FORWARDED], 1, "admitted to the egress queue inside the receive call");
	cr_assert_eq(occ(r, 0).egress[0], 4000);
	run(r);
	cr_assert_eq(r->sink[0].n, 1);
	assert_empty(r);
	rig_free(r);
}

Test(sw_tx, link_faults_that_meet_end_to_end_keep_the_link_down_through_both)
{
	struct rig *r = rig_new(2);

	/* listed later-first, so at 5 us the second fault's start runs before the first one's end */
	cr_assert_eq(net_link_fault_down(&r->link[1], 5 * EMU_PS_PER_US, 8 * EMU_PS_PER_US), 0);
	cr_assert_eq(net_link_fault_down(&r->link[1], 1 * EMU_PS_PER_US, 5 * EMU_PS_PER_US), 0);
	rx(r, 0, data(r, host_ip(1), 0, WIRE_ECN_ECT1, 4000, 7, 1), 6 * EMU_PS_PER_US);
	rx(r, 0, data(r, host_ip(1), 0, WIRE_ECN_ECT1, 4000, 7, 2), 9 * EMU_PS_PER_US);
	run(r);
	cr_assert_eq(r->np.counters[NET_C_LINK_DOWN_DROP], 1, "the frame at 6 us is lost: still down until 8 us");
	cr_assert_eq(r->sink[1].n, 1);
	cr_assert_eq(r->sink[1].f[0].uid, 2);
	rig_free(r);
}

Test(sw_tx, switching_capacity_only_reports_oversubscription)
{
	struct rig *r = rig_alloc();
	uint64_t sum;

	setp(r, NULL, "SwitchingCapacity", "1000Gbps");
	rig_start(r, 3, 0, 1);
	cr_assert(sw_oversubscribed(r->sw, &sum), "3 x 400 Gb/s is more than 1,000 Gb/s");
	cr_assert_eq(sum, 1200000000000ULL);
	for (int i = 0; i < 3; i++) /* and it still forwards three ports' worth */
		rx(r, (uint32_t)i, data(r, host_ip((uint32_t)(i + 1) % 3), 0, WIRE_ECN_ECT1, 4000, 7, (uint64_t)i), 0);
	run(r);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(r->sink[i].n, 1);
	rig_free(r);
	r = rig_new(3);
	cr_assert(!sw_oversubscribed(r->sw, NULL), "1.2 Tb/s within the default 51.2 Tb/s");
	rig_free(r);
}

/* ---- admission and drops ---- */

Test(sw_admit, egress_drop_releases_the_ingress_charge)
{
	struct rig *r = rig_alloc();

	setp(r, "SharedBufferManager", "EnablePFC", "[0, 0, 0, 0, 0, 0, 0, 0]");
	setp(r, "SharedBufferManager", "LossyAlpha", "0");
	setp(r, "SharedBufferManager", "QueueDropThresholdEnable", "true");
	setp(r, "SharedBufferManager", "QueueDropThreshold", "1");
	setp(r, "SharedBufferManager", "PlaneBDP", "10000");
	rig_start(r, 2, 0, 1);
	rx(r, 1, pfc(r, 0, 65535), 0); /* port 1's peer pauses TC0: nothing drains */
	for (int i = 0; i < 5; i++)
		rx(r, 0, data(r, host_ip(1), 0, WIRE_ECN_ECT1, 4000, 7, (uint64_t)i), 0);
	/* cap 10,000 B: two packets fit (8,000 B), the third would make 12,000 */
	cr_assert_eq(C(r)[SW_C_FORWARDED], 2);
	cr_assert_eq(C(r)[SW_C_DROP_EGRESS_LIMIT], 3);
	cr_assert_eq(pst(r, 1).tx_drops, 3);
	cr_assert_eq(pst(r, 0).rx_drops, 0);
	cr_assert_eq(occ(r, 0).ingress[0], 8000, "the dropped packets released their ingress charge");
	cr_assert_eq(occ(r, 1).egress[0], 8000);
	struct sw_pool_occ po;

	sw_pool_occ(r->sw, 0, &po);
	cr_assert_eq(po.ingress, 8000);
	cr_assert_eq(po.egress, 8000);
	rx(r, 1, pfc(r, 0, 0), EMU_PS_PER_US); /* resume */
	run(r);
	cr_assert_eq(r->sink[1].n, 2);
	cr_assert_eq(r->sink[1].f[0].t, EMU_PS_PER_US + SER_4000 + DELAY, "a resume restarts transmission at once");
	assert_empty(r);
	rig_free(r);
}

Test(sw_admit, pool_over_its_size_drops_at_ingress_and_rolls_back)
{
	struct rig *r = rig_alloc();

	/* 2 ports x 256,000 B of headroom + 20,000 B: pool 0 is 0.9 x 20,000 = 18,000 B */
	setp(r, "SharedBufferManager", "TotalSharedBufferSize", "532000");
	setp(r, "SharedBufferManager", "LossyAlpha", "0");
	setp(r, "SharedBufferManager", "QueueDropThresholdEnable", "true");
	rig_start(r, 2, 0, 1);
	cr_assert_eq(sw_buffer(r->sw)->pool_size[0], 18000);
	for (int i = 0; i < 5; i++) /* DSCP 16: TC2, lossy, pool 0 */
		rx(r, 0, data(r, host_ip(1), 16, WIRE_ECN_ECT1, 4000, 7, (uint64_t)i), 0);
	cr_assert_eq(C(r)[SW_C_DROP_INGRESS_POOL], 1, "the fifth makes 20,000 > 18,000");
	cr_assert_eq(pst(r, 0).rx_drops, 1);
	cr_assert_eq(occ(r, 0).ingress[0], 16000);
	/* no route: admitted at ingress, then dropped with its charge released */
	rx(r, 0, data(r, 0x0a000063u, 16, WIRE_ECN_ECT1, 1000, 7, 9), 0);
	cr_assert_eq(C(r)[SW_C_DROP_NO_ROUTE], 1);
	cr_assert_eq(occ(r, 0).ingress[0], 16000);
	run(r);
	cr_assert_eq(r->sink[1].n, 4);
	assert_empty(r);
	rig_free(r);
}

/* ---- trimming ---- */

static struct rig *trim_rig(void)
{
	struct rig *r = rig_alloc();

	setp(r, "SharedBufferManager", "UETPolicyEnabled", "true");
	setp(r, "PacketTrimmer", "TrimmingEnabled", "true");
	setp(r, "SharedBufferManager", "EnablePFC", "[0, 0, 0, 0, 0, 0, 0, 0]");
	setp(r, "SharedBufferManager", "PlaneBDP", "10000"); /* with trimming, each egress queue holds 10,000 B */
	rig_start(r, 3, 1u << 2, 1);                          /* port 2 faces a NIC */
	const struct sw_param_def *why[SW_CHECK_WHY_MAX];
	char err[256];

	cr_assert_eq(sw_params_check(&r->p, why, err, sizeof(err)), 0, "%s", err);
	return r;
}

Test(sw_trim, over_limit_trimmable_packet_cut_to_62_bytes_with_dscp_16_or_18_on_tc1)
{
	struct rig *r = trim_rig();

	for (uint32_t port = 1; port <= 2; port++) {
		rx(r, port, pfc(r, 0, 65535), 0); /* hold TC0 at both egress ports */
		for (int i = 0; i < 3; i++)   /* TRIMMABLE (8): the third is over 10,000 B */
			rx(r, 0, data(r, host_ip(port), 8, WIRE_ECN_ECT1, 4000, 7, 10 * port + (uint64_t)i), 0);
	}
	cr_assert_eq(C(r)[SW_C_TRIMS], 2);
	cr_assert_eq(pst(r, 1).trims, 1);
	cr_assert_eq(pst(r, 2).trims, 1);
	/* the trimmed packet is charged 46 B (its 44 B datagram), in pool 1 at egress */
	cr_assert_eq(occ(r, 1).egress[1], 46);
	cr_assert_eq(occ(r, 0).ingress[0], 4 * 4000 + 2 * 46);
	emu_sched_run_until(r->np.sched, 10 * EMU_PS_PER_US);
	for (uint32_t port = 1; port <= 2; port++) {
		struct frame *f = &r->sink[port].f[0];

		cr_assert_eq(r->sink[port].n, 1, "only the trimmed packet passed the paused TC0");
		cr_assert_eq(f->kind, WIRE_KIND_TRIMMED);
		cr_assert_eq(f->wire, 62);
		cr_assert_eq(f->dscp, port == 2 ? 18 : 16, "TRIMMED_LASTHOP on the port facing a NIC");
		cr_assert_eq(f->ecn, WIRE_ECN_ECT1, "ECN carried through");
		cr_assert_eq(f->uid, 10 * port + 2);
		cr_assert_eq(f->t, 1240 + DELAY, "62 B at 400 Gb/s is 1.24 ns");
	}
	run(r);
	assert_empty(r);
	rig_free(r);
}

/* A native UET frame (IPv4 protocol 253 + entropy header, 4 B shorter than UDP) is forwarded and trimmed like a UDP
 * one: cut to its 40 B datagram (IPv4 + entropy header + PDS request), 58 B on the wire; its CRC trailer, if any,
 * goes with the payload. */
Test(sw_trim, native_frame_trimmed_to_58_bytes)
{
	struct rig *r = trim_rig();

	rx(r, 2, pfc(r, 0, 65535), 0); /* hold TC0 at the egress port */
	for (int i = 0; i < 3; i++) {
		struct wire_pkt *p = data(r, host_ip(2), 8, WIRE_ECN_ECT1, 4000, 7, (uint64_t)i);

		p->encap = WIRE_ENCAP_NATIVE | WIRE_ENCAP_CRC;
		rx(r, 0, p, 0);
	}
	cr_assert_eq(C(r)[SW_C_TRIMS], 1);
	cr_assert_eq(occ(r, 2).egress[1], SW_MIN_CHARGE, "its 40 B datagram is charged the minimum");
	emu_sched_run_until(r->np.sched, 10 * EMU_PS_PER_US);
	cr_assert_eq(r->sink[2].n, 1);
	cr_assert_eq(r->sink[2].f[0].kind, WIRE_KIND_TRIMMED);
	cr_assert_eq(r->sink[2].f[0].wire, 58, "40 B datagram + Ethernet 14 + FCS 4");
	run(r);
	assert_empty(r);
	rig_free(r);
}

/* A real device's frame: the bytes of model packet @p m (wire_encode()) taken as a RAW descriptor (wire_raw_take()). */
static struct wire_pkt *raw_of(struct rig *r, struct wire_pkt *m, uint8_t *bytes, size_t *len)
{
	int n = wire_encode(m, bytes, WIRE_MAX_FRAME), reason;
	struct wire_pkt *p;

	cr_assert_gt(n, 0);
	net_pkt_free(&r->np, m);
	*len = (size_t)n;
	p = net_pkt_raw(&r->np, bytes, (size_t)n, WIRE_UDP_PORT_UET, &reason);
	cr_assert_not_null(p, "reason %d", reason);
	cr_assert_eq(p->kind, WIRE_KIND_RAW);
	return p;
}

static uint16_t be16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

/* A real device's UET frames (RAW, over UDP and native) with a TRIMMABLE codepoint are trimmed at a full egress
 * exactly as the models' packets: cut to MIN_TRIM_SIZE of IP payload in their own bytes, lengths and the IPv4
 * checksum rewritten, UDP checksum 0, DSCP TRIMMED / TRIMMED_LASTHOP, counted as trims. */
Test(sw_trim, raw_uet_frame_trimmed_in_its_bytes_like_a_model_packet)
{
	struct rig *r = trim_rig();
	static uint8_t orig[2][WIRE_MAX_FRAME];
	size_t olen[2];

	for (uint32_t port = 1; port <= 2; port++) {
		rx(r, port, pfc(r, 0, 65535), 0); /* hold TC0 at both egress ports */
		for (int i = 0; i < 3; i++) {     /* the third is over 10,000 B: trimmed */
			struct wire_pkt *m = data(r, host_ip(port), 8, WIRE_ECN_ECT1, 4000, 7, (uint64_t)i);

			if (port == 2)
				m->encap = WIRE_ENCAP_NATIVE;
			rx(r, 0, raw_of(r, m, orig[port - 1], &olen[port - 1]), 0);
		}
	}
	cr_assert_eq(C(r)[SW_C_TRIMS], 2);
	cr_assert_eq(pst(r, 1).trims, 1);
	cr_assert_eq(pst(r, 2).trims, 1);
	cr_assert_eq(pst(r, 1).trimmed_bytes, 4000 - 44);
	cr_assert_eq(pst(r, 2).trimmed_bytes, 3996 - 40);
	emu_sched_run_until(r->np.sched, 10 * EMU_PS_PER_US);
	for (uint32_t port = 1; port <= 2; port++) {
		struct frame *f = &r->sink[port].f[0];
		const uint8_t *ip = f->raw + WIRE_ETH_LEN, *o = orig[port - 1];
		size_t l4 = port == 1 ? WIRE_UDP_LEN : WIRE_ENTROPY_LEN, keep = WIRE_ETH_LEN + WIRE_IPV4_LEN + l4 + 16;
		struct wire_ipv4 dec;

		cr_assert_eq(r->sink[port].n, 1, "only the trimmed frame passed the paused TC0");
		cr_assert_eq(f->kind, WIRE_KIND_RAW);
		cr_assert_eq(f->raw_len, keep, "port %u: %zu", port, f->raw_len);
		cr_assert_eq(f->wire, keep + WIRE_FCS_LEN);
		cr_assert_eq(be16(ip + 2), WIRE_IPV4_LEN + l4 + 16, "IPv4 total length");
		cr_assert_eq(wire_csum(ip, WIRE_IPV4_LEN), 0, "IPv4 header checksum valid");
		cr_assert_eq(ip[1] >> 2, port == 2 ? 18 : 16, "TRIMMED_LASTHOP on the port facing a NIC");
		cr_assert_eq(ip[1] & 3, WIRE_ECN_ECT1, "ECN carried through");
		cr_assert_eq(ip[9], port == 1 ? WIRE_IPPROTO_UDP : WIRE_IPPROTO_UET);
		if (port == 1) {
			cr_assert_eq(be16(ip + WIRE_IPV4_LEN + 4), 24, "UDP length");
			cr_assert_eq(be16(ip + WIRE_IPV4_LEN + 6), 0, "UDP checksum 0");
		}
		cr_assert_eq(memcmp(ip + WIRE_IPV4_LEN + l4, o + WIRE_ETH_LEN + WIRE_IPV4_LEN + l4, 16), 0,
			     "the first 16 B of the PDS header kept as they came");
		cr_assert_eq(wire_ipv4_decode(f->raw, f->raw_len, &dec), WIRE_R_OK);
	}
	run(r);
	for (uint32_t port = 1; port <= 2; port++) { /* the two whole frames follow, intact */
		cr_assert_eq(r->sink[port].n, 3);
		cr_assert_eq(r->sink[port].f[1].raw_len, olen[port - 1]);
		cr_assert_eq(r->sink[port].f[2].raw_len, olen[port - 1]);
	}
	assert_empty(r);
	rig_free(r);
}

/* A TCP frame of @p ip_len bytes of IPv4 from a real device, DSCP @p dscp, as a RAW descriptor. */
static struct wire_pkt *raw_tcp(struct rig *r, uint32_t dst, uint8_t dscp, uint32_t ip_len)
{
	static uint8_t b[WIRE_MAX_FRAME];
	uint8_t *ip = b + WIRE_ETH_LEN;
	size_t len = WIRE_ETH_LEN + ip_len;
	struct wire_pkt *p;
	int reason;

	memset(b, 0, len);
	b[12] = 0x08;
	ip[0] = 0x45;
	ip[1] = (uint8_t)(dscp << 2 | WIRE_ECN_ECT0);
	ip[2] = (uint8_t)(ip_len >> 8);
	ip[3] = (uint8_t)ip_len;
	ip[8] = 64;
	ip[9] = 6;
	ip[12] = 10, ip[15] = 254;
	ip[16] = (uint8_t)(dst >> 24), ip[17] = (uint8_t)(dst >> 16), ip[18] = (uint8_t)(dst >> 8), ip[19] = (uint8_t)dst;
	uint16_t c = wire_csum(ip, WIRE_IPV4_LEN);

	ip[10] = (uint8_t)(c >> 8);
	ip[11] = (uint8_t)c;
	ip[20] = 0x30, ip[21] = 0x39, ip[22] = 0x12, ip[23] = 0xb7; /* TCP ports 12345 -> 4791 (not UDP: not RoCE) */
	ip[32] = 0x50;
	p = net_pkt_raw(&r->np, b, len, WIRE_UDP_PORT_UET, &reason);
	cr_assert_not_null(p, "reason %d", reason);
	cr_assert_eq(p->raw.cls, WIRE_FC_TCP);
	cr_assert_eq(p->raw.uet, WIRE_RAW_UET_NO);
	return p;
}

/* A non-UET RAW frame (TCP) with the TRIMMABLE codepoint under the same congestion is dropped, never trimmed. */
Test(sw_trim, raw_tcp_frame_over_the_limit_dropped_never_trimmed)
{
	struct rig *r = trim_rig();

	rx(r, 1, pfc(r, 0, 65535), 0);
	for (int i = 0; i < 3; i++)
		rx(r, 0, raw_tcp(r, host_ip(1), 8, 4000), 0);
	cr_assert_eq(C(r)[SW_C_TRIMS], 0);
	cr_assert_eq(C(r)[SW_C_DROP_EGRESS_LIMIT], 1);
	cr_assert_eq(pst(r, 1).tx_drops, 1);
	cr_assert_eq(pst(r, 1).trimmed_tx_drops, 0);
	run(r);
	cr_assert_eq(r->sink[1].n, 2);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(r->sink[1].f[i].raw_len, WIRE_ETH_LEN + 4000, "intact");
		cr_assert_eq(r->sink[1].f[i].dscp, 8);
	}
	assert_empty(r);
	rig_free(r);
}

Test(sw_trim, no_trim_packet_dropped_and_retransmit_gets_one_and_a_half_limits)
{
	struct rig *r = trim_rig();

	rx(r, 1, pfc(r, 0, 65535), 0);
	rx(r, 0, data(r, host_ip(1), 8, WIRE_ECN_ECT1, 4000, 7, 1), 0);
	rx(r, 0, data(r, host_ip(1), 8, WIRE_ECN_ECT1, 4000, 7, 2), 0);
	/* NO_TRIM (DSCP 0) over the limit: dropped, not trimmed */
	rx(r, 0, data(r, host_ip(1), 0, WIRE_ECN_ECT1, 4000, 7, 3), 0);
	cr_assert_eq(C(r)[SW_C_DROP_EGRESS_LIMIT], 1);
	cr_assert_eq(C(r)[SW_C_TRIMS], 0);
	/* TRIMMABLE_RTX (10) may use 1.5 x 10,000 = 15,000 B: 12,000 fits, 16,000 does not */
	rx(r, 0, data(r, host_ip(1), 10, WIRE_ECN_ECT1, 4000, 7, 4), 0);
	cr_assert_eq(C(r)[SW_C_TRIMS], 0);
	cr_assert_eq(occ(r, 1).egress[0], 12000);
	rx(r, 0, data(r, host_ip(1), 10, WIRE_ECN_ECT1, 4000, 7, 5), 0);
	cr_assert_eq(C(r)[SW_C_TRIMS], 1);
	run(r);
	cr_assert_eq(r->sink[1].n, 4);
	cr_assert_eq(r->sink[1].f[0].kind, WIRE_KIND_TRIMMED, "TC1 goes first while TC0 is paused");
	assert_empty(r);
	rig_free(r);
}

/* A packet an upstream switch trimmed (kind TRIMMED, DSCP TRIMMED 16: TC1 under the UET policy). */
static struct wire_pkt *trimmed(struct rig *r, uint32_t dst, uint64_t uid)
{
	struct wire_pkt *p = data(r, dst, 16, WIRE_ECN_ECT1, 4000, 7, uid);

	p->kind = WIRE_KIND_TRIMMED;
	p->payload_len = 0;
	return p;
}

Test(sw_trim, trimmed_drops_counted_on_the_egress_port_or_where_they_arrived)
{
	struct rig *r = trim_rig();

	rx(r, 1, pfc(r, 0, 65535), 0); /* hold TC0 and TC1 at port 1: nothing drains */
	rx(r, 1, pfc(r, 1, 65535), 0);
	/* two 4,000 B packets fit the 10,000 B TC0 limit; then each is trimmed to 46 B in TC1, whose 10,000 B hold
	 * 217 (9,982 B): the 218th to 220th trims are dropped at port 1 (DROP_TRIMMED_LIMIT) */
	for (int i = 0; i < 2 + 220; i++)
		rx(r, 0, data(r, host_ip(1), 8, WIRE_ECN_ECT1, 4000, 7, (uint64_t)i), 0);
	cr_assert_eq(C(r)[SW_C_TRIMS], 220);
	cr_assert_eq(C(r)[SW_C_DROP_TRIMMED_LIMIT], 3);
	/* one trimmed upstream, headed to the full TC1 of port 1: not trimmable again, an egress-limit drop */
	rx(r, 2, trimmed(r, host_ip(1), 1000), 0);
	cr_assert_eq(C(r)[SW_C_DROP_EGRESS_LIMIT], 1);
	/* one trimmed upstream with no route: dropped where it arrived, port 2; a plain data packet is not counted */
	rx(r, 2, trimmed(r, 0x0b000001u, 1001), 0);
	rx(r, 2, data(r, 0x0b000001u, 8, WIRE_ECN_ECT1, 4000, 7, 1002), 0);
	cr_assert_eq(C(r)[SW_C_DROP_NO_ROUTE], 2);
	cr_assert_eq(C(r)[SW_C_TRIMMED_DROPS], 3 + 1 + 1);
	cr_assert_eq(pst(r, 1).trimmed_tx_drops, 4);
	cr_assert_eq(pst(r, 1).tx_drops, 4);
	cr_assert_eq(pst(r, 2).trimmed_rx_drops, 1);
	cr_assert_eq(pst(r, 2).rx_drops, 2);
	cr_assert_eq(pst(r, 0).trimmed_tx_drops + pst(r, 0).trimmed_rx_drops + pst(r, 2).trimmed_tx_drops, 0);
	struct sw_port_stats sum;

	sw_link_stats(r->sw, &sum, 0);
	cr_assert_eq(sum.trimmed_tx_drops + sum.trimmed_rx_drops, C(r)[SW_C_TRIMMED_DROPS]);
	run(r);
	cr_assert_eq(r->sink[1].n, 2 + 217);
	assert_empty(r);
	rig_free(r);
}

/* ---- MAC addresses: a routed hop ---- */

static const uint8_t port_mac[3][6] = { { 2, 1, 0, 7, 0, 0 }, { 2, 1, 0, 7, 0, 1 }, { 2, 1, 0, 7, 0, 2 } };
static const uint8_t peer_mac[3][6] = { { 2, 0, 0, 0, 0, 1 }, { 2, 2, 0, 3, 0, 7 }, { 2, 0, 0, 0, 0, 3 } };

/* Ports 0 and 1 get their MACs and their peers'; port 2 keeps the defaults. */
static void set_macs(struct rig *r)
{
	for (uint32_t i = 0; i < 2; i++)
		sw_port_mac(r->sw, i, port_mac[i], peer_mac[i]);
}

Test(sw_mac, forwarded_frames_leave_with_the_port_mac_to_the_peer_mac_and_pfc_from_the_port_mac)
{
	struct rig *r = rig_alloc();
	static const uint8_t def2[6] = { 0x02, 0x53, 0, 1, 0, 2 }, zero[6] = { 0 };

	setp(r, "SharedBufferManager", "StaticPoolXoffThreshold", "0");
	setp(r, "SharedBufferManager", "StaticPoolXonThreshold", "0");
	rig_start(r, 3, 0, 1);
	set_macs(r);
	for (uint32_t out = 0; out < 3; out++) { /* lossy TC2 from port 1 to port 0 and 2, from port 0 to 1 */
		struct wire_pkt *p = data(r, host_ip(out), 16, WIRE_ECN_ECT1, 4000, 7, out);

		memcpy(p->src_mac, peer_mac[out == 1 ? 0 : 1], 6); /* as its sender addressed it: to the switch */
		memcpy(p->dst_mac, port_mac[out == 1 ? 0 : 1], 6);
		rx(r, out == 1 ? 0 : 1, p, 0);
	}
	rx(r, 0, data(r, host_ip(1), 0, WIRE_ECN_ECT1, 4000, 7, 9), 0); /* lossless TC0 above Xoff 0: port 0 pauses */
	run(r);
	for (uint32_t out = 0; out < 2; out++)
		for (int i = 0; i < r->sink[out].n; i++) {
			const struct frame *f = &r->sink[out].f[i];

			cr_assert_arr_eq(f->src_mac, port_mac[out], 6, "port %u frame %d: from the port's MAC", out, i);
			if (f->kind != WIRE_KIND_PFC)
				cr_assert_arr_eq(f->dst_mac, peer_mac[out], 6, "port %u frame %d: to its peer", out, i);
		}
	cr_assert_geq(pst(r, 0).xoff_tx[0], 1, "port 0 sent a pause, from its own MAC");
	cr_assert_eq(r->sink[2].n, 1);
	cr_assert_arr_eq(r->sink[2].f[0].src_mac, def2, 6, "no sw_port_mac(): 02:53, node id 1, port 2");
	cr_assert_arr_eq(r->sink[2].f[0].dst_mac, zero, 6);
	rig_free(r);
}

Test(sw_mac, trimmed_frames_are_readdressed_too)
{
	struct rig *r = trim_rig();

	set_macs(r);
	rx(r, 1, pfc(r, 0, 65535), 0);
	for (int i = 0; i < 3; i++) /* the third is trimmed */
		rx(r, 0, data(r, host_ip(1), 8, WIRE_ECN_ECT1, 4000, 7, (uint64_t)i), 0);
	emu_sched_run_until(r->np.sched, 10 * EMU_PS_PER_US);
	cr_assert_eq(r->sink[1].n, 1);
	cr_assert_eq(r->sink[1].f[0].kind, WIRE_KIND_TRIMMED);
	cr_assert_arr_eq(r->sink[1].f[0].src_mac, port_mac[1], 6);
	cr_assert_arr_eq(r->sink[1].f[0].dst_mac, peer_mac[1], 6);
	run(r);
	rig_free(r);
}

/* ---- ECN ---- */

/* Band 100,000 .. 400,000 B (0.2 / 0.8 of QueueDropThreshold 5 x PlaneBDP 100,000 B), average = the queue. */
static struct rig *ecn_rig_pfc(const char *weight, const char *pfc_list)
{
	struct rig *r = rig_alloc();

	setp(r, "SharedBufferManager", "EnablePFC", pfc_list);
	setp(r, "SharedBufferManager", "LossyAlpha", "0");
	setp(r, "SharedBufferManager", "QueueDropThresholdEnable", "true");
	setp(r, "SharedBufferManager", "PlaneBDP", "100000");
	setp(r, "EcnHandler", "EwmaWeight", weight);
	rig_start(r, 2, 0, 1);
	cr_assert_eq(sw_buffer(r->sw)->ecn_min[0], 100000);
	cr_assert_eq(sw_buffer(r->sw)->ecn_max[0], 400000);
	return r;
}

static struct rig *ecn_rig(const char *weight)
{
	return ecn_rig_pfc(weight, "[0, 0, 0, 0, 0, 0, 0, 0]");
}

/* Queue @p n packets of @p len behind a paused TC0, then let them go; returns the CE marks seen. */
static int ecn_burst(struct rig *r, int n, uint32_t len, bool mixed)
{
	static const uint8_t ecn[3] = { WIRE_ECN_ECT0, WIRE_ECN_ECT1, WIRE_ECN_NOT_ECT };
	int marks = 0;

	rx(r, 1, pfc(r, 0, 65535), 0);
	for (int i = 0; i < n; i++)
		rx(r, 0, data(r, host_ip(1), 0, mixed ? ecn[i % 3] : WIRE_ECN_ECT0, len, 7, (uint64_t)i), 0);
	run(r);
	cr_assert_eq(r->sink[1].n, n);
	for (int i = 0; i < n; i++) {
		marks += r->sink[1].f[i].ecn == WIRE_ECN_CE;
		if (mixed && i % 3 == 2)
			cr_assert_eq(r->sink[1].f[i].ecn, WIRE_ECN_NOT_ECT, "a Not-ECT packet is never marked");
	}
	return marks;
}

Test(sw_ecn, no_marks_below_or_at_min_threshold)
{
	struct rig *r = ecn_rig("1.0");

	cr_assert_eq(ecn_burst(r, 20, 4000, false), 0, "average 80,000 B is below 100,000");
	rig_free(r);
	r = ecn_rig("1.0");
	cr_assert_eq(ecn_burst(r, 25, 4000, false), 0, "at MinThreshold the probability is 0");
	rig_free(r);
}

Test(sw_ecn, every_ect_packet_marked_at_or_above_max_threshold)
{
	struct rig *r = ecn_rig("1.0");

	cr_assert_eq(ecn_burst(r, 100, 4000, true), 67, "400,000 B: the 67 ECT packets of 100");
	cr_assert_eq(C(r)[SW_C_ECN_MARKS], 67);
	cr_assert_eq(pst(r, 1).ecn_marked[0], 67);
	rig_free(r);
	r = ecn_rig("1.0");
	cr_assert_eq(ecn_burst(r, 110, 4000, true), 74, "440,000 B");
	rig_free(r);
	r = ecn_rig("1.0");
	setp(r, "EcnHandler", "EnableEcn", "false");
	cr_assert_eq(ecn_burst(r, 110, 4000, false), 0, "EnableEcn false marks nothing");
	rig_free(r);
}

Test(sw_ecn, lossless_class_marked_against_the_same_band)
{
	struct rig *r = ecn_rig_pfc("1.0", "[1, 1, 0, 0, 0, 0, 0, 0]");

	cr_assert_eq(ecn_burst(r, 110, 4000, true), 74, "TC0 lossless, 440,000 B: no egress limit, same marking");
	cr_assert_eq(pst(r, 0).xoff_tx[0], 0, "440,000 B is below Xoff");
	rig_free(r);
}

Test(sw_ecn, between_thresholds_marks_with_linear_probability)
{
	struct rig *r = ecn_rig("1.0");
	/* 100 x 2,500 B = 250,000 B: probability 1.0 x (250,000 - 100,000) / 300,000 = 0.5 */
	int marks = ecn_burst(r, 100, 2500, false);

	cr_assert(marks >= 30 && marks <= 70, "%d marks of 100 at p = 0.5", marks);
	rig_free(r);
	/* the same seed and node id make the same draws */
	r = ecn_rig("1.0");
	cr_assert_eq(ecn_burst(r, 100, 2500, false), marks);
	rig_free(r);
	r = ecn_rig("1.0");
	setp(r, "EcnHandler", "MaxMarkProbability", "0.2");
	marks = ecn_burst(r, 100, 2500, false);
	cr_assert(marks <= 25, "%d marks of 100 at p = 0.1", marks);
	rig_free(r);
}

Test(sw_ecn, average_moves_only_at_admission)
{
	struct rig *r = ecn_rig("0.10");

	rx(r, 1, pfc(r, 0, 65535), 0);
	rx(r, 0, data(r, host_ip(1), 0, WIRE_ECN_ECT0, 4000, 7, 1), 0);
	cr_assert_eq(occ(r, 1).ecn_avg[0], 400, "0.9 x 0 + 0.1 x 4,000");
	rx(r, 0, data(r, host_ip(1), 0, WIRE_ECN_ECT0, 4000, 7, 2), 0);
	cr_assert_eq(occ(r, 1).ecn_avg[0], 1160, "0.9 x 400 + 0.1 x 8,000");
	run(r);
	cr_assert_eq(occ(r, 1).egress[0], 0);
	cr_assert_eq(occ(r, 1).ecn_avg[0], 1160, "a draining queue keeps its last average");
	rig_free(r);
}

/* ---- PFC ---- */

/* switch-shared-buffer.md, "Example: when a pause frame is sent" and "Example continued": port 0 receives 4,000 B
 * TC0 packets; their egress (port 1) is paused by its peer, so nothing drains until that pause ends. */
static void pause_example(struct rig *r)
{
	rx(r, 1, pfc(r, 0, 65535), 0);
	for (int k = 1; k <= 241; k++) {
		rx(r, 0, data(r, host_ip(1), 0, WIRE_ECN_ECT1, 4000, 7, (uint64_t)k), 0);
		struct sw_port_occ o = occ(r, 0);

		if (k <= 175) {
			cr_assert_eq(o.ingress[0], 4000u * (uint64_t)k);
			cr_assert(!o.pausing[0], "packet %d: 4,000 x %d is not greater than 700,000", k, k);
		} else {
			cr_assert_eq(o.ingress[0], 704000, "packet %d", k);
			cr_assert(o.pausing[0]);
			cr_assert_eq(o.headroom[0], 4000u * (uint64_t)(k <= 240 ? k - 176 : 64), "packet %d", k);
		}
	}
	cr_assert_eq(C(r)[SW_C_DROP_HEADROOM], 1, "packet 241: 256,000 + 4,000 > 256,000");
	cr_assert_eq(pst(r, 0).rx_drops, 1);
	cr_assert_eq(C(r)[SW_C_FORWARDED], 240);
}

Test(sw_pfc, pause_at_packet_176_headroom_to_240_drop_at_241_resume_at_departure_165)
{
	struct rig *r = rig_new(2);
	const emu_ps_t pause = 84384800, arrive = 1280 + DELAY; /* a 64 B PFC frame takes 1.28 ns */

	pause_example(r);
	run(r);
	struct sink *s = &r->sink[0];

	/* pause at packet 176 (t = 0), refreshed every half pause time while paused: 42.1924 us, 84.3848 us */
	cr_assert_eq(s->n, 4);
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(s->f[i].kind, WIRE_KIND_PFC);
		cr_assert_eq(s->f[i].pfc_enable, 1);
		cr_assert_eq(s->f[i].quanta[0], 65535);
		cr_assert_eq(s->f[i].t, (emu_ps_t)i * (pause / 2) + arrive);
	}
	/* port 1 drains from the end of its 84.3848 us pause at 80.36 ns a packet; 64 departures empty the
	 * headroom, 101 more bring the occupancy to 300,000 B: the resume goes with departure 165 */
	cr_assert_eq(s->f[3].quanta[0], 0);
	cr_assert_eq(s->f[3].t, pause + 165 * SER_4000 + arrive);
	cr_assert_eq(pst(r, 0).xoff_tx[0], 3);
	cr_assert_eq(pst(r, 0).xon_tx[0], 1);
	cr_assert_eq(r->sink[1].n, 240);
	assert_empty(r);
	rig_free(r);
}

Test(sw_pfc, xon_equal_to_xoff_resumes_at_departure_65_and_repauses)
{
	struct rig *r = rig_alloc();
	const emu_ps_t pause = 84384800, arrive = 1280 + DELAY;

	setp(r, "SharedBufferManager", "StaticPoolXonThreshold", "700KB");
	rig_start(r, 2, 0, 1);
	pause_example(r);
	emu_sched_run_until(r->np.sched, pause + 64 * SER_4000);
	cr_assert_eq(pst(r, 0).xon_tx[0], 0, "64 departures only empty the headroom");
	emu_sched_run_until(r->np.sched, pause + 65 * SER_4000);
	cr_assert_eq(pst(r, 0).xon_tx[0], 1, "departure 65 takes the occupancy to exactly 700,000: resume");
	cr_assert(!occ(r, 0).pausing[0]);
	/* the next arrival takes it straight back above the threshold */
	rx(r, 0, data(r, host_ip(1), 0, WIRE_ECN_ECT1, 4000, 7, 999), pause + 65 * SER_4000);
	cr_assert(occ(r, 0).pausing[0]);
	run(r);
	struct sink *s = &r->sink[0];

	cr_assert_eq(s->f[3].quanta[0], 0);
	cr_assert_eq(s->f[3].t, pause + 65 * SER_4000 + arrive);
	cr_assert_eq(s->f[4].quanta[0], 65535, "paused again at once");
	cr_assert_eq(s->f[4].t, pause + 65 * SER_4000 + 1280 + arrive);
	rig_free(r);
}

Test(sw_pfc, frames_go_ahead_of_queued_data)
{
	struct rig *r = rig_alloc();

	setp(r, "SharedBufferManager", "StaticPoolXoffThreshold", "0");
	setp(r, "SharedBufferManager", "StaticPoolXonThreshold", "0");
	rig_start(r, 2, 0, 1);
	for (int i = 0; i < 3; i++) /* lossy TC2 from port 1 to port 0: one on the wire, two queued */
		rx(r, 1, data(r, host_ip(0), 16, WIRE_ECN_ECT1, 4000, 7, (uint64_t)i), 0);
	rx(r, 0, data(r, host_ip(1), 0, WIRE_ECN_ECT1, 4000, 7, 9), 0); /* lossless TC0 on port 0: above Xoff 0 */
	run(r);
	struct sink *s = &r->sink[0];
	/* data 0 (already on the wire), the pause, the resume (its packet left port 1 as data 0 ended), data 1, 2 */
	static const uint8_t kinds[] = { WIRE_KIND_DATA, WIRE_KIND_PFC, WIRE_KIND_PFC, WIRE_KIND_DATA, WIRE_KIND_DATA };

	cr_assert_eq(s->n, 5);
	for (int i = 0; i < 5; i++)
		cr_assert_eq(s->f[i].kind, kinds[i], "frame %d", i);
	cr_assert_eq(s->f[1].quanta[0], 65535);
	cr_assert_eq(s->f[2].quanta[0], 0);
	rig_free(r);
}

Test(sw_pfc, received_pause_holds_the_class_for_its_quanta_and_resume_restarts_at_once)
{
	struct rig *r = rig_new(2);

	/* 100 quanta: 6,400 B at 400 Gb/s = 128 ns, plus the 500 ns delay: TC0 held until 628 ns */
	rx(r, 1, pfc(r, 0, 100), 0);
	rx(r, 0, data(r, host_ip(1), 0, WIRE_ECN_ECT1, 4000, 7, 1), 0);
	rx(r, 0, data(r, host_ip(1), 8, WIRE_ECN_ECT1, 4000, 7, 2), 0); /* TC1 is not paused */
	run(r);
	struct sink *s = &r->sink[1];

	cr_assert_eq(s->f[0].uid, 2);
	cr_assert_eq(s->f[0].t, SER_4000 + DELAY);
	cr_assert_eq(s->f[1].uid, 1);
	cr_assert_eq(s->f[1].t, 628000 + SER_4000 + DELAY);
	cr_assert_eq(pst(r, 1).paused_ps[0], 628000);
	cr_assert_eq(pst(r, 1).xoff_rx[0], 1);
	rig_free(r);

	/* a fresh pause restarts the timer in full; a resume ends it at once */
	r = rig_new(2);
	rx(r, 1, pfc(r, 0, 100), 0);
	rx(r, 0, data(r, host_ip(1), 0, WIRE_ECN_ECT1, 4000, 7, 1), 0);
	rx(r, 1, pfc(r, 0, 100), 300000);
	emu_sched_run_until(r->np.sched, 900000);
	cr_assert_eq(r->sink[1].n, 0, "held until 300 ns + 628 ns");
	rx(r, 1, pfc(r, 0, 0), 900000);
	run(r);
	cr_assert_eq(r->sink[1].f[0].t, 900000 + SER_4000 + DELAY);
	cr_assert_eq(pst(r, 1).paused_ps[0], 900000);
	cr_assert_eq(pst(r, 1).xon_rx[0], 1);
	rig_free(r);
}

/* ---- ECMP ---- */

/* Bitwise CRC-32 (IEEE), the reference for the table-driven one. */
static uint32_t crc32_ref(const uint8_t *b, size_t n)
{
	uint32_t c = 0xffffffffu;

	for (size_t i = 0; i < n; i++) {
		c ^= b[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
	}
	return ~c;
}

static struct wire_pkt flow(uint32_t src, uint32_t dst, uint16_t sport)
{
	struct wire_pkt p = { .kind = WIRE_KIND_DATA, .src_ip = src, .dst_ip = dst, .sport = sport,
			      .dport = WIRE_UDP_PORT_UET };

	return p;
}

Test(sw_ecmp, crc32_is_the_ieee_crc_of_the_five_tuple)
{
	struct wire_pkt p = flow(0x0a000001u, 0x0a000102u, 0xbeef);
	const uint8_t key[13] = { 17, 0xbe, 0xef, 0x12, 0xb9, 10, 0, 0, 1, 10, 0, 1, 2 };
	uint32_t c = crc32_ref(key, sizeof(key));
	const uint8_t check[9] = { '1', '2', '3', '4', '5', '6', '7', '8', '9' };

	cr_assert_eq(crc32_ref(check, 9), 0xcbf43926u, "the CRC-32 check value");
	cr_assert_eq(sw_flow_hash(SW_HASH_CRC32, 12345, &p, 4), (uint16_t)((c >> 16) ^ (c & 0xffff)));
	/* the slicing table against the bit-by-bit CRC, over many tuples */
	struct emu_rng g;

	emu_rng_init(&g, 18760, 99);
	for (int i = 0; i < 20000; i++) {
		uint64_t x = emu_rng_next(&g), y = emu_rng_next(&g);
		struct wire_pkt q = flow((uint32_t)x, (uint32_t)(x >> 32), (uint16_t)y);
		const uint8_t k[13] = { 17, (uint8_t)(y >> 8), (uint8_t)y, 0x12, 0xb9, (uint8_t)(x >> 24), (uint8_t)(x >> 16),
					(uint8_t)(x >> 8), (uint8_t)x, (uint8_t)(x >> 56), (uint8_t)(x >> 48),
					(uint8_t)(x >> 40), (uint8_t)(x >> 32) };

		c = crc32_ref(k, sizeof(k));
		cr_assert_eq(sw_flow_hash(SW_HASH_CRC32, 0, &q, 4), (uint16_t)((c >> 16) ^ (c & 0xffff)), "tuple %d", i);
	}
}

/* The per-packet hash (its 5-tuple's CRC kept in the packet by the first switch) gives sw_flow_hash()'s values. */
Test(sw_ecmp, per_packet_hash_with_the_kept_crc_equals_the_flow_hash)
{
	struct emu_rng g;

	emu_rng_init(&g, 18760, 7);
	for (uint8_t m = 0; m < SW_HASH_COUNT; m++) {
		struct rig *r = rig_alloc();

		r->p.ecmp_hash = m;
		rig_start(r, 2, 0, 11 + m);
		for (int i = 0; i < 2000; i++) {
			uint64_t x = emu_rng_next(&g), y = emu_rng_next(&g);
			struct wire_pkt p = flow((uint32_t)x, (uint32_t)(x >> 32) % 700, (uint16_t)y);
			uint16_t want = sw_flow_hash(m, r->sw->salt, &p, 2 + (uint32_t)(y >> 32) % 600);

			cr_assert_eq(sw_flow_hash_pkt(r->sw, &p, 2 + (uint32_t)(y >> 32) % 600), want, "method %u", m);
			cr_assert_eq(sw_flow_hash_pkt(r->sw, &p, 2 + (uint32_t)(y >> 32) % 600), want, "kept CRC");
		}
		rig_free(r);
	}
}

/* A native UET frame has no ports: its flow key is protocol 253, the entropy value as source port, destination
 * port 0 (a UET-aware switch hashing the entropy header). */
Test(sw_ecmp, native_frame_key_is_protocol_253_and_its_entropy)
{
	struct wire_pkt p = flow(0x0a000001u, 0x0a000102u, 0xbeef);
	const uint8_t key[13] = { 253, 0xbe, 0xef, 0, 0, 10, 0, 0, 1, 10, 0, 1, 2 };
	uint32_t c = crc32_ref(key, sizeof(key));

	p.encap = WIRE_ENCAP_NATIVE;
	cr_assert_eq(sw_flow_hash(SW_HASH_CRC32, 1, &p, 4), (uint16_t)((c >> 16) ^ (c & 0xffff)));
	p.dport = 0;
	cr_assert_eq(sw_flow_hash(SW_HASH_HASH, 1, &p, 4), (uint16_t)((0x0a000001u ^ 0x0a000102u ^ 0xbeef0000u) >> 16 ^
									 ((0x0a000001u ^ 0x0a000102u ^ 0xbeef0000u) & 0xffff)));
	p.dport = 4793; /* a native frame's dport never counts */
	uint16_t h = sw_flow_hash(SW_HASH_CRC32_SALT, 77, &p, 4);

	p.dport = 0;
	cr_assert_eq(sw_flow_hash(SW_HASH_CRC32_SALT, 77, &p, 4), h);
}

Test(sw_ecmp, every_method_deterministic_and_only_salted_ones_depend_on_the_node)
{
	uint32_t s1 = sw_ecmp_salt(1), s2 = sw_ecmp_salt(2);

	cr_assert_neq(s1, s2);
	cr_assert_eq(s1, sw_ecmp_salt(1), "the same salt on every run");
	for (uint8_t m = 0; m < SW_HASH_COUNT; m++) {
		int differ = 0;

		for (uint16_t sp = 0; sp < 64; sp++) {
			struct wire_pkt p = flow(0x0a000001u + sp % 3, 0x0a000101u, (uint16_t)(49152 + sp));
			uint16_t h1 = sw_flow_hash(m, s1, &p, 8);

			cr_assert_eq(h1, sw_flow_hash(m, s1, &p, 8), "method %u is deterministic", m);
			differ += h1 != sw_flow_hash(m, s2, &p, 8);
		}
		if (m == SW_HASH_CRC32_SALT || m == SW_HASH_HASH_SALT)
			cr_assert_gt(differ, 32, "method %u mixes the salt in", m);
		else
			cr_assert_eq(differ, 0, "method %u ignores the salt", m);
	}
	/* hash: the XOR fold of addresses and ports */
	struct wire_pkt p = flow(0x0a000001u, 0x0a000102u, 0x1234);
	uint32_t v = 0x0a000001u ^ 0x0a000102u ^ (0x1234u << 16 | WIRE_UDP_PORT_UET);

	cr_assert_eq(sw_flow_hash(SW_HASH_HASH, s1, &p, 4), (uint16_t)((v >> 16) ^ (v & 0xffff)));
	v += s1;
	cr_assert_eq(sw_flow_hash(SW_HASH_HASH_SALT, s1, &p, 4), (uint16_t)((v >> 16) ^ (v & 0xffff)));
}

/*
 * crc32WithSalt spreads a Default Packet Spraying cycle (source ports 256..383, EntropyMaskBits 7) exactly evenly
 * over any set of 2^j <= 128 members, at every switch, for any flow; and two switches in a row see one flow's 128
 * values spread independently: adjacent tiers are de-correlated. A tor's 8 uplinks and then an agg's 8 (a k = 16
 * fat tree): the values the tor puts on one agg reach nearly all of that agg's cores, for every pair of switches
 * (before the permutation of the low 7 bits, some pairs reached only 4 or 2 of the 8: 32 of 64 paths). The
 * unsalted crc32 picks the same member at both (polarization), as the page says.
 */
Test(sw_ecmp, crc32_with_salt_spreads_a_spraying_cycle_evenly_and_decorrelates_tiers)
{
	for (uint32_t node = 0; node < 48; node++) {
		uint32_t salt = sw_ecmp_salt(node);

		for (uint32_t n = 2; n <= 128; n *= 2) {
			uint32_t cnt[128] = { 0 };

			for (uint16_t sp = 256; sp < 384; sp++) {
				struct wire_pkt f = flow(0x0a000001u + node * 7, 0x0a000100u + node, sp);
				cnt[sw_flow_hash(SW_HASH_CRC32_SALT, salt, &f, n) % n]++;
			}
			for (uint32_t m = 0; m < n; m++)
				cr_assert_eq(cnt[m], 128 / n, "node %u, %u members: member %u has %u of 128",
					     node, n, m, cnt[m]);
		}
	}
	uint32_t total = 0, worst = 64, same_crc = 0;

	for (uint32_t a = 1024; a < 1024 + 64; a++) {
		uint32_t s1 = sw_ecmp_salt(a), s2 = sw_ecmp_salt(a + 128), paths = 0;
		bool seen[8][8] = { { false } };

		for (uint16_t sp = 256; sp < 384; sp++) {
			struct wire_pkt f = flow(0x0a000003u + a, 0x0a000200u + a, sp);
			uint16_t h1 = sw_flow_hash(SW_HASH_CRC32_SALT, s1, &f, 8);
			uint16_t h2 = sw_flow_hash(SW_HASH_CRC32_SALT, s2, &f, 8);

			paths += !seen[h1 % 8][h2 % 8];
			seen[h1 % 8][h2 % 8] = true;
			if (a == 1024)
				same_crc += sw_flow_hash(SW_HASH_CRC32, s1, &f, 8) % 8 == sw_flow_hash(SW_HASH_CRC32, s2, &f, 8) % 8;
		}
		total += paths;
		worst = paths < worst ? paths : worst;
	}
	cr_assert_geq(worst, 48, "the worst pair of switches gives a flow %u of 64 paths", worst);
	cr_assert_geq(total, 64 * 55, "a flow reaches %u of 64 paths on average (128 values at random: 56.8)",
		      total / 64);
	cr_assert_eq(same_crc, 128, "crc32 (no salt): the same member at both switches");
}

Test(sw_ecmp, dpr_member_is_low_9_bits_of_destination_minus_1_mod_set_size)
{
	struct rig *r = rig_alloc();
	const uint32_t set[4] = { 1, 2, 3, 4 };
	const uint32_t dst = 0x0a000103u; /* 10.0.1.3: (dst - 1) & 0x1ff = 0x102 = 258; 258 mod 4 = 2 */

	setp(r, NULL, "EcmpHashMethod", "dpr");
	rig_start(r, 5, 0, 1);
	cr_assert_eq(sw_route_add(r->sw, dst, set, 4), 0);
	for (uint16_t sp = 0; sp < 16; sp++) {
		struct wire_pkt f = flow(0x0a000001u + sp, dst, sp);

		cr_assert_eq(sw_flow_hash(SW_HASH_DPR, sw_ecmp_salt(1), &f, 4), 258);
		rx(r, 0, data(r, dst, 0, WIRE_ECN_ECT1, 1000, sp, sp), 0);
	}
	run(r);
	cr_assert_eq(r->sink[3].n, 16, "every flow to one destination takes member 2, port 3");
	rig_free(r);

	/* dprWithFallback: the index when it is below the set size, else the unsalted CRC */
	struct wire_pkt a = flow(1, 0x0a000005u, 99), b = flow(1, 0x0a000014u, 99);

	cr_assert_eq(sw_flow_hash(SW_HASH_DPR_FALLBACK, 7, &a, 8), 4);
	cr_assert_eq(sw_flow_hash(SW_HASH_DPR_FALLBACK, 7, &b, 8), sw_flow_hash(SW_HASH_CRC32, 0, &b, 8),
		     "19 is not below 8");
	cr_assert_eq(sw_flow_hash(SW_HASH_DPR_FALLBACK, 7, &b, 32), 19);
}

/* The member pick's remainder without a division equals a % n, edge cases included. */
Test(sw_ecmp, fastmod_is_the_remainder)
{
	static const uint32_t ns[] = { 1, 2, 3, 4, 5, 7, 16, 31, 64, 100, 1000, 65535, 65536, 1u << 31, UINT32_MAX };
	struct emu_rng g;

	emu_rng_init(&g, 18760, 3);
	for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
		uint64_t m = UINT64_MAX / ns[k] + 1;

		cr_assert_eq(sw_fastmod(0, m, ns[k]), 0);
		cr_assert_eq(sw_fastmod(UINT32_MAX, m, ns[k]), UINT32_MAX % ns[k]);
		for (int i = 0; i < 20000; i++) {
			uint32_t a = (uint32_t)emu_rng_next(&g);

			cr_assert_eq(sw_fastmod(a, m, ns[k]), a % ns[k], "%u %% %u", a, ns[k]);
		}
	}
}

/* Routes: a direct table while destinations are dense (growing up and down), a hash once they are not. */
Test(sw_route, dense_tables_grow_both_ways_and_scattered_addresses_turn_to_a_hash)
{
	struct rig *r = rig_alloc();
	const uint32_t a = 0, b = 1, base = 0x0a000080u; /* near the rig's own 10.0.0.1 and .2 */

	rig_start(r, 2, 0, 3);
	for (uint32_t i = 0; i < 300; i++) /* up from base, then down from it */
		cr_assert_eq(sw_route_add(r->sw, base + i, i % 2 ? &a : &b, 1), 0);
	for (uint32_t i = 1; i <= 100; i++)
		cr_assert_eq(sw_route_add(r->sw, base - i, &a, 1), 0);
	cr_assert_null(r->sw->routes, "402 routes over 428 addresses stay in the direct table");
	cr_assert_eq(sw_route_add(r->sw, base - 100, &b, 1), -EEXIST);
	for (uint32_t i = 0; i < 300; i++)
		cr_assert_eq(r->sw->sets[sw_route_set(r->sw, base + i)].ports[0], i % 2 ? a : b);
	for (uint32_t i = 0; i < 100; i++)
		cr_assert_eq(r->sw->sets[sw_route_set(r->sw, base - 1 - i)].ports[0], a);
	cr_assert_eq(sw_route_set(r->sw, base - 101), SW_NIL);
	cr_assert_eq(sw_route_set(r->sw, base + 300), SW_NIL);
	cr_assert_eq(sw_route_add(r->sw, 0xc0a80001u, &b, 1), 0); /* far away: a hash from now on */
	cr_assert_not_null(r->sw->routes);
	cr_assert_eq(r->sw->sets[sw_route_set(r->sw, 0xc0a80001u)].ports[0], b);
	for (uint32_t i = 0; i < 300; i++)
		cr_assert_eq(r->sw->sets[sw_route_set(r->sw, base + i)].ports[0], i % 2 ? a : b);
	cr_assert_eq(sw_route_set(r->sw, 0xc0a80002u), SW_NIL);
	cr_assert_eq(sw_route_add(r->sw, base, &a, 1), -EEXIST);
	rig_free(r);
}

Test(sw_ecmp, member_is_flow_hash_mod_set_size_and_sets_are_shared)
{
	struct rig *r = rig_alloc();
	const uint32_t set[4] = { 1, 2, 3, 4 }, other[2] = { 4, 3 };
	const uint32_t node = 7, dst = 0x0a000163u;
	int expect[5] = { 0 };

	rig_start(r, 5, 0, node);
	cr_assert_eq(sw_route_add(r->sw, dst, set, 4), 0);
	cr_assert_eq(sw_route_add(r->sw, dst + 1, set, 4), 0);
	cr_assert_eq(sw_route_add(r->sw, dst + 2, other, 2), 0);
	cr_assert_eq(sw_route_add(r->sw, dst, set, 4), -EEXIST);
	cr_assert_eq(sw_ecmp_set_count(r->sw), 5 + 2, "one per host port, one shared by dst and dst+1, one more");
	for (uint16_t sp = 0; sp < 64; sp++) {
		struct wire_pkt f = flow(0x0a0000feu, dst, sp);

		f.dport = WIRE_UDP_PORT_UET;
		expect[set[sw_flow_hash(SW_HASH_CRC32_SALT, sw_ecmp_salt(node), &f, 4) % 4]]++;
		rx(r, 0, data(r, dst, 0, WIRE_ECN_ECT1, 1000, sp, sp), 0);
	}
	run(r);
	for (int port = 1; port <= 4; port++) {
		cr_assert_eq(r->sink[port].n, expect[port], "port %d", port);
		cr_assert_gt(expect[port], 0, "64 flows spread over 4 members");
	}
	struct sw_ecmp_member_stats ms;
	struct sw_ecmp_set_info si;

	cr_assert_eq(sw_ecmp_set_info(r->sw, 5, &si), 0);
	cr_assert_eq(si.n, 4);
	cr_assert(si.seen);
	cr_assert_eq(si.flow_table_slots, 0, "none: no flow table");
	cr_assert_eq(sw_ecmp_member_stats(r->sw, 5, 0, &ms), 0);
	cr_assert_eq(ms.packets, (uint64_t)expect[1]);
	cr_assert_eq(ms.bytes, 1000 * (uint64_t)expect[1]);
	cr_assert_eq(sw_ecmp_set_info(r->sw, 6, &si), 0);
	cr_assert(!si.seen);
	rig_free(r);
}

/* ---- flowlets ---- */

static uint32_t member_of(struct rig *r, uint32_t set, uint32_t port)
{
	struct sw_ecmp_set_info si;

	sw_ecmp_set_info(r->sw, set, &si);
	for (uint32_t m = 0; m < si.n; m++)
		if (si.ports[m] == port)
			return m;
	cr_assert_fail("port %u is not in set %u", port, set);
	return 0;
}

static struct sw_ecmp_member_stats mstats(struct rig *r, uint32_t set, uint32_t m)
{
	struct sw_ecmp_member_stats ms;

	cr_assert_eq(sw_ecmp_member_stats(r->sw, set, m, &ms), 0);
	return ms;
}

#define LB_DST 0x0a000163u

static struct rig *flowlet_rig(const char *gap, const char *aware)
{
	struct rig *r = rig_alloc();
	const uint32_t set[2] = { 1, 2 };

	setp(r, NULL, "LoadBalancingMethod", "flowlet");
	setp(r, "LoadBalancingFlowlet", "Gap", gap);
	setp(r, "LoadBalancingFlowlet", "PFCAware", aware);
	rig_start(r, 3, 0, 1);
	cr_assert_eq(sw_route_add(r->sw, LB_DST, set, 2), 0); /* set 3 */
	return r;
}

static uint32_t last_port(struct rig *r, uint64_t uid)
{
	for (uint32_t port = 1; port <= 2; port++)
		for (int i = 0; i < r->sink[port].n; i++)
			if (r->sink[port].f[i].uid == uid)
				return port;
	cr_assert_fail("uid %llu not delivered", (unsigned long long)uid);
	return 0;
}

Test(sw_flowlet, flow_keeps_its_member_inside_the_gap_and_moves_after_it)
{
	struct rig *r = flowlet_rig("10us", "false");
	const emu_ps_t us = EMU_PS_PER_US;

	rx(r, 0, data(r, LB_DST, 0, WIRE_ECN_ECT1, 4000, 5, 1), 0);
	struct sw_ecmp_set_info si;

	sw_ecmp_set_info(r->sw, 3, &si);
	cr_assert_eq(si.flow_table_slots, 512);
	uint32_t first = occ(r, 1).egress[0] ? 1 : 2, other = 3 - first;

	cr_assert_eq(mstats(r, 3, member_of(r, 3, first)).assignments, 1, "an empty slot: an assignment");
	rx(r, first, pfc(r, 0, 65535), 0); /* the flow's member now holds what it gets */
	rx(r, 0, data(r, LB_DST, 0, WIRE_ECN_ECT1, 4000, 5, 2), 1 * us);
	rx(r, 0, data(r, LB_DST, 0, WIRE_ECN_ECT1, 4000, 5, 3), 2 * us);
	rx(r, 0, data(r, LB_DST, 0, WIRE_ECN_ECT1, 4000, 5, 4), 11999999); /* 9.999999 us after the last: kept */
	cr_assert_eq(occ(r, first).egress[0], 12000, "inside the gap the flow stays, however full its member");
	rx(r, 0, data(r, LB_DST, 0, WIRE_ECN_ECT1, 4000, 5, 5), 21999999); /* exactly Gap after the last */
	cr_assert_eq(occ(r, other).egress[0] + occ(r, other).egress[1], 4000, "moved to the emptier member");
	cr_assert_eq(mstats(r, 3, member_of(r, 3, first)).movements_out, 1);
	cr_assert_eq(mstats(r, 3, member_of(r, 3, other)).movements_in, 1);
	cr_assert_eq(C(r)[SW_C_FLOWLET_MOVES], 1);
	run(r);
	cr_assert_eq(last_port(r, 5), other);
	cr_assert_eq(last_port(r, 4), first);
	rig_free(r);
}

Test(sw_flowlet, gap_zero_selects_a_member_for_every_packet)
{
	struct rig *r = flowlet_rig("0s", "true");

	for (uint64_t i = 1; i <= 4; i++)
		rx(r, 0, data(r, LB_DST, 0, WIRE_ECN_ECT1, 4000, 5, i), 0);
	run(r);
	/* m, then the other (empty), stay there while it ties at the least, then back: m, o, o, m */
	uint32_t m = last_port(r, 1);

	cr_assert_eq(last_port(r, 2), 3 - m);
	cr_assert_eq(last_port(r, 3), 3 - m);
	cr_assert_eq(last_port(r, 4), m);
	cr_assert_eq(C(r)[SW_C_FLOWLET_ASSIGNMENTS], 1);
	cr_assert_eq(C(r)[SW_C_FLOWLET_MOVES], 2);
	rig_free(r);
}

/* A source port whose flow slot differs from @p avoid's. */
static uint16_t other_slot_sport(uint16_t avoid)
{
	struct wire_pkt a = flow(0x0a0000feu, LB_DST, avoid);
	uint16_t ha = sw_flow_hash(SW_HASH_CRC32_SALT, sw_ecmp_salt(1), &a, 2);

	for (uint16_t sp = (uint16_t)(avoid + 1);; sp++) {
		struct wire_pkt b = flow(0x0a0000feu, LB_DST, sp);

		if (sw_flow_hash(SW_HASH_CRC32_SALT, sw_ecmp_salt(1), &b, 2) % 512 != ha % 512)
			return sp;
	}
}

/* Port 1 paused for TC0 and empty; port 2 holding a 4,000 B TC1 packet its peer has paused. */
static struct rig *pfc_aware_rig(const char *aware)
{
	struct rig *r = flowlet_rig("100us", aware);

	rx(r, 2, pfc(r, 1, 65535), 0);
	rx(r, 0, data(r, host_ip(2), 8, WIRE_ECN_ECT1, 4000, 777, 100), 0); /* a host route straight to port 2 */
	rx(r, 1, pfc(r, 0, 65535), 0);
	cr_assert_eq(occ(r, 2).egress[1], 4000);
	return r;
}

Test(sw_flowlet, pfc_aware_prefers_unpaused_members_unless_all_are_paused)
{
	struct rig *r = pfc_aware_rig("true");
	uint16_t sp1 = 5, sp2 = other_slot_sport(sp1);
	uint32_t m1 = member_of(r, 3, 1), m2 = member_of(r, 3, 2);

	/* port 1 is emptier, but PFC pauses it for TC0: the flow goes to port 2 */
	rx(r, 0, data(r, LB_DST, 0, WIRE_ECN_ECT1, 4000, sp1, 1), 1000);
	cr_assert_eq(mstats(r, 3, m1).paused_skips, 1);
	cr_assert_eq(mstats(r, 3, m2).assignments, 1);
	cr_assert_eq(mstats(r, 3, m2).paused_selections, 0);
	/* inside its gap the flow stays on port 2 even once PFC pauses it there */
	rx(r, 2, pfc(r, 0, 65535), 2000);
	rx(r, 0, data(r, LB_DST, 0, WIRE_ECN_ECT1, 4000, sp1, 2), 3000);
	cr_assert_eq(occ(r, 2).egress[0], 8000);
	/* every member paused for TC0: all are candidates; the emptier port 1 is a paused selection */
	rx(r, 0, data(r, LB_DST, 0, WIRE_ECN_ECT1, 4000, sp2, 3), 4000);
	cr_assert_eq(mstats(r, 3, m1).paused_selections, 1);
	cr_assert_eq(mstats(r, 3, m1).paused_skips, 1, "no skip when every member is paused");
	run(r);
	cr_assert_eq(last_port(r, 1), 2);
	cr_assert_eq(last_port(r, 2), 2);
	cr_assert_eq(last_port(r, 3), 1);
	rig_free(r);

	/* PFCAware false: the least occupancy alone decides, paused or not */
	r = pfc_aware_rig("false");
	rx(r, 0, data(r, LB_DST, 0, WIRE_ECN_ECT1, 4000, sp1, 1), 1000);
	cr_assert_eq(mstats(r, 3, m1).paused_selections, 1);
	run(r);
	cr_assert_eq(last_port(r, 1), 1);
	rig_free(r);
}

/* The ports 32 new flows (each its own flow slot, each arriving with both members empty, so every choice is a tie)
 * are placed on by a flowlet switch of run number @p run_no. */
static uint32_t tie_pattern(uint64_t run_no)
{
	struct rig *r = rig_alloc();
	const uint32_t set[2] = { 1, 2 };
	bool used[512] = { false };
	uint32_t pat = 0;
	uint16_t sp = 1;

	setp(r, NULL, "LoadBalancingMethod", "flowlet");
	r->run = run_no;
	rig_start(r, 3, 0, 1);
	cr_assert_eq(sw_route_add(r->sw, LB_DST, set, 2), 0);
	for (uint64_t i = 0; i < 32; i++, sp++) {
		struct wire_pkt f = flow(0x0a0000feu, LB_DST, sp);

		while (used[sw_flow_hash(SW_HASH_CRC32_SALT, sw_ecmp_salt(1), &f, 2) % 512])
			f = flow(0x0a0000feu, LB_DST, ++sp);
		used[sw_flow_hash(SW_HASH_CRC32_SALT, sw_ecmp_salt(1), &f, 2) % 512] = true;
		/* 1 us apart: the 4,000 B packet before has left (80 ns on the wire), both members are empty again */
		rx(r, 0, data(r, LB_DST, 0, WIRE_ECN_ECT1, 4000, sp, i + 1), i * EMU_PS_PER_US);
		run(r);
		pat |= (last_port(r, i + 1) == 2 ? 1u : 0u) << i;
	}
	cr_assert_eq(C(r)[SW_C_FLOWLET_ASSIGNMENTS], 32);
	rig_free(r);
	return pat;
}

/* Switch, Packet handling, Flowlet: a tie is broken "with a draw from a generator seeded from the simulation's
 * seed, the run number, and the switch's node identifier". The draws are exactly those of that stream (member i
 * of the two at the least occupancy for a draw of i), the same run repeats them and another run number changes
 * them (two 32-choice patterns agree by chance once in 2^32). */
Test(sw_flowlet, ties_drawn_from_the_seed_the_run_number_and_the_node_id)
{
	uint32_t want = 0;
	struct emu_rng g;

	emu_rng_init(&g, 18760, sw_flowlet_stream(7, 1));
	for (int i = 0; i < 32; i++)
		want |= (uint32_t)emu_rng_below(&g, 2) << i;
	cr_assert_eq(tie_pattern(7), want, "run 7: %08x, its stream %08x", tie_pattern(7), want);
	cr_assert_eq(tie_pattern(7), tie_pattern(7));
	cr_assert_neq(tie_pattern(1), tie_pattern(2), "runs 1 and 2 draw differently");
	cr_assert_neq(sw_flowlet_stream(1, 1), sw_flowlet_stream(2, 1));
	cr_assert_neq(sw_flowlet_stream(1, 1), sw_flowlet_stream(1, 2));
}

Test(sw_flowlet, only_the_first_128_sets_seen_get_flow_slots)
{
	struct rig *r = rig_alloc();
	uint32_t n = 0;

	setp(r, NULL, "LoadBalancingMethod", "flowlet");
	rig_start(r, 18, 0, 1);
	/* 130 sets of two members (distinct port pairs among ports 1..17) */
	for (uint32_t a = 1; a <= 17 && n < 130; a++)
		for (uint32_t b = a + 1; b <= 17 && n < 130; b++, n++) {
			uint32_t set[2] = { a, b };

			cr_assert_eq(sw_route_add(r->sw, 0x0b000000u + n, set, 2), 0);
		}
	for (uint32_t i = 0; i < n; i++)
		rx(r, 0, data(r, 0x0b000000u + i, 16, WIRE_ECN_ECT1, 1000, 5, i), 0);
	for (uint32_t s = 18; s < 18 + n; s++) {
		struct sw_ecmp_set_info si;

		sw_ecmp_set_info(r->sw, s, &si);
		cr_assert(si.seen);
		cr_assert_eq(si.flow_table_slots, s < 18 + 128 ? 512u : 0u, "set %u", s);
	}
	run(r);
	rig_free(r);
}

/* ---- with two UET NICs ---- */

static void on_done(void *arg, uint64_t cookie, emu_ps_t now)
{
	(void)cookie;
	(void)now;
	(*(int *)arg)++;
}

/* What a tap saw on one link: frames each way, and those whose MACs were not the expected pair. */
struct mac_tap {
	const uint8_t *mac[2];  /* [0] the NIC's, [1] the switch port's */
	uint64_t frames[2], wrong[2];
};

static void mac_tap_fn(void *arg, uint32_t dir, const struct wire_pkt *pkt, emu_ps_t now)
{
	struct mac_tap *t = arg;

	(void)now;
	t->frames[dir]++;
	/* dir 0: NIC -> switch, from the NIC's MAC to the port's; dir 1: the reverse */
	if (memcmp(pkt->src_mac, t->mac[dir], 6) != 0 || memcmp(pkt->dst_mac, t->mac[1 - dir], 6) != 0)
		t->wrong[dir]++;
}

/* Two UET NICs on a two-port switch, one link each (host_ip(0) on port 0, host_ip(1) on port 1). With @p gw each
 * NIC addresses its switch port gw[i] and the port is given its MAC and its peer's; @p tap, if set, watches link i. */
struct nic_rig {
	struct net_part np;
	struct nic_params np_p;
	struct sw_params sp;
	struct port_neigh neigh[2];
	struct nic *nic[2];
	struct net_link link[2];
	struct sw *sw;
	int done;
};

static struct nic_rig *nic_rig_start(const uint8_t (*gw)[6], struct mac_tap *tap)
{
	struct nic_rig *r = calloc(1, sizeof(*r));

	cr_assert_not_null(r);
	cr_assert_eq(net_part_init(&r->np, 1 << 16, 1 << 15), 0);
	nic_params_defaults(&r->np_p);
	sw_params_defaults(&r->sp);
	tfx_neigh_init(r->neigh, 2); /* host i at host_ip(i) */
	struct sw_env se = { .np = &r->np, .params = &r->sp, .node_id = 100, .name = "leaf", .n_ports = 2, .seed = 1 };

	r->sw = sw_create(&se);
	cr_assert_not_null(r->sw);
	for (uint32_t i = 0; i < 2; i++) {
		struct nic_env env = tfx_nic_env(&r->np, &r->np_p, r->neigh, 2, i);

		env.seed = 1;
		env.has_gw = gw != NULL;
		env.hooks = (struct nic_hooks){ .arg = &r->done, .msg_done = on_done };
		if (gw != NULL)
			memcpy(env.gw_mac, gw[i], 6);
		r->nic[i] = nic_create(&env);
		cr_assert_not_null(r->nic[i]);
		struct net_endpoint a = { r->nic[i], &nic_dev_ops, 0, 0 }, b = { r->sw, &sw_dev_ops, i, 0 };

		net_link_init(&r->link[i], &r->np, BPS, DELAY, a, b);
		if (tap != NULL)
			cr_assert_eq(net_link_add_tap(&r->link[i], mac_tap_fn, &tap[i]), 0);
		nic_attach(r->nic[i], &r->link[i].dir[0]);
		sw_attach(r->sw, i, &r->link[i].dir[1], true);
		if (gw != NULL)
			sw_port_mac(r->sw, i, gw[i], r->neigh[i].mac);
		cr_assert_eq(sw_route_add(r->sw, r->neigh[i].ip, &i, 1), 0);
	}
	return r;
}

static void nic_rig_free(struct nic_rig *r)
{
	for (int i = 0; i < 2; i++)
		nic_destroy(r->nic[i]);
	sw_destroy(r->sw);
	net_part_fini(&r->np);
	free(r);
}

Test(sw_nic, two_uet_nics_complete_a_message_through_the_switch)
{
	struct nic_rig *r = nic_rig_start(NULL, NULL);

	cr_assert_eq(nic_post(r->nic[0], r->neigh[1].ip, 1048576, 1, 0), 0);
	emu_sched_run_until(r->np.sched, EMU_PS_NEVER - 1);
	cr_assert_eq(r->done, 1);
	const uint64_t *c = sw_counters(r->sw);

	cr_assert_eq(c[SW_C_FORWARDED], c[SW_C_RX_FRAMES], "every frame forwarded, none dropped");
	cr_assert_eq(c[SW_C_TX_FRAMES], c[SW_C_RX_FRAMES]);
	cr_assert_geq(c[SW_C_FORWARDED], 256 * 2);
	/* uet-nic-transport.md "Worked example: ACK cadence at the defaults": 1 MiB = 256 data packets, 256 ACKs,
	 * one probe and its ACK */
	cr_assert_eq(c[SW_C_FORWARDED], 256 + 256 + 1 + 1);
	struct sw_port_stats sum;

	sw_link_stats(r->sw, &sum, emu_sched_now(r->np.sched));
	cr_assert_eq(sum.rx_bytes, sum.tx_bytes);
	/* same example: 256 x (4,096 + 106) B data + 256 x 78 B ACKs + 62 B probe + 78 B probe ACK = 1,095,820 B */
	cr_assert_eq(sum.rx_bytes, 256 * (4096 + 106) + 256 * 78 + 62 + 78);
	cr_assert_eq(sum.rx_drops + sum.tx_drops, 0);
	nic_rig_free(r);
}

Test(sw_nic, nics_address_their_gateway_and_the_switch_readdresses_each_hop)
{
	static const uint8_t sw_mac[2][6] = { { 2, 1, 0, 0, 0, 0 }, { 2, 1, 0, 0, 0, 1 } };
	struct mac_tap tap[2] = { { .mac = { NULL, sw_mac[0] } }, { .mac = { NULL, sw_mac[1] } } };
	struct nic_rig *r = nic_rig_start(sw_mac, tap);

	for (int i = 0; i < 2; i++)
		tap[i].mac[0] = r->neigh[i].mac;
	cr_assert_eq(nic_post(r->nic[0], r->neigh[1].ip, 65536, 1, 0), 0);
	cr_assert_eq(nic_post(r->nic[0], 0x0b000001u, 4096, 2, 0), -EHOSTUNREACH, "the neighbours still decide");
	emu_sched_run_until(r->np.sched, EMU_PS_NEVER - 1);
	cr_assert_eq(r->done, 1);
	for (int i = 0; i < 2; i++)
		for (int d = 0; d < 2; d++) {
			cr_assert_gt(tap[i].frames[d], 0, "link %d direction %d carried frames", i, d);
			cr_assert_eq(tap[i].wrong[d], 0, "link %d dir %d: every frame NIC <-> its switch port", i, d);
		}
	nic_rig_free(r);
}
