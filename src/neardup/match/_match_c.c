/* The match engine's kernels in C: the same algorithms as the numba kernels of tables.py, verify.py,
 * text.py, cluster.py and engine.py, with the same arguments (tuples of arrays where those take
 * tuples) and the same results bit for bit (tests/unit/match/test_match_c_vs_numba.py): the same
 * float operations in the same order where floats decide a kind, the same sort (numba's quicksort,
 * whose order of equal keys picks a substitution's partner) where ties matter. Built by pip at
 * install; without a C compiler the numba kernels run (neardup.match.kernels chooses).
 *
 * Arrays come through the buffer protocol, C-contiguous, in the dtypes the Python side makes them
 * (signature columns as ``Signatures.columns()`` holds them, tables as ``EngineState.tables()``,
 * results as ``engine._outputs``); a wrong dtype or shape raises TypeError or ValueError before any
 * work. Every loop runs without the GIL.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
/* the helper thread needs POSIX threads and the GCC/clang atomic builtins; elsewhere one thread */
#if !defined(_WIN32) && (defined(__GNUC__) || defined(__clang__))
#include <pthread.h>
#include <sched.h>
#define HAVE_HELPER 1
#else
#define HAVE_HELPER 0
#endif

/* a * b + c must round twice, as numba (LLVM without fast-math) computes it: no fused multiply-add */
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#elif defined(_MSC_VER)
#pragma fp_contract(off)
#endif

#define EMPTY32 0xFFFFFFFFu
#define EMPTY64 0xFFFFFFFFFFFFFFFFull
#define EVIDENCE_SIZE 20
/* the single characters of neardup/data/stopwords_zh.txt (的 了 和 是 在 ... 某 等 即 已 仍 当 个 位 些) but the
 * places (上 下 中 里 内 外, as in 中国 and 上海): one of them replaced by another character is a typo or a
 * look-alike, not a subject; their profile values are set at import */
static const uint32_t FUNCTION_CP[] = {
    0x7684, 0x4E86, 0x548C, 0x662F, 0x5728, 0x4E5F, 0x5C31, 0x90FD, 0x800C, 0x53CA, 0x4E0E, 0x7740, 0x6216,
    0x6211, 0x4F60, 0x4ED6, 0x5979, 0x5B83, 0x8FD9, 0x90A3, 0x4E4B, 0x5176, 0x6B64, 0x4E8E, 0x4EE5, 0x4E3A,
    0x5BF9, 0x4ECE, 0x88AB, 0x628A, 0x8BA9, 0x5411, 0x7531, 0x7ED9, 0x5C06, 0x5E76, 0x4E14, 0x53C8, 0x4F46,
    0x8FD8, 0x66F4, 0x5F88, 0x6700, 0x592A, 0x4F1A, 0x8981, 0x5E94, 0x5F97, 0x5730, 0x5417, 0x5462, 0x5427,
    0x554A, 0x5440, 0x54E6, 0x561B, 0x4E48, 0x54EA, 0x8C01, 0x6709, 0x65E0, 0x4E0D, 0x6CA1, 0x5404, 0x6BCF,
    0x67D0, 0x7B49, 0x5373, 0x5219, 0x4E43, 0x4EA6, 0x5DF2, 0x4ECD, 0x5F53, 0x4E2A, 0x4F4D, 0x4E9B};
#define N_FUNCTION (sizeof(FUNCTION_CP) / sizeof(FUNCTION_CP[0]))
static uint32_t FUNCTION_CJK[N_FUNCTION];

static uint64_t cjk_mix(uint64_t x) { /* the signature kernel's token of a CJK character (smix) */
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

static int function_cjk(uint32_t v) {
    for (size_t i = 0; i < N_FUNCTION; i++)
        if ((v & 0x0FFFFFFFu) == FUNCTION_CJK[i]) return 1;
    return 0;
}
/* substitutions of figures only (numbers on both sides) that name another occasion */
#define FIGURES_OCCASION 3
#define LATIN_UNITS 5
#define N_TH 27
#define NO_DAY INT32_MIN
#define MAXBUF 48

enum { UNIQUE, EXACT, CONTENT, NEAR, PARTIAL, LAYOUT, CONTAINED, TEMPLATE };
enum { SLOTS, ENTRIES, XKEYS, CKEYS, STAMPS };

/* text profile token bits (neardup.match.text) */
#define T_CJK 0x80000000u
#define T_OCCASION 0x40000000u
#define T_QUOTED 0x20000000u
#define T_NUMBER 0x10000000u
#define T_HASH 0x0FFFFFFFu
#define T_P 0x9E3779B97F4A7C15ull
#define T_SHORT 16
#define T_OCCASION_RUN 80 /* text.py _OCCASION_RUN, _OCCASION_FIGURES */
#define T_OCCASION_FIGURES 2
#define T_ALIGN 64
#define T_GAP 2

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

typedef struct {
    char *p;
    Py_ssize_t len;  /* elements */
    Py_ssize_t rows; /* the first dimension (the length of a 1-D array) */
    Py_ssize_t cols; /* product of the other dimensions (1 for 1-D) */
    int ndim;
} Arr;

/* element kinds: 'u' unsigned, 'i' signed, 'f' float, 'b' bool, with the item size */
static int get_arr(Held *h, PyObject *o, Arr *a, int writable, char kind, int size, int ndim, const char *name) {
    if (h->n >= MAXBUF) {
        PyErr_SetString(PyExc_RuntimeError, "too many arrays");
        return -1;
    }
    Py_buffer *v = &h->v[h->n];
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(o, v, flags) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s must be a %sC-contiguous array, got %.80s", name,
                     writable ? "writable " : "", Py_TYPE(o)->tp_name);
        return -1;
    }
    h->n++;
    const char *f = v->format ? v->format : "B";
    while (*f == '@' || *f == '=' || *f == '<') f++;
    char c = *f;
    char got;
    if (c && strchr("bhilqn", c))
        got = 'i';
    else if (c && strchr("BHILQN", c))
        got = 'u';
    else if (c == '?')
        got = 'b';
    else if (c == 'd' || c == 'f')
        got = 'f';
    else
        got = '?';
    int ok = f[1] == 0 && v->itemsize == size && (got == kind || (kind == 'b' && got == 'u' && size == 1));
    if (!ok) {
        const char *what = kind == 'u' ? "uint" : kind == 'i' ? "int" : kind == 'f' ? "float" : "bool";
        if (kind == 'b')
            PyErr_Format(PyExc_TypeError, "%s must be a bool array, got format %s", name, v->format);
        else
            PyErr_Format(PyExc_TypeError, "%s must be a %s%d array, got format %s (item size %zd)", name, what,
                         8 * size, v->format, v->itemsize);
        return -1;
    }
    if (v->ndim != ndim) {
        PyErr_Format(PyExc_ValueError, "%s must have %d dimension%s, got %d", name, ndim, ndim == 1 ? "" : "s",
                     v->ndim);
        return -1;
    }
    a->p = (char *)v->buf;
    a->len = v->len / v->itemsize;
    a->ndim = v->ndim;
    a->rows = v->ndim >= 1 ? v->shape[0] : 1;
    a->cols = a->rows > 0 ? a->len / a->rows : (v->ndim >= 2 ? v->shape[1] : 1);
    return 0;
}

static int tuple_of(PyObject *t, Py_ssize_t n, const char *name) {
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != n) {
        PyErr_Format(PyExc_TypeError, "%s must be a tuple of %zd arrays", name, n);
        return -1;
    }
    return 0;
}

static inline uint64_t popcount64(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return (uint64_t)__builtin_popcountll(x);
#else
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (x * 0x0101010101010101ull) >> 56;
#endif
}

/* ---------------------------------------------------------------------------------------------- */
/* sorts: numba's quicksort (numba/misc/quicksort.py), so equal keys come out in its order          */

#define SMALL_QUICKSORT 15
#define MAX_STACK 100

/* R = argsort(A) as numba's np.argsort (kind "quicksort") computes it. The sort moves (value, index)
 * pairs in KV (n entries of scratch) rather than indices into A: the same comparisons and swaps as
 * numba's index sort, so the same permutation, without a random read of A per comparison. */
typedef struct {
    uint64_t v;
    int64_t i;
} KV;

static void argsort_kv(const uint64_t *A, int64_t n, int64_t *R, KV *K) {
    for (int64_t i = 0; i < n; i++) {
        K[i].v = A[i];
        K[i].i = i;
    }
    if (n >= 2) {
        int64_t slo[MAX_STACK], shi[MAX_STACK];
        slo[0] = 0;
        shi[0] = n - 1;
        int64_t sp = 1;
        while (sp > 0) {
            sp--;
            int64_t low = slo[sp], high = shi[sp];
            while (high - low >= SMALL_QUICKSORT) {
                /* partition */
                int64_t mid = (low + high) >> 1;
                KV t;
                if (K[mid].v < K[low].v) { t = K[low]; K[low] = K[mid]; K[mid] = t; }
                if (K[high].v < K[mid].v) { t = K[high]; K[high] = K[mid]; K[mid] = t; }
                if (K[mid].v < K[low].v) { t = K[low]; K[low] = K[mid]; K[mid] = t; }
                uint64_t pivot = K[mid].v;
                t = K[high]; K[high] = K[mid]; K[mid] = t;
                int64_t i = low, j = high - 1;
                for (;;) {
                    while (i < high && K[i].v < pivot) i++;
                    while (j >= low && pivot < K[j].v) j--;
                    if (i >= j) break;
                    t = K[i]; K[i] = K[j]; K[j] = t;
                    i++;
                    j--;
                }
                t = K[i]; K[i] = K[high]; K[high] = t;
                if (high - i > i - low) {
                    if (high > i) {
                        slo[sp] = i + 1;
                        shi[sp] = high;
                        sp++;
                    }
                    high = i - 1;
                } else {
                    if (i > low) {
                        slo[sp] = low;
                        shi[sp] = i - 1;
                        sp++;
                    }
                    low = i + 1;
                }
            }
            /* insertion sort of [low, high] */
            for (int64_t i = low + 1; i <= high; i++) {
                KV k = K[i];
                int64_t j = i;
                while (j > low && k.v < K[j - 1].v) {
                    K[j] = K[j - 1];
                    j--;
                }
                K[j] = k;
            }
        }
    }
    for (int64_t i = 0; i < n; i++) R[i] = K[i].i;
}

/* an ascending sort of values (where equal values are alike, any correct sort gives numba's) */
#define DEFINE_VSORT(NAME, T)                                                                          \
    static void NAME(T *A, int64_t n) {                                                                \
        if (n < 2) return;                                                                             \
        int64_t slo[MAX_STACK], shi[MAX_STACK];                                                        \
        slo[0] = 0;                                                                                    \
        shi[0] = n - 1;                                                                                \
        int64_t sp = 1;                                                                                \
        while (sp > 0) {                                                                               \
            sp--;                                                                                      \
            int64_t low = slo[sp], high = shi[sp];                                                     \
            while (high - low >= SMALL_QUICKSORT) {                                                    \
                int64_t mid = (low + high) >> 1;                                                       \
                T t;                                                                                   \
                if (A[mid] < A[low]) { t = A[low]; A[low] = A[mid]; A[mid] = t; }                     \
                if (A[high] < A[mid]) { t = A[high]; A[high] = A[mid]; A[mid] = t; }                  \
                if (A[mid] < A[low]) { t = A[low]; A[low] = A[mid]; A[mid] = t; }                     \
                T pivot = A[mid];                                                                      \
                t = A[high]; A[high] = A[mid]; A[mid] = t;                                             \
                int64_t i = low, j = high - 1;                                                         \
                for (;;) {                                                                             \
                    while (i < high && A[i] < pivot) i++;                                              \
                    while (j >= low && pivot < A[j]) j--;                                              \
                    if (i >= j) break;                                                                 \
                    t = A[i]; A[i] = A[j]; A[j] = t;                                                   \
                    i++;                                                                               \
                    j--;                                                                               \
                }                                                                                      \
                t = A[i]; A[i] = A[high]; A[high] = t;                                                 \
                if (high - i > i - low) {                                                              \
                    if (high > i) { slo[sp] = i + 1; shi[sp] = high; sp++; }                           \
                    high = i - 1;                                                                      \
                } else {                                                                               \
                    if (i > low) { slo[sp] = low; shi[sp] = i - 1; sp++; }                             \
                    low = i + 1;                                                                       \
                }                                                                                      \
            }                                                                                          \
            for (int64_t i = low + 1; i <= high; i++) {                                                \
                T v = A[i];                                                                            \
                int64_t j = i;                                                                         \
                while (j > low && v < A[j - 1]) {                                                      \
                    A[j] = A[j - 1];                                                                   \
                    j--;                                                                               \
                }                                                                                      \
                A[j] = v;                                                                              \
            }                                                                                          \
        }                                                                                              \
    }

DEFINE_VSORT(qsort_u64, uint64_t)
DEFINE_VSORT(sort_i64, int64_t)

#include "../_radix_sort.h"

static int kv_order(const void *x, const void *y) {
    const KV *p = x, *q = y;
    if (p->v != q->v) return p->v < q->v ? -1 : 1;
    return p->i < q->i ? -1 : p->i > q->i;
}

/* R = the stable argsort of A (equal values in index order, as np.argsort(kind="mergesort")); K
 * and T: n entries of scratch each, C: 2n + 2 counters */
static void argsort_stable(const uint64_t *A, int64_t n, int64_t *R, KV *K, KV *T, int32_t *C) {
    if (n <= 0) return;
    uint64_t lo;
    int shift;
    if (!spread_buckets(A, n, C, &lo, &shift)) {
        for (int64_t i = 0; i < n; i++) {
            K[i].v = A[i];
            K[i].i = i;
        }
        qsort(K, (size_t)n, sizeof(KV), kv_order);
    } else {
        for (int64_t i = 0; i < n; i++) {
            int64_t at = C[(A[i] - lo) >> shift]++;
            T[at].v = A[i];
            T[at].i = i;
        }
        /* insertion sort: only values of one bucket are out of order; a value moves past greater
         * values only, so equal values keep their index order */
        K[0] = T[0];
        for (int64_t i = 1; i < n; i++) {
            KV k = T[i];
            int64_t j = i;
            while (j > 0 && k.v < K[j - 1].v) {
                K[j] = K[j - 1];
                j--;
            }
            K[j] = k;
        }
    }
    for (int64_t i = 0; i < n; i++) R[i] = K[i].i;
}

