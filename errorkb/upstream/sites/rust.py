"""Error sites in Rust source: expect, the panicking macros, anyhow's macros, #[error]."""

import functools

import tree_sitter
import tree_sitter_rust

from .messages import Finding, Segment, enclosing, says_something, segments

LANGUAGE = tree_sitter.Language(tree_sitter_rust.language())
# One parser for every file: building one costs more than parsing a typical file.
PARSER = tree_sitter.Parser(LANGUAGE)

PANICS = ("panic", "unreachable", "unimplemented", "todo")
ERRORS = ("bail", "anyhow", "ensure")
MACROS = " ".join(f'"{name}"' for name in PANICS + ERRORS)
# tree-sitter leaves a macro's arguments as unparsed tokens: sites among them (in println!,
# lazy_static!, assert_eq!…) are found by their tokens, an identifier and a token tree.
QUERY = tree_sitter.Query(
    LANGUAGE,
    f"""
    (call_expression
      function: (field_expression field: (field_identifier) @name (#eq? @name "expect"))
      arguments: (arguments) @arguments)
    (macro_invocation
      macro: [(identifier) @name (scoped_identifier name: (identifier) @name)]
      (#any-of? @name {MACROS})
      (token_tree) @arguments)
    (token_tree (identifier) @name (#eq? @name "expect") . (token_tree) @arguments)
    (token_tree (identifier) @name (#any-of? @name {MACROS}) . (token_tree) @arguments)
    (attribute_item
      (attribute (identifier) @name (#eq? @name "error") arguments: (token_tree) @arguments))
    (attribute_item (attribute) @attribute) @outer
    (inner_attribute_item (attribute) @attribute) @inner
    """,
)
STRINGS = ("string_literal", "raw_string_literal")
SIMPLE_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", "0": "\0", "'": "'", '"': '"'}
# Comments and further attributes may stand between an attribute and the item it is on.
NOT_ITEMS = ("attribute_item", "line_comment", "block_comment")


def findings(tree: tree_sitter.Tree) -> list[Finding]:
    """Every error site outside test code in a parsed Rust file."""
    found, test_code = [], []
    for pattern, captures in tree_sitter.QueryCursor(QUERY).matches(tree.root_node):
        if pattern >= len(_RULES):
            item = (captures.get("outer") or captures["inner"])[0]
            test_code += _test_code(captures["attribute"][0], item)
            continue
        name = captures["name"][0]
        finding = _RULES[pattern](name, captures["arguments"][0])
        if finding is not None:
            found.append((name.start_byte, finding))
    return [f for start, f in found if not any(low <= start < high for low, high in test_code)]


def _found(name, parts: list[Segment] | None, form: str, **kwargs) -> Finding | None:
    """The finding reported at `name`, if its message says something."""
    if parts is None or not says_something(parts):
        return None
    return Finding(
        parts=parts,
        form=form,
        line=name.start_point.row + 1,
        column=name.start_point.column,
        function=enclosing(name, "function_item"),
        **kwargs,
    )


def _expect(name, arguments) -> Finding | None:
    """`.expect("…")`, `.expect(format!("…"))`, `.expect(&format!("…"))`."""
    tokens = [t for t in arguments.children[1:-1] if "comment" not in t.type]
    if tokens and tokens[0].type == "reference_expression":
        tokens = [tokens[0].child_by_field_name("value")]
    elif tokens and tokens[0].type == "&":
        tokens = tokens[1:]
    if not tokens:
        return None
    if tokens[0].type in STRINGS:
        # expect takes its text as it is: braces in it are no placeholders.
        text = rust_string(tokens[0])
        parts = None if text is None else segments(text, None)
    elif tokens[0].type == "macro_invocation" and _macro_name(tokens[0]) == "format":
        parts = _format_string(tokens[0].named_children[-1])
    elif [t.type for t in tokens[:3]] == ["identifier", "!", "token_tree"]:
        parts = _format_string(tokens[2]) if tokens[0].text == b"format" else None
    else:
        return None
    return _found(name, parts, "expect", error_type="panic", error_class=None)


def _expect_among_tokens(name, arguments) -> Finding | None:
    """`.expect(…)` among a macro's tokens: a dot, the name, then parentheses."""
    before = name.prev_sibling
    if before is None or before.type != "." or name.next_sibling.start_byte != arguments.start_byte:
        return None
    return _expect(name, arguments) if arguments.children[0].type == "(" else None


def _macro_among_tokens(name, arguments) -> Finding | None:
    """`panic!(…)` and the other macros among a macro's tokens: the name, `!`, the tokens."""
    return _macro(name, arguments) if name.next_sibling.type == "!" else None


def _macro(name, arguments) -> Finding | None:
    """`panic!("…")` and its kin, `bail!`, `anyhow!`, `ensure!(cond, "…")`."""
    macro = name.text.decode()
    if macro == "ensure":
        parts = _format_string(arguments, after_comma=True)
    else:
        parts = _format_string(arguments)
    error_type = "panic" if macro in PANICS else "error"
    return _found(name, parts, f"{macro}!", error_type=error_type, error_class=None)


