"""Summaries split into sentences for ``rougeLsum`` by the user's splitter (``split_sentences=``), and the
warning when ``rougeLsum`` can only equal ``rougeL``.

``rougeLsum`` takes a summary's sentences from its lines (rouge-score's rule). Text without newlines,
as decoded ids always are, is one sentence, and its ``rougeLsum`` is its ``rougeL``. Hugging Face's
summarization recipe splits each decoded summary with nltk's ``sent_tokenize`` and joins the sentences
with newlines before scoring; ``split_sentences=nltk.sent_tokenize`` does that here: each prediction and
reference becomes ``"\\n".join(split_sentences(text))`` before it is read (for every ROUGE type, as in
the recipe), on the host.

No splitter is built in: the sentences must be the ones the numbers compared against were split into
(nltk's punkt model, its language, its data downloaded apart from nltk), and a rule of this library's
own would differ from it without a word. The callable names the splitter where the code runs.

When ``rougeLsum`` is asked for without a splitter and no summary counted has a second sentence, a
:class:`SentencesSeen` says so, once, with a ``UserWarning``. Summaries are checked where their words
are on the host (strings, CPU tensors, decoded text read back); rows on an accelerator are not, as
that would wait for the device, except rows of plain ids without ``sentence_sep_id``, one sentence each
by the options alone.
"""

from __future__ import annotations

import functools
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ...arrays import sizes_from_data

if TYPE_CHECKING:
    from torch import Tensor

#: A sentence splitter: a summary's text to its sentences (``nltk.sent_tokenize``).
SentenceSplitter = Callable[[str], list[str]]


def check_splitter(split: object) -> None:
    """Refuse a ``split_sentences`` that is neither ``None`` nor callable.

    Example:
        >>> check_splitter("nltk")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        TypeError: split_sentences must be a function from a summary's text to its list of sentences, ... got str
    """
    if split is not None and not callable(split):
        raise TypeError(
            "split_sentences must be a function from a summary's text to its list of sentences, such as "
            f"nltk.sent_tokenize, got {type(split).__name__}"
        )


def splitter_name(split: object) -> str:
    """The name of a splitter that stands for it alike in every process (fingerprints compare it): its module
    and qualified name, a ``functools.partial``'s arguments too, a callable object's class.

    Example:
        >>> import textwrap
        >>> splitter_name(textwrap.wrap), splitter_name(functools.partial(textwrap.wrap, width=20))
        ('textwrap.wrap', 'functools.partial(textwrap.wrap, width=20)')
    """
    if isinstance(split, functools.partial):
        arguments = [*map(repr, split.args), *(f"{name}={value!r}" for name, value in split.keywords.items())]
        return f"functools.partial({', '.join([splitter_name(split.func), *arguments])})"
    named = split if isinstance(getattr(split, "__qualname__", None), str) else type(split)
    return f"{getattr(named, '__module__', None)}.{getattr(named, '__qualname__', '?')}"


class SplitterName(str):
    """A splitter's name as options show it: without quotes, as the callable's place in the code."""

    def __repr__(self) -> str:
        return str(self)


def split_texts(texts: Sequence[str], split: SentenceSplitter) -> list[str]:
    """Each text as its sentences by ``split``, one a line; what ``split`` returns is checked.

    Example:
        >>> split_texts(["The cat sat. It purred.", ""], lambda text: text.split(". "))
        ['The cat sat\\nIt purred.', '']
        >>> split_texts(["The cat sat."], str.upper)
        Traceback (most recent call last):
        ...
        TypeError: split_sentences must return a list of strings (the sentences), got str from 'The cat sat.'
    """
    joined = []
    for text in texts:
        sentences = split(text)
        if not isinstance(sentences, (list, tuple)) or not all(isinstance(part, str) for part in sentences):
            found = type(sentences).__name__
            if isinstance(sentences, (list, tuple)):
                found += " holding " + ", ".join(sorted({type(part).__name__ for part in sentences}))
            shown = text if len(text) <= 40 else text[:37] + "..."
            raise TypeError(
                f"split_sentences must return a list of strings (the sentences), got {found} from {shown!r}"
            )
        joined.append("\n".join(sentences))
    return joined


