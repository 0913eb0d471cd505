"""Issue an API token for a staff user and print it once (only its digest is stored)."""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from curriculum.domain.tokens import SCOPES, TokenRefused, token_issue


class Command(BaseCommand):
    help = "Create an API token for a staff user; the token is printed once."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--name", default="command line", help="what the token is for")
        parser.add_argument(
            "--scopes",
            help=f"comma-separated, of {', '.join(SCOPES)} (every token reads); "
            "default: every scope the user's role allows",
        )
        parser.add_argument(
            "--days",
            type=int,
            help=f"how long it lives (default and most: TOKEN_MAX_DAYS, {settings.TOKEN_MAX_DAYS})",
        )

    def handle(self, *args, username: str, name: str, scopes, days, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user {username!r}")
        chosen = None if scopes is None else [s.strip() for s in scopes.split(",") if s.strip()]
        try:
            token, secret = token_issue(user=user, name=name, scopes=chosen, days=days)
        except TokenRefused as refused:
            raise CommandError(str(refused)) from refused
        self.stdout.write(secret)
        self.stderr.write(
            f"token {token.prefix}… for {username} ({', '.join(token.scopes)}), expires "
            f"{token.expires_at:%Y-%m-%d %H:%M %Z}; it will not be shown again"
        )
