/*
 * ln_rt.h -- the whole public API of libln_rt, LightNet's kernel runtime.
 *
 * Both the interpreter and emitted model code call these kernels, so a model
 * gives the same numbers either way on one machine. The runtime is C99, uses
 * only libm, never allocates, never prints and writes no global state: every
 * kernel works only on the pointers it is given, so kernels are reentrant.
 *
 * Conventions (see runtime/README.md):
 * - Names are ln_rt_<op>[_<variant>]_<dtype>; dtype-generic data-movement
 *   kernels (slice, concat, transpose, ...) have no dtype suffix and take an
 *   element size in bytes, with an _f32 wrapper beside them.
 * - Image tensors are NCHW, row-major, densely packed.
 * - Shapes are int32_t; ranks are at most LN_RT_MAX_DIMS.
 * - A kernel that needs scratch memory has a twin ..._scratch_size() returning
 *   bytes; the caller passes a 16-byte aligned scratch pointer of that size.
 *   Where the target's runtime runs another variant (conv2d: the host packs
 *   GEMM blocks, the Cortex-M4 computes directly without scratch), the twin
 *   ..._scratch_size_for(target, args) gives the size for that target and
 *   ..._f32_for(target, ...) runs within it, so a planner on the host sizes
 *   scratch right for a Cortex-M. The plain names are LN_RT_TARGET_THIS's.
 * - Kernels that can detect bad arguments return LN_RT_OK or LN_RT_ARG_ERROR;
 *   plain elementwise kernels return void and trust the caller.
 * - "In-place safe" means dst may equal src (exactly, not partially overlap).
 */
#ifndef LN_RT_H
#define LN_RT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LN_RT_OK 0
#define LN_RT_ARG_ERROR (-1)
#define LN_RT_MAX_DIMS 8

/* Fused activation applied by conv2d and gemm after bias. */
typedef enum {
    LN_RT_ACT_NONE = 0,
    LN_RT_ACT_RELU,      /* max(x, 0) */
    LN_RT_ACT_RELU6,     /* min(max(x, 0), 6) */
    LN_RT_ACT_LEAKYRELU, /* x < 0 ? alpha * x : x */
    LN_RT_ACT_CLIP,      /* min(max(x, alpha), beta) */
    LN_RT_ACT_SILU,      /* x * sigmoid(x), as ln_rt_silu_f32 */
    LN_RT_ACT_HARDSWISH  /* x * clip(x / 6 + 1/2, 0, 1), as
                          * ln_rt_hardswish_f32 */
    /* SILU and HARDSWISH: host builds only; the Cortex-M4 runtime leaves
     * them out (a separate op there), and its conv refuses them */
} ln_rt_act;

/* The runtime a model is planned for. A kernel with a _for variant runs,
 * for target t, a variant needing at most ..._scratch_size_for(t, args)
 * bytes of scratch, on any build: the host build runs the Cortex-M4
 * variants too (portable C), and a Cortex-M4 build runs its own variants
 * for both targets (they never need more scratch than the host's). */
typedef enum {
    LN_RT_TARGET_HOST = 0,      /* x86-64 and any other host: packed GEMM */
    LN_RT_TARGET_CORTEX_M4 = 1  /* Armv7E-M, FPU: direct kernels, no scratch */
} ln_rt_target;

/* The target this build of libln_rt (or of code including this header)
 * is: what the plain kernel names run.  In #if, test
 * LN_RT_TARGET_IS_CORTEX_M4: LN_RT_TARGET_THIS names an enum constant,
 * which the preprocessor reads as 0, so "#if LN_RT_TARGET_THIS ==
 * LN_RT_TARGET_CORTEX_M4" is true on every target. */
#if defined(__ARM_ARCH_7EM__)
#define LN_RT_TARGET_THIS LN_RT_TARGET_CORTEX_M4
#define LN_RT_TARGET_IS_CORTEX_M4 1
#else
#define LN_RT_TARGET_THIS LN_RT_TARGET_HOST
#define LN_RT_TARGET_IS_CORTEX_M4 0
#endif

/* x86-64: the kernels run AVX-512F, AVX2+FMA or portable C variants by
 * what the CPU has (cpuid, once; a build by GCC carries all three, see
 * runtime/README.md).  ln_rt_isa_limit(level) caps that choice for the
 * whole process (0 portable C, 1 AVX2+FMA, 2 AVX-512F; a negative level
 * changes nothing) and returns the level now in effect; results differ
 * between levels only by float rounding.  Elsewhere it returns 0 and does
 * nothing.  Call it before running models, not while a kernel runs. */
int ln_rt_isa_limit(int level);

/* ---------------------------------------------------------------------
 * Unary elementwise, float32: y[i] = f(x[i]), i < n. All in-place safe.
 * --------------------------------------------------------------------- */
void ln_rt_relu_f32(const float *x, float *y, size_t n);
void ln_rt_leakyrelu_f32(const float *x, float *y, size_t n, float alpha);
/* min(max(x, lo), hi) */
void ln_rt_clip_f32(const float *x, float *y, size_t n, float lo, float hi);
/* ln_rt_clip_f32 with a bound from *lo_t / *hi_t where not NULL */
void ln_rt_clip_t_f32(const float *x, float *y, size_t n, float lo, float hi, const float *lo_t,
                      const float *hi_t);
/* the same for the other types; integers round a double bound inward
 * (ceil lo, floor hi) and saturate it to the type (+-3.4e38: no bound) */
void ln_rt_clip_t_f64(const double *x, double *y, size_t n, double lo, double hi,
                      const double *lo_t, const double *hi_t);
void ln_rt_clip_t_s8(const int8_t *x, int8_t *y, size_t n, double lo, double hi,
                      const int8_t *lo_t, const int8_t *hi_t);
void ln_rt_clip_t_s16(const int16_t *x, int16_t *y, size_t n, double lo, double hi,
                      const int16_t *lo_t, const int16_t *hi_t);
void ln_rt_clip_t_s32(const int32_t *x, int32_t *y, size_t n, double lo, double hi,
                      const int32_t *lo_t, const int32_t *hi_t);
void ln_rt_clip_t_s64(const int64_t *x, int64_t *y, size_t n, double lo, double hi,
                      const int64_t *lo_t, const int64_t *hi_t);
void ln_rt_clip_t_u8(const uint8_t *x, uint8_t *y, size_t n, double lo, double hi,
                      const uint8_t *lo_t, const uint8_t *hi_t);
void ln_rt_clip_t_u16(const uint16_t *x, uint16_t *y, size_t n, double lo, double hi,
                      const uint16_t *lo_t, const uint16_t *hi_t);
void ln_rt_clip_t_u32(const uint32_t *x, uint32_t *y, size_t n, double lo, double hi,
                      const uint32_t *lo_t, const uint32_t *hi_t);
void ln_rt_clip_t_u64(const uint64_t *x, uint64_t *y, size_t n, double lo, double hi,
                      const uint64_t *lo_t, const uint64_t *hi_t);
void ln_rt_sigmoid_f32(const float *x, float *y, size_t n);
/* x * sigmoid(x) (SiLU, swish), bit for bit x times ln_rt_sigmoid_f32's */
void ln_rt_silu_f32(const float *x, float *y, size_t n);
void ln_rt_tanh_f32(const float *x, float *y, size_t n);
/* max(0, min(1, alpha * x + beta)) (ONNX defaults alpha 0.2, beta 0.5) */
void ln_rt_hardsigmoid_f32(const float *x, float *y, size_t n, float alpha,
                           float beta);
/* x * max(0, min(1, x / 6 + 0.5)) */
void ln_rt_hardswish_f32(const float *x, float *y, size_t n);
/* x < 0 ? alpha * (exp(x) - 1) : x */
void ln_rt_elu_f32(const float *x, float *y, size_t n, float alpha);
/* gamma * (x <= 0 ? alpha * (exp(x) - 1) : x) */
void ln_rt_selu_f32(const float *x, float *y, size_t n, float alpha,
                    float gamma);
/* log(1 + exp(x)), overflow-safe */
void ln_rt_softplus_f32(const float *x, float *y, size_t n);
void ln_rt_exp_f32(const float *x, float *y, size_t n);
void ln_rt_log_f32(const float *x, float *y, size_t n);
void ln_rt_sqrt_f32(const float *x, float *y, size_t n);
void ln_rt_abs_f32(const float *x, float *y, size_t n);
void ln_rt_neg_f32(const float *x, float *y, size_t n);
void ln_rt_reciprocal_f32(const float *x, float *y, size_t n);
void ln_rt_erf_f32(const float *x, float *y, size_t n);
/* GELU in its erf form, as the five ops an exporter writes, each rounded
 * as they are: e = erf(div ? x / c : x * c) + one, then (x * e) * half, or
 * (x * half) * e with half_first (c = sqrt(2) or 1 / sqrt(2), one = 1,
 * half = 0.5 in the models: GELU(x) = x (1 + erf(x / sqrt 2)) / 2) */
void ln_rt_gelu_f32(const float *x, float *y, size_t n, int div, float c,
                    float one, float half, int half_first);
/* x / (1 + |x|) */
void ln_rt_softsign_f32(const float *x, float *y, size_t n);
/* libm math (math_f32.c) */
void ln_rt_sin_f32(const float *x, float *y, size_t n);
void ln_rt_cos_f32(const float *x, float *y, size_t n);
void ln_rt_tan_f32(const float *x, float *y, size_t n);
void ln_rt_asin_f32(const float *x, float *y, size_t n);
void ln_rt_acos_f32(const float *x, float *y, size_t n);
void ln_rt_atan_f32(const float *x, float *y, size_t n);
void ln_rt_sinh_f32(const float *x, float *y, size_t n);
void ln_rt_cosh_f32(const float *x, float *y, size_t n);
void ln_rt_asinh_f32(const float *x, float *y, size_t n);
void ln_rt_acosh_f32(const float *x, float *y, size_t n);
void ln_rt_atanh_f32(const float *x, float *y, size_t n);
/* floor and ceil (torch.floor, torch.remainder's x - floor(x / y) * y) */
void ln_rt_floor_f32(const float *x, float *y, size_t n);
void ln_rt_ceil_f32(const float *x, float *y, size_t n);
/* nearest integer, halves to even */
void ln_rt_round_f32(const float *x, float *y, size_t n);
/* 1, -1, or x itself for 0 and NaN */
void ln_rt_sign_f32(const float *x, float *y, size_t n);
/* x > alpha ? x : 0 */
void ln_rt_thresholdedrelu_f32(const float *x, float *y, size_t n,
                               float alpha);
/* x > 0 ? x : alpha * (exp(x / alpha) - 1) */
void ln_rt_celu_f32(const float *x, float *y, size_t n, float alpha);
/* x < -lambd ? x + bias : x > lambd ? x - bias : 0 */
void ln_rt_shrink_f32(const float *x, float *y, size_t n, float bias,
                      float lambd);
/* y = the mean of count same-shape float inputs x[k] (n elements each);
 * y may equal x[0]. */
void ln_rt_mean_f32(const void *const *x, size_t count, float *y, size_t n);

/* ---------------------------------------------------------------------
 * Binary elementwise with numpy broadcasting, float32.
 * a_dims, b_dims and y_dims are all right-aligned to ndim (missing leading
 * dims = 1); y_dims is the broadcast of a_dims and b_dims, computed by the
 * caller. ndim may be 0 (scalars). y may alias x0 (or x1) when that input
 * has y's shape.
 * --------------------------------------------------------------------- */
typedef struct {
    int ndim;
    int32_t a_dims[LN_RT_MAX_DIMS];
    int32_t b_dims[LN_RT_MAX_DIMS];
    int32_t y_dims[LN_RT_MAX_DIMS];
} ln_rt_bcast_args;

void ln_rt_add_f32(const ln_rt_bcast_args *a, const float *x0,
                   const float *x1, float *y);
void ln_rt_sub_f32(const ln_rt_bcast_args *a, const float *x0,
                   const float *x1, float *y);
void ln_rt_mul_f32(const ln_rt_bcast_args *a, const float *x0,
                   const float *x1, float *y);
void ln_rt_div_f32(const ln_rt_bcast_args *a, const float *x0,
                   const float *x1, float *y);
void ln_rt_min_f32(const ln_rt_bcast_args *a, const float *x0,
                   const float *x1, float *y);
void ln_rt_max_f32(const ln_rt_bcast_args *a, const float *x0,
                   const float *x1, float *y);
/* PRelu: y = x0 < 0 ? x1 * x0 : x0, x1 (slope) broadcast like a binary op. */
void ln_rt_prelu_f32(const ln_rt_bcast_args *a, const float *x0,
                     const float *x1, float *y);

/* ---------------------------------------------------------------------
 * Convolution
 * --------------------------------------------------------------------- */
