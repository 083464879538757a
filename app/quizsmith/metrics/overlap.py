"""Reference-overlap measures for questions: BLEU-4, ROUGE-L, METEOR and a BERTScore-style F1.

Pure functions (no model calls except the token embedder handed to `bertscore_f1`), used by
MRE and by the evaluation harness. Every function takes one candidate and a list of
references and returns the MAXIMUM over single-reference scores: that is the MRE paper's
equation (1), s = max_i M(q_ri, q_g), and it makes MRE >= SRE hold by construction. All
values are in 0-1.

Choices worth knowing when comparing with published numbers:

- BLEU-4: sacrebleu's sentence BLEU with its defaults for sentences (13a tokenisation,
  "exp" smoothing = Chen & Cherry's method 3, effective order), divided by 100. sacrebleu's
  own multi-reference BLEU pools n-gram counts over references; we take the max of single
  scores instead, as the MRE paper's equation (1) does.
- ROUGE-L: rouge-score's ROUGE-L F-measure with Porter stemming.
- METEOR: our own implementation of NLTK's `meteor_score` formula (Banerjee & Lavie 2005)
  WITHOUT the WordNet-synonym stage, because WordNet is a corpus download and the app works
  offline. Matching is exact, then Porter stem. Scores are therefore equal to or lower than
  NLTK's whenever a candidate uses a synonym of a reference word ("big" vs "large"); on
  identical or stem-only-different wording they are equal (the tests check this against
  NLTK itself with an empty WordNet stub).
- BERTScore-style F1: greedy cosine matching of contextual token vectors (Zhang et al.
  2020) from all-MiniLM-L6-v2's last hidden state, without [CLS]/[SEP], without idf
  weighting and without baseline rescaling. The original BERTScore uses a larger model's
  layer and usually rescales; ours is a cheaper offline stand-in, so absolute values are not
  comparable with published BERTScore numbers (unrelated short questions typically land
  around 0.3-0.5, not 0). Clipped at 0 below, as cosines can in principle be negative.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import pairwise
from typing import Any

import numpy as np

#: texts -> one (n_tokens x dim) array of token vectors per text.
TokenEmbedder = Callable[[Sequence[str]], list[np.ndarray]]

# METEOR parameters as in NLTK's meteor_score (Lavie & Agarwal's defaults for English).
METEOR_ALPHA = 0.9
METEOR_BETA = 3.0
METEOR_GAMMA = 0.5


def _clean_refs(references: Sequence[str]) -> list[str]:
    return [r for r in references if r and r.strip()]


# -- BLEU-4 ---------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _bleu() -> Any:
    from sacrebleu.metrics import BLEU

    # effective_order: a question shorter than 4 tokens is not scored 0 just for lacking
    # 4-grams (sacrebleu's recommendation for sentence-level BLEU); "exp" is its default.
    return BLEU(smooth_method="exp", effective_order=True)


def bleu4(candidate: str, references: Sequence[str]) -> float:
    """Sentence BLEU-4 in 0-1, max over references (0.0 for an empty candidate)."""
    refs = _clean_refs(references)
    if not candidate.strip() or not refs:
        return 0.0
    scorer = _bleu()
    return max(min(1.0, scorer.sentence_score(candidate, [r]).score / 100.0) for r in refs)


# -- ROUGE-L --------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _rouge() -> Any:
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)


def rouge_l(candidate: str, references: Sequence[str]) -> float:
    """ROUGE-L F-measure with stemming, max over references."""
    refs = _clean_refs(references)
    if not candidate.strip() or not refs:
        return 0.0
    scorer = _rouge()
    return max(float(scorer.score(r, candidate)["rougeL"].fmeasure) for r in refs)


# -- METEOR ---------------------------------------------------------------------------------
_WORD = re.compile(r"\w+|[^\w\s]")


def meteor_tokens(text: str) -> list[str]:
    """Lower-cased words and punctuation marks (close to NLTK's word_tokenize for questions,
    which is what `meteor_score` is usually fed)."""
    return _WORD.findall(text.lower())


@lru_cache(maxsize=1)
def porter_stemmer() -> Any:
    # PorterStemmer is pure code: no nltk data download is needed.
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer()


def _match(hyp: list[tuple[int, str]], ref: list[tuple[int, str]]) -> list[tuple[int, int]]:
    """NLTK's `_match_enums`: scan both lists from the end, pair equal words, remove them
    from both lists (in place) so that a later stage only sees what is still unmatched."""
    pairs: list[tuple[int, int]] = []
    for i in range(len(hyp) - 1, -1, -1):
        for j in range(len(ref) - 1, -1, -1):
            if hyp[i][1] == ref[j][1]:
                pairs.append((hyp[i][0], ref[j][0]))
                hyp.pop(i)
                ref.pop(j)
                break
    return pairs


def _chunks(matches: list[tuple[int, int]]) -> int:
    """Number of runs of matches that are adjacent in both the candidate and the reference."""
    chunks = 1
    for (h0, r0), (h1, r1) in pairwise(matches):
        if not (h1 == h0 + 1 and r1 == r0 + 1):
            chunks += 1
    return chunks


def meteor_single(candidate: str, reference: str) -> float:
    """METEOR of one candidate against one reference.

    P = m / |cand|, R = m / |ref|, Fmean = P R / (alpha P + (1 - alpha) R),
    penalty = gamma (chunks / m)^beta, METEOR = (1 - penalty) Fmean; m = matched unigrams
    (exact stage, then Porter-stem stage on what is left; no WordNet stage).
    """
    hyp_words = meteor_tokens(candidate)
    ref_words = meteor_tokens(reference)
    if not hyp_words or not ref_words:
        return 0.0
    hyp = list(enumerate(hyp_words))
    ref = list(enumerate(ref_words))
    matches = _match(hyp, ref)
    stem = porter_stemmer().stem
    hyp_stems = [(i, stem(w)) for i, w in hyp]
    ref_stems = [(j, stem(w)) for j, w in ref]
    matches += _match(hyp_stems, ref_stems)
    m = len(matches)
    if m == 0:
        return 0.0
    matches.sort(key=lambda pair: pair[0])
    precision = m / len(hyp_words)
    recall = m / len(ref_words)
    fmean = precision * recall / (METEOR_ALPHA * precision + (1 - METEOR_ALPHA) * recall)
    penalty = METEOR_GAMMA * (_chunks(matches) / m) ** METEOR_BETA
    return (1 - penalty) * fmean


def meteor(candidate: str, references: Sequence[str]) -> float:
    """METEOR (exact + stem matching), max over references."""
    refs = _clean_refs(references)
    if not candidate.strip() or not refs:
        return 0.0
    return max(meteor_single(candidate, r) for r in refs)


# -- BERTScore-style F1 ---------------------------------------------------------------------
def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.clip(norms, 1e-12, None)


def bertscore_pair(cand_vecs: np.ndarray, ref_vecs: np.ndarray) -> float:
    """Greedy-matching F1 of two token-vector matrices: P = mean over candidate tokens of the
    best cosine with a reference token, R = the same the other way, F1 = 2PR / (P + R)."""
    if cand_vecs.size == 0 or ref_vecs.size == 0:
        return 0.0
    sim = _unit_rows(cand_vecs) @ _unit_rows(ref_vecs).T
    precision = float(sim.max(axis=1).mean())
    recall = float(sim.max(axis=0).mean())
    if precision + recall <= 0:
        return 0.0
    return min(1.0, max(0.0, 2 * precision * recall / (precision + recall)))


def bertscore_f1(candidate: str, references: Sequence[str], token_embedder: TokenEmbedder) -> float:
    """BERTScore-style F1 (no idf, no rescaling), max over references."""
    refs = _clean_refs(references)
    if not candidate.strip() or not refs:
        return 0.0
    vectors = token_embedder([candidate, *refs])
    cand = vectors[0]
    return max(bertscore_pair(cand, ref) for ref in vectors[1:])


def minilm_token_embedder() -> TokenEmbedder:
    """Contextual token vectors from the bundled all-MiniLM-L6-v2 (last hidden state,
    [CLS]/[SEP] and padding removed), through its provider: in the model host where the app
    runs one (providers/host_client.py), so this process never loads torch."""
    from quizsmith.providers import provider_for

    provider = provider_for("all-minilm-l6-v2")  # reads up to 256 word pieces (hf.py)

    def embed(texts: Sequence[str]) -> list[np.ndarray]:
        return [np.asarray(v) for v in provider.token_embeddings(list(texts))]

    return embed
