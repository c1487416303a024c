/* The Chakra traceset reader (control/chakra/ctl_chakra_trace.c) on the tracesets checked into tests/chakra
 * (written by scripts/chakra-gen): good ones load and prepare; bad ones give an error naming the file and node;
 * every truncation of a good file is an error, never a crash; gzip-compressed files read as they are. Run from the
 * source root. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "app_chakra.h"
#include "ctl_chakra_trace.h"

static void load_ok(const char *dir, uint32_t ranks, uint32_t want_colls, uint64_t want_xfers)
{
	struct app_ck_set s;
	struct app_ck_prep_cfg cfg;
	struct app_ck_prep_out out;
	char err[512] = "";

	cr_assert_eq(ctl_chakra_load(dir, ranks, &s, NULL, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(s.n_ranks, ranks);
	cr_assert_str_eq(s.prefix, "trace");
	app_ck_prep_defaults(&cfg);
	cr_assert_eq(app_ck_prepare(&s, &cfg, &out, NULL, NULL, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(out.n_colls, want_colls);
	cr_assert_eq(out.n_transfers - out.n_sync_transfers, want_xfers);
	app_ck_prep_fini(&out);
	app_ck_set_fini(&s);
}

Test(ctl_chakra_trace, generated_tracesets_load_and_prepare)
{
	load_ok("tests/chakra/dp8", 8, 2, 2 * 112);       /* two steps, one ring AllReduce each over 8 ranks */
	load_ok("tests/chakra/alltoall8", 8, 1, 56);      /* 8 x 7 */
	load_ok("tests/chakra/pipeline4", 4, 0, 0);       /* sends and receives of the trace only */
}

Test(ctl_chakra_trace, pipeline_sends_match_receives)
{
	struct app_ck_set s;
	struct app_ck_prep_cfg cfg;
	struct app_ck_prep_out out;
	char err[512] = "";
	uint32_t sends = 0;

	cr_assert_eq(ctl_chakra_load("tests/chakra/pipeline4", 0, &s, NULL, err, sizeof(err)), 0, "%s", err);
	app_ck_prep_defaults(&cfg);
	cr_assert_eq(app_ck_prepare(&s, &cfg, &out, NULL, NULL, err, sizeof(err)), 0, "%s", err);
	for (uint32_t r = 0; r < s.n_ranks; r++)
		for (uint32_t i = 0; i < s.ranks[r].n; i++) {
			const struct app_ck_node *n = &s.ranks[r].nodes[i];

			if (n->kind != APP_CK_SEND)
				continue;
			const struct app_ck_node *m = &s.ranks[n->peer].nodes[n->match];

			cr_assert_eq(m->kind, APP_CK_RECV);
			cr_assert_eq(m->peer, (int32_t)r);
			cr_assert_eq(m->tag, n->tag);
			cr_assert_eq(m->bytes, 65536);
			sends++;
		}
	cr_assert_eq(sends, 3 * 3, "3 stage boundaries x 3 micro-batches");
	app_ck_prep_fini(&out);
	app_ck_set_fini(&s);
}

/* Load (and prepare, with StrictDependencies when @p strict) @p dir; the error must contain @p want. */
static void load_bad_cfg(const char *dir, uint32_t ranks, int strict, const char *want)
{
	struct app_ck_set s;
	struct app_ck_prep_cfg cfg;
	struct app_ck_prep_out out = {0};
	char err[512] = "";
	int rc = ctl_chakra_load(dir, ranks, &s, NULL, err, sizeof(err));

	if (rc == 0) {
		app_ck_prep_defaults(&cfg);
		cfg.strict_deps = (uint8_t)strict;
		rc = app_ck_prepare(&s, &cfg, &out, NULL, NULL, err, sizeof(err));
	}
	cr_assert_eq(rc, -EINVAL, "%s: expected an error containing \"%s\"", dir, want);
	cr_assert(strstr(err, want), "%s: got \"%s\", expected \"%s\"", dir, err, want);
	app_ck_prep_fini(&out);
	app_ck_set_fini(&s);
}

