"""``rougeLsum`` of text split into sentences by a splitter (``split_sentences=``), against rouge-score, and the
warning when ``rougeLsum`` can only equal ``rougeL``.

rouge-score's ``split_summaries=True`` calls ``nltk.sent_tokenize``, whose punkt data may not be installed
here: the tests give rouge-score the same simple splitter in its place (``nltk.sent_tokenize`` patched in
rouge-score's module), and check the Hugging Face recipe too (sentences joined with newlines).
"""

from __future__ import annotations

import functools
import random
import re
import warnings

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from subword_tokenizers import CORPUS
from vocabularies import SIZE_MODES, SUBWORD_CASES

from torch_bleu import (
    ROUGEScore,
    SentenceReward,
    arrays,
    corpus_rouge,
    pairwise_rouge,
    rouge_statistics,
    sentence_rouge,
)
from torch_bleu.metrics.rouge.config import ROUGEConfig

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")

TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")
CORPUS_LINES = CORPUS.read_text(encoding="utf-8").splitlines()
WARNING = "rougeLsum equals rougeL"
#: Tests that ask for the warning catch it themselves; the others compare unsplit text on purpose.
pytestmark = pytest.mark.filterwarnings(f"ignore:{WARNING}:UserWarning")


@pytest.fixture(params=SIZE_MODES)
def sizes(request, monkeypatch):
    """Counted as on the CPU (sizes from the data) and as on an accelerator (sizes from shapes only)."""
    monkeypatch.setattr(arrays, "SIZES_FROM_DATA_ON_CPU", request.param == "sizes from data")
    return request.param


def split_at_stops(text: str) -> list[str]:
    """Sentences end at ``.``, ``!`` or ``?`` before white space: a stand-in for ``nltk.sent_tokenize``."""
    return [sentence for sentence in re.split(r"(?<=[.!?])\s+", text.strip()) if sentence]


def rouge_score_of(hypotheses, references, types=TYPES, split=None, monkeypatch=None):
    """rouge-score's scores, ``{key: [values]}``; with ``monkeypatch``, ``split_summaries=True`` with ``split``
    in nltk's place; else of the texts as they are."""
    if monkeypatch is not None:
        monkeypatch.setattr(rouge_scorer.nltk, "sent_tokenize", split)
    scorer = rouge_scorer.RougeScorer(list(types), split_summaries=monkeypatch is not None)
    results = [scorer.score(reference, hypothesis) for hypothesis, reference in zip(hypotheses, references)]
    return {
        f"{rouge_type}_{measure}": [getattr(result[rouge_type], measure) for result in results]
        for rouge_type in types
        for measure in ("precision", "recall", "fmeasure")
    }


def listed(scores):
    return {key: values.tolist() for key, values in scores.items()}


def joined(texts, split=split_at_stops):
    """The Hugging Face recipe: each text's sentences joined with newlines."""
    return ["\n".join(split(text)) for text in texts]


WORDS = ["the", "cat", "sat", "A", "dog", "ran", "on", "mat", "it", "was", "happy", "12", "Mr", "e.g"]
STOPS = [". ", "! ", "? ", ", ", " ", ".", "... ", ". \n"]
summaries = st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(STOPS)), max_size=16).map(
    lambda pairs: "".join(word + stop for word, stop in pairs)
)


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(batch=st.lists(st.tuples(summaries, summaries), min_size=1, max_size=6))
def test_split_text_scores_as_rouge_score_on_the_recipes_text(batch):
    hypotheses, references = map(list, zip(*batch))
    got = listed(sentence_rouge(hypotheses, references, split_sentences=split_at_stops))
    assert got == rouge_score_of(joined(hypotheses), joined(references))
    assert got == listed(sentence_rouge(joined(hypotheses), joined(references)))


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(batch=st.lists(st.tuples(summaries, summaries), min_size=1, max_size=6))
def test_split_text_scores_as_rouge_score_with_split_summaries(batch):
    """Without newlines in the text, the recipe's text and rouge-score's own splitting give the same sentences."""
    hypotheses, references = ([text.replace("\n", " ") for text in side] for side in zip(*batch))
    with pytest.MonkeyPatch.context() as monkeypatch:
        expected = rouge_score_of(hypotheses, references, split=split_at_stops, monkeypatch=monkeypatch)
    assert listed(sentence_rouge(hypotheses, references, split_sentences=split_at_stops)) == expected


