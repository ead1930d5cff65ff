"""Compile one reproducer of docs/compiler-bugs/ with ptxas, say from the SASS whether ptxas kept
the load after the acquire, and (on a GPU) run it and print the expected and observed outcomes.

    python docs/compiler-bugs/repro.py load-merge-racefree.ptx              # compile, check, run
    python docs/compiler-bugs/repro.py load-merge-racefree.ptx --sass-only  # no GPU needed

Needs only Python 3 and an NVIDIA driver (libcuda, through ctypes) to run; ptxas and nvdisasm
come from --ptxas/--nvdisasm, $PTXAS/$NVDISASM, the installed triton's bundled ones, or PATH.
Exit status: 0 when nothing forbidden was seen (or --sass-only), 1 when a forbidden outcome
was, 2 on a usage or CUDA error.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
DELAY_LINE = re.compile(r"^(\s*mad\.lo\.u32 %r7, %r7, %r7, %r9;).*$", re.M)
LOADS_OF_X = {"load-merge": 2, "store-forward": 1}  # plain loads of x in the PTX
THREADS = 64  # thread 0 consumes, thread 32 (another warp) produces


def find_tool(name: str, given: str | None, near: str | None = None) -> str:
    """The path of ``name``: given, $NAME, next to ``near``, triton's bundled one, or PATH."""
    candidates = [given, os.environ.get(name.upper())]
    if near:
        candidates.append(str(Path(near).parent / name))
    try:
        import triton

        candidates.append(str(Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / name))
    except ImportError:
        pass
    candidates.append(shutil.which(name))
    for c in candidates:
        if c and Path(c).is_file():
            return c
    sys.exit(f"repro.py: no {name} found; give --{name} PATH or set ${name.upper()}")


def kind_of(ptx: str) -> tuple[str, str]:
    """``(bug, form)`` from the file's ``// litmus-repro: BUG FORM`` line."""
    m = re.search(r"^// litmus-repro: (load-merge|store-forward) (racy|racefree)$", ptx, re.M)
    if not m:
        sys.exit("repro.py: the file has no `// litmus-repro: BUG FORM` line")
    return m.group(1), m.group(2)


def with_delay(ptx: str, n: int) -> str:
    """The PTX with its delay line repeated ``n`` times (at least once)."""
    return DELAY_LINE.sub(lambda m: "\n".join([m.group(1)] * max(n, 1)), ptx, count=1)


def compile_ptx(ptx: str, ptxas: str, arch: str, opt: int, work: Path) -> bytes:
    """The cubin ptxas makes of ``ptx``."""
    src, cubin = work / "repro.ptx", work / "repro.cubin"
    src.write_text(ptx)
    cmd = [ptxas, f"-arch={arch}", f"-O{opt}", str(src), "-o", str(cubin)]
    print("$ " + " ".join(cmd))
    subprocess.run(cmd, check=True)
    return cubin.read_bytes()


def plain_loads(nvdisasm: str, cubin: bytes, work: Path) -> tuple[int, str]:
    """How many weak global loads (LDG without .STRONG/.CONSTANT) the SASS has, and the SASS's
    memory instructions."""
    path = work / "sass.cubin"
    path.write_bytes(cubin)
    sass = subprocess.run([nvdisasm, "-c", str(path)], check=True, capture_output=True, text=True).stdout
    mem = [re.sub(r"/\*[0-9a-f]{4,}\*/|/\* 0x[0-9a-f]+ \*/", "", line).strip() for line in sass.splitlines()
           if re.search(r"\b(LDG|STG|LDS|STS|MEMBAR|CCTL|BAR|FENCE)\b", line)]
    loads = [line for line in mem if re.search(r"\bLDG\b", line) and not re.search(r"STRONG|CONSTANT", line)]
    return len(loads), "\n".join(mem)


