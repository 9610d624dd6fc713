/*
 * test_ln_datafile.c -- .params and .wts weights files.
 *
 * Files are written at run time into a fresh directory from mkdtemp(), so
 * the tests need nothing in tests/data/.  The expected .params bytes of
 * test_params_bytes are spelled out by hand from the layout in
 * ln_datafile.h (TVM's NDArray dict), not produced by the writer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <check.h>

#include "ln_datafile.h"

static char tmpdir[64];

static void make_tmpdir(void)
{
    const char *base = getenv("TMPDIR");

    snprintf(tmpdir, sizeof(tmpdir), "%s/ln_datafile_XXXXXX",
             base && strlen(base) < 40 ? base : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
    ck_assert_int_eq(rmdir(tmpdir), 0);    /* fails if anything is left */
}

static char *tmp_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", tmpdir, name);
    return buf;
}

static unsigned char *read_all(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    unsigned char *buf;
    long n;

    ck_assert_ptr_nonnull(fp);
    fseek(fp, 0, SEEK_END);
    n = ftell(fp);
    rewind(fp);
    buf = malloc((size_t)n + 1);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, fp), (size_t)n);
    fclose(fp);
    *len = (size_t)n;
    return buf;
}

static void write_all(const char *path, const void *buf, size_t len)
{
    FILE *fp = fopen(path, "wb");

    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fwrite(buf, 1, len, fp), len);
    fclose(fp);
}

static ln_bool file_exists(const char *path)
{
    return access(path, F_OK) == 0;
}

/* A little-endian byte builder for hand-made files. */
typedef struct bytes {
    unsigned char b[512];
    size_t n;
} bytes;

static void put(bytes *s, uint64_t v, int width)
{
    int i;

    for (i = 0; i < width; i++)
        s->b[s->n++] = (unsigned char)(v >> (8 * i));
}

static void put_str(bytes *s, const char *str)
{
    put(s, strlen(str), 8);
    memcpy(s->b + s->n, str, strlen(str));
    s->n += strlen(str);
}

/* One tensor "a": float32 [2] = {1.0, -2.0}. */
static void build_one(bytes *s)
{
    s->n = 0;
    put(s, UINT64_C(0xF7E58D4F05049CB7), 8);
    put(s, 0, 8);
    put(s, 1, 8);
    put_str(s, "a");
    put(s, 1, 8);
    put(s, UINT64_C(0xDD5E40F096B4A13F), 8);
    put(s, 0, 8);
    put(s, 1, 4);               /* kDLCPU */
    put(s, 0, 4);               /* device_id */
    put(s, 1, 4);               /* ndim */
    put(s, 2, 1);               /* float */
    put(s, 32, 1);
    put(s, 1, 2);               /* lanes */
    put(s, 2, 8);               /* shape[0] */
    put(s, 8, 8);               /* byte size */
    put(s, 0x3f800000, 4);
    put(s, 0xc0000000, 4);
}

/* Offset of the DLTensor dtype code in build_one's bytes. */
#define ONE_DTYPE_AT (8 + 8 + 8 + 8 + 1 + 8 + 8 + 8 + 4 + 4 + 4)

START_TEST(test_params_bytes)
{
    char path[128];
    bytes want;
    unsigned char *got;
    size_t len;
    float data[] = { 1.0f, -2.0f };
    int dims[] = { 2 };
    const char *names[] = { "a" };
    ln_tensor *t = ln_tensor_create(LN_DTYPE_FLOAT32, 1, dims, data);
    const ln_tensor *ts[] = { t };

    make_tmpdir();
    tmp_path(path, sizeof(path), "one.params");
    ck_assert_int_eq(ln_datafile_write_params(path, 1, names, ts), 0);
    build_one(&want);
    got = read_all(path, &len);
    ck_assert_uint_eq(len, want.n);
    ck_assert_int_eq(memcmp(got, want.b, len), 0);
    free(got);
    ln_tensor_free(t);
    unlink(path);
    remove_tmpdir();
}
END_TEST

