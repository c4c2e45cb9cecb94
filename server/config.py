"""The room's configuration file (issue 28): ``lamma serve --config FILE``.

One TOML file (read with the standard library's ``tomllib``), one table per area:

- ``[serve]``: every option of ``lamma serve``, under the flag's own name
  (``port``, ``host``, ``data``, ``keys``, ``database``, ``reuse-port`` …);
- ``[play]``: the pauses, the turn a person away is given, quick play's computer
  players, the computer players' worker processes;
- ``[restart]``: how long a clean restart waits, and what it says;
- ``[moderation]``: operators named in the file (beside ``KEYS/operators``);
- ``[events]``: duplicate events (docs/events.md);
- ``[web]``: the room in a web browser (docs/web.md): where its page listens, the
  origins and reverse proxies it trusts, how long a linked browser stays linked;
- ``[limits]``: every limit of "A public room" (docs/operations.md), with
  ``[limits.op-cost]`` and ``[[limits.networks]]`` (trusted networks with per-address
  limits of their own).

A new area is a new table: its settings are declared in ``SETTINGS`` (server/schema.py:
section, key, default, unit, comment; whether a reload applies it) and nothing else here
needs to change — ``lamma config`` prints it, a file is checked against it. Duplicate events
(docs/events.md) are ``[events]``: the daily events' boards, hours and games, the
computer players' samples at a board, the caps on events people make.

Defaults, then the file, then the flags: ``effective``. Unknown keys and bad values
stop the start with the file, the line and what is wrong (``ConfigError``). ``lamma
config`` prints the effective configuration as a file to start from (``render``);
SIGHUP and ``lamma admin reload`` read the file again (``reload``), and the room applies
what can change while running (``RoomService.apply``).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

from engine.room import duplicate

from .limits import OP_COST, Limits, Network
from .schema import (
    BY_KEY,
    DEPTH_MAX,
    FILE_MAX,
    NETWORK_KEYS,
    SECTION_NOTES,
    SECTIONS,
    SETTINGS,
    TEXT_MAX,
    ConfigError,
    Setting,
    any_number,
    cidrs_of,
    text_of,
)


# ------------------------------------------------------------------ the config
class Config:
    """Every setting's value: the defaults, then a file, then flags."""

    def __init__(self) -> None:
        self.values: dict[tuple[str, str], Any] = {
            (s.section, s.key): s.default for s in SETTINGS}
        self.networks: list[Network] = []
        self.path: Path | None = None
        self.from_file: set[tuple[str, str]] = set()
        self.from_env: dict[tuple[str, str], str] = {}     # -> the variable's name
        self.from_flags: set[tuple[str, str]] = set()

    def __getitem__(self, where: tuple[str, str]) -> Any:
        return self.values[where]

    def serve(self, key: str) -> Any:
        return self.values[("serve", key)]

    def events(self) -> duplicate.EventSettings:
        """The room's duplicate events' settings (engine/room/duplicate.py)."""
        return duplicate.EventSettings(**{
            s.attr: self.values[("events", s.key)] for s in SETTINGS if s.section == "events"})

    def limits(self) -> Limits:
        lim = Limits()
        self.apply_limits(lim)
        return lim

    def apply_limits(self, lim: Limits) -> None:
        """Every limit set on ``lim`` (in place: what holds it sees the new numbers)."""
        for s in SETTINGS:
            if s.section == "limits":
                setattr(lim, s.attr, self.values[("limits", s.key)])
        lim.networks = list(self.networks)


def _line_of(text: str, section: str, key: str | None = None, index: int = 0) -> int:
    """The line of ``key`` in ``[section]`` (or of the ``index``-th ``[[section]]``),
    or of the section's header; 0 if not found."""
    current, seen, header_line = None, -1, 0
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        m = re.match(r"^\[\[\s*([^\]]+?)\s*\]\]", stripped) or \
            re.match(r"^\[\s*([^\]]+?)\s*\]", stripped)
        if m:
            name = m.group(1).replace('"', "")
            if name == section:
                seen += 1
                if seen == index:
                    current, header_line = name, number
                    if key is None:
                        return number
                    continue
            current = None
            continue
        if current is None or key is None:
            continue
        m = re.match(r'^"?([A-Za-z0-9_-]+)"?\s*=', stripped)
        if m and m.group(1) == key:
            return number
    if key is not None and "." not in key and section == "" and text:
        for number, line in enumerate(text.splitlines(), 1):
            if re.match(rf'^\s*"?{re.escape(key)}"?\s*=', line):
                return number
    return header_line