typedef struct {
    int32_t n, c, h, w;           /* input NCHW */
    int32_t oc;                   /* output channels */
    int32_t kh, kw;               /* kernel size */
    int32_t stride_h, stride_w;
    int32_t pad_top, pad_left, pad_bottom, pad_right;
    int32_t dil_h, dil_w;         /* dilation, >= 1 */
    int32_t group;                /* c % group == 0, oc % group == 0 */
    ln_rt_act act;                /* fused activation after bias */
    float alpha, beta;            /* leakyrelu alpha; clip lo (alpha), hi (beta) */
} ln_rt_conv2d_args;

/* Output extent of one spatial axis of a convolution or pooling window
 * (floor mode): (in + pb + pe - dil * (k - 1) - 1) / stride + 1. */
int32_t ln_rt_conv_out_size(int32_t in, int32_t k, int32_t stride,
                            int32_t pad_begin, int32_t pad_end, int32_t dil);

/* 2-D convolution, NCHW, float32. weight is [oc][c/group][kh][kw], bias is
 * [oc] or NULL; dst is [n][oc][oh][ow] with oh/ow from ln_rt_conv_out_size.
 * Runs as packed, cache-blocked GEMM per (image, group): the weights are
 * read in place, image patches are written straight into the packed block
 * (no full im2col buffer; 1x1 stride-1 convs with fewer than 128 channels
 * in or out read the image in place).
 * Depthwise convolutions (group == c, oc a multiple of c) run here too,
 * one GEMM per group: correct, but several times slower than
 * ln_rt_conv2d_depthwise_f32, which the compiler gives them to (MobileNetV2's
 * 96 channels at 112x112: 1.63 against 0.26 ms). Needs
 * ln_rt_conv2d_f32_scratch_size() bytes of scratch (at most one padded
 * plane, or 24 x 256 + 256 x 192 floats + 64 bytes). Not in-place safe.
 * Returns LN_RT_OK or LN_RT_ARG_ERROR. */
int ln_rt_conv2d_f32(const ln_rt_conv2d_args *a, const float *src,
                     const float *weight, const float *bias, float *dst,
                     void *scratch);
size_t ln_rt_conv2d_f32_scratch_size(const ln_rt_conv2d_args *a);
/* The same for a model planned for target t: needs
 * ln_rt_conv2d_f32_scratch_size_for(t, a) bytes (0 for the Cortex-M4:
 * pointwise and direct convs read the image in place). */
int ln_rt_conv2d_f32_for(ln_rt_target t, const ln_rt_conv2d_args *a,
                         const float *src, const float *weight,
                         const float *bias, float *dst, void *scratch);
size_t ln_rt_conv2d_f32_scratch_size_for(ln_rt_target t,
                                         const ln_rt_conv2d_args *a);

/* Group-1 convolution for small output maps with the weights packed
 * ahead of time (vector lanes along output channels). Taken for the shapes
 * ln_rt_conv2d_packed_ok() accepts, the same on every host ISA (group 1,
 * no dilation, stride 1 or 2 on both axes, <= 64 taps, oc >= 16, at most
 * 64 output pixels, or 256 with c >= 128). ln_rt_conv2d_f32_pack() writes weight
 * [oc][c][kh][kw] as blocks of 16 output channels, block b =
 * [kh][kw][c][16] (the last block [kh][kw][c][oc % 16]): oc * c * kh * kw
 * floats, not in-place. ln_rt_conv2d_packed_f32 then needs
 * ln_rt_conv2d_packed_f32_scratch_size() bytes of scratch and returns
 * LN_RT_ARG_ERROR for shapes it does not take. Host only: the compiler
 * never packs for the Cortex-M4. */
int ln_rt_conv2d_packed_ok(const ln_rt_conv2d_args *a);
void ln_rt_conv2d_f32_pack(const ln_rt_conv2d_args *a, const float *weight,
                           float *packed);
int ln_rt_conv2d_packed_f32(const ln_rt_conv2d_args *a, const float *src,
                            const float *packed, const float *bias,
                            float *dst, void *scratch);
size_t ln_rt_conv2d_packed_f32_scratch_size(const ln_rt_conv2d_args *a);
/* Channels-last edges (the compiler's ln_pass_nhwc_edges): a tensor
 * passed between host convs may be stored [n][h][w][c] instead of NCHW.
 * layout is LN_RT_NHWC_SRC and / or LN_RT_NHWC_DST (0: both NCHW, what
 * ln_rt_conv2d_packed_f32 runs); the same shapes, scratch and sums (the
 * same bits) as NCHW, only where the numbers sit changes: the output
 * skips the 16 x 16 transposes into channel planes. Host only. */
#define LN_RT_NHWC_SRC 1
#define LN_RT_NHWC_DST 2
int ln_rt_conv2d_packed_nhwc_f32(const ln_rt_conv2d_args *a, int layout,
                                 const float *src, const float *packed,
                                 const float *bias, float *dst,
                                 void *scratch);
/* The same with a residual input (a residual add, + ReLU, fused into the
 * conv): dst = act(conv(src) + bias + res), res like dst and not
 * overlapping it; the same scratch. LN_RT_ARG_ERROR for res NULL or dst. */
int ln_rt_conv2d_packed_res_f32(const ln_rt_conv2d_args *a, const float *src,
                                const float *packed, const float *bias,
                                const float *res, float *dst, void *scratch);
/* ... with src channels-last (layout LN_RT_NHWC_SRC; res and dst NCHW) */
int ln_rt_conv2d_packed_res_nhwc_f32(const ln_rt_conv2d_args *a, int layout,
                                     const float *src, const float *packed,
                                     const float *bias, const float *res,
                                     float *dst, void *scratch);
/* 3x3 stride-1 group-1 convolution by Winograd's F(2x2, 3x3): 2x2 output
 * tiles, 16 products per tile and input channel instead of 36, the same
 * result up to rounding (the transforms' coefficients are 0, +-1, +-1/2).
 * Taken for the shapes ln_rt_conv2d_wino_ok() accepts, the same on every
 * host ISA (3x3, stride 1, group 1, no dilation, pads <= 2, c and oc >= 16,
 * output rows of 12 or more). ln_rt_conv2d_wino_f32_pack() transforms
 * weight [oc][c][3][3] into U [4][4][oc][c] (U = G g G^T per (oc, c):
 * 16 * oc * c floats, not in-place); ln_rt_conv2d_wino_f32 then needs
 * ln_rt_conv2d_wino_f32_scratch_size() bytes of scratch (any alignment).
 * The _res_ form adds res ([n][oc][oh][ow], not overlapping dst) before
 * the activation. LN_RT_ARG_ERROR for shapes it does not take, and for
 * res == dst. Host only: the compiler never transforms for the
 * Cortex-M4. */
int ln_rt_conv2d_wino_ok(const ln_rt_conv2d_args *a);
void ln_rt_conv2d_wino_f32_pack(const ln_rt_conv2d_args *a,
                                const float *weight, float *u);
size_t ln_rt_conv2d_wino_f32_scratch_size(const ln_rt_conv2d_args *a);
int ln_rt_conv2d_wino_f32(const ln_rt_conv2d_args *a, const float *src,
                          const float *u, const float *bias, float *dst,
                          void *scratch);
int ln_rt_conv2d_wino_res_f32(const ln_rt_conv2d_args *a, const float *src,
                              const float *u, const float *bias,
                              const float *res, float *dst, void *scratch);
/* The same conv with a residual input added in its epilogue:
 * dst = act(conv(src) + bias + res), res [n][oc][oh][ow] like dst and not
 * overlapping it (a residual add, + ReLU, fused into the conv that
 * produces one of its inputs). Scratch: ln_rt_conv2d_f32_scratch_size_for's.
 * Returns LN_RT_OK or LN_RT_ARG_ERROR (res NULL, bad geometry). */
int ln_rt_conv2d_res_f32_for(ln_rt_target t, const ln_rt_conv2d_args *a,
                             const float *src, const float *weight,
                             const float *bias, const float *res, float *dst,
                             void *scratch);
/* A group-1 conv of its input scaled per channel (squeeze-excitation's
 * x * gate, then the conv that reads it): dst = act(conv(src * scale) +
 * bias [+ res]), scale [n][c] (one factor per image and input channel),
 * res NULL or [n][oc][oh][ow] like dst and not overlapping it (as
 * ln_rt_conv2d_res_f32_for's). Runs as
 * the conv of src with a copy of the weights scaled per input channel,
 * image by image: the pass over the image disappears, for oc * kh * kw
 * multiplies per input channel instead of h * w. Scratch:
 * ln_rt_conv2d_scaled_f32_scratch_size() bytes (the scaled weights, then
 * ln_rt_conv2d_f32's scratch for one image). Returns LN_RT_ARG_ERROR for
 * group != 1 or bad geometry. */
size_t ln_rt_conv2d_scaled_f32_scratch_size(const ln_rt_conv2d_args *a);
int ln_rt_conv2d_scaled_f32(const ln_rt_conv2d_args *a, const float *src,
                            const float *scale, const float *weight,
                            const float *bias, const float *res, float *dst,
                            void *scratch);

/* A 1x1 conv and the depthwise conv that alone reads it, fused (an
 * inverted residual block's expand and depthwise convs): dst = dw(pw(src)),
 * pw a 1x1 stride-1 unpadded group-1 conv of src (pw->c = src's channels,
 * pw->oc = m), dw a depthwise conv with multiplier 1 of its output
 * (dw->c = dw->oc = dw->group = m, dw's n, h, w = pw's), each with its own
 * weights ([m][c] and [m][kh][kw]), optional bias and activation. The
 * expand runs a block of its output channels at a time into scratch and
 * the depthwise conv consumes the block there: pw's output is never
 * written whole. Scratch: ln_rt_conv2d_pwdw_f32_scratch_size() bytes.
 * Returns LN_RT_ARG_ERROR unless ln_rt_conv2d_pwdw_ok(pw, dw). */
int ln_rt_conv2d_pwdw_ok(const ln_rt_conv2d_args *pw,
                         const ln_rt_conv2d_args *dw);
size_t ln_rt_conv2d_pwdw_f32_scratch_size(const ln_rt_conv2d_args *pw,
                                          const ln_rt_conv2d_args *dw);
int ln_rt_conv2d_pwdw_f32(const ln_rt_conv2d_args *pw,
                          const ln_rt_conv2d_args *dw, const float *src,
                          const float *pw_weight, const float *pw_bias,
                          const float *dw_weight, const float *dw_bias,
                          float *dst, void *scratch);

/* Depthwise 2-D convolution only: group == c, oc a multiple of c (same
 * args, weight [oc][1][kh][kw]): direct kernels, and no reference to the
 * GEMM engine, so code calling only this one does not link it (the
 * compiler's conv2d_dw_cpu). Scratch:
 * ln_rt_conv2d_depthwise_f32_scratch_size() bytes (a zero-padded plane,
 * or on x86 hosts the channels-across-lanes kernel's buffers where it
 * takes the shape). Returns LN_RT_ARG_ERROR for any other shape. */
int ln_rt_conv2d_depthwise_f32(const ln_rt_conv2d_args *a, const float *src,
                               const float *weight, const float *bias,
                               float *dst, void *scratch);
size_t ln_rt_conv2d_depthwise_f32_scratch_size(const ln_rt_conv2d_args *a);
/* For target t (Cortex-M4: no scratch, borders clipped per row). */
int ln_rt_conv2d_depthwise_f32_for(ln_rt_target t, const ln_rt_conv2d_args *a,
                                   const float *src, const float *weight,
                                   const float *bias, float *dst,
                                   void *scratch);
size_t ln_rt_conv2d_depthwise_f32_scratch_size_for(ln_rt_target t,
                                                   const ln_rt_conv2d_args *a);
/* The depthwise conv on channels-last tensors, src and dst both
 * [n][h][w][c] (the compiler's conv2d_dw_nhwc_cpu, between packed convs
 * that read and write that layout): multiplier 1 (oc == c == group), c a
 * multiple of 16, no dilation, up to 8 x 8 taps, the padded image of 16
 * channels at most LN_RT_DW_NHWC_MAXF floats (ln_rt_conv2d_depthwise_nhwc_ok
 * says; LN_RT_ARG_ERROR otherwise). Each output is the NCHW kernels' sum
 * (bias, then the taps in row-major order, a padded tap adding 0 * w): on
 * AVX-512 16 channels across the lanes read straight from the layout,
 * no transposes. Scratch: ln_rt_conv2d_depthwise_nhwc_f32_scratch_size()
 * bytes. Host only. */
#define LN_RT_DW_NHWC_MAXF 65536
int ln_rt_conv2d_depthwise_nhwc_ok(const ln_rt_conv2d_args *a);
size_t ln_rt_conv2d_depthwise_nhwc_f32_scratch_size(const ln_rt_conv2d_args *a);
int ln_rt_conv2d_depthwise_nhwc_f32(const ln_rt_conv2d_args *a,
                                    const float *src, const float *weight,
                                    const float *bias, float *dst,
                                    void *scratch);

