/* The Chakra replay's transports over the hosts' NICs (docs/chakra.md): each transfer between two ranks on
 * different servers is one RDMA WRITE from the sender's NIC to the receiver's, through the host-NIC interface
 * (port_nic.h), whichever the model. How the receiving NIC names a message decides how the transport uses the
 * NIC's connections (enum app_ck_net_kind): a connection per transfer, known by the sender's 16-bit message id
 * (the Scala UET NIC's PDCs), or connections reused between the same two hosts once idle, known by the connection
 * and the message's number on it (the Scala RoCE NIC's queue pairs). Transfers inside a scale-up group go to its
 * fabric (app_ck_su) instead. The caller posts through app_ck_net_xport() and hands the NICs' reports to
 * app_ck_net_done/sent/recv/recv_qp. */
#ifndef APP_CHAKRA_NET_H
#define APP_CHAKRA_NET_H

#include <stdbool.h>
#include <stdint.h>

#include "app_chakra.h"
#include "emu_time.h"
#include "port_nic.h"

struct app_ck_net;

/* msg_done and msg_sent cookies with this bit set belong to the Chakra transports (a transfer slot below it). */
#define APP_CK_COOKIE (1ULL << 62)

/* How the receiver names a message, and so how the transport uses the NIC's connections. */
enum app_ck_net_kind {
	/* a connection per transfer (post_msg; the receiving end closed at the acknowledgment, close_rcv), named by
	 * the sender's message number, 1, 2, ... in posting order, of which the receiver sees the low 16 bits */
	APP_CK_NET_MSG_ID = 0,
	/* connections reused (conn_open once, then conn_post), one transfer at a time each, the idle ones kept per
	 * (sender, receiver); named by the connection (24 bits on the wire) and the message's number on it */
	APP_CK_NET_CONN_MSN,
};

/* The hosts and where the ranks run. */
struct app_ck_net_params {
	uint8_t kind;              /* enum app_ck_net_kind: what the hosts' NICs report */
	uint32_t n_hosts;
	const uint32_t *host_ip;   /* [n_hosts] IPv4 address of each host, index = the NIC's */
	const bool *external;      /* [n_hosts] true for a host that is not emulated (no NIC here); NULL: none */
	uint32_t n_ranks;
	const uint32_t *rank_host; /* [n_ranks] the host each rank runs on */
};

/**
 * The transport of @p p (copied; its arrays borrowed, to outlive the transport) over the hosts' NICs @p hosts
 * (n_hosts entries, index = host; borrowed too). Returns it, or NULL with errno EINVAL (an unknown kind) or ENOMEM.
 */
struct app_ck_net *app_ck_net_create(const struct app_ck_net_params *p, const struct port_nic *hosts);

/** Free; accepts NULL. */
void app_ck_net_destroy(struct app_ck_net *t);

/** The replay whose app_ck_sent/delivered/acked the transport calls, and the scale-up fabric (NULL: none) that
 *  carries the transfers between ranks of one group. Before the first post. */
void app_ck_net_bind(struct app_ck_net *t, struct app_ck_run *run, struct app_ck_su *su);

/** The transport, for app_ck_run_create(). */
struct app_ck_xport app_ck_net_xport(struct app_ck_net *t);

/** msg_done of a transfer (@p cookie has APP_CK_COOKIE) from either NIC: acknowledged at the sender; its PDC or
 *  queue pair is free. Cookies naming no transfer in flight are ignored. */
void app_ck_net_done(struct app_ck_net *t, uint64_t cookie, emu_ps_t now);

/** msg_sent of a transfer, from either NIC: its last byte left the NIC; the send node finishes. */
void app_ck_net_sent(struct app_ck_net *t, uint64_t cookie, emu_ps_t now);

/** APP_CK_NET_MSG_ID (the UET NIC's msg_recv) at host @p host: all @p bytes of message @p msg_id from @p src_ip
 *  arrived. A message that names no transfer of the workload to this host is counted
 *  (app_ck_net_recv_unmatched), never trusted. Nothing on the other kind. */
void app_ck_net_recv(struct app_ck_net *t, uint32_t host, uint32_t src_ip, uint64_t msg_id, uint64_t bytes,
		     emu_ps_t now);

/** APP_CK_NET_CONN_MSN (the RoCE NIC's msg_recv) at host @p host: message @p msn of connection @p qpn from
 *  @p src_ip arrived whole. One that names no transfer exactly (host, connection, message number) is counted,
 *  never trusted. Nothing on the other kind. */
void app_ck_net_recv_qp(struct app_ck_net *t, uint32_t host, uint32_t src_ip, uint32_t qpn, uint32_t msn,
			  uint64_t bytes, emu_ps_t now);

/** Receptions that matched no transfer; transfers whose receive could not be matched (65,536 messages of one
 *  sender outstanding on UET NICs). */
uint64_t app_ck_net_recv_unmatched(const struct app_ck_net *t);
uint64_t app_ck_net_id_clashes(const struct app_ck_net *t);

#endif /* APP_CHAKRA_NET_H */
