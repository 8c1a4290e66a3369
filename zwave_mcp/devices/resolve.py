"""From what people say to one device.

Case, spacing and punctuation are ignored, plurals are folded ("blinds" = "blind"), and leading filler
("the", "my") is dropped. Matches are tried in tiers; the first tier that finds something decides:

1. exact: a device name, a node id / device key ("5", "node 5", "11.2"), an alias, or "<name> in
   <location>" where the location is exact and the name part fits exactly one device there;
2. words: every word said is a whole word of the device's name, location or type ("kitchen light",
   "porch switch 2", "front door", "thermostat");
3. partial (reads only): every word said starts a word of the device ("bedroom col").

Several matches in a tier → `AmbiguousDevice`; nothing → `DeviceNotFound` with the closest names. With
`for_mutation=True` tier 3 is never used: a mutation acts only on a device named without guessing.
Whole-word matches (tier 2) count as named, not guessed: every word said must be in the device's own
words, and a unique match is required.
"""

from __future__ import annotations

import bisect
import difflib
import json
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from zwave_mcp.config import read_small_file
from zwave_mcp.devices.errors import AliasFileError, AmbiguousDevice, DeviceNotFound
from zwave_mcp.devices.groups import PLURALS, Group, GroupTarget, Kind, group_label, kinds_of, parse_group
from zwave_mcp.devices.model import Capability, Device
from zwave_mcp.names import normalize, words_of
from zwave_mcp.safetext import loads_json, plain_text

# An alias maps to one device (a name or key) or, as a list, to a group (device names, keys or rooms).
AliasTarget = str | Sequence[str]

# Longer input is not a name; refuse it before doing any work on it.
MAX_QUERY_CHARS = 200
# Shown in messages: the caller's text, cleaned and cut to this length.
MAX_ECHO_CHARS = 60
# How many candidates an ambiguity message lists before "and N more".
MAX_LISTED = 10
MAX_SUGGESTIONS = 3
ALIAS_FILE_MAX_BYTES = 1_000_000

_FILLER = frozenset({"the", "my", "our", "a", "an", "please"})
_LINKS = frozenset({"in", "at", "of", "on"})

# Words people use for a kind of device, by capability (already folded to singular).
TYPE_WORDS: Mapping[Capability, frozenset[str]] = {
    Capability.SWITCH: frozenset({"switch"}),
    Capability.DIMMER: frozenset({"light", "lamp", "dimmer"}),
    Capability.COLOR: frozenset({"light", "lamp", "bulb"}),
    Capability.COVER: frozenset({"blind", "shade", "cover", "curtain", "shutter"}),
    Capability.LOCK: frozenset({"lock"}),
    Capability.THERMOSTAT: frozenset({"thermostat", "heating"}),
    Capability.SENSOR: frozenset({"sensor"}),
    Capability.BINARY_SENSOR: frozenset({"sensor"}),
    Capability.NOTIFICATION: frozenset({"sensor"}),
    Capability.METER: frozenset({"meter"}),
    Capability.FAN: frozenset({"fan"}),
    Capability.VALVE: frozenset({"valve"}),
    Capability.SIREN: frozenset({"siren", "alarm"}),
    Capability.BUTTON: frozenset({"remote", "button"}),
}

_KEY = re.compile(r"(?:node\s*(?:id\s*)?)?#?\s*(\d{1,5})(?:\s*(?:\.|/|,|endpoint|ep)\s*(\d{1,3}))?")


def names_a_key(text: str) -> bool:
    """Whether `text` is read as a node id or device key ("5", "node 5", "11.2"), never as a name."""
    return _KEY.fullmatch(text.strip().casefold()) is not None


def _unreadable(text: str) -> bool:
    """Too long to be a name, or holding a control character (names never do: a NUL is an attack or an
    accident, not a separator)."""
    return len(text) > MAX_QUERY_CHARS or any(
        unicodedata.category(ch) == "Cc" and ch not in "\t\n\r" for ch in text
    )


