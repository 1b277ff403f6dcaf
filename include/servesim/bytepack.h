/* bytepack.h - byte encoding for build outputs read back on the machine that
 * wrote them: native byte order and double format (a reader checks both). */
#ifndef SERVESIM_BYTEPACK_H
#define SERVESIM_BYTEPACK_H
#include <stdbool.h>
#include <stddef.h>

#include "servesim/sbuf.h"

void bytes_put(struct sbuf *sb, const void *p, size_t n);
void bytes_put_u64(struct sbuf *sb, size_t v);
struct bytes_rd {
	const unsigned char *p, *end;
	bool bad;             /* set by any read past the end or insane count */
};
void bytes_get(struct bytes_rd *r, void *dst, size_t n);
size_t bytes_get_u64(struct bytes_rd *r);
/* n doubles copied into a new array (NULL when n is 0 or on a bad read). */
double *bytes_get_f64s(struct bytes_rd *r, size_t n);
/* Whether a holds no NaN and ascends (strictly, or allowing ties): the
 * lookups' binary searches rely on it. */
bool bytes_ascending(const double *a, size_t n, bool strict);

#endif
