"""zwave-js-ui 11.22's access-control API (`accessControl*` in `api/lib/ZwaveClient.ts`), as recorded
(`api_calls_locks_*`, captures README "Keypad locks") on the two keypad locks of the test bed.

A lock is one of two kinds:
- **User Code** (command class 99, node 12 "Back Door Lock"): a user is a slot; its state lives in the
  node's `userIdStatus-<n>` (0 available, 1 enabled, 2 disabled) and `userCode-<n>` values, which are
  published (retained, in clear) with a `node_value_updated` event on every change, as zwave-js-ui does.
  No names. zwave-js checks the PIN (4-10 digits) and the slot range before sending, and NOT whether the
  slot is in use: adding a user to a taken slot silently replaces that person's code.
- **User Credential** (command class 131, node 13 "Side Door Lock"): users with names and credentials in
  zwave-js's cache only (every value internal: nothing on MQTT, ever). A user is created even when its PIN
  is refused (`credentialResult` 1 slot taken, 3 duplicate, 255 no report: the lock ignored a PIN outside
  its 4-8 digits, answered after ~1.1 s).
Deleting a user that does not exist answers 0 (OK) on both.

The state `accessControlGetState` answers is the node's `accessControl` (what `getNodes` shows too), PINs
in clear (`data`), as zwave-js-ui publishes them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from zwave_mcp.simulator.host import arg, found_node
from zwave_mcp.simulator.house import Node
from zwave_mcp.zwave.classes import CC
from zwave_mcp.zwave.wire import value_key

if TYPE_CHECKING:
    from zwave_mcp.simulator.admin_api import AdminHost
    from zwave_mcp.simulator.host import Respond, SimulatorHost

PIN_CODE = 1
PASSWORD = 2
# zwave-js's words for the errors it raises before sending (ZW0322: invalid argument), as recorded.
CODE_RULE = "The user code must consist of 4 to 10 of the following characters: 0123456789 (ZW0322)"
NEEDS_CREDENTIAL = (
    "On this device, users and codes must be stored together. addUser() requires a credential. (ZW0322)"
)
SET_NEEDS_ADD = (
    "On this device, users and codes must be stored together. To add a new user, use the addUser() "
    "method and provide a credential. (ZW0322)"
)
MANUAL_ONLY = "Only PIN and password credentials can be entered manually"
_UC_CODE = re.compile(r"[0-9]{4,10}")
# SetUserResult / SetCredentialResult (zwave-js).
OK, ADD_REJECTED, MODIFY_REJECTED, DUPLICATE, WRONG_USER, NO_REPORT = 0, 1, 2, 3, 6, 255


def is_user_code(node: Node) -> bool:
    return any(v.get("commandClass") == CC.USER_CODE for v in node.get("values", {}).values())


def supports(node: Node) -> bool:
    access = node.get("accessControl")
    return is_user_code(node) or (isinstance(access, dict) and bool(access.get("supported")))


def _endpoint(node: Node) -> dict[str, Any]:
    """The root endpoint's entry of the node's access-control state (created for a User Code node)."""
    access = node.setdefault("accessControl", {"supported": True, "endpoints": [], "primaryEndpoint": 0})
    if not access.get("endpoints"):
        access["endpoints"] = [{"endpointIndex": 0, "capabilities": _user_code_caps(node)}]
        access["supported"] = True
        access["primaryEndpoint"] = 0
    entry: dict[str, Any] = access["endpoints"][0]
    entry.setdefault("users", [])
    entry.setdefault("credentials", [])
    return entry


def _slots(node: Node) -> list[int]:
    return sorted(
        int(v["propertyKey"])
        for v in node.get("values", {}).values()
        if v.get("commandClass") == CC.USER_CODE and v.get("property") == "userIdStatus"
    )


def _user_code_caps(node: Node) -> dict[str, Any]:
    slots = len(_slots(node))
    return {
        "maxUsers": slots,
        "supportedUserTypes": [0],
        "supportedCredentialRules": [1],
        "supportedCredentialTypes": [
            {
                "type": PIN_CODE,
                "numberOfCredentialSlots": slots,
                "minCredentialLength": 4,
                "maxCredentialLength": 10,
                "maxCredentialHashLength": 0,
                "supportsCredentialLearn": False,
            }
        ],
        "supportsAdminCode": True,
        "supportsAdminCodeDeactivation": True,
        "supportsCredentialAssignment": False,
        "requiresCredentialAtUserCreation": True,
    }


def _uc_value(node: Node, prop: str, slot: int) -> dict[str, Any] | None:
    return node.get("values", {}).get(value_key(CC.USER_CODE, 0, prop, slot))


def _sync_user_code(node: Node) -> None:
    """A User Code node's users and credentials, as zwave-js reads them from its values."""
    entry = _endpoint(node)
    users, credentials = [], []
    for slot in _slots(node):
        status = (_uc_value(node, "userIdStatus", slot) or {}).get("value")
        if status not in (1, 2):
            continue
        users.append({"userId": slot, "active": status == 1, "userType": 0})
        code = (_uc_value(node, "userCode", slot) or {}).get("value")
        if code:
            credentials.append(
                {"userId": slot, "type": PIN_CODE, "slot": slot, "data": code, "isBinary": False}
            )
    entry["users"], entry["credentials"] = users, credentials


