"""The verification state's label for a stored state value, as lists show it."""

from django import template

from errorkb.verification.models import State

register = template.Library()


@register.filter
def state_label(value: str) -> str:
    return State(value).label
