/*
 * conv2d_wino_f32.c -- Winograd F(2x2, 3x3) convolution (3x3, stride 1,
 * group 1, no dilation): the weight transform, done once ahead of time
 * (ln_rt_conv2d_wino_f32_pack), the shapes it is taken for, and the
 * kernel: x86/conv2d_wino_avx512.c on AVX-512 hosts, else the portable one
 * below (the same blocks and sums, in plain C).
 *
 * Each 2x2 output tile is Y = A^T [ sum over ic of U . V ] A, with
 * V = B^T d B the transformed 4x4 input patch and U = G g G^T the
 * transformed 3x3 kernel: 16 products per tile and input channel instead
 * of 36. The transforms' coefficients are 0, +-1 and +-1/2, so it differs
 * from the direct sum in rounding only.
 */
#include "ln_rt_internal.h"

/* U[pos][o][ic] = (G g G^T)[pos], G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2;
 * 0 0 1], g = weight[o][ic] (3x3); pos = 4 * row + column */
void ln_rt_conv2d_wino_f32_pack(const ln_rt_conv2d_args *a,
                                const float *weight, float *u)
{
    const size_t per = (size_t)a->oc * a->c;
    size_t k;
    for (k = 0; k < per; k++) {
        const float *g = weight + 9 * k;
        float t[4][3];
        int i, j;
        for (j = 0; j < 3; j++) {
            t[0][j] = g[j];
            t[1][j] = 0.5f * (g[j] + g[3 + j] + g[6 + j]);
            t[2][j] = 0.5f * (g[j] - g[3 + j] + g[6 + j]);
            t[3][j] = g[6 + j];
        }
        for (i = 0; i < 4; i++) {
            float *o = u + (size_t)(4 * i) * per + k;
            o[0] = t[i][0];
            o[per] = 0.5f * (t[i][0] + t[i][1] + t[i][2]);
            o[2 * per] = 0.5f * (t[i][0] - t[i][1] + t[i][2]);
            o[3 * per] = t[i][2];
        }
    }
}

/* Where it is taken: 3x3 stride 1 group 1, no dilation, pads <= 2, at
 * least 16 channels in and out, and output rows of 12 or more (2x2 tiles,
 * 16 lanes a vector: rows of 6-8 tiles go two to a vector, 9-16 one, and
 * fewer tiles leave lanes idle). Intel Xeon, AVX-512, against what ran
 * before (best of 8-30): 0.51-0.62x the time at 16x16-56x56, 0.62-0.80x at
 * 12x12-14x14 (ResNet-18's 256->256 at 14x14 0.77x the packed kernel),
 * 0.88x at 10x10 and 20x20 (rows of 5 and 10 tiles), 1.44x at 7x7. */
int ln_rt_conv2d_wino_ok(const ln_rt_conv2d_args *a)
{
    return a->group == 1 && a->kh == 3 && a->kw == 3 && a->stride_h == 1 &&
           a->stride_w == 1 && a->dil_h == 1 && a->dil_w == 1 &&
           a->pad_top <= 2 && a->pad_bottom <= 2 && a->pad_left <= 2 &&
           a->pad_right <= 2 && a->c >= 16 && a->oc >= 16 && a->n >= 1 &&
           ln_rt_conv_out_size(a->w, 3, 1, a->pad_left, a->pad_right, 1) >=
               12 &&
           ln_rt_conv_out_size(a->h, 3, 1, a->pad_top, a->pad_bottom, 1) >= 2;
}

/* V[16][c][48] + M[16][8][48] floats, and 64 bytes to align them */
size_t ln_rt_conv2d_wino_f32_scratch_size(const ln_rt_conv2d_args *a)
{
    return ln_rt__conv2d_wino_scratch_floats(a->c) * sizeof(float) + 64;
}

size_t ln_rt__conv2d_wino_scratch_floats(int32_t c)
{
    return (size_t)16 * (size_t)c * LN_RT_WINO_LANES +
           (size_t)16 * LN_RT_WINO_NR * LN_RT_WINO_LANES;
}

/* The portable kernel: blocks of up to 48 tiles in row-major tile order,
 * each tile's patch transformed in scalar code, the products with the
 * lanes (tiles) innermost. */
