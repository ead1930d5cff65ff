"""One self-contained HTML page of a results file, or of two compared: no CDN, no network.

Plots are matplotlib SVG inlined in the page (:mod:`litmus.report.plots`); the CSS and the few
lines of JavaScript that sort and filter the tables are inline too. The page opens from disk
(``file://``) in any browser, offline. See docs/report.md.
"""

from __future__ import annotations

import html
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from litmus.codegen.targets import AUDIT_TARGETS
from litmus.report.explanations import explanations_html, why_anchor
from litmus.report.rates import (
    LABEL_COLOURS, VERDICT_ORDER, completed, rate_cell, rate_interval,
)
from litmus.report.record import RunRecord

CONFIG_FLAGS = (("time_budget", "--time-budget"), ("iterations", "--iterations"), ("instances", "--instances"),
                ("seed", "--seed"), ("stop_bound", "--until-bound"))


def esc(x: Any) -> str:
    return html.escape("" if x is None else str(x), quote=True)


def anchor(test_id: str) -> str:
    """An HTML id for a record's table row."""
    return "row-" + re.sub(r"[^A-Za-z0-9_-]+", "_", test_id).strip("_")


@dataclass
class Context:
    """What the page shows besides the records: model, audit and mutation score, when known."""

    records: list[RunRecord]
    title: str
    source: str = ""
    tests: dict[str, Any] = field(default_factory=dict)  # id -> LitmusTest (pattern files present)
    model: dict[str, Any] = field(default_factory=dict)  # id -> ModelFacts (ptx), from the records
    audit: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)  # (id, target) -> cell
    audit_note: str = ""
    mutation: Any = None  # MutationScore
    notes: list[str] = field(default_factory=list)
    explained: list[Any] = field(default_factory=list)  # litmus.report.explanations.Explained
    unexplained: list[str] = field(default_factory=list)  # ids past MAX_EXPLAINED


def build_context(records: Sequence[RunRecord], title: str, source: str = "", audit: bool = False,
                  audit_records: Sequence[Mapping[str, Any]] | None = None, jobs: int | None = None) -> Context:
    """Load the pattern files the records name (when present here), take each variant's model
    answer from its record (checking the PTX model only for a record that keeps none), score the
    mutants, and audit each variant per target when asked
    (``audit``: compile here with the installed triton; ``audit_records``: lines of a saved
    ``litmus audit --json``)."""
    ctx = Context(list(records), title, source)
    sources = sorted({str(r["source"]) for r in records if r.get("source")})
    missing = [s for s in sources if not Path(s).is_file()]
    if sources and not missing:
        from litmus.report.explanations import explain_records
        from litmus.report.mutation import checked_facts, mutation_score, record_facts
        from litmus.spec import load_tests

        tests = load_tests(sources)
        ctx.tests = {t.id: t for t in tests}
        by_id = {str(r.get("id")): r for r in records}
        ctx.model = {t.id: record_facts(by_id.get(t.id)) or checked_facts(t) for t in tests}
        ctx.mutation = mutation_score(tests, records, ctx.model)
        ctx.explained, ctx.unexplained = explain_records(records, ctx.tests)
    elif missing:
        ctx.notes.append("The pattern files the records name are not here (" + ", ".join(missing[:5]) +
                         (", ..." if len(missing) > 5 else "") + "): no model states, audit or mutation "
                         "score. Make the page from the folder the run was made in.")
    if audit_records is not None:
        for a in audit_records:
            if a.get("id") and a.get("target"):
                ctx.audit[(str(a["id"]), str(a["target"]))] = dict(a)
        ctx.audit_note = "from a saved 'litmus audit --json'"
    elif audit and ctx.tests:
        import triton

        from litmus.audit.batch import audit_many

        wanted = [ctx.tests[str(r["id"])] for r in records if str(r.get("id")) in ctx.tests]
        for cell in audit_many(wanted, AUDIT_TARGETS, jobs=jobs, run_kernels=False):
            ctx.audit[(cell.test.id, cell.target)] = {
                "status": cell.status, "reason": cell.result.reason,
                "findings": [{"op": f.op, "found": f.found, "declared": f not in cell.undeclared}
                             for f in cell.result.findings],
            }
        ctx.audit_note = f"compiled here with triton {triton.__version__}"
    elif audit:
        ctx.notes.append("No audit column: the audit compiles the pattern files the records name, and they "
                         "are not here.")
    return ctx


