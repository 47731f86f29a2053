"""What chrF reads: the text of each hypothesis-reference pair, its two rows end to end in one stream.

Each pair is one hypothesis against one of its references (a hypothesis with ``R`` references takes
part in ``R`` pairs); row ``2 p`` holds the hypothesis of pair ``p`` and row ``2 p + 1`` its reference,
as :mod:`torch_bleu.engine.flat_pairs` counts them. Strings become such a stream on the host, with
NumPy only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Generic, NamedTuple

import numpy as np

from ...arrays import Array, ArrayT
from ...text.code_points import utf32

if TYPE_CHECKING:  # to type checkers, one kind of array throughout (a NamedTuple is generic from Python 3.11 on)

    class TextPairs(NamedTuple, Generic[ArrayT]):
        """The pairs below, their arrays of one kind."""

        chars: ArrayT
        rows: ArrayT
        batch: int
        references: int
        present: ArrayT | None

else:

    class TextPairs(NamedTuple):
        """A batch of ``B`` sentences with ``R`` reference slots each, as ``B * R`` pairs of rows of text.

        Attributes:
            chars: ``(N,)`` int32 code points (``-1`` in a slot of no row).
            rows: ``(N,)`` int64 row of each slot: ``2 p``, ``2 p + 1``, or ``2 B R`` for a slot of no row.
            batch: ``B``.
            references: ``R``.
            present: ``(B, R)`` bool, the references that exist; ``None`` when all do.
        """

        chars: Array
        rows: Array
        batch: int
        references: int
        present: Array | None


def pairs_from_strings(texts: Sequence[Sequence[str]]) -> TextPairs[np.ndarray]:
    """Per sentence its hypothesis and then its references (as many as it has), as NumPy pairs.

    Example:
        >>> text = pairs_from_strings([["ab", "a"], ["c", "c", "d"]])
        >>> text.chars.tolist(), text.rows.tolist(), text.present.tolist()
        ([97, 98, 97, 97, 98, 99, 99, 99, 100], [0, 0, 1, 2, 2, 4, 5, 6, 7], [[True, False], [True, True]])
    """
    counts = [len(strings) - 1 for strings in texts]
    references = max(counts, default=1)
    rows: list[str] = []
    for hypothesis, *given in texts:
        for reference in range(references):
            rows += (hypothesis, given[reference] if reference < len(given) else "")
    lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
    chars = utf32(rows)
    row_of_slot = np.repeat(np.arange(len(rows), dtype=np.int64), lengths)
    present = None
    if any(count != references for count in counts):
        present = np.arange(references) < np.asarray(counts, dtype=np.int64)[:, None]
    return TextPairs(chars, row_of_slot, len(texts), references, present)
