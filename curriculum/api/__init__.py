"""The JSON API (django-ninja) at /api/v1/: reads for everyone, writes for staff tokens."""
