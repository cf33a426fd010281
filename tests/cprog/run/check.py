#!/usr/bin/env python3
"""One case of rmalab run on a plain mpicc binary (tests/cprog/run).

usage: check.py CASE BINDIR LAUNCH...

LAUNCH is the command that runs a program on 2 ranks with the interceptor
(`rmalab run -n 2`); BINDIR holds the test programs, built with plain
mpicc -g. Each case runs one program and checks its stdout, stderr, exit
status, and that no process of it is left. Exits 1 with the reasons when
a check fails."""
import os
import re
import signal
import subprocess
import sys
import time

case, bindir, launch = sys.argv[1], sys.argv[2], sys.argv[3:]
fails = []


def run(prog, *args, env=None, cmd=None):
    full = (cmd or launch) + [os.path.join(bindir, prog), *args]
    e = dict(os.environ, **(env or {}))
    try:
        p = subprocess.run(full, capture_output=True, text=True, timeout=90, env=e)
    except subprocess.TimeoutExpired as t:
        fails.append(f"{' '.join(full)}: hung (no end within 90 s)")
        # what a timed-out run printed may come back as bytes, text=True or not
        text = [x.decode(errors="replace") if isinstance(x, bytes) else x or ""
                for x in (t.stdout, t.stderr)]
        return -1, text[0], text[1]
    return p.returncode, p.stdout, p.stderr


def expect(what, ok):
    if not ok:
        fails.append(what)


def left(prog):
    """Processes of prog still alive a moment after the job ended."""
    time.sleep(0.5)
    out = subprocess.run(["pgrep", "-f", os.path.join(bindir, prog)],
                         capture_output=True, text=True).stdout
    return out.split()


def line_of(src, text):
    for i, l in enumerate(open(os.path.join(os.path.dirname(__file__), src)), 1):
        if text in l:
            return i
    raise SystemExit(f"{src}: no line holds {text!r}")


def put_noepoch():
    rc, out, err = run("put-noepoch")
    n = line_of("put-noepoch.c", "MPI_Put(")
    lines = err.strip().splitlines()
    expect(f"exit status {rc}, wanted non-zero", rc != 0)
    expect(f"stderr is not one error line: {err!r}", len(lines) == 1)
    expect(f"not put-noepoch.c:{n}: error: MPI_Put: ... naming the fix: {err!r}",
           re.search(rf"put-noepoch\.c:{n}: error: MPI_Put: .*access epoch.*"
                     r"MPI_Win_fence.*MPI_Win_lock", err))
    expect(f"processes left: {left('put-noepoch')}", not left("put-noepoch"))


def same(prog, lines):
    """prog says the same under rmalab run as under plain mpiexec, and
    rmalab nothing."""
    rc0, out0, err0 = run(prog, cmd=["mpiexec", "-n", "2"])
    rc, out, err = run(prog)
    expect(f"plain run failed: {rc0} {err0!r}", rc0 == 0)
    expect(f"exit status {rc}, wanted 0", rc == 0)
    expect(f"stderr not empty: {err!r}", err == "")
    expect(f"stdout differs from plain mpiexec's:\n{out}\n---\n{out0}",
           sorted(out.splitlines()) == sorted(out0.splitlines()))
    expect(f"the program printed {len(out.splitlines())} lines, not {lines}",
           len(out.splitlines()) == lines)


def correct():
    same("correct", 14)


def race():
    rc, out, err = run("race-fence")
    a, b = line_of("race-fence.c", "MPI_Put(&v, 1, MPI_INT, 0, 2"), 0
    b = a + 2
    expect(f"exit status {rc}, wanted non-zero", rc != 0)
    races = [l for l in err.splitlines() if ": race: " in l]
    expect(f"not one race line: {err!r}", len(races) == 1)
    expect(f"the race line does not name lines {a} and {b}: {err!r}",
           races and re.search(rf"race-fence\.c:{a}: race: MPI_Put .*race-fence\.c:{b}", races[0]))


def hint():
    rc, out, err = run("hint-unknown")
    n = line_of("hint-unknown.c", "MPI_Win_allocate(")
    expect(f"exit status {rc}, wanted 0", rc == 0)
    expect(f"no warning for no_lock (did you mean no_locks?) at line {n}: {err!r}",
           re.search(rf"hint-unknown\.c:{n}: warning: MPI_Win_allocate: no_lock: .*no_locks", err))
    expect(f"no warning for the bad accumulate_ordering value: {err!r}",
           re.search(rf"hint-unknown\.c:{n}: warning: .*accumulate_ordering.*rawr", err))
    expect(f"not exactly two warnings: {err!r}", len(err.strip().splitlines()) == 2)


