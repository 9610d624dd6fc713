/*
 * ln_ophook_einsum.c -- einsum's equation, resolved at compile time into
 * the runtime's stride tables (ln_rt_einsum_args) and the output shape.
 *
 * Spaces are ignored.  Each operand's term is letters (a-z, A-Z) with at
 * most one "..." standing for the dims the letters leave; the ellipses
 * broadcast like numpy (aligned at the right, a 1 against n).  A letter
 * repeated in a term takes the diagonal; a letter's dims must agree.  The
 * output is the term after "->" (each letter once, "..." where the
 * broadcast dims go; without it the inputs' ellipses must be empty), or,
 * implicitly, the broadcast dims then the letters used once, in ASCII
 * order (numpy's rule).  Indices not in the output are summed.  One or two
 * operands, as the kernel takes.
 */
#include <string.h>
#include "ln_ophook.h"

enum { MAXI = LN_RT_EINSUM_MAX_INDICES, ELL = 256 };   /* ellipsis dim j: label ELL + j */

typedef struct {
    int nidx, nout;
    int label[MAXI];        /* a letter, or ELL + j */
    int extent[MAXI];
    int64_t stride[2][MAXI];
} einsum_plan;

static int find_label(const einsum_plan *p, int label)
{
    for (int i = 0; i < p->nidx; i++)
        if (p->label[i] == label)
            return i;
    return -1;
}