/* Transposed 2-D convolution (ONNX ConvTranspose), NCHW, float32.
 * weight is [c][oc/group][kh][kw], bias [oc] or NULL. oh/ow are given by the
 * caller (they depend on output_padding / output_shape):
 * oh = stride_h*(h-1) + out_pad_h + dil_h*(kh-1) + 1 - pad_top - pad_bottom.
 * Runs as a GEMM (weights^T x input, blocks of up to 192 input pixels) and
 * col2im. Needs ln_rt_conv_transpose2d_f32_scratch_size() bytes of scratch.
 * Not in-place safe. Returns LN_RT_OK or LN_RT_ARG_ERROR. */
typedef struct {
    int32_t n, c, h, w;           /* input NCHW */
    int32_t oc, oh, ow;           /* output channels and extent */
    int32_t kh, kw;
    int32_t stride_h, stride_w;
    int32_t pad_top, pad_left, pad_bottom, pad_right;
    int32_t dil_h, dil_w;
    int32_t group;
    ln_rt_act act;
    float alpha, beta;
} ln_rt_conv_transpose2d_args;

int ln_rt_conv_transpose2d_f32(const ln_rt_conv_transpose2d_args *a,
                               const float *src, const float *weight,
                               const float *bias, float *dst, void *scratch);
size_t ln_rt_conv_transpose2d_f32_scratch_size(
    const ln_rt_conv_transpose2d_args *a);

/* ---------------------------------------------------------------------
 * Matrix multiplication
 * --------------------------------------------------------------------- */
/* ONNX Gemm: Y[M][N] = alpha * A' * B' + beta * C, then act.
 * A' = trans_a ? A^T : A with A stored [K][M] or [M][K]; likewise B ([N][K]
 * or [K][N]). C is NULL or c_rows x c_cols with c_rows in {1, M} and
 * c_cols in {1, N}, broadcast over Y. Needs ln_rt_gemm_f32_scratch_size()
 * bytes of scratch (none when M == 1: a batch-1 fully connected layer runs
 * as dot products / row updates at memory speed). Y must not alias A or B; it may equal C when C is MxN.
 * Returns LN_RT_OK or LN_RT_ARG_ERROR. */
typedef struct {
    int32_t m, n, k;
    int trans_a, trans_b;
    float alpha, beta;
    int32_t c_rows, c_cols;
    ln_rt_act act;
    float act_alpha, act_beta;
} ln_rt_gemm_args;

int ln_rt_gemm_f32(const ln_rt_gemm_args *a, const float *A, const float *B,
                   const float *C, float *Y, void *scratch);
size_t ln_rt_gemm_f32_scratch_size(const ln_rt_gemm_args *a);

/* ONNX MatMul with batch broadcasting. ndim >= 2; the caller promotes 1-D
 * operands (prepend / append a 1) and right-aligns all three shapes to ndim.
 * The last two dims are [M][K] x [K][N] -> [M][N]; the leading dims
 * broadcast. Needs ln_rt_matmul_f32_scratch_size() bytes of scratch (none
 * when M == 1).
 * Not in-place safe. Returns LN_RT_OK or LN_RT_ARG_ERROR. */
typedef struct {
    int ndim;
    int32_t a_dims[LN_RT_MAX_DIMS];
    int32_t b_dims[LN_RT_MAX_DIMS];
    int32_t y_dims[LN_RT_MAX_DIMS];
} ln_rt_matmul_args;

int ln_rt_matmul_f32(const ln_rt_matmul_args *a, const float *A,
                     const float *B, float *Y, void *scratch);
size_t ln_rt_matmul_f32_scratch_size(const ln_rt_matmul_args *a);

/* ---------------------------------------------------------------------
 * Normalization
 * --------------------------------------------------------------------- */
/* Inference batch norm over [n][c][hw]: y = scale * (x - mean) /
 * sqrt(var + eps) + bias, per channel. In-place safe. */
void ln_rt_batchnorm_f32(int32_t n, int32_t c, int32_t hw, float eps,
                         const float *x, const float *scale,
                         const float *bias, const float *mean,
                         const float *var, float *y);
/* The same followed by relu (y = max(y, 0)) in one pass, to the bit
 * ln_rt_batchnorm_f32 then ln_rt_relu_f32 (the optimizer's batchnorm_relu
 * rule: DenseNet's pre-activation BN + ReLU). In-place safe. */
void ln_rt_batchnorm_relu_f32(int32_t n, int32_t c, int32_t hw, float eps,
                              const float *x, const float *scale,
                              const float *bias, const float *mean,
                              const float *var, float *y);
/* Instance norm over [n][c][hw], statistics per (n, c). In-place safe. */
void ln_rt_instancenorm_f32(int32_t n, int32_t c, int32_t hw, float eps,
                            const float *x, const float *scale,
                            const float *bias, float *y);
/* Layer norm: x is [outer][inner], normalized over inner; scale [inner],
 * bias [inner] or NULL. In-place safe. */
void ln_rt_layernorm_f32(int32_t outer, int32_t inner, float eps,
                         const float *x, const float *scale,
                         const float *bias, float *y);
/* The same, also storing each row's mean and 1 / sqrt(variance + eps)
 * (ONNX's Mean and InvStdDev, [outer] each); either may be NULL. */
void ln_rt_layernorm_stats_f32(int32_t outer, int32_t inner, float eps,
                               const float *x, const float *scale,
                               const float *bias, float *y, float *mean,
                               float *inv_std_dev);
/* ONNX LRN across channels of [n][c][hw]:
 * y = x / (bias + alpha / size * sum_{window} x^2) ^ beta. Not in-place safe. */
void ln_rt_lrn_f32(int32_t n, int32_t c, int32_t hw, int32_t size,
                   float alpha, float beta, float bias, const float *x,
                   float *y);

/* ---------------------------------------------------------------------
 * Pooling
 * --------------------------------------------------------------------- */
/* 2-D max / average pooling over NCHW. oh/ow are given by the caller (they
 * depend on ceil_mode and auto_pad); windows that run past the padded input
 * are clipped. Average pooling with count_include_pad divides by the window
 * clipped to the padded input, otherwise by the window clipped to the
 * input. Dilation applies to max pooling (and average, if given).
 * Not in-place safe. Returns LN_RT_OK or LN_RT_ARG_ERROR. */
typedef struct {
    int32_t n, c, h, w;
    int32_t oh, ow;
    int32_t kh, kw;
    int32_t stride_h, stride_w;
    int32_t pad_top, pad_left, pad_bottom, pad_right;
    int32_t dil_h, dil_w;
    int count_include_pad;
} ln_rt_pool2d_args;

int ln_rt_maxpool2d_f32(const ln_rt_pool2d_args *a, const float *x, float *y);
int ln_rt_avgpool2d_f32(const ln_rt_pool2d_args *a, const float *x, float *y);
/* A conv with ReLU and the max pool that alone reads its output, fused
 * (the conv -> ReLU -> max pool stem of ImageNet networks: ResNet's,
 * DenseNet's, SqueezeNet's): dst = maxpool(relu(conv(src) + bias)), the
 * pool p over the conv's output (p->n, c, h, w: the conv's n, oc, oh, ow;
 * no dilation). The conv runs a band of output rows at a time into
 * scratch and the pool reads them there, so the conv's output is never
 * written whole. To the bit ln_rt_conv2d_f32 then ln_rt_maxpool2d_f32
 * for what ln_rt_conv2d_maxpool_ok() takes: ReLU (the conv's outputs then
 * have no NaN and no -0, so the order of the maxima does not matter) and
 * a conv that ln_rt_conv2d_f32 runs through the first-conv kernel or the
 * GEMM, whose rows come out alike whether computed alone or with the
 * image (not the direct kernel's shapes). Scratch:
 * ln_rt_conv2d_maxpool_f32_scratch_size() bytes. Not in-place safe.
 * Returns LN_RT_OK or LN_RT_ARG_ERROR. */
int ln_rt_conv2d_maxpool_ok(const ln_rt_conv2d_args *a,
                            const ln_rt_pool2d_args *p);
size_t ln_rt_conv2d_maxpool_f32_scratch_size(const ln_rt_conv2d_args *a,
                                             const ln_rt_pool2d_args *p);
int ln_rt_conv2d_maxpool_f32(const ln_rt_conv2d_args *a,
                             const ln_rt_pool2d_args *p, const float *src,
                             const float *weight, const float *bias,
                             float *dst, void *scratch);
/* Average pooling whose one window is each whole plane (oh = ow = 1, the
 * window the input, no pads: ln_rt_avgpool2d_nhwc_ok) of a channels-last
 * x ([n][h][w][c], a channels-last edge: ln_rt_conv2d_packed_nhwc_f32); y
 * [n][c] is the same either way. The same sums as ln_rt_avgpool2d_f32. */
int ln_rt_avgpool2d_nhwc_ok(const ln_rt_pool2d_args *a);
int ln_rt_avgpool2d_nhwc_f32(const ln_rt_pool2d_args *a, const float *x,
                             float *y);
/* The same on int8 tensors of one scale and zero point in and out: the
 * maximum, the average rounded half away from zero (TFLite's); padded taps
 * count as 0 with count_include_pad. */
int ln_rt_maxpool2d_s8(const ln_rt_pool2d_args *a, const int8_t *x, int8_t *y);
/* uint8 values (not quantized): the plain maximum; an all-padding window gives 0 */
int ln_rt_maxpool2d_u8(const ln_rt_pool2d_args *a, const uint8_t *x, uint8_t *y);
int ln_rt_avgpool2d_s8(const ln_rt_pool2d_args *a, const int8_t *x, int8_t *y);
/* Global pooling: x is [nc][hw], y is [nc]. */
void ln_rt_global_avgpool_f32(int32_t nc, int32_t hw, const float *x,
                              float *y);
void ln_rt_global_maxpool_f32(int32_t nc, int32_t hw, const float *x,
                              float *y);

/* ---------------------------------------------------------------------
 * 3-D convolution and pooling (NCDHW), conv3d_f32.c / pool3d_f32.c
 * --------------------------------------------------------------------- */
/* Spatial axes are (d, h, w); pad[0..2] pads the start of each, pad[3..5]
 * its end.  conv3d: weight [oc][c/group][kd][kh][kw], bias [oc] or NULL,
 * out[] from ln_rt_conv_out_size.  conv_transpose3d: weight
 * [c][oc/group][kd][kh][kw], out[i] = stride[i] * (in[i] - 1) + out_pad +
 * dil[i] * (k[i] - 1) + 1 - pad[i] - pad[i + 3], given by the caller (its
 * pads may be negative: outputs beyond the full result, bias only).
 * Direct loops, no scratch, not in-place safe.  Return LN_RT_OK or
 * LN_RT_ARG_ERROR. */
typedef struct {
    int32_t n, c, oc, group;
    int32_t in[3], out[3], k[3], stride[3], dil[3];
    int32_t pad[6];
    ln_rt_act act;
    float alpha, beta;
} ln_rt_conv3d_args;

int ln_rt_conv3d_f32(const ln_rt_conv3d_args *a, const float *src,
                     const float *weight, const float *bias, float *dst);
int ln_rt_conv_transpose3d_f32(const ln_rt_conv3d_args *a, const float *src,
                               const float *weight, const float *bias,
                               float *dst);

/* 3-D max / average pooling over NCDHW (a 2-D pool is d = 1): windows
 * clipped to the input as in the 2-D kernels; the average divides by the
 * taps inside the padded input (count_include_pad) or inside the input.
 * maxpool3d's indices (int64, may be NULL) are ONNX MaxPool's: the first
 * maximum's offset in the whole input, its (d, h, w) row-major
 * (storage_order 0) or column-major (1) within the plane; -1 (and -inf)
 * for a window that holds no input value (dilated taps all in padding). */
typedef struct {
    int32_t n, c;
    int32_t in[3], out[3], k[3], stride[3], dil[3];
    int32_t pad[6];
    int count_include_pad;
    int storage_order;
} ln_rt_pool3d_args;

int ln_rt_maxpool3d_f32(const ln_rt_pool3d_args *a, const float *x, float *y,
                        int64_t *indices);
int ln_rt_avgpool3d_f32(const ln_rt_pool3d_args *a, const float *x, float *y);

/* ---------------------------------------------------------------------
 * Detection-head ops, detect_f32.c
 * --------------------------------------------------------------------- */
/* ONNX GridSample (opset 16), NCHW: x [n][c][h][w] sampled at grid
 * [n][oh][ow][2] ((x, y) in [-1, 1], -1 the first pixel's centre with
 * align_corners, its outer edge without) into y [n][c][oh][ow].  mode 0
 * bilinear, 1 nearest (half to even), 2 bicubic (A = -0.75, 4x4 taps);
 * padding 0 zeros, 1 border, 2 reflection (of coordinates outside the
 * image, then of each tap's index). */
typedef struct {
    int32_t n, c, h, w, oh, ow;
    int32_t mode, padding, align_corners;
} ln_rt_grid_sample_args;

