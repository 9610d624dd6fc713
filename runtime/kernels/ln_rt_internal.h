/*
 * ln_rt_internal.h -- what the runtime's kernel files share and the kernel
 * tests may reach: the blocked GEMM engine, its micro-kernels, and the
 * portable (_c) and ISA (_avx2) entry points behind each public name that
 * has an ISA variant. Not installed; emitted code never includes it.
 */
#ifndef LN_RT_INTERNAL_H
#define LN_RT_INTERNAL_H

#include <math.h>
#include <string.h>
#include "ln_rt.h"

/*
 * x86-64 kernels.  LN_RT_HAVE_AVX2 / LN_RT_HAVE_AVX512: the AVX2+FMA and
 * AVX-512F kernels are compiled into this build.  LN_RT_CPU_AVX2 /
 * LN_RT_CPU_AVX512: this process may run them.
 *
 * Built by GCC for x86-64 (LN_RT_DISPATCH), the library has all three
 * whatever the compiler flags: each file in x86/ compiles its functions for
 * its own instruction set (#pragma GCC target), and the kernels pick one by
 * cpuid, once (cpu.c; ln_rt_isa_limit() caps it).  Every other
 * file is compiled for the flags given, so a build without -march runs on
 * any x86-64 and uses AVX2 or AVX-512 where the CPU has them.  Other
 * compilers choose at compile time, by __AVX2__ / __AVX512F__.
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(LN_RT_NO_DISPATCH)
#define LN_RT_DISPATCH 1
#else
#define LN_RT_DISPATCH 0
#endif

#if (LN_RT_DISPATCH || (defined(__AVX2__) && defined(__FMA__))) && !defined(LN_RT_NO_AVX2)
#define LN_RT_HAVE_AVX2 1
#else
#define LN_RT_HAVE_AVX2 0
#endif

/* AVX-512 variants sit beside the AVX2 ones (an AVX-512 build has both) */
#if LN_RT_HAVE_AVX2 && (LN_RT_DISPATCH || defined(__AVX512F__)) && !defined(LN_RT_NO_AVX512)
#define LN_RT_HAVE_AVX512 1
#else
#define LN_RT_HAVE_AVX512 0
#endif

#if LN_RT_DISPATCH
/* 0 portable, 1 AVX2+FMA, 2 AVX-512F: what the CPU has, capped by
 * ln_rt_isa_limit() */
int ln_rt__x86_level(void);
#define LN_RT_CPU_AVX2 (LN_RT_HAVE_AVX2 && ln_rt__x86_level() >= 1)
#define LN_RT_CPU_AVX512 (LN_RT_HAVE_AVX512 && ln_rt__x86_level() >= 2)
/* a file's functions from here on, for that instruction set */
#define LN_RT_TARGET_AVX2_PRAGMA _Pragma("GCC target(\"avx2,fma\")")
#define LN_RT_TARGET_AVX512_PRAGMA _Pragma("GCC target(\"avx512f,avx2,fma\")")
#else
#define LN_RT_CPU_AVX2 LN_RT_HAVE_AVX2
#define LN_RT_CPU_AVX512 LN_RT_HAVE_AVX512
#define LN_RT_TARGET_AVX2_PRAGMA
#define LN_RT_TARGET_AVX512_PRAGMA
#endif

/* Armv7E-M's DSP extension (Cortex-M4/M7/M33): the int8 kernels in arm/,
 * which only the Arm builds compile */
#if defined(__ARM_FEATURE_DSP) && !defined(LN_RT_NO_DSP)
#define LN_RT_HAVE_DSP 1
#else
#define LN_RT_HAVE_DSP 0
#endif

#if LN_RT_DISPATCH
/* the instruction set the kernels use in this process */
#define LN_RT_ISA_NAME (LN_RT_CPU_AVX512 ? "AVX-512F + AVX2/FMA (by cpuid)" : \
                        LN_RT_CPU_AVX2 ? "AVX2+FMA (by cpuid)" : "portable C (by cpuid)")
#elif LN_RT_HAVE_AVX512
#define LN_RT_ISA_NAME "AVX-512F + AVX2/FMA"
#elif LN_RT_HAVE_AVX2
#define LN_RT_ISA_NAME "AVX2+FMA"
#elif LN_RT_HAVE_DSP
#define LN_RT_ISA_NAME "Armv7E-M DSP"
#else
#define LN_RT_ISA_NAME "portable C"
#endif

/* SiLU of one value: ln_rt_silu_f32's portable loop, to the bit
 * (unary_f32.c). */
float ln_rt__silu1(float v);

/* hardswish's gate clip(v / 6 + 1/2, 0, 1), as ln_rt_hardswish_f32 (no
 * contraction: -std=c99) */
