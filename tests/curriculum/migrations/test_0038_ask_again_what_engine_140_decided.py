"""What engine 1.4.0 decided, answers and claims, is decided again by 1.4.1, which refuses
numbers below float64's normal range and reads a claim's problem outputs in extended precision;
what 1.4.1 decided stands."""

from tests.curriculum.migrations.again import asked_again_only


def test_the_migration_asks_again_for_what_the_old_engine_decided_only(seeded):
    asked_again_only("1.4.0", after="0037_ask_again_what_engine_130_decided")
