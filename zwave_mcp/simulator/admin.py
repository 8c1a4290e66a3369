"""Network care in the simulator: inclusion (S0, S2 with the DSK PIN, SmartStart), exclusion, failed
nodes, health checks, route rebuilds, re-interviews and configuration parameters.

Shapes follow zwave-js-ui 11.22.2's `api/lib/ZwaveClient.ts` (the captures hold no inclusion):
- `startInclusion(strategy, options)`: strategy is zwave-js' `InclusionStrategy` (0 Default, 1 SmartStart
  (refused: "add you node to provisioning list"), 2 Insecure, 3 S0, 4 S2); `options` must be an object
  (zwave-js-ui reads `options.name` unguarded). Replies `true`; events on `_EVENTS/.../controller/`:
  `inclusion_started [secure]`, `node_found [{id}]`, `inclusion_stopped`, then for S2
  `grant_security_classes [{securityClasses, clientSideAuth}]` (answered by `grantSecurityClasses`),
  `validate_dsk ["-bbbbb-ccccc-…"]` (the DSK without its first five digits, the PIN; answered by
  `validateDSK(pin)`), then `node_added [node]` and the node's interview events. A wrong PIN, an abort
  or no PIN within `timing.pin_timeout` still adds the node, without security (zwave-js' `lowSecurity`,
  which zwave-js-ui sends its web socket only: on MQTT the node's `security` says it).
- Health checks answer zwave-js' summaries (`{results: [...], rating, targetNodeId}`) and show progress only
  in `getInfo().cntStatus` ("Health check 5-->1: 2/5 done, last rating 10"), as zwave-js-ui does (its
  progress goes to the web socket, not MQTT). Network route rebuilds likewise, plus
  `controller/rebuild_routes_progress` events whose Map payload serializes to `{}`.
- `driverFunction` is deliberately absent: this project never sends it.

A device "waiting to join" is what a person pressing its button would be: `Admin.press_button(device)`.
This module is the controller's state; `admin_api.py` answers the API calls with it.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from zwave_mcp.simulator import payloads
from zwave_mcp.simulator.dumps import SECURITY_CLASS
from zwave_mcp.simulator.host import Respond, SimulatorHost
from zwave_mcp.simulator.house import BROADCAST_ID, CONTROLLER_ID, Node, captured_house, renumbered
from zwave_mcp.simulator.samples import config_values

log = logging.getLogger(__name__)


# zwave-js enums (values as on the wire).
STRATEGY_DEFAULT, STRATEGY_SMART_START, STRATEGY_INSECURE, STRATEGY_S0, STRATEGY_S2 = 0, 1, 2, 3, 4
S2_UNAUTHENTICATED, S2_AUTHENTICATED, S2_ACCESS_CONTROL, S0_LEGACY = 0, 1, 2, 7
INCLUSION_IDLE, INCLUSION_INCLUDING, INCLUSION_EXCLUDING = 0, 1, 2
REMOVED_EXCLUDED, REMOVED_FAILED, REMOVED_REPLACED = 0, 2, 3
QR_S2, QR_SMART_START = 0, 1
PINGS_PER_ROUND = 10


@dataclass
class NewDevice:
    """A device put into inclusion (or exclusion) mode by someone pressing its button."""

    name: str = "Hallway Motion"
    location: str = "Hallway"
    template: int = 7  # the captured node it is a copy of (7: the motion sensor)
    dsk: str = "34567-11111-22222-33333-44444-55555-66666-77777"
    requested: list[int] = field(default_factory=lambda: [S2_AUTHENTICATED, S2_UNAUTHENTICATED])
    config_params: bool = True  # give it Configuration CC parameters

    @property
    def pin(self) -> str:
        return self.dsk[:5]


# --------------------------------------------------------------------------- QR codes (zwave-js format)
def make_qr(
    dsk: str,
    requested: list[int],
    version: int = QR_SMART_START,
    manufacturer_id: int = 0xFFF0,
    product_type: int = 0x0100,
    product_id: int = 0x0020,
) -> str:
    """A Z-Wave provisioning QR string: `90`, version, checksum, keys, DSK, product type and id TLVs."""
    keys = sum(1 << k for k in requested)
    digits = "".join(f"{int(part):05d}" for part in dsk.split("-"))
    # TLVs: type (number << 1 | critical) and length, two digits each. Product type: device class
    # (generic << 8 | specific) and installer icon; product id: manufacturer, type, id, version (5 digits each).
    product_type_tlv = "00" + "10" + f"{(0x07 << 8) | 0x01:05d}{0x0C07:05d}"
    product_id_tlv = "02" + "20" + f"{manufacturer_id:05d}{product_type:05d}{product_id:05d}{0x0100:05d}"
    rest = f"{keys:03d}{digits}{product_type_tlv}{product_id_tlv}"
    checksum = int.from_bytes(hashlib.sha1(rest.encode("ascii")).digest()[:2], "big")
    return f"90{version:02d}{checksum:05d}{rest}"


def parse_qr(qr: Any) -> dict[str, Any]:
    """zwave-js' `parseQRCodeString` → `QRProvisioningInformation`; raises with zwave-js' kind of text."""
    if not isinstance(qr, str) or len(qr) < 52 or not qr.isdigit():
        raise RuntimeError("Invalid QR code: must be a string of at least 52 digits (ZW0400)")
    if not qr.startswith("90"):
        raise RuntimeError('Invalid QR code: must start with "90" (ZW0400)')
    version = int(qr[2:4])
    checksum, rest = int(qr[4:9]), qr[9:]
    if int.from_bytes(hashlib.sha1(rest.encode("ascii")).digest()[:2], "big") != checksum:
        raise RuntimeError("Invalid QR code: invalid checksum (ZW0400)")
    keys = int(rest[0:3])
    dsk = "-".join(rest[3 + 5 * i : 8 + 5 * i] for i in range(8))
    classes = [
        k for k in (S2_UNAUTHENTICATED, S2_AUTHENTICATED, S2_ACCESS_CONTROL, S0_LEGACY) if keys & (1 << k)
    ]
    info: dict[str, Any] = {
        "version": version,
        "securityClasses": classes,
        "requestedSecurityClasses": classes,
        "dsk": dsk,
    }
    tlv = rest[43:]
    while len(tlv) >= 4:
        kind, length = int(tlv[:2]) >> 1, int(tlv[2:4])
        body, tlv = tlv[4 : 4 + length], tlv[4 + length :]
        if kind == 0 and len(body) >= 10:
            device_class = int(body[0:5])
            info.update(
                genericDeviceClass=device_class >> 8,
                specificDeviceClass=device_class & 0xFF,
                installerIconType=int(body[5:10]),
            )
        elif kind == 1 and len(body) >= 20:
            info.update(
                manufacturerId=int(body[0:5]),
                productType=int(body[5:10]),
                productId=int(body[10:15]),
                applicationVersion=f"{int(body[15:20]) >> 8}.{int(body[15:20]) & 0xFF}",
            )
    return info


# --------------------------------------------------------------------------- the controller's state
class Admin:
    """Controller-side state of one simulator: inclusion, provisioning, health checks, route rebuilds."""

    def __init__(self, sim: SimulatorHost) -> None:
        self.sim = sim
        self.waiting: list[NewDevice] = []  # pressed their button to join
        self.leaving: list[int] = []  # nodes whose button was pressed to leave
        self.provisioning: list[dict[str, Any]] = []
        self.inclusion_state = INCLUSION_IDLE
        self.cnt_status = "Scan completed"
        self._lock = threading.RLock()
        self._run: dict[str, Any] | None = None  # the inclusion in progress
        self._grant: Callable[[Any], None] | None = None
        self._dsk: Callable[[Any], None] | None = None
        self._generation = 0  # bumps on stop, so stale timers do nothing
        self._health: dict[int, dict[str, Any]] = {}
        self._rebuild: dict[str, Any] | None = None

    # -- what a person does at the device ------------------------------------------------------------
    def press_button(self, device: NewDevice | None = None) -> NewDevice:
        """A device asks to join; with inclusion running (or its DSK provisioned) it joins shortly."""
        device = device or NewDevice()
        with self._lock:
            self.waiting.append(device)
            provisioned = self._provisioned(device.dsk)
            running = self._run is not None and self.inclusion_state == INCLUSION_INCLUDING
        if running:
            self._later(self._join)
        elif provisioned is not None:
            self._later(lambda: self._smart_start(device, provisioned))
        return device

    def press_button_to_leave(self, node_id: int) -> None:
        with self._lock:
            self.leaving.append(node_id)
            excluding = self.inclusion_state == INCLUSION_EXCLUDING
        if excluding:
            self._later(self._leave)

    # -- helpers ------------------------------------------------------------------------------------
    def _later(self, action: Callable[[], object], delay: float | None = None) -> None:
        """`action` after `delay` (default: one inclusion step), unless inclusion stopped meanwhile."""
        generation = self._generation

        def run() -> None:
            if generation == self._generation:
                action()

        self.sim.scheduler.call_later(self.sim.timing.inclusion_step if delay is None else delay, run)

    def _event(self, name: str, *data: Any) -> None:
        self.sim.event("controller", name, list(data))

    def _provisioned(self, dsk: str) -> dict[str, Any] | None:
        return next((e for e in self.provisioning if e.get("dsk") == dsk), None)

    def _new_node_id(self) -> int:
        return next(i for i in itertools.count(2) if i not in self.sim.nodes and i != BROADCAST_ID)

    # -- inclusion ------------------------------------------------------------------------------------
    def start_inclusion(self, strategy: Any, options: Any, replace_id: int | None = None) -> bool:
        if not isinstance(options, dict):
            raise RuntimeError("Cannot read properties of undefined (reading 'name')")
        strategy = STRATEGY_DEFAULT if strategy is None else strategy
        if strategy == STRATEGY_SMART_START:
            raise RuntimeError("In order to use Smart Start add you node to provisioning list")
        with self._lock:
            if self.inclusion_state != INCLUSION_IDLE:
                return False  # zwave-js: beginInclusion answers false while busy
            qr = options.get("qrString")
            provisioning = options.get("provisioning")
            if strategy == STRATEGY_S2 and isinstance(qr, str):
                parsed = parse_qr(qr)
                if parsed["version"] == QR_SMART_START:
                    self.provision(parsed)
                    return True
                provisioning = parsed
            self._run = {
                "strategy": strategy,
                "name": options.get("name") or "",
                "loc": options.get("location") or "",
                "provisioning": provisioning,
                "replace": replace_id,
            }
            self.inclusion_state = INCLUSION_INCLUDING
            secure = strategy != STRATEGY_INSECURE
            self.cnt_status = f"{'Secure' if secure else 'Non-secure'} inclusion started"
            self._event("inclusion_started", secure)
            if self.waiting:
                self._later(self._join)
        # zwave-js-ui stops inclusion/exclusion after `commandsTimeout` (30 s by default).
        self._later(self.stop_inclusion, self.sim.timing.inclusion_timeout)
        return True

    def stop_inclusion(self) -> bool:
        with self._lock:
            if self.inclusion_state != INCLUSION_INCLUDING or self._run is None or self._run.get("joined"):
                return False
            self._run = None
            self._stopped("inclusion")
        return True

    def _stopped(self, kind: str) -> None:
        self.inclusion_state = INCLUSION_IDLE
        self._generation += 1
        self.cnt_status = f"{kind.capitalize()} stopped"
        self._event(f"{kind}_stopped")

    def _join(self) -> None:
        with self._lock:
            run = self._run
            if run is None or not self.waiting or run.get("joined"):
                return
            device = self.waiting.pop(0)
            run["joined"] = True
            run["device"] = device
            node_id = run["replace"] or self._new_node_id()
            run["node_id"] = node_id
            self.inclusion_state = INCLUSION_IDLE
            self._event("node_found", {"id": node_id})
            self.cnt_status = "Inclusion stopped"
            self._event("inclusion_stopped")
        strategy = run["strategy"]
        if strategy in (STRATEGY_S2, STRATEGY_DEFAULT) and device.requested != [S0_LEGACY]:
            with self._lock:
                self._grant = self._granted
            self._event(
                "grant_security_classes",
                {"securityClasses": list(device.requested), "clientSideAuth": False},
            )
        elif strategy == STRATEGY_S0 or device.requested == [S0_LEGACY]:
            self._later(lambda: self._add(run, S0_LEGACY, low_security=False))
        else:
            self._later(lambda: self._add(run, None, low_security=False))

    def _granted(self, grant: Any) -> None:
        run = self._run
        if run is None:
            return
        if not isinstance(grant, dict):  # aborted: the node joins without security
            self._later(lambda: self._add(run, None, low_security=True))
            return
        classes = [c for c in grant.get("securityClasses") or [] if c in run["device"].requested]
        run["granted"] = classes
        if S2_AUTHENTICATED in classes or S2_ACCESS_CONTROL in classes:
            provisioning = run.get("provisioning")
            if isinstance(provisioning, dict) and provisioning.get("dsk") == run["device"].dsk:
                self._later(lambda: self._add(run, max(classes, key=_rank), low_security=False))
                return
            with self._lock:
                self._dsk = self._pin_entered
            self._event("validate_dsk", run["device"].dsk[5:])
            self._give_up_on_the_pin(run)
        elif classes:
            self._later(lambda: self._add(run, max(classes, key=_rank), low_security=False))
        else:
            self._later(lambda: self._add(run, None, low_security=False))

    def _give_up_on_the_pin(self, run: dict[str, Any]) -> None:
        """No PIN in time: S2 bootstrapping fails and the device joins without security, as with a
        wrong PIN (what zwave-js calls `lowSecurity`)."""

        def expire() -> None:
            with self._lock:
                answer = self._dsk if self._run is run else None
                if answer is not None:
                    self._dsk = None
            if answer is not None:
                log.info("simulated S2 inclusion: no PIN in time")
                answer(False)

        self.sim.scheduler.call_later(self.sim.timing.pin_timeout, expire)

    def _pin_entered(self, pin: Any) -> None:
        run = self._run
        if run is None:
            return
        if isinstance(pin, str) and pin == run["device"].pin:
            self._later(lambda: self._add(run, max(run["granted"], key=_rank), low_security=False))
        else:  # a wrong PIN or an abort: the S2 bootstrapping fails, the node stays without security
            self._later(lambda: self._add(run, None, low_security=True))

    def grant(self, requested: Any) -> None:
        with self._lock:
            answer, self._grant = self._grant, None
        if answer is None:
            log.debug("grantSecurityClasses without an inclusion (zwave-js-ui only logs it)")
            return
        answer(requested)

    def validate_dsk(self, pin: Any) -> None:
        with self._lock:
            answer, self._dsk = self._dsk, None
        if answer is None:
            log.debug("validateDSK without an inclusion (zwave-js-ui only logs it)")
            return
        answer(pin)

    def abort_inclusion(self) -> None:
        with self._lock:
            dsk, grant = self._dsk, self._grant
            self._dsk = self._grant = None
        if dsk is not None:
            dsk(False)
        if grant is not None:
            grant(False)

    def _add(self, run: dict[str, Any], security: int | None, *, low_security: bool) -> None:
        device: NewDevice = run["device"]
        node_id = run["node_id"]
        node = self._build_node(device, node_id, security)
        entry = self._provisioned(device.dsk)
        node["name"] = run.get("name") or (entry or {}).get("name") or device.name
        node["loc"] = run.get("loc") or (entry or {}).get("location") or device.location
        with self._lock:
            if run.get("replace"):
                old = self.sim.nodes.pop(node_id, None)
                if old is not None:
                    self._event("node_removed", payloads.node_summary(old), REMOVED_REPLACED)
            self.sim.nodes[node_id] = node
            self._run = None
            self._generation += 1
            self.cnt_status = f"Node {node_id} added"
        self.sim.event("controller", "node_added", [payloads.node_summary(node)])
        log.info("simulated node %s added (security %s, low %s)", node_id, node.get("security"), low_security)
        self.interview(node)

    def _build_node(self, device: NewDevice, node_id: int, security: int | None) -> Node:
        template = self.sim.nodes.get(device.template)
        if template is None:
            template = next(n for n in captured_house() if n["id"] == device.template)
        node = renumbered(template, node_id)
        node.update(
            isSecure=security is not None,
            security=SECURITY_CLASS.get(-1 if security is None else security, "None"),
            supportsSecurity=True,
            neighbors=[],
            dsk=device.dsk if security is not None and security != S0_LEGACY else None,
            statistics={
                "commandsTX": 0,
                "commandsRX": 0,
                "commandsDroppedRX": 0,
                "commandsDroppedTX": 0,
                "timeoutResponse": 0,
            },
            status="Unknown",
            ready=False,
            inited=False,
            interviewStage="ProtocolInfo",
        )
        if device.config_params:
            node.setdefault("values", {}).update(config_values(node_id))
        return node

    # -- interviews (also `refreshInfo`) -----------------------------------------------------------------
    def interview(self, node: Node) -> None:
        sim = self.sim
        with sim._lock:
            node.update(ready=False, interviewStage="ProtocolInfo", status="Alive")
            sim.publish_status(node)
        sim.event("node", "node_interview_started", [payloads.node_summary(node)])

        def stage(name: str, last: bool) -> Callable[[], None]:
            def run() -> None:
                with sim._lock:
                    node["interviewStage"] = name
                sim.event("node", "node_interview_stage_completed", [payloads.node_summary(node), name])
                if last:
                    with sim._lock:
                        node["interviewStage"] = "Complete"
                        for value in node.get("values", {}).values():
                            sim.publish_value(node, value)
                        node.update(ready=True, inited=True)
                        sim.publish_status(node)
                    sim.event("node", "node_interview_completed", [payloads.node_summary(node)])
                    sim.event("node", "node_ready", [payloads.node_summary(node)])

            return run

        stages = ["ProtocolInfo", "NodeInfo", "CommandClasses", "OverwriteConfig"]
        for index, name in enumerate(stages):
            sim.scheduler.call_later(
                sim.timing.interview_stage * (index + 1), stage(name, index == len(stages) - 1)
            )

    # -- SmartStart --------------------------------------------------------------------------------------
    def provision(self, entry: Any) -> dict[str, Any]:
        if isinstance(entry, str):
            entry = parse_qr(entry)
        if not isinstance(entry, dict) or not entry.get("dsk"):
            raise RuntimeError("DSK is required")
        entry = {**entry, "status": entry.get("status", 0)}
        with self._lock:
            self.provisioning = [e for e in self.provisioning if e.get("dsk") != entry["dsk"]] + [entry]
            waiting = next((d for d in self.waiting if d.dsk == entry["dsk"]), None)
        if waiting is not None:
            self._later(lambda: self._smart_start(waiting, entry))
        return entry

    def _smart_start(self, device: NewDevice, entry: dict[str, Any]) -> None:
        with self._lock:
            if device not in self.waiting or self._run is not None:
                return
            self.waiting.remove(device)
            node_id = self._new_node_id()
            run = {"device": device, "node_id": node_id, "replace": None, "joined": True}
            run["name"], run["loc"] = entry.get("name") or "", entry.get("location") or ""
            self._run = run
            self._event("node_found", {"id": node_id})
        granted = [c for c in entry.get("securityClasses") or [] if c in device.requested]
        self._later(lambda: self._add(run, max(granted, key=_rank) if granted else None, low_security=False))

    # -- exclusion and failed nodes ------------------------------------------------------------------------
    def start_exclusion(self) -> bool:
        with self._lock:
            if self.inclusion_state != INCLUSION_IDLE:
                return False
            self.inclusion_state = INCLUSION_EXCLUDING
            self.cnt_status = "Exclusion started"
            self._event("exclusion_started")
            if self.leaving:
                self._later(self._leave)
        self._later(self.stop_exclusion, self.sim.timing.inclusion_timeout)  # `commandsTimeout` likewise
        return True

    def stop_exclusion(self) -> bool:
        with self._lock:
            if self.inclusion_state != INCLUSION_EXCLUDING:
                return False
            self._stopped("exclusion")
        return True

    def _leave(self) -> None:
        with self._lock:
            if self.inclusion_state != INCLUSION_EXCLUDING or not self.leaving:
                return
            node = self.sim.nodes.pop(self.leaving.pop(0), None)
            if node is not None:
                self._event("node_removed", payloads.node_summary(node), REMOVED_EXCLUDED)
            self._stopped("exclusion")

    def remove_failed(self, node: Node) -> None:
        if node.get("status") != "Dead":
            raise RuntimeError("The node could not be removed because it has not failed (ZW0361)")
        with self._lock:
            self.sim.nodes.pop(int(node["id"]), None)
            self._event("node_removed", payloads.node_summary(node), REMOVED_FAILED)

    # -- health checks and routes -------------------------------------------------------------------------
    def health_check(self, node: Node, target: int, rounds: int, respond: Respond, lifeline: bool) -> None:
        node_id = int(node["id"])
        if node_id in self._health:
            raise RuntimeError("A health check is already in progress for this node")
        state: dict[str, Any] = {"results": [], "respond": respond, "lifeline": lifeline, "target": target}
        self._health[node_id] = state
        dead = node.get("status") == "Dead"
        neighbors = len(neighbours_of(self.sim, node_id))

        def one_round(index: int) -> Callable[[], None]:
            def run() -> None:
                if self._health.get(node_id) is not state:
                    return
                rating = 0 if dead else 10 if index % 3 else 9
                if lifeline:
                    result: dict[str, Any] = {
                        "latency": 0 if dead else 12 + index,
                        "numNeighbors": neighbors,
                        "failedPingsNode": PINGS_PER_ROUND if dead else 0,
                        "rating": rating,
                    }
                    if not dead:
                        result.update(failedPingsController=0, snrMargin=17, minPowerlevel=-6)
                else:
                    result = {
                        "numNeighbors": neighbors,
                        "failedPingsToTarget": PINGS_PER_ROUND if dead else 0,
                        "failedPingsToSource": PINGS_PER_ROUND if dead else 0,
                        "minPowerlevelSource": -6,
                        "minPowerlevelTarget": -6,
                        "rating": rating,
                    }
                state["results"].append(result)
                self.cnt_status = (
                    f"Health check {node_id}-->{target}: {index + 1}/{rounds} done, last rating {rating}"
                )
                if index + 1 == rounds:
                    self._finish_health(node_id)

            return run

        for index in range(rounds):
            self.sim.scheduler.call_later(self.sim.timing.health_round * (index + 1), one_round(index))

    def abort_health(self, node_id: int) -> None:
        if node_id not in self._health:
            raise RuntimeError("Health check not in progress")
        self._finish_health(node_id)

    def _finish_health(self, node_id: int) -> None:
        state = self._health.pop(node_id, None)
        if state is None:
            return
        results = state["results"]
        rating = min((r["rating"] for r in results), default=0)
        state["respond"]({"results": results, "rating": rating, "targetNodeId": state["target"]})

    def rebuild_node(self, node: Node, respond: Respond) -> None:
        ok = node.get("status") != "Dead"
        self.sim.radio.submit(self.sim.timing.route_rebuild, lambda: respond(ok))

    def begin_rebuild(self) -> bool:
        with self._lock:
            if self._rebuild is not None:
                return False
            todo = [
                int(n["id"])
                for n in self.sim.nodes.values()
                if not n.get("virtual") and not n.get("isControllerNode")
            ]
            self._rebuild = {"todo": todo, "done": {}}
        self._rebuild_next(self._rebuild)
        return True

    def _rebuild_next(self, run: dict[str, Any]) -> None:
        def step() -> None:
            if self._rebuild is not run:
                return
            node_id = run["todo"].pop(0)
            node = self.sim.nodes.get(node_id)
            run["done"][node_id] = "failed" if node is None or node.get("status") == "Dead" else "done"
            finished = not run["todo"]
            state = "COMPLETED" if finished else "IN PROGRESS"
            self.cnt_status = f"Rebuild Routes process {state}. Healed {len(run['done'])} nodes"
            self._event("rebuild_routes_progress", {})  # a Map in zwave-js-ui: JSON makes it `{}`
            if finished:
                self._rebuild = None
            else:
                self._rebuild_next(run)

        if run["todo"]:
            self.sim.scheduler.call_later(self.sim.timing.route_rebuild, step)
        else:
            self._rebuild = None

    def stop_rebuild(self) -> bool:
        with self._lock:
            if self._rebuild is None:
                return False
            self._rebuild = None
            self.cnt_status = "Rebuild Routes process STOPPED"
        return True


def _rank(security_class: int) -> int:
    return {S0_LEGACY: 0, S2_UNAUTHENTICATED: 1, S2_AUTHENTICATED: 2, S2_ACCESS_CONTROL: 3}.get(
        security_class, -1
    )


def neighbours_of(sim: SimulatorHost, node_id: int) -> list[int]:
    """A plausible mesh: the controller and the always-listening nodes next to it by id."""
    real = sorted(
        int(n["id"])
        for n in sim.nodes.values()
        if not n.get("virtual") and n.get("isListening", True) and int(n["id"]) != node_id
    )
    near = [other for other in real if abs(other - node_id) <= 2 or other == CONTROLLER_ID]
    return near
