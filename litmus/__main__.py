"""``python -m litmus``: the litmus command line."""

from litmus.cli import main

main()