static inline float ln_rt__hardsig1(float v)
{
    float g = v * (1.0f / 6.0f) + 0.5f;
    g = g < 0.0f ? 0.0f : g;
    return g > 1.0f ? 1.0f : g;
}

/* Winograd F(2x2, 3x3) (conv2d_wino_f32.c): blocks of LN_RT_WINO_LANES
 * tiles, LN_RT_WINO_NR output channels at a time; scratch
 * ln_rt__conv2d_wino_scratch_floats(c) floats, 64-byte aligned */
#define LN_RT_WINO_LANES 48
#define LN_RT_WINO_NR 8
size_t ln_rt__conv2d_wino_scratch_floats(int32_t c);

/* Apply a fused activation to one value. */
static inline float ln_rt__act1(float v, ln_rt_act act, float alpha,
                                float beta)
{
    switch (act) {
    case LN_RT_ACT_RELU: return v > 0.0f ? v : 0.0f;
    case LN_RT_ACT_RELU6: return v < 0.0f ? 0.0f : (v > 6.0f ? 6.0f : v);
    case LN_RT_ACT_LEAKYRELU: return v < 0.0f ? v * alpha : v;
    case LN_RT_ACT_CLIP: v = v < alpha ? alpha : v; return v > beta ? beta : v;
#if !LN_RT_TARGET_IS_CORTEX_M4
    case LN_RT_ACT_SILU: return ln_rt__silu1(v);
    case LN_RT_ACT_HARDSWISH: return v * ln_rt__hardsig1(v);
#endif
    default: return v;
    }
}

void ln_rt__act_f32(float *y, size_t n, ln_rt_act act, float alpha,
                    float beta);

/* exp(x) in float without libm, branch-free so that loops over it vectorize:
 * n = round(x / ln 2) by the 1.5 * 2^23 trick, r = x - n ln 2 (two-part
 * ln 2, exact first product), a degree-6 polynomial for e^r (the Cephes
 * expf coefficients), then 2^n put into the exponent bits -- as 2^127 * 2
 * when n = 128. Results below FLT_MIN flush to 0; above 88.72 give +inf;
 * NaN stays NaN. Written as plain selects and integer arithmetic on the
 * bits: a nested select or a float comparison feeding integer arithmetic
 * left GCC 12 with branches and a scalar loop (24 ns per sigmoid). */
/* The part of ln_rt__expf both exps share: for xc already clamped to
 * [-87.33654, 88.72283], e^r (the polynomial) with n in *n_out
 * (x = n ln 2 + r) */
static inline float ln_rt__exp_reduced(float xc, int32_t *n_out)
{
    float t, n, r, p;
    int32_t bits;

    t = xc * 1.44269504088896341f + 12582912.0f;
    n = t - 12582912.0f;
    r = xc - n * 0.693359375f;
    r = r - n * -2.12194440e-4f;
    p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    memcpy(&bits, &t, sizeof(bits));
    *n_out = bits - 0x4B400000;
    return p;
}

static inline float ln_rt__expf(float x)
{
    float xc = x < -87.33654f ? -87.33654f : x;
    float p, sc, y;
    int32_t bits, big;
    uint32_t pow2;

    xc = xc > 88.72283f ? 88.72283f : xc;
    p = ln_rt__exp_reduced(xc, &bits);  /* bits = n */
    big = bits > 127;                    /* n = 128 -> 2^127, times two */
    pow2 = (uint32_t)(bits - big + 127) << 23;
    memcpy(&sc, &pow2, sizeof(sc));
    y = p * sc;
    y = big ? y * 2.0f : y;
    y = x < -87.33654f ? 0.0f : y;
    return x > 88.72283f ? (float)INFINITY : y;
}

/* ---- blocked GEMM engine -------------------------------------------------
 * C[m][n] (row stride ldc) (+)= A[m][k] * B[k][n], with A and B supplied by
 * packing callbacks so that conv2d can pack image patches straight from
 * the input tensor. Loop order pc (KC; packs all M rows of A) > jc (NC;
 * packs B) > jr (NR) > ir (MR); see gemm_f32.c. Packed A is MR-row panels
 * [kc][MR]; packed B is NR-column panels [kc][NR] or a row-major block;
 * tails are padded with zeros. The epilogue of the last k block adds bias[row] (if any) and
 * applies the fused activation.
 */
#define LN_RT_GEMM_MC 120       /* A packing chunk; multiple of 24 = lcm of MRs */
#define LN_RT_GEMM_KC 256
#define LN_RT_GEMM_NC 192       /* multiple of 16 = lcm of all NR values */
/* Row stride of a row-major packed B block of nc columns: roundup(nc, 16),
 * plus 16 when that is an even number of 64-byte lines. A micro-kernel
 * walks one 32-column strip of the block down kc rows; with rows an even
 * number of lines apart (192 columns = 12 lines) the strip's 2 * kc lines
 * fall in only 32 of L1's 64 sets, 16 lines a set at kc = 256: more than
 * the ways, so the strip, meant to stay in L1 across all A panels, kept
 * missing. An odd line count spreads it over every set. */
