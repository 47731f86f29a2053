"""The metrics ``-m`` names, each by its command-line class: adding a metric to the command is one line here."""

from __future__ import annotations

from ..metrics.bleu.command_line import BLEUCommand
from ..metrics.chrf.command_line import CHRFCommand
from ..metrics.command_line import CommandLineMetric
from ..metrics.ter.command_line import TERCommand

#: ``-m`` name -> the metric's :class:`~torch_bleu.metrics.command_line.CommandLineMetric`.
METRICS: dict[str, type[CommandLineMetric]] = {
    command.name: command for command in (BLEUCommand, CHRFCommand, TERCommand)
}
