"""rmmjs_ipc: CUDA IPC between rmmjs (Node.js) and Python, with CuPy and PyTorch.

Pure Python (the CUDA driver through ctypes; CuPy and PyTorch only where used). An rmmjs IPC handle
is a JSON object (what ``exportIpcHandle`` returns in Node)::

    {"version": 1, "kind": "memory" | "pool", "handle": "<128 hex digits>", "offset": int,
     "size": int, "deviceUuid": "GPU-...", "pool": "<id>" (kind "pool"), "process": "<id>",
     "lease": {"path": ..., "file": ..., "slot": ...}}

Opening rmmjs memory in Python::

    import json, rmmjs_ipc
    view = rmmjs_ipc.open_with_cupy(json.loads(text))   # a CuPy uint8 array over the memory
    tensor = torch.from_dlpack(view.array)               # the same memory in PyTorch
    ...
    view.close()                                         # before Node frees the buffer

Memory of a pool created with ``CudaAsyncMemoryResource({ enableIpc: true })`` needs the pool
first: Node calls ``sendIpcPool(mr, path)``, Python ``pool = rmmjs_ipc.receive_pool(path)``, then
``open_with_cupy(handle, pool)``.

Sharing Python memory with Node::

    handle = rmmjs_ipc.handle_from_cupy(array)           # a CuPy array (any offset in its allocation)
    handle = rmmjs_ipc.handle_from_torch(tensor)         # a PyTorch CUDA tensor (storage._share_cuda_())
    # Node: openIpcHandle(handle)

The importer must close its view before the exporter frees the memory. While a view opened here
lives, it holds the exporter's lease, so rmmjs's ``free()`` of the exported buffer refuses.
"""

import ctypes
import fcntl
import json
import os
import re
import secrets
import socket
import stat
import struct
import threading
import time

__all__ = [
    "CudaDriverError",
    "driver",
    "device_uuid",
    "device_with_uuid",
    "handle_from_pointer",
    "handle_from_cupy",
    "handle_from_torch",
    "handle_from_torch_share",
    "release_torch_share",
    "IpcView",
    "open_handle",
    "open_with_cupy",
    "receive_pool",
    "ImportedPool",
    "create_ipc_pool",
    "handle_from_pool_pointer",
    "serve_pool",
]

HANDLE_SIZE = 64
_LAZY_ENABLE_PEER_ACCESS = 1
_POSIX_FILE_DESCRIPTOR = 1
_POINTER_ATTRIBUTE_MEMPOOL_HANDLE = 17
_TOKEN = "py-" + secrets.token_hex(12)  # this process, in the handles and pool ids it makes

CUdeviceptr = ctypes.c_uint64
CUresult = ctypes.c_int


class _IpcMemHandle(ctypes.Structure):
    _fields_ = [("reserved", ctypes.c_ubyte * HANDLE_SIZE)]


class _PoolPtrExportData(ctypes.Structure):
    _fields_ = [("reserved", ctypes.c_ubyte * HANDLE_SIZE)]


class _Uuid(ctypes.Structure):
    _fields_ = [("bytes", ctypes.c_ubyte * 16)]


class _PoolProps(ctypes.Structure):
    _fields_ = [
        ("alloc_type", ctypes.c_int),
        ("handle_types", ctypes.c_int),
        ("location_type", ctypes.c_int),
        ("location_id", ctypes.c_int),
        ("win32_security_attributes", ctypes.c_void_p),
        ("max_size", ctypes.c_size_t),
        ("usage", ctypes.c_ushort),
        ("reserved", ctypes.c_ubyte * 54),
    ]


