/*
 * ln_ophook_cast.c -- cast_cpu's private data: the source and target
 * dtypes as the runtime's ln_rt_dtype, which lists the dtypes in
 * ln_dtype's order (checked below), so the conversion is a cast.
 */
#include <assert.h>
#include "ln_ophook.h"

static ln_rt_dtype rt_dtype(ln_dtype d)
{
    /* the two enums must stay in step */
    typedef char same_order[(LN_RT_FLOAT32 == (int)LN_DTYPE_FLOAT32 &&
                              LN_RT_FLOAT16 == (int)LN_DTYPE_FLOAT16 &&
                              LN_RT_INT64 == (int)LN_DTYPE_INT64 &&
                              LN_RT_UINT64 == (int)LN_DTYPE_UINT64 &&
                              LN_RT_BOOL == (int)LN_DTYPE_BOOL &&
                              LN_RT_BOOL + 1 == (int)LN_DTYPE_SIZE) ? 1 : -1];
    assert(d >= 0 && d < LN_DTYPE_SIZE);
    (void)sizeof(same_order);
    return (ln_rt_dtype)d;
}

void ln_ophook_cast_from(const ln_op_arg *op_arg, ln_rt_dtype *v)
{
    *v = rt_dtype(ln_op_tensor_in(op_arg, "src")->tensor->dtype);
}

void ln_ophook_cast_to(const ln_op_arg *op_arg, ln_rt_dtype *v)
{
    *v = rt_dtype(ln_op_tensor_out(op_arg, "dst")->tensor->dtype);
}
