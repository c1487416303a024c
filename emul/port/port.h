/* What a host NIC's port keeps the same way in both NIC models: the neighbour table it addresses frames with, and
 * the statistics of its buffer pools (net-buff-stats). The port's other shared parts have their own headers:
 * port_params.h (classes and buffer attributes), port_sched.h (the egress scheduler), port_pfcs.h (PFC),
 * port_pcie.h (the PCIe host link), port_nic.h (the interface every host NIC model implements). */
#ifndef PORT_H
#define PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** IPv4 to MAC, for the Ethernet header (no ARP inside the model). */
struct port_neigh {
	uint32_t ip;
	uint8_t mac[6];
};

/**
 * The destination MAC of frames to neighbour @p ip in table @p t of @p n entries: @p gw_mac when the NIC has a
 * gateway (@p has_gw: its link goes to a switch), else the neighbour's own; NULL when @p ip is not a neighbour.
 * When a connection is made, never per packet: O(1) where the table's addresses run on from its first (a generated
 * fabric's hosts, 10.0.0.1 + index: the entry the offset points at is the one, addresses being unique), else
 * linear.
 */
static inline const uint8_t *port_neigh_mac(const struct port_neigh *t, uint32_t n, bool has_gw,
					    const uint8_t *gw_mac, uint32_t ip)
{
	uint32_t g = n > 0 ? ip - t[0].ip : 0;

	if (g < n && t[g].ip == ip)
		return has_gw ? gw_mac : t[g].mac;
	for (uint32_t i = 0; i < n; i++)
		if (t[i].ip == ip)
			return has_gw ? gw_mac : t[i].mac;
	return NULL;
}

/** One buffer pool (net-buff-stats): a receive pool RX_TC<n>_BUFFER or a transmit pool TX_TC<n>_BUFFER. */
struct port_pool_stats {
	uint64_t size;              /* buffer_max_size_B */
	uint64_t occupancy;         /* bytes held now */
	uint64_t max_occupancy;     /* since the start */
	uint64_t ivl_max_occupancy; /* since nic_pool_interval_reset() */
	uint64_t num_enq, num_deq;  /* packets charged and released */
	uint64_t enq_bytes, deq_bytes;
	uint64_t overflow;          /* packets refused because the pool was full */
};

/** A pool charged @p bytes, holding @p occupancy_with_it with them (both NIC models count their pools so). */
static inline void port_pool_enq(struct port_pool_stats *s, uint64_t bytes, uint64_t occupancy_with_it)
{
	s->num_enq++;
	s->enq_bytes += bytes;
	if (occupancy_with_it > s->max_occupancy)
		s->max_occupancy = occupancy_with_it;
	if (occupancy_with_it > s->ivl_max_occupancy)
		s->ivl_max_occupancy = occupancy_with_it;
}

/** A pool released @p bytes. */
static inline void port_pool_deq(struct port_pool_stats *s, uint64_t bytes)
{
	s->num_deq++;
	s->deq_bytes += bytes;
}

#endif /* PORT_H */
