"""reverse() for the addresses every page and record repeats, for a fraction of its cost.

Django's reverse() tries each candidate pattern with the arguments, some 15 µs a call,
and an entry page builds about twenty addresses (its related entries, its tags, the
site's links). Here an address is reversed once per view, argument names, URLconf and
script prefix, with a stand-in for each argument, and each later call puts its quoted
values where the stand-ins were, as reverse() quotes them.

The one check reverse() makes that this skips is the argument's converter pattern:
only values that reverse() would take unchanged are put in (letters, digits and
`-._~`, which every converter of errorkb's addresses takes and quoting leaves alone);
any other value goes through reverse() itself, which refuses it or quotes it.
"""

import re
from urllib.parse import quote

from django.urls import NoReverseMatch, get_script_prefix, get_urlconf, reverse

_PLAIN_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._~-]*")
_STAND_IN = "z{}standin"  # no address of errorkb holds it, and every converter takes it
_NONE = object()  # an address no stand-in gives: reverse() every time
_TEMPLATES: dict[tuple, object] = {}


def address(viewname: str, **kwargs: str) -> str:
    """reverse(viewname, kwargs=kwargs), from a template once one was made."""
    key = (viewname, tuple(kwargs), get_urlconf(), get_script_prefix())
    template = _TEMPLATES.get(key)
    if template is None:
        template = _TEMPLATES[key] = _template(viewname, tuple(kwargs))
    values = [str(value) for value in kwargs.values()]
    if template is _NONE or not all(_PLAIN_RE.fullmatch(value) for value in values):
        return reverse(viewname, kwargs=kwargs)
    pieces, order = template
    parts = [pieces[0]]
    for position, piece in zip(order, pieces[1:], strict=True):
        parts += [values[position], piece]
    return "".join(parts)


def _template(viewname: str, names: tuple[str, ...]):
    """The stand-ins' address split around them, and which argument each gap takes; or _NONE."""
    stand_ins = [_STAND_IN.format(n) for n in range(len(names))]
    try:
        url = reverse(viewname, kwargs=dict(zip(names, stand_ins, strict=True)))
    except NoReverseMatch:
        return _NONE
    if any(url.count(stand_in) != 1 or quote(stand_in) != stand_in for stand_in in stand_ins):
        return _NONE
    order = sorted(range(len(names)), key=lambda n: url.index(stand_ins[n]))
    pieces = []
    for n in order:
        head, url = url.split(stand_ins[n])
        pieces.append(head)
    pieces.append(url)
    return pieces, order
