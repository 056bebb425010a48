"""Peers for rmmjs's benchmarks, measured from Python in the same run: CuPy's memory pool and
cudaMallocAsync, PyTorch's caching allocator, and copies. Prints one JSON object."""
import json
import sys
import time

quick = "--quick" in sys.argv
MiB = 1 << 20
out = {}


def median(fn, rounds=5):
    fn()
    values = sorted(fn() for _ in range(rounds))
    return values[rounds // 2]


def pair_ns(alloc, n):
    def run():
        start = time.perf_counter_ns()
        for _ in range(n):
            mem = alloc(MiB)
            del mem
        return (time.perf_counter_ns() - start) / n
    return median(run)


def workload(steps, seed=42):
    # Same shape as tooling/scripts/bench-workloads.mjs (its own generator: equal in law, not in draws).
    import random
    rng = random.Random(seed)
    ops, live = [], 0
    for _ in range(steps):
        if live > 0 and (live >= 1000 or rng.random() < 0.5):
            ops.append((0, rng.randrange(live)))
            live -= 1
        else:
            ops.append((1 + rng.randrange(4 << 20), 0))
            live += 1
    return ops


def random_ns(alloc, ops):
    def run():
        live = []
        count = 0
        start = time.perf_counter_ns()
        for size, at in ops:
            if size:
                live.append(alloc(size))
            else:
                live[at] = live[-1]
                live.pop()
            count += 1
        count += len(live)
        live.clear()
        return (time.perf_counter_ns() - start) / count
    return median(run, 3)


try:
    import cupy

    n = 2000 if quick else 20000
    ops = workload(10000 if quick else 100000)
    pool = cupy.cuda.MemoryPool()
    out["cupy MemoryPool pair 1 MiB"] = pair_ns(pool.malloc, n)
    out["cupy MemoryPool random ns/op"] = random_ns(pool.malloc, ops)
    pool.free_all_blocks()
    async_pool = cupy.cuda.MemoryAsyncPool()
    out["cupy cudaMallocAsync pair 1 MiB"] = pair_ns(async_pool.malloc, n)
    out["cupy cudaMallocAsync random ns/op"] = random_ns(async_pool.malloc, ops)
    cupy.cuda.Device().synchronize()

    size = (32 if quick else 256) * MiB
    import numpy
    host = numpy.ones(size, dtype=numpy.uint8)
    dev = cupy.empty(size, dtype=cupy.uint8)

    def gbps(fn):
        def run():
            start = time.perf_counter_ns()
            fn()
            cupy.cuda.Device().synchronize()
            return size / (time.perf_counter_ns() - start)
        return median(run, 3)

    out["cupy host->device pageable GB/s"] = gbps(lambda: dev.set(host))
    out["cupy device->host pageable GB/s"] = gbps(lambda: dev.get(out=host))
    pinned_mem = cupy.cuda.alloc_pinned_memory(size)
    pinned = numpy.frombuffer(pinned_mem, dtype=numpy.uint8, count=size)
    out["cupy host->device pinned GB/s"] = gbps(lambda: dev.set(pinned))
    out["cupy device->host pinned GB/s"] = gbps(lambda: dev.get(out=pinned))
except ImportError as error:
    print(f"cupy: {error}", file=sys.stderr)

try:
    import torch

    if torch.cuda.is_available():
        n = 2000 if quick else 20000
        out["torch caching allocator pair 1 MiB"] = pair_ns(
            lambda size: torch.empty(size, dtype=torch.uint8, device="cuda"), n)
except ImportError as error:
    print(f"torch: {error}", file=sys.stderr)

print(json.dumps(out))
