/* The RDMA application's connection setup takes only frames that match an exchange it has outstanding
 * (docs/security.md): forged ConnectRequest, ConnectReply and ReadyToUse frames, from every host to every host,
 * handed to ctl_rdma_cm() as the NICs' cm_recv hook would. configs/rdma-rack.yaml: 4 hosts, 2 connections. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_config.h"
#include "ctl_rdma.h"
#include "net.h"
#include "nic.h"
#include "nic_pair.h"
#include "nic_params.h"

#define US EMU_PS_PER_US
#define RESP_ID 0x80000000u

struct cm_fx {
	struct ctl_config cfg;
	struct ctl_rdma *rd;
	struct net_part np;
	struct nic_params p;
	struct port_neigh neigh[4];
	struct nic *nics[4];
	struct port_nic hosts[4];
	struct net_link link[2];
	char dir[64];
};

static struct cm_fx *fx_new(void)
{
	struct cm_fx *f = calloc(1, sizeof(*f));
	char err[256] = "";

	cr_assert_not_null(f);
	cr_assert_eq(ctl_config_load(&f->cfg, "configs/rdma-rack.yaml", NULL, 0, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(f->cfg.n_hosts, 4);
	cr_assert_eq(ctl_rdma_create(&f->cfg, &f->rd, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(net_part_init(&f->np, 1 << 12, 1 << 12), 0);
	nic_params_defaults(&f->p);
	for (uint32_t i = 0; i < 4; i++) {
		f->neigh[i].ip = f->cfg.hosts[i].ip;
		memcpy(f->neigh[i].mac, f->cfg.hosts[i].mac, 6);
	}
	for (uint32_t i = 0; i < 4; i++) {
		struct nic_env env = tfx_nic_env(&f->np, &f->p, f->neigh, 4, i);
		f->nics[i] = nic_create(&env);
		cr_assert_not_null(f->nics[i]);
		f->hosts[i] = (struct port_nic){ .dev = f->nics[i], .ops = &nic_port_ops };
	}
	for (uint32_t l = 0; l < 2; l++) {
		struct net_endpoint a = { f->nics[2 * l], &nic_dev_ops, 0, 0 }, z = { f->nics[2 * l + 1], &nic_dev_ops, 0, 0 };
		net_link_init(&f->link[l], &f->np, f->p.data_rate_bps, f->p.delay_ps, a, z);
		nic_attach(f->nics[2 * l], &f->link[l].dir[0]);
		nic_attach(f->nics[2 * l + 1], &f->link[l].dir[1]);
	}
	strcpy(f->dir, "/tmp/uetemu-test-rdma-cm-XXXXXX");
	cr_assert_not_null(mkdtemp(f->dir));
	cr_assert_eq(ctl_rdma_start(f->rd, f->hosts, &f->np, f->dir, 0, err, sizeof(err)), 0, "%s", err);
	return f;
}

static void fx_free(struct cm_fx *f)
{
	char cmd[128];

	ctl_rdma_close(f->rd, NULL, 0);
	ctl_rdma_destroy(f->rd);
	for (uint32_t i = 0; i < 4; i++)
		nic_destroy(f->nics[i]);
	net_part_fini(&f->np);
	ctl_config_free(&f->cfg);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	cr_assert_eq(system(cmd), 0);
	free(f);
}

/* The setup field @p key of the summary JSON. */
static unsigned long long setup_field(struct cm_fx *f, const char *key)
{
	char *buf = NULL, pat[64];
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	unsigned long long v = ~0ull;

	ctl_rdma_json(f->rd, m);
	fclose(m);
	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	const char *at = strstr(buf, pat);
	cr_assert_not_null(at, "%s in %s", key, buf);
	cr_assert_eq(sscanf(at + strlen(pat), "%llu", &v), 1);
	free(buf);
	return v;
}

/* Message @p cm from every host to every host, @p times over, at @p now. */
static void forge_all(struct cm_fx *f, const struct wire_cm *cm, int times, emu_ps_t now)
{
	for (int t = 0; t < times; t++)
		for (uint32_t to = 0; to < 4; to++)
			for (uint32_t from = 0; from < 4; from++)
				ctl_rdma_cm(f->rd, to, f->cfg.hosts[from].ip, cm, now);
}

Test(ctl_rdma, forged_ready_to_use_establishes_nothing)
{
	struct cm_fx *f = fx_new();
	const struct wire_cm rtu = { .type = WIRE_CM_RTU, .connection = 0, .local_id = 1, .remote_id = RESP_ID | 1 };

	forge_all(f, &rtu, 1, 15 * US);
	cr_assert_eq(setup_field(f, "established"), 0, "no ConnectReply was sent: a ReadyToUse is refused");
	cr_assert_eq(setup_field(f, "invalid"), 16);
	fx_free(f);
}

Test(ctl_rdma, forged_reply_sets_up_nothing)
{
	struct cm_fx *f = fx_new();
	const struct wire_cm rep = { .type = WIRE_CM_REP, .connection = 0, .local_id = RESP_ID | 1, .remote_id = 1 };

	forge_all(f, &rep, 1, 5 * US); /* before any connection started: no request was sent */
	cr_assert_eq(setup_field(f, "set_up"), 0, "no ConnectRequest was sent: a ConnectReply is refused");
	cr_assert_eq(setup_field(f, "ready_to_use"), 0);
	fx_free(f);
}

Test(ctl_rdma, forged_request_flood_draws_one_reply)
{
	struct cm_fx *f = fx_new();
	const struct wire_cm req = { .type = WIRE_CM_REQ, .connection = 0, .local_id = 1 };

	forge_all(f, &req, 10, 15 * US);
	cr_assert_eq(setup_field(f, "replies"), 1, "10 copies from the Initiator's address in one instant: one reply");
	cr_assert_eq(setup_field(f, "invalid"), 160 - 1, "the other 159 counted invalid");
	forge_all(f, &req, 1, 15 * US + 100 * US);
	cr_assert_eq(setup_field(f, "replies"), 2, "a retry after the timeout is answered");
	fx_free(f);
}
