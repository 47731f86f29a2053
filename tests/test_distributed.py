"""BLEUScore, CHRFScore and TERScore under real ``torch.distributed`` process groups (gloo on CPU, 2 and 3 ranks).

Each test starts one group of processes that runs every scenario of that world size and saves what
each rank saw; the assertions then run in the test process against a single-process metric and
sacrebleu. Scenarios: uneven shards, a rank without any data, a different batch size on each rank,
``DistributedSampler``'s padding left out with ``update(..., weight=...)``, and states summed past
2**53; and chrF++ and TER of strings with two references per sentence, sharded the same ways.
"""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, DistributedSampler

from torch_bleu import BLEUScore, CHRFScore, TERScore

sacrebleu = pytest.importorskip("sacrebleu")

pytestmark = [
    pytest.mark.skipif(not dist.is_available() or not dist.is_gloo_available(), reason="needs gloo"),
    pytest.mark.filterwarnings("ignore:This process .* is multi-threaded"),  # Python >= 3.12 on fork
]


PAD, BOS, EOS = 0, 1, 2
IGNORE_IDS = (PAD, BOS, EOS)
CORPUS_SIZE = 55  # not a multiple of 2 or 3, so DistributedSampler pads on both world sizes
VOCABULARY = [*range(3, 12), 2**62 + 5, 2**63 - 1]  # small, so n-grams repeat; plus extreme int64 ids
STATE_NAMES = ("numerator", "denominator", "preds_len", "target_len")

# Per world size: (sentences per rank, batch size per rank). Every scenario covers the whole corpus.
SCENARIOS: dict[int, list[tuple[tuple[int, ...], tuple[int, ...]]]] = {
    2: [((38, 17), (6, 5)), ((55, 0), (8, 1))],
    3: [((30, 0, 25), (4, 1, 25)), ((5, 31, 19), (3, 7, 16))],
}
SAMPLER_BATCH_SIZE = 4

Sentence = tuple[list[int], list[list[int]]]


TEXT_LINES = (Path(__file__).resolve().parent / "data" / "subword_corpus.txt").read_text(encoding="utf-8").splitlines()


def text_corpus() -> list[tuple[str, list[str]]]:
    """Sentences of the test corpus, each with the two sentences after it as references."""
    return [(TEXT_LINES[index], TEXT_LINES[index + 1 : index + 3]) for index in range(CORPUS_SIZE)]


def chrf_states(sentences: Sequence[tuple[str, list[str]]], metric: CHRFScore | None = None) -> CHRFScore:
    metric = metric or CHRFScore(word_order=2)
    if sentences:
        metric.update([hyp for hyp, _ in sentences], [refs for _, refs in sentences])
    return metric


def make_corpus(seed: int = 2017, size: int = CORPUS_SIZE) -> list[Sentence]:
    """Hypotheses and two references per sentence, edited copies of a random source sentence."""
    rng = random.Random(seed)

    def edited(tokens: list[int]) -> list[int]:
        out = [t for t in tokens if rng.random() > 0.15]
        for _ in range(rng.randint(0, 2)):
            out.insert(rng.randint(0, len(out)), rng.choice(VOCABULARY))
        return out

    corpus = []
    for _ in range(size):
        source = [rng.choice(VOCABULARY) for _ in range(rng.randint(0, 16))]
        corpus.append((edited(source), [edited(source), edited(source)]))
    return corpus


def pad_batch(sentences: Sequence[Sentence]) -> tuple[torch.Tensor, torch.Tensor]:
    """``(B, Lp)`` hypotheses and ``(B, 2, Lt)`` references wrapped in BOS/EOS and right-padded."""
    hyp_width = max((len(hyp) for hyp, _ in sentences), default=0) + 3
    ref_width = max((len(ref) for _, refs in sentences for ref in refs), default=0) + 2
    preds = torch.full((len(sentences), hyp_width), PAD, dtype=torch.int64)
    target = torch.full((len(sentences), 2, ref_width), PAD, dtype=torch.int64)
    for row, (hyp, refs) in enumerate(sentences):
        preds[row, : len(hyp) + 2] = torch.tensor([BOS, *hyp, EOS], dtype=torch.int64)
        for slot, ref in enumerate(refs):
            # an empty reference row is left all PAD: absent, as in sacrebleu's ``None``
            if ref:
                target[row, slot, : len(ref) + 2] = torch.tensor([BOS, *ref, EOS], dtype=torch.int64)
    return preds, target


def sacrebleu_result(sentences: Sequence[Sentence]):
    """sacrebleu's corpus BLEU of the same sentences, ids joined with spaces, absent references as None."""
    hyps = [" ".join(map(str, hyp)) for hyp, _ in sentences]
    streams: list[list] = [[], []]
    for _, refs in sentences:
        present = [" ".join(map(str, ref)) if ref else None for ref in refs]
        if all(ref is None for ref in present):
            present[0] = ""  # a sentence without references has one empty reference
        for stream, ref in zip(streams, present):
            stream.append(ref)
    return sacrebleu.corpus_bleu(hyps, streams, tokenize="none", smooth_method="none")


