/* libFuzzer: bytes as an ONNX model -> import, shape inference, compile
 * for cpu, memory plan. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ln_fuzz_model(data, size, "fuzz.onnx", "onnx", 0);
    return 0;
}
