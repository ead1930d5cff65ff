"""``litmus doctor``: what this machine can run (GPUs, peer access, symm_mem, versions, backends).

The ``triton range`` line says whether the installed triton is inside the range litmus supports
(:mod:`litmus.toolchain`); outside it, the line gives the range and the install command.

The backends are the registered ones (:func:`litmus.run.registry.available_backends`): a backend
whose probe fails is reported with the probe's reason; for one that passes, the report adds what
the doctor checks itself (the GPU for ``cuda``; torch.distributed, symm_mem and the largest world
size for ``ranks``).
"""

from __future__ import annotations

import importlib.metadata
import json as _json
import os
import sys
from typing import Any

from litmus.run.ranks.env import MULTICAST_OFF
from litmus.run.registry import available_backends
from litmus.toolchain import show_range, support_message, triton_support


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def _gpus(torch: Any) -> list[dict[str, Any]]:
    gpus = []
    for i in range(torch.cuda.device_count()):
        p = torch.cuda.get_device_properties(i)
        gpus.append({
            "index": i,
            "name": p.name,
            "capability": f"{p.major}.{p.minor}",
            "memory_gib": round(p.total_memory / 2**30, 1),
        })
    return gpus


def _peer_matrix(torch: Any, n: int) -> list[list[bool]]:
    return [[i == j or bool(torch.cuda.can_device_access_peer(i, j)) for j in range(n)] for i in range(n)]


def _symm_mem_import() -> tuple[bool, str]:
    try:
        import torch.distributed as dist
        import torch.distributed._symmetric_memory as symm_mem  # noqa: F401
    except Exception as e:  # noqa: BLE001 - reported, not raised
        return False, f"cannot import torch.distributed._symmetric_memory: {e}"
    if not dist.is_available():
        return False, "torch.distributed is not available in this build"
    return True, "torch.distributed._symmetric_memory imports (empty + rendezvous)"


def _symm_mem_rendezvous() -> tuple[bool, str]:
    """A 1-rank process group on GPU 0: symm_mem.empty + rendezvous, buffer and signal pad pointers."""
    import torch
    import torch.distributed as dist
    import torch.distributed._symmetric_memory as symm_mem

    from litmus.run.ranks.env import free_port

    os.environ.update(MULTICAST_OFF)
    own = not dist.is_initialized()
    try:
        if own:
            torch.cuda.set_device(0)
            dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{free_port()}", rank=0, world_size=1,
                                    device_id=torch.device("cuda", 0))
        t = symm_mem.empty(1024, dtype=torch.int32, device="cuda:0")
        h = symm_mem.rendezvous(t, dist.group.WORLD.group_name)
        pads = list(h.signal_pad_ptrs)
        return True, f"1-rank rendezvous ok: buffer_ptrs={len(list(h.buffer_ptrs))}, signal pads={len(pads)}"
    except Exception as e:  # noqa: BLE001 - reported, not raised
        return False, f"1-rank rendezvous failed: {type(e).__name__}: {e}"
    finally:
        if own and dist.is_initialized():
            dist.destroy_process_group()


def _triton_range() -> dict[str, Any]:
    """Whether the installed triton is inside the supported range, the range, and one line saying so."""
    _, spec, _ = triton_support()
    ok, detail = support_message()
    return {"ok": ok, "range": show_range(spec) if spec is not None else None, "detail": detail}


def doctor_report(try_rendezvous: bool = False) -> dict[str, Any]:
    """What litmus can run here: GPUs, peer access, symm_mem, versions, and each backend's status.

    ``try_rendezvous``: also set up a 1-rank symmetric-memory rendezvous on GPU 0 (default: only
    check that the module imports).
    """
    report: dict[str, Any] = {
        "python": sys.version.split()[0],
        "torch": _version("torch"),
        "triton": _version("triton"),
        "triton_range": _triton_range(),
        "gpus": [],
        "peer_access": [],
        "symm_mem": {"available": False, "detail": "torch is not installed"},
        "backends": {},
    }
    try:
        import torch
    except Exception as e:  # noqa: BLE001
        try:
            names = list(available_backends())
        except Exception:  # noqa: BLE001 - a probe re-raised torch's import error
            names = []
        report["backends"] = {name: {"ok": False, "reason": f"torch does not import: {e}"} for name in names}
        return report
    cuda = torch.cuda.is_available()
    report["cuda_runtime"] = torch.version.cuda
    report["hip_runtime"] = getattr(torch.version, "hip", None)
    if cuda:
        report["gpus"] = _gpus(torch)
        report["peer_access"] = _peer_matrix(torch, len(report["gpus"]))
    ok, detail = _symm_mem_import()
    if ok and try_rendezvous and cuda:
        ok, detail = _symm_mem_rendezvous()
    report["symm_mem"] = {"available": ok, "detail": detail, "rendezvous_tried": bool(try_rendezvous and cuda)}
    report["backends"] = _backends(report, cuda, available_backends())
    return report