def unaligned():
    rc, out, err = run("unaligned")
    n = line_of("unaligned.c", "MPI_Win_create(")
    expect(f"exit status {rc}, wanted non-zero", rc not in (0, -1))
    expect(f"no error at line {n} about alignment: {err!r}",
           re.search(rf"unaligned\.c:{n}: error: MPI_Win_create: .*16-byte", err))
    expect(f"processes left: {left('unaligned')}", not left("unaligned"))


def large_count():
    rc, out, err = run("large-count")
    n = line_of("large-count.c", "MPI_Error_class(MPI_Put_c")
    expect(f"not one error line at {n} per rank: {err!r}",
           len(re.findall(rf"large-count\.c:{n}: error: MPI_Put_c: .*access epoch", err)) == 2)
    expect(f"wrong results: {out!r}",
           sorted(out.splitlines()) == ["rank 0: MPI_ERR_RMA_SYNC, base[9] 11, got 10",
                                        "rank 1: MPI_ERR_RMA_SYNC, base[9] 10, got 11"])
    expect(f"exit status {rc}, wanted non-zero (an error was found)", rc not in (0, -1))


def errors_return():
    rc, out, err = run("errors-return")
    n = line_of("errors-return.c", "int rc = MPI_Put(")
    expect(f"the class did not come back: {out!r}",
           out.count("put with no epoch: MPI_ERR_RMA_SYNC") == 2)
    expect(f"the program did not go on: {out!r}", "rank 0: base[3] = 1" in out)
    expect(f"no error line at {n}: {err!r}", re.search(rf"errors-return\.c:{n}: error: MPI_Put", err))
    expect(f"exit status {rc}, wanted non-zero (an error was found)", rc != 0)
    expect(f"a fence wrong on one rank did not fail on both: {out!r}",
           out.count("a fence wrong on one rank: MPI_ERR_ARG, then 2 ranks in step") == 2)
    n = line_of("errors-return.c", "rc = MPI_Win_fence(rank == size - 1")
    expect(f"no own error and 'another rank failed' at {n}: {err!r}",
           re.search(rf"errors-return\.c:{n}: error: MPI_Win_fence: the assertion", err) and
           re.search(rf"errors-return\.c:{n}: error: MPI_Win_fence: .*another rank failed", err))


def dtype_rules():
    """Accumulates whose elements differ (a vector of int against one of
    double; a struct of int and double against ints: their signatures
    differ) and a put whose sides differ in
    size: MPI_ERR_TYPE at each line; a put from an indexed type to a vector
    lands. MPI_MAXLOC on MPI_INT and MPI_SUM on MPI_2INT: MPI_ERR_OP; a
    MPI_MAXLOC of two MPI_2INT, one of them picked by a vector, and a
    MPI_Fetch_and_op's MPI_MINLOC of one land. A target type reaching 4
    bytes before its displacement: MPI_ERR_RMA_RANGE at displacement 0,
    lands at 6. An accumulate through a struct of two MPI_INT lands."""
    rc, out, err = run("dtype-rules")
    for i, (call, why, cls) in enumerate([
            ("e[0] = MPI_Accumulate(", "same predefined type", "TYPE"),
            ("e[1] = MPI_Accumulate(", "type signatures of the origin and the target differ "
             "at element 1: double on the origin, int32 on the target", "TYPE"),
            ("e[2] = MPI_Put(", "the origin gives 12 bytes and the target takes 16", "TYPE"),
            ("e[3] = MPI_Accumulate(", "MPI_MAXLOC and MPI_MINLOC take pair types", "OP"),
            ("e[4] = MPI_Accumulate(", "on pair types .* takes MPI_MAXLOC, MPI_MINLOC", "OP"),
            ("e[5] = MPI_Put(", "the target datatype starts 4 bytes before displacement 0 "
             r"\(x disp_unit 4\), before the start", "RMA_RANGE")]):
        n = line_of("dtype-rules.c", call)
        expect(f"no error line at {n} saying {why!r}: {err!r}",
               re.search(rf"dtype-rules\.c:{n}: error: .*{why}", err))
        expect(f"call {i} did not return MPI_ERR_{cls}: {out!r}",
               out.count(f"call {i}: MPI_ERR_{cls}") == 2)
    expect(f"not 6 error lines per rank: {err!r}", err.count(": error: ") == 12)
    expect(f"the indexed put did not land: {out!r}",
           out.count("put done, window 1 0 5 0 6 0") == 2)
    for r in (0, 1):  # maxloc: (7, peer's) beats (5, 5); minloc: (3, peer's) beats (5, 5)
        expect(f"the maxloc or the fetch_and_op did not land on rank {r}: {out!r}",
               f"rank {r}: maxloc done, window 7 {11 - r} 3 {21 - r}, fetched 5 5" in out)
    expect(f"the put before its displacement did not land: {out!r}",
           out.count("back done, window 3 1 0 2") == 2)
    expect(f"the accumulate through a struct of two MPI_INT did not land: {out!r}",
           out.count("struct done, window 1 0 3") == 2)
    expect(f"exit status {rc}, wanted non-zero (errors were found)", rc != 0)


