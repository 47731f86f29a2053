"""Batches of ids are queued by update() and counted when a state is read or the queue is full: every way
of reading a metric sees every update, and the numbers are those of one batch, of each batch counted at
once, and of the other path (sizes from data on the host, sizes from shapes as on an accelerator)."""

from __future__ import annotations

import pickle
import random

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from metric_states import assert_collection_as_alone, assert_same, states
from torchmetrics import MetricCollection

from torch_bleu import BLEUScore, CERScore, CHRFScore, Detokenizer, ROUGEScore, TERScore, WERScore, arrays
from torch_bleu.metrics import queued_text
from torch_bleu.metrics.queued_text import QUEUE

#: Subword ids of words: id 0 decodes to nothing (and is ignored), id 1 ends a row, ids 2-11 are words.
WORDS = Detokenizer(tuple(b"" if index < 2 else f" w{index % 7}".encode() for index in range(12)), "per_byte")
VOCABULARY = 12
PAD, EOS = 0, 1
#: Each metric that takes ids, and the most references a sentence may have.
MAKERS = {
    "bleu": (lambda **kw: BLEUScore(ignore_ids=[PAD], eos_id=EOS, **kw), 3),
    "bleu-subwords": (lambda **kw: BLEUScore(ignore_ids=[PAD], detokenizer=WORDS, **kw), 3),
    "chrf-subwords": (lambda **kw: CHRFScore(ignore_ids=[PAD], word_order=2, detokenizer=WORDS, **kw), 3),
    "ter-subwords": (lambda **kw: TERScore(ignore_ids=[PAD], detokenizer=WORDS, **kw), 3),
    "wer": (lambda **kw: WERScore(ignore_ids=[PAD], eos_id=EOS, **kw), 1),
    "cer": (lambda **kw: CERScore(ignore_ids=[PAD], **kw), 1),
    "wer-subwords": (lambda **kw: WERScore(ignore_ids=[PAD], detokenizer=WORDS, **kw), 1),
    "rouge": (lambda **kw: ROUGEScore(ignore_ids=[PAD], eos_id=EOS, rouge_types=("rouge1", "rougeL"), **kw), 3),
    "rouge-subwords": (
        lambda **kw: ROUGEScore(ignore_ids=[PAD], detokenizer=WORDS, rouge_types=("rouge2", "rougeL"), **kw),
        3,
    ),
}
KINDS = sorted(MAKERS)


@pytest.fixture(params=["sizes from data", "sizes from shapes"], autouse=True)
def sizes(request, monkeypatch):
    """CPU tensors counted on the host (NumPy, sizes from their data), and as on an accelerator (PyTorch,
    sizes from shapes only)."""
    monkeypatch.setattr(arrays, "SIZES_FROM_DATA_ON_CPU", request.param == "sizes from data")
    return request.param


def make(kind: str, **options):
    return MAKERS[kind][0](**options)


def on_the_other_path(make_metric, monkeypatch):
    """A metric made, updated and read with sizes from data where they are from shapes, and the other way."""
    with monkeypatch.context() as patched:
        patched.setattr(arrays, "SIZES_FROM_DATA_ON_CPU", not arrays.SIZES_FROM_DATA_ON_CPU)
        return make_metric()


Batch = tuple[torch.Tensor, torch.Tensor]


def random_batch(rng: random.Random, size: int, references: int) -> Batch:
    """``size`` sentences of random ids, padded with PAD to widths of their own, with 1 to ``references``
    references each (rows of PAD where a sentence has fewer)."""
    preds_width, target_width = rng.randint(0, 12), rng.randint(0, 12)
    refs = rng.randint(1, references)

    def row(width: int) -> list[int]:
        length = rng.randint(0, width)
        return [rng.randrange(1, VOCABULARY) for _ in range(length)] + [PAD] * (width - length)

    preds = torch.tensor([row(preds_width) for _ in range(size)], dtype=torch.int64).reshape(size, preds_width)
    target = torch.tensor([[row(target_width) for _ in range(refs)] for _ in range(size)], dtype=torch.int64).reshape(
        size, refs, target_width
    )
    return preds, target if references > 1 else target[:, 0]


