"""Confidence intervals and paired tests of metrics that keep their sentences (``keep_sentences=True``).

The numbers must be sacrebleu's on the same sentences in the same order: the score exactly (as
``compute()``), p-values exactly, bootstrap means and intervals to sacrebleu's float32 precision.
The kept sentences follow the sums through weights, merges, checkpoints, resets and DDP ranks.
"""

from __future__ import annotations

import os
import random
import re
import sys
from datetime import timedelta
from pathlib import Path
from unittest import mock

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import sacrebleu_seed
from shared_data import WMT17
from strategies import word_corpora

from torch_bleu import BLEUScore, CHRFScore, TERScore, paired_bootstrap, paired_randomization, significance
from torch_bleu.metrics.base import KEPT

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import BLEU, CHRF, TER  # noqa: E402
from sacrebleu.significance import PairedTest  # noqa: E402

#: Each metric with the sacrebleu metric that scores the same way.
METRICS = {
    "bleu": (
        lambda **kw: BLEUScore(**{"tokenize": "13a", "smoothing": "exp", **kw}),
        lambda refs=None: BLEU(references=refs),
    ),
    "chrf": (lambda **kw: CHRFScore(word_order=2, **kw), lambda refs=None: CHRF(word_order=2, references=refs)),
    "ter": (lambda **kw: TERScore(**kw), lambda refs=None: TER(references=refs)),
}
#: sacrebleu resamples with float32 statistics: its means and intervals (in points) agree to about this.
FLOAT32_POINTS = 1e-4


def kept(name, hyps, refs, batch=3, **options):
    """Our metric of ``name`` with kept sentences, updated batch by batch (``refs``: one list per sentence)."""
    metric = METRICS[name][0](keep_sentences=True, **options)
    for start in range(0, len(hyps), batch):
        metric.update(hyps[start : start + batch], refs[start : start + batch])
    return metric


def sacrebleu_paired(systems, metric, test_type, n):
    """sacrebleu's results of every system (the first the baseline) by ``PairedTest``."""
    named = [(f"system {index}", system) for index, system in enumerate(systems)]
    results = PairedTest(named, {"metric": metric}, None, test_type, n)()[1]
    return next(column for name, column in results.items() if name != "System")  # named after the metric


def per_sentence(references):
    """Reference streams (sacrebleu's layout) as each sentence's references."""
    return [list(refs) for refs in zip(*references)]


# ---------------------------------------------------------------------------- sacrebleu's numbers


@settings(max_examples=30)
@given(
    st.sampled_from(sorted(METRICS)),
    word_corpora(sizes=(2, 10), systems=(2, 3), references=(1, 2), max_len=6),
    st.integers(1, 60),
)
def test_interval_and_paired_tests_equal_sacrebleus(name, corpus, n):
    """The baseline's interval is its line of sacrebleu's paired bootstrap, the same draws as ``--confidence``
    (whose ``corpus_score(n_bootstrap=)`` fails on some tiny corpora: float32 and float scores mixed)."""
    systems, references = corpus
    ours = [kept(name, system, per_sentence(references)) for system in systems]
    with sacrebleu_seed():
        sacrebleu_bs = sacrebleu_paired(systems, METRICS[name][1](references), "bs", n)
        sacrebleu_ar = sacrebleu_paired(systems, METRICS[name][1](references), "ar", n)

    interval = ours[0].confidence_interval(resamples=n)
    assert interval.score == ours[0].compute().item()  # exactly the metric's score
    assert 100 * interval.score == pytest.approx(sacrebleu_bs[0].score, abs=1e-9)
    assert 100 * interval.mean == pytest.approx(sacrebleu_bs[0].mean, abs=FLOAT32_POINTS)
    assert 100 * interval.ci == pytest.approx(sacrebleu_bs[0].ci, abs=FLOAT32_POINTS)

    bootstrap = paired_bootstrap(ours[0], *ours[1:], resamples=n)
    randomization = paired_randomization(ours[0], *ours[1:], trials=n)
    # a trial whose difference ties the observed one (mathematically, within significance.TIE_TOLERANCE)
    # counts as not exceeding it here; sacrebleu's float rounding decides it either way: with ties counted
    # as exceeding, ours bounds sacrebleu's p-value from above (equal where nothing ties)
    with mock.patch.object(significance, "TIE_TOLERANCE", -significance.TIE_TOLERANCE):
        bootstrap_ties = paired_bootstrap(ours[0], *ours[1:], resamples=n)
        randomization_ties = paired_randomization(ours[0], *ours[1:], trials=n)
    for metric, bs, ar, bs_ties, ar_ties, their_bs, their_ar in zip(
        ours[1:], bootstrap, randomization, bootstrap_ties, randomization_ties, sacrebleu_bs[1:], sacrebleu_ar[1:]
    ):
        assert bs.score == ar.score == metric.compute().item()
        assert bs.p_value <= their_bs.p_value <= bs_ties.p_value
        assert ar.p_value <= their_ar.p_value <= ar_ties.p_value
        assert 100 * bs.mean == pytest.approx(their_bs.mean, abs=FLOAT32_POINTS)
        assert 100 * bs.ci == pytest.approx(their_bs.ci, abs=FLOAT32_POINTS)


