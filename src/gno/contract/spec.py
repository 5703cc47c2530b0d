"""`spec/*.json`: the JSON Schemas of every capability's request and result, and of the error body.

Generated from the capability table, checked in, and compared by a drift test, so a change to a
public contract shows up as a diff in review. Regenerate with `python -m gno.contract.spec`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from gno.contract import CAPABILITIES
from gno.contract.request import ErrorBody
from gno.contract.schema import input_schema, output_schema


def schemas() -> dict[str, dict[str, Any]]:
    """File name → schema, for every capability and the error envelope."""
    out: dict[str, dict[str, Any]] = {"error.json": ErrorBody.model_json_schema()}
    for cap in CAPABILITIES:
        out[f"{cap.name}.request.json"] = input_schema(cap.request_model)
        out[f"{cap.name}.result.json"] = output_schema(cap.result_model)
    return out


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, schema in schemas().items():
        path = folder / name
        path.write_text(render(schema), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":  # pragma: no cover - a maintainer's command
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[3] / "spec"
    for p in write(target):
        print(p)
