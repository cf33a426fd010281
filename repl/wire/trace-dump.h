/* The chunk every rank runs once a script or an -e chunk has run under
 * rmalab --trace FILE (RMALAB_TRACE_FILE): the collective dump, after
 * which rank 0 says where it went. Script mode runs it on each rank
 * (rank_script), the front end sends it after -e. */
#ifndef RMALAB_REPL_TRACE_DUMP_H
#define RMALAB_REPL_TRACE_DUMP_H

static const char trace_dump_chunk[] =
    "local p = os.getenv('RMALAB_TRACE_FILE') rmalab.trace.dump(p) "
    "if rmalab.world:rank() == 0 then io.stderr:write("
    "'rmalab: the trace is in ', p, ' (open it in ui.perfetto.dev)\\n') end";

#endif
