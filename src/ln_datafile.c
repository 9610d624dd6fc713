/*
 * ln_datafile.c -- read and write weights files (name -> tensor dicts).
 *
 * .params (CVM/TVM NDArray dictionary, layout in ln_datafile.h) is read
 * from a byte buffer through a cursor that checks every field against the
 * bytes left, so a truncated or corrupt file is an LN_EPARSE naming the
 * file, the tensor and the byte offset.  dtype codes: 0 int, 1 uint,
 * 2 float with bits 8/16/32/64 (float 16/32/64); bool is uint with 1 bit
 * (TVM's "bool", one byte per element) or DLPack's kDLBool (code 6) with
 * 8 bits.  Lanes must be 1.  We write device_type 1 (kDLCPU), device_id 0,
 * lanes 1 and bool as uint/1 bit, through a temporary file renamed into
 * place, so a failed write leaves no partial file.
 *
 * .wts is the TensorRT-style text weights file the original LightNet reads
 * (ln_tensor_table_load_trt_weight_file(), test/data/test_trt_weight.wts
 * and tools/genwts.pl in github.com/zhaozhixu/LightNet):
 *
 *     <count>
 *     <name> <type> <len> <hex> <hex> ...      (count times)
 *
 * type 0 is float32 with each value the 8-hex-digit bit pattern
 * ("3f800000" is 1.0), 1 is float16 (4 hex digits), 2 is int8 (2 hex
 * digits, two's complement).  Tokens are separated by any white space.
 * The format carries no shape, so a .wts tensor is 1-D of len elements.
 *
 * Data is assumed little endian on disk; a big-endian host swaps bytes.
 */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ln_datafile.h"
#include "ln_outfile.h"

#define PARAMS_MAGIC UINT64_C(0xF7E58D4F05049CB7)
#define TENSOR_MAGIC UINT64_C(0xDD5E40F096B4A13F)

enum { DL_INT = 0, DL_UINT = 1, DL_FLOAT = 2, DL_BOOL = 6 };

static void tensor_free_wrapper(void *p)
{
    ln_tensor_free(p);
}

static void key_free_wrapper(void *p)
{
    ln_free(p);
}

ln_hash *ln_datafile_create_dict(void)
{
    return ln_hash_create(ln_str_hash, ln_str_cmp, key_free_wrapper,
                          tensor_free_wrapper);
}

static ln_bool host_is_big_endian(void)
{
    const uint16_t one = 1;

    return *(const unsigned char *)&one == 0;
}

static void swap_elems(void *data, size_t len, size_t elem)
{
    unsigned char *p = data, t;
    size_t i, j;

    if (elem < 2 || !host_is_big_endian())
        return;
    for (i = 0; i < len; i++, p += elem)
        for (j = 0; j < elem / 2; j++) {
            t = p[j];
            p[j] = p[elem - 1 - j];
            p[elem - 1 - j] = t;
        }
}

/* Whole file in binary; LN_EIO on failure. */
static int read_binary(const char *path, unsigned char **buf, size_t *len)
{
    FILE *fp;
    unsigned char *b = NULL;
    size_t cap = 0, n = 0, got;

    *buf = NULL;
    *len = 0;
    if (!(fp = fopen(path, "rb")))
        return ln_error(LN_EIO, "%s: cannot open: %s", path, strerror(errno));
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 65536;
            b = ln_realloc(b, cap);
        }
        got = fread(b + n, 1, cap - n, fp);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(fp)) {
        fclose(fp);
        ln_free(b);
        return ln_error(LN_EIO, "%s: read error", path);
    }
    fclose(fp);
    *buf = b;
    *len = n;
    return LN_OK;
}

/* ---- .params reading ---- */

typedef struct cursor {
    const unsigned char *buf;
    size_t len;
    size_t pos;
    const char *file;
    const char *key;            /* tensor being read, for messages */
} cursor;

static int truncated(const cursor *c, const char *what, size_t need)
{
    return ln_error(LN_EPARSE,
                    "%s: truncated at byte %zu reading %s of '%s' "
                    "(%zu bytes needed, %zu left)",
                    c->file, c->pos, what, c->key, need, c->len - c->pos);
}

static int get_bytes(cursor *c, void *dst, size_t n, const char *what)
{
    if (n > c->len - c->pos) {
        truncated(c, what, n);
        return LN_EPARSE;       /* a constant, so gcc sees dst is set on 0 */
    }
    memcpy(dst, c->buf + c->pos, n);
    c->pos += n;
    return LN_OK;
}

