"""Sentence embeddings from a local transformers model folder, on the CPU.

all-MiniLM-L6-v2's model card prescribes mean pooling over the attention mask followed by
L2 normalisation; that is done here directly (no sentence-transformers needed at run time).
The network runs with onnxruntime from a checked one-off export where it can be made
(providers/onnx_encoder.py: torch alone held ~210 MiB of the model host), else with torch
and transformers as before. HF_HUB_OFFLINE is set before transformers is imported so that
nothing can reach a hub.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from quizsmith.errors import ModelNotFoundError, ProviderError
from quizsmith.providers import native_logs, onnx_encoder
from quizsmith.providers.base import ModelInfo, Provider

if TYPE_CHECKING:
    from quizsmith.providers.catalog import CatalogModel
    from quizsmith.settings import Settings

log = logging.getLogger(__name__)


class Encoder(Protocol):
    def hidden(self, texts: Sequence[str]) -> tuple[Any, Any, Any]:
        """(last hidden state, attention mask, special-token mask) of one batch, as numpy."""
        ...


#: Loaded encoders by (folder, max_length): (encoder, lock, which runtime).
_loaded: dict[tuple[str, int], tuple[Encoder, threading.Lock, str]] = {}
_loaded_lock = threading.Lock()
BATCH = 32


class TorchEncoder:
    """The folder's model through transformers and torch (where no export can be made)."""

    def __init__(self, folder: Path, max_length: int) -> None:
        onnx_encoder.keep_hub_offline()
        try:
            import torch
            from transformers import AutoModel, AutoTokenizer
        except ImportError:
            raise ModelNotFoundError(
                "torch and transformers are not installed.", "Run `make install` (extra: hf)."
            ) from None
        native_logs.quiet_transformers()
        torch.set_num_threads(max(1, torch.get_num_threads()))
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
            self.model = AutoModel.from_pretrained(str(folder), local_files_only=True)
        except (OSError, ValueError) as exc:
            raise ProviderError(
                f"Could not load the embedding model in {folder}: {exc}.", ""
            ) from exc
        self.model.eval()
        self.max_length = max_length

    def hidden(self, texts: Sequence[str]) -> tuple[Any, Any, Any]:
        import torch

        enc = self.tokenizer(
            list(texts),
            padding=True,
            truncation=True,
            max_length=self.max_length,
            return_tensors="pt",
            return_special_tokens_mask=True,
        )
        special = enc.pop("special_tokens_mask")
        with torch.inference_mode():
            hidden = self.model(**enc).last_hidden_state
        return hidden.float().numpy(), enc["attention_mask"].numpy(), special.numpy()


def _onnx(folder: Path, max_length: int) -> Encoder | None:
    """The folder's checked ONNX export run by onnxruntime, or None (why is logged)."""
    encoder, why = onnx_encoder.load_encoder(folder, max_length)
    if encoder is None:
        log.warning("Embeddings run with torch: %s.", why)
    return encoder


def _load(folder: Path, max_length: int) -> tuple[Encoder, threading.Lock, str]:
    key = (str(folder.resolve()), max_length)
    with _loaded_lock:
        if key in _loaded:
            return _loaded[key]
        if not (folder / "config.json").exists():
            raise ModelNotFoundError(
                f"{folder} is not a transformers model folder (no config.json).", "Check the path."
            )
        encoder = _onnx(folder, max_length) if (folder / "tokenizer.json").exists() else None
        runtime = "onnxruntime"
        if encoder is None:
            encoder, runtime = TorchEncoder(folder, max_length), "torch"
        entry = (encoder, threading.Lock(), runtime)
        _loaded[key] = entry
        return entry


class HFEmbeddingProvider(Provider):
    name: ClassVar[str] = "hf"
    description: ClassVar[str] = "Sentence embeddings of a transformers model on the CPU"
    can_embed = True
    is_local = True
    runs_in_host = True
    model_path: Path
    max_length: int

    @classmethod
    def from_catalog(cls, model: CatalogModel, path: Path, settings: Settings) -> Provider:
        return cls(path, model_id=model.id)

    def __init__(
        self, model_path: str | Path, *, model_id: str = "", max_length: int = 256
    ) -> None:
        self.model_path = Path(model_path)
        self.model_id = model_id or self.model_path.name
        # all-MiniLM-L6-v2 was trained on 128 word pieces and accepts 256 (its card says
        # longer input is truncated); longer windows would add cost without meaning.
        self.max_length = max_length

    @property
    def info(self) -> ModelInfo:
        return ModelInfo(self.name, self.model_id, {"pooling": "mean", "normalised": True})

    @property
    def runtime(self) -> str:
        """What runs the network: "onnxruntime" or "torch" (loads the model)."""
        return _load(self.model_path, self.max_length)[2]

    def _hidden(self, texts: Sequence[str]) -> tuple[Any, Any, Any]:
        encoder, lock, _ = _load(self.model_path, self.max_length)
        with lock:
            return encoder.hidden([t if t.strip() else " " for t in texts])

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        import numpy as np

        vectors: list[list[float]] = []
        for i in range(0, len(texts), BATCH):
            hidden, attention, _ = self._hidden(texts[i : i + BATCH])
            mask = attention[..., None].astype(hidden.dtype)
            pooled = (hidden * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            vectors.extend((pooled / np.clip(norms, 1e-12, None)).tolist())
        return vectors

    def token_embeddings(self, texts: Sequence[str]) -> list[Any]:
        """Last hidden state per word piece, [CLS]/[SEP] and padding removed (BERTScore
        ignores them too)."""
        hidden, attention, special = self._hidden(texts)
        keep = (attention == 1) & (special == 0)
        return [hidden[row][keep[row]] for row in range(hidden.shape[0])]
