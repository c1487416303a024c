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

#ifdef UETEMU_MPI
#include <mpi.h>
#include <signal.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#endif

/* Whether mpirun (or another launcher of Open MPI or MPICH) started this process. */
static bool launched(void)
{
	return getenv("OMPI_COMM_WORLD_SIZE") != NULL || getenv("PMI_SIZE") != NULL;
}

#ifdef UETEMU_MPI

/*
 * Bounded waits (docs/parallel.md, When a rank dies): every collective is started non-blocking and tested until it
 * completes, and every RUN_MPI_CHECK_NS the waiting rank looks at the others. A rank on this machine (the same
 * kernel and pid namespace) whose process has gone (or is a zombie) ends the run at once; any rank silent for
 * RUN_MPI_WAIT_MAX_S (another machine's, whose process this one cannot see) ends it then; once the stop flag is
 * set, RUN_MPI_STOP_GRACE_MS more at most. mpirun itself usually ends the other ranks first when one dies; these
 * bounds hold when it does not (a launcher told to keep going, a rank hung rather than dead).
 */
#define RUN_MPI_CHECK_NS 100000000ull /* 100 ms */
#define RUN_MPI_ABORT_S 5              /* MPI_Abort that has not ended this process by then: SIGALRM ends it */

/* Who the other ranks are, to see whether they are still there: the process's MPI world, set once by
 * run_mpi_init() (the MPI library's own state is process-wide too). */
struct mpi_peer {
	int32_t pid;
	uint32_t pad;
	uint64_t seen; /* where its pid means something: a hash of the kernel's boot id and the pid namespace */
};

static struct {
	uint32_t rank, size;
	struct mpi_peer *peers;
} world;

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/*
 * Which pids this process can look at: the running kernel (its boot id, unique per machine and boot) and the pid
 * namespace. Two ranks with the same value see each other's pids; host names are no proof (containers, clones).
 * 0 when either cannot be read: then no rank is looked at, and only the deadline holds.
 */
static uint64_t pid_space(void)
{
	char buf[128] = { 0 }, ns[64] = { 0 };
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
	uint64_t h = 14695981039346656037ull;

	if (f == NULL)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);

	fclose(f);
	ssize_t m = readlink("/proc/self/ns/pid", ns, sizeof(ns) - 1);

	if (n == 0 || m <= 0)
		return 0;
	for (const char *c = buf; *c; c++)
		h = (h ^ (uint8_t)*c) * 1099511628211ull;
	for (const char *c = ns; *c; c++)
		h = (h ^ (uint8_t)*c) * 1099511628211ull;
	return h ? h : 1;
}

/* Whether process @p pid is gone: no /proc entry, or a zombie (killed, not reaped yet). */
static bool pid_gone(int32_t pid)
{
	char path[64], st[256];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return true;
	n = fread(st, 1, sizeof(st) - 1, f);
	fclose(f);
	st[n] = '\0';
	const char *paren = strrchr(st, ')'); /* "pid (comm) S ..." */

	return paren != NULL && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
}

/* The first rank of this machine whose process has gone, or -1. */
static int rank_gone(void)
{
	const uint64_t here = world.peers != NULL ? world.peers[world.rank].seen : 0;

	for (uint32_t k = 0; here != 0 && k < world.size; k++)
		if (k != world.rank && world.peers[k].seen == here && pid_gone(world.peers[k].pid))
			return (int)k;
	return -1;
}

/*
 * Wait for @p rq (a collective of every rank, @p what in words) to complete, looking at the other ranks meanwhile;
 * once *@p stop (NULL: none) is set, at most RUN_MPI_STOP_GRACE_MS more, then end every rank.
 */