def rules_more():
    """rules-more.c: a put between struct {int, double} and struct {double,
    int} is MPI_ERR_TYPE (their signatures differ, not their sizes); a
    struct to another layout and two ints to a MPI_2INT land, as do a put
    and an accumulate from a struct {MPI_LB, MPI_INT, MPI_UB} to ints; accumulates
    of MPI_LONG_DOUBLE and MPI_C_DOUBLE_COMPLEX land, MPI_MAX on a complex
    is MPI_ERR_OP; a negative count is MPI_ERR_COUNT (int and _c forms);
    MPI_Cancel of an RMA request cancels nothing, and MPI_Request_free of
    one in flight leaves it to the epoch, without a crash."""
    rc, out, err = run("rules-more")
    for i, (call, why, cls) in enumerate([
            ("e[n++] = MPI_Put(&src, 1, id_t, peer, 0, 1, di_t", "type signatures of the origin "
             "and the target differ at element 0: int32 on the origin, double", "TYPE"),
            ("e[n++] = MPI_Put(&src, 1, id_t, peer, 64", None, "SUCCESS"),
            ("e[n++] = MPI_Put(two, 2, MPI_INT, peer, 128", None, "SUCCESS"),
            ("e[n++] = MPI_Put(quad, 2, lbub", None, "SUCCESS"),
            ("e[n++] = MPI_Accumulate(quad, 2, lbub", None, "SUCCESS"),
            ("MPI_LONG_DOUBLE, MPI_SUM", None, "SUCCESS"),
            ("176, 1, MPI_C_DOUBLE_COMPLEX", None, "SUCCESS"),
            ("192, 1, MPI_C_DOUBLE_COMPLEX", "MPI defines no max on MPI_C_DOUBLE_COMPLEX", "OP"),
            ("MPI_Put(two, -1", "the origin count -1 is negative", "COUNT"),
            ("MPI_Put_c(two, -2", "the origin count -2 is negative", "COUNT")]):
        n = line_of("rules-more.c", call)
        if why:
            expect(f"no error line at {n} saying {why!r}: {err!r}",
                   len(re.findall(rf"rules-more\.c:{n}: error: .*{why}", err)) == 2)
        res = "MPI_SUCCESS" if cls == "SUCCESS" else "MPI_ERR_" + cls
        expect(f"call {i} did not return {res}: {out!r}", out.count(f"call {i}: {res}\n") == 2)
    expect(f"not 4 error lines per rank: {err!r}", err.count(": error: ") == 8)
    expect(f"a race or a crash: {err!r}", not re.search(r"race:|signal|Fatal error", err))
    expect(f"the puts did not land: {out!r}", out.count("struct 7 2.5, pair 4 5") == 2)
    expect(f"the bounded struct's put or accumulate: {out!r}",
           out.count("bounded 7 9, 7 9") == 2)
    expect(f"the accumulates did not land: {out!r}",
           out.count("long double 2.50, complex 4+2i") == 2)
    expect(f"the cancel or the free: {out!r}", out.count("cancelled 0, got 0") == 2)
    expect(f"exit status {rc}, wanted non-zero (errors were found)", rc not in (0, -1))


def ends(how):
    rc, out, err = run("ends", how)
    expect(f"{how}: exit status {rc}, wanted non-zero", rc not in (0, -1))
    expect(f"{how}: processes left: {left('ends')}", not left("ends"))


