/*
 * ln_dfg.c -- data-flow graph over ops (see ln_dfg.h).
 *
 * Built incrementally: adding an op links it from the producers of its
 * inputs and to any earlier readers of its outputs that were waiting
 * (dangling).  Edge data are tensor names owned by the dfg.
 */
#include <string.h>
#include "ln_dfg.h"

static int port_cmp(const void *a, const void *b)
{
    const ln_dfg_port *p = a, *q = b;
    return !(p->op == q->op && ln_streq(p->tensor, q->tensor));
}

static void port_free(void *p)
{
    ln_dfg_port *port = p;
    ln_free(port->tensor);
    ln_free(port);
}

static ln_dfg_port *port_new(ln_op *op, const char *tensor)
{
    ln_dfg_port *p = ln_alloc(sizeof *p);
    p->op = op;
    p->tensor = ln_strdup(tensor);
    return p;
}

ln_dfg *ln_dfg_create(void)
{
    ln_dfg *dfg = ln_alloc(sizeof *dfg);
    dfg->graph = ln_graph_create(NULL, ln_str_cmp);
    dfg->node_table = ln_hash_create(ln_str_hash, ln_str_cmp, NULL, NULL);
    dfg->producers = ln_hash_create(ln_str_hash, ln_str_cmp, ln_free, NULL);
    return dfg;
}

ln_dfg *ln_dfg_create_from_ops(ln_list *ops)
{
    ln_dfg *dfg = ln_dfg_create();
    LN_LIST_FOREACH(ln_op, op, ops) {
        ln_dfg_add(dfg, op);
    }
    return dfg;
}

void ln_dfg_free(ln_dfg *dfg)
{
    if (!dfg)
        return;
    LN_LIST_FOREACH(ln_graph_node, node, dfg->graph->nodes) {
        LN_LIST_FOREACH(ln_graph_edge_node, en, node->out_edge_nodes) {
            ln_free(en->edge_data);
        }
    }
    ln_graph_free(dfg->graph);
    ln_hash_free(dfg->node_table);
    ln_hash_free(dfg->producers);
    ln_list_free_deep(dfg->dangling_ins, port_free);
    ln_list_free_deep(dfg->dangling_outs, port_free);
    ln_free(dfg);
}

static ln_graph_node *node_of(const ln_dfg *dfg, const ln_op *op)
{
    return ln_hash_find(dfg->node_table, op->op_arg->name);
}

static ln_bool has_out_edge(ln_graph_node *n, const char *tname)
{
    LN_LIST_FOREACH(ln_graph_edge_node, en, n->out_edge_nodes) {
        if (ln_streq(en->edge_data, tname))
            return LN_TRUE;
    }
    return LN_FALSE;
}

void ln_dfg_link(ln_dfg *dfg, ln_op *op1, ln_op *op2, const char *tname)
{
    ln_graph_node *n1 = node_of(dfg, op1), *n2 = node_of(dfg, op2);
    ln_dfg_port key = {op1, (char *)tname};

    if (!n1 || !n2)
        return;
    ln_graph_link_node(dfg->graph, n1, n2, ln_strdup(tname));
    dfg->dangling_outs = ln_list_remove_all_custom_deep(dfg->dangling_outs, &key,
                                                        port_cmp, port_free);
    key.op = op2;
    dfg->dangling_ins = ln_list_remove_all_custom_deep(dfg->dangling_ins, &key,
                                                       port_cmp, port_free);
}

void ln_dfg_unlink(ln_dfg *dfg, ln_op *op1, ln_op *op2, const char *tname)
{
    ln_graph_node *n1 = node_of(dfg, op1), *n2 = node_of(dfg, op2);
    char *edge;

    if (!n1 || !n2)
        return;
    edge = ln_graph_unlink_node(n1, n2, (void *)tname);
    if (!edge)
        return;
    ln_free(edge);
    dfg->dangling_ins = ln_list_append(dfg->dangling_ins, port_new(op2, tname));
    if (!has_out_edge(n1, tname))
        dfg->dangling_outs = ln_list_append(dfg->dangling_outs, port_new(op1, tname));
}

void ln_dfg_add(ln_dfg *dfg, ln_op *op)
{
    ln_graph_node *node = ln_graph_add(dfg->graph, op);

    ln_hash_insert(dfg->node_table, op->op_arg->name, node);
    LN_LIST_FOREACH(ln_tensor_list_entry, te, op->op_arg->tensors_in) {
        ln_op *producer = ln_hash_find(dfg->producers, te->name);
        if (producer && producer != op)
            ln_dfg_link(dfg, producer, op, te->name);
        else
            dfg->dangling_ins = ln_list_append(dfg->dangling_ins, port_new(op, te->name));
    }
    LN_LIST_FOREACH(ln_tensor_list_entry, te, op->op_arg->tensors_out) {
        ln_list *waiting = NULL;
        ln_hash_insert(dfg->producers, ln_strdup(te->name), op);
        /* readers added before their producer */
        LN_LIST_FOREACH(ln_dfg_port, p, dfg->dangling_ins) {
            if (ln_streq(p->tensor, te->name) && p->op != op)
                waiting = ln_list_append(waiting, p->op);
        }
        if (!waiting)
            dfg->dangling_outs = ln_list_append(dfg->dangling_outs, port_new(op, te->name));
        LN_LIST_FOREACH(ln_op, reader, waiting) {
            ln_dfg_link(dfg, op, reader, te->name);
        }
        ln_list_free(waiting);
    }
}

