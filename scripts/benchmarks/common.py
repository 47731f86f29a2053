"""What every part of the benchmark shares: the special ids, the contenders' names, the sizes of the workloads."""

from __future__ import annotations

import argparse
import platform
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from torch import Tensor

PAD, BOS, EOS = 0, 1, 2
SPECIAL_IDS = (PAD, BOS, EOS)
FIRST_WORD_ID = 3
CONTENDERS = ("nltk", "sacrebleu", "torchmetrics", "torch-bleu", "torch-bleu (nltk convention)")
Batch = tuple[Tensor, Tensor]  # preds (B, Lp), target (B, Lt) or (B, R, Lt)


@dataclass(frozen=True)
class Sizes:
    """How large each workload is."""

    wmt17_systems: int | None  # the first this many systems (None: all 16)
    wmt17_lines: int | None  # the first this many sentences of each system (None: all)
    text_systems: int  # the first this many systems of the ``text`` workload (also limited by wmt17_lines)
    text_batch: int  # sentences per ``update`` of the ``text`` workload's metrics
    grid: tuple[int, ...]  # the batch sizes B, which are also the row lengths L
    grid_sample_tokens: int  # about this many token slots for the Python contenders, per grid cell
    rl: tuple[int, int]  # B x L of the RL batch
    rl_sample: int  # rows the Python contenders score one by one
    update: tuple[int, int]  # B x L of the batch that ``update`` is timed on
    memory_batch: int  # B of the memory workload's batches
    memory_widths: tuple[int, ...]  # L of the memory workload's batches
    batches_systems: int  # the first this many systems of the ``batches`` workload
    batches_lines: int | None  # the first this many sentences of each (None: all)


FULL = Sizes(
    wmt17_systems=None,
    wmt17_lines=None,
    text_systems=4,
    text_batch=256,
    grid=(32, 64, 128, 256, 512, 1024),
    grid_sample_tokens=16384,
    rl=(256, 1024),
    rl_sample=32,
    update=(256, 1024),
    memory_batch=256,
    memory_widths=(64, 128, 256, 512, 1024, 2048, 4096),
    batches_systems=4,
    batches_lines=None,
)
# A smoke run: every workload and contender, on inputs so small that imports dominate. Two WMT17 batches
# per system (128 and 64 sentences), so that the metric is updated more than once; the same for the text.
QUICK = Sizes(
    wmt17_systems=2,
    wmt17_lines=192,
    text_systems=2,
    text_batch=128,
    grid=(16, 32),
    grid_sample_tokens=512,
    rl=(32, 64),
    rl_sample=4,
    update=(32, 64),
    memory_batch=32,
    memory_widths=(32, 64),
    batches_systems=2,
    batches_lines=40,
)


def workload_sizes(args: argparse.Namespace) -> Sizes:
    """``QUICK`` for ``--quick``, else ``FULL``."""
    return QUICK if args.quick else FULL


def cpu_name() -> str:
    """The CPU's model name where Linux says it, else what Python's platform module knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def counted_update(metric: Any, preds: Tensor, target: Tensor) -> None:
    """``metric.update`` and the count of the batch it queued: the whole work of one batch (a metric counts
    its queued batches when it is read, or when a thousand sentences wait)."""
    metric.update(preds, target)
    count = getattr(metric, "count_queued", None)  # a tree from before the queue of ids counts them at once
    if count is not None:
        count()
