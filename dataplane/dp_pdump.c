/*
 * rte_pdump: lets dpdk-dumpcap (a secondary DPDK process) attach to a running uetemu and capture its ports. A
 * secondary process can only reach the primary's memory when it lives in hugepages, so the server is started only
 * when the EAL runs with hugepages; under --no-huge (uetemu's default) dpdk-dumpcap cannot attach, and uetemu's
 * own captures (captures: dev) are the way to see a port (docs/capture.md).
 */
#include "dp.h"

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_pdump.h>
#include <errno.h>
#include <stdio.h>

int dp_pdump_start(struct dp_ctx *dp, char *err, size_t errlen)
{
	(void)dp;
	if (!rte_eal_has_hugepages())
		return 0;
	if (rte_pdump_init() != 0) {
		snprintf(err, errlen, "rte_pdump_init: %s (dpdk-dumpcap cannot attach)", rte_strerror(rte_errno));
		return -EIO;
	}
	return 1;
}

void dp_pdump_stop(struct dp_ctx *dp)
{
	(void)dp;
	rte_pdump_uninit();
}
