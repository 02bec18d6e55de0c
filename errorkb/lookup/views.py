"""The lookup page: paste a text, see the entries it carries (or land on the one it does)."""

from django.http import HttpResponseRedirect
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from errorkb.http.limits import LOOKUPS, RateLimited, charge_request

from .lookups import TextError, check_body_size, look_up


# A lookup changes nothing, so a forged cross-site post gains nothing; and without a
# token to check, the home page that carries the form can stay cached for everyone.
@csrf_exempt
@require_http_methods(["GET", "HEAD", "POST"])
def lookup_page(request):
    if request.method != "POST":
        return render(request, "lookup/lookup.html", {})
    context = {}
    try:
        charge_request(request, LOOKUPS)
        check_body_size(request.META.get("CONTENT_LENGTH"))
        context["text"] = text = request.POST.get("text", "")
        found = look_up(text)
    except RateLimited as limited:
        context["error"] = str(limited)
        response = render(request, "lookup/lookup.html", context, status=429)
        response["Retry-After"] = str(limited.retry_after)
        return response
    except TextError as refused:
        context["error"] = str(refused)
        return render(request, "lookup/lookup.html", context, status=refused.status)
    if _one_entry_says_it_all(found) and (url := found.matches[0].entry.url):
        # One entry only: go straight to it, as a search engine's lucky guess would (unless
        # it has no address: names.page_address; the page then shows it unlinked).
        return HttpResponseRedirect(url, status=303)
    followed = [finding for finding in found.story if finding is not found.cause]
    context.update(found=found, followed=followed, searched=True)
    return render(request, "lookup/lookup.html", context)


def _one_entry_says_it_all(found) -> bool:
    """One entry, and no panic in the text that it does not explain: the cause of a
    cascade must not be skipped on the way to the entry of what followed it."""
    if len(found.matches) != 1:
        return False
    entry = found.matches[0].entry
    return all(finding.match and finding.match.entry == entry for finding in found.story)
