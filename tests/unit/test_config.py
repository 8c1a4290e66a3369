"""Settings: env and flags, validation messages that name the setting, secrets never shown."""

import json

import pytest

from zwave_mcp.config import ConfigError, load_settings


def test_defaults_need_no_configuration():
    settings = load_settings(environ={})
    assert settings.mqtt_host == "127.0.0.1"
    assert settings.mqtt_port == 1883
    assert settings.prefix == "zwave"
    assert settings.gateway_name == "zwave-js-ui"
    assert settings.tool_timeout == 30.0


def test_flag_wins_over_env():
    settings = load_settings({"prefix": "home"}, environ={"ZWAVE_MCP_PREFIX": "zw"})
    assert settings.prefix == "home"


def test_user_and_password_from_url_and_tls_port():
    settings = load_settings(environ={"ZWAVE_MCP_MQTT_URL": "mqtts://u%40x:p%2Fw@broker.lan"})
    assert (settings.mqtt_user, settings.mqtt_secret) == ("u@x", "p/w")
    assert settings.mqtt_tls and settings.mqtt_port == 8883


def test_password_file_is_read(tmp_path):
    secret = tmp_path / "pw"
    secret.write_text("hunter2\n")
    settings = load_settings(environ={"ZWAVE_MCP_MQTT_PASSWORD_FILE": str(secret)})
    assert settings.mqtt_secret == "hunter2"


@pytest.mark.parametrize(
    ("environ", "named", "hint"),
    [
        ({"ZWAVE_MCP_MQTT_URL": "ftp://x"}, "ZWAVE_MCP_MQTT_URL", "mqtt://"),
        ({"ZWAVE_MCP_MQTT_URL": "mqtt://h:99999"}, "ZWAVE_MCP_MQTT_URL", "port"),
        ({"ZWAVE_MCP_TOOL_TIMEOUT": "soon"}, "ZWAVE_MCP_TOOL_TIMEOUT", "number"),
        ({"ZWAVE_MCP_READ_ONLY": "maybe"}, "ZWAVE_MCP_READ_ONLY", "true or false"),
        ({"ZWAVE_MCP_PREFIX": "zwave/#"}, "ZWAVE_MCP_PREFIX", "without +, #"),
        ({"ZWAVE_MCP_MQTT_VERSION": "4"}, "ZWAVE_MCP_MQTT_VERSION", "'3.1.1'"),
        ({"ZWAVE_MCP_MQTT_PASSWORD_FILE": "/nonexistent/pw"}, "ZWAVE_MCP_MQTT_PASSWORD_FILE", "cannot read"),
        # Each of these was accepted, then failed at every connection attempt or went elsewhere:
        ({"ZWAVE_MCP_MQTT_URL": "mqtt://h:0"}, "ZWAVE_MCP_MQTT_URL", "port"),  # silently became 1883
        ({"ZWAVE_MCP_MQTT_CLIENT_ID": "c" * 70_000}, "ZWAVE_MCP_MQTT_CLIENT_ID", "65535 bytes"),
        ({"ZWAVE_MCP_MQTT_USERNAME": "ü" * 40_000}, "ZWAVE_MCP_MQTT_USERNAME", "65535 bytes"),
        ({"ZWAVE_MCP_MQTT_PASSWORD": "p" * 70_000}, "ZWAVE_MCP_MQTT_PASSWORD", "65535 bytes"),
        ({"ZWAVE_MCP_PREFIX": "zw\x01ave"}, "ZWAVE_MCP_PREFIX", "control characters"),
        ({"ZWAVE_MCP_GATEWAY_NAME": "zwave\njs"}, "ZWAVE_MCP_GATEWAY_NAME", "control characters"),
    ],
)
def test_bad_values_name_the_setting_and_what_works(environ, named, hint):
    with pytest.raises(ConfigError) as err:
        load_settings(environ=environ)
    message = str(err.value)
    assert named in message
    assert hint in message
    assert "\n" not in message


def test_bad_flag_is_named_as_a_flag():
    with pytest.raises(ConfigError, match=r"^--tool-timeout="):
        load_settings({"tool_timeout": "-1"}, environ={})


def test_redacted_dump_hides_every_secret():
    settings = load_settings(
        environ={
            "ZWAVE_MCP_MQTT_URL": "mqtt://u:s3cret@h:1883",
            "ZWAVE_MCP_TLS_KEY_PASSWORD": "k3ypass",
        }
    )
    dumped = json.dumps(settings.redacted())
    assert "s3cret" not in dumped and "k3ypass" not in dumped
    assert "mqtt://u:***@h:1883" in dumped


