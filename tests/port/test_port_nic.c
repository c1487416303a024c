/* Criterion tests of the host-NIC interface (emul/port/port_nic.h): the same test drives a pair of UET NICs and a
 * pair of RoCE NICs through their ops tables alone (attach, post a message, counters, statistics, record rows), and
 * checks each table fills every entry a caller may call. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "emu_sched.h"
#include "nic_pair.h"
#include "port_nic.h"
#include "roce.h"

#define MSG_BYTES (64 * 1024)

/* Two NICs of one model back to back; what their hooks saw. */
struct rig {
	struct net_part np;
	struct nic_params np_uet;
	struct roce_params np_roce;
	struct port_neigh neigh[2];
	struct port_nic h[2];
	struct net_link link;
	int done;
	uint64_t cookie;
};

static void on_done(void *arg, uint64_t cookie, emu_ps_t now)
{
	struct rig *g = arg;

	(void)now;
	g->done++;
	g->cookie = cookie;
}

static void rig_make(struct rig *g, bool roce)
{
	memset(g, 0, sizeof(*g));
	cr_assert_eq(net_part_init(&g->np, 1 << 16, 1 << 15), 0);
	nic_params_defaults(&g->np_uet);
	roce_params_defaults(&g->np_roce);
	tfx_neigh_init(g->neigh, 2);
	for (uint32_t i = 0; i < 2; i++) {
		if (roce) {
			struct roce_env env = { .np = &g->np, .params = &g->np_roce, .fep_id = i, .name = "nic",
						.ip = g->neigh[i].ip, .neigh = g->neigh, .n_neigh = 2, .ctrl_tc = 1,
						.hooks = { .arg = g, .msg_done = on_done } };

			memcpy(env.mac, g->neigh[i].mac, 6);
			g->h[i] = (struct port_nic){ .dev = roce_create(&env), .ops = &roce_port_ops };
		} else {
			struct nic_env env = tfx_nic_env(&g->np, &g->np_uet, g->neigh, 2, i);

			env.hooks = (struct nic_hooks){ .arg = g, .msg_done = on_done };
			g->h[i] = (struct port_nic){ .dev = nic_create(&env), .ops = &nic_port_ops };
		}
		cr_assert_not_null(g->h[i].dev);
	}
	struct net_endpoint a = { .dev = g->h[0].dev, .ops = g->h[0].ops->dev_ops };
	struct net_endpoint z = { .dev = g->h[1].dev, .ops = g->h[1].ops->dev_ops };

	net_link_init(&g->link, &g->np, 100000000000ULL, 100 * EMU_PS_PER_NS, a, z);
	g->h[0].ops->attach(g->h[0].dev, &g->link.dir[0]);
	g->h[1].ops->attach(g->h[1].dev, &g->link.dir[1]);
}

static void rig_free(struct rig *g)
{
	for (int i = 0; i < 2; i++)
		g->h[i].ops->destroy(g->h[i].dev);
	net_part_fini(&g->np);
}

