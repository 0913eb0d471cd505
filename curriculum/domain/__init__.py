"""The domain layer: the rules of the course. Admin, views, API, commands and tasks call these."""
