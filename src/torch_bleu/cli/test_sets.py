"""References from sacrebleu's test sets (``-t``, ``-l``), read from sacrebleu's local cache with its own code.

sacrebleu keeps the test sets it has downloaded in its cache (``$SACREBLEU``, else ``~/.sacrebleu``):
each one's archive and extracted files, and plain-text files of their sentences. Its dataset classes
(``sacrebleu.dataset.DATASETS``) know where each file is and turn the extracted files into text; they
fetch an archive only from ``maybe_download``. Here they run with that one step replaced by a check
that the archives are there, so a test set missing from the cache is an error that says how to get
it, never a download. ``--origlang`` and ``--subset`` select sentences with sacrebleu's
``filter_subset``, which reads the extracted files.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable
from typing import Protocol, cast

from ..errors import InputError
from .files import read_lines


class Dataset(Protocol):
    """What is used here of a sacrebleu dataset (``sacrebleu.dataset.base.Dataset``, whose methods are untyped)."""

    name: str
    #: The addresses of the archives it downloads.
    data: list[str] | None
    #: Language pair -> where its files are in the archives.
    langpairs: dict[str, object]
    #: The cache's folder of its archives and their extracted files.
    _rawdir: str
    #: Downloads the archives that are not in the cache; the one step that fetches anything.
    maybe_download: Callable[[], None]

    def _get_tarball_filename(self, url: str) -> str:
        """The file name of the archive at ``url`` in :attr:`_rawdir`."""

    def get_reference_files(self, langpair: str) -> list[str]:
        """The paths of the references of ``langpair`` (turning extracted files into text first if need be)."""


def read_test_sets(test_sets: str, langpair: str, encoding: str = "utf-8") -> tuple[list[str], list[list[str]]]:
    """Names and lines of the reference streams of ``test_sets`` (one name, or several separated by commas,
    whose references are concatenated, as sacrebleu concatenates them) for ``langpair``."""
    per_set = [reference_files(name, langpair) for name in test_sets.split(",")]
    if len({len(paths) for paths in per_set}) != 1:
        raise InputError(f"the test sets {test_sets} have different numbers of references for {langpair}")
    names, streams = [], []
    for number in range(len(per_set[0])):
        paths = [files[number] for files in per_set]
        names.append(" + ".join(paths))
        streams.append([line for path in paths for line in read_lines(path, encoding)])
    return names, streams


def reference_files(test_set: str, langpair: str) -> list[str]:
    """The paths of the references of ``test_set`` for ``langpair`` in sacrebleu's cache, as sacrebleu finds
    them (turning extracted files into text where it has not yet), without downloading anything."""
    dataset = _dataset(test_set, langpair)
    try:
        paths = _offline(dataset, langpair).get_reference_files(langpair)
    except OSError as error:
        raise InputError(f"{_not_cached(test_set, langpair)} ({error})") from None
    if not paths:
        raise InputError(f"test set {test_set} ({langpair}) has no references in sacrebleu's cache")
    return paths


def _dataset(test_set: str, langpair: str) -> Dataset:
    """sacrebleu's dataset ``test_set``, known to have ``langpair``."""
    from sacrebleu.dataset import DATASETS

    if test_set not in DATASETS:
        raise InputError(f"unknown test set {test_set!r} (`sacrebleu --list` lists sacrebleu's test sets)")
    dataset = cast(Dataset, DATASETS[test_set])
    if langpair not in dataset.langpairs:
        pairs = ", ".join(dataset.langpairs)
        raise InputError(f"test set {test_set} has no language pair {langpair!r}; it has {pairs}")
    return dataset


def _offline(dataset: Dataset, langpair: str) -> Dataset:
    """A copy of ``dataset`` whose ``maybe_download`` fetches nothing: it raises the error that says how to get
    the test set when one of the archives it would download is not in the cache (sacrebleu downloads one
    that is missing or empty, and checks its md5 sum only then)."""

    def archives_or_error() -> None:
        for url in dataset.data or []:
            archive = os.path.join(dataset._rawdir, dataset._get_tarball_filename(url))
            if not os.path.isfile(archive) or os.path.getsize(archive) == 0:
                raise InputError(_not_cached(dataset.name, langpair))

    offline = copy.copy(dataset)
    offline.maybe_download = archives_or_error
    return offline


def _not_cached(test_set: str, langpair: str) -> str:
    """The error of a test set that is not in sacrebleu's cache, with the two ways to get it."""
    from sacrebleu.utils import SACREBLEU_DIR

    return (
        f"test set {test_set} ({langpair}) is not in sacrebleu's cache {SACREBLEU_DIR}, and torch-bleu downloads "
        f"nothing: where there is internet, run `sacrebleu -t {test_set} -l {langpair} --echo ref > ref.txt` and "
        f"give ref.txt before -i, or copy sacrebleu's cache (~/.sacrebleu) from there to {SACREBLEU_DIR}"
    )


def select_documents(
    test_sets: str, langpair: str, origlang: str | None, subset: str | None, streams: list[list[str]]
) -> list[list[str]]:
    """The sentences of ``streams`` (systems and references) in the documents of ``test_sets`` that
    ``--origlang`` and ``--subset`` select, by sacrebleu's ``filter_subset``; all of them without either."""
    if origlang is None and subset is None:
        return streams
    from sacrebleu.utils import filter_subset

    try:
        selected: list[list[str]] = filter_subset(  # type: ignore[no-untyped-call]  # sacrebleu's is untyped
            streams, test_sets, langpair, origlang, subset
        )
    except OSError as error:
        raise InputError(
            f"--origlang and --subset read the test set's extracted files from sacrebleu's cache: {error}"
        ) from None
    except Exception as error:  # sacrebleu reports what it cannot select with a bare Exception
        raise InputError(f"cannot select documents of {test_sets} ({langpair}): {error}") from None
    if not selected[0]:
        chosen = " and ".join(
            f"{name} {value}" for name, value in (("--origlang", origlang), ("--subset", subset)) if value is not None
        )
        raise InputError(f"test set {test_sets} ({langpair}) has no sentence with {chosen}")
    return selected
