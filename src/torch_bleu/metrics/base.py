"""The ``torchmetrics.Metric`` every metric of this library is: integer statistics as states, kept exact.

A metric is a config (:class:`~torch_bleu.metrics.config.MetricConfig`), per-sentence statistics and a
score. :class:`ExactMetric` does the rest, the same way for every metric:

* ``__init__`` takes the config's options by name (torchmetrics' own arguments beside them) and
  points other libraries' option names to the right one;
* ``update(preds, target, weight=None)`` counts a batch, multiplies each sentence's statistics by its
  weight and adds them to int64 states, summed across DDP ranks;
* a constant ``counted_with`` state holds the config's fingerprint, so that statistics counted
  otherwise are never added up: a ``MetricCollection`` groups only metrics with equal states, and
  merges and checkpoints are checked against it;
* merged, synced and loaded states must be integer tensors of the right shapes; loaded ones are
  copied as int64 to the metric's device; whatever arrives other than by ``update`` counts as an
  update (``compute()`` then scores it without torchmetrics' warning, and no cached value survives).
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, TypedDict

import torch
from torch import Tensor
from torchmetrics import Metric

from ..arrays import Array, as_tensor, is_integer
from ..threads import within_cpu_share
from .config import MetricConfig


class MetricArguments(TypedDict, total=False):
    """torchmetrics' own ``Metric`` arguments, which every metric takes beside its options (for type checkers)."""

    compute_on_cpu: bool
    dist_sync_on_step: bool
    process_group: Any
    dist_sync_fn: Callable[..., Any] | None
    distributed_available_fn: Callable[[], bool] | None
    sync_on_compute: bool
    compute_with_cache: bool


