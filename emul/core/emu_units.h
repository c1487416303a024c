/* Text forms of config values (rates, times, sizes, fractions, lists, addresses), parsed exactly in integers.
 *
 * No YAML here: the config loader (control/) and nic_params_defaults() share these parsers, so a default written
 * as text in a table means exactly what the same text means in a config file.
 *
 * Every parser takes a NUL-terminated @p s and, on failure, writes one line "<what>; <suggestion>" into @p err
 * (size @p errlen; truncated to fit, always terminated when errlen > 0). The caller prefixes the file position and
 * key path. Decimals are read as mantissa x 10^exponent, never through a float, so 31.52Gbps is exactly
 * 31,520,000,000 bit/s and 1.55ns exactly 1550 ps.
 */
#ifndef EMU_UNITS_H
#define EMU_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu_time.h"

/** Longest entry of a list string ("[0.9, 0.1, ...]"), terminator included. */
#define EMU_LIST_ITEM_MAX 32

/**
 * A uint: a whole number of 0 or more ("42", "1.0", "1e3"). Returns 0, -EINVAL for a negative, fractional or
 * malformed value, -ERANGE above UINT64_MAX.
 */
int emu_parse_uint(const char *s, uint64_t *out, char *err, size_t errlen);

/** A double written as a decimal ("0.15", "25", "1e-3"). Returns 0, -EINVAL if malformed, -ERANGE if infinite. */
int emu_parse_double(const char *s, double *out, char *err, size_t errlen);

/** A bool: exactly "true" or "false". Returns 0 or -EINVAL. */
int emu_parse_bool(const char *s, bool *out, char *err, size_t errlen);

/**
 * A datarate: number + bps, Kbps, Mbps, Gbps or Tbps, in bit/s. Zero, a bare number, a fraction of a bit/s and
 * a negative rate are refused. Returns 0, -EINVAL, or -ERANGE above UINT64_MAX bit/s.
 */
int emu_parse_datarate(const char *s, uint64_t *bps, char *err, size_t errlen);

/** A rate limit: a datarate (emu_parse_datarate()), or "0", "off", "none", "unlimited" for none (*@p bps 0). */
int emu_parse_rate_limit(const char *s, uint64_t *bps, char *err, size_t errlen);

/**
 * A timeval: number + ps, ns, us, ms or s, in picoseconds; a bare 0 is also accepted. The value must be a whole
 * number of picoseconds ("1.5ps" is refused). Returns 0, -EINVAL, or -ERANGE above UINT64_MAX ps.
 */
int emu_parse_timeval(const char *s, emu_ps_t *ps, char *err, size_t errlen);

/** As emu_parse_timeval(), but a bare number means seconds ("0.001" = 1 ms), as Scala's double-in-seconds. */
int emu_parse_seconds(const char *s, emu_ps_t *ps, char *err, size_t errlen);

/**
 * A size (bytes or queuesize): number + B, KB, KiB, MB, MiB, GB or GiB (KB = 1000, KiB = 1024), or a bare whole
 * number of bytes. Returns 0, -EINVAL (negative, fractional bytes, bad unit), or -ERANGE above UINT64_MAX.
 */
int emu_parse_size(const char *s, uint64_t *bytes, char *err, size_t errlen);

/**
 * A fraction 0.0 to 1.0, in parts per million (0.9 -> 900000). More than six decimal places that are not zero are
 * refused rather than rounded. Returns 0 or -EINVAL.
 */
int emu_parse_ppm(const char *s, uint32_t *ppm, char *err, size_t errlen);

/**
 * Split a Scala list string "[a, b, ...]" (brackets required) into exactly @p n trimmed entries, each one or more
 * of letters, digits, '.', '_', '+', '-'. @p example is quoted in the suggestion of an error.
 * Returns 0 or -EINVAL.
 */
int emu_parse_list(const char *s, char items[][EMU_LIST_ITEM_MAX], int n, const char *example, char *err,
		   size_t errlen);

/** A dotted-quad IPv4 address, in host byte order. Returns 0 or -EINVAL. */
int emu_parse_ipv4(const char *s, uint32_t *ip, char *err, size_t errlen);

/** A MAC address, six hex pairs separated by colons. Returns 0 or -EINVAL. */
int emu_parse_mac(const char *s, uint8_t mac[6], char *err, size_t errlen);

#endif /* EMU_UNITS_H */
