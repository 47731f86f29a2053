"""Corpus BLEU as a validation metric in PyTorch Lightning, logged with ``self.log``.

Run it (``pip install "torch-bleu[lightning]"``)::

    python examples/lightning_validation.py            # a few epochs of the toy task: BLEU climbs
    python examples/lightning_validation.py --quick    # two short epochs, to check the wiring
    python examples/lightning_validation.py --devices 2 --strategy ddp   # the same code under DDP

The metric is a child module of the ``LightningModule``. ``validation_step`` updates it with padded
id tensors and hands the metric object itself to ``self.log``; Lightning then calls ``compute()`` at
the end of the validation epoch (which sums the statistics of every process under DDP) and ``reset()``
before the next one, so the sanity check's batches never leak into the first epoch's score.

The model is the digits-to-number-words translator of ``_toy_task.py``. Torch runs on one CPU thread
per process by default (``--threads``): the model is so small that more threads only wait on each
other, and on a busy CPU they can make training several times slower.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

import torch
from _device import usable_accelerator
from _toy_task import BOS, EOS, PAD, TinyTranslator, greedy_decode, make_splits, seed_everything, teacher_forcing_loss
from torch import Tensor
from torch.utils.data import DataLoader, TensorDataset

from torch_bleu import BLEUScore

try:
    import pytorch_lightning as pl
except ImportError:  # the unified ``lightning`` package ships the same API
    import lightning.pytorch as pl


class NumberTranslation(pl.LightningModule):
    """Teacher-forced training; greedy decoding scored with corpus BLEU on validation."""

    def __init__(self, learning_rate: float = 3e-3) -> None:
        super().__init__()
        self.save_hyperparameters()
        self.model = TinyTranslator()
        self.val_bleu = BLEUScore(ignore_ids=[PAD, BOS, EOS])

    def training_step(self, batch: tuple[Tensor, Tensor], batch_idx: int) -> Tensor:
        src, tgt = batch
        loss = teacher_forcing_loss(self.model, src, tgt)
        self.log("train_loss", loss, prog_bar=True)
        return loss

    def validation_step(self, batch: tuple[Tensor, Tensor], batch_idx: int) -> None:
        src, tgt = batch
        preds = greedy_decode(self.model, src)
        self.val_bleu.update(preds, tgt, weight=self.not_repeated(batch_idx, src.shape[0]))
        self.log("val_bleu", self.val_bleu, prog_bar=True)  # on_epoch: compute() once per epoch

    def not_repeated(self, batch_idx: int, batch_size: int) -> Tensor:
        """``False`` for samples that Lightning's ``DistributedSampler`` repeated to even out the ranks.

        The sampler deals its index list out round-robin with the repeats at the end, so the ``k``-th
        sample of a rank sits at ``k * world_size + rank``. On one process every sample is kept.
        """
        loader = self.trainer.val_dataloaders
        first = batch_idx * loader.batch_size
        position = (first + torch.arange(batch_size, device=self.device)) * self.trainer.world_size
        return position + self.global_rank < len(loader.dataset)

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.Adam(self.parameters(), lr=self.hparams.learning_rate)


def train(
    quick: bool = False, device: str = "auto", devices: int = 1, strategy: str = "auto", seed: int = 0
) -> tuple[pl.Trainer, NumberTranslation, DataLoader]:
    """Fit the toy translator; return the trainer, the module and the validation loader.

    ``device`` is Lightning's accelerator (``auto``, ``cpu``, ``cuda``...); ``quick`` trains two short epochs.
    """
    seed_everything(seed)
    (train_src, train_tgt), (valid_src, valid_tgt) = make_splits(512 if quick else 8000, 101 if quick else 501, seed)
    train_loader = DataLoader(TensorDataset(train_src, train_tgt), batch_size=64, shuffle=True)
    valid_loader = DataLoader(TensorDataset(valid_src, valid_tgt), batch_size=32)
    module = NumberTranslation()
    trainer = pl.Trainer(
        accelerator=device,
        devices=devices,
        strategy=strategy,
        max_epochs=2 if quick else 6,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=not quick,
        enable_model_summary=False,
    )
    trainer.fit(module, train_loader, valid_loader)
    return trainer, module, valid_loader


def use_threads(threads: int) -> None:
    """Run torch on ``threads`` CPU threads in this process and in the processes Lightning starts.

    Setting ``OMP_NUM_THREADS`` too keeps Lightning's DDP launchers from choosing their own count,
    and the processes they start inherit it.
    """
    torch.set_num_threads(threads)
    os.environ["OMP_NUM_THREADS"] = str(threads)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line; ``--fast`` is accepted as another name for ``--quick``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--device",
        type=usable_accelerator,
        default="auto",
        help="Lightning's accelerator: cpu, cuda, ... (default auto: a GPU if there is one, else cpu)",
    )
    parser.add_argument("--devices", type=int, default=1, help="processes (GPUs with --device cuda)")
    parser.add_argument("--strategy", default="auto", help='e.g. "ddp" with --devices 2')
    parser.add_argument("--seed", type=int, default=0, help="seed of the data, the model and the shuffling")
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="CPU threads for torch per process (one suits a model this small: more threads "
        "only contend, and on a busy CPU they can make training several times slower)",
    )
    parser.add_argument("--quick", action="store_true", help="a smoke run of a few seconds: two short epochs")
    parser.add_argument("--fast", dest="quick", action="store_true", help=argparse.SUPPRESS)  # older commands use it
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> float:
    """Train with Lightning; print and return the last validation epoch's BLEU (0 to 1)."""
    args = parse_args(argv)
    use_threads(args.threads)  # before the first training step, which starts torch's thread pool
    trainer, _, _ = train(
        quick=args.quick, device=args.device, devices=args.devices, strategy=args.strategy, seed=args.seed
    )
    bleu = trainer.callback_metrics["val_bleu"].item()
    if trainer.is_global_zero:
        print(f"val_bleu = {100 * bleu:.2f}")
    return bleu


if __name__ == "__main__":
    main()
