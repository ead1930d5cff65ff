"""pytest plugin: litmus YAML patterns as test items, and a fixture/marker for users' own code.

Off unless asked (``--litmus`` or ini ``litmus = true``): when off it collects nothing, imports
neither torch nor triton and its hooks return at once.  When on, every variant of every pattern
under ``litmus_paths`` (default ``catalog/``) or named on the command line is one item that
asserts (a) its declared expectation agrees with the PTX model and (b) no forbidden outcome
appears on ``--litmus-backend`` (``auto``/``cpu``/``cuda``/``ranks``; ``model`` = only (a)).

A variant whose declared miscompile (``audit_expect``) the run executes is a strict xfail; a
run too short to decide is INCONCLUSIVE (a skip with its reason; ``--litmus-strict`` fails it).
For CI: every item's JUnit properties, ``--litmus-jsonl`` (the records ``litmus run`` writes),
one table at the end, and xdist workers spread over the GPUs (docs/ci.md).

For users' tests (whether or not ``--litmus`` is given): the ``litmus`` fixture
(:class:`~litmus.pytest_plugin.runner.LitmusRunner`; ``litmus.run(pattern, variant=None, ...)``
returns a :class:`~litmus.pytest_plugin.result.LitmusResult`) and the marker
``@pytest.mark.litmus_pattern(pattern, variant=..., ...)`` with the ``litmus_result`` fixture.
See docs/pytest-plugin.md.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Generator

import pytest

from litmus.pytest_plugin.ci import INCONCLUSIVE
from litmus.pytest_plugin.options import add_options, is_enabled

MARKERS = (
    "litmus: a litmus memory-model test (YAML variant, or a test using @pytest.mark.litmus_pattern)",
    "gpu: needs a CUDA device (litmus items on the cuda backend)",
    "multigpu: needs several GPUs (litmus items on the ranks backend)",
    "litmus_pattern(pattern, variant=None, **run_options): run a litmus pattern (path, catalog name "
    "or inline YAML) for this test; the result is the litmus_result fixture",
)


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    for line in MARKERS:
        config.addinivalue_line("markers", line)
    if not is_enabled(config):
        return
    from litmus.errors import LitmusError
    from litmus.pytest_plugin.state import get_state
    from litmus.run.config import load_stresses
    from litmus.run.tuned import AUTO

    state = get_state(config)
    try:
        if state.options.stress != AUTO:
            load_stresses(state.options.stress)
    except LitmusError as e:
        raise pytest.UsageError(f"--litmus-stress: {e}") from None
    if state.options.cache is not None:
        # set before xdist starts its workers, which inherit them: one cache for every worker
        os.environ["LITMUS_CACHE"] = str(state.options.cache)
        os.environ["TRITON_CACHE_DIR"] = str(state.options.cache / "triton")
    if config.getoption("dist", None) == "load":
        # loadgroup is load for items without an xdist_group mark, and keeps multi-rank items
        # (one group) on one worker; an explicit --dist other than load is left alone
        config.option.dist = "loadgroup"
    if not hasattr(config, "workerinput"):  # the controller (or a session without xdist) reports
        from litmus.pytest_plugin.ci import CiReporter

        config.pluginmanager.register(CiReporter(state), CiReporter.NAME)
    if config.args_source == pytest.Config.ArgsSource.ARGS:
        state.explicit = tuple(Path(a.split("::")[0]).resolve() for a in config.args)
    else:
        # No paths on the command line: collect litmus_paths besides the usual test paths.
        config.args = [*config.args, *(str(p) for p in state.options.paths if str(p) not in config.args)]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` with litmus items on a GPU backend: one worker per GPU (one on ranks), unless
    ``--litmus-gpu-share``; otherwise xdist's own count."""
    if not is_enabled(config):
        return None
    from litmus.pytest_plugin.backends import cuda_device_count
    from litmus.pytest_plugin.devices import auto_workers
    from litmus.pytest_plugin.state import get_state

    state = get_state(config)
    kind = state.backend_kind
    if kind not in ("cuda", "ranks"):
        return None
    return auto_workers(kind, cuda_device_count(), state.options.gpu_share)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    report = yield
    record = getattr(item, "litmus_record", None)
    if call.when == "call" and record is not None:
        report.litmus_record = record  # travels with the report to the xdist controller
    return report


@pytest.hookimpl(tryfirst=True)
def pytest_report_teststatus(report: pytest.TestReport) -> tuple[str, str, Any] | None:
    if report.when == "call" and report.skipped and INCONCLUSIVE in report.user_properties:
        return "inconclusive", "I", ("INCONCLUSIVE", {"yellow": True})
    return None


def pytest_unconfigure(config: pytest.Config) -> None:
    from litmus.pytest_plugin.state import STATE

    state = config.stash.get(STATE, None)
    if state is not None:
        state.close()


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix not in (".yaml", ".yml") or not is_enabled(parent.config):
        return None
    from litmus.pytest_plugin.collect import LitmusFile
    from litmus.pytest_plugin.state import get_state

    if not get_state(parent.config).wants(file_path):
        return None
    return LitmusFile.from_parent(parent, path=file_path)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not is_enabled(config):
        return
    from litmus.pytest_plugin.collect import add_backend_markers
    from litmus.pytest_plugin.state import get_state

    kind = get_state(config).backend_kind
    for item in items:
        if item.get_closest_marker("litmus_pattern") is not None and item.get_closest_marker("litmus") is None:
            add_backend_markers(item, kind, None)


@pytest.fixture(scope="session")
def litmus(request: pytest.FixtureRequest) -> Any:
    """A runner: ``litmus.run(pattern, variant=None, iterations=..., backend=...) -> LitmusResult``."""
    from litmus.pytest_plugin.runner import LitmusRunner
    from litmus.pytest_plugin.state import get_state

    state = get_state(request.config)
    return LitmusRunner(state.options, state.pool, request.config.rootpath)


@pytest.fixture
def litmus_result(request: pytest.FixtureRequest, litmus: Any) -> Any:
    """The result of the test's ``@pytest.mark.litmus_pattern(...)`` run."""
    marker = request.node.get_closest_marker("litmus_pattern")
    if marker is None or not marker.args:
        pytest.fail("the litmus_result fixture needs @pytest.mark.litmus_pattern(pattern, variant=...)",
                    pytrace=False)
    return litmus.run(*marker.args, **marker.kwargs)
