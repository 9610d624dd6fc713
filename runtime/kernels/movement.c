/*
 * movement.c -- data-movement kernels: slice, concat, split, transpose,
 * tile/expand, gather, gather/scatter elements and ND, pad,
 * depth_to_space, space_to_depth, trilu, onehot and casts.
 * Shape-generic ones walk the destination in order with an index counter
 * and copy whole innermost rows with memcpy where they are contiguous.
 * They never allocate; none is in-place safe except the equal-size casts.
 */
#include <string.h>
#include "ln_rt_internal.h"

/* copy one element of size es */
static void copy_elem(char *d, const char *s, size_t es)
{
    switch (es) {
    case 4: memcpy(d, s, 4); break;
    case 8: memcpy(d, s, 8); break;
    case 2: memcpy(d, s, 2); break;
    case 1: *d = *s; break;
    default: memcpy(d, s, es);
    }
}

static void strides_of(int nd, const int32_t *dims, ptrdiff_t *st)
{
    ptrdiff_t s = 1;
    int d;
    for (d = nd - 1; d >= 0; d--) {
        st[d] = s;
        s *= dims[d];
    }
}

static size_t count_of(int nd, const int32_t *dims)
{
    size_t c = 1;
    int d;
    for (d = 0; d < nd; d++)
        c *= (size_t)dims[d];
    return c;
}

/* ---- slice ---------------------------------------------------------- */
void ln_rt_slice(const ln_rt_slice_args *a, size_t es, const void *src,
                 void *dst)
{
    ptrdiff_t st[LN_RT_MAX_DIMS];
    int32_t cnt[LN_RT_MAX_DIMS] = {0};
    const char *s = src;
    char *o = dst;
    ptrdiff_t base = 0, inner_step;
    int32_t len, i;
    int nd = a->ndim, d;

    if (nd == 0) {
        copy_elem(o, s, es);
        return;
    }
    if (count_of(nd, a->dst_dims) == 0)
        return;
    strides_of(nd, a->src_dims, st);
    for (d = 0; d < nd; d++)
        base += (ptrdiff_t)a->starts[d] * st[d];
    len = a->dst_dims[nd - 1];
    inner_step = a->steps[nd - 1];
    for (;;) {
        const char *p = s + base * (ptrdiff_t)es;
        if (inner_step == 1) {
            memcpy(o, p, (size_t)len * es);
        } else {
            for (i = 0; i < len; i++)
                copy_elem(o + (size_t)i * es,
                          p + (ptrdiff_t)i * inner_step * (ptrdiff_t)es, es);
        }
        o += (size_t)len * es;
        for (d = nd - 2; d >= 0; d--) {
            base += (ptrdiff_t)a->steps[d] * st[d];
            if (++cnt[d] < a->dst_dims[d])
                break;
            base -= (ptrdiff_t)a->steps[d] * st[d] * a->dst_dims[d];
            cnt[d] = 0;
        }
        if (d < 0)
            return;
    }
}

void ln_rt_slice_f32(const ln_rt_slice_args *a, const float *src, float *dst)
{
    ln_rt_slice(a, sizeof(float), src, dst);
}

/* ---- concat / split ------------------------------------------------- */
void ln_rt_concat(int nsrc, const void *const *src, const int32_t *axis_dims,
                  int32_t outer, int32_t inner, size_t es, void *dst)
{
    char *o = dst;
    int32_t i;
    int k;
    for (i = 0; i < outer; i++) {
        for (k = 0; k < nsrc; k++) {
            size_t row = (size_t)axis_dims[k] * (size_t)inner * es;
            const char *from = (const char *)src[k] + (size_t)i * row;
            if (from != o)      /* the planner may have produced it in place */
                memcpy(o, from, row);
            o += row;
        }
    }
}

