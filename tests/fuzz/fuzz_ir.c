/* libFuzzer: bytes as LightNet JSON IR -> parse, check, pre_run, compile
 * for cpu, memory plan. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ln_fuzz_model(data, size, "fuzz.json", "json", 0);
    return 0;
}
