"""The client against the real local stack (the service's Lambda handlers behind the local adapter, DynamoDB
Local, the stream consumer): what a run records reads back exactly through the read API."""

from __future__ import annotations

import datetime
import json
import time
import unittest
import urllib.request
from pathlib import Path
from typing import Any, Dict, List

from ats import AgentTracker, AtsDeliveryError, AtsError, AtsUsageError, current_run, wrap_openai, wrap_tool
from tests.support.fake_openai import FakeOpenAIServer, OpenAI
from tests.support.local_stack import LocalStack

PRICE_TABLE = Path(__file__).resolve().parents[2] / "functions" / "pricing" / "model-prices.json"


def _table_row(model: str, day: str) -> Dict[str, Any]:
    """The service's price table's row of ``model`` in force on ``day`` (the newest not after it)."""
    table = json.loads(PRICE_TABLE.read_text())
    rows = [
        dict(rates, effectiveFrom=block["effectiveFrom"])
        for block in table["prices"]
        for models in block["models"].values()
        for name, rates in models.items()
        if name == model and block["effectiveFrom"] <= day
    ]
    return max(rows, key=lambda row: row["effectiveFrom"])


class RecordedRunTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.stack = LocalStack.shared()

    def setUp(self) -> None:
        self.errors: List[AtsError] = []

    def tracker(self) -> AgentTracker:
        return AgentTracker(
            api_key=self.stack.api_key, base_url=self.stack.api_url, on_error=self.errors.append, flush_interval=0.1
        )

    def test_runs_naming_a_conversation_read_back_as_its_turns_in_order(self) -> None:
        ats = self.tracker()
        conversation = f"py-chat-{time.time_ns()}"
        # Turns a second apart: a conversation's runs are ordered by their start (two in one millisecond, by id).
        first = ats.start_session("turn 1", "chat-bot", "u-1", conversation_id=conversation, started_at=time.time() - 2)
        first.end(status="completed")
        with ats.session("turn 2", "chat-bot", "u-1", conversation_id=conversation, started_at=time.time() - 1) as second:
            second.state_change("asked", "answered")
        ats.shutdown()

        status, body = self.stack.get(f"/api/sdk/conversations/{conversation}")
        self.assertEqual(self.errors, [])
        self.assertEqual(status, 200, body)
        self.assertEqual((body["id"], body["runCount"], body["totals"]["completed"]), (conversation, 2, 2))
        self.assertEqual([run["id"] for run in body["runs"]], [first.id, second.id])
        self.assertTrue(all(run["conversationId"] == conversation for run in body["runs"]))

    def test_a_conversation_scored_right_after_its_runs_were_queued_reads_back_with_its_scores(self) -> None:
        ats = self.tracker()
        conversation = f"py-scored-{time.time_ns()}"
        first = ats.start_session("turn 1", "chat-bot", "u-2", conversation_id=conversation, started_at=time.time() - 2)
        first.tool_call("search", {"q": "refund"})
        second = ats.start_session("turn 2", "chat-bot", "u-2", conversation_id=conversation, started_at=time.time() - 1)
        # Queued before either start was answered: the service does not know the conversation yet.
        resolved = ats.score_conversation(conversation, "resolved", True, source="evaluator")
        tone = ats.score_conversation(conversation, "tone", "curt")
        self.assertEqual(ats.score_conversation(conversation, "tone", "friendly", comment="on review", id=tone), tone)
        second.score("resolved", False)
        first.end()
        second.end()
        stats = ats.shutdown()
        self.assertEqual(self.errors, [])
        self.assertEqual((stats.scores_recorded, stats.scores_delivered, stats.scores_failed), (4, 4, 0))

        status, body = self.stack.get(f"/api/sdk/conversations/{conversation}")
        self.assertEqual(status, 200, body)
        by_name = {score["name"]: score for score in body["scores"]}
        self.assertEqual(len(body["scores"]), 2)
        self.assertFalse(body["scoresTruncated"])
        self.assertEqual(
            {key: by_name["resolved"][key] for key in ("id", "conversationId", "sessionId", "eventId", "value", "source")},
            {"id": resolved, "conversationId": conversation, "sessionId": None, "eventId": None, "value": True, "source": "evaluator"},
        )
        self.assertEqual(
            {key: by_name["tone"][key] for key in ("id", "conversationId", "sessionId", "value", "comment")},
            {"id": tone, "conversationId": conversation, "sessionId": None, "value": "friendly", "comment": "on review"},
        )
        totals = {entry["name"]: entry for entry in body["totals"]["scores"]}
        self.assertTrue(body["totals"]["scoresComplete"])
        # The conversation's own verdict and its second run's, counted together.
        self.assertEqual((totals["resolved"]["count"], totals["resolved"]["boolean"]["trueCount"]), (2, 1))
        self.assertEqual((totals["tone"]["count"], totals["tone"]["labels"]), (1, [{"label": "friendly", "count": 1}]))

        # A conversation no run named: the service's 404, reported with the conversation, never raised.
        evaluator = self.tracker()
        evaluator.score_conversation(f"{conversation}-none", "resolved", True)
        stats = evaluator.shutdown()
        self.assertEqual((stats.scores_recorded, stats.scores_delivered, stats.scores_failed, stats.retries), (1, 0, 1, 0))
        [refusal] = self.errors
        self.assertEqual(
            (refusal.code, getattr(refusal, "status", None), refusal.conversation_id, refusal.session_id),
            ("rejected", 404, f"{conversation}-none", None),
        )

    def test_a_recorded_run_reads_back_exactly(self) -> None:
        ats = self.tracker()
        run = ats.start_session(
            "Refund request", "support-bot", "customer-42", metadata={"plan": "pro", "constructor": "kept"}
        )
        run.decision("Look up the order first", alternatives_considered=["refund", "escalate"], confidence=0.8, estimated_cost=0.25)
        run.tool_call(
            "lookup_order",
            {"order_id": "A-1"},
            {"status": "delivered", "history": ["placed", "shipped", "delivered"] * 40},  # over 1 KiB: gzip
            estimated_cost=0.5,
        )
        run.state_change("investigating", "refunding", details={"amount": 42})
        try:
            raise TypeError("card declined")
        except TypeError as error:
            run.error(error)
        run.llm_call("gpt-test", reasoning="user: refund? → assistant: yes", prompt_tokens=100, completion_tokens=20)
        ended_at = time.time()
        run.end(custom_metrics={"retries": 1})
        stats = ats.shutdown(30)
        self.assertEqual(self.errors, [])
        self.assertEqual((stats.events_recorded, stats.events_delivered, stats.sessions_ended), (5, 5, 1))
        self.assertLess(stats.bytes_sent, stats.bytes_before_compression)

        session = self.stack.session_when_counted(run.id, 5)
        expected = {
            "id": run.id,
            "name": "Refund request",
            "agentName": "support-bot",
            "userId": "customer-42",
            "metadata": {"plan": "pro", "constructor": "kept"},
            "status": "completed",
            "success": True,
            "eventCount": 5,
            "eventCost": 0.75,
            "promptTokens": 100,
            "completionTokens": 20,
            "totalTokens": 120,
            "customMetrics": {"retries": 1},
            "toolCalls": {"lookup_order": 1},
        }
        self.assertEqual({key: session.get(key) for key in expected}, expected)
        # The LLM call is left for the service to price (model and usage, no cost): the end sends no partial sum.
        # The session's cost is the sum of its events' costs, the service's price of the LLM call included.
        self.assertEqual(session.get("estimatedCost"), session.get("eventCost"))
        self.assertGreaterEqual(session["durationMs"], 0)
        completed = datetime.datetime.fromisoformat(session["completedAt"].replace("Z", "+00:00")).timestamp()
        self.assertLess(abs(completed - ended_at), 0.05)  # the client's end time, not the delivery's

        events = self.stack.events(run.id)
        self.assertEqual(
            [event["eventType"] for event in events], ["llm_decision", "tool_call", "state_change", "error", "llm_decision"]
        )
        self.assertEqual(
            (events[0]["reasoning"], events[0]["alternativesConsidered"], events[0]["confidence"]),
            ("Look up the order first", ["refund", "escalate"], 0.8),
        )
        self.assertEqual((events[1]["toolName"], events[1]["toolInput"]), ("lookup_order", {"order_id": "A-1"}))
        self.assertEqual(len(events[1]["toolOutput"]["history"]), 120)
        self.assertEqual(events[2]["toolInput"], {"from": "investigating", "to": "refunding", "amount": 42})
        self.assertEqual(events[3]["reasoning"], "TypeError: card declined")
        self.assertEqual(events[3]["toolOutput"]["error"]["name"], "TypeError")
        self.assertEqual((events[4]["model"], events[4]["usage"]), ("gpt-test", {"promptTokens": 100, "completionTokens": 20}))
        self.assertEqual(events[4]["toolInput"], {"model": "gpt-test"})
        self.assertEqual(events[4]["toolOutput"], {"promptTokens": 100, "completionTokens": 20, "totalTokens": 120})
        self.assertTrue(all(event["id"].startswith("evt_") for event in events))

    def test_scores_wait_for_the_start_replace_by_id_and_judge_other_sessions(self) -> None:
        ats = self.tracker()
        run = ats.start_session("Scored", "score-bot", "customer-7")
        # Queued before the session's start was answered: sent after it, never refused as unknown.
        helpfulness = run.score("helpfulness", 0.4, comment="first look")
        thumbs = run.score("thumbs", False, source="end_user")
        run.end()
        # After the end, the same id changes the score rather than adding one.
        self.assertEqual(run.score("helpfulness", 0.9, comment="on review", id=helpfulness), helpfulness)
        # Refused before sending: reported, nothing queued.
        self.assertIsNone(run.score("", 1))
        self.assertIsNone(run.score("nan", float("nan")))
        self.assertIsNone(ats.score("", "x", 1))
        stats = ats.shutdown()
        self.assertEqual([error.code for error in self.errors], ["usage", "usage", "usage"])
        self.assertEqual((stats.scores_recorded, stats.scores_delivered, stats.scores_failed), (3, 3, 0))
        status, page = self.stack.get(f"/api/sdk/sessions/{run.id}/scores")
        self.assertEqual(status, 200)
        by_name = {score["name"]: score for score in page["items"]}
        self.assertEqual(len(page["items"]), 2)
        self.assertEqual(
            {key: by_name["helpfulness"][key] for key in ("id", "value", "comment", "source")},
            {"id": helpfulness, "value": 0.9, "comment": "on review", "source": "sdk"},
        )
        self.assertEqual(
            {key: by_name["thumbs"][key] for key in ("id", "value", "valueKind", "source")},
            {"id": thumbs, "value": False, "valueKind": "boolean", "source": "end_user"},
        )

        # An evaluator judges the finished session from another tracker; an unknown session's 404 is reported.
        self.errors.clear()
        evaluator = self.tracker()
        verdict = evaluator.score(run.id, "correct", "partially", source="evaluator")
        evaluator.score("ses_01JZZZZZZZZZZZZZZZZZZZZZZZ", "correct", True)
        stats = evaluator.shutdown()
        self.assertEqual((stats.scores_recorded, stats.scores_delivered, stats.scores_failed), (2, 1, 1))
        self.assertEqual([(error.code, error.status) for error in self.errors], [("rejected", 404)])
        status, page = self.stack.get(f"/api/sdk/sessions/{run.id}/scores")
        [correct] = [score for score in page["items"] if score["name"] == "correct"]
        self.assertEqual((correct["id"], correct["value"], correct["valueKind"]), (verdict, "partially", "categorical"))

    def test_a_feedback_token_lets_the_browser_post_a_thumbs_down_and_a_refusal_raises(self) -> None:
        ats = self.tracker()
        run = ats.start_session("Feedback", "feedback-bot", "customer-8")
        run.end()
        self.assertTrue(ats.flush(10))

        minted = ats.feedback_token(run.id, expires_in_seconds=600, names=["thumbs"])
        # What the browser does with it: no API key, only the token.
        request = urllib.request.Request(
            f"{self.stack.api_url}/api/public/feedback",
            data=json.dumps({"name": "thumbs", "value": False}).encode(),
            headers={"Authorization": f"Bearer {minted.token}", "Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            self.assertEqual(answer.status, 201)
        with self.assertRaises(AtsDeliveryError) as refused:
            ats.feedback_token("ses_01JZZZZZZZZZZZZZZZZZZZZZZZ")
        ats.shutdown()
        with self.assertRaises(AtsUsageError):
            ats.feedback_token(run.id)

        self.assertTrue(minted.token.startswith("atsf_"))
        self.assertTrue(minted.token_id.startswith("fbt_"))
        self.assertEqual((refused.exception.status, refused.exception.operation), (404, "feedbackToken"))
        self.assertEqual(
            str(refused.exception),
            "No feedback token for session ses_01JZZZZZZZZZZZZZZZZZZZZZZZ (404): "
            "Session ses_01JZZZZZZZZZZZZZZZZZZZZZZZ not found",
        )
        status, page = self.stack.get(f"/api/sdk/sessions/{run.id}/scores")
        self.assertEqual(status, 200)
        [score] = page["items"]
        self.assertEqual(
            (score["name"], score["value"], score["source"], score["author"]),
            ("thumbs", False, "end_user", {"kind": "feedbackToken", "id": minted.token_id}),
        )
        self.assertEqual(self.errors, [])

    def test_wrapped_openai_calls_without_prices_of_ours_land_priced_by_the_services_table(self) -> None:
        server = FakeOpenAIServer()
        self.addCleanup(server.close)
        client = wrap_openai(OpenAI(server.base_url))
        ats = self.tracker()
        with ats.session("priced by the service", "openai-bot", "u-priced") as run:
            client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "Refund?"}])
        ats.shutdown(30)
        self.assertEqual(self.errors, [])

        session = self.stack.session_when_counted(run.id, 1)
        [event] = self.stack.events(run.id)
        # Served as gpt-4o-mini-2024-07-18: a dated snapshot, priced by its undated name's row of the table.
        row = _table_row("gpt-4o-mini", event["occurredAt"][:10])
        usage = event["usage"]
        cached = usage.get("cacheReadTokens", 0)
        expected = (
            (usage["promptTokens"] - cached) * row["input"]
            + cached * row.get("cacheRead", row["input"])
            + usage["completionTokens"] * row["output"]
        ) / 1_000_000
        self.assertEqual((event["model"], event["costSource"]), ("gpt-4o-mini-2024-07-18", "table"))
        self.assertEqual(event["priceEffectiveFrom"], row["effectiveFrom"])
        self.assertAlmostEqual(event["estimatedCost"], expected, places=12)
        self.assertAlmostEqual(session["estimatedCost"], expected, places=9)
        self.assertEqual((session["modelCalls"], session["unpricedCalls"]), (1, 0))

    def test_trace_and_wrap_tool_read_back_with_the_failure_and_the_tool_error(self) -> None:
        ats = self.tracker()

        @wrap_tool
        def search(query: str) -> dict:
            return {"hits": len(query)}

        @wrap_tool
        def charge(amount: int) -> str:
            raise RuntimeError(f"amount {amount} over the limit")

        @ats.trace(name="nested", agent_name="trace-bot", user_id="u-1")
        def agent() -> None:
            search("refund policy")
            current_run().decision("enough context", confidence=0.9)  # type: ignore[union-attr]
            charge(50)

        with self.assertRaises(RuntimeError):
            agent()
        ats.shutdown(30)
        self.assertEqual(self.errors, [])
        status, page = self.stack.get("/api/sdk/sessions?agentName=trace-bot&limit=10")
        self.assertEqual(status, 200)
        [listed] = page["items"]
        session = self.stack.session_when_counted(listed["id"], 4)
        self.assertEqual(
            (session["status"], session["success"], session["failureReason"]),
            ("failed", False, "RuntimeError: amount 50 over the limit"),
        )
        self.assertEqual((session["eventCount"], session["toolCalls"], session["toolErrors"]), (4, {"search": 1, "charge": 1}, {"charge": 1}))
        events = self.stack.events(listed["id"])
        self.assertEqual([e["eventType"] for e in events], ["tool_call", "llm_decision", "tool_call", "error"])
        self.assertEqual(events[0]["toolInput"], {"query": "refund policy"})
        self.assertEqual(events[0]["toolOutput"]["result"], {"hits": 13})


if __name__ == "__main__":
    unittest.main()
