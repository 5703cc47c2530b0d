"""`spec/*.json` is the public contract: regenerated from the capability table, it must not drift."""

from __future__ import annotations

from pathlib import Path

from gno.contract.spec import render, schemas

SPEC = Path(__file__).resolve().parents[1] / "spec"


def test_spec_matches_the_capability_table() -> None:
    expected = schemas()
    on_disk = {p.name for p in SPEC.glob("*.json")}
    assert on_disk == set(expected), f"spec/ drifted: run `python -m gno.contract.spec` ({on_disk ^ set(expected)})"
    for name, schema in expected.items():
        assert (SPEC / name).read_text(encoding="utf-8") == render(schema), (
            f"spec/{name} drifted from the models: run `python -m gno.contract.spec` and review the diff"
        )


def test_every_result_schema_is_an_object_with_descriptions_of_its_requests() -> None:
    for name, schema in schemas().items():
        assert schema.get("type") == "object", name
        if name.endswith(".request.json"):
            for prop, spec in schema.get("properties", {}).items():
                assert spec.get("description"), f"{name}: {prop} has no description"
