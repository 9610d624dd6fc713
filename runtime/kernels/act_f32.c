/*
 * act_f32.c -- the activations that need no libm (relu, leaky relu, clip,
 * softsign) and the fused-activation helper conv2d and gemm use. Every
 * kernel is in-place safe; plain loops that the compiler vectorizes at -O3.
 */
#include "ln_rt_internal.h"

void ln_rt__act_f32(float *y, size_t n, ln_rt_act act, float alpha,
                    float beta)
{
    size_t i;
    switch (act) {
    case LN_RT_ACT_NONE: break;
    case LN_RT_ACT_RELU: ln_rt_relu_f32(y, y, n); break;
    case LN_RT_ACT_RELU6: ln_rt_clip_f32(y, y, n, 0.0f, 6.0f); break;
    case LN_RT_ACT_LEAKYRELU: ln_rt_leakyrelu_f32(y, y, n, alpha); break;
    case LN_RT_ACT_CLIP: ln_rt_clip_f32(y, y, n, alpha, beta); break;
    default:
        for (i = 0; i < n; i++)
            y[i] = ln_rt__act1(y[i], act, alpha, beta);
    }
}

void ln_rt_relu_f32(const float *x, float *y, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

void ln_rt_leakyrelu_f32(const float *x, float *y, size_t n, float alpha)
{
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = x[i] < 0.0f ? x[i] * alpha : x[i];
}

void ln_rt_clip_f32(const float *x, float *y, size_t n, float lo, float hi)
{
    size_t i;
    for (i = 0; i < n; i++) {
        float v = x[i] < lo ? lo : x[i];
        y[i] = v > hi ? hi : v;
    }
}

/* y = x / (1 + |x|) (ONNX Softsign) */
void ln_rt_softsign_f32(const float *x, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float v = x[i];
        y[i] = v / (1.0f + (v < 0 ? -v : v));
    }
}

/* ln_rt_clip_f32 with bounds that may come at run time: *lo_t and *hi_t
 * when not NULL (ONNX Clip's min and max inputs computed by the graph) */
void ln_rt_clip_t_f32(const float *x, float *y, size_t n, float lo, float hi, const float *lo_t,
                      const float *hi_t)
{
    ln_rt_clip_f32(x, y, n, lo_t ? *lo_t : lo, hi_t ? *hi_t : hi);
}
