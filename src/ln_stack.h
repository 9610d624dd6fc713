/*
 * ln_stack.h -- LIFO stack on ln_list.  Never frees data unless told to.
 */
#ifndef LN_STACK_H
#define LN_STACK_H

#include "ln_list.h"

LN_CPPSTART

typedef struct ln_stack {
    ln_list *top;
    size_t size;
} ln_stack;

ln_stack *ln_stack_create(void);
void ln_stack_push(ln_stack *stack, void *data);
/* NULL when empty. */
void *ln_stack_pop(ln_stack *stack);
void *ln_stack_peek(const ln_stack *stack);
size_t ln_stack_size(const ln_stack *stack);
void ln_stack_free(ln_stack *stack);
void ln_stack_free_deep(ln_stack *stack, ln_free_func free_func);

LN_CPPEND
#endif
