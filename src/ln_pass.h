/*
 * ln_pass.h -- the compile passes an arch's optimize recipe strings together.
 */
#ifndef LN_PASS_H
#define LN_PASS_H

#include "ln_context.h"

LN_CPPSTART

/* Each op is offered to the expanders in order; the first match replaces it. */
int ln_pass_expander(ln_context *ctx, ln_expander_func *funcs);
/* Windows of win_size adjacent ops are offered to the combiners; a match
 * replaces the window, and the new ops are looked at again. */
int ln_pass_combiner(ln_context *ctx, size_t win_size, ln_combiner_func *funcs);
/* Every op must now belong to arch (abstract ops with no expansion fail). */
int ln_pass_check_arch(const ln_context *ctx, const char *arch);

LN_CPPEND
#endif