/* One message from host 0 to host 1 through the ops alone; what both ends then say of it, whatever the model. */
static void one_message(bool roce)
{
	struct rig *g = calloc(1, sizeof(*g));
	uint32_t conn = UINT32_MAX;

	cr_assert_not_null(g);
	rig_make(g, roce);
	const struct port_nic *s = &g->h[0], *d = &g->h[1];

	cr_assert_eq(s->ops->post_msg(s->dev, 0x0a0000feu, MSG_BYTES, 7, 0, &conn), -EHOSTUNREACH);
	cr_assert_eq(s->ops->post_msg(s->dev, g->neigh[1].ip, MSG_BYTES, 7, 0, &conn), 0);
	cr_assert_neq(conn, UINT32_MAX);
	emu_sched_run_until(g->np.sched, EMU_PS_NEVER - 1);
	cr_assert_eq(g->done, 1);
	cr_assert_eq(g->cookie, 7);

	struct port_nic_stats ss, ds;

	s->ops->stats(s->dev, &ss, 0);
	d->ops->stats(d->dev, &ds, 0);
	cr_assert_eq(d->ops->rx_payload(d->dev), MSG_BYTES);
	cr_assert_eq(ds.rx_payload_bytes, MSG_BYTES);
	cr_assert_eq(ss.rx_payload_bytes, 0);
	cr_assert_eq(ss.tx_bytes, ds.rx_bytes, "what one sends the other receives: %llu vs %llu",
		     (unsigned long long)ss.tx_bytes, (unsigned long long)ds.rx_bytes);
	cr_assert_eq(ds.tx_bytes, ss.rx_bytes);
	cr_assert_gt(ss.tx_bytes, MSG_BYTES);
	cr_assert_eq(ss.drops + ds.drops + ss.retransmits + ds.retransmits + ss.timeouts + ss.pfc_pauses, 0);

	/* the named counters agree with the figures */
	const uint64_t *c = d->ops->counters(d->dev);
	int rx_payload = -1;

	for (uint32_t k = 0; k < d->ops->n_counters; k++)
		if (strcmp(d->ops->counter_name((int)k), "rx_payload_bytes") == 0)
			rx_payload = (int)k;
	cr_assert_geq(rx_payload, 1);
	cr_assert_eq(c[rx_payload], MSG_BYTES);
	cr_assert_str_eq(d->ops->counter_name(0), "none");
	cr_assert_str_eq(d->ops->counter_name((int)d->ops->n_counters), "unknown");
	cr_assert_str_neq(d->ops->counter_desc(rx_payload), "unknown");

	/* the record rows: the frames each side sent are the frames the other received */
	struct port_nic_rec sr, dr;

	s->ops->rec_row(s->dev, &sr);
	d->ops->rec_row(d->dev, &dr);
	cr_assert_eq(sr.port_tx_frames, dr.port_rx_frames);
	cr_assert_geq(sr.port_tx_frames, MSG_BYTES / 4096, "a data frame per 4,096 B (both models' default MSS)");
	cr_assert_eq(sr.nd_tx_bytes, dr.nd_rx_bytes);

	/* the receive pool gave back what it took; the host link carried the payload to the receiver's host */
	struct port_pool_stats ps;
	struct port_pcie_stats pc;

	d->ops->pool_stats(d->dev, false, 0, &ps);
	cr_assert_gt(ps.num_enq, 0);
	cr_assert_eq(ps.enq_bytes, ps.deq_bytes);
	cr_assert_eq(ps.occupancy, 0);
	port_nic_pcie_stats(d, &pc, EMU_PS_NEVER - 1);
	cr_assert_eq(pc.payload_bytes[0], MSG_BYTES);
	port_nic_pcie_stats(s, &pc, EMU_PS_NEVER - 1);
	cr_assert_eq(pc.payload_bytes[1], MSG_BYTES + 92, "the sender's host wrote the doorbell (64 + 28 B) and the payload");

	cr_assert_eq(s->ops->link_bps(s->dev), 100000000000ULL);
	cr_assert_eq(s->ops->fep_id(s->dev), 0);
	cr_assert_eq(d->ops->fep_id(d->dev), 1);
	cr_assert_str_eq(s->ops->name(s->dev), "nic");
	cr_assert_gt(s->ops->rto_max(s->dev), 0);

	/* a message's receiving end closes once, where the model has such an end */
	if (d->ops->close_rcv != NULL) {
		cr_assert_eq(d->ops->close_rcv(d->dev, g->neigh[0].ip, conn, 0), 0);
		cr_assert_eq(d->ops->close_rcv(d->dev, g->neigh[0].ip, conn, 0), -ENOENT);
	}
	rig_free(g);
	free(g);
}

Test(port_nic, uet_one_message_through_the_ops)
{
	one_message(false);
}

Test(port_nic, roce_one_message_through_the_ops)
{
	one_message(true);
}

