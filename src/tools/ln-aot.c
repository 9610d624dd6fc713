/*
 * ln-aot -- a model as one self-contained C file (and header) that links
 * against libln_rt: fixed arena offsets, no malloc, into firmware.
 *
 *   ln-aot -o kws.c model.json              kws.c + kws.h, weights embedded
 *   ln-aot -n kws model.onnx > kws.c        source on stdout, declarations inside
 *   ln-aot -o kws.c --weights kws.bin m.json    weights in a blob the user links
 *
 * The model is compiled for the target (default cpu) and its memory planned
 * when the IR is not compiled yet.  Errors print one line "ln-aot: <message>"
 * and exit 1; every output file is written whole (temporary file, renamed
 * at the end) or not at all.  docs/aot.md describes the emitted files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "ln_budget.h"
#include "ln_context.h"
#include "ln_outfile.h"
#include "ln_report.h"
#include "ln_serializer.h"
#include "aot/ln_aot.h"

#ifndef LN_VERSION
#define LN_VERSION "unknown"   /* the Makefile passes its VERSION */
#endif
#define LN_AOT_VERSION LN_VERSION
#define MAX_SHAPES 32

static void usage(FILE *fp)
{
    fputs("usage: ln-aot [options] MODEL.json|MODEL.onnx|-\n"
          "\n"
          "  -t ARCH            target: cpu (the host, default) or cortex-m4\n"
          "  -n NAME            C name prefix (default: from -o, else from MODEL)\n"
          "  -o FILE.c          source file (default stdout)\n"
          "  --header FILE.h    header file (default: FILE.h beside -o; with neither,\n"
          "                     the declarations go into the source)\n"
          "  --weights embed    weights as static const arrays in the source (default)\n"
          "  --weights FILE     weights into the blob FILE, referenced as\n"
          "                     extern NAME_weights[] (see docs/aot.md)\n"
          "  --static-arena     also NAME_run_static(), on a static arena\n"
          "  --io-in-arena      plan inputs and outputs inside the arena (smallest RAM;\n"
          "                     the header gives accessors) instead of caller buffers\n"
          "  -f DATAFILE        weights file for the IR (default: the IR's \"data\")\n"
          "  --shape NAME=DIMS  fix a symbolic input shape of an ONNX model (1x3x32x32)\n"
          "  --addr-bits N      the target's size_t width (default 32, a microcontroller);\n"
          "                     a model whose sizes do not fit is refused\n"
          "  --report           print the memory report on stderr (figures, and the\n"
          "                     buffers live at the peak step)\n"
          "  --long             full names in the report (else names longer than 40\n"
          "                     characters are cut in the middle: a...z)\n"
          "  --budget ram=SIZE,flash=SIZE\n"
          "                     does it fit (docs/firmware.md): print RAM (arena, I/O,\n"
          "                     runtime state, stack) and flash (weights, tables, kernel\n"
          "                     arguments, model code, runtime kernels, C library) on\n"
          "                     stdout and exit 1 naming the largest item when it does\n"
          "                     not fit; SIZE in bytes or with K/M (1024-based), either\n"
          "                     field may be left out.  Needs a target with a measured\n"
          "                     size table (-t cortex-m4).  The source is written only\n"
          "                     with -o, and only when the model fits\n"
          "  -h, --help         this help;  --version  the version\n", fp);
}

/* Output files (ln_outfile: a regular file is written to a temporary and
 * renamed at the end, or removed on failure; a device is written in place). */
static ln_outfile *outs[3];
static int nouts;

static void remove_temps(void)
{
    for (int i = 0; i < nouts; i++) {
        ln_outfile_abort(outs[i]);
        outs[i] = NULL;
    }
    nouts = 0;
}

static FILE *open_out(const char *path)
{
    ln_outfile *o = ln_outfile_open(path);

    if (!o)
        return NULL;
    outs[nouts++] = o;
    return ln_outfile_fp(o);
}

static int commit_outs(void)
{
    for (int i = 0; i < nouts; i++) {
        ln_outfile *o = outs[i];
        outs[i] = NULL;
        if (ln_outfile_commit(o)) {
            for (int j = i + 1; j < nouts; j++) {
                ln_outfile_abort(outs[j]);
                outs[j] = NULL;
            }
            nouts = 0;
            return ln_error_code();
        }
    }
    nouts = 0;
    return 0;
}

/* Print the error; main's cleanup frees everything. */
static int fail(void)
{
    fprintf(stderr, "ln-aot: %s\n", ln_error_message());
    remove_temps();
    return EXIT_FAILURE;
}

