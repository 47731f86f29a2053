"""Bad input gets a clear TypeError/ValueError, and a rejected update loses nothing."""

from __future__ import annotations

import dataclasses
import inspect

import numpy as np
import pytest
import torch

from torch_bleu import BLEUConfig, BLEUScore, CHRFConfig, CHRFScore, corpus_bleu, sentence_bleu, sentence_statistics

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
def test_sentence_statistics_checks_its_input_as_sentence_bleu_does(preds, target, error, message):
    with pytest.raises(error, match=message):
        sentence_statistics(preds, target)


def test_sentence_statistics_takes_what_sentence_bleu_takes():
    # int32 predictions against int64 ids beyond 2**31: no id is equal, so nothing matches
    preds = torch.tensor([[1, 2, 3, 4]], dtype=torch.int32)
    target = torch.tensor([[2**32 + 1, 2**32 + 2, 2**32 + 3, 2**32 + 4]])
    assert sentence_statistics(preds, target).matches.tolist() == [[0, 0, 0, 0]]
    assert sentence_bleu(preds, target, smoothing="floor").item() == 0.0
    # a 2-D target, and ragged lists, as for sentence_bleu
    assert sentence_statistics(GOOD_PREDS, GOOD_TARGET).matches.tolist() == [[3, 2, 1, 0]]
    assert sentence_statistics([[4, 5, 6, 7]], [[[4, 5, 6, 8], []]]).matches.tolist() == [[3, 2, 1, 0]]
    with pytest.raises(ValueError, match="max_order"):
        sentence_statistics(GOOD_PREDS, GOOD_TARGET, max_order=0)
    with pytest.raises(ValueError, match="ref_present must have shape"):
        sentence_statistics(GOOD_PREDS, GOOD_TARGET, ref_present=torch.ones(2, 1, dtype=torch.bool))


# --- where users go wrong: the error says what to do --------------------------------------------

LOGITS = torch.randn(1, 4, 10)


@pytest.mark.parametrize(
    "preds, target, message",
    [
        (LOGITS, GOOD_TARGET, r"preds.argmax\(dim=-1\)"),
        (LOGITS.softmax(-1), GOOD_TARGET, "argmax"),
        ("the cat sat", [["the cat sat"]], "map text to ids"),
        (["the cat sat"], [["the cat sat"]], "map text to ids"),
        ([[4, 5]], [["the cat sat"]], "map text to ids"),
        ([["the", "cat"]], [[["the", "cat"]]], "map text to ids"),  # nltk's lists of words
        (np.array(["the cat"]), GOOD_TARGET, "map text to ids"),
    ],
)
def test_common_mistakes_get_a_hint(preds, target, message):
    for score in (corpus_bleu, sentence_bleu):
        with pytest.raises(TypeError, match=message):
            score(preds, target)


def test_numpy_arrays_from_hugging_face_compute_metrics_work():
    """Trainer hands compute_metrics NumPy arrays, with labels padded by -100."""
    predictions = np.array([[0, 4, 5, 6, 7, 1, 0]], dtype=np.int64)  # 0 pads, 1 ends the sentence
    labels = np.array([[4, 5, 6, 8, 1, -100, -100]])
    expected = corpus_bleu(GOOD_PREDS, GOOD_TARGET, smoothing="floor")
    assert corpus_bleu(predictions, labels, ignore_ids=[-100, 0, 1], smoothing="floor").item() == expected.item()
    assert (
        sentence_bleu([np.array([4, 5, 6, 7])], [[np.array([4, 5, 6, 8])]], smoothing="floor").item() == expected.item()
    )


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
    ({"weights": [0.5, 0.5], "max_order": 4}, ValueError, "one entry per order"),
    ({"weights": []}, ValueError, "one entry per order"),
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
    ({"eos_id": "</s>"}, TypeError, "eos_id must be an int or a sequence of ints"),
    ({"eos_id": [2.0]}, TypeError, "eos_id must contain ints only"),
    ({"eos_id": True}, TypeError, "eos_id"),
    ({"effective_order": "yes"}, TypeError, "effective_order"),
    # other libraries' names for options: the error names ours
    ({"n_gram": 2}, TypeError, "n_gram is max_order"),
    ({"max_ngram_order": 2}, TypeError, "is max_order"),
    ({"smooth_method": "exp"}, TypeError, "smoothing"),
    ({"smooth": True}, TypeError, "add-k"),
    ({"smoothing_function": None}, TypeError, "convention='nltk'"),
    ({"tokenize": "spacy"}, ValueError, "sacrebleu's"),
    ({"lowercase": True}, ValueError, "lowercase applies to text"),
    ({"lowercase": 1, "tokenize": "13a"}, TypeError, "lowercase must be a bool"),
    ({"tokenize": "13a", "ignore_ids": [0]}, ValueError, "ignore_ids apply to token ids"),
    ({"tokenize": "13a", "eos_id": 2}, ValueError, "eos_id applies to token ids"),
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


@pytest.mark.parametrize(("metric", "config"), [(BLEUScore, BLEUConfig), (CHRFScore, CHRFConfig)])
def test_a_metric_shows_its_configs_options_in_its_signature(metric, config):
    """The options are declared once, as the config's fields; the metric's signature lists them, with their defaults."""
    parameters = inspect.signature(metric).parameters
    assert [name for name in parameters if name in config.option_names()] == list(config.option_names())
    assert all(parameters[field.name].default == field.default for field in dataclasses.fields(config))
    assert list(parameters)[-1] == "metric_kwargs"
