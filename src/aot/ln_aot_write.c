/*
 * ln_aot_write.c -- ln-aot's second phase: the files (the header with the
 * model's API, the source with the weights, the private data, the arena
 * offsets and the run function; or the weights as a separate blob).
 */
#include <stdlib.h>
#include <string.h>
#include "ln_aot.h"
#include "ln_aot_impl.h"
#include "auto/ln_aot_args.h"
#include "op/auto/ln_opregistry.h"

/* ---- phase 2: the files ------------------------------------------------ */

static void banner(emitter *e, ln_aot_buf *b, const char *what)
{
    ln_aot_buf_printf(b, "/*\n * %s -- model '%s', emitted by ln-aot; do not edit.\n", what, e->name);
    if (e->o->banner) {
        const char *s = e->o->banner;
        while (*s) {
            size_t n = strcspn(s, "\n");
            char *line = ln_alloc(n + 1);
            memcpy(line, s, n);
            line[n] = '\0';
            ln_aot_buf_puts(b, " * ");
            ln_aot_buf_comment_text(b, line);
            ln_aot_buf_putc(b, '\n');
            ln_free(line);
            s += n;
            if (*s == '\n')
                s++;
        }
    }
    ln_aot_buf_puts(b, " */\n");
}

static void io_macros(emitter *e, ln_aot_buf *b, const io *x, int i, const char *kind)
{
    const ln_tensor *t = x->te->tensor;
    ln_aot_buf_printf(b, "/* %s %d: ", kind, i);
    ln_aot_describe(b, x->tname, t);
    ln_aot_buf_puts(b, " */\n");
    ln_aot_buf_printf(b, "#define %s_%s%d_NAME ", e->up, kind[0] == 'i' ? "INPUT" : "OUTPUT", i);
    ln_aot_c_string(b, x->tname);
    ln_aot_buf_printf(b, "\n#define %s_%s%d_SIZE %zu\n", e->up, kind[0] == 'i' ? "INPUT" : "OUTPUT",
                      i, t->len);
    ln_aot_buf_printf(b, "#define %s_%s%d_BYTES %zu\n", e->up, kind[0] == 'i' ? "INPUT" : "OUTPUT",
                      i, t->len * ln_dtype_size(t->dtype));
    ln_aot_buf_printf(b, "#define %s_%s%d_NDIM %d\n", e->up, kind[0] == 'i' ? "INPUT" : "OUTPUT",
                      i, t->ndim);
    ln_aot_buf_printf(b, "#define %s_%s%d_SHAPE {", e->up, kind[0] == 'i' ? "INPUT" : "OUTPUT", i);
    for (int d = 0; d < t->ndim; d++)
        ln_aot_buf_printf(b, "%s%d", d ? ", " : "", t->dims[d]);
    ln_aot_buf_puts(b, t->ndim ? "}\n" : "1}\n");
    if (t->quant_count == 1) {  /* real = (q - ZERO_POINT) * SCALE */
        ln_aot_buf_printf(b, "#define %s_%s%d_SCALE %.9gf\n", e->up,
                          kind[0] == 'i' ? "INPUT" : "OUTPUT", i, (double)t->scales[0]);
        ln_aot_buf_printf(b, "#define %s_%s%d_ZERO_POINT %ld\n", e->up,
                          kind[0] == 'i' ? "INPUT" : "OUTPUT", i, (long)t->zero_points[0]);
    }
    if (e->ctx->io_in_arena && x->te->isstatic)
        ln_aot_buf_puts(b, "/* a constant: not in the arena, see the accessor */\n");
    else if (e->ctx->io_in_arena)
        ln_aot_buf_printf(b, "#define %s_%s%d_OFFSET %zu\n", e->up,
                          kind[0] == 'i' ? "INPUT" : "OUTPUT", i, x->te->offset);
}