def stopped(sig):
    """The job of a hanging program, ended by a signal to rmalab run."""
    prog = os.path.join(bindir, "ends")
    p = subprocess.Popen(launch + [prog, "hang"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    for _ in range(100):  # both ranks started
        time.sleep(0.1)
        pids = subprocess.run(["pgrep", "-f", prog + " hang"], capture_output=True,
                              text=True).stdout.split()
        if len(pids) >= 3:  # mpiexec (rmalab became it) and the 2 ranks
            break
    time.sleep(0.5)
    p.send_signal(sig)
    try:
        rc = p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = p.wait()
        fails.append(f"signal {sig}: rmalab run did not end within 30 s")
    expect(f"signal {sig}: exit status {rc}, wanted non-zero", rc != 0)
    expect(f"signal {sig}: processes left: {left('ends')}", not left("ends"))


def stuck():
    """A start whose target never posts: each rank's line says where it
    waits and, across ranks, for what; then the deadlock in one line."""
    prog = os.path.join(bindir, "stuck")
    start = line_of("stuck.c", "MPI_Put(")
    barrier = line_of("stuck.c", "MPI_Barrier(")
    with open(os.path.join(bindir, "stuck.err"), "w+") as err:
        p = subprocess.Popen(launch + [prog], stdout=subprocess.DEVNULL, stderr=err,
                             env=dict(os.environ, RMALAB_STUCK="1"))
        text = ""
        for _ in range(300):
            time.sleep(0.1)
            err.seek(0)
            text = err.read()
            if "deadlock:" in text:
                break
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=30)
    expect(f"no note of rank 0 in MPI_Put at line {start}, waiting for rank 1's post: {text!r}",
           re.search(rf"stuck\.c:{start}: note: MPI_Put: rank 0 is blocked in MPI_Put\(\) until "
                     r"rank 1 calls MPI_Win_post\(\) \([\d.]+ s\); access epoch to \{1\}: "
                     r"MPI_Win_post\(\) arrived from 0 of 1, missing \{1\}", text))
    expect(f"no note of rank 1 in MPI_Barrier at line {barrier}: {text!r}",
           re.search(rf"stuck\.c:{barrier}: note: MPI_Barrier: rank 1 is blocked in the "
                     r"collective MPI_Barrier\(\); rank 0 is blocked in MPI_Put\(\) until rank 1 "
                     r"calls MPI_Win_post\(\)", text))
    expect(f"no line for the deadlock: {text!r}",
           "rmalab run: deadlock: rank 0 waits for rank 1's MPI_Win_post(), rank 1 waits for "
           "rank 0's MPI_Barrier(); the job cannot go on: Ctrl-C ends it" in text)
    expect(f"a note twice for one call: {text!r}", text.count(": note: ") == 2)
    expect(f"processes left: {left('stuck')}", not left("stuck"))


def bytes40():
    rc, out, err = run("bytes40")
    expect(f"exit status {rc}: {out}{err}", rc == 0)
    expect(f"wrong bytes: {out!r}", out.count("0 of 24 bytes wrong") == 2)


def bridge():
    rc, out, err = run("bridge")
    put = line_of("bridge.c", "MPI_Put(&v")
    store, load = put + 1, line_of("bridge.c", "seen = base[1]")
    races = [l for l in err.splitlines() if ": race: " in l]
    expect(f"exit status {rc}, wanted non-zero", rc != 0)
    expect(f"not two race lines: {err!r}", len(races) == 2)
    expect(f"no race of the store at {store} with the put at {put}: {err!r}",
           re.search(rf"bridge\.c:{store}: race: store of the origin buffer of MPI_Put at "
                     rf"\S*bridge\.c:{put} ", err))
    expect(f"no race of the load at {load} with the put at {put}: {err!r}",
           re.search(rf"bridge\.c:{load}: race: load by rank 0 .*MPI_Put at \S*bridge\.c:{put} ",
                     err))
    expect(f"the store after the fence was reported: {err!r}", f"bridge.c:{put + 6}:" not in err)
    rc0, out0, err0 = run("bridge", cmd=["mpiexec", "-n", "2"])
    expect(f"plain mpiexec: {rc0} {err0!r}", rc0 == 0 and err0 == "")


def usage():
    p = subprocess.run(launch, capture_output=True, text=True, timeout=30)
    expect(f"no program: exit {p.returncode}, wanted 2: {p.stderr!r}",
           p.returncode == 2 and "rmalab run: no program to run" in p.stderr)
    rc, out, err = run("no-such-program")
    expect(f"a missing program: exit {rc}, wanted 127 and one line: {err!r}",
           rc == 127 and err == f"rmalab run: {os.path.join(bindir, 'no-such-program')}: "
           "No such file or directory\n")
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "correct.c")
    p = subprocess.run(launch + [src], capture_output=True, text=True, timeout=30)
    expect(f"a source file: exit {p.returncode}, wanted 126 and one line: {p.stderr!r}",
           p.returncode == 126 and p.stderr == f"rmalab run: {src}: Permission denied\n")
    p = subprocess.run(launch + ["no-such-command-here"], capture_output=True, text=True,
                       timeout=30)
    expect(f"a name not on PATH: exit {p.returncode}: {p.stderr!r}",
           p.returncode == 127 and "no-such-command-here: command not found" in p.stderr)
    p = subprocess.run(launch[:2] + ["--help"], capture_output=True, text=True, timeout=30)
    expect(f"--help: {p.returncode} {p.stdout!r}",
           p.returncode == 0 and p.stdout.startswith("Usage: rmalab run"))


