"""URLs: admin, the JSON API under /api/v1/, readers' accounts under /accounts/, and the
readers' site."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", include("curriculum.api.urls")),
    path("accounts/", include("allauth.urls")),  # readers' sign-up, log in and out, passwords
    path("", include("curriculum.site.urls")),
]
handler400 = "curriculum.site.errors.bad_request"
