"""Subword ids on the CPU decoded on the host (:mod:`torch_bleu.detokenize.host`) and queued as text by WER and
CER: the strings are the device pipeline's, and the counts jiwer's of the tokenizer's own decoding.

Random rows of real trained tokenizers (:mod:`vocabularies`) reach byte pieces that form ill-formed UTF-8,
control and special ids mid-row, unknown pieces and transformers' clean-up of spaces.
"""

from __future__ import annotations

import random

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from subword_tokenizers import CORPUS
from vocabularies import KINDS

from torch_bleu import CERScore, WERScore, arrays, character_error_counts, word_error_counts
from torch_bleu.detokenize.host import decoded_strings
from torch_bleu.detokenize.pipeline import decoded_chars
from torch_bleu.text.code_points import strings_from_rows

jiwer = pytest.importorskip("jiwer")

CORPUS_LINES = CORPUS.read_text(encoding="utf-8").splitlines()
SETTINGS = settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))


def padded(rows: list[list[int]], pad: int) -> torch.Tensor:
    width = max(map(len, rows), default=0)
    return torch.tensor([row + [pad] * (width - len(row)) for row in rows], dtype=torch.int64).reshape(len(rows), width)


@pytest.mark.parametrize("vocabulary", KINDS, indirect=True)
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_host_strings_are_the_device_pipelines(vocabulary, seed):
    rng = random.Random(seed)
    rows = vocabulary.random_rows(rng, count=12, longest=20)
    rows[0] = vocabulary.encode(CORPUS_LINES[seed % len(CORPUS_LINES)])
    ids = padded(rows, 0)
    keep = torch.arange(ids.shape[1]) < torch.tensor([len(row) for row in rows])[:, None]
    assert decoded_strings(rows, vocabulary.detokenizer) == strings_from_rows(
        decoded_chars(ids, keep, vocabulary.detokenizer)
    )


@pytest.mark.parametrize("vocabulary", KINDS, indirect=True)
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), as_text=st.booleans(), characters=st.booleans())
def test_queued_subword_batches_count_as_jiwer_and_as_the_device_path(vocabulary, seed, as_text, characters):
    rng = random.Random(seed)
    hypotheses = vocabulary.random_rows(rng, count=20, longest=14)
    targets = vocabulary.random_rows(rng, count=20, longest=14)
    hypotheses[0] = vocabulary.encode(CORPUS_LINES[seed % len(CORPUS_LINES)])
    reference_text = [vocabulary.decode(row) for row in targets]
    pad = vocabulary.pad
    hypotheses, targets = ([[token for token in row if token != pad] for row in side] for side in (hypotheses, targets))
    metric = (CERScore if characters else WERScore)(detokenizer=vocabulary.detokenizer, ignore_ids=[pad])
    weight = torch.tensor([rng.randrange(3) for _ in range(20)])
    for start in range(0, 20, 6):  # the first batch is counted at once, the others queued
        part = slice(start, start + 6)
        target = reference_text[part] if as_text else padded(targets[part], pad)
        metric.update(padded(hypotheses[part], pad), target, weight=weight[part])
    decoded = [vocabulary.decode(row) for row in hypotheses]
    process = jiwer.process_characters if characters else jiwer.process_words
    expected = [0, 0, 0, 0]
    for hypothesis, reference, times in zip(decoded, reference_text, weight.tolist()):
        out = process(reference, hypothesis)
        for index, count in enumerate([out.hits, out.substitutions, out.deletions, out.insertions]):
            expected[index] += times * count
    got = [getattr(metric, name).item() for name in ("hits", "substitutions", "deletions", "insertions")]
    assert got == expected
    count = character_error_counts if characters else word_error_counts
    on_device = count(
        padded(hypotheses, pad),
        reference_text if as_text else padded(targets, pad),
        detokenizer=vocabulary.detokenizer,
        ignore_ids=[pad],
    )
    assert got == (on_device * weight[:, None]).sum(0).tolist()


@pytest.mark.parametrize("vocabulary", ["unigram"], indirect=True)
def test_ids_outside_the_vocabulary_are_refused_by_update_and_static_widths_count_on_the_device(
    vocabulary, monkeypatch
):
    metric = WERScore(detokenizer=vocabulary.detokenizer)
    good = torch.tensor([vocabulary.encode(CORPUS_LINES[0])])
    metric.update(good, good)
    with pytest.raises(ValueError, match="outside the detokenizer's vocabulary"):
        metric.update(torch.tensor([[5, vocabulary.size]]), good[:, :3])
    with pytest.raises(ValueError, match="one reference per hypothesis"):
        metric.update(good, [[CORPUS_LINES[0], CORPUS_LINES[1]]])
    assert metric.hits.item() == len(CORPUS_LINES[0].split()) and metric.substitutions.item() == 0
    monkeypatch.setattr(arrays, "SIZES_FROM_DATA_ON_CPU", False)  # as on an accelerator: counted at once
    static = WERScore(detokenizer=vocabulary.detokenizer)
    static.update(good, good)
    assert static.hits.item() == metric.hits.item()
