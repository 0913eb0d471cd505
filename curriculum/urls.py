"""URLs: admin now; the readers' site and the API mount here too."""

from django.contrib import admin
from django.urls import path

urlpatterns = [
    path("admin/", admin.site.urls),
]
