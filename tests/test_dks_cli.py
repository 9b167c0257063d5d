"""``fullbandit dks``: the vertices each oracle chose, and one-line errors for bad graph files."""

from __future__ import annotations

import networkx as nx
import pytest

from fullbandit.cli.dks import SHOWN_VERTICES
from fullbandit.cli.main import main
from fullbandit.dks import ORACLES, densest_k_subgraph
from fullbandit.experiments.graphs import make_graph


def vertex_lines(out: str) -> dict[str, list[str]]:
    """``{oracle: [vertex, ...]}`` from the ``vertices`` lines."""
    lines = [line.split(None, 1)[1] for line in out.splitlines() if line.startswith("vertices ")]
    return {oracle: listing.split(", ") for oracle, listing in (line.split(": ", 1) for line in lines)}


def test_prints_the_vertices_each_oracle_chose(capsys, tmp_path):
    path = tmp_path / "two-triangles.txt"
    path.write_text("a b 5\nb c 5\nc a 5\nx y 1\ny z 1\nz x 1\nc x 0.5\n")
    assert main(["dks", str(path), "--k", "3"]) == 0
    out = capsys.readouterr().out
    assert vertex_lines(out) == {oracle: ["a", "b", "c"] for oracle in ORACLES}
    assert "certified ratio" in out


def test_vertices_agree_with_the_library_and_long_lists_are_truncated(capsys):
    k, oracles = SHOWN_VERTICES + 5, ["peeling+swap", "fpk"]
    assert main(["dks", "karate", "--k", str(k), "--oracles", *oracles]) == 0
    shown = vertex_lines(capsys.readouterr().out)
    assert list(shown) == oracles
    G = make_graph("karate")
    for oracle, listing in shown.items():
        expected = [node for node in G if node in densest_k_subgraph(G, k, method=oracle).vertices]
        assert listing[:-1] == [str(node) for node in expected[:SHOWN_VERTICES - 1]]
        assert listing[-1] == f"{expected[SHOWN_VERTICES - 1]} ... ({k} in all)"


def bad_files():
    """(file name, content, what the error must say)."""
    yield "weights.txt", "a b 1\nb c 2\nc d heavy\n", "weights.txt:3: the weight 'heavy' is not a number"
    yield "fields.txt", "a b 1 2\n", "fields.txt:1: expected 'u v [weight]', got 'a b 1 2'"
    yield "broken.graphml", "<graphml><graph edgedefault='undirected'><node id='a'/>", \
        "broken.graphml is not a valid GraphML file"
    yield "empty.txt", "# no edges at all\n\n", "empty.txt' holds an empty graph (no nodes)"
    yield "empty.graphml", ('<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
                            '<graph edgedefault="undirected"/></graphml>'), "empty.graphml' holds an empty graph"
    yield "negative.txt", "a b -1\n", "negative.txt: edge attribute 'weight' must be non-negative on every edge"


@pytest.mark.parametrize("name, content, message", list(bad_files()), ids=[case[0] for case in bad_files()])
def test_bad_graph_files_give_one_line_errors_and_exit_status_2(capsys, tmp_path, name, content, message):
    path = tmp_path / name
    path.write_text(content)
    assert main(["dks", str(path), "--k", "2"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("fullbandit: error: ") and captured.err.count("\n") == 1
    assert message in captured.err


def test_an_isolated_node_graph_is_not_empty(capsys, tmp_path):
    path = tmp_path / "lonely.graphml"
    nx.write_graphml(nx.empty_graph(3), path)
    assert main(["dks", str(path), "--k", "2"]) == 0
    assert vertex_lines(capsys.readouterr().out)["peeling"] == ["1", "2"]  # all ties: the latest nodes remain
