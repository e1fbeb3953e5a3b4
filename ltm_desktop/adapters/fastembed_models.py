"""FastEmbedEmbedder and FastEmbedReranker: ONNX models through fastembed, loaded once per process.

Bundled models ("local/...") load from verified files with local_files_only, so no code path reaches a
model hub; a fastembed model name (an explicit user choice) downloads once into HOME/models/cache.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path

from ltm_desktop.adapters.model_pack import EMBEDDER, RERANKER, pack_fingerprint, verify_model
from ltm_desktop.core.errors import KnownError, ModelFilesMissing
from ltm_desktop.core.models import ModelPin

log = logging.getLogger(__name__)

BUNDLED_EMBEDDER = "local/bge-small-en-v1.5-int8"
BUNDLED_RERANKER = "local/ms-marco-MiniLM-L-12-v2-int8"
_REGISTER_LOCK = threading.Lock()
_registered: set[str] = set()



def _register_bundled() -> None:
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType
    from fastembed.rerank.cross_encoder import TextCrossEncoder

    with _REGISTER_LOCK:
        if BUNDLED_EMBEDDER not in _registered:
            TextEmbedding.add_custom_model(
                model=BUNDLED_EMBEDDER,
                pooling=PoolingType.CLS,
                normalization=True,
                sources=ModelSource(hf=BUNDLED_EMBEDDER),
                dim=384,
                model_file="model.onnx",
            )
            _registered.add(BUNDLED_EMBEDDER)
        if BUNDLED_RERANKER not in _registered:
            TextCrossEncoder.add_custom_model(
                model=BUNDLED_RERANKER, sources=ModelSource(hf=BUNDLED_RERANKER), model_file="model.onnx"
            )
            _registered.add(BUNDLED_RERANKER)


class FastEmbedEmbedder:
    """Bi-encoder embeddings; documents as they are, queries with the model's instruction prefix."""

    # One text per model call: with this int8 model, padded batches cost more than they save (bench/bench_ingest.py:
    # 38 vs 21 chunks/s on 1,000-character chunks, and ~1 GB less peak memory); callers may still pass many texts.
    def __init__(self, model_id: str, models_dir: Path, query_prefix: str, batch_size: int = 1) -> None:
        from fastembed import TextEmbedding

        self._prefix = query_prefix
        self._batch = batch_size
        try:
            if model_id == BUNDLED_EMBEDDER:
                _register_bundled()
                folder = verify_model(models_dir, EMBEDDER)
                self._model = TextEmbedding(
                    model_id, specific_model_path=str(folder), local_files_only=True
                )
                fingerprint = pack_fingerprint(EMBEDDER)
            else:
                self._model = TextEmbedding(model_id, cache_dir=str(models_dir / "cache"))
                fingerprint = f"fastembed:{model_id}"
        except ModelFilesMissing:
            raise
        except Exception as e:  # onnxruntime / fastembed raise many types; the person needs one message
            raise ModelFilesMissing(f"embedding model {model_id} failed to load ({e}); run `ltm models fetch --force`") from e
        dim = len(next(iter(self._model.embed(["dimension probe"]))))
        self._pin = ModelPin(model_id=model_id, dim=dim, files_sha256=fingerprint, query_prefix=query_prefix)

    @property
    def pin(self) -> ModelPin:
        return self._pin

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        return [v.tolist() for v in self._model.embed(list(texts), batch_size=self._batch)]

    def embed_query(self, text: str) -> list[float]:
        return next(iter(self._model.embed([self._prefix + text]))).tolist()


class FastEmbedReranker:
    """A cross-encoder that scores (query, passage) pairs; logits, higher is better."""

    def __init__(self, model_id: str, models_dir: Path) -> None:
        from fastembed.rerank.cross_encoder import TextCrossEncoder

        try:
            if model_id == BUNDLED_RERANKER:
                _register_bundled()
                folder = verify_model(models_dir, RERANKER)
                self._model = TextCrossEncoder(model_id, specific_model_path=str(folder))
            else:
                self._model = TextCrossEncoder(model_id, cache_dir=str(models_dir / "cache"))
        except ModelFilesMissing:
            raise
        except Exception as e:
            raise ModelFilesMissing(f"reranker {model_id} failed to load ({e}); run `ltm models fetch --force`") from e

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        if not passages:
            return []
        try:
            return [float(s) for s in self._model.rerank(query, list(passages), batch_size=16)]
        except Exception as e:
            raise KnownError(f"the reranker failed ({e})") from e
