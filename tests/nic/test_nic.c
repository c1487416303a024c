/* Scenario-level unit tests of the NIC first cut on two NICs back to back, with exact times from the spec. */
#include <criterion/criterion.h>
#include <errno.h>

#include "net.h"
#include "nic.h"
#include "nic_pair.h"
#include "nic_params.h"

#define DOORBELL (1000 * EMU_PS_PER_NS)

Test(nic_tx, first_frame_enters_wire_15ns_plus_pcie_fetch_after_doorbell)
{
	struct tfx_pair *b = tfx_pair_new(NULL);

	cr_assert_eq(nic_post(b->nic[0], b->neigh[1].ip, 1048576, 7, DOORBELL), 0);
	emu_sched_run_until(b->np.sched, EMU_PS_NEVER - 1);
	/* 15 ns doorbell delay + 1.555 ns read request (98 B) + 69.290 ns completion (4,368 B), both at
	 * 16 x 31.52 Gb/s = 504.32 Gb/s, each rounded up to the picosecond: 85.845 ns. */
	cr_assert_eq(b->seen[0].kind, WIRE_KIND_DATA);
	cr_assert_eq(b->seen[0].t - DOORBELL, 15000 + 1555 + 69290);
	cr_assert_eq(b->seen[0].wire_len, 4202);
	tfx_pair_free(b);
}

Test(nic_tx, full_frames_back_to_back_at_84_04_ns_and_every_one_acked)
{
	struct tfx_pair *b = tfx_pair_new(NULL);
	int data = 0, acks = 0, probes = 0, probe_acks = 0, gaps = 0;
	emu_ps_t prev = 0;
	int prev_idx = -1;

	nic_post(b->nic[0], b->neigh[1].ip, 1048576, 7, DOORBELL);
	emu_sched_run_until(b->np.sched, EMU_PS_NEVER - 1);
	for (int i = 0; i < b->n_seen; i++) {
		struct tfx_seen *s = &b->seen[i];
		if (s->dir == 0 && s->kind == WIRE_KIND_DATA) {
			cr_assert_eq(s->payload, 4096);
			cr_assert(s->flags & WIRE_REQ_F_AR, "every data packet requests an ACK at N = 1");
			/* consecutive data frames with nothing between them on the wire: exactly 84.04 ns apart */
			if (prev_idx >= 0 && b->seen[prev_idx].kind == WIRE_KIND_DATA) {
				cr_assert_eq(s->t - prev, 84040, "frame %d", data);
			} else if (prev_idx >= 0) {
				/* the probe went between two data frames: 62 B at 400 Gb/s is 1.24 ns of the wire
				 * (uet-nic-transport.md, packet sizes), and the next data frame follows it at once */
				cr_assert_eq(b->seen[prev_idx].kind, WIRE_KIND_CP);
				cr_assert_eq(s->t - prev, 1240, "frame %d after the probe", data);
				gaps++;
			}
			data++;
		}
		if (s->dir == 0) {
			prev = s->t;
			prev_idx = i;
		}
		if (s->dir == 1 && s->kind == WIRE_KIND_ACK) {
			if (s->flags & WIRE_ACK_F_P) {
				/* "one probe and its ACK: 62 B + 78 B"; the probe's ACK is not held
				 * (uet-nic-transport.md, Acknowledgements) */
				probe_acks++;
				cr_assert_eq(s->wire_len, 78);
				cr_assert_eq(s->service_time, 0);
			} else {
				acks++;
				cr_assert_eq(s->service_time, 0, "a 66.4 ns hold reports 0 in 128 ns steps");
				cr_assert_eq(s->wire_len, 78);
			}
		} else if (s->dir == 0 && s->kind == WIRE_KIND_CP) {
			probes++;
			cr_assert_eq(s->wire_len, 62);
		}
	}
	cr_assert_eq(data, 256, "1 MiB / 4096 = 256 packets");
	cr_assert_eq(acks, 256, "every data packet acknowledged");
	cr_assert_eq(probes, 1, "one base-RTT probe per message");
	cr_assert_eq(probe_acks, 1);
	cr_assert_eq(gaps, 1, "only the probe sits between two data frames, once");
	cr_assert_eq(b->done, 1);
	cr_assert_eq(b->recv, 1);
	cr_assert_eq(b->recv_bytes, 1048576);
	const uint64_t *c = nic_counters(b->nic[0]);
	cr_assert_eq(c[NIC_C_WRITE_PKTS_SENT], 256);
	cr_assert_eq(c[NIC_C_ACK_PKTS_RCVD], 257);
	cr_assert_eq(c[NIC_C_WQES_COMPLETED], 1);
	tfx_pair_free(b);
}

