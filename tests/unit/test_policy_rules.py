"""Policy rules: read-only, allow/deny/hide lists, sensitive changes, the safe band, and their messages."""

from __future__ import annotations

import json
from dataclasses import replace
from types import SimpleNamespace

import pytest

from tests.unit.policy_devices import (
    BLINDS,
    COFFEE,
    FRONT_DOOR,
    GARAGE_DOOR,
    GARAGE_MOTION,
    HOUSE,
    KITCHEN_LIGHT,
    LAMP,
    PORCH_1,
    PORCH_2,
    SIREN,
    THERMOSTAT,
    check_mutation,
)
from zwave_mcp.config import ConfigError, load_settings
from zwave_mcp.policy import Policy, PolicyConfig, TermError, Verdict, parse_terms
from zwave_mcp.policy.actions import normalize_action


def policy(**env: str) -> Policy:
    environ = {"ZWAVE_MCP_" + k.upper(): v for k, v in env.items()}
    return Policy.from_settings(load_settings(environ=environ))


# --- no configuration -------------------------------------------------------------------------------


def test_default_policy_lets_everyday_actions_through():
    p = Policy()
    for device, action, value in [
        (KITCHEN_LIGHT, "on", None),
        (LAMP, "set_level", 30),
        (BLINDS, "open", None),
        (FRONT_DOOR, "lock", None),
        (THERMOSTAT, "set_temperature", 21),
        (GARAGE_DOOR, "close", None),
    ]:
        decision = check_mutation(p, device, action, value)
        assert decision.verdict is Verdict.ALLOWED, (device.name, action, decision)
    assert all(p.visible(d) and p.can_control(d) for d in HOUSE)


# --- read-only --------------------------------------------------------------------------------------


def test_read_only_refuses_every_action_on_every_device():
    p = policy(read_only="true")
    assert p.read_only
    for device in HOUSE:
        assert p.visible(device), "read-only still shows devices"
        assert not p.can_control(device)
        for action in ("on", "off", "lock", "unlock", "open", "close", "set_temperature", "set_color"):
            decision = check_mutation(p, device, action, 21)
            assert decision.refused, (device.name, action)
            assert "read-only mode (ZWAVE_MCP_READ_ONLY)" in decision.message
    assert p.read_only_refusal("activate scene 'Movie night'") is not None


def test_read_only_message_is_one_clear_sentence():
    decision = check_mutation(policy(read_only="1"), KITCHEN_LIGHT, "on")
    assert decision.message == (
        "Refused to turn on Kitchen Light (Kitchen): zwave-mcp runs in read-only mode (ZWAVE_MCP_READ_ONLY), "
        "so nothing can be switched or set; reading devices still works."
    )


# --- allow / deny / hide ----------------------------------------------------------------------------


def test_deny_by_capability_makes_devices_read_only_but_visible():
    p = policy(deny="lock,cover")
    for device in (FRONT_DOOR, BLINDS, GARAGE_DOOR):
        assert p.visible(device), "denied devices stay visible so their state can be read"
        assert not p.can_control(device)
    assert p.can_control(KITCHEN_LIGHT) and p.can_control(THERMOSTAT)
    assert check_mutation(p, BLINDS, "open").message == (
        "Refused to open Living Room Blinds (Living Room): the policy makes this device read-only "
        "('cover' is on the deny list, ZWAVE_MCP_DENY); you can still read its state."
    )


def test_allow_by_location_limits_control_to_those_rooms():
    p = policy(allow="Kitchen, living-room")
    controllable = {d.name for d in HOUSE if p.can_control(d)}
    assert controllable == {KITCHEN_LIGHT.name, COFFEE.name, LAMP.name, BLINDS.name}
    assert check_mutation(p, PORCH_1, "on").message == (
        "Refused to turn on Porch Double Switch 1 (Porch): the policy makes this device read-only "
        "(only Kitchen, living-room can be changed, ZWAVE_MCP_ALLOW); you can still read its state."
    )


def test_deny_wins_over_allow():
    p = policy(allow="Kitchen", deny="Coffee Maker Plug")
    assert p.can_control(KITCHEN_LIGHT)
    assert not p.can_control(COFFEE)
    assert "'Coffee Maker Plug' is on the deny list" in check_mutation(p, COFFEE, "off").message


def test_node_ids_and_endpoint_keys_select_devices():
    p = policy(deny="11.2, node:5")
    assert p.can_control(PORCH_1)
    assert not p.can_control(PORCH_2)
    assert not p.can_control(FRONT_DOOR)
    whole_node = policy(deny="11")
    assert not whole_node.can_control(PORCH_1) and not whole_node.can_control(PORCH_2)