void ln_rt_concat_f32(int nsrc, const float *const *src,
                      const int32_t *axis_dims, int32_t outer, int32_t inner,
                      float *dst)
{
    int32_t i;
    int k;
    for (i = 0; i < outer; i++) {
        for (k = 0; k < nsrc; k++) {
            size_t row = (size_t)axis_dims[k] * (size_t)inner;
            const float *from = src[k] + (size_t)i * row;
            if (from != dst)    /* the planner may have produced it in place */
                memcpy(dst, from, row * sizeof(float));
            dst += row;
        }
    }
}

void ln_rt_split(const void *src, int ndst, void *const *dst,
                 const int32_t *axis_dims, int32_t outer, int32_t inner,
                 size_t es)
{
    const char *s = src;
    int32_t i;
    int k;
    for (i = 0; i < outer; i++) {
        for (k = 0; k < ndst; k++) {
            size_t row = (size_t)axis_dims[k] * (size_t)inner * es;
            memcpy((char *)dst[k] + (size_t)i * row, s, row);
            s += row;
        }
    }
}

void ln_rt_split_f32(const float *src, int ndst, float *const *dst,
                     const int32_t *axis_dims, int32_t outer, int32_t inner)
{
    int32_t i;
    int k;
    for (i = 0; i < outer; i++) {
        for (k = 0; k < ndst; k++) {
            size_t row = (size_t)axis_dims[k] * (size_t)inner;
            memcpy(dst[k] + (size_t)i * row, src, row * sizeof(float));
            src += row;
        }
    }
}

/* ---- transpose ------------------------------------------------------ */
void ln_rt_transpose(const ln_rt_transpose_args *a, size_t es,
                     const void *src, void *dst)
{
    ptrdiff_t sst[LN_RT_MAX_DIMS], tst[LN_RT_MAX_DIMS];
    int32_t ddims[LN_RT_MAX_DIMS], cnt[LN_RT_MAX_DIMS] = {0};
    const char *s = src;
    char *o = dst;
    ptrdiff_t base = 0, is;
    int32_t len, i;
    int nd = a->ndim, d;

    if (nd == 0) {
        copy_elem(o, s, es);
        return;
    }
    if (count_of(nd, a->src_dims) == 0)
        return;
    strides_of(nd, a->src_dims, sst);
    for (d = 0; d < nd; d++) {
        ddims[d] = a->src_dims[a->perm[d]];
        tst[d] = sst[a->perm[d]];
    }
    len = ddims[nd - 1];
    is = tst[nd - 1];
    for (;;) {
        const char *p = s + base * (ptrdiff_t)es;
        if (is == 1) {
            memcpy(o, p, (size_t)len * es);
        } else if (es == 4) {
            for (i = 0; i < len; i++)
                memcpy(o + (size_t)i * 4, p + (ptrdiff_t)i * is * 4, 4);
        } else {
            for (i = 0; i < len; i++)
                copy_elem(o + (size_t)i * es, p + (ptrdiff_t)i * is *
                          (ptrdiff_t)es, es);
        }
        o += (size_t)len * es;
        for (d = nd - 2; d >= 0; d--) {
            base += tst[d];
            if (++cnt[d] < ddims[d])
                break;
            base -= tst[d] * ddims[d];
            cnt[d] = 0;
        }
        if (d < 0)
            return;
    }
}

void ln_rt_transpose_f32(const ln_rt_transpose_args *a, const float *src,
                         float *dst)
{
    ln_rt_transpose(a, sizeof(float), src, dst);
}