void ln_rt_grid_sample_f32(const ln_rt_grid_sample_args *a, const float *x,
                           const float *grid, float *y);

/* ONNX RoiAlign, NCHW: for each of num_rois boxes rois[r] = (x1, y1, x2,
 * y2) on image batch_indices[r], a c x oh x ow grid of bins, each the
 * average (mode 0) or maximum (1) of sampling x sampling bilinear samples
 * (sampling_ratio, or ceil(roi extent / bins) when 0); coordinates scaled
 * by spatial_scale, less half a pixel when half_pixel.  As ONNX Runtime:
 * an output_half_pixel roi is at least 1x1, a sample beyond a pixel
 * outside the image is 0, the maximum is over the weighted taps.
 * Returns LN_RT_ARG_ERROR for a batch index outside [0, n). */
typedef struct {
    int32_t n, c, h, w, num_rois, oh, ow;
    int32_t sampling_ratio, mode_max, half_pixel;
    float spatial_scale;
} ln_rt_roi_align_args;

int ln_rt_roi_align_f32(const ln_rt_roi_align_args *a, const float *x,
                        const float *rois, const int64_t *batch_indices,
                        float *y);

/* ONNX MaxUnpool: the unpooled tensor of shape dims is zero but
 * [indices[i]] = x[i] for the x_len inputs (a later one wins); y, of
 * shape out_dims (each at least dims'), holds it at its start and zeros
 * beyond.  Returns LN_RT_ARG_ERROR for an index outside the unpooled
 * tensor. */
typedef struct {
    int ndim;
    int32_t dims[LN_RT_MAX_DIMS];
    int32_t out_dims[LN_RT_MAX_DIMS];
} ln_rt_maxunpool_args;

int ln_rt_maxunpool_f32(const ln_rt_maxunpool_args *a, size_t x_len,
                        const float *x, const int64_t *indices, float *y);

/* ONNX NonMaxSuppression over boxes [batches][boxes][4] (corners (y1, x1,
 * y2, x2) in either order, or centre_point_box: (xc, yc, w, h)) and scores
 * [batches][classes][boxes]: per batch and class, the boxes scoring above
 * score_threshold (when has_score_threshold) in descending score (ties by
 * the lower index), each kept unless its IoU with a kept one exceeds
 * iou_threshold, at most max_per_class.  Writes (batch, class, box)
 * triples to selected (room for batches * classes * min(boxes,
 * max_per_class) of them) and returns their count; order is scratch for
 * boxes int32_t.  The count depends on the data, so no compiled model
 * calls it: LightNet evaluates NonMaxSuppression at import time. */
typedef struct {
    int32_t batches, classes, boxes;
    int32_t center_point_box;
    int64_t max_per_class;
    float iou_threshold, score_threshold;
    int32_t has_score_threshold;
} ln_rt_nms_args;

int64_t ln_rt_nms_f32(const ln_rt_nms_args *a, const float *boxes,
                      const float *scores, int32_t *order, int64_t *selected);

/* ---------------------------------------------------------------------
 * Reductions, softmax, argmax
 * --------------------------------------------------------------------- */
/* Reduce x (ndim, dims) over the axes whose bit is set in axes_mask
 * (bit i = axis i). y holds the reduced tensor densely (keepdims does not
 * change the layout). An empty mask copies. Not in-place safe. */
typedef struct {
    int ndim;
    int32_t dims[LN_RT_MAX_DIMS];
    uint32_t axes_mask;
} ln_rt_reduce_args;

void ln_rt_reduce_sum_f32(const ln_rt_reduce_args *a, const float *x,
                          float *y);
void ln_rt_reduce_mean_f32(const ln_rt_reduce_args *a, const float *x,
                           float *y);
void ln_rt_reduce_max_f32(const ln_rt_reduce_args *a, const float *x,
                          float *y);
void ln_rt_reduce_min_f32(const ln_rt_reduce_args *a, const float *x,
                          float *y);

/* Softmax / log-softmax over one axis: x viewed as [outer][len][inner].
 * In-place safe. */
void ln_rt_softmax_f32(int32_t outer, int32_t len, int32_t inner,
                       const float *x, float *y);
void ln_rt_logsoftmax_f32(int32_t outer, int32_t len, int32_t inner,
                          const float *x, float *y);
/* Argmax over [outer][len][inner] -> y [outer][inner] (int64). First index
 * of the maximum unless select_last_index. */
void ln_rt_argmax_f32(int32_t outer, int32_t len, int32_t inner,
                      int select_last_index, const float *x, int64_t *y);
/* Argmin, as argmax with the smallest element. */
void ln_rt_argmin_f32(int32_t outer, int32_t len, int32_t inner,
                      int select_last_index, const float *x, int64_t *y);
/* More reductions (reduce_f32.c), same arguments as ln_rt_reduce_sum_f32:
 * sum |x|, sqrt(sum x^2), log(sum x), log(sum exp(x)) (overflow-safe),
 * prod x, sum x^2. Not in-place safe. */
void ln_rt_reduce_l1_f32(const ln_rt_reduce_args *a, const float *x, float *y);
void ln_rt_reduce_l2_f32(const ln_rt_reduce_args *a, const float *x, float *y);
void ln_rt_reduce_logsum_f32(const ln_rt_reduce_args *a, const float *x,
                             float *y);
void ln_rt_reduce_logsumexp_f32(const ln_rt_reduce_args *a, const float *x,
                                float *y);
void ln_rt_reduce_prod_f32(const ln_rt_reduce_args *a, const float *x,
                           float *y);
void ln_rt_reduce_sumsquare_f32(const ln_rt_reduce_args *a, const float *x,
                                float *y);
/* ReduceSum and ReduceProd of int64 (reduce_s64.c), same arguments; the
 * arithmetic wraps modulo 2^64.  Not in-place safe. */
void ln_rt_reduce_sum_s64(const ln_rt_reduce_args *a, const int64_t *x, int64_t *y);
void ln_rt_reduce_prod_s64(const ln_rt_reduce_args *a, const int64_t *x, int64_t *y);

/* ---- losses (ONNX NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss) ---
 * x [n][c][d]: ONNX's [N, C, d1..dk] with d = d1 * .. * dk (1 when k = 0);
 * target [n][d], int64 (target_size 8) or int32 (4); weight [c] or NULL
 * (all 1).  Element (i, j) of class t = target[i][j] has the loss
 * -weight[t] * x[i][t][j] (NLL) or -weight[t] * log_prob[i][t][j] (SCE:
 * log_prob is the log-softmax over c, computed as ln_rt_logsoftmax_f32
 * does) and counts with weight[t].  An element whose target is
 * ignore_index (when has_ignore) has loss 0 and does not count.
 * reduction NONE: loss [n][d]; SUM: loss[0] = the sum; MEAN: loss[0] = the
 * sum / the sum of the counted elements' weights (NaN when nothing counts,
 * as in ONNX's reference).  A target outside [0, c) that is not ignored
 * reads nothing, counts as an ignored one, and makes the kernel return
 * LN_RT_ARG_ERROR once every output is written; LN_RT_OK otherwise.
 * log_prob [n][c][d] may be NULL (not written).  No scratch; not in-place
 * safe. */
typedef enum ln_rt_loss_reduction {
    LN_RT_LOSS_NONE,
    LN_RT_LOSS_SUM,
    LN_RT_LOSS_MEAN
} ln_rt_loss_reduction;

typedef struct ln_rt_loss_args {
    int32_t n, c, d;
    ln_rt_loss_reduction reduction;
    int32_t has_ignore;             /* 0: no element is ignored */
    int64_t ignore_index;
} ln_rt_loss_args;

int ln_rt_nll_loss_f32(const ln_rt_loss_args *a, size_t target_size, const float *x,
                       const void *target, const float *weight, float *loss);
int ln_rt_nll_loss_f64(const ln_rt_loss_args *a, size_t target_size, const double *x,
                       const void *target, const double *weight, double *loss);
int ln_rt_softmax_cross_entropy_f32(const ln_rt_loss_args *a, size_t target_size,
                                    const float *x, const void *target, const float *weight,
                                    float *loss, float *log_prob);
int ln_rt_softmax_cross_entropy_f64(const ln_rt_loss_args *a, size_t target_size,
                                    const double *x, const void *target,
                                    const double *weight, double *loss, double *log_prob);
/* the same in float64 */
void ln_rt_reduce_l1_f64(const ln_rt_reduce_args *a, const double *x, double *y);
void ln_rt_reduce_l2_f64(const ln_rt_reduce_args *a, const double *x, double *y);
void ln_rt_reduce_logsum_f64(const ln_rt_reduce_args *a, const double *x, double *y);
void ln_rt_reduce_logsumexp_f64(const ln_rt_reduce_args *a, const double *x, double *y);
void ln_rt_reduce_prod_f64(const ln_rt_reduce_args *a, const double *x, double *y);
void ln_rt_reduce_sumsquare_f64(const ln_rt_reduce_args *a, const double *x, double *y);

/* ---------------------------------------------------------------------
 * Data movement (dtype-generic by element size, with _f32 wrappers)
 * --------------------------------------------------------------------- */
/* Slice over any rank: dst[i0..] = src[starts[d] + i_d * steps[d]].
 * starts/steps are normalized by the caller (start inside the axis, step
 * non-zero and may be negative); dst_dims holds the slice's extent. */
typedef struct {
    int ndim;
    int32_t src_dims[LN_RT_MAX_DIMS];
    int32_t starts[LN_RT_MAX_DIMS];
    int32_t steps[LN_RT_MAX_DIMS];
    int32_t dst_dims[LN_RT_MAX_DIMS];
} ln_rt_slice_args;

void ln_rt_slice(const ln_rt_slice_args *a, size_t elem_size,
                 const void *src, void *dst);
void ln_rt_slice_f32(const ln_rt_slice_args *a, const float *src, float *dst);

/* Concat: each src i is [outer][axis_dims[i]][inner]; dst is
 * [outer][sum axis_dims][inner]. ln_rt_concat_args holds that geometry for
 * at most LN_RT_MAX_VARIADIC tensors (callers pass its fields). */
#define LN_RT_MAX_VARIADIC 64
typedef struct {
    int32_t outer, inner;
    int32_t axis_dims[LN_RT_MAX_VARIADIC];
} ln_rt_concat_args;

void ln_rt_concat(int nsrc, const void *const *src, const int32_t *axis_dims,
                  int32_t outer, int32_t inner, size_t elem_size, void *dst);
void ln_rt_concat_f32(int nsrc, const float *const *src,
                      const int32_t *axis_dims, int32_t outer, int32_t inner,
                      float *dst);
/* Split: the inverse of concat. */
void ln_rt_split(const void *src, int ndst, void *const *dst,
                 const int32_t *axis_dims, int32_t outer, int32_t inner,
                 size_t elem_size);
void ln_rt_split_f32(const float *src, int ndst, float *const *dst,
                     const int32_t *axis_dims, int32_t outer, int32_t inner);

/* Transpose: dst dim d = src dim perm[d]. Not in-place safe. */
typedef struct {
    int ndim;
    int32_t src_dims[LN_RT_MAX_DIMS];
    int32_t perm[LN_RT_MAX_DIMS];
} ln_rt_transpose_args;

void ln_rt_transpose(const ln_rt_transpose_args *a, size_t elem_size,
                     const void *src, void *dst);
void ln_rt_transpose_f32(const ln_rt_transpose_args *a, const float *src,
                         float *dst);

/* Pad (ONNX Pad): dst extent = begin + src + end per axis; negative pads
 * crop. Reflect needs pads < dim on each side, edge needs dim >= 1.
 * Returns LN_RT_OK or LN_RT_ARG_ERROR. Not in-place safe.
 * ln_rt_pad moves elements of elem_size bytes (any type); the constant is
 * *value (one element, e.g. a run-time tensor), or fill when value is NULL
 * (then elem_size <= 8). ln_rt_pad_f32 and _s8 pad with 'value'. */
typedef enum {
    LN_RT_PAD_CONSTANT = 0,
    LN_RT_PAD_REFLECT,
    LN_RT_PAD_EDGE
} ln_rt_pad_mode;

typedef struct {
    int ndim;
    int32_t src_dims[LN_RT_MAX_DIMS];
    int32_t pads_begin[LN_RT_MAX_DIMS];
    int32_t pads_end[LN_RT_MAX_DIMS];
    ln_rt_pad_mode mode;
    float value;                    /* ln_rt_pad_f32, ln_rt_pad_s8 */
    uint8_t fill[8];                /* ln_rt_pad: one element of the tensor's type */
} ln_rt_pad_args;

int ln_rt_pad(const ln_rt_pad_args *a, size_t elem_size, const void *src, const void *value,
              void *dst);

int ln_rt_pad_f32(const ln_rt_pad_args *a, const float *src, float *dst);
/* int8: value is an int8 value (a zero point) */
int ln_rt_pad_s8(const ln_rt_pad_args *a, const int8_t *src, int8_t *dst);