static void check_same(const ln_tensor *a, const ln_tensor *b)
{
    ck_assert_int_eq(a->dtype, b->dtype);
    ck_assert(ln_tensor_same_shape(a, b));
    ck_assert_uint_eq(a->len, b->len);
    if (ln_tensor_size(a) > 0)
        ck_assert_int_eq(memcmp(a->data, b->data, ln_tensor_size(a)), 0);
}

START_TEST(test_params_round_trip)
{
    char path[128];
    int d23[] = { 2, 3 }, d4[] = { 4 }, d041[] = { 0, 4, 1 };
    int d11111[] = { 1, 1, 1, 1, 2 };
    float f32[] = { 1.5f, -2, 3e-8f, 1e30f, 0, -0.0f };
    double f64[] = { 1.0 / 3, -1e300, 5e-324, 2 };
    uint16_t f16[] = { 0x3c00, 0xc000, 0x7bff, 0x0001 };
    int8_t i8[] = { -128, 127, 0, -1 };
    int16_t i16[] = { -32768, 32767, 1, -1 };
    int32_t i32[] = { INT32_MIN, INT32_MAX, 7, -7, 0, 1 };
    int64_t i64[] = { INT64_MIN, INT64_MAX, 12345678901LL, -1 };
    uint8_t u8[] = { 0, 255, 128, 1 };
    uint16_t u16[] = { 0, 65535, 256, 1 };
    uint32_t u32[] = { 0, UINT32_MAX, 65536, 1 };
    uint64_t u64[] = { 0, UINT64_MAX, UINT64_C(1) << 40, 1 };
    uint8_t bl[] = { 1, 0, 1, 1 };
    float scalar = 42.5f;
    double d11111_data[] = { 9, 8 };
    const char *names[] = {
        "f32", "f64", "f16", "i8", "i16", "i32", "i64", "u8", "u16", "u32",
        "u64", "bool", "scalar", "empty", "five_d", "a.b/c:0 with space"
    };
    enum { N = 16 };
    ln_tensor *ts[N];
    ln_hash *dict, *dict2;
    int i;

    ts[0] = ln_tensor_create(LN_DTYPE_FLOAT32, 2, d23, f32);
    ts[1] = ln_tensor_create(LN_DTYPE_FLOAT64, 1, d4, f64);
    ts[2] = ln_tensor_create(LN_DTYPE_FLOAT16, 1, d4, f16);
    ts[3] = ln_tensor_create(LN_DTYPE_INT8, 1, d4, i8);
    ts[4] = ln_tensor_create(LN_DTYPE_INT16, 1, d4, i16);
    ts[5] = ln_tensor_create(LN_DTYPE_INT32, 2, d23, i32);
    ts[6] = ln_tensor_create(LN_DTYPE_INT64, 1, d4, i64);
    ts[7] = ln_tensor_create(LN_DTYPE_UINT8, 1, d4, u8);
    ts[8] = ln_tensor_create(LN_DTYPE_UINT16, 1, d4, u16);
    ts[9] = ln_tensor_create(LN_DTYPE_UINT32, 1, d4, u32);
    ts[10] = ln_tensor_create(LN_DTYPE_UINT64, 1, d4, u64);
    ts[11] = ln_tensor_create(LN_DTYPE_BOOL, 1, d4, bl);
    ts[12] = ln_tensor_create(LN_DTYPE_FLOAT32, 0, NULL, &scalar);
    ts[13] = ln_tensor_create(LN_DTYPE_FLOAT32, 3, d041, NULL);
    ts[14] = ln_tensor_create(LN_DTYPE_FLOAT64, 5, d11111, d11111_data);
    ts[15] = ln_tensor_create(LN_DTYPE_UINT8, 1, d4, u8);

    make_tmpdir();
    tmp_path(path, sizeof(path), "rt.params");
    ck_assert_int_eq(ln_datafile_write_params(path, N, names,
                                              (const ln_tensor *const *)ts), 0);
    ck_assert_int_eq(ln_datafile_read(path, &dict), 0);
    ck_assert_ptr_nonnull(dict);
    ck_assert_int_eq(ln_hash_size(dict), N);
    for (i = 0; i < N; i++) {
        ln_tensor *r = ln_hash_find(dict, names[i]);

        ck_assert_msg(r != NULL, "%s missing", names[i]);
        check_same(ts[i], r);
        ck_assert(r->owns_data || r->len == 0);
    }
    ck_assert_int_eq(((ln_tensor *)ln_hash_find(dict, "scalar"))->ndim, 0);

    /* write the dict back (sorted names) and read it again */
    unlink(path);
    ck_assert_int_eq(ln_datafile_write_params_dict(path, dict), 0);
    ck_assert_int_eq(ln_datafile_read_params(path, &dict2), 0);
    ck_assert_int_eq(ln_hash_size(dict2), N);
    for (i = 0; i < N; i++)
        check_same(ts[i], ln_hash_find(dict2, names[i]));

    ln_hash_free(dict);
    ln_hash_free(dict2);
    for (i = 0; i < N; i++)
        ln_tensor_free(ts[i]);
    unlink(path);
    remove_tmpdir();
}
END_TEST

