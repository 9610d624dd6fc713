/* libFuzzer: bytes as a .wts (text) weights file. */
#include "fuzz_common.h"
#include "ln_datafile.h"
#include "ln_hash.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ln_hash *dict = NULL;

    if (ln_datafile_read_wts_mem(data, size, "fuzz.wts", &dict) == 0)
        ln_hash_free(dict);
    return 0;
}
