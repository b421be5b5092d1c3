# SPDX-License-Identifier: MIT
"""libt2t.so through ctypes: the C API's structs, its status codes as
Python exceptions, and the handles (one set per thread and process)."""

import ctypes
import os
import threading
import weakref

import numpy as np

API_VERSION = 1
LEN_MIN, LEN_MAX = 6, 256
FEE_PCT = 0.09
SYMBOL_MAX = 8
LIMIT_GATEWAY = 0xFFFFFFFF
KERNELS = {"incremental": 0, "batch": 1, "scalar": 2}


class Error(Exception):
    """A failure reported by libt2t: .status is its T2T_* name."""

    def __init__(self, message, status="T2T_EINVAL"):
        super().__init__(message)
        self.status = status


class ArgumentError(Error, ValueError):
    """A bad argument (T2T_EINVAL)."""


class RangeError(Error, ValueError):
    """A price or a length out of range, a NaN, a close that is no Price(4) (T2T_ERANGE)."""


class DayFileError(Error, OSError):
    """A file that cannot be opened or read (T2T_EIO)."""


class FormatError(Error, ValueError):
    """A day file or capture log that is not well formed (T2T_EFORMAT)."""


class SymbolError(Error, LookupError):
    """A symbol not in the day's stock directory (T2T_ENOSYM)."""


class LimitError(Error, ValueError):
    """More than the library was opened for (T2T_ELIMIT)."""


_BY_STATUS = {
    -1: ArgumentError, -2: RangeError, -3: Error, -4: DayFileError, -5: FormatError,
    -6: SymbolError, -8: LimitError, -9: Error,
}
ESPACE = -7


class Options(ctypes.Structure):
    _fields_ = [("threads", ctypes.c_uint32), ("max_lengths", ctypes.c_uint32),
                ("max_combos", ctypes.c_uint32), ("max_symbols", ctypes.c_uint32),
                ("book_orders", ctypes.c_uint32), ("isa", ctypes.c_uint32),
                ("days", ctypes.c_uint32)]


class Combo(ctypes.Structure):
    _fields_ = [("symbol", ctypes.c_char * (SYMBOL_MAX + 1)), ("pad", ctypes.c_uint8 * 3),
                ("length", ctypes.c_uint32), ("unit", ctypes.c_uint32)]


class Result(ctypes.Structure):
    _fields_ = [("ticks", ctypes.c_uint64), ("refused", ctypes.c_uint64),
                ("orders", ctypes.c_uint64), ("fills", ctypes.c_uint64),
                ("trades", ctypes.c_uint64), ("position", ctypes.c_int64),
                ("max_position", ctypes.c_int64), ("cash", ctypes.c_int64),
                ("pnl", ctypes.c_int64), ("pnl_pct", ctypes.c_double),
                ("last_price", ctypes.c_uint32), ("pad", ctypes.c_uint32)]


class Order(ctypes.Structure):
    _fields_ = [("md_seq", ctypes.c_uint64), ("cash", ctypes.c_uint64),
                ("combo", ctypes.c_uint32), ("shares", ctypes.c_uint32),
                ("filled", ctypes.c_uint32), ("price", ctypes.c_uint32),
                ("side", ctypes.c_char), ("pad", ctypes.c_uint8 * 7)]


class Day(ctypes.Structure):
    _fields_ = [("messages", ctypes.c_uint64), ("prints", ctypes.c_uint64),
                ("seconds", ctypes.c_double)]


STAGES = 9


class CaptureRec(ctypes.Structure):
    _fields_ = [("order_no", ctypes.c_uint64), ("md_seq", ctypes.c_uint64),
                ("symbol", ctypes.c_char * (SYMBOL_MAX + 1)), ("side", ctypes.c_char),
                ("outcome", ctypes.c_uint8), ("flags", ctypes.c_uint8),
                ("shares", ctypes.c_uint32), ("price", ctypes.c_uint32),
                ("t_send", ctypes.c_uint64), ("t_hook", ctypes.c_uint64),
                ("t_seen", ctypes.c_uint64), ("t_decided", ctypes.c_uint64),
                ("t_queued", ctypes.c_uint64), ("t_sent", ctypes.c_uint64),
                ("t_ack", ctypes.c_uint64), ("exch_ts", ctypes.c_uint64),
                ("stage_ns", ctypes.c_int64 * STAGES)]


