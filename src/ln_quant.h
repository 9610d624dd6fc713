/*
 * ln_quant.h -- post-training quantization (ln-quant) and the layer-by-layer
 * comparison of two runs (ln-quant --report, lightnet --compare).
 *
 * ln_quant_model reads a float ONNX model, folds batch norms into the convs
 * before them, runs the folded model in the interpreter over calibration
 * inputs (compiled with the expander only and a plan that shares no
 * buffer, so every tensor of the imported graph keeps its ONNX name and
 * its value after the run), picks each activation's range (min/max,
 * percentile or least squared error) and writes a QDQ ONNX model in the
 * layout ONNX Runtime's static quantizer uses (docs/quantization-flow.md).
 */
#ifndef LN_QUANT_H
#define LN_QUANT_H

#include <stdio.h>
#include "ln_context.h"

LN_CPPSTART

typedef enum { LN_QUANT_MINMAX = 0, LN_QUANT_PERCENTILE, LN_QUANT_MSE } ln_quant_method;

/* The scales of an Add of two activations (a residual connection):
 * SEPARATE each its own range; INPUTS both inputs one range (one scale
 * and zero point), so TFLite's ADD rescales both by exactly 1/2; ALL the
 * inputs and the output one, so the int8 add is an integer add and
 * clamp.  docs/quantization-flow.md, "Residual adds". */
typedef enum { LN_QUANT_ADD_SEPARATE = 0, LN_QUANT_ADD_INPUTS, LN_QUANT_ADD_ALL } ln_quant_add_scales;

/* Inferences: n runs of k graph inputs; files[run * k + i] feeds names[i]
 * (names[i] NULL: the model's only graph input). */
typedef struct ln_quant_inputs {
    int n, k;
    char **names;
    char **files;
} ln_quant_inputs;

/* One --calib argument: a comma-separated list of [NAME=]PATH, PATH a raw
 * float32 file (one inference) or a directory (its regular files sorted by
 * name, one inference each); every element gives the same count. */
int ln_quant_inputs_add(ln_quant_inputs *in, const char *arg);
void ln_quant_inputs_clear(ln_quant_inputs *in);
/* Fill the graph inputs of a loaded context from inference r. */
int ln_quant_inputs_set(const ln_quant_inputs *in, int r, ln_context *ctx);

typedef struct ln_quant_opts {
    ln_quant_method method;
    double percentile;          /* LN_QUANT_PERCENTILE: e.g. 99.99 */
    const char *keep_float;     /* comma-separated node names kept float */
    const char *bad_range;      /* test hook: TENSOR=LO,HI forces that range */
    ln_bool no_bias_correction; /* keep the biases as they are */
    double headroom;            /* ranges widened this many times (>= 1; 0: 1) */
    ln_quant_add_scales add_scales; /* a residual add's scales */
    FILE *log;                  /* what stays float, per node (NULL: silent) */
} ln_quant_opts;

/* model (float ONNX) -> QDQ ONNX bytes in *out (ln_free them); *folded gets
 * the float model after batch-norm folding (the reference the report
 * compares with; NULL: not wanted). */
int ln_quant_model(const char *model, const ln_quant_inputs *calib, const ln_quant_opts *opts,
                   void **out, size_t *out_len, void **folded, size_t *folded_len);

/* ---- layer-by-layer comparison ---- */
typedef struct ln_compare ln_compare;

ln_compare *ln_compare_create(void);
void ln_compare_free(ln_compare *c);
/* Model a's QuantizeLinear outputs and their parameters, read from a's
 * context imported with the expander only (no fusion), so a's int8
 * tensors compare dequantized with the reference tensor they quantize. */
int ln_compare_set_qparams(ln_compare *c, ln_context *a_unfused);
/* After one run of both: every float tensor of ref that a has too (by
 * name, or the int8 tensor a's QuantizeLinear made of it). */
int ln_compare_add_run(ln_compare *c, const ln_context *a, const ln_context *ref);
/* Same against DIR/<name>.bin files (raw float32; characters of the name
 * other than [A-Za-z0-9._-] written as '_'). */
int ln_compare_add_dir(ln_compare *c, const ln_context *a, const char *dir);
/* The table, worst SQNR first; at most max_rows rows (0: all). */
void ln_compare_print(FILE *fp, const ln_compare *c, int max_rows);
/* The tensor of the worst SQNR (NULL when nothing compared). */
const char *ln_compare_worst(const ln_compare *c);
/* The SQNR (dB) of tensor name, or -1e30 when not compared. */
double ln_compare_sqnr(const ln_compare *c, const char *name);

LN_CPPEND
#endif
