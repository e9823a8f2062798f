/* Fingerprint and signature kernels in C: the numba kernels of _fast.py, _kernels.py, _xxh3.py,
 * match/signature.py and match/candidates.py, bit for bit (tested against them on random texts and
 * the corpora). Built by pip at install, so no run compiles; without a C compiler the numba kernels
 * run instead.
 *
 * Every function takes its inputs and outputs as C-contiguous buffers (numpy arrays: the Python
 * wrappers allocate the outputs) and releases the GIL while it loops. Element sizes are checked,
 * element types are the wrappers' business:
 *
 * normalize(cps u32, offsets i64, table u8, mstart i64, mlen i64, mflat u32, out_off i64[nd + 1],
 *           flags u8[nd]) -> bytearray    (the normalized code points, 4 bytes each, native order)
 * shingle_into(cps u32, offsets i64, table u8, n, step, bits, binary, out u64[nd], ok bool[nd])
 * accumulate_into(hashes u64, weights i64, bits, sums i64[bits])
 * sums_to_fp(sums i64) -> int
 * batch_fingerprints_into(ids i64, offsets i64, vh u64, vw i64, bits, binary, top_n i64[nd], levels,
 *                         out u64[nd])
 * majority_bits(hashes u64, bits) -> int
 * signature_range(cps u32, offsets i64, table u32, n, k, m, d0, d1, content u64, simhash u64,
 *                 size i32, ntok i32, sketch u32[nd * k], nums u64[nd * max(m, 1)], prof u32[ncp + nd])
 * copy_profiles(src u32, starts i64[nd], ptr i64[nd + 1], out u32)
 * posting_pairs_count(values u64, posted bool, max_posting) -> int
 * posting_pairs_into(values u64, docs i64, posted bool, max_posting, out u64) -> int
 * xxh3_small(data) -> int or None      (XXH3-64 of up to 240 bytes; None beyond)
 * dates_zh(text) -> str                  (text.normalize.dates_zh)
 * mostly_cjk(text) -> bool                (more CJK characters than ASCII letters)
 * numbers_as_digits(text) -> str or None   (text.normalize.numbers_as_digits; None: a value beyond
 *                                          what C computes exactly, the caller runs the Python one)
 * phrases(text, firsts, pairs, table) -> str   (text.normalize.regional_phrases' reading)
 * words(text, bits, table) -> str   (text.normalize.spellings' reading)
 * contractions(text) -> str   (text.normalize.contractions' reading at the apostrophes)
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(_MSC_VER) && !defined(restrict)
#define restrict __restrict
#endif

/* ---------------------------------------------------------------------------------------------
 * buffers */

#define MAXBUF 16

typedef struct {
    Py_buffer v[MAXBUF];
    int n;
} Bufs;

/* The contents of ``obj`` as a C-contiguous buffer of ``itemsize``-byte elements; their count in
 * *count. NULL (with an exception set) when it is not one. */
static void *take(Bufs *b, PyObject *obj, int writable, Py_ssize_t itemsize, Py_ssize_t *count, const char *what) {
    Py_buffer *v = &b->v[b->n];
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, v, flags) < 0) return NULL;
    b->n++;
    if (v->itemsize != itemsize) {
        PyErr_Format(PyExc_TypeError, "%s: expected %zd-byte elements, got %zd", what, itemsize, v->itemsize);
        return NULL;
    }
    *count = v->len / itemsize;
    return v->buf;
}

static void release(Bufs *b) {
    for (int i = 0; i < b->n; i++) PyBuffer_Release(&b->v[i]);
    b->n = 0;
}

static int too_short(Py_ssize_t have, Py_ssize_t need, const char *what) {
    if (have < need) {
        PyErr_Format(PyExc_ValueError, "%s: needs %zd elements, has %zd", what, need, have);
        return 1;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * XXH3-64, seed 0, default secret, inputs of 0..240 bytes (as _xxh3.py) */

static const uint8_t SECRET[192] = {
    0xB8, 0xFE, 0x6C, 0x39, 0x23, 0xA4, 0x4B, 0xBE, 0x7C, 0x01, 0x81, 0x2C, 0xF7, 0x21, 0xAD, 0x1C,
    0xDE, 0xD4, 0x6D, 0xE9, 0x83, 0x90, 0x97, 0xDB, 0x72, 0x40, 0xA4, 0xA4, 0xB7, 0xB3, 0x67, 0x1F,
    0xCB, 0x79, 0xE6, 0x4E, 0xCC, 0xC0, 0xE5, 0x78, 0x82, 0x5A, 0xD0, 0x7D, 0xCC, 0xFF, 0x72, 0x21,
    0xB8, 0x08, 0x46, 0x74, 0xF7, 0x43, 0x24, 0x8E, 0xE0, 0x35, 0x90, 0xE6, 0x81, 0x3A, 0x26, 0x4C,
    0x3C, 0x28, 0x52, 0xBB, 0x91, 0xC3, 0x00, 0xCB, 0x88, 0xD0, 0x65, 0x8B, 0x1B, 0x53, 0x2E, 0xA3,
    0x71, 0x64, 0x48, 0x97, 0xA2, 0x0D, 0xF9, 0x4E, 0x38, 0x19, 0xEF, 0x46, 0xA9, 0xDE, 0xAC, 0xD8,
    0xA8, 0xFA, 0x76, 0x3F, 0xE3, 0x9C, 0x34, 0x3F, 0xF9, 0xDC, 0xBB, 0xC7, 0xC7, 0x0B, 0x4F, 0x1D,
    0x8A, 0x51, 0xE0, 0x4B, 0xCD, 0xB4, 0x59, 0x31, 0xC8, 0x9F, 0x7E, 0xC9, 0xD9, 0x78, 0x73, 0x64,
    0xEA, 0xC5, 0xAC, 0x83, 0x34, 0xD3, 0xEB, 0xC3, 0xC5, 0x81, 0xA0, 0xFF, 0xFA, 0x13, 0x63, 0xEB,
    0x17, 0x0D, 0xDD, 0x51, 0xB7, 0xF0, 0xDA, 0x49, 0xD3, 0x16, 0x55, 0x26, 0x29, 0xD4, 0x68, 0x9E,
    0x2B, 0x16, 0xBE, 0x58, 0x7D, 0x47, 0xA1, 0xFC, 0x8F, 0xF8, 0xB8, 0xD1, 0x7A, 0xD0, 0x31, 0xCE,
    0x45, 0xCB, 0x3A, 0x8F, 0x95, 0x16, 0x04, 0x28, 0xAF, 0xD7, 0xFB, 0xCA, 0xBB, 0x4B, 0x40, 0x7E,
};

#define P64_1 0x9E3779B185EBCA87ULL
#define P64_2 0xC2B2AE3D27D4EB4FULL
#define P64_3 0x165667B19E3779F9ULL
#define PMX1 0x165667919E3779F9ULL
#define PMX2 0x9FB21C651E98DF25ULL

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static inline uint64_t rd64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline uint64_t rd32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
#else
static inline uint64_t rd64(const uint8_t *p) {
    uint64_t v = 0;
    for (int k = 0; k < 8; k++) v |= (uint64_t)p[k] << (8 * k);
    return v;
}

static inline uint64_t rd32(const uint8_t *p) {
    return (uint64_t)p[0] | ((uint64_t)p[1] << 8) | ((uint64_t)p[2] << 16) | ((uint64_t)p[3] << 24);
}
#endif

static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline uint64_t swap64(uint64_t x) {
#if defined(__GNUC__)
    return __builtin_bswap64(x);
#endif
    uint64_t v = 0;
    for (int k = 0; k < 8; k++) v = (v << 8) | ((x >> (8 * k)) & 0xFF);
    return v;
}

static inline uint64_t mulfold(uint64_t a, uint64_t b) {
#if defined(__SIZEOF_INT128__)
    __uint128_t p = (__uint128_t)a * b;
    return (uint64_t)p ^ (uint64_t)(p >> 64);
#else
    uint64_t a_lo = a & 0xFFFFFFFFULL, a_hi = a >> 32, b_lo = b & 0xFFFFFFFFULL, b_hi = b >> 32;
    uint64_t lo_lo = a_lo * b_lo, hi_lo = a_hi * b_lo, lo_hi = a_lo * b_hi, hi_hi = a_hi * b_hi;
    uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xFFFFFFFFULL) + lo_hi;
    uint64_t upper = (hi_lo >> 32) + (cross >> 32) + hi_hi;
    uint64_t lower = (cross << 32) | (lo_lo & 0xFFFFFFFFULL);
    return lower ^ upper;
#endif
}

static inline uint64_t xxh64_avalanche(uint64_t h) {
    h ^= h >> 33;
    h *= P64_2;
    h ^= h >> 29;
    h *= P64_3;
    h ^= h >> 32;
    return h;
}

static inline uint64_t avalanche(uint64_t h) {
    h ^= h >> 37;
    h *= PMX1;
    h ^= h >> 32;
    return h;
}

static inline uint64_t mix16(const uint8_t *p, const uint8_t *s) {
    return mulfold(rd64(p) ^ rd64(s), rd64(p + 8) ^ rd64(s + 8));
}

/* XXH3-64 of p[0:len]; *ok = 0 (and 0 returned) over 240 bytes */
static uint64_t xxh3_64(const uint8_t *p, int64_t len, int *ok) {
    const uint8_t *s = SECRET;
    uint64_t n = (uint64_t)len;
    *ok = 1;
    if (len <= 16) {
        if (len > 8) {
            uint64_t lo = rd64(p) ^ (rd64(s + 24) ^ rd64(s + 32));
            uint64_t hi = rd64(p + len - 8) ^ (rd64(s + 40) ^ rd64(s + 48));
            uint64_t acc = n + swap64(lo) + hi + mulfold(lo, hi);
            return avalanche(acc);
        }
        if (len >= 4) {
            uint64_t in1 = rd32(p), in2 = rd32(p + len - 4);
            uint64_t keyed = (in2 + (in1 << 32)) ^ (rd64(s + 8) ^ rd64(s + 16));
            uint64_t h = keyed ^ (rotl64(keyed, 49) ^ rotl64(keyed, 24));
            h *= PMX2;
            h ^= (h >> 35) + n;
            h *= PMX2;
            h ^= h >> 28;
            return h;
        }
        if (len > 0) {
            uint64_t c1 = p[0], c2 = p[len >> 1], c3 = p[len - 1];
            uint64_t combined = (c1 << 16) | (c2 << 24) | c3 | (n << 8);
            return xxh64_avalanche(combined ^ (rd32(s) ^ rd32(s + 4)));
        }
        return xxh64_avalanche(rd64(s + 56) ^ rd64(s + 64));
    }
    if (len <= 128) {
        uint64_t acc = n * P64_1;
        if (len > 32) {
            if (len > 64) {
                if (len > 96) {
                    acc += mix16(p + 48, s + 96);
                    acc += mix16(p + len - 64, s + 112);
                }
                acc += mix16(p + 32, s + 64);
                acc += mix16(p + len - 48, s + 80);
            }
            acc += mix16(p + 16, s + 32);
            acc += mix16(p + len - 32, s + 48);
        }
        acc += mix16(p, s);
        acc += mix16(p + len - 16, s + 16);
        return avalanche(acc);
    }
    if (len <= 240) {
        uint64_t acc = n * P64_1;
        for (int i = 0; i < 8; i++) acc += mix16(p + 16 * i, s + 16 * i);
        acc = avalanche(acc);
        for (int64_t i = 8; i < len / 16; i++) acc += mix16(p + 16 * i, s + 16 * (i - 8) + 3);
        acc += mix16(p + len - 16, s + 119);
        return avalanche(acc);
    }
    *ok = 0;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * SimHash bit votes */

#define L8 0x0101010101010101ULL

/* bit b (< bits) set when more than half of hs[0:total] have it */
static uint64_t majority(const uint64_t *hs, int64_t total, int bits) {
    int64_t counts[64] = {0};
    uint64_t acc[8] = {0};
    int pending = 0;
    for (int64_t k = 0; k < total; k++) {
        uint64_t h = hs[k];
        for (int j = 0; j < 8; j++) acc[j] += (h >> j) & L8;
        pending++;
        if (pending == 255 || k == total - 1) {
            for (int j = 0; j < 8; j++) {
                uint64_t v = acc[j];
                for (int lane = 0; lane < 8; lane++) counts[8 * lane + j] += (int64_t)((v >> (8 * lane)) & 0xFF);
                acc[j] = 0;
            }
            pending = 0;
        }
    }
    uint64_t fp = 0;
    for (int b = 0; b < bits && b < 64; b++)
        if (2 * counts[b] > total) fp |= 1ULL << b;
    return fp;
}

/* EXPAND[v][i]: all ones where bit i of the byte v is set */
static uint64_t EXPAND[256][8];

/* Weighted votes, kept as set[b] = the sum of w over features with bit b set, and total = the sum
 * of all w: the signed sum SimHash thresholds is 2 set[b] - total (add_up). Bytes of the hash pick
 * rows of EXPAND, so the inner loop is masks and adds, with no shift per bit. Everything is two's
 * complement arithmetic that wraps around, as numba's int64 does, so the identity holds exactly. */
static inline void add_votes(uint64_t *restrict set, uint64_t *total, uint64_t h, int64_t w) {
    uint64_t uw = (uint64_t)w;
    *total += uw;
    for (int j = 0; j < 8; j++) {
        const uint64_t *m = EXPAND[(h >> (8 * j)) & 0xFF];
        uint64_t *restrict o = set + 8 * j;
        for (int i = 0; i < 8; i++) o[i] += uw & m[i];
    }
}

/* GCC on x86-64 Linux with glibc (ifunc) also builds an AVX2 copy of the vote loops, picked at load time where the CPU
 * has it (numba compiles for the host CPU the same way); other compilers and platforms build one. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__)
#define HOST_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define HOST_CLONES
#endif

/* the votes of every feature occurrence ids[0:len] with a positive weight */
#if defined(__GNUC__)
/* the same loop over 4-lane vectors (GCC's and clang's vector extension): the 64 sums stay in 16
 * registers while the features stream past */
typedef uint64_t v4u __attribute__((vector_size(32)));

HOST_CLONES static void vote_occurrences(const int64_t *ids, int64_t len, const uint64_t *vh, const int64_t *vw,
                                         uint64_t *set, uint64_t *total) {
    v4u acc[16];
    memcpy(acc, set, sizeof(acc));
    uint64_t tot = *total;
    for (int64_t i = 0; i < len; i++) {
        int64_t w = vw[ids[i]];
        if (w <= 0) continue;
        uint64_t h = vh[ids[i]], uw = (uint64_t)w;
        v4u wv = {uw, uw, uw, uw};
        tot += uw;
        for (int j = 0; j < 8; j++) {
            v4u m[2];
            memcpy(m, EXPAND[(h >> (8 * j)) & 0xFF], sizeof(m));
            acc[2 * j] += wv & m[0];
            acc[2 * j + 1] += wv & m[1];
        }
    }
    memcpy(set, acc, sizeof(acc));
    *total = tot;
}

/* the votes of features hs[0:n] with weights ws[0:n] */
HOST_CLONES static void vote_list(const uint64_t *hs, const int64_t *ws, int64_t n, uint64_t *set, uint64_t *total) {
    v4u acc[16];
    memcpy(acc, set, sizeof(acc));
    uint64_t tot = *total;
    for (int64_t i = 0; i < n; i++) {
        uint64_t h = hs[i], uw = (uint64_t)ws[i];
        v4u wv = {uw, uw, uw, uw};
        tot += uw;
        for (int j = 0; j < 8; j++) {
            v4u m[2];
            memcpy(m, EXPAND[(h >> (8 * j)) & 0xFF], sizeof(m));
            acc[2 * j] += wv & m[0];
            acc[2 * j + 1] += wv & m[1];
        }
    }
    memcpy(set, acc, sizeof(acc));
    *total = tot;
}
#else
static void vote_occurrences(const int64_t *ids, int64_t len, const uint64_t *vh, const int64_t *vw, uint64_t *set,
                             uint64_t *total) {
    for (int64_t i = 0; i < len; i++) {
        int64_t w = vw[ids[i]];
        if (w <= 0) continue;
        add_votes(set, total, vh[ids[i]], w);
    }
}

static void vote_list(const uint64_t *hs, const int64_t *ws, int64_t n, uint64_t *set, uint64_t *total) {
    for (int64_t i = 0; i < n; i++) add_votes(set, total, hs[i], ws[i]);
}
#endif

/* the signed sums of the first ``bits`` bits */
static inline void add_up(const uint64_t *set, uint64_t total, int64_t *sums, int bits) {
    for (int b = 0; b < bits; b++) sums[b] = (int64_t)(2 * set[b] - total);
}

static inline uint64_t votes_to_fp(const int64_t *sums, int64_t bits) {
    uint64_t fp = 0;
    for (int64_t b = 0; b < bits && b < 64; b++)
        if (sums[b] > 0) fp |= 1ULL << b;
    return fp;
}

/* in-place ascending sort of v[0:n]: quicksort (median of three, the smaller side first, so the
 * stack stays O(log n)) with insertion sort for short runs; the result, a sorted array, is the same
 * whatever sort numba uses */
#define DEFINE_SORT(NAME, T)                                                             \
    static void NAME(T *v, int64_t n) {                                                  \
        while (n > 16) {                                                                 \
            T a = v[0], b = v[n / 2], c = v[n - 1];                                      \
            T p = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b)); \
            int64_t i = 0, j = n - 1;                                                    \
            while (i <= j) {                                                             \
                while (v[i] < p) i++;                                                    \
                while (v[j] > p) j--;                                                    \
                if (i <= j) {                                                            \
                    T t = v[i];                                                          \
                    v[i] = v[j];                                                         \
                    v[j] = t;                                                            \
                    i++;                                                                 \
                    j--;                                                                 \
                }                                                                        \
            }                                                                            \
            if (j + 1 < n - i) {                                                         \
                NAME(v, j + 1);                                                          \
                v += i;                                                                  \
                n -= i;                                                                  \
            } else {                                                                     \
                NAME(v + i, n - i);                                                      \
                n = j + 1;                                                               \
            }                                                                            \
        }                                                                                \
        for (int64_t i = 1; i < n; i++) {                                                \
            T x = v[i];                                                                  \
            int64_t j = i - 1;                                                           \
            while (j >= 0 && v[j] > x) {                                                 \
                v[j + 1] = v[j];                                                         \
                j--;                                                                     \
            }                                                                            \
            v[j + 1] = x;                                                                \
        }                                                                                \
    }

