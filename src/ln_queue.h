/*
 * ln_queue.h -- FIFO queue on ln_list (O(1) enqueue at the tail and dequeue
 * at the head).  The queue never frees the data it holds unless told to.
 */
#ifndef LN_QUEUE_H
#define LN_QUEUE_H

#include "ln_list.h"

LN_CPPSTART

typedef struct ln_queue {
    ln_list *head;
    ln_list *tail;
    size_t size;
} ln_queue;

ln_queue *ln_queue_create(void);
void ln_queue_enqueue(ln_queue *queue, void *data);
/* NULL when empty (use ln_queue_size to tell a stored NULL from empty). */
void *ln_queue_dequeue(ln_queue *queue);
void *ln_queue_peek(const ln_queue *queue);
size_t ln_queue_size(const ln_queue *queue);
void ln_queue_free(ln_queue *queue);
void ln_queue_free_deep(ln_queue *queue, ln_free_func free_func);

LN_CPPEND
#endif
