"""errorkb: a verified error knowledge base."""

__version__ = "0.1.0"
