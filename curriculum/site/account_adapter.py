"""How allauth treats readers' accounts here: a client is the address `curriculum.clients`
finds (through NUM_PROXIES), as for the login lockout and every other rate, and an account made
by signing up is never staff, whatever a form might post."""

from allauth.account.adapter import DefaultAccountAdapter
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.exceptions import PermissionDenied
from django.forms import BaseForm
from django.http import HttpRequest

from curriculum.clients import client_address


class ReaderAccountAdapter(DefaultAccountAdapter):
    def get_client_ip(self, request: HttpRequest) -> str:
        """allauth's rates count per this address (its own reading of X-Forwarded-For would
        believe what a client wrote unless told the proxies twice)."""
        address = client_address(request)
        if address is None:
            raise PermissionDenied("the request carries no client address")
        return address

    def save_user(
        self, request: HttpRequest, user: AbstractBaseUser, form: BaseForm, commit: bool = True
    ) -> AbstractBaseUser:
        user.is_staff = user.is_superuser = False  # type: ignore[attr-defined]
        return super().save_user(request, user, form, commit=commit)
