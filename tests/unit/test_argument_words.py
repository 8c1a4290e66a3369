"""Kind and state arguments read as people and models say them (issue 43 items 21 and 22): plurals, case,
spacing and the usual synonyms; a word that cannot be read is refused with what would work."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from zwave_mcp.history.models import HistoryArgs, LastEventArgs
from zwave_mcp.server.tools.models import ListDevicesArgs


@pytest.mark.parametrize(
    ("said", "meant"),
    [
        ("battery levels", "battery"),  # the README's own question
        ("Battery", "battery"),
        ("low batteries", "low_battery"),
        ("leaks", "water_leak"),
        ("water leak", "water_leak"),
        ("carbon monoxide", "co"),
        ("glass breaks", "glass_break"),
        ("Locked", "locked"),
    ],
)
def test_a_state_is_read_as_it_is_said(said: str, meant: str) -> None:
    assert ListDevicesArgs(state=said).state == meant


@pytest.mark.parametrize(
    ("said", "meant"),
    [("locks", "lock"), ("Blinds", "cover"), ("binary sensors", "binary_sensor"), ("switches", "switch")],
)
def test_a_kind_is_read_as_it_is_said_in_every_tool_that_takes_one(said: str, meant: str) -> None:
    assert ListDevicesArgs(capability=said).capability == meant
    assert HistoryArgs(kind=said).kind == meant
    assert LastEventArgs(kind=said).kind == meant


def test_a_word_that_cannot_be_read_is_refused_with_the_names_that_work() -> None:
    with pytest.raises(ValidationError) as refused:
        ListDevicesArgs(state="sunshine")
    assert "'battery'" in str(refused.value) and "sunshine" in str(refused.value)
