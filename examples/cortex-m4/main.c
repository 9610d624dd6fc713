/*
 * main.c -- runs one model emitted by ln-aot on the stored test input, on
 * QEMU's mps2-an386 (Cortex-M4F), and checks it against the reference.
 *
 * model.h / model.c come from `ln-aot -n model`; data.h (made by the
 * Makefile from the model's input.bin and output.bin) holds fw_input and
 * fw_ref as float arrays in flash. The arena is a static 16-byte aligned
 * array in .bss, so the linker places it in RAM and the memory report sees
 * it. The model runs twice:
 *
 *   1. with SysTick off, over a stack painted with a pattern: the deepest
 *      word overwritten gives the stack the inference really used;
 *   2. timed: SysTick ticks of the processor clock; under qemu -icount
 *      shift=0 a tick is CYCLES_INSNS_PER_TICK (40) instructions.
 *
 * Both runs must give bit-identical outputs (the model keeps no state),
 * and the output must satisfy max |out - ref| <= 1e-4 * max |ref|.
 * Prints the output, PASS or FAIL, the instruction count and the stack;
 * returns 0 on PASS (qemu exits 0), 1 otherwise.
 *
 * Built with -DMODEL_PROFILE (`make PROFILE=1`, with the model compiled
 * the same way and profile.c linked in), run 2 also records the SysTick
 * count after each op and prints instructions per op and per op type.
 */
#include <stdint.h>
#include <string.h>
#include "cycles.h"
#include "data.h"
#include "model.h"
#include "semihost.h"
#ifdef MODEL_PROFILE
#include "profile.h"
#endif

#if MODEL_NUM_INPUTS != 1 || MODEL_NUM_OUTPUTS != 1
#error "this firmware feeds one input and checks one output"
#endif
#if MODEL_IO_IN_ARENA
#error "build the model with inputs and outputs as the caller's buffers"
#endif
#if FW_INPUT_COUNT != MODEL_INPUT0_SIZE || FW_REF_COUNT != MODEL_OUTPUT0_SIZE
#error "input.bin / output.bin do not match the model's input / output size"
#endif

#define TOLERANCE 1e-4f   /* relative to max |ref| */
#define PAINT 0xC5A5C5A5u /* stack paint */
#define SHOW 16           /* output values printed */

int main(void);

/* The arena: RAM, placed by the linker, aligned as the model asks. */
static unsigned char fw_arena[MODEL_ARENA_SIZE > 0 ? MODEL_ARENA_SIZE : 1]
    __attribute__((aligned(MODEL_ARENA_ALIGN)));
static float fw_out[MODEL_OUTPUT0_SIZE], fw_out2[MODEL_OUTPUT0_SIZE];

extern uint32_t _stack_limit;

static uint32_t *sp_now(void)
{
    uint32_t *sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    return sp;
}

/* Paint the free stack below this frame; noinline so its own frame is
 * gone when the model runs. */
static void __attribute__((noinline)) paint_stack(uint32_t *top)
{
    uint32_t *p;
    for (p = &_stack_limit; p < top; p++)
        *p = PAINT;
}

static uint32_t stack_used(uint32_t *top)
{
    uint32_t *p = &_stack_limit;
    while (p < top && *p == PAINT)
        p++;
    return (uint32_t)((uintptr_t)top - (uintptr_t)p);
}

static void put_line(const char *label, uint64_t v, const char *unit)
{
    sh_puts(label);
    sh_put_u64(v);
    sh_puts(unit);
}

int main(void)
{
    uint32_t *top = sp_now() - 64; /* 256 bytes of margin for the calls */
    uint64_t t0, t1, insns;
    uint32_t stack;
    float maxdiff = 0, maxref = 0;
    int i, rc, argmax = 0, ok;

#ifdef MODEL_PROFILE
    sh_puts("LightNet firmware: model " FW_MODEL_NAME " on Cortex-M4 (mps2-an386), profiled\n");
#else
    sh_puts("LightNet firmware: model " FW_MODEL_NAME " on Cortex-M4 (mps2-an386)\n");
#endif

    paint_stack(top);
    rc = model_run(fw_arena, fw_input.f, fw_out2);
    stack = stack_used(top);
    if (rc != MODEL_OK) {
        sh_puts("model_run returned ");
        sh_put_i32(rc);
        sh_puts("\nFAIL\n");
        return 1;
    }

    memset(fw_arena, 0, sizeof fw_arena); /* nothing may leak between runs */
    cycles_start();
#ifdef MODEL_PROFILE
    fw_profile_arm(1);
#endif
    t0 = cycles_now();
    rc = model_run(fw_arena, fw_input.f, fw_out);
    t1 = cycles_now();
#ifdef MODEL_PROFILE
    fw_profile_arm(0);
#endif
    cycles_stop();
    if (rc != MODEL_OK) {
        sh_puts("model_run returned ");
        sh_put_i32(rc);
        sh_puts("\nFAIL\n");
        return 1;
    }

    for (i = 0; i < MODEL_OUTPUT0_SIZE; i++) {
        float r = fw_ref.f[i], d = fw_out[i] - r;
        if (d < 0)
            d = -d;
        if (r < 0)
            r = -r;
        if (!(d <= maxdiff)) /* NaN sticks */
            maxdiff = d;
        if (r > maxref)
            maxref = r;
        if (fw_out[i] > fw_out[argmax])
            argmax = i;
    }
    ok = maxdiff <= TOLERANCE * maxref &&
         memcmp(fw_out, fw_out2, sizeof fw_out) == 0;

    sh_puts("output[");
    sh_put_i32(MODEL_OUTPUT0_SIZE);
    sh_puts("]:");
    for (i = 0; i < MODEL_OUTPUT0_SIZE && i < SHOW; i++) {
        sh_puts(" ");
        sh_put_float(fw_out[i], 6);
    }
    sh_puts(MODEL_OUTPUT0_SIZE > SHOW ? " ...\n" : "\n");
    sh_puts("argmax: ");
    sh_put_i32(argmax);
    sh_puts("\nmax |out - ref|: ");
    sh_put_float(maxdiff, 3);
    sh_puts("  (tolerance 1e-4 x max |ref| = ");
    sh_put_float(TOLERANCE * maxref, 3);
    sh_puts(")\n");
    if (memcmp(fw_out, fw_out2, sizeof fw_out) != 0)
        sh_puts("the two runs differ\n");
    insns = (t1 - t0) * CYCLES_INSNS_PER_TICK;
    put_line("ticks: ", t1 - t0, " SysTick ticks (25 MHz processor clock)\n");
    put_line("instructions: ", insns, " per inference (ticks x 40, +-40)\n");
    put_line("stack: ", stack, " bytes used by model_run (measured, painted)\n");
#ifdef MODEL_PROFILE
    fw_profile_print(t1 - t0);
#endif
    put_line("arena: ", MODEL_ARENA_SIZE, " bytes");
    put_line(" (lower bound ", MODEL_ARENA_LOWER_BOUND, ")\n");
    sh_puts(ok ? "PASS\n" : "FAIL\n");
    return ok ? 0 : 1;
}