/* the first index i with s[i] >= x (np.searchsorted, side "left") */
static inline int64_t search_u64(const uint64_t *s, int64_t n, uint64_t x) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + ((hi - lo) >> 1);
        if (s[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* ---------------------------------------------------------------------------------------------- */
/* work space: buffers sized once per call to the longest text profile                            */

typedef struct {
    int64_t cap; /* tokens */
    int err;     /* 1: a profile pointer outside the profiles, 2: out of memory */
    uint64_t *wa, *wb, *sa, *sb, *keys, *bkeys, *pairs, *swaps, *spans;
    int64_t *oa, *ob, *runs, *swap_units, *order;
    KV *kv, *kv2; /* argsort_kv's and argsort_stable's scratch */
    uint64_t *spare; /* sort_spread's scratch */
    int32_t *count; /* 2 cap + 2 counters of the spread sorts */
    uint8_t *cov_a, *cov_b, *ones;
    uint32_t *occ;
    /* wa, oa and sa hold the windows of the profile at a_p (a_n tokens, a_w wide): a document
     * checked against several others has them made once */
    const uint32_t *a_p;
    int64_t a_n, a_w;
    /* akeys[0..a_nk): the profile at a_p's terms, sorted, once a_keys is set (repeated) */
    uint64_t *akeys;
    int64_t a_nk;
    int a_keys;
    /* the same for the second profile: wb, ob and sb hold the windows of the profile at b_p (b_n
     * tokens, b_w wide), and bkeys[0..b_nk) its sorted terms once b_keys is set, so pairs that share
     * their second document (rows grouped by partner) make them once */
    const uint32_t *b_p;
    int64_t b_n, b_w, b_nk;
    int b_keys;
} Work;

static void work_free(Work *w) {
    free(w->wa); free(w->wb); free(w->sa); free(w->sb); free(w->keys); free(w->bkeys); free(w->pairs);
    free(w->swaps); free(w->spans); free(w->oa); free(w->ob); free(w->runs); free(w->swap_units); free(w->cov_a);
    free(w->cov_b); free(w->ones); free(w->occ); free(w->order); free(w->akeys); free(w->kv);
    free(w->kv2); free(w->spare); free(w->count);
    w->kv = w->kv2 = NULL;
    w->spare = NULL;
    w->count = NULL;
    w->wa = w->wb = w->sa = w->sb = w->keys = w->bkeys = w->pairs = w->swaps = w->spans = NULL;
    w->oa = w->ob = w->runs = w->swap_units = w->order = NULL;
    w->akeys = NULL;
    w->a_p = NULL;
    w->a_keys = 0;
    w->b_p = NULL;
    w->b_keys = 0;
    w->cov_a = w->cov_b = w->ones = NULL;
    w->occ = NULL;
    w->cap = 0;
}

/* buffers for texts of up to ``cap`` tokens (grown as needed, without the GIL); -1 when out of memory */
static int work_reserve(Work *w, int64_t cap) {
    if (cap <= w->cap && w->wa) return 0;
    int err = w->err;
    work_free(w);
    w->err = err;
    int64_t want = cap < 256 ? 256 : cap;
    size_t c = (size_t)want + 1;
    w->wa = malloc(c * 8); w->wb = malloc(c * 8); w->sa = malloc(c * 8); w->sb = malloc(c * 8);
    w->keys = malloc(c * 8); w->bkeys = malloc(c * 8); w->pairs = malloc(c * 8); w->swaps = malloc(c * 8);
    w->spans = malloc(2 * c * 8);
    w->oa = malloc(c * 8); w->ob = malloc(c * 8); w->runs = malloc(c * 8); w->swap_units = malloc(c * 8);
    w->cov_a = malloc(c); w->cov_b = malloc(c); w->ones = malloc(c); w->occ = malloc(c * 4);
    w->order = malloc(c * 8); w->akeys = malloc(c * 8); w->kv = malloc(c * sizeof(KV));
    w->kv2 = malloc(c * sizeof(KV)); w->spare = malloc(c * 8); w->count = malloc((2 * c + 2) * sizeof(int32_t));
    if (!w->kv || !w->kv2 || !w->spare || !w->count || !w->akeys || !w->wa || !w->wb || !w->sa || !w->sb || !w->keys || !w->bkeys || !w->pairs || !w->swaps || !w->spans || !w->oa ||
        !w->ob || !w->runs || !w->swap_units || !w->cov_a || !w->cov_b || !w->ones || !w->occ || !w->order) {
        work_free(w);
        w->err = 2;
        return -1;
    }
    memset(w->ones, 1, c);
    w->cap = want;
    return 0;
}

/* an empty work space (``cap`` 0: buffers come with the first text evidence) or one for ``cap`` tokens */
static int work_init(Work *w, int64_t cap) {
    memset(w, 0, sizeof(*w));
    return cap > 0 ? work_reserve(w, cap) : 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* text evidence (text.py)                                                                          */

static inline int64_t units(uint32_t t) { return (t & T_CJK) ? 1 : LATIN_UNITS; }

/* the hash of each window of w tokens, h = w P^w + sum of x_t P^(w-1-t) (mod 2^64), rolled from one
 * window to the next: the same values as hashing each window afresh */
static void windows(const uint32_t *p, int64_t np_, int64_t w, uint64_t *out) {
    int64_t n = np_ - w + 1;
    if (n <= 0) return;
    uint64_t top = 1; /* P^(w-1) */
    for (int64_t t = 1; t < w; t++) top *= T_P;
    uint64_t seed = (uint64_t)w * top * T_P; /* w P^w */
    uint64_t h = (uint64_t)w;
    for (int64_t t = 0; t < w; t++) h = h * T_P + (uint64_t)(p[t] & (T_HASH | T_CJK));
    out[0] = h ^ (h >> 29);
    for (int64_t s = 1; s < n; s++) {
        h = (h - seed - (uint64_t)(p[s - 1] & (T_HASH | T_CJK)) * top) * T_P + seed +
            (uint64_t)(p[s + w - 1] & (T_HASH | T_CJK));
        out[s] = h ^ (h >> 29);
    }
}

/* per token of a and of b: covered by a window the other text also holds. One merge of the two
 * sorted window lists (sa with its order oa, sb with ob) marks the start of every shared window,
 * then a sweep spreads each start over the w tokens of its window. */
static void spread(uint8_t *cov, int64_t n, int64_t w) {
    int64_t last = -w; /* the start of the last shared window met */
    for (int64_t t = 0; t < n; t++) {
        if (cov[t]) last = t;
        cov[t] = t - last < w;
    }
}

static void cover(const uint64_t *sa, const int64_t *oa, int64_t nwa, const uint64_t *sb, const int64_t *ob,
                  int64_t nwb, int64_t na, int64_t nb, int64_t w, uint8_t *cov_a, uint8_t *cov_b) {
    memset(cov_a, 0, (size_t)na);
    memset(cov_b, 0, (size_t)nb);
    int64_t i = 0, k = 0;
    while (i < nwa && k < nwb) {
        if (sa[i] < sb[k]) {
            i++;
        } else if (sb[k] < sa[i]) {
            k++;
        } else {
            uint64_t v = sa[i];
            while (i < nwa && sa[i] == v) cov_a[oa[i++]] = 1;
            while (k < nwb && sb[k] == v) cov_b[ob[k++]] = 1;
        }
    }
    spread(cov_a, na, w);
    spread(cov_b, nb, w);
}

/* Two facing uncovered runs that are one text with single tokens changed, dropped or added (typos
 * or look-alike characters too close together for a window to cover the text between them): their
 * tokens in common, in order, are covered, so that only the changed tokens are left uncovered, as
 * short substitutions. Every gap of a longest common subsequence must hold at most T_GAP tokens on
 * each side, and the tokens in common must be at least twice the tokens the longer run does not
 * share (a sentence reworded, or a name and a date replaced, leave too little in common). Runs
 * longer than T_ALIGN tokens are left as they are. */
static void align_run(const uint32_t *a, int64_t t, int64_t e, uint8_t *cov_a, const uint32_t *b, int64_t q,
                      int64_t f, uint8_t *cov_b, int tail) {
    int64_t la = e - t, lb = f - q;
    if (la < 2 || lb < 2 || la > T_ALIGN || lb > T_ALIGN) return;
    uint8_t L[T_ALIGN + 1][T_ALIGN + 1];
    const uint32_t M = T_HASH | T_CJK;
    for (int64_t i = 0; i <= la; i++) L[i][0] = 0;
    for (int64_t j = 0; j <= lb; j++) L[0][j] = 0;
    for (int64_t i = 1; i <= la; i++)
        for (int64_t j = 1; j <= lb; j++)
            L[i][j] = (a[t + i - 1] & M) == (b[q + j - 1] & M) ? (uint8_t)(L[i - 1][j - 1] + 1)
                      : (L[i - 1][j] >= L[i][j - 1] ? L[i - 1][j] : L[i][j - 1]);
    int64_t matched = L[la][lb];
    if (matched < (tail ? 1 : 2) * ((la > lb ? la : lb) - matched)) return;
    for (int pass = 0; pass < 2; pass++) {
        int64_t i = la, j = lb, ga = 0, gb = 0;
        while (i > 0 || j > 0) {
            if (i > 0 && j > 0 && (a[t + i - 1] & M) == (b[q + j - 1] & M)) {
                if (pass) {
                    cov_a[t + i - 1] = 1;
                    cov_b[q + j - 1] = 1;
                } else if (ga > T_GAP || gb > T_GAP) {
                    return;
                }
                ga = gb = 0;
                i--;
                j--;
            } else if (i > 0 && (j == 0 || L[i - 1][j] >= L[i][j - 1])) {
                ga++;
                i--;
            } else {
                gb++;
                j--;
            }
        }
        if (!pass && (ga > T_GAP || gb > T_GAP)) return;
    }
}

/* where b's uncovered run starts right after the shared window that ends before a's token t (at the
 * window's first place in b); -1 when shared text follows the window there, -2 when b does not hold
 * the window (text.py's _after_window) */
static int64_t after_window(const uint64_t *wa, const uint64_t *sb, const int64_t *ob, int64_t nwb,
                            const uint8_t *cov_b, int64_t nb, int64_t t, int64_t w) {
    int64_t i = search_u64(sb, nwb, wa[t - w]);
    if (!(i < nwb && sb[i] == wa[t - w])) return -2;
    int64_t q = ob[i] + w;
    return q < nb && !cov_b[q] ? q : -1;
}

/* align_run over each uncovered run of a that follows a shared window, facing an uncovered run of b
 * right after the same window (both ending before a shared token, or both at the texts' ends) */
static void align_runs(const uint32_t *a, int64_t na, const uint64_t *wa, uint8_t *cov_a, const uint32_t *b,
                       int64_t nb, const uint64_t *sb, const int64_t *ob, int64_t nwb, uint8_t *cov_b, int64_t w) {
    int64_t t = w;
    while (t < na) {
        if (cov_a[t] || !cov_a[t - 1]) {
            t++;
            continue;
        }
        int64_t e = t;
        while (e < na && !cov_a[e]) e++;
        int64_t q = after_window(wa, sb, ob, nwb, cov_b, nb, t, w);
        if (q >= 0) {
            int64_t f = q;
            while (f < nb && !cov_b[f]) f++;
            if ((e < na) == (f < nb)) align_run(a, t, e, cov_a, b, q, f, cov_b, e == na);
        }
        t = e;
    }
}

/* the two characters of each marker of a phase of a visit (the profile's values, as text.py's
 * _PHASE_FIRST/_PHASE_SECOND): an announcement's "will" (将于 将在 将赴 将出 将访 将对 将率), a
 * departure (离开 离京), a return (返抵), an arrival (抵达) */
static const uint32_t PHASE_FIRST[] = {0x86e102b7u, 0x86e102b7u, 0x86e102b7u, 0x86e102b7u, 0x86e102b7u, 0x86e102b7u,
                                       0x86e102b7u, 0x876cd050u, 0x876cd050u, 0x84080e4cu, 0x82993956u};
static const uint32_t PHASE_SECOND[] = {0x8e47e152u, 0x80bf50f3u, 0x8bbc72fdu, 0x83ff0177u, 0x8eeef0e1u, 0x86acabc9u,
                                        0x8eb23e85u, 0x84571c64u, 0x86653c5au, 0x82993956u, 0x88cbd61eu};

/* the same for the markers of another genre told of one event (text.py's _GENRE_FIRST/_GENRE_SECOND):
 * the reactions to it (反响) */
static const uint32_t GENRE_FIRST[] = {0x84e95a48u};
static const uint32_t GENRE_SECOND[] = {0x8d80933eu};

/* and the words of a reaction, read in the shorter text only (text.py's _REACTION_FIRST/_SECOND):
 * 鼓舞 界表 振奋 */
static const uint32_t REACTION_FIRST[] = {0x813940c7u, 0x8111e72bu, 0x8088a719u};
static const uint32_t REACTION_SECOND[] = {0x8ea854ccu, 0x86afc1e8u, 0x871e060au};

#define N_PHASE (sizeof PHASE_FIRST / sizeof PHASE_FIRST[0])
#define N_GENRE (sizeof GENRE_FIRST / sizeof GENRE_FIRST[0])
#define N_REACTION (sizeof REACTION_FIRST / sizeof REACTION_FIRST[0])
#define N_MARKERS (N_PHASE + N_GENRE + N_REACTION)
#define PHASE_BITS ((1u << N_PHASE) - 1)
#define REACTION_BITS (((1u << N_MARKERS) - 1) & ~((1u << (N_PHASE + N_GENRE)) - 1))
#define GENRE_BITS (((1u << (N_PHASE + N_GENRE)) - 1) & ~PHASE_BITS)

/* marker i's two characters: the phases', then the genre's, then the reactions' */
static inline void marker(unsigned i, uint32_t *f, uint32_t *s) {
    if (i < N_PHASE) {
        *f = PHASE_FIRST[i];
        *s = PHASE_SECOND[i];
    } else if (i < N_PHASE + N_GENRE) {
        *f = GENRE_FIRST[i - N_PHASE];
        *s = GENRE_SECOND[i - N_PHASE];
    } else {
        *f = REACTION_FIRST[i - N_PHASE - N_GENRE];
        *s = REACTION_SECOND[i - N_PHASE - N_GENRE];
    }
}

/* the markers in p as a bit per marker: among its uncovered tokens (*own) and anywhere (*every), in
 * one pass */
static void markers(const uint32_t *p, int64_t n, const uint8_t *cov, unsigned *own, unsigned *every) {
    *own = *every = 0;
    uint64_t firsts = 0; /* a bit per marker's first character, by its low six bits */
    uint32_t f, s;
    for (unsigned i = 0; i < N_MARKERS; i++) {
        marker(i, &f, &s);
        firsts |= 1ull << (f & 63);
    }
    for (int64_t t = 0; t + 1 < n; t++) {
        uint32_t x = p[t] & (T_HASH | T_CJK), y = p[t + 1] & (T_HASH | T_CJK);
        if (!((firsts >> (x & 63)) & 1)) continue;
        for (unsigned i = 0; i < N_MARKERS; i++) {
            marker(i, &f, &s);
            if (x == f && y == s) {
                *every |= 1u << i;
                if (!cov[t]) *own |= 1u << i;
            }
        }
    }
}

static int64_t lead(const uint32_t *a, int64_t na, const uint8_t *cov) {
    int64_t n = 0;
    for (int64_t t = 0; t < na; t++) {
        if (cov[t]) return n;
        n += units(a[t]);
    }
    return n;
}

static int own_occasion(const uint32_t *a, int64_t na, const uint8_t *cov_a, const uint32_t *b, int64_t nb,
                        uint32_t *occ) {
    int64_t m = 0;
    for (int64_t t = 0; t < nb; t++)
        if (b[t] & T_OCCASION) occ[m++] = b[t] & T_HASH;
    for (int64_t t = 0; t < na; t++) {
        if (!cov_a[t] && (a[t] & T_OCCASION)) {
            uint32_t v = a[t] & T_HASH;
            int found = 0;
            for (int64_t i = 0; i < m; i++)
                if (occ[i] == v) {
                    found = 1;
                    break;
                }
            if (!found) return 1;
        }
    }
    return 0;
}

/* the units of a text's lead, where news names its occasion (the day, the session, the meeting) */
#define LEAD_UNITS 60
/* the kind of occasion number p[t] names in a lead: 1 an ordinal (before 次 届 期: a session, a
 * meeting), 2 a day (before 日; 号 also numbers a decree or a line: 第四十六号主席令), but not the
 * day after 今天 / 昨天 / 明天 within four tokens (a broadcast's "today (February 5)" dates its
 * telling, not the event); 0 another (a year, a month, 第一 in 质量第一) */
static int lead_kind(const uint32_t *p, int64_t n, int64_t t) {
    const uint32_t m = T_HASH | T_CJK;
    uint32_t next = t + 1 < n ? p[t + 1] & m : 0;
    if (next == 0x84a592f0u || next == 0x89b5c3eeu || next == 0x8e299f58u) return 1; /* 次 届 期 */
    if (next != 0x87109468u) return 0; /* 日 */
    for (int64_t x = t - 1; x >= 0 && x >= t - 4; x--) {
        uint32_t c = p[x] & m;
        if (c == 0x893ab33du || c == 0x8148438cu || c == 0x86870dfau) return 0; /* 今 昨 明 */
    }
    return 2;
}

/* the leads of a and b name two occasions: a's lead holds an occasion number of its own (not
 * shared) that b's lead never holds, and b's lead one of the same kind that is none of a's own:
 * the 37th chairmen's meeting on the 26th against the committee's 11th session on the 27th; a
 * wire's dateline against a broadcast that writes no date, or 今天 for 26日, names one side's only */
static int lead_occasions(const uint32_t *a, int64_t na, const uint8_t *cov_a, const uint32_t *b, int64_t nb,
                          const uint8_t *cov_b) {
    uint32_t own_a[32], all_b[32], own_b[32];
    int kind_a[32], kind_b[32];
    int ma = 0, mb = 0, mo = 0;
    int64_t u = 0;
    for (int64_t t = 0; t < na && u < LEAD_UNITS && ma < 32; t++) {
        u += units(a[t]);
        int k = (a[t] & T_OCCASION) && !cov_a[t] ? lead_kind(a, na, t) : 0;
        if (k) {
            kind_a[ma] = k;
            own_a[ma++] = a[t] & T_HASH;
        }
    }
    u = 0;
    for (int64_t t = 0; t < nb && u < LEAD_UNITS && mb < 32; t++) {
        u += units(b[t]);
        if (!(b[t] & T_OCCASION)) continue;
        all_b[mb++] = b[t] & T_HASH;
        int k = cov_b[t] ? 0 : lead_kind(b, nb, t);
        if (k) {
            kind_b[mo] = k;
            own_b[mo++] = b[t] & T_HASH;
        }
    }
    for (int i = 0; i < ma; i++) {
        int held = 0;
        for (int j = 0; j < mb; j++) held |= own_a[i] == all_b[j];
        if (held) continue;
        for (int j = 0; j < mo; j++) {
            if (kind_b[j] != kind_a[i]) continue;
            int mine = 0;
            for (int x = 0; x < ma; x++) mine |= own_b[j] == own_a[x];
            if (!mine) return 1;
        }
    }
    return 0;
}

/* the words a substitution may lie in and the characters that name opposites (match/words.py
 * WORD_KEYS, ANTONYM_KEYS), set from Python by set_words at import; empty until then */
static uint64_t *WORD_KEYS = NULL, *ANTONYM_KEYS = NULL;
static int64_t N_WORD_KEYS = 0, N_ANTONYM_KEYS = 0;
/* rewrites beyond this many in one pair are all taken as repeated (a spun text), not compared */
#define MANY_REWRITES 64
/* the spans extended by up to two shared tokens on each side, the shortest extension first */
static const int EXTEND[9][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {2, 0}, {0, 2}, {2, 1}, {1, 2}, {2, 2}};

static uint64_t word_key(const uint32_t *p, int64_t s, int64_t e) {
    uint64_t h = 1;
    for (int64_t x = s; x < e; x++) h = h * T_P + (uint64_t)(p[x] & T_HASH);
    return h & ~(uint64_t)1;
}

/* -1: no word of WORD_KEYS; 1: a word a rewrite may swap; 0: another word */
static int word_kind(uint64_t key) {
    int64_t i = search_u64(WORD_KEYS, N_WORD_KEYS, key);
    if (i < N_WORD_KEYS && WORD_KEYS[i] == key) return 0;
    if (i < N_WORD_KEYS && WORD_KEYS[i] == (key | 1)) return 1;
    return -1;
}

/* text._shared_around: the `left` CJK tokens before a's span [t, e) and the `right` after it are b's
 * around [q, f) */
static inline int shared_around(const uint32_t *a, int64_t na, int64_t t, int64_t e, const uint32_t *b, int64_t nb,
                                int64_t q, int64_t f, int64_t left, int64_t right) {
    if (t - left < 0 || q - left < 0 || e + right > na || f + right > nb) return 0;
    const uint32_t m = T_HASH | T_CJK;
    for (int64_t j = 1; j <= left; j++)
        if ((a[t - j] & m) != (b[q - j] & m) || !(a[t - j] & T_CJK)) return 0;
    for (int64_t j = 0; j < right; j++)
        if ((a[e + j] & m) != (b[f + j] & m) || !(a[e + j] & T_CJK)) return 0;
    return 1;
}

/* text._rewrite: a's CJK span [t, e) replaced by b's [q, f) says the same in other words */
static int rewrite(const uint32_t *a, int64_t na, int64_t t, int64_t e, const uint32_t *b, int64_t nb, int64_t q,
                   int64_t f) {
    for (int64_t x = t; x < e; x++)
        if (!(a[x] & T_CJK)) return 0;
    for (int64_t x = q; x < f; x++)
        if (!(b[x] & T_CJK)) return 0;
    for (int k = 0; k < 9; k++) {
        int64_t left = EXTEND[k][0], right = EXTEND[k][1];
        if (!shared_around(a, na, t, e, b, nb, q, f, left, right)) continue;
        int ka = word_kind(word_key(a, t - left, e + right)), kb = word_kind(word_key(b, q - left, f + right));
        if (ka < 0 || kb < 0) continue;
        if (ka == 0 || kb == 0) return 0;
        for (int64_t x = t; x < e; x++)
            for (int64_t y = q; y < f; y++) {
                uint64_t u = a[x] & T_HASH, v = b[y] & T_HASH;
                uint64_t pair = ((u < v ? u : v) << 32) | (u < v ? v : u);
                int64_t i = search_u64(ANTONYM_KEYS, N_ANTONYM_KEYS, pair);
                if (i < N_ANTONYM_KEYS && ANTONYM_KEYS[i] == pair) return 0;
            }
        return 1;
    }
    return 0;
}

/* text._form: the form a's span [t, e) is written in, replaced by b's [q, f): the span itself among
 * words, and among CJK the shortest word of WORD_KEYS of two characters or more it lies in with the
 * tokens both texts hold around it; 0 for none */
static int form(const uint32_t *a, int64_t na, int64_t t, int64_t e, const uint32_t *b, int64_t nb, int64_t q,
                int64_t f, int64_t *s, int64_t *x) {
    int cjk = 1;
    for (int64_t i = t; i < e; i++) cjk = cjk && (a[i] & T_CJK);
    if (!cjk) {
        *s = t;
        *x = e;
        return 1;
    }
    for (int k = 0; k < 9; k++) {
        int64_t left = EXTEND[k][0], right = EXTEND[k][1];
        if (e - t + left + right < 2) continue;
        if (shared_around(a, na, t, e, b, nb, q, f, left, right) && word_kind(word_key(a, t - left, e + right)) >= 0) {
            *s = t - left;
            *x = e + right;
            return 1;
        }
    }
    return 0;
}

/* text._count_form: how often b holds a's tokens [s, e) in text both share */
static int64_t count_form(const uint32_t *a, int64_t s, int64_t e, const uint32_t *b, int64_t nb,
                          const uint8_t *cov_b) {
    const uint32_t m = T_HASH | T_CJK;
    int64_t n = e - s, count = 0;
    for (int64_t y = 0; y + n <= nb; y++) {
        int hit = 1;
        for (int64_t j = 0; j < n && hit; j++) hit = (b[y + j] & m) == (a[s + j] & m) && cov_b[y + j];
        count += hit;
    }
    return count;
}

/* text._kept: a substitution made alike in `places` places is an edit, not a template's subject, when
 * the text that replaced a form still writes it, in the text both share, in as many places or more
 * (a repeated typo or look-alike), where a template replaces its subject wherever the texts agree */
static int kept(const uint32_t *a, int64_t na, const uint8_t *cov_a, const uint32_t *b, int64_t nb,
                const uint8_t *cov_b, const uint64_t *span, int64_t places) {
    int64_t t = (int64_t)(span[0] >> 32), e = (int64_t)(span[0] & 0xFFFFFFFFu);
    int64_t q = (int64_t)(span[1] >> 32), f = (int64_t)(span[1] & 0xFFFFFFFFu);
    int64_t s, x;
    if (form(a, na, t, e, b, nb, q, f, &s, &x) && count_form(a, s, x, b, nb, cov_b) >= places) return 1;
    return form(b, nb, q, f, a, na, t, e, &s, &x) && count_form(b, s, x, a, na, cov_a) >= places;
}

/* the terms of p where mask == want, with the run each lies in; returns how many */
static int64_t terms(const uint32_t *p, int64_t n, const uint8_t *mask, int want, uint64_t *keys, int64_t *runs) {
    int64_t m = 0, r = 0;
    for (int64_t t = 0; t < n; t++) {
        if ((mask[t] != 0) != want) {
            if (t > 0 && (mask[t - 1] != 0) == want) r++;
            continue;
        }
        if (p[t] & T_CJK) {
            if (t + 1 < n && (mask[t + 1] != 0) == want && (p[t + 1] & T_CJK)) {
                keys[m] = (uint64_t)(p[t] & T_HASH) * T_P + (uint64_t)(p[t + 1] & T_HASH);
                if (runs) runs[m] = r;
                m++;
            }
        } else {
            keys[m] = (uint64_t)(p[t] & T_HASH);
            if (runs) runs[m] = r;
            m++;
        }
    }
    return m;
}

/* b_is_cached: b is the profile at w->a_p, whose sorted terms are kept in w->akeys once made;
 * otherwise b is the profile at w->b_p, whose sorted terms are kept in w->bkeys */
static int64_t repeated(const uint32_t *a, int64_t na, const uint8_t *cov_a, const uint32_t *b, int64_t nb,
                        int b_is_cached, Work *w) {
    int64_t nk = terms(a, na, cov_a, 0, w->keys, w->runs);
    if (nk < 2) return 0;
    /* the keys that stand in two runs of a or more (most pairs have none: b is not read); a
     * stable sort keeps each key's runs in text order */
    argsort_stable(w->keys, nk, w->order, w->kv, w->kv2, w->count);
    int64_t nm = 0;
    for (int64_t t = 0; t < nk;) {
        uint64_t key = w->keys[w->order[t]];
        int64_t seen = 0, last = -1;
        while (t < nk && w->keys[w->order[t]] == key) {
            int64_t r = w->runs[w->order[t]];
            if (r != last) {
                seen++;
                last = r;
            }
            t++;
        }
        if (seen >= 2) w->pairs[nm++] = key;
    }
    if (nm == 0) return 0;
    /* of those, the ones b does not hold */
    const uint64_t *bk;
    int64_t nbk;
    if (b_is_cached) {
        if (!w->a_keys) {
            w->a_nk = terms(b, nb, w->ones, 1, w->akeys, NULL);
            sort_spread(w->akeys, w->a_nk, w->spare, w->count);
            w->a_keys = 1;
        }
        bk = w->akeys;
        nbk = w->a_nk;
    } else {
        if (!w->b_keys) {
            w->b_nk = terms(b, nb, w->ones, 1, w->bkeys, NULL);
            sort_spread(w->bkeys, w->b_nk, w->spare, w->count);
            w->b_keys = 1;
        }
        bk = w->bkeys;
        nbk = w->b_nk;
    }
    int64_t count = 0;
    for (int64_t t = 0; t < nm; t++) {
        int64_t i = search_u64(bk, nbk, w->pairs[t]);
        if (!(i < nbk && bk[i] == w->pairs[t])) count++;
    }
    return count;
}

/* adds, longest shared run, quoted, longest own run, shared runs */
/* a shared run p[start..t] is a person's designation: it ends with 同志, or with 同志的遗体 (a
 * leader's titles before the name, "...的卓越领导人，...主席钱正英同志"), which every report of one
 * funeral repeats: not a passage of content (text.py's _designation) */
static int designation(const uint32_t *p, int64_t start, int64_t t) {
    const uint32_t m = T_HASH | T_CJK;
    if (t - 4 >= start && (p[t - 2] & m) == 0x8ccbc36bu && (p[t - 1] & m) == 0x8c6eea77u &&
        (p[t] & m) == 0x893401c4u) /* 的 遗 体 */
        t -= 3;
    return t - 1 >= start && (p[t - 1] & m) == 0x8460572du && (p[t] & m) == 0x8905b461u; /* 同 志 */
}

static void walk(const uint32_t *p, int64_t n, const uint8_t *cov, int64_t *adds, int64_t *longest, int64_t *quoted,
                 int64_t *block, int64_t *pieces) {
    int64_t ad = 0, lo = 0, qu = 0, bl = 0, pi = 0, run = 0, own = 0, start = 0;
    for (int64_t t = 0; t < n; t++) {
        int64_t u = units(p[t]);
        if (cov[t]) {
            if (run == 0) {
                pi++;
                start = t;
            }
            run += u;
            /* a run counts as a whole, where it ends */
            if (run > lo && (t + 1 == n || !cov[t + 1]) && !designation(p, start, t)) lo = run;
            own = 0;
            if (p[t] & T_QUOTED) qu += u;
        } else {
            run = 0;
            own += u;
            if (own > bl) bl = own;
            ad += u;
        }
    }
    *adds = ad;
    if (longest) *longest = lo;
    *quoted = qu;
    *block = bl;
    *pieces = pi;
}

/* text replaced alike in two or more places, in units (5 words, 25 CJK characters), that names a
 * template's subject however much else the texts differ by (text.py's ALIKE_SUBJECT) */
#define ALIKE_SUBJECT 25
/* text.py's FRAME_FILL: the longest run of its own a text fills a template's frame with */
#define FRAME_FILL 100
/* text.py's SUBJECT_PLACES: terms repeated among more differing places than this name no subject */
#define SUBJECT_PLACES 30
/* swap_units' flags: the substitution is a name; the entry is the last words of a full name */
#define SWAP_NAME ((int64_t)1 << 40)
#define SWAP_TAIL ((int64_t)1 << 41)
/* one character replaced alike in more places than this is no scattering of look-alikes */
#define SCATTERED_MAX 64

/* text._scattered: one character replaced by one in words no two of which share a neighbour:
 * look-alikes or homophones scattered through a repost (国 -> 囯 in 各国 and 英国), where a subject
 * stands in the same word more than once (中国 -> 俄国 twice beside 中方 -> 俄方) */
static int is_scattered(const uint32_t *a, const uint64_t *spans, const int64_t *units, const int64_t *group,
                        int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        int64_t o = group[i];
        if (units[o] & SWAP_TAIL) continue;
        int64_t to = (int64_t)(spans[2 * o] >> 32), eo = (int64_t)(spans[2 * o] & 0xFFFFFFFFu);
        for (int64_t j = i + 1; j < n; j++) {
            int64_t r = group[j];
            if (units[r] & SWAP_TAIL) continue;
            int64_t tr = (int64_t)(spans[2 * r] >> 32), er = (int64_t)(spans[2 * r] & 0xFFFFFFFFu);
            if ((a[to - 1] & T_HASH) == (a[tr - 1] & T_HASH)) return 0;
            if ((a[eo] & T_HASH) == (a[er] & T_HASH)) return 0;
        }
    }
    return 1;
}

/* a substitution's key: a's tokens [t, e) replaced by b's [q, f) (text.py's _swap_hash) */
static inline uint64_t swap_hash(const uint32_t *a, int64_t t, int64_t e, const uint32_t *b, int64_t q,
                                 int64_t f) {
    uint64_t h = 1;
    for (int64_t x = t; x < e; x++) h = h * T_P + (uint64_t)(a[x] & T_HASH);
    h = h * T_P;
    for (int64_t x = q; x < f; x++) h = h * T_P + (uint64_t)(b[x] & T_HASH);
    return h;
}

/* Where b's uncovered run facing a's run t:e starts, or -1: right after the shared window that ends
 * before t, or else (a second change within a window of the first: 中国政府和中国 -> 俄国政府和俄国)
 * right before the shared window that starts at e (text.py's _facing_run) */
static int64_t facing_run(const uint64_t *wa, int64_t nwa, const uint64_t *sb, const int64_t *ob, int64_t nwb,
                          const uint8_t *cov_b, int64_t nb, int64_t t, int64_t e, int64_t w) {
    int64_t q = after_window(wa, sb, ob, nwb, cov_b, nb, t, w);
    if (q != -2) return q;
    if (e >= nwa) return -1; /* no whole window after the run */
    int64_t i = search_u64(sb, nwb, wa[e]);
    if (!(i < nwb && sb[i] == wa[e]) || ob[i] == 0 || cov_b[ob[i] - 1]) return -1;
    q = ob[i] - 1;
    while (q > 0 && !cov_b[q - 1]) q--;
    return q > 0 ? q : -1; /* a run after shared text, as a's is */
}

/* text.text_evidence into out[EVIDENCE_SIZE]; w holds buffers for max(na, nb) tokens */
static void text_evidence(const uint32_t *a, int64_t na, const uint32_t *b, int64_t nb, int64_t w_cjk,
                          int64_t w_latin, int64_t *out, Work *W) {
    memset(out, 0, EVIDENCE_SIZE * sizeof(int64_t));
    for (int64_t t = 0; t < na; t++) out[2] += units(a[t]);
    for (int64_t t = 0; t < nb; t++) out[3] += units(b[t]);
    if (na == 0 || nb == 0) {
        out[0] = out[13] = out[2];
        out[1] = out[14] = out[3];
        return;
    }
    int64_t cjk = 0;
    for (int64_t t = 0; t < na; t++)
        if (a[t] & T_CJK) cjk++;
    int64_t w = 2 * cjk >= na ? w_cjk : w_latin;
    int64_t m = w;
    if (na < m) m = na;
    if (nb < m) m = nb;
    w = m > 1 ? m : 1;
    int64_t nwa = na - w + 1, nwb = nb - w + 1;
    uint64_t *wa = W->wa, *wb = W->wb, *sa = W->sa, *sb = W->sb;
    int64_t *oa = W->oa, *ob = W->ob;
    if (W->a_p != a || W->a_n != na || W->a_w != w) {
        windows(a, na, w, wa);
        argsort_stable(wa, nwa, oa, W->kv, W->kv2, W->count);
        for (int64_t i = 0; i < nwa; i++) sa[i] = wa[oa[i]];
        W->a_p = a;
        W->a_n = na;
        W->a_w = w;
        W->a_keys = 0;
    }
    if (W->b_p != b || W->b_n != nb || W->b_w != w) {
        windows(b, nb, w, wb);
        argsort_stable(wb, nwb, ob, W->kv, W->kv2, W->count);
        for (int64_t i = 0; i < nwb; i++) sb[i] = wb[ob[i]];
        W->b_p = b;
        W->b_n = nb;
        W->b_w = w;
        W->b_keys = 0;
    }
    uint8_t *cov_a = W->cov_a, *cov_b = W->cov_b;
    cover(sa, oa, nwa, sb, ob, nwb, na, nb, w, cov_a, cov_b);
    align_runs(a, na, wa, cov_a, b, nb, sb, ob, nwb, cov_b, w);
    walk(a, na, cov_a, &out[0], &out[4], &out[9], &out[13], &out[15]);
    walk(b, nb, cov_b, &out[1], NULL, &out[10], &out[14], &out[16]);
    out[8] = (own_occasion(a, na, cov_a, b, nb, W->occ) && own_occasion(b, nb, cov_b, a, na, W->occ)) ? 1 : 0;
    out[11] = lead(a, na, cov_a);
    out[12] = lead(b, nb, cov_b);
    /* substitutions: an uncovered run of a right after a shared window, facing an uncovered run of b
     * right after the same window */
    int64_t n_swaps = 0, n_rewrites = 0, figures = 0;
    int occ_replaced = 0, occ_wide = 0;
    int64_t t = w;
    while (t < na) {
        if (cov_a[t] || !cov_a[t - 1]) {
            t++;
            continue;
        }
        int64_t e = t, ua = 0;
        while (e < na && !cov_a[e]) {
            ua += units(a[e]);
            e++;
        }
        if (e >= na) break;
        int64_t q = facing_run(wa, nwa, sb, ob, nwb, cov_b, nb, t, e, w);
        if (q >= 0) {
            int64_t f = q, ub = 0;
            while (f < nb && !cov_b[f]) {
                ub += units(b[f]);
                f++;
            }
            /* an occasion replaced in place: among words, in a run of the day's figures too
             * ("at 1200 GMT on Monday" -> "at 1321 GMT on Tuesday") */
            int short_ = ua <= T_SHORT && ub <= T_SHORT;
            if (f < nb && (short_ || (2 * cjk < na && ua <= T_OCCASION_RUN && ub <= T_OCCASION_RUN))) {
                int oa = 0, ob_ = 0;
                for (int64_t x = t; x < e; x++) oa |= (a[x] & T_OCCASION) != 0;
                for (int64_t x = q; x < f; x++) ob_ |= (b[x] & T_OCCASION) != 0;
                if (short_) occ_replaced |= oa && ob_;
                else occ_wide |= oa && ob_;
            }
            if (f < nb && short_) {
                out[5] += 1;
                out[18] += ua;
                out[19] += ub;
                if (ua >= 2 && ub >= 2) out[7] += 1;
                int words = 0, num_a = 0, num_b = 0;
                for (int64_t x = t; x < e; x++) {
                    words = words || !(a[x] & T_NUMBER);
                    num_a = num_a || (a[x] & T_NUMBER);
                }
                for (int64_t x = q; x < f; x++) {
                    words = words || !(b[x] & T_NUMBER);
                    num_b = num_b || (b[x] & T_NUMBER);
                }
                int numbers = num_a || num_b;
                if (!words) figures++;
                /* a subject, not an edit: a date written another way (今天 -> 5月6日) holds digits
                 * on one side only, and a typo, a look-alike or a rewrite replaces a function
                 * character by another or by a name, however often (的 -> 地, 他 -> 习近平; 法 -> 俄
                 * in 法文版 -> 俄文版 is a subject), or a verb, an adverb or an adjective by another
                 * (进行 -> 展开, 不断 -> 持续: rewrite) */
                int rewritten = rewrite(a, na, t, e, b, nb, q, f);
                if (rewritten) { /* kept in the term buffers until repeated reads the terms */
                    W->pairs[n_rewrites] = (uint64_t)t << 32 | (uint64_t)e;
                    W->keys[n_rewrites++] = (uint64_t)q << 32 | (uint64_t)f;
                }
                int typo = rewritten || ((a[t] & T_CJK) && (b[q] & T_CJK) &&
                                         ((e - t == 1 && function_cjk(a[t])) ||
                                          (f - q == 1 && function_cjk(b[q]))));
                if (words && num_a == num_b && !typo) {
                    /* a name: two tokens or more on each side, or among CJK three in all
                     * (法 -> 检察 in 最高人民法院 -> 最高人民检察院), and no number (佐科 -> 博里奇;
                     * a typo or a look-alike changes one character for one, a date rewrite
                     * holds digits) */
                    int name = !numbers && ((e - t >= 2 && f - q >= 2) ||
                                            (e - t + f - q >= 3 && (a[t] & T_CJK) && (b[q] & T_CJK)));
                    W->swaps[n_swaps] = swap_hash(a, t, e, b, q, f);
                    W->swap_units[n_swaps] = ua + ub + (name ? SWAP_NAME : 0);
                    W->spans[2 * n_swaps] = (uint64_t)t << 32 | (uint64_t)e;
                    W->spans[2 * n_swaps + 1] = (uint64_t)q << 32 | (uint64_t)f;
                    n_swaps++;
                    /* a full name among words (Dieter Kosslick -> Serena Cheney): its last words
                     * replaced alike elsewhere (Kosslick -> Cheney) are the same person's name */
                    if (name && !(a[e - 1] & T_CJK) && !(b[f - 1] & T_CJK)) {
                        W->swaps[n_swaps] = swap_hash(a, e - 1, e, b, f - 1, f);
                        W->swap_units[n_swaps] = SWAP_TAIL;
                        n_swaps++;
                    }
                }
            }
        }
        t = e;
    }
    /* (a wider run counts beside other figures replaced: another day's report, where a FAQ's new
     * version replaces its date line and version number alone) */
    if (out[8] && (occ_replaced || (occ_wide && figures >= T_OCCASION_FIGURES))) out[8] = 2;
    /* among words, a year each text holds alone is a dateline's or a cut end's: another occasion
     * only when one year stands in place of the other's */
    if (out[8] == 1 && 2 * cjk < na) out[8] = 0;
    /* figures replaced in FIGURES_OCCASION places or more, and in more places than the figures both
     * texts hold (another day's prices, counts, scores; a corrected figure is one or two, a new
     * version of a long listing keeps most of its figures, and numbers written another way are read
     * as one): another occasion told on one template */
    if (figures >= FIGURES_OCCASION && out[8] < 2) {
        int64_t kept = 0; /* figures both texts hold, in a */
        for (int64_t x = 0; x < na; x++) kept += cov_a[x] && (a[x] & T_NUMBER);
        if (figures >= kept) out[8] = 2;
    }
    /* each text's lead names an occasion of its own, not the other's (4: decides a merge, and a
     * shared passage only when both fill the rest with short runs of their own: a commentary told
     * on another day may still reuse a report's paragraphs) */
    if (out[8] < 2 && 2 * cjk >= na && lead_occasions(a, na, cov_a, b, nb, cov_b)) out[8] = 4;
    /* the shorter text tells another phase of a visit than the longer (a marker of its own that the
     * longer never holds: 将于 in the notice against at most 将出席 in the arrival report, 离京 in the
     * departure): two occasions of one event */
    unsigned own_a, every_a, own_b, every_b;
    markers(a, na, cov_a, &own_a, &every_a);
    markers(b, nb, cov_b, &own_b, &every_b);
    unsigned new_a = own_a & ~every_b, new_b = own_b & ~every_a;
    if ((out[2] <= out[3] ? new_a : new_b) & PHASE_BITS) out[8] = 2;
    /* either text, in its own words, is the reactions to what the other reports (a genre marker the
     * other never holds), or the shorter tells a reaction in its own words (倍受鼓舞, 澳门各界表示)
     * that the fuller never holds: two documents of one event */
    if (((new_a | new_b) & GENRE_BITS) || ((out[2] <= out[3] ? new_a : new_b) & REACTION_BITS)) out[8] = 3;
    /* a word a rewrite swapped wherever it stands (不断 -> 持续, in two places or more) names no
     * subject: read as shared (past MANY_REWRITES rewrites, every one is taken as repeated) */
    for (int64_t r = 0; r < n_rewrites; r++) {
        int64_t t0 = (int64_t)(W->pairs[r] >> 32), e0 = (int64_t)(W->pairs[r] & 0xFFFFFFFFu);
        int64_t q0 = (int64_t)(W->keys[r] >> 32), f0 = (int64_t)(W->keys[r] & 0xFFFFFFFFu);
        int alike = n_rewrites > MANY_REWRITES;
        uint64_t h = swap_hash(a, t0, e0, b, q0, f0);
        for (int64_t o = 0; o < n_rewrites && !alike; o++)
            alike = o != r && swap_hash(a, (int64_t)(W->pairs[o] >> 32), (int64_t)(W->pairs[o] & 0xFFFFFFFFu), b,
                                        (int64_t)(W->keys[o] >> 32), (int64_t)(W->keys[o] & 0xFFFFFFFFu)) == h;
        if (alike) {
            memset(cov_a + t0, 1, (size_t)(e0 - t0));
            memset(cov_b + q0, 1, (size_t)(f0 - q0));
        }
    }
    int64_t ra = repeated(a, na, cov_a, b, nb, 0, W);
    int64_t rb = ra > 0 ? repeated(b, nb, cov_b, a, na, 1, W) : 0; /* the least of the two */
    out[6] = ra < rb ? ra : rb;
    if (n_swaps > 1) {
        int64_t *order = W->order;
        argsort_kv(W->swaps, n_swaps, order, W->kv);
        int name = 0;
        for (int64_t x = 0; x < n_swaps;) {
            /* one substitution's places (and the full names it ends) */
            int64_t y = x, places = 0, units = 0, named = 0, first = -1;
            int single = 1;
            for (; y < n_swaps && W->swaps[order[y]] == W->swaps[order[x]]; y++) {
                int64_t u = W->swap_units[order[y]];
                if (u & SWAP_TAIL) {
                    named = 1;
                    continue;
                }
                int64_t o = order[y];
                int64_t ta = (int64_t)(W->spans[2 * o] >> 32), ea = (int64_t)(W->spans[2 * o] & 0xFFFFFFFFu);
                int64_t qb = (int64_t)(W->spans[2 * o + 1] >> 32), fb = (int64_t)(W->spans[2 * o + 1] & 0xFFFFFFFFu);
                single = single && ea - ta == 1 && fb - qb == 1 && (a[ta] & b[qb] & T_CJK);
                /* the first place in text order (the sort of equal keys decides no order) */
                if (first < 0 || ta < (int64_t)(W->spans[2 * first] >> 32)) first = o;
                places++;
                units += u & (SWAP_NAME - 1);
                named = named || (u & SWAP_NAME) != 0;
            }
            int scattered = single && places <= SCATTERED_MAX && is_scattered(a, W->spans, W->swap_units, order + x, y - x);
            if (places >= 2 && !scattered && !kept(a, na, cov_a, b, nb, cov_b, W->spans + 2 * first, places)) {
                out[17] += units;
                name = name || named;
            }
            x = y;
        }
        /* a name replaced alike in two places names the template's subject, however short and
         * whatever else is substituted: it counts as a full name and as most of the substitutions */
        if (name) {
            int64_t least = (out[18] + out[19] + 1) / 2;
            if (least < ALIKE_SUBJECT) least = ALIKE_SUBJECT;
            if (out[17] < least) out[17] = least;
        }
    }
}

/* ---------------------------------------------------------------------------------------------- */
/* tables (tables.py)                                                                               */

static inline int64_t h32(uint32_t v, int64_t size) {
    uint64_t x = ((uint64_t)v * 0x9E3779B97F4A7C15ull) >> 32;
    return (int64_t)((x * (uint64_t)size) >> 32);
}

static inline int64_t h64(uint64_t v, int64_t size) {
    uint64_t x = ((v ^ (v >> 31)) * 0xBF58476D1CE4E5B9ull) >> 32;
    return (int64_t)((x * (uint64_t)size) >> 32);
}

typedef struct {
    uint64_t *xk;
    int64_t *xr;
    int64_t nx;
    uint64_t *ck;
    int64_t *cr;
    int64_t nc;
    uint32_t *pv;
    int32_t *pc, *pf, *ph;
    int64_t np;
    int32_t *er, *en;
    int64_t ne;
    /* a filter of the boilerplate values (pc > cmax): a value whose bit is clear is not one, so
     * the sketch overlaps skip most of their table lookups (the table spans megabytes in a large
     * component, the filter 128 KB at most); NULL where the tables come from Python (the stream) */
    uint64_t *cbits;
    int cshift;
    int64_t cmax;
} Tab;

static inline uint32_t filter_bit(uint32_t v, int shift) { return (v * 0x9E3779B1u) >> shift; }

static inline void filter_add(Tab *T, uint32_t v) {
    if (T->cbits == NULL) return;
    uint32_t b = filter_bit(v, T->cshift);
    T->cbits[b >> 6] |= (uint64_t)1 << (b & 63);
}

static inline int64_t posting_slot(const uint32_t *pv, int64_t size, uint32_t v) {
    int64_t i = h32(v, size);
    while (pv[i] != v && pv[i] != EMPTY32) {
        i++;
        if (i == size) i = 0;
    }
    return i;
}

static inline int64_t sorted_index_u32(const uint32_t *a, int64_t n, uint32_t v) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (a[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && a[lo] == v ? lo : -1;
}

static inline int is_common(const uint32_t *pv, const int32_t *pc, int64_t size, int64_t max_posting, uint32_t v) {
    if (size == 0) return 0;
    int64_t i = posting_slot(pv, size, v);
    return pv[i] == v && pc[i] > max_posting;
}

static inline int64_t key_get(const uint64_t *keys, const int64_t *rows, int64_t size, uint64_t k) {
    int64_t i = h64(k, size);
    while (rows[i] >= 0) {
        if (keys[i] == k) return rows[i];
        i++;
        if (i == size) i = 0;
    }
    return -1;
}

static inline int key_put(uint64_t *keys, int64_t *rows, int64_t size, uint64_t k, int64_t row) {
    int64_t i = h64(k, size);
    while (rows[i] >= 0) {
        if (keys[i] == k) return 0;
        i++;
        if (i == size) i = 0;
    }
    keys[i] = k;
    rows[i] = row;
    return 1;
}

/* ---------------------------------------------------------------------------------------------- */
/* signatures, rule, results                                                                        */

typedef struct {
    const uint64_t *exact, *content, *simhash;
    const int32_t *size, *tokens;
    const uint32_t *sketch;
    int64_t kc; /* sketch columns */
    const uint64_t *numbers;
    int64_t mc; /* number columns */
    const uint64_t *layout;
    const uint8_t *has_layout;
    const int64_t *pp;
    const uint32_t *prof;
    int64_t n, nprof;
} Sig;

typedef struct {
    int64_t k, layout_distance, max_conflicts, agree_min, max_posting;
    const double *th;
    const int32_t *day; /* the records' day numbers (NO_DAY: unknown) */
    int64_t nday;       /* 0: no dates */
} Rule;

/* the text evidence a result row keeps beside adds, passage and repeated (when the result's text
 * array has TEXT_COLS columns): the fields dedup's rows carry (rethreshold.decision_rows), so they
 * are not computed a second time for the output (text.py's ROW_FIELDS) */
#define ROW_EVIDENCE 15
#define TEXT_COLS (4 + ROW_EVIDENCE)
static const int ROW_FIELDS[ROW_EVIDENCE] = {2, 3, 9, 10, 8, 11, 12, 13, 14, 15, 16, 17, 5, 18, 19};
/* out_i: kind, partner, conflicts, aligned, hamming, the four text fields, the backfill candidate,
 * then the ROW_EVIDENCE fields */
#define OUT_I (10 + ROW_EVIDENCE)

typedef struct {
    int8_t *kind;
    int64_t *partner;
    double *sim, *cont;
    int32_t *conf, *alig, *ham, *text;
    int64_t n, tcols; /* tcols: the text array's columns, 4 or TEXT_COLS */
} Res;

/* result row o's text columns from a pair's evidence (-1 when the texts were not read) */
static void put_text(Res *res, int64_t o, const int64_t *ev) {
    int has_text = ev[2] > 0 || ev[3] > 0;
    int32_t *t = res->text + res->tcols * o;
    t[0] = (int32_t)(has_text ? ev[0] : -1);
    t[1] = (int32_t)(has_text ? ev[1] : -1);
    t[2] = (int32_t)(has_text ? ev[4] : -1);
    t[3] = (int32_t)(has_text ? ev[6] : -1);
    if (res->tcols == TEXT_COLS)
        for (int q = 0; q < ROW_EVIDENCE; q++) t[4 + q] = (int32_t)(has_text ? ev[ROW_FIELDS[q]] : -1);
}

/* ---------------------------------------------------------------------------------------------- */
/* verification (verify.py)                                                                         */

/* is v boilerplate: the filter first (cbits: NULL for none), the table when its bit is set */
static inline int is_common_f(const uint32_t *pv, const int32_t *pc, int64_t size, int64_t max_posting,
                              const uint64_t *cbits, int cshift, uint32_t v) {
    if (cbits != NULL) {
        uint32_t b = filter_bit(v, cshift);
        if (!(cbits[b >> 6] & ((uint64_t)1 << (b & 63)))) return 0;
    }
    return is_common(pv, pc, size, max_posting, v);
}

static void overlap(const uint32_t *a, const uint32_t *b, int64_t k, const uint32_t *pv, const int32_t *pc,
                    int64_t npv, int64_t max_posting, const uint64_t *cbits, int cshift, int64_t *union_,
                    int64_t *both_, int64_t *na_, int64_t *nb_) {
    uint32_t ha = a[k - 1], hb = b[k - 1];
    uint32_t horizon = ha < hb ? ha : hb;
    int64_t i = 0, j = 0, un = 0, bo = 0, na = 0, nb = 0;
    while (i < k || j < k) {
        uint32_t x = i < k ? a[i] : EMPTY32;
        uint32_t y = j < k ? b[j] : EMPTY32;
        uint32_t v = x < y ? x : y;
        if (v == EMPTY32 || v > horizon) break;
        if (x == y) {
            i++;
            j++;
            if (!is_common_f(pv, pc, npv, max_posting, cbits, cshift, v)) {
                un++;
                bo++;
                na++;
                nb++;
            }
        } else if (x < y) {
            i++;
            if (!is_common_f(pv, pc, npv, max_posting, cbits, cshift, v)) {
                un++;
                na++;
            }
        } else {
            j++;
            if (!is_common_f(pv, pc, npv, max_posting, cbits, cshift, v)) {
                un++;
                nb++;
            }
        }
    }
    *union_ = un;
    *both_ = bo;
    *na_ = na;
    *nb_ = nb;
}

static void numbers(const uint64_t *a, const uint64_t *b, int64_t m, int64_t *conf, int64_t *agr) {
    uint64_t la = a[m - 1] != EMPTY64 ? a[m - 1] >> 32 : EMPTY64;
    uint64_t lb = b[m - 1] != EMPTY64 ? b[m - 1] >> 32 : EMPTY64;
    uint64_t limit = la < lb ? la : lb;
    int64_t i = 0, j = 0, conflicts = 0, agree = 0;
    while (i < m && j < m && a[i] != EMPTY64 && b[j] != EMPTY64) {
        uint64_t ka = a[i] >> 32, kb = b[j] >> 32;
        if (ka > limit || kb > limit) break;
        if (ka < kb)
            i++;
        else if (kb < ka)
            j++;
        else {
            int64_t ie = i, je = j;
            while (ie < m && a[ie] != EMPTY64 && (a[ie] >> 32) == ka) ie++;
            while (je < m && b[je] != EMPTY64 && (b[je] >> 32) == ka) je++;
            int only_a = 0, only_b = 0;
            int64_t p = i, q = j;
            while (p < ie || q < je) {
                if (q >= je || (p < ie && a[p] < b[q])) {
                    only_a = 1;
                    p++;
                } else if (p >= ie || b[q] < a[p]) {
                    only_b = 1;
                    q++;
                } else {
                    p++;
                    q++;
                }
            }
            if (only_a && only_b)
                conflicts++;
            else
                agree++;
            i = ie;
            j = je;
        }
    }
    *conf = conflicts;
    *agr = agree;
}

static inline double fmax2(double a, double b) { return b > a ? b : a; }
static inline double fmin2(double a, double b) { return b < a ? b : a; }
static inline int64_t imax2(int64_t a, int64_t b) { return b > a ? b : a; }
static inline int64_t imin2(int64_t a, int64_t b) { return b < a ? b : a; }

static int decide(int exact_eq, int content_eq, double j, double ca, double cb, int64_t conflicts, int64_t agree,
                  int same_layout, double near_similarity, double near_containment, double containment_min_similarity,
                  double partial_containment, int64_t max_conflicts, double conflict_share, double agree_containment,
                  int64_t agree_min) {
    if (exact_eq) return EXACT;
    if (content_eq) return CONTENT;
    int64_t allowed = imax2(max_conflicts, (int64_t)(conflict_share * (double)(conflicts + agree)));
    int numbers_ok = conflicts <= allowed;
    double cmax = fmax2(ca, cb);
    if (numbers_ok && (j >= near_similarity || (cmax >= near_containment && j >= containment_min_similarity) ||
                       (cmax >= agree_containment && agree >= agree_min && j >= containment_min_similarity)))
        return NEAR;
    if (cmax >= partial_containment) return same_layout ? LAYOUT : PARTIAL;
    return UNIQUE;
}

static inline int contained(int64_t ux, int64_t tx, int64_t uy, int64_t ty, double share, double slack, double cap,
                            double margin, double contained_share, double passage_min) {
    (void)ty;
    return (double)ux <= fmin2(share * (double)tx + slack, cap) && (double)uy >= margin * (double)ux + passage_min &&
           (double)uy <= contained_share * (double)tx;
}

/* verify._scattered_in: x shares at least ``shared`` with y and adds only short runs (none longer than
 * ``run``: a site's lines, a link to another article, a changed title) and little in all, and y adds
 * a passage of its own and more than x by a passage: x is y with lines added, y its fuller copy */
static inline int scattered_in(int64_t ux, int64_t tx, int64_t bx, int64_t uy, int64_t by, double share, double slack,
                               double cap, double passage_min, double contained_share, double run, double shared) {
    return run > 0 && (double)(tx - ux) >= shared && (double)bx <= run && (double)ux <= fmin2(share * (double)tx + slack, cap) &&
           (double)by >= passage_min && (double)uy >= (double)ux + passage_min && (double)uy <= contained_share * (double)tx;
}

#define QUOTE_FAR 3.0

static inline int quotes(const int64_t *ev, int a_fuller, const double *th) {
    int64_t block = a_fuller ? ev[13] : ev[14];
    int64_t pieces = a_fuller ? ev[15] : ev[16];
    int64_t other = a_fuller ? ev[3] : ev[2];
    int64_t ld = a_fuller ? ev[11] : ev[12];
    if (pieces == 1 && (double)ld <= fmax2(th[7], th[22])) return 0;
    /* a block of its own several times the other's length: the other is an excerpt of a larger
     * document (a brief inside a round-up, a resolution inside the report), even in more pieces */
    double most = (double)block >= QUOTE_FAR * (double)other ? 2 * th[19] : th[19];
    return (double)pieces <= most && (double)block >= fmax2(th[21], th[20] * (double)other);
}

static int decide_text(int kd, const int64_t *ev, int same_layout, const double *th) {
    int64_t ua = ev[0], ub = ev[1], ta = ev[2], tb = ev[3], passage = ev[4];
    int64_t rep = ev[6], occasion = ev[8], qa = ev[9], qb = ev[10];
    /* occasion 3: one text is the reactions to what the other reports (names no occasion) */
    int genre = occasion == 3;
    if (genre) occasion = 0;
    double adds_share = th[6], adds_slack = th[7], contained_share = th[8], passage_min = th[9], repeats = th[10],
           report = th[11];
    double loose_share = th[15], adds_cap = th[16], margin = th[17];
    int alike = ev[17] > 0 && (2 * ev[17] >= imin2(ua, ub) || ev[17] >= ALIKE_SUBJECT);
    int64_t shared_a = ta - ua, shared_b = tb - ub;
    if ((double)ev[5] >= th[23]) {
        ua -= ev[18];
        ub -= ev[19];
        alike = alike && 2 * ev[17] >= ev[18] + ev[19];
    }
    int few_places = imin2(ev[15], ev[16]) <= SUBJECT_PLACES;
    int template = repeats > 0 && (((double)rep >= repeats && few_places) || alike);
    int merge = UNIQUE;
    int quotes_a = 2 * qa >= shared_a, quotes_b = 2 * qb >= shared_b;
    int reply = 0;
    if (quotes_a && quotes_b && qa > 0 && qb > 0) {
        /* both quote what they share (two replies to one message): each text is what it writes;
         * unless one quotes, by a passage, more than the other does, and writes a passage of its
         * own: it quotes the other's own words, a reply to that reply */
        ta -= qa;
        tb -= qb;
        reply = ((double)(qb - qa) >= passage_min && (double)ub >= passage_min) ||
                ((double)(qa - qb) >= passage_min && (double)ua >= passage_min);
    }
    if (reply) {
        /* a reply and the reply it quotes: two documents */
    } else if ((double)imin2(shared_a, shared_b) < fmin2(th[14], 0.75 * (double)imax2(ev[2], ev[3]))) {
        /* too little shared text to be one document */
    } else if (quotes_a != quotes_b) {
        /* one side quotes what they share: two documents */
    } else if ((double)ua <= adds_share * (double)ta + adds_slack && (double)ub <= adds_share * (double)tb + adds_slack) {
        merge = NEAR;
        template = template || (occasion > 0 && th[18] > 0);
    } else if (contained(ua, ta, ub, tb, loose_share, adds_slack, adds_cap, margin, contained_share, passage_min) ||
               contained(ub, tb, ua, ta, loose_share, adds_slack, adds_cap, margin, contained_share, passage_min) ||
               scattered_in(ua, ta, ev[13], ub, ev[14], loose_share, adds_slack, adds_cap, passage_min, contained_share,
                            th[25], th[26]) ||
               scattered_in(ub, tb, ev[14], ua, ev[13], loose_share, adds_slack, adds_cap, passage_min, contained_share,
                            th[25], th[26])) {
        merge = CONTAINED;
        template = template || (occasion > 0 && th[18] > 0 &&
                                (occasion > 1 || imax2(ev[0], ev[1]) <= 3 * imin2(ev[0], ev[1]) + 100));
        if (th[18] > 0 && quotes(ev, ev[0] >= ev[1], th)) merge = UNIQUE;
    } else if (((double)ua <= adds_share * (double)ta &&
                (double)ub <= fmin2(loose_share * (double)tb + adds_slack, adds_cap)) ||
               ((double)ub <= adds_share * (double)tb &&
                (double)ua <= fmin2(loose_share * (double)ta + adds_slack, adds_cap))) {
        /* one text adds next to nothing, the other an end or a sentence (no more than a cut copy
         * may add): one document edited on one side */
        merge = NEAR;
        template = template || (occasion > 0 && th[18] > 0);
    }
    if (genre && th[18] > 0) merge = UNIQUE;
    if (merge != UNIQUE) {
        if (!template) return merge;
        return report > 0 ? TEMPLATE : UNIQUE;
    }
    if ((double)passage >= passage_min && kd != UNIQUE) {
        /* what they share is a frame, one text naming another occasion: filled in with words
         * replaced in place (the presidium's fifth and sixth meetings) or with short runs of their
         * own (two live-broadcast notices, whose leads name two days), neither quoting the other: a
         * template, no shared passage of content; a passage pasted into another article that tells
         * another phase of an event leaves that article's own paragraphs around it and replaces
         * nothing */
        int filled = imax2(ev[13], ev[14]) <= FRAME_FILL;
        int quoting = qa > 0 || qb > 0;
        if (th[18] > 0 && !quoting && ((occasion == 2 && (ev[5] > 0 || filled)) || (occasion == 4 && filled)))
            return report > 0 ? TEMPLATE : UNIQUE;
        return same_layout ? LAYOUT : PARTIAL;
    }
    return UNIQUE;
}

/* verify.occasions_apart: a near, contained, partial or layout pair of records dated more than
 * th[24] days apart is a template (unique unless templates are reported) */
static int occasions_apart(int kd, int64_t day_a, int64_t day_b, const double *th) {
    int dated = day_a != NO_DAY && day_b != NO_DAY;
    int related = kd == NEAR || kd == CONTAINED || kd == PARTIAL || kd == LAYOUT;
    int64_t apart = day_a - day_b;
    if (apart < 0) apart = -apart;
    if (related && th[24] > 0 && dated && (double)apart > th[24])
        return th[11] > 0 ? TEMPLATE : UNIQUE;
    return kd;
}

typedef struct {
    int kind;
    double s, ca, cb;
    int64_t c, a;
} Verdict;

/* verify.verify_pair: the verdict, and the text evidence into ev (zeros without text) */
/* the signature stage of verify_pair: sketch overlap, numbers and the kind they give; *need is 1
 * when the pair's text evidence decides (verify_text), else ev is zeroed and the verdict is final */
static Verdict verify_overlap(const uint32_t *sa, const uint64_t *na, int64_t la, const uint32_t *sb,
                              const uint64_t *nb, int64_t lb, int64_t m, int exact_eq, int content_eq,
                              int same_layout, int64_t k, const uint32_t *pv, const int32_t *pc, int64_t npv,
                              int64_t max_posting, const uint64_t *cbits, int cshift, const double *th,
                              int64_t max_conflicts, int64_t agree_min, int64_t *ev, int *need) {
    Verdict r;
    int64_t un, bo, ca_n, cb_n;
    overlap(sa, sb, k, pv, pc, npv, max_posting, cbits, cshift, &un, &bo, &ca_n, &cb_n);
    if (un == 0) {
        r.s = 0.0;
        r.ca = 0.0;
        r.cb = 0.0;
        r.c = 0;
        r.a = 0;
    } else {
        r.s = (double)bo / (double)un;
        r.ca = ca_n ? (double)bo / (double)ca_n : 0.0;
        r.cb = cb_n ? (double)bo / (double)cb_n : 0.0;
        numbers(na, nb, m, &r.c, &r.a);
    }
    int texts = la > 0 && lb > 0;
    r.kind = decide(exact_eq, content_eq, r.s, r.ca, r.cb, r.c, r.a, same_layout, th[0], th[1], th[2], th[3],
                    texts ? ((int64_t)1 << 30) : max_conflicts, th[4], th[5], agree_min);
    *need = !(!texts || r.kind == EXACT || r.kind == CONTENT || r.kind == UNIQUE);
    if (!*need) memset(ev, 0, EVIDENCE_SIZE * sizeof(int64_t));
    return r;
}

/* the text stage of verify_pair: a pure function of the two profiles and the verdict so far */
static Verdict verify_text(Verdict r, const uint32_t *pa, int64_t la, const uint32_t *pb, int64_t lb,
                           int same_layout, const double *th, int64_t *ev, Work *W) {
    if (work_reserve(W, la > lb ? la : lb) < 0) {
        memset(ev, 0, EVIDENCE_SIZE * sizeof(int64_t));
        return r;
    }
    text_evidence(pa, la, pb, lb, (int64_t)th[12], (int64_t)th[13], ev, W);
    r.kind = decide_text(r.kind, ev, same_layout, th);
    return r;
}

static Verdict verify_pair(const uint32_t *sa, const uint64_t *na, const uint32_t *pa, int64_t la,
                           const uint32_t *sb, const uint64_t *nb, const uint32_t *pb, int64_t lb, int64_t m,
                           int exact_eq, int content_eq, int same_layout, int64_t k, const uint32_t *pv,
                           const int32_t *pc, int64_t npv, int64_t max_posting, const double *th,
                           int64_t max_conflicts, int64_t agree_min, int64_t *ev, Work *W) {
    int need;
    Verdict r = verify_overlap(sa, na, la, sb, nb, lb, m, exact_eq, content_eq, same_layout, k, pv, pc, npv,
                               max_posting, NULL, 0, th, max_conflicts, agree_min, ev, &need);
    return need ? verify_text(r, pa, la, pb, lb, same_layout, th, ev, W) : r;
}

/* ---------------------------------------------------------------------------------------------- */
/* clusters (cluster.py)                                                                            */

typedef struct {
    Verdict v;
    int same_layout;
} Checked;

/* verify_rows in two stages (rows_overlap, then rows_text when it returns 1): the text stage reads
 * only the two profiles, so the text stages of one document's pairs can run on two threads */
static int rows_overlap(int64_t j, int64_t x, const Sig *S, const Rule *R, const Tab *T, Checked *o, int64_t *ev,
                        Work *W) {
    if (S->pp[j] < 0 || S->pp[j + 1] < S->pp[j] || S->pp[j + 1] > S->nprof || S->pp[x] < 0 ||
        S->pp[x + 1] < S->pp[x] || S->pp[x + 1] > S->nprof) {
        W->err = 1;
        memset(o, 0, sizeof(*o));
        memset(ev, 0, EVIDENCE_SIZE * sizeof(int64_t));
        return 0;
    }
    int need;
    o->same_layout = S->has_layout[j] && S->has_layout[x] &&
                     (int64_t)popcount64(S->layout[j] ^ S->layout[x]) <= R->layout_distance;
    o->v = verify_overlap(S->sketch + j * S->kc, S->numbers + j * S->mc, S->pp[j + 1] - S->pp[j],
                          S->sketch + x * S->kc, S->numbers + x * S->mc, S->pp[x + 1] - S->pp[x], S->mc,
                          S->exact[j] == S->exact[x], S->content[j] == S->content[x] && S->tokens[j] > 0,
                          o->same_layout, R->k, T->pv, T->pc, T->np, R->max_posting,
                          T->cmax == R->max_posting ? T->cbits : NULL, T->cshift, R->th, R->max_conflicts,
                          R->agree_min, ev, &need);
    if (!need && R->nday > 0) o->v.kind = occasions_apart(o->v.kind, R->day[j], R->day[x], R->th);
    return need;
}

static void rows_text(int64_t j, int64_t x, const Sig *S, const Rule *R, Checked *o, int64_t *ev, Work *W) {
    o->v = verify_text(o->v, S->prof + S->pp[j], S->pp[j + 1] - S->pp[j], S->prof + S->pp[x],
                       S->pp[x + 1] - S->pp[x], o->same_layout, R->th, ev, W);
    if (R->nday > 0) o->v.kind = occasions_apart(o->v.kind, R->day[j], R->day[x], R->th);
}

static Checked verify_rows(int64_t j, int64_t x, const Sig *S, const Rule *R, const Tab *T, int64_t *ev, Work *W) {
    Checked o;
    if (rows_overlap(j, x, S, R, T, &o, ev, W)) rows_text(j, x, S, R, &o, ev, W);
    return o;
}

/* ---------------------------------------------------------------------------------------------- */
/* a helper thread for the text stages of one document's pairs                                     */

typedef struct {
    int64_t x;
    Checked o;
    int64_t ev[EVIDENCE_SIZE];
} Pair;

typedef struct Helper Helper;

/* one document's first-pass pairs: pairs[0..n) in the order the pass meets them, text[0..ntext)
 * the indices of those whose text evidence decides */
typedef struct {
    Pair *pairs;
    int64_t *text;
    int64_t cap, n; /* n: the pairs of the document last assigned */
    Helper *helper; /* NULL: the text stages run on the calling thread */
} Pairs;

/* A helper thread that takes text stages of the current document while the pass's thread takes
 * them too. The batch is one 64-bit word, a batch number (high half) and the next text stage to
 * take (low half; CLOSED once the pass's thread is done with it); a stage is taken by advancing the
 * word, so each is computed once, by either thread, into its own Pair. The pass's thread never
 * waits for the helper to wake: it takes every stage left, closes the batch and waits only for a
 * stage the helper holds (``active``). A helper counts itself active before it reads the word, so
 * the pass's thread, which closes the word before it reads ``active``, sees it or it sees CLOSED. */
#define CLOSED 0xFFFFFFFFull
#define SPIN 1000

struct Helper {
#if HAVE_HELPER
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t go;
#endif
    uint64_t word;
    int active, sleeping, quit;
    /* the batch: text stages of pairs (j, P->pairs[P->text[i]].x), i < ntext */
    int64_t j, ntext;
    const Sig *S;
    const Rule *R;
    Pairs *P;
    Work W;
};

#if HAVE_HELPER
static inline void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static inline void yield_core(void) { sched_yield(); }

/* takes and computes text stages of the current batch until none is left; W: the caller's work space */
static void take_stages(Helper *H, Work *W) {
    for (;;) {
        uint64_t w = __atomic_load_n(&H->word, __ATOMIC_SEQ_CST);
        uint64_t i = w & CLOSED;
        if (i == CLOSED || (int64_t)i >= H->ntext) return;
        if (!__atomic_compare_exchange_n(&H->word, &w, w + 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) continue;
        Pair *q = &H->P->pairs[H->P->text[i]];
        rows_text(H->j, q->x, H->S, H->R, &q->o, q->ev, W);
    }
}

static inline int batch_open(Helper *H) {
    uint64_t i = __atomic_load_n(&H->word, __ATOMIC_SEQ_CST) & CLOSED;
    return i != CLOSED && (int64_t)i < H->ntext;
}

#endif

#if HAVE_HELPER
static void *helper_main(void *arg) {
    Helper *H = (Helper *)arg;
    for (;;) {
        __atomic_fetch_add(&H->active, 1, __ATOMIC_SEQ_CST);
        take_stages(H, &H->W);
        __atomic_fetch_sub(&H->active, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&H->quit, __ATOMIC_SEQ_CST)) break;
        /* a short wait for the next batch, then asleep until the pass's thread wakes it */
        int spun = 0;
        while (spun < SPIN && !batch_open(H) && !__atomic_load_n(&H->quit, __ATOMIC_SEQ_CST)) {
            relax();
            spun++;
        }
        if (spun < SPIN) continue;
        pthread_mutex_lock(&H->mu);
        __atomic_store_n(&H->sleeping, 1, __ATOMIC_SEQ_CST);
        while (!batch_open(H) && !__atomic_load_n(&H->quit, __ATOMIC_SEQ_CST)) pthread_cond_wait(&H->go, &H->mu);
        __atomic_store_n(&H->sleeping, 0, __ATOMIC_SEQ_CST);
        pthread_mutex_unlock(&H->mu);
    }
    return NULL;
}
#endif

/* a started helper (0), or -1 when no thread could be started (the pass then runs on one thread) */
static int helper_start(Helper *H, int64_t cap) {
    memset(H, 0, sizeof(*H));
    H->word = CLOSED;
#if HAVE_HELPER
    if (work_init(&H->W, cap) < 0) return -1;
    if (pthread_mutex_init(&H->mu, NULL)) goto no_mutex;
    if (pthread_cond_init(&H->go, NULL)) goto no_go;
    if (pthread_create(&H->thread, NULL, helper_main, H)) goto no_thread;
    return 0;
no_thread:
    pthread_cond_destroy(&H->go);
no_go:
    pthread_mutex_destroy(&H->mu);
no_mutex:
    work_free(&H->W);
    return -1;
#else
    (void)cap;
    return -1;
#endif
}

#if HAVE_HELPER
static void wake(Helper *H) {
    if (!__atomic_load_n(&H->sleeping, __ATOMIC_SEQ_CST)) return;
    pthread_mutex_lock(&H->mu);
    pthread_cond_signal(&H->go);
    pthread_mutex_unlock(&H->mu);
}
#endif

/* stops the helper; its work-space error, if any, goes to W */
static void helper_stop(Helper *H, Work *W) {
#if HAVE_HELPER
    __atomic_store_n(&H->quit, 1, __ATOMIC_SEQ_CST);
    pthread_mutex_lock(&H->mu);
    pthread_cond_signal(&H->go);
    pthread_mutex_unlock(&H->mu);
    pthread_join(H->thread, NULL);
    pthread_cond_destroy(&H->go);
    pthread_mutex_destroy(&H->mu);
    if (H->W.err && !W->err) W->err = H->W.err;
    work_free(&H->W);
#else
    (void)H;
    (void)W;
#endif
}

/* the text stages of document j's pairs P->text[0..ntext): shared with the helper from two on */
static void run_text_stages(int64_t j, int64_t ntext, const Sig *S, const Rule *R, Pairs *P, Work *W) {
#if HAVE_HELPER
    Helper *H = P->helper;
    if (H != NULL && ntext >= 2) {
        /* the helper is not active and the word is CLOSED: the batch's fields are the pass's to set */
        H->j = j;
        H->ntext = ntext;
        H->S = S;
        H->R = R;
        H->P = P;
        uint64_t batch = (__atomic_load_n(&H->word, __ATOMIC_SEQ_CST) >> 32) + 1;
        __atomic_store_n(&H->word, (batch << 32) & ~CLOSED, __ATOMIC_SEQ_CST);
        wake(H);
        take_stages(H, W);
        __atomic_store_n(&H->word, (batch << 32) | CLOSED, __ATOMIC_SEQ_CST);
        /* the helper holds a stage: spin briefly, then yield (it may wait for this core) */
        for (int spins = 0; __atomic_load_n(&H->active, __ATOMIC_SEQ_CST); spins++) {
            if (spins < 256)
                relax();
            else
                yield_core();
        }
        if (H->W.err && !W->err) W->err = H->W.err;
        return;
    }
#endif
    for (int64_t i = 0; i < ntext; i++) {
        Pair *q = &P->pairs[P->text[i]];
        rows_text(j, q->x, S, R, &q->o, q->ev, W);
    }
}

static inline double priority(int kind, double sim) {
    if (kind == EXACT) return 4.0;
    if (kind == CONTENT) return 3.0;
    if (kind == NEAR || kind == CONTAINED) return 1.0 + sim;
    return 0.0;
}

static inline int merging_kind(int k) { return k == EXACT || k == CONTENT || k == NEAR || k == CONTAINED; }

static int64_t assign_one(int64_t j, int64_t stamp, const int64_t *cands, int64_t nc, int64_t *rep,
                          const int64_t *nxt, int64_t *checked, const int8_t *sup, const Sig *S, const Rule *R,
                          const Tab *T, int64_t member_checks, double *out_f, int64_t *out_i, Pairs *P, Work *W) {
    const double *th = R->th;
    double best_p = 0.0, best_part = 0.0;
    int64_t verified = 0;
    int64_t ev[EVIDENCE_SIZE], ev2[EVIDENCE_SIZE];
    rep[j] = j;
    out_i[0] = UNIQUE;
    out_i[1] = -1;
    out_i[2] = 0;
    out_i[3] = 0;
    out_i[4] = -1;
    out_f[0] = 0.0;
    out_f[1] = 0.0;
    out_f[2] = 0.0;
    for (int q = 5; q < 9; q++) out_i[q] = -1;
    for (int q = 10; q < OUT_I; q++) out_i[q] = -1;
    /* the two representatives j shares the most with as partial or layout copies (first round) */
    int64_t bf_best = -1, bf_second = -1;
    double bf_best_p = 0.0, bf_second_p = 0.0;
    /* the first pass's pairs (each representative once, in candidate order) are verified before the
     * pass reads them: their signature stages here, then their text stages, on two threads when there
     * is a helper. A verdict is a function of the pair and the tables, which do not change while j is
     * assigned, so the pass reads what it would have computed. -stamp - 1 marks a listed
     * representative (stamps are positive; only equality with the stamp means checked). */
    int64_t npairs = 0, ntext = 0, next_pair = 0;
    for (int64_t t = 0; t < nc; t++) {
        int64_t target = rep[cands[t]];
        if (checked[target] == stamp || checked[target] == -stamp - 1) continue;
        checked[target] = -stamp - 1;
        Pair *q = &P->pairs[npairs];
        q->x = target;
        if (rows_overlap(j, target, S, R, T, &q->o, q->ev, W)) P->text[ntext++] = npairs;
        npairs++;
    }
    P->n = npairs;
    run_text_stages(j, ntext, S, R, P, W);
    for (int second = 0; second < 2; second++) {
        if (second && best_p > 0.0) break;
        for (int64_t t = 0; t < nc; t++) {
            int64_t target = second ? cands[t] : rep[cands[t]];
            if (checked[target] == stamp) continue;
            checked[target] = stamp;
            verified++;
            Checked r;
            if (second) {
                r = verify_rows(j, target, S, R, T, ev, W);
            } else {
                const Pair *q = &P->pairs[next_pair++];
                r = q->o;
                memcpy(ev, q->ev, sizeof(ev));
            }
            int kd = r.v.kind;
            double s = r.v.s, ca = r.v.ca, cb = r.v.cb;
            int64_t c = r.v.c, a = r.v.a;
            int same_layout = r.same_layout;
            int64_t via = target;
            if (!second && (kd == PARTIAL || kd == LAYOUT)) {
                double p_bf = fmax2(ca, cb);
                if (p_bf > bf_best_p) {
                    bf_second = bf_best;
                    bf_second_p = bf_best_p;
                    bf_best = target;
                    bf_best_p = p_bf;
                } else if (p_bf > bf_second_p) {
                    bf_second = target;
                    bf_second_p = p_bf;
                }
            }
            if (kd == CONTAINED && ev[0] > ev[1] && (second || sup[rep[target]] != 0))
                kd = (double)ev[4] >= th[9] ? PARTIAL : UNIQUE;
            if (!second && !merging_kind(kd)) {
                int64_t x = nxt[target];
                int64_t left = member_checks;
                while (x >= 0 && left > 0) {
                    left--;
                    if (checked[x] != stamp) {
                        checked[x] = stamp;
                        verified++;
                        Checked m = verify_rows(j, x, S, R, T, ev2, W);
                        int mk = m.v.kind;
                        if (mk == EXACT || mk == CONTENT ||
                            ((mk == NEAR || (mk == CONTAINED && ev2[0] <= ev2[1])) && (ev2[2] > 0 || m.v.s >= th[0]))) {
                            kd = mk;
                            s = m.v.s;
                            ca = m.v.ca;
                            cb = m.v.cb;
                            c = m.v.c;
                            a = m.v.a;
                            same_layout = m.same_layout;
                            memcpy(ev, ev2, sizeof(ev));
                            via = x;
                            break;
                        }
                    }
                    x = nxt[x];
                }
            }
            int merging = merging_kind(kd);
            /* a member (not its cluster's representative) is merged with only when the texts are
             * the same (exact, content): an identical text cannot chain two stories */
            int twin = kd == EXACT || kd == CONTENT;
            if (target != rep[target] && !twin) {
                if (merging) {
                    kd = fmax2(ca, cb) >= th[3] ? PARTIAL : UNIQUE;
                    if (kd == PARTIAL && same_layout) kd = LAYOUT;
                }
                merging = 0;
            }
            if (merging) {
                double p = priority(kd, s);
                if (p <= best_p) continue;
                best_p = p;
                rep[j] = rep[target];
            } else {
                if (kd == UNIQUE || best_p > 0.0) continue;
                double p = fmax2(ca, cb);
                if (p <= best_part) continue;
                best_part = p;
            }
            out_i[0] = kd;
            out_i[1] = via;
            out_i[2] = c;
            out_i[3] = c + a;
            out_i[4] = (int64_t)popcount64(S->simhash[j] ^ S->simhash[via]);
            out_f[0] = s;
            out_f[1] = ca;
            out_f[2] = cb;
            int has_text = ev[2] > 0 || ev[3] > 0;
            out_i[5] = has_text ? ev[0] : -1;
            out_i[6] = has_text ? ev[1] : -1;
            out_i[7] = has_text ? ev[4] : -1;
            out_i[8] = has_text ? ev[6] : -1;
            for (int q = 0; q < ROW_EVIDENCE; q++) out_i[10 + q] = has_text ? ev[ROW_FIELDS[q]] : -1;
        }
    }
    out_i[9] = bf_best == out_i[1] ? bf_second : bf_best;
    return verified;
}

/* cluster.backfill: report x (output slot ox), taken before j with no relation of its own, as
 * related to j when they share a passage read x's way round; returns pairs verified */
static int64_t backfill(int64_t j, int64_t x, int64_t ox, const Sig *S, const Rule *R, const Tab *T, Res *res,
                        Work *W) {
    int64_t ev[EVIDENCE_SIZE];
    Checked r = verify_rows(x, j, S, R, T, ev, W);
    int kd = r.v.kind;
    if (kd != PARTIAL && kd != LAYOUT) return 1;
    res->kind[ox] = (int8_t)kd;
    res->partner[ox] = j;
    res->conf[ox] = (int32_t)r.v.c;
    res->alig[ox] = (int32_t)(r.v.c + r.v.a);
    res->ham[ox] = (int32_t)popcount64(S->simhash[x] ^ S->simhash[j]);
    res->sim[ox] = r.v.s;
    res->cont[2 * ox] = r.v.ca;
    res->cont[2 * ox + 1] = r.v.cb;
    put_text(res, ox, ev);
    return 1;
}

/* P: j's first-pass pairs when j was just assigned (the tables unchanged since), else NULL: a
 * representative j joined is one of them (a root), and its verdict is read, not computed again */
static void link_member(int64_t j, const int64_t *rep, int64_t *nxt, const Sig *S, const Rule *R, const Tab *T,
                        const Pairs *P, Work *W) {
    int64_t ev[EVIDENCE_SIZE];
    nxt[j] = -1;
    int64_t r = rep[j];
    if (r == j) return;
    int kd = -1;
    for (int64_t i = 0; P != NULL && i < P->n; i++)
        if (P->pairs[i].x == r) {
            kd = P->pairs[i].o.v.kind;
            break;
        }
    if (kd < 0) kd = verify_rows(j, r, S, R, T, ev, W).v.kind;
    if (merging_kind(kd)) {
        nxt[j] = nxt[r];
        nxt[r] = j;
    }
}

/* tables.record_document; returns -1 when a table is full (the caller sized it too small) */
static int record_document(int64_t j, int merged, const Sig *S, Tab *T, int64_t posted, int64_t max_posting,
                           int64_t *meta) {
    if (key_put(T->xk, T->xr, T->nx, S->exact[j], j)) meta[XKEYS]++;
    if (S->tokens[j] > 0 && key_put(T->ck, T->cr, T->nc, S->content[j], j)) meta[CKEYS]++;
    if (merged) return 0;
    int64_t lim = posted < S->kc ? posted : S->kc;
    for (int64_t t = 0; t < lim; t++) {
        uint32_t v = S->sketch[j * S->kc + t];
        if (v == EMPTY32) break;
        int64_t i = posting_slot(T->pv, T->np, v);
        if (T->pv[i] != v) {
            if (meta[SLOTS] + 1 >= T->np) return -1;
            T->pv[i] = v;
            T->pc[i] = 1;
            T->pf[i] = (int32_t)j;
            T->ph[i] = -1;
            meta[SLOTS]++;
            if (1 > T->cmax) filter_add(T, v);
            continue;
        }
        T->pc[i]++;
        if (T->pc[i] > T->cmax) filter_add(T, v);
        if (T->pc[i] <= max_posting + 1) {
            int64_t e = meta[ENTRIES];
            if (e >= T->ne) return -1;
            T->er[e] = (int32_t)j;
            T->en[e] = T->ph[i];
            T->ph[i] = (int32_t)e;
            meta[ENTRIES]++;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* the pass (engine.py)                                                                             */

typedef struct {
    int64_t *buf, *shared, *cands;
    int64_t nbuf, ncands;
    Pairs P; /* a pair per candidate */
} Cand;

static int cand_init(Cand *C, int64_t k, int64_t max_posting, int64_t max_extra) {
    C->buf = C->shared = C->cands = NULL;
    if (max_posting + 2 > (INT64_MAX / 16 - max_extra) / k) return -1; /* more than memory holds */
    C->nbuf = k * (max_posting + 2) + 2;
    C->ncands = C->nbuf + max_extra;
    C->buf = malloc((size_t)C->nbuf * 8);
    C->shared = malloc((size_t)C->nbuf * 8);
    C->cands = malloc((size_t)(C->ncands + 1) * 8);
    C->P.cap = C->ncands + 1;
    C->P.pairs = malloc((size_t)C->P.cap * sizeof(Pair));
    C->P.text = malloc((size_t)C->P.cap * 8);
    C->P.helper = NULL;
    C->P.n = 0;
    if (!C->buf || !C->shared || !C->cands || !C->P.pairs || !C->P.text) {
        free(C->buf);
        free(C->shared);
        free(C->cands);
        free(C->P.pairs);
        free(C->P.text);
        return -1;
    }
    return 0;
}

static void cand_free(Cand *C) {
    free(C->buf);
    free(C->shared);
    free(C->cands);
    free(C->P.pairs);
    free(C->P.text);
}

static int64_t candidates(int64_t j, const Sig *S, const Tab *T, int64_t max_posting, int64_t min_shared,
                          const int64_t *extra, int64_t n_extra, Cand *C) {
    int64_t *buf = C->buf;
    int64_t n = 0;
    int64_t r = key_get(T->xk, T->xr, T->nx, S->exact[j]);
    if (r >= 0) buf[n++] = r;
    if (S->tokens[j] > 0) {
        r = key_get(T->ck, T->cr, T->nc, S->content[j]);
        if (r >= 0) buf[n++] = r;
    }
    int64_t keys_n = n;
    for (int64_t t = 0; t < S->kc; t++) {
        uint32_t v = S->sketch[j * S->kc + t];
        if (v == EMPTY32) break;
        int64_t i = posting_slot(T->pv, T->np, v);
        if (T->pv[i] != v || T->pc[i] > max_posting) continue;
        if (n + max_posting + 2 > C->nbuf) break;
        buf[n++] = T->pf[i];
        int64_t e = T->ph[i];
        while (e >= 0) {
            buf[n++] = T->er[e];
            e = T->en[e];
        }
    }
    int64_t ns = n - keys_n;
    memcpy(C->shared, buf + keys_n, (size_t)ns * 8);
    sort_i64(C->shared, ns);
    int64_t m = 0;
    for (int64_t t = 0; t < keys_n; t++) C->cands[m++] = buf[t];
    int64_t i = 0;
    while (i < ns) {
        int64_t q = i + 1;
        while (q < ns && C->shared[q] == C->shared[i]) q++;
        if (q - i >= min_shared) C->cands[m++] = C->shared[i];
        i = q;
    }
    for (int64_t t = 0; t < n_extra; t++) C->cands[m++] = extra[t];
    return m;
}

typedef struct {
    int64_t *rep, *nxt, *checked;
    int8_t *sup;
} Links;

/* engine._document; returns pairs verified, or -1 when a table is full */
static int64_t document(int64_t j, int64_t o, int is_fixed, int64_t free_row, int add, Links *L, const Sig *S, Tab *T,
                        int64_t *meta,
                        const int64_t *extra, int64_t n_extra, const Rule *R, int64_t posted, int64_t min_shared,
                        int64_t member_checks, Cand *C, double *out_f, int64_t *out_i, Res *res, Work *W) {
    int64_t verified = 0;
    int64_t *rep = L->rep;
    if (is_fixed) {
        rep[j] = j;
        res->kind[o] = 0;
        res->partner[o] = -1;
    } else {
        int64_t nc = candidates(j, S, T, R->max_posting, min_shared, extra, n_extra, C);
        verified += assign_one(j, j + 1 + meta[STAMPS], C->cands, nc, rep, L->nxt, L->checked, L->sup, S, R, T,
                               member_checks, out_f, out_i, &C->P, W);
        /* the same page (or text) as an earlier document of the cluster it joined: named for it */
        if (rep[j] != j && out_i[0] != 1) {
            for (int code = 1; code <= 2; code++) {
                int usable = code == 1 ? 1 : S->tokens[j] > 0;
                if (!usable || out_i[0] == code) continue;
                int64_t r = code == 1 ? key_get(T->xk, T->xr, T->nx, S->exact[j])
                                      : key_get(T->ck, T->cr, T->nc, S->content[j]);
                if (r >= 0 && rep[r] == rep[j]) {
                    out_i[0] = code;
                    out_i[1] = r;
                    out_i[2] = 0;
                    out_i[4] = (int64_t)popcount64(S->simhash[j] ^ S->simhash[r]);
                    for (int q = 5; q < 9; q++) out_i[q] = -1;
                    for (int q = 10; q < OUT_I; q++) out_i[q] = -1;
                    out_f[0] = 1.0;
                    out_f[1] = 1.0;
                    out_f[2] = 1.0;
                    break;
                }
            }
        }
        res->kind[o] = (int8_t)out_i[0];
        res->partner[o] = out_i[1];
        res->conf[o] = (int32_t)out_i[2];
        res->alig[o] = (int32_t)out_i[3];
        res->ham[o] = (int32_t)out_i[4];
        int32_t *t = res->text + res->tcols * o;
        for (int q = 0; q < 4; q++) t[q] = (int32_t)out_i[5 + q];
        if (res->tcols == TEXT_COLS)
            for (int q = 0; q < ROW_EVIDENCE; q++) t[4 + q] = (int32_t)out_i[10 + q];
        res->sim[o] = out_f[0];
        res->cont[2 * o] = out_f[1];
        res->cont[2 * o + 1] = out_f[2];
        /* a document taken before j, left with no relation, that shares a passage with j */
        int64_t x = out_i[9], ox = out_i[9] - (j - o);
        if (add && x >= free_row && ox >= 0 && ox < res->n && rep[x] != rep[j] && res->kind[ox] == UNIQUE &&
            res->partner[ox] < 0)
            verified += backfill(j, x, ox, S, R, T, res, W);
    }
    if (add) {
        if (!is_fixed && res->kind[o] == CONTAINED && res->text[res->tcols * o] > res->text[res->tcols * o + 1])
            L->sup[rep[j]] = 1;
        link_member(j, rep, L->nxt, S, R, T, is_fixed ? NULL : &C->P, W);
        if (record_document(j, rep[j] != j, S, T, posted, R->max_posting, meta) < 0) return -1;
    } else {
        meta[STAMPS] += 1;
    }
    return verified;
}

/* ---------------------------------------------------------------------------------------------- */
/* argument parsing                                                                                 */

static int parse_sig(Held *h, PyObject *t, Sig *S) {
    if (tuple_of(t, 11, "sig") < 0) return -1;
    Arr a[11];
    static const char *names[11] = {"sig exact",  "sig content", "sig simhash", "sig size",
                                    "sig tokens", "sig sketch",  "sig numbers", "sig layout",
                                    "sig has_layout", "sig prof_ptr", "sig prof"};
    static const char kinds[11] = {'u', 'u', 'u', 'i', 'i', 'u', 'u', 'u', 'b', 'i', 'u'};
    static const int sizes[11] = {8, 8, 8, 4, 4, 4, 8, 8, 1, 8, 4};
    static const int dims[11] = {1, 1, 1, 1, 1, 2, 2, 1, 1, 1, 1};
    for (int i = 0; i < 11; i++)
        if (get_arr(h, PyTuple_GET_ITEM(t, i), &a[i], 0, kinds[i], sizes[i], dims[i], names[i]) < 0) return -1;
    int64_t n = a[0].rows;
    for (int i = 1; i < 9; i++)
        if (a[i].rows != n) {
            PyErr_Format(PyExc_ValueError, "%s has %zd rows, sig exact has %lld", names[i], a[i].rows, (long long)n);
            return -1;
        }
    if (a[9].rows < n + 1) {
        PyErr_Format(PyExc_ValueError, "sig prof_ptr has %zd entries for %lld rows", a[9].rows, (long long)n);
        return -1;
    }
    if (a[5].cols < 1 || a[6].cols < 1) {
        PyErr_SetString(PyExc_ValueError, "sig sketch and numbers need at least one column");
        return -1;
    }
    S->exact = (const uint64_t *)a[0].p;
    S->content = (const uint64_t *)a[1].p;
    S->simhash = (const uint64_t *)a[2].p;
    S->size = (const int32_t *)a[3].p;
    S->tokens = (const int32_t *)a[4].p;
    S->sketch = (const uint32_t *)a[5].p;
    S->kc = a[5].cols;
    S->numbers = (const uint64_t *)a[6].p;
    S->mc = a[6].cols;
    S->layout = (const uint64_t *)a[7].p;
    S->has_layout = (const uint8_t *)a[8].p;
    S->pp = (const int64_t *)a[9].p;
    S->prof = (const uint32_t *)a[10].p;
    S->n = n;
    S->nprof = a[10].len;
    return 0;
}

/* the profile pointers of rows 0..n-1 must be ascending within the profile array; returns the
 * longest profile, or -1 (error set) */
static int64_t check_profiles(const Sig *S, int64_t n) {
    int64_t longest = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t a = S->pp[i], b = S->pp[i + 1];
        if (a < 0 || b < a || b > S->nprof) {
            PyErr_Format(PyExc_ValueError, "sig prof_ptr is not ascending within prof at row %lld", (long long)i);
            return -1;
        }
        if (b - a > longest) longest = b - a;
    }
    return longest;
}

static int parse_tab(Held *h, PyObject *t, Tab *T) {
    if (tuple_of(t, 10, "tab") < 0) return -1;
    Arr a[10];
    static const char *names[10] = {"tab xk", "tab xr", "tab ck", "tab cr", "tab pv",
                                    "tab pc", "tab pf", "tab ph", "tab er", "tab en"};
    static const char kinds[10] = {'u', 'i', 'u', 'i', 'u', 'i', 'i', 'i', 'i', 'i'};
    static const int sizes[10] = {8, 8, 8, 8, 4, 4, 4, 4, 4, 4};
    for (int i = 0; i < 10; i++)
        if (get_arr(h, PyTuple_GET_ITEM(t, i), &a[i], 1, kinds[i], sizes[i], 1, names[i]) < 0) return -1;
    if (a[0].len != a[1].len || a[2].len != a[3].len || a[4].len != a[5].len || a[4].len != a[6].len ||
        a[4].len != a[7].len || a[8].len != a[9].len || a[0].len < 1 || a[2].len < 1 || a[4].len < 1) {
        PyErr_SetString(PyExc_ValueError, "tab: key, row and posting arrays must be non-empty and pairwise equal in length");
        return -1;
    }
    T->xk = (uint64_t *)a[0].p;
    T->xr = (int64_t *)a[1].p;
    T->nx = a[0].len;
    T->ck = (uint64_t *)a[2].p;
    T->cr = (int64_t *)a[3].p;
    T->nc = a[2].len;
    T->pv = (uint32_t *)a[4].p;
    T->pc = (int32_t *)a[5].p;
    T->pf = (int32_t *)a[6].p;
    T->ph = (int32_t *)a[7].p;
    T->np = a[4].len;
    T->er = (int32_t *)a[8].p;
    T->en = (int32_t *)a[9].p;
    T->ne = a[8].len;
    T->cbits = NULL;
    T->cshift = 0;
    T->cmax = -1;
    return 0;
}

static int parse_res(Held *h, PyObject *t, int64_t need, Res *R) {
    if (tuple_of(t, 8, "res") < 0) return -1;
    Arr a[8];
    static const char *names[8] = {"res kind",      "res partner", "res similarity", "res containment",
                                   "res conflicts", "res aligned", "res hamming",    "res text"};
    static const char kinds[8] = {'i', 'i', 'f', 'f', 'i', 'i', 'i', 'i'};
    static const int sizes[8] = {1, 8, 8, 8, 4, 4, 4, 4};
    static const int dims[8] = {1, 1, 1, 2, 1, 1, 1, 2};
    for (int i = 0; i < 8; i++)
        if (get_arr(h, PyTuple_GET_ITEM(t, i), &a[i], 1, kinds[i], sizes[i], dims[i], names[i]) < 0) return -1;
    for (int i = 0; i < 8; i++)
        if (a[i].rows < need) {
            PyErr_Format(PyExc_ValueError, "%s has %zd rows, need %lld", names[i], a[i].rows, (long long)need);
            return -1;
        }
    if (a[3].cols != 2 || (a[7].cols != 4 && a[7].cols != TEXT_COLS)) {
        PyErr_SetString(PyExc_ValueError, "res containment must have 2 columns and res text 4 or 19");
        return -1;
    }
    R->kind = (int8_t *)a[0].p;
    R->partner = (int64_t *)a[1].p;
    R->sim = (double *)a[2].p;
    R->cont = (double *)a[3].p;
    R->conf = (int32_t *)a[4].p;
    R->alig = (int32_t *)a[5].p;
    R->ham = (int32_t *)a[6].p;
    R->text = (int32_t *)a[7].p;
    R->tcols = a[7].cols;
    R->n = need;
    return 0;
}

static int parse_links(Held *h, PyObject *rep, PyObject *nxt, PyObject *checked, PyObject *sup, int64_t need,
                       Links *L) {
    Arr a, b, c, d;
    if (get_arr(h, rep, &a, 1, 'i', 8, 1, "rep") < 0 || get_arr(h, nxt, &b, 1, 'i', 8, 1, "nxt") < 0 ||
        (checked && get_arr(h, checked, &c, 1, 'i', 8, 1, "checked") < 0) ||
        (sup && get_arr(h, sup, &d, 1, 'i', 1, 1, "sup") < 0))
        return -1;
    if (a.len < need || b.len < need || (checked && c.len < need) || (sup && d.len < need)) {
        PyErr_Format(PyExc_ValueError, "rep, nxt, checked and sup need %lld rows", (long long)need);
        return -1;
    }
    L->rep = (int64_t *)a.p;
    L->nxt = (int64_t *)b.p;
    L->checked = checked ? (int64_t *)c.p : NULL;
    L->sup = sup ? (int8_t *)d.p : NULL;
    return 0;
}

static int parse_rule(Held *h, PyObject *tho, PyObject *dayo, int64_t rows, long long k, long long layout_distance,
                      long long max_conflicts, long long agree_min, long long max_posting, const Sig *S, Rule *R) {
    Arr th, day;
    if (get_arr(h, tho, &th, 0, 'f', 8, 1, "th") < 0 || get_arr(h, dayo, &day, 0, 'i', 4, 1, "day") < 0) return -1;
    if (day.len > 0 && day.len < rows) {
        PyErr_Format(PyExc_ValueError, "day has %zd entries, need none or %lld", day.len, (long long)rows);
        return -1;
    }
    R->day = (const int32_t *)day.p;
    R->nday = day.len;
    if (th.len < N_TH) {
        PyErr_Format(PyExc_ValueError, "th must hold %d thresholds, got %zd", N_TH, th.len);
        return -1;
    }
    if (k < 1 || k > S->kc) {
        PyErr_Format(PyExc_ValueError, "k must be between 1 and the sketch's %lld columns, got %lld",
                     (long long)S->kc, k);
        return -1;
    }
    if (max_posting < 0 || max_posting > ((long long)1 << 40)) {
        PyErr_Format(PyExc_ValueError, "max_posting must be between 0 and 2**40, got %lld", max_posting);
        return -1;
    }
    R->k = k;
    R->layout_distance = layout_distance;
    R->max_conflicts = max_conflicts;
    R->agree_min = agree_min;
    R->max_posting = max_posting;
    R->th = (const double *)th.p;
    return 0;
}

/* extra candidates: pointers (ptr_len entries, ascending within rows) and rows below ``limit`` */
static int parse_extra(Held *h, PyObject *po, PyObject *ro, int64_t ptr_len, int64_t limit, Arr *P, Arr *X,
                       int64_t *longest) {
    if (get_arr(h, po, P, 0, 'i', 8, 1, "extra_ptr") < 0 || get_arr(h, ro, X, 0, 'i', 8, 1, "extra") < 0) return -1;
    if (P->len < ptr_len) {
        PyErr_Format(PyExc_ValueError, "extra_ptr has %zd entries, need %lld", P->len, (long long)ptr_len);
        return -1;
    }
    const int64_t *p = (const int64_t *)P->p, *x = (const int64_t *)X->p;
    *longest = 0;
    for (int64_t i = 0; i + 1 < ptr_len; i++) {
        if (p[i] < 0 || p[i + 1] < p[i] || p[i + 1] > X->len) {
            PyErr_Format(PyExc_ValueError, "extra_ptr is not ascending within extra at %lld", (long long)i);
            return -1;
        }
        if (p[i + 1] - p[i] > *longest) *longest = p[i + 1] - p[i];
    }
    for (int64_t i = 0; i < X->len; i++)
        if (x[i] < 0 || x[i] >= limit) {
            PyErr_Format(PyExc_ValueError, "extra row %lld is outside 0..%lld", (long long)x[i], (long long)limit - 1);
            return -1;
        }
    return 0;
}

/* after a loop: the work space's error (a profile pointer outside the profiles, out of memory) */
static PyObject *work_error(const Work *W) {
    if (W->err == 2) return PyErr_NoMemory();
    PyErr_SetString(PyExc_ValueError, "sig prof_ptr points outside prof for a row verified");
    return NULL;
}

static PyObject *table_full(void) {
    PyErr_SetString(PyExc_ValueError, "a posting table is full: the tables are too small for the documents");
    return NULL;
}

/* ---------------------------------------------------------------------------------------------- */
/* entry points                                                                                     */

static PyObject *py_run(PyObject *self, PyObject *args) {
    (void)self;
    long long j0, j1, fixed, k, posted, min_shared, max_posting, layout_distance, max_conflicts, agree_min,
        member_checks;
    int add;
    PyObject *rep, *nxt, *checked, *sup, *sig, *day, *tab, *meta, *eptr, *extra, *th, *res;
    if (!PyArg_ParseTuple(args, "LLLpOOOOOOOOOOLLLLLOLLLO", &j0, &j1, &fixed, &add, &rep, &nxt, &checked, &sup, &sig,
                          &day, &tab, &meta, &eptr, &extra, &k, &posted, &min_shared, &max_posting, &layout_distance,
                          &th, &max_conflicts, &agree_min, &member_checks, &res))
        return NULL;
    Held h = {.n = 0};
    Sig S;
    Tab T;
    Res R;
    Rule rule;
    Links L;
    Arr M, P, X;
    int64_t longest_extra = 0, longest;
    if (parse_sig(&h, sig, &S) < 0) goto fail;
    if (j0 < 0 || j1 < j0 || j1 > S.n) {
        PyErr_Format(PyExc_ValueError, "rows %lld..%lld are outside the %lld signatures", j0, j1, (long long)S.n);
        goto fail;
    }
    if (parse_tab(&h, tab, &T) < 0 || parse_res(&h, res, j1 - j0, &R) < 0 ||
        parse_links(&h, rep, nxt, checked, sup, j1, &L) < 0 ||
        parse_rule(&h, th, day, j1, k, layout_distance, max_conflicts, agree_min, max_posting, &S, &rule) < 0 ||
        get_arr(&h, meta, &M, 1, 'i', 8, 1, "meta") < 0 ||
        parse_extra(&h, eptr, extra, j1 - j0 + 1, j1, &P, &X, &longest_extra) < 0)
        goto fail;
    if (M.len < 5) {
        PyErr_SetString(PyExc_ValueError, "meta must hold 5 counters");
        goto fail;
    }
    longest = 0; /* the work space grows to the longest profile verified */
    Work W;
    Cand C;
    if (work_init(&W, longest) < 0) {
        PyErr_NoMemory();
        goto fail;
    }
    if (cand_init(&C, k, max_posting, longest_extra) < 0) {
        work_free(&W);
        PyErr_NoMemory();
        goto fail;
    }
    int64_t verified = 0, bad = 0;
    int64_t *mt = (int64_t *)M.p;
    const int64_t *ep = (const int64_t *)P.p, *ex = (const int64_t *)X.p;
    Py_BEGIN_ALLOW_THREADS;
    double out_f[3] = {0.0, 0.0, 0.0};
    int64_t out_i[OUT_I] = {0};
    for (int64_t j = j0; j < j1; j++) {
        int64_t o = j - j0;
        int64_t v = document(j, o, o < fixed, j0 + fixed, add, &L, &S, &T, mt, ex + ep[o], ep[o + 1] - ep[o], &rule, posted,
                             min_shared, member_checks, &C, out_f, out_i, &R, &W);
        if (v < 0) {
            bad = 1;
            break;
        }
        if (W.err) break;
        verified += v;
    }
    Py_END_ALLOW_THREADS;
    cand_free(&C);
    int err = W.err;
    work_free(&W);
    W.err = err;
    release(&h);
    if (W.err) return work_error(&W);
    if (bad) return table_full();
    return PyLong_FromLongLong(verified);
fail:
    release(&h);
    return NULL;
}

/* threads of run_components' pass (1 or 2: a helper thread takes text stages); set_threads */
static int pass_threads = 2;

static PyObject *py_set_threads(PyObject *self, PyObject *args) {
    (void)self;
    int n;
    if (!PyArg_ParseTuple(args, "i", &n)) return NULL;
    if (n < 1) {
        PyErr_SetString(PyExc_ValueError, "threads must be at least 1");
        return NULL;
    }
    int old = pass_threads;
    pass_threads = n > 2 ? 2 : n;
    return PyLong_FromLong(old);
}

/* the context of run_components' pass, shared (read-only, or written at the component's own rows)
 * by the threads that take its components */
typedef struct {
    const Sig *S;
    Res *R;
    const Rule *rule;
    Links *L;
    const int64_t *ptr, *rows, *order, *common_from, *ep, *ex;
    const uint32_t *common;
    int64_t fixed, posted, min_shared, member_checks, max_posting, n_common;
} PassCtx;

/* component c of the pass with tables of its own: 0, or 1 when a table is full, 2 when out of
 * memory, 3 on a work-space error (W->err); *seedp: a buffer for the component's seeds, grown here */
static int pass_component(int64_t c, const PassCtx *X, Work *W, Cand *C, uint64_t **seedp, int64_t *verified) {
    const Sig *S = X->S;
    Res *R = X->R;
    const Rule *rule = X->rule;
    Links *L = X->L;
    const int64_t *ptr = X->ptr, *rows = X->rows, *order = X->order, *common_from = X->common_from;
    const int64_t *ep = X->ep, *ex = X->ex;
    const uint32_t *common = X->common;
    int64_t fixed = X->fixed, posted = X->posted, min_shared = X->min_shared, member_checks = X->member_checks;
    int64_t max_posting = X->max_posting, n_common = X->n_common;
    uint64_t *seed = *seedp;
    int bad = 0;
    double out_f[3] = {0.0, 0.0, 0.0};
    int64_t out_i[OUT_I] = {0};
    int64_t a = ptr[c], b = ptr[c + 1];
    int64_t m = b - a;
    int64_t seeds = 0;
    if (n_common) {
        uint64_t *grown = realloc(*seedp, (size_t)(m * S->kc > 0 ? m * S->kc : 1) * 8);
        if (!grown) return 2;
        *seedp = grown;
        seed = grown;
        for (int64_t t = a; t < b; t++)
            for (int64_t q = 0; q < S->kc; q++) {
                uint32_t v = S->sketch[rows[t] * S->kc + q];
                if (v == EMPTY32) break;
                int64_t at = sorted_index_u32(common, n_common, v);
                if (at >= 0) seed[seeds++] = ((uint64_t)(common_from[at] + 1) << 32) | v;
            }
        sort_u64(seed, seeds);
    }
    int64_t slots = (int64_t)((double)(m * posted + seeds) / 0.8) + 1;
    if (slots < 64) slots = 64;
    int64_t keys = (int64_t)((double)m / 0.8) + 1;
    if (keys < 16) keys = 16;
    int64_t entries = m * posted > 1 ? m * posted : 1;
    Tab T;
    T.np = slots;
    T.nx = T.nc = keys;
    T.ne = entries;
    int fbits = 12; /* the boilerplate filter: about a bit a posting slot, 2^12 to 2^20 bits */
    while (fbits < 20 && ((int64_t)1 << fbits) < slots) fbits++;
    T.cshift = 32 - fbits;
    T.cmax = max_posting;
    T.cbits = calloc((size_t)1 << (fbits - 6), 8);
    T.pv = malloc((size_t)slots * 4);
    T.pc = calloc((size_t)slots, 4);
    T.pf = calloc((size_t)slots, 4);
    T.ph = malloc((size_t)slots * 4);
    T.er = calloc((size_t)entries, 4);
    T.en = calloc((size_t)entries, 4);
    T.xk = calloc((size_t)keys, 8);
    T.xr = malloc((size_t)keys * 8);
    T.ck = calloc((size_t)keys, 8);
    T.cr = malloc((size_t)keys * 8);
    if (!T.pv || !T.pc || !T.pf || !T.ph || !T.er || !T.en || !T.xk || !T.xr || !T.ck || !T.cr || !T.cbits) {
        bad = 2;
    } else {
        memset(T.pv, 0xFF, (size_t)slots * 4);
        for (int64_t i = 0; i < slots; i++) T.ph[i] = -1;
        for (int64_t i = 0; i < keys; i++) T.xr[i] = T.cr[i] = -1;
        int64_t meta[5] = {0, 0, 0, 0, 0};
        int64_t next = 0;
        for (int64_t t = a; t < b; t++) {
            int64_t j = rows[t];
            /* the values boilerplate over the batch before row j: common from now on */
            int64_t place = order != NULL ? order[j] : j;
            for (; next < seeds && (int64_t)(seed[next] >> 32) <= place; next++) {
                uint32_t v = (uint32_t)(seed[next] & 0xFFFFFFFFu);
                int64_t i = posting_slot(T.pv, slots, v);
                if (T.pv[i] != v) {
                    T.pv[i] = v;
                    T.pf[i] = (int32_t)j;
                    T.ph[i] = -1;
                    T.pc[i] = 0;
                    meta[0]++;
                }
                if (T.pc[i] <= max_posting) T.pc[i] = (int32_t)(max_posting + 1);
                filter_add(&T, v);
            }
            int64_t v = document(j, j, j < fixed, fixed, 1, L, S, &T, meta, ex + ep[j], ep[j + 1] - ep[j], rule,
                                 posted, min_shared, member_checks, C, out_f, out_i, R, W);
            if (v < 0) {
                bad = 1;
                break;
            }
            if (W->err) {
                bad = 3;
                break;
            }
            *verified += v;
        }
    }
    free(T.pv); free(T.pc); free(T.pf); free(T.ph); free(T.er); free(T.en);
    free(T.xk); free(T.xr); free(T.ck); free(T.cr); free(T.cbits);
    return bad;
}

#if HAVE_HELPER
/* one thread's share of the pass: the components list[i] for the indices i it takes from *next
 * (shared), with a work space and candidate buffers of its own */
typedef struct {
    const PassCtx *X;
    const int64_t *list;
    int64_t nlist, *next, longest, k, max_posting, longest_extra, verified;
    int *stop, bad, werr;
} PassShare;

static void *pass_share(void *arg) {
    PassShare *Q = (PassShare *)arg;
    Work W;
    Cand C;
    uint64_t *seed = NULL;
    if (work_init(&W, Q->longest) < 0) {
        Q->bad = 2;
    } else if (cand_init(&C, Q->k, Q->max_posting, Q->longest_extra) < 0) {
        work_free(&W);
        Q->bad = 2;
    }
    if (Q->bad) {
        __atomic_store_n(Q->stop, 1, __ATOMIC_SEQ_CST);
        return NULL;
    }
    for (;;) {
        if (__atomic_load_n(Q->stop, __ATOMIC_SEQ_CST)) break;
        int64_t i = __atomic_fetch_add(Q->next, 1, __ATOMIC_SEQ_CST);
        if (i >= Q->nlist) break;
        int bad = pass_component(Q->list[i], Q->X, &W, &C, &seed, &Q->verified);
        if (bad) {
            Q->bad = bad;
            __atomic_store_n(Q->stop, 1, __ATOMIC_SEQ_CST);
            break;
        }
    }
    Q->werr = W.err;
    free(seed);
    cand_free(&C);
    work_free(&W);
    return NULL;
}
#endif

static PyObject *py_run_components(PyObject *self, PyObject *args) {
    (void)self;
    long long fixed, k, posted, min_shared, max_posting, layout_distance, max_conflicts, agree_min, member_checks;
    PyObject *ptro, *rowso, *rep, *nxt, *checked, *sup, *sig, *day, *eptr, *extra, *th, *res, *commono = NULL,
             *fromo = NULL, *ordero = NULL;
    if (!PyArg_ParseTuple(args, "OOLOOOOOOOOLLLLLOLLLO|OOO", &ptro, &rowso, &fixed, &rep, &nxt, &checked, &sup, &sig,
                          &day, &eptr, &extra, &k, &posted, &min_shared, &max_posting, &layout_distance, &th, &max_conflicts,
                          &agree_min, &member_checks, &res, &commono, &fromo, &ordero))
        return NULL;
    Held h = {.n = 0};
    Sig S;
    Res R;
    Rule rule;
    Links L;
    Arr PT, RW, P, X, CM = {0}, CF = {0}, CO = {0};
    int64_t longest_extra = 0, longest;
    if (parse_sig(&h, sig, &S) < 0 || parse_res(&h, res, S.n, &R) < 0 ||
        parse_links(&h, rep, nxt, checked, sup, S.n, &L) < 0 ||
        parse_rule(&h, th, day, S.n, k, layout_distance, max_conflicts, agree_min, max_posting, &S, &rule) < 0 ||
        get_arr(&h, ptro, &PT, 0, 'i', 8, 1, "ptr") < 0 || get_arr(&h, rowso, &RW, 0, 'i', 8, 1, "rows") < 0 ||
        parse_extra(&h, eptr, extra, S.n + 1, S.n, &P, &X, &longest_extra) < 0 ||
        (commono != NULL && commono != Py_None &&
         (get_arr(&h, commono, &CM, 0, 'u', 4, 1, "common") < 0 || fromo == NULL ||
          get_arr(&h, fromo, &CF, 0, 'i', 8, 1, "common_from") < 0)) ||
        (ordero != NULL && ordero != Py_None && get_arr(&h, ordero, &CO, 0, 'i', 8, 1, "order") < 0))
        goto fail;
    /* the rows' places in the batch, which common_from counts in (default: the rows themselves) */
    const int64_t *order = ordero != NULL && ordero != Py_None && CO.len ? (const int64_t *)CO.p : NULL;
    if (order != NULL && CO.len != S.n) {
        PyErr_SetString(PyExc_ValueError, "order must hold one place per signature row");
        goto fail;
    }
    /* the batch's boilerplate values (sorted) and, per value, the row after which it is boilerplate
       over the batch: a component's table marks it common from there on */
    const uint32_t *common = commono != NULL && commono != Py_None ? (const uint32_t *)CM.p : NULL;
    const int64_t *common_from = common != NULL ? (const int64_t *)CF.p : NULL;
    int64_t n_common = common != NULL ? CM.len : 0;
    if (common != NULL && CF.len != CM.len) {
        PyErr_SetString(PyExc_ValueError, "common_from must hold one row per common value");
        goto fail;
    }
    uint64_t *seed = NULL; /* a component's seeds: (row after which, value), sorted */
    if (posted < 0) {
        PyErr_SetString(PyExc_ValueError, "posted must be at least 0");
        goto fail;
    }
    const int64_t *ptr = (const int64_t *)PT.p, *rows = (const int64_t *)RW.p;
    if (PT.len < 1 || ptr[0] < 0 || ptr[PT.len - 1] > RW.len) {
        PyErr_SetString(PyExc_ValueError, "ptr must be ascending pointers into rows");
        goto fail;
    }
    for (int64_t c = 0; c + 1 < PT.len; c++)
        if (ptr[c + 1] < ptr[c]) {
            PyErr_SetString(PyExc_ValueError, "ptr must be ascending pointers into rows");
            goto fail;
        }
    for (int64_t t = 0; t < RW.len; t++)
        if (rows[t] < 0 || rows[t] >= S.n) {
            PyErr_Format(PyExc_ValueError, "row %lld is outside the %lld signatures", (long long)rows[t],
                         (long long)S.n);
            goto fail;
        }
    if ((longest = check_profiles(&S, S.n)) < 0) goto fail;
    Work W;
    Cand C;
    if (work_init(&W, longest) < 0) {
        PyErr_NoMemory();
        goto fail;
    }
    if (cand_init(&C, k, max_posting, longest_extra) < 0) {
        work_free(&W);
        PyErr_NoMemory();
        goto fail;
    }
    int64_t verified = 0, bad = 0;
    const int64_t *ep = (const int64_t *)P.p, *ex = (const int64_t *)X.p;
    PassCtx ctx = {&S, &R, &rule, &L, ptr, rows, order, common_from, ep, ex, common,
                   fixed, posted, min_shared, member_checks, max_posting, n_common};
    int64_t n_comp = PT.len > 0 ? PT.len - 1 : 0;
    /* Components are independent (tables of their own; a document's candidates, members and
     * results are rows of its component), so on two threads the pass takes them in any order and
     * answers alike. A component of an eighth of the rows or more runs first, on this thread with
     * the helper taking text stages; the rest go to two threads that each take the next one left.
     * SimHash candidates (extra) may name rows of other components: with them, one thread. */
    int64_t total = ptr[n_comp] - ptr[0];
    int64_t *small = malloc((size_t)(n_comp > 0 ? n_comp : 1) * 8);
    if (!small) {
        cand_free(&C);
        work_free(&W);
        release(&h);
        return PyErr_NoMemory();
    }
    int64_t n_small = 0;
    int share = pass_threads > 1 && X.len == 0 && HAVE_HELPER;
    Helper helper;
    Py_BEGIN_ALLOW_THREADS;
    if (pass_threads > 1 && helper_start(&helper, longest) == 0) C.P.helper = &helper;
    for (int64_t c = 0; c < n_comp && !bad; c++) {
        int64_t m = ptr[c + 1] - ptr[c];
        if (share && !(m >= 512 && 8 * m >= total)) {
            small[n_small++] = c;
            continue;
        }
        bad = pass_component(c, &ctx, &W, &C, &seed, &verified);
    }
    if (C.P.helper) {
        helper_stop(&helper, &W);
        C.P.helper = NULL;
    }
    /* the largest first (then in component order), so the last ones taken are short */
    if (n_small > 1 && !bad) {
        uint64_t *key = malloc((size_t)n_small * 8);
        if (key) {
            for (int64_t i = 0; i < n_small; i++) {
                int64_t m = ptr[small[i] + 1] - ptr[small[i]];
                uint64_t room = m < 0xFFFFFFFFll ? (uint64_t)(0xFFFFFFFFll - m) : 0;
                key[i] = (room << 32) | (uint64_t)i;
            }
            sort_u64(key, n_small);
            int64_t *by_size = malloc((size_t)n_small * 8);
            if (by_size) {
                for (int64_t i = 0; i < n_small; i++) by_size[i] = small[key[i] & 0xFFFFFFFFu];
                memcpy(small, by_size, (size_t)n_small * 8);
                free(by_size);
            }
            free(key);
        }
    }
#if HAVE_HELPER
    if (!bad && n_small) {
        int64_t next = 0;
        int stop = 0;
        PassShare Q[2];
        for (int t = 0; t < 2; t++)
            Q[t] = (PassShare){&ctx, small, n_small, &next, longest, k, max_posting, longest_extra, 0, &stop, 0, 0};
        pthread_t th;
        int started = pthread_create(&th, NULL, pass_share, &Q[1]) == 0;
        /* this thread's share with its own buffers (W and C stay as the first phase left them) */
        pass_share(&Q[0]);
        if (started) pthread_join(th, NULL);
        for (int t = 0; t < 2; t++) {
            verified += Q[t].verified;
            if (Q[t].werr && !W.err) W.err = Q[t].werr;
            if (Q[t].bad && !bad) bad = Q[t].bad;
        }
    }
#endif
    if (W.err && !bad) bad = 3;
    Py_END_ALLOW_THREADS;
    free(small);
    free(seed);
    cand_free(&C);
    int err = W.err;
    work_free(&W);
    W.err = err;
    release(&h);
    if (bad == 2) return PyErr_NoMemory();
    if (bad == 3) return work_error(&W);
    if (bad) return table_full();
    return PyLong_FromLongLong(verified);
fail:
    release(&h);
    return NULL;
}

static PyObject *py_record(PyObject *self, PyObject *args) {
    (void)self;
    long long j0, j1, k, posted, max_posting, layout_distance, max_conflicts, agree_min;
    PyObject *rep, *nxt, *sig, *day, *tab, *meta, *th;
    if (!PyArg_ParseTuple(args, "LLOOOOOOLLLLOLL", &j0, &j1, &rep, &nxt, &sig, &day, &tab, &meta, &k, &posted,
                          &max_posting, &layout_distance, &th, &max_conflicts, &agree_min))
        return NULL;
    Held h = {.n = 0};
    Sig S;
    Tab T;
    Rule rule;
    Links L;
    Arr M;
    int64_t longest;
    if (parse_sig(&h, sig, &S) < 0) goto fail;
    if (j0 < 0 || j1 < j0 || j1 > S.n) {
        PyErr_Format(PyExc_ValueError, "rows %lld..%lld are outside the %lld signatures", j0, j1, (long long)S.n);
        goto fail;
    }
    if (parse_tab(&h, tab, &T) < 0 || parse_links(&h, rep, nxt, NULL, NULL, j1, &L) < 0 ||
        parse_rule(&h, th, day, j1, k, layout_distance, max_conflicts, agree_min, max_posting, &S, &rule) < 0 ||
        get_arr(&h, meta, &M, 1, 'i', 8, 1, "meta") < 0)
        goto fail;
    if (M.len < 5) {
        PyErr_SetString(PyExc_ValueError, "meta must hold 5 counters");
        goto fail;
    }
    for (int64_t j = j0; j < j1; j++)
        if (L.rep[j] < 0 || L.rep[j] > j) {
            PyErr_Format(PyExc_ValueError, "rep of row %lld must be an earlier row or itself", (long long)j);
            goto fail;
        }
    longest = 0;
    Work W;
    if (work_init(&W, longest) < 0) {
        PyErr_NoMemory();
        goto fail;
    }
    int bad = 0;
    int64_t *mt = (int64_t *)M.p;
    Py_BEGIN_ALLOW_THREADS;
    for (int64_t j = j0; j < j1; j++) {
        link_member(j, L.rep, L.nxt, &S, &rule, &T, NULL, &W);
        if (W.err) break;
        if (record_document(j, L.rep[j] != j, &S, &T, posted, max_posting, mt) < 0) {
            bad = 1;
            break;
        }
    }
    Py_END_ALLOW_THREADS;
    int err = W.err;
    work_free(&W);
    W.err = err;
    release(&h);
    if (W.err) return work_error(&W);
    if (bad) return table_full();
    Py_RETURN_NONE;
fail:
    release(&h);
    return NULL;
}

static PyObject *py_rehash_postings(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *o[8];
    if (!PyArg_ParseTuple(args, "OOOOOOOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7])) return NULL;
    Held h = {.n = 0};
    Arr a[8];
    static const char *names[8] = {"pv", "pc", "pf", "ph", "pv2", "pc2", "pf2", "ph2"};
    for (int i = 0; i < 8; i++)
        if (get_arr(&h, o[i], &a[i], i >= 4, i % 4 == 0 ? 'u' : 'i', 4, 1, names[i]) < 0) {
            release(&h);
            return NULL;
        }
    int64_t n = a[0].len, n2 = a[4].len, used = 0;
    for (int i = 1; i < 4; i++)
        if (a[i].len != n || a[4 + i].len != n2) {
            release(&h);
            return PyErr_Format(PyExc_ValueError, "posting arrays differ in length");
        }
    const uint32_t *pv = (const uint32_t *)a[0].p;
    for (int64_t i = 0; i < n; i++) used += pv[i] != EMPTY32;
    if (used >= n2) {
        release(&h);
        return PyErr_Format(PyExc_ValueError, "%lld posting values do not fit %lld slots", (long long)used,
                            (long long)n2);
    }
    const int32_t *pc = (const int32_t *)a[1].p, *pf = (const int32_t *)a[2].p, *ph = (const int32_t *)a[3].p;
    uint32_t *pv2 = (uint32_t *)a[4].p;
    int32_t *pc2 = (int32_t *)a[5].p, *pf2 = (int32_t *)a[6].p, *ph2 = (int32_t *)a[7].p;
    Py_BEGIN_ALLOW_THREADS;
    for (int64_t i = 0; i < n; i++) {
        if (pv[i] == EMPTY32) continue;
        int64_t s = posting_slot(pv2, n2, pv[i]);
        pv2[s] = pv[i];
        pc2[s] = pc[i];
        pf2[s] = pf[i];
        ph2[s] = ph[i];
    }
    Py_END_ALLOW_THREADS;
    release(&h);
    Py_RETURN_NONE;
}

static PyObject *py_rehash_keys(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *ko, *ro, *k2o, *r2o;
    if (!PyArg_ParseTuple(args, "OOOO", &ko, &ro, &k2o, &r2o)) return NULL;
    Held h = {.n = 0};
    Arr K, R, K2, R2;
    if (get_arr(&h, ko, &K, 0, 'u', 8, 1, "keys") < 0 || get_arr(&h, ro, &R, 0, 'i', 8, 1, "rows") < 0 ||
        get_arr(&h, k2o, &K2, 1, 'u', 8, 1, "k2") < 0 || get_arr(&h, r2o, &R2, 1, 'i', 8, 1, "r2") < 0) {
        release(&h);
        return NULL;
    }
    const int64_t *rows = (const int64_t *)R.p;
    int64_t used = 0;
    for (int64_t i = 0; i < R.len; i++) used += rows[i] >= 0;
    if (K.len != R.len || K2.len != R2.len || used >= K2.len) {
        release(&h);
        return PyErr_Format(PyExc_ValueError, "keys and rows differ in length, or %lld keys do not fit %lld slots",
                            (long long)used, (long long)K2.len);
    }
    const uint64_t *keys = (const uint64_t *)K.p;
    uint64_t *k2 = (uint64_t *)K2.p;
    int64_t *r2 = (int64_t *)R2.p;
    Py_BEGIN_ALLOW_THREADS;
    for (int64_t i = 0; i < K.len; i++)
        if (rows[i] >= 0) key_put(k2, r2, K2.len, keys[i], rows[i]);
    Py_END_ALLOW_THREADS;
    release(&h);
    Py_RETURN_NONE;
}

static PyObject *py_text_evidence(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *ao, *bo, *oo;
    long long w_cjk, w_latin;
    if (!PyArg_ParseTuple(args, "OOLLO", &ao, &bo, &w_cjk, &w_latin, &oo)) return NULL;
    Held h = {.n = 0};
    Arr A, B, O;
    if (get_arr(&h, ao, &A, 0, 'u', 4, 1, "a") < 0 || get_arr(&h, bo, &B, 0, 'u', 4, 1, "b") < 0 ||
        get_arr(&h, oo, &O, 1, 'i', 8, 1, "out") < 0) {
        release(&h);
        return NULL;
    }
    if (O.len < EVIDENCE_SIZE) {
        release(&h);
        return PyErr_Format(PyExc_ValueError, "out must hold %d values", EVIDENCE_SIZE);
    }
    Work W;
    if (work_init(&W, (A.len > B.len ? A.len : B.len) + 1) < 0) {
        release(&h);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS;
    text_evidence((const uint32_t *)A.p, A.len, (const uint32_t *)B.p, B.len, w_cjk, w_latin, (int64_t *)O.p, &W);
    Py_END_ALLOW_THREADS;
    work_free(&W);
    release(&h);
    Py_RETURN_NONE;
}

/* text_evidence_rows: the text evidence of many pairs of one batch's profiles, rows split between
 * up to two threads (the GIL released): what neardup dedup's output rows report of each stored pair */
typedef struct {
    const int64_t *ptr, *a, *b;
    const int64_t *order; /* the rows by partner (b), so a partner's windows are made once a thread */
    const uint32_t *prof;
    int64_t w_cjk, w_latin, lo, hi, step, n_prof;
    int64_t *out;
    int err;
} EvRows;

static void *ev_rows_run(void *arg) {
    EvRows *E = (EvRows *)arg;
    Work W;
    if (work_init(&W, 0) < 0) {
        E->err = 1;
        return NULL;
    }
    for (int64_t at = E->lo; at < E->hi; at += E->step) {
        int64_t i = E->order[at];
        int64_t x = E->a[i], y = E->b[i];
        int64_t *o = E->out + i * EVIDENCE_SIZE;
        if (x < 0 || y < 0 || x >= E->n_prof || y >= E->n_prof) {
            memset(o, 0, EVIDENCE_SIZE * sizeof(int64_t));
            continue;
        }
        int64_t la = E->ptr[x + 1] - E->ptr[x], lb = E->ptr[y + 1] - E->ptr[y];
        if (work_reserve(&W, (la > lb ? la : lb) + 1) < 0) {
            E->err = 1;
            break;
        }
        text_evidence(E->prof + E->ptr[x], la, E->prof + E->ptr[y], lb, E->w_cjk, E->w_latin, o, &W);
    }
    work_free(&W);
    return NULL;
}

static PyObject *py_text_evidence_rows(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *ptro, *profo, *ao, *bo, *oo;
    long long w_cjk, w_latin;
    int threads;
    if (!PyArg_ParseTuple(args, "OOOOLLOi", &ptro, &profo, &ao, &bo, &w_cjk, &w_latin, &oo, &threads)) return NULL;
    Held h = {.n = 0};
    Arr PT, PR, A, B, O;
    if (get_arr(&h, ptro, &PT, 0, 'i', 8, 1, "ptr") < 0 || get_arr(&h, profo, &PR, 0, 'u', 4, 1, "prof") < 0 ||
        get_arr(&h, ao, &A, 0, 'i', 8, 1, "a") < 0 || get_arr(&h, bo, &B, 0, 'i', 8, 1, "b") < 0 ||
        get_arr(&h, oo, &O, 1, 'i', 8, 2, "out") < 0) {
        release(&h);
        return NULL;
    }
    if (A.len != B.len || O.rows != A.len || O.cols != EVIDENCE_SIZE || PT.len < 1) {
        release(&h);
        return PyErr_Format(PyExc_ValueError, "a and b must have one entry per row of out (n, %d); ptr at least one",
                            EVIDENCE_SIZE);
    }
    const int64_t *ptr = (const int64_t *)PT.p;
    int64_t n_prof = PT.len - 1;
    for (int64_t d = 0; d < n_prof; d++) {
        if (ptr[d] < 0 || ptr[d + 1] < ptr[d] || ptr[d + 1] > PR.len) {
            release(&h);
            return PyErr_Format(PyExc_ValueError, "ptr must rise within prof");
        }
    }
    int nt = threads > 1 && A.len >= 64 ? 2 : 1;
    const int64_t *ra = (const int64_t *)A.p, *rb = (const int64_t *)B.p;
    /* rows in partner order (then row order): key partner * 2^32 + row, the rows below 2^32 */
    int64_t n = A.len;
    uint64_t *keys = malloc((size_t)(n > 0 ? n : 1) * 8);
    int64_t *order = malloc((size_t)(n > 0 ? n : 1) * 8);
    if (!keys || !order) {
        free(keys);
        free(order);
        release(&h);
        return PyErr_NoMemory();
    }
    int by_partner = n < ((int64_t)1 << 32);
    for (int64_t i = 0; i < n; i++) {
        uint64_t p = rb[i] >= 0 && rb[i] < n_prof ? (uint64_t)rb[i] : 0;
        keys[i] = by_partner ? (p << 32) | (uint64_t)i : (uint64_t)i;
    }
    sort_u64(keys, n);
    for (int64_t i = 0; i < n; i++) order[i] = (int64_t)(keys[i] & (by_partner ? 0xFFFFFFFFull : ~0ull));
    free(keys);
    /* two threads take the two halves of the ordered rows; a partner's rows may straddle the cut */
    EvRows E[2];
    for (int t = 0; t < nt; t++)
        E[t] = (EvRows){ptr, ra, rb, order, (const uint32_t *)PR.p, w_cjk, w_latin,
                        t * n / nt, (t + 1) * n / nt, 1, n_prof, (int64_t *)O.p, 0};
    int err = 0;
    Py_BEGIN_ALLOW_THREADS;
    pthread_t th;
    int started = nt > 1 && pthread_create(&th, NULL, ev_rows_run, &E[1]) == 0;
    if (nt > 1 && !started) { /* no second thread: this one takes every row */
        E[0].hi = n;
        nt = 1;
    }
    ev_rows_run(&E[0]);
    if (started) pthread_join(th, NULL);
    for (int t = 0; t < nt; t++) err |= E[t].err;
    Py_END_ALLOW_THREADS;
    free(order);
    release(&h);
    if (err) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyObject *py_decide_text(PyObject *self, PyObject *args) {
    (void)self;
    int kd, same_layout;
    PyObject *evo, *tho;
    if (!PyArg_ParseTuple(args, "iOpO", &kd, &evo, &same_layout, &tho)) return NULL;
    Held h = {.n = 0};
    Arr E, T;
    if (get_arr(&h, evo, &E, 0, 'i', 8, 1, "ev") < 0 || get_arr(&h, tho, &T, 0, 'f', 8, 1, "th") < 0) {
        release(&h);
        return NULL;
    }
    if (E.len < EVIDENCE_SIZE || T.len < N_TH) {
        release(&h);
        return PyErr_Format(PyExc_ValueError, "ev must hold %d values and th %d", EVIDENCE_SIZE, N_TH);
    }
    int r = decide_text(kd, (const int64_t *)E.p, same_layout, (const double *)T.p);
    release(&h);
    return PyLong_FromLong(r);
}

static PyObject *py_occasions_apart(PyObject *self, PyObject *args) {
    (void)self;
    int kd;
    long long day_a, day_b;
    PyObject *tho;
    if (!PyArg_ParseTuple(args, "iLLO", &kd, &day_a, &day_b, &tho)) return NULL;
    Held h = {.n = 0};
    Arr T;
    if (get_arr(&h, tho, &T, 0, 'f', 8, 1, "th") < 0) {
        release(&h);
        return NULL;
    }
    if (T.len < N_TH) {
        release(&h);
        return PyErr_Format(PyExc_ValueError, "th must hold %d thresholds, got %zd", N_TH, T.len);
    }
    int r = occasions_apart(kd, day_a, day_b, (const double *)T.p);
    release(&h);
    return PyLong_FromLong(r);
}

static PyObject *py_verify_pair(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *sao, *nao, *pao, *sbo, *nbo, *pbo, *pvo, *pco, *tho, *evo;
    long long size_a, size_b, k, max_posting, max_conflicts, agree_min;
    int exact_eq, content_eq, same_layout;
    if (!PyArg_ParseTuple(args, "OOLOOOLOpppLOOLOLLO", &sao, &nao, &size_a, &pao, &sbo, &nbo, &size_b, &pbo,
                          &exact_eq, &content_eq, &same_layout, &k, &pvo, &pco, &max_posting, &tho, &max_conflicts,
                          &agree_min, &evo))
        return NULL;
    (void)size_a;
    (void)size_b;
    Held h = {.n = 0};
    Arr SA, NA, PA, SB, NB, PB, PV, PC, TH, EV;
    if (get_arr(&h, sao, &SA, 0, 'u', 4, 1, "sa") < 0 || get_arr(&h, nao, &NA, 0, 'u', 8, 1, "na") < 0 ||
        get_arr(&h, pao, &PA, 0, 'u', 4, 1, "pa") < 0 || get_arr(&h, sbo, &SB, 0, 'u', 4, 1, "sb") < 0 ||
        get_arr(&h, nbo, &NB, 0, 'u', 8, 1, "nb") < 0 || get_arr(&h, pbo, &PB, 0, 'u', 4, 1, "pb") < 0 ||
        get_arr(&h, pvo, &PV, 0, 'u', 4, 1, "pv") < 0 || get_arr(&h, pco, &PC, 0, 'i', 4, 1, "pc") < 0 ||
        get_arr(&h, tho, &TH, 0, 'f', 8, 1, "th") < 0 || get_arr(&h, evo, &EV, 1, 'i', 8, 1, "ev") < 0) {
        release(&h);
        return NULL;
    }
    if (k < 1 || SA.len < k || SB.len < k || NA.len != NB.len || NA.len < 1 || PV.len != PC.len ||
        TH.len < N_TH || EV.len < EVIDENCE_SIZE) {
        release(&h);
        return PyErr_Format(PyExc_ValueError,
                            "verify_pair: sketches need k = %lld values, numbers equal lengths, th %d values, ev %d",
                            k, N_TH, EVIDENCE_SIZE);
    }
    Work W;
    if (work_init(&W, PA.len > PB.len ? PA.len : PB.len) < 0) {
        release(&h);
        return PyErr_NoMemory();
    }
    Verdict r;
    Py_BEGIN_ALLOW_THREADS;
    r = verify_pair((const uint32_t *)SA.p, (const uint64_t *)NA.p, (const uint32_t *)PA.p, PA.len,
                    (const uint32_t *)SB.p, (const uint64_t *)NB.p, (const uint32_t *)PB.p, PB.len, NA.len,
                    exact_eq, content_eq, same_layout, k, (const uint32_t *)PV.p, (const int32_t *)PC.p, PV.len,
                    max_posting, (const double *)TH.p, max_conflicts, agree_min, (int64_t *)EV.p, &W);
    Py_END_ALLOW_THREADS;
    int err = W.err;
    work_free(&W);
    release(&h);
    if (err) return PyErr_NoMemory();
    return Py_BuildValue("(iddd LL)", r.kind, r.s, r.ca, r.cb, (long long)r.c, (long long)r.a);
}

/* ---------------------------------------------------------------------------------------------- */

/* components.value_pairs: sketch edges' pairs from (value, document, posted?) rows sorted by value,
 * then document. Called twice: without outputs it counts (pairs, hot values); with them it writes
 * the pairs a << 32 | b (a among the first link_posters posters of a value, b a later holder) and
 * the hot values (posted by more than hot_posting documents). */
/* sort_u64(a): a contiguous writable uint64 array sorted in place (the radix sort of _radix_sort.h),
 * without the GIL */
#if HAVE_HELPER
typedef struct {
    uint64_t *v;
    int64_t n;
} SortPart;

static void *sort_part(void *arg) {
    SortPart *p = (SortPart *)arg;
    sort_u64(p->v, p->n);
    return NULL;
}
#endif

/* v sorted on two threads from 2^20 values: split at a sampled median (the values below it first),
 * each side sorted by a thread; a sort of values alone, so the same array as one thread's sort */
static void sort_u64_threads(uint64_t *v, int64_t n, int threads) {
#if HAVE_HELPER
    if (threads >= 2 && n >= ((int64_t)1 << 20)) {
        uint64_t sample[255];
        for (int i = 0; i < 255; i++) sample[i] = v[(int64_t)((2.0 * i + 1.0) / 510.0 * (double)n)];
        qsort_u64(sample, 255);
        uint64_t pivot = sample[127];
        int64_t i = 0, j = n - 1;
        for (;;) {
            while (i <= j && v[i] < pivot) i++;
            while (i <= j && v[j] >= pivot) j--;
            if (i >= j) break;
            uint64_t t = v[i];
            v[i] = v[j];
            v[j] = t;
            i++;
            j--;
        }
        if (i > 0 && i < n) {
            SortPart later = {v + i, n - i};
            pthread_t t;
            if (pthread_create(&t, NULL, sort_part, &later) == 0) {
                sort_u64(v, i);
                pthread_join(t, NULL);
                return;
            }
        }
    }
#else
    (void)threads;
#endif
    sort_u64(v, n);
}

static PyObject *py_sort_u64(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *ao;
    int threads = 1;
    if (!PyArg_ParseTuple(args, "O|i", &ao, &threads)) return NULL;
    Held h = {.n = 0};
    Arr A;
    if (get_arr(&h, ao, &A, 1, 'u', 8, 1, "a") < 0) {
        release(&h);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS;
    sort_u64_threads((uint64_t *)A.p, A.len, threads);
    Py_END_ALLOW_THREADS;
    release(&h);
    Py_RETURN_NONE;
}

/* components.value_rows' keys value << 32 | not posted << 31 | document of a batch's sketch (n, k):
 * a document's first `posted` values are posted (where reps[d], when reps is given); EMPTY32 is no
 * value. Without out (None), counts the keys; with it, writes them and returns how many. */
static PyObject *py_value_keys(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *so, *ro, *oo;
    long long posted;
    if (!PyArg_ParseTuple(args, "OLOO", &so, &posted, &ro, &oo)) return NULL;
    Held h = {.n = 0};
    Arr S, R, O;
    int has_reps = ro != Py_None, fill = oo != Py_None;
    if (get_arr(&h, so, &S, 0, 'u', 4, 2, "sketch") < 0 || (has_reps && get_arr(&h, ro, &R, 0, 'b', 1, 1, "reps") < 0) ||
        (fill && get_arr(&h, oo, &O, 1, 'u', 8, 1, "out") < 0)) {
        release(&h);
        return NULL;
    }
    int64_t n = S.rows, k = S.cols;
    if ((has_reps && R.len != n) || n >= ((int64_t)1 << 31)) {
        release(&h);
        return PyErr_Format(PyExc_ValueError, "value_keys: reps must have a row per document (under 2^31)");
    }
    const uint32_t *sketch = (const uint32_t *)S.p;
    const uint8_t *reps = has_reps ? (const uint8_t *)R.p : NULL;
    uint64_t *out = fill ? (uint64_t *)O.p : NULL;
    int64_t cap = fill ? O.len : 0, m = 0, bad = 0;
    Py_BEGIN_ALLOW_THREADS;
    for (int64_t d = 0; d < n && !bad; d++) {
        int64_t lim = reps == NULL || reps[d] ? posted : 0;
        for (int64_t q = 0; q < k; q++) {
            uint32_t v = sketch[d * k + q];
            if (v == EMPTY32) continue;
            if (fill) {
                if (m >= cap) {
                    bad = 1;
                    break;
                }
                out[m] = ((uint64_t)v << 32) | (q < lim ? 0 : (uint64_t)1 << 31) | (uint64_t)d;
            }
            m++;
        }
    }
    Py_END_ALLOW_THREADS;
    release(&h);
    if (bad) return PyErr_Format(PyExc_ValueError, "value_keys: out is too small");
    return PyLong_FromLongLong(m);
}

static PyObject *py_value_pairs(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *vo, *dox, *po, *oo = Py_None, *ho = Py_None;
    long long hot_posting, link_posters, lo = 0, hi = (long long)1 << 62;
    if (!PyArg_ParseTuple(args, "OOOLL|OOLL", &vo, &dox, &po, &hot_posting, &link_posters, &oo, &ho, &lo, &hi))
        return NULL;
    if (link_posters < 1 || link_posters > (1 << 20))
        return PyErr_Format(PyExc_ValueError, "link_posters must be between 1 and 1048576, got %lld", link_posters);
    int fill = oo != Py_None;
    Held h = {.n = 0};
    Arr V, D, P, O, H;
    if (get_arr(&h, vo, &V, 0, 'u', 4, 1, "values") < 0 || get_arr(&h, dox, &D, 0, 'i', 8, 1, "docs") < 0 ||
        get_arr(&h, po, &P, 0, 'b', 1, 1, "posted") < 0 ||
        (fill && (get_arr(&h, oo, &O, 1, 'u', 8, 1, "out") < 0 || get_arr(&h, ho, &H, 1, 'u', 4, 1, "hot") < 0))) {
        release(&h);
        return NULL;
    }
    int64_t n = V.len;
    if (D.len != n || P.len != n) {
        release(&h);
        return PyErr_Format(PyExc_ValueError, "values, docs and posted differ in length");
    }
    const uint32_t *values = (const uint32_t *)V.p;
    const int64_t *docs = (const int64_t *)D.p;
    const uint8_t *posted = (const uint8_t *)P.p;
    int64_t *first = malloc(sizeof(int64_t) * (size_t)link_posters);
    if (!first) {
        release(&h);
        return PyErr_NoMemory();
    }
    int64_t total = 0, n_hot = 0, k = 0, hk = 0, cap = fill ? O.len : 0, hcap = fill ? H.len : 0;
    int overflow = 0;
    Py_BEGIN_ALLOW_THREADS;
    for (int64_t i = 0; i < n;) {
        int64_t j = i + 1;
        while (j < n && values[j] == values[i]) j++;
        int64_t p = 0, f = 0;
        for (int64_t a = i; a < j; a++)
            if (posted[a]) {
                p++;
                if (f < link_posters) first[f++] = docs[a];
            }
        if (p > hot_posting) {
            n_hot++;
            if (fill) {
                if (hk >= hcap) { overflow = 1; break; }
                ((uint32_t *)H.p)[hk++] = values[i];
            }
        } else if (!fill) {
            int64_t in_span = 0;
            for (int64_t b = i; b < j; b++) in_span += docs[b] >= lo && docs[b] < hi;
            total += (p < link_posters ? p : link_posters) * in_span;
        } else {
            for (int64_t b = i; b < j; b++)
                for (int64_t q = 0; q < f; q++)
                    if (first[q] < docs[b] && docs[b] >= lo && docs[b] < hi) {
                        if (k >= cap) { overflow = 1; break; }
                        ((uint64_t *)O.p)[k++] = ((uint64_t)first[q] << 32) | (uint64_t)docs[b];
                    }
        }
        if (overflow) break;
        i = j;
    }
    Py_END_ALLOW_THREADS;
    free(first);
    release(&h);
    if (overflow) return PyErr_Format(PyExc_ValueError, "out or hot is too small for the pairs (count them first)");
    if (!fill) return Py_BuildValue("LL", (long long)total, (long long)n_hot);
    return Py_BuildValue("LL", (long long)k, (long long)hk);
}


/* components.shared_pairs' index of (value, document, posted?) rows as value_rows makes them
 * (sorted by value, a value's posters first, then by document): per document d, ptr[d]..ptr[d+1]
 * of starts holds the first rows of the values it holds that are not hot (posted by at most
 * hot_posting documents); bound[d] the pairs range_pairs can give d (each such value's first
 * link_posters posters); hot the hot values, ascending. Returns (entries, hot values). Two passes
 * over the rows: a count per document, then the starts placed. */
static PyObject *py_value_groups(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *vo, *dox, *po, *pto, *so, *bo, *ho;
    long long hot_posting, link_posters;
    if (!PyArg_ParseTuple(args, "OOOLLOOOO", &vo, &dox, &po, &hot_posting, &link_posters, &pto, &so, &bo, &ho))
        return NULL;
    if (link_posters < 1 || link_posters > (1 << 20))
        return PyErr_Format(PyExc_ValueError, "link_posters must be between 1 and 1048576, got %lld", link_posters);
    Held h = {.n = 0};
    Arr V, D, P, PT, S, B, H;
    if (get_arr(&h, vo, &V, 0, 'u', 4, 1, "values") < 0 || get_arr(&h, dox, &D, 0, 'i', 4, 1, "docs") < 0 ||
        get_arr(&h, po, &P, 0, 'b', 1, 1, "posted") < 0 || get_arr(&h, pto, &PT, 1, 'i', 8, 1, "ptr") < 0 ||
        get_arr(&h, so, &S, 1, 'u', 4, 1, "starts") < 0 || get_arr(&h, bo, &B, 1, 'f', 8, 1, "bound") < 0 ||
        get_arr(&h, ho, &H, 1, 'u', 4, 1, "hot") < 0) {
        release(&h);
        return NULL;
    }
    int64_t n = V.len, nd = PT.len - 1;
    if (D.len != n || P.len != n || nd < 0 || B.len != nd || S.len < n || H.len < n || n >= ((int64_t)1 << 32)) {
        release(&h);
        return PyErr_Format(PyExc_ValueError, "value_groups: arrays of mismatched lengths (or 2^32 rows or more)");
    }
    const uint32_t *values = (const uint32_t *)V.p;
    const int32_t *docs = (const int32_t *)D.p;
    const uint8_t *posted = (const uint8_t *)P.p;
    int64_t *ptr = (int64_t *)PT.p;
    uint32_t *starts = (uint32_t *)S.p, *hot = (uint32_t *)H.p;
    double *bound = (double *)B.p;
    int64_t n_hot = 0, bad = 0;
    Py_BEGIN_ALLOW_THREADS;
    memset(ptr, 0, (size_t)(nd + 1) * 8);
    memset(bound, 0, (size_t)nd * 8);
    for (int pass = 0; pass < 2 && !bad; pass++) {
        for (int64_t i = 0; i < n;) {
            int64_t j = i + 1;
            while (j < n && values[j] == values[i]) j++;
            int64_t p = 0;
            for (int64_t a = i; a < j && posted[a]; a++) p++;
            if (p > hot_posting) {
                if (pass == 0) hot[n_hot++] = values[i];
            } else {
                double f = (double)(p < link_posters ? p : link_posters);
                for (int64_t b = i; b < j; b++) {
                    int64_t d = docs[b];
                    if (d < 0 || d >= nd) {
                        bad = 1;
                        break;
                    }
                    if (pass == 0) {
                        ptr[d + 1]++;
                        bound[d] += f;
                    } else {
                        starts[ptr[d]++] = (uint32_t)i;
                    }
                }
            }
            i = j;
        }
        if (pass == 0)
            for (int64_t d = 0; d < nd; d++) ptr[d + 1] += ptr[d];
        else {
            for (int64_t d = nd; d > 0; d--) ptr[d] = ptr[d - 1];
            ptr[0] = 0;
        }
    }
    Py_END_ALLOW_THREADS;
    release(&h);
    if (bad) return PyErr_Format(PyExc_ValueError, "value_groups: a document outside 0..%lld", (long long)nd - 1);
    return Py_BuildValue("LL", (long long)ptr[nd], (long long)n_hot);
}

/* the pairs a << 32 | b of value_pairs seen at least min_shared times, for the later documents b
 * in [lo, hi), from value_groups' index: b's earlier posters of each value it holds (a value's
 * first link_posters posters) gathered, sorted and counted, one document at a time, so no pair is
 * held before it is counted. Written into out ascending by b, then a; returns how many (an error
 * when out is too small). */
static PyObject *py_range_pairs(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *vo, *dox, *po, *pto, *so, *oo;
    long long link_posters, min_shared, lo, hi;
    if (!PyArg_ParseTuple(args, "OOOOOLLLLO", &vo, &dox, &po, &pto, &so, &link_posters, &min_shared, &lo, &hi, &oo))
        return NULL;
    Held h = {.n = 0};
    Arr V, D, P, PT, S, O;
    if (get_arr(&h, vo, &V, 0, 'u', 4, 1, "values") < 0 || get_arr(&h, dox, &D, 0, 'i', 4, 1, "docs") < 0 ||
        get_arr(&h, po, &P, 0, 'b', 1, 1, "posted") < 0 || get_arr(&h, pto, &PT, 0, 'i', 8, 1, "ptr") < 0 ||
        get_arr(&h, so, &S, 0, 'u', 4, 1, "starts") < 0 || get_arr(&h, oo, &O, 1, 'u', 8, 1, "out") < 0) {
        release(&h);
        return NULL;
    }
    int64_t n = V.len, nd = PT.len - 1;
    if (D.len != n || P.len != n || nd < 0 || lo < 0 || link_posters < 1 || ((const int64_t *)PT.p)[nd] > S.len) {
        release(&h);
        return PyErr_Format(PyExc_ValueError, "range_pairs: arrays of mismatched lengths");
    }
    const uint32_t *values = (const uint32_t *)V.p, *starts = (const uint32_t *)S.p;
    const int32_t *docs = (const int32_t *)D.p;
    const int64_t *ptr = (const int64_t *)PT.p;
    const uint8_t *posted = (const uint8_t *)P.p;
    uint64_t *out = (uint64_t *)O.p;
    int64_t cap = O.len, k = 0, end = hi < nd ? hi : nd, bad = 0, room = 1024;
    /* a document's gathered posters: grown as needed (at most link_posters a value it holds) */
    uint64_t *buf = malloc((size_t)room * sizeof(uint64_t));
    if (!buf) {
        release(&h);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS;
    for (int64_t d = lo; d < end && !bad; d++) {
        int64_t m = 0;
        for (int64_t e = ptr[d]; e < ptr[d + 1] && !bad; e++) {
            int64_t g = starts[e];
            uint32_t v = values[g];
            for (int64_t r = g; r < n && r - g < link_posters && posted[r] && values[r] == v; r++) {
                if (docs[r] >= d) continue;
                if (m == room) {
                    uint64_t *grown = realloc(buf, (size_t)room * 2 * sizeof(uint64_t));
                    if (!grown) {
                        bad = 2;
                        break;
                    }
                    buf = grown;
                    room *= 2;
                }
                buf[m++] = (uint64_t)docs[r];
            }
        }
        if (bad) break;
        sort_u64(buf, m);
        for (int64_t i = 0; i < m;) {
            int64_t j = i + 1;
            while (j < m && buf[j] == buf[i]) j++;
            if (j - i >= min_shared) {
                if (k >= cap) {
                    bad = 1;
                    break;
                }
                out[k++] = (buf[i] << 32) | (uint64_t)d;
            }
            i = j;
        }
    }
    Py_END_ALLOW_THREADS;
    free(buf);
    release(&h);
    if (bad == 2) return PyErr_NoMemory();
    if (bad) return PyErr_Format(PyExc_ValueError, "range_pairs: out is too small for the range's pairs");
    return PyLong_FromLongLong(k);
}

/* components._kinds_serial: the kind of each pair todo[q] of (ra, rb) from its two documents
 * alone, the batch's boilerplate (pv, pc) left out as it stands at row at[t] (max_posting = -at[t]);
 * the sketches first, the texts (full) only when the sketches call the pair near, partial or layout */
static PyObject *py_pair_kinds(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *todoo, *rao, *rbo, *ato, *sig, *textso, *tho, *pvo, *pco, *outo;
    long long k, layout_distance, max_conflicts, agree_min;
    int full;
    if (!PyArg_ParseTuple(args, "OOOOOOLLOLLOOpO", &todoo, &rao, &rbo, &ato, &sig, &textso, &k, &layout_distance,
                          &tho, &max_conflicts, &agree_min, &pvo, &pco, &full, &outo))
        return NULL;
    Held h = {.n = 0};
    Sig S;
    Arr TD, RA, RB, AT, TX, TH, PV, PC, OUT;
    if (parse_sig(&h, sig, &S) < 0 || get_arr(&h, todoo, &TD, 0, 'i', 8, 1, "todo") < 0 ||
        get_arr(&h, rao, &RA, 0, 'i', 8, 1, "ra") < 0 || get_arr(&h, rbo, &RB, 0, 'i', 8, 1, "rb") < 0 ||
        get_arr(&h, ato, &AT, 0, 'i', 8, 1, "at") < 0 || get_arr(&h, textso, &TX, 0, 'b', 1, 1, "texts") < 0 ||
        get_arr(&h, tho, &TH, 0, 'f', 8, 1, "th") < 0 || get_arr(&h, pvo, &PV, 0, 'u', 4, 1, "pv") < 0 ||
        get_arr(&h, pco, &PC, 0, 'i', 4, 1, "pc") < 0 || get_arr(&h, outo, &OUT, 1, 'i', 1, 1, "out") < 0) {
        release(&h);
        return NULL;
    }
    const int64_t *todo = (const int64_t *)TD.p, *ra = (const int64_t *)RA.p, *rb = (const int64_t *)RB.p,
                  *at = (const int64_t *)AT.p;
    const uint8_t *texts = (const uint8_t *)TX.p;
    int bad = TH.len < N_TH || PV.len != PC.len || RA.len != RB.len || AT.len != RA.len || OUT.len < TD.len ||
              TX.len < S.n || k < 1 || k > S.kc;
    for (int64_t q = 0; q < TD.len && !bad; q++) {
        int64_t t = todo[q];
        if (t < 0 || t >= RA.len || ra[t] < 0 || ra[t] >= S.n || rb[t] < 0 || rb[t] >= S.n) bad = 1;
    }
    if (bad) {
        release(&h);
        PyErr_SetString(PyExc_ValueError, "pair_kinds: pairs, rows, texts, th or out out of shape");
        return NULL;
    }
    if (check_profiles(&S, S.n) < 0) {
        release(&h);
        return NULL;
    }
    const double *th = (const double *)TH.p;
    int8_t *out = (int8_t *)OUT.p;
    Work W;
    if (work_init(&W, 16) < 0) {
        release(&h);
        return PyErr_NoMemory();
    }
    int64_t ev[EVIDENCE_SIZE];
    Py_BEGIN_ALLOW_THREADS;
    for (int64_t q = 0; q < TD.len; q++) {
        int64_t t = todo[q], j = rb[t], x = ra[t], mp = -at[t];
        int exact_eq = S.exact[j] == S.exact[x];
        int content_eq = S.content[j] == S.content[x] && S.tokens[j] > 0;
        int same_layout = S.has_layout[j] && S.has_layout[x] &&
                          (int64_t)popcount64(S.layout[j] ^ S.layout[x]) <= layout_distance;
        int64_t un, bo, ca_n, cb_n, c = 0, a = 0;
        double sj = 0.0, ca = 0.0, cb = 0.0;
        overlap(S.sketch + j * S.kc, S.sketch + x * S.kc, k, (const uint32_t *)PV.p, (const int32_t *)PC.p, PV.len,
                mp, NULL, 0, &un, &bo, &ca_n, &cb_n);
        if (un) {
            sj = (double)bo / (double)un;
            ca = ca_n ? (double)bo / (double)ca_n : 0.0;
            cb = cb_n ? (double)bo / (double)cb_n : 0.0;
            numbers(S.numbers + j * S.mc, S.numbers + x * S.mc, S.mc, &c, &a);
        }
        int kd = decide(exact_eq, content_eq, sj, ca, cb, c, a, same_layout, th[0], th[1], th[2], th[3],
                        texts[j] && texts[x] ? ((int64_t)1 << 30) : max_conflicts, th[4], th[5], agree_min);
        if (full && kd != UNIQUE && kd != EXACT && kd != CONTENT) {
            Verdict r = verify_pair(S.sketch + j * S.kc, S.numbers + j * S.mc, S.prof + S.pp[j], S.pp[j + 1] - S.pp[j],
                                    S.sketch + x * S.kc, S.numbers + x * S.mc, S.prof + S.pp[x],
                                    S.pp[x + 1] - S.pp[x], S.mc, exact_eq, content_eq, same_layout, k,
                                    (const uint32_t *)PV.p, (const int32_t *)PC.p, PV.len, mp, th, max_conflicts,
                                    agree_min, ev, &W);
            kd = r.kind;
        }
        out[q] = (int8_t)kd;
    }
    Py_END_ALLOW_THREADS;
    int err = W.err;
    work_free(&W);
    release(&h);
    if (err) return PyErr_NoMemory();
    Py_RETURN_NONE;
}


static int64_t uf_find(int64_t *parent, int64_t x) {
    int64_t r = x;
    while (parent[r] != r) r = parent[r];
    while (parent[x] != r) {
        int64_t up = parent[x];
        parent[x] = r;
        x = up;
    }
    return r;
}

/* components._apart: into out, the pairs s..e-1 of (na, nb) whose nodes the forest does not
 * connect yet; returns how many */
static PyObject *py_apart(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *po, *nao, *nbo, *outo;
    long long s0, e0;
    if (!PyArg_ParseTuple(args, "OOOLLO", &po, &nao, &nbo, &s0, &e0, &outo)) return NULL;
    Held h = {.n = 0};
    Arr P, NA, NB, OUT;
    if (get_arr(&h, po, &P, 1, 'i', 8, 1, "parent") < 0 || get_arr(&h, nao, &NA, 0, 'i', 8, 1, "na") < 0 ||
        get_arr(&h, nbo, &NB, 0, 'i', 8, 1, "nb") < 0 || get_arr(&h, outo, &OUT, 1, 'i', 8, 1, "out") < 0) {
        release(&h);
        return NULL;
    }
    int64_t *parent = (int64_t *)P.p, *out = (int64_t *)OUT.p;
    const int64_t *na = (const int64_t *)NA.p, *nb = (const int64_t *)NB.p;
    int bad = s0 < 0 || e0 < s0 || e0 > NA.len || NA.len != NB.len || OUT.len < e0 - s0;
    for (int64_t t = s0; t < e0 && !bad; t++)
        if (na[t] < 0 || na[t] >= P.len || nb[t] < 0 || nb[t] >= P.len) bad = 1;
    if (bad) {
        release(&h);
        PyErr_SetString(PyExc_ValueError, "apart: pairs outside the forest or out of range");
        return NULL;
    }
    int64_t m = 0;
    for (int64_t t = s0; t < e0; t++)
        if (uf_find(parent, na[t]) != uf_find(parent, nb[t])) out[m++] = t;
    release(&h);
    return PyLong_FromLongLong(m);
}

/* components._join: the pairs todo whose kind is not unique joined in the forest and marked linked */
static PyObject *py_join(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *po, *nao, *nbo, *todoo, *kindso, *linkedo;
    if (!PyArg_ParseTuple(args, "OOOOOO", &po, &nao, &nbo, &todoo, &kindso, &linkedo)) return NULL;
    Held h = {.n = 0};
    Arr P, NA, NB, TD, KD, LK;
    if (get_arr(&h, po, &P, 1, 'i', 8, 1, "parent") < 0 || get_arr(&h, nao, &NA, 0, 'i', 8, 1, "na") < 0 ||
        get_arr(&h, nbo, &NB, 0, 'i', 8, 1, "nb") < 0 || get_arr(&h, todoo, &TD, 0, 'i', 8, 1, "todo") < 0 ||
        get_arr(&h, kindso, &KD, 0, 'i', 1, 1, "kinds") < 0 || get_arr(&h, linkedo, &LK, 1, 'b', 1, 1, "linked") < 0) {
        release(&h);
        return NULL;
    }
    int64_t *parent = (int64_t *)P.p;
    const int64_t *na = (const int64_t *)NA.p, *nb = (const int64_t *)NB.p, *todo = (const int64_t *)TD.p;
    const int8_t *kinds = (const int8_t *)KD.p;
    uint8_t *linked = (uint8_t *)LK.p;
    int bad = KD.len < TD.len || NA.len != NB.len || LK.len < NA.len;
    for (int64_t q = 0; q < TD.len && !bad; q++) {
        int64_t t = todo[q];
        if (t < 0 || t >= NA.len || na[t] < 0 || na[t] >= P.len || nb[t] < 0 || nb[t] >= P.len) bad = 1;
    }
    if (bad) {
        release(&h);
        PyErr_SetString(PyExc_ValueError, "join: pairs outside the forest or out of range");
        return NULL;
    }
    for (int64_t q = 0; q < TD.len; q++) {
        if (kinds[q] == UNIQUE) continue;
        int64_t t = todo[q];
        int64_t x = uf_find(parent, na[t]), y = uf_find(parent, nb[t]);
        if (x != y) parent[x > y ? x : y] = x < y ? x : y;
        linked[t] = 1;
    }
    release(&h);
    Py_RETURN_NONE;
}


/* set_words(word_keys u64, antonym_keys u64): the tables of match/words.py, copied */
static PyObject *py_set_words(PyObject *self, PyObject *args) {
    Py_buffer wk, ak;
    if (!PyArg_ParseTuple(args, "y*y*", &wk, &ak)) return NULL;
    PyObject *out = NULL;
    if (wk.len % 8 || ak.len % 8) {
        PyErr_SetString(PyExc_ValueError, "set_words: whole uint64 arrays expected");
        goto done;
    }
    uint64_t *w = malloc(wk.len ? (size_t)wk.len : 1), *an = malloc(ak.len ? (size_t)ak.len : 1);
    if (!w || !an) {
        free(w);
        free(an);
        PyErr_NoMemory();
        goto done;
    }
    memcpy(w, wk.buf, (size_t)wk.len);
    memcpy(an, ak.buf, (size_t)ak.len);
    /* the tables set before are kept (not freed): a kernel running without the GIL may read them */
    WORD_KEYS = w;
    ANTONYM_KEYS = an;
    N_WORD_KEYS = wk.len / 8;
    N_ANTONYM_KEYS = ak.len / 8;
    Py_INCREF(Py_None);
    out = Py_None;
done:
    PyBuffer_Release(&wk);
    PyBuffer_Release(&ak);
    return out;
}

static PyMethodDef methods[] = {
    {"run", py_run, METH_VARARGS, "The engine's pass over rows j0..j1-1 (engine._run); returns pairs verified."},
    {"run_components", py_run_components, METH_VARARGS,
     "The pass once per component, tables of its own (engine._run_components); returns pairs verified."},
    {"set_threads", py_set_threads, METH_VARARGS,
     "Threads of run_components' pass (1, or 2: a helper takes text evidence); returns the previous."},
    {"record", py_record, METH_VARARGS, "Record rows j0..j1-1 whose clusters are known (link_member, record_document)."},
    {"rehash_postings", py_rehash_postings, METH_VARARGS, "Move a posting table into a larger one."},
    {"rehash_keys", py_rehash_keys, METH_VARARGS, "Move a key table into a larger one."},
    {"text_evidence", py_text_evidence, METH_VARARGS, "Text evidence of two profiles, into out (int64[20])."},
    {"text_evidence_rows", py_text_evidence_rows, METH_VARARGS,
     "Text evidence of profile pairs (a[i], b[i]) into out (int64[n, 20]), on up to two threads."},
    {"decide_text", py_decide_text, METH_VARARGS, "The kind of a pair from its text evidence."},
    {"set_words", py_set_words, METH_VARARGS, "Set the rewrite words' and the antonyms' tables (match/words.py)."},
    {"occasions_apart", py_occasions_apart, METH_VARARGS, "The kind of a pair once the records' dates are read."},
    {"verify_pair", py_verify_pair, METH_VARARGS,
     "The kind of a pair and its evidence: (kind, similarity, containments, conflicts, agreeing); text evidence into ev."},
    {"apart", py_apart, METH_VARARGS, "components._apart: the pairs s..e-1 not connected yet, into out; returns how many."},
    {"join", py_join, METH_VARARGS, "components._join: link the pairs whose kind is not unique."},
    {"pair_kinds", py_pair_kinds, METH_VARARGS, "components._kinds_serial: each pair's kind from its two documents alone."},
    {"sort_u64", py_sort_u64, METH_VARARGS,
     "Sort a contiguous uint64 array in place (radix sort, without the GIL; threads: 1 or 2)."},
    {"value_keys", py_value_keys, METH_VARARGS, "components.value_rows' sort keys of a batch's sketch, into out."},
    {"value_groups", py_value_groups, METH_VARARGS,
     "components.shared_pairs: per document the first rows of the values it holds, and the hot values."},
    {"range_pairs", py_range_pairs, METH_VARARGS,
     "components.shared_pairs: the pairs seen min_shared times whose later document is in [lo, hi)."},
    {"value_pairs", py_value_pairs, METH_VARARGS,
     "components.value_pairs: counts (pairs, hot) without out/hot arrays, fills them with."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_match_c", "The match engine's kernels in C.", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__match_c(void) {
    for (size_t i = 0; i < N_FUNCTION; i++)
        FUNCTION_CJK[i] = (uint32_t)(cjk_mix((uint64_t)FUNCTION_CP[i] + 0x9E3779B97F4A7C15ULL) >> 36);
    return PyModule_Create(&module);
}
