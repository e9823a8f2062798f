/* The URL kernels in C: canonical keys of the common URL shapes (as _kernels_nb.canonical_batch and
 * canonical_one, with XXH3-64 of inputs up to 240 bytes as fingerprint/_xxh3.py), the in-memory seen
 * table (memory.py) and the Bloom filter (bloom.py), with the same arguments and results as the numba
 * kernels (tested against them, tests/unit/urls). Built by pip at install; without a C compiler the
 * numba kernels run (neardup.urls._kernels chooses).
 *
 * Arrays come through the buffer protocol (C-contiguous): bytes uint8, offsets int64, hashes uint64,
 * flags bool (one byte), status int8. Every loop runs without the GIL.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define OK 0
#define SLOW 1
#define UNHASHED 2
#define DROP_GENERAL (-1)
#define MAXBUF 16

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

/* a C-contiguous buffer of items of `size` bytes; returns its data, *len items */
static void *get(Held *h, PyObject *o, int writable, Py_ssize_t size, Py_ssize_t *len, const char *name) {
    Py_buffer *v = &h->v[h->n];
    if (PyObject_GetBuffer(o, v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) < 0) {
        PyErr_Format(PyExc_TypeError, "%s must be a %sC-contiguous array", name, writable ? "writable " : "");
        return NULL;
    }
    h->n++;
    if (v->itemsize != size) {
        PyErr_Format(PyExc_TypeError, "%s must have %zd-byte items, got %zd", name, size, v->itemsize);
        return NULL;
    }
    *len = v->len / size;
    return v->buf;
}

/* ---------------------------------------------------------------------------------------------- */
/* XXH3-64, seed 0, inputs of 0..240 bytes                                                        */

static const uint8_t DEFAULT_SECRET[192] = {
    0xB8, 0xFE, 0x6C, 0x39, 0x23, 0xA4, 0x4B, 0xBE, 0x7C, 0x01, 0x81, 0x2C, 0xF7, 0x21, 0xAD, 0x1C, 0xDE, 0xD4, 0x6D, 0xE9,
    0x83, 0x90, 0x97, 0xDB, 0x72, 0x40, 0xA4, 0xA4, 0xB7, 0xB3, 0x67, 0x1F, 0xCB, 0x79, 0xE6, 0x4E, 0xCC, 0xC0, 0xE5, 0x78,
    0x82, 0x5A, 0xD0, 0x7D, 0xCC, 0xFF, 0x72, 0x21, 0xB8, 0x08, 0x46, 0x74, 0xF7, 0x43, 0x24, 0x8E, 0xE0, 0x35, 0x90, 0xE6,
    0x81, 0x3A, 0x26, 0x4C, 0x3C, 0x28, 0x52, 0xBB, 0x91, 0xC3, 0x00, 0xCB, 0x88, 0xD0, 0x65, 0x8B, 0x1B, 0x53, 0x2E, 0xA3,
    0x71, 0x64, 0x48, 0x97, 0xA2, 0x0D, 0xF9, 0x4E, 0x38, 0x19, 0xEF, 0x46, 0xA9, 0xDE, 0xAC, 0xD8, 0xA8, 0xFA, 0x76, 0x3F,
    0xE3, 0x9C, 0x34, 0x3F, 0xF9, 0xDC, 0xBB, 0xC7, 0xC7, 0x0B, 0x4F, 0x1D, 0x8A, 0x51, 0xE0, 0x4B, 0xCD, 0xB4, 0x59, 0x31,
    0xC8, 0x9F, 0x7E, 0xC9, 0xD9, 0x78, 0x73, 0x64, 0xEA, 0xC5, 0xAC, 0x83, 0x34, 0xD3, 0xEB, 0xC3, 0xC5, 0x81, 0xA0, 0xFF,
    0xFA, 0x13, 0x63, 0xEB, 0x17, 0x0D, 0xDD, 0x51, 0xB7, 0xF0, 0xDA, 0x49, 0xD3, 0x16, 0x55, 0x26, 0x29, 0xD4, 0x68, 0x9E,
    0x2B, 0x16, 0xBE, 0x58, 0x7D, 0x47, 0xA1, 0xFC, 0x8F, 0xF8, 0xB8, 0xD1, 0x7A, 0xD0, 0x31, 0xCE, 0x45, 0xCB, 0x3A, 0x8F,
    0x95, 0x16, 0x04, 0x28, 0xAF, 0xD7, 0xFB, 0xCA, 0xBB, 0x4B, 0x40, 0x7E,
};

#define P64_1 0x9E3779B185EBCA87ULL
#define P64_2 0xC2B2AE3D27D4EB4FULL
#define P64_3 0x165667B19E3779F9ULL
#define PMX1 0x165667919E3779F9ULL
#define PMX2 0x9FB21C651E98DF25ULL

