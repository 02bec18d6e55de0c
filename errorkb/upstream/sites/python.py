"""Error sites in Python source: `raise X("…")` with a message written as a string literal."""

import ast
import warnings

import tree_sitter
import tree_sitter_python

from .messages import Finding, Segment, enclosing, says_something, segments

LANGUAGE = tree_sitter.Language(tree_sitter_python.language())
# One parser for every file: building one costs more than parsing a typical file.
PARSER = tree_sitter.Parser(LANGUAGE)
QUERY = tree_sitter.Query(LANGUAGE, "(raise_statement . (call) @call) @raise")
# Arguments that are not positional.
NOT_POSITIONAL = ("keyword_argument", "list_splat", "dictionary_splat")
# The syntax an f-string's literal text is read in, by the format applied to the whole string:
# its `{{`/`}}` are escapes whatever is applied.
FSTRING_SYNTAX = {None: "brace-escapes", "percent": "percent+brace-escapes", "braces": "braces"}


def findings(tree: tree_sitter.Tree) -> list[Finding]:
    """Every `raise` of a class called with a literal message in a parsed Python file."""
    found = []
    for _, captures in tree_sitter.QueryCursor(QUERY).matches(tree.root_node):
        raise_node, call = captures["raise"][0], captures["call"][0]
        parts = _message(call.child_by_field_name("arguments"))
        if parts is None or not says_something(parts):
            continue
        found.append(
            Finding(
                parts=parts,
                error_type="exception",
                error_class=call.child_by_field_name("function").text.decode(),
                form="raise",
                line=raise_node.start_point.row + 1,
                column=raise_node.start_point.column,
                function=enclosing(raise_node, "function_definition"),
            )
        )
    return found


def _message(arguments) -> list[Segment] | None:
    """The call's first positional argument as a message, if a string literal makes it."""
    if arguments is None or arguments.type != "argument_list":
        return None
    # A keyword or splatted argument ahead of every positional one leaves none first.
    first = next((a for a in arguments.named_children if a.type != "comment"), None)
    if first is None or first.type in NOT_POSITIONAL:
        return None
    return _formatted(_unwrapped(first))


def _formatted(node) -> list[Segment] | None:
    """A string, `"…" % args` or `"…".format(args)` as segments; None for anything else."""
    if node.type in ("string", "concatenated_string"):
        return _string(node, None)
    if node.type == "binary_operator" and node.child_by_field_name("operator").type == "%":
        return _string(_unwrapped(node.child_by_field_name("left")), "percent")
    function = node.child_by_field_name("function") if node.type == "call" else None
    if function is not None and function.type == "attribute":
        if function.child_by_field_name("attribute").text == b"format":
            return _string(_unwrapped(function.child_by_field_name("object")), "braces")
    return None


def _unwrapped(node):
    """The expression inside any parentheses around it."""
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    return node


def _string(node, syntax: str | None) -> list[Segment] | None:
    """A string or implicit concatenation as segments; None for bytes and non-strings."""
    if node.type == "string":
        pieces = [node]
    elif node.type == "concatenated_string":
        pieces = [piece for piece in node.named_children if piece.type == "string"]
    else:
        return None
    parts: list[Segment] = []
    for piece in pieces:
        prefix = piece.named_children[0].text.decode().lower().rstrip("'\"")
        if "b" in prefix:
            return None
        found = _fstring(piece, prefix, syntax) if "f" in prefix else _plain(piece, syntax)
        if found is None:
            return None
        parts += found
    return parts


def _plain(piece, syntax: str | None) -> list[Segment] | None:
    try:
        with warnings.catch_warnings():
            # An unknown escape such as "\d" warns, and stays as written: that is what we want.
            warnings.simplefilter("ignore")
            value = ast.literal_eval(piece.text.decode())
    except (ValueError, SyntaxError):
        return None
    return segments(value, syntax) if isinstance(value, str) else None


def _fstring(piece, prefix: str, syntax: str | None) -> list[Segment] | None:
    """An f-string's literal text decoded and its replacement fields kept as written."""
    parts: list[Segment] = []
    for child in piece.named_children[1:-1]:
        text = child.text.decode()
        if child.type == "interpolation":
            parts.append((text, None))
            continue
        try:
            text = text if "r" in prefix else _decoded(text)
        except UnicodeDecodeError:
            # A malformed escape: Python would not run this file, so it reports nothing.
            return None
        parts += segments(text, FSTRING_SYNTAX[syntax])
    return parts


def _decoded(text: str) -> str:
    """Python's escape sequences in `text` decoded, other characters left as they are."""
    # unicode_escape reads bytes as Latin-1: other characters go in as escapes and come back.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return text.encode("latin-1", "backslashreplace").decode("unicode_escape")
