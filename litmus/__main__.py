"""``python -m litmus``: the litmus command line."""

from litmus.cli import main

if __name__ == "__main__":  # not when a spawned worker (litmus.run.ahead) imports this module
    main()