static int get_u64(cursor *c, uint64_t *v, const char *what)
{
    unsigned char b[8];
    int i, ret;

    if ((ret = get_bytes(c, b, 8, what)) < 0)
        return ret;
    *v = 0;
    for (i = 7; i >= 0; i--)
        *v = (*v << 8) | b[i];
    return LN_OK;
}

static int get_u32(cursor *c, uint32_t *v, const char *what)
{
    unsigned char b[4];
    int ret;

    if ((ret = get_bytes(c, b, 4, what)) < 0)
        return ret;
    *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
         (uint32_t)b[3] << 24;
    return LN_OK;
}

static int32_t u32_to_i32(uint32_t u)
{
    return u <= INT32_MAX ? (int32_t)u : -(int32_t)(UINT32_MAX - u) - 1;
}

static ln_dtype dtype_from_dl(unsigned code, unsigned bits)
{
    switch (code) {
    case DL_INT:
        switch (bits) {
        case 8: return LN_DTYPE_INT8;
        case 16: return LN_DTYPE_INT16;
        case 32: return LN_DTYPE_INT32;
        case 64: return LN_DTYPE_INT64;
        }
        break;
    case DL_UINT:
        switch (bits) {
        case 1: return LN_DTYPE_BOOL;
        case 8: return LN_DTYPE_UINT8;
        case 16: return LN_DTYPE_UINT16;
        case 32: return LN_DTYPE_UINT32;
        case 64: return LN_DTYPE_UINT64;
        }
        break;
    case DL_FLOAT:
        switch (bits) {
        case 16: return LN_DTYPE_FLOAT16;
        case 32: return LN_DTYPE_FLOAT32;
        case 64: return LN_DTYPE_FLOAT64;
        }
        break;
    case DL_BOOL:
        if (bits == 8)
            return LN_DTYPE_BOOL;
        break;
    }
    return LN_DTYPE_UNKNOWN;
}

static void dtype_to_dl(ln_dtype dtype, unsigned char *code, unsigned char *bits)
{
    switch (dtype) {
    case LN_DTYPE_FLOAT32: *code = DL_FLOAT; *bits = 32; break;
    case LN_DTYPE_FLOAT64: *code = DL_FLOAT; *bits = 64; break;
    case LN_DTYPE_FLOAT16: *code = DL_FLOAT; *bits = 16; break;
    case LN_DTYPE_INT8: *code = DL_INT; *bits = 8; break;
    case LN_DTYPE_INT16: *code = DL_INT; *bits = 16; break;
    case LN_DTYPE_INT32: *code = DL_INT; *bits = 32; break;
    case LN_DTYPE_INT64: *code = DL_INT; *bits = 64; break;
    case LN_DTYPE_UINT8: *code = DL_UINT; *bits = 8; break;
    case LN_DTYPE_UINT16: *code = DL_UINT; *bits = 16; break;
    case LN_DTYPE_UINT32: *code = DL_UINT; *bits = 32; break;
    case LN_DTYPE_UINT64: *code = DL_UINT; *bits = 64; break;
    case LN_DTYPE_BOOL: *code = DL_UINT; *bits = 1; break;  /* TVM's bool */
    default: assert(0 && "bad dtype"); break;
    }
}

/* One DLTensor value at the cursor (its magic and reserved word already
 * read) into a new tensor with owned data. */
