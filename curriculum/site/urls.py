"""The readers' site: books, chapters, and every chapter's earlier releases."""

from django.urls import path

from . import practice, search, views, wayfinding

app_name = "site"
urlpatterns = [
    path("", views.home, name="home"),
    path("books/<str:numeral>/", views.book, name="book"),
    path("search/", search.search_page, name="search"),
    path("chapters/<str:code>/", views.chapter, name="chapter"),
    path("chapters/<str:code>/releases/", wayfinding.releases, name="releases"),
    path("chapters/<str:code>/problems/<str:key>/", practice.practice_page, name="practice"),
    path("chapters/<str:code>/releases/<int:number>/", views.release, name="release"),
    path("operations/", views.operations, name="operations"),
]
