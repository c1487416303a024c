/*
 * MPI over the ranks of a virtual-time run (Open MPI, -Dmpi): joining and leaving, the reductions and the
 * all-to-all exchange of a window. Built without MPI, a run is one rank and these are no-ops (or copies).
 */
#ifndef RUN_MPI_H
#define RUN_MPI_H

#include <stddef.h>
#include <signal.h>
#include <stdint.h>

/* The most ranks (and threads, and lcores) one run spreads its partitions over. */
#define RUN_LCORES_MAX 64

/**
 * Join MPI when mpirun (or another MPI launcher) started the process: *@p rank and *@p size from MPI_COMM_WORLD,
 * else 0 and 1. Returns 1 when joined, 0 when not launched by MPI, -errno with @p err (MPI failed, or this build
 * has no MPI).
 */
int run_mpi_init(int *argc, char ***argv, uint32_t *rank, uint32_t *size, char *err, size_t errlen);
/** Leave MPI if joined. */
void run_mpi_fini(void);
/**
 * Every rank's @p n values reduced in place: their minimum, maximum, sum. min and max wait with an eye on the run's
 * stop flag @p stop (NULL: none): once it is set, a rank that has not joined within RUN_MPI_STOP_GRACE_MS is gone
 * or stuck, and every rank is ended (MPI_Abort) rather than wait for ever.
 */
void run_mpi_min(uint64_t *v, uint32_t n, const volatile sig_atomic_t *stop);
void run_mpi_max(uint64_t *v, uint32_t n, const volatile sig_atomic_t *stop);
void run_mpi_sum(uint64_t *v, size_t n);
/** Every rank's @p len bytes of @p mine into @p all, rank by rank. */
void run_mpi_allgather(const void *mine, uint32_t len, void *all);
/** Send rank k its out_len[k] bytes of @p out (rank by rank), receive every rank's into *@p in (grown to
 *  *@p in_cap), rank k's in_len[k] bytes in rank order; and, riding in the same messages, every rank's
 *  RUN_MPI_XMIN values @p min reduced in place to their minimum. Without memory, or over 2 GiB, it aborts every
 *  rank. */
#define RUN_MPI_XMIN 2
void run_mpi_exchange(const uint8_t *out, const uint32_t *out_len, uint32_t n, uint8_t **in, uint32_t *in_len,
		      size_t *in_cap, uint64_t min[RUN_MPI_XMIN], const volatile sig_atomic_t *stop);

/* How long a rank waits for the others once the stop flag is set (a signal reaches every rank under mpirun). */
#define RUN_MPI_STOP_GRACE_MS 1000u
/*
 * Every wait is bounded besides (docs/parallel.md, When a rank dies): a rank of this machine whose process has gone
 * ends the run at once, and no wait lasts longer than RUN_MPI_WAIT_MAX_S.
 */
#define RUN_MPI_WAIT_MAX_S 300
/** Say @p why on stderr and end every rank (MPI_Abort; without MPI, exit). */
void run_mpi_abort(const char *why) __attribute__((noreturn));

#endif /* RUN_MPI_H */
