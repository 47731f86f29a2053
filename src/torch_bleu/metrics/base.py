"""The ``torchmetrics.Metric`` every metric of this library is: integer statistics as states, kept exact.

A metric is a config (:class:`~torch_bleu.metrics.config.MetricConfig`), per-sentence statistics and a
score. :class:`CountingMetric` does the rest, the same way for every metric:

* ``__init__`` takes the config's options by name (torchmetrics' own arguments beside them) and
  points other libraries' option names to the right one;
* ``update(preds, target, weight=None, indices=None)`` counts a batch, multiplies each sentence's
  statistics by its weight and adds them to int64 states, summed across DDP ranks; a batch of strings,
  or of ids, is checked and queued, and counted with the rest of the queue when a state
  is read (:mod:`.queued_text`, :mod:`.queued_ids`);
* with ``keep_sentences=True`` it also keeps each sentence's statistics (:mod:`.sentences`), gathered
  across ranks, for the confidence intervals and the paired tests (:mod:`.paired`): a
  :class:`CorpusScoreMetric` (a score of summed statistics) adds sacrebleu's bootstrap interval of its
  score (ROUGE, a mean of sentence scores, gives rouge-score's intervals instead);
* a constant ``counted_with`` state holds the config's fingerprint, so that statistics counted
  otherwise are never added up: a ``MetricCollection`` groups only metrics with equal states, and
  merges and checkpoints are checked against it;
* merged, synced and loaded states must be integer tensors of the right shapes; loaded ones are
  copied as int64 to the metric's device; whatever arrives other than by ``update`` counts as an
  update (``compute()`` then scores it without torchmetrics' warning, and no cached value survives).
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, TypedDict

import numpy as np
import torch
from torch import Tensor
from torchmetrics import Metric

from .. import significance
from ..argument_names import takes_preds_and_target
from ..arrays import Array, as_tensor, is_integer
from ..inputs.kinds import Text, TokenIds, checked_text, ids_input, read_input
from ..threads import cpu_share, within_cpu_share
from .config import SubwordConfig
from .queued_ids import QueuedIds, in_queue_order
from .queued_text import MOST_QUEUED, QUEUE, CountedState, QueuedBatches, QueuedText
from .sentences import (
    BOOKKEEPING_COLUMNS,
    ConfidenceInterval,
    KeptCorpus,
    check_indices,
    check_kept_rows,
    check_repeated_indices,
    corpus_sentences,
    sentence_rows,
)

if TYPE_CHECKING:
    from typing_extensions import Self

#: The list state of each sentence's statistics, with ``keep_sentences=True``.
KEPT = "kept_sentences"


class MetricArguments(TypedDict, total=False):
    """torchmetrics' own ``Metric`` arguments, which every metric takes beside its options (for type checkers)."""

    compute_on_cpu: bool
    dist_sync_on_step: bool
    process_group: Any
    dist_sync_fn: Callable[..., Any] | None
    distributed_available_fn: Callable[[], bool] | None
    sync_on_compute: bool
    compute_with_cache: bool


class CountingMetricArguments(MetricArguments, total=False):
    """What every metric takes by name beside its options: torchmetrics' arguments and ``keep_sentences``."""

    keep_sentences: bool