static int read_tensor(cursor *c, ln_tensor **out)
{
    uint32_t u32;
    int32_t device_type, device_id, ndim;
    unsigned char dt[4];
    unsigned code, bits, lanes;
    ln_dtype dtype;
    int dims[LN_MAXDIM];
    uint64_t u64, nbytes;
    size_t len = 1, start;
    ln_tensor *t;
    int i, ret;

    *out = NULL;
    if ((ret = get_u32(c, &u32, "device_type")) < 0)
        return ret;
    device_type = u32_to_i32(u32);
    if ((ret = get_u32(c, &u32, "device_id")) < 0)
        return ret;
    device_id = u32_to_i32(u32);
    (void)device_type;  /* TVM always saves a CPU copy; any value is fine */
    (void)device_id;
    start = c->pos;
    if ((ret = get_u32(c, &u32, "ndim")) < 0)
        return ret;
    ndim = u32_to_i32(u32);
    if (ndim < 0 || ndim > LN_MAXDIM)
        return ln_error(LN_EPARSE, "%s: byte %zu: '%s' has ndim %ld "
                        "(0 to %d supported)", c->file, start, c->key,
                        (long)ndim, LN_MAXDIM);
    start = c->pos;
    if ((ret = get_bytes(c, dt, 4, "dtype")) < 0)
        return ret;
    code = dt[0];
    bits = dt[1];
    lanes = (unsigned)dt[2] | (unsigned)dt[3] << 8;
    dtype = dtype_from_dl(code, bits);
    if (dtype == LN_DTYPE_UNKNOWN || lanes != 1)
        return ln_error(LN_EPARSE, "%s: byte %zu: '%s' has unsupported dtype "
                        "(code %u, bits %u, lanes %u)", c->file, start, c->key,
                        code, bits, lanes);
    for (i = 0; i < ndim; i++) {
        start = c->pos;
        if ((ret = get_u64(c, &u64, "shape")) < 0)
            return ret;
        if (u64 > (uint64_t)INT_MAX)    /* negative i64 is huge as u64 */
            return ln_error(LN_EPARSE, "%s: byte %zu: '%s' has bad shape[%d] "
                            "%lld", c->file, start, c->key, i,
                            (long long)u64);
        dims[i] = (int)u64;
        if (dims[i] != 0 && len > SIZE_MAX / (size_t)dims[i])
            return ln_error(LN_EPARSE, "%s: byte %zu: '%s' shape overflows",
                            c->file, start, c->key);
        len *= (size_t)dims[i];
    }
    start = c->pos;
    if ((ret = get_u64(c, &nbytes, "byte size")) < 0)
        return ret;
    if (len > SIZE_MAX / ln_dtype_size(dtype) ||
        nbytes != (uint64_t)(len * ln_dtype_size(dtype)))
        return ln_error(LN_EPARSE, "%s: byte %zu: '%s' has byte size %llu, "
                        "its shape and dtype (%s) need %zu", c->file, start,
                        c->key, (unsigned long long)nbytes,
                        ln_dtype_name(dtype), len * ln_dtype_size(dtype));
    if (nbytes > c->len - c->pos)
        return truncated(c, "data", (size_t)nbytes);
    t = ln_tensor_create_alloc(dtype, ndim, dims);
    get_bytes(c, t->data, (size_t)nbytes, "data");
    swap_elems(t->data, t->len, ln_dtype_size(dtype));
    *out = t;
    return LN_OK;
}

