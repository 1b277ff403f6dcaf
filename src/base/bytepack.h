/* bytepack.h - byte encoding for build outputs read back on the machine that
 * wrote them: native byte order and double format (a reader checks both). */
#ifndef SERVESIM_BYTEPACK_H
#define SERVESIM_BYTEPACK_H
#include <stdbool.h>
#include <stddef.h>

#include "base/sbuf.h"

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
/* n doubles read in place: a pointer into the buffer, which must outlive
 * it (NULL when n is 0, on a bad read, or when the doubles are not aligned
 * for direct use: *aligned then says false and the caller copies with
 * bytes_get_f64s instead; nothing is consumed in that case). */
const double *bytes_view_f64s(struct bytes_rd *r, size_t n, bool *aligned);
/* Whether a holds no NaN and ascends (strictly, or allowing ties): the
 * lookups' binary searches rely on it. */
bool bytes_ascending(const double *a, size_t n, bool strict);

#endif
