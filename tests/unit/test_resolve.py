"""Name resolution on the captured house: what people say → one device, or a message that helps."""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path

import pytest

from tests.unit.test_devices_build import house
from zwave_mcp.devices.errors import AliasFileError, AmbiguousDevice, DeviceNotFound
from zwave_mcp.devices.model import Device
from zwave_mcp.devices.resolve import DeviceIndex, load_aliases, normalize, parse_aliases

ALIASES = {"coffee": "Coffee Maker Plug", "Porch Light": "11.1", "ghost": "Nope", "the door": "5"}


@pytest.fixture(scope="module")
def index() -> DeviceIndex:
    return DeviceIndex(house().values(), ALIASES)


@pytest.mark.parametrize(
    ("said", "key"),
    [
        ("Kitchen Light", "2"),
        ("kitchen light", "2"),
        ("the kitchen light", "2"),
        ("  KITCHEN-light!! ", "2"),
        ("KitchenLight", None),  # no spaces: not a name (reads may still find it partially; see below)
        ("living room lamp", "3"),
        ("Living Room Lamp in Living Room", "3"),
        ("lamp in the living room", "3"),
        ("porch switch 2", "11.2"),
        ("Porch Double Switch 2", "11.2"),
        ("front door", "5"),
        ("thermostat", "6"),
        ("5", "5"),
        ("node 5", "5"),
        ("Node 10", "10"),
        ("11.2", "11.2"),
        ("node 11 endpoint 1", "11.1"),
        ("coffee", "8"),
        ("porch light", "11.1"),
        # The node's own name is its main part (its first relay), which still answers to its old name.
        ("Porch Double Switch", "11.1"),
        ("Porch Double Switch 1", "11.1"),
        ("porch switch 1", "11.1"),
        ("the door", "5"),
        ("Kitchen Light\n", "2"),
        ("blinds", "10"),
        ("bedroom light", "9"),
        ("motion", "7"),
    ],
)
def test_mutation_safe_phrases(index: DeviceIndex, said: str, key: str | None) -> None:
    if key is None:
        with pytest.raises(DeviceNotFound):
            index.resolve(said, for_mutation=True)
        return
    assert index.resolve(said, for_mutation=True).key == key
    assert index.resolve(said).key == key


@pytest.mark.parametrize(("said", "key"), [("kitch light", "2"), ("bedroom col", "9"), ("hall therm", "6")])
def test_reads_accept_a_unique_partial_match_mutations_do_not(
    index: DeviceIndex, said: str, key: str
) -> None:
    device = index.resolve(said)
    assert device.key == key
    with pytest.raises(DeviceNotFound) as err:
        index.resolve(said, for_mutation=True)
    assert str(err.value) == f"No device named '{said}'. Did you mean '{device.name}'?"
    assert err.value.suggestions == [device.name]


def test_ambiguous_lists_candidates_with_locations(index: DeviceIndex) -> None:
    with pytest.raises(AmbiguousDevice) as err:
        index.resolve("light")
    assert str(err.value) == (
        "'light' matches 3 devices: Kitchen Light (Kitchen), Living Room Lamp (Living Room), "
        "Bedroom Color Bulb (Bedroom). Say which one."
    )
    assert [d.key for d in err.value.candidates] == ["2", "3", "9"]


@pytest.mark.parametrize(
    ("said", "keys"),
    [("node 11", ["11.1", "11.2"]), ("porch double", ["11.1", "11.2"]), ("kitchen", ["2", "8"])],
)
def test_ambiguous_for_mutation_too(index: DeviceIndex, said: str, keys: list[str]) -> None:
    with pytest.raises(AmbiguousDevice) as err:
        index.resolve(said, for_mutation=True)
    assert [d.key for d in err.value.candidates] == keys


def test_not_found_suggests_closest_names(index: DeviceIndex) -> None:
    with pytest.raises(DeviceNotFound) as err:
        index.resolve("garage door")
    assert (
        str(err.value) == "No device named 'garage door'. Did you mean 'Garage Motion' or 'Front Door Lock'?"
    )


def test_not_found_without_anything_close(index: DeviceIndex) -> None:
    with pytest.raises(DeviceNotFound) as err:
        index.resolve("xylophone")
    assert str(err.value) == "No device named 'xylophone'."
    with pytest.raises(DeviceNotFound) as err:
        index.resolve("node 99")
    assert str(err.value) == "No device named 'node 99'."


def test_alias_to_nothing_says_so(index: DeviceIndex) -> None:
    with pytest.raises(DeviceNotFound) as err:
        index.resolve("ghost")
    assert str(err.value) == "The alias 'ghost' points to 'Nope', which is not a device."


def test_a_device_name_beats_an_alias() -> None:
    idx = DeviceIndex(house().values(), {"Kitchen Light": "8"})
    assert idx.resolve("kitchen light").key == "2"


@pytest.mark.parametrize(
    ("said", "message"),
    [
        ("+", "No device named '+'."),
        ("#", "No device named '#'."),
        ("zwave/+/#", "No device named 'zwave/+/#'."),
        (
            "Kitchen Light/set",
            "No device named 'Kitchen Light/set'. Did you mean 'Kitchen Light' or 'Coffee Maker Plug'?",
        ),
        ("\x1b[31mKitchen Light", "No device named '?[31mKitchen Light'."),
        ("\x00", "No device named '?'."),
        ("Kitchen\x00Light", "No device named 'Kitchen?Light'."),
        ("", "No device name given."),
        ("   ", "No device name given."),
        ("a" * 10_000, "No device named '" + "a" * 59 + "…'."),
    ],
)
def test_hostile_input_gives_clean_not_found(index: DeviceIndex, said: str, message: str) -> None:
    for for_mutation in (False, True):
        with pytest.raises(DeviceNotFound) as err:
            index.resolve(said, for_mutation=for_mutation)
        assert str(err.value) == message


