/* The Hamming index kernels in C: the same algorithms as the numba kernels of _kernels_nb.py,
 * residual.py, build.py and _codec_nb.py, with the same arguments (tuples of arrays where those take
 * tuples) and the same results (tested against them on random inputs, tests/unit/index). Built by pip
 * at install; without a C compiler the numba kernels run (neardup.index.kernels chooses).
 *
 * Arrays come through the buffer protocol (C-contiguous; integer dtypes as the Python side makes
 * them: fingerprints uint64, hi uint32, lo uint16/uint32, offsets and ids int32/int64, dead uint8,
 * result arrays int64). Kernels that report results write into caller-allocated arrays (a tuple, the
 * last argument) and return how many results they found, as the numba ones do; kernels that return an
 * array in numba take it as an extra last argument here. Every loop runs without the GIL.
 *
 * The hot kernels are compiled twice on x86-64 Linux with GCC (for x86-64-v3 and for the baseline),
 * the loader picking the one the CPU runs: the 16-entry filter of the query scan then uses AVX2 and
 * POPCNT where the CPU has them.
 *
 * The batch query visits queries and candidates in a more cache-friendly order than its numba twin
 * (coarser sort keys, candidates sorted by directory bucket and carrying their query): the same
 * matches, reported in another order, which is not part of a query kernel's contract.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && __GNUC__ >= 11
#define HOT __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define HOT
#endif

#if defined(__GNUC__) && defined(__x86_64__)
#define HAVE_AVX2_PATH 1
#include <immintrin.h>
#else
#define HAVE_AVX2_PATH 0
#endif

#define RADIX_BITS 16
#define SMALL (1 << 12)
#define MAXBUF 40

/* ---------------------------------------------------------------------------------------------- */
/* arrays                                                                                          */

typedef struct {
    Py_buffer v[MAXBUF];
    int n;
} Held;

static void release(Held *h) {
    for (int i = 0; i < h->n; i++) PyBuffer_Release(&h->v[i]);
    h->n = 0;
}

/* code: 8 * itemsize + signed (1-byte unsigned = 8, int64 = 65, ...) */
typedef struct {
    char *p;
    Py_ssize_t len;  /* elements */
    Py_ssize_t rows; /* product of all but the last dimension (1 for 1-D) */
    Py_ssize_t cols; /* the last dimension */
    int code;
} Arr;

enum { U8 = 8, I8 = 9, U16 = 16, I16 = 17, U32 = 32, I32 = 33, U64 = 64, I64 = 65 };

static int get_arr(Held *h, PyObject *o, Arr *a, int writable, const char *name) {
    if (h->n >= MAXBUF) {
        PyErr_SetString(PyExc_RuntimeError, "too many arrays");
        return -1;
    }
    Py_buffer *v = &h->v[h->n];
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(o, v, flags) < 0) {
        PyErr_Format(PyExc_TypeError, "%s must be a %sC-contiguous integer array", name,
                     writable ? "writable " : "");
        return -1;
    }
    h->n++;
    const char *f = v->format ? v->format : "B";
    while (*f == '@' || *f == '=' || *f == '<') f++;
    char c = *f;
    int sgn;
    if (strchr("bhilqn", c) && c)
        sgn = 1;
    else if (strchr("BHILQN?", c) && c)
        sgn = 0;
    else {
        PyErr_Format(PyExc_TypeError, "%s must be an integer array, got format %s", name, v->format);
        return -1;
    }
    if (f[1] != 0 || !(v->itemsize == 1 || v->itemsize == 2 || v->itemsize == 4 || v->itemsize == 8)) {
        PyErr_Format(PyExc_TypeError, "%s: unsupported format %s", name, v->format);
        return -1;
    }
    a->p = (char *)v->buf;
    a->len = v->len / v->itemsize;
    a->code = (int)(8 * v->itemsize + sgn);
    if (v->ndim >= 1) {
        a->cols = v->shape[v->ndim - 1];
        a->rows = 1;
        for (int d = 0; d < v->ndim - 1; d++) a->rows *= v->shape[d];
    } else {
        a->cols = 1;
        a->rows = 1;
    }
    return 0;
}

/* an array of exactly one element type ("want": a code, or -8 for either signedness of 8 bytes) */
static int need(const Arr *a, int code, const char *name) {
    if (a->code == code) return 0;
    if (code == U64 && a->code == I64) return 0; /* int64 read as uint64 (two's complement) */
    if (code == U8 && a->code == I8) return 0;
    if (code == I64 && a->code == U64) return 0;
    PyErr_Format(PyExc_TypeError, "%s has the wrong dtype (code %d, expected %d)", name, a->code, code);
    return -1;
}

static int need_int(const Arr *a, const char *name) {
    if (a->code == I32 || a->code == I64 || a->code == U32 || a->code == U64 || a->code == U16 ||
        a->code == I16 || a->code == U8 || a->code == I8)
        return 0;
    PyErr_Format(PyExc_TypeError, "%s: unsupported dtype", name);
    return -1;
}

static inline int64_t ld(const Arr *a, int64_t i) {
    switch (a->code) {
    case U8: return ((const uint8_t *)a->p)[i];
    case I8: return ((const int8_t *)a->p)[i];
    case U16: return ((const uint16_t *)a->p)[i];
    case I16: return ((const int16_t *)a->p)[i];
    case U32: return ((const uint32_t *)a->p)[i];
    case I32: return ((const int32_t *)a->p)[i];
    default: return ((const int64_t *)a->p)[i];
    }
}

static inline void st(const Arr *a, int64_t i, int64_t x) {
    switch (a->code) {
    case U8: ((uint8_t *)a->p)[i] = (uint8_t)x; break;
    case I8: ((int8_t *)a->p)[i] = (int8_t)x; break;
    case U16: ((uint16_t *)a->p)[i] = (uint16_t)x; break;
    case I16: ((int16_t *)a->p)[i] = (int16_t)x; break;
    case U32: ((uint32_t *)a->p)[i] = (uint32_t)x; break;
    case I32: ((int32_t *)a->p)[i] = (int32_t)x; break;
    default: ((int64_t *)a->p)[i] = x; break;
    }
}

/* ---------------------------------------------------------------------------------------------- */
/* bits                                                                                            */

static inline uint64_t popcount64(uint64_t x) { return (uint64_t)__builtin_popcountll(x); }

typedef struct {
    const int64_t *src, *dst;
    const uint64_t *msk;
    int64_t nb; /* blocks per table */
} Perm;

/* move each block of x from shift a[t, j] to shift b[t, j] (a = src, b = dst: forward) */
static inline uint64_t permute(uint64_t x, const int64_t *a, const int64_t *b, const uint64_t *msk, int64_t nb,
                               int64_t t) {
    uint64_t out = 0;
    const int64_t o = t * nb;
    for (int64_t j = 0; j < nb; j++) out |= ((x >> a[o + j]) & msk[o + j]) << b[o + j];
    return out;
}
#define FWD(P, x, t) permute((x), (P)->src, (P)->dst, (P)->msk, (P)->nb, (t))
#define INV(P, x, t) permute((x), (P)->dst, (P)->src, (P)->msk, (P)->nb, (t))

typedef struct {
    const int64_t *bsrc;
    const uint64_t *bmask;
    const int16_t *first;
    int64_t nblocks;
} Blocks;

static inline int64_t equal_blocks(uint64_t x, const Blocks *B) {
    int64_t eq = 0;
    for (int64_t i = 0; i < B->nblocks; i++)
        if (((x >> B->bsrc[i]) & B->bmask[i]) == 0) eq |= (int64_t)1 << i;
    return eq;
}

typedef struct {
    int64_t *a, *b, *d;
    int64_t cap;
} Outs;

static inline int64_t emit(const Outs *o, int64_t n, int64_t a, int64_t b, int64_t d) {
    if (n < o->cap) {
        o->a[n] = a;
        o->b[n] = b;
        o->d[n] = d;
    }
    return n + 1;
}

static int parse_perm(Held *h, PyObject *src, PyObject *dst, PyObject *msk, Perm *P) {
    Arr s, d, m;
    if (get_arr(h, src, &s, 0, "perm src") < 0 || need(&s, I64, "perm src") < 0) return -1;
    if (get_arr(h, dst, &d, 0, "perm dst") < 0 || need(&d, I64, "perm dst") < 0) return -1;
    if (get_arr(h, msk, &m, 0, "perm msk") < 0 || need(&m, U64, "perm msk") < 0) return -1;
    if (s.len != d.len || s.len != m.len || s.cols != d.cols) {
        PyErr_SetString(PyExc_ValueError, "perm arrays differ in shape");
        return -1;
    }
    P->src = (const int64_t *)s.p;
    P->dst = (const int64_t *)d.p;
    P->msk = (const uint64_t *)m.p;
    P->nb = s.cols;
    return 0;
}

static int parse_blocks(Held *h, PyObject *bsrc, PyObject *bmask, PyObject *first, Blocks *B) {
    Arr s, m, f;
    if (get_arr(h, bsrc, &s, 0, "bsrc") < 0 || need(&s, I64, "bsrc") < 0) return -1;
    if (get_arr(h, bmask, &m, 0, "bmask") < 0 || need(&m, U64, "bmask") < 0) return -1;
    if (get_arr(h, first, &f, 0, "first") < 0 || need(&f, I16, "first") < 0) return -1;
    if (s.len != m.len || f.len < ((Py_ssize_t)1 << s.len)) {
        PyErr_SetString(PyExc_ValueError, "blocks arrays differ in shape");
        return -1;
    }
    B->bsrc = (const int64_t *)s.p;
    B->bmask = (const uint64_t *)m.p;
    B->first = (const int16_t *)f.p;
    B->nblocks = s.len;
    return 0;
}

static int parse_outs(Held *h, PyObject *oa, PyObject *ob, PyObject *od, Outs *O) {
    Arr a, b, d;
    if (get_arr(h, oa, &a, 1, "outs[0]") < 0 || need(&a, I64, "outs[0]") < 0) return -1;
    if (get_arr(h, ob, &b, 1, "outs[1]") < 0 || need(&b, I64, "outs[1]") < 0) return -1;
    if (get_arr(h, od, &d, 1, "outs[2]") < 0 || need(&d, I64, "outs[2]") < 0) return -1;
    O->a = (int64_t *)a.p;
    O->b = (int64_t *)b.p;
    O->d = (int64_t *)d.p;
    O->cap = a.len < b.len ? a.len : b.len;
    if (d.len < O->cap) O->cap = d.len;
    return 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* sorts                                                                                           */

#define DEFINE_SORT(NAME, T)                                                                           \
    static void NAME##_heap(T *v, int64_t n) {                                                         \
        for (int64_t s = n / 2 - 1; s >= 0; s--) {                                                     \
            int64_t r = s;                                                                             \
            for (;;) {                                                                                 \
                int64_t c = 2 * r + 1;                                                                 \
                if (c >= n) break;                                                                     \
                if (c + 1 < n && v[c] < v[c + 1]) c++;                                                 \
                if (!(v[r] < v[c])) break;                                                             \
                T t = v[r]; v[r] = v[c]; v[c] = t; r = c;                                              \
            }                                                                                          \
        }                                                                                              \
        for (int64_t e = n - 1; e > 0; e--) {                                                          \
            T t = v[0]; v[0] = v[e]; v[e] = t;                                                         \
            int64_t r = 0;                                                                             \
            for (;;) {                                                                                 \
                int64_t c = 2 * r + 1;                                                                 \
                if (c >= e) break;                                                                     \
                if (c + 1 < e && v[c] < v[c + 1]) c++;                                                 \
                if (!(v[r] < v[c])) break;                                                             \
                T u = v[r]; v[r] = v[c]; v[c] = u; r = c;                                              \
            }                                                                                          \
        }                                                                                              \
    }                                                                                                  \
    static void NAME##_intro(T *v, int64_t n, int depth) {                                             \
        while (n > 16) {                                                                               \
            if (depth-- == 0) {                                                                        \
                NAME##_heap(v, n);                                                                     \
                return;                                                                                \
            }                                                                                          \
            int64_t md = n / 2;                                                                        \
            if (v[md] < v[0]) { T t = v[md]; v[md] = v[0]; v[0] = t; }                                 \
            if (v[n - 1] < v[md]) {                                                                    \
                T t = v[n - 1]; v[n - 1] = v[md]; v[md] = t;                                           \
                if (v[md] < v[0]) { T u = v[md]; v[md] = v[0]; v[0] = u; }                             \
            }                                                                                          \
            T p = v[md];                                                                               \
            int64_t i = -1, j = n;                                                                     \
            for (;;) {                                                                                 \
                do i++; while (v[i] < p);                                                              \
                do j--; while (p < v[j]);                                                              \
                if (i >= j) break;                                                                     \
                T t = v[i]; v[i] = v[j]; v[j] = t;                                                     \
            }                                                                                          \
            /* [0, j] <= p <= [j + 1, n) */                                                            \
            if (j + 1 < n - j - 1) {                                                                   \
                NAME##_intro(v, j + 1, depth);                                                         \
                v += j + 1;                                                                            \
                n -= j + 1;                                                                            \
            } else {                                                                                   \
                NAME##_intro(v + j + 1, n - j - 1, depth);                                             \
                n = j + 1;                                                                             \
            }                                                                                          \
        }                                                                                              \
        for (int64_t x = 1; x < n; x++) {                                                              \
            T y = v[x];                                                                                \
            int64_t z = x;                                                                             \
            while (z > 0 && v[z - 1] > y) {                                                            \
                v[z] = v[z - 1];                                                                       \
                z--;                                                                                   \
            }                                                                                          \
            v[z] = y;                                                                                  \
        }                                                                                              \
    }                                                                                                  \
    static void NAME(T *v, int64_t n) {                                                                \
        int depth = 0;                                                                                 \
        for (int64_t m = n; m > 1; m >>= 1) depth += 2;                                                \
        NAME##_intro(v, n, depth);                                                                     \
    }

