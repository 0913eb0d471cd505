"""Django admin: thin ModelAdmins, one module per model family, that call the domain services.

Importing the package registers them all (Django's autodiscovery imports `curriculum.admin`).
"""

from . import books_chapters, media, practice, problems, releases, tokens, webhooks  # noqa: F401  (each registers its admin)
