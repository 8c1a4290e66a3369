"""Every problem with a setting or a file is one line naming it, exit 2, no traceback, in `config` and
`serve` alike; a broker password never shows, whatever characters it holds."""

import os
import subprocess
import sys

import pytest

from zwave_mcp.commands.cli import main
from zwave_mcp.config import ENV_PREFIX, load_settings, settings_warnings
from zwave_mcp.logs import redact_text, redact_url

PASSWORDS = ["se#cret", "se/cret", "se?cret", "se@cret", "se:cret", "s%23ecret", "se cret"]


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for key in list(os.environ):
        if key.startswith(ENV_PREFIX):
            monkeypatch.delenv(key)
    return monkeypatch


def _files(tmp_path):
    (tmp_path / "pw.bin").write_bytes(b"\xff\xfepass")
    (tmp_path / "aliases.json").write_text('{"porch": "Porch light",')
    (tmp_path / "aliases-shape.json").write_text('{"porch": 5}')
    (tmp_path / "deep.json").write_text("[" * 100_000)
    (tmp_path / "policy.toml").write_text("deny = [")
    return tmp_path


CASES = [
    ("MQTT_PASSWORD_FILE", "pw.bin", "not UTF-8"),
    ("MQTT_PASSWORD_FILE", "missing", "cannot read"),
    ("MQTT_PASSWORD_FILE", ".", "cannot read"),
    ("ALIASES_FILE", "aliases.json", "not valid JSON"),
    ("ALIASES_FILE", "aliases-shape.json", "must map to a device name"),
    ("ALIASES_FILE", "deep.json", "nested too deeply"),
    ("POLICY_FILE", "policy.toml", "not valid TOML"),
    ("POLICY_FILE", "deep.json", "not valid JSON"),
    ("AUDIT_FILE", "no-such-dir/audit.jsonl", "directory does not exist"),
    ("AUDIT_FILE", ".", "is a directory"),
]


