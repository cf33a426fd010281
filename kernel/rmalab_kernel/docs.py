"""What Shift-Tab shows for rmalab's functions (inspect_request). Hints are
documented by the hint catalogue itself, which the front end reads
(docs/repl-json.md, the "inspect" request). Each entry: the call, then what it
does; tests/kernel/docs_names.py checks that every name here exists."""

DOCS = {
    # The module
    "rmalab.wtime": "rmalab.wtime() -> seconds\nMPI_Wtime: wall-clock seconds.",
    "rmalab.sleep": "rmalab.sleep(seconds)\nSleep this rank (MPI progress goes on).",
    "rmalab.info": "rmalab.info([table | info]) -> info\nA new info object: empty, from a "
                   "table (keys sorted; booleans and integers become text) or a copy.",
    "rmalab.info_env": "rmalab.info_env() -> info\nThe MPI_INFO_ENV keys this process can "
                       "tell (command, argv, maxprocs, host, arch, wdir, thread_level).",
    "rmalab.keyval": "rmalab.keyval{copy = fn | \"null\" | \"dup\", delete = fn | \"null\", "
                     "extra = any} -> kv\nA window attribute key (MPI_Win_create_keyval).",
    "rmalab.win_allocate": "rmalab.win_allocate(size, {disp_unit =, info =, comm =, name =})"
                           " -> win, diagnostics\nCollective: a window whose memory MPI "
                           "allocates; size in bytes.",
    "rmalab.win_create": "rmalab.win_create(size, opts) -> win, diagnostics\nCollective: "
                         "the core allocates the memory, then MPI_Win_create.",
    "rmalab.win_allocate_shared": "rmalab.win_allocate_shared(size, opts) -> win, "
                                  "diagnostics\nCollective: a window in shared memory "
                                  "(ranks of one node).",
    "rmalab.win_create_dynamic": "rmalab.win_create_dynamic(opts) -> win, diagnostics\n"
                                 "Collective: a window with no memory; win:attach adds "
                                 "regions.",
    "rmalab.hints.catalog": "rmalab.hints.catalog(\"win\" | \"comm\") -> array of {key, type,"
                            " default, doc, scope, values, must_agree, after_create, rmalab}"
                            "\nThe hints rmalab knows.",
    "rmalab.hints.check": "rmalab.hints.check(\"win\" | \"comm\", info_or_table) -> "
                          "diagnostics\nValidate hints without creating anything.",
    "rmalab.trace.on": "rmalab.trace.on()\nCollective: every window records its epochs "
                       "(:trace on).",
    "rmalab.trace.off": "rmalab.trace.off()\nStop recording (local).",
    "rmalab.trace.clear": "rmalab.trace.clear()\nForget what was recorded.",
    "rmalab.trace.events": "rmalab.trace.events() -> set\nCollective: the recorded events "
                           "of every window, on rank 0 (nil elsewhere).",
    "rmalab.trace.dump": "rmalab.trace.dump(path [, {window =}])\nCollective: Chrome "
                         "trace-event JSON for Perfetto.",
    "rmalab.trace.svg": "rmalab.trace.svg(path [, {window =, last =}])\nCollective: a "
                        "picture, a lane per rank, arrows post -> start, complete -> wait.",
    "rmalab.trace.svg_text": "rmalab.trace.svg_text(set [, opts]) -> string\nThe SVG text "
                             "of an event set.",
    "rmalab.trace.timeline": "rmalab.trace.timeline(win | name | nil | set [, {last =, "
                             "times =}]) -> string on rank 0\nASCII lanes, one column per "
                             "rank (:timeline).",
    "rmalab.trace.timeline_text": "rmalab.trace.timeline_text(set [, opts]) -> string\n"
                                  "The ASCII lanes of an event set.",
    "rmalab.trace.chrome": "rmalab.trace.chrome(set) -> string\nThe Perfetto JSON of an "
                           "event set.",
    "rmalab.races.list": "rmalab.races.list() -> array\nThe races the checker found on "
                         "this rank.",
    "rmalab.races.text": "rmalab.races.text() -> string on rank 0\nCollective: every "
                         "rank's race reports (:races).",
    "rmalab.races.clear": "rmalab.races.clear()\nForget the races found (:races clear).",
    "rmalab.races.total": "rmalab.races.total() -> n\nHow many races were found.",
    # Communicators
    "comm:rank": "comm:rank() -> rank\nThis process's rank in the communicator.",
    "comm:size": "comm:size() -> n\nThe number of ranks.",
    "comm:barrier": "comm:barrier()\nCollective: every rank waits for all (orders "
                    "accesses for the race checker).",
    "comm:dup": "comm:dup([hints]) -> comm, diagnostics\nCollective: a new communicator, "
                "with hints.",
    "comm:free": "comm:free()\nCollective: free the communicator.",
    "comm:gather": "comm:gather(value [, root]) -> array on the root\nCollective.",
    "comm:abort": "comm:abort([code])\nMPI_Abort: ends the whole job.",
    "comm:set_info": "comm:set_info(info_or_table) -> diagnostics\nCollective.",
    "comm:get_info": "comm:get_info() -> info\nThe hints in effect.",
    "comm:hints": "comm:hints() -> array of {key, requested, effective, default, status}\n"
                  "What was asked for against what is in effect.",
    "comm:check_hints": "comm:check_hints() -> disagreements\nCollective: must-agree keys "
                        "whose values differ across ranks.",
    # Info objects
    "info:set": "info:set(key, value)\nSet a key (overrides).",
    "info:get": "info:get(key) -> string or nil",
    "info:delete": "info:delete(key)\nERR_INFO_NOKEY when absent.",
    "info:nkeys": "info:nkeys() -> n",
    "info:nthkey": "info:nthkey(n) -> key\n0-based, as in MPI.",
    "info:valuelen": "info:valuelen(key) -> length or nil",
    "info:dup": "info:dup() -> info\nThe same pairs in the same order.",
    "info:free": "info:free()",
    "info:get_bool": "info:get_bool(key) -> boolean or nil",
    "info:get_int": "info:get_int(key) -> integer or nil",
    "info:get_list": "info:get_list(key) -> array or nil",
    # Windows
    "win:free": "win:free()\nCollective; refused (ERR_RMA_SYNC) inside an epoch. "
                "`local win <close> = ...` frees it at the end of the scope.",
    "win:put": "win:put(target, disp, type, value_or_array)\nWrite into target's window at "
               "disp (in disp_units), inside an epoch open to target.",
    "win:get": "win:get(target, disp, type [, count]) -> result\nRead target's window; "
               "result:value() once the epoch that carries it completes.",
    "win:accumulate": "win:accumulate(target, disp, type, value_or_array, op)\nop: sum prod "
                      "max min band bor bxor land lor lxor replace.",
    "win:get_accumulate": "win:get_accumulate(target, disp, type, value_or_array, op) -> "
                          "result",
    "win:fetch_and_op": "win:fetch_and_op(target, disp, type, value, op) -> result",
    "win:compare_and_swap": "win:compare_and_swap(target, disp, type, compare, value) -> "
                            "result",
    "win:read": "win:read(disp, type [, count]) -> value or array\nThis rank's own window "
                "memory.",
    "win:write": "win:write(disp, type, value_or_array)\nWrite this rank's own window "
                 "memory.",
    "win:post": "win:post(group [, assert])\nOpen an exposure epoch to the ranks of group "
                "(an array, {0}); ended by win:wait.",
    "win:start": "win:start(group [, assert])\nOpen an access epoch to the ranks of group; "
                 "operations wait for their post; ended by win:complete.",
    "win:complete": "win:complete()\nEnd the access epoch opened by win:start.",
    "win:wait": "win:wait()\nEnd the exposure epoch: returns once every origin of the "
                "group has called complete.",
    "win:test": "win:test() -> boolean\nwin:wait without waiting: true once the exposure "
                "epoch is over.",
    "win:fence": "win:fence([assert])\nCollective over the window: ends one fence epoch "
                 "and opens the next.",
    "win:lock": "win:lock(target [, \"exclusive\" | \"shared\" [, assert]])\nA passive-target "
                "access epoch to target (exclusive by default).",
    "win:unlock": "win:unlock(target)\nEnd the lock epoch; operations are complete at "
                  "the target.",
    "win:lock_all": "win:lock_all([assert])\nShared locks to every rank.",
    "win:unlock_all": "win:unlock_all()",
    "win:flush": "win:flush(target)\nComplete the operations to target, inside a lock.",
    "win:flush_all": "win:flush_all()",
    "win:flush_local": "win:flush_local(target)\nLocal completion of the operations to "
                       "target.",
    "win:flush_local_all": "win:flush_local_all()",
    "win:epochs": "win:epochs() -> table\nThe epoch state of this rank.",
    "win:check_mode": "win:check_mode() -> string\nThe race checker's mode on this window.",
    "win:attach": "win:attach(size) -> address\nDynamic windows: a region to use as disp.",
    "win:detach": "win:detach(address)",
    "win:set_name": "win:set_name(name)\nNames appear in error messages and traces.",
    "win:get_name": "win:get_name() -> name",
    "win:group": "win:group() -> array\nThe window's ranks in rmalab.world.",
    "win:rank": "win:rank() -> rank\nThis rank in the window's group.",
    "win:size": "win:size() -> n\nThe window's group size.",
    "win:set_info": "win:set_info(info_or_table) -> diagnostics",
    "win:get_info": "win:get_info() -> info\nThe hints in effect, with rmalab_pscw.",
    "win:hints": "win:hints() -> array of {key, requested, effective, default, status}",
    "win:check_hints": "win:check_hints() -> disagreements\nCollective.",
    "win:set_attr": "win:set_attr(keyval, value)\nCache any Lua value on the window.",
    "win:get_attr": "win:get_attr(keyval) -> value, found\nAlso the predefined "
                    "rmalab.WIN_BASE, WIN_SIZE, WIN_DISP_UNIT, WIN_CREATE_FLAVOR, WIN_MODEL.",
    "win:delete_attr": "win:delete_attr(keyval)\nRuns the delete callback.",
    "win:trace_events": "win:trace_events() -> set\nCollective over the window: its "
                        "recorded events.",
    "win:trace_status": "win:trace_status() -> {on, paused, capacity, recorded, dropped, "
                        "offset, uncertainty}",
}

IDENT = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:")


def word_at(code, pos):
    """The name around the cursor: rmalab.win_allocate, w:post, no_locks."""
    start, end = pos, pos
    while start > 0 and code[start - 1] in IDENT:
        start -= 1
    while end < len(code) and code[end] in IDENT and code[end] not in ".:":
        end += 1
    return code[start:end].strip(".:")


def lookup(word):
    """The entries a word names: a module path exactly (rl. is rmalab.), a
    method by its name whatever the object's variable is called."""
    if not word:
        return []
    if word.startswith("rl."):
        word = "rmalab." + word[3:]
    if word in DOCS:
        return [DOCS[word]]
    last = word.replace(":", ".").split(".")[-1]
    sep = ":" if ":" in word else "."
    hits = [v for k, v in DOCS.items()
            if k.endswith(sep + last) or (sep == "." and k.endswith(":" + last)
                                          and not word.startswith("rmalab."))]
    return hits