def large_states(rank: int) -> dict[str, torch.Tensor]:
    """States near 2**52 on every rank: their sum over 2 or 3 ranks passes 2**53 (odd, so not a float64)."""
    matches = torch.tensor([2**52 + (rank == 0) - 7 * order for order in range(4)])
    return {
        "numerator": matches,
        "denominator": matches + 2**40,
        "preds_len": torch.tensor(2**52 + 2**45 + rank),
        "target_len": torch.tensor(2**52 + 2**46),
    }


def states_of(metric: BLEUScore) -> dict[str, list[int]]:
    return {name: getattr(metric, name).reshape(-1).tolist() for name in STATE_NAMES}


def synced_states(metric: BLEUScore) -> dict[str, list[int]]:
    """The states summed over all ranks, read through torchmetrics' own sync."""
    metric.sync()
    states = states_of(metric)
    metric.unsync()
    return states


def sampler_positions(seen: int, batch: int, rank: int, world_size: int) -> torch.Tensor:
    """Position in DistributedSampler's padded global order of the next ``batch`` samples of ``rank``."""
    return (seen + torch.arange(batch)) * world_size + rank


def _evaluate_on_rank(rank: int, world_size: int, store: str, out_dir: str) -> None:
    """What one rank runs: every scenario of its world size, results saved to ``out_dir``."""
    torch.set_num_threads(1)
    dist.init_process_group(
        "gloo", init_method=f"file://{store}", rank=rank, world_size=world_size, timeout=timedelta(seconds=60)
    )
    corpus = make_corpus()
    order = list(range(len(corpus)))
    random.Random(world_size).shuffle(order)  # shards are arbitrary subsets, not contiguous runs
    results: dict[str, object] = {"scenarios": []}

    for shard_sizes, batch_sizes in SCENARIOS[world_size]:
        start = sum(shard_sizes[:rank])
        shard = [corpus[i] for i in order[start : start + shard_sizes[rank]]]
        metric = BLEUScore(ignore_ids=IGNORE_IDS)
        for first in range(0, len(shard), batch_sizes[rank]):  # a rank without data never calls update
            metric.update(*pad_batch(shard[first : first + batch_sizes[rank]]))
        local = states_of(metric)
        score = metric.compute().item()
        chrf = CHRFScore(word_order=2)
        texts = text_corpus()
        shard_order = order[start : start + shard_sizes[rank]]
        for first in range(0, len(shard), batch_sizes[rank]):
            chrf_states([texts[i] for i in shard_order[first : first + batch_sizes[rank]]], chrf)
        chrf.sync()
        chrf_synced = chrf.statistics.tolist()
        chrf.unsync()
        ter = TERScore()
        for first in range(0, len(shard), batch_sizes[rank]):
            batch = [texts[i] for i in shard_order[first : first + batch_sizes[rank]]]
            ter.update([hyp for hyp, _ in batch], [refs for _, refs in batch])
        ter.sync()
        ter_synced = [ter.edits.item(), ter.reference_length.item()]
        ter.unsync()
        results["scenarios"].append(
            {
                "score": score,
                "local": local,
                "synced": synced_states(metric),
                "after_compute": states_of(metric),
                "chrf_synced": chrf_synced,
                "chrf_score": chrf.compute().item(),
                "ter_synced": ter_synced,
                "ter_score": ter.compute().item(),
            }
        )

    sampler = DistributedSampler(corpus, num_replicas=world_size, rank=rank, shuffle=True, seed=3)
    loader = DataLoader(corpus, batch_size=SAMPLER_BATCH_SIZE, sampler=sampler, collate_fn=pad_batch)
    weighted, unweighted = BLEUScore(ignore_ids=IGNORE_IDS), BLEUScore(ignore_ids=IGNORE_IDS)
    seen = 0
    for preds, target in loader:
        real = sampler_positions(seen, preds.shape[0], rank, world_size) < len(corpus)
        weighted.update(preds, target, weight=real)
        unweighted.update(preds, target)
        seen += preds.shape[0]
    results["sampler"] = {
        "weighted": synced_states(weighted),
        "weighted_score": weighted.compute().item(),
        "unweighted": synced_states(unweighted),
    }

    large = BLEUScore()
    large.merge_state(large_states(rank))
    results["large"] = {"synced": synced_states(large), "score": large.compute().item()}

    torch.save(results, os.path.join(out_dir, f"rank{rank}.pt"))
    dist.destroy_process_group()