DEFINE_SORT(qsort_u64, uint64_t)
DEFINE_SORT(sort_i64, int64_t)

#include "../_radix_sort.h"


/* sort v[0:n] and drop repeats (np.unique); returns the number left. spare (n values) and counts
 * (2n + 2): sort_spread's scratch, or NULL for the radix sort */
static int64_t unique_u64(uint64_t *v, int64_t n, uint64_t *spare, int32_t *counts) {
    if (n == 0) return 0;
    if (spare && counts)
        sort_spread(v, n, spare, counts);
    else
        sort_u64(v, n);
    int64_t u = 1;
    for (int64_t i = 1; i < n; i++)
        if (v[i] != v[u - 1]) v[u++] = v[i];
    return u;
}

/* ---------------------------------------------------------------------------------------------
 * normalization (_fast._normalize_kernel) */

static PyObject *py_normalize(PyObject *self, PyObject *args) {
    PyObject *o[9];
    if (!PyArg_ParseTuple(args, "OOOOOOOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[7], &o[8]))
        return NULL;
    Bufs b = {.n = 0};
    Py_ssize_t ncp, noff, ntab, nms, nml, nmf, noo, nfl;
    const uint32_t *cps = take(&b, o[0], 0, 4, &ncp, "cps");
    const int64_t *offsets = cps ? take(&b, o[1], 0, 8, &noff, "offsets") : NULL;
    const uint8_t *table = offsets ? take(&b, o[2], 0, 1, &ntab, "table") : NULL;
    const int64_t *mstart = table ? take(&b, o[3], 0, 8, &nms, "mstart") : NULL;
    const int64_t *mlen = mstart ? take(&b, o[4], 0, 8, &nml, "mlen") : NULL;
    const uint32_t *mflat = mlen ? take(&b, o[5], 0, 4, &nmf, "mflat") : NULL;
    int64_t *out_off = mflat ? take(&b, o[7], 1, 8, &noo, "out_off") : NULL;
    uint8_t *flags = out_off ? take(&b, o[8], 1, 1, &nfl, "flags") : NULL;
    if (!flags || too_short(noff, 1, "offsets") || too_short(ntab, 0x10000, "table") ||
        too_short(nms, 0x10000, "mstart") || too_short(nml, 0x10000, "mlen") || too_short(noo, noff, "out_off") ||
        too_short(nfl, noff - 1, "flags")) {
        release(&b);
        return NULL;
    }
    Py_ssize_t nd = noff - 1;
    /* room for the longest output: every replacement, plus one space before each character */
    int64_t cap = 0, bad = 0;
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t i = 0; i < ncp; i++) {
        uint32_t c = cps[i];
        cap += c < 0x10000 ? mlen[c] + 1 : 1;
    }
    for (Py_ssize_t d = 0; d < nd && !bad; d++)
        if (offsets[d] < 0 || offsets[d] > offsets[d + 1] || offsets[d + 1] > ncp) bad = 1;
    for (Py_ssize_t c = 0; c < 0x10000 && !bad; c++)
        if (mlen[c] > 0 && (mstart[c] < 0 || mstart[c] + mlen[c] > nmf)) bad = 1;
    Py_END_ALLOW_THREADS;
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "offsets or the replacement table are out of range");
        release(&b);
        return NULL;
    }
    PyObject *res = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(4 * (cap + 1)));
    if (!res) {
        release(&b);
        return NULL;
    }
    uint32_t *out = (uint32_t *)PyByteArray_AS_STRING(res);
    int64_t o_ = 0;
    Py_BEGIN_ALLOW_THREADS;
    out_off[0] = 0;
    for (Py_ssize_t d = 0; d < nd; d++) {
        int pending = 0, started = 0;
        uint8_t fl = 0;
        int64_t i = offsets[d], end = offsets[d + 1], k = 0, kend = 0;
        while (i < end || k < kend) {
            uint32_t cp;
            int space;
            if (k < kend) {
                cp = mflat[k++];
            } else {
                cp = cps[i++];
                if (cp < 0x10000 && mlen[cp] > 0) {
                    k = mstart[cp];
                    kend = k + mlen[cp];
                    continue;
                }
            }
            if (cp < 0x80) {
                if (65 <= cp && cp <= 90) cp += 32;
                space = (table[cp] & 1) != 0;
            } else if (cp < 0x10000) {
                uint8_t f = table[cp];
                space = (f & 1) != 0;
                fl |= f & 2;
                if ((f & 8) == 0) fl |= 1;
            } else {
                space = 0;
                fl |= 4;
            }
            if (space) {
                pending = started;
                continue;
            }
            if (pending) {
                out[o_++] = 0x20;
                pending = 0;
            }
            out[o_++] = cp;
            started = 1;
        }
        out_off[d + 1] = o_;
        flags[d] = fl;
    }
    Py_END_ALLOW_THREADS;
    release(&b);
    if (PyByteArray_Resize(res, (Py_ssize_t)(4 * o_)) < 0) {
        Py_DECREF(res);
        return NULL;
    }
    return res;
}

/* ---------------------------------------------------------------------------------------------
 * character-shingle SimHash (_fast._shingle_kernel) */

