"""Names in litmus/ that are used where vulture cannot see it (tests/test_unused_names.py reads
this file with the code; it is never imported).

- signal handlers take ``(signum, frame)`` whether they read them or not;
- pytest calls ``runtest``/``reportinfo`` and reads ``user_properties`` of the plugin's items;
- ``LintResult.assert_clean`` is the ``litmus`` fixture's API for users' tests (docs/pytest-plugin.md);
- the pydantic fields of ``litmus.spec.documents`` are the YAML keys (``volatile_load:``,
  ``bar.sync:``, ``~exists:``...), read by pydantic through their aliases;
- the keys of ``litmus.report.record.RunRecord`` are JSON keys, written and read as strings.
"""

# ruff: noqa
_ = object()

signum
_.runtest
_.reportinfo
_.user_properties
_.assert_clean
volatile_load
volatile_store
bar_sync
retry
tilde_exists
not_exists
forall
finished_at
default_instances
launcher
start_barrier
# the import system reads these: a module's __path__ and __package__, a loader's create_module
# (litmus/lint/stubs.py, litmus/lint/load.py)
_.__path__
_.__package__
_.create_module
