"""Counting under ``torch.compile``, with batch shapes bucketed so that a loop compiles a handful of graphs.

``torch.compile(..., dynamic=False)`` compiles one graph per input shape. A validation loop's batches
change width at every step (the longest sentence of each batch), so :class:`CompiledCounter` pads
every batch up to a *bucket*: the width (hypotheses and references alike) and the batch size to the
next power of two, 8 at least. Widths from 5 to 300 then take 7 graphs (8, 16, ..., 512). The padding
is described by the batch's row lengths, which the engine already honours, so it adds no n-gram, and
the padded sentences are cut off before anything is summed: the statistics equal the eager ones
exactly.

Example:
    >>> import torch
    >>> from torch_bleu.inputs.ids import token_batch
    >>> counter = CompiledCounter(BLEUConfig(ignore_ids=[0]), {"backend": "eager"})
    >>> counter(token_batch(torch.tensor([[5, 6, 7, 0]]), torch.tensor([[5, 6, 8]]))).matches.tolist()
    [[2, 1, 0, 0]]
    >>> bucket(5), bucket(9), bucket(300)
    (8, 16, 512)
"""

from __future__ import annotations

import itertools
import types
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F

from ...arrays import int64_like
from ...inputs.batch import TokenBatch
from ...text.code_points import PAD
from .config import BLEUConfig
from .counting import count_statistics
from .statistics import SentenceStatistics

_COUNTERS: dict[tuple[BLEUConfig, tuple[tuple[str, Any], ...]], CompiledCounter] = {}

#: The smallest bucket: widths and batch sizes below it are padded to it.
SMALLEST_BUCKET = 8

#: What ``BLEUScore(compile=True)`` passes to ``torch.compile``; a dict given as ``compile=`` is added to it.
DEFAULT_COMPILE_OPTIONS: dict[str, Any] = {"fullgraph": True, "dynamic": False}


def bucket(size: int) -> int:
    """The next power of two at or above ``size``, :data:`SMALLEST_BUCKET` at least."""
    return max(SMALLEST_BUCKET, 1 << max(size - 1, 0).bit_length())


def bucketed(batch: TokenBatch) -> TokenBatch:
    """``batch`` padded to bucketed batch size and width; what was added lies outside every row's length.

    Example:
        >>> from torch_bleu.inputs.ids import token_batch
        >>> padded = bucketed(token_batch(torch.tensor([[5, 6, 7]]), torch.tensor([[5, 6]])))
        >>> tuple(padded.preds.shape), tuple(padded.target.shape), padded.row_lengths[:2].tolist()
        ((8, 8), (8, 1, 8), [[3, 2], [0, 0]])
    """
    size, hyp_width = batch.preds.shape
    num_refs, ref_width = batch.target.shape[1:]
    rows, width = bucket(size) - size, bucket(max(hyp_width, ref_width))
    row_lengths = batch.row_lengths
    if row_lengths is None:  # padded tensors: every row spans its width
        row_lengths = int64_like((hyp_width, *[ref_width] * num_refs), batch.preds).expand(size, 1 + num_refs)
    ref_present, reference_chars = batch.ref_present, batch.reference_chars
    if reference_chars is not None:  # reference strings: their characters padded like the ids
        text_width = bucket(reference_chars.shape[-1])
        reference_chars = F.pad(reference_chars, (0, text_width - reference_chars.shape[-1], 0, 0, 0, rows), value=PAD)
    return TokenBatch(
        F.pad(batch.preds, (0, width - hyp_width, 0, rows)),
        F.pad(batch.target, (0, width - ref_width, 0, 0, 0, rows)),
        None if ref_present is None else F.pad(ref_present, (0, 0, 0, rows)),
        F.pad(row_lengths, (0, 0, 0, rows)),
        reference_chars,
    )


def compiled_counter(config: BLEUConfig, options: dict[str, Any] | None = None) -> CompiledCounter:
    """The :class:`CompiledCounter` of ``config`` and ``options``, made once and shared (compiled graphs included).

    Metrics keep only their options, so they stay picklable and copyable; all metrics that count alike
    share the graphs.
    """
    key = (config, tuple(sorted((options or {}).items())))
    if key not in _COUNTERS:
        _COUNTERS[key] = CompiledCounter(config, options)
    return _COUNTERS[key]


def _own_code(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` with a code object of its own.

    ``torch.compile`` keeps its graphs, and counts recompilations against its limit (8), per code
    object; every counter's ``count`` shares one, so without this a program with a few compiled
    metrics (other options, other devices) would run into the limit together.
    """
    code = function.__code__.replace(co_name=f"{function.__name__}_{next(_COUNTER_NUMBERS)}")
    return types.FunctionType(code, function.__globals__, code.co_name, function.__defaults__, function.__closure__)


_COUNTER_NUMBERS = itertools.count()


class CompiledCounter:
    """:func:`~.counting.count_statistics` for one ``config``, compiled, on bucketed batches.

    Args:
        config: how to count.
        options: ``torch.compile`` keyword arguments, over :data:`DEFAULT_COMPILE_OPTIONS`
            (e.g. ``{"mode": "reduce-overhead"}`` for CUDA graphs, ``{"backend": "eager"}``).
    """

    def __init__(self, config: BLEUConfig, options: dict[str, Any] | None = None) -> None:
        def count(batch: TokenBatch) -> SentenceStatistics:
            return count_statistics(batch, config)

        self.options = {**DEFAULT_COMPILE_OPTIONS, **(options or {})}
        self._compiled: Callable[[TokenBatch], SentenceStatistics] = torch.compile(_own_code(count), **self.options)

    def __call__(self, batch: TokenBatch) -> SentenceStatistics:
        """The statistics of ``batch``'s sentences (the padded ones cut off)."""
        size = batch.preds.shape[0]
        stats = self._compiled(bucketed(batch))
        return SentenceStatistics(*(field[:size] for field in stats))
