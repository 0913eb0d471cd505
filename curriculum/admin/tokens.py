"""API tokens in admin: issue one (its secret is shown once), see when it was used, revoke it."""

from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.template.response import TemplateResponse
from django.utils.cache import add_never_cache_headers

from curriculum.domain.tokens import HOLDERS, TokenIssue, token_revoke
from curriculum.models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("prefix", "name", "user", "created_at", "last_used_at", "revoked_at")
    list_filter = ("revoked_at",)
    search_fields = ("name", "prefix", "user__username")
    actions = ["revoke"]

    def get_fields(self, request, obj=None):
        if obj is None:
            return ("user", "name")
        return ("user", "name", "prefix", "created_at", "last_used_at", "revoked_at")

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return ()
        return ("user", "prefix", "created_at", "last_used_at", "revoked_at")

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "user":
            kwargs["queryset"] = get_user_model().objects.filter(HOLDERS)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def save_model(self, request, obj, form, change):
        if change:  # its name, the one field left to edit
            super().save_model(request, obj, form, change)
        else:  # the secret for response_add, on this request only
            request.token_secret = TokenIssue(token=obj, user=request.user).execute()

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
            token_revoke(token=token)
        messages.success(request, f"Revoked {queryset.count()} token(s).")
