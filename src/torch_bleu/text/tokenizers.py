"""sacrebleu's tokenizers: which ones there are, each as a function from a line to its words, and how
sacrebleu's signature names them. Needs sacrebleu (the ``text`` extra) when a tokenizer is loaded; imports
neither PyTorch nor NumPy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, get_args

from ..errors import InputError

#: sacrebleu's tokenizers: the ``-mecab`` ones need sacrebleu's ``ja``/``ko`` extras, the SentencePiece
#: ones (``flores101``, ``flores200``, and ``spm``, sacrebleu's old name of ``flores101``) need
#: sentencepiece and the model sacrebleu downloads on first use into its folder (``$SACREBLEU``,
#: ``~/.sacrebleu`` by default).
Tokenizer = Literal["13a", "none", "intl", "zh", "char", "ja-mecab", "ko-mecab", "flores101", "flores200", "spm"]
TOKENIZERS: tuple[Tokenizer, ...] = get_args(Tokenizer)
#: The tokenizers reproduced on code points (:mod:`.sacrebleu_words`): vectorized for text, on the device
#: for decoded subword ids.
TOKENIZERS_ON_CODE_POINTS = ("13a", "none", "intl", "zh", "char")


def load_tokenizer(name: str, lowercase: bool = False) -> Callable[[str], list[str]]:
    """sacrebleu's tokenizer ``name`` as a function from a line to its words (lowercased first with ``lowercase``).

    Example:
        >>> load_tokenizer("13a")("Hello, world!")
        ['Hello', ',', 'world', '!']
        >>> load_tokenizer("none", lowercase=True)("Hello, World!")
        ['hello,', 'world!']
    """
    try:
        from sacrebleu.metrics.bleu import BLEU
    except ImportError as error:  # pragma: no cover - depends on the installation
        raise InputError("tokenizing text needs sacrebleu: pip install 'torch-bleu[text]'") from error
    if name not in TOKENIZERS:
        raise InputError(f"unknown tokenizer {name!r}; choose one of {', '.join(TOKENIZERS)}")
    try:
        tokenizer: Callable[[str], str] = BLEU(tokenize=name).tokenizer
    except (ImportError, RuntimeError, OSError) as error:  # a missing extra, dictionary, or model not downloadable
        raise InputError(f"tokenizer {name!r} is not usable here: {' '.join(str(error).split())}") from None
    if name == "none" and not lowercase:
        return str.split  # the "none" tokenizer leaves the line as it is: its words are the whitespace-separated fields

    def words(line: str) -> list[str]:
        # sacrebleu lowercases, strips trailing whitespace, tokenizes, then splits on whitespace
        if lowercase:
            line = line.lower()
        return tokenizer(line.rstrip()).split()

    return words


def tokenizer_signature(name: str) -> str:
    """The ``tok:`` field sacrebleu writes for tokenizer ``name`` (e.g. ``13a``, ``ja-mecab-0.996-IPA``)."""
    from sacrebleu.metrics.bleu import BLEU

    return str(BLEU(tokenize=name).tokenizer_signature)
