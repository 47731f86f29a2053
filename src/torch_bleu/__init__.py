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

from .version import __version__ as __version__

# For type checkers: every public name, imported as itself so that it counts as exported (a test keeps these
# imports and the table below equal).
if TYPE_CHECKING:
    from .captioning import CaptionScores as CaptionScores
    from .captioning import coco_caption_scores as coco_caption_scores
    from .detokenize.detokenizer import Detokenizer as Detokenizer
    from .metrics.bleu.by_order import BLEUByOrder as BLEUByOrder
    from .metrics.bleu.config import BLEUConfig as BLEUConfig
    from .metrics.bleu.config import BLEUOptions as BLEUOptions
    from .metrics.bleu.functional import bleu_by_order as bleu_by_order
    from .metrics.bleu.functional import bleu_statistics as bleu_statistics
    from .metrics.bleu.functional import corpus_bleu as corpus_bleu
    from .metrics.bleu.functional import sentence_bleu as sentence_bleu
    from .metrics.bleu.metric import BLEUScore as BLEUScore
    from .metrics.bleu.score import bleu_from_statistics as bleu_from_statistics
    from .metrics.bleu.statistics import SentenceStatistics as SentenceStatistics
    from .metrics.chrf.config import CHRFConfig as CHRFConfig
    from .metrics.chrf.config import CHRFOptions as CHRFOptions
    from .metrics.chrf.functional import corpus_chrf as corpus_chrf
    from .metrics.chrf.functional import sentence_chrf as sentence_chrf
    from .metrics.chrf.metric import CHRFScore as CHRFScore
    from .metrics.cider.config import CIDErConfig as CIDErConfig
    from .metrics.cider.config import CIDErOptions as CIDErOptions
    from .metrics.cider.document_frequency import DocumentFrequency as DocumentFrequency
    from .metrics.cider.functional import corpus_cider as corpus_cider
    from .metrics.cider.functional import sentence_cider as sentence_cider
    from .metrics.cider.metric import CIDErScore as CIDErScore
    from .metrics.cider.self_critical import SelfCriticalReward as SelfCriticalReward
    from .metrics.cider.self_critical import scst_reward as scst_reward
    from .metrics.cider.training_corpus import cider_document_frequency as cider_document_frequency
    from .metrics.paired import paired_bootstrap as paired_bootstrap
    from .metrics.paired import paired_randomization as paired_randomization
    from .metrics.rouge.config import ROUGEConfig as ROUGEConfig
    from .metrics.rouge.config import ROUGEOptions as ROUGEOptions
    from .metrics.rouge.functional import corpus_rouge as corpus_rouge
    from .metrics.rouge.functional import rouge_statistics as rouge_statistics
    from .metrics.rouge.functional import sentence_rouge as sentence_rouge
    from .metrics.rouge.metric import ROUGEScore as ROUGEScore
    from .metrics.rouge.score import rouge_scores as rouge_scores
    from .metrics.ter.config import TERConfig as TERConfig
    from .metrics.ter.config import TEROptions as TEROptions
    from .metrics.ter.functional import corpus_ter as corpus_ter
    from .metrics.ter.functional import sentence_ter as sentence_ter
    from .metrics.ter.metric import TERScore as TERScore
    from .metrics.wer.config import CERConfig as CERConfig
    from .metrics.wer.config import WERConfig as WERConfig
    from .metrics.wer.config import WEROptions as WEROptions
    from .metrics.wer.functional import character_error_counts as character_error_counts
    from .metrics.wer.functional import corpus_cer as corpus_cer
    from .metrics.wer.functional import corpus_wer as corpus_wer
    from .metrics.wer.functional import sentence_cer as sentence_cer
    from .metrics.wer.functional import sentence_wer as sentence_wer
    from .metrics.wer.functional import word_error_counts as word_error_counts
    from .metrics.wer.metric import CERScore as CERScore
    from .metrics.wer.metric import WERScore as WERScore
    from .metrics.wer.score import ErrorMeasures as ErrorMeasures
    from .metrics.wer.score import error_measures as error_measures
    from .pairwise.aggregate_bleu import aggregate_bleu as aggregate_bleu
    from .pairwise.aggregate_chrf import aggregate_chrf as aggregate_chrf
    from .pairwise.bleu import pairwise_bleu as pairwise_bleu
    from .pairwise.chrf import pairwise_chrf as pairwise_chrf
    from .pairwise.rouge import pairwise_rouge as pairwise_rouge
    from .pairwise.selection import mbr_select as mbr_select
    from .pairwise.selection import self_bleu as self_bleu
    from .rewards import SentenceReward as SentenceReward
    from .text.ptb import ptb_tokenize as ptb_tokenize
    from .threads import cpu_share as cpu_share
    from .threads import get_cpu_threads as get_cpu_threads
    from .threads import set_cpu_threads as set_cpu_threads

