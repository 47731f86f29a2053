"""The worked examples of five BLEU tutorials (in Chinese, English and Spanish), as tests.

Each example is restated here, so these tests need no data; the tutorial it comes from is named in
the section heading.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest
import torch
from nltk.translate.bleu_score import SmoothingFunction
from nltk.translate.bleu_score import corpus_bleu as nltk_corpus_bleu
from nltk.translate.bleu_score import sentence_bleu as nltk_sentence_bleu

from torch_bleu import BLEUConfig, corpus_bleu, sentence_bleu
from torch_bleu.metrics.bleu.counting import sentence_statistics


class Vocabulary:
    """Words to ids, the way a tokenizer would hand them to the metric."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}

    def __call__(self, words: Sequence[str]) -> list[int]:
        return [self.ids.setdefault(word, len(self.ids) + 3) for word in words]


def precisions(hyps, refs, **options) -> list[float]:
    stats = sentence_statistics(hyps, refs, BLEUConfig(**options))
    return (stats.matches.sum(0) / stats.totals.sum(0)).tolist()


# --- a tutorial on nltk's corpus_bleu and the usual evaluate_bleu loop ------------------------------


def test_nltk_tutorial_cat_on_the_mat_scores_0_6756():
    words = Vocabulary()
    hypothesis = words(["the", "cat", "is", "on", "the", "mat"])
    texts = ("the cat is on mat", "there is a cat on the mat", "a cat being on the mat")
    references = [words(text.split()) for text in texts]
    expected = 0.6756000774035172  # sentence_bleu(references, hypothesis), as the tutorial prints it
    assert precisions([hypothesis], [references], convention="nltk") == pytest.approx([5 / 6, 5 / 5, 3 / 4, 1 / 3])
    for convention in ("nltk", "sacrebleu"):
        ours = sentence_bleu([hypothesis], [references], convention=convention).item()
        assert ours == pytest.approx(expected, rel=1e-12)
    assert nltk_sentence_bleu(references, hypothesis) == pytest.approx(expected, rel=1e-12)


def test_nltk_tutorial_brevity_penalty_takes_the_closest_reference():
    a = 7
    # references of 13 and 2 tokens against 12: the closest is 13, BP = exp(1 - 13/12) = 0.9200
    score = corpus_bleu([[a] * 12], [[[a] * 13, [a] * 2]], convention="nltk").item()
    assert score == pytest.approx(math.exp(1 - 13 / 12), rel=1e-12)
    assert round(score, 4) == 0.9200
    # 13 and 11 are equally close to 12: the shorter one counts, so BP = 1, in either order
    for references in ([[a] * 13, [a] * 11], [[a] * 11, [a] * 13]):
        assert corpus_bleu([[a] * 12], [references], convention="nltk").item() == 1.0


# --- Dive into Deep Learning's bleu, weights 1/2**n -------------------------------------------------------

D2L_WEIGHTS = [0.5**n for n in range(1, 5)]


def test_d2l_precisions_of_a_b_b_c_d():
    words = Vocabulary()
    pred, label = words(["A", "B", "B", "C", "D"]), words(["A", "B", "C", "D", "E", "F"])
    assert precisions([pred], [[label]]) == pytest.approx([4 / 5, 3 / 4, 1 / 3, 0])
    # p4 = 0, so the product p_n ** (1/2**n) is 0, as D2L's code computes too
    assert sentence_bleu([pred], [[label]], weights=D2L_WEIGHTS).item() == 0.0


def test_d2l_brevity_with_k_2_is_e_to_the_minus_2():
    words = Vocabulary()
    pred, label = words(["A", "B"]), words(["A", "B", "C", "D", "E", "F"])
    score = corpus_bleu([pred], [[label]], max_order=2, weights=D2L_WEIGHTS[:2]).item()
    assert score == pytest.approx(math.exp(1 - 6 / 2), rel=1e-12)  # p1 = p2 = 1; D2L rounds to 0.14


# --- a tutorial's basketball example -------------------------------------------------------------


