/*
 * aot_check.c -- one emitted model against the interpreter and a reference.
 *
 * Built once per model by tests/aot/run.sh with
 *   -DMODEL=ew -DMODEL_UP=EW -DMODEL_H='"ew.h"'
 * and linked with the emitted ew.o, liblightnet and libln_rt.
 *
 *   aot_check MODEL.json TOL IN0.bin ... REF0.bin ...
 *
 * Runs the model in the interpreter (ln_context) and through the emitted
 * MODEL_run_array on the same inputs, requires the outputs to be equal bit
 * for bit, and within TOL (|a - r| <= TOL * (1 + |r|)) of the reference
 * files (a reference "-" is skipped); the interpreter at -O0 (no folding,
 * no fusion) must meet the reference too.  The arena is filled with garbage
 * before each run and the model is run twice on different garbage, so a
 * read of memory the model did not write shows up.  Also checks the
 * arena argument errors.  Prints one PASS or FAIL line.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ln_interp.h"
#include MODEL_H

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define M(x) CAT(MODEL, x)
#define U(x) CAT(MODEL_UP, x)
#define STR_(x) #x
#define STR(x) STR_(x)

enum { NIN = U(_NUM_INPUTS), NOUT = U(_NUM_OUTPUTS) };
static const char *const in_names[] = U(_INPUT_NAMES);
static const char *const out_names[] = U(_OUTPUT_NAMES);
static const size_t out_sizes[] = U(_OUTPUT_SIZES);
static const size_t in_bytes[] = U(_INPUT_BYTES);    /* whatever the dtype (int64 inputs) */
static const size_t out_bytes[] = U(_OUTPUT_BYTES);

static int fail(const char *what, const char *detail)
{
    printf("FAIL %s: %s%s%s\n", STR(MODEL), what, detail ? ": " : "", detail ? detail : "");
    return 1;
}

static void *read_file(const char *path, size_t want)
{
    FILE *fp = fopen(path, "rb");
    void *buf;
    size_t n;

    if (!fp)
        return NULL;
    buf = malloc(want + 1);
    n = fread(buf, 1, want + 1, fp);
    fclose(fp);
    if (n != want) {
        free(buf);
        return NULL;
    }
    return buf;
}

static void *arena_alloc(size_t n, unsigned char fill)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, n ? n : 1) != 0)
        return NULL;
    memset(p, fill, n ? n : 1);
    return p;
}

/* Run the model in the interpreter (at -O0 with no_opt) into outs. */
static int interpret(const char *model, ln_bool no_opt, void *const *ins, void **outs)
{
    ln_context *ctx = ln_context_create();
    const char *what = no_opt ? "-O0 interpreter" : "interpreter";

    ctx->no_opt = no_opt;
    if (ln_context_init(ctx, model) || ln_context_compile(ctx, "cpu") ||
        ln_context_load(ctx, NULL))
        return fail(what, ln_error_message());
    for (int i = 0; i < NIN; i++)
        if (ln_context_set_data(ctx, in_names[i], ins[i], in_bytes[i]))
            return fail(what, ln_error_message());
    if (ln_context_run(ctx))
        return fail(what, ln_error_message());
    for (int i = 0; i < NOUT; i++)
        if (ln_context_get_data(ctx, out_names[i], outs[i], out_bytes[i]))
            return fail(what, ln_error_message());
    ln_context_free(ctx);
    return 0;
}

/* outs against the reference files (a "-" is skipped): within tol of
 * each element (tol * (1 + |r|)) or, when rel, of the output's largest
 * reference value (tol * max |r|); the largest error into *maxerr.  An
 * output that is not float32 must equal its reference byte for byte. */
