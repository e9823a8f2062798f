/* The nshash sentence scanner in C: the same cut, normalization and ordering as the numba kernels of
 * _nshash_scan.py (_scan_doc, _scan, _scan_one) and the md5 head of _md5.py, bit for bit (tested
 * against them on the corpora). Built by pip at install; without a C compiler the numba kernels run.
 *
 * scan_one(buf, nchars, n, min_chars, top, heads, tail) -> int     (as _scan_one; tail is unused)
 * scan_into(buf, bounds, n, min_chars, out, kept, latin) -> int    (as _scan, into caller's arrays;
 *     returns the number of rows written to out)
 * Arrays are any writable C-contiguous buffers: top/out int64 (rows of ROW), heads uint64, bounds
 * and kept int64, latin bool (one byte each).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define ROW 6
#define CHANGED (1 << 8)
#define LATIN (1 << 9)

typedef struct {
    const uint8_t *buf;
    Py_ssize_t len;
} Bytes;

static inline int64_t byte_at(const Bytes *s, int64_t b) { return b < s->len ? (int64_t)s->buf[b] : 0; }

static inline int isspace_cp(int64_t c) {
    if (c <= 0x20) return c == 0x20 || (0x09 <= c && c <= 0x0D) || (0x1C <= c && c <= 0x1F);
    if (c < 0x85) return 0;
    return c == 0x85 || c == 0xA0 || c == 0x1680 || (0x2000 <= c && c <= 0x200A) || c == 0x2028 ||
           c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

static inline int isterm(int64_t c) { /* 。！？；!?;… */
    return c == 0x3002 || c == 0xFF01 || c == 0xFF1F || c == 0xFF1B || c == 0x21 || c == 0x3F || c == 0x3B ||
           c == 0x2026;
}

static inline int isclose_cp(int64_t c) { /* ”’」』）)"' */
    return c == 0x201D || c == 0x2019 || c == 0x300D || c == 0x300F || c == 0xFF09 || c == 0x29 || c == 0x22 ||
           c == 0x27;
}

static inline int islatinclose(int64_t c) { /* . ! ? " ' ) ] */
    return c == 0x2E || c == 0x21 || c == 0x3F || c == 0x22 || c == 0x27 || c == 0x29 || c == 0x5D;
}

/* the code point at byte b (UTF-8, surrogates allowed) and its width */
static inline int64_t decode(const Bytes *s, int64_t b, int64_t *w) {
    int64_t x = byte_at(s, b);
    if (x < 0x80) {
        *w = 1;
        return x;
    }
    if (x < 0xE0) {
        *w = 2;
        return ((x & 0x1F) << 6) | (byte_at(s, b + 1) & 0x3F);
    }
    if (x < 0xF0) {
        *w = 3;
        return ((x & 0x0F) << 12) | ((byte_at(s, b + 1) & 0x3F) << 6) | (byte_at(s, b + 2) & 0x3F);
    }
    *w = 4;
    return ((x & 0x07) << 18) | ((byte_at(s, b + 1) & 0x3F) << 12) | ((byte_at(s, b + 2) & 0x3F) << 6) |
           (byte_at(s, b + 3) & 0x3F);
}

static inline int is_kind(int kind, int64_t c) {
    if (kind == 0) return isterm(c);
    if (kind == 1) return isclose_cp(c);
    return islatinclose(c);
}

/* code point and byte offset after the run of `kind` characters starting at code point j (byte bj) */
static inline void run_end(const Bytes *s, int64_t *j, int64_t *bj, int64_t end, int kind) {
    while (*j < end) {
        int64_t w;
        int64_t c = decode(s, *bj, &w);
        if (!is_kind(kind, c)) break;
        *j += 1;
        *bj += w;
    }
}

static inline int64_t keep(int64_t k, int64_t n, int64_t st, int64_t e, int64_t bs, int64_t be, int64_t length,
                           int ws, int64_t *top) {
    if (k == n && top[(n - 1) * ROW + 4] >= length) return k;
    int64_t pos = k < n ? k : n - 1;
    while (pos > 0 && top[(pos - 1) * ROW + 4] < length) { /* ties keep text order */
        memcpy(top + pos * ROW, top + (pos - 1) * ROW, ROW * sizeof(int64_t));
        pos--;
    }
    int64_t *r = top + pos * ROW;
    r[0] = st;
    r[1] = e;
    r[2] = bs;
    r[3] = be;
    r[4] = length;
    r[5] = ws ? 1 : 0;
    return k < n ? k + 1 : k;
}

