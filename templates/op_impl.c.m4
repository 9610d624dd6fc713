/* ---- GEN_OPTYPE (arch GEN_ARCH): GEN_DOC */
GEN_PRIV[[<>]]m4_dnl
m4_ifelse(GEN_HAS_PRE_RUN, 1, [[<static int GEN_OPTYPE[[<>]]_pre_run(ln_op_arg *op_arg)
{
GEN_PRE_RUN[[<>]]m4_dnl
}
>]])m4_dnl
m4_ifelse(GEN_HAS_STATIC_RUN, 1, [[<
static int GEN_OPTYPE[[<>]]_static_run(ln_op_arg *op_arg)
{
GEN_STATIC_RUN[[<>]]m4_dnl
}
>]])m4_dnl
m4_ifelse(GEN_HAS_RUN, 1, [[<
m4_ifelse(GEN_HAS_AOT, 1, [[</* ln-aot emits: GEN_AOT */
>]])m4_dnl
static int GEN_OPTYPE[[<>]]_run(ln_op_arg *op_arg)
{
GEN_RUN[[<>]]m4_dnl
}
>]])m4_dnl
m4_ifelse(GEN_HAS_POST_RUN, 1, [[<
static int GEN_OPTYPE[[<>]]_post_run(ln_op_arg *op_arg)
{
GEN_POST_RUN[[<>]]m4_dnl
}
>]])m4_dnl

ln_op ln_opimpl_[[<>]]GEN_OPTYPE = {
GEN_FIELDS[[<>]]};