static PyObject *py_shingle_into(PyObject *self, PyObject *args) {
    PyObject *co, *oo, *to, *outo, *oko;
    long long n, step, bits;
    int binary;
    if (!PyArg_ParseTuple(args, "OOOLLLpOO", &co, &oo, &to, &n, &step, &bits, &binary, &outo, &oko)) return NULL;
    if (n < 1 || step < 1 || bits < 1 || bits > 64) {
        PyErr_SetString(PyExc_ValueError, "n and step must be >= 1 and bits in 1..64");
        return NULL;
    }
    Bufs b = {.n = 0};
    Py_ssize_t ncp, noff, ntab, nout, nok;
    const uint32_t *cps = take(&b, co, 0, 4, &ncp, "cps");
    const int64_t *offsets = cps ? take(&b, oo, 0, 8, &noff, "offsets") : NULL;
    const uint8_t *table = offsets ? take(&b, to, 0, 1, &ntab, "table") : NULL;
    uint64_t *out = table ? take(&b, outo, 1, 8, &nout, "out") : NULL;
    uint8_t *ok = out ? take(&b, oko, 1, 1, &nok, "ok") : NULL;
    if (!ok || too_short(noff, 1, "offsets") || too_short(ntab, 0x10000, "table") ||
        too_short(nout, noff - 1, "out") || too_short(nok, noff - 1, "ok")) {
        release(&b);
        return NULL;
    }
    Py_ssize_t nd = noff - 1;
    int64_t maxlen = 0;
    for (Py_ssize_t d = 0; d < nd; d++) {
        if (offsets[d] < 0 || offsets[d] > offsets[d + 1] || offsets[d + 1] > ncp) {
            release(&b);
            PyErr_SetString(PyExc_ValueError, "offsets out of range");
            return NULL;
        }
        if (offsets[d + 1] - offsets[d] > maxlen) maxlen = offsets[d + 1] - offsets[d];
    }
    uint8_t *buf = malloc((size_t)(4 * maxlen + 8));
    int64_t *starts = malloc(sizeof(int64_t) * (size_t)(maxlen + 1));
    uint64_t *hs = malloc(sizeof(uint64_t) * (size_t)(maxlen + 2));
    if (!buf || !starts || !hs) {
        free(buf);
        free(starts);
        free(hs);
        release(&b);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t d = 0; d < nd; d++) {
        out[d] = 0;
        ok[d] = 1;
        int64_t nb = 0, nc = 0;
        for (int64_t i = offsets[d]; i < offsets[d + 1]; i++) {
            uint32_t cp = cps[i];
            if (cp >= 0x10000) {
                ok[d] = 0;
                break;
            }
            if ((table[cp] & 4) == 0) continue;
            starts[nc++] = nb;
            if (cp < 0x80) {
                buf[nb++] = (uint8_t)cp;
            } else if (cp < 0x800) {
                buf[nb] = (uint8_t)(0xC0 | (cp >> 6));
                buf[nb + 1] = (uint8_t)(0x80 | (cp & 0x3F));
                nb += 2;
            } else {
                buf[nb] = (uint8_t)(0xE0 | (cp >> 12));
                buf[nb + 1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
                buf[nb + 2] = (uint8_t)(0x80 | (cp & 0x3F));
                nb += 3;
            }
        }
        if (!ok[d] || nc == 0) continue;
        starts[nc] = nb;
        int64_t nh = 0;
        int good;
        if (nc <= n) {
            uint64_t h = xxh3_64(buf, nb, &good);
            if (!good) {
                ok[d] = 0;
                continue;
            }
            hs[0] = h;
            nh = 1;
        } else {
            for (int64_t i = 0; i + n <= nc; i += step) {
                uint64_t h = xxh3_64(buf + starts[i], starts[i + n] - starts[i], &good);
                if (!good) {
                    ok[d] = 0;
                    break;
                }
                hs[nh++] = h;
            }
            if (ok[d] && step == n && nc % n) {
                int64_t a = nc - nc % n;
                hs[nh++] = xxh3_64(buf + starts[a], nb - starts[a], &good);
            }
        }
        if (!ok[d]) continue;
        if (binary) nh = unique_u64(hs, nh, NULL, NULL);
        out[d] = majority(hs, nh, (int)bits);
    }
    Py_END_ALLOW_THREADS;
    free(buf);
    free(starts);
    free(hs);
    release(&b);
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------------------------------------------
 * weighted SimHash (_kernels.py) */

static PyObject *py_accumulate_into(PyObject *self, PyObject *args) {
    PyObject *ho, *wo, *so;
    long long bits;
    if (!PyArg_ParseTuple(args, "OOLO", &ho, &wo, &bits, &so)) return NULL;
    if (bits < 1 || bits > 64) {
        PyErr_SetString(PyExc_ValueError, "bits must be in 1..64");
        return NULL;
    }
    Bufs b = {.n = 0};
    Py_ssize_t nh, nw, ns;
    const uint64_t *hs = take(&b, ho, 0, 8, &nh, "hashes");
    const int64_t *ws = hs ? take(&b, wo, 0, 8, &nw, "weights") : NULL;
    int64_t *sums = ws ? take(&b, so, 1, 8, &ns, "sums") : NULL;
    if (!sums || too_short(nw, nh, "weights") || too_short(ns, bits, "sums")) {
        release(&b);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS;
    uint64_t set[64] = {0}, total = 0;
    vote_list(hs, ws, nh, set, &total);
    add_up(set, total, sums, (int)bits);
    Py_END_ALLOW_THREADS;
    release(&b);
    Py_RETURN_NONE;
}

static PyObject *py_sums_to_fp(PyObject *self, PyObject *args) {
    PyObject *so;
    if (!PyArg_ParseTuple(args, "O", &so)) return NULL;
    Bufs b = {.n = 0};
    Py_ssize_t ns;
    const int64_t *sums = take(&b, so, 0, 8, &ns, "sums");
    if (!sums) {
        release(&b);
        return NULL;
    }
    uint64_t fp = votes_to_fp(sums, ns);
    release(&b);
    return PyLong_FromUnsignedLongLong(fp);
}

static PyObject *py_majority_bits(PyObject *self, PyObject *args) {
    PyObject *ho;
    long long bits = 64;
    if (!PyArg_ParseTuple(args, "O|L", &ho, &bits)) return NULL;
    Bufs b = {.n = 0};
    Py_ssize_t nh;
    const uint64_t *hs = take(&b, ho, 0, 8, &nh, "hashes");
    if (!hs) {
        release(&b);
        return NULL;
    }
    uint64_t fp;
    Py_BEGIN_ALLOW_THREADS;
    fp = majority(hs, nh, (int)(bits < 0 ? 0 : bits > 64 ? 64 : bits));
    Py_END_ALLOW_THREADS;
    release(&b);
    return PyLong_FromUnsignedLongLong(fp);
}

/* a distinct feature of one document: hash, weight, and its place in hash-then-id order (ties) */
typedef struct {
    uint64_t h;
    int64_t w;
    int64_t at;
} Feat;

/* heaviest first, then smaller hash, then the order the features were found in: what numba's two
 * stable argsorts (by hash, then by -weight) give */
static int cmp_feat(const void *a, const void *b) {
    const Feat *x = a, *y = b;
    if (x->w != y->w) return x->w > y->w ? -1 : 1;
    if (x->h != y->h) return x->h < y->h ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

static PyObject *py_batch_fingerprints_into(PyObject *self, PyObject *args) {
    PyObject *io, *oo, *vho, *vwo, *to, *outo;
    long long bits, levels;
    int binary;
    if (!PyArg_ParseTuple(args, "OOOOLpOLO", &io, &oo, &vho, &vwo, &bits, &binary, &to, &levels, &outo)) return NULL;
    if (bits < 1 || bits > 64) {
        PyErr_SetString(PyExc_ValueError, "bits must be in 1..64");
        return NULL;
    }
    Bufs b = {.n = 0};
    Py_ssize_t nid, noff, nvh, nvw, ntop, nout;
    const int64_t *ids = take(&b, io, 0, 8, &nid, "ids");
    const int64_t *offsets = ids ? take(&b, oo, 0, 8, &noff, "offsets") : NULL;
    const uint64_t *vh = offsets ? take(&b, vho, 0, 8, &nvh, "vh") : NULL;
    const int64_t *vw = vh ? take(&b, vwo, 0, 8, &nvw, "vw") : NULL;
    const int64_t *top_n = vw ? take(&b, to, 0, 8, &ntop, "top_n") : NULL;
    uint64_t *out = top_n ? take(&b, outo, 1, 8, &nout, "out") : NULL;
    if (!out || too_short(noff, 1, "offsets") || too_short(ntop, noff - 1, "top_n") ||
        too_short(nout, noff - 1, "out")) {
        release(&b);
        return NULL;
    }
    Py_ssize_t nd = noff - 1;
    int64_t maxseg = 0;
    for (Py_ssize_t d = 0; d < nd; d++) {
        if (offsets[d] < 0 || offsets[d] > offsets[d + 1] || offsets[d + 1] > nid) {
            release(&b);
            PyErr_SetString(PyExc_ValueError, "offsets out of range");
            return NULL;
        }
        if (offsets[d + 1] - offsets[d] > maxseg) maxseg = offsets[d + 1] - offsets[d];
    }
    Py_ssize_t nv = nvh < nvw ? nvh : nvw;
    for (Py_ssize_t i = 0; i < nid; i++)
        if (ids[i] < 0 || ids[i] >= nv) {
            release(&b);
            PyErr_SetString(PyExc_ValueError, "a feature id is out of range");
            return NULL;
        }
    int64_t *kept = malloc(sizeof(int64_t) * (size_t)(maxseg + 1));
    Feat *feats = malloc(sizeof(Feat) * (size_t)(maxseg + 1));
    uint64_t *fh = malloc(sizeof(uint64_t) * (size_t)(maxseg + 1));
    int64_t *fw = malloc(sizeof(int64_t) * (size_t)(maxseg + 1));
    if (!kept || !feats || !fh || !fw) {
        free(kept);
        free(feats);
        free(fh);
        free(fw);
        release(&b);
        return PyErr_NoMemory();
    }
    uint64_t mask = bits == 64 ? ~0ULL : (1ULL << bits) - 1;
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t d = 0; d < nd; d++) {
        int64_t sums[64];
        uint64_t set[64] = {0}, total = 0;
        const int64_t *seg = ids + offsets[d];
        int64_t len = offsets[d + 1] - offsets[d];
        if (top_n[d] == 0 && levels == 0 && !binary) {
            vote_occurrences(seg, len, vh, vw, set, &total);
        } else {
            /* distinct features: tf (or 1) x unit weight, the top_n heaviest, quantized to levels */
            int64_t k = 0;
            for (int64_t i = 0; i < len; i++)
                if (vw[seg[i]] > 0) kept[k++] = seg[i];
            sort_i64(kept, k);
            int64_t u = 0;
            for (int64_t i = 0; i < k;) {
                int64_t j = i;
                while (j < k && kept[j] == kept[i]) j++;
                int64_t tf = binary ? 1 : j - i;
                feats[u].h = vh[kept[i]];
                feats[u].w = (int64_t)((uint64_t)tf * (uint64_t)vw[kept[i]]);
                feats[u].at = u;
                u++;
                i = j;
            }
            if (top_n[d] > 0 && u > top_n[d]) {
                qsort(feats, (size_t)u, sizeof(Feat), cmp_feat);
                u = top_n[d];
            }
            if (levels > 0 && u > 0) {
                int64_t top = feats[0].w;
                for (int64_t i = 1; i < u; i++)
                    if (feats[i].w > top) top = feats[i].w;
                for (int64_t i = 0; i < u; i++) {
                    int64_t num = levels * feats[i].w + top - 1;
                    /* floor division, as numba's // */
                    int64_t q = num / top;
                    if ((num % top != 0) && ((num < 0) != (top < 0))) q -= 1;
                    feats[i].w = q > 1 ? q : 1;
                }
            }
            for (int64_t i = 0; i < u; i++) {
                fh[i] = feats[i].h;
                fw[i] = feats[i].w;
            }
            vote_list(fh, fw, u, set, &total);
        }
        add_up(set, total, sums, (int)bits);
        out[d] = votes_to_fp(sums, bits) & mask;
    }
    Py_END_ALLOW_THREADS;
    free(kept);
    free(feats);
    free(fh);
    free(fw);
    release(&b);
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------------------------------------------
 * match signatures (match/signature.py's _one) */

#define SP 0x9E3779B97F4A7C15ULL
#define FNV 0x100000001B3ULL
#define FNV0 0xCBF29CE484222325ULL

static inline uint64_t smix(uint64_t x) {
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

static inline int is_cjk(int64_t cp) {
    return (0x4E00 <= cp && cp <= 0x9FFF) || (0x3400 <= cp && cp <= 0x4DBF) || (0x3040 <= cp && cp <= 0x30FF) ||
           (0xAC00 <= cp && cp <= 0xD7A3) || (0xF900 <= cp && cp <= 0xFAFF) || (0x20000 <= cp && cp <= 0x3134F);
}

static inline int is_cjk_numeral(int64_t cp) { /* 〇一二三四五六七八九十百千万亿两 */
    return cp == 0x3007 || cp == 0x4E00 || cp == 0x4E8C || cp == 0x4E09 || cp == 0x56DB || cp == 0x4E94 ||
           cp == 0x516D || cp == 0x4E03 || cp == 0x516B || cp == 0x4E5D || cp == 0x5341 || cp == 0x767E ||
           cp == 0x5343 || cp == 0x4E07 || cp == 0x4EBF || cp == 0x4E24;
}

static uint64_t OCCASION[8]; /* the tokens of 年 月 日 号 届 次 期 周 and 第, set at import */
/* the tokens of the weekdays and of the months (but "may", a verb as often), set at import: a
 * weekday or a month among words names an occasion; a day of the month does not, so a FAQ's new
 * version dated ten days later is still its copy */
#define N_CALENDAR 18
static uint64_t CALENDAR[N_CALENDAR];
static const char *CALENDAR_WORDS[N_CALENDAR] = {
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january", "february",
    "march", "april", "june", "july", "august", "september", "october", "november", "december"};

static inline int calendar_word(uint64_t tok) {
    for (int i = 0; i < N_CALENDAR; i++)
        if (tok == CALENDAR[i]) return 1;
    return 0;
}
static uint64_t DI, SHI, GE;

static inline int is_occasion_unit(uint64_t tok) {
    for (int i = 0; i < 8; i++)
        if (tok == OCCASION[i]) return 1;
    return 0;
}

/* an occasion unit's kind (OCCASION's order: 周 年 月 日 号 届 次 期): 号 is a day as 日 is, 届 次 期 are
 * ordinals as 第 is */
static inline uint64_t occasion_kind(uint64_t tok) {
    if (tok == OCCASION[4]) return OCCASION[3];
    if (tok == OCCASION[5] || tok == OCCASION[6] || tok == OCCASION[7]) return DI;
    return tok;
}

typedef struct {
    uint64_t *content, *simhash, *nums;
    int32_t *size, *ntok;
    uint32_t *sketch, *prof;
    int64_t k, m; /* sketch and number columns */
} SigOut;

typedef struct {
    uint64_t *toks, *wins, *facts, *spare;
    int32_t *counts;
    uint8_t *cjks, *quoted, *marked;
    int8_t *numeric;
} SigScratch;

/* British and American spellings read as one word (colour/color, organise/organize, analyse/analyze,
 * centre/center, catalogue/catalog, travelled/traveled, defence/defense, programme/program): a word
 * of lowercase ASCII letters ending in a rule's core and one of its endings, after a stem of at
 * least the rule's length, is read with the core replaced. The stems keep short words out (four,
 * hours, rise, crises, selling): the rules were checked not to map one common word onto another.
 * _signature_numba.SPELLING lists the same rules, in the same order, for the numba kernel. */
typedef struct {
    const char *core, *repl;
    int stem;
    const char *ends[17];
} SpellRule;
static const SpellRule SPELL[] = {
    {"our", "or", 3, {"", "s", "y", "ed", "ing", "ful", "ite", "ites", "able", "ably", "er", "ers", "hood", "hoods", "al", "less", NULL}},
    {"is", "iz", 4, {"e", "es", "ed", "ing", "ation", "ations", "er", "ers", NULL}},
    {"ys", "yz", 3, {"e", "es", "ed", "ing", "er", "ers", NULL}},
    {"tred", "tered", 3, {"", NULL}},
    {"tre", "ter", 3, {"", "s", NULL}},
    {"bre", "ber", 3, {"", "s", NULL}},
    {"ogue", "og", 3, {"", "s", NULL}},
    {"ell", "el", 3, {"ed", "ing", "er", "ers", NULL}},
    {"programme", "program", 0, {"", "s", NULL}},
    {"jewellery", "jewelry", 0, {"", NULL}},
    {"defence", "defense", 0, {"", "s", NULL}},
    {"offence", "offense", 0, {"", "s", NULL}},
    {"pretence", "pretense", 0, {"", "s", NULL}},
    {"licence", "license", 0, {"", "s", NULL}},
};
#define WORD_MAX 32

/* the word w[0..n) rewritten in place by the first rule that applies: its new length, or -1 */
static int fold_spelling(char *w, int n) {
    for (size_t r = 0; r < sizeof(SPELL) / sizeof(SPELL[0]); r++) {
        int lc = (int)strlen(SPELL[r].core);
        for (int e = 0; SPELL[r].ends[e]; e++) {
            const char *end = SPELL[r].ends[e];
            int le = (int)strlen(end), stem = n - lc - le;
            if (stem < SPELL[r].stem || stem < 0) continue;
            if (memcmp(w + stem, SPELL[r].core, (size_t)lc) || memcmp(w + stem + lc, end, (size_t)le)) continue;
            int lr = (int)strlen(SPELL[r].repl);
            memmove(w + stem + lr, w + stem + lc, (size_t)le);
            memcpy(w + stem, SPELL[r].repl, (size_t)lr);
            return stem + lr + le;
        }
    }
    return -1;
}

/* text inside the outermost pair of quotation marks (“” 「」 『』 "", nested pairs inside) that holds at
 * least QUOTE_MARKED code points is quoted text, as a line quoted with ">" is: a commentary quoting a
 * notice. A paragraph that opens with a mark inside an open quotation continues it (Chinese
 * typesetting opens every paragraph of a long quotation and closes only the last). */
#define QUOTE_MARKED 30
/* straight quotes mark speech and titles as well: only a passage of this many code points is quoted */
#define QUOTE_STRAIGHT 200
static inline int quote_open(uint32_t cp) { return cp == 0x201C || cp == 0x300C || cp == 0x300E; }
static inline int quote_close(uint32_t cp) { return cp == 0x201D || cp == 0x300D || cp == 0x300F; }

/* straight double quotes ("), outside curly ones, pair up in turn: one opens, the next closes; a
 * paragraph that opens with one inside an open quotation continues it (English typesetting opens
 * every paragraph of a long quotation and closes only the last), and a quotation left open at a
 * paragraph that does not continue it ends with the paragraph before. */
static inline void quote_straight(int64_t start, int64_t end, int64_t lo, uint8_t *marked) {
    if (end - start - 1 >= QUOTE_STRAIGHT) memset(marked + (start + 1 - lo), 1, (size_t)(end - start - 1));
}

static void quote_marks(const uint32_t *cps, int64_t lo, int64_t hi, uint8_t *marked) {
    memset(marked, 0, (size_t)(hi - lo + 1));
    int64_t depth = 0, start = 0, straight = -1, para_end = -1;
    int line_start = 1;
    for (int64_t i = lo; i < hi; i++) {
        uint32_t cp = cps[i];
        int space = cp == 10 || cp == 13 || cp == 32 || cp == 9 || cp == 0x3000;
        if (straight >= 0 && para_end >= 0 && !space) {
            if (cp != 0x22) { /* the next paragraph does not continue the quotation */
                quote_straight(straight, para_end, lo, marked);
                straight = -1;
            }
            para_end = -1;
        }
        if (cp == 0x22 && depth == 0) {
            if (straight < 0)
                straight = i;
            else if (!line_start) {
                quote_straight(straight, i, lo, marked);
                straight = -1;
            }
        } else if (cp == 10 && straight >= 0 && para_end < 0) {
            para_end = i;
        }
        if (quote_open(cp)) {
            if (depth == 0) {
                start = i;
                depth = 1;
            } else if (!line_start) {
                depth++;
            }
        } else if (quote_close(cp) && depth > 0) {
            if (--depth == 0 && i - start - 1 >= QUOTE_MARKED) memset(marked + (start + 1 - lo), 1, (size_t)(i - start - 1));
        }
        line_start = cp == 10 || (line_start && (cp == 32 || cp == 9 || cp == 0x3000));
    }
    if (straight >= 0) quote_straight(straight, para_end >= 0 ? para_end : hi, lo, marked);
}


/* a line that mail and news readers quote: its first character (after spaces) is ">", "|" or "#";
 * ":" before a space, a tab, ">" or the line's end; or a writer's initials before ">" ("MJM>") */
static int quote_line(const uint32_t *cps, int64_t i, int64_t hi) {
    uint32_t c = cps[i];
    if (c == 62 || c == 124 || c == 35) return 1;
    if (c == 58) {
        uint32_t n = i + 1 < hi ? cps[i + 1] : 10;
        return n == 32 || n == 9 || n == 62 || n == 10 || n == 13;
    }
    int64_t k = i;
    while (k < hi && k < i + 5 && ((cps[k] | 32) >= 97 && (cps[k] | 32) <= 122)) k++;
    return k > i && k < i + 5 && k < hi && cps[k] == 62;
}

static void sign_one(const uint32_t *cps, int64_t lo, int64_t hi, const uint32_t *table, int64_t n, int64_t k,
                     int64_t m, int64_t d, const SigOut *o, SigScratch *s) {
    uint64_t *toks = s->toks;
    uint8_t *cjks = s->cjks, *quoted = s->quoted, *marked = s->marked;
    int8_t *numeric = s->numeric;
    int64_t base = lo + d;
    quote_marks(cps, lo, hi, marked);
    /* tokens: one per CJK character, one per run of other letters and digits */
    int64_t nt = 0;
    uint64_t h = FNV0;
    int in_run = 0, digits = 1, line_start = 1, in_quote = 0, run_quote = 0, wl = 0, nd = 0;
    int64_t yv = 0;
    char word[WORD_MAX + 8];
    for (int64_t i = lo; i <= hi; i++) {
        int64_t cp = i < hi ? (int64_t)cps[i] : 32;
        if (cp == 10) {
            line_start = 1;
            in_quote = 0;
        } else if (line_start && cp != 32 && cp != 9) {
            line_start = 0;
            in_quote = quote_line(cps, i, hi);
        }
        if (cp < 0x10000) cp = (int64_t)table[cp];
        int cjk = is_cjk(cp);
        if (cp != 0 && !cjk && (cp < 0x10000 || cp > 0x3134F)) {
            if (!in_run) {
                h = FNV0;
                in_run = 1;
                digits = 1;
                run_quote = in_quote || marked[i - lo];
                wl = 0;
                nd = 0;
                yv = 0;
            }
            h = (h ^ (uint64_t)cp) * FNV;
            if (cp < 48 || cp > 57)
                digits = 0;
            else if (nd++ < 4)
                yv = yv * 10 + (cp - 48);
            if (wl >= 0) {
                if (cp >= 97 && cp <= 122 && wl < WORD_MAX)
                    word[wl++] = (char)cp;
                else
                    wl = -1;
            }
            continue;
        }
        if (in_run) {
            int f = wl >= 5 ? fold_spelling(word, wl) : -1;
            if (f >= 0) {
                h = FNV0;
                for (int x = 0; x < f; x++) h = (h ^ (uint64_t)(unsigned char)word[x]) * FNV;
            }
            toks[nt] = smix(h);
            /* 3: a year among words (1900-2099), an occasion as 2004年 is */
            numeric[nt] = digits ? ((nd == 4 && yv >= 1900 && yv <= 2099) ? 3 : 1) : 0;
            cjks[nt] = 0;
            quoted[nt] = (uint8_t)run_quote;
            nt++;
            in_run = 0;
        }
        if (cjk) {
            toks[nt] = smix((uint64_t)cp + SP);
            numeric[nt] = is_cjk_numeral(cp) ? 2 : 0;
            cjks[nt] = 1;
            quoted[nt] = (uint8_t)(in_quote || marked[i - lo]);
            nt++;
        }
    }
    o->ntok[d] = (int32_t)nt;
    /* the text profile (see signature.py) */
    for (int64_t t = 0; t < nt; t++) {
        uint32_t v = (uint32_t)(toks[t] >> 36) | (cjks[t] ? 0x80000000U : 0U);
        if (quoted[t]) v |= 0x20000000U;
        if (numeric[t] == 1 || numeric[t] == 3) {
            v |= 0x10000000U;
            /* an occasion number is hashed with its unit's kind: an ordinal (届 次 期, or after 第:
             * 第十四届, 十四届 and a typo's 第十四界 are one number), a year, a month, a day (日 号),
             * a week; 第一时间 ("at once") and 第一个 ("the first one") name no occasion; a year
             * among words (2004, neither neighbour a CJK character) is a year as 2004年 is */
            uint64_t unit = 0;
            if (t + 1 < nt && is_occasion_unit(toks[t + 1]))
                unit = occasion_kind(toks[t + 1]);
            else if (t > 0 && toks[t - 1] == DI && !(t + 1 < nt && (toks[t + 1] == SHI || toks[t + 1] == GE)))
                unit = DI;
            else if (numeric[t] == 3 && !(t + 1 < nt && cjks[t + 1]) && !(t > 0 && cjks[t - 1]))
                unit = OCCASION[1];
            if (unit != 0) {
                v = (v & 0xB0000000U) | (uint32_t)(smix(toks[t] * SP + unit) >> 36);
                v |= 0x40000000U;
            }
        }
        else if (!cjks[t] && calendar_word(toks[t]))
            v |= 0x40000000U;
        o->prof[base + t] = v;
    }
    if (nt == 0) return;
    uint64_t c = 0;
    for (int64_t t = 0; t < nt; t++) c = c * SP + toks[t];
    o->content[d] = smix(c);
    /* windows of n tokens (the whole text when shorter) */
    int64_t last = nt >= n ? nt - n : 0;
    uint64_t *wins = s->wins;
    for (int64_t st = 0; st <= last; st++) {
        uint64_t w = 0;
        int64_t e = st + n < nt ? st + n : nt;
        for (int64_t t = st; t < e; t++) w = w * SP + toks[t];
        wins[st] = smix(w ^ (uint64_t)n);
    }
    /* window hashes are spread over 64 bits: sorted by their high bits in O(n) */
    int64_t u = unique_u64(wins, last + 1, s->spare, s->counts);
    o->size[d] = (int32_t)u;
    o->simhash[d] = u ? majority(wins, u, 64) : 0;
    for (int64_t j = 0; j < k && j < u; j++) o->sketch[d * k + j] = (uint32_t)(wins[j] >> 32);
    /* number facts: a run of digits, or of Chinese numerals, keyed by the tokens around it */
    if (m > 0) {
        uint64_t *facts = s->facts;
        int64_t nf = 0;
        for (int64_t t = 0; t < nt;) {
            if (numeric[t] == 0) {
                t++;
                continue;
            }
            int64_t e = t + 1;
            uint64_t v = toks[t];
            if (numeric[t] == 2) {
                while (e < nt && numeric[e] == 2) {
                    v = v * SP + toks[e];
                    e++;
                }
            }
            uint64_t before = t > 0 ? toks[t - 1] : 1;
            uint64_t after = e < nt ? toks[e] : 2;
            uint64_t after2 = e + 1 < nt ? toks[e + 1] : 3;
            uint64_t value = smix(v) >> 32;
            uint64_t key = smix(before * SP + after) >> 32;
            facts[nf] = (key << 32) | value;
            key = smix((after * SP + after2) ^ SP) >> 32;
            facts[nf + 1] = (key << 32) | value;
            nf += 2;
            t = e;
        }
        if (nf) {
            int64_t f = unique_u64(facts, nf, s->spare, s->counts);
            for (int64_t j = 0; j < m && j < f; j++) o->nums[d * o->m + j] = facts[j];
        }
    }
}

static PyObject *py_signature_range(PyObject *self, PyObject *args) {
    PyObject *co, *oo, *to, *a[7];
    long long n, k, m, d0, d1;
    if (!PyArg_ParseTuple(args, "OOOLLLLLOOOOOOO", &co, &oo, &to, &n, &k, &m, &d0, &d1, &a[0], &a[1], &a[2], &a[3],
                          &a[4], &a[5], &a[6]))
        return NULL;
    if (n < 1 || k < 0 || m < 0) {
        PyErr_SetString(PyExc_ValueError, "n must be >= 1, k and m >= 0");
        return NULL;
    }
    Bufs b = {.n = 0};
    Py_ssize_t ncp, noff, ntab, nc, ns, nsz, nnt, nsk, nnu, npr;
    SigOut o;
    const uint32_t *cps = take(&b, co, 0, 4, &ncp, "cps");
    const int64_t *offsets = cps ? take(&b, oo, 0, 8, &noff, "offsets") : NULL;
    const uint32_t *table = offsets ? take(&b, to, 0, 4, &ntab, "table") : NULL;
    o.content = table ? take(&b, a[0], 1, 8, &nc, "content") : NULL;
    o.simhash = o.content ? take(&b, a[1], 1, 8, &ns, "simhash") : NULL;
    o.size = o.simhash ? take(&b, a[2], 1, 4, &nsz, "size") : NULL;
    o.ntok = o.size ? take(&b, a[3], 1, 4, &nnt, "tokens") : NULL;
    o.sketch = o.ntok ? take(&b, a[4], 1, 4, &nsk, "sketch") : NULL;
    o.nums = o.sketch ? take(&b, a[5], 1, 8, &nnu, "numbers") : NULL;
    o.prof = o.nums ? take(&b, a[6], 1, 4, &npr, "profiles") : NULL;
    if (!o.prof || too_short(noff, 1, "offsets") || too_short(ntab, 0x10000, "table")) {
        release(&b);
        return NULL;
    }
    Py_ssize_t nd = noff - 1;
    int64_t mcols = m > 1 ? m : 1;
    o.k = k;
    o.m = mcols;
    if (d0 < 0 || d1 > nd || d0 > d1 || too_short(nc, nd, "content") || too_short(ns, nd, "simhash") ||
        too_short(nsz, nd, "size") || too_short(nnt, nd, "tokens") || too_short(nsk, nd * k, "sketch") ||
        too_short(nnu, nd * mcols, "numbers") || too_short(npr, ncp + nd, "profiles")) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "document range out of bounds");
        release(&b);
        return NULL;
    }
    int64_t maxlen = 0;
    for (int64_t d = d0; d < d1; d++) {
        if (offsets[d] < 0 || offsets[d] > offsets[d + 1] || offsets[d + 1] > ncp) {
            release(&b);
            PyErr_SetString(PyExc_ValueError, "offsets out of range");
            return NULL;
        }
        if (offsets[d + 1] - offsets[d] > maxlen) maxlen = offsets[d + 1] - offsets[d];
    }
    SigScratch s;
    size_t cap = (size_t)maxlen + 2;
    s.toks = malloc(sizeof(uint64_t) * cap);
    s.wins = malloc(sizeof(uint64_t) * cap);
    s.facts = malloc(sizeof(uint64_t) * 2 * cap);
    s.spare = malloc(sizeof(uint64_t) * 2 * cap);
    s.counts = malloc(sizeof(int32_t) * (4 * cap + 2));
    s.cjks = malloc(cap);
    s.quoted = malloc(cap);
    s.marked = malloc(cap);
    s.numeric = malloc(cap);
    if (!s.toks || !s.wins || !s.facts || !s.spare || !s.counts || !s.cjks || !s.quoted || !s.marked || !s.numeric) {
        free(s.toks), free(s.wins), free(s.facts), free(s.spare), free(s.counts);
        free(s.cjks), free(s.quoted), free(s.marked), free(s.numeric);
        release(&b);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS;
    for (int64_t d = d0; d < d1; d++) sign_one(cps, offsets[d], offsets[d + 1], table, n, k, m, d, &o, &s);
    Py_END_ALLOW_THREADS;
    free(s.toks), free(s.wins), free(s.facts), free(s.spare), free(s.counts);
    free(s.cjks), free(s.quoted), free(s.marked), free(s.numeric);
    release(&b);
    Py_RETURN_NONE;
}

/* out[ptr[d]:ptr[d + 1]] = src[starts[d]:starts[d] + ptr[d + 1] - ptr[d]] */
static PyObject *py_copy_profiles(PyObject *self, PyObject *args) {
    PyObject *so, *sto, *po, *oo;
    if (!PyArg_ParseTuple(args, "OOOO", &so, &sto, &po, &oo)) return NULL;
    Bufs b = {.n = 0};
    Py_ssize_t nsrc, nst, np_, nout;
    const uint32_t *src = take(&b, so, 0, 4, &nsrc, "src");
    const int64_t *starts = src ? take(&b, sto, 0, 8, &nst, "starts") : NULL;
    const int64_t *ptr = starts ? take(&b, po, 0, 8, &np_, "ptr") : NULL;
    uint32_t *out = ptr ? take(&b, oo, 1, 4, &nout, "out") : NULL;
    if (!out || too_short(np_, 1, "ptr") || too_short(nst, np_ - 1, "starts")) {
        release(&b);
        return NULL;
    }
    Py_ssize_t nd = np_ - 1;
    for (Py_ssize_t d = 0; d < nd; d++) {
        int64_t len = ptr[d + 1] - ptr[d];
        if (len < 0 || ptr[d] < 0 || ptr[d + 1] > nout || starts[d] < 0 || starts[d] + len > nsrc) {
            release(&b);
            PyErr_SetString(PyExc_ValueError, "profile bounds out of range");
            return NULL;
        }
    }
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t d = 0; d < nd; d++)
        memcpy(out + ptr[d], src + starts[d], sizeof(uint32_t) * (size_t)(ptr[d + 1] - ptr[d]));
    Py_END_ALLOW_THREADS;
    release(&b);
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------------------------------------------
 * sketch candidate pairs (match/candidates.py's _posting_pairs) */

static inline int64_t run_of(const uint64_t *values, const uint8_t *posted, int64_t n, int64_t i, int64_t *np_) {
    int64_t j = i + 1;
    while (j < n && values[j] == values[i]) j++;
    int64_t c = 0;
    for (int64_t a = i; a < j; a++) c += posted[a] != 0;
    *np_ = c;
    return j;
}

static PyObject *py_posting_pairs_count(PyObject *self, PyObject *args) {
    PyObject *vo, *po;
    long long max_posting;
    if (!PyArg_ParseTuple(args, "OOL", &vo, &po, &max_posting)) return NULL;
    Bufs b = {.n = 0};
    Py_ssize_t nv, np_;
    const uint64_t *values = take(&b, vo, 0, 8, &nv, "values");
    const uint8_t *posted = values ? take(&b, po, 0, 1, &np_, "posted") : NULL;
    if (!posted || too_short(np_, nv, "posted")) {
        release(&b);
        return NULL;
    }
    int64_t total = 0;
    Py_BEGIN_ALLOW_THREADS;
    for (int64_t i = 0; i < nv;) {
        int64_t npost;
        int64_t j = run_of(values, posted, nv, i, &npost);
        if (npost <= max_posting) {
            int64_t seen = 0;
            for (int64_t a = i; a < j; a++) {
                total += seen;
                if (posted[a]) seen++;
            }
        }
        i = j;
    }
    Py_END_ALLOW_THREADS;
    release(&b);
    return PyLong_FromLongLong(total);
}

static PyObject *py_posting_pairs_into(PyObject *self, PyObject *args) {
    PyObject *vo, *dob, *po, *oo;
    long long max_posting;
    if (!PyArg_ParseTuple(args, "OOOLO", &vo, &dob, &po, &max_posting, &oo)) return NULL;
    Bufs b = {.n = 0};
    Py_ssize_t nv, ndoc, np_, nout;
    const uint64_t *values = take(&b, vo, 0, 8, &nv, "values");
    const int64_t *docs = values ? take(&b, dob, 0, 8, &ndoc, "docs") : NULL;
    const uint8_t *posted = docs ? take(&b, po, 0, 1, &np_, "posted") : NULL;
    uint64_t *out = posted ? take(&b, oo, 1, 8, &nout, "out") : NULL;
    if (!out || too_short(ndoc, nv, "docs") || too_short(np_, nv, "posted")) {
        release(&b);
        return NULL;
    }
    int64_t kk = 0, overflow = 0;
    Py_BEGIN_ALLOW_THREADS;
    for (int64_t i = 0; i < nv && !overflow;) {
        int64_t npost;
        int64_t j = run_of(values, posted, nv, i, &npost);
        if (npost <= max_posting) {
            for (int64_t bb = i + 1; bb < j && !overflow; bb++)
                for (int64_t a = i; a < bb; a++)
                    if (posted[a] && docs[a] != docs[bb]) {
                        if (kk >= nout) {
                            overflow = 1;
                            break;
                        }
                        out[kk++] = ((uint64_t)docs[a] << 32) | (uint64_t)docs[bb];
                    }
        }
        i = j;
    }
    Py_END_ALLOW_THREADS;
    release(&b);
    if (overflow) {
        PyErr_SetString(PyExc_ValueError, "out is shorter than posting_pairs_count");
        return NULL;
    }
    return PyLong_FromLongLong(kk);
}

static PyObject *py_xxh3_small(PyObject *self, PyObject *args) {
    Py_buffer v;
    if (!PyArg_ParseTuple(args, "y*", &v)) return NULL;
    int ok;
    uint64_t h = xxh3_64(v.buf, v.len, &ok);
    PyBuffer_Release(&v);
    if (!ok) Py_RETURN_NONE;
    return PyLong_FromUnsignedLongLong(h);
}

/* ---------------------------------------------------------------------------------------------
 * numbers_as_digits (text/normalize.py), the same rewrites in the same order, each a pass over the
 * code points of the previous one: digit-group commas dropped, ordinals, Chinese numerals, numbers
 * times 万/亿. Each regular expression reduces to a test on maximal runs of one character class
 * (the comments give the reasoning), so every pass is one scan. \d is Unicode: Py_UNICODE_ISDECIMAL,
 * as in the re module. */

typedef struct {
    Py_UCS4 *p;
    Py_ssize_t n, cap;
} Ubuf;

static int ub_reserve(Ubuf *b, Py_ssize_t extra) {
    if (b->n + extra <= b->cap) return 0;
    Py_ssize_t cap = b->cap ? b->cap : 64;
    while (cap < b->n + extra) cap *= 2;
    Py_UCS4 *p = PyMem_Realloc(b->p, (size_t)cap * sizeof(Py_UCS4));
    if (p == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

static int ub_add(Ubuf *b, const Py_UCS4 *s, Py_ssize_t n) {
    if (ub_reserve(b, n) < 0) return -1;
    memcpy(b->p + b->n, s, (size_t)n * sizeof(Py_UCS4));
    b->n += n;
    return 0;
}

static int ub_ascii(Ubuf *b, const char *s) {
    Py_ssize_t n = (Py_ssize_t)strlen(s);
    if (ub_reserve(b, n) < 0) return -1;
    for (Py_ssize_t i = 0; i < n; i++) b->p[b->n++] = (Py_UCS4)(unsigned char)s[i];
    return 0;
}

/* The characters the rewrites look at, by BMP code point (set at import): the value + 1 of a digit
 * character 〇零一二两三四五六七八九 in the low 4 bits, then 十百千, 万亿, a Unicode decimal digit (\d). */
#define NAD_VAL 0x0F
#define NAD_UNIT 0x10
#define NAD_BIG 0x20
#define NAD_DEC 0x40
static uint8_t NAD[0x10000];

static void nad_init(void) {
    static const Py_UCS4 digits[12] = {0x3007, 0x96F6, 0x4E00, 0x4E8C, 0x4E24, 0x4E09,
                                       0x56DB, 0x4E94, 0x516D, 0x4E03, 0x516B, 0x4E5D};
    static const uint8_t values[12] = {0, 0, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9};
    for (Py_UCS4 c = 0; c < 0x10000; c++) NAD[c] = Py_UNICODE_ISDECIMAL(c) ? NAD_DEC : 0;
    for (int i = 0; i < 12; i++) NAD[digits[i]] |= (uint8_t)(values[i] + 1);
    NAD[0x5341] |= NAD_UNIT; /* 十 */
    NAD[0x767E] |= NAD_UNIT; /* 百 */
    NAD[0x5343] |= NAD_UNIT; /* 千 */
    NAD[0x4E07] |= NAD_BIG;  /* 万 */
    NAD[0x4EBF] |= NAD_BIG;  /* 亿 */
}

static inline uint8_t nad(Py_UCS4 c) {
    return c < 0x10000 ? NAD[c] : (Py_UNICODE_ISDECIMAL(c) ? NAD_DEC : 0);
}
/* 〇零一二两三四五六七八九 -> 0..9, anything else -1 */
static inline int cn_digit(Py_UCS4 c) { return (int)(nad(c) & NAD_VAL) - 1; }
/* 十百千 -> 10, 100, 1000; 万亿 -> 10^4, 10^8 */
static inline uint64_t cn_unit(Py_UCS4 c) { return c == 0x5341 ? 10 : c == 0x767E ? 100 : c == 0x5343 ? 1000 : 0; }
static inline uint64_t cn_big(Py_UCS4 c) { return c == 0x4E07 ? 10000 : c == 0x4EBF ? 100000000 : 0; }
static inline int cn_small(Py_UCS4 c) { return (nad(c) & (NAD_VAL | NAD_UNIT)) != 0; } /* _ORDINAL's class */
static inline int cn_any(Py_UCS4 c) { return (nad(c) & (NAD_VAL | NAD_UNIT | NAD_BIG)) != 0; } /* _CN_NUMBER's */
static inline int is_dec(Py_UCS4 c) { return (nad(c) & NAD_DEC) != 0; }
#define CH_DI 0x7B2C   /* 第 */
#define CH_NIAN 0x5E74 /* 年 */
#define CH_QIAN 0x5343 /* 千 */
#define CH_WAN 0x4E07  /* 万 */

/* _cn_value(s) in decimal appended to b: 0 done, -1 error, 1 beyond what C does exactly (the caller
 * falls back to Python). All digit characters read digit by digit (leading zeros dropped); otherwise
 * each 十百千 adds the digit before it (1 if none or 0) times the unit to the section, each 万亿 moves
 * (section + digit) times itself to the total. */
static int cn_value_append(Ubuf *b, const Py_UCS4 *s, Py_ssize_t n) {
    int digits_only = 1;
    for (Py_ssize_t i = 0; i < n && digits_only; i++) digits_only = cn_digit(s[i]) >= 0;
    if (digits_only) {
        Py_ssize_t i = 0;
        while (i < n - 1 && cn_digit(s[i]) == 0) i++;
        if (ub_reserve(b, n - i) < 0) return -1;
        for (; i < n; i++) b->p[b->n++] = (Py_UCS4)('0' + cn_digit(s[i]));
        return 0;
    }
    /* the bounds keep every intermediate value far below 2^64 */
    const uint64_t cap = 1000000000000000000ULL;
    uint64_t total = 0, section = 0, digit = 0, u;
    for (Py_ssize_t i = 0; i < n; i++) {
        int d = cn_digit(s[i]);
        if (d >= 0) {
            digit = (uint64_t)d;
        } else if ((u = cn_unit(s[i])) != 0) {
            section += (digit ? digit : 1) * u;
            digit = 0;
        } else if ((u = cn_big(s[i])) != 0) {
            if (section + digit > 10000000000ULL) return 1;
            total += (section + digit) * u;
            section = digit = 0;
        }
        if (total > cap || section > cap) return 1;
    }
    char num[32];
    snprintf(num, sizeof num, "%llu", (unsigned long long)(total + section + digit));
    return ub_ascii(b, num);
}

/* Each pass copies the text into out only from its first rewrite on: s[*last:start) then the
 * replacement; the caller keeps s when nothing was rewritten, and adds the tail s[*last:n) otherwise. */
static inline int nad_keep(Ubuf *out, const Py_UCS4 *s, Py_ssize_t *last, Py_ssize_t start, Py_ssize_t end) {
    if (out->p == NULL && ub_reserve(out, end + 64) < 0) return -1;
    if (ub_add(out, s + *last, start - *last) < 0) return -1;
    *last = end;
    return 0;
}

/* _GROUPED "(?<=\d),(?=\d{3}(?!\d))": a comma after a digit and before exactly three digits. */
static int nad_grouped(const Py_UCS4 *s, Py_ssize_t n, Ubuf *out, Py_ssize_t *last) {
    for (Py_ssize_t i = 1; i + 3 < n; i++) {
        if (s[i] == ',' && is_dec(s[i - 1]) && is_dec(s[i + 1]) && is_dec(s[i + 2]) && is_dec(s[i + 3]) &&
            (i + 4 == n || !is_dec(s[i + 4]))) {
            if (nad_keep(out, s, last, i, i + 1) < 0) return -1;
        }
    }
    return 0;
}

/* _ORDINAL "(?<=第)[C]+|[C]+(?=[次届期])" over C = 〇零一二两三四五六七八九十百千: a match starts where a
 * run of C starts (inside a run the character before is in C, not 第, and the run ends where it
 * ends) and is the whole run (次届期 are not in C), so: every run after 第 or before 次届期. */
static int nad_ordinal(const Py_UCS4 *s, Py_ssize_t n, Ubuf *out, Py_ssize_t *last) {
    Py_ssize_t i = 0;
    while (i < n) {
        if (!cn_small(s[i])) {
            i++;
            continue;
        }
        Py_ssize_t j = i;
        while (j < n && cn_small(s[j])) j++;
        if ((i > 0 && s[i - 1] == CH_DI) || (j < n && (s[j] == 0x6B21 || s[j] == 0x5C4A || s[j] == 0x671F))) {
            int r;
            if (nad_keep(out, s, last, i, j) < 0) return -1;
            if ((r = cn_value_append(out, s + i, j - i)) != 0) return r;
        }
        i = j;
    }
    return 0;
}

/* _CN_NUMBER "[C]*[十百千][C]*|[D]{4}(?=年)" over C = 〇零一二两三四五六七八九十百千万亿, D = C less 两十百千万亿:
 * the first branch matches a whole run of C that holds a 十百千 (the greedy stars run to its end);
 * in a run without one only the four characters ending the run can match the second (年 is not in C). */
static int nad_chinese(const Py_UCS4 *s, Py_ssize_t n, Ubuf *out, Py_ssize_t *last) {
    Py_ssize_t i = 0;
    while (i < n) {
        if (!cn_any(s[i])) {
            i++;
            continue;
        }
        Py_ssize_t j = i;
        int unit = 0;
        while (j < n && cn_any(s[j])) unit |= (nad(s[j++]) & NAD_UNIT) != 0;
        Py_ssize_t len = j - i, start = -1;
        if (unit) {
            /* chinese(): 千万 and a lone 十百千 are words, not numbers; a run after a digit or a point
             * is the end of an Arabic number and the start of a word (700亿千瓦时) */
            int after_number = i > 0 && (is_dec(s[i - 1]) || s[i - 1] == '.');
            if (!after_number && !((len == 2 && s[i] == CH_QIAN && s[i + 1] == CH_WAN) || len == 1)) start = i;
        } else if (len >= 4 && j < n && s[j] == CH_NIAN) {
            start = j - 4;
            for (Py_ssize_t t = j - 4; t < j && start >= 0; t++)
                if (cn_digit(s[t]) < 0 || s[t] == 0x4E24) start = -1;
        }
        if (start >= 0) {
            int r;
            if (nad_keep(out, s, last, start, j) < 0) return -1;
            if ((r = cn_value_append(out, s + start, j - start)) != 0) return r;
        }
        i = j;
    }
    return 0;
}

/* text/normalize.py _scaled: the number s[i..k) (decimal digits, perhaps a point and digits) times
 * 10^power, exactly, into num (NUL-terminated) when it is an integer below 10^18; returns 1 then,
 * else 0 */
static int scaled_digits(const Py_UCS4 *s, Py_ssize_t i, Py_ssize_t k, int power, char num[32]) {
    Py_ssize_t point = k;
    for (Py_ssize_t t = i; t < k; t++)
        if (s[t] == '.') point = t;
    /* a fraction digit past the power that is not 0 makes no integer */
    for (Py_ssize_t t = point + 1 + power; t < k; t++)
        if (Py_UNICODE_TODECIMAL(s[t]) != 0) return 0;
    Py_ssize_t n = 0;
    int lead = 1;
    for (Py_ssize_t t = i; t < point + 1 + power; t++) {
        if (t == point) continue;
        int d = t < k ? Py_UNICODE_TODECIMAL(s[t]) : 0;
        if (lead && d == 0) continue;
        lead = 0;
        if (n >= 18) return 0;
        num[n++] = (char)('0' + d);
    }
    if (n == 0) num[n++] = '0';
    num[n] = '\0';
    return 1;
}

/* _SCALED "(\d+(?:\.\d+)?)([万亿]+)": digits, optionally "." and digits, then a run of 万亿 (backtracking
 * never finds another split: a shorter digit run is followed by a digit). The value is the
 * number times 10^4 or 10^8 per unit, computed exactly on its digits (scaled_digits),
 * written as an integer when it is one below 10^18; otherwise the match stays. */
static int nad_scaled(const Py_UCS4 *s, Py_ssize_t n, Ubuf *out, Py_ssize_t *last) {
    Py_ssize_t i = 0;
    while (i < n) {
        if (!is_dec(s[i])) {
            i++;
            continue;
        }
        Py_ssize_t j = i, k = -1;
        while (j < n && is_dec(s[j])) j++;
        if (j + 1 < n && s[j] == '.' && is_dec(s[j + 1])) {
            Py_ssize_t f = j + 1;
            while (f < n && is_dec(s[f])) f++;
            if (f < n && cn_big(s[f])) k = f;
        } else if (j < n && cn_big(s[j])) {
            k = j;
        }
        if (k < 0) {
            i = j;
            continue;
        }
        Py_ssize_t u = k;
        int power = 0;
        for (; u < n && cn_big(s[u]); u++) power += s[u] == 0x4E07 ? 4 : 8;
        char num[32];
        if (scaled_digits(s, i, k, power, num))
            if (nad_keep(out, s, last, i, u) < 0 || ub_ascii(out, num) < 0) return -1;
        i = u;
    }
    return 0;
}

/* English numbers (text/normalize.py _numbers_as_digits_en), with re.ASCII word boundaries: \w is
 * [A-Za-z0-9_] and case is folded for ASCII letters only. A regex alternative between \b and \b
 * matches a whole run of word characters, so each pass compares runs. */
static uint8_t EN_W[128]; /* [A-Za-z0-9_], set at import */
static void en_init(void) {
    for (int c = 0; c < 128; c++)
        EN_W[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
static inline int en_w(Py_UCS4 c) { return c < 128 && EN_W[c]; }
static inline int en_digit(Py_UCS4 c) { return c >= '0' && c <= '9'; }
/* the run s[i..j) equals the lowercase ASCII word w, ignoring ASCII case */
static int en_eq(const Py_UCS4 *s, Py_ssize_t i, Py_ssize_t j, const char *w) {
    Py_ssize_t k = 0;
    for (; i + k < j; k++) {
        Py_UCS4 c = s[i + k];
        if (c >= 'A' && c <= 'Z') c += 32;
        if (w[k] == '\0' || c != (Py_UCS4)(unsigned char)w[k]) return 0;
    }
    return w[k] == '\0';
}
static const char *EN_UNITS[21] = {"zero", "one", "two", "three", "four", "five", "six", "seven",
                                   "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen",
                                   "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"};
static const char *EN_TENS[8] = {"twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"};
/* the value of the number word s[i..j), -1 if it is none; tens_only: the tens (20..90) only */
static int en_value(const Py_UCS4 *s, Py_ssize_t i, Py_ssize_t j, int tens_only) {
    if (j - i < 3 || j - i > 9) return -1;
    Py_UCS4 c = s[i] | 32; /* every number word starts with one of e f n o s t z */
    if (c != 't' && c != 'f' && c != 's' && c != 'e' && c != 'n' && c != 'o' && c != 'z') return -1;
    for (int t = 0; t < 8; t++)
        if (EN_TENS[t][0] == (char)c && en_eq(s, i, j, EN_TENS[t])) return 20 + 10 * t;
    if (tens_only) return -1;
    for (int u = 0; u < 20; u++)
        if (EN_UNITS[u][0] == (char)c && en_eq(s, i, j, EN_UNITS[u])) return u;
    return -1;
}

/* _EN_WORD: "\b(tens)-(one..nine)\b" or "\b(zero..twenty|tens)\b" -> the value in digits */
static int en_words(const Py_UCS4 *s, Py_ssize_t n, Ubuf *out, Py_ssize_t *last) {
    Py_ssize_t i = 0;
    while (i < n) {
        if (!en_w(s[i])) {
            i++;
            continue;
        }
        Py_ssize_t j = i;
        while (j < n && en_w(s[j])) j++;
        int v = -1;
        Py_ssize_t end = j;
        int tens = en_value(s, i, j, 1);
        if (tens >= 0 && j + 1 < n && s[j] == '-' && en_w(s[j + 1])) {
            Py_ssize_t k = j + 1;
            while (k < n && en_w(s[k])) k++;
            int unit = en_value(s, j + 1, k, 0);
            if (unit >= 1 && unit <= 9) {
                v = tens + unit;
                end = k;
            }
        }
        if (v < 0) v = en_value(s, i, j, 0);
        if (v >= 0) {
            char num[8];
            snprintf(num, sizeof num, "%d", v);
            if (nad_keep(out, s, last, i, end) < 0 || ub_ascii(out, num) < 0) return -1;
        }
        i = end;
    }
    return 0;
}

static const char *EN_SCALES[8] = {"k", "thousand", "m", "million", "bn", "billion", "tn", "trillion"};
static const int EN_SCALE_POWER[8] = {3, 3, 6, 6, 9, 9, 12, 12};

/* _EN_SCALED "(?<![\w.])(\d+(?:\.\d+)?) ?(k|thousand|m|million|bn|billion|tn|trillion)\b": the number
 * times the scale (exactly: scaled_digits), written as an integer when it is one below 10^18 */
static int en_scaled(const Py_UCS4 *s, Py_ssize_t n, Ubuf *out, Py_ssize_t *last) {
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!en_digit(s[i]) || (i > 0 && (en_w(s[i - 1]) || s[i - 1] == '.'))) continue;
        Py_ssize_t j = i;
        while (j < n && en_digit(s[j])) j++;
        Py_ssize_t num_end = j;
        if (j + 1 < n && s[j] == '.' && en_digit(s[j + 1])) {
            num_end = j + 1;
            while (num_end < n && en_digit(s[num_end])) num_end++;
        }
        Py_ssize_t u = num_end < n && s[num_end] == ' ' ? num_end + 1 : num_end;
        Py_ssize_t e = u;
        while (e < n && en_w(s[e])) e++;
        int scale = -1;
        for (int t = 0; t < 8 && scale < 0 && e > u; t++)
            if (en_eq(s, u, e, EN_SCALES[t])) scale = t;
        if (scale < 0) continue;
        char num[32];
        if (scaled_digits(s, i, num_end, EN_SCALE_POWER[scale], num))
            if (nad_keep(out, s, last, i, e) < 0 || ub_ascii(out, num) < 0) return -1;
        i = e - 1;
    }
    return 0;
}

/* the run "per ?cent" at s[i..), then a word boundary: its end, or -1 */
static Py_ssize_t en_per_cent_at(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t i) {
    if (i + 3 > n || !en_eq(s, i, i + 3, "per")) return -1;
    Py_ssize_t c = i + 3 < n && s[i + 3] == ' ' ? i + 4 : i + 3;
    if (c + 4 > n || !en_eq(s, c, c + 4, "cent")) return -1;
    if (c + 4 < n && en_w(s[c + 4])) return -1;
    return c + 4;
}

/* _EN_PER_CENT " ?\bper ?cent\b" -> "%": the leftmost match takes the space before "per" unless an
 * earlier match ended after it */
static int en_per_cent(const Py_UCS4 *s, Py_ssize_t n, Ubuf *out, Py_ssize_t *last) {
    for (Py_ssize_t i = 0; i < n; i++) {
        if ((s[i] | 32) != 'p' || (i > 0 && en_w(s[i - 1]))) continue;
        Py_ssize_t e = en_per_cent_at(s, n, i);
        if (e < 0) continue;
        Py_ssize_t start = i > 0 && i - 1 >= *last && s[i - 1] == ' ' ? i - 1 : i;
        if (nad_keep(out, s, last, start, e) < 0 || ub_ascii(out, "%") < 0) return -1;
        i = e - 1;
    }
    return 0;
}

typedef int (*nad_pass)(const Py_UCS4 *, Py_ssize_t, Ubuf *, Py_ssize_t *);

/* One pass over *cur: when it rewrote anything, *cur becomes its output (the old buffer freed) and
 * *changed is set. Returns the pass's result (0 done, -1 error, 1 beyond what C does exactly). */
static int nad_apply(nad_pass pass, Py_UCS4 **cur, Py_ssize_t *curn, int *changed) {
    Ubuf out = {NULL, 0, 0};
    Py_ssize_t last = 0;
    int r = pass(*cur, *curn, &out, &last);
    if (r == 0 && out.p != NULL && ub_add(&out, *cur + last, *curn - last) < 0) r = -1;
    if (r == 0 && out.p != NULL) {
        PyMem_Free(*cur);
        *cur = out.p;
        *curn = out.n;
        *changed = 1;
    } else {
        PyMem_Free(out.p);
    }
    return r;
}

static PyObject *py_numbers_as_digits(PyObject *self, PyObject *text) {
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "numbers_as_digits: expected str, got %.100s", Py_TYPE(text)->tp_name);
        return NULL;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    /* _ANY_NUMBER: a text without an ASCII digit or a Chinese numeral is returned as it is; the
     * rewrites whose characters are absent cannot match and are skipped */
    int comma = 0, numeral = 0, any = 0, letter = 0;
    if (kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *d = data;
        for (Py_ssize_t i = 0; i < n; i++) {
            any |= d[i] >= '0' && d[i] <= '9';
            comma |= d[i] == ',';
            letter |= (d[i] | 32) >= 'a' && (d[i] | 32) <= 'z';
        }
    } else if (kind == PyUnicode_2BYTE_KIND) {
        const Py_UCS2 *d = data;
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_UCS2 c = d[i];
            if (c < 128) {
                any |= c >= '0' && c <= '9';
                comma |= c == ',';
                letter |= (c | 32) >= 'a' && (c | 32) <= 'z';
            } else {
                numeral |= (NAD[c] & (NAD_VAL | NAD_UNIT | NAD_BIG)) != 0;
            }
        }
        any |= numeral;
    } else {
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_UCS4 c = PyUnicode_READ(kind, data, i);
            if (c < 128) {
                any |= c >= '0' && c <= '9';
                comma |= c == ',';
                letter |= (c | 32) >= 'a' && (c | 32) <= 'z';
            } else if (c < 0x10000 && (NAD[c] & (NAD_VAL | NAD_UNIT | NAD_BIG))) {
                numeral = any = 1;
            }
        }
    }
    /* the Chinese rewrites (and digit groups) need a number and a numeral or a comma (万亿 are
     * numerals: _SCALED needs one); the English ones an ASCII letter */
    int zh = any && (numeral || comma);
    if (!zh && !letter) return Py_NewRef(text);
    Py_UCS4 *cur = PyUnicode_AsUCS4Copy(text);
    if (cur == NULL) return NULL;
    Py_ssize_t curn = n;
    int changed = 0, r = 0;
    nad_pass passes[7] = {zh && comma ? nad_grouped : NULL,
                          zh && numeral ? nad_ordinal : NULL,
                          zh && numeral ? nad_chinese : NULL,
                          zh ? nad_scaled : NULL,
                          letter ? en_words : NULL,
                          letter ? en_scaled : NULL,
                          letter ? en_per_cent : NULL};
    for (int p = 0; p < 7 && r == 0; p++) {
        if (passes[p] == NULL) continue;
        if (p == 3) { /* 万 or 亿 left after the Chinese numerals were rewritten */
            int big = 0;
            for (Py_ssize_t i = 0; i < curn && !big; i++) big = cur[i] == 0x4E07 || cur[i] == 0x4EBF;
            if (!big) continue;
        }
        if (p == 5 && !any && !changed) continue; /* no digit, none written by the number words */
        r = nad_apply(passes[p], &cur, &curn, &changed);
    }
    PyObject *res;
    if (r < 0) {
        res = NULL;
    } else if (r > 0) {
        res = Py_NewRef(Py_None);
    } else if (!changed) {
        res = Py_NewRef(text);
    } else {
        res = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, cur, curn);
    }
    PyMem_Free(cur);
    return res;
}

/* ---------------------------------------------------------------------------------------------
 * dates_zh (text/normalize.py): Chinese dates, times, percentages and small counts in one writing,
 * the same passes in the same order. Each pass emulates its regular expression's scan: at each
 * place the pattern is tried (with the backtracking it has); a match is replaced when its check
 * holds, kept as it is otherwise, and the scan goes on after it either way, as re.sub does. */

/* which characters each pass needs (a BMP table, set at import) */
#define ZD_D 0x01
#define ZD_PCT 0x02
#define ZD_SEP 0x04
#define ZD_CLOCK 0x08
#define ZD_HALF 0x10
#define ZD_DOT 0x20
#define ZD_HAO 0x40
#define ZD_ZERO 0x80
#define ZD_WEEK 0x100
#define ZD_TEN 0x200
static uint16_t ZD[0x10000];
static void zd_init(void) { /* after nad_init: the digit characters are NAD's */
    for (Py_UCS4 c = 0; c < 0x10000; c++)
        if (NAD[c] & NAD_VAL) ZD[c] |= ZD_D;
    ZD[0x4E4B] |= ZD_PCT; /* 之 */
    ZD[0x5341] |= ZD_TEN; /* 十 */
    ZD['-'] |= ZD_SEP;
    ZD['/'] |= ZD_SEP;
    ZD['.'] |= ZD_SEP;
    ZD[':'] |= ZD_CLOCK;
    ZD[0xFF1A] |= ZD_CLOCK;
    ZD[0x65F6] |= ZD_CLOCK; /* 时時 */
    ZD[0x6642] |= ZD_CLOCK;
    ZD[0x70B9] |= ZD_CLOCK | ZD_DOT; /* 点點 */
    ZD[0x9EDE] |= ZD_CLOCK | ZD_DOT;
    ZD[0x534A] |= ZD_HALF;
    ZD[0x53F7] |= ZD_HAO;
    ZD[0x865F] |= ZD_HAO;
    ZD['0'] |= ZD_ZERO;
    static const Py_UCS4 week[5] = {0x661F, 0x793C, 0x79AE, 0x9031, 0x5468}; /* 星礼禮週周 */
    for (int i = 0; i < 5; i++) ZD[week[i]] |= ZD_WEEK;
}

static inline int zd_d(Py_UCS4 c) { return c < 0x10000 && (ZD[c] & ZD_D); } /* 〇零一二两三四五六七八九 */
static inline int zd_dp(Py_UCS4 c) { return zd_d(c) && c != 0x4E24; }              /* ... less 两 */
static inline int zd_dot(Py_UCS4 c) { return c == 0x70B9 || c == 0x9EDE; }        /* 点點 */
static inline int zd_shi(Py_UCS4 c) { return c == 0x65F6 || c == 0x6642; }         /* 时時 */
static inline int zd_colon(Py_UCS4 c) { return c == ':' || c == 0xFF1A; }           /* :： */
static inline int zd_zhong(Py_UCS4 c) { return c == 0x949F || c == 0x9418; }       /* 钟鐘 */
static inline int zd_hao(Py_UCS4 c) { return c == 0x53F7 || c == 0x865F; }         /* 号號 */
static int zd_unit(Py_UCS4 c) { /* 月日号號时時分秒个個名位项項家条條件岁歲天周週 */
    static const Py_UCS4 u[] = {0x6708, 0x65E5, 0x53F7, 0x865F, 0x65F6, 0x6642, 0x5206, 0x79D2,
                                0x4E2A, 0x500B, 0x540D, 0x4F4D, 0x9879, 0x9805, 0x5BB6, 0x6761,
                                0x689D, 0x4EF6, 0x5C81, 0x6B72, 0x5929, 0x5468, 0x9031};
    for (size_t k = 0; k < sizeof u / sizeof u[0]; k++)
        if (c == u[k]) return 1;
    return 0;
}
static inline int zd_after_number(const Py_UCS4 *s, Py_ssize_t i) {
    return i > 0 && (is_dec(s[i - 1]) || s[i - 1] == '.' || cn_any(s[i - 1]));
}
static inline int zd_cjk_beside(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t start, Py_ssize_t end) {
    return (start > 0 && s[start - 1] >= 0x3000) || (end < n && s[end] >= 0x3000);
}
static inline Py_ssize_t zd_decs(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t i) { /* \d run at i */
    Py_ssize_t j = i;
    while (j < n && is_dec(s[j])) j++;
    return j - i;
}
static int zd_int(Ubuf *b, const Py_UCS4 *s, Py_ssize_t i, Py_ssize_t k) { /* int(s[i:i+k]) */
    long v = 0;
    for (Py_ssize_t j = i; j < i + k; j++) v = 10 * v + Py_UNICODE_TODECIMAL(s[j]);
    char num[24];
    snprintf(num, sizeof num, "%ld", v);
    return ub_ascii(b, num);
}
static int zd_ch(Ubuf *b, Py_UCS4 c) { return ub_add(b, &c, 1); }

/* _ZH_DIGIT_UNIT "(?:[D]{1,2}|十)(?=unit|[点點](?:[\d〇零一二三四五六七八九十]+分|半|钟|鐘|整|许|左右))
 * |(?:(?<=[午晨晚夜])|(?<=[早晚]上))[二两三四五六七八九十](?=[点點])"; a lone 十 before 分 is
 * kept ("very") unless it follows 点點时時, and one after 几幾数數 ("tens of") */
static int zd_unit_ahead(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t j) {
    if (j >= n) return 0;
    if (zd_unit(s[j])) return 1;
    if (!zd_dot(s[j]) || j + 1 >= n) return 0;
    Py_UCS4 c = s[j + 1];
    if (c == 0x534A || zd_zhong(c) || c == 0x6574 || c == 0x8BB8) return 1; /* 半 钟鐘 整 许 */
    if (c == 0x5DE6 && j + 2 < n && s[j + 2] == 0x53F3) return 1;        /* 左右 */
    Py_ssize_t k = j + 1;
    while (k < n && (is_dec(s[k]) || zd_dp(s[k]) || s[k] == 0x5341)) k++;
    return k > j + 1 && k < n && s[k] == 0x5206;
}
static int zd_by_day(const Py_UCS4 *s, Py_ssize_t i) { /* (?<=[午晨晚夜])|(?<=[早晚]上) at i */
    if (i < 1) return 0;
    Py_UCS4 c = s[i - 1];
    if (c == 0x5348 || c == 0x6668 || c == 0x665A || c == 0x591C) return 1;
    return c == 0x4E0A && i >= 2 && (s[i - 2] == 0x65E9 || s[i - 2] == 0x665A);
}
static int zd_digit_unit(const Py_UCS4 *s, Py_ssize_t n, Ubuf *out, Py_ssize_t *last) {
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t e = -1;
        if (zd_d(s[i])) {
            for (Py_ssize_t len = (i + 1 < n && zd_d(s[i + 1])) ? 2 : 1; len >= 1 && e < 0; len--)
                if (zd_unit_ahead(s, n, i + len)) e = i + len;
        } else if (s[i] == 0x5341 && zd_unit_ahead(s, n, i + 1)) {
            e = i + 1;
        }
        if (e < 0 && (s[i] == 0x5341 || (zd_d(s[i]) && s[i] != 0x4E00 && s[i] != 0x3007 && s[i] != 0x96F6)) &&
            i + 1 < n && zd_dot(s[i + 1]) && zd_by_day(s, i))
            e = i + 1;
        if (e < 0) continue;
        int very = s[i] == 0x5341 && e == i + 1 && e < n && s[e] == 0x5206 &&
                   !(i > 0 && (zd_dot(s[i - 1]) || zd_shi(s[i - 1])));
        int tens_of = s[i] == 0x5341 && i > 0 &&
                      (s[i - 1] == 0x51E0 || s[i - 1] == 0x5E7E || s[i - 1] == 0x6570 || s[i - 1] == 0x6578);
        if (!very && !tens_of && !zd_after_number(s, i)) {
            if (nad_keep(out, s, last, i, e) < 0 || cn_value_append(out, s + i, e - i) < 0) return -1;
        }
        i = e - 1;
    }
    return 0;
}

/* _ZH_PERCENT "百分之(\d+(?:\.\d+)?|[D]+|十)(?:[点點]([D less 两]+|\d+))?" -> whole[.frac]% */
static int zd_percent(const Py_UCS4 *s, Py_ssize_t n, Ubuf *out, Py_ssize_t *last) {
    for (Py_ssize_t i = 0; i + 3 < n; i++) {
        if (s[i] != 0x767E || s[i + 1] != 0x5206 || s[i + 2] != 0x4E4B) continue;
        Py_ssize_t j = i + 3, w0 = j, w1, f0 = -1, f1 = -1;
        int cn_whole = 0, cn_frac = 0;
        Py_ssize_t k = zd_decs(s, n, j);
        if (k > 0) {
            j += k;
            if (j + 1 < n && s[j] == '.' && is_dec(s[j + 1])) j += 1 + zd_decs(s, n, j + 1);
        } else {
            while (j < n && zd_d(s[j])) j++;
            if (j == w0 && s[j] == 0x5341) j++; /* 百分之十 */
            if (j == w0) continue;
            cn_whole = 1;
        }
        w1 = j;
        if (j + 1 < n && zd_dot(s[j])) {
            Py_ssize_t m = j + 1;
            while (m < n && zd_dp(s[m])) m++;
            if (m > j + 1) {
                cn_frac = 1;
            } else {
                m = j + 1 + zd_decs(s, n, j + 1);
            }
            if (m > j + 1) {
                f0 = j + 1;
                f1 = m;
                j = m;
            }
        }
        if (nad_keep(out, s, last, i, j) < 0) return -1;
        if (cn_whole) {
            if (cn_value_append(out, s + w0, w1 - w0) < 0) return -1;
        } else {
            for (Py_ssize_t m = w0; m < w1; m++)
                if (zd_ch(out, s[m] == '.' ? '.' : (Py_UCS4)('0' + Py_UNICODE_TODECIMAL(s[m]))) < 0) return -1;
        }
        if (f0 >= 0) {
            if (zd_ch(out, '.') < 0) return -1;
            for (Py_ssize_t m = f0; m < f1; m++)
                if (zd_ch(out, (Py_UCS4)('0' + (cn_frac ? cn_digit(s[m]) : Py_UNICODE_TODECIMAL(s[m])))) < 0)
                    return -1;
        }
        if (zd_ch(out, '%') < 0) return -1;
        i = j - 1;
    }
    return 0;
}

/* _ZH_DATE "(\d{4})([-/.])(\d{1,2})\2(\d{1,2})(?![\d.])[日号號]?" beside Chinese text -> 年月日 */
static int zd_date(const Py_UCS4 *s, Py_ssize_t n, Ubuf *out, Py_ssize_t *last) {
    for (Py_ssize_t i = 0; i + 8 <= n; i++) {
        if (!(is_dec(s[i]) && is_dec(s[i + 1]) && is_dec(s[i + 2]) && is_dec(s[i + 3]))) continue;
        Py_UCS4 sep = s[i + 4];
        if (sep != '-' && sep != '/' && sep != '.') continue;
        Py_ssize_t m0 = i + 5, ml = -1, d0, dl = -1;
        for (Py_ssize_t len = 2; len >= 1 && ml < 0; len--) {
            int ok = m0 + len < n;
            for (Py_ssize_t k = 0; ok && k < len; k++) ok = is_dec(s[m0 + k]);
            if (ok && s[m0 + len] == sep) ml = len;
        }
        if (ml < 0) continue;
        d0 = m0 + ml + 1;
        for (Py_ssize_t len = 2; len >= 1 && dl < 0; len--) {
            int ok = d0 + len <= n;
            for (Py_ssize_t k = 0; ok && k < len; k++) ok = is_dec(s[d0 + k]);
            if (ok && (d0 + len == n || (!is_dec(s[d0 + len]) && s[d0 + len] != '.'))) dl = len;
        }
        if (dl < 0) continue;
        Py_ssize_t e = d0 + dl;
        if (e < n && (s[e] == 0x65E5 || zd_hao(s[e]))) e++;
        if (!zd_after_number(s, i) && zd_cjk_beside(s, n, i, e)) {
            if (nad_keep(out, s, last, i, e) < 0 || ub_add(out, s + i, 4) < 0 || zd_ch(out, 0x5E74) < 0 ||
                zd_int(out, s, m0, ml) < 0 || zd_ch(out, 0x6708) < 0 || zd_int(out, s, d0, dl) < 0 ||
                zd_ch(out, 0x65E5) < 0)
                return -1;
        }
        i = e - 1;
    }
    return 0;
}

/* _ZH_CLOCK "(\d{1,2})(?:[点點时時](\d{1,2})分|[:：](\d{2})(?![\d:：]))" -> h时m分 (the colon form
 * beside Chinese text only) */
static int zd_clock(const Py_UCS4 *s, Py_ssize_t n, Ubuf *out, Py_ssize_t *last) {
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!is_dec(s[i])) continue;
        Py_ssize_t e = -1, hl = 0, m0 = 0, ml = 0;
        int colon = 0;
        for (Py_ssize_t h = (i + 1 < n && is_dec(s[i + 1])) ? 2 : 1; h >= 1 && e < 0; h--) {
            Py_ssize_t j = i + h;
            if (j >= n) continue;
            if (zd_dot(s[j]) || zd_shi(s[j])) {
                for (Py_ssize_t m = 2; m >= 1 && e < 0; m--) {
                    int ok = j + 1 + m < n;
                    for (Py_ssize_t k = 0; ok && k < m; k++) ok = is_dec(s[j + 1 + k]);
                    if (ok && s[j + 1 + m] == 0x5206) {
                        e = j + 2 + m;
                        hl = h, m0 = j + 1, ml = m;
                    }
                }
            } else if (zd_colon(s[j]) && j + 2 < n && is_dec(s[j + 1]) && is_dec(s[j + 2]) &&
                       (j + 3 == n || (!is_dec(s[j + 3]) && !zd_colon(s[j + 3])))) {
                e = j + 3;
                hl = h, m0 = j + 1, ml = 2, colon = 1;
            }
        }
        if (e < 0) continue;
        if (!zd_after_number(s, i) && (!colon || zd_cjk_beside(s, n, i, e))) {
            if (nad_keep(out, s, last, i, e) < 0 || zd_int(out, s, i, hl) < 0 || zd_ch(out, 0x65F6) < 0 ||
                zd_int(out, s, m0, ml) < 0 || zd_ch(out, 0x5206) < 0)
                return -1;
        }
        i = e - 1;
    }
    return 0;
}

/* _ZH_HALF "(\d{1,2})[点點时時]半" -> h时30分 */
static int zd_half(const Py_UCS4 *s, Py_ssize_t n, Ubuf *out, Py_ssize_t *last) {
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!is_dec(s[i])) continue;
        Py_ssize_t e = -1, hl = 0;
        for (Py_ssize_t h = (i + 1 < n && is_dec(s[i + 1])) ? 2 : 1; h >= 1 && e < 0; h--)
            if (i + h + 1 < n && (zd_dot(s[i + h]) || zd_shi(s[i + h])) && s[i + h + 1] == 0x534A) e = i + h + 2, hl = h;
        if (e < 0) continue;
        if (!zd_after_number(s, i)) {
            if (nad_keep(out, s, last, i, e) < 0 || zd_int(out, s, i, hl) < 0 || zd_ch(out, 0x65F6) < 0 ||
                ub_ascii(out, "30") < 0 || zd_ch(out, 0x5206) < 0)
                return -1;
        }
        i = e - 1;
    }
    return 0;
}

