"""What a metric tells users who pass input of the wrong kind, worded in one place for every metric.

Needs neither PyTorch nor NumPy: a metric's options (:mod:`torch_bleu.metrics.config`) word their advice
with it, and the command line imports those without PyTorch.
"""

from __future__ import annotations

from typing import Literal

#: When a metric reads rows of ids without a detokenizer, each id a token: ``"always"`` (its options say
#: the input is ids: BLEU with ``tokenize=None``), ``"never"`` (it scores text, and ids only with a
#: detokenizer: chrF, TER, BLEU with a tokenizer) or ``"unless strings"`` (it reads both: WER, CER, ROUGE).
PlainIds = Literal["always", "never", "unless strings"]

#: How to score subword ids, wherever a metric says so.
DETOKENIZER_ADVICE = "detokenizer= (a torch_bleu.Detokenizer of their tokenizer)"


def wrong_kind_hint(metric: str, plain_ids: PlainIds, unit: str, subwords: bool) -> str:
    """What a metric named ``metric`` tells users who pass input of the wrong kind: text where ids go, or ids
    where text goes (``unit``: what one plain id stands for; ``subwords``: whether a detokenizer is given).

    Example:
        >>> print(wrong_kind_hint("WER", "unless strings", "word", subwords=False))  # doctest: +ELLIPSIS
        WER scores strings, or rows of ids (each id one word); for subword ids, pass detokenizer= ...
        >>> print(wrong_kind_hint("chrF", "never", "word", subwords=True))
        with a detokenizer, chrF's preds are subword ids; to score strings, leave detokenizer out
    """
    if subwords:
        return f"with a detokenizer, {metric}'s preds are subword ids; to score strings, leave detokenizer out"
    scores = f"{metric} scores strings" + (
        f", or rows of ids (each id one {unit})" if plain_ids == "unless strings" else ""
    )
    return f"{scores}; for subword ids, pass {DETOKENIZER_ADVICE}"
