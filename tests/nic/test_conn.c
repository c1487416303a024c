/* The RDMA application's side of the NIC (seed 003: WQEs, the doorbell, connection setup) and the probe each
 * message draws (Scala UET NIC page *Transport*, Acknowledgements). Two NICs back to back, exact numbers. */
#include <criterion/criterion.h>
#include <errno.h>

#include "net.h"
#include "nic.h"
#include "nic_pair.h"
#include "nic_params.h"

Test(nic_tx, refused_wqe_not_counted_as_created_nor_as_no_pdc)
{
	/* A NIC made without a WQE budget holds 16,384 WQEs waiting on its connections. One connection: the 1st WQE
	 * is sent, the next 16,384 wait, the 16,386th is refused: wqes_created counts the 16,385 the NIC took, and
	 * the refusal has its own reason, not "no PDC could be created". */
	struct tfx_pair *b = tfx_pair_new(NULL);
	const uint64_t *c = nic_counters(b->nic[0]);
	uint16_t id;
	int refused = 0;

	cr_assert_eq(nic_conn_open(b->nic[0], b->neigh[1].ip, &id, 0), 0);
	for (int i = 0; i < 16386; i++)
		refused += nic_post_conn(b->nic[0], id, 4096, (uint64_t)i, 0) == -ENOSPC;
	cr_assert_eq(refused, 1);
	cr_assert_eq(c[NIC_C_WQES_CREATED], 16385, "wqes_created %llu", (unsigned long long)c[NIC_C_WQES_CREATED]);
	cr_assert_eq(c[NIC_C_DROP_NO_PDC], 0);
	cr_assert_eq(c[NIC_C_DROP_NO_WQE], 1);
	tfx_pair_free(b);
}

Test(nic_cm, setup_messages_wait_for_control_pool_room_and_none_is_lost)
{
	/* 512 connection requests sent at once (512 connections starting together): 66 B frames in the control class,
	 * whose 25,600 B egress pool holds 387 of them. The NIC sends what the host posts, as it does data: the others
	 * wait for room (counted in cm_deferred), none is lost, and all leave back to back, 1.32 ns apart. */
	struct tfx_pair *b = tfx_pair_new(NULL);
	const uint64_t *c = nic_counters(b->nic[0]);
	int sent = 0, seen = 0;
	emu_ps_t last = 0;

	for (uint32_t i = 0; i < 512; i++) {
		struct wire_cm cm = { .type = WIRE_CM_REQ, .connection = (uint16_t)i, .local_id = i + 1 };
		sent += nic_cm_send(b->nic[0], b->neigh[1].ip, &cm, 0) == 0;
	}
	emu_sched_run_until(b->np.sched, EMU_PS_NEVER - 1);
	for (int i = 0; i < b->n_seen; i++)
		if (b->seen[i].kind == WIRE_KIND_CM && b->seen[i].dir == 0) {
			cr_assert_eq(b->seen[i].p.cm.local_id, (uint32_t)seen + 1, "in the order posted");
			seen++;
			last = b->seen[i].t;
		}
	cr_assert_eq(sent, 512, "every message taken (%d)", sent);
	cr_assert_eq(seen, 512, "every message on the wire (%d)", seen);
	cr_assert_eq(last, 511 * 1320, "the last leaves 511 x 1.32 ns after the first (%llu ps)",
		     (unsigned long long)last);
	cr_assert_eq(c[NIC_C_CM_SENT], 512);
	cr_assert_eq(c[NIC_C_CM_DEFERRED], 512 - 387, "387 fit the pool at once");
	cr_assert_eq(c[NIC_C_DROP_TX_CTL_POOL_FULL], 0, "no ACK was refused");
	tfx_pair_free(b);
}

