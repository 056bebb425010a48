"""The Python side of ipc-proof.mjs: CuPy and PyTorch with rmmjs's CUDA IPC handles, through
packages/interop/python/rmmjs_ipc.py. JSON commands on stdin, one JSON answer per line on stdout."""
import ctypes
import json
import os
import sys
import threading

if len(sys.argv) > 1:
    why = f"unexpected argument {sys.argv[1]} (it takes none: JSON commands on stdin)"
    print(f"ipc_proof_child.py: {why}", file=sys.stderr)
    sys.exit(2)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "packages", "interop", "python"))
import cupy  # noqa: E402
import numpy as np  # noqa: E402
import rmmjs_ipc  # noqa: E402
import torch  # noqa: E402

MiB = 1 << 20
state = {}


def pattern(length, seed):
    """What ipc-proof.mjs's pattern() gives."""
    i = np.arange(length, dtype=np.int64)
    return ((i * 31 + (i >> 9) * 7 + seed * 101) & 255).astype(np.uint8)


def check(actual, expected, what):
    if actual.shape != expected.shape:
        raise AssertionError(f"{what}: {actual.shape[0]} bytes instead of {expected.shape[0]}")
    different = np.nonzero(actual != expected)[0]
    if different.size:
        at = int(different[0])
        raise AssertionError(f"{what}: byte {at} is {int(actual[at])}, expected {int(expected[at])}")


def open_handle(command):
    """Opens Node's buffer with CuPy, checks and writes it, then hands it to PyTorch through DLPack,
    which checks and writes the last byte. Keeps it open until "close"."""
    handle = command["handle"]
    size = handle["size"]
    pool = rmmjs_ipc.receive_pool(command["poolPath"], timeout=60) if command.get("poolPath") else None
    view = rmmjs_ipc.open_with_cupy(handle, pool)
    state.update(view=view, pool=pool)
    array = view.array
    check(cupy.asnumpy(array), pattern(size, command["expect"]), "what CuPy reads")
    array[:] = cupy.asarray(pattern(size, command["write"]))
    cupy.cuda.runtime.deviceSynchronize()
    tensor = torch.from_dlpack(array)
    check(tensor.cpu().numpy(), pattern(size, command["write"]), "what PyTorch reads through DLPack")
    tensor[-1] = 0x5A
    torch.cuda.synchronize()
    seen = f"CuPy {array.dtype}{list(array.shape)}, PyTorch {tensor.dtype}{list(tensor.shape)} on {tensor.device}"
    del tensor, array
    return {"seen": seen}


def close_handle(command):
    view = state.pop("view")
    view.close()  # the arrays over it are gone: PyTorch's tensor went with open_handle
    pool = state.pop("pool", None)
    if pool is not None:
        pool.close()
    return {}


def export(command):
    """Python memory for Node: a PyTorch tensor, a CuPy array, or an allocation of an IPC pool."""
    kind, size, seed = command["kind"], command["size"], command["seed"]
    device = cupy.cuda.Device().id
    data = pattern(size, seed)
    if kind == "torch":
        pad = torch.empty(2 * MiB, dtype=torch.uint8, device=f"cuda:{device}")  # the tensor lands after it
        tensor = torch.from_numpy(data).to(f"cuda:{device}")
        torch.cuda.synchronize()
        share = tensor.untyped_storage()._share_cuda_()
        state.update(kind=kind, pad=pad, tensor=tensor, share=share)
        return {"handle": rmmjs_ipc.handle_from_torch_share(share)}
    if kind == "cupy":
        spare = cupy.empty(16 * MiB, dtype=cupy.uint8)
        del spare  # back to CuPy's pool: what follows is carved out of it, at offsets
        pad = cupy.empty(2 * MiB, dtype=cupy.uint8)
        array = cupy.asarray(data)
        cupy.cuda.runtime.deviceSynchronize()
        state.update(kind=kind, pad=pad, array=array)
        return {"handle": rmmjs_ipc.handle_from_cupy(array)}
    # kind "pool": a pool of our own, shared over the socket Node connects to
    cu = rmmjs_ipc.driver()
    pool = rmmjs_ipc.create_ipc_pool(device)
    base = rmmjs_ipc.CUdeviceptr()
    offset = 4096
    cu("cuMemAllocFromPoolAsync", ctypes.byref(base), size + offset, pool, None)
    cu("cuStreamSynchronize", None)
    memory = cupy.cuda.UnownedMemory(base.value, size + offset, None, device)
    array = cupy.ndarray((size,), dtype=cupy.uint8, memptr=cupy.cuda.MemoryPointer(memory, offset))
    array[:] = cupy.asarray(data)
    cupy.cuda.runtime.deviceSynchronize()
    handle = rmmjs_ipc.handle_from_pool_pointer(base.value + offset, size, device)
    server = threading.Thread(target=rmmjs_ipc.serve_pool, args=(pool, command["poolPath"], device, 60))
    server.start()
    state.update(kind=kind, pool=pool, base=base.value, array=array, server=server)
    return {"handle": handle}


def check_exported(command):
    """Checks what Node wrote into the exported memory, then frees it."""
    kind = state["kind"]
    if kind == "torch":
        torch.cuda.synchronize()
        actual = state["tensor"].cpu().numpy()
        rmmjs_ipc.release_torch_share(state.pop("share"))  # Node freed its view
    else:
        cupy.cuda.runtime.deviceSynchronize()
        actual = cupy.asnumpy(state["array"])
    try:
        check(actual, pattern(actual.shape[0], command["seed"]), f"what {kind} reads after Node wrote")
    finally:
        free_exported()
    return {}


def free_exported():
    kind = state.pop("kind", None)
    if kind == "pool":
        state.pop("server").join()
        state.pop("array", None)
        cu = rmmjs_ipc.driver()
        cu("cuMemFreeAsync", state.pop("base"), None)
        cu("cuStreamSynchronize", None)
        cu("cuMemPoolDestroy", state.pop("pool"))
    for key in ("pad", "tensor", "array", "share"):
        state.pop(key, None)


def reset(command):
    """After a failure: lets go of whatever is left (best effort)."""
    try:
        if "view" in state:
            close_handle(command)
        free_exported()
    finally:
        state.clear()
    return {}


COMMANDS = {"open": open_handle, "close": close_handle, "export": export, "check": check_exported, "reset": reset}

for line in sys.stdin:
    try:
        command = json.loads(line)
        answer = COMMANDS[command["cmd"]](command)
    except Exception as error:  # answered: the Node side prints it
        answer = {"error": f"{type(error).__name__}: {error}"}
    print(json.dumps(answer), flush=True)