def test_basketball_example_scores_0_4238():
    words = Vocabulary()
    candidate = words(["Going", "to", "play", "basketball", "this", "afternoon", "?"])
    reference = words(["Going", "to", "play", "basketball", "in", "the", "afternoon", "?"])
    assert precisions([candidate], [[reference]]) == pytest.approx([6 / 7, 4 / 6, 2 / 5, 1 / 4])
    expected = math.exp(1 - 8 / 7) * math.exp(sum(map(math.log, [6 / 7, 4 / 6, 2 / 5, 1 / 4])) / 4)
    for convention in ("nltk", "sacrebleu"):
        score = corpus_bleu([candidate], [[reference]], convention=convention).item()
        assert score == pytest.approx(expected, rel=1e-12)
        assert round(score, 4) == 0.4238


# --- a tutorial on nltk's method1 ---------------------------------------------------------------------


def test_method1_tutorial_on_the_cat_sat_on_the_mat():
    words = Vocabulary()
    reference = [words(["The", "cat", "is", "on", "the", "mat"])]
    candidate = words(["The", "cat", "sat", "on", "the", "mat"])
    # p4 = 0/3 becomes epsilon/3 = 0.1/3
    expected = math.exp(sum(map(math.log, [5 / 6, 3 / 5, 1 / 4, 0.1 / 3])) / 4)
    method1 = SmoothingFunction().method1
    assert nltk_sentence_bleu(reference, candidate, smoothing_function=method1) == pytest.approx(expected, rel=1e-12)
    assert nltk_corpus_bleu([reference], [candidate], smoothing_function=method1) == pytest.approx(expected, rel=1e-12)
    options = dict(convention="nltk", smoothing="method1")
    assert sentence_bleu([candidate], [reference], **options).item() == pytest.approx(expected, rel=1e-12)
    assert corpus_bleu([candidate], [reference], **options).item() == pytest.approx(expected, rel=1e-12)
    # sacrebleu's "floor" is the same rule
    assert corpus_bleu([candidate], [reference], smoothing="floor").item() == pytest.approx(expected, rel=1e-12)


# --- a tutorial's standard-library implementation --------------------------------------------------


def test_standard_library_tutorial_computes_0_not_the_0_638_its_text_prints():
    """The article prints ``BLEU = 0.638``, but its code returns 0.0: no 4-gram of the candidate is in
    a reference, and the code returns 0 when any precision is 0. sacrebleu's convention gives 0.0 too;
    nltk's gives its tiny "no match" number, which prints as 0.000 as well."""
    words = Vocabulary()
    candidate = words(["the", "cat", "is", "on", "the", "mat"])
    references = [
        words(["there", "is", "a", "cat", "on", "the", "mat"]),
        words(["the", "cat", "sits", "on", "the", "mat"]),
    ]
    # the code's precisions: clipped matches over max(1, #n-grams), i.e. nltk's convention
    assert precisions([candidate], [references], convention="nltk") == pytest.approx([6 / 6, 3 / 5, 1 / 4, 0 / 3])
    assert sentence_bleu([candidate], [references]).item() == 0.0
    assert 0 < sentence_bleu([candidate], [references], convention="nltk").item() < 1e-70
    assert f"BLEU = {sentence_bleu([candidate], [references], convention='nltk').item():.3f}" == "BLEU = 0.000"


def test_the_usual_evaluate_bleu_loop_on_padded_ids():
    """The usual ``evaluate_bleu`` loop: strip PAD/BOS/EOS from id lists, then nltk's ``corpus_bleu``."""
    pad, bos, eos = 0, 1, 2
    preds = torch.tensor([[bos, 5, 6, 7, 8, 9, eos, pad], [bos, 5, 6, eos, pad, pad, pad, pad]])
    target = torch.tensor([[bos, 5, 6, 7, 8, 10, eos], [bos, 5, 6, 7, eos, pad, pad]])
    special = (pad, bos, eos)
    hypotheses = [[t for t in row if t not in special] for row in preds.tolist()]
    references = [[[t for t in row if t not in special]] for row in target.tolist()]
    expected = nltk_corpus_bleu(references, hypotheses)
    ours = corpus_bleu(preds, target, ignore_ids=special, convention="nltk").item()
    assert ours == pytest.approx(expected, rel=1e-12)