class CountingMetric(Metric):
    """Base of every metric: int64 statistics from ``update``, checked wherever states come in.

    Subclasses set :attr:`config_class` and :attr:`state_names`, and implement
    :meth:`statistics_shapes`, :meth:`sentence_statistics`, :meth:`ids_statistics`, :meth:`score` and
    :meth:`packed_score` (and :meth:`pack`, where the packed layout is not the states one after another).

    ``keep_sentences=True`` keeps each sentence's statistics besides their sums, for the metric's
    ``confidence_interval`` and the paired tests (:func:`torch_bleu.paired_bootstrap`,
    :func:`torch_bleu.paired_randomization`): ``8 * (F + 2)`` bytes per sentence on the metric's
    device, ``F`` the statistics of a sentence (BLEU: ``2 * max_order + 2``, chrF: ``3 * orders``, TER:
    2), plus its weight and dataset index. ``compute()`` is unchanged, and ``reset()`` clears them.
    """

    is_differentiable = False
    higher_is_better = True
    full_state_update = False
    plot_lower_bound = 0.0
    plot_upper_bound: float | None = 1.0

    #: The metric's options.
    config_class: ClassVar[type[SubwordConfig]] = SubwordConfig
    #: The states that sum the statistics, in the order :meth:`sentence_statistics` gives them.
    state_names: ClassVar[tuple[str, ...]] = ()
    #: How many queued sentences are counted together (at most :data:`~.queued_text.MOST_QUEUED`): enough to
    #: spread the cost of a call, few enough that the arrays of a part stay in the processor's caches.
    text_part: ClassVar[int] = MOST_QUEUED

    config: SubwordConfig
    counted_with: Tensor

    def __init__(self, *positional: Any, keep_sentences: bool = False, **options: Any) -> None:
        config_class = self.config_class
        if positional:  # refused, saying how torchmetrics' metric of the same kind reads the call
            raise config_class.positional_error(type(self).__name__, positional)
        config_options = {name: options.pop(name) for name in list(options) if name in config_class.option_names()}
        # what is left is torchmetrics' own, or names another library gives options
        foreign = [name for name in options if name in config_class.foreign_options]
        metric_kwargs = {name: value for name, value in options.items() if name not in foreign}
        try:
            super().__init__(**metric_kwargs)
        except ValueError as error:  # torchmetrics: "Unexpected keyword arguments: `a`, `b`"
            rejected = [name for name in metric_kwargs if f"`{name}`" in str(error)]
            if not rejected:
                raise
            unknown = [name for name in options if name in foreign or name in rejected]
            raise config_class.unknown_options(unknown, more=", and torchmetrics' Metric arguments") from None
        if foreign:
            raise config_class.unknown_options(foreign)
        self.config = config_class(**config_options)
        setattr(self, QUEUE, QueuedText())
        self._counted_kinds: set[type[QueuedBatches]] = set()  # update() counts the first batch of each kind at once
        for name, shape in zip(self.state_names, self.statistics_shapes()):
            self.add_state(name, torch.zeros(shape, dtype=torch.int64), dist_reduce_fx="sum")
        # equal on every rank and in every merge, so "max" keeps it as it is
        self.add_state("counted_with", torch.tensor(self.config.fingerprint()), dist_reduce_fx="max")
        if not isinstance(keep_sentences, bool):
            raise TypeError(f"keep_sentences must be True or False, got {keep_sentences!r}")
        self.keep_sentences = keep_sentences
        if keep_sentences:  # one (B, F + 2) int64 tensor per update, concatenated across ranks
            self.add_state(KEPT, [], dist_reduce_fx="cat")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Show the config's options in the signature of a metric's ``__init__`` (``help``, editors, docs)."""
        super().__init_subclass__(**kwargs)
        own = inspect.signature(cls.__init__)
        fields = {field.name: field for field in dataclasses.fields(cls.config_class)}
        options = [
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=field.default, annotation=field.type)
            for name, field in ((name, fields[name]) for name in cls.config_class.option_names())
        ]
        variadic = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
        rest = [
            parameter
            for parameter in own.parameters.values()
            if parameter.kind not in variadic and parameter.name != "keep_sentences"  # inherited from the base
        ]
        keep = inspect.Parameter("keep_sentences", inspect.Parameter.KEYWORD_ONLY, default=False, annotation="bool")
        metric_kwargs = inspect.Parameter("metric_kwargs", inspect.Parameter.VAR_KEYWORD)
        parameters = [*options, *rest[1:], keep, metric_kwargs]
        cls.__signature__ = own.replace(parameters=parameters)  # type: ignore[attr-defined]
        for name in (*cls.state_names, KEPT):  # every read of a state counts the queued text first
            if not isinstance(cls.__dict__.get(name), CountedState):
                setattr(cls, name, CountedState(name))

    # --- what a metric defines -------------------------------------------------------------------------

    def statistics_shapes(self) -> Sequence[tuple[int, ...]]:
        """The shape of each state of :attr:`state_names`: one number each, unless a metric says otherwise."""
        return tuple(() for _ in self.state_names)

    def sentence_statistics(self, preds: Any, target: Any) -> Sequence[Array]:
        """Each statistic of every sentence of a batch, ``(B, *shape)`` integers, input checked first."""
        raise NotImplementedError

    def ids_statistics(self, ids: TokenIds) -> Sequence[Array]:
        """Each statistic of every sentence of a checked batch of ids (either kind), as :meth:`sentence_statistics`
        counts them: how ``update`` counts its queued ids."""
        raise NotImplementedError

    def queueable_text(self, preds: Any, target: Any) -> tuple[list[str], list[list[str]]] | None:
        """A batch of strings this metric counts on the host, checked as :meth:`sentence_statistics` checks it
        (:func:`~torch_bleu.inputs.kinds.checked_text`): the hypotheses and each one's references, which
        ``update`` queues; ``None`` for a batch of ids."""
        return checked_text(preds, target, self.config)

    def queueable_ids(self, preds: Any, target: Any) -> TokenIds | None:
        """A batch of ids (either kind), checked as :meth:`sentence_statistics` checks it
        (:func:`~torch_bleu.inputs.kinds.read_input`), which ``update`` queues; ``None`` for a batch this
        metric counts at once. Called for a batch :meth:`queueable_text` did not take."""
        ids = read_input(preds, target, self.config)
        assert isinstance(ids, TokenIds)  # queueable_text took the strings
        ids.check_values()
        return ids

    def score(self, *statistics: Tensor) -> Tensor:
        """The score of summed statistics (the states, in order)."""
        raise NotImplementedError

    def packed_score(self, summed: np.ndarray) -> np.ndarray:
        """The score (0..100, float64) of summed packed statistics ``(..., F)``, vectorized: the function
        the command line's significance tests score with, so that intervals and p-values are its own."""
        raise NotImplementedError

    def pack(self, statistics: Sequence[Tensor]) -> Tensor:
        """Each sentence's statistics (``(B, *shape)`` each, in the order of :attr:`state_names`) as one
        ``(B, F)`` int64 row, in the layout :meth:`packed_score` and the command line take.

        Example:
            >>> from torch_bleu import TERScore
            >>> TERScore().pack([torch.tensor([3, 0]), torch.tensor([8, 4])]).tolist()
            [[3, 8], [0, 4]]
        """
        return torch.cat(
            [values.reshape(len(values), int(np.prod(values.shape[1:]))).long() for values in statistics], 1
        )

    def packed_width(self) -> int:
        """``F``, the number of statistics of one sentence."""
        return sum(int(np.prod(shape)) for shape in self.statistics_shapes())

    # --- the life cycle ----------------------------------------------------------------------------------

    @takes_preds_and_target
    @within_cpu_share
    def update(self, preds: Any, target: Any, weight: Tensor | None = None, indices: Tensor | None = None) -> None:
        """Add the statistics of a batch; it is checked first, so a rejected batch leaves the states as they were.

        ``weight`` is an optional ``(B,)`` bool or integer tensor saying how many times each sentence
        counts: ``False`` (or 0) leaves one out, e.g. a sample that ``DistributedSampler`` repeated to
        give every rank the same number of batches. Statistics are multiplied by their weight, not
        selected, so this stays free of host synchronization. A negative weight is refused: on the CPU
        its values are checked; on an accelerator, where checking would wait for the device, the weight
        must be bool or of an unsigned dtype (``torch.uint8``), which cannot be negative.

        ``indices`` is an optional ``(B,)`` integer tensor of the sentences' positions in the dataset.
        With ``keep_sentences=True`` the kept sentences follow them, so that intervals and tests are the
        same on 1 or N ranks (:mod:`~torch_bleu.metrics.sentences`); the sums do not depend on them. An
        index counted twice (two sentences of non-zero weight) is refused: on the CPU by ``update`` within
        a batch; across batches and ranks, and on an accelerator (where checking would wait for the
        device), when the kept sentences are read (``confidence_interval``, the paired tests).
        """
        text = self.queueable_text(preds, target)
        if text is not None:
            hypotheses, references = text
            rows = self._checked_rows(len(hypotheses), weight, indices)
            queued_text = QueuedText()
            queued_text.add(Text(hypotheses, references), weight, rows)
            self._queue(queued_text)
            return
        ids = self.queueable_ids(preds, target)
        if ids is None:  # counted at once
            statistics: Sequence[Any] = self.sentence_statistics(preds, target)
            self._add(statistics, weight, self._checked_rows(len(statistics[0]), weight, indices))
            return
        rows = self._checked_rows(ids.batch.preds.shape[0], weight, indices)
        queued_ids = QueuedIds()
        queued_ids.add(ids.batch, weight, rows, copy=QueuedIds in self._counted_kinds)  # else counted at once
        self._queue(queued_ids)

    def _queue(self, batch: QueuedBatches) -> None:
        """Queue a checked batch (a queue of it alone), counted with the rest when the queue is full; the first
        batch of its kind is counted at once (so that a missing extra or tokenizer dictionary is reported by
        its ``update()``), and a queue of another kind first (so that sentences are counted in update order)."""
        kind = type(batch)
        if type(getattr(self, QUEUE)) is not kind:
            self.count_queued()
            setattr(self, QUEUE, kind())
        if kind not in self._counted_kinds:
            self._count(batch)
            self._counted_kinds.add(kind)
            return
        queued: QueuedBatches = getattr(self, QUEUE)
        queued.extend(batch)
        if len(queued) >= MOST_QUEUED:
            self.count_queued()

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """torchmetrics' ``forward``: ``update`` with the batch, and the batch's own score. Other libraries'
        names for ``preds`` and ``target`` (``predictions=``, ``references=``) are refused before
        torchmetrics sets the states aside, so the states are left as they were.

        Example:
            >>> from torch_bleu import CHRFScore
            >>> metric = CHRFScore()
            >>> try:
            ...     metric(predictions=["the cat"], references=["the cat"])
            ... except TypeError as error:
            ...     print(error)  # doctest: +NORMALIZE_WHITESPACE
            CHRFScore.forward takes preds and target: pass preds=predictions, target=references
            (Hugging Face evaluate's names)
        """
        return super().forward(*args, **kwargs)

    forward = takes_preds_and_target(forward, like=update)

    def _checked_rows(self, batch: int, weight: Tensor | None, indices: Tensor | None) -> Tensor | None:
        """Check a batch's ``weight`` and ``indices`` (:func:`check_weight`, :func:`.sentences.check_indices`);
        the indices as the rows of the kept sentences."""
        rows = check_indices(indices, batch, self.device) if indices is not None else None
        if weight is not None:
            check_weight(weight, batch, self.device)
        if rows is not None:
            check_repeated_indices(rows, weight)
        return rows

    def count_queued(self) -> None:
        """Count the batches ``update`` queued (reading any state does this first)."""
        queued: QueuedBatches = getattr(self, QUEUE)
        if not queued:
            return
        setattr(self, QUEUE, type(queued)())  # emptied first: counting reads the states
        with cpu_share():
            try:
                self._count(queued)
            except BaseException:
                setattr(self, QUEUE, queued)  # nothing lost: counted again at the next read
                raise

    def _count(self, queued: QueuedBatches) -> None:
        """Count queued batches and add their statistics, adding nothing unless every one was counted."""
        weight, rows = queued.weight(self.device), queued.indices(self.device)
        if isinstance(queued, QueuedText):
            self._count_text(queued.hypotheses, queued.references, weight, rows)
            return
        assert isinstance(queued, QueuedIds)
        groups = queued.joined()
        counted = [
            [as_tensor(values, self.device) for values in self.ids_statistics(ids_input(batch, self.config))]
            for _, batch in groups
        ]
        self._add(in_queue_order([positions for positions, _ in groups], counted), weight, rows)

    def _count_text(
        self, hypotheses: list[str], references: list[list[str]], weight: Tensor | None, rows: Tensor | None
    ) -> None:
        """Count checked strings :attr:`text_part` sentences at a time (less per sentence than one batch of a
        whole corpus), adding nothing unless every part was counted."""
        part = self.text_part
        parts = [
            (start, self.sentence_statistics(hypotheses[start : start + part], references[start : start + part]))
            for start in range(0, len(hypotheses), part)
        ]
        for start, statistics in parts:
            span = slice(start, start + part)
            self._add(statistics, None if weight is None else weight[span], None if rows is None else rows[span])

    def _add(self, statistics: Sequence[Any], weight: Tensor | None, rows: Tensor | None) -> None:
        """Add checked statistics of a batch, each sentence times its checked weight, to the states."""
        if weight is not None or self.keep_sentences:
            statistics = [as_tensor(values, self.device) for values in statistics]
        counted = weighted(statistics, weight) if weight is not None else statistics
        if self.keep_sentences:
            getattr(self, KEPT).append(sentence_rows(self.pack(statistics), weight, rows))
        for name, values in zip(self.state_names, counted):  # summed where counted: NumPy arrays on the host
            getattr(self, name).add_(as_tensor(values.sum(0), self.device))

    def reset(self) -> None:
        """Forget everything added so far (torchmetrics' ``reset``), the queued batches too."""
        setattr(self, QUEUE, QueuedText())
        super().reset()

    @within_cpu_share
    def compute(self) -> Tensor:
        """The score of everything added so far (of every rank), a 0-d float64 tensor."""
        return self.score(*(getattr(self, name) for name in self.state_names))

    def kept_corpus(self) -> KeptCorpus:
        """The kept sentences of every rank as the corpus that intervals and paired tests resample, and its
        score: gathered as ``compute()`` gathers the sums, in dataset order when ``update`` got indices,
        each repeated by its weight (:mod:`~torch_bleu.metrics.sentences`), checked against the sums.

        Example:
            >>> from torch_bleu import TERScore
            >>> metric = TERScore(keep_sentences=True)
            >>> metric.update(["a b", "c d"], ["a b", "c e"], indices=torch.tensor([1, 0]), weight=torch.tensor([1, 2]))
            >>> corpus = metric.kept_corpus()
            >>> corpus.statistics.tolist(), corpus.indices.tolist(), corpus.score
            ([[1, 1441440], [1, 1441440], [0, 1441440]], [0, 0, 1], 0.3333333333333333)
        """
        name = type(self).__name__
        if not self.keep_sentences:
            raise ValueError(
                f"this {name} keeps no sentences; create it with keep_sentences=True for confidence intervals "
                "and paired tests"
            )
        with self.sync_context(
            dist_sync_fn=self.dist_sync_fn,
            should_sync=self._to_sync and not self._is_synced,
            should_unsync=self._should_unsync,
        ):
            rows = self._kept_rows()
            sums = [getattr(self, state) for state in self.state_names]
            packed_sums = self.pack([state.unsqueeze(0) for state in sums])[0].to(rows.device)
            if not torch.equal((rows[:, :-2] * rows[:, -2:-1]).sum(0), packed_sums):
                raise ValueError(
                    f"this {name}'s kept sentences do not add up to its statistics: states loaded or merged "
                    "without their sentences"
                )
            if rows.shape[0] == 0:
                raise ValueError(f"this {name} has no sentences yet: call update() first")
            statistics, indices = corpus_sentences(rows)
            return KeptCorpus(statistics, indices, float(self.score(*sums)))

    def _kept_rows(self) -> Tensor:
        kept = getattr(self, KEPT)  # a list of (B, F + 2) tensors; one tensor once synced
        if isinstance(kept, Tensor):
            return kept
        if kept:
            return torch.cat(kept)
        return torch.zeros((0, self.packed_width() + BOOKKEEPING_COLUMNS), dtype=torch.int64, device=self.device)

    def clone(self) -> Self:
        """A copy of the metric, states and options included (torchmetrics' ``clone``), typed as its own class,
        so that a kept copy goes wherever the metric goes (:func:`torch_bleu.paired_bootstrap`, say).

        Example:
            >>> from torch_bleu import BLEUScore
            >>> best = BLEUScore(max_order=2).clone()
            >>> type(best).__name__, best.config.max_order
            ('BLEUScore', 2)
        """
        return copy.deepcopy(self)

    def plot(self, val: Tensor | Sequence[Tensor] | None = None, ax: Any | None = None) -> Any:
        """Plot ``compute()``, one value, or a sequence of values such as the score per epoch (needs matplotlib).

        Returns torchmetrics' ``(figure, axes)`` pair; a sequence is drawn as a line over its steps.
        """
        return self._plot(val, ax)

    def merge_state(self, incoming_state: dict[str, Any] | Metric) -> None:
        """Add the statistics of another metric of this kind, or a dict of its statistics, to this one's.

        They must have been counted the same way (options that only change the score may differ), and
        a dict's states must be integer tensors of the same shapes. With ``keep_sentences=True`` the
        incoming sentences must come too (``kept_sentences``: a list of ``(n, F + 2)`` integer tensors),
        and are appended after this metric's own.
        """
        if isinstance(incoming_state, type(self)):
            states = dict(incoming_state.metric_state)
            merged_updates = incoming_state._update_count
        elif isinstance(incoming_state, dict):
            missing = [name for name in self.state_names if name not in incoming_state]
            if missing:
                raise ValueError(f"the incoming state lacks {', '.join(missing)}")
            states = {"counted_with": self.counted_with, **incoming_state}
            merged_updates = 1
        else:  # torchmetrics says what it takes
            super().merge_state(incoming_state)
            return
        kept = self._incoming_sentences(states)
        sums = {name: states[name] for name in self._defaults if name != KEPT}
        self._check_states(sums)
        super().merge_state({**sums, KEPT: []} if self.keep_sentences else sums)
        if self.keep_sentences:
            setattr(self, KEPT, [*getattr(self, KEPT), *kept])
        self._statistics_changed(merged_updates)

    def _incoming_sentences(self, states: dict[str, Any]) -> list[Tensor]:
        """The kept sentences of incoming states, checked, as int64 copies on this metric's device."""
        if not self.keep_sentences:
            return []
        if KEPT not in states:
            raise ValueError(
                f"the incoming state lacks {KEPT}: this {type(self).__name__} keeps each sentence's statistics "
                "(keep_sentences=True), so they must come with their sums"
            )
        value = states[KEPT]
        parts = [value] if isinstance(value, Tensor) else list(value) if isinstance(value, (list, tuple)) else None
        if parts is None:
            raise TypeError(f"state {KEPT!r} must be a list of integer tensors, got {type(value).__name__}")
        width = self.packed_width() + BOOKKEEPING_COLUMNS
        for part in parts:
            if not isinstance(part, Tensor) or not is_integer(part):
                found = part.dtype if isinstance(part, Tensor) else type(part).__name__
                raise TypeError(f"state {KEPT!r} must hold integer tensors to stay exact, got {found}")
            if part.dim() != 2 or part.shape[1] != width:
                raise ValueError(f"state {KEPT!r} must hold (n, {width}) tensors, got {tuple(part.shape)}")
            check_kept_rows(part)
        return [part.to(device=self.device, dtype=torch.int64, copy=True) for part in parts]

    def _statistics_changed(self, updates: int) -> None:
        """Forget a cached ``compute()`` value, and count states that came in other than by ``update``."""
        self._computed = None
        self._update_count += updates

    def sync(self, *args: Any, **kwargs: Any) -> None:
        """Gather the states of every rank (torchmetrics' ``sync``), forgetting a cached ``compute()`` value."""
        super().sync(*args, **kwargs)
        self._computed = None

    def _sync_dist(self, *args: Any, **kwargs: Any) -> None:
        """torchmetrics' gathering, where a rank without kept sentences sends an empty int64 ``(0, F + 2)``
        tensor (torchmetrics would send an empty float one, which the other ranks' rows do not concatenate with)."""
        if self.keep_sentences and isinstance(getattr(self, KEPT), list) and not getattr(self, KEPT):
            empty = torch.zeros((0, self.packed_width() + BOOKKEEPING_COLUMNS), dtype=torch.int64, device=self.device)
            setattr(self, KEPT, [empty])
        super()._sync_dist(*args, **kwargs)

    def _load_from_state_dict(
        self,
        state_dict: dict[str, Any],
        prefix: str,
        local_metadata: dict[str, Any],
        strict: bool,
        missing_keys: list[str],
        unexpected_keys: list[str],
        error_msgs: list[str],
    ) -> None:
        """Load saved statistics as int64 copies on this metric's device, checked as in :meth:`merge_state`.

        (torchmetrics would adopt the saved tensors themselves, so later updates would change the
        caller's dict in place, and float states would end exactness silently.) Loaded statistics count
        as an update.
        """
        saved = {name: state_dict[prefix + name] for name in self._defaults if prefix + name in state_dict}
        if KEPT in saved:
            state_dict[prefix + KEPT] = self._incoming_sentences(saved)
        sums = {name: value for name, value in saved.items() if name != KEPT}
        self._check_states(sums)
        for name, value in sums.items():
            state_dict[prefix + name] = value.to(device=self.device, dtype=torch.int64, copy=True)
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )
        if saved:
            self._statistics_changed(1)

    def _check_states(self, states: dict[str, Any]) -> None:
        """Incoming states must be integer tensors shaped like this metric's own, counted the same way, and
        not negative (they are counts)."""
        counted_with = states.get("counted_with")
        if isinstance(counted_with, Tensor) and not torch.equal(counted_with.cpu(), self.counted_with.cpu()):
            name, differing = type(self).__name__, self.config.counted_otherwise(counted_with.tolist())
            if differing is not None:
                raise ValueError(
                    f"the incoming statistics were counted otherwise, with {differing[0]}; this {name} counts "
                    f"with {differing[1]}"
                )
            raise ValueError(
                f"the incoming statistics were counted otherwise than this {name}'s "
                f"({self.config.counting_description()}): their fingerprint {counted_with.tolist()} is not "
                f"{self.counted_with.tolist()}; compare the options of the metric that counted them"
            )
        for name, state in states.items():
            own = getattr(self, name)
            if not isinstance(state, Tensor) or not is_integer(state):
                found = state.dtype if isinstance(state, Tensor) else type(state).__name__
                raise TypeError(f"state {name!r} must be an integer tensor to stay exact, got {found}")
            if state.shape != own.shape:
                raise ValueError(f"state {name!r} must have shape {tuple(own.shape)}, got {tuple(state.shape)}")
            check_counts(name, state)


