/* ln_ophook.h for the generator test descriptions (tests/gen/op_descs). */
#ifndef LN_OPHOOK_H
#define LN_OPHOOK_H

#include "ln_op.h"
#include "ln_rt.h"

int ln_ophook_conv2d_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
void ln_ophook_conv2d_args(const ln_op_arg *op_arg, ln_rt_conv2d_args *args);
int ln_ophook_split_dst_shape(const ln_op_arg *op_arg, int i, int *ndim, int *dims);
size_t ln_ophook_flatten_offset(const ln_op_arg *op_arg, const ln_tensor_entry *te);
/* the int32 kernel relu_cpu's ${src.type} picks (no such kernel in ln_rt.h) */
void ln_rt_relu_s32(const int32_t *x, int32_t *y, size_t n);

#endif
