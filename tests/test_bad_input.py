"""Bad input gets a clear TypeError/ValueError, and a rejected update loses nothing."""

from __future__ import annotations

import pytest
import torch

from torch_bleu import BLEUScore, corpus_bleu, sentence_bleu

GOOD_PREDS = torch.tensor([[4, 5, 6, 7]])
GOOD_TARGET = torch.tensor([[4, 5, 6, 8]])

BAD_BATCHES = [
    (torch.tensor([[4.0, 5.0]]), GOOD_TARGET, TypeError, "integer token ids"),
    (GOOD_PREDS, torch.tensor([[True, False]]), TypeError, "integer token ids"),
    (GOOD_PREDS, torch.tensor([[1 + 2j]]), TypeError, "integer token ids"),
    ("the cat", GOOD_TARGET, TypeError, "preds must be"),
    (GOOD_PREDS, None, TypeError, "target must be"),
    (None, GOOD_TARGET, TypeError, "preds must be"),
    (torch.tensor([4, 5, 6]), GOOD_TARGET, ValueError, "2-D"),
    (GOOD_PREDS, torch.tensor([4, 5, 6]), ValueError, "target must be 2-D"),
    (GOOD_PREDS, torch.zeros(1, 1, 1, 3, dtype=torch.long), ValueError, "target must be 2-D"),
    (torch.tensor([[4, 5], [6, 7]]), GOOD_TARGET, ValueError, "batch sizes differ"),
]


@pytest.mark.parametrize("preds, target, error, message", BAD_BATCHES)
def test_bad_batches_are_rejected_and_statistics_kept(preds, target, error, message):
    metric = BLEUScore()
    metric.update(GOOD_PREDS, GOOD_TARGET)
    before = {name: getattr(metric, name).clone() for name in ("numerator", "denominator", "preds_len", "target_len")}
    with pytest.raises(error, match=message):
        metric.update(preds, target)
    for name, value in before.items():
        assert torch.equal(getattr(metric, name), value)
    with pytest.raises(error, match=message):
        corpus_bleu(preds, target)
    with pytest.raises(error, match=message):
        sentence_bleu(preds, target)


BAD_OPTIONS = [
    ({"max_order": 0}, ValueError, "max_order"),
    ({"max_order": 2.5}, ValueError, "max_order"),
    ({"weights": [0.5, 0.5]}, ValueError, "one entry per order"),
    ({"weights": [0.5, 0.5, -0.1, 0.1]}, ValueError, "non-negative"),
    ({"weights": [0, 0, 0, 0]}, ValueError, "all be zero"),
    ({"weights": "abcd"}, TypeError, "weights"),
    ({"smoothing": "laplace"}, ValueError, "unknown smoothing"),
    ({"smooth_value": -1.0, "smoothing": "floor"}, ValueError, "smooth_value"),
    ({"convention": "moses"}, ValueError, "unknown convention"),
    ({"ref_length": "longest"}, ValueError, "unknown ref_length"),
    ({"ignore_ids": ["<pad>"]}, TypeError, "ignore_ids"),
    ({"ignore_ids": [0.0]}, TypeError, "ignore_ids"),
    ({"ignore_ids": "0"}, TypeError, "ignore_ids"),
    ({"effective_order": "yes"}, TypeError, "effective_order"),
]


@pytest.mark.parametrize("options, error, message", BAD_OPTIONS)
def test_bad_options_are_rejected(options, error, message):
    with pytest.raises(error, match=message):
        BLEUScore(**options)
    with pytest.raises(error, match=message):
        corpus_bleu(GOOD_PREDS, GOOD_TARGET, **options)


def test_custom_weights_need_not_sum_to_one():
    weights = [0.5, 0.25, 0.125, 0.0625]
    metric = BLEUScore(weights=weights)
    metric.update(torch.tensor([[1, 2, 2, 3, 4]]), torch.tensor([[1, 2, 3, 4, 5, 6]]))
    # A B B C D against A B C D E F: p = 4/5, 3/4, 1/3, 0 -> the 1/2**n weighted product is 0 here
    assert metric.numerator.tolist() == [4, 3, 1, 0]
    assert metric.compute().item() == 0.0