#define LN_RT_GEMM_LDB(nc)                                                    \
    (((nc) + 15) / 16 * 16 + ((((nc) + 15) / 16) % 2 == 0 ? 16 : 0))

typedef struct {
    /* pack rows [i0, i0+mc) x cols [p0, p0+kc) of A into MR-row panels */
    void (*pack_a)(const void *ctx, int32_t i0, int32_t mc, int32_t p0,
                   int32_t kc, int mr, float *dst);
    /* pack rows [p0, p0+kc) x cols [j0, j0+nc) of B into NR-col panels,
     * or, when b_rowmajor, into a row-major block with row stride
     * LN_RT_GEMM_LDB(nc) whose columns [nc, roundup(nc, 16)) are zero */
    void (*pack_b)(const void *ctx, int32_t p0, int32_t kc, int32_t j0,
                   int32_t nc, int nr, float *dst);
    const void *actx, *bctx;
    int b_rowmajor;
    /* optional: B is already a row-major matrix (row stride b_ld) that full
     * NR-wide panels may read in place (1x1 stride-1 conv); tail panels
     * still go through pack_b, which must then be row-major */
    const float *b_direct;
    int32_t b_ld;
    /* optional: A is a row-major matrix (row stride a_ld, unscaled) that the
     * micro-kernel may read in place for full MR-row panels (conv weights);
     * the tail panel is packed through pack_a */
    const float *a_direct;
    int32_t a_ld;
} ln_rt__gemm_src;

/* micro-kernel: acc = Ap * Bp over kc; A is a packed panel ([kc][MR]) when
 * lda == 0, else MR rows lda floats apart read in place; B rows are ldb
 * floats apart. If !first acc += C; if last add bias (per row, may be
 * NULL) and activation; store the mv x nv valid part. */
typedef void (*ln_rt__ukr_fn)(int32_t kc, const float *ap, int32_t lda,
                              const float *bp, int32_t ldb, float *c, int32_t ldc, int mv, int nv,
                              int first, int last, const float *bias,
                              ln_rt_act act, float alpha, float beta);

/* mr divides LN_RT_GEMM_MC and is <= 24; nr is 4 or a multiple of 16
 * dividing LN_RT_GEMM_NC, and a kernel with nr > 16 reads B in 16-column
 * groups, only those the panel's nv valid columns need; kc <= LN_RT_GEMM_KC
 * is the kernel's k block (scratch is sized for LN_RT_GEMM_KC) */
typedef void (*ln_rt__gemv_fn)(int32_t n, int32_t k, const float *x,
                               const float *B, int trans_b, float alpha,
                               float *y, int accumulate);

typedef struct {
    int mr, nr, kc;
    ln_rt__ukr_fn ukr;
    ln_rt__gemv_fn gemv;   /* the M = 1 path (see ln_rt__gemv_c) */
} ln_rt__gemm_isa;

extern const ln_rt__gemm_isa ln_rt__gemm_isa_c;
#if LN_RT_HAVE_AVX2
extern const ln_rt__gemm_isa ln_rt__gemm_isa_avx2;
#endif
#if LN_RT_HAVE_AVX512
extern const ln_rt__gemm_isa ln_rt__gemm_isa_avx512;
#endif
const ln_rt__gemm_isa *ln_rt__gemm_isa_default(void);

/* accumulate: C already holds an addend (first k block adds to it). */
void ln_rt__gemm_run(const ln_rt__gemm_isa *isa, const ln_rt__gemm_src *s,
                     int32_t m, int32_t n, int32_t k, float *c, int32_t ldc,
                     int accumulate, const float *bias, ln_rt_act act,
                     float alpha, float beta, float *scratch);
size_t ln_rt__gemm_scratch_floats(int32_t m, int32_t n, int32_t k,
                                  int a_direct, int b_direct);

/* y[0..n) (+)= alpha * x[0..k) * B' (B' = B^T when trans_b) */
void ln_rt__gemv_c(int32_t n, int32_t k, const float *x, const float *B,
                   int trans_b, float alpha, float *y, int accumulate);
#if defined(__ARM_ARCH_7EM__) && defined(__ARM_FP)
void ln_rt__gemv_m4(int32_t n, int32_t k, const float *x, const float *B, int trans_b,
                    float alpha, float *y, int accumulate);
