"""Parallel mode (every program plays every role, striped instances, iterations in one launch).

The kernels run under TRITON_INTERPRET=1 in a subprocess (parallel_runner.py), where programs
run one after another: the outcome of every instance is then determined by which program plays
each of its roles and by the emitted op order, and ``parallel_cases.simulate`` predicts it
exactly from the Python mirror of the instance map.  So these tests fail if the kernel's map,
the mirror, the coverage or the phase order is wrong.
"""

from __future__ import annotations

import pytest

from litmus.codegen import CodegenOptions, compile_variant, generate
from litmus.codegen import harness as h
from litmus.ir import Spin
from litmus.model import check
from litmus.run.parallel import barrier_programs, instance_table, join_words, parallel_roles
from tests.codegen.parallel_cases import (CASES, assert_instance_matches, case_layout, emitted_order, emitted_orders,
                                          load_case_test, run_interpreted, with_coverage)


@pytest.fixture(scope="module")
def results(litmus_cache) -> dict:
    return run_interpreted("tests.codegen.parallel_runner", CASES)


def _layout(case: dict):
    return case_layout(case, "parallel")


def _programs_per_instance(case: dict, perms: list) -> list[dict[str, int]]:
    """For every instance, the program that plays each thread (from the Python mirror)."""
    layout = _layout(case)
    n = case["programs"] * case["block"] * case["iterations"]
    where: list[dict[str, int]] = [{} for _ in range(n)]
    tables = instance_table(layout, [tuple(p) for p in perms], case["programs"], case["block"], case["iterations"])
    for name, table in tables.items():
        for (_, pid, _), x in table.items():
            assert name not in where[x], f"{case['name']}: {name} plays instance {x} twice"
            where[x][name] = pid
    return where


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_every_thread_plays_every_instance_exactly_once(results: dict, case: dict) -> None:
    got = results[case["name"]]
    covs = {k: v for k, v in got["locs"].items() if k.startswith("cov_")}
    assert covs and all(v == [1] * len(v) for v in covs.values()), covs


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_every_instance_matches_the_mirror_and_the_emitted_order(results: dict, case: dict) -> None:
    got = results[case["name"]]
    test = with_coverage(load_case_test(case["id"]))
    layout = _layout(case)
    orders = [[tuple(op) for op in order] for order in got["orders"]]
    for x, where in enumerate(_programs_per_instance(case, got["perms"])):
        assert set(where) == set(layout.threads)
        assert_instance_matches(got, x, test, layout, orders, where, case["name"],
                                x // (case["programs"] * case["block"]))


@pytest.mark.parametrize("case", [c for c in CASES if c["programs"] > 1], ids=lambda c: c["name"])
def test_partners_sit_in_other_programs(results: dict, case: dict) -> None:
    layout = _layout(case)
    roles = parallel_roles(layout)
    for where in _programs_per_instance(case, results[case["name"]]["perms"]):
        progs = [where[names[0]] for names in roles]
        assert all(p != progs[0] for p in progs[1:])  # always, against role 0
        if case["programs"] - 1 >= len(roles) - 1:  # distinct offsets: every role its own program
            assert len(set(progs)) == len(progs)
        for names in roles:  # threads sharing a CTA share a program
            assert len({where[n] for n in names}) == 1


def test_one_program_runs_writes_before_spins_so_nothing_times_out(results: dict) -> None:
    spinning = [c for c in CASES if c["programs"] == 1
                and any(isinstance(i, Spin) for t in load_case_test(c["id"]).threads for i in t.instrs)]
    assert len(spinning) >= 3
    for case in spinning:
        col = _layout(case).status_column
        assert all(row[col] == 0 for row in results[case["name"]]["out"]), case["name"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_completed_outcomes_are_allowed_by_the_model(results: dict, case: dict) -> None:
    test = load_case_test(case["id"])
    layout = _layout(case)
    allowed = set(check(test).allowed_states)
    got = results[case["name"]]
    keys = [k for k in layout.observables if not k.startswith("cov_")]
    done = 0
    for x, row in enumerate(got["out"]):
        if row[layout.status_column]:
            continue
        values = {k: row[layout.out_columns.index(k)] for k in keys if ":" in k}
        values.update({k: got["locs"][k][x] for k in keys if ":" not in k})
        assert tuple(sorted(values.items())) in allowed, (case["name"], x, values)
        done += 1
    # a symmetric barrier always waits on a later program somewhere under the interpreter
    assert done > 0 or case["programs"] > 1


def test_phases_keep_each_role_in_grid_order_and_put_writes_before_spins() -> None:
    test = load_case_test("SYMM-barrier-p1[p1-acqrel-sys]")
    par = emitted_order(generate(test, CodegenOptions(mode="parallel", block=4)).text)
    grid = emitted_order(generate(test, CodegenOptions(mode="grid", block=4)).text)
    roles = parallel_roles(generate(test, CodegenOptions(mode="parallel", block=4)).layout)
    phase_seq = []
    for names in roles:  # each role's own order is grid mode's (CTA barriers aligned)
        assert [op for op in par if op[0] in names] == [op for op in grid if op[0] in names]
    seen: dict[int, int] = {}
    for name, i in par:  # phase k of a role = its ops from its k-th spin on
        r = next(n for n, names in enumerate(roles) if name in names)
        seen[r] = seen.get(r, 0) + isinstance(test.thread(name).instrs[i], Spin)
        phase_seq.append(seen[r])
    assert phase_seq == sorted(phase_seq) and max(phase_seq) == 2


def test_a_rotating_kernel_plays_every_cyclic_rotation_of_the_roles_and_a_spinning_one_keeps_one_order() -> None:
    test = load_case_test("IRIW[relaxed-sys]")
    one = emitted_orders(generate(test, CodegenOptions(mode="parallel", block=4)).text)
    rotated = emitted_orders(generate(test, CodegenOptions(mode="parallel", block=4, role_rotation=True)).text)
    roles = parallel_roles(generate(test, CodegenOptions(mode="parallel", block=4)).layout)
    assert len(one) == 1 and len(rotated) == len(roles) == 4
    first_role = [next(n for n, names in enumerate(roles) if order[0][0] in names) for order in rotated]
    assert first_role == [0, 1, 2, 3]
    assert all(sorted(order) == sorted(one[0]) for order in rotated)
    for r, order in enumerate(rotated):  # role r first, then the others in their cyclic order
        assert order == [op for k in range(4) for op in one[0] if op[0] in roles[(r + k) % 4]]
    spinning = load_case_test("SYMM-barrier-p1[p1-acqrel-sys]")
    assert len(emitted_orders(generate(spinning, CodegenOptions(mode="parallel", block=4, role_rotation=True)).text)) == 1


def test_parallel_source_is_one_kernel_looping_over_iterations() -> None:
    src = generate(load_case_test("IRIW[relaxed-sys]"), CodegenOptions(mode="parallel", block=8))
    entry = src.layout.kernel(None)
    assert src.kernel_names == ("litmus_parallel",) and entry.parallel and entry.grid(6) == (6,)
    assert "if role ==" not in src.text and "for it in range(n_instances // per_iter):" in src.text
    assert all(f"lane_R{g} = tl.arange" in src.text for g in range(4))
    grid = generate(load_case_test("IRIW[relaxed-sys]"), CodegenOptions(mode="grid", block=8)).layout.kernel(None)
    assert grid.grid(6) == (24,)


def test_harness_joins_exactly_the_chosen_programs(results: dict) -> None:
    case = next(c for c in CASES if c.get("harness"))
    header = results[case["name"]]["header"]
    words = join_words(case["programs"], 50, case["seed"])
    assert len(barrier_programs(words, case["programs"])) == words[h.JOIN_COUNT] == 2
    assert header[h.ARRIVALS] == 2  # only the joiners took a ticket
    assert "hb_sel" in generate(load_case_test(case["id"]), CodegenOptions(mode="parallel", harness=True)).text
    assert "hb_sel" not in generate(load_case_test(case["id"]), CodegenOptions(mode="grid", harness=True)).text


@pytest.mark.parametrize("target", ["cuda:90", "hip:gfx942"])
@pytest.mark.parametrize("test_id", ["MP[relaxed-xcta-sys]", "SYMM-barrier-p1[p1-acqrel-sys]"])
def test_parallel_kernels_compile_for_gpu_targets_on_the_cpu(target: str, test_id: str) -> None:
    c = compile_variant(load_case_test(test_id), target, CodegenOptions(mode="parallel", harness=True))
    assert [k.name for k in c.kernels] == ["litmus_parallel"]
    assert c.text("ptx" if target.startswith("cuda") else "amdgcn")


def test_a_parallel_kernel_with_the_harness_reads_its_op_order_from_the_control_block() -> None:
    test = load_case_test("WRC[relacq-sys]")
    rotated = CodegenOptions(mode="parallel", block=8, harness=True, role_rotation=True)
    assert f"play_order = {h.ORDER_PICK} % 3" in generate(test, rotated).text
    plain = CodegenOptions(mode="parallel", block=8, role_rotation=True)  # no control block to read
    assert "play_order = (pid + it) % 3" in generate(test, plain).text
