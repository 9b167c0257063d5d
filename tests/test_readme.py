"""The README's library examples run as written, and its test command is what CI runs."""

import re
from pathlib import Path

from fullbandit.cli.main import main

ROOT = Path(__file__).resolve().parents[1]


def _python_blocks():
    return re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)


def test_readme_python_examples_run(tmp_path, monkeypatch):
    blocks = _python_blocks()
    assert len(blocks) >= 2
    monkeypatch.chdir(tmp_path)  # the example saves a campaign file
    namespace = {}
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)
    assert namespace["result"].stop_reason == "stopping rule"
    assert namespace["result"].answer == (0, 1, 2)
    assert (tmp_path / "campaign.json").exists()
    assert namespace["environment"].n == 111
    # The crowd-data example: the two most accurate workers, certified.
    crowd = namespace["table"]
    assert [crowd.worker_ids[i] for i in namespace["search"].answer] == ["ann", "bob"]
    assert namespace["search"].certified and set(crowd.best_team(2)) == set(namespace["search"].answer)
    # The prior example: the same answer, certified, on fewer of the campaign's own pulls.
    warm = namespace["warm"]
    assert warm.answer == namespace["search"].answer and warm.certified
    assert warm.constants["prior_observations"] == 150 and warm.pulls < namespace["search"].pulls
    print("README prior example:", warm.pulls, "pulls against", namespace["search"].pulls)


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    commands = [line.strip() for line in readme.splitlines() if line.startswith("    python3 -m venv")]
    assert len(commands) == 2
    test_command = next(command for command in commands if "pytest" in command)
    assert test_command in (ROOT / ".ci" / "run").read_text()



def test_the_printed_solve_of_the_readme_is_what_solve_prints(capsys):
    # The README shows a whole `fullbandit solve` output: it must stay the command's, line for line (the time aside).
    text = (ROOT / "README.md").read_text()
    block = text[text.index("    $ fullbandit solve --dataset it"):].split("\n\n")[0]
    command, *shown = [line[4:] for line in block.splitlines()]
    assert main([*command.split()[2:], "--no-progress"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert [line for line in shown if not line.startswith("time ")] == \
        [line for line in printed if not line.startswith("time ")]
