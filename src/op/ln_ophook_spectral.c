/*
 * ln_ophook_spectral.c -- dft and stft (gen/op_descs/spectral.json): the
 * output shapes and the runtime's views, [outer][len][inner][c] around
 * DFT's axis, and STFT's frames (the frame length is the window's, or
 * 'frame_length').
 */
#include "ln_ophook.h"

/* dft: [outer][len][inner][c] around 'axis'; n the DFT length */
static void dft_view(const ln_op_arg *op_arg, ln_rt_dft_args *a)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    int axis = ln_ophook_param_int(op_arg, "axis", 1), n;

    axis = axis < 0 ? axis + src->ndim : axis;
    a->outer = (int32_t)ln_ophook_dims_prod(src->dims, 0, axis);
    a->len = src->dims[axis];
    a->inner = (int32_t)ln_ophook_dims_prod(src->dims, axis + 1, src->ndim - 1);
    a->c = src->dims[src->ndim - 1];
    n = ln_ophook_param_int(op_arg, "dft_length", 0);
    a->n = n > 0 ? n : a->len;
    a->inverse = ln_ophook_param_int(op_arg, "inverse", 0) != 0;
    a->nout = ln_ophook_param_int(op_arg, "onesided", 0) ? a->n / 2 + 1 : a->n;
}

int ln_ophook_dft_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    int axis = ln_ophook_param_int(op_arg, "axis", 1);
    ln_rt_dft_args a;

    dft_view(op_arg, &a);
    axis = axis < 0 ? axis + src->ndim : axis;
    *ndim = src->ndim;
    for (int d = 0; d < src->ndim; d++)
        dims[d] = src->dims[d];
    dims[axis] = a.nout;
    dims[src->ndim - 1] = 2;
    return 0;
}

void ln_ophook_dft_args(const ln_op_arg *op_arg, ln_rt_dft_args *a)
{
    dft_view(op_arg, a);
}

/* stft: the frame length is the window's, or 'frame_length' */
static int stft_view(const ln_op_arg *op_arg, ln_rt_stft_args *a)
{
    const ln_tensor *sig = ln_op_tensor_in(op_arg, "signal")->tensor;
    ln_tensor_entry *win = ln_op_tensor_in(op_arg, "window");
    int fl = ln_ophook_param_int(op_arg, "frame_length", 0);

    a->batch = sig->dims[0];
    a->len = sig->dims[1];
    a->c = sig->dims[2];
    a->step = ln_ophook_param_int(op_arg, "frame_step", 1);
    if (win) {
        LN_OPCK(ln_opck(op_arg, !fl || fl == win->tensor->dims[0], "'frame_length' (%d) is not "
                        "the length of 'window' (%d)", fl, win->tensor->dims[0]));
        fl = win->tensor->dims[0];
    }
    LN_OPCK(ln_opck(op_arg, fl > 0, "needs 'window' or 'frame_length'"));
    LN_OPCK(ln_opck(op_arg, fl <= a->len, "the frame length (%d) exceeds the signal's %d "
                    "samples", fl, a->len));
    a->n = fl;
    a->frames = (a->len - fl) / (a->step > 0 ? a->step : 1) + 1;
    a->nout = ln_ophook_param_int(op_arg, "onesided", 1) ? fl / 2 + 1 : fl;
    return 0;
}

int ln_ophook_stft_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    ln_rt_stft_args a;

    LN_OPCK(stft_view(op_arg, &a));
    *ndim = 4;
    dims[0] = a.batch;
    dims[1] = a.frames;
    dims[2] = a.nout;
    dims[3] = 2;
    return 0;
}

void ln_ophook_stft_args(const ln_op_arg *op_arg, ln_rt_stft_args *a)
{
    stft_view(op_arg, a);
}
