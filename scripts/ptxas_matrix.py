"""Which ptxas versions, optimisation levels and targets drop the plain load after ``ld.acquire``
in the reproducers of docs/compiler-bugs/, read from the SASS. Run through
scripts/ptxas_matrix.sh, which can fetch the ptxas wheels first; no GPU needed.

A cell lists -O0..-O3: ``K`` the load after the acquire is in the SASS, ``M`` it is not (ptxas
reused the earlier load or store of the same address), ``n/a`` ptxas has no such target.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUGS = REPO / "docs" / "compiler-bugs"
FORMS = ("load-merge-racy", "load-merge-racefree", "store-forward-racy", "store-forward-racefree")
KEPT_LOADS = {"load-merge": 2, "store-forward": 1}  # weak loads of x in each form's PTX
DELAY_LINE = re.compile(r"^(\s*mad\.lo\.u32 %r7, %r7, %r7, %r9;).*$", re.M)  # as docs/compiler-bugs/repro.py
ARCHS = ("sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120")
ACQUIRE = "    ld.acquire.gpu.global.b32 %r2, [%rd7];    // r2 = flag (acquire, gpu)\n"
SECOND = "    ld.global.b32 %r3, [%rd4];                // r3 = x (plain)   <- the load ptxas drops\n"
FIRST = "    ld.global.b32 %r1, [%rd4];                // r1 = x (plain)\n"
BLOCKERS: tuple[tuple[str, dict[str, str]], ...] = (
    ("`ld.acquire.gpu` (the reproducer)", {}),
    ("`ld.acquire.sys`", {ACQUIRE: ACQUIRE.replace(".gpu.", ".sys.")}),
    ("`ld.acquire.cta`", {ACQUIRE: ACQUIRE.replace(".gpu.", ".cta.")}),
    ("`ld.relaxed.gpu` + `fence.acq_rel.gpu`",
     {ACQUIRE: ACQUIRE.replace("acquire", "relaxed") + "    fence.acq_rel.gpu;\n"}),
    ("`ld.relaxed.gpu` + `fence.acq_rel.cta`",
     {ACQUIRE: ACQUIRE.replace("acquire", "relaxed") + "    fence.acq_rel.cta;\n"}),
    ("`ld.relaxed.gpu` + `fence.sc.gpu`", {ACQUIRE: ACQUIRE.replace("acquire", "relaxed") + "    fence.sc.gpu;\n"}),
    ("`atom.acquire.gpu.global.add.u32` (add 0)",
     {ACQUIRE: "    atom.acquire.gpu.global.add.u32 %r2, [%rd7], 0;\n"}),
    ("`ld.acquire.gpu` + `bar.sync 0`", {ACQUIRE: ACQUIRE + "    bar.sync 0;\n"}),
    ("`ld.acquire.gpu`, second read `ld.relaxed.gpu`", {SECOND: SECOND.replace("ld.global", "ld.relaxed.gpu.global")}),
    ("`ld.acquire.gpu`, second read `ld.volatile`", {SECOND: SECOND.replace("ld.global", "ld.volatile.global")}),
    ("`ld.acquire.gpu`, first read `ld.relaxed.gpu`", {FIRST: FIRST.replace("ld.global", "ld.relaxed.gpu.global")}),
    ("a spin on `ld.acquire.gpu` (a loop) instead of one acquire",
     {ACQUIRE: "SPIN:\n" + ACQUIRE + "    setp.eq.u32 %p3, %r2, 0;\n    @%p3 bra SPIN;\n"}),
    ("`nanosleep.u32 2000` after the first read", {FIRST: FIRST + "    nanosleep.u32 2000;\n"}),
    ("a `%globaltimer` delay loop after the first read",
     {FIRST: FIRST + "    mov.u64 %rd10, %globaltimer;\nDELAY:\n    mov.u64 %rd11, %globaltimer;\n"
      "    sub.u64 %rd11, %rd11, %rd10;\n    setp.lt.u64 %p3, %rd11, 2000;\n    @%p3 bra DELAY;\n"}),
    ("a plain `st.global` to another address after the first read", {FIRST: FIRST + "    st.global.b32 [%rd3+12], 7;\n"}),
    ("`st.release.cta.global` after the first read (a release to global memory)",
     {FIRST: FIRST + "    st.release.cta.global.b32 [%rd3+12], 1;\n"}),
    ("`st.release.cta.shared` after the first read (the race-free form's `go`)",
     {FIRST: FIRST + "    mov.u32 %r11, go;\n    st.release.cta.shared.b32 [%r11], 1;\n",
      ".address_size 64\n": ".address_size 64\n\n.shared .align 4 .b32 go;\n"}),
    ("`ld.relaxed.gpu`, no fence (no acquire: the merge is legal)",
     {ACQUIRE: ACQUIRE.replace("acquire", "relaxed")}),
)
"""What lies between the two reads of x (or how they are made), as edits of load-merge-racy.ptx."""
STORE = "    st.global.b32 [%rd4], 2;                  // x = 2 (plain)\n"
STORE_BLOCKERS: tuple[tuple[str, dict[str, str]], ...] = (
    ("weak `st` x = 2 (the reproducer)", {}),
    ("`st.relaxed.gpu` x = 2", {STORE: STORE.replace("st.global", "st.relaxed.gpu.global")}),
    ("`st.volatile` x = 2", {STORE: STORE.replace("st.global", "st.volatile.global")}),
    ("weak `st`, read `ld.relaxed.gpu`", {SECOND: SECOND.replace("ld.global", "ld.relaxed.gpu.global")}),
)
"""How the consumer's store and read of x are made, as edits of store-forward-racy.ptx."""


