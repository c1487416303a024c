/* Helpers shared by the attribute tables of the devices: messages, field stores, name lists. */
#include "emu_param.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>

int emu_param_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

void emu_param_store_uint(void *f, size_t size, uint64_t v)
{
	switch (size) {
	case 1: *(uint8_t *)f = (uint8_t)v; break;
	case 2: *(uint16_t *)f = (uint16_t)v; break;
	case 4: *(uint32_t *)f = (uint32_t)v; break;
	case 8: *(uint64_t *)f = v; break;
	default: assert(size == 0); break;
	}
}

void emu_param_join(char *buf, size_t len, const char *const *names)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; names[i] != NULL && used < len; i++) {
		const char *sep = i == 0 ? "" : names[i + 1] == NULL ? " or " : ", ";
		int n = snprintf(buf + used, len - used, "%s%s", sep, names[i]);

		used += n > 0 ? (size_t)n : 0;
	}
}
