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
#include <sys/prctl.h>
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
 * How a rank waits (docs/parallel.md, Waiting): it tests at full speed for RUN_MPI_SPIN_NS (the other ranks are
 * usually that close), then naps between tests, RUN_MPI_NAP_MIN_NS first, twice as long each time up to
 * RUN_MPI_NAP_MAX_NS. On a machine with fewer free CPUs than ranks, a rank that spun would hold the CPU the rank it
 * waits for needs; a nap gives it up, and its bound keeps what a nap adds to a window small. The naps' timer slack
 * is set to RUN_MPI_SLACK_NS (run_mpi_init): Linux's default, 50 us, would make every nap one of 50 us or more.
 */
#define RUN_MPI_SPIN_NS 50000ull
#define RUN_MPI_NAP_MIN_NS 2000ull
#define RUN_MPI_NAP_MAX_NS 50000ull
#define RUN_MPI_SLACK_NS 1000ul
/* The tag of a window's message to another rank (MPI keeps one sender's messages of a tag in order). */
#define RUN_MPI_TAG_WINDOW 1

/* What a wait tests: true once it is over. */
typedef bool (*mpi_test_fn)(void *ctx);

/* The nap after @p nap (0: the first). */
static uint64_t nap_next(uint64_t nap)
{
	return nap == 0 ? RUN_MPI_NAP_MIN_NS : nap * 2 < RUN_MPI_NAP_MAX_NS ? nap * 2 : RUN_MPI_NAP_MAX_NS;
}

/* A waiting rank's checks: the stop flag's grace, the others' processes, the deadline (run_mpi_abort if failed). */
static void wait_checks(uint64_t now, uint64_t t0, uint64_t *next, uint64_t *since, const char *what,
			const volatile sig_atomic_t *stop)
{
	char why[160];

	if (stop != NULL && *stop != 0) { /* a signal reaches every rank under mpirun: the others stop too */
		if (*since == 0)
			*since = now;
		else if (now - *since > (uint64_t)RUN_MPI_STOP_GRACE_MS * 1000000ull)
			run_mpi_abort("stopped, and another rank did not answer within a second");
	}
	if (now < *next)
		return;
	*next = now + RUN_MPI_CHECK_NS;
	int k = rank_gone();

	if (k >= 0) {
		snprintf(why, sizeof(why), "MPI rank %d (pid %d) has gone while this rank waited for %s", k,
			 (int)world.peers[k].pid, what);
		run_mpi_abort(why);
	}
	if (now - t0 > (uint64_t)RUN_MPI_WAIT_MAX_S * 1000000000ull) {
		snprintf(why, sizeof(why), "no answer from the other MPI ranks for %d s while this rank waited for %s",
			 RUN_MPI_WAIT_MAX_S, what);
		run_mpi_abort(why);
	}
}

/*
 * Wait until @p test (on @p ctx; @p what in words) says done, looking at the other ranks meanwhile; once *@p stop
 * (NULL: none) is set, at most RUN_MPI_STOP_GRACE_MS more, then end every rank. Spins, then naps (above).
 */
static void wait_until(mpi_test_fn test, void *ctx, const char *what, const volatile sig_atomic_t *stop)
{
	const uint64_t t0 = mono_ns();
	uint64_t next = t0 + RUN_MPI_CHECK_NS, since = 0, nap = 0;

	for (uint32_t spin = 1;; spin++) {
		if (test(ctx))
			return;
		if (nap == 0 && spin % 64 != 0)
			continue;
		uint64_t now = mono_ns();

		if (now - t0 >= RUN_MPI_SPIN_NS) {
			nap = nap_next(nap);
			nanosleep(&(struct timespec){ .tv_nsec = (long)nap }, NULL);
		}
		wait_checks(now, t0, &next, &since, what, stop);
	}
}

static bool req_done(void *ctx)
{
	int done = 0;

	MPI_Test(ctx, &done, MPI_STATUS_IGNORE);
	return done != 0;
}

