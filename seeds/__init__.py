"""The public deal catalogs (seeds/README.md), installed as the package data of `server.seeds`.

pyproject.toml maps the package ``server.seeds`` to this folder, so that a wheel installs these
files as ``server/seeds/`` and an editable install reads them here. Code reads them through
`server.catalog.public_catalogs`, never by a path into the repository. This file only makes the
folder a package (setuptools' editable installs find a mapped folder only if it is one).
"""
