/* The Chakra scale-up fabric in a run: created from the mapping file's groups (emul/app's app_chakra_su.c is the
 * model), and its nd-stats rows with ScaleUpStatsEnabled (the records page's Scale-up records). */
#include <errno.h>
#include <stdlib.h>

#include "ctl_chakra_pvt.h"
#include "ctl_rec.h"

/* nd-stats columns the NICs' rows share (control/records/ctl_rec_nd.c): interface 0, uplink, the NIC tier. */
#define SU_ND_NAME "ChakraScaleUpNetDevice"
#define SU_ND_TYPE "ChakraScaleUpNic"
#define SU_TIER_NIC 3
#define SU_SUBTIER_NONE 4294967295u

int ctl_chakra_su_start(struct ctl_chakra_run *k, struct emu_sched *s, char *err, size_t errlen)
{
	struct app_ck_su_cfg c = {.n_ranks = k->set.n_ranks, .group = k->rank_group, .subgroup = k->rank_sub,
				  .n_groups = k->n_su_groups, .groups = k->su_groups,
				  .max_payload = k->ck->su_max_payload, .header = k->ck->su_header};

	k->su = app_ck_su_create(&c, s);
	k->su_prev = calloc(k->set.n_ranks + 1, sizeof(*k->su_prev));
	if (!k->su || !k->su_prev) {
		snprintf(err, errlen, "out of memory for the Chakra scale-up fabric of %u ranks", k->su_members);
		return -ENOMEM;
	}
	app_ck_su_bind(k->su, k->run);
	return 0;
}

bool ctl_chakra_su_stats(const struct ctl_chakra_run *k)
{
	return k && k->su_members && k->ck->su_stats;
}

/* A rank's row of nd-stats, in its column table (control/records/ctl_rec_nd.c): rates and utilization exact. */
static void su_row(struct ctl_chakra_run *k, struct rec_csv *csv, uint32_t r, emu_ps_t now, emu_ps_t last)
{
	const struct app_ck_su_stats *st = app_ck_su_stats(k->su, r);
	uint32_t h = k->rank_host[r];
	struct ctl_rec_nd_row row = {
		.name = k->cfg->hosts[h].name, .nd_name = SU_ND_NAME, .type = SU_ND_TYPE, .uldl = "ul", .ifid = 0,
		.node_id = h, .tier = SU_TIER_NIC, .subtier = SU_SUBTIER_NONE, .tx_frames = st->pkts_tx,
		.rx_frames = st->pkts_rx, .tx_bytes = st->bytes_tx, .rx_bytes = st->bytes_rx,
		.dtx = st->bytes_tx - k->su_prev[r][0], .drx = st->bytes_rx - k->su_prev[r][1], .dt = now - last,
		.bps = k->su_groups[k->rank_group[r]].bps, .exact = true,
	};

	ctl_rec_row(csv, &ctl_rec_nd_schema, &row, now);
	k->su_prev[r][0] = st->bytes_tx;
	k->su_prev[r][1] = st->bytes_rx;
}

void ctl_chakra_nd_rows(void *ctx, struct rec_csv *csv, emu_ps_t now, emu_ps_t last)
{
	struct ctl_chakra_run *k = ctx;

	if (!ctl_chakra_su_stats(k) || !k->su || !csv)
		return;
	for (uint32_t h = 0; h < k->cfg->n_hosts; h++) { /* in host order, as the NICs' rows */
		int32_t r = k->host_rank[h];

		if (r >= 0 && k->rank_group[r] != APP_CK_NONE)
			su_row(k, csv, (uint32_t)r, now, last);
	}
}