/* _ZH_HOUR "(\d{1,2})[点點](?:钟|鐘)?(?![\d分])" -> h时, after a time of day (午晨晚早上日天夜) or
 * before 整, 许 or 左右 */
static int zd_hour(const Py_UCS4 *s, Py_ssize_t n, Ubuf *out, Py_ssize_t *last) {
    static const Py_UCS4 day[] = {0x5348, 0x6668, 0x665A, 0x65E9, 0x4E0A, 0x65E5, 0x5929, 0x591C};
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!is_dec(s[i])) continue;
        Py_ssize_t e = -1, hl = 0;
        for (Py_ssize_t h = (i + 1 < n && is_dec(s[i + 1])) ? 2 : 1; h >= 1 && e < 0; h--) {
            Py_ssize_t j = i + h;
            if (j >= n || !zd_dot(s[j])) continue;
            j++;
            if (j < n && zd_zhong(s[j]) && (j + 1 == n || (!is_dec(s[j + 1]) && s[j + 1] != 0x5206)))
                e = j + 1, hl = h;
            else if (j == n || (!is_dec(s[j]) && s[j] != 0x5206))
                e = j, hl = h;
        }
        if (e < 0) continue;
        int by_day = 0;
        for (size_t k = 0; i > 0 && k < sizeof day / sizeof day[0]; k++) by_day |= s[i - 1] == day[k];
        int about = e < n && (s[e] == 0x6574 || s[e] == 0x8BB8 || (s[e] == 0x5DE6 && e + 1 < n && s[e + 1] == 0x53F3));
        if ((by_day || about) && !zd_after_number(s, i)) {
            if (nad_keep(out, s, last, i, e) < 0 || zd_int(out, s, i, hl) < 0 || zd_ch(out, 0x65F6) < 0) return -1;
        }
        i = e - 1;
    }
    return 0;
}

