/* test-core-nompi: the pure suites of the core (info objects and hints),
 * run without MPI_Init and without mpiexec, to prove that they need no MPI.
 * check forks a process per test unless CK_FORK=no. Exit status: 0 when
 * every test passed. */
#include <stdio.h>
#include <stdlib.h>

#include "testutil.h"

int main(void)
{
    SRunner *sr = srunner_create(info_suite());
    srunner_add_suite(sr, hints_suite());
    srunner_run_all(sr, CK_ENV); /* CK_VERBOSITY, default normal */
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);

    int init = 0;
    MPI_Initialized(&init);
    if (init) {
        fprintf(stderr, "test-core-nompi: MPI was initialised; these suites must run "
                        "without MPI\n");
        return EXIT_FAILURE;
    }
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