#endif
#if LN_RT_HAVE_AVX2
/* x86/act_f32_avx2.c, act_f32_avx512.c: ln_rt_sigmoid_f32 and ln_rt_silu_f32 by instruction set */
void ln_rt__act_avx2_sigmoid(const float *x, float *y, size_t n);
void ln_rt__act_avx2_silu(const float *x, float *y, size_t n);
#endif
#if LN_RT_HAVE_AVX512
void ln_rt__act_avx512_sigmoid(const float *x, float *y, size_t n);
void ln_rt__act_avx512_silu(const float *x, float *y, size_t n);
#endif
#define LN_RT_UNARY_DECL(isa)                                                 \
    void ln_rt__unary_##isa##_exp(const float *x, float *y, size_t n);       \
    void ln_rt__unary_##isa##_log(const float *x, float *y, size_t n);       \
    void ln_rt__unary_##isa##_tanh(const float *x, float *y, size_t n);      \
    void ln_rt__unary_##isa##_erf(const float *x, float *y, size_t n);       \
    void ln_rt__unary_##isa##_softplus(const float *x, float *y, size_t n);   \
    void ln_rt__unary_##isa##_gelu(const float *x, float *y, size_t n,        \
                                   int div, float c, float one, float half,  \
                                   int half_first);
#if LN_RT_HAVE_AVX2
/* x86/unary_avx2.c, unary_avx512.c: unary_math.h's loops by instruction set */
LN_RT_UNARY_DECL(avx2)
#endif
#if LN_RT_HAVE_AVX512
LN_RT_UNARY_DECL(avx512)
#endif
#if LN_RT_HAVE_AVX2
void ln_rt__gemv_avx2(int32_t n, int32_t k, const float *x, const float *B,
                      int trans_b, float alpha, float *y, int accumulate);
#endif
#if LN_RT_HAVE_AVX512
void ln_rt__gemv_avx512(int32_t n, int32_t k, const float *x,
                        const float *B, int trans_b, float alpha, float *y,
                        int accumulate);
#endif

/* plain row-major packers: ctx is a ln_rt__mat */
typedef struct {
    const float *p;
    int32_t ld;         /* row stride */
    int trans;          /* element (r, c) is p[c * ld + r] when set */
    float scale;        /* multiply while packing (gemm alpha) */
} ln_rt__mat;

void ln_rt__pack_a_mat(const void *ctx, int32_t i0, int32_t mc, int32_t p0,
                       int32_t kc, int mr, float *dst);
void ln_rt__pack_b_mat(const void *ctx, int32_t p0, int32_t kc, int32_t j0,
                       int32_t nc, int nr, float *dst);

/* explicit-ISA entry points (tests compare them) */
int ln_rt__conv2d_f32_isa(const ln_rt__gemm_isa *isa,
                          const ln_rt_conv2d_args *a, const float *src,
                          const float *weight, const float *bias, float *dst,
                          void *scratch);
int ln_rt__gemm_f32_isa(const ln_rt__gemm_isa *isa, const ln_rt_gemm_args *a,
                        const float *A, const float *B, const float *C,
                        float *Y, void *scratch);
/* the conv2d GEMM path alone (no direct kernel): tests and bench compare */
int ln_rt__conv2d_gemm_f32_isa(const ln_rt__gemm_isa *isa,
                               const ln_rt_conv2d_args *a, const float *src,
                               const float *weight, const float *bias,
                               float *dst, void *scratch);
/* ln_rt_conv2d_res_f32_for's host path on one ISA's GEMM (tests) */
int ln_rt__conv2d_res_f32_isa(const ln_rt__gemm_isa *isa,
                              const ln_rt_conv2d_args *a, const float *src,
                              const float *weight, const float *bias,
                              const float *res, float *dst, void *scratch);
/* shapes the direct conv kernels take (see conv2d_f32.c for the choice) */
int ln_rt__conv2d_direct_ok(const ln_rt_conv2d_args *a);
/* output rows [oy0, oy1) of one image (img [c][h][w]) through the GEMM
 * path of ln_rt_conv2d_f32's ISA, the sums of the whole image's: output
 * channel o's row oy at out + o * plane + (oy - oy0) * ow; scratch
 * ln_rt_conv2d_f32_scratch_size(a) bytes (conv2d_f32.c; not on the M4) */
void ln_rt__conv2d_gemm_rows_f32(const ln_rt_conv2d_args *a, const float *img,
                                 const float *weight, const float *bias,
                                 float *out, size_t plane, int32_t oy0,
                                 int32_t oy1, void *scratch);
/* how ln_rt_conv2d_pwdw_f32 runs a pair (conv2d_pwdw_f32.c; bench/kernels
 * times the expand so): in bands of output rows (the expand's rows for
 * *rows output rows at a time, every channel) when it returns 1, else in
 * blocks of *rows output channels */
int ln_rt__conv2d_pwdw_plan(const ln_rt_conv2d_args *pw,
                            const ln_rt_conv2d_args *dw, int32_t *rows);
