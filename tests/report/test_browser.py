"""The page in a real browser: Debian's headless Chromium loads it from disk, runs its script,
draws the matrix and the plots, and takes a screenshot that is not blank.

Skips, saying why, where Chromium is not installed (.ci/run installs Debian's ``chromium``)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from litmus.report.html import build_context, render_page

CANDIDATES = ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome")


def chromium() -> str | None:
    for c in CANDIDATES:
        found = shutil.which(c)
        if found:
            return found
    return None


def run_chromium(exe: str, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--disable-dev-shm-usage", "--hide-scrollbars", f"--user-data-dir={profile}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def not_blank(png: Path) -> tuple[int, float]:
    """Distinct colours and the share of pixels that are not the background (white)."""
    from PIL import Image  # matplotlib depends on pillow

    with Image.open(png) as im:
        rgb = im.convert("RGB")
        colours = rgb.getcolors(maxcolors=1 << 20) or []
        total = rgb.width * rgb.height
    white = sum(n for n, c in colours if c == (255, 255, 255))
    return len(colours), 1 - white / total


@pytest.mark.slow
def test_page_renders_in_headless_chromium(h200_records, at_root, tmp_path: Path) -> None:
    exe = chromium()
    if exe is None:
        pytest.skip("Chromium is not installed (Debian: apt-get install -y chromium; .ci/run does it)")
    page = tmp_path / "page.html"
    ctx = build_context(h200_records, "browser test")
    page.write_text(render_page(ctx))
    url = page.resolve().as_uri()

    res = run_chromium(exe, tmp_path / "profile", "--dump-dom", url)
    assert res.returncode == 0, res.stderr[-2000:]
    dom = res.stdout
    pictures = sum(1 for x in ctx.explained if x.svg)  # the explanations' execution graphs
    assert dom.count("<svg") == 3 + pictures and len(re.findall(r"<(path|use) ", dom)) > 60  # plots, marks
    assert len(re.findall(r'<tr data-worst=', dom)) == len({r["test"] for r in h200_records})  # matrix rows
    assert len(re.findall(r'<tr id="row-', dom)) == len(h200_records)
    n = len(h200_records)
    assert f"{n} of {n} rows" in dom  # the inline script ran (it fills the row count)

    shot = tmp_path / "shot.png"
    res = run_chromium(exe, tmp_path / "profile", f"--screenshot={shot}", "--window-size=1280,2000", url)
    assert shot.is_file() and shot.stat().st_size > 10_000, res.stderr[-2000:]
    colours, inked = not_blank(shot)
    assert colours > 50 and inked > 0.05, (colours, inked)


def test_skip_reason_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda _name: None)
    assert chromium() is None
