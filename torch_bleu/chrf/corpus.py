"""chrF statistics of whole corpora, for the command line: every system against shared references."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Callable

import numpy as np
import torch

from .config import CHRFConfig
from .statistics import chrf_statistics
from .text import as_text

#: Sentences counted together: enough to keep the operations large, few enough to bound the memory.
SENTENCES_PER_BATCH = 256


def corpus_chrf_statistics(
    systems: Sequence[Sequence[str]],
    references: Sequence[Sequence[str]],
    config: CHRFConfig,
    device: torch.device | None = None,
    progress: Callable[[int], None] | None = None,
) -> np.ndarray:
    """``(K, B, 3 * orders)`` int64 statistics of every sentence of ``K`` systems against the reference streams.

    Each sentence's statistics are those of its best reference (sacrebleu's layout: hypothesis,
    reference and match counts of each order, character orders first).

    Example:
        >>> corpus_chrf_statistics([["ab"], ["ba"]], [["ab"]], CHRFConfig(char_order=1)).tolist()
        [[[2, 2, 2]], [[2, 2, 2]]]
    """
    packed = np.zeros((len(systems), len(references[0]), 3 * config.orders), dtype=np.int64)
    sentence_references = [list(refs) for refs in zip(*references)]
    longest_reference = [max(map(len, refs)) for refs in sentence_references]
    for index, system in enumerate(systems):
        # sentences of similar lengths counted together: rows are padded to the longest of their batch
        order = np.argsort([len(hyp) + longest for hyp, longest in zip(system, longest_reference)], kind="stable")
        for start in range(0, len(system), SENTENCES_PER_BATCH):
            chosen = order[start : start + SENTENCES_PER_BATCH]
            hypotheses = [system[sentence] for sentence in chosen]
            text = as_text(hypotheses, [sentence_references[sentence] for sentence in chosen], config, device)
            packed[index, chosen] = chrf_statistics(text, config).flatten(1).cpu().numpy()
            if progress is not None:
                progress(len(chosen))
    return packed


def chrf_scorer(config: CHRFConfig) -> Callable[[np.ndarray], np.ndarray]:
    """The significance tests' scorer: chrF (0..100) of summed statistics ``(..., 3 * orders)``.

    Example:
        >>> chrf_scorer(CHRFConfig(char_order=1))(np.array([[2, 2, 2], [2, 2, 1]])).round(4).tolist()
        [100.0, 50.0]
    """
    from .score import chrf_percent

    def score(packed: np.ndarray) -> np.ndarray:
        statistics = torch.from_numpy(np.asarray(packed, dtype=np.float64))
        shaped = statistics.reshape(*statistics.shape[:-1], config.orders, 3)
        scores: np.ndarray = chrf_percent(shaped, config).numpy()
        return scores

    return score
