"""Error sites in Rust source: which forms count, what their messages and patterns are."""

import textwrap
import time
from pathlib import Path

import pytest
import re2

from errorkb.upstream.sites.error_sites import Site, SourceError, find_sites, is_scanned

BURN = Path(__file__).resolve().parents[1] / "burn"
MAIN = "2c06be351006851d42fdb6df16b976f4a82d9747"
V0_19_1 = "a6da424feacf6d82d6a0e81db197310796267c2b"
WILDCARD = ".{0,1000}"


def sites(source: str, path: str = "crates/x/src/lib.rs") -> list[Site]:
    return find_sites(path, textwrap.dedent(source).encode())


def only(source: str) -> Site:
    (site,) = sites(source)
    return site


def in_fn(body: str) -> str:
    """`body` as the body of a function, so that it parses as statements."""
    return "fn f() {\n" + textwrap.indent(textwrap.dedent(body), "    ") + "}\n"


def burn_sites(commit: str, path: str) -> dict[int, Site]:
    # The path burn's repository gives it: the kept copy sits under tests/, which is not scanned.
    return {site.line: site for site in find_sites(path, (BURN / commit / path).read_bytes())}


def test_expect_across_lines_reports_the_expect_line():
    site = only(
        in_fn("""\
        self.model
            .save(epoch)
            .expect(
                "Can save model checkpoint.",
            );
        """)
    )
    assert (site.message, site.line, site.form) == ("Can save model checkpoint.", 4, "expect")
    assert (site.error_type, site.error_class) == ("panic", None)
    assert site.pattern == r"Can save model checkpoint\."


def test_expect_text_is_no_format_string_so_its_braces_are_literal():
    site = only(in_fn('map.get(k).expect("no {key} in {{map}}");\n'))
    assert site.message == "no {key} in {{map}}"
    assert site.pattern == r"no \{key\} in \{\{map\}\}"


@pytest.mark.parametrize("argument", ['&format!("no entry {}", k)', 'format!("no entry {}", k)'])
def test_expect_of_a_format_takes_the_format_string(argument):
    site = only(in_fn(f"map.get(k).expect({argument});\n"))
    assert (site.message, site.form) == ("no entry {}", "expect")
    assert site.pattern == "no entry .{0,1000}"


def test_expect_of_a_variable_is_no_site():
    assert sites(in_fn('x.expect(message);\nx.expect(b"bytes message");\n')) == []


def test_sites_among_a_macros_unparsed_tokens_are_found():
    found = sites("""\
        lazy_static! {
            static ref NAME: Regex = Regex::new("[a-z]+").expect("valid name regex");
        }
        fn f() {
            println!("{}", x
                .expect(&format!("no entry {}", k)));
            assert_eq!(a, b.unwrap_or_else(|e| anyhow::bail!("lost {e}")));
            println!("{}", expect("not a method"), y.expect(message));
        }
        """)
    assert [(s.line, s.form, s.message) for s in found] == [
        (2, "expect", "valid name regex"),
        (6, "expect", "no entry {}"),
        (7, "bail!", "lost {e}"),
    ]


def test_panic_placeholder_pattern_matches_the_formatted_panic():
    site = only(in_fn('panic!("Error when saving the state: {err}");\n'))
    assert site.message == "Error when saving the state: {err}"
    assert site.pattern == "Error when saving the state: .{0,1000}"
    panic = "Error when saving the state: I/O Error: `No such file or directory (os error 2)`"
    assert re2.search(site.pattern, panic)


@pytest.mark.parametrize(
    "placeholder", ["{}", "{0}", "{name}", "{:?}", "{:#?}", "{name:?}", "{0:>8}", "{:.3}"]
)
def test_every_format_placeholder_becomes_a_bounded_wildcard(placeholder):
    site = only(in_fn(f'panic!("got {placeholder} here", x);\n'))
    assert site.message == f"got {placeholder} here"
    assert site.pattern == f"got {WILDCARD} here"


def test_doubled_braces_are_kept_in_the_message_and_match_one_brace():
    site = only(in_fn('panic!("set {{{}}} is empty", name);\n'))
    assert site.message == "set {{{}}} is empty"
    assert site.pattern == r"set \{.{0,1000}\} is empty"
    assert re2.search(site.pattern, "set {a, b} is empty")


@pytest.mark.parametrize("macro", ["panic", "unreachable", "unimplemented", "todo"])
def test_each_panicking_macro_with_a_message_is_a_panic_site(macro):
    site = only(in_fn(f'{macro}!("state {{}} cannot happen", s);\n'))
    assert (site.form, site.error_type, site.line) == (f"{macro}!", "panic", 2)


def test_a_panicking_macro_without_a_message_is_no_site():
    assert sites(in_fn("todo!();\nunreachable!();\npanic!(payload);\n")) == []


def test_a_panic_in_an_unwrap_or_else_closure_is_found():
    site = only(
        in_fn("""\
        callback.send(record).unwrap_or_else(|err| {
            panic!(
                "Error when sending response: {err}"
            )
        });
        """)
    )
    assert (site.message, site.line) == ("Error when sending response: {err}", 3)
    assert site.form == "panic!"


