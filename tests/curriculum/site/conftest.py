"""The seed imported and indexed once for a module of searches, as a commit indexes it."""

import pytest
from django.test import TestCase

from curriculum.domain.search_index import search_index_sync
from tests.conftest import rows_for_the_module, seed_import


@pytest.fixture(scope="module")
def indexed_seed_world(django_db_setup, django_db_blocker):
    with rows_for_the_module(django_db_blocker):
        with TestCase.captureOnCommitCallbacks(execute=True):
            seed_import()
        assert search_index_sync() == 0  # built by the commit's own work, as a commit builds it
        yield


@pytest.fixture
def indexed_seed(indexed_seed_world, module_rows, settings):
    """The module's seed, written and indexed once, read unthrottled."""
    settings.API_ANON_RATE = "10000/min"
