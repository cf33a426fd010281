/* trace.c: rmalab run --trace (docs/c.md). When `rmalab run` sets
 * RMALAB_RUN_TRACE to a file name, every window the program creates
 * records its epochs (the core's recorder, rmalab/trace.h), and at
 * MPI_Finalize rank 0 writes the set that rmalab_trace_gather gives, as
 * a Lua table constructor (the table lua/ltrace.c documents, each event
 * with the C call that made it), for `rmalab run` to turn into Perfetto
 * JSON or SVG with the Lua module's writers. */
#ifndef RMALAB_CPROG_TRACE_H
#define RMALAB_CPROG_TRACE_H

/* At MPI_Init: windows created from now on record, when asked. Local. */
void run_trace_start(void);
/* At MPI_Finalize, before the communicators are freed: collective over
 * MPI_COMM_WORLD when tracing; rank 0 writes the file. */
void run_trace_end(void);

#endif
