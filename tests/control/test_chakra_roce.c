/* The Chakra workload's receive matching, through control's hooks (control/chakra/ctl_chakra.c), on RoCE NICs
 * (emul/app/app_chakra_qp.c), and on UET NICs (app_chakra_net.c, configs/chakra-dp8.yaml) by the sender's
 * message id: a msg_recv report that names no transfer of the workload exactly (an unknown sender, a queue pair
 * the workload never opened, a number past the 24 bits of the wire) is counted in recv_unmatched and changes nothing; reports for no transfer
 * (msg_sent, msg_done with a cookie the workload never gave) are ignored. configs/chakra-dp8-roce.yaml, run from
 * the source root; no simulation runs (the NICs are never reached on these paths). */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_chakra.h"
#include "nic.h"
#include "roce.h"

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/* The workload of config @p path, started (no simulation runs), its records in a new folder g->dir. */
struct ck_rig {
	struct ctl_config cfg;
	struct ctl_chakra_run *k;
	struct net_part np;
	struct port_nic hosts[8];
	char dir[32];
};

static void rig_start(struct ck_rig *g, const char *path, bool roce)
{
	char err[512] = "";

	for (uint32_t h = 0; h < 8; h++) /* the receive paths never reach a NIC */
		g->hosts[h] = (struct port_nic){.dev = NULL, .ops = roce ? &roce_port_ops : &nic_port_ops};
	cr_assert_eq(ctl_config_load(&g->cfg, path, NULL, 0, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(g->cfg.nic_model, roce ? CTL_NIC_ROCE : CTL_NIC_UET);
	cr_assert_eq(g->cfg.n_hosts, 8);
	cr_assert_eq(ctl_chakra_create(&g->cfg, &g->k, err, sizeof(err)), 0, "%s", err);
	cr_assert_not_null(g->k);
	cr_assert_eq(net_part_init(&g->np, 1 << 12, 1 << 8), 0);
	snprintf(g->dir, sizeof(g->dir), "/tmp/ck-roce-XXXXXX");
	cr_assert_not_null(mkdtemp(g->dir));
	cr_assert_eq(ctl_chakra_start(g->k, g->hosts, &g->np, g->dir, 0, err, sizeof(err)), 0, "%s", err);
}

/* summary.json's Chakra part holds @p want; then the rig is taken down. */
static void rig_end(struct ck_rig *g, const char *want)
{
	char err[512] = "", *json = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&json, &len);

	cr_assert_not_null(f);
	ctl_chakra_json(g->k, f);
	fclose(f);
	cr_expect(strstr(json, want) != NULL, "%s", json);
	cr_expect(strstr(json, "\"ranks_ended\":0") != NULL, "%s", json);
	free(json);
	cr_expect_eq(ctl_chakra_close(g->k, 0, err, sizeof(err)), 0, "%s", err);
	ctl_chakra_destroy(g->k);
	net_part_fini(&g->np);
	ctl_config_free(&g->cfg);
	nftw(g->dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

Test(ctl_chakra_roce, reports_naming_no_transfer_are_counted_never_trusted)
{
	static struct ck_rig g;
	struct ctl_chakra_run *k;

	rig_start(&g, "configs/chakra-dp8-roce.yaml", true);
	k = g.k;
	ctl_chakra_roce_recv(k, 1, 0x0b000001, 1, 1, 100, 10);             /* a sender that is no host */
	ctl_chakra_roce_recv(k, 1, g.cfg.hosts[0].ip, 1, 1, 100, 10);       /* a queue pair never opened */
	ctl_chakra_roce_recv(k, 1, g.cfg.hosts[0].ip, 0x1000001, 1, 0, 10); /* past 24 bits */
	ctl_chakra_roce_recv(k, 99, g.cfg.hosts[0].ip, 1, 1, 0, 10);        /* a host the run does not have */
	ctl_chakra_roce_recv(k, 1, g.cfg.hosts[0].ip, 0, UINT32_MAX, UINT64_MAX, 10);
	ctl_chakra_sent(k, CTL_CHAKRA_COOKIE | 12345, 10);
	ctl_chakra_done(k, CTL_CHAKRA_COOKIE | 12345, 10);
	ctl_chakra_roce_recv(NULL, 1, g.cfg.hosts[0].ip, 1, 1, 0, 10);      /* no workload: nothing */
	ctl_chakra_sent(NULL, CTL_CHAKRA_COOKIE, 10);
	rig_end(&g, "\"recv_unmatched\":5");
}

/* The same on UET NICs (emul/app/app_chakra_net.c): a message from an address that is no host, or with a message
 * id the sender never posted, is counted; the sender is found by its IP in the map both transports share. */
Test(ctl_chakra_uet, reports_naming_no_transfer_are_counted_never_trusted)
{
	static struct ck_rig g;
	struct ctl_chakra_run *k;

	rig_start(&g, "configs/chakra-dp8.yaml", false);
	k = g.k;
	ctl_chakra_recv(k, 1, 0x0b000001, 1, 100, 10);         /* a sender that is no host */
	ctl_chakra_recv(k, 1, g.cfg.hosts[0].ip, 1, 100, 10);  /* a message id host0 never posted */
	ctl_chakra_recv(k, 1, g.cfg.hosts[0].ip, 0, 0, 10);    /* nor id 0 */
	ctl_chakra_recv(k, 0, g.cfg.hosts[7].ip, 65536, 0, 10); /* the receiver sees id 0 (16 bits) */
	ctl_chakra_sent(k, CTL_CHAKRA_COOKIE | 12345, 10);
	ctl_chakra_done(k, CTL_CHAKRA_COOKIE | 12345, 10);
	ctl_chakra_recv(NULL, 1, g.cfg.hosts[0].ip, 1, 0, 10); /* no workload: nothing */
	rig_end(&g, "\"recv_unmatched\":4");
}
