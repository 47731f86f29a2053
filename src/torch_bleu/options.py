"""Checks that options of every kind share: a choice among names, a flag, a whole number, token ids.

Each raises the error a user should see, naming the option; metrics' configs call them from their
``__post_init__``. Needs neither PyTorch nor NumPy (a tensor of ids is read when one is passed).
"""

from __future__ import annotations

import numbers
import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Union

from .arrays import is_integer

if TYPE_CHECKING:
    from torch import Tensor

#: Token ids as an option takes them (``ignore_ids``, ``eos_id``): none, one, a sequence, or an integer tensor.
TokenIdsOption = Union[int, Sequence[int], "Tensor", None]


def check_choice(name: str, value: object, choices: tuple[str, ...]) -> None:
    """Refuse a ``value`` that is not one of ``choices``.

    Example:
        >>> check_choice("convention", "moses", ("sacrebleu", "nltk"))
        Traceback (most recent call last):
        ...
        ValueError: unknown convention 'moses'; expected one of 'sacrebleu', 'nltk'
    """
    if value not in choices:
        raise ValueError(f"unknown {name} {value!r}; expected one of {', '.join(map(repr, choices))}")


def check_flag(name: str, value: object) -> bool:
    """``value`` as a ``bool``, refusing anything but ``True`` and ``False`` (NumPy's bools are bools too).

    Example:
        >>> import numpy as np
        >>> check_flag("lowercase", np.bool_(True))
        True
        >>> check_flag("lowercase", 1)
        Traceback (most recent call last):
        ...
        TypeError: lowercase must be a bool, got int
    """
    if isinstance(value, bool):
        return value
    numpy = sys.modules.get("numpy")  # a NumPy bool exists only once NumPy is imported
    if numpy is not None and isinstance(value, numpy.bool_):
        return bool(value)
    raise TypeError(f"{name} must be a bool, got {type(value).__name__}")


def check_whole(name: str, value: object, minimum: int) -> int:
    """``value`` as an ``int``, refusing what is not a whole number of at least ``minimum`` (bools included).

    Example:
        >>> check_whole("char_order", 0, minimum=1)
        Traceback (most recent call last):
        ...
        ValueError: char_order must be an integer >= 1, got 0
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_token_ids(name: str, token_ids: object) -> tuple[int, ...]:
    """Token ids given as option ``name`` (``ignore_ids``, ``eos_id``) as a sorted tuple of distinct ints:
    from ``None`` (none), one int, a sequence of ints, or an integer tensor.

    Example:
        >>> check_token_ids("ignore_ids", [2, 0, 2]), check_token_ids("eos_id", 3), check_token_ids("eos_id", None)
        ((0, 2), (3,), ())
    """
    torch = sys.modules.get("torch")  # a tensor exists only once PyTorch is imported: no need to import it here
    if torch is not None and isinstance(token_ids, torch.Tensor):
        if not is_integer(token_ids):
            raise TypeError(f"{name} must be integers, got a {token_ids.dtype} tensor")
        token_ids = token_ids.reshape(-1).tolist()
    if token_ids is None:
        return ()
    if isinstance(token_ids, numbers.Integral) and not isinstance(token_ids, bool):
        token_ids = (token_ids,)
    if isinstance(token_ids, (str, bytes)) or not isinstance(token_ids, Iterable):
        raise TypeError(f"{name} must be an int or a sequence of ints, got {type(token_ids).__name__}")
    checked: list[int] = []
    for token_id in token_ids:
        if isinstance(token_id, bool) or not isinstance(token_id, numbers.Integral):
            raise TypeError(f"{name} must contain ints only, got {token_id!r}")
        value = int(token_id)
        if not -(2**63) <= value < 2**63:
            raise ValueError(f"{name} must fit in int64, got {value}")
        checked.append(value)
    return tuple(sorted(set(checked)))
