/*
 * fuzz_common.h -- shared by the libFuzzer harnesses of tests/fuzz.
 *
 * Every harness caps what the library may allocate (LN_FUZZ_ALLOC_LIMIT,
 * 256 MB), so a model claiming a huge tensor is refused with LN_ENOMEM
 * instead of growing the process; refusals are fine, a crash, a leak or a
 * sanitizer report is a finding.  The library must never abort: an
 * out-of-memory handler that aborts would be reported as a crash.
 */
#ifndef LN_FUZZ_COMMON_H
#define LN_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include "ln_util.h"
#include "ln_interp.h"

#define LN_FUZZ_ALLOC_LIMIT ((size_t)256 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    ln_alloc_set_limit(LN_FUZZ_ALLOC_LIMIT);
    return 0;
}

/* Parse (format "json" or "onnx"), compile for cpu, plan; with run, load
 * the weights the IR carries inline and run the interpreter. */
static void ln_fuzz_model(const uint8_t *data, size_t size, const char *source,
                          const char *format, int run)
{
    ln_context *ctx = ln_context_create();

    if (ln_context_init_mem(ctx, data, size, source, format, NULL) == 0 &&
        ln_context_compile(ctx, "cpu") == 0 && ln_context_plan(ctx) == 0 && run &&
        ctx->arena_size <= ((size_t)16 << 20) && ln_context_load(ctx, NULL) == 0) {
        (void)ln_context_run(ctx);
        ln_context_unload(ctx);
    }
    ln_context_free(ctx);
}

#endif
