"""What the database stores: text without NUL or lone surrogates, integers in range."""

from django.db.backends.base.operations import BaseDatabaseOperations


def integer_range(model: type, attr: str) -> tuple[int, int]:
    """The values an integer field holds, as its type declares them (PostgreSQL's range).

    SQLite would store any 64-bit integer, but a file that imports on one database
    must import on the other.
    """
    internal_type = model._meta.get_field(attr).get_internal_type()
    return BaseDatabaseOperations.integer_field_ranges[internal_type]


def text_error(value: str) -> str | None:
    """Why a string cannot be stored as it is, or None when it can."""
    if "\x00" in value:
        # PostgreSQL's text and jsonb cannot hold one.
        return "holds a NUL character (\\u0000)"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        # JSON's "\ud800" escape decodes to half a character, which no UTF-8 column holds.
        return f"holds a lone surrogate {ascii(value[exc.start])} at character {exc.start}"
    return None