def test_a_tie_with_the_observed_difference_does_not_count():
    """Trials whose difference equals the observed one up to float rounding never count as exceeding it
    (sacrebleu's rounding can count them: here its p-value is 1.0 for 3 trials, ours 0.75)."""
    systems = [["a", "b", "a", "a a a a a"], ["a a", "a", "a a a a a a", "a a a b"]]
    references = [["a", "a a a", "a b a", "b"], ["", "a a", "", ""]]
    ours = [kept("chrf", system, per_sentence(references)) for system in systems]
    [result] = paired_randomization(ours[0], ours[1], trials=3)
    assert result.p_value == 0.75  # the third trial ties: 0.6097560975609788 against 0.6097560975609753


@pytest.fixture
def wmt17():
    if not (WMT17 / "newstest2017.ref.de").exists():
        pytest.skip(f"WMT17 data not found at {WMT17} (the shared folder next to the repository)")
    return lambda name: (WMT17 / name).read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize("name", sorted(METRICS))
def test_wmt17_interval_is_sacrebleus_confidence(wmt17, name):
    """``metric.confidence_interval()`` is ``sacrebleu --confidence -cin 1000`` (here on 150 lines of WMT17)."""
    references, hyps = wmt17("newstest2017.ref.de")[:150], wmt17("sys.online-B.0.de")[:150]
    metric = kept(name, hyps, [[ref] for ref in references], batch=64)
    with sacrebleu_seed():
        expected = METRICS[name][1]().corpus_score(hyps, [references], n_bootstrap=1000)
    interval = metric.confidence_interval()
    assert 100 * interval.score == pytest.approx(expected.score, abs=1e-9)
    assert 100 * interval.mean == pytest.approx(expected._mean, abs=FLOAT32_POINTS)
    assert 100 * interval.ci == pytest.approx(expected._ci, abs=FLOAT32_POINTS)


