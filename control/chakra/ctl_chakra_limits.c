/* What a traceset may not ask for, checked before the simulation (docs/chakra.md, Limits): memory for its prepared
 * traces within simulation.ChakraMemoryLimit; every transfer within what the NIC can carry and no larger than its
 * receive; every duration, and a rank's durations and its sends' wire times together, within the emulated time
 * range; the annotated traces within simulation.RecordSizeLimit. Each refusal names the file, the rank and the
 * node. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ctl_chakra_pvt.h"
#include "nic.h"
#include "roce.h"

#define MB(b) ((double)(b) / 1e6)

int ctl_chakra_limit_memory(struct ctl_chakra_run *k, char *err, size_t errlen)
{
	uint64_t nodes, limit = k->cfg->sim.chakra_memory_limit;
	int rc = app_ck_prep_estimate(&k->set, &k->ck->prep, &nodes);

	if (rc)
		return rc;
	k->mem_estimate = nodes * APP_CK_NODE_COST;
	if (limit && k->mem_estimate > limit) {
		snprintf(err, errlen, "traceset %s: prepared, its %u ranks would hold %" PRIu64 " nodes (collectives "
			 "expanded into their transfers), about %.1f MB, more than simulation.ChakraMemoryLimit "
			 "(%" PRIu64 " B): raise ChakraMemoryLimit, or replay fewer collectives", k->ck->traceset,
			 k->set.n_ranks, nodes, MB(k->mem_estimate), limit);
		return -EINVAL;
	}
	return 0;
}

/* The trace node a prepared node stands for: itself, or for a transfer of a collective, that collective's node. */
static const struct app_ck_node *trace_node(const struct app_ck_trace *t, const struct app_ck_node *n)
{
	if (n->coll_id >= 0 && (n->kind == APP_CK_SEND || n->kind == APP_CK_RECV))
		for (uint32_t i = 0; i < t->n; i++)
			if (t->nodes[i].coll_id == n->coll_id && t->nodes[i].kind == APP_CK_METADATA)
				return &t->nodes[i];
	return n;
}

static int check_send(const struct ctl_chakra_run *k, uint32_t r, const struct app_ck_node *n, uint64_t max,
		      const char *why, char *err, size_t errlen)
{
	const struct app_ck_trace *t = &k->set.ranks[r];
	uint32_t p = (uint32_t)n->peer;
	bool su = k->su_members && k->rank_group[r] != APP_CK_NONE && k->rank_group[r] == k->rank_group[p];

	if (!su && n->bytes > max) { /* a scale-up transfer does not go through the NIC */
		const struct app_ck_node *c = trace_node(t, n);

		if (c != n)
			snprintf(err, errlen, "%s: rank %u: node %" PRIu64 ": its %s of %" PRIu64 " B (comm_size) "
				 "sends %" PRIu64 " B to rank %u in one transfer, more than a message the NIC can carry "
				 "(%" PRIu64 " B: %s)", t->file, r, c->id, app_ck_coll_name(c->coll), c->bytes, n->bytes,
				 p, max, why);
		else
			snprintf(err, errlen, "%s: rank %u: node %" PRIu64 ": a send of %" PRIu64 " B (comm_size) to "
				 "rank %u is more than a message the NIC can carry (%" PRIu64 " B: %s)", t->file, r,
				 n->id, n->bytes, p, max, why);
		return -EINVAL;
	}
	const struct app_ck_node *rv = &k->set.ranks[p].nodes[n->match];

	if (n->coll_id < 0 && rv->has_size && rv->bytes < n->bytes) {
		snprintf(err, errlen, "%s: rank %u: node %" PRIu64 ": a send of %" PRIu64 " B (comm_size) to rank %u "
			 "with tag %" PRId64 " is larger than its receive, node %" PRIu64 " of %s, of %" PRIu64 " B: a "
			 "receive must hold what is sent to it", t->file, r, n->id, n->bytes, p, n->tag, rv->id,
			 k->set.ranks[p].file, rv->bytes);
		return -EINVAL;
	}
	return 0;
}

/* The time @p n (a send of rank @p r) takes on the wire: its bytes at the NIC's DataRate, or at its scale-up group's
 * bandwidth; past the time range when it does not fit 64 bits. */
static unsigned __int128 wire_ps(const struct ctl_chakra_run *k, uint32_t r, const struct app_ck_node *n,
				 uint64_t *bps)
{
	uint32_t p = (uint32_t)n->peer;
	bool su = k->su_members && k->rank_group[r] != APP_CK_NONE && k->rank_group[r] == k->rank_group[p];

	*bps = su ? k->su_groups[k->rank_group[r]].bps :
	       k->cfg->nic_model == CTL_NIC_ROCE ? k->cfg->roce.data_rate_bps : k->cfg->nic.data_rate_bps;
	return *bps ? ((unsigned __int128)n->bytes * 8u * EMU_PS_PER_S + *bps - 1) / *bps : 0;
}