def _say(path: Path, line: int, what: str) -> ConfigError:
    return ConfigError(f"{path}" + (f", line {line}" if line else "") + f": {what}")


def read_file(path: Path, config: Config | None = None) -> Config:
    """``path`` over the defaults (or over ``config``); ConfigError if it cannot be
    read, is not TOML, or has a key or value the room does not take."""
    config = config or Config()
    try:
        with path.open("rb") as f:
            raw = f.read(FILE_MAX + 1)
    except OSError as e:
        raise ConfigError(f"{path}: cannot be read ({e.strerror or e})") from None
    if len(raw) > FILE_MAX:
        raise ConfigError(f"{path}: larger than {FILE_MAX // 1024} KiB: not a configuration "
                          "file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    deep = _too_deep(text)
    if deep:
        raise _say(path, deep, f"nested more than {DEPTH_MAX} deep: no setting is")
    try:
        data = tomllib.loads(text)
    except RecursionError:              # nesting _too_deep's scan did not see
        raise ConfigError(f"{path}: nested too deep: no setting is") from None
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(e))
        where = f", line {m.group(1)}" if m else ""
        what = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(e))
        raise ConfigError(f"{path}{where}: not TOML ({what})") from None
    config.path = path
    for section, table in data.items():
        if section not in SECTIONS:
            raise _say(path, _line_of(text, section), f"unknown section [{section}] "
                       f"(sections: {', '.join('[' + s + ']' for s in SECTIONS)})")
        if not isinstance(table, dict):
            raise _say(path, _line_of(text, "", section), f"{section} is a section: "
                       f"write it [{section}]")
        for key, value in table.items():
            if section == "limits" and key == "networks":
                config.networks = _networks(path, text, value)
                continue
            setting = BY_KEY.get((section, key))
            if setting is None:
                near = [s.key for s in SETTINGS if s.section == section]
                hint = _closest(key, near)
                raise _say(path, _line_of(text, section, key),
                           f"[{section}] has no setting {key!r}"
                           + (f" (did you mean {hint!r}?)" if hint else ""))
            line = _line_of(text, section, key)
            if setting.key == "op-cost":
                line = _line_of(text, "limits.op-cost") or line
            try:
                config.values[(section, key)] = setting.check(value)
            except ValueError as e:
                raise _say(path, line, f"[{section}] {key} = {value!r}: {e}") from None
            config.from_file.add((section, key))
    return config


def _too_deep(text: str) -> int:
    """The line where brackets and braces of values open more than ``DEPTH_MAX`` deep
    (0 if nowhere), before the parser recurses into them; strings and comments skipped.
    A section header's brackets ([a], [[a]]) are at the start of a line at depth 0."""
    depth, quote, line = 0, "", 1
    i, n = 0, len(text)
    start_of_line = True
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            start_of_line = True
            if quote in ('"', "'"):
                quote = ""
            i += 1
            continue
        if quote:
            if text.startswith(quote, i) and (quote != '"' or text[i - 1] != "\\"):
                i += len(quote)
                quote = ""
                continue
            i += 1
            continue
        if c in " \t":
            i += 1
            continue
        if c == "#":
            while i < n and text[i] != "\n":
                i += 1
            continue
        if c in "\"'":
            quote = text[i:i + 3] if text[i:i + 3] in ('"""', "'''") else c
            i += len(quote)
            start_of_line = False
            continue
        if start_of_line and depth == 0 and c == "[":
            while i < n and text[i] != "\n":      # a header: [section] or [[section]]
                i += 1
            continue
        start_of_line = False
        if c in "[{":
            depth += 1
            if depth > DEPTH_MAX:
                return line
        elif c in "]}":
            depth = max(0, depth - 1)
        i += 1
    return 0


