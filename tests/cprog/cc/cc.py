#!/usr/bin/env python3
"""rmalab cc, checked as projects and people use it (docs/c.md, "Building
with rmalab cc").

usage: cc.py CASE RMALAB SRCDIR HOOKS_SO

CASE is one of:
  one-command  rmalab cc a.c b.c -I -l -fopenmp -o prog, against mpicc's build
  separate     -c and -o steps, then the link; -c with no -o
  make         the ring project with make CC="rmalab cc"
  meson        the ring project configured with CC="rmalab cc"
  cmake        the same with CMake (skips, 77, without cmake)
  errors       a compile error, a missing file, a link error, a program that
               is not an MPI program, a C++ source
  probes       --version, -E -dM, -show, -print-*, --help, no arguments
  hooks        hooks.so preloaded onto watch.c: each access to the watched
               array arrives with its size, kind and line; no other does
  omp          #pragma omp atomic gives the right sums, watched or not
  shlib        a shared library that rmalab cc built is checked under rmalab
               run as the program is: its store racing a put is reported at
               its own line, and the same store after the fence is not

Every program runs under plain `mpiexec -n 2` (hooks and omp: 1 rank) and
prints what its mpicc build prints. Each check prints "ok" or "FAIL"; the
exit status is 1 if any failed."""
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

case, rmalab, src, hooks_so = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3]), sys.argv[4]
CC = [rmalab, "cc"]
failed = []


def check(ok, what, detail=""):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failed.append(what)
        if detail:
            print("     " + str(detail).replace("\n", "\n     "))


def sh(cmd, cwd, env=None, timeout=120):
    e = dict(os.environ, **(env or {}))
    return subprocess.run(cmd, cwd=cwd, env=e, capture_output=True, text=True, timeout=timeout)


def mpirun(prog, cwd, n=2, extra=()):
    return sh(["mpiexec", "-n", str(n), *extra, prog], cwd)


def instrumented(prog, what):
    """The program defines the runtime's entry points and does not use libtsan."""
    nm = sh(["nm", prog], ".").stdout
    defined = re.findall(r"^\S+ [Tt] (__tsan_\w+)$", nm, re.M)
    undefined = re.findall(r"^\s+U (__tsan_\w+)", nm, re.M)
    calls = re.search(r"call.*<__tsan_(read|write)\d+>", sh(["objdump", "-d", prog], ".").stdout)
    ldd = sh(["ldd", prog], ".").stdout
    check("__tsan_read8" in defined and "__tsan_write8" in defined and "__tsan_init" in defined
          and not undefined, f"{what}: nm shows __tsan_read8, __tsan_write8, __tsan_init "
          f"defined, none undefined", f"{len(defined)} defined, undefined {undefined}")
    check(bool(calls), f"{what}: the program's code calls __tsan_readN/__tsan_writeN")
    check("tsan" not in ldd and "libtsan" not in nm, f"{what}: no libtsan", ldd)


def same_run(prog, ref, cwd, what, n=2):
    a, b = mpirun(prog, cwd, n), mpirun(ref, cwd, n)
    check(a.returncode == 0 and a.stdout == b.stdout and a.stdout.strip() != "",
          f"{what}: under mpiexec -n {n}, the same output as the mpicc build",
          f"rmalab cc build (status {a.returncode}):\n{a.stdout}{a.stderr}\nmpicc build:\n{b.stdout}")


def project(tmp):
    d = pathlib.Path(tmp) / "prog"
    shutil.copytree(src / "prog", d)
    return d


RING = ["-O2", "-fopenmp", "-Iinclude", "ring.c", "util.c", "-lm"]


def one_command(tmp):
    d = project(tmp)
    scratch = pathlib.Path(tmp) / "scratch"
    scratch.mkdir()
    r = sh(CC + RING + ["-o", "ring"], d, env={"TMPDIR": str(scratch)})
    check(r.returncode == 0 and r.stderr == "", "rmalab cc ... ring.c util.c -lm -o ring",
          r.stderr)
    check(list(scratch.iterdir()) == [], "its temporary objects are removed",
          list(scratch.rglob("*")))
    sh(["mpicc"] + RING + ["-o", "ring0"], d)
    instrumented(str(d / "ring"), "one command")
    same_run("./ring", "./ring0", d, "one command")


