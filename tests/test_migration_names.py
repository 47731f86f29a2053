"""Other libraries' ways of calling and reading a metric get errors that say what to write here: Hugging Face
evaluate's ``predictions=``/``references=`` (and nltk's and jiwer's names) on every ``update``, ``forward``
and function, ROUGE's intervals with rouge-score's field names, and ROUGE's results with the keys to use."""

from __future__ import annotations

import json
import pickle
import re

import pytest
import torch
from torchmetrics import MetricCollection

import torch_bleu
from torch_bleu.argument_names import FOREIGN_NAMES, takes_preds_and_target
from torch_bleu.metrics.rouge.bootstrap import AggregateScore, Score, rouge_bootstrap

HYPOTHESES = ["the cat sat on the mat", "a dog barked"]
REFERENCES = ["the cat sat on a mat", "the dog barked"]

#: Every metric, with options that read strings.
METRICS = {
    "BLEUScore": lambda: torch_bleu.BLEUScore(tokenize="13a"),
    "CHRFScore": torch_bleu.CHRFScore,
    "TERScore": torch_bleu.TERScore,
    "WERScore": torch_bleu.WERScore,
    "CERScore": torch_bleu.CERScore,
    "ROUGEScore": torch_bleu.ROUGEScore,
}

#: Every public function of every metric that takes a batch, with options that read strings.
FUNCTIONS = {
    "corpus_bleu": {"tokenize": "13a"},
    "sentence_bleu": {"tokenize": "13a"},
    "bleu_statistics": {"tokenize": "13a"},
    "corpus_chrf": {},
    "sentence_chrf": {},
    "corpus_ter": {},
    "sentence_ter": {},
    "corpus_wer": {},
    "sentence_wer": {},
    "word_error_counts": {},
    "corpus_cer": {},
    "sentence_cer": {},
    "character_error_counts": {},
    "corpus_rouge": {},
    "sentence_rouge": {},
    "rouge_statistics": {},
}

EVALUATE = re.escape("pass preds=predictions, target=references (Hugging Face evaluate's names)")


@pytest.mark.parametrize("name", METRICS)
def test_update_points_evaluate_names_to_preds_and_target(name):
    metric = METRICS[name]()
    with pytest.raises(TypeError, match=rf"^{name}\.update takes preds and target: {EVALUATE}$") as caught:
        metric.update(predictions=HYPOTHESES, references=REFERENCES)
    assert "CountingMetric" not in str(caught.value)
    with pytest.raises(TypeError, match=rf"^{name}\.update takes preds and target: pass target=references "):
        metric.update(HYPOTHESES, references=REFERENCES)
    metric.update(HYPOTHESES, REFERENCES)  # the refused calls changed nothing
    metric.update(preds=HYPOTHESES, target=REFERENCES)
    assert metric.compute() is not None


@pytest.mark.parametrize("name", METRICS)
def test_forward_refuses_them_before_states_are_set_aside(name):
    metric, reference = METRICS[name](), METRICS[name]()
    for each in (metric, reference):
        each.update(HYPOTHESES, REFERENCES)
    with pytest.raises(TypeError, match=rf"^{name}\.forward takes preds and target: {EVALUATE}$"):
        metric(predictions=HYPOTHESES, references=REFERENCES)
    assert str(metric.compute()) == str(reference.compute())  # torchmetrics' forward never reset the states
    assert str(metric(preds=HYPOTHESES, target=REFERENCES)) == str(reference(HYPOTHESES, REFERENCES))


@pytest.mark.parametrize("name", FUNCTIONS)
def test_every_function_points_evaluate_names_to_preds_and_target(name):
    function = getattr(torch_bleu, name)
    options = FUNCTIONS[name]
    with pytest.raises(TypeError, match=rf"^{name} takes preds and target: {EVALUATE}$"):
        function(predictions=HYPOTHESES, references=REFERENCES, **options)
    with pytest.raises(TypeError, match=rf"^{name} takes preds and target: pass preds=predictions "):
        function(REFERENCES, predictions=HYPOTHESES, **options)
    function(HYPOTHESES, REFERENCES, **options)  # the usual calls are untouched
    function(preds=HYPOTHESES, target=REFERENCES, **options)


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (("hypotheses", "list_of_references"), "pass preds=hypotheses, target=list_of_references (nltk's names)"),
        (("references", "hypothesis"), "pass preds=hypothesis, target=references (nltk's names)"),
        (("reference", "hypothesis"), "pass preds=hypothesis, target=reference (jiwer's names)"),
        (("predictions", "reference"), "pass preds=predictions, target=reference (other libraries' names)"),
    ],
)
def test_nltk_and_jiwer_names(names, expected):
    with pytest.raises(TypeError, match=re.escape(f"corpus_bleu takes preds and target: {expected}")):
        torch_bleu.corpus_bleu(**dict.fromkeys(names, HYPOTHESES), tokenize="13a")
    with pytest.raises(TypeError, match=re.escape(f"WERScore.update takes preds and target: {expected}")):
        torch_bleu.WERScore().update(**dict.fromkeys(names, HYPOTHESES))