Test(nic_rx, first_ack_held_for_pcie_service_time)
{
	struct tfx_pair *b = tfx_pair_new(NULL);

	nic_post(b->nic[0], b->neigh[1].ip, 4096, 1, DOORBELL);
	emu_sched_run_until(b->np.sched, EMU_PS_NEVER - 1);
	/* data: on the wire at +85.845 ns for 84.04 ns, then 100 ns of propagation; the ACK is held
	 * 4,184 B at 504.32 Gb/s = 66.371 ns before it goes on the receiver's idle port. */
	cr_assert_eq(b->seen[1].kind, WIRE_KIND_ACK);
	cr_assert_eq(b->seen[1].dir, 1);
	cr_assert_eq(b->seen[1].t - DOORBELL, 85845 + 84040 + 100000 + 66371);
	/* the sender completes on the last ACK: 78 B at 400 Gb/s = 1.56 ns, then 100 ns */
	cr_assert_eq(b->done_at, b->seen[1].t + 1560 + 100000);
	tfx_pair_free(b);
}

Test(nic_tx, zero_byte_message_is_one_empty_packet)
{
	struct tfx_pair *b = tfx_pair_new(NULL);

	nic_post(b->nic[0], b->neigh[1].ip, 0, 1, DOORBELL);
	emu_sched_run_until(b->np.sched, EMU_PS_NEVER - 1);
	cr_assert_eq(b->seen[0].kind, WIRE_KIND_DATA);
	cr_assert_eq(b->seen[0].wire_len, 106);
	cr_assert_eq(b->done, 1);
	cr_assert_eq(b->recv, 1);
	tfx_pair_free(b);
}

Test(nic_tx, segments_cut_at_mss_with_short_last)
{
	struct tfx_pair *b = tfx_pair_new(NULL);
	int n = 0;
	uint32_t last = 0;

	nic_post(b->nic[0], b->neigh[1].ip, 10000, 1, DOORBELL);
	emu_sched_run_until(b->np.sched, EMU_PS_NEVER - 1);
	for (int i = 0; i < b->n_seen; i++)
		if (b->seen[i].kind == WIRE_KIND_DATA) {
			n++;
			last = b->seen[i].payload;
		}
	cr_assert_eq(n, 3, "ceil(10000 / 4096) packets");
	cr_assert_eq(last, 10000 - 2 * 4096);
	cr_assert_eq(b->done, 1);
	tfx_pair_free(b);
}

Test(nic_tx, unknown_destination_refused)
{
	struct tfx_pair *b = tfx_pair_new(NULL);

	cr_assert_eq(nic_post(b->nic[0], 0x01020304, 100, 1, DOORBELL), -EHOSTUNREACH);
	tfx_pair_free(b);
}

Test(nic_buffers, default_pool_sizes)
{
	struct tfx_pair *b = tfx_pair_new(NULL);

	/* uet-nic-records.md net-buff-stats table and uet-nic-configuration.md EgressBufferManager */
	cr_assert_eq(nic_pool_size(b->nic[0], false, 0), 3600000, "RX_TC0: 0.9 x 4,000,000");
	cr_assert_eq(nic_pool_size(b->nic[0], false, 1), 400000, "RX_TC1: 0.1 x 4,000,000");
	cr_assert_eq(nic_pool_size(b->nic[0], true, 0), 230400, "TX_TC0: 0.9 x 256,000");
	cr_assert_eq(nic_pool_size(b->nic[0], true, 1), 25600, "TX_TC1: 0.1 x 256,000");
	for (uint32_t tc = 2; tc < PORT_TC_COUNT; tc++) {
		cr_assert_eq(nic_pool_size(b->nic[0], false, tc), 0);
		cr_assert_eq(nic_pool_size(b->nic[0], true, tc), 0);
	}
	/* 230,400 B holds 54 full data packets of 4,202 B (uet-nic-buffers-and-pfc.md, Egress buffer) */
	cr_assert_eq(nic_pool_size(b->nic[0], true, 0) / 4202, 54);
	tfx_pair_free(b);
}

Test(nic_buffers, packet_sizes_nominal_and_on_the_wire)
{
	/* seed 000, Worked example: packet sizes at the default RdmaDataMSS */
	cr_assert_eq(4096 + WIRE_DATA_IP_OVERHEAD, 4184, "nominal packet");
	cr_assert_eq(4096 + WIRE_DATA_OVERHEAD, 4202, "on the wire");
	/* the 70.8 ns fetch: 1.555 ns request + 69.290 ns completion */
	cr_assert_eq(port_pcie_bytes(4096), 4368);
	cr_assert_eq(emu_ser_ps(64 + 34, 504320000000ULL) + emu_ser_ps(port_pcie_bytes(4096), 504320000000ULL), 70845);
}

