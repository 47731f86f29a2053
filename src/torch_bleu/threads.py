"""The library's share of the CPU: its own work runs on a bounded number of threads, the caller's settings kept.

PyTorch's intra-op pool and NumPy's BLAS start one thread per core. On a machine where other
processes keep the cores busy, a parallel operation waits for its slowest thread, which the OS has
descheduled: measured beside as many busy processes as cores, the default pools made 0.1 s workloads
take 0.5 to 5 s. The library's operations are short (a sort of a batch's n-grams, a pass over its
tokens), so a second thread gains little when the machine is quiet and costs several times when it
is not. Every public entry point therefore runs inside :func:`cpu_share`, which lowers PyTorch's
intra-op threads (and, where the library calls NumPy's BLAS, the BLAS pool, with ``threadpoolctl``)
to :func:`get_cpu_threads` for the length of the call and restores them afterwards, so the caller's
own model keeps the threads it was given.

Example:
    >>> import torch, torch_bleu
    >>> threads = torch.get_num_threads()
    >>> with cpu_share():
    ...     torch.get_num_threads()
    1
    >>> torch.get_num_threads() == threads
    True
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

__all__ = ["cpu_share", "get_cpu_threads", "set_cpu_threads", "within_cpu_share"]

Function = TypeVar("Function", bound=Callable[..., Any])

_threads: int | None = 1
_lock = threading.Lock()
_depth = 0  # calls of the library under way (they nest: a metric's update calls the engine)
_saved_torch_threads: int | None = None
_blas_controller: Any = None


def set_cpu_threads(threads: int | None) -> None:
    """How many CPU threads the library's own work may use: ``1`` by default; ``None`` leaves PyTorch's
    and BLAS's settings as the caller has them (every call then uses them all).

    Example:
        >>> set_cpu_threads(2); get_cpu_threads()
        2
        >>> set_cpu_threads(1)
    """
    global _threads
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
        raise ValueError(f"threads must be a positive int or None, got {threads!r}")
    _threads = threads


def get_cpu_threads() -> int | None:
    """The bound :func:`set_cpu_threads` set (``None``: no bound)."""
    return _threads


@contextmanager
def cpu_share(blas: bool = False) -> Iterator[None]:
    """Run the block on at most :func:`get_cpu_threads` of PyTorch's intra-op threads (and, with ``blas``,
    of NumPy's BLAS threads), restoring the caller's settings when the outermost such block ends.

    PyTorch is bounded only where it is imported already (the command line counts without it), and
    not while ``torch.compile`` traces (a compiled graph has no thread setting to change).
    """
    if _threads is None:
        yield
        return
    entered = _enter()
    try:
        if blas:
            with _blas_controller_now().limit(limits=_threads, user_api="blas"):
                yield
        else:
            yield
    finally:
        _leave(entered)


def within_cpu_share(function: Function) -> Function:
    """``function`` run inside :func:`cpu_share` (a decorator for the library's entry points)."""

    @functools.wraps(function)
    def bounded(*args: Any, **kwargs: Any) -> Any:
        if _threads is None:
            return function(*args, **kwargs)
        entered = _enter()
        try:
            return function(*args, **kwargs)
        finally:
            _leave(entered)

    return bounded  # type: ignore[return-value]


def _enter() -> bool:
    """Count a call of the library in; the outermost lowers PyTorch's threads. ``False`` while tracing."""
    global _depth, _saved_torch_threads
    torch = sys.modules.get("torch")
    if torch is not None and torch.compiler.is_compiling():
        return False
    with _lock:
        if _depth == 0 and torch is not None:
            threads = torch.get_num_threads()
            if _threads is not None and threads > _threads:
                _saved_torch_threads = threads
                torch.set_num_threads(_threads)
        _depth += 1
    return True


def _leave(entered: bool) -> None:
    """Count a call of the library out; the last one gives PyTorch's threads back."""
    global _depth, _saved_torch_threads
    if not entered:
        return
    with _lock:
        _depth -= 1
        if _depth == 0 and _saved_torch_threads is not None:  # PyTorch was imported to save it
            sys.modules["torch"].set_num_threads(_saved_torch_threads)
            _saved_torch_threads = None


def _blas_controller_now() -> Any:
    """``threadpoolctl``'s view of the BLAS libraries loaded, made once (it reads the loaded libraries)."""
    global _blas_controller
    if _blas_controller is None:
        from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]

        _blas_controller = ThreadpoolController()
    return _blas_controller
