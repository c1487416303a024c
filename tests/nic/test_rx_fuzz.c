/* Frame fuzz through the NIC's receive path (docs/security.md), not only the decoder: packets a real transfer
 * put on the link, their PSNs, PDC ids, flags, SACK fields, CC state and payload lengths mutated with a fixed
 * seed within what the decoder lets through, handed to both NICs' receive entry point while the transfer runs.
 * Nothing may crash (the ASan build runs this too), the NICs must keep running, and a message posted afterwards
 * must still complete. */
#include <criterion/criterion.h>
#include <string.h>

#include "emu_rng.h"
#include "net.h"
#include "nic.h"
#include "nic_pair.h"

#define US EMU_PS_PER_US
#define FUZZ_FRAMES 20000

/* One mutation of @p p: a field the decoder passes through as it is on the wire, set to an edge or a random value. */
static void mutate(struct wire_pkt *p, struct emu_rng *r)
{
	uint64_t v = emu_rng_next(r);
	static const uint32_t edges[] = { 0, 1, 0x7fffffffu, 0x80000000u, 0xffffffffu, 0xfffu, 0x1000u };

	switch (v % 9) {
	case 0: p->pds.psn += (uint32_t)((v >> 8) % 64) - 32; break;
	case 1: p->pds.psn = edges[(v >> 8) % (sizeof(edges) / sizeof(edges[0]))]; break;
	case 2: p->pds.spdcid = (uint16_t)(v >> 8); break;
	case 3: p->pds.dpdcid = (uint16_t)(v >> 8); break;
	case 4: p->pds.flags = (uint8_t)((v >> 8) & 0x7f); break;
	case 5: p->pds.sack_psn_off = (int16_t)(v >> 8); p->ack.sack_bitmap = emu_rng_next(r); break;
	case 6: p->pds.psn_off = (int16_t)(v >> 8); break;
	case 7: p->ack.rcvd_bytes = (uint32_t)(v >> 8) & 0xffffff; p->ack.service_time = (uint16_t)(v >> 32);
		p->ack.ooo_count = (uint16_t)(v >> 48); break;
	default: p->ecn = (uint8_t)((v >> 8) & 3); p->ack.rcv_cwnd_pend = (uint8_t)((v >> 16) & 0x7f); break;
	}
}

Test(nic_rx_fuzz, mutated_frames_through_the_receive_path_leave_the_nics_working)
{
	struct tfx_opts o = { .delay = 2 * US };
	struct tfx_pair *b = tfx_pair_new(&o);
	struct emu_rng r;
	uint16_t pdc;
	emu_ps_t now = 0;

	emu_rng_init(&r, 18760, 1);
	cr_assert_eq(nic_post_pdc(b->nic[0], b->neigh[1].ip, 256 * 1024, 1, 0, &pdc), 0);
	emu_sched_run_until(b->np.sched, now = 20 * US); /* frames are injected at the scheduler's time, never before */
	cr_assert_gt(b->n_seen, 4, "the transfer put frames on the link (%d)", b->n_seen);
	int n_tpl = b->n_seen;

	for (int i = 0; i < FUZZ_FRAMES; i++) {
		const struct tfx_seen *s = &b->seen[emu_rng_next(&r) % (uint64_t)n_tpl];
		struct wire_pkt *p = net_pkt_alloc(&b->np);

		if (p == NULL) { /* the pool is busy with what the NICs answered: let them send it */
			emu_sched_run_until(b->np.sched, now += US);
			continue;
		}
		*p = s->p;
		for (int k = 0, m = 1 + (int)(emu_rng_next(&r) % 3); k < m; k++)
			mutate(p, &r);
		/* to the NIC it was sent to, or back to its sender as if the peer had sent it */
		nic_dev_ops.receive(b->nic[(s->dir + (emu_rng_next(&r) & 1)) & 1], 0, p, now);
		if ((i & 63) == 63)
			emu_sched_run_until(b->np.sched, now += US);
	}
	/* what the forgeries started runs out (retransmissions back off; nothing is held for ever) */
	emu_sched_run_until(b->np.sched, now += 500000 * US);
	uint64_t done = nic_counters(b->nic[0])[NIC_C_WQES_COMPLETED];

	cr_assert_eq(nic_post_pdc(b->nic[0], b->neigh[1].ip, 64 * 1024, 2, now, &pdc), 0);
	emu_sched_run_until(b->np.sched, now + 100000 * US);
	cr_expect_gt(nic_counters(b->nic[0])[NIC_C_WQES_COMPLETED], done,
		     "a message posted after %d mutated frames completes", FUZZ_FRAMES);
	tfx_pair_free(b);
}