START_TEST(test_params_truncated)
{
    char path[128];
    unsigned char *full;
    size_t len, cut;
    ln_hash *dict;
    int dims[] = { 3, 2 };
    int32_t data[6] = { 1, 2, 3, 4, 5, 6 };
    double s = 1;
    const char *names[] = { "conv1.weight", "scale" };
    ln_tensor *ts[2];

    ts[0] = ln_tensor_create(LN_DTYPE_INT32, 2, dims, data);
    ts[1] = ln_tensor_create(LN_DTYPE_FLOAT64, 0, NULL, &s);
    make_tmpdir();
    tmp_path(path, sizeof(path), "full.params");
    ck_assert_int_eq(ln_datafile_write_params(path, 2, names,
                                              (const ln_tensor *const *)ts), 0);
    full = read_all(path, &len);
    unlink(path);

    /* every cut point, from memory: an error, never a crash (ASan) */
    for (cut = 0; cut < len; cut++) {
        dict = (ln_hash *)1;
        ck_assert_msg(ln_datafile_read_params_mem(full, cut, "x.params",
                                                  &dict) == LN_EPARSE,
                      "cut at %zu", cut);
        ck_assert_ptr_null(dict);
        ck_assert_ptr_nonnull(strstr(ln_error_message(), "x.params"));
    }
    ck_assert_int_eq(ln_datafile_read_params_mem(full, len, "x.params", &dict), 0);
    ln_hash_free(dict);

    /* from a file, cut inside the first tensor's data */
    tmp_path(path, sizeof(path), "cut.params");
    write_all(path, full, len - 8 - 8 - 8 - 4 - 4 - 4 - 4 - 10);
    ck_assert_int_eq(ln_datafile_read_params(path, &dict), LN_EPARSE);
    ck_assert_ptr_null(dict);
    ck_assert_ptr_nonnull(strstr(ln_error_message(), path));
    ck_assert_ptr_nonnull(strstr(ln_error_message(), "conv1.weight"));
    ck_assert_ptr_nonnull(strstr(ln_error_message(), "byte"));
    unlink(path);

    /* cut inside the last tensor's data */
    write_all(path, full, len - 1);
    ck_assert_int_eq(ln_datafile_read(path, &dict), LN_EPARSE);
    ck_assert_ptr_nonnull(strstr(ln_error_message(), "'scale'"));
    unlink(path);

    /* an empty file is not a .params file */
    write_all(path, full, 0);
    ck_assert_int_eq(ln_datafile_read_params(path, &dict), LN_EPARSE);
    unlink(path);

    free(full);
    ln_tensor_free(ts[0]);
    ln_tensor_free(ts[1]);
    remove_tmpdir();
}
END_TEST