_P = ctypes.POINTER
_SIGNATURES = {
    "cuInit": [ctypes.c_uint],
    "cuGetErrorName": [CUresult, _P(ctypes.c_char_p)],
    "cuDeviceGetCount": [_P(ctypes.c_int)],
    "cuDeviceGet": [_P(ctypes.c_int), ctypes.c_int],
    "cuDeviceGetUuid_v2": [_P(_Uuid), ctypes.c_int],
    "cuDevicePrimaryCtxRetain": [_P(ctypes.c_void_p), ctypes.c_int],
    "cuCtxGetCurrent": [_P(ctypes.c_void_p)],
    "cuCtxSetCurrent": [ctypes.c_void_p],
    "cuCtxGetDevice": [_P(ctypes.c_int)],
    "cuMemAlloc_v2": [_P(CUdeviceptr), ctypes.c_size_t],
    "cuMemFree_v2": [CUdeviceptr],
    "cuMemGetAddressRange_v2": [_P(CUdeviceptr), _P(ctypes.c_size_t), CUdeviceptr],
    "cuMemcpyAsync": [CUdeviceptr, CUdeviceptr, ctypes.c_size_t, ctypes.c_void_p],
    "cuStreamSynchronize": [ctypes.c_void_p],
    "cuPointerGetAttribute": [ctypes.c_void_p, ctypes.c_int, CUdeviceptr],
    "cuIpcGetMemHandle": [_P(_IpcMemHandle), CUdeviceptr],
    "cuIpcOpenMemHandle_v2": [_P(CUdeviceptr), _IpcMemHandle, ctypes.c_uint],
    "cuIpcCloseMemHandle": [CUdeviceptr],
    "cuMemPoolCreate": [_P(ctypes.c_void_p), _P(_PoolProps)],
    "cuMemPoolDestroy": [ctypes.c_void_p],
    "cuMemAllocFromPoolAsync": [_P(CUdeviceptr), ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p],
    "cuMemFreeAsync": [CUdeviceptr, ctypes.c_void_p],
    "cuMemPoolExportToShareableHandle": [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_ulonglong],
    "cuMemPoolImportFromShareableHandle": [_P(ctypes.c_void_p), ctypes.c_void_p, ctypes.c_int, ctypes.c_ulonglong],
    "cuMemPoolExportPointer": [_P(_PoolPtrExportData), CUdeviceptr],
    "cuMemPoolImportPointer": [_P(CUdeviceptr), ctypes.c_void_p, _P(_PoolPtrExportData)],
}


class CudaDriverError(RuntimeError):
    """A failing CUDA driver call: ``.name`` is the driver's (``CUDA_ERROR_INVALID_VALUE``), ``.code`` its number."""

    def __init__(self, call, code, name):
        super().__init__(f"{call}: {name} ({code})")
        self.call, self.code, self.name = call, code, name


class _Driver:
    """The CUDA driver library (``$RMMJS_CUDA_LIBRARY`` or ``libcuda.so.1``, as rmmjs loads it)."""

    def __init__(self):
        self.library = ctypes.CDLL(os.environ.get("RMMJS_CUDA_LIBRARY") or "libcuda.so.1")
        self._functions = {}
        self("cuInit", 0)

    def __call__(self, name, *args):
        function = self._functions.get(name)
        if function is None:
            function = getattr(self.library, name)
            function.argtypes = _SIGNATURES[name]
            function.restype = CUresult
            self._functions[name] = function
        result = function(*args)
        if result != 0:
            text = ctypes.c_char_p()
            self.library.cuGetErrorName(result, ctypes.byref(text))
            raise CudaDriverError(name, result, text.value.decode() if text.value else "CUDA_ERROR_UNKNOWN")


_driver = None
_driver_lock = threading.Lock()


def driver():
    """The loaded driver: ``driver()("cuMemFree_v2", ptr)`` calls an entry point, raising CudaDriverError."""
    global _driver
    with _driver_lock:
        if _driver is None:
            _driver = _Driver()
        return _driver


def _use_device(device):
    """Makes device's primary context current on this thread (as cudaSetDevice and CuPy do)."""
    cu = driver()
    context = ctypes.c_void_p()
    cu("cuDevicePrimaryCtxRetain", ctypes.byref(context), device)
    cu("cuCtxSetCurrent", context)


def _current_device():
    cu = driver()
    context = ctypes.c_void_p()
    cu("cuCtxGetCurrent", ctypes.byref(context))
    if not context.value:
        return None
    device = ctypes.c_int()
    cu("cuCtxGetDevice", ctypes.byref(device))
    return device.value