# ---------------------------------------------------------------------------------------------
# pieces of the page

CSS = """
:root { --fg:#1d2125; --muted:#5f6b76; --line:#d8dee4; --bg:#ffffff; --alt:#f6f8fa; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
       background: var(--bg); margin: 0 auto; padding: 16px 24px 48px; max-width: 1600px; }
h1 { font-size: 22px; margin: 4px 0 8px; } h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
pre.cmd { background: var(--alt); padding: 8px 10px; border: 1px solid var(--line); border-radius: 6px;
          white-space: pre-wrap; word-break: break-all; }
nav a { margin-right: 14px; }
.muted { color: var(--muted); }
.note { background: #fff8e1; border: 1px solid #f0d890; padding: 6px 10px; border-radius: 6px; }
table { border-collapse: collapse; }
table.data { width: 100%; font-size: 12.5px; }
.scroll { overflow-x: auto; }
table.data td { white-space: nowrap; }
table.data th, table.data td { border-bottom: 1px solid var(--line); padding: 3px 6px; vertical-align: top; text-align: left; }
table.data th { position: sticky; top: 0; background: #eef1f4; cursor: pointer; user-select: none; white-space: nowrap; }
table.data th.sorted-asc::after { content: " \\25B2"; } table.data th.sorted-desc::after { content: " \\25BC"; }
table.data td.num, table.data th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.data tbody tr:nth-child(even) { background: var(--alt); }
table.kv td { padding: 2px 12px 2px 0; vertical-align: top; }
.badge { display: inline-block; padding: 1px 7px; border-radius: 10px; color: #fff; font-size: 12px; white-space: nowrap; }
.v-VIOLATION { background: #d62728; font-weight: bold; } .v-racy-witnessed { background: #f0a202; color:#222; }
.v-racy-unseen { background: #3b8fc4; } .v-correct { background: #2ca02c; } .v-inconclusive { background: #9467bd; }
.v-skipped, .v-none { background: #999; }
.a-pass { color: #2ca02c; } .a-finding { color: #d62728; font-weight: bold; } .a-declared { color: #b07a00; }
.a-differs { color: #d62728; } .a-unsupported { color: var(--muted); }
table.matrix td { padding: 3px 6px; border-bottom: 1px solid var(--line); vertical-align: top; }
table.matrix td.pat { white-space: nowrap; font-weight: 600; }
.cells { display: flex; flex-wrap: wrap; gap: 3px; }
.cell { display: inline-block; padding: 1px 5px; border-radius: 3px; color: #fff; font-size: 11px;
        text-decoration: none; white-space: nowrap; }
.cell.v-racy-witnessed { color: #222; }
.legend span { margin-right: 6px; }
.facts { display: flex; flex-wrap: wrap; gap: 4px 22px; margin: 6px 0 10px; }
.controls { display: flex; flex-wrap: wrap; gap: 10px; align-items: center; margin: 8px 0;
            position: sticky; top: 0; background: var(--bg); padding: 6px 0; z-index: 2; }
.controls input[type=search] { width: 300px; padding: 4px 8px; }
.plot svg { width: 100%; max-width: 1250px; height: auto; }
details summary { cursor: pointer; color: #0b62b5; }
.hist td { padding: 0 6px 0 0; font-size: 11.5px; }
.bar { display: inline-block; height: 9px; vertical-align: middle; }
tr.ch-worse { background: #fde2e1 !important; } tr.ch-better { background: #e1f5e1 !important; }
tr.ch-rate { background: #fff4d6 !important; } tr.ch-only { background: #eeeeee !important; }
.chg-worse { color: #b00020; font-weight: bold; } .chg-better { color: #1b7d1b; font-weight: bold; }
.chg-rate { color: #9a6a00; font-weight: bold; }
.grid2 { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
@media (max-width: 900px) { .grid2 { grid-template-columns: 1fr; } }
"""

