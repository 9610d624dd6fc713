/*
 * profile_check.c -- the per-op profile hook of an emitted model, on the host.
 *
 * Built by tests/aot/run.sh twice per model, like aot_check.c with
 *   -DMODEL=ew -DMODEL_UP=EW -DMODEL_H='"ew.h"'
 * once with -DEW_PROFILE -DPROFILED against the model compiled with
 * -DEW_PROFILE, and once without both against the plain object.
 *
 *   profile_check OUT.bin IN0.bin ...
 *
 * Runs the model on the inputs twice and writes its outputs, one after the
 * other, to OUT.bin (run.sh requires the two builds to write the same
 * bytes: the hook changes nothing).  The profiled build requires the hook
 * to be called MODEL_NUM_OPS + 1 times per run, first with index -1 and
 * empty strings, then with 0, 1, ... in order and a non-empty name and
 * type, and prints "i<TAB>name<TAB>type" per op of the first run on stdout,
 * which run.sh compares with the comments of the emitted source.  Exit 0
 * when all holds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include MODEL_H

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define M(x) CAT(MODEL, x)
#define U(x) CAT(MODEL_UP, x)

enum { NIN = U(_NUM_INPUTS), NOUT = U(_NUM_OUTPUTS), NOPS = U(_NUM_OPS) };
static const size_t in_sizes[] = U(_INPUT_SIZES);
static const size_t out_sizes[] = U(_OUTPUT_SIZES);

#ifdef PROFILED
static int next = -1, runs, errors;

void M(_profile_hook)(int op_index, const char *op_name, const char *op_type)
{
    if (op_index != next || !op_name || !op_type ||
        (op_index < 0) != (op_name[0] == '\0') || (op_index < 0) != (op_type[0] == '\0')) {
        fprintf(stderr, "hook(%d, \"%s\", \"%s\"): want index %d%s\n", op_index,
                op_name ? op_name : "(null)", op_type ? op_type : "(null)", next,
                next < 0 ? " with empty strings" : " with a name and a type");
        errors++;
    }
    if (runs == 0 && op_index >= 0)
        printf("%d\t%s\t%s\n", op_index, op_name, op_type);
    next = op_index + 1;
}
#endif

int main(int argc, char **argv)
{
    const void *ins[NIN + 1];
    void *outs[NOUT + 1];
    void *arena;
    FILE *fp;
    int i, r;

    if (argc != 2 + NIN) {
        fprintf(stderr, "usage: profile_check OUT.bin IN0.bin ... (%d inputs)\n", NIN);
        return 2;
    }
    arena = calloc(1, U(_ARENA_SIZE) + 64);
    for (i = 0; i < NIN; i++) {
        void *buf = calloc(1, in_sizes[i] * 8 + 1);
        FILE *in = fopen(argv[2 + i], "rb");
        if (!buf || !in) {
            fprintf(stderr, "cannot read %s\n", argv[2 + i]);
            return 1;
        }
        if (fread(buf, 1, in_sizes[i] * 8 + 1, in) == 0) {
            fprintf(stderr, "%s is empty\n", argv[2 + i]);
            return 1;
        }
        fclose(in);
        ins[i] = buf;
    }
    for (i = 0; i < NOUT; i++)
        outs[i] = calloc(1, out_sizes[i] * 8 + 1);    /* any element size */
    if (!(fp = fopen(argv[1], "wb")))
        return 1;
    for (r = 0; r < 2; r++) {
        /* the arena aligned as the model asks */
        unsigned char *a = (unsigned char *)arena;
        a += (U(_ARENA_ALIGN) - (size_t)((unsigned long)a % U(_ARENA_ALIGN))) % U(_ARENA_ALIGN);
        if (M(_run_array)(a, ins, outs) != U(_OK)) {
            fprintf(stderr, "run %d failed\n", r + 1);
            return 1;
        }
#ifdef PROFILED
        if (next != NOPS) {
            fprintf(stderr, "run %d: the hook's last index was %d, want %d\n", r + 1,
                    next - 1, NOPS - 1);
            return 1;
        }
        next = -1;
        runs++;
#endif
        for (i = 0; i < NOUT; i++)
            fwrite(outs[i], 1, out_sizes[i] * 8, fp);  /* bytes past the output stay 0 */
    }
    fclose(fp);
    for (i = 0; i < NIN; i++)
        free((void *)ins[i]);
    for (i = 0; i < NOUT; i++)
        free(outs[i]);
    free(arena);
#ifdef PROFILED
    return errors != 0;
#else
    return 0;
#endif
}
