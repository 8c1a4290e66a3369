"""Device selectors for the allow, deny, hide and confirm lists, and the small view of a device they need.

A list is comma-separated text (`Kitchen, Living Room, lock, 11.2`) or, in a policy file, a list of strings.
Each term matches a device when, compared with the one name normalizer (`zwave_mcp.names`: case, spacing,
punctuation and plurals ignored, "Garage Doors" = "Garage Door"), it equals the device's name, its node's
name (so a node entry covers every endpoint device of the node), one of its aliases, its location, one of its capabilities, its node id ("5": every
endpoint of node 5) or its key ("11.2": endpoint 2 of node 11). A prefix pins the term to one field when a
word would be ambiguous: `name:`, `location:` (or `room:`), `node:`, `capability:` (or `cap:`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Literal, Protocol

from zwave_mcp.errors import UserError
from zwave_mcp.names import normalize
from zwave_mcp.safetext import json_kind

Field = Literal["any", "name", "location", "node", "capability"]

_PREFIXES: dict[str, Field] = {
    "name": "name",
    "location": "location",
    "room": "location",
    "node": "node",
    "capability": "capability",
    "cap": "capability",
}
_NODE_KEY = re.compile(r"\d{1,5}(?:\.\d{1,3})?")
# A list longer than this is a mistake, not a policy; bounded so a typo cannot cost much at each check.
MAX_TERMS = 500
MAX_TERM_CHARS = 200


class PolicyDevice(Protocol):
    """What the policy needs to know about a device (`zwave_mcp.devices.model.Device` fits)."""

    @property
    def key(self) -> str: ...
    @property
    def node_id(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def location(self) -> str: ...
    @property
    def capabilities(self) -> Collection[str]: ...


class NamedBy(Protocol):
    """The devices a text names as a tool argument would (`DeviceIndex.named_by`); `groups=False`: by
    name only, not as a room or kind."""

    def __call__(self, text: str, *, groups: bool = ...) -> Iterable[PolicyDevice]: ...


class TermError(UserError):
    """A list entry that cannot be a selector (e.g. `node:kitchen`)."""


def device_label(device: PolicyDevice) -> str:
    """How a device is named in messages: "Kitchen Light (Kitchen)"."""
    return f"{device.name} ({device.location})" if device.location else device.name


def names_of(device: PolicyDevice) -> set[str]:
    """Every name a list entry may use for a device, normalized: its own, the further names it answers to
    (a main part's "Porch Double Switch 1"), its node's (a node entry covers all the node's devices:
    "Porch Double Switch" → the main part and "… 2") and its aliases."""
    names = {normalize(device.name)}
    names.update(normalize(n) for n in getattr(device, "other_names", ()))
    node = getattr(device, "node", None)
    node_name = getattr(node, "name", None)
    if node_name:
        names.add(normalize(node_name))
    names.update(normalize(a) for a in getattr(device, "aliases", ()))
    return names


@dataclass(frozen=True, slots=True)
class Term:
    """One selector; `text` is what the person wrote (shown in messages), `value` its normalized form."""

    text: str
    field: Field
    value: str

    def matches(self, device: PolicyDevice) -> bool:
        field, value = self.field, self.value
        key = value.replace(" ", ".")  # "11 2" is how "11.2" reads once normalized
        if field in ("any", "node") and _NODE_KEY.fullmatch(key) and key in (device.key, str(device.node_id)):
            return True
        if field == "node":
            return False
        if field in ("any", "name") and value in names_of(device):
            return True
        if field in ("any", "location") and device.location and value == normalize(device.location):
            return True
        return field in ("any", "capability") and any(value == normalize(str(c)) for c in device.capabilities)


# Words that make an entry a group phrase ("all the locks", "every light", "everything"): the hide, deny
# and confirm lists read those as a tool argument would (`DeviceList.resolve`); the allow list, read
# exactly, refuses them at start rather than allow nothing.
_GROUP_WORDS = frozenset({"all", "every", "each", "everything", "anything", "entire", "whole", "everywhere"})


def says_a_group(term: Term) -> bool:
    return term.field == "any" and not _GROUP_WORDS.isdisjoint(term.value.split())


def parse_term(raw: str) -> Term | None:
    """One list entry → `Term`; blank entries are None. Raises `TermError` for a malformed one."""
    text = raw.strip()
    if not text:
        return None
    if len(text) > MAX_TERM_CHARS:
        raise TermError(f"The entry {text[:40]!r}… is too long: at most {MAX_TERM_CHARS} characters.")
    field: Field = "any"
    body = text
    head, sep, rest = text.partition(":")
    if sep and normalize(head) in _PREFIXES:
        field, body = _PREFIXES[normalize(head)], rest.strip()
    value = normalize(body)
    if not value:
        raise TermError(f"The entry {text!r} names nothing; write e.g. 'Kitchen', 'node:5' or 'lock'.")
    if field == "node" and not _NODE_KEY.fullmatch(value.replace(" ", ".")):
        raise TermError(f"The entry {text!r} needs a node id like 'node:5' or 'node:11.2'.")
    return Term(text=text, field=field, value=value)


def parse_terms(spec: str | Iterable[str] | None) -> tuple[Term, ...]:
    """Comma-separated text or a list of strings → terms (blanks skipped, order kept, duplicates dropped)."""
    if spec is None:
        return ()
    parts = spec.split(",") if isinstance(spec, str) else list(spec)
    terms: dict[tuple[str, str], Term] = {}
    for part in parts:
        if not isinstance(part, str):
            raise TermError(f"List entries must be text, not {json_kind(part)} ({part!r}).")
        term = parse_term(part)
        if term is not None:
            terms.setdefault((term.field, term.value), term)
    if len(terms) > MAX_TERMS:
        raise TermError(f"The list has {len(terms)} entries; at most {MAX_TERMS} are accepted.")
    return tuple(terms.values())


@dataclass(frozen=True, slots=True)
class DeviceList:
    """A named list of selectors; `source` says where it came from ("ZWAVE_MCP_DENY", "policy.toml").

    `pinned`: for an entry that named devices by their name, the keys of those devices (`remember`,
    `resolve`); `resolved`: the keys each entry names now, the way a tool argument names devices."""

    terms: tuple[Term, ...] = ()
    source: str = ""
    pinned: dict[Term, set[str]] = dataclasses.field(default_factory=dict, compare=False, repr=False)
    resolved: dict[Term, set[str]] = dataclasses.field(default_factory=dict, compare=False, repr=False)

    def __bool__(self) -> bool:
        return bool(self.terms)

    def covers(self, term: Term, device: PolicyDevice) -> bool:
        """Whether `term` covers `device`: the one reading of an entry that hiding, refusing, confirming and
        the unmatched-entry warning all use (issue 44: "all the locks" was read as a group for the
        warning, and hid nothing). By its own match, by the devices it was pinned to (`remember`), or by
        what it names now read as a tool argument (`resolve`: "every lock", "everything")."""
        if term.matches(device):
            return True
        key = device.key
        return key in self.pinned.get(term, ()) or key in self.resolved.get(term, ())

    def first_match(self, device: PolicyDevice) -> Term | None:
        return next((t for t in self.terms if self.covers(t, device)), None)

    def remember(self, devices: Iterable[PolicyDevice]) -> None:
        """Pin every entry that names a device by its name (or its node's, or an alias) to that device's
        stable key ("11.2") as well, for as long as zwave-mcp runs.

        Why: a person who writes "Porch Double Switch 2" on the hide or deny list means that device, not
        whatever carries the name; renamed in zwave-js-ui (or through a sibling on its node), it must stay
        hidden or read-only, not walk out of the list under its new name. A device that takes the name
        is covered too: the list only ever grows stricter. A room, kind or node entry needs no pin: a
        room means whatever is in it, and node ids do not change. Pins live in memory; after a restart
        the start-up check warns that the entry matches no device, so the list can be corrected."""
        named = {t.value: t for t in self.terms if t.field in ("any", "name")}
        if not named:
            return
        for device in devices:
            for name in names_of(device):
                term = named.get(name)
                if term is not None:
                    self.pinned.setdefault(term, set()).add(device.key)

    def resolve(self, named_by: NamedBy) -> None:
        """Read each entry that is a name (no `node:`, `room:` or `capability:` prefix) the way a tool
        argument is read (`named_by`: spoken names, aliases, room and kind, "the lamp in the living room"),
        so "front door" on the deny list covers Front Door Lock, as "lock the front door" reaches it; an
        entry naming several devices covers them all. The devices it names by their words (name, room)
        stay covered for as long as zwave-mcp runs (pinned, see `remember`): a rename or a move cannot take
        one out of a hide, deny or confirm list, which only grows stricter; what it covers as a group phrase
        (a kind, "everything") is read afresh each time."""
        resolved: dict[Term, set[str]] = {}
        for term in self.terms:
            if term.field not in ("any", "name") or _NODE_KEY.fullmatch(term.value.replace(" ", ".")):
                continue  # a node id or key already names exactly its devices
            by_name = {d.key for d in named_by(term.value, groups=False)}
            keys = by_name | ({d.key for d in named_by(term.value)} if term.field == "any" else set())
            if keys:
                resolved[term] = keys
            if by_name:
                self.pinned.setdefault(term, set()).update(by_name)
        self.resolved.clear()
        self.resolved.update(resolved)

    def names_any(self, term: Term, devices: Iterable[PolicyDevice]) -> bool:
        """Whether the entry covers one of these devices (by its own match, or as it was resolved); a pin
        alone does not count (the warning says what a pin still covers)."""
        keys = self.resolved.get(term, set())
        return any(term.matches(d) or d.key in keys for d in devices)

    def describe(self, limit: int = 5) -> str:
        shown = [t.text for t in self.terms[:limit]]
        more = len(self.terms) - len(shown)
        return ", ".join(shown) + (f" and {more} more" if more > 0 else "")
