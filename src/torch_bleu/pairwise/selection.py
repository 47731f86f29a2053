"""What pairwise scores are for: the diversity of a group of candidates (self-BLEU), and minimum Bayes
risk selection (the candidate with the highest expected utility against the others)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch
from torch import Tensor

from ..errors import InputError
from ..metrics.bleu.config import BLEUOptions
from ..threads import within_cpu_share
from .bleu import pairwise_bleu
from .inputs import kind_of

if TYPE_CHECKING:
    from typing_extensions import Unpack


@within_cpu_share
def self_bleu(candidates: Any, **options: Unpack[BLEUOptions]) -> Tensor:
    """``(S,)`` float64 self-BLEU of each source's candidates: the mean sentence BLEU of every candidate
    against every *other* candidate of its group, each pair scored with one reference (both orders of
    a pair count). Lower means more diverse. A source with fewer than two candidates gets NaN.

    This is the mean of :func:`pairwise_bleu` off the diagonal. Texygen's self-BLEU scores each
    candidate against all the others at once, as several references of one sentence; that variant is
    ``sentence_bleu`` with the other candidates as references.

    Args:
        candidates: ``S`` lists of strings, or an ``(S, N, L)`` id tensor (see :func:`pairwise_bleu`).
        **options: as :func:`pairwise_bleu`'s.

    Example:
        >>> round(self_bleu([["the cat sat on the mat", "the cat sat on a mat", "a dog barked"]],
        ...                 smoothing="exp", effective_order=True).item(), 4)
        0.2095
    """
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
    or against other samples as pseudo-references).

    The means are those of :func:`expected_utilities`: NaN entries (padding) are left out, and candidates
    holding the same utilities in any order have the same mean. A candidate whose mean is undefined (all
    its entries NaN, or ``+inf`` and ``-inf`` both among them) never wins; ``-inf`` is a mean like any
    other, which wins where no candidate of its source has a higher one. The first of equal candidates
    wins; a source without a candidate whose mean is defined gets ``-1``. Runs on the tensor's device,
    without waiting for it.

    Args:
        utilities: ``(S, N, M)`` floating tensor: the utility of candidate ``i`` of source ``s`` against
            reference ``j``.

    Raises:
        InputError: (a ``ValueError``) anything but a floating 3-D tensor.

    Example:
        >>> from torch_bleu.pairwise.chrf import pairwise_chrf
        >>> candidates = [["the cat sat", "a cat sat on it", "the cat sat down", "dogs"]]
        >>> mbr_select(pairwise_chrf(candidates)).tolist()
        [2]
        >>> nan, inf = float("nan"), float("inf")
        >>> utilities = torch.tensor([[[nan, nan], [-inf, -inf]], [[inf, -inf], [0.5, nan]], [[nan, nan], [nan, nan]]])
        >>> mbr_select(utilities).tolist()  # undefined means lose, even to -inf; -1: none is defined
        [1, 1, -1]
    """
    if not isinstance(utilities, Tensor) or utilities.dim() != 3 or not utilities.is_floating_point():
        raise InputError(
            f"utilities must be a floating (S, N, M) tensor (sources, candidates, references), got {kind_of(utilities)}"
        )
    sources, candidates = utilities.shape[:2]
    if candidates == 0:
        return torch.full((sources,), -1, dtype=torch.int64, device=utilities.device)
    means = expected_utilities(utilities)
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