def _closest(word: str, options: list[str]) -> str | None:
    import difflib
    found = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
    return found[0] if found else None


def _networks(path: Path, text: str, value: Any) -> list[Network]:
    if not isinstance(value, list):
        raise _say(path, _line_of(text, "limits", "networks"), "write each trusted "
                   "network as a [[limits.networks]] table")
    out = []
    for i, entry in enumerate(value):
        line = _line_of(text, "limits.networks", None, i)
        if not isinstance(entry, dict):
            raise _say(path, line, "a trusted network is a [[limits.networks]] table")
        if "cidr" not in entry:
            raise _say(path, line, "[[limits.networks]] needs cidr = [\"ADDRESS/BITS\", …]")
        limits: dict[str, float] = {}
        cidrs: tuple[Any, ...] = ()
        for key, v in entry.items():
            at = _line_of(text, "limits.networks", key, i) or line
            try:
                if key == "cidr":
                    cidrs = cidrs_of(v)
                elif key == "name":
                    text_of(v)
                elif key in NETWORK_KEYS:
                    setting = BY_KEY[("limits", key)]
                    limits[setting.attr] = setting.check(v)
                else:
                    raise ValueError("no such setting here (a trusted network sets: name, "
                                     "cidr, " + ", ".join(NETWORK_KEYS) + ")")
            except ValueError as e:
                raise _say(path, at, f"[[limits.networks]] {key} = {v!r}: {e}") from None
        out.append(Network(cidrs, limits, str(entry.get("name", ""))))
    return out


# ------------------------------------------------------------------ the environment
ENV_PREFIX = "LAMMA_"
CONFIG_ENV = "LAMMA_CONFIG"         # the file, where --config is not given
FILE_SUFFIX = "_FILE"               # LAMMA_X_FILE=PATH: the value is that file's text


def env_name(s: Setting) -> str:
    """The variable that sets ``s``: LAMMA_SECTION_KEY, e.g. LAMMA_SERVE_PORT."""
    return f"{ENV_PREFIX}{s.section.upper()}_{s.key.upper().replace('-', '_')}"


def short_env_name(s: Setting) -> str | None:
    """[serve]'s settings also without the section: LAMMA_PORT, LAMMA_HOST …"""
    if s.section != "serve":
        return None
    return f"{ENV_PREFIX}{s.key.upper().replace('-', '_')}"


def env_names() -> dict[str, Setting]:
    """Every variable the room reads, and its setting (the full names first: they win
    over the short ones)."""
    out: dict[str, Setting] = {}
    for s in SETTINGS:
        out[env_name(s)] = s
    for s in SETTINGS:
        short = short_env_name(s)
        if short is not None and short not in out:
            out[short] = s
    return out


def _env_value(s: Setting, text: str) -> Any:
    """A variable's text as the TOML value the setting's check takes: by the kind of
    its default (a switch, a number, text, a list, a table)."""
    d = s.default
    raw = text.strip()
    if isinstance(d, bool):
        low = raw.lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise ValueError("expected true or false (or on/off, yes/no, 1/0)")
    if isinstance(d, (int, float)):
        try:
            return int(raw) if isinstance(d, int) and re.fullmatch(r"[+-]?\d+", raw) \
                else float(raw)
        except ValueError:
            raise ValueError("expected a number") from None
    if isinstance(d, (list, tuple)):
        if raw.startswith("["):
            try:
                return tomllib.loads(f"v = {raw}")["v"]
            except tomllib.TOMLDecodeError as e:
                raise ValueError(f"not a TOML array ({e})") from None
        return [p.strip() for p in re.split(r"[,\n]", raw) if p.strip()]
    if isinstance(d, dict):
        if raw.startswith("{"):
            try:
                return tomllib.loads(f"v = {raw}")["v"]
            except tomllib.TOMLDecodeError as e:
                raise ValueError(f"not a TOML table ({e})") from None
        table: dict[str, Any] = {}
        for part in (p.strip() for p in raw.split(",") if p.strip()):
            key, sep, value = part.partition("=")
            if not sep:
                raise ValueError("expected KEY = VALUE, … or a TOML table")
            table[key.strip()] = _env_value(Setting("", "", 0, "", "", any_number, False),
                                            value)
        return table
    return text                         # text as given (a path, an address, words)