def separate(tmp):
    d = project(tmp)
    steps = [CC + ["-O2", "-fopenmp", "-Iinclude", "-c", "ring.c", "-o", "ring.o"],
             CC + ["-O2", "-Iinclude", "-c", "util.c"],  # util.o, as gcc names it
             CC + ["-fopenmp", "ring.o", "util.o", "-lm", "-o", "ring"]]
    for s in steps:
        r = sh(s, d)
        check(r.returncode == 0 and r.stderr == "", " ".join(s[1:]), r.stderr)
    nm = sh(["nm", "ring.o"], d).stdout
    check(re.search(r"U __tsan_write8", nm) and "__tsan_func_entry" not in nm,
          "the object of -c calls __tsan_write8, and no __tsan_func_entry", nm[:400])
    s = sh(CC + ["-O2", "-Iinclude", "-S", "util.c", "-o", "util.s"], d)
    check(s.returncode == 0 and "__tsan_" in (d / "util.s").read_text(),
          "-S gives instrumented assembly")
    sh(["mpicc", "-O2", "-fopenmp", "-Iinclude", "ring.c", "util.c", "-lm", "-o", "ring0"], d)
    instrumented(str(d / "ring"), "separate steps")
    same_run("./ring", "./ring0", d, "separate steps")


def make(tmp):
    d = project(tmp)
    r = sh(["make", f"CC={rmalab} cc"], d)
    check(r.returncode == 0, "make CC=\"rmalab cc\"", r.stdout + r.stderr)
    sh(["make", "clean"], d)
    sh(["mpicc"] + RING + ["-o", "ring0"], d)
    instrumented(str(d / "ring"), "make")
    same_run("./ring", "./ring0", d, "make")


def meson(tmp):
    d = project(tmp)
    r = sh(["meson", "setup", "b"], d, env={"CC": f"{rmalab} cc"})
    check(r.returncode == 0, "meson setup with CC=\"rmalab cc\"", r.stdout[-2000:] + r.stderr)
    log = (d / "b" / "meson-logs" / "meson-log.txt").read_text() if r.returncode == 0 else ""
    check("C compiler for the host machine: " in log and "gcc" in log,
          "meson takes rmalab cc for gcc")
    r = sh(["ninja", "-C", "b"], d)
    check(r.returncode == 0, "ninja builds it", r.stdout[-2000:])
    sh(["mpicc"] + RING + ["-o", "ring0"], d)
    instrumented(str(d / "b" / "ring"), "meson")
    same_run("b/ring", "./ring0", d, "meson")


def cmake(tmp):
    if not shutil.which("cmake"):
        print("SKIP: cmake is not installed")
        sys.exit(77)
    d = project(tmp)
    r = sh(["cmake", "-S", ".", "-B", "b"], d, env={"CC": f"{rmalab} cc"})
    check(r.returncode == 0 and "The C compiler identification is GNU" in r.stdout
          and "Found OpenMP_C" in r.stdout, "cmake with CC=\"rmalab cc\": GNU, OpenMP found",
          r.stdout[-2000:] + r.stderr)
    r = sh(["cmake", "--build", "b"], d)
    check(r.returncode == 0, "cmake --build", r.stdout[-2000:] + r.stderr)
    sh(["mpicc"] + RING + ["-o", "ring0"], d)
    instrumented(str(d / "b" / "ring"), "cmake")
    same_run("b/ring", "./ring0", d, "cmake")


def same_failure(args, d, what, n_files=1):
    a, b = sh(CC + args, d), sh(["mpicc"] + args, d)
    check(a.returncode == b.returncode and a.returncode != 0 and a.stderr == b.stderr
          and a.stdout == b.stdout, f"{what}: mpicc's message and status ({b.returncode})",
          f"rmalab cc ({a.returncode}):\n{a.stderr}\nmpicc ({b.returncode}):\n{b.stderr}")
    return a


