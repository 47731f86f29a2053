"""WER and CER against jiwer 4: the four counts of adversarial strings (whitespace of every kind, empty
sides), rows of ids (ignored ids, EOS, static sizes, the meta device), alignments with many ties (small
alphabets, both orders), subword ids decoded by real tokenizers, corpus and sentence scores, jiwer's
other measures, and the metrics' life cycle under DDP.

The default run keeps one quick case of each; ``--slow`` adds more examples, every tokenizer kind with
both size modes, long sentences and DDP.
"""

from __future__ import annotations

import random
import sys
from datetime import timedelta
from pathlib import Path

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import as_words, jiwer_counts
from subword_tokenizers import CORPUS
from vocabularies import SIZE_MODES, SUBWORD_CASES

from torch_bleu import (
    CERScore,
    WERScore,
    arrays,
    character_error_counts,
    corpus_cer,
    corpus_wer,
    error_measures,
    sentence_cer,
    sentence_wer,
    word_error_counts,
)

jiwer = pytest.importorskip("jiwer")

CORPUS_LINES = CORPUS.read_text(encoding="utf-8").splitlines()
#: Words and whitespace jiwer reads differently from ``str.split``: one tab, no-break space or
#: information separator joins two words, two of them separate words.
PIECES = ["a", "b", "c", "ab", " ", "  ", "\t", "\u00a0", "\x1c", "\x1f", "\n", " \t", "\u3000"]
texts = st.lists(st.sampled_from(PIECES), max_size=10).map("".join)


@pytest.fixture(params=SIZE_MODES)
def sizes(request, monkeypatch):
    """Counted as on the CPU (rapidfuzz, on the host) and as on an accelerator (PyTorch, sizes
    from shapes only)."""
    monkeypatch.setattr(arrays, "SIZES_FROM_DATA_ON_CPU", request.param == "sizes from data")
    return request.param


string_pairs = st.lists(st.tuples(texts, texts), min_size=1, max_size=6)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(pairs=string_pairs, characters=st.booleans())
def test_counts_and_scores_of_strings_are_jiwers(pairs, characters):
    check_strings(pairs, characters)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(pairs=string_pairs, characters=st.booleans())
def test_counts_and_scores_of_many_strings_are_jiwers(pairs, characters):
    check_strings(pairs, characters)


def check_strings(pairs: list[tuple[str, str]], characters: bool) -> None:
    hypotheses, references = [h for h, _ in pairs], [r for _, r in pairs]
    counts = (character_error_counts if characters else word_error_counts)(hypotheses, references)
    assert counts.tolist() == [jiwer_counts(h, r, characters) for h, r in pairs]
    corpus, sentence = (corpus_cer, sentence_cer) if characters else (corpus_wer, sentence_wer)
    measure = jiwer.cer if characters else jiwer.wer
    assert corpus(hypotheses, references).item() == measure(references, hypotheses)
    assert sentence(hypotheses, references).tolist() == [measure(r, h) for h, r in pairs]
    if not characters:
        ours = error_measures(counts.sum(0))
        out = jiwer.process_words(references, hypotheses)
        assert [value.item() for value in ours] == [out.wer, out.mer, out.wil, out.wip]


def test_whitespace_as_jiwer_reads_it():
    hypotheses = ["a\tb c", "a\t\tb", " \u00a0a\u00a0", "a \u00a0 b", "", "  ", "x\x1cy"]
    references = ["a b c", "a b", "a", "a b", "a", "", "x y"]
    assert word_error_counts(hypotheses, references).tolist() == [
        jiwer_counts(h, r) for h, r in zip(hypotheses, references)
    ]
    assert sentence_wer(["a\tb c"], ["a b c"]).tolist() == [2 / 3]  # the tab joins "a" and "b"


def test_empty_references_follow_jiwer():
    assert corpus_wer(["a b", "c"], ["", ""]).item() == jiwer.wer(["", ""], ["a b", "c"]) == 3  # a count
    assert corpus_wer(["", ""], ["", ""]).item() == 0.0
    assert corpus_wer(["a b", ""], ["", "x y"]).item() == jiwer.wer(["", "x y"], ["a b", ""]) == 2.0
    assert sentence_cer(["ab", ""], ["", ""]).tolist() == [2.0, 0.0]
    measures = error_measures(torch.tensor([[0, 0, 0, 2], [0, 0, 0, 0]]))
    assert measures.mer.tolist() == [1.0, 0.0] and measures.wip.tolist() == [0.0, 1.0]