def test_wmt17_bleu_p_values_are_sacrebleus(wmt17):
    """sacrebleu 2.6.0's p-values on WMT17 en-de (-tok none, seed 12345), as the command line's tests list them."""
    references = wmt17("newstest2017.ref.de")
    names = ["LIUM-NMT.4900", "FBK.4870", "KIT.4950"]
    metrics = []
    for name in names:
        metric = BLEUScore(tokenize="none", keep_sentences=True)
        hyps = wmt17(f"sys.{name}.de")
        for start in range(0, len(hyps), 512):
            metric.update(hyps[start : start + 512], references[start : start + 512])
        metrics.append(metric)
    assert 100 * metrics[0].compute().item() == pytest.approx(21.60976793975032, abs=1e-12)
    bootstrap = paired_bootstrap(*metrics, resamples=2000)
    randomization = paired_randomization(*metrics, trials=10000)
    assert [r.p_value for r in bootstrap] == [0.018490754622688656, 0.02448775612193903]
    assert [r.p_value for r in randomization] == [0.0226977302269773, 0.043195680431956804]


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(METRICS))
def test_wmt17_interval_and_tests_equal_sacrebleus(wmt17, name):
    size = 600 if name == "ter" else None  # sacrebleu's TER takes minutes on the whole test set
    references = wmt17("newstest2017.ref.de")[:size]
    systems = [wmt17(f"sys.{system}.de")[:size] for system in ("LIUM-NMT.4900", "online-B.0", "xmu.4910")]
    ours = [kept(name, system, [[ref] for ref in references], batch=256) for system in systems]
    with sacrebleu_seed():
        expected = METRICS[name][1]().corpus_score(systems[0], [references], n_bootstrap=1000)
        their_bs = sacrebleu_paired(systems, METRICS[name][1]([references]), "bs", 1000)
        their_ar = sacrebleu_paired(systems, METRICS[name][1]([references]), "ar", 10000)
    interval = ours[0].confidence_interval()
    assert 100 * interval.score == pytest.approx(expected.score, abs=1e-9)
    assert 100 * interval.mean == pytest.approx(expected._mean, abs=FLOAT32_POINTS)
    assert 100 * interval.ci == pytest.approx(expected._ci, abs=FLOAT32_POINTS)
    bootstrap, randomization = paired_bootstrap(*ours), paired_randomization(*ours)
    assert [r.p_value for r in bootstrap] == [r.p_value for r in their_bs[1:]]
    assert [r.p_value for r in randomization] == [r.p_value for r in their_ar[1:]]
    assert [100 * r.mean for r in bootstrap] == pytest.approx([r.mean for r in their_bs[1:]], abs=FLOAT32_POINTS)
    assert [100 * r.ci for r in bootstrap] == pytest.approx([r.ci for r in their_bs[1:]], abs=FLOAT32_POINTS)


# ---------------------------------------------------------------------------- weights, order, duplicates

HYPS = ["the cat sat on the mat", "a dog", "it rains today", "hello there world", "one two three", "four five"]
REFS = ["the cat is on the mat", "a dog barked", "it rained today", "hello world", "one two three", "four five six"]


def test_a_sentence_of_weight_k_counts_k_times_and_weight_0_not_at_all():
    weighted = TERScore(keep_sentences=True)
    weighted.update(HYPS, REFS, weight=torch.tensor([2, 0, 1, 1, 3, 1], dtype=torch.uint8))
    repeated = TERScore(keep_sentences=True)
    for hyp, ref, times in zip(HYPS, REFS, [2, 0, 1, 1, 3, 1]):
        repeated.update([hyp] * times, [ref] * times)
    assert weighted.compute() == repeated.compute()
    assert weighted.confidence_interval(resamples=200) == repeated.confidence_interval(resamples=200)


def test_indices_put_the_sentences_in_dataset_order():
    in_order = CHRFScore(keep_sentences=True)
    in_order.update(HYPS, REFS)
    shuffled = CHRFScore(keep_sentences=True)
    order = [4, 1, 5, 0, 3, 2]
    for part in (order[:2], order[2:5], order[5:]):
        shuffled.update([HYPS[i] for i in part], [REFS[i] for i in part], indices=torch.tensor(part))
    assert shuffled.confidence_interval(resamples=300) == in_order.confidence_interval(resamples=300)
    unordered = CHRFScore(keep_sentences=True)
    unordered.update([HYPS[i] for i in order], [REFS[i] for i in order])
    assert unordered.confidence_interval(resamples=300).score == in_order.confidence_interval(resamples=300).score


def test_duplicate_indices_are_refused_unless_the_repeats_weigh_0():
    metric = TERScore(keep_sentences=True)
    metric.update(HYPS[:3], REFS[:3], indices=torch.tensor([0, 1, 2]))
    metric.update(HYPS[:1], REFS[:1], indices=torch.tensor([0]), weight=torch.tensor([False]))
    metric.confidence_interval(resamples=10)
    metric.update(HYPS[1:2], REFS[1:2], indices=torch.tensor([1]))
    with pytest.raises(ValueError, match=r"dataset index 1 was counted more than once.*weight 0"):
        metric.confidence_interval(resamples=10)


