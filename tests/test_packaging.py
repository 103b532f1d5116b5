"""The wheel a user installs carries the schemas and the type marker."""

from __future__ import annotations

import subprocess
import sys
import zipfile

import pytest
from conftest import ROOT


@pytest.mark.slow  # pip builds the wheel in a build environment of its own: 7 s of CPU
def test_wheel_ships_schemas_and_py_typed(tmp_path):
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--quiet",
            "--disable-pip-version-check",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("msgcli-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for schema in sorted((ROOT / "schemas").glob("*/*.schema.json")):
        assert f"msgcli/schemas/{schema.parent.name}/{schema.name}" in names
    assert "msgcli/py.typed" in names
    for asset in ("page.css", "page.js", "index.js"):  # the HTML export's style and script
        assert f"msgcli/render/{asset}" in names
    assert not any(n.startswith(("tests/", "fixtures/")) for n in names)
