"""Find the entries that explain a pasted log, through a page, a JSON API and a command.

A web app beside the pages and the API: it reads entries from kb, and kb does not know
it exists.
"""