JS = """
(function () {
  function key(td) {
    var v = td.getAttribute('data-v'); if (v === null) v = td.textContent.trim();
    var n = parseFloat(v); return (v !== '' && !isNaN(n) && isFinite(v)) ? [0, n] : [1, v.toLowerCase()];
  }
  document.querySelectorAll('table.sortable').forEach(function (table) {
    table.querySelectorAll('thead th').forEach(function (th, col) {
      th.addEventListener('click', function () {
        var asc = !th.classList.contains('sorted-asc');
        table.querySelectorAll('thead th').forEach(function (h) { h.classList.remove('sorted-asc', 'sorted-desc'); });
        th.classList.add(asc ? 'sorted-asc' : 'sorted-desc');
        var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = key(a.cells[col]), y = key(b.cells[col]);
          var c = x[0] - y[0] || (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0);
          return asc ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  document.querySelectorAll('.controls[data-for]').forEach(function (ctl) {
    var table = document.getElementById(ctl.getAttribute('data-for'));
    var text = ctl.querySelector('input[type=search]'), count = ctl.querySelector('.count');
    var boxes = ctl.querySelectorAll('input[type=checkbox][data-verdict]');
    var changed = ctl.querySelector('input[type=checkbox][data-changed]');
    function apply() {
      var q = text.value.toLowerCase().trim(), on = {}, shown = 0, rows = table.tBodies[0].rows;
      boxes.forEach(function (b) { on[b.getAttribute('data-verdict')] = b.checked; });
      for (var i = 0; i < rows.length; i++) {
        var r = rows[i], v = r.getAttribute('data-verdict');
        var ok = (!q || r.textContent.toLowerCase().indexOf(q) >= 0) && (!(v in on) || on[v]) &&
                 (!changed || !changed.checked || r.getAttribute('data-changed') === '1');
        r.style.display = ok ? '' : 'none'; if (ok) shown++;
      }
      count.textContent = shown + ' of ' + rows.length + ' rows';
    }
    ctl.addEventListener('input', apply); ctl.addEventListener('change', apply);
    if (location.hash.indexOf('#q=') === 0) text.value = decodeURIComponent(location.hash.slice(3));
    apply();
  });
})();
"""


def badge(verdict: str | None) -> str:
    v = verdict or "none"
    return f'<span class="badge v-{esc(v)}">{esc(v)}</span>'


def _num(x: Any) -> str:
    return f"{x:,}" if isinstance(x, int) else ("-" if x is None else esc(x))


def _distinct(records: Sequence[RunRecord], key: str) -> list[str]:
    seen: list[str] = []
    for r in records:
        v = r.get(key)
        if v is not None and str(v) not in seen:
            seen.append(str(v))
    return seen


def command_text(records: Sequence[RunRecord]) -> tuple[str, bool]:
    """The exact command, when the records carry one (``command``); otherwise the ``litmus run``
    command that the recorded configuration stands for. Returns (text, exact)."""
    cmds = _distinct(records, "command")
    if cmds:
        return "\n".join(cmds), True
    if not records:
        return "", False
    r = records[0]
    sources = sorted({str(x["source"]) for x in records if x.get("source")})
    folders = {str(Path(s).parent) for s in sources}
    paths: list[str] = sources
    if len(folders) == 1:
        folder = Path(next(iter(folders)))
        if folder.is_dir() and sorted(str(p) for p in folder.glob("*.yaml")) == sources:
            paths = [f"{folder}/"]
    cfg = r.get("config") or {}
    parts = ["litmus run", *paths, "--backend", str(r.get("backend", "?"))]
    for k, flag in CONFIG_FLAGS:
        if cfg.get(k) is not None and not (k == "iterations" and cfg.get("time_budget") is not None):
            parts += [flag, f"{cfg[k]:g}" if isinstance(cfg[k], float) else str(cfg[k])]
    stress = (cfg.get("stress") or {}).get("name")
    if stress:
        parts += ["--stress", str(stress)]
    if r.get("world_size") and r.get("backend") == "ranks":
        parts += ["--world-size", str(r["world_size"])]
    return " ".join(parts), False