/* The run function's parameter list. */
static void params(emitter *e, ln_aot_buf *b, ln_bool with_arena)
{
    int n = 0;
    if (with_arena) {
        ln_aot_buf_puts(b, "void *arena");
        n++;
    }
    if (!e->ctx->io_in_arena) {
        for (int i = 0; i < e->nin; i++, n++)
            ln_aot_buf_printf(b, "%sconst %s *%s", n ? ", " : "",
                              ln_aot_dtype_ctype(e->ins[i].te->tensor->dtype), e->ins[i].param);
        for (int i = 0; i < e->nout; i++, n++)
            ln_aot_buf_printf(b, "%s%s *%s", n ? ", " : "",
                              ln_aot_dtype_ctype(e->outs[i].te->tensor->dtype), e->outs[i].param);
    }
    if (!n)
        ln_aot_buf_puts(b, "void");
}

static void header_body(emitter *e, ln_aot_buf *b)
{
    const char *U = e->up, *n = e->name;

    ln_aot_buf_printf(b, "#ifndef %s_H\n#define %s_H\n\n#include <stdint.h>\n\n"
                      "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n", U, U);
    ln_aot_buf_printf(b, "/* Working memory %s_run needs: bytes, and the alignment of its start.\n"
                      " * LOWER_BOUND is the largest sum of bytes live at one op; no plan\n"
                      " * of this op order needs less. */\n", n);
    ln_aot_buf_printf(b, "#define %s_ARENA_SIZE %zu\n#define %s_ARENA_LOWER_BOUND %zu\n"
                      "#define %s_ARENA_ALIGN 16\n", U, e->ctx->arena_size, U,
                      e->ctx->lower_bound, U);
    ln_aot_buf_printf(b, "/* Bytes of constants (flash on a microcontroller). */\n"
                      "#define %s_WEIGHTS_SIZE %zu\n", U, e->blob_size);
    ln_aot_buf_printf(b, "/* %s: inputs and outputs live in the arena (use the accessors). */\n"
                      "#define %s_IO_IN_ARENA %d\n\n", e->ctx->io_in_arena ? "1" : "0: they are "
                      "the caller's buffers; 1", U, e->ctx->io_in_arena ? 1 : 0);
    ln_aot_buf_printf(b, "#define %s_NUM_INPUTS %d\n#define %s_NUM_OUTPUTS %d\n", U, e->nin, U, e->nout);
    for (int i = 0; i < e->nin; i++)
        io_macros(e, b, &e->ins[i], i, "input");
    for (int i = 0; i < e->nout; i++)
        io_macros(e, b, &e->outs[i], i, "output");
    for (int k = 0; k < 2; k++) {
        const io *v = k ? e->outs : e->ins;
        int cnt = k ? e->nout : e->nin;
        ln_aot_buf_printf(b, "/* All %ss in order, as initializers. */\n#define %s_%s_NAMES {",
                          k ? "output" : "input", U, k ? "OUTPUT" : "INPUT");
        for (int i = 0; i < cnt; i++) {
            ln_aot_buf_puts(b, i ? ", " : "");
            ln_aot_c_string(b, v[i].tname);
        }
        ln_aot_buf_puts(b, cnt ? "" : "0");     /* none: C99 has no empty initializer */
        ln_aot_buf_printf(b, "}\n#define %s_%s_SIZES {", U, k ? "OUTPUT" : "INPUT");
        for (int i = 0; i < cnt; i++)
            ln_aot_buf_printf(b, "%s%zu", i ? ", " : "", v[i].te->tensor->len);
        ln_aot_buf_puts(b, cnt ? "}\n" : "0}\n");
        ln_aot_buf_printf(b, "#define %s_%s_BYTES {", U, k ? "OUTPUT" : "INPUT");
        for (int i = 0; i < cnt; i++)
            ln_aot_buf_printf(b, "%s%zu", i ? ", " : "",
                              v[i].te->tensor->len * ln_dtype_size(v[i].te->tensor->dtype));
        ln_aot_buf_puts(b, cnt ? "}\n" : "0}\n");
    }
    ln_aot_buf_printf(b, "\n/* %s_run's results. */\n#define %s_OK 0\n"
                      "#define %s_ERR_ARENA_NULL (-1)   /* arena is NULL */\n"
                      "#define %s_ERR_ARENA_ALIGN (-2)  /* arena is not %s_ARENA_ALIGN-aligned */\n"
                      "#define %s_ERR_IO_NULL (-3)      /* an input or output pointer is NULL */\n"
                      "#define %s_ERR_KERNEL (-4)       /* a kernel rejected its arguments */\n\n",
                      n, U, U, U, U, U, U);
    if (e->o->weights_file)
        ln_aot_buf_printf(b, "/* The weights blob (%s_WEIGHTS_SIZE bytes, 16-byte aligned), linked\n"
                          " * in by the user: see docs/aot.md. */\n"
                          "extern const unsigned char %s_weights[];\n\n", U, n);
    if (e->ctx->io_in_arena) {
        ln_aot_buf_printf(b, "/* Run the model on the arena (%s_ARENA_SIZE bytes, %s_ARENA_ALIGN-\n"
                          " * aligned): write the inputs where %s_input<i>() points, run, read\n"
                          " * the outputs at %s_output<i>().  Returns %s_OK or a %s_ERR_ code. */\n",
                          U, U, n, n, U, U);
    } else {
        ln_aot_buf_printf(b, "/* Run the model: arena is %s_ARENA_SIZE bytes of working memory,\n"
                          " * %s_ARENA_ALIGN-aligned; in<i> and out<i> are the caller's input and\n"
                          " * output buffers (%s_INPUT<i>_SIZE, %s_OUTPUT<i>_SIZE elements).\n"
                          " * Reentrant: the model keeps no state outside the arena.\n"
                          " * Returns %s_OK or a %s_ERR_ code. */\n", U, U, U, U, U, U);
    }
    ln_aot_buf_printf(b, "int %s_run(", n);
    params(e, b, LN_TRUE);
    ln_aot_buf_puts(b, ");\n");
    if (e->ctx->io_in_arena) {
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < (k ? e->nout : e->nin); i++)
                ln_aot_buf_printf(b, "%s%s *%s_%s%d(void *arena);\n", k ? "const " : "",
                                  ln_aot_dtype_ctype((k ? e->outs : e->ins)[i].te->tensor->dtype), n,
                                  k ? "output" : "input", i);
    }
    ln_aot_buf_printf(b, "/* The same with the inputs and outputs as arrays in order, for\n"
                      " * generic harnesses%s. */\n"
                      "int %s_run_array(void *arena, const void *const *inputs, void *const *outputs);\n",
                      e->ctx->io_in_arena ? " (copies them into and out of the arena)" : "", n);
    ln_aot_buf_printf(b, "\n/* Per-op profiling (docs/aot.md): compile the source with\n"
                      " * -D%s_PROFILE and define %s_profile_hook(); %s_run then calls it\n"
                      " * once with op_index -1 before its first op (after the argument checks)\n"
                      " * and once after each op i, 0 <= i < %s_NUM_OPS, with the op's name\n"
                      " * and type.  The cost of op i is the time between the calls i - 1 and\n"
                      " * i.  Without the macro the emitted code holds neither the calls nor\n"
                      " * the strings. */\n"
                      "#define %s_NUM_OPS %d\n#ifdef %s_PROFILE\n"
                      "void %s_profile_hook(int op_index, const char *op_name, const char *op_type);\n"
                      "#endif\n", U, n, n, U, U, e->ncalls, U, n);
    if (e->o->static_arena) {
        ln_aot_buf_printf(b, "\n/* The same on a static arena inside the model's object: not\n"
                          " * reentrant. %s_arena_static() returns it. */\n"
                          "int %s_run_static(", n, n);
        params(e, b, LN_FALSE);
        ln_aot_buf_printf(b, ");\nvoid *%s_arena_static(void);\n", n);
    }
    ln_aot_buf_printf(b, "\n#ifdef __cplusplus\n}\n#endif\n\n#endif /* %s_H */\n", U);
}

