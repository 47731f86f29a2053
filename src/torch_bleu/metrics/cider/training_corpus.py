"""A training corpus' document frequencies counted from its references (self-critical.pytorch's
``prepro_ngrams.py``): once per training run, on the host."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from torch import Tensor

from ...errors import InputError
from ...inputs.ids import token_batch
from ...inputs.kinds import TokenIds
from ...threads import within_cpu_share
from .config import CaptionTokenizer, CIDErConfig
from .consensus import ORDERS
from .counting import id_captions, ptb_tokenized
from .document_frequency import DocumentFrequency


@within_cpu_share
def cider_document_frequency(
    references: Any,
    *,
    tokenize: CaptionTokenizer = "none",
    ignore_ids: Any = (),
    eos_id: Any = None,
    count_eos: bool = False,
) -> DocumentFrequency:
    """The document frequencies of a training corpus: for every n-gram of 1 to 4 words, how many images' references
    (as one set per image) hold it; self-critical.pytorch's ``prepro_ngrams.py``.

    Args:
        references: a list per image of its reference strings (words split on whitespace), or ids: ``(B, R, L)``
            (rows of ignored ids only are absent beside others) or a list per image of rows. Ids become the
            words ``str(id)``, as in self-critical.pytorch's ``-idxs`` pickle.
        tokenize: strings: ``"none"`` (tokenized already) or ``"ptb"`` (``COCOEvalCap``'s PTB tokenization first).
        ignore_ids, eos_id, count_eos: rows of ids, as :class:`~torch_bleu.CIDErConfig` reads them (with
            ``eos_id=0, count_eos=True``, the end token 0 is a word, as ``prepro_ngrams.py`` appends ``<eos>``).

    Example:
        >>> frequency = cider_document_frequency([["a dog runs", "a dog"], ["a cat"]])
        >>> frequency.images, frequency[("a",)], frequency[("a", "dog")], frequency[("dog", "runs")]
        (2, 2, 1, 1)
    """
    options: dict[str, Any] = {"tokenize": tokenize, "ignore_ids": ignore_ids, "eos_id": eos_id, "count_eos": count_eos}
    config = CIDErConfig.from_options(options)
    images = len(references)
    if images == 0:
        raise InputError("a document frequency needs the references of at least one image")
    if _holds_strings(references):
        config.check_strings()
        texts = [[refs] if isinstance(refs, str) else list(refs) for refs in references]
        if tokenize == "ptb":
            texts = ptb_tokenized([""] * len(texts), texts)[1]
        sentences = [[ref.split() for ref in refs] for refs in texts]
    else:
        sentences = _id_sentences(references, config)
    counts: dict[tuple[str, ...], int] = defaultdict(int)
    for image in sentences:
        held: set[tuple[str, ...]] = set()
        for sentence in image:
            for order in range(1, ORDERS + 1):
                held.update(tuple(sentence[start : start + order]) for start in range(len(sentence) - order + 1))
        for ngram in held:
            counts[ngram] += 1
    return DocumentFrequency(counts, images)


def _holds_strings(references: Any) -> bool:
    return isinstance(references, (list, tuple)) and any(
        isinstance(refs, str) or (isinstance(refs, (list, tuple)) and any(isinstance(ref, str) for ref in refs))
        for refs in references
    )


def _id_sentences(references: Any, config: CIDErConfig) -> list[list[list[str]]]:
    """Each image's references that count, as their kept ids written ``str(id)``."""
    captions = references[:, 0] if isinstance(references, Tensor) else [refs[0] for refs in references]
    counted = id_captions(TokenIds(token_batch(captions, references), config), config)
    rows = counted.present.shape[1]
    words, lengths, present = (part.cpu().tolist() for part in (counted.words, counted.lengths, counted.present))
    return [
        [[str(word) for word in image_words[row][: image_lengths[row]]] for row in range(rows) if image_present[row]]
        for image_words, image_lengths, image_present in zip(words, lengths, present)
    ]
