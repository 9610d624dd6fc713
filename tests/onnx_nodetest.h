/*
 * onnx_nodetest.h -- run an ONNX backend node test or a whole test model
 * through the interpreter and compare with the expected outputs.  Shared by
 * tests/onnx_run.c (the conformance runner's worker) and
 * tests/test_ln_onnx.c (the committed subset in `make test-unit`);
 * included once by each, so everything here is static.
 *
 * A node test directory holds model.onnx and test_data_set_0/input_N.pb,
 * output_N.pb (serialized TensorProtos named after the graph's inputs and
 * outputs).  A model directory (tests/models/<name>) holds model.onnx with
 * one input "input" and one output "output", and input.bin / output.bin
 * (raw float32).
 */
#ifndef ONNX_NODETEST_H
#define ONNX_NODETEST_H

#include <math.h>
#include <stdio.h>
#include <string.h>
#include "ln_interp.h"
#include "ln_onnx.h"

enum {
    NT_PASS = 0,
    NT_FAIL,          /* wrong values, or an accepted model failed to compile or run */
    NT_UNSUPPORTED,   /* the importer named what LightNet does not support */
    NT_REJECTED       /* an op's checks refused it (e.g. a dtype it lacks) */
};

static const char *const nt_status_names[] = {"PASS", "FAIL", "UNSUPPORTED", "REJECTED"};

#define NT_RTOL 1e-4
#define NT_ATOL 1e-5

static int nt_init(ln_context *ctx, const char *model, char *msg, size_t n)
{
    int ret = ln_context_init(ctx, model);

    if (!ret)
        return NT_PASS;
    snprintf(msg, n, "%s", ln_error_message());
    if (ret == LN_EUNSUPPORTED)
        return NT_UNSUPPORTED;
    return ret == LN_EOP ? NT_REJECTED : NT_FAIL;
}

static double nt_elem(const ln_tensor *t, const void *data, size_t i)
{
    switch (t->dtype) {
    case LN_DTYPE_FLOAT32: return ((const float *)data)[i];
    case LN_DTYPE_FLOAT64: return ((const double *)data)[i];
    case LN_DTYPE_INT8: return ((const int8_t *)data)[i];
    case LN_DTYPE_UINT8:
    case LN_DTYPE_BOOL: return ((const uint8_t *)data)[i];
    case LN_DTYPE_INT16: return ((const int16_t *)data)[i];
    case LN_DTYPE_UINT16: return ((const uint16_t *)data)[i];
    case LN_DTYPE_INT32: return ((const int32_t *)data)[i];
    case LN_DTYPE_UINT32: return ((const uint32_t *)data)[i];
    case LN_DTYPE_INT64: return (double)((const int64_t *)data)[i];
    case LN_DTYPE_UINT64: return (double)((const uint64_t *)data)[i];
    default: return 0;
    }
}

/* Compare got (LightNet's, laid out like want) with want. */
static int nt_compare(const char *name, const ln_tensor *want, const void *got, char *msg,
                      size_t n)
{
    ln_bool is_float = want->dtype == LN_DTYPE_FLOAT32 || want->dtype == LN_DTYPE_FLOAT64;
    size_t bad = 0, first = 0;
    double worst = 0;

    for (size_t i = 0; i < want->len; i++) {
        double w = nt_elem(want, want->data, i), g = nt_elem(want, got, i);
        ln_bool ok;
        if (is_float)
            ok = (isnan(w) && isnan(g)) || (isinf(w) && g == w) ||
                 fabs(g - w) <= NT_ATOL + NT_RTOL * fabs(w);
        else
            ok = memcmp((const char *)want->data + i * ln_dtype_size(want->dtype),
                        (const char *)got + i * ln_dtype_size(want->dtype),
                        ln_dtype_size(want->dtype)) == 0;
        if (!ok) {
            if (!bad++)
                first = i;
            if (fabs(g - w) > worst || isnan(g))
                worst = isnan(g) ? NAN : fabs(g - w);
        }
    }
    if (!bad)
        return NT_PASS;
    snprintf(msg, n, "output '%s': %zu of %zu elements differ; first at [%zu]: got %.9g, want "
             "%.9g; max |diff| %.3g", name, bad, want->len, first,
             nt_elem(want, got, first), nt_elem(want, want->data, first), worst);
    return NT_FAIL;
}

