/* The PCIe link's transaction-layer buffers (Scala UET NIC page *Buffers and PFC*, PCIe host interface: "A transfer
 * waits in its transmit buffer until it can go on the link, and is sent only when the receiving end has buffer space
 * for it"). Two NICs back to back, exact numbers. */
#include <criterion/criterion.h>

#include "net.h"
#include "nic.h"
#include "nic_pair.h"
#include "nic_params.h"

/* Host side on 8 lanes (252.16 Gb/s): a 4,096 B payload's completion, 4,368 B, takes 138.579 ns on the host-to-NIC
 * direction, longer than the frame's 84.04 ns, so the fetches set the pace. */
static void eight_host_lanes(struct nic_params *p)
{
	p->pcie_host.lane_count = 8;
}

/* ... and a NIC-side receive data buffer with room for one packet's completion. */
static void eight_host_lanes_one_completion(struct nic_params *p)
{
	eight_host_lanes(p);
	p->pcie_nic.rx_data_buffer = 4096;
}

/* The times host 0's first @p n data frames went on the wire, for a message of @p n full packets. */
static void frame_times(void (*tune)(struct nic_params *), emu_ps_t *t, int n)
{
	struct tfx_opts o = { .tune = tune };
	struct tfx_pair *b = tfx_pair_new(&o);
	int k = 0;

	tfx_pair_run(b, (uint64_t)n * 4096);
	for (int i = 0; i < b->n_seen && k < n; i++)
		if (b->seen[i].kind == WIRE_KIND_DATA && b->seen[i].dir == 0)
			t[k++] = b->seen[i].t;
	cr_assert_eq(k, n);
	cr_assert_eq(b->done, 1);
	tfx_pair_free(b);
}

Test(nic_pcie, nic_receive_buffer_bounds_the_completions_in_flight)
{
	/* The NIC's completions land in its RXDataBufferSize. At 256 KB many fetches overlap: the completions follow
	 * each other on the link, one every 138.579 ns, after the first at 15 + 1.555 + 138.579 ns. With room for one
	 * 4,096 B completion, the NIC reads the next payload only when the last one has arrived: each fetch costs its
	 * read request too, 1.555 + 138.579 = 140.134 ns a packet. */
	emu_ps_t many[8], one[8];

	frame_times(eight_host_lanes, many, 8);
	frame_times(eight_host_lanes_one_completion, one, 8);
	for (int k = 0; k < 8; k++) {
		cr_assert_eq(many[k], 155134 + 138579 * (emu_ps_t)k, "256 KB: frame %d at %llu ps", k,
			     (unsigned long long)many[k]);
		cr_assert_eq(one[k], 155134 + 140134 * (emu_ps_t)k, "4,096 B: frame %d at %llu ps", k,
			     (unsigned long long)one[k]);
	}
}

static void host_rx_data_256(struct nic_params *p)
{
	p->pcie_host.rx_data_buffer = 256;
}

static void host_tx_header_8(struct nic_params *p)
{
	p->pcie_host.tx_header_buffer = 8;
}

/* Run one 64 KiB message with @p tune; return the pair for the caller to look at (and free). */
static struct tfx_pair *small_buffer_run(void (*tune)(struct nic_params *))
{
	struct tfx_opts o = { .tune = tune };
	struct tfx_pair *b = tfx_pair_new(&o);

	cr_assert_eq(nic_post(b->nic[0], b->neigh[1].ip, 65536, 1, 0), 0);
	emu_sched_run_until(b->np.sched, 1000 * EMU_PS_PER_US);
	return b;
}

Test(nic_pcie, host_receive_buffer_smaller_than_a_transfer_holds_received_data_in_the_pool)
{
	/* The host side's RXDataBufferSize 256 B cannot take one 512 B write: the receiving NIC's writes never go, so
	 * its received data stays in its receive pool and reaches no host (the sender still gets its ACKs). */
	struct tfx_pair *b = small_buffer_run(host_rx_data_256);
	struct port_pool_stats s;

	nic_pool_stats(b->nic[1], false, 0, &s);
	cr_assert_eq(nic_counters(b->nic[1])[NIC_C_RX_PAYLOAD_BYTES], 0);
	cr_assert_eq(s.occupancy, 16 * 4184, "16 packets held (%llu B)", (unsigned long long)s.occupancy);
	cr_assert_eq(b->recv, 0);
	tfx_pair_free(b);
}

Test(nic_pcie, host_transmit_buffer_smaller_than_a_header_sends_no_payload)
{
	/* The host side's TXHeaderBufferSize 8 B cannot hold one 16 B transfer header: the host never answers a read,
	 * so no payload reaches the NIC and nothing is sent. */
	struct tfx_pair *b = small_buffer_run(host_tx_header_8);

	cr_assert_eq(nic_counters(b->nic[0])[NIC_C_WRITE_PKTS_SENT], 0);
	cr_assert_eq(b->done, 0);
	tfx_pair_free(b);
}
