/* The unit tests' shared NIC fixture: two UET NICs back to back on one link, a tap keeping every frame, hooks
 * counting completions, receptions and trace rows; and the host addressing every NIC test uses. */
#ifndef TFX_NIC_PAIR_H
#define TFX_NIC_PAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net.h"
#include "nic.h"
#include "nic_params.h"

#define TFX_MAX_SEEN 8192  /* frames the tap keeps, and trace rows kept; later ones are not */
#define TFX_MAX_IMPAIR 16  /* impairments on host 0's direction */

/** One frame the tap saw. The fields between t and p are copied out of p, for the tests that read only those. */
struct tfx_seen {
	uint32_t dir;          /* 0: host 0 -> host 1, 1: back */
	emu_ps_t t;            /* when the frame went on the wire */
	uint8_t kind;          /* enum wire_kind */
	uint32_t psn;
	uint8_t flags;         /* PDS flags */
	uint16_t service_time;
	uint32_t payload;      /* payload bytes */
	size_t wire_len;       /* bytes on the wire */
	struct wire_pkt p;     /* the whole packet */
};

/** What tfx_pair_new() may change from the defaults; all zero (or no options at all) is the defaults. */
struct tfx_opts {
	emu_ps_t delay;                      /* propagation each way; 0: the NICs' Delay parameter (100 ns) */
	const struct net_impair *imp;        /* what the link does to host 0's data frames, copied; n_imp of them */
	uint32_t n_imp;                      /* at most TFX_MAX_IMPAIR */
	void (*tune)(struct nic_params *);   /* changes the default parameters before the NICs are made */
	uint32_t max_pkts;                   /* descriptors of the partition, shared by both NICs and the link;
					      * 0: 1 << 15 */
	bool trace;                          /* the NICs report trace rows, kept in tr[] */
};

/*
 * Host 0 and host 1 (tfx_neigh_init() addresses) on one link at the NICs' data rate, host 0 on its side a, with a
 * tap on both directions. Public: the tests read and poke every field (a NIC rebuilt with other hooks, the link's
 * endpoints, the partition's counters).
 */
struct tfx_pair {
	struct net_part np;
	struct nic_params p;               /* both NICs' parameters */
	struct port_neigh neigh[2];
	struct nic *nic[2];
	struct net_link link;
	struct net_impair imp[TFX_MAX_IMPAIR];
	struct tfx_seen *seen;             /* TFX_MAX_SEEN entries, n_seen of them used */
	int n_seen;
	int done;                          /* messages completed at their sender */
	emu_ps_t done_at;                  /* when the last of them did */
	int sent;                          /* messages whose last byte was sent (hooks.msg_sent) */
	emu_ps_t sent_at;                  /* when the last of them was */
	int recv;                          /* messages received whole */
	uint64_t recv_bytes;               /* and their bytes */
	struct nic_trace *tr;              /* with tfx_opts.trace: TFX_MAX_SEEN entries, n_tr used; else NULL */
	int n_tr;
};

/**
 * The addresses of @p n hosts in @p neigh[0 .. n - 1]: host i is 10.0.0.(i + 1), MAC 02:00:00:00:00:(i + 1)
 * (locally administered). @p n is at most 255.
 */
void tfx_neigh_init(struct port_neigh *neigh, uint32_t n);

/**
 * The environment of host @p i's NIC among the @p n_neigh hosts of @p neigh: partition @p np, parameters @p p,
 * node id @p i, its address and MAC from @p neigh[i], name "nic", RandomSeed 18760; no trace and no hooks, for
 * the caller to add. @p np, @p p and @p neigh must outlive the NIC.
 */
struct nic_env tfx_nic_env(struct net_part *np, const struct nic_params *p, const struct port_neigh *neigh,
			   uint32_t n_neigh, uint32_t i);

/**
 * Make the pair: the parameters at their defaults changed by @p o (NULL: no changes), both NICs attached, the tap
 * on. Asserts (criterion) that every part was made; the caller frees the pair with tfx_pair_free().
 */
struct tfx_pair *tfx_pair_new(const struct tfx_opts *o);

/**
 * Post one message of @p bytes from host 0 to host 1 at time 0 (cookie 1), asserting it is taken, and run the
 * partition until nothing is left to do.
 */
void tfx_pair_run(struct tfx_pair *b, uint64_t bytes);

/** Destroy both NICs and the partition, and free @p b. */
void tfx_pair_free(struct tfx_pair *b);

#endif
