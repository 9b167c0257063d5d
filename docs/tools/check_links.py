"""Check every link of the built HTML documentation that stays on the site: the file exists, and so does its anchor.

Usage: ``python docs/tools/check_links.py docs/_build/html`` (after the Sphinx build). Exits 1 and
lists each broken link with the page it is on. Links that leave the site (``http:``, ``https:``,
``mailto:``) are counted, not fetched: CI has no network beyond the package registries, and
``python -m sphinx -b linkcheck docs docs/_build/linkcheck`` checks them where there is one.
"""

from __future__ import annotations

import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

LEAVING = ("http", "https", "mailto", "ftp", "data", "javascript")


class _Page(HTMLParser):
    """The ids a page defines and the links (``href``/``src``) it holds."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name in ("id", "name"):
                self.ids.add(value)
            elif (name == "href" and tag in ("a", "link")) or (name == "src" and tag in ("img", "script")):
                self.links.append(value)


def _parsed(path: Path, cache: dict[Path, _Page]) -> _Page:
    if path not in cache:
        page = _Page()
        page.feed(path.read_text(encoding="utf-8", errors="replace"))
        cache[path] = page
    return cache[path]


def broken_links(site: Path) -> tuple[list[str], int]:
    """Every broken on-site link of the HTML under ``site`` (as ``page: link (why)``), and the number leaving it."""
    cache: dict[Path, _Page] = {}
    broken, leaving = [], 0
    for page_path in sorted(site.rglob("*.html")):
        if page_path.relative_to(site).parts[0] == "_static":  # the theme's templates, not pages
            continue
        for link in _parsed(page_path, cache).links:
            parts = urlsplit(link)
            if parts.scheme in LEAVING or link.startswith("//"):
                leaving += 1
                continue
            target = page_path if not parts.path else (page_path.parent / unquote(parts.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            where = f"{page_path.relative_to(site)}: {link}"
            if not target.is_file():
                broken.append(f"{where} (no file {target})")
            elif parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in _parsed(target,
                                                                                                        cache).ids:
                broken.append(f"{where} (no anchor #{parts.fragment})")
    return broken, leaving


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not Path(argv[0]).is_dir():
        print("usage: python docs/tools/check_links.py BUILT_HTML_FOLDER", file=sys.stderr)
        return 2
    broken, leaving = broken_links(Path(argv[0]))
    for line in broken:
        print(line)
    pages = sum(1 for _ in Path(argv[0]).rglob("*.html"))
    print(f"{pages} pages: {len(broken)} broken on-site links; {leaving} links leave the site (not fetched here)")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