class Cuda:
    """The few CUDA driver calls a launch needs, through ctypes."""

    def __init__(self) -> None:
        self.lib = ctypes.CDLL("libcuda.so.1")
        self.call("cuInit", 0)
        self.dev = ctypes.c_int()
        self.call("cuDeviceGet", ctypes.byref(self.dev), 0)
        self.ctx = ctypes.c_void_p()
        self.call("cuDevicePrimaryCtxRetain", ctypes.byref(self.ctx), self.dev)
        self.call("cuCtxSetCurrent", self.ctx)

    def call(self, name: str, *args: object) -> None:
        rc = getattr(self.lib, name)(*args)
        if rc != 0:
            msg = ctypes.c_char_p()
            self.lib.cuGetErrorString(rc, ctypes.byref(msg))
            raise RuntimeError(f"{name}: {msg.value.decode() if msg.value else rc}")

    def arch(self) -> str:
        """``sm_XY`` of device 0."""
        major, minor = ctypes.c_int(), ctypes.c_int()
        self.call("cuDeviceGetAttribute", ctypes.byref(major), 75, self.dev)  # COMPUTE_CAPABILITY_MAJOR
        self.call("cuDeviceGetAttribute", ctypes.byref(minor), 76, self.dev)  # COMPUTE_CAPABILITY_MINOR
        return f"sm_{major.value}{minor.value}"

    def name(self) -> str:
        buf = ctypes.create_string_buffer(256)
        self.call("cuDeviceGetName", buf, 256, self.dev)
        return buf.value.decode()

    def function(self, image: bytes) -> ctypes.c_void_p:
        """The kernel ``repro`` of a cubin (or of NUL-terminated PTX, which the driver compiles)."""
        mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
        self.call("cuModuleLoadData", ctypes.byref(mod), ctypes.c_char_p(image))
        self.call("cuModuleGetFunction", ctypes.byref(fn), mod, b"repro")
        return fn

    def alloc(self, words: int) -> ctypes.c_uint64:
        p = ctypes.c_uint64()
        self.call("cuMemAlloc_v2", ctypes.byref(p), ctypes.c_size_t(4 * words))
        return p

    def run(self, fn: ctypes.c_void_p, ctas: int) -> tuple[ctypes.Array, ctypes.Array]:
        """One launch of ``ctas`` instances from zeroed memory: (out, x) as read back."""
        x, flag, out = self.alloc(ctas), self.alloc(ctas), self.alloc(4 * ctas)
        for p, n in ((x, ctas), (flag, ctas), (out, 4 * ctas)):
            self.call("cuMemsetD32_v2", p, ctypes.c_uint(0), ctypes.c_size_t(n))
        zero = ctypes.c_uint32(0)
        args = (ctypes.c_void_p * 4)(*[ctypes.cast(ctypes.pointer(v), ctypes.c_void_p) for v in (x, flag, out, zero)])
        self.call("cuLaunchKernel", fn, ctas, 1, 1, THREADS, 1, 1, 0, None, args, None)
        self.call("cuCtxSynchronize")
        host_out, host_x = (ctypes.c_uint32 * (4 * ctas))(), (ctypes.c_uint32 * ctas)()
        self.call("cuMemcpyDtoH_v2", host_out, out, ctypes.c_size_t(16 * ctas))
        self.call("cuMemcpyDtoH_v2", host_x, x, ctypes.c_size_t(4 * ctas))
        for p in (x, flag, out):
            self.call("cuMemFree_v2", p)
        return host_out, host_x


def judge(bug: str, form: str, out: Sequence[int], xs: Sequence[int]) -> dict[str, int]:
    """Counts over instances: ``decisive`` (the rewritten outcome could show: the acquire read 1,
    and the value ptxas reuses is stale), ``forbidden`` (it showed: :data:`TARGET`), ``other``
    (any other outcome the model forbids).  ``out`` holds four words per instance (r1, r2, r3,
    unused) and ``xs`` the final x of each; numpy counts them when it is installed, else Python."""
    try:
        import numpy as np
    except ImportError:
        np = None
    if np is not None:
        o = np.frombuffer(memoryview(out), dtype=np.uint32) if not isinstance(out, np.ndarray) else out
        x = np.frombuffer(memoryview(xs), dtype=np.uint32) if not isinstance(xs, np.ndarray) else xs
        r1, r2, r3 = o[0::4], o[1::4], o[2::4]
    else:
        r1, r2, r3, x = list(out[0::4]), list(out[1::4]), list(out[2::4]), list(xs)

    def count(cond) -> int:  # cond: instance -> bool, over (r1, r2, r3, x) columns
        if np is not None:
            return int(np.count_nonzero(cond(r1, r2, r3, x)))
        return sum(1 for a, b, c, d in zip(r1, r2, r3, x) if cond(a, b, c, d))

    both = (lambda a, b: a & b) if np is not None else (lambda a, b: a and b)
    c = {"instances": len(x), "decisive": 0, "forbidden": 0, "other": 0}
    if bug == "load-merge":
        c["decisive"] = count(lambda a, b, _c, _d: both(b == 1, a == 0))
        c["forbidden"] = count(lambda _a, b, cc, _d: both(b == 1, cc == 0))
        if form == "racefree":  # x is written only after the consumer's go
            c["other"] = count(lambda a, _b, _c, _d: a != 0)
    else:
        c["decisive"] = count(lambda _a, b, _c, d: both(b == 1, d == 1))
        c["forbidden"] = count(lambda _a, b, cc, d: both(both(b == 1, d == 1), cc == 2))
        if form == "racefree":  # x=2 is ordered before x=1
            c["other"] = count(lambda _a, _b, _c, d: d != 1)
    return c


