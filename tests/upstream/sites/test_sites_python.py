"""Error sites in Python source: `raise X("…")` and the string formats its message is made by."""

import textwrap

import pytest
import re2

from errorkb.upstream.sites.error_sites import Site, find_sites, is_scanned

WILDCARD = ".{0,1000}"


def sites(source: str, path: str = "pkg/module.py") -> list[Site]:
    return find_sites(path, textwrap.dedent(source).encode())


def only(source: str) -> Site:
    (site,) = sites(source)
    return site


def test_raise_of_a_class_with_a_string_is_an_exception_site():
    site = only('import x\n\nraise ValueError("bad value for the field")\n')
    assert (site.message, site.error_class, site.form) == (
        "bad value for the field",
        "ValueError",
        "raise",
    )
    assert (site.error_type, site.line) == ("exception", 3)
    assert site.pattern == "bad value for the field"


def test_the_raised_class_is_named_as_written():
    site = only('raise errors.ConfigError("missing key", key)\n')
    assert site.error_class == "errors.ConfigError"


def test_a_parenthesised_multi_line_raise_reports_the_raise_line():
    site = only("""\
        def f():
            raise TypeError(
                "expected a list"
                " of names"
            ) from None
        """)
    assert (site.message, site.line) == ("expected a list of names", 2)


def test_fstring_placeholders_are_kept_as_written_with_conversion_and_spec():
    site = only('raise ValueError(f"bad {x!r}: {n:>8} of {total}")\n')
    assert site.message == "bad {x!r}: {n:>8} of {total}"
    assert site.pattern == f"bad {WILDCARD}: {WILDCARD} of {WILDCARD}"
    assert re2.search(site.pattern, "bad 'abc':        3 of 10")


def test_fstring_doubled_braces_are_kept_and_match_one_brace():
    site = only('raise KeyError(f"no {{{name}}} key")\n')
    assert site.message == "no {{{name}}} key"
    assert site.pattern == r"no \{.{0,1000}\} key"


@pytest.mark.parametrize(
    "specifier", ["%s", "%d", "%r", "%i", "%f", "%x", "%(name)s", "%-5d", "%.2f", "%08.3f"]
)
def test_percent_placeholders_become_wildcards(specifier):
    site = only(f'raise ValueError("got {specifier} here" % value)\n')
    assert site.message == f"got {specifier} here"
    assert site.pattern == f"got {WILDCARD} here"


def test_a_doubled_percent_is_one_percent_sign():
    site = only('raise ValueError("%d%% of %s done" % (n, what))\n')
    assert site.message == "%d%% of %s done"
    assert site.pattern == f"{WILDCARD}% of {WILDCARD} done"
    assert re2.search(site.pattern, "40% of upload done")


def test_a_percent_sign_in_an_unformatted_string_is_literal():
    site = only('raise ValueError("100%s sure, {x}")\n')
    assert site.pattern == r"100%s sure, \{x\}"


def test_str_format_placeholders_become_wildcards():
    site = only('raise ValueError("expected {} got {name!r:>4}, {{literal}}".format(a, name=b))\n')
    assert site.message == "expected {} got {name!r:>4}, {{literal}}"
    assert site.pattern == f"expected {WILDCARD} got {WILDCARD}, \\{{literal\\}}"


def test_implicit_concatenation_joins_the_parts_each_in_its_own_syntax():
    site = only('raise ValueError(f"{count} items" " in {braces}" \'!\')\n')
    assert site.message == "{count} items in {braces}!"
    assert site.pattern == f"{WILDCARD} items in \\{{braces\\}}!"


def test_escape_sequences_are_decoded_in_strings_and_fstrings():
    site = only(r'raise ValueError("a\tb \"q\" \u00e9\x41\n" f"{x} \\ \N{BULLET} it\'s")' + "\n")
    assert site.message == 'a\tb "q" \u00e9A\n{x} \\ \u2022 it\'s'
    assert site.pattern == f'a\tb "q" \u00e9A\\n{WILDCARD} \\\\ \u2022 it\'s'


def test_a_line_continuation_inside_a_string_is_removed():
    site = only('raise ValueError("first \\\nsecond")\n')
    assert site.message == "first second"


def test_raw_strings_are_taken_as_written():
    site = only(r'raise ValueError(r"no \d+ in " rf"{name}\n")' + "\n")
    assert site.message == r"no \d+ in {name}\n"
    assert site.pattern == f"no \\\\d\\+ in {WILDCARD}\\\\n"


@pytest.mark.parametrize(
    "statement",
    [
        "raise ValueError(message)",
        "raise ValueError",
        "raise",
        "raise ValueError()",
        'raise ValueError(detail="keyword only")',
        'raise ValueError(*args, "after a splat")',
        'raise ValueError(b"bytes")',
        'raise ValueError(prefix + "joined")',
        'raise ValueError(", ".join(names))',
        'raise make_error("not a call of a class")()',
    ],
)
def test_a_raise_without_a_literal_message_is_no_site(statement):
    assert sites(f"try:\n    pass\nexcept E:\n    {statement}\n") == []


@pytest.mark.parametrize("message", ['"{}"', 'f"{a}: {b}"', '"%s, %d" % (a, b)', '"---"'])
def test_a_message_without_a_letter_in_its_literal_text_is_no_site(message):
    assert sites(f"raise ValueError({message})\n") == []


def test_the_snippet_is_the_short_enclosing_def():
    site = only("""\
        import os


        class Config:
            def load(self, path):
                if not os.path.exists(path):
                    raise FileNotFoundError(f"no config at {path}")
                return path
        """)
    assert (site.line, site.snippet_start, site.snippet_end) == (7, 5, 8)


def test_the_snippet_of_a_long_def_is_a_window_clipped_to_it():
    body = "".join(f"    step({n})\n" for n in range(50))
    site = only(f'def long():\n{body}    raise RuntimeError("at the end")\n\nx = 1\n')
    assert (site.line, site.snippet_start, site.snippet_end) == (52, 42, 52)


def test_the_snippet_at_module_level_is_clipped_to_the_file():
    site = only('import sys\nif sys.version_info < (3,):\n    raise ImportError("too old")\n')
    assert (site.snippet_start, site.snippet_end) == (1, 3)


def test_sites_come_in_file_order():
    found = sites('raise A("one")\ndef f():\n    raise B("two")\nraise C("three")\n')
    assert [(s.message, s.line) for s in found] == [("one", 1), ("two", 3), ("three", 4)]


def test_a_malformed_escape_is_no_site_and_no_crash():
    assert sites('raise ValueError(f"bad \\N escape {x}")\n') == []


@pytest.mark.parametrize(
    ("path", "scanned"),
    [
        ("pkg/module.py", True),
        ("pkg/testing.py", True),
        ("pkg/test_module.py", False),
        ("pkg/module_test.py", False),
        ("pkg/conftest.py", False),
        ("tests/helpers.py", False),
        ("pkg/examples/demo.py", False),
    ],
)
def test_python_test_files_are_not_scanned(path, scanned):
    assert is_scanned(path) is scanned


def test_a_test_file_yields_no_sites():
    assert sites('raise ValueError("in a test")\n', path="pkg/test_module.py") == []