def texts_with_second_sentence(lines: np.ndarray, lengths: np.ndarray) -> bool:
    """Whether any of several texts has words on two lines: ``lines`` of their words end to end, ``lengths``
    the words of each text (:class:`~.words.TextWords`).

    Example:
        >>> texts_with_second_sentence(np.array([0, 0, 1, 2]), np.array([2, 1, 1]))
        False
        >>> texts_with_second_sentence(np.array([0, 0, 1, 2]), np.array([3, 1]))
        True
    """
    ends = np.cumsum(lengths)
    spoken = lengths > 0
    return bool((lines[(ends - lengths)[spoken]] != lines[ends[spoken] - 1]).any())


def rows_with_second_sentence(lines: Tensor, lengths: Tensor) -> bool | None:
    """Whether any row has words on two lines: ``(..., W)`` lines of each row's words packed to the front,
    ``(...)`` the words of each row; ``None`` where reading it would wait for the device (off the CPU, in a
    compiled graph: :func:`~torch_bleu.arrays.sizes_from_data`).

    Example:
        >>> import torch
        >>> rows_with_second_sentence(torch.tensor([[0, 0, 1], [2, 2, 0]]), torch.tensor([2, 2]))
        False
        >>> rows_with_second_sentence(torch.tensor([[0, 0, 1], [2, 2, 0]]), torch.tensor([3, 2]))
        True
    """
    if not sizes_from_data(lines):
        return None
    width = lines.shape[-1]
    if width == 0:
        return False
    lines, lengths = lines.reshape(-1, width), lengths.reshape(-1, 1)
    last = lines.gather(1, (lengths - 1).clamp(min=0))
    return bool(((lines[:, :1] != last) & (lengths > 0)).any())


@dataclass
class SentencesSeen:
    """What the summaries counted so far said of their sentences, for the warning that ``rougeLsum`` equals
    ``rougeL``: whether some were checked, one had a second sentence, some could not be checked."""

    checked: bool = False
    second: bool = False
    unchecked: bool = False
    warned: bool = False

    @classmethod
    def wanted(cls, rouge_types: Sequence[str], split: SentenceSplitter | None) -> SentencesSeen | None:
        """A new record where the warning can be due (``rougeLsum`` asked for without a splitter), else ``None``."""
        return cls() if "rougeLsum" in rouge_types and split is None else None

    def add(self, second: bool | None) -> None:
        """Note a batch's summaries: with a second sentence (``True``), without (``False``), unchecked (``None``)."""
        if second is None:
            self.unchecked = True
        else:
            self.checked = True
            self.second |= second

    def warn(self) -> None:
        """Warn once if the summaries were checked, all of them, and none had a second sentence.

        Example:
            >>> seen = SentencesSeen()
            >>> seen.add(False)
            >>> with warnings.catch_warnings(record=True) as caught:
            ...     warnings.simplefilter("always")
            ...     seen.warn()
            ...     seen.warn()
            >>> len(caught), str(caught[0].message).split(":")[0]
            (1, 'rougeLsum equals rougeL')
        """
        if self.warned or not self.checked or self.second or self.unchecked:
            return
        self.warned = True
        warnings.warn(
            "rougeLsum equals rougeL: no prediction or reference had a second sentence (rougeLsum splits summaries "
            "at newlines, and decoded ids have none). Pass split_sentences=nltk.sent_tokenize (any function "
            "from a text to its list of sentences) to split them as Hugging Face's summarization recipe does, "
            "sentence_sep_id= for rows of plain ids, or leave rougeLsum out of rouge_types",
            UserWarning,
            stacklevel=_callers_level(),
        )


def _callers_level() -> int:
    """The ``stacklevel`` of the user's call: the first frame, from the caller of this function outwards,
    outside this library, torchmetrics and PyTorch (a metric's ``compute`` is called through both)."""
    folders = tuple(
        os.path.dirname(module.__file__) + os.sep
        for module in map(sys.modules.get, ("torch_bleu", "torchmetrics", "torch", "contextlib"))
        if module is not None and module.__file__ is not None
    )
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(folders):
        frame, level = frame.f_back, level + 1
    return level
