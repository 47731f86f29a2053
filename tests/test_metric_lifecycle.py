"""The life of a ``BLEUScore``: checkpoints mid-evaluation, merging, reset, forward, collections,
per-row weights, and integer states that stay exact past 2**31 and 2**53."""

from __future__ import annotations

import io
import warnings

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import Draws
from torchmetrics import MetricCollection

from torch_bleu import BLEUScore, corpus_bleu

sacrebleu = pytest.importorskip("sacrebleu")

PAD = 0
STATE_NAMES = ("numerator", "denominator", "preds_len", "target_len")
Batch = tuple[torch.Tensor, torch.Tensor]


def random_batches(seed: int, count: int = 6, vocabulary: int = 6) -> list[Batch]:
    """Right-padded batches of varying size and width, two references each, some rows empty."""
    draws = Draws(seed)
    batches = []
    for _ in range(count):
        size = int(draws.randint(1, 6, ()))
        width = int(draws.randint(1, 12, ()))
        preds = draws.randint(1, vocabulary, (size, width))
        target = draws.randint(1, vocabulary, (size, 2, width + 2))
        preds_len = draws.randint(0, width + 1, (size, 1))
        target_len = draws.randint(0, width + 3, (size, 2, 1))
        preds = preds.masked_fill(torch.arange(width) >= preds_len, PAD)
        target = target.masked_fill(torch.arange(width + 2) >= target_len, PAD)
        batches.append((preds, target))
    return batches


def listed(states: dict[str, torch.Tensor]) -> dict[str, list[int]]:
    return {name: states[name].reshape(-1).tolist() for name in STATE_NAMES}


def states_of(metric: BLEUScore) -> dict[str, list[int]]:
    return listed(metric.metric_state)


def evaluated(batches: list[Batch], **options) -> BLEUScore:
    metric = BLEUScore(ignore_ids=[PAD], **options)
    for preds, target in batches:
        metric.update(preds, target)
    return metric


def state_dict_of(matches, totals, preds_len, target_len, dtype=torch.int64) -> dict[str, torch.Tensor]:
    states = zip(STATE_NAMES, (matches, totals, preds_len, target_len))
    return {name: torch.tensor(value, dtype=dtype) for name, value in states}


# --- checkpoints ---------------------------------------------------------------------------------


def test_a_checkpoint_taken_mid_evaluation_resumes_to_the_same_score():
    batches = random_batches(seed=1)
    uninterrupted = evaluated(batches)

    first_half = evaluated(batches[:3])
    first_half.persistent(True)
    buffer = io.BytesIO()
    torch.save(first_half.state_dict(), buffer)
    buffer.seek(0)

    resumed = BLEUScore(ignore_ids=[PAD])
    resumed.load_state_dict(torch.load(buffer))
    assert states_of(resumed) == states_of(first_half)
    for preds, target in batches[3:]:
        resumed.update(preds, target)
    assert states_of(resumed) == states_of(uninterrupted)
    assert resumed.compute().item() == uninterrupted.compute().item()


def test_states_stay_out_of_a_models_state_dict_unless_made_persistent():
    model = torch.nn.ModuleDict({"bleu": evaluated(random_batches(seed=2))})
    assert not any(key.startswith("bleu.") for key in model.state_dict())  # torchmetrics' default

    model["bleu"].persistent(True)
    saved = model.state_dict()
    saved_names = {key.removeprefix("bleu.") for key in saved if key.startswith("bleu.")}
    assert saved_names == {*STATE_NAMES, "counted_with"}
    assert all(saved[f"bleu.{name}"].dtype == torch.int64 for name in saved_names)

    restored = torch.nn.ModuleDict({"bleu": BLEUScore(ignore_ids=[PAD])})  # not persistent: loads anyway
    restored.load_state_dict(saved)
    assert states_of(restored["bleu"]) == states_of(model["bleu"])


def test_load_state_dict_copies_and_checks_the_saved_states():
    saved = state_dict_of([4, 3, 2, 1], [5, 4, 3, 2], preds_len=5, target_len=6)
    kept = {name: value.clone() for name, value in saved.items()}
    metric = BLEUScore()
    metric.load_state_dict(saved)
    metric.update(torch.tensor([[5, 6]]), torch.tensor([[5, 6]]))
    assert all(torch.equal(saved[name], kept[name]) for name in STATE_NAMES)  # the caller's dict is not updated
    assert states_of(metric) == listed(state_dict_of([6, 4, 2, 1], [7, 5, 3, 2], 7, 8))

    float_states = {**saved, "preds_len": torch.tensor(5.0)}
    with pytest.raises(TypeError, match="preds_len"):
        BLEUScore().load_state_dict(float_states)
    with pytest.raises(ValueError, match="numerator"):
        BLEUScore(max_order=2).load_state_dict(saved)


