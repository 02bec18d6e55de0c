"""Driving the entry admin as a browser would: logged-in clients and form posts."""

import json

from django.test import Client

from errorkb.kb.models import ErrorEntry


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def change_post(entry, **changes) -> dict:
    """The admin change form's POST for the entry as it is, with changes applied."""
    entry = ErrorEntry.objects.for_record().get(pk=entry.pk)
    data = {
        "slug": entry.slug,
        "error_message": entry.error_message,
        "message_pattern": entry.message_pattern,
        "error_type": entry.error_type,
        "severity": entry.severity,
        "error_code": entry.error_code or "",
        "error_class": entry.error_class or "",
        "http_status": entry.http_status or "",
        "file_path": entry.file_path or "",
        "line_number": entry.line_number or "",
        "source_code": entry.source_code or "",
        "source_code_start": entry.source_code_start or "",
        "source_code_end": entry.source_code_end or "",
        "github_url": entry.github_url or "",
        "analyzed_sha": entry.analyzed_sha or "",
        "analyzed_at": entry.analyzed_at.strftime("%Y-%m-%d %H:%M:%S.%f")
        if entry.analyzed_at
        else "",
        "summary": entry.summary,
        "documentation": entry.documentation,
        "trigger_scenarios": entry.trigger_scenarios,
        "common_situations": entry.common_situations,
        "example_fix": entry.example_fix or "",
        "handling_strategy": entry.handling_strategy or "",
        "validation_code": entry.validation_code or "",
        "type_guard": entry.type_guard or "",
        "try_catch_pattern": entry.try_catch_pattern or "",
        "background_tag": entry.background_tag or "",
        "applies_to": "" if entry.applies_to is None else json.dumps(entry.applies_to),
        "fires_at": "" if entry.fires_at is None else json.dumps(entry.fires_at),
        "schema_version": entry.schema_version,
        "base_version": entry.edit_version,
        "change_note": "",
    }
    data.update(list_post("solutions", entry.solutions))
    data.update(list_post("prevention_tips", entry.prevention_tips))
    data.update(
        inline_post(
            "entry_tags", [(t.id, t.position, t.tag_id) for t in entry.entry_tags.all()], "tag"
        )
    )
    data.update(
        inline_post(
            "outgoing_links",
            [(link.id, link.position, link.target_id) for link in entry.outgoing_links.all()],
            "target",
        )
    )
    data.update({"reports-TOTAL_FORMS": 0, "reports-INITIAL_FORMS": 0})
    for key, value in changes.items():
        if key in ("solutions", "prevention_tips"):
            data = {k: v for k, v in data.items() if not k.startswith(f"{key}_")}
            data.update(list_post(key, value))
        else:
            data[key] = value
    return data


def form_errors(response):
    context = response.context
    return context["adminform"].form.errors, [
        fs.formset.errors for fs in context["inline_admin_formsets"]
    ]


def list_post(name, items) -> dict:
    data = {f"{name}_{i}": item for i, item in enumerate(items)}
    data[f"{name}_count"] = len(items)
    return data


def inline_post(prefix, rows, fk) -> dict:
    data = {f"{prefix}-TOTAL_FORMS": len(rows), f"{prefix}-INITIAL_FORMS": len(rows)}
    for i, (pk, position, target) in enumerate(rows):
        data.update(
            {
                f"{prefix}-{i}-id": pk,
                f"{prefix}-{i}-position": position,
                f"{prefix}-{i}-{fk}": target,
            }
        )
    return data