@pytest.mark.parametrize(("setting", "file", "problem"), CASES)
def test_config_reports_a_bad_file_in_one_line_and_exits_2(
    setting, file, problem, tmp_path, clean_env, capsys
):
    clean_env.setenv(ENV_PREFIX + setting, str(_files(tmp_path) / file))
    assert main(["config"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and ENV_PREFIX + setting in err and problem in err, err


def test_tls_files_that_cannot_load_are_a_setting_problem(tmp_path, clean_env, capsys):
    clean_env.setenv("ZWAVE_MCP_MQTT_URL", "mqtts://127.0.0.1:8883")
    clean_env.setenv("ZWAVE_MCP_TLS_CA", str(tmp_path / "missing.pem"))
    assert main(["config"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ZWAVE_MCP_TLS_CA" in err and "missing.pem" in err, err


@pytest.mark.parametrize(("setting", "file", "problem"), [CASES[0], CASES[3]])
def test_serve_reports_a_bad_file_the_same_way(setting, file, problem, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(ENV_PREFIX)}
    env[ENV_PREFIX + setting] = str(_files(tmp_path) / file)
    done = subprocess.run(
        [sys.executable, "-m", "zwave_mcp", "serve"], input=b"", capture_output=True, timeout=60, env=env
    )
    assert done.returncode == 2 and done.stdout == b""
    err = done.stderr.decode()
    assert err.count("\n") == 1 and problem in err and "Traceback" not in err, err


@pytest.mark.parametrize("password", PASSWORDS)
def test_a_password_in_the_url_never_shows(password, clean_env, capsys):
    clean_env.setenv("ZWAVE_MCP_MQTT_URL", f"mqtt://user:{password}@broker.lan:1883")
    code = main(["config"])
    out, err = capsys.readouterr()
    assert code in (0, 2)
    secret = password.replace("%23", "#")
    for text in (out, err):
        assert "cret" not in text, text
        assert secret not in text
    assert "ZWAVE_MCP_MQTT_PASSWORD" in err  # the advice: the invalid-setting line or the warning


@pytest.mark.parametrize("password", PASSWORDS)
def test_redaction_hides_any_password(password):
    url = f"mqtt://user:{password}@broker.lan:1883"
    assert redact_url(url) == "mqtt://user:***@broker.lan:1883"
    if " " not in password:  # in free text a space ends the URL: nothing can tell where it would go on
        assert "cret" not in redact_text(f"connecting to {url} now")


def test_unencoded_hash_in_the_url_is_refused_with_advice(clean_env):
    with pytest.raises(Exception, match="%23") as caught:
        load_settings(environ={"ZWAVE_MCP_MQTT_URL": "mqtt://u:se#cret@h"})
    assert "cret" not in str(caught.value)


def test_a_password_in_the_url_gets_one_warning():
    with_pw = load_settings(environ={"ZWAVE_MCP_MQTT_URL": "mqtt://u:p%23w@h"})
    assert with_pw.mqtt_secret == "p#w"
    notes = settings_warnings(with_pw, environ={})
    assert len(notes) == 1 and "ZWAVE_MCP_MQTT_PASSWORD_FILE" in notes[0] and "p#w" not in notes[0]
    assert settings_warnings(load_settings(environ={"ZWAVE_MCP_MQTT_URL": "mqtt://u@h"}), environ={}) == []


def test_undecodable_environment_bytes_become_encodable_text():
    # Linux hands undecodable environment bytes over as lone surrogates (surrogateescape).
    settings = load_settings(environ={"ZWAVE_MCP_PREFIX": "zw\udcff", "ZWAVE_MCP_MQTT_USERNAME": "\ud800"})
    assert settings.prefix == "zw\ufffd" and settings.mqtt_user == "\ufffd"
    settings.model_dump_json()  # would raise on a lone surrogate


def _limited_memory() -> None:
    # A reader that runs on into /dev/zero must fail here, not take the machine's memory with it.
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (2 * 1024**3, 2 * 1024**3))


@pytest.mark.parametrize(
    ("setting", "kind"),
    [
        ("MQTT_PASSWORD_FILE", "zero"),
        ("MQTT_PASSWORD_FILE", "fifo"),
        ("TLS_KEY_PASSWORD_FILE", "zero"),
        ("ALIASES_FILE", "zero"),
        ("ALIASES_FILE", "fifo"),
        ("POLICY_FILE", "fifo"),
        ("POLICY_FILE", "zero"),
        ("AUDIT_FILE", "fifo"),
        ("TLS_CA", "fifo"),
    ],
)
def test_a_file_setting_that_leads_to_a_pipe_or_device_is_refused_not_read_forever(setting, kind, tmp_path):
    """A symlink to /dev/zero used to be read until memory ran out, a named pipe blocked the start."""
    path = tmp_path / f"{kind}-link"
    if kind == "zero":
        path.symlink_to("/dev/zero")
    else:
        os.mkfifo(path)
    env = {k: v for k, v in os.environ.items() if not k.startswith(ENV_PREFIX)}
    env[ENV_PREFIX + setting] = str(path)
    if setting == "TLS_CA":
        env[ENV_PREFIX + "MQTT_URL"] = "mqtts://127.0.0.1:8883"
    done = subprocess.run(
        [sys.executable, "-m", "zwave_mcp", "config"],
        capture_output=True,
        timeout=30,
        env=env,
        preexec_fn=_limited_memory,
    )
    err = done.stderr.decode()
    assert done.returncode == 2 and done.stdout == b"", err
    assert err.count("\n") == 1 and ENV_PREFIX + setting in err and "Traceback" not in err, err
    assert "pipe" in err, err


def test_an_oversized_password_file_is_refused(tmp_path, clean_env, capsys):
    (tmp_path / "pw").write_bytes(b"x" * 100_000)
    clean_env.setenv("ZWAVE_MCP_MQTT_PASSWORD_FILE", str(tmp_path / "pw"))
    assert main(["config"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ZWAVE_MCP_MQTT_PASSWORD_FILE" in err and "larger than" in err, err


@pytest.mark.parametrize("size", ["inf", "1e308"])
def test_a_history_cap_too_large_to_use_is_a_setting_problem(size, clean_env, capsys):
    """It passed validation, then `int(inf)` ended `config` and `serve` in a traceback."""
    clean_env.setenv("ZWAVE_MCP_HISTORY_MAX_MB", size)
    clean_env.setenv("ZWAVE_MCP_HISTORY_PATH", "off")
    assert main(["config"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ZWAVE_MCP_HISTORY_MAX_MB" in err, err