def test_states_have_torchmetrics_names():
    """Code written for torchmetrics' ``BLEUScore`` reads the same states: ``metric.numerator`` and the rest."""
    from torchmetrics.text import BLEUScore as TorchmetricsBLEU

    metric = BLEUScore()
    metric.update(torch.tensor([[5, 6, 7]]), torch.tensor([[5, 6, 8]]))
    assert set(TorchmetricsBLEU()._defaults) == set(STATE_NAMES)
    assert (metric.numerator.tolist(), metric.denominator.tolist()) == ([2, 1, 0, 0], [3, 2, 1, 0])
    assert (metric.preds_len.item(), metric.target_len.item()) == (3, 3)


def test_loaded_states_compute_without_warning_and_equal_the_saved_metric():
    saved = evaluated(random_batches(seed=12))
    saved.persistent(True)
    restored = BLEUScore(ignore_ids=[PAD])
    restored.load_state_dict(saved.state_dict())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # torchmetrics warns when compute() comes before any update
        assert restored.compute().item() == saved.compute().item()


def test_a_checkpoint_counted_otherwise_is_refused():
    saved = evaluated(random_batches(seed=13))
    saved.persistent(True)
    for other in (BLEUScore(ignore_ids=[PAD], convention="nltk"), BLEUScore(ignore_ids=[PAD, 1]), BLEUScore()):
        with pytest.raises(ValueError, match="counted otherwise"):
            other.load_state_dict(saved.state_dict())


# --- the cached compute() value ------------------------------------------------------------------


def test_merge_state_invalidates_the_cached_value():
    small = random_batches(seed=14, count=2)
    first, second = evaluated(small[:1], smoothing="floor"), evaluated(small[1:])
    before = first.compute().item()
    first.merge_state(second)
    assert first.compute().item() == evaluated(small, smoothing="floor").compute().item() != before


def test_merge_state_from_a_dict_invalidates_the_cached_value_and_counts_as_an_update():
    batches = random_batches(seed=15, count=3)
    empty = BLEUScore(ignore_ids=[PAD], smoothing="floor")
    with pytest.warns(UserWarning, match="before the ``update``"):
        assert empty.compute().item() == 0.0  # and cached
    empty.merge_state({name: getattr(evaluated(batches), name) for name in STATE_NAMES})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert empty.compute().item() == evaluated(batches, smoothing="floor").compute().item() > 0


def test_load_state_dict_invalidates_the_cached_value():
    batches = random_batches(seed=16)
    metric = evaluated(batches[:1], smoothing="floor")
    metric.compute()
    other = evaluated(batches, smoothing="floor")
    other.persistent(True)
    metric.load_state_dict(other.state_dict())
    assert metric.compute().item() == other.compute().item()


def test_forward_invalidates_the_cached_value():
    batches = random_batches(seed=17)
    metric = evaluated(batches[:1], smoothing="floor")
    metric.compute()
    metric(*batches[1])
    assert metric.compute().item() == evaluated(batches[:2], smoothing="floor").compute().item()


def test_sync_invalidates_the_cached_value():
    """A manual sync() replaces the states by the sum over ranks (here a fake second rank)."""
    batches = random_batches(seed=18, count=2)
    metric = evaluated(batches[:1], smoothing="floor", sync_on_compute=False)  # syncing by hand
    other_rank = evaluated(batches[1:])
    local = metric.compute().item()

    def gather(state, group=None):
        return [state, getattr(other_rank, _name_of(metric, state))]

    metric.sync(dist_sync_fn=gather, distributed_available=lambda: True)
    assert metric.compute().item() == evaluated(batches, smoothing="floor").compute().item() != local


def _name_of(metric: BLEUScore, state: torch.Tensor) -> str:
    return next(name for name in metric._defaults if getattr(metric, name) is state)


# --- merge_state and reset -----------------------------------------------------------------------


