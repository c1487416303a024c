/* Inside the Chakra workload driver: the state its files share (ctl_chakra.c: the traceset, placement, and the
 * replay and its transports (emul/app) made and bound to the NICs; ctl_chakra_map.c: the mapping file;
 * ctl_chakra_su.c: the scale-up fabric's records; ctl_chakra_rec.c and ctl_chakra_end.c: records and summary). */
#ifndef CTL_CHAKRA_PVT_H
#define CTL_CHAKRA_PVT_H

#include "app_chakra.h"
#include "app_chakra_net.h"
#include "ctl_chakra.h"
#include "rec.h"

/* What the collective records gather per collective (coll_id): 40 B each, whatever its group. The per-position
 * first starts exist only while the collective is in flight: taken at its first acknowledged transfer, folded into
 * lo and hi and freed at its last (an incomplete one keeps them to the end). */
struct ctl_chakra_coll {
	emu_ps_t end;         /* latest acknowledgment of its transfers */
	uint64_t acked;       /* its transfers acknowledged */
	emu_ps_t lo, hi;      /* once complete: the earliest and the latest of its positions' first starts */
	emu_ps_t *first;      /* in flight: per group position, the rank's first transfer start; UINT64_MAX none yet */
	uint64_t busiest_bytes; /* bytes the busiest rank sends: the ideal time's work */
};

/* ctl_chakra_rec.c: collective @p c's start and end as the collective records give them; 1 when it completed. */
int ctl_chakra_coll_times(const struct ctl_chakra_run *k, uint32_t c, emu_ps_t *s, emu_ps_t *e);

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
	uint32_t *host_ip;    /* [n_hosts]: the transport's addresses */
	bool *host_external;  /* [n_hosts]: the hosts it has no NIC of */
	struct app_ck_net *net; /* the transfers over the hosts' NICs (emul/app) */
	struct ctl_chakra_coll *colls;
	emu_ps_t start, stop, last_end;
	/* records */
	int64_t epoch_s;
	struct rec_csv *perf, *completion, *cdf;
	char dir[512];
	uint64_t tot_bytes, tot_sends, tot_recvs, tot_comps; /* the run's totals, the cdf's denominators */
	uint64_t acked_bytes;
	uint64_t mem_estimate; /* bytes the prepared traces take, about (ctl_chakra_limit_memory) */
	uint64_t prof_bytes;   /* bytes the profiling blocks took: they stop at simulation.RecordSizeLimit */
};

/* ctl_chakra_limits.c: what the traceset may not ask for, before the simulation; 0 or -EINVAL naming the file, the
 * rank and the node in @p err. Memory (before preparation) against simulation.ChakraMemoryLimit; */
int ctl_chakra_limit_memory(struct ctl_chakra_run *k, char *err, size_t errlen);
/* (prepared and placed) transfers against the NIC's largest message and their receives, durations against the
 * emulated time range; */
int ctl_chakra_limits(struct ctl_chakra_run *k, char *err, size_t errlen);
/* the annotated traces' bytes against simulation.RecordSizeLimit. */
int ctl_chakra_limit_annot(struct ctl_chakra_run *k, char *err, size_t errlen);
/* The bytes the annotated traces will take (their times are fixed width, so known before the run). */
uint64_t ctl_chakra_annot_bytes(const struct ctl_chakra_run *k);

/* ctl_chakra_map.c: read the mapping file into rank_host/host_rank and the scale-up groups. */
int ctl_chakra_map_read(struct ctl_chakra_run *k, char *err, size_t errlen);

/* ctl_chakra_su.c: the scale-up fabric of the mapping file's groups, replaying into k->run. */
int ctl_chakra_su_start(struct ctl_chakra_run *k, struct emu_sched *s, char *err, size_t errlen);

/* ctl_chakra_rec.c */
int ctl_chakra_rec_open(struct ctl_chakra_run *k, const char *dir, char *err, size_t errlen);
void ctl_chakra_rec_perf(struct ctl_chakra_run *k, const struct app_ck_xfer_done *x);
void ctl_chakra_rec_rank_end(struct ctl_chakra_run *k, uint32_t rank, const struct app_ck_rank_stats *st,
			     emu_ps_t now);
int ctl_chakra_rec_close(struct ctl_chakra_run *k, emu_ps_t end, char *err, size_t errlen);
void ctl_chakra_rec_cdf_start(struct ctl_chakra_run *k);
int ctl_chakra_rec_prof_start(struct ctl_chakra_run *k, char *err, size_t errlen);

#endif