class CorpusScoreMetric(CountingMetric):
    """A metric whose score is a function of its summed statistics (BLEU, chrF, TER, WER, CER), so that its
    confidence interval is sacrebleu's bootstrap of that score: resampled sentences, summed, scored.

    ROUGE's score is a mean of sentence scores, and its interval rouge-score's bootstrap of that mean
    (:meth:`torch_bleu.ROUGEScore.confidence_interval`), so :class:`~torch_bleu.ROUGEScore` is a
    :class:`CountingMetric` with an interval of its own.
    """

    @within_cpu_share
    def confidence_interval(self, resamples: int = 1000, seed: int | None = 12345) -> ConfidenceInterval:
        """The score of the kept sentences (of every rank) with its bootstrap mean and 95% confidence interval.

        Needs ``keep_sentences=True``. The numbers are sacrebleu's ``--confidence -cin resamples``
        (``corpus_score(..., n_bootstrap=resamples)``) on the same sentences in the same order, on
        the 0..1 scale: the same resamples (NumPy's ``default_rng(seed)``; ``seed`` is sacrebleu's
        ``SACREBLEU_SEED``, ``None`` draws fresh entropy), drawn and scored by the command line's code
        (:func:`torch_bleu.significance.statistics_bootstrap` with :meth:`packed_score`). sacrebleu scores the
        resamples with float32 statistics, this with float64 ones, so the mean and interval agree to
        about 1e-6; the score is ``compute()``'s.

        Example:
            >>> from torch_bleu import CHRFScore
            >>> metric = CHRFScore(keep_sentences=True)
            >>> metric.update(["the cat sat", "a dog barked", "hello world"], ["the cat sat", "the dog", "hello"])
            >>> result = metric.confidence_interval(resamples=100)
            >>> round(result.score, 4), round(result.mean, 4), round(result.ci, 4)
            (0.7101, 0.7036, 0.3904)
        """
        significance.check_draws("resamples", resamples, seed)
        corpus = self.kept_corpus()
        packed = corpus.statistics.cpu().numpy()[None]
        result = significance.statistics_bootstrap(packed, self.packed_score, resamples, seed)
        assert result.means is not None and result.cis is not None  # a bootstrap gives both
        return ConfidenceInterval(corpus.score, float(result.means[0]) / 100, float(result.cis[0]) / 100)