static int fail_msg(const char *msg, const char *arg)
{
    fprintf(stderr, "ln-aot: ");
    fprintf(stderr, msg, arg);
    fputc('\n', stderr);
    return EXIT_FAILURE;
}

static char *read_all(FILE *fp, size_t *lenp)
{
    size_t cap = 1 << 16, len = 0, n;
    char *buf = ln_alloc(cap);
    while ((n = fread(buf + len, 1, cap - len - 1, fp)) > 0) {
        len += n;
        if (cap - len < 2)
            buf = ln_realloc(buf, cap *= 2);
    }
    buf[len] = '\0';
    *lenp = len;
    return buf;
}

/* "dir/kws.c" -> "kws"; NULL when nothing usable is left. */
static char *name_from_path(const char *path)
{
    const char *base = strrchr(path, '/');
    char *s, *dot;
    size_t j = 0;

    base = base ? base + 1 : path;
    s = ln_alloc(strlen(base) + 3);
    if (!((*base >= 'a' && *base <= 'z') || (*base >= 'A' && *base <= 'Z') || *base == '_'))
        s[j++] = 'm', s[j++] = '_';
    for (; *base; base++)
        s[j++] = (char)(((*base >= 'a' && *base <= 'z') || (*base >= 'A' && *base <= 'Z') ||
                         (*base >= '0' && *base <= '9')) ? *base : *base == '.' ? '.' : '_');
    s[j] = '\0';
    if ((dot = strchr(s, '.')))
        *dot = '\0';
    for (char *p = s; *p; p++)
        if (*p == '.')
            *p = '_';
    if (!ln_aot_is_ident(s)) {
        ln_free(s);
        return NULL;
    }
    return s;
}

/* "kws.c" -> "kws.h"; other names get ".h" appended. */
static char *header_for(const char *cpath)
{
    size_t n = strlen(cpath);
    if (n > 2 && ln_streq(cpath + n - 2, ".c")) {
        char *h = ln_strdup(cpath);
        h[n - 1] = 'h';
        return h;
    }
    return ln_sprintf("%s.h", cpath);
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* The memory report (docs/aot.md): what ln-aot knows without compiling;
 * the table of the buffers live at the peak keeps its columns for any name
 * length (flags: LN_REPORT_LONG_NAMES). */
static void report(FILE *fp, const ln_context *ctx, const char *name, const ln_aot_stats *st,
                   int flags)
{
    char *prefix = ln_sprintf("%s: ", name);

    fprintf(fp, "%s: arena %zu bytes (lower bound %zu)\n", name, ctx->arena_size, ctx->lower_bound);
    fprintf(fp, "%s: inputs + outputs %zu bytes %s\n", name, st->io_bytes,
            ctx->io_in_arena ? "(inside the arena)" : "in the caller's buffers");
    fprintf(fp, "%s: RAM for one inference %zu bytes (arena + caller buffers)\n", name,
            ctx->arena_size + st->io_bytes);
    fprintf(fp, "%s: constants %zu bytes in %d tensors (flash)", name, st->weights_bytes,
            st->nweights);
    if (st->requant_bytes)
        fprintf(fp, ", of which int8 requantization tables %zu bytes", st->requant_bytes);
    fputc('\n', fp);
    fprintf(fp, "%s: %d kernel calls, %d edge copies; kernels: %s\n", name, st->ncalls,
            st->ncopies, st->kernels && *st->kernels ? st->kernels : "(none)");
    ln_report_peak(fp, ctx, prefix, flags);
    ln_free(prefix);
}

/* What the command line asks for. */
typedef struct aot_args {
    const char *target, *name, *out, *hdr, *weights, *model, *datafile, *budget;
    const char *shapes[MAX_SHAPES + 1];
    int nshapes, static_arena, io_in_arena, want_report, addr_bits, long_names;
} aot_args;

/* -1 when the run goes on, else the exit status (help, version, an error). */
static int parse_args(int argc, char **argv, aot_args *g)
{
    char junk;

    memset(g, 0, sizeof *g);
    g->target = "cpu";
    g->addr_bits = 32;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (ln_streq(a, "-h") || ln_streq(a, "--help")) {
            usage(stdout);
            return EXIT_SUCCESS;
        } else if (ln_streq(a, "--version")) {
            puts("ln-aot " LN_AOT_VERSION);
            return EXIT_SUCCESS;
        } else if (ln_streq(a, "--static-arena")) {
            g->static_arena = 1;
        } else if (ln_streq(a, "--io-in-arena")) {
            g->io_in_arena = 1;
        } else if (ln_streq(a, "--report")) {
            g->want_report = 1;
        } else if (ln_streq(a, "--long")) {
            g->long_names = 1;
        } else if (ln_streq(a, "-t") || ln_streq(a, "-n") || ln_streq(a, "-o") ||
                   ln_streq(a, "-f") || ln_streq(a, "--header") || ln_streq(a, "--weights") ||
                   ln_streq(a, "--shape") || ln_streq(a, "--addr-bits") ||
                   ln_streq(a, "--budget")) {
            if (i + 1 >= argc)
                return fail_msg("option %s needs an argument", a);
            v = argv[++i];
            if (ln_streq(a, "-t"))
                g->target = v;
            else if (ln_streq(a, "-n"))
                g->name = v;
            else if (ln_streq(a, "-o"))
                g->out = v;
            else if (ln_streq(a, "-f"))
                g->datafile = v;
            else if (ln_streq(a, "--header"))
                g->hdr = v;
            else if (ln_streq(a, "--weights"))
                g->weights = ln_streq(v, "embed") ? NULL : v;
            else if (ln_streq(a, "--budget"))
                g->budget = v;
            else if (ln_streq(a, "--addr-bits")) {
                if (sscanf(v, "%d%c", &g->addr_bits, &junk) != 1 || g->addr_bits < 16 ||
                    g->addr_bits > 64)
                    return fail_msg("--addr-bits '%s': give a width from 16 to 64", v);
            } else if (g->nshapes == MAX_SHAPES)
                return fail_msg("too many --shape options (at most %s)", "32");
            else
                g->shapes[g->nshapes++] = v;
        } else if (a[0] == '-' && a[1] != '\0') {
            return fail_msg("unknown option '%s' (see ln-aot -h)", a);
        } else if (g->model) {
            return fail_msg("more than one model given ('%s')", a);
        } else {
            g->model = a;
        }
    }
    if (!g->model) {
        usage(stderr);
        return EXIT_FAILURE;
    }
    if (g->name && !ln_aot_is_ident(g->name))
        return fail_msg("-n '%s' is not a C identifier", g->name);
    g->shapes[g->nshapes] = NULL;
    if (g->budget) {   /* checked before the model is read: no partial output */
        ln_budget b;
        if (ln_budget_parse(g->budget, &b))
            return fail_msg("%s", ln_error_message());
    }
    return -1;
}