static int is_letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* One term: its labels (letters, ELL + j for the ellipsis' dims) into
 * labels[ndim].  ell_rank is the ellipsis' dims in the broadcast. */
static int parse_term(const ln_op_arg *op_arg, const char *t, size_t len, int k,
                      const ln_tensor *x, int ell_rank, int *labels)
{
    int n = 0, letters = 0, ell = 0;

    for (size_t i = 0; i < len; i++) {
        if (t[i] == '.') {
            LN_OPCK(ln_opck(op_arg, !ell && len - i >= 3 &&
                            t[i + 1] == '.' && t[i + 2] == '.',
                            "'equation': a '.' of term %d is not one '...'", k + 1));
            ell = 1;
            i += 2;
            continue;
        }
        LN_OPCK(ln_opck(op_arg, is_letter(t[i]), "'equation': '%c' in term %d is not a letter",
                        t[i], k + 1));
        letters++;
    }
    LN_OPCK(ln_opck(op_arg, ell ? letters <= x->ndim : letters == x->ndim,
                    "'equation': term %d has %d letters%s for an operand of %d dims", k + 1,
                    letters, ell ? " and '...'" : "", x->ndim));
    for (size_t i = 0; i < len; i++) {
        if (t[i] == '.') {
            int e = x->ndim - letters;
            for (int j = 0; j < e; j++)
                labels[n++] = ELL + ell_rank - e + j;
            i += 2;
            continue;
        }
        labels[n++] = (unsigned char)t[i];
    }
    return 0;
}

static int einsum_plan_make(const ln_op_arg *op_arg, einsum_plan *p, int *ndim, int *dims)
{
    const char *eq = ln_ophook_param_str(op_arg, "equation", "");
    const ln_tensor *x[2];
    char s[256];
    const char *arrow, *term[2];
    size_t tlen[2], n = 0;
    int nin, ell_rank = 0, labels[2][LN_MAXDIM], order[MAXI], nord = 0;
    ln_tensor_entry *b = ln_op_tensor_in(op_arg, "b");

    x[0] = ln_op_tensor_in(op_arg, "a")->tensor;
    x[1] = b ? b->tensor : NULL;
    nin = x[1] ? 2 : 1;
    for (const char *c = eq; *c; c++)
        if (*c != ' ') {
            LN_OPCK(ln_opck(op_arg, n + 1 < sizeof s, "'equation' is too long"));
            s[n++] = *c;
        }
    s[n] = '\0';
    arrow = strstr(s, "->");
    /* the terms */
    {
        const char *c = s, *end = arrow ? arrow : s + n;
        int k = 0;
        for (;;) {
            const char *comma = memchr(c, ',', (size_t)(end - c));
            const char *te = comma ? comma : end;
            LN_OPCK(ln_opck(op_arg, k < nin, "'equation' \"%s\" has more terms than the %d "
                            "operand%s", eq, nin, nin == 1 ? "" : "s"));
            term[k] = c;
            tlen[k] = (size_t)(te - c);
            k++;
            if (!comma)
                break;
            c = comma + 1;
        }
        LN_OPCK(ln_opck(op_arg, k == nin, "'equation' \"%s\" has %d term%s for %d operands", eq,
                        k, k == 1 ? "" : "s", nin));
    }
    /* the broadcast rank of the ellipses */
    for (int k = 0; k < nin; k++) {
        int letters = 0;
        for (size_t i = 0; i < tlen[k]; i++)
            letters += is_letter(term[k][i]);
        if (memchr(term[k], '.', tlen[k]) && x[k]->ndim - letters > ell_rank)
            ell_rank = x[k]->ndim - letters;
    }
    memset(p, 0, sizeof *p);
    for (int k = 0; k < nin; k++) {
        LN_OPCK(parse_term(op_arg, term[k], tlen[k], k, x[k], ell_rank, labels[k]));
        for (int d = 0; d < x[k]->ndim; d++) {
            int i = find_label(p, labels[k][d]), ext = x[k]->dims[d];
            if (i < 0) {
                LN_OPCK(ln_opck(op_arg, p->nidx < MAXI, "'equation' has more than %d indices",
                                MAXI));
                i = p->nidx++;
                p->label[i] = labels[k][d];
                p->extent[i] = ext;
            } else if (p->extent[i] != ext) {
                LN_OPCK(ln_opck(op_arg, labels[k][d] >= ELL, "'equation': index '%c' has %d "
                                "and %d elements", labels[k][d], p->extent[i], ext));
                LN_OPCK(ln_opck(op_arg, ext == 1 || p->extent[i] == 1, "'equation': the '...' "
                                "dims do not broadcast (%d against %d)", p->extent[i], ext));
                if (ext > p->extent[i])
                    p->extent[i] = ext;
            }
        }
    }
    /* the output's indices */
    if (arrow) {
        const char *o = arrow + 2;
        int ell = 0;
        for (; *o; o++) {
            if (*o == '.') {
                LN_OPCK(ln_opck(op_arg, !ell && o[1] == '.' && o[2] == '.',
                                "'equation': a '.' of the output is not one '...'"));
                for (int j = 0; j < ell_rank; j++)
                    order[nord++] = find_label(p, ELL + j);
                ell = 1;
                o += 2;
                continue;
            }
            LN_OPCK(ln_opck(op_arg, is_letter(*o), "'equation': '%c' in the output is not a "
                            "letter", *o));
            LN_OPCK(ln_opck(op_arg, find_label(p, (unsigned char)*o) >= 0,
                            "'equation': output index '%c' is in no operand", *o));
            for (int j = 0; j < nord; j++)
                LN_OPCK(ln_opck(op_arg, p->label[order[j]] != (unsigned char)*o,
                                "'equation': output index '%c' is repeated", *o));
            order[nord++] = find_label(p, (unsigned char)*o);
        }
        LN_OPCK(ln_opck(op_arg, ell || ell_rank == 0, "'equation': the operands' '...' has %d "
                        "dims, the output has no '...'", ell_rank));
    } else {
        for (int j = 0; j < ell_rank; j++)
            order[nord++] = find_label(p, ELL + j);
        for (int c = 'A'; c <= 'z'; c++) {
            int uses = 0;
            if (!is_letter((char)c))
                continue;
            for (int k = 0; k < nin; k++)
                for (int d = 0; d < x[k]->ndim; d++)
                    uses += labels[k][d] == c;
            if (uses == 1)
                order[nord++] = find_label(p, c);
        }
    }
    LN_OPCK(ln_opck(op_arg, nord <= LN_MAXDIM, "'equation': the output has %d dims (at most "
                    "%d)", nord, LN_MAXDIM));
    /* output indices first, in output order, then the summed ones */
    {
        einsum_plan q = *p;
        int used[MAXI] = {0}, m = 0;
        for (int j = 0; j < nord; j++) {
            used[order[j]] = 1;
            q.label[m] = p->label[order[j]];
            q.extent[m++] = p->extent[order[j]];
        }
        for (int i = 0; i < p->nidx; i++)
            if (!used[i]) {
                q.label[m] = p->label[i];
                q.extent[m++] = p->extent[i];
            }
        q.nout = nord;
        *p = q;
    }
    /* each operand's strides: a dim broadcast from 1 steps 0 */
    for (int k = 0; k < nin; k++) {
        int64_t st = 1;
        for (int d = x[k]->ndim - 1; d >= 0; d--) {
            int i = find_label(p, labels[k][d]);
            if (x[k]->dims[d] != 1 || p->extent[i] == 1)
                p->stride[k][i] += st;
            st *= x[k]->dims[d];
        }
    }
    *ndim = nord;
    for (int j = 0; j < nord; j++)
        dims[j] = p->extent[j];
    return 0;
}

int ln_ophook_einsum_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    einsum_plan p;
    return einsum_plan_make(op_arg, &p, ndim, dims);
}

void ln_ophook_einsum_args(const ln_op_arg *op_arg, ln_rt_einsum_args *a)
{
    einsum_plan p;
    int ndim, dims[LN_MAXDIM];
    ln_tensor_entry *b = ln_op_tensor_in(op_arg, "b");

    memset(a, 0, sizeof *a);
    if (einsum_plan_make(op_arg, &p, &ndim, dims))
        return;                 /* pre_run has checked it */
    a->nin = b ? 2 : 1;
    a->nidx = p.nidx;
    a->nout = p.nout;
    a->dtype = (ln_rt_dtype)ln_op_tensor_in(op_arg, "a")->tensor->dtype;
    for (int i = 0; i < p.nidx; i++) {
        a->extent[i] = p.extent[i];
        a->stride_a[i] = p.stride[0][i];
        a->stride_b[i] = p.stride[1][i];
    }
}
