#!/usr/bin/env bash
# How each Triton compiles the re-read shapes of tests/lint/kernels/acquire_reread.py (no GPU):
# per kernel, the weak global loads in the PTX and in the SASS (cuda:90), and the strong ones in
# the SASS (the flag's acquire, a volatile re-read), for every python of PYTHONS (default: python). The kernels read `data` twice (reread_volatile: once weakly), so a
# count one lower than the kernel's is a read the compiler dropped: in the PTX, Triton's own
# passes; in the SASS only, ptxas. docs/lint.md and docs/compiler-bugs/ptxas-report.md cite it.
# Usage: PYTHONS="python /tmp/venv-t36/bin/python" bash scripts/ptxas_triton_reread.sh
set -eu
cd "$(dirname "$0")/.."
cache=$(mktemp -d)  # a cold Triton cache: what each version compiles now
trap 'rm -rf "$cache"' EXIT
for py in ${PYTHONS:-python}; do
    TRITON_CACHE_DIR="$cache/$(basename "$(dirname "$(dirname "$py")")")" PYTHONPATH=. "$py" - <<'EOF' 2>/dev/null
import re
import warnings
from pathlib import Path

import triton

from litmus.codegen.compiler import compile_jit
from litmus.codegen.targets import parse_target
from litmus.lint.load import import_file, kernels_of
from litmus.lint.signature import kernel_signature

warnings.simplefilter("ignore")
path = Path("tests/lint/kernels/acquire_reread.py")
for k in kernels_of(import_file(path), path):
    sig = kernel_signature(k.fn, k.signature)
    asm = compile_jit(k.fn, sig.types, parse_target("cuda:90"), sig.constexprs, sass=True)
    ptx = [l for l in asm["ptx"].splitlines() if re.search(r"\bld\.global\.(b|u|s)32", l)]
    sass = [l for l in asm.get("sass", "").splitlines() if re.search(r"\bLDG\b", l) and "CONSTANT" not in l]
    weak = lambda ls, strong: len([l for l in ls if not re.search(strong, l)])
    print(f"triton {triton.__version__} {k.name}: weak loads PTX {weak(ptx, 'relaxed|acquire|volatile')}, "
          f"SASS {weak(sass, 'STRONG')}; strong loads SASS {len(sass) - weak(sass, 'STRONG')}")
EOF
done
