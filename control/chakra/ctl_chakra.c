/* The Chakra workload driver: traceset read and prepared before the run, ranks placed on servers (in order, or by
 * a mapping file), one app_ck_run replaying every rank and its transfers carried by emul/app's transports over the
 * hosts' NICs (app_chakra_net.h), which this file binds to the run's NICs and hands the NICs' reports. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_chakra_pvt.h"
#include "ctl_chakra_trace.h"

static void prep_log(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "uetemu: chakra: %s\n", line);
}

/* Without a mapping file: rank 0 on the server with the lowest id (the first emulated host), rank 1 next... */
static int place(struct ctl_chakra_run *k, char *err, size_t errlen)
{
	uint32_t r = 0;

	k->rank_host = calloc(k->set.n_ranks + 1, sizeof(*k->rank_host));
	k->host_rank = malloc((k->cfg->n_hosts + 1) * sizeof(*k->host_rank));
	if (!k->rank_host || !k->host_rank)
		return -ENOMEM;
	for (uint32_t h = 0; h < k->cfg->n_hosts; h++)
		k->host_rank[h] = -1;
	if (k->ck->mapping[0] && k->ck->use_mapping)
		return ctl_chakra_map_read(k, err, errlen);
	for (uint32_t h = 0; h < k->cfg->n_hosts && r < k->set.n_ranks; h++)
		if (!k->cfg->hosts[h].external)
			k->rank_host[r] = h, k->host_rank[h] = (int32_t)r++;
	if (r < k->set.n_ranks) {
		snprintf(err, errlen, "%u ranks but %u servers", k->set.n_ranks, r);
		return -EINVAL;
	}
	return 0;
}

/* The transport's view of the hosts: their addresses, and which of them have no NIC here. */
static int host_arrays(struct ctl_chakra_run *k)
{
	uint32_t n = k->cfg->n_hosts;

	k->host_ip = calloc(n + 1, sizeof(*k->host_ip));
	k->host_external = calloc(n + 1, sizeof(*k->host_external));
	if (!k->host_ip || !k->host_external)
		return -ENOMEM;
	for (uint32_t h = 0; h < n; h++)
		k->host_ip[h] = k->cfg->hosts[h].ip, k->host_external[h] = k->cfg->hosts[h].external;
	return 0;
}

/* The collective records' per-collective state (its per-position array comes when its first transfer is
 * acknowledged, ctl_chakra_rec.c), and the busiest rank's bytes of each collective: each rank's sums are cleared
 * where that rank's sends put them, not over every collective per rank. */
static int colls_init(struct ctl_chakra_run *k)
{
	uint64_t *sum = calloc(k->prep.n_colls + 1, sizeof(*sum));
	uint32_t *touched = NULL;
	uint32_t cap = 0;

	k->colls = calloc(k->prep.n_colls + 1, sizeof(*k->colls));
	if (!sum || !k->colls) {
		free(sum);
		return -ENOMEM;
	}
	for (uint32_t r = 0; r < k->set.n_ranks; r++) {
		const struct app_ck_trace *t = &k->set.ranks[r];
		uint32_t n_touched = 0;

		for (uint32_t i = 0; i < t->n; i++) {
			const struct app_ck_node *n = &t->nodes[i];

			if (n->kind == APP_CK_SEND && n->coll_id >= 0 && !n->sync) {
				if (sum[n->coll_id] == 0) {
					if (n_touched == cap) {
						uint32_t *v = realloc(touched, (cap ? 2 * cap : 64) * sizeof(*v));
						if (!v) {
							free(sum), free(touched);
							return -ENOMEM;
						}
						touched = v, cap = cap ? 2 * cap : 64;
					}
					touched[n_touched++] = (uint32_t)n->coll_id;
				}
				sum[n->coll_id] += n->bytes; /* 0 B sends may list a collective twice: harmless */
			}
			k->tot_bytes += n->kind == APP_CK_SEND && !n->sync ? n->bytes : 0;
			k->tot_sends += n->kind == APP_CK_SEND && !n->sync;
			k->tot_recvs += n->kind == APP_CK_RECV && !n->sync;
			k->tot_comps += n->kind == APP_CK_COMP;
		}
		for (uint32_t j = 0; j < n_touched; j++) {
			uint32_t c = touched[j];

			if (sum[c] > k->colls[c].busiest_bytes)
				k->colls[c].busiest_bytes = sum[c];
			sum[c] = 0;
		}
	}
	free(sum), free(touched);
	return 0;
}

/* Put "CONFIG: applications.N: " before the traceset's or the mapping file's error in @p err, as every config
 * error begins: the user sees which config and application it comes from. */
