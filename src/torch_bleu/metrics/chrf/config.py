"""chrF's options, declared and checked once for the functions, the metric and the command line."""

from __future__ import annotations

import numbers
from dataclasses import dataclass

from ...options import check_flag, check_whole
from ..config import SubwordConfig, SubwordOptions

#: What to do where chrF of decoded ids is not exact.
DECODE_HINT = "decode the rows yourself and pass the strings instead"

#: Option names of other chrF libraries, each with what to pass here instead.
FOREIGN_OPTIONS = {
    "n_char_order": "torchmetrics' n_char_order is char_order here",
    "n_word_order": (
        "torchmetrics' n_word_order is word_order here (torchmetrics defaults to 2, chrF++; here, as in "
        "sacrebleu, to 0, chrF: pass word_order=2 for chrF++)"
    ),
    "return_sentence_level_score": (
        "torchmetrics' return_sentence_level_score is torch_bleu.sentence_chrf here (one score per sentence)"
    ),
    "n_gram": "chrF has char_order and word_order (torchmetrics' n_char_order and n_word_order)",
}


class CHRFOptions(SubwordOptions, total=False):
    """chrF's options for type checkers: :class:`CHRFConfig`'s fields, by name."""

    char_order: int
    word_order: int
    beta: float
    whitespace: bool
    eps_smoothing: bool
    lowercase: bool


#: The arguments of torchmetrics' ``CHRFScore``, in the order it takes them by position.
BY_POSITION = ("n_char_order", "n_word_order", "beta", "lowercase", "whitespace", "return_sentence_level_score")


@dataclass(frozen=True, kw_only=True)
class CHRFConfig(SubwordConfig):
    """One flavour of chrF, with sacrebleu's defaults (``CHRF()``: chrF2, 6 character orders, no words).

    Args:
        char_order: highest character n-gram order (sacrebleu's ``char_order``, torchmetrics' ``n_char_order``).
        word_order: highest word n-gram order; 2 is chrF++ (sacrebleu's ``word_order``, torchmetrics'
            ``n_word_order``).
        beta: weight of recall against precision.
        whitespace: keep whitespace in character n-grams (sacrebleu's ``whitespace``); text only.
        eps_smoothing: sacrebleu's ``eps_smoothing`` (the chrF++.py / nltk / Moses average); by default
            the effective-order average of sacrebleu 2.
        lowercase: lowercase strings first; text only.
        ignore_ids, eos_id, detokenizer: subword ids scored as their decoded text
            (:class:`~torch_bleu.metrics.config.SubwordConfig`).

    ``beta`` and ``eps_smoothing`` change the statistics too: each sentence keeps its best reference,
    and which one is best depends on them.

    Example:
        >>> CHRFConfig(word_order=2).orders
        8
        >>> CHRFConfig(char_order=-1)
        Traceback (most recent call last):
        ...
        ValueError: char_order must be an integer >= 0, got -1
    """

    char_order: int = 6
    word_order: int = 0
    beta: float = 2
    whitespace: bool = False
    eps_smoothing: bool = False
    lowercase: bool = False

    metric_name = "chrF"
    counting_options = ("char_order", "word_order", "beta", "whitespace", "eps_smoothing", "lowercase")
    foreign_options = FOREIGN_OPTIONS
    positional_names = BY_POSITION

    def __post_init__(self) -> None:
        orders = {name: check_whole(name, getattr(self, name), minimum=0) for name in ("char_order", "word_order")}
        if sum(orders.values()) == 0:
            raise ValueError("char_order and word_order are both 0: there is nothing to count")
        if isinstance(self.beta, bool) or not isinstance(self.beta, numbers.Real) or not self.beta >= 0:
            raise ValueError(f"beta must be a number >= 0, got {self.beta!r}")
        for name in ("whitespace", "eps_smoothing", "lowercase"):
            object.__setattr__(self, name, check_flag(name, getattr(self, name)))
        super().__post_init__()
        if self.detokenizer is not None:
            if self.lowercase:
                raise ValueError("lowercase=True is not computed on ids (Unicode case mapping): " + DECODE_HINT)
            if self.whitespace:
                raise ValueError(
                    "whitespace=True is not computed on ids (decoders differ on the spaces at the start of a row): "
                    + DECODE_HINT
                )
        for name, value in {**orders, "beta": float(self.beta)}.items():
            object.__setattr__(self, name, value)

    @property
    def orders(self) -> int:
        """How many orders the statistics have: the character orders, then the word orders."""
        return self.char_order + self.word_order
