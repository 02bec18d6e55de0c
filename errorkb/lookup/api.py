"""Placeholder: the lookup API."""

from rest_framework.response import Response
from rest_framework.views import APIView


class LookupAPI(APIView):
    def post(self, request):
        return Response({"matches": []})