def machine_html(records: Sequence[RunRecord]) -> str:
    keys = ("backend", "device", "arch", "world_size", "placement", "launcher", "torch", "triton")
    rows = []
    for k in keys:
        vals = _distinct(records, k)
        if vals:
            rows.append(f"<span><span class=muted>{esc(k)}</span> {esc(', '.join(vals))}</span>")
    stress = _distinct([r.get("config", {}).get("stress", {}) for r in records if r.get("config")], "name")
    if stress:
        rows.append(f"<span><span class=muted>stress</span> {esc(', '.join(stress))}</span>")
    times = sorted(str(r["finished_at"]) for r in records if r.get("finished_at"))
    if times:
        rows.append(f"<span><span class=muted>finished</span> {esc(times[0])} … {esc(times[-1])}</span>")
    total = sum(float(r.get("seconds") or 0) for r in records)
    rows.append(f"<span><span class=muted>variants</span> {len(records)} ({total:,.1f} s of running)</span>")
    cmd, exact = command_text(records)
    label = "command" if exact else "command (rebuilt from the recorded configuration)"
    return (f"<div class=facts>{''.join(rows)}</div>"
            f"<div class=muted>{esc(label)}</div><pre class=cmd>{esc(cmd)}</pre>")


def verdict_summary_html(records: Sequence[RunRecord]) -> str:
    counts = Counter(str(r.get("verdict")) for r in records)
    order = [v for v in VERDICT_ORDER if v in counts] + sorted(set(counts) - set(VERDICT_ORDER))
    return '<p class="legend">' + " ".join(f"{badge(v)} {counts[v]}" for v in order) + "</p>"


def matrix_html(records: Sequence[RunRecord]) -> str:
    """One row per pattern; one coloured cell per variant, linking to its row in the table."""
    by_pattern: dict[str, list[RunRecord]] = defaultdict(list)
    for r in records:
        by_pattern[str(r.get("test"))].append(r)
    rows = []
    for pattern, group in by_pattern.items():
        counts = Counter(str(r.get("verdict")) for r in group)
        worst = min((VERDICT_ORDER.index(v) for v in counts if v in VERDICT_ORDER), default=0)
        cells = "".join(
            f'<a class="cell v-{esc(r.get("verdict"))}" href="#{anchor(str(r.get("id")))}" '
            f'title="{esc(r.get("id"))}: {esc(r.get("verdict"))}, rate {esc(rate_cell(r))}">'
            f'{esc(r.get("variant"))}</a>' for r in group)
        summary = ", ".join(f"{counts[v]} {v}" for v in VERDICT_ORDER if counts.get(v))
        rows.append(f'<tr data-worst="{worst}"><td class=pat>{esc(pattern)}<br><span class=muted '
                    f'style="font-weight:normal;font-size:11px">{esc(summary)}</span></td>'
                    f'<td><div class=cells>{cells}</div></td></tr>')
    return (f'<table class=matrix id=matrix><tbody>{"".join(rows)}'
            f'</tbody></table>')


def model_cell(ctx: Context, test_id: str) -> tuple[str, str]:
    """(cell HTML, sort key) of the PTX model's allowed states for a variant."""
    m = ctx.model.get(test_id)
    t = ctx.tests.get(test_id)
    if m is None or t is None:
        return '<span class=muted>-</span>', ""
    from litmus.report.model_text import condition_text

    shown = [tuple(zip(m.keys, s)) for s in m.states]
    states = "".join(f"<li class=mono>{esc(' '.join(f'{k}={v}' for k, v in s))}</li>" for s in shown)
    verdict = "allows target" if m.target_reachable else "forbids target"
    hang = " <span class=muted title='some execution has a spin that can never exit'>(may hang)</span>" \
        if m.possible_hang else ""
    return (f'<details><summary>{esc(verdict)}, {len(shown)} state(s)</summary>'
            f'<div class="mono muted">{esc(condition_text(t))}</div><ul>{states}</ul></details>{hang}',
            "1" if m.target_reachable else "0")


