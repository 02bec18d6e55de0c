"""Datasets of records: files read as streams, imported and exported in one transaction, uploads."""
