/*
 * ln_stack.c -- LIFO stack on ln_list nodes: the top is the list head, so
 * push and pop are O(1).  The stack does not own its data; only
 * ln_stack_free_deep frees it, with the function it is given.
 */
#include "ln_stack.h"

ln_stack *ln_stack_create(void)
{
    return ln_alloc(sizeof(ln_stack)); /* zeroed: empty */
}

void ln_stack_push(ln_stack *stack, void *data)
{
    stack->top = ln_list_prepend(stack->top, data);
    stack->size++;
}

void *ln_stack_pop(ln_stack *stack)
{
    ln_list *n = stack->top;
    void *data;

    if (!n)
        return NULL;
    data = n->data;
    stack->top = n->next;
    stack->size--;
    ln_free(n);
    return data;
}

void *ln_stack_peek(const ln_stack *stack)
{
    return stack->top ? stack->top->data : NULL;
}

size_t ln_stack_size(const ln_stack *stack)
{
    return stack->size;
}

void ln_stack_free(ln_stack *stack)
{
    ln_stack_free_deep(stack, NULL);
}

void ln_stack_free_deep(ln_stack *stack, ln_free_func free_func)
{
    if (!stack)
        return;
    ln_list_free_deep(stack->top, free_func);
    ln_free(stack);
}
