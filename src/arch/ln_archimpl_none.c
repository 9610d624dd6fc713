/*
 * ln_archimpl_none.c -- the abstract architecture: the ops models are
 * written in.  They infer shapes but do not run; compiling for a real arch
 * expands them.
 */
#include "ln_arch.h"
#include "op/auto/ln_opregistry.h"

ln_arch ln_archimpl_none = {
    .arch_name = "none",
};
