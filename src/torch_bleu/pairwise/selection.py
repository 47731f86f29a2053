"""What pairwise scores are for: the diversity of a group of candidates (self-BLEU), and minimum Bayes
risk selection (the candidate with the highest expected utility against the others)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import torch
from torch import Tensor

from ..errors import InputError
from ..metrics.bleu.config import BLEUOptions
from ..options import check_choice
from ..threads import within_cpu_share
from .bleu import pairwise_bleu
from .inputs import kind_of
from .self_bleu import self_bleu_against_others

if TYPE_CHECKING:
    from typing_extensions import Unpack

#: The modes of :func:`self_bleu`.
SELF_BLEU_MODES = ("pairs", "others")


@within_cpu_share
def self_bleu(candidates: Any, mode: Literal["pairs", "others"] = "pairs", **options: Unpack[BLEUOptions]) -> Tensor:
    """``(S,)`` float64 self-BLEU of each source's candidates; lower means more diverse. A source with
    fewer than two candidates gets NaN.

    * ``mode="pairs"`` (the default): the mean sentence BLEU of every candidate against every *other*
      candidate of its group, each pair scored with one reference (both orders of a pair count): the
      mean of :func:`pairwise_bleu` off the diagonal.
    * ``mode="others"``: Texygen's self-BLEU: the mean over the candidates of each one's
      sentence BLEU against *all* the others at once, as its references (n-grams clipped at the largest
      count among the others, the closest other length). With ``convention="nltk"``,
      ``smoothing="method1"`` and ``tokenize="none"`` it is Texygen's loop of nltk's ``sentence_bleu``
      with ``SmoothingFunction().method1``. Its cost grows with the number of tokens, not with the
      number of pairs.

    Args:
        candidates: ``S`` lists of strings, or an ``(S, N, L)`` id tensor (see :func:`pairwise_bleu`).
        mode: ``"pairs"`` or ``"others"``.
        **options: as :func:`pairwise_bleu`'s.

    Raises:
        ValueError: an unknown ``mode``; :class:`~torch_bleu.errors.InputError` (a ``ValueError``) for
            input that :func:`pairwise_bleu` refuses.

    Example:
        >>> group = [["the cat sat on the mat", "the cat sat on a mat", "a dog barked"]]
        >>> round(self_bleu(group, smoothing="exp", effective_order=True).item(), 4)
        0.2095
        >>> round(self_bleu(group, "others", convention="nltk", smoothing="method1", tokenize="none").item(), 4)
        0.3805
    """
    check_choice("mode", mode, SELF_BLEU_MODES)
    if mode == "others":
        return self_bleu_against_others(candidates, options)
    scores = pairwise_bleu(candidates, None, **options)
    size = scores.shape[1]
    others = ~torch.eye(size, dtype=torch.bool, device=scores.device)
    valid = others & ~scores.isnan()
    pairs = valid.sum((1, 2))
    total = torch.where(valid, scores, 0.0).sum((1, 2))
    return torch.where(pairs > 0, total / pairs.clamp(min=1), torch.nan)


@within_cpu_share
def mbr_select(utilities: Tensor) -> Tensor:
    """``(S,)`` int64: per source, the index of the candidate with the highest expected utility, the mean
    of its row of ``utilities`` (for example :func:`pairwise_chrf` of the candidates against themselves,
    or against other samples as pseudo-references), or the expected utilities themselves (for example
    :func:`~torch_bleu.aggregate_chrf`'s).

    The means are those of :func:`expected_utilities`: NaN entries (padding) are left out, and candidates
    holding the same utilities in any order have the same mean. A candidate whose mean is undefined (all
    its entries NaN, or ``+inf`` and ``-inf`` both among them) never wins; ``-inf`` is a mean like any
    other, which wins where no candidate of its source has a higher one. The first of equal candidates
    wins; a source without a candidate whose mean is defined gets ``-1``. Runs on the tensor's device,
    without waiting for it.

    Args:
        utilities: ``(S, N, M)`` floating tensor: the utility of candidate ``i`` of source ``s`` against
            reference ``j``; or ``(S, N)``: the expected utility of candidate ``i`` of source ``s`` (NaN:
            undefined, as a padding entry is).

    Raises:
        InputError: (a ``ValueError``) anything but a floating 2-D or 3-D tensor.

    Example:
        >>> from torch_bleu.pairwise.chrf import pairwise_chrf
        >>> candidates = [["the cat sat", "a cat sat on it", "the cat sat down", "dogs"]]
        >>> mbr_select(pairwise_chrf(candidates)).tolist()
        [2]
        >>> nan, inf = float("nan"), float("inf")
        >>> utilities = torch.tensor([[[nan, nan], [-inf, -inf]], [[inf, -inf], [0.5, nan]], [[nan, nan], [nan, nan]]])
        >>> mbr_select(utilities).tolist()  # undefined means lose, even to -inf; -1: none is defined
        [1, 1, -1]
        >>> mbr_select(torch.tensor([[0.2, 0.7, 0.7], [nan, nan, nan]])).tolist()  # (S, N): the means
        [1, -1]
    """
    if not isinstance(utilities, Tensor) or utilities.dim() not in (2, 3) or not utilities.is_floating_point():
        raise InputError(
            "utilities must be a floating (S, N, M) tensor (sources, candidates, references) or (S, N) expected "
            f"utilities, got {kind_of(utilities)}"
        )
    sources, candidates = utilities.shape[:2]
    if candidates == 0:
        return torch.full((sources,), -1, dtype=torch.int64, device=utilities.device)
    means = expected_utilities(utilities) if utilities.dim() == 3 else utilities
    defined = ~means.isnan()
    best = torch.where(defined, means, -torch.inf).amax(-1, keepdim=True)
    index = torch.arange(candidates, device=utilities.device)
    first = torch.where(defined & (means == best), index, candidates).amin(-1)
    return torch.where(first < candidates, first, -1)


def expected_utilities(utilities: Tensor) -> Tensor:
    """``(S, N)``: the mean of each row of ``(S, N, M)`` ``utilities``, NaN entries left out. The values of
    a row are summed in sorted order, so rows holding the same values in any order have the same mean to
    the last bit. NaN where the mean is undefined: a row of NaN, or one holding ``+inf`` and ``-inf``.

    Example:
        >>> nan, inf = float("nan"), float("inf")
        >>> utilities = torch.tensor([[[1.0, nan, 2.0], [nan, nan, nan], [inf, 0.0, -inf], [-inf, nan, 1.0]]])
        >>> expected_utilities(utilities).tolist()
        [[1.5, nan, nan, -inf]]
    """
    present = ~utilities.isnan()
    ordered = torch.where(present, utilities, 0.0).sort(-1).values  # 0.0 for NaN: adds nothing, exactly
    return ordered.sum(-1) / present.sum(-1)
