/*
 * spectral.c -- the ONNX audio front end: the Hann, Hamming and Blackman
 * windows, DFT (real or complex input, one-sided, inverse, zero padding or
 * truncation to a DFT length), STFT and the mel filter bank matrix.
 *
 * The DFT runs in double over a table of the n twiddles cos, sin(2 pi j /
 * n) in scratch (no malloc in the runtime).  A power-of-two n takes an
 * iterative radix-2 FFT (bit-reversed copy of the zero-padded input into a
 * second n-point buffer of scratch, log2 n butterfly passes), O(n log n);
 * any other n sums directly, O(n * bins), the index k * t walked modulo n,
 * so no trig call runs in the loop and the angle never loses precision
 * for large k * t.
 */
#include <math.h>
#include "ln_rt_internal.h"

#define TWO_PI 6.283185307179586476925286766559

void ln_rt_window_f32(ln_rt_window_kind kind, int32_t n, int32_t periodic, float *y)
{
    double d = periodic ? (double)n : (double)(n - 1);

    for (int32_t i = 0; i < n; i++) {
        double t = d > 0.0 ? TWO_PI * (double)i / d : 0.0, v;
        switch (kind) {
        case LN_RT_WINDOW_HAMMING:
            v = 25.0 / 46.0 - 21.0 / 46.0 * cos(t);
            break;
        case LN_RT_WINDOW_BLACKMAN:
            v = 0.42 - 0.5 * cos(t) + 0.08 * cos(2.0 * t);
            break;
        case LN_RT_WINDOW_HANN:
        default:
            v = 0.5 - 0.5 * cos(t);
            break;
        }
        y[i] = d > 0.0 ? (float)v : 1.0f;
    }
}

static void twiddles(int32_t n, double *tw)
{
    for (int32_t j = 0; j < n; j++) {
        tw[2 * j] = cos(TWO_PI * (double)j / (double)n);
        tw[2 * j + 1] = sin(TWO_PI * (double)j / (double)n);
    }
}

/* The radix-2 FFT of m input points (as dft_1d's), zero padded to n, a
 * power of two, in buf (2 n doubles); nout bins into y. */
static void fft_1d(const float *x, size_t xs, int32_t c, int32_t m, const float *win,
                   int32_t n, int32_t nout, int32_t inverse, const double *tw, double *buf,
                   float *y, size_t ys)
{
    double sign = inverse ? 1.0 : -1.0, scale = inverse ? 1.0 / (double)n : 1.0;
    int32_t bits = 0;

    while ((1 << bits) < n)
        bits++;
    /* buf[rev(t)] = x[t] */
    for (int32_t t = 0; t < n; t++) {
        int32_t r = 0;
        for (int32_t b = 0; b < bits; b++)
            r |= ((t >> b) & 1) << (bits - 1 - b);
        if (t < m) {
            const float *p = x + (size_t)t * xs;
            double w = win ? (double)win[t] : 1.0;
            buf[2 * r] = p[0] * w;
            buf[2 * r + 1] = c == 2 ? p[1] * w : 0.0;
        } else {
            buf[2 * r] = buf[2 * r + 1] = 0.0;
        }
    }
    for (int32_t len = 2; len <= n; len <<= 1) {
        int32_t half = len >> 1, step = n / len;
        for (int32_t i = 0; i < n; i += len)
            for (int32_t k = 0; k < half; k++) {
                double wr = tw[2 * k * step], wi = sign * tw[2 * k * step + 1];
                double *u = buf + 2 * (i + k), *v = buf + 2 * (i + k + half);
                double vr = v[0] * wr - v[1] * wi, vi = v[0] * wi + v[1] * wr;
                v[0] = u[0] - vr;
                v[1] = u[1] - vi;
                u[0] += vr;
                u[1] += vi;
            }
    }
    for (int32_t k = 0; k < nout; k++) {
        y[(size_t)k * ys] = (float)(buf[2 * k] * scale);
        y[(size_t)k * ys + 1] = (float)(buf[2 * k + 1] * scale);
    }
}

/* One transform: m input points x[t * xs] (c floats each, (re[, im])),
 * each times win[t] when win, of a length-n DFT; nout bins into y[k * ys]
 * as (re, im).  tw holds the twiddles, then 2 n doubles for the FFT. */
