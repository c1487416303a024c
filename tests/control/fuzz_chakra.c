/*
 * libFuzzer target for the Chakra trace reader: the input is one trace file's bytes, decoded as rank 0 of an 8-rank
 * traceset by ctl_chakra_decode() and, when it decodes, prepared by app_ck_prepare() (dependencies, groups,
 * expansion, cycle check). It must give a trace or an error naming the file; nothing may crash, trip a sanitizer,
 * leak or hang.
 *
 * Built with -DCHAKRA_FUZZ_REPLAY it is a driver for every compiler instead: each .et file of the directories named
 * on its command line, and FUZZ_MUTANTS mutants of it made with a fixed seed (bytes flipped, cut, duplicated,
 * varints made huge), go to the same target.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_chakra.h"
#include "ctl_chakra_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct app_ck_set s;
	struct app_ck_prep_cfg cfg;
	struct app_ck_prep_out out = {0};
	char err[512] = "";

	if (app_ck_set_init(&s, 8))
		return 0;
	int rc = ctl_chakra_decode(&s, 0, "fuzz.0.et", data, size, err, sizeof(err));

	if (rc && strncmp(err, "fuzz.0.et: ", 11) != 0)
		abort(); /* an error that does not name the file */
	if (rc == 0)
		rc = ctl_chakra_resolve_pgs(&s);
	if (rc == 0) {
		app_ck_prep_defaults(&cfg);
		cfg.strict_deps = size & 1; /* both dependency rules */
		(void)app_ck_prepare(&s, &cfg, &out, NULL, NULL, err, sizeof(err));
	}
	app_ck_prep_fini(&out);
	app_ck_set_fini(&s);
	return 0;
}

#ifdef CHAKRA_FUZZ_REPLAY
#define FUZZ_MUTANTS 300

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
	return *x;
}

/* One mutant of @p in (@p n bytes) into @p out (room for 2n + 16); returns its length. */
static size_t mutate(const uint8_t *in, size_t n, uint8_t *out, uint64_t *x)
{
	size_t len = n, at = n ? rnd(x) % n : 0;

	memcpy(out, in, n);
	switch (rnd(x) % 4) {
	case 0: /* flip a few bytes */
		for (int i = 0; i < 4 && n; i++)
			out[rnd(x) % n] ^= (uint8_t)(1u << (rnd(x) % 8));
		break;
	case 1: /* cut */
		len = at;
		break;
	case 2: /* duplicate the tail */
		memcpy(out + n, in + at, n - at);
		len = n + (n - at);
		break;
	default: /* a huge varint at a random place */
		memcpy(out + at, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", n - at < 10 ? n - at : 10);
		break;
	}
	return len;
}

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = malloc(1 << 20), *mut = malloc(2 << 20);
	size_t n;
	uint64_t x = 0x9E3779B97F4A7C15ull;

	if (!f || !buf || !mut) {
		if (f)
			fclose(f);
		free(buf), free(mut);
		return -1;
	}
	n = fread(buf, 1, 1 << 20, f);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	for (int i = 0; i < FUZZ_MUTANTS; i++)
		LLVMFuzzerTestOneInput(mut, mutate(buf, n, mut, &x));
	free(buf), free(mut);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned files = 0;

	for (int a = 1; a < argc; a++) {
		DIR *d = opendir(argv[a]);
		struct dirent *e;
		char path[4096];

		while (d && (e = readdir(d)))
			if (strlen(e->d_name) > 3 && strcmp(e->d_name + strlen(e->d_name) - 3, ".et") == 0) {
				snprintf(path, sizeof(path), "%s/%s", argv[a], e->d_name);
				if (replay_file(path) == 0)
					files++;
			}
		if (d)
			closedir(d);
	}
	printf("fuzz_chakra replay: %u files, %u inputs each\n", files, FUZZ_MUTANTS + 1);
	return files ? 0 : 1;
}
#endif
