/* Tests of a link whose ends are in two partitions (net_link_parts, net_cross_fn, net_dir_arrive): the sender's
 * partition serializes and frees, the frame crosses by value with its arrival time, the receiver's partition
 * delivers it then (or at once when that time has passed). */
#include <criterion/criterion.h>
#include <string.h>

#include "net.h"

struct probe {
	uint32_t got, done;
	emu_ps_t got_at, done_at;
	uint32_t seq;
};

static void probe_receive(void *dev, uint32_t port, struct wire_pkt *pkt, emu_ps_t now)
{
	struct probe *p = dev;

	(void)port;
	p->got++;
	p->got_at = now;
	p->seq = pkt->ip_id;
}

static void probe_tx_done(void *dev, uint32_t port, emu_ps_t now)
{
	struct probe *p = dev;

	(void)port;
	p->done++;
	p->done_at = now;
}

static const struct net_dev_ops probe_ops = { .receive = probe_receive, .tx_done = probe_tx_done };

struct crossed {
	uint32_t n;
	struct wire_pkt pkt;
	emu_ps_t at;
	struct net_dir *d;
	struct emu_sched_key k;
};

static void cross(void *arg, struct net_dir *d, const struct wire_pkt *pkt, emu_ps_t at, const struct emu_sched_key *k)
{
	struct crossed *c = arg;

	c->k = *k;
	c->n++;
	c->pkt = *pkt;
	c->at = at;
	c->d = d;
}

Test(net_cross, frame_crosses_by_value_and_arrives_in_the_receivers_partition)
{
	struct net_part pa, pb;
	struct probe a = { 0 }, b = { 0 };
	struct net_link l;
	struct crossed c = { 0 };

	cr_assert_eq(net_part_init(&pa, 64, 16), 0);
	cr_assert_eq(net_part_init(&pb, 64, 16), 0);
	net_link_init(&l, &pa, 100000000000ull, 1000000, (struct net_endpoint){ &a, &probe_ops, 0, 0 },
		      (struct net_endpoint){ &b, &probe_ops, 0, 0 });
	net_link_parts(&l, &pa, &pb);
	l.dir[0].cross = cross;
	l.dir[0].cross_arg = &c;
	struct wire_pkt *p = net_pkt_alloc(&pa);

	p->kind = WIRE_KIND_DATA;
	p->payload_len = 1000;
	p->ip_id = 77;
	emu_ps_t end = net_dir_xmit(&l.dir[0], p, 0);
	cr_assert_eq(c.n, 1);
	cr_assert_eq(c.d, &l.dir[0]);
	cr_assert_eq(c.at, end + 1000000, "arrival = end of serialization + delay");
	cr_assert_eq(c.pkt.ip_id, 77);
	cr_assert_eq(emu_sched_pending(pb.sched), 0, "nothing scheduled in the receiver's partition by the sender");
	emu_sched_run_until(pa.sched, EMU_PS_NEVER - 1);
	cr_assert_eq(a.done, 1);
	cr_assert_eq(a.done_at, end);
	cr_assert_eq(b.got, 0);

	/* the receiver's side: a descriptor of its own, delivered at the arrival time */
	struct wire_pkt *q = net_pkt_alloc(&pb);
	*q = c.pkt;
	cr_assert_eq(net_dir_arrive(c.d, q, c.at), 0);
	emu_sched_run_until(pb.sched, EMU_PS_NEVER - 1);
	cr_assert_eq(b.got, 1);
	cr_assert_eq(b.got_at, c.at);
	cr_assert_eq(b.seq, 77);

	/* late: the receiver's clock has passed the arrival time, so it arrives at once */
	emu_sched_advance(pb.sched, c.at + 5000000);
	q = net_pkt_alloc(&pb);
	*q = c.pkt;
	cr_assert_eq(net_dir_arrive(c.d, q, c.at), 0);
	emu_sched_run_until(pb.sched, EMU_PS_NEVER - 1);
	cr_assert_eq(b.got, 2);
	cr_assert_eq(b.got_at, c.at + 5000000);

	/* the other direction, not crossing here, is scheduled in b's partition and arrives in a's */
	p = net_pkt_alloc(&pb);
	p->kind = WIRE_KIND_ACK;
	net_dir_xmit(&l.dir[1], p, c.at + 5000000);
	cr_assert_eq(emu_sched_pending(pb.sched), 1, "tx_done in the sender's partition");
	cr_assert_eq(emu_sched_pending(pa.sched), 1, "the arrival in the receiver's");
	net_part_fini(&pa);
	net_part_fini(&pb);
}

static void count_tap(void *arg, uint32_t dir, const struct wire_pkt *pkt, emu_ps_t now)
{
	emu_ps_t *seen = arg;

	(void)dir;
	(void)pkt;
	*seen = now;
}

/* A frame from another process's end of the link: the taps see it as it enters, the receiver after the link's
 * serialization and delay, as if the sender were in this process. */
Test(net_cross, frame_from_another_process_takes_the_links_time)
{
	struct net_part np;
	struct probe b = { 0 };
	struct net_link l;
	emu_ps_t seen = 0;

	cr_assert_eq(net_part_init(&np, 64, 16), 0);
	net_link_init(&l, &np, 1000000000ull, 500000, (struct net_endpoint){ 0 },
		      (struct net_endpoint){ &b, &probe_ops, 0, 0 });
	cr_assert_eq(net_link_add_tap(&l, count_tap, &seen), 0);
	struct wire_pkt *p = net_pkt_alloc(&np);

	p->kind = WIRE_KIND_DATA;
	p->payload_len = 1024;
	emu_sched_advance(np.sched, 7000000);
	net_dir_inject_link(&l.dir[0], p, 7000000);
	cr_assert_eq(seen, 7000000, "the taps see it as it enters the link");
	cr_assert_eq(l.dir[0].frames, 1);
	cr_assert_eq(b.got, 0);
	emu_sched_run_until(np.sched, EMU_PS_NEVER - 1);
	cr_assert_eq(b.got, 1);
	/* 1,024 B of payload: a 1,130 B frame on the wire, 9.04 us at 1 Gb/s, then the 0.5 us delay */
	cr_assert_eq(b.got_at, 7000000 + emu_ser_ps(1024 + WIRE_DATA_OVERHEAD, 1000000000ull) + 500000);
	cr_assert_eq(b.got_at, 7000000 + 9040000 + 500000);
	net_part_fini(&np);
}