static char *nt_read(const char *path, size_t *len, char *msg, size_t n)
{
    char *buf = ln_read_text(path, len);
    if (!buf)
        snprintf(msg, n, "%s", ln_error_message());
    return buf;
}

/* One node test: model.onnx and test_data_set_0/ under dir. */
static int nt_run_node_test(const char *dir, char *msg, size_t n)
{
    char path[4096];
    ln_context *ctx = ln_context_create();
    ln_list *ins = NULL, *outs = NULL;
    int st, i;

    msg[0] = '\0';
    snprintf(path, sizeof path, "%s/model.onnx", dir);
    if ((st = nt_init(ctx, path, msg, n)) != NT_PASS)
        goto out;
    st = NT_FAIL;
    if (ln_context_compile(ctx, "cpu") || ln_context_load(ctx, NULL)) {
        snprintf(msg, n, "%s", ln_error_message());
        goto out;
    }
    ins = ln_context_inputs(ctx);
    outs = ln_context_outputs(ctx);
    for (i = 0; i < ln_list_length(ins); i++) {
        ln_tensor *t = NULL, *mine;
        size_t len;
        char *buf;
        snprintf(path, sizeof path, "%s/test_data_set_0/input_%d.pb", dir, i);
        if (!(buf = nt_read(path, &len, msg, n)))
            goto out;
        if (ln_onnx_read_tensor(buf, len, path, &t)) {
            snprintf(msg, n, "%s", ln_error_message());
            ln_free(buf);
            goto out;
        }
        ln_free(buf);
        /* the .pb files follow the graph's inputs in order */
        mine = ln_context_tensor(ctx, ln_list_nth_data(ins, i));
        if (!mine || mine->dtype != t->dtype || mine->len != t->len) {
            snprintf(msg, n, "input %d ('%s') does not match %.300s", i,
                     (const char *)ln_list_nth_data(ins, i), path);
            ln_tensor_free(t);
            goto out;
        }
        if (ln_context_set_data(ctx, ln_list_nth_data(ins, i), t->data, ln_tensor_size(t))) {
            snprintf(msg, n, "%s", ln_error_message());
            ln_tensor_free(t);
            goto out;
        }
        ln_tensor_free(t);
    }
    if (ln_context_run(ctx)) {
        snprintf(msg, n, "%s", ln_error_message());
        goto out;
    }
    for (i = 0; i < ln_list_length(outs); i++) {
        const char *name = ln_list_nth_data(outs, i);
        ln_tensor *want = NULL, *mine = ln_context_tensor(ctx, name);
        char a[128], b[128];
        void *got;
        size_t len;
        char *buf;
        snprintf(path, sizeof path, "%s/test_data_set_0/output_%d.pb", dir, i);
        if (!(buf = nt_read(path, &len, msg, n)))
            goto out;
        if (ln_onnx_read_tensor(buf, len, path, &want)) {
            snprintf(msg, n, "%s", ln_error_message());
            ln_free(buf);
            goto out;
        }
        ln_free(buf);
        if (!mine || mine->dtype != want->dtype || mine->len != want->len ||
            (want->ndim && !ln_tensor_same_shape(mine, want))) {
            snprintf(msg, n, "output '%s' is %s %s, want %s %s", name,
                     mine ? ln_dtype_name(mine->dtype) : "?",
                     mine ? ln_dims_str(a, sizeof a, mine->ndim, mine->dims) : "?",
                     ln_dtype_name(want->dtype), ln_dims_str(b, sizeof b, want->ndim, want->dims));
            ln_tensor_free(want);
            goto out;
        }
        got = ln_alloc(ln_tensor_size(want) + 1);
        if (ln_context_get_data(ctx, name, got, ln_tensor_size(want))) {
            snprintf(msg, n, "%s", ln_error_message());
            ln_free(got);
            ln_tensor_free(want);
            goto out;
        }
        st = nt_compare(name, want, got, msg, n);
        ln_free(got);
        ln_tensor_free(want);
        if (st != NT_PASS)
            goto out;
    }
    st = NT_PASS;
out:
    ln_list_free(ins);
    ln_list_free(outs);
    ln_context_free(ctx);
    return st;
}