def run_ranks(world_size: int, tmp_path: Path) -> list[dict]:
    """Start ``world_size`` processes in one gloo group and return what each rank saved.

    On Linux the ranks are forked (about 0.1 s instead of seconds of re-importing torch per rank);
    elsewhere they are spawned.
    """
    start_method = "fork" if sys.platform.startswith("linux") else "spawn"
    mp.start_processes(
        _evaluate_on_rank,
        args=(world_size, str(tmp_path / "store"), str(tmp_path)),
        nprocs=world_size,
        start_method=start_method,
    )
    return [torch.load(tmp_path / f"rank{rank}.pt") for rank in range(world_size)]


def single_process_states(sentences: Sequence[Sentence]) -> tuple[dict[str, list[int]], float]:
    metric = BLEUScore(ignore_ids=IGNORE_IDS)
    metric.update(*pad_batch(sentences))
    return states_of(metric), metric.compute().item()


def summed(states: Sequence[dict[str, list[int]]]) -> dict[str, list[int]]:
    return {name: [sum(values) for values in zip(*(s[name] for s in states))] for name in STATE_NAMES}


@pytest.fixture(scope="module", params=[2, 3], ids=lambda world_size: f"{world_size}-ranks")
def ranks(request, tmp_path_factory) -> list[dict]:
    """One process group per world size, shared by the tests below."""
    return run_ranks(request.param, tmp_path_factory.mktemp(f"gloo{request.param}"))


def test_every_rank_gets_the_single_process_score(ranks):
    world_size = len(ranks)
    corpus = make_corpus()
    expected_states, expected_score = single_process_states(corpus)
    reference = sacrebleu_result(corpus)
    assert expected_states == {
        "numerator": reference.counts,
        "denominator": reference.totals,
        "preds_len": [reference.sys_len],
        "target_len": [reference.ref_len],
    }
    assert expected_score == pytest.approx(reference.score / 100, abs=1e-9)
    assert 0.05 < expected_score < 0.95  # a corpus with partial matches at every order

    for index, (shard_sizes, _) in enumerate(SCENARIOS[world_size]):
        seen = [rank["scenarios"][index] for rank in ranks]
        assert summed([s["local"] for s in seen]) == expected_states, shard_sizes
        for rank, result in enumerate(seen):
            assert result["synced"] == expected_states, (shard_sizes, rank)
            assert result["score"] == expected_score, (shard_sizes, rank)  # bit for bit
            assert result["after_compute"] == result["local"], "compute() and sync() must restore the local states"


def test_chrf_states_are_summed_across_ranks(ranks):
    whole = chrf_states(text_corpus())
    texts = text_corpus()
    theirs = sacrebleu.metrics.CHRF(word_order=2).corpus_score(
        [hyp for hyp, _ in texts], [[refs[0] for _, refs in texts], [refs[1] for _, refs in texts]]
    )
    assert whole.compute().item() * 100 == pytest.approx(theirs.score, abs=1e-9)
    for index in range(len(SCENARIOS[len(ranks)])):
        for rank in ranks:
            assert rank["scenarios"][index]["chrf_synced"] == whole.statistics.tolist()
            assert rank["scenarios"][index]["chrf_score"] == whole.compute().item()


def test_sampler_padding_is_left_out_with_the_weight_mask(ranks):
    expected_states, expected_score = single_process_states(make_corpus())
    for result in (rank["sampler"] for rank in ranks):
        assert result["weighted"] == expected_states
        assert result["weighted_score"] == expected_score
        # without the mask the repeated samples count twice and corpus BLEU changes
        assert result["unweighted"]["preds_len"] > expected_states["preds_len"]


def test_states_summed_across_ranks_stay_exact_past_2_pow_53(ranks):
    expected = {name: sum(large_states(rank)[name] for rank in range(len(ranks))) for name in STATE_NAMES}
    first = int(expected["numerator"][0])
    assert first > 2**53 and int(float(first)) != first  # more than float64 holds exactly
    reference = sacrebleu.BLEU.compute_bleu(
        expected["numerator"].tolist(),
        expected["denominator"].tolist(),
        int(expected["preds_len"]),
        int(expected["target_len"]),
    )
    for result in (rank["large"] for rank in ranks):
        assert result["synced"] == {name: value.reshape(-1).tolist() for name, value in expected.items()}
        assert result["score"] == pytest.approx(reference.score / 100, rel=1e-12)


def test_ter_states_are_summed_across_ranks(ranks):
    texts = text_corpus()
    whole = TERScore()
    whole.update([hyp for hyp, _ in texts], [refs for _, refs in texts])
    theirs = sacrebleu.metrics.TER().corpus_score(
        [hyp for hyp, _ in texts], [[refs[0] for _, refs in texts], [refs[1] for _, refs in texts]]
    )
    assert whole.edits.item() == theirs.num_edits
    assert whole.compute().item() * 100 == pytest.approx(theirs.score, abs=1e-9)
    for scenario in range(len(SCENARIOS[len(ranks)])):
        for rank in ranks:
            seen = rank["scenarios"][scenario]
            assert seen["ter_synced"] == [whole.edits.item(), whole.reference_length.item()]
            assert seen["ter_score"] == whole.compute().item()
