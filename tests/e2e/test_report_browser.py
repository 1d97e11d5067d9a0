"""The report as a person sees it: opened in headless Chromium, no console errors, no network requests, every
plot a visible, non-blank image (checked on a screenshot of its region), and a hostile model name shown as text.

Talks to Chromium over the DevTools protocol on ``--remote-debugging-pipe`` (NUL-separated JSON on fds 3/4), so
no websocket or browser-automation package is needed. Skipped only when no Chromium binary is installed (CI
installs Debian's ``chromium``).
"""

from __future__ import annotations

import base64
import fcntl
import io
import json
import os
import select
import shutil
import subprocess
import time

import numpy as np
import pandas as pd
import pytest

pytestmark = pytest.mark.e2e

pytest.importorskip("matplotlib")

CHROMIUM = next((p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome",
                                                      "google-chrome-stable")) if p), None)
EVIL = "<script>window.__xss=1;alert(1)</script>"


class DevTools:
    """Minimal Chrome DevTools protocol client over --remote-debugging-pipe."""

    def __init__(self, binary, profile):
        cmd_r, self._cmd_w = os.pipe()          # we write commands, Chromium reads fd 3
        self._res_r, res_w = os.pipe()          # Chromium writes fd 4, we read
        # move the child's ends above fd 10 so that dup2 onto 3 and 4 never hits itself (which would leave the
        # close-on-exec flag set)
        high_r, high_w = fcntl.fcntl(cmd_r, fcntl.F_DUPFD_CLOEXEC, 10), fcntl.fcntl(res_w, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(cmd_r)
        os.close(res_w)
        cmd_r, res_w = high_r, high_w

        def child_fds():
            os.dup2(cmd_r, 3)
            os.dup2(res_w, 4)

        args = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-extensions", "--hide-scrollbars", "--mute-audio", f"--user-data-dir={profile}",
                "--remote-debugging-pipe", "about:blank"]
        self.proc = subprocess.Popen(args, preexec_fn=child_fds, close_fds=False, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        os.close(cmd_r)
        os.close(res_w)
        self._buf = b""
        self._id = 0
        self.events = []

    def _read_message(self, deadline):
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from Chromium")
            ready, _, _ = select.select([self._res_r], [], [], left)
            if ready:
                chunk = os.read(self._res_r, 1 << 20)
                if not chunk:
                    raise RuntimeError("Chromium closed the DevTools pipe")
                self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def send(self, method, params=None, session=None, timeout=60.0):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self._id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def wait_for(self, method, timeout=60.0):
        deadline = time.monotonic() + timeout
        for m in self.events:
            if m.get("method") == method:
                return m
        while True:
            m = self._read_message(deadline)
            self.events.append(m)
            if m.get("method") == method:
                return m

    def close(self):
        try:
            self.send("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._cmd_w)
        os.close(self._res_r)


def _open(dev, url):
    target = dev.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = dev.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Page", "Runtime", "Log", "Network"):
        dev.send(f"{domain}.enable", session=session)
    dev.send("Emulation.setDeviceMetricsOverride",
             {"width": 1200, "height": 900, "deviceScaleFactor": 1, "mobile": False}, session=session)
    dev.send("Page.navigate", {"url": url}, session=session)
    dev.wait_for("Page.loadEventFired")
    return session


def _problems(dev):
    """Console errors, uncaught exceptions, dialogs, failed loads and non-local requests seen so far."""
    out = []
    for m in dev.events:
        method, p = m.get("method"), m.get("params", {})
        if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            out.append(f"console {p.get('type')}: {p.get('args')}")
        elif method == "Runtime.exceptionThrown":
            out.append(f"exception: {p.get('exceptionDetails', {}).get('text')}")
        elif method == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            out.append(f"log error: {p['entry'].get('text')} {p['entry'].get('url', '')}")
        elif method == "Page.javascriptDialogOpening":
            out.append(f"dialog: {p.get('message')}")
        elif method == "Network.loadingFailed":
            out.append(f"failed load: {p.get('errorText')}")
        elif method == "Network.requestWillBeSent":
            url = p.get("request", {}).get("url", "")
            if not url.startswith(("file:", "data:", "about:")):
                out.append(f"network request: {url}")
    return out


_IMAGES_JS = """JSON.stringify(Array.from(document.images).map(function (im) {
  var r = im.getBoundingClientRect();
  return {alt: im.alt, complete: im.complete, w: im.naturalWidth, h: im.naturalHeight,
          x: r.left + window.scrollX, y: r.top + window.scrollY, cw: r.width, ch: r.height,
          visible: getComputedStyle(im).visibility !== 'hidden' && getComputedStyle(im).display !== 'none'};
}))"""


def _evaluate(dev, session, expression):
    res = dev.send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=session)
    return res["result"].get("value")


def _region_pixels(dev, session, img):
    from matplotlib.image import imread

    clip = {"x": img["x"], "y": img["y"], "width": img["cw"], "height": img["ch"], "scale": 1}
    shot = dev.send("Page.captureScreenshot", {"format": "png", "clip": clip, "captureBeyondViewport": True},
                    session=session)
    return imread(io.BytesIO(base64.b64decode(shot["data"])))[..., :3]


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    from evalband import load_example
    from evalband.report.build import build_report
    from evalband.report.writers import write_report
    from evalband.data.table import ResultsTable

    folder = tmp_path_factory.mktemp("browser")
    write_report(build_report(load_example("vtab"), n_resamples=300, rng=0, bayes=True), folder / "vtab.html")
    rows = [{"model": m, "task": t, "group": g, "n": 400, "correct": c}
            for m, cs in ((EVIL, (300, 250, 200)), ("fine", (280, 260, 230)), ("other", (200, 240, 250)))
            for (t, g), c in zip((("t1", "a"), ("t2", "b"), ("t3", "c")), cs)]
    evil = ResultsTable.from_summary(pd.DataFrame(rows), source="evil.csv")
    write_report(build_report(evil, n_resamples=200, rng=0, bayes=False), folder / "evil.html")
    return folder


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    if CHROMIUM is None:
        if os.environ.get("CI"):  # CI installs Chromium: its absence there is a failure, not a skip
            pytest.fail("no Chromium binary installed; .ci/run should have installed Debian's chromium")
        pytest.skip("no Chromium binary installed (apt-get install chromium); CI installs it")
    dev = DevTools(CHROMIUM, tmp_path_factory.mktemp("chrome-profile"))
    yield dev
    dev.close()


def test_vtab_report_renders_every_plot_without_errors(browser, reports):
    session = _open(browser, (reports / "vtab.html").as_uri())
    images = json.loads(_evaluate(browser, session, _IMAGES_JS))
    assert len(images) >= 7
    for img in images:
        assert img["complete"] and img["w"] > 150 and img["h"] > 150, img["alt"]
        assert img["visible"] and img["cw"] > 150 and img["ch"] > 100, img["alt"]
        px = _region_pixels(browser, session, img)
        assert px.shape[0] >= 100 and px.shape[1] >= 150, img["alt"]
        assert px.std() > 0.05, f"plot {img['alt']!r} looks blank on screen"
        assert (px.min(axis=2) < 0.5).mean() > 0.005, f"plot {img['alt']!r} has almost no ink"
    text = _evaluate(browser, session, "document.body.innerText")
    assert "Rotation for" in text and "structured tasks carry at least" in text
    assert not _problems(browser), _problems(browser)


def test_hostile_model_name_is_text_and_runs_nothing(browser, reports):
    browser.events.clear()
    session = _open(browser, (reports / "evil.html").as_uri())
    assert _evaluate(browser, session, "typeof window.__xss") == "undefined"
    assert _evaluate(browser, session, "document.scripts.length") == 0
    text = _evaluate(browser, session, "document.body.innerText")
    assert EVIL in text
    assert not _problems(browser), _problems(browser)
    assert np.isfinite(len(text))
