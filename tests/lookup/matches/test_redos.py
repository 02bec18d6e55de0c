"""No text, however crafted, makes a lookup slow; patterns RE2 cannot run are refused.

The patterns below are the classic catastrophic ones: a backtracking engine (Python's
re) takes time exponential in the pumped input's length on them. RE2 runs them in
time linear in the text, so the answers come within a bound far below a hang; the
bound here is a guard against a hang, not a speed target (bench/lookup.py measures).
"""

import re
import threading
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from errorkb.kb.models import ErrorEntry
from errorkb.lookup.lookups import MAX_TEXT_BYTES, look_up
from errorkb.lookup.matches.pattern_set import MAX_MATCHES
from tests.admin.admin_client import change_post, client_for
from tests.builders import import_records, make_record, write_json
from tests.kb.people import curator

# (pattern, a line pumped to make a backtracking engine despair, a line it matches)
CATASTROPHIC = [
    (r"(a+)+$", "a" * 60_000 + "!", "aaa"),
    (r"(a|aa)+$", "a" * 60_000 + "!", "aa"),
    (r"(a|a?)+b", "a" * 60_000, "ab"),
    (r"(.*a){12}$", "a" * 60_000 + "!", "a" * 12),
    (r"^(([a-z])+.)+[A-Z]([a-z])+$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!" * 1000, "aa.Bb"),
    (r"(x+x+)+y", "x" * 60_000, "xxy"),
    (
        r"Training interrupted: .{1,1000}z$",
        "Training interrupted: " + "z" * 200_000,
        "Training interrupted: z z",
    ),
]
HANG_GUARD_S = 20


def answer_within(seconds: float, work):
    """work()'s result, or a failure if it has not answered in `seconds`."""
    result, error = [], []

    def run():
        try:
            result.append(work())
        except Exception as exc:  # noqa: BLE001 - handed to the test thread
            error.append(exc)
        finally:
            connection.close()  # the thread's own connection

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"no answer within {seconds} s"
    if error:
        raise error[0]
    return result[0]


def published(*patterns: str) -> list[ErrorEntry]:
    records = [
        make_record(f"Catastrophe {i}.", messagePattern=pattern)
        for i, pattern in enumerate(patterns)
    ]
    return import_records(*records)


