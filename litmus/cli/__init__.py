"""The ``litmus`` command line: one module per command, each parsing its options and calling
one stage.  ``main`` is the click group (the console script ``litmus``)."""

from litmus.cli.startup import begin, end

_before = begin()  # before the heavy imports below

from litmus.cli import audit, catalog, doctor, explain, generate, model, report, run, tune  # noqa: E402,F401 - each registers its command
from litmus.cli.app import main  # noqa: E402
from litmus.cost.command import cost_command  # noqa: E402
from litmus.lint.command import lint  # noqa: E402

main.add_command(lint)
main.add_command(cost_command, name="cost")
end(_before)

__all__ = ["main"]