def test_indices_in_some_updates_only_or_negative_are_refused():
    metric = TERScore(keep_sentences=True)
    metric.update(HYPS[:2], REFS[:2], indices=torch.tensor([0, 1]))
    metric.update(HYPS[2:4], REFS[2:4])
    with pytest.raises(ValueError, match="indices were given to some updates and not to others"):
        metric.confidence_interval()
    negative = torch.tensor([-3])
    if negative.device.type == "cpu":  # read at once where reading waits for no device
        with pytest.raises(ValueError, match="must not be negative"):
            metric.update(HYPS[:1], REFS[:1], indices=negative)
    else:  # on an accelerator, once an interval reads the kept sentences
        on_device = TERScore(keep_sentences=True)
        on_device.update(HYPS[:1], REFS[:1], indices=negative)
        with pytest.raises(ValueError, match="must not be negative"):
            on_device.confidence_interval()
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        metric.update(HYPS[:2], REFS[:2], indices=torch.tensor([1]))
    with pytest.raises(TypeError, match="integers"):
        metric.update(HYPS[:1], REFS[:1], indices=torch.tensor([1.0]))
    assert sum(len(rows) for rows in getattr(metric, KEPT)) == 4  # rejected batches left no rows


# ---------------------------------------------------------------------------- life cycle


def test_state_dict_merge_and_reset_carry_the_kept_sentences():
    whole = BLEUScore(tokenize="13a", keep_sentences=True)
    whole.update(HYPS, REFS)
    first, second = (BLEUScore(tokenize="13a", keep_sentences=True) for _ in range(2))
    first.update(HYPS[:4], REFS[:4])
    second.update(HYPS[4:], REFS[4:])
    first.persistent(True)
    restored = BLEUScore(tokenize="13a", keep_sentences=True)
    restored.load_state_dict(first.state_dict())
    restored.merge_state(second)
    assert restored.confidence_interval(resamples=100) == whole.confidence_interval(resamples=100)
    from_dict = BLEUScore(tokenize="13a", keep_sentences=True)
    from_dict.merge_state(first.metric_state)
    from_dict.merge_state({name: value for name, value in second.metric_state.items() if name != "counted_with"})
    assert from_dict.confidence_interval(resamples=100) == whole.confidence_interval(resamples=100)
    restored.reset()
    assert getattr(restored, KEPT) == []
    with pytest.raises(ValueError, match="no sentences yet"):
        restored.confidence_interval()


def test_forward_keeps_the_sentences_of_every_batch():
    metric = CHRFScore(keep_sentences=True)
    for start in range(0, 6, 2):
        metric(HYPS[start : start + 2], REFS[start : start + 2])
    whole = CHRFScore(keep_sentences=True)
    whole.update(HYPS, REFS)
    assert metric.confidence_interval(resamples=50) == whole.confidence_interval(resamples=50)


def test_statistics_without_their_sentences_are_refused():
    plain, keeping = TERScore(), TERScore(keep_sentences=True)
    plain.update(HYPS, REFS)
    with pytest.raises(ValueError, match=r"lacks kept_sentences.*keep_sentences=True"):
        keeping.merge_state(plain)
    with pytest.raises(ValueError, match="lacks kept_sentences"):
        keeping.merge_state({"edits": plain.edits, "reference_length": plain.reference_length})
    keeping.load_state_dict({"edits": plain.edits, "reference_length": plain.reference_length}, strict=False)
    with pytest.raises(ValueError, match="do not add up to its statistics"):
        keeping.confidence_interval()
    with pytest.raises(TypeError, match="integer tensors"):
        keeping.merge_state({**plain.metric_state, KEPT: [torch.zeros(1, 4)]})
    with pytest.raises(ValueError, match=r"\(n, 4\)"):
        keeping.merge_state({**plain.metric_state, KEPT: [torch.zeros(1, 3, dtype=torch.int64)]})
    plain.merge_state(keeping)  # a metric that keeps no sentences takes the sums only