/* Escapes for one byte inside a string literal: the shortest, and the
 * three-digit octal used when an octal digit follows. */
static char esc_short[256][5], esc_full[256][5];

static void init_escapes(void)
{
    if (esc_full[0][0])
        return;
    for (int c = 0; c < 256; c++) {
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '?') {
            esc_short[c][0] = esc_full[c][0] = (char)c;
            continue;
        }
        snprintf(esc_full[c], sizeof esc_full[c], "\\%03o", c);
        snprintf(esc_short[c], sizeof esc_short[c], "\\%o", c);
    }
}

static void weight_literal(ln_aot_buf *b, const unsigned char *p, size_t n)
{
    char line[LINE_BYTES * 4 + 8];

    for (size_t i = 0; i < n;) {
        size_t len = 0;
        size_t end = i + LINE_BYTES < n ? i + LINE_BYTES : n;
        line[len++] = '"';
        for (; i < end; i++) {
            const char *s = esc_short[p[i]];
            if (s[0] == '\\' && i + 1 < n && p[i + 1] >= '0' && p[i + 1] <= '7')
                s = esc_full[p[i]];
            while (*s)
                line[len++] = *s++;
        }
        line[len++] = '"';
        line[len++] = '\n';
        ln_aot_buf_write(b, line, len);
    }
}

