"""A Python process for python.test.ts: takes JSON commands on stdin, answers JSON lines, and uses
only python/rmmjs_ipc.py and the CUDA driver through it (ctypes; no CuPy or PyTorch needed)."""
import ctypes
import json
import os
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
import rmmjs_ipc  # noqa: E402

cu = None
state = {}


def copy_to_host(ptr, count):
    out = (ctypes.c_ubyte * count)()
    cu("cuMemcpyAsync", ctypes.addressof(out), ptr, count, None)
    cu("cuStreamSynchronize", None)
    return list(out)


def copy_from_host(ptr, data):
    source = (ctypes.c_ubyte * len(data))(*data)
    cu("cuMemcpyAsync", ptr, ctypes.addressof(source), len(data), None)
    cu("cuStreamSynchronize", None)


def run(command):
    global cu
    name = command["cmd"]
    if name == "torch":  # no driver needed
        share = [command["device"], bytes.fromhex(command["data"]), command["size"], command["offset"], b"", 0, b"", False]
        return {"handle": rmmjs_ipc.handle_from_torch_share(share, command["uuid"])}
    cu = rmmjs_ipc.driver()
    if name == "open":
        path, timeout = command.get("path"), command.get("timeout", 30)
        pool = rmmjs_ipc.receive_pool(path, timeout=timeout) if path else None
        view = rmmjs_ipc.open_handle(command["handle"], pool)
        state.update(view=view, pool=pool)
        return {"bytes": copy_to_host(view.ptr, view.size), "device": view.device}
    if name == "write":
        copy_from_host(state["view"].ptr if "view" in state else state["ptr"], command["data"])
        return {}
    if name == "close":
        state.pop("view").close()
        pool = state.pop("pool", None)
        if pool is not None:
            pool.close()
        return {}
    if name == "export":
        device = 0
        rmmjs_ipc._use_device(device)
        base = rmmjs_ipc.CUdeviceptr()
        size = command["offset"] + len(command["data"])
        if command["kind"] == "pool":
            pool = rmmjs_ipc.create_ipc_pool(device)
            cu("cuMemAllocFromPoolAsync", ctypes.byref(base), size, pool, None)
            cu("cuStreamSynchronize", None)
            state["pool_handle"] = pool
        else:
            cu("cuMemAlloc_v2", ctypes.byref(base), size)
        ptr = base.value + command["offset"]
        copy_from_host(ptr, command["data"])
        state.update(base=base.value, ptr=ptr, size=len(command["data"]), kind=command["kind"])
        if command["kind"] == "pool":
            handle = rmmjs_ipc.handle_from_pool_pointer(ptr, len(command["data"]), device)
            server = threading.Thread(target=rmmjs_ipc.serve_pool, args=(pool, command["path"], device, 30))
            server.start()
            state["server"] = server
        else:
            handle = rmmjs_ipc.handle_from_pointer(ptr, len(command["data"]), device)
        return {"handle": handle}
    if name == "read":
        return {"bytes": copy_to_host(state["ptr"], state["size"])}
    if name == "free":
        if "server" in state:
            state.pop("server").join()
        if state["kind"] == "pool":
            cu("cuMemFreeAsync", state["base"], None)
            cu("cuStreamSynchronize", None)
            cu("cuMemPoolDestroy", state["pool_handle"])
        else:
            cu("cuMemFree_v2", state["base"])
        return {}
    raise ValueError(f"unknown command {name}")


for line in sys.stdin:
    try:
        answer = run(json.loads(line))
    except Exception as error:  # answered, so that the test sees what went wrong
        answer = {"error": f"{type(error).__name__}: {error}"}
    print(json.dumps(answer), flush=True)
