/* Host-side helpers of bpf/: the loader's rate parsing and configuration check, and where a BPF object is found. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ebpf.h"
#include "emu_units.h"

#ifndef EBPF_OBJ_DIR
#define EBPF_OBJ_DIR "/usr/local/share/uetemu/bpf"
#endif

int ebpf_parse_rate(const char *s, uint64_t *bps, char *err, size_t errlen)
{
	char buf[64];
	size_t n = strlen(s);
	int rc;

	/* tc's "Nbit", "Nkbit", "Nmbit", "Ngbit", "Ntbit" (any case) -> uetemu's "Nbps", "NKbps", ... */
	if (n > 3 && n < sizeof(buf) && strcasecmp(s + n - 3, "bit") == 0) {
		memcpy(buf, s, n - 3);
		buf[n - 3] = '\0';
		char *u = buf + n - 4;
		const char *pfx = strchr("kKmMgGtT", *u);
		if (pfx != NULL && *u != '\0') {
			*u = (char)(*u >= 'a' ? *u - 'a' + 'A' : *u);
			snprintf(u + 1, sizeof(buf) - (size_t)(u + 1 - buf), "bps");
		} else {
			snprintf(buf + n - 3, sizeof(buf) - (n - 3), "bps");
		}
		s = buf;
	}
	rc = emu_parse_datarate(s, bps, err, errlen);
	if (rc == 0 && *bps < 1000) {
		snprintf(err, errlen, "rate '%s' is below 1000 bit/s", s);
		return -EINVAL;
	}
	return rc;
}

int ebpf_ecn_cfg_check(const struct ebpf_ecn_cfg *cfg, char *err, size_t errlen)
{
	if (cfg->rate_bps < 1000)
		snprintf(err, errlen, "--rate must be at least 1000 bit/s");
	else if (cfg->min_bytes >= cfg->max_bytes)
		snprintf(err, errlen, "--min (%llu B) must be below --max (%llu B)", (unsigned long long)cfg->min_bytes,
			 (unsigned long long)cfg->max_bytes);
	else if (cfg->limit_bytes < cfg->max_bytes || cfg->limit_bytes > EBPF_ECN_LIMIT_MAX)
		snprintf(err, errlen, "--limit (%llu B) must be at least --max (%llu B) and at most %llu B",
			 (unsigned long long)cfg->limit_bytes, (unsigned long long)cfg->max_bytes,
			 (unsigned long long)EBPF_ECN_LIMIT_MAX);
	else if (cfg->pmax_ppm > EBPF_PPM)
		snprintf(err, errlen, "--pmax must be between 0 and 1");
	else
		return 0;
	return -EINVAL;
}

int ebpf_trim_cfg_check(const struct ebpf_trim_cfg *cfg, char *err, size_t errlen)
{
	if (cfg->rate_bps < 1000)
		snprintf(err, errlen, "--rate must be at least 1000 bit/s");
	else if (cfg->limit_bytes < cfg->min_bytes || cfg->limit_bytes > EBPF_ECN_LIMIT_MAX)
		snprintf(err, errlen, "--limit (%llu B) must be at least --min (%llu B) and at most %llu B",
			 (unsigned long long)cfg->limit_bytes, (unsigned long long)cfg->min_bytes,
			 (unsigned long long)EBPF_ECN_LIMIT_MAX);
	else if (cfg->dscp_trimmable > 63 || cfg->dscp_trimmed > 63)
		snprintf(err, errlen, "a DSCP is 0 to 63");
	else if (cfg->dscp_trimmable == cfg->dscp_trimmed)
		snprintf(err, errlen, "--dscp (DSCP_TRIMMED, %u) must differ from --trimmable (%u): a receiver tells a "
			 "trimmed packet by it", cfg->dscp_trimmed, cfg->dscp_trimmable);
	else if (cfg->uet_port == 0)
		snprintf(err, errlen, "--port must be a UDP port, 1 to 65535");
	else
		return 0;
	return -EINVAL;
}

/* @p dir/@p name into @p out if it is a readable file. */
static int try_dir(const char *dir, const char *name, char *out, size_t outlen)
{
	int n = snprintf(out, outlen, "%s/%s", dir, name);

	return n > 0 && (size_t)n < outlen && access(out, R_OK) == 0;
}

int ebpf_obj_find(const char *name, char *out, size_t outlen)
{
	char exe[PATH_MAX], dir[PATH_MAX + 32];
	const char *env = getenv("UETEMU_BPF_DIR");
	ssize_t n;

	if (env != NULL && env[0] != '\0') {
		if (try_dir(env, name, out, outlen))
			return 0;
		snprintf(out, outlen, "%s not found in UETEMU_BPF_DIR=%s", name, env);
		return -ENOENT;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash != NULL)
			*slash = '\0';
		static const char *const sub[] = { "", "/bpf", "/../share/uetemu/bpf" };
		for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
			snprintf(dir, sizeof(dir), "%s%s", exe, sub[i]);
			if (try_dir(dir, name, out, outlen))
				return 0;
		}
	}
	if (try_dir(EBPF_OBJ_DIR, name, out, outlen))
		return 0;
	snprintf(out, outlen, "%s not found next to %s, in its bpf/ or ../share/uetemu/bpf, nor in %s (build it with "
		 "clang, or set UETEMU_BPF_DIR)", name, n > 0 ? exe : "the executable", EBPF_OBJ_DIR);
	return -ENOENT;
}
