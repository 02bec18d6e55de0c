"""Any sequence of edits and reverts: a revert gives back exactly the content it names."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.django import TestCase

from errorkb.kb import editing, revisions
from errorkb.kb.models import ErrorEntry
from tests.builders import import_records, make_record
from tests.kb.edits import edit
from tests.kb.people import curator

TAG_POOL = ["rust", "panic", "io", "disk", "checkpoint", "gpu"]
text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=40)
edits = st.fixed_dictionaries(
    {
        "documentation": text,
        "solutions": st.lists(text.filter(str.strip).map(str.strip), max_size=4),
        "severity": st.sampled_from(ErrorEntry.Severity.values),
        "tags": st.lists(st.sampled_from(TAG_POOL), unique=True, max_size=4),
        "related": st.lists(st.sampled_from([0, 1]), unique=True, max_size=2),
    }
)
steps = st.lists(st.one_of(edits, st.integers(min_value=0, max_value=50)), min_size=1, max_size=8)


class RevertRestoresContent(TestCase):
    @settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(steps)
    def test_a_revert_restores_the_exact_content_of_its_revision(self, plan):
        others = import_records(make_record("Other one."), make_record("Other two."))
        entry = import_records(make_record("Can save model checkpoint.", status="draft"))[0]
        user = curator()
        seen = {}  # version pk -> the content the entry held when that revision was made
        seen[revisions.history(entry)[0].pk] = editing.content_of(editing.snapshot(entry))

        for step in plan:
            if isinstance(step, dict):
                entry = edit(
                    entry,
                    {k: step[k] for k in ("documentation", "solutions", "severity")},
                    user,
                    tags=step["tags"],
                    related=[others[i].pk for i in step["related"]],
                )
            else:
                versions = list(revisions.history(entry))
                target = versions[step % len(versions)]
                entry = revisions.revert(entry, target, user)
                now = editing.content_of(editing.snapshot(entry))
                assert now == seen[target.pk]
                assert now == editing.content_of(revisions.version_snapshot(target))
            newest = revisions.history(entry)[0]
            content = editing.content_of(editing.snapshot(entry))
            assert editing.content_of(revisions.version_snapshot(newest)) == content
            seen[newest.pk] = content
        assert len(seen) == len(plan) + 1  # one revision per step, none skipped
