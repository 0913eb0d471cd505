"""API tokens in admin: every staff user issues their own (choosing scopes their role allows and
a lifetime; the secret is shown once), sees when each was used, and revokes it. Editors see and
revoke everyone's; issuing for someone else is for superusers. `domain.tokens` decides all of it.
"""

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.template.response import TemplateResponse
from django.utils.cache import add_never_cache_headers

from curriculum.domain.roles import TOKEN_ISSUE_ANY_PERMISSION
from curriculum.domain.tokens import (
    HOLDERS,
    SCOPES,
    TokenIssue,
    scopes_allowed,
    token_revoke,
    tokens_visible,
)
from curriculum.models import ApiToken


class TokenForm(forms.ModelForm):
    scopes = forms.MultipleChoiceField(
        widget=forms.CheckboxSelectMultiple,
        required=False,
        help_text="Every token reads; write imports and re-verifies; publish publishes. Only "
        "what the holder's role allows.",
    )

    class Meta:
        model = ApiToken
        fields = ("user", "name")

    issuer = None  # the signed-in user, set by the admin's get_form

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        most = settings.TOKEN_MAX_DAYS  # read per form, so a changed setting holds at once
        self.fields["days"] = forms.IntegerField(
            min_value=1,
            max_value=most,
            initial=most,
            help_text=f"How long it lives: 1 to {most} days (TOKEN_MAX_DAYS).",
        )
        self.fields["scopes"].initial = ["read"]
        users = get_user_model().objects.filter(HOLDERS)
        if self.issuer.has_perm(TOKEN_ISSUE_ANY_PERMISSION):
            self.fields["scopes"].choices = [(s, s) for s in SCOPES]
        else:  # your own tokens, with the scopes your role allows
            self.fields["user"].queryset = users.filter(pk=self.issuer.pk)
            self.fields["user"].initial, self.fields["user"].empty_label = self.issuer.pk, None
            self.fields["scopes"].choices = [(s, s) for s in scopes_allowed(self.issuer)]
            return
        self.fields["user"].queryset = users

    def issue(self, token: ApiToken) -> TokenIssue:
        data = self.cleaned_data
        return TokenIssue(token=token, user=self.issuer, scopes=data["scopes"], days=data["days"])

    def clean(self):
        cleaned = super().clean()
        if self.errors:
            return cleaned
        for reason in self.issue(ApiToken(user=cleaned["user"], name=cleaned["name"])).check():
            self.add_error(None, reason)
        return cleaned


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = (
        "prefix",
        "name",
        "user",
        "scopes_shown",
        "created_at",
        "expires_at",
        "last_used_at",
        "revoked_at",
    )
    list_filter = ("revoked_at",)
    search_fields = ("name", "prefix", "user__username")
    actions = ["revoke"]
    READ_ONLY = ("user", "prefix", "scopes_shown", "created_at", "expires_at", "last_used_at")

    @admin.display(description="scopes")
    def scopes_shown(self, token: ApiToken) -> str:
        """`read, write`, not the stored JSON `["read", "write"]`."""
        return ", ".join(token.scopes)

    def get_queryset(self, request):
        return tokens_visible(user=request.user).select_related("user")

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is not None:
            return super().get_form(request, obj, change=change, **kwargs)
        return type("IssueForm", (TokenForm,), {"issuer": request.user})

    def get_fields(self, request, obj=None):
        if obj is None:
            return ("user", "name", "scopes", "days")
        return ("user", "name", *self.READ_ONLY[1:], "revoked_at")

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return ()
        return (*self.READ_ONLY, "revoked_at")

    def save_model(self, request, obj, form, change):
        if change:  # its name, the one field left to edit
            super().save_model(request, obj, form, change)
        else:  # the secret for response_add, on this request only
            request.token_secret = form.issue(obj).execute()

    def response_add(self, request, obj, post_url_continue=None):
        """The secret is shown once, in the body of this page: never in a cookie (messages
        are signed, not encrypted) and never stored by a cache."""
        response = TemplateResponse(
            request,
            "admin/curriculum/apitoken/issued.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.opts,
                "token": obj,
                "secret": request.token_secret,
                "title": "Token issued",
            },
        )
        add_never_cache_headers(response)
        return response

    @admin.action(description="Revoke selected tokens", permissions=["change"])
    def revoke(self, request, queryset):
        for token in queryset:
            token_revoke(token=token, user=request.user)
        messages.success(request, f"Revoked {queryset.count()} token(s).")
