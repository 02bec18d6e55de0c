"""The lookup page: paste a text, see the entries it carries (or land on the one it does).

A reader who asks for it ("keep this lookup") gets an address to share, /lookup/<key>/,
which runs the kept text's lookup again; without that nothing of the text is stored.
"""

from django.http import Http404, HttpResponseRedirect
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods
from rest_framework.exceptions import Throttled

from errorkb.http.throttles import LookupThrottle, check_throttle

from .kept import keep_lookup, kept_lookup
from .lookups import TextError, check_body_size, look_up


# A lookup changes nothing, so a forged cross-site post gains nothing; and without a
# token to check, the home page that carries the form can stay cached for everyone.
# (A kept one stores a text and gives its address to the one who posted it alone.)
@csrf_exempt
@require_http_methods(["GET", "HEAD", "POST"])
def lookup_page(request):
    if request.method != "POST":
        return render(request, "lookup/lookup.html", {})
    context = {}
    try:
        check_throttle(request, LookupThrottle)
        check_body_size(request.META.get("CONTENT_LENGTH"))
        context["text"] = text = request.POST.get("text", "")
        if request.POST.get("keep"):
            return HttpResponseRedirect(keep_lookup(text).get_absolute_url(), status=303)
        found = look_up(text)
    except Throttled as refused:
        return _refused(request, context, str(refused.detail), 429, refused.wait)
    except TextError as refused:
        return _refused(request, context, str(refused), refused.status)
    if _one_entry_says_it_all(found) and (url := found.matches[0].url):
        # One entry only: go straight to it, as a search engine's lucky guess would (unless
        # it has no address: names.page_address; the page then shows it unlinked).
        return HttpResponseRedirect(url, status=303)
    return render(request, "lookup/lookup.html", _found(context, found))


@require_http_methods(["GET", "HEAD"])
def kept_page(request, key: str):
    """A kept lookup, run again on its text: its whole story, never a redirect."""
    kept = kept_lookup(key)
    if kept is None:
        raise Http404("No lookup is kept under this address.")
    context = {"text": kept.text, "kept": request.build_absolute_uri(kept.get_absolute_url())}
    try:
        check_throttle(request, LookupThrottle)
    except Throttled as refused:
        return _refused(request, context, str(refused.detail), 429, refused.wait)
    return render(request, "lookup/lookup.html", _found(context, look_up(kept.text)))


def _found(context: dict, found) -> dict:
    followed = [finding for finding in found.story if finding is not found.cause]
    return {**context, "found": found, "followed": followed, "searched": True}


def _refused(request, context: dict, error: str, status: int, retry_after: int | None = None):
    response = render(request, "lookup/lookup.html", {**context, "error": error}, status=status)
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response


def _one_entry_says_it_all(found) -> bool:
    """One entry, and no panic in the text that it does not explain: the cause of a
    cascade must not be skipped on the way to the entry of what followed it."""
    if len(found.matches) != 1:
        return False
    entry = found.matches[0].entry
    return all(finding.match and finding.match.entry == entry for finding in found.story)
