"""torch-bleu: exact BLEU, chrF, TER, WER, CER and ROUGE of token ids, strings or subword ids, on any device, summed
across DDP ranks.

>>> import torch, torch_bleu
>>> metric = torch_bleu.BLEUScore(ignore_ids=[0])
>>> metric.update(torch.tensor([[3, 4, 5, 6, 0]]), torch.tensor([[3, 4, 5, 6]]))
>>> metric.compute().item()
1.0
"""

import importlib
from typing import TYPE_CHECKING, Any

from .version import __version__

if TYPE_CHECKING:
    from .detokenize.detokenizer import Detokenizer
    from .metrics.bleu.config import BLEUConfig, BLEUOptions
    from .metrics.bleu.functional import bleu_statistics, corpus_bleu, sentence_bleu
    from .metrics.bleu.metric import BLEUScore
    from .metrics.bleu.score import bleu_from_statistics
    from .metrics.bleu.statistics import SentenceStatistics
    from .metrics.chrf.config import CHRFConfig, CHRFOptions
    from .metrics.chrf.functional import corpus_chrf, sentence_chrf
    from .metrics.chrf.metric import CHRFScore
    from .metrics.paired import paired_bootstrap, paired_randomization
    from .metrics.rouge.config import ROUGEConfig, ROUGEOptions
    from .metrics.rouge.functional import corpus_rouge, rouge_statistics, sentence_rouge
    from .metrics.rouge.metric import ROUGEScore
    from .metrics.rouge.score import rouge_scores
    from .metrics.ter.config import TERConfig, TEROptions
    from .metrics.ter.functional import corpus_ter, sentence_ter
    from .metrics.ter.metric import TERScore
    from .metrics.wer.config import CERConfig, WERConfig, WEROptions
    from .metrics.wer.functional import (
        character_error_counts,
        corpus_cer,
        corpus_wer,
        sentence_cer,
        sentence_wer,
        word_error_counts,
    )
    from .metrics.wer.metric import CERScore, WERScore
    from .metrics.wer.score import ErrorMeasures, error_measures
    from .pairwise.aggregate_bleu import aggregate_bleu
    from .pairwise.aggregate_chrf import aggregate_chrf
    from .pairwise.bleu import pairwise_bleu
    from .pairwise.chrf import pairwise_chrf
    from .pairwise.rouge import pairwise_rouge
    from .pairwise.selection import mbr_select, self_bleu
    from .rewards import SentenceReward
    from .threads import cpu_share, get_cpu_threads, set_cpu_threads

__all__ = [
    "BLEUConfig",
    "BLEUOptions",
    "BLEUScore",
    "CERConfig",
    "CERScore",
    "CHRFConfig",
    "CHRFOptions",
    "CHRFScore",
    "Detokenizer",
    "ErrorMeasures",
    "ROUGEConfig",
    "ROUGEOptions",
    "ROUGEScore",
    "SentenceReward",
    "SentenceStatistics",
    "TERConfig",
    "TEROptions",
    "TERScore",
    "WERConfig",
    "WEROptions",
    "WERScore",
    "__version__",
    "aggregate_bleu",
    "aggregate_chrf",
    "bleu_from_statistics",
    "bleu_statistics",
    "character_error_counts",
    "corpus_bleu",
    "corpus_cer",
    "corpus_chrf",
    "corpus_rouge",
    "corpus_ter",
    "corpus_wer",
    "cpu_share",
    "error_measures",
    "get_cpu_threads",
    "mbr_select",
    "paired_bootstrap",
    "paired_randomization",
    "pairwise_bleu",
    "pairwise_chrf",
    "pairwise_rouge",
    "rouge_scores",
    "rouge_statistics",
    "self_bleu",
    "sentence_bleu",
    "sentence_cer",
    "sentence_chrf",
    "sentence_rouge",
    "sentence_ter",
    "sentence_wer",
    "set_cpu_threads",
    "word_error_counts",
]

# Where each public name lives. They load on first use, so that the command line, which counts with
# NumPy on a CPU, starts without importing PyTorch (about a second) or torchmetrics.
_LAZY_MODULES = {
    "BLEUConfig": "metrics.bleu.config",
    "BLEUOptions": "metrics.bleu.config",
    "BLEUScore": "metrics.bleu.metric",
    "CERConfig": "metrics.wer.config",
    "CERScore": "metrics.wer.metric",
    "CHRFConfig": "metrics.chrf.config",
    "CHRFOptions": "metrics.chrf.config",
    "CHRFScore": "metrics.chrf.metric",
    "Detokenizer": "detokenize.detokenizer",
    "ErrorMeasures": "metrics.wer.score",
    "ROUGEConfig": "metrics.rouge.config",
    "ROUGEOptions": "metrics.rouge.config",
    "ROUGEScore": "metrics.rouge.metric",
    "SentenceReward": "rewards",
    "SentenceStatistics": "metrics.bleu.statistics",
    "TERConfig": "metrics.ter.config",
    "TEROptions": "metrics.ter.config",
    "TERScore": "metrics.ter.metric",
    "WERConfig": "metrics.wer.config",
    "WEROptions": "metrics.wer.config",
    "WERScore": "metrics.wer.metric",
    "aggregate_bleu": "pairwise.aggregate_bleu",
    "aggregate_chrf": "pairwise.aggregate_chrf",
    "bleu_from_statistics": "metrics.bleu.score",
    "character_error_counts": "metrics.wer.functional",
    "corpus_cer": "metrics.wer.functional",
    "corpus_wer": "metrics.wer.functional",
    "error_measures": "metrics.wer.score",
    "corpus_bleu": "metrics.bleu.functional",
    "corpus_chrf": "metrics.chrf.functional",
    "corpus_ter": "metrics.ter.functional",
    "corpus_rouge": "metrics.rouge.functional",
    "cpu_share": "threads",
    "get_cpu_threads": "threads",
    "mbr_select": "pairwise.selection",
    "paired_bootstrap": "metrics.paired",
    "paired_randomization": "metrics.paired",
    "pairwise_bleu": "pairwise.bleu",
    "pairwise_chrf": "pairwise.chrf",
    "pairwise_rouge": "pairwise.rouge",
    "rouge_scores": "metrics.rouge.score",
    "rouge_statistics": "metrics.rouge.functional",
    "self_bleu": "pairwise.selection",
    "sentence_rouge": "metrics.rouge.functional",
    "sentence_bleu": "metrics.bleu.functional",
    "sentence_chrf": "metrics.chrf.functional",
    "bleu_statistics": "metrics.bleu.functional",
    "sentence_ter": "metrics.ter.functional",
    "sentence_wer": "metrics.wer.functional",
    "sentence_cer": "metrics.wer.functional",
    "set_cpu_threads": "threads",
    "word_error_counts": "metrics.wer.functional",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY_MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_LAZY_MODULES[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY_MODULES))
