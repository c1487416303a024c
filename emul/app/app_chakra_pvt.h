/* Inside the Chakra model: the transfer list an algorithm expands one collective into. */
#ifndef APP_CHAKRA_PVT_H
#define APP_CHAKRA_PVT_H

#include <stddef.h>
#include <stdint.h>

#include "app_chakra.h"

/* How a rank orders the transfers of one lane. */
enum app_ck_order {
	APP_CK_ORDER_STEPS = 1, /* a send waits for the rank's receives of the latest earlier step */
	APP_CK_ORDER_CHAIN = 2, /* a rank's sends go one after another */
};

/* One point-to-point transfer of a collective, between group positions. */
struct app_ck_xf {
	uint32_t src, dst; /* positions in the process group */
	uint32_t step;
	uint32_t lane;     /* independent chains (double-tree's two trees) */
	uint64_t bytes;
	uint32_t s_idx, r_idx; /* the send and receive nodes once placed in their ranks' traces */
};

/* A collective's expansion. */
struct app_ck_xfs {
	struct app_ck_xf *v;
	uint32_t n, cap;
	unsigned order; /* enum app_ck_order bits */
};

/**
 * Expand collective @p type of @p bytes over a group of @p n positions with @p algo; @p root is the root's
 * position. Appends to @p out, sorted by (step, generation order). Returns 0, -EINVAL when the algorithm needs a
 * power-of-two group and @p n is not one (or does not apply to the type), -ENOMEM.
 */
int app_ck_expand(struct app_ck_xfs *out, unsigned type, unsigned algo, uint64_t bytes, uint32_t n, uint32_t root);

/**
 * Pair the traces' own sends and receives (same sender, receiver and comm_tag, in trace order), setting each send's
 * match. Returns 0, -EINVAL naming the file and node of one without its partner, -ENOMEM.
 */
int app_ck_match_p2p(struct app_ck_set *set, char *err, size_t errlen);

/** Check that every node of rank @p r can start (no dependency cycle). Returns 0, -EINVAL naming a node on a
 *  cycle, -ENOMEM. */
int app_ck_check_cycle(const struct app_ck_set *set, uint32_t r, char *err, size_t errlen);

#endif
