/*
 * ln_arch.c -- the global tables of architectures and op prototypes.
 *
 * The list of archs is the one hand-kept list in the core (adding an
 * architecture is rare and deliberate); the ops come from the generated
 * registry (one row per op, its arch in the row), each arch's optimizers
 * from generated arrays.  The tables are built on first use.
 */
#include <stdlib.h>
#include <string.h>
#include "ln_arch.h"
#include "op/auto/ln_opregistry.h"

extern ln_arch ln_archimpl_none;
extern ln_arch ln_archimpl_cpu;
extern ln_arch ln_archimpl_cortex_m4;

static ln_arch *const archs[] = {&ln_archimpl_none, &ln_archimpl_cpu, &ln_archimpl_cortex_m4,
                                 NULL};
static const char *const arch_names[] = {"none", "cpu", "cortex-m4", NULL};

static ln_hash *arch_table;     /* name -> ln_arch */
static ln_hash *proto_table;    /* optype -> ln_op prototype */

int ln_arch_init(void)
{
    if (arch_table)
        return 0;
    arch_table = ln_hash_create(ln_str_hash, ln_str_cmp, NULL, NULL);
    proto_table = ln_hash_create(ln_str_hash, ln_str_cmp, NULL, NULL);
    for (int i = 0; archs[i]; i++) {
        ln_arch *a = archs[i];
        if (a->init_func) {
            int ret = a->init_func(&a->priv);
            if (ret)
                return ret;
        }
        ln_hash_insert(arch_table, (void *)a->arch_name, a);
    }
    for (const ln_opregistry_row *r = ln_opregistry; r->optype; r++)
        if (r->proto)
            ln_hash_insert(proto_table, (void *)r->optype, r->proto);
    return 0;
}

void ln_arch_cleanup(void)
{
    if (!arch_table)
        return;
    for (int i = 0; archs[i]; i++)
        if (archs[i]->cleanup_func)
            archs[i]->cleanup_func(&archs[i]->priv);
    ln_hash_free(arch_table);
    ln_hash_free(proto_table);
    arch_table = proto_table = NULL;
}

const ln_arch *ln_arch_find(const char *arch_name)
{
    ln_arch_init();
    return ln_hash_find(arch_table, arch_name);
}

const ln_op *ln_arch_op_proto(const char *optype)
{
    ln_arch_init();
    return ln_hash_find(proto_table, optype);
}

static int cmp_row(const void *key, const void *row)
{
    return strcmp(key, ((const ln_opregistry_row *)row)->optype);
}

ln_bool ln_arch_op_stripped(const char *optype)
{
    size_t n = 0;
    const ln_opregistry_row *r;

    while (ln_opregistry[n].optype)
        n++;
    r = bsearch(optype, ln_opregistry, n, sizeof *ln_opregistry, cmp_row);
    return r && !r->proto;
}

const char *const *ln_arch_names(void)
{
    return arch_names;
}