/* the portable direct conv (conv2d_f32.c): group 1, no dilation, any
 * stride, pads; no scratch; not dispatched to yet (see there) */
void ln_rt__conv2d_direct_f32_c(const ln_rt_conv2d_args *a, const float *src,
                                const float *weight, const float *bias,
                                float *dst);
/* ---- pooling (pool_f32.c, fc_pool_s8.c) ---- */

/* The pool args are consistent. */
static inline int ln_rt__pool_args_ok(const ln_rt_pool2d_args *a)
{
    return a->n >= 0 && a->c >= 0 && a->h > 0 && a->w > 0 && a->oh >= 0 &&
           a->ow >= 0 && a->kh > 0 && a->kw > 0 && a->stride_h > 0 &&
           a->stride_w > 0 && a->dil_h > 0 && a->dil_w > 0 &&
           a->pad_top >= 0 && a->pad_left >= 0 && a->pad_bottom >= 0 &&
           a->pad_right >= 0;
}

/* taps [lo, hi) of a window starting at s0 that land inside [0, n) */
static inline void ln_rt__pool_taps(int32_t s0, int32_t k, int32_t d, int32_t n,
                                    int32_t *lo, int32_t *hi)
{
    int32_t l, h;
    if (s0 >= 0 && s0 + (k - 1) * d < n) { /* interior: no divisions */
        *lo = 0;
        *hi = k;
        return;
    }
    l = s0 >= 0 ? 0 : (-s0 + d - 1) / d;
    h = n - s0 <= 0 ? 0 : (n - 1 - s0) / d + 1;
    if (h > k)
        h = k;
    if (l > h)
        l = h;
    *lo = l;
    *hi = h;
}

/* ---- int8: TFLite's fixed-point primitives ---------------------------- */

/* TFLite's SaturatingRoundingDoublingHighMul, (a * b * 2) >> 32 rounded
 * to nearest: its nudge (2^30, or 1 - 2^30 for a negative product) and
 * C's division toward zero come to floor((a * b + 2^30) / 2^31) for both
 * signs (for a product -n = -(q * 2^31 + t), 0 <= t < 2^31, both give
 * -(q + (t > 2^30))), which is one 64-bit multiply-add and a shift: a
 * single SMLAL on Arm.  Exact for every pair but the one overflow
 * (INT32_MIN * INT32_MIN), which ln_rt__srdhm saturates; the _nosat form
 * is for callers that exclude it. */
static inline int32_t ln_rt__srdhm_nosat(int32_t a, int32_t b)
{
    return (int32_t)(((int64_t)a * (int64_t)b + ((int64_t)1 << 30)) >> 31);
}

static inline int32_t ln_rt__srdhm(int32_t a, int32_t b)
{
    if (a == INT32_MIN && b == INT32_MIN)
        return INT32_MAX;
    return ln_rt__srdhm_nosat(a, b);
}

/* x / 2^exponent rounded to nearest, ties away from zero (0 <= e <= 31),
 * with mask = 2^exponent - 1. */
static inline int32_t ln_rt__rdivpot_mask(int32_t x, int exponent, int32_t mask)
{
    return (x >> exponent) + ((x & mask) > (mask >> 1) + (x < 0 ? 1 : 0) ? 1 : 0);
}

static inline int32_t ln_rt__rdivpot(int32_t x, int exponent)
{
    return ln_rt__rdivpot_mask(x, exponent, (int32_t)((1u << exponent) - 1u));
}

#ifdef LN_RT_S8_SINGLE_ROUNDING
/* TFLite's MultiplyByQuantizedMultiplier built with TFLITE_SINGLE_ROUNDING
 * (CMSIS-NN's CMSIS_NN_USE_SINGLE_ROUNDING): x * mult / 2^(31 - shift) in
 * 64 bits, rounded once, halves up; saturated to int32. */
static inline int32_t ln_rt__requant(int32_t x, int32_t mult, int32_t shift)
{
    int total = 31 - shift;
    int64_t v = (int64_t)x * (int64_t)mult + ((int64_t)1 << (total - 1)), q;

    q = v >= 0 ? v >> total : -((-(v + 1)) >> total) - 1;      /* floor */
    return q > INT32_MAX ? INT32_MAX : q < INT32_MIN ? INT32_MIN : (int32_t)q;
}
#else
/* TFLite's MultiplyByQuantizedMultiplier (its default, "double rounding"):
 * shift > 0 multiplies by 2^shift first (wrapping as TFLite's int32 does),
 * shift < 0 divides after. */
static inline int32_t ln_rt__requant(int32_t x, int32_t mult, int32_t shift)
{
    int32_t left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;

    return ln_rt__rdivpot(ln_rt__srdhm((int32_t)((uint32_t)x << left), mult), right);
}
#endif