def test_splitting_changes_rouge_lsum_only_for_text_of_several_sentences():
    preds = ["The cat sat on the mat. It was happy. A dog ran."]
    target = ["A dog ran on the mat. The cat was happy. It sat."]
    plain = corpus_rouge(preds, target, rouge_types=("rougeL", "rougeLsum"))
    split = corpus_rouge(preds, target, rouge_types=("rougeL", "rougeLsum"), split_sentences=split_at_stops)
    assert plain["rougeLsum_fmeasure"] == plain["rougeL_fmeasure"] == split["rougeL_fmeasure"]
    assert split["rougeLsum_fmeasure"] > split["rougeL_fmeasure"]


def test_metric_of_queued_text_batches_equals_the_function():
    lines = CORPUS_LINES[:40]
    hypotheses = [" ".join(lines[index : index + 3]) for index in range(0, 30, 3)]
    references = [" ".join(lines[index + 1 : index + 4]) for index in range(0, 30, 3)]
    metric = ROUGEScore(split_sentences=split_at_stops, use_stemmer=True)
    for start in range(0, len(hypotheses), 3):  # the first batch is counted at once, the rest queued
        metric.update(hypotheses[start : start + 3], references[start : start + 3])
    expected = corpus_rouge(hypotheses, references, split_sentences=split_at_stops, use_stemmer=True)
    assert listed(metric.compute()) == listed(expected)


@pytest.mark.parametrize(("vocabulary", "sizes"), SUBWORD_CASES, indirect=True)
@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), as_strings=st.booleans(), use_stemmer=st.booleans())
def test_subword_ids_split_as_their_decoded_text(vocabulary, sizes, seed, as_strings, use_stemmer):
    rng = random.Random(seed)
    picks = [rng.sample(CORPUS_LINES, 3) for _ in range(6)]
    hypotheses = [vocabulary.encode(" ".join(lines)) for lines in picks[:3]]
    hypotheses.append(vocabulary.random_rows(rng, count=1, longest=14)[0])
    targets = [vocabulary.encode(" ".join(lines)) for lines in picks[3:]]
    targets.append(vocabulary.encode(CORPUS_LINES[seed % len(CORPUS_LINES)]))
    reference_text = [vocabulary.decode(row) for row in targets]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a splitter is given: no warning
        got = sentence_rouge(
            hypotheses,
            reference_text if as_strings else [[row] for row in targets],
            detokenizer=vocabulary.detokenizer,
            use_stemmer=use_stemmer,
            split_sentences=split_at_stops,
        )
    decoded = [vocabulary.decode(row) for row in hypotheses]
    scorer = rouge_scorer.RougeScorer(list(TYPES), use_stemmer=use_stemmer)
    expected = [scorer.score(ref, hyp) for hyp, ref in zip(joined(decoded), joined(reference_text))]
    assert got["rougeLsum_fmeasure"].tolist() == [score["rougeLsum"].fmeasure for score in expected]
    assert got["rouge2_recall"].tolist() == [score["rouge2"].recall for score in expected]


@pytest.mark.parametrize("vocabulary", ["unigram"], indirect=True)
def test_subword_ids_in_a_metric_give_the_recipes_numbers(vocabulary):
    """Hugging Face's recipe (decode, split, join with newlines, rouge-score) from a metric fed padded ids."""
    texts = [" ".join(CORPUS_LINES[index : index + 3]) for index in range(0, 24, 2)]
    rows = [vocabulary.encode(text) for text in texts]
    width = max(map(len, rows))
    ids = torch.tensor([row + [vocabulary.pad] * (width - len(row)) for row in rows])
    metric = ROUGEScore(detokenizer=vocabulary.detokenizer, ignore_ids=[vocabulary.pad], split_sentences=split_at_stops)
    for start in range(0, 12, 4):
        metric.update(ids[start : start + 4 : 2], ids[start + 1 : start + 4 : 2])
    decoded = [vocabulary.decode(row) for row in rows]
    expected = rouge_score_of(joined(decoded[::2]), joined(decoded[1::2]))
    got = metric.compute()
    for key, values in expected.items():
        assert got[key].item() == pytest.approx(sum(values) / len(values), rel=1e-15)
    assert got["rougeLsum_fmeasure"] != got["rougeL_fmeasure"]


