/*
 * ln_queue.c -- FIFO queue on ln_list nodes.  Enqueue links a node after the
 * tail and dequeue unlinks the head, both O(1).  The queue does not own its
 * data; only ln_queue_free_deep frees it, with the function it is given.
 */
#include "ln_queue.h"

ln_queue *ln_queue_create(void)
{
    return ln_alloc(sizeof(ln_queue)); /* zeroed: empty */
}

void ln_queue_enqueue(ln_queue *queue, void *data)
{
    ln_list *n = ln_list_prepend(NULL, data);

    if (queue->tail)
        queue->tail->next = n;
    else
        queue->head = n;
    queue->tail = n;
    queue->size++;
}

void *ln_queue_dequeue(ln_queue *queue)
{
    ln_list *n = queue->head;
    void *data;

    if (!n)
        return NULL;
    data = n->data;
    queue->head = n->next;
    if (!queue->head)
        queue->tail = NULL;
    queue->size--;
    ln_free(n);
    return data;
}

void *ln_queue_peek(const ln_queue *queue)
{
    return queue->head ? queue->head->data : NULL;
}

size_t ln_queue_size(const ln_queue *queue)
{
    return queue->size;
}

void ln_queue_free(ln_queue *queue)
{
    ln_queue_free_deep(queue, NULL);
}

void ln_queue_free_deep(ln_queue *queue, ln_free_func free_func)
{
    if (!queue)
        return;
    ln_list_free_deep(queue->head, free_func);
    ln_free(queue);
}