def device_uuid(device):
    """``GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx``: how handles name devices (ordinals differ between processes)."""
    uuid = _Uuid()
    driver()("cuDeviceGetUuid_v2", ctypes.byref(uuid), device)
    h = bytes(uuid.bytes).hex()
    return f"GPU-{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def device_with_uuid(uuid):
    """The ordinal of the device with that UUID in this process; ValueError when there is none."""
    count = ctypes.c_int()
    driver()("cuDeviceGetCount", ctypes.byref(count))
    for device in range(count.value):
        if device_uuid(device) == uuid.lower().replace("gpu-", "GPU-", 1):
            return device
    raise ValueError(f"{uuid} is not a device of this process")


# --- handles of Python memory, for Node's openIpcHandle ---


def _pool_of(ptr):
    pool = ctypes.c_void_p()
    driver()("cuPointerGetAttribute", ctypes.byref(pool), _POINTER_ATTRIBUTE_MEMPOOL_HANDLE, ptr)
    return pool.value


def pool_id(pool):
    """How a pool this process shares is named in handles (and sent by serve_pool)."""
    return f"{_TOKEN}:{pool:x}"


def handle_from_pointer(ptr, size, device=None):
    """A handle to ``size`` bytes at ``ptr`` (device memory from cudaMalloc or a caching allocator's
    block of it): the allocation around it, and the offset in it."""
    if device is None:
        device = _current_device() or 0
    _use_device(device)
    if _pool_of(ptr):
        raise ValueError("memory of a CUDA memory pool: use handle_from_pool_pointer (and serve_pool)")
    base, _ = _address_range(ptr)
    handle = _IpcMemHandle()
    driver()("cuIpcGetMemHandle", ctypes.byref(handle), base)
    return _handle("memory", bytes(handle), ptr - base, size, device)


def _address_range(ptr):
    base, size = CUdeviceptr(), ctypes.c_size_t()
    driver()("cuMemGetAddressRange_v2", ctypes.byref(base), ctypes.byref(size), ptr)
    return base.value, size.value


def _handle(kind, data, offset, size, device, pool=None):
    handle = {
        "version": 1,
        "kind": kind,
        "handle": data.hex(),
        "offset": int(offset),
        "size": int(size),
        "deviceUuid": device_uuid(device),
        "process": _TOKEN,
    }
    if pool is not None:
        handle["pool"] = pool
    return handle


def handle_from_cupy(array):
    """A handle to a CuPy array's bytes (``array.data.ptr``, ``array.nbytes``)."""
    return handle_from_pointer(array.data.ptr, array.nbytes, array.device.id)


def _torch_handle_bytes(data):
    """The 64 bytes of a cudaIpcMemHandle_t in what ``_share_cuda_()`` returns: the bytes themselves
    (older PyTorch), or a version byte, b'c' and the bytes (a cudaMalloc block; newer PyTorch)."""
    if len(data) == HANDLE_SIZE:
        return bytes(data)
    if len(data) == HANDLE_SIZE + 2 and data[1:2] == b"c":
        return bytes(data[2:])
    if len(data) > 1 and data[1:2] == b"e":
        raise ValueError("a PyTorch expandable segment cannot be shared with CUDA IPC handles "
                         "(set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:False)")
    raise ValueError(f"not a PyTorch CUDA IPC handle ({len(data)} bytes)")


def handle_from_torch_share(share, device_uuid_text=None):
    """An rmmjs handle from the fields of ``storage._share_cuda_()``: (device, handle, storage size in
    bytes, storage offset in bytes, ref counter, ref counter offset, event handle, event sync
    required). PyTorch's own reference counting of the storage is left to PyTorch (the producer
    keeps the memory as long as the tensor lives)."""
    device, data, size_bytes, offset_bytes = share[0], share[1], share[2], share[3]
    handle = _torch_handle_bytes(data)
    return {
        "version": 1,
        "kind": "memory",
        "handle": handle.hex(),
        "offset": int(offset_bytes),
        "size": int(size_bytes),
        "deviceUuid": device_uuid_text or device_uuid(int(device)),
        "process": _TOKEN,
    }


