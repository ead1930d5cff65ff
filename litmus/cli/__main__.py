"""``python -m litmus.cli``: the ``litmus`` command (torchrun starts ranks this way)."""

from litmus.cli import main

main()