def test_non_string_input(index: DeviceIndex) -> None:
    with pytest.raises(DeviceNotFound, match=r"^No device name given\.$"):
        index.resolve(None)


def test_normalize() -> None:
    assert normalize("  The  Living-Room's BLINDS!") == "the living room blind"
    assert normalize("Switches") == "switch"
    assert normalize("Glass") == "glass"


def _big_index(count: int) -> tuple[DeviceIndex, list[Device]]:
    base = list(house().values())
    devices = []
    for i in range(count):
        template = base[i % len(base)]
        devices.append(
            Device(
                key=str(1000 + i),
                node_id=1000 + i,
                endpoint=None,
                name=f"{template.name} {i}",
                location=f"Room {i // 8}",
                kind=template.kind,
                capabilities=template.capabilities,
                node=template.node,
                values=template.values,
            )
        )
    return DeviceIndex(devices), devices


def test_fast_on_4000_devices() -> None:
    started = time.perf_counter()
    idx, devices = _big_index(4000)
    built = time.perf_counter() - started
    queries = [
        devices[3990].name,
        devices[3990].name.lower(),
        "node 2500",
        "light in room 400",
        "garage door x",
        "kitch lig 17",
        "zzzz",
        "light",
        "a" * 10_000,
    ]
    started = time.perf_counter()
    for q in queries * 5:
        with contextlib.suppress(DeviceNotFound, AmbiguousDevice):
            idx.resolve(q)
    per_query = (time.perf_counter() - started) / (len(queries) * 5)
    assert idx.resolve(devices[3990].name.lower()).key == "4990"
    assert idx.resolve("node 2500").key == "2500"
    assert built < 1.0, f"index build took {built:.2f} s"
    assert per_query < 0.05, f"{per_query * 1000:.1f} ms per query"


def test_ambiguity_message_is_bounded_on_big_houses() -> None:
    idx, _ = _big_index(4000)
    with pytest.raises(AmbiguousDevice) as err:
        idx.resolve("light")
    message = str(err.value)
    assert message.startswith("'light' matches 1091 devices: Kitchen Light 0 (Room 0), ")
    assert message.endswith(" and 1081 more. Say which one.")


# ---- alias file ----


def test_load_aliases(tmp_path: Path) -> None:
    file = tmp_path / "aliases.json"
    file.write_text(json.dumps({"Porch Light": "Porch Double Switch 1", "thermo": "6"}), encoding="utf-8")
    assert load_aliases(file) == {"Porch Light": "Porch Double Switch 1", "thermo": "6"}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"a": ', "is not valid JSON: Expecting value at line 1, column 7."),
        (
            '["x"]',
            'must be a JSON object mapping an alias to a device name or key, like {"porch light": '
            '"Porch Double Switch 1"}.',
        ),
        (
            '{"lamp": 5}',
            ": the alias 'lamp' must map to a device name or key (a non-empty string), or to a list of them "
            "for a group, not 5.",
        ),
        (
            '{"lamp": " "}',
            ": the alias 'lamp' must map to a device name or key (a non-empty string), or to a list of "
            'them for a group, not " ".',
        ),
        ('{"!!": "5"}', ": the alias '!!' has no letters or digits."),
        (
            '{"Front door": "5", "front-door": "5"}',
            ": the aliases 'Front door' and 'front-door' are the same name.",
        ),
    ],
)
def test_bad_alias_files(tmp_path: Path, content: str, message: str) -> None:
    file = tmp_path / "aliases.json"
    file.write_text(content, encoding="utf-8")
    with pytest.raises(AliasFileError) as err:
        load_aliases(file)
    assert str(err.value) == f"Alias file {file} {message}".replace(f"{file} :", f"{file}:")


def test_missing_alias_file(tmp_path: Path) -> None:
    with pytest.raises(AliasFileError) as err:
        load_aliases(tmp_path / "nope.json")
    assert str(err.value) == f"Alias file {tmp_path / 'nope.json'} does not exist."


def test_parse_aliases_names_its_source() -> None:
    with pytest.raises(AliasFileError, match=r"^ZWAVE_MCP_ALIASES must be a JSON object"):
        parse_aliases("x", "ZWAVE_MCP_ALIASES")


@pytest.mark.parametrize(
    "data",
    [
        {"\u202eporch": "Porch Double Switch 1"},
        {"porch\x00": "Porch Double Switch 1"},
        {"porch": "Porch Double\nSwitch 1"},
        {"upstairs": ["Bedroom", "\u202eHallway"]},
        {"porch": "P" * 300},
    ],
)
def test_an_alias_no_one_could_say_back_is_refused(data: dict) -> None:
    """Tool arguments refuse control characters, overrides and over 200 characters: such an alias was
    accepted and could never be used."""
    with pytest.raises(AliasFileError, match="control character"):
        parse_aliases(data, "aliases.json")
    assert parse_aliases({" porch light ": "Porch Double Switch 1"}, "aliases.json")