# --- the warning ------------------------------------------------------------------------------------------


def test_a_metric_warns_once_when_no_summary_has_a_second_sentence():
    metric = ROUGEScore()
    metric.update(["the cat sat. it was happy."], ["a cat sat. it purred."])
    metric.update(["a dog ran"], ["the dog ran"])  # queued
    with pytest.warns(UserWarning, match=WARNING) as caught:
        metric.compute()
        metric.update(["a bird sang"], ["the bird sang"])
        metric.compute()
        metric.reset()
        metric.update(["a bird sang"], ["the bird sang"])
        metric.compute()
    assert len([warning for warning in caught if WARNING in str(warning.message)]) == 1


@pytest.mark.parametrize(
    "options",
    [{"split_sentences": split_at_stops}, {"rouge_types": ("rouge1", "rougeL")}],
    ids=["a splitter", "no rougeLsum"],
)
def test_no_warning_with_a_splitter_or_without_rouge_lsum(options):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        metric = ROUGEScore(**options)
        metric.update(["the cat sat"], ["the cat"])
        metric.compute()
        corpus_rouge(["the cat sat"], ["the cat"], **options)


def test_no_warning_once_a_summary_has_a_second_sentence():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        metric = ROUGEScore()
        metric.update(["the cat sat"], ["the cat"])
        metric.update(["a dog"], [["the dog", "a dog\nran"]])  # a reference of a second sentence
        metric.compute()
        corpus_rouge(["the cat sat", "a\ndog"], ["the cat", "a dog"])
        rouge_statistics(torch.tensor([[5, 3, 6]]), torch.tensor([[5, 6]]), sentence_sep_id=3)
        corpus_rouge(torch.tensor([[5, 6]], device="meta"), torch.tensor([[5]], device="meta"), sentence_sep_id=3)


def test_functions_warn_once_per_call():
    for call in (
        lambda: corpus_rouge(["the cat sat", "a dog"], ["the cat", "a dog"]),
        lambda: sentence_rouge(torch.tensor([[5, 6], [7, 8]]), torch.tensor([[5], [7]])),
        lambda: rouge_statistics(torch.tensor([[5, 6]], device="meta"), torch.tensor([[5]], device="meta")),
        lambda: pairwise_rouge([["the cat", "a dog"]], rouge_type="rougeLsum"),
    ):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        assert [str(warning.message).split(":")[0] for warning in caught] == [WARNING]
        assert caught[0].filename == __file__  # pointed at the caller's line


@pytest.mark.parametrize("vocabulary", ["unigram"], indirect=True)
def test_subword_ids_on_the_cpu_are_checked_for_newlines(vocabulary):
    one, two = vocabulary.encode("the cat sat"), vocabulary.encode("the cat\nsat")
    with pytest.warns(UserWarning, match=WARNING):
        corpus_rouge(torch.tensor([one]), torch.tensor([one]), detokenizer=vocabulary.detokenizer)
    if "\n" in vocabulary.decode(two):  # nmt_nfkc normalization may turn the newline into a space
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            corpus_rouge(torch.tensor([two]), torch.tensor([one]), detokenizer=vocabulary.detokenizer)


# --- bad splitters ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("split", ["nltk", True, 3])
def test_a_splitter_that_is_not_callable_is_refused_when_the_options_are_read(split):
    for make in (lambda: ROUGEScore(split_sentences=split), lambda: corpus_rouge(["a"], ["a"], split_sentences=split)):
        with pytest.raises(TypeError, match="split_sentences must be a function from a summary's text"):
            make()


