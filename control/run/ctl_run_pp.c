/* The pingpong and responder applications in a run (emul/app/app_pingpong.c; docs/pingpong.md): made and started
 * with the run, told of each whole message a host receives, their round trips in summary.json and the table. */
#include "ctl_run_pvt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "app_pingpong.h"
#include "emu_units.h"

static void ev_pp_start(void *a, void *b, emu_ps_t now)
{
	(void)a;
	(void)app_pp_start(b, now); /* a refused post is counted (post_fail) and ends the ping-pong */
}

int ctl_run_pp_start(struct ctl_run_state *r, char *err, size_t errlen)
{
	const struct ctl_config *cfg = r->cfg;

	if (cfg->n_pps == 0)
		return 0;
	r->pps = calloc(cfg->n_pps, sizeof(*r->pps));
	if (r->pps == NULL)
		goto nomem;
	for (uint32_t i = 0; i < cfg->n_pps; i++) {
		const struct ctl_pingpong *p = &cfg->pps[i];
		/* --partition: each process runs the side of its own hosts; one whose hosts are all elsewhere none */
		bool srv = r->dev_lc[p->server] != CTL_LC_REMOTE;
		bool cli = !p->responder && r->dev_lc[p->client] != CTL_LC_REMOTE;
		struct app_pp_cfg c = {
			.responder_only = p->responder, .client_ip = p->responder ? 0 : cfg->hosts[p->client].ip,
			.server_ip = cfg->hosts[p->server].ip, .size = p->size, .reply = p->reply,
			.iterations = (uint32_t)p->iterations, .start = p->start,
		};

		if (!srv && !cli)
			continue;
		/* a side whose host another process runs is never reached here (no message arrives at its address):
		 * the NIC of the side that is here stands in for it */
		const struct port_nic *hc = cli ? &r->hosts[p->client] : &r->hosts[p->server];
		const struct port_nic *hs = srv ? &r->hosts[p->server] : hc;

		r->pps[r->n_pps] = app_pp_create(&c, p->responder ? NULL : hc, hs);
		if (r->pps[r->n_pps] == NULL)
			goto nomem;
		r->pp_idx[r->n_pps] = i;
		r->n_pps++;
		if (!cli)
			continue;
		struct net_part *np = ctl_run_dev_np(r, p->client);

		emu_sched_set_ent(np->sched, p->client + 1); /* the start runs as the client */
		int rc = net_sched(np, p->start, ev_pp_start, NULL, r->pps[r->n_pps - 1], NULL);
		emu_sched_set_ent(np->sched, 0);
		if (rc < 0) {
			snprintf(err, errlen, "too many events for the event scheduler");
			return -ENOSPC;
		}
	}
	return 0;
nomem:
	snprintf(err, errlen, "out of memory for the pingpong applications");
	return -ENOMEM;
}

bool ctl_run_pp_recv(struct ctl_run_state *r, uint32_t fep_id, uint32_t src_ip, uint64_t bytes, emu_ps_t now)
{
	uint32_t at = r->cfg->hosts[fep_id].ip;

	for (uint32_t i = 0; i < r->n_pps; i++)
		if (app_pp_recv(r->pps[i], at, src_ip, bytes, now))
			return true;
	return false;
}

void ctl_run_pp_free(struct ctl_run_state *r)
{
	for (uint32_t i = 0; i < r->n_pps; i++)
		app_pp_destroy(r->pps[i]);
	free(r->pps);
	r->pps = NULL;
	r->n_pps = 0;
}

void ctl_run_pp_json(FILE *f, const struct ctl_run_state *r)
{
	const struct ctl_config *cfg = r->cfg;

	if (r->n_pps == 0)
		return;
	fprintf(f, "  \"pingpong\": [");
	for (uint32_t i = 0; i < r->n_pps; i++) {
		const struct ctl_pingpong *p = &cfg->pps[r->pp_idx[i]];
		struct app_pp_result s;

		app_pp_result(r->pps[i], &s);
		fprintf(f, "%s\n    {\"type\": \"%s\", ", i ? "," : "", p->responder ? "responder" : "pingpong");
		if (!p->responder)
			fprintf(f, "\"client\": \"%s\", ", cfg->hosts[p->client].name);
		fprintf(f, "\"server\": \"%s\", ", cfg->hosts[p->server].name);
		if (!p->responder)
			fprintf(f, "\"size\": %llu, \"iterations\": %llu, ", (unsigned long long)p->size,
				(unsigned long long)p->iterations);
		fprintf(f, "\"reply\": %llu, \"replies\": %llu, \"post_fail\": %u", (unsigned long long)p->reply,
			(unsigned long long)s.replies, s.post_fail);
		if (!p->responder)
			fprintf(f, ", \"count\": %u, \"rtt_ps\": {\"first\": %llu, \"min\": %llu, \"p50\": %llu, "
				"\"p90\": %llu, \"p99\": %llu, \"max\": %llu, \"mean\": %llu}", s.count,
				(unsigned long long)s.first, (unsigned long long)s.min, (unsigned long long)s.p50,
				(unsigned long long)s.p90, (unsigned long long)s.p99, (unsigned long long)s.max,
				(unsigned long long)s.mean);
		fprintf(f, "}");
	}
	fprintf(f, "\n  ],\n");
}

void ctl_run_pp_print(const struct ctl_run_state *r)
{
	const struct ctl_config *cfg = r->cfg;

	for (uint32_t i = 0; i < r->n_pps; i++) {
		const struct ctl_pingpong *p = &cfg->pps[r->pp_idx[i]];
		struct app_pp_result s;

		app_pp_result(r->pps[i], &s);
		if (p->responder) {
			printf("responder %s: %llu replies of %llu B\n", cfg->hosts[p->server].name,
			       (unsigned long long)s.replies, (unsigned long long)p->reply);
			continue;
		}
		printf("pingpong %s -> %s: %u/%llu round trips of %llu B / %llu B; RTT p50 %.3f us, p90 %.3f us, "
		       "p99 %.3f us, max %.3f us\n", cfg->hosts[p->client].name, cfg->hosts[p->server].name, s.count,
		       (unsigned long long)p->iterations, (unsigned long long)p->size, (unsigned long long)p->reply,
		       (double)s.p50 / 1e6, (double)s.p90 / 1e6, (double)s.p99 / 1e6, (double)s.max / 1e6);
	}
}

void ctl_run_pp_work(const struct ctl_run_state *r, struct ctl_work_part *p)
{
	const struct ctl_config *cfg = r->cfg;

	for (uint32_t i = 0; i < r->n_pps; i++) {
		const struct ctl_pingpong *pp = &cfg->pps[r->pp_idx[i]];
		struct app_pp_result s;

		/* a responder has no end of its own; a client another process runs counts its round trips there */
		if (pp->responder || r->dev_lc[pp->client] == CTL_LC_REMOTE)
			continue;
		app_pp_result(r->pps[i], &s);
		p->total++;
		if (s.count < pp->iterations) {
			if (p->open < CTL_VERDICT_FIRST)
				snprintf(p->first[p->open], CTL_VERDICT_NAME, "%s->%s %u/%llu round trips",
					 cfg->hosts[pp->client].name, cfg->hosts[pp->server].name, s.count,
					 (unsigned long long)pp->iterations);
			p->open++;
		}
	}
}
