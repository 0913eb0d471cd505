"""What engine 1.3.0 decided is decided again by 1.4, which screens whole numbers for
float64's own roundings too; what 1.4 decided stands."""

from tests.curriculum.migrations.again import asked_again_only


def test_the_migration_asks_again_for_what_the_old_engine_decided_only(seeded):
    asked_again_only("1.3.0", after="0036_ask_again_under_extended_precision")
