/* Reading a Chakra traceset: a directory of per-rank execution-trace files, <prefix>.<rank>.et, each a stream of
 * varint-length-delimited protobuf messages (one GlobalMetadata, then Nodes), into the model's app_ck_set. */
#ifndef CTL_CHAKRA_TRACE_H
#define CTL_CHAKRA_TRACE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "app_chakra.h"

/**
 * Read every rank's trace of directory @p dir into @p set (initialized here; app_ck_set_fini() frees it, also after
 * an error). @p want_ranks: the rank count the configuration expects (NumOfChakraFiles), 0 for any. Returns 0, or
 * -EINVAL with a message in @p err (size @p errlen) naming the directory or the file and node: no traceset, ranks
 * missing or a rank count other than @p want_ranks, a file that is not a trace, a truncated message, a bad field
 * (unknown node or collective type, an attribute of the wrong type), process groups that disagree, an ET schema
 * version it cannot read, a gzip file that does not inflate (one that does is read inflated); -ENOMEM; -EINTR (no
 * message) once the stop flag @p halt (NULL: none) is set, looked at between 16 MiB chunks of a file read or
 * inflated and every 4,096 nodes decoded, so a signal stops the load of any traceset within a fraction of a second.
 */
int ctl_chakra_load(const char *dir, uint32_t want_ranks, struct app_ck_set *set, const volatile sig_atomic_t *halt,
		    char *err, size_t errlen);

/** Every process group named by pg_name only (no communicator record, pg:<name> or involved_ranks in any file)
 *  becomes every rank, in rank order (counted in set->pg_world); ctl_chakra_load() does this once every file is
 *  read. Returns 0 or -ENOMEM. */
int ctl_chakra_resolve_pgs(struct app_ck_set *set);

/**
 * Decode one trace file's bytes @p buf (length @p len) as rank @p rank of @p set (whose ranks array is sized).
 * Exposed for tests and the fuzz target. Returns as ctl_chakra_load(); @p name names the file in errors.
 */
int ctl_chakra_decode(struct app_ck_set *set, uint32_t rank, const char *name, const uint8_t *buf, size_t len,
		      char *err, size_t errlen);

#endif
