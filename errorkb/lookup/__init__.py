"""Find the entry for an error in hand: paste a log (lookup) or type words (search).

A face beside the pages and the API: it reads entries from kb, and kb does not know
it exists.
"""
