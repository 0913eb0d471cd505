"""Production settings pass Django's deploy checks; logins are throttled; passwords use Argon2."""

import os
import subprocess
import sys

from django.contrib.auth.hashers import get_hasher
from django.test import Client
from django.urls import reverse


def test_production_settings_pass_check_deploy_with_no_warning():
    env = {
        **os.environ,
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": "x" * 64 + "-Prod-Secret-9",
        "DJANGO_ALLOWED_HOSTS": "course.example.org",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_production_settings_refuse_to_start_without_a_secret_key():
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SECRET_KEY"}
    env["DJANGO_DEBUG"] = "0"
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], env=env, capture_output=True, text=True
    )
    assert result.returncode != 0 and "DJANGO_SECRET_KEY" in result.stderr


def test_production_settings_refuse_to_start_without_allowed_hosts():
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOWED_HOSTS"}
    env.update(DJANGO_DEBUG="0", DJANGO_SECRET_KEY="x" * 64 + "-Prod-Secret-9")
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], env=env, capture_output=True, text=True
    )
    assert result.returncode != 0 and "DJANGO_ALLOWED_HOSTS" in result.stderr


def test_passwords_are_hashed_with_argon2(erin):
    assert erin.password.startswith("argon2")
    assert get_hasher().algorithm == "argon2"


def test_admin_login_locks_out_after_repeated_failures(erin):
    client = Client()
    url = reverse("admin:login")
    for _ in range(5):
        client.post(url, {"username": "erin", "password": "wrong"})
    locked = client.post(url, {"username": "erin", "password": "erin-pass-9"})
    assert locked.status_code == 429
