"""Every counting path of the engine, sentence by sentence, against sacrebleu on the ids joined as strings.

The engine picks its algorithm from the shapes (``torch_bleu.engine.choose_algorithm``), and the
sorted algorithm has variants that only large inputs reach: keys packed in several stages when the
n-gram does not fit in one int64, counters filled in several passes when the rows do not fit in one.
Each path is forced here on random padded batches (ids across the whole int64 range, ignored ids
mid-row, absent references, empty rows), and reached naturally by one long batch each.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU
from strategies import TOKEN_MAX
from test_flat_streams import expected_matches

from torch_bleu import BLEUScore, arrays, bleu_statistics, engine
from torch_bleu.engine import (
    ALGORITHMS,
    PAIRWISE_MAX_WIDTH,
    RowStream,
    StackedRows,
    choose_algorithm,
    clipped_matches,
    flat_pairs,
    keys,
    rowsort,
    sorted_keys,
    stack_rows,
)

PATHS = ["auto", *ALGORITHMS]
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))

from bench import WORKLOADS  # noqa: E402  (the benchmark's workloads, its --skip choices)


def sacrebleu_sentence_statistics(
    preds: torch.Tensor, target: torch.Tensor, ignore_ids: Sequence[int], max_order: int
) -> tuple[list[list[int]], list[list[int]], list[int], list[int]]:
    """Per sentence: sacrebleu's counts, totals, sys_len and ref_len (``tokenize="none"``).

    A reference row with no token left is absent, unless all rows of the sentence are empty: then
    the sentence has one empty reference.
    """

    def text(row: list[int]) -> str:
        return " ".join(str(token) for token in row if token not in ignore_ids)

    bleu = BLEU(tokenize="none", max_ngram_order=max_order)
    counts, totals, sys_lens, ref_lens = [], [], [], []
    for hypothesis, references in zip(preds.tolist(), target.tolist()):
        present = [text(row) for row in references if text(row)] or [""]
        score = bleu.corpus_score([text(hypothesis)], [[reference] for reference in present])
        counts.append(list(score.counts))
        totals.append(list(score.totals))
        sys_lens.append(score.sys_len)
        ref_lens.append(score.ref_len)
    return counts, totals, sys_lens, ref_lens


def assert_matches_sacrebleu(preds, target, ignore_ids=(), max_order=4, algorithm="auto") -> None:
    stats = bleu_statistics(preds, target, max_order=max_order, ignore_ids=ignore_ids, algorithm=algorithm)
    counts, totals, sys_lens, ref_lens = sacrebleu_sentence_statistics(preds, target, ignore_ids, max_order)
    assert stats.matches.tolist() == counts
    assert stats.totals.tolist() == totals
    assert stats.preds_len.tolist() == sys_lens
    assert stats.target_len.tolist() == ref_lens


@st.composite
def padded_batches(draw, max_width: int = 12, max_refs: int = 3):
    """``(preds (B, Lp), target (B, R, Lt), ignore_ids)`` over a small palette of token ids, so n-grams repeat."""
    special = st.sampled_from([0, 1, 2, 7, TOKEN_MAX - 1, TOKEN_MAX])
    palette = draw(st.lists(st.one_of(special, st.integers(0, TOKEN_MAX)), min_size=1, max_size=5, unique=True))
    batch, refs = draw(st.integers(1, 4)), draw(st.integers(1, max_refs))
    hyp_width, ref_width = draw(st.integers(0, max_width)), draw(st.integers(0, max_width))

    def rows(*shape: int) -> torch.Tensor:
        size = math.prod(shape)
        picks = draw(st.lists(st.integers(0, len(palette) - 1), min_size=size, max_size=size))
        return torch.tensor([palette[index] for index in picks], dtype=torch.int64).view(shape)

    ignore_ids = tuple(draw(st.lists(st.sampled_from(palette), max_size=2, unique=True)))
    return rows(batch, hyp_width), rows(batch, refs, ref_width), ignore_ids


@pytest.mark.parametrize("algorithm", PATHS)
@settings(max_examples=60)
@given(batch=padded_batches(), max_order=st.integers(1, 5))
def test_every_algorithm_matches_sacrebleu(algorithm, batch, max_order):
    preds, target, ignore_ids = batch
    assert_matches_sacrebleu(preds, target, ignore_ids, max_order, algorithm)


@settings(max_examples=40)
@given(batch=padded_batches(), max_order=st.integers(1, 5))
def test_torch_sort_on_cpu_matches_sacrebleu(batch, max_order):
    """CPU tensors are sorted by NumPy; the ``torch.sort`` route that other devices take must agree."""
    preds, target, ignore_ids = batch
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rowsort, "NUMPY_ON_CPU", False)
        assert_matches_sacrebleu(preds, target, ignore_ids, max_order, "sorted")


@settings(max_examples=60)
@given(batch=padded_batches(max_refs=1), max_order=st.integers(1, 5), eos=st.booleans())
def test_numpy_rows_of_one_reference_count_as_a_stream(batch, max_order, eos):
    """On NumPy arrays, one hypothesis and one reference per sentence are counted as one stream of their kept
    tokens; tensors take the padded rows. Both count the same."""
    preds, target, ignore_ids = batch
    eos_ids = tuple(preds[0, :1].tolist()) if eos and preds.numel() else ()
    on_tensors = stack_rows(preds, target, ignore_ids, eos_ids=eos_ids)
    on_arrays = stack_rows(preds.numpy(), target.numpy(), ignore_ids, eos_ids=eos_ids)
    expected = clipped_matches(on_tensors, max_order, "sorted").tolist()
    assert clipped_matches(on_arrays, max_order, "sorted").tolist() == expected


@settings(max_examples=40)
@given(batch=padded_batches(max_refs=3), ragged=st.booleans())
def test_the_metric_counts_cpu_batches_on_numpy_as_tensors_count(batch, ragged):
    """``BLEUScore`` counts a CPU batch on NumPy views of it; with sizes from shapes only, on the tensors."""
    preds, target, ignore_ids = batch
    if ragged:  # ragged references: each sentence lists its own, so some are absent
        target = [[row for row in refs[: 1 + index % refs.shape[0]]] for index, refs in enumerate(target)]
    states = []
    for from_data in (True, False):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(arrays, "SIZES_FROM_DATA_ON_CPU", from_data)
            metric = BLEUScore(ignore_ids=ignore_ids)
            metric.update(preds, target, weight=torch.arange(preds.shape[0]) % 3)
            metric.update(preds, target)
            states.append([getattr(metric, name).tolist() for name in metric.state_names])
    assert states[0] == states[1]


@pytest.mark.parametrize("numpy_on_cpu", [True, False])
@pytest.mark.parametrize("key_bits", [8, 11, 16])
@settings(max_examples=30)
@given(batch=padded_batches(max_width=6), max_order=st.integers(2, 6))
def test_keys_packed_in_stages(numpy_on_cpu, key_bits, batch, max_order):
    """With fewer key bits the n-grams take several sorts (stages), down to two digits per key."""
    preds, target, ignore_ids = batch
    slots = (target.shape[1] + 1) * max(preds.shape[1], target.shape[2])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rowsort, "NUMPY_ON_CPU", numpy_on_cpu)
        patch.setattr(keys, "KEY_BITS", key_bits)
        try:
            sorted_keys.key_layout(slots, target.shape[1] + 1)
        except ValueError:  # not even two digits fit: the rows are too long for this many bits
            with pytest.raises(ValueError, match="too long"):
                bleu_statistics(preds, target, max_order=max_order, algorithm="sorted")
            return
        assert_matches_sacrebleu(preds, target, ignore_ids, max_order, "sorted")


@pytest.mark.parametrize("counter_bits", [1, 4, 8])
@settings(max_examples=40)
@given(batch=padded_batches(max_width=9, max_refs=4))
def test_counters_filled_in_passes(counter_bits, batch):
    """With narrower counters the rows' bit fields take several scatter passes."""
    preds, target, ignore_ids = batch
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sorted_keys, "COUNTER_BITS", counter_bits)
        assert_matches_sacrebleu(preds, target, ignore_ids, 4, "sorted")


