"""torch-bleu: exact BLEU on padded token-id tensors, on any device, summed across DDP ranks.

>>> import torch, torch_bleu
>>> metric = torch_bleu.BLEUScore(ignore_ids=[0])
>>> metric.update(torch.tensor([[3, 4, 5, 6, 0]]), torch.tensor([[3, 4, 5, 6]]))
>>> metric.compute().item()
1.0
"""

from .config import BLEUConfig
from .functional import corpus_bleu, sentence_bleu
from .metric import BLEUScore
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