# The lookup runs in a thread of its own, which reads the entries over its own
# connection: they must be committed.
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("pattern", "pumped", "matching"), CATASTROPHIC, ids=[p for p, _, _ in CATASTROPHIC]
)
def test_a_catastrophic_pattern_over_a_pumped_text_answers(pattern, pumped, matching):
    entries = published(*[p for p, _, _ in CATASTROPHIC])
    lines = [pumped] * max(1, (MAX_TEXT_BYTES - 1000) // (len(pumped) + 1))
    text = "\n".join([*lines, matching])

    found = answer_within(HANG_GUARD_S, lambda: look_up(text))

    entry = entries[[p for p, _, _ in CATASTROPHIC].index(pattern)]
    ours = [m for m in found.matches if m.entry.id == entry.id]
    assert [(m.text_line, m.matched) for m in ours] == [(len(lines) + 1, _match(pattern, matching))]


def _match(pattern: str, line: str) -> str:
    return re.search(pattern, line).group(0)


def test_python_re_would_backtrack_on_the_same_pattern():
    """What the bound guards against: re's time doubles with each extra character."""
    import time

    def seconds(n: int) -> float:
        started = time.perf_counter()
        re.search(r"(a+)+$", "a" * n + "!")
        return time.perf_counter() - started

    assert seconds(22) > 1.5 * seconds(18)


@pytest.mark.django_db(transaction=True)
def test_a_text_matching_every_pattern_on_every_line_stops_at_its_bound():
    import_records(*[make_record(f"Boom {i:03d}.") for i in range(120)])
    line = " ".join(f"Boom {i:03d}." for i in range(120))
    text = "\n".join([line] * ((MAX_TEXT_BYTES - 1) // (len(line) + 1)))

    found = answer_within(HANG_GUARD_S, lambda: look_up(text))

    assert len(found.matches) == MAX_MATCHES
    assert found.truncated


@pytest.mark.parametrize(
    ("pattern", "says"),
    [
        (r"(a*)\1", "invalid escape sequence: \\1"),
        (r"Can save(?= model)", "invalid perl operator: (?="),
        (r"(?<!no )space", "invalid perl operator: (?<"),
        (r"(?!x)y", "invalid perl operator: (?!"),
        (r"a*+", "bad repetition operator: *+"),
        (r"((a{1000}){1000}){1000}", "invalid repetition size"),
    ],
)
def test_a_pattern_re2_cannot_run_is_refused_at_import_naming_the_entry(
    db, tmp_path, pattern, says
):
    record = make_record("Catastrophe.", messagePattern=pattern)
    path = write_json(tmp_path / "bad.json", {"datasetVersion": "v", "records": [record]})

    with pytest.raises(CommandError) as refused:
        call_command("import_errors", str(path), stdout=StringIO())

    message = str(refused.value)
    assert f"record {record['id']} (#0), field 'messagePattern': does not compile" in message
    assert says in message
    assert not ErrorEntry.objects.exists()


def test_a_pattern_that_does_not_compile_written_past_the_checks_spoils_no_other_lookup(db):
    good, bad = published(r"Engine stalled\.", r"Fuel low\.")
    ErrorEntry.objects.filter(id=bad.id).update(message_pattern=r"(a*)\1")

    found = look_up("Engine stalled.\nFuel low.\naa")

    assert [m.entry.id for m in found.matches] == [good.id]


@pytest.mark.parametrize("pattern", [r"(a*)\1", r"Can save(?= model)", r"a*+"])
def test_the_admin_refuses_to_save_a_pattern_re2_cannot_run(db, pattern):
    (draft,) = import_records(make_record("Catastrophe.", status="draft"))
    editor = client_for(curator("alice"))

    response = editor.post(
        f"/admin/kb/errorentry/{draft.pk}/change/", change_post(draft, message_pattern=pattern)
    )

    assert response.status_code == 200  # the form again, with the error
    assert "Does not compile:" in response.content.decode()
    assert ErrorEntry.objects.get(pk=draft.pk).message_pattern == r"Catastrophe\."


@pytest.mark.django_db(transaction=True)
def test_a_text_naming_locations_everywhere_answers():
    import_records(*[make_record(f"Boom {i:03d}.") for i in range(60)])
    header = "thread 'main' panicked at src/engine.rs:12:5: " * 2000
    frames = "\n".join(f'  File "/x/y/z{i}.py", line {i}, in f' for i in range(3000))
    messages = " ".join(f"Boom {i:03d}." for i in range(60))
    text = "\n".join([header, messages, frames, messages] * 3)[:MAX_TEXT_BYTES]

    found = answer_within(HANG_GUARD_S, lambda: look_up(text))

    assert len(found.matches) == MAX_MATCHES
    assert {m.fits for m in found.matches} == {"line"}


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "unit",
    [
        "thread 'main' panicked at src/engine.rs:12:5: ",
        "Error: Error: ",
        "thread '" + "x" * 190 + "' panicked at '",
        "PANIC => panicked at ",
    ],
    ids=["panic-headers", "errors", "long-thread-names", "logged-panics"],
)
def test_a_text_of_story_headers_on_one_line_or_many_answers(unit):
    """The story reader's candidates are bounded in number and each reads a bounded
    window: a line of thousands of headers, or a text of one header a line, answers."""
    import_records(make_record("Boom 000."))
    one_line = (unit * (MAX_TEXT_BYTES // len(unit)))[: MAX_TEXT_BYTES - 20]
    many_lines = "\n".join([unit + "Boom 000."] * (MAX_TEXT_BYTES // (len(unit) + 10)))

    for text in (one_line, many_lines[:MAX_TEXT_BYTES]):
        found = answer_within(HANG_GUARD_S, lambda text=text: look_up(text))
        assert len(found.story) <= 50