def echo(text: str) -> str:
    """The caller's text as it may appear in a message: no control characters, bounded length."""
    printable = "".join(ch if ch.isprintable() or ch == " " else "?" for ch in text[: MAX_ECHO_CHARS * 4])
    collapsed = " ".join(printable.split())
    return collapsed if len(collapsed) <= MAX_ECHO_CHARS else collapsed[: MAX_ECHO_CHARS - 1] + "…"


def _or_list(items: list[str]) -> str:
    quoted = [f"'{i}'" for i in items]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


def _device_words(device: Device, name_words: list[str], location_words: list[str]) -> set[str]:
    """The words a device can be found by: its name's, its room's and its kinds' ("light", "lock")."""
    words = set(name_words) | set(location_words)
    for cap in device.capabilities:
        words |= TYPE_WORDS.get(cap, frozenset())
    return words


class DeviceIndex:
    """Devices with their names precomputed for fast resolution (thousands of devices)."""

    def __init__(self, devices: Iterable[Device], aliases: Mapping[str, AliasTarget] | None = None) -> None:
        self.devices: list[Device] = list(devices)
        self._by_name: dict[str, list[int]] = {}
        self._by_key: dict[str, int] = {}
        self._by_node: dict[int, list[int]] = {}
        self._by_location: dict[str, list[int]] = {}
        self._by_word: dict[str, set[int]] = {}
        self._names: list[str] = []  # normalized "name location", for suggestions
        self._kinds: list[frozenset[Kind]] = []
        self._place_names: dict[str, str] = {}  # normalized room or group → as people see it
        for i, device in enumerate(self.devices):
            name_words, location_words = words_of(device.name), words_of(device.location)
            name, location = " ".join(name_words), " ".join(location_words)  # = normalize(), once each
            self._by_name.setdefault(name, []).append(i)
            self._by_key[device.key] = i
            self._by_node.setdefault(device.node_id, []).append(i)
            if location:
                self._by_location.setdefault(location, []).append(i)
                self._place_names.setdefault(location, device.location.lower())
            self._names.append(f"{name} {location}".strip())
            self._kinds.append(kinds_of(device, name_words))
            for word in _device_words(device, name_words, location_words):
                self._by_word.setdefault(word, set()).add(i)
            for other in device.other_names:  # a main part's "<node> <n>": exactly, and by its words
                other_words = words_of(other)
                self._by_name.setdefault(" ".join(other_words), []).append(i)
                for word in other_words:
                    self._by_word.setdefault(word, set()).add(i)
        self._vocabulary = sorted(self._by_word)
        self._aliases: dict[str, tuple[str, str]] = {}  # normalized alias → (alias as written, target)
        self._group_members: dict[str, list[int]] = {}
        for alias, target in (aliases or {}).items():
            if isinstance(target, str):
                self._aliases[normalize(alias)] = (alias, target)
            else:
                norm = normalize(alias)
                self._group_members[norm] = self._members(target)
                self._place_names[norm] = alias

    @staticmethod
    def words_of_device(device: Device) -> set[str]:
        return _device_words(device, words_of(device.name), words_of(device.location))

    # ---- public API ----

    def listing(self, text: str | None = None, location: str | None = None) -> list[Device]:
        """Devices whose "name location" contains `text` and whose room is `location` (both as people
        write them), in index order; uses the names normalized once when the index was built."""
        wanted = normalize(text) if text else ""
        indexes = self._by_location.get(normalize(location), []) if location else range(len(self.devices))
        return [self.devices[i] for i in indexes if not wanted or wanted in self._names[i]]

    def resolve(self, text: object, *, for_mutation: bool = False) -> Device:
        """The one device `text` names, or `DeviceNotFound` / `AmbiguousDevice`."""
        if not isinstance(text, str) or not text.strip():
            raise DeviceNotFound("No device name given.")
        shown = echo(text)
        if _unreadable(text):
            raise DeviceNotFound(f"No device named '{shown}'.")
        words = words_of(text)
        meaningful = [w for w in words if w not in _FILLER] or words
        if not meaningful:
            raise DeviceNotFound(f"No device named '{shown}'.")
        query = " ".join(meaningful)

        exact = self._exact(text, query, meaningful)
        if exact is not None:
            return self._one(exact, shown)
        named = [w for w in meaningful if w not in _LINKS] or meaningful
        whole = self._whole_words(named)
        if whole:
            return self._one(whole, shown)
        partial = self._partial(named)
        if partial and not for_mutation:
            return self._one(partial, shown)
        suggestions = [self.devices[i].name for i in partial[:MAX_SUGGESTIONS]] or self._suggest(query, named)
        if suggestions:
            raise DeviceNotFound(
                f"No device named '{shown}'. Did you mean {_or_list(suggestions)}?", suggestions
            )
        raise DeviceNotFound(f"No device named '{shown}'.")

    def named_by(self, text: object, *, groups: bool = True) -> list[Device]:
        """Every device `text` names the way a tool argument names one, for a policy list entry: its exact
        name, key, node, alias or "lamp in the living room"; else every device all its words fit ("front
        door": Front Door Lock and Front Door Sensor, where a tool would ask which one); and, when it is a
        group phrase (a room, a kind, both, a declared group, "everything"), every device of the group.
        Never a guess from a partial word ("fron"): an entry covers what a change could be made to.
        `groups=False`: by name only (what a rename can take away, as opposed to a room's contents)."""
        if not isinstance(text, str) or not text.strip() or _unreadable(text):
            return []
        found: set[int] = set()
        words = words_of(text)
        meaningful = [w for w in words if w not in _FILLER] or words
        if meaningful:
            try:
                exact = self._exact(text, " ".join(meaningful), meaningful)
            except DeviceNotFound:  # an alias pointing nowhere names nothing
                exact = None
            if exact:
                found.update(exact)
            else:
                found.update(self._whole_words([w for w in meaningful if w not in _LINKS] or meaningful))
        target = self.parse_group(text) if groups else None
        if target is not None:
            found.update(self._by_key[d.key] for d in self.group_for(target).devices)
        return [self.devices[i] for i in sorted(found)]

    def get(self, key: str) -> Device | None:
        """The device with this key ("5", "11.2"), if any."""
        i = self._by_key.get(key)
        return None if i is None else self.devices[i]

    def taken_by(self, name: str, node_id: int) -> str | None:
        """Who else answers to exactly this name ("the name of Kitchen Light (Kitchen)", "an alias"), or
        None; the devices of node `node_id` do not count (a node keeps its own names)."""
        norm = normalize(name)
        others = [self.devices[i] for i in self._by_name.get(norm, []) if self.devices[i].node_id != node_id]
        if others:
            return f"the name of {others[0].label}"
        if norm in self._aliases:
            return f"an alias of {self._aliases[norm][1]}"
        return None

    def kinds(self, device: Device) -> frozenset[Kind]:
        """The kind words that name this device ("light", "plug", …); empty for a device not indexed."""
        i = self._by_key.get(device.key)
        return self._kinds[i] if i is not None else frozenset()

    def parse_group(self, text: str) -> GroupTarget | None:
        """`text` read as a group phrase (rooms, declared groups, kinds, "all"), or None if it is not one."""
        if _unreadable(text):
            return None
        return parse_group(words_of(text), self._place_names)

    def group(self, text: object) -> Group:
        """The devices a group phrase names (maybe none); `DeviceNotFound` when it is not a group phrase."""
        if not isinstance(text, str) or not text.strip():
            raise DeviceNotFound("No room, kind of device or group given.")
        target = self.parse_group(text)
        if target is None:
            raise DeviceNotFound(
                f"'{echo(text)}' is not a room, a kind of device or a group. {self.group_hint()}"
            )
        return self.group_for(target)

    def group_for(self, target: GroupTarget) -> Group:
        indexes: Iterable[int]
        if target.places:
            chosen: set[int] = set()
            for place in target.places:
                chosen.update(self._group_members.get(place) or self._by_location.get(place, []))
            indexes = sorted(chosen)
        else:
            indexes = range(len(self.devices))
        wanted = set(target.kinds)
        devices = [self.devices[i] for i in indexes if not wanted or wanted & self._kinds[i]]
        label = group_label([self._place_names[p] for p in target.places], target.kinds)
        return Group(target, label, devices)

    def group_hint(self) -> str:
        """What a group can be, for messages: the rooms, declared groups and kind words."""
        places = sorted({*self._place_names.values()})
        shown = ", ".join(places[:MAX_LISTED]) + (
            f" and {len(places) - MAX_LISTED} more" if len(places) > MAX_LISTED else ""
        )
        kinds = ", ".join(PLURALS.values())
        where = f"a room or group ({shown}), " if places else ""
        return f"Say {where}a kind ({kinds}), both, or 'everything'."

    def _members(self, members: Iterable[str]) -> list[int]:
        """A declared group's devices: each member is a room, a device name or a device key."""
        found: set[int] = set()
        for member in members:
            found.update(self._by_location.get(normalize(member), []) or self._exact_target(member) or [])
        return sorted(found)

    # ---- tiers ----

    def _exact(self, text: str, query: str, words: list[str]) -> list[int] | None:
        if query in self._by_name:
            return self._by_name[query]
        key_match = _KEY.fullmatch(text.strip().casefold())
        if key_match:
            node, endpoint = int(key_match.group(1)), key_match.group(2)
            if endpoint is not None:
                i = self._by_key.get(f"{node}.{int(endpoint)}")
                return [i] if i is not None else []
            return self._by_node.get(node, [])
        if query in self._group_members:
            return self._group_members[query]  # one member resolves; several are listed to choose from
        if query in self._aliases:
            alias, target = self._aliases[query]
            found = self._exact_target(target)
            if found is None:
                raise DeviceNotFound(
                    f"The alias '{alias}' points to '{echo(target)}', which is not a device."
                )
            return found
        return self._name_in_location(words)

    def _exact_target(self, target: str) -> list[int] | None:
        """An alias target: a device name or key, nothing looser."""
        if target in self._by_key:
            return [self._by_key[target]]
        norm = normalize(target)
        if norm in self._by_name:
            return self._by_name[norm]
        key_match = _KEY.fullmatch(target.strip().casefold())
        if key_match and key_match.group(2) is None and int(key_match.group(1)) in self._by_node:
            return self._by_node[int(key_match.group(1))]
        return None

    def _name_in_location(self, words: list[str]) -> list[int] | None:
        """ "lamp in the living room": exact location, name part fits one device there."""
        for split in range(len(words) - 2, 0, -1):
            if words[split] not in ("in", "at"):
                continue
            name_part = [w for w in words[:split] if w not in _FILLER]
            location = " ".join(w for w in words[split + 1 :] if w not in _FILLER)
            in_location = self._by_location.get(location)
            if not in_location or not name_part:
                continue
            fits = [i for i in in_location if set(name_part) <= self.words_of_device(self.devices[i])]
            if fits:
                return fits
        return None

    def _whole_words(self, words: list[str]) -> list[int]:
        sets = [self._by_word.get(w) for w in words]
        if not sets or any(s is None for s in sets):
            return []
        found = set.intersection(*[s for s in sets if s is not None])
        return sorted(found)

    def _partial(self, words: list[str]) -> list[int]:
        found: set[int] | None = None
        for word in words:
            if len(word) < 2:
                return []
            hits: set[int] = set()
            start = bisect.bisect_left(self._vocabulary, word)
            for vocab_word in self._vocabulary[start:]:
                if not vocab_word.startswith(word):
                    break
                hits |= self._by_word[vocab_word]
            found = hits if found is None else found & hits
            if not found:
                return []
        return sorted(found or ())

    def _suggest(self, query: str, words: list[str]) -> list[str]:
        """Closest device names: similar spelling, a shared word helps."""
        query = query[:MAX_ECHO_CHARS]
        candidates: set[int] = set()
        for word in words:
            candidates |= self._by_word.get(word, set())
        wanted = set(difflib.get_close_matches(query, self._names, n=MAX_SUGGESTIONS * 2, cutoff=0.5))
        candidates |= {i for i, n in enumerate(self._names) if n in wanted}
        scored = []
        for i in candidates:
            shared = len(set(words) & self.words_of_device(self.devices[i]))
            ratio = difflib.SequenceMatcher(None, query, normalize(self.devices[i].name)).ratio()
            scored.append((ratio + 0.25 * shared, i))
        scored.sort(key=lambda s: (-s[0], s[1]))
        names = dict.fromkeys(self.devices[i].name for score, i in scored if score >= 0.5)
        return list(names)[: MAX_SUGGESTIONS - 1]

    def _one(self, indexes: list[int], shown: str) -> Device:
        if not indexes:
            raise DeviceNotFound(f"No device named '{shown}'.")
        if len(indexes) == 1:
            return self.devices[indexes[0]]
        candidates = [self.devices[i] for i in sorted(indexes)]
        listed = ", ".join(d.label for d in candidates[:MAX_LISTED])
        more = f" and {len(candidates) - MAX_LISTED} more" if len(candidates) > MAX_LISTED else ""
        raise AmbiguousDevice(
            f"'{shown}' matches {len(candidates)} devices: {listed}{more}. Say which one.", candidates
        )