def test_keep_sentences_is_in_the_signature_and_checked():
    import inspect

    for metric in (BLEUScore, CHRFScore, TERScore):
        assert inspect.signature(metric).parameters["keep_sentences"].default is False
    with pytest.raises(TypeError, match="keep_sentences must be True or False"):
        TERScore(keep_sentences="yes")


# ---------------------------------------------------------------------------- errors


def test_errors_name_what_is_wrong():
    plain = BLEUScore()
    plain.update(torch.tensor([[1, 2, 3]]), torch.tensor([[1, 2, 3]]))
    with pytest.raises(ValueError, match="keeps no sentences; create it with keep_sentences=True"):
        plain.confidence_interval()
    chrf = kept("chrf", HYPS, REFS)
    with pytest.raises(TypeError, match="cannot compare a TERScore with a CHRFScore baseline"):
        paired_bootstrap(chrf, kept("ter", HYPS, REFS))
    with pytest.raises(
        ValueError, match=r"^the metrics count otherwise: lowercase=True against the baseline's lowercase=False$"
    ):
        paired_bootstrap(chrf, kept("chrf", HYPS, REFS, lowercase=True))
    bleu = kept("bleu", HYPS, REFS)
    with pytest.raises(ValueError, match="score otherwise than the baseline: smoothing='floor' against 'exp'"):
        paired_randomization(bleu, kept("bleu", HYPS, REFS, smoothing="floor"))
    with pytest.raises(ValueError, match=r"different numbers of sentences \(6, 5\)"):
        paired_randomization(chrf, kept("chrf", HYPS[:5], REFS[:5]))
    with pytest.raises(ValueError, match="at least one metric"):
        paired_bootstrap(chrf)
    indexed = CHRFScore(word_order=2, keep_sentences=True)
    indexed.update(HYPS, REFS, indices=torch.arange(1, 7))
    with pytest.raises(ValueError, match="some metrics were given dataset indices"):
        paired_bootstrap(chrf, indexed)
    other = CHRFScore(word_order=2, keep_sentences=True)
    other.update(HYPS, REFS, indices=torch.arange(6))
    with pytest.raises(ValueError, match="dataset indices differ"):
        paired_bootstrap(other, indexed)
    with pytest.raises(ValueError, match=r"^resamples must be a positive integer, got 0$"):
        chrf.confidence_interval(resamples=0)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda metric: metric.confidence_interval(seed=-1), "^seed must be None or a non-negative integer"),
        (lambda metric: metric.confidence_interval(resamples=1.5), "^resamples must be a positive integer, got 1.5$"),
        (lambda metric: paired_bootstrap(metric, metric, seed=-1), "^seed must be None or a non-negative integer"),
        (lambda metric: paired_bootstrap(metric, metric, resamples=True), "^resamples must be a positive integer"),
        (lambda metric: paired_randomization(metric, metric, trials=0), "^trials must be a positive integer, got 0$"),
        (lambda metric: paired_randomization(metric, metric, seed="1"), "^seed must be None or a non-negative"),
    ],
    ids=[
        "interval seed",
        "interval resamples",
        "bootstrap seed",
        "bootstrap resamples",
        "trials",
        "randomization seed",
    ],
)
def test_the_numbers_of_draws_and_the_seed_are_named(call, message):
    with pytest.raises(ValueError, match=message):
        call(kept("chrf", HYPS, REFS))


def test_a_weighted_corpus_too_large_to_resample_is_refused_with_its_size():
    metric = CHRFScore(keep_sentences=True).to("cpu")  # a signed weight is checked where it is read freely
    metric.update(HYPS[:2], REFS[:2], weight=torch.tensor([10**12, 1], device="cpu"))
    assert metric.compute().item() > 0  # the sums are fine
    message = (
        r"^the kept sentences weigh 1000000000001 in all: .* a sentence of weight k is k sentences, .* at most 16777216"
    )
    with pytest.raises(ValueError, match=message):
        metric.confidence_interval()
    with pytest.raises(ValueError, match=message):
        paired_bootstrap(metric, metric.clone())


