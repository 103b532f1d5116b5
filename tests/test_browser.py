"""The HTML export opened in a real browser (headless Chromium), checked through the DOM.

For each real log: every message and tool call is on the page, details open on a
click, the search box and the role filter narrow the cards, images are drawn, no
script from the log runs, nothing breaks the page's Content-Security-Policy and
no request leaves the page. The hostile log of test_html.py stays inert; a
10,000-message page opens within 3 seconds.

The browser is Debian's ``chromium`` (``make test`` installs it when it can),
driven by Playwright. Run as a script, this module writes the README's
screenshots: ``python tests/test_browser.py docs/``.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("MSGCLI_CHROMIUM", "/usr/bin/chromium")

# one Chromium for the module: its tests share one xdist worker (make's --dist loadfile;
# xdist_group for --dist loadgroup); a browser is slow to
# start and to load a 10k-message page: `make test` leaves them to `make test-all` and CI
pytestmark = [pytest.mark.xdist_group("browser"), pytest.mark.slow]

# counts violations of the page's CSP and anything the log might set, before the page runs
WATCH = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__violations.push(e.violatedDirective + " " + e.blockedURI);
});
"""


def _skip_reason() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[test]')"
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)) and not shutil.which(
        CHROMIUM
    ):
        return (
            f"no Chromium at {CHROMIUM}: `make test` installs Debian's chromium when run as root "
            "with apt-get; elsewhere install it, or set MSGCLI_CHROMIUM to a Chromium binary"
        )
    return None


@pytest.fixture(scope="module")
def browser():
    reason = _skip_reason()
    if reason:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        yield chromium
        chromium.close()


class Opened:
    """A page of the browser with what it requested and what the console said."""

    def __init__(self, browser, path: Path, **context):
        self.context = browser.new_context(**context)
        self.page = self.context.new_page()
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.add_init_script(WATCH)
        self.url = path.resolve().as_uri()
        started = time.perf_counter()
        self.page.goto(self.url, wait_until="load")
        self.seconds = time.perf_counter() - started

    def outside(self) -> list[str]:
        """Requests other than the page itself and its own data: URLs."""
        return [u for u in self.requests if u != self.url and not u.startswith("data:")]

    def visible_cards(self) -> int:
        return self.page.locator("main article.msg:visible").count()

    def close(self) -> None:
        self.context.close()


def wait_until(page, expression: str, timeout: float = 5.0, arg=None) -> None:
    """Poll ``expression`` (evaluated from outside: the page's CSP forbids the eval that
    Playwright's wait_for_function uses) until it is true."""
    end = time.monotonic() + timeout
    while not (page.evaluate(expression) if arg is None else page.evaluate(expression, arg)):
        if time.monotonic() > end:
            raise AssertionError(f"still false after {timeout} s: {expression}")
        time.sleep(0.02)


def _export(run_cli, log: Path, target: Path, *options: str) -> Path:
    code, _ = run_cli("show", "--export-html", str(target), *options, str(log))
    assert code == 0
    return target


from test_html import (  # noqa: E402
    PWNED,
    REAL_IDS,
    REAL_LOGS,
    _all_blocks,
    expected_cards,
    hostile_log,
)
from test_show import expectations, raw_messages  # noqa: E402


