"""Text batches are queued by update() and counted when a state is read: every way of reading a metric
sees every update, and the numbers are those of counting each batch at once."""

from __future__ import annotations

import pickle
import random

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from metric_states import assert_collection_as_alone, assert_same
from torchmetrics import MetricCollection

from torch_bleu import BLEUScore, CERScore, CHRFScore, ROUGEScore, TERScore, WERScore
from torch_bleu.metrics import queued_text
from torch_bleu.metrics.queued_text import QUEUE

WORDS = ["the", "cat", "sat", "on", "a", "mat", "dog", "ran", "."]
MAKERS = {
    "bleu": lambda **kw: BLEUScore(tokenize="13a", **kw),
    "chrf": lambda **kw: CHRFScore(word_order=2, **kw),
    "ter": lambda **kw: TERScore(**kw),
    "wer": lambda **kw: WERScore(**kw),
    "cer": lambda **kw: CERScore(**kw),
    "rouge": lambda **kw: ROUGEScore(rouge_types=("rouge1", "rougeL"), **kw),
}


def corpus(seed: int, size: int) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)

    def line() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 8)))

    return [line() for _ in range(size)], [line() for _ in range(size)]


@pytest.mark.parametrize("kind", sorted(MAKERS))
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10**6), cuts=st.lists(st.integers(0, 12), min_size=1, max_size=6))
def test_batches_read_every_way_count_as_one_batch(kind, seed, cuts):
    hyps, refs = corpus(seed, sum(cuts))
    weight = torch.tensor([(seed + i) % 3 for i in range(len(hyps))], dtype=torch.int64)
    expected = MAKERS[kind](keep_sentences=True)
    expected.update(hyps, refs, weight=weight, indices=torch.arange(len(hyps)))
    metric = MAKERS[kind](keep_sentences=True)
    start = 0
    for step, cut in enumerate(cuts):
        rows = slice(start, start + cut)
        metric.update(hyps[rows], refs[rows], weight=weight[rows].clone(), indices=torch.arange(start, start + cut))
        start += cut
        if step == len(cuts) // 2:  # a read in the middle counts the queue: later batches queue again
            metric.compute()
    assert_same(pickle.loads(pickle.dumps(metric)), expected)
    assert_same(metric.clone(), expected)
    assert_same(metric, expected)
    torch.testing.assert_close(metric.compute(), expected.compute(), rtol=0, atol=0)


@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_state_dict_merge_forward_and_reset_see_queued_batches(kind):
    hyps, refs = corpus(1, 30)
    whole = MAKERS[kind]()
    whole.update(hyps, refs)

    metric = MAKERS[kind]()
    for first in range(0, 20, 4):
        metric.update(hyps[first : first + 4], refs[first : first + 4])
    other = MAKERS[kind]()
    other.update(hyps[20:25], refs[20:25])
    other.update(hyps[25:], refs[25:])
    assert len(getattr(other, QUEUE)) == 5  # the second batch waits
    metric.merge_state(other)
    assert_same(metric, whole)

    metric.persistent(True)  # states in the state_dict
    restored = MAKERS[kind]()
    restored.load_state_dict(metric.state_dict())
    assert_same(restored, whole)

    stepped = MAKERS[kind]()
    stepped.update(hyps[:10], refs[:10])
    stepped.update(hyps[10:20], refs[10:20])
    batch_value = stepped(hyps[20:], refs[20:])  # forward: the batch's own value, and added to the rest
    alone = MAKERS[kind]()
    alone.update(hyps[20:], refs[20:])
    torch.testing.assert_close(batch_value, alone.compute(), rtol=0, atol=0)
    assert_same(stepped, whole)

    stepped.update(hyps[:3], refs[:3])
    stepped.reset()
    assert not getattr(stepped, QUEUE)
    assert_same(stepped, MAKERS[kind]())


