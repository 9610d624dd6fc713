/*
 * ln_ophook_detect.c -- grid_sample, roi_align, maxunpool: output shapes
 * and the runtime's argument structs (runtime/kernels/detect_f32.c).
 */
#include <stdint.h>
#include <string.h>
#include "ln_ophook.h"

int ln_ophook_grid_sample_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_tensor *grid = ln_op_tensor_in(op_arg, "grid")->tensor;

    *ndim = 4;
    dims[0] = src->dims[0];
    dims[1] = src->dims[1];
    dims[2] = grid->dims[1];
    dims[3] = grid->dims[2];
    return 0;
}

void ln_ophook_grid_sample_args(const ln_op_arg *op_arg, ln_rt_grid_sample_args *a)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_tensor *grid = ln_op_tensor_in(op_arg, "grid")->tensor;
    const char *mode = ln_ophook_param_str(op_arg, "mode", "bilinear");
    const char *pad = ln_ophook_param_str(op_arg, "padding_mode", "zeros");

    memset(a, 0, sizeof *a);
    a->n = src->dims[0];
    a->c = src->dims[1];
    a->h = src->dims[2];
    a->w = src->dims[3];
    a->oh = grid->dims[1];
    a->ow = grid->dims[2];
    a->mode = !strcmp(mode, "nearest") ? 1 : (!strcmp(mode, "bicubic") || !strcmp(mode, "cubic"))
                                                 ? 2 : 0;
    a->padding = !strcmp(pad, "border") ? 1 : !strcmp(pad, "reflection") ? 2 : 0;
    a->align_corners = ln_ophook_param_int(op_arg, "align_corners", 0);
}

int ln_ophook_roi_align_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_tensor *rois = ln_op_tensor_in(op_arg, "rois")->tensor;

    *ndim = 4;
    dims[0] = rois->dims[0];
    dims[1] = src->dims[1];
    dims[2] = ln_ophook_param_int(op_arg, "output_height", 1);
    dims[3] = ln_ophook_param_int(op_arg, "output_width", 1);
    return 0;
}

void ln_ophook_roi_align_args(const ln_op_arg *op_arg, ln_rt_roi_align_args *a)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_tensor *rois = ln_op_tensor_in(op_arg, "rois")->tensor;

    memset(a, 0, sizeof *a);
    a->n = src->dims[0];
    a->c = src->dims[1];
    a->h = src->dims[2];
    a->w = src->dims[3];
    a->num_rois = rois->dims[0];
    a->oh = ln_ophook_param_int(op_arg, "output_height", 1);
    a->ow = ln_ophook_param_int(op_arg, "output_width", 1);
    a->sampling_ratio = ln_ophook_param_int(op_arg, "sampling_ratio", 0);
    a->mode_max = !strcmp(ln_ophook_param_str(op_arg, "mode", "avg"), "max");
    a->half_pixel = !strcmp(ln_ophook_param_str(op_arg, "coordinate_transformation_mode",
                                                "half_pixel"), "half_pixel");
    a->spatial_scale = ln_ophook_param_float(op_arg, "spatial_scale", 1.0f);
}

/* MaxUnpool: the unpooled shape, per spatial axis (in - 1) * stride +
 * kernel - pads; the output's, output_shape (all dims) when given */
static int maxunpool_shapes(const ln_op_arg *op_arg, int *ndim, int *dims, int *out)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    int nsp = src->ndim - 2, k[LN_MAXDIM], s[LN_MAXDIM], p[2 * LN_MAXDIM], os[LN_MAXDIM];
    int nk = ln_ophook_param_ints(op_arg, "kernel_shape", k, LN_MAXDIM);
    int ns = ln_ophook_param_ints(op_arg, "stride", s, LN_MAXDIM);
    int np = ln_ophook_param_ints(op_arg, "pads", p, 2 * LN_MAXDIM);
    int no = ln_ophook_param_ints(op_arg, "output_shape", os, LN_MAXDIM);

    LN_OPCK(ln_opck(op_arg, nk == nsp, "'kernel_shape' has %d entries, 'src' %d spatial axes",
                    nk, nsp));
    LN_OPCK(ln_opck(op_arg, ns == 0 || ns == nsp, "'stride' has %d entries, not %d", ns, nsp));
    LN_OPCK(ln_opck(op_arg, np == 0 || np == 2 * nsp, "'pads' has %d entries, not %d", np,
                    2 * nsp));
    LN_OPCK(ln_opck(op_arg, no == 0 || no == src->ndim,
                    "'output_shape' has %d entries, 'src' %d dims", no, src->ndim));
    *ndim = src->ndim;
    dims[0] = out[0] = src->dims[0];
    dims[1] = out[1] = src->dims[1];
    for (int i = 0; i < nsp; i++) {
        int64_t o = (int64_t)(src->dims[2 + i] - 1) * (ns ? s[i] : 1) + k[i] -
                    (np ? (int64_t)p[i] + p[i + nsp] : 0);
        LN_OPCK(ln_opck(op_arg, k[i] >= 1 && (!ns || s[i] >= 1) && o >= 1 && o <= INT32_MAX,
                        "spatial axis %d: kernel %d, stride %d, pads give an output of %lld",
                        i, k[i], ns ? s[i] : 1, (long long)o));
        dims[2 + i] = out[2 + i] = (int)o;
    }
    if (no) {
        LN_OPCK(ln_opck(op_arg, os[0] == dims[0] && os[1] == dims[1],
                        "'output_shape' [%d, %d, ...] must keep 'src' dims[0..1] [%d, %d]",
                        os[0], os[1], dims[0], dims[1]));
        for (int i = 2; i < src->ndim; i++) {
            LN_OPCK(ln_opck(op_arg, os[i] >= dims[i],
                            "'output_shape'[%d] (%d) is smaller than the unpooled %d",
                            i, os[i], dims[i]));
            out[i] = os[i];
        }
    }
    return 0;
}

int ln_ophook_maxunpool_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    int unpooled[LN_MAXDIM];

    return maxunpool_shapes(op_arg, ndim, unpooled, dims);
}

void ln_ophook_maxunpool_args(const ln_op_arg *op_arg, ln_rt_maxunpool_args *a)
{
    int ndim, dims[LN_MAXDIM], out[LN_MAXDIM];

    memset(a, 0, sizeof *a);
    (void)maxunpool_shapes(op_arg, &ndim, dims, out);
    a->ndim = ndim;
    for (int i = 0; i < ndim; i++) {
        a->dims[i] = dims[i];
        a->out_dims[i] = out[i];
    }
}