TARGET = {
    ("load-merge", "racy"): "r2 == 1 /\\ r3 == 0 (the acquire saw flag, the re-read of x is stale)",
    ("load-merge", "racefree"): "r2 == 1 /\\ r3 == 0 (the acquire saw flag, the re-read of x is stale)",
    ("store-forward", "racy"): "r2 == 1 /\\ x == 1 /\\ r3 == 2 (the acquire saw flag, x ends 1, the read got 2)",
    ("store-forward", "racefree"): "r2 == 1 /\\ r3 == 2 (the acquire saw flag, the read got the consumer's own 2)",
}
"""The outcome ptxas's rewrite produces, per reproducer."""
ALLOWED = {("store-forward", "racy")}
"""Reproducers whose outcome the PTX model allows: the two plain writes of x race, so coherence
order does not relate them (catalog/ptxas_siblings.yaml, MP-stfwd[plain-ldacq-plain])."""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ptx", help="a reproducer: a path, or a file name in docs/compiler-bugs/")
    ap.add_argument("--arch", help="sm_XY (default: device 0's, or sm_90 with --sass-only)")
    ap.add_argument("-O", dest="opt", type=int, default=3, help="ptxas optimisation level (default 3)")
    ap.add_argument("--ptxas")
    ap.add_argument("--nvdisasm")
    ap.add_argument("--delay", type=int, default=256, help="times the delay line is repeated (default 256)")
    ap.add_argument("--ctas", type=int, default=65536, help="instances per launch (default 65536)")
    ap.add_argument("--runs", type=int, default=10, help="launches (default 10)")
    ap.add_argument("--sass-only", action="store_true", help="compile and read the SASS; do not run")
    ap.add_argument("--jit", action="store_true", help="let the driver compile the PTX (its own ptxas); "
                                                       "the SASS is then not checked")
    a = ap.parse_args()
    path = Path(a.ptx) if Path(a.ptx).is_file() else HERE / a.ptx
    if not path.is_file():
        sys.exit(f"repro.py: no reproducer {a.ptx}: give a path, or one of "
                 f"{', '.join(sorted(p.name for p in HERE.glob('*.ptx')))}")
    text = path.read_text()
    bug, form = kind_of(text)
    ptx = with_delay(text, a.delay)
    cuda = None
    if not a.sass_only:
        try:
            cuda = Cuda()
        except (OSError, RuntimeError) as e:
            print(f"repro.py: no GPU ({e}); run with --sass-only to check the SASS only", file=sys.stderr)
            return 2
    arch = a.arch or (cuda.arch() if cuda else "sm_90")
    print(f"{path.name}: {bug}, {form} form; target {arch}; delay {a.delay}")
    allowed = (bug, form) in ALLOWED
    print(f"{'allowed' if allowed else 'forbidden'} by the PTX memory model: {TARGET[bug, form]}"
          + (" (the writes race: shown to see the rewrite, not a bug)" if allowed else ""))
    image = (ptx.encode() + b"\0") if a.jit else b""
    if not a.jit:
        ptxas = find_tool("ptxas", a.ptxas)
        nvdisasm = find_tool("nvdisasm", a.nvdisasm, near=ptxas)
        version = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout
        print(next((line for line in version.splitlines() if "release" in line), version.strip()))
        with tempfile.TemporaryDirectory() as tmp:
            image = compile_ptx(ptx, ptxas, arch, a.opt, Path(tmp))
            n, mem = plain_loads(nvdisasm, image, Path(tmp))
        want = LOADS_OF_X[bug]
        print(mem)
        print(f"SASS: {n} plain load(s) of x, the PTX has {want}: the load after the acquire is "
              f"{'KEPT' if n == want else 'GONE (ptxas reuses ' + ('the first load' if bug == 'load-merge' else 'the stored value') + ')'}")
    if cuda is None:
        print("not run: --sass-only")
        return 0
    fn = cuda.function(image)
    total = {"instances": 0, "decisive": 0, "forbidden": 0, "other": 0}
    for _ in range(a.runs):
        out, xs = cuda.run(fn, a.ctas)
        for k, v in judge(bug, form, out, xs).items():
            total[k] += v
    print(f"device: {cuda.name()} ({arch}); {a.runs} launches of {a.ctas} instances")
    what = "outcomes (allowed)" if allowed else "forbidden outcomes"
    print(f"expected: {'any number of' if allowed else '0'} {what}; {total['decisive']:,} of "
          f"{total['instances']:,} instances could show one")
    print(f"observed: {total['forbidden']:,} {what}"
          + (f", {total['other']:,} other outcomes the model forbids" if total["other"] else ""))
    return 1 if (total["forbidden"] and not allowed) or total["other"] else 0


if __name__ == "__main__":
    sys.exit(main())
