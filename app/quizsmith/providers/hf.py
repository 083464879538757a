"""Sentence embeddings with transformers + torch on the CPU, from a local model folder.

all-MiniLM-L6-v2's model card prescribes mean pooling over the attention mask followed by
L2 normalisation; that is done here directly (no sentence-transformers needed at run time).
HF_HUB_OFFLINE is set before transformers is imported so that nothing can reach a hub.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from quizsmith.errors import ModelNotFoundError, ProviderError
from quizsmith.providers import native_logs
from quizsmith.providers.base import ModelInfo, Provider

if TYPE_CHECKING:
    from quizsmith.providers.catalog import CatalogModel
    from quizsmith.settings import Settings

_loaded: dict[str, tuple[Any, Any, threading.Lock]] = {}
_loaded_lock = threading.Lock()
BATCH = 32


def _load(folder: Path) -> tuple[Any, Any, threading.Lock]:
    key = str(folder.resolve())
    with _loaded_lock:
        if key in _loaded:
            return _loaded[key]
        if not (folder / "config.json").exists():
            raise ModelNotFoundError(
                f"{folder} is not a transformers model folder (no config.json).", "Check the path."
            )
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
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
            tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
            model = AutoModel.from_pretrained(str(folder), local_files_only=True)
        except (OSError, ValueError) as exc:
            raise ProviderError(
                f"Could not load the embedding model in {folder}: {exc}.", ""
            ) from exc
        model.eval()
        entry = (tokenizer, model, threading.Lock())
        _loaded[key] = entry
        return entry


class HFEmbeddingProvider(Provider):
    name: ClassVar[str] = "hf"
    description: ClassVar[str] = "Sentence embeddings with transformers on the CPU"
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

    def _hidden(self, model: Any, tokenizer: Any, texts: Sequence[str]) -> tuple[Any, Any, Any]:
        """The last hidden state of one batch, its attention mask and its special-token mask
        (the caller holds the model's lock, in inference mode)."""
        enc = tokenizer(
            [t if t.strip() else " " for t in texts],
            padding=True,
            truncation=True,
            max_length=self.max_length,
            return_tensors="pt",
            return_special_tokens_mask=True,
        )
        special = enc.pop("special_tokens_mask")
        return model(**enc).last_hidden_state, enc["attention_mask"], special

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        import torch

        tokenizer, model, lock = _load(self.model_path)
        vectors: list[list[float]] = []
        with lock, torch.inference_mode():
            for i in range(0, len(texts), BATCH):
                hidden, attention, _ = self._hidden(model, tokenizer, texts[i : i + BATCH])
                mask = attention.unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
                pooled = torch.nn.functional.normalize(pooled, p=2, dim=1)
                vectors.extend(pooled.tolist())
        return vectors

    def token_embeddings(self, texts: Sequence[str]) -> list[Any]:
        """Last hidden state per word piece, [CLS]/[SEP] and padding removed (BERTScore
        ignores them too)."""
        import torch

        tokenizer, model, lock = _load(self.model_path)
        with lock, torch.inference_mode():
            hidden, attention, special = self._hidden(model, tokenizer, texts)
            keep = (attention == 1) & (special == 0)
            return [hidden[row][keep[row]].float().numpy() for row in range(hidden.shape[0])]
