"""Bad input gets a clear TypeError/ValueError, and a rejected update loses nothing."""

from __future__ import annotations

import dataclasses
import inspect

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from torch_bleu import (
    BLEUConfig,
    BLEUScore,
    CHRFConfig,
    CHRFScore,
    Detokenizer,
    TERScore,
    WERScore,
    bleu_statistics,
    corpus_bleu,
    sentence_bleu,
)
from torch_bleu.metrics.base import CorpusScoreMetric

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
        bleu_statistics(preds, target)


def test_sentence_statistics_takes_what_sentence_bleu_takes():
    # int32 predictions against int64 ids beyond 2**31: no id is equal, so nothing matches
    preds = torch.tensor([[1, 2, 3, 4]], dtype=torch.int32)
    target = torch.tensor([[2**32 + 1, 2**32 + 2, 2**32 + 3, 2**32 + 4]])
    assert bleu_statistics(preds, target).matches.tolist() == [[0, 0, 0, 0]]
    assert sentence_bleu(preds, target, smoothing="floor").item() == 0.0
    # a 2-D target, and ragged lists, as for sentence_bleu
    assert bleu_statistics(GOOD_PREDS, GOOD_TARGET).matches.tolist() == [[3, 2, 1, 0]]
    assert bleu_statistics([[4, 5, 6, 7]], [[[4, 5, 6, 8], []]]).matches.tolist() == [[3, 2, 1, 0]]
    with pytest.raises(ValueError, match="max_order"):
        bleu_statistics(GOOD_PREDS, GOOD_TARGET, max_order=0)
    with pytest.raises(ValueError, match="ref_present must have shape"):
        bleu_statistics(GOOD_PREDS, GOOD_TARGET, ref_present=torch.ones(2, 1, dtype=torch.bool))


# --- where users go wrong: the error says what to do --------------------------------------------

LOGITS = torch.randn(1, 4, 10)


@pytest.mark.parametrize(
    "preds, target, message",
    [
        (LOGITS, GOOD_TARGET, r"preds.argmax\(dim=-1\)"),
        (LOGITS.softmax(-1), GOOD_TARGET, "argmax"),
        ("the cat sat", [["the cat sat"]], "map text to ids"),
        (["the cat sat"], [["the cat sat"]], "map text to ids"),
        ([[4, 5]], [["the cat sat"]], r"preds are token ids, so .* pass detokenizer=torch_bleu\.Detokenizer"),
        ([["the", "cat"]], [[["the", "cat"]]], "map text to ids"),  # nltk's lists of words
        (np.array(["the cat"]), GOOD_TARGET, "map text to ids"),
    ],
)
def test_common_mistakes_get_a_hint(preds, target, message):
    for score in (corpus_bleu, sentence_bleu):
        with pytest.raises(TypeError, match=message):
            score(preds, target)


# Layouts of other libraries, and other libraries' ways of passing options: each gets its own hint.
LAYOUT_MISTAKES = {
    "sacrebleu's reference streams": (
        ["a b c", "d e f", "g h i"],
        [["a b c", "d e f", "g h i"], ["a b c", "d e f", "g h x"]],
        {"tokenize": "13a"},
        ValueError,
        r"batch sizes differ: 3 != 2; target looks like sacrebleu's reference streams .* list\(zip\(\*streams\)\)",
    ),
    "reference streams of ids": (
        [[4, 5], [6, 7], [8]],
        [[[4, 5], [6, 7], [8]], [[4], [6], [8]]],
        {},
        ValueError,
        r"sacrebleu's reference streams",
    ),
    "nltk's argument order": (
        [[[4, 5, 6, 8]], [[4, 5]]],
        [[4, 5, 6, 7], [4, 5]],
        {},
        TypeError,
        r"look swapped: .* nltk's corpus_bleu\(list_of_references, hypotheses\)",
    ),
    "nltk's argument order, of words": ([[["the", "cat"]]], [["the", "cat"]], {}, TypeError, "look swapped"),
    "nltk's lists of words": (
        [["the", "cat"]],
        [[["the", "cat"]]],
        {},
        TypeError,
        r"got str \(words\?\).*joined by spaces, with tokenize='none', convention='nltk'",
    ),
    "sacrebleu's argument order": (
        [["the cat", "a cat"]],
        ["the cat"],
        {"tokenize": "13a"},
        TypeError,
        r"preds\[0\] is a list of strings.*look swapped.*if they are words, join them",
    ),
    "ids stored as floats": (torch.tensor([[4.0, 5.0]]), GOOD_TARGET, {}, TypeError, r"pass preds\.long\(\)"),
    "reference ids stored as floats": (GOOD_PREDS, torch.tensor([[4.0]]), {}, TypeError, r"pass target\.long\(\)"),
    "a NumPy array of floats": (
        np.array([[4.0, 5.0]]),
        GOOD_TARGET.numpy(),
        {},
        TypeError,
        r"got a NumPy array of float64; .* pass preds\.astype\(np\.int64\)",
    ),
    "NumPy logits": (
        np.zeros((1, 4, 10), dtype=np.float32),
        GOOD_TARGET.numpy(),
        {},
        TypeError,
        r"NumPy array of float32; if these are logits .* preds\.argmax\(axis=-1\)",
    ),
}