def test_prefixed_terms_match_only_their_field():
    # "Garage" is a room; as a name it matches nothing.
    assert not policy(deny="location:garage").can_control(GARAGE_DOOR)
    assert policy(deny="name:garage").can_control(GARAGE_DOOR)
    assert not policy(deny="name:garage door").can_control(GARAGE_DOOR)
    assert not policy(deny="cap:meter").can_control(COFFEE)
    assert policy(deny="capability:kitchen").can_control(KITCHEN_LIGHT)


def test_hidden_devices_are_invisible_and_refused():
    p = policy(hide="Garage Motion, room:porch")
    assert not p.visible(GARAGE_MOTION) and not p.visible(PORCH_1) and not p.visible(PORCH_2)
    assert p.visible(KITCHEN_LIGHT)
    assert not p.can_control(PORCH_1)
    assert check_mutation(p, PORCH_1, "on").message == (
        "Refused to change this device: the policy hides it (ZWAVE_MCP_HIDE), so it cannot be read or changed."
    )


def test_a_rename_does_not_take_a_device_out_of_the_hide_deny_or_confirm_lists():
    """Entries written by name are pinned to the devices they named: renamed (in zwave-js-ui, or through a
    sibling on the same node), the device stays hidden, read-only or asked about; the allow list is not
    pinned (a device renamed out of it becomes read-only, the safe side)."""
    p = policy(
        hide="Porch Double Switch 2",
        deny="Kitchen Light",
        confirm_devices="Living Room Lamp",
        allow="kitchen, living room",
    )
    p.remember(list(HOUSE))
    renamed = {d.key: replace(d, name="Patio " + d.name) for d in (PORCH_2, KITCHEN_LIGHT, LAMP, COFFEE)}
    assert not p.visible(renamed["11.2"])
    assert check_mutation(p, renamed["2"], "on").refused
    assert check_mutation(p, renamed["3"], "on").needs_confirmation
    assert p.can_control(renamed["8"])  # allowed by its room, not its name
    assert p.visible(replace(PORCH_1, name="Patio Switch 1"))  # only what the entry named
    (problem,) = [u for u in p.unmatched_entries(list(renamed.values())) if "Kitchen Light" in u]
    assert "still covers device 2, which it named before a rename" in problem


@pytest.mark.parametrize(
    ("entry", "hint"),
    [("node:kitchen", "needs a node id"), (" : ", "names nothing"), ("x" * 201, "too long")],
)
def test_malformed_list_entries_are_config_errors(entry, hint):
    with pytest.raises(TermError, match=hint):
        parse_terms(entry)
    with pytest.raises(ConfigError, match=f"deny \\(ZWAVE_MCP_DENY\\):.*{hint}"):
        policy(deny=entry)


def test_blank_and_duplicate_entries_are_ignored():
    terms = parse_terms("Kitchen,, kitchen ,  ,lock")
    assert [t.text for t in terms] == ["Kitchen", "lock"]


# --- sensitive changes ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("device", "action", "value", "why"),
    [
        (FRONT_DOOR, "unlock", None, "it can unlock a door"),
        (FRONT_DOOR, "toggle", None, "it can unlock a door"),
        (GARAGE_DOOR, "open", None, "it can open a way into the house"),
        (GARAGE_DOOR, "set_position", 40, "it can open a way into the house"),
        (SIREN, "off", None, "it can switch off an alarm"),
        (KITCHEN_LIGHT, "disarm", None, "it can switch off an alarm"),
        (THERMOSTAT, "set_temperature", 35, "35 is outside the safe range 10-28 °C"),
        (THERMOSTAT, "set_temperature", 5, "5 is outside the safe range 10-28 °C"),
        (
            THERMOSTAT,
            "set_temperature",
            "+2",
            "the target is not a plain temperature, so it may be outside the safe range 10-28 °C",
        ),
    ],
)
def test_built_in_sensitive_changes_need_confirmation(device, action, value, why):
    decision = check_mutation(Policy(), device, action, value)
    assert decision.verdict is Verdict.NEEDS_CONFIRMATION
    assert decision.why == why
    assert decision.sensitive


