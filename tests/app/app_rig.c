/* The workload tests' rig (app_rig.h): two NICs of one model back to back, their reports to the test's hooks. */
#include "app_rig.h"

#include <criterion/criterion.h>
#include <string.h>

#include "nic_pair.h"

static void on_done(void *arg, uint64_t cookie, emu_ps_t now)
{
	struct app_rig *g = arg;

	if (g->h.done)
		g->h.done(g->h.ctx, cookie, now);
}

static void on_sent(void *arg, uint64_t cookie, emu_ps_t now)
{
	struct app_rig *g = arg;

	if (g->h.sent)
		g->h.sent(g->h.ctx, cookie, now);
}

static void on_recv(void *arg, uint32_t fep, uint32_t src_ip, uint64_t msg_id, uint64_t bytes, emu_ps_t now)
{
	struct app_rig *g = arg;

	if (g->h.recv)
		g->h.recv(g->h.ctx, fep, src_ip, msg_id, bytes, now);
}

static void on_roce_recv(void *arg, uint32_t fep, uint32_t src_ip, uint32_t qpn, uint32_t msn, uint64_t bytes,
			 emu_ps_t now)
{
	struct app_rig *g = arg;

	if (g->h.roce_recv)
		g->h.roce_recv(g->h.ctx, fep, src_ip, qpn, msn, bytes, now);
}

static void on_cm(void *arg, uint32_t fep, uint32_t src_ip, const struct wire_cm *cm, emu_ps_t now)
{
	struct app_rig *g = arg;

	if (g->h.cm)
		g->h.cm(g->h.ctx, fep, src_ip, cm, now);
}

void app_rig_init(struct app_rig *g, bool roce, const struct app_rig_hooks *h)
{
	struct net_endpoint a, z;

	memset(g, 0, sizeof(*g));
	if (h)
		g->h = *h;
	cr_assert_eq(net_part_init(&g->np, 1 << 16, 1 << 15), 0);
	nic_params_defaults(&g->up);
	roce_params_defaults(&g->rp);
	tfx_neigh_init(g->neigh, 2);
	for (uint32_t i = 0; i < 2; i++) {
		g->ip[i] = g->neigh[i].ip;
		if (roce) {
			struct roce_env env = { .np = &g->np, .params = &g->rp, .fep_id = i, .name = "nic",
						.ip = g->neigh[i].ip, .neigh = g->neigh, .n_neigh = 2, .data_tc = 0,
						.ctrl_tc = 1,
						.hooks = { .arg = g, .msg_done = on_done, .msg_sent = on_sent,
							   .msg_recv = on_roce_recv, .cm_recv = on_cm } };

			memcpy(env.mac, g->neigh[i].mac, 6);
			g->roce[i] = roce_create(&env);
			cr_assert_not_null(g->roce[i]);
			g->hosts[i] = (struct port_nic){ .dev = g->roce[i], .ops = &roce_port_ops };
		} else {
			struct nic_env env = tfx_nic_env(&g->np, &g->up, g->neigh, 2, i);

			env.hooks = (struct nic_hooks){ .arg = g, .msg_done = on_done, .msg_sent = on_sent,
							.msg_recv = on_recv, .cm_recv = on_cm };
			g->nic[i] = nic_create(&env);
			cr_assert_not_null(g->nic[i]);
			g->hosts[i] = (struct port_nic){ .dev = g->nic[i], .ops = &nic_port_ops };
		}
	}
	if (roce) {
		a = (struct net_endpoint){ .dev = g->roce[0], .ops = &roce_dev_ops };
		z = (struct net_endpoint){ .dev = g->roce[1], .ops = &roce_dev_ops };
		net_link_init(&g->link, &g->np, g->rp.data_rate_bps, g->rp.delay_ps, a, z);
		roce_attach(g->roce[0], &g->link.dir[0]);
		roce_attach(g->roce[1], &g->link.dir[1]);
	} else {
		a = (struct net_endpoint){ .dev = g->nic[0], .ops = &nic_dev_ops };
		z = (struct net_endpoint){ .dev = g->nic[1], .ops = &nic_dev_ops };
		net_link_init(&g->link, &g->np, g->up.data_rate_bps, g->up.delay_ps, a, z);
		nic_attach(g->nic[0], &g->link.dir[0]);
		nic_attach(g->nic[1], &g->link.dir[1]);
	}
}

void app_rig_run(struct app_rig *g, emu_ps_t until)
{
	emu_sched_run_until(g->np.sched, until);
}

void app_rig_fini(struct app_rig *g)
{
	for (uint32_t i = 0; i < 2; i++) {
		nic_destroy(g->nic[i]);
		roce_destroy(g->roce[i]);
	}
	net_part_fini(&g->np);
}
