"""Issue an API token for a staff user and print it once (only its digest is stored)."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from curriculum.domain.tokens import TokenRefused, token_issue


class Command(BaseCommand):
    help = "Create an API token for a staff user; the token is printed once."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--name", default="command line", help="what the token is for")

    def handle(self, *args, username: str, name: str, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user {username!r}")
        try:
            token, secret = token_issue(user=user, name=name)
        except TokenRefused as refused:
            raise CommandError(str(refused)) from refused
        self.stdout.write(secret)
        self.stderr.write(f"token {token.prefix}… for {username}; it will not be shown again")
