/* The Chakra workload driver: traceset read and prepared before the run, ranks placed on servers (in order, or by
 * a mapping file), one app_ck_run replaying every rank, transfers posted to the UET NICs as one WRITE each (the
 * RoCE NICs' transport is ctl_chakra_roce.c). */
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
		return ck_map_read(k, err, errlen);
	for (uint32_t h = 0; h < k->cfg->n_hosts && r < k->set.n_ranks; h++)
		if (!k->cfg->hosts[h].external)
			k->rank_host[r] = h, k->host_rank[h] = (int32_t)r++;
	if (r < k->set.n_ranks) {
		snprintf(err, errlen, "%u ranks but %u servers", k->set.n_ranks, r);
		return -EINVAL;
	}
	return 0;
}

/* The collective records' per-collective state, and the busiest rank's bytes of each collective. */
static int colls_init(struct ctl_chakra_run *k)
{
	uint64_t *sum = calloc(k->prep.n_colls + 1, sizeof(*sum));

	k->colls = calloc(k->prep.n_colls + 1, sizeof(*k->colls));
	if (!sum || !k->colls) {
		free(sum);
		return -ENOMEM;
	}
	for (uint32_t c = 0; c < k->prep.n_colls; c++) {
		uint32_t n = k->set.pgs[k->prep.colls[c].pg].n;

		k->colls[c].first = malloc(n * sizeof(emu_ps_t));
		if (!k->colls[c].first) {
			free(sum);
			return -ENOMEM;
		}
		for (uint32_t q = 0; q < n; q++)
			k->colls[c].first[q] = UINT64_MAX;
	}
	for (uint32_t r = 0; r < k->set.n_ranks; r++) {
		const struct app_ck_trace *t = &k->set.ranks[r];

		memset(sum, 0, k->prep.n_colls * sizeof(*sum));
		for (uint32_t i = 0; i < t->n; i++) {
			const struct app_ck_node *n = &t->nodes[i];

			if (n->kind == APP_CK_SEND && n->coll_id >= 0 && !n->sync)
				sum[n->coll_id] += n->bytes;
			k->tot_bytes += n->kind == APP_CK_SEND && !n->sync ? n->bytes : 0;
			k->tot_sends += n->kind == APP_CK_SEND && !n->sync;
			k->tot_recvs += n->kind == APP_CK_RECV && !n->sync;
			k->tot_comps += n->kind == APP_CK_COMP;
		}
		for (uint32_t c = 0; c < k->prep.n_colls; c++)
			if (sum[c] > k->colls[c].busiest_bytes)
				k->colls[c].busiest_bytes = sum[c];
	}
	free(sum);
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
	rc = ctl_chakra_load(k->ck->traceset, k->ck->num_files, &k->set, err, errlen);
	if (!rc)
		rc = app_ck_prepare(&k->set, &k->ck->prep, &k->prep, prep_log, NULL, err, errlen);
	if (!rc)
		rc = place(k, err, errlen);
	if (!rc)
		rc = colls_init(k);
	if (!rc && !(k->posts = calloc(cfg->n_hosts + 1, sizeof(*k->posts))))
		rc = -ENOMEM;
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

/* ---- The map: (sending host, 16-bit message id) -> slot and the CK_KEY_* kinds; linear probing, backward-shift
 * delete. */

static uint32_t mhash(uint64_t key, uint32_t cap)
{
	return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 40) & (cap - 1);
}

static int map_grow(struct ctl_chakra_run *k)
{
	uint32_t cap = k->mcap ? k->mcap * 2 : 1024;
	uint64_t *keys = calloc(cap, sizeof(*keys));
	uint32_t *vals = calloc(cap, sizeof(*vals));

	if (!keys || !vals) {
		free(keys), free(vals);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < k->mcap; i++)
		if (k->mkeys[i]) {
			uint32_t j = mhash(k->mkeys[i], cap);

			while (keys[j])
				j = (j + 1) & (cap - 1);
			keys[j] = k->mkeys[i], vals[j] = k->mvals[i];
		}
	free(k->mkeys), free(k->mvals);
	k->mkeys = keys, k->mvals = vals, k->mcap = cap;
	return 0;
}

long ck_map_find(const struct ctl_chakra_run *k, uint64_t key)
{
	for (uint32_t j = k->mcap ? mhash(key, k->mcap) : 0; k->mcap && k->mkeys[j]; j = (j + 1) & (k->mcap - 1))
		if (k->mkeys[j] == key)
			return j;
	return -1;
}