def test_merge_state_adds_another_metrics_statistics():
    batches = random_batches(seed=3)
    whole = evaluated(batches)
    first, second = evaluated(batches[:2]), evaluated(batches[2:], smoothing="exp")  # scoring may differ
    first.merge_state(second)
    assert states_of(first) == states_of(whole)
    assert first.compute().item() == whole.compute().item()

    from_dict = evaluated(batches[:2])
    from_dict.merge_state({name: getattr(second, name) for name in STATE_NAMES})
    assert states_of(from_dict) == states_of(whole)


@pytest.mark.parametrize(
    "incoming, error",
    [
        (BLEUScore(ignore_ids=[PAD, 1]), ValueError),  # other ignore_ids: counted differently
        (BLEUScore(ignore_ids=[PAD], max_order=2), ValueError),
        (BLEUScore(ignore_ids=[PAD], convention="nltk"), ValueError),
        (BLEUScore(ignore_ids=[PAD], ref_length="shortest"), ValueError),
        ({"numerator": torch.zeros(4, dtype=torch.int64)}, ValueError),  # missing states
        ({**state_dict_of([0] * 4, [0] * 4, 0, 0), "target_len": torch.tensor(1.5)}, TypeError),
        ({**state_dict_of([0] * 4, [0] * 4, 0, 0), "target_len": [3]}, TypeError),
        (state_dict_of(1, [0] * 4, 0, 0), ValueError),  # a 0-d matches would broadcast
    ],
)
def test_merge_state_rejects_statistics_counted_otherwise(incoming, error):
    metric = evaluated(random_batches(seed=4, count=2))
    before = states_of(metric)
    with pytest.raises(error):
        metric.merge_state(incoming)
    assert states_of(metric) == before
    assert all(getattr(metric, name).dtype == torch.int64 for name in STATE_NAMES)


def test_merge_state_rejects_torchmetrics_own_bleu():
    from torchmetrics.text import BLEUScore as TorchmetricsBLEU

    with pytest.raises(ValueError):
        BLEUScore().merge_state(TorchmetricsBLEU())


def test_reset_starts_a_new_evaluation():
    batches = random_batches(seed=5)
    metric = evaluated(batches)
    metric.compute()
    metric.reset()
    assert states_of(metric) == {"numerator": [0] * 4, "denominator": [0] * 4, "preds_len": [0], "target_len": [0]}
    for preds, target in batches[2:]:
        metric.update(preds, target)
    fresh = evaluated(batches[2:])
    assert states_of(metric) == states_of(fresh)
    assert metric.compute().item() == fresh.compute().item()


# --- forward and MetricCollection ----------------------------------------------------------------


def test_forward_returns_the_batch_score_and_accumulates_the_corpus():
    batches = random_batches(seed=6, vocabulary=4)
    metric = BLEUScore(ignore_ids=[PAD], smoothing="floor")
    for preds, target in batches:
        batch_score = metric(preds, target)
        assert batch_score.item() == corpus_bleu(preds, target, ignore_ids=[PAD], smoothing="floor").item()
    assert states_of(metric) == states_of(evaluated(batches))
    assert metric.compute().item() == evaluated(batches, smoothing="floor").compute().item()


def test_forward_passes_the_row_weight_on():
    preds, target = random_batches(seed=7, count=1, vocabulary=4)[0]
    keep = torch.arange(preds.shape[0]) % 2 == 0
    metric = BLEUScore(ignore_ids=[PAD], smoothing="floor")
    batch_score = metric(preds, target, weight=keep)
    kept = corpus_bleu(preds[keep], target[keep], ignore_ids=[PAD], smoothing="floor")
    assert batch_score.item() == kept.item()
    assert metric.compute().item() == kept.item()


def test_metric_collection_updates_and_computes_every_variant():
    batches = random_batches(seed=8, vocabulary=4)
    variants = {
        "bleu": {},
        "bleu_exp": {"smoothing": "exp"},  # same statistics: may share a compute group
        "bleu_effective": {"smoothing": "floor", "effective_order": True},
        "bleu_2": {"max_order": 2},
        "bleu_nltk": {"convention": "nltk", "smoothing": "method0"},
    }
    collection = MetricCollection({name: BLEUScore(ignore_ids=[PAD], **options) for name, options in variants.items()})
    for index, (preds, target) in enumerate(batches):
        if index % 2:
            collection.update(preds, target)
        else:
            batch_scores = collection(preds, target)
            for name, options in variants.items():
                expected = corpus_bleu(preds, target, ignore_ids=[PAD], **options)
                assert batch_scores[name].item() == pytest.approx(expected.item(), abs=1e-12)
    results = collection.compute()
    for name, options in variants.items():
        assert results[name].item() == pytest.approx(evaluated(batches, **options).compute().item(), abs=1e-12)
    collection.reset()
    assert all(int(metric.preds_len) == 0 for metric in collection.values())


