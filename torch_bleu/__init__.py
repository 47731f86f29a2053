"""torch-bleu: exact BLEU on padded token-id tensors, on any device, summed across DDP ranks.

>>> import torch, torch_bleu
>>> metric = torch_bleu.BLEUScore(ignore_ids=[0])
>>> metric.update(torch.tensor([[3, 4, 5, 6, 0]]), torch.tensor([[3, 4, 5, 6]]))
>>> metric.compute().item()
1.0
"""

from typing import Any

from .config import BLEUConfig
from .functional import corpus_bleu, sentence_bleu
from .ngrams import SentenceStatistics, sentence_statistics
from .score import bleu_from_statistics

__all__ = [
    "BLEUConfig",
    "BLEUScore",
    "SentenceStatistics",
    "bleu_from_statistics",
    "corpus_bleu",
    "sentence_bleu",
    "sentence_statistics",
]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # BLEUScore needs torchmetrics, which takes about half a second to import: load it on first use,
    # so that the command line and the functional API start faster.
    if name == "BLEUScore":
        from .metric import BLEUScore

        return BLEUScore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
