"""What every metric of this library shares: integer statistics as states, kept exact through every path.

A subclass holds its statistics in int64 states (summed across DDP ranks) and a constant
``counted_with`` state, an int64 fingerprint of the options that decide how they are counted. This
class makes merging, syncing and loading keep them exact: incoming states must be integer tensors of
the same shapes, counted the same way; loaded ones are copied as int64 to the metric's device; and
whatever arrives other than by ``update`` counts as an update (``compute()`` then scores it without
torchmetrics' warning, and no cached value survives).
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor
from torchmetrics import Metric


class ExactStatisticsMetric(Metric):
    """Base of ``BLEUScore`` and ``CHRFScore``: int64 statistics, checked wherever states come in.

    Subclasses set :attr:`statistics_names` (their summed states), add a ``counted_with`` state from
    :meth:`counting_fingerprint`, and describe their counting options in :meth:`counting_description`.
    """

    #: The states that hold statistics (``counted_with`` is a constant beside them).
    statistics_names: tuple[str, ...] = ()
    counted_with: Tensor

    def counting_fingerprint(self) -> Tensor:
        """The options that decide the statistics, as an int64 tensor."""
        raise NotImplementedError

    def counting_description(self) -> str:
        """The options that decide the statistics, for messages."""
        raise NotImplementedError

    def merge_state(self, incoming_state: dict[str, Any] | Metric) -> None:
        """Add the statistics of another metric of this kind, or a dict of its statistics, to this one's.

        They must have been counted the same way (options that only change the score may differ), and
        a dict's states must be integer tensors of the same shapes.
        """
        if isinstance(incoming_state, type(self)):
            self._check_states(incoming_state.metric_state)
            merged_updates = incoming_state._update_count
        elif isinstance(incoming_state, dict):
            missing = [name for name in self.statistics_names if name not in incoming_state]
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
        counted_with, own_counting = states.get("counted_with"), self.counting_fingerprint()
        if isinstance(counted_with, Tensor) and not torch.equal(counted_with.cpu(), own_counting):
            raise ValueError(
                f"the incoming statistics were counted otherwise: counted_with {counted_with.tolist()} is not "
                f"{own_counting.tolist()} ({self.counting_description()})"
            )
        for name, state in states.items():
            own = getattr(self, name)
            if not isinstance(state, Tensor) or not is_integer(state):
                found = state.dtype if isinstance(state, Tensor) else type(state).__name__
                raise TypeError(f"state {name!r} must be an integer tensor to stay exact, got {found}")
            if state.shape != own.shape:
                raise ValueError(f"state {name!r} must have shape {tuple(own.shape)}, got {tuple(state.shape)}")


def is_integer(tensor: Tensor) -> bool:
    """Whether ``tensor`` holds integers (bools are not counts)."""
    return not (tensor.is_floating_point() or tensor.is_complex() or tensor.dtype == torch.bool)
