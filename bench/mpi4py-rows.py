#!/usr/bin/python3
"""Issue 41's rows with mpi4py, the peer a prototyper would pick instead of
rmalab, so that its figures come from the tree as rmalab's do:

    mpiexec -n 2 -bind-to core python3 bench/mpi4py-rows.py [reps [rounds]]

(Not bench/mpi4py.py: Python puts the script's folder first on its path,
and a script of that name imports itself in place of mpi4py.)

Needs mpi4py built against the same MPICH as rmalab (issue 41 says how:
mpi4py 3.1.6's source, `python3 setup.py build --mpicc=mpicc`, used from
its build folder through PYTHONPATH). Never install Debian's
python3-mpi4py: it brings Open MPI and switches mpicc and mpiexec to it.
When mpi4py cannot be imported, it says so and exits 0 (nothing measured).
The buffer rows use numpy arrays when numpy imports, else array.array.

Each row runs `rounds` times (5) after a warm-up, with a barrier before
each; a run counts as the slower rank's time. Printed: the median µs per
operation (ns for element access), the same rows as bench-comm,
bench-buffer, bench-pscw and bench-instr measure for C and Lua."""
import sys
import time

try:
    from mpi4py import MPI
except ImportError as e:
    print(f"mpi4py-rows.py: mpi4py is not importable here ({e}); nothing measured. Build it "
          "against MPICH (issue 41) and put its build folder on PYTHONPATH.")
    sys.exit(0)

try:
    import numpy

    def doubles(n):
        return numpy.zeros(n, dtype="d")

    def int64s(n):
        return numpy.zeros(n, dtype="q")
    ARRAYS = "numpy " + numpy.__version__
except ImportError:
    import array

    def doubles(n):
        return array.array("d", bytes(8 * n))

    def int64s(n):
        return array.array("q", bytes(8 * n))
    ARRAYS = "array.array (numpy is not importable)"

comm = MPI.COMM_WORLD
me, size = comm.Get_rank(), comm.Get_size()
peer = 1 - me
DOUBLE, INT64 = MPI.DOUBLE, MPI.INT64_T


def pingpong_value(n):
    x = 0.5
    for _ in range(n):
        if me == 0:
            comm.send(x, dest=1)
            x = comm.recv(source=1) + 1
        else:
            x = comm.recv(source=0)
            comm.send(x, dest=0)


def pingpong_buffer(n):
    b = doubles(1)
    for _ in range(n):
        if me == 0:
            comm.Send([b, DOUBLE], dest=1)
            comm.Recv([b, DOUBLE], source=1)
        else:
            comm.Recv([b, DOUBLE], source=0)
            comm.Send([b, DOUBLE], dest=0)


def allreduce(n):
    for i in range(n):
        comm.allreduce(i + 0.5, op=MPI.SUM)


TABLE = [i + 0.25 for i in range(1000)]


def bcast_list(n):
    for _ in range(n):
        comm.bcast(TABLE if me == 0 else None, root=0)


BUF = doubles(1000)


def bcast_buffer(n):
    for _ in range(n):
        comm.Bcast([BUF, DOUBLE], root=0)


def elements(seq, n):
    m = len(seq)
    for i in range(n):
        k = i % m
        seq[k] = seq[k] + 1.0


def element_list(n):
    elements([0.0] * 1000, n)


def element_buffer(n):
    elements(doubles(1000), n)


def with_window(nbytes, body):
    """A window of nbytes (disp_unit 8) made outside the timing."""
    win = MPI.Win.Allocate(nbytes, 8, comm=comm)
    try:
        return body(win)
    finally:
        win.Free()


def put_fence_8mb(n):
    src = doubles(1 << 20)

    def body(win):
        win.Fence()
        for _ in range(n):
            win.Put([src, DOUBLE], peer)
            win.Fence()
    with_window(8 << 20, body)


def pscw(n):
    v = int64s(1)
    group = comm.Get_group().Incl([peer])

    def body(win):
        for i in range(n):
            v[0] = i
            win.Post(group)
            win.Start(group)
            win.Put([v, INT64], peer)
            win.Complete()
            win.Wait()
    with_window(16, body)
    group.Free()


def lock_get(n):
    got = int64s(1)

    def body(win):
        for _ in range(n):
            win.Lock(peer, MPI.LOCK_SHARED)
            win.Get([got, INT64], peer)
            win.Unlock(peer)
    with_window(64, body)


def allocate_free(n):
    for _ in range(n):
        MPI.Win.Allocate(64, 8, comm=comm).Free()


# name, function, repetitions relative to reps, unit
ROWS = [
    ("ping-pong, one number as a value", pingpong_value, 1, "us"),
    ("ping-pong, a 1-element array", pingpong_buffer, 1, "us"),
    ("allreduce of one number", allreduce, 1, "us"),
    ("bcast of 1,000 numbers, list", bcast_list, 0.1, "us"),
    ("bcast of 1,000 doubles, array", bcast_buffer, 0.1, "us"),
    ("element write+read, list", element_list, 10, "ns"),
    ("element write+read, array", element_buffer, 10, "ns"),
    ("8 MB put + fence", put_fence_8mb, 0.005, "us"),
    ("PSCW epoch, one 8-byte put", pscw, 1, "us"),
    ("lock, 8-byte get, unlock", lock_get, 1, "us"),
    ("win_allocate(64) + free", allocate_free, 0.02, "us"),
]


def timed(fn, n):
    comm.Barrier()
    t0 = time.perf_counter()
    fn(n)
    return comm.allreduce(time.perf_counter() - t0, op=MPI.MAX)


def main():
    if size != 2:
        sys.exit("mpi4py-rows.py: run on exactly 2 ranks (mpiexec -n 2 -bind-to core)")
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    if me == 0:
        print(f"mpi4py {MPI.Get_library_version().splitlines()[0].strip()}; mpi4py "
              f"{sys.modules['mpi4py'].__version__}; buffers: {ARRAYS}")
        print(f"{reps} repetitions, {rounds} rounds, 2 ranks; medians per operation")
    for name, fn, scale, unit in ROWS:
        n = max(1, int(reps * scale))
        fn(max(1, n // 10))  # warm up
        times = sorted(timed(fn, n) / n for _ in range(rounds))
        med = times[rounds // 2] if rounds % 2 else (times[rounds // 2 - 1] + times[rounds // 2]) / 2
        if me == 0:
            print(f"  {name:<36} {med * (1e9 if unit == 'ns' else 1e6):10.2f} {unit}")


main()
