"""Scans of a repository: its head against the knowledge base, its releases into the site index."""
