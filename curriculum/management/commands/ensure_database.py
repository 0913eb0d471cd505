"""ensure_database: create the configured PostgreSQL database if it does not exist yet."""

import psycopg
from django.core.management.base import BaseCommand
from django.db import connection
from psycopg import sql


class Command(BaseCommand):
    help = "Create the PostgreSQL database of DATABASE_URL when it is missing (SQLite: no-op)."

    def handle(self, *args, **options):
        if connection.vendor != "postgresql":
            return
        params = connection.get_connection_params()
        name = params.pop("dbname")
        try:
            with psycopg.connect(**params, dbname="postgres", autocommit=True) as admin:
                exists = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
                if exists.fetchone() is None:
                    admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
                    self.stdout.write(f"created database {name}")
        except psycopg.Error as error:
            self.stderr.write(f"could not check or create database {name}: {error}")
