"""Sphinx configuration of skcal's documentation.

Build with ``python -m sphinx -W --keep-going -b html doc doc/_build/html``
(the ``doc`` extra installs what it needs); ``tests/test_doc.py`` runs that
build, examples of the gallery included.
"""

# SPDX-License-Identifier: BSD-3-Clause

import os
import warnings

import skcal

project = "skcal"
author = "The skcal developers"
copyright = "2026, the skcal developers (BSD-3-Clause)"
release = skcal.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.doctest",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]
# SKCAL_DOC_GALLERY=0 leaves the gallery out, for a quick build of the rest
# (the index's link to it then warns).
if os.environ.get("SKCAL_DOC_GALLERY") == "0":
    extensions.remove("sphinx_gallery.gen_gallery")

templates_path = ["_templates"]
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py"]
default_role = "literal"
nitpicky = True
# Names of other projects: no inventories are fetched (the build runs
# offline), so references to them are plain text, not cross-references.
nitpick_ignore_regex = [
    (r"py:.*", r"(sklearn|numpy|scipy|matplotlib|pandas|joblib|pyarrow)(\..*)?"),
    (r"py:.*", r"(np|pd|plt)\..*"),
]

autosummary_generate = True
# Types are in the numpydoc docstrings, as in scikit-learn; the hints of the
# signatures are for type checkers.
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks = set()

html_theme = "pydata_sphinx_theme"
html_title = f"skcal {release}"
html_theme_options = {
    "navbar_end": ["navbar-icon-links"],
    "show_toc_level": 2,
    "navigation_with_keys": False,
}
html_static_path = []
html_show_sourcelink = False

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"plot_",
    "download_all_examples": False,
    "within_subsection_order": "FileNameSortKey",
    "reference_url": {"skcal": None},
    "backreferences_dir": None,
    "remove_config_comments": True,
    "matplotlib_animations": False,
    "plot_gallery": os.environ.get("SKCAL_DOC_PLOT_GALLERY", "True"),
    # The test of the build (tests/test_doc.py) runs every example, even
    # when an earlier build left its outputs in doc/auto_examples.
    "run_stale_examples": os.environ.get("SKCAL_DOC_RUN_ALL") == "1",
}


def _skip_request_setters(app, what, name, obj, skip, options):
    """Leave out scikit-learn's generated ``set_*_request`` methods."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return skip


def setup(app):
    app.connect("autodoc-skip-member", _skip_request_setters)


# The examples draw with the Agg backend; matplotlib's warning that a figure
# cannot be shown is not the documentation's concern.
warnings.filterwarnings(
    "ignore", message="FigureCanvasAgg is non-interactive", category=UserWarning
)