static inline uint64_t rd(const uint8_t *p, int w) {
    uint64_t v = 0;
    for (int k = 0; k < w; k++) v |= (uint64_t)p[k] << (8 * k);
    return v;
}
static inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
static inline uint64_t swap64(uint64_t x) { return __builtin_bswap64(x); }
static inline uint64_t mulfold(uint64_t a, uint64_t b) {
    __uint128_t p = (__uint128_t)a * b;
    return (uint64_t)p ^ (uint64_t)(p >> 64);
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
static inline uint64_t mix16(const uint8_t *in, const uint8_t *s) {
    return mulfold(rd(in, 8) ^ rd(s, 8), rd(in + 8, 8) ^ rd(s + 8, 8));
}

/* XXH3-64 of in[0:len]; *ok = 0 (and 0 returned) over 240 bytes */
static uint64_t xxh3_64(const uint8_t *in, int64_t len, const uint8_t *s, int *ok) {
    uint64_t n = (uint64_t)len;
    *ok = 1;
    if (len <= 16) {
        if (len > 8) {
            uint64_t lo = rd(in, 8) ^ (rd(s + 24, 8) ^ rd(s + 32, 8));
            uint64_t hi = rd(in + len - 8, 8) ^ (rd(s + 40, 8) ^ rd(s + 48, 8));
            uint64_t acc = n + swap64(lo) + hi + mulfold(lo, hi);
            return avalanche(acc);
        }
        if (len >= 4) {
            uint64_t in1 = rd(in, 4), in2 = rd(in + len - 4, 4);
            uint64_t keyed = (in2 + (in1 << 32)) ^ (rd(s + 8, 8) ^ rd(s + 16, 8));
            uint64_t h = keyed ^ (rotl(keyed, 49) ^ rotl(keyed, 24));
            h *= PMX2;
            h ^= (h >> 35) + n;
            h *= PMX2;
            h ^= h >> 28;
            return h;
        }
        if (len > 0) {
            uint64_t c1 = in[0], c2 = in[len >> 1], c3 = in[len - 1];
            uint64_t combined = (c1 << 16) | (c2 << 24) | c3 | (n << 8);
            return xxh64_avalanche(combined ^ (rd(s, 4) ^ rd(s + 4, 4)));
        }
        return xxh64_avalanche(rd(s + 56, 8) ^ rd(s + 64, 8));
    }
    if (len <= 128) {
        uint64_t acc = n * P64_1;
        if (len > 32) {
            if (len > 64) {
                if (len > 96) {
                    acc += mix16(in + 48, s + 96);
                    acc += mix16(in + len - 64, s + 112);
                }
                acc += mix16(in + 32, s + 64);
                acc += mix16(in + len - 48, s + 80);
            }
            acc += mix16(in + 16, s + 32);
            acc += mix16(in + len - 32, s + 48);
        }
        acc += mix16(in, s);
        acc += mix16(in + len - 16, s + 16);
        return avalanche(acc);
    }
    if (len <= 240) {
        uint64_t acc = n * P64_1;
        for (int i = 0; i < 8; i++) acc += mix16(in + 16 * i, s + 16 * i);
        acc = avalanche(acc);
        for (int i = 8; i < len / 16; i++) acc += mix16(in + 16 * i, s + 16 * (i - 8) + 3);
        acc += mix16(in + len - 16, s + 119);
        return avalanche(acc);
    }
    *ok = 0;
    return 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* canonical keys                                                                                  */

static const char PATH_CHARS[] = "!$&'()*+,-./0123456789:=@ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz~";
static const char HOST_CHARS[] = "-.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz";
static const char QUERY_CHARS[] = "+-.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz~";
static const char HEX[] = "0123456789ABCDEF";
static uint8_t PATH_OK[256], HOST_OK[256], QUERY_OK[256];

static void init_tables(void) {
    for (const char *c = PATH_CHARS; *c; c++) PATH_OK[(uint8_t)*c] = 1;
    for (const char *c = HOST_CHARS; *c; c++) HOST_OK[(uint8_t)*c] = 1;
    for (const char *c = QUERY_CHARS; *c; c++) QUERY_OK[(uint8_t)*c] = 1;
}

static inline int low(int c) { return (c >= 65 && c <= 90) ? c + 32 : c; }
static inline int qbyte(int c) { return c == 43 ? 32 : c; }

static inline int64_t quote_plus(const uint8_t *buf, int64_t a, int64_t b, uint8_t *out, int64_t o) {
    for (int64_t u = a; u < b; u++) {
        uint8_t c = buf[u];
        if (QUERY_OK[c])
            out[o++] = c;
        else {
            out[o] = 37;
            out[o + 1] = (uint8_t)HEX[c >> 4];
            out[o + 2] = (uint8_t)HEX[c & 15];
            o += 3;
        }
    }
    return o;
}

typedef struct {
    const uint8_t *names;
    const int64_t *offs;
    int64_t noffs;
    const uint8_t *is_prefix;
    int64_t mode;
    int64_t max_length;
} Drop;

static int dropped(const uint8_t *buf, int64_t a, int64_t b, const Drop *D) {
    int64_t n = b - a;
    for (int64_t k = 0; k < D->noffs - 1; k++) {
        int64_t p0 = D->offs[k], m = D->offs[k + 1] - p0;
        if (D->is_prefix[k]) {
            if (n < m) continue;
        } else if (n != m)
            continue;
        int same = 1;
        for (int64_t t = 0; t < m; t++)
            if (low(qbyte(buf[a + t])) != D->names[p0 + t]) {
                same = 0;
                break;
            }
        if (same) return 1;
    }
    return 0;
}

static int pair_less(const uint8_t *buf, int64_t ka, int64_t ea, int64_t va, int64_t a_end, int64_t kb, int64_t eb,
                     int64_t vb, int64_t b_end) {
    int64_t la = ea - ka, lb = eb - kb;
    for (int64_t t = 0; t < (la < lb ? la : lb); t++) {
        int x = qbyte(buf[ka + t]), y = qbyte(buf[kb + t]);
        if (x != y) return x < y;
    }
    if (la != lb) return la < lb;
    la = a_end - va;
    lb = b_end - vb;
    for (int64_t t = 0; t < (la < lb ? la : lb); t++) {
        int x = qbyte(buf[va + t]), y = qbyte(buf[vb + t]);
        if (x != y) return x < y;
    }
    return la < lb;
}

/* the canonical form of buf[s:e] at out[o:]; its end, or -1 for the exact path. work: 5 rows of wn */
static int64_t one(const uint8_t *buf, int64_t s, int64_t e, const Drop *D, uint8_t *out, int64_t o, int64_t *work,
                   int64_t wn) {
    int64_t *pk = work, *pe = work + wn, *pv = work + 2 * wn, *pz = work + 3 * wn, *order = work + 4 * wn;
    if (e - s > D->max_length || e - s < 8) return -1;
    for (int64_t i = s; i < e; i++) {
        int c = buf[i];
        if (c < 33 || c > 126 || c == 92) return -1;
    }
    if (low(buf[s]) != 104 || low(buf[s + 1]) != 116 || low(buf[s + 2]) != 116 || low(buf[s + 3]) != 112) return -1;
    int64_t i = s + 4;
    int secure = 0;
    if (low(buf[i]) == 115) {
        secure = 1;
        i++;
    }
    if (i + 3 > e || buf[i] != 58 || buf[i + 1] != 47 || buf[i + 2] != 47) return -1;
    i += 3;
    memcpy(out + o, "http", 4);
    o += 4;
    if (secure) out[o++] = 's';
    memcpy(out + o, "://", 3);
    o += 3;
    /* host */
    int64_t h0 = i, label = 0, last = i;
    int prev = 46;
    while (i < e) {
        int c = buf[i];
        if (c == 47 || c == 63 || c == 35 || c == 58) break;
        if (!HOST_OK[c]) return -1;
        if (c == 46) {
            if (label == 0 || prev == 45) return -1;
            label = 0;
            last = i + 1;
        } else {
            if (label == 0) {
                if (c == 45) return -1;
                if ((c == 120 || c == 88) && i + 3 < e && low(buf[i + 1]) == 110 && buf[i + 2] == 45 && buf[i + 3] == 45)
                    return -1;
            }
            label++;
            if (label > 63) return -1;
        }
        out[o++] = (uint8_t)low(c);
        prev = c;
        i++;
    }
    if (label == 0 || prev == 45 || i - h0 > 253) return -1;
    /* a last label that starts with a digit may make the host an IPv4 address (0x7f.1, 127.1): the
     * exact path reads it */
    if (buf[last] >= 48 && buf[last] <= 57) return -1;
    /* port */
    if (i < e && buf[i] == 58) {
        i++;
        int64_t p0 = i, port = 0;
        while (i < e && 48 <= buf[i] && buf[i] <= 57) {
            port = port * 10 + (buf[i] - 48);
            i++;
            if (i - p0 > 5) return -1;
        }
        if (i == p0 || buf[p0] == 48 || port > 65535) return -1;
        if (i < e && buf[i] != 47 && buf[i] != 63 && buf[i] != 35) return -1;
        if (port != (secure ? 443 : 80)) {
            out[o++] = 58;
            for (int64_t t = p0; t < i; t++) out[o++] = buf[t];
        }
    }
    /* path */
    if (i >= e || buf[i] != 47) out[o++] = 47;
    int64_t seg = i;
    while (i < e) {
        int c = buf[i];
        if (c == 63 || c == 35) break;
        if (c == 47)
            seg = i + 1;
        else if (!PATH_OK[c])
            return -1;
        else if (c == 46 && i - seg <= 1) {
            int64_t j = i + 1;
            if (i - seg == 1 && buf[seg] != 46) j = -1;
            if (j >= 0 && (j >= e || buf[j] == 47 || buf[j] == 63 || buf[j] == 35)) return -1;
        }
        out[o++] = (uint8_t)c;
        i++;
    }
    /* query */
    if (i < e && buf[i] == 63) {
        i++;
        int64_t q_end = i;
        while (q_end < e && buf[q_end] != 35) {
            if (buf[q_end] == 37) return -1;
            q_end++;
        }
        if (q_end > i && D->mode == DROP_GENERAL) return -1;
        int64_t n = 0;
        while (i < q_end) {
            int64_t a = i, eq = -1;
            while (i < q_end && buf[i] != 38) {
                if (buf[i] == 61 && eq < 0) eq = i;
                i++;
            }
            if (i > a) {
                int64_t k_end = eq >= 0 ? eq : i;
                if (D->mode == 0 || !dropped(buf, a, k_end, D)) {
                    pk[n] = a;
                    pe[n] = k_end;
                    pv[n] = eq >= 0 ? eq + 1 : i;
                    pz[n] = i;
                    n++;
                }
            }
            i++;
        }
        if (n > 0) {
            for (int64_t t = 0; t < n; t++) order[t] = t;
            for (int64_t t = 1; t < n; t++) {
                int64_t x = order[t], u = t - 1;
                while (u >= 0 && pair_less(buf, pk[x], pe[x], pv[x], pz[x], pk[order[u]], pe[order[u]], pv[order[u]],
                                           pz[order[u]])) {
                    order[u + 1] = order[u];
                    u--;
                }
                order[u + 1] = x;
            }
            out[o++] = 63;
            for (int64_t t = 0; t < n; t++) {
                int64_t x = order[t];
                if (t) out[o++] = 38;
                o = quote_plus(buf, pk[x], pe[x], out, o);
                out[o] = 61;
                o = quote_plus(buf, pv[x], pz[x], out, o + 1);
            }
        }
    }
    (void)wn;
    return o;
}

static int parse_drop(Held *h, PyObject *names, PyObject *offs, PyObject *is_prefix, long long mode, long long max_length,
                      Drop *D) {
    Py_ssize_t nn, no, np_;
    D->names = (const uint8_t *)get(h, names, 0, 1, &nn, "names");
    if (!D->names) return -1;
    D->offs = (const int64_t *)get(h, offs, 0, 8, &no, "offs");
    if (!D->offs) return -1;
    D->is_prefix = (const uint8_t *)get(h, is_prefix, 0, 1, &np_, "is_prefix");
    if (!D->is_prefix) return -1;
    D->noffs = no;
    D->mode = mode;
    D->max_length = max_length;
    if (no < 1 || (mode != 0 && np_ < no - 1) || (no > 0 && D->offs[no - 1] > nn)) {
        PyErr_SetString(PyExc_ValueError, "drop list arrays disagree");
        return -1;
    }
    for (Py_ssize_t k = 0; k + 1 < no; k++)
        if (D->offs[k] < 0 || D->offs[k] > D->offs[k + 1]) {
            PyErr_SetString(PyExc_ValueError, "drop list offsets must be ascending");
            return -1;
        }
    return 0;
}

/* canonical_batch(buf, starts, max_length, names, offs, is_prefix, drop_mode, secret, out, out_starts, hashes, status) */
static PyObject *py_canonical_batch(PyObject *self, PyObject *args) {
    PyObject *bo, *so, *no, *oo, *po, *seco, *outo, *osto, *ho, *sto;
    long long max_length, mode;
    if (!PyArg_ParseTuple(args, "OOLOOOLOOOOO", &bo, &so, &max_length, &no, &oo, &po, &mode, &seco, &outo, &osto, &ho,
                          &sto))
        return NULL;
    Held h = {.n = 0};
    Drop D;
    Py_ssize_t nbuf, nst, nsec, nout, nost, nh, nstat;
    const uint8_t *buf = (const uint8_t *)get(&h, bo, 0, 1, &nbuf, "buf");
    const int64_t *starts = buf ? (const int64_t *)get(&h, so, 0, 8, &nst, "starts") : NULL;
    if (!buf || !starts || parse_drop(&h, no, oo, po, mode, max_length, &D) < 0) {
        release(&h);
        return NULL;
    }
    const uint8_t *secret = (const uint8_t *)get(&h, seco, 0, 1, &nsec, "secret");
    uint8_t *out = secret ? (uint8_t *)get(&h, outo, 1, 1, &nout, "out") : NULL;
    int64_t *out_starts = out ? (int64_t *)get(&h, osto, 1, 8, &nost, "out_starts") : NULL;
    uint64_t *hashes = out_starts ? (uint64_t *)get(&h, ho, 1, 8, &nh, "hashes") : NULL;
    int8_t *status = hashes ? (int8_t *)get(&h, sto, 1, 1, &nstat, "status") : NULL;
    if (!status) {
        release(&h);
        return NULL;
    }
    int64_t n = nst - 1;
    int bad = n < 0 || nsec < 192 || nost < nst || nh < n || nstat < n;
    int64_t longest = 1;
    for (int64_t i = 0; !bad && i < n; i++) {
        bad = starts[i] < 0 || starts[i] > starts[i + 1] || starts[i + 1] > nbuf;
        if (starts[i + 1] - starts[i] > longest) longest = starts[i + 1] - starts[i];
    }
    if (!bad && n > 0) bad = nout < 4 * (starts[n] - starts[0]) + n + 8;
    if (bad) {
        release(&h);
        return PyErr_Format(PyExc_ValueError, "canonical_batch: bad offsets or output sizes");
    }
    int64_t *work = (int64_t *)malloc((size_t)longest * 5 * sizeof(int64_t));
    if (!work) {
        release(&h);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS;
    int64_t o = 0;
    for (int64_t i = 0; i < n; i++) {
        out_starts[i] = o;
        int64_t end = one(buf, starts[i], starts[i + 1], &D, out, o, work, longest);
        if (end < 0) {
            status[i] = SLOW;
            hashes[i] = 0;
            continue;
        }
        int ok;
        hashes[i] = xxh3_64(out + o, end - o, secret, &ok);
        status[i] = ok ? OK : UNHASHED;
        o = end;
    }
    if (n >= 0) out_starts[n] = o;
    Py_END_ALLOW_THREADS;
    free(work);
    release(&h);
    Py_RETURN_NONE;
}

/* canonical_one(buf, max_length, names, offs, is_prefix, drop_mode, secret) -> (hash, status) */
static PyObject *py_canonical_one(PyObject *self, PyObject *args) {
    PyObject *bo, *no, *oo, *po, *seco;
    long long max_length, mode;
    if (!PyArg_ParseTuple(args, "OLOOOLO", &bo, &max_length, &no, &oo, &po, &mode, &seco)) return NULL;
    Held h = {.n = 0};
    Drop D;
    Py_ssize_t nbuf, nsec;
    const uint8_t *buf = (const uint8_t *)get(&h, bo, 0, 1, &nbuf, "buf");
    if (!buf || parse_drop(&h, no, oo, po, mode, max_length, &D) < 0) {
        release(&h);
        return NULL;
    }
    const uint8_t *secret = (const uint8_t *)get(&h, seco, 0, 1, &nsec, "secret");
    if (!secret || nsec < 192) {
        release(&h);
        if (secret) PyErr_SetString(PyExc_ValueError, "secret holds 192 bytes");
        return NULL;
    }
    int64_t wn = nbuf > 1 ? nbuf : 1;
    int64_t small[5 * 256];
    uint8_t sout[4 * 256 + 8];
    int64_t *work = wn <= 256 ? small : (int64_t *)malloc((size_t)wn * 5 * sizeof(int64_t));
    uint8_t *out = wn <= 256 ? sout : (uint8_t *)malloc((size_t)(4 * nbuf + 8));
    if (!work || !out) {
        if (work != small) free(work);
        if (out != sout) free(out);
        release(&h);
        return PyErr_NoMemory();
    }
    int64_t end = one(buf, 0, nbuf, &D, out, 0, work, wn);
    uint64_t hv = 0;
    int st = SLOW;
    if (end >= 0) {
        int ok;
        hv = xxh3_64(out, end, secret, &ok);
        st = ok ? OK : UNHASHED;
    }
    if (work != small) free(work);
    if (out != sout) free(out);
    release(&h);
    return Py_BuildValue("(Ki)", (unsigned long long)hv, st);
}

/* ---------------------------------------------------------------------------------------------- */
/* memory.py: open addressing over uint64 hashes (0 marks an empty slot), uint32 last-fetch seconds */

#define ZERO_STANDIN 0x9E3779B97F4A7C15ULL

static inline int64_t slot(const uint64_t *keys, int64_t mask, uint64_t *h, int *found) {
    if (*h == 0) *h = ZERO_STANDIN;
    int64_t j = (int64_t)(*h & (uint64_t)mask);
    for (;;) {
        uint64_t k = keys[j];
        if (k == 0) {
            *found = 0;
            return j;
        }
        if (k == *h) {
            *found = 1;
            return j;
        }
        j = (j + 1) & mask;
    }
}

typedef struct {
    uint64_t *keys;
    uint32_t *vals;
    int64_t mask;
} Table;

static int parse_table(Held *h, PyObject *ko, PyObject *vo, Table *T, int need_vals) {
    Py_ssize_t nk, nv;
    T->keys = (uint64_t *)get(h, ko, 1, 8, &nk, "keys");
    if (!T->keys) return -1;
    T->vals = NULL;
    if (need_vals) {
        T->vals = (uint32_t *)get(h, vo, 1, 4, &nv, "vals");
        if (!T->vals) return -1;
        if (nv < nk) {
            PyErr_SetString(PyExc_ValueError, "vals shorter than keys");
            return -1;
        }
    }
    if (nk < 1 || (nk & (nk - 1))) {
        PyErr_SetString(PyExc_ValueError, "the table size must be a power of two");
        return -1;
    }
    T->mask = nk - 1;
    return 0;
}

/* memory_check_add(keys, vals, hashes, now, recrawl, out) -> (n_new, n_due) */
static PyObject *py_memory_check_add(PyObject *self, PyObject *args) {
    PyObject *ko, *vo, *ho, *oo;
    long long now, recrawl;
    if (!PyArg_ParseTuple(args, "OOOLLO", &ko, &vo, &ho, &now, &recrawl, &oo)) return NULL;
    Held h = {.n = 0};
    Table T;
    Py_ssize_t n, no;
    const uint64_t *hs = parse_table(&h, ko, vo, &T, 1) < 0 ? NULL : (const uint64_t *)get(&h, ho, 0, 8, &n, "hashes");
    uint8_t *out = hs ? (uint8_t *)get(&h, oo, 1, 1, &no, "out") : NULL;
    if (!out || no < n) {
        if (out) PyErr_SetString(PyExc_ValueError, "out shorter than hashes");
        release(&h);
        return NULL;
    }
    int64_t n_new = 0, n_due = 0;
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t hv = hs[i];
        int found;
        int64_t j = slot(T.keys, T.mask, &hv, &found);
        if (!found) {
            T.keys[j] = hv;
            T.vals[j] = (uint32_t)now;
            out[i] = 1;
            n_new++;
        } else if (recrawl >= 0 && (int64_t)now - (int64_t)T.vals[j] >= recrawl) {
            T.vals[j] = (uint32_t)now;
            out[i] = 1;
            n_due++;
        } else
            out[i] = 0;
    }
    Py_END_ALLOW_THREADS;
    release(&h);
    return Py_BuildValue("(LL)", (long long)n_new, (long long)n_due);
}

/* memory_record(keys, vals, hashes, stamp) -> n_new */
static PyObject *py_memory_record(PyObject *self, PyObject *args) {
    PyObject *ko, *vo, *ho;
    long long stamp;
    if (!PyArg_ParseTuple(args, "OOOL", &ko, &vo, &ho, &stamp)) return NULL;
    Held h = {.n = 0};
    Table T;
    Py_ssize_t n;
    const uint64_t *hs = parse_table(&h, ko, vo, &T, 1) < 0 ? NULL : (const uint64_t *)get(&h, ho, 0, 8, &n, "hashes");
    if (!hs) {
        release(&h);
        return NULL;
    }
    int64_t n_new = 0;
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t hv = hs[i];
        int found;
        int64_t j = slot(T.keys, T.mask, &hv, &found);
        if (!found) {
            T.keys[j] = hv;
            n_new++;
        }
        T.vals[j] = (uint32_t)stamp;
    }
    Py_END_ALLOW_THREADS;
    release(&h);
    return PyLong_FromLongLong(n_new);
}

/* memory_contains(keys, hashes, out) */
static PyObject *py_memory_contains(PyObject *self, PyObject *args) {
    PyObject *ko, *ho, *oo;
    if (!PyArg_ParseTuple(args, "OOO", &ko, &ho, &oo)) return NULL;
    Held h = {.n = 0};
    Table T;
    Py_ssize_t n, no;
    const uint64_t *hs = parse_table(&h, ko, NULL, &T, 0) < 0 ? NULL : (const uint64_t *)get(&h, ho, 0, 8, &n, "hashes");
    uint8_t *out = hs ? (uint8_t *)get(&h, oo, 1, 1, &no, "out") : NULL;
    if (!out || no < n) {
        if (out) PyErr_SetString(PyExc_ValueError, "out shorter than hashes");
        release(&h);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t hv = hs[i];
        int found;
        slot(T.keys, T.mask, &hv, &found);
        out[i] = (uint8_t)found;
    }
    Py_END_ALLOW_THREADS;
    release(&h);
    Py_RETURN_NONE;
}

/* memory_remove(keys, vals, hashes) -> removed (backward-shift deletion) */
static PyObject *py_memory_remove(PyObject *self, PyObject *args) {
    PyObject *ko, *vo, *ho;
    if (!PyArg_ParseTuple(args, "OOO", &ko, &vo, &ho)) return NULL;
    Held h = {.n = 0};
    Table T;
    Py_ssize_t n;
    const uint64_t *hs = parse_table(&h, ko, vo, &T, 1) < 0 ? NULL : (const uint64_t *)get(&h, ho, 0, 8, &n, "hashes");
    if (!hs) {
        release(&h);
        return NULL;
    }
    int64_t removed = 0;
    int64_t mask = T.mask;
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t hv = hs[i];
        int found;
        int64_t j = slot(T.keys, mask, &hv, &found);
        if (!found) continue;
        removed++;
        int64_t hole = j, nxt = (j + 1) & mask;
        while (T.keys[nxt] != 0) {
            int64_t home = (int64_t)(T.keys[nxt] & (uint64_t)mask);
            if (((nxt - home) & mask) >= ((nxt - hole) & mask)) {
                T.keys[hole] = T.keys[nxt];
                T.vals[hole] = T.vals[nxt];
                hole = nxt;
            }
            nxt = (nxt + 1) & mask;
        }
        T.keys[hole] = 0;
        T.vals[hole] = 0;
    }
    Py_END_ALLOW_THREADS;
    release(&h);
    return PyLong_FromLongLong(removed);
}

