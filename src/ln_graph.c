/*
 * ln_graph.c -- directed multigraph with data on nodes and edges.
 *
 * Every edge is stored twice: as an ln_graph_edge_node in the source's
 * out_edge_nodes (pointing at the target) and in the target's in_edge_nodes
 * (pointing at the source), both carrying the same edge_data pointer.  The
 * two copies are always added and removed together, so indegree/outdegree
 * are the lengths of those lists.  Parallel edges and self-loops are allowed.
 * Nodes and edges are looked up by data with the compare functions (NULL
 * means pointer equality); the graph frees its own bookkeeping, never the
 * node or edge data.  Lookups are linear: graphs here are a few thousand
 * nodes at most.
 */
#include <assert.h>

#include "ln_graph.h"
#include "ln_hash.h"

static ln_graph_edge_node *ln_graph_edge_node_create(void *edge_data,
                                                     ln_graph_node *node)
{
    ln_graph_edge_node *en = ln_alloc(sizeof(*en));

    en->edge_data = edge_data;
    en->node = node;
    return en;
}

ln_graph_node *ln_graph_node_create(void *data, ln_cmp_func node_data_cmp,
                                    ln_cmp_func edge_data_cmp)
{
    ln_graph_node *node = ln_alloc(sizeof(*node));

    node->data = data;
    node->node_data_cmp = node_data_cmp ? node_data_cmp : ln_direct_cmp;
    node->edge_data_cmp = edge_data_cmp ? edge_data_cmp : ln_direct_cmp;
    return node;
}

/* Frees the node's edge lists too, but does not touch the other ends: use
 * ln_graph_remove to take a node out of a graph. */
void ln_graph_node_free(ln_graph_node *node)
{
    if (!node)
        return;
    ln_list_free_deep(node->out_edge_nodes, ln_free);
    ln_list_free_deep(node->in_edge_nodes, ln_free);
    ln_free(node);
}

static void ln_graph_node_free_func(void *p)
{
    ln_graph_node_free(p);
}

ln_graph *ln_graph_create(ln_cmp_func node_cmp, ln_cmp_func edge_cmp)
{
    ln_graph *graph = ln_alloc(sizeof(*graph));

    graph->node_data_cmp = node_cmp ? node_cmp : ln_direct_cmp;
    graph->edge_data_cmp = edge_cmp ? edge_cmp : ln_direct_cmp;
    return graph;
}

void ln_graph_free(ln_graph *graph)
{
    if (!graph)
        return;
    ln_list_free_deep(graph->nodes, ln_graph_node_free_func);
    ln_free(graph);
}

/* Always adds a new node; it does not look for one with equal data first. */
ln_graph_node *ln_graph_add(ln_graph *graph, void *data)
{
    ln_graph_node *node = ln_graph_node_create(data, graph->node_data_cmp,
                                               graph->edge_data_cmp);

    graph->nodes = ln_list_append(graph->nodes, node);
    graph->size++;
    return node;
}

ln_graph_node *ln_graph_find(const ln_graph *graph, void *data)
{
    LN_LIST_FOREACH(ln_graph_node, node, graph->nodes) {
        if (graph->node_data_cmp(data, node->data) == 0)
            return node;
    }
    return NULL;
}

/* Unlink and free the first edge node in *list that points at other and
 * carries exactly the pointer edge_data (the twin of an edge on the far
 * side).  Returns LN_TRUE when one was found. */
static ln_bool ln_graph_drop_twin(ln_list **list, ln_graph_node *other,
                                  void *edge_data)
{
    LN_LIST_FOREACH_NODE(l, *list) {
        ln_graph_edge_node *en = l->data;

        if (en->node == other && en->edge_data == edge_data) {
            *list = ln_list_remove(*list, en);
            ln_free(en);
            return LN_TRUE;
        }
    }
    return LN_FALSE;
}

void *ln_graph_remove(ln_graph *graph, void *data)
{
    ln_graph_node *node = ln_graph_find(graph, data);
    void *node_data;

    if (!node)
        return NULL;
    /* Drop the far-side twin of every edge; a self-loop's twin is in this
     * node's own lists, which are freed whole below. */
    LN_LIST_FOREACH(ln_graph_edge_node, en, node->out_edge_nodes) {
        if (en->node != node && ln_graph_drop_twin(&en->node->in_edge_nodes,
                                                   node, en->edge_data))
            en->node->indegree--;
    }
    LN_LIST_FOREACH(ln_graph_edge_node, en, node->in_edge_nodes) {
        if (en->node != node && ln_graph_drop_twin(&en->node->out_edge_nodes,
                                                   node, en->edge_data))
            en->node->outdegree--;
    }
    node_data = node->data;
    graph->nodes = ln_list_remove(graph->nodes, node);
    graph->size--;
    ln_graph_node_free(node);
    return node_data;
}

void ln_graph_link(ln_graph *graph, void *data1, void *data2, void *edge_data)
{
    ln_graph_node *node1, *node2;

    node1 = ln_graph_find(graph, data1);
    if (!node1)
        node1 = ln_graph_add(graph, data1);
    node2 = ln_graph_find(graph, data2);
    if (!node2)
        node2 = ln_graph_add(graph, data2);
    ln_graph_link_node(graph, node1, node2, edge_data);
}

void ln_graph_link_node(ln_graph *graph, ln_graph_node *node1,
                        ln_graph_node *node2, void *edge_data)
{
    (void)graph; /* the nodes must belong to it */
    node1->out_edge_nodes = ln_list_append(node1->out_edge_nodes,
                                           ln_graph_edge_node_create(edge_data, node2));
    node1->outdegree++;
    node2->in_edge_nodes = ln_list_append(node2->in_edge_nodes,
                                          ln_graph_edge_node_create(edge_data, node1));
    node2->indegree++;
}