def read_env(config: Config, env: Mapping[str, str]) -> Config:
    """The LAMMA_* variables of ``env`` over ``config`` (ConfigError naming the variable
    if one cannot be used). ``NAME_FILE=PATH`` gives NAME's value from a file (a
    container's secret). A variable that looks like one the room reads but is not
    (LAMMA_PROT, LAMMA_SERVE_PROT) is refused, with the name meant; others (a test's,
    a script's) are left alone."""
    names = env_names()
    sections = tuple(f"{ENV_PREFIX}{sec.upper()}_" for sec in SECTIONS)
    given: dict[tuple[str, str], tuple[str, str, str]] = {}     # -> (name, variable, text)
    for var in sorted(env):
        if not var.startswith(ENV_PREFIX) or var == CONFIG_ENV:
            continue
        base, text = var, env[var]
        if var.endswith(FILE_SUFFIX) and var[:-len(FILE_SUFFIX)] in names:
            base = var[:-len(FILE_SUFFIX)]
            text = _secret_file(var, text)
        setting = names.get(base)
        if setting is None:
            import difflib
            close = difflib.get_close_matches(var, list(names), n=1, cutoff=0.85)
            if var.startswith(sections) or close:
                raise ConfigError(f"{var}: not a setting" + (
                    f" (did you mean {close[0]}?)" if close
                    else " (lamma config lists every variable)"))
            continue                    # not the room's (a test's, a script's)
        where = (setting.section, setting.key)
        if where in given and given[where][0] == env_name(setting) != base:
            continue                    # the full name was given too: it wins
        given[where] = (base, var, text)
    for where, (_, var, text) in given.items():
        setting = BY_KEY[where]
        # A secret's value is never said back (a file's, the database's): only its name.
        said = "…" if var.endswith(FILE_SUFFIX) or "database" in setting.key else repr(text)
        try:
            config.values[where] = setting.check(_env_value(setting, text))
        except ValueError as e:
            raise ConfigError(f"{var}={said}: {e}") from None
        config.from_env[where] = var
    return config


def _secret_file(var: str, where: str) -> str:
    """NAME_FILE's file: its text, without the line end."""
    try:
        with Path(where).open("rb") as f:
            raw = f.read(FILE_MAX + 1)
    except OSError as e:
        raise ConfigError(f"{var}={where}: cannot be read ({e.strerror or e})") from None
    if len(raw) > FILE_MAX:
        raise ConfigError(f"{var}={where}: larger than {FILE_MAX // 1024} KiB")
    try:
        return raw.decode("utf-8").rstrip("\r\n")
    except UnicodeDecodeError:
        raise ConfigError(f"{var}={where}: not UTF-8 text") from None


def config_path(given: str | None, env: Mapping[str, str]) -> Path | None:
    """The configuration file: --config, or LAMMA_CONFIG, or none."""
    if given:
        return Path(given)
    if env.get(CONFIG_ENV):
        return Path(env[CONFIG_ENV])
    return None


def effective(path: Path | None, flags: dict[str, Any],
              env: Mapping[str, str] | None = None) -> Config:
    """The defaults, then the file at ``path`` (if any), then the environment's LAMMA_*
    variables, then the flags given (``flags``: a setting's key -> value, only those
    given on the command line)."""
    config = read_file(path) if path is not None else Config()
    if env is not None:
        read_env(config, env)
    for key, value in flags.items():
        setting = next((s for s in SETTINGS if s.flag and (s.option or s.key) == key), None)
        if setting is None:
            raise ConfigError(f"--{key}: no such option")
        try:
            config.values[(setting.section, setting.key)] = setting.check(value)
        except ValueError as e:
            raise ConfigError(f"--{key} {value!r}: {e}") from None
        config.from_flags.add((setting.section, setting.key))
    return config


