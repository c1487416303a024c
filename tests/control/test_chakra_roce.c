/* The Chakra workload's receive matching on RoCE NICs (control/chakra/ctl_chakra_roce.c): a msg_recv report that
 * names no transfer of the workload exactly (an unknown sender, a queue pair the workload never opened, a number
 * past the 24 bits of the wire) is counted in recv_unmatched and changes nothing; reports for no transfer
 * (msg_sent, msg_done with a cookie the workload never gave) are ignored. configs/chakra-dp8-roce.yaml, run from
 * the source root; no simulation runs (the NICs are never reached on these paths). */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_chakra.h"

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

Test(ctl_chakra_roce, reports_naming_no_transfer_are_counted_never_trusted)
{
	static struct ctl_config cfg;
	struct ctl_chakra_run *k = NULL;
	struct roce *roces[8] = {NULL}; /* the receive paths never reach a NIC */
	struct net_part np;
	char err[512] = "", dir[] = "/tmp/ck-roce-XXXXXX", *json = NULL;
	size_t len = 0;
	FILE *f;

	cr_assert_eq(ctl_config_load(&cfg, "configs/chakra-dp8-roce.yaml", NULL, 0, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(cfg.nic_model, CTL_NIC_ROCE);
	cr_assert_eq(ctl_chakra_create(&cfg, &k, err, sizeof(err)), 0, "%s", err);
	cr_assert_not_null(k);
	cr_assert_eq(net_part_init(&np, 1 << 12, 1 << 8), 0);
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(ctl_chakra_start(k, NULL, roces, &np, dir, 0, err, sizeof(err)), 0, "%s", err);

	ctl_chakra_roce_recv(k, 1, 0x0b000001, 1, 1, 100, 10);           /* a sender that is no host */
	ctl_chakra_roce_recv(k, 1, cfg.hosts[0].ip, 1, 1, 100, 10);       /* a queue pair never opened */
	ctl_chakra_roce_recv(k, 1, cfg.hosts[0].ip, 0x1000001, 1, 0, 10); /* past 24 bits */
	ctl_chakra_roce_recv(k, 99, cfg.hosts[0].ip, 1, 1, 0, 10);        /* a host the run does not have */
	ctl_chakra_roce_recv(k, 1, cfg.hosts[0].ip, 0, UINT32_MAX, UINT64_MAX, 10);
	ctl_chakra_sent(k, CTL_CHAKRA_COOKIE | 12345, 10);
	ctl_chakra_done(k, CTL_CHAKRA_COOKIE | 12345, 10);
	ctl_chakra_roce_recv(NULL, 1, cfg.hosts[0].ip, 1, 1, 0, 10);      /* no workload: nothing */
	ctl_chakra_sent(NULL, CTL_CHAKRA_COOKIE, 10);

	f = open_memstream(&json, &len);
	cr_assert_not_null(f);
	ctl_chakra_json(k, f);
	fclose(f);
	cr_expect(strstr(json, "\"recv_unmatched\":5") != NULL, "%s", json);
	cr_expect(strstr(json, "\"ranks_ended\":0") != NULL, "%s", json);
	free(json);
	cr_expect_eq(ctl_chakra_close(k, 0, err, sizeof(err)), 0, "%s", err);
	ctl_chakra_destroy(k);
	net_part_fini(&np);
	ctl_config_free(&cfg);
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}
