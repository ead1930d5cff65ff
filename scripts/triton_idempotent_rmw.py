"""Print what Triton compiles ``tl.atomic_add(p, V, sem=S, scope="gpu")`` to on NVIDIA (cuda:90,
on the CPU: no GPU needed), for V in {0, 1} and each sem: with a literal 0 and a relaxed or
acquire sem the RMW becomes a load (docs/compiler-bugs.md finding 4).

    python scripts/triton_idempotent_rmw.py            # this python's triton
    /tmp/venv-t36/bin/python scripts/triton_idempotent_rmw.py
"""

from __future__ import annotations

import importlib.util
import re
import sys
import tempfile
from pathlib import Path

import triton
from triton.backends.compiler import GPUTarget

SOURCE = '''
import triton
import triton.language as tl


@triton.jit
def add(p, out):
    tl.store(out, tl.atomic_add(p, {value}, sem="{sem}", scope="gpu"))
'''

MEMORY_OP = re.compile(r"^\s*(?:@%p\d+\s+)?((?:ld|atom|red)\.global\S*)", re.M)


def compiled_ops(sem: str, value: str, workdir: Path) -> list[str]:
    """The global memory instructions of the kernel's PTX."""
    path = workdir / f"add_{sem}_{value}.py"
    path.write_text(SOURCE.format(sem=sem, value=value))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    src = triton.compiler.ASTSource(fn=module.add, signature={"p": "*i32", "out": "*i32"}, constexprs={})
    ptx = triton.compile(src, target=GPUTarget("cuda", 90, 32)).asm["ptx"]
    return MEMORY_OP.findall(ptx)


def main() -> int:
    print(f"triton {triton.__version__}, cuda:90: tl.atomic_add(p, V, sem=S, scope='gpu') compiles to")
    with tempfile.TemporaryDirectory() as tmp:
        for sem in ("relaxed", "acquire", "release", "acq_rel"):
            for value in ("0", "1"):
                print(f"  sem={sem:8} V={value}: {' '.join(compiled_ops(sem, value, Path(tmp)))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