def test_a_parameter_of_that_name_is_left_alone():
    @takes_preds_and_target
    def score(preds, target, references=None):
        return references

    assert score(1, 2, references=3) == 3
    with pytest.raises(TypeError, match=r"^score takes preds and target: pass preds=predictions "):
        score(predictions=1, target=2)
    assert set(FOREIGN_NAMES.values()) == {"preds", "target"}


def test_signatures_stay_the_functions_own():
    import inspect

    assert list(inspect.signature(torch_bleu.corpus_rouge).parameters) == ["preds", "target", "options"]
    assert list(inspect.signature(torch_bleu.ROUGEScore.update).parameters)[:3] == ["self", "preds", "target"]
    assert torch_bleu.corpus_rouge.__name__ == "corpus_rouge"


def test_rouge_intervals_have_rouge_scores_field_names():
    metric = torch_bleu.ROUGEScore(rouge_types=("rouge1", "rougeL"), keep_sentences=True)
    metric.update(["the cat sat", "a dog", "hello there"], ["the cat sat down", "the dog", "hello world"])
    intervals = metric.confidence_interval(resamples=50, seed=0)
    interval = intervals["rougeL"]
    assert isinstance(interval, AggregateScore) and isinstance(interval.mid, Score)
    assert interval._fields == ("low", "mid", "high")
    assert interval.mid._fields == ("precision", "recall", "fmeasure")
    low, mid, high = interval  # still tuples: unpacking and indexing as before
    assert interval.mid.fmeasure == mid[2] == interval[1][2]
    assert low.fmeasure <= mid.fmeasure <= high.fmeasure
    assert tuple(interval) == (low, mid, high) and all(type(value) is float for value in interval.high)
    direct = rouge_bootstrap({"rouge1": [[1.0, 0.5, 2 / 3], [0.5, 0.5, 0.5]]}, seed=1)["rouge1"]
    assert isinstance(direct, AggregateScore) and direct.high.precision >= direct.low.precision


@pytest.mark.parametrize(
    "result",
    [
        lambda: _updated(torch_bleu.ROUGEScore()).compute(),
        lambda: torch_bleu.corpus_rouge(HYPOTHESES, REFERENCES),
        lambda: torch_bleu.sentence_rouge(HYPOTHESES, REFERENCES),
        lambda: _updated(torch_bleu.ROUGEScore())(HYPOTHESES, REFERENCES),
    ],
)
def test_a_rouge_type_as_a_key_names_its_keys(result):
    scores = result()
    message = (
        "rougeL is not a key: the keys of rougeL are rougeL_precision, rougeL_recall, rougeL_fmeasure "
        "(Hugging Face evaluate's rougeL is rougeL_fmeasure)"
    )
    with pytest.raises(KeyError) as caught:
        scores["rougeL"]
    assert str(caught.value) == message
    with pytest.raises(KeyError, match="'rouge3' is not a key: the keys are rouge1_precision, "):
        scores["rouge3"]
    assert "rougeL" not in scores and scores.get("rougeL") is None  # only [] explains
    plain = dict(scores)
    assert scores == plain and plain == scores and list(scores) == list(plain)
    assert json.loads(json.dumps({key: value.tolist() for key, value in scores.items()})) == {
        key: value.tolist() for key, value in plain.items()
    }
    assert pickle.loads(pickle.dumps(scores)).keys() == plain.keys()


def test_rouge_results_in_a_metric_collection():
    collection = MetricCollection([torch_bleu.ROUGEScore(rouge_types=("rougeL",)), torch_bleu.CHRFScore()])
    collection.update(HYPOTHESES, REFERENCES)
    scores = collection.compute()
    alone = _updated(torch_bleu.ROUGEScore(rouge_types=("rougeL",))).compute()
    assert scores["rougeL_fmeasure"] == alone["rougeL_fmeasure"]
    assert set(scores) == {*alone, "CHRFScore"}
    assert torch.is_tensor(scores["CHRFScore"])


def _updated(metric):
    metric.update(HYPOTHESES, REFERENCES)
    return metric


@pytest.mark.parametrize("call", ["update", "forward"])
def test_a_metric_collection_given_evaluates_names_says_what_to_pass(call):
    collection = MetricCollection({name: make() for name, make in METRICS.items()})
    method = collection.update if call == "update" else collection
    with pytest.raises(TypeError, match=r"takes preds and target: pass them by position or as preds= and target="):
        method(predictions=HYPOTHESES, references=REFERENCES)
    collection.update(HYPOTHESES, target=REFERENCES)  # one by position, one by name
    for name, make in METRICS.items():
        alone = make()
        alone.update(HYPOTHESES, REFERENCES)
        got, expected = collection[name].compute(), alone.compute()
        assert (
            (got == expected)
            if not isinstance(got, dict)
            else {k: v.item() for k, v in got.items()} == {k: v.item() for k, v in expected.items()}
        )


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_a_function_called_without_its_batch_says_what_to_pass(name):
    with pytest.raises(TypeError, match=rf"^{name} takes preds and target: pass them by position or as preds="):
        getattr(torch_bleu, name)(HYPOTHESES, **FUNCTIONS[name])
