"""``litmus doctor``: what this machine can run, and whether its triton is supported."""

from __future__ import annotations

import sys

import click

from litmus.cli.app import friendly, main


@main.command()
@click.option("--json", "as_json", is_flag=True, help="The report as one JSON object.")
@click.option("--rendezvous", is_flag=True,
              help="Also try a one-rank symmetric-memory rendezvous on GPU 0 (slower; proves symm_mem works).")
@friendly
def doctor(as_json: bool, rendezvous: bool) -> None:
    """Print what this node offers and which backends can run.

    GPUs (name, compute capability, memory), the peer-access matrix between them, whether
    PyTorch symmetric memory is available, torch/triton versions, and for each backend
    (cpu, cuda, ranks) whether it can run here and why not. Exit status 0 when some backend
    can run.

    \b
    Examples:
      litmus doctor
      litmus doctor --json --rendezvous
    """
    from litmus.run.doctor import doctor_main

    sys.exit(doctor_main(json=as_json, try_rendezvous=rendezvous))
