"""``eos_id=``: every row is cut at its first EOS, as the usual loop's ``row[:row.index(EOS)]`` cuts it.

Batched decoding goes on emitting tokens after a row's EOS; with ``eos_id`` they count for nothing,
in hypotheses and references alike, on any device and without a host synchronization. The oracle
cuts the rows in Python and scores them with the real libraries.
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import sacrebleu_corpus, strip_row
from strategies import BOS, EOS, PAD, Draws, padded_corpora
from subword_tokenizers import BOS_ID, CORPUS, EOS_ID, PAD_ID
from vocabularies import Vocabulary

from torch_bleu import BLEUConfig, BLEUScore, CHRFScore, corpus_bleu, corpus_chrf, sentence_bleu
from torch_bleu.metrics.bleu.counting import sentence_statistics

sacrebleu = pytest.importorskip("sacrebleu")

#: The row of the first usage example, decoded on after its EOS.
RUN_ON = [BOS, 11, 12, 13, 14, 15, EOS, 11, 12, 13]
CLEAN = [BOS, 11, 12, 13, 14, 15, EOS, PAD, PAD, PAD]
TARGET = [BOS, 11, 12, 13, 14, 16, EOS]

EOS_CHOICES = st.sampled_from([EOS, (EOS, BOS), [EOS, 7]])
IGNORE_CHOICES = st.sampled_from([(), (PAD,), (PAD, BOS)])


def _ids(option: int | tuple[int, ...] | list[int]) -> tuple[int, ...]:
    return (option,) if isinstance(option, int) else tuple(option)


def test_tokens_after_the_first_eos_count_for_nothing():
    preds, target = torch.tensor([RUN_ON, CLEAN]), torch.tensor([TARGET, TARGET])
    cut = sentence_bleu(preds, target, ignore_ids=[PAD, BOS], eos_id=EOS)
    assert cut[0].item() == cut[1].item()
    assert sentence_bleu(preds, target, ignore_ids=[PAD, BOS, EOS])[0].item() < cut[0].item()


@settings(max_examples=150, deadline=None)
@given(corpus=padded_corpora(), eos=EOS_CHOICES, ignore=IGNORE_CHOICES, max_order=st.integers(1, 5))
def test_statistics_and_scores_equal_sacrebleus_of_the_rows_cut_at_eos(corpus, eos, ignore, max_order):
    preds, target = corpus
    stats = sentence_statistics(preds, target, BLEUConfig(max_order=max_order, ignore_ids=ignore, eos_id=eos))
    if preds.shape[0] == 0:
        assert stats.matches.shape == (0, max_order)
        return
    theirs = sacrebleu_corpus(preds, target, ignore, _ids(eos), max_ngram_order=max_order)
    assert stats.matches.sum(0).tolist() == theirs.counts
    assert stats.totals.sum(0).tolist() == theirs.totals
    assert (stats.preds_len.sum().item(), stats.target_len.sum().item()) == (theirs.sys_len, theirs.ref_len)
    scores = sentence_bleu(preds, target, ignore_ids=ignore, eos_id=eos, max_order=max_order, smoothing="exp")
    for row in range(preds.shape[0]):
        sentence = preds[row : row + 1], target[row : row + 1]
        one = sacrebleu_corpus(*sentence, ignore, _ids(eos), max_ngram_order=max_order, smooth_method="exp")
        assert scores[row].item() == pytest.approx(one.score / 100, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(corpus=padded_corpora(max_refs=1), eos=EOS_CHOICES, ignore=IGNORE_CHOICES)
def test_ragged_rows_are_cut_like_padded_ones(corpus, eos, ignore):
    preds, target = corpus
    hypotheses = [row.tolist() for row in preds]
    references = [[row.tolist() for row in refs] for refs in target]
    padded = sentence_statistics(preds, target, BLEUConfig(ignore_ids=ignore, eos_id=eos))
    ragged = sentence_statistics(hypotheses, references, BLEUConfig(ignore_ids=ignore, eos_id=eos))
    for field in ("matches", "totals", "preds_len", "target_len"):
        assert torch.equal(getattr(padded, field).cpu(), getattr(ragged, field))  # lists are counted on the CPU


def test_nltk_convention_equals_nltk_on_rows_cut_at_eos():
    nltk_bleu = pytest.importorskip("nltk.translate.bleu_score")
    draws = Draws(0)
    preds = draws.randint(0, 9, (40, 12))
    target = draws.randint(0, 9, (40, 2, 14))
    ours = corpus_bleu(preds, target, ignore_ids=[PAD], eos_id=EOS, convention="nltk", smoothing="method1")
    hypotheses = [strip_row(row, [PAD], [EOS]) for row in preds]
    references = [[strip_row(row, [PAD], [EOS]) for row in refs] for refs in target]
    method1 = nltk_bleu.SmoothingFunction().method1
    assert ours.item() == pytest.approx(nltk_bleu.corpus_bleu(references, hypotheses, smoothing_function=method1))


def test_update_cuts_rows_on_meta_and_a_rejected_batch_keeps_the_states():
    metric = BLEUScore(ignore_ids=[PAD], eos_id=EOS).to("meta")
    metric.update(torch.randint(0, 9, (4, 10), device="meta"), torch.randint(0, 9, (4, 2, 11), device="meta"))
    assert metric.numerator.device.type == "meta"

    metric = BLEUScore(eos_id=EOS)
    metric.update(torch.tensor([RUN_ON]), torch.tensor([TARGET]))
    before = metric.numerator.clone()
    with pytest.raises(TypeError, match="integer token ids"):
        metric.update(torch.tensor([[1.0, 2.0]]), torch.tensor([TARGET]))
    assert torch.equal(metric.numerator, before)


def test_metrics_cut_at_other_ids_are_not_merged():
    cut, uncut = BLEUScore(eos_id=EOS), BLEUScore()
    cut.update(torch.tensor([RUN_ON]), torch.tensor([TARGET]))
    with pytest.raises(ValueError, match=r"counted otherwise.*eos_id"):
        uncut.merge_state(cut)
    assert BLEUScore(eos_id=[EOS]).counted_with.tolist() == cut.counted_with.tolist()


# --- subword ids: rows are cut before they are decoded --------------------------------------------------


def _decoded_rows_with_tails(vocabulary: Vocabulary, lines: list[str]) -> tuple[torch.Tensor, list[str]]:
    """``BOS ids EOS tail PAD...`` rows, where each tail is the ids of another line, and the clean text."""
    rows = [vocabulary.encode(line) for line in lines]
    tails = rows[1:] + rows[:1]
    full = [[BOS_ID, *row, EOS_ID, *tail] for row, tail in zip(rows, tails)]
    ids = torch.full((len(full), max(map(len, full))), PAD_ID)
    for index, row in enumerate(full):
        ids[index, : len(row)] = torch.tensor(row)
    return ids, [vocabulary.decode(row) for row in rows]


@pytest.mark.parametrize("kind", ["unigram", "tokenizers"])
def test_subword_rows_cut_at_eos_score_as_their_decoded_text(kind):
    vocabulary = Vocabulary(kind)
    lines = CORPUS.read_text(encoding="utf-8").splitlines()[:12]
    ids, decoded = _decoded_rows_with_tails(vocabulary, lines)
    references = lines[:10] + lines[11:] + lines[10:11]  # mostly the lines themselves
    options = {"detokenizer": vocabulary.detokenizer, "ignore_ids": [PAD_ID, BOS_ID], "eos_id": EOS_ID}
    bleu = BLEUScore(**options)
    bleu.update(ids, references)
    theirs = sacrebleu.BLEU(smooth_method="none").corpus_score(decoded, [references])
    assert bleu.numerator.tolist() == theirs.counts and bleu.denominator.tolist() == theirs.totals
    assert bleu.compute().item() * 100 == pytest.approx(theirs.score, abs=1e-9)
    assert corpus_bleu(ids, references, detokenizer=vocabulary.detokenizer, ignore_ids=[PAD_ID]) < bleu.compute()
    chrf = corpus_chrf(ids, references, word_order=2, **options)
    assert chrf.item() * 100 == pytest.approx(sacrebleu.CHRF(word_order=2).corpus_score(decoded, [references]).score)
    on_meta = CHRFScore(**options).to("meta")
    on_meta.update(ids.to("meta"), ids.to("meta"))
    assert on_meta.statistics.device.type == "meta"
