/* bucketstore.h - counts of consecutive integer-indexed buckets, grown to
 * either side as values arrive: the storage of the bucketed distributions
 * (loghist.h's log buckets, wdist.h's mantissa buckets). */
#ifndef SERVESIM_BUCKETSTORE_H
#define SERVESIM_BUCKETSTORE_H
#include <stddef.h>
#include <stdint.h>

struct bucket_store {   /* counts of buckets off .. off+len-1; all 0: empty */
	uint64_t *cnt;
	int64_t off;
	size_t len;
};

/* Make bucket i addressable, growing by at least half again (n adds cost
 * O(n) copies). */
void bucket_store_cover(struct bucket_store *s, int64_t i);
/* Adds k to bucket i of s, every bucket of src to dst; frees the counts. */
static inline void bucket_store_add(struct bucket_store *s, int64_t i, uint64_t k)
{
	if (s->len == 0 || i < s->off || i >= s->off + (int64_t)s->len)
		bucket_store_cover(s, i);
	s->cnt[i - s->off] += k;
}
void bucket_store_merge(struct bucket_store *dst, const struct bucket_store *src);
void bucket_store_release(struct bucket_store *s);
#endif