/* Tile and Expand: dst index i maps to src index i_d % src_dims[d] on every
 * axis (a broadcast copy for Expand, where src_dims[d] is 1 or dst_dims[d];
 * a repetition for Tile). Shapes right-aligned to ndim. */
typedef struct {
    int ndim;
    int32_t src_dims[LN_RT_MAX_DIMS];
    int32_t dst_dims[LN_RT_MAX_DIMS];
} ln_rt_tile_args;

void ln_rt_tile(const ln_rt_tile_args *a, size_t elem_size, const void *src,
                void *dst);
void ln_rt_tile_f32(const ln_rt_tile_args *a, const float *src, float *dst);
void ln_rt_expand_f32(const ln_rt_tile_args *a, const float *src, float *dst);

/* Gather along one axis: src [outer][len][inner], indices (n_idx, may be
 * negative: + len) -> dst [outer][n_idx][inner]. Returns LN_RT_ARG_ERROR for
 * an index out of [-len, len). */
int ln_rt_gather(int32_t outer, int32_t len, int32_t inner,
                 const int64_t *indices, int32_t n_idx, size_t elem_size,
                 const void *src, void *dst);
int ln_rt_gather_f32(int32_t outer, int32_t len, int32_t inner,
                     const int64_t *indices, int32_t n_idx, const float *src,
                     float *dst);

/* DepthToSpace / SpaceToDepth over NCHW with block size bs. For
 * depth_to_space, n,c,h,w are the input dims (c % (bs*bs) == 0) and
 * crd selects CRD mode (else DCR). For space_to_depth, n,c,h,w are the input
 * dims (h, w multiples of bs). Not in-place safe. */
void ln_rt_depth_to_space_f32(int32_t n, int32_t c, int32_t h, int32_t w,
                              int32_t bs, int crd, const float *x, float *y);
void ln_rt_space_to_depth_f32(int32_t n, int32_t c, int32_t h, int32_t w,
                              int32_t bs, const float *x, float *y);

/* Resize (ONNX Resize / Upsample) of the last two axes of NCHW. */
typedef enum {
    LN_RT_RESIZE_NEAREST = 0,
    LN_RT_RESIZE_LINEAR,           /* bilinear */
    LN_RT_RESIZE_CUBIC             /* bicubic, 4x4 taps, cubic_a */
} ln_rt_resize_mode;

typedef enum {
    LN_RT_COORD_HALF_PIXEL = 0,
    LN_RT_COORD_ASYMMETRIC,
    LN_RT_COORD_ALIGN_CORNERS,
    LN_RT_COORD_PYTORCH_HALF_PIXEL,
    LN_RT_COORD_TF_HALF_PIXEL_FOR_NN,
    LN_RT_COORD_HALF_PIXEL_SYMMETRIC,
    LN_RT_COORD_TF_CROP_AND_RESIZE /* roi; outside it extrapolation */
} ln_rt_coord_mode;

typedef enum {
    LN_RT_NEAREST_ROUND_PREFER_FLOOR = 0,
    LN_RT_NEAREST_ROUND_PREFER_CEIL,
    LN_RT_NEAREST_FLOOR,
    LN_RT_NEAREST_CEIL
} ln_rt_nearest_mode;

/* scale_h/scale_w are the ONNX scales (output / input); 0 means oh/ih.
 * cubic_a and exclude_outside are ONNX's cubic_coeff_a and exclude_outside
 * (cubic only); roi is {start_h, start_w, end_h, end_w} in normalized
 * input coordinates and extrapolation the value of an output pixel whose
 * source falls outside the input (tf_crop_and_resize only). */
typedef struct {
    int32_t n, c, ih, iw, oh, ow;
    float scale_h, scale_w;
    ln_rt_resize_mode mode;
    ln_rt_coord_mode coord;
    ln_rt_nearest_mode nearest;
    float cubic_a;
    int32_t exclude_outside;
    float extrapolation;
    float roi[4];
} ln_rt_resize_args;

int ln_rt_resize_f32(const ln_rt_resize_args *a, const float *x, float *y);

/* Cast between float32, int32 and int64 (float -> int truncates toward
 * zero, like C). In-place safe only when the element sizes are equal. */
void ln_rt_cast_f32_i32(const float *x, int32_t *y, size_t n);
void ln_rt_cast_f32_i64(const float *x, int64_t *y, size_t n);
void ln_rt_cast_i32_f32(const int32_t *x, float *y, size_t n);
void ln_rt_cast_i64_f32(const int64_t *x, float *y, size_t n);
void ln_rt_cast_i32_i64(const int32_t *x, int64_t *y, size_t n);
void ln_rt_cast_i64_i32(const int64_t *x, int32_t *y, size_t n);

/* Element types of ln_rt_cast (the order of LightNet's ln_dtype). float16
 * is IEEE binary16 in a uint16_t, bool one byte (0 or 1). */
typedef enum {
    LN_RT_FLOAT32 = 0,
    LN_RT_FLOAT64,
    LN_RT_FLOAT16,
    LN_RT_INT8,
    LN_RT_INT16,
    LN_RT_INT32,
    LN_RT_INT64,
    LN_RT_UINT8,
    LN_RT_UINT16,
    LN_RT_UINT32,
    LN_RT_UINT64,
    LN_RT_BOOL
} ln_rt_dtype;

/* Cast n elements of type from at x to type to at y (ONNX Cast): floats
 * round to nearest even when narrowed, float -> int truncates toward zero
 * and saturates (NaN gives 0), int -> int wraps like C's unsigned
 * conversion, anything -> bool is != 0. Not in-place safe unless the two
 * types have the same size. Returns LN_RT_ARG_ERROR for an unknown type. */
int ln_rt_cast(ln_rt_dtype from, const void *x, ln_rt_dtype to, void *y, size_t n);

/* ---- int8, TensorFlow Lite's integer arithmetic ------------------------
 *
 * Activations NHWC, asymmetric int8 (zero point z: the args hold
 * input_offset = -z_in and output_offset = z_out); weights symmetric int8,
 * per output channel for convolutions; bias int32 at scale in * w[c].
 * An int32 accumulator is requantized with a Q31 multiplier and a shift
 * fixed at compile time (ln_rt_s8_requantize: the rounding doubling high
 * multiply, then the rounding right shift; shift > 0 shifts left first),
 * offset by the output zero point and clamped to [act_min, act_max]
 * (a fused ReLU/ReLU6/clip is that clamp).  No float anywhere. */

/* TFLite's MultiplyByQuantizedMultiplier. */
int32_t ln_rt_s8_requantize(int32_t acc, int32_t mult, int32_t shift);

typedef struct ln_rt_s8_conv_args {
    int32_t n, h, w, c;             /* input, NHWC */
    int32_t oh, ow, oc;             /* output, NHWC */
    int32_t kh, kw;
    int32_t stride_h, stride_w, dil_h, dil_w;
    int32_t pad_top, pad_left;      /* conv: leading pads; transposed: the cropping */
    int32_t group;                  /* conv: c / group input channels per filter */
    int32_t ch_mult;                /* depthwise: oc = c * ch_mult */
    int32_t input_offset, output_offset;
    int32_t act_min, act_max;
} ln_rt_s8_conv_args;

/* Convolution, weight [oc][kh][kw][c/group], mult/shift per output
 * channel, bias may be NULL. */
int ln_rt_conv2d_s8(const ln_rt_s8_conv_args *a, const int8_t *src, const int8_t *weight,
                    const int32_t *bias, const int32_t *mult, const int32_t *shift,
                    int8_t *dst);
/* The same on NCHW src/dst with weight [oc][c/group][kh][kw] (ONNX's).
 * scratch: ln_rt_conv2d_nchw_s8_scratch_size(a) bytes, which the Armv7E-M
 * DSP kernels use (their int16 columns when they do not fit their stack);
 * other builds ignore it, and a DSP build given less falls back to the
 * portable kernel. */
int ln_rt_conv2d_nchw_s8(const ln_rt_s8_conv_args *a, const int8_t *src, const int8_t *weight,
                         const int32_t *bias, const int32_t *mult, const int32_t *shift,
                         int8_t *dst, void *scratch);
/* The scratch target t's kernels use (the host's: none) and this build's. */
size_t ln_rt_conv2d_nchw_s8_scratch_size_for(ln_rt_target t, const ln_rt_s8_conv_args *a);
size_t ln_rt_conv2d_nchw_s8_scratch_size(const ln_rt_s8_conv_args *a);
/* Depthwise convolution, weight [1][kh][kw][oc], output channel
 * ic * ch_mult + m reads input channel ic. */
int ln_rt_conv2d_depthwise_s8(const ln_rt_s8_conv_args *a, const int8_t *src,
                              const int8_t *weight, const int32_t *bias,
                              const int32_t *mult, const int32_t *shift, int8_t *dst);
/* Transposed convolution, weight [oc][kh][kw][c]; scratch: int32 per
 * output element (ln_rt_conv_transpose2d_s8_scratch_size). */
int ln_rt_conv_transpose2d_s8(const ln_rt_s8_conv_args *a, const int8_t *src,
                              const int8_t *weight, const int32_t *bias,
                              const int32_t *mult, const int32_t *shift, int8_t *dst,
                              void *scratch);
size_t ln_rt_conv_transpose2d_s8_scratch_size(const ln_rt_s8_conv_args *a);

typedef struct ln_rt_s8_fc_args {
    int32_t batches, in, out;       /* src [batches][in], weight [out][in] */
    int32_t input_offset, filter_offset, output_offset;
    int32_t act_min, act_max;
    int32_t per_channel;            /* mult/shift: one per output, else one */
} ln_rt_s8_fc_args;

int ln_rt_fully_connected_s8(const ln_rt_s8_fc_args *a, const int8_t *src,
                             const int8_t *weight, const int32_t *bias,
                             const int32_t *mult, const int32_t *shift, int8_t *dst);

typedef struct ln_rt_s8_pool_args {
    int32_t n, h, w, c, oh, ow;     /* NHWC */
    int32_t kh, kw, stride_h, stride_w, pad_top, pad_left;
    int32_t act_min, act_max;
} ln_rt_s8_pool_args;

/* NHWC: the average of the window's elements inside the input, rounded
 * half away from zero; the maximum. */
void ln_rt_avgpool2d_nhwc_s8(const ln_rt_s8_pool_args *a, const int8_t *src, int8_t *dst);
void ln_rt_maxpool2d_nhwc_s8(const ln_rt_s8_pool_args *a, const int8_t *src, int8_t *dst);

typedef struct ln_rt_s8_binary_args {
    int32_t in1_offset, in2_offset, output_offset;
    int32_t in1_mult, in1_shift, in2_mult, in2_shift;   /* add only */
    int32_t left_shift;                                  /* add only */
    int32_t output_mult, output_shift;
    int32_t act_min, act_max;
} ln_rt_s8_binary_args;

/* y = requant(requant(x1 + off1) + requant(x2 + off2)) (TFLite ADD), and
 * y = requant((x1 + off1) * (x2 + off2)) (MUL), n elements. */
void ln_rt_add_s8(const ln_rt_s8_binary_args *a, const int8_t *x1, const int8_t *x2,
                  int8_t *y, size_t n);
void ln_rt_mul_s8(const ln_rt_s8_binary_args *a, const int8_t *x1, const int8_t *x2,
                  int8_t *y, size_t n);
/* One requantization: y = clamp(requant(x + input_offset, mult, shift) +
 * output_offset, act_min, act_max). */
typedef struct ln_rt_s8_requant_args {
    int32_t input_offset, output_offset;
    int32_t mult, shift;
    int32_t act_min, act_max;
} ln_rt_s8_requant_args;

/* An int8 tensor to another scale and zero point, n elements. */
void ln_rt_requantize_s8(const ln_rt_s8_requant_args *a, const int8_t *x, int8_t *y, size_t n);
/* Global average pooling of NCHW int8, x [nc][hw] -> y [nc]: the sum of a
 * plane (offset) requantized once (mult/shift hold 1 / hw too). */
void ln_rt_global_avgpool_s8(const ln_rt_s8_requant_args *a, int32_t nc, int32_t hw,
                             const int8_t *x, int8_t *y);

/* y = table[x + 128], n elements: an int8 function of an int8 argument
 * tabulated at compile time (sigmoid, tanh, hard-swish, ...). */
void ln_rt_lut_s8(const int8_t *table, const int8_t *x, int8_t *y, size_t n);

/* The same with numpy broadcasting (ln_rt_bcast_args, as the float ops). */
void ln_rt_add_bcast_s8(const ln_rt_bcast_args *a, const ln_rt_s8_binary_args *q,
                        const int8_t *x0, const int8_t *x1, int8_t *y);
void ln_rt_mul_bcast_s8(const ln_rt_bcast_args *a, const ln_rt_s8_binary_args *q,
                        const int8_t *x0, const int8_t *x1, int8_t *y);

