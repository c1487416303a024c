/* The RDMA application's side of the NIC (seed 003: WQEs, the doorbell, connection setup) and the probe each
 * message draws (Scala UET NIC page *Transport*, Acknowledgements). Two NICs back to back, exact numbers. */
#include <criterion/criterion.h>
#include <errno.h>

#include "net.h"
#include "nic.h"
#include "nic_pair.h"
#include "nic_params.h"

Test(nic_tx, refused_wqe_not_counted_as_created_nor_as_no_pdc)
{
	/* A NIC made without a WQE budget holds 16,384 WQEs waiting on its connections. One connection: the 1st WQE
	 * is sent, the next 16,384 wait, the 16,386th is refused: wqes_created counts the 16,385 the NIC took, and
	 * the refusal has its own reason, not "no PDC could be created". */
	struct tfx_pair *b = tfx_pair_new(NULL);
	const uint64_t *c = nic_counters(b->nic[0]);
	uint16_t id;
	int refused = 0;

	cr_assert_eq(nic_conn_open(b->nic[0], b->neigh[1].ip, &id, 0), 0);
	for (int i = 0; i < 16386; i++)
		refused += nic_post_conn(b->nic[0], id, 4096, (uint64_t)i, 0) == -ENOSPC;
	cr_assert_eq(refused, 1);
	cr_assert_eq(c[NIC_C_WQES_CREATED], 16385, "wqes_created %llu", (unsigned long long)c[NIC_C_WQES_CREATED]);
	cr_assert_eq(c[NIC_C_DROP_NO_PDC], 0);
	cr_assert_eq(c[NIC_C_DROP_NO_WQE], 1);
	tfx_pair_free(b);
}