@pytest.mark.parametrize("macro", ["bail", "anyhow", "anyhow::bail", "anyhow::anyhow"])
def test_anyhow_macros_plain_or_path_qualified_are_error_sites(macro):
    site = only(in_fn(f'return Err({macro}!("no device named {{name}}"));\n'))
    assert (site.form, site.error_type, site.error_class) == (
        f"{macro.split('::')[-1]}!",
        "error",
        None,
    )
    assert site.pattern == f"no device named {WILDCARD}"


def test_ensure_message_is_the_first_string_after_the_condition():
    site = only(in_fn('ensure!(check(a, "x, y") == b, "shape {} is not {}", a, b);\n'))
    assert (site.message, site.form, site.error_type) == ("shape {} is not {}", "ensure!", "error")


def test_ensure_without_a_message_is_no_site():
    assert sites(in_fn('ensure!(name == "x");\n')) == []


def test_error_attributes_name_the_enum_and_variant_or_the_struct():
    found = sites("""\
        #[derive(Debug, Error)]
        pub enum CheckpointerError {
            /// IO error.
            #[error("I/O Error: `{0}`")]
            IOError(std::io::Error),
            #[error(transparent)]
            Other(anyhow::Error),
        }

        #[derive(Debug, Error)]
        #[error("record {name} is missing")]
        pub struct Missing { name: String }
        """)
    assert [(s.line, s.message, s.error_class, s.form, s.error_type) for s in found] == [
        (4, "I/O Error: `{0}`", "CheckpointerError::IOError", "#[error]", "error"),
        (11, "record {name} is missing", "Missing", "#[error]", "error"),
    ]
    assert found[0].pattern == f"I/O Error: `{WILDCARD}`"


@pytest.mark.parametrize(
    ("literal", "message"),
    [('r"a \\d b"', "a \\d b"), ('r#"a "b" c"#', 'a "b" c'), ('r##"x "#y"##', 'x "#y')],
)
def test_raw_strings_are_taken_as_written(literal, message):
    assert only(in_fn(f"x.expect({literal});\n")).message == message


def test_escaped_quotes_and_backslashes_are_decoded():
    site = only(in_fn(r'x.expect("a \"b\" c\\d");' + "\n"))
    assert site.message == 'a "b" c\\d'
    assert site.pattern == r'a "b" c\\d'


def test_a_line_continuation_drops_the_break_and_the_next_lines_indentation():
    site = only(in_fn('x.expect("first part \\\n            second part");\n'))
    assert site.message == "first part second part"


def test_newline_unicode_and_hex_escapes_are_decoded():
    site = only(in_fn(r'panic!("line\tone\nline two \u{e9}\x41 {}", x);' + "\n"))
    assert site.message == "line\tone\nline two \u00e9A {}"
    assert site.pattern == "line\tone\\nline two \u00e9A .{0,1000}"
    assert re2.search(site.pattern, "line\tone\nline two \u00e9A 42")


def test_metacharacters_are_escaped_so_the_pattern_matches_the_text_itself():
    site = only(in_fn(r'x.expect("a.b*c+d? (e) [f] ^g$ h|i \\j {k}");' + "\n"))
    assert site.message == "a.b*c+d? (e) [f] ^g$ h|i \\j {k}"
    assert re2.fullmatch(site.pattern, site.message)
    assert not re2.fullmatch(site.pattern, site.message.replace(".", "x"))


def test_byte_and_c_strings_are_not_messages():
    assert sites(in_fn('panic!(b"bytes");\nx.expect(c"c string");\nx.expect(br"raw");\n')) == []


def test_items_under_cfg_test_are_skipped():
    found = sites("""\
        fn shipped() { x.expect("shipped code"); }

        #[cfg(test)]
        mod tests {
            fn helper() { x.expect("test helper"); }
        }

        #[cfg(all(test, feature = "std"))]
        fn also_test() { panic!("test only"); }

        #[cfg(not(test))]
        fn not_test() { panic!("not test code"); }
        """)
    assert [s.message for s in found] == ["shipped code", "not test code"]


@pytest.mark.parametrize("attribute", ["#[test]", "#[tokio::test]", "#[burn::test(flavor = 1)]"])
def test_test_functions_are_skipped(attribute):
    source = f'{attribute}\n/// Doc.\nfn case() {{ panic!("in a test"); }}\nfn other() {{}}\n'
    assert sites(source) == []


def test_a_file_marked_cfg_test_inside_is_skipped():
    assert sites('#![cfg(test)]\nfn helper() { panic!("in a test file"); }\n') == []


@pytest.mark.parametrize("message", ["{}", "{}: {}", "{err}", "{0:?} -> {1}"])
def test_a_message_without_a_letter_in_its_literal_text_is_no_site(message):
    assert sites(in_fn(f'panic!("{message}", a, b);\n')) == []


