"""``BLEUScore``: corpus BLEU as a ``torchmetrics.Metric`` over padded token-id batches."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import torch
from torch import Tensor

from .compiled import compiled_counter
from .config import CONVENTIONS, FOREIGN_OPTIONS, REF_LENGTH_RULES, BLEUConfig, require_corpus_smoothing, unknown_option
from .exact_metric import ExactStatisticsMetric, is_integer
from .functional import count_statistics
from .inputs import Hypotheses, References, input_batch

if TYPE_CHECKING:
    from .detokenize.detokenizer import Detokenizer
from .score import bleu_from_statistics
from .statistics import SentenceStatistics
from .text import TOKENIZERS


class BLEUScore(ExactStatisticsMetric):
    """Exact corpus BLEU accumulated on the device, summed across DDP ranks.

    ``update(preds, target)`` counts clipped n-gram matches of a padded batch without any host-device
    synchronization; ``compute()`` scores the statistics of every update (of every rank) together.

    Args:
        max_order: highest n-gram order; by default the number of ``weights``, else 4.
        weights: one non-negative weight per order (default uniform).
        smoothing: ``"none"``, ``"floor"``, ``"add-k"``, ``"exp"`` (sacrebleu) or ``"method0"`` ...
            (nltk).
        smooth_value: the smoothing constant; ``None`` takes the library default.
        effective_order: average only over orders the corpus has n-grams for.
        ignore_ids: ids dropped wherever they occur (PAD, BOS, EOS, ...).
        ref_length: ``"closest"`` (ties to the shorter) or ``"shortest"`` reference length.
        convention: ``"sacrebleu"`` (default) or ``"nltk"``.
        tokenize: score strings, tokenized by this sacrebleu tokenizer (``"13a"``, ``"intl"``, ...);
            ``update`` then takes ``preds`` as a list of strings and ``target`` as a list of strings
            or of lists of strings (each hypothesis's references). ``None``: token ids.
        lowercase: lowercase strings before tokenizing them (text only).
        detokenizer: a :class:`~torch_bleu.Detokenizer`: ``update`` then takes rows of subword ids
            (``target``: ids, or the reference strings) and counts the words sacrebleu's ``tokenize``
            (``"13a"`` by default) finds in their decoded text, on the device.
        compile: count each batch with ``torch.compile`` (``fullgraph=True, dynamic=False``): ``True``,
            or a dict of further ``torch.compile`` options (``{"mode": "reduce-overhead"}`` for CUDA
            graphs). Batches are padded to power-of-two widths and sizes, so a loop compiles a few
            graphs (widths 5 to 300: 7), and the statistics equal eager ones exactly. It is meant for
            accelerators, where it fuses the engine's many small kernels; on a CPU eager is faster
            at realistic sizes (see the README).
        **metric_kwargs: passed to ``torchmetrics.Metric`` (``sync_on_compute``, ``process_group``, ...).

    States (int64, reduced with ``sum``): ``matches`` and ``totals`` ``(max_order,)``, the clipped
    matches and hypothesis n-grams per order; ``preds_len`` and ``target_len``, the total hypothesis
    and effective reference lengths. Integer sums are exact and do not depend on how the corpus is split
    into batches or ranks, so under DDP ``compute()`` gives every rank the single-process score.
    A fifth state, ``counted_with``, is a constant that names how the statistics are counted
    (convention, reference-length rule, ignored ids): checkpoints and merges counted otherwise are
    refused, and a ``MetricCollection`` never shares states between metrics that count differently.

    As for every torchmetrics metric, the states are left out of ``state_dict()`` by default, so adding
    the metric to a model does not change its checkpoints; call ``metric.persistent(True)`` to save an
    evaluation in progress (``load_state_dict`` restores the states either way).

    Example:
        >>> PAD, BOS, EOS = 0, 1, 2
        >>> metric = BLEUScore(ignore_ids=[PAD, BOS, EOS])
        >>> preds = torch.tensor([[1, 7, 8, 9, 10, 11, 2, 0], [1, 5, 6, 7, 8, 2, 0, 0]])
        >>> target = torch.tensor([[1, 7, 8, 9, 10, 12, 2], [1, 5, 6, 7, 8, 9, 2]])
        >>> metric.update(preds, target)
        >>> metric.matches.tolist(), metric.totals.tolist()
        ([8, 6, 4, 2], [9, 7, 5, 3])
        >>> round(metric.compute().item(), 4)
        0.7144
    """

    is_differentiable = False
    higher_is_better = True
    full_state_update = False
    plot_lower_bound = 0.0
    plot_upper_bound = 1.0

    matches: Tensor
    totals: Tensor
    preds_len: Tensor
    target_len: Tensor
    statistics_names = SentenceStatistics._fields

    def __init__(
        self,
        max_order: int | None = None,
        weights: Sequence[float] | None = None,
        smoothing: str = "none",
        smooth_value: float | None = None,
        effective_order: bool = False,
        ignore_ids: Sequence[int] = (),
        ref_length: str = "closest",
        convention: str = "sacrebleu",
        tokenize: str | None = None,
        lowercase: bool = False,
        detokenizer: Detokenizer | None = None,
        compile: bool | dict[str, Any] = False,
        **metric_kwargs: Any,
    ) -> None:
        for name in metric_kwargs:
            if name in FOREIGN_OPTIONS:
                raise unknown_option(name)
        super().__init__(**metric_kwargs)
        self.config = BLEUConfig(
            max_order=max_order,
            weights=weights,
            smoothing=smoothing,
            smooth_value=smooth_value,
            effective_order=effective_order,
            ignore_ids=ignore_ids,
            ref_length=ref_length,
            convention=convention,
            tokenize=tokenize,
            lowercase=lowercase,
            detokenizer=detokenizer,
        )
        require_corpus_smoothing(self.config)
        if not isinstance(compile, (bool, dict)):
            raise TypeError(f"compile must be a bool or a dict of torch.compile options, got {type(compile).__name__}")
        self.compile_options = ({} if compile is True else compile) if compile is not False else None
        orders = self.config.max_order
        self.add_state("matches", torch.zeros(orders, dtype=torch.int64), dist_reduce_fx="sum")
        self.add_state("totals", torch.zeros(orders, dtype=torch.int64), dist_reduce_fx="sum")
        self.add_state("preds_len", torch.zeros((), dtype=torch.int64), dist_reduce_fx="sum")
        self.add_state("target_len", torch.zeros((), dtype=torch.int64), dist_reduce_fx="sum")
        # equal on every rank and in every merge, so "max" keeps it as it is
        self.add_state("counted_with", counting_fingerprint(self.config), dist_reduce_fx="max")

    def update(self, preds: Hypotheses, target: References, weight: Tensor | None = None) -> None:
        """Add the statistics of a padded batch: ``preds`` ``(B, Lp)``, ``target`` ``(B, Lt)`` or ``(B, R, Lt)``
        (or ragged lists of ids; or, with ``tokenize=``, strings).

        ``weight`` is an optional ``(B,)`` bool or integer tensor on the batch's device saying how many
        times each row counts: ``False`` (or 0) leaves a row out, e.g. a sample that ``DistributedSampler``
        repeated to give every rank the same number of batches. Rows are multiplied by their weight, not
        selected, so this stays free of host synchronization. A negative weight is refused: on the CPU
        its values are checked; on an accelerator, where checking would wait for the device, the weight
        must be bool or of an unsigned dtype (``torch.uint8``), which cannot be negative.

        Input is validated before any state changes, so a rejected batch leaves the metric as it was.

        Example:
            >>> metric = BLEUScore()
            >>> batch = torch.tensor([[5, 6, 7, 8], [5, 6, 7, 8]])
            >>> metric.update(batch, batch, weight=torch.tensor([True, False]))
            >>> metric.preds_len.item(), metric.totals.tolist()
            (4, [4, 3, 2, 1])
        """
        batch = input_batch(preds, target, self.config, self.device)
        if self.compile_options is None:
            stats = count_statistics(batch, self.config)
        else:
            stats = compiled_counter(self.config, self.compile_options)(batch)
        if weight is not None:
            stats = weighted_statistics(stats, weight)
        self.matches += stats.matches.sum(0)
        self.totals += stats.totals.sum(0)
        self.preds_len += stats.preds_len.sum()
        self.target_len += stats.target_len.sum()

    def counting_fingerprint(self) -> Tensor:
        """See :func:`counting_fingerprint`."""
        return counting_fingerprint(self.config)

    def counting_description(self) -> str:
        """The counting options by name, for messages."""
        return ", ".join(f"{name}={value!r}" for name, value in counting_options(self.config))

    def _load_from_state_dict(self, state_dict: dict[str, Any], prefix: str, *args: Any) -> None:
        """Load saved statistics (see :class:`~torch_bleu.exact_metric.ExactStatisticsMetric`); checkpoints that
        call ``matches`` and ``totals`` by their earlier names, ``numerator`` and ``denominator``
        (torchmetrics' names), load as well."""
        for earlier, name in EARLIER_NAMES.items():
            if prefix + earlier in state_dict and prefix + name not in state_dict:
                state_dict[prefix + name] = state_dict.pop(prefix + earlier)
        super()._load_from_state_dict(state_dict, prefix, *args)

    def compute(self) -> Tensor:
        """Corpus BLEU in ``[0, 1]`` of everything seen so far (0-d float64)."""
        score: Tensor = bleu_from_statistics(self.matches, self.totals, self.preds_len, self.target_len, self.config)
        return score

    def plot(self, val: Tensor | Sequence[Tensor] | None = None, ax: Any | None = None) -> Any:
        """Plot ``compute()``, one value, or a sequence of values such as BLEU per epoch (needs matplotlib).

        Returns torchmetrics' ``(figure, axes)`` pair; a sequence is drawn as a line over its steps.
        """
        return self._plot(val, ax)


#: State names of checkpoints saved before the states took the statistics' names.
EARLIER_NAMES = {"numerator": "matches", "denominator": "totals"}


def counting_options(config: BLEUConfig) -> tuple[Any, ...]:
    """The options that decide the statistics, as opposed to how they are scored.

    Example:
        >>> [name for name, _ in counting_options(BLEUConfig(smoothing="exp"))]  # smoothing is scoring
        ['max_order', 'ignore_ids', 'ref_length', 'convention', 'tokenize', 'lowercase']
    """
    names = ("max_order", "ignore_ids", "ref_length", "convention", "tokenize", "lowercase")
    return tuple((name, getattr(config, name)) for name in names)


def counting_fingerprint(config: BLEUConfig) -> Tensor:
    """The counting options as int64: convention, reference-length rule, then the ignored ids.

    (``max_order`` needs no entry: it is the length of the ``matches`` and ``totals`` states.)

    Example:
        >>> counting_fingerprint(BLEUConfig(convention="nltk", ignore_ids=[0, 2])).tolist()
        [1, 0, 0, 2]
    """
    # text input folds the tokenizer into the first code and lowercasing into the second, so that id
    # metrics keep the codes (and checkpoints) they always had
    tokenizer = 0 if config.tokenize is None else 1 + TOKENIZERS.index(config.tokenize)
    codes = [
        CONVENTIONS.index(config.convention) + len(CONVENTIONS) * tokenizer,
        REF_LENGTH_RULES.index(config.ref_length) + len(REF_LENGTH_RULES) * config.lowercase,
    ]
    # decoded ids count the words of their text, as text input does: the ids dropped before decoding
    # are no part of the counting
    ignored = [] if config.detokenizer is not None else list(config.ignore_ids)
    return torch.tensor(codes + ignored, dtype=torch.int64)


def weighted_statistics(stats: SentenceStatistics, weight: object) -> SentenceStatistics:
    """Multiply each sentence's statistics by its row weight, checked from shape and dtype only.

    Example:
        >>> stats = SentenceStatistics(torch.tensor([[2, 1], [3, 2]]), torch.tensor([[3, 2], [3, 2]]),
        ...                            torch.tensor([3, 3]), torch.tensor([4, 3]))
        >>> weighted_statistics(stats, torch.tensor([False, True])).matches.tolist()
        [[0, 0], [3, 2]]
    """
    batch = stats.preds_len.shape[0]
    if not isinstance(weight, Tensor):
        raise TypeError(f"weight must be a ({batch},) tensor of bools or integers, got {type(weight).__name__}")
    if not is_integer(weight) and weight.dtype != torch.bool:
        raise TypeError(f"weight must hold bools or integers, as the statistics are exact integers; got {weight.dtype}")
    if weight.shape != (batch,):
        raise ValueError(f"weight must have shape ({batch},), one entry per row, got {tuple(weight.shape)}")
    if weight.device != stats.preds_len.device:
        raise ValueError(f"weight is on {weight.device} but the batch is on {stats.preds_len.device}")
    if weight.dtype.is_signed:
        if weight.device.type != "cpu":
            raise TypeError(
                f"a signed {weight.dtype} weight on {weight.device} would have to be read back to check that it "
                "is not negative; pass a bool mask or an unsigned count (weight.to(torch.uint8))"
            )
        if bool((weight < 0).any()):
            raise ValueError("weight must not be negative: a row counts 0, 1 or more times")
    rows = weight.long()
    return SentenceStatistics(
        stats.matches * rows.unsqueeze(-1),
        stats.totals * rows.unsqueeze(-1),
        stats.preds_len * rows,
        stats.target_len * rows,
    )
