"""What every face needs at the HTTP edge: the reader's address and never-stale caching.

Below the faces (web, admin, lookup) and above the domain: each face may use it, and
it knows no face.
"""
