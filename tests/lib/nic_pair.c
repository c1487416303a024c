/* Two UET NICs back to back on one link for the unit tests (see nic_pair.h). */
#include "nic_pair.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static void tap(void *arg, uint32_t dir, const struct wire_pkt *pkt, emu_ps_t now)
{
	struct tfx_pair *b = arg;

	if (b->n_seen == TFX_MAX_SEEN)
		return;
	b->seen[b->n_seen++] = (struct tfx_seen){ dir, now, pkt->kind, pkt->pds.psn, pkt->pds.flags,
						  pkt->ack.service_time, pkt->payload_len, wire_wire_len(pkt), *pkt };
}

static void on_done(void *arg, uint64_t cookie, emu_ps_t now)
{
	struct tfx_pair *b = arg;

	(void)cookie;
	b->done++;
	b->done_at = now;
}

static void on_sent(void *arg, uint64_t cookie, emu_ps_t now)
{
	struct tfx_pair *b = arg;

	(void)cookie;
	b->sent++;
	b->sent_at = now;
}

static void on_recv(void *arg, uint32_t fep, uint32_t src, uint64_t wqe, uint64_t bytes, emu_ps_t now)
{
	struct tfx_pair *b = arg;

	(void)fep;
	(void)src;
	(void)wqe;
	(void)now;
	b->recv++;
	b->recv_bytes += bytes;
}

static void on_trace(void *arg, const struct nic_trace *t)
{
	struct tfx_pair *b = arg;

	if (b->tr != NULL && b->n_tr < TFX_MAX_SEEN)
		b->tr[b->n_tr++] = *t;
}

void tfx_neigh_init(struct port_neigh *neigh, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		neigh[i].ip = 0x0a000001u + i;
		memset(neigh[i].mac, 0, 6);
		neigh[i].mac[0] = 2;
		neigh[i].mac[5] = (uint8_t)(i + 1);
	}
}

struct nic_env tfx_nic_env(struct net_part *np, const struct nic_params *p, const struct port_neigh *neigh,
			   uint32_t n_neigh, uint32_t i)
{
	struct nic_env env = { .np = np, .params = p, .fep_id = i, .name = "nic", .ip = neigh[i].ip, .seed = 18760,
			       .neigh = neigh, .n_neigh = n_neigh };

	memcpy(env.mac, neigh[i].mac, 6);
	return env;
}

struct tfx_pair *tfx_pair_new(const struct tfx_opts *o)
{
	static const struct tfx_opts none;
	struct tfx_pair *b = calloc(1, sizeof(*b));

	if (o == NULL)
		o = &none;
	cr_assert_not_null(b);
	cr_assert_leq(o->n_imp, TFX_MAX_IMPAIR);
	b->seen = calloc(TFX_MAX_SEEN, sizeof(*b->seen));
	cr_assert_not_null(b->seen);
	if (o->trace) {
		b->tr = calloc(TFX_MAX_SEEN, sizeof(*b->tr));
		cr_assert_not_null(b->tr);
	}
	cr_assert_eq(net_part_init(&b->np, 1 << 16, o->max_pkts != 0 ? o->max_pkts : 1 << 15), 0);
	nic_params_defaults(&b->p);
	if (o->tune != NULL)
		o->tune(&b->p);
	tfx_neigh_init(b->neigh, 2);
	for (uint32_t i = 0; i < 2; i++) {
		struct nic_env env = tfx_nic_env(&b->np, &b->p, b->neigh, 2, i);

		env.trace = o->trace;
		env.hooks = (struct nic_hooks){ .arg = b, .msg_done = on_done, .msg_sent = on_sent, .msg_recv = on_recv,
						.trace = on_trace };
		b->nic[i] = nic_create(&env);
		cr_assert_not_null(b->nic[i]);
	}
	struct net_endpoint a = { b->nic[0], &nic_dev_ops, 0, 0 }, z = { b->nic[1], &nic_dev_ops, 0, 0 };

	net_link_init(&b->link, &b->np, b->p.data_rate_bps, o->delay != 0 ? o->delay : b->p.delay_ps, a, z);
	if (o->n_imp > 0)
		memcpy(b->imp, o->imp, o->n_imp * sizeof(*o->imp));
	net_dir_set_impair(&b->link.dir[0], b->imp, o->n_imp, 16, 18);
	cr_assert_eq(net_link_add_tap(&b->link, tap, b), 0);
	nic_attach(b->nic[0], &b->link.dir[0]);
	nic_attach(b->nic[1], &b->link.dir[1]);
	return b;
}

void tfx_pair_run(struct tfx_pair *b, uint64_t bytes)
{
	cr_assert_eq(nic_post(b->nic[0], b->neigh[1].ip, bytes, 1, 0), 0);
	emu_sched_run_until(b->np.sched, EMU_PS_NEVER - 1);
}

void tfx_pair_free(struct tfx_pair *b)
{
	nic_destroy(b->nic[0]);
	nic_destroy(b->nic[1]);
	net_part_fini(&b->np);
	free(b->tr);
	free(b->seen);
	free(b);
}