static inline int8_t ln_rt__clamp_s8(int32_t v, int32_t lo, int32_t hi)
{
    return (int8_t)(v < lo ? lo : v > hi ? hi : v);
}

/* The NCHW int8 convs on the DSP targets (arm/conv2d_s8_dsp.c): depthwise
 * 3x3 at stride 1 or 2 without dilation, one output channel per input
 * channel, on rows on the stack; every other conv gathers the inputs of two
 * output pixels into two int16 columns of K = c/group*kh*kw: 4 * K bytes
 * (K rounded up to 4) on the stack up to LN_RT_S8_DSP_STACK (and K bytes
 * of one pixel's int8 taps), in scratch beyond (5 * K, 4 * K for a
 * pointwise conv: ln_rt_conv2d_nchw_s8_scratch_size). */
#define LN_RT_S8_DSP_STACK 1024

/* The bytes of the two int16 columns: 4 * K, K rounded up to 4. */
static inline size_t ln_rt__s8_cols_bytes(const ln_rt_s8_conv_args *a)
{
    int32_t groups = a->group > 0 ? a->group : 1;
    return 4 * (((size_t)(a->c / groups) * a->kh * a->kw + 3) & ~(size_t)3);
}
static inline int ln_rt__s8_is_dw3x3(const ln_rt_s8_conv_args *a)
{
    int32_t groups = a->group > 0 ? a->group : 1;
    return groups == a->c && a->oc == a->c && a->kh == 3 && a->kw == 3 && a->dil_h == 1 &&
           a->dil_w == 1 && (a->stride_w == 1 || a->stride_w == 2);
}

static inline int ln_rt__s8_is_1x1(const ln_rt_s8_conv_args *a)
{
    return a->kh == 1 && a->kw == 1 && a->stride_h == 1 && a->stride_w == 1 &&
           a->pad_top == 0 && a->pad_left == 0 && a->oh == a->h && a->ow == a->w;
}

#if LN_RT_HAVE_DSP
/* 1 when done, 0 to leave the shape to the portable kernel */
int ln_rt__conv2d_nchw_s8_dsp(const ln_rt_s8_conv_args *a, const int8_t *src,
                              const int8_t *weight, const int32_t *bias, const int32_t *mult,
                              const int32_t *shift, int8_t *dst, void *scratch);
int ln_rt__fc_s8_dsp(const ln_rt_s8_fc_args *a, const int8_t *src, const int8_t *weight,
                     const int32_t *bias, const int32_t *mult, const int32_t *shift,
                     int8_t *dst);
#endif

/* The conv2d args are consistent (counts positive, groups divide). */
static inline int ln_rt__conv_args_ok(const ln_rt_conv2d_args *a)
{
    return a->n >= 0 && a->c > 0 && a->h >= 0 && a->w >= 0 && a->oc > 0 &&
           a->kh > 0 && a->kw > 0 && a->stride_h > 0 && a->stride_w > 0 &&
           a->dil_h > 0 && a->dil_w > 0 && a->group > 0 &&
           a->c % a->group == 0 && a->oc % a->group == 0 &&
           a->pad_top >= 0 && a->pad_left >= 0 && a->pad_bottom >= 0 &&
           a->pad_right >= 0;
}

/* The conv's output height and width (ln_rt_conv_out_size per axis). */
static inline void ln_rt__conv_out_hw(const ln_rt_conv2d_args *a, int32_t *oh,
                                      int32_t *ow)
{
    *oh = ln_rt_conv_out_size(a->h, a->kh, a->stride_h, a->pad_top,
                              a->pad_bottom, a->dil_h);
    *ow = ln_rt_conv_out_size(a->w, a->kw, a->stride_w, a->pad_left,
                              a->pad_right, a->dil_w);
}

/* depthwise, channels across lanes (x86/conv2d_depthwise_f32_avx512.c):
 * the scratch floats it needs for a shape (64-byte alignment included),
 * 0 for shapes it does not take (see conv2d_depthwise_f32.c: dilation,
 * kh or kw > 8, fewer than 16 output channels, output rows wider than
 * LN_RT_DW_CL_MAX_OW, some 3x3 stride-1 widths and those the 3x3
 * lane-shift kernel takes, more than
 * LN_RT_DW_CL_MAXF floats). The depthwise scratch size covers it on
 * every host build, whatever the CPU. */
#ifndef LN_RT_DW_CL_MAX_OW
#define LN_RT_DW_CL_MAX_OW 47 /* 29..47: 5x5 and larger, not 32 */
#endif
#define LN_RT_DW_CL_MAXF 131072
size_t ln_rt__conv2d_depthwise_cl_floats(const ln_rt_conv2d_args *a);
/* the shapes ln_rt__conv2d_depthwise_flat3_f32_avx512 takes (3x3, stride
 * 1, pads 1, rows of 2..15 and 17..31); the channels kernel leaves them to
 * it */