DEFINE_SORT(sort_u64, uint64_t)
DEFINE_SORT(sort_u32, uint32_t)

/* sort v[a:e] in place: insertion sort for a short run, else the introsort */
static void sort_run(uint64_t *v, int64_t a, int64_t e) {
    if (e - a > 16) {
        sort_u64(v + a, e - a);
        return;
    }
    for (int64_t x = a + 1; x < e; x++) {
        uint64_t y = v[x];
        int64_t z = x;
        while (z > a && v[z - 1] > y) {
            v[z] = v[z - 1];
            z--;
        }
        v[z] = y;
    }
}

/* stable merge sort of idx[0:n] by key(i) (uint64, then nothing: equal keys keep their order) */
typedef struct {
    const uint64_t *k1; /* primary key per index */
    const int64_t *k2;  /* secondary key per index, or NULL */
} Keys;

static inline int key_less(const Keys *K, int64_t x, int64_t y) {
    if (K->k1[x] != K->k1[y]) return K->k1[x] < K->k1[y];
    if (K->k2 != NULL) return K->k2[x] < K->k2[y];
    return 0;
}

static void merge_sort_idx(int64_t *idx, int64_t *tmp, int64_t n, const Keys *K) {
    if (n <= 24) {
        for (int64_t x = 1; x < n; x++) {
            int64_t y = idx[x];
            int64_t z = x;
            while (z > 0 && key_less(K, y, idx[z - 1])) {
                idx[z] = idx[z - 1];
                z--;
            }
            idx[z] = y;
        }
        return;
    }
    int64_t h = n / 2;
    merge_sort_idx(idx, tmp, h, K);
    merge_sort_idx(idx + h, tmp, n - h, K);
    if (!key_less(K, idx[h], idx[h - 1])) return;
    memcpy(tmp, idx, (size_t)h * sizeof(int64_t));
    int64_t i = 0, j = h, o = 0;
    while (i < h && j < n) {
        if (key_less(K, idx[j], tmp[i]))
            idx[o++] = idx[j++];
        else
            idx[o++] = tmp[i++];
    }
    while (i < h) idx[o++] = tmp[i++];
}

/* ---------------------------------------------------------------------------------------------- */
/* kernels.py                                                                                      */

/* query_brute(qfps, k, fps, outs) -> n */
static PyObject *py_query_brute(PyObject *self, PyObject *args) {
    PyObject *qo, *fo, *oa, *ob, *od;
    long long k;
    if (!PyArg_ParseTuple(args, "OLO(OOO)", &qo, &k, &fo, &oa, &ob, &od)) return NULL;
    Held h = {.n = 0};
    Arr q, f;
    Outs O;
    if (get_arr(&h, qo, &q, 0, "qfps") < 0 || need(&q, U64, "qfps") < 0 || get_arr(&h, fo, &f, 0, "fps") < 0 ||
        need(&f, U64, "fps") < 0 || parse_outs(&h, oa, ob, od, &O) < 0) {
        release(&h);
        return NULL;
    }
    int64_t n = 0;
    const uint64_t *qp = (const uint64_t *)q.p, *fp = (const uint64_t *)f.p;
    uint64_t kk = (uint64_t)k;
    Py_BEGIN_ALLOW_THREADS;
    for (int64_t qi = 0; qi < q.len; qi++) {
        uint64_t x = qp[qi];
        for (int64_t r = 0; r < f.len; r++) {
            uint64_t d = popcount64(fp[r] ^ x);
            if (d <= kk) n = emit(&O, n, qi, r, (int64_t)d);
        }
    }
    Py_END_ALLOW_THREADS;
    release(&h);
    return PyLong_FromLongLong(n);
}

/* prefix_offsets(vals, shift, nbuckets, out) */
static PyObject *py_prefix_offsets(PyObject *self, PyObject *args) {
    PyObject *vo, *oo;
    long long shift, nbuckets;
    if (!PyArg_ParseTuple(args, "OLLO", &vo, &shift, &nbuckets, &oo)) return NULL;
    Held h = {.n = 0};
    Arr v, o;
    if (get_arr(&h, vo, &v, 0, "vals") < 0 || need(&v, U64, "vals") < 0 || get_arr(&h, oo, &o, 1, "out") < 0 ||
        need(&o, I64, "out") < 0) {
        release(&h);
        return NULL;
    }
    if (o.len < nbuckets + 1) {
        release(&h);
        return PyErr_Format(PyExc_ValueError, "out holds %zd, needs %lld", o.len, nbuckets + 1);
    }
    const uint64_t *vp = (const uint64_t *)v.p;
    int64_t *off = (int64_t *)o.p;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS;
    memset(off, 0, (size_t)(nbuckets + 1) * sizeof(int64_t));
    for (int64_t i = 0; i < v.len; i++) {
        uint64_t b = vp[i] >> shift;
        if ((int64_t)b >= nbuckets) {
            bad = 1;
            break;
        }
        off[b + 1]++;
    }
    for (int64_t b = 0; b < nbuckets; b++) off[b + 1] += off[b];
    Py_END_ALLOW_THREADS;
    release(&h);
    if (bad) return PyErr_Format(PyExc_ValueError, "a value's prefix is beyond nbuckets");
    Py_RETURN_NONE;
}

static inline int64_t master_row(const uint64_t *tab0, const int64_t *off0, uint64_t v, int64_t pshift) {
    int64_t pre = (int64_t)(v >> pshift);
    int64_t a = off0[pre], b = off0[pre + 1];
    while (a < b) {
        int64_t mid = (a + b) >> 1;
        if (tab0[mid] < v)
            a = mid + 1;
        else
            b = mid;
    }
    return a;
}

HOT static int64_t self_join_impl(int64_t k, const uint64_t *tab, int64_t T, int64_t N, const int64_t *keybits,
                                  int64_t bits, int64_t pbits, const int64_t *off0, const Perm *P, const Blocks *B,
                                  const uint8_t *dead, int has_dead, const Outs *O) {
    int64_t pshift = bits - pbits;
    int64_t n = 0;
    int64_t i = 0;
    while (i < N) {
        int64_t j = i + 1;
        while (j < N && tab[j] == tab[i]) j++;
        for (int64_t a = i; a < j; a++) {
            if (has_dead && dead[a]) continue;
            for (int64_t b = a + 1; b < j; b++) {
                if (has_dead && dead[b]) continue;
                n = emit(O, n, a, b, 0);
            }
        }
        i = j;
    }
    if (k == 0) return n;
    uint64_t kk = (uint64_t)k;
    for (int64_t t = 0; t < T; t++) {
        const uint64_t *row = tab + t * N;
        int64_t s = bits - keybits[t];
        int64_t g0 = 0;
        while (g0 < N) {
            uint64_t key = row[g0] >> s;
            int64_t g1 = g0 + 1;
            while (g1 < N && (row[g1] >> s) == key) g1++;
            if (g1 - g0 > 1) {
                i = g0;
                while (i < g1) {
                    uint64_t v = row[i];
                    int64_t ie = i + 1;
                    while (ie < g1 && row[ie] == v) ie++;
                    for (int64_t j = ie; j < g1; j++) {
                        uint64_t w = row[j];
                        uint64_t d = popcount64(v ^ w);
                        if (d > kk || d == 0) continue;
                        if (row[j - 1] == w && j > ie) continue;
                        uint64_t ov = t > 0 ? INV(P, v, t) : v;
                        uint64_t ow = t > 0 ? INV(P, w, t) : w;
                        if (B->first[equal_blocks(ov ^ ow, B)] != t) continue;
                        int64_t je = j + 1;
                        while (je < g1 && row[je] == w) je++;
                        int64_t ra = t == 0 ? i : master_row(tab, off0, ov, pshift);
                        int64_t rb = t == 0 ? j : master_row(tab, off0, ow, pshift);
                        for (int64_t a = ra; a < ra + (ie - i); a++) {
                            if (has_dead && dead[a]) continue;
                            for (int64_t b = rb; b < rb + (je - j); b++) {
                                if (has_dead && dead[b]) continue;
                                n = emit(O, n, a, b, (int64_t)d);
                            }
                        }
                    }
                    i = ie;
                }
            }
            g0 = g1;
        }
    }
    return n;
}

/* self_join_tables(k, tab, keybits, bits, pbits, off, perm, blocks, dead, outs) -> n */
static PyObject *py_self_join_tables(PyObject *self, PyObject *args) {
    long long k, bits, pbits;
    PyObject *tabo, *kbo, *offo, *s, *d, *m, *bs, *bm, *fi, *deado, *oa, *ob, *od;
    if (!PyArg_ParseTuple(args, "LOOLLO(OOO)(OOO)O(OOO)", &k, &tabo, &kbo, &bits, &pbits, &offo, &s, &d, &m, &bs,
                          &bm, &fi, &deado, &oa, &ob, &od))
        return NULL;
    Held h = {.n = 0};
    Arr tab, kb, off, dead;
    Perm P;
    Blocks B;
    Outs O;
    if (get_arr(&h, tabo, &tab, 0, "tab") < 0 || need(&tab, U64, "tab") < 0 || get_arr(&h, kbo, &kb, 0, "keybits") < 0 ||
        need(&kb, I64, "keybits") < 0 || get_arr(&h, offo, &off, 0, "off") < 0 || need(&off, I64, "off") < 0 ||
        parse_perm(&h, s, d, m, &P) < 0 || parse_blocks(&h, bs, bm, fi, &B) < 0 ||
        get_arr(&h, deado, &dead, 0, "dead") < 0 || need(&dead, U8, "dead") < 0 || parse_outs(&h, oa, ob, od, &O) < 0) {
        release(&h);
        return NULL;
    }
    int64_t T = tab.rows, N = tab.cols;
    if (kb.len < T || (dead.len > 0 && dead.len < N) || off.cols != ((Py_ssize_t)1 << pbits) + 1) {
        release(&h);
        return PyErr_Format(PyExc_ValueError, "self_join_tables: shapes disagree");
    }
    int64_t n;
    Py_BEGIN_ALLOW_THREADS;
    n = self_join_impl(k, (const uint64_t *)tab.p, T, N, (const int64_t *)kb.p, bits, pbits, (const int64_t *)off.p,
                       &P, &B, (const uint8_t *)dead.p, dead.len > 0, &O);
    Py_END_ALLOW_THREADS;
    release(&h);
    return PyLong_FromLongLong(n);
}

