"""What one OpenAI call records: the request's description, the outcome read from a response (or a stream's
accumulation), and the ``llm_decision`` / ``error`` events built from them. Never raises into the caller."""

from __future__ import annotations

import time
from dataclasses import dataclass, field as dataclass_field
from typing import TYPE_CHECKING, Any, Dict, List, Optional

from .._times import iso_of_ms, now_ms
from .._usage import event_usage
from ._pricing import CostFunction, LlmUsage, PriceTable, estimate_cost
from ._summary import (
    SummaryPart,
    chat_message_part,
    chat_prompt_parts,
    field,
    responses_answer_parts,
    responses_prompt_parts,
    summarize,
    text_of,
)

if TYPE_CHECKING:
    from .._run import Run


@dataclass(frozen=True)
class WrapOptions:
    """The options of ``wrap_openai``."""

    run: "Optional[Run]"
    capture_content: bool
    prices: Optional[PriceTable]
    cost: Optional[CostFunction]
    include_stream_usage: bool


@dataclass
class CallState:
    """One call in flight."""

    api: str
    run: "Run"
    options: WrapOptions
    started: float
    # The wall clock at the call's start (epoch ms): the event's ``occurredAt``.
    started_at_ms: int
    requested_model: Optional[str]
    request: Dict[str, Any]
    prompt: Optional[List[SummaryPart]]
    injected_stream_usage: bool
    stream: bool
    kwargs: Dict[str, Any]


@dataclass
class CallOutcome:
    """What a response (or a stream) said."""

    model: Optional[str]
    #: The usage for a cost function (a missing count as 0).
    usage: Optional[LlmUsage]
    answer: List[SummaryPart]
    response: Dict[str, Any] = dataclass_field(default_factory=dict)
    #: The usage as the event sends it: exactly the counts the response gave, by their wire names.
    event_usage: Optional[Dict[str, int]] = None


def _count(value: Any) -> Optional[int]:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value < 0:
        return None
    return int(value)


