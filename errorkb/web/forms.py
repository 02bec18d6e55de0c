"""Forms readers fill in on the public site."""

from django import forms

from errorkb.kb.models import Report


class ReportForm(forms.Form):
    """A reader's "report a problem" form for one entry."""

    message = forms.CharField(
        max_length=Report.MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 8}),
        label="What is wrong?",
    )
    contact = forms.EmailField(
        required=False,
        label="Your email (optional)",
        help_text="Only if you would like a reply.",
    )