/* union_find_labels(n, a, b, out): out[i] = smallest row of i's component */
static PyObject *py_union_find(PyObject *self, PyObject *args) {
    long long n;
    PyObject *ao, *bo, *oo;
    if (!PyArg_ParseTuple(args, "LOOO", &n, &ao, &bo, &oo)) return NULL;
    Held h = {.n = 0};
    Arr a, b, o;
    if (get_arr(&h, ao, &a, 0, "a") < 0 || need(&a, I64, "a") < 0 || get_arr(&h, bo, &b, 0, "b") < 0 ||
        need(&b, I64, "b") < 0 || get_arr(&h, oo, &o, 1, "out") < 0 || need(&o, I64, "out") < 0) {
        release(&h);
        return NULL;
    }
    if (o.len < n || b.len < a.len) {
        release(&h);
        return PyErr_Format(PyExc_ValueError, "union_find_labels: out holds %zd, needs %lld", o.len, n);
    }
    const int64_t *A = (const int64_t *)a.p, *Bp = (const int64_t *)b.p;
    int64_t *parent = (int64_t *)o.p;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS;
    for (int64_t e = 0; e < a.len; e++)
        if (A[e] < 0 || A[e] >= n || Bp[e] < 0 || Bp[e] >= n) {
            bad = 1;
            break;
        }
    if (!bad) {
        for (int64_t i = 0; i < n; i++) parent[i] = i;
        for (int64_t e = 0; e < a.len; e++) {
            int64_t x = A[e];
            while (parent[x] != x) {
                parent[x] = parent[parent[x]];
                x = parent[x];
            }
            int64_t y = Bp[e];
            while (parent[y] != y) {
                parent[y] = parent[parent[y]];
                y = parent[y];
            }
            if (x < y)
                parent[y] = x;
            else if (y < x)
                parent[x] = y;
        }
        for (int64_t i = 0; i < n; i++) {
            int64_t x = i;
            while (parent[x] != x) x = parent[x];
            parent[i] = x;
        }
    }
    Py_END_ALLOW_THREADS;
    release(&h);
    if (bad) return PyErr_Format(PyExc_IndexError, "union_find_labels: a node is outside 0..%lld", n - 1);
    Py_RETURN_NONE;
}

