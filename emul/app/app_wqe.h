/* The Scala RDMA application's fixed WQE and its closed-loop counts (spec seeds/003, WQEs and Closed-loop
 * generation): integer arithmetic only, header-only so the NIC and the records can share it. */
#ifndef APP_WQE_H
#define APP_WQE_H

#include <stdint.h>

/** Every WQE is an RDMA WRITE of this many bytes. */
#define APP_WQE_BYTES 250000u
/** UDP and IPv4 headers added to the doorbell's DoorbellPayloadSize on the PCIe link. */
#define APP_DOORBELL_HDR_BYTES 28u
/** Defaults and range of the Initiator's attributes. */
#define APP_DOORBELL_PAYLOAD_DEFAULT 64u
#define APP_MAX_PENDING_WQES_DEFAULT 10u
#define APP_NUM_CONNECTIONS_DEFAULT 1u
#define APP_NUM_CONNECTIONS_MAX 1024u

/** Bytes of one doorbell on the host-to-NIC PCIe direction: DoorbellPayloadSize + 28 (64 + 28 = 92). */
static inline uint64_t app_doorbell_bytes(uint32_t payload)
{
	return (uint64_t)payload + APP_DOORBELL_HDR_BYTES;
}

/** Packets of a WQE of @p bytes cut at @p mss bytes (non-zero): ceil(bytes / mss); 62 for 250,000 B at 4,096. */
static inline uint32_t app_wqe_packets(uint32_t bytes, uint32_t mss)
{
	return bytes / mss + (bytes % mss != 0);
}

/** Payload of the WQE's last packet: 144 B for 250,000 B at 4,096 (61 full packets carry 249,856). */
static inline uint32_t app_wqe_last_bytes(uint32_t bytes, uint32_t mss)
{
	return bytes % mss != 0 ? bytes % mss : mss;
}

/** WQEs outstanding in the topology, NumConnections x MaxPendingWQEs per pair: 8 x 1 x 10 = 80 at the defaults
 * on 16 hosts. Per connection: MaxPendingWQEs; of those one is on the wire, the others wait at the NIC. */
static inline uint64_t app_wqes_outstanding(uint32_t n_pairs, uint32_t num_connections, uint32_t max_pending)
{
	return (uint64_t)n_pairs * num_connections * max_pending;
}

#endif /* APP_WQE_H */