def audit_cell_html(ctx: Context, test_id: str, target: str) -> tuple[str, str]:
    a = ctx.audit.get((test_id, target))
    if a is None:
        return '<span class=muted>-</span>', ""
    status = str(a.get("status"))
    findings = a.get("findings") or []
    tip = "; ".join(f"{f.get('op')}: {f.get('found')}" + (" (declared)" if f.get("declared") else "")
                    for f in findings) or str(a.get("reason") or "")
    body = f'<span class="a-{esc(status)}" title="{esc(tip)}">{esc(status)}</span>'
    if findings:
        items = "".join(f"<li>{esc(f.get('op'))}: {esc(f.get('found'))}"
                        f"{' <i>(declared)</i>' if f.get('declared') else ''}</li>" for f in findings)
        body += f"<details><summary>{len(findings)} finding(s)</summary><ul>{items}</ul></details>"
    return body, status


def histogram_html(r: RunRecord) -> str:
    bins = sorted(r.get("histogram") or [], key=lambda b: -int(b.get("count", 0)))
    if not bins:
        return '<span class=muted>-</span>'
    import math

    top = max(int(b.get("count", 0)) for b in bins) or 1
    rows = []
    for b in bins:
        c = int(b.get("count", 0))
        width = 4 + 96 * (math.log10(c + 1) / math.log10(top + 1))
        colour = LABEL_COLOURS.get(str(b.get("label")), "#999")
        target = " <b>target</b>" if b.get("target") else ""
        state = " ".join(f"{k}={v}" for k, v in (b.get("state") or {}).items())
        rows.append(f'<tr><td class=mono>{esc(state)}</td><td>{esc(b.get("label"))}{target}</td>'
                    f'<td class=num>{c:,}</td><td><span class=bar style="width:{width:.0f}px;'
                    f'background:{colour}"></span></td></tr>')
    notes = "".join(f"<div class=muted>{esc(n)}</div>" for n in r.get("notes") or [])
    return (f'<details><summary>{len(bins)} outcome(s)</summary><table class=hist>{"".join(rows)}</table>'
            f'{notes}</details>')


