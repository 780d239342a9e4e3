"""Prices and costs of LLM calls: pure functions."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional, Sequence, Union


@dataclass(frozen=True)
class ModelPrice:
    """Prices of one model in currency units (e.g. USD) per million tokens."""

    input_per_million: float
    output_per_million: float
    #: Price of cached prompt tokens (``prompt_tokens_details.cached_tokens``); default ``input_per_million``.
    cached_input_per_million: Optional[float] = None


@dataclass(frozen=True)
class LlmUsage:
    """The token usage of one call, as a cost function receives it."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    #: Prompt tokens served from the provider's cache, when it says.
    cached_prompt_tokens: Optional[int] = None
    #: Completion tokens spent on hidden reasoning, when it says (already in ``completion_tokens``).
    reasoning_tokens: Optional[int] = None


PriceTable = Mapping[str, Union[ModelPrice, Mapping[str, float]]]
CostFunction = Callable[[str, LlmUsage], Optional[float]]


def _is_cost(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value) and value >= 0


def _price(value: Any) -> Optional[ModelPrice]:
    if isinstance(value, ModelPrice):
        candidate = value
    elif isinstance(value, Mapping):
        candidate = ModelPrice(
            value.get("input_per_million"),  # type: ignore[arg-type]
            value.get("output_per_million"),  # type: ignore[arg-type]
            value.get("cached_input_per_million"),
        )
    else:
        return None
    if not _is_cost(candidate.input_per_million) or not _is_cost(candidate.output_per_million):
        return None
    return candidate


def find_price(prices: PriceTable, model: str) -> Optional[ModelPrice]:
    """The price of ``model``: the entry of that exact name, else the one of the longest key that is a prefix of
    it (``gpt-4o-mini`` prices ``gpt-4o-mini-2024-07-18``)."""
    if model in prices:
        return _price(prices[model])
    best: Optional[str] = None
    for key in prices:
        if key and model.startswith(key) and (best is None or len(key) > len(best)):
            best = key
    return None if best is None else _price(prices[best])


def cost_at(price: ModelPrice, usage: LlmUsage) -> float:
    """``usage`` at ``price``; cached prompt tokens at ``cached_input_per_million`` when both are known."""
    cached = min(usage.cached_prompt_tokens or 0, usage.prompt_tokens)
    cached_rate = price.cached_input_per_million if _is_cost(price.cached_input_per_million) else price.input_per_million
    return (
        (usage.prompt_tokens - cached) * price.input_per_million
        + cached * cached_rate  # type: ignore[operator]
        + usage.completion_tokens * price.output_per_million
    ) / 1_000_000


def estimate_cost(
    prices: Optional[PriceTable],
    cost: Optional[CostFunction],
    models: Sequence[Optional[str]],
    usage: Optional[LlmUsage],
) -> Optional[float]:
    """The cost of a call: ``cost(model, usage)`` when it gives a usable number, else the price table; ``None``
    without usage or price. Never raises."""
    if usage is None:
        return None
    named = [model for model in models if isinstance(model, str) and model]
    if cost is not None and named:
        try:
            value = cost(named[0], usage)
            if _is_cost(value):
                return float(value)  # type: ignore[arg-type]
        except Exception:  # noqa: BLE001 - the agent's cost function failing must not fail its call
            pass
    if prices is None:
        return None
    for model in named:
        price = find_price(prices, model)
        if price is not None:
            return cost_at(price, usage)
    return None
