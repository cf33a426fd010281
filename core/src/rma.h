/* rma.c: the typed RMA operations.
 * Private to the core, never installed. */
#ifndef RMALAB_RMA_H
#define RMALAB_RMA_H

#include "win-private.h"

/* rma.c: the request-based form of put, get, accumulate and
 * get_accumulate (`kind`: their trace kind), on caller memory, with a
 * target vector or the caller's datatypes (ty; then its fields are the
 * operation's); MPI's request in *rreq, the operation's ticket in *ticket. */
int rmalab__rma_request(rmalab_win *w, int kind, const char *what, int target, MPI_Aint disp,
                        rmalab_type type, int count, const void *origin, void *result,
                        rmalab_op op, const rmalab_vector *vec, const rmalab_typed_op *ty,
                        uint64_t *ticket, MPI_Request *rreq);

#endif