/* _ZH_DAY "月(\d{1,2})[号號]" -> 月\1日 */
static int zd_day(const Py_UCS4 *s, Py_ssize_t n, Ubuf *out, Py_ssize_t *last) {
    for (Py_ssize_t i = 0; i + 2 < n; i++) {
        if (s[i] != 0x6708) continue;
        Py_ssize_t e = -1;
        for (Py_ssize_t len = 2; len >= 1 && e < 0; len--) {
            int ok = i + 1 + len < n;
            for (Py_ssize_t k = 0; ok && k < len; k++) ok = is_dec(s[i + 1 + k]);
            if (ok && zd_hao(s[i + 1 + len])) e = i + 2 + len;
        }
        if (e < 0) continue;
        if (nad_keep(out, s, last, e - 1, e) < 0 || zd_ch(out, 0x65E5) < 0) return -1;
        i = e - 1;
    }
    return 0;
}

/* _ZH_ZERO "0(?=\d[月日时分])": dropped when it starts a number */
static int zd_zero(const Py_UCS4 *s, Py_ssize_t n, Ubuf *out, Py_ssize_t *last) {
    for (Py_ssize_t i = 0; i + 2 < n; i++) {
        Py_UCS4 u = s[i + 2];
        if (s[i] != '0' || !is_dec(s[i + 1]) || !(u == 0x6708 || u == 0x65E5 || u == 0x65F6 || u == 0x5206)) continue;
        if (!zd_after_number(s, i) && nad_keep(out, s, last, i, i + 1) < 0) return -1;
    }
    return 0;
}