int ln_datafile_read_params_mem(const void *buf, size_t len,
                                const char *name_for_errors, ln_hash **dict)
{
    cursor c;
    uint64_t magic, reserved, nkeys, nvals, klen, i;
    char **keys = NULL;
    uint64_t nkeys_read = 0;
    ln_hash *d = NULL;
    ln_tensor *t;
    size_t start;
    int ret;

    assert(dict);
    *dict = NULL;
    c.buf = buf;
    c.len = buf ? len : 0;
    c.pos = 0;
    c.file = name_for_errors ? name_for_errors : "(memory)";
    c.key = "(header)";

    if (get_u64(&c, &magic, "magic") < 0 || magic != PARAMS_MAGIC)
        return ln_error(LN_EPARSE, "%s: not a .params file (bad magic)",
                        c.file);
    if ((ret = get_u64(&c, &reserved, "reserved")) < 0 ||
        (ret = get_u64(&c, &nkeys, "key count")) < 0)
        return ret;
    if (nkeys > (c.len - c.pos) / 8)    /* each key needs 8 bytes at least */
        return ln_error(LN_EPARSE, "%s: byte %zu: key count %llu exceeds "
                        "what %zu bytes can hold", c.file, c.pos - 8,
                        (unsigned long long)nkeys, c.len - c.pos);
    keys = ln_alloc(sizeof(char *) * ((size_t)nkeys + 1));
    for (i = 0; i < nkeys; i++) {
        char what[48];

        snprintf(what, sizeof(what), "length of key #%llu",
                 (unsigned long long)i);
        if ((ret = get_u64(&c, &klen, what)) < 0)
            goto fail;
        if (klen > c.len - c.pos) {
            snprintf(what, sizeof(what), "key #%llu", (unsigned long long)i);
            ret = truncated(&c, what, klen > SIZE_MAX ? SIZE_MAX : (size_t)klen);
            goto fail;
        }
        keys[i] = ln_alloc((size_t)klen + 1);
        nkeys_read++;
        get_bytes(&c, keys[i], (size_t)klen, "key");
        keys[i][klen] = '\0';
        if (strlen(keys[i]) != (size_t)klen) {
            ret = ln_error(LN_EPARSE, "%s: byte %zu: key #%llu contains a "
                           "NUL byte", c.file, c.pos - (size_t)klen,
                           (unsigned long long)i);
            goto fail;
        }
    }
    c.key = "(value count)";
    start = c.pos;
    if ((ret = get_u64(&c, &nvals, "value count")) < 0)
        goto fail;
    if (nvals != nkeys) {
        ret = ln_error(LN_EPARSE, "%s: byte %zu: %llu values for %llu keys",
                       c.file, start, (unsigned long long)nvals,
                       (unsigned long long)nkeys);
        goto fail;
    }

    d = ln_datafile_create_dict();
    for (i = 0; i < nvals; i++) {
        c.key = keys[i];
        start = c.pos;
        if ((ret = get_u64(&c, &magic, "tensor magic")) < 0)
            goto fail;
        if (magic != TENSOR_MAGIC) {
            ret = ln_error(LN_EPARSE, "%s: byte %zu: '%s' has a bad tensor "
                           "magic", c.file, start, c.key);
            goto fail;
        }
        if ((ret = get_u64(&c, &reserved, "reserved")) < 0 ||
            (ret = read_tensor(&c, &t)) < 0)
            goto fail;
        if (ln_hash_find(d, keys[i])) {
            ln_tensor_free(t);
            ret = ln_error(LN_EPARSE, "%s: byte %zu: duplicate key '%s'",
                           c.file, start, c.key);
            goto fail;
        }
        ln_hash_insert(d, keys[i], t);
        keys[i] = NULL;         /* owned by the dict now */
    }
    ln_free(keys);
    *dict = d;
    return LN_OK;

fail:
    for (i = 0; i < nkeys_read; i++)
        ln_free(keys[i]);
    ln_free(keys);
    if (d)
        ln_hash_free(d);
    return ret;
}

int ln_datafile_read_params(const char *path, ln_hash **dict)
{
    unsigned char *buf;
    size_t len;
    int ret;

    assert(path && dict);
    *dict = NULL;
    if ((ret = read_binary(path, &buf, &len)) < 0)
        return ret;
    ret = ln_datafile_read_params_mem(buf, len, path, dict);
    ln_free(buf);
    return ret;
}

/* ---- .wts reading ---- */

typedef struct wts_lexer {
    const char *p;
    const char *file;
    int line;
} wts_lexer;

/* Next white-space separated token into tok (NUL-terminated, at most
 * size - 1 chars); 0 at end of input, -1 when the token is too long. */
static int wts_token(wts_lexer *lx, char *tok, size_t size)
{
    size_t n = 0;

    while (*lx->p && isspace((unsigned char)*lx->p)) {
        if (*lx->p == '\n')
            lx->line++;
        lx->p++;
    }
    if (!*lx->p)
        return 0;
    while (*lx->p && !isspace((unsigned char)*lx->p)) {
        if (n + 1 >= size)
            return -1;
        tok[n++] = *lx->p++;
    }
    tok[n] = '\0';
    return 1;
}

/* A token as an unsigned number in base 10 or 16, at most max. */
static int wts_number(wts_lexer *lx, int base, unsigned long max,
                      unsigned long *v, const char *what, const char *name)
{
    char tok[64], *end;
    int r = wts_token(lx, tok, sizeof(tok));

    if (r == 0)
        return ln_error(LN_EPARSE, "%s:%d: unexpected end of file reading "
                        "%s of '%s'", lx->file, lx->line, what, name);
    if (r < 0 || tok[0] == '-' || tok[0] == '+')
        return ln_error(LN_EPARSE, "%s:%d: bad %s of '%s'", lx->file,
                        lx->line, what, name);
    errno = 0;
    *v = strtoul(tok, &end, base);
    if (*end || errno || *v > max)
        return ln_error(LN_EPARSE, "%s:%d: bad %s of '%s': '%s'", lx->file,
                        lx->line, what, name, tok);
    return LN_OK;
}