/* Wait for @p rq (a collective of every rank, @p what in words), as wait_until. */
static void wait_req(MPI_Request *rq, const char *what, const volatile sig_atomic_t *stop)
{
	wait_until(req_done, rq, what, stop);
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
	prctl(PR_SET_TIMERSLACK, RUN_MPI_SLACK_NS, 0, 0, 0); /* the waits' naps as long as asked (wait_until) */
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

/* A window's exchange under way: this rank's sends, and the message each other rank sent it. */
struct mpi_xchg {
	uint32_t n, me, unmatched; /* ranks, this one, those whose message has not been matched yet */
	int len[RUN_LCORES_MAX];   /* bytes of each rank's frames (its message less the minimum's), once matched */
	uint64_t min[RUN_LCORES_MAX][RUN_MPI_XMIN]; /* the values each rank's message opens with */
	MPI_Message msg[RUN_LCORES_MAX];
	MPI_Request rq[2 * RUN_LCORES_MAX]; /* sends, then receives (MPI_REQUEST_NULL: none) */
};

/* Whether every other rank's message has come (its envelope: an eager message's bytes come with it). */
static bool xchg_matched(void *ctx)
{
	struct mpi_xchg *x = ctx;

	for (uint32_t k = 0; k < x->n && x->unmatched > 0; k++) {
		MPI_Status st;
		int flag = 0;

		if (k == x->me || x->len[k] >= 0)
			continue;
		MPI_Improbe((int)k, RUN_MPI_TAG_WINDOW, MPI_COMM_WORLD, &flag, &x->msg[k], &st);
		if (!flag)
			continue;
		MPI_Get_count(&st, MPI_BYTE, &x->len[k]);
		x->len[k] -= (int)sizeof(x->min[k]); /* every message opens with them (run_mpi_exchange) */
		x->unmatched--;
	}
	return x->unmatched == 0;
}

static bool xchg_done(void *ctx)
{
	struct mpi_xchg *x = ctx;
	int done = 0;

	MPI_Testall((int)(2 * x->n), x->rq, &done, MPI_STATUSES_IGNORE);
	return done != 0;
}

/* @p a (@p alen bytes) then @p b (@p blen) as one datatype from MPI_BOTTOM, the caller to free it: a message of
 * both without copying them into one buffer. */
static MPI_Datatype two_blocks(const void *a, int alen, const void *b, int blen)
{
	MPI_Aint at[2];
	int lens[2] = { alen, blen };
	MPI_Datatype t;

	MPI_Get_address(a, &at[0]);
	MPI_Get_address(b, &at[1]);
	MPI_Type_create_hindexed(blen > 0 ? 2 : 1, lens, at, MPI_BYTE, &t);
	MPI_Type_commit(&t);
	return t;
}

/*
 * One message to each other rank: the @p min values, then its frames (their length the message's, from its
 * envelope). A window costs one message per pair of ranks, where a reduction of the next event, a count
 * all-to-all and an all-to-allv of the frames cost three collectives, three times every rank waiting for the
 * slowest.
 */
void run_mpi_exchange(const uint8_t *out, const uint32_t *out_len, uint32_t n, uint8_t **in, uint32_t *in_len,
		      size_t *in_cap, uint64_t min[RUN_MPI_XMIN], const volatile sig_atomic_t *stop)
{
	struct mpi_xchg x = { .n = n, .me = world.rank, .unmatched = n - 1 };
	MPI_Datatype st[RUN_LCORES_MAX], rt[RUN_LCORES_MAX];
	uint64_t stotal = 0, total = 0;

	for (uint32_t k = 0; k < n; k++)
		stotal += out_len[k];
	/* every rank is in the exchange: one that cannot go on ends them all rather than leave them waiting */
	if (stotal > INT_MAX)
		run_mpi_abort("a window's frames between ranks are over 2 GiB");
	for (uint32_t k = 0; k < 2 * n; k++)
		x.rq[k] = MPI_REQUEST_NULL;
	for (uint32_t k = 0, off = 0; k < n; off += out_len[k], k++) {
		x.len[k] = k == x.me ? (int)out_len[k] : -1;
		if (k == x.me)
			continue;
		st[k] = two_blocks(min, (int)sizeof(x.min[k]), out + off, (int)out_len[k]);
		MPI_Isend(MPI_BOTTOM, 1, st[k], (int)k, RUN_MPI_TAG_WINDOW, MPI_COMM_WORLD, &x.rq[k]);
	}
	wait_until(xchg_matched, &x, "a window's frames", stop);
	for (uint32_t k = 0; k < n; k++)
		total += (uint64_t)x.len[k];
	if (total > INT_MAX)
		run_mpi_abort("a window's frames between ranks are over 2 GiB");
	if (total > *in_cap) {
		uint8_t *b = realloc(*in, total);

		if (b == NULL)
			run_mpi_abort("out of memory for a window's frames from the other ranks");
		*in = b;
		*in_cap = total;
	}
	for (uint32_t k = 0, off = 0, soff = 0; k < n; off += (uint32_t)x.len[k], soff += out_len[k], k++) {
		uint8_t *to = x.len[k] > 0 ? *in + off : *in; /* *in: NULL before the first frames */

		in_len[k] = (uint32_t)x.len[k];
		if (k == x.me) {
			if (out_len[k] > 0)
				memcpy(to, out + soff, out_len[k]);
			continue;
		}
		rt[k] = two_blocks(x.min[k], (int)sizeof(x.min[k]), to, x.len[k]);
		MPI_Imrecv(MPI_BOTTOM, 1, rt[k], &x.msg[k], &x.rq[n + k]);
	}
	wait_until(xchg_done, &x, "a window's frames", stop);
	for (uint32_t k = 0; k < n; k++) {
		if (k == x.me)
			continue;
		MPI_Type_free(&st[k]);
		MPI_Type_free(&rt[k]);
		for (int i = 0; i < RUN_MPI_XMIN; i++)
			min[i] = x.min[k][i] < min[i] ? x.min[k][i] : min[i];
	}
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
		      size_t *in_cap, uint64_t min[RUN_MPI_XMIN], const volatile sig_atomic_t *stop)
{
	(void)stop;
	(void)min;
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