/* _ZH_WEEKDAY "(?:星期|礼拜|禮拜|週)([一二三四五六日天])|周天" -> 周 and the day (天 as 日) */
static int zd_weekday(const Py_UCS4 *s, Py_ssize_t n, Ubuf *out, Py_ssize_t *last) {
    static const Py_UCS4 days[] = {0x4E00, 0x4E8C, 0x4E09, 0x56DB, 0x4E94, 0x516D, 0x65E5, 0x5929};
    for (Py_ssize_t i = 0; i + 1 < n; i++) {
        Py_ssize_t d;
        if ((s[i] == 0x661F && s[i + 1] == 0x671F) || ((s[i] == 0x793C || s[i] == 0x79AE) && s[i + 1] == 0x62DC))
            d = i + 2;
        else if (s[i] == 0x9031)
            d = i + 1;
        else if (s[i] == 0x5468 && s[i + 1] == 0x5929)
            d = i + 1;
        else
            continue;
        int ok = 0;
        for (size_t k = 0; d < n && k < sizeof days / sizeof days[0]; k++) ok |= s[d] == days[k];
        if (!ok) continue;
        if (nad_keep(out, s, last, i, d + 1) < 0 || zd_ch(out, 0x5468) < 0 ||
            zd_ch(out, s[d] == 0x5929 ? 0x65E5 : s[d]) < 0)
            return -1;
        i = d;
    }
    return 0;
}