static void weights_text(emitter *e, ln_aot_buf *b)
{
    if (e->nw == 0 || e->o->weights_file)
        return;
    init_escapes();
    ln_aot_buf_puts(b, "\n/* Constants: bytes as string literals, which compilers read much\n"
                    " * faster than number lists. */\n"
                    "#if defined(__GNUC__)\n#pragma GCC diagnostic push\n"
                    "#pragma GCC diagnostic ignored \"-Woverlength-strings\"\n#endif\n");
    for (int i = 0; i < e->nw; i++) {
        const weight *w = &e->w[i];
        size_t n = ln_tensor_size(w->t);
        const char *ct = ln_aot_dtype_ctype(w->t->dtype);
        ln_aot_buf_puts(b, "\n/* ");
        ln_aot_describe(b, w->tname, w->t);
        ln_aot_buf_printf(b, ", %zu bytes */\nstatic const union { unsigned char b[%zu]; %s x; } "
                          "%s %s_ALIGNED = {", n, n ? n : 1, ct, w->sym, e->up);
        if (n == 0) {
            ln_aot_buf_puts(b, "{0}};\n");
            continue;
        }
        ln_aot_buf_putc(b, '\n');
        weight_literal(b, w->t->data, n);
        ln_aot_buf_puts(b, "};\n");
    }
    ln_aot_buf_puts(b, "\n#if defined(__GNUC__)\n#pragma GCC diagnostic pop\n#endif\n");
}

int ln_aot_write_blob(emitter *e, FILE *fp)
{
    ln_aot_buf b;
    static const unsigned char zeros[16];
    size_t at = 0;
    int ret;

    ln_aot_buf_init(&b, fp);
    for (int i = 0; i < e->nw; i++) {
        ln_aot_buf_write(&b, zeros, e->w[i].off - at);
        ln_aot_buf_write(&b, e->w[i].t->data, ln_tensor_size(e->w[i].t));
        at = e->w[i].off + ln_tensor_size(e->w[i].t);
    }
    ret = ln_aot_buf_flush(&b);
    ln_aot_buf_free(&b);
    return ret;
}

