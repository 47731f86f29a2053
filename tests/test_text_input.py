"""Strings scored with ``tokenize=``: sacrebleu's tokenizers, sacrebleu's statistics and scores.

Random sentences (punctuation, digits, accents, CJK, odd whitespace, empty lines) are scored by
``corpus_bleu``, ``sentence_bleu`` and ``BLEUScore`` with every tokenizer that needs no extra
package, with and without lowercasing, and compared with sacrebleu on the same strings.
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from torch_bleu import BLEUScore, corpus_bleu, sentence_bleu

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import BLEU  # noqa: E402

TOKENIZERS = ["13a", "intl", "zh", "char", "none"]
PIECES = [
    "the",
    "The",
    "cat",
    "sat",
    ".",
    ",",
    "!",
    "'s",
    "3.5",
    "1,000",
    "é",
    "Ünïcode",
    "猫",
    "が",
    "-",
    "(a)",
    "  ",
    "\t",
]

sentences = st.lists(st.sampled_from(PIECES), max_size=12).map(" ".join)


@st.composite
def text_batches(draw):
    """Hypotheses and, per hypothesis, the same number of references (sacrebleu takes reference streams)."""
    size, refs = draw(st.integers(1, 8)), draw(st.integers(1, 3))
    hypotheses = draw(st.lists(sentences, min_size=size, max_size=size))
    references = [draw(st.lists(sentences, min_size=refs, max_size=refs)) for _ in range(size)]
    return hypotheses, references


@settings(max_examples=150)
@given(batch=text_batches(), tokenize=st.sampled_from(TOKENIZERS), lowercase=st.booleans())
def test_corpus_statistics_and_score_are_sacrebleus(batch, tokenize, lowercase):
    hypotheses, references = batch
    theirs = BLEU(tokenize=tokenize, lowercase=lowercase).corpus_score(hypotheses, [list(r) for r in zip(*references)])
    metric = BLEUScore(tokenize=tokenize, lowercase=lowercase)
    metric.update(hypotheses, references)
    assert metric.numerator.tolist() == theirs.counts and metric.denominator.tolist() == theirs.totals
    assert (metric.preds_len.item(), metric.target_len.item()) == (theirs.sys_len, theirs.ref_len)
    # sacrebleu's BLEU smooths with "exp" unless told otherwise
    score = corpus_bleu(hypotheses, references, tokenize=tokenize, lowercase=lowercase, smoothing="exp").item()
    assert score * 100 == pytest.approx(theirs.score, abs=1e-10)


@settings(max_examples=100)
@given(batch=text_batches(), tokenize=st.sampled_from(TOKENIZERS))
def test_sentence_scores_are_sacrebleus(batch, tokenize):
    hypotheses, references = batch
    theirs = BLEU(tokenize=tokenize, effective_order=True)
    scores = sentence_bleu(hypotheses, references, tokenize=tokenize, smoothing="exp", effective_order=True)
    expected = [theirs.sentence_score(h, refs).score / 100 for h, refs in zip(hypotheses, references)]
    assert scores.tolist() == pytest.approx(expected, abs=1e-12)


def test_a_single_reference_string_per_hypothesis_and_ragged_reference_counts():
    hypotheses = ["The cat sat on the mat.", "Hello, world!"]
    one_each = corpus_bleu(hypotheses, ["The cat is on the mat.", "Hello world!"], tokenize="13a")
    wrapped = corpus_bleu(hypotheses, [["The cat is on the mat."], ["Hello world!"]], tokenize="13a")
    assert one_each.item() == wrapped.item()
    ragged = corpus_bleu(
        hypotheses, [["The cat is on the mat.", "A cat sat."], ["Hello world!"]], tokenize="13a", smoothing="exp"
    )
    theirs = BLEU().corpus_score(hypotheses, [["The cat is on the mat.", "Hello world!"], ["A cat sat.", None]])
    assert ragged.item() * 100 == pytest.approx(theirs.score, abs=1e-10)


def test_same_value_as_torchmetrics_sacrebleu_score():
    """A drop-in for torchmetrics' ``SacreBLEUScore`` (which computes in float32)."""
    from torchmetrics.text import SacreBLEUScore

    hypotheses = ["the cat is on the mat", "there is a cat on the mat today"]
    references = [["there is a cat on the mat", "a cat is on the mat"], ["the cat is on the mat today", "hi"]]
    theirs = SacreBLEUScore(tokenize="13a", lowercase=True)
    ours = BLEUScore(tokenize="13a", lowercase=True)
    theirs.update(hypotheses, references)
    ours.update(hypotheses, references)
    assert ours.compute().item() == pytest.approx(theirs.compute().item(), abs=1e-6)


def test_text_metrics_never_share_states_with_id_metrics():
    """Text and id metrics count differently: a checkpoint of one is refused by the other."""
    text, ids = BLEUScore(tokenize="13a"), BLEUScore()
    text.update(["a b c d"], ["a b c d"])
    text.persistent(True)
    with pytest.raises(ValueError, match="counted otherwise"):
        ids.load_state_dict(text.state_dict())
    with pytest.raises(ValueError, match="counted otherwise"):
        BLEUScore(tokenize="13a", lowercase=True).load_state_dict(text.state_dict())


@pytest.mark.parametrize(
    "preds, target, error, message",
    [
        (["a b"], [[1, 2]], TypeError, r"target\[0\]\[0\] must be a string"),
        ([[1, 2]], ["a b"], TypeError, r"preds\[0\] must be a string"),
        ("a b", ["a b"], TypeError, "preds must be a list of strings"),
        (["a b"], ["a b", "c"], ValueError, "batch sizes differ"),
        (["a b"], [[]], ValueError, "at least one reference"),
    ],
)
def test_bad_text_input_is_rejected_and_states_kept(preds, target, error, message):
    metric = BLEUScore(tokenize="13a")
    metric.update(["a b c d"], ["a b c d"])
    before = metric.numerator.clone()
    with pytest.raises(error, match=message):
        metric.update(preds, target)
    assert torch.equal(metric.numerator, before)


def test_strings_without_tokenize_say_how_to_score_them():
    with pytest.raises(TypeError, match="tokenize='13a'"):
        corpus_bleu(["the cat"], [["the cat"]])


def test_sentence_statistics_of_strings_are_sacrebleus():
    from torch_bleu import bleu_statistics

    stats = bleu_statistics(["The cat sat."], [["The cat sat!"]], tokenize="13a")
    theirs = BLEU().corpus_score(["The cat sat."], [["The cat sat!"]])
    assert stats.matches.tolist() == [theirs.counts] and stats.totals.tolist() == [theirs.totals]
