"""Corpus BLEU as a validation metric in PyTorch Lightning, logged with ``self.log``.

Run it (``pip install "torch-bleu[lightning]"``)::

    python examples/lightning_validation.py            # a few epochs of the toy task: BLEU climbs
    python examples/lightning_validation.py --fast     # two short epochs, to check the wiring
    python examples/lightning_validation.py --devices 2 --strategy ddp   # the same code under DDP

The metric is a child module of the ``LightningModule``. ``validation_step`` updates it with padded
id tensors and hands the metric object itself to ``self.log``; Lightning then calls ``compute()`` at
the end of the validation epoch (which sums the statistics of every process under DDP) and ``reset()``
before the next one, so the sanity check's batches never leak into the first epoch's score.

The model is the digits-to-number-words translator of ``_toy_task.py``.
"""

from __future__ import annotations

import argparse
from typing import Optional, Sequence, Tuple

import torch
from torch import Tensor
from torch.utils.data import DataLoader, TensorDataset

from _toy_task import BOS, EOS, PAD, TinyTranslator, greedy_decode, make_splits, seed_everything, teacher_forcing_loss
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

    def training_step(self, batch: Tuple[Tensor, Tensor], batch_idx: int) -> Tensor:
        src, tgt = batch
        loss = teacher_forcing_loss(self.model, src, tgt)
        self.log("train_loss", loss, prog_bar=True)
        return loss

    def validation_step(self, batch: Tuple[Tensor, Tensor], batch_idx: int) -> None:
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
    fast: bool = False, devices: int = 1, strategy: str = "auto", seed: int = 0
) -> Tuple[pl.Trainer, NumberTranslation, DataLoader]:
    """Fit the toy translator; return the trainer, the module and the validation loader."""
    seed_everything(seed)
    (train_src, train_tgt), (valid_src, valid_tgt) = make_splits(512 if fast else 8000, 101 if fast else 501, seed)
    train_loader = DataLoader(TensorDataset(train_src, train_tgt), batch_size=64, shuffle=True)
    valid_loader = DataLoader(TensorDataset(valid_src, valid_tgt), batch_size=32)
    module = NumberTranslation()
    trainer = pl.Trainer(
        accelerator="cpu" if fast else "auto",
        devices=devices,
        strategy=strategy,
        max_epochs=2 if fast else 6,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=not fast,
        enable_model_summary=False,
    )
    trainer.fit(module, train_loader, valid_loader)
    return trainer, module, valid_loader


def main(argv: Optional[Sequence[str]] = None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fast", action="store_true", help="two short epochs on a small split, on CPU")
    parser.add_argument("--devices", type=int, default=1)
    parser.add_argument("--strategy", default="auto", help='e.g. "ddp" with --devices 2')
    args = parser.parse_args(argv)
    trainer, _, _ = train(fast=args.fast, devices=args.devices, strategy=args.strategy)
    bleu = trainer.callback_metrics["val_bleu"].item()
    if trainer.is_global_zero:
        print(f"val_bleu = {100 * bleu:.2f}")
    return bleu


if __name__ == "__main__":
    main()
