"""The one input dispatch: every metric reads text, token ids and subword ids the same way, refuses the
kinds it does not read with advice worded alike, and checks text by its own rules before anything is
queued."""

from __future__ import annotations

import random

import pytest
import torch

from torch_bleu import (
    BLEUConfig,
    BLEUScore,
    CERConfig,
    CHRFConfig,
    CHRFScore,
    ROUGEConfig,
    ROUGEScore,
    TERConfig,
    TERScore,
    WERConfig,
    WERScore,
)
from torch_bleu.inputs.kinds import SubwordIds, Text, TokenIds, checked_text, read_input
from torch_bleu.metrics.queued_text import QUEUE

#: Every metric's config, and whether it reads rows of plain ids.
CONFIGS = {
    "BLEU 13a": (BLEUConfig(tokenize="13a"), False),
    "BLEU ids": (BLEUConfig(), True),
    "chrF": (CHRFConfig(), False),
    "TER": (TERConfig(), False),
    "WER": (WERConfig(), True),
    "CER": (CERConfig(), True),
    "ROUGE": (ROUGEConfig(), True),
}
IDS = torch.tensor([[5, 6, 7]]), torch.tensor([[5, 6, 8]])


@pytest.mark.parametrize("name", [name for name in CONFIGS if name != "BLEU ids"])
def test_strings_are_text_for_every_metric_that_reads_them(name):
    config, _ = CONFIGS[name]
    assert read_input(["the cat"], ["a cat"], config) == Text(["the cat"], [["a cat"]])


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_ids_are_token_ids_or_refused_with_the_metrics_advice(name):
    config, reads_ids = CONFIGS[name]
    if reads_ids:
        found = read_input(*IDS, config)
        assert type(found) is TokenIds and found.rows.lengths.tolist() == [[3, 3]]
        assert checked_text(*IDS, config) is None
    else:
        with pytest.raises(TypeError) as error:
            read_input(*IDS, config)
        assert str(error.value).endswith(config.input_hint)


def test_the_advice_for_a_wrong_kind_is_worded_alike():
    """(BLEU's names its tokenize option besides.)"""
    hints = {name: config.input_hint for name, (config, _) in CONFIGS.items() if not name.startswith("BLEU")}
    assert hints["chrF"] == hints["TER"].replace("TER", "chrF")
    assert hints["ROUGE"] == hints["WER"].replace("WER", "ROUGE")
    assert hints["CER"] == hints["WER"].replace("WER", "CER").replace("one word", "one character")
    assert all("pass detokenizer= (a torch_bleu.Detokenizer of their tokenizer)" in hint for hint in hints.values())


def test_subword_ids_are_subword_ids_with_a_detokenizer(vocabulary):
    ids = torch.tensor(vocabulary.random_rows(random.Random(0), 1, 6)[:1])
    for config in (
        BLEUConfig(detokenizer=vocabulary.detokenizer),
        CHRFConfig(detokenizer=vocabulary.detokenizer),
        WERConfig(detokenizer=vocabulary.detokenizer),
        ROUGEConfig(detokenizer=vocabulary.detokenizer),
    ):
        found = read_input(ids, ["a reference"], config)
        assert isinstance(found, SubwordIds) and found.decoded().shape[:2] == (1, 2)
        assert checked_text(ids, ["a reference"], config) is None


@pytest.mark.parametrize(
    ("metric", "target", "message"),
    [
        (WERScore, [["a", "b"]], "one reference per hypothesis"),
        (TERScore, [["a"] * 17], "at most 16 references"),
        (ROUGEScore, [[]], "at least one reference"),
    ],
)
def test_text_is_checked_by_the_metrics_rules_before_it_is_queued(metric, target, message):
    counted = metric()
    counted.update(["a"], ["a"])  # the first text batch is counted at once; later ones are queued
    with pytest.raises(ValueError, match=message):
        counted.update(["a"], target)
    assert len(getattr(counted, QUEUE)) == 0


@pytest.mark.parametrize("metric", [ROUGEScore, WERScore, BLEUScore, CHRFScore])
def test_lists_of_words_get_the_same_advice_from_every_metric(metric):
    counted = metric(tokenize="13a") if metric is BLEUScore else metric()
    with pytest.raises(TypeError, match="arguments look swapped"):
        counted.update([["the", "cat"]], ["the cat"])
