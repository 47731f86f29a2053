"""TER statistics of whole corpora, for the command line: every system against shared references.

Counted with NumPy on the host (the shift search runs there on every device); imports no PyTorch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .config import TERConfig
from .statistics import ter_statistics

#: Sentences searched together: large enough that each shift round's fixed work is shared by many,
#: small enough that the rows of every pair's matrix stay in the CPU's caches.
SENTENCES_PER_BATCH = 512


def corpus_ter_statistics(
    systems: Sequence[Sequence[str]],
    references: Sequence[Sequence[str]],
    config: TERConfig,
    progress: Callable[[int], None] | None = None,
) -> np.ndarray:
    """``(K, B, 2)`` int64 statistics of every sentence of ``K`` systems against the reference streams
    (:func:`~.statistics.ter_statistics`).

    Example:
        >>> corpus_ter_statistics([["a b"], ["b a"]], [["a b"]], TERConfig())[..., 0].tolist()
        [[0], [1]]
    """
    packed = np.zeros((len(systems), len(references[0]), 2), dtype=np.int64)
    sentence_references = [list(refs) for refs in zip(*references)]
    for index, system in enumerate(systems):
        for start in range(0, len(system), SENTENCES_PER_BATCH):
            stop = min(start + SENTENCES_PER_BATCH, len(system))
            packed[index, start:stop] = ter_statistics(system[start:stop], sentence_references[start:stop], config)
            if progress is not None:
                progress(stop - start)
    return packed