/* ---- tile / expand -------------------------------------------------- */
void ln_rt_tile(const ln_rt_tile_args *a, size_t es, const void *src,
                void *dst)
{
    ptrdiff_t sst[LN_RT_MAX_DIMS];
    int32_t cnt[LN_RT_MAX_DIMS] = {0};
    const char *s = src;
    char *o = dst;
    int32_t len, slen, i;
    int nd = a->ndim, d;

    if (nd == 0) {
        copy_elem(o, s, es);
        return;
    }
    if (count_of(nd, a->dst_dims) == 0)
        return;
    strides_of(nd, a->src_dims, sst);
    len = a->dst_dims[nd - 1];
    slen = a->src_dims[nd - 1];
    for (;;) {
        ptrdiff_t base = 0;
        for (d = 0; d < nd - 1; d++)
            base += (ptrdiff_t)(cnt[d] % a->src_dims[d]) * sst[d];
        if (slen == 1) {
            for (i = 0; i < len; i++)
                copy_elem(o + (size_t)i * es, s + base * (ptrdiff_t)es, es);
        } else {
            for (i = 0; i < len; i += slen)
                memcpy(o + (size_t)i * es, s + base * (ptrdiff_t)es,
                       (size_t)(len - i < slen ? len - i : slen) * es);
        }
        o += (size_t)len * es;
        for (d = nd - 2; d >= 0; d--) {
            if (++cnt[d] < a->dst_dims[d])
                break;
            cnt[d] = 0;
        }
        if (d < 0)
            return;
    }
}

void ln_rt_tile_f32(const ln_rt_tile_args *a, const float *src, float *dst)
{
    ln_rt_tile(a, sizeof(float), src, dst);
}

void ln_rt_expand_f32(const ln_rt_tile_args *a, const float *src, float *dst)
{
    ln_rt_tile(a, sizeof(float), src, dst);
}

/* ---- gather --------------------------------------------------------- */
int ln_rt_gather(int32_t outer, int32_t len, int32_t inner,
                 const int64_t *indices, int32_t n_idx, size_t es,
                 const void *src, void *dst)
{
    size_t row = (size_t)inner * es;
    char *o = dst;
    int32_t i, j;
    for (j = 0; j < n_idx; j++)
        if (indices[j] < -(int64_t)len || indices[j] >= len)
            return LN_RT_ARG_ERROR;
    for (i = 0; i < outer; i++) {
        const char *s = (const char *)src + (size_t)i * (size_t)len * row;
        for (j = 0; j < n_idx; j++) {
            int64_t k = indices[j] < 0 ? indices[j] + len : indices[j];
            memcpy(o, s + (size_t)k * row, row);
            o += row;
        }
    }
    return LN_RT_OK;
}

int ln_rt_gather_f32(int32_t outer, int32_t len, int32_t inner,
                     const int64_t *indices, int32_t n_idx, const float *src,
                     float *dst)
{
    return ln_rt_gather(outer, len, inner, indices, n_idx, sizeof(float),
                        src, dst);
}

/* ---- pad ------------------------------------------------------------ */
/* map a destination coordinate to a source one; -1 = outside (constant) */
static int32_t pad_map(int32_t i, int32_t n, ln_rt_pad_mode mode)
{
    if (i >= 0 && i < n)
        return i;
    if (mode == LN_RT_PAD_EDGE)
        return i < 0 ? 0 : n - 1;
    if (mode == LN_RT_PAD_REFLECT) {
        if (n == 1)
            return 0;
        /* reflect without repeating the edge; periodic beyond 2(n-1) */
        {
            int32_t p = 2 * (n - 1);
            i %= p;
            if (i < 0)
                i += p;
            return i < n ? i : p - i;
        }
    }
    return -1;
}

/* Pad moves elements: one kernel for every element size. Each dst row
 * (the last axis) is the fill, or the source row's middle as one copy
 * with its borders mapped element by element. */