@pytest.mark.parametrize("log, final", REAL_LOGS, ids=REAL_IDS)
def test_real_log_page_in_the_browser(browser, run_cli, tmp_path, log, final):
    page_file = _export(run_cli, log, tmp_path / "page.html")
    opened = Opened(browser, page_file)
    page = opened.page
    try:
        messages = raw_messages(final)
        names, calls, _media = expectations(messages)
        cards = expected_cards(messages)
        # every message and tool call, in order
        assert page.locator("main article.msg").count() == cards
        assert opened.visible_cards() == cards
        tools = page.locator("main .call .call-head .tool").all_text_contents()
        assert tools == [str(tool) for tool, _ in calls]
        text = page.locator("main").text_content()
        for name in names:
            assert name in text
        # details open on a click
        details = page.locator("main details")
        for i in range(min(details.count(), 6)):
            one = details.nth(i)
            assert one.evaluate("d => d.open") is False
            one.locator("summary").first.click()
            assert one.evaluate("d => d.open") is True
        # the search box narrows the cards to those holding the text, and back
        search = page.locator("#q")
        search.fill("no such text anywhere 7f3a")
        wait_until(page, "document.getElementById('count').textContent.startsWith('0 of')")
        assert opened.visible_cards() == 0
        if calls:
            tool = str(calls[0][0])
            search.fill(tool)
            wait_until(
                page, f"document.getElementById('count').textContent !== '0 of {cards} messages'"
            )
            shown = page.locator("main article.msg:visible")
            assert 1 <= shown.count() <= cards
            for i in range(shown.count()):
                assert tool.lower() in shown.nth(i).text_content().lower()
        search.fill("")
        wait_until(
            page, f"document.getElementById('count').textContent === '{cards} of {cards} messages'"
        )
        # the role filter: the cards of that role, as many as the log has
        roles = [m.get("role") for m in messages]
        if "assistant" in roles:
            page.select_option("#f-role", "assistant")
            shown_roles = page.locator("main article.msg:visible").evaluate_all(
                "cards => cards.map(c => c.dataset.role)"
            )
            assert shown_roles and set(shown_roles) == {"assistant"}
            page.select_option("#f-role", "")
        # the tool filter: the cards that call that tool
        if calls:
            tool = str(calls[0][0])
            page.select_option("#f-tool", tool)
            shown = page.locator("main article.msg:visible")
            expected = sum(
                1
                for m in messages
                if any(
                    b.get("type") in ("tool_call", "tool_use", "function")
                    and tool
                    in (b.get("name"), (b.get("arguments") or {}).get("name"), b.get("target"))
                    for b in _all_blocks(m)
                )
            )
            assert shown.count() == expected
            page.select_option("#f-tool", "")
        # images are drawn
        images = page.locator("main img")
        inline = [
            b
            for m in messages
            for b in _all_blocks(m)
            if str(b.get("data", "")).startswith("data:image/")
            or (isinstance(b.get("source"), dict) and b["source"].get("type") == "base64")
        ]
        assert images.count() == len(inline)
        for i in range(images.count()):
            images.nth(i).scroll_into_view_if_needed()
            wait_until(page, "img => img.complete", arg=images.nth(i).element_handle())
            assert images.nth(i).evaluate("img => img.naturalWidth") > 0
        # nothing ran but the page's script, nothing left the page
        assert page.evaluate("window.__violations") == []
        assert opened.errors == []
        assert opened.outside() == []
    finally:
        opened.close()


def test_hostile_log_stays_inert_in_the_browser(browser, run_cli, tmp_path):
    page_file = _export(run_cli, hostile_log(tmp_path), tmp_path / "hostile.html")
    opened = Opened(browser, page_file)
    page = opened.page
    try:
        # open everything that folds, hover and focus every element: no handler of the log's
        details = page.locator("details")
        for i in range(details.count()):
            details.nth(i).locator("summary").first.click()
        page.locator("main *").evaluate_all(
            """els => els.forEach(e => {
                 ["mouseover", "mouseenter", "focus", "load", "error"].forEach(t =>
                   e.dispatchEvent(new Event(t)));
               })"""
        )
        page.locator("#q").fill("script")
        page.wait_for_timeout(300)
        assert page.evaluate("window.__pwned") is None
        assert page.evaluate("document.querySelectorAll('script').length") == 1
        assert (
            page.evaluate("document.querySelectorAll('main img:not([src^=\"data:\"])').length") == 0
        )
        text = page.locator("main").text_content()
        assert f"<script>{PWNED}</script>" in text and "Mallory" in text
        assert page.evaluate("window.__violations") == []
        assert opened.errors == []
        assert opened.outside() == []
        # the CSP would stop script even if markup got through: try it
        page.evaluate(
            """() => { const s = document.createElement('script');
                       s.textContent = 'window.__pwned = 1'; document.body.appendChild(s); }"""
        )
        page.wait_for_timeout(100)
        assert page.evaluate("window.__pwned") is None
        assert any("script-src" in v for v in page.evaluate("window.__violations"))
    finally:
        opened.close()


def big_log(folder: Path, messages: int = 10_000) -> Path:
    """The real AgentScope Python transcript repeated to ``messages`` lines."""
    lines = (
        (Path(__file__).parent.parent / "fixtures" / "real" / "agentscope-py" / "transcript.jsonl")
        .read_text(encoding="utf-8")
        .splitlines()
    )
    out = folder / "big.jsonl"
    with open(out, "w", encoding="utf-8") as f:
        for i in range(messages):
            f.write(lines[i % len(lines)] + "\n")
    return out


