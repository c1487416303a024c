/* The output budget of a run (simulation.OutputSizeLimit, docs/summary.md "output_cut"): one count of the bytes
 * every file of the run takes, the cut at the limit, and the first write that failed. */
#include "rec.h"

#include <stdio.h>
#include <string.h>

void rec_budget_init(struct rec_budget *b, uint64_t limit, volatile sig_atomic_t *halt)
{
	*b = (struct rec_budget){ .limit = limit, .halt = halt, .cut_at = EMU_PS_NEVER };
}

bool rec_budget_take(struct rec_budget *b, uint64_t n, const char *what, emu_ps_t at)
{
	if (b == NULL)
		return true;
	if (b->cut)
		return false;
	if (b->limit != 0 && (n > b->limit || b->used > b->limit - n)) {
		b->cut = true;
		b->cut_bytes = b->used;
		b->cut_at = at != EMU_PS_NEVER ? at : b->now != NULL ? b->now(b->now_ctx) : 0;
		snprintf(b->cut_what, sizeof(b->cut_what), "%s", what != NULL ? what : "");
		fprintf(stderr, "uetemu: warning: the outputs reached simulation.OutputSizeLimit (%llu B) at %.6f s "
			"emulated, writing %s: every output stops there, at a whole row or record (summary.json "
			"output_cut)\n", (unsigned long long)b->limit, (double)b->cut_at / 1e12, b->cut_what);
		return false;
	}
	b->used += n;
	return true;
}

void rec_budget_count(struct rec_budget *b, uint64_t n)
{
	if (b != NULL)
		b->used += n;
}

void rec_budget_fail(struct rec_budget *b, int e, const char *what)
{
	if (b == NULL || b->err != 0)
		return;
	b->err = e != 0 ? e : 5; /* EIO */
	snprintf(b->err_what, sizeof(b->err_what), "%s", what != NULL ? what : "");
	fprintf(stderr, "uetemu: %s: %s: the run stops (its outputs so far stay whole)\n", b->err_what,
		strerror(b->err));
	if (b->halt != NULL && *b->halt == 0)
		*b->halt = REC_HALT_WRITE;
}

void rec_budget_expect(struct rec_budget *b, uint64_t bytes_so_far, emu_ps_t now, emu_ps_t end)
{
	if (b == NULL || b->limit == 0 || b->warned || now == 0 || end <= now)
		return;
	unsigned __int128 want = (unsigned __int128)bytes_so_far * end / now;

	if (want <= b->limit)
		return;
	b->warned = true;
	fprintf(stderr, "uetemu: warning: the outputs would take about %.1f MB by the run's end (%.6f s emulated); "
		"they stop at simulation.OutputSizeLimit (%llu B)\n", (double)want / 1e6, (double)end / 1e12,
		(unsigned long long)b->limit);
}