/* One message of @p bytes on a new PDC: the probes host 0 sends, the probe ACKs it gets, and when. */
static void probe_run(uint64_t bytes)
{
	struct tfx_pair *b = tfx_pair_new(NULL);
	int probes = 0, probe_acks = 0;
	emu_ps_t probe_t = 0;

	tfx_pair_run(b, bytes);
	for (int i = 0; i < b->n_seen; i++) {
		const struct tfx_seen *f = &b->seen[i];
		if (f->kind == WIRE_KIND_CP && f->dir == 0) {
			probes++;
			probe_t = f->t;
		}
		probe_acks += f->kind == WIRE_KIND_ACK && f->dir == 1 && (f->flags & WIRE_ACK_F_P);
	}
	cr_assert_eq(b->done, 1);
	cr_assert_eq(probes, 1, "one probe per message (%d)", probes);
	cr_assert_eq(probe_acks, 1, "one probe ACK per message (%d)", probe_acks);
	/* the probe leaves as the message's first (and last) data ACK arrives: 85.845 + 84.04 (or 2.12 for the
	 * empty packet's 106 B) + 100 + hold + 1.56 + 100 ns */
	cr_assert_eq(probe_t, b->done_at, "the probe goes at the first ACK (%llu ps)", (unsigned long long)probe_t);
	cr_assert_eq(nic_counters(b->nic[0])[NIC_C_PROBE_SENT], 1);
	cr_assert_eq(nic_counters(b->nic[0])[NIC_C_PROBE_ACK_RCVD], 1);
	tfx_pair_free(b);
}

Test(nic_ack, one_packet_message_draws_one_probe_and_one_probe_ack)
{
	probe_run(4096);
}

Test(nic_ack, empty_message_draws_one_probe_and_one_probe_ack)
{
	probe_run(0);
}

/* The first data frame of one 4,096 B WQE posted at 0 on a connection of a NIC whose application rings doorbells of
 * @p db bytes (0: the NIC's default); the host-to-NIC PCIe payload bytes in @p h2n. */
static emu_ps_t doorbell_first_frame(uint64_t db, uint64_t *h2n)
{
	struct tfx_pair *b = tfx_pair_new(NULL);
	struct nic_env env = tfx_nic_env(&b->np, &b->p, b->neigh, 2, 0);
	struct port_pcie_stats ps;
	uint16_t id;

	env.doorbell_bytes = db;
	nic_destroy(b->nic[0]);
	b->nic[0] = nic_create(&env);
	b->link.dir[0].from.dev = b->nic[0];
	b->link.dir[1].to.dev = b->nic[0];
	nic_attach(b->nic[0], &b->link.dir[0]);
	cr_assert_eq(nic_conn_open(b->nic[0], b->neigh[1].ip, &id, 0), 0);
	cr_assert_eq(nic_post_conn(b->nic[0], id, 4096, 1, 0), 0);
	emu_sched_run_until(b->np.sched, EMU_PS_NEVER - 1);
	nic_pcie_stats(b->nic[0], &ps, EMU_PS_NEVER - 1);
	*h2n = ps.payload_bytes[1];
	emu_ps_t t = b->seen[0].t;
	cr_assert_eq(b->seen[0].kind, WIRE_KIND_DATA);
	tfx_pair_free(b);
	return t;
}

Test(nic_tx, doorbell_payload_size_sets_the_doorbell_pcie_cost)
{
	/* seed 003, WQEs: the doorbell carries DoorbellPayloadSize bytes plus 28 B of UDP and IPv4 headers on the
	 * host-to-NIC direction. At 64 B (92 B, one transfer) it is over long before the payload is needed: the first
	 * frame goes at 15 + 1.555 + 69.290 ns. At 4,096 B: 4,124 B in 9 transfers, 4,430 B on the link, 70.273 ns at
	 * 504.32 Gb/s, and the payload's completion waits behind it: 70.273 + 69.290 ns. */
	uint64_t h2n;

	cr_assert_eq(doorbell_first_frame(0, &h2n), 85845);
	cr_assert_eq(h2n, 92 + 4096);
	cr_assert_eq(doorbell_first_frame(64 + 28, &h2n), 85845);
	cr_assert_eq(doorbell_first_frame(4096 + 28, &h2n), 70273 + 69290);
	cr_assert_eq(h2n, 4124 + 4096, "the doorbell's payload and the WQE's (%llu)", (unsigned long long)h2n);
}