void ln_dfg_remove(ln_dfg *dfg, ln_op *op)
{
    ln_graph_node *node = node_of(dfg, op);
    ln_list *ins = NULL, *outs = NULL;

    if (!node)
        return;
    /* collect first: unlinking edits the lists we would walk */
    LN_LIST_FOREACH(ln_graph_edge_node, en, node->in_edge_nodes) {
        ins = ln_list_append(ins, port_new(en->node->data, en->edge_data));
    }
    LN_LIST_FOREACH(ln_graph_edge_node, en, node->out_edge_nodes) {
        outs = ln_list_append(outs, port_new(en->node->data, en->edge_data));
    }
    LN_LIST_FOREACH(ln_dfg_port, p, ins) {
        ln_dfg_unlink(dfg, p->op, op, p->tensor);
    }
    LN_LIST_FOREACH(ln_dfg_port, p, outs) {
        ln_dfg_unlink(dfg, op, p->op, p->tensor);
    }
    ln_list_free_deep(ins, port_free);
    ln_list_free_deep(outs, port_free);
    LN_LIST_FOREACH(ln_tensor_list_entry, te, op->op_arg->tensors_out) {
        if (ln_hash_find(dfg->producers, te->name) == op)
            ln_hash_remove(dfg->producers, te->name);
    }
    /* drop this op's own dangling ports */
    for (ln_list *l = dfg->dangling_ins; l;) {
        ln_dfg_port *p = l->data;
        l = l->next;
        if (p->op == op)
            dfg->dangling_ins = ln_list_remove_custom_deep(dfg->dangling_ins, p,
                                                           port_cmp, port_free);
    }
    for (ln_list *l = dfg->dangling_outs; l;) {
        ln_dfg_port *p = l->data;
        l = l->next;
        if (p->op == op)
            dfg->dangling_outs = ln_list_remove_custom_deep(dfg->dangling_outs, p,
                                                            port_cmp, port_free);
    }
    ln_hash_remove(dfg->node_table, op->op_arg->name);
    ln_graph_remove(dfg->graph, op);
}

ln_op *ln_dfg_next(const ln_dfg *dfg, const ln_op *op, const char *tname)
{
    ln_graph_node *n = node_of(dfg, op);
    if (!n)
        return NULL;
    LN_LIST_FOREACH(ln_graph_edge_node, en, n->out_edge_nodes) {
        if (ln_streq(en->edge_data, tname))
            return en->node->data;
    }
    return NULL;
}

ln_list *ln_dfg_nexts(const ln_dfg *dfg, const ln_op *op, const char *tname)
{
    ln_graph_node *n = node_of(dfg, op);
    ln_list *res = NULL;
    if (!n)
        return NULL;
    LN_LIST_FOREACH(ln_graph_edge_node, en, n->out_edge_nodes) {
        if (ln_streq(en->edge_data, tname) && !ln_list_find(res, en->node->data))
            res = ln_list_append(res, en->node->data);
    }
    return res;
}

ln_op *ln_dfg_prev(const ln_dfg *dfg, const ln_op *op, const char *tname)
{
    ln_graph_node *n = node_of(dfg, op);
    if (!n)
        return NULL;
    LN_LIST_FOREACH(ln_graph_edge_node, en, n->in_edge_nodes) {
        if (ln_streq(en->edge_data, tname))
            return en->node->data;
    }
    return NULL;
}

ln_op *ln_dfg_producer(const ln_dfg *dfg, const char *tname)
{
    return ln_hash_find(dfg->producers, tname);
}

int ln_dfg_num_readers(const ln_dfg *dfg, const char *tname)
{
    ln_op *p = ln_dfg_producer(dfg, tname);
    ln_list *readers;
    int n;

    if (!p)
        return 0;
    readers = ln_dfg_nexts(dfg, p, tname);
    n = ln_list_length(readers);
    ln_list_free(readers);
    return n;
}

int ln_dfg_check(const ln_dfg *dfg)
{
    ln_list *layers = NULL;

    LN_LIST_FOREACH(ln_dfg_port, p, dfg->dangling_ins) {
        return ln_error(LN_EINVAL, "%s (%s): input tensor '%s' is not produced by any op",
                        p->op->op_arg->name, p->op->op_arg->optype, p->tensor);
    }
    if (ln_graph_topsort(dfg->graph, &layers) < 0)
        return ln_error(LN_EINVAL, "the data-flow graph has a cycle");
    ln_graph_free_topsortlist(layers);
    return 0;
}

void ln_dfg_fprint(FILE *fp, const ln_dfg *dfg)
{
    LN_LIST_FOREACH(ln_graph_node, n, dfg->graph->nodes) {
        ln_op *op = n->data;
        fprintf(fp, "%s (%s) ->", op->op_arg->name, op->op_arg->optype);
        LN_LIST_FOREACH(ln_graph_edge_node, en, n->out_edge_nodes) {
            fprintf(fp, " %s[%s]", ((ln_op *)en->node->data)->op_arg->name,
                    (char *)en->edge_data);
        }
        fputc('\n', fp);
    }
    LN_LIST_FOREACH(ln_dfg_port, p, dfg->dangling_ins) {
        fprintf(fp, "dangling in: %s of %s\n", p->tensor, p->op->op_arg->name);
    }
    LN_LIST_FOREACH(ln_dfg_port, p, dfg->dangling_outs) {
        fprintf(fp, "dangling out: %s of %s\n", p->tensor, p->op->op_arg->name);
    }
}
