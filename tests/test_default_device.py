"""No path of the library follows PyTorch's default device: host input is counted on the CPU, ids on their device.

``torch.set_default_device("cuda")`` (as ``pytest --device cuda`` sets it, and as a training script
may) sends every tensor made without ``device=`` to the GPU. A path that counts strings or CPU ids
and makes a tensor that way mixes devices there. Here every public entry point runs on CPU input
(strings, CPU ids, subword ids) under the ``meta`` default device, where every such tensor has no
data: it must give the result it gives without it, on the device it gives it without it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import pytest
import torch

from torch_bleu import (
    BLEUConfig,
    BLEUScore,
    CERScore,
    CHRFScore,
    Detokenizer,
    ROUGEScore,
    SentenceReward,
    TERScore,
    WERScore,
    aggregate_bleu,
    aggregate_chrf,
    arrays,
    bleu_from_statistics,
    bleu_statistics,
    character_error_counts,
    corpus_bleu,
    corpus_cer,
    corpus_chrf,
    corpus_rouge,
    corpus_ter,
    corpus_wer,
    error_measures,
    mbr_select,
    paired_bootstrap,
    paired_randomization,
    pairwise_bleu,
    pairwise_chrf,
    pairwise_rouge,
    rouge_scores,
    rouge_statistics,
    self_bleu,
    sentence_bleu,
    sentence_cer,
    sentence_chrf,
    sentence_rouge,
    sentence_ter,
    sentence_wer,
    word_error_counts,
)
from torch_bleu.pairwise.inputs import grouped_ids

CPU = torch.device("cpu")
#: A word per id (id 0 decodes to nothing).
WORDS = Detokenizer(tuple(b"" if index == 0 else f" w{index % 7}".encode() for index in range(12)), "per_byte")

HYPOTHESES = ["the cat sat on the mat", "a dog barked at me", ""]
REFERENCES = [["the cat sat on a mat", "a cat is on the mat"], ["a dog barked", "dogs bark at me"], ["nothing"]]
FIRST_REFERENCES = [references[0] for references in REFERENCES]
#: Padded ids on the CPU (0 is padding), one reference per hypothesis and two.
PREDS = torch.tensor([[5, 6, 7, 8, 0], [5, 9, 7, 0, 0], [3, 0, 0, 0, 0]], device=CPU)
TARGET = torch.tensor([[5, 6, 7, 9], [5, 9, 8, 0], [4, 4, 0, 0]], device=CPU)
TARGETS = torch.tensor([[[5, 6, 7, 9], [5, 6, 7, 0]], [[5, 9, 8, 0], [9, 9, 0, 0]], [[4, 4, 0, 0], [3, 1, 0, 0]]])
TARGETS = TARGETS.to(CPU)
#: Candidates of sources: strings, and ids (sources, candidates, length).
CANDIDATES = [["the cat sat on the mat", "a cat sat on a mat", "the dog"], ["it rains", "it rained today"]]
CANDIDATE_IDS = torch.tensor(
    [[[5, 6, 7, 8, 0], [5, 6, 9, 0, 0], [4, 6, 7, 8, 1]], [[2, 3, 0, 0, 0], [2, 3, 3, 4, 0], [0, 0, 0, 0, 0]]],
    device=CPU,
)
REFERENCE_IDS = torch.tensor([[[5, 6, 7, 0], [6, 7, 8, 5]], [[2, 3, 4, 0], [3, 3, 0, 0]]], device=CPU)
WEIGHTS = torch.tensor([[0.5, 0.25, 0.25], [1.0, 2.0, 0.0]], dtype=torch.float64, device=CPU)
#: Ragged lists of ids, which become CPU tensors: hypotheses and their references.
RAGGED = ([[4, 5, 6, 7], [0], []], [[[4, 5, 6], [4, 5, 6, 7]], [[0, 0]], [[]]])


def _updated(metric: Any, *batches: tuple[Any, Any]) -> Any:
    for preds, target in batches:
        metric.update(preds, target)
    return metric


#: The default device the cases run under: ``None`` (PyTorch's own: the reference run), or ``meta``.
_DEFAULT_DEVICE: list[torch.device | None] = [None]


def _under_default_device() -> AbstractContextManager[Any]:
    device = _DEFAULT_DEVICE[0]
    return contextlib.nullcontext() if device is None else device


def _metric(make: Callable[[], Any], *batches: tuple[Any, Any]) -> Callable[[], Any]:
    """A metric made outside the default device (its states where a metric's states are), updated and
    computed under it."""

    def run() -> Any:
        metric = make()
        with _under_default_device():
            return _updated(metric, *batches).compute()

    return run


def _interval(make: Callable[[], Any], *batches: tuple[Any, Any]) -> Callable[[], Any]:
    def run() -> Any:
        metric = make()
        with _under_default_device():
            return _updated(metric, *batches).confidence_interval(resamples=20, seed=3)

    return run


def _paired(compare: Callable[..., Any], make: Callable[[], Any]) -> Callable[[], Any]:
    def run() -> Any:
        baseline, system = make(), make()
        with _under_default_device():
            baseline.update(HYPOTHESES, FIRST_REFERENCES)
            system.update(FIRST_REFERENCES, FIRST_REFERENCES)
            return compare(baseline, system, **({"resamples": 20} if compare is paired_bootstrap else {"trials": 20}))

    return run


def _function(function: Callable[..., Any], *args: Any, **options: Any) -> Callable[[], Any]:
    def run() -> Any:
        with _under_default_device():
            return function(*args, **options)

    return run


CASES: dict[str, Callable[[], Any]] = {
    # metrics, from strings, CPU ids and subword ids
    "BLEUScore strings": _metric(lambda: BLEUScore(tokenize="13a"), (HYPOTHESES, REFERENCES)),
    "BLEUScore ids": _metric(lambda: BLEUScore(ignore_ids=[0]), (PREDS, TARGETS), (PREDS, TARGET)),
    "BLEUScore subword ids": _metric(lambda: BLEUScore(detokenizer=WORDS), (PREDS, TARGETS)),
    "BLEUScore ragged ids": _metric(BLEUScore, RAGGED),
    "CHRFScore strings": _metric(lambda: CHRFScore(word_order=2), (HYPOTHESES, REFERENCES)),
    "CHRFScore subword ids": _metric(lambda: CHRFScore(detokenizer=WORDS), (PREDS, TARGETS)),
    "CHRFScore subword ids, reference strings": _metric(
        lambda: CHRFScore(detokenizer=WORDS), (PREDS, [[" w5 w6", "w1"], ["w5"], ["w4 w4"]])
    ),
    "TERScore strings": _metric(TERScore, (HYPOTHESES, REFERENCES)),
    "TERScore subword ids": _metric(lambda: TERScore(detokenizer=WORDS), (PREDS, TARGETS)),
    "WERScore strings": _metric(WERScore, (HYPOTHESES, FIRST_REFERENCES)),
    "WERScore ids": _metric(lambda: WERScore(ignore_ids=[0]), (PREDS, TARGET)),
    "WERScore ragged ids": _metric(WERScore, ([[4, 5, 6, 7], [0], []], [[[4, 6, 7]], [[0, 0]], [[5]]])),
    "WERScore subword ids": _metric(lambda: WERScore(detokenizer=WORDS), (PREDS, TARGET)),
    "CERScore strings": _metric(CERScore, (HYPOTHESES, FIRST_REFERENCES)),
    "CERScore subword ids": _metric(lambda: CERScore(detokenizer=WORDS), (PREDS, TARGET)),
    "ROUGEScore strings": _metric(lambda: ROUGEScore(rouge_types=("rouge1", "rougeL")), (HYPOTHESES, REFERENCES)),
    "ROUGEScore ids": _metric(lambda: ROUGEScore(ignore_ids=[0]), (PREDS, TARGETS)),
    "ROUGEScore subword ids": _metric(lambda: ROUGEScore(detokenizer=WORDS), (PREDS, TARGETS)),
    # confidence intervals and paired tests
    "BLEUScore interval": _interval(lambda: BLEUScore(tokenize="13a", keep_sentences=True), (HYPOTHESES, REFERENCES)),
    "CHRFScore interval": _interval(lambda: CHRFScore(keep_sentences=True), (HYPOTHESES, REFERENCES)),
    "ROUGEScore interval": _interval(lambda: ROUGEScore(keep_sentences=True), (HYPOTHESES, REFERENCES)),
    "paired bootstrap": _paired(paired_bootstrap, lambda: BLEUScore(tokenize="13a", keep_sentences=True)),
    "paired randomization": _paired(paired_randomization, lambda: TERScore(keep_sentences=True)),
    # the functions
    "corpus_bleu strings": _function(corpus_bleu, HYPOTHESES, REFERENCES, tokenize="13a"),
    "corpus_bleu ids": _function(corpus_bleu, PREDS, TARGETS, ignore_ids=[0]),
    "sentence_bleu strings": _function(sentence_bleu, HYPOTHESES, REFERENCES, tokenize="13a", smoothing="exp"),
    "sentence_bleu ids": _function(sentence_bleu, PREDS, TARGETS, ignore_ids=[0], smoothing="floor"),
    "sentence_bleu subword ids": _function(sentence_bleu, PREDS, TARGETS, detokenizer=WORDS),
    "sentence_statistics ids": _function(bleu_statistics, PREDS, TARGET, ignore_ids=[0]),
    "bleu_from_statistics": _function(
        lambda: bleu_from_statistics(*bleu_statistics(PREDS, TARGETS, ignore_ids=[0]), BLEUConfig())
    ),
    "corpus_chrf strings": _function(corpus_chrf, HYPOTHESES, REFERENCES),
    "sentence_chrf strings": _function(sentence_chrf, HYPOTHESES, REFERENCES, word_order=2),
    "sentence_chrf subword ids": _function(sentence_chrf, PREDS, TARGETS, detokenizer=WORDS),
    "corpus_ter strings": _function(corpus_ter, HYPOTHESES, REFERENCES),
    "sentence_ter subword ids": _function(sentence_ter, PREDS, TARGETS, detokenizer=WORDS),
    "corpus_wer strings": _function(corpus_wer, HYPOTHESES, FIRST_REFERENCES),
    "sentence_wer ids": _function(sentence_wer, PREDS, TARGET, ignore_ids=[0]),
    "word_error_counts ids": _function(word_error_counts, PREDS, TARGET, ignore_ids=[0]),
    "error_measures": _function(lambda: error_measures(word_error_counts(HYPOTHESES, FIRST_REFERENCES).sum(0))),
    "corpus_cer strings": _function(corpus_cer, HYPOTHESES, FIRST_REFERENCES),
    "sentence_cer subword ids": _function(sentence_cer, PREDS, TARGET, detokenizer=WORDS),
    "character_error_counts strings": _function(character_error_counts, HYPOTHESES, FIRST_REFERENCES),
    "corpus_rouge strings": _function(corpus_rouge, HYPOTHESES, REFERENCES, rouge_types=("rouge2", "rougeLsum")),
    "sentence_rouge strings": _function(sentence_rouge, HYPOTHESES, REFERENCES),
    "sentence_rouge ids": _function(sentence_rouge, PREDS, TARGETS, ignore_ids=[0]),
    "rouge_statistics subword ids": _function(rouge_statistics, PREDS, TARGETS, detokenizer=WORDS),
    "rouge_scores": _function(lambda: rouge_scores(rouge_statistics(HYPOTHESES, REFERENCES))),
    # pairwise, aggregate, self-BLEU and MBR
    "pairwise_bleu strings": _function(pairwise_bleu, CANDIDATES),
    "pairwise_bleu ids": _function(pairwise_bleu, CANDIDATE_IDS, REFERENCE_IDS, ignore_ids=[0]),
    "pairwise_bleu subword ids": _function(pairwise_bleu, CANDIDATE_IDS, detokenizer=WORDS),
    "pairwise_chrf strings": _function(pairwise_chrf, CANDIDATES, [["the cat", "a mat"], ["rain"]]),
    "pairwise_chrf subword ids": _function(pairwise_chrf, CANDIDATE_IDS, REFERENCE_IDS, detokenizer=WORDS),
    "pairwise_rouge strings": _function(pairwise_rouge, CANDIDATES),
    "pairwise_rouge ids": _function(pairwise_rouge, CANDIDATE_IDS, REFERENCE_IDS, rouge_type="rouge2", ignore_ids=[0]),
    "pairwise_rouge subword ids": _function(pairwise_rouge, CANDIDATE_IDS, detokenizer=WORDS, rouge_type="rougeLsum"),
    "aggregate_bleu strings": _function(aggregate_bleu, CANDIDATES),
    "aggregate_bleu ids": _function(aggregate_bleu, CANDIDATE_IDS, None, WEIGHTS, ignore_ids=[0]),
    "aggregate_chrf strings": _function(aggregate_chrf, CANDIDATES, None, WEIGHTS[:, :3]),
    "aggregate_chrf subword ids": _function(aggregate_chrf, CANDIDATE_IDS, REFERENCE_IDS, detokenizer=WORDS),
    "self_bleu strings": _function(self_bleu, CANDIDATES),
    "self_bleu ids, others": _function(self_bleu, CANDIDATE_IDS, "others", ignore_ids=[0]),
    "mbr_select": _function(lambda: mbr_select(pairwise_bleu(CANDIDATE_IDS, ignore_ids=[0]))),
    # rewards
    "bleu reward": _function(SentenceReward("bleu"), completions=HYPOTHESES, reference=REFERENCES),
    "chrf reward ids": _function(
        SentenceReward("chrf", detokenizer=WORDS), completion_ids=PREDS, reference=FIRST_REFERENCES
    ),
    "rouge reward": _function(SentenceReward("rouge"), completions=HYPOTHESES, reference=REFERENCES),
}


@pytest.mark.parametrize("name", list(CASES))
def test_cpu_input_gives_the_same_result_under_a_meta_default_device(name):
    run = CASES[name]
    expected = run()
    _DEFAULT_DEVICE[0] = torch.device("meta")
    try:
        ours = run()
    finally:
        _DEFAULT_DEVICE[0] = None
    _assert_same(ours, expected)


@pytest.mark.parametrize("name", ["pairwise_bleu ids", "rouge_statistics subword ids", "WERScore ids"])
def test_the_device_path_on_cpu_input_follows_no_default_device(name):
    """The same with sizes from shapes alone (the path an accelerator takes), on CPU tensors."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(arrays, "SIZES_FROM_DATA_ON_CPU", False)
        test_cpu_input_gives_the_same_result_under_a_meta_default_device(name)


@pytest.mark.slow
def test_a_compiled_metric_counts_cpu_ids_under_a_meta_default_device():
    """In a compiled graph, NumPy's results would come back as tensors of the default device: none is used."""
    eager, compiled = BLEUScore(), BLEUScore(compile={"backend": "eager"})
    with torch.device("meta"):
        _updated(compiled, RAGGED)
    _assert_same(compiled.compute(), _updated(eager, RAGGED).compute())


def test_grouped_ids_and_their_counts_lie_on_the_ids_device():
    """The counts of each source follow the ids, not the default device (CPU here, ``meta`` the ids' own)."""
    candidates = torch.zeros((2, 3, 4), dtype=torch.int64, device="meta")
    rows, keep, counts, reference_counts = grouped_ids(candidates, candidates[:, :2], [0], [])
    assert [value.device.type for value in (rows, keep, counts, reference_counts)] == ["meta"] * 4
    assert counts.shape == reference_counts.shape == (2,)


def _assert_same(ours: Any, expected: Any) -> None:
    if isinstance(expected, torch.Tensor):
        assert isinstance(ours, torch.Tensor) and ours.device == expected.device
        torch.testing.assert_close(ours, expected, rtol=0, atol=0, equal_nan=True)
    elif isinstance(expected, dict):
        assert list(ours) == list(expected)
        for key, value in expected.items():
            _assert_same(ours[key], value)
    elif isinstance(expected, (tuple, list)):
        assert type(ours) is type(expected) and len(ours) == len(expected)
        for mine, theirs in zip(ours, expected):
            _assert_same(mine, theirs)
    else:
        assert ours == expected or (ours != ours and expected != expected)  # NaN equals NaN here