START_TEST(test_params_corrupt)
{
    bytes s;
    ln_hash *dict;
    ln_tensor *t;
    char path[128];

    build_one(&s);
    ck_assert_int_eq(ln_datafile_read_params_mem(s.b, s.n, "ok", &dict), 0);
    t = ln_hash_find(dict, "a");
    ck_assert_ptr_nonnull(t);
    ck_assert(((float *)t->data)[1] == -2.0f);
    ln_hash_free(dict);

    /* bad magic */
    s.b[0] ^= 1;
    ck_assert_int_eq(ln_datafile_read_params_mem(s.b, s.n, "m", &dict),
                     LN_EPARSE);
    ck_assert_ptr_nonnull(strstr(ln_error_message(), "not a .params file"));
    make_tmpdir();
    tmp_path(path, sizeof(path), "bad.params");
    write_all(path, "hello world, not weights", 24);
    ck_assert_int_eq(ln_datafile_read_params(path, &dict), LN_EPARSE);
    ck_assert_ptr_nonnull(strstr(ln_error_message(), "not a .params file"));
    unlink(path);
    remove_tmpdir();

    /* bad tensor magic */
    build_one(&s);
    s.b[8 + 8 + 8 + 8 + 1 + 8] ^= 1;
    ck_assert_int_eq(ln_datafile_read_params_mem(s.b, s.n, "m", &dict),
                     LN_EPARSE);

    /* value count != key count */
    build_one(&s);
    s.b[8 + 8 + 8 + 8 + 1] = 2;
    ck_assert_int_eq(ln_datafile_read_params_mem(s.b, s.n, "m", &dict),
                     LN_EPARSE);
    ck_assert_ptr_nonnull(strstr(ln_error_message(), "values for"));

    /* huge key count does not allocate or crash */
    build_one(&s);
    s.b[8 + 8 + 7] = 0x7f;
    ck_assert_int_eq(ln_datafile_read_params_mem(s.b, s.n, "m", &dict),
                     LN_EPARSE);

    /* huge key length */
    build_one(&s);
    s.b[8 + 8 + 8 + 7] = 0xff;
    ck_assert_int_eq(ln_datafile_read_params_mem(s.b, s.n, "m", &dict),
                     LN_EPARSE);

    /* unsupported dtype: bfloat (code 4), 2 lanes, float 8 bits */
    build_one(&s);
    s.b[ONE_DTYPE_AT] = 4;
    ck_assert_int_eq(ln_datafile_read_params_mem(s.b, s.n, "m", &dict),
                     LN_EPARSE);
    build_one(&s);
    s.b[ONE_DTYPE_AT + 2] = 2;
    ck_assert_int_eq(ln_datafile_read_params_mem(s.b, s.n, "m", &dict),
                     LN_EPARSE);
    build_one(&s);
    s.b[ONE_DTYPE_AT + 1] = 8;
    ck_assert_int_eq(ln_datafile_read_params_mem(s.b, s.n, "m", &dict),
                     LN_EPARSE);

    /* ndim too big, negative shape, byte size that disagrees */
    build_one(&s);
    s.b[ONE_DTYPE_AT - 4] = LN_MAXDIM + 1;
    ck_assert_int_eq(ln_datafile_read_params_mem(s.b, s.n, "m", &dict),
                     LN_EPARSE);
    build_one(&s);
    memset(s.b + ONE_DTYPE_AT + 4, 0xff, 8);   /* shape[0] = -1 */
    ck_assert_int_eq(ln_datafile_read_params_mem(s.b, s.n, "m", &dict),
                     LN_EPARSE);
    build_one(&s);
    s.b[ONE_DTYPE_AT + 12] = 4;
    ck_assert_int_eq(ln_datafile_read_params_mem(s.b, s.n, "m", &dict),
                     LN_EPARSE);
    ck_assert_ptr_nonnull(strstr(ln_error_message(), "byte size"));

    /* bool: TVM's uint/1 bit and DLPack's kDLBool/8 bits both read */
    build_one(&s);
    s.b[ONE_DTYPE_AT] = 1;
    s.b[ONE_DTYPE_AT + 1] = 1;
    s.b[ONE_DTYPE_AT + 4] = 8;  /* shape [8]: 8 bytes of bool */
    ck_assert_int_eq(ln_datafile_read_params_mem(s.b, s.n, "m", &dict), 0);
    ck_assert_int_eq(((ln_tensor *)ln_hash_find(dict, "a"))->dtype,
                     LN_DTYPE_BOOL);
    ln_hash_free(dict);
    s.b[ONE_DTYPE_AT] = 6;
    s.b[ONE_DTYPE_AT + 1] = 8;
    ck_assert_int_eq(ln_datafile_read_params_mem(s.b, s.n, "m", &dict), 0);
    ck_assert_int_eq(((ln_tensor *)ln_hash_find(dict, "a"))->dtype,
                     LN_DTYPE_BOOL);
    ln_hash_free(dict);
    s.b[ONE_DTYPE_AT] = 1;      /* uint8 stays uint8 */
    ck_assert_int_eq(ln_datafile_read_params_mem(s.b, s.n, "m", &dict), 0);
    ck_assert_int_eq(((ln_tensor *)ln_hash_find(dict, "a"))->dtype,
                     LN_DTYPE_UINT8);
    ln_hash_free(dict);

    /* NULL buffer */
    ck_assert_int_eq(ln_datafile_read_params_mem(NULL, 0, "m", &dict),
                     LN_EPARSE);
}
END_TEST