def errors(tmp):
    d = pathlib.Path(tmp)
    for f in ["bad.c", "hello.c"]:
        shutil.copy(src / f, d)
    r = same_failure(["bad.c", "-o", "bad"], d, "a compile error, one command")
    check("bad.c:7:5: error: expected" in r.stderr, "its line and gcc's words", r.stderr)
    same_failure(["-c", "bad.c"], d, "a compile error, -c")
    same_failure(["-O2", "hello.c", "bad.c", "-o", "x"], d, "a compile error in the second file")
    check(not (d / "x").exists(), "no program after a compile error")
    same_failure(["nothere.c", "-o", "x"], d, "a missing file, one command")
    same_failure(["-c", "nothere.c"], d, "a missing file, -c")
    same_failure(["nothere.o", "-o", "x"], d, "a missing object at the link")
    (d / "undef.c").write_text("void nothere(void);\nint main(void)\n{\n    nothere();\n"
                               "    return 0;\n}\n")
    a = sh(CC + ["undef.c", "-o", "x"], d)
    check(a.returncode == 1 and "undefined reference to `nothere'" in a.stderr,
          "a link error: the linker's message, status 1", a.stderr)
    r = sh(CC + ["hello.c", "-o", "hello"], d)
    sh(["mpicc", "hello.c", "-o", "hello0"], d)
    check(r.returncode == 0, "a program that is not an MPI program builds", r.stderr)
    a, b = sh(["./hello"], d), sh(["./hello0"], d)
    check(a.stdout == b.stdout == "sum 10\n", "and prints what its mpicc build prints",
          a.stdout + a.stderr)
    (d / "x.cpp").write_text("int main() { return 0; }\n")
    r = sh(CC + ["x.cpp", "-o", "x"], d)
    check(r.returncode == 1 and "x.cpp: C++ is not supported" in r.stderr,
          "a C++ source: a clear error, status 1", r.stderr)


def probes(tmp):
    d = pathlib.Path(tmp)
    (d / "t.c").write_text("int main(void) { return 0; }\n")
    for args in (["--version"], ["-dumpversion"], ["-show"], ["-E", "-dM", "-x", "c",
                                                               "/dev/null"],
                 ["-print-file-name=libc.so"], ["-print-search-dirs"], ["-E", "t.c"],
                 ["-M", "t.c"], ["-fsyntax-only", "t.c"], ["-v"]):
        a, b = sh(CC + args, d), sh(["mpicc"] + args, d)
        check(a.returncode == b.returncode and a.stdout == b.stdout and a.stderr == b.stderr,
              f"{' '.join(args)}: as mpicc", a.stdout[:300] + a.stderr[:300])
    r = sh(CC + ["-E", "-dM", "-x", "c", "/dev/null"], d)
    check("__SANITIZE_THREAD__" not in r.stdout, "-E -dM: a probe is not instrumented")
    r = sh(CC + ["-c", "-dM", "-E", "t.c"], d)
    check("__SANITIZE_THREAD__" not in r.stdout, "-c with -E: -E wins, as in gcc")
    r = sh(CC + ["--help"], d)
    check(r.returncode == 0 and r.stdout.startswith("Usage: rmalab cc"), "--help: the usage")
    r = sh(CC, d)
    check(r.returncode == 2 and r.stderr.startswith("Usage: rmalab cc"),
          "no arguments: the usage on stderr, status 2", r.stderr)
    r = sh([rmalab, "--help"], d)
    check("rmalab cc [mpicc arguments]" in r.stdout, "rmalab --help names rmalab cc")


def expected_accesses(path):
    out = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        m = re.search(r"expect: ([RW]) (\d+) (\d+) \*/", line)
        if m:
            out.append((int(m.group(3)), int(m.group(2)), int(m.group(1) == "W"), n))
    return sorted(out)


def logged(log, prog):
    """The accesses hooks.so logged, each with its pc's line (addr2line of pc - 1)."""
    lines = log.read_text().splitlines()
    recs = [ln.split() for ln in lines if ln.startswith("ACCESS ")]
    pcs = [hex(int(r[4].rsplit("+", 1)[1], 16) - 1) for r in recs]
    where = sh(["addr2line", "-e", prog] + pcs, ".").stdout.split() if pcs else []
    got = [(int(r[1]), int(r[2]), int(r[3]), int(w.rsplit(":", 1)[1].split()[0]))
           for r, w in zip(recs, where)]
    return lines, sorted(got), where