Test(nic_pfc, pause_time_and_refresh_worked_example)
{
	/* uet-nic-buffers-and-pfc.md: 65,535 quanta x 512 bits / 400 Gb/s = 83.885 us, + 100 ns Delay = 83.985 us;
	 * refresh every half pause time, 41.99 us */
	emu_ps_t t = net_pfc_pause_time(65535, 400000000000ULL, 100 * EMU_PS_PER_NS);

	cr_assert_eq(t, 83984800);
	cr_assert_eq(t / 2, 41992400);
	cr_assert_eq(net_pfc_pause_time(0, 400000000000ULL, 100 * EMU_PS_PER_NS), 100000, "XON: no pause");
}

Test(nic_buffers, max_window_override_107_packets)
{
	struct nic_params p;

	nic_params_defaults(&p);
	/* uet-nic-configuration.md, MaxCongestionWindow: 107 packets of 4,184 B are 447,688 B */
	p.override_max_cwnd = true;
	cr_assert_eq(p.max_cwnd_pkts, 107);
	cr_assert_eq(nic_max_cwnd(&p, 400000000000ULL), 447688);
	/* and 1.5 x BDP without the override: BDP = 400 Gb/s x 6 us = 300,000 B */
	p.override_max_cwnd = false;
	cr_assert_eq(nic_max_cwnd(&p, 400000000000ULL), 450000);
	/* a 1 Gb/s link: 1.5 x 750 B */
	cr_assert_eq(nic_max_cwnd(&p, 1000000000ULL), 1125);
}

/* ---- UET frames of kinds the model does not act on; native encapsulation and the CRC trailer on send ---- */

/* A frame for host 1 from host 0 as a port would hand it over: @p type, @p next_hdr, @p kind. */
static struct wire_pkt *uet_frame(struct tfx_pair *b, uint8_t kind, uint8_t type, uint8_t nh)
{
	struct wire_pkt *p = net_pkt_alloc(&b->np);

	cr_assert_not_null(p);
	p->kind = kind;
	p->src_ip = b->neigh[0].ip;
	p->dst_ip = b->neigh[1].ip;
	p->ttl = 64;
	p->dscp = 46;
	p->sport = 300;
	p->dport = WIRE_UDP_PORT_UET;
	p->pds.type = type;
	p->pds.next_hdr = nh;
	p->pds.spdcid = 9;
	p->pds.psn = 1000;
	return p;
}

/* Every UET frame is counted by class. The UET 1.0 forms other than the model's own are acted on as UET 1.0 says
 * (tests/nic/test_pds.c has each answer): here, from a stranger, a RUD request without SYN and a CLOSE for no PDC
 * are NACKed, an ACK for no PDC is ignored, a UUD NO_OP delivers nothing; only a TSS frame, which cannot be read
 * without keys, is not used: counted by class and dropped, never charged to a pool nor answered. */