# Where each public name lives. They load on first use, so that the command line, which counts with
# NumPy on a CPU, starts without importing PyTorch (about a second) or torchmetrics.
_LAZY_MODULES = {
    "BLEUByOrder": "metrics.bleu.by_order",
    "BLEUConfig": "metrics.bleu.config",
    "BLEUOptions": "metrics.bleu.config",
    "BLEUScore": "metrics.bleu.metric",
    "CaptionScores": "captioning",
    "CERConfig": "metrics.wer.config",
    "CERScore": "metrics.wer.metric",
    "CHRFConfig": "metrics.chrf.config",
    "CHRFOptions": "metrics.chrf.config",
    "CHRFScore": "metrics.chrf.metric",
    "CIDErConfig": "metrics.cider.config",
    "CIDErOptions": "metrics.cider.config",
    "CIDErScore": "metrics.cider.metric",
    "Detokenizer": "detokenize.detokenizer",
    "DocumentFrequency": "metrics.cider.document_frequency",
    "ErrorMeasures": "metrics.wer.score",
    "ROUGEConfig": "metrics.rouge.config",
    "ROUGEOptions": "metrics.rouge.config",
    "ROUGEScore": "metrics.rouge.metric",
    "SelfCriticalReward": "metrics.cider.self_critical",
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
    "cider_document_frequency": "metrics.cider.training_corpus",
    "corpus_cer": "metrics.wer.functional",
    "corpus_wer": "metrics.wer.functional",
    "error_measures": "metrics.wer.score",
    "coco_caption_scores": "captioning",
    "corpus_bleu": "metrics.bleu.functional",
    "corpus_chrf": "metrics.chrf.functional",
    "corpus_cider": "metrics.cider.functional",
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
    "ptb_tokenize": "text.ptb",
    "rouge_scores": "metrics.rouge.score",
    "rouge_statistics": "metrics.rouge.functional",
    "scst_reward": "metrics.cider.self_critical",
    "self_bleu": "pairwise.selection",
    "sentence_rouge": "metrics.rouge.functional",
    "sentence_bleu": "metrics.bleu.functional",
    "sentence_chrf": "metrics.chrf.functional",
    "sentence_cider": "metrics.cider.functional",
    "bleu_by_order": "metrics.bleu.functional",
    "bleu_statistics": "metrics.bleu.functional",
    "sentence_ter": "metrics.ter.functional",
    "sentence_wer": "metrics.wer.functional",
    "sentence_cer": "metrics.wer.functional",
    "set_cpu_threads": "threads",
    "word_error_counts": "metrics.wer.functional",
}

# The public names. Type checkers skip this: they read no computed __all__ (mypy would then take every name
# for private), and take the names imported as themselves above instead.
if not TYPE_CHECKING:
    __all__ = sorted(["__version__", *_LAZY_MODULES])


def __getattr__(name: str) -> Any:
    if name not in _LAZY_MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_LAZY_MODULES[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY_MODULES))
