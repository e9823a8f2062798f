/* sort_u64: shared by the fingerprint and match extensions (each a separate compile unit).
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

#endif
