"""Checking a record's claims (names, items, arguments) at every release it names."""
