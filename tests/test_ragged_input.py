"""Ragged input (lists of tensors, nltk's lists of lists of ints) and the reference-length rules.

Ragged corpora with a variable number of references, empty references among them, are scored against
sacrebleu, where a missing reference is ``None`` and an empty one is ``""``.
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.translate.bleu_score import closest_ref_length
from sacrebleu.metrics import BLEU
from shared_data import WMT17
from strategies import INT64_MIN, TOKEN_MAX, id_vocabularies, ragged_corpora

from torch_bleu import BLEUConfig, BLEUScore, corpus_bleu, sentence_bleu
from torch_bleu.inputs.ids import token_batch
from torch_bleu.metrics.bleu.counting import sentence_statistics

#: Ragged corpora whose ids may also be the largest token ids and 0 together.
corpora = ragged_corpora(max_batch=6, vocabularies=st.one_of(id_vocabularies(), st.just([TOKEN_MAX - 1, TOKEN_MAX, 0])))


def sacrebleu_score(hyps: list[list[int]], refs: list[list[list[int]]], **options):
    """sacrebleu on the ids as words; a hypothesis with fewer references gets ``None`` in the other streams."""

    def text(ids: list[int]) -> str:
        return " ".join(map(str, ids))

    streams: list[list[str | None]] = [[] for _ in range(max(map(len, refs)))]
    for sentence_refs in refs:
        for index, stream in enumerate(streams):
            stream.append(text(sentence_refs[index]) if index < len(sentence_refs) else None)
    return BLEU(tokenize="none", **options).corpus_score([text(hyp) for hyp in hyps], streams)


def as_tensors(rows: list[list[int]]) -> list[torch.Tensor]:
    return [torch.tensor(row, dtype=torch.int64) for row in rows]


# --- against sacrebleu, in every ragged form -----------------------------------------------------


@settings(max_examples=60)
@given(corpus=corpora, form=st.sampled_from(["lists", "tensors", "mixed"]))
def test_ragged_statistics_and_score_equal_sacrebleu(corpus, form):
    hyps, refs = corpus
    if form == "tensors":
        preds, target = as_tensors(hyps), [as_tensors(sentence_refs) for sentence_refs in refs]
    elif form == "mixed":
        # tensors and lists of ints side by side, in one hypothesis's references
        target = [[row if i % 2 else torch.tensor(row, dtype=torch.int64) for i, row in enumerate(r)] for r in refs]
        preds = [hyp if index % 2 else torch.tensor(hyp, dtype=torch.int64) for index, hyp in enumerate(hyps)]
    else:
        preds, target = hyps, refs
    expected = sacrebleu_score(hyps, refs, smooth_method="exp")
    stats = sentence_statistics(preds, target, BLEUConfig())
    assert stats.matches.sum(0).tolist() == expected.counts
    assert stats.totals.sum(0).tolist() == expected.totals
    assert (stats.preds_len.sum().item(), stats.target_len.sum().item()) == (expected.sys_len, expected.ref_len)
    assert corpus_bleu(preds, target, smoothing="exp").item() == pytest.approx(expected.score / 100, abs=1e-9)


@settings(max_examples=40)
@given(corpus=corpora, split=st.integers(0, 6))
def test_metric_accumulates_ragged_batches(corpus, split):
    hyps, refs = corpus
    metric = BLEUScore(smoothing="floor")
    metric.update(hyps[:split], refs[:split])
    metric.update(as_tensors(hyps[split:]), [as_tensors(sentence_refs) for sentence_refs in refs[split:]])
    expected = sacrebleu_score(hyps, refs, smooth_method="floor")
    assert metric.numerator.tolist() == expected.counts and metric.denominator.tolist() == expected.totals
    assert metric.compute().item() == pytest.approx(expected.score / 100, abs=1e-9)


def test_one_reference_per_hypothesis_as_a_plain_list_of_tensors():
    hyps = [[4, 5, 6, 7], [8, 9]]
    refs = [[4, 5, 6, 8, 9], [8, 9, 10]]
    expected = corpus_bleu(hyps, [[ref] for ref in refs])
    assert corpus_bleu(as_tensors(hyps), as_tensors(refs)).item() == expected.item()
    # lists are scored on the CPU, tensors on their device: equal to the last bits of float64
    ours, lists = sentence_bleu(hyps, as_tensors(refs)).cpu(), sentence_bleu(hyps, [[ref] for ref in refs])
    torch.testing.assert_close(ours, lists, rtol=1e-14, atol=0)


def test_ragged_and_padded_sides_mix():
    hyps, refs = [[4, 5, 6, 7], [8, 9]], [[[4, 5, 6, 8], [4, 5]], [[8, 9, 10]]]
    padded_preds = torch.tensor([[4, 5, 6, 7], [8, 9, 0, 0]])
    padded_target = torch.tensor([[[4, 5, 6, 8], [4, 5, 0, 0]], [[8, 9, 10, 0], [0, 0, 0, 0]]])
    expected = corpus_bleu(hyps, refs).item()
    assert corpus_bleu(padded_preds, refs, ignore_ids=[0]).item() == expected
    assert corpus_bleu(hyps, padded_target, ignore_ids=[0]).item() == expected
    assert corpus_bleu(padded_preds, padded_target, ignore_ids=[0]).item() == expected


def test_ignore_ids_apply_to_ragged_rows_too():
    bos, eos = 1, 2
    hyps = [[bos, 4, 5, 6, eos], [bos, 8, eos]]
    refs = [[[bos, 4, 5, 7, eos]], [[bos, 8, 9, eos]]]
    stripped = corpus_bleu([[4, 5, 6], [8]], [[[4, 5, 7]], [[8, 9]]], smoothing="exp")
    assert corpus_bleu(hyps, refs, ignore_ids=[bos, eos], smoothing="exp").item() == stripped.item()


# --- empty and absent references -------------------------------------------------------------------


def test_an_empty_reference_is_a_real_reference_of_length_zero():
    hyp = [[4]]
    # closest to 1 token: 0 and 2 tie, the shorter (the empty reference) wins, so no brevity penalty
    stats = sentence_statistics(hyp, [[[], [4, 5]]], BLEUConfig(max_order=1))
    assert stats.target_len.tolist() == [0]
    assert sacrebleu_score(hyp, [[[], [4, 5]]], max_ngram_order=1).ref_len == 0
    assert corpus_bleu(hyp, [[[], [4, 5]]], max_order=1).item() == 1.0
    # the padded form cannot say "empty reference": an all-padding row is an absent one
    config = BLEUConfig(max_order=1, ignore_ids=[0])
    padded = sentence_statistics(torch.tensor([[4]]), torch.tensor([[[0, 0], [4, 5]]]), config)
    assert padded.target_len.tolist() == [2]


def test_a_hypothesis_without_any_reference_is_rejected():
    with pytest.raises(ValueError, match=r"target\[1\] has no reference"):
        corpus_bleu([[4], [5]], [[[4]], []])


# --- the reference-length rules --------------------------------------------------------------------


@settings(max_examples=60)
@given(corpus=corpora)
def test_reference_length_rules(corpus):
    hyps, refs = corpus
    closest = sentence_statistics(hyps, refs, BLEUConfig()).target_len.tolist()
    shortest = sentence_statistics(hyps, refs, BLEUConfig(ref_length="shortest")).target_len.tolist()
    for hyp, sentence_refs, ours_closest, ours_shortest in zip(hyps, refs, closest, shortest):
        assert ours_closest == closest_ref_length(sentence_refs, len(hyp))  # nltk: ties go to the shorter
        assert ours_shortest == min(map(len, sentence_refs))  # tensorflow/nmt, HF evaluate, keras-hub


def test_shortest_rule_on_a_tie_and_on_padded_input():
    hyp, refs = [[1] * 12], [[[1] * 13, [1] * 11, [1] * 30]]
    assert sentence_statistics(hyp, refs, BLEUConfig()).target_len.tolist() == [11]
    padded = torch.tensor([[[1] * 13 + [0] * 17, [1] * 11 + [0] * 19, [1] * 30]])
    for target in (refs, padded):
        stats = sentence_statistics(torch.tensor(hyp), target, BLEUConfig(ref_length="shortest", ignore_ids=[0]))
        assert stats.target_len.tolist() == [11]
    # shortest differs from closest when the shortest reference is not the closest one
    hyp, refs = [[1] * 12], [[[1] * 2, [1] * 13]]
    assert sentence_statistics(hyp, refs, BLEUConfig(ref_length="shortest")).target_len.tolist() == [2]
    assert sentence_statistics(hyp, refs, BLEUConfig()).target_len.tolist() == [13]


# --- ids and padding -----------------------------------------------------------------------------


def test_every_non_negative_id_is_a_token_even_without_ignore_ids():
    """Ragged rows carry their lengths, so every id is a token, the padding value (0) and the largest int64 too;
    a negative id never is."""
    hyps = [[TOKEN_MAX - 1, 0, TOKEN_MAX], [TOKEN_MAX - 1]]
    refs = [[[TOKEN_MAX - 1, 0, TOKEN_MAX, 5]], [[TOKEN_MAX - 1, TOKEN_MAX - 1], [0]]]
    batch = token_batch(hyps, refs)
    assert batch.row_lengths.tolist() == [[3, 4, 0], [1, 2, 1]]
    stats = sentence_statistics(hyps, refs, BLEUConfig())
    assert stats.matches.tolist() == [[3, 2, 1, 0], [1, 0, 0, 0]]
    assert stats.preds_len.tolist() == [3, 1] and stats.target_len.tolist() == [4, 1]
    stats = sentence_statistics([[0, 0]], [[[0]]], BLEUConfig(max_order=2))
    assert stats.matches.tolist() == [[1, 0]] and stats.target_len.tolist() == [1]
    stats = sentence_statistics([[INT64_MIN, 0, -1]], [[[0, -100]]], BLEUConfig(max_order=2))
    assert stats.matches.tolist() == [[1, 0]] and stats.preds_len.tolist() == [1]


def test_any_integer_dtype_in_ragged_tensors():
    rows = [[4, 5, 6], [7]]
    expected = corpus_bleu(rows, [[row] for row in rows], max_order=2)
    for dtype in (torch.uint8, torch.int16, torch.int32):
        tensors = [torch.tensor(row, dtype=dtype) for row in rows]
        assert corpus_bleu(tensors, [[row] for row in tensors], max_order=2).item() == expected.item()


def test_ragged_input_on_the_meta_device():
    def row(length: int) -> torch.Tensor:
        return torch.empty(length, dtype=torch.int64, device="meta")

    preds = [row(3), row(7), row(0)]
    target = [[row(4)], [row(2), row(9)], [row(1)]]
    assert sentence_bleu(preds, target).shape == (3,)
    metric = BLEUScore().to("meta")
    metric.update(preds, target)
    assert metric.numerator.device.type == "meta"


def test_empty_ragged_batch_is_a_no_op():
    metric = BLEUScore()
    metric.update([[4, 5, 6, 7]], [[[4, 5, 6, 7]]])
    before = metric.numerator.clone(), metric.preds_len.clone()
    metric.update([], [])
    assert torch.equal(metric.numerator, before[0]) and torch.equal(metric.preds_len, before[1])
    assert sentence_bleu([], []).shape == (0,)


# --- bad input -------------------------------------------------------------------------------------

GOOD_HYPS, GOOD_REFS = [[4, 5, 6]], [[[4, 5, 7]]]

BAD_RAGGED = [
    (["the cat"], GOOD_REFS, TypeError, r"preds\[0\] is a string: to score strings, pass tokenize="),
    ([{4, 5}], GOOD_REFS, TypeError, r"preds\[0\] must be a 1-D tensor or a list of int"),
    ([[4.0, 5.0]], GOOD_REFS, TypeError, "token ids must be ints, got float"),
    ([[True, 5]], GOOD_REFS, TypeError, "got bool"),
    ([["4", "5"]], GOOD_REFS, TypeError, "got str"),
    ([[None]], GOOD_REFS, TypeError, "got NoneType"),
    ([[2**63]], GOOD_REFS, ValueError, "fit in int64"),
    ([torch.tensor([[4, 5]])], GOOD_REFS, ValueError, r"preds\[0\] must be 1-D"),
    ([torch.tensor([4.0])], GOOD_REFS, TypeError, "integer token ids"),
    (GOOD_HYPS, [[4, 5, 7]], TypeError, "wrap a single reference"),
    (GOOD_HYPS, [[[4, 5], "ref"]], TypeError, r"target\[0\] holds strings"),
    (GOOD_HYPS, [[[4, 5], {6}]], TypeError, r"target\[0\]\[1\] must be"),
    (GOOD_HYPS, [[[4, 5.5]]], TypeError, "got float"),
    (GOOD_HYPS, ["4 5 7"], TypeError, r"target\[0\] is a string"),
    (GOOD_HYPS, [{4, 5, 7}], TypeError, r"target\[0\] must be a list of references"),
    (GOOD_HYPS, [[[4]], [[5]]], ValueError, "batch sizes differ"),
    (GOOD_HYPS, {"refs": 1}, TypeError, "target must be a tensor of token ids or a list"),
    ([torch.tensor([4, 5])], [[torch.empty(2, dtype=torch.int64, device="meta")]], ValueError, "different devices"),
    (torch.tensor([[4, 5]]), [[[4]], [[5]]], ValueError, "batch sizes differ"),
    (torch.tensor([4, 5]), GOOD_REFS, ValueError, "preds must be 2-D"),
]


@pytest.mark.parametrize("preds, target, error, message", BAD_RAGGED)
def test_bad_ragged_input_is_rejected_and_statistics_kept(preds, target, error, message):
    metric = BLEUScore()
    metric.update(GOOD_HYPS, GOOD_REFS)
    before = metric.numerator.clone(), metric.denominator.clone(), metric.preds_len.clone(), metric.target_len.clone()
    with pytest.raises(error, match=message):
        metric.update(preds, target)
    after = metric.numerator, metric.denominator, metric.preds_len, metric.target_len
    assert all(torch.equal(old, new) for old, new in zip(before, after))
    with pytest.raises(error, match=message):
        sentence_bleu(preds, target)


# --- real data -----------------------------------------------------------------------------------


def test_wmt17_system_as_ragged_ids_equals_sacrebleu():
    if not WMT17.exists():
        pytest.skip(f"WMT17 data not found at {WMT17} (the shared folder is absent)")
    system = sorted(WMT17.glob("sys.*"))[0]
    refs = (WMT17 / "newstest2017.ref.de").read_text(encoding="utf-8").splitlines()[:400]
    hyps = system.read_text(encoding="utf-8").splitlines()[:400]
    vocabulary: dict = {}

    def ids(line: str) -> list[int]:
        return [vocabulary.setdefault(word, len(vocabulary)) for word in line.split()]

    expected = BLEU(tokenize="none").corpus_score(hyps, [refs])
    metric = BLEUScore()
    metric.update([ids(line) for line in hyps[:150]], [[ids(line)] for line in refs[:150]])
    metric.update(as_tensors([ids(line) for line in hyps[150:]]), as_tensors([ids(line) for line in refs[150:]]))
    assert metric.numerator.tolist() == expected.counts and metric.denominator.tolist() == expected.totals
    assert (metric.preds_len.item(), metric.target_len.item()) == (expected.sys_len, expected.ref_len)
    assert metric.compute().item() == pytest.approx(expected.score / 100, abs=1e-9)
