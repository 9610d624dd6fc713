/*
 * misc.c -- small ONNX ops without a family: Compress (a constant
 * condition's slices), EyeLike, ReverseSequence, Det.  Plain loops; none
 * needs scratch.
 */
#include <string.h>
#include "ln_rt_internal.h"

void ln_rt_compress(const ln_rt_compress_args *a, const int *cond, int32_t cond_len,
                    size_t elem_size, const void *x, void *y)
{
    size_t row = (size_t)a->inner * elem_size;
    int32_t n = cond_len < a->len ? cond_len : a->len;
    const char *src = x;
    char *dst = y;

    for (int32_t o = 0; o < a->outer; o++) {
        for (int32_t j = 0; j < n; j++)
            if (cond[j]) {
                memcpy(dst, src + (size_t)j * row, row);
                dst += row;
            }
        src += (size_t)a->len * row;
    }
}
