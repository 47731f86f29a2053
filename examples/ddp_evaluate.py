"""Corpus BLEU of a validation set scored by several processes, as in a DDP validation loop.

Run it with one process per GPU (NCCL); without a GPU for every process it runs on CPU (gloo)::

    torchrun --nproc_per_node=2 examples/ddp_evaluate.py
    torchrun --nproc_per_node=2 examples/ddp_evaluate.py --hyp system.de --ref reference.de

Started without torchrun (``python examples/ddp_evaluate.py``), it runs as a single process: it
sets up a process group of one itself and prints the same score.

Each rank scores the batches its ``DistributedSampler`` hands it. ``compute()`` sums the integer
statistics of every rank, so each rank gets exactly the single-process corpus BLEU; rank 0 prints it.

``DistributedSampler`` repeats a few samples so that every rank gets as many batches. Those repeats
would count twice and change corpus BLEU, so the loop passes ``update()`` a ``weight`` mask that is
``False`` for them.

Without files the "model output" is a fixed, noisy copy of a synthetic reference corpus. Files hold
one sentence per line and are split on whitespace, like sacrebleu's ``tokenize="none"``; ``--ref`` may
be given several times for several references.
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import sys
from collections.abc import Sequence

import torch
import torch.distributed as dist
from _device import usable_device
from torch import Tensor
from torch.utils.data import DataLoader, DistributedSampler

from torch_bleu import BLEUScore

PAD = 0
QUICK_SENTENCES = 101  # odd, so that two ranks still need a repeated sample
LAUNCH_HINT = "torchrun --nproc_per_node=2 examples/ddp_evaluate.py"
Sample = tuple[list[int], list[list[int]]]  # hypothesis ids, one id list per reference


def toy_corpus(size: int = 501, seed: int = 0) -> list[Sample]:
    """A synthetic corpus whose hypotheses are references with some tokens dropped or replaced.

    ``size`` is odd on purpose: two ranks need one repeated sample to get equal shares.
    """
    rng = random.Random(seed)
    corpus = []
    for _ in range(size):
        reference = [rng.randint(1, 300) for _ in range(rng.randint(3, 30))]
        kept = [token for token in reference if rng.random() < 0.95]
        hypothesis = [token if rng.random() < 0.8 else rng.randint(1, 300) for token in kept]
        corpus.append((hypothesis, [reference]))
    return corpus


def read_corpus(hyp_path: str, ref_paths: Sequence[str]) -> list[Sample]:
    """Sentences of text files as ids; every rank reads the same files, so ids agree across ranks."""
    vocabulary: dict[str, int] = {}

    def ids(line: str) -> list[int]:
        return [vocabulary.setdefault(token, len(vocabulary) + 1) for token in line.split()]  # 0 is PAD

    def lines(path: str) -> list[str]:
        with open(path, encoding="utf-8") as handle:
            return handle.read().splitlines()

    hypotheses = lines(hyp_path)
    references = [lines(path) for path in ref_paths]
    if any(len(stream) != len(hypotheses) for stream in references):
        raise ValueError("the hypothesis and reference files must have the same number of lines")
    return [(ids(hyp), [ids(ref) for ref in refs]) for hyp, *refs in zip(hypotheses, *references)]


def pad_batch(samples: Sequence[Sample]) -> tuple[Tensor, Tensor]:
    """``(B, Lp)`` hypothesis ids and ``(B, R, Lt)`` reference ids, right-padded with ``PAD``."""
    num_refs = len(samples[0][1])
    hyp_width = max(len(hyp) for hyp, _ in samples)
    ref_width = max(len(ref) for _, refs in samples for ref in refs)
    preds = torch.full((len(samples), hyp_width), PAD, dtype=torch.long)
    target = torch.full((len(samples), num_refs, ref_width), PAD, dtype=torch.long)
    for row, (hyp, refs) in enumerate(samples):
        preds[row, : len(hyp)] = torch.tensor(hyp, dtype=torch.long)
        for index, ref in enumerate(refs):
            target[row, index, : len(ref)] = torch.tensor(ref, dtype=torch.long)
    return preds, target


def not_repeated(first: int, batch_size: int, sampler: DistributedSampler, device: torch.device) -> Tensor:
    """``True`` for the samples of a batch that ``DistributedSampler`` did not add as padding.

    The sampler deals a list of ``num_samples * num_replicas`` indices out round-robin, the repeats
    at its end, so the ``k``-th sample of a rank sits at ``k * num_replicas + rank`` in that list.
    """
    position = (first + torch.arange(batch_size, device=device)) * sampler.num_replicas + sampler.rank
    return position < len(sampler.dataset)


def evaluate(corpus: list[Sample], batch_size: int, device: torch.device) -> BLEUScore:
    """Score this rank's share of ``corpus``; the returned metric's ``compute()`` covers all ranks."""
    sampler = DistributedSampler(corpus, shuffle=False)
    loader = DataLoader(corpus, batch_size=batch_size, sampler=sampler, collate_fn=pad_batch)
    metric = BLEUScore(ignore_ids=[PAD]).to(device)
    seen = 0
    for preds, target in loader:
        # In a real loop: preds = model.generate(source) on the device.
        preds, target = preds.to(device, non_blocking=True), target.to(device, non_blocking=True)
        metric.update(preds, target, weight=not_repeated(seen, preds.shape[0], sampler, device))
        seen += preds.shape[0]
    return metric


def describe(metric: BLEUScore, score: Tensor) -> str:
    """The score and the statistics behind it, in sacrebleu's terms."""
    counts = " ".join(f"{m}/{t}" for m, t in zip(metric.numerator.tolist(), metric.denominator.tolist()))
    return (
        f"BLEU = {100 * score.item():.4f}  matches/n-grams {counts}  "
        f"hyp_len {metric.preds_len.item()} ref_len {metric.target_len.item()}"
    )