def records_table(ctx: Context) -> str:
    audit_targets = sorted({t for _i, t in ctx.audit}) if ctx.audit else []
    heads = [("variant", ""), ("expect", ""), ("model (PTX)", "")]
    heads += [(f"audit {t}", "") for t in audit_targets]
    heads += [("verdict", ""), ("instances", "num"), ("completed", "num"), ("target seen", "num"),
              ("weak", "num"), ("forbidden", "num"), ("timeout", "num"), ("hung", "num"), ("rate [95 %]", "num"),
              ("s to first", "num"), ("seconds", "num"), ("outcomes", "")]
    thead = "".join(f'<th class="{c}">{esc(h)}</th>' for h, c in heads)
    body = []
    explained = {x.test_id for x in ctx.explained}
    for r in ctx.records:
        rid = str(r.get("id"))
        c = r.get("counts") or {}
        model, model_key = model_cell(ctx, rid)
        audits = "".join('<td data-v="{1}">{0}</td>'.format(*audit_cell_html(ctx, rid, t)) for t in audit_targets)
        iv = rate_interval(r)
        rate_key = "" if iv is None else (f"{iv[0]:.6e}" if iv[0] > 0 else f"{-1 / (iv[2] or 1):.6e}")
        first = r.get("seconds_to_first")
        verdict = str(r.get("verdict"))
        why = f' <a href="#{why_anchor(rid)}">why</a>' if rid in explained else ""
        body.append(
            f'<tr id="{anchor(rid)}" data-verdict="{esc(verdict)}"><td class=mono>{esc(rid)}</td>'
            f'<td>{esc(r.get("expect") or "-")}</td>'
            f'<td data-v="{model_key}">{model}</td>{audits}'
            f'<td data-v="{VERDICT_ORDER.index(verdict) if verdict in VERDICT_ORDER else 9}">{badge(verdict)}{why}</td>'
            f'<td class=num data-v="{r.get("instances") or 0}">{_num(r.get("instances"))}</td>'
            f'<td class=num data-v="{completed(r)}">{completed(r):,}</td>'
            f'<td class=num data-v="{r.get("target_count") or 0}">{_num(r.get("target_count", 0))}</td>'
            f'<td class=num>{_num(c.get("weak", 0))}</td><td class=num>{_num(c.get("forbidden", 0))}</td>'
            f'<td class=num>{_num(c.get("timeout", 0))}</td><td class=num>{_num(c.get("hang", 0))}</td>'
            f'<td class=num data-v="{rate_key}">{esc(rate_cell(r))}</td>'
            f'<td class=num data-v="{first if isinstance(first, (int, float)) else ""}">'
            f'{f"{first:.3g}" if isinstance(first, (int, float)) else "-"}</td>'
            f'<td class=num>{_num(r.get("seconds"))}</td><td>{histogram_html(r)}</td></tr>')
    present = [v for v in VERDICT_ORDER if any(r.get("verdict") == v for r in ctx.records)]
    boxes = "".join(f'<label><input type=checkbox data-verdict="{v}" checked> {badge(v)}</label>' for v in present)
    controls = (f'<div class=controls data-for=records><input type=search placeholder="filter: pattern, variant, '
                f'state, verdict…" aria-label=filter>{boxes}<span class="count muted"></span></div>')
    return (f'{controls}<div class=scroll><table class="data sortable" id=records><thead><tr>{thead}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table></div>')


def mutation_html(score: Any) -> str:
    d = score.as_dict()
    pct = (lambda x: f"{100 * x:.1f} %" if x is not None else "-")
    lines = [
        f"<tr><td class=muted>conformance tests (target forbidden)</td><td>{d['conformance']}, "
        f"violations: <b>{len(d['violations'])}</b></td></tr>",
        f"<tr><td class=muted>mutants (target allowed)</td><td>{d['mutants']}, witnessed: {d['witnessed']}, "
        f"<b>mutation score {pct(d['score'])}</b></td></tr>",
    ]
    if d["machine_gpus"] < 2:
        lines.append(f"<tr><td class=muted>on one GPU</td><td>{d['multi_gpu_mutants']} mutant(s) need several "
                     f"GPUs; score over the {d['showable']} it can show: <b>{pct(d['showable_score'])}</b></td></tr>")
    rows = "".join(f"<tr><td><a href='#{anchor(u['id'])}'>{esc(u['id'])}</a></td><td>{badge(u['verdict'])}</td>"
                   f"<td>{'yes' if u['multi_gpu'] else ''}</td><td>{esc(u['reason'])}</td></tr>"
                   for u in d["unseen"])
    unseen = (f"<details><summary>{len(d['unseen'])} unseen mutant(s), each with its reason</summary>"
              f"<table class='data sortable'><thead><tr><th>variant</th><th>verdict</th><th>needs several GPUs</th>"
              f"<th>reason</th></tr></thead><tbody>{rows}</tbody></table></details>") if d["unseen"] else ""
    return f"<table class=kv>{''.join(lines)}</table>{unseen}"


