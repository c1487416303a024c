/* Inside the Chakra workload driver: the state its files share (ctl_chakra.c: placement and transport over the
 * UET NICs; ctl_chakra_roce.c: the transport over the RoCE NICs; ctl_chakra_rec.c: its records and summary). */
#ifndef CTL_CHAKRA_PVT_H
#define CTL_CHAKRA_PVT_H

#include "app_chakra.h"
#include "ctl_chakra.h"
#include "rec.h"

/* One transfer in a NIC: posted, not yet acknowledged. */
struct ck_slot {
	uint64_t xfer;      /* app_ck_run's id of the send node */
	uint32_t src, dst;  /* hosts */
	uint16_t pdc;       /* the sending PDC, to close the receiving end on completion */
	uint16_t msg_id;    /* the 16-bit message id the receiver sees */
	uint8_t used, recvd;
	uint32_t qp;        /* RoCE: its queue pair, an index into ctl_chakra_run.qps */
};

/* One queue pair the workload opened on a RoCE NIC, from host src to host dst. It carries one transfer at a time
 * and goes back to its pair's idle list when the transfer is acknowledged, for the next transfer between the two. */
struct ck_qp {
	uint32_t src, dst;  /* hosts */
	uint32_t qpn;       /* the sending NIC's number, which the receiver reports (24 bits on the wire) */
	uint32_t msgs;      /* work requests posted on it: the receiver's msn of the latest one */
	uint32_t slot;      /* the transfer in flight on it; CK_NONE when idle */
	uint32_t next_idle; /* the next idle queue pair of the same (src, dst); CK_NONE ends the list */
};

#define CK_NONE UINT32_MAX
/* Keys of the one map (mkeys/mvals): the UET side's (src host << 16 | msg_id) + 1 stays below 2^49; the others carry
 * their kind in bits 60-61 (the hosts by IP for both transports, the queue pairs for RoCE). */
#define CK_KEY_IP (1ULL << 60)   /* | IPv4 address -> host */
#define CK_KEY_QP (2ULL << 60)   /* | src host << 24 | qpn -> index into qps */
#define CK_KEY_PAIR (3ULL << 60) /* | src host << 30 | dst host -> the pair's first idle queue pair */

/* What the collective records gather per collective (coll_id). */
struct ck_coll {
	emu_ps_t end;         /* latest acknowledgment of its transfers */
	uint64_t acked;       /* its transfers acknowledged */
	emu_ps_t *first;      /* per group position: the rank's first transfer start; UINT64_MAX none yet */
	uint64_t busiest_bytes; /* bytes the busiest rank sends: the ideal time's work */
};

struct ctl_chakra_run {
	const struct ctl_config *cfg;
	const struct ctl_chakra *ck;
	struct app_ck_set set;
	struct app_ck_prep_out prep;
	uint32_t *rank_host;  /* rank -> host index */
	int32_t *host_rank;   /* host index -> rank, -1 */
	struct app_ck_run *run;
	/* scale-up groups (ctl_chakra_map.c), from the mapping file; su_members 0 without groups */
	int32_t *rank_group;              /* rank -> index into su_groups, APP_CK_NONE */
	uint32_t *rank_sub;               /* rank -> subgroup */
	struct app_ck_su_group *su_groups;
	int64_t *su_group_ids;            /* the ids the file gives the groups */
	uint32_t n_su_groups, su_members;
	struct app_ck_su *su;             /* the scale-up fabric, NULL without groups */
	uint64_t (*su_prev)[2];           /* per rank: scale-up bytes sent and received at the last nd-stats rows */
	struct net_part *np;
	struct nic *const *nics;
	struct roce *const *roces; /* the hosts' RoCE NICs (server.nic ScalaRoceNic); NULL on UET NICs */
	struct ck_qp *qps;
	uint32_t n_qps, cap_qps;
	uint64_t *posts;      /* per host: messages posted on its NIC (the next message id is posts + 1) */
	struct ck_slot *slots;
	uint32_t n_slots, cap_slots, *free_slots, n_free;
	uint64_t *mkeys;      /* (src host << 16 | msg_id) + 1 -> slot, and the CK_KEY_* keys; 0 = empty */
	uint32_t *mvals, mcap, mn;
	struct ck_coll *colls;
	emu_ps_t start, stop, last_end;
	uint64_t post_errors, recv_unknown, id_clashes;
	/* records */
	int64_t epoch_s;
	struct rec_csv *perf, *completion, *cdf;
	char dir[512];
	uint64_t tot_bytes, tot_sends, tot_recvs, tot_comps; /* the run's totals, the cdf's denominators */
	uint64_t acked_bytes;
};

/* ctl_chakra_map.c: read the mapping file into rank_host/host_rank and the scale-up groups. */
int ck_map_read(struct ctl_chakra_run *k, char *err, size_t errlen);

/* ctl_chakra_su.c: the scale-up fabric of the mapping file's groups, replaying into k->run. */
int ck_su_start(struct ctl_chakra_run *k, struct emu_sched *s, char *err, size_t errlen);

/* ctl_chakra.c: the map and the transfer slots */
long ck_map_find(const struct ctl_chakra_run *k, uint64_t key);
int ck_map_put(struct ctl_chakra_run *k, uint64_t key, uint32_t val);
void ck_map_del(struct ctl_chakra_run *k, uint32_t j);
long ck_slot_new(struct ctl_chakra_run *k);
/* Slot @p s (in use, or taken by ck_slot_new and never filled) is free for the next transfer. */
void ck_slot_free(struct ctl_chakra_run *k, uint32_t s);
/* The emulated host of IPv4 address @p ip (the map's CK_KEY_IP entries, put at ctl_chakra_start), or -1. */
long ck_host_by_ip(const struct ctl_chakra_run *k, uint32_t ip);

/* ctl_chakra_roce.c */
int ck_roce_post(void *ctx, uint32_t src, uint32_t dst, uint64_t bytes, uint64_t xfer, emu_ps_t now);
void ck_roce_done(struct ctl_chakra_run *k, uint32_t s, emu_ps_t now);

/* ctl_chakra_rec.c */
int ck_rec_open(struct ctl_chakra_run *k, const char *dir, char *err, size_t errlen);
void ck_rec_perf(struct ctl_chakra_run *k, const struct app_ck_xfer_done *x);
void ck_rec_rank_end(struct ctl_chakra_run *k, uint32_t rank, const struct app_ck_rank_stats *st, emu_ps_t now);
int ck_rec_close(struct ctl_chakra_run *k, emu_ps_t end, char *err, size_t errlen);
void ck_rec_cdf_start(struct ctl_chakra_run *k);
int ck_rec_prof_start(struct ctl_chakra_run *k, char *err, size_t errlen);

#endif