/* memory_reinsert(keys, vals, old_keys, old_vals) */
static PyObject *py_memory_reinsert(PyObject *self, PyObject *args) {
    PyObject *ko, *vo, *oko, *ovo;
    if (!PyArg_ParseTuple(args, "OOOO", &ko, &vo, &oko, &ovo)) return NULL;
    Held h = {.n = 0};
    Table T;
    Py_ssize_t n, nv;
    const uint64_t *ok = parse_table(&h, ko, vo, &T, 1) < 0 ? NULL : (const uint64_t *)get(&h, oko, 0, 8, &n, "old_keys");
    const uint32_t *ov = ok ? (const uint32_t *)get(&h, ovo, 0, 4, &nv, "old_vals") : NULL;
    if (!ov || nv < n) {
        if (ov) PyErr_SetString(PyExc_ValueError, "old_vals shorter than old_keys");
        release(&h);
        return NULL;
    }
    int64_t used = 0;
    for (Py_ssize_t i = 0; i < n; i++) used += ok[i] != 0;
    if (used > T.mask) {
        release(&h);
        return PyErr_Format(PyExc_ValueError, "the new table is too small");
    }
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t hv = ok[i];
        if (hv == 0) continue;
        int64_t j = (int64_t)(hv & (uint64_t)T.mask);
        while (T.keys[j] != 0) j = (j + 1) & T.mask;
        T.keys[j] = hv;
        T.vals[j] = ov[i];
    }
    Py_END_ALLOW_THREADS;
    release(&h);
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------------------------------------------- */
/* bloom.py                                                                                        */