/* The model (text, len bytes) parsed, compiled for the target and planned
 * as asked; NULL and the error set when it cannot be. */
static ln_context *compiled_model(const aot_args *g, const char *text, size_t len)
{
    ln_context *ctx = ln_context_create();
    ln_serializer_opts sopts;

    sopts.shapes = g->nshapes ? g->shapes : NULL;
    sopts.target = g->target;
    if (ln_context_init_mem(ctx, text, len, ln_streq(g->model, "-") ? "<stdin>" : g->model, NULL,
                            &sopts) ||
        (g->datafile && ln_context_set_data_file(ctx, g->datafile)))
        goto fail;
    if (!ctx->arch) {
        ctx->io_in_arena = g->io_in_arena;
        if (ln_context_compile(ctx, g->target))
            goto fail;
    } else if (!ln_streq(ctx->arch, g->target)) {
        ln_error(LN_EINVAL, "%s: compiled for '%s', not for '%s'", ctx->source, ctx->arch,
                 g->target);
        goto fail;
    }
    if (!ctx->planned || ctx->io_in_arena != g->io_in_arena) {
        ctx->io_in_arena = g->io_in_arena;
        if (ln_context_mem_plan(ctx))
            goto fail;
    }
    return ctx;
fail:
    ln_context_free(ctx);
    return NULL;
}

/* The banner: version, command line, model hash. */
static char *make_banner(int argc, char **argv, const aot_args *g, const char *text, size_t len)
{
    size_t cl = 0;
    char *cmdline, *banner;

    for (int i = 0; i < argc; i++)
        cl += strlen(argv[i]) + 1;
    cmdline = ln_alloc(cl + 1);
    cmdline[0] = '\0';
    for (int i = 0; i < argc; i++) {
        strcat(cmdline, i ? " " : "");
        strcat(cmdline, argv[i]);
    }
    banner = ln_sprintf("ln-aot %s, target %s\ncommand: %s\nmodel: %s, %zu bytes, "
                        "FNV-1a 64 %016llx", LN_AOT_VERSION, g->target, cmdline,
                        ln_streq(g->model, "-") ? "<stdin>" : g->model, len,
                        (unsigned long long)ln_aot_fnv1a(text, len, LN_AOT_FNV1A_INIT));
    ln_free(cmdline);
    return banner;
}