/* Parses text (tlen bytes and a NUL, owned: freed here) named path. */
static int wts_parse(char *text, size_t tlen, const char *path, ln_hash **dict)
{
    wts_lexer lx;
    unsigned long count, type, len, v, k, i;
    char name[1024];
    ln_hash *d;
    ln_tensor *t;
    int dims[1], r, ret;

    if (strlen(text) != tlen) {
        ln_free(text);
        return ln_error(LN_EPARSE, "%s: not a .wts text file (NUL byte)",
                        path);
    }
    lx.p = text;
    lx.file = path;
    lx.line = 1;
    d = ln_datafile_create_dict();
    if ((ret = wts_number(&lx, 10, INT_MAX, &count, "tensor count",
                          "(header)")) < 0)
        goto fail;
    for (k = 0; k < count; k++) {
        r = wts_token(&lx, name, sizeof(name));
        if (r <= 0) {
            ret = ln_error(LN_EPARSE, "%s:%d: %s reading tensor %lu of %lu",
                           path, lx.line, r ? "name too long" :
                           "unexpected end of file", k + 1, count);
            goto fail;
        }
        if ((ret = wts_number(&lx, 10, 2, &type, "type", name)) < 0 ||
            (ret = wts_number(&lx, 10, INT_MAX, &len, "length", name)) < 0)
            goto fail;
        if (len > tlen) {       /* each value takes two bytes at least */
            ret = ln_error(LN_EPARSE, "%s:%d: length %lu of '%s' exceeds "
                           "the file", path, lx.line, len, name);
            goto fail;
        }
        dims[0] = (int)len;
        t = ln_tensor_create_alloc(type == 0 ? LN_DTYPE_FLOAT32 :
                                   type == 1 ? LN_DTYPE_FLOAT16 :
                                   LN_DTYPE_INT8, 1, dims);
        for (i = 0; i < len; i++) {
            if (type == 0) {
                if ((ret = wts_number(&lx, 16, 0xffffffffUL, &v, "value",
                                      name)) < 0)
                    break;
                ((uint32_t *)t->data)[i] = (uint32_t)v;
            } else if (type == 1) {
                if ((ret = wts_number(&lx, 16, 0xffffUL, &v, "value",
                                      name)) < 0)
                    break;
                ((uint16_t *)t->data)[i] = (uint16_t)v;
            } else {
                if ((ret = wts_number(&lx, 16, 0xffUL, &v, "value",
                                      name)) < 0)
                    break;
                ((uint8_t *)t->data)[i] = (uint8_t)v;
            }
        }
        if (ret < 0 || ln_hash_find(d, name)) {
            ln_tensor_free(t);
            if (ret >= 0)
                ret = ln_error(LN_EPARSE, "%s:%d: duplicate tensor '%s'",
                               path, lx.line, name);
            goto fail;
        }
        ln_hash_insert(d, ln_strdup(name), t);
    }
    if (wts_token(&lx, name, sizeof(name)) != 0) {
        ret = ln_error(LN_EPARSE, "%s:%d: more data after %lu tensors",
                       path, lx.line, count);
        goto fail;
    }
    ln_free(text);
    *dict = d;
    return LN_OK;

fail:
    ln_free(text);
    ln_hash_free(d);
    return ret;
}

int ln_datafile_read_wts(const char *path, ln_hash **dict)
{
    unsigned char *raw;
    char *text;
    size_t tlen;
    int ret;

    assert(path && dict);
    *dict = NULL;
    if ((ret = read_binary(path, &raw, &tlen)) < 0)
        return ret;
    text = ln_realloc(raw, tlen + 1);
    text[tlen] = '\0';
    return wts_parse(text, tlen, path, dict);
}

int ln_datafile_read_wts_mem(const void *buf, size_t len, const char *name_for_errors,
                             ln_hash **dict)
{
    char *text = ln_alloc(len + 1);

    assert((buf || !len) && name_for_errors && dict);
    *dict = NULL;
    if (len)
        memcpy(text, buf, len);
    text[len] = '\0';
    return wts_parse(text, len, name_for_errors, dict);
}

int ln_datafile_read(const char *path, ln_hash **dict)
{
    size_t n;

    assert(path && dict);
    n = strlen(path);
    if (n >= 4 && strcmp(path + n - 4, ".wts") == 0)
        return ln_datafile_read_wts(path, dict);
    return ln_datafile_read_params(path, dict);
}

/* ---- .params writing ---- */

static int put_bytes(FILE *fp, const void *p, size_t n)
{
    return fwrite(p, 1, n, fp) == n ? 0 : -1;
}