def cost_html(records: Sequence[RunRecord]) -> str:
    """Per pattern: variants, rounds, instances, seconds and instances per second."""
    groups: dict[str, list[RunRecord]] = defaultdict(list)
    for r in records:
        groups[str(r.get("test"))].append(r)
    if not any(r.get("seconds") for r in records):
        return ""

    def row(name: str, rs: Sequence[RunRecord], bold: bool = False) -> str:
        secs = sum(float(r.get("seconds") or 0) for r in rs)
        inst = sum(int(r.get("instances") or 0) for r in rs)
        rounds = sum(int(r.get("rounds") or 0) for r in rs)
        per = inst / secs if secs else 0
        tag = "b" if bold else "span"
        return (f"<tr><td><{tag}>{esc(name)}</{tag}></td><td class=num>{len(rs)}</td><td class=num>{rounds:,}</td>"
                f"<td class=num data-v='{inst}'>{inst:,}</td><td class=num>{secs:,.2f}</td>"
                f"<td class=num data-v='{per:.0f}'>{per:,.0f}</td></tr>")

    body = "".join(row(k, v) for k, v in sorted(groups.items()))
    foot = row("all", records, bold=True)
    return ("<table class='data sortable' id=cost style='width:auto'><thead><tr><th>pattern</th>"
            "<th class=num>variants</th><th class=num>rounds</th><th class=num>instances</th>"
            "<th class=num>seconds</th><th class=num>instances / s</th></tr></thead>"
            f"<tbody>{body}</tbody><tfoot>{foot}</tfoot></table>")


def page(title: str, sections: Sequence[tuple[str, str, str]], intro: str = "") -> str:
    """The whole document: ``sections`` are (anchor, heading, body HTML)."""
    nav = "".join(f'<a href="#{a}">{esc(h)}</a>' for a, h, _b in sections)
    body = "".join(f'<section id="{a}"><h2>{esc(h)}</h2>{b}</section>' for a, h, b in sections)
    return (
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f"<meta name=generator content=litmus><title>{esc(title)}</title><style>{CSS}</style></head>"
        f"<body><h1>{esc(title)}</h1>{intro}<nav>{nav}</nav>{body}<script>{JS}</script></body></html>\n"
    )


def render_page(ctx: Context) -> str:
    """The report page of one (or several concatenated) results files."""
    from litmus.report import plots

    recs = ctx.records
    intro = f"<p class=muted>{esc(ctx.source)}</p>" if ctx.source else ""
    intro += "".join(f"<p class=note>{esc(n)}</p>" for n in ctx.notes)
    sections = [("machine", "Machine, versions and command", machine_html(recs)),
                ("matrix", "Verdicts", verdict_summary_html(recs) + matrix_html(recs))]
    if ctx.mutation is not None:
        sections.append(("mutation", "Mutation score", mutation_html(ctx.mutation)))
    interesting = [r for r in recs if r.get("verdict") != "correct"]
    rates = plots.rates_svg(interesting)
    if rates:
        sections.append(("rates", "Rates with 95 % bounds",
                         f"<p class=muted>Every variant but the {len(recs) - len(interesting)} 'correct' ones "
                         "(their bounds are in the table): the target outcome's rate over completed instances, "
                         "with its Wilson 95 % interval when seen, or the 95 % upper bound 3/N when not.</p>"
                         f"<div class=plot>{rates}</div>"))
    hist, n_hist = plots.histograms_svg(recs)
    if hist:
        more = f" (the {plots.MAX_HISTOGRAMS} most frequent of {n_hist})" if n_hist > plots.MAX_HISTOGRAMS else ""
        sections.append(("histograms", "Outcome histograms",
                         f"<p class=muted>Variants that saw their target outcome or a forbidden one{more}; "
                         "outlined bars (▶) are target outcomes, on a log axis. Every variant's full histogram "
                         f"is in the table's last column.</p><div class=plot>{hist}</div>"))
    first = plots.first_witness_svg(recs)
    if first:
        sections.append(("first", "Time to first witness", f"<div class=plot>{first}</div>"))
    audit = f" <span class=muted>(audit {esc(ctx.audit_note)})</span>" if ctx.audit_note else ""
    sections.append(("table", "Every variant",
                     f"<p class=muted>Click a heading to sort; type to filter; tick verdicts to show.{audit}</p>"
                     + records_table(ctx)))
    if ctx.explained:
        sections.append(("why", "Why the model allows or forbids what was seen",
                         "<p class=muted>For each violation and each witnessed race, its most frequent forbidden "
                         "(or target) outcome as <code>litmus explain</code> gives it: the axiom and cycle an "
                         "outcome broke, or an execution that reaches it.</p>"
                         + explanations_html(ctx.explained, ctx.unexplained)))
    cost = cost_html(recs)
    if cost:
        sections.append(("cost", "Cost", cost))
    return page(ctx.title, sections, intro)