@pytest.mark.parametrize("algorithm", PATHS)
@settings(max_examples=40)
@given(batch=padded_batches(), max_order=st.integers(1, 5))
def test_numpy_arrays_count_as_tensors(algorithm, batch, max_order):
    """The engine runs the same code on NumPy arrays (the command line's host path) as on tensors."""
    preds, target, ignore_ids = batch
    rows = stack_rows(preds, target, ignore_ids)
    arrays = StackedRows(*(None if field is None else field.numpy() for field in rows[:3]))
    expected = clipped_matches(rows, max_order, algorithm).tolist()
    assert clipped_matches(arrays, max_order, algorithm).tolist() == expected


def _several_hypotheses(preds: torch.Tensor, target: torch.Tensor, ignore_ids) -> tuple[StackedRows, list[StackedRows]]:
    """Three hypotheses per sentence against the same references: stacked together, and each alone."""
    alone = [stack_rows(hyp, target, ignore_ids) for hyp in (preds, preds.roll(1, -1), preds.flip(-1))]
    keep = [torch.ones_like(rows.tokens, dtype=torch.bool) if rows.keep is None else rows.keep for rows in alone]
    together = StackedRows(
        torch.cat([rows.tokens[:, :1] for rows in alone] + [alone[0].tokens[:, 1:]], 1),
        torch.cat([kept[:, :1] for kept in keep] + [keep[0][:, 1:]], 1),
        torch.cat([rows.lengths[:, :1] for rows in alone] + [alone[0].lengths[:, 1:]], 1),
        hypotheses=3,
    )
    return together, alone