def test_bad_url_error_does_not_echo_the_password():
    with pytest.raises(ConfigError) as err:
        load_settings(environ={"ZWAVE_MCP_MQTT_URL": "mqtt://u:s3cret@h:notaport"})
    assert "s3cret" not in str(err.value)


def test_unknown_variables_are_named_with_a_hint():
    from zwave_mcp.config import unknown_env_vars

    notes = unknown_env_vars(
        {
            "ZWAVE_MCP_GATEWAY_NAM": "x",
            "ZWAVE_MCP_PREFIX": "zwave",
            "ZWAVE_MCP_MQTT_PASSWORD_FILE": "/p",
            "HOME": "/",
        }
    )
    assert notes == ["ZWAVE_MCP_GATEWAY_NAM (did you mean ZWAVE_MCP_GATEWAY_NAME?)"]


def test_design_name_for_the_gateway_is_still_read():
    assert load_settings(environ={"ZWAVE_MCP_GATEWAY": "zjs"}).gateway_name == "zjs"
    both = {"ZWAVE_MCP_GATEWAY": "old", "ZWAVE_MCP_GATEWAY_NAME": "new"}
    assert load_settings(environ=both).gateway_name == "new"


def test_a_too_long_password_is_named_but_never_shown():
    with pytest.raises(ConfigError) as err:
        load_settings(environ={"ZWAVE_MCP_MQTT_PASSWORD": "secret" * 20_000})
    assert "secret" not in str(err.value) and "***" in str(err.value)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("ZWAVE_MCP_MQTT_PASSWORD", "…"),  # the README's Claude Desktop entry, copied unfilled (issue 46)
        ("ZWAVE_MCP_MQTT_PASSWORD", "<password>"),
        ("ZWAVE_MCP_MQTT_PASSWORD", "changeme"),
        ("ZWAVE_MCP_MQTT_PASSWORD", " Change-Me "),
        ("ZWAVE_MCP_MQTT_PASSWORD", "${user_config.mqtt_password}"),  # an MCPB value nobody set
        ("ZWAVE_MCP_MQTT_PASSWORD", "${input:mqtt-password}"),  # VS Code's input, not expanded
        ("ZWAVE_MCP_MQTT_URL", "mqtt://…@192.168.1.10:1883"),
        ("ZWAVE_MCP_MQTT_URL", "mqtt://<host>:1883"),
        ("ZWAVE_MCP_MQTT_URL", "mqtt://user@<host>:1883"),
        ("ZWAVE_MCP_GATEWAY_NAME", "..."),
        ("ZWAVE_MCP_PREFIX", "<prefix>"),
    ],
)
def test_an_examples_placeholder_is_refused_saying_what_goes_there(key, value):
    with pytest.raises(ConfigError) as caught:
        load_settings(environ={key: value})
    (line,) = str(caught.value).splitlines()
    assert line.startswith(f"{key}=") and "placeholder" in line and "what goes there: " in line
    assert "PASSWORD" not in key or value.strip() not in line  # a secret is never echoed


def test_a_placeholder_in_a_password_file_or_a_flag_is_refused_too(tmp_path):
    secret = tmp_path / "pw"
    secret.write_text("<password>\n")
    with pytest.raises(ConfigError, match="placeholder"):
        load_settings(environ={"ZWAVE_MCP_MQTT_PASSWORD_FILE": str(secret)})
    with pytest.raises(ConfigError, match=r"^--gateway-name='…': .*what goes there: zwave-js-ui MQTT name"):
        load_settings({"gateway_name": "…"}, environ={})


@pytest.mark.parametrize(
    "password", ["hunter2", "pass<word", "a>b<c", "me", "changeme2", "$ecret{x}", "p..w"]
)
def test_real_values_that_look_a_little_like_placeholders_are_taken(password):
    assert load_settings(environ={"ZWAVE_MCP_MQTT_PASSWORD": password}).mqtt_secret == password


def test_the_cli_refuses_a_placeholder_with_exit_2_and_one_line(capsys, monkeypatch):
    from zwave_mcp.commands.cli import main

    monkeypatch.setenv("ZWAVE_MCP_MQTT_PASSWORD", "…")
    assert main(["config"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "zwave-mcp: invalid setting: ZWAVE_MCP_MQTT_PASSWORD=***: is an example's placeholder, not a value; "
        "what goes there: Broker password (or ZWAVE_MCP_MQTT_PASSWORD_FILE)"
    ]
