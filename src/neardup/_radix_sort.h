/* sort_u64 and sort_spread: shared by the fingerprint and match extensions (each a separate compile unit).
 * Include after defining qsort_u64(uint64_t *, int64_t), the fallback for short arrays; needs
 * <stdint.h>, <stdlib.h> and <string.h>. */
#ifndef NEARDUP_RADIX_SORT_H
#define NEARDUP_RADIX_SORT_H

/* an ascending sort of n 64-bit values: least significant digit radix sort (8 bits a pass, passes
 * whose digit is the same in every value skipped) for 256 values or more (below 2^32), else the quicksort; as a
 * sort of values alone, every correct sort gives the same array */
static void sort_u64(uint64_t *v, int64_t n) {
    if (n < 256 || n >= ((int64_t)1 << 32)) {
        qsort_u64(v, n);
        return;
    }
    uint64_t *tmp = malloc((size_t)n * sizeof(uint64_t));
    uint32_t(*count)[256] = calloc(8, sizeof(*count));
    if (!tmp || !count) {
        free(tmp);
        free(count);
        qsort_u64(v, n);
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        uint64_t x = v[i];
        for (int d = 0; d < 8; d++) count[d][(x >> (8 * d)) & 0xFF]++;
    }
    uint64_t *src = v, *dst = tmp;
    for (int d = 0; d < 8; d++) {
        uint32_t *c = count[d];
        if (c[(src[0] >> (8 * d)) & 0xFF] == (uint32_t)n) continue; /* one digit value: nothing moves */
        uint32_t sum = 0;
        for (int b = 0; b < 256; b++) {
            uint32_t t = c[b];
            c[b] = sum;
            sum += t;
        }
        for (int64_t i = 0; i < n; i++) {
            uint64_t x = src[i];
            dst[c[(x >> (8 * d)) & 0xFF]++] = x;
        }
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != v) memcpy(v, src, (size_t)n * sizeof(uint64_t));
    free(tmp);
    free(count);
}

/* Sorts of a text's hashes (its windows when signed; window hashes and term keys in the text
 * evidence of each candidate pair): a few hundred values spread over their range, so one counting pass on the highest bits of (value - min) puts
 * nearly every value in its place and an insertion sort finishes the rest, in O(n). Values that do
 * not spread (a bucket past SPREAD_MAX: a text repeating itself) take the comparison sort. */
#define SPREAD_MAX 64

static inline int spread_bits(int64_t n) {
    int b = 1;
    while (((int64_t)1 << b) < n) b++;
    return b;
}

static inline int spread_shift(uint64_t span, int bits) {
    int top = span ? 64 - __builtin_clzll(span) : 0; /* bits of the span */
    return top > bits ? top - bits : 0;
}

/* the buckets of A's n values (by the highest bits of value - lo): C[b] = the first place of
 * bucket b once summed, *lo and *shift to find a value's bucket; returns 0 when a bucket holds
 * more than SPREAD_MAX values (values that do not spread: the caller sorts by comparison) */
static int spread_buckets(const uint64_t *A, int64_t n, int32_t *C, uint64_t *lo_, int *shift_) {
    uint64_t lo = A[0], hi = A[0];
    for (int64_t i = 1; i < n; i++) {
        if (A[i] < lo) lo = A[i];
        if (A[i] > hi) hi = A[i];
    }
    int shift = spread_shift(hi - lo, spread_bits(n));
    int64_t nb = ((hi - lo) >> shift) + 1;
    memset(C, 0, (size_t)(nb + 1) * sizeof(int32_t));
    int32_t most = 0;
    for (int64_t i = 0; i < n; i++) {
        int32_t c = ++C[((A[i] - lo) >> shift) + 1];
        if (c > most) most = c;
    }
    if (most > SPREAD_MAX) return 0;
    for (int64_t b = 0; b < nb; b++) C[b + 1] += C[b];
    *lo_ = lo;
    *shift_ = shift;
    return 1;
}

/* V sorted in place (as values alone, any correct sort gives the same array); T: n values of
 * scratch, C: 2n + 2 counters */
static void sort_spread(uint64_t *V, int64_t n, uint64_t *T, int32_t *C) {
    if (n < 2) return;
    uint64_t lo;
    int shift;
    if (!spread_buckets(V, n, C, &lo, &shift)) {
        sort_u64(V, n);
        return;
    }
    for (int64_t i = 0; i < n; i++) T[C[(V[i] - lo) >> shift]++] = V[i];
    V[0] = T[0];
    for (int64_t i = 1; i < n; i++) {
        uint64_t v = T[i];
        int64_t j = i;
        while (j > 0 && v < V[j - 1]) {
            V[j] = V[j - 1];
            j--;
        }
        V[j] = v;
    }
}

#endif
