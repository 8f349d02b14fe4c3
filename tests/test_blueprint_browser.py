"""The web blueprint in a real browser: build it (``lejepa_experiments.blueprint.build`` with a fresh
``lejepa check --json`` run), serve it on 127.0.0.1 (a free port), drive headless Chromium (Debian's
``chromium`` and ``chromium-driver`` through Selenium; nothing is downloaded):

* the index and the dependency graph load with no console error;
* the graph has exactly one node per labelled statement of ``blueprint/src/content.tex``, and
  clicking a node shows that statement;
* every ``\\lean{}`` link goes to a generated Lean source page whose anchor exists and shows that
  declaration; a source page links back to the statement and its graph node;
* the graph's status colours match ``\\leanok``;
* each statement shows its theorem-map row, its pycheck tests and the verdicts of its
  ``lejepa check`` claims (every claim has rows).

Screenshots of the index, the graph and one source page are saved under the test's tmp output
(printed). Skips, saying why, only where Chromium cannot start.
"""

from __future__ import annotations

import functools
import html
import http.server
import os
import re
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lejepa_experiments import blueprint, leansrc

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("LEJEPA_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("LEJEPA_CHROMEDRIVER", "/usr/bin/chromedriver")
# leanblueprint's colours (leanblueprint/Packages/blueprint.py): border green = statement
# formalized; fill = proof formalized (light green), with all ancestors (dark green), definition.
STATED = "green"
PROVED_FILLS = {"#9cec8b", "#1cac78", "#b0eca3"}


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("blueprint-screenshots")
    print(f"\nblueprint screenshots: {d}")
    return d


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Build the blueprint (with a fresh check run) and serve it; yields the URL and the data."""
    out = tmp_path_factory.mktemp("blueprint") / "web"
    check = blueprint.run_check()
    mathjax = "local" if (blueprint.MATHJAX_DEBIAN / "MathJax.js").is_file() else "none"
    blueprint.build(out, ROOT, check, "run by the test", mathjax)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(out)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    nodes = blueprint.parse_content(ROOT / "blueprint" / "src" / "content.tex")
    try:
        yield {"url": f"http://127.0.0.1:{server.server_address[1]}", "out": out, "check": check,
               "nodes": nodes, "decls": leansrc.load(ROOT), "mathjax": mathjax}
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from selenium import webdriver
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.chrome.service import Service

    for path in (CHROMIUM, CHROMEDRIVER):
        if not Path(path).exists():
            pytest.skip(f"Chromium cannot start: {path} not found (Debian: apt-get install chromium chromium-driver)")
    os.environ.setdefault("SE_OFFLINE", "true")         # never let Selenium Manager download anything
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1600,1100",
                 f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"):
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    try:
        drv = webdriver.Chrome(options=opts, service=Service(CHROMEDRIVER))
    except WebDriverException as exc:
        pytest.skip(f"Chromium cannot start: {str(exc).splitlines()[0]}")
    drv.set_page_load_timeout(30)
    try:
        yield drv
    finally:
        drv.quit()


def _errors(drv: Any) -> list[str]:
    return [e["message"] for e in drv.get_log("browser") if e.get("level") == "SEVERE"]


def _wait(drv: Any, script: str, timeout: float = 30.0, args: tuple[Any, ...] = ()) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = drv.execute_script(script, *args)
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for: {script}")


def _wait_mathjax(drv: Any, mathjax: str) -> None:
    if mathjax == "local":
        _wait(drv, "return window.MathJax && MathJax.isReady && MathJax.Hub.queue.pending === 0 "
                   "&& MathJax.Hub.queue.running === 0")


def test_index_loads_without_console_errors(site: dict[str, Any], driver: Any, shots: Path) -> None:
    driver.get_log("browser")
    driver.get(site["url"] + "/index.html")
    _wait(driver, "return document.readyState === 'complete'")
    _wait_mathjax(driver, site["mathjax"])
    text = driver.find_element("tag name", "body").text
    assert "was not compiled here" in text
    link = driver.find_element("css selector", 'a[href="lean-review.html"]')
    assert link.text == "docs/lean-review.md"
    driver.save_screenshot(str(shots / "index.png"))
    assert _errors(driver) == []
    # the chapter of Theorem 4.1, from the table of contents: formulas typeset, no console error
    page = _page_of(site)["thm:linear-identifiability"]
    driver.find_element("css selector", f'a[href="{page}"]').click()
    _wait(driver, f"return document.readyState === 'complete' && location.pathname.endsWith('{page}')")
    _wait_mathjax(driver, site["mathjax"])
    if site["mathjax"] == "local":
        assert driver.execute_script("return document.querySelectorAll('.MathJax_CHTML').length") > 20
    driver.save_screenshot(str(shots / "statements.png"))
    assert _errors(driver) == []


def _page_of(site: dict[str, Any]) -> dict[str, str]:
    """label -> the HTML page (sectNNNN.html) with that statement."""
    page_of: dict[str, str] = {}
    for p in site["out"].glob("*.html"):
        if p.name != "dep_graph_document.html":
            for label in re.findall(r'_thmwrapper[^"]*" id="([^"]+)"', p.read_text(encoding="utf-8")):
                page_of[label] = p.name
    return page_of


def test_lean_review_page_is_served(site: dict[str, Any], driver: Any) -> None:
    driver.get(site["url"] + "/lean-review.html")
    assert "Lean" in driver.find_element("tag name", "pre").text
    assert (ROOT / "docs" / "lean-review.md").read_text(encoding="utf-8")[:40].strip() in \
        driver.find_element("tag name", "pre").text


def _graph(driver: Any, site: dict[str, Any]) -> list[dict[str, str]]:
    driver.get_log("browser")
    driver.get(site["url"] + "/dep_graph_document.html")
    _wait(driver, "return document.querySelectorAll('#graph svg g.node').length > 0", 60)
    time.sleep(0.5)        # the transition that fits the graph into the window
    return list(driver.execute_script("""
        return [...document.querySelectorAll('#graph svg g.node')].map(g => {
          const shape = g.querySelector('ellipse, polygon, path');
          return {title: g.querySelector('title').textContent.trim(),
                  stroke: (shape.getAttribute('stroke') || '').toLowerCase(),
                  fill: (shape.getAttribute('fill') || '').toLowerCase()};
        });"""))


def test_graph_has_one_node_per_statement_and_no_console_error(site: dict[str, Any], driver: Any,
                                                                 shots: Path) -> None:
    nodes = _graph(driver, site)
    titles = [n["title"] for n in nodes]
    labels = [n.label for n in site["nodes"]]
    assert sorted(titles) == sorted(labels)
    assert len(titles) == len(set(titles))
    driver.save_screenshot(str(shots / "graph.png"))
    assert _errors(driver) == []


def test_graph_colours_match_leanok(site: dict[str, Any], driver: Any) -> None:
    shown = {n["title"]: n for n in _graph(driver, site)}
    wrong = []
    for n in site["nodes"]:
        g = shown[n.label]
        if (g["stroke"] == STATED) != n.leanok:
            wrong.append(f"{n.label}: border {g['stroke']!r}, \\leanok {n.leanok}")
        proved = bool(n.proof_leanok) or (n.env == "definition" and n.leanok)
        if (g["fill"] in PROVED_FILLS) != proved:
            wrong.append(f"{n.label}: fill {g['fill']!r}, proof \\leanok {proved}")
    assert not wrong, wrong
    assert any(not n.leanok for n in site["nodes"]), "no unformalized statement to tell the colours apart"


def test_clicking_a_node_shows_its_statement(site: dict[str, Any], driver: Any) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    _graph(driver, site)
    for n in site["nodes"]:
        # a real mouse click on the node's label (graphviz <text>), as a reader would
        target = driver.execute_script(
            "return [...document.querySelectorAll('#graph svg g.node')]"
            ".find(g => g.querySelector('title').textContent.trim() === arguments[0]).querySelector('text')",
            n.label)
        ActionChains(driver).move_to_element(target).click().perform()
        modal = driver.execute_script("return document.getElementById(arguments[0] + '_modal')", n.label)
        assert modal.is_displayed(), n.label
        content = modal.find_element("css selector", ".thm_thmcontent")
        assert content.is_displayed() and content.text.strip(), n.label
        if "\\" not in n.title:
            shown = modal.find_element("css selector", "[class$='_thmtitle']").text.strip()
            assert shown.replace("’", "'").replace("–", "--") == n.title, (shown, n.title)
        # a plain word of the statement is shown (formulas may be typeset)
        words = re.findall(r"(?<![\\\w])[A-Za-z]{6,}", re.sub(r"\\\(.*?\\\)|\\[a-zA-Z]+", " ", n.statement))
        if words:
            assert words[0] in content.text, (n.label, words[0])
        assert modal.find_element("css selector", ".numcheck").is_displayed()
        modal.find_element("css selector", ".dep-closebtn").click()
        assert not modal.is_displayed()
    assert _errors(driver) == []


def test_every_lean_link_opens_its_declaration(site: dict[str, Any], driver: Any, shots: Path) -> None:
    out: Path = site["out"]
    decls: dict[str, leansrc.Decl] = site["decls"]
    names = {x for n in site["nodes"] for x in n.lean}
    # every \lean{} link on every page points at lean/<module>.html#<name>
    linked: dict[str, set[str]] = {}
    for page in out.glob("*.html"):
        for href, name in re.findall(r'<a href="([^"]*)" class="lean_decl">([^<]+)</a>', page.read_text(encoding="utf-8")):
            linked.setdefault(html.unescape(name), set()).add(html.unescape(href))
    assert set(linked) == names
    bad = {x: h for x, h in linked.items() if h != {f"lean/{decls[x].module}.html#{x}"}}
    assert not bad, bad
    # and in the browser, each anchor exists, is the target, and shows that declaration
    by_module: dict[str, list[str]] = {}
    for x in sorted(names):
        by_module.setdefault(decls[x].module, []).append(x)
    for module, xs in by_module.items():
        driver.get_log("browser")
        driver.get(f"{site['url']}/lean/{module}.html#{xs[0]}")
        for x in xs:
            script = """
                if (location.hash !== '#' + arguments[0]) location.hash = arguments[0];
                const e = document.getElementById(arguments[0]);
                if (!e) return null;
                const r = e.getBoundingClientRect();
                return {target: e.matches(':target'), top: r.top, h: window.innerHeight,
                        name: e.querySelector('.decl_name').textContent,
                        code: e.querySelector('.leansrc').textContent};"""
            got = driver.execute_script(script, x)
            deadline = time.monotonic() + 10   # a loaded machine can apply the hash (and scroll) late
            while got is not None and not got["target"] and time.monotonic() < deadline:
                time.sleep(0.2)
                got = driver.execute_script(script, x)
            assert got is not None, f"no anchor {x} on lean/{module}.html"
            assert got["target"] and got["name"] == x, x
            assert -2 <= got["top"] < got["h"], (x, got["top"])   # scrolled to (sub-pixel rounding)
            assert re.search(r"(?<![A-Za-z_])(theorem|lemma|def|abbrev|structure|class|inductive|instance)\s+\S*"
                             + re.escape(decls[x].short.split(".")[-1]), got["code"]), x
        assert _errors(driver) == []
    # a click from the statements page: open the L∃∀N list of Theorem 4.1 and follow the link
    driver.get(site["url"] + "/" + _page_of(site)["thm:linear-identifiability"])
    from selenium.webdriver.common.action_chains import ActionChains

    wrapper = driver.find_element("id", "thm:linear-identifiability")
    heading = wrapper.find_element("css selector", ".theorem_thmheading")   # the buttons show on hover
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", heading)
    ActionChains(driver).move_to_element(heading).perform()
    button = wrapper.find_element("css selector", "button.modal.lean")
    _wait(driver, "return arguments[0].offsetParent !== null", args=(button,))
    ActionChains(driver).move_to_element(heading).move_to_element(button).click().perform()
    wrapper.find_element("link text", "Lejepa.Hermite.linear_identifiability").click()
    _wait(driver, "return location.hash === '#Lejepa.Hermite.linear_identifiability'")
    sec = driver.find_element("id", "Lejepa.Hermite.linear_identifiability")
    assert sec.is_displayed() and "Theorem 4.1" in sec.text
    driver.save_screenshot(str(shots / "source.png"))
    # back to the graph node
    sec.find_element("css selector", "a.bp_graph").click()
    _wait(driver, "return location.pathname.endsWith('dep_graph_document.html')")
    modal = driver.find_element("id", "thm:linear-identifiability_modal")
    end = time.monotonic() + 30
    while not modal.is_displayed() and time.monotonic() < end:
        time.sleep(0.2)
    assert modal.is_displayed() and "Theorem 4.1" in modal.text
    assert _errors(driver) == []


def test_each_statement_shows_its_numerical_check(site: dict[str, Any], driver: Any) -> None:
    rows = {r.item: r for r in blueprint.map_rows(ROOT)}
    check_rows = site["check"]["rows"]
    page_of = _page_of(site)
    for n in site["nodes"]:
        driver.get(f"{site['url']}/{page_of[n.label]}")
        block = driver.find_element("id", n.label).find_element("css selector", ".numcheck")
        text = block.text
        for item in n.maprows:
            assert item in text
            for t in rows[item].pycheck:
                assert t in text, (n.label, t)
        if n.checkclaims:
            want = [r for r in check_rows if r["claim"] in n.checkclaims]
            assert want, f"{n.label}: lejepa check has no row for {n.checkclaims}"
            shown = block.find_elements("css selector", "table.numcheck_table td.verdict")
            assert [e.text for e in shown] == [r["verdict"] for r in want]
    # every claim of the check except SIGReg's (a fact about the objective, not a paper theorem) is shown
    claims = {r["claim"] for r in check_rows} - {c for n in site["nodes"] for c in n.checkclaims}
    assert {c for c in claims if not c.startswith("SIGReg")} == set()


def test_builder_rejects_a_blueprint_that_names_a_missing_declaration(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    for sub in ("blueprint", "docs", "Lejepa"):
        shutil.copytree(ROOT / sub, root / sub)
    content = root / "blueprint" / "src" / "content.tex"
    content.write_text(content.read_text(encoding="utf-8").replace(
        "Lejepa.Hermite.linear_identifiability,", "Lejepa.Hermite.no_such_theorem,", 1), encoding="utf-8")
    with pytest.raises(blueprint.BlueprintError, match="no_such_theorem"):
        blueprint.build(tmp_path / "out", root, None, "", "none")
