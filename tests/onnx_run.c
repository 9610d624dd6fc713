/*
 * onnx_run -- the worker of the ONNX conformance runner and the whole-model
 * test: runs node test directories (model.onnx + test_data_set_0/) or test
 * model directories (model.onnx + input.bin + output.bin, with --model)
 * through the interpreter and prints one line per directory:
 *
 *   PASS|FAIL|UNSUPPORTED|REJECTED <dir>[: <why>]
 *
 * Exit status: 0 when nothing FAILed (node tests) or everything PASSed
 * (--model), else 1.  Built by mk/onnx.mk as build/tests/onnx_run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "onnx_nodetest.h"

int main(int argc, char **argv)
{
    int models = 0, quiet = 0, bad = 0, first = 1;
    char msg[1200];

    for (; first < argc && argv[first][0] == '-'; first++) {
        if (ln_streq(argv[first], "--model"))
            models = 1;
        else if (ln_streq(argv[first], "-q"))
            quiet = 1;
        else {
            fprintf(stderr, "usage: onnx_run [-q] [--model] DIR...\n");
            return 2;
        }
    }
    if (!ln_onnx_enabled()) {
        fprintf(stderr, "onnx_run: LightNet was built without ONNX support\n");
        return 2;
    }
    for (int i = first; i < argc; i++) {
        double rel;
        int st = models ? nt_run_model(argv[i], msg, sizeof msg, &rel)
                        : nt_run_node_test(argv[i], msg, sizeof msg);
        if (st == NT_FAIL || (models && st != NT_PASS))
            bad = 1;
        if (quiet && st == NT_PASS)
            continue;
        printf("%s %s%s%s\n", nt_status_names[st], argv[i], msg[0] ? ": " : "", msg);
        fflush(stdout);
    }
    ln_arch_cleanup();
    return bad;
}