static void wino_c(const ln_rt_conv2d_args *a, const float *src,
                   const float *u, const float *bias, const float *res,
                   float *dst, float *vb, int32_t oh, int32_t ow)
{
    enum { L = LN_RT_WINO_LANES, NR = LN_RT_WINO_NR };
    const int32_t H = a->h, W = a->w, c = a->c, oc = a->oc;
    const int32_t th = (oh + 1) / 2, tw = (ow + 1) / 2, nt = th * tw;
    const size_t hw = (size_t)H * W, npix = (size_t)oh * ow;
    float *mb = vb + (size_t)16 * c * L;
    int32_t b, t0, ic, o0, l;

    for (b = 0; b < a->n; b++) {
        const float *img = src + (size_t)b * c * hw;
        float *out = dst + (size_t)b * oc * npix;
        const float *rin = res ? res + (size_t)b * oc * npix : NULL;
        for (t0 = 0; t0 < nt; t0 += L) {
            const int32_t n = nt - t0 < L ? nt - t0 : L;
            for (l = 0; l < n; l++) {
                const int32_t y0 = 2 * ((t0 + l) / tw) - a->pad_top;
                const int32_t x0 = 2 * ((t0 + l) % tw) - a->pad_left;
                for (ic = 0; ic < c; ic++) {
                    const float *pl = img + (size_t)ic * hw;
                    float d[4][4], t[4][4];
                    int i, j;
                    for (i = 0; i < 4; i++)
                        for (j = 0; j < 4; j++) {
                            const int32_t y = y0 + i, x = x0 + j;
                            d[i][j] = y >= 0 && y < H && x >= 0 && x < W
                                      ? pl[(size_t)y * W + x] : 0.0f;
                        }
                    for (j = 0; j < 4; j++) {
                        t[0][j] = d[0][j] - d[2][j];
                        t[1][j] = d[1][j] + d[2][j];
                        t[2][j] = d[2][j] - d[1][j];
                        t[3][j] = d[1][j] - d[3][j];
                    }
                    for (i = 0; i < 4; i++) {
                        float *o = vb + ((size_t)(4 * i) * c + ic) * L + l;
                        const size_t ps = (size_t)c * L;
                        o[0] = t[i][0] - t[i][2];
                        o[ps] = t[i][1] + t[i][2];
                        o[2 * ps] = t[i][2] - t[i][1];
                        o[3 * ps] = t[i][1] - t[i][3];
                    }
                }
            }
            for (o0 = 0; o0 < oc; o0 += NR) {
                const int32_t mv = oc - o0 < NR ? oc - o0 : NR;
                int pos, r;
                for (pos = 0; pos < 16; pos++)
                    for (r = 0; r < mv; r++) {
                        float *m = mb + ((size_t)pos * NR + r) * L;
                        const float *wp = u + ((size_t)pos * oc + o0 + r) * c;
                        const float *vp = vb + (size_t)pos * c * L;
                        for (l = 0; l < L; l++)
                            m[l] = 0.0f;
                        for (ic = 0; ic < c; ic++, vp += L)
                            for (l = 0; l < L; l++)
                                m[l] += wp[ic] * vp[l];
                    }
                for (r = 0; r < mv; r++)
                    for (l = 0; l < n; l++) {
                        const int32_t oy = 2 * ((t0 + l) / tw);
                        const int32_t ox = 2 * ((t0 + l) % tw);
                        float s[2][4];
                        int i, j;
#define WM(p) mb[((size_t)(p) * NR + r) * L + l]
                        for (j = 0; j < 4; j++) {
                            s[0][j] = WM(j) + WM(4 + j) + WM(8 + j);
                            s[1][j] = WM(4 + j) - WM(8 + j) - WM(12 + j);
                        }
#undef WM
                        for (i = 0; i < 2 && oy + i < oh; i++)
                            for (j = 0; j < 2 && ox + j < ow; j++) {
                                const size_t o = (size_t)(o0 + r) * npix +
                                                 (size_t)(oy + i) * ow +
                                                 (size_t)(ox + j);
                                float v = j == 0
                                          ? s[i][0] + s[i][1] + s[i][2]
                                          : s[i][1] - s[i][2] - s[i][3];
                                if (bias)
                                    v += bias[o0 + r];
                                if (rin)
                                    v += rin[o];
                                out[o] = ln_rt__act1(v, a->act, a->alpha,
                                                     a->beta);
                            }
                    }
            }
        }
    }
}

int ln_rt_conv2d_wino_res_f32(const ln_rt_conv2d_args *a, const float *src,
                              const float *u, const float *bias,
                              const float *res, float *dst, void *scratch)
{
    const int32_t oh = ln_rt_conv_out_size(a->h, 3, 1, a->pad_top,
                                           a->pad_bottom, 1);
    const int32_t ow = ln_rt_conv_out_size(a->w, 3, 1, a->pad_left,
                                           a->pad_right, 1);
    float *vb = (float *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);

    if (!ln_rt_conv2d_wino_ok(a) || !scratch || res == dst)
        return LN_RT_ARG_ERROR;
#if LN_RT_HAVE_AVX512
    if (LN_RT_CPU_AVX512) {
        ln_rt__conv2d_wino_f32_avx512(a, src, u, bias, res, dst, vb);
        return LN_RT_OK;
    }
#endif
    wino_c(a, src, u, bias, res, dst, vb, oh, ow);
    return LN_RT_OK;
}

int ln_rt_conv2d_wino_f32(const ln_rt_conv2d_args *a, const float *src,
                          const float *u, const float *bias, float *dst,
                          void *scratch)
{
    return ln_rt_conv2d_wino_res_f32(a, src, u, bias, NULL, dst, scratch);
}
