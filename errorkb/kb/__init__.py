"""The knowledge base: entries and their catalog, the record schema, editing, datasets."""