def _put(target: Dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        target[key] = value


def _tool_names(tools: Any) -> Optional[List[str]]:
    if not isinstance(tools, (list, tuple)) or not tools:
        return None
    names = []
    for tool in tools:
        function = field(tool, "function") or field(tool, "custom") or tool
        names.append(text_of(field(function, "name")) or text_of(field(tool, "type")) or "tool")
    return names


def start_call(api: str, kwargs: Dict[str, Any], run: "Run", options: WrapOptions) -> CallState:
    """Reads the request: its model, the event's ``request`` fields, the prompt (when captured), the arguments to
    send (the caller's, or a copy with ``stream_options`` added)."""
    request: Dict[str, Any] = {"api": api}
    prompt: Optional[List[SummaryPart]] = None
    sent = kwargs
    injected = False
    stream = kwargs.get("stream") is True
    if api == "chat.completions":
        messages = kwargs.get("messages")
        _put(request, "messageCount", len(messages) if isinstance(messages, (list, tuple)) else None)
        _put(request, "maxTokens", _count(kwargs.get("max_completion_tokens")) or _count(kwargs.get("max_tokens")))
        if options.capture_content:
            prompt = chat_prompt_parts(messages)
        stream_options = kwargs.get("stream_options")
        asked = field(stream_options, "include_usage") if stream_options is not None else None
        if stream and options.include_stream_usage and asked is None:
            sent = dict(kwargs)
            sent["stream_options"] = {**(stream_options if isinstance(stream_options, dict) else {}), "include_usage": True}
            injected = True
    else:
        input_value = kwargs.get("input")
        request["messageCount"] = (
            len(input_value) if isinstance(input_value, (list, tuple)) else (0 if input_value is None else 1)
        )
        _put(request, "maxTokens", _count(kwargs.get("max_output_tokens")))
        if options.capture_content:
            prompt = responses_prompt_parts(kwargs.get("instructions"), input_value)
    temperature = kwargs.get("temperature")
    if isinstance(temperature, (int, float)) and not isinstance(temperature, bool):
        request["temperature"] = temperature
    _put(request, "tools", _tool_names(kwargs.get("tools")))
    if stream:
        request["stream"] = True
    return CallState(
        api=api,
        run=run,
        options=options,
        started=time.perf_counter(),
        started_at_ms=now_ms(),
        requested_model=text_of(kwargs.get("model")),
        request=request,
        prompt=prompt,
        injected_stream_usage=injected,
        stream=stream,
        kwargs=sent,
    )


def usage_of(value: Any) -> Optional[LlmUsage]:
    """Token usage in either API's shape (``prompt_tokens``… or ``input_tokens``…); ``None`` when there is none."""
    if value is None:
        return None
    prompt = _count(field(value, "prompt_tokens"))
    if prompt is None:
        prompt = _count(field(value, "input_tokens"))
    completion = _count(field(value, "completion_tokens"))
    if completion is None:
        completion = _count(field(value, "output_tokens"))
    total = _count(field(value, "total_tokens"))
    if prompt is None and completion is None and total is None:
        return None
    prompt_details = field(value, "prompt_tokens_details") or field(value, "input_tokens_details")
    completion_details = field(value, "completion_tokens_details") or field(value, "output_tokens_details")
    return LlmUsage(
        prompt_tokens=prompt or 0,
        completion_tokens=completion or 0,
        total_tokens=total if total is not None else (prompt or 0) + (completion or 0),
        cached_prompt_tokens=_count(field(prompt_details, "cached_tokens")),
        reasoning_tokens=_count(field(completion_details, "reasoning_tokens")),
    )


def event_usage_of(value: Any) -> Optional[Dict[str, int]]:
    """The counts OpenAI gave, by the event's names: ``prompt_tokens``/``input_tokens`` → ``promptTokens``,
    ``completion_tokens``/``output_tokens`` → ``completionTokens``, ``total_tokens`` → ``totalTokens``,
    ``*_tokens_details.cached_tokens`` → ``cacheReadTokens``, ``*_tokens_details.reasoning_tokens`` →
    ``reasoningTokens``. Nothing is computed; ``None`` when there is no count."""
    if value is None:
        return None
    prompt = field(value, "prompt_tokens")
    completion = field(value, "completion_tokens")
    prompt_details = field(value, "prompt_tokens_details") or field(value, "input_tokens_details")
    completion_details = field(value, "completion_tokens_details") or field(value, "output_tokens_details")
    return event_usage(
        {
            "promptTokens": prompt if prompt is not None else field(value, "input_tokens"),
            "completionTokens": completion if completion is not None else field(value, "output_tokens"),
            "totalTokens": field(value, "total_tokens"),
            "cacheReadTokens": field(prompt_details, "cached_tokens"),
            "reasoningTokens": field(completion_details, "reasoning_tokens"),
        }
    )


def chat_outcome(completion: Any) -> CallOutcome:
    """A chat completion's outcome (the first choice is summarised)."""
    choices = field(completion, "choices")
    choices = list(choices) if isinstance(choices, (list, tuple)) else []
    first = choices[0] if choices else None
    response: Dict[str, Any] = {}
    _put(response, "id", text_of(field(completion, "id")))
    _put(response, "finishReason", text_of(field(first, "finish_reason")))
    if len(choices) > 1:
        response["choices"] = len(choices)
    part = chat_message_part(field(first, "message"))
    usage = field(completion, "usage")
    return CallOutcome(
        model=text_of(field(completion, "model")),
        usage=usage_of(usage),
        answer=[] if part is None or not part.text else [SummaryPart("assistant", part.text)],
        response=response,
        event_usage=event_usage_of(usage),
    )


def responses_outcome(result: Any) -> CallOutcome:
    """A Responses API response's outcome."""
    response: Dict[str, Any] = {}
    _put(response, "id", text_of(field(result, "id")))
    incomplete = text_of(field(field(result, "incomplete_details"), "reason"))
    _put(response, "finishReason", incomplete or text_of(field(result, "status")))
    answer = responses_answer_parts(field(result, "output"))
    output_text = None
    if not isinstance(result, dict):
        try:
            output_text = text_of(getattr(result, "output_text", None))
        except Exception:  # noqa: BLE001 - a property that fails on a partial response
            output_text = None
    else:
        output_text = text_of(result.get("output_text"))
    if not answer and output_text is not None:
        answer = [SummaryPart("assistant", output_text)]
    usage = field(result, "usage")
    return CallOutcome(text_of(field(result, "model")), usage_of(usage), answer, response, event_usage_of(usage))


def _elapsed_ms(call: CallState) -> float:
    return round(max(0.0, (time.perf_counter() - call.started) * 1000), 3)


def record_outcome(call: CallState, outcome: CallOutcome, extra: Optional[Dict[str, Any]] = None) -> None:
    """Records the call's ``llm_decision`` event (and adds its tokens to the run): the response's model and usage
    as the event's ``model`` and ``usage``, from which the service prices the call, and ``estimated_cost`` only
    from the caller's ``cost`` or ``prices``."""
    try:
        model = outcome.model or call.requested_model or "unknown"
        request = dict(call.request)
        if call.requested_model is not None and call.requested_model != model:
            request["requestedModel"] = call.requested_model
        response = dict(outcome.response)
        response.update(extra or {})
        usage = outcome.usage
        if usage is not None:
            _put(response, "cachedTokens", usage.cached_prompt_tokens)
            _put(response, "reasoningTokens", usage.reasoning_tokens)
        cost = estimate_cost(
            call.options.prices, call.options.cost, [outcome.model, call.requested_model], usage
        )
        call.run.llm_call(
            model,
            reasoning=None if call.prompt is None else summarize(call.prompt, outcome.answer),
            usage=outcome.event_usage,
            estimated_cost=cost,
            duration_ms=_elapsed_ms(call),
            request=request,
            response=response,
            # The event spans the call: from its start, for as long as it (and its stream) took.
            occurred_at=iso_of_ms(call.started_at_ms),
        )
    except Exception:  # noqa: BLE001 - recording never fails the agent's call
        pass


def record_failure(call: CallState, error: Any, model: Optional[str] = None) -> None:
    """Records an ``error`` event for a failed call: the error, the model, the HTTP status and the request id."""
    try:
        details: Dict[str, Any] = {"api": call.api, "model": model or call.requested_model or "unknown"}
        status = field(error, "status_code")
        if status is None:
            status = field(error, "status")
        _put(details, "status", _count(status))
        _put(details, "code", text_of(field(error, "code")))
        _put(details, "type", text_of(field(error, "type")))
        _put(details, "requestId", text_of(field(error, "request_id")))
        details["durationMs"] = _elapsed_ms(call)
        call.run.error(error, details=details)
    except Exception:  # noqa: BLE001 - recording never fails the agent's call
        pass