static void run_function(emitter *e, ln_aot_buf *b)
{
    const char *U = e->up, *n = e->name;

    ln_aot_buf_printf(b, "\nint %s_run(", n);
    params(e, b, LN_TRUE);
    ln_aot_buf_puts(b, ")\n{\n");
    if (e->uses_arena)
        ln_aot_buf_puts(b, "    unsigned char *a = (unsigned char *)arena;\n\n");
    if (e->ctx->arena_size) {
        ln_aot_buf_printf(b, "    if (arena == NULL)\n        return %s_ERR_ARENA_NULL;\n"
                          "    if (((uintptr_t)arena & (%s_ARENA_ALIGN - 1)) != 0)\n"
                          "        return %s_ERR_ARENA_ALIGN;\n", U, U, U);
    } else {
        ln_aot_buf_puts(b, "    (void)arena;      /* the model needs no arena */\n");
    }
    if (!e->ctx->io_in_arena) {
        int m = 0;
        ln_aot_buf_puts(b, "    if (");
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < (k ? e->nout : e->nin); i++)
                ln_aot_buf_printf(b, "%s%s == NULL", m++ ? " || " : "",
                                  (k ? e->outs : e->ins)[i].param);
        ln_aot_buf_printf(b, ")\n        return %s_ERR_IO_NULL;\n", U);
    }
    ln_aot_buf_puts(b, "\n");
    ln_aot_buf_append(b, &e->decls);
    ln_aot_buf_append(b, &e->body);
    ln_aot_buf_printf(b, "    return %s_OK;\n}\n", U);

    if (e->ctx->io_in_arena) {
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < (k ? e->nout : e->nin); i++) {
                const io *x = &(k ? e->outs : e->ins)[i];
                const char *ct = ln_aot_dtype_ctype(x->te->tensor->dtype);
                intptr_t w = (intptr_t)ln_hash_find(e->wmap, x->tname);
                ln_aot_buf_printf(b, "\n%s%s *%s_%s%d(void *arena)\n{\n", k ? "const " : "", ct, n,
                                  k ? "output" : "input", i);
                if (k && x->te->isstatic && e->o->weights_file)
                    ln_aot_buf_printf(b, "    (void)arena;\n    return (const %s *)(const void *)"
                                      "(%s_weights + %zu);\n}\n", ct, n, e->w[w - 1].off);
                else if (k && x->te->isstatic)
                    ln_aot_buf_printf(b, "    (void)arena;\n    return (const %s *)(const void *)%s.b;\n}\n",
                                      ct, e->w[w - 1].sym);
                else
                    ln_aot_buf_printf(b, "    return (%s *)(void *)((unsigned char *)arena + %s_%s%d_OFFSET);\n}\n",
                                      ct, U, k ? "OUTPUT" : "INPUT", i);
            }
    }
    ln_aot_buf_printf(b, "\nint %s_run_array(void *arena, const void *const *inputs, void *const *outputs)\n{\n", n);
    if (e->ctx->io_in_arena) {
        ln_aot_buf_printf(b, "    int ret;\n\n    if (arena == NULL)\n        return %s_ERR_ARENA_NULL;\n", U);
        if (e->nin == 0)
            ln_aot_buf_puts(b, "    (void)inputs;     /* the model has no graph input */\n");
        for (int i = 0; i < e->nin; i++)
            ln_aot_buf_printf(b, "    %s_copy(%s_input%d(arena), inputs[%d], %zu);\n", n, n, i, i,
                              ln_tensor_size(e->ins[i].te->tensor));
        ln_aot_buf_printf(b, "    if ((ret = %s_run(arena)) != %s_OK)\n        return ret;\n", n, U);
        for (int i = 0; i < e->nout; i++)
            ln_aot_buf_printf(b, "    %s_copy(outputs[%d], %s_output%d(arena), %zu);\n", n, i, n, i,
                              ln_tensor_size(e->outs[i].te->tensor));
        ln_aot_buf_printf(b, "    return %s_OK;\n}\n", U);
    } else {
        if (e->nin == 0)
            ln_aot_buf_puts(b, "    (void)inputs;     /* the model has no graph input */\n");
        ln_aot_buf_printf(b, "    return %s_run(arena", n);
        for (int i = 0; i < e->nin; i++)
            ln_aot_buf_printf(b, ", (const %s *)inputs[%d]", ln_aot_dtype_ctype(e->ins[i].te->tensor->dtype), i);
        for (int i = 0; i < e->nout; i++)
            ln_aot_buf_printf(b, ", (%s *)outputs[%d]", ln_aot_dtype_ctype(e->outs[i].te->tensor->dtype), i);
        ln_aot_buf_puts(b, ");\n}\n");
    }
    if (e->o->static_arena) {
        size_t sz = e->ctx->arena_size ? e->ctx->arena_size : 1;
        ln_aot_buf_printf(b, "\nstatic union { unsigned char b[%zu]; double d; } %s_arena %s_ALIGNED;\n",
                          sz, n, U);
        ln_aot_buf_printf(b, "\nvoid *%s_arena_static(void)\n{\n    return %s_arena.b;\n}\n", n, n);
        ln_aot_buf_printf(b, "\nint %s_run_static(", n);
        params(e, b, LN_FALSE);
        ln_aot_buf_printf(b, ")\n{\n    return %s_run(%s_arena.b", n, n);
        if (!e->ctx->io_in_arena) {
            for (int i = 0; i < e->nin; i++)
                ln_aot_buf_printf(b, ", %s", e->ins[i].param);
            for (int i = 0; i < e->nout; i++)
                ln_aot_buf_printf(b, ", %s", e->outs[i].param);
        }
        ln_aot_buf_puts(b, ");\n}\n");
    }
}