int ctl_chakra_limits(struct ctl_chakra_run *k, char *err, size_t errlen)
{
	bool roce = k->cfg->nic_model == CTL_NIC_ROCE;
	uint32_t mss = roce ? k->cfg->roce.mss : k->cfg->nic.rdma_data_mss;
	uint64_t max = roce ? roce_msg_bytes_max(mss) : nic_msg_bytes_max(mss);
	char why[96];

	snprintf(why, sizeof(why), "%s packets of %s %u B", roce ? "2^23" : "2^31", roce ? "MSS" : "RdmaDataMSS",
		 mss);
	for (uint32_t r = 0; r < k->set.n_ranks; r++) {
		const struct app_ck_trace *t = &k->set.ranks[r];
		emu_ps_t sum = k->cfg->timeline.start_time, d;
		int rc;

		for (uint32_t i = 0; i < t->n; i++) {
			const struct app_ck_node *n = &t->nodes[i];

			if (n->kind == APP_CK_SEND && (rc = check_send(k, r, n, max, why, err, errlen)))
				return rc;
			uint64_t bps;
			unsigned __int128 w = n->kind == APP_CK_SEND ? wire_ps(k, r, n, &bps) : 0;

			/* the rank's sends one after another on its link: the latest its sending can end */
			if (w >= EMU_PS_MAX || emu_ps_add_checked(sum, (emu_ps_t)w, &sum) < 0) {
				snprintf(err, errlen, "%s: rank %u: node %" PRIu64 ": its send of %" PRIu64 " B at %" PRIu64
					 " bit/s takes the rank's durations and transfers from StartTime past the emulated "
					 "time range (2^63 ps, %" PRIu64 " us)", t->file, r, trace_node(t, n)->id, n->bytes,
					 bps, (uint64_t)(EMU_PS_MAX / EMU_PS_PER_US));
				return -EINVAL;
			}
			if (emu_ps_mul_checked(n->dur_us, EMU_PS_PER_US, &d) < 0) {
				snprintf(err, errlen, "%s: rank %u: node %" PRIu64 ": duration_micros %" PRIu64 " is past "
					 "the emulated time range (2^63 ps, %" PRIu64 " us)", t->file, r, n->id, n->dur_us,
					 (uint64_t)(EMU_PS_MAX / EMU_PS_PER_US));
				return -EINVAL;
			}
			/* every duration of the rank one after another, from StartTime: the latest its compute can end */
			if (emu_ps_add_checked(sum, d, &sum) < 0) {
				snprintf(err, errlen, "%s: rank %u: node %" PRIu64 ": its duration_micros %" PRIu64 " takes "
					 "the sum of the rank's durations from StartTime past the emulated time range "
					 "(2^63 ps, %" PRIu64 " us)", t->file, r, n->id, n->dur_us,
					 (uint64_t)(EMU_PS_MAX / EMU_PS_PER_US));
				return -EINVAL;
			}
		}
	}
	return 0;
}

static uint64_t digits(uint64_t v)
{
	uint64_t n = 1;

	while (v >= 10)
		v /= 10, n++;
	return n;
}

static uint64_t sdigits(int64_t v)
{
	return v < 0 ? 1 + digits(-(uint64_t)v) : digits((uint64_t)v);
}

uint64_t ctl_chakra_annot_bytes(const struct ctl_chakra_run *k)
{
	uint64_t b = 0;

	for (uint32_t r = 0; r < k->set.n_ranks; r++) {
		const struct app_ck_trace *t = &k->set.ranks[r];

		b += strlen("{\"rank\":,\"nodes\":[") + digits(r) + strlen("\n]}\n");
		for (uint32_t i = 0; i < t->n; i++) {
			const struct app_ck_node *n = &t->nodes[i];

			/* what annotate() writes, its times fixed width: ,\n{"id":N,"type":K ... ,"s":"13 digits" x 3 } */
			b += (i ? 1 : 0) + strlen("\n{\"id\":,\"type\":") + digits(n->id) + digits(n->kind) +
			     3 * (strlen(",\"s\":\"\"") + 13) + 1;
			if (n->kind == APP_CK_SEND || n->kind == APP_CK_RECV)
				b += strlen(",\"peer\":,\"comm_size\":,\"comm_tag\":") + sdigits(n->peer) +
				     digits(n->bytes) + sdigits(n->tag);
		}
	}
	return b;
}

int ctl_chakra_limit_annot(struct ctl_chakra_run *k, char *err, size_t errlen)
{
	uint64_t limit = k->cfg->sim.record_size_limit, b = ctl_chakra_annot_bytes(k);

	if (limit && b > limit) {
		snprintf(err, errlen, "traceset %s: its annotated traces (post_annotated/, a line per node of its %u "
			 "ranks) would take %" PRIu64 " B, more than simulation.RecordSizeLimit (%" PRIu64 " B): "
			 "raise RecordSizeLimit, or replay a smaller traceset", k->ck->traceset, k->set.n_ranks, b,
			 limit);
		return -EINVAL;
	}
	return 0;
}