class Splitter:
    """A splitter that returns ``wrong`` for texts holding ``"bad"`` while ``broken``."""

    def __init__(self, wrong):
        self.wrong, self.broken = wrong, True

    def __call__(self, text):
        return self.wrong if self.broken and "bad" in text else split_at_stops(text)


@pytest.mark.parametrize(
    ("wrong", "found"), [("bad.", "got str"), (None, "got NoneType"), ([1, "a"], "got list holding int, str")]
)
def test_a_splitter_that_returns_no_list_of_strings_is_refused_when_counting_and_nothing_is_lost(wrong, found):
    with pytest.raises(TypeError, match=f"split_sentences must return a list of strings .*{found}"):
        corpus_rouge(["a bad cat"], ["a cat"], split_sentences=Splitter(wrong))
    splitter = Splitter(wrong)
    metric = ROUGEScore(split_sentences=splitter)
    with pytest.raises(TypeError, match=found):  # the first text batch is counted at once: refused, states as they were
        metric.update(["a bad cat"], ["a cat"])
    assert metric.sentences.item() == 0
    metric.update(["the cat sat. it ran."], ["the cat sat."])
    metric.update(["a bad cat. it sat."], ["a cat"])  # queued
    with pytest.raises(TypeError, match=found):
        metric.compute()
    splitter.broken = False
    hypotheses, references = ["the cat sat. it ran.", "a bad cat. it sat."], ["the cat sat.", "a cat"]
    expected = corpus_rouge(hypotheses, references, split_sentences=splitter)
    assert listed(metric.compute()) == listed(expected)  # the queued batch was kept and is counted now


def test_plain_ids_refuse_a_splitter():
    with pytest.raises(ValueError, match="split_sentences splits text into sentences; rows of plain ids have no text"):
        corpus_rouge(torch.tensor([[5, 6]]), torch.tensor([[5]]), split_sentences=split_at_stops)
    with pytest.raises(ValueError, match="rows of plain ids have no text"):
        pairwise_rouge(torch.tensor([[[5, 6], [6, 5]]]), split_sentences=split_at_stops)


# --- the option elsewhere ---------------------------------------------------------------------------------


def test_the_splitter_enters_the_fingerprint_by_its_name():
    same = ROUGEConfig(split_sentences=split_at_stops).fingerprint()
    assert ROUGEConfig(split_sentences=split_at_stops).fingerprint() == same != ROUGEConfig().fingerprint()
    assert ROUGEConfig(split_sentences=functools.partial(split_at_stops)).fingerprint() != same
    assert "split_sentences=test_rouge_sentences.split_at_stops" in ROUGEConfig(
        split_sentences=split_at_stops
    ).counting_description().replace("tests.", "")
    metric, other = ROUGEScore(split_sentences=split_at_stops), ROUGEScore()
    metric.update(["the cat. sat"], ["the cat sat"])
    other.update(["the cat. sat"], ["the cat sat"])
    with pytest.raises(ValueError, match="counted otherwise, with split_sentences=None"):
        metric.merge_state(other)
    again = ROUGEScore(split_sentences=split_at_stops)
    again.merge_state(metric)
    assert again.sentences.item() == 1


def test_rouge_scores_split_summaries_is_answered_with_split_sentences():
    with pytest.raises(TypeError, match=r"split_summaries=True is split_sentences=nltk\.sent_tokenize here"):
        ROUGEScore(split_summaries=True)


def test_pairwise_and_rewards_take_the_splitter():
    texts = [["The cat sat. It was happy.", "It was happy. The cat sat.", "A dog ran."]]
    got = pairwise_rouge(texts, rouge_type="rougeLsum", split_sentences=split_at_stops)
    assert got[0, 0, 1].item() == 1.0 > pairwise_rouge(texts, rouge_type="rougeLsum")[0, 0, 1].item()
    expected = rouge_score_of(joined(texts[0]), joined([texts[0][1]] * 3), types=("rougeLsum",))
    assert got[0, :, 1].tolist() == expected["rougeLsum_fmeasure"]
    reward = SentenceReward("rouge", rouge_type="rougeLsum", split_sentences=split_at_stops)
    assert reward(completions=texts[0][:1], reference=texts[0][1:2]) == [1.0]
