"""A PEP 517 / PEP 660 build backend for this package, written with the standard library only.

pip builds in an isolated environment and installs the backend's requirements there first; with a backend from
the package index (setuptools, hatchling…) that fails on a machine without one. This backend needs nothing: it
reads ``pyproject.toml``'s ``[project]`` table, and writes a PEP 427 wheel of ``src/`` (``py3-none-any``), an
sdist, or an editable wheel (a ``.pth`` pointing at ``src/``).
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "src"
PACKAGE = "ats"
# Zip entries need a date; SOURCE_DATE_EPOCH (reproducible builds) or a fixed one.
_EPOCH = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))


# ---- pyproject.toml ----


def _parse_value(text: str) -> Any:
    text = text.strip()
    if text.startswith('"'):
        return _unquote(text)
    if text.startswith("["):
        inner = text[1:-1]
        return [_unquote(item.strip()) for item in re.findall(r'"(?:[^"\\]|\\.)*"', inner)]
    if text.startswith("{"):
        return {key: _unquote(value) for key, value in re.findall(r'(\w[\w-]*)\s*=\s*("(?:[^"\\]|\\.)*")', text)}
    return text


def _unquote(text: str) -> str:
    return text.strip()[1:-1].replace('\\"', '"').replace("\\\\", "\\")


def _read_toml(path: Path) -> Dict[str, Dict[str, Any]]:
    """The tables of ``path``: ``tomllib`` where there is one (3.11+), else a reader of the subset this project's
    file uses (tables, strings, arrays of strings, inline tables of strings, comments)."""
    try:
        import tomllib  # type: ignore[import-not-found]

        with path.open("rb") as handle:
            return tomllib.load(handle)
    except ImportError:
        return read_toml_subset(path)


def read_toml_subset(path: Path) -> Dict[str, Dict[str, Any]]:
    """The reader of the TOML subset this project's ``pyproject.toml`` uses (Python < 3.11 has no tomllib)."""
    tables: Dict[str, Dict[str, Any]] = {}
    current: Dict[str, Any] = {}
    pending: Optional[Tuple[str, str]] = None
    for raw in path.read_text("utf-8").splitlines():
        line = raw.split("#", 1)[0].rstrip() if '"' not in raw else raw.rstrip()
        if pending is not None:
            key, collected = pending
            collected += " " + line.strip()
            if line.strip().endswith("]"):
                current[key] = _parse_value(collected)
                pending = None
            else:
                pending = (key, collected)
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("["):
            # A dotted name ([project.urls]) is a table within a table, as tomllib reads it.
            current = tables
            for part in stripped.strip("[]").strip().split("."):
                current = current.setdefault(part.strip(), {})
            continue
        key, _, value = stripped.partition("=")
        value = value.strip()
        if value.startswith("[") and not value.endswith("]"):
            pending = (key.strip(), value)
        else:
            current[key.strip()] = _parse_value(value)
    return tables


def _project() -> Dict[str, Any]:
    return _read_toml(ROOT / "pyproject.toml")["project"]


def _distribution(project: Dict[str, Any]) -> str:
    return re.sub(r"[-_.]+", "_", project["name"]).lower()


def _metadata(project: Dict[str, Any]) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
        f"Summary: {project.get('description', '')}",
        f"Requires-Python: {project.get('requires-python', '>=3.9')}",
    ]
    if isinstance(project.get("license"), str):
        lines.append(f"License: {project['license']}")
    for label, url in project.get("urls", {}).items():
        lines.append(f"Project-URL: {label}, {url}")
    if project.get("keywords"):
        lines.append(f"Keywords: {','.join(project['keywords'])}")
    lines.extend(f"Classifier: {classifier}" for classifier in project.get("classifiers", []))
    for requirement in project.get("dependencies", []):
        lines.append(f"Requires-Dist: {requirement}")
    readme = project.get("readme")
    description = ""
    if isinstance(readme, str) and (ROOT / readme).exists():
        lines.append("Description-Content-Type: text/markdown")
        description = (ROOT / readme).read_text("utf-8")
    return "\n".join(lines) + "\n\n" + description


# ---- wheels ----


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return f"{name},sha256={digest},{len(data)}"


