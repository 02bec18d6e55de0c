"""What the web apps share at the HTTP edge: the reader's address, conditional GET, the API's
error body and pages, throttles and bounded uploads.

Below the web apps (web, admin, lookup, search) and above the domain apps: each web app
may use it, and it imports none of them.
"""
