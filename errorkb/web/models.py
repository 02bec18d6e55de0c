"""What the public face keeps for itself: renderings of entries' curated text and code."""

from django.db import models


class Rendering(models.Model):
    """An entry page's body as HTML, keyed by a hash of everything it was rendered from.

    Written on the first read of that content (errorkb.web.renderings), so a key names
    one rendering for good: a changed entry has another key, and nothing can be stale.
    """

    key = models.CharField(primary_key=True, max_length=64)
    description = models.TextField(blank=True)  # the meta description, markup removed
    html = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.key