def release_torch_share(share):
    """Tells PyTorch that the consumer of ``storage._share_cuda_()`` fields let go (its reference
    counter of the storage, as a PyTorch consumer does), so that the producer need not keep the memory
    once the tensor goes. Call it after the Node side freed its view. False where PyTorch lacks the call."""
    import torch

    release = getattr(torch.UntypedStorage, "_release_ipc_counter_cuda", None)
    if release is None or not share[4]:
        return False
    release(share[4], share[5])
    return True


def handle_from_torch(tensor):
    """A handle to a PyTorch CUDA tensor's storage (the whole storage: its bytes from
    ``tensor.untyped_storage()``). Data written before must be complete (torch.cuda.synchronize())."""
    storage = tensor.untyped_storage()
    return handle_from_torch_share(storage._share_cuda_())


# --- opening rmmjs handles ---


_LEASE_PATH = re.compile(r"/proc/[1-9][0-9]*/fd/(?:0|[1-9][0-9]*)")


def _lease_problem(lease, info):
    """Why what a lease's path names is not the exporter's lease file, or None when it is."""
    if stat.S_ISREG(info.st_mode) and f"{info.st_dev}:{info.st_ino}" == lease["file"]:
        return None
    kinds = [(stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a directory"), (stat.S_ISREG, "another file")]
    kind = next((name for test, name in kinds if test(info.st_mode)), "not a regular file")
    return f"the handle's lease must name the exporter's lease file, and {lease['path']} is {kind}"


def _take_lease(handle):
    """The shared lock that tells the exporter this process still has its memory open, or None
    where the lease file does not exist here (another PID namespace). The handle is a peer's data:
    a lease naming anything else than the lease file (a FIFO, which would block open() for ever, a
    device, another file) is refused with ValueError, and nothing is opened that could block."""
    lease = handle.get("lease")
    if not lease:
        return None
    path = lease.get("path")
    if not isinstance(path, str) or not _LEASE_PATH.fullmatch(path):
        raise ValueError(f"the handle's lease path must be /proc/<pid>/fd/<fd>, got {path!r}")
    try:
        problem = _lease_problem(lease, os.stat(path))
    except OSError:
        return None
    if problem is not None:
        raise ValueError(problem)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError:
        return None
    problem = _lease_problem(lease, os.fstat(fd))
    if problem is not None:
        os.close(fd)
        raise ValueError(problem)
    # struct flock: short l_type, l_whence; off_t l_start, l_len; pid_t l_pid (Linux, 64-bit)
    request = struct.pack("hhxxxxqqixxxx", fcntl.F_RDLCK, os.SEEK_SET, int(lease["slot"]), 1, 0)
    try:
        fcntl.fcntl(fd, fcntl.F_OFD_SETLK, request)
    except OSError:
        os.close(fd)
        return None
    return fd


class IpcView:
    """Another process's memory opened here: ``ptr`` (``size`` bytes) on ``device``. ``close()`` (or
    leaving a ``with`` block) closes the mapping (or frees the imported pool pointer) and lets the
    exporter free the memory; it never frees the memory itself."""

    def __init__(self, ptr, size, device, close, lease):
        self.ptr, self.size, self.device = ptr, size, device
        self._close, self._lease = close, lease
        self.array = None  # open_with_cupy: the CuPy array over it

    def close(self):
        if self._close is None:
            return
        close, self._close, self.array = self._close, None, None
        _use_device(self.device)
        close()
        if self._lease is not None:
            os.close(self._lease)
            self._lease = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def open_handle(handle, pool=None):
    """Opens an rmmjs handle (a dict, or its JSON text) with the driver: an IpcView. Kind "pool" needs
    the ImportedPool it came from (receive_pool)."""
    if isinstance(handle, (str, bytes)):
        handle = json.loads(handle)
    if handle.get("version") != 1 or handle.get("kind") not in ("memory", "pool"):
        raise ValueError("not an rmmjs IPC handle")
    if handle.get("process") == _TOKEN:
        raise ValueError("the handle was exported by this process: use the memory itself")
    data = bytes.fromhex(handle["handle"])
    if len(data) != HANDLE_SIZE:
        raise ValueError("handle must be 128 hexadecimal digits")
    device = device_with_uuid(handle["deviceUuid"])
    offset, size = int(handle["offset"]), int(handle["size"])
    _use_device(device)
    cu = driver()
    lease = _take_lease(handle)
    try:
        base = CUdeviceptr()
        if handle["kind"] == "pool":
            if pool is None or pool.id != handle.get("pool"):
                raise ValueError(f"the handle's pool {handle.get('pool')} was not received (receive_pool)")
            export = _PoolPtrExportData.from_buffer_copy(data)
            cu("cuMemPoolImportPointer", ctypes.byref(base), pool.pool, ctypes.byref(export))
            close = lambda: cu("cuMemFree_v2", base.value)  # noqa: E731 (the importer's side only)
        else:
            ipc = _IpcMemHandle.from_buffer_copy(data)
            cu("cuIpcOpenMemHandle_v2", ctypes.byref(base), ipc, _LAZY_ENABLE_PEER_ACCESS)
            close = lambda: cu("cuIpcCloseMemHandle", base.value)  # noqa: E731
    except BaseException:
        if lease is not None:
            os.close(lease)
        raise
    return IpcView(base.value + offset, size, device, close, lease)


def open_with_cupy(handle, pool=None):
    """Opens an rmmjs handle as a CuPy ``uint8`` array of ``handle["size"]`` bytes (``view.array``),
    through ``cupy.cuda.runtime.ipcOpenMemHandle`` and a ``MemoryPointer`` at the handle's offset
    (kind "pool": through the pool from receive_pool). Close the returned IpcView when done."""
    import cupy

    if isinstance(handle, (str, bytes)):
        handle = json.loads(handle)
    if handle.get("process") == _TOKEN:
        raise ValueError("the handle was exported by this process: use the memory itself")
    device = device_with_uuid(handle["deviceUuid"])
    offset, size = int(handle["offset"]), int(handle["size"])
    with cupy.cuda.Device(device):
        if handle["kind"] == "pool":
            view = open_handle(handle, pool)
            base, owner = view.ptr - offset, view
        else:
            lease = _take_lease(handle)
            base = cupy.cuda.runtime.ipcOpenMemHandle(bytes.fromhex(handle["handle"]))
            view = IpcView(base + offset, size, device, lambda: cupy.cuda.runtime.ipcCloseMemHandle(base), lease)
            owner = view
        memory = cupy.cuda.UnownedMemory(base, offset + size, owner, device)
        view.array = cupy.ndarray((size,), dtype=cupy.uint8, memptr=cupy.cuda.MemoryPointer(memory, offset))
    return view


# --- memory pools (CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) over a Unix socket ---


class ImportedPool:
    """A pool another process shared (receive_pool): ``pool`` (a CUmemoryPool), ``id``, ``device``."""

    def __init__(self, pool, pool_id_text, device):
        self.pool, self.id, self.device = pool, pool_id_text, device

    def close(self):
        """Destroys the imported pool (close the views opened from it first)."""
        if self.pool:
            _use_device(self.device)
            driver()("cuMemPoolDestroy", self.pool)
            self.pool = None


def receive_pool(path, timeout=60.0):
    """Receives a pool that rmmjs's ``sendIpcPool(mr, path)`` (or serve_pool) shares: connects to the
    Unix socket at ``path`` (again and again until it listens), takes the descriptor, imports it."""
    deadline = time.monotonic() + timeout
    left = lambda: max(deadline - time.monotonic(), 0.001)  # noqa: E731
    while True:
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        # Never past the deadline, also when the sender does not accept (its backlog full).
        connection.settimeout(left())
        try:
            connection.connect(path)
            break
        except (FileNotFoundError, ConnectionRefusedError, BlockingIOError, socket.timeout):
            connection.close()
            if time.monotonic() > deadline:
                raise TimeoutError(f"nothing was sent at {path} within {timeout} s")
            time.sleep(0.01)
    with connection:
        connection.settimeout(left())
        payload, fds, _, _ = socket.recv_fds(connection, 4096, 1)
        while not payload.endswith(b"\n"):
            connection.settimeout(left())
            more = connection.recv(4096)
            if not more:
                break
            payload += more
    if not fds:
        raise ValueError(f"what was sent at {path} carries no file descriptor")
    try:
        message = json.loads(payload)
        device = device_with_uuid(message["deviceUuid"])
        _use_device(device)
        pool = ctypes.c_void_p()
        driver()("cuMemPoolImportFromShareableHandle", ctypes.byref(pool), ctypes.c_void_p(fds[0]),
                 _POSIX_FILE_DESCRIPTOR, 0)
    finally:
        os.close(fds[0])
    return ImportedPool(pool.value, message["pool"], device)


def create_ipc_pool(device=0):
    """A CUDA memory pool on ``device`` that can be shared (CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    allocate with ``driver()("cuMemAllocFromPoolAsync", ...)``."""
    _use_device(device)
    props = _PoolProps()
    props.alloc_type = 1  # CU_MEM_ALLOCATION_TYPE_PINNED
    props.handle_types = _POSIX_FILE_DESCRIPTOR
    props.location_type = 1  # CU_MEM_LOCATION_TYPE_DEVICE
    props.location_id = device
    pool = ctypes.c_void_p()
    driver()("cuMemPoolCreate", ctypes.byref(pool), ctypes.byref(props))
    return pool.value


def handle_from_pool_pointer(ptr, size, device=None):
    """A handle to ``size`` bytes at ``ptr`` in an allocation of a shareable pool (the allocation's
    export data and the offset in it); Node opens it after receiving the pool (serve_pool)."""
    if device is None:
        device = _current_device() or 0
    _use_device(device)
    pool = _pool_of(ptr)
    if not pool:
        raise ValueError("not memory of a CUDA memory pool: use handle_from_pointer")
    base, _ = _address_range(ptr)
    _export_pool_once(pool)
    export = _PoolPtrExportData()
    driver()("cuMemPoolExportPointer", ctypes.byref(export), base)
    return _handle("pool", bytes(export), ptr - base, size, device, pool_id(pool))


_exported_pools = set()


def _export_pool_once(pool):
    # The driver refuses to export a pointer (CUDA_ERROR_INVALID_VALUE) of a pool that was never
    # exported itself; the descriptor is not needed here (serve_pool exports its own).
    if pool in _exported_pools:
        return
    fd = ctypes.c_int(-1)
    driver()("cuMemPoolExportToShareableHandle", ctypes.byref(fd), pool, _POSIX_FILE_DESCRIPTOR, 0)
    os.close(fd.value)
    _exported_pools.add(pool)


def serve_pool(pool, path, device=0, timeout=60.0):
    """Shares a pool with one process (rmmjs's ``receiveIpcPool(path)``): listens on a Unix socket at
    ``path``, sends the pool's descriptor to the first process that connects. Blocks; run it on a
    thread to go on meanwhile."""
    _use_device(device)
    fd = ctypes.c_int(-1)
    driver()("cuMemPoolExportToShareableHandle", ctypes.byref(fd), pool, _POSIX_FILE_DESCRIPTOR, 0)
    payload = json.dumps({"version": 1, "pool": pool_id(pool), "deviceUuid": device_uuid(device)}).encode() + b"\n"
    try:
        if os.path.exists(path) and stat.S_ISSOCK(os.lstat(path).st_mode):
            os.unlink(path)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
            listener.bind(path)
            listener.listen(1)
            listener.settimeout(timeout)
            try:
                connection, _ = listener.accept()
            finally:
                os.unlink(path)
            with connection:
                socket.send_fds(connection, [payload], [fd.value])
    finally:
        os.close(fd.value)