int ln_rt_pad(const ln_rt_pad_args *a, size_t es, const void *src, const void *value, void *dst)
{
    const unsigned char *fill = value ? (const unsigned char *)value : a->fill;
    unsigned char *o = dst;
    int32_t ddims[LN_RT_MAX_DIMS], cnt[LN_RT_MAX_DIMS] = {0};
    ptrdiff_t sst[LN_RT_MAX_DIMS];
    int nd = a->ndim, d;
    int32_t len, slen, pb, i, lo, hi;

    if (nd < 1 || nd > LN_RT_MAX_DIMS || es < 1 || (!value && es > sizeof(a->fill)))
        return LN_RT_ARG_ERROR;
    for (d = 0; d < nd; d++) {
        ddims[d] = a->src_dims[d] + a->pads_begin[d] + a->pads_end[d];
        if (ddims[d] < 0)
            return LN_RT_ARG_ERROR;
        if (a->mode != LN_RT_PAD_CONSTANT && a->src_dims[d] == 0 && ddims[d] > 0)
            return LN_RT_ARG_ERROR;
        if (a->mode == LN_RT_PAD_REFLECT &&
            (a->pads_begin[d] >= a->src_dims[d] || a->pads_end[d] >= a->src_dims[d]) &&
            (a->pads_begin[d] > 0 || a->pads_end[d] > 0) && a->src_dims[d] > 1)
            return LN_RT_ARG_ERROR;
    }
    if (count_of(nd, ddims) == 0)
        return LN_RT_OK;
    strides_of(nd, a->src_dims, sst);
    len = ddims[nd - 1];
    slen = a->src_dims[nd - 1];
    pb = a->pads_begin[nd - 1];
    /* dst columns [lo, hi) read source columns [lo - pb, hi - pb) in order */
    lo = pb > 0 ? pb : 0;
    hi = pb + slen < len ? pb + slen : len;
    if (hi < lo)
        hi = lo;
    for (;;) {
        ptrdiff_t base = 0;
        int inside = 1;
        for (d = 0; d < nd - 1; d++) {
            int32_t s = pad_map(cnt[d] - a->pads_begin[d], a->src_dims[d], a->mode);
            if (s < 0) {
                inside = 0;
                break;
            }
            base += (ptrdiff_t)s * sst[d];
        }
        if (!inside) {
            for (i = 0; i < len; i++)
                memcpy(o + (size_t)i * es, fill, es);
        } else {
            const unsigned char *p = (const unsigned char *)src + (size_t)base * es;
            if (hi > lo)
                memcpy(o + (size_t)lo * es, p + (size_t)(lo - pb) * es, (size_t)(hi - lo) * es);
            for (i = 0; i < len; i++) {
                int32_t s;
                if (i == lo && hi > lo)
                    i = hi;             /* the middle is copied */
                if (i >= len)
                    break;
                s = pad_map(i - pb, slen, a->mode);
                memcpy(o + (size_t)i * es, s < 0 ? fill : p + (size_t)s * es, es);
            }
        }
        o += (size_t)len * es;
        for (d = nd - 2; d >= 0; d--) {
            if (++cnt[d] < ddims[d])
                break;
            cnt[d] = 0;
        }
        if (d < 0)
            return LN_RT_OK;
    }
}

/* the typed entry points: a->value as the element (int8: the tensor's own
 * value, a zero point: the fusion of a QDQ Pad sets it so) */
int ln_rt_pad_f32(const ln_rt_pad_args *a, const float *src, float *dst)
{
    float v = a->value;
    return ln_rt_pad(a, sizeof(float), src, &v, dst);
}

int ln_rt_pad_s8(const ln_rt_pad_args *a, const int8_t *src, int8_t *dst)
{
    int8_t v = (int8_t)a->value;
    return ln_rt_pad(a, 1, src, &v, dst);
}

/* ---- depth_to_space / space_to_depth -------------------------------- */
void ln_rt_depth_to_space_f32(int32_t n, int32_t c, int32_t h, int32_t w,
                              int32_t bs, int crd, const float *x, float *y)
{
    int32_t oc = c / (bs * bs), b, k, i, j, yy, xx;
    for (b = 0; b < n; b++)
        for (k = 0; k < oc; k++)
            for (yy = 0; yy < h; yy++)
                for (i = 0; i < bs; i++) {
                    float *o = y + (((size_t)b * oc + k) * h * bs +
                                    (size_t)yy * bs + i) * (size_t)w * bs;
                    for (xx = 0; xx < w; xx++)
                        for (j = 0; j < bs; j++) {
                            int32_t ic = crd ? (k * bs + i) * bs + j
                                             : (i * bs + j) * oc + k;
                            o[xx * bs + j] =
                                x[(((size_t)b * c + ic) * h + yy) * w + xx];
                        }
                }
}

