"""Generated kernels are never specialised on argument values: one compile per variant and mode
serves every round size and stride, and it is the kernel the audit compiles (no attributes)."""

from __future__ import annotations

import pytest

from litmus.codegen import KERNEL_ARGS, generate, load_kernel
from litmus.codegen.options import RUN_KERNELS
from litmus.spec import load_tests


@pytest.mark.parametrize("mode", sorted(RUN_KERNELS))
def test_no_kernel_argument_is_specialised(mode: str) -> None:
    test = next(t for t in load_tests(["catalog/mp.yaml"]) if t.variant == "relacq-xcta-sys")
    options = RUN_KERNELS[mode].with_backend("cuda")
    source = generate(test, options)
    kernel = getattr(load_kernel(source, interpret=False), source.layout.kernel(None).name)
    params = {p.name: p for p in kernel.params}
    assert list(params) == list(KERNEL_ARGS)
    for name in KERNEL_ARGS:
        if name == "BLOCK":
            assert params[name].is_constexpr
        else:
            assert params[name].do_not_specialize, name
