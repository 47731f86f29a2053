"""The options of chrF, checked once for the functions and the metric alike."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

from ..config import _check_ignore_ids

if TYPE_CHECKING:
    from ..detokenize.detokenizer import Detokenizer


@dataclass(frozen=True, init=False)
class CHRFConfig:
    """One flavour of chrF, with sacrebleu's defaults (``CHRF()``: chrF2, 6 character orders, no words).

    Args:
        char_order: highest character n-gram order (sacrebleu's ``char_order``).
        word_order: highest word n-gram order; 2 is chrF++ (sacrebleu's ``word_order``).
        beta: weight of recall against precision.
        whitespace: keep whitespace in character n-grams (sacrebleu's ``whitespace``); text only.
        eps_smoothing: sacrebleu's ``eps_smoothing`` (the chrF++.py / nltk / Moses average); by default
            the effective-order average of sacrebleu 2.
        lowercase: lowercase strings first; text only.
        ignore_ids: ids dropped before decoding (with ``detokenizer``).
        detokenizer: a :class:`~torch_bleu.Detokenizer` to score subword ids as their decoded text.

    Example:
        >>> CHRFConfig(word_order=2).orders
        8
        >>> CHRFConfig(lowercase=True, detokenizer=None).lowercase
        True
    """

    char_order: int
    word_order: int
    beta: float
    whitespace: bool
    eps_smoothing: bool
    lowercase: bool
    ignore_ids: tuple[int, ...]
    detokenizer: Detokenizer | None

    def __init__(
        self,
        char_order: int = 6,
        word_order: int = 0,
        beta: float = 2,
        whitespace: bool = False,
        eps_smoothing: bool = False,
        lowercase: bool = False,
        ignore_ids: Sequence[int] = (),
        detokenizer: Detokenizer | None = None,
    ) -> None:
        for name, value in (("char_order", char_order), ("word_order", word_order)):
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
                raise ValueError(f"{name} must be an integer >= 0, got {value!r}")
        if char_order + word_order == 0:
            raise ValueError("char_order and word_order are both 0: there is nothing to count")
        if isinstance(beta, bool) or not isinstance(beta, numbers.Real) or not beta >= 0:
            raise ValueError(f"beta must be a number >= 0, got {beta!r}")
        for name, flag in (("whitespace", whitespace), ("eps_smoothing", eps_smoothing), ("lowercase", lowercase)):
            if not isinstance(flag, bool):
                raise TypeError(f"{name} must be a bool, got {type(flag).__name__}")
        checked_ids = _check_ignore_ids(ignore_ids)
        _check_sources(detokenizer, checked_ids, lowercase, whitespace)
        values = {
            "char_order": int(char_order),
            "word_order": int(word_order),
            "beta": beta,
            "whitespace": whitespace,
            "eps_smoothing": eps_smoothing,
            "lowercase": lowercase,
            "ignore_ids": checked_ids,
            "detokenizer": detokenizer,
        }
        for name, value in values.items():
            object.__setattr__(self, name, value)

    @property
    def orders(self) -> int:
        """How many orders the statistics have: the character orders, then the word orders."""
        return self.char_order + self.word_order


class CHRFOptions(TypedDict, total=False):
    """The keyword arguments of :func:`~torch_bleu.corpus_chrf` and :func:`~torch_bleu.sentence_chrf`:
    the arguments of :class:`CHRFConfig`."""

    char_order: int
    word_order: int
    beta: float
    whitespace: bool
    eps_smoothing: bool
    lowercase: bool
    ignore_ids: Sequence[int]
    detokenizer: Detokenizer | None


def chrf_config(options: dict[str, Any]) -> CHRFConfig:
    """A :class:`CHRFConfig` from keyword arguments, with a clear error for an unknown one."""
    names = CHRFOptions.__annotations__
    for name in options:
        if name not in names:
            raise TypeError(f"unknown option {name!r}: the options are {', '.join(names)}")
    return CHRFConfig(**options)


def _check_sources(detokenizer: object, ignore_ids: tuple[int, ...], lowercase: bool, whitespace: bool) -> None:
    if detokenizer is None:
        if ignore_ids:
            raise ValueError("ignore_ids apply to subword ids, which need a detokenizer; strings have none to ignore")
        return
    from ..detokenize.detokenizer import TEXT_INPUT_HINT, Detokenizer  # imports PyTorch, which text needs not

    if not isinstance(detokenizer, Detokenizer):
        raise TypeError(f"detokenizer must be a torch_bleu.Detokenizer, got {type(detokenizer).__name__}")
    if lowercase:
        raise ValueError("lowercase=True is not computed on ids (Unicode case mapping): " + TEXT_INPUT_HINT)
    if whitespace:
        raise ValueError(
            "whitespace=True is not computed on ids (decoders differ on the spaces at the start of a row): "
            + TEXT_INPUT_HINT
        )
