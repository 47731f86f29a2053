"""CIDEr-D's options, declared and checked once for the functions."""

from __future__ import annotations

from dataclasses import dataclass

from ..config import SubwordConfig, SubwordOptions

#: Option names of pycocoevalcap and torchmetrics-style callers, each with what to do here instead.
FOREIGN_OPTIONS = {
    "n": (
        "pycocoevalcap's n is no option here: its n-grams are always of 1 to 4 words (other values of n fail or "
        "scale its scores), and so are CIDEr-D's here"
    ),
    "gts": "pycocoevalcap's gts (references by image) is the second argument here, target: a list per image",
    "res": "pycocoevalcap's res (the caption of each image) is the first argument here, preds: one string per image",
}


#: What to do with subword ids, which CIDEr does not decode yet.
_DECODE_ADVICE = "for subword ids, decode them and pass strings"


class CIDErOptions(SubwordOptions, total=False):
    """CIDEr-D's options for type checkers: :class:`CIDErConfig`'s fields, by name."""

    sigma: float


@dataclass(frozen=True, kw_only=True)
class CIDErConfig(SubwordConfig):
    """CIDEr-D as pycocoevalcap 1.2's ``Cider(sigma=sigma)`` computes it, of n-grams of 1 to 4 words.

    Strings are captions tokenized already: their words are split on whitespace (``str.split()``), as
    pycocoevalcap splits them (COCO's evaluation runs its PTB tokenizer first; do that before passing
    them). Rows of token ids are scored as they are, each id one word.

    Args:
        sigma: the standard deviation of the Gaussian penalty on the difference of bigram counts.
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

    metric_name = "CIDEr"
    counting_options = ("sigma",)
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
        super().__post_init__()
        if self.detokenizer is not None:
            raise ValueError(f"CIDEr does not decode subword ids yet; {_DECODE_ADVICE}")