def database_url(config: Config) -> str:
    """[serve] database, with the password of database-password-file (if set) added as
    the URL's ``password`` parameter (libpq takes any of its parameters there); ""
    for DATA/lamma.db. ConfigError if the file cannot be read."""
    url = config.serve("database")
    secret_file = config.serve("database-password-file")
    if not secret_file or not url:
        return url
    from .store import is_postgres
    if not is_postgres(url):
        raise ConfigError("database-password-file is for a postgresql:// database")
    try:
        with open(secret_file, "rb") as f:
            secret = f.read(TEXT_MAX + 1).decode("utf-8").rstrip("\r\n")
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"database-password-file {secret_file}: cannot be read "
                          f"({getattr(e, 'strerror', None) or e})") from None
    from urllib.parse import quote
    return url + ("&" if "?" in url else "?") + "password=" + quote(secret, safe="")


def reload(config: Config) -> tuple[Config, list[str]]:
    """The file read again (ConfigError if it cannot be used: nothing changes), with the
    flags of the start still over it; and what changed that needs a restart to apply."""
    if config.path is None:
        raise ConfigError("the room was started without --config: there is no file to "
                          "read again")
    new = read_file(config.path)
    # The environment and the flags of the start still over it (they cannot change).
    for where in (*config.from_env, *config.from_flags):
        new.values[where] = config.values[where]
    new.from_env = dict(config.from_env)
    new.from_flags = set(config.from_flags)
    fixed = [f"[{s.section}] {s.key}" for s in SETTINGS
             if not s.live and new.values[(s.section, s.key)] != config.values[(s.section, s.key)]]
    return new, fixed


def shown(section: str, key: str, value: Any) -> str:
    """A setting's value as the log and ``lamma admin`` may say it: never a secret (the
    database URL's password), a list of keys by its count."""
    if (section, key) == ("serve", "database") and isinstance(value, str) and value:
        from .store import redact
        return _toml(redact(value))
    if (section, key) == ("moderation", "operators"):
        return f"{len(value)} key(s)"
    if key == "op-cost" and isinstance(value, dict):
        return "{" + ", ".join(f"{op} = {n}" for op, n in value.items()) + "}"
    text = _toml(value)
    return text if len(text) <= 200 else text[:199] + "…"


def _network_words(net: Network) -> str:
    cidrs = ", ".join(str(c) for c in net.cidrs)
    limits = ", ".join(f"{a.replace('_', '-')} = {v:g}" for a, v in net.limits.items())
    return f"{net.name or 'a network'} ({cidrs}: {limits or 'the room limits'})"


def changes(old: Config, new: Config) -> list[tuple[str, str, str]]:
    """What differs from ``old`` to ``new``: (where, old value, new value), as they may
    be said (``shown``), every setting in SETTINGS' order, then the trusted networks."""
    out = []
    for s in SETTINGS:
        before, after = old.values[(s.section, s.key)], new.values[(s.section, s.key)]
        if before != after:
            out.append((f"[{s.section}] {s.key}", shown(s.section, s.key, before),
                        shown(s.section, s.key, after)))
    was = [_network_words(n) for n in old.networks]
    now = [_network_words(n) for n in new.networks]
    if was != now:
        out.append(("[[limits.networks]]", "; ".join(was) or "none", "; ".join(now) or "none"))
    return out


# ------------------------------------------------------------------ lamma config
def _toml(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if v == int(v) and abs(v) < 1e15:
            return f"{v:.1f}"
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml(str(x) if not isinstance(x, (str, int, float))
                                     else x) for x in v) + "]"
    raise TypeError(f"cannot write {v!r}")


def _wrap(text: str, indent: str = "# ") -> list[str]:
    import textwrap
    return [indent + line for line in textwrap.wrap(text, 88 - len(indent))]