/* star_labels(n, a, b, order, out): star clustering (clusters.py) */
static PyObject *py_star_labels(PyObject *self, PyObject *args) {
    long long n;
    PyObject *ao, *bo, *oro, *oo;
    if (!PyArg_ParseTuple(args, "LOOOO", &n, &ao, &bo, &oro, &oo)) return NULL;
    Held h = {.n = 0};
    Arr a, b, ord, o;
    if (get_arr(&h, ao, &a, 0, "a") < 0 || need(&a, I64, "a") < 0 || get_arr(&h, bo, &b, 0, "b") < 0 ||
        need(&b, I64, "b") < 0 || get_arr(&h, oro, &ord, 0, "order") < 0 || need(&ord, I64, "order") < 0 ||
        get_arr(&h, oo, &o, 1, "out") < 0 || need(&o, I64, "out") < 0) {
        release(&h);
        return NULL;
    }
    const int64_t *A = (const int64_t *)a.p, *Bp = (const int64_t *)b.p, *O = (const int64_t *)ord.p;
    int64_t *label = (int64_t *)o.p;
    int bad = o.len < n || b.len < a.len;
    for (int64_t e = 0; !bad && e < a.len; e++) bad = A[e] < 0 || A[e] >= n || Bp[e] < 0 || Bp[e] >= n;
    for (int64_t e = 0; !bad && e < ord.len; e++) bad = O[e] < 0 || O[e] >= n;
    if (bad) {
        release(&h);
        return PyErr_Format(PyExc_ValueError, "star_labels: a node is outside 0..%lld", n - 1);
    }
    int64_t *deg = (int64_t *)calloc((size_t)n + 1, sizeof(int64_t));
    int64_t *adj = (int64_t *)malloc(((size_t)a.len * 2 + 1) * sizeof(int64_t));
    int64_t *pos = (int64_t *)malloc(((size_t)n + 1) * sizeof(int64_t));
    if (!deg || !adj || !pos) {
        free(deg);
        free(adj);
        free(pos);
        release(&h);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS;
    for (int64_t e = 0; e < a.len; e++) {
        deg[A[e] + 1]++;
        deg[Bp[e] + 1]++;
    }
    for (int64_t i = 0; i < n; i++) deg[i + 1] += deg[i];
    memcpy(pos, deg, (size_t)n * sizeof(int64_t));
    for (int64_t e = 0; e < a.len; e++) {
        adj[pos[A[e]]++] = Bp[e];
        adj[pos[Bp[e]]++] = A[e];
    }
    for (int64_t i = 0; i < n; i++) label[i] = -1;
    for (int64_t x = 0; x < ord.len; x++) {
        int64_t c = O[x];
        if (label[c] >= 0) continue;
        label[c] = c;
        for (int64_t p = deg[c]; p < deg[c + 1]; p++)
            if (label[adj[p]] < 0) label[adj[p]] = c;
    }
    Py_END_ALLOW_THREADS;
    free(deg);
    free(adj);
    free(pos);
    release(&h);
    Py_RETURN_NONE;
}

/* the runs of f whose values agree above shift, each sorted stably (ids follow) */
static int fix_runs(uint64_t *f, const Arr *ids, int64_t n, int64_t shift) {
    int64_t i = 0;
    while (i < n) {
        int64_t j = i + 1;
        uint64_t top = f[i] >> shift;
        while (j < n && (f[j] >> shift) == top) j++;
        if (j - i > 1) {
            int ok = 1;
            for (int64_t r = i + 1; r < j; r++)
                if (f[r] < f[r - 1]) {
                    ok = 0;
                    break;
                }
            if (!ok) {
                int64_t m = j - i;
                int64_t *idx = (int64_t *)malloc((size_t)m * 3 * sizeof(int64_t));
                uint64_t *fv = (uint64_t *)malloc((size_t)m * sizeof(uint64_t));
                if (!idx || !fv) {
                    free(idx);
                    free(fv);
                    return -1;
                }
                int64_t *tmp = idx + m, *iv = idx + 2 * m;
                for (int64_t r = 0; r < m; r++) {
                    idx[r] = r;
                    fv[r] = f[i + r];
                    iv[r] = ld(ids, i + r);
                }
                Keys K = {fv, NULL};
                merge_sort_idx(idx, tmp, m, &K);
                for (int64_t r = 0; r < m; r++) {
                    f[i + r] = fv[idx[r]];
                    st(ids, i + r, iv[idx[r]]);
                }
                free(idx);
                free(fv);
            }
        }
        i = j;
    }
    return 0;
}

static int permute_sorted_impl(const uint64_t *fps, int64_t n, const Perm *P, int64_t t, int64_t sbits, int64_t bits,
                               uint64_t *out) {
    int64_t rs = bits - sbits;
    int64_t nbk = (int64_t)1 << sbits;
    int64_t *start = (int64_t *)calloc((size_t)nbk + 1, sizeof(int64_t));
    int64_t *cur = (int64_t *)malloc((size_t)nbk * sizeof(int64_t));
    if (!start || !cur) {
        free(start);
        free(cur);
        return -1;
    }
    for (int64_t i = 0; i < n; i++) {
        uint64_t p = t > 0 ? FWD(P, fps[i], t) : fps[i];
        start[(p >> rs) + 1]++;
    }
    for (int64_t b = 0; b < nbk; b++) start[b + 1] += start[b];
    memcpy(cur, start, (size_t)nbk * sizeof(int64_t));
    for (int64_t i = 0; i < n; i++) {
        uint64_t p = t > 0 ? FWD(P, fps[i], t) : fps[i];
        out[cur[p >> rs]++] = p;
    }
    for (int64_t b = 0; b < nbk; b++) sort_run(out, start[b], start[b + 1]);
    free(start);
    free(cur);
    return 0;
}

/* permute_sorted(fps, perm, t, sbits, bits, out) */
static PyObject *py_permute_sorted(PyObject *self, PyObject *args) {
    PyObject *fo, *s, *d, *m, *oo;
    long long t, sbits, bits;
    if (!PyArg_ParseTuple(args, "O(OOO)LLLO", &fo, &s, &d, &m, &t, &sbits, &bits, &oo)) return NULL;
    Held h = {.n = 0};
    Arr f, o;
    Perm P;
    if (get_arr(&h, fo, &f, 0, "fps") < 0 || need(&f, U64, "fps") < 0 || parse_perm(&h, s, d, m, &P) < 0 ||
        get_arr(&h, oo, &o, 1, "out") < 0 || need(&o, U64, "out") < 0) {
        release(&h);
        return NULL;
    }
    if (o.len < f.len || sbits < 1 || sbits > 30) {
        release(&h);
        return PyErr_Format(PyExc_ValueError, "permute_sorted: bad out length or sbits");
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS;
    rc = permute_sorted_impl((const uint64_t *)f.p, f.len, &P, t, sbits, bits, (uint64_t *)o.p);
    Py_END_ALLOW_THREADS;
    release(&h);
    if (rc < 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static int sorted_with_ids_impl(const uint64_t *fps, const Arr *ids, int64_t n, int64_t sbits, int64_t bits,
                                uint64_t *out, const Arr *out_ids) {
    int64_t nb = 1;
    while (((int64_t)1 << nb) < n) nb++;
    int64_t rs = bits - sbits;
    int64_t ps = 64 - bits + sbits;
    int64_t nbk = (int64_t)1 << sbits;
    int64_t *start = (int64_t *)calloc((size_t)nbk + 1, sizeof(int64_t));
    int64_t *cur = (int64_t *)malloc((size_t)nbk * sizeof(int64_t));
    uint64_t *vals = (uint64_t *)malloc(((size_t)n + 1) * sizeof(uint64_t));
    int64_t *moved = NULL;
    int64_t mcap = 0;
    int rc = -1;
    if (!start || !cur || !vals) goto done;
    for (int64_t i = 0; i < n; i++) start[(fps[i] >> rs) + 1]++;
    for (int64_t b = 0; b < nbk; b++) start[b + 1] += start[b];
    memcpy(cur, start, (size_t)nbk * sizeof(int64_t));
    uint64_t keep = ~((((uint64_t)1) << nb) - 1);
    for (int64_t i = 0; i < n; i++) {
        int64_t b = (int64_t)(fps[i] >> rs);
        int64_t j = cur[b];
        vals[j] = fps[i];
        st(out_ids, j, ld(ids, i));
        out[j] = ((fps[i] << ps) & keep) | (uint64_t)(j - start[b]);
        cur[b]++;
    }
    uint64_t row_mask = ~keep;
    for (int64_t b = 0; b < nbk; b++) {
        int64_t a = start[b], e = start[b + 1];
        sort_run(out, a, e);
        if (e - a > mcap) {
            free(moved);
            mcap = e - a;
            moved = (int64_t *)malloc((size_t)mcap * sizeof(int64_t));
            if (!moved) goto done;
        }
        for (int64_t j = a; j < e; j++) moved[j - a] = ld(out_ids, j);
        for (int64_t j = a; j < e; j++) {
            int64_t r = a + (int64_t)(out[j] & row_mask);
            out[j] = vals[r];
            st(out_ids, j, moved[r - a]);
        }
    }
    int64_t sh = nb - ps;
    if (fix_runs(out, out_ids, n, sh > 0 ? sh : 0) < 0) goto done;
    rc = 0;
done:
    free(start);
    free(cur);
    free(vals);
    free(moved);
    return rc;
}

/* sorted_with_ids(fps, ids, sbits, bits, out, out_ids) */
static PyObject *py_sorted_with_ids(PyObject *self, PyObject *args) {
    PyObject *fo, *io, *oo, *oio;
    long long sbits, bits;
    if (!PyArg_ParseTuple(args, "OOLLOO", &fo, &io, &sbits, &bits, &oo, &oio)) return NULL;
    Held h = {.n = 0};
    Arr f, ids, o, oi;
    if (get_arr(&h, fo, &f, 0, "fps") < 0 || need(&f, U64, "fps") < 0 || get_arr(&h, io, &ids, 0, "ids") < 0 ||
        need_int(&ids, "ids") < 0 || get_arr(&h, oo, &o, 1, "out") < 0 || need(&o, U64, "out") < 0 ||
        get_arr(&h, oio, &oi, 1, "out_ids") < 0 || need_int(&oi, "out_ids") < 0) {
        release(&h);
        return NULL;
    }
    if (o.len < f.len || oi.len < f.len || ids.len < f.len || sbits < 1 || sbits > 30) {
        release(&h);
        return PyErr_Format(PyExc_ValueError, "sorted_with_ids: bad lengths or sbits");
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS;
    rc = sorted_with_ids_impl((const uint64_t *)f.p, &ids, f.len, sbits, bits, (uint64_t *)o.p, &oi);
    Py_END_ALLOW_THREADS;
    release(&h);
    if (rc < 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* fix_runs(f, ids, shift) */
static PyObject *py_fix_runs(PyObject *self, PyObject *args) {
    PyObject *fo, *io;
    long long shift;
    if (!PyArg_ParseTuple(args, "OOL", &fo, &io, &shift)) return NULL;
    Held h = {.n = 0};
    Arr f, ids;
    if (get_arr(&h, fo, &f, 1, "f") < 0 || need(&f, U64, "f") < 0 || get_arr(&h, io, &ids, 1, "ids") < 0 ||
        need_int(&ids, "ids") < 0) {
        release(&h);
        return NULL;
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS;
    rc = fix_runs((uint64_t *)f.p, &ids, f.len, shift);
    Py_END_ALLOW_THREADS;
    release(&h);
    if (rc < 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* order_matches(qa, da, ia, nq, out): by query, then distance, then id (then position) */
static PyObject *py_order_matches(PyObject *self, PyObject *args) {
    PyObject *qo, *dao, *iao, *oo;
    long long nq;
    if (!PyArg_ParseTuple(args, "OOOLO", &qo, &dao, &iao, &nq, &oo)) return NULL;
    Held h = {.n = 0};
    Arr qa, da, ia, o;
    if (get_arr(&h, qo, &qa, 0, "qa") < 0 || need(&qa, I64, "qa") < 0 || get_arr(&h, dao, &da, 0, "da") < 0 ||
        need(&da, I64, "da") < 0 || get_arr(&h, iao, &ia, 0, "ia") < 0 || need(&ia, I64, "ia") < 0 ||
        get_arr(&h, oo, &o, 1, "out") < 0 || need(&o, I64, "out") < 0) {
        release(&h);
        return NULL;
    }
    int64_t m = qa.len;
    const int64_t *Q = (const int64_t *)qa.p, *D = (const int64_t *)da.p, *I = (const int64_t *)ia.p;
    int bad = o.len < m || da.len < m || ia.len < m;
    for (int64_t j = 0; !bad && j < m; j++) bad = Q[j] < 0 || Q[j] >= nq;
    if (bad) {
        release(&h);
        return PyErr_Format(PyExc_ValueError, "order_matches: lengths differ or a query is outside 0..%lld", nq - 1);
    }
    int64_t *out = (int64_t *)o.p;
    int64_t *cnt = (int64_t *)calloc((size_t)nq + 1, sizeof(int64_t));
    int64_t *tmp = (int64_t *)malloc(((size_t)(m > nq ? m : nq) + 1) * sizeof(int64_t));
    if (!cnt || !tmp) {
        free(cnt);
        free(tmp);
        release(&h);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS;
    for (int64_t j = 0; j < m; j++) cnt[Q[j] + 1]++;
    for (int64_t g = 0; g < nq; g++) cnt[g + 1] += cnt[g];
    memcpy(tmp, cnt, (size_t)nq * sizeof(int64_t)); /* pos */
    for (int64_t j = 0; j < m; j++) out[tmp[Q[j]]++] = j;
    Keys K = {(const uint64_t *)D, I}; /* distances are >= 0: compared as uint64 they keep their order */
    for (int64_t g = 0; g < nq; g++) {
        int64_t a = cnt[g], b = cnt[g + 1];
        if (b - a > 1) merge_sort_idx(out + a, tmp, b - a, &K);
    }
    Py_END_ALLOW_THREADS;
    free(cnt);
    free(tmp);
    release(&h);
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------------------------------------------- */
/* residual.py                                                                                     */

/* split_table(v, lobits, rbits, hi_row, lo_out, off_row) */
static void split_impl(const uint64_t *v, int64_t n, int64_t lobits, int64_t rbits, uint32_t *hi_row, const Arr *lo,
                       const Arr *off) {
    int64_t nb = off->len - 1;
    for (int64_t b = 0; b <= nb; b++) st(off, b, 0);
    uint64_t hmask = (((uint64_t)1) << (rbits - lobits)) - 1;
    uint64_t lmask = (((uint64_t)1) << lobits) - 1;
    int has_lo = lo->len > 0;
    if (off->code == I32) {
        int32_t *o = (int32_t *)off->p;
        for (int64_t i = 0; i < n; i++) o[(v[i] >> rbits) + 1]++;
    } else {
        for (int64_t i = 0; i < n; i++) {
            int64_t b = (int64_t)(v[i] >> rbits) + 1;
            st(off, b, ld(off, b) + 1);
        }
    }
    for (int64_t i = 0; i < n; i++) {
        uint64_t x = v[i];
        hi_row[i] = (uint32_t)((x >> lobits) & hmask);
        if (has_lo) st(lo, i, (int64_t)(x & lmask));
    }
    for (int64_t b = 0; b < nb; b++) st(off, b + 1, ld(off, b + 1) + ld(off, b));
}

static PyObject *py_split_table(PyObject *self, PyObject *args) {
    PyObject *vo, *ho, *loo, *oo;
    long long lobits, rbits;
    if (!PyArg_ParseTuple(args, "OLLOOO", &vo, &lobits, &rbits, &ho, &loo, &oo)) return NULL;
    Held h = {.n = 0};
    Arr v, hi, lo, off;
    if (get_arr(&h, vo, &v, 0, "v") < 0 || need(&v, U64, "v") < 0 || get_arr(&h, ho, &hi, 1, "hi_row") < 0 ||
        need(&hi, U32, "hi_row") < 0 || get_arr(&h, loo, &lo, 1, "lo_out") < 0 || need_int(&lo, "lo_out") < 0 ||
        get_arr(&h, oo, &off, 1, "off_row") < 0 || need_int(&off, "off_row") < 0) {
        release(&h);
        return NULL;
    }
    if (hi.len < v.len || (lo.len > 0 && lo.len < v.len) || off.len < 1) {
        release(&h);
        return PyErr_Format(PyExc_ValueError, "split_table: bad lengths");
    }
    const uint64_t *vp = (const uint64_t *)v.p;
    int bad = 0;
    for (int64_t i = 0; i < v.len && !bad; i++) bad = (int64_t)(vp[i] >> rbits) >= off.len - 1;
    if (bad) {
        release(&h);
        return PyErr_Format(PyExc_ValueError, "split_table: a value's prefix is beyond the directory");
    }
    Py_BEGIN_ALLOW_THREADS;
    split_impl(vp, v.len, lobits, rbits, (uint32_t *)hi.p, &lo, &off);
    Py_END_ALLOW_THREADS;
    release(&h);
    Py_RETURN_NONE;
}

/* join_table0(hi, lo, off, lobits, rbits, out) */
static PyObject *py_join_table0(PyObject *self, PyObject *args) {
    PyObject *ho, *loo, *oo, *outo;
    long long lobits, rbits;
    if (!PyArg_ParseTuple(args, "OOOLLO", &ho, &loo, &oo, &lobits, &rbits, &outo)) return NULL;
    Held h = {.n = 0};
    Arr hi, lo, off, out;
    if (get_arr(&h, ho, &hi, 0, "hi") < 0 || need(&hi, U32, "hi") < 0 || get_arr(&h, loo, &lo, 0, "lo") < 0 ||
        need_int(&lo, "lo") < 0 || get_arr(&h, oo, &off, 0, "off") < 0 || need_int(&off, "off") < 0 ||
        get_arr(&h, outo, &out, 1, "out") < 0 || need(&out, U64, "out") < 0) {
        release(&h);
        return NULL;
    }
    int64_t n = hi.cols;
    if (out.len < n || (lo.len > 0 && lo.len < n) || off.cols < 1 || ld(&off, off.cols - 1) > n) {
        release(&h);
        return PyErr_Format(PyExc_ValueError, "join_table0: bad lengths");
    }
    const uint32_t *H = (const uint32_t *)hi.p;
    uint64_t *O = (uint64_t *)out.p;
    int has_lo = lo.len > 0;
    Py_BEGIN_ALLOW_THREADS;
    for (int64_t b = 0; b < off.cols - 1; b++) {
        uint64_t base = (uint64_t)b << rbits;
        for (int64_t r = ld(&off, b); r < ld(&off, b + 1); r++) {
            uint64_t v = base | ((uint64_t)H[r] << lobits);
            if (has_lo) v |= (uint64_t)ld(&lo, r);
            O[r] = v;
        }
    }
    Py_END_ALLOW_THREADS;
    release(&h);
    Py_RETURN_NONE;
}

typedef struct {
    const uint32_t *hi; /* (T, n) */
    int64_t n;
    const Arr *lo;
    const Arr *off; /* (T, nb + 1) */
    const int32_t *off32; /* the directory when it is int32 (read without a type switch), else NULL */
    int64_t offc;
    int64_t bits, pbits, lobits;
} Tables;

static inline int64_t offat(const Tables *X, int64_t t, int64_t b) {
    int64_t i = t * X->offc + b;
    if (X->off32) return X->off32[i];
    return ld(X->off, i);
}

/* first row r of [l, e) with (row[r] >> s) >= key, or (with upper) > key; the rows are sorted.
 * Branch-free halving: the comparisons are data dependent, so mispredicted branches would cost
 * more than the few extra loads */
static inline int64_t bound32(const uint32_t *row, int64_t l, int64_t e, int64_t s, uint64_t key, int upper) {
    int64_t len = e - l;
    if (len <= 0) return l;
    const uint32_t *base = row + l;
    if (upper) {
        while (len > 1) {
            int64_t half = len >> 1;
            base = (((uint64_t)base[half - 1] >> s) <= key) ? base + half : base;
            len -= half;
        }
        return (base - row) + ((((uint64_t)base[0] >> s) <= key) ? 1 : 0);
    }
    while (len > 1) {
        int64_t half = len >> 1;
        base = (((uint64_t)base[half - 1] >> s) < key) ? base + half : base;
        len -= half;
    }
    return (base - row) + ((((uint64_t)base[0] >> s) < key) ? 1 : 0);
}

/* rows of table t whose leading `lead` bits equal those of x: [*a, *e), bucket returned */
static inline int64_t run_of(const Tables *X, int64_t t, uint64_t x, int64_t lead, int64_t *a, int64_t *e) {
    int64_t rbits = X->bits - X->pbits;
    int64_t hibits = rbits - X->lobits;
    if (lead >= X->pbits) {
        int64_t b = (int64_t)(x >> rbits);
        int64_t lo_ = offat(X, t, b), end = offat(X, t, b + 1);
        int64_t extra = lead - X->pbits < hibits ? lead - X->pbits : hibits;
        if (extra > 0 && lo_ < end) {
            int64_t s = hibits - extra;
            uint64_t hmask = (((uint64_t)1) << hibits) - 1;
            uint64_t key = ((x >> X->lobits) & hmask) >> s;
            const uint32_t *row = X->hi + t * X->n;
            int64_t start = bound32(row, lo_, end, s, key, 0);
            end = bound32(row, start, end, s, key, 1);
            lo_ = start;
        }
        *a = lo_;
        *e = end;
        return b;
    }
    int64_t b = 0;
    if (lead > 0) b = (int64_t)(x >> (X->bits - lead)) << (X->pbits - lead);
    *a = offat(X, t, b);
    *e = offat(X, t, b + ((int64_t)1 << (X->pbits - lead)));
    return b;
}

/* bit mask of the 16 entries row[0:16] within kk bits of ph (vectorized by the compiler) */
static inline uint32_t within16(const uint32_t *row, uint32_t ph, uint32_t kk) {
    uint32_t m = 0;
    for (int j = 0; j < 16; j++) {
        uint32_t x = row[j] ^ ph;
        x = x - ((x >> 1) & 0x55555555u);
        x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
        x = (x + (x >> 4)) & 0x0F0F0F0Fu;
        x = (x * 0x01010101u) >> 24;
        m |= (uint32_t)(x <= kk) << j;
    }
    return m;
}

#if HAVE_AVX2_PATH
/* within16 with AVX2: popcounts of 8 lanes at a time by nibble lookup (vpshufb), summed per lane */
__attribute__((target("avx2,popcnt"))) static inline uint32_t within16_avx2(const uint32_t *row, uint32_t ph,
                                                                             uint32_t kk) {
    const __m256i lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2,
                                         2, 3, 2, 3, 3, 4);
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    const __m256i ones8 = _mm256_set1_epi8(1);
    const __m256i ones16 = _mm256_set1_epi16(1);
    const __m256i p = _mm256_set1_epi32((int)ph);
    const __m256i lim = _mm256_set1_epi32((int)kk);
    uint32_t m = 0;
    for (int half = 0; half < 2; half++) {
        __m256i x = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(row + 8 * half)), p);
        __m256i c = _mm256_add_epi8(_mm256_shuffle_epi8(lut, _mm256_and_si256(x, low4)),
                                    _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16(x, 4), low4)));
        c = _mm256_madd_epi16(_mm256_maddubs_epi16(c, ones8), ones16);
        uint32_t over = (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(c, lim)));
        m |= (~over & 0xFFu) << (8 * half);
    }
    return m;
}
#endif

/* a candidate: the fingerprint bits an entry of table t knows (kb), the query (q) and its number and
 * table (qt = number * 256 + t; a design has at most 128 tables) */
typedef struct {
    uint64_t kb, q;
    int64_t qt;
} Cand;

typedef struct {
    Cand *c;
    int64_t n, cap;
} Cands;

static int cands_reserve(Cands *C, int64_t need) {
    if (need <= C->cap) return 0;
    int64_t cap = C->cap * 2 > need ? C->cap * 2 : need;
    Cand *c = (Cand *)realloc(C->c, (size_t)cap * sizeof(Cand));
    if (!c) return -1;
    C->c = c;
    C->cap = cap;
    return 0;
}

/* candidates are flushed (resolved) once this many are queued, bounding their memory */
#define CANDS_MAX (1 << 20)

typedef struct {
    const uint64_t *kmask;
    const int64_t *klead;
    const int64_t *kblocks;
} Known;

/* Report, per candidate (query, table t, known bits kb), the rows of table 0 that agree with its
 * known bits and are its match. Candidates are visited in table 0's directory order (a counting
 * sort by bucket for many, a merge sort by kb for few), so their lookups in table 0 stream in
 * address order; the bucket of the candidate 8 ahead is prefetched. */
static int resolve_all(Cands *C, int64_t k, const Tables *X, const Known *Kn, const Blocks *B, const uint8_t *dead,
                       int has_dead, const Outs *O, int64_t *n) {
    int64_t nc = C->n;
    if (nc == 0) return 0;
    int64_t rs = X->bits - X->pbits;
    Cand *S = (Cand *)malloc((size_t)nc * sizeof(Cand));
    if (!S) return -1;
    if (nc * 8 >= X->offc) {
        int64_t *cnt = (int64_t *)calloc((size_t)X->offc, sizeof(int64_t));
        if (!cnt) {
            free(S);
            return -1;
        }
        for (int64_t j = 0; j < nc; j++) cnt[(C->c[j].kb >> rs) + 1]++;
        for (int64_t b = 0; b + 1 < X->offc; b++) cnt[b + 1] += cnt[b];
        for (int64_t j = 0; j < nc; j++) S[cnt[C->c[j].kb >> rs]++] = C->c[j];
        free(cnt);
    } else {
        int64_t *idx = (int64_t *)malloc((size_t)nc * 2 * sizeof(int64_t));
        uint64_t *key = (uint64_t *)malloc((size_t)nc * sizeof(uint64_t));
        if (!idx || !key) {
            free(idx);
            free(key);
            free(S);
            return -1;
        }
        for (int64_t j = 0; j < nc; j++) {
            idx[j] = j;
            key[j] = C->c[j].kb;
        }
        Keys K = {key, NULL};
        merge_sort_idx(idx, idx + nc, nc, &K);
        for (int64_t j = 0; j < nc; j++) S[j] = C->c[idx[j]];
        free(idx);
        free(key);
    }
    uint64_t kk = (uint64_t)k;
    int has_lo = X->lo->len > 0;
    int lsz = X->lo->code >> 3;
    for (int64_t x = 0; x < nc; x++) {
        if (x + 8 < nc) {
            /* the bucket the candidate 8 ahead reads: its rows of hi and lo */
            int64_t b8 = (int64_t)(S[x + 8].kb >> rs);
            int64_t a8 = offat(X, 0, b8), e8 = offat(X, 0, b8 + 1);
            if (e8 - a8 > 256) e8 = a8 + 256;
            for (int64_t r = a8; r < e8; r += 16) __builtin_prefetch(X->hi + r, 0, 3);
            if (has_lo)
                for (int64_t r = a8; r < e8; r += 64 / lsz) __builtin_prefetch(X->lo->p + r * lsz, 0, 3);
        }
        int64_t qi = S[x].qt >> 8, t = S[x].qt & 255;
        uint64_t q = S[x].q, kb = S[x].kb;
        int64_t a, e;
        int64_t b = run_of(X, 0, kb, Kn->klead[t], &a, &e);
        for (int64_t r = a; r < e; r++) {
            while (offat(X, 0, b + 1) <= r) b++;
            uint64_t v = ((uint64_t)b << rs) | ((uint64_t)X->hi[r] << X->lobits);
            if (has_lo) v |= (uint64_t)ld(X->lo, r);
            if ((v ^ kb) & Kn->kmask[t]) continue;
            uint64_t d = popcount64(v ^ q);
            if (d <= kk && B->first[equal_blocks(v ^ q, B)] == t && !(has_dead && dead[r]))
                *n = emit(O, *n, qi, r, (int64_t)d);
        }
    }
    free(S);
    C->n = 0;
    return 0;
}

#ifndef PF_AHEAD
#define PF_AHEAD 8
#endif

/* a query permuted for the table being scanned, and its number */
typedef struct {
    uint64_t p;
    int64_t qi;
} QP;

/* One table at a time. A large batch visits the table in directory order: the permuted queries
 * are counting-sorted by bucket into (value, number) pairs, so the runs scanned come in address
 * order (the table streams from memory) and the queries themselves are read sequentially; the
 * bucket of the query 8 ahead is prefetched. A run is skipped 16 entries at a time (one vector
 * compare) while none is within k on its 32 known bits. Table 0's permutation is the identity, so
 * its entries are compared with the permuted query itself; an entry of another table knows its
 * fingerprint's bits through the inverse permutation, which maps entry XOR query to the
 * fingerprints' XOR (the blocks it knows equal tell whether an earlier table reports the pair). */
static inline __attribute__((always_inline)) int64_t query_residual_body(
    const uint64_t *qfps, int64_t nq, int64_t k, const Tables *X, int64_t T, const int64_t *keybits, const Known *Kn,
    const Perm *P, const Blocks *B, const uint8_t *dead, int has_dead, const Outs *O, int avx2) {
    int64_t n = 0;
    int64_t rs = X->bits - X->pbits;
    int64_t ls = X->lobits;
    uint64_t hmask = (((uint64_t)1) << (X->bits - X->pbits - X->lobits)) - 1;
    uint64_t kk = (uint64_t)k;
    uint32_t k32 = (uint32_t)k;
    int has_lo = X->lo->len > 0;
    int sweep = nq * 8 >= X->offc;
    /* the sort keys on at most 12 leading bits: its counters stay in the L1 cache, and the runs
     * of a 12-bit group (16 buckets at 10M, ~10 KB of a table) stay in the L2 cache meanwhile */
    int64_t sbits = X->pbits < 12 ? X->pbits : 12;
    int64_t ss = X->bits - sbits;
    int64_t ncnt = ((int64_t)1 << sbits) + 1;
    int lsz = X->lo->code >> 3;
    QP *S = (QP *)malloc(((size_t)nq + 1) * sizeof(QP));
    uint64_t *Pq = sweep ? (uint64_t *)malloc(((size_t)nq + 1) * sizeof(uint64_t)) : NULL;
    int64_t *cnt = sweep ? (int64_t *)malloc(((size_t)ncnt) * sizeof(int64_t)) : NULL;
    Cands C = {NULL, 0, 0};
    int64_t cap0 = 2 * nq < 1024 ? 1024 : (2 * nq > CANDS_MAX ? CANDS_MAX : 2 * nq);
    if (!S || (sweep && (!Pq || !cnt)) || cands_reserve(&C, cap0) < 0) goto oom;
    for (int64_t t = 0; t < T; t++) {
        if (sweep) {
            memset(cnt, 0, (size_t)ncnt * sizeof(int64_t));
            for (int64_t qi = 0; qi < nq; qi++) {
                uint64_t p = t > 0 ? FWD(P, qfps[qi], t) : qfps[qi];
                Pq[qi] = p;
                cnt[(p >> ss) + 1]++;
            }
            for (int64_t b = 0; b + 1 < ncnt; b++) cnt[b + 1] += cnt[b];
            for (int64_t qi = 0; qi < nq; qi++) {
                uint64_t p = Pq[qi];
                int64_t at = cnt[p >> ss]++;
                S[at].p = p;
                S[at].qi = qi;
            }
        } else {
            for (int64_t qi = 0; qi < nq; qi++) {
                S[qi].p = t > 0 ? FWD(P, qfps[qi], t) : qfps[qi];
                S[qi].qi = qi;
            }
        }
        const uint32_t *row = X->hi + t * X->n;
        for (int64_t jq = 0; jq < nq; jq++) {
            if (jq + PF_AHEAD < nq) {
                /* the run the query PF_AHEAD places on scans (its first 256 entries), and for table
                 * 0 the low bits its surviving entries read */
                int64_t b8 = (int64_t)(S[jq + PF_AHEAD].p >> rs);
                int64_t a8 = offat(X, t, b8), e8 = offat(X, t, b8 + 1);
                if (e8 - a8 > 256) e8 = a8 + 256;
                for (int64_t r = a8; r < e8; r += 16) __builtin_prefetch(row + r, 0, 3);
                if (t == 0 && has_lo)
                    for (int64_t r = a8; r < e8; r += 64 / lsz) __builtin_prefetch(X->lo->p + r * lsz, 0, 3);
            }
            uint64_t Pv = S[jq].p;
            int64_t qi = S[jq].qi;
            int64_t i, e;
            run_of(X, t, Pv, keybits[t], &i, &e);
            if (C.n + (e - i) > C.cap) {
                if (C.cap >= CANDS_MAX) {
                    if (resolve_all(&C, k, X, Kn, B, dead, has_dead, O, &n) < 0) goto oom;
                }
                if (cands_reserve(&C, C.n + (e - i)) < 0) goto oom;
            }
            uint64_t Ph = (Pv >> ls) & hmask;
            uint32_t ph = (uint32_t)Ph;
            uint64_t base = (Pv >> rs) << rs;
            while (i < e) {
                if (e - i > 16 && i + 32 <= X->n) {
                    /* 32 entries a step while the run is long */
#if HAVE_AVX2_PATH
                    uint32_t m = avx2 ? within16_avx2(row + i, ph, k32) | (within16_avx2(row + i + 16, ph, k32) << 16)
                                      : within16(row + i, ph, k32) | (within16(row + i + 16, ph, k32) << 16);
#else
                    uint32_t m = within16(row + i, ph, k32) | (within16(row + i + 16, ph, k32) << 16);
#endif
                    if (e - i < 32) m &= (((uint32_t)1) << (e - i)) - 1;
                    if (m == 0) {
                        i += 32;
                        continue;
                    }
                    i += __builtin_ctz(m);
                } else if (i + 16 <= X->n) {
#if HAVE_AVX2_PATH
                    uint32_t m = avx2 ? within16_avx2(row + i, ph, k32) : within16(row + i, ph, k32);
#else
                    uint32_t m = within16(row + i, ph, k32);
#endif
                    if (e - i < 16) m &= (((uint32_t)1) << (e - i)) - 1;
                    if (m == 0) {
                        i += 16;
                        continue;
                    }
                    i += __builtin_ctz(m);
                } else if (popcount64((uint64_t)row[i] ^ Ph) > kk) {
                    i++;
                    continue;
                }
                uint64_t hv = row[i];
                uint64_t ent = base | (hv << ls);
                if (t == 0) {
                    uint64_t v = ent;
                    if (has_lo) v |= (uint64_t)ld(X->lo, i);
                    uint64_t d = popcount64(v ^ Pv);
                    if (d <= kk && B->first[equal_blocks(v ^ Pv, B)] == 0 && !(has_dead && dead[i]))
                        n = emit(O, n, qi, i, (int64_t)d);
                    i++;
                    continue;
                }
                int64_t f = B->first[equal_blocks(INV(P, ent ^ Pv, t), B) & Kn->kblocks[t]];
                if (f < 0 || f >= t) {
                    C.c[C.n].kb = INV(P, ent, t);
                    C.c[C.n].q = INV(P, Pv, t);
                    C.c[C.n].qt = qi * 256 + t;
                    C.n++;
                }
                i++;
                while (i < e && row[i] == hv) i++;
            }
        }
    }
    if (resolve_all(&C, k, X, Kn, B, dead, has_dead, O, &n) < 0) goto oom;
    free(S);
    free(Pq);
    free(cnt);
    free(C.c);
    return n;
oom:
    free(S);
    free(Pq);
    free(cnt);
    free(C.c);
    return -1;
}

static int64_t query_residual_base(const uint64_t *qfps, int64_t nq, int64_t k, const Tables *X, int64_t T,
                                   const int64_t *keybits, const Known *Kn, const Perm *P, const Blocks *B,
                                   const uint8_t *dead, int has_dead, const Outs *O) {
    return query_residual_body(qfps, nq, k, X, T, keybits, Kn, P, B, dead, has_dead, O, 0);
}

#if HAVE_AVX2_PATH
__attribute__((target("avx2,popcnt"))) static int64_t query_residual_avx2(
    const uint64_t *qfps, int64_t nq, int64_t k, const Tables *X, int64_t T, const int64_t *keybits, const Known *Kn,
    const Perm *P, const Blocks *B, const uint8_t *dead, int has_dead, const Outs *O) {
    return query_residual_body(qfps, nq, k, X, T, keybits, Kn, P, B, dead, has_dead, O, 1);
}
#endif

static int64_t query_residual_impl(const uint64_t *qfps, int64_t nq, int64_t k, const Tables *X, int64_t T,
                                   const int64_t *keybits, const Known *Kn, const Perm *P, const Blocks *B,
                                   const uint8_t *dead, int has_dead, const Outs *O) {
#if HAVE_AVX2_PATH
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt"))
        return query_residual_avx2(qfps, nq, k, X, T, keybits, Kn, P, B, dead, has_dead, O);
#endif
    return query_residual_base(qfps, nq, k, X, T, keybits, Kn, P, B, dead, has_dead, O);
}

/* query_residual(qfps, k, (hi, lo, off), keybits, (bits, pbits, lobits), (kmask, klead, kblocks),
 *                (src, dst, msk), (bsrc, bmask, first), dead, (out_q, out_row, out_d)) -> n */
static PyObject *py_query_residual(PyObject *self, PyObject *args) {
    PyObject *qo, *ho, *loo, *offo, *kbo, *kmo, *klo, *kblo, *s, *d, *m, *bs, *bm, *fi, *deado, *oa, *ob, *od;
    long long k, bits, pbits, lobits;
    if (!PyArg_ParseTuple(args, "OL(OOO)O(LLL)(OOO)(OOO)(OOO)O(OOO)", &qo, &k, &ho, &loo, &offo, &kbo, &bits, &pbits,
                          &lobits, &kmo, &klo, &kblo, &s, &d, &m, &bs, &bm, &fi, &deado, &oa, &ob, &od))
        return NULL;
    Held h = {.n = 0};
    Arr q, hi, lo, off, kb, km, kl, kbl, dead;
    Perm P;
    Blocks B;
    Outs O;
    if (get_arr(&h, qo, &q, 0, "qfps") < 0 || need(&q, U64, "qfps") < 0 || get_arr(&h, ho, &hi, 0, "hi") < 0 ||
        need(&hi, U32, "hi") < 0 || get_arr(&h, loo, &lo, 0, "lo") < 0 || need_int(&lo, "lo") < 0 ||
        get_arr(&h, offo, &off, 0, "off") < 0 || need_int(&off, "off") < 0 || get_arr(&h, kbo, &kb, 0, "keybits") < 0 ||
        need(&kb, I64, "keybits") < 0 || get_arr(&h, kmo, &km, 0, "kmask") < 0 || need(&km, U64, "kmask") < 0 ||
        get_arr(&h, klo, &kl, 0, "klead") < 0 || need(&kl, I64, "klead") < 0 ||
        get_arr(&h, kblo, &kbl, 0, "kblocks") < 0 || need(&kbl, I64, "kblocks") < 0 ||
        parse_perm(&h, s, d, m, &P) < 0 || parse_blocks(&h, bs, bm, fi, &B) < 0 ||
        get_arr(&h, deado, &dead, 0, "dead") < 0 || need(&dead, U8, "dead") < 0 || parse_outs(&h, oa, ob, od, &O) < 0) {
        release(&h);
        return NULL;
    }
    int64_t T = hi.rows;
    Tables X = {(const uint32_t *)hi.p, hi.cols, &lo, &off, off.code == I32 ? (const int32_t *)off.p : NULL,
                off.cols, bits, pbits, lobits};
    if (off.rows < T || off.cols != ((Py_ssize_t)1 << pbits) + 1 || kb.len < T || km.len < T || kl.len < T ||
        kbl.len < T || (lo.len > 0 && lo.len < hi.cols) || (dead.len > 0 && dead.len < hi.cols) || P.nb < 1) {
        release(&h);
        return PyErr_Format(PyExc_ValueError, "query_residual: shapes disagree");
    }
    Known Kn = {(const uint64_t *)km.p, (const int64_t *)kl.p, (const int64_t *)kbl.p};
    int64_t n;
    Py_BEGIN_ALLOW_THREADS;
    n = query_residual_impl((const uint64_t *)q.p, q.len, k, &X, T, (const int64_t *)kb.p, &Kn, &P, &B,
                            (const uint8_t *)dead.p, dead.len > 0, &O);
    Py_END_ALLOW_THREADS;
    release(&h);
    if (n < 0) return PyErr_NoMemory();
    return PyLong_FromLongLong(n);
}

/* ---------------------------------------------------------------------------------------------- */
/* build.py                                                                                        */

#define DEFINE_SORT_BUCKET(NAME, T, SORT)                                                              \
    static void NAME(T *v, int64_t a, int64_t e, int64_t width, T *scratch, int64_t *cnt) {           \
        int64_t m = e - a;                                                                             \
        if (m > SMALL) {                                                                               \
            SORT(v + a, m);                                                                            \
            return;                                                                                    \
        }                                                                                              \
        if (m > 16) {                                                                                  \
            int64_t d = 1;                                                                             \
            while (((int64_t)1 << d) < m) d++;                                                         \
            if (d > width) d = width;                                                                  \
            int64_t sh = width - d;                                                                    \
            int64_t nd = (int64_t)1 << d;                                                              \
            memset(cnt, 0, (size_t)(nd + 1) * sizeof(int64_t));                                        \
            for (int64_t j = a; j < e; j++) cnt[((uint64_t)v[j] >> sh) + 1]++;                         \
            for (int64_t s = 0; s < nd; s++) cnt[s + 1] += cnt[s];                                     \
            for (int64_t j = a; j < e; j++) scratch[cnt[(uint64_t)v[j] >> sh]++] = v[j];               \
        } else {                                                                                       \
            for (int64_t j = a; j < e; j++) scratch[j - a] = v[j];                                     \
        }                                                                                              \
        int64_t moves = 0, limit = 8 * m + 64;                                                         \
        for (int64_t j = 0; j < m; j++) {                                                              \
            T y = scratch[j];                                                                          \
            int64_t z = a + j;                                                                         \
            if (moves <= limit) {                                                                      \
                while (z > a && v[z - 1] > y) {                                                        \
                    v[z] = v[z - 1];                                                                   \
                    z--;                                                                               \
                    moves++;                                                                           \
                }                                                                                      \
            }                                                                                          \
            v[z] = y;                                                                                  \
        }                                                                                              \
        if (moves > limit) SORT(v + a, m);                                                             \
    }

DEFINE_SORT_BUCKET(sort_bucket_u32, uint32_t, sort_u32)
DEFINE_SORT_BUCKET(sort_bucket_u64, uint64_t, sort_u64)

HOT static void histograms(const uint64_t *fps, int64_t n, const Perm *P, const int64_t *ts, int64_t nts, int64_t rbits,
                           const Arr *off) {
    int64_t c = off->cols;
    for (int64_t x = 0; x < nts; x++)
        for (int64_t b = 0; b < c; b++) st(off, ts[x] * c + b, 0);
    if (off->code == I32) {
        int32_t *o = (int32_t *)off->p;
        for (int64_t i = 0; i < n; i++) {
            uint64_t x = fps[i];
            for (int64_t y = 0; y < nts; y++) {
                int64_t t = ts[y];
                uint64_t p = t > 0 ? FWD(P, x, t) : x;
                o[t * c + (int64_t)(p >> rbits) + 1]++;
            }
        }
    } else {
        for (int64_t i = 0; i < n; i++) {
            uint64_t x = fps[i];
            for (int64_t y = 0; y < nts; y++) {
                int64_t t = ts[y];
                uint64_t p = t > 0 ? FWD(P, x, t) : x;
                int64_t j = t * c + (int64_t)(p >> rbits) + 1;
                st(off, j, ld(off, j) + 1);
            }
        }
    }
    for (int64_t y = 0; y < nts; y++) {
        int64_t t = ts[y];
        for (int64_t b = 0; b < c - 1; b++) st(off, t * c + b + 1, ld(off, t * c + b + 1) + ld(off, t * c + b));
    }
}

HOT static int table_hi(const uint64_t *fps, int64_t n, const Perm *P, int64_t t, int64_t bits, int64_t pbits,
                        int64_t lobits, const Arr *off, int64_t t_off, uint32_t *hi_row) {
    int64_t rs = bits - pbits;
    int64_t hibits = bits - pbits - lobits;
    uint64_t hmask = (((uint64_t)1) << hibits) - 1;
    int64_t nbk = off->cols - 1;
    int64_t *cur = (int64_t *)malloc(((size_t)nbk + 1) * sizeof(int64_t));
    uint32_t *scratch = (uint32_t *)malloc(SMALL * sizeof(uint32_t));
    int64_t *cnt = (int64_t *)malloc((SMALL + 1) * sizeof(int64_t));
    if (!cur || !scratch || !cnt) {
        free(cur);
        free(scratch);
        free(cnt);
        return -1;
    }
    for (int64_t b = 0; b <= nbk; b++) cur[b] = ld(off, t_off + b);
    for (int64_t i = 0; i < n; i++) {
        uint64_t p = FWD(P, fps[i], t);
        int64_t b = (int64_t)(p >> rs);
        hi_row[cur[b]++] = (uint32_t)((p >> lobits) & hmask);
    }
    for (int64_t b = 0; b < nbk; b++)
        sort_bucket_u32(hi_row, ld(off, t_off + b), ld(off, t_off + b + 1), hibits, scratch, cnt);
    free(cur);
    free(scratch);
    free(cnt);
    return 0;
}

HOT static int table0(const uint64_t *fps, const Arr *ids, int64_t n, int64_t bits, int64_t pbits, int64_t lobits,
                      const Arr *off, uint32_t *hi_row, const Arr *lo, const Arr *ids_out, uint64_t *keys) {
    int64_t rbits = bits - pbits;
    int64_t ps = 64 - rbits;
    uint64_t pmask = (((uint64_t)1) << ps) - 1;
    uint64_t rmask = (((uint64_t)1) << rbits) - 1;
    uint64_t lmask = (((uint64_t)1) << lobits) - 1;
    uint64_t hmask = (((uint64_t)1) << (rbits - lobits)) - 1;
    int64_t nbk = off->cols - 1;
    int64_t *cur = (int64_t *)malloc(((size_t)nbk + 1) * sizeof(int64_t));
    uint64_t *scratch = (uint64_t *)malloc(SMALL * sizeof(uint64_t));
    int64_t *cnt = (int64_t *)malloc((SMALL + 1) * sizeof(int64_t));
    int64_t *moved = (int64_t *)malloc(SMALL * sizeof(int64_t));
    int64_t *big = NULL;
    int rc = -1;
    if (!cur || !scratch || !cnt || !moved) goto done;
    for (int64_t b = 0; b <= nbk; b++) cur[b] = ld(off, b);
    if (ids->code == I64 && ids_out->code == I32 && off->code == I32) {
        const int64_t *I = (const int64_t *)ids->p;
        const int32_t *OF = (const int32_t *)off->p;
        int32_t *IO = (int32_t *)ids_out->p;
        for (int64_t i = 0; i < n; i++) {
            uint64_t x = fps[i];
            int64_t b = (int64_t)(x >> rbits);
            int64_t j = cur[b];
            keys[j] = ((x & rmask) << ps) | (uint64_t)(j - OF[b]);
            IO[j] = (int32_t)I[i];
            cur[b]++;
        }
    } else {
        for (int64_t i = 0; i < n; i++) {
            uint64_t x = fps[i];
            int64_t b = (int64_t)(x >> rbits);
            int64_t j = cur[b];
            keys[j] = ((x & rmask) << ps) | (uint64_t)(j - ld(off, b));
            st(ids_out, j, ld(ids, i));
            cur[b]++;
        }
    }
    int has_lo = lo->len > 0;
    /* the common layout (int32 ids, uint16 or no low bits, int32 offsets): typed loops */
    if (ids_out->code == I32 && off->code == I32 && (!has_lo || lo->code == U16)) {
        int32_t *IO = (int32_t *)ids_out->p;
        const int32_t *OF = (const int32_t *)off->p;
        uint16_t *LO = (uint16_t *)lo->p;
        int32_t *sub32 = (int32_t *)moved;
        for (int64_t b = 0; b < nbk; b++) {
            int64_t a = OF[b], e = OF[b + 1];
            sort_bucket_u64(keys, a, e, 64, scratch, cnt);
            int32_t *sub = sub32;
            if (e - a > SMALL) {
                free(big);
                big = (int64_t *)malloc((size_t)(e - a) * sizeof(int64_t));
                if (!big) goto done;
                sub = (int32_t *)big;
            }
            memcpy(sub, IO + a, (size_t)(e - a) * sizeof(int32_t));
            for (int64_t j = a; j < e; j++) {
                uint64_t kx = keys[j];
                IO[j] = sub[(int64_t)(kx & pmask)];
                uint64_t r = kx >> ps;
                hi_row[j] = (uint32_t)((r >> lobits) & hmask);
                if (has_lo) LO[j] = (uint16_t)(r & lmask);
            }
        }
        rc = 0;
        goto done;
    }
    for (int64_t b = 0; b < nbk; b++) {
        int64_t a = ld(off, b), e = ld(off, b + 1);
        sort_bucket_u64(keys, a, e, 64, scratch, cnt);
        int64_t *sub = moved;
        if (e - a > SMALL) {
            free(big);
            big = (int64_t *)malloc((size_t)(e - a) * sizeof(int64_t));
            if (!big) goto done;
            sub = big;
        }
        for (int64_t j = a; j < e; j++) sub[j - a] = ld(ids_out, j);
        for (int64_t j = a; j < e; j++) {
            uint64_t kx = keys[j];
            st(ids_out, j, sub[(int64_t)(kx & pmask)]);
            uint64_t r = kx >> ps;
            hi_row[j] = (uint32_t)((r >> lobits) & hmask);
            if (has_lo) st(lo, j, (int64_t)(r & lmask));
        }
    }
    rc = 0;
done:
    free(cur);
    free(scratch);
    free(cnt);
    free(moved);
    free(big);
    return rc;
}

/* table t through the full-width sorts, in v */
static int wide(const uint64_t *fps, const Arr *ids, int64_t n, const Perm *P, int64_t t, int64_t bits, int64_t pbits,
                int64_t lobits, uint32_t *hi, const Arr *lo, const Arr *ids_out, const Arr *off, uint64_t *v) {
    int64_t sbits = pbits < RADIX_BITS ? pbits : RADIX_BITS;
    Arr offrow = *off;
    offrow.p = off->p + (size_t)(t * off->cols) * (size_t)(off->code / 8);
    offrow.len = off->cols;
    offrow.rows = 1;
    if (t == 0) {
        int64_t *i0 = (int64_t *)malloc(((size_t)n + 1) * sizeof(int64_t));
        if (!i0) return -1;
        Arr a0 = {(char *)i0, n, 1, n, I64};
        if (sorted_with_ids_impl(fps, ids, n, sbits, bits, v, &a0) < 0) {
            free(i0);
            return -1;
        }
        for (int64_t j = 0; j < n; j++) st(ids_out, j, i0[j]);
        free(i0);
        split_impl(v, n, lobits, bits - pbits, hi, lo, &offrow);
    } else {
        if (permute_sorted_impl(fps, n, P, t, sbits, bits, v) < 0) return -1;
        Arr nolo = *lo;
        nolo.len = 0;
        split_impl(v, n, lobits, bits - pbits, hi + t * n, &nolo, &offrow);
    }
    return 0;
}

static int build_impl(const uint64_t *fps, const Arr *ids, int64_t n, const Perm *P, const int64_t *ts, int64_t nts,
                      int64_t bits, int64_t pbits, int64_t lobits, uint32_t *hi, const Arr *lo, const Arr *ids_out,
                      const Arr *off, uint64_t *work) {
    if (pbits > RADIX_BITS) {
        for (int64_t x = 0; x < nts; x++)
            if (wide(fps, ids, n, P, ts[x], bits, pbits, lobits, hi, lo, ids_out, off, work) < 0) return -1;
        return 0;
    }
    histograms(fps, n, P, ts, nts, bits - pbits, off);
    for (int64_t x = 0; x < nts; x++) {
        int64_t t = ts[x];
        if (t > 0) {
            if (table_hi(fps, n, P, t, bits, pbits, lobits, off, t * off->cols, hi + t * n) < 0) return -1;
            continue;
        }
        int64_t most = 0;
        for (int64_t b = 0; b < off->cols - 1; b++) {
            int64_t s = ld(off, b + 1) - ld(off, b);
            if (s > most) most = s;
        }
        if (bits - pbits < 64 && most <= ((int64_t)1 << (64 - bits + pbits))) {
            if (table0(fps, ids, n, bits, pbits, lobits, off, hi, lo, ids_out, work) < 0) return -1;
        } else if (wide(fps, ids, n, P, 0, bits, pbits, lobits, hi, lo, ids_out, off, work) < 0) {
            return -1;
        }
    }
    return 0;
}

/* build_tables(fps, ids, perm, ts, (bits, pbits, lobits), hi, lo, ids_out, off, work) */
static PyObject *py_build_tables(PyObject *self, PyObject *args) {
    PyObject *fo, *io, *s, *d, *m, *tso, *ho, *loo, *ioo, *offo, *wo;
    long long bits, pbits, lobits;
    if (!PyArg_ParseTuple(args, "OO(OOO)O(LLL)OOOOO", &fo, &io, &s, &d, &m, &tso, &bits, &pbits, &lobits, &ho, &loo,
                          &ioo, &offo, &wo))
        return NULL;
    Held h = {.n = 0};
    Arr f, ids, ts, hi, lo, ids_out, off, work;
    Perm P;
    if (get_arr(&h, fo, &f, 0, "fps") < 0 || need(&f, U64, "fps") < 0 || get_arr(&h, io, &ids, 0, "ids") < 0 ||
        need_int(&ids, "ids") < 0 || parse_perm(&h, s, d, m, &P) < 0 || get_arr(&h, tso, &ts, 0, "ts") < 0 ||
        need(&ts, I64, "ts") < 0 || get_arr(&h, ho, &hi, 1, "hi") < 0 || need(&hi, U32, "hi") < 0 ||
        get_arr(&h, loo, &lo, 1, "lo") < 0 || need_int(&lo, "lo") < 0 || get_arr(&h, ioo, &ids_out, 1, "ids_out") < 0 ||
        need_int(&ids_out, "ids_out") < 0 || get_arr(&h, offo, &off, 1, "off") < 0 || need_int(&off, "off") < 0 ||
        get_arr(&h, wo, &work, 1, "work") < 0 || need(&work, U64, "work") < 0) {
        release(&h);
        return NULL;
    }
    int64_t n = f.len, T = hi.rows;
    const int64_t *tsp = (const int64_t *)ts.p;
    int bad = ids.len < n || hi.cols != n || (lo.len > 0 && lo.len < n) || ids_out.len < n || work.len < n ||
              off.rows < T || off.cols != ((Py_ssize_t)1 << pbits) + 1 || pbits < 1 || pbits >= bits ||
              bits - pbits - lobits > 32 || lobits < 0;
    for (int64_t x = 0; !bad && x < ts.len; x++) bad = tsp[x] < 0 || tsp[x] >= T;
    if (bad) {
        release(&h);
        return PyErr_Format(PyExc_ValueError, "build_tables: shapes disagree");
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS;
    rc = build_impl((const uint64_t *)f.p, &ids, n, &P, tsp, ts.len, bits, pbits, lobits, (uint32_t *)hi.p, &lo,
                    &ids_out, &off, (uint64_t *)work.p);
    Py_END_ALLOW_THREADS;
    release(&h);
    if (rc < 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------------------------------------------- */
/* codec.py                                                                                        */

#define XOR 0

/* symbols(v, B, mode, counts) -> raw bits */
static PyObject *py_symbols(PyObject *self, PyObject *args) {
    PyObject *vo, *co;
    long long B, mode;
    if (!PyArg_ParseTuple(args, "OLLO", &vo, &B, &mode, &co)) return NULL;
    Held h = {.n = 0};
    Arr v, c;
    if (get_arr(&h, vo, &v, 0, "v") < 0 || need(&v, U64, "v") < 0 || get_arr(&h, co, &c, 1, "counts") < 0 ||
        need(&c, I64, "counts") < 0) {
        release(&h);
        return NULL;
    }
    if (c.len < 65 || B < 1) {
        release(&h);
        return PyErr_Format(PyExc_ValueError, "symbols: counts holds 65, block size >= 1");
    }
    const uint64_t *V = (const uint64_t *)v.p;
    int64_t *counts = (int64_t *)c.p;
    int64_t raw = 0;
    Py_BEGIN_ALLOW_THREADS;
    memset(counts, 0, 65 * sizeof(int64_t));
    for (int64_t i = 0; i < v.len; i++) {
        if (i % B == 0) continue;
        uint64_t x = mode == XOR ? V[i] ^ V[i - 1] : V[i] - V[i - 1];
        if (x == 0)
            counts[64]++;
        else {
            int64_t hb = 63 - __builtin_clzll(x);
            counts[hb]++;
            raw += hb;
        }
    }
    Py_END_ALLOW_THREADS;
    release(&h);
    return PyLong_FromLongLong(raw);
}

static inline int64_t put(uint64_t *words, int64_t pos, uint64_t value, int64_t nbits) {
    if (nbits == 0) return pos;
    int64_t w = pos >> 6;
    int64_t space = 64 - (pos & 63);
    if (nbits <= space)
        words[w] |= value << (space - nbits);
    else {
        int64_t over = nbits - space;
        words[w] |= value >> over;
        words[w + 1] |= value << (64 - over);
    }
    return pos + nbits;
}

/* encode(v, B, codes, lens, words, base, firsts, starts, mode) -> end bit */
static PyObject *py_encode(PyObject *self, PyObject *args) {
    PyObject *vo, *co, *lo_, *wo, *fo, *so;
    long long B, base, mode;
    if (!PyArg_ParseTuple(args, "OLOOOLOOL", &vo, &B, &co, &lo_, &wo, &base, &fo, &so, &mode)) return NULL;
    Held h = {.n = 0};
    Arr v, codes, lens, words, firsts, starts;
    if (get_arr(&h, vo, &v, 0, "v") < 0 || need(&v, U64, "v") < 0 || get_arr(&h, co, &codes, 0, "codes") < 0 ||
        need(&codes, U64, "codes") < 0 || get_arr(&h, lo_, &lens, 0, "lens") < 0 || need(&lens, I64, "lens") < 0 ||
        get_arr(&h, wo, &words, 1, "words") < 0 || need(&words, U64, "words") < 0 ||
        get_arr(&h, fo, &firsts, 1, "firsts") < 0 || need(&firsts, U64, "firsts") < 0 ||
        get_arr(&h, so, &starts, 1, "starts") < 0 || need(&starts, U64, "starts") < 0) {
        release(&h);
        return NULL;
    }
    int64_t n = v.len;
    if (codes.len < 65 || lens.len < 65 || B < 1 || firsts.len < (n + B - 1) / B || starts.len < (n + B - 1) / B) {
        release(&h);
        return PyErr_Format(PyExc_ValueError, "encode: bad lengths");
    }
    /* bound the words written: every entry at most 12 + 63 bits */
    const uint64_t *V = (const uint64_t *)v.p, *C = (const uint64_t *)codes.p;
    const int64_t *L = (const int64_t *)lens.p;
    uint64_t *W = (uint64_t *)words.p, *F = (uint64_t *)firsts.p, *S = (uint64_t *)starts.p;
    int64_t pos = base;
    int64_t limit = (int64_t)words.len * 64;
    int over = 0;
    Py_BEGIN_ALLOW_THREADS;
    for (int64_t i = 0; i < n; i++) {
        if (i % B == 0) {
            F[i / B] = V[i];
            S[i / B] = (uint64_t)pos;
            continue;
        }
        uint64_t x = mode == XOR ? V[i] ^ V[i - 1] : V[i] - V[i - 1];
        int64_t hb = x == 0 ? 64 : 63 - __builtin_clzll(x);
        if (pos + L[hb] + (hb < 64 ? hb : 0) > limit) {
            over = 1;
            break;
        }
        if (x == 0)
            pos = put(W, pos, C[64], L[64]);
        else {
            pos = put(W, pos, C[hb], L[hb]);
            if (hb > 0) {
                uint64_t low = mode == XOR ? V[i] : x;
                pos = put(W, pos, low & ((((uint64_t)1) << hb) - 1), hb);
            }
        }
    }
    Py_END_ALLOW_THREADS;
    release(&h);
    if (over) return PyErr_Format(PyExc_ValueError, "encode: words too short");
    return PyLong_FromLongLong(pos);
}

typedef struct {
    const uint64_t *words;
    const uint16_t *lut; /* (T, 1 << L) */
    int64_t L;
    int mode;
} Dec;

static inline uint64_t next_val(const Dec *D, int64_t *pos, uint64_t prev, int64_t t) {
    int64_t p = *pos;
    int64_t w = p >> 6, off = p & 63;
    uint64_t x = D->words[w] << off;
    if (off) x |= D->words[w + 1] >> (64 - off);
    int64_t e = D->lut[(t << D->L) + (int64_t)(x >> (64 - D->L))];
    int64_t sym = e >> 5;
    p += e & 31;
    if (sym == 64) {
        *pos = p;
        return prev;
    }
    uint64_t hb = ((uint64_t)1) << sym;
    uint64_t low = 0;
    if (sym > 0) {
        w = p >> 6;
        off = p & 63;
        x = D->words[w] << off;
        if (off) x |= D->words[w + 1] >> (64 - off);
        low = x >> (64 - sym);
        p += sym;
    }
    *pos = p;
    if (D->mode == XOR) return (prev & ~(hb | (hb - 1))) | hb | low;
    return prev + (hb | low);
}

typedef struct {
    const uint64_t *firsts; /* (T, nb) */
    const int64_t *starts;
    int64_t nb;
} Index;

static int parse_dec(Held *h, PyObject *wo, PyObject *fo, PyObject *so, PyObject *lo, long long L, long long mode,
                     Dec *D, Index *I, int64_t *T, int64_t *nwords) {
    Arr words, firsts, starts, lut;
    if (get_arr(h, wo, &words, 0, "words") < 0 || need(&words, U64, "words") < 0 ||
        get_arr(h, fo, &firsts, 0, "firsts") < 0 || need(&firsts, U64, "firsts") < 0 ||
        get_arr(h, so, &starts, 0, "starts") < 0 || (need(&starts, I64, "starts") < 0) ||
        get_arr(h, lo, &lut, 0, "lut") < 0 || need(&lut, U16, "lut") < 0)
        return -1;
    if (L < 1 || L > 16 || lut.cols != ((Py_ssize_t)1 << L) || firsts.len != starts.len || lut.rows < firsts.rows) {
        PyErr_SetString(PyExc_ValueError, "compressed tables: shapes disagree");
        return -1;
    }
    D->words = (const uint64_t *)words.p;
    D->lut = (const uint16_t *)lut.p;
    D->L = L;
    D->mode = (int)mode;
    I->firsts = (const uint64_t *)firsts.p;
    I->starts = (const int64_t *)starts.p;
    I->nb = firsts.cols;
    *T = firsts.rows;
    *nwords = words.len;
    return 0;
}

/* every start must leave room to read past its block: checked once per call */
static int check_starts(const Index *I, int64_t T, int64_t nwords) {
    for (int64_t j = 0; j < T * I->nb; j++)
        if (I->starts[j] < 0 || (I->starts[j] >> 6) >= nwords) return -1;
    return 0;
}

/* decode_all(words, firsts, starts, lut, t, L, B, n, mode, out) */
static PyObject *py_decode_all(PyObject *self, PyObject *args) {
    PyObject *wo, *fo, *so, *lo, *oo;
    long long t, L, B, n, mode;
    if (!PyArg_ParseTuple(args, "OOOOLLLLLO", &wo, &fo, &so, &lo, &t, &L, &B, &n, &mode, &oo)) return NULL;
    Held h = {.n = 0};
    Dec D;
    Index I;
    int64_t T, nwords;
    Arr out;
    if (parse_dec(&h, wo, fo, so, lo, L, mode, &D, &I, &T, &nwords) < 0 || get_arr(&h, oo, &out, 1, "out") < 0 ||
        need(&out, U64, "out") < 0) {
        release(&h);
        return NULL;
    }
    if (t < 0 || t >= T || B < 1 || out.len < n || (n + B - 1) / B > I.nb || check_starts(&I, T, nwords) < 0) {
        release(&h);
        return PyErr_Format(PyExc_ValueError, "decode_all: bad table, block size or lengths");
    }
    uint64_t *O = (uint64_t *)out.p;
    Py_BEGIN_ALLOW_THREADS;
    uint64_t cur = 0;
    int64_t pos = 0;
    for (int64_t i = 0; i < n; i++) {
        if (i % B == 0) {
            cur = I.firsts[t * I.nb + i / B];
            pos = I.starts[t * I.nb + i / B];
        } else
            cur = next_val(&D, &pos, cur, t);
        O[i] = cur;
    }
    Py_END_ALLOW_THREADS;
    release(&h);
    Py_RETURN_NONE;
}

/* last block whose first value is < x (0 if none) */
static inline int64_t block_of(const Index *I, int64_t t, uint64_t x) {
    const uint64_t *F = I->firsts + t * I->nb;
    int64_t lo = 0, hi = I->nb - 1;
    if (F[0] >= x) return 0;
    if (F[hi] < x) return hi;
    int steps = 0;
    while (hi - lo > 1) {
        uint64_t a = F[lo], b = F[hi];
        int64_t mid;
        if (steps < 4 && b > a) {
            double frac = (double)(x - a) / (double)(b - a);
            mid = lo + (int64_t)(frac * (double)(hi - lo));
            if (mid <= lo)
                mid = lo + 1;
            else if (mid >= hi)
                mid = hi - 1;
        } else
            mid = (lo + hi) >> 1;
        steps++;
        if (F[mid] < x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

HOT static int64_t query_compressed_impl(const uint64_t *qfps, int64_t nq, int64_t k, const Dec *D, const Index *I,
                                         int64_t T, int64_t B, int64_t n, const int64_t *keybits, int64_t bits,
                                         const Perm *P, const Blocks *Bl, const uint8_t *dead, int has_dead,
                                         const Outs *O) {
    int64_t nb = I->nb;
    uint64_t kk = (uint64_t)k;
    int64_t cnt = 0;
    if (n == 0) return 0;
    for (int64_t qi = 0; qi < nq; qi++) {
        uint64_t q = qfps[qi];
        for (int64_t t = 0; t < T; t++) {
            uint64_t Pv = t > 0 ? FWD(P, q, t) : q;
            int64_t s = bits - keybits[t];
            uint64_t key = Pv >> s;
            int64_t blk = block_of(I, t, key << s);
            int64_t row = blk * B;
            uint64_t cur = I->firsts[t * nb + blk];
            int64_t pos = I->starts[t * nb + blk];
            uint64_t last = ~(uint64_t)0;
            int have_last = 0;
            for (;;) {
                uint64_t kc = cur >> s;
                if (kc > key) break;
                if (kc == key) {
                    uint64_t d = popcount64(cur ^ Pv);
                    if (d <= kk) {
                        uint64_t orig = t > 0 ? INV(P, cur, t) : cur;
                        if (Bl->first[equal_blocks(orig ^ q, Bl)] == t) {
                            if (t == 0) {
                                if (!(has_dead && dead[row])) cnt = emit(O, cnt, qi, row, (int64_t)d);
                            } else if (!(have_last && orig == last)) {
                                have_last = 1;
                                last = orig;
                                int64_t b0 = block_of(I, 0, orig);
                                int64_t r0 = b0 * B;
                                uint64_t c0 = I->firsts[b0];
                                int64_t p0 = I->starts[b0];
                                while (c0 <= orig) {
                                    if (c0 == orig && !(has_dead && dead[r0])) cnt = emit(O, cnt, qi, r0, (int64_t)d);
                                    r0++;
                                    if (r0 >= n) break;
                                    if (r0 % B == 0) {
                                        c0 = I->firsts[r0 / B];
                                        p0 = I->starts[r0 / B];
                                    } else
                                        c0 = next_val(D, &p0, c0, 0);
                                }
                            }
                        }
                    }
                }
                row++;
                if (row >= n) break;
                if (row % B == 0) {
                    blk = row / B;
                    if (blk >= nb) break;
                    cur = I->firsts[t * nb + blk];
                    pos = I->starts[t * nb + blk];
                } else
                    cur = next_val(D, &pos, cur, t);
            }
        }
    }
    return cnt;
}

/* query_compressed(qfps, k, words, firsts, starts, lut, L, B, n, mode, keybits, bits, perm, blocks, dead, outs) */
static PyObject *py_query_compressed(PyObject *self, PyObject *args) {
    PyObject *qo, *wo, *fo, *so, *lo, *kbo, *s, *d, *m, *bs, *bm, *fi, *deado, *oa, *ob, *od;
    long long k, L, B, n, mode, bits;
    if (!PyArg_ParseTuple(args, "OLOOOOLLLLOL(OOO)(OOO)O(OOO)", &qo, &k, &wo, &fo, &so, &lo, &L, &B, &n, &mode, &kbo,
                          &bits, &s, &d, &m, &bs, &bm, &fi, &deado, &oa, &ob, &od))
        return NULL;
    Held h = {.n = 0};
    Arr q, kb, dead;
    Dec D;
    Index I;
    Perm P;
    Blocks Bl;
    Outs O;
    int64_t T, nwords;
    if (get_arr(&h, qo, &q, 0, "qfps") < 0 || need(&q, U64, "qfps") < 0 ||
        parse_dec(&h, wo, fo, so, lo, L, mode, &D, &I, &T, &nwords) < 0 || get_arr(&h, kbo, &kb, 0, "keybits") < 0 ||
        need(&kb, I64, "keybits") < 0 || parse_perm(&h, s, d, m, &P) < 0 || parse_blocks(&h, bs, bm, fi, &Bl) < 0 ||
        get_arr(&h, deado, &dead, 0, "dead") < 0 || need(&dead, U8, "dead") < 0 || parse_outs(&h, oa, ob, od, &O) < 0) {
        release(&h);
        return NULL;
    }
    if (B < 1 || kb.len < T || (dead.len > 0 && dead.len < n) || (n + B - 1) / B > I.nb ||
        check_starts(&I, T, nwords) < 0) {
        release(&h);
        return PyErr_Format(PyExc_ValueError, "query_compressed: shapes disagree");
    }
    int64_t r;
    Py_BEGIN_ALLOW_THREADS;
    r = query_compressed_impl((const uint64_t *)q.p, q.len, k, &D, &I, T, B, n, (const int64_t *)kb.p, bits, &P, &Bl,
                              (const uint8_t *)dead.p, dead.len > 0, &O);
    Py_END_ALLOW_THREADS;
    release(&h);
    return PyLong_FromLongLong(r);
}

/* ---------------------------------------------------------------------------------------------- */

static PyMethodDef methods[] = {
    {"query_brute", py_query_brute, METH_VARARGS, "Every query against every fingerprint of a small buffer."},
    {"prefix_offsets", py_prefix_offsets, METH_VARARGS, "Directory of sorted values on their top bits, into out."},
    {"self_join_tables", py_self_join_tables, METH_VARARGS, "Every pair of rows within k over full-width tables."},
    {"union_find_labels", py_union_find, METH_VARARGS, "Connected components (label = smallest row), into out."},
    {"star_labels", py_star_labels, METH_VARARGS, "Star clustering labels, into out."},
    {"permute_sorted", py_permute_sorted, METH_VARARGS, "A table's permuted fingerprints, sorted."},
    {"sorted_with_ids", py_sorted_with_ids, METH_VARARGS, "Fingerprints sorted, with their ids."},
    {"fix_runs", py_fix_runs, METH_VARARGS, "Sort runs that agree above shift (ids follow, stable)."},
    {"order_matches", py_order_matches, METH_VARARGS, "Order of matches by query, distance, id; into out."},
    {"split_table", py_split_table, METH_VARARGS, "Cut sorted values into directory, hi and lo."},
    {"join_table0", py_join_table0, METH_VARARGS, "Table 0's full values, into out."},
    {"query_residual", py_query_residual, METH_VARARGS, "Every (query, row, distance) within k over residual tables."},
    {"build_tables", py_build_tables, METH_VARARGS, "Fill a segment's residual tables."},
    {"symbols", py_symbols, METH_VARARGS, "Huffman symbol counts of a sorted table, into counts; returns raw bits."},
    {"encode", py_encode, METH_VARARGS, "Huffman-code a sorted table; returns the end bit."},
    {"decode_all", py_decode_all, METH_VARARGS, "Decode a whole compressed table, into out."},
    {"query_compressed", py_query_compressed, METH_VARARGS, "Every (query, row, distance) within k, compressed tables."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_index_c", "The Hamming index kernels in C.", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__index_c(void) { return PyModule_Create(&module); }
