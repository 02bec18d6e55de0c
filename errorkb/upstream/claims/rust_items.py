"""A Rust file's literals and items, read with tree-sitter, for the index of releases.

A literal is the text between a string literal's quotes as written (raw strings too), one
with a letter, in code or in a `#[error("…")]` attribute (thiserror's Display). An item is
[kind, owner, name, visibility, arity]: its kind is struct, enum, variant, trait, type, fn
(no self) or method (self); its owner the enum of a variant, the
impl's self type or the trait of a function (None for a free function), the type a type
alias names. Visibility is "pub", "" (pub(crate), pub(super), private) or "impl:Trait" for
a function of `impl Trait for X`: public when the trait is, or when the trait is none of
burn's (std's or another crate's). Arity counts the parameters but self; a variant's, its
tuple fields (None for named fields or none); derive-new's `new`, the struct's fields.
Test code (`#[cfg(test)]`, `#[test]`) is left out.
"""

import re
from collections.abc import Iterator
from typing import Any

import tree_sitter

from ..sites.rust import NOT_ITEMS, PARSER, marks_tests

Item = list[Any]  # [kind, owner, name, visibility, arity]


def file_facts(source: bytes) -> dict[str, list]:
    """The literals and items of one Rust file, outside its test code."""
    literals: set[str] = set()
    items: set[tuple] = set()
    for node, context in _walk(PARSER.parse(source).root_node, None):
        if node.type in ("string_literal", "raw_string_literal"):
            text = literal_text(node)
            if text is not None and any(char.isalpha() for char in text):
                literals.add(text)
        else:
            items.update(tuple(item) for item in _items(node, context))
    return {"literals": sorted(literals), "items": [list(item) for item in sorted(items, key=str)]}


def literal_text(node: tree_sitter.Node) -> str | None:
    """The text between a string literal's quotes as written; None for byte and C strings."""
    text = node.text.decode()
    if node.type == "raw_string_literal":
        return "".join(c.text.decode() for c in node.named_children) if text[0] == "r" else None
    return text[1:-1] if text[0] == '"' else None


def _is_error_attribute(attribute: tree_sitter.Node) -> bool:
    return attribute.named_children[0].text == b"error"


