"""Differential tests: statistics and scores equal sacrebleu's (tokenize='none') on random padded corpora."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import sacrebleu_corpus
from strategies import BOS, EOS, PAD, Draws, padded_corpora

from torch_bleu import BLEUConfig, BLEUScore, corpus_bleu, sentence_bleu
from torch_bleu.metrics.bleu.counting import sentence_statistics

OPTIONS = st.fixed_dictionaries(
    {
        "smoothing": st.sampled_from(["none", "floor", "add-k", "exp"]),
        "effective_order": st.booleans(),
        "max_order": st.integers(1, 6),
    }
)


def _sacrebleu_options(options):
    return {
        "smooth_method": options["smoothing"],
        "effective_order": options["effective_order"],
        "max_ngram_order": options["max_order"],
    }


@settings(max_examples=300)
@given(corpus=padded_corpora(), options=OPTIONS, ignore=st.sampled_from([(), (PAD,), (PAD, BOS, EOS)]))
def test_statistics_and_score_equal_sacrebleu(corpus, options, ignore):
    preds, target = corpus
    if preds.shape[0] == 0:
        return
    stats = sentence_statistics(preds, target, BLEUConfig(max_order=options["max_order"], ignore_ids=ignore))
    # sacrebleu adds k to its returned counts under add-k, so compare statistics without smoothing
    plain = sacrebleu_corpus(preds, target, ignore, max_ngram_order=options["max_order"])
    assert stats.matches.sum(0).tolist() == plain.counts
    assert stats.totals.sum(0).tolist() == plain.totals
    assert stats.preds_len.sum().item() == plain.sys_len
    assert stats.target_len.sum().item() == plain.ref_len

    expected = sacrebleu_corpus(preds, target, ignore, **_sacrebleu_options(options)).score / 100
    ours = corpus_bleu(preds, target, ignore_ids=ignore, **options)
    assert ours.dtype == torch.float64 and ours.shape == ()
    assert abs(ours.item() - expected) <= 1e-9


@settings(max_examples=100)
@given(corpus=padded_corpora(), options=OPTIONS)
def test_sentence_bleu_equals_sacrebleu_per_row(corpus, options):
    preds, target = corpus
    scores = sentence_bleu(preds, target, ignore_ids=(PAD,), **options)
    assert scores.shape == (preds.shape[0],)
    for row in range(preds.shape[0]):
        expected = sacrebleu_corpus(preds[row : row + 1], target[row : row + 1], (PAD,), **_sacrebleu_options(options))
        assert abs(scores[row].item() - expected.score / 100) <= 1e-9


@settings(max_examples=60)
@given(corpus=padded_corpora(max_batch=8), split=st.integers(0, 8), seed=st.integers(0, 2**16))
def test_result_does_not_depend_on_batching_or_row_order(corpus, split, seed):
    preds, target = corpus
    whole = BLEUScore(ignore_ids=[PAD])
    whole.update(preds, target)

    permutation = Draws(seed).randperm(preds.shape[0])
    pieces = BLEUScore(ignore_ids=[PAD])
    for chunk in (permutation[:split], permutation[split:]):
        pieces.update(preds[chunk], target[chunk])
    for name in ("numerator", "denominator", "preds_len", "target_len"):
        assert torch.equal(getattr(whole, name), getattr(pieces, name))
    assert whole.compute().item() == pieces.compute().item()


@pytest.mark.parametrize("tie_order", [(13, 11), (11, 13)])
def test_closest_reference_length_ties_go_to_the_shorter(tie_order):
    hyp = torch.full((1, 12), 5)
    refs = torch.zeros(1, 2, 13, dtype=torch.int64)
    for index, length in enumerate(tie_order):
        refs[0, index, :length] = 5
    stats = sentence_statistics(hyp, refs, BLEUConfig(ignore_ids=[0]))
    assert stats.target_len.tolist() == [11]
    assert sacrebleu_corpus(hyp, refs, (0,)).ref_len == 11