def attrs():
    """(Plain MPICH 4.0.2 gives one rank another MPI_WIN_BASE.)"""
    rc, out, err = run("attrs")
    want = "size 40, base the one returned, disp_unit 4, flavor allocate, model unified\n"
    expect(f"exit status {rc}, stderr {err!r}", rc == 0 and err == "")
    expect(f"wrong attributes: {out!r}", out == want * 2)


def dynamic():
    """Dynamic windows over the program's memory at an odd address."""
    rc0, out0, err0 = run("dynamic", "ok", cmd=["mpiexec", "-n", "2"])
    rc, out, err = run("dynamic", "ok")
    expect(f"ok: exit status {rc}, stderr {err!r}", rc == 0 and err == "")
    expect(f"ok: the puts did not land: {out!r}",
           sorted(out.splitlines()) == ["rank 0 got 1001", "rank 1 got 1000"])
    expect(f"ok: plain mpiexec says otherwise: {out0!r}",
           sorted(out0.splitlines()) == sorted(out.splitlines()))
    rc, out, err = run("dynamic", "bad")
    n = line_of("dynamic.c", "all[1] + 64")
    expect(f"bad: exit status {rc}, wanted non-zero", rc not in (0, -1))
    expect(f"bad: no error at line {n} naming the attached memory: {err!r}",
           re.search(rf"dynamic\.c:{n}: error: MPI_Put: .*not inside memory rank 1 has "
                     r"attached", err))
    expect(f"bad: the program did not go on: {out!r}", "rank 0: the put returned an error" in out)
    rc, out, err = run("dynamic", "race")
    n = line_of("dynamic.c", "all[0] + 4")
    expect(f"race: exit status {rc}, wanted non-zero", rc not in (0, -1))
    expect(f"race: no race line for the two puts at line {n}: {err!r}",
           re.search(rf"dynamic\.c:{n}: race: MPI_Put .*dynamic\.c:{n}", err))


def info():
    """MPI_Win_set_info's diagnostics at its line; get_info in effect.
    (Plain MPICH 4.0.2 ends the job on the bad accumulate_ordering.)"""
    rc, out, err = run("info")
    n = line_of("info.c", "MPI_Win_set_info(")
    expect(f"exit status {rc}, wanted 0 (warnings only)", rc == 0)
    expect(f"no warning for no_lokcs (did you mean no_locks?) at line {n}: {err!r}",
           re.search(rf"info\.c:{n}: warning: MPI_Win_set_info: no_lokcs: .*no_locks", err))
    expect(f"no warning for accumulate_ordering's value at line {n}: {err!r}",
           re.search(rf"info\.c:{n}: warning: MPI_Win_set_info: accumulate_ordering: .*sideways",
                     err))
    expect(f"not two warnings (rank 0 only): {err!r}", len(err.strip().splitlines()) == 2)
    want = [f"rank {r} {w}" for r in (0, 1) for w in
            ("at first: no_locks false, rmalab_pscw rma",
             "after set_info: no_locks true, rmalab_pscw rma")]
    expect(f"hints in effect: {out!r}", sorted(out.splitlines()) == sorted(want))