def _string_literals(node: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    for child in node.children:
        if child.type in ("string_literal", "raw_string_literal"):
            yield child
        else:
            yield from _string_literals(child)


# The items whose functions take their owner and visibility from them.
_CONTAINERS = ("impl_item", "trait_item")


def _walk(node: tree_sitter.Node, context: tuple | None) -> Iterator[tuple[tree_sitter.Node, Any]]:
    """Every literal and item under `node`, with the impl or trait that holds it."""
    skip_next = False
    for child in node.children:
        if child.type == "inner_attribute_item" and marks_tests(child.named_children[0]):
            return  # `#![cfg(test)]`: the whole module is test code
        if child.type == "attribute_item":
            skip_next = skip_next or marks_tests(child.named_children[0])
            # thiserror's `#[error("…")]` is the Display of the item it marks: burn's text.
            if not skip_next and _is_error_attribute(child.named_children[0]):
                yield from ((n, context) for n in _string_literals(child))
            continue
        if child.type in ("line_comment", "block_comment"):
            continue
        if skip_next:
            skip_next = False
            continue
        yield child, context
        if child.type in _CONTAINERS:
            inner = _container(child)
        else:
            # A function inside a body belongs to no impl.
            inner = None if child.type == "function_item" else context
        yield from _walk(child, inner)


def _container(node: tree_sitter.Node) -> tuple[str | None, str]:
    """(owner, visibility of its functions without their own) for an impl or a trait."""
    if node.type == "trait_item":
        return _name(node), _visibility(node)
    owner = _type_name(node.child_by_field_name("type"))
    trait = node.child_by_field_name("trait")
    return owner, "" if trait is None else f"impl:{_type_name(trait)}"


def _items(node: tree_sitter.Node, context: tuple | None) -> list[Item]:
    kind = node.type
    if kind in ("struct_item", "enum_item", "trait_item"):
        found = [[kind.removesuffix("_item"), None, _name(node), _visibility(node), None]]
        if kind == "enum_item":
            found += _variants(node, found[0][1:4])
        if kind == "struct_item" and _derives_new(node):
            found.append(["fn", _name(node), "new", _visibility(node), _new_arity(node)])
        return found
    if kind == "type_item" and context is None:  # not an impl's associated type
        target = _type_name(node.child_by_field_name("type"))
        return [["type", target, _name(node), _visibility(node), None]]
    if kind in ("function_item", "function_signature_item"):
        return [_function(node, context)]
    return []


def _variants(enum: tree_sitter.Node, enum_facts: list) -> list[Item]:
    _, enum_name, visibility = enum_facts
    body = enum.child_by_field_name("body")
    found = []
    for variant in body.named_children if body is not None else ():
        if variant.type != "enum_variant":
            continue
        fields = variant.child_by_field_name("body")
        arity = None
        if fields is not None and fields.type == "ordered_field_declaration_list":
            arity = len(fields.children_by_field_name("type"))
        found.append(["variant", enum_name, _name(variant), visibility, arity])
    return found


def _derives_new(struct: tree_sitter.Node) -> bool:
    """Whether derive-new's `#[derive(new)]` gives the struct a `new` (burn uses it often)."""
    sibling = struct.prev_named_sibling
    while sibling is not None and sibling.type in NOT_ITEMS:
        text = sibling.text.decode()
        if sibling.type == "attribute_item" and re.match(r"#\[derive\(.*\bnew\b", text, re.S):
            return True
        sibling = sibling.prev_named_sibling
    return False


def _new_arity(struct: tree_sitter.Node) -> int:
    """derive-new's `new` takes each field but those marked `#[new(default)]`, `#[new(value…)]`
    and the PhantomData markers, which it fills in itself."""
    body = struct.child_by_field_name("body")
    if body is None:
        return 0
    if body.type == "ordered_field_declaration_list":
        types = body.children_by_field_name("type")
        return sum(not _is_phantom(written) for written in types)
    count, given = 0, False
    for child in body.named_children:
        if child.type == "attribute_item" and child.text.decode().startswith("#[new("):
            given = True
        elif child.type == "field_declaration":
            count += not given and not _is_phantom(child.child_by_field_name("type"))
            given = False
    return count


def _is_phantom(written: tree_sitter.Node | None) -> bool:
    return _type_name(written) == "PhantomData"


def _function(node: tree_sitter.Node, context: tuple | None) -> Item:
    parameters = node.child_by_field_name("parameters")
    children = parameters.named_children if parameters is not None else []
    has_self = any(child.type == "self_parameter" for child in children)
    arity = sum(child.type in ("parameter", "variadic_parameter") for child in children)
    owner, inherited = context if context is not None else (None, "")
    # A trait's functions and those of `impl Trait for X` have no visibility of their own.
    visibility = _visibility(node) or inherited
    return ["method" if has_self else "fn", owner, _name(node), visibility, arity]


def _visibility(node: tree_sitter.Node) -> str:
    """ "pub" for plain `pub`; "" for pub(crate), pub(super), pub(in …) and private."""
    for child in node.children:
        if child.type == "visibility_modifier":
            return "pub" if child.text == b"pub" else ""
    return ""


def _name(node: tree_sitter.Node | None) -> str | None:
    name = None if node is None else node.child_by_field_name("name")
    return None if name is None else name.text.decode()


def _type_name(node: tree_sitter.Node | None) -> str | None:
    """The name a type is written with, without its path and generics: `a::B<C>` -> B."""
    while node is not None and node.type in ("generic_type", "scoped_type_identifier"):
        field = "type" if node.type == "generic_type" else "name"
        node = node.child_by_field_name(field)
    if node is None or node.type not in ("type_identifier", "identifier"):
        return None
    return node.text.decode()
