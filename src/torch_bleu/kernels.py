"""Which kernels run the dynamic programmes of the device path (WER's alignments, ROUGE's LCS): Triton's or
PyTorch's.

The device path counts padded rows with sizes from shapes only (no host sync). Its alignments have two
implementations with the same numbers: PyTorch operations over whole batches, one reference token at a
time, which run anywhere; and Triton kernels, each pair's dynamic programme inside one program, which
need Triton (it ships with PyTorch's CUDA builds on Linux). The environment variable
``TORCH_BLEU_KERNELS`` chooses:

* ``auto`` (the default): Triton's kernels for CUDA tensors when ``triton`` imports, PyTorch's otherwise;
* ``torch``: PyTorch's always;
* ``triton``: Triton's for every tensor on the device path. CPU tensors then take the device path too,
  and run the kernels in Triton's interpreter, which needs ``TRITON_INTERPRET=1`` set before Triton is
  first imported (``torch.compile`` imports it): that is how the kernels are tested without a GPU (slowly).

Triton is imported only when a kernel is about to run, never with the package.

Example:
    >>> import os, torch
    >>> os.environ.get(KERNELS_VARIABLE, "auto") in KERNEL_CHOICES
    True
    >>> kernels_on_cpu() or not triton_runs(torch.device("cpu"))
    True
"""

from __future__ import annotations

import functools
import importlib.util
import os
from typing import TYPE_CHECKING, Literal, get_args

from .errors import InputError

if TYPE_CHECKING:
    from torch import device as Device

#: The environment variable that chooses the kernels.
KERNELS_VARIABLE = "TORCH_BLEU_KERNELS"
#: Its values.
KernelChoice = Literal["auto", "torch", "triton"]
KERNEL_CHOICES: tuple[str, ...] = get_args(KernelChoice)


def kernel_choice() -> KernelChoice:
    """The value of ``TORCH_BLEU_KERNELS`` (``"auto"`` when unset), checked."""
    value = os.environ.get(KERNELS_VARIABLE, "auto").strip().lower() or "auto"
    if value not in KERNEL_CHOICES:
        raise InputError(f"{KERNELS_VARIABLE}={value!r} is not a kernel choice: use one of {', '.join(KERNEL_CHOICES)}")
    return value  # type: ignore[return-value]  # checked against the Literal's values above


def kernels_on_cpu() -> bool:
    """Whether CPU tensors take the device path to run Triton's kernels (``TORCH_BLEU_KERNELS=triton``)."""
    return kernel_choice() == "triton"


@functools.cache
def triton_installed() -> bool:
    """Whether ``triton`` can be imported (looked up, not imported)."""
    return importlib.util.find_spec("triton") is not None


def triton_runs(device: Device) -> bool:
    """Whether the device path's dynamic programmes run as Triton kernels for tensors on ``device``.

    Raises:
        InputError: ``TORCH_BLEU_KERNELS=triton`` where Triton is missing, or for CPU tensors without
            ``TRITON_INTERPRET=1``.
    """
    choice = kernel_choice()
    if choice == "torch":
        return False
    if choice == "auto":
        return device.type == "cuda" and triton_installed()
    if not triton_installed():
        raise InputError(f"{KERNELS_VARIABLE}=triton needs Triton: pip install triton (or unset {KERNELS_VARIABLE})")
    if device.type == "cpu" and os.environ.get("TRITON_INTERPRET") != "1":
        raise InputError(
            f"{KERNELS_VARIABLE}=triton runs CPU tensors in Triton's interpreter: set TRITON_INTERPRET=1 too "
            "(before Triton is first imported)"
        )
    return True


def interpreted(kernel: object) -> bool:
    """Whether ``kernel`` (a ``@triton.jit`` function) runs in Triton's interpreter, Triton's own functions too:
    as ``TRITON_INTERPRET`` said when Triton was first imported and when the kernel was defined."""
    import triton
    import triton.language as tl

    return not isinstance(tl.zeros, triton.JITFunction) and not isinstance(kernel, triton.JITFunction)


def check_runs_on(device: Device, kernel: object) -> None:
    """Refuse to run ``kernel`` on CPU tensors unless it runs in Triton's interpreter (:func:`interpreted`).

    Raises:
        InputError: CPU tensors, and Triton imported before ``TRITON_INTERPRET=1`` was set.
    """
    if device.type == "cpu" and not interpreted(kernel):
        raise InputError(
            "Triton was imported before TRITON_INTERPRET=1 was set, so its kernels cannot run on CPU tensors: set "
            f"it before anything imports Triton (torch.compile does), or unset {KERNELS_VARIABLE}"
        )
