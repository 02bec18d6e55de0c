"""The burn names a snippet or a set-up uses, read with tree-sitter: types, paths, calls.

A snippet is statements, parsed as a function's body (or as-is when it is items). Each
use keeps what the check needs: `Owner::name` and the arguments given, a method's name,
arguments and where its receiver comes from (errorkb.upstream.claims.value_origins). Macros'
arguments, which tree-sitter leaves as tokens, are read token by token.
"""

import re
from collections.abc import Iterator
from dataclasses import dataclass

import tree_sitter

from ..sites.rust import PARSER
from .value_origins import BURN_CRATE_RE, OTHER_CRATES, UNKNOWN, bind, origin, path_segments

# Code in a set-up's prose: a path or a name, with its arguments when written.
CODE_RE = re.compile(r"[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*(?:\((?:[^()]|\([^()]*\))*\))?")


@dataclass(frozen=True)
class Use:
    """A name the code uses: a type, `Owner::name`, `.name(…)` or `name(…)`."""

    kind: str  # "type", "path", "method", "call"
    name: str
    owner: str | None = None
    arity: int | None = None  # arguments given, when called
    burn_path: bool = False  # written with a burn crate's path (burn::…, burn_train::…)
    receiver: str = UNKNOWN  # of a method: BURN, FOREIGN, UNKNOWN or "type:Name"


def setup_uses(setup: str) -> list[Use]:
    """The uses of the code a set-up's prose names: `Module::load_file(path, &r, &d)`, …"""
    found: list[Use] = []
    for fragment in CODE_RE.findall(setup):
        if "::" in fragment or "(" in fragment or fragment[:1].isupper():
            found += [use for use in snippet_uses(fragment) if use not in found]
    return found


def snippet_uses(code: str) -> list[Use]:
    """Every use of a name in a snippet, but of the names the snippet declares itself."""
    tree = parse_snippet(code)
    declared = set()
    bindings: dict[str, str] = {}
    for node in nodes(tree.root_node):
        if node.type in ("function_item", "struct_item", "enum_item", "type_parameter"):
            declared.add(node.child_by_field_name("name").text.decode())
        bind(node, bindings)
    found: list[Use] = []
    for use in _uses(tree.root_node, bindings):
        if use.name not in declared and use.owner not in declared and use not in found:
            found.append(use)
    return found


def parse_snippet(code: str) -> tree_sitter.Tree:
    """A snippet is statements: parsed as a function's body, or as-is when it is items."""
    wrapped = PARSER.parse(f"fn __snippet() {{\n{code}\n}}".encode())
    if not wrapped.root_node.has_error:
        return wrapped
    bare = PARSER.parse(code.encode())
    return wrapped if bare.root_node.has_error else bare


