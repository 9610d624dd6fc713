/*
 * s8_check.c -- every TensorFlow Lite int8 reference case through its
 * libln_rt kernel, compared bit for bit (s8_cases.h).  No malloc and no
 * stdio, so the same code runs on the host and on the Cortex-M4.
 */
#include <math.h>
#include <string.h>
#include "ln_rt.h"
#include "s8_cases.h"

#define OUT_MAX 65536
static int8_t out[OUT_MAX];
static int32_t scratch[OUT_MAX];
static int8_t x_nchw[OUT_MAX], w_oihw[OUT_MAX], y_nchw[OUT_MAX];

static void put_int(char *s, long v)
{
    char t[24];
    int n = 0, neg = v < 0;
    unsigned long u = neg ? (unsigned long)-v : (unsigned long)v;

    do {
        t[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    s += strlen(s);
    if (neg)
        *s++ = '-';
    while (n)
        *s++ = t[--n];
    *s = '\0';
}

static void conv_args(const s8_cfg *f, ln_rt_s8_conv_args *a)
{
    a->n = f->n;
    a->h = f->h;
    a->w = f->w;
    a->c = f->c;
    a->oh = f->oh;
    a->ow = f->ow;
    a->oc = f->oc;
    a->kh = f->kh;
    a->kw = f->kw;
    a->stride_h = f->sh;
    a->stride_w = f->sw;
    a->dil_h = f->dh;
    a->dil_w = f->dw;
    a->pad_top = f->pt;
    a->pad_left = f->pl;
    a->group = f->group;
    a->ch_mult = f->mult;
    a->input_offset = f->in_off;
    a->output_offset = f->out_off;
    a->act_min = f->lo;
    a->act_max = f->hi;
}

/* Run case k into out; 0, or 1 when the kernel refused its arguments. */
static int run(const s8_case *k)
{
    const s8_cfg *f = &k->cfg;
    ln_rt_s8_conv_args ca;
    ln_rt_s8_fc_args fa;
    ln_rt_s8_pool_args pa;
    ln_rt_s8_binary_args ba;

    switch (k->kind) {
    case S8_CONV:
        conv_args(f, &ca);
        return ln_rt_conv2d_s8(&ca, k->in1, k->w, k->bias, k->mult, k->shift, out) != LN_RT_OK;
    case S8_DEPTHWISE:
        conv_args(f, &ca);
        return ln_rt_conv2d_depthwise_s8(&ca, k->in1, k->w, k->bias, k->mult, k->shift, out) !=
               LN_RT_OK;
    case S8_TRANSPOSE_CONV:
        conv_args(f, &ca);
        if (ln_rt_conv_transpose2d_s8_scratch_size(&ca) > sizeof scratch)
            return 1;
        return ln_rt_conv_transpose2d_s8(&ca, k->in1, k->w, k->bias, k->mult, k->shift, out,
                                         scratch) != LN_RT_OK;
    case S8_FC:
        fa.batches = f->n;
        fa.in = f->c;
        fa.out = f->oc;
        fa.input_offset = f->in_off;
        fa.filter_offset = f->w_off;
        fa.output_offset = f->out_off;
        fa.act_min = f->lo;
        fa.act_max = f->hi;
        fa.per_channel = f->per_ch;
        return ln_rt_fully_connected_s8(&fa, k->in1, k->w, k->bias,
                                        f->per_ch ? k->mult : &f->mult1,
                                        f->per_ch ? k->shift : &f->shift1, out) != LN_RT_OK;
    case S8_AVGPOOL:
    case S8_MAXPOOL:
        pa.n = f->n;
        pa.h = f->h;
        pa.w = f->w;
        pa.c = f->c;
        pa.oh = f->oh;
        pa.ow = f->ow;
        pa.kh = f->kh;
        pa.kw = f->kw;
        pa.stride_h = f->sh;
        pa.stride_w = f->sw;
        pa.pad_top = f->pt;
        pa.pad_left = f->pl;
        pa.act_min = f->lo;
        pa.act_max = f->hi;
        if (k->kind == S8_AVGPOOL)
            ln_rt_avgpool2d_nhwc_s8(&pa, k->in1, out);
        else
            ln_rt_maxpool2d_nhwc_s8(&pa, k->in1, out);
        return 0;
    case S8_ADD:
    case S8_MUL:
        ba.in1_offset = f->in_off;
        ba.in2_offset = f->in2_off;
        ba.output_offset = f->out_off;
        ba.in1_mult = f->m1;
        ba.in1_shift = f->s1;
        ba.in2_mult = f->m2;
        ba.in2_shift = f->s2;
        ba.left_shift = f->left;
        ba.output_mult = f->mult1;
        ba.output_shift = f->shift1;
        ba.act_min = f->lo;
        ba.act_max = f->hi;
        if (k->kind == S8_ADD)
            ln_rt_add_s8(&ba, k->in1, k->in2, out, (size_t)f->size);
        else
            ln_rt_mul_s8(&ba, k->in1, k->in2, out, (size_t)f->size);
        return 0;
    case S8_MAXIMUM:
        ln_rt_maximum_s8(f->d1, k->in1, f->d2, k->in2, out);
        return 0;
    case S8_MINIMUM:
        ln_rt_minimum_s8(f->d1, k->in1, f->d2, k->in2, out);
        return 0;
    case S8_PAD:
        ln_rt_pad_nhwc_s8(f->d1, f->pre, f->post, (int8_t)f->value, k->in1, out);
        return 0;
    case S8_SOFTMAX:
        ln_rt_softmax_s8(f->n, f->c, f->mult1, f->left, f->diff_min, k->in1, out);
        return 0;
    default:
        return 1;
    }
}

/* A conv or depthwise case again through ln_rt_conv2d_nchw_s8: input,
 * weights and output transposed to NCHW / OIHW and the output back, so
 * the same reference checks the NCHW kernel.  -1 when k is not a conv or
 * does not fit the buffers. */
static int run_nchw(const s8_case *k)
{
    const s8_cfg *f = &k->cfg;
    ln_rt_s8_conv_args ca;
    int dw = k->kind == S8_DEPTHWISE;
    int32_t g = dw ? f->c : (f->group > 0 ? f->group : 1), cg = f->c / g;
    size_t nx = (size_t)f->n * f->h * f->w * f->c, nw = (size_t)f->oc * f->kh * f->kw * cg;

    if ((k->kind != S8_CONV && !dw) || nx > OUT_MAX || nw > OUT_MAX || k->n_ref > OUT_MAX)
        return -1;
    conv_args(f, &ca);
    ca.group = g;
    for (int32_t b = 0; b < f->n; b++)
        for (int32_t y = 0; y < f->h; y++)
            for (int32_t x = 0; x < f->w; x++)
                for (int32_t c = 0; c < f->c; c++)
                    x_nchw[(((size_t)b * f->c + c) * f->h + y) * f->w + x] =
                        k->in1[(((size_t)b * f->h + y) * f->w + x) * f->c + c];
    for (int32_t o = 0; o < f->oc; o++)     /* NHWC [oc][kh][kw][cg]; depthwise [1][kh][kw][oc] */
        for (int32_t i = 0; i < cg; i++)
            for (int32_t y = 0; y < f->kh; y++)
                for (int32_t x = 0; x < f->kw; x++)
                    w_oihw[(((size_t)o * cg + i) * f->kh + y) * f->kw + x] =
                        dw ? k->w[((size_t)y * f->kw + x) * f->oc + o]
                           : k->w[(((size_t)o * f->kh + y) * f->kw + x) * cg + i];
    if (ln_rt_conv2d_nchw_s8_scratch_size(&ca) > sizeof scratch ||
        ln_rt_conv2d_nchw_s8(&ca, x_nchw, w_oihw, k->bias, k->mult, k->shift, y_nchw,
                             scratch) != LN_RT_OK)
        return 1;
    for (int32_t b = 0; b < f->n; b++)
        for (int32_t y = 0; y < f->oh; y++)
            for (int32_t x = 0; x < f->ow; x++)
                for (int32_t c = 0; c < f->oc; c++)
                    out[(((size_t)b * f->oh + y) * f->ow + x) * f->oc + c] =
                        y_nchw[(((size_t)b * f->oc + c) * f->oh + y) * f->ow + x];
    return 0;
}

int s8_check_all(void (*report)(const char *line), int *n_cases)
{
    char line[200];
    int fails = 0, n = 0;

    for (int pass = 0; pass < 2; pass++)
    for (const s8_case *k = s8_cases; k->name; k++) {
        size_t i = 0;
        int refused;
        if (pass == 1) {
            memset(out, 0x5a, k->n_ref <= OUT_MAX ? k->n_ref : 0);
            if ((refused = run_nchw(k)) < 0)
                continue;
        } else if (k->n_ref > OUT_MAX) {
            refused = 1;
        } else {
            memset(out, 0x5a, k->n_ref);
            refused = run(k);
        }
        n++;
        while (!refused && i < k->n_ref && out[i] == k->ref[i])
            i++;
        if (!refused && i == k->n_ref)
            continue;
        fails++;
        strcpy(line, "FAIL int8 ");
        strcat(line, k->name);
        if (pass == 1)
            strcat(line, " (NCHW)");
        if (refused) {
            strcat(line, ": the kernel refused the arguments");
        } else {
            strcat(line, ": element ");
            put_int(line, (long)i);
            strcat(line, " is ");
            put_int(line, out[i]);
            strcat(line, ", TFLite ");
            put_int(line, k->ref[i]);
        }
        strcat(line, "\n");
        report(line);
    }
    *n_cases = n;
    return fails;
}

/* ---- ln_rt_conv2d_nchw_s8 on random geometries ------------------------- */

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

static int32_t pick(uint32_t *s, int32_t lo, int32_t hi)
{
    return lo + (int32_t)(lcg(s) % (uint32_t)(hi - lo + 1));
}

/* The plain NCHW convolution, every tap tested (the definition). */
static void conv_nchw_ref(const ln_rt_s8_conv_args *a, const int8_t *x, const int8_t *w,
                          const int32_t *bias, const int32_t *mult, const int32_t *shift,
                          int8_t *y)
{
    int32_t cg = a->c / a->group, og = a->oc / a->group;

    for (int32_t b = 0; b < a->n; b++)
        for (int32_t o = 0; o < a->oc; o++)
            for (int32_t oy = 0; oy < a->oh; oy++)
                for (int32_t ox = 0; ox < a->ow; ox++) {
                    int32_t acc = bias[o], c0 = (o / og) * cg;
                    for (int32_t i = 0; i < cg; i++)
                        for (int32_t ky = 0; ky < a->kh; ky++)
                            for (int32_t kx = 0; kx < a->kw; kx++) {
                                int32_t iy = oy * a->stride_h - a->pad_top + ky * a->dil_h;
                                int32_t ix = ox * a->stride_w - a->pad_left + kx * a->dil_w;
                                if (iy < 0 || iy >= a->h || ix < 0 || ix >= a->w)
                                    continue;
                                acc += (x[(((size_t)b * a->c + c0 + i) * a->h + iy) * a->w + ix] +
                                        a->input_offset) *
                                       w[(((size_t)o * cg + i) * a->kh + ky) * a->kw + kx];
                            }
                    acc = ln_rt_s8_requantize(acc, mult[o], shift[o]) + a->output_offset;
                    y[(((size_t)b * a->oc + o) * a->oh + oy) * a->ow + ox] =
                        (int8_t)(acc < a->act_min ? a->act_min : acc > a->act_max ? a->act_max : acc);
                }
}

/* Four kinds in turn: any small conv (groups, strides 1-3, dilations,
 * asymmetric pads); depthwise 3x3 at stride 1 or 2 with pads 0-2 (the
 * DSP kernel's own path, border columns and rows included; planes small
 * enough to pad whole and larger ones, padded row by row); pointwise with
 * 1-40 channels (K not a multiple of 4, odd pixel counts) or 257-300 (too
 * wide for the DSP kernels' stack columns: in scratch); larger kernels
 * with up to 20 channels per group (K up to 400: columns in scratch).  Outputs compared bit for bit with the
 * definition. */
int s8_check_nchw_random(int n_geometries, uint32_t seed, void (*report)(const char *line),
                         int *n_checked)
{
    static int32_t bias[64], mult[64], shift[64];
    char line[200];
    int fails = 0, n = 0;

    for (int t = 0; t < n_geometries; t++) {
        ln_rt_s8_conv_args a;
        int32_t g, cg, og, kind = t % 4;
        size_t nx, nw, ny, i;
        memset(&a, 0, sizeof a);
        a.n = pick(&seed, 1, 2);
        a.dil_h = a.dil_w = 1;
        a.stride_h = a.stride_w = 1;
        if (kind == 0) {
            g = pick(&seed, 1, 3);
            cg = pick(&seed, 1, 3);
            og = pick(&seed, 1, 3);
            a.h = pick(&seed, 1, 9);
            a.w = pick(&seed, 1, t % 10 == 0 ? 150 : 12);
            a.kh = pick(&seed, 1, 3);
            a.kw = pick(&seed, 1, 3);
            a.stride_h = pick(&seed, 1, 3);
            a.stride_w = pick(&seed, 1, 3);
            a.dil_h = pick(&seed, 1, 2);
            a.dil_w = pick(&seed, 1, 2);
            a.pad_top = pick(&seed, 0, 2);
            a.pad_left = pick(&seed, 0, 2);
        } else if (kind == 1) {
            int big = pick(&seed, 0, 3) == 0;      /* past the DSP kernel's 1 KB plane */
            g = pick(&seed, 1, big ? 8 : 20);
            cg = og = 1;
            a.h = pick(&seed, big ? 30 : 1, big ? 40 : 12);
            a.w = pick(&seed, big ? 40 : 1, big ? 70 : 40);
            a.kh = a.kw = 3;
            a.stride_h = pick(&seed, 1, 2);
            a.stride_w = pick(&seed, 1, 2);
            a.pad_top = pick(&seed, 0, 2);
            a.pad_left = pick(&seed, 0, 2);
        } else if (kind == 2) {
            g = pick(&seed, 0, 3) == 0 ? 2 : 1;
            /* one in five wider than the DSP kernels' stack columns */
            cg = pick(&seed, 0, 4) == 0 ? pick(&seed, 257, 300) : pick(&seed, 1, 40);
            og = pick(&seed, 1, 20);
            a.h = pick(&seed, 1, 8);
            a.w = pick(&seed, 1, 15);
            a.kh = a.kw = 1;
        } else {
            g = pick(&seed, 1, 2);
            cg = pick(&seed, 1, 20);        /* K up to 400: columns in scratch */
            og = pick(&seed, 1, 9);
            a.h = pick(&seed, 3, 12);
            a.w = pick(&seed, 3, 14);
            a.kh = pick(&seed, 1, 4);
            a.kw = pick(&seed, 1, 5);
            a.stride_h = pick(&seed, 1, 2);
            a.stride_w = pick(&seed, 1, 2);
            a.pad_top = pick(&seed, 0, 2);
            a.pad_left = pick(&seed, 0, 2);
        }
        a.c = g * cg;
        a.oc = g * og;
        a.group = g;
        a.ch_mult = 1;
        a.oh = (a.h + 2 * a.pad_top - a.dil_h * (a.kh - 1) - 1) / a.stride_h + 1;
        a.ow = (a.w + 2 * a.pad_left - a.dil_w * (a.kw - 1) - 1) / a.stride_w + 1;
        a.input_offset = pick(&seed, -127, 128);
        a.output_offset = pick(&seed, -128, 127);
        a.act_min = -128 + pick(&seed, 0, 19);
        a.act_max = 127 - pick(&seed, 0, 19);
        if (a.oh < 1 || a.ow < 1)
            continue;
        nx = (size_t)a.n * a.c * a.h * a.w;
        nw = (size_t)a.oc * cg * a.kh * a.kw;
        ny = (size_t)a.n * a.oc * a.oh * a.ow;
        if (nx > OUT_MAX || nw > OUT_MAX || ny > OUT_MAX || a.oc > 64 ||
            ln_rt_conv2d_nchw_s8_scratch_size(&a) > sizeof scratch)
            continue;
        for (i = 0; i < nx; i++)
            x_nchw[i] = (int8_t)(lcg(&seed) & 0xff);
        for (i = 0; i < nw; i++)
            w_oihw[i] = (int8_t)pick(&seed, -127, 127);
        for (int32_t o = 0; o < a.oc; o++) {
            bias[o] = pick(&seed, -10000, 10000);
            mult[o] = (int32_t)(1073741824u + lcg(&seed) % 1073741823u);
            shift[o] = -pick(&seed, 0, 9);
        }
        conv_nchw_ref(&a, x_nchw, w_oihw, bias, mult, shift, out);
        memset(y_nchw, 0x5a, ny);
        n++;
        /* one in five without scratch, as a plan for another target gives:
         * the DSP kernels then take the portable path where they need it */
        if (ln_rt_conv2d_nchw_s8(&a, x_nchw, w_oihw, bias, mult, shift, y_nchw,
                                 t % 5 == 4 ? NULL : (void *)scratch) != LN_RT_OK) {
            i = 0;
        } else {
            for (i = 0; i < ny && y_nchw[i] == out[i]; i++)
                ;
            if (i == ny)
                continue;
        }
        fails++;
        strcpy(line, "FAIL int8 NCHW conv, random geometry ");
        put_int(line, t);
        strcat(line, ": c ");
        put_int(line, a.c);
        strcat(line, " oc ");
        put_int(line, a.oc);
        strcat(line, " group ");
        put_int(line, a.group);
        strcat(line, " k ");
        put_int(line, a.kh);
        strcat(line, "x");
        put_int(line, a.kw);
        strcat(line, " stride ");
        put_int(line, a.stride_h);
        strcat(line, ",");
        put_int(line, a.stride_w);
        strcat(line, " pad ");
        put_int(line, a.pad_top);
        strcat(line, ",");
        put_int(line, a.pad_left);
        strcat(line, " in ");
        put_int(line, a.h);
        strcat(line, "x");
        put_int(line, a.w);
        strcat(line, ": element ");
        put_int(line, (long)i);
        strcat(line, "\n");
        report(line);
    }
    *n_checked = n;
    return fails;
}

/* ---- QuantizeLinear rounding ------------------------------------------ */

/* ln_rt_quantize_s8/_u8 against rintf (ties to even) + zero point,
 * saturated: every quarter and every tie in [-300, 300], values around
 * 2^22 and 2^23, huge, infinite, NaN and signed zeros, under scales
 * 1, 0.5, 0.1 and 3.7 and zero points at both ends. */
int s8_check_quantize(void (*report)(const char *line), int *n_checked)
{
    static float x[2600];
    static int8_t ys[2600];
    static uint8_t yu[2600];
    static const float scales[] = {1.0f, 0.5f, 0.1f, 3.7f};
    static const int8_t zs8[] = {-128, 0, 5, 127};
    static const uint8_t zu8[] = {0, 128, 255, 3};
    static const float odd[] = {4194303.5f, 4194304.5f, -4194303.5f, -4194304.5f, 8388609.0f,
                                -8388609.0f, 1e10f, -1e10f, 0.0f, -0.0f, 1e-30f, -1e-30f};
    ln_rt_quant_args a;
    char line[160];
    int n = 0, fails = 0, m = 0;

    for (int i = -1200; i <= 1200; i++)
        x[m++] = (float)i * 0.25f;
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++)
        x[m++] = odd[i];
    x[m++] = INFINITY;
    x[m++] = -INFINITY;
    x[m++] = NAN;
    a.outer = 1;
    a.len = 1;
    a.inner = m;
    a.per_axis = 0;
    for (int si = 0; si < 4; si++)
        for (int zi = 0; zi < 4; zi++) {
            ln_rt_quantize_s8(&a, x, &scales[si], &zs8[zi], ys);
            ln_rt_quantize_u8(&a, x, &scales[si], &zu8[zi], yu);
            for (int i = 0; i < m; i++) {
                float q = x[i] / scales[si], r = rintf(q);
                float vs = r + zs8[zi], vu = r + zu8[zi];
                int8_t ws = (int8_t)(q != q ? zs8[zi] : vs < -128.0f ? -128 : vs > 127.0f ? 127 : vs);
                uint8_t wu = (uint8_t)(q != q ? zu8[zi] : vu < 0.0f ? 0 : vu > 255.0f ? 255 : vu);
                n++;
                if (ys[i] == ws && yu[i] == wu)
                    continue;
                fails++;
                if (fails > 5)
                    continue;
                strcpy(line, "FAIL quantize: element ");
                put_int(line, i);
                strcat(line, " scale index ");
                put_int(line, si);
                strcat(line, " zero point index ");
                put_int(line, zi);
                strcat(line, "\n");
                report(line);
            }
        }
    *n_checked = n;
    return fails;
}

/* ---- the fixed-point primitives against TFLite's definitions ----------- */

/* TFLite's SaturatingRoundingDoublingHighMul as written there: the nudge,
 * then a division toward zero. */
static int32_t srdhm_def(int32_t a, int32_t b)
{
    int64_t ab = (int64_t)a * (int64_t)b;
    int64_t nudge = ab >= 0 ? ((int64_t)1 << 30) : 1 - ((int64_t)1 << 30);

    if (a == INT32_MIN && b == INT32_MIN)
        return INT32_MAX;
    return (int32_t)((ab + nudge) / ((int64_t)1 << 31));
}

/* RoundingDivideByPOT as written there. */
static int32_t rdivpot_def(int32_t x, int e)
{
    int64_t mask = ((int64_t)1 << e) - 1, rem = (int64_t)x & mask;
    int64_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    int64_t q = x >= 0 ? (int64_t)x / ((int64_t)1 << e)
                       : -((-(int64_t)x + ((int64_t)1 << e) - 1) / ((int64_t)1 << e));
    return (int32_t)(q + (rem > threshold ? 1 : 0));
}

/* ln_rt_s8_requantize (default double rounding) against the two
 * definitions above, on 200,000 random (x, mult, shift) -- multipliers of
 * both signs and all magnitudes, shifts -31..+8 -- and the extremes. */
int s8_check_fixed_point(void (*report)(const char *line), int *n_checked)
{
    static const int32_t edge[] = {INT32_MIN, INT32_MIN + 1, -1073741824, -1073741823, -65536,
                                   -3, -2, -1, 0, 1, 2, 3, 65535, 1073741823, 1073741824,
                                   INT32_MAX - 1, INT32_MAX};
    uint32_t seed = 777;
    int n = 0, fails = 0;
    char line[160];

    for (int t = 0; t < 200000 + 17 * 17 * 4; t++) {
        int32_t x, m, sh, want, got;
        if (t < 17 * 17 * 4) {
            x = edge[t % 17];
            m = edge[(t / 17) % 17];
            sh = (t / 289) % 4 == 0 ? 0 : (t / 289) % 4 == 1 ? -1 : (t / 289) % 4 == 2 ? -31 : 1;
        } else {
            x = (int32_t)(lcg(&seed) << 8 ^ lcg(&seed));
            m = (int32_t)(lcg(&seed) << 8 ^ lcg(&seed));
            if (t % 3 == 0)
                x >>= lcg(&seed) % 31;      /* small accumulators too */
            sh = pick(&seed, -31, 8);
        }
        if (sh > 0)
            want = rdivpot_def(srdhm_def((int32_t)((uint32_t)x << sh), m), 0);
        else
            want = rdivpot_def(srdhm_def(x, m), -sh);
        got = ln_rt_s8_requantize(x, m, sh);
        n++;
        if (got == want)
            continue;
        if (++fails > 5)
            continue;
        strcpy(line, "FAIL requantize(");
        put_int(line, x);
        strcat(line, ", ");
        put_int(line, m);
        strcat(line, ", ");
        put_int(line, sh);
        strcat(line, ") = ");
        put_int(line, got);
        strcat(line, ", TFLite ");
        put_int(line, want);
        strcat(line, "\n");
        report(line);
    }
    *n_checked = n;
    return fails;
}

/* ---- ln_rt_fully_connected_s8 on random shapes ------------------------- */

/* Against the definition: batches 1-3, 1-40 outputs (under four, a last
 * group of fewer than four), 1-1100 inputs (past the DSP kernel's 1,024 of
 * stack: the portable kernel), per-tensor and per-channel multipliers, a
 * weight zero point now and then. */
int s8_check_fc_random(int n_shapes, uint32_t seed, void (*report)(const char *line),
                       int *n_checked)
{
    static int32_t bias[64], mult[64], shift[64];
    char line[160];
    int fails = 0, n = 0;

    for (int t = 0; t < n_shapes; t++) {
        ln_rt_s8_fc_args a;
        size_t i;
        a.batches = pick(&seed, 1, 3);
        a.out = pick(&seed, 1, 40);
        a.in = t % 5 == 0 ? pick(&seed, 1000, 1100) : pick(&seed, 1, 300);
        a.input_offset = pick(&seed, -127, 128);
        a.filter_offset = t % 7 == 0 ? pick(&seed, -20, 20) : 0;
        a.output_offset = pick(&seed, -128, 127);
        a.act_min = -128 + pick(&seed, 0, 19);
        a.act_max = 127 - pick(&seed, 0, 19);
        a.per_channel = pick(&seed, 0, 1);
        if ((size_t)a.out * a.in > OUT_MAX || (size_t)a.batches * a.in > OUT_MAX)
            continue;
        for (i = 0; i < (size_t)a.batches * a.in; i++)
            x_nchw[i] = (int8_t)(lcg(&seed) & 0xff);
        for (i = 0; i < (size_t)a.out * a.in; i++)
            w_oihw[i] = (int8_t)pick(&seed, -127, 127);
        for (int32_t o = 0; o < a.out; o++) {
            bias[o] = pick(&seed, -10000, 10000);
            mult[o] = (int32_t)(1073741824u + lcg(&seed) % 1073741823u);
            shift[o] = -pick(&seed, 0, 12);
        }
        for (int32_t b = 0; b < a.batches; b++)
            for (int32_t o = 0; o < a.out; o++) {
                int32_t acc = bias[o], q = a.per_channel ? o : 0;
                for (int32_t k = 0; k < a.in; k++)
                    acc += (x_nchw[(size_t)b * a.in + k] + a.input_offset) *
                           (w_oihw[(size_t)o * a.in + k] + a.filter_offset);
                acc = ln_rt_s8_requantize(acc, mult[q], shift[q]) + a.output_offset;
                out[(size_t)b * a.out + o] =
                    (int8_t)(acc < a.act_min ? a.act_min : acc > a.act_max ? a.act_max : acc);
            }
        memset(y_nchw, 0x5a, (size_t)a.batches * a.out);
        n++;
        if (ln_rt_fully_connected_s8(&a, x_nchw, w_oihw, bias, mult, shift, y_nchw) == LN_RT_OK) {
            for (i = 0; i < (size_t)a.batches * a.out && y_nchw[i] == out[i]; i++)
                ;
            if (i == (size_t)a.batches * a.out)
                continue;
        } else {
            i = 0;
        }
        fails++;
        strcpy(line, "FAIL int8 fully connected, random shape ");
        put_int(line, t);
        strcat(line, ": batches ");
        put_int(line, a.batches);
        strcat(line, " in ");
        put_int(line, a.in);
        strcat(line, " out ");
        put_int(line, a.out);
        strcat(line, ": element ");
        put_int(line, (long)i);
        strcat(line, "\n");
        report(line);
    }
    *n_checked = n;
    return fails;
}

/* ---- ln_rt_add_s8's fast paths of equal scales ------------------------- */

/* TFLite's ADD of one pair, composed of ln_rt_s8_requantize (the
 * definition the general path follows). */
static int8_t add_def(const ln_rt_s8_binary_args *a, int8_t x1, int8_t x2)
{
    int32_t v1 = (int32_t)((uint32_t)((int32_t)x1 + a->in1_offset) << a->left_shift);
    int32_t v2 = (int32_t)((uint32_t)((int32_t)x2 + a->in2_offset) << a->left_shift);
    int32_t s = ln_rt_s8_requantize(v1, a->in1_mult, a->in1_shift) +
                ln_rt_s8_requantize(v2, a->in2_mult, a->in2_shift);
    int32_t r = ln_rt_s8_requantize(s, a->output_mult, a->output_shift) + a->output_offset;
    return (int8_t)(r < a->act_min ? a->act_min : r > a->act_max ? a->act_max : r);
}

/* Every pair of int8 values (x1 = i / 256, x2 = i % 256) through
 * ln_rt_add_s8 and ln_rt_add_bcast_s8 (same shapes, and x2 one row
 * broadcast: the general loop) against the definition, for n_sets random
 * argument sets: the inputs' multipliers 1/2 (equal scales) on two sets
 * in three, the output's 2^-19 (the inputs' scale) on one in three,
 * random zero points and clamps (a fused ReLU now and then), and
 * unequal input scales on the rest. */
int s8_check_add_equal_scales(int n_sets, uint32_t seed, void (*report)(const char *line),
                              int *n_checked)
{
    int8_t *x1 = x_nchw, *x2 = w_oihw;     /* OUT_MAX = 65536 each */
    char line[160];
    int fails = 0, n = 0;

    for (int i = 0; i < 65536; i++) {
        x1[i] = (int8_t)(i / 256 - 128);
        x2[i] = (int8_t)(i % 256 - 128);
    }
    for (int t = 0; t < n_sets; t++) {
        ln_rt_s8_binary_args a;
        ln_rt_bcast_args b;
        int kind = t % 3;
        memset(&a, 0, sizeof a);
        a.left_shift = 20;
        a.in1_offset = pick(&seed, -127, 128);
        a.in2_offset = pick(&seed, -127, 128);
        a.output_offset = pick(&seed, -128, 127);
        if (kind == 2) {        /* unequal: the larger 1/2, the other less */
            a.in1_mult = 1073741824;
            a.in2_mult = pick(&seed, 1073741824, 2147483647);
            a.in2_shift = pick(&seed, -4, -1);
        } else {
            a.in1_mult = a.in2_mult = 1073741824;
        }
        if (kind == 0) {
            a.output_mult = 1073741824;
            a.output_shift = 2 - a.left_shift;
        } else {
            a.output_mult = pick(&seed, 1073741824, 2147483647);
            a.output_shift = pick(&seed, -22, -16);
        }
        a.act_min = pick(&seed, 0, 3) == 0 ? a.output_offset : -128;
        a.act_max = pick(&seed, 0, 3) == 0 ? pick(&seed, a.act_min, 127) : 127;
        for (int path = 0; path < 3; path++) {
            int i;
            memset(out, 0x5a, sizeof out);
            b.ndim = 2;
            b.a_dims[0] = b.y_dims[0] = 256;
            b.a_dims[1] = b.b_dims[1] = b.y_dims[1] = 256;
            b.b_dims[0] = path == 2 ? 1 : 256;
            if (path == 0)
                ln_rt_add_s8(&a, x1, x2, out, 65536);
            else
                ln_rt_add_bcast_s8(&b, &a, x1, x2, out);
            n++;
            for (i = 0; i < 65536 && out[i] == add_def(&a, x1[i], x2[i]); i++)
                ;
            if (i == 65536)
                continue;
            fails++;
            strcpy(line, "FAIL int8 add, argument set ");
            put_int(line, t);
            strcat(line, path == 0 ? " (add_s8)" : path == 1 ? " (bcast, same shapes)" : " (bcast)");
            strcat(line, ": x1 ");
            put_int(line, x1[i]);
            strcat(line, " x2 ");
            put_int(line, x2[i]);
            strcat(line, " gives ");
            put_int(line, out[i]);
            strcat(line, ", TFLite ");
            put_int(line, add_def(&a, x1[i], x2[i]));
            strcat(line, "\n");
            report(line);
        }
    }
    *n_checked = n;
    return fails;
}
