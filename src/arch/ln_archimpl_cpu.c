/*
 * ln_archimpl_cpu.c -- the host CPU architecture: ops that call libln_rt.
 *
 * The compile recipe, in order:
 *   1. expander  abstract ops -> cpu ops (gen/opt_descs rules), then the
 *                combiner rules of stage "early" (x * hardsigmoid(x) ->
 *                hardswish: one op the QDQ fusion can tabulate)
 *   2. qdq       DequantizeLinear -> conv/gemm -> QuantizeLinear chains
 *                become int8 ops (before fold: it needs the int8 weights)
 *   3. fold      ops on constants only run now and become constants;
 *                batchnorm folds into the conv2d/gemm before it, a zero pad
 *                into the conv2d/avgpool after it
 *   4. combiner  peephole fusions over windows of 2 ops (gen/opt_descs rules:
 *                activations into conv2d/gemm); then, for the host only,
 *                small-map conv2d_cpu with constant weights become
 *                conv2d_packed_cpu on weights packed now
 *   5. clean     identities and dead ops go; then, for the host only,
 *                tensors that packed convs (and depthwise convs between
 *                them) alone write and read are stored channels-last
 *   6. check     a view of a constant becomes a constant (also at -O0: a
 *                view has no kernel to fill a buffer of its own); every
 *                op is a cpu op now
 *   7. plan      lifetimes, in-place, views, offsets in one arena
 * pre_run already ran for every op at init, so shapes are known throughout.
 */
#include "ln_context.h"
#include "ln_pass.h"
#include "op/auto/ln_opregistry.h"

extern ln_expander_func ln_expander_funcs_cpu[];
extern const ln_expand_default ln_expand_defaults_cpu[];
extern ln_combiner_func ln_combiner_funcs_cpu[];
extern ln_combiner_func ln_combiner_early_funcs_cpu[];

static int optimize_cpu(ln_context *ctx)
{
    int ret;

    if ((ret = ln_pass_expander(ctx, ln_expander_funcs_cpu, ln_expand_defaults_cpu)))
        return ret;
    if (!ctx->no_opt) {
        if ((ret = ln_pass_remove_noop_casts(ctx)) ||
            (ret = ln_pass_combiner(ctx, 2, ln_combiner_early_funcs_cpu)) ||
            (ret = ln_pass_fuse_qdq(ctx)))
            return ret;
        if ((ret = ln_pass_fold_constants(ctx)))
            return ret;
        if ((ret = ln_pass_fuse_gelu(ctx)))
            return ret;
        if ((ret = ln_pass_fold_pad(ctx)))
            return ret;
        if ((ret = ln_pass_fold_batchnorm(ctx)))
            return ret;
        if ((ret = ln_pass_combiner(ctx, 2, ln_combiner_funcs_cpu)))
            return ret;
        /* after every fusion into conv2d_cpu; not for the Cortex-M4 */
        if (!(ctx->target && ln_streq(ctx->target, "cortex-m4")) &&
            ((ret = ln_pass_pack_conv(ctx)) || (ret = ln_pass_fold_channel_scale(ctx)) ||
             (ret = ln_pass_fuse_pwdw(ctx)) || (ret = ln_pass_fuse_conv_maxpool(ctx))))
            return ret;
        if ((ret = ln_pass_remove_identity(ctx)))
            return ret;
        if ((ret = ln_pass_remove_dead(ctx)))
            return ret;
        /* last: it needs every op's final readers; not for the Cortex-M4 */
        if (!(ctx->target && ln_streq(ctx->target, "cortex-m4")) &&
            (ret = ln_pass_nhwc_edges(ctx)))
            return ret;
    }
    if ((ret = ln_pass_fold_const_views(ctx)))
        return ret;
    if ((ret = ln_pass_check_arch(ctx, "cpu")))
        return ret;
    return ln_context_mem_plan(ctx);
}

ln_arch ln_archimpl_cpu = {
    .arch_name = "cpu",
    .ep_funcs = ln_expander_funcs_cpu,
    .ep_defaults = ln_expand_defaults_cpu,
    .cb_funcs = ln_combiner_funcs_cpu,
    .optimize = optimize_cpu,
};

/* Cortex-M4 (Armv7E-M with the DSP extension and the single-precision FPU):
 * the same ops (they call libln_rt, built for the M4 by `make -C runtime
 * m4`) and the same recipe; ctx->target names it, so the choices that
 * depend on the target's kernels (scratch sizes) can differ. */
ln_arch ln_archimpl_cortex_m4 = {
    .arch_name = "cortex-m4",
    .ep_funcs = ln_expander_funcs_cpu,
    .ep_defaults = ln_expand_defaults_cpu,
    .cb_funcs = ln_combiner_funcs_cpu,
    .optimize = optimize_cpu,
};