def state(node: Node) -> dict[str, Any]:
    if not supports(node):
        return {"supported": False, "endpoints": []}
    if is_user_code(node):
        _sync_user_code(node)
    else:
        _endpoint(node)
    return node["accessControl"]


def _node(sim: AdminHost, args: list[Any]) -> Node:
    node = found_node(sim, arg(args, 0))
    if not supports(node):
        raise RuntimeError(f"Node {node['id']} does not support access control")
    return node


def _caps(node: Node) -> dict[str, Any]:
    return _endpoint(node)["capabilities"]


def _pin_caps(node: Node) -> dict[str, Any]:
    for entry in _caps(node).get("supportedCredentialTypes", []):
        if entry.get("type") == PIN_CODE:
            return dict(entry)
    return {"numberOfCredentialSlots": 0, "minCredentialLength": 4, "maxCredentialLength": 10}


def _check_credential_type(node: Node, kind: Any) -> None:
    if kind not in (PIN_CODE, PASSWORD):
        raise RuntimeError(MANUAL_ONLY)
    if kind != PIN_CODE:
        raise RuntimeError("Credential type Password is not supported by this node (ZW0322)")


def _user_code(data: Any) -> str:
    if not isinstance(data, str) or not _UC_CODE.fullmatch(data):
        raise RuntimeError(CODE_RULE)
    return data


def _check_user_id(node: Node, user_id: Any) -> int:
    if (
        not isinstance(user_id, int)
        or isinstance(user_id, bool)
        or not 1 <= user_id <= _caps(node)["maxUsers"]
    ):
        raise RuntimeError(f"User ID {user_id} is out of range (ZW0322)")
    return user_id


# ---------------------------------------------------------------------- User Code (values)
def _uc_set(sim: SimulatorHost, node: Node, slot: int, status: int, code: str) -> None:
    """The lock took a User Code Set: zwave-js updates (and zwave-js-ui publishes) both values."""
    status_value = _uc_value(node, "userIdStatus", slot)
    code_value = _uc_value(node, "userCode", slot)
    sim.touch(node)
    if status_value is not None:
        sim.set_value(node, status_value, status)
    if code_value is not None:
        sim.set_value(node, code_value, code)
    _sync_user_code(node)


def write_user_code(sim: SimulatorHost, node: Node, prop: str, slot: int, new: Any) -> None:
    """A `writeValue` to a User Code value, as zwave-js's User Code API sets it: a code keeps the slot's
    status (a free slot becomes enabled); a status of 0 (available) clears the slot, another keeps its code.
    Both values are published, as after the access-control calls."""
    status, code = _uc_status(node, slot), str((_uc_value(node, "userCode", slot) or {}).get("value") or "")
    if prop == "userCode":
        _uc_set(sim, node, slot, status or 1, str(new))
    elif new == 0:
        _uc_set(sim, node, slot, 0, "")
    else:
        _uc_set(sim, node, slot, int(new), code)


def _uc_status(node: Node, slot: int) -> int:
    return int((_uc_value(node, "userIdStatus", slot) or {}).get("value") or 0)


