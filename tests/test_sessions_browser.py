"""The status page in a real browser (headless Chromium): it renders, its script refreshes it from the server
without a JavaScript error, and it shows the team's worker names. Skipped where no Chromium is installed."""

import re
import shutil
import struct
import subprocess

import numpy as np
import pytest
from http_helpers import running

from fullbandit.sessions import Session

CHROMIUM = next((found for name in ("chromium", "chromium-browser", "google-chrome")
                 if (found := shutil.which(name))), None)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (CI has none): the browser test "
                                                         "needs `chromium` on PATH")
WORKERS = ["ada", "bo", "cy", "di", "ed", "fay"]
MEANS = [0.9, 0.85, 0.5, 0.4, 0.2, 0.1]


def chromium(*arguments, url):
    # --virtual-time-budget: the page's timers and fetches run (time stands still while a fetch is out) before the
    # DOM is dumped or the picture taken; the script's own refresh comes back within the budget.
    command = [CHROMIUM, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--hide-scrollbars",
               "--virtual-time-budget=4000", "--enable-logging=stderr", "--v=0", *arguments, url]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_the_status_page_renders_in_chromium_under_both_routes(tmp_path):
    path = tmp_path / "pilot.db"
    rng = np.random.default_rng(0)
    with Session.start(path, algorithm="icb", workers=WORKERS, k=3, epsilon=0.02, delta=0.1, noise_scale=0.3,
                       seed=3) as session:
        for _ in range(150):
            [pull] = session.next()
            session.record(pull.id, float(sum(MEANS[a] for a in pull.arms) + rng.normal(0, 0.3)))
        session.next(count=2)
        best = session.status()["best_workers"]
    screenshot = tmp_path / "page.png"
    with running(path) as url:
        shot = chromium(f"--screenshot={screenshot}", "--window-size=1200,900", url=url + "/")
        dumps = [chromium("--dump-dom", url=url + route) for route in ("/", "/campaigns/pilot/")]
    for run in (shot, *dumps):
        assert run.returncode == 0, run.stderr[-2000:]
        assert "Uncaught" not in run.stderr  # no JavaScript error in the console
    data = screenshot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    assert struct.unpack(">II", data[16:24]) == (1200, 900) and len(data) > 20_000  # a picture, not a blank page
    for dump in dumps:
        dom = dump.stdout
        [root] = re.findall(r"<html[^>]*>", dom)
        assert 'data-rendered="ok"' in root and "data-error" not in root, root  # the script's refresh succeeded
        team = re.search(r'<ul class="team" id="team">(.*?)</ul>', dom).group(1)
        assert re.findall(r"<li>([^<]*)</li>", team) == best and len(best) == 3
        assert '<span data-field="pulls">150</span>' in dom and '<span data-field="outstanding">2</span>' in dom
        assert re.search(r'data-field="updated">\d', dom)  # written by the script, not the server's "at load"
        assert dom.count("<polyline") == 2  # the plot the script fetched


@pytest.mark.slow
def test_with_a_token_the_page_opens_from_its_address_and_refreshes(tmp_path):
    path = tmp_path / "pilot.db"
    with Session.start(path, algorithm="icb", workers=WORKERS, k=3, epsilon=0.02, delta=0.1, noise_scale=0.3,
                       seed=3) as session:
        for _ in range(20):
            [pull] = session.next()
            session.record(pull.id, float(sum(MEANS[a] for a in pull.arms)))
    with running(path, token="s3cret") as url:
        refused = chromium("--dump-dom", url=url + "/")
        opened = chromium("--dump-dom", url=url + "/?token=s3cret")
    assert "missing or wrong token" in refused.stdout
    assert opened.returncode == 0 and "Uncaught" not in opened.stderr, opened.stderr[-2000:]
    [root] = re.findall(r"<html[^>]*>", opened.stdout)
    assert 'data-rendered="ok"' in root and "data-error" not in root, root  # its refresh was let in by the cookie
    assert '<span data-field="pulls">20</span>' in opened.stdout