/* one document, code points [i, end) from byte b: fill top with its n longest pieces */
static int64_t scan_doc(const Bytes *s, int64_t i, int64_t b, int64_t end, int64_t n, int64_t *top, int *latin_out,
                        int64_t *b_out) {
    int64_t k = 0;
    int latin = 0;
    int64_t first = -1, first_b = 0, last = 0, last_b = 0, length = 0, prev = 0, run = 0;
    int run_odd = 0, ws = 0;
    while (i < end) {
        int64_t x = byte_at(s, b);
        if (0xE4 <= x && x <= 0xE9) { /* a run of U+4000..U+9FFF: taken whole */
            if (first < 0) {
                first = i;
                first_b = b;
            } else if (run > 0) {
                ws = 1;
            }
            run = 0;
            run_odd = 0;
            int64_t j = i + 1, bj = b + 3;
            while (j < end) {
                int64_t y = byte_at(s, bj);
                if (!(0xE4 <= y && y <= 0xE9)) break;
                j++;
                bj += 3;
            }
            length += j - i;
            prev = 0x4E00;
            i = j;
            b = bj;
            last = i;
            last_b = b;
            continue;
        }
        int64_t w;
        int64_t c = decode(s, b, &w);
        if (c == 0x0A) { /* a newline ends the piece and is not part of it */
            if (first >= 0) k = keep(k, n, first, last, first_b, last_b, length, ws, top);
            first = -1;
            length = 0;
            run = 0;
            run_odd = 0;
            ws = 0;
            i += 1;
            b += 1;
            continue;
        }
        if (isspace_cp(c)) {
            run += 1;
            run_odd = run_odd || c != 0x20;
            i += 1;
            b += w;
            continue;
        }
        if (first < 0) {
            first = i;
            first_b = b;
        } else if (run != 0) { /* a pending whitespace run: one space between two ASCII characters */
            if (prev < 0x80 && c < 0x80) {
                length += 1;
                ws = ws || run > 1 || run_odd;
            } else {
                ws = 1;
            }
        }
        run = 0;
        run_odd = 0;
        if (isterm(c)) { /* terminators and closing quotes end the piece and belong to it */
            int64_t j = i, bj = b;
            run_end(s, &j, &bj, end, 0);
            run_end(s, &j, &bj, end, 1);
            length += j - i;
            k = keep(k, n, first, j, first_b, bj, length, ws, top);
            first = -1;
            length = 0;
            ws = 0;
            i = j;
            b = bj;
            continue;
        }
        if (c == 0x2E && !latin) {
            int64_t j = i + 1, bj = b + 1;
            run_end(s, &j, &bj, end, 2);
            if (j < end) {
                int64_t w2;
                latin = isspace_cp(decode(s, bj, &w2));
            }
        }
        length += 1;
        prev = c;
        i += 1;
        b += w;
        last = i;
        last_b = b;
    }
    if (first >= 0) k = keep(k, n, first, last, first_b, last_b, length, ws, top);
    *latin_out = latin;
    *b_out = b;
    return k;
}

/* ---- MD5 (RFC 1321): the first 8 bytes of the digest, big endian ---- */
static const uint32_t MD5_K[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};
static const int MD5_S[64] = {7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9,  14, 20, 5, 9,
                              14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                              4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};

static void md5_block(const uint8_t *p, uint32_t st[4]) {
    uint32_t m[16];
    for (int g = 0; g < 16; g++)
        m[g] = (uint32_t)p[4 * g] | ((uint32_t)p[4 * g + 1] << 8) | ((uint32_t)p[4 * g + 2] << 16) |
               ((uint32_t)p[4 * g + 3] << 24);
    uint32_t a = st[0], b = st[1], c = st[2], d = st[3];
    for (int i = 0; i < 64; i++) {
        uint32_t f;
        int g;
        if (i < 16) {
            f = (b & c) | (~b & d);
            g = i;
        } else if (i < 32) {
            f = (d & b) | (~d & c);
            g = (5 * i + 1) & 15;
        } else if (i < 48) {
            f = b ^ c ^ d;
            g = (3 * i + 5) & 15;
        } else {
            f = c ^ (b | ~d);
            g = (7 * i) & 15;
        }
        f = f + a + MD5_K[i] + m[g];
        a = d;
        d = c;
        c = b;
        b = b + ((f << MD5_S[i]) | (f >> (32 - MD5_S[i])));
    }
    st[0] += a;
    st[1] += b;
    st[2] += c;
    st[3] += d;
}