static void prefix_config(const struct ctl_config *cfg, char *err, size_t errlen)
{
	char pre[PATH_MAX + 32];
	int n = snprintf(pre, sizeof(pre), "%s: applications.%d: ", cfg->path, cfg->chakra_app);
	size_t len = strnlen(err, errlen);

	if (n <= 0 || errlen == 0 || (size_t)n >= errlen)
		return;
	if (len + (size_t)n >= errlen)
		len = errlen - (size_t)n - 1;
	memmove(err + n, err, len);
	memcpy(err, pre, (size_t)n);
	err[len + (size_t)n] = '\0';
}

int ctl_chakra_create(const struct ctl_config *cfg, struct ctl_chakra_run **out, char *err, size_t errlen)
{
	struct ctl_chakra_run *k;
	int rc;

	*out = NULL;
	if (cfg->chakra_app < 0)
		return 0;
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->cfg = cfg;
	k->ck = cfg->apps[cfg->chakra_app].chakra;
	rc = ctl_chakra_load(k->ck->traceset, k->ck->num_files_given ? k->ck->num_files : 0, &k->set,
			     cfg->sim.budget ? cfg->sim.budget->halt : NULL, err, errlen);
	if (!rc && !k->ck->num_files_given) { /* attaching the traceset sets NumOfChakraFiles to its rank count */
		uint32_t servers = 0;

		for (uint32_t h = 0; h < cfg->n_hosts; h++)
			servers += !cfg->hosts[h].external;
		if (k->set.n_ranks != servers) {
			snprintf(err, errlen, "traceset %s has %u ranks, which NumOfChakraFiles (not given: 256, "
				      "the page's default) takes as the traceset is attached, but the topology has %u "
				      "servers; give it exactly as many servers as the traceset has ranks",
				      k->ck->traceset, k->set.n_ranks, servers);
			rc = -EINVAL;
		}
	}
	if (!rc && rec_budget_halted(cfg->sim.budget)) /* a signal while the traces were read: no run */
		rc = -EINTR;
	if (!rc)
		rc = ctl_chakra_limit_memory(k, err, errlen);
	if (!rc)
		rc = app_ck_prepare(&k->set, &k->ck->prep, &k->prep, prep_log, NULL, err, errlen);
	if (!rc && rec_budget_halted(cfg->sim.budget))
		rc = -EINTR;
	if (rc == -EINTR)
		snprintf(err, errlen, "Chakra traceset %s: stopped by a signal while it was loaded; the run did not start",
			 k->ck->traceset);
	if (!rc)
		rc = place(k, err, errlen);
	if (!rc)
		rc = ctl_chakra_limits(k, err, errlen);
	if (!rc)
		rc = ctl_chakra_limit_annot(k, err, errlen);
	if (!rc)
		rc = colls_init(k);
	if (!rc)
		rc = host_arrays(k);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "Chakra traceset %s: out of memory", k->ck->traceset);
	if (rc) {
		prefix_config(cfg, err, errlen);
		ctl_chakra_destroy(k);
		return rc;
	}
	k->start = cfg->timeline.start_time;
	k->stop = cfg->timeline.start_time + cfg->timeline.warm_up + cfg->timeline.run_time + cfg->timeline.cool_down;
	*out = k;
	return 0;
}

uint64_t ctl_chakra_events(const struct ctl_chakra_run *k)
{
	return k ? 4ull * k->set.n_ranks + 1024 + 3ull * k->su_members : 0; /* scale-up: sender, receiver, acks */
}

uint64_t ctl_chakra_host_pdcs(const struct ctl_chakra_run *k, uint32_t host)
{
	uint64_t n = 0;

	if (!k || host >= k->cfg->n_hosts || k->host_rank[host] < 0)
		return 0;
	/* at most every send of the rank open at once, and every receive */
	for (uint32_t i = 0; i < k->set.ranks[k->host_rank[host]].n; i++)
		n += k->set.ranks[k->host_rank[host]].nodes[i].kind == APP_CK_SEND ||
		     k->set.ranks[k->host_rank[host]].nodes[i].kind == APP_CK_RECV;
	return n;
}

bool ctl_chakra_stop(const struct ctl_chakra_run *k, emu_ps_t *stop)
{
	if (!k)
		return false;
	*stop = k->stop;
	return true;
}

bool ctl_chakra_ended(const struct ctl_chakra_run *k, emu_ps_t *end)
{
	if (!k || !k->run || app_ck_run_ended(k->run) < k->set.n_ranks)
		return false;
	*end = k->last_end + k->cfg->sim.beacon_interval;
	return true;
}

uint32_t ctl_chakra_ranks_ended(const struct ctl_chakra_run *k)
{
	return k && k->run ? app_ck_run_ended(k->run) : 0;
}

uint32_t ctl_chakra_ranks(const struct ctl_chakra_run *k)
{
	return k != NULL && k->run != NULL ? k->set.n_ranks : 0;
}

bool ctl_chakra_rank_open(const struct ctl_chakra_run *k, uint32_t rank, uint32_t *host)
{
	if (k == NULL || k->run == NULL || rank >= k->set.n_ranks)
		return false;
	*host = k->rank_host[rank];
	return !app_ck_run_rank(k->run, rank)->ended;
}

