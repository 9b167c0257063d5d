"""Graph generators and readers for the DkS benchmark (fullbandit.experiments.graphs)."""

import networkx as nx
import numpy as np
import pytest

from fullbandit.experiments.graphs import GENERATORS, bandit_design_matrix, make_graph, read_graph
from fullbandit.full.qp import dks_weights
from fullbandit.util.validation import InvalidParameterError


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_every_generator_gives_a_simple_undirected_non_negative_graph(name):
    G = make_graph(name, 3)
    assert isinstance(G, nx.Graph) and not G.is_directed() and not G.is_multigraph()
    weights = [w for _, _, w in G.edges(data="weight")]
    assert weights and all(w is not None and w >= 0 for w in weights)
    again = make_graph(name, 3)
    assert sorted(G.edges(data="weight")) == sorted(again.edges(data="weight"))  # same seed, same graph


def test_random_generators_depend_on_the_seed():
    assert sorted(make_graph("gnp", 1).edges) != sorted(make_graph("gnp", 2).edges)


def test_planted_set_is_denser_than_the_rest():
    G = make_graph("planted", 0, n=300, p=0.02, size=25, q=0.9)
    planted = G.graph["planted"]
    inside = G.subgraph(planted).number_of_edges() / (25 * 24 / 2)
    assert inside > 0.75 and nx.density(G) < 0.05


def test_bandit_design_graph_is_algorithm_1_of_the_inverse_gram():
    Q = bandit_design_matrix(5, n=12, k=4, support_factor=2)
    A = np.linalg.inv(Q)
    # A = X^T X for 24 distinct 0/1 rows with four ones each: integer, trace 24 * 4, PD
    assert np.allclose(A, np.round(A), atol=1e-8)
    assert round(np.trace(A)) == 24 * 4 and np.linalg.eigvalsh(Q).min() > 0
    G = make_graph("bandit-design", 5, n=12, k=4, support_factor=2)
    assert G.number_of_edges() == 12 * 11 / 2  # complete graph, all weights positive (Lemma 4)
    assert np.allclose(nx.to_numpy_array(G, nodelist=range(12)), dks_weights(Q))


def test_classic_graphs_have_their_published_sizes():
    assert make_graph("karate").number_of_nodes() == 34 and make_graph("karate").number_of_edges() == 78
    assert make_graph("les-miserables").number_of_nodes() == 77
    assert make_graph("florentine").number_of_nodes() == 15
    assert make_graph("davis").number_of_nodes() == 32


def test_read_edge_list_graphml_and_npy(tmp_path):
    (tmp_path / "g.txt").write_text("# comment\na b 2.5\nb c\n\nc a 0.5\n")
    G = read_graph(tmp_path / "g.txt")
    assert G["a"]["b"]["weight"] == 2.5 and G["b"]["c"]["weight"] == 1.0 and G.number_of_edges() == 3
    H = nx.path_graph(4)
    nx.set_edge_attributes(H, 2.0, "weight")
    nx.write_graphml(H, tmp_path / "g.graphml")
    assert sorted(w for _, _, w in read_graph(tmp_path / "g.graphml").edges(data="weight")) == [2.0] * 3
    W = np.array([[0, 1, 2], [1, 0, 0], [2, 0, 0]], dtype=float)
    np.save(tmp_path / "w.npy", W)
    assert nx.to_numpy_array(read_graph(tmp_path / "w.npy"), nodelist=range(3)).tolist() == W.tolist()


def test_unknown_generator_and_missing_file():
    with pytest.raises(InvalidParameterError, match="graph='nope' is not one of the allowed values"):
        make_graph("nope")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        read_graph("/nonexistent/missing.txt")


GRAPHML_HEAD = '<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns">'


def graphml(weight_type: str, weight: str, direction: str = "undirected") -> str:
    """One edge a-b whose weight has GraphML type ``weight_type`` and text ``weight``."""
    return (GRAPHML_HEAD + f'<key id="w" for="edge" attr.name="weight" attr.type="{weight_type}"/>'
            f'<graph edgedefault="{direction}"><node id="a"/><node id="b"/>'
            f'<edge source="a" target="b"><data key="w">{weight}</data></edge></graph></graphml>')


def bad_files():
    """(file name, content: str, bytes or a matrix, message pattern), each a one-line InvalidParameterError."""
    yield "fields.txt", "a b 1\na b c d\n", r"fields.txt:2: expected 'u v \[weight\]', got 'a b c d'"
    yield "weight.txt", "# header\na b 1\nb c heavy\n", r"weight.txt:3: the weight 'heavy' is not a number"
    yield "comments.txt", "# nothing but\n\n  # comments\n", r"'.*comments.txt' holds an empty graph \(no nodes\)"
    yield "binary.txt", b"\xff\xfe\x00a b", r"binary.txt is not a text edge list"
    yield "broken.graphml", "<graphml><graph", r"broken.graphml is not a valid GraphML file"
    yield "typed.graphml", graphml("double", "heavy"), r"typed.graphml is not a valid GraphML file"
    yield "text.graphml", graphml("string", "heavy"), r"text.graphml: edge \('a', 'b'\): the weight 'heavy' is not"
    yield "directed.graphml", graphml("double", "1.0", "directed"), r"directed.graphml holds a directed graph"
    yield "nodes.graphml", GRAPHML_HEAD + '<graph edgedefault="undirected"></graph></graphml>', r"an empty graph"
    yield "asymmetric.npy", np.array([[0, 1], [2, 0]], dtype=float), r"asymmetric.npy must be symmetric"
    yield "negative.npy", -np.ones((2, 2)), r"negative.npy must be non-negative off the diagonal"
    yield "empty.npy", np.zeros((0, 0)), r"holds an empty graph \(no nodes\)"
    yield "objects.npy", np.array([{"a": 1}], dtype=object), r"objects.npy is not a valid .npy file"


@pytest.mark.parametrize("name, content, pattern", list(bad_files()), ids=[case[0] for case in bad_files()])
def test_bad_files_give_one_line_errors_naming_the_file(tmp_path, name, content, pattern):
    path = tmp_path / name
    if isinstance(content, np.ndarray):
        np.save(path, content, allow_pickle=True)
    elif isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    with pytest.raises(InvalidParameterError, match=pattern) as raised:
        read_graph(path)
    assert "\n" not in str(raised.value)


def test_a_directory_is_not_a_graph_file(tmp_path):
    with pytest.raises(InvalidParameterError, match="cannot read graph file"):
        read_graph(tmp_path)


def test_graphml_numeric_text_weights_become_numbers(tmp_path):
    path = tmp_path / "g.graphml"
    path.write_text(graphml("string", "2.5"))
    assert read_graph(path)["a"]["b"]["weight"] == 2.5