void ln_rt_space_to_depth_f32(int32_t n, int32_t c, int32_t h, int32_t w,
                              int32_t bs, const float *x, float *y)
{
    int32_t oh = h / bs, ow = w / bs, b, k, i, j, yy, xx;
    for (b = 0; b < n; b++)
        for (i = 0; i < bs; i++)
            for (j = 0; j < bs; j++)
                for (k = 0; k < c; k++) {
                    int32_t occ = (i * bs + j) * c + k;
                    for (yy = 0; yy < oh; yy++) {
                        float *o = y + (((size_t)b * c * bs * bs + occ) * oh
                                        + yy) * ow;
                        const float *s = x + (((size_t)b * c + k) * h +
                                              (size_t)yy * bs + i) * w + j;
                        for (xx = 0; xx < ow; xx++)
                            o[xx] = s[(size_t)xx * bs];
                    }
                }
}

/* ---- cast ----------------------------------------------------------- */
void ln_rt_cast_f32_i32(const float *x, int32_t *y, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = (int32_t)x[i];
}

void ln_rt_cast_f32_i64(const float *x, int64_t *y, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = (int64_t)x[i];
}

void ln_rt_cast_i32_f32(const int32_t *x, float *y, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = (float)x[i];
}

void ln_rt_cast_i64_f32(const int64_t *x, float *y, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = (float)x[i];
}

void ln_rt_cast_i32_i64(const int32_t *x, int64_t *y, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = x[i];
}

void ln_rt_cast_i64_i32(const int64_t *x, int32_t *y, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = (int32_t)x[i];
}

/* dst = cond ? x : y, the three broadcast to o_dims (ln_rt.h) */
void ln_rt_where(const ln_rt_where_args *a, size_t elem_size, const uint8_t *cond,
                 const void *x, const void *y, void *dst)
{
    size_t sc[LN_RT_MAX_DIMS], sx[LN_RT_MAX_DIMS], sy[LN_RT_MAX_DIMS];
    size_t c = 1, xs = 1, ys = 1, n = 1, ic = 0, ix = 0, iy = 0;
    int32_t cnt[LN_RT_MAX_DIMS] = {0};
    unsigned char *o = dst;
    int d;

    for (d = a->ndim - 1; d >= 0; d--) {
        sc[d] = a->c_dims[d] == 1 ? 0 : c;
        sx[d] = a->x_dims[d] == 1 ? 0 : xs;
        sy[d] = a->y_dims[d] == 1 ? 0 : ys;
        c *= (size_t)a->c_dims[d];
        xs *= (size_t)a->x_dims[d];
        ys *= (size_t)a->y_dims[d];
        n *= (size_t)a->o_dims[d];
    }
    for (size_t i = 0; i < n; i++) {
        const unsigned char *src = cond[ic] ? (const unsigned char *)x + ix * elem_size
                                            : (const unsigned char *)y + iy * elem_size;
        memcpy(o + i * elem_size, src, elem_size);
        for (d = a->ndim - 1; d >= 0; d--) {
            ic += sc[d];
            ix += sx[d];
            iy += sy[d];
            if (++cnt[d] < a->o_dims[d])
                break;
            ic -= sc[d] * (size_t)a->o_dims[d];
            ix -= sx[d] * (size_t)a->o_dims[d];
            iy -= sy[d] * (size_t)a->o_dims[d];
            cnt[d] = 0;
        }
    }
}