static inline uint32_t bswap32(uint32_t x) {
    return ((x & 0xFF) << 24) | ((x & 0xFF00) << 8) | ((x >> 8) & 0xFF00) | (x >> 24);
}

static uint64_t md5_head(const uint8_t *data, int64_t len) {
    uint32_t st[4] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476};
    int64_t o = 0;
    while (len - o >= 64) {
        md5_block(data + o, st);
        o += 64;
    }
    uint8_t tail[128];
    int64_t rest = len - o;
    memcpy(tail, data + o, (size_t)rest);
    tail[rest] = 0x80;
    int total = rest < 56 ? 64 : 128;
    memset(tail + rest + 1, 0, (size_t)(total - 8 - rest - 1));
    uint64_t bits = (uint64_t)len * 8;
    for (int j = 0; j < 8; j++) tail[total - 8 + j] = (uint8_t)(bits >> (8 * j));
    md5_block(tail, st);
    if (total == 128) md5_block(tail + 64, st);
    return ((uint64_t)bswap32(st[0]) << 32) | bswap32(st[1]);
}

/* ---- Python glue ---- */
static int get_out(PyObject *obj, Py_buffer *view, Py_ssize_t need, const char *what) {
    if (PyObject_GetBuffer(obj, view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) return -1;
    if (view->len < need) {
        PyErr_Format(PyExc_ValueError, "%s holds %zd bytes, needs %zd", what, view->len, need);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static PyObject *py_scan_one(PyObject *self, PyObject *args) {
    Py_buffer in, topv, headv;
    Py_ssize_t nchars, n, min_chars;
    PyObject *topo, *heado, *tailo;
    if (!PyArg_ParseTuple(args, "y*nnnOOO", &in, &nchars, &n, &min_chars, &topo, &heado, &tailo)) return NULL;
    if (n < 1) {
        PyBuffer_Release(&in);
        return PyErr_Format(PyExc_ValueError, "n must be >= 1, got %zd", n);
    }
    if (get_out(topo, &topv, n * ROW * (Py_ssize_t)sizeof(int64_t), "top") < 0) {
        PyBuffer_Release(&in);
        return NULL;
    }
    if (PyObject_GetBuffer(heado, &headv, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&in);
        PyBuffer_Release(&topv);
        return NULL;
    }
    Bytes s = {(const uint8_t *)in.buf, in.len};
    int64_t *top = (int64_t *)topv.buf;
    uint64_t *heads = (uint64_t *)headv.buf;
    int with_heads = headv.len >= (Py_ssize_t)(n * sizeof(uint64_t)) && headv.len > 0;
    int64_t result;
    Py_BEGIN_ALLOW_THREADS;
    int latin;
    int64_t bend;
    int64_t k = scan_doc(&s, 0, 0, nchars, n, top, &latin, &bend);
    if (latin) {
        result = LATIN;
    } else {
        int64_t kept = 0;
        int changed = 0;
        while (kept < k && top[kept * ROW + 4] >= min_chars) {
            if (with_heads) {
                int64_t a = top[kept * ROW + 2], z = top[kept * ROW + 3];
                heads[kept] = md5_head(s.buf + a, z - a);
            }
            changed = changed || top[kept * ROW + 5] != 0;
            kept++;
        }
        result = changed ? kept + CHANGED : kept;
    }
    Py_END_ALLOW_THREADS;
    PyBuffer_Release(&in);
    PyBuffer_Release(&topv);
    PyBuffer_Release(&headv);
    return PyLong_FromLongLong(result);
}

static PyObject *py_scan_into(PyObject *self, PyObject *args) {
    Py_buffer in, bv, outv, keptv, latv;
    Py_ssize_t n, min_chars;
    PyObject *bo, *oo, *ko, *lo;
    if (!PyArg_ParseTuple(args, "y*OnnOOO", &in, &bo, &n, &min_chars, &oo, &ko, &lo)) return NULL;
    if (PyObject_GetBuffer(bo, &bv, PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&in);
        return NULL;
    }
    Py_ssize_t ndocs = bv.len / (Py_ssize_t)sizeof(int64_t) - 1;
    if (n < 1 || ndocs < 0) {
        PyBuffer_Release(&in);
        PyBuffer_Release(&bv);
        return PyErr_Format(PyExc_ValueError, "n must be >= 1 and bounds hold at least one value");
    }
    if (get_out(oo, &outv, ndocs * n * ROW * (Py_ssize_t)sizeof(int64_t), "out") < 0) {
        PyBuffer_Release(&in);
        PyBuffer_Release(&bv);
        return NULL;
    }
    if (get_out(ko, &keptv, ndocs * (Py_ssize_t)sizeof(int64_t), "kept") < 0) {
        PyBuffer_Release(&in);
        PyBuffer_Release(&bv);
        PyBuffer_Release(&outv);
        return NULL;
    }
    if (get_out(lo, &latv, ndocs, "latin") < 0) {
        PyBuffer_Release(&in);
        PyBuffer_Release(&bv);
        PyBuffer_Release(&outv);
        PyBuffer_Release(&keptv);
        return NULL;
    }
    int64_t *top = (int64_t *)PyMem_Malloc((size_t)n * ROW * sizeof(int64_t));
    if (top == NULL) {
        PyBuffer_Release(&in);
        PyBuffer_Release(&bv);
        PyBuffer_Release(&outv);
        PyBuffer_Release(&keptv);
        PyBuffer_Release(&latv);
        return PyErr_NoMemory();
    }
    memset(top, 0, (size_t)n * ROW * sizeof(int64_t));
    Bytes s = {(const uint8_t *)in.buf, in.len};
    const int64_t *bounds = (const int64_t *)bv.buf;
    int64_t *out = (int64_t *)outv.buf, *kept = (int64_t *)keptv.buf;
    uint8_t *latin = (uint8_t *)latv.buf;
    int64_t nout = 0;
    Py_BEGIN_ALLOW_THREADS;
    int64_t b = 0;
    for (Py_ssize_t d = 0; d < ndocs; d++) {
        int lat;
        int64_t k = scan_doc(&s, bounds[d], b, bounds[d + 1], n, top, &lat, &b);
        latin[d] = (uint8_t)lat;
        kept[d] = 0;
        if (lat) continue;
        for (int64_t j = 0; j < k; j++) {
            if (top[j * ROW + 4] < min_chars) break;
            memcpy(out + nout * ROW, top + j * ROW, ROW * sizeof(int64_t));
            nout++;
            kept[d]++;
        }
    }
    Py_END_ALLOW_THREADS;
    PyMem_Free(top);
    PyBuffer_Release(&in);
    PyBuffer_Release(&bv);
    PyBuffer_Release(&outv);
    PyBuffer_Release(&keptv);
    PyBuffer_Release(&latv);
    return PyLong_FromLongLong(nout);
}

static PyObject *py_md5_head(PyObject *self, PyObject *args) {
    Py_buffer in;
    if (!PyArg_ParseTuple(args, "y*", &in)) return NULL;
    uint64_t h = md5_head((const uint8_t *)in.buf, in.len);
    PyBuffer_Release(&in);
    return PyLong_FromUnsignedLongLong(h);
}

static PyMethodDef methods[] = {
    {"scan_one", py_scan_one, METH_VARARGS, "One document's longest sentences (as _nshash_scan._scan_one)."},
    {"scan_into", py_scan_into, METH_VARARGS, "A batch's longest sentences into given arrays (as _nshash_scan._scan)."},
    {"md5_head", py_md5_head, METH_VARARGS, "The first 8 bytes of the MD5 of a byte string, big endian."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_nshash_c", "The nshash sentence scanner in C.", -1,
                                    methods};

PyMODINIT_FUNC PyInit__nshash_c(void) { return PyModule_Create(&module); }