int ln_rt__conv2d_depthwise_flat3_ok(const ln_rt_conv2d_args *a);
/* depthwise: pp is the padded-plane scratch, rows of
 * w + pad_left + pad_right + LN_RT_DW_SLACK floats */
#define LN_RT_DW_SLACK 16
void ln_rt__conv2d_depthwise_pad_plane(const ln_rt_conv2d_args *a, const float *plane,
                         float *pp);
void ln_rt__conv2d_depthwise_f32_c(const ln_rt_conv2d_args *a, const float *src,
                         const float *weight, const float *bias, float *dst,
                         float *pp);
#if LN_RT_HAVE_AVX2
/* direct kernels (no padded copy, no scratch): return 0 without touching
 * dst for shapes they do not take (dilation, stride_w > 2, kw > 8, pads
 * wider than a block); the caller then runs the padded kernel */
int ln_rt__conv2d_depthwise_f32_avx2(const ln_rt_conv2d_args *a, const float *src,
                           const float *weight, const float *bias,
                           float *dst);
void ln_rt__conv2d_depthwise_f32_avx2_padded(const ln_rt_conv2d_args *a,
                                   const float *src, const float *weight,
                                   const float *bias, float *dst, float *pp);
#endif
#if LN_RT_HAVE_AVX512
int ln_rt__conv2d_depthwise_f32_avx512(const ln_rt_conv2d_args *a, const float *src,
                             const float *weight, const float *bias,
                             float *dst);
/* stride 1, "same" pads, <= 1024 pixels, <= 25 taps: flat 16-lane
 * vectors across rows (narrow maps); returns 0 without touching dst
 * otherwise */
int ln_rt__conv2d_depthwise_flat_f32_avx512(const ln_rt_conv2d_args *a,
                                  const float *src, const float *weight,
                                  const float *bias, float *dst);
/* 3x3, stride 1, pads 1, rows of 2..15 and 17..31, any height: the flat
 * plane with one load per vector and lane shifts per tap; returns 0
 * without touching dst otherwise */
int ln_rt__conv2d_depthwise_flat3_f32_avx512(const ln_rt_conv2d_args *a,
                                             const float *src,
                                             const float *weight,
                                             const float *bias, float *dst);
/* 3x3 stride 2 with pads 0 or 1 on the top and left (any bottom, right),
 * no dilation, output rows of up to 1024: lane shifts of each row's even and
 * odd columns; ..._ok names the shapes, the kernel returns 0 without
 * touching dst for others */
int ln_rt__conv2d_depthwise_s2_ok(const ln_rt_conv2d_args *a);
int ln_rt__conv2d_depthwise_s2_f32_avx512(const ln_rt_conv2d_args *a,
                                          const float *src,
                                          const float *weight,
                                          const float *bias, float *dst);
/* the same with the output planes oplane floats apart (each image's
 * planes after the last's: dst + (b * oc + o) * oplane), rows oh * ow
 * apart within a plane: ln_rt_conv2d_pwdw_f32's bands write their rows of
 * the whole map's planes */
int ln_rt__conv2d_depthwise_s2_planes_f32_avx512(const ln_rt_conv2d_args *a,
                                                 const float *src,
                                                 const float *weight,
                                                 const float *bias,
                                                 float *dst, size_t oplane);
/* the channels-last depthwise conv's kernels (shapes and scratch:
 * ln_rt_conv2d_depthwise_nhwc_ok / _scratch_size); the AVX2 one takes
 * tap-major weights wt[t][c] */
void ln_rt__conv2d_depthwise_nhwc_f32_avx512(const ln_rt_conv2d_args *a,
                                             const float *src,
                                             const float *weight,
                                             const float *bias, float *dst,
                                             void *scratch);
void ln_rt__conv2d_depthwise_nhwc_f32_avx2(const ln_rt_conv2d_args *a,
                                           const float *src, const float *wt,
                                           const float *bias, float *dst);
/* channels across the 16 lanes (narrow maps, any stride and pads):
 * returns 0 without touching dst when ln_rt__conv2d_depthwise_cl_floats
 * is 0; scratch as ln_rt_conv2d_depthwise_f32_scratch_size */
int ln_rt__conv2d_depthwise_cl_f32_avx512(const ln_rt_conv2d_args *a,
                                          const float *src,
                                          const float *weight,
                                          const float *bias, float *dst,
                                          void *scratch);
/* rows at least this wide take the 16-lane kernel */
/* direct (unpacked) group-1 conv, x86/conv2d_direct_avx512.c: returns 0
 * without touching dst for shapes it cannot do (groups, dilation, strides
 * other than 1 / 2 on both axes, > 64 taps); no scratch */