def render_compare(changes: Sequence[Any], a_name: str, b_name: str, a_records: Sequence[RunRecord],
                   b_records: Sequence[RunRecord]) -> str:
    """The page of two results files compared (:mod:`litmus.report.compare`)."""
    from litmus.report import plots
    from litmus.report.compare import change_label, counts_line

    summary = (f"<p><b>{esc(counts_line(changes))}</b></p><p class=muted>A verdict got worse when it moved "
               "left in VIOLATION, inconclusive, racy-unseen, racy-witnessed, correct (or a variant only B holds "
               "is a VIOLATION); a rate moved when the 95 % intervals of A and B do not overlap.</p>")
    machines = (f"<div class=grid2><div><h3>A: {esc(a_name)}</h3>{machine_html(a_records)}"
                f"{verdict_summary_html(a_records)}</div><div><h3>B: {esc(b_name)}</h3>{machine_html(b_records)}"
                f"{verdict_summary_html(b_records)}</div></div>")
    css = {"worse": "ch-worse", "better": "ch-better", "rate": "ch-rate", "only-a": "ch-only", "only-b": "ch-only"}
    label_css = {"worse": "chg-worse", "better": "chg-better", "rate": "chg-rate"}
    rows = []
    order = {"worse": 0, "better": 1, "rate": 2, "only-b": 3, "only-a": 4, "same": 5}
    for c in sorted(changes, key=lambda c: order[c.kind]):
        kind = c.kind
        ratio = c.ratio
        rows.append(
            f'<tr class="{css.get(kind, "")}" data-verdict="{esc(c.verdict_b or c.verdict_a)}" '
            f'data-changed="{0 if kind == "same" else 1}"><td data-v="{["worse", "rate", "better", "only-b", "only-a", "same"].index(kind)}">'
            f'<span class="{label_css.get(kind, "muted")}">{esc(change_label(c))}</span></td>'
            f'<td class=mono>{esc(c.id)}</td><td>{badge(c.verdict_a) if c.a else "-"}</td>'
            f'<td>{badge(c.verdict_b) if c.b else "-"}</td>'
            f'<td class=num>{esc(rate_cell(c.a)) if c.a else "-"}</td>'
            f'<td class=num>{esc(rate_cell(c.b)) if c.b else "-"}</td>'
            f'<td class=num data-v="{"" if ratio is None else f"{ratio:.6g}"}">'
            f'{"-" if ratio is None else f"×{ratio:.3g}"}</td>'
            f'<td class=num>{_num(c.a.get("instances")) if c.a else "-"}</td>'
            f'<td class=num>{_num(c.b.get("instances")) if c.b else "-"}</td></tr>')
    controls = ('<div class=controls data-for=changes><input type=search placeholder="filter…" aria-label=filter>'
                '<label><input type=checkbox data-changed checked> only changes</label>'
                '<span class="count muted"></span></div>')
    table = (f'{controls}<div class=scroll><table class="data sortable" id=changes><thead><tr><th>change</th><th>variant</th>'
             '<th>verdict A</th><th>verdict B</th><th class=num>rate A [95 %]</th><th class=num>rate B [95 %]</th>'
             '<th class=num>B / A</th><th class=num>instances A</th><th class=num>instances B</th></tr></thead>'
             f'<tbody>{"".join(rows)}</tbody></table></div>')
    pairs = [(c.id, c.a, c.b) for c in changes if c.a is not None and c.b is not None]
    scatter = plots.compare_svg(pairs, a_name, b_name)
    sections = [("summary", "Changes", summary + table)]
    if scatter:
        sections.append(("scatter", "Rates, A against B", f"<div class=plot style='max-width:720px'>{scatter}</div>"))
    sections.append(("machines", "Runs", machines))
    return page(f"litmus: {a_name} against {b_name}", sections)