int ln_rt_gather_elements(const ln_rt_gather_elements_args *a, size_t elem_size,
                          const void *data, const int64_t *indices, void *dst)
{
    size_t dstride[LN_RT_MAX_DIMS], s = 1, n = 1, off = 0;
    int32_t cnt[LN_RT_MAX_DIMS] = {0};
    int d;

    for (d = a->ndim - 1; d >= 0; d--) {
        dstride[d] = s;
        s *= (size_t)a->data_dims[d];
        n *= (size_t)a->idx_dims[d];
    }
    for (size_t i = 0; i < n; i++) {
        int64_t k = indices[i], len = a->data_dims[a->axis];
        if (k < 0)
            k += len;
        if (k < 0 || k >= len)
            return LN_RT_ARG_ERROR;
        memcpy((unsigned char *)dst + i * elem_size,
               (const unsigned char *)data + (off + (size_t)k * dstride[a->axis]) * elem_size,
               elem_size);
        for (d = a->ndim - 1; d >= 0; d--) {
            if (d != a->axis)
                off += dstride[d];
            if (++cnt[d] < a->idx_dims[d])
                break;
            if (d != a->axis)
                off -= dstride[d] * (size_t)a->idx_dims[d];
            cnt[d] = 0;
        }
    }
    return LN_RT_OK;
}

void ln_rt_trilu(const ln_rt_trilu_args *a, int64_t k, int32_t upper, size_t elem_size,
                 const void *x, void *y)
{
    const unsigned char *src = x;
    unsigned char *dst = y;
    size_t row = (size_t)a->n * elem_size;

    for (int32_t b = 0; b < a->batch; b++)
        for (int32_t i = 0; i < a->m; i++) {
            /* kept: [lo, hi) of the row's columns */
            int64_t lo = upper ? i + k : 0, hi = upper ? a->n : i + k + 1;
            lo = lo < 0 ? 0 : lo > a->n ? a->n : lo;
            hi = hi < lo ? lo : hi > a->n ? a->n : hi;
            memset(dst, 0, (size_t)lo * elem_size);
            if (hi > lo)
                memcpy(dst + (size_t)lo * elem_size, src + (size_t)lo * elem_size,
                       (size_t)(hi - lo) * elem_size);
            memset(dst + (size_t)hi * elem_size, 0, (size_t)(a->n - hi) * elem_size);
            src += row;
            dst += row;
        }
}

/* dst = op(dst, src) for one element: reduction 0 copies, 1..4 are float32
 * add, mul, max, min. */
static void scatter_put(int32_t reduction, size_t elem_size, unsigned char *dst,
                        const unsigned char *src)
{
    float d, u;

    if (reduction == 0 || elem_size != sizeof(float)) {
        memcpy(dst, src, elem_size);
        return;
    }
    memcpy(&d, dst, sizeof d);
    memcpy(&u, src, sizeof u);
    d = reduction == 1 ? d + u : reduction == 2 ? d * u : reduction == 3 ? (u > d ? u : d)
                                                                         : (u < d ? u : d);
    memcpy(dst, &d, sizeof d);
}

int ln_rt_scatter_elements(const ln_rt_gather_elements_args *a, int32_t reduction,
                           size_t elem_size, const void *data, const int64_t *indices,
                           const void *updates, void *dst)
{
    size_t dstride[LN_RT_MAX_DIMS], s = 1, n = 1, off = 0;
    int32_t cnt[LN_RT_MAX_DIMS] = {0};
    int d;

    for (d = a->ndim - 1; d >= 0; d--) {
        dstride[d] = s;
        s *= (size_t)a->data_dims[d];
        n *= (size_t)a->idx_dims[d];
    }
    memcpy(dst, data, s * elem_size);
    for (size_t i = 0; i < n; i++) {
        int64_t k = indices[i], len = a->data_dims[a->axis];
        if (k < 0)
            k += len;
        if (k < 0 || k >= len)
            return LN_RT_ARG_ERROR;
        scatter_put(reduction, elem_size,
                    (unsigned char *)dst + (off + (size_t)k * dstride[a->axis]) * elem_size,
                    (const unsigned char *)updates + i * elem_size);
        for (d = a->ndim - 1; d >= 0; d--) {
            if (d != a->axis)
                off += dstride[d];
            if (++cnt[d] < a->idx_dims[d])
                break;
            if (d != a->axis)
                off -= dstride[d] * (size_t)a->idx_dims[d];
            cnt[d] = 0;
        }
    }
    return LN_RT_OK;
}

