"""Form pieces of the admin: ordered text lists, JSON rows, links and the edit-conflict token."""

import json

from django import forms
from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.utils.html import format_html, format_html_join

from errorkb.http.bodies import DuplicateKey, one_value_a_key
from errorkb.kb.ids import derive_entry_id
from errorkb.kb.models import ErrorEntry
from errorkb.kb.record.lengths import ITEM_LENGTH, ITEMS
from errorkb.kb.record.links import link_error
from errorkb.kb.record.schema import (
    Refusal,
    clean_applies_to,
    clean_fires_at,
    pattern_error,
    summary_error,
)

EXTRA_ITEMS = 2  # empty boxes offered below a list for new items


class ListWidget(forms.Widget):
    """An ordered list of texts as one box per item: empty boxes drop out, extra ones add.

    Items may span lines, which a one-item-per-line textarea could not keep apart.
    """

    def format_value(self, value):
        return list(value or [])

    def render(self, name, value, attrs=None, renderer=None):
        items = self.format_value(value) + [""] * EXTRA_ITEMS
        boxes = format_html_join(
            "\n",
            '<li><textarea name="{}_{}" rows="2" cols="80" aria-label="item {}">{}</textarea></li>',
            ((name, i, i + 1, item) for i, item in enumerate(items)),
        )
        return format_html(
            '<ol class="kb-list" id="{}">{}</ol><input type="hidden" name="{}_count" value="{}">'
            '<p class="help">One item per box, in order. Empty a box to remove its item; '
            "save to get more empty boxes.</p>",
            (attrs or {}).get("id", name),
            boxes,
            name,
            len(items),
        )

    def value_from_datadict(self, data, files, name):
        try:
            count = int(data.get(f"{name}_count", 0))
        except ValueError:
            count = 0
        values = (data.get(f"{name}_{i}", "") for i in range(count))
        return [value.strip() for value in values if value.strip()]

    def value_omitted_from_data(self, data, files, name):
        return f"{name}_count" not in data


class ListField(forms.JSONField):
    widget = ListWidget

    def to_python(self, value):
        if isinstance(value, list):
            return value
        return super().to_python(value)

    def prepare_value(self, value):
        return value

    def bound_data(self, data, initial):
        return initial if self.disabled else data

    def has_changed(self, initial, data):
        return list(initial or []) != list(data or [])

    def validate(self, value):
        super().validate(value)
        if len(value) > ITEMS:
            raise forms.ValidationError(f"Give at most {ITEMS} items.")
        for position, item in enumerate(value, 1):
            if len(item) > ITEM_LENGTH:
                raise forms.ValidationError(
                    f"Item {position} is longer than {ITEM_LENGTH} characters."
                )


class JSONRowsField(forms.JSONField):
    """A JSON array edited as indented text; an empty box is null (the key is absent).

    Read as an API body is (errorkb.http.bodies): a key twice in one object is refused,
    not silently the last one kept, and nesting too deep for json.loads is a refusal.
    """

    widget = forms.Textarea(attrs={"rows": 12, "cols": 100, "class": "vLargeTextField"})

    def to_python(self, value):
        try:
            return super().to_python(value)
        except RecursionError:
            raise forms.ValidationError("Nested too deeply to be rows of a record.") from None
        except DuplicateKey as twice:
            raise forms.ValidationError(f"The key {twice} appears twice in one object.") from None

    def bound_data(self, data, initial):
        try:
            return super().bound_data(data, initial)
        except (RecursionError, DuplicateKey):
            return forms.fields.InvalidJSONInput(data)  # shown back as typed, with the error

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.decoder = _OneValueAKey

    def prepare_value(self, value):
        if value is None:
            return ""
        if isinstance(value, forms.fields.InvalidJSONInput):
            return value  # shown back as typed, with the error
        return json.dumps(value, indent=2, ensure_ascii=False)


