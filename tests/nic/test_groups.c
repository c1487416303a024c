/* PDC groups and the transmit scheduler (issue 3): one sender, 8 receivers behind a zero-latency hub fixture,
 * 64 concurrent messages, with PDCGroupsEnabled true and false. */
#include <criterion/criterion.h>
#include <string.h>

#include "net.h"
#include "nic.h"
#include "nic_pair.h"
#include "nic_params.h"

#define NDST 8
#define NMSG 64
#define MAXF 40000

struct hub {
	struct net_part np;
	struct nic_params p;
	struct port_neigh neigh[NDST + 1];
	struct nic *nic[NDST + 1];     /* 0: the sender; 1..8: the receivers */
	struct net_link link[NDST + 1];
	uint16_t order[MAXF];          /* sender PDC id of each data frame, in wire order (first transmissions) */
	uint16_t sport[MAXF];          /* and its UDP source port, the entropy value */
	int n_order;
	uint64_t max_group_flight;
	int done;
	emu_ps_t done_at[NMSG];
};

/* The hub forwards every frame at once to the NIC that owns its destination address. */
static void hub_receive(void *dev, uint32_t port, struct wire_pkt *pkt, emu_ps_t now)
{
	struct hub *h = dev;

	(void)port;
	for (int i = 0; i <= NDST; i++)
		if (h->neigh[i].ip == pkt->dst_ip) {
			nic_dev_ops.receive(h->nic[i], 0, pkt, now);
			return;
		}
	net_pkt_free(&h->np, pkt);
}

static const struct net_dev_ops hub_ops = { .receive = hub_receive, .tx_done = NULL };

static void tap(void *arg, uint32_t dir, const struct wire_pkt *pkt, emu_ps_t now)
{
	struct hub *h = arg;

	(void)now;
	if (dir == 0 && pkt->kind == WIRE_KIND_DATA && !(pkt->pds.flags & WIRE_REQ_F_RETX) && h->n_order < MAXF) {
		h->sport[h->n_order] = pkt->sport;
		h->order[h->n_order++] = pkt->pds.spdcid;
	}
}

static void on_trace(void *arg, const struct nic_trace *t)
{
	struct hub *h = arg;

	if (t->fep_id == 0 && t->has_sender_state && t->bytes_in_flight > h->max_group_flight)
		h->max_group_flight = t->bytes_in_flight;
}

static void on_done(void *arg, uint64_t cookie, emu_ps_t now)
{
	struct hub *h = arg;

	h->done++;
	h->done_at[cookie] = now;
}

static struct hub *hub_new_spray(bool groups, emu_ps_t delay, int spraying)
{
	struct hub *h = calloc(1, sizeof(*h));

	cr_assert_eq(net_part_init(&h->np, 1 << 18, 1 << 16), 0);
	nic_params_defaults(&h->p);
	h->p.pdc_groups_enabled = groups;
	h->p.spraying = (uint8_t)spraying;
	h->p.nscc_enable = false; /* the window stays at its maximum: these tests are about turns and sharing */
	tfx_neigh_init(h->neigh, NDST + 1);
	for (int i = 0; i <= NDST; i++) {
		struct nic_env env = tfx_nic_env(&h->np, &h->p, h->neigh, NDST + 1, (uint32_t)i);

		env.trace = i == 0;
		env.hooks = (struct nic_hooks){ .arg = h, .msg_done = on_done, .trace = on_trace };
		h->nic[i] = nic_create(&env);
		struct net_endpoint n = { h->nic[i], &nic_dev_ops, 0, 0 }, x = { h, &hub_ops, (uint32_t)i, 0 };
		net_link_init(&h->link[i], &h->np, h->p.data_rate_bps, delay, n, x);
		nic_attach(h->nic[i], &h->link[i].dir[0]);
	}
	net_link_add_tap(&h->link[0], tap, h);
	return h;
}

static struct hub *hub_new(bool groups, emu_ps_t delay)
{
	return hub_new_spray(groups, delay, NIC_SPRAY_DEFAULT);
}

/* Message m (PDC id m + 1) goes to receiver 1 + m / 8: eight messages to each, posted in blocks. */
static void hub_run(struct hub *h)
{
	for (int m = 0; m < NMSG; m++)
		cr_assert_eq(nic_post(h->nic[0], h->neigh[1 + m / 8].ip, 256 * 1024, (uint64_t)m, 0), 0);
	emu_sched_run_until(h->np.sched, EMU_PS_NEVER - 1);
}

static void hub_free(struct hub *h)
{
	for (int i = 0; i <= NDST; i++)
		nic_destroy(h->nic[i]);
	net_part_fini(&h->np);
	free(h);
}