def nodes(node: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    """The node and every node under it, in source order."""
    yield node
    for child in node.children:
        yield from nodes(child)


def _uses(node: tree_sitter.Node, bindings: dict[str, str]) -> Iterator[Use]:
    kind = node.type
    if kind == "call_expression":
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        yield from _called(function, _argument_count(arguments), bindings)
        if function is not None and function.type == "field_expression":
            yield from _uses(function.child_by_field_name("value"), bindings)
        if arguments is not None:
            yield from _uses(arguments, bindings)
        return
    if kind == "tuple_struct_pattern":
        yield from _path_use(node.child_by_field_name("type"), len(node.named_children) - 1)
        for child in node.named_children[1:]:
            yield from _uses(child, bindings)
        return
    if kind in ("scoped_identifier", "scoped_type_identifier"):
        yield from _path_use(node, None)
        return
    if kind == "use_declaration":
        yield from _use_declaration(node.child_by_field_name("argument"), [])
        return
    if kind == "token_tree":
        yield from _token_uses(node, bindings)
        return
    if kind == "type_identifier" or (kind == "identifier" and _names_a_type(node)):
        yield Use("type", node.text.decode())
    for child in node.children:
        yield from _uses(child, bindings)


def _names_a_type(identifier: tree_sitter.Node) -> bool:
    """A bare `CamelCase` value (a unit struct, a type named in prose), not a CONSTANT."""
    text = identifier.text.decode()
    return text[:1].isupper() and not text.isupper()


def _called(function: tree_sitter.Node | None, arity: int, bindings: dict[str, str]):
    if function is None:
        return
    if function.type == "generic_function":
        function = function.child_by_field_name("function")
    if function.type == "field_expression":
        name = function.child_by_field_name("field").text.decode()
        receiver = origin(function.child_by_field_name("value"), bindings)
        yield Use("method", name, arity=arity, receiver=receiver)
    elif function.type == "scoped_identifier":
        yield from _path_use(function, arity)
    elif function.type == "identifier":
        if _names_a_type(function):
            yield Use("type", function.text.decode())
        else:
            yield Use("call", function.text.decode(), arity=arity)


def _path_use(node: tree_sitter.Node | None, arity: int | None) -> Iterator[Use]:
    """`Owner::name`, `burn::x::Owner::name`; paths of other crates (std::…) are not burn's."""
    if node is None:
        return
    if node.type in ("identifier", "type_identifier"):
        if _names_a_type(node):
            yield Use("type", node.text.decode())
        return
    segments = path_segments(node)
    if segments is None or len(segments) < 2:
        return
    burn_path = BURN_CRATE_RE.match(segments[0]) is not None
    if not burn_path and (segments[0] in OTHER_CRATES or len(segments) > 2):
        return  # std::path::Path::new, anyhow::anyhow, a module of the user's
    owner, name = segments[-2], segments[-1]
    if owner[:1].isupper():
        yield Use("type", owner, burn_path=burn_path)
        if node.type == "scoped_identifier":
            yield Use("path", name, owner=owner, arity=arity, burn_path=burn_path)
    elif burn_path:
        yield Use("type" if name[:1].isupper() else "call", name, burn_path=True)


def _use_declaration(node: tree_sitter.Node | None, prefix: list[str]) -> Iterator[Use]:
    """The names a `use burn…::{A, B}` brings in; other crates' are not burn's."""
    if node is None:
        return
    if node.type == "scoped_use_list":
        path = node.child_by_field_name("path")
        head = prefix + ((path_segments(path) or []) if path is not None else [])
        for child in node.child_by_field_name("list").named_children:
            yield from _use_declaration(child, head)
        return
    if node.type == "use_as_clause":
        node = node.child_by_field_name("path")
    segments = prefix + (path_segments(node) or [])
    if len(segments) >= 2 and BURN_CRATE_RE.match(segments[0]):
        name = segments[-1]
        yield Use("type" if name[:1].isupper() else "call", name, burn_path=True)


def _argument_count(arguments: tree_sitter.Node | None) -> int:
    if arguments is None:
        return 0
    return sum(1 for child in arguments.named_children if "comment" not in child.type)


def _token_uses(tree: tree_sitter.Node, bindings: dict[str, str]) -> Iterator[Use]:
    """Uses among a macro's tokens (bail!, matches!, ensure!), which tree-sitter leaves
    unparsed: `Owner::name(…)`, `.name(…)` on a name, a CamelCase name."""
    tokens = [t for t in tree.children if "comment" not in t.type]
    at = 0
    while at < len(tokens):
        token = tokens[at]
        if token.type == "token_tree":
            yield from _token_uses(token, bindings)
        if token.type != "identifier":
            at += 1
            continue
        path, end = [token.text.decode()], at + 1
        while end + 1 < len(tokens) and [t.type for t in tokens[end : end + 2]] == PATH_STEP:
            path.append(tokens[end + 1].text.decode())
            end += 2
        after = tokens[end] if end < len(tokens) else None
        called = after is not None and after.type == "token_tree" and after.text.startswith(b"(")
        arity = _token_arity(after) if called else None
        before = tokens[at - 1].type if at > 0 else None
        if len(path) >= 2:
            yield from _token_path(path, arity)
        elif before == "." and called:
            # A receiver that is a name is traced; a chain's is not: tokens are no calls.
            named = at > 1 and tokens[at - 2].type == "identifier"
            receiver = bindings.get(tokens[at - 2].text.decode(), UNKNOWN) if named else UNKNOWN
            yield Use("method", path[0], arity=arity, receiver=receiver)
        elif before != "." and path[0][:1].isupper() and not path[0].isupper():
            yield Use("type", path[0])
        at = end


PATH_STEP = ["::", "identifier"]


def _token_path(path: list[str], arity: int | None) -> Iterator[Use]:
    burn_path = BURN_CRATE_RE.match(path[0]) is not None
    if not burn_path and (path[0] in OTHER_CRATES or len(path) > 2):
        return
    if path[-2][:1].isupper():
        yield Use("type", path[-2], burn_path=burn_path)
        yield Use("path", path[-1], owner=path[-2], arity=arity, burn_path=burn_path)


def _token_arity(tree: tree_sitter.Node) -> int:
    inner = [t for t in tree.children[1:-1] if "comment" not in t.type]
    if not inner:
        return 0
    return 1 + sum(1 for t in inner if t.type == ",") - (inner[-1].type == ",")