/* The source to stdout, only once it is complete. */
static int copy_to_stdout(FILE *cfp)
{
    char buf[1 << 16];
    size_t n;

    rewind(cfp);
    while ((n = fread(buf, 1, sizeof buf, cfp)) > 0)
        fwrite(buf, 1, n, stdout);
    if (fflush(stdout) != 0)
        return ln_error(LN_EIO, "cannot write the source to stdout: %s", strerror(errno));
    return 0;
}

int main(int argc, char **argv)
{
    aot_args g;
    const char *name, *hdr;
    char *gen_name = NULL, *gen_hdr = NULL, *text = NULL, *banner = NULL, *inc = NULL;
    int status = EXIT_FAILURE;
    size_t len = 0;
    ln_aot_opts ao;
    ln_aot_stats st;
    ln_context *ctx = NULL;
    FILE *cfp = NULL, *hfp = NULL, *bfp = NULL;
    clock_t t0 = clock();

    memset(&st, 0, sizeof st);
    ln_tool_alloc_setup("ln-aot");
    if ((status = parse_args(argc, argv, &g)) >= 0)
        return status;
    status = EXIT_FAILURE;
    name = g.name;
    if (!name) {
        gen_name = name_from_path(g.out ? g.out : ln_streq(g.model, "-") ? "model" : g.model);
        name = gen_name ? gen_name : "model";
    }
    hdr = g.hdr;
    if (!hdr && g.out && ln_outfile_is_regular(g.out))
        hdr = gen_hdr = header_for(g.out);    /* never beside a device or FIFO */
    if (hdr)   /* beside the source, or found through -I */
        inc = ln_strdup(base_name(hdr));

    /* the model's bytes: hashed for the banner, then parsed */
    text = ln_streq(g.model, "-") ? read_all(stdin, &len) : ln_read_text(g.model, &len);
    if (!text || !(ctx = compiled_model(&g, text, len)))
        goto out;
    banner = make_banner(argc, argv, &g, text, len);
    ln_free(text);
    text = NULL;
    if (g.budget) {   /* the table on stdout; files only with -o, and only when it fits */
        ln_budget b;
        ln_budget_parse(g.budget, &b);
        if (ln_budget_estimate(ctx, g.target, name, &b))
            goto out;
        ln_budget_print(stdout, &b, "");
        fflush(stdout);
        if (ln_budget_verdict(&b, ln_streq(g.model, "-") ? "<stdin>" : g.model))
            goto out;
        if (!g.out) {
            status = EXIT_SUCCESS;
            goto out;
        }
    }

    memset(&ao, 0, sizeof ao);
    ao.name = name;
    ao.header_include = inc;
    ao.weights_file = g.weights;
    ao.static_arena = g.static_arena;
    ao.addr_bits = g.addr_bits;
    ao.banner = banner;
    if (g.out) {
        if (!(cfp = open_out(g.out)))
            goto out;
    } else if (!(cfp = tmpfile())) {
        ln_error(LN_EIO, "cannot create a temporary file: %s", strerror(errno));
        goto out;
    }
    if ((hdr && !(hfp = open_out(hdr))) || (g.weights && !(bfp = open_out(g.weights))))
        goto out;
    if (ln_aot_emit(ctx, &ao, cfp, hfp, bfp, &st))
        goto out;
    if (!g.out) {
        int r = copy_to_stdout(cfp);
        fclose(cfp);
        cfp = NULL;
        if (r)
            goto out;
    }
    if (commit_outs())
        goto out;
    if (g.want_report) {
        report(stderr, ctx, name, &st, g.long_names ? LN_REPORT_LONG_NAMES : 0);
        fprintf(stderr, "%s: ln-aot took %.2f s of CPU\n", name,
                (double)(clock() - t0) / CLOCKS_PER_SEC);
    }
    status = EXIT_SUCCESS;
out:
    if (status != EXIT_SUCCESS)
        fail();
    if (!g.out && cfp)
        fclose(cfp);
    ln_free(text);
    ln_free(st.kernels);
    ln_free(banner);
    ln_free(inc);
    ln_free(gen_name);
    ln_free(gen_hdr);
    ln_context_free(ctx);
    ln_arch_cleanup();
    return status;
}