@pytest.mark.parametrize(
    ("alphabets", "shortest", "longest"),
    [((3,), 60, 90), pytest.param((2, 5, 50), 100, 300, marks=pytest.mark.slow)],
)
def test_long_sentences_match_rapidfuzz(alphabets, shortest, longest):
    rng = random.Random(7)
    hypotheses, references = [], []
    for alphabet in alphabets:
        words = [f"w{index}" for index in range(alphabet)]
        hypotheses.append(" ".join(rng.choice(words) for _ in range(rng.randint(shortest, longest))))
        references.append(" ".join(rng.choice(words) for _ in range(rng.randint(shortest, longest))))
    assert word_error_counts(hypotheses, references).tolist() == [
        jiwer_counts(h, r) for h, r in zip(hypotheses, references)
    ]


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1))
def test_padded_ids_are_counted_as_their_words(sizes, seed):
    rng = random.Random(seed)
    batch, width = rng.randint(1, 6), rng.randint(0, 12)
    preds = torch.tensor([[rng.randint(0, 6) for _ in range(width)] for _ in range(batch)], dtype=torch.long)
    target = torch.tensor([[rng.randint(0, 6) for _ in range(width + 2)] for _ in range(batch)], dtype=torch.long)
    preds = preds.reshape(batch, width)
    counts = word_error_counts(preds, target, ignore_ids=[0], eos_id=2)
    expected = [jiwer_counts(as_words(p, {0}, 2), as_words(t, {0}, 2)) for p, t in zip(preds.tolist(), target.tolist())]
    assert counts.tolist() == expected
    assert character_error_counts(preds, target, ignore_ids=[0], eos_id=2).tolist() == expected


#: Rows of ids 1 to 3 (0: padding): few distinct tokens, so that many alignments cost the same.
tie_rows = st.lists(st.integers(1, 3), max_size=12)


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(pairs=st.lists(st.tuples(tie_rows, tie_rows), min_size=1, max_size=16))
def test_ties_are_broken_as_rapidfuzz_breaks_them(sizes, pairs):
    """Every pair in both orders, in one padded batch, against jiwer on the ids as words."""
    pairs = pairs + [(reference, hypothesis) for hypothesis, reference in pairs]
    width = max(len(row) for pair in pairs for row in pair)
    preds, target = (
        torch.tensor([row + [0] * (width - len(row)) for row in side], dtype=torch.long).reshape(len(pairs), width)
        for side in zip(*pairs)
    )
    expected = [jiwer_counts(" ".join(map(str, h)), " ".join(map(str, r))) for h, r in pairs]
    assert word_error_counts(preds, target, ignore_ids=[0]).tolist() == expected


def test_update_runs_on_meta_and_counts_no_multiple_references():
    metric = WERScore(ignore_ids=[0], eos_id=2).to("meta")
    metric.update(torch.tensor([[1, 3, 2, 0]], device="meta"), torch.tensor([[1, 4, 0]], device="meta"))
    assert metric.hits.device.type == "meta"
    with pytest.raises(ValueError, match="one reference per hypothesis"):
        corpus_wer(["a"], [["a", "b"]])


@pytest.mark.parametrize(("vocabulary", "sizes"), SUBWORD_CASES, indirect=True)
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), as_text=st.booleans(), characters=st.booleans())
def test_subword_ids_are_counted_as_their_decoded_text(vocabulary, sizes, seed, as_text, characters):
    rng = random.Random(seed)
    hypotheses = vocabulary.random_rows(rng, count=3, longest=14)
    hypotheses[0] = vocabulary.encode(CORPUS_LINES[seed % len(CORPUS_LINES)])
    targets = vocabulary.random_rows(rng, count=3, longest=14)
    targets[1] = vocabulary.encode(CORPUS_LINES[(seed + 1) % len(CORPUS_LINES)])
    reference_text = [vocabulary.decode(row) for row in targets]
    count = character_error_counts if characters else word_error_counts
    counts = count(
        hypotheses, reference_text if as_text else [[row] for row in targets], detokenizer=vocabulary.detokenizer
    )
    decoded = [vocabulary.decode(row) for row in hypotheses]
    assert counts.tolist() == [jiwer_counts(h, r, characters) for h, r in zip(decoded, reference_text)]


