/*
 * two_models.c -- two emitted models (ew and act) linked into one program
 * and run interleaved, each on its own arena, then on their static arenas.
 * Every run of a model must give the same bits: the models share no state.
 *
 *   two_models EW_IN0.bin ACT_IN0.bin ACT_IN1.bin
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ew.h"
#include "act.h"

static int read_f32(const char *path, float *dst, size_t n)
{
    FILE *fp = fopen(path, "rb");
    size_t got = fp ? fread(dst, sizeof(float), n, fp) : 0;
    if (fp)
        fclose(fp);
    return got == n ? 0 : -1;
}

static void *aligned(size_t n, int fill)
{
    void *p = NULL;
    if (posix_memalign(&p, 16, n ? n : 1) != 0)
        exit(2);
    memset(p, fill, n ? n : 1);
    return p;
}

int main(int argc, char **argv)
{
    float ex[EW_INPUT0_SIZE], ax[ACT_INPUT0_SIZE], az[ACT_INPUT1_SIZE];
    float ey0[3][EW_OUTPUT0_SIZE], ey1[3][EW_OUTPUT1_SIZE], ay[3][ACT_OUTPUT0_SIZE];
    void *ea, *aa;

    if (argc != 4 || read_f32(argv[1], ex, EW_INPUT0_SIZE) ||
        read_f32(argv[2], ax, ACT_INPUT0_SIZE) || read_f32(argv[3], az, ACT_INPUT1_SIZE)) {
        fprintf(stderr, "usage: two_models EW_IN0.bin ACT_IN0.bin ACT_IN1.bin\n");
        return 2;
    }
    ea = aligned(EW_ARENA_SIZE, 0x11);
    aa = aligned(ACT_ARENA_SIZE, 0x22);
    /* ew, act, ew, act: each run leaves its arena dirty for the next */
    if (ew_run(ea, ex, ey0[0], ey1[0]) || act_run(aa, ax, az, ay[0]) ||
        ew_run(ea, ex, ey0[1], ey1[1]) || act_run(aa, ax, az, ay[1])) {
        puts("FAIL two models: a run returned an error");
        return 1;
    }
    /* the static arenas, interleaved the other way round */
    if (act_run_static(ax, az, ay[2]) || ew_run_static(ex, ey0[2], ey1[2])) {
        puts("FAIL two models: a static-arena run returned an error");
        return 1;
    }
    for (int k = 1; k < 3; k++)
        if (memcmp(ey0[0], ey0[k], sizeof ey0[0]) || memcmp(ey1[0], ey1[k], sizeof ey1[0]) ||
            memcmp(ay[0], ay[k], sizeof ay[0])) {
            printf("FAIL two models: run %d differs from run 0\n", k);
            return 1;
        }
    printf("PASS two models: ew and act linked together, interleaved on two arenas and on "
           "static arenas, identical results\n");
    free(ea);
    free(aa);
    return 0;
}
