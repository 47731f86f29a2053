"""Negative ids are never token ids: every metric and function that takes ids drops them, as if in ``ignore_ids``.

Hugging Face pads ``labels`` with -100. Rows with negative ids anywhere (padding, or in the middle of a
row) give the numbers of the same rows with those ids stripped: on the host, through the device path
(tensors that are not read back), and on ``meta``.
"""

from __future__ import annotations

from unittest import mock

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from torch_bleu import (
    BLEUScore,
    CERScore,
    CHRFScore,
    Detokenizer,
    SentenceReward,
    TERScore,
    WERScore,
    aggregate_bleu,
    arrays,
    corpus_bleu,
    corpus_chrf,
    corpus_ter,
    corpus_wer,
    pairwise_bleu,
    pairwise_chrf,
    self_bleu,
    sentence_bleu,
)

#: A word per id (id 0 decodes to nothing), for the metrics that score decoded text.
WORDS = Detokenizer(tuple(b"" if index == 0 else f" w{index % 7}".encode() for index in range(12)), "per_byte")
PAD = 0

rows_of_ids = st.lists(st.lists(st.integers(1, 11), min_size=0, max_size=9), min_size=1, max_size=5)
negatives = st.sampled_from([-100, -1, -(2**63)])


def _padded(rows: list[list[int]], fill: int, width: int | None = None) -> torch.Tensor:
    width = max(map(len, rows), default=0) + 2 if width is None else width
    padded = [row + [fill] * (width - len(row)) for row in rows]
    return torch.tensor(padded, dtype=torch.int64).reshape(len(rows), width)


def _with_negatives(
    rows: list[list[int]], negative: int, data: st.DataObject, width: int | None = None
) -> torch.Tensor:
    """``rows`` padded with ``negative`` (to ``width``), with up to 2 more negative ids inserted in each."""
    spiked = []
    for row in rows:
        row = list(row)
        for _ in range(data.draw(st.integers(0, 2))):
            row.insert(data.draw(st.integers(0, len(row))), negative)
        spiked.append(row)
    return _padded(spiked, negative, width)


