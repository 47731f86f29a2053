"""A metric's states compared with another's: the tests of the queues count batches in other ways and expect
the same integers."""

from __future__ import annotations

import torch


def states(metric) -> dict[str, object]:
    """A copy of every state of ``metric`` (tensors cloned, lists copied)."""
    return {
        name: value.clone() if isinstance(value, torch.Tensor) else list(value)
        for name, value in metric.metric_state.items()
    }


def assert_same(metric, expected) -> None:
    """Every state of ``metric`` equals ``expected``'s; a list state by its concatenation."""
    got, want = states(metric), states(expected)
    assert got.keys() == want.keys()
    for name in want:
        if isinstance(want[name], list):
            assert sum(map(len, got[name])) == sum(map(len, want[name])), name
            if sum(map(len, want[name])):  # an empty batch may keep an empty part, or none
                assert torch.equal(torch.cat(got[name]), torch.cat(want[name])), name
        else:
            assert torch.equal(got[name], want[name]), name


def assert_collection_as_alone(collection, bleu, wer) -> None:
    """A ``MetricCollection`` of two ``BLEUScore`` ``a`` and ``b`` and a ``WERScore`` ``c`` that saw the same
    batches as ``bleu`` and ``wer`` (updated alone, in one batch): the BLEU pair shares one compute group, whose
    states are ``bleu``'s, and every metric computes as its lone twin."""
    assert collection.compute_groups == {0: ["a", "b"], 1: ["c"]}
    assert_same(collection["b"], bleu)  # a copy of the group's states, taken before any compute
    values = collection.compute()
    assert values["a"] == values["b"] == bleu.compute()
    assert values["c"] == wer.compute()