Test(nic_rx, uet_frames_counted_by_class_and_only_tss_not_used)
{
	struct tfx_pair *b = tfx_pair_new(NULL);
	struct nic *rx = b->nic[1];
	struct wire_pkt *p;

	p = uet_frame(b, WIRE_KIND_UET, WIRE_PDS_RUD_REQ, WIRE_NH_REQ_STD);
	p->ses.opcode = WIRE_SES_OP_ATOMIC;
	p->payload_len = 8;
	nic_dev_ops.receive(rx, 0, p, 0);
	p = uet_frame(b, WIRE_KIND_UET, WIRE_PDS_UUD_REQ, WIRE_NH_REQ_SMALL);
	nic_dev_ops.receive(rx, 0, p, 0);
	p = uet_frame(b, WIRE_KIND_UET, WIRE_PDS_CP, WIRE_CTL_CLOSE);
	nic_dev_ops.receive(rx, 0, p, 0);
	p = uet_frame(b, WIRE_KIND_UET, WIRE_PDS_ACK_CC, WIRE_NH_NONE);
	p->pds.cc_type = 1; /* credit */
	nic_dev_ops.receive(rx, 0, p, 0);
	p = uet_frame(b, WIRE_KIND_UET, WIRE_PDS_TSS, WIRE_NH_NONE);
	p->payload_len = 32;
	nic_dev_ops.receive(rx, 0, p, 0);
	p = uet_frame(b, WIRE_KIND_UET, WIRE_PDS_RUDI_RESP, WIRE_NH_RESPONSE);
	p->dst_ip = b->neigh[0].ip; /* not for this NIC: counted by class, then dropped as such */
	nic_dev_ops.receive(rx, 0, p, 0);

	const struct nic_uet_rx *u = nic_uet_rx(rx);
	const uint64_t *c = nic_counters(rx);

	cr_assert_eq(c[NIC_C_UET_NOT_USED], 1);
	cr_assert_eq(u->not_used[WIRE_PC_TSS], 1);
	cr_assert_eq(c[NIC_C_DROP_NOT_FOR_US], 1);
	for (int k = 0; k < WIRE_PC_COUNT; k++)
		cr_assert_eq(u->not_used[k], k == WIRE_PC_TSS, "not_used %s", wire_pds_class_key(k));
	cr_assert_eq(u->pds[WIRE_PC_RUDI_RESP], 1);
	cr_assert_eq(u->pds[WIRE_PC_TSS], 1);
	cr_assert_eq(u->ses[WIRE_SC_STD], 1);
	cr_assert_eq(u->ses[WIRE_SC_EXT_ATOMIC], 1);
	cr_assert_eq(u->ses[WIRE_SC_SMALL], 1);
	cr_assert_eq(u->ses[WIRE_SC_RESPONSE], 1);
	cr_assert_eq(u->ses[WIRE_SC_NONE], 3);
	cr_assert_eq(u->ev[NIC_UE_NACK_INV_DPDCID], 2, "the RUD request and the CLOSE");
	cr_assert_eq(u->ev[NIC_UE_REQ_NO_DELIVERY], 1, "the UUD NO_OP");
	cr_assert_eq(c[NIC_C_LATE_NO_PDC], 1, "the ACK for no PDC");
	cr_assert_eq(c[NIC_C_NACK_PKTS_SENT], 2);
	cr_assert_eq(c[NIC_C_ACK_PKTS_SENT] + c[NIC_C_DROP_BAD_KIND], 0);

	/* the model's own frames: one 8 KiB message is 2 data packets at host 1, their ACKs and a probe ACK at host 0 */
	tfx_pair_run(b, 8192);
	cr_assert_eq(b->done, 1);
	cr_assert_eq(u->pds[WIRE_PC_RUD_CC_REQ], 2);
	cr_assert_eq(u->ses[WIRE_SC_STD], 3);
	cr_assert_eq(nic_uet_rx(b->nic[0])->pds[WIRE_PC_ACK_CC], nic_counters(b->nic[0])[NIC_C_ACK_PKTS_RCVD]);
	cr_assert_eq(c[NIC_C_UET_NOT_USED], 1, "the model's own frames are all used");
	tfx_pair_free(b);
}

static void tune_native_crc(struct nic_params *p)
{
	p->encapsulation = NIC_ENCAP_NATIVE_IPV4;
	p->crc_trailer = true;
}

static void tune_native(struct nic_params *p)
{
	p->encapsulation = NIC_ENCAP_NATIVE_IPV4;
}

/* Native IPv4 takes 4 bytes off every UET frame, the CRC trailer adds 4 to all but a trimmed one: a full data
 * frame is 4,198 B on the wire native (83.96 ns at 400 Gb/s back to back), 4,202 B native with the trailer; the
 * message completes and every frame carries the encapsulation it was sent with. */
Test(nic_tx, native_and_crc_encapsulation_sizes)
{
	static const struct { void (*tune)(struct nic_params *); uint8_t encap; size_t data, ack; emu_ps_t gap; } c[] = {
		{ tune_native, WIRE_ENCAP_NATIVE, 4198, 74, 83960 },
		{ tune_native_crc, WIRE_ENCAP_NATIVE | WIRE_ENCAP_CRC, 4202, 78, 84040 },
	};

	for (size_t k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		struct tfx_opts o = { .tune = c[k].tune };
		struct tfx_pair *b = tfx_pair_new(&o);
		int data = 0, acks = 0, gaps = 0;
		emu_ps_t prev = 0;
		bool prev_data = false;

		tfx_pair_run(b, 64 * 4096);
		cr_assert_eq(b->done, 1, "case %zu", k);
		for (int i = 0; i < b->n_seen; i++) {
			struct tfx_seen *s = &b->seen[i];

			cr_assert_eq(s->p.encap, c[k].encap, "case %zu frame %d", k, i);
			if (s->dir == 0 && s->kind == WIRE_KIND_DATA) {
				cr_assert_eq(s->wire_len, c[k].data, "case %zu", k);
				if (prev_data && s->t - prev == c[k].gap)
					gaps++;
				data++;
			}
			if (s->dir == 0) {
				prev = s->t;
				prev_data = s->kind == WIRE_KIND_DATA;
			}
			if (s->dir == 1 && s->kind == WIRE_KIND_ACK) {
				cr_assert_eq(s->wire_len, c[k].ack, "case %zu", k);
				acks++;
			}
		}
		cr_assert_eq(data, 64);
		cr_assert_gt(acks, 0);
		cr_assert_gt(gaps, 50, "case %zu: back-to-back data frames %d times", k, gaps);
		tfx_pair_free(b);
	}
}
