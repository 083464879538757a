"""How many candidates a target gets when the caller follows the model profile."""

from __future__ import annotations

from quizsmith.generation.api import DEFAULT_CANDIDATES, GenerationRequest, default_candidates
from quizsmith.settings import PROFILES


def test_each_profile_has_a_default_that_a_request_accepts() -> None:
    assert set(DEFAULT_CANDIDATES) == set(PROFILES)
    assert default_candidates("standard") == 2
    assert default_candidates("light") == 3
    assert default_candidates(None) == 3  # no profile chosen yet: the light profile's
    for profile in PROFILES:
        n = default_candidates(profile)
        assert GenerationRequest(candidates_per_target=n).candidates_per_target == n
