"""The knowledge base's models, one module per idea; Django finds them here."""

from .content_version import ContentVersion, EntryVersion
from .entries import EntryTag, ErrorEntry, RelatedLink, Repository, Tag
from .reports import Report
from .uploads import DatasetUpload

__all__ = [
    "ContentVersion",
    "DatasetUpload",
    "EntryTag",
    "EntryVersion",
    "ErrorEntry",
    "RelatedLink",
    "Report",
    "Repository",
    "Tag",
]
