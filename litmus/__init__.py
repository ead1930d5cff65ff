"""litmus: memory-model litmus tests for multi-GPU atomics, on Triton and PyTorch.

The pipeline is one-way: ``spec`` (YAML -> IR) -> ``model`` (allowed outcomes) /
``codegen`` (Triton source) / ``audit`` (compiled-code checks) -> ``run`` (backends) ->
``classify`` -> ``report``, ``cli`` and ``pytest_plugin``.  Importing ``litmus`` imports
neither torch nor triton.
"""

__version__ = "0.1.0"