/* mostly_cjk(text): more CJK characters (U+3000 up) than ASCII letters: a Chinese text, whose
 * English dates are left as they are */
static PyObject *py_mostly_cjk(PyObject *self, PyObject *text) {
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "mostly_cjk: expected str, got %.100s", Py_TYPE(text)->tp_name);
        return NULL;
    }
    if (PyUnicode_KIND(text) == PyUnicode_1BYTE_KIND) Py_RETURN_FALSE;
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), cjk = 0, letters = 0;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        cjk += c >= 0x3000;
        letters += ((c | 32) >= 'a' && (c | 32) <= 'z');
    }
    return PyBool_FromLong(cjk > letters);
}

static PyObject *py_dates_zh(PyObject *self, PyObject *text) {
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "dates_zh: expected str, got %.100s", Py_TYPE(text)->tp_name);
        return NULL;
    }
    /* every pass needs a character from U+3000 up (a unit, a numeral, 百分之, or one beside) */
    if (PyUnicode_KIND(text) == PyUnicode_1BYTE_KIND || PyUnicode_MAX_CHAR_VALUE(text) < 0x3000)
        return Py_NewRef(text);
    /* what each pass needs to find anything (the passes before it write none of these but digits
     * and 时分年月日: the zeros' pass runs after any rewrite) */
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    unsigned f = 0;
    if (kind == PyUnicode_2BYTE_KIND) {
        const Py_UCS2 *t = data;
        for (Py_ssize_t i = 0; i < n; i++) f |= ZD[t[i]];
    } else {
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_UCS4 c = PyUnicode_READ(kind, data, i);
            if (c < 0x10000) f |= ZD[c];
        }
    }
    int d = f & (ZD_D | ZD_TEN), pct = f & ZD_PCT, sep = f & ZD_SEP, clock = f & ZD_CLOCK, half = f & ZD_HALF,
        dot = f & ZD_DOT, hao = f & ZD_HAO, zero = f & ZD_ZERO, week = f & ZD_WEEK;
    Py_UCS4 *cur = PyUnicode_AsUCS4Copy(text);
    if (cur == NULL) return NULL;
    Py_ssize_t curn = n;
    int changed = 0, r = 0;
    nad_pass passes[9] = {d ? zd_digit_unit : NULL,  pct ? zd_percent : NULL, sep ? zd_date : NULL,
                          clock ? zd_clock : NULL,   half ? zd_half : NULL,   dot ? zd_hour : NULL,
                          hao ? zd_day : NULL,       zd_zero,                 week ? zd_weekday : NULL};
    for (int p = 0; p < 9 && r == 0; p++) {
        if (passes[p] == NULL || (p == 7 && !zero && !changed)) continue;
        r = nad_apply(passes[p], &cur, &curn, &changed);
    }
    PyObject *res = r < 0 ? NULL : !changed ? Py_NewRef(text) : PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, cur, curn);
    PyMem_Free(cur);
    return res;
}

/* ---------------------------------------------------------------------------------------------
 * phrases (text/normalize.py regional_phrases): each phrase of ``table`` (str -> str, keys of 2 to
 * 255 characters) replaced by its value, leftmost first and the longest at a place, as a regular
 * expression of the keys longest first does. A place is tried only when its character is set in
 * ``firsts`` (a bitmap of the Basic Multilingual Plane: the keys' first characters) and its two
 * characters are among ``pairs`` (the keys' first two, sorted uint64 c1 << 32 | c2 << 8 | the
 * longest key they start): the scan is a bit test per character, and the dict is asked only where
 * a key may start, for the lengths keys starting so have. The text itself is returned when nothing
 * is replaced. */

/* the text rebuilt from its replaced pieces and the rest from ``last`` (a new reference; the text
 * itself when nothing was replaced); NULL with an exception set on failure */
static PyObject *join_pieces(PyObject *text, PyObject *pieces, Py_ssize_t last) {
    if (!pieces) {
        Py_INCREF(text);
        return text;
    }
    PyObject *tail = PyUnicode_Substring(text, last, PyUnicode_GET_LENGTH(text));
    if (!tail) return NULL;
    int bad = PyList_Append(pieces, tail) < 0;
    Py_DECREF(tail);
    if (bad) return NULL;
    PyObject *empty = PyUnicode_FromStringAndSize("", 0);
    if (!empty) return NULL;
    PyObject *out = PyUnicode_Join(empty, pieces);
    Py_DECREF(empty);
    return out;
}

/* the next place from i whose character is set in bits (n: none) */
static Py_ssize_t next_first(int kind, const void *data, Py_ssize_t n, Py_ssize_t i, const uint8_t *bits) {
    if (kind == PyUnicode_2BYTE_KIND) {
        const Py_UCS2 *d = data;
        for (; i < n; i++)
            if (bits[d[i] >> 3] & (1u << (d[i] & 7))) return i;
        return n;
    }
    const Py_UCS4 *d = data;
    for (; i < n; i++)
        if (d[i] <= 0xFFFF && (bits[d[i] >> 3] & (1u << (d[i] & 7)))) return i;
    return n;
}

