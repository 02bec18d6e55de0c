"""Dataset files uploaded in the admin."""

from django.conf import settings
from django.db import models


class DatasetUpload(models.Model):
    """A dataset file uploaded in the admin: kept, previewed, then applied once as a whole."""

    file_name = models.CharField(max_length=255)
    content = models.TextField()
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    uploaded_at = models.DateTimeField(auto_now_add=True)
    applied_at = models.DateTimeField(null=True, blank=True)
    result = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-uploaded_at"]

    def __str__(self) -> str:
        return f"{self.file_name} ({self.uploaded_at:%Y-%m-%d %H:%M})"
