"""The public site: the pages and the JSON API of entries and their verification runs."""
