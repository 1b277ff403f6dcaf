/* bucketstore.c - growable bucket counts (see bucketstore.h). */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/bucketstore.h"

void bucket_store_cover(struct bucket_store *s, int64_t i)
{
	int64_t lo, hi;
	size_t len, grow = s->len + s->len / 2;
	uint64_t *c;

	if (s->len > 0 && i >= s->off && i < s->off + (int64_t)s->len)
		return;
	lo = s->len && s->off < i ? s->off : i;
	hi = s->len && s->off + (int64_t)s->len - 1 > i ? s->off + (int64_t)s->len - 1 : i;
	len = (size_t)(hi - lo + 1);
	if (s->len && len < grow) {
		if (i < s->off)
			lo -= (int64_t)(grow - len);
		else
			hi += (int64_t)(grow - len);
		len = grow;
	}
	c = xcalloc(len, sizeof(uint64_t));
	if (s->len)
		memcpy(c + (s->off - lo), s->cnt, s->len * sizeof(uint64_t));
	free(s->cnt);
	s->cnt = c;
	s->off = lo;
	s->len = len;
}

void bucket_store_merge(struct bucket_store *dst, const struct bucket_store *src)
{
	size_t i;

	for (i = 0; i < src->len; i++)
		if (src->cnt[i])
			bucket_store_add(dst, src->off + (int64_t)i, src->cnt[i]);
}

void bucket_store_release(struct bucket_store *s)
{
	free(s->cnt);
	memset(s, 0, sizeof(*s));
}
