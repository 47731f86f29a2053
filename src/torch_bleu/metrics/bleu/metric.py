"""``BLEUScore``: corpus BLEU as a ``torchmetrics.Metric`` over batches of ids, strings or subword ids."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from torch import Tensor

from ...inputs.batch import TokenBatch
from ...inputs.kinds import SubwordIds, TokenIds
from ..base import CorpusScoreMetric, CountingMetricArguments
from .compiled import compiled_counter
from .config import BLEUConfig, BLEUOptions, require_corpus_smoothing
from .counting import count_statistics, input_batch
from .score import bleu_from_statistics, packed_bleu
from .statistics import SentenceStatistics

if TYPE_CHECKING:
    from typing_extensions import Never, Unpack


class BLEUScoreOptions(BLEUOptions, CountingMetricArguments, total=False):
    """What :class:`BLEUScore` takes by name besides ``compile``: BLEU's options, ``keep_sentences`` and
    torchmetrics' arguments."""


class BLEUScore(CorpusScoreMetric):
    """Exact corpus BLEU accumulated on the device, summed across DDP ranks.

    ``update`` counts clipped n-gram matches of a batch without any host-device synchronization;
    ``compute()`` scores the statistics of every update (of every rank) together.

    ``update(preds, target, weight=None, indices=None)`` takes ``preds`` ``(B, Lp)`` and ``target`` ``(B, Lt)`` or
    ``(B, R, Lt)`` integer ids, or ragged lists of ids; with ``tokenize=``, strings (``target``: per
    hypothesis its reference or a list of its references); with ``detokenizer=``, subword ids (``target``:
    ids, or the reference strings). ``weight`` says how many times each sentence counts, ``indices`` where
    each sentence is in the dataset (the order the sentences kept with ``keep_sentences=True`` follow)
    (:meth:`~torch_bleu.metrics.base.CorpusScoreMetric.update`).

    Args:
        **options: the options of :class:`~torch_bleu.BLEUConfig`, by name: ``max_order``, ``weights``,
            ``smoothing``, ``smooth_value``, ``effective_order``, ``ignore_ids``, ``eos_id``, ``ref_length``,
            ``convention``, ``tokenize``, ``lowercase``, ``detokenizer``.
        compile: count each batch with ``torch.compile`` (``fullgraph=True, dynamic=False``): ``True``,
            or a dict of further ``torch.compile`` options (``{"mode": "reduce-overhead"}`` for CUDA
            graphs). Batches are padded to power-of-two widths and sizes, so a loop compiles a few
            graphs (widths 5 to 300: 7), and the statistics equal eager ones exactly. It is meant for
            accelerators, where it fuses the engine's many small kernels; on a CPU eager is faster
            at realistic sizes (see the speed page of the documentation).
        **metric_kwargs: passed to ``torchmetrics.Metric`` (``sync_on_compute``, ``process_group``, ...).

    States (int64, reduced with ``sum``; torchmetrics' ``BLEUScore`` names them alike):
    ``numerator`` and ``denominator`` ``(max_order,)``, the clipped matches and hypothesis n-grams per
    order; ``preds_len`` and ``target_len``, the total hypothesis and effective reference lengths.
    Integer sums are exact and do not depend on how the corpus is split into batches or ranks, so
    under DDP ``compute()`` gives every rank the single-process score. The states are the same under every
    convention (``convention="coco"``'s reference length is the closest, as sacrebleu's).
    A fifth state, ``counted_with``, is a constant fingerprint of the options that decide the
    statistics (``max_order``, ``ignore_ids``, ``eos_id``, ``ref_length``, ``convention``, ``tokenize``,
    ``lowercase``, ``detokenizer``): checkpoints and merges counted otherwise are refused, and a
    ``MetricCollection`` never shares states between metrics that count differently.

    As for every torchmetrics metric, the states are left out of ``state_dict()`` by default, so adding
    the metric to a model does not change its checkpoints; call ``metric.persistent(True)`` to save an
    evaluation in progress (``load_state_dict`` restores the states either way).

    Example:
        >>> import torch
        >>> PAD, BOS, EOS = 0, 1, 2
        >>> metric = BLEUScore(ignore_ids=[PAD, BOS], eos_id=EOS)
        >>> preds = torch.tensor([[1, 7, 8, 9, 10, 11, 2, 0], [1, 5, 6, 7, 8, 2, 8, 9]])  # 8, 9 after EOS
        >>> target = torch.tensor([[1, 7, 8, 9, 10, 12, 2], [1, 5, 6, 7, 8, 9, 2]])
        >>> metric.update(preds, target)
        >>> metric.numerator.tolist(), metric.denominator.tolist()
        ([8, 6, 4, 2], [9, 7, 5, 3])
        >>> round(metric.compute().item(), 4)
        0.7144
    """

    config_class = BLEUConfig
    state_names = ("numerator", "denominator", "preds_len", "target_len")
    #: BLEU's words are numbered by a hash table whose arrays outgrow the caches past some 500 sentence
    #: pairs: 4 WMT17 systems from text (one thread) take 161 ms counted 1,024 lines at a time, 123 ms 512
    #: at a time, 115 ms 256 at a time; 512 keeps the cost per call of small corpora down.
    text_part = 512
    config: BLEUConfig
    numerator: Tensor
    denominator: Tensor
    preds_len: Tensor
    target_len: Tensor

    def __init__(
        self, *positional: Never, compile: bool | dict[str, Any] = False, **options: Unpack[BLEUScoreOptions]
    ) -> None:
        if not isinstance(compile, (bool, dict)):
            raise TypeError(f"compile must be a bool or a dict of torch.compile options, got {type(compile).__name__}")
        super().__init__(*positional, **options)
        require_corpus_smoothing(self.config)
        self.compile_options = ({} if compile is True else compile) if compile is not False else None

    def statistics_shapes(self) -> Sequence[tuple[int, ...]]:
        """``(max_order,)`` matches and n-grams per order, then the two lengths."""
        orders = self.config.orders
        return (orders,), (orders,), (), ()

    def sentence_statistics(self, preds: Any, target: Any) -> SentenceStatistics:
        """The statistics of every sentence of a batch, counted eagerly or compiled.

        Eagerly, a CPU batch of ids or words is counted on the host, with NumPy
        (:func:`~torch_bleu.metrics.bleu.counting.input_batch`), and ``update`` adds the sums to the states.

        Example:
            >>> import torch
            >>> metric = BLEUScore()
            >>> batch = torch.tensor([[5, 6, 7, 8], [5, 6, 7, 8]])
            >>> metric.update(batch, batch, weight=torch.tensor([True, False]))
            >>> metric.preds_len.item(), metric.denominator.tolist()
            (4, [4, 3, 2, 1])
        """
        if self.compile_options is not None:
            batch = input_batch(preds, target, self.config, self.device)
            assert isinstance(batch, TokenBatch)  # counted where it lives: no stream
            return compiled_counter(self.config, self.compile_options)(batch)
        return count_statistics(input_batch(preds, target, self.config, self.device, on_host=True), self.config)

    def ids_statistics(self, ids: TokenIds) -> SentenceStatistics:
        """The statistics of every sentence of a checked batch of ids, counted eagerly (a CPU batch of token
        ids on the host, with NumPy: :meth:`~torch_bleu.inputs.batch.TokenBatch.on_host`)."""
        return count_statistics(ids.batch if isinstance(ids, SubwordIds) else ids.batch.on_host(), self.config)

    def queueable_text(self, preds: Any, target: Any) -> tuple[list[str], list[list[str]]] | None:
        """A batch of strings, checked, for ``update`` to queue (:mod:`~torch_bleu.metrics.queued_text`);
        compiled counting takes each batch as it comes."""
        return None if self.compile_options is not None else super().queueable_text(preds, target)

    def queueable_ids(self, preds: Any, target: Any) -> TokenIds | None:
        """A batch of ids, checked, for ``update`` to queue (:mod:`~torch_bleu.metrics.queued_ids`); compiled
        counting takes each batch as it comes, in the shapes it compiled for."""
        return None if self.compile_options is not None else super().queueable_ids(preds, target)

    def score(self, *statistics: Tensor) -> Tensor:
        """Corpus BLEU in ``[0, 1]`` of summed statistics (0-d float64)."""
        numerator, denominator, preds_len, target_len = statistics
        score: Tensor = bleu_from_statistics(numerator, denominator, preds_len, target_len, self.config)
        return score

    def pack(self, statistics: Sequence[Tensor]) -> Tensor:
        """``(B, 2 + 2 * max_order)`` rows ``[preds_len, target_len, matches..., totals...]``, sacrebleu's layout."""
        numerator, denominator, preds_len, target_len = statistics
        return super().pack([preds_len, target_len, numerator, denominator])

    def packed_score(self, summed: np.ndarray) -> np.ndarray:
        """BLEU (0..100) of summed packed statistics, sacrebleu's (:func:`~.score.packed_bleu`)."""
        return packed_bleu(summed, self.config)
