"""Reference implementations the tests compare against: sacrebleu run on ids joined as strings; the words
that flags on rows of code points mark, read in Python; jiwer's counts of rows of ids read as words."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import torch
from sacrebleu.metrics import BLEU


def strip_row(row: torch.Tensor, ignore_ids: Sequence[int], eos_ids: Sequence[int] = ()) -> list[int]:
    """The usual list filter of an nltk loop: cut the row at its first EOS, drop ignored ids wherever they are."""
    tokens = row.tolist()
    ends = [index for index, token in enumerate(tokens) if token in eos_ids]
    return [token for token in tokens[: min(ends, default=len(tokens))] if token not in ignore_ids]


def sacrebleu_streams(
    preds: torch.Tensor, target: torch.Tensor, ignore_ids: Sequence[int] = (), eos_ids: Sequence[int] = ()
) -> tuple[list[str], list[list[str | None]]]:
    """Hypothesis strings and sacrebleu reference streams for a padded batch.

    A reference row with no token left is absent (``None`` for sacrebleu), unless every row of the
    sentence is empty: then the sentence has one empty reference ``""``.
    """
    if target.dim() == 2:
        target = target.unsqueeze(1)
    hyps = [" ".join(map(str, strip_row(row, ignore_ids, eos_ids))) for row in preds]
    streams: list[list[str | None]] = [[] for _ in range(target.shape[1])]
    for sentence in target:
        rows = [strip_row(row, ignore_ids, eos_ids) for row in sentence]
        all_empty = not any(rows)
        for index, row in enumerate(rows):
            present = bool(row) or (all_empty and index == 0)
            streams[index].append(" ".join(map(str, row)) if present else None)
    return hyps, streams


def sacrebleu_corpus(preds, target, ignore_ids=(), eos_ids=(), **bleu_options):
    """sacrebleu's corpus score object for a padded batch (``tokenize='none'``).

    sacrebleu's ``BLEU()`` smooths with ``exp`` by default; ours (like nltk) does not, so the oracle
    uses ``smooth_method='none'`` unless told otherwise.
    """
    hyps, streams = sacrebleu_streams(preds, target, ignore_ids, eos_ids)
    bleu_options.setdefault("smooth_method", "none")
    return BLEU(tokenize="none", **bleu_options).corpus_score(hyps, streams)


def row_words(chars: torch.Tensor, in_word: torch.Tensor, starts: torch.Tensor) -> list[list[str]]:
    """The words the flags mark in each row: a word begins at a start and runs over characters in words."""
    words: list[list[str]] = []
    for row, inside, begins in zip(chars.tolist(), in_word.tolist(), starts.tolist()):
        words.append([])
        for char, in_a_word, begins_one in zip(row, inside, begins):
            if begins_one:
                words[-1].append("")
            if in_a_word:
                words[-1][-1] += chr(char)
    return words


@contextmanager
def sacrebleu_seed(value: str = "12345") -> Iterator[None]:
    """``SACREBLEU_SEED`` set to ``value`` while sacrebleu's significance tests run (its default, 12345)."""
    previous = os.environ.get("SACREBLEU_SEED")
    os.environ["SACREBLEU_SEED"] = value
    try:
        yield
    finally:
        if previous is None:
            del os.environ["SACREBLEU_SEED"]
        else:
            os.environ["SACREBLEU_SEED"] = previous


def jiwer_counts(hypothesis: str, reference: str, characters: bool = False) -> list[int]:
    """jiwer's hits, substitutions, deletions and insertions of one pair (``process_characters`` with
    ``characters``, else ``process_words``)."""
    import jiwer

    out = (jiwer.process_characters if characters else jiwer.process_words)(reference, hypothesis)
    return [out.hits, out.substitutions, out.deletions, out.insertions]


def as_words(row: list[int], ignored: set[int], eos: int | None = None) -> str:
    """A row of ids as the usual loop makes it a string: cut at ``eos``, ignored ids dropped, ids as words."""
    kept = []
    for token in row:
        if token == eos:
            break
        if token not in ignored:
            kept.append(str(token))
    return " ".join(kept)
