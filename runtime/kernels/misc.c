/*
 * misc.c -- small ONNX ops without a family: Compress (a constant
 * condition's slices), EyeLike, ReverseSequence, MeanVarianceNormalization
 * and Det (LU with partial pivoting, one matrix of scratch).  Plain loops.
 */
#include <math.h>
#include <string.h>
#include "ln_rt_internal.h"

void ln_rt_compress(const ln_rt_compress_args *a, const int *cond, int32_t cond_len,
                    size_t elem_size, const void *x, void *y)
{
    size_t row = (size_t)a->inner * elem_size;
    int32_t n = cond_len < a->len ? cond_len : a->len;
    const char *src = x;
    char *dst = y;

    for (int32_t o = 0; o < a->outer; o++) {
        for (int32_t j = 0; j < n; j++)
            if (cond[j]) {
                memcpy(dst, src + (size_t)j * row, row);
                dst += row;
            }
        src += (size_t)a->len * row;
    }
}

int ln_rt_eyelike(int32_t rows, int32_t cols, int64_t k, ln_rt_dtype dtype, void *y)
{
    size_t es;
    unsigned char one[8] = {0};

    switch (dtype) {
    case LN_RT_FLOAT32: { float v = 1.0f; memcpy(one, &v, 4); es = 4; break; }
    case LN_RT_FLOAT64: { double v = 1.0; memcpy(one, &v, 8); es = 8; break; }
    case LN_RT_FLOAT16: { uint16_t v = 0x3c00u; memcpy(one, &v, 2); es = 2; break; }
    case LN_RT_INT8: case LN_RT_UINT8: case LN_RT_BOOL: { uint8_t v = 1; memcpy(one, &v, 1); es = 1; break; }
    case LN_RT_INT16: case LN_RT_UINT16: { uint16_t v = 1; memcpy(one, &v, 2); es = 2; break; }
    case LN_RT_INT32: case LN_RT_UINT32: { uint32_t v = 1; memcpy(one, &v, 4); es = 4; break; }
    case LN_RT_INT64: case LN_RT_UINT64: { uint64_t v = 1; memcpy(one, &v, 8); es = 8; break; }
    default: return LN_RT_ARG_ERROR;
    }
    if (rows < 0 || cols < 0)
        return LN_RT_ARG_ERROR;
    memset(y, 0, (size_t)rows * cols * es);
    for (int32_t i = 0; i < rows; i++) {
        int64_t j = (int64_t)i + k;
        if (j >= 0 && j < cols)
            memcpy((char *)y + ((size_t)i * cols + (size_t)j) * es, one, es);
    }
    return LN_RT_OK;
}

void ln_rt_reverse_sequence(const ln_rt_reverse_sequence_args *a, size_t elem_size,
                            const int64_t *lens, const void *x, void *y)
{
    size_t row = (size_t)a->inner * elem_size;
    /* element strides of a time step and a batch entry, in rows */
    size_t ts = a->time_axis == 0 ? (size_t)a->batch : 1;
    size_t bs = a->time_axis == 0 ? 1 : (size_t)a->time;

    for (int32_t b = 0; b < a->batch; b++) {
        int64_t n = lens[b] < 0 ? 0 : (lens[b] > a->time ? a->time : lens[b]);
        for (int32_t t = 0; t < a->time; t++) {
            int64_t s = t < n ? n - 1 - t : t;
            memcpy((char *)y + ((size_t)b * bs + (size_t)t * ts) * row,
                   (const char *)x + ((size_t)b * bs + (size_t)s * ts) * row, row);
        }
    }
}

/* The offset of the g-th combination of the axes in (mask == want). */
static size_t mvn_offset(const ln_rt_reduce_args *a, uint32_t want, size_t g)
{
    size_t off = 0, stride = 1;
    for (int d = a->ndim - 1; d >= 0; d--) {
        if (((a->axes_mask >> d) & 1u) == want) {
            off += (g % (size_t)a->dims[d]) * stride;
            g /= (size_t)a->dims[d];
        }
        stride *= (size_t)a->dims[d];
    }
    return off;
}

