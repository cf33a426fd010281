/* Written for rmalab's copy of MPICH's tests (not MPICH's): MPICH's build
 * generates this header (maint/local_python/binding_c.py) with a #define
 * per MPI-4 name its library still spells MPIX_; MPICH 4.0.2 spells every
 * name the rma tests use as MPI_, so it is empty here. */
#ifndef MTEST_MPIX_H_INCLUDED
#define MTEST_MPIX_H_INCLUDED
#endif
