"""Judge manifests with the hosts' own code: one JSON case per stdin line, one
JSON verdict per stdout line (same order). Run with the interpreter of
`.ci/hosts-venv`; used by tests/cli/parity.rs and bench/parity.py.

Case:    {"host": "protoagent" | "aworld", "text": "<manifest text>"}
         (optional "host_version" for protoagent's min_protoagent_version gate)
Verdict: {"verdict": "valid" | "invalid" | "raise", "message": str | null,
          "id": str | null, "version": str | null, "warnings": [str, ...],
          "gate": str | null, "entry": bool | null}

protoagent: `graph.plugins.manifest.load_manifest(<dir>/p)`; "invalid" is a
None return (message: the skip warning), "raise" an exception that escapes it
(message: "<Type>: <str>"); warnings are the `protoagent.plugins` log lines.
For a valid manifest, "gate" is `loader._min_version_gate`'s refusal, if any, and
"entry" whether `loader._entry_file` finds an entry module file (the plugin directory
holds an `__init__.py`; a directory `_entry_file` returns fails to import).
aworld: `aworld.plugins.validation.validate_plugin_path(<dir>/p)`, or of the case's
"root" directory when it names one (the host's messages hold the root's path: a lone
surrogate's UnicodeEncodeError counts its position in it); any exception is "invalid"
with message str(exc).
The file is written as UTF-8 bytes exactly as given (CRLF kept), so the host's
universal-newline read applies. Lone surrogates in the answers come back as
U+10F800 + (s - U+D800), the stand-ins `plugins` reads them as.
"""

import contextlib
import io
import json
import logging
import os
import sys
import tempfile
from pathlib import Path

with contextlib.redirect_stdout(io.StringIO()):  # aworld prints a dotenv warning
    from aworld.plugins.validation import validate_plugin_path
from graph.plugins import loader as ploader
from graph.plugins import manifest as pmanifest

class Capture(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


capture = Capture()
plog = logging.getLogger("protoagent.plugins")
plog.addHandler(capture)
plog.setLevel(logging.DEBUG)
plog.propagate = False


def min_version_gate(declared, host):
    # graph.plugins.loader._min_version_gate, inlined: the loader module imports
    # the whole server. Same code (spec: unchanged between 0.145 and 0.218).
    from packaging.version import InvalidVersion, Version

    declared = (declared or "").strip()
    if not declared:
        return None
    try:
        needed, hv = Version(declared), Version(host)
    except InvalidVersion:
        return None
    if needed > hv:
        return f"requires protoAgent >= {declared} but this host is {host}"
    return None


def judge_protoagent(case, base):
    d = base / "protoagent" / "p"
    d.mkdir(parents=True, exist_ok=True)
    (d / "__init__.py").write_text("def register(registry):\n    pass\n")
    (d / "protoagent.plugin.yaml").write_bytes(case["text"].encode("utf-8", "surrogatepass"))
    capture.lines = []
    out = {"verdict": "valid", "message": None, "id": None, "version": None, "gate": None, "entry": None}
    try:
        m = pmanifest.load_manifest(d)
    except Exception as e:  # noqa: BLE001 - what escapes is the point
        out.update(verdict="raise", message=f"{type(e).__name__}: {e}")
    else:
        if m is None:
            out.update(verdict="invalid", message=capture.lines[-1] if capture.lines else None)
        else:
            out.update(id=m.id, version=m.version)
            out["gate"] = min_version_gate(m.min_protoagent_version, case.get("host_version", "0.218.1"))
            entry = ploader._entry_file(m)
            out["entry"] = entry is not None and entry.is_file()
    out["warnings"] = list(capture.lines)
    return out


def judge_aworld(case, base):
    d = Path(case["root"]) if case.get("root") else base / "aworld" / "p"
    (d / ".aworld-plugin").mkdir(parents=True, exist_ok=True)
    (d / ".aworld-plugin" / "plugin.json").write_bytes(case["text"].encode("utf-8", "surrogatepass"))
    out = {"verdict": "valid", "message": None, "id": None, "version": None, "warnings": [], "gate": None}
    try:
        r = validate_plugin_path(d)
        out["id"] = str(r["plugin_id"])
    except Exception as e:  # noqa: BLE001 - the CLI prints str(exc)
        out.update(verdict="invalid", message=str(e))
    return out


def clean(value):
    """Lone surrogates (from `\\ud800` in a manifest), which Rust strings cannot hold, as
    the private-use stand-ins `plugins` reads them as: protoAgent's (PyYAML keeps each code
    unit, a pair written as two escapes too) and AWorld's (`json.loads` joins a pair and
    keeps a lone one)."""
    if isinstance(value, str):
        return "".join(
            chr(0x10F800 + ord(c) - 0xD800) if 0xD800 <= ord(c) <= 0xDFFF else c for c in value
        )
    if isinstance(value, list):
        return [clean(v) for v in value]
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items()}
    return value


def main():
    with tempfile.TemporaryDirectory(prefix="plugins-hosts-") as tmp:
        base = Path(tmp)
        for line in sys.stdin:
            case = json.loads(line)
            proto = case["host"] == "protoagent"
            judge = judge_protoagent if proto else judge_aworld
            sys.stdout.write(json.dumps(clean(judge(case, base))) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    main()
