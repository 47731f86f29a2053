"""The ``--device`` option of the examples and of ``scripts/bench.py``, checked as the command line is read,
and the options every training example shares (:func:`add_run_options`).

``usable_device`` is an argparse ``type=``. A device that PyTorch cannot use here (``cuda`` on a machine
without a GPU or with a CPU-only build of PyTorch, a GPU index beyond the last one, a misspelt name)
ends the program before any data is loaded or any model is built, with argparse's usage, one line of
error and exit status 2, as ``torch-bleu``'s own command line does::

    seq2seq_validation.py: error: argument --device: device 'cuda' is not usable: Torch not compiled with CUDA enabled

Example:
    >>> parser = argparse.ArgumentParser()
    >>> _ = parser.add_argument("--device", type=usable_device, default="cpu")
    >>> parser.parse_args([]).device
    device(type='cpu')
"""

from __future__ import annotations

import argparse

import torch


def usable_device(name: str) -> torch.device:
    """argparse ``type=``: the ``torch.device`` named ``name``, once PyTorch is known to be able to use it.

    Raises ``argparse.ArgumentTypeError`` with PyTorch's reason, on one line, when it cannot.
    """
    return _checked_device(name, shown=name)


def add_run_options(parser: argparse.ArgumentParser, seeded: str) -> None:
    """Add the options of a training example: ``--device`` (a GPU when PyTorch sees one), ``--seed`` (of
    ``seeded``) and ``--threads``.

    Example:
        >>> parser = argparse.ArgumentParser()
        >>> add_run_options(parser, "the data and the model")
        >>> args = parser.parse_args(["--device", "cpu", "--seed", "3"])
        >>> args.device, args.seed, args.threads
        (device(type='cpu'), 3, 1)
    """
    parser.add_argument(
        "--device",
        type=usable_device,
        default="cuda" if torch.cuda.is_available() else "cpu",
        help="torch device (default: cuda when PyTorch sees a GPU, else cpu)",
    )
    parser.add_argument("--seed", type=int, default=0, help=f"seed of {seeded}")
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="CPU threads for torch (one suits a model this small, above all on a busy machine)",
    )


def usable_accelerator(name: str) -> str:
    """argparse ``type=`` for PyTorch Lightning's ``accelerator``: ``name`` itself, once it is known to work.

    ``auto`` lets Lightning choose; ``gpu`` needs CUDA (or MPS on a Mac); a PyTorch device type (``cpu``,
    ``cuda``, ``mps``...) is checked as :func:`usable_device` checks it. Names PyTorch does not know as
    devices (``tpu``) are left for Lightning to check.
    """
    if name == "auto":
        return name
    if name == "gpu":
        _checked_device("mps" if torch.backends.mps.is_available() else "cuda", shown=name)
        return name
    try:
        torch.device(name)
    except RuntimeError:
        return name
    usable_device(name)
    return name


def _checked_device(name: str, shown: str) -> torch.device:
    """The device ``name``, or ``argparse.ArgumentTypeError`` calling it ``shown`` (the name given)."""
    try:
        device = torch.device(name)
        _check_usable(device)
    except (RuntimeError, AssertionError, NotImplementedError) as error:
        raise argparse.ArgumentTypeError(f"device {shown!r} is not usable: {_first_line(error)}") from None
    return device


def _check_usable(device: torch.device) -> None:
    """Raise with PyTorch's reason when ``device`` cannot hold tensors here.

    CUDA is asked without allocating: an allocation would open a context on the first GPU in every
    process of a multi-GPU run, before each process has picked its own GPU.
    """
    if device.type == "cuda":
        torch.cuda.init()  # type: ignore[no-untyped-call]  # raises when this PyTorch or machine has no CUDA
        count = torch.cuda.device_count()
        if (device.index or 0) >= count:
            raise RuntimeError(f"PyTorch sees {count} GPU{'' if count == 1 else 's'}")
    elif device.type == "mps":
        if not torch.backends.mps.is_available():
            built = torch.backends.mps.is_built()
            raise RuntimeError("this machine has no MPS device" if built else "PyTorch is built without MPS")
    else:
        torch.empty(0, device=device)


def _first_line(error: BaseException) -> str:
    """The first line of ``error``'s message (PyTorch's longer messages go on with advice and lists)."""
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__