static void wait_req(MPI_Request *rq, const char *what, const volatile sig_atomic_t *stop)
{
	const uint64_t t0 = mono_ns();
	uint64_t next = t0 + RUN_MPI_CHECK_NS, since = 0;
	char why[160];

	for (uint32_t spin = 1;; spin++) {
		int done = 0;

		MPI_Test(rq, &done, MPI_STATUS_IGNORE);
		if (done)
			return;
		if (spin % 256 != 0)
			continue;
		uint64_t now = mono_ns();

		if (stop != NULL && *stop != 0) { /* a signal reaches every rank under mpirun: the others stop too */
			if (since == 0)
				since = now;
			else if (now - since > (uint64_t)RUN_MPI_STOP_GRACE_MS * 1000000ull)
				run_mpi_abort("stopped, and another rank did not answer within a second");
		}
		if (now < next)
			continue;
		next = now + RUN_MPI_CHECK_NS;
		int k = rank_gone();

		if (k >= 0) {
			snprintf(why, sizeof(why), "MPI rank %d (pid %d) has gone while this rank waited for %s", k,
				 (int)world.peers[k].pid, what);
			run_mpi_abort(why);
		}
		if (now - t0 > (uint64_t)RUN_MPI_WAIT_MAX_S * 1000000000ull) {
			snprintf(why, sizeof(why), "no answer from the other MPI ranks for %d s while this rank waited "
				 "for %s", RUN_MPI_WAIT_MAX_S, what);
			run_mpi_abort(why);
		}
	}
}

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
	/* who the others are, for the bounded waits (a rank without the table waits only for the deadline) */
	world.rank = (uint32_t)r;
	world.size = (uint32_t)n;
	world.peers = calloc((size_t)n, sizeof(*world.peers));
	struct mpi_peer me = { .pid = (int32_t)getpid(), .seen = pid_space() };

	if (world.peers != NULL)
		MPI_Allgather(&me, (int)sizeof(me), MPI_BYTE, world.peers, (int)sizeof(me), MPI_BYTE, MPI_COMM_WORLD);
	return 1;
}

void run_mpi_fini(void)
{
	int up = 0, down = 0;

	MPI_Initialized(&up);
	MPI_Finalized(&down);
	if (up && !down)
		MPI_Finalize();
	free(world.peers);
	world.peers = NULL;
}

/* Every rank's @p n values reduced in place by @p op, the wait bounded. */
static void allreduce(uint64_t *v, int n, MPI_Op op, const char *what, const volatile sig_atomic_t *stop)
{
	MPI_Request rq;

	MPI_Iallreduce(MPI_IN_PLACE, v, n, MPI_UINT64_T, op, MPI_COMM_WORLD, &rq);
	wait_req(&rq, what, stop);
}

void run_mpi_min(uint64_t *v, uint32_t n, const volatile sig_atomic_t *stop)
{
	allreduce(v, (int)n, MPI_MIN, "a minimum (the next window)", stop);
}

void run_mpi_max(uint64_t *v, uint32_t n, const volatile sig_atomic_t *stop)
{
	allreduce(v, (int)n, MPI_MAX, "a maximum", stop);
}

void run_mpi_sum(uint64_t *v, size_t n)
{
	/* in pieces: an MPI count is an int */
	for (size_t off = 0; off < n; off += (size_t)INT_MAX / 8) {
		size_t k = n - off < (size_t)INT_MAX / 8 ? n - off : (size_t)INT_MAX / 8;

		allreduce(v + off, (int)k, MPI_SUM, "a sum (the run's counters)", NULL);
	}
}

void run_mpi_allgather(const void *mine, uint32_t len, void *all)
{
	MPI_Request rq;

	MPI_Iallgather(mine, (int)len, MPI_BYTE, all, (int)len, MPI_BYTE, MPI_COMM_WORLD, &rq);
	wait_req(&rq, "an all-gather", NULL);
}

void run_mpi_exchange(const uint8_t *out, const uint32_t *out_len, uint32_t n, uint8_t **in, uint32_t *in_len,
			  size_t *in_cap, const volatile sig_atomic_t *stop)
{
	int sc[RUN_LCORES_MAX] = { 0 }, rc[RUN_LCORES_MAX] = { 0 };
	int sd[RUN_LCORES_MAX] = { 0 }, rd[RUN_LCORES_MAX] = { 0 };
	uint64_t total = 0, stotal = 0;

	for (uint32_t k = 0; k < n; k++) {
		sc[k] = (int)out_len[k];
		sd[k] = (int)stotal;
		stotal += out_len[k];
	}
	MPI_Request rq;

	MPI_Ialltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, MPI_COMM_WORLD, &rq);
	wait_req(&rq, "a window's frame counts", stop);
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
	wait_req(&rq, "a window's frames", stop);
	for (uint32_t k = 0; k < n; k++)
		in_len[k] = (uint32_t)rc[k];
}

void run_mpi_abort(const char *why)
{
	fprintf(stderr, "uetemu: %s: ending every MPI rank\n", why);
	alarm(RUN_MPI_ABORT_S); /* MPI_Abort can wait on a launcher that has gone: SIGALRM's default ends this */
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