# ---------------------------------------------------------------------- handlers
def _get_state(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    node = found_node(sim, arg(args, 0))
    respond(state(node), delay=sim.timing.api_reply)  # zwave-js's cache: no radio traffic


def _refresh(listed: str) -> Callable[[AdminHost, list[Any], Respond], None]:
    """`accessControlRefreshUsers` ("users") or `…Credentials` ("credentials"): read from the lock again."""

    def handler(sim: AdminHost, args: list[Any], respond: Respond) -> None:
        node = _node(sim, args)
        per_slot = len(_slots(node)) if is_user_code(node) else 2  # User Code: one Get per slot

        def done() -> None:
            sim.touch(node)
            respond(state(node)["endpoints"][0][listed])

        sim.radio.submit(sim.timing.poll * 0.55 * max(1, per_slot), done)

    return handler


def _add_user(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    node = _node(sim, args)
    user_id, options, credential = arg(args, 2), arg(args, 3) or {}, arg(args, 4)
    _check_user_id(node, user_id)
    if is_user_code(node):
        if not isinstance(credential, dict):
            raise RuntimeError(NEEDS_CREDENTIAL)
        _check_credential_type(node, credential.get("type"))
        code = _user_code(credential.get("data"))
        status = 2 if options.get("active") is False else 1

        def stored() -> None:  # whatever the slot held: zwave-js does not look (recorded)
            _uc_set(sim, node, user_id, status, code)
            respond({"userResult": OK, "credentialResult": OK})

        sim.radio.submit(sim.timing.write_supervised, stored)
        return
    entry = _endpoint(node)
    if isinstance(credential, dict):
        _check_credential_type(node, credential.get("type"))
        _check_slot(node, credential.get("slot"))
    if any(u["userId"] == user_id for u in entry["users"]):
        sim.radio.submit(sim.timing.write_supervised / 2, lambda: respond({"userResult": ADD_REJECTED}))
        return
    user = {
        "userId": user_id,
        "active": options.get("active", True) is not False,
        "userType": options.get("userType", 0),
        "credentialRule": options.get("credentialRule", 1),
    }
    if options.get("userName") is not None:
        user["userName"] = str(options["userName"])

    def created() -> None:
        sim.touch(node)
        entry["users"].append(user)  # the user stays, whatever becomes of its credential (recorded)
        entry["users"].sort(key=lambda u: u["userId"])
        if not isinstance(credential, dict):
            respond({"userResult": OK})
            return
        _credential(
            sim,
            node,
            user_id,
            credential.get("slot"),
            credential.get("data"),
            lambda r: respond({"userResult": OK, "credentialResult": r}),
        )

    sim.radio.submit(sim.timing.write_supervised / 2, created)


def _check_slot(node: Node, slot: Any) -> int:
    slots = _pin_caps(node).get("numberOfCredentialSlots", 0)
    if not isinstance(slot, int) or isinstance(slot, bool) or not 1 <= slot <= slots:
        raise RuntimeError(f"Credential slot {slot} is out of range for credential type PINCode (ZW0322)")
    return slot


def _credential(sim: AdminHost, node: Node, user_id: int, slot: Any, data: Any, answer: Any) -> None:
    """A User Credential Set on the lock: its answer (SetCredentialResult) through `answer`."""
    entry = _endpoint(node)
    pin = _pin_caps(node)
    held = next((c for c in entry["credentials"] if c["type"] == PIN_CODE and c["slot"] == slot), None)
    code = data if isinstance(data, str) else ""
    if held is not None and held["userId"] != user_id:
        sim.radio.submit(sim.timing.write_supervised / 2, lambda: answer(ADD_REJECTED))
        return
    if any(c["data"] == code and c is not held for c in entry["credentials"]):
        sim.radio.submit(sim.timing.write_supervised / 2, lambda: answer(DUPLICATE))
        return
    if not pin["minCredentialLength"] <= len(code) <= pin["maxCredentialLength"] or not code.isdigit():
        # The lock ignores it: no report, zwave-js gives up after its report timeout (~1.1 s).
        sim.radio.submit(sim.timing.second_poll, lambda: answer(NO_REPORT))
        return

    def stored() -> None:
        sim.touch(node)
        if held is not None:
            held["data"] = code
        else:
            entry["credentials"].append(
                {"userId": user_id, "type": PIN_CODE, "slot": slot, "data": code, "isBinary": False}
            )
            entry["credentials"].sort(key=lambda c: (c["type"], c["slot"]))
        answer(OK)

    sim.radio.submit(sim.timing.write_supervised / 2, stored)


def _set_user(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    node = _node(sim, args)
    user_id, options = arg(args, 2), arg(args, 3) or {}
    _check_user_id(node, user_id)
    if is_user_code(node):
        status = _uc_status(node, user_id)
        if status == 0:
            raise RuntimeError(SET_NEEDS_ADD)
        code = (_uc_value(node, "userCode", user_id) or {}).get("value") or ""
        new_status = status if "active" not in options else (1 if options["active"] else 2)

        def resent() -> None:  # a name is accepted and dropped: User Code has none (recorded)
            _uc_set(sim, node, user_id, new_status, code)  # the same code is sent again
            respond(OK)

        sim.radio.submit(sim.timing.write_supervised, resent)
        return
    user = next((u for u in _endpoint(node)["users"] if u["userId"] == user_id), None)

    def stored() -> None:
        if user is None:
            respond(MODIFY_REJECTED)
            return
        sim.touch(node)
        if "userName" in options:
            user["userName"] = str(options["userName"])
        if "active" in options:
            user["active"] = bool(options["active"])
        if "userType" in options:
            user["userType"] = options["userType"]
        respond(OK)

    sim.radio.submit(sim.timing.write_supervised / 2, stored)


def _set_credential(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    node = _node(sim, args)
    user_id, kind, slot, data = arg(args, 2), arg(args, 3), arg(args, 4), arg(args, 5)
    _check_credential_type(node, kind)
    if is_user_code(node):
        _check_user_id(node, user_id)
        code = _user_code(data)
        status = _uc_status(node, user_id) or 1

        def stored() -> None:
            _uc_set(sim, node, user_id, status, code)
            respond(OK)

        sim.radio.submit(sim.timing.write_supervised, stored)
        return
    _check_slot(node, slot)
    if not any(u["userId"] == user_id for u in _endpoint(node)["users"]):
        sim.radio.submit(sim.timing.write_supervised / 2, lambda: respond(WRONG_USER))
        return
    _credential(sim, node, user_id, slot, data, respond)


def _delete_user(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    node = _node(sim, args)
    user_id = arg(args, 2)
    if is_user_code(node):
        _check_user_id(node, user_id)

        def cleared() -> None:  # status 0 and "" (both published) whether or not the slot held anyone: OK
            _uc_set(sim, node, user_id, 0, "")
            respond(OK)

        sim.radio.submit(sim.timing.write_supervised, cleared)
        return
    entry = _endpoint(node)

    def removed() -> None:  # OK also for a user that does not exist (recorded)
        sim.touch(node)
        entry["users"] = [u for u in entry["users"] if u["userId"] != user_id]
        entry["credentials"] = [c for c in entry["credentials"] if c["userId"] != user_id]
        respond(OK)

    sim.radio.submit(sim.timing.write_supervised / 2, removed)


def _get_admin_code(sim: AdminHost, args: list[Any], respond: Respond) -> None:
    node = _node(sim, args)
    admin = node.get("values", {}).get(value_key(CC.USER_CODE, 0, "adminCode"))

    def done() -> None:
        sim.touch(node)
        if admin is not None:
            sim.publish_value(node, admin)  # re-published, code and all (recorded)
        respond({"isSet": True})

    sim.radio.submit(sim.timing.poll, done)


HANDLERS: dict[str, Callable[[AdminHost, list[Any], Respond], None]] = {
    "accessControlGetState": _get_state,
    "accessControlRefreshUsers": _refresh("users"),
    "accessControlRefreshCredentials": _refresh("credentials"),
    "accessControlAddUser": _add_user,
    "accessControlSetUser": _set_user,
    "accessControlSetCredential": _set_credential,
    "accessControlDeleteUser": _delete_user,
    "accessControlGetAdminCode": _get_admin_code,
}
