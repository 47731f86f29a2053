"""TER statistics of each sentence: its fewest edits over its references, and their mean length.

Lines become words as sacrebleu's TER reads them (:func:`ter_words`): right-stripped, then lowercased
and split at whitespace (numbered by :func:`~torch_bleu.text.lines.tokenized_lines`, vectorized), or
with ``normalized`` / ``no_punct`` first through sacrebleu's own Tercom normalizer, line by line. Every
hypothesis meets each of its references as one pair (:func:`.shifts.edit_counts`).

The mean reference length is counted in :data:`LENGTH_UNIT` parts of a word, so that it stays a whole
number (exact in int64 states) for up to :data:`~.config.MAX_REFERENCES` references per sentence.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...errors import InputError
from ...text.lines import tokenized_lines
from ...text.vocabulary import TokenStream
from .config import TERConfig, check_reference_count
from .shifts import edit_counts

#: Reference lengths are counted in parts of a word: 720720 = lcm(1, ..., 16), 16 being :data:`~.config.MAX_REFERENCES`.
LENGTH_UNIT = 720720


def ter_words(hypotheses: Sequence[str], references: Sequence[str], config: TERConfig) -> TokenStream:
    """The words sacrebleu's TER reads in the hypotheses, then in the references, as ids (equal words,
    equal ids).

    With ``normalized`` or ``no_punct``, sacrebleu runs its Tercom normalizer over each hypothesis once
    and over each reference twice (its reference cache normalizes the lines it then normalizes again),
    which differs where a first pass makes room for a rule: ``'s`` before a tab is split off only then.

    Example:
        >>> ter_words(["The cat,"], ["the  cat"], TERConfig()).ids.tolist()
        [0, 1, 0, 2]
        >>> ter_words(["a's\\tb"], ["a's\\tb"], TERConfig(normalized=True)).ids.tolist()
        [0, 1, 2, 3, 1]
    """
    if not config.tercom_rules:
        return tokenized_lines([*hypotheses, *references], "none", lowercase=not config.case_sensitive)
    try:
        from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer
    except ImportError as error:  # pragma: no cover - depends on the installation
        raise InputError("TER's normalized and no_punct need sacrebleu: pip install 'torch-bleu[text]'") from error
    tercom = TercomTokenizer(config.normalized, config.no_punct, config.asian_support, config.case_sensitive)
    references = [tercom(tercom(line.rstrip())) for line in references]
    return tokenized_lines([*(tercom(line.rstrip()) for line in hypotheses), *references], "none")


def reference_counts(references: Sequence[Sequence[str]]) -> np.ndarray:
    """The number of references of each sentence, at most :data:`~.config.MAX_REFERENCES`.

    Example:
        >>> reference_counts([["a"], ["b", "c"]]).tolist()
        [1, 2]
    """
    counts = np.fromiter(map(len, references), dtype=np.int64, count=len(references))
    check_reference_count(int(counts.max(initial=0)))
    return counts


def ter_statistics(hypotheses: Sequence[str], references: Sequence[Sequence[str]], config: TERConfig) -> np.ndarray:
    """``(B, 2)`` int64 statistics of each sentence: its fewest edits against any of its references (at
    least one each), and the mean length of its references in :data:`LENGTH_UNIT` parts of a word.

    Example:
        >>> ter_statistics(["a b c d"], [["b c d a", "a b x"]], TERConfig()).tolist()
        [[1, 2522520]]
        >>> 2522520 / LENGTH_UNIT   # (4 + 3) / 2 words
        3.5
    """
    counts = reference_counts(references)
    words = ter_words(hypotheses, [reference for refs in references for reference in refs], config)
    batch = len(hypotheses)
    hyp_lengths, ref_lengths = words.lengths[:batch], words.lengths[batch:]
    hyp_words = words.ids[: int(hyp_lengths.sum())]
    ref_words = words.ids[hyp_words.size :]
    sentence = np.repeat(np.arange(batch), counts)  # of each pair
    n = hyp_lengths[sentence]
    pair_word = np.repeat((np.cumsum(hyp_lengths) - hyp_lengths)[sentence] - (np.cumsum(n) - n), n)
    edits = edit_counts(hyp_words[pair_word + np.arange(n.sum())], n, ref_words, ref_lengths)
    statistics = np.zeros((batch, 2), dtype=np.int64)
    if batch:
        first_pair = np.cumsum(counts) - counts
        statistics[:, 0] = np.minimum.reduceat(edits, first_pair)
        statistics[:, 1] = np.add.reduceat(ref_lengths, first_pair) * (LENGTH_UNIT // counts)
    return statistics