def test_a_10k_message_page_opens_within_3_seconds(browser, run_cli, tmp_path):
    """Opening is timed as the browser's own work: the CPU time of the page's main thread
    from navigation to the load event, the best of five openings (on a machine shared with
    other jobs the wall time says more about them than about the page; it is printed, and one
    opening alone varies by a fifth between runs on a quiet 2-core machine: the best of three
    went from 2.3 to 2.9 s, and once past 3 s with other jobs running)."""
    log = big_log(tmp_path)
    started = time.perf_counter()
    page_file = _export(run_cli, log, tmp_path / "big.html")
    exported = time.perf_counter() - started
    timings = []
    for attempt in range(5):
        context = browser.new_context()
        page = context.new_page()
        try:
            cdp = context.new_cdp_session(page)
            cdp.send("Performance.enable")

            def thread_time(cdp=cdp) -> float:
                metrics = cdp.send("Performance.getMetrics")["metrics"]
                return next(m["value"] for m in metrics if m["name"] == "ThreadTime")

            before = thread_time()
            started = time.perf_counter()
            page.goto(page_file.resolve().as_uri(), wait_until="load", timeout=120_000)
            timings.append((thread_time() - before, time.perf_counter() - started))
            if attempt:
                continue
            assert page.locator("main article.msg").count() == 10_000
            # searching all of it is quick too
            before = thread_time()
            page.locator("#q").fill("zürich")
            wait_until(page, "!document.getElementById('count').textContent.startsWith('10000')")
            assert thread_time() - before < 3.0
        finally:
            context.close()
    spent, wall = min(timings)
    print(
        f"\n10k messages: export {exported:.2f} s; page open: {spent:.2f} s of the "
        f"browser's time ({wall:.2f} s wall)"
    )
    assert spent < 3.0


OVERLAPS = """() => {
  // characters of a text run drawn over the one before them (left-to-right scripts)
  const out = [];
  for (const t of document.querySelectorAll("text[textLength]")) {
    let end = null, start = null;
    for (let i = 0; i < t.getNumberOfChars(); i++) {
      const ch = t.textContent[i];
      if (/[\u0590-\u08ff\udc00-\udfff]/.test(ch)) { end = null; continue; }
      const e = t.getExtentOfChar(i);
      if (e.width === 0 || (start !== null && Math.abs(e.x - start) < 0.01)) continue;
      if (end !== null && e.x < end - 1) out.push(t.textContent.slice(0, 40) + " @" + i);
      start = e.x; end = e.x + e.width;
    }
  }
  return out;
}"""


def test_svg_export_draws_wide_characters_without_overlap(browser, run_cli, tmp_path):
    """CJK and emoji take two terminal cells; the SVG gives each run of text the room of its
    cells (rich's own export squeezes such a run into one cell per character)."""
    import io

    from msgcli.render.thread import ShowOptions
    from msgcli.render.view import View, console_for

    log = str(
        Path(__file__).parent.parent / "fixtures" / "real" / "agentscope-py" / "transcript.jsonl"
    )
    fixed = tmp_path / "show.svg"
    code, _ = run_cli("show", "--export-svg", str(fixed), log)
    assert code == 0
    console = console_for(io.StringIO(), colour=True, width=100, record=True)
    View(console, ShowOptions()).run([log], None)
    raw = tmp_path / "raw.svg"
    raw.write_text(console.export_svg(clear=False), encoding="utf-8")
    page = browser.new_page()
    try:
        page.goto(raw.as_uri())
        before = page.evaluate(OVERLAPS)
        page.goto(fixed.as_uri())
        after = page.evaluate(OVERLAPS)
    finally:
        page.close()
    if not before:
        pytest.skip("no font for CJK text here: rich's own SVG shows no overlap to compare with")
    assert after == [], after


def screenshots(folder: Path) -> None:
    """The README's pictures: the real AgentScope Python transcript, light and dark."""
    import subprocess
    import tempfile

    from playwright.sync_api import sync_playwright

    root = Path(__file__).parent.parent
    with tempfile.TemporaryDirectory() as tmp:
        page_file = Path(tmp) / "transcript.html"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "msgcli",
                "show",
                "--export-html",
                str(page_file),
                "fixtures/real/agentscope-py/transcript.jsonl",
            ],
            cwd=root,
            check=True,
        )
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            for scheme in ("light", "dark"):
                page = browser.new_page(
                    viewport={"width": 900, "height": 1100},
                    color_scheme=scheme,
                    device_scale_factor=1,
                )
                page.goto(page_file.as_uri())
                # the reply with its thinking and tool call, thinking opened
                page.locator("article.msg").nth(2).locator("details.thinking summary").first.click()
                page.locator("article.msg").nth(2).scroll_into_view_if_needed()
                page.evaluate(
                    "window.scrollTo(0, "
                    "document.querySelectorAll('article.msg')[1].offsetTop - 100)"
                )
                page.screenshot(path=str(folder / f"view-{scheme}.png"))
                page.close()
            browser.close()
    print(json.dumps([str(folder / f"view-{s}.png") for s in ("light", "dark")]))


if __name__ == "__main__":
    screenshots(Path(sys.argv[1] if len(sys.argv) > 1 else "docs"))