def parse_aliases(data: object, source: str = "alias file") -> dict[str, AliasTarget]:
    """Check a decoded alias mapping: `{"alias": "device name or key"}`, and for a group (a floor, "upstairs")
    a list of rooms, device names or keys: `{"upstairs": ["Bedroom", "Hallway Thermostat"]}`."""
    if not isinstance(data, dict):
        raise AliasFileError(
            f"{source} must be a JSON object mapping an alias to a device name or key, "
            f'like {{"porch light": "Porch Double Switch 1"}}.'
        )
    aliases: dict[str, AliasTarget] = {}
    seen: dict[str, str] = {}
    for alias, target in data.items():
        if isinstance(target, list):
            if not target or not all(isinstance(t, str) and t.strip() for t in target):
                raise AliasFileError(
                    f"{source}: the group '{echo(alias)}' must list rooms, device names or keys "
                    f"(non-empty strings), not {json.dumps(target)[:40]}."
                )
            value: AliasTarget = tuple(target)
        elif isinstance(target, str) and target.strip():
            value = target
        else:
            raise AliasFileError(
                f"{source}: the alias '{echo(alias)}' must map to a device name or key (a non-empty string), "
                f"or to a list of them for a group, not {json.dumps(target)[:40]}."
            )
        texts = [alias, *(value if isinstance(value, tuple) else (value,))]
        if any(plain_text(text, MAX_QUERY_CHARS) != text.strip() for text in texts):
            # Names are said back in tool arguments, which refuse these: such an alias could never work.
            raise AliasFileError(
                f"{source}: the alias '{echo(alias)}' holds a control character, a line break or a "
                f"direction override, or is longer than {MAX_QUERY_CHARS} characters."
            )
        norm = normalize(alias)
        if not norm:
            raise AliasFileError(f"{source}: the alias '{echo(alias)}' has no letters or digits.")
        if norm in seen:
            raise AliasFileError(
                f"{source}: the aliases '{seen[norm]}' and '{echo(alias)}' are the same name."
            )
        seen[norm] = echo(alias)
        aliases[alias] = value
    return aliases


