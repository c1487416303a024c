/* Helpers shared by the attribute tables of the devices (nic_params.c, sw_params.c): messages, field stores. */
#ifndef EMU_PARAM_H
#define EMU_PARAM_H

#include <stddef.h>
#include <stdint.h>

/** Write the message @p fmt into @p err (size @p errlen; may be NULL) and return @p rc. */
__attribute__((format(printf, 4, 5))) int emu_param_fail(char *err, size_t errlen, int rc, const char *fmt, ...);

/** Store @p v in the unsigned field @p f of @p size 1, 2, 4 or 8 bytes (size 0: not stored). */
void emu_param_store_uint(void *f, size_t size, uint64_t v);

/** "A, B or C" of the NULL-terminated name list @p names, into @p buf of @p len bytes. */
void emu_param_join(char *buf, size_t len, const char *const *names);

#endif /* EMU_PARAM_H */