static int check_ref(char **paths, void *const *outs, double tol, int rel, const char *what,
                     double *maxerr)
{
    char msg[256];

    for (int i = 0; i < NOUT; i++) {
        const float *a = outs[i], *r;
        double rmax = 0;
        if (ln_streq(paths[i], "-"))
            continue;
        if (!(r = read_file(paths[i], out_bytes[i])))
            return fail("cannot read reference (or wrong size)", paths[i]);
        if (out_bytes[i] != out_sizes[i] * sizeof(float)) {
            int same = memcmp(a, r, out_bytes[i]) == 0;
            free((void *)r);
            if (!same) {
                snprintf(msg, sizeof msg, "output %d '%s' (not float32) differs", i, out_names[i]);
                return fail(what, msg);
            }
            continue;
        }
        for (size_t k = 0; k < out_sizes[i]; k++)
            if (fabs((double)r[k]) > rmax)
                rmax = fabs((double)r[k]);
        for (size_t k = 0; k < out_sizes[i]; k++) {
            double err = fabs((double)a[k] - (double)r[k]);
            if (!(err <= tol * (rel ? rmax : 1 + fabs((double)r[k])))) {
                snprintf(msg, sizeof msg, "output %d '%s' [%zu]: %.9g, reference %.9g", i,
                         out_names[i], k, (double)a[k], (double)r[k]);
                free((void *)r);
                return fail(what, msg);
            }
            if (err > *maxerr)
                *maxerr = err;
        }
        free((void *)r);
    }
    return 0;
}

/* A quantized model's outputs against the reference, in steps of the
 * output scale: within 4 steps on every element and, when strict, 2 on at
 * least 99% of them (ONNX Runtime's float QDQ arithmetic and TFLite's
 * integer requantization round differently); the largest step count into
 * *maxerr. */
static int check_steps(char **paths, void *const *outs, double step, int strict,
                       const char *what, double *maxerr)
{
    char msg[256];

    for (int i = 0; i < NOUT; i++) {
        const float *a = outs[i], *r;
        size_t over2 = 0;
        if (ln_streq(paths[i], "-"))
            continue;
        if (!(r = read_file(paths[i], out_sizes[i] * sizeof(float))))
            return fail("cannot read reference (or wrong size)", paths[i]);
        for (size_t k = 0; k < out_sizes[i]; k++) {
            double steps = fabs((double)a[k] - (double)r[k]) / step;
            over2 += steps > 2.001;
            if (!(steps <= 4.001)) {
                snprintf(msg, sizeof msg, "output %d '%s' [%zu]: %.9g, reference %.9g: %.1f steps",
                         i, out_names[i], k, (double)a[k], (double)r[k], steps);
                free((void *)r);
                return fail(what, msg);
            }
            if (steps > *maxerr)
                *maxerr = steps;
        }
        free((void *)r);
        if (strict && over2 * 100 > out_sizes[i]) {
            snprintf(msg, sizeof msg, "output %d '%s': %zu of %zu elements more than 2 steps off",
                     i, out_names[i], over2, out_sizes[i]);
            return fail(what, msg);
        }
    }
    return 0;
}

/* TOL, or rel:TOL (relative to each output's largest reference value),
 * or for a quantized model q:STEP (check_steps, strict), or qo:STEP:
 * only the -O0 interpreter (the float QDQ arithmetic, ONNX Runtime's) is
 * held to the reference, within 1 step; the int8 path's distance from it
 * is make test-qdq's to check (TFLite's double rounding drifts with depth),
 * the emitted code still equals the interpreter bit for bit. */
static int check_out(char **paths, void *const *outs, const char *tol, int optimized,
                     const char *what, double *maxerr)
{
    if (strncmp(tol, "q:", 2) == 0)
        return check_steps(paths, outs, atof(tol + 2), 1, what, maxerr);
    if (strncmp(tol, "qo:", 3) == 0) {
        double m = 0;
        int ret;
        if (optimized)
            return 0;
        if ((ret = check_steps(paths, outs, atof(tol + 3), 0, what, &m)))
            return ret;
        return m <= 1.001 ? 0 : fail(what, "the float QDQ path is more than 1 step off");
    }
    if (strncmp(tol, "rel:", 4) == 0)
        return check_ref(paths, outs, atof(tol + 4), 1, what, maxerr);
    return check_ref(paths, outs, atof(tol), 0, what, maxerr);
}