void ln_rt_mvn_f32(const ln_rt_reduce_args *a, const float *x, float *y)
{
    size_t groups = 1, r = 1;

    for (int d = 0; d < a->ndim; d++) {
        if ((a->axes_mask >> d) & 1u)
            r *= (size_t)a->dims[d];
        else
            groups *= (size_t)a->dims[d];
    }
    for (size_t g = 0; g < groups; g++) {
        size_t base = mvn_offset(a, 0u, g);
        double s = 0.0, s2 = 0.0, mean, sd;
        for (size_t i = 0; i < r; i++) {
            double v = x[base + mvn_offset(a, 1u, i)];
            s += v;
            s2 += v * v;
        }
        mean = s / (double)r;
        sd = s2 / (double)r - mean * mean;
        sd = sqrt(sd > 0.0 ? sd : 0.0) + 1e-9;
        for (size_t i = 0; i < r; i++) {
            size_t o = base + mvn_offset(a, 1u, i);
            y[o] = (float)(((double)x[o] - mean) / sd);
        }
    }
}

size_t ln_rt_det_scratch_size(int32_t n)
{
    return n > 0 ? (size_t)n * n * sizeof(double) : 0;
}

void ln_rt_det_f32(int32_t batch, int32_t n, const float *x, float *y, void *scratch)
{
    double *m = scratch;

    for (int32_t b = 0; b < batch; b++) {
        const float *xb = x + (size_t)b * n * n;
        double det = 1.0;
        for (size_t i = 0; i < (size_t)n * n; i++)
            m[i] = xb[i];
        for (int32_t c = 0; c < n && det != 0.0; c++) {
            int32_t p = c;
            for (int32_t i = c + 1; i < n; i++)
                if (fabs(m[(size_t)i * n + c]) > fabs(m[(size_t)p * n + c]))
                    p = i;
            if (m[(size_t)p * n + c] == 0.0) {
                det = 0.0;
                break;
            }
            if (p != c) {
                for (int32_t j = 0; j < n; j++) {
                    double t = m[(size_t)c * n + j];
                    m[(size_t)c * n + j] = m[(size_t)p * n + j];
                    m[(size_t)p * n + j] = t;
                }
                det = -det;
            }
            det *= m[(size_t)c * n + c];
            for (int32_t i = c + 1; i < n; i++) {
                double f = m[(size_t)i * n + c] / m[(size_t)c * n + c];
                for (int32_t j = c + 1; j < n; j++)
                    m[(size_t)i * n + j] -= f * m[(size_t)c * n + j];
            }
        }
        y[b] = (float)det;
    }
}

/* ---- nonzero ---------------------------------------------------------- */
static int nonzero_at(size_t elem_size, int is_float, const void *x, size_t i)
{
    const unsigned char *p = (const unsigned char *)x + i * elem_size;

    if (is_float && elem_size == 4) {
        float f;
        memcpy(&f, p, sizeof f);
        return f != 0.0f;
    }
    if (is_float && elem_size == 8) {
        double d;
        memcpy(&d, p, sizeof d);
        return d != 0.0;
    }
    for (size_t b = 0; b < elem_size; b++)
        if (p[b])
            return 1;
    return 0;
}

size_t ln_rt_nonzero(int32_t ndim, const int32_t *dims, size_t elem_size, int is_float,
                     const void *x, int64_t *idx)
{
    size_t len = 1, n = 0, k = 0;

    for (int32_t d = 0; d < ndim; d++)
        len *= (size_t)dims[d];
    for (size_t i = 0; i < len; i++)
        n += (size_t)nonzero_at(elem_size, is_float, x, i);
    if (!idx)
        return n;
    for (size_t i = 0; i < len; i++) {
        size_t r = i;
        if (!nonzero_at(elem_size, is_float, x, i))
            continue;
        for (int32_t d = ndim - 1; d >= 0; d--) {
            idx[(size_t)d * n + k] = (int64_t)(r % (size_t)dims[d]);
            r /= (size_t)dims[d];
        }
        k++;
    }
    return n;
}
