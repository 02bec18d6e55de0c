"""The one body of every 4xx a JSON API answers itself, for any face to document.

web.api.base.exception_handler (configured for every DRF view in settings) shapes DRF's
errors into it; a face documents its own errors with it.
"""

from rest_framework import serializers


class ErrorBodySerializer(serializers.Serializer):
    """The body of every 4xx the API answers itself."""

    detail = serializers.CharField(help_text="What went wrong.")
    errors = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="For a 400, the messages for each parameter refused; otherwise empty.",
    )
