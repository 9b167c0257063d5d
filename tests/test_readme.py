"""The README is a quickstart whose examples run as written, whose links land on pages of the site, and whose
test command is what CI runs; the documentation pages' Python examples run too."""

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
SITE = "https://fullbandit.readthedocs.io/en/latest/"


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.S)


def run_blocks(blocks: list[str], source: str) -> dict:
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, source, "exec"), namespace)
    return namespace


def test_the_readme_is_a_quickstart():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 200
    for user in ("practitioners", "bandit researchers", "densest-k-subgraph", "library"):
        assert re.search(rf"^## .*{user}", text, flags=re.M | re.I), user


def test_the_readme_library_example_runs(tmp_path, monkeypatch):
    library = [block for block in python_blocks(README) if "fb.SAQM" in block]
    assert len(library) == 1
    monkeypatch.chdir(tmp_path)  # the example saves a campaign file
    namespace = run_blocks(library, "README.md")
    assert namespace["result"].stop_reason == "stopping rule" and namespace["result"].certified
    assert namespace["result"].answer == (0, 1, 2)
    assert (tmp_path / "campaign.json").exists()


@pytest.mark.slow
def test_the_readme_grid_example_runs(tmp_path, monkeypatch):
    grid = [block for block in python_blocks(README) if "run_grid" in block]
    assert len(grid) == 1
    monkeypatch.chdir(tmp_path)
    frame = run_blocks(grid, "README.md")["frame"]
    assert set(frame["algorithm"]) == {"ICB", "phased"} and len(frame) == 12  # 2 algorithms x 2 sizes x 3 seeds
    assert (tmp_path / "runs.csv").exists()


def test_every_readme_link_into_the_site_names_a_page_of_it():
    # The README is shown on the package index too, where a relative link breaks: every link is absolute, and
    # one into the documentation must name a page the site builds (docs/<page>.md, .rst or .ipynb).
    links = re.findall(r"\]\((\S+?)\)|<(https?://\S+?)>", README.read_text(encoding="utf-8"))
    targets = [link or bare for link, bare in links]
    assert targets and all(target.startswith("https://") for target in targets), targets
    into_site = [target for target in targets if target.startswith(SITE)]
    assert len(into_site) >= 8
    assert [target for target in into_site if not names_a_page(target)] == []


def names_a_page(url: str) -> bool:
    """Whether ``url`` is the site's root or the address of a page built from a source under docs/."""
    page = url.removeprefix(SITE).removesuffix(".html")
    return url.startswith(SITE) and (not page or any((ROOT / "docs" / f"{page}{suffix}").is_file()
                                                     for suffix in (".md", ".rst")))


def test_the_project_urls_name_pages_of_the_site():
    urls = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["urls"]
    assert urls and all(names_a_page(url) for url in urls.values()), urls
    assert not names_a_page(SITE + "no-such-page.html")


def test_ci_runs_the_readme_test_command():
    readme = README.read_text(encoding="utf-8")
    commands = [line.strip() for line in readme.splitlines() if line.startswith("    python3 -m venv")]
    assert len(commands) == 2
    test_command = next(command for command in commands if "pytest" in command)
    assert test_command in (ROOT / ".ci" / "run").read_text()


def test_the_campaign_page_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace = run_blocks(python_blocks(ROOT / "docs" / "campaigns.md"), "docs/campaigns.md")
    # The crowd-data example: the two most accurate workers, certified.
    crowd = namespace["table"]
    assert [crowd.worker_ids[i] for i in namespace["search"].answer] == ["ann", "bob"]
    assert namespace["search"].certified and set(crowd.best_team(2)) == set(namespace["search"].answer)
    # The prior example: the same answer, certified, on fewer of the campaign's own pulls.
    warm = namespace["warm"]
    assert warm.answer == namespace["search"].answer and warm.certified
    assert warm.constants["prior_observations"] == 150 and warm.pulls < namespace["search"].pulls


def test_the_protocol_page_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace = run_blocks(python_blocks(ROOT / "docs" / "extending.md"), "docs/extending.md")
    assert namespace["environment"].n == 111
    assert (tmp_path / "campaign.json").exists()
