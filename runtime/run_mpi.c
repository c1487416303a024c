/*
 * A virtual-time run over MPI ranks (docs/parallel.md, MPI ranks): each rank is a thread slot of the windows
 * (run_win.c) in a process of its own. What crosses between ranks: the earliest pending event and the stop flag (a
 * reduction per window), the frames and cross-partition events of a window (an all-to-all), and at the end the
 * counters rank 0 writes the summary from (sums). Built with Open MPI when meson finds it (-Dmpi); without it a run
 * is one rank.
 */
#include "run_mpi.h"

#include <stdbool.h>
#include <stdio.h>

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef UETEMU_MPI
#include <mpi.h>
#endif

/* Whether mpirun (or another launcher of Open MPI or MPICH) started this process. */
static bool launched(void)
{
	return getenv("OMPI_COMM_WORLD_SIZE") != NULL || getenv("PMI_SIZE") != NULL;
}

#ifdef UETEMU_MPI

int run_mpi_init(int *argc, char ***argv, uint32_t *rank, uint32_t *size, char *err, size_t errlen)
{
	int r, n;

	*rank = 0;
	*size = 1;
	if (!launched())
		return 0;
	if (MPI_Init(argc, argv) != MPI_SUCCESS) {
		snprintf(err, errlen, "MPI_Init failed");
		return -EIO;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	*rank = (uint32_t)r;
	*size = (uint32_t)n;
	return 1;
}

void run_mpi_fini(void)
{
	int up = 0, down = 0;

	MPI_Initialized(&up);
	MPI_Finalized(&down);
	if (up && !down)
		MPI_Finalize();
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Wait for @p rq; once *@p stop is set, at most RUN_MPI_STOP_GRACE_MS more, then end every rank. */
static void wait_or_stop(MPI_Request *rq, const volatile sig_atomic_t *stop)
{
	uint64_t since = 0;
	int done = 0;

	if (stop == NULL) {
		MPI_Wait(rq, MPI_STATUS_IGNORE);
		return;
	}
	while (MPI_Test(rq, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done) {
		if (*stop == 0)
			continue;
		if (since == 0)
			since = mono_ms();
		else if (mono_ms() - since > RUN_MPI_STOP_GRACE_MS)
			run_mpi_abort("stopped, and another rank did not answer within a second");
	}
}

static void reduce(uint64_t *v, uint32_t n, MPI_Op op, const volatile sig_atomic_t *stop)
{
	MPI_Request rq;

	MPI_Iallreduce(MPI_IN_PLACE, v, (int)n, MPI_UINT64_T, op, MPI_COMM_WORLD, &rq);
	wait_or_stop(&rq, stop);
}

void run_mpi_min(uint64_t *v, uint32_t n, const volatile sig_atomic_t *stop)
{
	reduce(v, n, MPI_MIN, stop);
}

void run_mpi_max(uint64_t *v, uint32_t n, const volatile sig_atomic_t *stop)
{
	reduce(v, n, MPI_MAX, stop);
}

void run_mpi_sum(uint64_t *v, size_t n)
{
	/* in pieces: an MPI count is an int */
	for (size_t off = 0; off < n; off += (size_t)INT_MAX / 8) {
		size_t k = n - off < (size_t)INT_MAX / 8 ? n - off : (size_t)INT_MAX / 8;

		MPI_Allreduce(MPI_IN_PLACE, v + off, (int)k, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
	}
}

void run_mpi_allgather(const void *mine, uint32_t len, void *all)
{
	MPI_Allgather(mine, (int)len, MPI_BYTE, all, (int)len, MPI_BYTE, MPI_COMM_WORLD);
}

void run_mpi_exchange(const uint8_t *out, const uint32_t *out_len, uint32_t n, uint8_t **in, uint32_t *in_len,
			  size_t *in_cap, const volatile sig_atomic_t *stop)
{
	MPI_Request rq;
	int sc[RUN_LCORES_MAX] = { 0 }, rc[RUN_LCORES_MAX] = { 0 };
	int sd[RUN_LCORES_MAX] = { 0 }, rd[RUN_LCORES_MAX] = { 0 };
	uint64_t total = 0, stotal = 0;

	for (uint32_t k = 0; k < n; k++) {
		sc[k] = (int)out_len[k];
		sd[k] = (int)stotal;
		stotal += out_len[k];
	}
	MPI_Ialltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, MPI_COMM_WORLD, &rq);
	wait_or_stop(&rq, stop);
	for (uint32_t k = 0; k < n; k++) {
		rd[k] = (int)total;
		total += (uint64_t)rc[k];
	}
	/* every rank is in the exchange: one that cannot go on ends them all rather than leave them waiting */
	if (total > INT_MAX || stotal > INT_MAX)
		run_mpi_abort("a window's frames between ranks are over 2 GiB");
	if (total > *in_cap) {
		uint8_t *b = realloc(*in, total);

		if (b == NULL)
			run_mpi_abort("out of memory for a window's frames from the other ranks");
		*in = b;
		*in_cap = total;
	}
	MPI_Ialltoallv(out, sc, sd, MPI_BYTE, *in, rc, rd, MPI_BYTE, MPI_COMM_WORLD, &rq);
	wait_or_stop(&rq, stop);
	for (uint32_t k = 0; k < n; k++)
		in_len[k] = (uint32_t)rc[k];
}

void run_mpi_abort(const char *why)
{
	fprintf(stderr, "uetemu: %s: ending every MPI rank\n", why);
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

#else /* one rank: nothing crosses */

int run_mpi_init(int *argc, char ***argv, uint32_t *rank, uint32_t *size, char *err, size_t errlen)
{
	(void)argc;
	(void)argv;
	*rank = 0;
	*size = 1;
	if (!launched())
		return 0;
	snprintf(err, errlen, "started by mpirun, but this uetemu was built without MPI: install libopenmpi-dev and "
		 "rebuild (meson -Dmpi=enabled)");
	return -ENOTSUP;
}

void run_mpi_fini(void)
{
}

void run_mpi_min(uint64_t *v, uint32_t n, const volatile sig_atomic_t *stop)
{
	(void)v;
	(void)n;
	(void)stop;
}

void run_mpi_max(uint64_t *v, uint32_t n, const volatile sig_atomic_t *stop)
{
	(void)v;
	(void)n;
	(void)stop;
}

void run_mpi_sum(uint64_t *v, size_t n)
{
	(void)v;
	(void)n;
}

void run_mpi_allgather(const void *mine, uint32_t len, void *all)
{
	memcpy(all, mine, len);
}

void run_mpi_exchange(const uint8_t *out, const uint32_t *out_len, uint32_t n, uint8_t **in, uint32_t *in_len,
			  size_t *in_cap, const volatile sig_atomic_t *stop)
{
	(void)stop;
	(void)out;
	(void)out_len;
	(void)in;
	(void)in_cap;
	for (uint32_t k = 0; k < n; k++)
		in_len[k] = 0;
}

void run_mpi_abort(const char *why)
{
	fprintf(stderr, "uetemu: %s\n", why);
	exit(1);
}

#endif