static void load_bad(const char *dir, uint32_t ranks, const char *want)
{
	load_bad_cfg(dir, ranks, 0, want);
}

Test(ctl_chakra_trace, bad_tracesets_name_file_and_node)
{
	load_bad("tests/chakra/dp8", 4, "traceset tests/chakra/dp8 has 8 ranks; NumOfChakraFiles and the topology's "
					"servers are 4");
	load_bad("tests/chakra/bad-truncate", 0, "tests/chakra/bad-truncate/trace.0.et: truncated: node message 5 at byte");
	load_bad_cfg("tests/chakra/bad-cycle", 0, 1, "tests/chakra/bad-cycle/trace.0.et: node 0 is on a dependency cycle");
	load_bad("tests/chakra/bad-wrong-kind", 0, "tests/chakra/bad-wrong-kind/trace.0.et: not a Chakra trace");
	load_bad("tests/chakra", 0, "traceset tests/chakra: no trace files");
	load_bad("tests/chakra/no-such-dir", 0, "traceset tests/chakra/no-such-dir: cannot open the directory");
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = malloc(1 << 20);

	cr_assert(f && buf);
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

/* STYLE 29: a decoder gets a truncate-at-every-byte test. Every proper prefix ends inside a message (an error) or
 * between two (a shorter, valid trace); none crashes. */
Test(ctl_chakra_trace, truncated_at_every_byte)
{
	size_t len, ok = 0;
	uint8_t *buf = slurp("tests/chakra/dp8/trace.3.et", &len);
	char err[512];

	for (size_t cut = 0; cut < len; cut++) {
		struct app_ck_set s;
		uint8_t *copy = malloc(cut ? cut : 1);

		memcpy(copy, buf, cut);
		cr_assert_eq(app_ck_set_init(&s, 8), 0);
		int rc = ctl_chakra_decode(&s, 3, "trace.3.et", copy, cut, err, sizeof(err));

		cr_assert(rc == 0 || (rc == -EINVAL && strstr(err, "trace.3.et: ")), "cut %zu: %d %s", cut, rc, err);
		ok += rc == 0;
		app_ck_set_fini(&s);
		free(copy);
	}
	cr_assert_eq(ok, 10, "the boundaries after the GlobalMetadata and 0 to 9 of the 10 nodes");
	free(buf);
}

/* Bytes flipped one at a time: an error or a trace, never a crash (protobuf-c sees only checked lengths). */
Test(ctl_chakra_trace, flipped_bytes)
{
	size_t len;
	uint8_t *buf = slurp("tests/chakra/dp8/trace.0.et", &len);
	char err[512];

	for (size_t i = 0; i < len; i++)
		for (int bit = 0; bit < 8; bit += 3) {
			struct app_ck_set s;

			buf[i] ^= (uint8_t)(1u << bit);
			cr_assert_eq(app_ck_set_init(&s, 8), 0);
			(void)ctl_chakra_decode(&s, 0, "trace.0.et", buf, len, err, sizeof(err));
			app_ck_set_fini(&s);
			buf[i] ^= (uint8_t)(1u << bit);
		}
	free(buf);
}

/* As Chakra's feeder: bad-cycle's one ctrl_dep closing a cycle is dropped, counted; bad-undeclared-pg's rank 0
 * names process group dp by pg_name only and takes its ranks from the other files' declaration. */
Test(ctl_chakra_trace, feeder_drops_ctrl_cycle_and_pg_name_resolves)
{
	struct app_ck_set s;
	struct app_ck_prep_cfg cfg;
	struct app_ck_prep_out out = {0};
	char err[512] = "";

	cr_assert_eq(ctl_chakra_load("tests/chakra/bad-cycle", 0, &s, NULL, err, sizeof(err)), 0, "%s", err);
	app_ck_prep_defaults(&cfg);
	cr_assert_eq(app_ck_prepare(&s, &cfg, &out, NULL, NULL, err, sizeof(err)), 0, "%s", err);
	cr_assert(out.ctrl_cycle == 1 && out.ctrl_absent == 0 && out.ctrl_self == 0 && out.warnings == 1);
	app_ck_prep_fini(&out);
	app_ck_set_fini(&s);
	cr_assert_eq(ctl_chakra_load("tests/chakra/bad-undeclared-pg", 0, &s, NULL, err, sizeof(err)), 0, "%s", err);
	int g = app_ck_set_find_pg(&s, "dp");

	cr_assert(g >= 0 && s.pgs[g].n == 8 && s.pgs[g].src == APP_CK_PG_DECLARED && s.pg_world == 0);
	app_ck_set_fini(&s);
}

/* gzip @p in (@p n bytes) into @p path, as gzip(1) would; @p cut bytes of the result left off. */
static void write_gz(const char *path, const uint8_t *in, size_t n, size_t cut)
{
	z_stream z;
	uint8_t *out = malloc(n + 1024);
	FILE *f = fopen(path, "wb");

	memset(&z, 0, sizeof(z));
	cr_assert(out && f && deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
	z.next_in = (uint8_t *)(uintptr_t)in, z.avail_in = (uInt)n;
	z.next_out = out, z.avail_out = (uInt)(n + 1024);
	cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	cr_assert(z.total_out > cut);
	cr_assert_eq(fwrite(out, 1, z.total_out - cut, f), z.total_out - cut);
	deflateEnd(&z);
	fclose(f);
	free(out);
}

/* dp8 gzipped file by file (Chakra's reader inflates a file whose first bytes are gzip's): the same traceset; a
 * gzip stream cut short is refused naming the file. */
Test(ctl_chakra_trace, gzip_read_transparently)
{
	char dir[] = "/tmp/uetemu-ck-gz-XXXXXX", path[256], err[512] = "";
	struct app_ck_set plain, gz;
	uint8_t *buf = malloc(1 << 20);

	cr_assert(buf && mkdtemp(dir));
	for (int cut = 0; cut < 2; cut++) {
		for (int r = 0; r < 8; r++) {
			snprintf(path, sizeof(path), "tests/chakra/dp8/trace.%d.et", r);
			FILE *f = fopen(path, "rb");
			size_t n = f ? fread(buf, 1, 1 << 20, f) : 0;

			cr_assert(f && n > 0);
			fclose(f);
			snprintf(path, sizeof(path), "%s/trace.%d.et", dir, r);
			write_gz(path, buf, n, cut && r == 5 ? 9 : 0);
		}
		int rc = ctl_chakra_load(dir, 8, &gz, NULL, err, sizeof(err));

		if (cut) {
			cr_assert(rc == -EINVAL && strstr(err, "/trace.5.et: a gzip file that does not inflate"), "%s", err);
			app_ck_set_fini(&gz); /* frees what was read before the error */
			continue;
		}
		cr_assert_eq(rc, 0, "%s", err);
		cr_assert_eq(ctl_chakra_load("tests/chakra/dp8", 8, &plain, NULL, err, sizeof(err)), 0, "%s", err);
		cr_assert_eq(gz.gz_files, 8);
		cr_assert_eq(plain.gz_files, 0);
		for (int r = 0; r < 8; r++) {
			cr_assert_eq(gz.ranks[r].n, plain.ranks[r].n);
			for (uint32_t i = 0; i < gz.ranks[r].n; i++)
				cr_assert(gz.ranks[r].nodes[i].id == plain.ranks[r].nodes[i].id &&
					  gz.ranks[r].nodes[i].kind == plain.ranks[r].nodes[i].kind &&
					  gz.ranks[r].nodes[i].n_deps == plain.ranks[r].nodes[i].n_deps);
		}
		app_ck_set_fini(&plain);
		app_ck_set_fini(&gz);
	}
	for (int r = 0; r < 8; r++) {
		snprintf(path, sizeof(path), "%s/trace.%d.et", dir, r);
		remove(path);
	}
	remove(dir);
	free(buf);
}
