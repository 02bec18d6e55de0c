"""The curators' admin: Django admin screens for entries, the catalog, uploads, reports, runs."""
