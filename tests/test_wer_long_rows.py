"""WER and CER of long rows against jiwer 4: past about 2**22 matrix cells rapidfuzz cuts a pair in two
(Hirschberg) and its choice among alignments of equal cost changes; the counts must still be jiwer's,
on the host (rapidfuzz itself) and on the device path (the cuts emulated level by level, here on CPU
tensors with static sizes). Also: what the device path allocates follows each side's own width.

By default: the 2048-character example (both paths), WMT17 documents on the host, the static number of
levels; ``--slow`` adds random long pairs (similar and unrelated, cut up to three times) on the device
path and WMT17 documents there.
"""

from __future__ import annotations

import random

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import jiwer_counts
from shared_data import WMT17

from torch_bleu import CERScore, WERScore, arrays, character_error_counts, word_error_counts
from torch_bleu.metrics.wer import device_alignment as alignment
from torch_bleu.metrics.wer import device_splits as splits

jiwer = pytest.importorskip("jiwer")

SIZE_MODES = ["sizes from data", "static sizes"]


@pytest.fixture(params=SIZE_MODES)
def sizes(request, monkeypatch):
    """Counted on the host (rapidfuzz) and as on an accelerator (PyTorch, sizes from shapes only)."""
    monkeypatch.setattr(arrays, "SIZES_FROM_DATA_ON_CPU", request.param == "sizes from data")
    return request.param


@pytest.fixture
def device_path(monkeypatch):
    monkeypatch.setattr(arrays, "SIZES_FROM_DATA_ON_CPU", False)


def as_ids(texts: list[str]) -> tuple[torch.Tensor, torch.Tensor]:
    """Code points as padded id rows (0 pads; no text here holds it) and their lengths."""
    width = max(map(len, texts))
    rows = torch.tensor([[ord(char) for char in text] + [0] * (width - len(text)) for text in texts])
    return rows.reshape(len(texts), width), torch.tensor([len(text) for text in texts])


def check_characters(pairs: list[tuple[str, str]]) -> None:
    """The counts of ``(hypothesis, reference)`` pairs, as strings and as rows of ids, against jiwer's."""
    expected = [jiwer_counts(hypothesis, reference, True) for hypothesis, reference in pairs]
    hypotheses, references = [h for h, _ in pairs], [r for _, r in pairs]
    assert character_error_counts(hypotheses, references).tolist() == expected
    (preds, _), (target, _) = as_ids(hypotheses), as_ids(references)
    assert character_error_counts(preds, target, ignore_ids=[0]).tolist() == expected


def random_text(rng: random.Random, length: int, alphabet: str) -> str:
    return "".join(rng.choice(alphabet) for _ in range(length))


def edited(rng: random.Random, text: str, edits: int, alphabet: str) -> str:
    """``text`` with ``edits`` random substitutions, deletions and insertions."""
    chars = list(text)
    for _ in range(edits):
        position, kind = rng.randrange(max(len(chars), 1)), rng.randrange(3)
        if kind == 0 and chars:
            chars[position] = rng.choice(alphabet)
        elif kind == 1 and chars:
            del chars[position]
        else:
            chars.insert(position, rng.choice(alphabet))
    return "".join(chars)


def test_the_2048_character_example_is_counted_as_jiwer_counts_it(sizes):
    """Two random 2048-character strings over "abcd": rapidfuzz cuts them once (2048 * 2048 = 2**22
    cells), and its counts differ from those of one whole matrix ([1218, 586, 244, 244])."""
    rng = random.Random(7)
    first, second = random_text(rng, 2048, "abcd"), random_text(rng, 2048, "abcd")
    assert jiwer_counts(first, second, True) == [1217, 588, 243, 243]
    check_characters([(first, second), (second, first)])


def test_levels_follow_the_widths_only():
    assert [splits.levels(width, width) for width in (2047, 2048, 4095, 4096, 16000)] == [0, 1, 2, 3, 6]
    assert splits.levels(64, 10**6) == 0  # too few reference tokens to cut
    assert splits.levels(10**6, 9) == 0  # too few hypothesis tokens


