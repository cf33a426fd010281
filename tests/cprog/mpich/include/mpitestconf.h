/* Written for rmalab's copy of MPICH's tests (not MPICH's): MPICH's
 * test/mpi/configure makes this header; these are its answers on Debian 12
 * (gcc, glibc) for what include/ and util/ read. The rma tests are
 * single-threaded: no thread package. */
#ifndef MPITESTCONF_H_INCLUDED
#define MPITESTCONF_H_INCLUDED
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define HAVE_STDARG_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_GETRUSAGE 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_LONG_LONG_INT 1
#define HAVE_MPI_WIN_CREATE 1
#define HAVE_MPI_INIT_THREAD 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_NONE
#endif