void ctl_chakra_done(struct ctl_chakra_run *k, uint64_t cookie, emu_ps_t now)
{
	if (k)
		app_ck_net_done(k->net, cookie, now);
}

void ctl_chakra_sent(struct ctl_chakra_run *k, uint64_t cookie, emu_ps_t now)
{
	if (k)
		app_ck_net_sent(k->net, cookie, now);
}

void ctl_chakra_recv(struct ctl_chakra_run *k, uint32_t host, uint32_t src_ip, uint64_t msg_id, uint64_t bytes,
		     emu_ps_t now)
{
	if (k)
		app_ck_net_recv(k->net, host, src_ip, msg_id, bytes, now);
}

void ctl_chakra_roce_recv(struct ctl_chakra_run *k, uint32_t host, uint32_t src_ip, uint32_t qpn, uint32_t msn,
			  uint64_t bytes, emu_ps_t now)
{
	if (k)
		app_ck_net_recv_qp(k->net, host, src_ip, qpn, msn, bytes, now);
}

static void cb_acked(void *ctx, const struct app_ck_xfer_done *x)
{
	ctl_chakra_rec_perf(ctx, x);
}

static void cb_rank_end(void *ctx, uint32_t rank, const struct app_ck_rank_stats *st)
{
	struct ctl_chakra_run *k = ctx;

	k->last_end = st->end > k->last_end ? st->end : k->last_end;
	ctl_chakra_rec_rank_end(k, rank, st, st->end);
}

static void ev_start(void *a, void *b, emu_ps_t now)
{
	(void)b;
	app_ck_run_start(((struct ctl_chakra_run *)a)->run, now);
}

int ctl_chakra_start(struct ctl_chakra_run *k, const struct port_nic *hosts, struct net_part *np, const char *dir,
		     int64_t epoch_s, char *err, size_t errlen)
{
	struct app_ck_run_cb cb = {cb_acked, cb_rank_end, k};
	bool roce = k && ctl_config_nic_model(k->cfg)->rocev2;
	int rc;

	if (!k)
		return 0;
	k->np = np, k->epoch_s = epoch_s;
	/* how the model's receiver names a message: the UET NIC by the sender's message id (a PDC per transfer), the
	 * RoCE NIC by queue pair and message number (queue pairs reused) */
	struct app_ck_net_params p = {.kind = roce ? APP_CK_NET_CONN_MSN : APP_CK_NET_MSG_ID,
				      .n_hosts = k->cfg->n_hosts, .host_ip = k->host_ip,
				      .external = k->host_external, .n_ranks = k->set.n_ranks,
				      .rank_host = k->rank_host};
	k->net = app_ck_net_create(&p, hosts);
	if (!k->net) {
		snprintf(err, errlen, "out of memory for the Chakra transport over %u %s NICs", k->cfg->n_hosts,
			 roce ? "RoCE" : "UET");
		return -ENOMEM;
	}
	struct app_ck_xport xp = app_ck_net_xport(k->net);

	k->run = app_ck_run_create(&k->set, np->sched, k->ck->trace_family == CTL_CHAKRA_COLLECTED, &xp, &cb);
	if (!k->run) {
		snprintf(err, errlen, "out of memory for the Chakra replay of %u ranks", k->set.n_ranks);
		return -ENOMEM;
	}
	if (k->su_members && (rc = ctl_chakra_su_start(k, np->sched, err, errlen)))
		return rc;
	app_ck_net_bind(k->net, k->run, k->su);
	rc = ctl_chakra_rec_open(k, dir, err, errlen);
	if (rc)
		return rc;
	k->last_end = k->start;
	if (net_sched(np, k->start, ev_start, k, NULL, NULL) < 0) {
		snprintf(err, errlen, "the event scheduler is full: cannot start the Chakra ranks");
		return -ENOSPC;
	}
	ctl_chakra_rec_cdf_start(k);
	return ctl_chakra_rec_prof_start(k, err, errlen);
}

int ctl_chakra_close(struct ctl_chakra_run *k, emu_ps_t end, char *err, size_t errlen)
{
	return k ? ctl_chakra_rec_close(k, end, err, errlen) : 0;
}

void ctl_chakra_destroy(struct ctl_chakra_run *k)
{
	if (!k)
		return;
	app_ck_run_destroy(k->run);
	app_ck_su_destroy(k->su);
	app_ck_net_destroy(k->net);
	free(k->rank_group), free(k->rank_sub), free(k->su_groups), free(k->su_group_ids), free(k->su_prev);
	for (uint32_t c = 0; k->colls && c < k->prep.n_colls; c++)
		free(k->colls[c].first);
	free(k->colls);
	app_ck_prep_fini(&k->prep);
	app_ck_set_fini(&k->set);
	free(k->rank_host), free(k->host_rank), free(k->host_ip), free(k->host_external);
	free(k);
}