static inline uint64_t mix(uint64_t h) {
    uint64_t z = h + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* bloom_positions(hashes, k, shard_bits, shards, out_shard, out_pos) */
static PyObject *py_bloom_positions(PyObject *self, PyObject *args) {
    PyObject *ho, *so, *po;
    long long k, shard_bits, shards;
    if (!PyArg_ParseTuple(args, "OLLLOO", &ho, &k, &shard_bits, &shards, &so, &po)) return NULL;
    Held h = {.n = 0};
    Py_ssize_t n, ns, np_;
    const uint64_t *hs = (const uint64_t *)get(&h, ho, 0, 8, &n, "hashes");
    uint32_t *osh = hs ? (uint32_t *)get(&h, so, 1, 4, &ns, "out_shard") : NULL;
    uint32_t *opos = osh ? (uint32_t *)get(&h, po, 1, 4, &np_, "out_pos") : NULL;
    if (!opos) {
        release(&h);
        return NULL;
    }
    if (ns < n || np_ < n * k || k < 1 || shard_bits < 1 || shards < 1) {
        release(&h);
        return PyErr_Format(PyExc_ValueError, "bloom_positions: bad sizes");
    }
    uint64_t mb = (uint64_t)shard_bits;
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t h1 = hs[i];
        uint64_t h2 = mix(h1) | 1;
        osh[i] = (uint32_t)(mix(h2) % (uint64_t)shards);
        for (int64_t j = 0; j < k; j++) opos[i * k + j] = (uint32_t)((h1 + (uint64_t)j * h2) % mb);
    }
    Py_END_ALLOW_THREADS;
    release(&h);
    Py_RETURN_NONE;
}

