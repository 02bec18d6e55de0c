"""The upstream scanner: the error sites of a repository's source and releases, and claim checks."""
