/* The PCIe host interface both NIC models use (port_pcie.h). */
#include "port_pcie.h"

uint64_t port_pcie_bytes(uint64_t payload)
{
	uint64_t n = (payload + PORT_PCIE_MAX_PAYLOAD - 1) / PORT_PCIE_MAX_PAYLOAD;

	if (n == 0)
		n = 1; /* an empty completion still carries one transfer header */
	return payload + n * PORT_PCIE_OVERHEAD;
}

void port_pcie_init(struct port_pcie_link *l, uint64_t n2h_bps, uint64_t h2n_bps)
{
	*l = (struct port_pcie_link){ .bps = { n2h_bps, h2n_bps } };
}

emu_ps_t port_pcie_doorbell(struct port_pcie_link *l, uint64_t db, emu_ps_t now)
{
	uint64_t bytes = port_pcie_bytes(db);
	emu_ps_t start = l->busy[1] > now ? l->busy[1] : now;
	emu_ps_t t = emu_ser_ps(bytes, l->bps[1]);

	l->busy[1] = start + t;
	port_pcie_count(l, 1, (bytes - db) / PORT_PCIE_OVERHEAD, bytes, db, t);
	return l->busy[1];
}

void port_pcie_fetch_plan(const struct port_pcie_link *l, uint64_t req_bytes, uint32_t payload, emu_ps_t now,
			 struct port_pcie_fetch *f)
{
	emu_ps_t req = l->busy[0] > now ? l->busy[0] : now;

	f->payload = payload;
	f->req_bytes = req_bytes;
	f->t_req = emu_ser_ps(req_bytes, l->bps[0]);
	f->cpl_bytes = port_pcie_bytes(payload);
	f->t_cpl = emu_ser_ps(f->cpl_bytes, l->bps[1]);
	f->req_end = req + f->t_req;
	f->cpl_end = (l->busy[1] > f->req_end ? l->busy[1] : f->req_end) + f->t_cpl;
}

void port_pcie_fetch_charge(struct port_pcie_link *l, const struct port_pcie_fetch *f)
{
	l->busy[0] = f->req_end;
	l->busy[1] = f->cpl_end;
	port_pcie_count(l, 0, 1, f->req_bytes, 0, f->t_req);
	port_pcie_count(l, 1, (f->cpl_bytes - f->payload) / PORT_PCIE_OVERHEAD, f->cpl_bytes, f->payload, f->t_cpl);
}

emu_ps_t port_pcie_write(struct port_pcie_link *l, uint32_t payload, uint64_t cap, emu_ps_t now)
{
	uint64_t bytes = port_pcie_bytes(payload);
	emu_ps_t start = l->busy[0] > now ? l->busy[0] : now;
	emu_ps_t accept = start;

	if (cap >= bytes) {
		emu_ps_t room = emu_ser_ps(cap - bytes, l->bps[0]);

		accept = start > now + room ? start - room : now;
	}
	emu_ps_t t_wr = emu_ser_ps(bytes, l->bps[0]);

	l->busy[0] = start + t_wr;
	port_pcie_count(l, 0, (bytes - payload) / PORT_PCIE_OVERHEAD, bytes, payload, t_wr);
	return accept;
}

void port_pcie_link_stats(const struct port_pcie_link *l, struct port_pcie_stats *out, emu_ps_t now)
{
	*out = l->st;
	out->bps[0] = l->bps[0];
	out->bps[1] = l->bps[1];
	for (int side = 0; side < 2; side++)
		if (l->busy[side] > now)
			out->busy_ps[side] -= l->busy[side] - now;
}
