"""The one write gate: every change the product makes passes here, and nothing else writes.

Steps, in order, for one call (`Gate.run(planner, token=..., ask=...)` for a change planned from the
devices' state, `Gate.apply(change, ...)` for one that is not: a scene, an admin call). `core.py` runs them
and keeps the record; `judge.py` decides whether a change may go; `proof.py` sends it and shows what happened.
0. plan: `planner()` builds the `Change` from the state the devices report now, with those devices held
   (`Gate.locks`, one change at a time per device). Nothing waits for a person while holding a device:
   a change that needs the person's yes is asked about with none held, then planned again, held, from
   the state after the answer, and sent only if the yes covers what it now needs a yes for (else asked
   again). An effect that would need a yes but changes nothing (the device already reports its target:
   a lock already unlocked, a siren already silent) is neither asked about nor sent, when the sender can
   leave it out (`per_effect`); a change of nothing else ends `unchanged`, saying so;
1. policy on the EFFECT, never on the action's name (`judge.py`): read-only refuses every change;
   deny/allow refuse (naming the device), hide refuses without naming it; sensitive effects (unsecuring a
   lock, opening a door/gate/garage cover or switching an opener, setpoints outside the safe band, the
   confirm lists matched against what each effect amounts to) need confirmation or, with forbid_sensitive,
   are refused. A node-wide effect (`Effect.node_wide`: an admin call, a configuration parameter) reaches
   every device of its node: the gate adds the others to the change (`Change.reach`, from
   `Gate.reach_with`, hidden ones too) and judges each alike, so a hidden sibling refuses it unnamed and a
   denied one by name;
2. ONE confirmation per call, bound to `change.binding()` (the exact effects): elicitation through
   `ask(question, binding)`, or a one-time token (`dialogue.py`);
3. rate limits, per device and overall (`judge.py`): one change is one command overall and one per device
   it changes, admitted whole or not at all (a refused one counts nothing and gives its token back);
4. dry run: the exact messages (topic, payload, qos, retain), nothing sent;
5. send through the change's `Sender`, then evidence (`proof.py`): each effect's outcome from the device's
   own report received after the write (watched from before the send with the gateway's
   `Waiters.watch`), else the check-back poll; said by `evidence.py`;
6. exactly one audit line per attempt with the final `Outcome`, and the same record (`GateResult`) to every
   listener (`Gate.add_listener`), written before the call returns.

Interface
---------
- `Effect(device, value, target, words, argument, unit, expect, options)`: one value on one device going to
  `target`. Build it with `value_effect(device, value, target, expect=...)`, which works out `words` (what
  the effect amounts to: {"on", "set_level"}, {"unlock"}, {"open", "set_position"}) from the value itself.
  An effect that is not a value write (a rename, a configuration parameter) has `value=None` and states
  its own `words` (e.g. {"rename"}, {"configure"}); the policy then judges the device and those words.
- `Change(tool, action, summary, effects, sender, subject="", argument=None)`: one call's change; may span
  many devices (one confirmation listing them all, one outcome per device in `GateResult.devices`).
- `Sender`: `preview(change, gateway) -> messages` and `async send(change, gateway, timeout) -> [Delivery]`.
  Ready: `WriteValues()` (writeValue per effect), `ActivateScene(scene_id)`, `ApiCall([(api, args), ...])`
  (any API answering true/false: setNodeName, configuration, inclusion…). Senders live in
  `senders.py`, the only module that names the gateway's write APIs.
- `GateResult`: outcome, sentence, per-device outcomes, token, messages; the tool results, the audit line
  and the listeners all come from it. `Gate.add_listener(callback)` sees every final record (history).
- `Planner`: `() -> Change` (or an awaitable of one, for a planner that reads the device first: a lock's
  users), called by `Gate.run` (maybe more than once: before and after the person's answer) and free to
  raise the planners' own errors; `Gate.run(planner, holding=[keys])` holds those
  devices while planning (else those of a first plan). A new kind of change planned from a device's
  state (a lock user's code) is a planner like `control_change(plan_control(...))`.
- `Gate.refuse(change, sentence)`: audit a change a planner could not put together for judging.
- `Gate.begin()` / `Gate.end(...)`: the executor's hook, so a mutating call that ends before the gate (no
  such device, a bad value, read-only mode) still leaves its one audit line.
- The asker `ask(question, binding) -> "accept" | "decline" | "cancel" | None` (None: hand out a token);
  `binding` is `Change.binding()`, a canonical string of the exact change, so an asker of a newer protocol
  can bind the pending change into its request state. An exception raised by `ask` ends the call (after
  its audit line as needs_confirmation).

Many devices at once (issue 14): one `Change` whose effects span the devices, sent by `WriteValues()` or
`GroupWrites` (multicast); one confirmation lists them all, `GateResult.devices` has one outcome each.

Adding a new kind of change (e.g. renaming a node) is a planner in front of the gate, never a new pipeline:

    effect = Effect(device, None, "Porch Lights", frozenset({"rename"}), argument="Porch Lights")
    change = Change("rename_zwave_device", "rename", f"rename {device.name} to Porch Lights", [effect],
                    ApiCall([("setNodeName", [device.node_id, "Porch Lights"])]), subject=f"node {device.node_id}")
    result = await gate.apply(change, token=token, ask=ask)
"""

from zwave_mcp.devices.gate.change import Asker, Change, Effect, value_effect
from zwave_mcp.devices.gate.core import Gate, GateResult
from zwave_mcp.devices.gate.evidence import DeviceOutcome, EffectOutcome, Report
from zwave_mcp.devices.gate.senders import ActivateScene, ApiCall, GroupWrites, Multicasting, WriteValues
from zwave_mcp.devices.writes import Expectation

__all__ = [
    "ActivateScene",
    "ApiCall",
    "Asker",
    "Change",
    "DeviceOutcome",
    "Effect",
    "EffectOutcome",
    "Expectation",
    "Gate",
    "GateResult",
    "GroupWrites",
    "Multicasting",
    "Report",
    "WriteValues",
    "value_effect",
]