/* bloom_check_add(words, hashes, k, shard_bits, shards, out) -> added */
static PyObject *py_bloom_check_add(PyObject *self, PyObject *args) {
    PyObject *wo, *ho, *oo;
    long long k, shard_bits, shards;
    if (!PyArg_ParseTuple(args, "OOLLLO", &wo, &ho, &k, &shard_bits, &shards, &oo)) return NULL;
    Held h = {.n = 0};
    Py_ssize_t nw, n, no;
    uint64_t *words = (uint64_t *)get(&h, wo, 1, 8, &nw, "words");
    const uint64_t *hs = words ? (const uint64_t *)get(&h, ho, 0, 8, &n, "hashes") : NULL;
    uint8_t *out = hs ? (uint8_t *)get(&h, oo, 1, 1, &no, "out") : NULL;
    if (!out) {
        release(&h);
        return NULL;
    }
    if (no < n || shard_bits < 1 || shards < 1 || (uint64_t)nw * 64 < (uint64_t)shard_bits * (uint64_t)shards) {
        release(&h);
        return PyErr_Format(PyExc_ValueError, "bloom_check_add: bad sizes");
    }
    uint64_t mb = (uint64_t)shard_bits;
    int64_t added = 0;
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t h1 = hs[i];
        uint64_t h2 = mix(h1) | 1;
        uint64_t base = (mix(h2) % (uint64_t)shards) * mb;
        int fresh = 0;
        for (int64_t j = 0; j < k; j++) {
            uint64_t bit = base + (h1 + (uint64_t)j * h2) % mb;
            uint64_t w = bit >> 6, b = (uint64_t)1 << (bit & 63);
            if ((words[w] & b) == 0) {
                fresh = 1;
                words[w] |= b;
            }
        }
        out[i] = (uint8_t)fresh;
        added += fresh;
    }
    Py_END_ALLOW_THREADS;
    release(&h);
    return PyLong_FromLongLong(added);
}