def _max_peer_clique(peer: list[list[bool]]) -> int:
    """How many GPUs, counted from GPU 0, can all reach each other (ranks 0..n-1)."""
    n = 0
    while n < len(peer) and all(peer[i][n] and peer[n][i] for i in range(n)):
        n += 1
    return n


def _backends(report: dict[str, Any], cuda: bool, probes: dict[str, str | None]) -> dict[str, Any]:
    """Each registered backend (``probes``: name -> why it cannot run, or None) with the report's
    details: a failed probe is the reason; a passed one gets the doctor's own checks."""
    out: dict[str, Any] = {}
    for name, reason in probes.items():
        if reason is not None:
            out[name] = {"ok": False, "reason": reason}
            if name == "ranks":
                out[name]["max_world_size"] = 0
        elif name == "cpu":
            out[name] = {"ok": True, "reason": "Triton interpreter (TRITON_INTERPRET=1), one process"}
        elif name == "cuda":
            out[name] = {"ok": True, "reason": f"{report['gpus'][0]['name']} (GPU 0)"}
        elif name == "ranks":
            out[name] = _ranks_status(report, cuda)
        else:
            out[name] = {"ok": True, "reason": "can run here"}
    return out


def _ranks_status(report: dict[str, Any], cuda: bool) -> dict[str, Any]:
    triton = report["triton"]
    import torch.distributed as dist

    if not dist.is_available() or not triton:
        return {"ok": False, "max_world_size": 0,
                "reason": "torch.distributed is not available" if triton else "triton is not installed"}
    if not cuda:
        return {"ok": True, "max_world_size": None, "device": "cpu",
                "reason": "CPU only: gloo + Triton interpreter, any world size (one process per rank)"}
    if not report["symm_mem"]["available"]:
        return {"ok": False, "max_world_size": 0, "device": "cuda", "reason": report["symm_mem"]["detail"]}
    n = _max_peer_clique(report["peer_access"])
    note = "" if n == len(report["gpus"]) else f" (GPU {n} lacks peer access to a lower GPU)"
    return {"ok": n >= 1, "max_world_size": n, "device": "cuda",
            "reason": f"nccl + symmetric memory over {n} GPU(s) with mutual peer access{note}"}


def render_doctor(report: dict[str, Any]) -> str:
    """The report as plain text for a terminal."""
    lines = [f"python {report['python']}   torch {report['torch']}   triton {report['triton']}"]
    tr = report["triton_range"]
    lines.append(f"triton range: {'yes' if tr['ok'] else 'NO'} ({tr['detail']})")
    if report.get("cuda_runtime") or report.get("hip_runtime"):
        lines.append(f"cuda runtime {report.get('cuda_runtime')}   hip runtime {report.get('hip_runtime')}")
    if report["gpus"]:
        lines.append("GPUs:")
        for g in report["gpus"]:
            lines.append(f"  {g['index']}: {g['name']}  sm {g['capability']}  {g['memory_gib']} GiB")
        n = len(report["gpus"])
        lines.append("peer access (row can read column):")
        lines.append("     " + " ".join(f"{j:>3}" for j in range(n)))
        for i, row in enumerate(report["peer_access"]):
            lines.append(f"  {i:>2} " + " ".join(f"{('yes' if v else 'no'):>3}" for v in row))
    else:
        lines.append("GPUs: none visible to torch")
    sm = report["symm_mem"]
    lines.append(f"symm_mem: {'yes' if sm['available'] else 'no'} ({sm['detail']})")
    lines.append("backends:")
    for name, b in report["backends"].items():
        extra = ""
        if name == "ranks" and b.get("ok") and b.get("max_world_size") is not None:
            extra = f"; max world size {b['max_world_size']}"
        lines.append(f"  {name:<6} {'ok ' if b['ok'] else 'no '} {b['reason']}{extra}")
    return "\n".join(lines)


def doctor_main(json: bool = False, try_rendezvous: bool = False) -> int:
    """Print the doctor report (text or JSON); 0 when at least one backend can run, else 1."""
    report = doctor_report(try_rendezvous=try_rendezvous)
    print(_json.dumps(report, indent=2, sort_keys=True) if json else render_doctor(report))
    return 0 if any(b["ok"] for b in report["backends"].values()) else 1