@pytest.mark.parametrize("mistake", LAYOUT_MISTAKES)
def test_layouts_of_other_libraries_get_a_hint_and_lose_nothing(mistake):
    preds, target, options, error, message = LAYOUT_MISTAKES[mistake]
    metric = BLEUScore(**options)
    metric.update(["the cat sat"] if options else GOOD_PREDS, [["the cat sat"]] if options else GOOD_TARGET)
    before = {name: getattr(metric, name).clone() for name in ("numerator", "denominator", "preds_len", "target_len")}
    with pytest.raises(error, match=message):
        metric.update(preds, target)
    assert all(torch.equal(getattr(metric, name), value) for name, value in before.items())
    with pytest.raises(error, match=message):
        sentence_bleu(preds, target, **options)


def test_transposed_streams_give_the_same_score_as_sacrebleu():
    sacrebleu = pytest.importorskip("sacrebleu")
    hypotheses = ["the cat sat on the mat", "a dog barked", "it rained all day"]
    streams = [["the cat sat on a mat", "a dog barks", "it rained all day long"], ["a cat sat", "dogs bark", "rain"]]
    ours = corpus_bleu(hypotheses, list(zip(*streams)), tokenize="13a", smoothing="exp")
    assert ours.item() * 100 == pytest.approx(sacrebleu.corpus_bleu(hypotheses, streams).score, abs=1e-9)


@pytest.mark.parametrize(
    "metric, positional, message",
    [
        (BLEUScore, (4, True), r"BLEUScore\(4, True\) reads as torchmetrics' BLEUScore\(n_gram=4, smooth=True\): "),
        (CHRFScore, (6, 2), r"CHRFScore\(n_char_order=6, n_word_order=2\): .*char_order here.*word_order here"),
        (BLEUScore, (4, False, None, 1), r"takes its options by name, got BLEUScore\(4, False, None, 1\)"),
    ],
)
def test_options_passed_by_position_are_read_as_torchmetrics_reads_them(metric, positional, message):
    with pytest.raises(TypeError, match=message):
        metric(*positional)


def test_every_foreign_option_is_named_in_one_message():
    for make in (
        lambda **options: BLEUScore(**options),
        lambda **options: corpus_bleu(GOOD_PREDS, GOOD_TARGET, **options),
    ):
        with pytest.raises(TypeError, match=r"unknown options 'n_gram': .*max_order.*; 'smooth': .*add-k") as raised:
            make(n_gram=4, smooth=True)
        assert "the options of BLEU are" not in str(raised.value)
    with pytest.raises(TypeError, match=r"'n_char_order': .*char_order.*; 'colour': the options of chrF are"):
        CHRFScore(n_char_order=6, colour=1)


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


# ---------------------------------------------------------------- merged and loaded statistics

STATE_METRICS = {
    "bleu": lambda **kw: BLEUScore(tokenize="13a", **kw),
    "chrf": lambda **kw: CHRFScore(**kw),
    "ter": lambda **kw: TERScore(**kw),
    "wer": lambda **kw: WERScore(**kw),
}


