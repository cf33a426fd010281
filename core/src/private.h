/* Private to the core: what every file of the core stands on, the C and MPI
 * headers and the public API; and the design of the core's files, below.
 * Never installed.
 *
 * ONE CONCERN PER FILE, CALLS IN ONE DIRECTION. A file may call only files
 * listed above it; nothing calls upwards. (Check: every rmalab__ and
 * rmalab_win_ call in a file resolves to its own file or one above it.)
 * A header in the list (win-private.h, clock.h, races-private.h,
 * observe.h...) is a level of its own: its inline functions call only the
 * files above it, and the files below call them (tests/layers.py).
 *
 * EACH FILE'S CALLS IN ITS OWN HEADER. What a file offers the others is
 * declared in its own header, named in brackets below, and a file
 * includes the headers of the files it calls. This header declares no
 * calls: it holds the C, MPI and public headers every file stands on.
 * win-private.h holds the window, its parts and its inline primitives.
 *
 *   alloc.c          counted, failable allocation (rmalab/debug.h)
 *                    [alloc.h]
 *   error.c          error classes and the per-thread message; the
 *                    agreement of ranks on a failure [error-private.h]
 *   sync-kinds.c     the synchronisation kinds, one row each (rmalab/sync.h):
 *                    every file below reads a kind from its row
 *                    [sync-kinds.h]
 *   block.c          blocking calls: what the process is blocked in, its
 *                    last failure, waiting without spinning (rmalab/block.h)
 *                    [block.h]
 *   clock.h          the process's vector clock: its inline readers
 *   clock.c          the clock, and its wire form, which collectives,
 *                    messages and the race checker carry; the jitter
 *                    before synchronising calls (clock.h)
 *   win-private.h    the window, and its primitives (inline)
 *   info.c info-typed.c info-mpi.c  info objects; typed values;
 *                    MPI_Info [info-private.h: info.c's; info-typed.h]
 *   hints.c hints-value.c hints-validate.c hints-report.c  the hint
 *                    catalogue; values; validation; reports and agreement
 *                    [hints-private.h: hints.c's; hints-validate.h]
 *   comm.c           communicators [comm-private.h]
 *   types.c          type, op, flavour and assertion tables; op/type rules
 *                    [types.h]
 *   layout.c         what every rank's window is: sizes, units, no_locks,
 *                    attached regions; range checks; local memory and
 *                    overlaps with it; properties [layout.h]
 *   results.c        data-returning operations' results and the staging
 *                    arena of origin data [results.h]
 *   coll.c coll-typed.c xchg.c msg.c p2p.c  collectives (rmalab_barrier
 *                    among them; coll-typed.c: on typed buffers in place)
 *                    and messages on communicators (rmalab/coll.h), with
 *                    the process's clock (clock.h); msg.c: messages on the
 *                    wire [coll-private.h: coll.c's; msg.h; p2p.h, with the
 *                    request p2p.c and request.c share]
 *   trace.c          the recorder: each traced window's ring of events and
 *                    clock offset; records outlive their windows
 *                    (trace-private.h: its record and calls)
 *   races-found.h    a race the checker found, as the event layer hands
 *                    it to the recorder (a type alone)
 *   races-private.h  the checker's records and its state (the checker's
 *                    files alone include it): its calls take that state,
 *                    never the window, which races-sync.c alone sees
 *   races-rlist.c    the checker's lists of records: a record pushed at
 *                    the end, and joined to the one before it when the
 *                    two are one access [races-rlist.h]
 *   races-pairs.c    the races the model finds, as it returns them: two
 *                    records a race, each race once [races-pairs.h]
 *   races.c          the race checker's model: the race rule, and the
 *                    log of a window's memory, with its indexes (each
 *                    access's latest record, the bytes of each block of
 *                    records): what a new record supersedes, what no later
 *                    access can race with any more and leaves; checks
 *                    against it and within a batch, and each
 *                    synchronisation's part, which return the races they
 *                    find (docs/races.md) [races-private.h]
 *   races-wire.c     the race checker between ranks: what each
 *                    synchronisation sends and receives (post's clock,
 *                    complete's records, the passive batches, the
 *                    exchange of fence and free), and the messages
 *                    [races-wire.h]
 *   races-report.c   the checker's reports: a race in words, the
 *                    process's list of races, raising or warning, a
 *                    communicator's races (their total and texts); the
 *                    call sites they name [races-report.h]
 *   races-sync.c     the race checker at each call: the records of
 *                    operations and local accesses; each synchronisation
 *                    run from its kind's row as one step, messages in
 *                    (races-wire.c), the model's part (races.c), messages
 *                    out, then what it found reported (races-report.c);
 *                    its life with a window [races-sync.h]
 *   observe.c        the event layer: the one entry point through which
 *                    every call reaches the recorder and the race checker,
 *                    as two equals (rmalab__observe_sync_*, _op_*)
 *   observe.h        its inline fronts: a NULL test or two when the window
 *                    neither records nor is checked
 *   engine-node.c    a communicator's node, found by the rma engine and
 *                    cached on the communicator [engine-node.h]
 *   engine-native.c  PSCW engines behind rmalab__engine (win-private.h); they see
 *   engine-rma.c     the layout, never the epoch state: the groups they
 *                    need are arguments [engine-native.h, engine-rma.h]
 *   state.c          the observable epoch state: snapshot and description
 *                    [state.h]
 *   sync.c           the epoch state machine; fence and the PSCW calls;
 *                    the origin-side check of each operation and its
 *                    epoch facts [sync-private.h]
 *   sync-passive.c   the passive-target calls: locks and flushes
 *   shape.c          the sides of an RMA operation: contiguous, a target
 *                    vector, the caller's own datatypes with their byte
 *                    spans; their footprint, overlaps and blocks [shape.h]
 *   rma.c            the typed RMA operations [rma.h]
 *   win-local.c      the window's local reads and writes, and the loads
 *                    and stores of views (rmalab_win_direct)
 *   request.c        requests of every kind: request-based RMA (rput...),
 *                    and waiting for messages' and operations' requests
 *                    [request.h]
 *   attr.c           attribute caching [attr.h]
 *   registry.c       the process's live windows [registry.h]
 *   state-text.c     the process's state as text: the blocked call and
 *                    the live windows (rmalab/block.h, rmalab_state_text)
 *   text-c.c         the core's texts in a C program's words: MPI's
 *                    names of calls (rmalab/error.h, rmalab_text_in_c)
 *   trace-gather.c   gathering records across ranks, arrows; starting
 *                    the recording of live windows
 *   win-hints.c      window hints after creation (set_info, get_info...);
 *                    the PSCW engine the hints choose
 *                    [win-hints.h]
 *   win-free.c       destruction, and the release a failed creation shares
 *                    [win-free.h]
 *   win.c            creation in named steps
 *
 * NAMES SAY THEIR FILE. A private name (a function, a global, a macro in
 * lower case) is rmalab__, then the stem of the file that defines it, then
 * its own part, or the stem alone: rmalab__sync_check_op is sync.c's,
 * rmalab__engine_rma engine-rma.c's, as Lua's luaD_ names ldo.c. A
 * header's inline functions and macros take its stem; a header that
 * several files share declares each name under its own file's stem. The
 * longest stem that begins a name names its file: rmalab__races_sync_op is
 * races-sync.c's, not races.c's. Every file has its stem here, and
 * tests/layers.py checks each name that a file or header of this folder
 * declares or defines against this table:
 *
 *   mem_ alloc.c                         err_ error.c error-private.h
 *   kind_ sync-kinds.c                   block_ block.c block.h
 *   clock_ clock.c clock.h               win_ win-private.h win.c
 *   info_ info.c                         info_typed_ info-typed.c
 *   info_mpi_ info-mpi.c                 hints_ hints.c
 *   hints_value_ hints-value.c           hints_validate_ hints-validate.c
 *   hints_report_ hints-report.c         comm_ comm.c comm-private.h
 *   type_ types.c                        layout_ layout.c
 *   results_ results.c                   coll_ coll.c coll-private.h
 *   xchg_ xchg.c                         msg_ msg.c msg.h
 *   p2p_ p2p.c                           trace_ trace.c
 *   races_ races.c races-private.h       races_report_ races-report.c
 *   races_wire_ races-wire.c             races_sync_ races-sync.c
 *   races_pairs_ races-pairs.c           races_rlist_ races-rlist.c races-rlist.h
 *   observe_ observe.c observe.h         engine_native_ engine-native.c
 *   engine_rma_ engine-rma.c             state_ state.c
 *   sync_ sync.c                         sync_passive_ sync-passive.c
 *   shape_ shape.c                       rma_ rma.c
 *   win_local_ win-local.c               request_ request.c
 *   attr_ attr.c                         registry_ registry.c
 *   trace_gather_ trace-gather.c         win_hints_ win-hints.c
 *   win_free_ win-free.c                 state_text_ state-text.c
 *   text_c_ text-c.c                     engine_node_ engine-node.c
 *   coll_typed_ coll-typed.c */
#ifndef RMALAB_PRIVATE_H
#define RMALAB_PRIVATE_H

#include <mpi.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <rmalab/rmalab.h>
#include <rmalab/win.h>

#endif