START_TEST(test_params_write_failure)
{
    char path[128], bad[160];
    float data[] = { 1, 2 };
    int dims[] = { 2 };
    const char *names[] = { "a", "a" };
    ln_tensor *t = ln_tensor_create(LN_DTYPE_FLOAT32, 1, dims, data);
    ln_tensor *nodata = ln_tensor_create(LN_DTYPE_FLOAT32, 1, dims, NULL);
    const ln_tensor *ts[] = { t, t };
    const ln_tensor *ts2[] = { nodata };
    ln_hash *dict;

    make_tmpdir();
    /* a directory that does not exist: LN_EIO, nothing created */
    snprintf(bad, sizeof(bad), "%s/nodir/x.params", tmpdir);
    ck_assert_int_eq(ln_datafile_write_params(bad, 1, names, ts), LN_EIO);
    ck_assert(!file_exists(bad));

    /* invalid input leaves an existing file as it was */
    tmp_path(path, sizeof(path), "keep.params");
    ck_assert_int_eq(ln_datafile_write_params(path, 1, names, ts), 0);
    ck_assert_int_eq(ln_datafile_write_params(path, 2, names, ts), LN_EINVAL);
    ck_assert_int_eq(ln_datafile_write_params(path, 1, names, ts2), LN_EINVAL);
    ck_assert_int_eq(ln_datafile_read_params(path, &dict), 0);
    ck_assert_int_eq(ln_hash_size(dict), 1);
    ln_hash_free(dict);
    unlink(path);

    /* an unreadable path */
    tmp_path(path, sizeof(path), "missing.params");
    ck_assert_int_eq(ln_datafile_read(path, &dict), LN_EIO);
    ck_assert_ptr_null(dict);

    ln_tensor_free(t);
    ln_tensor_free(nodata);
    remove_tmpdir();        /* also proves no temporary file was left */
}
END_TEST

/* The layout of LightNet's test/data/test_trt_weight.wts (own values). */
static const char wts_text[] =
    "3\n"
    "w1 0 5 3f800000 c0000000 3e800000 00000000 7f7fffff\n"
    "w2 2 4 01 ff 80 7f\n"
    "w3 1 2 3c00 c000\n";

