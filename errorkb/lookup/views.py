"""Placeholder: the lookup page."""

from django.http import HttpResponse


def lookup_page(request):
    return HttpResponse("lookup")