/* The element offset of index tuple t in one batch of data; -1 when out of
 * range. */
static int64_t nd_offset(const ln_rt_nd_args *a, const int64_t *t)
{
    int64_t off = 0;

    for (int32_t j = 0; j < a->k; j++) {
        int64_t v = t[j] < 0 ? t[j] + a->dims[j] : t[j];
        if (v < 0 || v >= a->dims[j])
            return -1;
        off = off * a->dims[j] + v;
    }
    return off * a->slice;
}

int ln_rt_gather_nd(const ln_rt_nd_args *a, size_t elem_size, const void *data,
                    const int64_t *indices, void *dst)
{
    size_t bsz = (size_t)a->slice;
    unsigned char *y = dst;

    for (int32_t j = 0; j < a->k; j++)
        bsz *= (size_t)a->dims[j];
    for (int64_t b = 0; b < a->batch; b++)
        for (int64_t c = 0; c < a->count; c++) {
            int64_t off = nd_offset(a, indices + (size_t)(b * a->count + c) * (size_t)a->k);
            if (off < 0)
                return LN_RT_ARG_ERROR;
            memcpy(y, (const unsigned char *)data + ((size_t)b * bsz + (size_t)off) * elem_size,
                   (size_t)a->slice * elem_size);
            y += (size_t)a->slice * elem_size;
        }
    return LN_RT_OK;
}

int ln_rt_scatter_nd(const ln_rt_nd_args *a, int32_t reduction, size_t elem_size,
                     const void *data, const int64_t *indices, const void *updates, void *dst)
{
    size_t total = (size_t)a->slice;
    const unsigned char *u = updates;

    for (int32_t j = 0; j < a->k; j++)
        total *= (size_t)a->dims[j];
    memcpy(dst, data, total * elem_size);
    for (int64_t c = 0; c < a->count; c++) {
        int64_t off = nd_offset(a, indices + (size_t)c * (size_t)a->k);
        if (off < 0)
            return LN_RT_ARG_ERROR;
        for (int64_t e = 0; e < a->slice; e++, u += elem_size)
            scatter_put(reduction, elem_size,
                        (unsigned char *)dst + ((size_t)off + (size_t)e) * elem_size, u);
    }
    return LN_RT_OK;
}

/* ONNX OneHot of one index type */
#define LN_RT_ONEHOT(NAME, T, TOINT)                                                  \
    void NAME(int32_t outer, int32_t depth, int32_t inner, const T *indices,           \
              const void *values, size_t elem_size, void *y)                          \
    {                                                                                  \
        const unsigned char *off = values, *on = off + elem_size;                     \
        unsigned char *out = y;                                                        \
        for (int32_t o = 0; o < outer; o++)                                            \
            for (int32_t d = 0; d < depth; d++)                                        \
                for (int32_t i = 0; i < inner; i++, out += elem_size) {                \
                    T v = indices[(size_t)o * inner + i];                              \
                    int64_t k = TOINT;                                                 \
                    if (k < 0)                                                         \
                        k += depth;                                                    \
                    memcpy(out, k == d ? on : off, elem_size);                         \
                }                                                                      \
    }

/* a float index that is not an integer (or NaN, or beyond int64) matches
 * nothing, as in ONNX's reference code and ONNX Runtime */
LN_RT_ONEHOT(ln_rt_onehot_f32, float,
             (v > -9.2e18f && v < 9.2e18f && (float)(int64_t)v == v) ? (int64_t)v : INT64_MIN)
LN_RT_ONEHOT(ln_rt_onehot_s64, int64_t, v)
LN_RT_ONEHOT(ln_rt_onehot_s32, int32_t, v)

void ln_rt_if_merge(const uint8_t *cond, const void *on_true, const void *on_false, void *dst,
                    size_t bytes)
{
    const void *src = cond[0] ? on_true : on_false;

    if (src != dst)
        memmove(dst, src, bytes);
}