void *ln_graph_unlink(ln_graph *graph, void *data1, void *data2, void *edge_data)
{
    ln_graph_node *node1 = ln_graph_find(graph, data1);
    ln_graph_node *node2 = ln_graph_find(graph, data2);

    if (!node1 || !node2)
        return NULL;
    return ln_graph_unlink_node(node1, node2, edge_data);
}

void *ln_graph_unlink_node(ln_graph_node *node1, ln_graph_node *node2,
                           void *edge_data)
{
    void *found;

    LN_LIST_FOREACH(ln_graph_edge_node, en, node1->out_edge_nodes) {
        if (en->node != node2 || node1->edge_data_cmp(edge_data, en->edge_data))
            continue;
        found = en->edge_data;
        node1->out_edge_nodes = ln_list_remove(node1->out_edge_nodes, en);
        ln_free(en);
        node1->outdegree--;
        if (ln_graph_drop_twin(&node2->in_edge_nodes, node1, found))
            node2->indegree--;
        else
            assert(0 && "edge without its twin");
        return found;
    }
    return NULL;
}

/* Nodes are copied in order, then every out edge is replayed on the copies;
 * a table maps each old node to its copy. */
ln_graph *ln_graph_copy(ln_graph *graph)
{
    ln_graph *copy = ln_graph_create(graph->node_data_cmp, graph->edge_data_cmp);
    ln_hash *map = ln_hash_create(ln_direct_hash, ln_direct_cmp, NULL, NULL);

    LN_LIST_FOREACH(ln_graph_node, node, graph->nodes)
        ln_hash_insert(map, node, ln_graph_add(copy, node->data));
    LN_LIST_FOREACH(ln_graph_node, node, graph->nodes) {
        ln_graph_node *from = ln_hash_find(map, node);

        LN_LIST_FOREACH(ln_graph_edge_node, en, node->out_edge_nodes)
            ln_graph_link_node(copy, from, ln_hash_find(map, en->node),
                               en->edge_data);
    }
    ln_hash_free(map);
    return copy;
}

int ln_graph_num_outlier(const ln_graph *graph)
{
    int n = 0;

    LN_LIST_FOREACH(ln_graph_node, node, graph->nodes) {
        if (node->indegree == 0 && node->outdegree == 0)
            n++;
    }
    return n;
}

/* Kahn's algorithm, one layer at a time: layer 0 is every node without
 * edges in (in graph order); layer i+1 is every node whose last incoming edge
 * came from layer i, in the order they were freed.  A node thus lands in the
 * layer equal to its longest path from a source.  Nodes never freed lie on
 * or behind a cycle.  Remaining indegrees live in a side table because the
 * graph is const. */
int ln_graph_topsort(const ln_graph *graph, ln_list **layers)
{
    ln_hash *indeg = ln_hash_create(ln_direct_hash, ln_direct_cmp, NULL, NULL);
    int *counts = ln_alloc(sizeof(int) * (size_t)(graph->size + 1));
    ln_list *result = NULL, *layer = NULL, *next;
    int i = 0, nlayers = 0, done = 0;

    LN_LIST_FOREACH(ln_graph_node, node, graph->nodes) {
        counts[i] = node->indegree;
        ln_hash_insert(indeg, node, &counts[i++]);
        if (node->indegree == 0)
            layer = ln_list_prepend(layer, node);
    }
    layer = ln_list_reverse(layer);
    while (layer) {
        ln_list *datas = NULL;

        next = NULL;
        LN_LIST_FOREACH(ln_graph_node, node, layer) {
            datas = ln_list_prepend(datas, node->data);
            done++;
            LN_LIST_FOREACH(ln_graph_edge_node, en, node->out_edge_nodes) {
                int *c = ln_hash_find(indeg, en->node);

                if (--*c == 0)
                    next = ln_list_prepend(next, en->node);
            }
        }
        result = ln_list_prepend(result, ln_list_reverse(datas));
        nlayers++;
        ln_list_free(layer);
        layer = ln_list_reverse(next);
    }
    ln_hash_free(indeg);
    ln_free(counts);
    result = ln_list_reverse(result);
    if (done != graph->size) {
        ln_graph_free_topsortlist(result);
        *layers = NULL;
        return -1;
    }
    *layers = result;
    return nlayers;
}

static void ln_graph_list_free_func(void *p)
{
    ln_list_free(p);
}

void ln_graph_free_topsortlist(ln_list *layers)
{
    ln_list_free_deep(layers, ln_graph_list_free_func);
}

/* NULL printers print the pointer; an edge with a NULL printer shows no
 * brackets.  A node without successors prints as "data ->". */
void ln_graph_fprint(FILE *fp, const ln_graph *graph,
                     void (*print_node)(FILE *, const void *),
                     void (*print_edge)(FILE *, const void *))
{
    LN_LIST_FOREACH(ln_graph_node, node, graph->nodes) {
        int first = 1;

        if (print_node)
            print_node(fp, node->data);
        else
            fprintf(fp, "%p", node->data);
        fputs(" ->", fp);
        LN_LIST_FOREACH(ln_graph_edge_node, en, node->out_edge_nodes) {
            fputs(first ? " " : ", ", fp);
            first = 0;
            if (print_node)
                print_node(fp, en->node->data);
            else
                fprintf(fp, "%p", en->node->data);
            if (print_edge) {
                fputc('[', fp);
                print_edge(fp, en->edge_data);
                fputc(']', fp);
            }
        }
        fputc('\n', fp);
    }
}
