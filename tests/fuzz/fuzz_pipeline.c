/* libFuzzer: the whole pipeline on fuzzed IR -> parse, compile, plan, load
 * the inline constants and run the interpreter (models whose arena is at
 * most 16 MB; allocation is capped in fuzz_common.h). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ln_fuzz_model(data, size, "fuzz.json", "json", 1);
    return 0;
}
