/*
 * test_rt_spectral.c -- runtime/kernels/spectral.c against references
 * written here in double: the windows from their formulas, the DFT and
 * STFT as sums of x[t] (cos - i sin)(2 pi k t / n) with the trig called per
 * term (the kernel walks a twiddle table, or runs an FFT for a power of
 * two: n 16, 64, 8, 2 here, the others direct), the mel matrix against the
 * filter bank ONNX's MelWeightMatrix example prints.  Tolerances: windows
 * 1e-6, transforms 2e-5 (max |diff| / max(|ref|, 1)), mel exact.
 */
#include "rt_test.h"

#define PI 3.14159265358979323846

START_TEST(test_windows)
{
    float y[33];

    for (int kind = 0; kind < 3; kind++)
        for (int periodic = 0; periodic < 2; periodic++)
            for (int n = 1; n <= 33; n += 8) {
                double d = periodic ? n : n - 1;
                ln_rt_window_f32((ln_rt_window_kind)kind, n, periodic, y);
                for (int i = 0; i < n; i++) {
                    double t = d > 0 ? 2.0 * PI * i / d : 0.0, r;
                    r = kind == 0 ? 0.5 - 0.5 * cos(t)
                      : kind == 1 ? 0.54347826086956522 - 0.45652173913043478 * cos(t)
                      : 0.42 - 0.5 * cos(t) + 0.08 * cos(2.0 * t);
                    if (d == 0)
                        r = 1.0;
                    ck_assert_double_le(fabs(y[i] - r), 1e-6);
                }
            }
}
END_TEST

/* x [outer][len][inner][c] -> y [outer][nout][inner][2] */
static double ref_dft_err(const ln_rt_dft_args *a, const float *x, const float *y)
{
    double err = 0.0;
    for (int o = 0; o < a->outer; o++)
        for (int q = 0; q < a->inner; q++)
            for (int k = 0; k < a->nout; k++) {
                double re = 0.0, im = 0.0, s = a->inverse ? 1.0 : -1.0;
                for (int t = 0; t < a->len && t < a->n; t++) {
                    const float *p = x + (((size_t)o * a->len + t) * a->inner + q) * a->c;
                    double ang = 2.0 * PI * (double)k * t / a->n;
                    double xr = p[0], xi = a->c == 2 ? p[1] : 0.0;
                    re += xr * cos(ang) - xi * s * sin(ang);
                    im += xr * s * sin(ang) + xi * cos(ang);
                }
                if (a->inverse) {
                    re /= a->n;
                    im /= a->n;
                }
                {
                    const float *g = y + (((size_t)o * a->nout + k) * a->inner + q) * 2;
                    double m = fmax(fmax(fabs(re), fabs(im)), 1.0);
                    err = fmax(err, fmax(fabs(g[0] - re), fabs(g[1] - im)) / m);
                }
            }
    return err;
}

/* real and complex, forward and inverse, padded and truncated, one-sided,
 * an inner axis of 3 */
START_TEST(test_dft)
{
    static const int shapes[][7] = {
        /* outer len inner c n nout inverse */
        {1, 10, 10, 1, 10, 10, 0},
        {2, 12, 3, 1, 16, 9, 0},
        {1, 7, 1, 2, 7, 7, 1},
        {3, 20, 2, 2, 13, 13, 0},
        {1, 64, 1, 1, 64, 33, 0},
        {2, 5, 4, 2, 9, 9, 1},
        {2, 20, 3, 2, 8, 8, 1},
        {1, 3, 2, 1, 2, 2, 0},
    };
    const int *s = shapes[_i];
    ln_rt_dft_args a = {s[0], s[1], s[2], s[3], s[4], s[5], s[6]};
    size_t nx = (size_t)a.outer * a.len * a.inner * a.c, ny = (size_t)a.outer * a.nout * a.inner * 2;
    float *x = rt_alloc(nx), *y = rt_alloc(ny);
    void *scratch = malloc(ln_rt_dft_scratch_size(&a));

    rt_fill(x, nx, -1.0f, 1.0f, 3u + (uint32_t)_i);
    ck_assert_int_eq(ln_rt_dft_f32(&a, x, y, scratch), LN_RT_OK);
    ck_assert_double_le(ref_dft_err(&a, x, y), 2e-5);
    a.nout = a.n + 1;
    ck_assert_int_eq(ln_rt_dft_f32(&a, x, y, scratch), LN_RT_ARG_ERROR);
    free(x); free(y); free(scratch);
}
END_TEST

