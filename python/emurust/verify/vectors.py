"""Cross-checks the reference ALU model (:mod:`emurust.verify.model`) against the
SingleStepTests SM83 vectors (``sm83-json/v1`` in the shared test-ROM folder): the vectors
were recorded independently of both the model and emurust, so agreement here means the
model, not just emurust, is right."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Callable

from emurust.verify import model

REGS = "bcdehla"  # operand order of the register encodings: B C D E H L (HL) A
_R8 = ("b", "c", "d", "e", "h", "l", None, "a")

Check = Callable[[dict[str, Any], dict[str, Any]], "str | None"]


def _mem(state: dict[str, Any], addr: int) -> int:
    for a, v in state["ram"]:
        if a == addr:
            return int(v)
    raise KeyError(addr)


def _operand(state: dict[str, Any], r: int) -> int:
    name = _R8[r]
    if name is None:
        return _mem(state, (state["h"] << 8) | state["l"])
    return int(state[name])


def _checks() -> Iterator[tuple[str, str, Check]]:
    """(vector file name, label, check) for every ALU opcode the model covers."""
    for i, (name, fn) in enumerate(model.BINARY.items()):
        for r in range(8):

            def check(s: dict[str, Any], e: dict[str, Any], fn: Any = fn, r: int = r) -> str | None:
                a, f = fn(s["a"], _operand(s, r), s["f"])
                return None if (a, f) == (e["a"], e["f"]) else f"A,F model {a:#04x},{f:#04x}"

            yield f"{0x80 + 8 * i + r:02x}", f"{name} r{r}", check

        def check_imm(s: dict[str, Any], e: dict[str, Any], fn: Any = fn) -> str | None:
            a, f = fn(s["a"], _mem(s, s["pc"] + 1), s["f"])
            return None if (a, f) == (e["a"], e["f"]) else f"A,F model {a:#04x},{f:#04x}"

        yield f"{0xC6 + 8 * i:02x}", f"{name} d8", check_imm
    for acc_name, (opcode, acc) in model.ACCUMULATOR.items():

        def check_acc(s: dict[str, Any], e: dict[str, Any], fn: Any = acc) -> str | None:
            a, f = fn(s["a"], s["f"])
            return None if (a, f) == (e["a"], e["f"]) else f"A,F model {a:#04x},{f:#04x}"

        yield f"{opcode:02x}", acc_name, check_acc
    for r in (0, 7):  # INC/DEC B and A
        for base, unary in ((0x04, model.inc), (0x05, model.dec)):
            reg = _R8[r]
            assert reg is not None

            def check_id(
                s: dict[str, Any], e: dict[str, Any], fn: Any = unary, reg: str = reg
            ) -> str | None:
                v, f = fn(s[reg], s["f"])
                return None if (v, f) == (e[reg], e["f"]) else f"{reg},F model {v:#04x},{f:#04x}"

            yield f"{base + 8 * r:02x}", f"{unary.__name__} {reg}", check_id
    for i, (cb_name, cb) in enumerate(model.UNARY.items()):

        def check_cb(s: dict[str, Any], e: dict[str, Any], fn: Any = cb) -> str | None:
            v, f = fn(s["b"], s["f"])
            return None if (v, f) == (e["b"], e["f"]) else f"B,F model {v:#04x},{f:#04x}"

        yield f"cb {8 * i:02x}", f"{cb_name} b", check_cb
    for n in range(8):

        def check_bit(s: dict[str, Any], e: dict[str, Any], n: int = n) -> str | None:
            _, f = model.bit(n)(s["b"], s["f"])
            return None if f == e["f"] else f"F model {f:#04x}"

        yield f"cb {0x40 + 8 * n:02x}", f"bit {n},b", check_bit
    for opcode, rr in ((0x09, "bc"), (0x19, "de"), (0x29, "hl")):

        def check_hl(s: dict[str, Any], e: dict[str, Any], rr: str = rr) -> str | None:
            v = (s[rr[0]] << 8) | s[rr[1]]
            hl, f = model.add_hl((s["h"] << 8) | s["l"], v, s["f"])
            got = (e["h"] << 8) | e["l"]
            return None if (hl, f) == (got, e["f"]) else f"HL,F model {hl:#06x},{f:#04x}"

        yield f"{opcode:02x}", f"add hl,{rr}", check_hl

    def check_sp(s: dict[str, Any], e: dict[str, Any]) -> str | None:
        sp, f = model.add_sp_e(s["sp"], _mem(s, s["pc"] + 1), s["f"])
        return None if (sp, f) == (e["sp"], e["f"]) else f"SP,F model {sp:#06x},{f:#04x}"

    yield "e8", "add sp,e", check_sp

    def check_ldhl(s: dict[str, Any], e: dict[str, Any]) -> str | None:
        hl, f = model.add_sp_e(s["sp"], _mem(s, s["pc"] + 1), s["f"])
        got = (e["h"] << 8) | e["l"]
        return None if (hl, f) == (got, e["f"]) else f"HL,F model {hl:#06x},{f:#04x}"

    yield "f8", "ld hl,sp+e", check_ldhl


def check_model(vector_dir: Path) -> tuple[int, int, list[str]]:
    """Runs the model over every covered vector file in ``vector_dir``.

    Returns (files checked, vectors checked, disagreements as readable strings).
    """
    files = vectors = 0
    problems: list[str] = []
    for stem, label, check in _checks():
        path = vector_dir / f"{stem}.json.gz"
        if not path.is_file():
            continue
        with gzip.open(path, "rt") as fh:
            cases = json.load(fh)
        files += 1
        for case in cases:
            vectors += 1
            why = check(case["initial"], case["final"])
            if why is not None and len(problems) < 20:
                problems.append(f"{label} ({case['name']}): {why}, vector {case['final']}")
    return files, vectors, problems