int ln_rt__conv2d_direct_f32_avx512(const ln_rt_conv2d_args *a,
                                    const float *src, const float *weight,
                                    const float *bias, float *dst);
/* the same plus res (dst's shape, or NULL) added before the activation */
int ln_rt__conv2d_direct_res_f32_avx512(const ln_rt_conv2d_args *a,
                                        const float *src,
                                        const float *weight,
                                        const float *bias, const float *res,
                                        float *dst);
/* the AVX-512 Winograd kernel (see conv2d_wino_f32.c) */
void ln_rt__conv2d_wino_f32_avx512(const ln_rt_conv2d_args *a,
                                   const float *src, const float *u,
                                   const float *bias, const float *res,
                                   float *dst, float *scratch);
#ifndef LN_RT_DW512_MIN_OW
#define LN_RT_DW512_MIN_OW 16
#endif
#endif

/* packed conv (conv2d_packed_f32.c, x86/conv2d_packed_avx*.c): vector
 * lanes along output channels, weights packed [oc/16][tap][c][16] (the
 * last block nb = oc % 16 wide: [tap][c][nb]). One image: the input (a
 * zero-padded copy, or the source when there are no pads) has its
 * channels plane floats apart; output pixel p's tap t reads
 * x[pix[p] + toff[t] + ic * plane]. pix has npix >= ohw entries (rounded
 * up to whole tiles by repeating the last pixel); tbuf holds 64 x
 * roundup(npix, 16) floats. */
typedef struct {
    const float *x;
    size_t plane;
    int32_t c, ntap, npix, ohw, oc;
    const int32_t *pix, *toff;
    float *tbuf;
    const float *bias;
    ln_rt_act act;
    float alpha, beta;
    /* the output: channel j of pixel p at dst[j * ocs + p * ops] (NCHW:
     * ocs = ohw, ops = 1; channels-last: ocs = 1, ops = oc) */
    size_t ocs, ops;
} ln_rt__pk_geom;
#define LN_RT_PK_TILE 6         /* pixels per register tile (all ISAs) */
void ln_rt__conv2d_packed_c(const ln_rt__pk_geom *g, const float *w,
                            float *dst);
#if LN_RT_HAVE_AVX2
void ln_rt__conv2d_packed_avx2(const ln_rt__pk_geom *g, const float *w,
                               float *dst);
#endif
#if LN_RT_HAVE_AVX512
void ln_rt__conv2d_packed_avx512(const ln_rt__pk_geom *g, const float *w,
                                 float *dst);
#endif

/* TFLite's int8 ADD and MUL of one element pair (elementwise_s8.c,
 * binary_f32.c's broadcasting versions). */
static inline int8_t ln_rt__add_s8(const ln_rt_s8_binary_args *a, int8_t x1, int8_t x2)
{
    int32_t v1 = (int32_t)((uint32_t)((int32_t)x1 + a->in1_offset) << a->left_shift);
    int32_t v2 = (int32_t)((uint32_t)((int32_t)x2 + a->in2_offset) << a->left_shift);
    int32_t s = ln_rt__requant(v1, a->in1_mult, a->in1_shift) +
                ln_rt__requant(v2, a->in2_mult, a->in2_shift);
    int32_t r = ln_rt__requant(s, a->output_mult, a->output_shift) + a->output_offset;
    return ln_rt__clamp_s8(r, a->act_min, a->act_max);
}

static inline int8_t ln_rt__mul_s8(const ln_rt_s8_binary_args *a, int8_t x1, int8_t x2)
{
    int32_t p = ((int32_t)x1 + a->in1_offset) * ((int32_t)x2 + a->in2_offset);
    int32_t r = ln_rt__requant(p, a->output_mult, a->output_shift) + a->output_offset;
    return ln_rt__clamp_s8(r, a->act_min, a->act_max);
}

/* IEEE binary16 (in a uint16_t) <-> float, round to nearest even (cast.c);
 * the float16 kernels compute in float through them */
uint16_t ln_rt__f32_to_f16(float f);
float ln_rt__f16_to_f32(uint16_t h);

/* a comma that survives as a macro argument */
#define LN_RT_COMMA ,

/* The Cortex-M4 float variants (portable C, in every build: a plan made
 * for the M4 runs them on the host too; no scratch):
 * conv2d_f32.c's direct / pointwise conv (any group, stride, pads,
 * dilation) and conv2d_depthwise_f32.c's depthwise conv. */
void ln_rt__conv2d_f32_m4(const ln_rt_conv2d_args *a, const float *src,
                          const float *weight, const float *bias, float *dst);
void ln_rt__conv2d_depthwise_f32_m4(const ln_rt_conv2d_args *a,
                                    const float *src, const float *weight,
                                    const float *bias, float *dst);

#endif /* LN_RT_INTERNAL_H */
