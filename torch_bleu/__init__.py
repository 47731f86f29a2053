"""torch-bleu: exact BLEU on padded token-id tensors, on any device, summed across DDP ranks.

>>> import torch, torch_bleu
>>> metric = torch_bleu.BLEUScore(ignore_ids=[0])
>>> metric.update(torch.tensor([[3, 4, 5, 6, 0]]), torch.tensor([[3, 4, 5, 6]]))
>>> metric.compute().item()
1.0
"""

import importlib
from typing import TYPE_CHECKING, Any

from .config import BLEUConfig

if TYPE_CHECKING:
    from .chrf.functional import corpus_chrf, sentence_chrf
    from .chrf.metric import CHRFScore
    from .detokenize.detokenizer import Detokenizer
    from .functional import corpus_bleu, sentence_bleu, sentence_statistics
    from .metric import BLEUScore
    from .score import bleu_from_statistics
    from .statistics import SentenceStatistics

__all__ = [
    "BLEUConfig",
    "BLEUScore",
    "CHRFScore",
    "Detokenizer",
    "SentenceStatistics",
    "bleu_from_statistics",
    "corpus_bleu",
    "corpus_chrf",
    "sentence_bleu",
    "sentence_chrf",
    "sentence_statistics",
]
__version__ = "0.1.0"

# Where the names that need PyTorch live. They load on first use, so that the command line, which
# counts with NumPy on a CPU, starts without importing PyTorch (about a second) or torchmetrics.
_LAZY_MODULES = {
    "BLEUScore": "metric",
    "CHRFScore": "chrf.metric",
    "corpus_chrf": "chrf.functional",
    "sentence_chrf": "chrf.functional",
    "Detokenizer": "detokenize.detokenizer",
    "SentenceStatistics": "statistics",
    "bleu_from_statistics": "score",
    "corpus_bleu": "functional",
    "sentence_bleu": "functional",
    "sentence_statistics": "functional",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY_MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_LAZY_MODULES[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY_MODULES))
