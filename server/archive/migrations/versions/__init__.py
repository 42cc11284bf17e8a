"""The archive schema's revisions, oldest first (each file's ``down_revision`` names the one
before it)."""