def _counted(name: str, **options: object) -> CorpusScoreMetric:
    metric = STATE_METRICS[name](**options)
    metric.update(["the cat sat on the mat", "a dog"], ["the cat sat on a mat", "a dog barked"])
    return metric


def _states(metric: CorpusScoreMetric) -> dict[str, torch.Tensor]:
    return {name: value.clone() for name, value in metric.metric_state.items() if isinstance(value, torch.Tensor)}


def test_statistics_counted_otherwise_are_refused_naming_the_options_that_differ_with_both_values():
    ours, theirs = BLEUScore(), BLEUScore(max_order=2, eos_id=3)
    theirs.update(torch.tensor([[4, 5, 6]]), torch.tensor([[4, 5, 7]]))
    message = (
        r"^the incoming statistics were counted otherwise, with max_order=2, eos_id=\(3,\); "
        r"this BLEUScore counts with max_order=4, eos_id=\(\)$"
    )
    for incoming in (theirs, dict(theirs.metric_state)):
        with pytest.raises(ValueError, match=message):
            ours.merge_state(incoming)
    theirs.persistent(True)
    ours.persistent(True)
    with pytest.raises(ValueError, match=message):
        ours.load_state_dict(theirs.state_dict())
    with pytest.raises(
        ValueError, match=r"counted otherwise, with the options of chrF; this BLEUScore counts with those"
    ):
        ours.merge_state({**_states(theirs), "counted_with": CHRFScore().counted_with})
    unknown = {**_states(theirs), "counted_with": torch.arange(8)}  # as from a checkpoint of another process
    with pytest.raises(ValueError, match=r"than this BLEUScore's \(max_order=4, .*\): their fingerprint \[0, 1, 2, 3"):
        ours.merge_state(unknown)
    assert ours.numerator.sum().item() == 0


@pytest.mark.parametrize("name", list(STATE_METRICS))
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_negative_statistics_are_refused_by_merges_and_loads_and_the_states_kept(name, data):
    metric = _counted(name)
    before = _states(metric)
    incoming = _states(_counted(name))
    state = data.draw(st.sampled_from([key for key in incoming if key != "counted_with"]))
    flat = incoming[state].view(-1)
    flat[data.draw(st.integers(0, flat.numel() - 1))] = data.draw(st.integers(-(2**63), -1))
    with pytest.raises(ValueError, match=rf"^state {state!r} must not be negative, as it counts; got -\d+$"):
        metric.merge_state(incoming)
    metric.persistent(True)
    with pytest.raises(ValueError, match=rf"^state {state!r} must not be negative"):
        metric.load_state_dict(incoming)
    assert all(torch.equal(value, before[key]) for key, value in _states(metric).items())


@pytest.mark.parametrize("column", [0, -2, -1], ids=["statistic", "weight", "dataset index"])
def test_kept_sentences_with_negative_counts_are_refused(column):
    metric, incoming = _counted("chrf", keep_sentences=True), _counted("chrf", keep_sentences=True)
    kept = torch.cat(incoming.metric_state["kept_sentences"]).clone()
    kept[0, column] = -2
    message = "dataset index -2" if column == -1 else "must not hold negative statistics or weights, as they count"
    with pytest.raises(ValueError, match=message):
        metric.merge_state({**_states(incoming), "kept_sentences": [kept]})
    assert len(metric.metric_state["kept_sentences"]) == 1 and metric.kept_corpus().statistics.shape[0] == 2


def test_detokenizers_that_print_alike_are_told_apart_by_their_fingerprints():
    ours = CHRFScore(detokenizer=Detokenizer((b"", b"a"), "per_byte"))
    theirs = CHRFScore(detokenizer=Detokenizer((b"", b"b"), "per_byte"))
    shown = r"detokenizer=Detokenizer\(custom, 2 ids, clean_up=False\) \(fingerprint {}\)"
    message = (
        f"with {shown.format(theirs.config.detokenizer.fingerprint[:12])}; this CHRFScore counts with "
        + shown.format(ours.config.detokenizer.fingerprint[:12])
    )
    with pytest.raises(ValueError, match=message):
        ours.merge_state(theirs)