def load_aliases(path: str | Path) -> dict[str, AliasTarget]:
    """Read a user-edited alias file; `AliasFileError` says what is wrong and where."""
    file = Path(path)
    try:
        size = file.stat().st_size
        data = read_small_file(file, ALIAS_FILE_MAX_BYTES) if size <= ALIAS_FILE_MAX_BYTES else b""
        if size > ALIAS_FILE_MAX_BYTES or len(data) > ALIAS_FILE_MAX_BYTES:
            raise AliasFileError(
                f"Alias file {file} is too large ({max(size, len(data))} bytes; at most {ALIAS_FILE_MAX_BYTES})."
            )
        text = data.decode("utf-8")
    except FileNotFoundError:
        raise AliasFileError(f"Alias file {file} does not exist.") from None
    except UnicodeDecodeError as exc:
        raise AliasFileError(f"Alias file {file} is not UTF-8 text ({exc.reason}).") from None
    except OSError as exc:
        raise AliasFileError(f"Alias file {file} cannot be read: {exc.strerror or exc}.") from None
    try:
        data = loads_json(text)
    except json.JSONDecodeError as exc:
        raise AliasFileError(
            f"Alias file {file} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}."
        ) from None
    except RecursionError:
        raise AliasFileError(f"Alias file {file} is nested too deeply.") from None
    return parse_aliases(data, f"Alias file {file}")
