"""The package as users install it: the in-tree build backend writes a valid wheel and sdist, and
``pip install ./python`` / ``pip wheel ./python`` work in a fresh virtual environment without a package index."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import subprocess
import sys
import tarfile
import tempfile
import unittest
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "build_backend"))
import ats_build  # noqa: E402


def _has_ensurepip() -> bool:
    try:
        import ensurepip  # noqa: F401
    except ImportError:
        return False
    return True


class BuildBackendTest(unittest.TestCase):
    def test_the_wheel_holds_the_package_typed_with_valid_metadata_and_record(self) -> None:
        with tempfile.TemporaryDirectory() as directory:
            name = ats_build.build_wheel(directory)
            self.assertEqual(name, "ats_client-0.1.0-py3-none-any.whl")
            with zipfile.ZipFile(Path(directory) / name) as wheel:
                names = wheel.namelist()
                sources = {p.relative_to(ROOT / "src").as_posix() for p in (ROOT / "src" / "ats").rglob("*.py")}
                self.assertTrue(sources <= set(names), sources - set(names))
                self.assertIn("ats/py.typed", names)
                metadata = wheel.read("ats_client-0.1.0.dist-info/METADATA").decode()
                self.assertIn("Name: ats-client\n", metadata)
                self.assertIn("Requires-Python: >=3.9\n", metadata)
                self.assertNotIn("Requires-Dist", metadata)
                self.assertIn("Tag: py3-none-any", wheel.read("ats_client-0.1.0.dist-info/WHEEL").decode())
                record = list(csv.reader(io.StringIO(wheel.read("ats_client-0.1.0.dist-info/RECORD").decode())))
                self.assertEqual({row[0] for row in record}, set(names))
                for path, digest, size in record:
                    if path.endswith("RECORD"):
                        continue
                    data = wheel.read(path)
                    expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                    self.assertEqual((digest, int(size)), (f"sha256={expected}", len(data)), path)

    def test_the_sdist_and_the_metadata_hook(self) -> None:
        with tempfile.TemporaryDirectory() as directory:
            name = ats_build.build_sdist(directory)
            with tarfile.open(Path(directory) / name) as archive:
                members = archive.getnames()
            self.assertIn("ats_client-0.1.0/pyproject.toml", members)
            self.assertIn("ats_client-0.1.0/build_backend/ats_build.py", members)
            self.assertIn("ats_client-0.1.0/src/ats/_queue.py", members)
            self.assertEqual(ats_build.prepare_metadata_for_build_wheel(directory), "ats_client-0.1.0.dist-info")
            self.assertEqual(ats_build.get_requires_for_build_wheel(), [])

    def test_the_fallback_toml_reader_agrees_with_tomllib(self) -> None:
        subset = ats_build.read_toml_subset(ROOT / "pyproject.toml")
        self.assertEqual(subset["build-system"], {"requires": [], "build-backend": "ats_build", "backend-path": ["build_backend"]})
        try:
            import tomllib  # type: ignore[import-not-found]
        except ImportError:
            self.assertEqual(subset["project"]["name"], "ats-client")
            return
        with (ROOT / "pyproject.toml").open("rb") as handle:
            self.assertEqual(subset, tomllib.load(handle))


@unittest.skipUnless(_has_ensurepip(), "needs venv with pip (Debian: python3-venv)")
class PipInstallTest(unittest.TestCase):
    def test_pip_install_and_pip_wheel_without_an_index(self) -> None:
        with tempfile.TemporaryDirectory() as directory:
            environment = Path(directory) / "venv"
            venv.create(environment, with_pip=True)
            python = str(environment / "bin" / "python")
            pip = [python, "-m", "pip", "--disable-pip-version-check", "--no-input"]
            installed = subprocess.run([*pip, "install", "--no-index", str(ROOT)], capture_output=True, text=True, timeout=180)
            self.assertEqual(installed.returncode, 0, installed.stdout + installed.stderr)
            check = "import ats, pathlib; print(ats.__version__, pathlib.Path(ats.__file__).parent.joinpath('py.typed').exists())"
            imported = subprocess.run([python, "-c", check], capture_output=True, text=True, cwd=directory, timeout=60)
            self.assertEqual(imported.stdout.strip(), "0.1.0 True", imported.stderr)
            wheels = Path(directory) / "wheels"
            built = subprocess.run([*pip, "wheel", "--no-index", str(ROOT), "-w", str(wheels)], capture_output=True, text=True, timeout=180)
            self.assertEqual(built.returncode, 0, built.stdout + built.stderr)
            self.assertEqual([p.name for p in wheels.iterdir()], ["ats_client-0.1.0-py3-none-any.whl"])


if __name__ == "__main__":
    unittest.main()