def _error_attribute(name, arguments) -> Finding | None:
    """thiserror's `#[error("…")]` on an enum variant or a struct."""
    attribute_item = name.parent.parent
    error_class = _error_class(_item_after(attribute_item))
    if error_class is None:
        return None
    parts = _format_string(arguments)
    return _found(attribute_item, parts, "#[error]", error_type="error", error_class=error_class)


# The rule for each of the query's site patterns, in the query's order.
_RULES = (_expect, _macro, _expect_among_tokens, _macro_among_tokens, _error_attribute)


def _error_class(item) -> str | None:
    """`Enum::Variant` for a variant, the type's name for a struct or an enum."""
    if item is None:
        return None
    if item.type == "enum_variant":
        enum, variant = _name(item.parent and item.parent.parent), _name(item)
        # Code broken enough to leave a part unnamed is no error class of anyone's.
        return None if enum is None or variant is None else f"{enum}::{variant}"
    if item.type in ("struct_item", "enum_item"):
        return _name(item)
    return None


def _name(item) -> str | None:
    name = None if item is None else item.child_by_field_name("name")
    return None if name is None else name.text.decode()


def _macro_name(invocation) -> str:
    macro = invocation.child_by_field_name("macro")
    if macro.type == "scoped_identifier":
        macro = macro.child_by_field_name("name")
    return macro.text.decode()


def _format_string(token_tree, after_comma: bool = False) -> list[Segment] | None:
    """The first top-level string literal of a macro's tokens, read as a format string."""
    seen_comma = not after_comma
    for token in token_tree.children:
        if token.type == ",":
            seen_comma = True
        elif seen_comma and token.type in STRINGS and (text := rust_string(token)) is not None:
            return segments(text, "braces")
    return None


def _item_after(attribute_item):
    """The item an outer attribute is on: the next sibling that is no attribute or comment."""
    item = attribute_item.next_named_sibling
    while item is not None and item.type in NOT_ITEMS:
        item = item.next_named_sibling
    return item


def _test_code(attribute, attribute_item) -> list[tuple[int, int]]:
    """The byte range an attribute marks as test code: `#[cfg(test)]`, `#[test]`, `#[x::test]`."""
    if not marks_tests(attribute):
        return []
    if attribute_item.type == "inner_attribute_item":
        # `#![cfg(test)]` makes the module that holds it test code.
        held = attribute_item.parent
    else:
        held = _item_after(attribute_item)
    return [] if held is None else [(held.start_byte, held.end_byte)]


def marks_tests(attribute) -> bool:
    path = attribute.named_children[0]
    if path.type == "scoped_identifier":
        return path.child_by_field_name("name").text == b"test"
    if path.text == b"test":
        return True
    arguments = attribute.child_by_field_name("arguments")
    return path.text == b"cfg" and arguments is not None and _requires_test(arguments)


def _requires_test(token_tree) -> bool:
    """Whether a cfg predicate holds only under test: `test`, or `all(…, test, …)`."""
    tokens = [t for t in token_tree.children if t.type not in ("(", ")", "[", "]", "{", "}")]
    if len(tokens) == 1:
        return tokens[0].text == b"test"
    if len(tokens) == 2 and tokens[0].text == b"all" and tokens[1].type == "token_tree":
        return any(t.text == b"test" for t in tokens[1].children)
    return False


def rust_string(literal) -> str | None:
    """A string literal's value, escapes decoded; None for byte and C strings."""
    # A prefix (b, c, br, cr) makes a byte or C string: no text a failure reports.
    if not literal.text.startswith((b"r", b'"')):
        return None
    if literal.type == "raw_string_literal":
        return "".join(c.text.decode() for c in literal.named_children)
    pieces, continued = [], False
    for piece in literal.named_children:
        text = piece.text.decode()
        if piece.type == "escape_sequence" and text[1] in "\r\n":
            # A backslash ending a line drops the line break and the next line's indentation.
            continued = True
            continue
        if piece.type == "escape_sequence":
            pieces.append(_unescape(text))
        else:
            pieces.append(text.lstrip(" \t\r\n") if continued else text)
        continued = False
    return "".join(pieces)


@functools.cache
def written_string_value(written: str) -> str:
    """The value of a string literal kept as written between its quotes (the release index
    keeps literals so): escapes decoded, a line continued with a backslash joined."""
    item = PARSER.parse(f'const _: &str = "{written}";'.encode()).root_node.named_children[0]
    literal = item.child_by_field_name("value")
    value = rust_string(literal) if literal is not None else None
    return written if value is None else value


def _unescape(escape: str) -> str:
    try:
        if escape[1] == "x":
            return chr(int(escape[2:], 16))
        if escape[1] == "u":
            return chr(int(escape[3:-1].replace("_", ""), 16))
    except ValueError:
        # Not valid Rust (rustc would reject it): keep it as written.
        return escape
    return SIMPLE_ESCAPES.get(escape[1], escape)