int ck_map_put(struct ctl_chakra_run *k, uint64_t key, uint32_t val)
{
	uint32_t j;

	if (ck_map_find(k, key) >= 0)
		return -EEXIST;
	if (2 * (k->mn + 1) > k->mcap && map_grow(k))
		return -ENOMEM;
	for (j = mhash(key, k->mcap); k->mkeys[j]; j = (j + 1) & (k->mcap - 1))
		;
	k->mkeys[j] = key, k->mvals[j] = val, k->mn++;
	return 0;
}

void ck_map_del(struct ctl_chakra_run *k, uint32_t j)
{
	uint32_t i = j;

	k->mkeys[j] = 0, k->mn--;
	for (;;) { /* shift back every entry the hole would cut off from its home slot */
		i = (i + 1) & (k->mcap - 1);
		if (!k->mkeys[i])
			return;
		uint32_t h = mhash(k->mkeys[i], k->mcap);

		if ((j < i) ? (h <= j || h > i) : (h <= j && h > i)) {
			k->mkeys[j] = k->mkeys[i], k->mvals[j] = k->mvals[i];
			k->mkeys[i] = 0;
			j = i;
		}
	}
}

/* The emulated hosts by IP, for the receive hooks of both transports (a sender is known by its address). */
static int hosts_by_ip(struct ctl_chakra_run *k)
{
	for (uint32_t h = 0; h < k->cfg->n_hosts; h++)
		if (!k->cfg->hosts[h].external && ck_map_put(k, CK_KEY_IP | k->cfg->hosts[h].ip, h) == -ENOMEM)
			return -ENOMEM;
	return 0;
}

long ck_host_by_ip(const struct ctl_chakra_run *k, uint32_t ip)
{
	long j = ck_map_find(k, CK_KEY_IP | ip);

	return j < 0 ? -1 : (long)k->mvals[j];
}

long ck_slot_new(struct ctl_chakra_run *k)
{
	if (k->n_free)
		return k->free_slots[--k->n_free];
	if (k->n_slots == k->cap_slots) {
		uint32_t cap = k->cap_slots ? k->cap_slots * 2 : 256;
		struct ck_slot *s = realloc(k->slots, cap * sizeof(*s));
		uint32_t *f = realloc(k->free_slots, cap * sizeof(*f));

		if (s)
			k->slots = s;
		if (f)
			k->free_slots = f;
		if (!s || !f)
			return -ENOMEM;
		k->cap_slots = cap;
	}
	return k->n_slots++;
}

void ck_slot_free(struct ctl_chakra_run *k, uint32_t s)
{
	k->slots[s].used = 0;
	k->free_slots[k->n_free++] = s;
}

/* app_ck_xport.post: one RDMA WRITE of @p bytes from rank @p src to rank @p dst, on a new PDC of the UET NIC. */
static int ck_post(void *ctx, uint32_t src, uint32_t dst, uint64_t bytes, uint64_t xfer, emu_ps_t now)
{
	struct ctl_chakra_run *k = ctx;
	uint32_t hs = k->rank_host[src], hd = k->rank_host[dst];
	long s;
	uint16_t pdc;
	int rc;

	if (app_ck_su_same(k->su, src, dst))
		return app_ck_su_post(k->su, src, dst, bytes, xfer, now);
	s = ck_slot_new(k);
	if (s < 0)
		return (int)s;
	rc = nic_post_pdc(k->nics[hs], k->cfg->hosts[hd].ip, bytes, CTL_CHAKRA_COOKIE | (uint64_t)s, now, &pdc);
	if (rc) {
		ck_slot_free(k, (uint32_t)s);
		return rc;
	}
	/* the NIC numbers its messages 1, 2, ... in posting order; the receiver sees the low 16 bits */
	k->slots[s] = (struct ck_slot){.xfer = xfer, .src = hs, .dst = hd, .pdc = pdc,
				       .msg_id = (uint16_t)++k->posts[hs], .used = 1};
	if (ck_map_put(k, ((uint64_t)hs << 16 | k->slots[s].msg_id) + 1, (uint32_t)s))
		k->id_clashes++; /* 65,536 messages of one sender outstanding: this one's receive cannot be matched */
	return 0;
}

void ctl_chakra_done(struct ctl_chakra_run *k, uint64_t cookie, emu_ps_t now)
{
	uint64_t s = cookie & ~CTL_CHAKRA_COOKIE;
	struct ck_slot *sl;

	if (!k || s >= k->n_slots || !k->slots[s].used)
		return;
	if (k->roces) {
		ck_roce_done(k, (uint32_t)s, now);
		return;
	}
	sl = &k->slots[s];
	long j = ck_map_find(k, ((uint64_t)sl->src << 16 | sl->msg_id) + 1);

	if (j >= 0 && k->mvals[j] == s)
		ck_map_del(k, (uint32_t)j);
	nic_close_rcv(k->nics[sl->dst], k->cfg->hosts[sl->src].ip, sl->pdc, now);
	uint64_t xfer = sl->xfer; /* the slot is free from here: the replay may post into it at once */

	ck_slot_free(k, (uint32_t)s);
	/* The send node finished when the NIC reported its last byte sent (ctl_chakra_sent); should that report
	 * never have come (its last packet lost before its first serialization ended), the acknowledgment ends it. */
	app_ck_acked(k->run, xfer, now);
	app_ck_sent(k->run, xfer, now);
}