/* Elementwise maximum / minimum of two int8 tensors of one scale, numpy
 * broadcasting over 4-D shapes (dims of 1 broadcast). */
void ln_rt_maximum_s8(const int32_t *x1_dims, const int8_t *x1, const int32_t *x2_dims,
                      const int8_t *x2, int8_t *y);
void ln_rt_minimum_s8(const int32_t *x1_dims, const int8_t *x1, const int32_t *x2_dims,
                      const int8_t *x2, int8_t *y);

/* Pad a 4-D int8 tensor: pre and post amounts per axis, value. */
void ln_rt_pad_nhwc_s8(const int32_t *dims, const int32_t *pre, const int32_t *post, int8_t value,
                  const int8_t *x, int8_t *y);

/* Softmax of rows of row_size int8 inputs to int8 outputs at scale 1/256,
 * zero point -128: input_mult and input_left_shift rescale beta * scale
 * into Q5.26, diff_min the smallest difference from the row's maximum
 * that counts (TFLite's int8 softmax). */
void ln_rt_softmax_s8(int32_t rows, int32_t row_size, int32_t input_mult,
                      int32_t input_left_shift, int32_t diff_min, const int8_t *x,
                      int8_t *y);

/* ---- quantize / dequantize (ONNX QuantizeLinear, DequantizeLinear) -------
 * x viewed as [outer][len][inner]; per_axis: scale and zero point have len
 * entries (the axis), else one.  A NULL zero point is 0.  Quantize divides
 * by the scale in float, rounds half to even and saturates; dequantize is
 * (x - zero point) * scale. */
typedef struct ln_rt_quant_args {
    int32_t outer, len, inner;
    int32_t per_axis;
} ln_rt_quant_args;

void ln_rt_quantize_s8(const ln_rt_quant_args *a, const float *x, const float *scale,
                       const int8_t *zero_point, int8_t *y);
void ln_rt_quantize_u8(const ln_rt_quant_args *a, const float *x, const float *scale,
                       const uint8_t *zero_point, uint8_t *y);
void ln_rt_dequantize_s8(const ln_rt_quant_args *a, const int8_t *x, const float *scale,
                         const int8_t *zero_point, float *y);
void ln_rt_dequantize_u8(const ln_rt_quant_args *a, const uint8_t *x, const float *scale,
                         const uint8_t *zero_point, float *y);
void ln_rt_dequantize_s32(const ln_rt_quant_args *a, const int32_t *x, const float *scale,
                          const int32_t *zero_point, float *y);
/* ONNX DynamicQuantizeLinear: scale = (max(x, 0) - min(x, 0)) / 255, zero
 * point round(-min / scale) in [0, 255], y = saturate(round(x / scale) +
 * zero point), rounding half to even; n elements. */
void ln_rt_dynamic_quantize_u8(const float *x, size_t n, uint8_t *y, float *scale,
                               uint8_t *zero_point);

/* ---- integer convolution and matmul (ONNX ConvInteger, MatMulInteger) ---
 * int32 y = op(x - x zero point, w - w zero point) on int8 or uint8
 * operands, each its own signedness; every product is exact (at most
 * 255 * 255), the sums wrap as int32.  A zero point is NULL (0), one value,
 * or one per output channel (conv weight), per row of each matrix (matmul
 * A) or per column of each matrix (matmul B). */
typedef struct ln_rt_integer_args {
    int32_t x_signed, w_signed;     /* 1: int8, 0: uint8 */
    int32_t x_zp_len, w_zp_len;     /* 0 (none), 1, or how many the kernel's doc says */
} ln_rt_integer_args;

/* NCHW, weight [oc][c/group][kh][kw], geometry as ln_rt_conv2d_f32's (act
 * ignored); padding is zero after the zero point is subtracted.  x zero
 * point: 1 value; w's: 1 or oc.  (A 1-D ConvInteger runs here with a
 * height of 1.)  Returns LN_RT_OK or LN_RT_ARG_ERROR. */
int ln_rt_conv2d_integer(const ln_rt_conv2d_args *a, const ln_rt_integer_args *t,
                         const void *x, const void *w, const void *x_zero_point,
                         const void *w_zero_point, int32_t *y);
/* The same on NCDHW, weight [oc][c/group][kd][kh][kw], geometry as
 * ln_rt_conv3d_f32's (out[] must be ln_rt_conv_out_size's; act ignored).
 * Returns LN_RT_OK or LN_RT_ARG_ERROR. */
int ln_rt_conv3d_integer(const ln_rt_conv3d_args *a, const ln_rt_integer_args *t,
                         const void *x, const void *w, const void *x_zero_point,
                         const void *w_zero_point, int32_t *y);
/* Shapes as ln_rt_matmul_f32's.  A's zero point: 1 value, or one per row
 * of each of A's own matrices (prod(a_dims[0..ndim-3]) * M values, laid
 * out as A's shape with K replaced by 1); B's: 1, or one per column of
 * each of B's own matrices (prod(b_dims[0..ndim-3]) * N, B's shape with K
 * replaced by 1).  A batch that broadcasts A or B reads its zero points
 * with it.  Returns LN_RT_OK or LN_RT_ARG_ERROR. */
int ln_rt_matmul_integer(const ln_rt_matmul_args *a, const ln_rt_integer_args *t,
                         const void *A, const void *B, const void *a_zero_point,
                         const void *b_zero_point, int32_t *Y);

/* ---- recurrent networks (ONNX LSTM, GRU, RNN) ----------------------------
 * x [seq][batch][input] (layout 0) or [batch][seq][input] (layout 1);
 * weight [dirs][gates*hidden][input], recurrence [dirs][gates*hidden][hidden],
 * bias [dirs][2*gates*hidden] (input then recurrence biases) or NULL; gate
 * order LSTM i o f c, GRU z r h; seq_lens [batch] or NULL (all seq);
 * initial h (and c) [dirs][batch][hidden] or NULL (zeros); peephole
 * [dirs][3*hidden] (i o f) or NULL.  Outputs, each may be NULL: y
 * [seq][dirs][batch][hidden] (layout 1: [batch][seq][dirs][hidden]), zero
 * past a sequence's length; y_h, y_c [dirs][batch][hidden] (layout 1:
 * [batch][dirs][hidden]), the last valid state.  Activations per
 * direction: f, g, h (LSTM), f, g (GRU), f (RNN). */
typedef enum ln_rt_rnn_act {
    LN_RT_RNN_SIGMOID,
    LN_RT_RNN_TANH,
    LN_RT_RNN_RELU
} ln_rt_rnn_act;

typedef struct ln_rt_rnn_args {
    int32_t seq, batch, input, hidden;
    int32_t dirs;                   /* 1 or 2 */
    int32_t reverse;                /* one direction, walked backwards */
    int32_t layout;                 /* 0 or 1 */
    int32_t act[6];                 /* ln_rt_rnn_act: 3 per direction */
    float clip;                     /* > 0: gate inputs clipped to [-clip, clip] */
    int32_t linear_before_reset;    /* GRU */
    int32_t input_forget;           /* LSTM: f = 1 - i */
} ln_rt_rnn_args;

size_t ln_rt_lstm_f32_scratch_size(const ln_rt_rnn_args *a);
void ln_rt_lstm_f32(const ln_rt_rnn_args *a, const float *x, const float *weight,
                    const float *recurrence, const float *bias, const int32_t *seq_lens,
                    const float *initial_h, const float *initial_c, const float *peephole,
                    float *y, float *y_h, float *y_c, void *scratch);
size_t ln_rt_gru_f32_scratch_size(const ln_rt_rnn_args *a);
void ln_rt_gru_f32(const ln_rt_rnn_args *a, const float *x, const float *weight,
                   const float *recurrence, const float *bias, const int32_t *seq_lens,
                   const float *initial_h, float *y, float *y_h, void *scratch);
size_t ln_rt_rnn_f32_scratch_size(const ln_rt_rnn_args *a);
void ln_rt_rnn_f32(const ln_rt_rnn_args *a, const float *x, const float *weight,
                   const float *recurrence, const float *bias, const int32_t *seq_lens,
                   const float *initial_h, float *y, float *y_h, void *scratch);

/* ---- integer and bool elementwise (numpy broadcasting, ln_rt_bcast_args)
 * Integer add/sub/mul wrap (no int8 ones: ln_rt_add_s8 and ln_rt_mul_s8 are
 * TFLite's); div truncates toward zero, x / 0 is 0 and the
 * most negative value / -1 wraps to itself; comparisons write bool (uint8 0
 * or 1). float64 as float32; float16 (binary16 bits in a uint16_t): min and
 * max. */
void ln_rt_div_s8(const ln_rt_bcast_args *a, const int8_t *x0, const int8_t *x1, int8_t *y);
void ln_rt_min_s8(const ln_rt_bcast_args *a, const int8_t *x0, const int8_t *x1, int8_t *y);
void ln_rt_max_s8(const ln_rt_bcast_args *a, const int8_t *x0, const int8_t *x1, int8_t *y);
void ln_rt_add_s16(const ln_rt_bcast_args *a, const int16_t *x0, const int16_t *x1, int16_t *y);
void ln_rt_sub_s16(const ln_rt_bcast_args *a, const int16_t *x0, const int16_t *x1, int16_t *y);
void ln_rt_mul_s16(const ln_rt_bcast_args *a, const int16_t *x0, const int16_t *x1, int16_t *y);
void ln_rt_div_s16(const ln_rt_bcast_args *a, const int16_t *x0, const int16_t *x1, int16_t *y);
void ln_rt_min_s16(const ln_rt_bcast_args *a, const int16_t *x0, const int16_t *x1, int16_t *y);
void ln_rt_max_s16(const ln_rt_bcast_args *a, const int16_t *x0, const int16_t *x1, int16_t *y);
void ln_rt_add_s32(const ln_rt_bcast_args *a, const int32_t *x0, const int32_t *x1, int32_t *y);
void ln_rt_sub_s32(const ln_rt_bcast_args *a, const int32_t *x0, const int32_t *x1, int32_t *y);
void ln_rt_mul_s32(const ln_rt_bcast_args *a, const int32_t *x0, const int32_t *x1, int32_t *y);
void ln_rt_div_s32(const ln_rt_bcast_args *a, const int32_t *x0, const int32_t *x1, int32_t *y);
void ln_rt_min_s32(const ln_rt_bcast_args *a, const int32_t *x0, const int32_t *x1, int32_t *y);
void ln_rt_max_s32(const ln_rt_bcast_args *a, const int32_t *x0, const int32_t *x1, int32_t *y);
void ln_rt_add_s64(const ln_rt_bcast_args *a, const int64_t *x0, const int64_t *x1, int64_t *y);
void ln_rt_sub_s64(const ln_rt_bcast_args *a, const int64_t *x0, const int64_t *x1, int64_t *y);
void ln_rt_mul_s64(const ln_rt_bcast_args *a, const int64_t *x0, const int64_t *x1, int64_t *y);
void ln_rt_div_s64(const ln_rt_bcast_args *a, const int64_t *x0, const int64_t *x1, int64_t *y);
void ln_rt_min_s64(const ln_rt_bcast_args *a, const int64_t *x0, const int64_t *x1, int64_t *y);
void ln_rt_max_s64(const ln_rt_bcast_args *a, const int64_t *x0, const int64_t *x1, int64_t *y);
void ln_rt_add_u8(const ln_rt_bcast_args *a, const uint8_t *x0, const uint8_t *x1, uint8_t *y);
void ln_rt_sub_u8(const ln_rt_bcast_args *a, const uint8_t *x0, const uint8_t *x1, uint8_t *y);
void ln_rt_mul_u8(const ln_rt_bcast_args *a, const uint8_t *x0, const uint8_t *x1, uint8_t *y);
void ln_rt_div_u8(const ln_rt_bcast_args *a, const uint8_t *x0, const uint8_t *x1, uint8_t *y);
void ln_rt_min_u8(const ln_rt_bcast_args *a, const uint8_t *x0, const uint8_t *x1, uint8_t *y);
void ln_rt_max_u8(const ln_rt_bcast_args *a, const uint8_t *x0, const uint8_t *x1, uint8_t *y);
void ln_rt_add_u16(const ln_rt_bcast_args *a, const uint16_t *x0, const uint16_t *x1, uint16_t *y);
void ln_rt_sub_u16(const ln_rt_bcast_args *a, const uint16_t *x0, const uint16_t *x1, uint16_t *y);
void ln_rt_mul_u16(const ln_rt_bcast_args *a, const uint16_t *x0, const uint16_t *x1, uint16_t *y);
void ln_rt_div_u16(const ln_rt_bcast_args *a, const uint16_t *x0, const uint16_t *x1, uint16_t *y);
void ln_rt_min_u16(const ln_rt_bcast_args *a, const uint16_t *x0, const uint16_t *x1, uint16_t *y);
void ln_rt_max_u16(const ln_rt_bcast_args *a, const uint16_t *x0, const uint16_t *x1, uint16_t *y);
void ln_rt_add_u32(const ln_rt_bcast_args *a, const uint32_t *x0, const uint32_t *x1, uint32_t *y);
void ln_rt_sub_u32(const ln_rt_bcast_args *a, const uint32_t *x0, const uint32_t *x1, uint32_t *y);
void ln_rt_mul_u32(const ln_rt_bcast_args *a, const uint32_t *x0, const uint32_t *x1, uint32_t *y);
void ln_rt_div_u32(const ln_rt_bcast_args *a, const uint32_t *x0, const uint32_t *x1, uint32_t *y);
void ln_rt_min_u32(const ln_rt_bcast_args *a, const uint32_t *x0, const uint32_t *x1, uint32_t *y);
void ln_rt_max_u32(const ln_rt_bcast_args *a, const uint32_t *x0, const uint32_t *x1, uint32_t *y);
void ln_rt_add_u64(const ln_rt_bcast_args *a, const uint64_t *x0, const uint64_t *x1, uint64_t *y);
void ln_rt_sub_u64(const ln_rt_bcast_args *a, const uint64_t *x0, const uint64_t *x1, uint64_t *y);
void ln_rt_mul_u64(const ln_rt_bcast_args *a, const uint64_t *x0, const uint64_t *x1, uint64_t *y);
void ln_rt_div_u64(const ln_rt_bcast_args *a, const uint64_t *x0, const uint64_t *x1, uint64_t *y);
void ln_rt_min_u64(const ln_rt_bcast_args *a, const uint64_t *x0, const uint64_t *x1, uint64_t *y);
void ln_rt_max_u64(const ln_rt_bcast_args *a, const uint64_t *x0, const uint64_t *x1, uint64_t *y);
void ln_rt_add_f64(const ln_rt_bcast_args *a, const double *x0, const double *x1, double *y);
void ln_rt_sub_f64(const ln_rt_bcast_args *a, const double *x0, const double *x1, double *y);
void ln_rt_mul_f64(const ln_rt_bcast_args *a, const double *x0, const double *x1, double *y);
void ln_rt_div_f64(const ln_rt_bcast_args *a, const double *x0, const double *x1, double *y);
void ln_rt_min_f64(const ln_rt_bcast_args *a, const double *x0, const double *x1, double *y);
void ln_rt_max_f64(const ln_rt_bcast_args *a, const double *x0, const double *x1, double *y);
void ln_rt_min_f16(const ln_rt_bcast_args *a, const uint16_t *x0, const uint16_t *x1, uint16_t *y);
void ln_rt_max_f16(const ln_rt_bcast_args *a, const uint16_t *x0, const uint16_t *x1, uint16_t *y);
/* ONNX Pow, ln_rt_pow_<base>_<exponent>: the result has the base's type.
 * Float bases: pow in double (powf for f32 ^ f32). Integer bases: integer
 * exponents multiply exactly, wrapping (a negative one gives the truncated
 * 1 / x0^|x1|: 1 for 1, +-1 for -1, else 0); float exponents are pow in
 * double truncated toward zero, saturated at the type's limits, NaN -> 0. */
