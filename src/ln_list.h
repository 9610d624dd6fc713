/*
 * ln_list.h -- singly linked list of void pointers (LightNet's ln_list).
 *
 * A list is a pointer to its first node; NULL is the empty list.  Functions
 * that change the shape return the new head.  Nothing here frees the data
 * unless the name says _deep and a free function is given.  Indexes are
 * 0-based; an out-of-range n leaves the list as it is (insert_nth appends).
 */
#ifndef LN_LIST_H
#define LN_LIST_H

#include "ln_util.h"

LN_CPPSTART

typedef struct ln_list ln_list;
struct ln_list {
    void *data;
    ln_list *next;
};

ln_list *ln_list_prepend(ln_list *list, void *data);
ln_list *ln_list_append(ln_list *list, void *data);
void ln_list_free(ln_list *list);
void ln_list_free_deep(ln_list *list, ln_free_func free_func);
ln_list *ln_list_nth(ln_list *list, int n);
void *ln_list_nth_data(ln_list *list, int n);
/* Remove the first node whose data == data. */
ln_list *ln_list_remove(ln_list *list, void *data);
/* Remove the first node with cmp(data, node->data) == 0. */
ln_list *ln_list_remove_custom(ln_list *list, void *data, ln_cmp_func cmp);
ln_list *ln_list_remove_custom_deep(ln_list *list, void *data, ln_cmp_func cmp,
                                    ln_free_func free_func);
/* Remove every node with cmp(data, node->data) == 0, freeing their data. */
ln_list *ln_list_remove_all_custom_deep(ln_list *list, void *data,
                                        ln_cmp_func cmp, ln_free_func free_func);
ln_list *ln_list_remove_nth(ln_list *list, int n);
ln_list *ln_list_remove_nth_deep(ln_list *list, int n, ln_free_func free_func);
/* Insert data before node (which must be in list; NULL appends). */
ln_list *ln_list_insert_before(ln_list *list, void *data, ln_list *node);
ln_list *ln_list_insert_nth(ln_list *list, void *data, int n);
void *ln_list_find(ln_list *list, void *data);
void *ln_list_find_custom(ln_list *list, void *data, ln_cmp_func cmp);
/* A new list (caller frees with ln_list_free) of every matching data. */
ln_list *ln_list_find_all_custom(ln_list *list, void *data, ln_cmp_func cmp);
/* Position of node in list, -1 when absent. */
int ln_list_position(ln_list *list, ln_list *node);
int ln_list_index(ln_list *list, void *data);
int ln_list_index_custom(ln_list *list, void *data, ln_cmp_func cmp);
int ln_list_length(ln_list *list);
ln_list *ln_list_reverse(ln_list *list);
/* A list of pointers into array (data are &array[i]). */
ln_list *ln_list_from_array_size_t(size_t *array, size_t n);
/* Shallow copy: new nodes, same data. */
ln_list *ln_list_copy(ln_list *list);
ln_list *ln_list_copy_deep(ln_list *list, ln_copy_func copy);

/* Iterate: `LN_LIST_FOREACH(ln_op, op, ops) { ... }`.  `break` and
 * `continue` behave as in a plain loop (the inner one-shot loop records
 * whether the body finished, and the outer loop stops when it did not,
 * without reading the node again: the body may have freed it). */
#define LN_LIST_FOREACH(type, var, list)                                    \
    for (ln_list *var##_node_ = (list), *var##_brk_ = NULL;                 \
         var##_node_;                                                        \
         var##_node_ = var##_brk_ ? NULL : var##_node_->next)                \
        for (type *var = (var##_brk_ = var##_node_, (type *)var##_node_->data); \
             var##_brk_; var##_brk_ = NULL)

/* Same as LN_LIST_FOREACH with the current node available as `node`. */
#define LN_LIST_FOREACH_NODE(node, list) \
    for (ln_list *node = (list); node; node = node->next)

LN_CPPEND
#endif