int ln_aot_write_source(emitter *e, FILE *fp)
{
    ln_aot_buf b;
    const char *U = e->up;
    int ret;

    ln_aot_buf_init(&b, fp);
    banner(e, &b, "model source");
    ln_aot_buf_printf(&b, "/*\n * Arena %zu bytes (lower bound %zu), constants %zu bytes in %d "
                      "tensors%s,\n * %d kernel calls, %d copies.\n */\n",
                      e->ctx->arena_size, e->ctx->lower_bound, e->blob_size, e->nw,
                      e->o->weights_file ? " (external blob)" : "", e->ncalls, e->ncopies);
    ln_aot_buf_puts(&b, "#include <math.h>\n#include <stddef.h>\n#include <stdint.h>\n"
                    "#include \"ln_rt.h\"\n");
    /* the sizes below are size_t: refuse a target whose size_t is smaller */
    ln_aot_buf_printf(&b, "\n#if SIZE_MAX < %zuu\n#error \"%s needs sizes up to %zu bytes, "
                      "more than this target's size_t holds\"\n#endif\n",
                      e->max_size, e->name, e->max_size);
    if (e->o->header_include) {
        ln_aot_buf_puts(&b, "#include ");
        ln_aot_c_string(&b, e->o->header_include);
        ln_aot_buf_puts(&b, "\n");
    } else {
        ln_aot_buf_puts(&b, "\n");
        header_body(e, &b);
    }
    ln_aot_buf_printf(&b, "\n#if defined(__GNUC__)\n#define %s_ALIGNED __attribute__((aligned(16)))\n"
                      "#else\n#define %s_ALIGNED\n#endif\n", U, U);
    ln_aot_buf_printf(&b, "\n/* Profile points: the user's hook under -D%s_PROFILE, else nothing. */\n"
                      "#ifdef %s_PROFILE\n#define %s_PROFILE_OP(i, op, type) %s_profile_hook(i, op, type)\n"
                      "#else\n#define %s_PROFILE_OP(i, op, type) ((void)0)\n#endif\n",
                      U, U, U, e->name, U);
    if (e->offs.len) {
        ln_aot_buf_puts(&b, "\n/* Arena offsets (bytes), fixed by the memory planner. */\n");
        ln_aot_buf_append(&b, &e->offs);
    }
    weights_text(e, &b);
    if (e->statics.len) {
        ln_aot_buf_puts(&b, "\n/* The kernels' arguments, computed by the ops' pre_run. */\n");
        ln_aot_buf_append(&b, &e->statics);
    }
    if (e->needs_copy || e->ctx->io_in_arena)
        ln_aot_buf_printf(&b, "\nstatic void %s_copy(void *dst, const void *src, size_t n)\n{\n"
                          "    unsigned char *d = (unsigned char *)dst;\n"
                          "    const unsigned char *s = (const unsigned char *)src;\n"
                          "    while (n--)\n        *d++ = *s++;\n}\n", e->name);
    run_function(e, &b);
    ret = ln_aot_buf_flush(&b);
    ln_aot_buf_free(&b);
    return ret;
}

int ln_aot_write_header(emitter *e, FILE *fp)
{
    ln_aot_buf b;
    int ret;

    ln_aot_buf_init(&b, fp);
    banner(e, &b, "model header");
    header_body(e, &b);
    ret = ln_aot_buf_flush(&b);
    ln_aot_buf_free(&b);
    return ret;
}
