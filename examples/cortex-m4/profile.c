/*
 * profile.c -- instructions per layer and per op type, from the profile
 * hook of an emitted model (`make PROFILE=1 run`, docs/firmware.md).
 *
 * Built only into the profiled firmware, whose model.c and main.c are
 * compiled with -DMODEL_PROFILE: model_run then calls model_profile_hook()
 * before its first op (index -1) and after each op.  The hook reads the
 * same SysTick counter main.c times the whole inference with (cycles.c),
 * so an op's cost is the ticks between the call before it and its own
 * call, x 40 instructions under qemu -icount shift=0.  Each count includes
 * one hook call (a few dozen instructions, about one tick); the ops' sum
 * leaves out model_run's argument checks and return.
 *
 * Prints two tables sorted by cost, with the share of the sum: the ops,
 * and the op types (ops of one type summed), then the sum and the total of
 * the same run.  No printf, no strcmp: semihost.c's formatters only.
 */
#include "profile.h"
#include "cycles.h"
#include "model.h"
#include "semihost.h"

#define NOPS MODEL_NUM_OPS
#define NSLOT (NOPS > 0 ? NOPS : 1)

static int armed;
static uint64_t t_start, t_op[NSLOT];
static const char *op_name[NSLOT], *op_type[NSLOT];
static int nseen;

void model_profile_hook(int op_index, const char *name, const char *type)
{
    uint64_t t = cycles_now(); /* first: as close to the op's end as can be */

    if (!armed)
        return;
    if (op_index < 0) {
        t_start = t;
        nseen = 0;
    } else if (op_index < NOPS) {
        t_op[op_index] = t;
        op_name[op_index] = name;
        op_type[op_index] = type;
        nseen = op_index + 1;
    }
}

void fw_profile_arm(int on)
{
    armed = on;
}

/* ---- printing ------------------------------------------------------------ */

static int slen(const char *s)
{
    int n = 0;
    while (s[n])
        n++;
    return n;
}

static int same(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

static void spaces(int n)
{
    static const char sp[] = "                                ";
    while (n > 0) {
        int k = n < (int)sizeof sp - 1 ? n : (int)sizeof sp - 1;
        sh_puts(sp + sizeof sp - 1 - k);
        n -= k;
    }
}

/* v right-aligned in width columns */
static void put_u64_w(uint64_t v, int width)
{
    char b[24];
    int i = 23;
    b[i] = 0;
    do {
        b[--i] = (char)('0' + (int)(v % 10u));
        v /= 10u;
    } while (v && i > 0);
    spaces(width - (23 - i));
    sh_puts(b + i);
}

/* part / whole as a percentage with two decimals, right-aligned in width */
static void put_pct(uint64_t part, uint64_t whole, int width)
{
    uint64_t p = whole ? (part * 10000u + whole / 2) / whole : 0;
    char b[3];
    put_u64_w(p / 100u, width - 3);
    b[0] = '.';
    b[1] = (char)('0' + (int)(p / 10u % 10u));
    b[2] = 0;
    sh_puts(b);
    b[0] = (char)('0' + (int)(p % 10u));
    b[1] = 0;
    sh_puts(b);
}

static void put_left(const char *s, int width)
{
    sh_puts(s);
    spaces(width - slen(s));
}

/* indices 0..n-1 of cost[] by cost, largest first; ties by index */
static void sort_by_cost(int *idx, const uint64_t *cost, int n)
{
    int i, j;
    for (i = 0; i < n; i++)
        idx[i] = i;
    for (i = 1; i < n; i++) {
        int k = idx[i];
        for (j = i; j > 0 && cost[idx[j - 1]] < cost[k]; j--)
            idx[j] = idx[j - 1];
        idx[j] = k;
    }
}

void fw_profile_print(uint64_t run_ticks)
{
    static uint64_t cost[NSLOT], tcost[NSLOT];
    static int idx[NSLOT], tcount[NSLOT];
    static const char *tname[NSLOT];
    uint64_t sum = 0, prev = t_start;
    int i, ntypes = 0, wtype = 4;

    if (nseen != NOPS) {
        sh_puts("profile: the hook saw ");
        sh_put_i32(nseen);
        sh_puts(" of ");
        sh_put_i32(NOPS);
        sh_puts(" ops\n");
        return;
    }
    for (i = 0; i < NOPS; i++) {
        int k;
        cost[i] = (t_op[i] - prev) * CYCLES_INSNS_PER_TICK;
        prev = t_op[i];
        sum += cost[i];
        if (slen(op_type[i]) > wtype)
            wtype = slen(op_type[i]);
        for (k = 0; k < ntypes && !same(tname[k], op_type[i]); k++)
            ;
        if (k == ntypes) {
            tname[ntypes++] = op_type[i];
            tcost[k] = 0;
            tcount[k] = 0;
        }
        tcost[k] += cost[i];
        tcount[k]++;
    }

    sh_puts("profile: instructions per op (ticks x 40, +-40 each), by cost\n");
    sh_puts("   op  instructions       %  ");
    put_left("type", wtype + 2);
    sh_puts("name\n");
    sort_by_cost(idx, cost, NOPS);
    for (i = 0; i < NOPS; i++) {
        int k = idx[i];
        put_u64_w((uint64_t)k, 5);
        put_u64_w(cost[k], 14);
        put_pct(cost[k], sum, 8);
        sh_puts("  ");
        put_left(op_type[k], wtype + 2);
        sh_puts(op_name[k]);
        sh_puts("\n");
    }

    sh_puts("profile: instructions per op type, by cost\n");
    sh_puts("  ops  instructions       %  type\n");
    sort_by_cost(idx, tcost, ntypes);
    for (i = 0; i < ntypes; i++) {
        int k = idx[i];
        put_u64_w((uint64_t)tcount[k], 5);
        put_u64_w(tcost[k], 14);
        put_pct(tcost[k], sum, 8);
        sh_puts("  ");
        sh_puts(tname[k]);
        sh_puts("\n");
    }

    sh_puts("profile: sum of the ");
    sh_put_i32(NOPS);
    sh_puts(" ops: ");
    sh_put_u64(sum);
    sh_puts(" instructions; this run's model_run: ");
    sh_put_u64(run_ticks * CYCLES_INSNS_PER_TICK);
    sh_puts(" (");
    put_pct(sum, run_ticks * CYCLES_INSNS_PER_TICK, 0);
    sh_puts("%)\n");
}
