"""Other libraries' names for the batch, ``predictions=`` and ``references=``, pointed to ``preds`` and ``target``.

Every entry point that takes a batch (a metric's ``update`` and ``forward``, every metric's functions)
takes it as ``(preds, target)``, as torchmetrics does. Hugging Face ``evaluate`` names the same
arguments ``predictions`` and ``references``, nltk ``hypothesis`` (``hypotheses``) and ``references``
(``list_of_references``), jiwer ``hypothesis`` and ``reference``. Passed by those names, Python's own
error names an internal class (``CountingMetric.update() got an unexpected keyword argument``) or a
missing ``preds``, and a function's ``**options`` reads them as unknown options. :func:`takes_preds_and_target`
wraps an entry point so that such a call is refused before anything runs, by a ``TypeError`` that says
what to pass instead. The names to look for are worked out once, when the function is wrapped; a call
costs one test of its keyword arguments. Needs neither PyTorch nor NumPy.

Example:
    >>> @takes_preds_and_target
    ... def corpus_score(preds, target, **options):
    ...     return len(preds)
    >>> corpus_score(["a cat"], ["the cat"])
    1
    >>> try:
    ...     corpus_score(predictions=["a cat"], references=["the cat"])
    ... except TypeError as error:
    ...     print(error)  # doctest: +NORMALIZE_WHITESPACE
    corpus_score takes preds and target: pass preds=predictions, target=references
    (Hugging Face evaluate's names)
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["FOREIGN_NAMES", "takes_preds_and_target"]

Function = TypeVar("Function", bound=Callable[..., Any])

#: Other libraries' names for the batch's arguments, each with the argument it is here.
FOREIGN_NAMES: dict[str, str] = {
    "predictions": "preds",
    "references": "target",
    "hypothesis": "preds",
    "hypotheses": "preds",
    "reference": "target",
    "list_of_references": "target",
}

#: Whose names they are: the first library that has every foreign name of a call is named.
_LIBRARIES: dict[str, frozenset[str]] = {
    "Hugging Face evaluate's": frozenset({"predictions", "references"}),
    "jiwer's": frozenset({"hypothesis", "reference"}),
    "nltk's": frozenset({"hypothesis", "hypotheses", "references", "list_of_references"}),
}


def takes_preds_and_target(function: Function, *, like: Callable[..., Any] | None = None) -> Function:
    """``function``, refusing other libraries' names for ``preds`` and ``target`` (:data:`FOREIGN_NAMES`)
    with a ``TypeError`` that names it and says what to pass. A method is named with the class of the
    object it is called on (``ROUGEScore.update``, not the base class that defines it).

    Args:
        function: a function or method whose batch is ``(preds, target)``.
        like: the function whose parameters ``function`` takes (a ``forward(*args, **kwargs)`` that
            passes them to ``update``): a foreign name that is one of its parameters is left alone.

    Example:
        >>> class Metric:
        ...     @takes_preds_and_target
        ...     def update(self, preds, target):
        ...         pass
        >>> class BLEU(Metric):
        ...     pass
        >>> BLEU().update(["a cat"], reference=["the cat"])
        Traceback (most recent call last):
          ...
        TypeError: BLEU.update takes preds and target: pass target=reference (jiwer's names)
    """
    parameters = inspect.signature(like if like is not None else function).parameters
    foreign = frozenset(FOREIGN_NAMES) - frozenset(parameters)
    method = next(iter(parameters), None) == "self"
    first = 1 if method else 0  # the first positional argument of the batch
    needs_batch = like is None and all(
        key in parameters and parameters[key].default is inspect.Parameter.empty for key in ("preds", "target")
    )
    name = function.__name__

    @functools.wraps(function)
    def checked(*args: Any, **kwargs: Any) -> Any:
        if kwargs and not foreign.isdisjoint(kwargs):
            owner = f"{type(args[0]).__name__}.{name}" if method and args else name
            raise foreign_names_error(owner, [key for key in kwargs if key in foreign])
        if needs_batch and len(args) - first + ("preds" in kwargs) + ("target" in kwargs) < 2:
            raise missing_batch_error(f"{type(args[0]).__name__}.{name}" if method and args else name, method)
        return function(*args, **kwargs)

    return checked  # type: ignore[return-value]


def missing_batch_error(owner: str, method: bool) -> TypeError:
    """The error for a call of ``owner`` without its batch; for a metric's method, most often from a
    ``MetricCollection`` given other libraries' names, which it passes on only where ``update`` names them.

    Example:
        >>> print(missing_batch_error("BLEUScore.update", method=True))  # doctest: +NORMALIZE_WHITESPACE
        BLEUScore.update takes preds and target: pass them by position or as preds= and target=
        (a MetricCollection passes on only the keyword arguments update() names, so predictions= and
        references= never reach it)
    """
    why = (
        " (a MetricCollection passes on only the keyword arguments update() names, so predictions= and "
        "references= never reach it)"
    )
    return TypeError(f"{owner} takes preds and target: pass them by position or as preds= and target={why * method}")


def foreign_names_error(owner: str, names: list[str]) -> TypeError:
    """The error for ``names`` (of :data:`FOREIGN_NAMES`) passed to ``owner``.

    Example:
        >>> print(foreign_names_error("corpus_bleu", ["hypotheses", "list_of_references"]))
        corpus_bleu takes preds and target: pass preds=hypotheses, target=list_of_references (nltk's names)
    """
    given = sorted(names, key=lambda key: FOREIGN_NAMES[key] != "preds")
    library = next((library for library, known in _LIBRARIES.items() if known.issuperset(given)), "other libraries'")
    passes = ", ".join(f"{FOREIGN_NAMES[key]}={key}" for key in given)
    return TypeError(f"{owner} takes preds and target: pass {passes} ({library} names)")
