/*
 * ln_onnx_empty.c -- ConstantOfShape of a constant shape with a 0: torch.onnx
 * exports F.pad with pads computed from shapes (x.shape[-1] % 8 ...) at
 * opsets 11 and later as Concat(the pads given, ConstantOfShape(2 * rank -
 * their count)) and more; when the pads cover every axis, that shape is [0].
 * The output is an empty constant, the kind a folded Slice of a Shape makes:
 * the Concat reading it drops it (map_inputs in ln_onnx.c), any other reader
 * or a graph output refuses it by name.
 */
#include <string.h>
#include "ln_onnx.h"
#include "ln_onnx_impl.h"

#ifdef LN_HAVE_ONNX

ln_bool ln_onnx_empty_constant_of_shape(imp *im, const Onnx__NodeProto *node)
{
    const ln_tensor *s;
    ln_dtype dtype = LN_DTYPE_FLOAT32;
    int dims[LN_MAXDIM];
    ln_bool empty = LN_FALSE;

    if (!ln_streq(node->op_type, "ConstantOfShape") || node->n_input != 1 ||
        node->n_output != 1 || !*node->output[0] ||
        !(s = ln_hash_find(im->consts, node->input[0])) || s->len > LN_MAXDIM)
        return LN_FALSE;
    for (size_t i = 0; i < s->len; i++) {
        int64_t d = ln_onnx_geti(s, i);
        if (d < 0 || d > 0x7fffffff)
            return LN_FALSE;            /* the op's own checks name it */
        dims[i] = (int)d;
        empty = empty || d == 0;
    }
    if (!empty)
        return LN_FALSE;
    for (size_t i = 0; i < node->n_attribute; i++)
        if (ln_streq(node->attribute[i]->name, "value") && node->attribute[i]->t)
            dtype = ln_onnx_dtype(node->attribute[i]->t->data_type);
    if (dtype == LN_DTYPE_UNKNOWN)
        return LN_FALSE;
    ln_onnx_add_const(im, node->output[0], ln_tensor_create_alloc(dtype, (int)s->len, dims));
    return LN_TRUE;
}

#endif /* LN_HAVE_ONNX */