def hooks(tmp):
    d = pathlib.Path(tmp)
    shutil.copy(src / "watch.c", d)
    r = sh(CC + ["-O0", "watch.c", "-o", "watch"], d)
    check(r.returncode == 0, "rmalab cc -O0 watch.c", r.stderr)
    plain = mpirun("./watch", d, 1)
    log = d / "hooks.log"
    env = {"HOOKS_LOG": str(log)}
    w = sh(["mpiexec", "-n", "1", "-genv", "LD_PRELOAD", hooks_so, "./watch"], d, env=env)
    check(w.returncode == 0 and w.stdout == plain.stdout == "x 0 other[2] 0 v 5\n",
          "the same output with and without hooks.so", plain.stdout + w.stdout + w.stderr)
    lines, got, where = logged(log, str(d / "watch"))
    check(lines[:1] == ["ATTACHED 1"], "__tsan_init called rmalab_run_attach", lines[:2])
    want = expected_accesses(d / "watch.c")
    check(got == want, f"the {len(want)} accesses to the watched array, each with its size, "
          "kind and line, and no other", f"got  {got}\nwant {want}")
    check(all(x.startswith(str(d / "watch.c")) for x in where),
          "each pc is in watch.c", where)


def omp(tmp):
    d = pathlib.Path(tmp)
    shutil.copy(src / "omp.c", d)
    r = sh(CC + ["-O2", "-fopenmp", "omp.c", "-o", "omp"], d)
    sh(["mpicc", "-O2", "-fopenmp", "omp.c", "-o", "omp0"], d)
    check(r.returncode == 0, "rmalab cc -O2 -fopenmp omp.c", r.stderr)
    nm = sh(["nm", "omp"], d).stdout
    check(re.search(r"[Tt] __tsan_atomic64_fetch_add", nm) is not None
          and re.search(r"[Tt] __tsan_atomic32_fetch_add", nm) is not None,
          "omp atomic calls the runtime's __tsan_atomic64_fetch_add and atomic32_fetch_add")
    want = "hits 400000 small 1200000 half 200000\n"
    a, b = mpirun("./omp", d, 1), mpirun("./omp0", d, 1)
    check(a.stdout == b.stdout == want, "the right sums, unwatched, as the mpicc build",
          a.stdout + a.stderr + b.stdout)
    log = d / "hooks.log"
    w = sh(["mpiexec", "-n", "1", "-genv", "LD_PRELOAD", hooks_so, "./omp"], d,
           env={"HOOKS_LOG": str(log)})
    check(w.stdout == want, "the right sums, watched", w.stdout + w.stderr)
    count = log.read_text().splitlines()[1] if log.exists() else ""
    # 800,000 fetch-adds as writes; the double's 400,000 CAS loops as their
    # atomic load (a read); the atomic read of hits, the plain reads of
    # small and half
    check(count == "COUNT 1200003 800000", "each of the 800,000 atomic fetch-adds arrived as a "
          "write, each double update as its load, the final reads as reads", count)


def shlib(tmp):
    d = pathlib.Path(tmp)
    for f in ("shlib.c", "shlib-main.c"):
        shutil.copy(src / f, d)
    lib = sh(CC + ["-g", "-shared", "-fPIC", "shlib.c", "-o", "libshlib.so"], d)
    prog = sh(CC + ["-g", "shlib-main.c", "-L.", "-lshlib", f"-Wl,-rpath,{d}", "-o", "prog"], d)
    check(lib.returncode == 0 and prog.returncode == 0, "rmalab cc builds the library and the "
          "program that links it", lib.stderr + prog.stderr)
    lines = {m: i + 1 for f in ("shlib.c", "shlib-main.c")
             for i, t in enumerate((d / f).read_text().splitlines())
             for m in ("STORE", "PUT") if f"/* {m} */" in t}
    run = [rmalab, "run", "-n", "2", "./prog"]
    racy, quiet = sh(run + ["race"], d), sh(run, d)
    want = re.compile(rf"^shlib-main\.c:{lines['PUT']}: race: .*store at shlib\.c:"
                      rf"{lines['STORE']} by rank 1", re.M)
    check(racy.returncode != 0 and want.search(racy.stdout + racy.stderr) is not None,
          "the library's store in the put's fence epoch: a race at both lines, status non-zero",
          racy.stdout + racy.stderr)
    check(quiet.returncode == 0 and "race" not in quiet.stdout + quiet.stderr
          and quiet.stdout == "done\n", "the same store after the fence: no report, status 0",
          quiet.stdout + quiet.stderr)


cases = {"one-command": one_command, "separate": separate, "make": make, "meson": meson,
         "cmake": cmake, "errors": errors, "probes": probes, "hooks": hooks, "omp": omp,
         "shlib": shlib}
with tempfile.TemporaryDirectory(prefix="rmalab-cc-test.") as tmp:
    cases[case](tmp)
print(f"{case}: {len(failed)} failed" if failed else f"{case}: all passed")
sys.exit(1 if failed else 0)
