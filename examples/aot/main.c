/*
 * main.c -- the iris classifier emitted by ln-aot, as a program.
 *
 *   iris FILE      FILE holds the 4 measurements in cm (sepal length, sepal
 *                  width, petal length, petal width) as text
 *
 * Prints each class's score and the top class.  Everything model-specific
 * comes from iris.h, which ln-aot wrote: the arena size, the input and
 * output sizes and iris_run().
 */
#include <stdio.h>
#include "iris.h"

static const char *const classes[IRIS_OUTPUT0_SIZE] = {"setosa", "versicolor", "virginica"};

/* The model's working memory: a static buffer, aligned for iris_run. */
static union {
    unsigned char bytes[IRIS_ARENA_SIZE];
    double align;
} arena;

int main(int argc, char **argv)
{
    float features[IRIS_INPUT0_SIZE], scores[IRIS_OUTPUT0_SIZE];
    FILE *fp;
    int ret, top = 0;

    if (argc != 2) {
        fprintf(stderr, "usage: %s FILE  (4 numbers: sepal length, sepal width, "
                "petal length, petal width in cm)\n", argv[0]);
        return 2;
    }
    if (!(fp = fopen(argv[1], "r"))) {
        perror(argv[1]);
        return 1;
    }
    for (int i = 0; i < IRIS_INPUT0_SIZE; i++)
        if (fscanf(fp, "%f", &features[i]) != 1) {
            fprintf(stderr, "%s: expected %d numbers\n", argv[1], IRIS_INPUT0_SIZE);
            fclose(fp);
            return 1;
        }
    fclose(fp);

    if ((ret = iris_run(arena.bytes, features, scores)) != IRIS_OK) {
        fprintf(stderr, "iris_run failed: %d\n", ret);
        return 1;
    }
    for (int k = 0; k < IRIS_OUTPUT0_SIZE; k++) {
        printf("%-10s %8.3f\n", classes[k], (double)scores[k]);
        if (scores[k] > scores[top])
            top = k;
    }
    printf("top class: %s\n", classes[top]);
    return 0;
}
