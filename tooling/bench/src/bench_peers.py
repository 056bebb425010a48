"""Peers for rmmjs's benchmarks, measured from Python in the same run as tooling/scripts/bench.mjs:
CuPy's MemoryPool and cudaMallocAsync pool, PyTorch's caching allocator, and CuPy's copies.
Prints one JSON object (name -> figure).

bench.mjs runs it with the numbers of its own rows: the pair size and count, the copy size, and the
random workload itself (--workload: a file of the float64 sizes, then the float64 frees, that
bench.mjs's randomWorkload made), so both sides run the same sequence of sizes and frees.
`--dry-run` checks the arguments and the workload and runs every loop below against a Python
stand-in allocator (no CUDA, no CuPy, no PyTorch), so a mistake shows up without a GPU.

Each peer is measured "at its best":
- warm: each measurement runs once untimed first, so the pool already holds what the timed runs
  take (our side also warms up, and its pools are made large enough up front);
- the least Python work per iteration: the allocator's bound method and the size in local
  variables, a bare `range` loop, nothing else in the loop (no attribute lookups, no `del`, no
  counters, no `cupy.cuda.Device()` context, no timer); a CuPy block is freed where Python drops
  its last reference, as CuPy's users free them;
- the cyclic garbage collector is off while timing (collected before each repetition), timed with
  `time.perf_counter_ns` around the whole loop;
- enough iterations (bench.mjs passes the count of our own pair rows: 200,000, a tenth with
  --quick) and the best (the minimum time, the highest GB/s) of several repetitions;
- a CuPy pair is timed both ways its users write it (`malloc(n)` dropped at once, and `p =
  malloc(n)` dropping the previous block), and the faster counts; PyTorch's allocator is called
  through the binding that `torch.cuda.caching_allocator_alloc` calls, with the device and stream
  bound once outside the loop (the public function enters a device context on every call), and
  `torch.empty` is measured as a pair of its own.
Our rows take the median of their repetitions: a ratio to a peer's best is, if anything, unfair to us.
"""
import argparse
import array
import gc
import json
import sys
import time