START_TEST(test_wts_read)
{
    char path[128];
    ln_hash *dict;
    ln_tensor *t;
    float *f;
    int8_t *i8;
    uint16_t *h;

    make_tmpdir();
    tmp_path(path, sizeof(path), "w.wts");
    write_all(path, wts_text, strlen(wts_text));
    ck_assert_int_eq(ln_datafile_read(path, &dict), 0);
    ck_assert_int_eq(ln_hash_size(dict), 3);

    t = ln_hash_find(dict, "w1");
    ck_assert_int_eq(t->dtype, LN_DTYPE_FLOAT32);
    ck_assert_int_eq(t->ndim, 1);
    ck_assert_int_eq(t->dims[0], 5);
    f = t->data;
    ck_assert(f[0] == 1.0f && f[1] == -2.0f && f[2] == 0.25f && f[3] == 0.0f);
    ck_assert(f[4] == 3.40282347e+38f);

    t = ln_hash_find(dict, "w2");
    ck_assert_int_eq(t->dtype, LN_DTYPE_INT8);
    i8 = t->data;
    ck_assert(i8[0] == 1 && i8[1] == -1 && i8[2] == -128 && i8[3] == 127);

    t = ln_hash_find(dict, "w3");
    ck_assert_int_eq(t->dtype, LN_DTYPE_FLOAT16);
    h = t->data;
    ck_assert(h[0] == 0x3c00 && h[1] == 0xc000);
    ln_hash_free(dict);
    unlink(path);
    remove_tmpdir();
}
END_TEST

START_TEST(test_wts_bad)
{
    static const char *bad[] = {
        "",                                     /* no count */
        "2\nw1 0 2 3f800000 3f800000\n",       /* one tensor missing */
        "1\nw1 0 3 3f800000 3f800000\n",       /* too few values */
        "1\nw1 0 2 3f800000 zz\n",             /* not hex */
        "1\nw2 2 1 100\n",                      /* int8 out of range */
        "1\nw1 3 1 00\n",                       /* unknown type */
        "1\nw1 0 -1\n",                         /* negative length */
        "1\nw1 0 99999999 00\n",                /* length beyond the file */
        "2\nw 2 1 01\nw 2 1 02\n",              /* duplicate name */
        "1\nw 2 1 01 02\n",                     /* trailing data */
        "-1\n",
    };
    char path[128];
    ln_hash *dict;
    size_t i, cut;

    make_tmpdir();
    tmp_path(path, sizeof(path), "bad.wts");
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        write_all(path, bad[i], strlen(bad[i]));
        dict = (ln_hash *)1;
        ck_assert_msg(ln_datafile_read_wts(path, &dict) == LN_EPARSE,
                      "case %zu", i);
        ck_assert_ptr_null(dict);
        ck_assert_ptr_nonnull(strstr(ln_error_message(), path));
        unlink(path);
    }
    /* every cut of a good file that drops a token fails */
    for (cut = 0; cut + 1 < strlen(wts_text); cut++) {
        if (wts_text[cut] != ' ' && wts_text[cut] != '\n')
            continue;           /* a cut inside a token may still parse */
        write_all(path, wts_text, cut);
        ck_assert_msg(ln_datafile_read_wts(path, &dict) == LN_EPARSE,
                      "cut at %zu", cut);
        unlink(path);
    }
    remove_tmpdir();
}
END_TEST

Suite *test_ln_datafile_suite(void); /* run by tests/test_main.c */

Suite *test_ln_datafile_suite(void)
{
    Suite *s = suite_create("ln_datafile");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_params_bytes);
    tcase_add_test(tc, test_params_round_trip);
    tcase_add_test(tc, test_params_truncated);
    tcase_add_test(tc, test_params_corrupt);
    tcase_add_test(tc, test_params_write_failure);
    tcase_add_test(tc, test_wts_read);
    tcase_add_test(tc, test_wts_bad);
    suite_add_tcase(s, tc);
    return s;
}
