"""The link checker CI runs on the built documentation finds a missing page and a missing anchor, and passes a
site whose links all land (on a small site written here: the real one is built by .ci/run)."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _checker():
    spec = importlib.util.spec_from_file_location("check_links", ROOT / "docs" / "tools" / "check_links.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _site(tmp_path: Path, links: str) -> Path:
    (tmp_path / "sub").mkdir()
    (tmp_path / "index.html").write_text(f'<html><body><h1 id="top">x</h1>{links}</body></html>')
    (tmp_path / "sub" / "page.html").write_text('<html><body><section id="part">y</section>'
                                                 '<a href="../index.html#top">up</a><img src="../_images/a.png">'
                                                 '</body></html>')
    (tmp_path / "_images").mkdir()
    (tmp_path / "_images" / "a.png").write_bytes(b"png")
    return tmp_path


def test_a_site_whose_links_land_passes(tmp_path):
    site = _site(tmp_path, '<a href="sub/page.html#part">a</a><a href="#top">b</a><a href="https://example.org/">c</a>')
    broken, leaving = _checker().broken_links(site)
    assert broken == [] and leaving == 1


def test_a_missing_page_and_a_missing_anchor_are_found(tmp_path):
    site = _site(tmp_path, '<a href="sub/gone.html">a</a><a href="sub/page.html#nowhere">b</a>')
    broken, _ = _checker().broken_links(site)
    assert len(broken) == 2
    assert "sub/gone.html" in broken[0] and "#nowhere" in broken[1]
    assert _checker().main([str(site)]) == 1