Test(nic_groups, groups_on_take_turns_per_destination_then_per_pdc)
{
	struct hub *h = hub_new(true, 100 * EMU_PS_PER_NS);

	hub_run(h);
	/* One ready queue of 8 groups (one per destination, created in posting order); each turn sends one packet
	 * from the group's next PDC. Frame k: group k mod 8, its (k / 8) mod 8-th PDC: message 8 (k mod 8) + (k/8) mod 8. */
	for (int k = 0; k < 512; k++)
		cr_assert_eq(h->order[k], 8 * (k % 8) + (k / 8) % 8 + 1, "frame %d: PDC %u", k, h->order[k]);
	cr_assert_eq(h->done, NMSG);
	hub_free(h);
}

Test(nic_groups, groups_off_take_turns_per_pdc)
{
	struct hub *h = hub_new(false, 100 * EMU_PS_PER_NS);

	hub_run(h);
	/* 64 groups of one PDC each, in posting order: frame k is message k mod 64 */
	for (int k = 0; k < 512; k++)
		cr_assert_eq(h->order[k], k % 64 + 1, "frame %d: PDC %u", k, h->order[k]);
	cr_assert_eq(h->done, NMSG);
	hub_free(h);
}

Test(nic_groups, one_window_per_group)
{
	/* 60 us each way, a round trip of about 120 us (under the 150 us retransmission timeout): with groups the
	 * 450,000 B window binds (8 windows per round trip is 240 Gb/s, below the 400 Gb/s wire), and one window
	 * peaks at 107 nominal packets (447,688 B). */
	struct hub *on = hub_new(true, 60 * EMU_PS_PER_US), *off = hub_new(false, 60 * EMU_PS_PER_US);

	hub_run(on);
	hub_run(off);
	cr_assert_eq(on->max_group_flight, 107 * 4184, "on: %llu", (unsigned long long)on->max_group_flight);
	/* without groups each window holds one 64-packet message, which is spread over the whole 344 us of sending
	 * (one packet per PDC every 64 x 84.04 ns): its window never fills */
	cr_assert_eq(nic_counters(on->nic[0])[NIC_C_NUM_RTX], 0);
	cr_assert_eq(nic_counters(off->nic[0])[NIC_C_NUM_RTX], 0);
	cr_assert_lt(off->max_group_flight, 64 * 4184, "off: %llu", (unsigned long long)off->max_group_flight);
	emu_ps_t on_end = 0, off_end = 0;
	for (int m = 0; m < NMSG; m++) {
		on_end = on->done_at[m] > on_end ? on->done_at[m] : on_end;
		off_end = off->done_at[m] > off_end ? off->done_at[m] : off_end;
	}
	/* 16 MiB is 4,096 packets. With groups on, a round trip moves at most 8 x 107 = 856 of them, so the last
	 * ACK comes after more than 4 full round trips: over 480 us. Without groups the wire is the limit:
	 * 4,096 x 84.04 ns = 344 us of sending plus one round trip, about 465 us. */
	cr_assert_gt(on_end, 480 * EMU_PS_PER_US, "groups on: %llu ps", (unsigned long long)on_end);
	cr_assert_lt(off_end, 470 * EMU_PS_PER_US, "groups off: %llu ps", (unsigned long long)off_end);
	cr_assert_gt(on_end, off_end + 50 * EMU_PS_PER_US, "one window per destination is slower");
	cr_assert_eq(on->done, NMSG);
	cr_assert_eq(off->done, NMSG);
	hub_free(on);
	hub_free(off);
}

/*
 * Multipath, None: "a PDC group uses one entropy value for its whole life: the local UDP port of the PDC that
 * created the group". The workload sets no port, so the NIC gives PDC id n the port 49,152 + (n mod 16,384)
 * (docs/multipath.md). Groups on: destination j's group was created by message 8j's PDC, id 8j + 1, so all its
 * frames carry 49,153 + 8j. Groups off: each PDC is its own group, PDC n's frames carry 49,152 + n.
 */
Test(nic_groups, none_spraying_uses_the_local_port_of_the_pdc_that_created_the_group)
{
	for (int groups = 1; groups >= 0; groups--) {
		struct hub *h = hub_new_spray(groups, 100 * EMU_PS_PER_NS, NIC_SPRAY_NONE);

		hub_run(h);
		cr_assert_eq(h->n_order, NMSG * 64);
		for (int k = 0; k < h->n_order; k++) {
			uint16_t pdc = h->order[k], dst = (uint16_t)((pdc - 1) / 8);
			uint16_t want = (uint16_t)(49152 + (groups ? 8 * dst + 1 : pdc));

			cr_assert_eq(h->sport[k], want, "groups %d, frame %d of PDC %u: port %u, expected %u", groups,
				     k, pdc, h->sport[k], want);
		}
		cr_assert_eq(h->done, NMSG);
		hub_free(h);
	}
}