/* xxh3_64(data) -> (hash, ok): the short-input XXH3 the canonical kernels use (for tests) */
static PyObject *py_xxh3(PyObject *self, PyObject *args) {
    Py_buffer in;
    if (!PyArg_ParseTuple(args, "y*", &in)) return NULL;
    int ok;
    uint64_t hv = xxh3_64((const uint8_t *)in.buf, in.len, DEFAULT_SECRET, &ok);
    PyBuffer_Release(&in);
    return Py_BuildValue("(KO)", (unsigned long long)hv, ok ? Py_True : Py_False);
}

static PyMethodDef methods[] = {
    {"canonical_batch", py_canonical_batch, METH_VARARGS, "Canonical keys and their XXH3-64 for a batch of URLs."},
    {"canonical_one", py_canonical_one, METH_VARARGS, "(XXH3-64 of the canonical form, status) of one URL."},
    {"memory_check_add", py_memory_check_add, METH_VARARGS, "Seen-table check and add; (new, due)."},
    {"memory_record", py_memory_record, METH_VARARGS, "Set last-fetch seconds; returns how many were new."},
    {"memory_contains", py_memory_contains, METH_VARARGS, "Membership of hashes, into out."},
    {"memory_remove", py_memory_remove, METH_VARARGS, "Remove hashes (backward-shift deletion)."},
    {"memory_reinsert", py_memory_reinsert, METH_VARARGS, "Move every entry of an old table into a new one."},
    {"bloom_positions", py_bloom_positions, METH_VARARGS, "Shard and bit positions of each hash."},
    {"bloom_check_add", py_bloom_check_add, METH_VARARGS, "Bloom filter check and add; returns how many were new."},
    {"xxh3_64", py_xxh3, METH_VARARGS, "XXH3-64 of up to 240 bytes: (hash, ok)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_urls_c", "The URL kernels in C.", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__urls_c(void) {
    init_tables();
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddObject(m, "XXH3_SECRET", PyBytes_FromStringAndSize((const char *)DEFAULT_SECRET, 192)) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