class ExactMetric(Metric):
    """Base of every metric: int64 statistics from ``update``, checked wherever states come in.

    Subclasses set :attr:`config_class` and :attr:`state_names`, and implement
    :meth:`statistics_shapes`, :meth:`sentence_statistics` and :meth:`score`.
    """

    is_differentiable = False
    higher_is_better = True
    full_state_update = False
    plot_lower_bound = 0.0
    plot_upper_bound: float | None = 1.0

    #: The metric's options.
    config_class: ClassVar[type[MetricConfig]] = MetricConfig
    #: The states that sum the statistics, in the order :meth:`sentence_statistics` gives them.
    state_names: ClassVar[tuple[str, ...]] = ()

    config: MetricConfig
    counted_with: Tensor

    def __init__(self, *positional: Any, **options: Any) -> None:
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
        for name, shape in zip(self.state_names, self.statistics_shapes()):
            self.add_state(name, torch.zeros(shape, dtype=torch.int64), dist_reduce_fx="sum")
        # equal on every rank and in every merge, so "max" keeps it as it is
        self.add_state("counted_with", torch.tensor(self.config.fingerprint()), dist_reduce_fx="max")

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
        rest = [parameter for parameter in own.parameters.values() if parameter.kind not in variadic]
        metric_kwargs = inspect.Parameter("metric_kwargs", inspect.Parameter.VAR_KEYWORD)
        cls.__signature__ = own.replace(parameters=[*options, *rest[1:], metric_kwargs])  # type: ignore[attr-defined]

    # --- what a metric defines -------------------------------------------------------------------------

    def statistics_shapes(self) -> Sequence[tuple[int, ...]]:
        """The shape of each state of :attr:`state_names`."""
        raise NotImplementedError

    def sentence_statistics(self, preds: Any, target: Any) -> Sequence[Array]:
        """Each statistic of every sentence of a batch, ``(B, *shape)`` integers, input checked first."""
        raise NotImplementedError

    def score(self, *statistics: Tensor) -> Tensor:
        """The score of summed statistics (the states, in order)."""
        raise NotImplementedError

    # --- the life cycle ----------------------------------------------------------------------------------

    @within_cpu_share
    def update(self, preds: Any, target: Any, weight: Tensor | None = None) -> None:
        """Add the statistics of a batch; it is checked first, so a rejected batch leaves the states as they were.

        ``weight`` is an optional ``(B,)`` bool or integer tensor saying how many times each sentence
        counts: ``False`` (or 0) leaves one out, e.g. a sample that ``DistributedSampler`` repeated to
        give every rank the same number of batches. Statistics are multiplied by their weight, not
        selected, so this stays free of host synchronization. A negative weight is refused: on the CPU
        its values are checked; on an accelerator, where checking would wait for the device, the weight
        must be bool or of an unsigned dtype (``torch.uint8``), which cannot be negative.
        """
        statistics = self.sentence_statistics(preds, target)
        if weight is not None:
            statistics = weighted([as_tensor(values, self.device) for values in statistics], weight)
        for name, values in zip(self.state_names, statistics):  # summed where counted: NumPy arrays on the host
            getattr(self, name).add_(as_tensor(values, self.device).sum(0))

    @within_cpu_share
    def compute(self) -> Tensor:
        """The score of everything added so far (of every rank), a 0-d float64 tensor."""
        return self.score(*(getattr(self, name) for name in self.state_names))

    def plot(self, val: Tensor | Sequence[Tensor] | None = None, ax: Any | None = None) -> Any:
        """Plot ``compute()``, one value, or a sequence of values such as the score per epoch (needs matplotlib).

        Returns torchmetrics' ``(figure, axes)`` pair; a sequence is drawn as a line over its steps.
        """
        return self._plot(val, ax)

    def merge_state(self, incoming_state: dict[str, Any] | Metric) -> None:
        """Add the statistics of another metric of this kind, or a dict of its statistics, to this one's.

        They must have been counted the same way (options that only change the score may differ), and
        a dict's states must be integer tensors of the same shapes.
        """
        if isinstance(incoming_state, type(self)):
            self._check_states(incoming_state.metric_state)
            merged_updates = incoming_state._update_count
        elif isinstance(incoming_state, dict):
            missing = [name for name in self.state_names if name not in incoming_state]
            if missing:
                raise ValueError(f"the incoming state lacks {', '.join(missing)}")
            incoming_state = {"counted_with": self.counted_with, **incoming_state}
            self._check_states({name: incoming_state[name] for name in self._defaults})
            merged_updates = 1
        super().merge_state(incoming_state)
        self._statistics_changed(merged_updates)

    def _statistics_changed(self, updates: int) -> None:
        """Forget a cached ``compute()`` value, and count states that came in other than by ``update``."""
        self._computed = None
        self._update_count += updates

    def sync(self, *args: Any, **kwargs: Any) -> None:
        """Gather the states of every rank (torchmetrics' ``sync``), forgetting a cached ``compute()`` value."""
        super().sync(*args, **kwargs)
        self._computed = None

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
        self._check_states(saved)
        for name, value in saved.items():
            state_dict[prefix + name] = value.to(device=self.device, dtype=torch.int64, copy=True)
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )
        if saved:
            self._statistics_changed(1)

    def _check_states(self, states: dict[str, Any]) -> None:
        """Incoming states must be integer tensors shaped like this metric's own, counted the same way."""
        counted_with = states.get("counted_with")
        if isinstance(counted_with, Tensor) and not torch.equal(counted_with.cpu(), self.counted_with.cpu()):
            raise ValueError(
                f"the incoming statistics were counted otherwise than this {type(self).__name__}'s "
                f"({self.config.counting_description()}): their fingerprint {counted_with.tolist()} is not "
                f"{self.counted_with.tolist()}"
            )
        for name, state in states.items():
            own = getattr(self, name)
            if not isinstance(state, Tensor) or not is_integer(state):
                found = state.dtype if isinstance(state, Tensor) else type(state).__name__
                raise TypeError(f"state {name!r} must be an integer tensor to stay exact, got {found}")
            if state.shape != own.shape:
                raise ValueError(f"state {name!r} must have shape {tuple(own.shape)}, got {tuple(state.shape)}")


def weighted(statistics: Sequence[Tensor], weight: object) -> list[Tensor]:
    """Each sentence's statistics ``(B, ...)`` times its row weight, checked from shape and dtype only.

    Example:
        >>> weighted([torch.tensor([[2, 1], [3, 2]]), torch.tensor([3, 4])], torch.tensor([False, True]))
        [tensor([[0, 0],
                [3, 2]]), tensor([0, 4])]
    """
    batch, device = statistics[0].shape[0], statistics[0].device
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
    rows = weight.long()
    return [values * rows.reshape(batch, *[1] * (values.dim() - 1)) for values in statistics]
