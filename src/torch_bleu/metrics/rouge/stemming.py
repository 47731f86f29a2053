"""nltk's Porter stemmer as rouge-score applies it, each word stemmed once per process.

rouge-score stems with ``nltk.stem.porter.PorterStemmer()`` (mode ``NLTK_EXTENSIONS``) the words of more
than 3 characters, and keeps only results made of ``a-z0-9``. nltk is needed only here: it is the
optional extra ``torch-bleu[rouge]``.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable

#: What rouge-score keeps of a stemmed word.
_VALID = re.compile(r"[a-z0-9]+")
#: Stems remembered at most; past it the memory starts afresh.
MEMORY = 2**20

_stems: dict[str, str | None] = {}
_stem_word: list[Callable[[str], str]] = []


def _porter() -> Callable[[str], str]:
    if not _stem_word:
        try:
            porter = importlib.import_module("nltk.stem.porter")
        except ImportError:
            raise ImportError(
                "use_stemmer=True stems with nltk's Porter stemmer: pip install torch-bleu[rouge] (or nltk)"
            ) from None
        _stem_word.append(porter.PorterStemmer().stem)
    return _stem_word[0]


def stem(word: str) -> str | None:
    """``word`` as rouge-score's tokenizer leaves it with ``use_stemmer=True``: stemmed when longer than 3
    characters; ``None`` where the stem is no valid word (rouge-score drops it).

    Example:
        >>> stem("running"), stem("was"), stem("cats")
        ('run', 'was', 'cat')
    """
    if len(word) <= 3:
        return word
    found = _stems.get(word, "")
    if found != "":
        return found
    stemmed = _porter()(word)
    kept = stemmed if _VALID.fullmatch(stemmed) else None
    if len(_stems) >= MEMORY:
        _stems.clear()
    _stems[word] = kept
    return kept


def require_stemmer() -> None:
    """Refuse ``use_stemmer=True`` where nltk is not installed, naming what to install."""
    _porter()