/* A connection: open, two messages on it, and (where the model closes connections) close. */
static void connection(bool roce)
{
	struct rig *g = calloc(1, sizeof(*g));
	uint32_t conn;

	cr_assert_not_null(g);
	rig_make(g, roce);
	const struct port_nic *s = &g->h[0];

	cr_assert_eq(s->ops->conn_open(s->dev, g->neigh[1].ip, &conn, 0), 0);
	cr_assert_eq(s->ops->conn_post(s->dev, conn, 4096, 1, 0), 0);
	cr_assert_eq(s->ops->conn_post(s->dev, conn, 4096, 2, 0), 0);
	cr_assert_eq(s->ops->conn_post(s->dev, conn + 1000, 4096, 3, 0), -ENOENT);
	emu_sched_run_until(g->np.sched, EMU_PS_NEVER - 1);
	cr_assert_eq(g->done, 2);
	cr_assert_eq(g->cookie, 2, "messages of a connection complete in posting order");
	cr_assert_eq(g->h[1].ops->rx_payload(g->h[1].dev), 8192);
	if (s->ops->conn_close != NULL) {
		cr_assert_eq(s->ops->conn_close(s->dev, conn, 0), 0);
		cr_assert_eq(s->ops->conn_close(s->dev, conn, 0), -ENOENT);
	}
	rig_free(g);
	free(g);
}

Test(port_nic, uet_connection_through_the_ops)
{
	connection(false);
}

Test(port_nic, roce_connection_through_the_ops)
{
	connection(true);
}

/* Every entry a caller calls without looking is filled; the optional ones as each model documents. */
static void check_table(const struct port_nic_ops *o, uint32_t n_counters)
{
	cr_assert_not_null(o->label);
	cr_assert_not_null(o->component_type);
	cr_assert_not_null(o->nd_component);
	cr_assert_not_null(o->dev_ops);
	cr_assert(o->attach && o->name && o->fep_id && o->link_bps && o->rto_max);
	cr_assert(o->post_msg && o->conn_open && o->conn_post && o->cm_send);
	cr_assert(o->counters && o->counter_name && o->counter_desc && o->stats && o->rx_payload);
	cr_assert(o->pool_stats && o->pool_interval_reset && o->pfcs_off != 0 && o->pcie_off != 0);
	cr_assert(o->rec_row && o->interval_reset && o->destroy);
	cr_assert_eq(o->n_counters, n_counters);
	cr_assert_leq(o->n_counters, PORT_NIC_C_MAX);
	cr_assert_eq(o->n_saved > 0, o->save != NULL && o->load != NULL);
}

Test(port_nic, both_tables_are_filled)
{
	check_table(&nic_port_ops, NIC_C_COUNT);
	check_table(&roce_port_ops, ROCE_C_COUNT);
	cr_assert(nic_port_ops.close_rcv && nic_port_ops.conn_close && nic_port_ops.uet_rx && nic_port_ops.drops);
	cr_assert(!roce_port_ops.close_rcv && !roce_port_ops.conn_close && !roce_port_ops.uet_rx);
	cr_assert(!nic_port_ops.single_lcore && roce_port_ops.single_lcore);
	cr_assert_null(nic_port_ops.json_nic);
	cr_assert_str_eq(roce_port_ops.json_nic, "ScalaRoceNic");
}

/* The counts an MPI rank hands over come back whole on a fresh NIC. */
Test(port_nic, uet_saved_counts_load_on_another_nic)
{
	struct rig *g = calloc(1, sizeof(*g));
	uint32_t conn;

	cr_assert_not_null(g);
	rig_make(g, false);
	const struct port_nic *s = &g->h[0], *d = &g->h[1];
	uint64_t *v = calloc(s->ops->n_saved, sizeof(*v));

	cr_assert_not_null(v);
	cr_assert_eq(s->ops->post_msg(s->dev, g->neigh[1].ip, MSG_BYTES, 7, 0, &conn), 0);
	emu_sched_run_until(g->np.sched, EMU_PS_NEVER - 1);
	d->ops->save(d->dev, v);
	s->ops->load(s->dev, v);
	cr_assert_eq(memcmp(s->ops->counters(s->dev), d->ops->counters(d->dev), NIC_C_COUNT * 8), 0);
	cr_assert_eq(memcmp(s->ops->uet_rx(s->dev), d->ops->uet_rx(d->dev), sizeof(struct nic_uet_rx)), 0);
	cr_assert_eq(s->ops->rx_payload(s->dev), MSG_BYTES);
	free(v);
	rig_free(g);
	free(g);
}
