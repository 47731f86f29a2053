"""COCO caption evaluation's scores in one call: BLEU-1..4, ROUGE-L and CIDEr-D as pycocoevalcap 1.2's
``COCOEvalCap`` computes them (its ``eval`` and ``imgToEval``), each from the metric of its own package under
COCO's conventions: :func:`~torch_bleu.bleu_by_order` with ``convention="coco"``,
:func:`~torch_bleu.sentence_rouge` with ``convention="coco"``, :func:`~torch_bleu.sentence_cider`.
"""

from __future__ import annotations

from typing import Any, Literal, NamedTuple

import torch
from torch import Tensor

from .errors import InputError
from .inputs.batch import TokenBatch
from .inputs.strings import words_batch
from .metrics.bleu.functional import bleu_by_order
from .metrics.cider.counting import ptb_tokenized
from .metrics.cider.functional import sentence_cider
from .metrics.rouge.functional import sentence_rouge
from .threads import within_cpu_share

#: The scores, named as ``COCOEvalCap.eval`` names them, METEOR and SPICE aside (they run Java models).
SCORE_NAMES = ("Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "ROUGE_L", "CIDEr")

#: How captions become words: ``"ptb"``, ``COCOEvalCap``'s PTB tokenization (lowercased, its punctuation
#: dropped; :func:`~torch_bleu.text.ptb.ptb_tokenize`), or ``"none"``: tokenized already.
CaptionTokenizer = Literal["ptb", "none"]


class CaptionScores(NamedTuple):
    """The scores of :func:`coco_caption_scores`, by name (:data:`SCORE_NAMES`), float64.

    Attributes:
        corpus: each score of the corpus, 0-d (``COCOEvalCap.eval``).
        images: each score of every image, ``(B,)`` (``COCOEvalCap.imgToEval``; for BLEU, pycocoevalcap's
            per-image lists).
    """

    corpus: dict[str, Tensor]
    images: dict[str, Tensor]


@within_cpu_share
def coco_caption_scores(preds: Any, target: Any, *, tokenize: CaptionTokenizer = "ptb") -> CaptionScores:
    """BLEU-1..4, ROUGE-L and CIDEr-D of one caption per image against its references, as ``COCOEvalCap``.

    Args:
        preds: one caption per image: strings, or ``(B, L)`` ids (each id a word; then ``tokenize="none"``).
        target: per image, its references: lists of strings, or ``(B, R, L)`` ids.
        tokenize: ``"ptb"`` (the default, as ``COCOEvalCap`` does before scoring) or ``"none"`` (captions
            tokenized already, words separated by single spaces).

    Example:
        >>> captions = ["A man rides a horse on the beach.", "Two dogs play in the snow."]
        >>> references = [["A man riding a horse on a beach.", "A man rides a brown horse on the beach."],
        ...               ["Two dogs play in the white snow.", "Dogs playing in snow."]]
        >>> scores = coco_caption_scores(captions, references)
        >>> {name: round(score.item(), 4) for name, score in scores.corpus.items()}
        {'Bleu_1': 0.9311, 'Bleu_2': 0.8914, 'Bleu_3': 0.8396, 'Bleu_4': 0.7245, 'ROUGE_L': 0.9209, 'CIDEr': 4.792}
        >>> scores.images["CIDEr"].shape
        torch.Size([2])
    """
    if tokenize not in ("ptb", "none"):
        raise InputError(f"tokenize must be 'ptb' (COCOEvalCap's tokenization) or 'none', got {tokenize!r}")
    if tokenize == "ptb":
        preds, target = _ptb_tokenized(preds, target)
    ids = _numbered_once(preds, target)
    ignore_ids: list[int] = []
    if ids is not None:  # padded with 0
        (preds, target), ignore_ids = ids, [0]
    bleu = bleu_by_order(preds, target, convention="coco", max_order=4, ignore_ids=ignore_ids)
    rouge = sentence_rouge(preds, target, convention="coco", ignore_ids=ignore_ids)["rougeL_fmeasure"]
    cider = sentence_cider(preds, target, ignore_ids=ignore_ids)
    images = {f"Bleu_{order}": bleu.sentences[:, order - 1] for order in range(1, 5)}
    images |= {"ROUGE_L": rouge, "CIDEr": cider}
    corpus = {f"Bleu_{order}": bleu.corpus[order - 1] for order in range(1, 5)}
    corpus |= {name: _mean(images[name]) for name in ("ROUGE_L", "CIDEr")}
    return CaptionScores(corpus, images)


def _mean(scores: Tensor) -> Tensor:
    return scores.mean() if scores.shape[0] else scores.new_zeros(())


def _ptb_tokenized(preds: Any, target: Any) -> tuple[list[str], list[list[str]]]:
    """Captions and references of strings, PTB-tokenized as ``COCOEvalCap`` tokenizes them."""
    if not isinstance(preds, (list, tuple)) or not all(isinstance(caption, str) for caption in preds):
        raise InputError(
            "tokenize='ptb' tokenizes captions given as strings; pass rows of ids with tokenize='none' (each id a word)"
        )
    if not isinstance(target, (list, tuple)) or len(target) != len(preds):
        raise InputError(
            f"target must hold one list of references per caption ({len(preds)}), got {type(target).__name__}"
        )
    return ptb_tokenized(list(preds), [[refs] if isinstance(refs, str) else list(refs) for refs in target])


def _numbered_once(preds: Any, target: Any) -> tuple[Tensor, Tensor] | None:
    """Captions and references of strings as rows of word ids ``1, 2, ...`` padded with 0, the words numbered
    once for the three scorers (:func:`~torch_bleu.inputs.strings.words_batch`); ``None`` where rows of ids
    would not score as the strings: ids given, an empty reference (a row of padding is an absent reference),
    or whitespace other than single spaces between words (ROUGE-L splits on single spaces).
    """
    if not isinstance(preds, (list, tuple)) or not all(isinstance(caption, str) for caption in preds):
        return None
    if not isinstance(target, (list, tuple)) or len(target) != len(preds) or not target:
        return None
    references = [[refs] if isinstance(refs, str) else refs for refs in target]
    if not all(
        isinstance(refs, (list, tuple)) and refs and all(isinstance(ref, str) and ref for ref in refs)
        for refs in references
    ):
        return None
    if any(" ".join(line.split()) != line for line in [*preds, *(ref for refs in references for ref in refs)]):
        return None
    batch = words_batch(list(preds), [list(refs) for refs in references], "none", False, torch.device("cpu"))
    assert isinstance(batch, TokenBatch) and batch.row_lengths is not None  # a device gives padded rows
    rows = torch.cat([batch.preds[:, None], batch.target], dim=1)
    words = torch.arange(rows.shape[-1]) < batch.row_lengths[..., None]
    rows = torch.where(words, rows + 1, 0)  # the words from 1, padding and absent slots 0
    return rows[:, 0], rows[:, 1:]
