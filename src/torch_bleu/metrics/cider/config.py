"""CIDEr-D's options, declared and checked once for the functions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

from ...errors import InputError
from ..config import SubwordConfig, SubwordOptions

if TYPE_CHECKING:
    from ...inputs.batch import TokenBatch
    from .document_frequency import DocumentFrequency

#: Option names of pycocoevalcap and torchmetrics-style callers, each with what to do here instead.
FOREIGN_OPTIONS = {
    "n": (
        "pycocoevalcap's n is no option here: its n-grams are always of 1 to 4 words (other values of n fail or "
        "scale its scores), and so are CIDEr-D's here"
    ),
    "gts": "pycocoevalcap's gts (references by image) is the second argument here, target: a list per image",
    "res": "pycocoevalcap's res (the caption of each image) is the first argument here, preds: one string per image",
}


#: How strings become words: ``"none"``, split on whitespace (tokenized already), or ``"ptb"``, ``COCOEvalCap``'s
#: PTB tokenization first (:func:`~torch_bleu.text.ptb.ptb_tokenize`).
CaptionTokenizer = Literal["none", "ptb"]
CAPTION_TOKENIZERS: tuple[CaptionTokenizer, ...] = get_args(CaptionTokenizer)

#: What to do with subword ids, which CIDEr does not decode yet.
_DECODE_ADVICE = "for subword ids, decode them and pass strings"


class CIDErOptions(SubwordOptions, total=False):
    """CIDEr-D's options for type checkers: :class:`CIDErConfig`'s fields, by name."""

    sigma: float
    document_frequency: DocumentFrequency | None
    count_eos: bool
    tokenize: CaptionTokenizer


@dataclass(frozen=True, kw_only=True)
class CIDErConfig(SubwordConfig):
    """CIDEr-D as pycocoevalcap 1.2's ``Cider(sigma=sigma)`` computes it, of n-grams of 1 to 4 words.

    Strings are captions tokenized already: their words are split on whitespace (``str.split()``), as
    pycocoevalcap splits them (COCO's evaluation runs its PTB tokenizer first; do that before passing
    them). Rows of token ids are scored as they are, each id one word.

    Args:
        sigma: the standard deviation of the Gaussian penalty on the difference of bigram counts.
        document_frequency: a training corpus' document frequencies
            (:class:`~torch_bleu.metrics.cider.document_frequency.DocumentFrequency`), as self-critical
            training's ``CiderD(df=...)`` uses them: ``N`` is then that corpus' number of images, and every image is
            scored on its own. ``None`` (the default): those of the images scored, as pycocoevalcap's ``Cider``.
        tokenize: strings: ``"none"`` (the default: tokenized already, words split on whitespace) or ``"ptb"``
            (raw captions, tokenized as ``COCOEvalCap`` does first: lowercased, PTB tokens, its punctuation
            dropped; :func:`~torch_bleu.text.ptb.ptb_tokenize`, no Java needed).
        count_eos: rows of ids: the ``eos_id`` that ends a row counts as one more word of it (self-critical
            training's ``array_to_str`` keeps the end token 0 in every sentence, and its document frequencies hold
            it). A row of nothing but EOS and ignored ids is still an absent reference beside others.
        ignore_ids, eos_id: rows of ids (:class:`~torch_bleu.metrics.config.SubwordConfig`); subword ids
            (``detokenizer=``) are not scored yet: decode them and pass strings.

    Example:
        >>> CIDErConfig().sigma
        6.0
        >>> CIDErConfig(sigma=0)
        Traceback (most recent call last):
        ...
        ValueError: sigma must be a positive number (pycocoevalcap's default is 6.0), got 0
    """

    sigma: float = 6.0
    document_frequency: DocumentFrequency | None = None
    count_eos: bool = False
    tokenize: CaptionTokenizer = "none"

    metric_name = "CIDEr"
    counting_options = ("sigma", "document_frequency", "count_eos", "tokenize")
    foreign_options = FOREIGN_OPTIONS
    scores_plain_ids = True

    @property
    def input_hint(self) -> str:
        """What to do with input of the wrong kind (subword ids are not decoded here yet).

        Example:
            >>> print(CIDErConfig().input_hint)
            CIDEr scores strings, or rows of ids (each id one word); for subword ids, decode them and pass strings
        """
        return f"{self.metric_name} scores strings, or rows of ids (each id one word); {_DECODE_ADVICE}"

    def __post_init__(self) -> None:
        sigma = self.sigma
        if isinstance(sigma, bool) or not isinstance(sigma, (int, float)) or not 0 < sigma < float("inf"):
            raise ValueError(f"sigma must be a positive number (pycocoevalcap's default is 6.0), got {sigma!r}")
        object.__setattr__(self, "sigma", float(sigma))
        from .document_frequency import DocumentFrequency  # imports PyTorch, which a config of text needs not

        if self.document_frequency is not None and not isinstance(self.document_frequency, DocumentFrequency):
            raise ValueError(
                "document_frequency takes a torch_bleu.DocumentFrequency (from cider_document_frequency(references) "
                f"or DocumentFrequency.load(path)), got {type(self.document_frequency).__name__}"
            )
        if self.tokenize not in CAPTION_TOKENIZERS:
            raise ValueError(
                f"tokenize takes 'none' (captions tokenized already) or 'ptb' (COCOEvalCap's PTB tokenization), got "
                f"{self.tokenize!r}"
            )
        if not isinstance(self.count_eos, bool):
            raise ValueError(f"count_eos must be True or False, got {self.count_eos!r}")
        super().__post_init__()
        if self.count_eos and not self.eos_id:
            raise ValueError("count_eos=True counts the eos_id that ends each row as a word: give eos_id too")
        if self.detokenizer is not None:
            raise ValueError(f"CIDEr does not decode subword ids yet; {_DECODE_ADVICE}")

    def check_ids(self, batch: TokenBatch) -> None:
        """Refuse ``tokenize="ptb"`` with ids: it tokenizes strings; each id is a word already."""
        if self.tokenize != "none":
            raise InputError(f"tokenize={self.tokenize!r} tokenizes strings; rows of ids are words already")