/* frames of a real signal times a window, and of a complex one without */
START_TEST(test_stft)
{
    ln_rt_stft_args a = {2, 50, 1 + _i % 2, 7, 0, _i < 2 ? 12 : 16, 0};
    float *x, *y, w[16];
    void *scratch;
    double err = 0.0;

    a.frames = (a.len - a.n) / a.step + 1;
    a.nout = _i % 2 ? a.n : a.n / 2 + 1;
    x = rt_alloc((size_t)a.batch * a.len * a.c);
    y = rt_alloc((size_t)a.batch * a.frames * a.nout * 2);
    scratch = malloc(ln_rt_stft_scratch_size(&a));
    rt_fill(x, (size_t)a.batch * a.len * a.c, -1.0f, 1.0f, 7u);
    rt_fill(w, 16, 0.0f, 1.0f, 8u);
    ck_assert_int_eq(ln_rt_stft_f32(&a, x, _i % 2 ? NULL : w, y, scratch), LN_RT_OK);
    for (int b = 0; b < a.batch; b++)
        for (int f = 0; f < a.frames; f++)
            for (int k = 0; k < a.nout; k++) {
                double re = 0.0, im = 0.0, m;
                const float *g = y + (((size_t)b * a.frames + f) * a.nout + k) * 2;
                for (int t = 0; t < a.n; t++) {
                    const float *p = x + ((size_t)b * a.len + f * a.step + t) * a.c;
                    double ang = 2.0 * PI * k * t / a.n, wt = _i % 2 ? 1.0 : w[t];
                    double xr = p[0] * wt, xi = a.c == 2 ? p[1] * wt : 0.0;
                    re += xr * cos(ang) + xi * sin(ang);
                    im += -xr * sin(ang) + xi * cos(ang);
                }
                m = fmax(fmax(fabs(re), fabs(im)), 1.0);
                err = fmax(err, fmax(fabs(g[0] - re), fabs(g[1] - im)) / m);
            }
    ck_assert_double_le(err, 2e-5);
    free(x); free(y); free(scratch);
}
END_TEST

/* ONNX's MelWeightMatrix example (8 bins, DFT 16, 8192 Hz, 0 to 4096 Hz):
 * ones at (0,0) (0,1) (1,2) (1,3) (2,4) (3,5) (4,6) (5,7), zeros elsewhere */
START_TEST(test_mel)
{
    static const int ones[8][2] = {{0, 0}, {0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 5}, {4, 6}, {5, 7}};
    float y[9 * 8];
    int n1 = 0;

    ln_rt_mel_weight_matrix_f32(8, 16, 8192, 0.0f, 4096.0f, y);
    for (int k = 0; k < 8; k++)
        ck_assert(y[ones[k][0] * 8 + ones[k][1]] == 1.0f);
    for (int i = 0; i < 72; i++) {
        ck_assert(y[i] == 0.0f || y[i] == 1.0f);
        n1 += y[i] == 1.0f;
    }
    ck_assert_int_eq(n1, 8);
}
END_TEST

Suite *rt_spectral_suite(void)
{
    Suite *s = suite_create("rt_spectral");
    TCase *tc = tcase_create("spectral");
    tcase_add_test(tc, test_windows);
    tcase_add_loop_test(tc, test_dft, 0, 8);
    tcase_add_loop_test(tc, test_stft, 0, 4);
    tcase_add_test(tc, test_mel);
    suite_add_tcase(s, tc);
    return s;
}