ORDER_DTYPE = np.dtype(Order)
RESULT_DTYPE = np.dtype(Result)
CAPTURE_DTYPE = np.dtype(CaptureRec)


def _find_library():
    """$T2T_LIB, else build/libt2t.so of the tree this package sits in."""
    path = os.environ.get("T2T_LIB")
    if path:
        return path
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(here, "..", "..", "build", "libt2t.so")


def _load():
    path = _find_library()
    if not os.path.exists(path):
        raise ImportError(f"t2t: {path} is missing: run make at the top of the tree "
                          "(or point T2T_LIB at a libt2t.so)")
    lib = ctypes.CDLL(path)
    P, u32, u64, sz, dbl = ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint64, ctypes.c_size_t, ctypes.c_double
    sigs = {
        "t2t_api_version": (ctypes.c_int, []),
        "t2t_open": (ctypes.c_int, [ctypes.POINTER(P), ctypes.POINTER(Options), ctypes.c_char_p, sz]),
        "t2t_close": (None, [P]),
        "t2t_error": (ctypes.c_char_p, [P]),
        "t2t_status_name": (ctypes.c_char_p, [ctypes.c_int]),
        "t2t_isa": (ctypes.c_char_p, [P]),
        "t2t_threads": (u32, [P]),
        "t2t_sweep_u32": (ctypes.c_int, [P, P, sz, P, sz, dbl, ctypes.c_int, P, P]),
        "t2t_sweep_f64": (ctypes.c_int, [P, P, sz, P, sz, dbl, ctypes.c_int, P, P]),
        "t2t_research_day": (ctypes.c_int, [P, ctypes.c_char_p, P, sz, P, P, sz,
                                            ctypes.POINTER(sz), ctypes.POINTER(Day)]),
        "t2t_replay_day": (ctypes.c_int, [P, ctypes.c_char_p, ctypes.POINTER(Day)]),
        "t2t_paper_day": (ctypes.c_int, [P, ctypes.c_char_p, P, sz, u64, u32, P, P, sz,
                                         ctypes.POINTER(sz)]),
        "t2t_stage_name": (ctypes.c_char_p, [ctypes.c_uint]),
        "t2t_outcome_name": (ctypes.c_char_p, [ctypes.c_uint]),
        "t2t_read_capture": (ctypes.c_int, [P, ctypes.c_char_p, P, sz, ctypes.POINTER(sz)]),
    }
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args
    if lib.t2t_api_version() != API_VERSION:
        raise ImportError(f"t2t: {path} speaks API version {lib.t2t_api_version()}, "
                          f"this package {API_VERSION}: rebuild with make")
    return lib


lib = _load()


def check(handle, status):
    """Raise the exception of a failed call (its message from t2t_error())."""
    if status == 0:
        return
    msg = lib.t2t_error(handle).decode(errors="replace") if handle else ""
    name = lib.t2t_status_name(status).decode()
    raise _BY_STATUS.get(status, Error)(msg or name, name)


class Handle:
    """One libt2t handle, closed when collected or at exit."""

    def __init__(self, days=False, threads=0):
        opt = Options(threads=threads, days=1 if days else 0)
        h = ctypes.c_void_p()
        err = ctypes.create_string_buffer(512)
        status = lib.t2t_open(ctypes.byref(h), ctypes.byref(opt), err, len(err))
        if status:
            raise _BY_STATUS.get(status, Error)(err.value.decode(errors="replace"),
                                                lib.t2t_status_name(status).decode())
        self.ptr = h.value
        self.pid = os.getpid()
        self._fin = weakref.finalize(self, _close, h.value, self.pid)


def _close(ptr, pid):
    # A forked child inherits the pointer but not the threads: only the opener closes it.
    if os.getpid() == pid:
        lib.t2t_close(ptr)


_local = threading.local()


def handle(days=False):
    """This thread's handle (for sweeps, or for days), opened on first use."""
    key = "days" if days else "sweep"
    h = getattr(_local, key, None)
    if h is None or h.pid != os.getpid():
        h = Handle(days=days)
        setattr(_local, key, h)
    return h.ptr