static int put_u64(FILE *fp, uint64_t v)
{
    unsigned char b[8];
    int i;

    for (i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    return put_bytes(fp, b, 8);
}

static int put_u32(FILE *fp, uint32_t v)
{
    unsigned char b[4];
    int i;

    for (i = 0; i < 4; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    return put_bytes(fp, b, 4);
}

static int put_tensor(FILE *fp, const ln_tensor *t)
{
    unsigned char dt[4];
    size_t size = ln_tensor_size(t), elem = ln_dtype_size(t->dtype);
    int i;

    dtype_to_dl(t->dtype, &dt[0], &dt[1]);
    dt[2] = 1;                  /* lanes */
    dt[3] = 0;
    if (put_u64(fp, TENSOR_MAGIC) || put_u64(fp, 0) ||
        put_u32(fp, 1) ||      /* kDLCPU */
        put_u32(fp, 0) ||      /* device_id */
        put_u32(fp, (uint32_t)t->ndim) || put_bytes(fp, dt, 4))
        return -1;
    for (i = 0; i < t->ndim; i++)
        if (put_u64(fp, (uint64_t)t->dims[i]))
            return -1;
    if (put_u64(fp, (uint64_t)size))
        return -1;
    if (size == 0)
        return 0;
    if (host_is_big_endian() && elem > 1) {
        void *tmp = ln_clone(t->data, size);
        int ret;

        swap_elems(tmp, t->len, elem);
        ret = put_bytes(fp, tmp, size);
        ln_free(tmp);
        return ret;
    }
    return put_bytes(fp, t->data, size);
}

int ln_datafile_write_params(const char *path, int n, const char *const *names,
                             const ln_tensor *const *tensors)
{
    ln_outfile *o;
    FILE *fp;
    int i, j, bad;

    assert(path && n >= 0 && (n == 0 || (names && tensors)));
    for (i = 0; i < n; i++) {
        if (!names[i] || !tensors[i])
            return ln_error(LN_EINVAL, "%s: tensor #%d has no %s", path, i,
                            names[i] ? "tensor" : "name");
        if (tensors[i]->dtype < 0 || tensors[i]->dtype >= LN_DTYPE_SIZE)
            return ln_error(LN_EINVAL, "%s: '%s' has an invalid dtype", path,
                            names[i]);
        if (!tensors[i]->data && tensors[i]->len > 0)
            return ln_error(LN_EINVAL, "%s: '%s' has no data", path, names[i]);
        for (j = 0; j < i; j++)
            if (strcmp(names[i], names[j]) == 0)
                return ln_error(LN_EINVAL, "%s: duplicate name '%s'", path,
                                names[i]);
    }

    if (!(o = ln_outfile_open(path)))
        return ln_error_code();
    fp = ln_outfile_fp(o);
    errno = 0;
    bad = put_u64(fp, PARAMS_MAGIC) || put_u64(fp, 0) ||
          put_u64(fp, (uint64_t)n);
    for (i = 0; i < n && !bad; i++) {
        size_t klen = strlen(names[i]);

        bad = put_u64(fp, (uint64_t)klen) || put_bytes(fp, names[i], klen);
    }
    bad = bad || put_u64(fp, (uint64_t)n);
    for (i = 0; i < n && !bad; i++)
        bad = put_tensor(fp, tensors[i]);
    if (bad) {
        int ret = ln_error(LN_EIO, "%s: write failed%s%s", path,
                           errno ? ": " : "", errno ? strerror(errno) : "");
        ln_outfile_abort(o);
        return ret;
    }
    return ln_outfile_commit(o);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int ln_datafile_write_params_dict(const char *path, const ln_hash *dict)
{
    int n, i, ret;
    const char **names;
    const ln_tensor **tensors;
    ln_hash_iter it;
    void *k, *v;

    assert(path && dict);
    n = ln_hash_size(dict);
    names = ln_alloc(sizeof(*names) * (size_t)(n + 1));
    tensors = ln_alloc(sizeof(*tensors) * (size_t)(n + 1));
    i = 0;
    ln_hash_iter_init(&it, dict);
    while (ln_hash_iter_next(&it, &k, &v))
        names[i++] = k;
    assert(i == n);
    qsort(names, (size_t)n, sizeof(*names), cmp_names);
    for (i = 0; i < n; i++)
        tensors[i] = ln_hash_find(dict, names[i]);
    ret = ln_datafile_write_params(path, n, names, tensors);
    ln_free(names);
    ln_free(tensors);
    return ret;
}