perf_counter_ns = time.perf_counter_ns


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workload", required=True, help="file: float64 sizes, then float64 frees")
    parser.add_argument("--pairs", type=int, default=200_000, help="allocate+free pairs per repetition")
    parser.add_argument("--pair-bytes", type=int, default=1 << 20)
    parser.add_argument("--copy-bytes", type=int, default=256 << 20)
    parser.add_argument("--repeats", type=int, default=5, help="timed repetitions (the best counts)")
    parser.add_argument("--dry-run", action="store_true", help="check, and run the loops on a stand-in")
    args = parser.parse_args(argv)
    for name in ("pairs", "pair_bytes", "copy_bytes", "repeats"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    return args


def load_workload(path):
    """The workload as one int per step: a size (> 0) allocates; ~index frees the live block at
    index (the last live block takes its place). Returns (ops, blocks live at the end)."""
    values = array.array("d")
    with open(path, "rb") as file:
        values.frombytes(file.read())
    if len(values) == 0 or len(values) % 2:
        raise ValueError(f"{path}: {len(values)} float64s, expected sizes and frees of equal length")
    steps = len(values) // 2
    ops = []
    live = 0
    for step in range(steps):
        size, at = values[step], values[steps + step]
        if size > 0:
            if size != int(size):
                raise ValueError(f"{path}: step {step}: size {size} is not a whole number")
            ops.append(int(size))
            live += 1
        else:
            if at != int(at) or not 0 <= at < live:
                raise ValueError(f"{path}: step {step}: frees block {at} of {live} live")
            ops.append(~int(at))
            live -= 1
    return ops, live


def best(run, repeats):
    """The least of `repeats` timed runs of run() (each returns a time), after one untimed run."""
    run()
    values = []
    for _ in range(repeats):
        gc.collect()
        gc.disable()
        try:
            values.append(run())
        finally:
            gc.enable()
    return min(values)


def pair_dropped(malloc, size, n):
    """ns per pair: each block is freed as soon as malloc returns it (nothing keeps it)."""
    def run():
        m, s, iterations = malloc, size, range(n)
        start = perf_counter_ns()
        for _ in iterations:
            m(s)
        return (perf_counter_ns() - start) / n
    return run


def pair_rebound(malloc, size, n):
    """ns per pair: `p = malloc(size)`, which frees the previous block."""
    def run():
        m, s, iterations = malloc, size, range(n)
        p = None
        start = perf_counter_ns()
        for _ in iterations:
            p = m(s)
        elapsed = perf_counter_ns() - start
        del p
        return elapsed / n
    return run


def pair_raw(alloc, delete, stream, size, n):
    """ns per pair of an allocator that hands out integers: delete(alloc(size, stream))."""
    def run():
        a, d, st, s, iterations = alloc, delete, stream, size, range(n)
        start = perf_counter_ns()
        for _ in iterations:
            d(a(s, st))
        return (perf_counter_ns() - start) / n
    return run


def pair_tensor(empty, dtype, device, size, n):
    """ns per pair of `empty(size, dtype=dtype, device=device)` dropped at once (torch.empty)."""
    def run():
        e, dt, dv, s, iterations = empty, dtype, device, size, range(n)
        start = perf_counter_ns()
        for _ in iterations:
            e(s, dtype=dt, device=dv)
        return (perf_counter_ns() - start) / n
    return run


def random_owned(malloc, ops, remaining):
    """ns per operation of the workload on an allocator whose blocks free themselves when dropped
    (the last ones too, as our side counts them)."""
    count = len(ops) + remaining

    def run():
        live = []
        append, pop, m = live.append, live.pop, malloc
        start = perf_counter_ns()
        for op in ops:
            if op > 0:
                append(m(op))
            else:
                live[~op] = live[-1]  # drops the freed block's last reference
                pop()
        live.clear()
        return (perf_counter_ns() - start) / count
    return run


def random_raw(alloc, delete, stream, ops, remaining):
    """The same on an allocator that hands out integers (alloc(size, stream)) and frees with
    delete(pointer)."""
    count = len(ops) + remaining

    def run():
        live = []
        append, pop, a, d, st = live.append, live.pop, alloc, delete, stream
        start = perf_counter_ns()
        for op in ops:
            if op > 0:
                append(a(op, st))
            else:
                at = ~op
                d(live[at])
                live[at] = live[-1]
                pop()
        for pointer in live:
            d(pointer)
        live.clear()
        return (perf_counter_ns() - start) / count
    return run


def copy_gbps(copy, synchronize, nbytes, repeats):
    """GB/s of copy() (then synchronize()), the best of `repeats`."""
    def run():
        start = perf_counter_ns()
        copy()
        synchronize()
        return perf_counter_ns() - start
    return nbytes / max(best(run, repeats), 1)


def measure_cupy(out, args, ops, remaining):
    import cupy
    import numpy

    n, size, repeats = args.pairs, args.pair_bytes, args.repeats
    pool = cupy.cuda.MemoryPool()
    malloc = pool.malloc
    out["cupy MemoryPool pair 1 MiB"] = min(
        best(pair_dropped(malloc, size, n), repeats), best(pair_rebound(malloc, size, n), repeats))
    out["cupy MemoryPool random ns/op"] = best(random_owned(malloc, ops, remaining), repeats)
    pool.free_all_blocks()

    synchronize = cupy.cuda.runtime.deviceSynchronize
    async_pool = cupy.cuda.MemoryAsyncPool()
    malloc = async_pool.malloc
    out["cupy cudaMallocAsync pair 1 MiB"] = min(
        best(pair_dropped(malloc, size, n), repeats), best(pair_rebound(malloc, size, n), repeats))
    out["cupy cudaMallocAsync random ns/op"] = best(random_owned(malloc, ops, remaining), repeats)
    synchronize()
    async_pool.free_all_blocks()

    nbytes = args.copy_bytes
    host = numpy.ones(nbytes, dtype=numpy.uint8)
    dev = cupy.empty(nbytes, dtype=cupy.uint8)
    out["cupy host->device pageable GB/s"] = copy_gbps(lambda: dev.set(host), synchronize, nbytes, repeats)
    out["cupy device->host pageable GB/s"] = copy_gbps(lambda: dev.get(out=host), synchronize, nbytes, repeats)
    pinned_memory = cupy.cuda.alloc_pinned_memory(nbytes)
    pinned = numpy.frombuffer(pinned_memory, dtype=numpy.uint8, count=nbytes)
    out["cupy host->device pinned GB/s"] = copy_gbps(lambda: dev.set(pinned), synchronize, nbytes, repeats)
    out["cupy device->host pinned GB/s"] = copy_gbps(lambda: dev.get(out=pinned), synchronize, nbytes, repeats)
    del dev, pinned, pinned_memory
    cupy.get_default_memory_pool().free_all_blocks()


def measure_torch(out, args, ops, remaining):
    import torch

    if not torch.cuda.is_available():
        print("torch: no CUDA device", file=sys.stderr)
        return
    n, size, repeats = args.pairs, args.pair_bytes, args.repeats
    torch.cuda.init()
    torch.cuda.set_device(0)
    stream = torch.cuda.current_stream(0).cuda_stream
    alloc = getattr(torch._C, "_cuda_cudaCachingAllocator_raw_alloc", None)
    delete = getattr(torch._C, "_cuda_cudaCachingAllocator_raw_delete", None)
    if alloc is None or delete is None:  # another PyTorch: its public functions
        def alloc(nbytes, on):
            return torch.cuda.caching_allocator_alloc(nbytes, 0, on)
        delete = torch.cuda.caching_allocator_delete
    out["torch caching allocator pair 1 MiB"] = best(pair_raw(alloc, delete, stream, size, n), repeats)
    out["torch caching allocator random ns/op"] = best(random_raw(alloc, delete, stream, ops, remaining), repeats)
    device = torch.device("cuda", 0)
    out["torch.empty pair 1 MiB"] = best(pair_tensor(torch.empty, torch.uint8, device, size, n), repeats)
    torch.cuda.synchronize()
    torch.cuda.empty_cache()


def dry_run(args, ops, remaining):
    """Runs every loop on stand-ins that check each block is freed once, with small counts."""
    class Block:
        live = 0

        def __init__(self, size):
            Block.live += 1

        def __del__(self):
            Block.live -= 1

    pointers = set()
    next_pointer = [256]

    def raw_alloc(size, stream):
        next_pointer[0] += 256
        pointers.add(next_pointer[0])
        return next_pointer[0]

    def raw_delete(pointer):
        pointers.remove(pointer)  # KeyError: freed twice, or never allocated

    n, size = min(args.pairs, 1000), args.pair_bytes
    best(pair_dropped(Block, size, n), 1)
    best(pair_rebound(Block, size, n), 1)
    best(random_owned(Block, ops, remaining), 1)
    best(pair_raw(raw_alloc, raw_delete, 0, size, n), 1)
    best(random_raw(raw_alloc, raw_delete, 0, ops, remaining), 1)
    best(pair_tensor(lambda size, dtype, device: Block(size), "uint8", "cuda:0", size, n), 1)
    copy_gbps(lambda: None, lambda: None, args.copy_bytes, 1)
    if Block.live or pointers:
        raise AssertionError(f"the loops left {Block.live} blocks and {len(pointers)} pointers live")
    return {
        "dry run": "ok",
        "steps": len(ops),
        "live at the end": remaining,
        "pairs": args.pairs,
        "pair bytes": args.pair_bytes,
        "copy bytes": args.copy_bytes,
        "repeats": args.repeats,
    }


def main(argv):
    args = parse_args(argv)
    ops, remaining = load_workload(args.workload)
    if args.dry_run:
        print(json.dumps(dry_run(args, ops, remaining)))
        return
    out = {}
    for name, measure in (("cupy", measure_cupy), ("torch", measure_torch)):
        try:
            measure(out, args, ops, remaining)
        except ImportError as error:
            print(f"{name}: {error}", file=sys.stderr)
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
