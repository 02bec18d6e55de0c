"""What an API request may hold: a JSON body bounded in depth, one value a key; and how
much of a refused value a refusal quotes back.

A module of its own, not part of http/api.py: DRF reads its parser setting when
rest_framework.views is imported, which api.py imports, so a parser declared in api.py
would be looked up while api.py is still half-made.
"""

import json

from rest_framework import exceptions, parsers

# A refusal quotes what it refuses (an unknown choice, say): at most this much of it, so a
# parameter of a million characters does not come back as a megabyte of error.
MESSAGE_CHARS = 300
KEY_CHARS = 100  # of a key given twice, so that its refusal still says what is wrong
# JSON request bodies: how deep they may nest. The lookup's is one object of strings.
MAX_BODY_DEPTH = 32


def as_list(messages) -> list:
    return messages if isinstance(messages, list) else [messages]


def clipped(message) -> str:
    message = str(message)
    return message if len(message) <= MESSAGE_CHARS else message[:MESSAGE_CHARS] + "…"


class BoundedJSONParser(parsers.JSONParser):
    """DRF's JSON parser, refusing with the API's 400 what would otherwise be a 500 or a guess.

    json.loads recurses once a level, so a body of a thousand "[" ran it out of stack
    (RecursionError, a 500); a body is refused past MAX_BODY_DEPTH, counted without
    recursing. A key given twice in one object is refused (json.loads keeps the last, so
    the body would not mean what one reading of it says), and so is a number of more
    digits than Python converts. Every API that reads a body parses it here (settings).
    """

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = (parser_context or {}).get("encoding", "utf-8")
        try:
            data = json.loads(
                stream.read().decode(encoding),
                object_pairs_hook=one_value_a_key,
                parse_constant=_no_constant,
            )
        except RecursionError:
            raise _too_deep() from None
        except DuplicateKey as exc:
            raise exceptions.ParseError(f"JSON parse error - the key {exc} appears twice") from None
        except ValueError as exc:
            reason = "a number too long to read" if "digits" in str(exc) else str(exc)
            raise exceptions.ParseError(f"JSON parse error - {reason}") from None
        if _depth(data) > MAX_BODY_DEPTH:
            raise _too_deep()
        return data


class DuplicateKey(ValueError):
    """A key given twice in one JSON object; its message is the key, quoted and clipped."""


def one_value_a_key(pairs: list) -> dict:
    """json.loads's object_pairs_hook: the object, or DuplicateKey for a key given twice."""
    mapping = dict(pairs)
    if len(mapping) != len(pairs):
        seen = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))
        quoted = json.dumps(twice)
        raise DuplicateKey(quoted if len(quoted) <= KEY_CHARS else quoted[:KEY_CHARS] + "…")
    return mapping


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def _too_deep() -> exceptions.ParseError:
    return exceptions.ParseError(f"JSON parse error - nested more than {MAX_BODY_DEPTH} levels")


def _depth(data) -> int:
    """How deep arrays and objects nest in data, walked without recursion."""
    deepest, stack = 0, [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            value = value.values()
        elif not isinstance(value, list):
            continue
        deepest = max(deepest, depth + 1)
        stack.extend((item, depth + 1) for item in value)
    return deepest
