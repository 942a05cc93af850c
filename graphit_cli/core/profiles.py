"""Each embedding model's own constants (pure): a table is searched by its model's profile.

Cosine similarities mean different things in different models' spaces: all-MiniLM-L6-v2's
memory-to-memory cosines centre near 0.44, multilingual-e5-small's near 0.85. So every
threshold that reads a cosine (the semantic match rule's floor, the duplicate guard's cosine,
consolidation's near-duplicate threshold) and the fusion's weight, which balances a cosine
against BM25, belong to the model, and the service looks them up by the model id recorded in
the table (`profile_for`). Each value was calibrated on the LoCoMo dev observations or on
benchmarks/data/dedup_pairs.jsonl (docs/decisions/0001-e5-by-default.md) with
benchmarks/calibrate_floor.py, benchmarks/retrieval.py and benchmarks/dedup.py (--embedder).
"""

from __future__ import annotations

from dataclasses import dataclass

# The packaged all-MiniLM-L6-v2, whichever backend runs it (embed/): one vector space.
MINILM_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
# multilingual-e5-small (embed/e5.py): another vector space of the same size.
E5_MODEL = "intfloat/multilingual-e5-small"


@dataclass(frozen=True)
class ModelProfile:
    """What search, the duplicate guard and consolidation need to know about one model."""

    model_id: str
    # Fusion: `lexical_weight * lexical + (1 - lexical_weight) * semantic` (ranking.fuse), a
    # vector hit's semantic part being `(cosine - similarity_origin) / (best - origin)`: 0 for
    # MiniLM (its cosines spread from ~0 to 1); e5's all sit in ~0.7-0.9, where dividing by
    # the best alone would leave every candidate at 0.85-1.0 and the vector leg with no say.
    lexical_weight: float
    similarity_origin: float
    # The semantic match rule (relevance.semantic_match): the cosine to the query reaches
    # `similarity_floor`, and the fused relevance reaches the candidates' mean plus `fused_z`
    # standard deviations (relevance.fused_threshold).
    similarity_floor: float
    fused_z: float
    # The duplicate guard (service/duplicates.py): a new memory at this cosine to a live one,
    # with a similar title, repeats it.
    duplicate_cosine: float
    # Consolidation (consolidate/candidates.py): the near-duplicate cosine, confirmed by words.
    near_duplicate: float
    # The per-prompt hook (recall/policy.py), in a scope too small for a spread of cosines:
    # the cosine at which its best match is close to the prompt.
    recall_cosine: float = 0.6


MINILM = ModelProfile(
    model_id=MINILM_MODEL,
    lexical_weight=0.5,  # benchmarks/retrieval.py: MRR 0.669, recall@10 0.763 on dev (0.3: 0.664)
    similarity_origin=0.0,
    similarity_floor=0.30,
    fused_z=1.25,
    duplicate_cosine=0.92,
    near_duplicate=0.50,  # dedup pairs: P 0.97, R 0.89; plateau 0.475-0.55
    recall_cosine=0.6,  # not calibrated on sessions (no MiniLM run of them): a high bar
)

E5 = ModelProfile(
    model_id=E5_MODEL,
    # dev: recall@10 0.774 (flagged 0.767), MRR 0.694 (0.694). A floor of 0.81 gives the same
    # figures and leaves all 40 off-topic queries empty (0.80: 36; MiniLM's rule: 93 %), but
    # loses cross-language matches, whose cosines run lower (tests/test_multilingual.py).
    lexical_weight=0.3,
    similarity_origin=0.7,
    similarity_floor=0.80,
    fused_z=1.25,
    # The guard's test (cosine and a similar title) on the "same memory" pairs: 0.96 gives
    # P 0.89 / R 0.25, where MiniLM's 0.92 gives P 0.83-0.87 / R 0.16-0.20.
    duplicate_cosine=0.96,
    # dedup pairs, to consolidate: P 0.975, R 0.81 (0.88: P 0.956, R 0.90; 0.90: R 0.74).
    # Short notes of one project sit close in e5's space: two unrelated ones can reach 0.90.
    near_duplicate=0.89,
    # Above the best cosine of every generic and chit-chat prompt of the recall sessions
    # (0.82-0.85), where most of their rank-1 must memories sit (benchmarks/recall_sessions.py).
    recall_cosine=0.85,
)

PROFILES = {profile.model_id: profile for profile in (MINILM, E5)}
# The default model's (embed.DEFAULT_ORDER tries e5 first): what help text shows and what a
# caller that names no model gets.
DEFAULT = E5
# A table that records no model (written before tables recorded one: MiniLM) or a model graphit
# was not calibrated for (a `module:factory` plugin): MiniLM's values.
UNCALIBRATED = MINILM


def profile_for(model_id: str | None) -> ModelProfile:
    """The profile of the model that embedded a table (MiniLM's for an unknown model or none)."""
    return PROFILES.get(model_id or "", UNCALIBRATED)