@pytest.mark.parametrize(
    ("device", "action", "value"),
    [
        (FRONT_DOOR, "lock", None),
        (GARAGE_DOOR, "close", None),
        (GARAGE_DOOR, "stop", None),
        (BLINDS, "open", None),  # an ordinary cover is not a way in
        (SIREN, "on", None),
        (THERMOSTAT, "set_temperature", 10),
        (THERMOSTAT, "set_temperature", 28),
        (THERMOSTAT, "set_temperature", "21.5"),
    ],
)
def test_safe_changes_need_no_confirmation(device, action, value):
    assert check_mutation(Policy(), device, action, value).allowed


def test_fahrenheit_targets_are_checked_against_the_celsius_band():
    p = Policy()
    assert check_mutation(p, THERMOSTAT, "set_temperature", 70, unit="°F").allowed  # 21.1 °C
    decision = check_mutation(p, THERMOSTAT, "set_temperature", 90, unit="°F")  # 32.2 °C
    assert decision.needs_confirmation
    assert decision.why == "90 °F is outside the safe range 10-28 °C"
    assert decision.action_text == "set Hallway Thermostat (Hallway) to 90 °F"


def test_safe_band_is_configurable_and_validated():
    p = policy(safe_temp_min="16", safe_temp_max="24")
    assert check_mutation(p, THERMOSTAT, "set_temperature", 25).needs_confirmation
    assert check_mutation(p, THERMOSTAT, "set_temperature", 17).allowed
    with pytest.raises(ConfigError, match="low < high"):
        policy(safe_temp_min="30", safe_temp_max="20")


def test_configured_actions_and_devices_need_confirmation():
    p = policy(confirm_actions="open, Set-Mode", confirm_devices="Living Room Lamp")
    opening = check_mutation(p, BLINDS, "open")
    assert opening.needs_confirmation
    assert opening.why == "'open' is on the list of actions that need confirmation"
    assert check_mutation(p, THERMOSTAT, "set_mode", "off").needs_confirmation
    lamp = check_mutation(p, LAMP, "off")
    assert lamp.why == (
        "every change to it needs confirmation (matched 'Living Room Lamp' in ZWAVE_MCP_CONFIRM_DEVICES)"
    )
    assert check_mutation(p, KITCHEN_LIGHT, "off").allowed


def test_forbidding_sensitive_actions_refuses_them_with_a_reason():
    p = policy(forbid_sensitive="true")
    decision = check_mutation(p, FRONT_DOOR, "unlock")
    assert decision.refused
    assert decision.message == (
        "Refused to unlock Front Door Lock (Entry): it can unlock a door, and sensitive actions are switched "
        "off by policy (ZWAVE_MCP_FORBID_SENSITIVE); do it at the device itself instead."
    )
    assert check_mutation(p, FRONT_DOOR, "lock").allowed, "only sensitive actions are forbidden"


def test_action_names_are_normalized():
    assert normalize_action(" Set-Temperature ") == "set_temperature"
    assert check_mutation(Policy(), FRONT_DOOR, "UNLOCK").needs_confirmation


def test_check_mutation_has_no_side_effects():
    p = policy(rate_limit_device="1")
    for _ in range(5):
        assert check_mutation(p, KITCHEN_LIGHT, "on").allowed
    assert p.rates.check_many([KITCHEN_LIGHT.key]) is None, "nothing was counted"


# --- settings and the policy file -------------------------------------------------------------------


def test_policy_file_toml(tmp_path):
    path = tmp_path / "policy.toml"
    path.write_text(
        'allow = ["Kitchen"]\ndeny = "Coffee Maker Plug"\nconfirm_actions = ["open"]\n'
        "safe_temp_max = 25\nrate_limit_device = 3\nforbid_sensitive = true\n"
    )
    p = policy(policy_file=str(path))
    assert p.can_control(KITCHEN_LIGHT) and not p.can_control(COFFEE) and not p.can_control(LAMP)
    assert p.config.safe_band.high == 25 and p.config.rate_limit_device == 3
    assert p.config.confirm_actions == frozenset({"open"})
    assert p.config.forbid_sensitive
    assert "policy.toml" in check_mutation(p, LAMP, "on").message


def test_policy_file_json_and_env_precedence(tmp_path):
    path = tmp_path / "policy.json"
    path.write_text(
        json.dumps({"allow": ["Porch"], "deny": ["11.2"], "read_only": True, "rate_limit_total": 5})
    )
    p = policy(policy_file=str(path), allow="Kitchen", deny="lock", read_only="false", rate_limit_total="7")
    assert p.read_only, "read-only from either source wins"
    assert p.config.rate_limit_total == 7, "env replaces the file's number"
    assert [t.text for t in p.config.allow.terms] == ["Kitchen"], "env replaces the file's allow list"
    assert {t.text for t in p.config.deny.terms} == {"lock", "11.2"}, "deny lists add up"


