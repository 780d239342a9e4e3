"""The demo's Python agent: a documentation Q&A bot written with the Python client (``ats``), recorded by
``npm run demo`` next to the TypeScript agents. Scripted (no LLM is called, the "model" answers from a table), so
every run of the demo records the same three sessions: two answered, one failed by a tool that times out.

It shows the idioms: ``@ats.trace`` makes each question a session (failed, with the exception's message, when it
raises), ``@wrap_tool`` records each tool call with its arguments, result and duration, ``current_run()`` reaches
the run anywhere below, ``run.llm_call`` records a model call with its tokens and cost.

Reads ATS_BASE_URL / ATS_API_KEY; prints one JSON line with what it recorded and the client's delivery stats.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from collections import Counter
from typing import Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python" / "src"))

from ats import AgentTracker, AtsError, current_run, wrap_tool  # noqa: E402

AGENT = "docs-bot-py"
MODEL = "gpt-4o-mini"
PRICE = {"prompt": 0.15, "completion": 0.6}  # USD per million tokens
PAGES = {
    "refunds": "Refunds are issued within 5 business days to the original payment method.",
    "shipping": "Orders ship within 24 hours; tracking links are emailed on dispatch.",
    "api-keys": "Rotate a key with an overlap so that running agents keep working.",
}
QUESTIONS = [
    ("How long do refunds take?", "user-ada", "refunds"),
    ("When will my order ship?", "user-bilal", "shipping"),
    ("How do I rotate an API key?", "user-chen", "api-keys"),  # its fetch times out: a failed run
]

errors: List[AtsError] = []
# What was recorded, by event type, counted by a mask (a mask sees every event before it leaves the process).
counts: Counter = Counter()
totals = {"promptTokens": 0, "completionTokens": 0, "cost": 0.0}


def count_events(event: Dict[str, object]) -> Dict[str, object]:
    counts[str(event["eventType"])] += 1
    if event["eventType"] == "error" and "toolName" in event:
        counts["toolErrors"] += 1
    return event


ats = AgentTracker(on_error=errors.append, mask=count_events)


class ToolTimeout(Exception):
    """A tool that did not answer in time."""


@wrap_tool
def search_docs(query: str, k: int = 3) -> Dict[str, object]:
    time.sleep(0.02)
    hits = [slug for slug in PAGES if any(word in slug for word in query.lower().split())]
    return {"hits": hits or list(PAGES)[:1], "k": k}


@wrap_tool
def fetch_page(slug: str) -> Dict[str, str]:
    time.sleep(0.03)
    if slug == "api-keys":
        raise ToolTimeout(f"docs service did not answer for {slug} within 2000 ms")
    return {"slug": slug, "text": PAGES[slug]}


def answer_with_model(question: str, context: str) -> str:
    """The scripted model call, recorded as an llm_decision with its tokens and cost."""
    prompt_tokens = 180 + len(context) // 3
    completion_tokens = 24 + len(question) // 4
    cost = round((prompt_tokens * PRICE["prompt"] + completion_tokens * PRICE["completion"]) / 1e6, 8)
    totals["promptTokens"] += prompt_tokens
    totals["completionTokens"] += completion_tokens
    totals["cost"] += cost
    current_run().llm_call(  # type: ignore[union-attr]
        MODEL,
        reasoning=f"user: {question}\nassistant: {context}",
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        estimated_cost=cost,
        duration_ms=420,
    )
    return context


@ats.trace(agent_name=AGENT, user_id=lambda question, user, page: user)
def ask(question: str, user: str, page: str) -> str:
    run = current_run()
    assert run is not None
    run.state_change("received", "searching")
    hits = search_docs(question)
    run.decision(
        f"Read the {page} page before answering",
        alternatives_considered=["answer from memory", "ask a human"],
        confidence=0.86,
    )
    run.state_change("searching", "reading")
    text = fetch_page(page)["text"]
    run.state_change("reading", "answering", details={"hits": len(hits["hits"])})
    return answer_with_model(question, text)


def main() -> None:
    failed = 0
    for question, user, page in QUESTIONS:
        try:
            ask(question, user, page)
        except ToolTimeout:
            failed += 1
    stats = ats.shutdown(timeout=30)
    print(
        json.dumps(
            {
                "agentName": AGENT,
                "sessions": stats.sessions_started,
                "failed": failed,
                "events": stats.events_recorded,
                "delivered": stats.events_delivered,
                "eventsFailed": stats.events_failed,
                "dropped": stats.events_dropped,
                "sessionsEnded": stats.sessions_ended,
                "sessionsFailed": stats.sessions_failed,
                "eventsByType": {kind: counts[kind] for kind in ("tool_call", "llm_decision", "state_change", "error")},
                "toolErrors": counts["toolErrors"],
                **totals,
                "errors": [f"{error.code}: {error.message}" for error in errors[:5]],
            }
        )
    )


if __name__ == "__main__":
    main()