def _write_wheel(directory: str, files: List[Tuple[str, bytes]], project: Dict[str, Any]) -> str:
    distribution = _distribution(project)
    version = project["version"]
    dist_info = f"{distribution}-{version}.dist-info"
    name = f"{distribution}-{version}-py3-none-any.whl"
    wheel_text = "Wheel-Version: 1.0\nGenerator: ats_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    entries = list(files) + [
        (f"{dist_info}/METADATA", _metadata(project).encode("utf-8")),
        (f"{dist_info}/WHEEL", wheel_text.encode("utf-8")),
        (f"{dist_info}/top_level.txt", f"{PACKAGE}\n".encode("utf-8")),
    ]
    if (ROOT / "LICENSE").exists():
        entries.append((f"{dist_info}/LICENSE", (ROOT / "LICENSE").read_bytes()))
    record = "\n".join(_record_line(path, data) for path, data in entries) + f"\n{dist_info}/RECORD,,\n"
    entries.append((f"{dist_info}/RECORD", record.encode("utf-8")))
    date = time.gmtime(max(_EPOCH, 315532800))[:6]
    with zipfile.ZipFile(Path(directory) / name, "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, data in entries:
            info = zipfile.ZipInfo(path, date_time=date)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)
    return name


def _package_files() -> List[Tuple[str, bytes]]:
    files = []
    for path in sorted((SOURCE / PACKAGE).rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix in (".py", ".typed"):
            files.append((path.relative_to(SOURCE).as_posix(), path.read_bytes()))
    return files


def get_requires_for_build_wheel(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    """Nothing to install: the backend is the standard library."""
    return []


def get_requires_for_build_sdist(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    """Nothing to install."""
    return []


def get_requires_for_build_editable(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    """Nothing to install."""
    return []


def prepare_metadata_for_build_wheel(
    metadata_directory: str, config_settings: Optional[Dict[str, Any]] = None
) -> str:
    """Writes the ``.dist-info`` directory (METADATA, WHEEL, top_level.txt) and returns its name."""
    project = _project()
    dist_info = Path(metadata_directory) / f"{_distribution(project)}-{project['version']}.dist-info"
    dist_info.mkdir(parents=True, exist_ok=True)
    (dist_info / "METADATA").write_text(_metadata(project), "utf-8")
    (dist_info / "WHEEL").write_text(
        "Wheel-Version: 1.0\nGenerator: ats_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n", "utf-8"
    )
    (dist_info / "top_level.txt").write_text(f"{PACKAGE}\n", "utf-8")
    return dist_info.name


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(
    wheel_directory: str,
    config_settings: Optional[Dict[str, Any]] = None,
    metadata_directory: Optional[str] = None,
) -> str:
    """Builds ``ats_client-<version>-py3-none-any.whl`` from ``src/`` and returns its file name."""
    return _write_wheel(wheel_directory, _package_files(), _project())


def build_editable(
    wheel_directory: str,
    config_settings: Optional[Dict[str, Any]] = None,
    metadata_directory: Optional[str] = None,
) -> str:
    """Builds an editable wheel: a ``.pth`` file that puts ``src/`` on ``sys.path``."""
    project = _project()
    pth = (f"{_distribution(project)}.pth", (str(SOURCE) + "\n").encode("utf-8"))
    return _write_wheel(wheel_directory, [pth], project)


def build_sdist(sdist_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    """Builds ``ats_client-<version>.tar.gz``: the sources, tests, backend, pyproject and README, plus PKG-INFO."""
    project = _project()
    base = f"{_distribution(project)}-{project['version']}"
    name = f"{base}.tar.gz"
    members: List[Tuple[str, bytes]] = [("PKG-INFO", _metadata(project).encode("utf-8"))]
    for top in ("pyproject.toml", "README.md", "LICENSE"):
        if (ROOT / top).exists():
            members.append((top, (ROOT / top).read_bytes()))
    for folder in ("src", "build_backend", "tests"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                members.append((path.relative_to(ROOT).as_posix(), path.read_bytes()))
    with tarfile.open(Path(sdist_directory) / name, "w:gz", format=tarfile.PAX_FORMAT) as archive:
        for path, data in members:
            info = tarfile.TarInfo(f"{base}/{path}")
            info.size = len(data)
            info.mtime = _EPOCH
            info.mode = 0o644
            archive.addfile(info, io.BytesIO(data))
    return name
