"""Alembic migrations of the archive's SQL schema (`server.archive.sql`): ``env.py`` and one
revision per schema change under ``versions/``. `server.archive.sql.SqlArchive.open` runs them."""
