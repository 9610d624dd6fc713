/*
 * budget_main.c -- the smallest program around the model, linked only to
 * measure what the model brings (make check-budget; docs/firmware.md): its
 * arena and its input and output buffers, one call of model_run, nothing
 * else.  No start-up code, no printing and no C library calls of its own,
 * so every runtime and C library byte of fw-budget.elf is there because
 * the model needs it.  Linked with -e main; never run.
 */
#include "model.h"

#if MODEL_IO_IN_ARENA || MODEL_NUM_INPUTS != 1 || MODEL_NUM_OUTPUTS != 1
#error "budget_main.c: one input and one output in the caller's buffers"
#endif

static unsigned char budget_arena[MODEL_ARENA_SIZE > 0 ? MODEL_ARENA_SIZE : 1]
    __attribute__((aligned(MODEL_ARENA_ALIGN)));
static float budget_in[MODEL_INPUT0_SIZE], budget_out[MODEL_OUTPUT0_SIZE];

int main(void);

int main(void)
{
    return model_run(budget_arena, budget_in, budget_out);
}
