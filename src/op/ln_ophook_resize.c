/*
 * ln_ophook_resize.c -- resize (ONNX Resize 10..17, Upsample 7..9) of the
 * last two axes of NCHW: output from 'sizes' or floor(in * 'scales');
 * scales/sizes on N and C must leave them alone, and so must the roi of
 * tf_crop_and_resize.
 */
#include <string.h>
#include "ln_ophook.h"

static int resize_out(const ln_op_arg *op_arg, int *oh, int *ow, float *sh, float *sw)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_param_entry *sc = ln_op_param(op_arg, "scales");
    const ln_param_entry *sz = ln_op_param(op_arg, "sizes");

    if (sz && sz->array_len > 0) {
        const int *s = sz->value_array_int;

        LN_OPCK(ln_opck(op_arg, sz->array_len == 4, "'sizes' has %d entries, 'src' has 4 dims",
                        sz->array_len));
        LN_OPCK(ln_opck(op_arg, s[0] == src->dims[0] && s[1] == src->dims[1],
                        "'sizes' may only change the last two axes (got [%d, %d, ...] for "
                        "'src' [%d, %d, ...])", s[0], s[1], src->dims[0], src->dims[1]));
        *oh = s[2];
        *ow = s[3];
        *sh = *sw = 0.0f;
    } else {
        const float *s = sc ? sc->value_array_float : NULL;

        LN_OPCK(ln_opck(op_arg, sc && sc->array_len == 4,
                        "needs 'scales' (4 entries) or 'sizes' (4 entries)"));
        LN_OPCK(ln_opck(op_arg, s[0] == 1.0f && s[1] == 1.0f,
                        "'scales' may only scale the last two axes (got %g, %g for N and C)",
                        (double)s[0], (double)s[1]));
        LN_OPCK(ln_opck(op_arg, s[2] > 0.0f && s[3] > 0.0f, "'scales' must be positive"));
        *oh = (int)((float)src->dims[2] * s[2]);
        *ow = (int)((float)src->dims[3] * s[3]);
        *sh = s[2];
        *sw = s[3];
    }
    LN_OPCK(ln_opck(op_arg, *oh >= 1 && *ow >= 1, "output would be %dx%d", *oh, *ow));
    return 0;
}

/* tf_crop_and_resize's roi: [start_n, start_c, start_h, start_w, end_n,
 * ..., end_w]; N and C are not resized, so their region must be all of
 * them. */
static int resize_roi(const ln_op_arg *op_arg)
{
    const ln_param_entry *roi = ln_op_param(op_arg, "roi");
    const float *r;

    if (strcmp(ln_ophook_param_str(op_arg, "coordinate_transformation_mode", "half_pixel"),
               "tf_crop_and_resize"))
        return 0;
    LN_OPCK(ln_opck(op_arg, roi && roi->array_len == 8,
                    "tf_crop_and_resize needs 'roi' of 8 entries (starts and ends of the 4 "
                    "axes), got %d", roi ? roi->array_len : 0));
    r = roi->value_array_float;
    LN_OPCK(ln_opck(op_arg, r[0] == 0.0f && r[1] == 0.0f && r[4] == 1.0f && r[5] == 1.0f,
                    "'roi' may only crop the last two axes (got %g..%g, %g..%g for N and C)",
                    (double)r[0], (double)r[4], (double)r[1], (double)r[5]));
    return 0;
}

int ln_ophook_resize_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    float sh, sw;

    LN_OPCK(resize_out(op_arg, &dims[2], &dims[3], &sh, &sw));
    LN_OPCK(resize_roi(op_arg));
    dims[0] = src->dims[0];
    dims[1] = src->dims[1];
    *ndim = 4;
    return 0;
}

static int index_of(const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(s, names[i]))
            return i;
    return 0;
}

void ln_ophook_resize_args(const ln_op_arg *op_arg, ln_rt_resize_args *a)
{
    /* in the order of ln_rt_coord_mode and ln_rt_nearest_mode */
    static const char *const coords[] = {"half_pixel", "asymmetric", "align_corners",
                                         "pytorch_half_pixel", "tf_half_pixel_for_nn",
                                         "half_pixel_symmetric", "tf_crop_and_resize"};
    static const char *const modes[] = {"nearest", "linear", "cubic"};
    const ln_param_entry *roi = ln_op_param(op_arg, "roi");
    static const char *const nearest[] = {"round_prefer_floor", "round_prefer_ceil",
                                          "floor", "ceil"};
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    int oh, ow;

    resize_out(op_arg, &oh, &ow, &a->scale_h, &a->scale_w);
    a->n = src->dims[0];
    a->c = src->dims[1];
    a->ih = src->dims[2];
    a->iw = src->dims[3];
    a->oh = oh;
    a->ow = ow;
    a->mode = (ln_rt_resize_mode)index_of(ln_ophook_param_str(op_arg, "mode", "nearest"),
                                          modes, 3);
    a->coord = (ln_rt_coord_mode)index_of(
        ln_ophook_param_str(op_arg, "coordinate_transformation_mode", "half_pixel"), coords, 7);
    a->nearest = (ln_rt_nearest_mode)index_of(
        ln_ophook_param_str(op_arg, "nearest_mode", "round_prefer_floor"), nearest, 4);
    a->cubic_a = ln_op_param(op_arg, "cubic_coeff_a") ?
                 ln_op_param(op_arg, "cubic_coeff_a")->value_float : -0.75f;
    a->exclude_outside = ln_op_param(op_arg, "exclude_outside") ?
                         ln_op_param(op_arg, "exclude_outside")->value_int : 0;
    a->extrapolation = ln_op_param(op_arg, "extrapolation_value") ?
                       ln_op_param(op_arg, "extrapolation_value")->value_float : 0.0f;
    a->roi[0] = a->roi[1] = 0.0f;
    a->roi[2] = a->roi[3] = 1.0f;
    if (a->coord == LN_RT_COORD_TF_CROP_AND_RESIZE && roi && roi->array_len == 8) {
        a->roi[0] = roi->value_array_float[2];
        a->roi[1] = roi->value_array_float[3];
        a->roi[2] = roi->value_array_float[6];
        a->roi[3] = roi->value_array_float[7];
    }
}