def handles():
    """Bad handles: MPI's error class at the line, never a crash."""
    for mode, text, cls in (("null", "MPI_Win_fence(0, MPI_WIN_NULL)", "the window is MPI_WIN_NULL"),
                            ("bogus", "(MPI_Win)0x12345678", "Invalid MPI_Win"),
                            ("type", "MPI_DATATYPE_NULL, 1 - me",
                             "the origin datatype is MPI_DATATYPE_NULL"),
                            ("freed", "rc = MPI_Win_free(&again)",
                             "this window was freed by MPI_Win_free at .*handles\\.c:")):
        rc, out, err = run("handles", mode)
        n = line_of("handles.c", text)
        expect(f"{mode}: exit status {rc}, wanted non-zero", rc not in (0, -1))
        expect(f"{mode}: not one error line per rank at line {n} ({cls}): {err!r}",
               len(re.findall(rf"handles\.c:{n}: error: MPI_Win_\w+|handles\.c:{n}: error: MPI_Put",
                              err)) == 2 and re.search(cls, err))
        expect(f"{mode}: the program did not go on with an error class: {out!r}",
               len(out.splitlines()) == 2 and "success" not in out)
    handles_types()
    for mode, text in (("fatal-win", "MPI_INT, (MPI_Win)0x12345678)"),
                       ("fatal-type", "(MPI_Datatype)0x8c000077, 1 - me, 0, 1, MPI_INT, MPI_SUM, win);")):
        rc, out, err = run("handles", mode)
        n = line_of("handles.c", text)
        expect(f"{mode}: exit status {rc}, wanted non-zero", rc not in (0, -1))
        expect(f"{mode}: no error line at {n}: {err!r}",
               re.search(rf"^\S*handles\.c:{n}: error: MPI_(Put|Accumulate): ", err, re.M))
        expect(f"{mode}: MPICH's own abort or a crash, not rmalab's line: {err!r}",
               not re.search(r"Fatal error|Assertion failed|signal 11", err))
        expect(f"{mode}: the program went on: {out!r}", out == "")
        expect(f"{mode}: processes left: {left('handles')}", not left("handles"))


def handles_types():
    """Bad datatypes (bogus, freed, uncommitted, of MPICH's direct kind) and
    MPI_OP_NULL, which MPICH aborts, asserts or crashes on when rmalab
    read them: each an error at its line, and the program goes on."""
    rc, out, err = run("handles", "types")
    for i, (text, why, cls) in enumerate((
            ("(MPI_Datatype)0x12345678, 1 - me", "the origin datatype: it is neither predefined nor committed", "MPI_ERR_TYPE"),
            ("rc[1] = MPI_Put(v, 1, gone", "this datatype was freed by MPI_Type_free at \\S*handles\\.c:", "MPI_ERR_TYPE"),
            ("rc[2] = MPI_Get(", "the target datatype: it is neither predefined nor committed", "MPI_ERR_TYPE"),
            ("rc[3] = MPI_Accumulate(", "the origin datatype: it is neither", "MPI_ERR_TYPE"),
            ("MPI_OP_NULL, win);", "the op is MPI_OP_NULL", "MPI_ERR_OP"))):
        n = line_of("handles.c", text)
        expect(f"types: not one error line per rank at {n} saying {why!r}: {err!r}",
               len(re.findall(rf"^\S*handles\.c:{n}: error: MPI_\w+: .*{why}", err, re.M)) == 2)
        expect(f"types: call {i} did not return {cls}: {out!r}", out.count(f"types {i}: {cls}") == 2)
    expect(f"types: not 5 error lines per rank: {err!r}", err.count(": error: ") == 10)
    expect(f"types: MPICH's own abort or a crash: {err!r}",
           not re.search(r"Fatal error|Assertion failed|signal 11", err))
    expect(f"types: exit status {rc}, wanted non-zero", rc not in (0, -1))


cases = {"nullbase": lambda: same("nullbase", 2), "manywins": lambda: same("manywins", 2),
         "zerocount": lambda: same("zerocount", 2), "dtype-rules": dtype_rules, "rules-more": rules_more, "dynspan": lambda: same("dynspan", 2),
         "handles": handles, "info": info, "dynamic": dynamic, "requests": lambda: same("requests", 3), "requests-mixed": lambda: same("requests-mixed", 12), "attrs": attrs, "large-count": large_count, "unaligned": unaligned, "usage": usage, "stuck": stuck, "bridge": bridge, "put-noepoch": put_noepoch, "correct": correct, "race": race, "hint": hint,
         "errors-return": errors_return, "abort": lambda: ends("abort"),
         "segv": lambda: ends("segv"), "interrupt": lambda: stopped(signal.SIGINT),
         "terminate": lambda: stopped(signal.SIGTERM), "bytes40": bytes40}
cases[case]()
for f in fails:
    print(f"{case}: {f}")
sys.exit(1 if fails else 0)