def test_sites_come_in_file_order_by_the_line_they_report():
    found = sites(
        in_fn("""\
        let a = x
            .y(panic!("reported first"))
            .expect("reported second"); b.expect("third");
        """)
    )
    assert [(s.message, s.line) for s in found] == [
        ("reported first", 3),
        ("reported second", 4),
        ("third", 4),
    ]


def test_the_snippet_is_a_short_enclosing_function():
    site = only('// head\n\nfn short() {\n    let a = 1;\n    panic!("short fn");\n}\n')
    assert (site.snippet_start, site.snippet_end) == (3, 6)


def test_the_snippet_of_a_long_function_is_a_window_clipped_to_it():
    body = "".join(f"    step({n});\n" for n in range(60))
    source = f'fn long() {{\n    panic!("near the top");\n{body}    panic!("in the middle");\n}}\n'
    top, middle = sites(source)
    assert (top.line, top.snippet_start, top.snippet_end) == (2, 1, 12)
    assert (middle.line, middle.snippet_start, middle.snippet_end) == (63, 53, 64)


def test_the_snippet_outside_any_function_is_clipped_to_the_file():
    site = only('#[derive(Error)]\nenum E {\n    #[error("bad thing")]\n    Bad,\n}\n')
    assert (site.line, site.snippet_start, site.snippet_end) == (3, 1, 5)


@pytest.mark.parametrize(
    "source",
    ['#[error("orphan")]\n', 'enum { #[error("no name")] A }', 'fn f() { x.expect("unclosed'],
)
def test_broken_source_is_scanned_without_raising(source):
    assert isinstance(sites(source), list)


@pytest.mark.parametrize(
    ("path", "scanned"),
    [
        ("crates/burn-train/src/learner/base.rs", True),
        ("src/main.py", True),
        ("crates/x/tests/integration.rs", False),
        ("crates/x/src/test/helpers.rs", False),
        ("crates/x/benches/speed.rs", False),
        ("examples/mnist/src/main.rs", False),
        ("fuzz/fuzz_targets/parse.rs", False),
        ("crates/x/src/lib.c", False),
        ("README.md", False),
    ],
)
def test_only_rust_and_python_outside_test_bench_and_example_code_is_scanned(path, scanned):
    assert is_scanned(path) is scanned


def test_a_test_path_yields_no_sites():
    assert find_sites("crates/x/tests/it.rs", b'fn f() { panic!("in a test"); }\n') == []


def test_a_file_that_is_not_utf8_is_a_source_error_naming_path_and_offset():
    with pytest.raises(SourceError, match=r"crates/x/src/lib\.rs.*byte 12"):
        find_sites("crates/x/src/lib.rs", b'fn f() { x("\xff"); }\n')


def test_a_site_survives_a_round_trip_through_json():
    site = only(in_fn('panic!("lost {}", x);\n'))
    assert Site.from_json(site.to_json()) == site
    assert site.to_json()["pattern"] == "lost .{0,1000}"


def test_burn_learner_checkpoint_expects_are_found_on_their_lines():
    found = burn_sites(MAIN, "crates/burn-train/src/learner/base.rs")
    expected = {
        167: "Can delete model checkpoint.",
        170: "Can delete optimizer checkpoint.",
        173: "Can delete learning rate scheduler checkpoint.",
        178: "Can save model checkpoint.",
        181: "Can save optimizer checkpoint.",
        184: "Can save learning rate scheduler checkpoint.",
        200: "Can load model checkpoint.",
        206: "Can load optimizer checkpoint.",
        212: "Can load learning rate scheduler checkpoint.",
    }
    assert {line: found[line].message for line in expected} == expected
    assert {found[line].form for line in expected} == {"expect"}
    assert found[178].pattern == r"Can save model checkpoint\."


def test_burn_async_checkpointer_panic_and_expect_are_found():
    found = burn_sites(MAIN, "crates/burn-train/src/checkpoint/async_checkpoint.rs")
    assert (found[46].message, found[46].form) == ("Error when saving the state: {err}", "panic!")
    assert found[46].pattern == "Error when saving the state: .{0,1000}"
    assert re2.search(found[46].pattern, "Error when saving the state: I/O Error: `disk full`")
    assert (found[118].message, found[118].form) == (
        "Can send message to checkpointer thread.",
        "expect",
    )


def test_burn_0_19_async_checkpointer_expect_is_found():
    found = burn_sites(V0_19_1, "crates/burn-train/src/checkpoint/async_checkpoint.rs")
    assert (found[40].message, found[40].form) == ("Can save the state.", "expect")


def test_two_thousand_typical_files_scan_in_well_under_ten_seconds():
    body = "".join(f'    let v{n} = read({n}).expect("Can read part {n}.");\n' for n in range(5))
    filler = "".join(f"fn helper{n}(a: u32) -> u32 {{\n    a * {n} + 1\n}}\n\n" for n in range(40))
    source = f"use std::io;\n\n{filler}pub fn run() {{\n{body}}}\n".encode()
    started = time.perf_counter()
    for n in range(2000):
        assert len(find_sites(f"crates/x/src/m{n}.rs", source)) == 5
    assert time.perf_counter() - started < 10
