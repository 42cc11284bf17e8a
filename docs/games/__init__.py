"""The rules pages for players (one ``KEY.md`` per game), installed as the package data of
`server.rules_docs`.

pyproject.toml maps the package ``server.rules_docs`` to this folder, so that a wheel installs
these pages as ``server/rules_docs/`` and an editable install reads them here. Code reads them
through `server.rules_page.rules_text`, never by a path into the repository. This file only makes
the folder a package (setuptools' editable installs find a mapped folder only if it is one).
"""
