"""Options and input that ROUGE (and the checks it shares) once took silently or refused in words that
misled: each is refused with a message that says what to pass instead, or taken as what it means."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

from torch_bleu import (
    BLEUConfig,
    CHRFConfig,
    ROUGEConfig,
    ROUGEScore,
    TERConfig,
    corpus_rouge,
    pairwise_rouge,
    sentence_rouge,
)

IDS = torch.tensor([[5, 6, 7], [7, 6, 5]])


@pytest.mark.parametrize(
    ("rouge_types", "error", "message"),
    [
        (None, TypeError, "rouge_types must be a list or tuple of ROUGE types, such as ('rouge1'"),
        (1, TypeError, "rouge_types must be a list or tuple of ROUGE types, such as ('rouge1'"),
        ({"rouge1", "rougeL"}, TypeError, "rouge_types must be a list or tuple, not a set: the result keys follow"),
        (frozenset({"rouge1"}), TypeError, "not a set"),
        ({"rouge1": 1, "rougeL": 2}, TypeError, "rouge_types must be a list or tuple, not a dict"),
    ],
)
def test_rouge_types_that_are_no_ordered_sequence_are_refused(rouge_types, error, message):
    with pytest.raises(error, match=re.escape(message)):
        ROUGEConfig(rouge_types=rouge_types)


@pytest.mark.parametrize("rouge_types", [["rougeL", "rouge1"], ("rougeL", "rouge1"), iter(["rougeL", "rouge1"])])
def test_ordered_rouge_types_keep_their_order(rouge_types):
    assert ROUGEConfig(rouge_types=rouge_types).types == ("rougeL", "rouge1")


@pytest.mark.parametrize(
    ("make", "field"),
    [
        (lambda flag: ROUGEConfig(use_stemmer=flag), "use_stemmer"),
        (lambda flag: BLEUConfig(tokenize="13a", lowercase=flag), "lowercase"),
        (lambda flag: BLEUConfig(effective_order=flag), "effective_order"),
        (lambda flag: CHRFConfig(lowercase=flag), "lowercase"),
        (lambda flag: TERConfig(normalized=flag), "normalized"),
    ],
)
@pytest.mark.parametrize("value", [True, False])
def test_numpy_bools_are_bools(make, field, value):
    config = make(np.bool_(value))
    assert type(getattr(config, field)) is bool
    assert getattr(config, field) is value
    assert config.fingerprint() == make(value).fingerprint()
    assert config == make(value)


@pytest.mark.parametrize("flag", [1, np.int64(1), "True", None, torch.tensor(True)])
def test_other_flags_are_still_refused(flag):
    with pytest.raises(TypeError, match="use_stemmer must be a bool, got "):
        ROUGEConfig(use_stemmer=flag)


@pytest.mark.parametrize("tokenize", ["unicode", "char"])
@pytest.mark.parametrize(
    "score",
    [
        lambda options: corpus_rouge(IDS, IDS, **options),
        lambda options: sentence_rouge(IDS, IDS, **options),
        lambda options: ROUGEScore(**options).update(IDS, IDS),
        lambda options: pairwise_rouge(IDS[None], **options),
        lambda options: corpus_rouge([[5, 6], [7]], [[[5, 6]], [[7]]], **options),
    ],
)
def test_a_tokenizer_of_strings_is_refused_for_plain_ids(score, tokenize):
    message = f"tokenize={tokenize!r} splits strings into words; rows of plain ids are words already"
    with pytest.raises(ValueError, match=re.escape(message)):
        score({"tokenize": tokenize})


@pytest.mark.parametrize("tokenize", ["unicode", "char"])
def test_a_tokenizer_of_strings_still_reads_strings(tokenize):
    assert corpus_rouge(["a b"], ["a b"], tokenize=tokenize)["rouge1_fmeasure"] == 1


@pytest.mark.parametrize(
    ("sentence_sep_id", "message"),
    [
        (2**63, "sentence_sep_id must be a token id that fits in int64, got 9223372036854775808"),
        (2**64 + 3, "sentence_sep_id must be a token id that fits in int64"),
        (-1, "sentence_sep_id must be an integer >= 0, got -1"),
    ],
)
def test_sentence_separators_that_are_no_int64_id_are_refused(sentence_sep_id, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        ROUGEConfig(sentence_sep_id=sentence_sep_id)


@pytest.mark.parametrize("sentence_sep_id", [0, 2**63 - 1, np.int64(2**63 - 1)])
def test_sentence_separators_of_int64_are_taken(sentence_sep_id):
    assert ROUGEConfig(sentence_sep_id=sentence_sep_id).sentence_sep_id == int(sentence_sep_id)


@pytest.mark.parametrize("accumulate", ["avg", "best"])
@pytest.mark.parametrize("candidates", [[["a b", "b c"]], IDS[None]])
def test_pairwise_rouge_refuses_accumulate(candidates, accumulate):
    message = f"pairwise ROUGE scores each candidate against each reference alone: accumulate={accumulate!r}"
    with pytest.raises(ValueError, match=re.escape(message)):
        pairwise_rouge(candidates, accumulate=accumulate)


@pytest.mark.parametrize(
    ("logits", "spelled"),
    [
        (np.zeros((2, 3, 5), dtype=np.float32), "preds.argmax(axis=-1)"),
        (torch.zeros(2, 3, 5), "preds.argmax(dim=-1)"),
    ],
)
def test_logits_are_told_to_take_the_argmax_in_their_own_spelling(logits, spelled):
    with pytest.raises(TypeError, match=re.escape(f"pass their ids: {spelled}")):
        corpus_rouge(logits, IDS)


@pytest.mark.parametrize(
    ("target", "message"),
    [
        (["a b", None], "target[1] is None: every hypothesis needs a reference; an empty one is ''"),
        ([None, "a b"], "target[0] is None: every hypothesis needs a reference; an empty one is ''"),
        ([["a b"], None], "target[1] is None: every hypothesis needs a reference; an empty one is ''"),
        ([["a b"], ["c", None]], "target[1][1] is None: each reference is a string; an empty one is ''"),
    ],
)
@pytest.mark.parametrize("score", [corpus_rouge, sentence_rouge])
def test_an_absent_reference_is_named(score, target, message):
    with pytest.raises(TypeError, match=re.escape(message)):
        score(["a b", "c d"], target)