def joined(batches: list[Batch]) -> Batch:
    """The batches as one, padded with PAD (ignored ids) and empty references."""
    preds_width = max(preds.shape[-1] for preds, _ in batches)
    width = max(target.shape[-1] for _, target in batches)
    refs = max(1 if target.dim() == 2 else target.shape[1] for _, target in batches)
    preds = torch.cat([torch.nn.functional.pad(preds, (0, preds_width - preds.shape[-1])) for preds, _ in batches])
    targets = [target[:, None] if target.dim() == 2 else target for _, target in batches]
    target = torch.cat([torch.nn.functional.pad(t, (0, width - t.shape[-1], 0, refs - t.shape[1])) for t in targets])
    return preds, target if batches[0][1].dim() == 3 else target[:, 0]


def queued(metric) -> int:
    return len(metric.__dict__[QUEUE])


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=24, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6), sizes=st.lists(st.integers(0, 9), min_size=1, max_size=7))
def test_small_batches_equal_one_batch_and_each_at_once_read_every_way(kind, seed, sizes, monkeypatch):
    rng = random.Random(seed)
    batches = [random_batch(rng, size, MAKERS[kind][1]) for size in sizes]
    weights = [torch.tensor([rng.randrange(3) for _ in range(size)], dtype=torch.uint8) for size in sizes]
    starts = [sum(sizes[:index]) for index in range(len(sizes))]
    indices = [torch.arange(start, start + size) for start, size in zip(starts, sizes)]

    def updated(metric, middle_read: bool = False, each_at_once: bool = False):
        for step, ((preds, target), weight, rows) in enumerate(zip(batches, weights, indices)):
            metric.update(preds, target, weight=weight, indices=rows)
            if middle_read and step == len(batches) // 2:  # a read counts the queue: later batches queue again
                metric.compute()
            if each_at_once:
                metric.count_queued()
        return metric

    metric = updated(make(kind, keep_sentences=True), middle_read=True)
    assert queued(metric) == sum(sizes[1 + len(sizes) // 2 :])  # the first batch at once, the rest queued
    whole = make(kind, keep_sentences=True)
    whole.update(*joined(batches), weight=torch.cat(weights), indices=torch.cat(indices))
    at_once = updated(make(kind, keep_sentences=True), each_at_once=True)
    assert_same(pickle.loads(pickle.dumps(metric)), whole)
    assert_same(metric.clone(), whole)
    assert_same(metric, whole)
    assert_same(metric, at_once)
    assert queued(metric) == 0
    assert str(metric.compute()) == str(whole.compute())


def ragged(batch: Batch, rng: random.Random, strings: bool) -> tuple[list, list]:
    """A batch as lists: each hypothesis's ids, and per hypothesis its references (some dropped), as lists
    of ids or, beside subword ids, as the strings they decode to."""
    preds, target = batch
    target = target[:, None] if target.dim() == 2 else target
    hypotheses = [[token for token in row.tolist() if token != PAD] for row in preds]
    references = []
    for rows in target:
        kept = [[token for token in row.tolist() if token != PAD] for row in rows][: rng.randint(1, rows.shape[0])]
        references.append(
            ["".join(f" w{token % 7}" for token in row if token > 1) for row in kept] if strings else kept
        )
    return hypotheses, references


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=24, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    seed=st.integers(0, 10**6),
    layouts=st.lists(st.tuples(st.integers(0, 6), st.sampled_from(["tensors", "lists", "strings"])), max_size=7),
)
def test_batches_of_every_layout_equal_each_at_once_and_the_other_path(kind, seed, layouts, monkeypatch):
    rng = random.Random(seed)
    batches: list[tuple] = []
    for size, layout in layouts:
        batch = random_batch(rng, size, MAKERS[kind][1])
        subwords = kind.endswith("subwords")
        batches.append(
            batch if layout == "tensors" or size == 0 else ragged(batch, rng, subwords and layout == "strings")
        )

    def updated(metric, each_at_once: bool = False):
        for batch in batches:
            metric.update(*batch)
            if each_at_once:
                metric.count_queued()
        return metric

    metric = updated(make(kind, keep_sentences=True))
    assert_same(metric, updated(make(kind, keep_sentences=True), each_at_once=True))
    assert_same(metric, on_the_other_path(lambda: updated(make(kind, keep_sentences=True)), monkeypatch))


@pytest.mark.parametrize("kind", KINDS)
def test_state_dict_merge_forward_sync_and_reset_see_queued_batches(kind, monkeypatch):
    rng = random.Random(kind)
    batches = [random_batch(rng, 4, MAKERS[kind][1]) for _ in range(6)]
    whole = make(kind)
    for batch in batches:
        whole.update(*batch)
    whole.count_queued()

    metric = make(kind)
    for batch in batches[:4]:
        metric.update(*batch)
    other = make(kind)
    for batch in batches[4:]:
        other.update(*batch)
    assert queued(other) == 4  # the second batch waits
    metric.merge_state(other)
    assert_same(metric, whole)

    metric.persistent(True)  # states in the state_dict
    restored = make(kind)
    restored.load_state_dict(metric.state_dict())
    assert_same(restored, whole)

    stepped = make(kind)
    for batch in batches[:5]:
        stepped.update(*batch)
    batch_value = stepped(*batches[5])  # forward: the batch's own value, and added to the rest
    alone = make(kind)
    alone.update(*batches[5])
    assert str(batch_value) == str(alone.compute())
    assert_same(stepped, whole)

    synced, other_rank = make(kind, sync_on_compute=False), make(kind)
    for batch in batches[:3]:
        synced.update(*batch)
    for batch in batches[3:]:
        other_rank.update(*batch)
    names = {id(value): name for name, value in synced.__dict__.items() if isinstance(value, torch.Tensor)}

    def gather(state, group=None):  # a second rank; the state read from the metric's dict, counted
        return [state, getattr(other_rank, names[id(state)])]

    assert queued(synced) == 8
    synced.sync(dist_sync_fn=gather, distributed_available=lambda: True)
    assert_same(synced, whole)

    stepped.update(*batches[0])
    stepped.update(*batches[1])
    assert queued(stepped) == 8
    stepped.reset()
    assert queued(stepped) == 0
    assert_same(stepped, make(kind))


def test_reading_a_state_or_moving_a_metric_counts_its_queue_first():
    rng = random.Random(5)
    batches = [random_batch(rng, 3, 1) for _ in range(3)]
    metric, expected = WERScore(ignore_ids=[PAD]), WERScore(ignore_ids=[PAD])
    for batch in batches:
        metric.update(*batch)
        expected.update(*batch)
    assert queued(metric) == 6
    read = metric.clone()
    assert int(read.hits) == int(expected.hits)  # a user's metric.<state>
    assert queued(read) == 0
    moved = metric.to(torch.float64)  # torchmetrics' _apply reads every state
    assert queued(moved) == 0
    assert_same(moved, expected)
    assert int(metric.hits) == int(expected.hits)


def test_a_collection_with_compute_groups_sees_queued_batches():
    rng = random.Random(2)
    batches = [random_batch(rng, 8, 1) for _ in range(5)]
    collection = MetricCollection(
        {"a": BLEUScore(ignore_ids=[PAD]), "b": BLEUScore(ignore_ids=[PAD]), "c": WERScore(ignore_ids=[PAD])}
    )
    for batch in batches:
        collection.update(*batch)
    bleu, wer = BLEUScore(ignore_ids=[PAD]), WERScore(ignore_ids=[PAD])
    bleu.update(*joined(batches))
    wer.update(*joined(batches))
    assert_collection_as_alone(collection, bleu, wer)


def test_the_queue_is_counted_when_it_is_full(monkeypatch):
    monkeypatch.setattr(queued_text, "MOST_QUEUED", 10)
    monkeypatch.setattr("torch_bleu.metrics.base.MOST_QUEUED", 10)
    rng = random.Random(3)
    metric = ROUGEScore(ignore_ids=[PAD])
    metric.update(*random_batch(rng, 2, 2))
    assert queued(metric) == 0  # the first batch at once
    for _ in range(8):
        metric.update(*random_batch(rng, 4, 2))
        assert queued(metric) < 10


def test_a_count_that_fails_keeps_the_queue(monkeypatch):
    rng = random.Random(4)
    batches = [random_batch(rng, 4, 2) for _ in range(3)]
    metric = CHRFScore(detokenizer=WORDS)
    for batch in batches:
        metric.update(*batch)

    def failing(*args, **kwargs):
        raise MemoryError("no room")

    with monkeypatch.context() as patched:
        patched.setattr(metric, "ids_statistics", failing)
        with pytest.raises(MemoryError):
            metric.compute()
    assert queued(metric) == 8
    expected = CHRFScore(detokenizer=WORDS)
    expected.update(*joined(batches))
    assert metric.compute() == expected.compute()


ONES = torch.ones(2, 3, dtype=torch.int64)


@pytest.mark.parametrize(
    ("kind", "preds", "target", "options", "message"),
    [
        ("wer", ONES, ONES[:, None].expand(2, 2, 3), {}, "one reference per hypothesis"),
        ("wer", ONES, ONES, {"weight": torch.tensor([1, -1])}, "negative"),  # off the CPU: signed, so refused
        ("wer", ONES, ONES[:1], {}, "batch sizes differ"),
        ("wer", ONES.float(), ONES, {}, "integer token ids"),
        ("bleu", ONES, ONES, {"indices": torch.tensor([0.0, 1.0])}, "indices"),
        # refused at once on the CPU only (an accelerator asserts it on the device, which ends its CUDA)
        ("bleu-subwords", ONES.cpu() * 40, ONES.cpu(), {}, "outside the detokenizer's vocabulary"),
    ],
)
def test_bad_batches_are_refused_at_update_and_leave_the_queue(kind, preds, target, options, message):
    rng = random.Random(6)
    good = [random_batch(rng, 2, MAKERS[kind][1]) for _ in range(2)]
    metric = make(kind)
    for batch in good:
        metric.update(*batch)
    assert queued(metric) == 2
    with pytest.raises((ValueError, TypeError), match=message):
        metric.update(preds, target, **options)
    assert queued(metric) == 2
    expected = make(kind)
    expected.update(*joined(good))
    assert_same(metric, expected)


def test_rouge_refuses_text_options_for_plain_ids_at_update():
    metric = ROUGEScore(tokenize="char")
    with pytest.raises(ValueError, match="tokenize='char'"):
        metric.update(torch.ones(1, 2, dtype=torch.int64), torch.ones(1, 2, dtype=torch.int64))
    assert queued(metric) == 0


def test_reused_buffers_count_as_they_were_at_update():
    metric, expected = BLEUScore(), BLEUScore()
    preds, target, weight = torch.tensor([[5, 6, 7, 8]]), torch.tensor([[5, 6, 7, 8]]), torch.tensor([2])
    metric.update(preds, target, weight=weight)
    metric.update(preds, target, weight=weight)
    preds.fill_(9)  # the caller's buffers, reused
    weight.zero_()
    expected.update(torch.tensor([[5, 6, 7, 8]] * 2), torch.tensor([[5, 6, 7, 8]] * 2), weight=torch.tensor([2, 2]))
    assert_same(metric, expected)


def test_text_and_ids_keep_the_order_of_their_updates():
    rng = random.Random(7)
    metric = WERScore(keep_sentences=True)
    expected = WERScore(keep_sentences=True)
    for step in range(6):
        if step % 3 == 2:
            batch: tuple = (["a b c", "d e"], ["a c", "d e f"])
        else:
            batch = random_batch(rng, 3, 1)
        metric.update(*batch)
        expected.update(*batch)
        expected.count_queued()
    assert_same(metric, expected)


def test_long_and_short_batches_are_counted_in_groups_in_update_order():
    rng = random.Random(8)
    metric, expected = WERScore(keep_sentences=True), WERScore(keep_sentences=True)
    for width in (3, 60, 4, 2, 100, 5):
        preds = torch.tensor([[rng.randrange(1, VOCABULARY) for _ in range(width)] for _ in range(2)])
        target = preds[:, : rng.randint(1, width)].flip(1)
        metric.update(preds, target)
        expected.update(preds, target)
        expected.count_queued()
    assert queued(metric) == 10
    assert_same(metric, expected)


def test_ids_queue_and_count_on_the_meta_device():
    for kind in ("bleu", "wer", "rouge"):
        metric = make(kind).to("meta")
        for width in (5, 9, 40):
            preds = torch.empty(4, width, dtype=torch.int64, device="meta")
            target = torch.empty(4, 2, width, dtype=torch.int64, device="meta")
            metric.update(preds, target[:, 0] if kind == "wer" else target)
        assert queued(metric) == 8
        assert all(state.device.type == "meta" for state in states(metric).values())
        assert queued(metric) == 0


def test_compiled_bleu_and_ter_with_many_references_count_each_batch_at_once():
    compiled = BLEUScore(compile={"backend": "eager"})
    for _ in range(2):
        compiled.update(torch.tensor([[5, 6, 7]]), torch.tensor([[5, 6, 8]]))
    assert queued(compiled) == 0
    ter = make("ter-subwords")
    for _ in range(2):
        ter.update(torch.tensor([[5, 6, 7]]), torch.nn.functional.pad(torch.tensor([[[3, 4]]]), (0, 0, 0, 16)))
    assert queued(ter) == 0
