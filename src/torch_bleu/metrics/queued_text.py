"""Text batches a metric counts together: ``update()`` checks a batch of strings and queues it; the queue is
counted when a state of the metric is read, in parts of the metric's ``text_part`` sentences (at most
:data:`MOST_QUEUED`; BLEU's 512, whose word numbering slows once its arrays outgrow the caches). Batches
of ids are queued alike (:mod:`.queued_ids`), with what every queue shares here: :class:`QueuedBatches`
(each batch's size, weight and indices) and :class:`CountedState`.

Counting text has a cost per call (tokenizing, numbering words, a few dozen array operations) that a
validation loop's batches of 8 or 32 sentences pay again and again; counted a thousand sentences at a
time it is paid once. Every sentence's statistics are its own, so counting the queue in parts gives the
statistics counting each batch would; a batch larger than a part is counted in parts too. Nothing
reads the states without counting the queue first: each state is a :class:`CountedState`, so
``compute()``, ``forward()``, DDP syncs, ``merge_state``, ``state_dict``, ``.to(device)``, a
``MetricCollection`` and a user's ``metric.<state>`` all see every update. The queue holds at most
:data:`MOST_QUEUED` sentences, of one kind (a batch of the other kind counts it first, so that sentences
are counted in the order of the updates); ``reset()`` empties it. A metric's first batch of each kind is
counted at once, so that a missing extra or tokenizer dictionary is reported by that ``update()``; a
count that fails later leaves the queue as it was.

Example:
    >>> from torch_bleu import BLEUScore
    >>> metric = BLEUScore(tokenize="13a")
    >>> metric.update(["the cat sat"], ["the cat sat"])  # the first text batch is counted at once
    >>> metric.update(["a dog", "a bird"], ["a dog", "the bird"])
    >>> len(metric.__dict__[QUEUE])  # checked and queued, not counted yet
    2
    >>> metric.preds_len.item(), len(metric.__dict__[QUEUE])  # reading a state counts the queue
    (7, 0)
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

import torch
from torch import Tensor

from ..inputs.kinds import Text
from .sentences import NO_INDEX

#: The attribute of a metric that holds its queue (:class:`QueuedBatches` of one kind).
QUEUE = "_queued_text"
#: The most sentences a metric queues before it counts them: counted a thousand at a time, text costs
#: less per sentence than in batches of 8 and than in one batch of a whole corpus (BLEU, WER and chrF++
#: of a WMT17 system in batches of 8, one thread: 63-136 ms, against 69-292 ms with room for 4,096).
MOST_QUEUED = 1024


@dataclass
class QueuedBatches:
    """Checked batches, in order: each one's size, weight and dataset indices (if any); what the batches
    hold is a subclass's (:class:`QueuedText`, :class:`~.queued_ids.QueuedIds`)."""

    batches: list[tuple[int, Tensor | None, Tensor | None]] = field(default_factory=list)

    def __len__(self) -> int:
        """The number of queued sentences."""
        return sum(size for size, _, _ in self.batches)

    def add_batch(self, size: int, weight: Tensor | None, indices: Tensor | None) -> None:
        """Note a checked batch of ``size`` sentences (copies of its weight and indices: the caller may
        reuse theirs)."""
        weight, indices = (None if value is None else value.clone() for value in (weight, indices))
        self.batches.append((size, weight, indices))

    def extend(self, other: QueuedBatches) -> None:
        """Queue the batches of ``other``, a queue of this kind, after these (every field is a list, in order)."""
        for name in (entry.name for entry in fields(self)):
            getattr(self, name).extend(getattr(other, name))

    def weight(self, device: torch.device) -> Tensor | None:
        """Each queued sentence's weight (1 where its batch had none), or ``None`` when no batch had one.

        Example:
            >>> queue = QueuedText()
            >>> queue.add(Text(["a"], [["a"]]), None, None)
            >>> queue.add(Text(["b", "c"], [["b"], ["c"]]), torch.tensor([True, False]), None)
            >>> queue.weight(torch.device("cpu")).tolist()
            [1, 1, 0]
        """
        if all(weight is None for _, weight, _ in self.batches):
            return None
        return self._joined(device, 1, [weight for _, weight, _ in self.batches])

    def indices(self, device: torch.device) -> Tensor | None:
        """Each queued sentence's dataset index (:data:`~.sentences.NO_INDEX` where its batch had none), or
        ``None`` when no batch had them."""
        if all(indices is None for _, _, indices in self.batches):
            return None
        return self._joined(device, NO_INDEX, [indices for _, _, indices in self.batches])

    def _joined(self, device: torch.device, missing: int, values: list[Tensor | None]) -> Tensor:
        parts = [
            torch.full((size,), missing, dtype=torch.int64, device=device) if value is None else value.long()
            for (size, _, _), value in zip(self.batches, values)
        ]
        return torch.cat(parts)


@dataclass
class QueuedText(QueuedBatches):
    """Checked text batches, in order: their sentences, and each batch's weight and dataset indices."""

    hypotheses: list[str] = field(default_factory=list)
    references: list[list[str]] = field(default_factory=list)

    def add(self, text: Text, weight: Tensor | None, indices: Tensor | None) -> None:
        """Queue a checked batch."""
        self.hypotheses += text.hypotheses
        self.references += text.references
        self.add_batch(len(text.hypotheses), weight, indices)


class CountedState:
    """A metric's state whose every read counts the metric's queued batches first (a data descriptor on the
    metric's class; the value lives in the instance's ``__dict__`` under the same name)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, metric: Any, owner: type | None = None) -> Any:
        if metric is None:
            return self
        values = metric.__dict__
        if values.get(QUEUE):
            try:
                metric.count_queued()
            except AttributeError as error:  # raised from here, Python would look the state up elsewhere
                raise RuntimeError(f"counting the queued batches failed: {error}") from error
        try:
            return values[self.name]
        except KeyError:  # a state this metric was made without (kept sentences)
            raise AttributeError(self.name) from None

    def __set__(self, metric: Any, value: Any) -> None:
        metric.__dict__[self.name] = value