void ln_rt_pow_f32_f32(const ln_rt_bcast_args *a, const float *x0, const float *x1, float *y);
void ln_rt_pow_f32_f64(const ln_rt_bcast_args *a, const float *x0, const double *x1, float *y);
void ln_rt_pow_f32_s32(const ln_rt_bcast_args *a, const float *x0, const int32_t *x1, float *y);
void ln_rt_pow_f32_s64(const ln_rt_bcast_args *a, const float *x0, const int64_t *x1, float *y);
void ln_rt_pow_f32_u32(const ln_rt_bcast_args *a, const float *x0, const uint32_t *x1, float *y);
void ln_rt_pow_f32_u64(const ln_rt_bcast_args *a, const float *x0, const uint64_t *x1, float *y);
void ln_rt_pow_f64_f32(const ln_rt_bcast_args *a, const double *x0, const float *x1, double *y);
void ln_rt_pow_f64_f64(const ln_rt_bcast_args *a, const double *x0, const double *x1, double *y);
void ln_rt_pow_f64_s32(const ln_rt_bcast_args *a, const double *x0, const int32_t *x1, double *y);
void ln_rt_pow_f64_s64(const ln_rt_bcast_args *a, const double *x0, const int64_t *x1, double *y);
void ln_rt_pow_f64_u32(const ln_rt_bcast_args *a, const double *x0, const uint32_t *x1, double *y);
void ln_rt_pow_f64_u64(const ln_rt_bcast_args *a, const double *x0, const uint64_t *x1, double *y);
void ln_rt_pow_s32_f32(const ln_rt_bcast_args *a, const int32_t *x0, const float *x1, int32_t *y);
void ln_rt_pow_s32_f64(const ln_rt_bcast_args *a, const int32_t *x0, const double *x1, int32_t *y);
void ln_rt_pow_s32_s32(const ln_rt_bcast_args *a, const int32_t *x0, const int32_t *x1, int32_t *y);
void ln_rt_pow_s32_s64(const ln_rt_bcast_args *a, const int32_t *x0, const int64_t *x1, int32_t *y);
void ln_rt_pow_s32_u32(const ln_rt_bcast_args *a, const int32_t *x0, const uint32_t *x1, int32_t *y);
void ln_rt_pow_s32_u64(const ln_rt_bcast_args *a, const int32_t *x0, const uint64_t *x1, int32_t *y);
void ln_rt_pow_s64_f32(const ln_rt_bcast_args *a, const int64_t *x0, const float *x1, int64_t *y);
void ln_rt_pow_s64_f64(const ln_rt_bcast_args *a, const int64_t *x0, const double *x1, int64_t *y);
void ln_rt_pow_s64_s32(const ln_rt_bcast_args *a, const int64_t *x0, const int32_t *x1, int64_t *y);
void ln_rt_pow_s64_s64(const ln_rt_bcast_args *a, const int64_t *x0, const int64_t *x1, int64_t *y);
void ln_rt_pow_s64_u32(const ln_rt_bcast_args *a, const int64_t *x0, const uint32_t *x1, int64_t *y);
void ln_rt_pow_s64_u64(const ln_rt_bcast_args *a, const int64_t *x0, const uint64_t *x1, int64_t *y);
/* -x and |x|, wrapping (the negation of MIN is MIN) */
void ln_rt_neg_s32(const int32_t *x, int32_t *y, size_t n);
void ln_rt_neg_s64(const int64_t *x, int64_t *y, size_t n);
void ln_rt_abs_s32(const int32_t *x, int32_t *y, size_t n);
void ln_rt_abs_s64(const int64_t *x, int64_t *y, size_t n);
void ln_rt_equal_f32(const ln_rt_bcast_args *a, const float *x0, const float *x1, uint8_t *y);
void ln_rt_greater_f32(const ln_rt_bcast_args *a, const float *x0, const float *x1, uint8_t *y);
void ln_rt_less_f32(const ln_rt_bcast_args *a, const float *x0, const float *x1, uint8_t *y);
void ln_rt_greater_or_equal_f32(const ln_rt_bcast_args *a, const float *x0, const float *x1, uint8_t *y);
void ln_rt_less_or_equal_f32(const ln_rt_bcast_args *a, const float *x0, const float *x1, uint8_t *y);
void ln_rt_equal_s32(const ln_rt_bcast_args *a, const int32_t *x0, const int32_t *x1, uint8_t *y);
void ln_rt_greater_s32(const ln_rt_bcast_args *a, const int32_t *x0, const int32_t *x1, uint8_t *y);
void ln_rt_less_s32(const ln_rt_bcast_args *a, const int32_t *x0, const int32_t *x1, uint8_t *y);
void ln_rt_greater_or_equal_s32(const ln_rt_bcast_args *a, const int32_t *x0, const int32_t *x1, uint8_t *y);
void ln_rt_less_or_equal_s32(const ln_rt_bcast_args *a, const int32_t *x0, const int32_t *x1, uint8_t *y);
void ln_rt_equal_s64(const ln_rt_bcast_args *a, const int64_t *x0, const int64_t *x1, uint8_t *y);
void ln_rt_greater_s64(const ln_rt_bcast_args *a, const int64_t *x0, const int64_t *x1, uint8_t *y);
void ln_rt_less_s64(const ln_rt_bcast_args *a, const int64_t *x0, const int64_t *x1, uint8_t *y);
void ln_rt_greater_or_equal_s64(const ln_rt_bcast_args *a, const int64_t *x0, const int64_t *x1, uint8_t *y);
void ln_rt_less_or_equal_s64(const ln_rt_bcast_args *a, const int64_t *x0, const int64_t *x1, uint8_t *y);
void ln_rt_equal_b8(const ln_rt_bcast_args *a, const uint8_t *x0, const uint8_t *x1, uint8_t *y);
void ln_rt_and_b8(const ln_rt_bcast_args *a, const uint8_t *x0, const uint8_t *x1, uint8_t *y);
void ln_rt_or_b8(const ln_rt_bcast_args *a, const uint8_t *x0, const uint8_t *x1, uint8_t *y);
void ln_rt_xor_b8(const ln_rt_bcast_args *a, const uint8_t *x0, const uint8_t *x1, uint8_t *y);
void ln_rt_not_b8(const uint8_t *x, uint8_t *y, size_t n);
/* bool out: NaN; an infinity of a sign asked for (ONNX IsNaN, IsInf) */
void ln_rt_isnan_f32(const float *x, uint8_t *y, size_t n);
void ln_rt_isinf_f32(const float *x, uint8_t *y, size_t n, int32_t detect_negative,
                     int32_t detect_positive);
/* 1 at the first maximum along len of x viewed as [outer][len][inner], 0
 * elsewhere (ONNX Hardmax) */
void ln_rt_hardmax_f32(int32_t outer, int32_t len, int32_t inner, const float *x, float *y);
/* ONNX LpNormalization: y = x / ||x||_p over len (p 1 or 2, the norm summed
 * in double); a slice whose norm is 0 gives 0.  In-place safe. */
void ln_rt_lpnorm_f32(int32_t outer, int32_t len, int32_t inner, int p, const float *x, float *y);
/* ONNX Mod: fmod 0 takes the divisor's sign, 1 the dividend's (float:
 * always fmod); a divisor of 0 (or -1) gives 0. */
void ln_rt_mod_s32(const ln_rt_bcast_args *a, int32_t fmod, const int32_t *x0,
                   const int32_t *x1, int32_t *y);
void ln_rt_mod_s64(const ln_rt_bcast_args *a, int32_t fmod, const int64_t *x0,
                   const int64_t *x1, int64_t *y);
void ln_rt_mod_f32(const ln_rt_bcast_args *a, int32_t fmod, const float *x0, const float *x1,
                   float *y);
/* unsigned: both modes are %; float: always fmod */
void ln_rt_mod_s8(const ln_rt_bcast_args *a, int32_t fmod, const int8_t *x0,
                   const int8_t *x1, int8_t *y);
void ln_rt_mod_s16(const ln_rt_bcast_args *a, int32_t fmod, const int16_t *x0,
                   const int16_t *x1, int16_t *y);
void ln_rt_mod_u8(const ln_rt_bcast_args *a, int32_t fmod, const uint8_t *x0,
                   const uint8_t *x1, uint8_t *y);
void ln_rt_mod_u16(const ln_rt_bcast_args *a, int32_t fmod, const uint16_t *x0,
                   const uint16_t *x1, uint16_t *y);
void ln_rt_mod_u32(const ln_rt_bcast_args *a, int32_t fmod, const uint32_t *x0,
                   const uint32_t *x1, uint32_t *y);
void ln_rt_mod_u64(const ln_rt_bcast_args *a, int32_t fmod, const uint64_t *x0,
                   const uint64_t *x1, uint64_t *y);
void ln_rt_mod_f64(const ln_rt_bcast_args *a, int32_t fmod, const double *x0,
                   const double *x1, double *y);
void ln_rt_mod_f16(const ln_rt_bcast_args *a, int32_t fmod, const uint16_t *x0,
                   const uint16_t *x1, uint16_t *y);

/* ONNX BitShift: x0 << x1 (right 0) or x0 >> x1 (right != 0), unsigned;
 * a shift by the type's width or more gives 0. */
void ln_rt_bitshift_u8(const ln_rt_bcast_args *a, int right, const uint8_t *x0,
                        const uint8_t *x1, uint8_t *y);
void ln_rt_bitshift_u16(const ln_rt_bcast_args *a, int right, const uint16_t *x0,
                        const uint16_t *x1, uint16_t *y);
void ln_rt_bitshift_u32(const ln_rt_bcast_args *a, int right, const uint32_t *x0,
                        const uint32_t *x1, uint32_t *y);
void ln_rt_bitshift_u64(const ln_rt_bcast_args *a, int right, const uint64_t *x0,
                        const uint64_t *x1, uint64_t *y);

