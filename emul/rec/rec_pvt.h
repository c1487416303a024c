/* What the records' files share inside the room: the sink under a record's stream, and the writer thread's side
 * of it (rec_csv.c, rec_writer.c). */
#ifndef REC_PVT_H
#define REC_PVT_H

#include "rec.h"

/*
 * The file under a record's stream: writes go straight to the descriptor, or (its budget's writer set: real time)
 * to the writer thread, and the first that fails (a full disk) stops every later one, so the file is exactly what
 * was written before the failure, never a later row spliced after a cut one (which stdio's retries on the next
 * flush would give once space frees up).
 */
struct rec_sink {
	int fd;
	int err;          /* the first write's errno, 0 while none failed */
	int async_err;    /* ... as the writer thread saw it (atomic), taken into err by the next write or the close */
	uint64_t written; /* bytes on disk (with a writer: handed to it): the end of the file */
	struct rec_budget *b; /* the run's output budget, or NULL */
	char sep;         /* what ends a whole row: the budget cuts after the last one that fits */
	bool cut;         /* past the budget: later writes are dropped */
	const char *path; /* the file, for the budget's messages */
};

/** The writer thread @p w takes @p n bytes at @p buf for sink @p k (copied: @p buf may be reused at once); waits
 *  while the ring is full. */
void rec_writer_put(struct rec_writer *w, struct rec_sink *k, const void *buf, uint64_t n);

#endif /* REC_PVT_H */