def test_a_collection_with_compute_groups_sees_queued_batches():
    hyps, refs = corpus(2, 40)
    collection = MetricCollection({"a": BLEUScore(tokenize="13a"), "b": BLEUScore(tokenize="13a"), "c": WERScore()})
    for first in range(0, 40, 8):
        collection.update(hyps[first : first + 8], refs[first : first + 8])
    bleu, wer = BLEUScore(tokenize="13a"), WERScore()
    bleu.update(hyps, refs)
    wer.update(hyps, refs)
    assert_collection_as_alone(collection, bleu, wer)


def test_the_queue_is_counted_when_it_is_full(monkeypatch):
    monkeypatch.setattr(queued_text, "MOST_QUEUED", 10)
    monkeypatch.setattr("torch_bleu.metrics.base.MOST_QUEUED", 10)
    hyps, refs = corpus(3, 30)
    metric = WERScore()
    metric.update(hyps[:2], refs[:2])
    assert not getattr(metric, QUEUE)  # the first batch at once
    for first in range(2, 30, 4):
        metric.update(hyps[first : first + 4], refs[first : first + 4])
        assert len(getattr(metric, QUEUE)) < 10


def test_a_count_that_fails_keeps_the_queue(monkeypatch):
    hyps, refs = corpus(4, 12)
    metric = CHRFScore()
    metric.update(hyps[:4], refs[:4])
    metric.update(hyps[4:], refs[4:])

    def failing(*args, **kwargs):
        raise MemoryError("no room")

    with monkeypatch.context() as patched:
        patched.setattr(metric, "sentence_statistics", failing)
        with pytest.raises(MemoryError):
            metric.compute()
    assert len(getattr(metric, QUEUE)) == 8
    expected = CHRFScore()
    expected.update(hyps, refs)
    assert metric.compute() == expected.compute()


def test_bad_batches_are_refused_at_update_and_leave_the_queue():
    metric = TERScore()
    metric.update(["a b"], ["a b"])
    metric.update(["a c"], ["a b"])
    with pytest.raises(ValueError, match="at most 16 references"):
        metric.update(["a"], [["a"] * 17])
    with pytest.raises(ValueError, match="weight must not be negative"):
        metric.update(["a"], ["a"], weight=torch.tensor([-1]))
    with pytest.raises(ValueError, match="batch sizes differ"):
        metric.update(["a", "b"], ["a"])
    assert len(getattr(metric, QUEUE)) == 1
    expected = TERScore()
    expected.update(["a b", "a c"], ["a b", "a b"])
    assert metric.compute() == expected.compute()


def test_a_reused_weight_tensor_counts_as_it_was_at_update():
    metric = BLEUScore(tokenize="13a")
    weight = torch.tensor([1, 1])
    metric.update(["a b c d", "e f g h"], ["a b c d", "e f g h"], weight=weight)
    metric.update(["a b c d", "x y z w"], ["a b c d", "e f g h"], weight=weight)
    weight.zero_()  # the caller's buffer, reused
    expected = BLEUScore(tokenize="13a")
    expected.update(["a b c d", "e f g h", "a b c d", "x y z w"], ["a b c d", "e f g h"] * 2)
    assert metric.compute() == expected.compute()


@pytest.mark.parametrize(
    "make", [lambda: BLEUScore(tokenize="13a"), CHRFScore, WERScore], ids=["BLEUScore", "CHRFScore", "WERScore"]
)
def test_a_queue_counted_in_parts_gives_the_states_of_one_batch(monkeypatch, make):
    hyps, refs = corpus(5, 40)
    metric = make()
    monkeypatch.setattr(type(metric), "text_part", 7)
    for first in range(0, 40, 8):
        metric.update(hyps[first : first + 8], refs[first : first + 8])
    metric.update(hyps, refs)  # a batch larger than a part
    expected = make()
    expected.update(hyps + hyps, refs + refs)
    assert_same(metric, expected)
