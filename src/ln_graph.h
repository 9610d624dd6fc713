/*
 * ln_graph.h -- directed graph with data on nodes and edges (LightNet's
 * ln_graph), used by the data-flow graph.
 *
 * A node holds its data and two lists of ln_graph_edge_node: edges out
 * (to successors) and edges in (from predecessors).  Nodes and edges are
 * found by their data with the graph's compare functions.  The graph never
 * frees node or edge data.
 */
#ifndef LN_GRAPH_H
#define LN_GRAPH_H

#include "ln_list.h"

LN_CPPSTART

typedef struct ln_graph_node ln_graph_node;

typedef struct ln_graph_edge_node {
    void *edge_data;
    ln_graph_node *node;  /* the other end */
} ln_graph_edge_node;

struct ln_graph_node {
    void *data;
    ln_list *out_edge_nodes; /* of ln_graph_edge_node */
    ln_list *in_edge_nodes;  /* of ln_graph_edge_node */
    int indegree;
    int outdegree;
    ln_cmp_func node_data_cmp;
    ln_cmp_func edge_data_cmp;
};

typedef struct ln_graph {
    int size;
    ln_list *nodes;       /* of ln_graph_node */
    ln_cmp_func node_data_cmp;
    ln_cmp_func edge_data_cmp;
} ln_graph;

ln_graph_node *ln_graph_node_create(void *data, ln_cmp_func node_data_cmp,
                                    ln_cmp_func edge_data_cmp);
void ln_graph_node_free(ln_graph_node *node);

/* NULL compare functions mean pointer equality. */
ln_graph *ln_graph_create(ln_cmp_func node_cmp, ln_cmp_func edge_cmp);
void ln_graph_free(ln_graph *graph);
ln_graph_node *ln_graph_add(ln_graph *graph, void *data);
ln_graph_node *ln_graph_find(const ln_graph *graph, void *data);
/* Remove the node with this data and every edge touching it; returns the
 * node's data (NULL when absent). */
void *ln_graph_remove(ln_graph *graph, void *data);
/* Add edge data1 -> data2 carrying edge_data; adds missing nodes. */
void ln_graph_link(ln_graph *graph, void *data1, void *data2, void *edge_data);
void ln_graph_link_node(ln_graph *graph, ln_graph_node *node1,
                        ln_graph_node *node2, void *edge_data);
/* Remove one edge data1 -> data2 with equal edge data; returns it or NULL. */
void *ln_graph_unlink(ln_graph *graph, void *data1, void *data2, void *edge_data);
void *ln_graph_unlink_node(ln_graph_node *node1, ln_graph_node *node2,
                           void *edge_data);
/* Same nodes, edges and data pointers in a new graph. */
ln_graph *ln_graph_copy(ln_graph *graph);
/* Nodes with no edges in and no edges out. */
int ln_graph_num_outlier(const ln_graph *graph);
/* Kahn's algorithm by layers: *layers is set to a list of lists of node data,
 * layer i holding the nodes whose longest path from a source is i.  Returns
 * the number of layers, or -1 when the graph has a cycle (*layers is then
 * NULL).  Free with ln_graph_free_topsortlist. */
int ln_graph_topsort(const ln_graph *graph, ln_list **layers);
void ln_graph_free_topsortlist(ln_list *layers);
/* One line per node: "data -> data[edge], ..." with the given printers. */
void ln_graph_fprint(FILE *fp, const ln_graph *graph,
                     void (*print_node)(FILE *, const void *),
                     void (*print_edge)(FILE *, const void *));

LN_CPPEND
#endif