class NoReader(Exception):
    """No nvdisasm found reads this target (nvdisasm 13 no longer reads sm_70)."""


@dataclass
class Ptxas:
    """One ptxas version and where it was found."""

    version: str
    path: str
    sources: list[str] = field(default_factory=list)

    @property
    def key(self) -> tuple[int, ...]:
        return tuple(int(p) for p in self.version.split("."))


def version_of(tool: str) -> str | None:
    """``12.9.86`` from ``tool --version``, or None when it does not run."""
    try:
        out = subprocess.run([tool, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"V(\d+\.\d+\.\d+)", out)
    return m.group(1) if m else None


def triton_bin(python: str) -> Path | None:
    """The directory of the ptxas that ``python``'s triton ships, if it has one."""
    code = "from litmus.toolchain import triton_bin; print(triton_bin() or '')"
    r = subprocess.run([python, "-c", code], capture_output=True, text=True, cwd=REPO)
    return Path(r.stdout.strip()) if r.returncode == 0 and r.stdout.strip() else None


def find_tools(cache: Path, pythons: list[str]) -> tuple[list[Ptxas], list[str]]:
    """Every distinct ptxas version (sorted) and every nvdisasm found."""
    found: list[tuple[str, str]] = []  # (path, where from)
    disasm: list[str] = []
    if os.environ.get("NVDISASM"):
        disasm.append(os.environ["NVDISASM"])
    for py in pythons:
        b = triton_bin(py)
        if b is None:
            continue
        tv = subprocess.run([py, "-c", "import triton; print(triton.__version__)"], capture_output=True,
                            text=True).stdout.strip()
        for name in ("ptxas", "ptxas-blackwell"):
            if (b / name).is_file():
                found.append((str(b / name), f"triton {tv} `{name}`"))
        if (b / "nvdisasm").is_file():
            disasm.append(str(b / "nvdisasm"))
    for d in sorted(cache.glob("*")):
        if (d / "ptxas").is_file():
            found.append((str(d / "ptxas"), f"wheel `{d.name}`"))
        if (d / "nvdisasm").is_file():
            disasm.append(str(d / "nvdisasm"))
    if os.environ.get("PTXAS"):
        found = [(p, "$PTXAS") for p in os.environ["PTXAS"].split()]
    versions: dict[str, Ptxas] = {}
    for path, source in found:
        v = version_of(path)
        if v is None:
            print(f"skipped {path}: it does not run", file=sys.stderr)
            continue
        versions.setdefault(v, Ptxas(v, path)).sources.append(source)
    return sorted(versions.values(), key=lambda p: p.key), list(dict.fromkeys(disasm))


class Matrix:
    """Compiles and reads SASS, remembering which nvdisasm reads which target."""

    def __init__(self, disasm: list[str], work: Path):
        self.disasm = disasm
        self.work = work
        self.reader: dict[str, str] = {}  # arch -> the nvdisasm that reads it

    def compile(self, ptxas: str, ptx: str, arch: str, opt: int) -> str | None:
        """The SASS, or None when ptxas has no such target (any other error is raised)."""
        src, cubin = self.work / "in.ptx", self.work / "out.cubin"
        src.write_text(ptx)
        r = subprocess.run([ptxas, f"-arch={arch}", f"-O{opt}", str(src), "-o", str(cubin)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            if "is not defined for option 'gpu-name'" in r.stderr or "not supported" in r.stderr.lower():
                return None
            raise RuntimeError(f"{ptxas} -arch={arch} -O{opt}: {r.stderr.strip()}")
        for tool in ([self.reader[arch]] if arch in self.reader else self.disasm):
            d = subprocess.run([tool, "-c", str(cubin)], capture_output=True, text=True)
            if d.returncode == 0 and "EXIT" in d.stdout:
                self.reader[arch] = tool
                return d.stdout
        raise NoReader(arch)

    @staticmethod
    def loads(sass: str, strong_too: bool = False) -> int:
        """Global loads in the SASS: weak ones only (no .STRONG, no .CONSTANT), or all."""
        lines = [line for line in sass.splitlines() if re.search(r"\bLDG\b", line)]
        return len(lines) if strong_too else len([line for line in lines if not re.search(r"STRONG|CONSTANT", line)])


def cell(m: Matrix, ptxas: str, ptx: str, arch: str, kept: int) -> str:
    """``KMMM``: K where -O<i> keeps ``kept`` weak loads, M where it has fewer; ``n/a`` (no such
    target), ``no nvdisasm`` (none found reads the target)."""
    marks = ""
    for opt in range(4):
        try:
            sass = m.compile(ptxas, ptx, arch, opt)
        except NoReader:
            return "no nvdisasm"
        if sass is None:
            return "n/a"
        n = Matrix.loads(sass)
        if n > kept:
            raise RuntimeError(f"{ptxas} {arch} -O{opt}: {n} weak loads, more than the PTX's {kept}")
        marks += "K" if n == kept else "M"
    return marks


def with_delay(ptx: str, n: int) -> str:
    """The PTX with its delay line repeated ``n`` times, as ``repro.py --delay n`` runs it."""
    return DELAY_LINE.sub(lambda mt: "\n".join([mt.group(1)] * max(n, 1)), ptx, count=1)


def blockers(m: Matrix, tools: list[Ptxas], arch: str, form: str = "load-merge-racy",
             cases: tuple[tuple[str, dict[str, str]], ...] = BLOCKERS) -> list[str]:
    """The table of edits of ``form`` at -O3 on ``arch``: ``K``/``M`` per ptxas, kept meaning as
    many global loads (weak and strong) as -O0 emits."""
    base = (BUGS / f"{form}.ptx").read_text()
    head = "| edit | " + " | ".join(t.version for t in tools) + " |"
    rows = [head, "|---|" + "---|" * len(tools)]
    for label, edits in cases:
        ptx = base
        for old, new in edits.items():
            assert old in ptx, f"{label}: the edit's line is not in {form}.ptx"
            ptx = ptx.replace(old, new)
        marks = []
        for t in tools:
            try:
                s0, s3 = m.compile(t.path, ptx, arch, 0), m.compile(t.path, ptx, arch, 3)
            except NoReader:
                s0 = s3 = None
            if s0 is None or s3 is None:
                marks.append("n/a")
            else:
                marks.append("K" if Matrix.loads(s3, True) == Matrix.loads(s0, True) else "**M**")
        rows.append(f"| {label} | " + " | ".join(marks) + " |")
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", default=os.environ.get("PTXAS_CACHE", "/tmp/ptxas-matrix"))
    ap.add_argument("--out", help="write the markdown here (default: stdout)")
    ap.add_argument("--archs", default=",".join(ARCHS))
    ap.add_argument("--forms", default=",".join(FORMS))
    ap.add_argument("--blockers-arch", default="sm_90", help="target of the blockers table ('' for none)")
    ap.add_argument("--delay", type=int, default=1, help="repeat each file's delay line this often (repro.py's "
                                                          "--delay; default 1: the file as it is)")
    a = ap.parse_args()
    pythons = os.environ.get("PYTHONS", "python").split()
    tools, disasm = find_tools(Path(a.cache), pythons)
    if not tools or not disasm:
        print("no ptxas or no nvdisasm found: run with --fetch, or set PTXAS / PYTHONS / NVDISASM", file=sys.stderr)
        return 2
    archs, forms = a.archs.split(","), a.forms.split(",")
    argv = sys.argv[1:]
    shown = [x for i, x in enumerate(argv) if x != "--cache" and (i == 0 or argv[i - 1] != "--cache")]
    out = ["# ptxas: does the plain load after `ld.acquire` survive? (versions x targets x forms)", "",
           "<!-- made by scripts/ptxas_matrix.sh; do not edit by hand -->", "",
           f"Made on the CPU (no GPU) by `PYTHONS=\"{' '.join(pythons)}\" bash scripts/ptxas_matrix.sh --fetch "
           f"{shlex.join(shown)}`.".replace(" `.", "`."), "",
           f"Delay line repeated {a.delay} time(s). A cell is -O0 -O1 -O2 -O3: K the load after the acquire is in "
           "the SASS, M it is gone; n/a: this ptxas has no such target.", "",
           "ptxas versions (each one binary; where it came from):", ""]
    out += [f"- {t.version}: " + ", ".join(t.sources) for t in tools]
    with tempfile.TemporaryDirectory() as tmp:
        m = Matrix(disasm, Path(tmp))
        for form in forms:
            ptx = with_delay((BUGS / f"{form}.ptx").read_text(), a.delay)
            kept = KEPT_LOADS[form.rsplit("-", 1)[0]]
            out += ["", f"### {form} (`docs/compiler-bugs/{form}.ptx`)", "",
                    "| ptxas | " + " | ".join(archs) + " |", "|---|" + "---|" * len(archs)]
            for t in tools:
                out.append(f"| {t.version} | " + " | ".join(cell(m, t.path, ptx, arch, kept) for arch in archs) + " |")
                print(out[-1], file=sys.stderr)
        if a.blockers_arch:
            out += ["", f"### What blocks it ({a.blockers_arch}, -O3; edits of `load-merge-racy.ptx`)", ""]
            out += blockers(m, tools, a.blockers_arch)
            out += ["", f"### Which stores are forwarded ({a.blockers_arch}, -O3; edits of `store-forward-racy.ptx`)", ""]
            out += blockers(m, tools, a.blockers_arch, "store-forward-racy", STORE_BLOCKERS)
        out += ["", "nvdisasm that read each target: " + ", ".join(
            f"{arch}: {version_of(tool)}" for arch, tool in sorted(m.reader.items(), key=lambda kv: int(kv[0][3:])))]
    text = "\n".join(out) + "\n"
    if a.out:
        Path(a.out).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