def test_rows_past_the_cut_run_on_meta():
    metric = CERScore().to("meta")
    assert splits.levels(65, 64528) == 1
    metric.update(
        torch.zeros((2, 64528), dtype=torch.long, device="meta"), torch.zeros((2, 65), dtype=torch.long, device="meta")
    )
    assert metric.hits.device.type == "meta"


@pytest.mark.slow
@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    seed=st.integers(0, 2**32 - 1),
    shortest=st.sampled_from([1900, 2048, 3000]),
    alphabet=st.sampled_from(["ab", "abcd", "abcdefghij", "abcdefghijklmnopqrstuvwxyz"]),
)
def test_long_pairs_are_counted_as_jiwer_counts_them(device_path, seed, shortest, alphabet):
    """A batch of long pairs of lengths around the cut, similar (few edits: a narrow band) and unrelated."""
    rng = random.Random(seed)
    pairs = []
    for _ in range(3):
        hypothesis = random_text(rng, rng.randint(shortest, shortest + 1200), alphabet)
        if rng.random() < 0.6:
            reference = edited(rng, hypothesis, rng.randint(1, 600), alphabet)
        else:
            reference = random_text(rng, rng.randint(shortest, shortest + 1200), alphabet)
        pairs.append((hypothesis, reference))
    check_characters(pairs)


def wmt17_documents(lines: int, documents: int) -> tuple[list[str], list[str]]:
    """The first ``documents`` runs of ``lines`` lines of a WMT17 system and of the reference, each joined."""
    reference = (WMT17 / "newstest2017.ref.de").read_text(encoding="utf-8").splitlines()
    system = sorted(WMT17.glob("sys.*.de"))[0].read_text(encoding="utf-8").splitlines()
    spans = [range(start, start + lines) for start in range(0, lines * documents, lines)]
    return [" ".join(system[i] for i in span) for span in spans], [
        " ".join(reference[i] for i in span) for span in spans
    ]


@pytest.mark.skipif(not WMT17.is_dir(), reason="no WMT17 data beside this checkout (../shared/data)")
def test_wmt17_documents_are_counted_as_jiwer_counts_them():
    hypotheses, references = wmt17_documents(30, 8)
    for count, characters in ((character_error_counts, True), (word_error_counts, False)):
        expected = [jiwer_counts(h, r, characters) for h, r in zip(hypotheses, references)]
        assert count(hypotheses, references).tolist() == expected


@pytest.mark.slow
@pytest.mark.skipif(not WMT17.is_dir(), reason="no WMT17 data beside this checkout (../shared/data)")
def test_wmt17_documents_on_the_device_path_are_counted_as_jiwer_counts_them(device_path):
    hypotheses, references = wmt17_documents(30, 2)
    assert max(map(len, hypotheses + references)) > 2048  # long enough to be cut
    check_characters(list(zip(hypotheses, references)))


def test_the_device_path_allocates_by_each_sides_width(device_path, monkeypatch):
    """32 pairs of 30-id references and hypotheses padded to 1000 ids: matrices of 32 x 31 x 1001 cells,
    not 32 x 1001 x 1001."""
    shapes = []

    def recorded(changed, ref_lengths):
        shapes.append(tuple(changed.shape))
        return distances(changed, ref_lengths)

    distances = alignment.distances
    monkeypatch.setattr(alignment, "distances", recorded)
    monkeypatch.setattr(splits, "distances", recorded)
    preds = torch.randint(3, 9, (32, 1000))
    target = torch.randint(3, 9, (32, 30))
    metric = WERScore(ignore_ids=[0])
    metric.update(preds, target)
    assert shapes == [(30, 1000, 32)]
    hypotheses = [" ".join(map(str, row)) for row in preds.tolist()]
    references = [" ".join(map(str, row)) for row in target.tolist()]
    assert metric.compute().item() == jiwer.wer(references, hypotheses)