def _pairs(data: st.DataObject) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Hypotheses and references: with negative ids, and the same stripped (padded with ``PAD``)."""
    hypotheses = data.draw(rows_of_ids)
    # a reference of one word at least: CERScore of decoded ids takes no batch whose text is all empty
    references = data.draw(st.lists(st.lists(st.integers(1, 11), min_size=1, max_size=9), min_size=len(hypotheses)))
    references = references[: len(hypotheses)]
    negative = data.draw(negatives)
    spiked = (_with_negatives(hypotheses, negative, data), _with_negatives(references, negative, data))
    return (*spiked, _padded(hypotheses, PAD), _padded(references, PAD))


ID_METRICS = {
    "bleu": (BLEUScore, {"smoothing": "exp"}),
    "chrf": (CHRFScore, {"detokenizer": WORDS}),
    "ter": (TERScore, {"detokenizer": WORDS}),
    "wer": (WERScore, {}),
    "cer": (CERScore, {"detokenizer": WORDS}),
    "wer of decoded ids": (WERScore, {"detokenizer": WORDS}),
}


@pytest.mark.parametrize("path", ["host", "device"])
@pytest.mark.parametrize("name", list(ID_METRICS))
@settings(max_examples=6, deadline=None)
@given(data=st.data())
def test_metrics_count_negative_ids_as_if_stripped(name, path, data):
    """On the host (CPU tensors read freely) and on the device path (sizes from shapes alone, as on a GPU)."""
    metric_class, options = ID_METRICS[name]
    preds, target, stripped_preds, stripped_target = _pairs(data)
    spiked, stripped = metric_class(**options), metric_class(ignore_ids=[PAD], **options)
    with mock.patch.object(arrays, "SIZES_FROM_DATA_ON_CPU", path == "host"):
        spiked.update(preds, target)
    stripped.update(stripped_preds, stripped_target)
    for state in spiked.state_names:
        assert torch.equal(getattr(spiked, state), getattr(stripped, state)), state
    assert torch.equal(spiked.compute(), stripped.compute())


@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_functions_score_negative_ids_as_if_stripped(data):
    preds, target, stripped_preds, stripped_target = _pairs(data)
    pairs = {"bleu": corpus_bleu, "chrf": corpus_chrf, "ter": corpus_ter, "wer": corpus_wer}
    for name, function in pairs.items():
        options = {} if name in ("bleu", "wer") else {"detokenizer": WORDS}
        ours = function(preds, target, **options)
        assert torch.equal(ours, function(stripped_preds, stripped_target, ignore_ids=[PAD], **options)), name
    sentences = sentence_bleu(preds, target, smoothing="add-k")
    assert torch.equal(sentences, sentence_bleu(stripped_preds, stripped_target, smoothing="add-k", ignore_ids=[PAD]))


def test_hugging_face_labels_padded_with_minus_100_score_a_perfect_prediction_1():
    preds = torch.tensor([[5, 6, 7, 8, 9, 0, 0]])
    labels = torch.tensor([[5, 6, 7, 8, 9, -100, -100]])
    metric = BLEUScore(ignore_ids=[0])
    metric.update(preds, labels)
    assert metric.compute().item() == 1.0
    assert corpus_bleu(preds.tolist(), [[labels[0].tolist()]], ignore_ids=[0]).item() == 1.0  # ragged lists too


@settings(max_examples=6, deadline=None)
@given(data=st.data())
def test_pairwise_functions_and_self_bleu_drop_negative_ids(data):
    candidates = data.draw(st.lists(rows_of_ids, min_size=1, max_size=3))
    negative = data.draw(negatives)
    sources = _as_many_each(candidates)
    spiked = torch.stack([_with_negatives(rows, negative, data, width=12) for rows in sources])
    stripped = torch.stack([_padded(rows, PAD, width=12) for rows in sources])
    _same(pairwise_bleu(spiked, max_order=2), pairwise_bleu(stripped, max_order=2, ignore_ids=[PAD]))
    _same(pairwise_chrf(spiked, detokenizer=WORDS), pairwise_chrf(stripped, detokenizer=WORDS, ignore_ids=[PAD]))
    _same(aggregate_bleu(spiked), aggregate_bleu(stripped, ignore_ids=[PAD]))
    for mode in ("pairs", "others"):  # NaN for a source of one candidate
        _same(self_bleu(spiked, mode=mode), self_bleu(stripped, mode=mode, ignore_ids=[PAD]))


def _same(ours: torch.Tensor, stripped: torch.Tensor) -> None:
    torch.testing.assert_close(ours, stripped, rtol=0, atol=0, equal_nan=True)


def _as_many_each(sources: list[list[list[int]]]) -> list[list[list[int]]]:
    """Each source's candidates, as many for every source (the first ones repeated)."""
    count = max(map(len, sources))
    return [(rows * count)[:count] for rows in sources]


def test_rewards_from_ids_drop_negative_ids():
    reward = SentenceReward("chrf", detokenizer=WORDS)
    ids = [[3, 4, -100, 5], [6, -1]]
    references = ["w3 w4 w5", "w6"]
    assert reward(completion_ids=ids, reference=references) == reward(
        completion_ids=[[3, 4, 5], [6]], reference=references
    )


def test_a_detokenizer_never_looks_up_a_negative_id():
    """On the CPU an id outside the vocabulary is refused (on an accelerator by a device-side assert, which ends
    the process's CUDA); a negative one is dropped instead."""
    with pytest.raises(ValueError, match="outside the detokenizer's vocabulary"):
        corpus_chrf(torch.tensor([[3, 12]], device="cpu"), ["w3"], detokenizer=WORDS)
    assert corpus_chrf(torch.tensor([[3, -12]]), ["w3"], detokenizer=WORDS).item() == 1.0


@pytest.mark.parametrize("name", list(ID_METRICS))
def test_update_on_meta_takes_negative_ids(name):
    metric_class, options = ID_METRICS[name]
    metric = metric_class(**options).to("meta")
    metric.update(torch.tensor([[3, -100, 4]], device="meta"), torch.tensor([[3, 4, -100]], device="meta"))
    assert all(getattr(metric, state).device.type == "meta" for state in metric.state_names)