@pytest.mark.parametrize("name", list(METRICS))
def test_clone_is_of_the_metrics_own_class_and_compares_with_it(name):
    metric = kept(name, HYPS, REFS)
    best = metric.clone()
    assert type(best) is type(metric) and best is not metric
    assert best.compute() == metric.compute()
    [result] = paired_bootstrap(best, metric, resamples=20)
    assert result.score == metric.compute().item()


# ---------------------------------------------------------------------------- DDP

CORPUS = [(f"w{i % 7} w{i % 5} w{i % 3} x{i}", [f"w{i % 7} w{i % 4} x{i}"]) for i in range(23)]


def _rank(rank: int, world_size: int, store: str, out_dir: str) -> None:
    torch.set_num_threads(1)
    torch.set_default_device("cpu")  # a forked child cannot use the CUDA of its parent (pytest --device cuda)
    dist.init_process_group(
        "gloo", init_method=f"file://{store}", rank=rank, world_size=world_size, timeout=timedelta(seconds=60)
    )
    order = list(range(len(CORPUS)))
    random.Random(5).shuffle(order)
    results = {}
    for scenario, shards in {"uneven": (15, 8), "one rank empty": (23, 0)}.items():
        start = sum(shards[:rank])
        mine = order[start : start + shards[rank]]
        metric, other = BLEUScore(tokenize="13a", keep_sentences=True), BLEUScore(tokenize="13a", keep_sentences=True)
        for first in range(0, len(mine), 4):
            batch = mine[first : first + 4]
            hyps, refs = [CORPUS[i][0] for i in batch], [CORPUS[i][1] for i in batch]
            metric.update(hyps, refs, indices=torch.tensor(batch))
            other.update([hyp.replace("w1", "w2") for hyp in hyps], refs, indices=torch.tensor(batch))
        results[scenario] = (
            metric.confidence_interval(resamples=300),
            paired_bootstrap(metric, other, resamples=300),
            paired_randomization(metric, other, trials=300),
            sum(map(len, getattr(metric, KEPT))),  # the local rows are back after the sync
        )
    torch.save(results, os.path.join(out_dir, f"rank{rank}.pt"))
    dist.destroy_process_group()


@pytest.mark.skipif(not dist.is_available() or not dist.is_gloo_available(), reason="needs gloo")
@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded")
def test_ranks_with_indices_give_the_single_process_results(tmp_path: Path):
    start_method = "fork" if sys.platform.startswith("linux") else "spawn"
    mp.start_processes(_rank, args=(2, str(tmp_path / "store"), str(tmp_path)), nprocs=2, start_method=start_method)
    ranks = [torch.load(tmp_path / f"rank{rank}.pt", weights_only=False) for rank in range(2)]

    metric, other = BLEUScore(tokenize="13a", keep_sentences=True), BLEUScore(tokenize="13a", keep_sentences=True)
    metric.update([hyp for hyp, _ in CORPUS], [refs for _, refs in CORPUS])
    other.update([hyp.replace("w1", "w2") for hyp, _ in CORPUS], [refs for _, refs in CORPUS])
    expected = (
        metric.confidence_interval(resamples=300),
        paired_bootstrap(metric, other, resamples=300),
        paired_randomization(metric, other, trials=300),
    )
    assert expected[1][0].p_value < 1.0
    for rank in ranks:
        for scenario, (interval, bootstrap, randomization, _) in rank.items():
            assert (interval, bootstrap, randomization) == expected, scenario
        assert rank["one rank empty"][3] in (0, 23)


# ---------------------------------------------------------------------------- the example


def test_validation_example_logs_the_interval_and_the_p_value_against_the_best(capsys):
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "examples" / "validation_significance.py"
    spec = importlib.util.spec_from_file_location("validation_significance", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    lines = example.main(["--quick", "--resamples", "200"])
    assert capsys.readouterr().out.splitlines() == lines
    assert re.fullmatch(r"epoch 1: BLEU \d+\.\d \+- \d+\.\d", lines[0])
    for line in lines[1:]:
        assert re.fullmatch(
            r"epoch \d: BLEU \d+\.\d \+- \d+\.\d, p = [01]\.\d{4} against the best so far \(\d+\.\d\)", line
        )
