"""The buffering proxy in front of gunicorn: docker-compose.yml publishes nginx alone, with
the committed server template `make serve` runs its own nginx with, and that template makes a
configuration nginx accepts."""

import shutil
import string
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.processes import ROOT

pytestmark = pytest.mark.serve
TEMPLATE = "deploy/nginx/curriculum.conf.template"


def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]


def test_compose_publishes_only_the_proxy_and_the_proxy_reaches_gunicorn():
    services = compose()
    published = {name for name, service in services.items() if service.get("ports")}
    assert published == {"proxy"}
    web, proxy = services["web"], services["proxy"]
    assert web["environment"]["GUNICORN_BIND"] == "0.0.0.0:8000"
    assert proxy["environment"]["UPSTREAM"] == "web:8000"
    assert web["environment"]["NUM_PROXIES"] == "1"
    [mount] = proxy["volumes"]
    assert mount.startswith(f"./{TEMPLATE}:/etc/nginx/templates/")


def test_the_template_as_compose_fills_it_is_a_configuration_nginx_accepts(tmp_path: Path):
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(nginx).exists():
        subprocess.run([ROOT / "scripts/install-nginx.sh"], check=True)
    filled = compose()["proxy"]["environment"] | {"UPSTREAM": "127.0.0.1:9"}  # resolvable here
    server = string.Template((ROOT / TEMPLATE).read_text()).safe_substitute(filled)
    (tmp_path / "curriculum.conf").write_text(server)
    (tmp_path / "nginx.conf").write_text(
        f"pid {tmp_path}/nginx.pid; error_log stderr; events {{}}\n"
        f"http {{ include {tmp_path}/curriculum.conf; }}\n"
    )
    done = subprocess.run(
        [nginx, "-t", "-e", "stderr", "-c", str(tmp_path / "nginx.conf")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