/* Raw float32 file into a new buffer of exactly want_bytes. */
static float *nt_read_f32(const char *path, size_t want_bytes, char *msg, size_t n)
{
    size_t len;
    char *buf = nt_read(path, &len, msg, n);
    if (buf && len != want_bytes) {
        snprintf(msg, n, "%s has %zu bytes, the model wants %zu", path, len, want_bytes);
        ln_free(buf);
        return NULL;
    }
    return (float *)buf;
}

/* A test model: dir/model.onnx with input.bin -> output.bin, max |diff| <=
 * 1e-4 x max |reference|.  *rel gets max |diff| / max |reference|. */
static int nt_run_model(const char *dir, char *msg, size_t n, double *rel)
{
    char path[4096];
    ln_context *ctx = ln_context_create();
    float *in = NULL, *want = NULL, *got = NULL;
    size_t in_bytes, out_bytes;
    double maxref = 0, maxdiff = 0;
    int st;

    msg[0] = '\0';
    *rel = -1;
    snprintf(path, sizeof path, "%s/model.onnx", dir);
    if ((st = nt_init(ctx, path, msg, n)) != NT_PASS)
        goto out;
    st = NT_FAIL;
    if (ln_context_compile(ctx, "cpu") || ln_context_load(ctx, NULL)) {
        snprintf(msg, n, "%s", ln_error_message());
        goto out;
    }
    in_bytes = ln_context_data_size(ctx, "input");
    out_bytes = ln_context_data_size(ctx, "output");
    if (!in_bytes || !out_bytes) {
        snprintf(msg, n, "the model has no tensors 'input' and 'output'");
        goto out;
    }
    snprintf(path, sizeof path, "%s/input.bin", dir);
    if (!(in = nt_read_f32(path, in_bytes, msg, n)))
        goto out;
    snprintf(path, sizeof path, "%s/output.bin", dir);
    if (!(want = nt_read_f32(path, out_bytes, msg, n)))
        goto out;
    got = ln_alloc(out_bytes);
    if (ln_context_set_data(ctx, "input", in, in_bytes) || ln_context_run(ctx) ||
        ln_context_get_data(ctx, "output", got, out_bytes)) {
        snprintf(msg, n, "%s", ln_error_message());
        goto out;
    }
    for (size_t i = 0; i < out_bytes / sizeof(float); i++) {
        double d = fabs((double)got[i] - want[i]);
        if (fabs(want[i]) > maxref)
            maxref = fabs(want[i]);
        if (d > maxdiff || isnan(d))
            maxdiff = isnan(d) ? INFINITY : d;
    }
    *rel = maxref > 0 ? maxdiff / maxref : maxdiff;
    if (maxdiff <= 1e-4 * maxref) {
        st = NT_PASS;
        snprintf(msg, n, "max |diff| %.3g = %.3g x max |reference|", maxdiff, *rel);
    } else {
        snprintf(msg, n, "max |diff| %.3g > 1e-4 x max |reference| (%.3g)", maxdiff, maxref);
    }
out:
    ln_free(in);
    ln_free(want);
    ln_free(got);
    ln_context_free(ctx);
    return st;
}

#endif
