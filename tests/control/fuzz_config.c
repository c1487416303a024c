/*
 * libFuzzer target for the config loader: the input is a YAML file, loaded by ctl_config_load() (the parser, the
 * key walk, every attribute's checks, the topology and application sections) from an in-memory file. It must load,
 * or fail with errors, one a line, each naming the file; nothing may crash, trip a sanitizer, leak or hang.
 *
 * Built with -DCONFIG_FUZZ_REPLAY it is a driver for every compiler instead: for each file named on its command line
 * (or each .yaml file in a directory named), the file itself and FUZZ_MUTANTS mutants of it made with a fixed seed
 * (bytes flipped, lines dropped, duplicated or swapped, values replaced by hostile ones) go to the same target.
 * tests/control/fuzz_config.py does the same through the `uetemu validate` command line, slower.
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl_config.h"
#include "emu_rng.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether @p err holds errors, one a line, each naming the file @p path (and the line and key where it has them). */
static bool errors_named(const char *err, const char *path)
{
	size_t n = strlen(path);

	if (err[0] == '\0')
		return false;
	for (const char *l = err; l != NULL && *l != '\0'; l = strchr(l, '\n') != NULL ? strchr(l, '\n') + 1 : NULL)
		if (strncmp(l, path, n) != 0 || l[n] != ':')
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ctl_config cfg; /* large: not on the stack */
	char path[64], err[1024];
	int fd = memfd_create("fuzz-config.yaml", 0);

	if (fd < 0)
		abort();
	if (size > 0 && write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	err[0] = '\0';
	int rc = ctl_config_load(&cfg, path, NULL, 0, err, sizeof(err));
	if (rc == 0)
		ctl_config_free(&cfg);
	else if (!errors_named(err, path)) {
		fprintf(stderr, "fuzz_config: an error that does not name the file: \"%s\"\n", err);
		abort();
	}
	close(fd);
	return 0;
}

#ifdef CONFIG_FUZZ_REPLAY
#define FUZZ_MUTANTS 200
#define FUZZ_MAX_INPUT (1u << 20)

static const char *const hostile[] = { "", "~", "-1", "0", "18446744073709551616", "99999999999999999999999Gbps",
	"1e308", "nan", "-0x1p-1", "0.5ps", "[]", "{}", "[1, [2, [3]]]", "&a x", "*a", "!!binary AAAA", "'", "\"",
	"null", "host0", "10.0.0.999", "1ps", "3600s", "[0.5, 0, 0.5, 0, 0, 0, 0, 0]", "4294967296", "-9223372036854775808" };

/* The @p n lines of @p text, each a pointer into it and a length (text is not changed). */
static size_t split_lines(const char *text, size_t len, const char **line, size_t *ll, size_t max)
{
	size_t n = 0, start = 0;

	for (size_t i = 0; i <= len && n < max; i++) {
		if (i == len || text[i] == '\n') {
			line[n] = text + start;
			ll[n++] = i - start;
			start = i + 1;
		}
	}
	return n;
}

/* A mutant of @p text in @p out (at most FUZZ_MAX_INPUT bytes); its length. */
static size_t mutate(struct emu_rng *r, const char *text, size_t len, char *out)
{
	enum { MAX_LINES = 4096 };
	static const char *line[MAX_LINES];
	static size_t ll[MAX_LINES];
	size_t n = split_lines(text, len, line, ll, MAX_LINES), at = 0;
	uint64_t v = emu_rng_next(r);
	size_t pick = n > 0 ? (size_t)((v >> 8) % n) : 0, other = n > 0 ? (size_t)((v >> 24) % n) : 0;

	for (size_t i = 0; i < n; i++) {
		const char *l = line[i];
		size_t k = ll[i];
		char tmp[512];

		if (i == pick) {
			switch (v % 5) {
			case 0: continue; /* dropped */
			case 1: l = line[other]; k = ll[other]; break; /* another line in its place */
			case 2: { /* a value replaced by a hostile one */
				const char *colon = memchr(l, ':', k);
				const char *h = hostile[(v >> 40) % (sizeof(hostile) / sizeof(hostile[0]))];
				if (colon != NULL && (size_t)(colon - l) + 2 + strlen(h) < sizeof(tmp)) {
					size_t c = (size_t)(colon - l) + 1;
					memcpy(tmp, l, c);
					tmp[c] = ' ';
					memcpy(tmp + c + 1, h, strlen(h));
					l = tmp;
					k = c + 1 + strlen(h);
				}
				break;
			}
			case 3: /* duplicated */
				if (at + k + 1 < FUZZ_MAX_INPUT) {
					memcpy(out + at, l, k);
					at += k;
					out[at++] = '\n';
				}
				break;
			default: break;
			}
		}
		if (at + k + 1 >= FUZZ_MAX_INPUT)
			break;
		memcpy(out + at, l, k);
		at += k;
		out[at++] = '\n';
	}
	if (v % 5 == 4 && at > 0) /* bytes flipped */
		for (int m = 1 + (int)((v >> 48) % 4); m > 0; m--) {
			uint64_t w = emu_rng_next(r);
			out[w % at] = (char)(w >> 32);
		}
	return at;
}

static int replay_file(const char *path, struct emu_rng *r, int *inputs)
{
	FILE *f = fopen(path, "rb");
	char *text = malloc(FUZZ_MAX_INPUT), *out = malloc(FUZZ_MAX_INPUT);
	size_t n;

	if (f == NULL || text == NULL || out == NULL) {
		fprintf(stderr, "fuzz_config: %s: cannot read\n", path);
		if (f != NULL)
			fclose(f);
		free(text);
		free(out);
		return 1;
	}
	n = fread(text, 1, FUZZ_MAX_INPUT, f);
	fclose(f);
	LLVMFuzzerTestOneInput((const uint8_t *)text, n);
	for (int i = 0; i < FUZZ_MUTANTS; i++) {
		size_t m = mutate(r, text, n, out);
		LLVMFuzzerTestOneInput((const uint8_t *)out, m);
	}
	*inputs += 1 + FUZZ_MUTANTS;
	free(text);
	free(out);
	return 0;
}

static int replay_path(const char *path, struct emu_rng *r, int *inputs)
{
	struct stat st;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "fuzz_config: %s: no such file\n", path);
		return 1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path, r, inputs);
	struct dirent **e;
	int n = scandir(path, &e, NULL, alphasort), bad = 0; /* sorted: the same mutants every run */
	char p[4096];

	if (n < 0)
		return 1;
	for (int i = 0; i < n; i++) {
		size_t l = strlen(e[i]->d_name);
		if (l > 5 && strcmp(e[i]->d_name + l - 5, ".yaml") == 0) {
			snprintf(p, sizeof(p), "%s/%s", path, e[i]->d_name);
			bad |= replay_file(p, r, inputs);
		}
		free(e[i]);
	}
	free(e);
	return bad;
}

int main(int argc, char **argv)
{
	struct emu_rng r;
	int rc = 0, inputs = 0;

	emu_rng_init(&r, 18760, 0);
	for (int i = 1; i < argc; i++)
		rc |= replay_path(argv[i], &r, &inputs);
	printf("fuzz_config: %d inputs (each file and %d mutants of it) through the config loader\n", inputs,
	       FUZZ_MUTANTS);
	return rc;
}
#endif
