/*
 * ln_list.c -- singly linked list of void pointers.
 *
 * NULL is the empty list and every function that may change the first node
 * returns the new head.  The list never owns its data: only the _deep
 * variants free data, and only with the free function they are given.
 * Out-of-range (including negative) indexes leave the list unchanged;
 * insert_nth appends instead.
 */
#include <assert.h>

#include "ln_list.h"

static ln_list *ln_list_node_new(void *data, ln_list *next)
{
    ln_list *n = ln_alloc(sizeof(*n));

    n->data = data;
    n->next = next;
    return n;
}

ln_list *ln_list_prepend(ln_list *list, void *data)
{
    return ln_list_node_new(data, list);
}

ln_list *ln_list_append(ln_list *list, void *data)
{
    ln_list *n = ln_list_node_new(data, NULL), *l;

    if (!list)
        return n;
    for (l = list; l->next; l = l->next)
        ;
    l->next = n;
    return list;
}

void ln_list_free(ln_list *list)
{
    ln_list_free_deep(list, NULL);
}

void ln_list_free_deep(ln_list *list, ln_free_func free_func)
{
    ln_list *next;

    for (; list; list = next) {
        next = list->next;
        if (free_func)
            free_func(list->data);
        ln_free(list);
    }
}

ln_list *ln_list_nth(ln_list *list, int n)
{
    if (n < 0)
        return NULL;
    for (; list && n > 0; n--)
        list = list->next;
    return list;
}

void *ln_list_nth_data(ln_list *list, int n)
{
    ln_list *l = ln_list_nth(list, n);

    return l ? l->data : NULL;
}

/* Unlink *link from the list, free the node (and its data when free_func). */
static void ln_list_unlink(ln_list **link, ln_free_func free_func)
{
    ln_list *dead = *link;

    *link = dead->next;
    if (free_func)
        free_func(dead->data);
    ln_free(dead);
}

ln_list *ln_list_remove(ln_list *list, void *data)
{
    ln_list **link;

    for (link = &list; *link; link = &(*link)->next) {
        if ((*link)->data == data) {
            ln_list_unlink(link, NULL);
            break;
        }
    }
    return list;
}

ln_list *ln_list_remove_custom(ln_list *list, void *data, ln_cmp_func cmp)
{
    return ln_list_remove_custom_deep(list, data, cmp, NULL);
}

ln_list *ln_list_remove_custom_deep(ln_list *list, void *data, ln_cmp_func cmp,
                                    ln_free_func free_func)
{
    ln_list **link;

    for (link = &list; *link; link = &(*link)->next) {
        if (cmp(data, (*link)->data) == 0) {
            ln_list_unlink(link, free_func);
            break;
        }
    }
    return list;
}

ln_list *ln_list_remove_all_custom_deep(ln_list *list, void *data,
                                        ln_cmp_func cmp, ln_free_func free_func)
{
    ln_list **link = &list;

    while (*link) {
        if (cmp(data, (*link)->data) == 0)
            ln_list_unlink(link, free_func); /* *link is now the next node */
        else
            link = &(*link)->next;
    }
    return list;
}

ln_list *ln_list_remove_nth(ln_list *list, int n)
{
    return ln_list_remove_nth_deep(list, n, NULL);
}

ln_list *ln_list_remove_nth_deep(ln_list *list, int n, ln_free_func free_func)
{
    ln_list **link = &list;

    if (n < 0)
        return list;
    for (; *link && n > 0; n--)
        link = &(*link)->next;
    if (*link)
        ln_list_unlink(link, free_func);
    return list;
}

ln_list *ln_list_insert_before(ln_list *list, void *data, ln_list *node)
{
    ln_list **link;

    for (link = &list; *link; link = &(*link)->next) {
        if (*link == node)
            break;
    }
    assert(*link == node); /* node not in list? (NULL appends) */
    *link = ln_list_node_new(data, *link);
    return list;
}

ln_list *ln_list_insert_nth(ln_list *list, void *data, int n)
{
    ln_list **link = &list;

    if (n < 0)
        return ln_list_append(list, data);
    for (; *link && n > 0; n--)
        link = &(*link)->next;
    *link = ln_list_node_new(data, *link);
    return list;
}

void *ln_list_find(ln_list *list, void *data)
{
    for (; list; list = list->next) {
        if (list->data == data)
            return list->data;
    }
    return NULL;
}

void *ln_list_find_custom(ln_list *list, void *data, ln_cmp_func cmp)
{
    for (; list; list = list->next) {
        if (cmp(data, list->data) == 0)
            return list->data;
    }
    return NULL;
}

ln_list *ln_list_find_all_custom(ln_list *list, void *data, ln_cmp_func cmp)
{
    ln_list *res = NULL;

    for (; list; list = list->next) {
        if (cmp(data, list->data) == 0)
            res = ln_list_prepend(res, list->data);
    }
    return ln_list_reverse(res);
}

int ln_list_position(ln_list *list, ln_list *node)
{
    int i;

    for (i = 0; list; list = list->next, i++) {
        if (list == node)
            return i;
    }
    return -1;
}

int ln_list_index(ln_list *list, void *data)
{
    int i;

    for (i = 0; list; list = list->next, i++) {
        if (list->data == data)
            return i;
    }
    return -1;
}

int ln_list_index_custom(ln_list *list, void *data, ln_cmp_func cmp)
{
    int i;

    for (i = 0; list; list = list->next, i++) {
        if (cmp(data, list->data) == 0)
            return i;
    }
    return -1;
}

int ln_list_length(ln_list *list)
{
    int n = 0;

    for (; list; list = list->next)
        n++;
    return n;
}

ln_list *ln_list_reverse(ln_list *list)
{
    ln_list *prev = NULL, *next;

    for (; list; list = next) {
        next = list->next;
        list->next = prev;
        prev = list;
    }
    return prev;
}

ln_list *ln_list_from_array_size_t(size_t *array, size_t n)
{
    ln_list *list = NULL;
    size_t i;

    for (i = n; i > 0; i--)
        list = ln_list_prepend(list, &array[i - 1]);
    return list;
}

ln_list *ln_list_copy(ln_list *list)
{
    ln_list *res = NULL, **tail = &res;

    for (; list; list = list->next) {
        *tail = ln_list_node_new(list->data, NULL);
        tail = &(*tail)->next;
    }
    return res;
}

ln_list *ln_list_copy_deep(ln_list *list, ln_copy_func copy)
{
    ln_list *res = NULL, **tail = &res;

    for (; list; list = list->next) {
        *tail = ln_list_node_new(copy(list->data), NULL);
        tail = &(*tail)->next;
    }
    return res;
}
