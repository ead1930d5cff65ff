"""Launch the cuda backend's run kernels under the Triton interpreter with every address checked;
a subprocess of test_cuda_indices.py.

Each case is built the way :class:`litmus.run.cuda.CudaBackend` builds a round (the same shape,
launch spec, buffers, permutations and control header functions), with the run kernel's
codegen options (``RUN_KERNELS``: harness and quiescence) on the interpreter's features, then
the test kernel, the outcome-count kernel and (with memory stress) the stress kernel run with
:class:`tests.run.bounds.AddressCheck` on.  argv[1]: a JSON list of cases; prints one JSON
object: case name -> ``{"ok": instances counted, "accesses": elements checked}`` or
``{"error": message}``.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace

assert os.environ.get("TRITON_INTERPRET") == "1", "run with TRITON_INTERPRET=1"

from litmus.codegen import generate, load_kernel  # noqa: E402
from litmus.codegen import harness as h  # noqa: E402
from litmus.codegen.options import RUN_KERNELS  # noqa: E402
from litmus.run.buffers import init_strided, perm_tensor  # noqa: E402
from litmus.run.config import RunConfig, Stress  # noqa: E402
from litmus.run.counting import OutcomeCounter  # noqa: E402
from litmus.run.cuda import (grid_shape, launch_spec, parallel_header, parallel_spec, round_buffers,  # noqa: E402
                             stress_buffers, stress_launch)
from litmus.run.parallel import parallel_permutations  # noqa: E402
from litmus.run.stress import control_header, load_stress_kernel, round_permutations  # noqa: E402
from litmus.spec import load_text  # noqa: E402
from tests.run.bounds import AddressCheck  # noqa: E402


def run_case(case: dict) -> dict:
    """One round of ``case`` with every address checked."""
    text = case["yaml"] if "yaml" in case else open(case["path"]).read()  # a path keeps argv short
    tests = load_text(text, case["name"] + ".yaml")
    [test] = [t for t in tests if t.variant == case["variant"]] if "variant" in case else tests
    stress = Stress(**case.get("stress", {}))
    config = RunConfig(instances=case["instances"], seed=case["seed"], stress=stress)
    spin_bound = case.get("spin_bound", 3)
    if stress.launch == "grid":
        n, per_iter, block = grid_shape(test, config, case["sm_count"], case["block"])
        options = replace(RUN_KERNELS["grid"], backend="interpreter", block=block, spin_bound=spin_bound)
        source = generate(test, options)
        layout = source.layout
        spec = launch_spec(layout, n, stress.stride, per_iter)
        perms = round_permutations(layout, spec.progs_per_role * spec.block, config, 0)
        header = control_header(stress, config.seed, case.get("barrier_group", 2), spec.grid[0])
    else:
        options = replace(RUN_KERNELS["parallel"], backend="interpreter", block=case["block"],
                          spin_bound=spin_bound)
        source = generate(test, options)
        layout = source.layout
        spec = parallel_spec(layout, config, case["programs"], case["block"])
        perms = parallel_permutations(layout, spec.progs_per_role, spec.block,
                                      config.seed if stress.shuffle else None)
        header = parallel_header(stress, config.seed, spec.progs_per_role)
    # the interpreter runs the programs of a launch one after another: a barrier poll only costs time
    header[h.POLLS] = 2
    kernel = getattr(load_kernel(source, interpret=True), layout.kernel(None).name)
    heaps, control, table, out = round_buffers(layout, spec, stress, "cpu")
    init_strided(layout, heaps, spec.plan)
    control[: len(header)] = control.new_tensor(header)
    perm = perm_tensor(perms)
    check = AddressCheck()
    for k, heap in enumerate(heaps):
        # short_heap: the check's own test, a heap that lacks its last unit
        check.allow(f"heap {k}", heap[: -spec.plan.unit_words] if case.get("short_heap") else heap)
    for name, t in (("control block", control), ("heap_ptrs", table), ("out", out), ("perm", perm)):
        check.allow(name, t)
    with check.active():
        kernel[spec.grid](*spec.args(table, out, perm), BLOCK=spec.block)
        counter = OutcomeCounter(interpret=True)
        check.allow_from(lambda: [(f"count argument {k}", t) for args in counter._args.values()
                                  for k, t in enumerate(args)])
        rows = counter.count(out, heaps, layout, (spec.plan.loc_stride, spec.plan.inst_stride))
        launch = stress_launch(stress, lanes=case.get("stress_lanes", 4))
        if launch is not None:
            scratch, sink = stress_buffers(launch, "cpu")
            check.allow("stress scratch", scratch)
            check.allow("stress sink", sink)
            load_stress_kernel(interpret=True)[(launch.programs,)](
                scratch, sink, launch.iterations, config.seed, SCRATCH=launch.scratch_words, LANES=launch.lanes,
                FIRST_STORE=launch.first_store, SECOND_STORE=launch.second_store)
    counted = sum(c for _, _, c in rows)
    if counted != spec.n_instances:
        return {"error": f"counted {counted} outcomes of {spec.n_instances} instances"}
    return {"ok": counted, "accesses": check.accesses}


def main() -> None:
    answers = {}
    for case in json.loads(sys.argv[1]):
        try:
            answers[case["name"]] = run_case(case)
        except Exception as exc:  # noqa: BLE001 - each case answers for itself
            answers[case["name"]] = {"error": f"{type(exc).__name__}: {exc}"}
    print(json.dumps(answers))


if __name__ == "__main__":
    main()
