/*
 * test_main.c -- runs every Check suite in tests/test_ln_*.c.  The list of
 * suites (suites.h) is derived from the files by the Makefile.
 */
#include <stdlib.h>
#include <check.h>

#define LN_SUITE(f) Suite *f(void);
#include "suites.h"
#undef LN_SUITE

int main(void)
{
    SRunner *sr = srunner_create(NULL);
    int failed;

#define LN_SUITE(f) srunner_add_suite(sr, f());
#include "suites.h"
#undef LN_SUITE
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