def process_device(name: str) -> str:
    """argparse ``type=``: ``cpu`` or ``cuda``, once PyTorch is known to be able to use it.

    Each process picks its own GPU later, from ``LOCAL_RANK``.
    """
    if name not in ("cpu", "cuda"):
        raise argparse.ArgumentTypeError(f"invalid choice: {name!r} (choose from 'cpu', 'cuda')")
    usable_device(name)
    return name


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line; ``--device`` defaults to what this machine can give every process."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hyp", help="hypothesis file, one sentence per line (default: a toy corpus)")
    parser.add_argument("--ref", action="append", default=[], help="reference file; repeat for several")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument(
        "--device",
        type=process_device,
        metavar="{cpu,cuda}",
        help="cuda: one GPU per process and NCCL; cpu: gloo (default: cuda when there is a GPU "
        "for every process, else cpu)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the toy corpus")
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="CPU threads for torch per process (scoring needs little, and the processes share the machine)",
    )
    parser.add_argument(
        "--quick", action="store_true", help=f"a smoke run of a few seconds: the first {QUICK_SENTENCES} sentences only"
    )
    args = parser.parse_args(argv)
    if bool(args.hyp) != bool(args.ref):
        parser.error("--hyp and --ref go together")
    local_processes = int(os.environ.get("LOCAL_WORLD_SIZE", 1))
    if args.device is None:
        args.device = "cuda" if torch.cuda.device_count() >= local_processes else "cpu"
    elif args.device == "cuda" and torch.cuda.device_count() < local_processes:
        parser.error(
            f"--device cuda needs one GPU per process ({local_processes} on this machine), "
            f"and PyTorch sees {torch.cuda.device_count()}"
        )
    return args


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def init_process_group(backend: str) -> None:
    """Join torchrun's process group, or set up a group of one when started without torchrun.

    torchrun tells every process its ``RANK`` and ``WORLD_SIZE`` in the environment; without them this
    process is rank 0 of 1, meeting itself on a free local port.
    """
    if "RANK" in os.environ or "WORLD_SIZE" in os.environ:
        dist.init_process_group(backend)
        return
    print(f"not started by torchrun, so running as a single process; for several, run: {LAUNCH_HINT}", file=sys.stderr)
    dist.init_process_group(backend, init_method=f"tcp://127.0.0.1:{free_port()}", rank=0, world_size=1)


def main(argv: Sequence[str] | None = None) -> None:
    """Score the corpus on every rank; rank 0 prints the corpus BLEU of all ranks together."""
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    init_process_group("nccl" if args.device == "cuda" else "gloo")
    if args.device == "cuda":
        device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0)))
        torch.cuda.set_device(device)
    else:
        device = torch.device("cpu")
    try:
        corpus = read_corpus(args.hyp, args.ref) if args.hyp else toy_corpus(seed=args.seed)
        if args.quick:
            corpus = corpus[:QUICK_SENTENCES]
        metric = evaluate(corpus, args.batch_size, device)
        score = metric.compute()  # every rank calls it: it sums the statistics of all ranks
        with metric.sync_context():  # inside, the states are the sums too (also a collective call)
            summary = describe(metric, score)
        if dist.get_rank() == 0:
            ranks = f"{dist.get_world_size()} rank{'s' if dist.get_world_size() > 1 else ''}"
            print(f"{summary}  ({len(corpus)} sentences on {ranks}, {dist.get_backend()})")
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