def check_counts(name: str, state: Tensor) -> None:
    """Refuse a merged or loaded state with a negative entry: statistics are counts (``update`` refuses
    negative weights for the same reason). Its values are read, as merges and loads may.

    Example:
        >>> check_counts("numerator", torch.tensor([3, -5]))
        Traceback (most recent call last):
        ...
        ValueError: state 'numerator' must not be negative, as it counts; got -5
    """
    if state.device.type != "meta" and state.numel() and bool((state < 0).any()):
        raise ValueError(f"state {name!r} must not be negative, as it counts; got {int(state.min())}")


def check_weight(weight: object, batch: int, device: torch.device) -> None:
    """Refuse a ``weight`` that is not a ``(batch,)`` bool or integer tensor on ``device`` with no negative
    entry, checked from shape and dtype only off the CPU (a signed dtype is refused there).

    Example:
        >>> check_weight(torch.tensor([1, -2]), 2, torch.device("cpu"))
        Traceback (most recent call last):
        ...
        ValueError: weight must not be negative: a sentence counts 0, 1 or more times
    """
    if not isinstance(weight, Tensor):
        raise TypeError(f"weight must be a ({batch},) tensor of bools or integers, got {type(weight).__name__}")
    if not is_integer(weight) and weight.dtype != torch.bool:
        raise TypeError(f"weight must hold bools or integers, as the statistics are exact integers; got {weight.dtype}")
    if weight.shape != (batch,):
        raise ValueError(f"weight must have shape ({batch},), one entry per sentence, got {tuple(weight.shape)}")
    if weight.device != device:
        raise ValueError(f"weight is on {weight.device} but the metric is on {device}")
    if weight.dtype.is_signed:
        if weight.device.type != "cpu":
            raise TypeError(
                f"a signed {weight.dtype} weight on {weight.device} would have to be read back to check that it "
                "is not negative; pass a bool mask or an unsigned count (weight.to(torch.uint8))"
            )
        if bool((weight < 0).any()):
            raise ValueError("weight must not be negative: a sentence counts 0, 1 or more times")


def weighted(statistics: Sequence[Tensor], weight: Tensor) -> list[Tensor]:
    """Each sentence's statistics ``(B, ...)`` times its row weight (checked by :func:`check_weight`).

    Example:
        >>> weighted([torch.tensor([[2, 1], [3, 2]]), torch.tensor([3, 4])], torch.tensor([False, True]))
        [tensor([[0, 0],
                [3, 2]]), tensor([0, 4])]
    """
    rows = weight.long()
    return [values * rows.reshape(len(rows), *[1] * (values.dim() - 1)) for values in statistics]
