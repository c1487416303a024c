/* The PCIe host interface of a NIC, shared by the Scala UET NIC and the Scala RoCE NIC, whose pages describe the
 * same link: each direction at its end's LaneCount x LaneBps, transfers of at most 512 B of payload with 34 B of
 * overhead each, serialized in order; a doorbell and the segments' completions on the host-to-NIC direction, read
 * requests and received-data writes on the NIC-to-host direction; received data leaves the NIC's receive pool when
 * the NIC side's transmit buffer accepts its write. Busy-until arithmetic only: no allocation, no event. */
#ifndef PORT_PCIE_H
#define PORT_PCIE_H

#include <stdint.h>

#include "emu_time.h"

/** PCIe: at most 512 B of payload per transfer, 34 B of protocol overhead each, 64 B read requests. */
#define PORT_PCIE_MAX_PAYLOAD 512
#define PORT_PCIE_OVERHEAD 34
#define PORT_PCIE_READ_REQ 64
#define PORT_PCIE_TLP_HDR 16 /* a transfer's header in the transaction-layer header buffers (4DW TLP header) */

/** Bytes on the PCIe link for a transfer of @p payload bytes: ceil(payload / 512) x 34 overhead + payload. */
uint64_t port_pcie_bytes(uint64_t payload);

/** PCIe counters per direction (pcie-stats): [0] NIC-to-host (the NIC side's), [1] host-to-NIC. */
struct port_pcie_stats {
	uint64_t bps[2];            /* LaneCount x LaneBps of that end's transmit direction */
	uint64_t tlps[2];           /* transfers sent: read requests, completions, writes */
	uint64_t bytes[2];          /* bytes on the link, 34 B of overhead per transfer included */
	uint64_t payload_bytes[2];  /* payload bytes carried */
	emu_ps_t busy_ps[2];        /* link time spent up to now (transfers are counted when issued) */
};

/** One NIC's link: embedded in each NIC, hence public. */
struct port_pcie_link {
	uint64_t bps[2];            /* [0] NIC-to-host, [1] host-to-NIC */
	emu_ps_t busy[2];           /* each direction is busy until then */
	struct port_pcie_stats st;
};

/** A zero link of @p n2h_bps and @p h2n_bps. */
void port_pcie_init(struct port_pcie_link *l, uint64_t n2h_bps, uint64_t h2n_bps);

/** Count a transfer of @p bytes (@p tlps transfers, @p payload of them payload) on direction @p side taking @p ps. */
static inline void port_pcie_count(struct port_pcie_link *l, int side, uint64_t tlps, uint64_t bytes, uint64_t payload,
				  emu_ps_t ps)
{
	l->st.tlps[side] += tlps;
	l->st.bytes[side] += bytes;
	l->st.payload_bytes[side] += payload;
	l->st.busy_ps[side] += ps;
}

/** The host writes a doorbell of @p db bytes on the host-to-NIC direction at @p now; returns when it has landed. */
emu_ps_t port_pcie_doorbell(struct port_pcie_link *l, uint64_t db, emu_ps_t now);

/** One segment's fetch, planned (port_pcie_fetch_plan()) before it is charged (port_pcie_fetch_charge()). */
struct port_pcie_fetch {
	emu_ps_t req_end;  /* the read request has left: NIC-to-host busy until then */
	emu_ps_t cpl_end;  /* the payload has arrived: host-to-NIC busy until then */
	emu_ps_t t_req, t_cpl;
	uint64_t req_bytes;
	uint64_t cpl_bytes;
	uint32_t payload;
};

/** Plan the fetch of @p payload bytes at @p now: a read request of @p req_bytes on the link (64 + 34 B), then the
 *  completion behind whatever the host-to-NIC direction carries. Nothing is charged. */
void port_pcie_fetch_plan(const struct port_pcie_link *l, uint64_t req_bytes, uint32_t payload, emu_ps_t now,
			 struct port_pcie_fetch *f);

/** Charge a planned fetch to the link. */
void port_pcie_fetch_charge(struct port_pcie_link *l, const struct port_pcie_fetch *f);

/**
 * Write @p payload received bytes to the host at @p now, on the NIC-to-host direction behind the writes and requests
 * ahead of it; @p cap is the bytes the NIC side's transmit buffers hold waiting for the link. Returns when the
 * buffers accept it (now, or when the link has drained enough ahead of it): the packet leaves the receive pool then.
 */
emu_ps_t port_pcie_write(struct port_pcie_link *l, uint32_t payload, uint64_t cap, emu_ps_t now);

/** The counters, with link time still ahead of @p now not counted as busy yet. */
void port_pcie_link_stats(const struct port_pcie_link *l, struct port_pcie_stats *out, emu_ps_t now);

#endif /* PORT_PCIE_H */