@pytest.mark.parametrize(
    "first_options, second_options",
    [
        ({"convention": "nltk", "smoothing": "method1"}, {"smoothing": "floor"}),
        ({}, {"ref_length": "shortest"}),
        ({}, {"ignore_ids": [PAD, 9]}),
        ({}, {"eos_id": 9}),
    ],
    ids=["convention", "ref_length", "ignore_ids", "eos_id"],
)
def test_metric_collection_with_default_compute_groups_gives_each_metric_its_own_score(first_options, second_options):
    # The first batch gives equal statistics under both options, so torchmetrics would group the two
    # metrics and update only one of them; the later batches count differently.
    first_batch = (torch.tensor([[5, 6, 7, 8]]), torch.tensor([[[5, 6, 7, 8], [5, 6, 7, 8]]]))
    later = [
        (
            torch.tensor([[5, 6, 7, 0], [9, 5, 6, 7]]),
            torch.tensor([[[5, 6, 7, 8], [5, 0, 0, 0]], [[9, 5, 6, 7], [5, 6, 7, 9]]]),
        ),
        (torch.tensor([[7, 0, 0, 0]]), torch.tensor([[[7, 8, 0, 0], [7, 8, 9, 0]]])),  # fewer tokens than orders
    ]
    batches = [first_batch, *later]
    options = {"first": first_options, "second": second_options}
    collection = MetricCollection({name: BLEUScore(**{"ignore_ids": [PAD], **opts}) for name, opts in options.items()})
    alone = {name: BLEUScore(**{"ignore_ids": [PAD], **opts}) for name, opts in options.items()}
    for preds, target in batches:
        collection.update(preds, target)
        for metric in alone.values():
            metric.update(preds, target)
    assert len(collection.compute_groups) == 2
    results = collection.compute()
    for name, metric in alone.items():
        assert results[name].item() == metric.compute().item()
    assert results["first"].item() != results["second"].item()


def test_metric_collection_still_shares_counting_between_metrics_that_count_alike():
    collection = MetricCollection(
        {"plain": BLEUScore(ignore_ids=[PAD]), "exp": BLEUScore(ignore_ids=[PAD], smoothing="exp")}
    )
    for preds, target in random_batches(seed=11):
        collection.update(preds, target)
    assert [sorted(group) for group in collection.compute_groups.values()] == [["exp", "plain"]]
    results = collection.compute()
    assert results["exp"].item() == evaluated(random_batches(seed=11), smoothing="exp").compute().item()


def test_metric_collection_without_compute_groups_keeps_different_ignore_ids_apart():
    # torchmetrics groups metrics whose states are equal after the first update; BLEUScores that
    # count differently (here: ignore_ids) must then be kept apart with compute_groups=False.
    clean = (torch.tensor([[5, 6, 7]]), torch.tensor([[5, 6, 7]]))
    padded = (torch.tensor([[5, 6, 7, 0, 0]]), torch.tensor([[5, 6, 8, 0, 0]]))
    collection = MetricCollection({"raw": BLEUScore(), "no_pad": BLEUScore(ignore_ids=[PAD])}, compute_groups=False)
    collection.update(*clean)
    collection.update(*padded)
    assert int(collection["raw"].preds_len) == 8
    assert int(collection["no_pad"].preds_len) == 6


# --- per-row weights -----------------------------------------------------------------------------


@settings(max_examples=60)
@given(seed=st.integers(0, 2**16), counts=st.lists(st.integers(0, 3), min_size=1, max_size=6))
def test_a_row_weight_counts_the_row_that_many_times(seed, counts):
    preds, target = random_batches(seed, count=1)[0]
    counts = (counts * preds.shape[0])[: preds.shape[0]]
    weight = torch.tensor(counts, dtype=torch.uint8)  # unsigned: taken on any device
    weighted = BLEUScore(ignore_ids=[PAD])
    weighted.update(preds, target, weight=weight)
    repeats = weight.long()
    repeated = evaluated([(preds.repeat_interleave(repeats, 0), target.repeat_interleave(repeats, 0))])
    assert states_of(weighted) == states_of(repeated)

    mask = weight > 0
    masked = BLEUScore(ignore_ids=[PAD])
    masked.update(preds, target, weight=mask)
    assert states_of(masked) == states_of(evaluated([(preds[mask], target[mask])]))