def test_metrics_weight_merge_checkpoint_and_refuse_bad_input():
    hyps, refs = CORPUS_LINES[:6], CORPUS_LINES[6:12]
    whole, first, second = WERScore(), WERScore(), WERScore()
    whole.update(hyps, refs)
    first.update(hyps[:3], refs[:3])
    second.update([*hyps[3:], "x y z"], [*refs[3:], "a"], weight=torch.tensor([1, 1, 1, 0], dtype=torch.uint8))
    first.merge_state(second)
    assert whole.compute().item() == first.compute().item() == jiwer.wer(refs, hyps)
    out = jiwer.process_words(refs, hyps)
    assert [first.hits.item(), first.substitutions.item(), first.deletions.item(), first.insertions.item()] == [
        out.hits,
        out.substitutions,
        out.deletions,
        out.insertions,
    ]
    assert [value.item() for value in first.measures()] == [out.wer, out.mer, out.wil, out.wip]
    before = {name: getattr(first, name).clone() for name in WERScore.state_names}
    for preds, target in ((hyps[:2], refs[:1]), (hyps[:1], [[refs[0], refs[1]]]), (torch.tensor([[1.0]]), refs[:1])):
        with pytest.raises((ValueError, TypeError)):
            first.update(preds, target)
    assert all(torch.equal(getattr(first, name), before[name]) for name in WERScore.state_names)
    with pytest.raises(ValueError, match="counted otherwise"):
        first.merge_state(CERScore())
    restored = WERScore()
    first.persistent(True)
    restored.load_state_dict(first.state_dict())
    assert restored.compute().item() == whole.compute().item()
    cer = CERScore()
    cer.update(hyps, refs)
    assert cer.compute().item() == jiwer.cer(refs, hyps)
    with pytest.raises(TypeError, match="transform the strings"):
        WERScore(reference_transform=None)


def _wer_on_rank(rank: int, world_size: int, store: str, out_dir: str) -> None:
    torch.set_num_threads(1)
    timeout = timedelta(seconds=60)
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=world_size, timeout=timeout)
    metric = WERScore()
    metric.update(CORPUS_LINES[rank:40:world_size], CORPUS_LINES[40 + rank : 80 : world_size])
    seen = {"score": metric.compute().item(), "measures": [value.item() for value in metric.measures()]}
    torch.save(seen, Path(out_dir) / f"rank{rank}.pt")
    dist.destroy_process_group()


@pytest.mark.slow  # the merged states of test_metrics_weight_merge_checkpoint_and_refuse_bad_input run by default
@pytest.mark.skipif(not dist.is_available() or not dist.is_gloo_available(), reason="needs gloo")
def test_ddp_ranks_give_the_single_process_score(tmp_path):
    start_method = "fork" if sys.platform.startswith("linux") else "spawn"
    mp.start_processes(
        _wer_on_rank, args=(2, str(tmp_path / "store"), str(tmp_path)), nprocs=2, start_method=start_method
    )
    expected = jiwer.process_words(CORPUS_LINES[40:80], CORPUS_LINES[:40])
    for rank in range(2):
        seen = torch.load(tmp_path / f"rank{rank}.pt")
        assert seen["score"] == expected.wer
        assert seen["measures"] == [expected.wer, expected.mer, expected.wil, expected.wip]


def test_kept_sentences_give_wer_intervals_and_paired_tests():
    """With ``keep_sentences=True`` WER has sacrebleu-style bootstrap intervals: the rate of each resample
    of sentences (the significance module's draws), their mean and 95% half-width."""
    import jiwer
    import numpy as np

    from torch_bleu import paired_bootstrap, paired_randomization
    from torch_bleu.significance import bootstrap_indices, confidence_intervals

    references = ["a b d", "a c", "x y z w", "a", "the cat sat", "on the mat"] * 4
    first = ["a b c", "a b", "x y z w", "a", "the cat", "on a mat"] * 4
    second = ["a b d", "a b", "x y z", "b", "the cat sat", "on the mat"] * 4
    metrics = [WERScore(keep_sentences=True), WERScore(keep_sentences=True)]
    for metric, hypotheses in zip(metrics, (first, second)):
        metric.update(hypotheses, references)
    interval = metrics[0].confidence_interval(resamples=200)
    assert interval.score == metrics[0].compute().item() == pytest.approx(jiwer.wer(references, first))
    [draws] = list(bootstrap_indices(len(references), 200, seed=12345))
    rates = [[100 * jiwer.wer([references[i] for i in row], [first[i] for i in row])] for row in draws.tolist()]
    mean, half_width = confidence_intervals(np.array(rates))
    assert 100 * interval.mean == pytest.approx(mean[0], abs=1e-9)
    assert 100 * interval.ci == pytest.approx(half_width[0], abs=1e-9)
    [bootstrap] = paired_bootstrap(*metrics, resamples=200)
    [randomization] = paired_randomization(*metrics, trials=200)
    assert bootstrap.score == randomization.score == metrics[1].compute().item()
    assert 0 < bootstrap.p_value <= 1 and 0 < randomization.p_value <= 1