def _printable(s: Setting, value: Any) -> str:
    """A value as ``lamma config`` writes it: the database URL without its password."""
    if (s.section, s.key) == ("serve", "database") and isinstance(value, str) and value:
        from .store import redact
        return _toml(redact(value))
    return _toml(value)


def render(config: Config) -> str:
    """The configuration as a file one can start from: every setting with its value,
    its default, its unit and what it does."""
    out = ["# Lamma's configuration: lamma serve --config FILE (or LAMMA_CONFIG=FILE).",
           "# Printed by `lamma config`: every setting, its default, its unit and the",
           "# environment variable that sets it. A reload (SIGHUP, or `lamma admin",
           "# reload`) applies the settings marked \"(reload)\"; the others need a",
           "# restart.", "#",
           *_wrap("Where a value comes from, last wins: the default, this file, the "
                  "environment (LAMMA_SECTION_KEY, e.g. LAMMA_SERVE_PORT=2022 or "
                  "LAMMA_LIMITS_GUESTS_PER_ADDRESS=8; [serve]'s also without the "
                  "section, e.g. LAMMA_PORT, the full name winning if both are set), "
                  "then the flags of lamma serve. A switch is true/false (on/off, 1/0), "
                  "a list is a TOML array or words separated by commas, a table a TOML "
                  "inline table. NAME_FILE=PATH reads NAME's value from a file (a "
                  "container's secret, e.g. LAMMA_SERVE_DATABASE_FILE). A secret (the "
                  "database URL's password) is never printed: give it in "
                  "database-password-file, a _FILE variable or libpq's PGPASSWORD. The "
                  "environment is read at the start; a reload reads this file again "
                  "under it."), ""]
    for section in SECTIONS:
        out.extend(_wrap(SECTION_NOTES.get(section, "")))
        out.append(f"[{section}]")
        for s in SETTINGS:
            if s.section != section or s.key == "op-cost":
                continue
            value = config.values[(section, s.key)]
            note = s.comment
            if s.unit:
                note += f" ({s.unit})"
            note += f"; default {_toml(s.default)}"
            if s.live:
                note += " (reload)"
            short = short_env_name(s)
            note += f"; env {env_name(s)}" + (f" or {short}" if short else "")
            out.extend(_wrap(note))
            line = f"{s.key} = {_printable(s, value)}"
            if (section, s.key) in config.from_env:
                line += f"  # from {config.from_env[(section, s.key)]}"
            out.append(line)
        out.append("")
        if section == "limits":
            s = BY_KEY[("limits", "op-cost")]
            out.extend(_wrap(s.comment + f" ({s.unit}) (reload); env {env_name(s)}, "
                             "e.g. \"hint = 40, review = 80\""))
            out.append("[limits.op-cost]")
            costs = config.values[("limits", "op-cost")]
            for op in OP_COST:
                out.append(f"{op} = {costs[op]}  # default {OP_COST[op]}")
            out.append("")
            out.extend(_wrap("Trusted networks: each address in them has these "
                             "per-address limits instead of the room's (reload). One "
                             "table per network, e.g.:"))
            example = ["[[limits.networks]]", 'name = "school"',
                       'cidr = ["192.0.2.0/24"]', "handshakes-per-address = 64",
                       "guests-per-address = 64", "connects-rate = 5.0"]
            if not config.networks:
                out.extend("# " + line for line in example)
                out.append("# Settable there: " + ", ".join(NETWORK_KEYS) + ".")
                out.append("")
            for net in config.networks:
                out.append("[[limits.networks]]")
                if net.name:
                    out.append(f"name = {_toml(net.name)}")
                out.append("cidr = " + _toml([str(c) for c in net.cidrs]))
                for attr, v in net.limits.items():
                    out.append(f"{attr.replace('_', '-')} = {_toml(v)}")
                out.append("")
    out.extend(_wrap("Other areas to come: one table each, declared in "
                     "server/config.py's SETTINGS."))
    return "\n".join(out) + "\n"


def limits_fields() -> list[str]:
    """Every field of Limits the file sets (tests: none is left out)."""
    return [f.name for f in fields(Limits)]
