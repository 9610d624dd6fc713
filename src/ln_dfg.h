/*
 * ln_dfg.h -- the data-flow graph of an op list.
 *
 * Nodes are ops, an edge op1 -> op2 carries the name of a tensor op1 writes
 * and op2 reads.  Tensors read by no known producer are "dangling ins"
 * (graph inputs, or a missing tensor); tensors written but read by nobody
 * are "dangling outs" (graph outputs, or dead values).  The dfg borrows the
 * ops; it is rebuilt or patched by the passes as they rewrite the op list.
 */
#ifndef LN_DFG_H
#define LN_DFG_H

#include "ln_graph.h"
#include "ln_op.h"

LN_CPPSTART

typedef struct ln_dfg {
    ln_graph *graph;        /* node data ln_op*, edge data tensor name (char*, owned) */
    ln_hash *node_table;    /* op name -> ln_graph_node */
    ln_hash *producers;     /* tensor name -> ln_op that writes it */
    ln_list *dangling_ins;  /* of ln_dfg_port: reads with no producer */
    ln_list *dangling_outs; /* of ln_dfg_port: writes with no reader */
} ln_dfg;

typedef struct ln_dfg_port {
    ln_op *op;
    char *tensor;
} ln_dfg_port;

ln_dfg *ln_dfg_create(void);
ln_dfg *ln_dfg_create_from_ops(ln_list *ops);
void ln_dfg_free(ln_dfg *dfg);
/* Add an op and link it to the producers and readers already present. */
void ln_dfg_add(ln_dfg *dfg, ln_op *op);
/* Remove an op and its edges; its readers' inputs become dangling. */
void ln_dfg_remove(ln_dfg *dfg, ln_op *op);
void ln_dfg_link(ln_dfg *dfg, ln_op *op1, ln_op *op2, const char *tname);
void ln_dfg_unlink(ln_dfg *dfg, ln_op *op1, ln_op *op2, const char *tname);
/* The first op reading tname written by op (NULL when none). */
ln_op *ln_dfg_next(const ln_dfg *dfg, const ln_op *op, const char *tname);
/* Every op reading tname written by op (a new list; free with ln_list_free). */
ln_list *ln_dfg_nexts(const ln_dfg *dfg, const ln_op *op, const char *tname);
/* The op writing tname that op reads (NULL when none). */
ln_op *ln_dfg_prev(const ln_dfg *dfg, const ln_op *op, const char *tname);
ln_op *ln_dfg_producer(const ln_dfg *dfg, const char *tname);
int ln_dfg_num_readers(const ln_dfg *dfg, const char *tname);
/* LN_EINVAL with a message when the graph has a cycle or a tensor is read
 * but never written. */
int ln_dfg_check(const ln_dfg *dfg);
void ln_dfg_fprint(FILE *fp, const ln_dfg *dfg);

LN_CPPEND
#endif
