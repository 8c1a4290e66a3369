"""Only the write gate names the gateway's write APIs (issue 12).

Every module of the package is parsed; outside the gate (`zwave_mcp/devices/gate/`), the gateway's API
wrappers (`gateway/client.py`, `gateway/api.py`, `gateway/admin.py`, `gateway/firmware.py`) and the simulator (which plays zwave-js-ui), no code may
name a write API in a string (prose in docstrings and comments is fine) nor call the wrapper's write methods.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import zwave_mcp

PACKAGE = Path(zwave_mcp.__file__).parent
# gateway/admin.py, gateway/associations.py and gateway/firmware.py build the network-care requests
# (`AdminRequest`); only the gate sends them.
ALLOWED = (
    "devices/gate/",
    "gateway/client.py",
    "gateway/api.py",
    "gateway/admin.py",
    "gateway/associations.py",
    "gateway/firmware.py",
    "simulator/",
)

# zwave-js-ui APIs that change the network, a node, a value or zwave-js-ui itself (from `allowedApis` in
# api/lib/ZwaveClient.ts, 11.x; the read-only ones like getNodes, pollValue, pingNode are left out).
WRITE_API_NAMES = [
    "writeValue",
    "writeBroadcast",
    "writeMulticast",
    "sendCommand",
    "driverFunction",
    "_activateScene",
    "_createScene",
    "_removeScene",
    "_setScenes",
    "_addSceneValue",
    "_removeSceneValue",
    "setNodeName",
    "setNodeLocation",
    "updateControllerNodeProps",
    "setPowerlevel",
    "setRFRegion",
    "setMaxLRPowerLevel",
    "startInclusion",
    "stopInclusion",
    "startExclusion",
    "stopExclusion",
    "abortInclusion",
    "grantSecurityClasses",
    "validateDSK",
    "replaceFailedNode",
    "removeFailedNode",
    "hardReset",
    "softReset",
    "restart",
    "shutdownZwaveAPI",
    "startLearnMode",
    "stopLearnMode",
    "healNode",
    "beginHealingNetwork",
    "stopHealingNetwork",
    "rebuildNodeRoutes",
    "beginRebuildingRoutes",
    "stopRebuildingRoutes",
    "setPriorityRoute",
    "removePriorityRoute",
    "assignReturnRoutes",
    "assignPriorityReturnRoute",
    "assignPrioritySUCReturnRoute",
    "assignCustomReturnRoutes",
    "assignCustomSUCReturnRoutes",
    "deleteReturnRoutes",
    "deleteSUCReturnRoutes",
    "addAssociations",
    "removeAssociations",
    "removeAllAssociations",
    "removeNodeFromAllAssociations",
    "updateFirmware",
    "firmwareUpdateOTW",
    "firmwareUpdateOTA",
    "abortFirmwareUpdate",
    "installConfigUpdate",
    "restoreNVM",
    "provisionSmartStartNode",
    "unprovisionSmartStartNode",
    "syncNodeDateAndTime",
    "manuallyIdleNotificationValue",
    "setSchedule",
    "setEnabledSchedule",
    "createConfigurationTemplate",
    "updateConfigurationTemplate",
    "deleteConfigurationTemplate",
    "applyConfigurationTemplate",
    "importConfigurationTemplates",
    "setValue",
    "setConfigParameter",
    "multicastSetValue",
    # a keypad lock's users and codes (11.22: `accessControl*`); the reads (GetState, Refresh…) are free
    "accessControlAddUser",
    "accessControlSetUser",
    "accessControlDeleteUser",
    "accessControlDeleteAllUsers",
    "accessControlSetCredential",
    "accessControlDeleteCredential",
    "accessControlDeleteCredentials",
    "accessControlAssignCredential",
    "accessControlStartCredentialLearn",
    "accessControlCancelCredentialLearn",
    "accessControlSetAdminCode",
]
WRITE_APIS = re.compile("^(" + "|".join(map(re.escape, WRITE_API_NAMES)) + ")$")
WRITE_METHODS = frozenset({"write_value", "activate_scene"})


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def offences(source: str, where: str) -> list[str]:
    tree = ast.parse(source)
    prose = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            if WRITE_APIS.match(node.value.strip()):
                found.append(f"{where}:{node.lineno} names {node.value!r}")
        elif isinstance(node, ast.Attribute) and node.attr in WRITE_METHODS:
            found.append(f"{where}:{node.lineno} calls .{node.attr}")
    return found


def test_no_module_but_the_gate_names_a_gateway_write_api() -> None:
    found = []
    checked = 0
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE).as_posix()
        if where.startswith(ALLOWED):
            continue
        checked += 1
        found += offences(path.read_text(encoding="utf-8"), where)
    assert checked > 40
    assert found == [], "only zwave_mcp/devices/gate may call the gateway's write APIs:\n" + "\n".join(found)


def test_the_check_sees_what_it_looks_for() -> None:
    # The old scene tool: its own copy of the pipeline, straight to the gateway.
    old = '''
"""Activates a scene via _activateScene."""
async def activate(app, scene):
    topic, payload = app.gateway.api.build_request("_activateScene", [scene.id])
    await app.gateway.activate_scene(scene.id)
    await app.gateway.call("setNodeName", 5, "x")
'''
    assert offences(old, "old.py") == [
        "old.py:4 names '_activateScene'",
        "old.py:5 calls .activate_scene",
        "old.py:6 names 'setNodeName'",
    ]
