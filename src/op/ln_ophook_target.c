/*
 * ln_ophook_target.c -- which runtime the ops being pre_run are planned
 * for. ln_context sets it around every pre_run (the target while a compile
 * recipe runs, the IR's "arch" when a compiled IR is read back), so a
 * priv hook can hand the target to kernels whose variant -- and scratch --
 * differ per target (conv2d on the Cortex-M4 needs none).
 */
#include "ln_ophook.h"

static ln_rt_target cur_target = LN_RT_TARGET_HOST;

void ln_ophook_set_target(const char *arch)
{
    cur_target = arch && ln_streq(arch, "cortex-m4") ? LN_RT_TARGET_CORTEX_M4
                                                     : LN_RT_TARGET_HOST;
}

void ln_ophook_rt_target(const ln_op_arg *op_arg, ln_rt_target *t)
{
    (void)op_arg;
    *t = cur_target;
}

/* conv2d_scale_cpu, conv2d_pwdw_cpu: host targets only (the passes that
 * make them, ln_pass_fold_channel_scale and ln_pass_fuse_pwdw, run for
 * them alone) */
int ln_ophook_host_target_ok(const ln_op_arg *op_arg)
{
    (void)op_arg;
    return cur_target != LN_RT_TARGET_CORTEX_M4;
}

/* The fused activation is one the target's runtime has: SiLU and
 * hardswish are fused on the host only (the Cortex-M4 runtime leaves
 * LN_RT_ACT_SILU and LN_RT_ACT_HARDSWISH out). */
int ln_ophook_act_target_ok(const ln_op_arg *op_arg)
{
    const char *act = ln_ophook_param_str(op_arg, "activation", "none");
    return cur_target != LN_RT_TARGET_CORTEX_M4 ||
           !(ln_streq(act, "silu") || ln_streq(act, "hardswish"));
}
