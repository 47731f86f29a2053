"""Batches of ids a metric counts together, where they are: ``update()`` checks a batch of ids (or subword
ids) and queues it; the queue is counted with the queued text's rules (:mod:`.queued_text`): when a state
is read, or when it holds :data:`~.queued_text.MOST_QUEUED` sentences.

On an accelerator a batch of ids costs a chain of kernels whatever its size (ids dropped and cut at EOS,
n-grams sorted, rows aligned, subword ids decoded), so a loop of batches of 8 is bound by their launches;
queued, a thousand sentences cost one chain. On the CPU the same holds for NumPy's and PyTorch's calls
(a loop of 128 batches of 8 x 30 ids, one thread: BLEU 31 to 11 ms, WER 19 to 7, ROUGE 85 to 16). No
update waits for the device: the checks read shapes and dtypes (and, on the CPU only, a detokenizer's
vocabulary). The queue holds copies of the checked batches
(:class:`~torch_bleu.inputs.batch.TokenBatch`), which the count joins into one
(:func:`~torch_bleu.inputs.batch.joined_batches`: padded with ids no row keeps, absent references where a
sentence has fewer) and counts as the metric counts any batch of ids, so every rule is applied where it
always is. Batches are joined with those of a similar width (up to the next power of two), so that one
long batch does not widen a thousand short ones; the statistics come back in the order of the updates.

Example:
    >>> from torch_bleu import WERScore
    >>> from torch_bleu.metrics.queued_text import QUEUE
    >>> metric = WERScore().to("meta")  # counted as on an accelerator: sizes from shapes only
    >>> ids = torch.zeros(2, 5, dtype=torch.int64, device="meta")
    >>> metric.update(ids, ids)  # the first batch of ids at once
    >>> metric.update(ids, ids)
    >>> len(metric.__dict__[QUEUE])  # checked and queued, not counted yet
    2
    >>> metric.hits.device.type, len(metric.__dict__[QUEUE])  # reading a state counts the queue
    ('meta', 0)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch
from torch import Tensor

from ..inputs.batch import TokenBatch, joined_batches
from .queued_text import QueuedBatches


@dataclass
class QueuedIds(QueuedBatches):
    """Checked batches of ids (copies, on their device), in order, and each batch's weight and dataset indices."""

    ids: list[TokenBatch] = field(default_factory=list)

    def add(self, batch: TokenBatch, weight: Tensor | None, indices: Tensor | None, copy: bool = True) -> None:
        """Queue a checked batch: a copy (the caller may reuse its tensors), unless it is counted before
        ``update`` returns."""
        if copy:
            batch = TokenBatch(*(None if value is None else value.clone() for value in batch))
        self.ids.append(batch)
        self.add_batch(batch.preds.shape[0], weight, indices)

    def joined(self) -> list[tuple[list[int], TokenBatch]]:
        """The queued batches joined (:func:`~torch_bleu.inputs.batch.joined_batches`) with those alike: on
        the same device, of the same width up to the next power of two, and with references of the same
        kind; each group with the queue positions of its sentences.

        Example:
            >>> queue = QueuedIds()
            >>> for width in (3, 30, 4):
            ...     ids = torch.ones(2, width, dtype=torch.int64)
            ...     queue.add(TokenBatch(ids, ids[:, None, :3]), None, None)
            >>> [(positions, tuple(batch.preds.shape)) for positions, batch in queue.joined()]
            [([0, 1, 4, 5], (4, 4)), ([2, 3], (2, 30))]
        """
        groups: dict[tuple[str, int, bool, bool], tuple[list[int], list[TokenBatch]]] = {}
        start = 0
        for batch in self.ids:
            size = batch.preds.shape[0]
            positions, batches = groups.setdefault(_join_key(batch), ([], []))
            positions.extend(range(start, start + size))
            batches.append(batch)
            start += size
        return [(positions, joined_batches(batches)) for positions, batches in groups.values()]


def _join_key(batch: TokenBatch) -> tuple[str, int, bool, bool]:
    """What batches joined together share: their device, the width of their widest rows up to the next
    power of two, whether ``ref_present`` says which references count, and whether the references are
    strings."""
    widths = [batch.preds.shape[-1], batch.target.shape[-1]]
    if batch.reference_chars is not None:
        widths.append(batch.reference_chars.shape[-1])
    presence, strings = batch.ref_present is not None, batch.reference_chars is not None
    return str(batch.preds.device), (max(widths) - 1).bit_length(), presence, strings


def in_queue_order(positions: list[list[int]], statistics: list[list[Tensor]]) -> list[Tensor]:
    """Each statistic of every queued sentence, in queue order, from those of each group of joined batches
    (``statistics[g]``, of the sentences at queue ``positions[g]``).

    Example:
        >>> in_queue_order([[0, 2], [1]], [[torch.tensor([10, 30])], [torch.tensor([20])]])
        [tensor([10, 20, 30])]
    """
    if len(statistics) == 1:
        return statistics[0]
    order = np.argsort(np.concatenate([np.asarray(group, dtype=np.int64) for group in positions]), kind="stable")
    joined = [torch.cat(values) for values in zip(*statistics)]
    return [values[torch.from_numpy(order).to(values.device)] for values in joined]