static void dft_1d(const float *x, size_t xs, int32_t c, int32_t m, const float *win,
                   int32_t n, int32_t nout, int32_t inverse, double *tw,
                   float *y, size_t ys)
{
    double sign = inverse ? 1.0 : -1.0, scale = inverse ? 1.0 / (double)n : 1.0;

    if (n >= 2 && (n & (n - 1)) == 0) {
        fft_1d(x, xs, c, m, win, n, nout, inverse, tw, tw + 2 * (size_t)n, y, ys);
        return;
    }

    for (int32_t k = 0; k < nout; k++) {
        double re = 0.0, im = 0.0;
        int32_t j = 0;                  /* k * t mod n */
        int32_t step = (int32_t)((int64_t)k % n);
        for (int32_t t = 0; t < m; t++) {
            const float *p = x + (size_t)t * xs;
            double w = win ? (double)win[t] : 1.0;
            double xr = p[0] * w, xi = c == 2 ? p[1] * w : 0.0;
            double cr = tw[2 * j], s = sign * tw[2 * j + 1];
            re += xr * cr - xi * s;
            im += xr * s + xi * cr;
            j += step;
            if (j >= n)
                j -= n;
        }
        y[(size_t)k * ys] = (float)(re * scale);
        y[(size_t)k * ys + 1] = (float)(im * scale);
    }
}

size_t ln_rt_dft_scratch_size(const ln_rt_dft_args *a)
{
    return a->n > 0 ? (size_t)a->n * 4 * sizeof(double) : 0;
}

int ln_rt_dft_f32(const ln_rt_dft_args *a, const float *x, float *y, void *scratch)
{
    double *tw = scratch;   /* twiddles, then the FFT's buffer */
    int32_t m;

    if (a->outer < 0 || a->len < 1 || a->inner < 0 || (a->c != 1 && a->c != 2) ||
        a->n < 1 || a->nout < 1 || a->nout > a->n || !scratch)
        return LN_RT_ARG_ERROR;
    m = a->len < a->n ? a->len : a->n;
    twiddles(a->n, tw);
    for (int32_t o = 0; o < a->outer; o++)
        for (int32_t q = 0; q < a->inner; q++)
            dft_1d(x + ((size_t)o * a->len * a->inner + q) * a->c, (size_t)a->inner * a->c,
                   a->c, m, NULL, a->n, a->nout, a->inverse, tw,
                   y + ((size_t)o * a->nout * a->inner + q) * 2, (size_t)a->inner * 2);
    return LN_RT_OK;
}

size_t ln_rt_stft_scratch_size(const ln_rt_stft_args *a)
{
    return a->n > 0 ? (size_t)a->n * 4 * sizeof(double) : 0;
}

int ln_rt_stft_f32(const ln_rt_stft_args *a, const float *x, const float *window, float *y,
                   void *scratch)
{
    double *tw = scratch;

    if (a->batch < 0 || (a->c != 1 && a->c != 2) || a->step < 1 || a->frames < 1 ||
        a->n < 1 || a->nout < 1 || a->nout > a->n ||
        (int64_t)(a->frames - 1) * a->step + a->n > a->len || !scratch)
        return LN_RT_ARG_ERROR;
    twiddles(a->n, tw);
    for (int32_t b = 0; b < a->batch; b++)
        for (int32_t f = 0; f < a->frames; f++)
            dft_1d(x + ((size_t)b * a->len + (size_t)f * a->step) * a->c, (size_t)a->c, a->c,
                   a->n, window, a->n, a->nout, 0, tw,
                   y + ((size_t)b * a->frames + f) * a->nout * 2, 2);
    return LN_RT_OK;
}

void ln_rt_mel_weight_matrix_f32(int32_t bins, int32_t dft_length, int32_t sample_rate,
                                 float lower_hz, float upper_hz, float *y)
{
    int32_t nspec = dft_length / 2 + 1;
    double lo = 2595.0 * log10(1.0 + (double)lower_hz / 700.0);
    double hi = 2595.0 * log10(1.0 + (double)upper_hz / 700.0);
    double step = (hi - lo) / (double)(bins + 2);

    for (int32_t i = 0; i < nspec * bins; i++)
        y[i] = 0.0f;
    for (int32_t i = 0; i < bins; i++) {
        int64_t p[3];
        for (int k = 0; k < 3; k++) {
            double mel = (double)(i + k) * step + lo;
            double hz = 700.0 * (pow(10.0, mel / 2595.0) - 1.0);
            p[k] = (int64_t)floor((double)(dft_length + 1) * hz / (double)sample_rate);
        }
        /* rising edge lo..center (a point where they meet), falling center..hi */
        if (p[1] == p[0]) {
            if (p[1] >= 0 && p[1] < nspec)
                y[p[1] * bins + i] = 1.0f;
        } else {
            for (int64_t j = p[0]; j <= p[1]; j++)
                if (j >= 0 && j < nspec)
                    y[j * bins + i] = (float)((double)(j - p[0]) / (double)(p[1] - p[0]));
        }
        for (int64_t j = p[1]; j < p[2]; j++)
            if (j >= 0 && j < nspec)
                y[j * bins + i] = (float)((double)(p[2] - j) / (double)(p[2] - p[1]));
    }
}
