/* The EAL's lcores for a run spread over several: which there are, launching a loop on a worker, waiting for it. */
#include "dp.h"
#include "dp_pvt.h"

#include <errno.h>
#include <limits.h>
#include <rte_launch.h>
#include <rte_lcore.h>

unsigned dp_lcores(const struct dp_ctx *dp, unsigned *ids, unsigned max)
{
	unsigned n = 0, lc;

	(void)dp;
	if (n < max)
		ids[n] = rte_get_main_lcore();
	n++;
	/* RTE_LCORE_FOREACH_WORKER(lc), spelled out: the macro passes -1 for "from the start" to an unsigned. */
	for (lc = rte_get_next_lcore(UINT_MAX, 1, 0); lc < RTE_MAX_LCORE; lc = rte_get_next_lcore(lc, 1, 0)) {
		if (n < max)
			ids[n] = lc;
		n++;
	}
	return n;
}

int dp_launch(struct dp_ctx *dp, unsigned lcore, int (*fn)(void *), void *arg)
{
	(void)dp;
	return rte_eal_remote_launch(fn, arg, lcore);
}

int dp_wait(struct dp_ctx *dp, unsigned lcore)
{
	(void)dp;
	return rte_eal_wait_lcore(lcore);
}