void ctl_chakra_sent(struct ctl_chakra_run *k, uint64_t cookie, emu_ps_t now)
{
	uint64_t s = cookie & ~CTL_CHAKRA_COOKIE;

	if (!k || s >= k->n_slots || !k->slots[s].used)
		return;
	app_ck_sent(k->run, k->slots[s].xfer, now);
}

void ctl_chakra_recv(struct ctl_chakra_run *k, uint32_t host, uint32_t src_ip, uint64_t msg_id, uint64_t bytes,
		     emu_ps_t now)
{
	long src, j;

	(void)bytes;
	if (!k || host >= k->cfg->n_hosts)
		return;
	src = ck_host_by_ip(k, src_ip);
	j = src < 0 ? -1 : ck_map_find(k, ((uint64_t)src << 16 | (uint16_t)msg_id) + 1);
	if (j < 0 || k->slots[k->mvals[j]].dst != host) {
		k->recv_unknown++;
		return;
	}
	k->slots[k->mvals[j]].recvd = 1;
	app_ck_delivered(k->run, k->slots[k->mvals[j]].xfer, now);
}

static void cb_acked(void *ctx, const struct app_ck_xfer_done *x)
{
	ck_rec_perf(ctx, x);
}

static void cb_rank_end(void *ctx, uint32_t rank, const struct app_ck_rank_stats *st)
{
	struct ctl_chakra_run *k = ctx;

	k->last_end = st->end > k->last_end ? st->end : k->last_end;
	ck_rec_rank_end(k, rank, st, st->end);
}

static void ev_start(void *a, void *b, emu_ps_t now)
{
	(void)b;
	app_ck_run_start(((struct ctl_chakra_run *)a)->run, now);
}

int ctl_chakra_start(struct ctl_chakra_run *k, struct nic *const *nics, struct roce *const *roces,
		     struct net_part *np, const char *dir, int64_t epoch_s, char *err, size_t errlen)
{
	struct app_ck_xport xp = {roces ? ck_roce_post : ck_post, k};
	struct app_ck_run_cb cb = {cb_acked, cb_rank_end, k};
	int rc;

	if (!k)
		return 0;
	k->nics = nics, k->roces = roces, k->np = np, k->epoch_s = epoch_s;
	if (hosts_by_ip(k)) {
		snprintf(err, errlen, "out of memory for the Chakra transport over %u %s NICs", k->cfg->n_hosts,
			 roces ? "RoCE" : "UET");
		return -ENOMEM;
	}
	k->run = app_ck_run_create(&k->set, np->sched, k->ck->trace_family == CTL_CHAKRA_COLLECTED, &xp, &cb);
	if (!k->run) {
		snprintf(err, errlen, "out of memory for the Chakra replay of %u ranks", k->set.n_ranks);
		return -ENOMEM;
	}
	if (k->su_members && (rc = ck_su_start(k, np->sched, err, errlen)))
		return rc;
	rc = ck_rec_open(k, dir, err, errlen);
	if (rc)
		return rc;
	k->last_end = k->start;
	if (net_sched(np, k->start, ev_start, k, NULL, NULL) < 0) {
		snprintf(err, errlen, "the event scheduler is full: cannot start the Chakra ranks");
		return -ENOSPC;
	}
	ck_rec_cdf_start(k);
	return ck_rec_prof_start(k, err, errlen);
}

int ctl_chakra_close(struct ctl_chakra_run *k, emu_ps_t end, char *err, size_t errlen)
{
	return k ? ck_rec_close(k, end, err, errlen) : 0;
}

void ctl_chakra_destroy(struct ctl_chakra_run *k)
{
	if (!k)
		return;
	app_ck_run_destroy(k->run);
	app_ck_su_destroy(k->su);
	free(k->rank_group), free(k->rank_sub), free(k->su_groups), free(k->su_group_ids), free(k->su_prev);
	for (uint32_t c = 0; k->colls && c < k->prep.n_colls; c++)
		free(k->colls[c].first);
	free(k->colls);
	app_ck_prep_fini(&k->prep);
	app_ck_set_fini(&k->set);
	free(k->rank_host), free(k->host_rank), free(k->posts);
	free(k->slots), free(k->free_slots), free(k->mkeys), free(k->mvals), free(k->qps);
	free(k);
}
