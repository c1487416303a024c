/* Inside the Chakra transports: the state their files share (app_chakra_net.c: the map, the transfer slots, the
 * dispatch and the APP_CK_NET_MSG_ID transport; app_chakra_qp.c: the APP_CK_NET_CONN_MSN one). */
#ifndef APP_CHAKRA_NET_PVT_H
#define APP_CHAKRA_NET_PVT_H

#include "app_chakra_net.h"

/* One transfer in a NIC: posted, not yet acknowledged. */
struct app_ck_slot {
	uint64_t xfer;      /* app_ck_run's id of the send node */
	uint32_t src, dst;  /* hosts */
	uint32_t conn;      /* MSG_ID: the sending connection, whose receiving end closes on completion */
	uint16_t msg_id;    /* MSG_ID: the 16-bit message id the receiver sees */
	uint8_t used, recvd;
	uint32_t qp;        /* CONN_MSN: its connection, an index into app_ck_net.qps */
};

/* One connection (a RoCE NIC's queue pair) the workload opened, from host src to host dst. It carries one transfer
 * at a time and goes back to its pair's idle list when the transfer is acknowledged, for the next transfer between
 * the two. */
struct app_ck_qp {
	uint32_t src, dst;  /* hosts */
	uint32_t qpn;       /* the sending NIC's connection number, which the receiver reports (24 bits on the wire) */
	uint32_t msgs;      /* work requests posted on it: the receiver's msn of the latest one */
	uint32_t slot;      /* the transfer in flight on it; APP_CK_NET_NONE when idle */
	uint32_t next_idle; /* the next idle queue pair of the same (src, dst); APP_CK_NET_NONE ends the list */
};

#define APP_CK_NET_NONE UINT32_MAX
/* Keys of the one map (mkeys/mvals): the UET side's (src host << 16 | msg_id) + 1 stays below 2^49; the others carry
 * their kind in bits 60-61 (the hosts by IP for both transports, the connections for CONN_MSN). */
#define APP_CK_KEY_IP (1ULL << 60)   /* | IPv4 address -> host */
#define APP_CK_KEY_QP (2ULL << 60)   /* | src host << 24 | qpn -> index into qps */
#define APP_CK_KEY_PAIR (3ULL << 60) /* | src host << 30 | dst host -> the pair's first idle queue pair */

struct app_ck_net {
	struct app_ck_net_params p;
	const struct port_nic *hosts; /* the hosts' NICs, index = host */
	struct app_ck_run *run;
	struct app_ck_su *su;
	struct app_ck_qp *qps;
	uint32_t n_qps, cap_qps;
	uint64_t *posts;      /* MSG_ID, per host: messages posted on its NIC (the next message id is posts + 1) */
	struct app_ck_slot *slots;
	uint32_t n_slots, cap_slots, *free_slots, n_free;
	uint64_t *mkeys;      /* (src host << 16 | msg_id) + 1 -> slot, and the APP_CK_KEY_* keys; 0 = empty */
	uint32_t *mvals, mcap, mn;
	uint64_t recv_unknown, id_clashes;
};

/* app_chakra_net.c: the map (linear probing) and the transfer slots */
long app_ck_map_find(const struct app_ck_net *t, uint64_t key);
int app_ck_map_put(struct app_ck_net *t, uint64_t key, uint32_t val);
void app_ck_map_del(struct app_ck_net *t, uint32_t j);
long app_ck_slot_new(struct app_ck_net *t);
/* Slot @p s (in use, or taken by app_ck_slot_new and never filled) is free for the next transfer. */
void app_ck_slot_free(struct app_ck_net *t, uint32_t s);
/* The emulated host of IPv4 address @p ip, or -1. */
long app_ck_host_by_ip(const struct app_ck_net *t, uint32_t ip);

/* app_chakra_qp.c: the APP_CK_NET_CONN_MSN transport's post (an app_ck_xport.post) and acknowledgment */
int app_ck_qp_post(void *ctx, uint32_t src, uint32_t dst, uint64_t bytes, uint64_t xfer, emu_ps_t now);
void app_ck_qp_done(struct app_ck_net *t, uint32_t s, emu_ps_t now);

#endif /* APP_CHAKRA_NET_PVT_H */