class _OneValueAKey(json.JSONDecoder):
    def __init__(self, **kwargs):
        super().__init__(**kwargs, object_pairs_hook=one_value_a_key)


def validate_link(url: str) -> None:
    reason = link_error(url)
    if reason:
        raise forms.ValidationError(f"Not a safe public link: it {reason}.", code="unsafe_link")


class LinkField(forms.URLField):
    """A URL the public pages will link to: http(s) to a real host (errorkb.kb.record.links)."""

    default_validators = [*forms.URLField.default_validators, validate_link]


# A link typed without a scheme is https, as Django 6 will assume; every link a page
# shows must pass errorkb.kb.record.links, so a curator cannot save one that runs script.
HTTPS_LINKS = {models.URLField: {"form_class": LinkField, "assume_scheme": "https"}}


class EntryForm(forms.ModelForm):
    base_version = forms.IntegerField(
        widget=forms.HiddenInput,
        required=False,
        help_text="The edit version this form was opened at.",
    )
    # One box with microseconds: the admin's split date and time boxes would drop them,
    # and an untouched form would then change the entry.
    analyzed_at = forms.DateTimeField(
        required=False,
        widget=forms.DateTimeInput(format="%Y-%m-%d %H:%M:%S.%f"),
        help_text="UTC, as YYYY-MM-DD HH:MM:SS.ffffff",
    )
    github_url = LinkField(required=False, max_length=500, assume_scheme="https")
    change_note = forms.CharField(
        required=False,
        max_length=200,
        help_text="Why you changed it: shown in the entry's history.",
    )

    class Meta:
        model = ErrorEntry
        # The admin's fieldsets choose the fields; these are the ones this form shapes.
        fields = (
            "summary",
            "solutions",
            "prevention_tips",
            "analyzed_at",
            "github_url",
            "applies_to",
            "fires_at",
        )
        field_classes = {
            "solutions": ListField,
            "prevention_tips": ListField,
            "applies_to": JSONRowsField,
            "fires_at": JSONRowsField,
        }
        widgets = {"summary": forms.Textarea(attrs={"rows": 3, "cols": 80})}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk and "base_version" in self.fields:
            self.fields["base_version"].initial = self.instance.edit_version
        # An emptied nullable text is null, as in the dataset, not "": saving an
        # untouched form must not change the entry.
        for name, field in self.fields.items():
            if isinstance(field, forms.CharField) and _nullable(name):
                field.empty_value = None

    def clean(self):
        cleaned = super().clean()
        repository, message = cleaned.get("repository"), cleaned.get("error_message")
        if not self.instance.pk and repository and message:
            entry_id = derive_entry_id(repository.full_name, message, cleaned.get("file_path"))
            if ErrorEntry.objects.filter(pk=entry_id).exists():
                raise forms.ValidationError(
                    f"Entry {entry_id} already explains this message at this file path; "
                    "edit that one instead."
                )
        return cleaned

    def clean_applies_to(self):
        try:
            return clean_applies_to(self.cleaned_data["applies_to"])
        except Refusal as exc:
            raise forms.ValidationError(str(exc)) from None

    def clean_fires_at(self):
        try:
            return clean_fires_at(self.cleaned_data["fires_at"])
        except Refusal as exc:
            raise forms.ValidationError(str(exc)) from None

    def clean_summary(self):
        summary = self.cleaned_data["summary"]
        if reason := summary_error(summary):
            raise forms.ValidationError(f"The summary {reason}.")
        if not summary and self.instance.status == ErrorEntry.Status.PUBLISHED:
            raise forms.ValidationError("A published entry needs a summary.")
        return summary

    def clean_message_pattern(self):
        pattern = self.cleaned_data["message_pattern"]
        reason = pattern_error(pattern)
        if reason:
            raise forms.ValidationError(f"Does not compile: {reason}")
        return pattern


def _nullable(name: str) -> bool:
    try:
        return ErrorEntry._meta.get_field(name).null
    except FieldDoesNotExist:  # a form-only field
        return False