@pytest.mark.parametrize("on_numpy", [False, True])
@pytest.mark.parametrize("counter_bits", [4, 31])
@settings(max_examples=30)
@given(batch=padded_batches(max_width=9), max_order=st.integers(1, 5))
def test_several_hypotheses_count_as_each_alone(on_numpy, counter_bits, batch, max_order):
    """Rows with ``K`` hypotheses (the command line stacks several systems) clip each one as if it were alone."""
    together, alone = _several_hypotheses(*batch)
    if on_numpy:
        together = StackedRows(*(field.numpy() for field in together[:3]), hypotheses=3)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sorted_keys, "COUNTER_BITS", counter_bits)
        counted = clipped_matches(together, max_order)
        expected = [clipped_matches(rows, max_order, "sorted")[:, 0].tolist() for rows in alone]
    assert [counted[:, k].tolist() for k in range(3)] == expected
    with pytest.raises(ValueError, match="one hypothesis"):
        clipped_matches(together, max_order, "pairwise")


def _long_batch(batch: int, refs: int, width: int, vocabulary: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    preds = torch.randint(0, vocabulary, (batch, width), generator=generator)
    copied = torch.rand(batch, refs, width, generator=generator) < 0.7
    target = torch.where(
        copied, preds.unsqueeze(1), torch.randint(0, vocabulary, (batch, refs, width), generator=generator)
    )
    return preds, target


def test_long_rows_reach_stages_and_passes_unforced():
    """4 references of 8192 tokens: 16-bit digits leave 3 per key (two stages for 4-grams), and
    14-bit row fields leave 2 rows per int32 counter (three passes for 5 rows)."""
    preds, target = _long_batch(1, 4, 8192, vocabulary=40, seed=0)
    layout = sorted_keys.key_layout(5 * 8192, 5)
    assert layout.digits_per_key == 3 and sorted_keys.COUNTER_BITS // (8192).bit_length() == 2
    assert_matches_sacrebleu(preds, target, ignore_ids=(0,), max_order=4, algorithm="sorted")


def test_high_order_on_long_rows_takes_stages_unforced():
    preds, target = _long_batch(2, 1, 1500, vocabulary=6, seed=1)
    assert sorted_keys.key_layout(2 * 1500, 2).digits_per_key < 8
    assert_matches_sacrebleu(preds, target, ignore_ids=(5,), max_order=8, algorithm="sorted")


@pytest.mark.parametrize("refs", [1, 2, 4])
@pytest.mark.parametrize("width", [PAIRWISE_MAX_WIDTH, PAIRWISE_MAX_WIDTH + 1])
def test_dispatch_boundary(refs, width):
    """At the widths where ``auto`` switches algorithm, both algorithms and ``auto`` agree with sacrebleu."""
    expected = "pairwise" if width <= PAIRWISE_MAX_WIDTH else "sorted"
    assert choose_algorithm(width) == expected
    generator = torch.Generator().manual_seed(width * 10 + refs)
    preds = torch.randint(0, 4, (16, width), generator=generator)
    target = torch.randint(0, 4, (16, refs, width - 1), generator=generator)
    for algorithm in PATHS:
        assert_matches_sacrebleu(preds, target, ignore_ids=(0,), algorithm=algorithm)


@pytest.mark.parametrize("algorithm", PATHS)
def test_each_algorithm_runs_on_the_meta_device(algorithm, monkeypatch):
    preds = torch.empty(6, 9, dtype=torch.int64, device="meta")
    target = torch.empty(6, 3, 7, dtype=torch.int64, device="meta")
    stats = bleu_statistics(preds, target, max_order=4, ignore_ids=(0, 1), algorithm=algorithm)
    assert stats.matches.shape == (6, 4) and stats.matches.device.type == "meta"
    monkeypatch.setattr(keys, "KEY_BITS", 16)  # two digits per key: staged keys
    monkeypatch.setattr(sorted_keys, "COUNTER_BITS", 5)  # counter passes
    assert bleu_statistics(preds, target, max_order=5, algorithm=algorithm).matches.shape == (6, 5)


@pytest.mark.parametrize("algorithm", PATHS)
@pytest.mark.parametrize(
    "preds_shape, target_shape",
    [((0, 5), (0, 2, 4)), ((3, 0), (3, 1, 0)), ((3, 0), (3, 2, 5)), ((3, 4), (3, 2, 0))],
)
def test_empty_shapes(algorithm, preds_shape, target_shape):
    preds = torch.ones(preds_shape, dtype=torch.int64)
    target = torch.ones(target_shape, dtype=torch.int64)
    stats = bleu_statistics(preds, target, algorithm=algorithm)
    assert stats.matches.shape == (preds_shape[0], 4)
    assert_matches_sacrebleu(preds, target, algorithm=algorithm)


def test_unknown_algorithm_and_oversized_rows_are_rejected(monkeypatch):
    rows = stack_rows(torch.ones(1, 3, dtype=torch.int64), torch.ones(1, 1, 3, dtype=torch.int64))
    with pytest.raises(ValueError, match="unknown algorithm"):
        clipped_matches(rows, 4, "hashing")
    monkeypatch.setattr(keys, "KEY_BITS", 5)
    with pytest.raises(ValueError, match="too long"):
        clipped_matches(rows, 4, "sorted")


@pytest.mark.slow
def test_bench_measures_beside_busy_processes_and_against_an_earlier_commit(tmp_path):
    """The busy rounds give a quiet and a busy median for torch-bleu's runs; ``--against`` compares the rl,
    update and grid rows with another revision's package, and the rl row says what the first call costs."""
    report = tmp_path / "bench.json"
    workloads = ["wmt17", "subwords", "text", "chrf", "ter", "batches", "pairwise", "grid", "tensorbleu"]
    command = [sys.executable, str(REPO / "scripts" / "bench.py"), "--quick", "--busy", "1", "--skip", *workloads]
    command += ["memory", "threads", "--against", "HEAD", "--rounds", "1", "--json", str(report)]
    printed = subprocess.run(command, check=True, capture_output=True, text=True, timeout=600).stdout
    result = json.loads(report.read_text())
    assert "## Beside 1 busy processes" in printed and "## Against HEAD" in printed
    records = result["busy"]["rl"] + result["busy"]["update"]
    assert {name for record in records for name in record["contenders"]} >= {"torch-bleu", "update"}
    assert all(times["busy"] > 0 and times["quiet"] > 0 for r in records for times in r["contenders"].values())
    for setting in ("1 thread", "default threads"):
        versions = result["against"]["HEAD"][setting]
        assert set(versions) == {"HEAD", "this checkout"}
        assert {"rl", "rl first call", "update"} <= set(versions["HEAD"])
    assert result["rl"]["first_call_ms"] > 0


#: What the quick bench runs: every workload but memory and batches (slow), or rl alone.
BENCH_RUNS = [
    pytest.param(["rl"], id="rl"),
    pytest.param([name for name in WORKLOADS if name not in ("memory", "batches")], id="all", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("workloads", BENCH_RUNS)
def test_bench_quick_runs_and_scores_agree(tmp_path, workloads):
    """``scripts/bench.py --quick`` keeps working, and every contender's score agrees with its reference (the
    batches workload has its own tests, ``tests/test_bench_batches.py``). Without --slow only the rl workload
    runs, beside its peers (nltk, TensorBLEU)."""
    report = tmp_path / "bench.json"
    command = [sys.executable, str(REPO / "scripts" / "bench.py"), "--quick", "--busy", "0"]
    command += ["--skip", *(name for name in WORKLOADS if name not in workloads), "--json", str(report)]
    subprocess.run(command, check=True, capture_output=True, timeout=300)
    result = json.loads(report.read_text())
    assert set(workloads) <= set(result)
    for row in (result.get("wmt17") or {}).get("table", []):  # None when ../shared is absent
        assert not row[-1].startswith("NO"), row
    for name, difference in result["rl"]["max_score_difference"].items():
        assert difference <= (1e-6 if name == "tensorbleu" else 1e-9), name  # TensorBLEU computes in float32


@pytest.mark.parametrize("max_order", [4, 6])
def test_long_rows_of_a_large_vocabulary_ranked_within_their_pairs_count_as_the_tensor_engine(max_order):
    """Long rows over many distinct ids need more bits per token than one key holds for every order; the host
    engine then ranks tokens within each pair (one key, one sort) and must count as the tensor engine does."""
    generator = torch.Generator().manual_seed(3)
    batch, width = 64, 1000
    words = torch.randint(0, 2**40, (batch, 3 * width // 4), generator=generator)
    preds = words[:, torch.randint(0, 3 * width // 4, (width,), generator=generator)]
    target = torch.where(torch.rand(batch, width, generator=generator) < 0.6, preds.roll(7, 1), preds.roll(1, 0))
    preds[:5, 900:] = 0  # ragged rows
    target[5:9, 600:] = 0
    stacked = stack_rows(preds.numpy(), target.numpy()[:, None], ignore_ids=[0])
    _ranks, distinct = keys.dense_ranks(stacked.tokens[stacked.keep])
    assert not flat_pairs._one_stage(batch.bit_length(), distinct, max_order)  # the case in question
    on_host = clipped_matches(stacked, max_order)
    on_tensors = clipped_matches(stack_rows(preds, target[:, None], ignore_ids=[0]), max_order, "sorted")
    assert on_host.tolist() == on_tensors.tolist()


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.lists(st.integers(3, 9), max_size=9), st.lists(st.integers(3, 9), max_size=9)), max_size=9
    ),
    chunk_slots=st.integers(1, 40),
)
def test_host_batches_counted_in_chunks_count_as_at_once(rows, chunk_slots):
    """The host counts a batch's pairs a few thousand slots at a time: any chunk size gives the same counts,
    for stacked rows, streams of rows end to end and CPU tensors with several references."""
    width = max([1, *(len(side) for pair in rows for side in pair)])
    padded = np.zeros((len(rows), 2, width), dtype=np.int64)
    for number, pair in enumerate(rows):
        for side, tokens in enumerate(pair):
            padded[number, side, : len(tokens)] = tokens
    stacked = stack_rows(padded[:, 0], padded[:, 1:], ignore_ids=[0])
    stream = RowStream(
        np.array([token for pair in rows for side in pair for token in side], dtype=np.int64),
        np.array([[len(side) for side in pair] for pair in rows], dtype=np.int64).reshape(-1, 2),
    )
    tensors = torch.from_numpy(padded)  # two references each: the tensor engine, chunked on the CPU too
    two_references = stack_rows(tensors[:, 0], tensors[:, [1, 0]], ignore_ids=[0])
    at_once = [clipped_matches(rows, 4) for rows in (stacked, stream, two_references)]
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(engine, "CHUNK_SLOTS", chunk_slots)
        monkeypatch.setattr(engine, "CPU_TENSOR_CHUNK_SLOTS", chunk_slots)
        for batch, whole in zip((stacked, stream, two_references), at_once):
            assert clipped_matches(batch, 4).tolist() == whole.tolist()
    expected = [[expected_matches(hyp, ref, 4)] for hyp, ref in rows]
    assert at_once[1].tolist() == expected