#: A signed weight's values are checked on the CPU; on an accelerator, where reading them would wait for the
#: device, a signed dtype is refused (``pytest --device cuda`` makes the weights there).
SIGNED_WEIGHT_ERROR = ValueError if torch.get_default_device().type == "cpu" else TypeError


@pytest.mark.parametrize(
    "weight, error",
    [
        ([1, 0], TypeError),
        (torch.tensor([1.0, 0.0]), TypeError),
        (torch.tensor([1, 0, 1]), ValueError),
        (torch.tensor([[1, 0]]), ValueError),
        (torch.tensor(1), ValueError),
        (torch.ones(2, dtype=torch.bool, device="meta"), ValueError),
        (torch.tensor([1, -1]), SIGNED_WEIGHT_ERROR),  # a negative count
        (torch.tensor([-3, 2], dtype=torch.int8), SIGNED_WEIGHT_ERROR),
    ],
)
def test_a_bad_weight_is_rejected_and_leaves_the_state_untouched(weight, error):
    metric = evaluated(random_batches(seed=9, count=2))
    before = states_of(metric)
    with pytest.raises(error):
        metric.update(torch.tensor([[5, 6], [7, 8]]), torch.tensor([[5, 6], [7, 8]]), weight=weight)
    assert states_of(metric) == before


def test_weighted_update_runs_on_the_meta_device():
    metric = BLEUScore(ignore_ids=[PAD]).to("meta")
    preds = torch.empty(4, 9, dtype=torch.int64, device="meta")
    target = torch.empty(4, 3, 11, dtype=torch.int64, device="meta")
    metric.update(preds, target, weight=torch.empty(4, dtype=torch.bool, device="meta"))
    metric.update(preds, target, weight=torch.empty(4, dtype=torch.uint8, device="meta"))
    assert metric.numerator.device.type == "meta" and metric.numerator.shape == (4,)
    # a signed weight could be negative, and checking it off the CPU would wait for the device
    with pytest.raises(TypeError, match="uint8"):
        metric.update(preds, target, weight=torch.empty(4, dtype=torch.int64, device="meta"))


# --- exactness at scale --------------------------------------------------------------------------


@pytest.mark.parametrize("base", [2**31 - 3, 2**53 - 3], ids=["2**31", "2**53"])
def test_states_loaded_near_a_limit_stay_exact(base):
    batches = random_batches(seed=10)
    counted = evaluated(batches)
    loaded = state_dict_of(
        matches=[base - 50 * order for order in range(4)],
        totals=[base + 1000 - 50 * order for order in range(4)],
        preds_len=base + 7,
        target_len=base + 2**20,  # longer references: the brevity penalty is in play
    )
    metric = BLEUScore(ignore_ids=[PAD])
    metric.load_state_dict(loaded)
    for preds, target in batches:
        metric.update(preds, target)
    for _ in range(3):  # and merge the same corpus in three more times
        metric.merge_state(counted)

    expected = listed({name: loaded[name] + 4 * getattr(counted, name) for name in STATE_NAMES})
    assert states_of(metric) == expected
    assert expected["preds_len"][0] > base and (base < 2**31 or expected["preds_len"][0] > 2**53)
    reference = sacrebleu.BLEU.compute_bleu(
        expected["numerator"], expected["denominator"], expected["preds_len"][0], expected["target_len"][0]
    )
    assert metric.compute().item() == pytest.approx(reference.score / 100, rel=1e-12)


def test_torchmetrics_own_bleu_drifts_where_these_states_do_not():
    """torchmetrics' BLEUScore keeps float32 states: 3 * 2**24 + 1 reads back as 3 * 2**24."""
    from torchmetrics.text import BLEUScore as TorchmetricsBLEU

    start = 3 * 2**24
    theirs = TorchmetricsBLEU()
    saved = state_dict_of([start] * 4, [start] * 4, start, start, dtype=torch.float32)
    theirs.load_state_dict(saved)
    theirs.update(["7"], [["7"]])
    assert theirs.preds_len.item() == start  # the one new token is lost

    ours = BLEUScore()
    ours.load_state_dict(state_dict_of([start] * 4, [start] * 4, start, start))
    ours.update(torch.tensor([[7]]), torch.tensor([[7]]))
    assert ours.preds_len.item() == start + 1
    assert ours.numerator.tolist() == [start + 1, start, start, start]
