/*
 * test_ln_graph.c -- ln_graph: add/find, link/unlink (parallel edges, edge
 * compare), removing a node removes its edges on both sides, topsort layers
 * (diamond, longest path, isolated nodes, cycles), num_outlier, copy
 * independence and fprint's format.
 */
#include <stdlib.h>
#include <string.h>
#include <check.h>

#include "ln_graph.h"

static int str_cmp(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* The node with this data; fails the test when absent. */
static ln_graph_node *must_find(ln_graph *g, const char *name)
{
    ln_graph_node *n = ln_graph_find(g, (void *)name);

    ck_assert_msg(n != NULL, "node %s missing", name);
    return n;
}

/* Does node have an edge to a node with this data (carrying edge)? */
static int has_out(ln_graph_node *node, const char *to, void *edge)
{
    LN_LIST_FOREACH(ln_graph_edge_node, en, node->out_edge_nodes) {
        if (strcmp(en->node->data, to) == 0 && en->edge_data == edge)
            return 1;
    }
    return 0;
}

static int has_in(ln_graph_node *node, const char *from, void *edge)
{
    LN_LIST_FOREACH(ln_graph_edge_node, en, node->in_edge_nodes) {
        if (strcmp(en->node->data, from) == 0 && en->edge_data == edge)
            return 1;
    }
    return 0;
}

/* Degrees must equal list lengths, and every edge must have its twin. */
static void check_consistent(ln_graph *g)
{
    ck_assert_int_eq(ln_list_length(g->nodes), g->size);
    LN_LIST_FOREACH(ln_graph_node, n, g->nodes) {
        ck_assert_int_eq(ln_list_length(n->out_edge_nodes), n->outdegree);
        ck_assert_int_eq(ln_list_length(n->in_edge_nodes), n->indegree);
        LN_LIST_FOREACH(ln_graph_edge_node, en, n->out_edge_nodes) {
            ck_assert_int_ge(ln_list_index(g->nodes, en->node), 0);
            ck_assert(has_in(en->node, n->data, en->edge_data));
        }
        LN_LIST_FOREACH(ln_graph_edge_node, en, n->in_edge_nodes) {
            ck_assert_int_ge(ln_list_index(g->nodes, en->node), 0);
            ck_assert(has_out(en->node, n->data, en->edge_data));
        }
    }
}

static char e1[] = "e1", e2[] = "e2", e3[] = "e3", e4[] = "e4", e5[] = "e5";

/* a -> b, a -> c, b -> d, c -> d */
static ln_graph *diamond(void)
{
    ln_graph *g = ln_graph_create(str_cmp, NULL);

    ln_graph_link(g, "a", "b", e1);
    ln_graph_link(g, "a", "c", e2);
    ln_graph_link(g, "b", "d", e3);
    ln_graph_link(g, "c", "d", e4);
    return g;
}

/* Layer i as a space-separated string of node names. */
static void layer_str(ln_list *layer, char *buf, size_t size)
{
    buf[0] = '\0';
    LN_LIST_FOREACH(char, name, layer) {
        if (buf[0])
            strncat(buf, " ", size - strlen(buf) - 1);
        strncat(buf, name, size - strlen(buf) - 1);
    }
}

START_TEST(test_empty)
{
    ln_graph *g = ln_graph_create(NULL, NULL);
    ln_list *layers = (ln_list *)1;

    ck_assert_int_eq(g->size, 0);
    ck_assert_ptr_null(ln_graph_find(g, "a"));
    ck_assert_ptr_null(ln_graph_remove(g, "a"));
    ck_assert_ptr_null(ln_graph_unlink(g, "a", "b", NULL));
    ck_assert_int_eq(ln_graph_num_outlier(g), 0);
    ck_assert_int_eq(ln_graph_topsort(g, &layers), 0);
    ck_assert_ptr_null(layers);
    ln_graph_free(g);
    ln_graph_free(NULL);
}
END_TEST

START_TEST(test_add_find)
{
    ln_graph *g = ln_graph_create(str_cmp, NULL);
    char name[] = "conv1";
    ln_graph_node *n = ln_graph_add(g, name);

    ck_assert_int_eq(g->size, 1);
    ck_assert_ptr_eq(n->data, name);
    ck_assert_int_eq(n->indegree, 0);
    ck_assert_int_eq(n->outdegree, 0);
    ck_assert_ptr_eq(ln_graph_find(g, "conv1"), n); /* by compare func */
    ck_assert_ptr_null(ln_graph_find(g, "conv2"));
    ln_graph_free(g);

    g = ln_graph_create(NULL, NULL); /* pointer equality */
    n = ln_graph_add(g, name);
    ck_assert_ptr_eq(ln_graph_find(g, name), n);
    {
        char other[] = "conv1";
        ck_assert_ptr_null(ln_graph_find(g, other));
    }
    ln_graph_free(g);
}
END_TEST

START_TEST(test_link)
{
    ln_graph *g = diamond();
    ln_graph_node *a = must_find(g, "a"), *d = must_find(g, "d");

    ck_assert_int_eq(g->size, 4); /* link added the missing nodes once */
    ck_assert_int_eq(a->outdegree, 2);
    ck_assert_int_eq(a->indegree, 0);
    ck_assert_int_eq(d->indegree, 2);
    ck_assert_int_eq(d->outdegree, 0);
    ck_assert(has_out(a, "b", e1));
    ck_assert(has_out(a, "c", e2));
    ck_assert(has_in(d, "b", e3));
    ck_assert(has_in(d, "c", e4));
    ck_assert(!has_out(d, "a", e1));
    check_consistent(g);
    ln_graph_free(g);
}
END_TEST

START_TEST(test_unlink)
{
    ln_graph *g = diamond();
    ln_graph_node *a = must_find(g, "a"), *b = must_find(g, "b");

    ck_assert_ptr_null(ln_graph_unlink(g, "a", "b", e2)); /* wrong edge data */
    ck_assert_ptr_null(ln_graph_unlink(g, "b", "a", e1)); /* wrong direction */
    ck_assert_ptr_null(ln_graph_unlink(g, "a", "zz", e1)); /* no such node */
    ck_assert_int_eq(a->outdegree, 2);
    ck_assert_ptr_eq(ln_graph_unlink(g, "a", "b", e1), e1);
    ck_assert_int_eq(a->outdegree, 1);
    ck_assert_int_eq(b->indegree, 0);
    ck_assert(!has_out(a, "b", e1));
    ck_assert(!has_in(b, "a", e1));
    ck_assert_ptr_null(ln_graph_unlink(g, "a", "b", e1)); /* already gone */
    ck_assert_int_eq(g->size, 4); /* nodes stay */
    check_consistent(g);
    ln_graph_free(g);
}
END_TEST

/* Parallel edges: unlink takes one at a time; edges match by edge_cmp. */
START_TEST(test_unlink_parallel)
{
    ln_graph *g = ln_graph_create(str_cmp, str_cmp);
    ln_graph_node *x, *y;
    char probe[] = "e1";

    ln_graph_link(g, "x", "y", e1);
    ln_graph_link(g, "x", "y", e1);
    ln_graph_link(g, "x", "y", e2);
    x = must_find(g, "x");
    y = must_find(g, "y");
    ck_assert_int_eq(x->outdegree, 3);
    ck_assert_int_eq(y->indegree, 3);
    ck_assert_ptr_eq(ln_graph_unlink_node(x, y, probe), e1); /* equal content */
    ck_assert_int_eq(x->outdegree, 2);
    ck_assert_int_eq(y->indegree, 2);
    check_consistent(g);
    ck_assert_ptr_eq(ln_graph_unlink(g, "x", "y", probe), e1);
    ck_assert_ptr_null(ln_graph_unlink(g, "x", "y", probe));
    ck_assert_ptr_eq(ln_graph_unlink(g, "x", "y", e2), e2);
    ck_assert_int_eq(x->outdegree, 0);
    ck_assert_int_eq(y->indegree, 0);
    ck_assert_ptr_null(x->out_edge_nodes);
    ck_assert_ptr_null(y->in_edge_nodes);
    ln_graph_free(g);
}
END_TEST

START_TEST(test_remove_node)
{
    ln_graph *g = diamond();
    char *data;
    ln_graph_node *a, *d;

    ln_graph_link(g, "b", "b", e5); /* self-loop on the node to go */
    data = ln_graph_remove(g, "b");
    ck_assert_str_eq(data, "b");
    ck_assert_int_eq(g->size, 3);
    ck_assert_ptr_null(ln_graph_find(g, "b"));
    a = must_find(g, "a");
    d = must_find(g, "d");
    ck_assert_int_eq(a->outdegree, 1);
    ck_assert_int_eq(d->indegree, 1);
    ck_assert(!has_out(a, "b", e1));
    ck_assert(!has_in(d, "b", e3));
    ck_assert(has_out(a, "c", e2));
    check_consistent(g);
    ck_assert_ptr_null(ln_graph_remove(g, "b"));
    ck_assert_ptr_nonnull(ln_graph_remove(g, "a"));
    ck_assert_ptr_nonnull(ln_graph_remove(g, "d"));
    ck_assert_int_eq(g->size, 1);
    ck_assert_int_eq(ln_graph_num_outlier(g), 1); /* c alone */
    check_consistent(g);
    ln_graph_free(g);
}
END_TEST

START_TEST(test_topsort_diamond)
{
    ln_graph *g = diamond();
    ln_list *layers = NULL;
    char buf[64];

    ln_graph_add(g, "e");            /* isolated: layer 0 */
    ln_graph_link(g, "a", "d", e5);  /* shortcut: d still at depth 2 */
    ck_assert_int_eq(ln_graph_topsort(g, &layers), 3);
    ck_assert_int_eq(ln_list_length(layers), 3);
    layer_str(ln_list_nth_data(layers, 0), buf, sizeof(buf));
    ck_assert_str_eq(buf, "a e");
    layer_str(ln_list_nth_data(layers, 1), buf, sizeof(buf));
    ck_assert_str_eq(buf, "b c");
    layer_str(ln_list_nth_data(layers, 2), buf, sizeof(buf));
    ck_assert_str_eq(buf, "d");
    ln_graph_free_topsortlist(layers);
    /* topsort leaves the graph alone */
    ck_assert_int_eq(must_find(g, "d")->indegree, 3);
    check_consistent(g);
    ln_graph_free(g);
}
END_TEST

/* The layer is the longest path from a source, not the shortest. */
START_TEST(test_topsort_longest_path)
{
    ln_graph *g = ln_graph_create(str_cmp, NULL);
    ln_list *layers = NULL;
    char buf[64];

    ln_graph_link(g, "s", "t", e1);
    ln_graph_link(g, "s", "u", e2);
    ln_graph_link(g, "u", "v", e3);
    ln_graph_link(g, "v", "t", e4);
    ck_assert_int_eq(ln_graph_topsort(g, &layers), 4);
    layer_str(ln_list_nth_data(layers, 3), buf, sizeof(buf));
    ck_assert_str_eq(buf, "t");
    ln_graph_free_topsortlist(layers);
    ln_graph_free(g);
}
END_TEST

START_TEST(test_topsort_cycle)
{
    ln_graph *g = ln_graph_create(str_cmp, NULL);
    ln_list *layers = (ln_list *)1;

    ln_graph_link(g, "src", "a", e1);
    ln_graph_link(g, "a", "b", e2);
    ln_graph_link(g, "b", "c", e3);
    ln_graph_link(g, "c", "a", e4);
    ck_assert_int_eq(ln_graph_topsort(g, &layers), -1);
    ck_assert_ptr_null(layers);
    ln_graph_unlink(g, "c", "a", e4); /* break the cycle */
    ck_assert_int_eq(ln_graph_topsort(g, &layers), 4);
    ln_graph_free_topsortlist(layers);
    ln_graph_link(g, "c", "c", e5); /* self-loop is a cycle too */
    layers = (ln_list *)1;
    ck_assert_int_eq(ln_graph_topsort(g, &layers), -1);
    ck_assert_ptr_null(layers);
    ln_graph_free(g);
}
END_TEST

START_TEST(test_num_outlier)
{
    ln_graph *g = diamond();

    ck_assert_int_eq(ln_graph_num_outlier(g), 0);
    ln_graph_add(g, "lonely1");
    ln_graph_add(g, "lonely2");
    ck_assert_int_eq(ln_graph_num_outlier(g), 2);
    ln_graph_unlink(g, "a", "b", e1);
    ck_assert_int_eq(ln_graph_num_outlier(g), 2); /* b still -> d */
    ln_graph_unlink(g, "b", "d", e3);
    ck_assert_int_eq(ln_graph_num_outlier(g), 3);
    ln_graph_link(g, "lonely1", "lonely1", e5); /* self-loop: has edges */
    ck_assert_int_eq(ln_graph_num_outlier(g), 2);
    ln_graph_free(g);
}
END_TEST

START_TEST(test_copy)
{
    ln_graph *g = diamond();
    ln_graph *c = ln_graph_copy(g);
    ln_graph_node *ga = must_find(g, "a"), *ca = must_find(c, "a");
    ln_list *layers = NULL;
    char buf[64];

    ck_assert_int_eq(c->size, 4);
    ck_assert_ptr_ne(ga, ca);
    ck_assert_ptr_eq(ga->data, ca->data); /* same data pointers */
    ck_assert(has_out(ca, "b", e1));
    ck_assert(has_out(ca, "c", e2));
    ck_assert(has_in(must_find(c, "d"), "b", e3));
    /* copies' edges point at the copy's nodes */
    LN_LIST_FOREACH(ln_graph_node, n, c->nodes) {
        LN_LIST_FOREACH(ln_graph_edge_node, en, n->out_edge_nodes)
            ck_assert_int_ge(ln_list_index(c->nodes, en->node), 0);
    }
    check_consistent(c);
    /* same node order */
    LN_LIST_FOREACH_NODE(l, g->nodes) {
        ln_graph_node *gn = l->data;
        ln_graph_node *cn = ln_list_nth_data(c->nodes, ln_list_position(g->nodes, l));
        ck_assert_ptr_eq(gn->data, cn->data);
    }
    /* changing the copy leaves the original alone */
    ln_graph_remove(c, "b");
    ln_graph_unlink(c, "a", "c", e2);
    ln_graph_link(c, "d", "x", e5);
    ck_assert_int_eq(g->size, 4);
    ck_assert_int_eq(ga->outdegree, 2);
    ck_assert(has_out(ga, "b", e1));
    ck_assert_ptr_null(ln_graph_find(g, "x"));
    ck_assert_int_eq(ln_graph_topsort(g, &layers), 3);
    layer_str(ln_list_nth_data(layers, 1), buf, sizeof(buf));
    ck_assert_str_eq(buf, "b c");
    ln_graph_free_topsortlist(layers);
    ln_graph_free(c);
    check_consistent(g); /* freeing the copy did not touch g */
    ln_graph_free(g);
}
END_TEST

static void print_str(FILE *fp, const void *p)
{
    fputs(p, fp);
}

START_TEST(test_fprint)
{
    ln_graph *g = diamond();
    FILE *fp = tmpfile();
    char buf[256];
    size_t n;

    ck_assert_ptr_nonnull(fp);
    ln_graph_fprint(fp, g, print_str, print_str);
    rewind(fp);
    n = fread(buf, 1, sizeof(buf) - 1, fp);
    buf[n] = '\0';
    ck_assert_str_eq(buf,
                     "a -> b[e1], c[e2]\n"
                     "b -> d[e3]\n"
                     "c -> d[e4]\n"
                     "d ->\n");
    fclose(fp);
    ln_graph_free(g);
}
END_TEST

Suite *test_ln_graph_suite(void); /* run by tests/test_main.c */

Suite *test_ln_graph_suite(void)
{
    Suite *s = suite_create("ln_graph");
    TCase *tc = tcase_create("graph");

    tcase_add_test(tc, test_empty);
    tcase_add_test(tc, test_add_find);
    tcase_add_test(tc, test_link);
    tcase_add_test(tc, test_unlink);
    tcase_add_test(tc, test_unlink_parallel);
    tcase_add_test(tc, test_remove_node);
    tcase_add_test(tc, test_topsort_diamond);
    tcase_add_test(tc, test_topsort_longest_path);
    tcase_add_test(tc, test_topsort_cycle);
    tcase_add_test(tc, test_num_outlier);
    tcase_add_test(tc, test_copy);
    tcase_add_test(tc, test_fprint);
    suite_add_tcase(s, tc);
    return s;
}