/* ---- where (ONNX Where) ----------------------------------------------------
 * dst = cond ? x : y elementwise, numpy broadcasting of the three (dims
 * right-aligned to ndim, 1 where an input has fewer), any element size. */
typedef struct ln_rt_where_args {
    int32_t ndim;
    int32_t c_dims[LN_RT_MAX_DIMS], x_dims[LN_RT_MAX_DIMS], y_dims[LN_RT_MAX_DIMS];
    int32_t o_dims[LN_RT_MAX_DIMS];
} ln_rt_where_args;

void ln_rt_where(const ln_rt_where_args *a, size_t elem_size, const uint8_t *cond,
                 const void *x, const void *y, void *dst);

/* ---- gather_elements (ONNX GatherElements) -----------------------------------
 * dst has the indices' shape; dst[i] = data[i with its axis coordinate
 * replaced by indices[i]] (negative indices count from the end; an index
 * out of range gives LN_RT_ARG_ERROR and stops). */
typedef struct ln_rt_gather_elements_args {
    int32_t ndim, axis;
    int32_t data_dims[LN_RT_MAX_DIMS], idx_dims[LN_RT_MAX_DIMS];
} ln_rt_gather_elements_args;

int ln_rt_gather_elements(const ln_rt_gather_elements_args *a, size_t elem_size,
                          const void *data, const int64_t *indices, void *dst);

/* ONNX ScatterElements: dst = data, then for each position p of indices
 * (the shape of updates) dst[p with its axis coordinate replaced by
 * indices[p]] = updates[p], or += / *= / max / min with reduction 1 / 2 /
 * 3 / 4 (float32 only).  An index out of range: LN_RT_ARG_ERROR. */
int ln_rt_scatter_elements(const ln_rt_gather_elements_args *a, int32_t reduction,
                           size_t elem_size, const void *data, const int64_t *indices,
                           const void *updates, void *dst);

/* ---- gather_nd / scatter_nd (ONNX GatherND, ScatterND) -------------------
 * data [batch][dims[0..k-1]][slice], indices [batch][count][k]: each index
 * tuple picks a slice of data (negative indices count from the end). */
typedef struct ln_rt_nd_args {
    int32_t k;                          /* the index tuple's length */
    int32_t dims[LN_RT_MAX_DIMS];       /* the k indexed dims of data */
    int64_t batch, count, slice;        /* batch_dims' product, tuples per batch, slice elements */
} ln_rt_nd_args;

/* dst [batch][count][slice] */
int ln_rt_gather_nd(const ln_rt_nd_args *a, size_t elem_size, const void *data,
                    const int64_t *indices, void *dst);
/* dst = data, then each tuple's slice = updates' (batch 1), or reduced as
 * ln_rt_scatter_elements (float32). */
int ln_rt_scatter_nd(const ln_rt_nd_args *a, int32_t reduction, size_t elem_size,
                     const void *data, const int64_t *indices, const void *updates, void *dst);

/* ---- onehot (ONNX OneHot) -----------------------------------------------
 * indices [outer][inner] -> y [outer][depth][inner]: values[1] where the
 * index (negative ones count from depth) is the position on the depth
 * axis, values[0] elsewhere (an index out of range or a fractional float
 * one: all values[0]); values are 2 elements of elem_size bytes. */
void ln_rt_onehot_f32(int32_t outer, int32_t depth, int32_t inner, const float *indices,
                      const void *values, size_t elem_size, void *y);
void ln_rt_onehot_s64(int32_t outer, int32_t depth, int32_t inner, const int64_t *indices,
                      const void *values, size_t elem_size, void *y);
void ln_rt_onehot_s32(int32_t outer, int32_t depth, int32_t inner, const int32_t *indices,
                      const void *values, size_t elem_size, void *y);

/* ---- cumsum (ONNX CumSum) -----------------------------------------------
 * x [outer][len][inner]: running sums along the middle axis, from the end
 * with reverse, each leaving out its own element with exclusive. */
void ln_rt_cumsum_f32(int32_t outer, int32_t len, int32_t inner, int32_t exclusive,
                      int32_t reverse, const float *x, float *y);
/* the integer ones wrap */
void ln_rt_cumsum_f64(int32_t outer, int32_t len, int32_t inner, int32_t exclusive,
                      int32_t reverse, const double *x, double *y);
void ln_rt_cumsum_s32(int32_t outer, int32_t len, int32_t inner, int32_t exclusive,
                      int32_t reverse, const int32_t *x, int32_t *y);
void ln_rt_cumsum_s64(int32_t outer, int32_t len, int32_t inner, int32_t exclusive,
                      int32_t reverse, const int64_t *x, int64_t *y);
void ln_rt_cumsum_u32(int32_t outer, int32_t len, int32_t inner, int32_t exclusive,
                      int32_t reverse, const uint32_t *x, uint32_t *y);
void ln_rt_cumsum_u64(int32_t outer, int32_t len, int32_t inner, int32_t exclusive,
                      int32_t reverse, const uint64_t *x, uint64_t *y);

/* ---- topk (ONNX TopK) ---------------------------------------------------
 * x [outer][len][inner]: the k largest (largest != 0) or smallest of each
 * run along the middle axis, sorted, ties by the lower index; values and
 * their int64 indices [outer][k][inner].  NaN counts as the largest. */
void ln_rt_topk_f32(int32_t outer, int32_t len, int32_t inner, int32_t k, int32_t largest,
                    const float *x, float *values, int64_t *indices);

/* ---- trilu (ONNX Trilu) ------------------------------------------------
 * x [batch][m][n]: y[b][i][j] = x[b][i][j] where j - i >= k (upper) or
 * j - i <= k (lower), else zero bytes; any element size. */
typedef struct ln_rt_trilu_args {
    int32_t batch, m, n;
} ln_rt_trilu_args;

void ln_rt_trilu(const ln_rt_trilu_args *a, int64_t k, int32_t upper, size_t elem_size,
                 const void *x, void *y);

/* ---- einsum (ONNX Einsum) ----------------------------------------------
 * One or two operands, the equation resolved at compile time into nidx
 * distinct indices: the output's first, in output order (the output is
 * written in that row-major order), then the summed ones.  stride_a[i]
 * and stride_b[i] are index i's steps in the operands' elements
 * (0 where the operand lacks it or broadcasts it; a repeated index, a
 * diagonal, has the sum of its axes' strides).  float32, float64, int32
 * or int64 (dtype); sums in double for floats, int64 for integers.  b is
 * NULL for one operand.  Returns LN_RT_ARG_ERROR for bad args. */
#define LN_RT_EINSUM_MAX_INDICES 16
typedef struct {
    int32_t nin, nidx, nout;
    ln_rt_dtype dtype;
    int32_t extent[LN_RT_EINSUM_MAX_INDICES];
    int64_t stride_a[LN_RT_EINSUM_MAX_INDICES];
    int64_t stride_b[LN_RT_EINSUM_MAX_INDICES];
} ln_rt_einsum_args;

int ln_rt_einsum(const ln_rt_einsum_args *a, const void *x0, const void *x1, void *y);

/* ---- compress (ONNX Compress) --------------------------------------------
 * x [outer][len][inner]: the [outer][inner] slices j < min(len, cond_len)
 * where cond[j] != 0, in order, into y [outer][count][inner]; any element
 * size.  (Without an axis, ONNX's input flattened: outer = inner = 1.) */
typedef struct {
    int32_t outer, len, inner;
} ln_rt_compress_args;

void ln_rt_compress(const ln_rt_compress_args *a, const int *cond, int32_t cond_len,
                    size_t elem_size, const void *x, void *y);

/* ONNX NonZero: the number of nonzero elements of x (ndim dims, row-major,
 * elements of elem_size bytes: 1, 2, 4 or 8; is_float: float32 or float64,
 * where -0.0 is zero and NaN is not), and when idx is not NULL their
 * indices, idx [ndim][count] int64 in row-major order.  The importer runs
 * it on constants (an output whose shape depends on the data). */
size_t ln_rt_nonzero(int32_t ndim, const int32_t *dims, size_t elem_size, int is_float,
                     const void *x, int64_t *idx);

/* ---- spectral (ONNX HannWindow, HammingWindow, BlackmanWindow, DFT, STFT,
 * MelWeightMatrix) ---------------------------------------------------------
 * Windows of n points: w[i] = sum_k a_k cos(2 pi k i / d), d = n when
 * periodic, else n - 1 (a one-point symmetric window is 1). */
typedef enum {
    LN_RT_WINDOW_HANN = 0,         /* 0.5, -0.5 */
    LN_RT_WINDOW_HAMMING,          /* 25/46, -21/46 */
    LN_RT_WINDOW_BLACKMAN          /* 0.42, -0.5, 0.08 */
} ln_rt_window_kind;

void ln_rt_window_f32(ln_rt_window_kind kind, int32_t n, int32_t periodic, float *y);

/* A DFT of length n along the middle axis of x [outer][len][inner][c]
 * (c = 1: real, 2: complex as (re, im)) into y [outer][nout][inner][2]:
 * X[k] = sum_{t < min(n, len)} x[t] e^(-+2 pi i k t / n), k < nout (n, or
 * n / 2 + 1 one-sided), the inverse (+, divided by n) when inverse != 0;
 * x beyond len is zero (a longer n pads, a shorter one truncates).  Needs
 * ln_rt_dft_scratch_size() bytes of scratch (the twiddles and an n-point
 * buffer); a power-of-two n runs a radix-2 FFT, any other n the sums
 * directly, O(n * nout) per transform. */
typedef struct {
    int32_t outer, len, inner, c;
    int32_t n, nout, inverse;
} ln_rt_dft_args;

size_t ln_rt_dft_scratch_size(const ln_rt_dft_args *a);
int ln_rt_dft_f32(const ln_rt_dft_args *a, const float *x, float *y, void *scratch);

/* STFT of x [batch][len][c] (c = 1 or 2): frames t * step .. t * step +
 * n - 1 for t < frames, each times window (NULL: none, else n values),
 * then the DFT of length n, nout bins: y [batch][frames][nout][2].
 * Scratch: ln_rt_stft_scratch_size() bytes (as the DFT's). */
typedef struct {
    int32_t batch, len, c;
    int32_t step, frames, n, nout;
} ln_rt_stft_args;

size_t ln_rt_stft_scratch_size(const ln_rt_stft_args *a);
int ln_rt_stft_f32(const ln_rt_stft_args *a, const float *x, const float *window, float *y,
                   void *scratch);

/* ONNX MelWeightMatrix: y [dft_length / 2 + 1][bins], triangles between
 * num_mel_bins + 2 points evenly spaced on the mel scale (2595 log10(1 +
 * f / 700)) from lower to upper hertz, each point's bin
 * floor((dft_length + 1) f / sample_rate), as the spec's algorithm. */
void ln_rt_mel_weight_matrix_f32(int32_t bins, int32_t dft_length, int32_t sample_rate,
                                 float lower_hz, float upper_hz, float *y);

/* ---- eyelike, reverse_sequence, mvn, det (ONNX EyeLike, ReverseSequence,
 * MeanVarianceNormalization, Det) ------------------------------------------
 * EyeLike: y [rows][cols] of dtype: 1 where j - i == k, else 0.  Returns
 * LN_RT_ARG_ERROR for a dtype it lacks (all of ln_rt_dtype are there). */
int ln_rt_eyelike(int32_t rows, int32_t cols, int64_t k, ln_rt_dtype dtype, void *y);

/* ReverseSequence: x [time][batch][inner] (time_axis 0) or [batch][time]
 * [inner] (time_axis 1): for each batch b, the first lens[b] steps reversed,
 * the rest copied; lens outside [0, time] are clamped into it (ONNX calls
 * them invalid).  Any element size.  Not in-place safe. */
typedef struct {
    int32_t time, batch, inner, time_axis;
} ln_rt_reverse_sequence_args;

void ln_rt_reverse_sequence(const ln_rt_reverse_sequence_args *a, size_t elem_size,
                            const int64_t *lens, const void *x, void *y);

/* MeanVarianceNormalization over the axes of a->axes_mask (a reduce's
 * geometry): y = (x - mean) / (sqrt(mean(x^2) - mean^2) + 1e-9), the ONNX
 * function's formula, statistics in double. */
void ln_rt_mvn_f32(const ln_rt_reduce_args *a, const float *x, float *y);

/* Det of batch matrices x [batch][n][n]: LU with partial pivoting in
 * double, in ln_rt_det_scratch_size(n) bytes of scratch (one matrix). */
size_t ln_rt_det_scratch_size(int32_t n);
void ln_rt_det_f32(int32_t batch, int32_t n, const float *x, float *y, void *scratch);
/* ---- if_merge (an output of a run-time ONNX If) -------------------------
 * dst = cond[0] ? on_true : on_false, bytes bytes; nothing is copied when
 * the taken branch wrote its result into dst already (the planner's usual
 * case). */
void ln_rt_if_merge(const uint8_t *cond, const void *on_true, const void *on_false, void *dst,
                    size_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* LN_RT_H */
