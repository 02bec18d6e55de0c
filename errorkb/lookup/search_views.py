"""Placeholder: the search page and API (filled in by the search work)."""

from django.http import HttpResponse
from rest_framework.response import Response
from rest_framework.views import APIView


def search_page(request):
    return HttpResponse("search")


class SearchAPI(APIView):
    def get(self, request):
        return Response({"results": []})