@pytest.mark.parametrize(
    ("content", "name", "hint"),
    [
        ("allow = [", "p.toml", "not valid TOML"),
        ("[1, 2]", "p.json", "must hold an object"),
        ('{"alow": []}', "p.json", "unknown key 'alow'"),
        ('{"deny": 5}', "p.json", r"^deny \(p.json\): expected a list"),
        # Each of these ended `config` and `serve` in a traceback, or was read as its opposite:
        ('{"rate_limit_total": 1e400}', "p.json", r"^rate_limit_total \(p.json\): must be a number"),
        ('{"safe_temp_min": "x"}', "p.json", r"^safe_temp_min \(p.json\): must be a number"),
        ('{"audit_file": 5}', "p.json", r"^audit_file \(p.json\): must be a file name"),
        ('{"read_only": "false"}', "p.json", r"^read_only \(p.json\): must be true or false"),
        ('{"forbid_sensitive": "no"}', "p.json", r"^forbid_sensitive \(p.json\): must be true or false"),
        ('{"confirm_actions": 5}', "p.json", r"^confirm_actions \(p.json\): expected a list"),
    ],
)
def test_bad_policy_files_are_config_errors(tmp_path, content, name, hint):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(ConfigError, match=hint):
        policy(policy_file=str(path))


def test_missing_policy_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match=r"ZWAVE_MCP_POLICY_FILE=.*cannot read it"):
        policy(policy_file=str(tmp_path / "nope.toml"))


def test_config_defaults():
    config = PolicyConfig.from_settings(load_settings(environ={}))
    assert config == PolicyConfig(
        allow=config.allow, deny=config.deny, hide=config.hide, confirm_devices=config.confirm_devices
    )
    assert not (config.allow or config.deny or config.hide or config.confirm_devices)
    assert (config.safe_band.low, config.safe_band.high, config.confirm_token_ttl) == (10.0, 28.0, 60.0)
    assert (config.rate_limit_device, config.rate_limit_total) == (10, 60)


# A relay named for a door, gate or garage may be the opener's contact: switching it is sensitive. The words
# are whole words, and a switch whose name says it is a light is a light.
@pytest.mark.parametrize(
    ("name", "product", "sensitive"),
    [
        ("Garage Door Opener", "", True),
        ("Garage", "", True),
        ("Driveway Gate", "", True),
        ("Relay 3", "Garage Door Controller", True),
        ("Back Gates", "", True),
        ("Outdoor Light", "", False),  # "door" inside "outdoor"
        ("Indoor Plug", "", False),
        ("Clock Radio", "", False),  # "lock" inside "clock"
        ("Block Heater", "", False),
        ("Garage Lamp", "", False),  # a light, wherever it hangs
        ("Gate Lights", "", False),
    ],
)
def test_a_switch_is_an_opener_only_when_its_words_say_so(name, product, sensitive):
    switch = SimpleNamespace(
        key="40",
        node_id=40,
        name=name,
        location="Outside",
        capabilities=("switch",),
        node=SimpleNamespace(name=name, product_label=product),
    )
    decision = check_mutation(Policy(), switch, "on", None)
    assert (decision.why == "it can open a way into the house") is sensitive, decision.why


@pytest.mark.parametrize(
    ("given", "hint"),
    [
        (
            "opne",
            r"^confirm_actions \(ZWAVE_MCP_CONFIRM_ACTIONS\): no action is called 'opne'; did you mean 'open'\?",
        ),
        ("open, frobnicate", r"no action is called 'frobnicate'; actions are on, off, toggle"),
    ],
)
def test_unknown_confirm_actions_are_refused_at_start(given, hint):
    # Issue 44 item 11: an unknown word was taken silently and confirmed nothing.
    with pytest.raises(ConfigError, match=hint):
        policy(confirm_actions=given)


def test_unknown_confirm_actions_in_the_policy_file_name_the_file(tmp_path):
    path = tmp_path / "p.json"
    path.write_text('{"confirm_actions": ["unlcok"]}')
    with pytest.raises(
        ConfigError, match=r"^confirm_actions \(p.json\): no action is called 'unlcok'; did you mean 'unlock'"
    ):
        policy(policy_file=str(path))


@pytest.mark.parametrize(
    "word", ["Turn On", "set-mode", "remove_user", "remove_code", "ping", "include", "disarm"]
)
def test_every_word_a_change_carries_can_be_confirmed(word):
    assert policy(confirm_actions=word).config.confirm_actions