int main(int argc, char **argv)
{
    void *ins[NIN + 1], *ref_out[NOUT + 1], *aot_out[NOUT + 1];
    double maxerr = 0;
    char msg[256];
    int ret;

    if (argc != 3 + NIN + NOUT) {
        fprintf(stderr, "usage: %s MODEL.json TOL|rel:TOL|q:STEP|qo:STEP IN0.bin.. REF0.bin..\n", argv[0]);
        return 2;
    }
    for (int i = 0; i < NIN; i++)
        if (!(ins[i] = read_file(argv[3 + i], in_bytes[i])))
            return fail("cannot read input (or wrong size)", argv[3 + i]);

    /* the interpreter, as compiled (the emitted code must equal it) and
     * at -O0 (then aot_out holds it: it must meet the reference too) */
    for (int i = 0; i < NOUT; i++) {
        ref_out[i] = malloc(out_bytes[i] ? out_bytes[i] : 1);
        aot_out[i] = malloc(out_bytes[i] ? out_bytes[i] : 1);
    }
    if ((ret = interpret(argv[1], LN_FALSE, ins, ref_out)) ||
        (ret = interpret(argv[1], LN_TRUE, ins, aot_out)))
        return ret;
    if ((ret = check_out(argv + 3 + NIN, aot_out, argv[2], 0, "-O0 interpreter off the reference",
                         &maxerr)))
        return ret;

    /* the emitted code, twice on different garbage */
    for (int pass = 0; pass < 2; pass++) {
        void *arena = arena_alloc(U(_ARENA_SIZE), pass ? 0xff : 0xa5);
        for (int i = 0; i < NOUT; i++)
            memset(aot_out[i], pass ? 0x7f : 0xc3, out_bytes[i]);
        if ((ret = M(_run_array)(arena, (const void *const *)ins, aot_out)) != U(_OK)) {
            snprintf(msg, sizeof msg, "returned %d", ret);
            return fail("run", msg);
        }
        for (int i = 0; i < NOUT; i++)
            if (memcmp(aot_out[i], ref_out[i], out_bytes[i]) != 0) {
                const unsigned char *a = aot_out[i], *r = ref_out[i];
                size_t esz = out_bytes[i] / out_sizes[i], k = 0;
                while (memcmp(a + k * esz, r + k * esz, esz) == 0)
                    k++;
                if (esz == sizeof(float))
                    snprintf(msg, sizeof msg, "output %d '%s' [%zu]: emitted %.9g, interpreter "
                             "%.9g (pass %d)", i, out_names[i], k, (double)((const float *)a)[k],
                             (double)((const float *)r)[k], pass);
                else
                    snprintf(msg, sizeof msg, "output %d '%s' [%zu] differs (pass %d)", i,
                             out_names[i], k, pass);
                return fail("not bit-exact with the interpreter", msg);
            }
        free(arena);
    }

    /* arena argument errors */
    if (U(_ARENA_SIZE) > 0) {
        unsigned char *arena = arena_alloc(U(_ARENA_SIZE) + 16, 0);
        if (M(_run_array)(NULL, (const void *const *)ins, aot_out) != U(_ERR_ARENA_NULL))
            return fail("NULL arena not rejected", NULL);
#if !U(_IO_IN_ARENA)
        if (M(_run_array)(arena + 4, (const void *const *)ins, aot_out) != U(_ERR_ARENA_ALIGN))
            return fail("misaligned arena not rejected", NULL);
#endif
        free(arena);
    }

    /* the reference, within tolerance */
    maxerr = 0;
    if ((ret = check_out(argv + 3 + NIN, aot_out, argv[2], 1, "off the reference", &maxerr)))
        return ret;
    if (strncmp(argv[2], "qo:", 3) == 0)
        printf("PASS %s: %d output(s) bit-exact with the interpreter, -O0 within 1 step of the "
               "reference\n", STR(MODEL), NOUT);
    else
        printf("PASS %s: %d output(s) bit-exact with the interpreter, max |error| vs reference "
               "%.3g%s\n", STR(MODEL), NOUT, maxerr, argv[2][0] == 'q' ? " steps" : "");
    for (int i = 0; i < NIN; i++)
        free(ins[i]);
    for (int i = 0; i < NOUT; i++) {
        free(ref_out[i]);
        free(aot_out[i]);
    }
    ln_arch_cleanup();
    return 0;
}
