"""Where a value in a snippet comes from, so that a method is checked only on burn's values.

A method's receiver is traced back along its chain to where it starts: a burn crate's path
(BURN), a type ("type:Name", burn's or not: the index decides), std (FOREIGN: a literal, a
std path, a closure's argument, a parameter of a std type) or UNKNOWN (a name the snippet
does not bind). `.collect()` on a std iterator is not burn's `collect`.
"""

import re

import tree_sitter

BURN, FOREIGN, UNKNOWN = "burn", "foreign", "unknown"
BURN_CRATE_RE = re.compile(r"^burn(_\w+)?$")
OTHER_CRATES = ("std", "core", "alloc")
# Expressions whose value comes from their first part: `a.b`, `a?`, `&a`, `a[i]`, `(a)`.
PASSING_ON = ("field_expression", "try_expression", "reference_expression", "index_expression")
WRAPPING = ("parenthesized_expression", "await_expression")
STD_VALUES = ("macro_invocation", "closure_expression", "array_expression")


def bind(node: tree_sitter.Node, bindings: dict[str, str]) -> None:
    """Where the names a let, a parameter or a closure binds come from (later ones win)."""
    pattern = node.child_by_field_name("pattern")
    if node.type == "let_declaration" and pattern is not None and pattern.type == "identifier":
        written = node.child_by_field_name("type")
        value = node.child_by_field_name("value")
        if written is not None:
            bindings[pattern.text.decode()] = type_origin(written)
        elif value is not None:
            bindings[pattern.text.decode()] = origin(value, bindings)
    elif node.type == "parameter" and pattern is not None and pattern.type == "identifier":
        bindings[pattern.text.decode()] = type_origin(node.child_by_field_name("type"))
    elif node.type == "closure_parameters":
        for child in node.named_children:
            name = child.child_by_field_name("pattern") if child.type == "parameter" else child
            if name is not None and name.type == "identifier":
                bindings[name.text.decode()] = FOREIGN  # an iterator's items, mostly


def origin(node: tree_sitter.Node | None, bindings: dict[str, str]) -> str:
    """Where the value of an expression comes from, by its receiver chain's start."""
    while node is not None:
        kind = node.type
        if kind in PASSING_ON:
            node = node.child_by_field_name("value") or node.named_children[0]
        elif kind in WRAPPING:
            node = node.named_children[0]
        elif kind == "call_expression":
            function = node.child_by_field_name("function")
            if function.type == "generic_function":
                function = function.child_by_field_name("function")
            if function.type == "field_expression":
                node = function.child_by_field_name("value")
            elif function.type == "scoped_identifier":
                return path_origin(path_segments(function))
            else:
                return FOREIGN  # a free function: the snippet's own, or Ok(…), Some(…)
        elif kind == "identifier":
            return bindings.get(node.text.decode(), UNKNOWN)
        elif kind in ("scoped_identifier", "generic_type", "type_identifier"):
            return path_origin(path_segments(node))
        elif "literal" in kind or kind in STD_VALUES:
            return FOREIGN
        else:
            return UNKNOWN
    return UNKNOWN


def path_origin(segments: list[str] | None) -> str:
    if not segments:
        return UNKNOWN
    if BURN_CRATE_RE.match(segments[0]):
        return BURN
    if segments[0] in OTHER_CRATES or len(segments) > 2:
        return FOREIGN
    owner = segments[-2] if len(segments) == 2 else segments[0]
    return f"type:{owner}" if owner[:1].isupper() else FOREIGN


def type_origin(node: tree_sitter.Node | None) -> str:
    while node is not None and node.type in ("reference_type", "generic_type"):
        node = node.child_by_field_name("type")
    if node is None or node.type == "primitive_type":
        return FOREIGN
    return path_origin(path_segments(node))


def path_segments(node: tree_sitter.Node) -> list[str] | None:
    if node.type in ("identifier", "type_identifier", "crate", "self", "super"):
        return [node.text.decode()]
    if node.type == "generic_type":
        inner = node.child_by_field_name("type")
        return None if inner is None else path_segments(inner)
    if node.type not in ("scoped_identifier", "scoped_type_identifier"):
        return None  # `<T as Trait>` and the like: not followed
    path, name = node.child_by_field_name("path"), node.child_by_field_name("name")
    head = [] if path is None else path_segments(path)
    return None if head is None or name is None else [*head, name.text.decode()]