static PyObject *py_phrases(PyObject *self, PyObject *args) {
    PyObject *text, *table;
    Py_buffer firsts, pairs;
    if (!PyArg_ParseTuple(args, "Uy*y*O!", &text, &firsts, &pairs, &PyDict_Type, &table)) return NULL;
    PyObject *out = NULL, *pieces = NULL;
    if (firsts.len != 8192 || pairs.len % 8 != 0) {
        PyErr_SetString(PyExc_ValueError, "phrases: firsts must be 8192 bytes, pairs whole uint64s");
        goto done;
    }
    const uint8_t *bits = firsts.buf;
    const uint64_t *pv = pairs.buf;
    Py_ssize_t np_ = pairs.len / 8, n = PyUnicode_GET_LENGTH(text), last = 0, i = 0;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    if (kind == PyUnicode_1BYTE_KIND) n = 0; /* Latin-1 holds no CJK character: nothing to read */
    while ((i = next_first(kind, data, n, i, bits)) + 1 < n) {
        uint64_t key = ((uint64_t)PyUnicode_READ(kind, data, i) << 32) | ((uint64_t)PyUnicode_READ(kind, data, i + 1) << 8);
        Py_ssize_t lo = 0, hi = np_;
        while (lo < hi) {
            Py_ssize_t mid = lo + (hi - lo) / 2;
            if (pv[mid] < key) lo = mid + 1;
            else hi = mid;
        }
        Py_ssize_t took = 0;
        if (lo < np_ && (pv[lo] >> 8) == (key >> 8)) {
            Py_ssize_t most = (Py_ssize_t)(pv[lo] & 0xFF);
            for (Py_ssize_t len = most < n - i ? most : n - i; len >= 2 && !took; len--) {
                PyObject *sub = PyUnicode_Substring(text, i, i + len);
                if (!sub) goto done;
                PyObject *value = PyDict_GetItemWithError(table, sub);
                /* a phrase read as itself (a group's own member) is only passed over */
                int same = value ? PyUnicode_Compare(value, sub) : 1;
                Py_DECREF(sub);
                if (PyErr_Occurred()) goto done; /* a lookup that failed, or a value not a str */
                if (!value) continue;
                same = same == 0;
                took = len;
                if (same) continue;
                if (!pieces && !(pieces = PyList_New(0))) goto done;
                PyObject *before = PyUnicode_Substring(text, last, i);
                if (!before) goto done;
                int bad = PyList_Append(pieces, before) < 0 || PyList_Append(pieces, value) < 0;
                Py_DECREF(before);
                if (bad) goto done;
                last = i + len;
            }
        }
        i += took ? took : 1;
    }
    out = join_pieces(text, pieces, last);
done:
    Py_XDECREF(pieces);
    PyBuffer_Release(&firsts);
    PyBuffer_Release(&pairs);
    return out;
}

/* ---------------------------------------------------------------------------------------------
 * words (text/normalize.py spellings): each word of ASCII letters (no letter of any script on
 * either side) whose lowercase form is a key of ``table`` (str -> str, lowercase) replaced by its
 * value, in the word's case (Colour -> Color, COLOUR -> COLOR). ``bits`` (WORD_BITS bits) holds
 * the FNV-1a hash of every key: the dict is asked only for words whose bit is set, so the scan
 * is a hash per letter. The text itself is returned when nothing is replaced. */

#define WORD_BITS (1u << 20)
#define WORD_MOST 64

static PyObject *py_words(PyObject *self, PyObject *args) {
    PyObject *text, *table;
    Py_buffer bitsbuf;
    if (!PyArg_ParseTuple(args, "Uy*O!", &text, &bitsbuf, &PyDict_Type, &table)) return NULL;
    PyObject *out = NULL, *pieces = NULL;
    if (bitsbuf.len != WORD_BITS / 8) {
        PyErr_SetString(PyExc_ValueError, "words: bits must be 131072 bytes");
        goto done;
    }
    const uint8_t *bits = bitsbuf.buf;
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), last = 0, i = 0;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    char low[WORD_MOST];
    while (i < n) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        int ascii = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (!ascii) {
            i++;
            continue;
        }
        Py_ssize_t start = i;
        int before = start > 0 && Py_UNICODE_ISALPHA(PyUnicode_READ(kind, data, start - 1));
        uint32_t h = 2166136261u;
        Py_ssize_t len = 0;
        for (; i < n; i++) {
            c = PyUnicode_READ(kind, data, i);
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) break;
            char l = (char)(c | 0x20);
            if (len < WORD_MOST) low[len] = l;
            len++;
            h = (h ^ (uint8_t)l) * 16777619u;
        }
        if (before || (i < n && Py_UNICODE_ISALPHA(PyUnicode_READ(kind, data, i)))) {
            /* part of a longer word of another script (Montréal): pass it and the rest */
            while (i < n && Py_UNICODE_ISALPHA(PyUnicode_READ(kind, data, i))) i++;
            continue;
        }
        h &= WORD_BITS - 1;
        if (len < 2 || len > WORD_MOST || !(bits[h >> 3] & (1u << (h & 7)))) continue;
        PyObject *key = PyUnicode_FromStringAndSize(low, len);
        if (!key) goto done;
        PyObject *value = PyDict_GetItemWithError(table, key);
        Py_DECREF(key);
        if (!value) {
            if (PyErr_Occurred()) goto done;
            continue;
        }
        if (!PyUnicode_Check(value)) {
            PyErr_SetString(PyExc_TypeError, "words: table values must be str");
            goto done;
        }
        Py_UCS4 first = PyUnicode_READ(kind, data, start);
        int upper_first = first >= 'A' && first <= 'Z', all_upper = len > 1 && upper_first;
        for (Py_ssize_t j = start + 1; all_upper && j < i; j++) {
            Py_UCS4 x = PyUnicode_READ(kind, data, j);
            all_upper = x >= 'A' && x <= 'Z';
        }
        PyObject *cased;
        if (all_upper) cased = PyObject_CallMethod(value, "upper", NULL);
        else if (upper_first) cased = PyObject_CallMethod(value, "capitalize", NULL);
        else {
            Py_INCREF(value);
            cased = value;
        }
        if (!cased) goto done;
        if (!pieces && !(pieces = PyList_New(0))) {
            Py_DECREF(cased);
            goto done;
        }
        PyObject *before_text = PyUnicode_Substring(text, last, start);
        int bad = !before_text || PyList_Append(pieces, before_text) < 0 || PyList_Append(pieces, cased) < 0;
        Py_XDECREF(before_text);
        Py_DECREF(cased);
        if (bad) goto done;
        last = i;
    }
    out = join_pieces(text, pieces, last);
done:
    Py_XDECREF(pieces);
    PyBuffer_Release(&bitsbuf);
    return out;
}

/* ---------------------------------------------------------------------------------------------
 * contractions (text/normalize.py _contractions_py, after its cannot and curly-apostrophe
 * replacements): at each apostrophe, the regular expression '([tT]|[rR][eE]|[vV][eE]|[lL][lL]|[mM]|
 * [sS]|[dD])(?![A-Za-z]) (each alternative starts with its own letter, so at most one matches), and
 * the same conditions on the letters before it. */

static inline int ascii_letter(Py_UCS4 c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static inline Py_UCS4 ascii_lower(Py_UCS4 c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* the words before 's that read as "is", before 'd as "would" (normalize.py _IS_AFTER, _WOULD_AFTER) */
static const char *IS_AFTER[] = {"it", "that", "there", "here", "what", "who", "he", "she", "where", "how", NULL};
static const char *WOULD_AFTER[] = {"i", "you", "he", "she", "it", "we", "they", "who", "that", NULL};

static int word_in(int kind, const void *data, Py_ssize_t s, Py_ssize_t e, const char **list) {
    for (int k = 0; list[k]; k++) {
        Py_ssize_t n = (Py_ssize_t)strlen(list[k]), j = 0;
        if (n != e - s) continue;
        while (j < n && ascii_lower(PyUnicode_READ(kind, data, s + j)) == (Py_UCS4)list[k][j]) j++;
        if (j == n) return 1;
    }
    return 0;
}

static int add_piece(PyObject *pieces, PyObject *piece) {
    if (!piece) return -1;
    int bad = PyList_Append(pieces, piece) < 0;
    Py_DECREF(piece);
    return bad ? -1 : 0;
}

static PyObject *py_contractions(PyObject *self, PyObject *text) {
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "contractions: expected str, got %.100s", Py_TYPE(text)->tp_name);
        return NULL;
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), last = 0;
    PyObject *pieces = NULL;
#define AT(i) ((i) < n ? PyUnicode_READ(kind, data, (i)) : 0)
    for (Py_ssize_t i = 0; i < n; i++) {
        if (kind == PyUnicode_1BYTE_KIND) { /* most English texts: jump to the next apostrophe */
            const char *hit = memchr((const char *)data + i, '\'', (size_t)(n - i));
            if (!hit) break;
            i = hit - (const char *)data;
        } else if (PyUnicode_READ(kind, data, i) != '\'') {
            continue;
        }
        Py_UCS4 c1 = ascii_lower(AT(i + 1)), c2 = ascii_lower(AT(i + 2));
        Py_ssize_t len = 0; /* the suffix's letters */
        if (c1 == 't' || c1 == 'm' || c1 == 's' || c1 == 'd') len = 1;
        else if ((c1 == 'r' && c2 == 'e') || (c1 == 'v' && c2 == 'e') || (c1 == 'l' && c2 == 'l')) len = 2;
        if (!len || ascii_letter(AT(i + 1 + len))) continue;
        Py_ssize_t end = i + 1 + len;
        if (i < 2 || !ascii_letter(PyUnicode_READ(kind, data, i - 1))) {
            i = end - 1;
            continue;
        }
        Py_UCS4 first = PyUnicode_READ(kind, data, i + 1);
        int upper = len == 1 ? (first >= 'A' && first <= 'Z')
                             : (first >= 'A' && first <= 'Z') && AT(i + 2) >= 'A' && AT(i + 2) <= 'Z';
        Py_ssize_t start = i;
        while (start > 0 && ascii_letter(PyUnicode_READ(kind, data, start - 1))) start--;
        if (!pieces && !(pieces = PyList_New(0))) return NULL;
        if (c1 == 't') {
            Py_UCS4 nn = PyUnicode_READ(kind, data, i - 1);
            if ((nn != 'n' && nn != 'N') || !ascii_letter(PyUnicode_READ(kind, data, i - 2))) {
                i = end - 1;
                continue;
            }
            /* the word before n't: do of don't, wo of won't (will), ca of can't (can) */
            Py_ssize_t w0 = start, w1 = i - 1;
            int all_upper = 1;
            for (Py_ssize_t j = w0; j < w1; j++) {
                Py_UCS4 x = PyUnicode_READ(kind, data, j);
                all_upper = all_upper && x >= 'A' && x <= 'Z';
            }
            int two = w1 - w0 == 2;
            Py_UCS4 l0 = two ? ascii_lower(PyUnicode_READ(kind, data, w0)) : 0;
            Py_UCS4 l1 = two ? ascii_lower(PyUnicode_READ(kind, data, w0 + 1)) : 0;
            PyObject *word;
            if (l0 == 'w' && l1 == 'o') {
                Py_UCS4 w = PyUnicode_READ(kind, data, w0);
                word = PyUnicode_FromString(all_upper ? "WILL" : (w >= 'A' && w <= 'Z') ? "Will" : "will");
            } else if (l0 == 'c' && l1 == 'a') {
                PyObject *ca = PyUnicode_Substring(text, w0, w1);
                word = ca ? PyUnicode_FromFormat("%U%s", ca, all_upper ? "N" : "n") : NULL;
                Py_XDECREF(ca);
            } else {
                word = PyUnicode_Substring(text, w0, w1);
            }
            if (add_piece(pieces, PyUnicode_Substring(text, last, w0)) < 0 || add_piece(pieces, word) < 0 ||
                add_piece(pieces, PyUnicode_FromString(first == 'T' ? " NOT" : " not")) < 0)
                goto fail;
        } else {
            if ((c1 == 's' || c1 == 'd') && !word_in(kind, data, start, i, c1 == 's' ? IS_AFTER : WOULD_AFTER)) {
                i = end - 1;
                continue;
            }
            const char *full = c1 == 'r' ? (upper ? " ARE" : " are")
                             : c1 == 'v' ? (upper ? " HAVE" : " have")
                             : c1 == 'l' ? (upper ? " WILL" : " will")
                             : c1 == 'm' ? (upper ? " AM" : " am")
                             : c1 == 's' ? (upper ? " IS" : " is")
                                         : (upper ? " WOULD" : " would");
            if (add_piece(pieces, PyUnicode_Substring(text, last, i)) < 0 ||
                add_piece(pieces, PyUnicode_FromString(full)) < 0)
                goto fail;
        }
        last = end;
        i = end - 1;
    }
#undef AT
    {
        PyObject *out = join_pieces(text, pieces, last);
        Py_XDECREF(pieces);
        return out;
    }
fail:
    Py_XDECREF(pieces);
    return NULL;
}

static PyMethodDef methods[] = {
    {"normalize", py_normalize, METH_VARARGS, "_fast._normalize_kernel: the code points as a bytearray."},
    {"shingle_into", py_shingle_into, METH_VARARGS, "_fast._shingle_kernel into given arrays."},
    {"accumulate_into", py_accumulate_into, METH_VARARGS, "_kernels.accumulate into sums."},
    {"sums_to_fp", py_sums_to_fp, METH_VARARGS, "_kernels.sums_to_fp."},
    {"majority_bits", py_majority_bits, METH_VARARGS, "_fast.majority_bits."},
    {"batch_fingerprints_into", py_batch_fingerprints_into, METH_VARARGS, "_kernels.batch_fingerprints into out."},
    {"signature_range", py_signature_range, METH_VARARGS, "match.signature._one for documents d0..d1."},
    {"copy_profiles", py_copy_profiles, METH_VARARGS, "Copy per-document slices of profile values."},
    {"posting_pairs_count", py_posting_pairs_count, METH_VARARGS, "Pairs posting_pairs_into writes."},
    {"posting_pairs_into", py_posting_pairs_into, METH_VARARGS, "match.candidates._posting_pairs into out."},
    {"xxh3_small", py_xxh3_small, METH_VARARGS, "XXH3-64 of up to 240 bytes (None beyond)."},
    {"numbers_as_digits", py_numbers_as_digits, METH_O, "text.normalize.numbers_as_digits (None: not exact in C)."},
    {"dates_zh", py_dates_zh, METH_O, "text.normalize.dates_zh."},
    {"mostly_cjk", py_mostly_cjk, METH_O, "More CJK characters than ASCII letters."},
    {"phrases", py_phrases, METH_VARARGS, "text.normalize.regional_phrases' reading of a phrase table."},
    {"words", py_words, METH_VARARGS, "text.normalize.spellings' reading of a word table."},
    {"contractions", py_contractions, METH_O, "text.normalize.contractions' reading at the apostrophes."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fp_c",
                                    "Fingerprint and signature kernels in C.", -1, methods};

PyMODINIT_FUNC PyInit__fp_c(void) {
    static const uint64_t units[8] = {0x5468, 0x5E74, 0x6708, 0x65E5, 0x53F7, 0x5C4A, 0x6B21, 0x671F};
    for (int i = 0; i < 8; i++) OCCASION[i] = smix(units[i] + SP);
    for (int v = 0; v < 256; v++)
        for (int i = 0; i < 8; i++) EXPAND[v][i] = ((v >> i) & 1) ? ~0ULL : 0;
    for (int i = 0; i < N_CALENDAR; i++) {
        uint64_t h = FNV0;
        for (const char *c = CALENDAR_WORDS[i]; *c; c++) h = (h ^ (uint64_t)(unsigned char)*c) * FNV;
        CALENDAR[i] = smix(h);
    }
    DI = smix(0x7B2CULL + SP);
    SHI = smix(0x65F6ULL + SP); /* 时 */
    GE = smix(0x4E2AULL + SP);  /* 个 */
    nad_init();
    en_init();
    zd_init();
    return PyModule_Create(&module);
}
