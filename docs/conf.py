"""Sphinx configuration of the fullbandit documentation: ``python -m sphinx -W -b html docs docs/_build/html``.

The API reference is generated from the docstrings (autosummary, numpy style through napoleon), the
algorithm tables from the registry (``_ext/registry_tables.py``), and the tutorials are executed on
every build (MyST-NB, ``nb_execution_mode = "force"``): a tutorial that raises fails the build.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import fullbandit  # noqa: E402

project = "fullbandit"
author = "The fullbandit developers"
copyright = "2026, The fullbandit developers"
version = release = fullbandit.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "myst_nb",
    "sphinx_copybutton",
    "sphinx_design",
    "registry_tables",
    "citation_list",
    "public_names",
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb"}
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints", "jupyter_execute"]
root_doc = "index"
templates_path = ["_templates"]

# Docstrings: numpy style; every public name of a module gets its own page.
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": True, "show-inheritance": True, "ignore-module-all": True}
autodoc_member_order = "bysource"
autodoc_typehints = "none"  # the numpy-style "Parameters" sections say the types
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
# Parameters and attributes as field lists: the words of a type ("array of shape (n,)") are not turned
# into cross-references ("n" would match every class's attribute n), and a dataclass's documented
# attributes are not described twice (once by autodoc, once by the docstring's Attributes section).
napoleon_use_param = False
napoleon_use_ivar = True


myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
nb_execution_mode = "force"
nb_execution_raise_on_error = True
nb_execution_timeout = 600
nb_execution_show_tb = True

html_theme = "pydata_sphinx_theme"
html_title = f"fullbandit {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
# The pages of the user guide have no sub-pages, and the tutorials need the width: no "section navigation" column.
html_sidebars = {page: [] for page in ("index", "getting-started", "install", "families/*", "dks", "guarantees",
                                       "campaigns", "experiments", "extending", "performance", "REPRODUCTION",
                                       "citing", "data", "changelog", "tutorials/*")}
html_static_path = ["_static"]
html_css_files = ["fullbandit.css"]
